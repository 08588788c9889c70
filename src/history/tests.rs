use super::*;
use crate::testing::{self, pod_template};
use json_patch::{AddOperation, PatchOperation, ReplaceOperation};

fn jobset(image: &str, restarts: i32) -> JobSet {
    testing::jobset("js")
        .namespace("ml")
        .uid("u1")
        .replicated_job("w", 2, pod_template(image))
        .restarts(restarts)
        .build()
}

fn observe(js: &JobSet, running: Running) -> Observation<'_> {
    Observation {
        jobset: js,
        spec: SpecSums::of(js),
        running,
        change_cause: None,
        history_limit: 10,
        now: "2026-11-30T12:00:00Z".into(),
        foreign: vec![],
        retain: false,
    }
}

/// Plans writes for an observation and applies them.
fn record(store: &mut Vec<Revision>, observation: &Observation) {
    let writes = plan_writes(observation, store);
    apply(store, &writes);
}

/// Applies planned writes to an in-memory store, as the API server would.
fn apply(store: &mut Vec<Revision>, writes: &[Write]) {
    for w in writes {
        match w {
            Write::Create(object) => {
                let mut r = parse(object, "u1").unwrap();
                r.resource_version = format!("rv{}", store.len() + 1);
                store.push(r);
            }
            Write::Patch { name, ops } => {
                let r = store.iter_mut().find(|r| &r.name == name).unwrap();
                for op in ops.iter() {
                    let (path, value) = match op {
                        PatchOperation::Test(_) => continue,
                        PatchOperation::Add(AddOperation { path, value })
                        | PatchOperation::Replace(ReplaceOperation { path, value }) => (path, value),
                        other => panic!("unexpected op {other:?}"),
                    };
                    match path.as_str() {
                        "/revision" => r.number = value.as_i64().unwrap(),
                        p if p.ends_with("restart-attempts") => {
                            r.attempts = parse_attempts(value.as_str().unwrap());
                            r.raw_attempts = value.as_str().map(str::to_owned);
                        }
                        p if p.ends_with("change-cause") => {
                            r.change_cause = value.as_str().map(str::to_owned)
                        }
                        p if p.ends_with("spec-resource-version") => {
                            r.spec_seen = value.as_str().map(str::to_owned)
                        }
                        other => panic!("unexpected path {other}"),
                    }
                }
            }
            Write::Delete { name, .. } => store.retain(|r| &r.name != name),
        }
    }
}

#[test]
fn first_look_records_the_spec_at_the_current_attempt() {
    let js = jobset("app:v1", 0);
    let writes = plan_writes(&observe(&js, Running::Spec), &[]);
    assert_eq!(writes.len(), 1);
    let Write::Create(object) = &writes[0] else { panic!() };
    let object = serde_json::to_value(object).unwrap();
    assert_eq!(object["metadata"]["name"], format!("js-{}", hash(&templates_of(&js))));
    assert_eq!(object["metadata"]["labels"][JOBSET_LABEL], "js");
    assert_eq!(object["metadata"]["ownerReferences"][0]["uid"], "u1");
    assert_eq!(object["metadata"]["annotations"][ATTEMPTS_ANNOTATION], "0");
    assert_eq!(object["revision"], 1);
    assert_eq!(
        object["data"]["replicatedJobs"][0]["template"],
        js.spec.replicated_jobs[0].template.value(),
        "lossless"
    );
    let mut store = Vec::new();
    apply(&mut store, &writes);
    assert!(plan_writes(&observe(&js, Running::Spec), &store).is_empty(), "idempotent");
}

#[test]
fn an_edit_before_the_restart_shows_both_revisions() {
    let mut store = Vec::new();
    let v1 = jobset("app:v1", 0);
    record(&mut store, &observe(&v1, Running::Spec));
    let v2 = jobset("app:v2", 0);
    let running = Running::Revision(store[0].name.clone());
    record(&mut store, &observe(&v2, running.clone()));
    assert_eq!(store.len(), 2);
    assert_eq!((store[0].number, format_attempts(&store[0].attempts)), (1, "0".to_owned()));
    assert_eq!((store[1].number, store[1].attempts.is_empty()), (2, true), "spec v2 not seen running yet");

    // After a restart, attempt 1 runs v2.
    let v2_restarted = jobset("app:v2", 1);
    record(&mut store, &observe(&v2_restarted, Running::Spec));
    assert_eq!(format_attempts(&store[1].attempts), "1");
    assert_eq!(format_attempts(&store[0].attempts), "0");
}

