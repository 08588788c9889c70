//! A change staged for the next restart (`--at-next-restart`), without I/O: templates
//! kept out of the spec, in a ControllerRevision of their own, until the JobSet next
//! restarts (forced by `restart`, or natural, applied by the in-cluster recorder).
//!
//! Why out of the spec: a JobSet Kueue has admitted is stopped by Kueue as soon as its
//! containers change, and a running one would pick up any spec change at its next
//! natural restart anyway; a staged change lands only when the JobSet restarts, in the
//! order that makes the new attempt run it (spec change, Kueue's stop, a restart while
//! suspended, re-admission).
//!
//! Applying is resumable and exactly-once: the revision records the attempt the restart
//! starts from (`restart-from-attempt`) before the restart is sent, so whoever applies
//! it (a command, the recorder, after a crash) knows whether the restart still has to
//! be made (the attempt has not moved) or was made (it has), and the restart itself is
//! guarded by a `test` on `status.restarts`.

use std::collections::BTreeMap;

use crate::model::compact::Compact;
use json_patch::Patch;
use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;

use crate::history::{self, JOBSET_LABEL, Templates, same_templates_in_order, templates_of};
use crate::model::jobset::{API_VERSION, JobSet, KIND};
use crate::model::patch::{pointer, replace, test};

/// Label on a staged change's revision (listed with the JobSet's history, told apart by it).
pub const STAGED_LABEL: &str = "kubectl-jobset.io/staged";
/// Its data format (never read as a history revision).
pub const STAGED_FORMAT: &str = "staged-replicated-job-templates/v1";
/// Annotation: the hash of the spec templates the change was planned on.
pub const BASE_ANNOTATION: &str = "kubectl-jobset.io/staged-on";
/// Annotation: the restart attempt when it was staged.
pub const ATTEMPT_ANNOTATION: &str = "kubectl-jobset.io/staged-at-attempt";
/// Annotation: set while it is applied: the attempt its restart starts from.
pub const APPLYING_ANNOTATION: &str = "kubectl-jobset.io/restart-from-attempt";
/// Annotation on a change a staged rollout holds for a later batch (`NAMESPACE/ROLLOUT`):
/// no restart applies it; the rollout moves it into the spec when the batch comes.
pub const HELD_ANNOTATION: &str = "kubectl-jobset.io/held-for-rollout";

/// A change waiting for the JobSet's next restart.
#[derive(Debug, Clone, PartialEq)]
pub struct Staged {
    pub name: String,
    pub templates: Templates,
    /// Hash of the spec templates it was planned on.
    pub base: String,
    pub staged_at_attempt: i32,
    /// The attempt its restart starts from, once applying began.
    pub restart_from: Option<i32>,
    pub cause: Option<String>,
    pub resource_version: String,
    /// Counts the changes staged for this JobSet (the revision's `revision`): a new stage
    /// is created under the next one before the one it replaces is deleted, so a failure
    /// in between never loses a staged change; the newest one is the staged change.
    pub generation: i64,
    /// Older staged revisions of the JobSet a failed cleanup left behind (name and
    /// resourceVersion): never applied, deleted with the next stage or apply.
    pub superseded: Vec<(String, String)>,
    /// The rollout (`NAMESPACE/NAME`) that holds it for a later batch, if one does.
    pub held_for: Option<String>,
}

impl Staged {
    /// Whether a restart applies it: a change a rollout holds waits for its batch instead.
    pub fn applies_at_restart(&self) -> bool {
        self.held_for.is_none()
    }
}

/// The revision name for a JobSet's staged change of `generation` (the first one keeps
/// the plain `<jobset>-staged`).
pub fn revision_name(jobset: &JobSet, generation: i64) -> String {
    match generation {
        ..=1 => format!("{}-staged", jobset.name()),
        n => format!("{}-staged-{n}", jobset.name()),
    }
}

