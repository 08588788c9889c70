use super::*;
use crate::testing;
use serde_json::json;

fn jobset(extra_meta: Value, extra_spec: Value, status: Value) -> JobSet {
    let mut object = json!({
        "apiVersion": API_VERSION, "kind": KIND,
        "metadata": {"name": "train", "namespace": "ml", "uid": "old", "resourceVersion": "7",
            "generation": 3, "creationTimestamp": "2026-01-01T00:00:00Z",
            "labels": {"team": "a"}, "annotations": {"note": "keep"},
            "managedFields": [{"manager": "kubectl"}], "finalizers": ["orphan", "example.com/keep"]},
        "spec": {"replicatedJobs": [
            {"name": "workers", "replicas": 2, "template": {"spec": {"template": {"spec": {"containers": [{"image": "v1"}]}}}}},
            {"name": "driver", "replicas": 1, "template": {"spec": {"template": {"spec": {"containers": [{"image": "d1"}]}}}}}],
            "failurePolicy": {"maxRestarts": 3}, "suspend": false, "futureField": {"x": 1}},
        "status": status,
    });
    for (k, v) in extra_meta.as_object().unwrap() {
        object["metadata"][k] = v.clone();
    }
    for (k, v) in extra_spec.as_object().unwrap() {
        object["spec"][k] = v.clone();
    }
    JobSet::from_raw(object).unwrap()
}

fn plain() -> JobSet {
    jobset(json!({}), json!({}), json!({"restarts": 2}))
}

fn job(name: &str, attempt: i32, deleting: bool) -> ChildJob {
    let job = testing::job(name).attempt(attempt);
    let job = if deleting { job.meta("deletionTimestamp", "2026-01-01T00:00:00Z") } else { job };
    job.spec(json!({})).build()
}

fn new_templates() -> Templates {
    vec![("workers".into(), json!({"spec": {"template": {"spec": {"containers": [{"image": "v2"}]}}}}))]
}

#[test]
fn steps_have_stable_names() {
    for step in Step::ALL {
        assert_eq!(Step::parse(step.name()), Some(step));
    }
    assert_eq!(Step::parse("nope"), None);
}

#[test]
fn a_plain_running_jobset_is_not_refused() {
    assert_eq!(refusal(&plain(), &[job("train-workers-0", 2, false)], None), None);
    let ours = jobset(json!({}), json!({"managedBy": JOBSET_CONTROLLER}), json!({}));
    assert_eq!(refusal(&ours, &[], None), None);
}

#[test]
fn a_queued_jobset_under_kueue_may_be_handed_over_and_is_told_it_queues_again() {
    let queued = jobset(json!({"labels": {KUEUE_QUEUE_LABEL: "q"}}), json!({"suspend": true}), json!({}));
    assert_eq!(refusal(&queued, &[], Some("jobset-train-1a2b")), None);
    let note = queued_note(&queued, Some("jobset-train-1a2b")).unwrap();
    assert!(note.contains("queues again") && note.contains("jobset-train-1a2b"), "{note}");
    assert_eq!(queued_note(&plain(), None), None);
}

#[test]
fn refusals_name_their_reason() {
    let cases = [
        (
            jobset(json!({}), json!({"managedBy": "kueue.x-k8s.io/multikueue"}), json!({})),
            None,
            "spec.managedBy",
        ),
        (
            jobset(json!({"labels": {KUEUE_QUEUE_LABEL: "q"}}), json!({}), json!({})),
            None,
            "kueue.x-k8s.io/queue-name=q",
        ),
        (plain(), Some("jobset-train-1a2b"), "workload jobset-train-1a2b is owned by it"),
        (
            jobset(json!({}), json!({}), json!({"conditions": [{"type": "Completed", "status": "True"}]})),
            None,
            "finished (Completed)",
        ),
        (jobset(json!({}), json!({}), json!({"terminalState": "Failed"})), None, "finished (Failed)"),
        (
            jobset(json!({"deletionTimestamp": "2026-01-01T00:00:00Z"}), json!({}), json!({})),
            None,
            "being deleted",
        ),
    ];
    for (js, workload, want) in cases {
        let why = refusal(&js, &[], workload).expect(want);
        assert!(why.contains(want), "{why}");
    }
}

