//! Kueue beside the JobSet controller on the real control plane (tests/cluster/cluster.sh
//! runs Kueue with a ClusterQueue `cluster-queue`; each test makes a LocalQueue in its
//! own namespace). These tests pin what Kueue and the JobSet controller really do with
//! queued and admitted JobSets (jobset-controller.md §9, issue 26), the behaviour the
//! plugin's Kueue features build on. They fail, never skip, on a cluster without Kueue.
//!
//! All tests share cluster-queue's quota (cpu 4), so they run one at a time, each once
//! the queue holds no workloads of an earlier test.

#[path = "../support/cluster/mod.rs"]
mod support;

use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{ApiResource, DynamicObject, ListParams, Patch, PatchParams, WatchEvent, WatchParams};
use kube::{Api, Client};
use serde_json::{Value, json};
use support::*;

/// One test at a time: they share the ClusterQueue's quota.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const CLUSTER_QUEUE: &str = "cluster-queue";
/// The LocalQueue each test creates in its namespace (never `default`: Kueue would then
/// label every JobSet created there).
const QUEUE: &str = "lq";
const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";
const OLD: &str = "busybox:1.36";
const NEW: &str = "busybox:1.37";
/// Admission and Kueue's reactions take a second or two; allow for a busy machine.
const WAIT: Duration = Duration::from_secs(150);

fn kueue_resource(kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: "kueue.x-k8s.io".into(),
        version: "v1beta2".into(),
        api_version: "kueue.x-k8s.io/v1beta2".into(),
        kind: kind.into(),
        plural: plural.into(),
    }
}

fn cluster_queues(client: Client) -> Api<DynamicObject> {
    Api::all_with(client, &kueue_resource("ClusterQueue", "clusterqueues"))
}

fn workloads(ns: &TestNs) -> Api<DynamicObject> {
    Api::namespaced_with(ns.client.clone(), &ns.name, &kueue_resource("Workload", "workloads"))
}

/// Takes the serial lock, waits until cluster-queue is idle, and makes a namespace with
/// the LocalQueue `lq` pointing at cluster-queue.
async fn kueue_ns(prefix: &str) -> (tokio::sync::MutexGuard<'static, ()>, TestNs) {
    let serial = SERIAL.lock().await;
    let client = admin_client().await;
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
    let queues = cluster_queues(client);
    let found = queues.get_opt(CLUSTER_QUEUE).await;
    assert!(
        matches!(found, Ok(Some(_))),
        "no ClusterQueue {CLUSTER_QUEUE} ({found:?}): these tests need the harness cluster with Kueue (not KJS_KUEUE=0)"
    );
    // Namespaces of earlier tests are deleted asynchronously; their workloads go with them,
    // and until they are gone Kueue may still count (or re-create) one against the quota.
    wait_for("earlier Kueue test namespaces to be gone", Duration::from_secs(180), || async {
        let all = namespaces.list(&ListParams::default()).await.ok()?;
        let kueue = |n: &&k8s_openapi::api::core::v1::Namespace| {
            n.metadata.name.as_deref().is_some_and(|name| name.starts_with("kjs-kueue-"))
        };
        (!all.items.iter().any(|n| kueue(&n))).then_some(())
    })
    .await;
    wait_for("cluster-queue to hold no workloads", Duration::from_secs(120), || async {
        let cq = serde_json::to_value(queues.get(CLUSTER_QUEUE).await.unwrap()).unwrap();
        let count = |field: &str| cq["status"][field].as_i64().unwrap_or(0);
        (count("admittedWorkloads") + count("reservingWorkloads") + count("pendingWorkloads") == 0)
            .then_some(())
    })
    .await;
    let ns = TestNs::new(prefix).await;
    ns.create(&format!(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: {QUEUE}\nspec:\n  clusterQueue: {CLUSTER_QUEUE}\n"
    ));
    (serial, ns)
}

/// A JobSet in the LocalQueue: one replicatedJob `w` with `replicas` Jobs of one Pod
/// each, every Pod requesting `cpu`.
fn queued_jobset(name: &str, replicas: i32, cpu: &str, image: &str) -> String {
    format!(
        r#"apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
  labels:
    {QUEUE_LABEL}: {QUEUE}
spec:
  replicatedJobs:
  - name: w
    replicas: {replicas}
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: {image}
              resources:
                requests: {{cpu: "{cpu}", memory: 100Mi}}
"#
    )
}

