//! A fleet restart against an API server that throttles: low in-flight limits (API
//! Priority and Fairness off, so the max-in-flight filter answers 429 at once instead
//! of queueing) and a user that is not in system:masters (which both filters exempt).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{SERIAL, cluster};
use crate::support::*;

/// JobSets in the fleet.
const FLEET: usize = 300;
/// The API server's limits while the restart runs.
const LIMITS: &str =
    "--enable-priority-and-fairness=false --max-requests-inflight=10 --max-mutating-requests-inflight=5";
/// The harness user bound cluster-wide for this test only.
const USER: &str = "e2e-fleet";

/// The API server restarted with [`LIMITS`]; restarted without them when dropped.
struct Throttled;

impl Throttled {
    fn start() -> Throttled {
        cluster(&["stop-component", "apiserver"]);
        restart_apiserver(LIMITS);
        Throttled
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        cluster(&["stop-component", "apiserver"]);
        restart_apiserver("");
    }
}

fn restart_apiserver(extra_args: &str) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cluster/cluster.sh");
    let out = Command::new(script)
        .args(["start-component", "apiserver"])
        .env("KJS_STATE_DIR", &harness().state)
        .env("KJS_APISERVER_EXTRA_ARGS", extra_args)
        .output()
        .unwrap();
    assert!(out.status.success(), "start apiserver: {}", String::from_utf8_lossy(&out.stderr));
}

/// The kubectl-jobset ClusterRole bound to [`USER`] cluster-wide (for -A); unbound when dropped.
struct Grant(String);

impl Grant {
    async fn new(ns: &TestNs) -> Grant {
        ns.apply_repo_role("kubectl-jobset-clusterrole.yaml");
        let name = format!("{}-{USER}", ns.name);
        let user = format!("--user={USER}");
        let out = ns.kubectl(&["create", "clusterrolebinding", &name, "--clusterrole=kubectl-jobset", &user]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let grant = Grant(name);
        wait_for("the cluster-wide binding to take effect", Duration::from_secs(30), || async {
            let who = format!("--as={USER}");
            let out = ns.kubectl(&["auth", "can-i", "patch", "jobsets.jobset.x-k8s.io/status", "-A", &who]);
            out.status.success().then_some(())
        })
        .await;
        grant
    }
}

impl Drop for Grant {
    fn drop(&mut self) {
        let h = harness();
        let _ = Command::new(&h.kubectl)
            .arg("--kubeconfig")
            .arg(&h.kubeconfig)
            .args(["delete", "clusterrolebinding", &self.0, "--ignore-not-found"])
            .output();
    }
}

/// `FLEET` one-Job JobSets labelled `throttle=<label>`, as one multi-document manifest.
fn fleet_yaml(label: &str) -> String {
    (0..FLEET)
        .map(|i| {
            let one = jobset_yaml(&format!("js{i}"), &[("workers", 1, "busybox:1.36")], "");
            let labelled = format!("metadata:\n  labels:\n    throttle: {label}\n  name:");
            format!("---\n{}", one.replacen("metadata:\n  name:", &labelled, 1))
        })
        .collect()
}

/// What the -v=6 request log of the restart shows.
#[derive(Debug)]
#[allow(dead_code)] // `requests` is only shown
struct Figures {
    /// Round trips (each try counts), answered or not.
    requests: usize,
    /// Answers 429 Too Many Requests.
    throttled: usize,
    /// `retrying … after 429 …` lines (the retry layer's, and the restart's if the layer gave up).
    retries: usize,
    /// Status PATCHes answered 200: the restarts.
    status_patches: usize,
}

impl Figures {
    fn of(log: &str) -> Figures {
        let methods = ["GET", "POST", "PATCH", "PUT", "DELETE"];
        let is_request = |l: &&str| methods.iter().any(|m| l.starts_with(&format!("{m} ")));
        Figures {
            requests: log.lines().filter(is_request).count(),
            throttled: methods.iter().map(|m| responses(log, m, "429")).sum(),
            retries: log.lines().filter(|l| l.starts_with("retrying ") && l.contains(" after 429 ")).count(),
            status_patches: log
                .lines()
                .filter(|l| l.starts_with("PATCH ") && l.contains("/status?") && l.contains(" 200 "))
                .count(),
        }
    }
}

/// Every JobSet of the fleet at attempt 1, with the condition our restart wrote.
fn assert_restarted_once_by_us(ns: &TestNs, selector: &str) {
    let out = ns.kubectl(&["get", "jobsets", "-l", selector, "-o", "json"]);
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), FLEET);
    let ours = format!("restart 1 requested by {USER} with kubectl-jobset");
    for js in items {
        let name = &js["metadata"]["name"];
        assert_eq!(js["status"]["restarts"], 1, "{name}");
        let conditions = js["status"]["conditions"].as_array().unwrap();
        let restarting = conditions.iter().find(|c| c["type"] == "RestartingJobSet").unwrap();
        assert_eq!(restarting["message"], ours.as_str(), "{name}");
    }
}

