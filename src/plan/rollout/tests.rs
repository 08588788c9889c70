use std::collections::HashMap;

use serde_json::json;

use super::*;
use crate::testing;

fn spec(canary: usize, batch: usize) -> RolloutSpec {
    RolloutSpec {
        images: vec!["main=app:v2".into()],
        env: vec![],
        env_containers: "*".into(),
        to_revision: None,
        namespace: Some("ml".into()),
        selector: Some("team=a".into()),
        names: vec![],
        canary,
        canary_names: vec![],
        canary_restart: RestartMode::Now,
        gate: Gate::Ready { seconds: 60 },
        batch_size: BatchSize::Count(batch),
        restart: RestartMode::Now,
        max_restarting: 2,
        cause: "rollout r: set image main=app:v2".into(),
    }
}

fn js(name: &str, image: &str, attempt: i32) -> JobSet {
    testing::jobset(name)
        .namespace("ml")
        .uid(&format!("uid-{name}"))
        .replicated_job("w", 1, testing::pod_template(image))
        .restarts(attempt)
        .build()
}

fn ready_job(jobset: &str, attempt: i32) -> ChildJob {
    testing::job(&format!("{jobset}-w-0"))
        .attempt(attempt)
        .replicated_job("w")
        .index(0)
        .status(json!({"ready": 1}))
        .build()
}

struct World {
    jobsets: Vec<JobSet>,
    jobs: HashMap<String, Vec<ChildJob>>,
    /// The changes this rollout holds (staged revisions), by JobSet uid.
    held: HashMap<String, Staged>,
}

impl World {
    fn seen(&self) -> HashMap<&str, Seen<'_>> {
        self.jobsets
            .iter()
            .map(|js| {
                (
                    js.uid(),
                    Seen {
                        jobset: js,
                        jobs: self.jobs.get(js.name()).map(Vec::as_slice).unwrap_or(&[]),
                        admitted: false,
                        revision: None,
                        held: self.held.get(js.uid()),
                        staged_elsewhere: None,
                    },
                )
            })
            .collect()
    }

    /// The planner's step as it comes.
    fn step(&self, spec: &RolloutSpec, state: &RolloutState, elapsed: u64) -> Step {
        let settings = settings(spec).unwrap();
        next(spec, &settings, state, &self.seen(), "2026-12-02T10:00:00Z", &|_| elapsed)
    }

    /// The next step that is not a hold: holds and releases are made here, as a driver
    /// makes them, and planned on.
    fn next(&mut self, spec: &RolloutSpec, state: &RolloutState, elapsed: u64) -> Step {
        let mut state = state.clone();
        loop {
            match self.step(spec, &state, elapsed) {
                Step::Hold { state: marked, hold, release } => {
                    self.make(&marked, &hold, &release);
                    state = marked;
                }
                step => return step,
            }
        }
    }

    fn make(&mut self, state: &RolloutState, hold: &[(usize, Templates)], release: &[usize]) {
        for &i in release {
            self.held.remove(&state.members[i].uid);
        }
        for (i, templates) in hold {
            let jobset = self.jobsets.iter().find(|js| js.uid() == state.members[*i].uid).unwrap();
            let revision = crate::plan::staged::held_revision(jobset, templates, "rollout r", "ml/r");
            let held = crate::plan::staged::parse(&revision, jobset.uid()).unwrap();
            self.held.insert(jobset.uid().to_owned(), held);
        }
    }
}

