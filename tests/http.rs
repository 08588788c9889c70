//! HTTP-level tests: the exact requests commands send, against the mock API server
//! (tests/support/api_server.rs). They pin request shapes; the e2e suite proves behaviour.

#[path = "support/api_server.rs"]
mod api_server;

use std::sync::Arc;

use api_server::{ApiServer, Received, Reply, list};
use http::{Method, StatusCode};
use kubectl_jobset::commands::list::{ListPlan, run};
use kubectl_jobset::error::Error;
use kubectl_jobset::render::Format;
use kubectl_jobset::select::Selection;
use serde_json::{Value, json};

fn jobset(name: &str, ns: &str) -> Value {
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"), "creationTimestamp": "2026-11-30T10:00:00Z"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "app:v1"}]}}}}}]},
        "status": {"restarts": 0}})
}

fn plan(names: &[&str], all: bool, ns: &str) -> ListPlan {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    ListPlan {
        selection: Selection::new(&names, all, None, ns).unwrap(),
        format: Format::Name,
        printer: None,
        sort_by: None,
        show_labels: false,
        label_columns: vec![],
        no_headers: false,
        watch: None,
    }
}

/// Serves requests by path and query; the sorted list of `METHOD path?query` seen is returned.
async fn serve(api: ApiServer, mut answer: impl FnMut(&str) -> Reply) -> Vec<String> {
    sorted(api.serve(|request| answer(&request.uri)).await.iter().map(Received::line).collect())
}

#[tokio::test]
async fn list_in_a_namespace_is_the_jobsets_whole_and_the_jobs_in_pages() {
    let (cluster, api) = api_server::cluster("ml");
    let server = tokio::spawn(serve(api, |uri| {
        if uri.contains("/jobsets") {
            Reply::ok(list(vec![jobset("a", "ml")], None))
        } else {
            Reply::ok(list(vec![], None))
        }
    }));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan(&[], false, "ml"), &mut out, &mut err).await.unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "jobset.jobset.x-k8s.io/a\n");
    assert_eq!(
        server.await.unwrap(),
        [
            "GET /apis/batch/v1/namespaces/ml/jobs?&labelSelector=jobset.sigs.k8s.io%2Fjobset-name&limit=500",
            "GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?",
        ]
    );
}

#[tokio::test]
async fn one_name_is_a_get_and_a_selected_job_list() {
    let (cluster, api) = api_server::cluster("ml");
    let server = tokio::spawn(serve(api, |uri| {
        if uri.contains("/jobsets/") {
            Reply::ok(jobset("train", "ml"))
        } else {
            Reply::ok(list(vec![], None))
        }
    }));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan(&["train"], false, "ml"), &mut out, &mut err).await.unwrap();
    assert_eq!(
        server.await.unwrap(),
        [
            "GET /apis/batch/v1/namespaces/ml/jobs?&labelSelector=jobset.sigs.k8s.io%2Fjobset-name+in+%28train%29&limit=500",
            "GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train",
        ]
    );
}

#[tokio::test]
async fn continue_tokens_are_followed() {
    let (cluster, api) = api_server::cluster("ml");
    let server = tokio::spawn(serve(api, |uri| {
        if !uri.contains("/jobsets") {
            Reply::ok(list(vec![], None))
        } else if uri.contains("continue=page2") {
            Reply::ok(list(vec![jobset("b", "x")], None))
        } else {
            Reply::ok(list(vec![jobset("a", "x")], Some("page2")))
        }
    }));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan(&[], true, "ml"), &mut out, &mut err).await.unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "jobset.jobset.x-k8s.io/a\njobset.jobset.x-k8s.io/b\n");
    let seen = server.await.unwrap();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(
        seen.iter().any(|s| s == "GET /apis/jobset.x-k8s.io/v1alpha2/jobsets?&continue=page2"),
        "{seen:?}"
    );
}

