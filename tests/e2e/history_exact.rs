//! History is exact (issue 13, point 4): revisions and attempts stay right through the
//! awkward cases (Jobs recreated inside an attempt, a torn read, a foreign revision of
//! the same name, data the API server re-encodes), on the real control plane.

use kubectl_jobset::render::documents::HistoryDocument;
use serde_json::Value;

use crate::support::*;

fn set_image(ns: &TestNs, name: &str, rjob: usize, image: &str) {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/replicatedJobs/{rjob}/template/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let out = ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", &patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn history_json(ns: &TestNs, name: &str) -> (HistoryDocument, String) {
    let out = ns.plugin(&["history", name, "-o", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    (serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}")), out.stderr)
}

/// (revision, attempts, source) per revision.
fn rows(doc: &HistoryDocument) -> Vec<(i64, Vec<i32>, String)> {
    doc.revisions
        .iter()
        .map(|r| (r.revision, r.restart_attempts.iter().copied().collect(), r.source.clone()))
        .collect()
}

fn controller_revisions(ns: &TestNs) -> Vec<Value> {
    let out = ns.kubectl(&["get", "controllerrevisions", "-o", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["items"].as_array().cloned().unwrap_or_default()
}

/// A driver and workers that start once the driver is ready; the command holds `&&`,
/// which the API server's JSON encoder writes as `\u0026`.
fn depends_on_yaml(name: &str) -> String {
    format!(
        "apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
spec:
  failurePolicy:
    maxRestarts: 3
  replicatedJobs:
  - name: driver
    replicas: 1
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: busybox:1.36
              command: [sh, -c, \"echo driver && sleep 3600\"]
  - name: workers
    replicas: 2
    dependsOn:
    - name: driver
      status: Ready
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: busybox:1.36
              command: [sh, -c, \"echo worker && sleep 3600\"]
"
    )
}

/// Lets a dependsOn attempt start: the driver, ready, then the workers.
async fn start_depends_on(ns: &TestNs, name: &str, attempt: i32) {
    ns.wait_for_attempt_jobs(name, attempt, 1).await;
    ns.ready_job(&format!("{name}-driver-0")).await;
    ns.settle(name, attempt, 3).await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn revision_data_is_never_patched_and_rollback_sees_no_false_conflict() {
    let ns = TestNs::new("hist-depends").await;
    ns.create(&depends_on_yaml("train"));
    start_depends_on(&ns, "train", 0).await;
    let (doc, _) = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(1, vec![0], "spec".to_owned())]);
    let stored = controller_revisions(&ns);

    set_image(&ns, "train", 1, "busybox:1.37");
    ns.fail_job("train-workers-0").await;
    start_depends_on(&ns, "train", 1).await;
    let (doc, stderr) = history_json(&ns, "train");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(rows(&doc), [(1, vec![0], "spec".to_owned()), (2, vec![1], "spec".to_owned())]);

    let out = ns.plugin(&["rollback", "train", "-y"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("warning"), "{out:?}");
    assert!(out.stdout.contains("rolled back to revision 1 (now revision 3)"), "{out:?}");
    let (doc, _) = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(2, vec![1], "spec".to_owned()), (3, vec![0], "spec".to_owned())]);
    // The first revision's data is byte for byte what was first stored.
    let first = stored[0]["metadata"]["name"].as_str().unwrap();
    let now = controller_revisions(&ns);
    let same = now.iter().find(|r| r["metadata"]["name"] == first).unwrap();
    assert_eq!(same["data"], stored[0]["data"]);
}
