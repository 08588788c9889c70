//! HTTP-level tests of `--handover` (issue 17): the exact shape of the orphaning delete,
//! and the Kueue check (a Workload owned by the JobSet refuses the handover; without
//! the Kueue API no Workload is asked for), against the mock API server
//! (tests/support/api_server.rs). The e2e suites prove behaviour.

#[path = "support/api_server.rs"]
mod api_server;

use std::time::Duration;

use api_server::{Received, Reply};
use http::StatusCode;
use kubectl_jobset::cluster::Cluster;
use kubectl_jobset::execute::handover::{self, HandoverOptions};
use kubectl_jobset::model::jobset::JobSet;
use serde_json::json;

/// A `Cluster` in `ml` on the mock API server, which answers with `answer` and returns
/// what it received.
fn mock_cluster(
    answer: impl FnMut(&Received) -> Reply + Send + 'static,
) -> (Cluster, tokio::task::JoinHandle<Vec<Received>>) {
    let (cluster, api) = api_server::cluster("ml");
    (cluster, tokio::spawn(api.idle(Duration::from_millis(500)).serve(answer)))
}

fn not_found() -> Reply {
    Reply::json(
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
    let (cluster, server) = mock_cluster(|_| Reply::ok(json!({"kind": "Status", "status": "Success"})));
    cluster.delete_jobset_orphaning("ml", "train", "old-uid", "7").await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen[0].line(), "DELETE /apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train?");
    assert_eq!(
        seen[0].body,
        json!({"propagationPolicy": "Orphan", "preconditions": {"uid": "old-uid", "resourceVersion": "7"}})
    );
}

/// The cluster as the Kueue check sees it: `kueue` serves the Kueue API; every access
/// review allows; the workload list holds one owned by `owner`.
fn kueue_cluster(kueue: bool, owner: &'static str) -> impl FnMut(&Received) -> Reply + Send + 'static {
    move |request| {
        let uri = request.uri.as_str();
        if uri.starts_with("/apis?") || uri == "/apis" {
            let groups = if kueue {
                json!([{"name": "kueue.x-k8s.io", "versions": [{"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"}],
                    "preferredVersion": {"groupVersion": "kueue.x-k8s.io/v1beta1", "version": "v1beta1"}}])
            } else {
                json!([])
            };
            Reply::ok(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
        } else if uri.contains("selfsubjectaccessreviews") {
            Reply::created(json!({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                "spec": {}, "status": {"allowed": true}}))
        } else if uri.contains("/workloads") {
            Reply::ok(json!({"kind": "WorkloadList", "apiVersion": "kueue.x-k8s.io/v1beta1", "metadata": {},
                "items": [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
                    "metadata": {"name": "jobset-train-1a2b", "namespace": "ml",
                        "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": owner}]}}]}))
        } else if uri.contains("/configmaps/") {
            not_found()
        } else {
            Reply::ok(json!({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": []}))
        }
    }
}

#[tokio::test]
async fn a_workload_owned_by_the_jobset_refuses_the_handover_before_any_write() {
    let (cluster, server) = mock_cluster(kueue_cluster(true, "old-uid"));
    let options = HandoverOptions::new("kubectl jobset rollback train --handover".into(), false);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let error = handover::run(&cluster, &jobset(), &vec![], &options, &mut out, &mut err).await.unwrap_err();
    let seen = server.await.unwrap();
    let text = error.to_string();
    assert!(text.contains("admitted by Kueue (workload jobset-train-1a2b is owned by it)"), "{text}");
    let requests: Vec<String> = seen.iter().map(Received::line).collect();
    assert!(
        requests.iter().any(|r| r.starts_with("GET /apis/kueue.x-k8s.io/v1beta1/namespaces/ml/workloads")),
        "{requests:?}"
    );
    // The access reviews ask for Workloads too, in the JobSet's namespace.
    assert!(seen.iter().any(|r| r.body["spec"]["resourceAttributes"]
        == json!({"namespace": "ml", "verb": "list", "group": "kueue.x-k8s.io", "resource": "workloads"})));
    let writes: Vec<&String> = requests
        .iter()
        .filter(|r| !r.starts_with("GET") && !r.contains("selfsubjectaccessreviews"))
        .collect();
    assert!(writes.is_empty(), "nothing changed: {writes:?}");
}

#[tokio::test]
async fn without_the_kueue_api_no_workload_is_asked_for() {
    let (cluster, server) = mock_cluster(kueue_cluster(false, "old-uid"));
    let options = HandoverOptions::new("kubectl jobset rollback train --handover".into(), true);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = handover::run(&cluster, &jobset(), &vec![], &options, &mut out, &mut err).await.unwrap();
    let seen = server.await.unwrap();
    assert_eq!(outcome, handover::Outcome::DryRun);
    assert!(!seen.iter().any(|r| r.uri.contains("workloads")), "{seen:?}");
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains("2. delete jobset.jobset.x-k8s.io/train with propagationPolicy=Orphan")
    );
}
