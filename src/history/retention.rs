//! What the recorder does with the revisions of JobSets that are gone: the pure part
//! (what to mark, unmark and prune, given its caches and the clock; `recorder::retention`
//! sends it).
//!
//! Only revisions without a JobSet owner and with a `jobset-uid` label are considered:
//! owned ones are the garbage collector's, and an ownerless one without the label does
//! not say whose it is. When the uid is no live JobSet's (the recorder confirms that
//! with a GET before it believes its cache), each revision is marked once with
//! `jobset-deleted-at` (now) and `prune-at` (that plus the retention); it is deleted once
//! `prune-at` has passed. A retention changed since the mark moves `prune-at`. Every write
//! is guarded by the revision's resourceVersion, so two recorders at once do it once.

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use json_patch::Patch;
use k8s_openapi::api::apps::v1::ControllerRevision;

use super::{
    DELETED_ANNOTATION, FORMAT, FORMAT_ANNOTATION, JOBSET_LABEL, PRUNE_ANNOTATION, has_jobset_owner,
    uid_label,
};
use crate::model::patch::{add, pointer, remove, test_resource_version};

/// What the recorder knows of JobSet uids.
#[derive(Debug, Default, Clone)]
pub struct Known {
    /// JobSets that exist (in its cache, or confirmed by a GET although out of its scope).
    pub live: HashSet<String>,
    /// JobSets confirmed gone (a GET found nothing, or another uid under the name).
    pub gone: HashSet<String>,
}

/// A JobSet whose revisions look orphaned: confirm it is gone before acting.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Suspect {
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

/// One write to a revision of a JobSet that is gone (or, unmarking, is not).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub namespace: String,
    /// The revision.
    pub name: String,
    /// The JobSet's name and uid.
    pub jobset: String,
    pub uid: String,
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// A guarded JSON patch of its annotations: kept until `until`.
    Mark { ops: Patch, until: Timestamp },
    /// A guarded JSON patch removing the marks (the JobSet exists).
    Unmark(Patch),
    /// Delete, guarded by resourceVersion.
    Prune { resource_version: String },
}

/// The retention's next moves.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Plan {
    pub steps: Vec<Step>,
    /// uids to confirm gone first (nothing is planned for their revisions yet).
    pub suspects: Vec<Suspect>,
    /// Revisions of deleted JobSets kept now (marked or being marked, not yet due).
    pub kept: usize,
    /// When the next kept revision is due for pruning.
    pub next_due: Option<Timestamp>,
}