#[test]
fn canaries_come_first_then_queued_jobsets_then_the_rest_in_batches() {
    let (a, b, c, d, e) = (
        js("a", "app:v1", 0),
        js("b", "app:v1", 0),
        js("c", "app:v1", 0),
        js("d", "app:v1", 0),
        js("e", "app:v1", 0),
    );
    let mut queued = js("q", "app:v1", 0);
    queued.edit_raw(|raw| raw["spec"]["suspend"] = json!(true));
    let queued = JobSet::from_raw(queued.object()).unwrap();
    let (members, batches) = assign_batches(&spec(1, 2), &[&e, &d, &queued, &c, &b, &a]);
    let order: Vec<(&str, usize)> = members.iter().map(|m| (m.name.as_str(), m.batch)).collect();
    assert_eq!(order, [("a", 0), ("q", 1), ("b", 1), ("c", 2), ("d", 2), ("e", 3)]);
    assert_eq!(batches, 4);
    // Named canaries; a percentage for the batches; no canaries: batch 0 is the first batch.
    let mut named = spec(0, 1);
    named.canary_names = vec!["d".into()];
    named.batch_size = BatchSize::Percent(50);
    let (members, batches) = assign_batches(&named, &[&a, &b, &c, &d]);
    let order: Vec<(&str, usize)> = members.iter().map(|m| (m.name.as_str(), m.batch)).collect();
    assert_eq!((order, batches), (vec![("d", 0), ("a", 1), ("b", 1), ("c", 2)], 3));
    let (members, batches) = assign_batches(&spec(0, 2), &[&a, &b, &c]);
    assert_eq!((members[0].batch, members[2].batch, batches), (0, 1, 2));
}

/// The whole path of one canary: intent with the old templates, the patch, the restart
/// intent, the gate's timer, and only then the next batch, which the canary's failure
/// would have stopped.
#[test]
fn a_canary_is_changed_restarted_and_gated_before_the_next_batch() {
    let spec = spec(1, 5);
    let mut world = World {
        jobsets: vec![js("a", "app:v1", 0), js("b", "app:v1", 0)],
        jobs: HashMap::new(),
        held: HashMap::new(),
    };
    world.jobs.insert("a".into(), vec![ready_job("a", 0)]);
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let state = RolloutState::started(&spec, &refs);

    // 1. The canary's intent: its templates before and after, then the patch.
    let step = world.next(&spec, &state, 0);
    let Step::Act { state, index: 0, action: Action::Patch { from, to, cause, .. } } = step else {
        panic!("the canary is changed first: {step:?}")
    };
    assert_eq!(state.members[0].state, MemberState::Changing);
    assert_eq!(from, templates_of(&world.jobsets[0]));
    assert_eq!(to, templates_of(&js("a", "app:v2", 0)));
    assert!(cause.contains("rollout r"));
    assert_eq!(state.members[1].state, MemberState::Pending, "the other batch is not touched");
    // Until the spec has it, the same patch again (a driver killed after the intent).
    assert!(matches!(world.next(&spec, &state, 0), Step::Act { index: 0, action: Action::Patch { .. }, .. }));

    // 2. The patch landed: Changed, then the restart intent from attempt 0.
    world.jobsets[0] = js("a", "app:v2", 0);
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(state.members[0].state, MemberState::Changed);
    let Step::Act { state, index: 0, action: Action::Restart { from: 0 } } = world.next(&spec, &state, 0)
    else {
        panic!("then restarted")
    };
    assert_eq!(state.members[0].state, MemberState::Restarting { from: 0 });
    // Not landed yet: the same guarded restart (never a second one: it tests attempt 0).
    assert!(matches!(world.next(&spec, &state, 0), Step::Act { action: Action::Restart { from: 0 }, .. }));

    // 3. Restarted: the gate waits for readiness, then for its time.
    world.jobsets[0] = js("a", "app:v2", 1);
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(
        (state.members[0].state.clone(), state.members[0].gated_attempt),
        (MemberState::Restarted, Some(1))
    );
    let Step::Wait { why, deadline_secs: None } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("0 of 1 jobs ready"), "{why}");
    world.jobs.insert("a".into(), vec![ready_job("a", 1)]);
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(state.healthy_since.as_deref(), Some("2026-12-02T10:00:00Z"));
    assert!(matches!(world.next(&spec, &state, 30), Step::Wait { deadline_secs: Some(30), .. }));

    // 4. Passed: the canary is done and batch 1 begins.
    let Step::Journal(state) = world.next(&spec, &state, 60) else { panic!() };
    assert_eq!((state.batch, state.members[0].state.clone()), (1, MemberState::Done));
    assert!(matches!(
        world.next(&spec, &state, 60),
        Step::Act { index: 1, action: Action::Patch { .. }, .. }
    ));
}

