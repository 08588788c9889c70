//! Staged fleet rollouts, without I/O: one template change taken over a selection of
//! JobSets in steps (canaries, then batches), each behind a health gate, and the journal
//! that makes it survive the CLI's exit.
//!
//! The journal (a ConfigMap, `Journal`) holds the rollout's spec and every member's
//! state. Each step is written there *before* it is made (its intent: the templates a
//! member had, the attempt a restart starts from), and the step itself is guarded by
//! what the intent says (a `test` of the templates read, a `test` of `status.restarts`),
//! so whoever drives the rollout next (after a kill -9, or a second driver at once)
//! finishes the step or sees it made, and never makes it twice. `next` decides the next
//! step from the journal and the JobSets as read; the driver (`commands::rollout`) only
//! writes and sends what it says.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::history::{Templates, same_templates_in_order, templates_of};
use crate::model::jobset::{ChildJob, JobSet};
use crate::model::startup::{Goal, Standing, judge};
use crate::plan::set::Setting;
use crate::plan::staged::Staged;

/// Label on a rollout's journal ConfigMap (its value: the rollout's name).
pub const LABEL: &str = "kubectl-jobset.io/rollout";
/// The journal's ConfigMap name for rollout `name`.
pub fn configmap_name(name: &str) -> String {
    format!("kubectl-jobset-rollout-{name}")
}
/// ConfigMap keys.
pub const SPEC_KEY: &str = "spec.json";
pub const STATE_KEY: &str = "state.json";
/// The journal gets too big for a ConfigMap (1 MiB) well before this many members' old
/// templates; refused at start rather than failing halfway.
pub const MAX_JOURNAL_BYTES: usize = 900 * 1024;

/// What a rollout changes and how it goes, as given to `rollout start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutSpec {
    /// The change, as `set image` / `set env` words (parsed again by whoever drives).
    pub images: Vec<String>,
    pub env: Vec<String>,
    #[serde(default = "all_containers")]
    pub env_containers: String,
    /// Or: each JobSet's own history revision of this number (`--to-revision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_revision: Option<i64>,
    /// The scope: a namespace (None: every namespace), a selector, or names.
    pub namespace: Option<String>,
    pub selector: Option<String>,
    pub names: Vec<String>,
    /// Canaries: how many, or which (names, in the rollout's namespace).
    pub canary: usize,
    pub canary_names: Vec<String>,
    pub canary_restart: RestartMode,
    pub gate: Gate,
    pub batch_size: BatchSize,
    /// How batches after the canaries take the change.
    pub restart: RestartMode,
    /// JobSets restarting (restarted, not ready yet) at once, across the fleet.
    pub max_restarting: usize,
    /// The change cause written to each JobSet's template (history names the rollout).
    pub cause: String,
}

fn all_containers() -> String {
    "*".into()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RestartMode {
    /// Restart each JobSet once its spec has the change.
    Now,
    /// Canaries: wait for their natural restart. Batches: leave it to the JobSet's update
    /// strategy (the spec has the change; its next restart runs it).
    Natural,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Gate {
    /// Every Job of the new attempt ready, and no failure, for this long.
    Ready { seconds: u64 },
    /// The new attempt completes (for short jobs).
    Succeeded,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "value")]
pub enum BatchSize {
    Count(usize),
    Percent(u8),
}

/// Where the rollout stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Progressing,
    Paused,
    /// Rolling the changed JobSets back (then Aborted).
    Aborting,
    Aborted,
    /// A gate failed: it stopped; `abort` rolls back, `resume` tries the gate again.
    Failed,
    Completed,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Progressing => "Progressing",
            Phase::Paused => "Paused",
            Phase::Aborting => "Aborting",
            Phase::Aborted => "Aborted",
            Phase::Failed => "Failed",
            Phase::Completed => "Completed",
        }
    }

    /// Nothing more happens without someone asking.
    pub fn is_final(self) -> bool {
        matches!(self, Phase::Aborted | Phase::Completed)
    }
}

/// The journal's state part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutState {
    pub phase: Phase,
    /// Why it stands there (a failed gate, a skipped member, …).
    pub message: String,
    /// The batch in progress (0: the canaries).
    pub batch: usize,
    /// Batches in all (canaries included).
    pub batches: usize,
    /// When the batch in progress was first seen healthy (RFC 3339); reset when it is not.
    pub healthy_since: Option<String>,
    /// `abort --restart`: restart the rolled-back JobSets that were restarted.
    #[serde(default)]
    pub restart_on_abort: bool,
    pub members: Vec<Member>,
}

