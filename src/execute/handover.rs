//! `--handover`: a template change on a controller that forbids it (upstream JobSet),
//! without touching a running Job. The JobSet is deleted with orphan propagation and
//! created again under the same name with the new templates; its Jobs, headless
//! Service and revisions are then adopted by the new object, and its restart counters
//! restored. A journal (ConfigMap `kubectl-jobset-handover-<name>`) is written before
//! the first change, so a rerun of the same command resumes wherever it stopped.
//!
//! `plan` and `journal` decide without I/O; this module runs the steps.
//! Test-only hooks (never for production use): `KUBECTL_JOBSET_TEST_CRASH_AFTER=<step>`
//! exits the process (code 86) right after that step; `KUBECTL_JOBSET_TEST_PAUSE_AFTER=<step>`
//! says `paused after <step>` on stderr and waits for a line on stdin.

use std::io::Write;
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::cluster::guarded::{GuardedWrite, Verdict, WriteFailure, guarded, write_failure};
use crate::error::{Error, Result};
use crate::history::{JOBSET_LABEL, Templates, same_templates_by_name};
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME, labels};
use crate::plan::handover::journal::{self, Journal, Owned, Progress};
use crate::plan::handover::{self as plan, Adoption, Stage, Step};
use crate::select::Selection;

/// Exit code of the test-only crash hook.
pub const TEST_CRASH_CODE: i32 = 86;
pub const TEST_CRASH_ENV: &str = "KUBECTL_JOBSET_TEST_CRASH_AFTER";
pub const TEST_PAUSE_ENV: &str = "KUBECTL_JOBSET_TEST_PAUSE_AFTER";

#[derive(Debug, Clone)]
pub struct HandoverOptions {
    /// The command as the user ran it (`rollback train --to-revision 2`): recorded in
    /// the journal, and how a rerun is matched once the old JobSet is gone.
    pub intent: String,
    /// Show the steps, change nothing.
    pub dry_run: bool,
    /// How long to wait for the orphaning delete to finish.
    pub delete_timeout: Duration,
}

impl HandoverOptions {
    pub fn new(intent: String, dry_run: bool) -> Self {
        HandoverOptions { intent, dry_run, delete_timeout: Duration::from_secs(60) }
    }
}

/// How a handover ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Only shown (`--dry-run`).
    DryRun,
    /// Done: the new JobSet's uid and how many objects it adopted.
    Done { uid: String, adopted: usize },
}

impl Outcome {
    /// Says on `err` what a finished handover did to `name`; false when it did nothing
    /// (a dry run, whose steps `run` printed).
    pub fn say_done(&self, name: &str, err: &mut dyn Write) -> Result<bool> {
        let Outcome::Done { uid, adopted } = self else { return Ok(false) };
        writeln!(
            err,
            "{RESOURCE_NAME}/{name} handed over: new uid {uid}, {adopted} objects adopted, running Jobs untouched"
        )?;
        Ok(true)
    }
}

