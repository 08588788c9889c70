//! Driving a staged fleet rollout (see `plan::rollout`): its journal (a ConfigMap), and
//! the driver that takes the planner's next step until the rollout completes, stops or
//! is paused. Run by `rollout start|resume|abort` in the foreground and by the recorder.
//! The driver reacts to watch events on the JobSets, their Jobs and the journal (never
//! polls), and writes every step's intent to the journal before it makes the step, so a
//! driver killed mid-step, or two at once, never make a step twice.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::{Value, json};

use super::{DryRun, Outcome, restart_one};
use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME, labels};
use crate::observe::fleet;
use crate::plan::restart::RestartOptions;
use crate::plan::rollout::{
    self, Action, Member, MemberState, Phase, RolloutSpec, RolloutState, SPEC_KEY, STATE_KEY, Seen, Step,
};
use crate::select::Selection;

/// How rollouts are named in messages (`rollout/NAME`).
pub const SUBJECT: &str = "rollout";

/// Which rollout to drive, and for whom (a command's flags, or the recorder's).
#[derive(Debug, Clone)]
pub struct Driver {
    pub name: Option<String>,
    /// Where its journal lives.
    pub namespace: String,
    /// Who asks (restart conditions, Events).
    pub requested_by: String,
    /// How long to drive (None: until done).
    pub timeout: Option<Duration>,
    /// `--history-limit`, for the history the driver records.
    pub history_limit: usize,
}

impl Driver {
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or_default()
    }

    /// The recorder's driver of rollout `name` in `namespace`.
    pub fn for_recorder(name: String, namespace: String, history_limit: usize) -> Driver {
        Driver {
            name: Some(name),
            namespace,
            requested_by: "the kubectl-jobset recorder".into(),
            timeout: None,
            history_limit,
        }
    }
}

/// The rollout a journal is for (namespace, name), if it is progressing or aborting: one
/// a driver should drive.
pub fn to_drive(configmap: &ConfigMap) -> Option<(String, String)> {
    let journal = Journal::parse(configmap.clone()).ok()?;
    matches!(journal.state.phase, Phase::Progressing | Phase::Aborting)
        .then(|| (configmap.metadata.namespace.clone().unwrap_or_default(), journal.name()))
}

/// The journal as read: its spec, state and resourceVersion.
pub struct Journal {
    pub spec: RolloutSpec,
    pub state: RolloutState,
    pub configmap: ConfigMap,
}

impl Journal {
    pub fn parse(configmap: ConfigMap) -> Result<Journal> {
        let name = configmap.metadata.name.clone().unwrap_or_default();
        let data = configmap.data.clone().unwrap_or_default();
        let field = |key: &str| -> Result<&String> {
            data.get(key)
                .ok_or_else(|| Error::Usage(format!("configmap {name} is no rollout journal (no {key})")))
        };
        let bad =
            |e: serde_json::Error| Error::Usage(format!("configmap {name} holds an unreadable rollout: {e}"));
        let spec = serde_json::from_str(field(SPEC_KEY)?).map_err(bad)?;
        let state = serde_json::from_str(field(STATE_KEY)?).map_err(bad)?;
        Ok(Journal { spec, state, configmap })
    }

    pub fn name(&self) -> String {
        self.configmap
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(rollout::LABEL))
            .cloned()
            .unwrap_or_default()
    }

    pub fn with_state(&self, state: &RolloutState) -> Result<ConfigMap> {
        let mut configmap = self.configmap.clone();
        let text = serde_json::to_string(state).map_err(Error::json_output)?;
        configmap.data.get_or_insert_with(BTreeMap::new).insert(STATE_KEY.into(), text);
        Ok(configmap)
    }

    /// Who holds a change for a later batch: `NAMESPACE/ROLLOUT`, as held revisions say.
    pub fn holder(&self) -> String {
        format!("{}/{}", self.configmap.metadata.namespace.as_deref().unwrap_or_default(), self.name())
    }

    /// Whether `staged` is a change this rollout holds.
    pub fn holds(&self, staged: &crate::plan::staged::Staged) -> bool {
        staged.held_for.as_deref() == Some(self.holder().as_str())
    }

    pub fn document(&self) -> Value {
        json!({
            "apiVersion": "kubectl-jobset.io/v1alpha1",
            "kind": "Rollout",
            "metadata": {
                "name": self.name(),
                "namespace": self.configmap.metadata.namespace,
                "creationTimestamp": self.configmap.metadata.creation_timestamp,
                "resourceVersion": self.configmap.metadata.resource_version,
            },
            "spec": self.spec,
            "status": self.state,
        })
    }
}

