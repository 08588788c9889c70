//! `kubectl jobset history`: revisions recorded as ControllerRevisions on the real cluster.

use std::time::Duration;

use kubectl_jobset::render::documents::HistoryDocument;
use serde_json::Value;

use crate::support::*;

fn set_image(ns: &TestNs, name: &str, image: &str) {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let out = ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", &patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `history --record`: most tests here are about the history commands record.
fn history_json(ns: &TestNs, name: &str) -> HistoryDocument {
    let out = ns.plugin(&["history", name, "-o", "json", "--record"]);
    assert_eq!(out.code, 0, "{out:?}");
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

/// (revision, attempts, spec, running) per revision.
fn rows(doc: &HistoryDocument) -> Vec<(i64, Vec<i32>, bool, bool)> {
    doc.revisions
        .iter()
        .map(|r| (r.revision, r.restart_attempts.iter().copied().collect(), r.spec, r.running))
        .collect()
}

fn controller_revisions(ns: &TestNs) -> Vec<Value> {
    let out = ns.kubectl(&["get", "controllerrevisions", "-o", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["items"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn revisions_follow_edits_failures_and_restarts() {
    let ns = TestNs::new("history").await;
    ns.create(&jobset_yaml(
        "train",
        &[("workers", 2, "busybox:1.36")],
        "  failurePolicy:\n    maxRestarts: 3\n",
    ));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    assert_eq!(rows(&history_json(&ns, "train")), [(1, vec![0], true, true)]);

    // A plain kubectl edit, seen by `diff --record` before any restart: both revisions.
    set_image(&ns, "train", "busybox:1.37");
    assert_eq!(ns.plugin(&["diff", "train", "--record"]).code, 1);
    assert_eq!(rows(&history_json(&ns, "train")), [(1, vec![0], false, true), (2, vec![], true, false)]);

    // A failure restarts the JobSet: attempt 1 runs revision 2.
    ns.fail_job("train-workers-0").await;
    ns.wait_for_attempt_jobs("train", 1, 2).await;
    assert_eq!(rows(&history_json(&ns, "train")), [(1, vec![0], false, false), (2, vec![1], true, true)]);
    ns.settle("train", 1, 2).await;

    // A manual restart: attempt 2 on revision 2, with its reason as the change cause.
    let out = ns.plugin(&["restart", "train", "--reason", "roll out busybox 1.37", "--wait"]);
    assert_eq!(out.code, 0, "{out:?}");
    let doc = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(1, vec![0], false, false), (2, vec![1, 2], true, true)]);
    assert_eq!(doc.revisions[1].change_cause.as_deref(), Some("roll out busybox 1.37"));

    let out = ns.plugin(&["history", "train"]);
    let lines: Vec<Vec<&str>> = out.stdout.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(lines[1][..4], ["REVISION", "STATE", "RESTART-ATTEMPTS", "CREATED"]);
    assert_eq!(lines[3][..3], ["2", "spec,running", "1-2"]);
    assert!(
        out.stdout.contains("workers=busybox:1.37") && out.stdout.contains("roll out busybox 1.37"),
        "{out:?}"
    );

    let out = ns.plugin(&["history", "train", "--diff", "1,2"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("workers: image busybox:1.36 → busybox:1.37 (container main)"), "{out:?}");
    assert!(
        out.stdout.contains("-        image: busybox:1.36")
            && out.stdout.contains("+        image: busybox:1.37"),
        "{out:?}"
    );

    let out = ns.plugin(&["history", "train", "--revision", "-2"]);
    assert!(out.stdout.contains("with revision #1") && out.stdout.contains("image: busybox:1.36"), "{out:?}");
    let out = ns.plugin(&["history", "train", "--revision", "7"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("revision 7 does not exist; recorded revisions: 1, 2"), "{out:?}");

    // The revisions are ControllerRevisions owned by the JobSet: deleting it collects them.
    let stored = controller_revisions(&ns);
    assert_eq!(stored.len(), 2);
    let owner = &stored[0]["metadata"]["ownerReferences"][0];
    assert_eq!((owner["kind"].as_str(), owner["name"].as_str()), (Some("JobSet"), Some("train")));
    assert!(stored.iter().all(|r| r["metadata"]["name"].as_str().unwrap().starts_with("train-")));
    assert!(ns.kubectl(&["delete", "jobset", "train"]).status.success());
    wait_for("revisions to be garbage-collected", Duration::from_secs(60), || async {
        controller_revisions(&ns).is_empty().then_some(())
    })
    .await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn an_edit_made_before_any_plugin_command_is_rebuilt_from_the_running_jobs() {
    let ns = TestNs::new("history-rebuilt").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    set_image(&ns, "train", "busybox:1.37");
    let doc = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(1, vec![0], false, true), (2, vec![], true, false)]);
    assert_eq!(doc.revisions[0].source, "running-jobs");
    assert_eq!(doc.revisions[0].images[0].images, ["busybox:1.36"]);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn concurrent_recorders_leave_one_revision_per_template() {
    let ns = TestNs::new("history-race").await;
    ns.create(&jobset_yaml("train", &[("workers", 2, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    set_image(&ns, "train", "busybox:1.37");
    let name = ns.name.clone();
    let runs: Vec<_> = (0..4)
        .map(|i| {
            let name = name.clone();
            std::thread::spawn(move || {
                let verb = if i % 2 == 0 { "diff" } else { "history" };
                run_plugin(&[verb, "train", "--record"], Some(&name), &[])
            })
        })
        .collect();
    for run in runs {
        let out = run.join().unwrap();
        assert!(out.code == 0 || out.code == 1, "{out:?}");
        assert!(!out.stderr.contains("warning"), "{out:?}");
    }
    let stored = controller_revisions(&ns);
    let mut hashes: Vec<&str> = stored
        .iter()
        .map(|r| r["metadata"]["labels"]["kubectl-jobset.io/template-hash"].as_str().unwrap())
        .collect();
    hashes.sort();
    hashes.dedup();
    assert_eq!((stored.len(), hashes.len()), (2, 2), "{stored:#?}");
    assert_eq!(rows(&history_json(&ns, "train")), [(1, vec![0], false, true), (2, vec![], true, false)]);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn without_write_permission_commands_still_work_read_only() {
    let ns = TestNs::new("history-readonly").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("train", 0, 1).await;
    set_image(&ns, "train", "busybox:1.37");
    ns.apply_repo_role("kubectl-jobset-readonly-clusterrole.yaml");
    ns.bind("--clusterrole=kubectl-jobset-readonly", "e2e-carol").await;
    let carol = harness().state.join("users/e2e-carol.kubeconfig");
    let as_carol = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["-n", &ns.name, "--kubeconfig", carol.to_str().unwrap()]);
        run_plugin(&all, None, &[])
    };
    // A read writes nothing and warns of nothing: the diff, and the history the running
    // Jobs and the spec tell, marked as not stored.
    let out = as_carol(&["diff", "train"]);
    assert_eq!(out.code, 1, "the diff still works: {out:?}");
    assert!(out.stdout.contains("+        image: busybox:1.37"), "{out:?}");
    assert!(!out.stderr.contains("warning"), "{out:?}");
    let out = as_carol(&["history", "train", "-o", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains("warning"), "{out:?}");
    let doc: HistoryDocument = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(rows(&doc), [(1, vec![0], false, true), (2, vec![], true, false)], "{out:?}");
    assert_eq!(
        (doc.revisions[0].source.as_str(), doc.revisions[1].source.as_str()),
        ("running-jobs", "spec")
    );
    assert!(doc.revisions.iter().all(|r| r.unrecorded && r.recorded_at.is_none()), "{out:?}");
    let out = as_carol(&["history", "train"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.matches("<not recorded>").count(), 2, "{out:?}");
    assert!(out.stderr.contains("`--record` stores them"), "{out:?}");

    // Asked to record, the read-only role is refused: said once, and the same history shown.
    let out = as_carol(&["diff", "train", "--record"]);
    assert_eq!(out.code, 1, "the diff still works: {out:?}");
    assert!(out.stdout.contains("+        image: busybox:1.37"), "{out:?}");
    assert_eq!(out.stderr.matches("history not recorded").count(), 1, "said once: {out:?}");
    assert!(out.stderr.contains("cannot create controllerrevisions.apps"), "{out:?}");
    let out = as_carol(&["history", "train", "-o", "json", "--record"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stderr.matches("history not recorded").count(), 1, "said once: {out:?}");
    let doc: HistoryDocument = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(rows(&doc), [(1, vec![0], false, true), (2, vec![], true, false)], "{out:?}");
    assert!(doc.revisions.iter().all(|r| r.unrecorded), "{out:?}");
    assert!(controller_revisions(&ns).is_empty());
}

/// Issue 28, point 1: reads never write by default. The admin's diff, history and status
/// make no write (dry runs store nothing) and record nothing; `--record`, or
/// KUBECTL_JOBSET_RECORD=1, records what they saw.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn reads_record_only_when_asked() {
    let ns = TestNs::new("history-record").await;
    for name in ["train", "other"] {
        ns.create(&jobset_yaml(name, &[("workers", 1, "busybox:1.36")], ""));
        ns.wait_for_attempt_jobs(name, 0, 1).await;
        set_image(&ns, name, "busybox:1.37");
    }
    let writes = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter(|l| {
                (l.starts_with("POST ") && !l.contains("dryRun=All"))
                    || ["PATCH ", "PUT ", "DELETE "].iter().any(|m| l.starts_with(m))
            })
            .map(str::to_owned)
            .collect()
    };
    for args in [
        vec!["diff", "train", "-v=6"],
        vec!["diff", "-v=6"],
        vec!["history", "train", "-v=6"],
        vec!["status", "train", "--watch=false", "-v=6"],
    ] {
        let out = ns.plugin(&args);
        assert!(out.stderr.contains("GET https://"), "the request log is on: {out:?}");
        assert_eq!(writes(&out.stderr), Vec::<String>::new(), "{args:?} writes nothing: {out:?}");
        assert!(!out.stderr.contains("warning"), "{out:?}");
    }
    assert!(controller_revisions(&ns).is_empty(), "nothing recorded");

    let out = ns.plugin(&["diff", "train", "--record", "-v=6"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        writes(&out.stderr)
            .iter()
            .filter(|l| l.starts_with("POST ") && l.contains("/controllerrevisions"))
            .count(),
        2,
        "the rebuilt revision and the spec's: {out:?}"
    );
    let names = |ns: &TestNs| -> Vec<String> {
        let mut names: Vec<String> = controller_revisions(ns)
            .iter()
            .map(|r| r["metadata"]["labels"]["kubectl-jobset.io/jobset-name"].as_str().unwrap().to_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&ns), ["train", "train"], "only train's history is recorded");
    let doc = history_json(&ns, "train");
    assert_eq!(rows(&doc), [(1, vec![0], false, true), (2, vec![], true, false)]);
    assert!(doc.revisions.iter().all(|r| !r.unrecorded && r.recorded_at.is_some()), "{doc:?}");

    // The setting, for whoever wants every read to record (where no recorder runs).
    let out = run_plugin(&["history", "other"], Some(&ns.name), &[("KUBECTL_JOBSET_RECORD", "1")]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("<not recorded>"), "{out:?}");
    assert_eq!(names(&ns), ["other", "other", "train", "train"]);
    let out = run_plugin(&["diff", "other", "-v=6"], Some(&ns.name), &[("KUBECTL_JOBSET_RECORD", "0")]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(writes(&out.stderr), Vec::<String>::new(), "0 is off: {out:?}");
}

/// Issue 25, point 3: a change of parallelism/completions is scale, not template. Whether
/// the controller scales the running Jobs in place (an elastic, Indexed Job) or leaves
/// them (NonIndexed), the attempt stays credited to the revision its Jobs were created
/// from, and the next attempt is the new revision's.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn an_attempt_is_credited_to_one_revision_when_parallelism_changes_in_place() {
    let ns = TestNs::new("history-scale").await;
    for (name, mode, patched) in [("elastic", "Indexed", true), ("plain", "NonIndexed", false)] {
        let job_spec = format!(
            "      spec:\n        completionMode: {mode}\n        parallelism: 1\n        completions: 1\n"
        );
        let yaml =
            jobset_yaml(name, &[("workers", 1, "busybox:1.36")], "  failurePolicy:\n    maxRestarts: 3\n")
                .replace("      spec:\n        template:", &format!("{job_spec}        template:"));
        ns.create(&yaml);
        ns.wait_for_attempt_jobs(name, 0, 1).await;
        assert_eq!(rows(&history_json(&ns, name)), [(1, vec![0], true, true)]);
        let mut ops =
            vec![r#"{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/parallelism","value":2}"#];
        if patched {
            ops.push(
                r#"{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/completions","value":2}"#,
            );
        }
        let patch = format!("[{}]", ops.join(","));
        let out = ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", &patch]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let want = if patched { 2 } else { 1 };
        wait_for(&format!("{name}'s Job at parallelism {want}"), Duration::from_secs(60), || async {
            let jobs = ns.jobs_of(name).await;
            jobs.iter().all(|j| j.spec.as_ref().unwrap().parallelism == Some(want)).then_some(())
        })
        .await;
        if !patched {
            // Give the controller time to have scaled it, had it wanted to.
            tokio::time::sleep(Duration::from_secs(2)).await;
            let jobs = ns.jobs_of(name).await;
            assert!(jobs.iter().all(|j| j.spec.as_ref().unwrap().parallelism == Some(1)), "left alone");
        }
        assert_eq!(
            rows(&history_json(&ns, name)),
            [(1, vec![0], false, true), (2, vec![], true, false)],
            "{name}: attempt 0 stays with revision 1 only"
        );
        ns.fail_job(&format!("{name}-workers-0")).await;
        ns.wait_for_attempt_jobs(name, 1, 1).await;
        assert_eq!(
            rows(&history_json(&ns, name)),
            [(1, vec![0], false, false), (2, vec![1], true, true)],
            "{name}"
        );
    }
}
