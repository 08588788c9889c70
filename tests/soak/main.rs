//! A seeded soak campaign on the real control plane (tests/cluster/cluster.sh).
//!
//! In random waves over three JobSets (2-3 Jobs each), several `restart --yes` fire at
//! once on one JobSet, beside guarded `kubectl patch` image edits, rollbacks, diffs and
//! history reads; the plugin talks through netproxy with 0-50 ms of latency and jitter
//! per chunk, and the JobSet controller is stopped and started at random moments.
//! After every wave: (a) one restart at most per wave of simultaneous requests, exactly
//! one if any reported it; (b) the spec moved through a linear order of exactly the
//! applied writes, each applied to what it read; (c) one revision per template, attempts
//! only growing; (d) every command ended within its budget; (e) beside them, one JobSet
//! of each update strategy under a recorder: at most one policy restart per spec
//! revision, Never's edits refused (tests/soak/strategy.rs).
//!
//! One seeded PRNG makes every choice: the seed is printed first (`soak seed: N`) and
//! `SOAK_SEED=N` replays the same choices (timings still vary). `SOAK_SECONDS` sets the
//! length (default 60; `make soak` runs 600). `make test` runs it; its own cluster:
//! `make soak`.

#[path = "../support/netproxy_client.rs"]
mod netproxy_client;
#[path = "../support/cluster/mod.rs"]
mod support;

mod checks;
mod ops;
mod rng;
mod strategy;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::Value;

use checks::{RestartReport, RevisionInfo, State, Step};
use netproxy_client::{NetProxy, kubeconfig_server};
use ops::{COMMAND_BUDGET, EditReport, Env, Ran, RollbackReport};
use rng::Rng;
use support::*;

const JOBSETS: [&str; 3] = ["alpha", "beta", "gamma"];
/// Shapes a JobSet may take: (replicatedJob, replicas); 2 or 3 Jobs in all.
const SHAPES: [&[(&str, i32)]; 4] = [
    &[("workers", 2)],
    &[("workers", 3)],
    &[("workers", 1), ("driver", 1)],
    &[("workers", 2), ("driver", 1)],
];
const FIRST_IMAGE: &str = "busybox:1.36";
/// A wave's operations start within this many milliseconds of each other.
const WAVE_SPREAD_MS: u64 = 1500;

/// Lines the run always shows (the seed, the summary), even when libtest captures output.
fn announce(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
    let _ = err.flush();
}

/// Per-wave progress: shown with --nocapture (`make soak`), or when the test fails.
#[allow(clippy::print_stderr)]
fn say(text: &str) {
    eprintln!("{text}");
}

// ---------------------------------------------------------------------------------------
// The plan: every random choice, drawn from the one PRNG and nothing else.

#[derive(Debug, Clone)]
enum Op {
    Restart { js: usize, expect_attempt: bool, wait_secs: Option<u64> },
    Edit { js: usize, image: String, think_ms: u64 },
    Rollback { js: usize },
    Diff { js: usize },
    History { js: usize, json: bool },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    Stop,
    Start,
}

#[derive(Debug)]
struct Wave {
    /// (start offset in ms, operation); a restart group shares one offset.
    ops: Vec<(u64, Op)>,
    fault: Option<(u64, Fault)>,
    settle_ms: u64,
}

