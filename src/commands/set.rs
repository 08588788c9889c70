//! `kubectl jobset set image|env|resources`: change container fields of JobSet templates
//! with one guarded JSON patch per JobSet, record why as the change cause, and optionally
//! restart so the change takes effect now. The three differ only in their
//! [`Setting`]; `set resources` also checks, under Kueue, that the ClusterQueue could ever
//! admit the JobSet with its new requests.

use std::io::Write;

use serde_json::Value;

use crate::cluster::Cluster;
use crate::cluster::guarded::{GuardedWrite, Verdict, WriteFailure, guarded};
use crate::commands::Confirm;
use crate::diff::unified::{Palette, write_unified};
use crate::error::{Error, Result};
use crate::execute::handover::{self, HandoverOptions};
use crate::execute::{DryRun, RestartAfter};
use crate::exit::ExitStatus;
use crate::history::Cause;
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::model::kueue::ClusterQueueQuota;
use crate::observe::{Observed, RecordOptions, Recorder, observe};
use crate::plan::restart::{RestartOptions, refusal_after_change};
use crate::plan::rollback::is_template_immutable_rejection;
use crate::plan::set::Setting;
use crate::plan::template_change::TemplateChange;
use crate::render::{self, Format};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct SetPlan {
    pub selection: Selection,
    pub setting: Setting,
    /// The change cause: `--reason`, or the command.
    pub cause: String,
    pub dry_run: DryRun,
    /// Who asks, until the API server says.
    pub requested_by: String,
    /// `--restart` (and `--wait`): restart each changed JobSet once its patch has landed.
    pub restart: Option<RestartAfter>,
    /// `--handover`: recreate the JobSet with the new templates and hand its Jobs over.
    pub handover: bool,
    /// `--now`: a JobSet Kueue has admitted is changed anyway and restarted on the new
    /// template (Kueue stops it and queues it again); without it, it is refused.
    pub now: bool,
    /// `--at-next-restart`: stage the change (out of the spec) for the next restart.
    pub at_next_restart: bool,
    pub format: Option<Format>,
    pub color: bool,
    pub history_limit: usize,
}

const CHANGED_MEANWHILE: &str = "its containers were changed by someone else since they were read, so nothing \
     was changed (their edit is kept); run the command again to review the new state";

