//! `--restart` after a template change (`rollback`, `set image`): the restart's
//! options and the `--wait` that follows it, as one value of the plan, and running it
//! once the change has landed.

use std::io::Write;

use super::{Wait, restart_jobset, wait};
use crate::cluster::Cluster;
use crate::error::Result;
use crate::model::jobset::{ChildJob, JobSet};
use crate::plan::restart::RestartOptions;

/// `--restart` (with `--force`) and `--wait`: what a command does once its change has
/// landed. None in a plan: no restart, and so no wait.
#[derive(Debug, Clone)]
pub struct RestartAfter {
    /// What the restart says about itself (reason, who asked) and `--force`.
    pub options: RestartOptions,
    /// `--wait`, with its timeout.
    pub wait: Option<Wait>,
}

impl RestartAfter {
    /// Restarts `jobset`, tells `restarted` the attempts (from, to), then waits as asked:
    /// only for an attempt this restart began (`to == from` when someone else restarted
    /// it first, and then there is nothing of ours to wait for).
    pub async fn run(
        &self,
        cluster: &Cluster,
        jobset: &JobSet,
        jobs: &[ChildJob],
        err: &mut dyn Write,
        restarted: impl FnOnce(i32, i32) -> Result<()>,
    ) -> Result<()> {
        let (from, to) = restart_jobset(cluster, jobset, jobs, &self.options).await?;
        restarted(from, to)?;
        if let Some(how) = self.wait.filter(|_| to > from) {
            wait(cluster, jobset, to, &how, err).await?;
        }
        Ok(())
    }
}
