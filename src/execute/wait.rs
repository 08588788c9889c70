//! `--wait`: watch (never poll) a JobSet and its Jobs until a restart attempt has all
//! its Jobs (or all of them ready), and say precisely what is missing on a timeout.

use std::io::Write;
use std::time::Duration;

use futures::StreamExt;

use crate::cluster::Cluster;
use crate::cluster::watch::{Snapshot, next_snapshot, watch_jobset};
use crate::diff::job_range;
use crate::error::{Error, Result};
use crate::model::jobset::JobSet;
use crate::model::startup::{Goal, Reached, Standing, judge};

/// `--wait[=ready]` with its `--timeout`, as `restart` and `rollback --restart` take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    pub until: WaitFor,
    pub timeout: Duration,
    /// A live progress line on stderr (a terminal); otherwise one line per change, as
    /// `status` prints off a terminal.
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
    fn goal(self) -> Goal {
        match self {
            WaitFor::Created => Goal::Created,
            WaitFor::Ready => Goal::Ready,
        }
    }

    fn verb(self) -> &'static str {
        match self {
            WaitFor::Created => "recreated",
            WaitFor::Ready => "ready",
        }
    }
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
    let mut queued_said = false;
    let mut progress = Progress { live: show_progress, last: None };
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
        let Some(snapshot) = next_snapshot(next, &name, cluster)? else { continue };
        anything_moved |= shows_activity(&snapshot, to);
        let Some(current) = &snapshot.jobset else {
            return Err(Error::Wait(format!("jobset {name} was deleted while waiting for restart {to}")));
        };
        let reached = match judge(current, &snapshot.jobs, to, wait_for.goal()) {
            Standing::Done(reached) => Some(reached),
            Standing::Pending(reached) => {
                progress.write(err, to, &reached, wait_for)?;
                None
            }
            // Kueue suspends a JobSet whose containers changed and admits it again: a
            // suspension is a wait for admission, not the end of the restart.
            Standing::Suspended if crate::model::kueue::Kueue::of(current, &[]).is_some() => {
                if !queued_said {
                    writeln!(err, "jobset {name} is queued by Kueue: waiting for its admission")?;
                    queued_said = true;
                }
                None
            }
            // successPolicy met: the controller deletes the Jobs still active, so done.
            Standing::Completed => {
                writeln!(err, "jobset {name} completed while waiting for restart {to}")?;
                return Ok(());
            }
            ended => return Err(Error::Wait(ended_message(&name, to, &ended))),
        };
        last = Some(snapshot);
        if let Some(reached) = reached {
            progress.write(err, to, &reached, wait_for)?;
            if show_progress {
                writeln!(err)?;
            }
            // Jobs that wait on startupPolicy or dependsOn wait on the workload, not on the restart.
            for why in &reached.blocked {
                writeln!(err, "{why}")?;
            }
            return Ok(());
        }
    }
}

/// Why an attempt cannot reach the goal any more.
fn ended_message(name: &str, to: i32, standing: &Standing) -> String {
    match standing {
        Standing::Failed(message) => {
            let why = message.as_deref().map(|m| format!(": {m}")).unwrap_or_default();
            format!("jobset {name} failed while waiting for restart {to}{why}")
        }
        Standing::Superseded(attempt) => {
            format!("jobset {name} restarted again (attempt {attempt}) while waiting for restart {to}")
        }
        Standing::Suspended => format!("jobset {name} was suspended while waiting for restart {to}"),
        _ => format!("jobset {name} cannot reach restart {to}"),
    }
}

/// Any deletion or recreation shows that a controller is acting on the restart.
fn shows_activity(snapshot: &Snapshot, to: i32) -> bool {
    let expected = snapshot.jobset.as_ref().map_or(0, JobSet::expected_jobs);
    snapshot.jobs.iter().any(|j| j.attempt() == Some(to) || j.is_deleting()) || snapshot.jobs.len() < expected
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
        let (missing, blocked) = match judge(jobset, &snapshot.jobs, to, self.wait_for.goal()) {
            Standing::Pending(reached) | Standing::Done(reached) => (reached.pending, reached.blocked),
            _ => (vec![], vec![]),
        };
        let old = snapshot.jobs.iter().filter(|j| j.attempt().is_some_and(|a| a < to)).count();
        let mut message = format!(
            "timed out after {after} waiting for jobset {name} restart {to}: {} of {} jobs not {verb} ({})",
            missing.len(),
            jobset.expected_jobs(),
            job_range(&missing)
        );
        for why in blocked {
            message.push_str(&format!("; {why}"));
        }
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

/// How far the attempt is: rewritten in place on a terminal, else a line when it moves.
struct Progress {
    live: bool,
    last: Option<(usize, usize)>,
}

impl Progress {
    fn write(&mut self, err: &mut dyn Write, to: i32, reached: &Reached, wait_for: WaitFor) -> Result<()> {
        let line = format!("restart {to}: {}/{} jobs {}", reached.done, reached.expected, wait_for.verb());
        if self.live {
            write!(err, "\r{line}\x1b[K")?;
        } else if self.last != Some((reached.done, reached.expected)) {
            writeln!(err, "{line}")?;
        }
        self.last = Some((reached.done, reached.expected));
        Ok(())
    }
}