/// The generation a new stage on top of `existing` is created as.
pub fn next_generation(existing: Option<&Staged>) -> i64 {
    existing.map_or(1, |old| old.generation + 1)
}

/// The staged change of a JobSet among its staged revisions: the newest generation, with
/// the others as superseded.
pub fn newest(mut all: Vec<Staged>) -> Option<Staged> {
    all.sort_by(|a, b| b.generation.cmp(&a.generation).then_with(|| b.name.cmp(&a.name)));
    let mut all = all.into_iter();
    let mut newest = all.next()?;
    for older in all {
        newest.superseded.extend(older.superseded);
        newest.superseded.push((older.name, older.resource_version));
    }
    Some(newest)
}

/// Whether a listed ControllerRevision is a staged change (not a history revision).
pub fn is_staged(revision: &ControllerRevision) -> bool {
    revision.metadata.labels.as_ref().is_some_and(|l| l.contains_key(STAGED_LABEL))
}

/// Reads a staged change owned by `owner_uid`; None when it is not one (or not its).
pub fn parse(revision: &ControllerRevision, owner_uid: &str) -> Option<Staged> {
    let meta = &revision.metadata;
    let owned = meta.owner_references.iter().flatten().any(|r| r.uid == owner_uid);
    let text = |key: &str| meta.annotations.as_ref().and_then(|a| a.get(key)).cloned();
    if !owned || !is_staged(revision) || text(history::FORMAT_ANNOTATION).as_deref() != Some(STAGED_FORMAT) {
        return None;
    }
    let data = history::data_of(revision)?;
    let items = data["replicatedJobs"].as_array()?;
    let templates = items
        .iter()
        .map(|item| Some((item["name"].as_str()?.to_owned(), item.get("template")?.clone())))
        .collect::<Option<Templates>>()?;
    Some(Staged {
        name: meta.name.clone().unwrap_or_default(),
        templates,
        base: text(BASE_ANNOTATION).unwrap_or_default(),
        staged_at_attempt: text(ATTEMPT_ANNOTATION).and_then(|a| a.parse().ok()).unwrap_or(0),
        restart_from: text(APPLYING_ANNOTATION).and_then(|a| a.parse().ok()),
        cause: text(history::CHANGE_CAUSE),
        resource_version: meta.resource_version.clone().unwrap_or_default(),
        generation: revision.revision,
        superseded: Vec::new(),
        held_for: text(HELD_ANNOTATION),
    })
}