#[test]
fn a_failure_during_the_gate_stops_the_rollout_and_abort_puts_the_templates_back() {
    let spec = spec(1, 5);
    let mut world = World {
        jobsets: vec![js("a", "app:v2", 1), js("b", "app:v1", 0)],
        jobs: HashMap::new(),
        held: HashMap::new(),
    };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    let canary = &mut state.members[0];
    canary.state = MemberState::Restarted;
    canary.before = Some(templates_of(&js("a", "app:v1", 0)));
    canary.after = Some(templates_of(&js("a", "app:v2", 0)));
    canary.gated_attempt = Some(1);
    canary.restarted = true;
    // Its new attempt fails and the controller restarts it: the gate fails.
    world.jobsets[0] = js("a", "app:v2", 2);
    let Step::Journal(failed) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(failed.phase, Phase::Failed);
    assert!(
        failed.message.contains("the gate of the canary batch failed: ml/a restarted again (attempt 1 → 2)"),
        "{}",
        failed.message
    );
    assert!(matches!(world.next(&spec, &failed, 0), Step::Stop(_)), "it stays stopped");
    assert_eq!(failed.members[1].state, MemberState::Pending, "the rest never got the change");

    // Abort (with --restart): the canary's templates back, guarded by ours, then restarted.
    let mut aborting = failed.clone();
    aborting.phase = Phase::Aborting;
    aborting.restart_on_abort = true;
    let Step::Act { state, index: 0, action: Action::Patch { from, to, .. } } =
        world.next(&spec, &aborting, 0)
    else {
        panic!()
    };
    assert_eq!((from, to), (templates_of(&js("a", "app:v2", 0)), templates_of(&js("a", "app:v1", 0))));
    assert_eq!(state.members[0].state, MemberState::RollingBack);
    world.jobsets[0] = js("a", "app:v1", 2);
    let Step::Act { state, action: Action::Restart { from: 2 }, .. } = world.next(&spec, &state, 0) else {
        panic!()
    };
    world.jobsets[0] = js("a", "app:v1", 3);
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(state.members[0].state, MemberState::RolledBack);
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(state.phase, Phase::Aborted);
}

#[test]
fn someone_else_s_edit_is_never_overwritten() {
    let spec = spec(0, 5);
    let mut world = World { jobsets: vec![js("a", "app:v9", 0)], jobs: HashMap::new(), held: HashMap::new() };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::Changing;
    state.members[0].before = Some(templates_of(&js("a", "app:v1", 0)));
    state.members[0].after = Some(templates_of(&js("a", "app:v2", 0)));
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    let MemberState::Failed { why } = &state.members[0].state else { panic!("{state:?}") };
    assert!(why.contains("someone else"), "{why}");
    // And abort leaves it alone.
    let mut aborting = state.clone();
    aborting.phase = Phase::Aborting;
    let Step::Journal(done) = world.next(&spec, &aborting, 0) else { panic!() };
    assert_eq!(done.phase, Phase::Aborted);
}

#[test]
fn never_finished_and_deleted_jobsets_are_skipped_or_reported() {
    let spec = spec(0, 5);
    let mut never = js("n", "app:v1", 0);
    never.edit_raw(|raw| {
        raw["metadata"]["annotations"] = json!({crate::model::strategy::ANNOTATION: "Never"})
    });
    let never = JobSet::from_raw(never.object()).unwrap();
    let mut world =
        World { jobsets: vec![never, js("gone", "app:v1", 0)], jobs: HashMap::new(), held: HashMap::new() };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let state = RolloutState::started(&spec, &refs);
    world.jobsets.retain(|j| j.name() != "gone");
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(state.members[0].name, "gone");
    assert_eq!(state.members[0].state, MemberState::Deleted);
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    let MemberState::Skipped { why } = &state.members[1].state else { panic!("{state:?}") };
    assert!(why.contains("Never"), "{why}");
    let Step::Journal(state) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(state.phase, Phase::Completed, "nothing left to gate");
}

