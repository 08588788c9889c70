//! Shared by the handover e2e tests (tests/e2e/handover.rs) and fault tests
//! (tests/handover): a JobSet whose spec moved from busybox:1.36 (revision 1) to 1.37
//! (revision 2), running attempt 1 on 1.37 after a failure, in a namespace that then
//! gets upstream's immutable-template check; and what "nothing running was touched" means.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Service};
use kube::Api;
use kube::api::ListParams;
use serde_json::Value;

use super::support::*;

pub const NAME: &str = "train";
/// workers (2 replicas) and driver (1).
pub const JOBS: usize = 3;

pub const SPEC: &str = "  failurePolicy:\n    maxRestarts: 5\n  network:\n    enableDNSHostnames: true\n";

/// Both replicatedJobs' images changed in one edit.
pub fn set_images(ns: &TestNs, image: &str) {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"{image}"}},
            {{"op":"replace","path":"/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let out = ns.kubectl(&["patch", "jobset", NAME, "--type=json", "-p", &patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The JobSet described above, with each template recorded (`history --record`); returns
/// when attempt 1 is settled and template updates are refused in the namespace.
pub async fn prepare(ns: &TestNs, more_images: &[&str]) {
    ns.create(&jobset_yaml(NAME, &[("workers", 2, "busybox:1.36"), ("driver", 1, "busybox:1.36")], SPEC));
    ns.settle(NAME, 0, JOBS).await;
    assert_eq!(ns.plugin(&["history", NAME, "--record"]).code, 0);
    for image in std::iter::once(&"busybox:1.37").chain(more_images) {
        set_images(ns, image);
        assert_eq!(ns.plugin(&["history", NAME, "--record"]).code, 0);
    }
    // A failure restarts it (counted towards maxRestarts): attempt 1 runs the new image.
    ns.fail_job(&format!("{NAME}-driver-0")).await;
    ns.settle(NAME, 1, JOBS).await;
    make_immutable(ns).await;
}

/// Turns on upstream's immutable-template check in the namespace, and waits until the
/// API server applies it.
pub async fn make_immutable(ns: &TestNs) {
    let out = ns.kubectl(&["label", "namespace", &ns.name, &format!("{IMMUTABLE_LABEL}=true")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let probe = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:probe"}]"#;
    wait_for("the immutable-template check", Duration::from_secs(30), || async {
        let out = ns.kubectl(&["patch", "jobset", NAME, "--type=json", "-p", probe, "--dry-run=server"]);
        (!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("immutable")).then_some(())
    })
    .await;
}

/// What must survive a handover untouched.
#[derive(Debug, Clone, PartialEq)]
pub struct Running {
    /// Job name → uid.
    pub jobs: BTreeMap<String, String>,
    /// Pod name → uid.
    pub pods: BTreeMap<String, String>,
    pub restarts: Value,
    pub counted: Value,
    /// Revision name → number.
    pub revisions: BTreeMap<String, i64>,
}

pub async fn running(ns: &TestNs) -> Running {
    let jobs = ns
        .jobs_of(NAME)
        .await
        .into_iter()
        .map(|j| (j.metadata.name.unwrap(), j.metadata.uid.unwrap()))
        .collect();
    let pods: Api<Pod> = Api::namespaced(ns.client.clone(), &ns.name);
    let pods = pods
        .list(&ListParams::default().labels(&format!("jobset.sigs.k8s.io/jobset-name={NAME}")))
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|p| (p.metadata.name.unwrap(), p.metadata.uid.unwrap()))
        .collect();
    // The JobSet may be gone mid-handover: its Jobs and Pods are what must still run.
    let jobset = ns.jobsets().get_opt(NAME).await.unwrap();
    let status = jobset.map(|j| serde_json::to_value(j).unwrap()["status"].clone()).unwrap_or_default();
    Running {
        jobs,
        pods,
        restarts: status["restarts"].clone(),
        counted: status["restartsCountTowardsMax"].clone(),
        revisions: revisions(ns).await.into_iter().map(|r| (r.metadata.name.unwrap(), r.revision)).collect(),
    }
}

pub async fn revisions(ns: &TestNs) -> Vec<ControllerRevision> {
    let api: Api<ControllerRevision> = Api::namespaced(ns.client.clone(), &ns.name);
    api.list(&ListParams::default().labels(&format!("kubectl-jobset.io/jobset-name={NAME}")))
        .await
        .unwrap()
        .items
}

fn owned_by(
    refs: &Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>>,
    uid: &str,
    controller: bool,
) -> bool {
    refs.as_deref().unwrap_or_default().iter().any(|r| {
        r.uid == uid
            && r.kind == "JobSet"
            && r.api_version == "jobset.x-k8s.io/v1alpha2"
            && (!controller || (r.controller == Some(true) && r.block_owner_deletion == Some(true)))
    })
}

/// After a handover: a new JobSet owns the same Jobs (same uids, none deleting), Pods,
/// Service and revisions, with the old counters, and the journal is gone.
pub async fn assert_handed_over(ns: &TestNs, before: &Running, old_uid: &str) {
    let jobset = ns.jobset(NAME).await;
    let uid = jobset["metadata"]["uid"].as_str().unwrap().to_owned();
    assert_ne!(uid, old_uid, "a new JobSet");
    let after = running(ns).await;
    assert_eq!(after.jobs, before.jobs, "no Job deleted or created");
    assert_eq!(after.pods, before.pods, "no Pod deleted or created");
    assert_eq!(
        (&after.restarts, &after.counted),
        (&before.restarts, &before.counted),
        "restart counters restored"
    );
    // Every revision is kept (the rollback itself renumbers its target as the newest).
    for name in before.revisions.keys() {
        assert!(after.revisions.contains_key(name), "revision {name} kept: {:?}", after.revisions);
    }
    for job in ns.jobs_of(NAME).await {
        assert!(job.metadata.deletion_timestamp.is_none(), "{:?} is running", job.metadata.name);
        assert!(owned_by(&job.metadata.owner_references, &uid, true), "{:?} adopted", job.metadata);
        assert!(!owned_by(&job.metadata.owner_references, old_uid, false));
    }
    let services: Api<Service> = Api::namespaced(ns.client.clone(), &ns.name);
    let service = services.get(NAME).await.expect("the headless service");
    assert!(owned_by(&service.metadata.owner_references, &uid, true), "{:?}", service.metadata);
    for revision in revisions(ns).await {
        assert!(owned_by(&revision.metadata.owner_references, &uid, false), "{:?}", revision.metadata);
    }
    let configmaps: Api<ConfigMap> = Api::namespaced(ns.client.clone(), &ns.name);
    assert!(
        configmaps.get_opt(&format!("kubectl-jobset-handover-{NAME}")).await.unwrap().is_none(),
        "journal removed"
    );
}

/// The next restart (a failure) builds every Job from the spec's templates (`image`),
/// and counts towards maxRestarts from where the old JobSet was.
pub async fn next_restart_uses(ns: &TestNs, image: &str, counted_before: i64) {
    ns.fail_job(&format!("{NAME}-workers-1")).await;
    let jobs = ns.wait_for_attempt_jobs(NAME, 2, JOBS).await;
    for job in &jobs {
        assert_eq!(image_of(job, 0), image, "{:?}", job.metadata.name);
    }
    let status = ns.jobset(NAME).await["status"].clone();
    assert_eq!(status["restarts"], 2);
    assert_eq!(status["restartsCountTowardsMax"], counted_before + 1, "the failure budget was not refilled");
}
