//! `--wait`: watch (never poll) a JobSet and its Jobs until a restart attempt has all
//! its Jobs (or all of them ready), and say precisely what is missing on a timeout.

use std::io::Write;
use std::time::Duration;

use futures::StreamExt;

use crate::cluster::Cluster;
use crate::cluster::watch::{Snapshot, watch_jobset};
use crate::diff::job_range;
use crate::error::{Error, Result};
use crate::model::jobset::JobSet;
use crate::restart::progress;

/// `--wait[=ready]` with its `--timeout`, as `restart` and `rollback --restart` take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    pub until: WaitFor,
    pub timeout: Duration,
    /// A live progress line on stderr (a terminal).
    pub progress: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitFor {
    /// Every Job of the new attempt exists.
    Created,
    /// ... and is ready.
    Ready,
}

impl WaitFor {
    fn verb(self) -> &'static str {
        match self {
            WaitFor::Created => "recreated",
            WaitFor::Ready => "ready",
        }
    }
}

/// Where a restart stands in one snapshot.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// It cannot happen any more, and why.
    Impossible(String),
    Progress {
        done: usize,
        expected: usize,
    },
}

/// Waits, by watching, until every Job of attempt `to` exists (or is ready).
pub async fn wait(
    cluster: &Cluster,
    jobset: &JobSet,
    to: i32,
    how: &Wait,
    err: &mut dyn Write,
) -> Result<()> {
    let Wait { until: wait_for, timeout, progress: show_progress } = *how;
    let name = jobset.name().to_owned();
    let mut stream = Box::pin(watch_jobset(cluster, jobset.namespace(), &name));
    let mut last = None::<Snapshot>;
    let mut anything_moved = false;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    loop {
        let next = tokio::select! {
            _ = &mut deadline => {
                let context = TimeoutContext { to, wait_for, timeout, anything_moved };
                return Err(Error::Wait(context.message(&name, last.as_ref())));
            }
            next = stream.next() => next,
        };
        let snapshot = match next {
            None => return Err(Error::Wait(format!("watching jobset {name} ended unexpectedly"))),
            Some(Ok(snapshot)) if snapshot.synced => snapshot,
            Some(Ok(_)) => continue,
            // A watch idle for longer than --request-timeout times out; the watcher
            // re-establishes it. Any other failure ends the wait.
            Some(Err(Error::Timeout { .. })) => {
                cluster.log.note(6, "watch timed out; watching again");
                continue;
            }
            Some(Err(e)) => return Err(e),
        };
        anything_moved |= shows_activity(&snapshot, to);
        match judge(&name, &snapshot, to, wait_for) {
            Verdict::Impossible(why) => return Err(Error::Wait(why)),
            Verdict::Progress { done, expected } => {
                if show_progress {
                    write!(err, "\rrestart {to}: {done}/{expected} jobs {}", wait_for.verb())?;
                }
                let finished = done >= expected;
                last = Some(snapshot);
                if finished {
                    if show_progress {
                        writeln!(err)?;
                    }
                    return Ok(());
                }
            }
        }
    }
}

/// Any deletion or recreation shows that a controller is acting on the restart.
fn shows_activity(snapshot: &Snapshot, to: i32) -> bool {
    let expected = snapshot.jobset.as_ref().map_or(0, JobSet::expected_jobs);
    snapshot.jobs.iter().any(|j| j.attempt() == Some(to) || j.is_deleting()) || snapshot.jobs.len() < expected
}

fn judge(name: &str, snapshot: &Snapshot, to: i32, wait_for: WaitFor) -> Verdict {
    let Some(current) = &snapshot.jobset else {
        return Verdict::Impossible(format!("jobset {name} was deleted while waiting for restart {to}"));
    };
    if current.condition_true("Failed") {
        return Verdict::Impossible(format!("jobset {name} failed while waiting for restart {to}"));
    }
    if current.attempt() > to {
        return Verdict::Impossible(format!(
            "jobset {name} restarted again (attempt {}) while waiting for restart {to}",
            current.attempt()
        ));
    }
    let (done, expected) = progress(current, &snapshot.jobs, to, wait_for == WaitFor::Ready);
    Verdict::Progress { done, expected }
}

/// What a timed-out wait knows.
struct TimeoutContext {
    to: i32,
    wait_for: WaitFor,
    timeout: Duration,
    anything_moved: bool,
}

impl TimeoutContext {
    /// What is missing when `--wait` times out, and whether anything acted at all.
    fn message(&self, name: &str, last: Option<&Snapshot>) -> String {
        let (to, verb) = (self.to, self.wait_for.verb());
        let after = crate::age::format_duration(self.timeout);
        let Some((jobset, snapshot)) = last.and_then(|s| s.jobset.as_ref().map(|js| (js, s))) else {
            return format!("timed out after {after} waiting for jobset {name} restart {to}");
        };
        let ready = self.wait_for == WaitFor::Ready;
        let missing: Vec<String> = jobset
            .expected_job_names()
            .into_iter()
            .filter(|n| {
                !snapshot.jobs.iter().any(|j| {
                    j.name() == n && j.attempt() == Some(to) && !j.is_deleting() && (!ready || j.is_ready())
                })
            })
            .collect();
        let old = snapshot.jobs.iter().filter(|j| j.attempt().is_some_and(|a| a < to)).count();
        let mut message = format!(
            "timed out after {after} waiting for jobset {name} restart {to}: {} of {} jobs not {verb} ({})",
            missing.len(),
            jobset.expected_jobs(),
            job_range(&missing)
        );
        if !self.anything_moved {
            message.push_str(&format!(
                "; nothing is acting on the restart: no Job was deleted or recreated ({old} Jobs of earlier \
                 attempts remain). Is the JobSet controller running?"
            ));
        } else if old > 0 {
            message.push_str(&format!("; {old} Jobs of earlier attempts are still being deleted"));
        }
        message
    }
}
