//! Issue 17: `rollback --handover` on a controller with immutable templates: the
//! running Jobs are untouched, counters and history kept, the next restart uses the
//! new templates; refusals change nothing. (Crashes and API server faults:
//! tests/handover.)

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use serde_json::json;

use super::handover_setup::*;
use super::support::*;

fn journal_exists(ns: &TestNs) -> bool {
    ns.kubectl(&["get", "configmap", &format!("kubectl-jobset-handover-{NAME}")]).status.success()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn handover_rolls_back_templates_without_touching_running_jobs() {
    let ns = TestNs::new("handover").await;
    prepare(&ns, &[]).await;
    let before = running(&ns).await;
    let old = ns.jobset(NAME).await;
    let old_uid = old["metadata"]["uid"].as_str().unwrap().to_owned();
    assert_eq!(before.counted, 1, "{before:?}");

    // Refused as immutable: the plain words suggest --handover.
    let out = ns.plugin(&["rollback", NAME, "--to-revision", "1", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("rollback train --to-revision 1 --handover"), "{out:?}");

    // --dry-run: the diff and each step, nothing changed.
    let out = ns.plugin(&["rollback", NAME, "--to-revision", "1", "--handover", "--dry-run"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("-              image: busybox:1.37") || out.stdout.contains("busybox:1.37"),
        "{out:?}"
    );
    for step in [
        "1. write the journal",
        "2. delete",
        "propagationPolicy=Orphan",
        "3. create",
        "4. adopt 3 Jobs",
        "service/train",
        "5. restore status: restarts=1, restartsCountTowardsMax=1",
        "6. remove the journal",
    ] {
        assert!(out.stdout.contains(step), "{step}: {out:?}");
    }
    assert_eq!(ns.jobset(NAME).await["metadata"]["uid"], old_uid.as_str());
    assert!(!journal_exists(&ns));

    let out = ns.plugin(&["rollback", NAME, "--to-revision", "1", "--handover", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("rolled back to revision 1"), "{out:?}");
    assert!(out.stdout.contains("3/3 jobs are now outdated"), "{out:?}");
    assert_handed_over(&ns, &before, &old_uid).await;
    let new = ns.jobset(NAME).await;
    assert_eq!(images(&new), ["busybox:1.36", "busybox:1.36"]);
    // Everything but the templates is kept.
    assert_eq!(new["metadata"]["labels"], old["metadata"]["labels"]);
    for key in ["failurePolicy", "network", "suspend", "successPolicy", "startupPolicy"] {
        assert_eq!(new["spec"][key], old["spec"][key], "{key}");
    }
    // History is still the JobSet's (read through the new uid).
    let out = ns.plugin(&["history", NAME]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.lines().count() >= 3, "{out:?}");

    next_restart_uses(&ns, "busybox:1.36", 1).await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn handover_then_kubectl_jobset_restart_builds_from_the_new_templates() {
    let ns = TestNs::new("handover-restart").await;
    prepare(&ns, &[]).await;
    let before = running(&ns).await;
    let old_uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();
    let out = ns.plugin(&["rollback", NAME, "--handover", "-y", "--restart"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("restarted (attempt 1 → 2)"), "{out:?}");
    let jobs = ns.wait_for_attempt_jobs(NAME, 2, JOBS).await;
    assert!(jobs.iter().all(|j| image_of(j, 0) == "busybox:1.36"), "{jobs:?}");
    let status = ns.jobset(NAME).await["status"].clone();
    assert_eq!(status["restarts"], 2);
    assert_eq!(status["restartsCountTowardsMax"], before.counted, "a requested restart is not counted");
    assert_ne!(ns.jobset(NAME).await["metadata"]["uid"], old_uid.as_str());
}

/// Runs `rollback --handover` expecting a refusal containing `want`, and checks that
/// nothing changed.
async fn assert_refused(ns: &TestNs, args: &[&str], want: &str) {
    let before = ns.jobset(NAME).await;
    let out = ns.plugin(args);
    assert_eq!(out.code, 1, "{out:?}");
    // rollback's own guards (another manager, a finished JobSet) may refuse first.
    let refused = out.stderr.contains("not handed over") || out.stderr.contains("not rolled back");
    assert!(refused && out.stderr.contains(want), "{want}: {out:?}");
    let after = ns.jobset(NAME).await;
    assert_eq!(after["metadata"]["uid"], before["metadata"]["uid"], "not deleted");
    assert_eq!(after["spec"], before["spec"]);
    assert!(!journal_exists(ns), "no journal");
}

/// A JobSet with two recorded revisions, in a namespace where templates may change.
async fn two_revisions(ns: &TestNs, spec: &str, labels: &str) {
    let mut yaml = jobset_yaml(NAME, &[("workers", 1, "busybox:1.36")], spec);
    if !labels.is_empty() {
        yaml = yaml.replace(&format!("  name: {NAME}\n"), &format!("  name: {NAME}\n  labels:\n{labels}"));
    }
    ns.create(&yaml);
    assert_eq!(ns.plugin(&["history", NAME, "--record"]).code, 0);
    let patch = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]"#;
    let out = ns.kubectl(&["patch", "jobset", NAME, "--type=json", "-p", patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ns.plugin(&["history", NAME, "--record"]).code, 0);
}

const HANDOVER: &[&str] = &["rollback", NAME, "--to-revision", "1", "--handover", "-y"];

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn handover_refuses_other_managers_kueue_and_finished_jobsets() {
    let managed = TestNs::new("handover-managed").await;
    two_revisions(&managed, "  managedBy: example.com/other-controller\n", "").await;
    assert_refused(&managed, HANDOVER, "managed by \"example.com/other-controller\" (spec.managedBy)").await;

    let kueue = TestNs::new("handover-kueue").await;
    two_revisions(&kueue, "", "    kueue.x-k8s.io/queue-name: team-a\n").await;
    // Kueue's webhook creates it suspended (its queue does not exist: it stays queued).
    // Only an admitted JobSet is refused (tests/kueue pins that); a queued one runs
    // nothing, so it is handed over, saying that the new object queues again.
    assert_eq!(kueue.jobset(NAME).await["spec"]["suspend"], true);
    let out = kueue.plugin(HANDOVER);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("is queued by Kueue: the new object gets a new Workload and queues again"),
        "{out:?}"
    );

    let finished = TestNs::new("handover-finished").await;
    two_revisions(&finished, "", "").await;
    ns_complete(&finished).await;
    // rollback's own guard refuses a finished JobSet before the handover is planned (the
    // handover's refusal of it is unit-tested in handover::plan).
    assert_refused(&finished, HANDOVER, "has completed").await;
}

async fn ns_complete(ns: &TestNs) {
    ns.wait_for_attempt_jobs(NAME, 0, 1).await;
    ns.complete_job(&format!("{NAME}-workers-0")).await;
    wait_for("the JobSet to complete", Duration::from_secs(60), || async {
        let status = ns.jobset(NAME).await["status"].clone();
        (status["terminalState"] == "Completed").then_some(())
    })
    .await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn handover_refuses_while_a_restart_is_in_progress() {
    let ns = TestNs::new("handover-restarting").await;
    two_revisions(&ns, "", "").await;
    ns.settle(NAME, 0, 1).await;
    let uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();
    // A Job of attempt 0 that outlives the restart to attempt 1 (a finalizer holds it,
    // as a slow kubelet would).
    let held = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train-held",
        "finalizers": ["kubectl-jobset.test/hold"],
        "labels": {"jobset.sigs.k8s.io/jobset-name": NAME, "jobset.sigs.k8s.io/restart-attempt": "0",
            "jobset.sigs.k8s.io/replicatedjob-name": "workers", "jobset.sigs.k8s.io/job-index": "9"},
        "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": NAME, "uid": uid,
            "controller": true, "blockOwnerDeletion": true}]},
        "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox:1.36"}]}}}});
    ns.create(&held.to_string());
    let out = ns.plugin(&["restart", NAME]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_refused(&ns, HANDOVER, "a restart is in progress").await;
    let out = ns.kubectl(&[
        "patch",
        "job",
        "train-held",
        "--type=json",
        "-p",
        r#"[{"op":"remove","path":"/metadata/finalizers"}]"#,
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn handover_names_every_missing_permission_up_front() {
    let ns = TestNs::new("handover-rbac").await;
    two_revisions(&ns, "", "").await;
    ns.apply_repo_role("kubectl-jobset-clusterrole.yaml");
    ns.bind("--clusterrole=kubectl-jobset", "e2e-carol").await;
    let mut args = HANDOVER.to_vec();
    args.extend(["--as", "e2e-carol"]);
    assert_refused(&ns, &args, "the handover needs permissions you lack").await;
    let out = ns.plugin(&args);
    for missing in [
        "delete jobsets.jobset.x-k8s.io",
        "create jobsets.jobset.x-k8s.io",
        // create configmaps comes with the plugin's role (rollout journals).
        "delete configmaps",
    ] {
        assert!(out.stderr.contains(missing), "{missing}: {out:?}");
    }
    assert!(!out.stderr.contains("patch controllerrevisions"), "granted ones are not named: {out:?}");
    // With the handover role too, the same user hands it over.
    ns.apply_repo_role("kubectl-jobset-handover-clusterrole.yaml");
    let bind = ns.kubectl(&[
        "create",
        "rolebinding",
        "carol-handover",
        "--clusterrole=kubectl-jobset-handover",
        "--user=e2e-carol",
    ]);
    assert!(bind.status.success(), "{}", String::from_utf8_lossy(&bind.stderr));
    let configmaps: Api<ConfigMap> = Api::namespaced(ns.client.clone(), &ns.name);
    wait_for("carol's handover permissions", Duration::from_secs(30), || async {
        let out = ns.kubectl(&["auth", "can-i", "delete", "configmaps", "--as=e2e-carol"]);
        out.status.success().then_some(())
    })
    .await;
    let out = ns.plugin(&args);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(configmaps.get_opt(&format!("kubectl-jobset-handover-{NAME}")).await.unwrap().is_none());
}

/// `set image --handover`: refused in place with the suggestion, then done by handover;
/// the running Jobs are untouched and the next restart runs the new image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn set_image_hands_over_where_templates_are_immutable() {
    let ns = TestNs::new("handover-setimage").await;
    prepare(&ns, &[]).await;
    let before = running(&ns).await;
    let old_uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();

    let out = ns.plugin(&["set", "image", NAME, "*=busybox:1.38", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("kubectl jobset set image train *=busybox:1.38 --handover"), "{out:?}");
    assert_eq!(ns.jobset(NAME).await["metadata"]["uid"], old_uid.as_str(), "nothing changed");

    let out = ns.plugin(&["set", "image", NAME, "*=busybox:1.38", "--handover", "--dry-run"]);
    assert_eq!(out.code, 0, "{out:?}");
    let added = |l: &str| l.starts_with('+') && l.contains("image: busybox:1.38");
    assert!(out.stdout.lines().any(added), "the diff: {out:?}");
    assert!(out.stdout.contains("propagationPolicy=Orphan"), "the steps: {out:?}");
    assert_eq!(ns.jobset(NAME).await["metadata"]["uid"], old_uid.as_str(), "a dry run changes nothing");

    let out =
        ns.plugin(&["set", "image", NAME, "*=busybox:1.38", "--handover", "-y", "--reason", "new base"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("jobset.jobset.x-k8s.io/train image updated"), "{out:?}");
    assert_handed_over(&ns, &before, &old_uid).await;
    assert_eq!(images(&ns.jobset(NAME).await), ["busybox:1.38", "busybox:1.38"]);
    let history = ns.plugin(&["history", NAME, "-o", "json"]);
    assert!(history.stdout.contains("new base"), "the cause is recorded: {history:?}");
    next_restart_uses(&ns, "busybox:1.38", 1).await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn three_handovers_in_a_row_keep_every_job_owned_and_the_next_restart_works() {
    let ns = TestNs::new("handover-thrice").await;
    prepare(&ns, &[]).await;
    let before = running(&ns).await;
    // Each handover's Jobs still carry the jobset-uid label of the first object: the
    // next one must find them by what it recorded, not by that label.
    let steps: [&[&str]; 3] = [
        &["set", "image", NAME, "*/main=busybox:1.38", "--handover", "-y"],
        &["rollback", NAME, "--to-revision", "1", "--handover", "-y"],
        &["set", "image", NAME, "*/main=busybox:1.39", "--handover", "-y"],
    ];
    for args in steps {
        let old_uid = ns.jobset(NAME).await["metadata"]["uid"].as_str().unwrap().to_owned();
        let out = ns.plugin(args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(!out.stderr.contains("not adopted"), "{args:?}: {out:?}");
        assert_handed_over(&ns, &before, &old_uid).await;
    }
    assert_eq!(images(&ns.jobset(NAME).await), ["busybox:1.39", "busybox:1.39"]);
    // The controller sees its Jobs (no "already exists" creation failures), and a
    // restart builds every Job from the last templates.
    let out = ns.plugin(&["restart", NAME]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("restarted (attempt 1 → 2)"), "{out:?}");
    let jobs = ns.wait_for_attempt_jobs(NAME, 2, JOBS).await;
    assert!(jobs.iter().all(|j| image_of(j, 0) == "busybox:1.39"), "{jobs:?}");
}