fn plan_wave(rng: &mut Rng, number: usize, controller_up: bool) -> Wave {
    let mut ops = Vec::new();
    // One or two groups of simultaneous restarts, on different JobSets.
    let first = rng.index(JOBSETS.len());
    let mut targets = vec![first];
    if rng.chance(30) {
        targets.push((first + 1 + rng.index(JOBSETS.len() - 1)) % JOBSETS.len());
    }
    for js in targets {
        let at = rng.below(WAVE_SPREAD_MS / 2);
        // The same instant, or a burst: the requests all start from the state before the
        // wave, but a late one may read the JobSet while the first restart is carried out.
        let spread = [0, 0, 500, 1500, 3000][rng.index(5)];
        for _ in 0..rng.range(2, 5) {
            let lag = if spread == 0 { 0 } else { rng.below(spread) };
            let expect_attempt = rng.chance(20);
            let wait_secs = rng.chance(20).then(|| rng.range(2, 6));
            ops.push((at + lag, Op::Restart { js, expect_attempt, wait_secs }));
        }
    }
    for k in 0..rng.range(0, 3) {
        let (js, at, think_ms) = (rng.index(JOBSETS.len()), rng.below(WAVE_SPREAD_MS), rng.below(400));
        ops.push((at, Op::Edit { js, image: format!("busybox:s{number}-{k}"), think_ms }));
    }
    for _ in 0..rng.range(0, 2) {
        let (js, at) = (rng.index(JOBSETS.len()), rng.below(WAVE_SPREAD_MS));
        ops.push((at, Op::Rollback { js }));
    }
    for _ in 0..rng.range(0, 2) {
        let (js, at) = (rng.index(JOBSETS.len()), rng.below(WAVE_SPREAD_MS));
        ops.push((at, Op::Diff { js }));
    }
    for _ in 0..rng.range(0, 2) {
        let (js, at, json) = (rng.index(JOBSETS.len()), rng.below(WAVE_SPREAD_MS), rng.chance(50));
        ops.push((at, Op::History { js, json }));
    }
    let fault = match controller_up {
        true if rng.chance(35) => Some((rng.below(WAVE_SPREAD_MS), Fault::Stop)),
        false if rng.chance(60) => Some((rng.below(WAVE_SPREAD_MS), Fault::Start)),
        _ => None,
    };
    Wave { ops, fault, settle_ms: rng.range(200, 1200) }
}

// ---------------------------------------------------------------------------------------
// The JobSet controller, stopped and started through cluster.sh; always left running.

struct Controller {
    state: PathBuf,
}

impl Controller {
    fn cluster(&self, args: &[&str]) -> Ran {
        let mut cmd = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cluster/cluster.sh"));
        cmd.args(args).env("KJS_STATE_DIR", &self.state);
        ops::run_timed(cmd, Duration::from_secs(150))
    }

    fn act(&self, fault: Fault) -> Ran {
        let verb = if fault == Fault::Stop { "stop-component" } else { "start-component" };
        self.cluster(&[verb, "jobset"])
    }

    fn running(&self) -> bool {
        self.cluster(&["status"]).stdout.lines().any(|l| l.starts_with("jobset: running"))
    }