pub async fn run(
    cluster: &Cluster,
    plan: &SetPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    if plan.handover
        && let Some(outcome) =
            handover::resume_named(cluster, &plan.selection, &handover_options(plan), out, err).await?
    {
        return handed_over(cluster, plan, outcome, out, err).await;
    }
    // Recording first keeps the templates being replaced in history (rollback needs them).
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: None,
        recorder: Recorder::Defer,
        write: true,
        numbers: crate::observe::NumberCheck::ReadBack,
    };
    let record = (plan.dry_run == DryRun::None).then_some(&options);
    let Some(Observed { fleet, recorder, .. }) = observe(cluster, &plan.selection, record, err).await? else {
        return Ok(ExitStatus::Success);
    };
    // `set resources` under Kueue: the ClusterQueues' quota, to refuse what could never be admitted.
    let quotas = match plan.setting {
        Setting::Resources(_) if fleet.jobsets.iter().any(|js| fleet.kueue_of(js).is_some()) => {
            cluster.kueue_quotas(plan.selection.namespace.as_deref()).await?
        }
        _ => None,
    };
    if matches!(plan.setting, Setting::Resources(_))
        && quotas.is_none()
        && fleet.jobsets.iter().any(|js| fleet.kueue_of(js).is_some())
    {
        writeln!(
            err,
            "warning: Kueue's LocalQueues and ClusterQueues could not be read (not served, or `list` on \
             localqueues/clusterqueues.kueue.x-k8s.io not allowed; -v says which): the ClusterQueue's quota is \
             not checked"
        )?;
    }
    let queue_of = |jobset: &JobSet| {
        let kueue = fleet.kueue_of(jobset)?;
        quotas.as_ref()?.of(jobset, &kueue).cloned()
    };
    if plan.at_next_restart {
        return stage_all(cluster, plan, &fleet, &queue_of, out, confirm).await;
    }
    // Every JobSet is planned (and every restart judged) before anything is written:
    // one that cannot take the change stops the command with nothing changed.
    let mut changes = Vec::new();
    for jobset in &fleet.jobsets {
        let change = plan.setting.plan(jobset).map_err(|why| refused(jobset, why.to_string()))?;
        if let Some(why) = plan.setting.refusal(jobset, &change, queue_of(jobset).as_ref()) {
            return Err(refused(jobset, why));
        }
        if let Some(after) = plan.restart.as_ref().filter(|_| !change.is_empty())
            && let Some(why) = refusal_after_change(jobset, fleet.jobs_of(jobset), &after.options)
        {
            return Err(refused(jobset, why));
        }
        if let Some(Err(invalid)) = crate::model::strategy::annotated(jobset) {
            writeln!(err, "warning: {}: {invalid}", subject(jobset))?;
        }
        if !change.is_empty()
            && let Some(why) = crate::plan::strategy::never_refusal(jobset)
        {
            // Named: refused; selected by label: skipped, under its own reason.
            if !plan.selection.names.is_empty() {
                return Err(refused(jobset, why));
            }
            writeln!(err, "skipped {}: {why}", subject(jobset))?;
            changes.push(TemplateChange { templates: Vec::new(), edits: Vec::new() });
            continue;
        }
        if !change.is_empty()
            && !plan.now
            && !plan.handover
            && let Some(kueue) = fleet.kueue_of(jobset).filter(|k| k.is_admitted())
        {
            let command = plan.setting.command(jobset.name());
            return Err(refused(jobset, kueue.admitted_change_refusal(jobset, &command)));
        }
        changes.push(change);
    }
    // `--now`: the JobSets Kueue has admitted, which Kueue stops once changed.
    let admitted: Vec<bool> =
        fleet.jobsets.iter().map(|js| fleet.kueue_of(js).is_some_and(|k| k.is_admitted())).collect();
    let several = plan.selection.namespace.is_none();
    let asks = confirm.is_some() && plan.dry_run == DryRun::None;
    if plan.format.is_none() && (plan.dry_run != DryRun::None || asks) {
        for (jobset, change) in fleet.jobsets.iter().zip(&changes) {
            write_preview(out, jobset, change, plan.setting.subcommand(), Palette { color: plan.color })?;
        }
    }
    let to_change: Vec<(&JobSet, &TemplateChange)> =
        fleet.jobsets.iter().zip(&changes).filter(|(_, c)| !c.is_empty()).collect();
    if plan.dry_run == DryRun::None
        && !to_change.is_empty()
        && let Some(confirm) = confirm
    {
        let names: Vec<String> =
            to_change.iter().map(|(js, _)| format!("{}/{}", js.namespace(), js.name())).collect();
        let what = plan.setting.prompt_noun();
        if !confirm(&format!("Set {what} of jobset {}? [y/N] ", names.join(", ")))? {
            return Err(Error::Aborted);
        }
    }
    let who = match plan.dry_run {
        DryRun::Client => plan.requested_by.clone(),
        _ => cluster.whoami().await.unwrap_or_else(|| plan.requested_by.clone()),
    };
    let mut objects = Vec::new();
    let mut changed = Vec::new();
    for ((jobset, change), admitted) in fleet.jobsets.iter().zip(&changes).zip(admitted) {
        let what = subject(jobset);
        if change.is_empty() {
            if plan.format.is_none() {
                writeln!(out, "{what} {} unchanged{}", plan.setting.noun(), place(jobset, several))?;
            }
            objects.push(jobset.object());
            continue;
        }
        if plan.handover {
            let templates = change.templates_of(jobset);
            let outcome =
                handover::run(cluster, jobset, &templates, &handover_options(plan), out, err).await?;
            return handed_over(cluster, plan, outcome, out, err).await;
        }
        let object = apply(cluster, jobset, change, plan).await?;
        if plan.format.is_none() {
            let enforcer = crate::plan::strategy::enforcer(recorder.as_ref(), jobset);
            let next =
                crate::plan::strategy::after_change_words(jobset, enforcer).filter(|_| record.is_some());
            let next = next.map(|w| format!(": {w}"));
            let next = next.unwrap_or_default();
            let (noun, place, suffix) = (plan.setting.noun(), place(jobset, several), plan.dry_run.suffix());
            writeln!(out, "{what} {noun} updated{place}{suffix}{next}")?;
        }
        if plan.dry_run == DryRun::None {
            record_event(cluster, jobset, &plan.setting, change, &who, &plan.cause).await;
            changed.push(jobset.name().to_owned());
            if admitted && plan.now {
                // What the spec holds now (the new images, our scheduling fields) is what
                // Kueue's stop must not take away.
                let wanted =
                    JobSet::from_raw(object.clone()).map_err(|e| Error::decode("the patched JobSet", e))?;
                let version = wanted.metadata.resource_version.clone().unwrap_or_default();
                crate::execute::kueue::after_admitted_change(cluster, &wanted, &version, err).await?;
            }
        }
        objects.push(object);
    }
    if let Some(format) = plan.format {
        write_objects(out, format, objects)?;
    }
    if changed.is_empty() {
        return Ok(ExitStatus::Success);
    }
    finish(cluster, plan, &changed, &who, out, err).await
}