/// One JobSet of the rollout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub batch: usize,
    pub state: MemberState,
    /// Its templates before the change (kept for abort), and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Templates>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Templates>,
    /// The attempt its spec took the change at.
    #[serde(default)]
    pub changed_at_attempt: i32,
    /// The attempt the gate judges (ours, or the natural restart's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gated_attempt: Option<i32>,
    /// Whether we restarted it (abort restarts only those, with --restart).
    #[serde(default)]
    pub restarted: bool,
    /// Queued (suspended) when it took the change: its gate cannot wait for readiness
    /// (nothing runs until admission), so it passes once the new attempt exists.
    #[serde(default)]
    pub was_queued: bool,
    /// Its change was held for it (a staged revision no restart applies) while it waited
    /// for its batch: tried once; the batch plans the change again if that revision is
    /// gone or stale.
    #[serde(default)]
    pub held: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state")]
pub enum MemberState {
    /// Not reached yet.
    Pending,
    /// Left out, and why (update strategy Never, finished, managed elsewhere, …).
    Skipped {
        why: String,
    },
    /// Intent: its spec gets `after` (guarded by `before`).
    Changing,
    /// Its spec has the change.
    Changed,
    /// Intent: restart it from this attempt (guarded by a test of status.restarts).
    Restarting {
        from: i32,
    },
    /// Restarted (by us, or naturally for a natural canary): the gate judges `gated_attempt`.
    Restarted,
    /// Passed its batch's gate, or needs none (natural batches).
    Done,
    /// Its spec changed by someone else meanwhile, or its gate failed: why.
    Failed {
        why: String,
    },
    /// Deleted during the rollout.
    Deleted,
    /// Abort: its spec gets `before` back (guarded by `after`).
    RollingBack,
    /// Abort with --restart: restart it from this attempt after its rollback.
    RollbackRestarting {
        from: i32,
    },
    RolledBack,
}

impl MemberState {
    pub fn word(&self) -> &'static str {
        match self {
            MemberState::Pending => "Pending",
            MemberState::Skipped { .. } => "Skipped",
            MemberState::Changing => "Changing",
            MemberState::Changed => "Changed",
            MemberState::Restarting { .. } => "Restarting",
            MemberState::Restarted => "Restarted",
            MemberState::Done => "Done",
            MemberState::Failed { .. } => "Failed",
            MemberState::Deleted => "Deleted",
            MemberState::RollingBack => "RollingBack",
            MemberState::RollbackRestarting { .. } => "RollbackRestarting",
            MemberState::RolledBack => "RolledBack",
        }
    }

    /// Its spec holds (or is about to hold) the change.
    fn holds_change(&self) -> bool {
        matches!(
            self,
            MemberState::Changing
                | MemberState::Changed
                | MemberState::Restarting { .. }
                | MemberState::Restarted
                | MemberState::Done
                | MemberState::Failed { .. }
        )
    }
}

/// The change a rollout makes, parsed from its words.
pub fn settings(spec: &RolloutSpec) -> Result<Vec<Setting>, String> {
    let mut settings = Vec::new();
    if !spec.images.is_empty() {
        settings.push(Setting::Image(
            crate::plan::set_image::parse_image_args(&spec.images).map_err(|e| e.to_string())?,
        ));
    }
    if !spec.env.is_empty() {
        let target = crate::plan::template_change::Target::parse(&spec.env_containers)
            .ok_or_else(|| format!("invalid container {:?}", spec.env_containers))?;
        let vars = crate::plan::set_env::parse_env_args(&spec.env).map_err(|e| e.to_string())?;
        settings.push(Setting::Env(crate::plan::set_env::EnvChange { target, vars }));
    }
    match (settings.is_empty(), spec.to_revision) {
        (true, None) => {
            return Err(
                "a rollout needs a change: --image [REPLICATEDJOB/]CONTAINER=IMAGE, --env KEY=VALUE or --to-revision N"
                    .into(),
            );
        }
        (false, Some(_)) => {
            return Err("--to-revision is a change of its own: not with --image or --env".into());
        }
        _ => {}
    }
    Ok(settings)
}

/// The templates `jobset` has after every setting (one after the other), or why not.
pub fn changed_templates(jobset: &JobSet, settings: &[Setting]) -> Result<Templates, String> {
    let mut current = jobset.clone();
    for setting in settings {
        let change = setting.plan(&current).map_err(|e| e.to_string())?;
        let templates = change.templates_of(&current);
        current = crate::plan::staged::with_templates(&current, &templates);
    }
    Ok(templates_of(&current))
}