#[test]
fn a_restart_in_progress_is_refused_with_the_earlier_jobs() {
    let jobs =
        [job("train-workers-0", 2, false), job("train-workers-1", 1, false), job("train-driver-0", 2, true)];
    let why = refusal(&plain(), &jobs, None).unwrap();
    assert!(why.contains("restart is in progress"), "{why}");
    assert!(why.contains("train-workers-1, train-driver-0"), "{why}");
}

#[test]
fn permissions_cover_every_step_and_only_what_applies() {
    let base: Vec<String> = needed_permissions(false, false).iter().map(ToString::to_string).collect();
    for want in [
        "delete jobsets.jobset.x-k8s.io",
        "create jobsets.jobset.x-k8s.io",
        "patch jobsets.jobset.x-k8s.io/status",
        "patch jobs.batch",
        "patch controllerrevisions.apps",
        "create configmaps",
        "delete configmaps",
    ] {
        assert!(base.iter().any(|p| p == want), "{want} in {base:?}");
    }
    assert!(!base.iter().any(|p| p.contains("services") || p.contains("workloads")));
    let all: Vec<String> = needed_permissions(true, true).iter().map(ToString::to_string).collect();
    assert!(all.contains(&"patch services".to_owned()));
    assert!(all.contains(&"list workloads.kueue.x-k8s.io".to_owned()));
}

#[test]
fn headless_service_follows_the_controllers_naming() {
    assert_eq!(headless_service(&plain()), None);
    let dns = jobset(json!({}), json!({"network": {"enableDNSHostnames": true}}), json!({}));
    assert_eq!(headless_service(&dns).as_deref(), Some("train"));
    let sub =
        jobset(json!({}), json!({"network": {"enableDNSHostnames": true, "subdomain": "net"}}), json!({}));
    assert_eq!(headless_service(&sub).as_deref(), Some("net"));
    let off =
        jobset(json!({}), json!({"network": {"enableDNSHostnames": false, "subdomain": "net"}}), json!({}));
    assert_eq!(headless_service(&off), None);
}

#[test]
fn the_new_object_keeps_everything_but_the_changed_templates_and_server_fields() {
    let old = plain().object();
    let new = new_object(&old, &new_templates());
    assert_eq!(
        new["metadata"],
        json!({"name": "train", "namespace": "ml", "labels": {"team": "a"},
            "annotations": {"note": "keep", FROM_UID_ANNOTATION: "old"}, "finalizers": ["example.com/keep"]})
    );
    assert_eq!(new.get("status"), None);
    assert_eq!(new["spec"]["replicatedJobs"][0]["template"], new_templates()[0].1);
    assert_eq!(new["spec"]["replicatedJobs"][1], old["spec"]["replicatedJobs"][1]);
    for key in ["failurePolicy", "suspend", "futureField"] {
        assert_eq!(new["spec"][key], old["spec"][key], "{key}");
    }
    assert_eq!(new["apiVersion"], API_VERSION);
    assert_eq!(changed_templates(&old, &new_templates()), vec!["workers".to_owned()]);
    assert!(
        changed_templates(
            &old,
            &vec![("workers".into(), old["spec"]["replicatedJobs"][0]["template"].clone())]
        )
        .is_empty()
    );
}

#[test]
fn owner_references_match_what_the_controller_sets() {
    assert_eq!(
        owner_reference("train", "new", true),
        json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "new",
            "controller": true, "blockOwnerDeletion": true})
    );
    assert_eq!(owner_reference("train", "new", false).get("controller"), None);
}

#[test]
fn an_orphaned_object_is_adopted_guarded_by_its_resource_version() {
    let owner = owner_reference("train", "new", true);
    let meta = json!({"uid": "j1", "resourceVersion": "55"});
    let Adoption::Patch(patch) = adoption(&meta, "old", &owner) else { panic!() };
    assert_eq!(
        serde_json::to_value(&patch).unwrap(),
        json!([
            {"op": "test", "path": "/metadata/uid", "value": "j1"},
            {"op": "test", "path": "/metadata/resourceVersion", "value": "55"},
            {"op": "add", "path": "/metadata/ownerReferences", "value": [owner]},
        ])
    );
}

#[test]
fn an_object_still_referencing_the_old_owner_is_guarded_by_its_references() {
    let owner = owner_reference("train", "new", true);
    let old_ref = owner_reference("train", "old", true);
    let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "c"});
    let meta = json!({"uid": "j1", "resourceVersion": "55", "ownerReferences": [other, old_ref]});
    let Adoption::Patch(patch) = adoption(&meta, "old", &owner) else { panic!() };
    assert_eq!(
        serde_json::to_value(&patch).unwrap(),
        json!([
            {"op": "test", "path": "/metadata/uid", "value": "j1"},
            {"op": "test", "path": "/metadata/ownerReferences", "value": [other, old_ref]},
            {"op": "add", "path": "/metadata/ownerReferences", "value": [other, owner]},
        ])
    );
}