/// After the patches: record the new templates with the change cause, then restart (and
/// wait) when asked.
async fn finish(
    cluster: &Cluster,
    plan: &SetPlan,
    changed: &[String],
    who: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: Some(Cause::Set(plan.cause.clone())),
        recorder: Recorder::Defer,
        write: true,
        numbers: crate::observe::NumberCheck::ReadBack,
    };
    // In one namespace, the changed JobSets by name; across namespaces (-A -l), by label again.
    let selection = match plan.selection.namespace {
        Some(_) => Selection { names: changed.to_vec(), label_selector: None, ..plan.selection.clone() },
        None => plan.selection.clone(),
    };
    let Some(Observed { fleet, .. }) = observe(cluster, &selection, Some(&options), err).await? else {
        return Ok(ExitStatus::Success);
    };
    let Some(after) = &plan.restart else { return Ok(ExitStatus::Success) };
    // The restart names who the API server says asked, as the image Events do.
    let options = RestartOptions { requested_by: who.to_owned(), ..after.options.clone() };
    let after = RestartAfter { options, ..after.clone() };
    let several = plan.selection.namespace.is_none();
    for jobset in fleet.jobsets.iter().filter(|js| changed.iter().any(|n| n == js.name())) {
        after
            .run(cluster, jobset, fleet.jobs_of(jobset), err, |from, to| {
                if plan.format.is_none() {
                    let (what, place) = (subject(jobset), place(jobset, several));
                    writeln!(out, "{what} restarted (attempt {from} → {to}){place}")?;
                }
                Ok(())
            })
            .await?;
    }
    Ok(ExitStatus::Success)
}

/// `--at-next-restart`: each JobSet's containers changed on top of what is staged for it
/// already (or on its spec), staged for its next restart; the spec is not touched.
async fn stage_all(
    cluster: &Cluster,
    plan: &SetPlan,
    fleet: &crate::observe::Fleet,
    queue_of: &dyn Fn(&JobSet) -> Option<ClusterQueueQuota>,
    out: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    let several = plan.selection.namespace.is_none();
    let mut planned = Vec::new();
    for jobset in &fleet.jobsets {
        let staged = fleet.staged_of(jobset);
        if let Some(why) = crate::plan::staged::held_refusal(staged) {
            return Err(refused(jobset, why));
        }
        let base = match staged {
            Some(s) => crate::plan::staged::with_templates(jobset, &s.templates),
            None => jobset.clone(),
        };
        let change = plan.setting.plan(&base).map_err(|why| refused(jobset, why.to_string()))?;
        if let Some(why) = plan.setting.refusal(&base, &change, queue_of(jobset).as_ref()) {
            return Err(refused(jobset, why));
        }
        if plan.format.is_none() {
            write_preview(out, &base, &change, plan.setting.subcommand(), Palette { color: plan.color })?;
        }
        planned.push((jobset, staged, base, change));
    }
    if plan.dry_run == DryRun::None
        && let Some(confirm) = confirm
        && planned.iter().any(|(_, _, _, c)| !c.is_empty())
    {
        let names: Vec<String> = planned
            .iter()
            .filter(|(_, _, _, c)| !c.is_empty())
            .map(|(js, ..)| format!("{}/{}", js.namespace(), js.name()))
            .collect();
        let what = plan.setting.prompt_noun();
        if !confirm(&format!("Stage {what} of jobset {} for the next restart? [y/N] ", names.join(", ")))? {
            return Err(Error::Aborted);
        }
    }
    for (jobset, staged, base, change) in planned {
        let (what, place) = (subject(jobset), place(jobset, several));
        if change.is_empty() {
            writeln!(out, "{what} {} unchanged{place}", plan.setting.noun())?;
            continue;
        }
        let templates = change.templates_of(&base);
        let still_staged = match plan.dry_run {
            DryRun::None => {
                crate::execute::staged::stage(cluster, jobset, &templates, &plan.cause, staged).await?
            }
            _ => true,
        };
        match still_staged {
            true => writeln!(
                out,
                "{what} {} staged for the next restart (controllerrevision {}){place}{}",
                plan.setting.noun(),
                crate::plan::staged::revision_name(jobset, crate::plan::staged::next_generation(staged)),
                plan.dry_run.suffix()
            )?,
            false => writeln!(out, "{what} staged change dropped: the spec already has it{place}")?,
        }
    }
    Ok(ExitStatus::Success)
}

