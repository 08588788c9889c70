//! The update strategies in the soak: beside the campaign's JobSets, one JobSet of each
//! strategy (Opportunistic queued, Opportunistic running, Immediate, Never), edited at
//! random moments, with recorders enforcing the strategies on them only (`-l`): one or
//! two replicas electing a leader on a Lease, killed -9 and replaced at random waves
//! (mid-action, whatever they were doing). After every wave: (e) at most one policy
//! restart per spec revision (from every version of their status a watch sees); Never's
//! edits are refused, the others' accepted. At the end: the Immediate and the queued
//! JobSets run their spec.
//!
//! Its choices come from its own PRNG (seeded from the campaign's seed), so the
//! campaign's own choices replay as before.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::Value;

use super::ops::Env;
use super::rng::Rng;
use super::support::{TestNs, harness, image_of, jobset_yaml};

const LABEL: &str = "kubectl-jobset.test/strategy-soak";
/// (name, strategy, suspended)
pub const STRATEGY_JOBSETS: [(&str, &str, bool); 4] = [
    ("s-queued", "Opportunistic", true),
    ("s-running", "Opportunistic", false),
    ("s-immediate", "Immediate", false),
    ("s-never", "Never", false),
];
const CONDITION: &str = "kubectl-jobset.io/UpdateStrategy";

/// Per JobSet, per spec revision: the attempts our condition marked (one per policy restart).
type Marks = HashMap<String, BTreeMap<String, BTreeSet<i64>>>;

pub struct StrategySoak {
    rng: Rng,
    /// The recorder replicas running (one or two).
    recorders: Vec<Child>,
    /// Recorders started, and killed -9, so far.
    started: usize,
    pub kills: usize,
    namespace: String,
    marks: Arc<Mutex<Marks>>,
    watch: tokio::task::JoinHandle<()>,
    pub edits: usize,
    pub refused: usize,
    pub policy_restarts: usize,
    number: usize,
    reported: BTreeSet<String>,
}

/// The mark in our condition: (revision, attempt).
pub fn mark(jobset: &Value) -> Option<(String, i64)> {
    let conditions = jobset["status"]["conditions"].as_array()?;
    let ours = conditions.iter().find(|c| c["type"] == CONDITION)?;
    let text = ours["message"].as_str()?.strip_prefix("spec revision ")?;
    let (revision, rest) = text.split_once(", attempt ")?;
    let attempt = rest.split(':').next()?.parse().ok()?;
    Some((revision.to_owned(), attempt))
}

/// (e): the revisions some JobSet was restarted for more than once by its strategy.
pub fn more_than_once(marks: &Marks) -> Vec<String> {
    let mut found = Vec::new();
    for (name, revisions) in marks {
        for (revision, attempts) in revisions {
            if attempts.len() > 1 {
                found.push(format!("{name}: spec revision {revision} restarted at attempts {attempts:?}"));
            }
        }
    }
    found
}