fn condition_is(obj: &Value, type_: &str, status: &str) -> bool {
    obj["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == type_ && c["status"] == status))
}

fn uid(obj: &Value) -> String {
    obj["metadata"]["uid"].as_str().unwrap().to_owned()
}

fn workload_image(workload: &Value) -> String {
    workload["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["image"].as_str().unwrap().to_owned()
}

/// The live (not being deleted) Workload the JobSet controls, if any.
async fn workload_of(ns: &TestNs, jobset: &str) -> Option<Value> {
    let owner = uid(&ns.jobset(jobset).await);
    let items = workloads(ns).list(&ListParams::default()).await.expect("list workloads").items;
    items.into_iter().map(|w| serde_json::to_value(w).unwrap()).find(|w| {
        w["metadata"]["deletionTimestamp"].is_null()
            && w["metadata"]["ownerReferences"].as_array().is_some_and(|refs| {
                refs.iter()
                    .any(|r| r["kind"] == "JobSet" && r["uid"] == owner.as_str() && r["controller"] == true)
            })
    })
}

/// Waits until Kueue admitted the JobSet: its Workload is Admitted and the JobSet is
/// no longer suspended. Returns the Workload.
async fn wait_admitted(ns: &TestNs, jobset: &str) -> Value {
    wait_for(&format!("{jobset} to be admitted"), WAIT, || async {
        let workload = workload_of(ns, jobset).await?;
        let running = ns.jobset(jobset).await["spec"]["suspend"] == false;
        (condition_is(&workload, "Admitted", "True") && running).then_some(workload)
    })
    .await
}

/// Waits until the JobSet is queued: suspended, its Workload without quota and marked
/// Pending by the scheduler. Returns the Workload.
async fn wait_pending(ns: &TestNs, jobset: &str) -> Value {
    let workload = wait_for(&format!("{jobset}'s Workload to be pending"), WAIT, || async {
        let workload = workload_of(ns, jobset).await?;
        let pending = workload["status"]["conditions"].as_array().is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "QuotaReserved" && c["status"] == "False" && c["reason"] == "Pending")
        });
        pending.then_some(workload)
    })
    .await;
    assert!(!condition_is(&workload, "Admitted", "True"), "{workload:#}");
    assert_eq!(ns.jobset(jobset).await["spec"]["suspend"], true, "a queued JobSet stays suspended");
    workload
}

fn suspended(job: &Job) -> bool {
    job.spec.as_ref().and_then(|s| s.suspend) == Some(true)
}

fn job_uids(jobs: &[Job]) -> Vec<String> {
    jobs.iter().map(|j| j.metadata.uid.clone().unwrap()).collect()
}

/// Waits for the JobSet's `count` live Jobs, all suspended or all running.
async fn wait_jobs(ns: &TestNs, jobset: &str, count: usize, want_suspended: bool) -> Vec<Job> {
    let what = if want_suspended { "suspended" } else { "running" };
    wait_for(&format!("{count} {what} jobs of {jobset}"), WAIT, || async {
        let jobs: Vec<Job> = ns
            .jobs_of(jobset)
            .await
            .into_iter()
            .filter(|j| j.metadata.deletion_timestamp.is_none())
            .collect();
        (jobs.len() == count && jobs.iter().all(|j| suspended(j) == want_suspended)).then_some(jobs)
    })
    .await
}

/// Waits for `count` live Pods of the JobSet, none of them in `not`; returns them.
async fn wait_pods(ns: &TestNs, jobset: &str, count: usize, not: &[String]) -> Vec<Pod> {
    let pods: Api<Pod> = Api::namespaced(ns.client.clone(), &ns.name);
    let lp = ListParams::default().labels(&format!("jobset.sigs.k8s.io/jobset-name={jobset}"));
    wait_for(&format!("{count} pods of {jobset}"), WAIT, || async {
        let live: Vec<Pod> = pods
            .list(&lp)
            .await
            .expect("list pods")
            .items
            .into_iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .collect();
        let fresh = live.iter().all(|p| !not.contains(p.metadata.uid.as_ref().unwrap()));
        (live.len() == count && fresh).then_some(live)
    })
    .await
}

fn pod_image(pod: &Pod) -> String {
    pod.spec.as_ref().unwrap().containers[0].image.clone().unwrap_or_default()
}

