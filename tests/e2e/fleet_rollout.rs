//! Staged fleet rollouts (`rollout start|status|pause|resume|abort`) on the real
//! controller: a canary that passes its gate leads 10 JobSets in 2 namespaces through
//! batches; a canary that fails its gate stops the rollout and abort puts its template
//! back; a driver paused, killed -9 mid-batch and replaced by two at once restarts every
//! JobSet exactly once.
//!
//! The test control plane runs no kubelet: a "kubelet" task here marks the Pods of every
//! new Job Ready (except those a test fails on purpose), as the real one would.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use kube::api::ListParams;
use serde_json::Value;

use crate::rollout::spawn_plugin;
use crate::support::*;

const OLD: &str = "busybox:1.36";
const NEW: &str = "busybox:1.37";
const WAIT: Duration = Duration::from_secs(180);

fn labelled_jobset(name: &str, team: &str, extra_spec: &str) -> String {
    format!(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: {name}\n  labels:\n    team: {team}\nspec:\n{extra_spec}  replicatedJobs:\n  - name: workers\n    replicas: 1\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: main\n              image: {OLD}\n"
    )
}

/// Creates labelled JobSets and waits for their first attempt's Job each.
async fn create_running(ns: &TestNs, names: &[&str], team: &str, extra_spec: &str) {
    for name in names {
        ns.create(&labelled_jobset(name, team, extra_spec));
    }
    for name in names {
        ns.wait_for_attempt_jobs(name, 0, 1).await;
    }
}

