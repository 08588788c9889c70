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

/// `history --record`: these tests are about the history commands record.
fn history_json(ns: &TestNs, name: &str) -> (HistoryDocument, String) {
    let out = ns.plugin(&["history", name, "-o", "json", "--record"]);
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

const RESTARTS: &str = "  failurePolicy:\n    maxRestarts: 3\n";

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_job_recreated_inside_an_attempt_adds_no_revision_and_renumbers_none() {
    let ns = TestNs::new("hist-recreated").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], RESTARTS));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    history_json(&ns, "train");
    set_image(&ns, "train", 0, "busybox:1.37");
    let (doc, _) = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(1, vec![0], "spec".to_owned()), (2, vec![], "spec".to_owned())]);

    // Deleted by hand: the controller recreates it inside attempt 0, from the new spec.
    let old_uid = ns.jobs_of("train").await[0].metadata.uid.clone();
    assert!(ns.kubectl(&["delete", "job", "train-workers-0"]).status.success());
    wait_for("train-workers-0 recreated", std::time::Duration::from_secs(60), || async {
        let jobs = ns.jobs_of("train").await;
        let job = jobs.iter().find(|j| j.metadata.name.as_deref() == Some("train-workers-0"))?;
        (job.metadata.uid != old_uid && job.metadata.deletion_timestamp.is_none()).then_some(())
    })
    .await;
    let recreated = ns.wait_for_attempt_jobs("train", 0, 2).await;
    assert_eq!(image_of(&recreated[0], 0), "busybox:1.37");

    let (doc, stderr) = history_json(&ns, "train");
    // The one warning is the truth about attempt 0: two templates run in it now.
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("runs mixed templates in attempt 0"), "{stderr}");
    assert_eq!(rows(&doc), [(1, vec![0], "spec".to_owned()), (2, vec![], "spec".to_owned())]);
    assert_eq!(controller_revisions(&ns).len(), 2);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_revision_of_the_same_name_held_by_another_object_is_named_not_skipped() {
    let ns = TestNs::new("hist-orphan").await;
    let yaml = jobset_yaml("train", &[("workers", 1, "busybox:1.36")], "");
    ns.create(&yaml);
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    history_json(&ns, "train");
    let old = controller_revisions(&ns)[0]["metadata"]["name"].as_str().unwrap().to_owned();
    let old_uid = ns.jobset("train").await["metadata"]["uid"].as_str().unwrap().to_owned();
    assert!(ns.kubectl(&["delete", "jobset", "train", "--cascade=orphan"]).status.success());
    wait_for("the garbage collector to orphan the revision", std::time::Duration::from_secs(60), || async {
        let stored = controller_revisions(&ns);
        stored[0]["metadata"]["ownerReferences"].as_array().is_none_or(|o| o.is_empty()).then_some(())
    })
    .await;

    // Its uid label still says whose it is: the deleted JobSet's history, shown as such.
    let out = ns.plugin(&["history", "train"]);
    assert_eq!(out.code, 0, "{out:?}");
    let heading = out.stdout.lines().next().unwrap_or_default();
    assert!(heading.starts_with("jobset.jobset.x-k8s.io/train (deleted; uid "), "{out:?}");
    assert!(heading.contains(&old_uid) && heading.contains("no recorder has seen it deleted yet"), "{out:?}");
    let out = ns.plugin(&["history", "train", "--revision", "1"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("image: busybox:1.36"), "{out:?}");
    let out = ns.plugin(&["rollback", "train", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("nothing to roll back") && out.stderr.contains("history train"), "{out:?}");
    let out = ns.plugin(&["history", "nothing-by-this-name"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("\"nothing-by-this-name\" not found"), "{out:?}");

    // Created again under the name: its own history beside the kept one, never mixed,
    // and the kept one is no warning.
    ns.create(&yaml);
    let (doc, stderr) = history_json(&ns, "train");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert_eq!(doc.revisions.len(), 1, "the new JobSet's history is recorded: {stderr}");
    assert_eq!(doc.revisions[0].name, format!("{old}-1"));
    assert_eq!(controller_revisions(&ns).len(), 2, "the orphan is left alone");

    // As an older kubectl-jobset left it (no uid label), it is nobody's: named in a warning.
    let unlabel = ns.kubectl(&["label", "controllerrevision", &old, "kubectl-jobset.io/jobset-uid-"]);
    assert!(unlabel.status.success(), "{}", String::from_utf8_lossy(&unlabel.stderr));
    let (doc, stderr) = history_json(&ns, "train");
    assert_eq!(
        stderr.matches(&format!("controllerrevision {}/{old} is labelled for jobset train", ns.name)).count(),
        1,
        "one warning naming the object: {stderr}"
    );
    assert!(stderr.contains("--cascade=orphan"), "{stderr}");
    assert_eq!(doc.revisions.len(), 1, "{stderr}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn rollback_to_a_rebuilt_revision_needs_it_cleaned_and_a_cleaned_one_restarts() {
    let ns = TestNs::new("hist-rebuilt").await;
    let extra = format!("{RESTARTS}  network:\n    enableDNSHostnames: true\n");
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], &extra));
    let jobs = ns.wait_for_attempt_jobs("train", 0, 2).await;
    let pod = jobs[0].spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    assert_eq!(pod.subdomain.as_deref(), Some("train"), "the controller injects it");
    // Edited before any kubectl-jobset command: v1 is known only from its Jobs.
    set_image(&ns, "train", 0, "busybox:1.37");
    let (doc, _) = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(1, vec![0], "running-jobs".to_owned()), (2, vec![], "spec".to_owned())]);
    let rebuilt = controller_revisions(&ns).into_iter().find(|r| r["revision"] == 1).unwrap();
    let name = rebuilt["metadata"]["name"].as_str().unwrap().to_owned();
    let template = &rebuilt["data"]["replicatedJobs"][0]["template"];
    assert!(template["spec"]["template"]["spec"].get("subdomain").is_none(), "cleaned: {template}");
    assert!(!template.to_string().contains("jobset.sigs.k8s.io/"), "cleaned: {template}");

    // As an older kubectl-jobset left it: not cleaned, so refused, with the reason.
    assert!(
        ns.kubectl(&["annotate", "controllerrevision", &name, "kubectl-jobset.io/cleaned-"]).status.success()
    );
    let out = ns.plugin(&["rollback", "train", "--to-revision", "1", "-y"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("revision 1 was rebuilt from running Jobs"), "{out:?}");
    assert!(
        ns.kubectl(&["annotate", "controllerrevision", &name, "kubectl-jobset.io/cleaned=true"])
            .status
            .success()
    );

    // Cleaned: the rollback applies, and the restart it asks for runs it.
    let out = ns.plugin(&["rollback", "train", "--to-revision", "1", "-y", "--restart", "--wait"]);
    assert_eq!(out.code, 0, "{out:?}");
    let jobs = ns.wait_for_attempt_jobs("train", 1, 2).await;
    assert!(jobs.iter().all(|j| image_of(j, 0) == "busybox:1.36"));
    let spec = ns.jobset("train").await["spec"]["replicatedJobs"][0]["template"].clone();
    assert!(spec["spec"]["template"]["spec"].get("subdomain").is_none(), "{spec}");
    let out = ns.plugin(&["diff", "train"]);
    assert_eq!(out.code, 0, "the new attempt runs the spec: {out:?}");
}