/// Issue 30: pages are pipelined. The next page is asked for as soon as a page's body is
/// in (its token read off the body's edges), before that page is parsed and handed on:
/// when the second page's request arrives, nothing of the first has reached `keep` yet.
/// Either order of a list's keys: built-in lists put metadata first, custom resources'
/// lists (sorted keys) put it after the items.
#[tokio::test]
async fn the_next_page_is_asked_for_before_this_one_is_parsed() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    for metadata_first in [true, false] {
        let (cluster, api) = api_server::cluster("ml");
        let kept = Arc::new(AtomicUsize::new(0));
        let kept_at_page_2 = Arc::new(AtomicUsize::new(usize::MAX));
        let (kept_seen, at_page_2) = (kept.clone(), kept_at_page_2.clone());
        let page = move |items: Vec<Value>, token: &str| {
            // Big enough that the list's metadata is far from the page's other end.
            let items: Vec<Value> = items
                .into_iter()
                .map(|mut job| {
                    job["metadata"]["annotations"] = json!({"pad": "x".repeat(20_000)});
                    job
                })
                .collect();
            if metadata_first {
                json!({"kind": "JobList", "apiVersion": "batch/v1", "metadata": {"resourceVersion": "9", "continue": token}, "items": items})
            } else {
                json!({"apiVersion": "batch/v1", "items": items, "kind": "JobList", "metadata": {"continue": token, "resourceVersion": "9"}})
            }
        };
        let server = tokio::spawn(serve(api, move |uri| {
            if uri.contains("continue=page2") {
                at_page_2.store(kept_seen.load(Ordering::SeqCst), Ordering::SeqCst);
                Reply::ok(page(vec![child_job("b", "ml", 0)], ""))
            } else {
                Reply::ok(page(vec![child_job("a", "ml", 0)], "page2"))
            }
        }));
        let jobs = cluster
            .list_jobs(Some("ml"), "jobset.sigs.k8s.io/jobset-name", |job| {
                kept.fetch_add(1, Ordering::SeqCst);
                job.metadata.name
            })
            .await
            .unwrap();
        assert_eq!(jobs, [Some("a-w-0".to_owned()), Some("b-w-0".to_owned())]);
        let seen = server.await.unwrap();
        assert_eq!(seen.len(), 2, "one request per page, the early one used: {seen:?}");
        assert_eq!(kept_at_page_2.load(Ordering::SeqCst), 0, "page 2 asked for before page 1 was handed on");
    }
}

/// Issue 30: a metadata-first page's `continue` token is read off its first bytes on the
/// task that receives them, not by the parse thread, so the next page is asked for even
/// while the one parse thread (the binary has one) is busy with another list: here it is
/// held by another task until page 2 has been asked for (10 s at most).
#[test]
fn the_next_page_is_asked_for_while_the_parse_thread_is_busy() {
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    use std::time::{Duration, Instant};
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().max_blocking_threads(1).build().unwrap();
    runtime.block_on(async {
        let (cluster, api) = api_server::cluster("ml");
        let asked = Arc::new(AtomicBool::new(false));
        let asked_seen = asked.clone();
        let page = |name: &str, token: &str| {
            json!({"kind": "JobList", "apiVersion": "batch/v1", "metadata": {"continue": token}, "items": [child_job(name, "ml", 0)]})
        };
        let server = tokio::spawn(serve(api, move |uri| {
            if uri.contains("continue=page2") {
                asked_seen.store(true, SeqCst);
                Reply::ok(page("b", ""))
            } else {
                Reply::ok(page("a", "page2"))
            }
        }));
        let watched = asked.clone();
        let busy = tokio::task::spawn_blocking(move || {
            let until = Instant::now() + Duration::from_secs(10);
            while !watched.load(SeqCst) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            watched.load(SeqCst)
        });
        let jobs = cluster
            .list_jobs(Some("ml"), "jobset.sigs.k8s.io/jobset-name", |job| job.metadata.name)
            .await
            .unwrap();
        assert!(busy.await.unwrap(), "page 2 was asked for while the parse thread was held");
        assert_eq!(jobs, [Some("a-w-0".to_owned()), Some("b-w-0".to_owned())]);
        assert_eq!(server.await.unwrap().len(), 2);
    });
}

#[tokio::test]
async fn a_cluster_without_the_jobset_api_gets_an_install_hint() {
    let (cluster, api) = api_server::cluster("ml");
    tokio::spawn(serve(api, |uri| {
        if uri.contains("/jobsets") {
            Reply::status(404, "NotFound", "the server could not find the requested resource")
        } else {
            Reply::ok(list(vec![], None))
        }
    }));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let error = run(&cluster, &plan(&[], false, "ml"), &mut out, &mut err).await.unwrap_err();
    assert!(matches!(error, Error::JobSetApiMissing { .. }), "{error}");
    assert!(error.to_string().contains("install the JobSet controller"), "{error}");
}

/// A JobSet whose one replicatedJob runs `image`, with its own `args`.
fn jobset_running(name: &str, image: &str, args: &[&str]) -> Value {
    let mut js = jobset(name, "ml");
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"] =
        json!({"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": image, "args": args}]});
    js
}