#[test]
fn no_more_than_max_restarting_restart_at_once() {
    let mut spec = spec(0, 5);
    spec.max_restarting = 1;
    let mut world = World {
        jobsets: vec![js("a", "app:v2", 1), js("b", "app:v2", 0)],
        jobs: HashMap::new(),
        held: HashMap::new(),
    };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::Restarted;
    state.members[0].gated_attempt = Some(1);
    state.members[1].state = MemberState::Changed;
    let Step::Wait { why, .. } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("b waits for a restart slot"), "{why}");
}

#[test]
fn the_journal_round_trips_through_json() {
    let spec = spec(1, 2);
    let a = js("a", "app:v1", 0);
    let state = RolloutState::started(&spec, &[&a]);
    let text = serde_json::to_string(&state).unwrap();
    assert_eq!(serde_json::from_str::<RolloutState>(&text).unwrap(), state);
    let text = serde_json::to_string(&spec).unwrap();
    assert_eq!(serde_json::from_str::<RolloutSpec>(&text).unwrap(), spec);
}

/// Under Kueue a changed admitted JobSet is stopped and queued again: its gate waits for
/// re-admission. One that was queued when it took the change passes once rebuilt.
#[test]
fn a_jobset_queued_again_waits_for_admission_and_one_queued_before_does_not() {
    let spec = spec(0, 5);
    let mut suspended = js("a", "app:v2", 1);
    suspended.edit_raw(|raw| raw["spec"]["suspend"] = json!(true));
    let suspended = JobSet::from_raw(suspended.object()).unwrap();
    let mut world = World { jobsets: vec![suspended], jobs: HashMap::new(), held: HashMap::new() };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::Restarted;
    state.members[0].gated_attempt = Some(1);
    let Step::Wait { why, .. } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("waits for admission"), "{why}");
    state.members[0].was_queued = true;
    let Step::Journal(next) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(next.healthy_since.as_deref(), Some("2026-12-02T10:00:00Z"), "healthy: its gate runs");
}

/// Kueue's own keys in the pod template (its workload, podset, queues) change as it stops
/// and admits a JobSet: they never make a template "changed by someone else", and a patch
/// keeps the ones the spec holds now.
#[test]
fn kueue_s_own_keys_are_not_a_change_and_are_kept_by_patches() {
    let with_keys = |image: &str, workload: &str| -> Templates {
        let mut template = testing::pod_template(image);
        template["spec"]["template"]["metadata"] = json!({"labels": {"kueue.x-k8s.io/podset": "w", "team": "a"}, "annotations": {"kueue.x-k8s.io/workload": workload}});
        vec![("w".to_owned(), template)]
    };
    assert!(same_but_kueue(&with_keys("app:v1", "wl-1"), &with_keys("app:v1", "wl-2")));
    assert!(!same_but_kueue(&with_keys("app:v1", "wl-1"), &with_keys("app:v2", "wl-1")));
    let kept = keep_kueue_keys(&with_keys("app:v1", "wl-old"), &with_keys("app:v2", "wl-now"));
    assert_eq!(kept, with_keys("app:v1", "wl-now"));
}

/// The controller's own restart (after a failure) still tearing an attempt down: our
/// restart waits for it instead of being refused (or stacked).
#[test]
fn a_restart_waits_for_the_controller_s_restart_in_progress() {
    let spec = spec(0, 5);
    let mut world = World { jobsets: vec![js("a", "app:v2", 2)], jobs: HashMap::new(), held: HashMap::new() };
    world.jobs.insert("a".into(), vec![ready_job("a", 1)]);
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::RollbackRestarting { from: 2 };
    let Step::Wait { why, .. } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("waits for its restart in progress (a-w-0 of an earlier attempt"), "{why}");
    world.jobs.insert("a".into(), vec![]);
    let Step::Wait { why, .. } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("still being created"), "{why}");
    world.jobs.insert("a".into(), vec![ready_job("a", 2)]);
    assert!(matches!(world.next(&spec, &state, 0), Step::Act { action: Action::Restart { from: 2 }, .. }));
}