#[test]
fn adopted_and_foreign_objects_are_not_patched() {
    let owner = owner_reference("train", "new", true);
    let meta = json!({"uid": "j1", "ownerReferences": [owner]});
    assert_eq!(adoption(&meta, "old", &owner), Adoption::Done);
    let foreign = json!({"uid": "j1", "ownerReferences": [owner_reference("other", "x", true)]});
    let Adoption::Foreign(why) = adoption(&foreign, "old", &owner) else { panic!() };
    assert!(why.contains("JobSet other (uid x)"), "{why}");
    // A plain (non-controller) reference is added beside another controller's.
    let revision_owner = owner_reference("train", "new", false);
    assert!(matches!(adoption(&foreign, "old", &revision_owner), Adoption::Patch(_)));
}

#[test]
fn restore_puts_back_every_restart_counter() {
    let old = json!({"restarts": 3, "restartsCountTowardsMax": 2, "replicatedJobsStatus": [
        {"name": "workers", "ready": 2, "jobRestarts": [1, 0]}, {"name": "driver", "ready": 1}]});
    let new = json!({"metadata": {"uid": "new", "resourceVersion": "9"},
        "status": {"restarts": 0, "replicatedJobsStatus": [{"name": "driver", "ready": 0}, {"name": "workers", "ready": 0}]}});
    let patch = restore_status(&old, &new).unwrap();
    assert_eq!(
        serde_json::to_value(&patch).unwrap(),
        json!([
            {"op": "test", "path": "/metadata/uid", "value": "new"},
            {"op": "test", "path": "/metadata/resourceVersion", "value": "9"},
            {"op": "add", "path": "/status/restarts", "value": 3},
            {"op": "add", "path": "/status/restartsCountTowardsMax", "value": 2},
            {"op": "add", "path": "/status/replicatedJobsStatus/1/jobRestarts", "value": [1, 0]},
        ])
    );
    let mut restored = new.clone();
    json_patch::patch(&mut restored, &patch).unwrap();
    assert_eq!(restore_status(&old, &restored), None, "idempotent");
}

#[test]
fn restore_onto_a_status_not_written_yet_sends_it_whole() {
    let old = json!({"restarts": 1, "replicatedJobsStatus": [{"name": "workers", "jobRestarts": [2]}]});
    let new = json!({"metadata": {"uid": "new", "resourceVersion": "9"}});
    let patch = restore_status(&old, &new).unwrap();
    let mut restored = new.clone();
    json_patch::patch(&mut restored, &patch).unwrap();
    assert_eq!(
        restored["status"],
        json!({"restarts": 1, "replicatedJobsStatus": [{"name": "workers", "jobRestarts": [2]}]})
    );
    assert_eq!(restore_status(&old, &restored), None);
    assert_eq!(restore_status(&json!({"restarts": 0}), &json!({"status": {"restarts": 0}})), None);
}

#[test]
fn the_stage_is_judged_from_what_holds_the_name() {
    assert_eq!(stage("old", Some(("old", None, false))), Stage::Delete);
    assert_eq!(stage("old", Some(("old", None, true))), Stage::WaitGone);
    assert_eq!(stage("old", None), Stage::Create);
    assert_eq!(stage("old", Some(("new", Some("old"), false))), Stage::Adopt("new".into()));
    assert_eq!(stage("old", Some(("new", None, false))), Stage::Foreign("new".into()));
    assert_eq!(stage("old", Some(("new", Some("older"), false))), Stage::Foreign("new".into()));
}

#[test]
fn only_spec_labels_and_annotations_changes_matter_after_the_journal() {
    let journaled = plain().object();
    let mut live = journaled.clone();
    live["status"]["restarts"] = json!(5);
    live["metadata"]["resourceVersion"] = json!("99");
    assert_eq!(changed_since_journal(&journaled, &live), None);
    live["spec"]["suspend"] = json!(true);
    assert_eq!(changed_since_journal(&journaled, &live), Some("spec"));
    let mut live = journaled.clone();
    live["metadata"]["labels"]["x"] = json!("y");
    assert_eq!(changed_since_journal(&journaled, &live), Some("labels"));
}
