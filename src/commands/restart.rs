//! `kubectl jobset restart`: make the controller recreate every Job now, from the
//! current spec, by bumping `status.restarts` (at most once per observed attempt).

use std::io::Write;

use futures::StreamExt;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::commands::Confirm;
use crate::diff::JobSetDrift;
use crate::diff::unified::Palette;
use crate::error::{Error, Result};
use crate::execute::{DryRun, Outcome, Wait, restart_one, wait};
use crate::exit::ExitStatus;
use crate::history::Cause;
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::observe::{Fleet, Observed, RecordOptions, Recorder, observe};
use crate::plan::restart::RestartOptions;
use crate::render::{self, Format, drift::write_text};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct RestartPlan {
    pub selection: Selection,
    pub options: RestartOptions,
    pub if_outdated: bool,
    pub dry_run: DryRun,
    /// `--wait`, with its timeout.
    pub wait: Option<Wait>,
    /// Structured output (`-o json|yaml|name`), or None for kubectl's sentences.
    pub format: Option<Format>,
    pub color: bool,
    pub history_limit: usize,
}

/// At most this many JobSets are restarted at once.
const CONCURRENCY: usize = 8;

pub async fn run(
    cluster: &Cluster,
    plan: &RestartPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    // Drift decides --if-outdated, shows what a dry run would apply, and lets history
    // record what runs before the restart replaces it (dry runs record nothing).
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: plan.options.reason.clone().map(Cause::IfUnset),
        recorder: Recorder::Defer,
        write: true,
        numbers: crate::observe::NumberCheck::ReadBack,
    };
    let record = (plan.dry_run == DryRun::None).then_some(&options);
    let observed = observe(cluster, &plan.selection, record, err).await?;
    let Some(Observed { fleet, drifts, .. }) = observed else {
        return Ok(ExitStatus::Success);
    };
    for js in &fleet.jobsets {
        if let Some(Err(invalid)) = crate::model::strategy::annotated(js) {
            writeln!(err, "warning: jobset {}/{}: {invalid}", js.namespace(), js.name())?;
        }
    }
    // What happens instead of a restart, if anything: --if-outdated skips JobSets without
    // drift, and fails those whose drift is unknown (their templates could not be compared).
    let skips: Vec<Option<Outcome>> = drifts
        .iter()
        .zip(&fleet.jobsets)
        .map(|(d, js)| match &d.error {
            // Never: its templates are fixed; a drift it shows is not for --if-outdated to apply.
            _ if plan.if_outdated && crate::plan::strategy::never_refusal(js).is_some() => Some(Outcome::Skipped(
                "update strategy Never (annotation kubectl-jobset.io/update-strategy): not restarted for drift".into(),
            )),
            // Its next restart would delete its Jobs and fail to create new ones.
            Some(why) if let Some(rejection) = crate::plan::restart::spec_rejection(why) => {
                Some(Outcome::Failed(Error::Refused {
                    what: format!("jobset {}/{}", d.namespace, d.name),
                    verb: "restarted",
                    why: crate::plan::restart::no_valid_job(&d.name, &rejection),
                }))
            }
            Some(why) if plan.if_outdated => Some(Outcome::Failed(Error::Refused {
                what: format!("jobset {}/{}", d.namespace, d.name),
                verb: "restarted",
                why: format!("--if-outdated cannot tell whether it drifted: {why}"),
            })),
            // A fleet passes over JobSets the JobSet controller does not reconcile; named
            // alone, the planner refuses it (an error).
            _ if let Some(manager) = d.manager.as_deref().filter(|_| plan.selection.names.is_empty()) => {
                Some(Outcome::Skipped(crate::model::jobset::managed_elsewhere_words(manager)))
            }
            // A staged change is what this restart is for: it is applied first.
            _ if plan.if_outdated && !d.has_drift() && fleet.staged_for_restart(js).is_none() => {
                Some(Outcome::Skipped("no template drift".into()))
            }
            _ => None,
        })
        .collect();
    write_warnings(&fleet, &skips, plan, err)?;
    let mixed = warn_mixed(&fleet, &drifts, &skips, plan, err)?;
    confirm_fleet(&fleet, &skips, plan, mixed, confirm)?;
    let mut options = plan.options.clone();
    if plan.dry_run != DryRun::Client {
        options.requested_by = cluster.whoami().await.unwrap_or(options.requested_by);
    }
    let (outcomes, said) = restart_all(cluster, &fleet, skips, &options, plan.dry_run).await;
    err.write_all(&said)?;
    let report = Report { fleet: &fleet, drifts: &drifts, outcomes: &outcomes, plan };
    report.write_lines(out, err)?;
    report.write_objects(out)?;
    report.write_tally(err)?;
    if let Some(how) = plan.wait.filter(|_| plan.dry_run == DryRun::None) {
        for (jobset, outcome) in fleet.jobsets.iter().zip(&outcomes) {
            // Someone else's restart is waited for too: re-running a command whose wait was
            // cut short (say, by an API server outage) finishes the job.
            if let Some(attempt) = outcome.attempt_to_wait_for() {
                wait(cluster, jobset, attempt, &how, err).await?;
            }
        }
    }
    exit_status(outcomes)
}

