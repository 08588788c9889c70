//! kubectl-jobset under the real Kueue (issue 26 points 2-7): what it says about queued
//! and admitted JobSets, and how a change reaches the Pods without Kueue undoing it.

use super::*;

fn pod_uids(pods: &[Pod]) -> Vec<String> {
    pods.iter().map(|p| p.metadata.uid.clone().unwrap()).collect()
}

/// Point 3 and "queued edit → admitted → Pods run the new template", with the plugin:
/// `set image` of a queued JobSet is allowed, `diff` compares its suspended Jobs (exit 1)
/// and says it is queued, `list` and `status` say so too, `restart` rebuilds its Jobs
/// while queued (free: not counted), and admission then runs the new image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_queued_edit_is_compared_and_a_free_restart_makes_admission_run_it() {
    let (_serial, ns) = kueue_ns("kueue-cli-queued").await;
    let (jobs, workload) = queue_behind_blocker(&ns).await;
    let workload_name = workload["metadata"]["name"].as_str().unwrap().to_owned();

    let set = ns.plugin(&["set", "image", "train", &format!("main={NEW}")]);
    assert_eq!(set.code, 0, "a queued JobSet takes the change: {set:?}");
    let diff = ns.plugin(&["diff", "train"]);
    assert_eq!(diff.code, 1, "its suspended Jobs are what will run, and they are outdated: {diff:?}");
    assert!(
        diff.stdout.contains(&format!("queued by Kueue in queue {QUEUE} (workload {workload_name}")),
        "{diff:?}"
    );
    assert!(diff.stdout.contains("admission resumes these same Jobs on their outdated template"), "{diff:?}");
    assert!(!diff.stdout.contains("suspend=false") && !diff.stderr.contains("suspend=false"), "{diff:?}");

    let list = ns.plugin(&["list", "-o", "wide"]);
    let row = list.stdout.lines().find(|l| l.starts_with("train ")).unwrap_or_default().to_owned();
    assert!(row.contains(" Queued ") && row.contains(&format!("{QUEUE}/{workload_name}")), "{list:?}");
    let status = ns.plugin(&["status", "train", "--watch=false"]);
    assert_eq!(status.code, 1, "{status:?}");
    assert!(
        status.stderr.contains("queued by Kueue") || status.stdout.contains("queued by Kueue"),
        "{status:?}"
    );

    let restart = ns.plugin(&["restart", "train"]);
    assert_eq!(restart.code, 0, "a queued JobSet restarts for free: {restart:?}");
    let rebuilt = ns.wait_for_attempt_jobs("train", 1, 2).await;
    assert!(rebuilt.iter().all(suspended), "rebuilt while still queued");
    assert!(rebuilt.iter().all(|j| image_of(j, 0) == NEW));
    assert!(job_uids(&rebuilt).iter().all(|u| !job_uids(&jobs).contains(u)));
    let js = ns.jobset("train").await;
    assert!(js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0) == 0, "free: {js:#}");
    assert_eq!(ns.plugin(&["diff", "train"]).code, 0, "nothing outdated any more");

    delete_jobset(&ns, "blocker");
    wait_admitted(&ns, "train").await;
    let pods = wait_pods(&ns, "train", 2, &[]).await;
    assert!(pods.iter().all(|p| pod_image(p) == NEW), "admission runs the new image");
}

