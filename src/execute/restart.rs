//! One JobSet's restart against the API server: the planner's guarded status patch,
//! re-read and re-planned when a concurrent change wins, and an Event saying who asked.

use serde_json::Value;

use super::DryRun;
use crate::cluster::Cluster;
use crate::cluster::guarded::{GuardedWrite, TRIES, Verdict, WriteFailure, guarded};
use crate::error::{Error, Result};
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME};
use crate::plan::lost_write::{AfterUnknown, Mark, job_restarts, judge_restart, restart_message};
use crate::plan::restart::{Decision, RestartOptions, plan};

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

/// Restarts one JobSet, re-reading it when a concurrent change beat us or when a
/// patch's answer was lost (then the re-read decides whether ours landed: a restart
/// whose answer was lost is never sent twice).
pub async fn restart_one(
    cluster: &Cluster,
    jobset: &JobSet,
    jobs: &[ChildJob],
    options: &RestartOptions,
    dry_run: DryRun,
) -> Outcome {
    let mut write = StatusPatch {
        cluster,
        jobs,
        options,
        dry_run,
        subject: format!("{RESOURCE_NAME}/{}", jobset.name()),
        seen_attempt: jobset.attempt(),
        current: jobset.clone(),
        sent: None,
        mark: None,
    };
    guarded(&cluster.log, &mut write).await.unwrap_or_else(Outcome::Failed)
}

/// The restart's guarded status patch, planned again from each re-read.
struct StatusPatch<'a> {
    cluster: &'a Cluster,
    jobs: &'a [ChildJob],
    options: &'a RestartOptions,
    dry_run: DryRun,
    /// `jobset.jobset.x-k8s.io/NAME`, as the messages name it.
    subject: String,
    /// The attempt first read: the judge's yardstick for someone else's restart.
    seen_attempt: i32,
    /// The JobSet as read last.
    current: JobSet,
    /// The patch sent last, with its attempts `(from, to)`.
    sent: Option<(json_patch::Patch, i32, i32)>,
    /// Set once a patch's answer is lost: what that patch would have left behind.
    mark: Option<Mark>,
}

impl GuardedWrite for StatusPatch<'_> {
    type Output = Outcome;

    fn what(&self) -> String {
        format!("the restart of {}", self.subject)
    }

    async fn send(&mut self) -> Result<Outcome> {
        let first = self.sent.is_none();
        let (ops, from, to) =
            match next_patch(&self.current, self.jobs, self.options, &self.subject, self.dry_run) {
                Ok(patch) => patch,
                Err(outcome) if first && deleting_jobs_of(self.jobs, self.seen_attempt) => {
                    // The attempt we read is being torn down: someone restarted it after our
                    // read. One more read tells "already restarted" from a real refusal.
                    return Ok(match reread(self.cluster, &self.current).await {
                        Ok(fresh) if fresh.attempt() > self.seen_attempt => {
                            Outcome::AlreadyRestarted { attempt: fresh.attempt() }
                        }
                        _ => outcome,
                    });
                }
                Err(outcome) => return Ok(outcome),
            };
        let sent = send(self.cluster, &self.current, &ops, self.dry_run).await;
        self.sent = Some((ops, from, to));
        let object = sent?;
        Ok(restarted(self.cluster, &self.current, self.options, self.dry_run, (from, to), object).await)
    }

    async fn reread(&mut self, failure: WriteFailure) -> Result<Verdict<Outcome>> {
        let Some((ops, from, to)) = &self.sent else { unreachable!("a re-read follows a send") };
        let (from, to) = (*from, *to);
        if failure == WriteFailure::Unknown && self.dry_run == DryRun::None && self.mark.is_none() {
            self.mark = mark_of(&self.current, ops, self.options);
        }
        let fresh = reread(self.cluster, &self.current).await?;
        match judge_restart(self.seen_attempt, &fresh, self.mark.as_ref(), self.options.job.is_some()) {
            AfterUnknown::Landed => {
                let subject = &self.subject;
                self.cluster
                    .log
                    .note(1, &format!("{subject}: our restart had landed (attempt {from} → {to})"));
                let object = fresh.object();
                Ok(Verdict::Done(
                    restarted(self.cluster, &fresh, self.options, self.dry_run, (from, to), object).await,
                ))
            }
            // Someone else restarted it since we looked: one restart is enough.
            AfterUnknown::SomeoneElse => {
                Ok(Verdict::Done(Outcome::AlreadyRestarted { attempt: fresh.attempt() }))
            }
            AfterUnknown::NotApplied => {
                self.current = fresh;
                Ok(Verdict::SendAgain)
            }
        }
    }

    fn exhausted(&mut self, last: Error, failure: WriteFailure) -> Result<Outcome> {
        match failure {
            WriteFailure::Precondition => Err(kept_changing(self.subject.clone())),
            _ => Err(last),
        }
    }
}

