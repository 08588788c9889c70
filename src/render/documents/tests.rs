use serde::de::DeserializeOwned;
use serde_json::json;

use super::*;

/// Renders `doc` as `-o json` and `-o yaml` do, and parses both back.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &T) {
    let mut json_out = Vec::new();
    crate::render::write_json(&mut json_out, doc).unwrap();
    assert_eq!(&serde_json::from_slice::<T>(&json_out).unwrap(), doc, "JSON");
    let mut yaml_out = Vec::new();
    crate::render::write_yaml(&mut yaml_out, doc).unwrap();
    let yaml = String::from_utf8(yaml_out).unwrap();
    assert_eq!(&serde_saphyr::from_str::<T>(&yaml).unwrap(), doc, "YAML:\n{yaml}");
}

fn change() -> Change {
    Change {
        path: "spec.template.spec.containers[main].image".into(),
        old: Some(json!("app:v1")),
        new: Some(json!("app:v2")),
    }
}

#[test]
fn diff_document_round_trips() {
    let doc = DiffDocument {
        kind: DiffDocument::KIND.into(),
        api_version: API_VERSION.into(),
        jobsets: vec![JobSetDiff {
            spec_revision: None,
            namespace: "ml".into(),
            name: "train".into(),
            attempt: 2,
            state: State::Compared,
            drift: true,
            outdated_jobs: 1,
            total_jobs: 2,
            replicated_jobs: vec![ReplicatedJobDiff {
                name: "workers".into(),
                replicas: 2,
                jobs: vec!["train-workers-0".into(), "train-workers-1".into()],
                outdated: vec![OutdatedJobs {
                    jobs: vec!["train-workers-0".into()],
                    changes: vec![change()],
                }],
                scale: vec![ScaleDiff {
                    field: "parallelism".into(),
                    jobs: vec!["train-workers-1".into()],
                    live: Some(4),
                    spec: None,
                }],
                not_created: vec![],
                beyond_replicas: vec!["train-workers-2".into()],
                in_spec: true,
            }],
            previous_attempt_jobs: vec![],
            unlabelled_jobs: vec!["handmade".into()],
            mixed_templates: vec![],
            managed_by: None,
            error: None,
            kueue: Some(crate::model::kueue::Kueue {
                queue: Some("lq".into()),
                standing: crate::model::kueue::Standing::Admitted,
                workload: Some(crate::model::kueue::Workload {
                    name: "jobset-train-1a2b3".into(),
                    namespace: String::new(),
                    owner_uid: None,
                    cluster_queue: Some("cluster-queue".into()),
                    admitted: true,
                    waiting: None,
                    deleting: false,
                    pod_sets: vec![],
                }),
            }),
            quota_mismatches: vec![crate::model::kueue::QuotaMismatch {
                replicated_job: "workers".into(),
                container: "main".into(),
                resource: "cpu".into(),
                reserved: Some("2".into()),
                requested: Some("1".into()),
            }],
            staged: None,
        }],
    };
    round_trip(&doc);
    let value = serde_json::to_value(&doc).unwrap();
    assert_eq!(value["apiVersion"], "kubectl-jobset/v1");
    assert_eq!(value["jobsets"][0]["replicatedJobs"][0]["scale"][0]["spec"], json!(null));
    assert_eq!(
        value["jobsets"][0]["kueue"],
        json!({"queue": "lq", "standing": "Admitted",
               "workload": {"name": "jobset-train-1a2b3", "clusterQueue": "cluster-queue", "admitted": true}})
    );
    assert_eq!(value["jobsets"][0]["quotaMismatches"][0]["reserved"], "2");
}

fn revision(templates: bool) -> RevisionDocument {
    RevisionDocument {
        revision: 3,
        name: "train-5d8c9a7f01".into(),
        hash: "5d8c9a7f01".into(),
        spec: true,
        running: false,
        restart_attempts: [0, 1, 2].into(),
        change_cause: Some("rollback to revision 1".into()),
        recorded_at: None,
        source: "spec".into(),
        unrecorded: false,
        images: vec![ReplicatedJobImages { replicated_job: "workers".into(), images: vec!["app:v1".into()] }],
        replicated_jobs: templates.then(|| {
            vec![ReplicatedJobTemplate {
                name: "workers".into(),
                template: json!({"spec": {"parallelism": 2}}),
            }]
        }),
    }
}

#[test]
fn history_documents_round_trip() {
    let doc = HistoryDocument {
        kind: HistoryDocument::KIND.into(),
        api_version: API_VERSION.into(),
        namespace: "ml".into(),
        name: "train".into(),
        attempt: 3,
        spec_revision: Some(3),
        running_revision: None,
        unobserved_attempts: [3].into(),
        revisions: vec![revision(false)],
        deleted: None,
    };
    round_trip(&doc);
    let value = serde_json::to_value(&doc).unwrap();
    assert!(value["revisions"][0].get("replicatedJobs").is_none(), "templates only with --revision");
    assert!(value.get("deleted").is_none(), "only for a deleted JobSet");
    round_trip(&revision(true));
    let deleted = DeletedDocument {
        uid: "u1".into(),
        deleted_at: Some("2026-12-02T07:00:00Z".into()),
        prune_at: Some("2026-12-09T07:00:00Z".into()),
        owned: false,
    };
    let doc = HistoryDocument { deleted: Some(deleted), ..doc };
    round_trip(&doc);
    let value = serde_json::to_value(&doc).unwrap();
    assert_eq!(value["deleted"]["deletedAt"], "2026-12-02T07:00:00Z");
}

#[test]
fn revision_diff_document_round_trips() {
    round_trip(&RevisionDiffDocument {
        kind: RevisionDiffDocument::KIND.into(),
        api_version: API_VERSION.into(),
        namespace: "ml".into(),
        name: "train".into(),
        from: 1,
        to: 2,
        replicated_jobs: vec![ReplicatedJobChanges {
            name: "workers".into(),
            summary: vec!["workers: image app:v1 → app:v2 (container main)".into()],
            changes: vec![
                change(),
                Change { path: "spec.backoffLimit".into(), old: Some(json!(6)), new: None },
            ],
        }],
    });
}