/// `--canary-restart=natural`: the canary waits for its own restart (a failure elsewhere
/// in its life), then its new attempt is gated like a forced one.
#[test]
fn a_natural_canary_waits_for_its_own_restart() {
    let mut spec = spec(1, 5);
    spec.canary_restart = RestartMode::Natural;
    let mut world = World {
        jobsets: vec![js("a", "app:v2", 0), js("b", "app:v1", 0)],
        jobs: HashMap::new(),
        held: HashMap::new(),
    };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::Changed;
    let Step::Wait { why, .. } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("a waits for its natural restart"), "{why}");
    world.jobsets[0] = js("a", "app:v2", 1);
    let Step::Journal(next) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(
        (next.members[0].state.clone(), next.members[0].gated_attempt),
        (MemberState::Restarted, Some(1))
    );
    assert!(!next.members[0].restarted, "not ours: abort --restart leaves it");
}

/// `--restart=strategy`: a batch's specs take the change and nothing is restarted; with
/// nothing restarted there is nothing to gate, so the next batch follows.
#[test]
fn a_strategy_batch_changes_specs_only() {
    let mut spec = spec(0, 1);
    spec.restart = RestartMode::Natural;
    let mut world = World {
        jobsets: vec![js("a", "app:v2", 0), js("b", "app:v1", 0)],
        jobs: HashMap::new(),
        held: HashMap::new(),
    };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::Changed;
    let Step::Journal(next) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(next.members[0].state, MemberState::Done);
    let Step::Journal(next) = world.next(&spec, &next, 0) else { panic!() };
    assert_eq!(next.batch, 1, "no gate to wait for");
    assert!(matches!(world.next(&spec, &next, 0), Step::Act { index: 1, action: Action::Patch { .. }, .. }));
}

/// `--gate succeeded`: ready is not enough; the new attempt must complete.
#[test]
fn a_succeeded_gate_waits_for_completion() {
    let mut spec = spec(0, 5);
    spec.gate = Gate::Succeeded;
    let mut world = World { jobsets: vec![js("a", "app:v2", 1)], jobs: HashMap::new(), held: HashMap::new() };
    world.jobs.insert("a".into(), vec![ready_job("a", 1)]);
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let mut state = RolloutState::started(&spec, &refs);
    state.members[0].state = MemberState::Restarted;
    state.members[0].gated_attempt = Some(1);
    let Step::Wait { why, .. } = world.next(&spec, &state, 0) else { panic!() };
    assert!(why.contains("not succeeded yet"), "{why}");
    let mut done = world.jobsets[0].object();
    done["status"]["conditions"] = json!([{"type": "Completed", "status": "True"}]);
    world.jobsets[0] = JobSet::from_raw(done).unwrap();
    let Step::Journal(next) = world.next(&spec, &state, 0) else { panic!() };
    assert_eq!(next.phase, Phase::Completed);
}

