//! End-to-end tests on the real control plane (kube-apiserver, kube-controller-manager
//! and the upstream JobSet controller) that tests/cluster/cluster.sh runs.
//! `make test` starts it and runs these with `--include-ignored`.

#[path = "../support/netproxy_client.rs"]
mod netproxy_client;
#[path = "../support/cluster/mod.rs"]
mod support;

mod catalog;
mod diff;
mod errors;
mod features;
mod fleet;
mod fleet_rollout;
mod handover;
#[path = "../support/handover_setup.rs"]
mod handover_setup;
mod history;
mod history_exact;
mod list;
mod netproxy;
mod privilege;
mod recorder_presence;
mod restart;
mod rollback;
mod rollout;
mod smoke;
mod soak;
mod states;