/// Point 4: a container change of an admitted, running JobSet is refused by default,
/// saying what Kueue would do; nothing changes (same Jobs, same Pods, same Workload).
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn an_admitted_change_is_refused_by_default_and_nothing_moves() {
    let (_serial, ns) = kueue_ns("kueue-cli-refused").await;
    ns.create(&queued_jobset("train", 2, "1", OLD));
    let workload = wait_admitted(&ns, "train").await;
    let jobs = wait_jobs(&ns, "train", 2, false).await;
    let pods = wait_pods(&ns, "train", 2, &[]).await;

    let set = ns.plugin(&["set", "image", "train", &format!("main={NEW}")]);
    assert_ne!(set.code, 0, "{set:?}");
    assert!(
        set.stderr.contains("admitted by Kueue") && set.stderr.contains("Kueue would stop it"),
        "{set:?}"
    );
    assert!(set.stderr.contains("--now"), "it offers --now: {set:?}");
    let restart_too = ns.plugin(&["set", "image", "train", &format!("main={NEW}"), "--restart"]);
    assert_ne!(restart_too.code, 0, "--restart is not --now: {restart_too:?}");

    // Give Kueue time to react, had anything changed.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(images(&ns.jobset("train").await), [OLD], "the spec is unchanged");
    let after = wait_jobs(&ns, "train", 2, false).await;
    assert_eq!(job_uids(&after), job_uids(&jobs), "the same Jobs run");
    assert_eq!(pod_uids(&wait_pods(&ns, "train", 2, &[]).await), pod_uids(&pods), "the same Pods run");
    assert_eq!(uid(&workload_of(&ns, "train").await.unwrap()), uid(&workload), "the same Workload");

    let diff = ns.plugin(&["diff", "train"]);
    assert_eq!(diff.code, 0, "{diff:?}");

    // spec.suspend is Kueue's: suspend is refused with Kueue's own way.
    let suspend = ns.plugin(&["suspend", "train"]);
    assert_ne!(suspend.code, 0, "{suspend:?}");
    assert!(
        suspend.stderr.contains("Kueue owns spec.suspend") && suspend.stderr.contains("\"active\":false"),
        "{suspend:?}"
    );
    assert_eq!(ns.jobset("train").await["spec"]["suspend"], false);
}

/// Point 4 `--now` with `--wait`, and "the label edit kept": the change lands, Kueue
/// stops the JobSet, the restart while suspended rebuilds its Jobs from the new
/// template, re-admission runs them, and a pod-template label edited before (which
/// Kueue's restore reverts) is put back. Exit 0.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn now_with_wait_runs_the_new_template_after_readmission_and_keeps_the_label_edit() {
    let (_serial, ns) = kueue_ns("kueue-cli-now").await;
    ns.create(&queued_jobset("train", 2, "1", OLD));
    wait_admitted(&ns, "train").await;
    for job in wait_jobs(&ns, "train", 2, false).await {
        ns.ready_job(job.metadata.name.as_deref().unwrap()).await;
    }
    let pods_before = pod_uids(&wait_pods(&ns, "train", 2, &[]).await);
    let label = r#"[{"op":"add","path":"/spec/replicatedJobs/0/template/spec/template/metadata/labels/team","value":"ml"}]"#;
    let out = ns.kubectl(&["patch", "jobset", "train", "--type=json", "-p", label]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let now =
        ns.plugin(&["set", "image", "train", &format!("main={NEW}"), "--now", "--wait", "--timeout=3m"]);
    assert_eq!(now.code, 0, "{now:?}");
    assert!(now.stderr.contains("stopped by Kueue"), "{now:?}");
    assert!(now.stdout.contains("restarted (attempt 0 → 1)"), "{now:?}");

    let running = wait_jobs(&ns, "train", 2, false).await;
    assert!(
        running.iter().all(|j| attempt_label(j) == Some(1) && image_of(j, 0) == NEW),
        "new attempt, new image"
    );
    let pods = wait_pods(&ns, "train", 2, &pods_before).await;
    assert!(pods.iter().all(|p| pod_image(p) == NEW), "the Pods run the new image");
    let js = ns.jobset("train").await;
    assert_eq!(
        js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["labels"]["team"], "ml",
        "the label edit survives Kueue's restore: {js:#}"
    );
    assert!(
        pods.iter()
            .all(|p| p.metadata.labels.as_ref().unwrap().get("team").map(String::as_str) == Some("ml"))
    );
    wait_admitted(&ns, "train").await;
}

/// Point 5: a requests change of a queued JobSet updates its Workload, while its Jobs'
/// Pods still request the old amount: `diff` says the quota and the Pods disagree.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_requests_change_not_applied_yet_is_said_as_a_quota_mismatch() {
    let (_serial, ns) = kueue_ns("kueue-cli-quota").await;
    let (_jobs, _) = queue_behind_blocker(&ns).await;
    let patch = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/resources/requests/cpu","value":"1500m"}]"#;
    let out = ns.kubectl(&["patch", "jobset", "train", "--type=json", "-p", patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    wait_for("the queued Workload to follow the new requests", WAIT, || async {
        let w = workload_of(&ns, "train").await?;
        let cpu =
            w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"]
                .clone();
        (cpu == "1500m").then_some(())
    })
    .await;
    let diff = ns.plugin(&["diff", "train"]);
    assert_eq!(diff.code, 1, "{diff:?}");
    assert!(
        diff.stdout.contains("reserves 1500m cpu per Pod for container main of replicatedJob w")
            && diff.stdout.contains("its Jobs' Pods request 1"),
        "{diff:?}"
    );
    let json = ns.plugin(&["diff", "train", "-o", "json"]);
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["jobsets"][0]["quotaMismatches"][0]["reserved"], "1500m", "{json:?}");
    assert_eq!(doc["jobsets"][0]["kueue"]["standing"], "Queued", "{json:?}");
}

