//! Proves the controller in the harness is real: failures restart JobSets, restarts
//! pick up template edits, and the immutable-templates namespaces reject edits.

use std::time::Duration;

use crate::support::*;

const IMAGE_PATCH: &str = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]"#;

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn failure_restarts_the_jobset_with_the_edited_template() {
    let ns = TestNs::new("smoke").await;
    ns.create(&jobset_yaml(
        "train",
        &[("workers", 2, "busybox:1.36"), ("driver", 1, "busybox:1.36")],
        "  failurePolicy:\n    maxRestarts: 3\n",
    ));
    let jobs = ns.wait_for_attempt_jobs("train", 0, 3).await;
    assert!(jobs.iter().all(|j| image_of(j, 0) == "busybox:1.36"));

    let out = ns.kubectl(&["patch", "jobset", "train", "--type=json", "-p", IMAGE_PATCH]);
    assert!(
        out.status.success(),
        "a template edit is accepted here: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    ns.fail_job("train-driver-0").await;
    wait_for("status.restarts = 1", Duration::from_secs(30), || async {
        (ns.jobset("train").await["status"]["restarts"] == 1).then_some(())
    })
    .await;
    let jobs = ns.wait_for_attempt_jobs("train", 1, 3).await;
    let images: Vec<(String, String)> =
        jobs.iter().map(|j| (j.metadata.name.clone().unwrap(), image_of(j, 0))).collect();
    assert_eq!(
        images,
        [
            ("train-driver-0".to_string(), "busybox:1.36".to_string()),
            ("train-workers-0".to_string(), "busybox:1.37".to_string()),
            ("train-workers-1".to_string(), "busybox:1.37".to_string()),
        ]
    );
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn immutable_namespace_rejects_template_edits() {
    let ns = TestNs::immutable("strict").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    let out = ns.kubectl(&["patch", "jobset", "train", "--type=json", "-p", IMAGE_PATCH]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the upstream webhook must reject the edit");
    assert!(stderr.contains("field is immutable"), "{stderr}");
    let jobset = ns.jobset("train").await;
    assert_eq!(
        jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"],
        "busybox:1.36"
    );
}
