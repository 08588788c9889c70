//! `kubectl jobset status`: follow a JobSet's current restart attempt, as `kubectl
//! rollout status` follows a Deployment, until it runs the spec's templates and is
//! ready, or until it fails, completes or is superseded. Built on watches.

use std::io::Write;
use std::time::Duration;

use futures::StreamExt;

use crate::cluster::Cluster;
use crate::cluster::watch::{Snapshot, next_snapshot, watch_jobset};
use crate::diff::normalize::normalize_child;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::model::jobset::JobSet;
use crate::observe::fleet::not_found;
use crate::observe::{Defaulter, Fleet, Observed, RecordOptions, Recorder, compute, observe_to_read};
use crate::plan::rollout_status::{Verdict, assess};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct StatusPlan {
    /// Exactly one JobSet.
    pub selection: Selection,
    /// Follow until done (`--watch=false`: one look).
    pub watch: bool,
    /// `--timeout`; None waits for as long as it takes.
    pub timeout: Option<Duration>,
    /// A live progress line (stdout is a terminal) instead of one line per change.
    pub progress: bool,
    pub history_limit: usize,
    /// `--record` (or KUBECTL_JOBSET_RECORD): write the history seen, as write verbs do.
    /// Otherwise nothing is written: the history shown is what recording would leave.
    pub record: bool,
}

pub async fn run(
    cluster: &Cluster,
    plan: &StatusPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    // The first look reads and compares (and records, with --record); the rest watch.
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: None,
        recorder: Recorder::Defer,
        write: plan.record,
        numbers: crate::observe::NumberCheck::ReadBack,
    };
    let Observed { fleet, drifts, mut defaulter, recorder, .. } =
        observe_to_read(cluster, &plan.selection, Some(&options), err).await?.ok_or_else(|| {
            not_found(&plan.selection.names, plan.selection.namespace.as_deref().unwrap_or_default())
        })?;
    let jobset = &fleet.jobsets[0];
    let mut attempt = jobset.attempt();
    let mut printer = Printer { progress: plan.progress && plan.watch, last: String::new() };
    let verdict = assess(jobset, fleet.jobs_of(jobset), &drifts[0], attempt);
    let enforcer = crate::plan::strategy::enforcer(recorder.as_ref(), jobset);
    if let Some(words) =
        crate::plan::strategy::drift_words(jobset, fleet.jobs_of(jobset), &drifts[0], enforcer)
    {
        writeln!(err, "{words}")?;
    }
    match conclude(&verdict, &mut printer, out)? {
        Some(status) => return status,
        None if !plan.watch => {
            printer.finish(out)?;
            return Ok(ExitStatus::Differences);
        }
        None => {}
    }
    let mut awaiting_restart = matches!(verdict, Verdict::Waiting { needs_restart: true, .. });
    // Revisions are not watched: a staged change is followed until the attempt moves
    // (the restart that applies it).
    let (staged, staged_attempt) = (fleet.staged_of(jobset).cloned(), attempt);
    let name = jobset.name().to_owned();
    let mut stream = Box::pin(watch_jobset(cluster, jobset.namespace(), &name));
    let deadline = async {
        match plan.timeout {
            Some(timeout) => tokio::time::sleep(timeout).await,
            None => futures::future::pending().await,
        }
    };
    tokio::pin!(deadline);
    loop {
        let next = tokio::select! {
            _ = &mut deadline => {
                let reason = printer.last_reason();
                printer.finish(out)?;
                let after = crate::age::format_duration(plan.timeout.unwrap_or_default());
                return Err(Error::Wait(format!("timed out after {after}: {reason}")));
            }
            next = stream.next() => next,
        };
        let Some(snapshot) = next_snapshot(next, &name, cluster)? else { continue };
        let Some(current) = snapshot.jobset.clone() else {
            printer.finish(out)?;
            return Err(Error::Wait(format!("jobset {name:?} was deleted")));
        };
        let staged = staged.clone().filter(|_| current.attempt() == staged_attempt);
        let mut verdict = look(&mut defaulter, &current, &snapshot, attempt, staged.clone()).await?;
        if let Verdict::Superseded { from, to } = verdict {
            if !awaiting_restart {
                printer.finish(out)?;
                return Err(Error::Wait(format!(
                    "jobset {name:?} attempt {from} was superseded by attempt {to} before it was ready: the \
                     JobSet restarted (a Job failed, or someone restarted it); `{}` follows the new attempt",
                    crate::hint::kubectl_jobset(&format!("status {name}"), jobset.namespace())
                )));
            }
            // The restart the outdated Jobs waited for: it carries the rollout on.
            printer
                .line(out, &format!("attempt {from} superseded by attempt {to} (restart): following it"))?;
            attempt = to;
            awaiting_restart = false;
            verdict = look(&mut defaulter, &current, &snapshot, attempt, staged).await?;
        }
        // Sticky for the attempt: the Jobs' deletion may be seen before the JobSet's new
        // attempt number (two watches), and it is still the awaited restart.
        awaiting_restart |= matches!(verdict, Verdict::Waiting { needs_restart: true, .. });
        if let Some(status) = conclude(&verdict, &mut printer, out)? {
            return status;
        }
    }
}