#[test]
fn a_template_that_returns_is_renumbered_newest_with_its_cause() {
    let mut store = Vec::new();
    for (image, attempt) in [("app:v1", 0), ("app:v2", 1)] {
        let js = jobset(image, attempt);
        record(&mut store, &observe(&js, Running::Spec));
    }
    let back = jobset("app:v1", 1);
    let mut obs = observe(&back, Running::Revision(store[1].name.clone()));
    obs.change_cause = Some(Cause::Set("rollback to revision 1".into()));
    record(&mut store, &obs);
    let v1 = store.iter().find(|r| r.templates == templates_of(&back)).unwrap();
    assert_eq!(v1.number, 3, "renumbered to the newest");
    assert_eq!(v1.change_cause.as_deref(), Some("rollback to revision 1"));
    assert_eq!(store.len(), 2);
    // A restart's reason does not overwrite it; it fills in a revision without one.
    let mut obs = observe(&back, Running::Spec);
    obs.change_cause = Some(Cause::IfUnset("new reason".into()));
    record(&mut store, &obs);
    let v1 = store.iter().find(|r| r.templates == templates_of(&back)).unwrap();
    assert_eq!(v1.change_cause.as_deref(), Some("rollback to revision 1"));
}

/// A JobSet as read at resourceVersion `rv`.
fn jobset_at(image: &str, rv: &str) -> JobSet {
    testing::jobset("js")
        .namespace("ml")
        .uid("u1")
        .resource_version(rv)
        .replicated_job("w", 2, pod_template(image))
        .build()
}

#[test]
fn a_view_older_than_the_newest_revision_is_no_rollback() {
    // The recorder recorded v1 from the JobSet at resourceVersion 100; a faster writer
    // then saw the edit to v2 (at 105) and recorded it. The recorder's second look, with
    // its view from 100 and the store as it is now, must not move v1 above v2.
    let mut store = Vec::new();
    let v1_at_100 = jobset_at("app:v1", "100");
    record(&mut store, &observe(&v1_at_100, Running::Spec));
    assert_eq!(store[0].spec_seen.as_deref(), Some("100"), "created with the view it came from");
    let v2_at_105 = jobset_at("app:v2", "105");
    let running_v1 = Running::Revision(store[0].name.clone());
    record(&mut store, &observe(&v2_at_105, running_v1));
    assert!(plan_writes(&observe(&v1_at_100, Running::Spec), &store).is_empty(), "stale: nothing to move");
    let numbers: Vec<(String, i64)> = store.iter().map(|r| (image(r), r.number)).collect();
    assert_eq!(numbers, [("app:v1".to_owned(), 1), ("app:v2".to_owned(), 2)]);

    // A rollback is a later view of the JobSet: v1 is renumbered newest, and remembers it.
    let back_at_120 = jobset_at("app:v1", "120");
    let running_v2 = Running::Revision(store[1].name.clone());
    record(&mut store, &observe(&back_at_120, running_v2));
    let v1 = store.iter().find(|r| image(r) == "app:v1").unwrap();
    assert_eq!((v1.number, v1.spec_seen.as_deref()), (3, Some("120")));
    // And now v2's view (105) is the older one: no move back.
    let writes = plan_writes(&observe(&v2_at_105, Running::Spec), &store);
    assert!(!writes.iter().any(Write::assigns_number), "{writes:?}");
}

#[test]
fn revisions_recorded_before_the_view_was_kept_still_renumber_on_return() {
    // Revisions without `spec-resource-version` (older releases) say nothing about views:
    // a template that returns is renumbered, as before.
    let mut store = Vec::new();
    for image in ["app:v1", "app:v2"] {
        record(&mut store, &observe(&jobset_at(image, "100"), Running::Spec));
    }
    for r in &mut store {
        r.spec_seen = None;
    }
    let writes = plan_writes(&observe(&jobset_at("app:v1", "90"), Running::Spec), &store);
    assert!(writes.iter().any(Write::assigns_number), "{writes:?}");
}

