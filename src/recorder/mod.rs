//! `kubectl jobset recorder`: the controller that keeps every JobSet's history, and the
//! Lease through which the CLI knows that one runs.
//!
//! Three watches (JobSets in scope, their Jobs, our ControllerRevisions) feed kube-runtime
//! reflector stores, and every event queues the JobSet it concerns. A worker takes the
//! queued JobSets in batches and runs the observe step's compare and record on them.
//! Why not `kube::runtime::Controller`: its stores of owned objects are private unless an
//! unstable feature is enabled, and the reconcile needs every Job and revision of the
//! JobSet. The reflectors and watchers are kube-runtime's; only the small queue is ours.
//!
//! - `run`: the plan and the wiring, start to graceful stop.
//! - `state`: what the tasks share (queue, stores, log, versions seen).
//! - `stored`: a JobSet as the store holds it (compact JSON, read when reconciled).
//! - `watch`: the three watches into the stores and the queue.
//! - `index`: which stored Jobs and revisions concern which JobSet.
//! - `reconcile`: the worker, and which JobSets to look at again.
//! - `announce`: the Events of recorded revisions.
//! - `staged`: changes staged for the next restart, applied when a JobSet restarts.
//! - `retention`: the history of deleted JobSets: marked, kept, then pruned.
//! - `steer`: the update strategies (Opportunistic, Immediate): restarts the drift calls for.
//! - `lease`: the Lease (election or heartbeat) and the loop that keeps it.
//! - `queue`, `metrics`, `server`: the work queue, the counters, `/metrics` and probes.

mod announce;
mod index;
pub mod lease;
pub mod metrics;
pub mod queue;
mod reconcile;
mod retention;
mod rollouts;
mod run;
pub mod server;
mod staged;
mod state;
mod steer;
mod stored;
mod watch;

pub use run::{RecorderPlan, run};

/// FNV-1a (64-bit) of a value's `Hash`: keys, chunks and fingerprints, stable within a run.
fn fnv(value: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut hasher = fnv::FnvHasher::default();
    value.hash(&mut hasher);
    hasher.finish()
}
