//! The e2e harness, shared by every test binary that runs on the real control plane
//! (tests/e2e, tests/faults, tests/handover, tests/recorder, tests/soak). Each pulls it in
//! as `#[path = "../support/cluster/mod.rs"] mod support;` and reads it as `support::*`.
//!
//! - `harness`: the harness cluster (tests/cluster/cluster.sh), checked once, its admin
//!   client, and polling.
//! - `namespace`: one fresh namespace per test, and the kubelet's part in it.
//! - `plugin`: the built kubectl-jobset run as a process, plain or at a terminal prompt.
//! - `objects`: manifests written and objects read back.
//!
//! Safety: tests only ever use the kubeconfig in the harness's state directory, and
//! refuse to start unless the cluster behind it carries the marker ConfigMap with the
//! id that `cluster.sh up` wrote into that same state directory.

// Each binary uses its own part of the harness (soak runs no plugin through `support`).
#![allow(dead_code, unused_imports)]

mod harness;
mod namespace;
mod objects;
mod plugin;

pub use harness::*;
pub use namespace::*;
pub use objects::*;
pub use plugin::*;