fn image(r: &Revision) -> String {
    r.templates[0].1["spec"]["template"]["spec"]["containers"][0]["image"].as_str().unwrap().to_owned()
}

#[test]
fn running_templates_never_recorded_are_rebuilt() {
    let js = jobset("app:v2", 0);
    let old = vec![(
        "w".to_string(),
        json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "app:v1", "imagePullPolicy": "IfNotPresent"}]}}}}),
    )];
    let mut store = Vec::new();
    record(&mut store, &observe(&js, Running::Rebuilt(old.clone())));
    assert_eq!(store.len(), 2);
    assert_eq!((store[0].number, store[0].source.as_str()), (1, "running-jobs"));
    assert_eq!(store[0].templates, old);
    assert_eq!((store[1].number, store[1].source.as_str()), (2, "spec"));
}

#[test]
fn pruning_keeps_the_limit_but_never_spec_or_running() {
    let mut store = Vec::new();
    for (i, image) in ["a", "b", "c", "d"].iter().enumerate() {
        let js = jobset(image, i as i32);
        record(&mut store, &observe(&js, Running::Spec));
    }
    let js = jobset("e", 4);
    let running = Running::Revision(store[0].name.clone());
    let mut obs = observe(&js, running);
    obs.history_limit = 2;
    let writes = plan_writes(&obs, &store);
    let deleted: Vec<&str> = writes
        .iter()
        .filter_map(|w| if let Write::Delete { name, .. } = w { Some(name.as_str()) } else { None })
        .collect();
    assert_eq!(
        deleted,
        [store[1].name.as_str(), store[2].name.as_str(), store[3].name.as_str()],
        "a runs, e is the spec"
    );
}

#[test]
fn attempts_format() {
    let set = |v: &[i32]| v.iter().copied().collect::<BTreeSet<i32>>();
    assert_eq!(format_attempts(&set(&[0, 1, 2, 5])), "0-2,5");
    assert_eq!(format_attempts(&set(&[])), "");
    assert_eq!(parse_attempts("0-2,5"), set(&[0, 1, 2, 5]));
    assert_eq!(parse_attempts("x,3,2-1"), set(&[3]));
}

#[test]
fn selection_by_number_and_from_the_end() {
    let mut store = Vec::new();
    for (i, image) in ["a", "b", "c"].iter().enumerate() {
        let js = jobset(image, i as i32);
        record(&mut store, &observe(&js, Running::Spec));
    }
    assert_eq!(select(&store, 2).unwrap().number, 2);
    assert_eq!(select(&store, -1).unwrap().number, 3);
    assert_eq!(select(&store, -3).unwrap().number, 1);
    assert_eq!(
        select(&store, -4).unwrap_err().to_string(),
        "revision -4 does not exist; recorded revisions: 1, 2, 3"
    );
    assert_eq!(
        select(&store, 0).unwrap_err().to_string(),
        "revisions start at 1 (negative numbers count back: -1 is the newest); recorded revisions: 1, 2, 3"
    );
    assert_eq!(
        select(&[], 1).unwrap_err().to_string(),
        "revision 1 does not exist; no revisions are recorded"
    );
}

#[test]
fn foreign_or_corrupt_revisions_are_ignored_with_a_reason() {
    let ours = |data: Value, format: &str| -> ControllerRevision {
        serde_json::from_value(json!({"metadata": {"name": "js-x",
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "uid": "u1"}],
            "annotations": {FORMAT_ANNOTATION: format}}, "data": data, "revision": 1}))
        .unwrap()
    };
    assert!(parse(&ours(json!({"replicatedJobs": []}), FORMAT), "u1").is_ok());
    let why =
        |data: Value, format: &str, owner: &str| parse(&ours(data, format), owner).unwrap_err().to_string();
    assert_eq!(
        why(json!({"replicatedJobs": []}), FORMAT, "other"),
        "controllerrevision js-x does not belong to this JobSet"
    );
    assert_eq!(
        why(json!({"spec": {}}), "something-else", "u1"),
        "controllerrevision js-x carries kubectl-jobset labels but not our data format; ignored"
    );
    assert_eq!(
        why(json!({"spec": {}}), FORMAT, "u1"),
        "controllerrevision js-x has no replicatedJobs in its data; ignored"
    );
    assert_eq!(
        why(json!({"replicatedJobs": [{"name": 3}]}), FORMAT, "u1"),
        "controllerrevision js-x has corrupt data; ignored"
    );
}