/// The JobSet's one Job as the API server stores it: every default filled in.
fn defaulted_child_job(jobset: &str, image: &str, args: &[&str]) -> Value {
    let mut job = child_job(jobset, "ml", 0);
    job["spec"] = json!({"parallelism": 1, "completions": 1, "completionMode": "NonIndexed", "backoffLimit": 6,
        "podReplacementPolicy": "TerminatingOrFailed", "suspend": false, "manualSelector": false,
        "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "x"}},
        "template": {"metadata": {"labels": {"job-name": format!("{jobset}-w-0"), "batch.kubernetes.io/job-name": format!("{jobset}-w-0"),
            "batch.kubernetes.io/controller-uid": "x", "controller-uid": "x"}},
        "spec": {"restartPolicy": "OnFailure", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
            "securityContext": {}, "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "c", "image": image, "args": args, "imagePullPolicy": "IfNotPresent", "resources": {},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}]}}});
    job
}

/// An API server that serves `jobsets` and `jobs`, answers dry runs with the probe (as
/// defaulted), and stores the revisions it is sent; `run` is called once per command run
/// and gets the requests of that run, in order, with the dry-run bodies.
#[derive(Clone, Default)]
struct FakeApi {
    jobsets: Vec<Value>,
    jobs: Vec<Value>,
    revisions: Arc<std::sync::Mutex<Vec<Value>>>,
}

impl FakeApi {
    /// `diff --record`: what it reads and writes.
    async fn diff(&self, format: kubectl_jobset::commands::diff::DiffFormat) -> (Vec<String>, Vec<Value>) {
        self.diff_recording(format, true).await
    }

    async fn diff_recording(
        &self,
        format: kubectl_jobset::commands::diff::DiffFormat,
        record: bool,
    ) -> (Vec<String>, Vec<Value>) {
        use kubectl_jobset::commands::diff::{DiffPlan, run as diff};
        let (cluster, server) = api_server::cluster("ml");
        let api = self.clone();
        let server = tokio::spawn(async move { api.serve(server).await });
        let plan = DiffPlan {
            selection: Selection::new(&[], false, None, "ml").unwrap(),
            format,
            color: false,
            external_diff: None,
            history_limit: 10,
            record,
            server_dry_run: false,
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let _ = diff(&cluster, &plan, &mut out, &mut err).await.unwrap();
        server.await.unwrap()
    }

    async fn serve(&self, server: ApiServer) -> (Vec<String>, Vec<Value>) {
        let mut probes = Vec::new();
        let seen = server
            .serve(|request| {
                let path = request.path();
                if request.method == Method::POST && path.ends_with("/controllerrevisions") {
                    let mut revision = request.body.clone();
                    revision["metadata"]["resourceVersion"] = json!("1");
                    self.revisions.lock().unwrap().push(revision.clone());
                    Reply::created(revision)
                } else if path.ends_with("/controllerrevisions") {
                    Reply::ok(list(self.revisions.lock().unwrap().clone(), None))
                } else if request.method == Method::POST {
                    probes.push(request.body.clone());
                    let mut created = request.body.clone();
                    created["metadata"]["name"] = json!("kubectl-jobset-probe-x1");
                    Reply::created(created)
                } else if path.ends_with("/jobsets") {
                    Reply::ok(list(self.jobsets.clone(), None))
                } else if path.ends_with("/jobs") {
                    Reply::ok(list(self.jobs.clone(), None))
                } else {
                    Reply::json(
                        StatusCode::NOT_FOUND,
                        json!({"kind": "Status", "code": 404, "reason": "NotFound"}),
                    )
                }
            })
            .await;
        (seen.iter().map(Received::line).collect(), probes)
    }
}

const LIST_JOBSETS: &str = "GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?";
const LIST_JOBS: &str =
    "GET /apis/batch/v1/namespaces/ml/jobs?&labelSelector=jobset.sigs.k8s.io%2Fjobset-name&limit=500";
const LIST_REVISIONS: &str = "GET /apis/apps/v1/namespaces/ml/controllerrevisions?&labelSelector=kubectl-jobset.io%2Fjobset-name&limit=500";
/// Whether a recorder keeps history (here no Lease could be read: no recorder).
const GET_RECORDER_LEASE: &str =
    "GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubectl-jobset-recorder";
const CREATE_REVISION: &str =
    "POST /apis/apps/v1/namespaces/ml/controllerrevisions?&fieldManager=kubectl-jobset";
const DRY_RUN: &str = "POST /apis/batch/v1/namespaces/ml/jobs?&dryRun=All&fieldManager=kubectl-jobset";

fn sorted(mut seen: Vec<String>) -> Vec<String> {
    seen.sort();
    seen
}

#[tokio::test]
async fn diff_dry_runs_each_distinct_template_once_when_jobs_differ() {
    use kubectl_jobset::commands::diff::DiffFormat;
    // Two JobSets with the same template, whose Jobs run an older image: one dry run.
    let api = FakeApi {
        jobsets: vec![jobset_running("a", "app:v2", &[]), jobset_running("b", "app:v2", &[])],
        jobs: vec![defaulted_child_job("a", "app:v1", &[]), defaulted_child_job("b", "app:v1", &[])],
        ..Default::default()
    };
    let (seen, probes) = api.diff(DiffFormat::Json).await;
    let dry_runs = seen.iter().filter(|r| *r == DRY_RUN).count();
    assert_eq!(dry_runs, 1, "{seen:#?}");
    let probe = &probes[0];
    assert_eq!(probe["metadata"]["generateName"], "kubectl-jobset-probe-", "a name that cannot collide");
    assert!(probe["metadata"].get("name").is_none());
    assert_eq!(probe["kind"], "Job");
    assert_eq!(probe["spec"]["template"]["spec"]["containers"][0]["image"], "app:v2");
}

#[tokio::test]
async fn diff_of_a_fleet_that_runs_its_spec_makes_no_dry_run_and_reads_history_back_once() {
    use kubectl_jobset::commands::diff::DiffFormat;
    // Every JobSet its own template (args), every Job running it.
    let names = ["a", "b", "c"];
    let api = FakeApi {
        jobsets: names.iter().map(|n| jobset_running(n, "app:v1", &["--shard", n])).collect(),
        jobs: names.iter().map(|n| defaulted_child_job(n, "app:v1", &["--shard", n])).collect(),
        ..Default::default()
    };
    // First look: the three lists, one revision per JobSet, and one read of the fleet's
    // revisions (the numbers given are checked in one request, not one per JobSet).
    let (first, _) = api.diff(DiffFormat::Summary).await;
    assert_eq!(
        sorted(first),
        [
            LIST_REVISIONS,
            "GET /apis/apps/v1/namespaces/ml/controllerrevisions?&labelSelector=kubectl-jobset.io%2Fjobset-name+in+%28a%2Cb%2Cc%29&limit=500",
            LIST_JOBS,
            GET_RECORDER_LEASE,
            LIST_JOBSETS,
            CREATE_REVISION,
            CREATE_REVISION,
            CREATE_REVISION,
        ]
    );
    // Steady state: the three lists, nothing else.
    let (second, _) = api.diff(DiffFormat::Summary).await;
    assert_eq!(sorted(second), [LIST_REVISIONS, LIST_JOBS, GET_RECORDER_LEASE, LIST_JOBSETS]);
}

/// Issue 28: without --record, diff reads (the same lists, and no dry run where the Jobs
/// run their spec) and writes no history, however often it looks.
#[tokio::test]
async fn diff_without_record_reads_and_writes_nothing() {
    use kubectl_jobset::commands::diff::DiffFormat;
    let names = ["a", "b"];
    let api = FakeApi {
        jobsets: names.iter().map(|n| jobset_running(n, "app:v1", &["--shard", n])).collect(),
        jobs: names.iter().map(|n| defaulted_child_job(n, "app:v1", &["--shard", n])).collect(),
        ..Default::default()
    };
    for _ in 0..2 {
        let (seen, _) = api.diff_recording(DiffFormat::Summary, false).await;
        assert_eq!(sorted(seen), [LIST_REVISIONS, LIST_JOBS, GET_RECORDER_LEASE, LIST_JOBSETS]);
    }
    assert!(api.revisions.lock().unwrap().is_empty());
    // Drifted Jobs: compared under client-side defaults, not even a dry run.
    let api = FakeApi {
        jobsets: vec![jobset_running("a", "app:v2", &[])],
        jobs: vec![defaulted_child_job("a", "app:v1", &[])],
        ..Default::default()
    };
    let (seen, _) = api.diff_recording(DiffFormat::Summary, false).await;
    assert_eq!(sorted(seen), [LIST_REVISIONS, LIST_JOBS, GET_RECORDER_LEASE, LIST_JOBSETS]);
    assert!(api.revisions.lock().unwrap().is_empty());
}

/// `diff --server-dry-run`: the server defaults (and validates) the expected Jobs.
#[tokio::test]
async fn a_template_the_api_server_rejects_fails_only_its_jobset() {
    use kubectl_jobset::commands::diff::{DiffFormat, DiffPlan, run as diff};
    let (cluster, api) = api_server::cluster("ml");
    let server = tokio::spawn(api.serve(|request| {
        let path = request.path();
        if request.method == Method::POST && path.ends_with("/jobs") {
            let probe = &request.body;
            if probe["spec"]["template"]["spec"]["containers"][0]["image"] == "bad" {
                Reply::status(
                    422,
                    "Invalid",
                    "Job.batch \"x\" is invalid: spec.template.spec.restartPolicy: Required value",
                )
            } else {
                Reply::created(probe.clone())
            }
        } else if path.ends_with("/jobsets") {
            Reply::ok(list(
                vec![jobset_running("bad", "bad", &[]), jobset_running("good", "app:v2", &[])],
                None,
            ))
        } else if path.ends_with("/jobs") {
            let jobs =
                vec![defaulted_child_job("bad", "app:v1", &[]), defaulted_child_job("good", "app:v1", &[])];
            Reply::ok(list(jobs, None))
        } else if request.method == Method::GET {
            Reply::ok(list(vec![], None))
        } else {
            Reply::status(403, "Forbidden", "forbidden")
        }
    }));
    let plan = DiffPlan {
        selection: Selection::new(&[], false, None, "ml").unwrap(),
        format: DiffFormat::Summary,
        color: false,
        external_diff: None,
        history_limit: 10,
        record: false,
        server_dry_run: true,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let error = diff(&cluster, &plan, &mut out, &mut err).await.unwrap_err();
    server.await.unwrap();
    assert!(matches!(error, Error::Several { failed: 1, total: 2 }), "{error}");
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("ml/bad ") && out.contains("Error"), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("ml/good") && l.contains("1/1") && l.contains("Outdated")),
        "{out}"
    );
    let err = String::from_utf8(err).unwrap();
    assert!(
        err.contains("error: jobset ml/bad could not be compared: replicatedJob w: the API server rejects"),
        "{err}"
    );
    assert!(err.contains("restartPolicy: Required value"), "{err}");
}

fn restart_plan(name: &str) -> kubectl_jobset::commands::restart::RestartPlan {
    use kubectl_jobset::commands::restart::RestartPlan;
    use kubectl_jobset::execute::DryRun;
    RestartPlan {
        selection: Selection::new(&[name.to_string()], false, None, "ml").unwrap(),
        options: kubectl_jobset::plan::restart::RestartOptions {
            reason: Some("new image".into()),
            requested_by: "someone".into(),
            ..Default::default()
        },
        if_outdated: false,
        dry_run: DryRun::None,
        wait: None,
        format: None,
        color: false,
        history_limit: 10,
    }
}

fn restarted(attempt: i64) -> Value {
    let mut js = jobset("train", "ml");
    js["metadata"]["resourceVersion"] = json!("100");
    js["status"] = json!({"restarts": attempt, "conditions": [{"type": "Other", "status": "True"}]});
    js
}

/// Answers a restart conversation; `patch_status` decides the PATCH response.
async fn restart_server(
    api: ApiServer,
    patch_status: impl FnMut(usize) -> StatusCode,
    get_attempt: impl FnMut(usize) -> i64,
) -> Vec<Received> {
    restart_server_answering(api, patch_status, get_attempt, || restarted(1)).await
}

/// `restart_server`, with `patched` as the successful PATCH's answer.
async fn restart_server_answering(
    api: ApiServer,
    mut patch_status: impl FnMut(usize) -> StatusCode,
    mut get_attempt: impl FnMut(usize) -> i64,
    patched: impl Fn() -> Value,
) -> Vec<Received> {
    let (mut patches, mut gets) = (0, 0);
    api.serve(|request| {
        let path = request.path();
        if request.method == Method::PATCH {
            patches += 1;
            match patch_status(patches) {
                StatusCode::OK => Reply::ok(patched()),
                code => Reply::status(
                    code.as_u16(),
                    "Invalid",
                    "the server rejected our request due to an error in our request",
                ),
            }
        } else if path.ends_with("/selfsubjectreviews") {
            Reply::created(json!({"status": {"userInfo": {"username": "alice"}}}))
        } else if path.ends_with("/events") {
            Reply::created(request.body.clone())
        } else if path.ends_with("/jobsets/train") {
            gets += 1;
            Reply::ok(restarted(get_attempt(gets)))
        } else if path.ends_with("/jobs") {
            Reply::ok(list(vec![child_job("train", "ml", 0)], None))
        } else {
            Reply::ok(list(vec![], None))
        }
    })
    .await
}

/// The JobSet's one Job, of `attempt`, as the controller creates it.
fn child_job(jobset: &str, ns: &str, attempt: i64) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": format!("{jobset}-w-0"), "namespace": ns, "resourceVersion": "7",
            "labels": {"jobset.sigs.k8s.io/jobset-name": jobset, "jobset.sigs.k8s.io/replicatedjob-name": "w",
                "jobset.sigs.k8s.io/restart-attempt": attempt.to_string(), "jobset.sigs.k8s.io/job-index": "0"},
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": jobset,
                "uid": format!("uid-{jobset}"), "controller": true}]},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "app:v1"}]}}}})
}