fn image_of(jobset: &Value) -> String {
    jobset
        .pointer("/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn attempt_of(jobset: &Value) -> i64 {
    jobset["status"]["restarts"].as_i64().unwrap_or(0)
}

/// Marks the Pods of every Job of `namespaces` Ready once, as a kubelet would; a Job of
/// `hold` (the JobSet name) at an attempt > 0 is left alone (the test fails it instead).
fn spawn_kubelet(namespaces: Vec<Arc<TestNs>>, hold: Option<&'static str>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut readied: HashSet<String> = HashSet::new();
        loop {
            for ns in &namespaces {
                let Ok(jobs) = ns.jobs_api().list(&ListParams::default()).await else { continue };
                for job in jobs.items {
                    let uid = job.metadata.uid.clone().unwrap_or_default();
                    let labels = job.metadata.labels.clone().unwrap_or_default();
                    let held = hold.is_some_and(|h| {
                        labels.get("jobset.sigs.k8s.io/jobset-name").map(String::as_str) == Some(h)
                    }) && labels.get("jobset.sigs.k8s.io/restart-attempt").map(String::as_str)
                        != Some("0");
                    if held || job.metadata.deletion_timestamp.is_some() || readied.contains(&uid) {
                        continue;
                    }
                    ns.ready_job(job.metadata.name.as_deref().unwrap()).await;
                    readied.insert(uid);
                }
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    })
}

fn rollout_json(ns: &TestNs, name: &str) -> Value {
    let out = ns.plugin(&["rollout", "status", name, "-o", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    serde_json::from_str(&out.stdout).unwrap()
}

/// The staged revisions (held or for a next restart) in the namespace.
fn staged_revisions(ns: &TestNs) -> Vec<String> {
    let out = ns.kubectl(&["get", "controllerrevisions", "-l", "kubectl-jobset.io/staged", "-o", "name"]);
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_owned).collect()
}

fn member_states(doc: &Value) -> Vec<(String, String)> {
    doc["status"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap().to_owned(), m["state"]["state"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_canary_that_passes_its_gate_leads_ten_jobsets_through_batches() {
    let (ns1, ns2) = (Arc::new(TestNs::new("fr-pass-a").await), Arc::new(TestNs::new("fr-pass-b").await));
    let team = ns1.name.clone();
    for (ns, prefix) in [(&ns1, "a"), (&ns2, "b")] {
        for i in 0..5 {
            ns.create(&labelled_jobset(&format!("{prefix}{i}"), &team, ""));
        }
    }
    // An outsider with the same names elsewhere is never touched.
    let outsider = TestNs::new("fr-pass-out").await;
    outsider.create(&labelled_jobset("a0", "someone-else", ""));
    for (ns, prefix) in [(&ns1, "a"), (&ns2, "b")] {
        for i in 0..5 {
            ns.wait_for_attempt_jobs(&format!("{prefix}{i}"), 0, 1).await;
        }
    }
    let kubelet = spawn_kubelet(vec![ns1.clone(), ns2.clone()], None);

    // Usage errors say what is wrong, and write nothing.
    let bad = ns1.plugin(&[
        "rollout",
        "start",
        "r1",
        "-A",
        "-l",
        &format!("team={team}"),
        "--image",
        "main=x",
        "--batch-size",
        "0",
    ]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("invalid --batch-size"), "{bad:?}");
    let bad = ns1.plugin(&[
        "rollout",
        "start",
        "r1",
        "-A",
        "-l",
        &format!("team={team}"),
        "--image",
        "nope=x",
        "-y",
    ]);
    assert_ne!(bad.code, 0, "{bad:?}");
    assert!(bad.stderr.contains("nope"), "the missing container is named: {bad:?}");
    assert_eq!(
        ns1.plugin(&["rollout", "list"]).stdout.trim(),
        format!("No rollouts found in {} namespace.", ns1.name)
    );

    let selector = format!("team={team}");
    let image = format!("main={NEW}");
    // In the background: the kubelet task runs on this test's runtime meanwhile.
    let out = spawn_plugin(
        &ns1,
        &[
            "rollout",
            "start",
            "r1",
            "-A",
            "-l",
            &selector,
            "--image",
            &image,
            "--canary",
            "1",
            "--gate",
            "ready=2s",
            "--batch-size",
            "4",
            "--max-restarting",
            "4",
            "-y",
            "--timeout",
            "170s",
        ],
    )
    .await
    .unwrap();
    kubelet.abort();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("over 10 JobSets in 4 batches"), "{out:?}");
    assert!(out.stdout.contains(&format!("  canary: {}/a0", ns1.name)), "{out:?}");
    // The canary passed its gate before any other JobSet took the change.
    let lines: Vec<&str> = out.stdout.lines().collect();
    let gate_passed =
        lines.iter().position(|l| l.contains("the canary batch passed its gate")).expect("the canary's gate");
    let first_other =
        lines.iter().position(|l| l.contains(" changed") && !l.contains("/a0 ")).expect("the batches");
    assert!(gate_passed < first_other, "{out:?}");
    assert!(out.stdout.contains("Completed"), "{out:?}");

    for (ns, prefix) in [(&ns1, "a"), (&ns2, "b")] {
        for i in 0..5 {
            let js = ns.jobset(&format!("{prefix}{i}")).await;
            assert_eq!(
                (image_of(&js), attempt_of(&js)),
                (NEW.to_owned(), 1),
                "{prefix}{i}: changed and restarted once"
            );
        }
    }
    assert_eq!(staged_revisions(&ns1).len() + staged_revisions(&ns2).len(), 0, "nothing is held any more");
    let untouched = outsider.jobset("a0").await;
    assert_eq!((image_of(&untouched), attempt_of(&untouched)), (OLD.to_owned(), 0));

    let doc = rollout_json(&ns1, "r1");
    assert_eq!(doc["kind"], "Rollout");
    assert_eq!(doc["status"]["phase"], "Completed");
    assert!(member_states(&doc).iter().all(|(_, s)| s == "Done"), "{doc:#}");
    let status = ns1.plugin(&["rollout", "status", "r1"]);
    assert!(
        status.stdout.contains("Phase:    Completed") && status.stdout.contains("NAMESPACE"),
        "{status:?}"
    );
    let list = ns1.plugin(&["rollout", "list"]);
    assert!(list.stdout.contains("r1") && list.stdout.contains("10/10"), "{list:?}");
    // History names the rollout as the change cause; Events say so too.
    let history = ns2.plugin(&["history", "b3"]);
    assert!(history.stdout.contains("rollout r1: --image main=busybox:1.37"), "{history:?}");
    let events = ns2.kubectl(&["get", "events", "--field-selector", "reason=RolloutStep", "-o", "name"]);
    assert_eq!(String::from_utf8_lossy(&events.stdout).lines().count(), 5, "one Event per JobSet changed");
    // The same name again is refused.
    let again = ns1.plugin(&["rollout", "start", "r1", "-A", "-l", &selector, "--image", &image, "-y"]);
    assert!(again.code != 0 && again.stderr.contains("exists already"), "{again:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_canary_that_fails_its_gate_stops_the_rollout_and_abort_puts_it_back() {
    let ns = Arc::new(TestNs::new("fr-fail").await);
    let policy = "  failurePolicy:\n    maxRestarts: 3\n";
    create_running(&ns, &["c0", "c1", "c2", "c3"], "t", policy).await;
    let kubelet = spawn_kubelet(vec![ns.clone()], Some("c0"));
    let out = ns.plugin(&[
        "rollout",
        "start",
        "r2",
        "-l",
        "team=t",
        "--image",
        &format!("main={NEW}"),
        "--canary",
        "c0",
        "--gate",
        "ready=30s",
        "--batch-size",
        "50%",
        "--detach",
        "-y",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("rollout/r2 started"), "{out:?}");
    let driver = spawn_plugin(&ns, &["rollout", "resume", "r2", "--timeout", "170s"]);
    // The canary's new attempt fails.
    wait_for("the canary's new attempt", WAIT, || async {
        (attempt_of(&ns.jobset("c0").await) == 1).then_some(())
    })
    .await;
    let job = ns.wait_for_attempt_jobs("c0", 1, 1).await;
    ns.fail_job(job[0].metadata.name.as_deref().unwrap()).await;
    let out = driver.await.unwrap();
    assert_eq!(out.code, 1, "a failed gate fails the driver: {out:?}");
    assert!(
        out.stderr.contains("the gate of the canary batch failed") && out.stderr.contains("c0"),
        "{out:?}"
    );
    let doc = rollout_json(&ns, "r2");
    assert_eq!(doc["status"]["phase"], "Failed");
    for name in ["c1", "c2", "c3"] {
        let js = ns.jobset(name).await;
        assert_eq!((image_of(&js), attempt_of(&js)), (OLD.to_owned(), 0), "{name}: never got the change");
    }
    // Their change is held out of the spec (the pending revision): diff shows it ...
    let diff = ns.plugin(&["diff", "c1"]);
    assert_eq!(diff.code, 1, "a held change is a pending difference: {diff:?}");
    assert!(
        diff.stdout.contains("rollout r2 (namespace")
            && diff.stdout.contains("holds a change for a later batch in controllerrevision c1-staged")
            && diff.stdout.contains(NEW),
        "{diff:?}"
    );
    // ... no restart applies it (the restart runs the spec's template) ...
    let restart = ns.plugin(&["restart", "c1", "--wait"]);
    assert_eq!(restart.code, 0, "{restart:?}");
    assert!(restart.stderr.contains("restarted on its spec; rollout r2"), "{restart:?}");
    let restarted = ns.wait_for_attempt_jobs("c1", 1, 1).await;
    assert_eq!(crate::support::image_of(&restarted[0], 0), OLD);
    // ... and nothing is staged on top of it.
    let stage = ns.plugin(&["set", "image", "c2", &format!("main={NEW}"), "--at-next-restart", "-y"]);
    assert!(
        stage.code != 0 && stage.stderr.contains("rollout r2") && stage.stderr.contains("rollout abort"),
        "{stage:?}"
    );
    // A rollback staged on top is refused before its preview and question (no -y here).
    let rollback = ns.plugin(&["rollback", "c3", "--to-revision", "1", "--at-next-restart"]);
    assert!(
        rollback.code != 0 && rollback.stderr.contains("rollout r2") && rollback.stdout.is_empty(),
        "{rollback:?}"
    );
    // A failed rollout is not resumed: abort is the way.
    let resume = ns.plugin(&["rollout", "resume", "r2"]);
    assert!(resume.code != 0 && resume.stderr.contains("rollout abort"), "{resume:?}");

    kubelet.abort();
    let _kubelet = spawn_kubelet(vec![ns.clone()], None);
    let canary_attempt = attempt_of(&ns.jobset("c0").await);
    let abort = ns.plugin(&["rollout", "abort", "r2", "--restart", "-y", "--timeout", "120s"]);
    assert_eq!(abort.code, 0, "{abort:?}");
    let canary = ns.jobset("c0").await;
    assert_eq!(image_of(&canary), OLD, "its template is back: {abort:?}");
    assert_eq!(attempt_of(&canary), canary_attempt + 1, "and restarted once on it");
    assert_eq!(rollout_json(&ns, "r2")["status"]["phase"], "Aborted");
    assert_eq!(staged_revisions(&ns), Vec::<String>::new(), "the held changes went with the abort");
    let history = ns.plugin(&["history", "c0"]);
    assert!(history.stdout.contains("(aborted)"), "{history:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn paused_killed_and_doubled_drivers_restart_every_jobset_exactly_once() {
    let ns = Arc::new(TestNs::new("fr-kill").await);
    let names: Vec<String> = (0..6).map(|i| format!("k{i}")).collect();
    create_running(&ns, &names.iter().map(String::as_str).collect::<Vec<_>>(), "k", "").await;
    let _kubelet = spawn_kubelet(vec![ns.clone()], None);
    let image = format!("main={NEW}");
    let args = [
        "rollout",
        "start",
        "r3",
        "-l",
        "team=k",
        "--image",
        &image,
        "--batch-size",
        "2",
        "--gate",
        "ready=1s",
        "--detach",
        "-y",
    ];
    assert_eq!(ns.plugin(&args).code, 0);
    // Paused before anyone drives it: a driver stops at once, having done nothing.
    assert_eq!(ns.plugin(&["rollout", "pause", "r3"]).code, 0);
    assert_eq!(rollout_json(&ns, "r3")["status"]["phase"], "Paused");
    let pause_again = ns.plugin(&["rollout", "pause", "r3"]);
    assert!(pause_again.code != 0 && pause_again.stderr.contains("not progressing"), "{pause_again:?}");
    assert_eq!(ns.plugin(&["rollout", "resume", "r3", "--detach"]).code, 0);

    // A driver, killed -9 once the second batch is under way.
    let h = harness();
    let mut driver = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
        .args(["rollout", "resume", "r3", "-n", &ns.name, "--kubeconfig"])
        .arg(&h.kubeconfig)
        .env_remove("KUBECONFIG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for("the second batch to start", WAIT, || async {
        let doc = rollout_json(&ns, "r3");
        let states = member_states(&doc);
        (doc["status"]["batch"] == 1 && states.iter().any(|(_, s)| s != "Pending" && s != "Done"))
            .then_some(())
    })
    .await;
    driver.kill().unwrap();
    driver.wait().unwrap();

    // Two drivers at once finish it.
    let (b, c) = (
        spawn_plugin(&ns, &["rollout", "resume", "r3", "--timeout", "170s"]),
        spawn_plugin(&ns, &["rollout", "resume", "r3", "--timeout", "170s"]),
    );
    let (b, c) = (b.await.unwrap(), c.await.unwrap());
    assert_eq!((b.code, c.code), (0, 0), "{b:?}\n{c:?}");
    assert_eq!(rollout_json(&ns, "r3")["status"]["phase"], "Completed");
    for name in &names {
        let js = ns.jobset(name).await;
        assert_eq!((image_of(&js), attempt_of(&js)), (NEW.to_owned(), 1), "{name}: exactly one restart");
    }
}

/// `--to-revision N`: each JobSet gets its own revision N back (here the one `set image`
/// recorded before its change), in steps, behind the gate; one without it is skipped.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_rollout_puts_back_each_jobset_s_own_revision() {
    let ns = Arc::new(TestNs::new("fr-revision").await);
    create_running(&ns, &["v0", "v1"], "v", "").await;
    // Revision 1 (busybox:1.36) and 2 (1.37), recorded by set image; a third JobSet has none.
    let set = ns.plugin(&["set", "image", "-l", "team=v", &format!("main={NEW}"), "-y"]);
    assert_eq!(set.code, 0, "{set:?}");
    ns.create(&labelled_jobset("fresh", "v", ""));
    ns.wait_for_attempt_jobs("fresh", 0, 1).await;
    let _kubelet = spawn_kubelet(vec![ns.clone()], None);
    let out = spawn_plugin(
        &ns,
        &[
            "rollout",
            "start",
            "back",
            "-l",
            "team=v",
            "--to-revision",
            "1",
            "--gate",
            "ready=1s",
            "-y",
            "--timeout",
            "120s",
        ],
    )
    .await
    .unwrap();
    // `fresh` has no revision 1: skipped and said; the rollout completes for the others.
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("fresh") && out.stdout.contains("has no revision 1"), "{out:?}");
    for name in ["v0", "v1"] {
        let js = ns.jobset(name).await;
        assert_eq!(
            (image_of(&js), attempt_of(&js)),
            (OLD.to_owned(), 1),
            "{name}: back on revision 1, restarted once"
        );
    }
    let history = ns.plugin(&["history", "v0"]);
    assert!(history.stdout.contains("rollout back: --to-revision 1"), "{history:?}");
}

/// A canary left to its natural restart (`--canary-restart=natural`), gated on its new
/// attempt succeeding (`--gate succeeded`), then batches left to their update strategy
/// (`--restart=strategy`): their specs take the change and nothing restarts them. Until
/// its batch, each JobSet's change is held out of its spec, where `diff` shows it.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_natural_canary_gated_on_success_leads_batches_left_to_their_strategy() {
    let ns = Arc::new(TestNs::new("fr-natural").await);
    let policy = "  failurePolicy:\n    maxRestarts: 3\n";
    create_running(&ns, &["n0", "n1", "n2"], "nat", policy).await;
    let _kubelet = spawn_kubelet(vec![ns.clone()], None);
    let image = format!("main={NEW}");
    let args = [
        "rollout",
        "start",
        "r4",
        "-l",
        "team=nat",
        "--image",
        &image,
        "--canary",
        "n0",
        "--canary-restart",
        "natural",
        "--gate",
        "succeeded",
        "--batch-size",
        "1",
        "--restart",
        "strategy",
        "--detach",
        "-y",
    ];
    let start = ns.plugin(&args);
    assert_eq!(start.code, 0, "{start:?}");
    let driver = spawn_plugin(&ns, &["rollout", "resume", "r4", "--timeout", "170s"]);

    // The canary's spec takes the change; nothing restarts it: it waits for its natural restart.
    wait_for("the canary's spec", WAIT, || async {
        let doc = rollout_json(&ns, "r4");
        (member_states(&doc)[0].1 == "Changed" && staged_revisions(&ns).len() == 2).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let canary = ns.jobset("n0").await;
    assert_eq!((image_of(&canary), attempt_of(&canary)), (NEW.to_owned(), 0), "changed, not restarted");
    assert_eq!(member_states(&rollout_json(&ns, "r4"))[0].1, "Changed", "it waits for its natural restart");
    for name in ["n1", "n2"] {
        assert_eq!(image_of(&ns.jobset(name).await), OLD, "{name}: its spec keeps the old template");
        let diff = ns.plugin(&["diff", name]);
        assert!(diff.code == 1 && diff.stdout.contains("holds a change for a later batch"), "{diff:?}");
    }
    // Its Job fails: the controller restarts it (a natural restart) on the new template.
    let job = ns.wait_for_attempt_jobs("n0", 0, 1).await;
    ns.fail_job(job[0].metadata.name.as_deref().unwrap()).await;
    let new = ns.wait_for_attempt_jobs("n0", 1, 1).await;
    assert_eq!(crate::support::image_of(&new[0], 0), NEW);
    // Ready is not enough for `--gate succeeded`: the batches wait for it to complete.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(image_of(&ns.jobset("n1").await), OLD, "the gate waits for success");
    ns.complete_job(new[0].metadata.name.as_deref().unwrap()).await;

    let out = driver.await.unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(rollout_json(&ns, "r4")["status"]["phase"], "Completed");
    // The batches: spec changed, not restarted (their strategy decides when it runs).
    for name in ["n1", "n2"] {
        let js = ns.jobset(name).await;
        assert_eq!((image_of(&js), attempt_of(&js)), (NEW.to_owned(), 0), "{name}: {out:?}");
        let diff = ns.plugin(&["diff", name]);
        assert!(diff.code == 1 && diff.stdout.contains(NEW) && !diff.stdout.contains("holds"), "{diff:?}");
    }
    assert_eq!(staged_revisions(&ns), Vec::<String>::new(), "nothing held any more");
}