pub fn not_found(plan: &Driver) -> Error {
    Error::Usage(format!(
        "rollout {:?} not found in namespace {:?} (no configmap {}): `{}` lists them",
        plan.name(),
        plan.namespace,
        rollout::configmap_name(plan.name()),
        crate::hint::kubectl_jobset("rollout list", &plan.namespace)
    ))
}

pub async fn read(cluster: &Cluster, plan: &Driver) -> Result<Journal> {
    let configmap = cluster
        .get_configmap(&plan.namespace, &rollout::configmap_name(plan.name()))
        .await?
        .ok_or_else(|| not_found(plan))?;
    Journal::parse(configmap)
}

/// Writes the state `change` makes of the journal's, guarded by its resourceVersion;
/// a concurrent write is read again and `change` applied to it again.
pub async fn set_journal(
    cluster: &Cluster,
    plan: &Driver,
    out: &mut dyn Write,
    mut change: impl FnMut(&mut RolloutState) -> std::result::Result<(), String>,
) -> Result<()> {
    for _ in 0..crate::cluster::guarded::TRIES {
        let journal = read(cluster, plan).await?;
        let mut state = journal.state.clone();
        change(&mut state).map_err(|why| Error::Refused {
            what: format!("{SUBJECT}/{}", plan.name()),
            verb: "changed",
            why,
        })?;
        match cluster.replace_configmap(&plan.namespace, &journal.with_state(&state)?).await {
            Ok(_) => {
                writeln!(out, "{SUBJECT}/{} {}", plan.name(), state.phase.as_str().to_lowercase())?;
                return Ok(());
            }
            Err(e) if is_precondition_failure(&e) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::Refused {
        what: format!("{SUBJECT}/{}", plan.name()),
        verb: "changed",
        why: "its journal kept changing; run the command again".into(),
    })
}

pub async fn set_phase(
    cluster: &Cluster,
    plan: &Driver,
    out: &mut dyn Write,
    phase: impl Fn(&RolloutState) -> std::result::Result<Phase, String>,
) -> Result<()> {
    set_journal(cluster, plan, out, |state| {
        state.phase = phase(state)?;
        state.message = format!("{} by {}", state.phase.as_str().to_lowercase(), plan.requested_by);
        Ok(())
    })
    .await
}

/// What the driver reads each time: the journal and the members' JobSets and Jobs.
pub async fn look(cluster: &Cluster, plan: &Driver) -> Result<(Journal, fleet::Fleet)> {
    let journal = read(cluster, plan).await?;
    // With the revisions: the changes held for members, and `--to-revision`'s targets.
    let fleet = fleet::load_with_history(cluster, &scope(&journal.spec)).await?;
    if let Some(e) = fleet.history_error.as_ref().filter(|_| journal.spec.to_revision.is_some()) {
        return Err(Error::Usage(format!("the JobSets' history cannot be read for --to-revision: {e}")));
    }
    Ok((journal, fleet))
}

/// Every JobSet the rollout may touch, in one list (names are looked up among them).
fn scope(spec: &RolloutSpec) -> Selection {
    Selection {
        namespace: spec.namespace.clone(),
        names: Vec::new(),
        label_selector: spec.selector.clone(),
        field_selector: None,
    }
}

/// Drives the rollout until it completes, stops (failed, paused) or `--timeout`; each
/// step made is passed to `steps` (the recorder counts them).
pub async fn drive(
    cluster: &Cluster,
    plan: &Driver,
    out: &mut dyn Write,
    err: &mut dyn Write,
    steps: &mut dyn FnMut(StepOutcome),
) -> Result<ExitStatus> {
    let name = plan.name().to_owned();
    let journal = read(cluster, plan).await?;
    let mut changes = Box::pin(changes(cluster, &plan.namespace, &journal.spec, &name));
    let deadline = plan.timeout.map(|t| tokio::time::Instant::now() + t);
    let settings = rollout::settings(&journal.spec).map_err(Error::Usage)?;
    let mut last_state: Option<RolloutState> = None;
    let mut last_wait = String::new();
    loop {
        let (journal, mut fleet) = look(cluster, plan).await?;
        let revisions = revisions_numbered(&mut fleet, journal.spec.to_revision);
        report(out, &name, &journal.spec, last_state.as_ref(), &journal.state)?;
        last_state = Some(journal.state.clone());
        let ours = journal.holder();
        let seen: HashMap<&str, Seen<'_>> = fleet
            .jobsets
            .iter()
            .map(|js| {
                let admitted = fleet.kueue_of(js).is_some_and(|k| k.is_admitted());
                let revision = revisions.get(js.uid()).cloned();
                let staged = fleet.staged_of(js);
                let seen = Seen {
                    jobset: js,
                    jobs: fleet.jobs_of(js),
                    admitted,
                    revision,
                    held: staged.filter(|s| journal.holds(s)),
                    staged_elsewhere: staged.filter(|s| !journal.holds(s)),
                };
                (js.uid(), seen)
            })
            .collect();
        let now = jiff::Timestamp::now();
        let elapsed = |since: &str| {
            since
                .parse::<jiff::Timestamp>()
                .map(|t| now.duration_since(t).as_secs().max(0) as u64)
                .unwrap_or(0)
        };
        let step = rollout::next(&journal.spec, &settings, &journal.state, &seen, &now.to_string(), &elapsed);
        match step {
            Step::Journal(state) => {
                write_state(cluster, plan, &journal, &state).await?;
            }
            Step::Hold { state, hold, release } => {
                // Marked first: a hold is tried once (the batch plans again without it).
                if write_state(cluster, plan, &journal, &state).await?.is_none() {
                    continue;
                }
                let members = &state.members;
                let holds = hold.iter().filter_map(|(i, templates)| {
                    let seen = seen.get(members[*i].uid.as_str())?;
                    Some(hold_change(cluster, seen.jobset, templates, &journal.spec.cause, &ours))
                });
                let releases = release.iter().filter_map(|i| {
                    let held = seen.get(members[*i].uid.as_str())?.held?;
                    Some(release_held(cluster, &members[*i].namespace, held))
                });
                let held: Vec<Result<bool>> =
                    futures::stream::iter(holds).buffer_unordered(IN_FLIGHT).collect().await;
                let released: Vec<Result<()>> =
                    futures::stream::iter(releases).buffer_unordered(IN_FLIGHT).collect().await;
                released.into_iter().collect::<Result<Vec<()>>>()?;
                let count =
                    held.into_iter().collect::<Result<Vec<bool>>>()?.into_iter().filter(|m| *m).count();
                if count > 0 {
                    writeln!(
                        out,
                        "{SUBJECT}/{name}: holding the change for {count} JobSets of later batches"
                    )?;
                }
                steps(("hold", "done"));
            }
            Step::Act { state, index, action } => {
                // The intent first: if this write loses, someone else drives; look again.
                if write_state(cluster, plan, &journal, &state).await?.is_none() {
                    continue;
                }
                let member = &state.members[index];
                let Some(seen) = seen.get(member.uid.as_str()) else { continue };
                steps(act(cluster, plan, member, seen, action, err).await?);
            }
            Step::Wait { why, deadline_secs } => {
                if why != last_wait {
                    writeln!(out, "{SUBJECT}/{name}: {why}")?;
                    last_wait = why;
                }
                let until_gate = deadline_secs.map(|s| tokio::time::Instant::now() + Duration::from_secs(s));
                let wake = [until_gate, deadline].into_iter().flatten().min();
                wait_for_change(&mut changes, wake).await?;
                if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
                    return Err(Error::Usage(format!(
                        "rollout {name:?} still runs after --timeout; it is kept: `{}` goes on",
                        crate::hint::kubectl_jobset(&format!("rollout resume {name}"), &plan.namespace)
                    )));
                }
            }
            Step::Stop(why) => {
                writeln!(out, "{SUBJECT}/{name}: {why}")?;
                let member_failed =
                    journal.state.members.iter().any(|m| matches!(m.state, MemberState::Failed { .. }));
                return match journal.state.phase {
                    Phase::Failed => Err(Error::Refused {
                        what: format!("{SUBJECT}/{name}"),
                        verb: "completed",
                        why: journal.state.message.clone(),
                    }),
                    Phase::Completed if member_failed => Err(Error::Refused {
                        what: format!("{SUBJECT}/{name}"),
                        verb: "completed",
                        why: journal.state.message.clone(),
                    }),
                    _ => Ok(ExitStatus::Success),
                };
            }
        }
    }
}

