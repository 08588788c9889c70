//! One JobSet's restart against the API server: the planner's guarded status patch,
//! re-read and re-planned when a concurrent change wins, and an Event saying who asked.

use serde_json::Value;

use super::DryRun;
use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::error::{Error, Result};
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME};
use crate::restart::{Decision, RestartOptions, plan};

/// Re-reads after a precondition failure before giving up.
const MAX_ATTEMPTS: usize = 5;

/// What happened to one JobSet.
#[derive(Debug)]
pub enum Outcome {
    Restarted { from: i32, to: i32, object: Value },
    WouldRestart { from: i32, to: i32 },
    AlreadyRestarted { attempt: i32 },
    Skipped(String),
    Failed(Error),
}

impl Outcome {
    /// The attempt to wait for: ours, or someone else's that got there first.
    pub fn attempt_to_wait_for(&self) -> Option<i32> {
        match self {
            Outcome::Restarted { to, .. } => Some(*to),
            Outcome::AlreadyRestarted { attempt } => Some(*attempt),
            _ => None,
        }
    }
}

/// Restarts a single JobSet (for `rollback --restart`): `(from, to)` attempts, or
/// `(n, n)` when someone else restarted it first.
pub async fn restart_jobset(
    cluster: &Cluster,
    jobset: &JobSet,
    jobs: &[ChildJob],
    options: &RestartOptions,
) -> Result<(i32, i32)> {
    match restart_one(cluster, jobset, jobs, options, DryRun::None).await {
        Outcome::Restarted { from, to, .. } | Outcome::WouldRestart { from, to } => Ok((from, to)),
        Outcome::AlreadyRestarted { attempt } => Ok((attempt, attempt)),
        Outcome::Skipped(why) => Err(Error::Refused { what: RESOURCE_NAME.into(), verb: "restarted", why }),
        Outcome::Failed(e) => Err(e),
    }
}

/// Restarts one JobSet, re-reading it when a concurrent change beat us.
pub async fn restart_one(
    cluster: &Cluster,
    jobset: &JobSet,
    jobs: &[ChildJob],
    options: &RestartOptions,
    dry_run: DryRun,
) -> Outcome {
    let what = format!("{RESOURCE_NAME}/{}", jobset.name());
    let seen_attempt = jobset.attempt();
    let mut jobset = jobset.clone();
    for _ in 0..MAX_ATTEMPTS {
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        let (ops, from, to) = match plan(&jobset, jobs, options, &now) {
            Decision::Refuse(why) => return Outcome::Failed(Error::Refused { what, verb: "restarted", why }),
            Decision::AlreadyRestarted { attempt } => return Outcome::AlreadyRestarted { attempt },
            Decision::Patch { ops, from, to } => (ops, from, to),
        };
        if dry_run == DryRun::Client {
            return Outcome::WouldRestart { from, to };
        }
        let ns = jobset.namespace().to_owned();
        match cluster.patch_jobset(&ns, jobset.name(), Some("status"), &ops, dry_run == DryRun::Server).await
        {
            Ok(object) => {
                if dry_run == DryRun::None {
                    record_event(cluster, &jobset, options, from, to).await;
                }
                return Outcome::Restarted { from, to, object };
            }
            Err(e) if is_precondition_failure(&e) => match reread(cluster, &jobset).await {
                // Someone else restarted it since we looked: one restart is enough.
                Ok(fresh) if fresh.attempt() > seen_attempt && options.job.is_none() => {
                    return Outcome::AlreadyRestarted { attempt: fresh.attempt() };
                }
                Ok(fresh) => jobset = fresh,
                Err(e) => return Outcome::Failed(e),
            },
            Err(e) => return Outcome::Failed(e),
        }
    }
    Outcome::Failed(Error::Refused {
        what,
        verb: "restarted",
        why: format!(
            "the JobSet kept changing while we tried to restart it ({MAX_ATTEMPTS} tries); run the command again"
        ),
    })
}

async fn reread(cluster: &Cluster, jobset: &JobSet) -> Result<JobSet> {
    cluster.get_jobset(jobset.namespace(), jobset.name()).await
}

/// An Event on the JobSet saying who asked and why; failing to record it is only a warning.
async fn record_event(cluster: &Cluster, jobset: &JobSet, options: &RestartOptions, from: i32, to: i32) {
    let what = match &options.job {
        Some((rjob, index)) => format!("restart of Job {}", jobset.job_name(rjob, *index as i32)),
        None => format!("restart (attempt {from} → {to})"),
    };
    let message = match &options.reason {
        Some(reason) => format!("{what} requested by {} with kubectl-jobset: {reason}", options.requested_by),
        None => format!("{what} requested by {} with kubectl-jobset", options.requested_by),
    };
    if let Err(e) = crate::cluster::events::publish_restart(cluster, jobset, message).await {
        cluster.log.note(0, &format!("warning: restarted, but could not record an Event: {e}"));
    }
}
