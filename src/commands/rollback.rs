//! `kubectl jobset rollback`: put a recorded revision's templates back into the spec,
//! with one guarded JSON patch; the change takes effect at the next restart, or now
//! with `--restart`.

use std::io::Write;

use crate::cluster::Cluster;
use crate::cluster::guarded::{GuardedWrite, Verdict, WriteFailure, guarded};
use crate::commands::Confirm;
use crate::diff::unified::{Palette, write_unified};
use crate::error::{Error, Result};
use crate::execute::handover::{self, HandoverOptions, Outcome};
use crate::execute::{DryRun, RestartAfter};
use crate::exit::ExitStatus;
use crate::history::{Cause, Revision, View, bad_revision, select, templates_of};
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::observe::fleet::not_found;
use crate::observe::{NumberCheck, Observed, RecordOptions, Recorder, observe_or_deleted};
use crate::plan::lost_write::{AfterUnknown, judge_rollback};
use crate::plan::restart::refusal_after_change;
use crate::plan::rollback::{
    self, Decision, explain_rejection, is_template_immutable_rejection, previous_revision,
};
use crate::render::{self, Format};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct RollbackPlan {
    /// Exactly one JobSet.
    pub selection: Selection,
    /// `--to-revision`: a number, or negative to count back; None: the one before the spec's.
    pub to_revision: Option<i64>,
    pub reason: Option<String>,
    pub dry_run: DryRun,
    /// `--restart` (and `--wait`): restart once the rollback has landed.
    pub restart: Option<RestartAfter>,
    /// `--handover`: recreate the JobSet and hand its Jobs over (src/handover).
    pub handover: bool,
    /// `--now`: a JobSet Kueue has admitted is rolled back anyway and restarted on the
    /// rolled-back template (Kueue stops it and queues it again); without it, refused.
    pub now: bool,
    /// `--at-next-restart`: stage the change (out of the spec) for the next restart.
    pub at_next_restart: bool,
    pub format: Option<Format>,
    pub color: bool,
    pub history_limit: usize,
}

pub async fn run(
    cluster: &Cluster,
    plan: &RollbackPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    if plan.handover
        && let Some(outcome) =
            handover::resume_named(cluster, &plan.selection, &handover_options(plan), out, err).await?
    {
        return handed_over(cluster, plan, None, outcome, out, err).await;
    }
    let Observed { fleet, histories, .. } = observe_one(cluster, plan, None, err).await?;
    let jobset = &fleet.jobsets[0];
    let view = View::new(jobset, histories.get(jobset.uid()).cloned().unwrap_or_default());
    if view.revisions.is_empty() {
        return Err(Error::NoSuchRevision(format!(
            "no history recorded for jobset {}/{}: nothing to roll back to (kubectl-jobset records history \
             whenever diff, history, restart or rollback look at a JobSet)",
            jobset.namespace(),
            jobset.name()
        )));
    }
    // Refused before anything changes (with --restart, not only at the restart).
    if let Some(why) = rollback::refusal(jobset) {
        return Err(refused(jobset, why));
    }
    if let Some(why) = crate::plan::strategy::never_refusal(jobset) {
        return Err(refused(jobset, why));
    }
    // A change held for a rollout's later batch takes nothing staged on top: said before
    // the preview and the question, not after the answer.
    if plan.at_next_restart
        && let Some(why) = crate::plan::staged::held_refusal(fleet.staged_of(jobset))
    {
        return Err(refused(jobset, why));
    }
    if let Some(Err(invalid)) = crate::model::strategy::annotated(jobset) {
        writeln!(err, "warning: {invalid}")?;
    }
    let target = target_revision(&view, plan.to_revision)?;
    let ops = match rollback::plan(jobset, target) {
        Decision::AlreadyThere => {
            writeln!(out, "skipped rollback: already at revision {}", target.number)?;
            return Ok(ExitStatus::Success);
        }
        Decision::Refuse(why) => return Err(refused(jobset, why)),
        Decision::Patch(ops) => ops,
    };
    // A restart that would be refused is refused before the templates change, not after.
    if let Some(after) = &plan.restart
        && let Some(why) = refusal_after_change(jobset, fleet.jobs_of(jobset), &after.options)
    {
        return Err(refused(jobset, why));
    }
    let admitted = fleet.kueue_of(jobset).filter(|k| k.is_admitted());
    if let Some(kueue) = admitted.as_ref().filter(|_| !plan.now && !plan.handover && !plan.at_next_restart) {
        let command = format!("rollback {} --to-revision {}", jobset.name(), target.number);
        return Err(refused(jobset, kueue.admitted_change_refusal(jobset, &command)));
    }
    if plan.format.is_none() {
        write_preview(out, jobset, target, Palette { color: plan.color })?;
    }
    ask(jobset, target, plan, confirm)?;
    if plan.at_next_restart {
        let what = format!("{RESOURCE_NAME}/{}", jobset.name());
        let cause = plan.reason.clone().unwrap_or_else(|| format!("rollback to revision {}", target.number));
        let staged = fleet.staged_of(jobset);
        if plan.dry_run == DryRun::None {
            crate::execute::staged::stage(cluster, jobset, &target.templates, &cause, staged).await?;
        }
        writeln!(
            out,
            "{what} rollback to revision {} staged for the next restart (controllerrevision {}){}",
            target.number,
            crate::plan::staged::revision_name(jobset, crate::plan::staged::next_generation(staged)),
            plan.dry_run.suffix()
        )?;
        return Ok(ExitStatus::Success);
    }
    if plan.handover {
        let options = handover_options(plan);
        let outcome = handover::run(cluster, jobset, &target.templates, &options, out, err).await?;
        return handed_over(cluster, plan, Some(target.number), outcome, out, err).await;
    }
    let what = format!("{RESOURCE_NAME}/{}", jobset.name());
    let Some(patched) = apply(cluster, jobset, target, &ops, plan).await? else {
        writeln!(out, "{what} rolled back to revision {} (dry run)", target.number)?;
        return Ok(ExitStatus::Success);
    };
    if plan.dry_run == DryRun::Server {
        match plan.format {
            Some(format) => write_object(out, format, &patched)?,
            None => writeln!(out, "{what} rolled back to revision {} (server dry run)", target.number)?,
        }
        return Ok(ExitStatus::Success);
    }
    if admitted.is_some() && plan.now {
        let wanted = JobSet::from_raw(patched.clone()).map_err(|e| Error::decode("the patched JobSet", e))?;
        let version = wanted.metadata.resource_version.clone().unwrap_or_default();
        crate::execute::kueue::after_admitted_change(cluster, &wanted, &version, err).await?;
    }
    finish(cluster, plan, target.number, out, err).await
}

