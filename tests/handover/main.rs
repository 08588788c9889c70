//! Issue 17 faults: `rollback --handover` killed right after each step (the test-only
//! hook KUBECTL_JOBSET_TEST_CRASH_AFTER), and the API server killed mid-handover. Each
//! time the Jobs keep running and a rerun of the same command completes. Its own test
//! binary (cargo runs binaries one at a time, never beside the e2e binary): the crash
//! tests share the cluster with each other; the API server test runs alone.

#[path = "../support/handover_setup.rs"]
mod handover_setup;
#[path = "../support/cluster/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use handover_setup::*;
use support::*;

/// Crash tests read-lock (they may run together), the API server test write-locks.
static CLUSTER: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

const CRASH_CODE: i32 = 86;

fn cluster(args: &[&str]) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cluster/cluster.sh");
    let out = Command::new(script).args(args).env("KJS_STATE_DIR", &harness().state).output().unwrap();
    assert!(out.status.success(), "cluster.sh {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

const HANDOVER: &[&str] = &["rollback", NAME, "--to-revision", "1", "--handover", "-y"];

/// Kills the handover right after `step`, checks that the Jobs still run, and that a
/// rerun of the same command completes.
async fn crash_after(step: &str) {
    let _shared = CLUSTER.read().await;
    let ns = TestNs::new(&format!("hand-crash-{step}")).await;
    prepare(&ns, &[]).await;
    let before = running(&ns).await;
    let old_uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();

    let out = run_plugin(HANDOVER, Some(&ns.name), &[("KUBECTL_JOBSET_TEST_CRASH_AFTER", step)]);
    assert_eq!(out.code, CRASH_CODE, "{out:?}");
    assert!(out.stderr.contains(&format!("exiting after step {step}")), "{out:?}");
    let meanwhile = running(&ns).await;
    assert_eq!(meanwhile.jobs, before.jobs, "the Jobs keep running after a crash at {step}");
    assert_eq!(meanwhile.pods, before.pods);
    assert!(
        ns.kubectl(&["get", "configmap", &format!("kubectl-jobset-handover-{NAME}")]).status.success(),
        "journal kept"
    );

    let out = ns.plugin(HANDOVER);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("resuming the handover"), "{out:?}");
    assert_handed_over(&ns, &before, &old_uid).await;
    assert_eq!(images(&ns.jobset(NAME).await), ["busybox:1.36", "busybox:1.36"]);
    if step == "journal" {
        // Nothing after the journal had happened: the whole run is a resume; the
        // rollback is recorded and the next failure builds from revision 1's templates.
        next_restart_uses(&ns, "busybox:1.36", 1).await;
    }
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn crash_after_journal_then_rerun_completes() {
    crash_after("journal").await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn crash_after_delete_then_rerun_completes() {
    crash_after("delete").await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn crash_after_create_then_rerun_completes() {
    crash_after("create").await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn crash_after_adopt_then_rerun_completes() {
    crash_after("adopt").await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn crash_after_restore_then_rerun_completes() {
    crash_after("restore").await;
}

/// A rerun with other templates while a journal exists is refused, with the reason;
/// the same command then finishes it.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn rerun_with_other_templates_is_refused_while_a_journal_exists() {
    let _shared = CLUSTER.read().await;
    let ns = TestNs::new("hand-other").await;
    prepare(&ns, &["busybox:1.38"]).await;
    let before = running(&ns).await;
    let old_uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();
    let out = run_plugin(HANDOVER, Some(&ns.name), &[("KUBECTL_JOBSET_TEST_CRASH_AFTER", "journal")]);
    assert_eq!(out.code, CRASH_CODE, "{out:?}");

    let out = ns.plugin(&["rollback", NAME, "--to-revision", "2", "--handover", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("another handover, by `kubectl jobset rollback train --to-revision 1 --handover`"),
        "{out:?}"
    );
    assert!(out.stderr.contains("with other templates"), "{out:?}");
    assert_eq!(ns.jobset(NAME).await["metadata"]["uid"], old_uid.as_str(), "nothing changed");

    // Once the old JobSet is gone, only the command that began it may finish it.
    let out = run_plugin(HANDOVER, Some(&ns.name), &[("KUBECTL_JOBSET_TEST_CRASH_AFTER", "delete")]);
    assert_eq!(out.code, CRASH_CODE, "{out:?}");
    let out = ns.plugin(&["rollback", NAME, "--to-revision", "2", "--handover", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("run that command again to finish it first"), "{out:?}");

    let out = ns.plugin(HANDOVER);
    assert_eq!(out.code, 0, "{out:?}");
    assert_handed_over(&ns, &before, &old_uid).await;
}

/// The API server dies mid-handover (after the delete, before the create): the command
/// fails saying how to finish; the Jobs keep running; the rerun completes.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn api_server_dies_mid_handover_then_rerun_completes() {
    let _alone = CLUSTER.write().await;
    let ns = TestNs::new("hand-apiserver").await;
    prepare(&ns, &[]).await;
    let before = running(&ns).await;
    let old_uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();

    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
        .args(HANDOVER)
        .args(["-n", &ns.name, "--request-timeout=5s", "--kubeconfig"])
        .arg(&harness().kubeconfig)
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .env("KUBECTL_JOBSET_TEST_PAUSE_AFTER", "delete")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("paused after delete") {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "ended before the pause: {seen}");
        seen.push_str(&line);
    }
    cluster(&["stop-component", "apiserver"]);
    let stopped = Instant::now();
    child.stdin.as_mut().unwrap().write_all(b"\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let took = stopped.elapsed();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    cluster(&["start-component", "apiserver"]);
    assert_eq!(out.status.code(), Some(1), "{seen}{rest}");
    assert!(
        rest.contains("the handover stopped at step") && rest.contains("run the same command again"),
        "{rest}"
    );
    assert!(took < Duration::from_secs(60), "gave up within its request timeout and retries: {took:?}");

    // The Jobs kept running without a JobSet, and the rerun completes.
    let meanwhile = running_without_jobset(&ns).await;
    assert_eq!(meanwhile, before.jobs);
    let out = ns.plugin(HANDOVER);
    assert_eq!(out.code, 0, "{out:?}");
    assert_handed_over(&ns, &before, &old_uid).await;
}

/// Job name → uid once the API server answers again (the JobSet may be gone).
async fn running_without_jobset(ns: &TestNs) -> std::collections::BTreeMap<String, String> {
    wait_for("the API server", Duration::from_secs(60), || async {
        let jobs = ns.jobs_api().list(&Default::default()).await.ok()?;
        Some(
            jobs.items
                .into_iter()
                .filter(|j| j.metadata.deletion_timestamp.is_none())
                .map(|j| (j.metadata.name.unwrap(), j.metadata.uid.unwrap()))
                .collect(),
        )
    })
    .await
}
