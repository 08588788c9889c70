//! Every JobSet feature of the v1alpha2 API, round trip, on the real controller with its
//! RestartJob, InPlaceRestart and ElasticJobSet gates on: `diff` shows no drift on an
//! untouched JobSet and exactly the change after an edit, `restart` recreates the Jobs
//! from the new template, `history` records it and `rollback` restores it. The JobSets
//! run concurrently, each in its own namespace, to keep the suite short.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use serde_json::{Value, json};

use crate::support::*;

const V1: &str = "busybox:1.36";
const V2: &str = "busybox:1.37";

/// A replicatedJob of one container running `V1`; the extras add lines to the
/// replicatedJob (such as dependsOn), the Job spec and the container, indented to fit.
fn rjob(name: &str, replicas: i32, rjob_extra: &str, job_spec_extra: &str, container_extra: &str) -> String {
    format!(
        "  - name: {name}\n    replicas: {replicas}\n{rjob_extra}    template:\n      spec:\n{job_spec_extra}        template:\n          spec:\n            restartPolicy: Never\n            containers:\n            - name: main\n              image: {V1}\n{container_extra}"
    )
}

fn jobset(name: &str, metadata_extra: &str, spec_extra: &str, rjobs: &[String]) -> String {
    format!(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: {name}\n{metadata_extra}spec:\n{spec_extra}  replicatedJobs:\n{}",
        rjobs.concat()
    )
}

fn patch(ns: &TestNs, name: &str, ops: Value) {
    let out = ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", &ops.to_string()]);
    assert!(out.status.success(), "patch {name}: {}", String::from_utf8_lossy(&out.stderr));
}

fn image_path(rjob: usize) -> String {
    format!("/spec/replicatedJobs/{rjob}/template/spec/template/spec/containers/0/image")
}

fn set_image(ns: &TestNs, name: &str, rjob: usize, image: &str) {
    patch(ns, name, json!([{"op": "replace", "path": image_path(rjob), "value": image}]));
}

fn job_image(job: &Job) -> String {
    image_of(job, 0)
}

fn live(jobs: Vec<Job>) -> Vec<Job> {
    jobs.into_iter().filter(|j| j.metadata.deletion_timestamp.is_none()).collect()
}

fn label<'a>(job: &'a Job, key: &str) -> Option<&'a str> {
    job.metadata.labels.as_ref()?.get(key).map(String::as_str)
}