/// What each JobSet about to be restarted should warn of (before anyone is asked).
fn write_warnings(
    fleet: &Fleet,
    skips: &[Option<Outcome>],
    plan: &RestartPlan,
    err: &mut dyn Write,
) -> Result<()> {
    for (jobset, _) in fleet.jobsets.iter().zip(skips).filter(|(_, skip)| skip.is_none()) {
        for warning in crate::plan::restart::warnings(jobset, fleet.jobs_of(jobset), &plan.options) {
            let place = match plan.selection.namespace {
                None => format!(" in namespace {}", jobset.namespace()),
                Some(_) => String::new(),
            };
            writeln!(err, "warning: {RESOURCE_NAME}/{}{place}: {warning}", jobset.name())?;
        }
    }
    Ok(())
}

/// More than one JobSet to restart, or a per-Job restart that leaves mixed templates,
/// asks first (unless -y or nobody is there to answer).
fn confirm_fleet(
    fleet: &Fleet,
    skips: &[Option<Outcome>],
    plan: &RestartPlan,
    mixed: Vec<String>,
    confirm: Confirm<'_>,
) -> Result<()> {
    let to_restart: Vec<String> = fleet
        .jobsets
        .iter()
        .zip(skips)
        .filter(|(_, skip)| skip.is_none())
        .map(|(js, _)| format!("{}/{}", js.namespace(), js.name()))
        .collect();
    // A per-Job restart that leaves mixed templates asks too (the warning said why).
    let question = if to_restart.len() > 1 {
        format!("Restart {} JobSets ({})? [y/N] ", to_restart.len(), to_restart.join(", "))
    } else if !mixed.is_empty() {
        format!("Restart only {}, leaving mixed templates? [y/N] ", mixed.join(", "))
    } else {
        return Ok(());
    };
    if plan.dry_run == DryRun::None
        && let Some(confirm) = confirm
        && !confirm(&question)?
    {
        return Err(Error::Aborted);
    }
    Ok(())
}

/// `--job`: a restart of one Job that leaves its JobSet running several templates at
/// once is said before anything happens; returns the Job names it concerns.
fn warn_mixed(
    fleet: &Fleet,
    drifts: &[JobSetDrift],
    skips: &[Option<Outcome>],
    plan: &RestartPlan,
    err: &mut dyn Write,
) -> Result<Vec<String>> {
    let Some((rjob, index)) = &plan.options.job else { return Ok(vec![]) };
    let mut concerned = Vec::new();
    for ((jobset, drift), _) in fleet.jobsets.iter().zip(drifts).zip(skips).filter(|(_, skip)| skip.is_none())
    {
        let job = jobset.job_name(rjob, *index as i32);
        let Some(mixed) = crate::diff::mixed_words(&crate::diff::after_job_restart(drift, &job)) else {
            continue;
        };
        writeln!(err, "warning: {RESOURCE_NAME}/{}: after {job} is recreated, it {mixed}", jobset.name())?;
        concerned.push(job);
    }
    Ok(concerned)
}

