//! The bad-input catalog: every case names the problem and what to do, exits non-zero
//! where it should, and changes nothing (resourceVersions of the JobSets, their Jobs and
//! their ControllerRevisions are compared before and after each case).

use std::collections::BTreeMap;
use std::path::PathBuf;

use kube::api::{Api, DynamicObject, ListParams};
use serde_json::json;

use crate::support::*;

/// `kind/name → resourceVersion` for everything a case could change.
async fn snapshot(ns: &TestNs) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let revisions: Api<k8s_openapi::api::apps::v1::ControllerRevision> =
        Api::namespaced(ns.client.clone(), &ns.name);
    for r in revisions.list(&ListParams::default()).await.unwrap().items {
        out.insert(
            format!("controllerrevision/{}", r.metadata.name.unwrap()),
            r.metadata.resource_version.unwrap(),
        );
    }
    for j in ns.jobs_api().list(&ListParams::default()).await.unwrap().items {
        out.insert(format!("job/{}", j.metadata.name.unwrap()), j.metadata.resource_version.unwrap());
    }
    let jobsets: Vec<DynamicObject> = ns.jobsets().list(&ListParams::default()).await.unwrap().items;
    for js in jobsets {
        out.insert(format!("jobset/{}", js.metadata.name.unwrap()), js.metadata.resource_version.unwrap());
    }
    out
}

struct Case {
    name: &'static str,
    args: Vec<String>,
    /// A kubeconfig other than the harness admin's.
    kubeconfig: Option<PathBuf>,
    code: i32,
    /// Every one of these must appear in stderr (or stdout for exit 0).
    says: Vec<&'static str>,
}

fn case(name: &'static str, args: &[&str], code: i32, says: &[&'static str]) -> Case {
    Case {
        name,
        args: args.iter().map(|s| s.to_string()).collect(),
        kubeconfig: None,
        code,
        says: says.to_vec(),
    }
}

