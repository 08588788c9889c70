//! What the update strategy asks for one JobSet now, without I/O: from the JobSet, its
//! Jobs, the drift the diff engine computed, the strategy in force and the mark of the
//! last restart the strategy made, either an action (restart, or report that a restart
//! did not bring the Jobs to the spec) or why nothing is done.
//!
//! "Once per spec revision" lives on the JobSet: the restart's status patch also writes
//! our own condition (`kubectl-jobset.io/UpdateStrategy`), whose message names the spec
//! revision (the hash of the templates, as the history names revisions) and the attempt it
//! started. The JobSet controller keeps conditions of types it does not know, and the bump
//! and the mark land in one patch, so a controller restart, a leader change or a kill -9
//! can neither lose the mark of a restart that happened nor leave a mark without one.

use serde_json::{Value, json};

use super::restart::{PolicyRestart, RestartOptions, restart_in_progress};
use crate::diff::{JobSetDrift, State};
use crate::history;
use crate::model::jobset::{ChildJob, JobSet};
use crate::model::strategy::{DefaultStrategy, Effective, UpdateStrategy, effective};

/// Our condition type: the last spec revision the strategy restarted for.
pub const CONDITION: &str = "kubectl-jobset.io/UpdateStrategy";
/// Its reasons: restarted a running JobSet (Immediate), restarted a queued one (either
/// strategy), and the Jobs of that restart still differ from the spec.
pub const REASON_RESTARTED: &str = "RestartedForSpecRevision";
pub const REASON_REFRESHED: &str = "RefreshedWhileQueued";
pub const REASON_DRIFT_PERSISTS: &str = "DriftPersists";
/// The `RestartingJobSet` condition's reasons (and the Events') for strategy restarts.
pub const RESTARTING_IMMEDIATE: &str = "UpdateStrategyImmediate";
pub const RESTARTING_QUEUED: &str = "UpdateStrategyQueuedRefresh";
/// The Event's reason when a restart did not bring the Jobs to the spec.
pub const STALLED_EVENT_REASON: &str = "UpdateStrategyStalled";

/// The spec revision a JobSet's templates make (the history's revision hash).
pub fn spec_revision(jobset: &JobSet) -> String {
    history::hash(&history::templates_of(jobset))
}

/// What our condition says: the revision restarted for, the attempt the restart started,
/// and whether that attempt was found still drifting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub revision: String,
    pub attempt: i32,
    pub stalled: bool,
}

/// `spec revision <hash>, attempt <n>: <words>`: the message's fixed head.
fn message(revision: &str, attempt: i32, words: &str) -> String {
    format!("spec revision {revision}, attempt {attempt}: {words}")
}

/// The mark our condition carries on this JobSet, if any (unreadable ones are ignored:
/// the worst they cause is one more restart).
pub fn mark_of(jobset: &JobSet) -> Option<Mark> {
    let condition = jobset.status.conditions.iter().find(|c| c.type_ == CONDITION)?;
    let text = condition.message.as_deref()?.strip_prefix("spec revision ")?;
    let (revision, rest) = text.split_once(", attempt ")?;
    let attempt = rest.split(':').next()?.parse().ok()?;
    let stalled = condition.reason.as_deref() == Some(REASON_DRIFT_PERSISTS);
    Some(Mark { revision: revision.to_owned(), attempt, stalled })
}

/// How a strategy restart is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestartKind {
    /// A running JobSet whose Jobs drift (Immediate).
    Immediate,
    /// A queued (suspended) JobSet whose Jobs are outdated: free, nothing runs.
    QueuedRefresh,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Restart (never counted towards maxRestarts), marking `revision`.
    Restart { kind: RestartKind, strategy: UpdateStrategy, revision: String, outdated: usize },
    /// The restart for `revision` (attempt `attempt`) left Jobs that still differ from the
    /// spec: say so once and wait for the next spec change.
    Stall { strategy: UpdateStrategy, revision: String, attempt: i32, outdated: usize },
}

/// Why nothing is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Idle {
    /// No annotation and no default: recorded only.
    RecordOnly,
    /// The annotation is not a strategy.
    Invalid(String),
    /// Never: templates cannot change, so there is nothing to apply.
    Never,
    /// Completed or failed: the controller recreates no Job.
    Finished,
    /// `spec.managedBy` names another controller.
    ManagedElsewhere(String),
    /// The Jobs could not be compared with the spec (e.g. the spec makes no valid Job).
    NotCompared(String),
    /// Jobs without a readable attempt label.
    Unlabelled,
    /// A restart is under way: it is waited for, never stacked.
    InProgress(String),
    /// Every Job runs the spec's templates.
    UpToDate,
    /// Opportunistic and running: the new templates come with the next restart.
    AtNextRestart,
    /// This revision's restart was made and found still drifting: until the spec changes.
    Stalled { revision: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Act(Action),
    Idle(Idle),
}