/// `--handover` in a command that names one JobSet (`rollback`, `set image`): its
/// pending handover resumed as [`resume_pending`] does, in the command's namespace or
/// else the context's. Call it first: the JobSet the command would read may be gone.
pub async fn resume_named(
    cluster: &Cluster,
    selection: &Selection,
    options: &HandoverOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Option<Outcome>> {
    let name = selection.names.first().map(String::as_str).unwrap_or_default();
    let namespace = selection.namespace.as_deref().unwrap_or(&cluster.namespace);
    resume_pending(cluster, namespace, name, options, out, err).await
}

/// Resumes a handover of `name` whose old JobSet is no longer there as it was (deleted,
/// or already replaced), when `intent` is the one it was started with; None when there
/// is nothing to resume that way (no journal, or the old JobSet is intact: then
/// `run` compares templates). Call it before reading the JobSet, which may be gone.
pub async fn resume_pending(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    options: &HandoverOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Option<Outcome>> {
    let journal = match read_journal(cluster, namespace, name).await {
        // `run` checks every permission first and names the missing ones.
        Err(Error::Forbidden { .. }) => return Ok(None),
        other => other?,
    };
    let Some(journal) = journal else { return Ok(None) };
    let live = cluster.get_jobset_opt(namespace, name).await?;
    if live
        .as_ref()
        .is_some_and(|l| l.uid() == journal.progress.old_uid && l.metadata.deletion_timestamp.is_none())
    {
        return Ok(None);
    }
    if journal.progress.intent != options.intent {
        return Err(refused(
            name,
            format!(
                "a handover by `{}` (started {}) is in progress and its old JobSet is already gone: run that \
                 command again to finish it first (journal configmap/{})",
                journal.progress.intent,
                journal.progress.started_at,
                journal::name(name)
            ),
        ));
    }
    if options.dry_run {
        writeln!(
            out,
            "would resume the handover by `{}` from its journal configmap/{}",
            journal.progress.intent,
            journal::name(name)
        )?;
        return Ok(Some(Outcome::DryRun));
    }
    writeln!(
        err,
        "resuming the handover by `{}` (started {})",
        journal.progress.intent, journal.progress.started_at
    )?;
    drive(cluster, journal, out, err).await.map(Some)
}

/// Hands `jobset` over to a new object with `templates` (every replicatedJob's, by
/// name): refuses up front when it must, writes the journal, then runs the steps. A
/// journal left by an earlier run with the same templates is resumed.
pub async fn run(
    cluster: &Cluster,
    jobset: &JobSet,
    templates: &Templates,
    options: &HandoverOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome> {
    let (ns, name) = (jobset.namespace(), jobset.name());
    let service_name = plan::headless_service(jobset);
    let kueue = cluster.kueue_version().await?;
    check_permissions(cluster, jobset, service_name.is_some(), kueue.is_some()).await?;
    if let Some(journal) = read_journal(cluster, ns, name).await? {
        if !same_templates_by_name(&journal.templates, templates) {
            return Err(refused(
                name,
                format!(
                    "another handover, by `{}` (started {}), is in progress with other templates; finish it by \
                     running that command again, or, if its JobSet is still intact, delete configmap/{} to drop it",
                    journal.progress.intent,
                    journal.progress.started_at,
                    journal::name(name)
                ),
            ));
        }
        if options.dry_run {
            writeln!(out, "would resume the handover by `{}` from its journal", journal.progress.intent)?;
            return Ok(Outcome::DryRun);
        }
        writeln!(
            err,
            "resuming the handover by `{}` (started {})",
            journal.progress.intent, journal.progress.started_at
        )?;
        return drive(cluster, journal, out, err).await;
    }
    let jobs = cluster
        .list_jobs(Some(ns), &format!("{}={name}", labels::JOBSET_NAME), |j| j)
        .await?
        .into_iter()
        .filter(|j: &ChildJob| j.is_owned_by(jobset.uid()))
        .collect::<Vec<_>>();
    let workloads = match &kueue {
        Some(version) => cluster.workloads_owned_by(ns, version, jobset.uid()).await?,
        None => vec![],
    };
    if let Some(why) = plan::refusal(jobset, &jobs, workloads.first().map(String::as_str)) {
        return Err(refused(name, why));
    }
    if let Some(note) = plan::queued_note(jobset, workloads.first().map(String::as_str)) {
        writeln!(err, "{note}")?;
    }
    let service = match &service_name {
        Some(svc) => cluster
            .get_service(ns, svc)
            .await?
            .filter(|s| controlled_by(&s.metadata, jobset.uid()))
            .map(|s| Owned { name: svc.clone(), uid: s.metadata.uid.unwrap_or_default() }),
        None => None,
    };
    let revisions: Vec<Owned> = cluster
        .list_revisions(Some(ns), &format!("{JOBSET_LABEL}={name}"))
        .await?
        .into_iter()
        // Its history: owned by it, or kept by the recorder (no owner, its uid label).
        .filter(|r| crate::history::belongs_to(r).contains(&jobset.uid()))
        .map(|r| Owned { name: r.metadata.name.unwrap_or_default(), uid: r.metadata.uid.unwrap_or_default() })
        .collect();
    let journal = Journal {
        progress: Progress {
            format: journal::FORMAT.into(),
            intent: options.intent.clone(),
            old_uid: jobset.uid().to_owned(),
            started_at: jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
            done: vec![],
            service,
            revisions,
            jobs: jobs
                .iter()
                .map(|j| Owned { name: j.name().to_owned(), uid: j.metadata.uid.clone().unwrap_or_default() })
                .collect(),
        },
        jobset: jobset.object(),
        templates: templates.clone(),
        resource_version: String::new(),
    };
    write_steps(out, jobset, &journal, &jobs)?;
    if options.dry_run {
        return Ok(Outcome::DryRun);
    }
    let mut journal = journal;
    journal.progress.done.push(Step::Journal.name().into());
    let stored = cluster.create_configmap(ns, &journal.to_configmap()).await.map_err(|e| match e {
        Error::Conflict { .. } => refused(
            name,
            "another handover started meanwhile (its journal exists now): run the command again to see it"
                .into(),
        ),
        e => e,
    })?;
    journal.resource_version = stored.metadata.resource_version.unwrap_or_default();
    writeln!(err, "journal written: configmap/{}", journal::name(name))?;
    test_hook(Step::Journal, out, err)?;
    drive(cluster, journal, out, err).await
}

/// The steps a handover takes, as `--dry-run` shows them (and every run, first).
fn write_steps(out: &mut dyn Write, jobset: &JobSet, journal: &Journal, jobs: &[ChildJob]) -> Result<()> {
    let name = jobset.name();
    let changed = plan::changed_templates(&journal.jobset, &journal.templates);
    let mut job_names: Vec<&str> = jobs.iter().map(ChildJob::name).collect();
    job_names.sort_unstable();
    writeln!(out, "handover of {}/{name} (uid {}), in steps:", jobset.namespace(), jobset.uid())?;
    writeln!(
        out,
        "  1. write the journal configmap/{} (the old object, the new templates, the progress)",
        journal::name(name)
    )?;
    writeln!(
        out,
        "  2. delete {RESOURCE_NAME}/{name} with propagationPolicy=Orphan (preconditions: uid {}, resourceVersion {}); \
         its Jobs keep running",
        jobset.uid(),
        jobset.metadata.resource_version.as_deref().unwrap_or_default()
    )?;
    writeln!(
        out,
        "  3. create {RESOURCE_NAME}/{name} with the new templates of {} (labels, annotations and the rest of the spec kept)",
        if changed.is_empty() { "no replicatedJob".to_owned() } else { changed.join(", ") }
    )?;
    let mut adopt = vec![format!("{} Jobs ({})", job_names.len(), job_names.join(", "))];
    if let Some(svc) = &journal.progress.service {
        adopt.push(format!("service/{}", svc.name));
    }
    adopt.push(format!("{} controllerrevisions (history)", journal.progress.revisions.len()));
    writeln!(out, "  4. adopt {} (guarded JSON patches of ownerReferences)", adopt.join(", "))?;
    let status = &journal.jobset["status"];
    let mut counters = format!(
        "restarts={}, restartsCountTowardsMax={}",
        status["restarts"].as_i64().unwrap_or(0),
        status["restartsCountTowardsMax"].as_i64().unwrap_or(0)
    );
    if status["replicatedJobsStatus"]
        .as_array()
        .is_some_and(|r| r.iter().any(|r| r.get("jobRestarts").is_some()))
    {
        counters.push_str(", per-Job restart counts");
    }
    writeln!(out, "  5. restore status: {counters}")?;
    writeln!(out, "  6. remove the journal")?;
    Ok(())
}

/// Runs the steps from wherever the cluster shows the handover to be.
async fn drive(
    cluster: &Cluster,
    mut journal: Journal,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Outcome> {
    let (ns, name) = (journal.namespace().to_owned(), journal.jobset_name().to_owned());
    let old_uid = journal.progress.old_uid.clone();
    let stopped = |step: Step, source: Error| Error::HandoverStopped {
        what: format!("{RESOURCE_NAME}/{name}"),
        step: step.name(),
        journal: journal::name(&name),
        source: Box::new(source),
    };
    for _ in 0..10 {
        let live = cluster.get_jobset_opt(&ns, &name).await.map_err(|e| stopped(Step::Delete, e))?;
        let from = live
            .as_ref()
            .and_then(|l| l.metadata.annotations.as_ref()?.get(plan::FROM_UID_ANNOTATION).cloned());
        let seen = live.as_ref().map(|l| (l.uid(), from.as_deref(), l.metadata.deletion_timestamp.is_some()));
        match plan::stage(&old_uid, seen) {
            Stage::Delete => {
                let live = live.expect("the Delete stage has a JobSet");
                if let Some(what) = plan::changed_since_journal(&journal.jobset, &live.object()) {
                    cluster
                        .delete_configmap_if_unchanged(&ns, &journal::name(&name), &journal.resource_version)
                        .await?;
                    return Err(refused(
                        &name,
                        format!(
                            "its {what} changed since the handover began, so nothing was changed (journal removed); run the command again to review the new state"
                        ),
                    ));
                }
                let rv = live.metadata.resource_version.clone().unwrap_or_default();
                match cluster.delete_jobset_orphaning(&ns, &name, &old_uid, &rv).await {
                    Ok(()) => {}
                    Err(e) if matches!(write_failure(&e), WriteFailure::Precondition) => continue,
                    Err(Error::NotFound { .. }) => continue,
                    Err(e) => return Err(stopped(Step::Delete, e)),
                }
                writeln!(err, "deleted {RESOURCE_NAME}/{name} (uid {old_uid}), orphaning its Jobs")?;
                journal.progress.done.push(Step::Delete.name().into());
                save_progress(cluster, &mut journal).await;
                test_hook(Step::Delete, out, err)?;
            }
            Stage::WaitGone => {
                let gone = cluster
                    .wait_jobset_gone(&ns, &name, &old_uid, Duration::from_secs(60))
                    .await
                    .map_err(|e| stopped(Step::Delete, e))?;
                if !gone {
                    return Err(stopped(
                        Step::Delete,
                        Error::Wait(format!(
                            "the old JobSet (uid {old_uid}) is still being deleted after 60s (finalizers?)"
                        )),
                    ));
                }
            }
            Stage::Create => {
                // Read what to adopt before the create, so that the window in which the
                // controller sees the new JobSet without its Jobs is one round of patches.
                let targets = gather(cluster, &journal).await.map_err(|e| stopped(Step::Create, e))?;
                let object = plan::new_object(&journal.jobset, &journal.templates);
                let created = match cluster.create_jobset(&ns, &object).await {
                    Ok(created) => created,
                    Err(Error::Conflict { .. }) => continue, // AlreadyExists: judge again
                    Err(e) => return Err(stopped(Step::Create, e)),
                };
                let uid = created.uid().to_owned();
                writeln!(err, "created {RESOURCE_NAME}/{name} (uid {uid}) with the new templates")?;
                test_hook(Step::Create, out, err)?;
                return finish(cluster, &mut journal, &uid, targets, out, err)
                    .await
                    .map_err(|(s, e)| stopped(s, e));
            }
            Stage::Adopt(uid) => {
                let targets = gather(cluster, &journal).await.map_err(|e| stopped(Step::Adopt, e))?;
                return finish(cluster, &mut journal, &uid, targets, out, err)
                    .await
                    .map_err(|(s, e)| stopped(s, e));
            }
            Stage::Foreign(uid) => {
                return Err(stopped(
                    Step::Create,
                    Error::Wait(format!(
                        "{RESOURCE_NAME}/{name} now has uid {uid}, which this handover did not create; its Jobs (labelled \
                         jobset.sigs.k8s.io/jobset-uid={old_uid}) are left as they are"
                    )),
                ));
            }
        }
    }
    Err(stopped(Step::Delete, Error::Wait("the JobSet kept changing under the handover; try again".into())))
}

/// Adopt, restore, remove the journal: each step idempotent.
async fn finish(
    cluster: &Cluster,
    journal: &mut Journal,
    new_uid: &str,
    targets: Vec<Target>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::result::Result<Outcome, (Step, Error)> {
    let ns = journal.namespace().to_owned();
    let name = journal.jobset_name().to_owned();
    let io = |step: Step| move |e: std::io::Error| (step, Error::Io(e));
    let adopted = adopt_all(cluster, &ns, &name, &journal.progress.old_uid, new_uid, targets, err)
        .await
        .map_err(|e| (Step::Adopt, e))?;
    writeln!(err, "adopted {adopted} objects").map_err(io(Step::Adopt))?;
    test_hook(Step::Adopt, out, err).map_err(|e| (Step::Adopt, e))?;
    restore(cluster, &ns, &name, &journal.jobset["status"]).await.map_err(|e| (Step::Restore, e))?;
    test_hook(Step::Restore, out, err).map_err(|e| (Step::Restore, e))?;
    remove_journal(cluster, journal).await.map_err(|e| (Step::Finish, e))?;
    Ok(Outcome::Done { uid: new_uid.to_owned(), adopted })
}

/// One object to adopt, with its metadata as read.
#[derive(Debug, Clone)]
struct Target {
    kind: Kind,
    name: String,
    metadata: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Job,
    Service,
    Revision,
}

impl Kind {
    fn noun(self) -> &'static str {
        match self {
            Kind::Job => "job",
            Kind::Service => "service",
            Kind::Revision => "controllerrevision",
        }
    }

    /// The controller owns Jobs and the Service; history owns revisions plainly.
    fn controlled(self) -> bool {
        self != Kind::Revision
    }
}

/// Everything the old JobSet owned that still exists, with fresh metadata: its Jobs (the
/// ones the journal names by uid, and any the old JobSet still controls), the Service and
/// revisions the journal names (by uid). Never by the jobset-uid label: after an earlier
/// handover it names an object that no longer exists.
async fn gather(cluster: &Cluster, journal: &Journal) -> Result<Vec<Target>> {
    let ns = journal.namespace();
    let old_uid = &journal.progress.old_uid;
    let (job_selector, revision_selector) = if journal.progress.jobs.is_empty() {
        // A journal written before Jobs were named in it: its uid label is all there is.
        (format!("{}={old_uid}", labels::JOBSET_UID), format!("{JOBSET_LABEL}={}", journal.jobset_name()))
    } else {
        let by_name = format!("{}={}", labels::JOBSET_NAME, journal.jobset_name());
        (by_name, format!("{JOBSET_LABEL}={}", journal.jobset_name()))
    };
    let jobs = cluster.list_jobs(Some(ns), &job_selector, |j| j);
    let revisions = cluster.list_revisions(Some(ns), &revision_selector);
    let (jobs, revisions) = futures::try_join!(jobs, revisions)?;
    let named = |job: &ChildJob| {
        journal.progress.jobs.is_empty()
            || job.is_owned_by(old_uid)
            || journal.progress.jobs.iter().any(|o| Some(&o.uid) == job.metadata.uid.as_ref())
    };
    let mut targets: Vec<Target> = jobs
        .into_iter()
        .filter(|j| !j.is_deleting() && named(j))
        .map(|j| Target { kind: Kind::Job, name: j.name().to_owned(), metadata: to_json(&j.metadata) })
        .collect();
    if let Some(svc) = &journal.progress.service
        && let Some(found) = cluster.get_service(ns, &svc.name).await?
        && found.metadata.uid.as_deref() == Some(&svc.uid)
    {
        targets.push(Target {
            kind: Kind::Service,
            name: svc.name.clone(),
            metadata: to_json(&found.metadata),
        });
    }
    let wanted: Vec<&str> = journal.progress.revisions.iter().map(|r| r.uid.as_str()).collect();
    targets.extend(
        revisions.into_iter().filter(|r| r.metadata.uid.as_deref().is_some_and(|u| wanted.contains(&u))).map(
            |r| Target {
                kind: Kind::Revision,
                name: r.metadata.name.clone().unwrap_or_default(),
                metadata: to_json(&r.metadata),
            },
        ),
    );
    Ok(targets)
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// How many adoptions run at once.
const ADOPT_CONCURRENCY: usize = 32;

/// Adopts every target concurrently; returns how many were patched. Objects another
/// controller owns are named on `err` and left alone.
async fn adopt_all(
    cluster: &Cluster,
    ns: &str,
    name: &str,
    old_uid: &str,
    new_uid: &str,
    targets: Vec<Target>,
    err: &mut dyn Write,
) -> Result<usize> {
    let results: Vec<Result<Option<String>>> = futures::stream::iter(targets)
        .map(|t| adopt_one(cluster, ns, name, old_uid, new_uid, t))
        .buffer_unordered(ADOPT_CONCURRENCY)
        .collect()
        .await;
    let mut adopted = 0;
    for result in results {
        match result? {
            None => adopted += 1,
            Some(why) => writeln!(err, "warning: {why}")?,
        }
    }
    Ok(adopted)
}

/// Adopts one object: Ok(None) when it is (now) owned by the new JobSet, Ok(Some(why))
/// when it is left alone.
async fn adopt_one(
    cluster: &Cluster,
    ns: &str,
    name: &str,
    old_uid: &str,
    new_uid: &str,
    target: Target,
) -> Result<Option<String>> {
    let owner = plan::owner_reference(name, new_uid, target.kind.controlled());
    guarded(&cluster.log, &mut Adopt { cluster, ns, old_uid, owner, target }).await
}

/// One adoption's guarded patch of ownerReferences, planned from the metadata read last.
struct Adopt<'a> {
    cluster: &'a Cluster,
    ns: &'a str,
    old_uid: &'a str,
    owner: Value,
    target: Target,
}

/// What an adoption's metadata, as read last, calls for.
enum Planned {
    Patch(json_patch::Patch),
    /// Nothing to send: adopted already (None), or left alone, and why.
    Settled(Option<String>),
}

impl Adopt<'_> {
    fn planned(&self) -> Planned {
        let target = &self.target;
        match plan::adoption(&target.metadata, self.old_uid, &self.owner) {
            Adoption::Done => Planned::Settled(None),
            Adoption::Foreign(why) => {
                Planned::Settled(Some(format!("{}/{} not adopted: {why}", target.kind.noun(), target.name)))
            }
            Adoption::Patch(patch) => Planned::Patch(patch),
        }
    }
}

impl GuardedWrite for Adopt<'_> {
    type Output = Option<String>;

    fn what(&self) -> String {
        format!("the adoption of {}/{}", self.target.kind.noun(), self.target.name)
    }

    async fn send(&mut self) -> Result<Option<String>> {
        let patch = match self.planned() {
            Planned::Patch(patch) => patch,
            Planned::Settled(settled) => return Ok(settled),
        };
        let (ns, target) = (self.ns, &self.target);
        let sent = match target.kind {
            Kind::Job => self.cluster.patch_job(ns, &target.name, &patch).await.map(|_| ()),
            Kind::Service => self.cluster.patch_service(ns, &target.name, &patch).await.map(|_| ()),
            Kind::Revision => self.cluster.patch_revision(ns, &target.name, &patch).await.map(|_| ()),
        };
        match sent {
            Ok(()) => Ok(None),
            Err(Error::NotFound { .. }) => {
                Ok(Some(format!("{}/{} is gone", target.kind.noun(), target.name)))
            }
            Err(e) => Err(e),
        }
    }

    /// Changed meanwhile (or the answer was lost): read it again and judge afresh.
    async fn reread(&mut self, _: WriteFailure) -> Result<Verdict<Option<String>>> {
        let (cluster, ns, target) = (self.cluster, self.ns, &mut self.target);
        let fresh = match target.kind {
            Kind::Job => cluster.get_job(ns, &target.name).await?.map(|j| to_json(&j.metadata)),
            Kind::Service => cluster.get_service(ns, &target.name).await?.map(|s| to_json(&s.metadata)),
            Kind::Revision => cluster.get_revision(ns, &target.name).await?.map(|r| to_json(&r.metadata)),
        };
        match fresh {
            Some(m) if m["uid"] == target.metadata["uid"] => {
                target.metadata = m;
                Ok(match self.planned() {
                    Planned::Patch(_) => Verdict::SendAgain,
                    Planned::Settled(settled) => Verdict::Done(settled),
                })
            }
            _ => Ok(Verdict::Done(Some(format!(
                "{}/{} was replaced or removed meanwhile",
                target.kind.noun(),
                target.name
            )))),
        }
    }
}

/// Gives the new JobSet the old restart counters (guarded; idempotent).
async fn restore(cluster: &Cluster, ns: &str, name: &str, old_status: &Value) -> Result<()> {
    let new = cluster.get_jobset(ns, name).await?.object();
    guarded(&cluster.log, &mut Restore { cluster, ns, name, old_status, new }).await
}

/// The status restore, planned from the new JobSet as read last (the controller writes
/// its status too, which moves the resourceVersion the patch is guarded by).
struct Restore<'a> {
    cluster: &'a Cluster,
    ns: &'a str,
    name: &'a str,
    old_status: &'a Value,
    new: Value,
}

impl GuardedWrite for Restore<'_> {
    type Output = ();

    fn what(&self) -> String {
        format!("the status restore of {RESOURCE_NAME}/{}", self.name)
    }

    async fn send(&mut self) -> Result<()> {
        let Some(patch) = plan::restore_status(self.old_status, &self.new) else { return Ok(()) };
        self.cluster.patch_jobset(self.ns, self.name, Some("status"), &patch, false).await.map(|_| ())
    }

    /// Planned again from a fresh read: a restore that landed plans nothing.
    async fn reread(&mut self, _: WriteFailure) -> Result<Verdict<()>> {
        self.new = self.cluster.get_jobset(self.ns, self.name).await?.object();
        Ok(match plan::restore_status(self.old_status, &self.new) {
            Some(_) => Verdict::SendAgain,
            None => Verdict::Done(()),
        })
    }
}