/// Plays the kubelet until attempt `attempt` has its `count` Jobs and the controller no
/// longer reports RestartingJobSet: each new Job's pods are marked ready, and the Jobs of
/// the replicatedJobs in `complete` then complete (for dependsOn Complete).
async fn bring_up(ns: &TestNs, name: &str, attempt: i32, count: usize, complete: &[&str]) -> Vec<Job> {
    let start = Instant::now();
    let mut handled = HashSet::new();
    loop {
        let current: Vec<Job> =
            live(ns.jobs_of(name).await).into_iter().filter(|j| attempt_label(j) == Some(attempt)).collect();
        for job in &current {
            let job_name = job.metadata.name.clone().unwrap();
            let key = (job_name.clone(), job.metadata.uid.clone());
            if handled.insert(key) {
                ns.ready_job(&job_name).await;
                if complete.contains(&label(job, "jobset.sigs.k8s.io/replicatedjob-name").unwrap_or_default())
                {
                    ns.complete_job(&job_name).await;
                }
            }
        }
        if current.len() == count {
            let status = ns.jobset(name).await["status"].clone();
            let restarting = status["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "RestartingJobSet" && c["status"] == "True");
            if !restarting {
                return current;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{}/{name}: attempt {attempt} did not come up with {count} jobs (have {})",
            ns.name,
            current.len()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

fn assert_no_drift(ns: &TestNs, name: &str) {
    let out = ns.plugin(&["diff", name]);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}/{name} should have no drift: {out:?}", ns.name);
}

/// The change paths `diff -o json` reports, over every outdated group.
fn drift_paths(ns: &TestNs, name: &str) -> Vec<String> {
    let out = ns.plugin(&["diff", name, "-o", "json"]);
    assert_eq!(out.code, 1, "{}/{name} should have drift: {out:?}", ns.name);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let mut paths: Vec<String> = doc["jobsets"][0]["replicatedJobs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["outdated"].as_array().unwrap().iter())
        .flat_map(|g| g["changes"].as_array().unwrap().iter())
        .map(|c| c["path"].as_str().unwrap().to_owned())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// One feature's JobSet, already created in `ns`, through the whole round trip.
struct Case<'a> {
    ns: &'a TestNs,
    name: &'a str,
    jobs: usize,
    /// ReplicatedJobs whose Jobs must complete (dependsOn Complete).
    complete: &'a [&'a str],
    /// The replicatedJob whose first container's image the edit changes.
    edited: usize,
    /// Extra `restart` flags (e.g. `--if-outdated`).
    restart_flags: &'a [&'a str],
}

impl Case<'_> {
    fn image_of_edited(&self, jobs: &[Job]) -> Vec<String> {
        let rjob = self.ns_rjob_name();
        jobs.iter()
            .filter(|j| label(j, "jobset.sigs.k8s.io/replicatedjob-name") == Some(rjob.as_str()))
            .map(job_image)
            .collect()
    }

    fn ns_rjob_name(&self) -> String {
        // Read once per call: cheap, and the spec's order never changes here.
        let out = self.ns.kubectl(&[
            "get",
            "jobset",
            self.name,
            "-o",
            &format!("jsonpath={{.spec.replicatedJobs[{}].name}}", self.edited),
        ]);
        String::from_utf8(out.stdout).unwrap()
    }

    /// Untouched: no drift. Edited: exactly the image. Restarted: the new image, recorded.
    /// Rolled back (with --restart): the old image again.
    async fn run(&self) {
        let (ns, name) = (self.ns, self.name);
        bring_up(ns, name, 0, self.jobs, self.complete).await;
        assert_no_drift(ns, name);

        set_image(ns, name, self.edited, V2);
        assert_eq!(
            drift_paths(ns, name),
            ["spec.template.spec.containers[main].image"],
            "{}/{name}",
            ns.name
        );

        let mut args = vec!["restart", name];
        args.extend(self.restart_flags);
        let out = ns.plugin(&args);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(out.stdout.contains("restarted (attempt 0 → 1)"), "{out:?}");
        let jobs = bring_up(ns, name, 1, self.jobs, self.complete).await;
        assert!(
            self.image_of_edited(&jobs).iter().all(|i| i == V2),
            "{}/{name}: restarted from the new template",
            ns.name
        );
        assert_no_drift(ns, name);

        let out = ns.plugin(&["history", name, "-o", "json"]);
        assert_eq!(out.code, 0, "{out:?}");
        let history: Value = serde_json::from_str(&out.stdout).unwrap();
        let revisions = history["revisions"].as_array().unwrap();
        assert_eq!(revisions.len(), 2, "{}/{name}: {out:?}", ns.name);
        let newest = &revisions[revisions.len() - 1];
        assert_eq!((&newest["spec"], &newest["running"]), (&json!(true), &json!(true)), "{out:?}");
        assert!(newest["restartAttempts"].as_array().unwrap().contains(&json!(1)), "{out:?}");

        let out = ns.plugin(&["rollback", name, "--restart"]);
        assert_eq!(out.code, 0, "{}/{name}: {out:?}", ns.name);
        let jobs = bring_up(ns, name, 2, self.jobs, self.complete).await;
        assert!(self.image_of_edited(&jobs).iter().all(|i| i == V1), "{}/{name}: rolled back", ns.name);
        assert_no_drift(ns, name);
    }
}

/// startupPolicy InOrder, successPolicy All with targetReplicatedJobs.
async fn in_order() {
    let ns = TestNs::new("feat-order").await;
    ns.create(&jobset(
        "order",
        "",
        "  startupPolicy:\n    startupPolicyOrder: InOrder\n  successPolicy:\n    operator: All\n    targetReplicatedJobs: [leader]\n",
        &[rjob("leader", 1, "", "", ""), rjob("workers", 2, "", "", "")],
    ));
    Case { ns: &ns, name: "order", jobs: 3, complete: &[], edited: 1, restart_flags: &[] }.run().await;
}

/// dependsOn with Complete and with Ready, successPolicy Any with targetReplicatedJobs.
async fn depends_on() {
    let ns = TestNs::new("feat-depends").await;
    let depends =
        |on: &str, status: &str| format!("    dependsOn:\n    - name: {on}\n      status: {status}\n");
    ns.create(&jobset(
        "depends",
        "",
        "  successPolicy:\n    operator: Any\n    targetReplicatedJobs: [client]\n",
        &[
            rjob("prep", 1, "", "", ""),
            rjob("server", 1, &depends("prep", "Complete"), "", ""),
            rjob("client", 1, &depends("server", "Ready"), "", ""),
        ],
    ));
    Case { ns: &ns, name: "depends", jobs: 3, complete: &["prep"], edited: 2, restart_flags: &[] }
        .run()
        .await;
    let out = ns.plugin(&["restart", "depends", "--dry-run=client"]);
    assert!(out.stderr.contains("depends-prep-0 has already succeeded"), "{out:?}");
}

/// failurePolicy rules with every action, network, coordinator, ttlSecondsAfterFinished
/// and an explicit managedBy. A changed coordinator is drift that `--if-outdated` acts on.
async fn policies_network_coordinator() {
    let ns = TestNs::new("feat-policies").await;
    let spec = "  managedBy: jobset.sigs.k8s.io/jobset-controller\n  ttlSecondsAfterFinished: 600\n  \
        network:\n    enableDNSHostnames: true\n    subdomain: net\n    publishNotReadyAddresses: true\n  \
        coordinator:\n    replicatedJob: workers\n    jobIndex: 0\n    podIndex: 0\n  \
        failurePolicy:\n    maxRestarts: 5\n    rules:\n    \
        - {name: fail, action: FailJobSet, onJobFailureReasons: [DeadlineExceeded]}\n    \
        - {name: again, action: RestartJobSet, onJobFailureReasons: [BackoffLimitExceeded]}\n    \
        - {name: againFree, action: RestartJobSetAndIgnoreMaxRestarts, onJobFailureReasons: [PodFailurePolicy]}\n    \
        - {name: one, action: RestartJob, targetReplicatedJobs: [workers], onJobFailureReasons: [MaxFailedIndexesExceeded]}\n    \
        - {name: oneFree, action: RestartJobAndIgnoreMaxRestarts}\n";
    let indexed = "        completionMode: Indexed\n        parallelism: 1\n        completions: 1\n";
    ns.create(&jobset("policies", "", spec, &[rjob("workers", 2, "", indexed, "")]));
    Case { ns: &ns, name: "policies", jobs: 2, complete: &[], edited: 0, restart_flags: &[] }.run().await;

    // The coordinator's endpoint is on every Job: changing it is drift.
    patch(&ns, "policies", json!([{"op": "replace", "path": "/spec/coordinator/jobIndex", "value": 1}]));
    let paths = drift_paths(&ns, "policies");
    assert!(!paths.is_empty() && paths.iter().all(|p| p.contains("coordinator")), "{paths:?}");
    let out = ns.plugin(&["restart", "policies", "--if-outdated"]);
    assert!(out.code == 0 && out.stdout.contains("restarted (attempt 2 → 3)"), "{out:?}");
}

/// Exclusive placement with the node-selector strategy, on the JobSet; the edit moves
/// one replicatedJob to another topology with its own annotation, which `--if-outdated`
/// acts on.
async fn exclusive_placement() {
    let ns = TestNs::new("feat-placement").await;
    let annotations = "  annotations:\n    alpha.jobset.sigs.k8s.io/exclusive-topology: rack\n    \
        alpha.jobset.sigs.k8s.io/node-selector: \"true\"\n";
    ns.create(&jobset("placement", annotations, "", &[rjob("workers", 2, "", "", "")]));
    let case = Case {
        ns: &ns,
        name: "placement",
        jobs: 2,
        complete: &[],
        edited: 0,
        restart_flags: &["--if-outdated"],
    };
    case.run().await;

    patch(
        &ns,
        "placement",
        json!([{"op": "add", "path": "/spec/replicatedJobs/0/template/metadata",
            "value": {"annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "zone"}}}]),
    );
    let paths = drift_paths(&ns, "placement");
    assert!(paths.len() == 2 && paths.iter().all(|p| p.contains("exclusive-topology")), "{paths:?}");
    let out = ns.plugin(&["restart", "placement", "--if-outdated"]);
    assert!(out.code == 0 && out.stdout.contains("restarted (attempt 2 → 3)"), "{out:?}");
    let jobs = bring_up(&ns, "placement", 3, 2, &[]).await;
    let annotations = jobs[0].metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations.get("alpha.jobset.sigs.k8s.io/exclusive-topology").map(String::as_str),
        Some("zone")
    );
    assert_no_drift(&ns, "placement");
}

/// Exclusive placement by affinity (the annotation alone, on the JobSet): changing the
/// JobSet's annotation is drift too, and `--if-outdated` acts on it.
async fn exclusive_affinity() {
    let ns = TestNs::new("feat-affinity").await;
    let annotations = "  annotations:\n    alpha.jobset.sigs.k8s.io/exclusive-topology: rack\n";
    ns.create(&jobset("affinity", annotations, "", &[rjob("workers", 2, "", "", "")]));
    Case { ns: &ns, name: "affinity", jobs: 2, complete: &[], edited: 0, restart_flags: &["--if-outdated"] }
        .run()
        .await;
    patch(
        &ns,
        "affinity",
        json!([{"op": "replace", "path": "/metadata/annotations/alpha.jobset.sigs.k8s.io~1exclusive-topology",
            "value": "zone"}]),
    );
    let paths = drift_paths(&ns, "affinity");
    assert!(paths.len() == 2 && paths.iter().all(|p| p.contains("exclusive-topology")), "{paths:?}");
    let out = ns.plugin(&["restart", "affinity", "--if-outdated"]);
    assert!(out.code == 0 && out.stdout.contains("restarted (attempt 2 → 3)"), "{out:?}");
}

/// volumeClaimPolicies with a retention policy: the controller adds the volumes.
async fn volume_claims() {
    let ns = TestNs::new("feat-claims").await;
    let spec = "  volumeClaimPolicies:\n  - templates:\n    - metadata:\n        name: data\n      spec:\n        \
        accessModes: [ReadWriteOnce]\n        resources:\n          requests:\n            storage: 1Gi\n    \
        retentionPolicy:\n      whenDeleted: Delete\n";
    let mount = "              volumeMounts:\n              - {name: data, mountPath: /data}\n";
    ns.create(&jobset("claims", "", spec, &[rjob("workers", 1, "", "", mount)]));
    Case { ns: &ns, name: "claims", jobs: 1, complete: &[], edited: 0, restart_flags: &[] }.run().await;
}

/// InPlaceRestart: the round trip works, and `restart` says it is not in place.
async fn in_place_restart() {
    let ns = TestNs::new("feat-inplace").await;
    let spec = "  failurePolicy:\n    maxRestarts: 3\n    restartStrategy: InPlaceRestart\n";
    let job_spec = "        backoffLimit: 2147483647\n        podReplacementPolicy: Failed\n        completionMode: Indexed\n        \
        parallelism: 1\n        completions: 1\n";
    ns.create(&jobset("inplace", "", spec, &[rjob("workers", 1, "", job_spec, "")]));
    Case { ns: &ns, name: "inplace", jobs: 1, complete: &[], edited: 0, restart_flags: &[] }.run().await;
    let out = ns.plugin(&["restart", "inplace", "--dry-run=client"]);
    assert!(
        out.stderr.contains("restartStrategy is InPlaceRestart, but this restart is not in place"),
        "{out:?}"
    );
}

/// suspend: a suspended JobSet's Jobs compare equal to its spec (no noise); resumed, it round-trips.
async fn suspended() {
    let ns = TestNs::new("feat-suspend").await;
    ns.create(&jobset("paused", "", "  suspend: true\n", &[rjob("workers", 1, "", "", "")]));
    ns.wait_for_attempt_jobs("paused", 0, 1).await;
    let out = ns.plugin(&["diff", "paused"]);
    assert_eq!(out.code, 0, "{out:?}");
    patch(&ns, "paused", json!([{"op": "replace", "path": "/spec/suspend", "value": false}]));
    Case { ns: &ns, name: "paused", jobs: 1, complete: &[], edited: 0, restart_flags: &[] }.run().await;
}

/// Elastic JobSets: the controller scales running Jobs to a changed parallelism and
/// completions itself, and creates the Job a raised replicas asks for.
async fn elastic() {
    let ns = TestNs::new("feat-elastic").await;
    let job_spec = "        completionMode: Indexed\n        parallelism: 1\n        completions: 1\n";
    ns.create(&jobset("elastic", "", "", &[rjob("workers", 1, "", job_spec, "")]));
    bring_up(&ns, "elastic", 0, 1, &[]).await;
    assert_no_drift(&ns, "elastic");
    // Revision 1 recorded now: once scaled in place, its Jobs no longer tell it.
    let out = ns.plugin(&["history", "elastic", "--record"]);
    assert_eq!(out.code, 0, "{out:?}");
    let scale = |n: i64| {
        json!([{"op": "replace", "path": "/spec/replicatedJobs/0/template/spec/parallelism", "value": n},
            {"op": "replace", "path": "/spec/replicatedJobs/0/template/spec/completions", "value": n}])
    };
    patch(&ns, "elastic", scale(2));
    patch(&ns, "elastic", json!([{"op": "replace", "path": "/spec/replicatedJobs/0/replicas", "value": 2}]));
    let scaled = |want: i32| {
        let ns = &ns;
        async move {
            let start = Instant::now();
            loop {
                let jobs: Vec<Job> = live(ns.jobs_of("elastic").await);
                let parallelism: Vec<i32> =
                    jobs.iter().map(|j| j.spec.as_ref().unwrap().parallelism.unwrap_or(1)).collect();
                if jobs.len() == 2 && parallelism.iter().all(|p| *p == want) {
                    return;
                }
                assert!(start.elapsed() < Duration::from_secs(60), "not scaled to {want}: {parallelism:?}");
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
    };
    scaled(2).await;
    // The Job created before the scale-up still tells its Pods the old world size; the
    // new one the new size. That is drift (a distributed job must not mix them), and
    // nothing else is.
    let out = ns.plugin(&["diff", "elastic"]);
    assert_eq!(out.code, 1, "{out:?}");
    for field in ["replicatedjob-replicas", "global-replicas"] {
        let note = format!("jobset.sigs.k8s.io/{field} is 1 on elastic-workers-0 but 2 in the spec");
        assert!(out.stdout.contains(&note), "{note}: {out:?}");
    }
    assert!(out.stdout.contains("attempt 0, 0/2 jobs outdated"), "no template drift: {out:?}");
    let out = ns.plugin(&["restart", "elastic"]);
    assert_eq!(out.code, 0, "{out:?}");
    let jobs = bring_up(&ns, "elastic", 1, 2, &[]).await;
    assert!(jobs.iter().all(|j| j.spec.as_ref().unwrap().parallelism == Some(2)));
    let out = ns.plugin(&["history", "elastic", "-o", "json"]);
    let history: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(history["revisions"].as_array().unwrap().len(), 2, "{out:?}");
    let out = ns.plugin(&["rollback", "elastic"]);
    assert_eq!(out.code, 0, "{out:?}");
    scaled(1).await;
    assert_no_drift(&ns, "elastic");
}

/// Per-Job restarts: `restart --job` recreates that one Job (from the current template)
/// and leaves the others running.
async fn per_job_restart() {
    let ns = TestNs::new("feat-perjob").await;
    let spec = "  failurePolicy:\n    maxRestarts: 3\n    rules:\n    - {name: one, action: RestartJob}\n";
    ns.create(&jobset("perjob", "", spec, &[rjob("workers", 2, "", "", "")]));
    let before = bring_up(&ns, "perjob", 0, 2, &[]).await;
    set_image(&ns, "perjob", 0, V2);
    let out = ns.plugin(&["restart", "perjob", "--job", "workers/1"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/perjob restarted its Job perjob-workers-1\n");
    let start = Instant::now();
    let jobs = loop {
        let jobs = live(ns.jobs_of("perjob").await);
        let recreated = jobs.iter().any(|j| {
            j.metadata.name.as_deref() == Some("perjob-workers-1")
                && label(j, "jobset.sigs.k8s.io/job-restart-attempt") == Some("1")
        });
        if jobs.len() == 2 && recreated {
            break jobs;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "perjob-workers-1 not recreated: {jobs:?}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert_eq!(jobs[0].metadata.uid, before[0].metadata.uid, "workers-0 keeps running");
    assert_eq!((job_image(&jobs[0]).as_str(), job_image(&jobs[1]).as_str()), (V1, V2));
    assert_eq!(attempt_label(&jobs[1]), Some(0), "a per-Job restart is not a JobSet restart");
    let out = ns.plugin(&["diff", "perjob", "-o", "json"]);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["jobsets"][0]["outdatedJobs"], 1, "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn every_feature_round_trips() {
    tokio::join!(
        in_order(),
        depends_on(),
        policies_network_coordinator(),
        exclusive_placement(),
        exclusive_affinity(),
        volume_claims(),
        in_place_restart(),
        suspended(),
        elastic(),
        per_job_restart(),
    );
}

/// A template replaced by one the API server cannot turn into a Job (no restartPolicy:
/// the JobSet webhook defaults it on create only): restart refuses, saying why.
async fn restart_refuses_a_spec_that_makes_no_valid_job() {
    let ns = TestNs::new("feat-invalid").await;
    ns.create(&jobset("broken", "", "", &[rjob("workers", 1, "", "", "")]));
    bring_up(&ns, "broken", 0, 1, &[]).await;
    patch(
        &ns,
        "broken",
        json!([{"op": "remove", "path": "/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy"}]),
    );
    let out = ns.plugin(&["restart", "broken"]);
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("not restarted: its spec cannot produce a valid Job"), "{out:?}");
    assert!(out.stderr.contains("leaving the JobSet with no Jobs"), "{out:?}");
    assert_eq!(ns.jobset("broken").await["status"]["restarts"].as_i64().unwrap_or(0), 0, "nothing restarted");
}

/// Rollback refuses finished JobSets and other controllers' before changing anything, and
/// never gives a JobSet created again under the same name the old one's revision.
async fn rollback_guards() {
    let ns = TestNs::new("feat-guards").await;
    // Records the revisions to roll back to (a read records only with --record).
    let revisions = |name: &'static str| {
        let ns = &ns;
        async move {
            assert_eq!(ns.plugin(&["history", name, "--record"]).code, 0);
            set_image(ns, name, 0, V2);
            assert_eq!(ns.plugin(&["history", name, "--record"]).code, 0);
        }
    };
    let spec_image = |js: &Value| {
        js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
            .clone()
    };

    // Managed by another controller (which never creates Jobs here).
    ns.create(&jobset(
        "elsewhere",
        "",
        "  managedBy: example.com/other-controller\n",
        &[rjob("w", 1, "", "", "")],
    ));
    revisions("elsewhere").await;
    let out = ns.plugin(&["rollback", "elsewhere"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("managed by \"example.com/other-controller\""), "{out:?}");
    assert_eq!(spec_image(&ns.jobset("elsewhere").await), json!(V2), "nothing changed");

    // Finished.
    ns.create(&jobset("done", "", "", &[rjob("w", 1, "", "", "")]));
    let jobs = bring_up(&ns, "done", 0, 1, &[]).await;
    revisions("done").await;
    ns.complete_job(jobs[0].metadata.name.as_deref().unwrap()).await;
    wait_for("jobset done to complete", Duration::from_secs(60), || async {
        (ns.jobset("done").await["status"]["terminalState"] == "Completed").then_some(())
    })
    .await;
    let out = ns.plugin(&["rollback", "done"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("the JobSet has completed"), "{out:?}");
    assert_eq!(spec_image(&ns.jobset("done").await), json!(V2), "nothing changed");

    // Deleted and created again, with the same spec, while the prompt is open: only the
    // uid tells them apart.
    let yaml = jobset("again", "", "", &[rjob("w", 1, "", "", "")]);
    ns.create(&yaml);
    revisions("again").await;
    let prompt = AtPrompt::start(&format!("rollback again -n {}", ns.name));
    let out = ns.kubectl(&["delete", "jobset", "again", "--wait=true"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    ns.create(&yaml.replace(V1, V2));
    let (code, rest) = prompt.answer("y");
    assert_eq!(code, Some(1), "{rest}");
    assert!(rest.contains("deleted and created again since it was read"), "{rest}");
    assert_eq!(spec_image(&ns.jobset("again").await), json!(V2), "the new JobSet keeps its template");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn guards_refuse_before_changing_anything() {
    tokio::join!(restart_refuses_a_spec_that_makes_no_valid_job(), rollback_guards());
}