/// Decides what the strategy asks for `jobset` now. `drift` is the diff engine's
/// comparison of its current Jobs with the spec.
pub fn decide(jobset: &JobSet, jobs: &[ChildJob], drift: &JobSetDrift, strategy: &Effective) -> Decision {
    let strategy = match strategy {
        Effective::RecordOnly => return Decision::Idle(Idle::RecordOnly),
        Effective::Invalid(e) => return Decision::Idle(Idle::Invalid(e.to_string())),
        Effective::Annotated(s) | Effective::Defaulted(s) => *s,
    };
    if strategy == UpdateStrategy::Never {
        return Decision::Idle(Idle::Never);
    }
    match drift.state {
        State::Completed | State::Failed => return Decision::Idle(Idle::Finished),
        State::ManagedElsewhere => {
            let manager = jobset.managed_elsewhere().unwrap_or_default().to_owned();
            return Decision::Idle(Idle::ManagedElsewhere(manager));
        }
        State::Compared | State::Suspended => {}
    }
    if let Some(error) = &drift.error {
        return Decision::Idle(Idle::NotCompared(error.clone()));
    }
    if !drift.unlabelled_jobs.is_empty() {
        return Decision::Idle(Idle::Unlabelled);
    }
    if let Some(why) = restart_in_progress(jobset, jobs) {
        return Decision::Idle(Idle::InProgress(why));
    }
    let outdated = drift.outdated_jobs();
    if outdated == 0 {
        return Decision::Idle(Idle::UpToDate);
    }
    let revision = spec_revision(jobset);
    if let Some(mark) = mark_of(jobset).filter(|m| m.revision == revision) {
        if mark.attempt > jobset.attempt() {
            // Our mark is ahead of the status we read: a stale read; look again later.
            return Decision::Idle(Idle::InProgress(format!(
                "attempt {} was started for this spec revision; the JobSet read shows attempt {}",
                mark.attempt,
                jobset.attempt()
            )));
        }
        if mark.stalled {
            return Decision::Idle(Idle::Stalled { revision });
        }
        return Decision::Act(Action::Stall { strategy, revision, attempt: mark.attempt, outdated });
    }
    let kind = if drift.state == State::Suspended {
        RestartKind::QueuedRefresh
    } else if strategy == UpdateStrategy::Immediate {
        RestartKind::Immediate
    } else {
        return Decision::Idle(Idle::AtNextRestart);
    };
    Decision::Act(Action::Restart { kind, strategy, revision, outdated })
}

impl Idle {
    /// One line for logs, `status` and `diff`.
    pub fn words(&self) -> String {
        match self {
            Idle::RecordOnly => "no update strategy: history is recorded, nothing is restarted".to_owned(),
            Idle::Invalid(e) => format!("nothing is done: {e}"),
            Idle::Never => "Never: template changes are refused at admission".to_owned(),
            Idle::Finished => "finished: the controller recreates no Job".to_owned(),
            Idle::ManagedElsewhere(manager) => format!("managed by {manager:?}: not restarted here"),
            Idle::NotCompared(e) => {
                format!("not restarted: its Jobs could not be compared with the spec ({e})")
            }
            Idle::Unlabelled => "not restarted: some Jobs carry no restart-attempt label".to_owned(),
            Idle::InProgress(why) => format!("a restart is in progress ({why}); waiting for it"),
            Idle::UpToDate => "every Job runs the spec's templates".to_owned(),
            Idle::AtNextRestart => "applies at the next restart (Opportunistic)".to_owned(),
            Idle::Stalled { revision } => format!(
                "restarted once for spec revision {revision}, and the new Jobs still differ from the spec \
                 (a mutating webhook or a rewritten field?); not restarting again until the spec changes"
            ),
        }
    }
}

impl Action {
    pub fn strategy(&self) -> UpdateStrategy {
        match self {
            Action::Restart { strategy, .. } | Action::Stall { strategy, .. } => *strategy,
        }
    }

    /// The metric's `action` label.
    pub fn label(&self) -> &'static str {
        match self {
            Action::Restart { kind: RestartKind::Immediate, .. } => "restart",
            Action::Restart { kind: RestartKind::QueuedRefresh, .. } => "queued_refresh",
            Action::Stall { .. } => "stall",
        }
    }
}

