//! One JobSet's restart against the API server: the planner's guarded status patch,
//! re-read and re-planned when a concurrent change wins, and an Event saying who asked.

use serde_json::Value;

use super::DryRun;
use crate::cluster::Cluster;
use crate::cluster::retry::format_wait;
use crate::cluster::writes::{WriteFailure, write_backoff, write_failure};
use crate::error::{Error, Result};
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME};
use crate::plan::lost_write::{AfterUnknown, Mark, job_restarts, judge_restart, restart_message};
use crate::plan::restart::{Decision, RestartOptions, plan};

/// Tries in all (re-read after a precondition failure or a lost answer) before giving up.
const MAX_ATTEMPTS: u32 = 5;

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
    let what = format!("{RESOURCE_NAME}/{}", jobset.name());
    let seen_attempt = jobset.attempt();
    let mut current = jobset.clone();
    // Set once a patch's answer is lost: what that patch would have left behind.
    let mut mark: Option<Mark> = None;
    let mut last_error = None;
    for tries in 1..=MAX_ATTEMPTS {
        let (ops, from, to) = match next_patch(&current, jobs, options, &what, dry_run) {
            Ok(patch) => patch,
            Err(outcome) if tries == 1 && deleting_jobs_of(jobs, seen_attempt) => {
                // The attempt we read is being torn down: someone restarted it after our
                // read. One more read tells "already restarted" from a real refusal.
                match reread(cluster, &current).await {
                    Ok(fresh) if fresh.attempt() > seen_attempt => {
                        return Outcome::AlreadyRestarted { attempt: fresh.attempt() };
                    }
                    _ => return outcome,
                }
            }
            Err(outcome) => return outcome,
        };
        let error = match send(cluster, &current, &ops, dry_run).await {
            Ok(object) => return restarted(cluster, &current, options, dry_run, (from, to), object).await,
            Err(e) => e,
        };
        match write_failure(&error) {
            WriteFailure::Final => return Outcome::Failed(error),
            WriteFailure::Precondition => {}
            failure => {
                let lost = failure == WriteFailure::Unknown;
                if lost && dry_run == DryRun::None && mark.is_none() {
                    mark = mark_of(&current, &ops, options);
                }
                pause(cluster, &what, &error, tries).await;
                last_error = Some(error);
                if !lost {
                    continue; // throttled: refused unprocessed, so send it again as it is
                }
            }
        }
        let fresh = match reread(cluster, &current).await {
            Ok(fresh) => fresh,
            Err(e) => return Outcome::Failed(e),
        };
        match judge_restart(seen_attempt, &fresh, mark.as_ref(), options.job.is_some()) {
            AfterUnknown::Landed => {
                cluster.log.note(1, &format!("{what}: our restart had landed (attempt {from} → {to})"));
                let object = fresh.object();
                return restarted(cluster, &fresh, options, dry_run, (from, to), object).await;
            }
            // Someone else restarted it since we looked: one restart is enough.
            AfterUnknown::SomeoneElse => return Outcome::AlreadyRestarted { attempt: fresh.attempt() },
            AfterUnknown::NotApplied => current = fresh,
        }
    }
    Outcome::Failed(last_error.unwrap_or_else(|| kept_changing(what)))
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
            "the JobSet kept changing while we tried to restart it ({MAX_ATTEMPTS} tries); run the command again"
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

/// Waits before the next try (the retry layer's backoff, doubling from try to try),
/// saying why at -v=6. A lost answer is always followed by a re-read.
async fn pause(cluster: &Cluster, what: &str, error: &Error, tries: u32) {
    let lost = write_failure(error) == WriteFailure::Unknown;
    if tries >= MAX_ATTEMPTS && !lost {
        return;
    }
    let wait = write_backoff(tries);
    let text = format_wait(wait);
    cluster.log.note(
        6,
        &if lost {
            format!("the answer to the restart of {what} was lost: re-reading it in {text} to see whether it landed")
        } else {
            format!("retrying the restart of {what} after 429 Too Many Requests (try {} of {MAX_ATTEMPTS}, in {text})", tries + 1)
        },
    );
    tokio::time::sleep(wait).await;
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
    if let Err(e) = crate::cluster::events::publish_restart(cluster, jobset, message).await {
        cluster.log.note(0, &format!("warning: restarted, but could not record an Event: {e}"));
    }
}
