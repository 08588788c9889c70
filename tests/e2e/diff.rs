//! `kubectl jobset diff` on the real cluster: noise-free on fresh JobSets, exact on edits.

use kubectl_jobset::render::documents::DiffDocument;

use crate::support::*;

const BROAD: &str = include_str!("../fixtures/broad-jobset.yaml");

fn patch(ns: &TestNs, name: &str, ops: &str) {
    let out = ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", ops]);
    assert!(out.status.success(), "patch: {}", String::from_utf8_lossy(&out.stderr));
}

const WORKER_CONTAINER: &str = "/spec/replicatedJobs/0/template/spec/template/spec/containers/0";

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_fresh_jobset_with_many_pod_features_has_no_drift() {
    let ns = TestNs::new("diff-fresh").await;
    ns.create(BROAD);
    ns.wait_for_attempt_jobs("broad", 0, 3).await;
    let out = ns.plugin(&["diff", "broad"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    let out = ns.plugin(&["diff", "broad", "-o", "json", "-v=6"]);
    let doc: DiffDocument = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((doc.jobsets[0].total_jobs, doc.jobsets[0].drift), (3, false));
    // Every Job equals its spec under client-side defaults, so the server is not asked.
    assert_eq!(out.stderr.matches("dryRun=All").count(), 0, "{}", out.stderr);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn without_create_permission_client_defaults_are_noise_free_too() {
    let ns = TestNs::new("diff-readonly").await;
    ns.create(BROAD);
    ns.wait_for_attempt_jobs("broad", 0, 3).await;
    ns.apply_repo_role("kubectl-jobset-readonly-clusterrole.yaml");
    ns.bind("--clusterrole=kubectl-jobset-readonly", "e2e-carol").await;
    let carol = harness().state.join("users/e2e-carol.kubeconfig");
    let out = run_plugin(
        &["diff", "broad", "-v=1", "-n", &ns.name, "--kubeconfig", carol.to_str().unwrap()],
        None,
        &[],
    );
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    patch(
        &ns,
        "broad",
        &format!(
            r#"[{{"op":"replace","path":"{WORKER_CONTAINER}/image","value":"registry.example.com:5000/ml/trainer:v2"}}]"#
        ),
    );
    // The Jobs now differ from the spec: a read compares with client-side defaults and
    // sends nothing but GETs ...
    let out = run_plugin(
        &["diff", "broad", "-v=6", "-n", &ns.name, "--kubeconfig", carol.to_str().unwrap()],
        None,
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("+        image: registry.example.com:5000/ml/trainer:v2"), "{out:?}");
    assert!(!out.stderr.contains("POST "), "{out:?}");
    // ... and --server-dry-run asks the server, is refused, and falls back (-v says so).
    let out = run_plugin(
        &[
            "diff",
            "broad",
            "--server-dry-run",
            "-v=1",
            "-n",
            &ns.name,
            "--kubeconfig",
            carol.to_str().unwrap(),
        ],
        None,
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("+        image: registry.example.com:5000/ml/trainer:v2"), "{out:?}");
    assert!(out.stderr.contains("client-side defaults"), "-v says so: {out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn edits_show_exactly_what_changed_until_a_restart_applies_them() {
    let ns = TestNs::new("diff-edit").await;
    ns.create(BROAD);
    ns.wait_for_attempt_jobs("broad", 0, 3).await;

    // One container's image.
    patch(
        &ns,
        "broad",
        &format!(
            r#"[{{"op":"replace","path":"{WORKER_CONTAINER}/image","value":"registry.example.com:5000/ml/trainer:v2"}}]"#
        ),
    );
    let out = ns.plugin(&["diff", "broad", "-o", "json"]);
    assert_eq!(out.code, 1, "{out:?}");
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let js = &doc["jobsets"][0];
    assert_eq!((js["outdatedJobs"].as_u64(), js["totalJobs"].as_u64()), (Some(2), Some(3)));
    let workers = &js["replicatedJobs"][0];
    assert_eq!(workers["outdated"][0]["jobs"], serde_json::json!(["broad-workers-0", "broad-workers-1"]));
    assert_eq!(
        workers["outdated"][0]["changes"],
        serde_json::json!([{"path": "spec.template.spec.containers[trainer].image",
            "old": "registry.example.com:5000/ml/trainer:v1", "new": "registry.example.com:5000/ml/trainer:v2"}])
    );
    assert_eq!(js["replicatedJobs"][1]["outdated"], serde_json::json!([]), "driver is untouched");

    let out = ns.plugin(&["diff", "broad"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.starts_with(&format!("jobset {}/broad: attempt 0, 2/3 jobs outdated\n", ns.name)),
        "{out:?}"
    );
    assert!(
        out.stdout.contains("replicatedJob workers: broad-workers-0..1 (2 of 2) run an outdated template"),
        "{out:?}"
    );
    assert!(out.stdout.contains("@@ spec.template.spec.containers[trainer] @@"), "{out:?}");
    let changed: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with(['-', '+']) && !l.starts_with("---") && !l.starts_with("+++"))
        .collect();
    assert_eq!(
        changed,
        [
            "-        image: registry.example.com:5000/ml/trainer:v1",
            "+        image: registry.example.com:5000/ml/trainer:v2"
        ]
    );

    // An env var removed, a pod label added.
    patch(
        &ns,
        "broad",
        &format!(
            r#"[{{"op":"remove","path":"{WORKER_CONTAINER}/env/1"}},
            {{"op":"add","path":"/spec/replicatedJobs/1/template/spec/template/metadata","value":{{"labels":{{"tier":"gold"}}}}}}]"#
        ),
    );
    let out = ns.plugin(&["diff", "broad", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let changes = &doc["jobsets"][0]["replicatedJobs"][0]["outdated"][0]["changes"];
    assert_eq!(changes[0]["path"], "spec.template.spec.containers[trainer].env[RATE]");
    assert_eq!(changes[0]["old"], serde_json::json!({"name": "RATE", "value": "0.1"}));
    assert!(changes[0].get("new").is_none(), "removed: {changes}");
    assert_eq!(
        doc["jobsets"][0]["replicatedJobs"][1]["outdated"][0]["changes"],
        serde_json::json!([{"path": "spec.template.metadata.labels.tier", "new": "gold"}]),
        "only the label"
    );

    // A failure restarts the JobSet from the new template: no drift left.
    ns.fail_job("broad-driver-0").await;
    ns.wait_for_attempt_jobs("broad", 1, 3).await;
    let out = ns.plugin(&["diff", "broad"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn all_namespaces_reports_each_jobset() {
    let a = TestNs::new("diff-a").await;
    let b = TestNs::new("diff-b").await;
    for ns in [&a, &b] {
        ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
        ns.wait_for_attempt_jobs("train", 0, 2).await;
        patch(
            ns,
            "train",
            &format!(r#"[{{"op":"replace","path":"{WORKER_CONTAINER}/image","value":"busybox:1.37"}}]"#),
        );
    }
    let out = run_plugin(&["diff", "-A", "--summary"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    for ns in [&a, &b] {
        let line = out
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{}/train", ns.name)))
            .expect("a line per JobSet");
        // Never recorded before this command: the spec's revision is the second one.
        assert_eq!(
            line.split_whitespace().collect::<Vec<_>>()[1..],
            ["0", "2/2", "Outdated", "2"],
            "{out:?}"
        );
    }
    let out = run_plugin(&["diff", "-A"], None, &[]);
    assert!(
        out.stdout.contains(&format!("jobset {}/train", a.name))
            && out.stdout.contains(&format!("jobset {}/train", b.name)),
        "{out:?}"
    );
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_suspended_jobset_is_diffed_and_errors_exit_2() {
    let ns = TestNs::new("diff-states").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], "  suspend: true\n"));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    patch(
        &ns,
        "train",
        &format!(r#"[{{"op":"replace","path":"{WORKER_CONTAINER}/image","value":"busybox:1.37"}}]"#),
    );
    let out = ns.plugin(&["diff", "train"]);
    assert_eq!(out.code, 1, "resuming would start the outdated Jobs: {out:?}");
    assert!(out.stdout.contains("resuming starts these same Jobs on their outdated template"), "{out:?}");

    let out = ns.plugin(&["diff", "nope"]);
    assert_eq!(out.code, 2, "errors exit 2 in diff: {out:?}");
}
