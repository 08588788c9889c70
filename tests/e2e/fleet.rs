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
    // First look: history is recorded for all 50 (one create each).
    let out = run_plugin(&["diff", "-A", "-l", &selector, "--summary"], None, &[]);
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
    let out = run_plugin(&["diff", "-A", "-l", &selector, "--summary"], None, &[]);
    assert_eq!((out.code, drifted(&out.stdout)), (1, expected.clone()), "{out:?}");

    // Steady state: one list of JobSets, one of Jobs, one of revisions, one GET of the
    // recorder's Lease, and one dry run per distinct (namespace, template): 3 namespaces
    // with v1, plus v2 in two of them = 5.
    let out = run_plugin(&["diff", "-A", "-l", &selector, "--summary", "-v=6"], None, &[]);
    assert_eq!((out.code, drifted(&out.stdout)), (1, expected.clone()), "{out:?}");
    let line = out.stdout.lines().find(|l| l.starts_with(&expected[0])).unwrap();
    assert_eq!(
        line.split_whitespace().collect::<Vec<_>>()[1..],
        ["0", "1/1", "Outdated", "2"],
        "spec revision 2: {out:?}"
    );
    assert_eq!(request_count(&out.stderr), 3 + 1 + 5, "{}", out.stderr);
    assert_eq!(out.stderr.matches("dryRun=All").count(), 5, "{}", out.stderr);

    let out = run_plugin(&["restart", "-A", "-l", &selector, "--if-outdated", "--yes", "-v=6"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let restarted: Vec<&str> =
        out.stdout.lines().filter(|l| l.contains(" restarted (attempt 0 → 1)")).collect();
    assert_eq!(restarted.len(), 2, "{out:?}");
    assert!(out.stderr.contains("2 restarted, 0 already restarted, 48 skipped, 0 failed"), "{out:?}");
    // Lists and dry runs as above, who-am-I, then a status patch and an Event per restart.
    assert_eq!(request_count(&out.stderr), 3 + 1 + 5 + 1 + 2 * 2, "{}", out.stderr);
    for (ns, name) in [(&namespaces[0], "js3"), (&namespaces[2], "js7")] {
        assert_eq!(ns.jobset(name).await["status"]["restarts"], 1);
    }
    assert_eq!(namespaces[1].jobset("js3").await["status"]["restarts"].as_i64().unwrap_or(0), 0);
}
