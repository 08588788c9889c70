//! kubectl-jobset: diff, restart, history and rollback for JobSets.
//!
//! Every command flows args → plan → cluster I/O → render, as kubectl's
//! Complete/Validate/Run. The folders say the role; arrows only point down this list.
//!
//! Front (the command line, no I/O):
//! - `cli`: the clap definition; nothing else depends on clap.
//! - `args`: the parsed command line checked and turned into a plan of plain values.
//! - `completion`: static completion scripts and kubectl's dynamic completion protocol.
//!
//! Orchestration (runs plans; the only code that both decides and sends):
//! - `commands`: one module per subcommand: observe, plan, execute, render.
//! - `recorder`: the in-cluster controller that records every JobSet's history, enforces
//!   the update strategies (Opportunistic, Immediate) and drives staged fleet rollouts
//!   (with `execute::rollout`, the same driver `rollout resume` runs).
//! - `execute`: acting on one JobSet: restarts, handovers, waiting for a restart by watch;
//!   and driving a staged fleet rollout (`execute::rollout`).
//! - `observe`: the step below every command and the recorder: load, compare, record.
//!
//! I/O:
//! - `cluster`: every request to the API server (connect, typed API, retries, the one
//!   guarded-write loop, watches, Events, the `-v` request log) and how a failed one
//!   becomes an `Error` (`classify`).
//!
//! Pure decisions and models (no I/O, tested without a cluster):
//! - `plan`: what a write verb will send, or why not (restart, rollback, set image,
//!   handover, rollout status, writes whose answer was lost, update strategies, admission,
//!   changes staged for the next restart, and `plan::rollout`: a staged fleet rollout's
//!   journal and its next step).
//! - `diff`: the drift engine: expected Job, normalisation, structural and unified diffs.
//! - `history`: the revision storage format, numbering and the writes that record it;
//!   `history::retention` decides what the recorder marks and prunes of deleted JobSets'
//!   history, `history::deleted` groups a deleted JobSet's kept revisions.
//! - `model`: typed read-only views of JobSets and Jobs, summaries, JSON patch ops, the
//!   update-strategy annotation.
//! - `presence`: the recorder's Lease, the contract the CLI reads to know one runs.
//! - `select`: which JobSets a command acts on (names, `-l`, `-n`, `-A`).
//! - `render`: everything the commands print, written into a `Write`.
//! - `error`: errors a user can act on; `exit`: how a command ended (exit codes).
//! - `age`, `runs`: kubectl's short durations; numbers written as runs (`0-2,5`).

pub mod age;
pub mod args;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod completion;
pub mod diff;
pub mod error;
pub mod execute;
pub mod exit;
pub mod hint;
pub mod history;
pub mod model;
pub mod observe;
pub mod plan;
pub mod presence;
pub mod rbac;
pub mod recorder;
pub mod render;
pub mod runs;
pub mod select;
/// Builders of JobSets, Jobs and revisions for the unit tests.
#[cfg(test)]
pub(crate) mod testing;

use std::io::Write;
use std::sync::Arc;

use args::Invocation;
use cli::Cli;
use cluster::request_log::RequestLog;
use error::Result;
use exit::ExitStatus;

/// Runs a parsed command line. `log` receives the `-v` request log.
pub async fn run(
    cli: Cli,
    out: &mut dyn Write,
    err: &mut dyn Write,
    log: Arc<RequestLog>,
) -> Result<ExitStatus> {
    match args::complete(cli)? {
        Invocation::Completion(shell) => completion::write_script(shell, out).map(|()| ExitStatus::Success),
        Invocation::Rbac(role) => {
            out.write_all(rbac::roles(role).as_bytes())?;
            Ok(ExitStatus::Success)
        }
        Invocation::Complete(words) => {
            completion::answer(&words, out, log).await.map(|()| ExitStatus::Success)
        }
        // `version --client` needs no cluster (nor a kubeconfig).
        Invocation::Version { plan, .. } if plan.client_only => {
            commands::version::run(None, &plan, out).await
        }
        Invocation::Version { connect, plan } => {
            let cluster = cluster::connect(&connect, log).await?;
            commands::version::run(Some(&cluster), &plan, out).await
        }
        Invocation::Command { connect, plan } => {
            let cluster = cluster::connect(&connect, log).await?;
            hint::remember(hint::HintFlags {
                context: connect.context.clone(),
                default_namespace: cluster.namespace.clone(),
                namespace_passed: connect.namespace.is_some(),
            });
            plan.in_default_namespace(&cluster.namespace).run(&cluster, out, err).await
        }
    }
}