#[tokio::test]
async fn restart_sends_one_guarded_json_patch_to_the_status_subresource() {
    let (cluster, api) = api_server::cluster("ml");
    let server = tokio::spawn(restart_server(api, |_| StatusCode::OK, |_| 0));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    kubectl_jobset::commands::restart::run(&cluster, &restart_plan("train"), &mut out, &mut err, None)
        .await
        .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "jobset.jobset.x-k8s.io/train restarted (attempt 0 → 1)\n");
    let seen = server.await.unwrap();
    let request = seen.iter().find(|r| r.method == Method::PATCH).unwrap();
    assert_eq!(
        (request.line().as_str(), request.content_type.as_str()),
        (
            "PATCH /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train/status?&fieldManager=kubectl-jobset",
            "application/json-patch+json"
        )
    );
    let patch = &request.body;
    let condition = &patch[2]["value"];
    assert_eq!(
        patch,
        &json!([
            {"op": "test", "path": "/status/restarts", "value": 0},
            {"op": "add", "path": "/status/restarts", "value": 1},
            {"op": "add", "path": "/status/conditions/-", "value": {"type": "RestartingJobSet", "status": "True",
                "reason": "ManualRestart", "message": "restart 1 requested by alice with kubectl-jobset: new image",
                "lastTransitionTime": condition["lastTransitionTime"]}}
        ])
    );
    let event = &seen
        .iter()
        .find(|r| r.line().starts_with("POST /apis/events.k8s.io/v1/namespaces/ml/events"))
        .expect("an Event")
        .body;
    assert_eq!(event["reason"], "ManualRestart");
    assert_eq!(event["action"], "Restart");
    assert_eq!(event["type"], "Normal");
    assert_eq!(event["reportingController"], "kubectl-jobset");
    assert_eq!(event["reportingInstance"], "kubectl-jobset");
    assert_eq!(
        event["regarding"],
        json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "namespace": "ml",
            "uid": jobset("train", "ml")["metadata"]["uid"]})
    );
    assert_eq!(event["note"], "restart (attempt 0 → 1) requested by alice with kubectl-jobset: new image");
}