/// Restarts every JobSet not skipped, with bounded concurrency; outcomes in fleet order,
/// and what the steps said (each JobSet's lines together). Unordered underneath, so one
/// JobSet waiting out a 429 does not hold the others back. A JobSet with a change staged
/// for its next restart gets it applied first (not by a per-Job restart, nor a dry run).
async fn restart_all(
    cluster: &Cluster,
    fleet: &Fleet,
    skips: Vec<Option<Outcome>>,
    options: &RestartOptions,
    dry_run: DryRun,
) -> (Vec<Outcome>, Vec<u8>) {
    let mut outcomes: Vec<(usize, Outcome, Vec<u8>)> =
        futures::stream::iter(fleet.jobsets.iter().zip(skips).enumerate())
            .map(|(i, (jobset, skip))| async move {
                let mut said = Vec::new();
                let jobs = fleet.jobs_of(jobset);
                let staged = fleet
                    .staged_for_restart(jobset)
                    .filter(|_| options.job.is_none() && dry_run == DryRun::None);
                if skip.is_none()
                    && let Some(revision) = fleet.staged_of(jobset)
                    && let Some(rollout) = revision.held_for.as_deref()
                {
                    // The restart runs the spec's templates; the held change waits for its batch.
                    let _ = writeln!(
                        said,
                        "jobset {}/{}: restarted on its spec; {}",
                        jobset.namespace(),
                        jobset.name(),
                        crate::plan::staged::held_words(&revision.name, "", rollout)
                    );
                }
                let outcome = match (skip, staged) {
                    (Some(instead), _) => instead,
                    (None, Some(staged)) => {
                        let admitted = fleet.kueue_of(jobset).is_some_and(|k| k.is_admitted());
                        crate::execute::staged::apply(
                            cluster, jobset, jobs, staged, admitted, options, &mut said,
                        )
                        .await
                    }
                    (None, None) => restart_one(cluster, jobset, jobs, options, dry_run).await,
                };
                (i, outcome, said)
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    outcomes.sort_by_key(|(i, _, _)| *i);
    let said = outcomes.iter().flat_map(|(_, _, said)| said.clone()).collect();
    (outcomes.into_iter().map(|(_, outcome, _)| outcome).collect(), said)
}

/// One error is the command's error (printed once, by main); several are each said
/// here, and the command fails with their count.
fn exit_status(outcomes: Vec<Outcome>) -> Result<ExitStatus> {
    let total = outcomes.len();
    let mut errors: Vec<Error> = outcomes
        .into_iter()
        .filter_map(|o| if let Outcome::Failed(e) = o { Some(e) } else { None })
        .collect();
    match (errors.len(), total) {
        (0, _) => Ok(ExitStatus::Success),
        (1, 1) => Err(errors.remove(0)),
        (failed, total) => Err(Error::Several { failed, total }),
    }
}

/// What the restarts did, rendered as kubectl would.
struct Report<'a> {
    fleet: &'a Fleet,
    drifts: &'a [JobSetDrift],
    outcomes: &'a [Outcome],
    plan: &'a RestartPlan,
}

impl Report<'_> {
    fn rows(&self) -> impl Iterator<Item = (&JobSet, &JobSetDrift, &Outcome)> {
        self.fleet.jobsets.iter().zip(self.drifts).zip(self.outcomes).map(|((js, d), o)| (js, d, o))
    }

    /// kubectl's sentences on `out`; with several targets, each error on `err`.
    fn write_lines(&self, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
        let several = self.outcomes.len() > 1;
        for (jobset, drift, outcome) in self.rows() {
            if let Outcome::Failed(e) = outcome {
                if several {
                    writeln!(err, "error: {e}")?;
                }
                continue;
            }
            if self.plan.format.is_some() {
                continue;
            }
            writeln!(out, "{}", self.sentence(jobset, outcome))?;
            if self.plan.dry_run != DryRun::None
                && matches!(outcome, Outcome::Restarted { .. } | Outcome::WouldRestart { .. })
            {
                self.write_would_apply(out, drift)?;
            }
        }
        Ok(())
    }

    fn sentence(&self, jobset: &JobSet, outcome: &Outcome) -> String {
        let what = format!("{RESOURCE_NAME}/{}", jobset.name());
        let place = match self.plan.selection.namespace {
            None => format!(" in namespace {}", jobset.namespace()),
            Some(_) => String::new(),
        };
        let suffix = self.plan.dry_run.suffix();
        match outcome {
            Outcome::Restarted { .. } | Outcome::WouldRestart { .. } if self.plan.options.job.is_some() => {
                let (rjob, index) = self.plan.options.job.as_ref().expect("checked");
                format!("{what} restarted its Job {}{place}{suffix}", jobset.job_name(rjob, *index as i32))
            }
            Outcome::Restarted { from, to, .. } | Outcome::WouldRestart { from, to } => {
                format!("{what} restarted (attempt {from} → {to}){place}{suffix}")
            }
            Outcome::AlreadyRestarted { attempt } => {
                format!("{what} already restarted (attempt {attempt}){place}")
            }
            Outcome::Skipped(why) => format!("{what} skipped: {why}{place}"),
            Outcome::Failed(e) => format!("error: {e}"),
        }
    }

    fn write_would_apply(&self, out: &mut dyn Write, drift: &JobSetDrift) -> Result<()> {
        // A per-Job restart applies that Job's drift, not the JobSet's.
        let only;
        let drift = match &self.plan.options.job {
            Some((rjob, index)) => {
                let job = format!("{}-{rjob}-{index}", drift.name);
                only = crate::diff::only_job(drift, &job);
                &only
            }
            None => drift,
        };
        if drift.has_drift() {
            writeln!(out, "the restart would apply this template drift:")?;
            write_text(out, std::slice::from_ref(drift), Palette { color: self.plan.color })
        } else {
            Ok(writeln!(out, "the restart would recreate the Jobs from an unchanged template")?)
        }
    }

    /// `-o json|yaml|name`: the restarted JobSets.
    fn write_objects(&self, out: &mut dyn Write) -> Result<()> {
        let Some(format) = self.plan.format else { return Ok(()) };
        if format == Format::Name {
            for (jobset, _, outcome) in self.rows() {
                if !matches!(outcome, Outcome::Skipped(_) | Outcome::Failed(_)) {
                    writeln!(out, "{RESOURCE_NAME}/{}", jobset.name())?;
                }
            }
            return Ok(());
        }
        let objects: Vec<Value> = self
            .rows()
            .filter_map(|(jobset, _, outcome)| match outcome {
                Outcome::Restarted { object, .. } => Some(render::without_managed_fields(object.clone())),
                Outcome::WouldRestart { .. } => Some(jobset.object()),
                _ => None,
            })
            .collect();
        render::write_documents(out, format, objects)
    }

    /// With several targets, one line of counts on `err`.
    fn write_tally(&self, err: &mut dyn Write) -> Result<()> {
        if self.outcomes.len() <= 1 {
            return Ok(());
        }
        let count = |f: fn(&Outcome) -> bool| self.outcomes.iter().filter(|o| f(o)).count();
        writeln!(
            err,
            "{} restarted, {} already restarted, {} skipped, {} failed",
            count(|o| matches!(o, Outcome::Restarted { .. } | Outcome::WouldRestart { .. })),
            count(|o| matches!(o, Outcome::AlreadyRestarted { .. })),
            count(|o| matches!(o, Outcome::Skipped(_))),
            count(|o| matches!(o, Outcome::Failed(_))),
        )?;
        Ok(())
    }
}
