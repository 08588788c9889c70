//! HTTP-level tests of `--handover` (issue 17): the exact shape of the orphaning delete,
//! and the Kueue check (a Workload owned by the JobSet refuses the handover; without
//! the Kueue API no Workload is asked for). The e2e suites prove behaviour.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{Request, Response, StatusCode};
use http_body_util::BodyExt;
use kube::Client;
use kube::client::Body;
use kubectl_jobset::cluster::Cluster;
use kubectl_jobset::cluster::request_log::RequestLog;
use kubectl_jobset::execute::handover::{self, HandoverOptions};
use kubectl_jobset::model::jobset::JobSet;
use serde_json::{Value, json};

type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

fn mock_cluster() -> (Cluster, Handle) {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let log = Arc::new(RequestLog::quiet());
    (Cluster::from_client(Client::new(service, "ml"), "ml", log), handle)
}

/// Serves requests with `answer(method, uri, body)`; records `METHOD uri` of each.
async fn serve(
    mut handle: Handle,
    seen: Arc<Mutex<Vec<(String, Value)>>>,
    answer: impl Fn(&str, &str) -> (StatusCode, Value),
) {
    while let Ok(Some((request, send))) =
        tokio::time::timeout(Duration::from_millis(500), handle.next_request()).await
    {
        let (method, uri) = (request.method().to_string(), request.uri().to_string());
        let bytes = request.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        seen.lock().unwrap().push((format!("{method} {uri}"), body));
        let (status, reply) = answer(&method, &uri);
        let response =
            Response::builder().status(status).body(Body::from(serde_json::to_vec(&reply).unwrap())).unwrap();
        send.send_response(response);
    }
}

fn not_found() -> (StatusCode, Value) {
    (
        StatusCode::NOT_FOUND,
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404, "reason": "NotFound",
            "message": "not found", "details": {"name": "x", "kind": "configmaps"}}),
    )
}

fn jobset() -> JobSet {
    JobSet::from_raw(json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "ml", "uid": "old-uid", "resourceVersion": "7"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {}}}]},
        "status": {"restarts": 0}}))
    .unwrap()
}

#[tokio::test]
async fn the_delete_orphans_and_is_preconditioned_on_uid_and_resource_version() {
    let (cluster, handle) = mock_cluster();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = tokio::spawn(serve(handle, seen.clone(), |_, _| {
        (StatusCode::OK, json!({"kind": "Status", "status": "Success"}))
    }));
    cluster.delete_jobset_orphaning("ml", "train", "old-uid", "7").await.unwrap();
    server.await.unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, "DELETE /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train?");
    assert_eq!(
        seen[0].1,
        json!({"propagationPolicy": "Orphan", "preconditions": {"uid": "old-uid", "resourceVersion": "7"}})
    );
}

/// The cluster as the Kueue check sees it: `kueue` serves the Kueue API; every access
/// review allows; the workload list holds one owned by `owner`.
fn kueue_cluster(kueue: bool, owner: &'static str) -> impl Fn(&str, &str) -> (StatusCode, Value) {
    move |_, uri| {
        if uri.starts_with("/apis?") || uri == "/apis" {
            let groups = if kueue {
                json!([{"name": "kueue.x-k8s.io", "versions": [{"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"}],
                    "preferredVersion": {"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"}}])
            } else {
                json!([])
            };
            (StatusCode::OK, json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
        } else if uri.contains("selfsubjectaccessreviews") {
            (
                StatusCode::CREATED,
                json!({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                "spec": {}, "status": {"allowed": true}}),
            )
        } else if uri.contains("/workloads") {
            (
                StatusCode::OK,
                json!({"kind": "WorkloadList", "apiVersion": "kueue.x-k8s.io/v1beta1", "metadata": {},
                "items": [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                    "metadata": {"name": "jobset-train-1a2b", "namespace": "ml",
                        "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": owner}]}}]}),
            )
        } else if uri.contains("/configmaps/") {
            not_found()
        } else {
            (StatusCode::OK, json!({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": []}))
        }
    }
}

#[tokio::test]
async fn a_workload_owned_by_the_jobset_refuses_the_handover_before_any_write() {
    let (cluster, handle) = mock_cluster();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = tokio::spawn(serve(handle, seen.clone(), kueue_cluster(true, "old-uid")));
    let options = HandoverOptions::new("kubectl jobset rollback train --handover".into(), false);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let error = handover::run(&cluster, &jobset(), &vec![], &options, &mut out, &mut err).await.unwrap_err();
    server.await.unwrap();
    let text = error.to_string();
    assert!(text.contains("admitted by Kueue (workload jobset-train-1a2b is owned by it)"), "{text}");
    let seen = seen.lock().unwrap();
    let requests: Vec<&str> = seen.iter().map(|(r, _)| r.as_str()).collect();
    assert!(
        requests.iter().any(|r| r.starts_with("GET /apis/kueue.x-k8s.io/v1beta1/namespaces/ml/workloads")),
        "{requests:?}"
    );
    // The access reviews ask for Workloads too, in the JobSet's namespace.
    assert!(seen.iter().any(|(_, body)| body["spec"]["resourceAttributes"]
        == json!({"namespace": "ml", "verb": "list", "group": "kueue.x-k8s.io", "resource": "workloads"})));
    let writes: Vec<&&str> = requests
        .iter()
        .filter(|r| !r.starts_with("GET") && !r.contains("selfsubjectaccessreviews"))
        .collect();
    assert!(writes.is_empty(), "nothing changed: {writes:?}");
}

#[tokio::test]
async fn without_the_kueue_api_no_workload_is_asked_for() {
    let (cluster, handle) = mock_cluster();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = tokio::spawn(serve(handle, seen.clone(), kueue_cluster(false, "old-uid")));
    let options = HandoverOptions::new("kubectl jobset rollback train --handover".into(), true);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = handover::run(&cluster, &jobset(), &vec![], &options, &mut out, &mut err).await.unwrap();
    server.await.unwrap();
    assert_eq!(outcome, handover::Outcome::DryRun);
    let seen = seen.lock().unwrap();
    assert!(!seen.iter().any(|(r, _)| r.contains("workloads")), "{seen:?}");
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("2. delete jobset.jobset.x-k8s.io/train with propagationPolicy=Orphan")
    );
}