/// `queued_jobset` with a failure policy, so a failed Job restarts the JobSet.
fn restartable_jobset(name: &str, replicas: i32, cpu: &str, image: &str) -> String {
    format!("{}  failurePolicy:\n    maxRestarts: 3\n", queued_jobset(name, replicas, cpu, image))
}

/// An admitted JobSet `train` (2 Jobs of 1 cpu) whose Jobs are ready; returns its Jobs.
async fn admitted_train(ns: &TestNs) -> Vec<Job> {
    ns.create(&restartable_jobset("train", 2, "1", OLD));
    wait_admitted(ns, "train").await;
    let jobs = wait_jobs(ns, "train", 2, false).await;
    for job in &jobs {
        ns.ready_job(job.metadata.name.as_deref().unwrap()).await;
    }
    jobs
}

/// `set image --at-next-restart` on an admitted JobSet: nothing moves now; `diff` shows
/// the staged change (exit 1).
async fn stage_new_image(ns: &TestNs, jobs: &[Job]) {
    let staged = ns.plugin(&["set", "image", "train", &format!("main={NEW}"), "--at-next-restart"]);
    assert_eq!(staged.code, 0, "{staged:?}");
    assert!(
        staged.stdout.contains("image staged for the next restart (controllerrevision train-staged)"),
        "{staged:?}"
    );
    assert_eq!(images(&ns.jobset("train").await), [OLD], "the spec is not touched");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(job_uids(&wait_jobs(ns, "train", 2, false).await), job_uids(jobs), "nothing restarts now");
    let diff = ns.plugin(&["diff", "train"]);
    assert_eq!(diff.code, 1, "a staged change is a difference: {diff:?}");
    assert!(
        diff.stdout.contains("staged for the next restart in controllerrevision train-staged"),
        "{diff:?}"
    );
    assert!(diff.stdout.contains(&format!("+        image: {NEW}")), "{diff:?}");
    let history = ns.plugin(&["history", "train"]);
    assert!(
        history.stderr.contains("a change is staged for the next restart in controllerrevision train-staged"),
        "{history:?}"
    );
    let status = ns.plugin(&["status", "train", "--watch=false"]);
    assert_eq!(status.code, 1, "not rolled out while a change waits: {status:?}");
    assert!(status.stdout.contains("a change is staged for the next restart"), "{status:?}");
}

/// No staged revision of any generation is left.
async fn staged_revision_gone(ns: &TestNs) {
    wait_for("the applied staged change to be removed", WAIT, || async {
        let out = ns.kubectl(&["get", "controllerrevision", "-l", "kubectl-jobset.io/staged", "-o", "name"]);
        String::from_utf8_lossy(&out.stdout).trim().is_empty().then_some(())
    })
    .await;
}