fn with_kubeconfig(mut c: Case, path: PathBuf) -> Case {
    c.kubeconfig = Some(path);
    c
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("kjs-catalog-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// The harness kubeconfig with one edit.
fn variant(name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    write_temp(name, &edit(&std::fs::read_to_string(&harness().kubeconfig).unwrap()))
}

/// A JobSet with 50 replicatedJobs, one of them with a very large template.
fn big_jobset() -> String {
    let mut yaml = String::from(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: big\nspec:\n  replicatedJobs:\n",
    );
    for i in 0..50 {
        let env: String = (0..40)
            .map(|e| format!("              - {{name: VAR_{e}, value: \"value-{i}-{e}\"}}\n"))
            .collect();
        let args = if i == 0 {
            format!("              args: [\"{}\"]\n", "x".repeat(200_000))
        } else {
            String::new()
        };
        yaml.push_str(&format!(
            "  - name: rj{i}\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: main\n              image: busybox:1.36\n{args}              env:\n{env}"
        ));
    }
    yaml
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn bad_input_gets_a_clear_error_and_changes_nothing() {
    let ns = TestNs::new("catalog").await;
    let other = TestNs::new("catalog-other").await;
    ns.create(&jobset_yaml("target", &[("workers", 2, "busybox:1.36")], ""));
    ns.create(&jobset_yaml("handmade", &[("workers", 1, "busybox:1.36")], ""));
    ns.create(&big_jobset());
    ns.wait_for_attempt_jobs("target", 0, 2).await;
    ns.wait_for_attempt_jobs("handmade", 0, 1).await;
    ns.wait_for_attempt_jobs("big", 0, 50).await;

    // Child Jobs created by hand, without an integer restart-attempt label.
    let handmade = ns.jobset("handmade").await;
    let uid = handmade["metadata"]["uid"].as_str().unwrap();
    for (job, attempt) in [("handmade-extra-0", None), ("handmade-extra-1", Some("x"))] {
        let mut labels = json!({"jobset.sigs.k8s.io/jobset-name": "handmade", "jobset.sigs.k8s.io/replicatedjob-name": "workers"});
        if let Some(a) = attempt {
            labels["jobset.sigs.k8s.io/restart-attempt"] = json!(a);
        }
        let job: k8s_openapi::api::batch::v1::Job = serde_json::from_value(json!({
            "metadata": {"name": job, "labels": labels, "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2",
                "kind": "JobSet", "name": "handmade", "uid": uid, "controller": true}]},
            "spec": {"suspend": true, "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}
        }))
        .unwrap();
        ns.jobs_api().create(&Default::default(), &job).await.unwrap();
    }

    // History recorded once, so that the cases see stored revisions.
    for name in ["target", "handmade", "big"] {
        let out = ns.plugin(&["history", name, "--record"]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    // ControllerRevisions with our labels that are not ours, or corrupt.
    let target_uid = ns.jobset("target").await["metadata"]["uid"].as_str().unwrap().to_owned();
    for (name, annotations, data) in [
        ("target-foreign", json!({}), json!({"spec": {"template": {}}})),
        (
            "target-corrupt",
            json!({"kubectl-jobset.io/format": "replicated-job-templates/v1"}),
            json!({"replicatedJobs": "garbage"}),
        ),
    ] {
        let revision: k8s_openapi::api::apps::v1::ControllerRevision = serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {"kubectl-jobset.io/jobset-name": "target"}, "annotations": annotations,
                "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "target", "uid": target_uid}]},
            "data": data, "revision": 1
        }))
        .unwrap();
        Api::namespaced(ns.client.clone(), &ns.name).create(&Default::default(), &revision).await.unwrap();
    }

    // Let the controllers finish their own writes (pods, Job and JobSet status) first.
    let mut last = snapshot(&ns).await;
    let mut quiet_since = std::time::Instant::now();
    while quiet_since.elapsed() < std::time::Duration::from_secs(3) {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        let now = snapshot(&ns).await;
        if now != last {
            last = now;
            quiet_since = std::time::Instant::now();
        }
    }

    let original = std::fs::read_to_string(&harness().kubeconfig).unwrap();
    let token = original.lines().find_map(|l| l.trim().strip_prefix("token: ")).unwrap().to_owned();
    let server = original.lines().find_map(|l| l.trim().strip_prefix("server: ")).unwrap().to_owned();
    let unused_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let long_name = "a".repeat(254);
    let n = ns.name.as_str();
    let cases = vec![
        case("unknown jobset (list)", &["list", "nope"], 1, &["\"nope\" not found in namespace", "list -A"]),
        case("unknown jobset (diff)", &["diff", "nope"], 2, &["\"nope\" not found in namespace"]),
        case("unknown jobset (restart)", &["restart", "nope"], 1, &["\"nope\" not found"]),
        case("unknown jobset (history)", &["history", "nope"], 1, &["\"nope\" not found"]),
        case("unknown jobset (rollback)", &["rollback", "nope", "-y"], 1, &["\"nope\" not found"]),
        case(
            "wrong namespace",
            &["diff", "target", "-n", &other.name],
            2,
            &["not found in namespace", "-n NAMESPACE"],
        ),
        case(
            "namespace that does not exist",
            &["history", "target", "-n", "no-such-namespace"],
            1,
            &["not found in namespace \"no-such-namespace\""],
        ),
        case("invalid name", &["diff", "Bad_Name"], 2, &["invalid JobSet name \"Bad_Name\"", "lowercase"]),
        case("name too long", &["list", &long_name], 2, &["longer than 253 characters"]),
        case("another resource type", &["restart", "deployment/web"], 2, &["is not a JobSet"]),
        case("revision 0", &["history", "target", "--revision", "0"], 1, &["revisions start at 1"]),
        case(
            "revision not a number",
            &["history", "target", "--revision", "abc"],
            2,
            &["invalid value 'abc'"],
        ),
        case(
            "revision absent",
            &["history", "target", "--revision", "99"],
            1,
            &["revision 99 does not exist; recorded revisions: 1"],
        ),
        case(
            "rollback to revision 0",
            &["rollback", "target", "--to-revision", "0", "-y"],
            2,
            &["revisions start at 1"],
        ),
        case(
            "rollback to a non-number",
            &["rollback", "target", "--to-revision", "latest"],
            2,
            &["invalid value 'latest'"],
        ),
        case(
            "rollback to an absent revision",
            &["rollback", "target", "--to-revision", "42", "-y"],
            1,
            &["revision 42 does not exist; recorded revisions: 1"],
        ),
        case(
            "rollback without an earlier revision",
            &["rollback", "target", "-y"],
            1,
            &["no revision before the spec's (revision 1)"],
        ),
        case("names with -A", &["diff", "target", "-A"], 2, &["cannot be named across all namespaces"]),
        case("names with -l", &["list", "target", "-l", "a=b"], 2, &["names cannot be combined with -l"]),
        case("--summary with -o", &["diff", "--summary", "-o", "json"], 2, &["cannot be used with"]),
        case("restart without targets", &["restart"], 2, &["name the JobSets to restart"]),
        case(
            "--job without an index",
            &["restart", "target", "--job", "workers"],
            2,
            &["REPLICATEDJOB/INDEX"],
        ),
        case(
            "--job with --wait",
            &["restart", "target", "--job", "workers/0", "--wait"],
            2,
            &["--job cannot be combined with --wait"],
        ),
        case("--wait without --restart", &["rollback", "target", "--wait"], 2, &["--restart"]),
        case(
            "zero --timeout",
            &["restart", "target", "--wait", "--timeout=0s"],
            2,
            &["--timeout must be longer than 0s"],
        ),
        case(
            "negative --expect-attempt",
            &["restart", "target", "--expect-attempt=-1"],
            2,
            &["--expect-attempt must be 0 or more"],
        ),
        case("bad --request-timeout", &["list", "--request-timeout", "soon"], 2, &["invalid duration"]),
        case("unknown output format", &["list", "-o", "xml"], 2, &["invalid value 'xml'"]),
        case("unknown flag", &["diff", "--colour"], 2, &["unexpected argument '--colour'"]),
        case(
            "hand-made Jobs without attempt labels (diff)",
            &["diff", "handmade"],
            0,
            &["warning: ignored handmade-extra-0, handmade-extra-1", "restart-attempt"],
        ),
        case(
            "hand-made Jobs without attempt labels (restart)",
            &["restart", "handmade"],
            1,
            &["handmade-extra-0, handmade-extra-1 carry no integer", "fix or delete them first"],
        ),
        case(
            "revisions with our labels that are not ours",
            &["history", "target"],
            0,
            &[
                "target-foreign carries kubectl-jobset labels but not our data format; ignored",
                "target-corrupt has no replicatedJobs",
            ],
        ),
        case("50 replicatedJobs, a very large template (diff)", &["diff", "big"], 0, &[]),
        case(
            "50 replicatedJobs, a very large template (history)",
            &["history", "big", "-o", "json"],
            0,
            &["\"specRevision\": 1"],
        ),
        with_kubeconfig(
            case("missing kubeconfig", &["list"], 1, &["cannot use kubeconfig", "does not exist"]),
            PathBuf::from("/no/such/kubeconfig"),
        ),
        with_kubeconfig(
            case("kubeconfig that is not YAML", &["list"], 1, &["not a valid kubeconfig"]),
            write_temp("garbage", "{{{ not: [yaml"),
        ),
        with_kubeconfig(
            case(
                "unknown context",
                &["list", "--context", "prod"],
                1,
                &["context \"prod\" not found (known contexts: kubectl-jobset-e2e)"],
            ),
            harness().kubeconfig.clone(),
        ),
        with_kubeconfig(
            case("revoked token", &["list"], 1, &["401 Unauthorized", "log in again"]),
            variant("revoked", |t| t.replace(&token, "revoked-token-value")),
        ),
        with_kubeconfig(
            case(
                "unreachable API server",
                &["list"],
                1,
                &["cannot reach the Kubernetes API server", "connection refused"],
            ),
            variant("unreachable", |t| t.replace(&server, &format!("https://127.0.0.1:{unused_port}"))),
        ),
        with_kubeconfig(
            case(
                "TLS name mismatch",
                &["list"],
                1,
                &["TLS connection", "not valid for name \"localhost.invalid\""],
            ),
            variant("tls", |t| {
                t.replace(&server, &format!("{server}\n    tls-server-name: localhost.invalid"))
            }),
        ),
    ];
    assert!(cases.len() >= 30, "the catalog has {} cases", cases.len());

    let mut failures = Vec::new();
    for c in &cases {
        let before = snapshot(&ns).await;
        let mut args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        if !args.contains(&"-n") {
            args.extend(["-n", n]);
        }
        let kubeconfig = c.kubeconfig.as_ref().map(|p| p.to_str().unwrap().to_owned());
        if let Some(path) = &kubeconfig {
            args.extend(["--kubeconfig", path]);
        }
        let out = run_plugin(&args, None, &[]);
        let text = if c.code == 0 { format!("{}{}", out.stdout, out.stderr) } else { out.stderr.clone() };
        let after = snapshot(&ns).await;
        let mut problems = Vec::new();
        if out.code != c.code {
            problems.push(format!("exit {} (want {})", out.code, c.code));
        }
        for want in &c.says {
            if !text.contains(want) {
                problems.push(format!("does not say {want:?}"));
            }
        }
        if c.code != 0 && !text.lines().any(|l| l.starts_with("error: ")) {
            problems.push("no line starts with `error: `".into());
        }
        if before != after {
            let changed: Vec<&String> = after.keys().filter(|k| before.get(*k) != after.get(*k)).collect();
            problems.push(format!("changed {changed:?}"));
        }
        if text.contains(&token) || text.contains("panicked") {
            problems.push("printed the token or panicked".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{}: {}\n{out:?}", c.name, problems.join("; ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