/// Why a JobSet is left out of a rollout, if it is: the states issue's list.
pub fn skip_reason(jobset: &JobSet, jobs: &[ChildJob]) -> Option<String> {
    if let Some(why) = crate::plan::strategy::never_refusal(jobset) {
        return Some(why);
    }
    if jobset.finished_as("Completed") || jobset.finished_as("Failed") {
        return Some("it has finished".into());
    }
    if let Some(manager) = jobset.managed_elsewhere() {
        return Some(format!("it is {}", crate::model::jobset::managed_elsewhere_words(manager)));
    }
    // Mid-restart: Jobs of an earlier attempt are still being torn down. (An attempt whose
    // Jobs are still being created is not: startupPolicy may hold them back for long.)
    let seen = Seen { jobset, jobs, admitted: false, revision: None, held: None, staged_elsewhere: None };
    earlier_attempt_jobs(&seen)
        .map(|old| format!("it is mid-restart: {old} of an earlier attempt still exist"))
}

/// Why a member is left out of the rollout, if it is: its state, or a change staged for it
/// by someone else.
fn left_out_reason(seen: &Seen<'_>) -> Option<String> {
    skip_reason(seen.jobset, seen.jobs).or_else(|| staged_elsewhere_reason(seen))
}

/// Why a member with a change staged by someone else is left out: the rollout would
/// change the spec under it.
fn staged_elsewhere_reason(seen: &Seen<'_>) -> Option<String> {
    let staged = seen.staged_elsewhere?;
    Some(match &staged.held_for {
        Some(rollout) => {
            format!("rollout {rollout} holds a change for it (controllerrevision {})", staged.name)
        }
        None => format!(
            "a change is staged for its next restart (controllerrevision {}): `restart` applies it, or delete \
             that revision to drop it",
            staged.name
        ),
    })
}

/// The templates a member's change gives it: the change held for it, when the spec is
/// still the one it was held on (the pending revision is what goes in), else planned on
/// the spec as read.
fn target_of(spec: &RolloutSpec, settings: &[Setting], seen: &Seen<'_>) -> Result<Templates, String> {
    let before = templates_of(seen.jobset);
    if let Some(held) = seen.held.filter(|h| h.base == crate::history::hash(&before)) {
        return Ok(held.templates.clone());
    }
    match spec.to_revision {
        Some(n) => seen
            .revision
            .clone()
            .ok_or_else(|| format!("it has no revision {n} (`history` lists its revisions)")),
        None => changed_templates(seen.jobset, settings),
    }
}

/// Holds the change for the members of later batches that wait (so the pending revision
/// is in the cluster, where `diff` and `status` show it, and no restart applies it), and
/// lets go of the held revisions no member waits on any more.
fn hold_step(
    spec: &RolloutSpec,
    settings: &[Setting],
    state: &RolloutState,
    seen: &HashMap<&str, Seen<'_>>,
) -> Option<Step> {
    let over = matches!(state.phase, Phase::Aborting | Phase::Aborted | Phase::Completed);
    let mut next = state.clone();
    let (mut hold, mut release) = (Vec::new(), Vec::new());
    for (i, member) in state.members.iter().enumerate() {
        let Some(seen) = seen.get(member.uid.as_str()) else { continue };
        let waiting = member.state == MemberState::Pending;
        if seen.held.is_some() && (over || !waiting) {
            release.push(i);
        }
        let later = member.batch > state.batch;
        if state.phase != Phase::Progressing || !waiting || !later || member.held || seen.held.is_some() {
            continue;
        }
        if left_out_reason(seen).is_some() {
            continue;
        }
        if let Ok(after) = target_of(spec, settings, seen)
            && !same_templates_in_order(&templates_of(seen.jobset), &after)
        {
            next.members[i].held = true;
            hold.push((i, after));
        }
    }
    (!hold.is_empty() || !release.is_empty()).then_some(Step::Hold { state: next, hold, release })
}

/// The Jobs of an earlier attempt still there (a restart in progress), by name.
fn earlier_attempt_jobs(seen: &Seen<'_>) -> Option<String> {
    let attempt = seen.jobset.attempt();
    let old: Vec<&str> =
        seen.jobs.iter().filter(|j| j.attempt().is_some_and(|a| a < attempt)).map(|j| j.name()).collect();
    (!old.is_empty()).then(|| old.join(", "))
}

