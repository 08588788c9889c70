//! HTTP-level tests of `set update-strategy`: the one guarded JSON patch it sends, and the
//! re-read (not a second patch) after its guard fails.

#[path = "support/api_server.rs"]
mod api_server;

use api_server::{Reply, Scenario, Step};
use kubectl_jobset::commands::set_update_strategy::{SetUpdateStrategyPlan, run};
use kubectl_jobset::execute::DryRun;
use kubectl_jobset::model::strategy::UpdateStrategy;
use kubectl_jobset::select::Selection;
use serde_json::{Value, json};

const JOBSET: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train";
const PATCH: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train?&fieldManager=kubectl-jobset";

fn jobset(strategy: Option<&str>, rv: &str) -> Value {
    let mut js = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "ml", "uid": "uid-train", "resourceVersion": rv},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {}}}]},
        "status": {"restarts": 0}});
    if let Some(s) = strategy {
        js["metadata"]["annotations"] = json!({"kubectl-jobset.io/update-strategy": s});
    }
    js
}

fn plan(strategy: UpdateStrategy) -> SetUpdateStrategyPlan {
    SetUpdateStrategyPlan {
        selection: Selection::new(&["train".to_owned()], false, None, "ml").unwrap(),
        strategy,
        dry_run: DryRun::None,
    }
}

#[tokio::test]
async fn one_patch_guarded_by_the_value_read() {
    let (cluster, api) = api_server::cluster("ml");
    let patch = Step::patch(PATCH).content_type("application/json-patch+json").body(json!([
        {"op": "test", "path": "/metadata/annotations/kubectl-jobset.io~1update-strategy", "value": "Never"},
        {"op": "replace", "path": "/metadata/annotations/kubectl-jobset.io~1update-strategy", "value": "Immediate"},
    ]));
    let scenario = Scenario::new()
        .then(Step::get(JOBSET).reply(Reply::ok(jobset(Some("Never"), "5"))))
        .then(patch.reply(Reply::ok(jobset(Some("Immediate"), "6"))));
    let server = tokio::spawn(api.verify(scenario));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan(UpdateStrategy::Immediate), &mut out, &mut err).await.unwrap();
    server.await.unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with("jobset.jobset.x-k8s.io/train update strategy set to Immediate (was Never): "),
        "{out}"
    );
}

#[tokio::test]
async fn a_failed_guard_is_read_again_and_someone_elses_same_value_is_not_written_twice() {
    let (cluster, api) = api_server::cluster("ml");
    let patch = Step::patch(PATCH).content_type("application/json-patch+json").body(json!([
        {"op": "test", "path": "/metadata/resourceVersion", "value": "5"},
        {"op": "add", "path": "/metadata/annotations", "value": {"kubectl-jobset.io/update-strategy": "Opportunistic"}},
    ]));
    let refused =
        Reply::status(422, "Invalid", "the server rejected our request due to an error in our request");
    let scenario = Scenario::new()
        .then(Step::get(JOBSET).reply(Reply::ok(jobset(None, "5"))))
        .then(patch.reply(refused))
        .then(Step::get(JOBSET).reply(Reply::ok(jobset(Some("Opportunistic"), "6"))));
    let server = tokio::spawn(api.verify(scenario));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan(UpdateStrategy::Opportunistic), &mut out, &mut err).await.unwrap();
    server.await.unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("update strategy set to Opportunistic (was unset)"), "{out}");
}