/// Records the steps done so far in the journal (guarded). Best effort: a rerun judges
/// from the cluster, so a lost progress note costs nothing.
async fn save_progress(cluster: &Cluster, journal: &mut Journal) {
    let ns = journal.namespace().to_owned();
    if let Ok(stored) = cluster.replace_configmap(&ns, &journal.to_configmap()).await {
        journal.resource_version = stored.metadata.resource_version.unwrap_or_default();
    }
}

async fn remove_journal(cluster: &Cluster, journal: &Journal) -> Result<()> {
    let (ns, name) = (journal.namespace(), journal::name(journal.jobset_name()));
    match cluster.delete_configmap_if_unchanged(ns, &name, &journal.resource_version).await {
        Err(e) if write_failure(&e) == WriteFailure::Precondition => {
            // Our own progress note moved it (an answer lost on the way): remove it if it
            // is still this handover's.
            match read_journal(cluster, ns, journal.jobset_name()).await? {
                Some(j) if j.progress.old_uid == journal.progress.old_uid => {
                    cluster.delete_configmap_if_unchanged(ns, &name, &j.resource_version).await
                }
                _ => Ok(()),
            }
        }
        other => other,
    }
}

async fn read_journal(cluster: &Cluster, ns: &str, name: &str) -> Result<Option<Journal>> {
    let Some(stored) = cluster.get_configmap(ns, &journal::name(name)).await? else { return Ok(None) };
    Journal::from_configmap(&stored).map(Some).map_err(|why| {
        refused(
            name,
            format!("its handover journal cannot be read ({why}); inspect it, and delete it if it is stale"),
        )
    })
}