/// `--handover`: the command as the journal records it (a rerun is matched by it).
fn handover_options(plan: &RollbackPlan) -> HandoverOptions {
    let name = plan.selection.names.first().map(String::as_str).unwrap_or_default();
    let to = plan.to_revision.map(|n| format!(" --to-revision {n}")).unwrap_or_default();
    HandoverOptions::new(
        format!("kubectl jobset rollback {name}{to} --handover"),
        plan.dry_run != DryRun::None,
    )
}

/// After a handover (begun now, or resumed from its journal: `target` is None, the
/// history that chose its templates went with the old JobSet): what a rollback says
/// (and records) after its patch, or after a dry run.
async fn handed_over(
    cluster: &Cluster,
    plan: &RollbackPlan,
    target: Option<i64>,
    outcome: Outcome,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let name = plan.selection.names.first().map(String::as_str).unwrap_or_default();
    if !outcome.say_done(name, err)? {
        writeln!(out, "{RESOURCE_NAME}/{name} handed over (dry run): nothing was changed")?;
        return Ok(ExitStatus::Success);
    }
    match target {
        Some(target) => finish(cluster, plan, target, out, err).await,
        None => Ok(ExitStatus::Success),
    }
}

fn refused(jobset: &JobSet, why: String) -> Error {
    Error::Refused { what: format!("{RESOURCE_NAME}/{}", jobset.name()), verb: "rolled back", why }
}

/// On a terminal, asks before changing anything (not for dry runs, not with -y).
fn ask(jobset: &JobSet, target: &Revision, plan: &RollbackPlan, confirm: Confirm<'_>) -> Result<()> {
    if plan.dry_run == DryRun::None
        && let Some(confirm) = confirm
        && !confirm(&format!(
            "Roll back jobset {}/{} to revision {}? [y/N] ",
            jobset.namespace(),
            jobset.name(),
            target.number
        ))?
    {
        return Err(Error::Aborted);
    }
    Ok(())
}

/// What a rollback says when someone else edited the templates first.
const CHANGED_MEANWHILE: &str = "its templates were changed by someone else since they were read, so nothing \
     was changed (their edit is kept); run the rollback again to review the new state";

/// What a rollback says when the JobSet read is gone and another took its name.
const RECREATED: &str = "it was deleted and created again since it was read (another uid), so nothing was \
     changed: the revision belongs to the JobSet that was deleted; review the new JobSet's history first";