fn set_image(ns: &TestNs, jobset: &str, image: &str) {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let out = ns.kubectl(&["patch", "jobset", jobset, "--type=json", "-p", &patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn delete_jobset(ns: &TestNs, jobset: &str) {
    let out = ns.kubectl(&["delete", "jobset", jobset, "--wait=false"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A restart as src/restart makes it: `status.restarts` + 1 by a JSON patch on the status
/// subresource, guarded by a `test` op (on the resourceVersion while `restarts` is still
/// omitted as 0).
async fn bump_restarts(ns: &TestNs, jobset: &str) {
    let current = ns.jobset(jobset).await;
    let guard = match current["status"].get("restarts") {
        Some(restarts) => json!({"op": "test", "path": "/status/restarts", "value": restarts}),
        None => {
            json!({"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]})
        }
    };
    let next = current["status"]["restarts"].as_i64().unwrap_or(0) + 1;
    let patch: json_patch::Patch =
        serde_json::from_value(json!([guard, {"op": "add", "path": "/status/restarts", "value": next}]))
            .unwrap();
    ns.jobsets()
        .patch_status(jobset, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
        .expect("bump status.restarts");
}

/// Reasons of the Events about the JobSet.
fn event_reasons(ns: &TestNs, jobset: &str) -> Vec<String> {
    let selector = format!("involvedObject.kind=JobSet,involvedObject.name={jobset}");
    let out = ns.kubectl(&["get", "events", "--field-selector", &selector, "-o", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let events: Value = serde_json::from_slice(&out.stdout).unwrap();
    events["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["reason"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// A JobSet that holds 3 of the queue's 4 cpus, admitted; `train` (2 Jobs of 1 cpu) then
/// queues behind it with its suspended Jobs created. Returns train's Jobs and Workload.
async fn queue_behind_blocker(ns: &TestNs) -> (Vec<Job>, Value) {
    ns.create(&queued_jobset("blocker", 1, "3", OLD));
    wait_admitted(ns, "blocker").await;
    ns.create(&queued_jobset("train", 2, "1", OLD));
    let workload = wait_pending(ns, "train").await;
    let jobs = wait_jobs(ns, "train", 2, true).await;
    (jobs, workload)
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn kueue_admits_within_quota_and_queues_beyond_it() {
    let (_serial, ns) = kueue_ns("kueue-admit").await;

    // Within quota: a Workload owned by the JobSet, admitted; the JobSet and its Job run.
    ns.create(&queued_jobset("first", 1, "3", OLD));
    let workload = wait_admitted(&ns, "first").await;
    let owner = &workload["metadata"]["ownerReferences"][0];
    assert_eq!(
        (owner["kind"].as_str(), owner["name"].as_str()),
        (Some("JobSet"), Some("first")),
        "{workload:#}"
    );
    assert_eq!(workload["spec"]["queueName"], QUEUE, "{workload:#}");
    assert_eq!(workload["status"]["admission"]["clusterQueue"], CLUSTER_QUEUE, "{workload:#}");
    wait_jobs(&ns, "first", 1, false).await;

    // Beyond quota (3 + 3 > 4 cpus): queued, suspended, its Job created suspended.
    ns.create(&queued_jobset("second", 1, "3", OLD));
    let pending = wait_pending(&ns, "second").await;
    assert!(
        pending["status"]["conditions"].to_string().contains("insufficient unused quota for cpu"),
        "the scheduler says why: {pending:#}"
    );
    wait_jobs(&ns, "second", 1, true).await;
    let queues = cluster_queues(ns.client.clone());
    wait_for("cluster-queue to count one admitted and one pending workload", WAIT, || async {
        let cq = serde_json::to_value(queues.get(CLUSTER_QUEUE).await.unwrap()).unwrap();
        (cq["status"]["admittedWorkloads"] == 1 && cq["status"]["pendingWorkloads"] == 1).then_some(())
    })
    .await;

    // Quota freed: the queued one is admitted and its Job runs.
    delete_jobset(&ns, "first");
    wait_admitted(&ns, "second").await;
    wait_jobs(&ns, "second", 1, false).await;
}

/// Issue 26 point 1: the queued Workload follows the new template, but admission
/// resumes the Jobs created before the edit, and they run the old image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn queued_image_change_resumes_the_old_jobs_on_the_old_image() {
    let (_serial, ns) = kueue_ns("kueue-queued-edit").await;
    let (jobs, workload) = queue_behind_blocker(&ns).await;
    assert!(jobs.iter().all(|j| image_of(j, 0) == OLD));

    set_image(&ns, "train", NEW);
    // Kueue updates the queued Workload in place (same object) to the new template.
    let updated = wait_for("the queued Workload to follow the new image", WAIT, || async {
        workload_of(&ns, "train").await.filter(|w| workload_image(w) == NEW)
    })
    .await;
    assert_eq!(uid(&updated), uid(&workload), "updated in place, not replaced");
    assert!(event_reasons(&ns, "train").iter().any(|r| r == "UpdatedWorkload"));

    delete_jobset(&ns, "blocker");
    let admitted = wait_admitted(&ns, "train").await;
    let resumed = wait_jobs(&ns, "train", 2, false).await;
    assert_eq!(job_uids(&resumed), job_uids(&jobs), "the same Jobs are resumed");
    assert!(resumed.iter().all(|j| image_of(j, 0) == OLD), "resumed Jobs keep the old image");
    let pods = wait_pods(&ns, "train", 2, &[]).await;
    assert!(pods.iter().all(|p| pod_image(p) == OLD), "the Pods run the old image");
    // The admitted Workload says the new image: Workload and Pods disagree.
    assert_eq!(workload_image(&admitted), NEW);
    assert_eq!(images(&ns.jobset("train").await), [NEW]);
}

/// Issue 26 point 4: a restart (status bump) of a queued JobSet recreates its suspended
/// Jobs from the new template, Kueue keeps the same pending Workload, and admission runs
/// the new image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn queued_restart_bump_rebuilds_the_jobs_and_admission_runs_the_new_image() {
    let (_serial, ns) = kueue_ns("kueue-queued-bump").await;
    let (jobs, workload) = queue_behind_blocker(&ns).await;

    set_image(&ns, "train", NEW);
    wait_for("the queued Workload to follow the new image", WAIT, || async {
        workload_of(&ns, "train").await.filter(|w| workload_image(w) == NEW)
    })
    .await;
    bump_restarts(&ns, "train").await;
    let rebuilt = ns.wait_for_attempt_jobs("train", 1, 2).await;
    assert!(rebuilt.iter().all(suspended), "recreated suspended: the JobSet is still queued");
    assert!(rebuilt.iter().all(|j| image_of(j, 0) == NEW), "recreated from the new template");
    assert!(job_uids(&rebuilt).iter().all(|u| !job_uids(&jobs).contains(u)), "new Job objects");
    let still = wait_pending(&ns, "train").await;
    assert_eq!(uid(&still), uid(&workload), "Kueue keeps the same Workload through the bump");

    delete_jobset(&ns, "blocker");
    wait_admitted(&ns, "train").await;
    let resumed = wait_jobs(&ns, "train", 2, false).await;
    assert_eq!(job_uids(&resumed), job_uids(&rebuilt), "the rebuilt Jobs are resumed");
    assert!(resumed.iter().all(|j| image_of(j, 0) == NEW && attempt_label(j) == Some(1)));
    let pods = wait_pods(&ns, "train", 2, &[]).await;
    assert!(pods.iter().all(|p| pod_image(p) == NEW), "the Pods run the new image");
}

/// Issue 26 point 2: an admitted, running JobSet whose image is changed in place is
/// stopped by Kueue (suspended, Pods deleted), gets a new Workload, is re-admitted, and
/// the same Jobs resume on the old image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn admitted_image_change_is_stopped_and_resumes_on_the_old_image() {
    let (_serial, ns) = kueue_ns("kueue-admitted-edit").await;
    ns.create(&queued_jobset("train", 2, "1", OLD));
    let workload = wait_admitted(&ns, "train").await;
    let jobs = wait_jobs(&ns, "train", 2, false).await;
    for job in &jobs {
        ns.ready_job(job.metadata.name.as_deref().unwrap()).await;
    }
    let pods_before: Vec<String> =
        wait_pods(&ns, "train", 2, &[]).await.iter().map(|p| p.metadata.uid.clone().unwrap()).collect();

    // Watch the JobSet from here on: Kueue's suspension may last only a moment.
    let rv = ns.jobset("train").await["metadata"]["resourceVersion"].as_str().unwrap().to_owned();
    let stream = ns
        .jobsets()
        .watch(&WatchParams::default().fields("metadata.name=train"), &rv)
        .await
        .expect("watch the JobSet");
    let suspensions = tokio::spawn(async move {
        let mut stream = stream.boxed();
        while let Ok(Some(event)) = stream.try_next().await {
            if let WatchEvent::Modified(js) = event
                && serde_json::to_value(&js).unwrap()["spec"]["suspend"] == true
            {
                return true;
            }
        }
        false
    });

    set_image(&ns, "train", NEW);
    let replaced = wait_for("a new admitted Workload", WAIT, || async {
        let w = workload_of(&ns, "train").await?;
        (uid(&w) != uid(&workload) && condition_is(&w, "Admitted", "True")).then_some(w)
    })
    .await;
    let suspended_once =
        tokio::time::timeout(WAIT, suspensions).await.expect("JobSet suspended in time").unwrap();
    assert!(suspended_once, "Kueue suspended the running JobSet");
    assert_eq!(workload_image(&replaced), NEW, "the new Workload is built from the new template");
    let reasons = event_reasons(&ns, "train");
    assert!(reasons.iter().any(|r| r == "Stopped"), "{reasons:?}");

    wait_admitted(&ns, "train").await;
    let resumed = wait_jobs(&ns, "train", 2, false).await;
    assert_eq!(job_uids(&resumed), job_uids(&jobs), "the same Jobs resume");
    assert!(resumed.iter().all(|j| image_of(j, 0) == OLD), "and keep the old image");
    // Kueue's stop deleted the running Pods; the resumed Jobs made new ones.
    let pods = wait_pods(&ns, "train", 2, &pods_before).await;
    assert!(pods.iter().all(|p| pod_image(p) == OLD), "the new Pods run the old image");
    assert_eq!(images(&ns.jobset("train").await), [NEW], "the spec keeps the edit");
}

mod cli;