/// The verdict on one watched snapshot for attempt `attempt` (a later current attempt
/// shows as superseded).
async fn look(
    defaulter: &mut Defaulter<'_>,
    jobset: &JobSet,
    snapshot: &Snapshot,
    attempt: i32,
    staged: Option<crate::plan::staged::Staged>,
) -> Result<Verdict> {
    let jobs = snapshot.jobs.iter().cloned().map(normalize_child).collect();
    let fleet = Fleet::new(vec![jobset.clone()], jobs, vec![]).with_staged(jobset.uid(), staged);
    let drifts = compute(defaulter, &fleet).await?;
    let jobset = &fleet.jobsets[0];
    Ok(assess(jobset, fleet.jobs_of(jobset), &drifts[0], attempt))
}

/// Prints the verdict; Some(the command's result) when it is final.
fn conclude(
    verdict: &Verdict,
    printer: &mut Printer,
    out: &mut dyn Write,
) -> Result<Option<Result<ExitStatus>>> {
    match verdict {
        Verdict::Done(line) => {
            printer.line(out, line)?;
            printer.finish(out)?;
            Ok(Some(Ok(ExitStatus::Success)))
        }
        Verdict::Waiting { line, .. } => {
            printer.line(out, line)?;
            Ok(None)
        }
        Verdict::Ended(why) => {
            printer.finish(out)?;
            Ok(Some(Err(Error::Wait(why.clone()))))
        }
        Verdict::Superseded { from, to } => {
            printer.finish(out)?;
            Ok(Some(Err(Error::Wait(format!("attempt {from} was superseded by attempt {to}")))))
        }
    }
}

/// One line per change, or (on a terminal) one line rewritten in place.
struct Printer {
    progress: bool,
    last: String,
}

impl Printer {
    fn line(&mut self, out: &mut dyn Write, line: &str) -> Result<()> {
        if line == self.last {
            return Ok(());
        }
        if self.progress {
            // Back to the start of the line, then clear what is left of the previous one.
            write!(out, "\r{line}\x1b[K")?;
            out.flush()?;
        } else {
            writeln!(out, "{line}")?;
        }
        self.last = line.to_owned();
        Ok(())
    }

    /// Ends a live line so that what follows starts on its own.
    fn finish(&mut self, out: &mut dyn Write) -> Result<()> {
        if self.progress && !self.last.is_empty() {
            writeln!(out)?;
            self.last.clear();
        }
        Ok(())
    }

    fn last_reason(&self) -> String {
        if self.last.is_empty() { "the rollout is not done".into() } else { self.last.clone() }
    }
}