/// RFC 3339 to the second, as every other timestamp we write.
pub fn stamp(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Whether a change to a stored revision may give the retention something to do: one of
/// ours, without a JobSet owner, and marked, or labelled with a uid other than
/// `live_uid` (the uid of the JobSet its labels name, when the cache holds one). A
/// revision just recorded for a live JobSet does not: looking at the whole cache for it
/// would make every recording cost as much as the fleet.
pub fn concerns_retention(stored: &ControllerRevision, live_uid: Option<&str>) -> bool {
    let annotations = stored.metadata.annotations.as_ref();
    let annotation = |key: &str| annotations.and_then(|a| a.get(key));
    if has_jobset_owner(stored) || annotation(FORMAT_ANNOTATION).map(String::as_str) != Some(FORMAT) {
        return false;
    }
    let marked = annotation(DELETED_ANNOTATION).is_some() || annotation(PRUNE_ANNOTATION).is_some();
    marked || uid_label(stored).is_some_and(|uid| live_uid != Some(uid))
}

/// Plans marks, unmarks and prunes for the revisions in the cache.
pub fn plan<'a>(
    revisions: impl IntoIterator<Item = &'a ControllerRevision>,
    known: &Known,
    retention: Duration,
    now: Timestamp,
) -> Plan {
    let retention = SignedDuration::try_from(retention).unwrap_or(SignedDuration::MAX);
    let mut plan = Plan::default();
    let mut suspects = BTreeMap::new();
    for stored in revisions {
        let meta = &stored.metadata;
        let annotation = |key: &str| meta.annotations.as_ref().and_then(|a| a.get(key));
        let (Some(namespace), Some(name), Some(uid)) = (&meta.namespace, &meta.name, uid_label(stored))
        else {
            continue;
        };
        if has_jobset_owner(stored) || annotation(FORMAT_ANNOTATION).map(String::as_str) != Some(FORMAT) {
            continue;
        }
        let jobset = meta.labels.as_ref().and_then(|l| l.get(JOBSET_LABEL)).cloned().unwrap_or_default();
        let version = meta.resource_version.clone().unwrap_or_default();
        let path = |key: &str| pointer(&["metadata", "annotations", key]);
        let step = |action| Step {
            namespace: namespace.clone(),
            name: name.clone(),
            jobset: jobset.clone(),
            uid: uid.to_owned(),
            action,
        };
        if known.live.contains(uid) {
            // Marked by mistake (say, a recorder whose cache lagged): the JobSet exists.
            if annotation(DELETED_ANNOTATION).is_some() {
                let mut ops = vec![test_resource_version(version.as_str()), remove(path(DELETED_ANNOTATION))];
                if annotation(PRUNE_ANNOTATION).is_some() {
                    ops.push(remove(path(PRUNE_ANNOTATION)));
                }
                plan.steps.push(step(Action::Unmark(Patch(ops))));
            }
            continue;
        }
        if !known.gone.contains(uid) {
            let suspect = Suspect { namespace: namespace.clone(), name: jobset.clone(), uid: uid.to_owned() };
            suspects.insert(uid.to_owned(), suspect);
            continue;
        }
        let marked: Option<Timestamp> = annotation(DELETED_ANNOTATION).and_then(|t| t.parse().ok());
        let deleted_at = marked.unwrap_or(now);
        let due = deleted_at.checked_add(retention).unwrap_or(Timestamp::MAX);
        if due <= now {
            plan.steps.push(step(Action::Prune { resource_version: version }));
            continue;
        }
        plan.kept += 1;
        plan.next_due = Some(plan.next_due.map_or(due, |d: Timestamp| d.min(due)));
        let mut ops = vec![test_resource_version(version.as_str())];
        if marked.is_none() {
            ops.push(add(path(DELETED_ANNOTATION), stamp(deleted_at)));
        }
        if annotation(PRUNE_ANNOTATION) != Some(&stamp(due)) {
            ops.push(add(path(PRUNE_ANNOTATION), stamp(due)));
        }
        if ops.len() > 1 {
            plan.steps.push(step(Action::Mark { ops: Patch(ops), until: due }));
        }
    }
    plan.suspects = suspects.into_values().collect();
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use serde_json::json;

    const NOW: &str = "2026-12-02T08:00:00Z";
    const WEEK: Duration = Duration::from_secs(7 * 24 * 3600);

    fn now() -> Timestamp {
        NOW.parse().unwrap()
    }

    fn kept(uid: &str, number: i64) -> testing::RevisionBuilder {
        testing::revision("js", uid, number).meta("namespace", "ml").label(JOBSET_LABEL, "js").released()
    }

    fn known(live: &[&str], gone: &[&str]) -> Known {
        Known {
            live: live.iter().map(|s| (*s).to_owned()).collect(),
            gone: gone.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn ops(step: &Step) -> serde_json::Value {
        match &step.action {
            Action::Mark { ops, .. } | Action::Unmark(ops) => serde_json::to_value(ops).unwrap(),
            Action::Prune { .. } => json!(null),
        }
    }

    #[test]
    fn only_revisions_of_jobsets_not_live_or_marked_concern_the_retention() {
        let recorded = kept("u1", 1).stored();
        assert!(!concerns_retention(&recorded, Some("u1")), "just recorded for a live JobSet");
        assert!(concerns_retention(&recorded, None), "its JobSet is not in the cache");
        assert!(concerns_retention(&recorded, Some("u2")), "another JobSet under the name");
        let marked = kept("u1", 1).annotation(DELETED_ANNOTATION, NOW).stored();
        assert!(concerns_retention(&marked, Some("u1")), "marked: to unmark");
        let owned = testing::revision("js", "u1", 1).meta("namespace", "ml").stored();
        assert!(!concerns_retention(&owned, None), "the garbage collector's");
    }

    #[test]
    fn a_gone_jobsets_revisions_are_confirmed_then_marked_once_and_pruned_when_due() {
        let fresh = kept("u1", 1).meta("resourceVersion", "7").stored();
        // Not in the cache: confirmed first, nothing written.
        let p = plan([&fresh], &known(&[], &[]), WEEK, now());
        assert!(p.steps.is_empty());
        assert_eq!(p.suspects, vec![Suspect { namespace: "ml".into(), name: "js".into(), uid: "u1".into() }]);
        // Confirmed gone: marked, guarded by its resourceVersion.
        let p = plan([&fresh], &known(&[], &["u1"]), WEEK, now());
        assert_eq!(p.kept, 1);
        assert_eq!(p.next_due, Some("2026-12-09T08:00:00Z".parse().unwrap()));
        assert_eq!(
            ops(&p.steps[0]),
            json!([{"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
                {"op": "add", "path": "/metadata/annotations/kubectl-jobset.io~1jobset-deleted-at", "value": NOW},
                {"op": "add", "path": "/metadata/annotations/kubectl-jobset.io~1prune-at", "value": "2026-12-09T08:00:00Z"}])
        );
        // Marked: nothing more until due, then one guarded delete.
        let marked = kept("u1", 1)
            .meta("resourceVersion", "8")
            .annotation(DELETED_ANNOTATION, NOW)
            .annotation(PRUNE_ANNOTATION, "2026-12-09T08:00:00Z")
            .stored();
        let p = plan([&marked], &known(&[], &["u1"]), WEEK, now());
        assert!(p.steps.is_empty(), "{p:?}");
        assert_eq!(p.kept, 1);
        let later = "2026-12-09T08:00:00Z".parse().unwrap();
        let p = plan([&marked], &known(&[], &["u1"]), WEEK, later);
        assert_eq!(
            p.steps,
            vec![Step {
                namespace: "ml".into(),
                name: "js-1".into(),
                jobset: "js".into(),
                uid: "u1".into(),
                action: Action::Prune { resource_version: "8".into() }
            }]
        );
        assert_eq!((p.kept, p.next_due), (0, None));
        // A shorter retention since the mark moves prune-at; zero prunes at once.
        let p = plan([&marked], &known(&[], &["u1"]), Duration::from_secs(3600), now());
        assert_eq!(
            ops(&p.steps[0])[1],
            json!({"op": "add", "path": "/metadata/annotations/kubectl-jobset.io~1prune-at", "value": "2026-12-02T09:00:00Z"})
        );
        let p = plan([&fresh], &known(&[], &["u1"]), Duration::ZERO, now());
        assert!(matches!(p.steps.as_slice(), [Step { action: Action::Prune { .. }, .. }]), "{p:?}");
    }

    #[test]
    fn live_owned_and_unlabelled_revisions_are_left_alone_and_a_wrong_mark_is_undone() {
        let live = kept("u1", 1).meta("resourceVersion", "3").stored();
        let owned = testing::revision("js", "u2", 1)
            .label(crate::history::UID_LABEL, "u2")
            .meta("namespace", "ml")
            .stored();
        let orphan = testing::revision("js", "u3", 1).meta("namespace", "ml").stored();
        let mut orphan = orphan;
        orphan.metadata.owner_references = None;
        let p = plan([&live, &owned, &orphan], &known(&["u1"], &["u2", "u3"]), WEEK, now());
        assert_eq!(p, Plan::default());
        let wrong = kept("u1", 1)
            .meta("resourceVersion", "4")
            .annotation(DELETED_ANNOTATION, NOW)
            .annotation(PRUNE_ANNOTATION, NOW)
            .stored();
        let p = plan([&wrong], &known(&["u1"], &[]), WEEK, now());
        assert_eq!(
            ops(&p.steps[0]),
            json!([{"op": "test", "path": "/metadata/resourceVersion", "value": "4"},
                {"op": "remove", "path": "/metadata/annotations/kubectl-jobset.io~1jobset-deleted-at"},
                {"op": "remove", "path": "/metadata/annotations/kubectl-jobset.io~1prune-at"}])
        );
    }
}