/// The members and their batches, from the JobSets selected (each `(jobset, queued)`):
/// canaries first (those named, or the first running ones), then queued (suspended)
/// JobSets, whose restart is free, then the rest, by namespace and name.
pub fn assign_batches(spec: &RolloutSpec, jobsets: &[&JobSet]) -> (Vec<Member>, usize) {
    let mut order: Vec<&JobSet> = jobsets.to_vec();
    order.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
    let is_named_canary = |js: &JobSet| spec.canary_names.iter().any(|n| n == js.name());
    let canaries: Vec<&JobSet> = if spec.canary_names.is_empty() {
        // Running ones prove something; queued ones only if nothing runs.
        let mut by_running = order.clone();
        by_running.sort_by_key(|js| js.is_suspended());
        by_running.into_iter().take(spec.canary).collect()
    } else {
        order.iter().copied().filter(|js| is_named_canary(js)).collect()
    };
    let is_canary = |js: &JobSet| canaries.iter().any(|c| c.uid() == js.uid());
    let mut rest: Vec<&JobSet> = order.into_iter().filter(|js| !is_canary(js)).collect();
    rest.sort_by_key(|js| !js.is_suspended());
    let size = match spec.batch_size {
        BatchSize::Count(n) => n.max(1),
        BatchSize::Percent(p) => (rest.len() * usize::from(p)).div_ceil(100).max(1),
    };
    let first = usize::from(!canaries.is_empty());
    let member = |js: &JobSet, batch: usize| Member {
        namespace: js.namespace().to_owned(),
        name: js.name().to_owned(),
        uid: js.uid().to_owned(),
        batch,
        state: MemberState::Pending,
        before: None,
        after: None,
        changed_at_attempt: 0,
        gated_attempt: None,
        restarted: false,
        was_queued: false,
        held: false,
    };
    let mut members: Vec<Member> = canaries.iter().map(|js| member(js, 0)).collect();
    members.extend(rest.iter().enumerate().map(|(i, js)| member(js, first + i / size)));
    let batches = members.iter().map(|m| m.batch + 1).max().unwrap_or(0);
    // Without canaries, batch 0 is the first batch.
    (members, batches)
}

impl RolloutState {
    /// A rollout as `start` writes it: progressing at its first batch, every member pending.
    pub fn started(spec: &RolloutSpec, jobsets: &[&JobSet]) -> RolloutState {
        let (members, batches) = assign_batches(spec, jobsets);
        RolloutState {
            phase: Phase::Progressing,
            message: "started".into(),
            batch: 0,
            batches,
            healthy_since: None,
            restart_on_abort: false,
            members,
        }
    }
}

/// The next step of a rollout, given what was read.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Write this state (a decision that needs no other write), then look again.
    Journal(RolloutState),
    /// Write this state (the intent), then make member `index`'s step it names.
    Act { state: RolloutState, index: usize, action: Action },
    /// Write this state (the members it marks `held`), then stage the change, held for this
    /// rollout, for each member of `hold` (a staged revision no restart applies: its
    /// pending revision, out of the spec, which `diff` and `status` show), and remove the
    /// held revisions of `release` (their batch took the change, or the rollout is over).
    Hold { state: RolloutState, hold: Vec<(usize, Templates)>, release: Vec<usize> },
    /// Nothing to do until something changes, or until `deadline_secs` from now.
    Wait { why: String, deadline_secs: Option<u64> },
    /// Done (Completed or Aborted), or stopped (Paused, Failed).
    Stop(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Patch the spec from `from` (as read, guarded) to `to`; once it landed, the member's
    /// state is `then` (the driver writes it at once, so no later look has to guess).
    Patch { from: Templates, to: Templates, cause: String, then: MemberState },
    /// Restart from this attempt.
    Restart { from: i32 },
}

/// What the driver read of one member.
pub struct Seen<'a> {
    pub jobset: &'a JobSet,
    pub jobs: &'a [ChildJob],
    /// Kueue has admitted it: a change in place makes Kueue stop it, which the driver
    /// waits for before the restart (made while suspended, so the new attempt runs it).
    pub admitted: bool,
    /// With `--to-revision N`: the templates of its revision N, if it has one.
    pub revision: Option<Templates>,
    /// The change this rollout holds for it, if it holds one.
    pub held: Option<&'a Staged>,
    /// A change staged for it otherwise: for its next restart, or held by another rollout.
    pub staged_elsewhere: Option<&'a Staged>,
}