#[tokio::test]
async fn a_lost_race_rereads_and_reports_already_restarted() {
    let (cluster, api) = api_server::cluster("ml");
    // The first GET sees attempt 0; the PATCH's test op fails (422); the re-read sees 1.
    let server = tokio::spawn(restart_server(
        api,
        |_| StatusCode::UNPROCESSABLE_ENTITY,
        |n| if n == 1 { 0 } else { 1 },
    ));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    kubectl_jobset::commands::restart::run(&cluster, &restart_plan("train"), &mut out, &mut err, None)
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "jobset.jobset.x-k8s.io/train already restarted (attempt 1)\n"
    );
    let seen = server.await.unwrap();
    let patches = seen.iter().filter(|r| r.method == Method::PATCH).count();
    assert_eq!(patches, 1, "no second restart: {seen:?}");
    assert!(!seen.iter().any(|r| r.uri.contains("/events")), "no Event for a restart we did not make");
}

#[tokio::test]
async fn an_unrelated_status_change_is_retried_on_the_fresh_object() {
    let (cluster, api) = api_server::cluster("ml");
    // The test op fails once because the controller wrote status, but the attempt is unchanged.
    let server = tokio::spawn(restart_server(
        api,
        |n| if n == 1 { StatusCode::CONFLICT } else { StatusCode::OK },
        |_| 0,
    ));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    kubectl_jobset::commands::restart::run(&cluster, &restart_plan("train"), &mut out, &mut err, None)
        .await
        .unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "jobset.jobset.x-k8s.io/train restarted (attempt 0 → 1)\n");
    let seen = server.await.unwrap();
    assert_eq!(seen.iter().filter(|r| r.method == Method::PATCH).count(), 2);
}

