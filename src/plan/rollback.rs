//! Rollback planning, without I/O: the single JSON patch that puts a recorded
//! revision's templates back, guarded so that a concurrent edit ends in a conflict,
//! and the plain-words explanation when a cluster forbids template updates.

use json_patch::{Patch, PatchOperation};
use serde_json::Value;

use crate::history::{Revision, Templates, same_templates_in_order, templates_of};
use crate::model::jobset::JobSet;
use crate::model::patch::{pointer, test};

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The spec already holds the target's templates.
    AlreadyThere,
    Refuse(String),
    /// One JSON patch for `spec.replicatedJobs[*].template`.
    Patch(Patch),
}

/// Plans a rollback of `jobset` to `target`.
pub fn plan(jobset: &JobSet, target: &Revision) -> Decision {
    let current = templates_of(jobset);
    if same_templates_in_order(&current, &target.templates) {
        return Decision::AlreadyThere;
    }
    if let Some(why) = crate::history::rebuilt::rollback_refusal(jobset, target) {
        return Decision::Refuse(why);
    }
    let mut spec_names: Vec<&str> = current.iter().map(|(n, _)| n.as_str()).collect();
    let mut target_names: Vec<&str> = target.templates.iter().map(|(n, _)| n.as_str()).collect();
    spec_names.sort_unstable();
    target_names.sort_unstable();
    if spec_names != target_names {
        return Decision::Refuse(format!(
            "revision {} has replicatedJobs {} but the spec has {}: rollback only replaces templates, \
             it does not add, remove or rename replicatedJobs",
            target.number,
            target_names.join(", "),
            spec_names.join(", ")
        ));
    }
    // Guarded by the uid (the JobSet read, not one created again under its name since: its
    // history, and so `target`, belongs to the one read) and a `test` of each template read.
    Decision::Patch(super::staged::template_patch(jobset, &target.templates))
}

/// A `test` op on `metadata.uid`: the patch fails, changing nothing, on another JobSet
/// of the same name.
pub fn uid_guard(jobset: &JobSet) -> PatchOperation {
    test(pointer(&["metadata", "uid"]), jobset.uid())
}

/// Why a rollback of this JobSet must not happen at all, if it must not: a finished
/// JobSet never runs its templates again, and one managed by another controller is that
/// controller's to change. Checked before anything is changed.
pub fn refusal(jobset: &JobSet) -> Option<String> {
    let state = crate::diff::state_of(jobset);
    if state == crate::diff::State::Completed || state == crate::diff::State::Failed {
        let what = if state == crate::diff::State::Completed { "completed" } else { "failed" };
        return Some(format!(
            "the JobSet has {what}: its templates will not run again (the controller does not recreate the Jobs \
             of a finished JobSet), so nothing was changed; create a new JobSet from the revision to run it"
        ));
    }
    if let Some(manager) = jobset.managed_elsewhere() {
        return Some(format!(
            "the JobSet is {}: change it through that controller; nothing was changed",
            crate::model::jobset::managed_elsewhere_words(manager)
        ));
    }
    None
}

/// The revision before the spec's: the default rollback target.
pub fn previous_revision(revisions: &[Revision], spec_number: i64) -> Option<&Revision> {
    revisions.iter().filter(|r| r.number < spec_number).max_by_key(|r| r.number)
}

/// Pod-template fields upstream JobSet lets change while a JobSet is suspended.
const SUSPEND_MUTABLE: &[&str] = &["nodeSelector", "tolerations", "schedulingGates"];

/// True when the two sets of templates differ only in what upstream allows to change
/// while suspended: pod labels, annotations, nodeSelector, tolerations, schedulingGates.
pub fn only_suspend_mutable_fields_differ(a: &Templates, b: &Templates) -> bool {
    let strip = |templates: &Templates| -> Templates {
        templates
            .iter()
            .map(|(name, t)| {
                let mut t = t.clone();
                if let Some(meta) = t["spec"]["template"].get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.remove("labels");
                    meta.remove("annotations");
                    // Nothing left is the same as no metadata at all.
                    if meta.is_empty()
                        && let Some(pod) = t["spec"]["template"].as_object_mut()
                    {
                        pod.remove("metadata");
                    }
                }
                if let Some(pod) = t["spec"]["template"].get_mut("spec").and_then(Value::as_object_mut) {
                    for key in SUSPEND_MUTABLE {
                        pod.remove(*key);
                    }
                }
                (name.clone(), t)
            })
            .collect()
    };
    same_templates_in_order(&strip(a), &strip(b))
}

/// Whether an API error is an admission webhook refusing a template change.
pub fn is_template_immutable_rejection(message: &str) -> bool {
    message.contains("denied the request") && message.contains("immutable")
}