/// The restart's options: uncounted, with our reasons and the mark, for attempt `to`.
pub fn restart_options(
    jobset: &JobSet,
    kind: RestartKind,
    strategy: UpdateStrategy,
    revision: &str,
    outdated: usize,
    now: &str,
) -> RestartOptions {
    let to = jobset.attempt() + 1;
    let (reason, restarting, words) = match kind {
        RestartKind::Immediate => (
            REASON_RESTARTED,
            RESTARTING_IMMEDIATE,
            format!("{outdated} Job(s) ran an outdated template; restarted on the spec (Immediate)"),
        ),
        RestartKind::QueuedRefresh => (
            REASON_REFRESHED,
            RESTARTING_QUEUED,
            format!(
                "{outdated} Job(s) of the queued JobSet had an outdated template; recreated while suspended, \
                 so it resumes on the spec ({strategy}; free, not counted)"
            ),
        ),
    };
    let condition = condition(jobset, "True", reason, &message(revision, to, &words), now);
    RestartOptions {
        count_towards_max: false,
        requested_by: format!("the update strategy {strategy}"),
        reason: Some(format!("spec revision {revision}: {words}")),
        policy: Some(PolicyRestart { reason: restarting, condition }),
        ..RestartOptions::default()
    }
}

/// The condition after a restart for `revision` left Jobs that still differ.
pub fn stalled_condition(jobset: &JobSet, revision: &str, attempt: i32, outdated: usize, now: &str) -> Value {
    let words = format!(
        "{outdated} Job(s) of the attempt restarted for this revision still differ from the spec; not restarting \
         again until the spec changes"
    );
    condition(jobset, "False", REASON_DRIFT_PERSISTS, &message(revision, attempt, &words), now)
}

fn condition(jobset: &JobSet, status: &str, reason: &str, message: &str, now: &str) -> Value {
    let mut c = json!({"type": CONDITION, "status": status, "reason": reason, "message": message,
        "lastTransitionTime": now});
    if let Some(generation) = jobset.metadata.generation {
        c["observedGeneration"] = json!(generation);
    }
    c
}

/// What `diff`, `status`, `set image` and `rollback` say happens next to a JobSet whose
/// templates differ (or are about to) from its Jobs', under `strategy`; `enforced`: a
/// running recorder enforces update strategies for it.
pub fn next_step(strategy: &Effective, state: State, enforced: bool) -> String {
    let Some(strategy) = strategy.strategy() else {
        return match strategy {
            Effective::Invalid(e) => format!("nothing is applied: {e}"),
            _ => "applies at the next restart (no update strategy: nothing restarts it for the change)"
                .to_owned(),
        };
    };
    match (strategy, state) {
        (UpdateStrategy::Never, _) => "refused: Never".to_owned(),
        (_, State::Completed | State::Failed) => "never applied: the JobSet has finished".to_owned(),
        (_, State::ManagedElsewhere) => "applies as its managing controller decides".to_owned(),
        // The next restart brings it, whether or not a recorder runs.
        (UpdateStrategy::Opportunistic, State::Compared) => {
            "applies at the next restart (Opportunistic)".to_owned()
        }
        (_, _) if !enforced => format!(
            "applies at the next restart ({strategy}, but no running recorder enforces update strategies for this \
             JobSet)"
        ),
        (_, State::Suspended) => {
            format!("refreshed while queued ({strategy}): it resumes on the new template")
        }
        (UpdateStrategy::Immediate, State::Compared) => "restarting now (Immediate)".to_owned(),
    }
}

/// The guarded JSON patch that sets the annotation to `strategy`, or None when it already
/// says so. Guarded by the value read (a `test` op), or by the resourceVersion when the
/// annotation is absent (a test op cannot test for absence).
pub fn annotation_patch(jobset: &JobSet, strategy: UpdateStrategy) -> Option<json_patch::Patch> {
    use crate::model::patch::{add, pointer, replace, test, test_resource_version};
    use crate::model::strategy::ANNOTATION;
    let annotations = jobset.metadata.annotations.as_ref();
    let current = annotations.and_then(|a| a.get(ANNOTATION));
    if current.map(String::as_str) == Some(strategy.as_str()) {
        return None;
    }
    let ops = match (annotations, current) {
        (_, Some(old)) => vec![
            test(pointer(&["metadata", "annotations", ANNOTATION]), old.as_str()),
            replace(pointer(&["metadata", "annotations", ANNOTATION]), strategy.as_str()),
        ],
        (Some(_), None) => vec![
            test_resource_version(jobset.metadata.resource_version.clone()),
            add(pointer(&["metadata", "annotations", ANNOTATION]), strategy.as_str()),
        ],
        (None, None) => vec![
            test_resource_version(jobset.metadata.resource_version.clone()),
            add(pointer(&["metadata", "annotations"]), json!({ANNOTATION: strategy.as_str()})),
        ],
    };
    Some(json_patch::Patch(ops))
}

