//! A bounded concurrency soak: 8 workers mix restarts, rollbacks, plain template edits
//! and diffs on the same JobSets; afterwards the invariants are checked.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::Value;

use crate::support::*;

const WORKERS: usize = 8;
const RUN_FOR: Duration = Duration::from_secs(25);
const JOBSETS: [&str; 2] = ["a", "b"];

#[derive(Debug)]
enum Outcome {
    Edited { jobset: String, from: String, to: String },
    EditConflict,
    Plugin { op: &'static str, out: PluginOutput },
}

fn image_of_spec(jobset: &Value) -> String {
    jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A plain kubectl edit, guarded by a JSON patch `test` on the image it read.
fn edit(ns: &str, jobset: &str, worker: usize, n: usize) -> Outcome {
    let h = harness();
    let kubectl = |args: &[&str]| {
        std::process::Command::new(&h.kubectl)
            .arg("--kubeconfig")
            .arg(&h.kubeconfig)
            .args(["-n", ns])
            .args(args)
            .output()
            .unwrap()
    };
    let current: Value =
        serde_json::from_slice(&kubectl(&["get", "jobset", jobset, "-o", "json"]).stdout).unwrap();
    let from = image_of_spec(&current);
    let to = format!("busybox:soak-{worker}-{n}");
    let path = "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image";
    let patch = format!(
        r#"[{{"op":"test","path":"{path}","value":"{from}"}},{{"op":"replace","path":"{path}","value":"{to}"}}]"#
    );
    let out = kubectl(&["patch", "jobset", jobset, "--type=json", "-p", &patch]);
    if out.status.success() {
        Outcome::Edited { jobset: jobset.to_owned(), from, to }
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("error in our request"), "an edit failed other than by conflict: {stderr}");
        Outcome::EditConflict
    }
}

// The recorder task must run while the workers do: a multi-threaded runtime.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn concurrent_restarts_rollbacks_edits_and_diffs_keep_the_invariants() {
    let ns = TestNs::new("soak").await;
    for name in JOBSETS {
        ns.create(&jobset_yaml(name, &[("workers", 2, "busybox:1.36")], ""));
    }
    for name in JOBSETS {
        ns.wait_for_attempt_jobs(name, 0, 2).await;
        assert_eq!(ns.plugin(&["history", name, "--record"]).code, 0);
    }

    // Every JobSet write, in order, as (jobset, restarts, spec image).
    let seen: Arc<Mutex<Vec<(String, i64, String)>>> = Arc::default();
    let events = watcher(ns.jobsets(), watcher::Config::default()).default_backoff().applied_objects();
    let recorder = {
        let seen = seen.clone();
        tokio::spawn(async move {
            let mut events = Box::pin(events);
            while let Some(Ok(object)) = events.next().await {
                let value = serde_json::to_value(&object).unwrap();
                let name = object.metadata.name.clone().unwrap_or_default();
                let restarts = value["status"]["restarts"].as_i64().unwrap_or(0);
                seen.lock().unwrap().push((name, restarts, image_of_spec(&value)));
            }
        })
    };

    let deadline = Instant::now() + RUN_FOR;
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let ns = ns.name.clone();
            std::thread::spawn(move || {
                let mut outcomes = Vec::new();
                let mut n = 0;
                while Instant::now() < deadline {
                    // Every kind of operation hits every JobSet.
                    let jobset = JOBSETS[(w + n / 4) % JOBSETS.len()];
                    let outcome = match (w + n) % 4 {
                        0 => Outcome::Plugin {
                            op: "restart",
                            out: run_plugin(&["restart", jobset, "--yes"], Some(&ns), &[]),
                        },
                        1 => Outcome::Plugin {
                            op: "rollback",
                            out: run_plugin(&["rollback", jobset, "-y"], Some(&ns), &[]),
                        },
                        2 => edit(&ns, jobset, w, n),
                        _ => {
                            // Recording too, so that its history writes race the others'.
                            let out = run_plugin(&["diff", jobset, "--record"], Some(&ns), &[]);
                            Outcome::Plugin { op: "diff", out }
                        }
                    };
                    outcomes.push(outcome);
                    n += 1;
                }
                outcomes
            })
        })
        .collect();
    let outcomes: Vec<Outcome> =
        tokio::task::spawn_blocking(move || workers.into_iter().flat_map(|w| w.join().unwrap()).collect())
            .await
            .unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    recorder.abort();
    let seen = seen.lock().unwrap().clone();

    // No command crashed; every failure is a refusal or conflict it explained.
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for outcome in &outcomes {
        let key = match outcome {
            Outcome::Edited { .. } => "edit applied".to_owned(),
            Outcome::EditConflict => "edit conflict".to_owned(),
            Outcome::Plugin { op, out } => {
                assert!(!out.stderr.contains("panicked"), "{op} crashed: {out:?}");
                // diff: 0 or 1 (drift); the others: 0, or 1 with a reason (below).
                assert!(out.code == 0 || out.code == 1, "{op}: {out:?}");
                if out.code == 1 && *op != "diff" {
                    let explained =
                        ["not restarted", "not rolled back", "no revision before", "does not exist"]
                            .iter()
                            .any(|phrase| out.stderr.contains(phrase));
                    assert!(explained, "{op} failed without a reason: {out:?}");
                }
                format!("{op} exit {}", out.code)
            }
        };
        *counts.entry(key).or_default() += 1;
    }
    assert!(counts.get("edit applied").copied().unwrap_or(0) > 0, "{counts:?}");

    for name in JOBSETS {
        let history: Vec<&(String, i64, String)> = seen.iter().filter(|(n, _, _)| n == name).collect();
        // status.restarts never went down.
        for pair in history.windows(2) {
            assert!(pair[1].1 >= pair[0].1, "{name}: restarts went down: {pair:?}");
        }
        // Every applied edit replaced exactly the template it read: no silent overwrite.
        let mut images: Vec<&str> = history.iter().map(|(_, _, image)| image.as_str()).collect();
        images.dedup();
        for outcome in &outcomes {
            if let Outcome::Edited { jobset, from, to } = outcome
                && jobset == name
            {
                let applied = images.windows(2).any(|w| w[0] == from && w[1] == to);
                assert!(applied, "{name}: edit {from} → {to} is not in the sequence of templates {images:?}");
            }
        }
        // One ControllerRevision per distinct template.
        let out = ns.kubectl(&[
            "get",
            "controllerrevisions",
            "-l",
            &format!("kubectl-jobset.io/jobset-name={name}"),
            "-o",
            "json",
        ]);
        let revisions: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut data: Vec<String> =
            revisions["items"].as_array().unwrap().iter().map(|r| r["data"].to_string()).collect();
        let total = data.len();
        data.sort();
        data.dedup();
        assert_eq!(data.len(), total, "{name}: two revisions hold the same templates");
    }
    let mut reasons: Vec<String> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Plugin { op, out } if out.code == 1 && *op != "diff" => out
                .stderr
                .lines()
                .find(|l| l.starts_with("error: "))
                .map(|l| format!("{op}: {}", &l[..l.len().min(90)])),
            _ => None,
        })
        .collect();
    reasons.sort();
    reasons.dedup();
    // Shown with --nocapture: what the soak exercised.
    #[allow(clippy::print_stderr)]
    {
        eprintln!("soak outcomes: {counts:?}\nrefusals: {reasons:#?}");
    }
}