impl StrategySoak {
    pub async fn start(ns: &TestNs, seed: u64) -> StrategySoak {
        let policy = format!("{}/deploy/update-strategies.yaml", env!("CARGO_MANIFEST_DIR"));
        let out = ns.kubectl(&["apply", "-f", &policy]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        for (name, strategy, suspended) in STRATEGY_JOBSETS {
            let extra = if suspended { "  suspend: true\n" } else { "" };
            let yaml = jobset_yaml(name, &[("w", 2, super::FIRST_IMAGE)], extra).replacen(
                &format!("  name: {name}\n"),
                &format!(
                    "  name: {name}\n  labels:\n    {LABEL}: \"true\"\n  annotations:\n    \
                     kubectl-jobset.io/update-strategy: {strategy}\n"
                ),
                1,
            );
            ns.create(&yaml);
        }
        for (name, _, _) in STRATEGY_JOBSETS {
            ns.wait_for_attempt_jobs(name, 0, 2).await;
        }
        let marks: Arc<Mutex<Marks>> = Arc::default();
        let sink = marks.clone();
        let config = watcher::Config::default().labels(&format!("{LABEL}=true"));
        let events = watcher(ns.jobsets(), config).default_backoff();
        let watch = tokio::spawn(async move {
            let mut events = Box::pin(events);
            while let Some(event) = events.next().await {
                let (Ok(watcher::Event::Apply(o)) | Ok(watcher::Event::InitApply(o))) = event else {
                    continue;
                };
                let value = serde_json::to_value(&o).unwrap_or_default();
                if let Some((revision, attempt)) = mark(&value) {
                    let name = o.metadata.name.clone().unwrap_or_default();
                    sink.lock()
                        .unwrap()
                        .entry(name)
                        .or_default()
                        .entry(revision)
                        .or_default()
                        .insert(attempt);
                }
            }
        });
        let mut soak = StrategySoak {
            rng: Rng::new(seed ^ 0x05ea_70f5_7a7e_91e5_u64),
            recorders: Vec::new(),
            started: 0,
            kills: 0,
            namespace: ns.name.clone(),
            marks,
            watch,
            edits: 0,
            refused: 0,
            policy_restarts: 0,
            number: 0,
            reported: BTreeSet::new(),
        };
        soak.spawn_recorder();
        soak
    }

    /// Starts a recorder replica under a name of its own (a new leader identity).
    fn spawn_recorder(&mut self) {
        let h = harness();
        self.started += 1;
        let identity = format!("soak-strategies-{}", self.started);
        let log = h.state.join(format!("soak-recorder-{}-{}.log", self.namespace, self.started));
        let recorder = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
            .arg("recorder")
            .args(["--kubeconfig", h.kubeconfig.to_str().unwrap()])
            .args([
                "-n",
                &self.namespace,
                "-l",
                &format!("{LABEL}=true"),
                "--lease-namespace",
                &self.namespace,
            ])
            .args(["--leader-elect", "--lease-duration", "3s", "--metrics-addr", "0"])
            .env_remove("KUBECONFIG")
            .env_remove("POD_NAME")
            .env("HOSTNAME", &identity)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start the recorder");
        self.recorders.push(recorder);
    }

    /// Now and then: a replica killed -9 (and replaced), a second one started, or one of
    /// two stopped for good. One always runs afterwards.
    fn disturb_recorders(&mut self) {
        // The third wave always kills one, so even a short soak has a leader killed.
        let roll = if self.number == 3 && self.kills == 0 { 0 } else { self.rng.index(100) };
        let kill_one = |soak: &mut StrategySoak| {
            let victim = soak.rng.index(soak.recorders.len());
            let mut child = soak.recorders.swap_remove(victim);
            let _ = child.kill(); // SIGKILL: no graceful release of the Lease
            let _ = child.wait();
            soak.kills += 1;
        };
        match (roll, self.recorders.len()) {
            (0..12, _) => {
                kill_one(self);
                self.spawn_recorder();
            }
            (12..20, 1) => self.spawn_recorder(),
            (20..25, 2) => kill_one(self),
            _ => {}
        }
    }

    /// This wave's edit, if any (most waves edit one of the four); problems found.
    pub fn wave(&mut self, env: &Env) -> Vec<String> {
        self.number += 1;
        self.disturb_recorders();
        if !self.rng.chance(60) {
            return Vec::new();
        }
        let (name, strategy, _) = STRATEGY_JOBSETS[self.rng.index(STRATEGY_JOBSETS.len())];
        let image = format!("busybox:st{}", self.number);
        let patch = format!(
            r#"[{{"op": "replace", "path": "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image", "value": "{image}"}}]"#
        );
        let ran = env.kubectl(&["patch", "jobset", name, "--type=json", "-p", &patch]);
        match (strategy, ran.code) {
            ("Never", Some(0)) => vec![format!("{name}: a Never JobSet's template change was accepted")],
            ("Never", _) if ran.stderr.contains("update strategy is Never") => {
                self.refused += 1;
                Vec::new()
            }
            ("Never", _) => vec![format!("{name}: refused, but not by the Never policy: {}", ran.brief())],
            (_, Some(0)) => {
                self.edits += 1;
                Vec::new()
            }
            // The API server may time out under the campaign's load: not ours to judge.
            (_, _) if ran.stderr.contains("Timeout") || ran.stderr.contains("timed out") => Vec::new(),
            (_, _) => vec![format!("{name}: an opted-in template change was refused: {}", ran.brief())],
        }
    }

    /// (e) after a wave.
    pub fn check(&mut self) -> Vec<String> {
        let marks = self.marks.lock().unwrap();
        self.policy_restarts = marks.values().flat_map(|r| r.values()).map(BTreeSet::len).sum();
        let found = more_than_once(&marks);
        found.into_iter().filter(|f| self.reported.insert(f.clone())).collect()
    }

    /// At the end: the Immediate and the queued JobSets run their spec's image (the
    /// running Opportunistic one waits for a restart, and Never never changed).
    pub async fn converged(&mut self, ns: &TestNs) -> Vec<String> {
        let mut problems = Vec::new();
        for name in ["s-immediate", "s-queued"] {
            let start = Instant::now();
            loop {
                let js = ns.jobset(name).await;
                let want = super::state_of(&js).first().cloned().unwrap_or_default();
                let attempt = js["status"]["restarts"].as_i64().unwrap_or(0) as i32;
                let jobs = ns.jobs_of(name).await;
                let live: Vec<_> = jobs.iter().filter(|j| j.metadata.deletion_timestamp.is_none()).collect();
                let on_spec = live.len() == 2
                    && live
                        .iter()
                        .all(|j| super::attempt_label(j) == Some(attempt) && image_of(j, 0) == want);
                if on_spec {
                    break;
                }
                if start.elapsed() > Duration::from_secs(90) {
                    problems
                        .push(format!("{name}: its Jobs do not run the spec's {want} (attempt {attempt})"));
                    break;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
        problems.extend(self.check());
        problems
    }

    pub fn summary(&self) -> String {
        format!(
            "strategies: opted-in edits {}, Never edits refused {}, policy restarts {}, recorders started {}, killed -9 {}",
            self.edits, self.refused, self.policy_restarts, self.started, self.kills
        )
    }
}

impl Drop for StrategySoak {
    fn drop(&mut self) {
        for recorder in &mut self.recorders {
            let _ = recorder.kill();
            let _ = recorder.wait();
        }
        self.watch.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marks_are_read_and_a_second_restart_for_one_revision_is_found() {
        let js = json!({"status": {"conditions": [{"type": CONDITION, "status": "True",
            "reason": "RestartedForSpecRevision", "message": "spec revision abc, attempt 3: 2 Job(s) ran ..."}]}});
        assert_eq!(mark(&js), Some(("abc".to_owned(), 3)));
        assert_eq!(mark(&json!({"status": {}})), None);
        let mut marks = Marks::new();
        marks.entry("a".into()).or_default().entry("r1".into()).or_default().insert(1);
        marks.entry("a".into()).or_default().entry("r2".into()).or_default().insert(2);
        assert!(more_than_once(&marks).is_empty(), "one restart per revision");
        marks.get_mut("a").unwrap().get_mut("r1").unwrap().insert(4);
        assert_eq!(
            more_than_once(&marks),
            vec!["a: spec revision r1 restarted at attempts {1, 4}".to_owned()]
        );
    }
}
