//! e2e: the update strategies (annotation `kubectl-jobset.io/update-strategy`) on the test
//! control plane: the recorder enforcing Opportunistic and Immediate, and the API server
//! refusing template changes of Never JobSets through the ValidatingAdmissionPolicy in
//! deploy/update-strategies.yaml. Each recorder is a child process of the built binary
//! scoped to its test's namespace (`-n`), killed when its guard drops.

#![allow(clippy::print_stderr)] // the log of a failed recorder, on a failed test

#[path = "../support/netproxy_client.rs"]
mod netproxy_client;
#[path = "../support/cluster/mod.rs"]
mod support;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use kube::Api;
use kube::api::{ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use support::{IGNORE_REASON, TestNs, harness, image_of, jobset_yaml, wait_for};

const ANNOTATION: &str = "kubectl-jobset.io/update-strategy";
const CONDITION: &str = "kubectl-jobset.io/UpdateStrategy";
const RESTARTABLE: &str = "  failurePolicy:\n    maxRestarts: 5\n";

/// A recorder process; killed (SIGKILL) when dropped.
struct Recorder {
    child: Child,
    log: PathBuf,
}

impl Recorder {
    fn start(ns: &TestNs, label: &str, extra: &[&str]) -> Recorder {
        Recorder::start_with(&harness().kubeconfig, ns, label, extra)
    }

    fn start_with(kubeconfig: &std::path::Path, ns: &TestNs, label: &str, extra: &[&str]) -> Recorder {
        let h = harness();
        let log = h.state.join(format!("strategy-{}-{label}.log", ns.name));
        let file = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
            .arg("recorder")
            .args(["--kubeconfig", kubeconfig.to_str().unwrap()])
            .args(["-n", &ns.name, "--lease-namespace", &ns.name, "--metrics-addr", "127.0.0.1:0"])
            .args(extra)
            .env_remove("KUBECONFIG")
            .env_remove("POD_NAME")
            .env("HOSTNAME", format!("e2e-{label}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .expect("start the recorder");
        Recorder { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    async fn wait_for_log(&self, text: &str) {
        wait_for(&format!("{text:?} in the recorder's log"), Duration::from_secs(60), || async {
            self.log().contains(text).then_some(())
        })
        .await;
    }

    async fn metrics(&self) -> String {
        let addr = wait_for("the metrics address", Duration::from_secs(30), || async {
            let log = self.log();
            let line = log.lines().find(|l| l.starts_with("serving "))?;
            Some(line.rsplit("http://").next()?.trim().to_owned())
        })
        .await;
        let mut stream = std::net::TcpStream::connect(&addr).expect("connect to the metrics address");
        write!(stream, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
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

/// A JobSet manifest with one replicatedJob `w` and the strategy annotation (if any).
fn manifest(name: &str, strategy: Option<&str>, replicas: i32, image: &str, extra_spec: &str) -> String {
    let yaml = jobset_yaml(name, &[("w", replicas, image)], extra_spec);
    match strategy {
        Some(s) => yaml.replacen(
            &format!("  name: {name}\n"),
            &format!("  name: {name}\n  annotations:\n    {ANNOTATION}: {s}\n"),
            1,
        ),
        None => yaml,
    }
}

async fn set_image(ns: &TestNs, jobset: &str, image: &str) -> Result<(), kube::Error> {
    let patch = json!([{"op": "replace",
        "path": "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image", "value": image}]);
    let patch: json_patch::Patch = serde_json::from_value(patch).unwrap();
    ns.jobsets().patch(jobset, &PatchParams::default(), &Patch::Json::<()>(patch)).await.map(|_| ())
}

fn restarts(jobset: &Value) -> i64 {
    jobset["status"]["restarts"].as_i64().unwrap_or(0)
}

fn condition(jobset: &Value, type_: &str) -> Value {
    let conditions = jobset["status"]["conditions"].as_array().cloned().unwrap_or_default();
    conditions.into_iter().find(|c| c["type"] == type_).unwrap_or(Value::Null)
}

/// Waits until the JobSet's restarts reach `n`; the JobSet then.
async fn wait_for_restarts(ns: &TestNs, jobset: &str, n: i64) -> Value {
    wait_for(&format!("{jobset} at attempt {n}"), Duration::from_secs(60), || async {
        let js = ns.jobset(jobset).await;
        (restarts(&js) >= n).then_some(js)
    })
    .await
}

/// Events about `jobset` with `reason`.
async fn events(ns: &TestNs, jobset: &str, reason: &str) -> Vec<Event> {
    let api: Api<Event> = Api::namespaced(ns.client.clone(), &ns.name);
    let all = api.list(&ListParams::default()).await.expect("list events").items;
    all.into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(jobset))
        .filter(|e| e.reason.as_deref() == Some(reason))
        .collect()
}

async fn wait_for_event(ns: &TestNs, jobset: &str, reason: &str) -> Event {
    wait_for(&format!("an Event {reason} on {jobset}"), Duration::from_secs(30), || async {
        events(ns, jobset, reason).await.into_iter().next()
    })
    .await
}

fn metric_line(metrics: &str, labels: &str) -> Option<i64> {
    let prefix = format!("kubectl_jobset_recorder_update_strategy_actions_total{{{labels}}} ");
    metrics.lines().find_map(|l| l.strip_prefix(&prefix)).and_then(|v| v.trim().parse().ok())
}

/// Stays at `n` restarts for `for_` (no second restart).
async fn stays_at(ns: &TestNs, jobset: &str, n: i64, for_: Duration) {
    let until = std::time::Instant::now() + for_;
    while std::time::Instant::now() < until {
        let js = ns.jobset(jobset).await;
        assert_eq!(restarts(&js), n, "{jobset} was restarted again: {}", js["status"]);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn images_of_attempt(jobs: &[k8s_openapi::api::batch::v1::Job]) -> Vec<String> {
    jobs.iter().map(|j| image_of(j, 0)).collect()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn immediate_restarts_a_drifting_jobset_once_uncounted_with_its_reason_and_an_event() {
    let _ = IGNORE_REASON;
    let ns = TestNs::new("st-imm").await;
    ns.create(&manifest("imm", Some("Immediate"), 2, "busybox:1", RESTARTABLE));
    ns.create(&manifest("plain", None, 1, "busybox:1", RESTARTABLE));
    ns.wait_for_attempt_jobs("imm", 0, 2).await;
    ns.wait_for_attempt_jobs("plain", 0, 1).await;
    let recorder = Recorder::start(&ns, "imm", &["--lease-duration", "3s"]);
    recorder.wait_for_log("watches synced").await;
    // Nothing drifts yet: no restart.
    stays_at(&ns, "imm", 0, Duration::from_secs(2)).await;

    set_image(&ns, "imm", "busybox:2").await.expect("an Immediate JobSet's template can change");
    set_image(&ns, "plain", "busybox:2").await.expect("templates are mutable in this namespace");
    let js = wait_for_restarts(&ns, "imm", 1).await;
    let jobs = ns.wait_for_attempt_jobs("imm", 1, 2).await;
    assert_eq!(images_of_attempt(&jobs), vec!["busybox:2", "busybox:2"], "the new attempt runs the spec");
    assert_eq!(js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0, "never counted");
    let restarting = condition(&js, "RestartingJobSet");
    assert_eq!(restarting["reason"], "UpdateStrategyImmediate", "{restarting}");
    let ours = condition(&js, CONDITION);
    assert_eq!(ours["reason"], "RestartedForSpecRevision", "{ours}");
    assert!(ours["message"].as_str().unwrap().contains(", attempt 1: "), "{ours}");
    let event = wait_for_event(&ns, "imm", "UpdateStrategyImmediate").await;
    assert!(event.note.as_deref().unwrap_or_default().contains("the update strategy Immediate"), "{event:?}");

    // Exactly once: the restarted JobSet runs the spec, and nothing more happens; the
    // JobSet without the annotation is only recorded (the default is RecordOnly).
    stays_at(&ns, "imm", 1, Duration::from_secs(4)).await;
    assert_eq!(restarts(&ns.jobset("plain").await), 0, "no annotation, no restart");
    let plain = ns.wait_for_attempt_jobs("plain", 0, 1).await;
    assert_eq!(images_of_attempt(&plain), vec!["busybox:1"]);
    let metrics = recorder.metrics().await;
    assert_eq!(
        metric_line(&metrics, "strategy=\"Immediate\",action=\"restart\",outcome=\"done\""),
        Some(1),
        "{metrics}"
    );
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn opportunistic_refreshes_a_queued_jobset_and_waits_for_a_running_ones_next_restart() {
    let ns = TestNs::new("st-opp").await;
    let suspended = format!("{RESTARTABLE}  suspend: true\n");
    ns.create(&manifest("queued", Some("Opportunistic"), 2, "busybox:1", &suspended));
    ns.create(&manifest("running", Some("Opportunistic"), 1, "busybox:1", RESTARTABLE));
    ns.wait_for_attempt_jobs("queued", 0, 2).await;
    ns.wait_for_attempt_jobs("running", 0, 1).await;
    let recorder = Recorder::start(&ns, "opp", &["--lease-duration", "3s"]);
    recorder.wait_for_log("watches synced").await;

    set_image(&ns, "queued", "busybox:2").await.unwrap();
    set_image(&ns, "running", "busybox:2").await.unwrap();
    // The queued JobSet is restarted while suspended: its Jobs come back suspended, on the
    // new template, and nothing is counted.
    let js = wait_for_restarts(&ns, "queued", 1).await;
    let jobs = ns.wait_for_attempt_jobs("queued", 1, 2).await;
    assert_eq!(images_of_attempt(&jobs), vec!["busybox:2", "busybox:2"]);
    assert!(jobs.iter().all(|j| j.spec.as_ref().unwrap().suspend == Some(true)), "still suspended");
    assert_eq!(js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0);
    assert_eq!(condition(&js, CONDITION)["reason"], "RefreshedWhileQueued");
    // (The controller turns RestartingJobSet to JobSetSuspended at once: the Event stays.)
    let event = wait_for_event(&ns, "queued", "UpdateStrategyQueuedRefresh").await;
    assert!(event.note.as_deref().unwrap_or_default().contains("free, not counted"), "{event:?}");

    // The running one is not forced: it keeps its Jobs until a natural restart.
    recorder.wait_for_log("applies at the next restart (Opportunistic)").await;
    stays_at(&ns, "running", 0, Duration::from_secs(3)).await;
    let old = ns.wait_for_attempt_jobs("running", 0, 1).await;
    assert_eq!(images_of_attempt(&old), vec!["busybox:1"]);
    ns.fail_job("running-w-0").await;
    let after = ns.wait_for_attempt_jobs("running", 1, 1).await;
    assert_eq!(images_of_attempt(&after), vec!["busybox:2"], "the natural restart took the new template");
    stays_at(&ns, "running", 1, Duration::from_secs(3)).await;
    assert_eq!(restarts(&ns.jobset("queued").await), 1, "the queued refresh happened once");
    let metrics = recorder.metrics().await;
    assert_eq!(
        metric_line(&metrics, "strategy=\"Opportunistic\",action=\"queued_refresh\",outcome=\"done\""),
        Some(1),
        "{metrics}"
    );
    assert_eq!(metric_line(&metrics, "strategy=\"Opportunistic\",action=\"restart\",outcome=\"done\""), None);
}

/// A MutatingAdmissionPolicy that rewrites the image of every Job created in `ns` (not
/// dry runs): the Jobs a JobSet makes then never match its spec. Deleted when dropped.
struct Rewriter {
    name: String,
}

impl Rewriter {
    async fn install(ns: &TestNs) -> Rewriter {
        let name = format!("kjs-e2e-rewrite-{}", ns.name);
        let yaml = format!(
            r#"apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata: {{name: {name}}}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {ns}}}}}
    resourceRules:
    - {{apiGroups: [batch], apiVersions: [v1], operations: [CREATE], resources: [jobs]}}
  matchConditions:
  - {{name: not-a-dry-run, expression: "!request.dryRun"}}
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{{op: "replace", path: "/spec/template/spec/containers/0/image", value: "busybox:rewritten"}}]'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata: {{name: {name}}}
spec:
  policyName: {name}
"#,
            ns = ns.name
        );
        let out = ns.kubectl_stdin(&["apply", "-f", "-"], Some(&yaml));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let rewriter = Rewriter { name };
        // The policy reaches admission through a cache: wait until a Job is rewritten.
        let probe = r#"{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "probe-"},
            "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox:1"}]}}}}"#;
        wait_for("the rewriting policy to take effect", Duration::from_secs(30), || async {
            let out = ns.kubectl_stdin(&["create", "-f", "-", "-o", "json"], Some(probe));
            let job: Value = serde_json::from_slice(&out.stdout).ok()?;
            let name = job["metadata"]["name"].as_str()?.to_owned();
            let _ = ns.kubectl(&["delete", "job", &name, "--wait=false"]);
            let image = &job["spec"]["template"]["spec"]["containers"][0]["image"];
            (image == "busybox:rewritten").then_some(())
        })
        .await;
        rewriter
    }
}

impl Drop for Rewriter {
    fn drop(&mut self) {
        let h = harness();
        for kind in ["mutatingadmissionpolicybinding", "mutatingadmissionpolicy"] {
            let _ = Command::new(&h.kubectl)
                .arg("--kubeconfig")
                .arg(&h.kubeconfig)
                .args(["delete", kind, &self.name, "--ignore-not-found", "--wait=false"])
                .env_remove("KUBECONFIG")
                .output();
        }
    }
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn immediate_never_loops_on_a_template_the_api_server_rewrites() {
    let ns = TestNs::new("st-loop").await;
    let _rewriter = Rewriter::install(&ns).await;
    ns.create(&manifest("drifts", Some("Immediate"), 1, "busybox:1", RESTARTABLE));
    let first = ns.wait_for_attempt_jobs("drifts", 0, 1).await;
    assert_eq!(images_of_attempt(&first), vec!["busybox:rewritten"], "the policy rewrites the Jobs");
    let recorder = Recorder::start(&ns, "loop", &["--lease-duration", "3s"]);
    // One restart for the revision; its Jobs still differ; the strategy says so and stops.
    let js = wait_for_restarts(&ns, "drifts", 1).await;
    assert_eq!(condition(&js, "RestartingJobSet")["reason"], "UpdateStrategyImmediate");
    ns.wait_for_attempt_jobs("drifts", 1, 1).await;
    let stalled = wait_for("the stall on the JobSet", Duration::from_secs(30), || async {
        let js = ns.jobset("drifts").await;
        let ours = condition(&js, CONDITION);
        (ours["reason"] == "DriftPersists").then_some(ours)
    })
    .await;
    assert_eq!(stalled["status"], "False", "{stalled}");
    assert!(stalled["message"].as_str().unwrap().contains("until the spec changes"), "{stalled}");
    let event = wait_for_event(&ns, "drifts", "UpdateStrategyStalled").await;
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    stays_at(&ns, "drifts", 1, Duration::from_secs(5)).await;
    // The CLI says so (the stall is on the JobSet).
    let seen = support::run_plugin(
        &["diff", "drifts"],
        Some(&ns.name),
        &[("KUBECTL_JOBSET_RECORDER_NAMESPACE", &ns.name)],
    );
    assert!(seen.stderr.contains("not restarting again until the spec changes"), "{seen:?}");
    let metrics = recorder.metrics().await;
    assert_eq!(metric_line(&metrics, "strategy=\"Immediate\",action=\"stall\",outcome=\"done\""), Some(1));
    assert_eq!(metric_line(&metrics, "strategy=\"Immediate\",action=\"restart\",outcome=\"done\""), Some(1));

    // The next spec change gets its own (single) restart.
    set_image(&ns, "drifts", "busybox:2").await.unwrap();
    wait_for_restarts(&ns, "drifts", 2).await;
    ns.wait_for_attempt_jobs("drifts", 2, 1).await;
    stays_at(&ns, "drifts", 2, Duration::from_secs(5)).await;
}

/// Applies deploy/update-strategies.yaml and waits until the Never policy refuses.
async fn install_never_policy(ns: &TestNs) {
    let file = format!("{}/deploy/update-strategies.yaml", env!("CARGO_MANIFEST_DIR"));
    let out = ns.kubectl(&["apply", "-f", &file]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    ns.create(&manifest("probe", Some("Never"), 1, "busybox:1", ""));
    wait_for("the Never policy to take effect", Duration::from_secs(30), || async {
        let out = ns.kubectl(&[
            "annotate",
            "jobset",
            "probe",
            &format!("{ANNOTATION}=bogus"),
            "--overwrite",
            "--dry-run=server",
        ]);
        (!out.status.success()).then_some(())
    })
    .await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn never_is_refused_by_the_api_servers_admission_and_the_annotation_alone_may_change() {
    // A namespace where upstream's webhook allows template updates: the refusal is ours.
    let ns = TestNs::new("st-never").await;
    install_never_policy(&ns).await;
    ns.create(&manifest("fixed", Some("Never"), 1, "busybox:1", ""));
    ns.create(&manifest("free", None, 1, "busybox:1", ""));

    let refused = set_image(&ns, "fixed", "busybox:2").await.expect_err("a Never JobSet's template is fixed");
    assert!(refused.to_string().contains("update strategy is Never"), "{refused}");
    // Removing the annotation in the same edit does not get around it.
    let patch = json!([
        {"op": "remove", "path": "/metadata/annotations/kubectl-jobset.io~1update-strategy"},
        {"op": "replace", "path": "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image",
            "value": "busybox:2"}]);
    let patch: json_patch::Patch = serde_json::from_value(patch).unwrap();
    let err = ns.jobsets().patch("fixed", &PatchParams::default(), &Patch::Json::<()>(patch)).await;
    assert!(err.is_err(), "an edit that removes the annotation is judged by the old object");
    // Invalid values are refused at admission, on create and on update.
    let out = ns.kubectl(&["annotate", "jobset", "fixed", &format!("{ANNOTATION}=immediate"), "--overwrite"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an update strategy"));
    let out =
        ns.kubectl_stdin(&["create", "-f", "-"], Some(&manifest("bad", Some("Always"), 1, "busybox:1", "")));
    assert!(!out.status.success(), "a JobSet created with an invalid strategy is refused");
    // The annotation alone may change; then the template may too.
    let out =
        ns.kubectl(&["annotate", "jobset", "fixed", &format!("{ANNOTATION}=Opportunistic"), "--overwrite"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    set_image(&ns, "fixed", "busybox:2").await.expect("no longer Never");
    set_image(&ns, "free", "busybox:2").await.expect("JobSets without the annotation are not affected");
    assert_eq!(support::images(&ns.jobset("fixed").await), vec!["busybox:2"]);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn two_replicas_and_a_killed_leader_make_one_restart_per_revision() {
    let ns = TestNs::new("st-ha").await;
    let _rewriter = Rewriter::install(&ns).await;
    ns.create(&manifest("drifts", Some("Immediate"), 1, "busybox:1", RESTARTABLE));
    ns.wait_for_attempt_jobs("drifts", 0, 1).await;
    let scope = ["--leader-elect", "--lease-duration", "3s"];
    let mut first = Recorder::start(&ns, "ha1", &scope);
    first.wait_for_log("leading").await;
    let second = Recorder::start(&ns, "ha2", &scope);
    second.wait_for_log("watches synced").await;
    // The leader restarts once for the revision; it dies (kill -9) right after, whatever
    // it was doing (the stall, its Event), and the standby takes over.
    wait_for_restarts(&ns, "drifts", 1).await;
    first.kill();
    second.wait_for_log("leading").await;
    wait_for("the stall on the JobSet", Duration::from_secs(30), || async {
        let js = ns.jobset("drifts").await;
        (condition(&js, CONDITION)["reason"] == "DriftPersists").then_some(())
    })
    .await;
    stays_at(&ns, "drifts", 1, Duration::from_secs(4)).await;

    // A new revision, and the new leader killed the moment it is sent: whoever leads
    // next finishes the work, once.
    let third = Recorder::start(&ns, "ha3", &scope);
    third.wait_for_log("watches synced").await;
    set_image(&ns, "drifts", "busybox:2").await.unwrap();
    let mut second = second;
    second.kill();
    third.wait_for_log("leading").await;
    wait_for_restarts(&ns, "drifts", 2).await;
    ns.wait_for_attempt_jobs("drifts", 2, 1).await;
    stays_at(&ns, "drifts", 2, Duration::from_secs(5)).await;
    let js = ns.jobset("drifts").await;
    assert_eq!(js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0);
    drop(third);
}

fn annotation_of(jobset: &Value) -> Option<String> {
    jobset["metadata"]["annotations"][ANNOTATION].as_str().map(str::to_owned)
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_cli_sets_and_shows_the_strategy_and_honours_never_before_sending() {
    let ns = TestNs::new("st-cli").await;
    ns.create(&manifest("opp", None, 1, "busybox:1", ""));
    ns.create(&manifest("fixed", Some("Never"), 1, "busybox:1", ""));
    ns.kubectl(&["label", "jobset", "opp", "fixed", "team=x"]);
    ns.wait_for_attempt_jobs("opp", 0, 1).await;
    ns.wait_for_attempt_jobs("fixed", 0, 1).await;

    // set update-strategy: a dry run changes nothing; then set, then unchanged.
    let out = ns.plugin(&["set", "update-strategy", "opp", "Opportunistic", "--dry-run"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("update strategy set to Opportunistic (was unset) (dry run)"), "{out:?}");
    assert_eq!(annotation_of(&ns.jobset("opp").await), None);
    let out = ns.plugin(&["set", "update-strategy", "opp", "Opportunistic"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("template changes apply at its next restart"), "{out:?}");
    assert_eq!(annotation_of(&ns.jobset("opp").await).as_deref(), Some("Opportunistic"));
    let out = ns.plugin(&["set", "update-strategy", "opp", "Opportunistic"]);
    assert!(out.stdout.contains("update strategy unchanged (Opportunistic)"), "{out:?}");
    let out = ns.plugin(&["set", "update-strategy", "opp", "sometimes"]);
    assert_eq!(out.code, 2, "a usage error: {out:?}");
    assert!(out.stderr.contains("Never, Opportunistic or Immediate"), "{out:?}");

    // list shows it.
    let out = ns.plugin(&["list"]);
    let header: Vec<&str> = out.stdout.lines().next().unwrap().split_whitespace().collect();
    let column = header.iter().position(|h| *h == "STRATEGY").unwrap_or_else(|| panic!("{out:?}"));
    let cell = |name: &str| {
        let row = out.stdout.lines().find(|l| l.starts_with(name)).unwrap();
        row.split_whitespace().nth(column).unwrap().to_owned()
    };
    assert_eq!((cell("opp"), cell("fixed")), ("Opportunistic".into(), "Never".into()), "{out:?}");

    // set image: a Never JobSet named is refused before anything is sent (this namespace
    // allows template changes, so the refusal is the command's own).
    let out = ns.plugin(&["set", "image", "fixed", "main=busybox:2", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("refused: Never (annotation kubectl-jobset.io/update-strategy=Never)"),
        "{out:?}"
    );
    assert_eq!(support::images(&ns.jobset("fixed").await), vec!["busybox:1"]);
    // By label: Never JobSets are skipped under their own reason, the others say what is next.
    let out = ns.plugin(&["set", "image", "-l", "team=x", "main=busybox:2", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("skipped jobset.jobset.x-k8s.io/fixed: refused: Never"), "{out:?}");
    assert!(out.stdout.contains("opp image updated: applies at the next restart (Opportunistic)"), "{out:?}");
    assert_eq!(support::images(&ns.jobset("fixed").await), vec!["busybox:1"]);

    // Immediate, and no recorder (none holds a Lease where the CLI looks): diff says so.
    ns.create(&manifest("imm", Some("Immediate"), 1, "busybox:1", ""));
    ns.wait_for_attempt_jobs("imm", 0, 1).await;
    set_image(&ns, "imm", "busybox:2").await.unwrap();
    let out = support::run_plugin(
        &["diff", "imm"],
        Some(&ns.name),
        &[("KUBECTL_JOBSET_RECORDER_NAMESPACE", &ns.name)],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(
            "applies at the next restart (Immediate, but no running recorder enforces update strategies"
        ),
        "{out:?}"
    );

    // diff and status say what happens next.
    let next = "update strategy Opportunistic: applies at the next restart (Opportunistic)";
    let out = ns.plugin(&["diff", "opp"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(next), "{out:?}");
    let out = ns.plugin(&["status", "opp", "--watch=false"]);
    assert_eq!(out.code, 1, "not rolled out: {out:?}");
    assert!(out.stderr.contains(next), "{out:?}");

    // restart --if-outdated skips a Never JobSet that drifts (changed before it was Never).
    ns.kubectl(&["annotate", "jobset", "fixed", &format!("{ANNOTATION}=Opportunistic"), "--overwrite"]);
    set_image(&ns, "fixed", "busybox:2").await.unwrap();
    ns.kubectl(&["annotate", "jobset", "fixed", &format!("{ANNOTATION}=Never"), "--overwrite"]);
    let out = ns.plugin(&["restart", "--if-outdated", "-l", "team=x"]);
    assert_eq!(out.code, 0, "{out:?}");
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("update strategy Never"), "{out:?}");
    assert_eq!(restarts(&ns.jobset("fixed").await), 0, "Never: not restarted");
    assert_eq!(restarts(&ns.jobset("opp").await), 1, "the drifting Opportunistic JobSet was restarted");

    // rollback: says what is next, and refuses a Never JobSet before sending.
    let out = ns.plugin(&["rollback", "opp", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("next: applies at the next restart (Opportunistic)"), "{out:?}");
    let out = ns.plugin(&["rollback", "fixed", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("refused: Never (annotation kubectl-jobset.io/update-strategy=Never)"),
        "{out:?}"
    );
    assert_eq!(support::images(&ns.jobset("fixed").await), vec!["busybox:2"], "unchanged");
}

/// Takes our matchConditions entry off the JobSet webhook again when dropped (the test
/// cluster stays as upstream registers it).
struct OptInUndo;

impl Drop for OptInUndo {
    fn drop(&mut self) {
        let h = harness();
        let kubectl = |args: &[&str]| {
            Command::new(&h.kubectl)
                .arg("--kubeconfig")
                .arg(&h.kubeconfig)
                .args(args)
                .env_remove("KUBECONFIG")
                .output()
                .unwrap()
        };
        let got = kubectl(&[
            "get",
            "validatingwebhookconfiguration",
            "jobset-validating-webhook-configuration",
            "-o",
            "json",
        ]);
        let Ok(config) = serde_json::from_slice::<Value>(&got.stdout) else { return };
        let mut ops = Vec::new();
        for (i, w) in config["webhooks"].as_array().into_iter().flatten().enumerate() {
            let conditions = w["matchConditions"].as_array().cloned().unwrap_or_default();
            for (j, c) in conditions.iter().enumerate().rev() {
                if c["name"] == "kubectl-jobset-update-strategy-opt-in" {
                    ops.push(json!({"op": "remove", "path": format!("/webhooks/{i}/matchConditions/{j}")}));
                }
            }
        }
        if !ops.is_empty() {
            let patch = serde_json::to_string(&ops).unwrap();
            let _ = kubectl(&[
                "patch",
                "validatingwebhookconfiguration",
                "jobset-validating-webhook-configuration",
                "--type=json",
                "-p",
                &patch,
            ]);
        }
    }
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn on_upstreams_strict_registration_the_opt_in_lets_only_opted_in_jobsets_change_templates() {
    // Upstream's own UPDATE check applies in this namespace.
    let ns = TestNs::immutable("st-stock").await;
    ns.create(&manifest("opted", Some("Opportunistic"), 1, "busybox:1", RESTARTABLE));
    ns.create(&manifest("strict", None, 1, "busybox:1", RESTARTABLE));
    ns.wait_for_attempt_jobs("opted", 0, 1).await;
    let _undo = OptInUndo;
    drop(OptInUndo); // start from upstream's registration, whatever an earlier run left
    let out = ns.plugin(&["admission"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("upstream strict: vjobset-update.kb.io"), "{out:?}");
    let err = set_image(&ns, "opted", "busybox:2").await.expect_err("upstream refuses before the opt-in");
    assert!(err.to_string().contains("immutable") || err.to_string().contains("denied"), "{err}");

    let out = ns.plugin(&["admission", "--apply", "--dry-run"]);
    assert!(out.stdout.contains("patched (dry run)"), "{out:?}");
    let out = ns.plugin(&["admission", "--apply"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("jobset-validating-webhook-configuration patched"), "{out:?}");
    let out = ns.plugin(&["admission"]);
    assert!(out.stdout.starts_with("opt-in: vjobset-update.kb.io"), "{out:?}");
    assert!(out.stdout.contains("policy kubectl-jobset-opt-in: present"), "{out:?}");
    let out = ns.plugin(&["admission", "--apply"]);
    assert!(out.stdout.contains("unchanged: nothing to opt in"), "idempotent: {out:?}");

    // The opted-in JobSet's image change is accepted (once the API server sees the new
    // registration) and applied at its next restart.
    wait_for("the opt-in to reach admission", Duration::from_secs(30), || async {
        set_image(&ns, "opted", "busybox:2").await.ok()
    })
    .await;
    let old = ns.wait_for_attempt_jobs("opted", 0, 1).await;
    assert_eq!(images_of_attempt(&old), vec!["busybox:1"], "running Jobs keep their template");
    ns.fail_job("opted-w-0").await;
    let new = ns.wait_for_attempt_jobs("opted", 1, 1).await;
    assert_eq!(images_of_attempt(&new), vec!["busybox:2"], "the next restart takes the new template");
    // A JobSet without the annotation is still refused by upstream's webhook.
    let err = set_image(&ns, "strict", "busybox:2").await.expect_err("not opted in: still strict");
    assert!(!err.to_string().contains("ValidatingAdmissionPolicy"), "refused by the webhook: {err}");
    // What the webhook would still have checked is kept for the opted-in one.
    let patch = json!({"spec": {"managedBy": "example.com/other"}});
    let err = ns
        .jobsets()
        .patch("opted", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect_err("managedBy stays immutable");
    assert!(err.to_string().contains("spec.managedBy is immutable"), "{err}");
    for (ops, said) in [
        (
            json!([{"op": "replace", "path": "/spec/replicatedJobs/0/replicas", "value": 2}]),
            "replicas cannot change",
        ),
        (
            json!([{"op": "add", "path": "/spec/replicatedJobs/0/groupName", "value": "g"}]),
            "groupName cannot change",
        ),
        (
            json!([{"op": "add", "path": "/spec/replicatedJobs/0/template/spec/parallelism", "value": 2},
                   {"op": "add", "path": "/spec/replicatedJobs/0/template/spec/completions", "value": 3}]),
            "only as ElasticJobSet allows",
        ),
    ] {
        let patch: json_patch::Patch = serde_json::from_value(ops.clone()).unwrap();
        let err = ns.jobsets().patch("opted", &PatchParams::default(), &Patch::Json::<()>(patch)).await;
        assert!(err.unwrap_err().to_string().contains(said), "{ops}");
    }
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_leader_killed_while_its_restart_is_in_flight_still_makes_one_restart() {
    let ns = TestNs::new("st-kill").await;
    // The leader talks through a slow link (250 ms each way): its restart patch is on its
    // way for a quarter of a second, and its answer for another. It is killed (kill -9)
    // before the patch can arrive, then (another JobSet) after it arrived but before the
    // answer did.
    let h = harness();
    let link = netproxy_client::NetProxy::delay_for_cluster(&h.state, 250);
    let slow = h.state.join(format!("strategy-{}-slow.kubeconfig", ns.name));
    link.kubeconfig_via(&h.kubeconfig, &slow);
    let scope = ["--leader-elect", "--lease-duration", "3s", "--request-timeout", "30s"];
    for (i, kill_after_ms) in [150u64, 400].into_iter().enumerate() {
        let name = format!("train-{i}");
        ns.create(&manifest(&name, Some("Immediate"), 2, "busybox:1", RESTARTABLE));
        ns.wait_for_attempt_jobs(&name, 0, 2).await;
        let mut leader = Recorder::start_with(&slow, &ns, &format!("k{i}a"), &scope);
        leader.wait_for_log("leading").await;
        leader.wait_for_log(&format!("{name}: update strategy Immediate: every Job runs")).await;
        let standby = Recorder::start(&ns, &format!("k{i}b"), &scope);
        standby.wait_for_log("watches synced").await;

        set_image(&ns, &name, "busybox:2").await.unwrap();
        // Its reconcile records the new revision, then sends the restart.
        leader.wait_for_log(&format!("{name}: Recorded revision 2")).await;
        tokio::time::sleep(Duration::from_millis(kill_after_ms)).await;
        leader.kill();
        let landed = restarts(&ns.jobset(&name).await);
        standby.wait_for_log("leading").await;
        let js = wait_for_restarts(&ns, &name, 1).await;
        let jobs = ns.wait_for_attempt_jobs(&name, 1, 2).await;
        assert_eq!(images_of_attempt(&jobs), vec!["busybox:2", "busybox:2"]);
        stays_at(&ns, &name, 1, Duration::from_secs(5)).await;
        assert!(condition(&js, CONDITION)["message"].as_str().unwrap().contains(", attempt 1: "));
        eprintln!("{name}: killed {kill_after_ms} ms in; the restart had landed: {}", landed == 1);
        drop((leader, standby));
    }
    drop(link);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_recorders_default_strategy_applies_to_jobsets_without_the_annotation_and_the_cli_names_it() {
    let ns = TestNs::new("st-default").await;
    ns.create(&manifest("plain", None, 1, "busybox:1", RESTARTABLE));
    ns.create(&manifest("own", Some("Opportunistic"), 1, "busybox:1", RESTARTABLE));
    ns.wait_for_attempt_jobs("plain", 0, 1).await;
    ns.wait_for_attempt_jobs("own", 0, 1).await;
    let recorder = Recorder::start(&ns, "def", &["--default-update-strategy", "Immediate"]);
    recorder.wait_for_log("watches synced").await;
    let lease = wait_for("the recorder's Lease", Duration::from_secs(30), || async {
        let api: Api<k8s_openapi::api::coordination::v1::Lease> =
            Api::namespaced(ns.client.clone(), &ns.name);
        api.get_opt("kubectl-jobset-recorder").await.ok().flatten()
    })
    .await;
    let annotations = lease.metadata.annotations.unwrap_or_default();
    assert_eq!(
        annotations.get("kubectl-jobset.io/recorder-update-strategies").map(String::as_str),
        Some("Immediate")
    );

    set_image(&ns, "plain", "busybox:2").await.unwrap();
    set_image(&ns, "own", "busybox:2").await.unwrap();
    wait_for_restarts(&ns, "plain", 1).await;
    let jobs = ns.wait_for_attempt_jobs("plain", 1, 1).await;
    assert_eq!(images_of_attempt(&jobs), vec!["busybox:2"], "the default (Immediate) restarted it");
    stays_at(&ns, "plain", 1, Duration::from_secs(3)).await;
    assert_eq!(
        restarts(&ns.jobset("own").await),
        0,
        "its own annotation (Opportunistic) wins over the default"
    );
    let env = [("KUBECTL_JOBSET_RECORDER_NAMESPACE", ns.name.as_str())];
    let out = support::run_plugin(&["diff", "own"], Some(&ns.name), &env);
    assert!(
        out.stderr.contains("update strategy Opportunistic: applies at the next restart (Opportunistic)"),
        "{out:?}"
    );
    let out = support::run_plugin(&["status", "plain", "--watch=false"], Some(&ns.name), &env);
    assert!(!out.stderr.contains("update strategy"), "nothing drifts, nothing to say: {out:?}");

    // Another default: the CLI names it from the Lease, and the recorder follows it.
    drop(recorder);
    let recorder = Recorder::start(&ns, "def2", &["--default-update-strategy", "Opportunistic"]);
    recorder.wait_for_log("watches synced").await;
    wait_for("the Lease to say Opportunistic", Duration::from_secs(30), || async {
        let api: Api<k8s_openapi::api::coordination::v1::Lease> =
            Api::namespaced(ns.client.clone(), &ns.name);
        let lease = api.get_opt("kubectl-jobset-recorder").await.ok().flatten()?;
        let annotations = lease.metadata.annotations.unwrap_or_default();
        (annotations.get("kubectl-jobset.io/recorder-update-strategies").map(String::as_str)
            == Some("Opportunistic"))
        .then_some(())
    })
    .await;
    set_image(&ns, "plain", "busybox:3").await.unwrap();
    let out = support::run_plugin(&["diff", "plain"], Some(&ns.name), &env);
    assert!(
        out.stderr.contains(
            "update strategy Opportunistic (the recorder's default): applies at the next restart (Opportunistic)"
        ),
        "{out:?}"
    );
    recorder.wait_for_log("plain: update strategy Opportunistic: applies at the next restart").await;
    assert_eq!(restarts(&ns.jobset("plain").await), 1, "not restarted for the new template");
}

/// The Never policy's expression over `spec.replicatedJobs` (from deploy/update-strategies.yaml).
fn never_expression() -> String {
    let file = format!("{}/deploy/update-strategies.yaml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(file).unwrap();
    let policy = text.split("\n---\n").find(|d| d.contains("kind: ValidatingAdmissionPolicy\n")).unwrap();
    let policy: Value = serde_saphyr::from_str(policy).unwrap();
    policy["spec"]["validations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["expression"].as_str().unwrap().to_owned())
        .find(|e| e.contains("oldObject.spec.replicatedJobs.exists(o, o.name == r.name"))
        .expect("the Never rule")
}

/// While suspended, Never lets exactly upstream's five scheduling fields change: every
/// other field of the pod template and the Job spec, as the JobSet CRD the API server
/// serves has them, is compared (a field a newer JobSet adds fails this test).
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_never_rule_compares_every_field_of_the_crd_but_the_scheduling_ones() {
    let ns = TestNs::new("st-schema").await;
    let out = ns.kubectl(&["get", "crd", "jobsets.jobset.x-k8s.io", "-o", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let crd: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let rjob = &schema["properties"]["spec"]["properties"]["replicatedJobs"]["items"];
    let job = &rjob["properties"]["template"]["properties"]["spec"];
    let pod = &job["properties"]["template"]["properties"];
    let keys = |v: &Value| v["properties"].as_object().unwrap().keys().cloned().collect::<Vec<String>>();
    let expression = never_expression();
    let mut missing = Vec::new();
    for field in keys(rjob).into_iter().filter(|f| !["name", "template"].contains(&f.as_str())) {
        if !expression.contains(&format!("o.?{field} == r.?{field}")) {
            missing.push(format!("replicatedJobs[].{field}"));
        }
    }
    let elastic = ["parallelism", "completions", "template"];
    for field in keys(job).into_iter().filter(|f| !elastic.contains(&f.as_str())) {
        if !expression.contains(&format!("o.template.?spec.?{field} == r.template.?spec.?{field}")) {
            missing.push(format!("template.spec.{field}"));
        }
    }
    for (part, mutable_while_suspended) in [
        ("metadata", &["labels", "annotations"][..]),
        ("spec", &["nodeSelector", "tolerations", "schedulingGates"]),
    ] {
        for field in keys(&pod[part]) {
            let compared = format!(
                "o.template.?spec.?template.?{part}.?{field} == r.template.?spec.?template.?{part}.?{field}"
            );
            let found = expression.find(&compared);
            let suspended_part = expression.find("variables.suspended").unwrap();
            match found {
                None => missing.push(format!("template.spec.template.{part}.{field}")),
                // The scheduling fields are compared only when not suspended.
                Some(_) if mutable_while_suspended.contains(&field.as_str()) => {
                    let guarded = expression.split("variables.suspended").skip(1).any(|tail| {
                        tail.split("variables.suspended").next().unwrap_or_default().contains(&compared)
                    });
                    assert!(guarded && suspended_part > 0, "{field} is compared only when not suspended");
                }
                Some(_) => {}
            }
        }
    }
    assert_eq!(missing, Vec::<String>::new(), "fields the Never rule does not compare");
}

/// Never on the real API server's admission: a queued JobSet may change only upstream's
/// scheduling fields (for Kueue), a running one nothing; parallelism and completions of
/// Indexed replicatedJobs scale only as ElasticJobSet allows.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn never_keeps_all_but_the_scheduling_fields_while_queued_and_scales_only_as_elastic_allows() {
    let ns = TestNs::new("st-never-q").await;
    install_never_policy(&ns).await;
    ns.create(&manifest("queued", Some("Never"), 1, "busybox:1", "  suspend: true\n"));
    ns.create(&manifest("running", Some("Never"), 1, "busybox:1", ""));
    let indexed = manifest("elastic", Some("Never"), 1, "busybox:1", "").replace(
        "      spec:\n        template:",
        "      spec:\n        completionMode: Indexed\n        parallelism: 2\n        completions: 2\n        template:",
    );
    ns.create(&indexed);
    let plain = manifest("plain", Some("Never"), 1, "busybox:1", "").replace(
        "      spec:\n        template:",
        "      spec:\n        completionMode: NonIndexed\n        template:",
    );
    ns.create(&plain);
    let pod = "/spec/replicatedJobs/0/template/spec/template";
    let patch = |name: &'static str, ops: Value| {
        let ns = &ns;
        async move {
            let patch: json_patch::Patch = serde_json::from_value(ops).unwrap();
            ns.jobsets().patch(name, &PatchParams::default(), &Patch::Json::<()>(patch)).await.map(|_| ())
        }
    };
    // Kueue's fields, while queued: accepted.
    for ops in [
        json!([{"op": "add", "path": format!("{pod}/spec/nodeSelector"), "value": {"pool": "a"}}]),
        json!([{"op": "add", "path": format!("{pod}/spec/tolerations"), "value": [{"key": "k", "operator": "Exists"}]}]),
        json!([{"op": "add", "path": format!("{pod}/metadata"), "value": {"labels": {"kueue.x-k8s.io/podset": "w"}}}]),
    ] {
        patch("queued", ops.clone()).await.unwrap_or_else(|e| panic!("{ops}: {e}"));
    }
    // Anything else, even while queued: refused by our policy.
    for ops in [
        json!([{"op": "add", "path": format!("{pod}/spec/volumes"), "value": [{"name": "v", "emptyDir": {}}]}]),
        json!([{"op": "add", "path": format!("{pod}/spec/serviceAccountName"), "value": "other"}]),
        json!([{"op": "add", "path": "/spec/replicatedJobs/0/template/spec/backoffLimit", "value": 9}]),
        json!([{"op": "replace", "path": format!("{pod}/spec/containers/0/image"), "value": "busybox:2"}]),
    ] {
        let err = patch("queued", ops.clone()).await.expect_err(&ops.to_string());
        assert!(err.to_string().contains("update strategy is Never"), "{ops}: {err}");
    }
    // Running: not even the scheduling fields.
    let ops = json!([{"op": "add", "path": format!("{pod}/spec/nodeSelector"), "value": {"pool": "a"}}]);
    let err = patch("running", ops).await.expect_err("running: fixed");
    assert!(err.to_string().contains("update strategy is Never"), "{err}");
    // Elastic scaling of an Indexed replicatedJob: equal and at least 1, as upstream.
    let job = "/spec/replicatedJobs/0/template/spec";
    let scale = |p: i64, c: i64| {
        json!([{"op": "replace", "path": format!("{job}/parallelism"), "value": p},
               {"op": "replace", "path": format!("{job}/completions"), "value": c}])
    };
    patch("elastic", scale(3, 3)).await.expect("scaled as ElasticJobSet allows");
    let err = patch("elastic", scale(4, 3)).await.expect_err("unequal");
    assert!(err.to_string().contains("only as ElasticJobSet allows"), "{err}");
    let err = patch("plain", json!([{"op": "add", "path": format!("{job}/parallelism"), "value": 2}]))
        .await
        .expect_err("a NonIndexed replicatedJob does not scale");
    assert!(err.to_string().contains("update strategy is Never"), "{err}");
    assert_eq!(support::images(&ns.jobset("queued").await), vec!["busybox:1"]);
}