/// Decides the next step. `seen` maps a member's uid to what was read of it (absent:
/// deleted); `now` is RFC 3339, `elapsed_since` says how many seconds passed since one.
pub fn next(
    spec: &RolloutSpec,
    settings: &[Setting],
    state: &RolloutState,
    seen: &HashMap<&str, Seen<'_>>,
    now: &str,
    elapsed_since: &dyn Fn(&str) -> u64,
) -> Step {
    if let Some(step) = unfinished_step(spec, settings, state, seen) {
        return step;
    }
    if let Some(step) = hold_step(spec, settings, state, seen) {
        return step;
    }
    match state.phase {
        Phase::Completed => return Step::Stop("the rollout is complete".into()),
        Phase::Aborted => return Step::Stop("the rollout was aborted".into()),
        Phase::Paused => return Step::Stop("the rollout is paused: `rollout resume` goes on".into()),
        Phase::Failed => return Step::Stop(format!("the rollout stopped: {}", state.message)),
        Phase::Aborting => return abort_step(spec, state, seen),
        Phase::Progressing => {}
    }
    // Members deleted meanwhile are said, not an error.
    for (i, member) in state.members.iter().enumerate() {
        let gone = !seen.contains_key(member.uid.as_str());
        if gone && !matches!(member.state, MemberState::Deleted | MemberState::Skipped { .. }) {
            let mut next = state.clone();
            next.members[i].state = MemberState::Deleted;
            return Step::Journal(next);
        }
    }
    let batch = state.batch;
    let in_batch: Vec<usize> =
        (0..state.members.len()).filter(|&i| state.members[i].batch == batch).collect();
    let canary_batch = batch == 0 && state.members.iter().any(|m| m.batch == 0) && has_canaries(spec);
    let mode = if canary_batch { spec.canary_restart } else { spec.restart };
    // 1. Pending members of the batch take the change (or are skipped).
    for &i in &in_batch {
        let member = &state.members[i];
        let Some(seen) = seen.get(member.uid.as_str()) else { continue };
        if member.state != MemberState::Pending {
            continue;
        }
        let mut next = state.clone();
        if let Some(why) = left_out_reason(seen) {
            next.members[i].state = MemberState::Skipped { why };
            return Step::Journal(next);
        }
        let before = templates_of(seen.jobset);
        let target = target_of(spec, settings, seen);
        match target {
            Err(why) => {
                next.members[i].state = MemberState::Skipped { why };
                return Step::Journal(next);
            }
            Ok(after) if same_templates_in_order(&before, &after) => {
                // Already has it: nothing to change, nothing to restart for.
                next.members[i].state = MemberState::Done;
                return Step::Journal(next);
            }
            Ok(after) => {
                let m = &mut next.members[i];
                m.state = MemberState::Changing;
                m.before = Some(before.clone());
                m.after = Some(after.clone());
                m.changed_at_attempt = seen.jobset.attempt();
                m.was_queued = seen.jobset.is_suspended();
                let then = MemberState::Changed;
                let action = Action::Patch { from: before, to: after, cause: spec.cause.clone(), then };
                return Step::Act { state: next, index: i, action };
            }
        }
    }
    // 2. Changed members restart (now: up to max_restarting at once; natural: when the
    // controller restarts them).
    let restarting = state
        .members
        .iter()
        .filter(|m| match m.state {
            MemberState::Restarting { .. } => true,
            MemberState::Restarted => seen.get(m.uid.as_str()).is_some_and(|s| !is_ready(s, m, spec.gate)),
            _ => false,
        })
        .count();
    for &i in &in_batch {
        let member = &state.members[i];
        let Some(seen) = seen.get(member.uid.as_str()) else { continue };
        if member.state != MemberState::Changed {
            continue;
        }
        let mut next = state.clone();
        match mode {
            RestartMode::Natural if canary_batch => {
                if seen.jobset.attempt() > member.changed_at_attempt {
                    next.members[i].state = MemberState::Restarted;
                    next.members[i].gated_attempt = Some(seen.jobset.attempt());
                    return Step::Journal(next);
                }
            }
            RestartMode::Natural => {
                next.members[i].state = MemberState::Done;
                return Step::Journal(next);
            }
            RestartMode::Now if restarting < spec.max_restarting.max(1) => {
                let from = seen.jobset.attempt();
                next.members[i].state = MemberState::Restarting { from };
                next.members[i].restarted = true;
                return Step::Act { state: next, index: i, action: Action::Restart { from } };
            }
            RestartMode::Now => {}
        }
    }
    // 3. The gate, over the batch's restarted members.
    let mut waiting = Vec::new();
    let mut gated = 0;
    for &i in &in_batch {
        let member = &state.members[i];
        match &member.state {
            MemberState::Changed | MemberState::Changing | MemberState::Restarting { .. } => {
                waiting.push(format!("{}/{} {}", member.namespace, member.name, waiting_words(member, mode)));
            }
            MemberState::Restarted => {
                let Some(seen) = seen.get(member.uid.as_str()) else { continue };
                gated += 1;
                let attempt = member.gated_attempt.unwrap_or(member.changed_at_attempt + 1);
                match judge(seen.jobset, seen.jobs, attempt, Goal::Ready) {
                    Standing::Failed(message) => {
                        return fail(
                            spec,
                            state,
                            i,
                            format!("failed: {}", message.unwrap_or_else(|| "no reason given".into())),
                        );
                    }
                    Standing::Superseded(to) => {
                        return fail(
                            spec,
                            state,
                            i,
                            format!("restarted again (attempt {attempt} → {to}) during its gate"),
                        );
                    }
                    Standing::Completed => {}
                    Standing::Suspended if !member.was_queued => waiting.push(format!(
                        "{}/{} suspended (queued again by Kueue?), waits for admission",
                        member.namespace, member.name
                    )),
                    _ if spec.gate == Gate::Succeeded => waiting
                        .push(format!("{}/{} running, not succeeded yet", member.namespace, member.name)),
                    Standing::Done(_) | Standing::Suspended => {}
                    Standing::Pending(reached) => waiting.push(format!(
                        "{}/{} {} of {} jobs ready",
                        member.namespace, member.name, reached.done, reached.expected
                    )),
                }
            }
            _ => {}
        }
    }
    if !waiting.is_empty() {
        if state.healthy_since.is_some() {
            let mut next = state.clone();
            next.healthy_since = None;
            return Step::Journal(next);
        }
        return Step::Wait {
            why: format!("{}: waiting for {}", batch_name(spec, batch), waiting.join(", ")),
            deadline_secs: None,
        };
    }
    // Healthy: for how long?
    if let Gate::Ready { seconds } = spec.gate
        && gated > 0
    {
        match &state.healthy_since {
            None => {
                let mut next = state.clone();
                next.healthy_since = Some(now.to_owned());
                return Step::Journal(next);
            }
            Some(since) if elapsed_since(since) < seconds => {
                let left = seconds - elapsed_since(since);
                return Step::Wait {
                    why: format!("{}: healthy, its gate passes in {left}s", batch_name(spec, batch)),
                    deadline_secs: Some(left),
                };
            }
            Some(_) => {}
        }
    }
    // The gate passed: mark the batch done and go on.
    let mut next = state.clone();
    for &i in &in_batch {
        if next.members[i].state == MemberState::Restarted {
            next.members[i].state = MemberState::Done;
        }
    }
    next.healthy_since = None;
    if batch + 1 >= state.batches {
        next.phase = Phase::Completed;
        let failed: Vec<String> = next
            .members
            .iter()
            .filter(|m| matches!(m.state, MemberState::Failed { .. }))
            .map(|m| format!("{}/{}", m.namespace, m.name))
            .collect();
        next.message = match failed.is_empty() {
            true => "every batch passed its gate".into(),
            false => {
                format!("every batch passed its gate, but {} did not take the change", failed.join(", "))
            }
        };
    } else {
        next.batch = batch + 1;
        next.message = format!("{} passed its gate", batch_name(spec, batch));
    }
    Step::Journal(next)
}