#[tokio::test]
async fn a_namespace_that_refuses_history_writes_does_not_stop_the_others() {
    use kubectl_jobset::commands::diff::{DiffFormat, DiffPlan, run as diff};
    let (cluster, api) = api_server::cluster("ml");
    let in_ns = |name: &str, ns: &str| {
        let mut js = jobset_running(name, "app:v1", &[]);
        js["metadata"]["namespace"] = json!(ns);
        js
    };
    let server = tokio::spawn(async move {
        let mut stored = Vec::<Value>::new();
        let seen = api
            .serve(|request| {
                let path = request.path();
                if request.method == Method::POST && path.contains("/namespaces/locked/") {
                    Reply::json(
                        StatusCode::FORBIDDEN,
                        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                        "reason": "Forbidden", "code": 403, "details": {"kind": "controllerrevisions", "group": "apps"},
                        "message": "controllerrevisions.apps is forbidden: User \"carol\" cannot create resource \"controllerrevisions\" in API group \"apps\" in the namespace \"locked\""}),
                    )
                } else if request.method == Method::POST {
                    stored.push(request.body.clone());
                    Reply::created(request.body.clone())
                } else if path.ends_with("/controllerrevisions") {
                    Reply::ok(list(stored.clone(), None))
                } else if path.ends_with("/jobsets") {
                    let jobsets = vec![
                        in_ns("a", "locked"),
                        in_ns("b", "locked"),
                        in_ns("c", "locked"),
                        in_ns("d", "open"),
                    ];
                    Reply::ok(list(jobsets, None))
                } else {
                    Reply::ok(list(vec![], None))
                }
            })
            .await;
        seen.iter().map(|r| format!("{} {}", r.method, r.path())).collect::<Vec<_>>()
    });
    let plan = DiffPlan {
        selection: Selection::new(&[], true, None, "ml").unwrap(),
        format: DiffFormat::Summary,
        color: false,
        external_diff: None,
        history_limit: 10,
        record: true,
        server_dry_run: false,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    diff(&cluster, &plan, &mut out, &mut err).await.unwrap();
    let seen = server.await.unwrap();
    let err = String::from_utf8(err).unwrap();
    assert_eq!(err.matches("warning: history not recorded (read-only)").count(), 1, "once: {err}");
    assert!(err.contains("\"locked\""), "names the namespace: {err}");
    let creates = |ns: &str| {
        seen.iter().filter(|r| r.starts_with(&format!("POST /apis/apps/v1/namespaces/{ns}/"))).count()
    };
    assert_eq!(creates("open"), 1, "the other namespace is still recorded: {seen:#?}");
    assert!((1..=3).contains(&creates("locked")), "{seen:#?}");
}

