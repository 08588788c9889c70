//! `kubectl jobset list` on the real cluster.

use std::time::Duration;

use crate::support::*;

fn request_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("GET ") || l.starts_with("PATCH ") || l.starts_with("POST "))
        .collect()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn lists_jobsets_across_namespaces_with_two_requests() {
    let a = TestNs::new("list-a").await;
    let b = TestNs::new("list-b").await;
    a.create(&jobset_yaml("alpha", &[("workers", 2, "busybox:1.36")], ""));
    b.create(&jobset_yaml("beta", &[("workers", 1, "busybox:1.36"), ("driver", 1, "python:3.12")], ""));
    b.create(&jobset_yaml("gamma", &[("workers", 1, "busybox:1.36")], ""));
    b.kubectl(&["label", "jobset", "gamma", "team=ml"]);
    a.wait_for_attempt_jobs("alpha", 0, 2).await;
    b.wait_for_attempt_jobs("beta", 0, 2).await;

    let out = a.plugin(&["list"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        [
            "NAME",
            "RESTARTS",
            "READY",
            "ACTIVE",
            "SUSPENDED",
            "SUCCEEDED",
            "FAILED",
            "STATUS",
            "AGE",
            "STRATEGY"
        ]
    );
    assert_eq!(lines.len(), 2, "{out:?}");
    assert_eq!(
        &lines[1].split_whitespace().collect::<Vec<_>>()[..8],
        ["alpha", "0", "0/2", "2", "0", "0", "0", "Running"]
    );

    let out = run_plugin(&["list", "-A", "-o", "wide", "-v=6"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    for (ns, name) in [(&a.name, "alpha"), (&b.name, "beta"), (&b.name, "gamma")] {
        assert!(
            out.stdout.lines().any(|l| l.starts_with(ns.as_str()) && l.contains(name)),
            "{name} missing: {out:?}"
        );
    }
    assert!(out.stdout.contains("workers=busybox:1.36 driver=python:3.12"), "{out:?}");
    assert_eq!(request_lines(&out.stderr).len(), 2, "one list of JobSets and one of Jobs: {out:?}");
    assert!(
        out.stderr.contains("/apis/batch/v1/jobs?")
            && out.stderr.contains("labelSelector=jobset.sigs.k8s.io%2Fjobset-name"),
        "{out:?}"
    );

    let out = b.plugin(&["list", "-l", "team=ml", "-o", "name"]);
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/gamma\n", "{out:?}");

    // As `kubectl get jobset beta -o json`: one JobSet by name is the object itself.
    let out = b.plugin(&["list", "beta", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["kind"], "JobSet", "{out:?}");
    assert_eq!(doc["metadata"]["name"], "beta");
    assert!(doc["metadata"].get("managedFields").is_none());

    let out = b.plugin(&["list", "beta", "-o", "yaml"]);
    assert!(out.stdout.contains("kind: JobSet") && out.stdout.contains("name: beta"), "{out:?}");
    // Several names (or a selector) are a List.
    let out = b.plugin(&["list", "-l", "team=ml", "-o", "yaml"]);
    assert!(out.stdout.contains("kind: List") && out.stdout.contains("name: gamma"), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn a_restarted_jobset_shows_its_attempt_and_counts() {
    let ns = TestNs::new("list-restart").await;
    ns.create(&jobset_yaml(
        "train",
        &[("workers", 2, "busybox:1.36")],
        "  failurePolicy:\n    maxRestarts: 2\n",
    ));
    ns.wait_for_attempt_jobs("train", 0, 2).await;
    ns.ready_job("train-workers-0").await;
    wait_for("one ready job", Duration::from_secs(20), || async {
        let out = ns.plugin(&["list", "--no-headers"]);
        out.stdout.split_whitespace().nth(2).filter(|r| *r == "1/2").map(|_| ())
    })
    .await;

    ns.fail_job("train-workers-1").await;
    ns.wait_for_attempt_jobs("train", 1, 2).await;
    let out = ns.plugin(&["list", "--no-headers"]);
    let cells: Vec<&str> = out.stdout.split_whitespace().collect();
    assert_eq!(&cells[..2], ["train", "1"], "{out:?}");
    assert_eq!(cells[6], "0", "failed Jobs of the previous attempt are not counted: {out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn unknown_jobset_names_the_namespace_and_hints() {
    let ns = TestNs::new("list-missing").await;
    let out = ns.plugin(&["list", "nope"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains(&format!("\"nope\" not found in namespace \"{}\"", ns.name)), "{out:?}");
    assert!(out.stderr.contains("-A"), "{out:?}");

    let out = ns.plugin(&["list"]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains(&format!("No resources found in {} namespace.", ns.name)), "{out:?}");
}

/// Issue 28: kubectl's output options on `list`: `-o jsonpath=` (on the object for one
/// name, on the List otherwise), `-o custom-columns=`, `--sort-by`, `--show-labels`, `-L`.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn kubectl_printers_sort_and_label_columns() {
    let ns = TestNs::new("list-printers").await;
    ns.create(&jobset_yaml("zeta", &[("workers", 3, "busybox:1.36")], ""));
    ns.create(&jobset_yaml("eta", &[("workers", 1, "busybox:1.37")], ""));
    ns.kubectl(&["label", "jobset", "zeta", "team=ml", "tier=prod"]);

    let out = ns.plugin(&["list", "-o", "jsonpath={.items[*].metadata.name}"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "eta zeta"), "{out:?}");
    let out = ns.plugin(&["list", "zeta", "-o", "jsonpath={.spec.replicatedJobs[0].replicas}"]);
    assert_eq!(out.stdout, "3", "one name: the object itself: {out:?}");
    let template = r#"jsonpath={range .items[*]}{.metadata.name}{"\t"}{.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image}{"\n"}{end}"#;
    let out = ns.plugin(&["list", "-o", template]);
    assert_eq!(out.stdout, "eta\tbusybox:1.37\nzeta\tbusybox:1.36\n", "{out:?}");

    let out = ns.plugin(&[
        "list",
        "-o",
        "custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicatedJobs[*].replicas,TEAM:.metadata.labels.team",
        "--sort-by=.spec.replicatedJobs[0].replicas",
    ]);
    let rows: Vec<Vec<&str>> = out.stdout.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(
        rows,
        [vec!["NAME", "REPLICAS", "TEAM"], vec!["eta", "1", "<none>"], vec!["zeta", "3", "ml"]],
        "{out:?}"
    );
    let out = ns.plugin(&["list", "--sort-by={.spec.replicatedJobs[0].replicas}", "-o", "name"]);
    assert_eq!(out.stdout, "jobset.jobset.x-k8s.io/eta\njobset.jobset.x-k8s.io/zeta\n", "{out:?}");

    let out = ns.plugin(&["list", "-L", "team,tier", "--show-labels"]);
    let header: Vec<&str> = out.stdout.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(&header[header.len() - 3..], ["TEAM", "TIER", "LABELS"], "{out:?}");
    let zeta = out.stdout.lines().find(|l| l.starts_with("zeta")).unwrap();
    assert!(
        zeta.contains(" ml ") && zeta.contains(" prod ") && zeta.ends_with("team=ml,tier=prod"),
        "{out:?}"
    );

    let bad = ns.plugin(&["list", "-o", "go-template={{.metadata.name"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("invalid -o go-template"), "{bad:?}");
}

/// Issue 28: `version` says what the cluster runs (and `--client` needs no cluster).
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn version_says_what_the_cluster_runs() {
    let out =
        run_plugin(&["version"], None, &[("KUBECTL_JOBSET_RECORDER_NAMESPACE", "kjs-no-recorder-here")]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .starts_with(&format!("Client Version: v{}\nKubernetes Version: v1.", env!("CARGO_PKG_VERSION"))),
        "{out:?}"
    );
    assert!(out.stdout.contains("JobSet API: jobset.x-k8s.io/v1alpha2\n"), "{out:?}");
    assert!(out.stdout.contains("Recorder: not running"), "{out:?}");
    let json = run_plugin(&["version", "-o", "json"], None, &[]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["jobsetApi"], "jobset.x-k8s.io/v1alpha2", "{json:?}");
    let client = run_plugin(&["version", "--client", "--kubeconfig", "/nonexistent"], None, &[]);
    assert_eq!(client.stdout, format!("Client Version: v{}\n", env!("CARGO_PKG_VERSION")), "{client:?}");
}

/// Issue 28: `tree` shows the JobSet, its replicatedJobs, Jobs (attempt, revision,
/// outdated) and Pods, and writes nothing.
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn tree_shows_replicated_jobs_jobs_and_pods() {
    let ns = TestNs::new("list-tree").await;
    ns.create(&jobset_yaml("demo", &[("workers", 2, "busybox:1.36"), ("driver", 1, "busybox:1.36")], ""));
    ns.wait_for_attempt_jobs("demo", 0, 3).await;
    ns.ready_job("demo-workers-0").await;
    let out = ns.plugin(&["set", "image", "demo", "workers/main=busybox:1.37"]);
    assert_eq!(out.code, 0, "{out:?}");
    let out = ns.plugin(&["tree", "demo", "-v=6"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Spec revision: revision 2"), "{out:?}");
    let line = |name: &str| {
        out.stdout.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name}: {out:?}")).to_owned()
    };
    assert!(line("├── workers").contains("ReplicatedJob"), "{out:?}");
    assert!(line("demo-workers-0 ").contains("attempt 0, revision 1, outdated template"), "{out:?}");
    assert!(!line("demo-driver-0 ").contains("outdated"), "{out:?}");
    assert!(out.stdout.lines().any(|l| l.contains("└── demo-workers-0-") && l.contains("Pod")), "{out:?}");
    // A read: not even a dry run.
    let writes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("POST ") || l.starts_with("PATCH ") || l.starts_with("DELETE "))
        .collect();
    assert!(writes.is_empty(), "a read writes nothing: {writes:?}");
}

/// Issue 28: each of kubectl's printers on `list` and `history` prints what `kubectl get`
/// prints for the same objects and the same `-o` (and `--field-selector` goes to the server).
#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn printers_print_what_kubectl_get_prints() {
    let ns = TestNs::new("list-like-kubectl").await;
    ns.create(&jobset_yaml("zeta", &[("workers", 3, "busybox:1.36")], ""));
    ns.create(&jobset_yaml("eta", &[("workers", 1, "busybox:1.37"), ("driver", 1, "busybox:1.36")], ""));
    ns.kubectl(&["label", "jobset", "zeta", "team=ml"]);
    let dir = tempfile::tempdir().unwrap();
    let jsonpath_file = dir.path().join("names.jsonpath");
    std::fs::write(
        &jsonpath_file,
        "{range .items[*]}{.metadata.name} {.spec.replicatedJobs[*].name}{\"\\n\"}{end}\n",
    )
    .unwrap();
    let columns_file = dir.path().join("columns.txt");
    std::fs::write(&columns_file, "NAME   JOBS                       TEAM\nmetadata.name .spec.replicatedJobs[*].name .metadata.labels.team\n")
        .unwrap();
    let go_file = dir.path().join("names.gotemplate");
    std::fs::write(&go_file, "{{range .items}}{{.metadata.name}}={{len .spec.replicatedJobs}}\n{{end}}")
        .unwrap();
    let outputs = [
        "jsonpath={.items[*].metadata.name}".to_owned(),
        r#"jsonpath={range .items[*]}{.metadata.name}{"\t"}{.spec.replicatedJobs[*].template.spec.template.spec.containers[0].image}{"\n"}{end}"#.to_owned(),
        format!("jsonpath-file={}", jsonpath_file.display()),
        "custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicatedJobs[*].replicas,TEAM:.metadata.labels.team".to_owned(),
        format!("custom-columns-file={}", columns_file.display()),
        r#"go-template={{range .items}}{{.metadata.name}}{{" "}}{{with .metadata.labels}}{{index . "team"}}{{else}}-{{end}} {{.metadata.annotations}}{{"\n"}}{{end}}"#.to_owned(),
        // Variables, printf, nested ranges, Go's printing of maps and lists, `-}}` trimming.
        r#"go-template={{range $i, $js := .items -}} {{$i}} {{printf "%-6s|%3d" $js.metadata.name (len $js.spec.replicatedJobs)}} {{range $js.spec.replicatedJobs}}{{.name}}={{.replicas}},{{end}} {{$js.spec.replicatedJobs}} {{eq $js.metadata.generation 1}} {{ne $js.metadata.nothing 0}} {{$.kind}}{{"\n"}}{{end}}"#.to_owned(),
        format!("go-template-file={}", go_file.display()),
        "name".to_owned(),
    ];
    let kubectl_get = |args: &[&str]| {
        let out = ns.kubectl(&[&["get", "jobsets.jobset.x-k8s.io"], args].concat());
        assert!(out.status.success(), "kubectl get {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    for output in &outputs {
        for extra in [
            &[][..],
            &["--sort-by=.spec.replicatedJobs[0].replicas"],
            &["--field-selector=metadata.name=zeta"],
        ] {
            let args: Vec<&str> = [&["-o", output.as_str()][..], extra].concat();
            let ours = ns.plugin(&[&["list"][..], &args].concat());
            assert_eq!(ours.code, 0, "{args:?}: {ours:?}");
            assert_eq!(ours.stdout, kubectl_get(&args), "list {args:?}");
        }
    }
    // One name: the object itself, as `kubectl get jobset zeta -o …`.
    for output in [
        "jsonpath={.metadata.name} {.spec.replicatedJobs[0].replicas}",
        "go-template={{.metadata.name}} {{.metadata.labels.team}}",
    ] {
        let ours = ns.plugin(&["list", "zeta", "-o", output]);
        assert_eq!(ours.stdout, kubectl_get(&["zeta", "-o", output]), "list zeta -o {output}");
    }
    let no_headers = ns.plugin(&["list", "--no-headers", "-o", "custom-columns=NAME:.metadata.name"]);
    assert_eq!(no_headers.stdout, kubectl_get(&["--no-headers", "-o", "custom-columns=NAME:.metadata.name"]));
    let none = ns.plugin(&["list", "--field-selector=metadata.name=nope"]);
    assert_eq!((none.code, none.stdout.as_str()), (0, ""), "{none:?}");
    assert!(none.stderr.contains("No resources found"), "{none:?}");
    let bad = ns.plugin(&["list", "--field-selector=spec.suspend=true"]);
    assert_ne!(bad.code, 0, "{bad:?}");
    assert!(
        bad.stderr.contains("field label not supported") || bad.stderr.contains("spec.suspend"),
        "{bad:?}"
    );

    // history: jsonpath over what `-o json` prints, custom-columns one row per revision.
    let json = ns.plugin(&["history", "eta", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let revisions = doc["revisions"].as_array().unwrap();
    let out = ns.plugin(&["history", "eta", "-o", "jsonpath={.revisions[*].revision}"]);
    let expected: Vec<String> = revisions.iter().map(|r| r["revision"].to_string()).collect();
    assert_eq!(out.stdout, expected.join(" "), "{out:?}");
    let out = ns.plugin(&["history", "eta", "-o", "custom-columns=REVISION:.revision", "--no-headers"]);
    assert_eq!(out.stdout.lines().count(), revisions.len(), "one row per revision: {out:?}");
    let out = ns.plugin(&["history", "eta", "-o", "go-template={{range .revisions}}{{.revision}}{{end}}"]);
    assert_eq!(out.stdout, expected.join(""), "{out:?}");
}
