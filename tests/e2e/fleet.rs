//! Fleet scale: many JobSets at once, a fixed number of API round trips.

use std::time::Duration;

use crate::support::*;

fn request_count(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| ["GET ", "POST ", "PATCH ", "PUT ", "DELETE "].iter().any(|m| l.starts_with(m)))
        .count()
}

/// 50 JobSets over 3 namespaces, all labelled `fleet=<label>`; returns the namespaces.
async fn fleet(label: &str) -> Vec<TestNs> {
    let mut namespaces = Vec::new();
    for (i, count) in [20, 20, 10].into_iter().enumerate() {
        let ns = TestNs::new(&format!("fleet{i}")).await;
        let mut yaml = String::new();
        for j in 0..count {
            let mut one = jobset_yaml(&format!("js{j}"), &[("workers", 1, "busybox:1.36")], "");
            one = one.replacen(
                "metadata:\n  name:",
                &format!("metadata:\n  labels:\n    fleet: {label}\n  name:"),
                1,
            );
            yaml.push_str("---\n");
            yaml.push_str(&one);
        }
        ns.create(&yaml);
        namespaces.push(ns);
    }
    for ns in &namespaces {
        wait_for("every fleet Job", Duration::from_secs(120), || async {
            let jobs = ns.jobs_api().list(&Default::default()).await.unwrap().items;
            let count = if ns.name.contains("fleet2") { 10 } else { 20 };
            (jobs.len() == count).then_some(())
        })
        .await;
    }
    namespaces
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn diff_and_restart_across_a_fleet_touch_exactly_the_drifted_jobsets() {
    let label = format!("f{}", std::process::id());
    let namespaces = fleet(&label).await;
    let selector = format!("fleet={label}");
    // First look, asked to record: history is recorded for all 50 (one create each).
    let out = run_plugin(&["diff", "-A", "-l", &selector, "--summary", "--record"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.lines().count(), 51, "a header and one line per JobSet: {out:?}");

    // Two JobSets drift, in different namespaces.
    let image = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]"#;
    for (ns, name) in [(&namespaces[0], "js3"), (&namespaces[2], "js7")] {
        assert!(ns.kubectl(&["patch", "jobset", name, "--type=json", "-p", image]).status.success());
    }
    let drifted = |stdout: &str| -> Vec<String> {
        let mut names: Vec<String> = stdout
            .lines()
            .filter(|l| l.contains("Outdated"))
            .map(|l| l.split_whitespace().next().unwrap().to_owned())
            .collect();
        names.sort();
        names
    };
    let expected = vec![format!("{}/js3", namespaces[0].name), format!("{}/js7", namespaces[2].name)];
    // Records the two new spec revisions.
    let out = run_plugin(&["diff", "-A", "-l", &selector, "--summary", "--record"], None, &[]);
    assert_eq!((out.code, drifted(&out.stdout)), (1, expected.clone()), "{out:?}");

    // Steady state: one list of JobSets, one of Jobs, one of revisions, one GET of the
    // recorder's Lease, and a dry run only for what differs client-side: v2 (the spec) in
    // the two namespaces that drifted = 2. The drifted Jobs match their recorded revision
    // (v1) client-side, so its template needs none; undrifted JobSets need none.
    let out = run_plugin(&["diff", "-A", "-l", &selector, "--summary", "-v=6"], None, &[]);
    assert_eq!((out.code, drifted(&out.stdout)), (1, expected.clone()), "{out:?}");
    let line = out.stdout.lines().find(|l| l.starts_with(&expected[0])).unwrap();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>()[1..],
        ["0", "1/1", "Outdated", "2"],
        "spec revision 2: {out:?}"
    );
    // A read sends no dry run: the expected Jobs are defaulted on the client.
    assert_eq!(request_count(&out.stderr), 3 + 1, "{}", out.stderr);
    assert_eq!(out.stderr.matches("dryRun=All").count(), 0, "{}", out.stderr);
    // --server-dry-run asks the server, once per distinct template that differs: v2 in
    // the two namespaces that drifted.
    let server =
        run_plugin(&["diff", "-A", "-l", &selector, "--summary", "--server-dry-run", "-v=6"], None, &[]);
    assert_eq!((server.code, drifted(&server.stdout)), (1, expected.clone()), "{server:?}");
    assert_eq!(server.stderr.matches("dryRun=All").count(), 2, "{}", server.stderr);

    let out = run_plugin(&["restart", "-A", "-l", &selector, "--if-outdated", "--yes", "-v=6"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let restarted: Vec<&str> =
        out.stdout.lines().filter(|l| l.contains(" restarted (attempt 0 → 1)")).collect();
    assert_eq!(restarted.len(), 2, "{out:?}");
    assert!(out.stderr.contains("2 restarted, 0 already restarted, 48 skipped, 0 failed"), "{out:?}");
    // Lists and dry runs as above, who-am-I, then a status patch and an Event per restart.
    assert_eq!(request_count(&out.stderr), 3 + 1 + 2 + 1 + 2 * 2, "{}", out.stderr);
    for (ns, name) in [(&namespaces[0], "js3"), (&namespaces[2], "js7")] {
        assert_eq!(ns.jobset(name).await["status"]["restarts"], 1);
    }
    assert_eq!(namespaces[1].jobset("js3").await["status"]["restarts"].as_i64().unwrap_or(0), 0);
}

/// Requests in a -v=6 log whose line starts with `method` and contains `part`.
fn requests(stderr: &str, method: &str, part: &str) -> usize {
    stderr.lines().filter(|l| l.starts_with(method) && l.contains(part)).count()
}

/// `count` JobSets in `ns`, each with its own template (an env value and args), as real
/// fleets have; waits for their Jobs.
async fn distinct_fleet(ns: &TestNs, count: usize) {
    let mut yaml = String::new();
    for j in 0..count {
        let one = jobset_yaml(&format!("js{j}"), &[("workers", 1, "busybox:1.36")], "");
        yaml.push_str("---\n");
        yaml.push_str(&one);
        yaml.push_str(&format!(
            "              args: [\"--shard={j}\"]\n              env: [{{name: SHARD, value: \"{j}\"}}]\n"
        ));
    }
    ns.create(&yaml);
    wait_for("every fleet Job", Duration::from_secs(120), || async {
        let jobs = ns.jobs_api().list(&Default::default()).await.unwrap().items;
        (jobs.len() == count).then_some(())
    })
    .await;
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn steady_state_diff_of_distinct_templates_makes_no_dry_run_and_no_write() {
    let ns = TestNs::new("distinct").await;
    distinct_fleet(&ns, 20).await;
    // First look, asked to record: the lists, one revision created per JobSet, and one
    // read of the namespace's revisions to check the numbers given (not one per JobSet); no
    // dry run, since every Job runs its JobSet's spec.
    let out = ns.plugin(&["diff", "--summary", "-v=6", "--record"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout.lines().filter(|l| l.contains(" 0/1 ") && l.contains("UpToDate")).count(),
        20,
        "{out:?}"
    );
    assert_eq!(out.stderr.matches("dryRun=All").count(), 0, "{}", out.stderr);
    assert_eq!(requests(&out.stderr, "POST ", "/controllerrevisions"), 20, "{}", out.stderr);
    assert_eq!(requests(&out.stderr, "GET ", "/controllerrevisions"), 2, "{}", out.stderr);
    assert_eq!(requests(&out.stderr, "PATCH ", ""), 0, "{}", out.stderr);

    // Steady state: at most 6 requests (here no page is needed), no dry run, no write,
    // even when asked to record.
    let out = ns.plugin(&["diff", "--summary", "-v=6", "--record"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(request_count(&out.stderr) <= 6, "{}", out.stderr);
    assert_eq!(out.stderr.matches("dryRun=All").count(), 0, "{}", out.stderr);
    for method in ["POST ", "PATCH ", "PUT ", "DELETE "] {
        assert_eq!(requests(&out.stderr, method, ""), 0, "{}", out.stderr);
    }

    // A real change is never hidden: one JobSet's env value changes; the server confirms
    // the spec's template (the revision the Jobs run matches them client-side), and diff
    // shows exactly it.
    let patch = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/env/0/value","value":"changed"}]"#;
    assert!(ns.kubectl(&["patch", "jobset", "js7", "--type=json", "-p", patch]).status.success());
    let out = ns.plugin(&["diff", "-v=6"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains(&format!("jobset {}/js7: attempt 0, 1/1 jobs outdated", ns.name)), "{out:?}");
    assert!(
        out.stdout.contains("-          value: \"7\"") && out.stdout.contains("+          value: changed"),
        "{out:?}"
    );
    assert_eq!(out.stdout.matches("jobs outdated").count(), 1, "only js7: {out:?}");
    assert_eq!(out.stderr.matches("dryRun=All").count(), 0, "a read sends no dry run: {}", out.stderr);
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_jobset_that_cannot_be_compared_is_reported_alone_and_the_others_are_compared() {
    let ns = TestNs::new("rejected").await;
    for name in ["broken", "drifted", "fine"] {
        ns.create(&jobset_yaml(name, &[("workers", 1, "busybox:1.36")], ""));
    }
    wait_for("three Jobs", Duration::from_secs(60), || async {
        (ns.jobs_api().list(&Default::default()).await.unwrap().items.len() == 3).then_some(())
    })
    .await;
    // Accepted as an update (the JobSet webhook defaults only on create), but no Job can
    // be built from it.
    let remove =
        r#"[{"op":"remove","path":"/spec/replicatedJobs/0/template/spec/template/spec/restartPolicy"}]"#;
    assert!(ns.kubectl(&["patch", "jobset", "broken", "--type=json", "-p", remove]).status.success());
    let image = r#"[{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"busybox:1.37"}]"#;
    assert!(ns.kubectl(&["patch", "jobset", "drifted", "--type=json", "-p", image]).status.success());

    // A read compares on the client: the removed field is drift like any other.
    let read = ns.plugin(&["diff", "--summary", "broken"]);
    assert_eq!(read.code, 1, "{read:?}");
    assert!(read.stdout.contains("Outdated"), "{read:?}");
    // --server-dry-run asks the server, which says no Job can be built from it.
    let out = ns.plugin(&["diff", "--summary", "--server-dry-run"]);
    assert_eq!(out.code, 2, "an error occurred: {out:?}");
    let status = |name: &str| {
        let line = out.stdout.lines().find(|l| l.starts_with(&format!("{}/{name} ", ns.name))).unwrap();
        line.split_whitespace().nth(3).unwrap().to_owned()
    };
    assert_eq!(
        (status("broken"), status("drifted"), status("fine")),
        ("Error".into(), "Outdated".into(), "UpToDate".into()),
        "{out:?}"
    );
    let said = format!(
        "error: jobset {}/broken could not be compared: replicatedJob workers: the API server rejects",
        ns.name
    );
    assert!(out.stderr.contains(&said) && out.stderr.contains("restartPolicy"), "{out:?}");
    assert!(out.stderr.contains("1 of 3 JobSets failed"), "{out:?}");

    // The drift of the others is printed in full, and the document carries the reason.
    let out = ns.plugin(&["diff", "--server-dry-run"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stdout.contains("+        image: busybox:1.37"), "{out:?}");
    let out = ns.plugin(&["diff", "-o", "json", "--server-dry-run"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let broken = doc["jobsets"].as_array().unwrap().iter().find(|j| j["name"] == "broken").unwrap();
    assert!(broken["error"].as_str().unwrap().contains("restartPolicy"), "{doc}");

    // restart refuses the broken one (its next restart would leave it with no Jobs), says
    // why in the API server's words, and restarts the drifted one.
    let out = ns.plugin(&["restart", "broken", "drifted", "fine", "--if-outdated", "--yes"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("drifted restarted (attempt 0 → 1)"), "{out:?}");
    assert!(out.stderr.contains("broken not restarted: its spec cannot produce a valid Job"), "{out:?}");
    assert!(out.stderr.contains("its template: replicatedJob workers: Job.batch"), "{out:?}");
    assert!(out.stderr.contains("restartPolicy: Required value"), "{out:?}");
    assert_eq!(ns.jobset("broken").await["status"]["restarts"].as_i64().unwrap_or(0), 0);
    assert_eq!(ns.jobset("fine").await["status"]["restarts"].as_i64().unwrap_or(0), 0);
}