/// What a strategy means for a JobSet from now on, in one line (after `set update-strategy`).
pub fn meaning(strategy: UpdateStrategy) -> &'static str {
    match strategy {
        UpdateStrategy::Never => "its templates can no longer change (refused at admission)",
        UpdateStrategy::Opportunistic => {
            "template changes apply at its next restart; while queued, the recorder refreshes its Jobs"
        }
        UpdateStrategy::Immediate => {
            "the recorder restarts it once per template change (not counted towards maxRestarts)"
        }
    }
}

/// Why a template change to this JobSet is refused before anything is sent: its
/// annotation says Never (the admission policy would refuse it too, where installed).
pub fn never_refusal(jobset: &JobSet) -> Option<String> {
    use crate::model::strategy::{ANNOTATION, annotated};
    (annotated(jobset) == Some(Ok(UpdateStrategy::Never))).then(|| {
        format!(
            "refused: Never (annotation {ANNOTATION}=Never): its templates cannot change; to allow it, \
             {} first",
            crate::hint::kubectl_jobset(
                &format!("set update-strategy {} Opportunistic", jobset.name()),
                jobset.namespace()
            )
        )
    })
}

/// What happens next after a template change, for a JobSet that carries the annotation
/// (None without one: the CLI does not know the recorder's default).
pub fn after_change_words(jobset: &JobSet, enforcer: Option<DefaultStrategy>) -> Option<String> {
    let strategy = shown(jobset, enforcer)?;
    Some(next_step(&strategy, crate::diff::state_of(jobset), enforcer.is_some()))
}

/// The strategy the CLI speaks of: the annotation's, or the running recorder's default
/// (`enforcer`: it enforces strategies for this JobSet, with this default); None when
/// neither applies (nothing to say).
fn shown(jobset: &JobSet, enforcer: Option<DefaultStrategy>) -> Option<Effective> {
    let strategy = effective(jobset, enforcer.unwrap_or_default());
    (strategy != Effective::RecordOnly).then_some(strategy)
}

/// Whether a running recorder (its Lease's `scope`) enforces update strategies for this
/// JobSet, and with which default.
pub fn enforcer(scope: Option<&crate::presence::Scope>, jobset: &JobSet) -> Option<DefaultStrategy> {
    scope.filter(|s| s.covers(jobset)).and_then(|s| s.strategies)
}

