//! `kubectl jobset restart` on the real controller.

use std::time::Duration;

use serde_json::Value;

use crate::support::*;

const IMAGE_PATCH: &str = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]"#;

fn patch_image(ns: &TestNs, name: &str) {
    let out = ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", IMAGE_PATCH]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `status.restarts`, 0 when absent.
async fn restarts_of(ns: &TestNs, name: &str) -> i64 {
    ns.jobset(name).await["status"]["restarts"].as_i64().unwrap_or(0)
}

async fn resource_version(ns: &TestNs, name: &str) -> String {
    ns.jobset(name).await["metadata"]["resourceVersion"].as_str().unwrap().to_owned()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn restart_recreates_every_job_from_the_current_spec() {
    let ns = TestNs::new("restart").await;
    ns.create(&jobset_yaml(
        "train",
        &[("workers", 2, "busybox:1.36"), ("driver", 1, "busybox:1.36")],
        "  failurePolicy:\n    maxRestarts: 1\n",
    ));
    let before = ns.wait_for_attempt_jobs("train", 0, 3).await;
    patch_image(&ns, "train");

    let out =
        ns.plugin(&["restart", "train", "--reason", "roll out busybox 1.37", "--wait", "--timeout", "60s"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/train restarted (attempt 0 → 1)\n");
    // Off a terminal, --wait says how far it is, a line whenever that moves.
    assert!(out.stderr.ends_with("restart 1: 3/3 jobs recreated\n"), "{out:?}");
    assert!(!out.stderr.contains('\r'), "{out:?}");
    // --wait returned: every Job of attempt 1 exists already.
    let jobs = ns.jobs_of("train").await;
    let live: Vec<_> = jobs.iter().filter(|j| j.metadata.deletion_timestamp.is_none()).collect();
    assert_eq!(live.len(), 3, "{jobs:?}");
    assert!(live.iter().all(|j| attempt_label(j) == Some(1)));
    let uids_before: Vec<_> = before.iter().map(|j| j.metadata.uid.clone()).collect();
    assert!(live.iter().all(|j| !uids_before.contains(&j.metadata.uid)), "every Job was recreated");
    let workers: Vec<_> =
        live.iter().filter(|j| j.metadata.name.as_deref().unwrap().contains("workers")).collect();
    assert!(workers.iter().all(|j| image_of(j, 0) == "busybox:1.37"), "the spec's current template");

    let jobset = ns.jobset("train").await;
    assert_eq!(jobset["status"]["restarts"], 1, "exactly one");
    assert!(jobset["status"].get("restartsCountTowardsMax").is_none_or(|v| v == 0), "not counted by default");
    let conditions = jobset["status"]["conditions"].as_array().cloned().unwrap_or_default();
    let restarting =
        conditions.iter().find(|c| c["type"] == "RestartingJobSet").expect("RestartingJobSet condition");
    assert_eq!(restarting["reason"], "ManualRestart");
    assert!(restarting["message"].as_str().unwrap().contains("roll out busybox 1.37"), "{restarting}");

    let events = ns.kubectl(&["get", "events", "--field-selector", "reason=ManualRestart", "-o", "json"]);
    let events: Value = serde_json::from_slice(&events.stdout).unwrap();
    let message = events["items"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("requested by admin") && message.contains("roll out busybox 1.37"), "{events}");

    // The diff is empty now.
    let out = ns.plugin(&["diff", "train"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    // --count-towards-max respects failurePolicy.maxRestarts (1).
    ns.settle("train", 1, 3).await;
    let out = ns.plugin(&["restart", "train", "--count-towards-max"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(ns.jobset("train").await["status"]["restartsCountTowardsMax"], 1);
    ns.settle("train", 2, 3).await;
    let out = ns.plugin(&["restart", "train", "--count-towards-max"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("maxRestarts 1"), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn concurrent_restarts_of_one_attempt_make_one_restart() {
    let ns = TestNs::new("restart-race").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    let name = ns.name.clone();
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let name = name.clone();
            std::thread::spawn(move || {
                run_plugin(&["restart", "train", "--expect-attempt", "0"], Some(&name), &[])
            })
        })
        .collect();
    let outputs: Vec<PluginOutput> = runs.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(outputs.iter().all(|o| o.code == 0), "{outputs:?}");
    let restarted = outputs.iter().filter(|o| o.stdout.contains("restarted (attempt 0 → 1)")).count();
    let already = outputs.iter().filter(|o| o.stdout.contains("already restarted (attempt 1)")).count();
    assert_eq!((restarted, already), (1, 3), "{outputs:?}");
    assert_eq!(ns.jobset("train").await["status"]["restarts"], 1);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn refusals_and_dry_runs_change_nothing() {
    let ns = TestNs::new("restart-refuse").await;
    ns.create(&jobset_yaml("done", &[("workers", 1, "busybox:1.36")], ""));
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("done", 0, 1).await;
    ns.complete_job("done-workers-0").await;
    wait_for("done to complete", Duration::from_secs(30), || async {
        (ns.jobset("done").await["status"]["terminalState"] == "Completed").then_some(())
    })
    .await;

    let rv = resource_version(&ns, "done").await;
    let out = ns.plugin(&["restart", "done"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("jobset.jobset.x-k8s.io/done not restarted: the JobSet has completed"),
        "{out:?}"
    );
    assert_eq!(resource_version(&ns, "done").await, rv);

    ns.wait_for_attempt_jobs("train", 0, 1).await;
    patch_image(&ns, "train");
    let rv = resource_version(&ns, "train").await;
    for mode in ["--dry-run", "--dry-run=server"] {
        let out = ns.plugin(&["restart", "train", mode]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(out.stdout.contains("restarted (attempt 0 → 1) ("), "{out:?}");
        assert!(
            out.stdout.contains("+        image: busybox:1.37"),
            "shows the drift it would apply: {out:?}"
        );
    }
    assert_eq!(resource_version(&ns, "train").await, rv, "dry runs change nothing");
    assert_eq!(restarts_of(&ns, "train").await, 0);

    let out = ns.plugin(&["restart"]);
    assert_eq!(out.code, 2, "restart needs explicit targets: {out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn if_outdated_restarts_only_drifted_jobsets() {
    let ns = TestNs::new("restart-outdated").await;
    for name in ["a", "b", "c"] {
        ns.create(&jobset_yaml(name, &[("workers", 1, "busybox:1.36")], ""));
        ns.kubectl(&["label", "jobset", name, "team=x"]);
    }
    for name in ["a", "b", "c"] {
        ns.wait_for_attempt_jobs(name, 0, 1).await;
    }
    patch_image(&ns, "b");
    let out = ns.plugin(&["restart", "-l", "team=x", "--if-outdated", "--yes"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("jobset.jobset.x-k8s.io/b restarted (attempt 0 → 1)"), "{out:?}");
    assert!(out.stdout.contains("jobset.jobset.x-k8s.io/a skipped: no template drift"), "{out:?}");
    assert!(out.stderr.contains("1 restarted, 0 already restarted, 2 skipped, 0 failed"), "{out:?}");
    for (name, restarts) in [("a", 0), ("b", 1), ("c", 0)] {
        assert_eq!(restarts_of(&ns, name).await, restarts, "{name}");
    }
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn missing_status_permission_is_named() {
    let ns = TestNs::new("restart-rbac").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    let role = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: jobset-reader}
rules:
- {apiGroups: [jobset.x-k8s.io], resources: [jobsets, jobsets/status], verbs: [get, list, watch]}
- {apiGroups: [batch], resources: [jobs], verbs: [get, list, watch]}
"#;
    assert!(ns.kubectl_stdin(&["apply", "-f", "-"], Some(role)).status.success());
    ns.bind("--role=jobset-reader", "e2e-dave").await;
    let dave = harness().state.join("users/e2e-dave.kubeconfig");
    let out =
        run_plugin(&["restart", "train", "-n", &ns.name, "--kubeconfig", dave.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(&format!(
            "user \"e2e-dave\" cannot patch jobsets.jobset.x-k8s.io/status in namespace \"{}\"",
            ns.name
        )),
        "{out:?}"
    );
    assert_eq!(restarts_of(&ns, "train").await, 0);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn wait_ready_times_out_naming_what_is_missing_and_stops_when_deleted() {
    let ns = TestNs::new("restart-wait").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    let out = ns.plugin(&["restart", "train", "--wait=ready", "--timeout=3s"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("restarted (attempt 0 → 1)"), "{out:?}");
    assert!(out.stderr.contains("timed out after 3s waiting for jobset train restart 1: 2 of 2 jobs not ready (train-workers-0..1)"), "{out:?}");
    assert!(out.stderr.contains("restart 1: 0/2 jobs ready\n"), "progress off a terminal: {out:?}");

    ns.settle("train", 1, 2).await;
    let name = ns.name.clone();
    let waiter = std::thread::spawn(move || {
        run_plugin(&["restart", "train", "--wait=ready", "--timeout=60s"], Some(&name), &[])
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(ns.kubectl(&["delete", "jobset", "train", "--wait=false"]).status.success());
    let out = waiter.join().unwrap();
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("jobset train was deleted while waiting for restart 2"), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn wait_shows_progress_on_a_terminal() {
    let ns = TestNs::new("restart-progress").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    // script(1) gives the plugin a terminal for stdout and stderr.
    let command = format!(
        "{} restart train --wait -n {} --kubeconfig {}",
        env!("CARGO_BIN_EXE_kubectl-jobset"),
        ns.name,
        harness().kubeconfig.display()
    );
    let out = std::process::Command::new("script").args(["-qec", &command, "/dev/null"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("restart 1: 2/2 jobs recreated"), "{text}");
}