/// The revision that stages `templates` for `jobset` (planned on its spec as read), as
/// its staged change of `generation`.
pub fn revision(jobset: &JobSet, templates: &Templates, cause: &str, generation: i64) -> ControllerRevision {
    let annotations: BTreeMap<String, String> = [
        (history::FORMAT_ANNOTATION, STAGED_FORMAT.to_owned()),
        (BASE_ANNOTATION, history::hash(&templates_of(jobset))),
        (ATTEMPT_ANNOTATION, jobset.attempt().to_string()),
        (history::CHANGE_CAUSE, cause.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let labels = [(JOBSET_LABEL, jobset.name()), (STAGED_LABEL, "true")];
    ControllerRevision {
        metadata: ObjectMeta {
            name: Some(revision_name(jobset, generation)),
            namespace: Some(jobset.namespace().to_owned()),
            labels: Some(labels.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()),
            annotations: Some(annotations),
            // Owned: it goes when the JobSet goes.
            owner_references: Some(vec![OwnerReference {
                api_version: API_VERSION.to_owned(),
                kind: KIND.to_owned(),
                name: jobset.name().to_owned(),
                uid: jobset.uid().to_owned(),
                ..Default::default()
            }]),
            ..Default::default()
        },
        data: Some(RawExtension(history::data(templates))),
        // Staged changes are not numbered history: the number orders them instead.
        revision: generation,
    }
}

/// The revision that holds `templates` for `jobset` for rollout `rollout`
/// (`NAMESPACE/NAME`) until its batch: a staged change no restart applies.
pub fn held_revision(
    jobset: &JobSet,
    templates: &Templates,
    cause: &str,
    rollout: &str,
) -> ControllerRevision {
    let mut held = revision(jobset, templates, cause, 1);
    held.metadata
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .insert(HELD_ANNOTATION.into(), rollout.into());
    held
}

/// What the next step of applying a staged change is, given the JobSet as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The spec still holds the templates it was planned on: patch them in.
    PatchSpec(Patch),
    /// The spec holds the staged templates: restart (from this attempt), after marking it.
    Restart { from: i32 },
    /// The restart from `restart_from` was made (the attempt moved): remove the revision.
    Done,
    /// The spec changed since it was staged (neither the base nor the staged templates).
    Stale(String),
}

/// The next step for `staged` on `jobset`.
pub fn next_step(jobset: &JobSet, staged: &Staged) -> Step {
    let spec = templates_of(jobset);
    if let Some(from) = staged.restart_from {
        return if jobset.attempt() > from { Step::Done } else { Step::Restart { from } };
    }
    if same_templates_in_order(&spec, &staged.templates) {
        return Step::Restart { from: jobset.attempt() };
    }
    if history::hash(&spec) == staged.base {
        return Step::PatchSpec(template_patch(jobset, &staged.templates));
    }
    // Applied, and then Kueue's stop rewrote the pod templates' scheduling fields (or it
    // injected its own at admission): the containers are the staged ones.
    if super::rollback::only_suspend_mutable_fields_differ(&spec, &staged.templates) {
        return Step::Restart { from: jobset.attempt() };
    }
    Step::Stale(format!(
        "the change staged in controllerrevision {} was planned on templates that have changed since (the \
         spec was edited after it was staged), so it is not applied: stage it again, or delete that revision \
         to drop it",
        staged.name
    ))
}

/// One JSON patch that replaces the spec's templates with `wanted` where they differ,
/// each guarded by a `test` of the template read (and the uid: not a JobSet created
/// again under the name since).
pub fn template_patch(jobset: &JobSet, wanted: &Templates) -> Patch {
    let mut ops = vec![super::rollback::uid_guard(jobset)];
    for (i, (name, template)) in templates_of(jobset).iter().enumerate() {
        let Some((_, want)) = wanted.iter().find(|(n, _)| n == name) else { continue };
        if history::canonical(want) == history::canonical(template) {
            continue;
        }
        let i = i.to_string();
        ops.push(test(pointer(&["spec", "replicatedJobs", &i, "name"]), name.as_str()));
        ops.push(test(pointer(&["spec", "replicatedJobs", &i, "template"]), template.clone()));
        ops.push(replace(pointer(&["spec", "replicatedJobs", &i, "template"]), want.clone()));
    }
    Patch(ops)
}

/// The patch that marks a staged change as being applied from attempt `from`, guarded
/// by the revision's resourceVersion (two appliers: one marks, the other re-reads).
pub fn mark_applying(staged: &Staged, from: i32) -> Patch {
    Patch(vec![
        crate::model::patch::test_resource_version(staged.resource_version.clone()),
        crate::model::patch::add(
            pointer(&["metadata", "annotations", APPLYING_ANNOTATION]),
            from.to_string(),
        ),
    ])
}

/// A JobSet as it would stand with `templates` in its spec (to plan a change on a staged one).
pub fn with_templates(jobset: &JobSet, templates: &Templates) -> JobSet {
    let mut planned = jobset.clone();
    for rjob in &mut planned.spec.replicated_jobs {
        if let Some((_, t)) = templates.iter().find(|(n, _)| *n == rjob.name) {
            rjob.template = Compact::of(t);
        }
    }
    planned
}

/// When a staged change is applied, in words.
pub fn words(staged: &Staged, recorder_running: bool) -> String {
    let cause = staged.cause.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
    if let Some(rollout) = &staged.held_for {
        return held_words(&staged.name, &cause, rollout);
    }
    let natural = if recorder_running {
        "the recorder applies it at a natural restart"
    } else {
        "no recorder is running, so only a forced restart applies it"
    };
    format!(
        "a change is staged for the next restart in controllerrevision {}{cause}: `restart` applies it now; \
         {natural}",
        staged.name
    )
}

/// Why no change can be staged on top of `existing`: a rollout holds it for a batch.
pub fn held_refusal(existing: Option<&Staged>) -> Option<String> {
    let existing = existing?;
    let (namespace, name) = rollout_of(existing.held_for.as_deref()?);
    Some(format!(
        "rollout {name} (namespace {namespace}) holds a change for it (controllerrevision {}), to apply \
         when its batch comes; stage nothing on top of it: wait for the rollout, or `{}` first",
        existing.name,
        crate::hint::kubectl_jobset(&format!("rollout abort {name}"), namespace)
    ))
}

/// `NAMESPACE/ROLLOUT`, as a held revision names its rollout, in its two parts.
fn rollout_of(held_for: &str) -> (&str, &str) {
    held_for.split_once('/').unwrap_or(("", held_for))
}

/// A held change in words: where it is, and that no restart applies it.
pub fn held_words(revision: &str, cause: &str, rollout: &str) -> String {
    let (namespace, name) = rollout_of(rollout);
    format!(
        "rollout {name} (namespace {namespace}) holds a change for a later batch in controllerrevision \
         {revision}{cause}: it reaches the spec when the rollout reaches this JobSet, and no restart applies \
         it before that (`{}` shows it)",
        crate::hint::kubectl_jobset(&format!("rollout status {name}"), namespace)
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn generation(name: &str, generation: i64, superseded: &[&str]) -> Staged {
        Staged {
            name: name.into(),
            templates: vec![],
            base: String::new(),
            staged_at_attempt: 0,
            restart_from: None,
            cause: None,
            resource_version: format!("rv-{name}"),
            generation,
            superseded: superseded.iter().map(|s| (s.to_string(), format!("rv-{s}"))).collect(),
            held_for: None,
        }
    }

    #[test]
    fn the_newest_generation_is_the_staged_change_and_the_others_are_superseded() {
        let all = vec![
            generation("t-staged", 1, &[]),
            generation("t-staged-3", 3, &["t-staged-0"]),
            generation("t-staged-2", 2, &[]),
        ];
        let newest = newest(all).unwrap();
        assert_eq!(newest.name, "t-staged-3");
        let superseded: Vec<&str> = newest.superseded.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(superseded, ["t-staged-0", "t-staged-2", "t-staged"]);
        assert_eq!(newest.superseded[1].1, "rv-t-staged-2");
        assert!(super::newest(vec![]).is_none());
    }

    #[test]
    fn generations_are_named_after_the_first() {
        let base = jobset("app:v1", 0);
        assert_eq!(revision_name(&base, 1), "train-staged");
        assert_eq!(revision_name(&base, 2), "train-staged-2");
        assert_eq!(next_generation(None), 1);
        assert_eq!(next_generation(Some(&generation("train-staged-2", 2, &[]))), 3);
        assert_eq!(revision(&base, &templates_of(&base), "", 4).revision, 4);
    }

    fn jobset(image: &str, restarts: i32) -> JobSet {
        JobSet::from_raw(
            json!({"metadata": {"name": "train", "namespace": "ml", "uid": "u1", "resourceVersion": "5"},
            "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "main", "image": image}]}}}}}]},
            "status": {"restarts": restarts}}),
        )
        .unwrap()
    }

    fn staged_on(base: &JobSet, image: &str) -> Staged {
        let templates = templates_of(&jobset(image, 0));
        let stored = revision(base, &templates, "set image main=app:v2", 1);
        parse(&stored, "u1").expect("our own revision reads back")
    }

    #[test]
    fn a_staged_revision_reads_back_and_is_not_history() {
        let base = jobset("app:v1", 2);
        let stored = revision(&base, &templates_of(&jobset("app:v2", 0)), "why", 1);
        assert!(is_staged(&stored));
        assert_eq!(stored.metadata.name.as_deref(), Some("train-staged"));
        let staged = parse(&stored, "u1").unwrap();
        assert_eq!((staged.staged_at_attempt, staged.restart_from), (2, None));
        assert_eq!(staged.base, history::hash(&templates_of(&base)));
        assert!(parse(&stored, "another-uid").is_none(), "another JobSet's is not ours");
        // History never reads it as a revision of its own.
        assert!(history::parse(&stored, "u1").is_err());
    }

    #[test]
    fn a_held_change_reads_back_as_held_and_no_restart_applies_it() {
        let base = jobset("app:v1", 0);
        let stored = held_revision(&base, &templates_of(&jobset("app:v2", 0)), "rollout r", "ops/r");
        assert_eq!(stored.metadata.name.as_deref(), Some("train-staged"));
        let held = parse(&stored, "u1").unwrap();
        assert_eq!(held.held_for.as_deref(), Some("ops/r"));
        assert!(!held.applies_at_restart());
        assert!(staged_on(&base, "app:v2").applies_at_restart());
        let said = words(&held, true);
        assert!(
            said.contains("rollout r (namespace ops)") && said.contains("no restart applies it"),
            "{said}"
        );
    }

    #[test]
    fn the_steps_patch_then_mark_and_restart_then_finish() {
        let base = jobset("app:v1", 2);
        let staged = staged_on(&base, "app:v2");
        let Step::PatchSpec(patch) = next_step(&base, &staged) else { panic!("patch first") };
        let ops = serde_json::to_value(&patch).unwrap();
        assert_eq!(ops[0], json!({"op": "test", "path": "/metadata/uid", "value": "u1"}));
        assert_eq!(ops[3]["op"], "replace");
        assert_eq!(ops[3]["value"]["spec"]["template"]["spec"]["containers"][0]["image"], "app:v2");
        // Patched: restart from the attempt read.
        assert_eq!(next_step(&jobset("app:v2", 2), &staged), Step::Restart { from: 2 });
        // Marked: still restart from 2 until the attempt moves; then done.
        let marked = Staged { restart_from: Some(2), ..staged.clone() };
        assert_eq!(next_step(&jobset("app:v2", 2), &marked), Step::Restart { from: 2 });
        assert_eq!(next_step(&jobset("app:v2", 3), &marked), Step::Done);
        assert_eq!(next_step(&jobset("app:v2", 7), &marked), Step::Done);
    }

    #[test]
    fn an_applied_change_whose_labels_kueue_rewrote_is_still_applied() {
        let staged = staged_on(&jobset("app:v1", 0), "app:v2");
        let mut rewritten = jobset("app:v2", 0);
        rewritten.spec.replicated_jobs[0]
            .template
            .edit(|t| t["spec"]["template"]["metadata"] = json!({"labels": {"kueue.x-k8s.io/podset": "w"}}));
        assert_eq!(next_step(&rewritten, &staged), Step::Restart { from: 0 });
    }

    #[test]
    fn a_spec_edited_since_makes_it_stale() {
        let staged = staged_on(&jobset("app:v1", 0), "app:v2");
        let Step::Stale(why) = next_step(&jobset("app:v9", 0), &staged) else { panic!("stale") };
        assert!(why.contains("train-staged") && why.contains("changed since"), "{why}");
    }

    #[test]
    fn marking_is_guarded_by_the_revision_version() {
        let staged = Staged { resource_version: "42".into(), ..staged_on(&jobset("app:v1", 0), "app:v2") };
        assert_eq!(
            serde_json::to_value(mark_applying(&staged, 3)).unwrap(),
            json!([{"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
                   {"op": "add", "path": "/metadata/annotations/kubectl-jobset.io~1restart-from-attempt", "value": "3"}])
        );
    }
}
