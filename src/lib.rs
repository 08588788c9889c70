//! kubectl-jobset: diff, restart, history and rollback for JobSets.
//!
//! Every command flows args → plan → cluster I/O → render, as kubectl's
//! Complete/Validate/Run: `cli` holds the clap definition, `args` turns it into a
//! validated plan without I/O, `commands` run plans against the cluster through
//! `observe` and `execute`, and render into the writers they are given.

pub mod age;
pub mod args;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod completion;
pub mod diff;
pub mod error;
pub mod execute;
pub mod handover;
pub mod history;
pub mod model;
pub mod observe;
pub mod recorder;
pub mod render;
pub mod restart;
pub mod rollback;
pub mod rollout;
pub mod runs;
pub mod select;
pub mod set_image;

use std::io::Write;
use std::sync::Arc;

use args::Invocation;
use cli::Cli;
use cluster::request_log::RequestLog;
use commands::ExitStatus;
use error::Result;

/// Runs a parsed command line. `log` receives the `-v` request log.
pub async fn run(
    cli: Cli,
    out: &mut dyn Write,
    err: &mut dyn Write,
    log: Arc<RequestLog>,
) -> Result<ExitStatus> {
    match args::complete(cli)? {
        Invocation::Completion(shell) => completion::write_script(shell, out).map(|()| ExitStatus::Success),
        Invocation::Complete(words) => {
            completion::answer(&words, out, log).await.map(|()| ExitStatus::Success)
        }
        Invocation::Command { connect, plan } => {
            let cluster = cluster::connect(&connect, log).await?;
            plan.in_default_namespace(&cluster.namespace).run(&cluster, out, err).await
        }
    }
}