pub fn has_canaries(spec: &RolloutSpec) -> bool {
    spec.canary > 0 || !spec.canary_names.is_empty()
}

/// How people name batch `index`: the canary batch, then batches counted from 1.
pub fn batch_name(spec: &RolloutSpec, index: usize) -> String {
    match (has_canaries(spec), index) {
        (true, 0) => "the canary batch".into(),
        (true, n) => format!("batch {n}"),
        (false, n) => format!("batch {}", n + 1),
    }
}

fn waiting_words(member: &Member, mode: RestartMode) -> &'static str {
    match (&member.state, mode) {
        (MemberState::Changed, RestartMode::Natural) => "waits for its natural restart",
        (MemberState::Changed, RestartMode::Now) => "waits for a restart slot (--max-restarting)",
        _ => "is being changed",
    }
}

fn is_ready(seen: &Seen<'_>, member: &Member, gate: Gate) -> bool {
    let attempt = member.gated_attempt.unwrap_or(member.changed_at_attempt + 1);
    match judge(seen.jobset, seen.jobs, attempt, Goal::Ready) {
        Standing::Suspended => member.was_queued,
        Standing::Done(_) | Standing::Completed => {
            gate != Gate::Succeeded || seen.jobset.finished_as("Completed")
        }
        _ => false,
    }
}