/// Why the guarded patch failed: a re-read tells a JobSet created again under the same
/// name (the uid guard) from an edit of the templates.
async fn changed_meanwhile(cluster: &Cluster, jobset: &JobSet) -> String {
    match cluster.get_jobset(jobset.namespace(), jobset.name()).await {
        Ok(fresh) if fresh.uid() != jobset.uid() => RECREATED.into(),
        Err(Error::NotFound { .. }) => "it was deleted since it was read, so nothing was changed".into(),
        _ => CHANGED_MEANWHILE.into(),
    }
}

/// Sends the guarded template patch (None for a client dry run), explaining a lost race
/// or a controller that forbids template changes. A patch whose answer was lost is
/// judged by re-reading: landed, sent again, or someone else's edit (a conflict).
async fn apply(
    cluster: &Cluster,
    jobset: &JobSet,
    target: &Revision,
    ops: &json_patch::Patch,
    plan: &RollbackPlan,
) -> Result<Option<serde_json::Value>> {
    if plan.dry_run == DryRun::Client {
        return Ok(None);
    }
    let mut write =
        TemplatePatch { cluster, jobset, target, ops, server_dry_run: plan.dry_run == DryRun::Server };
    guarded(&cluster.log, &mut write).await.map(Some)
}

/// The rollback's one guarded write: the same patch each try (it puts the target's
/// templates back, whatever else changed meanwhile, so there is nothing to re-plan).
struct TemplatePatch<'a> {
    cluster: &'a Cluster,
    jobset: &'a JobSet,
    target: &'a Revision,
    ops: &'a json_patch::Patch,
    server_dry_run: bool,
}

impl GuardedWrite for TemplatePatch<'_> {
    type Output = serde_json::Value;

    fn what(&self) -> String {
        format!("the rollback patch of {RESOURCE_NAME}/{}", self.jobset.name())
    }

    async fn send(&mut self) -> Result<serde_json::Value> {
        let (ns, name) = (self.jobset.namespace(), self.jobset.name());
        match self.cluster.patch_jobset(ns, name, None, self.ops, self.server_dry_run).await {
            Err(Error::Api { message, .. }) if is_template_immutable_rejection(&message) => {
                self.cluster.log.note(1, &format!("the API server answered: {message}"));
                Err(refused(self.jobset, explain_rejection(self.jobset, self.target)))
            }
            other => other,
        }
    }

    /// A lost race is refused (their edit is kept); a lost answer is judged: landed, not
    /// applied (sent again), or someone else's edit.
    async fn reread(&mut self, failure: WriteFailure) -> Result<Verdict<serde_json::Value>> {
        let jobset = self.jobset;
        if failure == WriteFailure::Precondition {
            return Err(refused(jobset, changed_meanwhile(self.cluster, jobset).await));
        }
        let fresh = self.cluster.get_jobset(jobset.namespace(), jobset.name()).await?;
        if fresh.uid() != jobset.uid() {
            return Err(refused(jobset, RECREATED.into()));
        }
        match judge_rollback(&templates_of(jobset), &templates_of(&fresh), &self.target.templates) {
            AfterUnknown::Landed => Ok(Verdict::Done(fresh.object())),
            AfterUnknown::NotApplied => Ok(Verdict::SendAgain),
            AfterUnknown::SomeoneElse => Err(refused(jobset, CHANGED_MEANWHILE.into())),
        }
    }
}

/// After the patch: record the rollback as the newest revision, say how many Jobs it
/// leaves outdated, and restart (and wait) when asked.
async fn finish(
    cluster: &Cluster,
    plan: &RollbackPlan,
    target: i64,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let cause = plan.reason.clone().unwrap_or_else(|| format!("rollback to revision {target}"));
    let Observed { fleet, drifts, histories, recorder, .. } =
        observe_one(cluster, plan, Some(Cause::Set(cause)), err).await?;
    let jobset = &fleet.jobsets[0];
    let what = format!("{RESOURCE_NAME}/{}", jobset.name());
    let view = View::new(jobset, histories.get(jobset.uid()).cloned().unwrap_or_default());
    let now = view.spec.map(|n| format!(" (now revision {n})")).unwrap_or_default();
    match plan.format {
        Some(format) => write_object(out, format, &jobset.object())?,
        None => writeln!(out, "{what} rolled back to revision {target}{now}")?,
    }
    let Some(after) = &plan.restart else {
        if plan.format.is_none()
            && let Some(next) = crate::plan::strategy::after_change_words(
                jobset,
                crate::plan::strategy::enforcer(recorder.as_ref(), jobset),
            )
        {
            writeln!(out, "next: {next}")?;
        } else if plan.format.is_none() {
            writeln!(
                out,
                "the running Jobs keep their template until the next restart: {}/{} jobs are now outdated \
                 (`{}` applies it now)",
                drifts[0].outdated_jobs(),
                drifts[0].total_jobs(),
                crate::hint::kubectl_jobset(&format!("restart {}", jobset.name()), jobset.namespace())
            )?;
        }
        return Ok(ExitStatus::Success);
    };
    after
        .run(cluster, jobset, fleet.jobs_of(jobset), err, |from, to| {
            if plan.format.is_none() {
                writeln!(out, "{what} restarted (attempt {from} → {to})")?;
            }
            Ok(())
        })
        .await?;
    Ok(ExitStatus::Success)
}