#[test]
fn hash_ignores_key_order() {
    let a = vec![("w".to_string(), json!({"a": 1, "b": {"c": 2, "d": 3}}))];
    let b =
        vec![("w".to_string(), serde_json::from_str::<Value>(r#"{"b": {"d": 3, "c": 2}, "a": 1}"#).unwrap())];
    assert_eq!(hash(&a), hash(&b));
    assert!(same_templates_in_order(&a, &b));
    assert_eq!(hash(&a).len(), 10);
}

#[test]
fn templates_compare_in_the_specs_order_or_by_name() {
    let (a, b) = (json!({"image": "a"}), json!({"image": "b"}));
    let ab = vec![("w".to_string(), a.clone()), ("d".to_string(), b.clone())];
    let ba = vec![("d".to_string(), b), ("w".to_string(), a.clone())];
    assert!(!same_templates_in_order(&ab, &ba), "the spec's order is part of a revision");
    assert!(same_templates_by_name(&ab, &ba));
    assert!(!same_templates_by_name(&ab, &vec![("w".to_string(), a)]));
}

#[test]
fn revision_names_are_pinned() {
    // Computed by the hand-written FNV-1a before the `fnv` crate replaced it: names of
    // recorded revisions must never change.
    let templates = vec![
        (
            "w".to_string(),
            json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "app:v1"}]}}}}),
        ),
        ("driver".to_string(), json!({"spec": {"parallelism": 1}})),
    ];
    assert_eq!(hash(&templates), "64247a2004");
    let js = jobset("app:v1", 0);
    let Write::Create(object) = &plan_writes(&observe(&js, Running::Spec), &[])[0] else { panic!() };
    assert_eq!(object.metadata.name.as_deref(), Some("js-41c3fe736a"));
}

#[test]
fn patches_are_guarded_and_escape_annotation_keys() {
    let mut store = Vec::new();
    let v1 = jobset("app:v1", 0);
    record(&mut store, &observe(&v1, Running::Spec));
    let restarted = jobset("app:v1", 1);
    let mut obs = observe(&restarted, Running::Spec);
    obs.change_cause = Some(Cause::IfUnset("new data".into()));
    let writes = plan_writes(&obs, &store);
    let [Write::Patch { name, ops }] = writes.as_slice() else { panic!("{writes:?}") };
    assert_eq!(name, &store[0].name);
    assert_eq!(
        serde_json::to_value(ops).unwrap(),
        json!([
            {"op": "test", "path": "/metadata/annotations/kubectl-jobset.io~1restart-attempts", "value": "0"},
            {"op": "replace", "path": "/metadata/annotations/kubectl-jobset.io~1restart-attempts", "value": "0-1"},
            {"op": "add", "path": "/metadata/annotations/kubernetes.io~1change-cause", "value": "new data"},
        ])
    );
}