/// SelfSubjectAccessReviews for every permission the steps need, concurrently; the
/// missing ones are named.
async fn check_permissions(cluster: &Cluster, jobset: &JobSet, service: bool, kueue: bool) -> Result<()> {
    let needed = plan::needed_permissions(service, kueue);
    let answers = futures::future::try_join_all(
        needed.iter().map(|p| cluster.can_i(jobset.namespace(), p.verb, p.group, p.resource, p.subresource)),
    )
    .await?;
    let missing: Vec<String> =
        needed.iter().zip(answers).filter(|(_, allowed)| !allowed).map(|(p, _)| p.to_string()).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(refused(
        jobset.name(),
        format!(
            "the handover needs permissions you lack in namespace {}: {} (`kubectl jobset rbac handover` prints the role that grants them); \
             nothing was changed",
            jobset.namespace(),
            missing.join(", ")
        ),
    ))
}

fn controlled_by(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, uid: &str) -> bool {
    meta.owner_references
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|r| r.uid == uid && r.controller == Some(true))
}

fn refused(name: &str, why: String) -> Error {
    Error::Refused { what: format!("{RESOURCE_NAME}/{name}"), verb: "handed over", why }
}

/// The test-only hooks (see the module doc).
fn test_hook(step: Step, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    if std::env::var(TEST_CRASH_ENV).ok().as_deref() == Some(step.name()) {
        out.flush()?;
        writeln!(err, "test hook: exiting after step {}", step.name())?;
        err.flush()?;
        std::process::exit(TEST_CRASH_CODE);
    }
    if std::env::var(TEST_PAUSE_ENV).ok().as_deref() == Some(step.name()) {
        out.flush()?;
        writeln!(err, "paused after {}", step.name())?;
        err.flush()?;
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
    }
    Ok(())
}