/// The JobSet with its Jobs and history, recorded with `cause`.
async fn observe_one<'c>(
    cluster: &'c Cluster,
    plan: &RollbackPlan,
    cause: Option<Cause>,
    err: &mut dyn Write,
) -> Result<Observed<'c>> {
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause,
        recorder: Recorder::Defer,
        write: true,
        numbers: NumberCheck::ReadBack,
    };
    // One name: a JobSet that does not exist is an error, never an empty result; one
    // deleted whose history is kept says so.
    let observed =
        observe_or_deleted(cluster, &plan.selection, Some(&options), err).await?.ok_or_else(|| {
            not_found(&plan.selection.names, plan.selection.namespace.as_deref().unwrap_or_default())
        })?;
    if observed.fleet.jobsets.is_empty()
        && let Some(deleted) = observed.fleet.deleted.first()
    {
        return Err(deleted_refusal(deleted));
    }
    Ok(observed)
}

/// Rolling back a JobSet that was deleted: there is nothing to put templates back into.
fn deleted_refusal(deleted: &crate::history::deleted::DeletedHistory) -> Error {
    let hint = |args: &str| crate::hint::kubectl_jobset(args, &deleted.namespace);
    Error::NoSuchRevision(format!(
        "jobset {}/{} does not exist: it was deleted ({}), so there is nothing to roll back. Its history is \
         kept: `{}` lists it, and `{}` prints a revision's templates to create it again from",
        deleted.namespace,
        deleted.name,
        deleted.describe(jiff::Timestamp::now()),
        hint(&format!("history {}", deleted.name)),
        hint(&format!("history {} --revision N -o yaml", deleted.name)),
    ))
}

fn target_revision<'v>(view: &'v View, to_revision: Option<i64>) -> Result<&'v Revision> {
    match to_revision {
        Some(n) => select(&view.revisions, n).map_err(|why| bad_revision(view.jobset, &why)),
        None => {
            let spec = view.spec.ok_or_else(|| {
                bad_revision(
                    view.jobset,
                    "the spec's templates are not recorded (history is read-only here); pass --to-revision N",
                )
            })?;
            previous_revision(&view.revisions, spec).ok_or_else(|| {
                let known: Vec<String> = view.revisions.iter().map(|r| r.number.to_string()).collect();
                bad_revision(
                    view.jobset,
                    format!(
                        "no revision before the spec's (revision {spec}); recorded revisions: {}",
                        known.join(", ")
                    ),
                )
            })
        }
    }
}

/// The diff from the current spec to the target revision, per replicatedJob.
fn write_preview(out: &mut dyn Write, jobset: &JobSet, target: &Revision, palette: Palette) -> Result<()> {
    for rjob in &jobset.spec.replicated_jobs {
        let Some((_, wanted)) = target.templates.iter().find(|(n, _)| *n == rjob.name) else { continue };
        write_unified(
            out,
            &rjob.template.value(),
            wanted,
            &format!(
                "{}/{} replicatedJobs[{}].template (spec now)",
                jobset.namespace(),
                jobset.name(),
                rjob.name
            ),
            &format!("revision {} replicatedJobs[{}].template", target.number, rjob.name),
            palette,
        )?;
    }
    Ok(())
}

fn write_object(out: &mut dyn Write, format: Format, object: &serde_json::Value) -> Result<()> {
    let object = render::without_managed_fields(object.clone());
    match format {
        Format::Json | Format::Yaml => render::write_structured(out, format, &object),
        _ => {
            Ok(writeln!(out, "{RESOURCE_NAME}/{}", object["metadata"]["name"].as_str().unwrap_or_default())?)
        }
    }
}