/// Point 4 `--at-next-restart` with a forced restart: `restart` applies the staged change
/// in the order that makes the new attempt run it under Kueue, not counted.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_staged_change_is_applied_by_a_forced_restart_and_the_new_attempt_runs_it() {
    let (_serial, ns) = kueue_ns("kueue-cli-staged-forced").await;
    let jobs = admitted_train(&ns).await;
    stage_new_image(&ns, &jobs).await;

    let restart = ns.plugin(&["restart", "train"]);
    assert_eq!(restart.code, 0, "{restart:?}");
    assert!(
        restart.stderr.contains("applied the change staged in controllerrevision train-staged"),
        "{restart:?}"
    );
    assert!(restart.stderr.contains("stopped by Kueue"), "{restart:?}");
    wait_admitted(&ns, "train").await;
    let running = wait_for("attempt 1 running the new image", WAIT, || async {
        let jobs = wait_jobs(&ns, "train", 2, false).await;
        jobs.iter().all(|j| attempt_label(j) == Some(1)).then_some(jobs)
    })
    .await;
    assert!(running.iter().all(|j| image_of(j, 0) == NEW), "the new attempt runs the staged image");
    assert!(wait_pods(&ns, "train", 2, &[]).await.iter().all(|p| pod_image(p) == NEW));
    assert_eq!(images(&ns.jobset("train").await), [NEW]);
    assert_eq!(ns.jobset("train").await["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0);
    staged_revision_gone(&ns).await;
}

/// The recorder, started for one namespace; killed when dropped.
struct RecorderProcess(std::process::Child);

impl RecorderProcess {
    fn start(ns: &TestNs) -> (RecorderProcess, std::path::PathBuf) {
        let h = harness();
        let log = h.state.join(format!("recorder-{}.log", ns.name));
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
            .args(["recorder", "-n", &ns.name, "--lease-namespace", &ns.name, "--metrics-addr", "0"])
            .args(["--kubeconfig", h.kubeconfig.to_str().unwrap()])
            .env_remove("KUBECONFIG")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start the recorder");
        (RecorderProcess(child), log)
    }
}

impl Drop for RecorderProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Point 7 "staged change applied at a natural failure and the next attempt runs it":
/// a Job fails, the JobSet restarts on its own (on the old template), and the recorder
/// applies the staged change: spec, Kueue's stop, a restart while suspended (never
/// counted), re-admission; the attempt after runs the new image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_staged_change_is_applied_at_a_natural_failure_by_the_recorder() {
    let (_serial, ns) = kueue_ns("kueue-cli-staged-natural").await;
    let jobs = admitted_train(&ns).await;
    stage_new_image(&ns, &jobs).await;
    let (_recorder, log) = RecorderProcess::start(&ns);
    wait_for("the recorder to sync", Duration::from_secs(60), || async {
        std::fs::read_to_string(&log).unwrap_or_default().contains("watches synced").then_some(())
    })
    .await;

    ns.fail_job("train-w-0").await;
    let running = wait_for("a later attempt running the new image", WAIT, || async {
        let js = ns.jobset("train").await;
        let jobs = wait_jobs(&ns, "train", 2, false).await;
        let current = js["status"]["restarts"].as_i64().unwrap_or(0) as i32;
        (current >= 2 && jobs.iter().all(|j| attempt_label(j) == Some(current) && image_of(j, 0) == NEW))
            .then_some((current, js))
    })
    .await;
    let recorder_log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(recorder_log.contains("on its staged change"), "{recorder_log}");
    let (attempt, js) = running;
    assert_eq!(attempt, 2, "the natural restart, then exactly one more: {js:#}");
    assert_eq!(
        js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0),
        1,
        "only the failure counts: {js:#}"
    );
    assert!(wait_pods(&ns, "train", 2, &[]).await.iter().all(|p| pod_image(p) == NEW));
    staged_revision_gone(&ns).await;
}

/// Point 6: handover refuses only an admitted JobSet; a queued one is handed over (its
/// suspended Jobs adopted by the new object), saying that the new object queues again.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn handover_refuses_an_admitted_jobset_and_hands_over_a_queued_one() {
    let (_serial, ns) = kueue_ns("kueue-cli-handover").await;
    let (jobs, _) = queue_behind_blocker(&ns).await;
    let old_uid = uid(&ns.jobset("train").await);

    let refused = ns.plugin(&["set", "image", "blocker", &format!("main={NEW}"), "--handover"]);
    assert_ne!(refused.code, 0, "{refused:?}");
    assert!(refused.stderr.contains("admitted by Kueue"), "{refused:?}");

    let handed = ns.plugin(&["set", "image", "train", &format!("main={NEW}"), "--handover"]);
    assert_eq!(handed.code, 0, "{handed:?}");
    assert!(
        handed.stderr.contains("queued by Kueue: the new object gets a new Workload and queues again"),
        "{handed:?}"
    );
    let js = ns.jobset("train").await;
    assert_ne!(uid(&js), old_uid, "a new object");
    assert_eq!(js["spec"]["suspend"], true, "still queued");
    let adopted = wait_jobs(&ns, "train", 2, true).await;
    assert_eq!(job_uids(&adopted), job_uids(&jobs), "the same suspended Jobs");
    assert!(
        adopted.iter().all(|j| j
            .metadata
            .owner_references
            .as_ref()
            .unwrap()
            .iter()
            .any(|r| r.uid == uid(&js)))
    );
    wait_pending(&ns, "train").await;
}

