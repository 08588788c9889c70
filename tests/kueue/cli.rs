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