    fn ensure_running(&self) {
        if !self.running() {
            let ran = self.act(Fault::Start);
            assert_eq!(ran.code, Some(0), "could not restart the JobSet controller: {}", ran.brief());
        }
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        // Also on a panic: later tests need the controller.
        if !self.running() {
            let _ = self.act(Fault::Start);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Every version of every JobSet, from a watch (straight to the API server).

#[derive(Default)]
struct Recorded {
    /// Per JobSet: (resourceVersion, templates, status.restarts), in order.
    versions: HashMap<String, Vec<(String, State, i64)>>,
    /// Watch (re)starts: more than one means versions may have been missed.
    inits: usize,
}

fn state_of(jobset: &Value) -> State {
    jobset["spec"]["replicatedJobs"]
        .as_array()
        .map(|rjs| {
            rjs.iter()
                .map(|r| {
                    r["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect()
        })
        .unwrap_or_default()
}

fn is_ready(pod: &Pod) -> bool {
    let conditions = pod.status.as_ref().and_then(|s| s.conditions.as_ref());
    conditions.is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

fn restarts_of(jobset: &Value) -> i64 {
    jobset["status"]["restarts"].as_i64().unwrap_or(0)
}

fn record(ns: &TestNs) -> (Arc<Mutex<Recorded>>, tokio::task::JoinHandle<()>) {
    let recorded: Arc<Mutex<Recorded>> = Arc::default();
    let events = watcher(ns.jobsets(), watcher::Config::default()).default_backoff();
    let sink = recorded.clone();
    let task = tokio::spawn(async move {
        let mut events = Box::pin(events);
        while let Some(event) = events.next().await {
            let object = match event {
                Ok(watcher::Event::Apply(o) | watcher::Event::InitApply(o)) => o,
                Ok(watcher::Event::Init) => {
                    sink.lock().unwrap().inits += 1;
                    continue;
                }
                _ => continue,
            };
            let value = serde_json::to_value(&object).unwrap_or_default();
            let name = object.metadata.name.clone().unwrap_or_default();
            let rv = object.metadata.resource_version.clone().unwrap_or_default();
            sink.lock().unwrap().versions.entry(name).or_default().push((
                rv,
                state_of(&value),
                restarts_of(&value),
            ));
        }
    });
    (recorded, task)
}

/// Waits until the watch has delivered version `rv` of `name`, then takes every version
/// of it up to that one (none if `rv` is `last`, the version taken last time). None when
/// it never came (the wave's spec check is skipped).
async fn versions_until(
    recorded: &Mutex<Recorded>,
    name: &str,
    rv: &str,
    last: &str,
) -> Option<Vec<(State, i64)>> {
    if rv == last {
        return Some(Vec::new());
    }
    let start = Instant::now();
    loop {
        {
            let mut rec = recorded.lock().unwrap();
            let list = rec.versions.entry(name.to_owned()).or_default();
            if let Some(i) = list.iter().position(|(v, _, _)| v == rv) {
                return Some(list.drain(..=i).map(|(_, s, r)| (s, r)).collect());
            }
        }
        if start.elapsed() > Duration::from_secs(15) {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------
// What a wave did.

enum Done {
    Restart { js: usize, ran: Ran, budget: Duration },
    Edit { js: usize, report: EditReport, rans: Vec<Ran> },
    Rollback { js: usize, ran: Ran },
    Diff { ran: Ran },
    History { ran: Ran, json: bool },
    Fault { fault: Fault, ran: Ran },
}

fn run_op(env: &Env, op: &Op, restarts_before: &[i64]) -> Done {
    let name = |js: usize| JOBSETS[js].to_owned();
    match op {
        Op::Restart { js, expect_attempt, wait_secs } => {
            let mut args = vec!["restart".to_owned(), name(*js), "--yes".to_owned()];
            if *expect_attempt {
                args.push(format!("--expect-attempt={}", restarts_before[*js]));
            }
            let mut budget = COMMAND_BUDGET;
            if let Some(secs) = wait_secs {
                args.extend(["--wait".to_owned(), format!("--timeout={secs}s")]);
                budget += Duration::from_secs(*secs);
            }
            Done::Restart { js: *js, ran: env.plugin(&args, budget), budget }
        }
        Op::Edit { js, image, think_ms } => {
            let (report, rans) = ops::edit(env, JOBSETS[*js], image, Duration::from_millis(*think_ms));
            Done::Edit { js: *js, report, rans }
        }
        Op::Rollback { js } => Done::Rollback {
            js: *js,
            ran: env.plugin(&["rollback".into(), name(*js), "-y".into()], COMMAND_BUDGET),
        },
        // Reads record (--record), so that their history writes race the others'.
        Op::Diff { js } => {
            Done::Diff { ran: env.plugin(&["diff".into(), name(*js), "--record".into()], COMMAND_BUDGET) }
        }
        Op::History { js, json } => {
            let mut args = vec!["history".to_owned(), name(*js), "--record".to_owned()];
            if *json {
                args.extend(["-o".to_owned(), "json".to_owned()]);
            }
            Done::History { ran: env.plugin(&args, COMMAND_BUDGET), json: *json }
        }
    }
}

/// Runs the wave's operations (and its fault) at their offsets, all joined at the end.
fn run_wave(env: &Env, controller: &Controller, wave: &Wave, restarts_before: &[i64]) -> Vec<Done> {
    let start = Instant::now();
    let at = |ms: u64| start + Duration::from_millis(ms);
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for (ms, op) in &wave.ops {
            let when = at(*ms);
            handles.push(scope.spawn(move || {
                std::thread::sleep(when.saturating_duration_since(Instant::now()));
                run_op(env, op, restarts_before)
            }));
        }
        if let Some((ms, fault)) = wave.fault {
            let when = at(ms);
            handles.push(scope.spawn(move || {
                std::thread::sleep(when.saturating_duration_since(Instant::now()));
                Done::Fault { fault, ran: controller.act(fault) }
            }));
        }
        handles.into_iter().map(|h| h.join().expect("a wave thread panicked")).collect()
    })
}

// ---------------------------------------------------------------------------------------
// The campaign.

#[derive(Default, Debug)]
struct Tally {
    waves: usize,
    restart_requests: usize,
    restarts_made: i64,
    reported_restarts: usize,
    already_restarted: usize,
    refusals: BTreeMap<&'static str, usize>,
    conflicts: usize,
    controller_stops: usize,
    edit_attempts: usize,
    edits: usize,
    rollback_attempts: usize,
    rollbacks: usize,
    diffs: usize,
    histories: usize,
    unknown_outcomes: usize,
    wait_timeouts: usize,
    longest_command: Duration,
    unsettled: usize,
    watch_gaps: usize,
}

struct Failure {
    wave: usize,
    invariant: &'static str,
    detail: String,
}

struct Tracked {
    expected_jobs: usize,
    first_rjob: &'static str,
    state: State,
    restarts: i64,
    /// The resourceVersion the last check ended at.
    rv: String,
    revisions: BTreeMap<String, BTreeSet<i32>>,
}

struct Campaign {
    seed: u64,
    ns: TestNs,
    env: Env,
    recorded: Arc<Mutex<Recorded>>,
    tracked: Vec<Tracked>,
    tally: Tally,
    failures: Vec<Failure>,
    deadline: Instant,
}

impl Campaign {
    fn fail(&mut self, wave: usize, invariant: &'static str, detail: String) {
        say(&format!("  FAILED ({invariant}) in wave {wave}: {detail}"));
        self.failures.push(Failure { wave, invariant, detail });
    }

    async fn jobset(&self, js: usize) -> Value {
        self.ns.jobset(JOBSETS[js]).await
    }

    async fn revisions(&self, js: usize) -> Vec<RevisionInfo> {
        let api: Api<ControllerRevision> = Api::namespaced(self.ns.client.clone(), &self.ns.name);
        let lp = ListParams::default().labels(&format!("kubectl-jobset.io/jobset-name={}", JOBSETS[js]));
        let list = api.list(&lp).await.expect("list controllerrevisions");
        list.items
            .into_iter()
            .map(|r| {
                let meta = &r.metadata;
                let label =
                    |k: &str| meta.labels.as_ref().and_then(|l| l.get(k)).cloned().unwrap_or_default();
                let note =
                    |k: &str| meta.annotations.as_ref().and_then(|a| a.get(k)).cloned().unwrap_or_default();
                RevisionInfo {
                    uid: meta.uid.clone().unwrap_or_default(),
                    name: meta.name.clone().unwrap_or_default(),
                    number: r.revision,
                    hash: label("kubectl-jobset.io/template-hash"),
                    data: r.data.as_ref().map(|d| checks::canonical(&d.0)).unwrap_or_default(),
                    attempts: checks::parse_attempts(&note("kubectl-jobset.io/restart-attempts")),
                }
            })
            .collect()
    }

    /// Classifies what the wave's processes did, checks (d) on each, and returns per
    /// JobSet the restart reports and the applied / maybe-applied template steps.
    fn account(&mut self, wave: usize, done: &[Done]) -> Vec<(Vec<RestartReport>, Vec<Step>, Vec<Step>)> {
        let mut per_js: Vec<(Vec<RestartReport>, Vec<Step>, Vec<Step>)> =
            (0..JOBSETS.len()).map(|_| Default::default()).collect();
        let overrun_limit = self.deadline + COMMAND_BUDGET + Duration::from_secs(15);
        for d in done {
            let timed: Vec<(&Ran, Duration)> = match d {
                Done::Restart { ran, budget, .. } => vec![(ran, *budget)],
                Done::Edit { rans, .. } => rans.iter().map(|r| (r, COMMAND_BUDGET)).collect(),
                Done::Rollback { ran, .. } | Done::Diff { ran } | Done::History { ran, .. } => {
                    vec![(ran, COMMAND_BUDGET)]
                }
                Done::Fault { .. } => vec![],
            };
            for (ran, budget) in timed {
                self.tally.longest_command = self.tally.longest_command.max(ran.elapsed);
                if ran.killed || ran.elapsed > budget {
                    self.fail(
                        wave,
                        "(d) time",
                        format!("ran past its budget of {budget:?}: {}", ran.brief()),
                    );
                }
            }
            if Instant::now() > overrun_limit {
                self.fail(wave, "(d) time", "a command ran well past the campaign's deadline".into());
            }
            match d {
                Done::Restart { js, ran, .. } => {
                    self.tally.restart_requests += 1;
                    let report = ops::restart_report(ran);
                    match &report {
                        RestartReport::Restarted { .. } => {
                            self.tally.reported_restarts += 1;
                            if ran.code != Some(0) {
                                if ran.stderr.contains("timed out after") {
                                    self.tally.wait_timeouts += 1;
                                } else {
                                    self.fail(
                                        wave,
                                        "other",
                                        format!("restarted, then failed: {}", ran.brief()),
                                    );
                                }
                            }
                        }
                        RestartReport::Already => self.tally.already_restarted += 1,
                        RestartReport::Refused => {
                            let kind = ops::refusal_kind(&ran.stderr);
                            if kind == "kept changing" {
                                self.tally.conflicts += 1;
                            } else {
                                *self.tally.refusals.entry(kind).or_default() += 1;
                            }
                        }
                        RestartReport::Unknown => {
                            self.tally.unknown_outcomes += 1;
                            self.fail(wave, "other", format!("restart failed unexplained: {}", ran.brief()));
                        }
                    }
                    per_js[*js].0.push(report);
                }
                Done::Edit { js, report, .. } => {
                    self.tally.edit_attempts += 1;
                    match report {
                        EditReport::Applied { from, to } => {
                            self.tally.edits += 1;
                            per_js[*js].1.push((from.clone(), to.clone()));
                        }
                        EditReport::Conflict => self.tally.conflicts += 1,
                        EditReport::Unknown { from, to } => {
                            self.tally.unknown_outcomes += 1;
                            per_js[*js].2.push((from.clone(), to.clone()));
                        }
                        EditReport::Failed(why) => {
                            self.tally.unknown_outcomes += 1;
                            self.fail(wave, "other", format!("an edit could not read the JobSet: {why}"));
                        }
                    }
                }
                Done::Rollback { js, ran } => {
                    self.tally.rollback_attempts += 1;
                    match ops::rollback_report(ran, self.tracked[*js].first_rjob) {
                        RollbackReport::Applied { from, to } => {
                            self.tally.rollbacks += 1;
                            per_js[*js].1.push((from, to));
                        }
                        RollbackReport::Conflict => self.tally.conflicts += 1,
                        RollbackReport::Refused => *self.tally.refusals.entry("rollback").or_default() += 1,
                        RollbackReport::Unknown { from, to } => {
                            self.tally.unknown_outcomes += 1;
                            self.fail(wave, "other", format!("rollback failed unexplained: {}", ran.brief()));
                            per_js[*js].2.push((from, to));
                        }
                        RollbackReport::Failed => {
                            self.tally.unknown_outcomes += 1;
                            self.fail(wave, "other", format!("rollback failed unexplained: {}", ran.brief()));
                        }
                    }
                }
                Done::Diff { ran } => {
                    self.tally.diffs += 1;
                    if !matches!(ran.code, Some(0 | 1)) || ran.stderr.contains("panicked") {
                        self.fail(wave, "other", format!("diff failed: {}", ran.brief()));
                    }
                }
                Done::History { ran, json } => {
                    self.tally.histories += 1;
                    let parses = !json || serde_json::from_str::<Value>(&ran.stdout).is_ok();
                    if ran.code != Some(0) || !parses {
                        self.fail(wave, "other", format!("history failed: {}", ran.brief()));
                    }
                }
                Done::Fault { fault, ran } => {
                    if *fault == Fault::Stop {
                        self.tally.controller_stops += 1;
                    }
                    if ran.code != Some(0) {
                        self.fail(wave, "other", format!("cluster.sh {fault:?} failed: {}", ran.brief()));
                    }
                }
            }
        }
        per_js
    }

    /// The invariants after a wave (`targets`: JobSets that had restart requests).
    async fn check(&mut self, wave: usize, per_js: Vec<(Vec<RestartReport>, Vec<Step>, Vec<Step>)>) {
        let gap = {
            let mut rec = self.recorded.lock().unwrap();
            let gap = rec.inits > 1;
            rec.inits = rec.inits.min(1);
            gap
        };
        if gap {
            self.tally.watch_gaps += 1;
        }
        for (js, (reports, applied, maybe)) in per_js.into_iter().enumerate() {
            let object = self.jobset(js).await;
            let restarts = restarts_of(&object);
            let state = state_of(&object);
            let before = self.tracked[js].restarts;
            let found = if reports.is_empty() {
                checks::no_restart(before, restarts)
            } else {
                checks::restart_wave(before, restarts, &reports)
            };
            for f in found {
                self.fail(wave, "(a) one restart per wave", format!("{}: {f}", JOBSETS[js]));
            }
            self.tally.restarts_made += restarts - before;

            let rv = object["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_owned();
            let last = std::mem::replace(&mut self.tracked[js].rv, rv.clone());
            match versions_until(&self.recorded, JOBSETS[js], &rv, &last).await {
                Some(versions) if !gap => {
                    let seen: Vec<State> = versions.iter().map(|(s, _)| s.clone()).collect();
                    let start = self.tracked[js].state.clone();
                    for f in checks::linear(&start, &seen, &applied, &maybe) {
                        self.fail(wave, "(b) no lost or blind writes", format!("{}: {f}", JOBSETS[js]));
                    }
                    if seen.last().unwrap_or(&start) != &state {
                        self.fail(
                            wave,
                            "(b) no lost or blind writes",
                            format!(
                                "{}: the watch ends at {:?}, the JobSet is {state:?}",
                                JOBSETS[js],
                                seen.last()
                            ),
                        );
                    }
                    for pair in versions.windows(2) {
                        if pair[1].1 < pair[0].1 {
                            self.fail(
                                wave,
                                "(a) one restart per wave",
                                format!(
                                    "{}: status.restarts went down {} → {}",
                                    JOBSETS[js], pair[0].1, pair[1].1
                                ),
                            );
                        }
                    }
                }
                Some(_) => {}
                None => self.tally.watch_gaps += 1,
            }

            let revisions = self.revisions(js).await;
            let mut previous = std::mem::take(&mut self.tracked[js].revisions);
            for f in checks::history(&mut previous, &revisions, restarts) {
                self.fail(wave, "(c) history", format!("{}: {f}", JOBSETS[js]));
            }
            let t = &mut self.tracked[js];
            t.revisions = previous;
            t.state = state;
            t.restarts = restarts;
        }
    }

    /// Waits (a while) until the controller has every JobSet at its current attempt, with
    /// a pod per Job, then marks those pods Ready (as a kubelet would).
    async fn settle(&mut self) {
        let pods: Api<Pod> = Api::namespaced(self.ns.client.clone(), &self.ns.name);
        let start = Instant::now();
        loop {
            let mut to_mark: Vec<Pod> = Vec::new();
            let mut all = true;
            for (js, name) in JOBSETS.iter().enumerate() {
                let jobs = self.ns.jobs_of(name).await;
                let want = self.tracked[js].restarts as i32;
                all &= jobs.len() == self.tracked[js].expected_jobs
                    && jobs
                        .iter()
                        .all(|j| j.metadata.deletion_timestamp.is_none() && attempt_label(j) == Some(want));
                for job in jobs.iter().filter(|j| attempt_label(j) == Some(want)) {
                    let job_name = job.metadata.name.clone().unwrap_or_default();
                    let lp =
                        ListParams::default().labels(&format!("batch.kubernetes.io/job-name={job_name}"));
                    let found = pods.list(&lp).await.map(|l| l.items).unwrap_or_default();
                    all &= !found.is_empty();
                    to_mark.extend(found.into_iter().filter(|p| !is_ready(p)));
                }
            }
            if all {
                for pod in to_mark {
                    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
                    let patch = serde_json::json!({"status": {"phase": "Running",
                        "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}]}});
                    let name = pod.metadata.name.clone().unwrap_or_default();
                    // Best effort: a pod deleted meanwhile is no longer of interest.
                    let _ = pods.patch_status(&name, &PatchParams::default(), &Patch::Strategic(patch)).await;
                }
                return;
            }
            if start.elapsed() > Duration::from_secs(30) {
                self.tally.unsettled += 1;
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn summary(&self) -> String {
        let t = &self.tally;
        let refusals: usize = t.refusals.values().sum();
        format!(
            "soak summary (seed {}): waves {}, restart requests {}, restarts made {}, refusals {} {:?}, \
             conflicts {}, controller stops {}, edits {} (of {} tried), rollbacks {} (of {} tried); \
             also: reported restarts {}, already restarted {}, diffs {}, history reads {}, \
             unknown outcomes {}, --wait timeouts {}, longest command {:.1}s, unsettled waves {}, \
             watch gaps {}; invariant failures {}",
            self.seed,
            t.waves,
            t.restart_requests,
            t.restarts_made,
            refusals,
            t.refusals,
            t.conflicts,
            t.controller_stops,
            t.edits,
            t.edit_attempts,
            t.rollbacks,
            t.rollback_attempts,
            t.reported_restarts,
            t.already_restarted,
            t.diffs,
            t.histories,
            t.unknown_outcomes,
            t.wait_timeouts,
            t.longest_command.as_secs_f64(),
            t.unsettled,
            t.watch_gaps,
            self.failures.len()
        )
    }
}

fn describe(wave: &Wave) -> String {
    let mut parts: BTreeMap<String, usize> = BTreeMap::new();
    for (_, op) in &wave.ops {
        let key = match op {
            Op::Restart { js, .. } => format!("restart {}", JOBSETS[*js]),
            Op::Edit { .. } => "edit".into(),
            Op::Rollback { .. } => "rollback".into(),
            Op::Diff { .. } => "diff".into(),
            Op::History { .. } => "history".into(),
        };
        *parts.entry(key).or_default() += 1;
    }
    let mut text: Vec<String> = parts.into_iter().map(|(k, n)| format!("{k}×{n}")).collect();
    for (js, name) in JOBSETS.iter().enumerate() {
        let mut at: Vec<u64> = wave
            .ops
            .iter()
            .filter(|(_, op)| matches!(op, Op::Restart { js: j, .. } if *j == js))
            .map(|(ms, _)| *ms)
            .collect();
        at.sort_unstable();
        if !at.is_empty() {
            text.push(format!("{name} restarts at {at:?} ms"));
        }
    }
    if let Some((ms, fault)) = wave.fault {
        text.push(format!("controller {fault:?} at {ms}ms"));
    }
    text.join(", ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these (`make soak`: 10 minutes)"]
async fn seeded_campaign_keeps_the_invariants() {
    let seed = std::env::var("SOAK_SEED")
        .ok()
        .map(|s| s.trim().parse::<u64>().expect("SOAK_SEED is a number"))
        .unwrap_or_else(rng::fresh_seed);
    announce(&format!("soak seed: {seed}"));
    let run_for = Duration::from_secs(
        std::env::var("SOAK_SECONDS")
            .ok()
            .map(|s| s.trim().parse().expect("SOAK_SECONDS is a number"))
            .unwrap_or(60),
    );
    let mut rng = Rng::new(seed);

    let h = harness();
    let controller = Controller { state: h.state.clone() };
    controller.ensure_running();

    // The plugin's traffic goes through the delay proxy: 0-50 ms per chunk.
    let delay_ms = rng.range(0, 20);
    let jitter_ms = 50 - delay_ms;
    let proxy_seed = rng.next_u64() >> 1;
    let upstream = kubeconfig_server(&h.kubeconfig);
    let proxy = NetProxy::delay(upstream.trim_start_matches("https://"), delay_ms, jitter_ms, proxy_seed);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let proxied = dir.path().join("proxied.kubeconfig");
    proxy.kubeconfig_via(&h.kubeconfig, &proxied);
    let request_timeout = Duration::from_secs(rng.range(4, 8));
    say(&format!(
        "soak: {}s, netproxy delay {delay_ms} ms + jitter 0-{jitter_ms} ms per chunk, --request-timeout {request_timeout:?}",
        run_for.as_secs()
    ));

    let ns = TestNs::new("soak").await;
    let mut tracked = Vec::new();
    for name in JOBSETS {
        let shape = SHAPES[rng.index(SHAPES.len())];
        let jobs: Vec<(&str, i32, &str)> = shape.iter().map(|(rj, n)| (*rj, *n, FIRST_IMAGE)).collect();
        ns.create(&jobset_yaml(name, &jobs, ""));
        let expected_jobs = shape.iter().map(|(_, n)| *n as usize).sum();
        tracked.push(Tracked {
            expected_jobs,
            first_rjob: shape[0].0,
            state: vec![FIRST_IMAGE.to_owned(); shape.len()],
            restarts: 0,
            rv: String::new(),
            revisions: BTreeMap::new(),
        });
        say(&format!("soak: jobset {name}: {shape:?}"));
    }
    for (js, name) in JOBSETS.iter().enumerate() {
        ns.wait_for_attempt_jobs(name, 0, tracked[js].expected_jobs).await;
        let out = ns.plugin(&["history", name, "--record"]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    let mut strategies = strategy::StrategySoak::start(&ns, seed).await;
    let (recorded, recorder) = record(&ns);
    let env = Env {
        namespace: ns.name.clone(),
        proxied,
        direct: h.kubeconfig.clone(),
        kubectl: h.kubectl.clone(),
        request_timeout,
    };
    let started = Instant::now();
    let mut campaign = Campaign {
        seed,
        ns,
        env,
        recorded,
        tracked,
        tally: Tally::default(),
        failures: Vec::new(),
        deadline: started + run_for,
    };
    // The baseline the first wave is checked against.
    campaign.check(0, (0..JOBSETS.len()).map(|_| Default::default()).collect()).await;

    let mut controller_up = true;
    let mut number = 0;
    while Instant::now() < campaign.deadline {
        number += 1;
        let wave = plan_wave(&mut rng, number, controller_up);
        if let Some((_, fault)) = wave.fault {
            controller_up = fault == Fault::Start;
        }
        say(&format!("wave {number} (t={:.0}s): {}", started.elapsed().as_secs_f64(), describe(&wave)));
        let restarts_before: Vec<i64> = campaign.tracked.iter().map(|t| t.restarts).collect();
        let done = {
            let (env, ctl) = (&campaign.env, &controller);
            tokio::task::block_in_place(|| run_wave(env, ctl, &wave, &restarts_before))
        };
        campaign.tally.waves += 1;
        let per_js = campaign.account(number, &done);
        campaign.check(number, per_js).await;
        let found = tokio::task::block_in_place(|| strategies.wave(&campaign.env));
        for f in found.into_iter().chain(strategies.check()) {
            campaign.fail(number, "(e) update strategies", f);
        }
        if controller_up {
            campaign.settle().await;
        }
        tokio::time::sleep(Duration::from_millis(wave.settle_ms)).await;
    }

    // Afterwards: the controller back, everything settled, and nothing moved on its own.
    tokio::task::block_in_place(|| controller.ensure_running());
    campaign.settle().await;
    campaign.check(number + 1, (0..JOBSETS.len()).map(|_| Default::default()).collect()).await;
    let overran = started.elapsed().saturating_sub(run_for);
    if overran > COMMAND_BUDGET * 2 + Duration::from_secs(40) {
        let detail = format!("the campaign ended {overran:?} after its deadline");
        campaign.fail(number + 1, "(d) time", detail);
    }
    for f in strategies.converged(&campaign.ns).await {
        campaign.fail(number + 1, "(e) update strategies", f);
    }
    recorder.abort();
    drop(proxy);

    announce(&campaign.summary());
    announce(&strategies.summary());
    drop(strategies);
    if !campaign.failures.is_empty() {
        let mut by_invariant: BTreeMap<&str, usize> = BTreeMap::new();
        for f in &campaign.failures {
            *by_invariant.entry(f.invariant).or_default() += 1;
        }
        let listed: Vec<String> = campaign
            .failures
            .iter()
            .take(25)
            .map(|f| format!("  wave {} {}: {}", f.wave, f.invariant, f.detail))
            .collect();
        panic!(
            "soak seed {seed}: {} invariant failure(s) {by_invariant:?} (replay the choices: SOAK_SEED={seed} make soak)\n{}",
            campaign.failures.len(),
            listed.join("\n")
        );
    }
}