/// A torn read, staged exactly: the JobSet is read at attempt 0 (just before a restart),
/// its Jobs just after (attempt 1, on the edited template). `history` reads the JobSet
/// once more and credits attempt 1, never attempt 0, to the template those Jobs run.
#[tokio::test]
async fn a_torn_read_reads_the_jobset_again_and_credits_the_right_attempt() {
    use kubectl_jobset::commands::history::{HistoryPlan, run as history};
    let (cluster, api) = api_server::cluster("ml");
    let at_attempt = |restarts: i64| {
        let mut js = jobset("train", "ml");
        js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"] =
            json!("app:v2");
        js["status"]["restarts"] = json!(restarts);
        js
    };
    let mut job = child_job("train", "ml", 1);
    job["spec"]["template"]["spec"]["containers"][0]["image"] = json!("app:v2");
    let v1 = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": "train-v1", "namespace": "ml", "resourceVersion": "5",
            "labels": {"kubectl-jobset.io/jobset-name": "train"},
            "annotations": {"kubectl-jobset.io/format": "replicated-job-templates/v1",
                "kubectl-jobset.io/restart-attempts": "0"},
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "uid-train"}]},
        "data": {"replicatedJobs": [{"name": "w", "template": jobset("train", "ml")["spec"]["replicatedJobs"][0]["template"]}]},
        "revision": 1});
    let server = tokio::spawn(async move {
        let (mut jobset_gets, mut stored) = (0, vec![v1]);
        api.serve(|request| {
            let path = request.path();
            if path.ends_with("/jobsets/train") {
                jobset_gets += 1;
                Reply::ok(at_attempt(if jobset_gets == 1 { 0 } else { 1 }))
            } else if path.ends_with("/jobs") && request.method == Method::GET {
                Reply::ok(list(vec![job.clone()], None))
            } else if path.ends_with("/controllerrevisions") && request.method == Method::POST {
                let mut revision = request.body.clone();
                revision["metadata"]["resourceVersion"] = json!("9");
                stored.push(revision.clone());
                Reply::created(revision)
            } else if path.ends_with("/controllerrevisions") {
                Reply::ok(list(stored.clone(), None))
            } else if request.method == Method::POST {
                let mut created = request.body.clone();
                created["metadata"]["name"] = json!("kubectl-jobset-probe-x1");
                Reply::created(created)
            } else {
                Reply::json(
                    StatusCode::NOT_FOUND,
                    json!({"kind": "Status", "apiVersion": "v1",
                    "status": "Failure", "reason": "NotFound", "code": 404}),
                )
            }
        })
        .await;
        (jobset_gets, stored)
    });
    let plan = HistoryPlan {
        selection: Selection::new(&["train".to_owned()], false, None, "ml").unwrap(),
        revision: None,
        diff: None,
        format: Format::Json,
        printer: None,
        no_headers: false,
        color: false,
        history_limit: 10,
        record: true,
        watch: None,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    history(&cluster, &plan, &mut out, &mut err).await.unwrap();
    let (jobset_gets, stored) = server.await.unwrap();
    assert_eq!(jobset_gets, 2, "read once, and once again after the torn read");
    let annotations: Vec<&Value> = stored.iter().map(|r| &r["metadata"]["annotations"]).collect();
    assert_eq!(annotations[0]["kubectl-jobset.io/restart-attempts"], "0", "v1 keeps attempt 0 alone");
    assert_eq!(stored.len(), 2, "{annotations:?}");
    assert_eq!(
        annotations[1]["kubectl-jobset.io/restart-attempts"], "1",
        "v2 ran attempt 1: {annotations:?}"
    );
}