/// Responses with this status in a -v=6 log (`METHOD URL CODE REASON in N milliseconds`).
fn responses(stderr: &str, method: &str, code: &str) -> usize {
    let answered = |l: &&str| l.split_whitespace().nth(2) == Some(code);
    stderr.lines().filter(|l| l.starts_with(&format!("{method} "))).filter(answered).count()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_fleet_restart_under_throttling_restarts_every_jobset_exactly_once() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("throttle").await;
    let label = ns.name.clone();
    let out = ns.kubectl_stdin(&["create", "-f", "-"], Some(&fleet_yaml(&label)));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    wait_for("every fleet Job", Duration::from_secs(120), || async {
        (ns.jobs_api().list(&Default::default()).await.unwrap().items.len() == FLEET).then_some(())
    })
    .await;
    let _grant = Grant::new(&ns).await;
    let kubeconfig = harness().state.join(format!("users/{USER}.kubeconfig"));
    let kubeconfig = kubeconfig.to_str().unwrap();
    let selector = format!("throttle={label}");

    let throttled = Throttled::start();
    let started = Instant::now();
    let out = run_plugin(
        &["restart", "-A", "-l", &selector, "--yes", "-v=6", "--kubeconfig", kubeconfig],
        None,
        &[],
    );
    let took = started.elapsed();
    drop(throttled);

    let tally = format!("{FLEET} restarted, 0 already restarted, 0 skipped, 0 failed");
    assert_eq!(out.code, 0, "{}", out.stderr.lines().rev().take(20).collect::<Vec<_>>().join("\n"));
    assert!(out.stderr.contains(&tally), "{}", out.stderr.lines().last().unwrap_or_default());
    let figures = Figures::of(&out.stderr);
    // Shown with --nocapture: the figures BENCHMARKS.md records.
    #[allow(clippy::print_stderr)]
    {
        eprintln!(
            "fleet restart under throttling ({LIMITS}): {FLEET} JobSets in {:.1}s, {figures:?}",
            took.as_secs_f64()
        );
    }
    let Figures { throttled, retries, status_patches, .. } = figures;
    assert!(throttled > 0, "the API server never throttled: the limits did not bite");
    assert_eq!(retries, throttled, "every 429 was retried, nothing else was");
    assert_eq!(status_patches, FLEET, "one successful restart PATCH per JobSet");
    assert!(took < Duration::from_secs(120), "took {took:?}");

    assert_restarted_once_by_us(&ns, &selector);

    // Leave the controllers idle for the next serialized test: 300 JobSets going away with
    // the namespace would keep the JobSet controller busy for a minute or more.
    let deleted = ns.kubectl(&["delete", "jobsets", "--all", "--wait=false"]);
    assert!(deleted.status.success(), "{}", String::from_utf8_lossy(&deleted.stderr));
    wait_for("the throttled fleet's Jobs to be gone", Duration::from_secs(240), || async {
        ns.jobs_api().list(&Default::default()).await.unwrap().items.is_empty().then_some(())
    })
    .await;
}