/// The members of later batches get their change held (the pending revision, out of the
/// spec) once each; a member whose batch took it, or a rollout that is over, lets go.
#[test]
fn later_batches_hold_their_change_until_their_batch_and_then_let_it_go() {
    let spec = spec(1, 1);
    let mut world = World {
        jobsets: vec![js("a", "app:v1", 0), js("b", "app:v1", 0), js("c", "app:v2", 0)],
        jobs: HashMap::new(),
        held: HashMap::new(),
    };
    let refs: Vec<&JobSet> = world.jobsets.iter().collect();
    let state = RolloutState::started(&spec, &refs);
    let Step::Hold { state: marked, hold, release } = world.step(&spec, &state, 0) else {
        panic!("the later batches are held first")
    };
    // b waits for batch 1; c has the change already (nothing to hold); a goes now.
    let held: Vec<&str> = hold.iter().map(|(i, _)| marked.members[*i].name.as_str()).collect();
    assert_eq!((held, release.len()), (vec!["b"], 0));
    assert_eq!(hold[0].1, templates_of(&js("b", "app:v2", 0)));
    assert!(marked.members[1].held && !marked.members[0].held);
    // Marked: never held twice, even when its revision went meanwhile.
    assert!(matches!(world.step(&spec, &marked, 0), Step::Act { index: 0, .. }));
    world.make(&marked, &hold, &release);
    assert!(matches!(world.step(&spec, &marked, 0), Step::Act { index: 0, .. }));

    // Its batch comes: the held templates are what goes in, then the revision goes.
    let mut at_b = marked.clone();
    at_b.batch = 1;
    at_b.members[0].state = MemberState::Done;
    let mut edited = world.held["uid-b"].clone();
    edited.templates = templates_of(&js("b", "app:v3", 0));
    world.held.insert("uid-b".into(), edited);
    let Step::Act { state: changing, index: 1, action: Action::Patch { to, .. } } =
        world.step(&spec, &at_b, 0)
    else {
        panic!("b changes")
    };
    assert_eq!(to, templates_of(&js("b", "app:v3", 0)), "the held revision is the change");
    // Until the patch lands the revision stays; once it has, it goes.
    assert!(matches!(world.step(&spec, &changing, 0), Step::Act { index: 1, .. }));
    let before_patch = world.jobsets[1].clone();
    world.jobsets[1] = js("b", "app:v3", 0);
    let Step::Journal(changed) = world.step(&spec, &changing, 0) else { panic!("changed") };
    let Step::Hold { hold, release, .. } = world.step(&spec, &changed, 0) else { panic!("released") };
    assert_eq!((hold.len(), release), (0, vec![1]));
    world.jobsets[1] = before_patch;

    // A held change planned on a spec edited since is planned again on the spec.
    let mut stale = world.held["uid-b"].clone();
    stale.base = "another".into();
    world.held.insert("uid-b".into(), stale);
    let Step::Act { action: Action::Patch { to, .. }, .. } = world.step(&spec, &at_b, 0) else { panic!() };
    assert_eq!(to, templates_of(&js("b", "app:v2", 0)));

    // Aborted (or completed) with a member still waiting: its held change goes.
    let mut aborted = marked.clone();
    aborted.phase = Phase::Aborted;
    let Step::Hold { hold, release, .. } = world.step(&spec, &aborted, 0) else { panic!() };
    assert_eq!((hold.len(), release), (0, vec![1]));
}

/// A JobSet with a change staged by someone else (for its next restart, or held by
/// another rollout) is left out, and said why: the rollout would change the spec under it.
#[test]
fn a_jobset_with_a_change_staged_elsewhere_is_skipped() {
    let spec = spec(0, 5);
    let jobset = js("a", "app:v1", 0);
    let staged = crate::plan::staged::parse(
        &crate::plan::staged::revision(&jobset, &templates_of(&js("a", "app:v3", 0)), "set image", 1),
        jobset.uid(),
    )
    .unwrap();
    let state = RolloutState::started(&spec, &[&jobset]);
    let seen = HashMap::from([(
        jobset.uid(),
        Seen {
            jobset: &jobset,
            jobs: &[],
            admitted: false,
            revision: None,
            held: None,
            staged_elsewhere: Some(&staged),
        },
    )]);
    let settings = settings(&spec).unwrap();
    let Step::Journal(next) = next(&spec, &settings, &state, &seen, "2026-12-02T10:00:00Z", &|_| 0) else {
        panic!()
    };
    let MemberState::Skipped { why } = &next.members[0].state else { panic!("{next:?}") };
    assert!(why.contains("staged for its next restart (controllerrevision a-staged)"), "{why}");
}