/// Points 4 and 5 for `set env` and `set resources`: on an admitted JobSet both are
/// refused by default as `set image` is; a requests change its ClusterQueue (cpu 4) could
/// never admit is refused even with --now or --at-next-restart, nothing changed; one that
/// fits is staged, an env change is staged on top of it, and a forced restart makes the
/// new attempt (Jobs and Pods) run both.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn set_env_and_resources_are_refused_checked_against_the_quota_and_staged() {
    let (_serial, ns) = kueue_ns("kueue-cli-set-resources").await;
    let jobs = admitted_train(&ns).await;

    let env = ns.plugin(&["set", "env", "train", "LR=0.1"]);
    assert_ne!(env.code, 0, "{env:?}");
    assert!(
        env.stderr.contains("admitted by Kueue") && env.stderr.contains("set env train LR=0.1 --now"),
        "{env:?}"
    );

    for how in ["--at-next-restart", "--now"] {
        let over = ns.plugin(&["set", "resources", "train", "--requests=cpu=3", how]);
        assert_ne!(over.code, 0, "{how}: {over:?}");
        assert!(
            over.stderr.contains("more than its ClusterQueue could ever admit")
                && over.stderr.contains("cpu 6 is more than the 4 ClusterQueue cluster-queue can ever give"),
            "{how}: {over:?}"
        );
    }
    let staged_revision =
        ns.kubectl(&["get", "controllerrevision", "train-staged", "--ignore-not-found", "-o", "name"]);
    assert!(staged_revision.stdout.is_empty(), "nothing staged");

    let fits = ns.plugin(&["set", "resources", "train", "--requests=cpu=1500m", "--at-next-restart"]);
    assert_eq!(fits.code, 0, "{fits:?}");
    assert!(
        fits.stdout
            .contains("resource requirements staged for the next restart (controllerrevision train-staged)"),
        "{fits:?}"
    );
    let env = ns.plugin(&["set", "env", "train", "LR=0.1", "--at-next-restart"]);
    assert_eq!(env.code, 0, "{env:?}");
    // Staged on top: the next generation, created before the first one went.
    assert!(
        env.stdout.contains("env staged for the next restart (controllerrevision train-staged-2)"),
        "{env:?}"
    );
    let staged = ns.kubectl(&["get", "controllerrevision", "-l", "kubectl-jobset.io/staged", "-o", "name"]);
    assert_eq!(String::from_utf8_lossy(&staged.stdout).trim(), "controllerrevision.apps/train-staged-2");
    let main = |js: &Value| {
        js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0].clone()
    };
    let spec = ns.jobset("train").await;
    assert_eq!(main(&spec)["resources"]["requests"]["cpu"], "1", "the spec is not touched: {spec:#}");
    assert!(main(&spec)["env"].is_null(), "{spec:#}");
    assert_eq!(job_uids(&wait_jobs(&ns, "train", 2, false).await), job_uids(&jobs), "nothing restarts now");
    let diff = ns.plugin(&["diff", "train"]);
    assert_eq!(diff.code, 1, "{diff:?}");
    assert!(diff.stdout.contains("1500m") && diff.stdout.contains("name: LR"), "both are staged: {diff:?}");

    let restart = ns.plugin(&["restart", "train"]);
    assert_eq!(restart.code, 0, "{restart:?}");
    assert!(
        restart.stderr.contains("applied the change staged in controllerrevision train-staged-2"),
        "{restart:?}"
    );
    wait_admitted(&ns, "train").await;
    let running = wait_for("attempt 1 running the staged change", WAIT, || async {
        let jobs = wait_jobs(&ns, "train", 2, false).await;
        jobs.iter().all(|j| attempt_label(j) == Some(1)).then_some(jobs)
    })
    .await;
    for job in &running {
        let c = serde_json::to_value(job).unwrap()["spec"]["template"]["spec"]["containers"][0].clone();
        assert_eq!(c["resources"]["requests"]["cpu"], "1500m", "{c:#}");
        assert_eq!(c["env"], serde_json::json!([{"name": "LR", "value": "0.1"}]), "{c:#}");
    }
    for pod in wait_pods(&ns, "train", 2, &[]).await {
        let c = serde_json::to_value(&pod).unwrap()["spec"]["containers"][0].clone();
        assert_eq!(c["resources"]["requests"]["cpu"], "1500m", "the Pods run it: {c:#}");
    }
    staged_revision_gone(&ns).await;
}

