//! The states a JobSet can be in besides running on the spec's template (issue: the
//! truth in every state): queued (suspended), managed by another controller, and an
//! attempt that never becomes ready. Each test pins what the tool says and does there.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{AtPrompt, TestNs, image_of, jobset_yaml, wait_for};

fn resume(ns: &TestNs, name: &str) {
    let out = ns.kubectl(&["patch", "jobset", name, "--type=merge", "-p", r#"{"spec":{"suspend":false}}"#]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_queued_jobset_is_compared_and_its_free_restart_makes_it_resume_on_the_new_template() {
    let ns = TestNs::new("states-queued").await;
    ns.create(&jobset_yaml(
        "queued",
        &[("workers", 2, "busybox:1.36")],
        "  suspend: true\n  failurePolicy:\n    maxRestarts: 0\n",
    ));
    let before = ns.wait_for_attempt_jobs("queued", 0, 2).await;
    assert!(
        before.iter().all(|j| j.spec.as_ref().unwrap().suspend == Some(true)),
        "queued Jobs are suspended"
    );
    let out = ns.plugin(&["set", "image", "queued", "main=busybox:1.37"]);
    assert_eq!(out.code, 0, "{out:?}");

    // What resume would start is what runs: the suspended Jobs are compared.
    let out = ns.plugin(&["diff", "queued"]);
    assert_eq!(out.code, 1, "a queued JobSet with an outdated template is drift: {out:?}");
    assert!(out.stdout.contains("attempt 0, 2/2 jobs outdated"), "{out:?}");
    assert!(out.stdout.contains("resuming starts these same Jobs on their outdated template"), "{out:?}");
    // The hint runs as printed: it carries the -n the user passed.
    let hint =
        format!("a restart now is free, nothing runs (`kubectl jobset restart queued -n {}`)", ns.name);
    assert!(out.stdout.contains(&hint), "{out:?}");
    let out = ns.plugin(&["diff", "queued", "--summary"]);
    assert!(out.stdout.contains("Outdated,Suspended"), "{out:?}");
    let out = ns.plugin(&["status", "queued"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("then they start on an outdated template (2 of 2 jobs)"), "{out:?}");

    // list counts them as the status does, and shows what they would start on.
    let out = ns.plugin(&["list", "-o", "wide"]);
    let row = out.stdout.lines().find(|l| l.starts_with("queued")).unwrap_or_else(|| panic!("{out:?}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &cells[1..7],
        ["0", "0/2", "0", "2", "0", "0"],
        "RESTARTS READY ACTIVE SUSPENDED ...: {out:?}"
    );
    assert_eq!(cells[7], "Suspended", "{out:?}");
    assert!(row.ends_with("workers=busybox:1.37(jobs:busybox:1.36)"), "{out:?}");

    // --if-outdated includes it, the restart is free and never counted (maxRestarts 0).
    let out = ns.plugin(&["restart", "queued", "--if-outdated"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("restarted (attempt 0 → 1)"), "{out:?}");
    assert!(out.stderr.contains("the restart is free and never counts towards maxRestarts"), "{out:?}");
    let after = ns.wait_for_attempt_jobs("queued", 1, 2).await;
    let status = &ns.jobset("queued").await["status"];
    assert_eq!(status["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0, "{status}");
    assert!(after.iter().all(|j| j.spec.as_ref().unwrap().suspend == Some(true)), "still queued");
    assert!(after.iter().all(|j| image_of(j, 0) == "busybox:1.37"), "recreated from the new template");
    let out = ns.plugin(&["diff", "queued"]);
    assert_eq!(out.code, 0, "{out:?}");

    // Resumed, the same Jobs start, on the new template.
    resume(&ns, "queued");
    let uids: Vec<_> = after.iter().map(|j| j.metadata.uid.clone()).collect();
    wait_for("the Jobs to resume", Duration::from_secs(30), || async {
        let jobs = ns.jobs_of("queued").await;
        let resumed = jobs.iter().all(|j| j.spec.as_ref().unwrap().suspend == Some(false));
        (resumed && jobs.len() == 2).then_some(())
    })
    .await;
    let jobs = ns.jobs_of("queued").await;
    assert!(jobs.iter().all(|j| uids.contains(&j.metadata.uid) && image_of(j, 0) == "busybox:1.37"));

    // History credits attempt 0 (its Jobs were seen, suspended) to the old template.
    let out = ns.plugin(&["history", "queued", "-o", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let attempts: Vec<(i64, Value)> = doc["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["revision"].as_i64().unwrap(), r["restartAttempts"].clone()))
        .collect();
    assert_eq!(attempts, [(1, json!([0])), (2, json!([1]))], "{doc}");
    assert_eq!(doc["unobservedAttempts"], json!([]), "{doc}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn set_image_restart_on_a_queued_jobset_recreates_its_jobs_suspended() {
    let ns = TestNs::new("states-queued-set").await;
    ns.create(&jobset_yaml("queued", &[("workers", 1, "busybox:1.36")], "  suspend: true\n"));
    ns.wait_for_attempt_jobs("queued", 0, 1).await;
    let out = ns.plugin(&["set", "image", "queued", "main=busybox:1.37", "--restart"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("restarted (attempt 0 → 1)"), "{out:?}");
    let jobs = ns.wait_for_attempt_jobs("queued", 1, 1).await;
    assert_eq!(image_of(&jobs[0], 0), "busybox:1.37");
    assert_eq!(jobs[0].spec.as_ref().unwrap().suspend, Some(true));
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_jobset_managed_elsewhere_is_named_so_by_every_command() {
    let ns = TestNs::new("states-managed").await;
    let manager = "kueue.x-k8s.io/multikueue";
    ns.create(&jobset_yaml(
        "remote",
        &[("workers", 1, "busybox:1.36")],
        &format!("  managedBy: {manager}\n"),
    ));
    ns.create(&jobset_yaml("local", &[("workers", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("local", 0, 1).await;
    let words =
        format!("managed by \"{manager}\" (spec.managedBy): the JobSet controller does not reconcile it");

    let out = ns.plugin(&["diff", "remote"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains(&words), "{out:?}");
    let out = ns.plugin(&["diff", "remote", "--summary"]);
    assert!(out.stdout.contains("ManagedElsewhere"), "{out:?}");
    let out = ns.plugin(&["list"]);
    let row = out.stdout.lines().find(|l| l.starts_with("remote")).unwrap_or_else(|| panic!("{out:?}"));
    assert!(row.contains("ManagedElsewhere"), "{out:?}");

    // status returns at once, with the reason, instead of waiting for its timeout.
    let started = std::time::Instant::now();
    let out = ns.plugin(&["status", "remote", "--timeout=60s"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(&words), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(20), "returned at once: {:?}", started.elapsed());

    // Named alone, a restart is refused; a fleet restart skips it under its own reason.
    let out = ns.plugin(&["restart", "remote"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(&words), "{out:?}");
    for name in ["remote", "local"] {
        let out = ns.kubectl(&["label", "jobset", name, "team=x"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let out = ns.plugin(&["restart", "-l", "team=x", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("remote skipped: managed by"), "{out:?}");
    assert!(out.stdout.contains("local restarted (attempt 0 → 1)"), "{out:?}");
    assert!(ns.jobset("remote").await["status"]["restarts"].is_null());
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn an_attempt_that_never_gets_ready_does_not_block_the_restart_that_fixes_it() {
    let ns = TestNs::new("states-stuck").await;
    ns.create(&jobset_yaml("stuck", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("stuck", 0, 2).await;
    // A typo'd image and a restart: attempt 1 never becomes ready (no Pod ever starts).
    let out = ns.plugin(&["set", "image", "stuck", "main=busybox:1.3.7", "--restart"]);
    assert_eq!(out.code, 0, "{out:?}");
    ns.wait_for_attempt_jobs("stuck", 1, 2).await;
    let condition = wait_for("our RestartingJobSet condition", Duration::from_secs(10), || async {
        let js = ns.jobset("stuck").await;
        let conditions = js["status"]["conditions"].as_array().cloned().unwrap_or_default();
        conditions.into_iter().find(|c| c["type"] == "RestartingJobSet" && c["status"] == "True")
    })
    .await;
    assert_eq!(condition["reason"], "ManualRestart", "{condition}");

    // status, diff and restart agree: the attempt runs the spec, and a restart may go.
    let out = ns.plugin(&["diff", "stuck"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = ns.plugin(&["set", "image", "stuck", "main=busybox:1.37", "--restart"]);
    assert_eq!(out.code, 0, "the fix is not refused while attempt 1 waits for Pods: {out:?}");
    assert!(out.stdout.contains("restarted (attempt 1 → 2)"), "{out:?}");
    let jobs = ns.wait_for_attempt_jobs("stuck", 2, 2).await;
    assert!(jobs.iter().all(|j| image_of(j, 0) == "busybox:1.37"));
    // Exactly once still holds: a second restart of the attempt that was read is refused
    // as already restarted, not sent again.
    let out = ns.plugin(&["restart", "stuck", "--expect-attempt=1"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("already restarted"), "{out:?}");
    assert_eq!(ns.jobset("stuck").await["status"]["restarts"], 2);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_per_job_restart_that_leaves_mixed_templates_says_so_everywhere() {
    let ns = TestNs::new("states-mixed").await;
    let spec = "  failurePolicy:\n    maxRestarts: 3\n    rules:\n    - {name: one, action: RestartJob}\n";
    ns.create(&jobset_yaml("mixed", &[("workers", 3, "busybox:1.36")], spec));
    ns.wait_for_attempt_jobs("mixed", 0, 3).await;
    assert_eq!(ns.plugin(&["history", "mixed"]).code, 0);
    let out = ns.plugin(&["set", "image", "mixed", "main=busybox:1.37"]);
    assert_eq!(out.code, 0, "{out:?}");

    // The dry run applies that one Job's drift, and says what the JobSet is left with.
    let out = ns.plugin(&["restart", "mixed", "--job", "workers/1", "--dry-run"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("replicatedJob workers: mixed-workers-1 (1 of 1) run an outdated template"),
        "{out:?}"
    );
    assert!(!out.stdout.contains("mixed-workers-0"), "only the Job that changes: {out:?}");
    let words = "runs mixed templates in attempt 0 (workers: mixed-workers-1 on the spec's template, \
                 mixed-workers-0,2 on an outdated one)";
    assert!(out.stderr.contains(&format!("after mixed-workers-1 is recreated, it {words}")), "{out:?}");

    // On a terminal it asks; "n" changes nothing.
    let prompt = AtPrompt::start(&format!("restart mixed --job workers/1 -n {}", ns.name));
    assert!(
        prompt.seen.contains("Restart only mixed-workers-1, leaving mixed templates? [y/N]"),
        "{}",
        prompt.seen
    );
    let (code, _) = prompt.answer("n");
    assert_ne!(code, Some(0));
    assert_eq!(ns.jobset("mixed").await["status"]["replicatedJobsStatus"][0]["jobRestarts"], Value::Null);

    let out = ns.plugin(&["restart", "mixed", "--job", "workers/1", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    wait_for("mixed-workers-1 to be recreated", Duration::from_secs(30), || async {
        let jobs = ns.jobs_of("mixed").await;
        let live: Vec<_> = jobs.iter().filter(|j| j.metadata.deletion_timestamp.is_none()).collect();
        (live.len() == 3 && live.iter().any(|j| image_of(j, 0) == "busybox:1.37")).then_some(())
    })
    .await;

    let out = ns.plugin(&["diff", "mixed"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains(&format!("warning: {words}")), "{out:?}");
    let out = ns.plugin(&["diff", "mixed", "--summary"]);
    assert!(out.stdout.contains("Outdated,Mixed"), "{out:?}");
    let out = ns.plugin(&["list"]);
    assert!(out.stdout.contains("Running,Mixed"), "{out:?}");
    let out = ns.plugin(&["status", "mixed", "--watch=false"]);
    assert!(out.stderr.contains(words) || out.stdout.contains(words), "{out:?}");
    let out = ns.plugin(&["history", "mixed", "-o", "json"]);
    assert!(out.stderr.contains(words), "{out:?}");
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let running: Vec<(i64, bool)> = doc["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["revision"].as_i64().unwrap(), r["running"].as_bool().unwrap()))
        .collect();
    assert_eq!(running, [(1, true), (2, true)], "both templates run in attempt 0: {doc}");
}

/// Issue 28: `suspend` and `resume`, guarded patches of spec.suspend; resuming Jobs that
/// would start on an outdated template is said first; a second suspend changes nothing.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn suspend_and_resume_set_spec_suspend_and_say_what_resume_starts() {
    let ns = TestNs::new("states-suspend").await;
    ns.create(&jobset_yaml("pausable", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("pausable", 0, 2).await;

    let out = ns.plugin(&["suspend", "pausable"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/pausable suspended\n", "{out:?}");
    assert_eq!(ns.jobset("pausable").await["spec"]["suspend"], true);
    wait_for("the controller to suspend its Jobs", Duration::from_secs(60), || async {
        let jobs = ns.jobs_of("pausable").await;
        (jobs.len() == 2 && jobs.iter().all(|j| j.spec.as_ref().unwrap().suspend == Some(true))).then_some(())
    })
    .await;
    let again = ns.plugin(&["suspend", "pausable"]);
    assert_eq!(again.stdout, "jobset.jobset.x-k8s.io/pausable already suspended\n", "{again:?}");

    let out = ns.plugin(&["set", "image", "pausable", "main=busybox:1.37"]);
    assert_eq!(out.code, 0, "{out:?}");
    let dry = ns.plugin(&["resume", "pausable", "--dry-run"]);
    assert!(dry.stdout.contains("resumed (dry run)"), "{dry:?}");
    assert_eq!(ns.jobset("pausable").await["spec"]["suspend"], true, "a dry run changes nothing");
    let out = ns.plugin(&["resume", "pausable"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("2 of 2 jobs of jobset pausable resume on an outdated template"), "{out:?}");
    assert_eq!(ns.jobset("pausable").await["spec"]["suspend"], false);

    let usage = ns.plugin(&["suspend"]);
    assert_eq!(usage.code, 2, "never every JobSet by default: {usage:?}");
}
