//! e2e: `kubectl jobset recorder` as processes against the test control plane. Each
//! recorder is a child process of the built binary, killed when its guard drops (also on
//! panic). Tests run one at a time: `-A` recorders would otherwise record each other's
//! namespaces. Each uses a Lease in its own namespace, so commands elsewhere (reading
//! kube-system) never see these recorders.

#![allow(clippy::print_stderr)] // the log of a failed recorder, on a failed test

#[path = "../support/netproxy_client.rs"]
mod netproxy_client;
#[path = "../support/cluster/mod.rs"]
mod support;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use kube::api::{ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use support::{IGNORE_REASON, TestNs, harness, jobset_yaml, run_plugin, wait_for};

/// One test at a time (see the module's comment).
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A recorder process; killed (SIGKILL) when dropped.
struct Recorder {
    child: Child,
    log: PathBuf,
    /// The delaying proxy it talks through, if any (dropped after the process).
    _link: Option<netproxy_client::NetProxy>,
}

impl Recorder {
    fn start(ns: &TestNs, label: &str, args: &[&str]) -> Recorder {
        Recorder::start_with(&harness().kubeconfig, ns, label, args)
    }

    /// Started with `kubeconfig` (e.g. one through a delaying proxy).
    fn start_with(kubeconfig: &std::path::Path, ns: &TestNs, label: &str, args: &[&str]) -> Recorder {
        let h = harness();
        let log = h.state.join(format!("recorder-{}-{label}.log", ns.name));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
            .arg("recorder")
            .args(["--kubeconfig", kubeconfig.to_str().unwrap()])
            .args(["--lease-namespace", &ns.name])
            .args(args)
            .env_remove("KUBECONFIG")
            .env_remove("POD_NAME")
            .env("HOSTNAME", format!("e2e-{label}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start the recorder");
        Recorder { child, log, _link: None }
    }

    /// Started one slow link away from the API server (`delay_ms` each way), recording
    /// `-n` its test namespace.
    fn start_behind_slow_link(ns: &TestNs, label: &str, delay_ms: u64) -> Recorder {
        let h = harness();
        let link = netproxy_client::NetProxy::delay_for_cluster(&h.state, delay_ms);
        let kubeconfig = h.state.join(format!("recorder-{}-{label}.kubeconfig", ns.name));
        link.kubeconfig_via(&h.kubeconfig, &kubeconfig);
        let args =
            ["-n", &ns.name, "--metrics-addr", "0", "--lease-duration", "5s", "--request-timeout", "30s"];
        let mut recorder = Recorder::start_with(&kubeconfig, ns, label, &args);
        recorder._link = Some(link);
        recorder
    }

    fn identity(&self) -> String {
        let label = self.log.file_stem().unwrap().to_str().unwrap().rsplit('-').next().unwrap().to_owned();
        format!("e2e-{label}_{}", self.child.id())
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the log shows `text`.
    async fn wait_for_log(&self, text: &str) {
        wait_for(&format!("{text:?} in the recorder's log"), Duration::from_secs(30), || async {
            self.log().contains(text).then_some(())
        })
        .await;
    }

    /// The address it serves metrics on (started with `--metrics-addr 127.0.0.1:0`).
    async fn metrics_addr(&self) -> String {
        wait_for("the metrics address", Duration::from_secs(30), || async {
            let log = self.log();
            let line = log.lines().find(|l| l.starts_with("serving "))?;
            Some(line.rsplit("http://").next()?.trim().to_owned())
        })
        .await
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM; the exit status and how long it took to exit.
    fn terminate(&mut self) -> (std::process::ExitStatus, Duration) {
        let started = Instant::now();
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return (status, started.elapsed());
            }
            assert!(started.elapsed() < Duration::from_secs(15), "the recorder did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.kill();
        if std::thread::panicking() {
            eprintln!("--- recorder log {} ---\n{}", self.log.display(), self.log());
        }
    }
}

/// Plain HTTP GET; (status code, body).
fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).expect("connect to the metrics address");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

fn metric(body: &str, name: &str) -> f64 {
    body.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in\n{body}"))
}

/// The JobSet's ControllerRevisions, as stored.
async fn revisions(ns: &TestNs, jobset: &str) -> Vec<ControllerRevision> {
    let api: Api<ControllerRevision> = Api::namespaced(ns.client.clone(), &ns.name);
    let lp = ListParams::default().labels(&format!("kubectl-jobset.io/jobset-name={jobset}"));
    let mut items = api.list(&lp).await.unwrap().items;
    items.sort_by_key(|r| r.revision);
    items
}

fn image_of(revision: &ControllerRevision) -> String {
    let data = &revision.data.as_ref().unwrap().0;
    data["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Each revision's number and image, in the order given.
fn numbered(revisions: &[ControllerRevision]) -> Vec<(i64, String)> {
    revisions.iter().map(|r| (r.revision, image_of(r))).collect()
}

fn annotation(revision: &ControllerRevision, key: &str) -> String {
    revision.metadata.annotations.as_ref().and_then(|a| a.get(key)).cloned().unwrap_or_default()
}

/// Waits until the JobSet has a revision of `image` whose attempts are `attempts`.
async fn wait_for_revision(ns: &TestNs, jobset: &str, image: &str, attempts: &str) {
    wait_for(
        &format!("a revision of {image} with attempts {attempts:?}"),
        Duration::from_secs(60),
        || async {
            revisions(ns, jobset)
                .await
                .iter()
                .any(|r| {
                    image_of(r) == image && annotation(r, "kubectl-jobset.io/restart-attempts") == attempts
                })
                .then_some(())
        },
    )
    .await;
}

async fn set_image(ns: &TestNs, jobset: &str, image: &str) {
    let patch = json!([{"op": "replace",
        "path": "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image", "value": image}]);
    let patch: json_patch::Patch = serde_json::from_value(patch).unwrap();
    ns.jobsets()
        .patch(jobset, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
        .expect("patch the image");
}

/// Fails the first live Job of `attempt` and waits for the Jobs of `attempt + 1`.
async fn fail_and_restart(ns: &TestNs, jobset: &str, attempt: i32) {
    let jobs = ns.wait_for_attempt_jobs(jobset, attempt, 1).await;
    ns.fail_job(jobs[0].metadata.name.as_deref().unwrap()).await;
    ns.wait_for_attempt_jobs(jobset, attempt + 1, 1).await;
}

async fn lease(ns: &TestNs) -> Option<Lease> {
    Api::<Lease>::namespaced(ns.client.clone(), &ns.name).get_opt("kubectl-jobset-recorder").await.unwrap()
}

fn holder(lease: &Option<Lease>) -> String {
    lease.as_ref().and_then(|l| l.spec.as_ref()?.holder_identity.clone()).unwrap_or_default()
}

const RESTARTABLE: &str = "  failurePolicy:\n    maxRestarts: 5\n";

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn acceptance_two_recorders_keep_every_template_and_every_attempt() {
    let _serial = SERIAL.lock().await;
    let _ = IGNORE_REASON;
    let ns = TestNs::new("rec-accept").await;
    let r1 = Recorder::start(&ns, "a1", &["-A", "--metrics-addr", "0", "--lease-duration", "3s"]);
    let r2 = Recorder::start(&ns, "a2", &["-A", "--metrics-addr", "0", "--lease-duration", "3s"]);
    r1.wait_for_log("watches synced").await;
    r2.wait_for_log("watches synced").await;
    let mut r1 = r1;

    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    fail_and_restart(&ns, "train", 0).await;
    wait_for_revision(&ns, "train", "busybox:v2", "1").await;

    r1.kill();
    // v3 and v4 back to back, as a user would type them.
    set_image(&ns, "train", "busybox:v3").await;
    set_image(&ns, "train", "busybox:v4").await;
    wait_for_revision(&ns, "train", "busybox:v4", "").await;
    let r1 = Recorder::start(&ns, "a1b", &["-A", "--metrics-addr", "0", "--lease-duration", "3s"]);
    r1.wait_for_log("watches synced").await;
    fail_and_restart(&ns, "train", 1).await;
    wait_for_revision(&ns, "train", "busybox:v4", "2").await;

    let stored = revisions(&ns, "train").await;
    let out = run_plugin(
        &["history", "train", "-o", "json"],
        Some(&ns.name),
        &[("KUBECTL_JOBSET_RECORDER_NAMESPACE", &ns.name)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let history: Value = serde_json::from_str(&out.stdout).unwrap();
    let listed = history["revisions"].as_array().unwrap();
    let summary: Vec<(String, Vec<i64>, String)> = listed
        .iter()
        .map(|r| {
            let image = r["images"][0]["images"][0].as_str().unwrap().to_owned();
            let attempts =
                r["restartAttempts"].as_array().unwrap().iter().map(|a| a.as_i64().unwrap()).collect();
            (image, attempts, r["source"].as_str().unwrap().to_owned())
        })
        .collect();
    let spec = "spec".to_owned();
    assert_eq!(
        summary,
        vec![
            ("busybox:v1".to_owned(), vec![0], spec.clone()),
            ("busybox:v2".to_owned(), vec![1], spec.clone()),
            ("busybox:v3".to_owned(), vec![], spec.clone()),
            ("busybox:v4".to_owned(), vec![2], spec.clone()),
        ],
        "one revision per template, in order, each attempt credited once\n{}",
        out.stdout
    );
    let numbers: BTreeSet<i64> = listed.iter().map(|r| r["revision"].as_i64().unwrap()).collect();
    assert_eq!(numbers.len(), 4, "unique revision numbers: {numbers:?}");
    assert_eq!(history["unobservedAttempts"], json!([]), "no unobserved attempts");
    // The recorders wrote all of it: the command found it as stored before it ran.
    let stored: Vec<(String, i64)> =
        stored.iter().map(|r| (r.metadata.name.clone().unwrap(), r.revision)).collect();
    let shown: Vec<(String, i64)> = listed
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_owned(), r["revision"].as_i64().unwrap()))
        .collect();
    assert_eq!(stored, shown);
    drop((r1, r2));
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn killing_the_leader_hands_over_within_the_lease_duration_and_nothing_is_lost() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-leader").await;
    let scope = ["-n", ns.name.as_str(), "--leader-elect", "--lease-duration", "4s", "--metrics-addr", "0"];
    let first = Recorder::start(&ns, "l1", &scope);
    first.wait_for_log("leading").await;
    let second = Recorder::start(&ns, "l2", &scope);
    second.wait_for_log("standing by").await;
    assert_eq!(holder(&lease(&ns).await), first.identity());

    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    assert!(!second.log().contains("Recorded revision"), "a standby records nothing:\n{}", second.log());

    let mut first = first;
    first.kill();
    let killed = Instant::now();
    let last_renewal = lease(&ns).await.unwrap().spec.unwrap().renew_time.unwrap().0;
    // Changed while nobody leads: the new leader records it when it takes over.
    set_image(&ns, "train", "busybox:v2").await;
    wait_for("the standby to take the Lease", Duration::from_secs(10), || async {
        (holder(&lease(&ns).await) == second.identity()).then_some(())
    })
    .await;
    let handover = killed.elapsed();
    let taken = lease(&ns).await.unwrap().spec.unwrap().acquire_time.unwrap().0;
    // Taken as soon as the dead leader's Lease expired: its last renewal plus the lease
    // duration (4 s), give or take the standby's round trip on a shared machine.
    let after_expiry = last_renewal.duration_until(taken);
    assert!(
        after_expiry <= jiff::SignedDuration::from_millis(4_750),
        "taken {after_expiry:?} after the last renewal"
    );
    assert!(
        handover <= Duration::from_secs(5),
        "handover took {handover:?} after the kill (lease duration 4 s)"
    );
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    fail_and_restart(&ns, "train", 0).await;
    wait_for_revision(&ns, "train", "busybox:v2", "1").await;
    let stored = revisions(&ns, "train").await;
    assert_eq!(stored.len(), 2, "one revision per template");
    assert_eq!(annotation(&stored[0], "kubectl-jobset.io/restart-attempts"), "0");
    let transitions = lease(&ns).await.unwrap().spec.unwrap().lease_transitions;
    assert_eq!(transitions, Some(1));
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_restarted_recorder_catches_up_without_duplicates_and_prunes_beyond_the_limit() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-catchup").await;
    let args =
        ["-n", ns.name.as_str(), "--metrics-addr", "0", "--history-limit", "3", "--lease-duration", "3s"];
    let mut recorder = Recorder::start(&ns, "c1", &args);
    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    recorder.kill();

    set_image(&ns, "train", "busybox:v2").await;
    let recorder = Recorder::start(&ns, "c2", &args);
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    let caught_up: Vec<(String, i64)> = revisions(&ns, "train")
        .await
        .iter()
        .map(|r| (r.metadata.name.clone().unwrap(), r.revision))
        .collect();
    assert_eq!(caught_up.len(), 2);
    let mut recorder = recorder;
    recorder.kill();
    // A third start over an up-to-date history changes nothing.
    let recorder = Recorder::start(&ns, "c3", &args);
    recorder.wait_for_log("watches synced").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let again: Vec<(String, i64)> = revisions(&ns, "train")
        .await
        .iter()
        .map(|r| (r.metadata.name.clone().unwrap(), r.revision))
        .collect();
    assert_eq!(again, caught_up, "no duplicates and no renumbering after a restart");

    for image in ["busybox:v3", "busybox:v4", "busybox:v5"] {
        set_image(&ns, "train", image).await;
        wait_for_revision(&ns, "train", image, "").await;
    }
    wait_for("pruning to 3 revisions", Duration::from_secs(30), || async {
        let images: Vec<String> = revisions(&ns, "train").await.iter().map(image_of).collect();
        // The running one (v1, attempt 0) and the spec's are always kept.
        (images == ["busybox:v1", "busybox:v4", "busybox:v5"]).then_some(())
    })
    .await;
    drop(recorder);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn endpoints_answer_events_are_published_and_sigterm_releases_the_lease() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-ops").await;
    let mut recorder = Recorder::start(
        &ns,
        "o1",
        &["-n", ns.name.as_str(), "--metrics-addr", "127.0.0.1:0", "--lease-duration", "10s"],
    );
    let addr = recorder.metrics_addr().await;
    assert_eq!(http_get(&addr, "/healthz").0, 200);
    wait_for("/readyz", Duration::from_secs(30), || async {
        (http_get(&addr, "/readyz").0 == 200).then_some(())
    })
    .await;
    assert_eq!(http_get(&addr, "/nothing").0, 404);

    let yaml = jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE).replace(
        "  name: train\n",
        "  name: train\n  annotations:\n    kubernetes.io/change-cause: first rollout\n",
    );
    ns.create(&yaml);
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    let stored = revisions(&ns, "train").await;
    assert_eq!(annotation(&stored[0], "kubernetes.io/change-cause"), "first rollout");
    assert_eq!(annotation(&stored[0], "kubectl-jobset.io/source"), "spec");

    let (status, body) = http_get(&addr, "/metrics");
    assert_eq!(status, 200);
    assert_eq!(metric(&body, "kubectl_jobset_recorder_revisions_recorded_total"), 1.0);
    assert_eq!(metric(&body, "kubectl_jobset_recorder_attempts_credited_total"), 1.0);
    assert_eq!(metric(&body, "kubectl_jobset_recorder_reconcile_errors_total"), 0.0);
    assert_eq!(metric(&body, "kubectl_jobset_recorder_watch_restarts_total"), 0.0);
    assert!(metric(&body, "kubectl_jobset_recorder_event_to_write_seconds_count") >= 1.0);
    // What operators script against, as controller-runtime exports it.
    assert!(body.contains(&format!(
        "kubectl_jobset_recorder_build_info{{version=\"{}\"}} 1",
        env!("CARGO_PKG_VERSION")
    )));
    assert!(metric(&body, "process_resident_memory_bytes") > 1_000_000.0, "{body}");
    assert!(metric(&body, "process_start_time_seconds") > 1_600_000_000.0, "{body}");
    assert_eq!(metric(&body, "kubectl_jobset_recorder_leader"), 1.0);

    let events = wait_for("the RevisionRecorded Event", Duration::from_secs(30), || async {
        let out = ns.kubectl(&["events", "--for", "jobset/train"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.contains("RevisionRecorded").then_some(text)
    })
    .await;
    assert!(events.contains("Recorded revision 1 from the spec"), "{events}");

    assert!(!holder(&lease(&ns).await).is_empty());
    let (status, took) = recorder.terminate();
    assert!(status.success(), "exit status {status:?}\n{}", recorder.log());
    assert!(took < Duration::from_secs(6), "stopped after {took:?}");
    assert_eq!(holder(&lease(&ns).await), "", "the Lease is released on SIGTERM");
    assert!(recorder.log().contains("released the Lease"));
}

/// (name, number, attempts, resourceVersion) of each stored revision: what a reconcile
/// that writes nothing leaves as it was.
async fn stored_state(ns: &TestNs, jobset: &str) -> Vec<(String, i64, String, String)> {
    revisions(ns, jobset)
        .await
        .iter()
        .map(|r| {
            (
                r.metadata.name.clone().unwrap(),
                r.revision,
                annotation(r, "kubectl-jobset.io/restart-attempts"),
                r.metadata.resource_version.clone().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_per_job_restart_inside_an_attempt_records_no_revision_and_renumbers_nothing() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-perjob").await;
    let recorder = Recorder::start(
        &ns,
        "p1",
        &["-n", ns.name.as_str(), "--metrics-addr", "127.0.0.1:0", "--lease-duration", "5s"],
    );
    let spec = "  failurePolicy:\n    maxRestarts: 3\n    rules:\n    - {name: one, action: RestartJob}\n";
    ns.create(&jobset_yaml("train", &[("w", 2, "busybox:v1")], spec));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    let before = stored_state(&ns, "train").await;

    let addr = recorder.metrics_addr().await;
    let reconciles = || metric(&http_get(&addr, "/metrics").1, "kubectl_jobset_recorder_reconciles_total");
    let seen = reconciles();
    // The CLI sees the recorder's Lease and leaves the history to it.
    let env = [("KUBECTL_JOBSET_RECORDER_NAMESPACE", ns.name.as_str())];
    let out = run_plugin(&["restart", "train", "--job", "w/1"], Some(&ns.name), &env);
    assert_eq!(out.code, 0, "{out:?}");
    wait_for("train-w-1 recreated from the spec inside attempt 0", Duration::from_secs(60), || async {
        let jobs = ns.jobs_of("train").await;
        jobs.iter()
            .any(|j| {
                let labels = j.metadata.labels.as_ref();
                j.metadata.name.as_deref() == Some("train-w-1")
                    && j.metadata.deletion_timestamp.is_none()
                    && labels
                        .and_then(|l| l.get("jobset.sigs.k8s.io/job-restart-attempt"))
                        .map(String::as_str)
                        == Some("1")
            })
            .then_some(())
    })
    .await;
    // The recorder reconciles the Job's deletion and its recreation (each within moments
    // of its watch event); give it time to act on the last.
    wait_for("the recorder to reconcile the restart", Duration::from_secs(30), || async {
        (reconciles() > seen).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = stored_state(&ns, "train").await;
    assert_eq!(
        after, before,
        "attempt 0 stays v1's (its older Job runs v1), the recreated Job runs v2's template: \
         no new revision, no rebuilt one, no renumbering, nothing rewritten"
    );
    assert!(!recorder.log().contains("rebuilt"), "{}", recorder.log());
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_echo_of_our_own_revision_write_is_not_reconciled_and_the_next_edit_still_is() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-echo").await;
    let recorder = Recorder::start(
        &ns,
        "e1",
        &["-n", ns.name.as_str(), "--metrics-addr", "127.0.0.1:0", "--lease-duration", "5s"],
    );
    let addr = recorder.metrics_addr().await;
    let counter = |name: &str| metric(&http_get(&addr, "/metrics").1, name);
    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    // Let the Jobs' first status updates pass: from here on, only our edits change anything.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let skipped = counter("kubectl_jobset_recorder_reconciles_skipped_total");

    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    // The revision just written comes back as a watch event and queues the JobSet again;
    // the stores then hold what the reconcile left, so it is not reconciled a second time.
    wait_for("the echo of the v2 revision to be skipped", Duration::from_secs(30), || async {
        (counter("kubectl_jobset_recorder_reconciles_skipped_total") > skipped).then_some(())
    })
    .await;

    // Settled is not deaf: the next edit is a change of the JobSet, and is recorded.
    set_image(&ns, "train", "busybox:v3").await;
    wait_for_revision(&ns, "train", "busybox:v3", "").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let stored = revisions(&ns, "train").await;
    assert_eq!(
        numbered(&stored),
        [(1, "busybox:v1".to_owned()), (2, "busybox:v2".to_owned()), (3, "busybox:v3".to_owned())],
        "each template once, numbered in order"
    );
    assert_eq!(counter("kubectl_jobset_recorder_reconcile_errors_total"), 0.0, "{}", recorder.log());
}

/// The recorder's LISTs of ControllerRevisions after its watches synced, from its `-v=6`
/// request log (watches and the first list are not counted).
fn revision_lists_after_sync(log: &str) -> Vec<String> {
    let after = log.split_once("watches synced").map(|(_, rest)| rest).unwrap_or_default();
    after
        .lines()
        .filter(|l| l.starts_with("GET https://") && l.contains("/controllerrevisions"))
        .filter(|l| !l.contains("watch=true") && !l.contains("watch=1"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_recorder_renumbers_a_duplicate_its_watch_shows_without_reading_back_its_writes() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-dupes").await;
    let args = ["-n", ns.name.as_str(), "--metrics-addr", "0", "--lease-duration", "5s", "-v", "6"];
    let recorder = Recorder::start(&ns, "d1", &args);
    recorder.wait_for_log("watches synced").await;
    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    // Its writes were numbered from its store: no LIST to read them back (the CLI does one).
    let lists = revision_lists_after_sync(&recorder.log());
    assert!(lists.is_empty(), "the recorder listed revisions after syncing: {lists:#?}");

    // Another writer, from an older view, gives v1 the number v2 has: a duplicate.
    let stored = revisions(&ns, "train").await;
    assert_eq!(numbered(&stored), [(1, "busybox:v1".to_owned()), (2, "busybox:v2".to_owned())]);
    let v1 = stored[0].metadata.name.clone().unwrap();
    let patch: json_patch::Patch = serde_json::from_value(json!([
        {"op": "test", "path": "/revision", "value": 1}, {"op": "replace", "path": "/revision", "value": 2}
    ]))
    .unwrap();
    Api::<ControllerRevision>::namespaced(ns.client.clone(), &ns.name)
        .patch(&v1, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
        .expect("give v1 the number of v2");
    // The watch shows it; the later-recorded of the two moves past the highest number.
    let settled = wait_for("the duplicate number moved apart", Duration::from_secs(30), || async {
        let stored = revisions(&ns, "train").await;
        let now = numbered(&stored);
        (now == [(2, "busybox:v1".to_owned()), (3, "busybox:v2".to_owned())]).then_some(now)
    })
    .await;
    assert_eq!(settled.len(), 2, "no revision added or lost");
    let lists = revision_lists_after_sync(&recorder.log());
    assert!(lists.is_empty(), "renumbered from the store, not a LIST: {lists:#?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_recorder_and_the_cli_recording_at_once_keep_revision_numbers_unique() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-cli").await;
    // The recorder is one slow link away (250 ms each way) and the CLI is not, so the CLI
    // records the latest template while the recorder, from an older view of the store,
    // numbers the one before it: the same number for two templates, unless the writers
    // check what they numbered.
    let recorder = Recorder::start_behind_slow_link(&ns, "w1", 250);
    recorder.wait_for_log("watches synced").await;
    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    // The CLI looks for a recorder where none runs, so (given --record) it records what it
    // sees, at the same time as the recorder: two writers of one JobSet's history.
    let env = [("KUBECTL_JOBSET_RECORDER_NAMESPACE", "kjs-no-recorder-here")];
    let mut images = vec!["busybox:v1".to_owned()];
    for round in 0..4 {
        // Two edits back to back: the recorder records both in order while the CLI
        // records the latest, each numbering from what it read.
        for step in 0..2 {
            let image = format!("busybox:r{round}-{step}");
            set_image(&ns, "train", &image).await;
            images.push(image);
        }
        let runs: Vec<_> = (0..3)
            .map(|_| {
                let ns = ns.name.clone();
                std::thread::spawn(move || run_plugin(&["diff", "train", "--record"], Some(&ns), &env))
            })
            .collect();
        for run in runs {
            let out = run.join().unwrap();
            assert_eq!(out.code, 1, "the JobSet drifted: {out:?}");
        }
        // The slow recorder records the round's first template too, before the next round.
        wait_for_revision(&ns, "train", &format!("busybox:r{round}-0"), "").await;
    }
    // Settled: every template once, every number once.
    let all: BTreeSet<String> = images.iter().cloned().collect();
    let settled =
        wait_for("every template recorded under a number of its own", Duration::from_secs(60), || async {
            let stored = revisions(&ns, "train").await;
            let numbers: BTreeSet<i64> = stored.iter().map(|r| r.revision).collect();
            let recorded: BTreeSet<String> = stored.iter().map(image_of).collect();
            (numbers.len() == stored.len() && recorded == all).then_some(stored)
        })
        .await;
    let recorded: BTreeSet<String> = settled.iter().map(image_of).collect();
    assert_eq!(recorded, images.iter().cloned().collect::<BTreeSet<_>>(), "one revision per template");
    assert_eq!(settled.len(), images.len(), "no template recorded twice");
    assert!(settled.iter().all(|r| annotation(r, "kubectl-jobset.io/source") == "spec"));
    let shown: Vec<String> = settled
        .iter()
        .map(|r| {
            let a = |k: &str| annotation(r, &format!("kubectl-jobset.io/{k}"));
            format!(
                "{} {} {} attempts={:?} at={}",
                r.revision,
                r.metadata.name.as_deref().unwrap_or(""),
                image_of(r),
                a("restart-attempts"),
                a("recorded-at")
            )
        })
        .collect();
    assert_eq!(
        annotation(&settled[0], "kubectl-jobset.io/restart-attempts"),
        "0",
        "the first template ran attempt 0:\n{}\n{}",
        shown.join("\n"),
        recorder.log()
    );
    drop(recorder);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn sigterm_publishes_the_events_still_queued_for_what_was_recorded() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-flush").await;
    // One slow link (250 ms each way): with 8 Events in flight at a time, the Events of
    // 12 revisions recorded together are still queued when SIGTERM comes.
    let mut recorder = Recorder::start_behind_slow_link(&ns, "f1", 250);
    recorder.wait_for_log("watches synced").await;
    let names: Vec<String> = (0..12).map(|i| format!("train{i}")).collect();
    let fleet: Vec<String> = names.iter().map(|n| jobset_yaml(n, &[("w", 1, "busybox:v1")], "")).collect();
    ns.create(&fleet.join("---\n"));
    wait_for("12 revisions recorded", Duration::from_secs(60), || async {
        (recorder.log().matches("Recorded revision 1").count() == 12).then_some(())
    })
    .await;
    let (status, took) = recorder.terminate();
    assert!(status.success(), "exit status {status:?}\n{}", recorder.log());
    assert!(took < Duration::from_secs(6), "stopped after {took:?}");
    let log = recorder.log();
    assert!(!log.contains("did not finish in time"), "{log}");
    let out = ns.kubectl(&["get", "events.events.k8s.io", "-o", "json"]);
    let events: Value = serde_json::from_slice(&out.stdout).unwrap();
    let recorded: BTreeSet<String> = events["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["reason"] == "RevisionRecorded")
        .map(|e| e["regarding"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        recorded,
        names.iter().cloned().collect::<BTreeSet<_>>(),
        "an Event for every revision\n{log}"
    );
}

/// `kubectl apply -f -` of `manifests`, in no particular namespace.
fn kubectl_apply(flags: &[&str], manifests: &str) -> std::process::Output {
    let h = harness();
    let mut kubectl = Command::new(&h.kubectl)
        .arg("--kubeconfig")
        .arg(&h.kubeconfig)
        .arg("apply")
        .args(flags)
        .args(["-f", "-"])
        .env_remove("KUBECONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    kubectl.stdin.take().unwrap().write_all(manifests.as_bytes()).unwrap();
    kubectl.wait_with_output().unwrap()
}

/// The ClusterRole and its binding as shipped, the Lease's Role in the test's namespace;
/// the service account they bind (for `--as`), once the API server honours them.
async fn apply_deployed_rbac(ns: &TestNs) -> &'static str {
    // The ClusterRole and its binding as shipped; the Lease's Role in the test's namespace.
    let manifests = deploy_manifests();
    let rbac: Vec<&str> = manifests
        .split("\n---\n")
        .filter(|doc| {
            ["kind: ClusterRole", "kind: Role\n", "kind: RoleBinding"].iter().any(|k| doc.contains(k))
        })
        .collect();
    let rbac = rbac.join("\n---\n").replace("namespace: kube-system", &format!("namespace: {}", ns.name));
    let out = kubectl_apply(&[], &rbac);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let service_account = "system:serviceaccount:kubectl-jobset:kubectl-jobset-recorder";
    wait_for("the recorder's RBAC to take effect", Duration::from_secs(30), || async {
        let out = ns.kubectl(&[
            "auth",
            "can-i",
            "create",
            "controllerrevisions.apps",
            &format!("--as={service_account}"),
        ]);
        out.status.success().then_some(())
    })
    .await;
    service_account
}

fn deploy_manifests() -> String {
    std::fs::read_to_string(format!("{}/deploy/recorder.yaml", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_deployed_rbac_is_enough_to_keep_exact_history() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-rbac").await;
    let service_account = apply_deployed_rbac(&ns).await;
    let recorder = Recorder::start(
        &ns,
        "r1",
        &[
            "-n",
            ns.name.as_str(),
            "--as",
            service_account,
            "--metrics-addr",
            "0",
            "--lease-duration",
            "3s",
            "--history-retention",
            "5s",
            "-v",
            "1",
        ],
    );
    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    fail_and_restart(&ns, "train", 0).await;
    wait_for_revision(&ns, "train", "busybox:v2", "1").await;
    let stored = revisions(&ns, "train").await;
    let sources: Vec<String> = stored.iter().map(|r| annotation(r, "kubectl-jobset.io/source")).collect();
    assert_eq!(sources, ["spec", "spec"], "nothing rebuilt from running Jobs with client-side defaults");
    assert!(holder(&lease(&ns).await).starts_with("e2e-r1_"), "the Lease is renewed with the Role");
    let log = recorder.log();
    assert!(
        log.contains("cannot dry-run a Job"),
        "dry runs are not allowed, client-side defaults are used:\n{log}"
    );
    assert!(!log.contains("warning:"), "{log}");
    let events = ns.kubectl(&["events", "--for", "jobset/train"]);
    assert!(String::from_utf8_lossy(&events.stdout).contains("RevisionRecorded"));
    // The history of the deleted JobSet: confirmed gone (get), marked (patch) and pruned
    // (delete) with the same RBAC.
    assert!(ns.kubectl(&["delete", "jobset", "train", "--wait=true"]).status.success());
    recorder.wait_for_log("is gone: keeping 2 revision(s)").await;
    wait_for("the kept history pruned", Duration::from_secs(30), || async {
        revisions(&ns, "train").await.is_empty().then_some(())
    })
    .await;
    let log = recorder.log();
    assert!(!log.contains("warning:"), "{log}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_manifests_pass_a_server_side_dry_run() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-deploy").await;
    let manifests =
        std::fs::read_to_string(format!("{}/deploy/recorder.yaml", env!("CARGO_MANIFEST_DIR"))).unwrap();
    // Namespaced objects need their namespace to exist for a server-side dry run: the
    // manifests go to the test's namespace instead of kubectl-jobset (the Namespace object
    // itself is dry-run as written).
    let placed = manifests.replace("namespace: kubectl-jobset\n", &format!("namespace: {}\n", ns.name));
    let out = kubectl_apply(&["--dry-run=server"], &placed);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{}", stdout, String::from_utf8_lossy(&out.stderr));
    for object in [
        "namespace/kubectl-jobset",
        "serviceaccount/kubectl-jobset-recorder",
        "clusterrole.rbac.authorization.k8s.io/kubectl-jobset-recorder",
        "clusterrolebinding.rbac.authorization.k8s.io/kubectl-jobset-recorder",
        "role.rbac.authorization.k8s.io/kubectl-jobset-recorder-lease",
        "rolebinding.rbac.authorization.k8s.io/kubectl-jobset-recorder-lease",
        "deployment.apps/kubectl-jobset-recorder",
        "service/kubectl-jobset-recorder-metrics",
        "poddisruptionbudget.policy/kubectl-jobset-recorder",
    ] {
        assert!(stdout.contains(&format!("{object} ")), "{object} not applied:\n{stdout}");
    }
}

/// Issue 25, point 7: history that outlives its JobSet. The recorder releases the
/// revisions a command wrote (owned), writes its own without an owner, marks them when
/// the JobSet is deleted (seen by its watch, or at startup when it was deleted while no
/// recorder ran), keeps them for `--history-retention`, then prunes them. `history` shows
/// a deleted JobSet's kept history per uid, newest first; a JobSet created again under
/// the name keeps its own.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn history_outlives_a_deleted_jobset_for_the_retention_then_is_pruned() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-retain").await;
    let env = [("KUBECTL_JOBSET_RECORDER_NAMESPACE", ns.name.as_str())];
    let plugin = |args: &[&str]| run_plugin(args, Some(&ns.name), &env);
    let owners = |r: &ControllerRevision| r.metadata.owner_references.clone().unwrap_or_default().len();
    let uid_of = |r: &ControllerRevision| {
        r.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("kubectl-jobset.io/jobset-uid"))
            .cloned()
            .unwrap_or_default()
    };
    let yaml = jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE);
    ns.create(&yaml);
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    let first = ns.jobset("train").await["metadata"]["uid"].as_str().unwrap().to_owned();
    // Recorded by a command while no recorder runs: owned, as the garbage collector needs.
    assert_eq!(plugin(&["history", "train", "--record"]).code, 0);
    let stored = revisions(&ns, "train").await;
    assert_eq!((stored.len(), owners(&stored[0]), uid_of(&stored[0])), (1, 1, first.clone()));

    let args = ["-n", ns.name.as_str(), "--metrics-addr", "127.0.0.1:0", "--history-retention", "45s"];
    let recorder = Recorder::start(&ns, "keep", &args);
    recorder.wait_for_log("watches synced").await;
    let addr = recorder.metrics_addr().await;
    wait_for("the command's revision released", Duration::from_secs(30), || async {
        revisions(&ns, "train").await.iter().all(|r| owners(r) == 0).then_some(())
    })
    .await;
    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    let stored = revisions(&ns, "train").await;
    assert!(stored.iter().all(|r| owners(r) == 0 && uid_of(r) == first), "{stored:?}");

    // Deleted: the garbage collector leaves them; the recorder marks them, once.
    assert!(ns.kubectl(&["delete", "jobset", "train", "--wait=true"]).status.success());
    recorder
        .wait_for_log(&format!("jobset {}/train (uid {first}) is gone: keeping 2 revision(s)", ns.name))
        .await;
    let stored = revisions(&ns, "train").await;
    assert_eq!(stored.len(), 2);
    let deleted_at = annotation(&stored[0], "kubectl-jobset.io/jobset-deleted-at");
    let prune_at = annotation(&stored[0], "kubectl-jobset.io/prune-at");
    assert!(!deleted_at.is_empty() && !prune_at.is_empty(), "{stored:?}");
    let (_, body) = http_get(&addr, "/metrics");
    assert_eq!(metric(&body, "kubectl_jobset_recorder_deleted_jobset_revisions"), 2.0);

    let out = plugin(&["history", "train"]);
    assert_eq!(out.code, 0, "{out:?}");
    let heading = out.stdout.lines().next().unwrap_or_default().to_owned();
    assert!(heading.starts_with("jobset.jobset.x-k8s.io/train (deleted "), "{out:?}");
    assert!(
        heading.contains(&format!("at {deleted_at}; uid {first}; its history is pruned at {prune_at}")),
        "{out:?}"
    );
    assert_eq!(out.stdout.lines().filter(|l| l.contains("w=busybox:v")).count(), 2, "{out:?}");
    let out = plugin(&["history", "train", "-o", "json"]);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["deleted"]["uid"], first.as_str());
    assert_eq!(doc["deleted"]["pruneAt"], prune_at.as_str());
    let out = plugin(&["history", "train", "--revision", "1"]);
    assert!(out.code == 0 && out.stdout.contains("image: busybox:v1"), "{out:?}");
    let out = plugin(&["rollback", "train", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("nothing to roll back"), "{out:?}");

    // The name used again: the new JobSet's history is its own, the kept one untouched.
    ns.create(&yaml);
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    let second = ns.jobset("train").await["metadata"]["uid"].as_str().unwrap().to_owned();
    wait_for("the new JobSet's revision", Duration::from_secs(30), || async {
        revisions(&ns, "train").await.iter().any(|r| uid_of(r) == second).then_some(())
    })
    .await;
    let out = plugin(&["history", "train", "-o", "json"]);
    assert!(out.code == 0 && !out.stderr.contains("warning"), "{out:?}");
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["revisions"].as_array().unwrap().len(), 1, "{doc}");
    assert!(doc.get("deleted").is_none(), "{doc}");

    // Deleted while no recorder runs: the next one marks it when it starts.
    drop(recorder);
    assert!(ns.kubectl(&["delete", "jobset", "train", "--wait=true"]).status.success());
    let recorder = Recorder::start(&ns, "keep2", &args);
    recorder
        .wait_for_log(&format!("jobset {}/train (uid {second}) is gone: keeping 1 revision(s)", ns.name))
        .await;
    let out = plugin(&["history", "train"]);
    assert_eq!(out.code, 0, "{out:?}");
    let headings: Vec<&str> =
        out.stdout.lines().filter(|l| l.starts_with("jobset.jobset.x-k8s.io/train")).collect();
    assert_eq!(headings.len(), 2, "one per uid: {out:?}");
    assert!(headings[0].contains(&second) && headings[1].contains(&first), "newest first: {out:?}");

    // Pruned once the retention has passed.
    wait_for("the kept history pruned", Duration::from_secs(90), || async {
        revisions(&ns, "train").await.is_empty().then_some(())
    })
    .await;
    recorder.wait_for_log("pruned 1 revision(s)").await;
    let addr = recorder.metrics_addr().await;
    let (_, body) = http_get(&addr, "/metrics");
    assert_eq!(metric(&body, "kubectl_jobset_recorder_revisions_pruned_total"), 3.0, "{body}");
    assert_eq!(metric(&body, "kubectl_jobset_recorder_deleted_jobset_revisions"), 0.0, "{body}");
    let out = plugin(&["history", "train"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("not found"), "{out:?}");
}

/// A handover while the recorder runs: the recorder's revisions have no owner, so the
/// handover finds them by their uid label; the new object adopts them, and the recorder
/// releases them again under the new uid: the history is the new JobSet's, not a
/// deleted one's.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_handover_while_the_recorder_runs_keeps_the_history_with_the_new_object() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-handover").await;
    let env = [("KUBECTL_JOBSET_RECORDER_NAMESPACE", ns.name.as_str())];
    let recorder = Recorder::start(&ns, "ho", &["-n", ns.name.as_str(), "--metrics-addr", "0"]);
    recorder.wait_for_log("watches synced").await;
    ns.create(&jobset_yaml("train", &[("w", 1, "busybox:v1")], RESTARTABLE));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    wait_for_revision(&ns, "train", "busybox:v1", "0").await;
    set_image(&ns, "train", "busybox:v2").await;
    wait_for_revision(&ns, "train", "busybox:v2", "").await;
    let old = ns.jobset("train").await["metadata"]["uid"].as_str().unwrap().to_owned();
    let out =
        run_plugin(&["rollback", "train", "--to-revision", "1", "--handover", "-y"], Some(&ns.name), &env);
    assert_eq!(out.code, 0, "{out:?}");
    let new = ns.jobset("train").await["metadata"]["uid"].as_str().unwrap().to_owned();
    assert_ne!(old, new);
    wait_for("the history released under the new uid", Duration::from_secs(30), || async {
        let stored = revisions(&ns, "train").await;
        let settled = stored.len() == 2
            && stored.iter().all(|r| {
                r.metadata.owner_references.as_deref().unwrap_or_default().is_empty()
                    && r.metadata.labels.as_ref().unwrap()["kubectl-jobset.io/jobset-uid"] == new
                    && annotation(r, "kubectl-jobset.io/jobset-deleted-at").is_empty()
            });
        settled.then_some(())
    })
    .await;
    let out = run_plugin(&["history", "train", "-o", "json"], Some(&ns.name), &env);
    assert_eq!(out.code, 0, "{out:?}");
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["revisions"].as_array().unwrap().len(), 2, "{doc}");
    assert!(doc.get("deleted").is_none(), "{doc}");
    assert!(!recorder.log().contains("pruned"), "{}", recorder.log());
}

/// Issue 29 point 3: the recorder drives rollouts, with the RBAC deploy/ ships. A rollout
/// started with --detach (nobody drives it in a terminal) goes through its batches.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_recorder_drives_a_detached_rollout_with_the_deployed_rbac() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("rec-rollout").await;
    let service_account = apply_deployed_rbac(&ns).await;
    let names = ["d0", "d1", "d2"];
    for name in names {
        ns.create(&jobset_yaml(name, &[("w", 1, "busybox:v1")], RESTARTABLE));
    }
    for name in names {
        ns.wait_for_attempt_jobs(name, 0, 1).await;
    }
    let args = [
        "-n",
        ns.name.as_str(),
        "--as",
        service_account,
        "--metrics-addr",
        "127.0.0.1:0",
        "--lease-duration",
        "3s",
    ];
    let recorder = Recorder::start(&ns, "ro", &args);
    let start = ns.plugin(&[
        "rollout",
        "start",
        "r",
        "d0",
        "d1",
        "d2",
        "--image",
        "main=busybox:v2",
        "--batch-size",
        "1",
        "--gate",
        "ready=1s",
        "--detach",
        "-y",
    ]);
    assert_eq!(start.code, 0, "{start:?}");
    recorder.wait_for_log("rollout ").await;
    // No kubelet here: each new attempt's Jobs are made ready as they come.
    for name in names {
        for job in ns.wait_for_attempt_jobs(name, 1, 1).await {
            ns.ready_job(job.metadata.name.as_deref().unwrap()).await;
        }
    }
    wait_for("the rollout to complete", Duration::from_secs(120), || async {
        let out = ns.plugin(&["rollout", "status", "r", "-o", "json"]);
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).ok()?;
        (doc["status"]["phase"] == "Completed").then_some(())
    })
    .await;
    for name in names {
        let js = ns.jobset(name).await;
        assert_eq!(js["status"]["restarts"], 1, "{name}: one restart");
        assert_eq!(
            js.pointer("/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image").unwrap(),
            "busybox:v2"
        );
    }
    // The driver says it on its next look after the journal's last write.
    recorder.wait_for_log("every batch passed its gate").await;
    let log = recorder.log();
    assert!(log.contains(&format!("rollout {}/r: driving it", ns.name)), "{log}");
    assert!(!log.contains("warning:") && !log.contains("stopped:"), "{log}");
    // Its steps are counted: one patch and one restart per JobSet.
    let (_, body) = http_get(&recorder.metrics_addr().await, "/metrics");
    let steps = |action: &str| {
        metric(
            &body,
            &format!("kubectl_jobset_recorder_rollout_steps_total{{action=\"{action}\",outcome=\"done\"}}"),
        )
    };
    assert_eq!((steps("patch"), steps("restart")), (3.0, 3.0), "{body}");
}
