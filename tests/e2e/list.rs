//! `kubectl jobset list` on the real cluster.

use std::time::Duration;

use crate::support::*;

fn request_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("GET ") || l.starts_with("PATCH ") || l.starts_with("POST "))
        .collect()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn lists_jobsets_across_namespaces_with_two_requests() {
    let a = TestNs::new("list-a").await;
    let b = TestNs::new("list-b").await;
    a.create(&jobset_yaml("alpha", &[("workers", 2, "busybox:1.36")], ""));
    b.create(&jobset_yaml("beta", &[("workers", 1, "busybox:1.36"), ("driver", 1, "python:3.12")], ""));
    b.create(&jobset_yaml("gamma", &[("workers", 1, "busybox:1.36")], ""));
    b.kubectl(&["label", "jobset", "gamma", "team=ml"]);
    a.wait_for_attempt_jobs("alpha", 0, 2).await;
    b.wait_for_attempt_jobs("beta", 0, 2).await;

    let out = a.plugin(&["list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "NAME",
            "RESTARTS",
            "READY",
            "ACTIVE",
            "SUSPENDED",
            "SUCCEEDED",
            "FAILED",
            "STATUS",
            "AGE",
            "STRATEGY"
        ]
    );
    assert_eq!(lines.len(), 2, "{out:?}");
    assert_eq!(
        &lines[1].split_whitespace().collect::<Vec<_>>()[..8],
        ["alpha", "0", "0/2", "2", "0", "0", "0", "Running"]
    );

    let out = run_plugin(&["list", "-A", "-o", "wide", "-v=6"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    for (ns, name) in [(&a.name, "alpha"), (&b.name, "beta"), (&b.name, "gamma")] {
        assert!(
            out.stdout.lines().any(|l| l.starts_with(ns.as_str()) && l.contains(name)),
            "{name} missing: {out:?}"
        );
    }
    assert!(out.stdout.contains("workers=busybox:1.36 driver=python:3.12"), "{out:?}");
    assert_eq!(request_lines(&out.stderr).len(), 2, "one list of JobSets and one of Jobs: {out:?}");
    assert!(
        out.stderr.contains("/apis/batch/v1/jobs?")
            && out.stderr.contains("labelSelector=jobset.sigs.k8s.io%2Fjobset-name"),
        "{out:?}"
    );

    let out = b.plugin(&["list", "-l", "team=ml", "-o", "name"]);
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/gamma\n", "{out:?}");

    let out = b.plugin(&["list", "beta", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "List");
    assert_eq!(doc["items"][0]["metadata"]["name"], "beta");
    assert!(doc["items"][0]["metadata"].get("managedFields").is_none());

    let out = b.plugin(&["list", "beta", "-o", "yaml"]);
    assert!(out.stdout.contains("kind: List") && out.stdout.contains("name: beta"), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_restarted_jobset_shows_its_attempt_and_counts() {
    let ns = TestNs::new("list-restart").await;
    ns.create(&jobset_yaml(
        "train",
        &[("workers", 2, "busybox:1.36")],
        "  failurePolicy:\n    maxRestarts: 2\n",
    ));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    ns.ready_job("train-workers-0").await;
    wait_for("one ready job", Duration::from_secs(20), || async {
        let out = ns.plugin(&["list", "--no-headers"]);
        out.stdout.split_whitespace().nth(2).filter(|r| *r == "1/2").map(|_| ())
    })
    .await;

    ns.fail_job("train-workers-1").await;
    ns.wait_for_attempt_jobs("train", 1, 2).await;
    let out = ns.plugin(&["list", "--no-headers"]);
    let cells: Vec<&str> = out.stdout.split_whitespace().collect();
    assert_eq!(&cells[..2], ["train", "1"], "{out:?}");
    assert_eq!(cells[6], "0", "failed Jobs of the previous attempt are not counted: {out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn unknown_jobset_names_the_namespace_and_hints() {
    let ns = TestNs::new("list-missing").await;
    let out = ns.plugin(&["list", "nope"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(&format!("\"nope\" not found in namespace \"{}\"", ns.name)), "{out:?}");
    assert!(out.stderr.contains("-A"), "{out:?}");

    let out = ns.plugin(&["list"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains(&format!("No resources found in {} namespace.", ns.name)), "{out:?}");
}