/// Plain words for a rejected template update.
pub fn explain_rejection(jobset: &JobSet, target: &Revision) -> String {
    let name = jobset.name();
    let suspend_helps = only_suspend_mutable_fields_differ(&templates_of(jobset), &target.templates);
    let mut text = String::from(
        "the cluster rejected the template change: this JobSet controller's admission webhook treats \
         replicatedJob templates as immutable (upstream JobSet only lets pod labels, annotations, nodeSelector, \
         tolerations and schedulingGates change, and only while the JobSet is suspended). Nothing was changed.\n\
         Options:\n  - run a JobSet controller that allows opportunistic template updates, then roll back again",
    );
    if suspend_helps {
        text.push_str(&format!(
            "\n  - revision {} differs from the spec only in fields allowed while suspended: suspend the JobSet \
             (kubectl patch jobset {name} --type=merge -p '{{\"spec\":{{\"suspend\":true}}}}'), roll back, then resume it",
            target.number
        ));
    } else {
        text.push_str(&format!(
            "\n  - suspending would not help: revision {} differs from the spec in fields that stay immutable \
             while suspended (such as images or commands)",
            target.number
        ));
    }
    text.push_str(&format!(
        "\n  - `{}` recreates the JobSet with these templates \
         and hands its running Jobs over to it untouched (add --dry-run to see each step first)",
        crate::hint::kubectl_jobset(
            &format!("rollback {name} --to-revision {} --handover", target.number),
            jobset.namespace()
        )
    ));
    text.push_str("\n(-v shows the API server's full answer)");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use serde_json::json;

    fn jobset(templates: Value) -> JobSet {
        testing::jobset("js")
            .namespace("ml")
            .uid("u")
            .spec("replicatedJobs", templates)
            .spec("suspend", false)
            .spec("futureField", 1)
            .build()
    }

    fn revision(number: i64, templates: Templates) -> Revision {
        testing::revision("js", "u", number).templates(&templates).build()
    }

    fn pod(image: &str, extra: Value) -> Value {
        let mut spec = json!({"containers": [{"name": "main", "image": image}]});
        for (k, v) in extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        json!({"spec": {"template": {"spec": spec}}})
    }

    #[test]
    fn patch_replaces_only_changed_templates_with_test_guards() {
        let js = jobset(json!([
            {"name": "a", "replicas": 2, "template": pod("app:v2", json!({}))},
            {"name": "b", "template": pod("side:v1", json!({}))}
        ]));
        let target = revision(
            1,
            vec![("a".into(), pod("app:v1", json!({}))), ("b".into(), pod("side:v1", json!({})))],
        );
        let Decision::Patch(ops) = plan(&js, &target) else { panic!() };
        assert_eq!(
            serde_json::to_value(ops).unwrap(),
            json!([
                {"op": "test", "path": "/metadata/uid", "value": "u"},
                {"op": "test", "path": "/spec/replicatedJobs/0/name", "value": "a"},
                {"op": "test", "path": "/spec/replicatedJobs/0/template", "value": pod("app:v2", json!({}))},
                {"op": "replace", "path": "/spec/replicatedJobs/0/template", "value": pod("app:v1", json!({}))},
            ])
        );
    }

    #[test]
    fn nothing_to_do_and_refusals() {
        let js = jobset(json!([{"name": "a", "template": pod("app:v1", json!({}))}]));
        assert_eq!(
            plan(&js, &revision(1, vec![("a".into(), pod("app:v1", json!({})))])),
            Decision::AlreadyThere
        );
        let Decision::Refuse(why) =
            plan(&js, &revision(1, vec![("renamed".into(), pod("app:v1", json!({})))]))
        else {
            panic!()
        };
        assert!(why.contains("replicatedJobs renamed but the spec has a"), "{why}");
    }

    #[test]
    fn finished_jobsets_and_other_controllers_jobsets_are_refused() {
        let with = |status: Value, managed_by: Option<&str>| {
            let mut raw = jobset(json!([{"name": "a", "template": pod("app:v1", json!({}))}])).object();
            raw["status"] = status;
            if let Some(m) = managed_by {
                raw["spec"]["managedBy"] = json!(m);
            }
            JobSet::from_raw(raw).unwrap()
        };
        assert_eq!(refusal(&with(json!({}), None)), None);
        assert_eq!(refusal(&with(json!({}), Some(crate::plan::restart::JOBSET_CONTROLLER))), None);
        let why = refusal(&with(json!({"terminalState": "Completed"}), None)).unwrap();
        assert!(why.contains("has completed"), "{why}");
        let why =
            refusal(&with(json!({"conditions": [{"type": "Failed", "status": "True"}]}), None)).unwrap();
        assert!(why.contains("has failed"), "{why}");
        let why = refusal(&with(json!({}), Some("kueue.x-k8s.io/multikueue"))).unwrap();
        assert!(why.contains("managed by \"kueue.x-k8s.io/multikueue\""), "{why}");
    }

    #[test]
    fn default_target_is_the_revision_before_the_spec() {
        let revisions = vec![revision(1, vec![]), revision(3, vec![]), revision(4, vec![])];
        assert_eq!(previous_revision(&revisions, 4).map(|r| r.number), Some(3));
        assert_eq!(previous_revision(&revisions, 1).map(|r| r.number), None);
    }

    #[test]
    fn suspend_mutable_fields() {
        let a = vec![("w".to_string(), pod("app:v1", json!({"nodeSelector": {"pool": "a"}})))];
        let b = vec![(
            "w".to_string(),
            pod("app:v1", json!({"nodeSelector": {"pool": "b"}, "tolerations": [{"key": "x"}]})),
        )];
        assert!(only_suspend_mutable_fields_differ(&a, &b));
        let c = vec![("w".to_string(), pod("app:v2", json!({"nodeSelector": {"pool": "a"}})))];
        assert!(!only_suspend_mutable_fields_differ(&a, &c));
    }

    #[test]
    fn rejection_text() {
        let msg = r#"admission webhook "vjobset-update.kb.io" denied the request: spec.replicatedJobs: Invalid value: [...]: field is immutable"#;
        assert!(is_template_immutable_rejection(msg));
        let js = jobset(json!([{"name": "w", "template": pod("app:v2", json!({}))}]));
        let text = explain_rejection(&js, &revision(1, vec![("w".into(), pod("app:v1", json!({})))]));
        assert!(text.contains("immutable") && text.contains("opportunistic template updates"), "{text}");
        assert!(text.contains("suspending would not help"), "{text}");
        assert!(text.contains("--handover"), "{text}");
        assert!(!text.contains("Invalid value"), "no raw webhook dump: {text}");
    }
}