fn fail(spec: &RolloutSpec, state: &RolloutState, index: usize, why: String) -> Step {
    let mut next = state.clone();
    let member = &next.members[index];
    let batch = batch_name(spec, state.batch);
    next.message = format!("the gate of {batch} failed: {}/{} {why}", member.namespace, member.name);
    next.members[index].state = MemberState::Failed { why };
    next.phase = Phase::Failed;
    next.healthy_since = None;
    Step::Journal(next)
}

/// A step whose intent was written but which may not have been made (a driver stopped
/// in between): finish it first, whatever the phase.
fn unfinished_step(
    spec: &RolloutSpec,
    settings: &[Setting],
    state: &RolloutState,
    seen: &HashMap<&str, Seen<'_>>,
) -> Option<Step> {
    for (i, member) in state.members.iter().enumerate() {
        let Some(seen) = seen.get(member.uid.as_str()) else {
            if matches!(
                member.state,
                MemberState::Changing
                    | MemberState::Restarting { .. }
                    | MemberState::RollingBack
                    | MemberState::RollbackRestarting { .. }
            ) {
                let mut next = state.clone();
                next.members[i].state = MemberState::Deleted;
                return Some(Step::Journal(next));
            }
            continue;
        };
        let spec_now = templates_of(seen.jobset);
        let (before, after) =
            (member.before.clone().unwrap_or_default(), member.after.clone().unwrap_or_default());
        match member.state {
            MemberState::Changing => {
                let mut next = state.clone();
                // Applied: the spec is what the rollout wrote, or the change changes it no
                // more (whatever else moved in it meanwhile, such as Kueue's restore).
                // (A revision to go back to is no change to apply again: only `after` tells.)
                let applied = spec.to_revision.is_none()
                    && changed_templates(seen.jobset, settings).is_ok_and(|t| same_but_kueue(&t, &spec_now));
                if applied || same_but_kueue(&spec_now, &after) {
                    next.members[i].state = MemberState::Changed;
                    return Some(Step::Journal(next));
                }
                if !same_but_kueue(&spec_now, &before) {
                    next.members[i].state = MemberState::Failed {
                        why: "its templates were changed by someone else meanwhile".into(),
                    };
                    return Some(Step::Journal(next));
                }
                let to = keep_kueue_keys(&after, &spec_now);
                let then = MemberState::Changed;
                let action = Action::Patch { from: spec_now, to, cause: spec.cause.clone(), then };
                return Some(Step::Act { state: state.clone(), index: i, action });
            }
            MemberState::Restarting { from } | MemberState::RollbackRestarting { from } => {
                let mut next = state.clone();
                if seen.jobset.attempt() == from
                    && let Some(old) = crate::plan::restart::restart_in_progress(seen.jobset, seen.jobs)
                {
                    // The controller is still tearing an earlier attempt down or creating
                    // this one (its own restart after a failure): our restart waits for
                    // it (it would be refused now), and never stacks on it.
                    let why = format!(
                        "{}/{}: waits for its restart in progress ({old})",
                        member.namespace, member.name
                    );
                    return Some(Step::Wait { why, deadline_secs: None });
                }
                if seen.jobset.attempt() > from {
                    next.members[i].state = match member.state {
                        MemberState::Restarting { .. } => MemberState::Restarted,
                        _ => MemberState::RolledBack,
                    };
                    next.members[i].gated_attempt = Some(from + 1);
                    return Some(Step::Journal(next));
                }
                return Some(Step::Act { state: state.clone(), index: i, action: Action::Restart { from } });
            }
            MemberState::RollingBack => {
                let mut next = state.clone();
                if same_but_kueue(&spec_now, &before) {
                    if member.restarted && state.restart_on_abort {
                        let from = seen.jobset.attempt();
                        next.members[i].state = MemberState::RollbackRestarting { from };
                        return Some(Step::Act { state: next, index: i, action: Action::Restart { from } });
                    }
                    next.members[i].state = MemberState::RolledBack;
                    return Some(Step::Journal(next));
                }
                if !same_but_kueue(&spec_now, &after) {
                    next.members[i].state = MemberState::Failed {
                        why: "not rolled back: its templates were changed by someone else since the rollout changed \
                              them (their edit is kept)"
                            .into(),
                    };
                    return Some(Step::Journal(next));
                }
                let to = keep_kueue_keys(&before, &spec_now);
                let then = after_rollback(state, member, seen.jobset);
                let cause = format!("{} (aborted)", spec.cause);
                let action = Action::Patch { from: spec_now, to, cause, then };
                return Some(Step::Act { state: state.clone(), index: i, action });
            }
            _ => {}
        }
    }
    None
}