/// What `diff` and `status` say happens next to a JobSet whose Jobs drift (None when
/// nothing drifts, or no strategy applies to it).
pub fn drift_words(
    jobset: &JobSet,
    jobs: &[ChildJob],
    drift: &JobSetDrift,
    enforcer: Option<DefaultStrategy>,
) -> Option<String> {
    let strategy = shown(jobset, enforcer)?;
    let name = match &strategy {
        Effective::Defaulted(s) => format!("{s} (the recorder's default)"),
        other => other.strategy().map(|s| s.to_string()).unwrap_or_else(|| "(invalid)".into()),
    };
    let words = match decide(jobset, jobs, drift, &strategy) {
        Decision::Idle(Idle::UpToDate) => return None,
        Decision::Act(_) if enforcer.is_none() => next_step(&strategy, drift.state, false),
        Decision::Act(Action::Restart { kind: RestartKind::Immediate, .. }) => {
            "restarting now (Immediate)".to_owned()
        }
        Decision::Act(Action::Restart { kind: RestartKind::QueuedRefresh, strategy, .. }) => {
            format!("refreshed while queued ({strategy}): it resumes on the spec's templates")
        }
        Decision::Act(Action::Stall { revision, .. }) => Idle::Stalled { revision }.words(),
        Decision::Idle(Idle::Never) => "refused: Never (these Jobs predate the annotation)".to_owned(),
        Decision::Idle(idle) => idle.words(),
    };
    Some(format!("update strategy {name}: {words}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{DriftGroup, ReplicatedJobDrift};
    use crate::model::strategy::InvalidStrategy;
    use std::sync::Arc;

    const NOW: &str = "2026-12-02T07:00:00Z";

    fn jobset(attempt: i32, suspended: bool, conditions: Value) -> JobSet {
        JobSet::from_raw(json!({
            "metadata": {"name": "js", "namespace": "ns", "uid": "u1", "generation": 4,
                "annotations": {"kubectl-jobset.io/update-strategy": "Immediate"}},
            "spec": {"suspend": suspended, "replicatedJobs": [{"name": "w", "replicas": 2,
                "template": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "v2"}]}}}}}]},
            "status": {"restarts": attempt, "conditions": conditions}
        }))
        .unwrap()
    }

    fn job(name: &str, attempt: i32) -> ChildJob {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "ns",
                "labels": {"jobset.sigs.k8s.io/restart-attempt": attempt.to_string(),
                    "jobset.sigs.k8s.io/replicatedjob-name": "w",
                    "jobset.sigs.k8s.io/job-index": name.rsplit('-').next().unwrap()}},
            "spec": {"template": {"spec": {}}}
        }))
        .unwrap()
    }

    fn jobs(attempt: i32) -> Vec<ChildJob> {
        vec![job("js-w-0", attempt), job("js-w-1", attempt)]
    }

    fn drift(js: &JobSet, outdated: &[&str]) -> JobSetDrift {
        let groups = if outdated.is_empty() {
            Vec::new()
        } else {
            vec![DriftGroup {
                jobs: outdated.iter().map(|s| s.to_string()).collect(),
                changes: Vec::new(),
                live_template: Arc::default(),
            }]
        };
        JobSetDrift {
            namespace: "ns".into(),
            name: "js".into(),
            attempt: js.attempt(),
            state: crate::diff::state_of(js),
            replicated_jobs: vec![ReplicatedJobDrift {
                name: "w".into(),
                replicas: 2,
                jobs: vec!["js-w-0".into(), "js-w-1".into()],
                outdated: groups,
                scale: Vec::new(),
                not_created: Vec::new(),
                beyond_replicas: Vec::new(),
                in_spec: true,
                spec_template: Arc::default(),
            }],
            previous_attempt_jobs: Vec::new(),
            unlabelled_jobs: Vec::new(),
            manager: None,
            error: None,
            kueue: None,
            quota: Vec::new(),
            staged: None,
        }
    }

    fn immediate() -> Effective {
        Effective::Annotated(UpdateStrategy::Immediate)
    }

    fn opportunistic() -> Effective {
        Effective::Annotated(UpdateStrategy::Opportunistic)
    }

    /// The JobSet after our restart for its revision (our condition as the patch writes it).
    fn after_our_restart(attempt: i32, suspended: bool) -> JobSet {
        let before = jobset(attempt - 1, suspended, json!([]));
        let revision = spec_revision(&before);
        let opts =
            restart_options(&before, RestartKind::Immediate, UpdateStrategy::Immediate, &revision, 2, NOW);
        let condition = opts.policy.unwrap().condition;
        jobset(attempt, suspended, json!([condition]))
    }

    #[test]
    fn immediate_restarts_a_running_jobset_whose_jobs_drift() {
        let js = jobset(0, false, json!([]));
        let got = decide(&js, &jobs(0), &drift(&js, &["js-w-0", "js-w-1"]), &immediate());
        let revision = spec_revision(&js);
        assert_eq!(
            got,
            Decision::Act(Action::Restart {
                kind: RestartKind::Immediate,
                strategy: UpdateStrategy::Immediate,
                revision,
                outdated: 2
            })
        );
    }

    #[test]
    fn opportunistic_waits_for_the_next_restart_of_a_running_jobset() {
        let js = jobset(0, false, json!([]));
        let got = decide(&js, &jobs(0), &drift(&js, &["js-w-0"]), &opportunistic());
        assert_eq!(got, Decision::Idle(Idle::AtNextRestart));
        assert_eq!(Idle::AtNextRestart.words(), "applies at the next restart (Opportunistic)");
    }

    #[test]
    fn both_strategies_refresh_a_queued_jobset_while_it_is_suspended() {
        let js = jobset(3, true, json!([]));
        for strategy in [opportunistic(), immediate()] {
            let got = decide(&js, &jobs(3), &drift(&js, &["js-w-1"]), &strategy);
            let Decision::Act(Action::Restart { kind, outdated, .. }) = got else { panic!("{got:?}") };
            assert_eq!((kind, outdated), (RestartKind::QueuedRefresh, 1));
        }
    }

    #[test]
    fn nothing_is_done_when_the_jobs_run_the_spec() {
        let js = jobset(0, false, json!([]));
        assert_eq!(decide(&js, &jobs(0), &drift(&js, &[]), &immediate()), Decision::Idle(Idle::UpToDate));
    }

    #[test]
    fn record_only_never_and_invalid_do_nothing() {
        let js = jobset(0, false, json!([]));
        let d = drift(&js, &["js-w-0"]);
        assert_eq!(decide(&js, &jobs(0), &d, &Effective::RecordOnly), Decision::Idle(Idle::RecordOnly));
        let never = Effective::Defaulted(UpdateStrategy::Never);
        assert_eq!(decide(&js, &jobs(0), &d, &never), Decision::Idle(Idle::Never));
        let invalid = Effective::Invalid(InvalidStrategy { value: "now".into() });
        let Decision::Idle(Idle::Invalid(words)) = decide(&js, &jobs(0), &d, &invalid) else { panic!() };
        assert!(words.contains("\"now\""), "{words}");
    }

    #[test]
    fn the_default_strategy_acts_like_the_annotation() {
        let js = jobset(0, false, json!([]));
        let got =
            decide(&js, &jobs(0), &drift(&js, &["js-w-0"]), &Effective::Defaulted(UpdateStrategy::Immediate));
        assert!(
            matches!(got, Decision::Act(Action::Restart { kind: RestartKind::Immediate, .. })),
            "{got:?}"
        );
    }

    #[test]
    fn a_restart_in_progress_is_waited_for_not_stacked() {
        let js = jobset(2, false, json!([]));
        // Jobs of attempt 1 still exist.
        let got = decide(&js, &jobs(1), &drift(&js, &["js-w-0"]), &immediate());
        let Decision::Idle(Idle::InProgress(why)) = got else { panic!("{got:?}") };
        assert!(why.contains("earlier attempt"), "{why}");
        // Not all Jobs of the new attempt exist yet.
        let got = decide(&js, &jobs(2)[..1], &drift(&js, &["js-w-0"]), &immediate());
        assert!(matches!(got, Decision::Idle(Idle::InProgress(_))), "{got:?}");
    }

    #[test]
    fn exactly_one_restart_per_spec_revision_then_a_stall_then_silence() {
        // Our restart made attempt 1 for this revision, and its Jobs still drift.
        let js = after_our_restart(1, false);
        let mark = mark_of(&js).unwrap();
        assert_eq!((mark.attempt, mark.stalled), (1, false));
        let got = decide(&js, &jobs(1), &drift(&js, &["js-w-0"]), &immediate());
        let Decision::Act(Action::Stall { attempt, revision, .. }) = got else { panic!("{got:?}") };
        assert_eq!((attempt, revision.as_str()), (1, spec_revision(&js).as_str()));
        // Once the stall is recorded, nothing more for this revision.
        let stalled = stalled_condition(&js, &revision, 1, 1, NOW);
        let js = jobset(1, false, json!([stalled]));
        assert!(mark_of(&js).unwrap().stalled);
        let got = decide(&js, &jobs(1), &drift(&js, &["js-w-0"]), &immediate());
        assert_eq!(got, Decision::Idle(Idle::Stalled { revision }));
        // Even after a natural restart (attempt 2) that still drifts: never a loop.
        let js2 = JobSet::from_raw({
            let mut raw = js.object();
            raw["status"]["restarts"] = json!(2);
            raw
        })
        .unwrap();
        let got = decide(&js2, &jobs(2), &drift(&js2, &["js-w-1"]), &immediate());
        assert!(matches!(got, Decision::Idle(Idle::Stalled { .. })), "{got:?}");
    }

    #[test]
    fn a_new_spec_revision_gets_its_own_restart() {
        let js = after_our_restart(1, false);
        let mut raw = js.object();
        raw["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"] =
            json!("v3");
        let edited = JobSet::from_raw(raw).unwrap();
        let got = decide(&edited, &jobs(1), &drift(&edited, &["js-w-0"]), &immediate());
        let Decision::Act(Action::Restart { revision, .. }) = got else { panic!("{got:?}") };
        assert_ne!(revision, spec_revision(&js));
    }

    #[test]
    fn after_our_restart_up_to_date_jobs_need_nothing() {
        let js = after_our_restart(1, false);
        assert_eq!(decide(&js, &jobs(1), &drift(&js, &[]), &immediate()), Decision::Idle(Idle::UpToDate));
    }

    #[test]
    fn a_mark_ahead_of_the_status_read_is_a_stale_read() {
        let js = after_our_restart(1, false);
        let mut raw = js.object();
        raw["status"]["restarts"] = json!(0);
        let stale = JobSet::from_raw(raw).unwrap();
        let got = decide(&stale, &jobs(0), &drift(&stale, &["js-w-0"]), &immediate());
        assert!(matches!(got, Decision::Idle(Idle::InProgress(_))), "{got:?}");
    }

    #[test]
    fn finished_foreign_uncompared_and_unlabelled_jobsets_are_left_alone() {
        let js = jobset(
            0,
            false,
            json!([{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
            "message": "", "lastTransitionTime": NOW}]),
        );
        assert_eq!(
            decide(&js, &jobs(0), &drift(&js, &["js-w-0"]), &immediate()),
            Decision::Idle(Idle::Finished)
        );
        let mut raw = jobset(0, false, json!([])).object();
        raw["spec"]["managedBy"] = json!("kueue.x-k8s.io/multikueue");
        let foreign = JobSet::from_raw(raw).unwrap();
        let got = decide(&foreign, &jobs(0), &drift(&foreign, &["js-w-0"]), &immediate());
        assert_eq!(got, Decision::Idle(Idle::ManagedElsewhere("kueue.x-k8s.io/multikueue".into())));
        let js = jobset(0, false, json!([]));
        let mut d = drift(&js, &["js-w-0"]);
        d.error = Some("the API server rejects a Job".into());
        assert!(matches!(decide(&js, &jobs(0), &d, &immediate()), Decision::Idle(Idle::NotCompared(_))));
        let mut d = drift(&js, &["js-w-0"]);
        d.unlabelled_jobs = vec!["js-w-0".into()];
        assert_eq!(decide(&js, &jobs(0), &d, &immediate()), Decision::Idle(Idle::Unlabelled));
    }

    #[test]
    fn the_restart_is_uncounted_and_marks_the_revision_and_the_new_attempt() {
        let js = jobset(4, false, json!([]));
        let opts =
            restart_options(&js, RestartKind::Immediate, UpdateStrategy::Immediate, "abc1234567", 3, NOW);
        assert!(!opts.count_towards_max);
        assert_eq!(opts.requested_by, "the update strategy Immediate");
        let policy = opts.policy.as_ref().unwrap();
        assert_eq!(policy.reason, RESTARTING_IMMEDIATE);
        assert_eq!(policy.condition["type"], CONDITION);
        assert_eq!(policy.condition["reason"], REASON_RESTARTED);
        assert_eq!(policy.condition["observedGeneration"], 4);
        let marked = jobset(5, false, json!([policy.condition]));
        assert_eq!(
            mark_of(&marked),
            Some(Mark { revision: "abc1234567".into(), attempt: 5, stalled: false })
        );
        let queued =
            restart_options(&js, RestartKind::QueuedRefresh, UpdateStrategy::Opportunistic, "r", 1, NOW);
        assert_eq!(queued.policy.as_ref().unwrap().reason, RESTARTING_QUEUED);
        assert_eq!(queued.policy.unwrap().condition["reason"], REASON_REFRESHED);
    }

    #[test]
    fn the_restart_patch_carries_our_reason_and_our_condition_in_one_write() {
        let js = jobset(
            1,
            false,
            json!([{"type": "RestartingJobSet", "status": "False", "reason": "JobsReady",
            "message": "", "lastTransitionTime": NOW}]),
        );
        let opts =
            restart_options(&js, RestartKind::Immediate, UpdateStrategy::Immediate, "abc1234567", 2, NOW);
        let crate::plan::restart::Decision::Patch { ops, from, to } =
            crate::plan::restart::plan(&js, &jobs(1), &opts, NOW)
        else {
            panic!()
        };
        assert_eq!((from, to), (1, 2));
        let ops = serde_json::to_value(&ops).unwrap();
        let ops = ops.as_array().unwrap();
        assert!(
            ops.iter().any(|op| op["op"] == "test" && op["path"] == "/status/restarts" && op["value"] == 1)
        );
        let restarting =
            ops.iter().find(|op| op["path"] == "/status/conditions/0" && op["op"] == "replace").unwrap();
        assert_eq!(restarting["value"]["reason"], RESTARTING_IMMEDIATE);
        let ours = ops.iter().find(|op| op["path"] == "/status/conditions/-").unwrap();
        assert_eq!(ours["value"]["type"], CONDITION);
        assert!(!ops.iter().any(|op| op["path"] == "/status/restartsCountTowardsMax"), "never counted");
    }

    #[test]
    fn next_step_words() {
        let cases = [
            (opportunistic(), State::Compared, "applies at the next restart (Opportunistic)"),
            (immediate(), State::Compared, "restarting now (Immediate)"),
            (Effective::Annotated(UpdateStrategy::Never), State::Compared, "refused: Never"),
            (
                opportunistic(),
                State::Suspended,
                "refreshed while queued (Opportunistic): it resumes on the new template",
            ),
        ];
        for (strategy, state, words) in cases {
            assert_eq!(next_step(&strategy, state, true), words);
        }
        assert!(
            next_step(&Effective::RecordOnly, State::Compared, true)
                .starts_with("applies at the next restart")
        );
        assert_eq!(
            next_step(&immediate(), State::Compared, false),
            "applies at the next restart (Immediate, but no running recorder enforces update strategies for this JobSet)"
        );
        assert_eq!(
            next_step(&Effective::Annotated(UpdateStrategy::Never), State::Compared, false),
            "refused: Never"
        );
    }

    #[test]
    fn the_annotation_patch_is_guarded_by_what_was_read() {
        let js = jobset(0, false, json!([]));
        assert_eq!(annotation_patch(&js, UpdateStrategy::Immediate), None, "already Immediate");
        let ops = serde_json::to_value(annotation_patch(&js, UpdateStrategy::Never).unwrap()).unwrap();
        assert_eq!(
            ops,
            json!([
                {"op": "test", "path": "/metadata/annotations/kubectl-jobset.io~1update-strategy", "value": "Immediate"},
                {"op": "replace", "path": "/metadata/annotations/kubectl-jobset.io~1update-strategy", "value": "Never"}
            ])
        );
        let mut raw = js.object();
        raw["metadata"]["resourceVersion"] = json!("7");
        raw["metadata"]["annotations"] = json!({"other": "x"});
        let other = JobSet::from_raw(raw.clone()).unwrap();
        let ops =
            serde_json::to_value(annotation_patch(&other, UpdateStrategy::Opportunistic).unwrap()).unwrap();
        assert_eq!(ops[0], json!({"op": "test", "path": "/metadata/resourceVersion", "value": "7"}));
        assert_eq!(ops[1]["op"], "add");
        raw["metadata"].as_object_mut().unwrap().remove("annotations");
        let bare = JobSet::from_raw(raw).unwrap();
        let ops =
            serde_json::to_value(annotation_patch(&bare, UpdateStrategy::Opportunistic).unwrap()).unwrap();
        assert_eq!(
            ops[1],
            json!({"op": "add", "path": "/metadata/annotations",
            "value": {"kubectl-jobset.io/update-strategy": "Opportunistic"}})
        );
    }
    #[test]
    fn drift_words_say_what_happens_next_and_whether_a_recorder_enforces_it() {
        let on = Some(DefaultStrategy::RecordOnly);
        let js = jobset(0, false, json!([]));
        let d = drift(&js, &["js-w-0"]);
        assert_eq!(
            drift_words(&js, &jobs(0), &d, on).unwrap(),
            "update strategy Immediate: restarting now (Immediate)"
        );
        assert_eq!(
            drift_words(&js, &jobs(0), &d, None).unwrap(),
            "update strategy Immediate: applies at the next restart (Immediate, but no running recorder enforces \
             update strategies for this JobSet)"
        );
        assert_eq!(drift_words(&js, &jobs(0), &drift(&js, &[]), on), None, "nothing drifts");
        let mut raw = js.object();
        raw["metadata"]["annotations"] = json!({"kubectl-jobset.io/update-strategy": "Opportunistic"});
        let opp = JobSet::from_raw(raw.clone()).unwrap();
        assert_eq!(
            drift_words(&opp, &jobs(0), &d, on).unwrap(),
            "update strategy Opportunistic: applies at the next restart (Opportunistic)"
        );
        raw["metadata"]["annotations"] = json!({"kubectl-jobset.io/update-strategy": "Never"});
        let never = JobSet::from_raw(raw.clone()).unwrap();
        assert!(
            never_refusal(&never)
                .unwrap()
                .starts_with("refused: Never (annotation kubectl-jobset.io/update-strategy=Never)")
        );
        assert!(drift_words(&never, &jobs(0), &d, None).unwrap().contains("refused: Never"));
        raw["metadata"].as_object_mut().unwrap().remove("annotations");
        let plain = JobSet::from_raw(raw).unwrap();
        assert_eq!(drift_words(&plain, &jobs(0), &d, on), None, "record only: nothing to say");
        assert_eq!(drift_words(&plain, &jobs(0), &d, None), None);
        assert_eq!(
            drift_words(&plain, &jobs(0), &d, Some(DefaultStrategy::Strategy(UpdateStrategy::Immediate)))
                .unwrap(),
            "update strategy Immediate (the recorder's default): restarting now (Immediate)"
        );
        assert_eq!(after_change_words(&plain, on), None);
        assert_eq!(never_refusal(&plain), None);
        assert_eq!(after_change_words(&opp, on).unwrap(), "applies at the next restart (Opportunistic)");
    }

    #[test]
    fn a_recorder_enforces_only_for_the_jobsets_it_covers_and_only_when_it_says_so() {
        use crate::presence::Scope;
        let js = jobset(0, false, json!([]));
        let ours = Scope {
            namespaces: vec!["ns".into()],
            selector: None,
            strategies: Some(DefaultStrategy::RecordOnly),
        };
        assert_eq!(enforcer(Some(&ours), &js), Some(DefaultStrategy::RecordOnly));
        let elsewhere = Scope { namespaces: vec!["other".into()], ..ours.clone() };
        assert_eq!(enforcer(Some(&elsewhere), &js), None);
        let off = Scope { strategies: None, ..ours };
        assert_eq!(enforcer(Some(&off), &js), None);
        assert_eq!(enforcer(None, &js), None);
    }
}
