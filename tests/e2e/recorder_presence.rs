//! The recorder writes, the CLI reads (issue 13, point 3): while a fresh recorder Lease
//! covers a JobSet, commands write no history for it, even with `--record`; without one
//! they record (read commands when given `--record`, as here), and `history` says how to
//! keep history complete. The test writes the Lease itself, as a
//! recorder would, in its own namespace (KUBECTL_JOBSET_RECORDER_NAMESPACE points there).

use k8s_openapi::api::coordination::v1::Lease;
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use kubectl_jobset::presence::{LEASE_NAME, LEASE_NAMESPACE_ENV, Scope};
use kubectl_jobset::render::documents::HistoryDocument;
use serde_json::{Value, json};

use crate::support::*;

fn lease(renewed: jiff::Timestamp, namespaces: &[String]) -> Lease {
    serde_json::from_value(json!({
        "metadata": {"name": LEASE_NAME, "annotations": Scope::annotations(namespaces, None)},
        "spec": {"holderIdentity": "e2e-recorder", "leaseDurationSeconds": 15,
            "renewTime": renewed.strftime("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()},
    }))
    .unwrap()
}

fn controller_revisions(ns: &TestNs) -> Vec<Value> {
    let out = ns.kubectl(&["get", "controllerrevisions", "-o", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["items"].as_array().cloned().unwrap_or_default()
}

/// The requests a `-v=6` run logged that change something (a dry run changes nothing).
fn writes(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| ["POST ", "PUT ", "PATCH ", "DELETE "].iter().any(|m| l.starts_with(m)))
        .filter(|l| !l.contains("dryRun=All"))
        .collect()
}

const HINT: &str = "`kubectl jobset recorder -A` keeps it complete";

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_fresh_recorder_lease_stops_the_cli_writing_history() {
    let ns = TestNs::new("presence").await;
    ns.create(&jobset_yaml(
        "train",
        &[("workers", 2, "busybox:1.36")],
        "  failurePolicy:\n    maxRestarts: 3\n",
    ));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    let out = ns.kubectl(&["patch", "jobset", "train", "--type=json", "-p",
        r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]"#]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let leases: Api<Lease> = Api::namespaced(ns.client.clone(), &ns.name);
    // Every namespace (-A), so that `diff -A` leaves every other test's JobSets alone too.
    leases.create(&PostParams::default(), &lease(jiff::Timestamp::now(), &[])).await.unwrap();
    let env = [(LEASE_NAMESPACE_ENV, ns.name.as_str())];

    let out = run_plugin(&["diff", "-A", "-v=6", "--record"], None, &env);
    assert_eq!(out.code, 1, "drift is still shown: {out:?}");
    assert!(out.stderr.contains(&format!("/leases/{LEASE_NAME} 200 OK")), "one GET of the Lease: {out:?}");
    assert_eq!(writes(&out.stderr), Vec::<&str>::new(), "diff makes no writes: {out:?}");
    let out = run_plugin(&["history", "train", "-v=6", "--record"], Some(&ns.name), &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(writes(&out.stderr), Vec::<&str>::new(), "{out:?}");
    assert!(out.stderr.contains("No history recorded for jobset"), "{out:?}");
    assert!(!out.stderr.contains(HINT), "a recorder runs: no hint: {out:?}");
    assert!(controller_revisions(&ns).is_empty());

    // A Lease the recorder stopped renewing (expired) is no recorder: writes resume.
    let expired = lease(jiff::Timestamp::now() - jiff::SignedDuration::from_secs(20), &[]);
    leases.patch(LEASE_NAME, &PatchParams::default(), &Patch::Merge(&expired)).await.unwrap();
    let out = run_plugin(&["history", "train", "--record"], Some(&ns.name), &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stderr.matches(HINT).count(), 1, "said once: {out:?}");
    assert_eq!(controller_revisions(&ns).len(), 2, "running and spec revisions: {out:?}");

    // A fresh Lease for other namespaces only does not cover this JobSet.
    let elsewhere = lease(jiff::Timestamp::now(), &["somewhere-else".to_owned()]);
    leases.patch(LEASE_NAME, &PatchParams::default(), &Patch::Merge(&elsewhere)).await.unwrap();
    ns.fail_job("train-workers-0").await;
    ns.wait_for_attempt_jobs("train", 1, 2).await;
    let out = run_plugin(&["history", "train", "-o", "json", "--record"], Some(&ns.name), &env);
    assert!(out.stderr.contains(HINT), "{out:?}");
    let doc: HistoryDocument = serde_json::from_str(&out.stdout).unwrap();
    let attempts: Vec<Vec<i32>> =
        doc.revisions.iter().map(|r| r.restart_attempts.iter().copied().collect()).collect();
    assert_eq!(attempts, [vec![0], vec![1]], "attempt 1 recorded: {out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn no_readable_lease_means_no_recorder() {
    // The Lease namespace does not exist: the GET fails (NotFound), never the command.
    let ns = TestNs::new("presence-none").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    let env = [(LEASE_NAMESPACE_ENV, "kjs-no-such-namespace")];
    let out = run_plugin(&["diff", "train", "--record"], Some(&ns.name), &env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(controller_revisions(&ns).len(), 1, "recorded on sight: {out:?}");
}