/// `--handover`: the command as the journal records it (a rerun is matched by it).
fn handover_options(plan: &SetPlan) -> HandoverOptions {
    let name = plan.selection.names.first().map(String::as_str).unwrap_or_default();
    HandoverOptions::new(
        format!("kubectl jobset {} --handover", plan.setting.command(name)),
        plan.dry_run != DryRun::None,
    )
}

/// After a handover: record the new templates with the cause, then restart if asked
/// (the new JobSet object is found by name, as after a patch).
async fn handed_over(
    cluster: &Cluster,
    plan: &SetPlan,
    outcome: handover::Outcome,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let name = plan.selection.names.first().cloned().unwrap_or_default();
    if !outcome.say_done(&name, err)? {
        // handover::run printed the steps; nothing was changed.
        return Ok(ExitStatus::Success);
    }
    writeln!(out, "{RESOURCE_NAME}/{name} {} updated", plan.setting.noun())?;
    let who = cluster.whoami().await.unwrap_or_else(|| plan.requested_by.clone());
    finish(cluster, plan, std::slice::from_ref(&name), &who, out, err).await
}

fn refused(jobset: &JobSet, why: String) -> Error {
    Error::Refused { what: format!("{RESOURCE_NAME}/{}", jobset.name()), verb: "changed", why }
}

fn subject(jobset: &JobSet) -> String {
    format!("{RESOURCE_NAME}/{}", jobset.name())
}

/// ` in namespace NS` when JobSets of several namespaces are listed.
fn place(jobset: &JobSet, several: bool) -> String {
    if several { format!(" in namespace {}", jobset.namespace()) } else { String::new() }
}

/// Sends one JobSet's guarded patch (for a client dry run, applies it locally instead),
/// explaining a lost race or a controller that forbids template changes. A patch whose
/// answer was lost is judged by re-reading: landed, sent again, or someone else's edit.
async fn apply(cluster: &Cluster, jobset: &JobSet, change: &TemplateChange, plan: &SetPlan) -> Result<Value> {
    let ops = change.patch(jobset, Some(&plan.cause));
    if plan.dry_run == DryRun::Client {
        let mut object = jobset.object();
        json_patch::patch(&mut object, &ops).map_err(|e| Error::decode("the patched JobSet", e))?;
        return Ok(object);
    }
    guarded(&cluster.log, &mut TemplatePatch { cluster, jobset, change, plan, ops }).await
}

/// One JobSet's template patch, planned again from each re-read.
struct TemplatePatch<'a> {
    cluster: &'a Cluster,
    jobset: &'a JobSet,
    change: &'a TemplateChange,
    plan: &'a SetPlan,
    /// The patch as planned from the JobSet read last.
    ops: json_patch::Patch,
}