#[tokio::test]
async fn a_restart_that_lands_on_a_jobset_that_just_finished_is_not_reported_as_restarted() {
    let (cluster, api) = api_server::cluster("ml");
    // The JobSet completes between our read and our patch: the test op on the attempt
    // still passes, and the answer shows a finished JobSet the controller will not touch.
    let completed = || {
        let mut js = restarted(1);
        js["status"]["terminalState"] = json!("Completed");
        js["status"]["conditions"] = json!([{"type": "Completed", "status": "True"}]);
        js
    };
    let server = tokio::spawn(restart_server_answering(api, |_| StatusCode::OK, |_| 0, completed));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let error =
        kubectl_jobset::commands::restart::run(&cluster, &restart_plan("train"), &mut out, &mut err, None)
            .await
            .unwrap_err();
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains("restarted"), "{out}");
    let message = error.to_string();
    assert!(message.contains("completed just before the restart reached it"), "{message}");
    assert!(message.contains("no Job was restarted"), "{message}");
    let seen = server.await.unwrap();
    assert!(!seen.iter().any(|r| r.uri.contains("/events")), "no Event for a restart that did nothing");
}

/// `history NAME` of a JobSet that was deleted reads its kept revisions in the same
/// requests as for a live one (a GET that finds nothing, the Jobs and revisions by label,
/// the recorder's Lease), and writes nothing.
#[tokio::test]
async fn history_of_a_deleted_jobset_is_the_same_reads_and_no_write() {
    use kubectl_jobset::commands::history::{HistoryPlan, run};
    let (cluster, api) = api_server::cluster("ml");
    let kept = json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": "gone-abc", "namespace": "ml", "resourceVersion": "7",
            "labels": {"kubectl-jobset.io/jobset-name": "gone", "kubectl-jobset.io/jobset-uid": "uid-gone"},
            "annotations": {"kubectl-jobset.io/format": "replicated-job-templates/v1",
                "kubectl-jobset.io/restart-attempts": "0-1",
                "kubectl-jobset.io/jobset-deleted-at": "2026-12-01T10:00:00Z",
                "kubectl-jobset.io/prune-at": "2099-12-08T10:00:00Z"}},
        "data": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "app:v1"}]}}}}}]},
        "revision": 1});
    let server = tokio::spawn(serve(api, move |uri| {
        if uri.contains("/jobsets/gone") {
            Reply::json(
                StatusCode::NOT_FOUND,
                json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404,
                    "message": "jobsets.jobset.x-k8s.io \"gone\" not found",
                    "details": {"name": "gone", "group": "jobset.x-k8s.io", "kind": "jobsets"}}),
            )
        } else if uri.contains("/controllerrevisions") {
            Reply::ok(list(vec![kept.clone()], None))
        } else if uri.contains("/leases/") {
            Reply::status(404, "NotFound", "not found")
        } else {
            Reply::ok(list(vec![], None))
        }
    }));
    let plan = HistoryPlan {
        selection: Selection::new(&["gone".to_owned()], false, None, "ml").unwrap(),
        revision: None,
        diff: None,
        format: Format::Table,
        printer: None,
        no_headers: false,
        color: false,
        history_limit: 10,
        record: false,
        watch: None,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan, &mut out, &mut err).await.unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with("jobset.jobset.x-k8s.io/gone (deleted ") && out.contains("uid uid-gone"),
        "{out}\n{}",
        String::from_utf8_lossy(&err)
    );
    assert!(out.contains("0-1") && out.contains("w=app:v1"), "{out}");
    drop(cluster);
    assert_eq!(
        server.await.unwrap(),
        [
            "GET /apis/apps/v1/namespaces/ml/controllerrevisions?&labelSelector=kubectl-jobset.io%2Fjobset-name+in+%28gone%29&limit=500",
            "GET /apis/batch/v1/namespaces/ml/jobs?&labelSelector=jobset.sigs.k8s.io%2Fjobset-name+in+%28gone%29&limit=500",
            GET_RECORDER_LEASE,
            "GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/gone",
        ]
    );
}

/// The recorder's probe for streamed initial lists: one watch of JobSets that matches
/// none, with sendInitialEvents; a server that refuses it (WatchList off, 422) means
/// listing in pages.
#[tokio::test]
async fn the_recorder_probes_once_for_streamed_initial_lists_and_falls_back_on_refusal() {
    const PROBE: &str = "GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?&watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dkubectl-jobset.io-probe&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0";
    for (reply, streamed) in [
        (Reply::ok(json!({"type": "BOOKMARK", "object": {}})), true),
        (
            Reply::status(
                422,
                "Invalid",
                "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            ),
            false,
        ),
    ] {
        let (cluster, api) = api_server::cluster("ml");
        let mut reply = Some(reply);
        let server = tokio::spawn(serve(api, move |_| reply.take().expect("one request")));
        assert_eq!(
            kubectl_jobset::cluster::watch::streams_initial_events(&cluster, Some("ml")).await,
            streamed
        );
        drop(cluster);
        assert_eq!(server.await.unwrap(), [PROBE]);
    }
}