/// Jobs of `attempt` that are being deleted: a restart of it has begun.
fn deleting_jobs_of(jobs: &[ChildJob], attempt: i32) -> bool {
    jobs.iter().any(|job| job.is_deleting() && job.attempt() == Some(attempt))
}

/// The guarded status patch (`dryRun=All` for a server dry run).
async fn send(cluster: &Cluster, jobset: &JobSet, ops: &json_patch::Patch, dry_run: DryRun) -> Result<Value> {
    let server_dry_run = dry_run == DryRun::Server;
    cluster.patch_jobset(jobset.namespace(), jobset.name(), Some("status"), ops, server_dry_run).await
}

fn kept_changing(what: String) -> Error {
    Error::Refused {
        what,
        verb: "restarted",
        why: format!(
            "the JobSet kept changing while we tried to restart it ({TRIES} tries); run the command again"
        ),
    }
}

/// The planner's patch and attempts `(from, to)`, or the outcome when there is nothing
/// to send (refused, already restarted, a client dry run).
fn next_patch(
    jobset: &JobSet,
    jobs: &[ChildJob],
    options: &RestartOptions,
    what: &str,
    dry_run: DryRun,
) -> Result<(json_patch::Patch, i32, i32), Outcome> {
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    match plan(jobset, jobs, options, &now) {
        Decision::Refuse(why) => {
            Err(Outcome::Failed(Error::Refused { what: what.into(), verb: "restarted", why }))
        }
        Decision::AlreadyRestarted { attempt } => Err(Outcome::AlreadyRestarted { attempt }),
        Decision::Patch { from, to, .. } if dry_run == DryRun::Client => {
            Err(Outcome::WouldRestart { from, to })
        }
        Decision::Patch { ops, from, to } => Ok((ops, from, to)),
    }
}

/// A restart that is done: the Event saying who asked (not for dry runs), and the outcome.
async fn restarted(
    cluster: &Cluster,
    jobset: &JobSet,
    options: &RestartOptions,
    dry_run: DryRun,
    (from, to): (i32, i32),
    object: Value,
) -> Outcome {
    if let Some(why) = finished_first(&object) {
        return Outcome::Failed(Error::Refused {
            what: format!("{RESOURCE_NAME}/{}", jobset.name()),
            verb: "restarted",
            why,
        });
    }
    if dry_run == DryRun::None {
        record_event(cluster, jobset, options, from, to).await;
    }
    Outcome::Restarted { from, to, object }
}

/// Why a restart that landed did nothing, if it did nothing: the JobSet finished just
/// before it (the test op guards the attempt, which finishing does not change), and the
/// controller never recreates the Jobs of a finished JobSet.
fn finished_first(object: &Value) -> Option<String> {
    let jobset = JobSet::from_raw(object.clone()).ok()?;
    let state = match crate::diff::state_of(&jobset) {
        crate::diff::State::Completed => "completed",
        crate::diff::State::Failed => "failed",
        _ => return None,
    };
    Some(format!(
        "the JobSet {state} just before the restart reached it: the controller does not recreate the Jobs of a \
         finished JobSet, so no Job was restarted (the status change it made has no effect); create a new JobSet \
         to run again"
    ))
}

/// What our patch would leave on the JobSet, to recognise it if its answer is lost.
fn mark_of(jobset: &JobSet, ops: &json_patch::Patch, options: &RestartOptions) -> Option<Mark> {
    match &options.job {
        Some((rjob, index)) => Some(Mark::JobRestart {
            rjob: rjob.clone(),
            index: *index,
            before: job_restarts(jobset, rjob, *index),
        }),
        None => restart_message(ops).map(|message| Mark::Restart { message }),
    }
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
    let message = crate::plan::restart::requested(&what, options);
    let mut event = crate::cluster::events::restart_event(message);
    if let Some(policy) = &options.policy {
        event.reason = policy.reason.to_owned();
    }
    if let Err(e) = crate::cluster::events::publish_event(cluster, jobset, &event).await {
        cluster.log.note(0, &format!("warning: restarted, but could not record an Event: {e}"));
    }
}