/// Point 3 (and the update strategy under Kueue): an Opportunistic JobSet queued by Kueue
/// whose image changes is refreshed by the recorder while queued (its suspended Jobs are
/// rebuilt from the new template, never counted), and admission then runs the new image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_update_strategys_queued_refresh_runs_under_kueue() {
    let (_serial, ns) = kueue_ns("kueue-cli-strategy").await;
    let (jobs, _) = queue_behind_blocker(&ns).await;
    let set = ns.plugin(&["set", "update-strategy", "train", "Opportunistic"]);
    assert_eq!(set.code, 0, "{set:?}");
    let (_recorder, log) = RecorderProcess::start(&ns);
    wait_for("the recorder to sync", Duration::from_secs(60), || async {
        std::fs::read_to_string(&log).unwrap_or_default().contains("watches synced").then_some(())
    })
    .await;

    let set = ns.plugin(&["set", "image", "train", &format!("main={NEW}")]);
    assert_eq!(set.code, 0, "a queued JobSet takes the change: {set:?}");
    let rebuilt = ns.wait_for_attempt_jobs("train", 1, 2).await;
    assert!(rebuilt.iter().all(suspended), "rebuilt while still queued");
    assert!(rebuilt.iter().all(|j| image_of(j, 0) == NEW), "from the new template");
    assert!(job_uids(&rebuilt).iter().all(|u| !job_uids(&jobs).contains(u)));
    let js = ns.jobset("train").await;
    assert_eq!(js["spec"]["suspend"], true, "still queued: {js:#}");
    assert_eq!(js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0, "free: {js:#}");
    wait_pending(&ns, "train").await;
    assert_eq!(ns.plugin(&["diff", "train"]).code, 0, "nothing outdated any more");

    delete_jobset(&ns, "blocker");
    wait_admitted(&ns, "train").await;
    let pods = wait_pods(&ns, "train", 2, &[]).await;
    assert!(pods.iter().all(|p| pod_image(p) == NEW), "admission runs the new image");
    assert_eq!(ns.jobset("train").await["status"]["restarts"].as_i64().unwrap_or(0), 1, "refreshed once");
}

/// Issue 29 under Kueue: a rollout over an admitted JobSet changes it, waits for Kueue's
/// stop, restarts it while suspended (free), and its gate waits through re-admission and
/// readiness; the new attempt's Jobs and Pods run the new image.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_rollout_over_an_admitted_jobset_goes_through_kueue_and_its_gate_waits_for_readmission() {
    let (_serial, ns) = kueue_ns("kueue-cli-rollout").await;
    admitted_train(&ns).await;
    let args: Vec<String> = [
        "rollout",
        "start",
        "k1",
        "train",
        "--image",
        &format!("main={NEW}"),
        "--gate",
        "ready=1s",
        "-y",
        "--timeout",
        "140s",
        "-n",
        &ns.name,
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let driver = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_plugin(&args, None, &[])
    });
    // The new attempt, re-admitted, its Jobs made ready (no kubelet here).
    wait_admitted(&ns, "train").await;
    let running = wait_for("attempt 1 re-admitted", WAIT, || async {
        let jobs = wait_jobs(&ns, "train", 2, false).await;
        jobs.iter().all(|j| attempt_label(j) == Some(1)).then_some(jobs)
    })
    .await;
    assert!(running.iter().all(|j| image_of(j, 0) == NEW), "the new attempt runs the new image");
    for job in &running {
        ns.ready_job(job.metadata.name.as_deref().unwrap()).await;
    }
    let out = driver.await.unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("stopped by Kueue"), "Kueue's stop was waited for: {out:?}");
    assert!(out.stdout.contains("Completed"), "{out:?}");
    assert!(wait_pods(&ns, "train", 2, &[]).await.iter().all(|p| pod_image(p) == NEW));
    let js = ns.jobset("train").await;
    assert_eq!(js["status"]["restarts"].as_i64(), Some(1), "one restart: {js:#}");
    assert_eq!(js["status"]["restartsCountTowardsMax"].as_i64().unwrap_or(0), 0, "not counted");
}