#[test]
fn two_writers_numbering_at_once_are_separated_by_whoever_looks_next() {
    // Two writers each read revision 1 and both numbered their new revision 2.
    let mut store = Vec::new();
    record(&mut store, &observe(&jobset("app:v1", 0), Running::Spec));
    let mut a = store.clone();
    record(&mut a, &observe(&jobset("app:v2", 0), Running::Spec));
    let mut b = store.clone();
    record(&mut b, &observe(&jobset("app:v3", 0), Running::Spec));
    store.push(a.last().unwrap().clone());
    let mut late = b.last().unwrap().clone();
    late.recorded_at = Some("2026-11-30T12:00:01Z".into());
    store.push(late.clone());
    assert_eq!(store.iter().map(|r| r.number).collect::<Vec<_>>(), [1, 2, 2]);
    let moves = renumber_duplicates(&store);
    let [Write::Patch { name, ops }] = &moves[..] else { panic!("{moves:?}") };
    assert_eq!(name, &late.name, "the later one moves");
    assert_eq!(
        serde_json::to_value(ops).unwrap(),
        json!([{"op": "test", "path": "/revision", "value": 2}, {"op": "replace", "path": "/revision", "value": 3}])
    );
    // A writer that reads a watched store finds them on its next look: with nothing new
    // to record it plans the moves, and with something new it records that first.
    assert_eq!(plan_writes_or_renumber(&observe(&jobset("app:v3", 0), Running::Spec), &store), moves);
    let next = plan_writes_or_renumber(&observe(&jobset("app:v4", 0), Running::Spec), &store);
    assert!(matches!(&next[..], [Write::Create(_), ..]), "{next:?}");
    apply(&mut store, &moves);
    assert!(renumber_duplicates(&store).is_empty(), "unique now");
    assert!(plan_writes_or_renumber(&observe(&jobset("app:v3", 0), Running::Spec), &store).is_empty());
    assert!(Write::Create(Box::default()).assigns_number());
}

#[test]
fn a_name_another_object_holds_gets_a_suffix() {
    let js = jobset("app:v1", 0);
    let taken = format!("js-{}", hash(&templates_of(&js)));
    let mut observation = observe(&js, Running::Spec);
    observation.foreign = vec![taken.clone()];
    let writes = plan_writes(&observation, &[]);
    let [Write::Create(object)] = writes.as_slice() else { panic!("{writes:?}") };
    assert_eq!(object.metadata.name.as_deref(), Some(format!("{taken}-1").as_str()));
}

#[test]
fn holders_tell_a_jobsets_own_revisions_from_anothers() {
    let js = jobset("app:v1", 0);
    let stored = |owners: Value| -> ControllerRevision {
        serde_json::from_value(json!({"metadata": {"name": "js-abc", "namespace": "ml",
            "labels": {JOBSET_LABEL: "js"}, "ownerReferences": owners}, "revision": 1}))
        .unwrap()
    };
    let own = Holder::of(&stored(json!([{"apiVersion": "v", "kind": "JobSet", "name": "js", "uid": "u1"}])));
    assert!(!own.is_foreign_to(&js));
    let orphan = Holder::of(&stored(json!([])));
    assert!(orphan.is_foreign_to(&js));
    assert!(
        orphan.warning(&js).contains("controllerrevision ml/js-abc")
            && orphan.warning(&js).contains("--cascade=orphan")
    );
    let other =
        Holder::of(&stored(json!([{"apiVersion": "v", "kind": "JobSet", "name": "js", "uid": "old"}])));
    assert!(other.warning(&js).contains("owned by JobSet js (uid old)"), "{}", other.warning(&js));
}

#[test]
fn rebuilt_revisions_are_marked_cleaned_and_rollback_refuses_the_uncleaned() {
    let js = jobset("app:v2", 1);
    let running = vec![(
        "w".to_owned(),
        json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "app:v1"}]}}}}),
    )];
    let mut store = Vec::new();
    record(&mut store, &observe(&js, Running::Rebuilt(running)));
    let rebuilt_revision = store.iter().find(|r| r.source == rebuilt::SOURCE).unwrap();
    assert!(rebuilt_revision.cleaned);
    assert_eq!(rebuilt::rollback_refusal(&js, rebuilt_revision), None);
    let mut legacy = rebuilt_revision.clone();
    legacy.cleaned = false;
    let why = rebuilt::rollback_refusal(&js, &legacy).unwrap();
    assert!(
        why.contains("rebuilt from running Jobs") && why.contains("kubectl jobset history js --revision"),
        "{why}"
    );
}

