//! Fault injection on the real control plane, with the harness's own process control:
//! the API server dies mid-command, the JobSet controller is stopped. These tests run
//! one at a time (they stop shared components) and in their own test binary, which
//! cargo runs after the e2e binary, never beside it. Each restores the cluster. The
//! throttling test (throttle.rs) restarts the API server with low in-flight limits.
//! transient.rs runs every command through the fault proxy (tests/support/netproxy.rs),
//! one fault on one read or write at a time.

#[path = "../support/netproxy_client.rs"]
mod netproxy_client;
#[path = "../e2e/support.rs"]
mod support;
mod throttle;
mod transient;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use support::*;

/// One fault at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn cluster(args: &[&str]) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cluster/cluster.sh");
    let out = Command::new(script).args(args).env("KJS_STATE_DIR", &harness().state).output().unwrap();
    assert!(out.status.success(), "cluster.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The JobSet as kubectl sees it (a fresh connection, so it works across API server restarts).
fn jobset_json(ns: &TestNs, name: &str) -> Value {
    let out = ns.kubectl(&["get", "jobset", name, "-o", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Both replicatedJobs' images changed in one edit.
fn set_images(ns: &TestNs, image: &str) {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"{image}"}},
            {{"op":"replace","path":"/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let out = ns.kubectl(&["patch", "jobset", "train", "--type=json", "-p", &patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn api_server_dies_during_rollback() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("fault-rollback").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36"), ("driver", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    assert_eq!(ns.plugin(&["history", "train"]).code, 0);
    set_images(&ns, "busybox:1.37");
    assert_eq!(ns.plugin(&["history", "train"]).code, 0);

    // The user reads the diff at the prompt; the API server dies; the user says yes.
    let prompt = AtPrompt::start(&format!("rollback train -n {} --request-timeout=5s", ns.name));
    cluster(&["stop-component", "apiserver"]);
    let asked = Instant::now();
    let (code, rest) = prompt.answer("y");
    let took = asked.elapsed();
    cluster(&["start-component", "apiserver"]);

    assert_eq!(code, Some(1), "{rest}");
    assert!(took < Duration::from_secs(10), "ends within its request timeout: {took:?}");
    assert!(rest.contains("cannot reach the Kubernetes API server"), "{rest}");
    // Untouched, not half rolled back.
    assert_eq!(images(&jobset_json(&ns, "train")), ["busybox:1.37", "busybox:1.37"]);

    // Running it again completes the job.
    let out = ns.plugin(&["rollback", "train", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(images(&jobset_json(&ns, "train")), ["busybox:1.36", "busybox:1.36"]);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn api_server_dies_during_restart_wait() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("fault-restart").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;

    let h = harness();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
        .args([
            "restart",
            "train",
            "--expect-attempt",
            "0",
            "--wait=ready",
            "--timeout=120s",
            "--request-timeout=5s",
        ])
        .args(["-n", &ns.name, "--kubeconfig"])
        .arg(&h.kubeconfig)
        .env_remove("KUBECONFIG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "jobset.jobset.x-k8s.io/train restarted (attempt 0 → 1)\n");
    ns.wait_for_attempt_jobs("train", 1, 2).await;
    cluster(&["stop-component", "apiserver"]);
    let stopped = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = stopped.elapsed();
    cluster(&["start-component", "apiserver"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(took < Duration::from_secs(15), "ends within its request timeout: {took:?}");
    assert!(stderr.contains("cannot reach the Kubernetes API server"), "{stderr}");

    // The restart itself landed once; re-running the same command finishes the wait.
    let ns = TestNs { name: ns.name.clone(), client: admin_client().await };
    for job in ["train-workers-0", "train-workers-1"] {
        ns.ready_job(job).await;
    }
    let out = ns.plugin(&["restart", "train", "--expect-attempt", "0", "--wait=ready", "--timeout=60s"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/train already restarted (attempt 1)\n");
    assert_eq!(jobset_json(&ns, "train")["status"]["restarts"], 1);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_stopped_jobset_controller_is_named_when_waiting_times_out() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("fault-controller").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    cluster(&["stop-component", "jobset"]);
    let out = ns.plugin(&["restart", "train", "--wait", "--timeout=5s"]);
    cluster(&["start-component", "jobset"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("timed out after 5s waiting for jobset train restart 1"), "{out:?}");
    assert!(out.stderr.contains("nothing is acting on the restart"), "{out:?}");
    assert!(out.stderr.contains("Is the JobSet controller running?"), "{out:?}");
    // Back up, the controller carries the restart out.
    ns.wait_for_attempt_jobs("train", 1, 2).await;
}

/// Issue 18: a process that reads the JobSet while its attempt's Jobs are not all there
/// yet must not restart it again. With the controller stopped, a Job deleted by hand
/// stays missing, so the window is held open deterministically.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_restart_is_refused_while_the_current_attempt_is_incomplete() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("fault-incomplete").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    cluster(&["stop-component", "jobset"]);
    let deleted = ns.kubectl(&["delete", "job", "train-workers-1", "--cascade=background"]);
    let out = ns.plugin(&["restart", "train"]);
    let forced = ns.plugin(&["restart", "train", "--force", "--dry-run=client"]);
    cluster(&["start-component", "jobset"]);
    assert!(deleted.status.success(), "{}", String::from_utf8_lossy(&deleted.stderr));
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        out.stderr.trim(),
        "error: jobset.jobset.x-k8s.io/train not restarted: the previous restart is still in progress: \
         attempt 0 is still being created: train-workers-1 not created yet; wait for it to finish, or pass --force",
        "one line, naming the missing Job"
    );
    assert_eq!(
        jobset_json(&ns, "train")["status"]["restarts"].as_i64().unwrap_or(0),
        0,
        "nothing was changed"
    );
    assert_eq!(forced.code, 0, "--force overrides: {forced:?}");
    // Back up, the controller recreates the Job and a restart goes through.
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    let out = ns.plugin(&["restart", "train"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(jobset_json(&ns, "train")["status"]["restarts"], 1);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_harness_script_handles_repeats_cleanly() {
    let _serial = SERIAL.lock().await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cluster/cluster.sh");
    let run = |args: &[&str], state: &std::path::Path| {
        Command::new(script).args(args).env("KJS_STATE_DIR", state).output().unwrap()
    };
    // Starting a running cluster again: nothing restarts, the env lines are printed.
    let out = run(&["up"], &harness().state);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already running"));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("export KUBECONFIG="));
    let out = run(&["status"], &harness().state);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).matches(": running (pid").count(), 4);
    // Stopping a cluster that is not running.
    let nowhere = std::env::temp_dir().join(format!("kjs-not-running-{}", std::process::id()));
    let out = run(&["down"], &nowhere);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));
    let out = run(&["status"], &nowhere);
    assert_eq!(out.status.code(), Some(1));
    // Unknown subcommands print the usage and exit 2.
    let out = run(&["frobnicate"], &nowhere);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("fail-job"));
}