impl GuardedWrite for TemplatePatch<'_> {
    type Output = Value;

    fn what(&self) -> String {
        format!("the {} patch of {RESOURCE_NAME}/{}", self.plan.setting.subcommand(), self.jobset.name())
    }

    async fn send(&mut self) -> Result<Value> {
        let (ns, name) = (self.jobset.namespace(), self.jobset.name());
        let server_dry_run = self.plan.dry_run == DryRun::Server;
        match self.cluster.patch_jobset(ns, name, None, &self.ops, server_dry_run).await {
            Err(Error::Api { message, .. }) if is_template_immutable_rejection(&message) => {
                self.cluster.log.note(1, &format!("the API server answered: {message}"));
                Err(refused(self.jobset, immutable(self.jobset, self.plan)))
            }
            other => other,
        }
    }

    /// Planned again after a lost race: a resourceVersion guard (no annotations yet, a
    /// container without an image) also fails on the controller's status writes. Sent
    /// again only if the fields changed still hold the values read: anyone else's edit wins.
    async fn reread(&mut self, failure: WriteFailure) -> Result<Verdict<Value>> {
        let fresh = self.cluster.get_jobset(self.jobset.namespace(), self.jobset.name()).await?;
        if failure != WriteFailure::Precondition && self.change.is_applied(&fresh) {
            return Ok(Verdict::Done(fresh.object()));
        }
        match self.plan.setting.plan(&fresh) {
            Ok(again) if again.edits == self.change.edits => {
                self.ops = again.patch(&fresh, Some(&self.plan.cause));
                Ok(Verdict::SendAgain)
            }
            _ => Err(refused(self.jobset, CHANGED_MEANWHILE.into())),
        }
    }

    fn exhausted(&mut self, last: Error, failure: WriteFailure) -> Result<Value> {
        match failure {
            WriteFailure::Precondition => Err(refused(self.jobset, CHANGED_MEANWHILE.into())),
            _ => Err(last),
        }
    }
}

/// Why a webhook's refusal of an image change cannot be worked around in place, and the
/// way around it: `--handover` (a new JobSet object adopts the running Jobs).
fn immutable(jobset: &JobSet, plan: &SetPlan) -> String {
    format!(
        "the cluster rejected the template change: this JobSet controller's admission webhook treats \
         replicatedJob templates as immutable (upstream JobSet only lets pod labels, annotations, nodeSelector, \
         tolerations and schedulingGates change, and only while the JobSet is suspended; images, env and \
         resources are never among them). Nothing was changed. To change it without stopping its running Jobs, recreate the JobSet object \
         and hand them over: {} (-v shows the API server's full answer)",
        crate::hint::kubectl_jobset(
            &format!("{} --handover", plan.setting.command(jobset.name())),
            jobset.namespace()
        )
    )
}

/// The template diff, per changed replicatedJob.
fn write_preview(
    out: &mut dyn Write,
    jobset: &JobSet,
    change: &TemplateChange,
    what: &str,
    palette: Palette,
) -> Result<()> {
    for edit in &change.templates {
        let place =
            format!("{}/{} replicatedJobs[{}].template", jobset.namespace(), jobset.name(), edit.name);
        write_unified(
            out,
            &edit.before,
            &edit.after,
            &format!("{place} (spec now)"),
            &format!("{place} (set {what})"),
            palette,
        )?;
    }
    Ok(())
}

fn write_objects(out: &mut dyn Write, format: Format, objects: Vec<Value>) -> Result<()> {
    if format == Format::Name {
        for object in &objects {
            writeln!(out, "{RESOURCE_NAME}/{}", object["metadata"]["name"].as_str().unwrap_or_default())?;
        }
        return Ok(());
    }
    render::write_documents(out, format, objects.into_iter().map(render::without_managed_fields).collect())
}

/// An Event on the JobSet saying what changed, who asked and why; failing to record
/// it is only a warning.
async fn record_event(
    cluster: &Cluster,
    jobset: &JobSet,
    setting: &Setting,
    change: &TemplateChange,
    who: &str,
    cause: &str,
) {
    let note = format!("{} by {who} with kubectl-jobset: {cause}", setting.event_words(change));
    if let Err(e) =
        crate::cluster::events::publish_template_update(cluster, jobset, setting.event(), note).await
    {
        let noun = setting.noun();
        cluster.log.note(0, &format!("warning: {noun} updated, but could not record an Event: {e}"));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_preview_shows_only_the_changed_template() {
        let js = JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml"}, "spec": {"replicatedJobs": [
            {"name": "workers", "template": {"spec": {"template": {"spec": {"containers": [{"name": "trainer", "image": "app:v1"}]}}}}},
            {"name": "driver", "template": {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "drv:v1"}]}}}}}]}}))
        .unwrap();
        let args = crate::plan::set_image::parse_image_args(&["trainer=app:v2".into()]).unwrap();
        let change = crate::plan::set_image::plan(&js, &args).unwrap();
        let mut out = Vec::new();
        write_preview(&mut out, &js, &change, "image", Palette { color: false }).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("--- ml/train replicatedJobs[workers].template (spec now)"), "{text}");
        assert!(text.contains("-        image: app:v1") && text.contains("+        image: app:v2"), "{text}");
        assert!(!text.contains("driver"), "{text}");
    }
}