#[test]
fn cleaning_removes_the_subdomain_and_claim_volumes_the_controller_adds() {
    let js = JobSet::from_raw(json!({
        "metadata": {"name": "js", "namespace": "ml", "uid": "u1"},
        "spec": {"network": {"enableDNSHostnames": true},
            "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "data"}}]}],
            "replicatedJobs": []}
    }))
    .unwrap();
    let live = json!({"spec": {"template": {"spec": {"subdomain": "js", "containers": [{"name": "c"}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-js"}},
                    {"name": "own", "persistentVolumeClaim": {"claimName": "mine"}}]}}}});
    assert_eq!(
        rebuilt::clean(&js, live),
        json!({"spec": {"template": {"spec": {"containers": [{"name": "c"}],
            "volumes": [{"name": "own", "persistentVolumeClaim": {"claimName": "mine"}}]}}}})
    );
    let own_subdomain = json!({"spec": {"template": {"spec": {"subdomain": "elsewhere"}}}});
    assert_eq!(rebuilt::clean(&js, own_subdomain.clone()), own_subdomain, "not the controller's: kept");
}

/// Exclusive placement set on the JobSet: the controller copies its annotation into every
/// Job; a rebuilt template must not pin it (a later change of the JobSet's would be
/// hidden by a rollback to it). Set in the template, it is the template's own: kept.
#[test]
fn cleaning_removes_the_exclusive_placement_the_jobset_s_own_annotation_put_in() {
    let key = crate::diff::expected::EXCLUSIVE_KEY;
    let strategy = crate::diff::expected::NODE_SELECTOR_STRATEGY_KEY;
    let with_annotations = |annotations: Value| {
        JobSet::from_raw(
            json!({"metadata": {"name": "js", "namespace": "ml", "uid": "u1", "annotations": annotations},
            "spec": {"replicatedJobs": []}}),
        )
        .unwrap()
    };
    let live = json!({"metadata": {"annotations": {key: "rack", strategy: "true", "team": "a"}},
        "spec": {"template": {"metadata": {"annotations": {key: "rack"}}, "spec": {"containers": [{"name": "c"}]}}}});
    assert_eq!(
        rebuilt::clean(&with_annotations(json!({key: "zone"})), live.clone()),
        json!({"metadata": {"annotations": {"team": "a"}}, "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}})
    );
    assert_eq!(rebuilt::clean(&with_annotations(json!({})), live.clone()), live, "the template's own: kept");
}

#[test]
fn commands_write_owned_revisions_and_the_recorder_ownerless_ones_both_labelled_with_the_uid() {
    let js = jobset("app:v1", 0);
    let mut observation = observe(&js, Running::Spec);
    let writes = plan_writes(&observation, &[]);
    let [Write::Create(owned)] = writes.as_slice() else { panic!("{writes:?}") };
    assert_eq!(owned.metadata.labels.as_ref().unwrap()[UID_LABEL], "u1");
    assert_eq!(owned.metadata.owner_references.as_ref().unwrap()[0].uid, "u1");
    observation.retain = true;
    let writes = plan_writes(&observation, &[]);
    let [Write::Create(kept)] = writes.as_slice() else { panic!("{writes:?}") };
    assert_eq!(kept.metadata.labels.as_ref().unwrap()[UID_LABEL], "u1");
    assert_eq!(kept.metadata.owner_references, None, "the garbage collector must not delete it");
    let read = parse(kept, "u1").unwrap();
    assert_eq!((read.owner_index, read.uid_label.as_deref()), (None, Some("u1")));
    assert!(parse(kept, "u2").is_err(), "another JobSet's");
}

#[test]
fn the_recorder_releases_owned_revisions_once_guarded_by_the_owners_uid() {
    let js = jobset("app:v1", 0);
    // An older kubectl-jobset wrote revision 1 without the uid label.
    let old = testing::revision("js", "u1", 1).templates(&templates_of(&jobset("app:v0", 0))).build();
    let mut store = vec![old];
    record(&mut store, &observe(&js, Running::Spec));
    let mut observation = observe(&js, Running::Spec);
    observation.retain = true;
    let writes = plan_writes(&observation, &store);
    let ops: Vec<Value> = writes
        .iter()
        .map(|w| match w {
            Write::Patch { ops, .. } => serde_json::to_value(ops).unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    let test_owner = json!({"op": "test", "path": "/metadata/ownerReferences/0/uid", "value": "u1"});
    let remove_owner = json!({"op": "remove", "path": "/metadata/ownerReferences/0"});
    let label = json!({"op": "add", "path": "/metadata/labels/kubectl-jobset.io~1jobset-uid", "value": "u1"});
    assert_eq!(ops, vec![json!([test_owner, remove_owner, label]), json!([test_owner, remove_owner])]);
    for r in &mut store {
        r.owner_index = None;
        r.uid_label = Some("u1".into());
    }
    assert!(plan_writes(&observation, &store).is_empty(), "released once");
    observation.retain = false;
    assert!(plan_writes(&observation, &store).is_empty(), "commands never take it back");
}

#[test]
fn a_revision_belongs_to_its_owner_or_without_a_jobset_owner_to_its_uid_label() {
    let stored = |owners: Value, uid: Option<&str>| -> ControllerRevision {
        let mut labels = json!({JOBSET_LABEL: "js"});
        if let Some(uid) = uid {
            labels[UID_LABEL] = json!(uid);
        }
        serde_json::from_value(json!({"metadata": {"name": "js-abc", "namespace": "ml",
            "labels": labels, "ownerReferences": owners}, "revision": 1}))
        .unwrap()
    };
    let owner = |uid: &str| json!([{"apiVersion": "v", "kind": "JobSet", "name": "js", "uid": uid}]);
    assert_eq!(belongs_to(&stored(owner("u1"), Some("u1"))), vec!["u1"]);
    assert_eq!(belongs_to(&stored(json!([]), Some("u1"))), vec!["u1"], "kept by the recorder");
    // A handover's new JobSet adopted it: the owner wins over the earlier uid's label.
    assert_eq!(belongs_to(&stored(owner("new"), Some("old"))), vec!["new"]);
    assert!(belongs_to(&stored(json!([]), None)).is_empty(), "orphaned by an older version: nobody's");
    let js = jobset("app:v1", 0);
    let own = Holder::of(&stored(json!([]), Some("u1")));
    assert!(!own.is_foreign_to(&js));
    let earlier = Holder::of(&stored(json!([]), Some("u0")));
    assert!(earlier.is_foreign_to(&js) && earlier.is_kept_history(), "a deleted namesake's history");
    let adopted = Holder::of(&stored(owner("u9"), Some("u1")));
    assert!(adopted.is_foreign_to(&js) && !adopted.is_kept_history());
}

#[test]
fn templates_that_differ_only_in_parallelism_or_completions_are_the_same_but_for_scale() {
    let t = |spec: Value| vec![("w".to_owned(), json!({"spec": spec}))];
    let one = t(json!({"parallelism": 1, "completions": 1, "template": {"x": 1}}));
    let two = t(json!({"parallelism": 2, "completions": 2, "template": {"x": 1}}));
    let unset = t(json!({"template": {"x": 1}}));
    let other = t(json!({"parallelism": 1, "completions": 1, "template": {"x": 2}}));
    assert!(same_templates_but_scale(&one, &two) && same_templates_but_scale(&one, &unset));
    assert!(!same_templates_but_scale(&one, &other));
    assert!(!same_templates_in_order(&one, &two));
}

/// What a read shows without writing is what recording would leave: the same numbers,
/// attempts, causes and sources, with the revisions not stored marked, and nothing
/// stored hidden (not even what recording would prune).
#[test]
fn a_preview_is_what_recording_would_leave_with_the_unstored_marked() {
    let mut store = Vec::new();
    for (i, image) in ["a", "b", "c"].iter().enumerate() {
        record(&mut store, &observe(&jobset(image, i as i32), Running::Spec));
    }
    let cases = [
        // Nothing new: the stored history, as stored.
        (jobset("c", 2), Running::Spec),
        // An edit before the restart: the spec's revision is new.
        (jobset("d", 2), Running::Revision(store[2].name.clone())),
        // A template that comes back: renumbered newest, its attempt added.
        (jobset("a", 3), Running::Spec),
        // Jobs on a template nobody recorded, and a spec nobody recorded.
        (jobset("e", 3), Running::Rebuilt(templates_of(&jobset("x", 3)))),
    ];
    for (js, running) in cases {
        let mut observation = observe(&js, running);
        observation.change_cause = Some(Cause::IfUnset("why".into()));
        observation.history_limit = 2;
        let shown = preview(&observation, store.clone());
        let mut recorded = store.clone();
        record(&mut recorded, &observation);
        let key = |r: &Revision| (r.name.clone(), r.number, r.attempts.clone(), r.change_cause.clone());
        let stored_names: Vec<&str> = store.iter().map(|r| r.name.as_str()).collect();
        for r in &recorded {
            let s = shown.iter().find(|s| s.name == r.name).expect("everything recording leaves is shown");
            assert_eq!(key(s), key(r));
            assert_eq!(s.source, r.source);
            assert_eq!(s.unrecorded, !stored_names.contains(&r.name.as_str()), "{}", r.name);
            assert_eq!(s.recorded_at.is_none(), s.unrecorded);
        }
        assert!(store.iter().all(|r| shown.iter().any(|s| s.name == r.name)), "nothing stored is hidden");
        assert!(shown.windows(2).all(|w| w[0].number <= w[1].number), "in number order");
    }
    // The stored revisions themselves are untouched.
    assert!(store.iter().all(|r| !r.unrecorded));
}

#[test]
fn a_revision_held_as_compact_text_reads_as_the_tree_it_was() {
    let stored = testing::revision("js", "u1", 3).stored();
    let mut compact = stored.clone();
    compact_data(&mut compact);
    assert!(compact.data.as_ref().unwrap().0.is_string(), "held as text");
    assert_eq!(parse(&compact, "u1"), parse(&stored, "u1"));
    compact_data(&mut compact);
    assert_eq!(parse(&compact, "u1"), parse(&stored, "u1"), "compacting twice changes nothing");
    compact.data = Some(RawExtension(Value::String("{not json".into())));
    assert!(matches!(parse(&compact, "u1"), Err(UnreadableRevision::Corrupt { .. })));
}

#[test]
fn held_templates_read_back_as_given_and_compare_by_digest_as_in_order() {
    let a: Templates = vec![
        (
            "workers".into(),
            json!({"spec": {"parallelism": 2, "template": {"metadata": {"b": 1, "a": "x && y"}}}}),
        ),
        ("driver".into(), json!({"spec": {}})),
    ];
    let held = HeldTemplates::new(a.clone());
    assert_eq!(*held, a, "read back as given, key order kept");
    assert_eq!(held.clone().into_templates(), a);
    // Key order within a template does not matter; replicatedJob order and names do.
    let reordered: Templates = vec![
        (
            "workers".into(),
            json!({"spec": {"template": {"metadata": {"a": "x && y", "b": 1}}, "parallelism": 2}}),
        ),
        ("driver".into(), json!({"spec": {}})),
    ];
    let swapped: Templates = vec![a[1].clone(), a[0].clone()];
    let renamed: Templates = vec![("w".into(), a[0].1.clone()), a[1].clone()];
    let scaled: Templates = vec![("workers".into(), json!({"spec": {"parallelism": 3}})), a[1].clone()];
    for (other, same) in [(&reordered, true), (&swapped, false), (&renamed, false), (&scaled, false)] {
        assert_eq!(same_templates_in_order(&a, other), same, "{other:?}");
        assert_eq!(held.same_as(digest_of(other)), same, "{other:?}");
        assert_eq!(held == HeldTemplates::new(other.clone()), same, "{other:?}");
    }
}

#[test]
fn the_spec_read_once_sums_as_its_templates_do() {
    for js in [jobset("app:v1", 0), jobset("app:v2", 3)] {
        let templates = templates_of(&js);
        assert_eq!(SpecSums::of(&js), SpecSums { digest: digest_of(&templates), hash: hash(&templates) });
    }
    assert_ne!(SpecSums::of(&jobset("app:v1", 0)), SpecSums::of(&jobset("app:v2", 0)));
}