/// Holds and releases made at once.
const IN_FLIGHT: usize = 8;

/// Creates the revision that holds `templates` for `jobset` until its batch; false when
/// one is there already (another driver made it, or a revision of that name is in the
/// way: the batch then plans the change again).
async fn hold_change(
    cluster: &Cluster,
    jobset: &JobSet,
    templates: &crate::history::Templates,
    cause: &str,
    rollout: &str,
) -> Result<bool> {
    let revision = crate::plan::staged::held_revision(jobset, templates, cause, rollout);
    match cluster.create_revision(jobset.namespace(), &revision).await {
        Ok(_) => Ok(true),
        Err(Error::Conflict { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes a held revision no member waits on (guarded by its resourceVersion: gone
/// already, or changed since it was read, is left to the next look).
async fn release_held(cluster: &Cluster, namespace: &str, held: &crate::plan::staged::Staged) -> Result<()> {
    match cluster.delete_revision_if_unchanged(namespace, &held.name, &held.resource_version).await {
        Ok(()) | Err(Error::NotFound { .. }) => Ok(()),
        Err(e) if is_precondition_failure(&e) => Ok(()),
        Err(e) => Err(e),
    }
}

/// With `--to-revision N`: each JobSet's revision N (its templates), by uid.
fn revisions_numbered(
    fleet: &mut fleet::Fleet,
    number: Option<i64>,
) -> HashMap<String, crate::history::Templates> {
    let Some(number) = number else { return HashMap::new() };
    let uids: Vec<String> = fleet.jobsets.iter().map(|js| js.uid().to_owned()).collect();
    uids.into_iter()
        .filter_map(|uid| {
            let revision =
                fleet.take_revisions_of(&uid).into_iter().flatten().find(|r| r.number == number)?;
            Some((uid, revision.templates.into_templates()))
        })
        .collect()
}

/// Writes `state` into the journal as read; None when someone else wrote first.
async fn write_state(
    cluster: &Cluster,
    plan: &Driver,
    journal: &Journal,
    state: &RolloutState,
) -> Result<Option<ConfigMap>> {
    match cluster.replace_configmap(&plan.namespace, &journal.with_state(state)?).await {
        Ok(written) => Ok(Some(written)),
        Err(e) if is_precondition_failure(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// What a step did: its action (`patch`, `restart`) and outcome (`done`, `already`:
/// someone else made it; `lost`: a race, left to the next look; `failed`).
pub type StepOutcome = (&'static str, &'static str);

/// Makes one member's step, as its intent (already in the journal) says. A step that
/// loses a race is left to the next look, which sees what happened.
async fn act(
    cluster: &Cluster,
    plan: &Driver,
    member: &Member,
    seen: &Seen<'_>,
    action: Action,
    err: &mut dyn Write,
) -> Result<StepOutcome> {
    let jobset = seen.jobset;
    let subject = format!("{RESOURCE_NAME}/{}", jobset.name());
    match action {
        Action::Patch { from, to, cause, then } => {
            if !rollout::same_but_kueue(&crate::history::templates_of(jobset), &from) {
                return Ok(("patch", "lost"));
            }
            let mut patch = crate::plan::staged::template_patch(jobset, &to);
            patch.0.push(crate::model::patch::add(
                crate::model::patch::pointer(&["metadata", "annotations", crate::history::CHANGE_CAUSE]),
                cause.clone(),
            ));
            if jobset.raw()["metadata"]["annotations"].is_null() {
                patch.0.insert(
                    1,
                    crate::model::patch::add(
                        crate::model::patch::pointer(&["metadata", "annotations"]),
                        json!({}),
                    ),
                );
            }
            // History first keeps the templates being replaced (as `set image` does).
            record(cluster, plan, jobset, None).await;
            match cluster.patch_jobset(jobset.namespace(), jobset.name(), None, &patch, false).await {
                Ok(patched) => {
                    record(cluster, plan, jobset, Some(&cause)).await;
                    if seen.admitted {
                        // Kueue stops it for the change; its restart waits for that stop.
                        let wanted =
                            JobSet::from_raw(patched).map_err(|e| Error::decode("the patched JobSet", e))?;
                        let version = wanted.metadata.resource_version.clone().unwrap_or_default();
                        crate::execute::kueue::after_admitted_change(cluster, &wanted, &version, err).await?;
                    }
                    settle(cluster, plan, member, then).await?;
                    let note = format!("{cause} (rollout {} in namespace {})", plan.name(), plan.namespace);
                    if let Err(e) = crate::cluster::events::publish_template_update(
                        cluster,
                        jobset,
                        ("RolloutStep", "Rollout"),
                        note,
                    )
                    .await
                    {
                        cluster.log.note(1, &format!("{subject}: no Event: {e}"));
                    }
                    Ok(("patch", "done"))
                }
                Err(e) if is_precondition_failure(&e) => Ok(("patch", "lost")),
                Err(e @ (Error::Forbidden { .. } | Error::Api { .. })) => {
                    writeln!(err, "{subject}: not changed: {e}")?;
                    mark_failed(cluster, plan, member, e.to_string()).await?;
                    Ok(("patch", "failed"))
                }
                Err(e) => Err(e),
            }
        }
        Action::Restart { from } => {
            let options = RestartOptions {
                expect_attempt: Some(from),
                after_change: true,
                reason: Some(format!("rollout {}", plan.name())),
                requested_by: plan.requested_by.clone(),
                ..Default::default()
            };
            let why = match restart_one(cluster, jobset, seen.jobs, &options, DryRun::None).await {
                Outcome::Restarted { .. } | Outcome::WouldRestart { .. } => return Ok(("restart", "done")),
                Outcome::AlreadyRestarted { .. } => return Ok(("restart", "already")),
                Outcome::Skipped(why) => why,
                Outcome::Failed(e @ (Error::Forbidden { .. } | Error::Refused { .. })) => e.to_string(),
                Outcome::Failed(e) => return Err(e),
            };
            mark_failed(cluster, plan, member, format!("not restarted: {why}")).await?;
            Ok(("restart", "failed"))
        }
    }
}

/// Records `jobset`'s history (unless a recorder runs), with `cause` on its spec's
/// revision; what goes wrong is said at -v (history is not the rollout's to fail on).
async fn record(cluster: &Cluster, plan: &Driver, jobset: &JobSet, cause: Option<&str>) {
    let options = crate::observe::RecordOptions {
        history_limit: plan.history_limit,
        cause: cause.map(|c| crate::history::Cause::Set(c.to_owned())),
        recorder: crate::observe::Recorder::Defer,
        write: true,
        numbers: crate::observe::NumberCheck::ReadBack,
    };
    let selection = Selection {
        namespace: Some(jobset.namespace().to_owned()),
        names: vec![jobset.name().to_owned()],
        label_selector: None,
        field_selector: None,
    };
    let mut notes = Vec::new();
    if let Err(e) = crate::observe::observe(cluster, &selection, Some(&options), &mut notes).await {
        cluster.log.note(1, &format!("{RESOURCE_NAME}/{}: history not recorded: {e}", jobset.name()));
    }
}

/// Writes the state a member's landed step leaves it in, if the journal still has the
/// step's intent (another driver may have written it first).
async fn settle(cluster: &Cluster, plan: &Driver, member: &Member, then: MemberState) -> Result<()> {
    let mut sink = Vec::new();
    set_journal(cluster, plan, &mut sink, |state| {
        if let Some(m) = state.members.iter_mut().find(|m| m.uid == member.uid)
            && matches!(m.state, MemberState::Changing | MemberState::RollingBack)
        {
            m.state = then.clone();
        }
        Ok(())
    })
    .await
}

/// A member whose step cannot be made: Failed, and the rollout stops.
async fn mark_failed(cluster: &Cluster, plan: &Driver, member: &Member, why: String) -> Result<()> {
    let mut sink = Vec::new();
    set_journal(cluster, plan, &mut sink, |state| {
        if let Some(m) = state.members.iter_mut().find(|m| m.uid == member.uid) {
            m.state = match m.state {
                // Its templates are back; only the restart after them did not happen.
                MemberState::RollbackRestarting { .. } => {
                    state.message = format!("{}/{} rolled back but {why}", member.namespace, member.name);
                    MemberState::RolledBack
                }
                _ => MemberState::Failed { why: why.clone() },
            };
        }
        if state.phase == Phase::Progressing {
            state.phase = Phase::Failed;
            state.message = format!("{}/{} {why}", member.namespace, member.name);
        }
        Ok(())
    })
    .await
}

/// Says what changed between two looks at the journal.
fn report(
    out: &mut dyn Write,
    name: &str,
    spec: &RolloutSpec,
    before: Option<&RolloutState>,
    now: &RolloutState,
) -> Result<()> {
    let Some(before) = before else { return Ok(()) };
    for member in &now.members {
        let old = before.members.iter().find(|m| m.uid == member.uid).map(|m| &m.state);
        if old != Some(&member.state) {
            let why = match &member.state {
                MemberState::Skipped { why } | MemberState::Failed { why } => format!(": {why}"),
                _ => String::new(),
            };
            writeln!(
                out,
                "{SUBJECT}/{name}: {RESOURCE_NAME}/{} ({}) {}{why}",
                member.name,
                member.namespace,
                member.state.word().to_lowercase()
            )?;
        }
    }
    if before.batch != now.batch || before.phase != now.phase {
        writeln!(
            out,
            "{SUBJECT}/{name}: {} at {}: {}",
            now.phase.as_str(),
            step_words(spec, now),
            now.message
        )?;
    }
    Ok(())
}

/// `batch 2 (3 of 4)`: the batch in progress, and which step of how many it is.
pub fn step_words(spec: &RolloutSpec, state: &RolloutState) -> String {
    let index = state.batch.min(state.batches.saturating_sub(1));
    format!("{} ({} of {})", rollout::batch_name(spec, index), index + 1, state.batches)
}

/// Any change to the rollout's JobSets, their Jobs or its journal, from three watches.
pub fn changes(
    cluster: &Cluster,
    namespace: &str,
    spec: &RolloutSpec,
    name: &str,
) -> impl Stream<Item = ()> + use<> {
    let (jobsets, jobs): (Api<JobSet>, Api<ChildJob>) = match &spec.namespace {
        Some(ns) => {
            (Api::namespaced(cluster.client.clone(), ns), Api::namespaced(cluster.client.clone(), ns))
        }
        None => (Api::all(cluster.client.clone()), Api::all(cluster.client.clone())),
    };
    let journals: Api<ConfigMap> = Api::namespaced(cluster.client.clone(), namespace);
    let mut jobset_config = watcher::Config::default();
    if let Some(selector) = &spec.selector {
        jobset_config = jobset_config.labels(selector);
    }
    let jobset_events = watcher(jobsets, jobset_config).default_backoff().map(|_| ());
    let job_events =
        watcher(jobs, watcher::Config::default().labels(labels::JOBSET_NAME)).default_backoff().map(|_| ());
    let journal_events = watcher(
        journals,
        watcher::Config::default().fields(&format!("metadata.name={}", rollout::configmap_name(name))),
    )
    .default_backoff()
    .map(|_| ());
    futures::stream::select(futures::stream::select(jobset_events, job_events), journal_events)
}

/// Waits for the next change (then a moment more, so a burst is one look), or `until`.
pub async fn wait_for_change(
    changes: &mut (impl Stream<Item = ()> + Unpin),
    until: Option<tokio::time::Instant>,
) -> Result<()> {
    let next = async {
        changes.next().await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        while let Some(Some(())) = futures::FutureExt::now_or_never(changes.next()) {}
    };
    match until {
        Some(until) => {
            let _ = tokio::time::timeout_at(until, next).await;
        }
        None => next.await,
    }
    Ok(())
}