/// A member's state once its templates are back: restarted on them with `abort --restart`
/// if the rollout had restarted it.
fn after_rollback(state: &RolloutState, member: &Member, jobset: &JobSet) -> MemberState {
    match member.restarted && state.restart_on_abort {
        true => MemberState::RollbackRestarting { from: jobset.attempt() },
        false => MemberState::RolledBack,
    }
}

/// Abort: every member whose spec holds the change gets its templates back, newest
/// batch first; then the rollout is Aborted.
fn abort_step(spec: &RolloutSpec, state: &RolloutState, seen: &HashMap<&str, Seen<'_>>) -> Step {
    let mut order: Vec<usize> = (0..state.members.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(state.members[i].batch));
    for i in order {
        let member = &state.members[i];
        if !member.state.holds_change() || member.before.is_none() {
            continue;
        }
        // A member that failed because someone else changed it is not ours to put back.
        if let MemberState::Failed { why } = &member.state
            && why.contains("someone else")
        {
            continue;
        }
        let Some(seen) = seen.get(member.uid.as_str()) else { continue };
        let mut next = state.clone();
        next.members[i].state = MemberState::RollingBack;
        let (before, after) =
            (member.before.clone().unwrap_or_default(), member.after.clone().unwrap_or_default());
        let spec_now = templates_of(seen.jobset);
        if !same_but_kueue(&spec_now, &after) {
            // Never changed (or changed by someone else): handled as an unfinished step.
            return Step::Journal(next);
        }
        let to = keep_kueue_keys(&before, &spec_now);
        let then = after_rollback(state, member, seen.jobset);
        let action = Action::Patch { from: spec_now, to, cause: format!("{} (aborted)", spec.cause), then };
        return Step::Act { state: next, index: i, action };
    }
    let mut next = state.clone();
    next.phase = Phase::Aborted;
    next.message = "aborted: the changed JobSets have their templates back".into();
    Step::Journal(next)
}

/// Kueue writes its own labels and annotations (`kueue.x-k8s.io/…`: the workload, the
/// podset, the queues) into the pod templates of JobSets it admits, and changes them as
/// it stops and admits them again: they are Kueue's, not the rollout's, so templates are
/// compared without them, and a patch keeps the ones the spec holds now.
const KUEUE_PREFIX: &str = "kueue.x-k8s.io/";

fn kueue_free(templates: &Templates) -> Templates {
    let mut templates = templates.clone();
    for (_, template) in &mut templates {
        for_each_kueue_map(template, |map| map.retain(|k, _| !k.starts_with(KUEUE_PREFIX)));
    }
    templates
}

fn for_each_kueue_map(
    template: &mut serde_json::Value,
    mut f: impl FnMut(&mut serde_json::Map<String, serde_json::Value>),
) {
    for path in ["/metadata", "/spec/template/metadata"] {
        for key in ["labels", "annotations"] {
            if let Some(serde_json::Value::Object(map)) =
                template.pointer_mut(path).and_then(|m| m.get_mut(key))
            {
                f(map);
            }
        }
    }
}

/// The same templates, but for Kueue's own keys.
pub fn same_but_kueue(a: &Templates, b: &Templates) -> bool {
    same_templates_in_order(&kueue_free(a), &kueue_free(b))
}

/// `wanted` with the Kueue keys `current` holds instead of its own.
pub fn keep_kueue_keys(wanted: &Templates, current: &Templates) -> Templates {
    let mut result = kueue_free(wanted);
    for (name, template) in &mut result {
        let Some((_, now)) = current.iter().find(|(n, _)| n == name) else { continue };
        for (job_level, key) in
            [(true, "labels"), (true, "annotations"), (false, "labels"), (false, "annotations")]
        {
            let path =
                if job_level { format!("/metadata/{key}") } else { format!("/spec/template/metadata/{key}") };
            let theirs: serde_json::Map<String, serde_json::Value> = now
                .pointer(&path)
                .and_then(serde_json::Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter(|(k, _)| k.starts_with(KUEUE_PREFIX))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if theirs.is_empty() {
                continue;
            }
            let slot = match job_level {
                true => &mut template["metadata"][key],
                false => &mut template["spec"]["template"]["metadata"][key],
            };
            match slot.as_object_mut() {
                Some(map) => map.extend(theirs),
                None => *slot = serde_json::Value::Object(theirs),
            }
        }
    }
    result
}

#[cfg(test)]
mod tests;
