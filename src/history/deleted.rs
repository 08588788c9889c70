//! The history of a JobSet that no longer exists: its revisions, kept by the recorder
//! for its retention after the JobSet was deleted (or left without an owner by
//! `--cascade=orphan`), grouped by the uid of the JobSet they belonged to, since a name
//! can be used again.

use jiff::Timestamp;
use serde_json::json;

use super::Revision;
use crate::model::jobset::JobSet;

/// The revisions of one deleted JobSet (one uid).
#[derive(Debug, Clone, PartialEq)]
pub struct DeletedHistory {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// In number order.
    pub revisions: Vec<Revision>,
}

impl DeletedHistory {
    pub fn new(namespace: &str, name: &str, uid: &str, mut revisions: Vec<Revision>) -> Self {
        revisions.sort_by_key(|r| r.number);
        DeletedHistory {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            uid: uid.to_owned(),
            revisions,
        }
    }

    /// When the recorder saw the JobSet gone (the earliest mark), if it did.
    pub fn deleted_at(&self) -> Option<Timestamp> {
        self.revisions.iter().filter_map(|r| r.deleted_at.as_deref()?.parse().ok()).min()
    }

    /// When the recorder prunes the last of its revisions, if it said so.
    pub fn prune_at(&self) -> Option<Timestamp> {
        self.revisions.iter().filter_map(|r| r.prune_at.as_deref()?.parse().ok()).max()
    }

    /// Whether some revision still has an ownerReference to it: the garbage collector
    /// deletes those (written by commands while no recorder ran).
    pub fn owned(&self) -> bool {
        self.revisions.iter().any(|r| r.owner_index.is_some())
    }

    /// The newest thing known of it: its deletion, else its newest revision's record.
    fn last_seen(&self) -> Option<Timestamp> {
        let recorded = self.revisions.iter().filter_map(|r| r.recorded_at.as_deref()?.parse().ok()).max();
        self.deleted_at().or(recorded)
    }

    /// A stand-in for the JobSet, for the views and renderings of a live one: its name,
    /// namespace and uid, no replicatedJobs (so no revision is the spec's) and, as its
    /// attempt, the last one any revision was credited with.
    pub fn stand_in(&self) -> JobSet {
        let attempt = self.revisions.iter().flat_map(|r| r.attempts.iter().copied()).max().unwrap_or(0);
        JobSet::from_raw(json!({
            "apiVersion": crate::model::jobset::API_VERSION,
            "kind": crate::model::jobset::KIND,
            "metadata": {"name": self.name, "namespace": self.namespace, "uid": self.uid},
            "spec": {"replicatedJobs": []},
            "status": {"restarts": attempt}
        }))
        .expect("a minimal JobSet")
    }

    /// `(deleted 5m ago, at …; uid …; …)`: what the heading of its table says after the name.
    pub fn describe(&self, now: Timestamp) -> String {
        let when = match self.deleted_at() {
            Some(at) => format!("deleted {} ago, at {at:.0}", crate::age::format_age(Some(at), now)),
            None => "deleted".to_owned(),
        };
        let fate = match (self.prune_at(), self.owned()) {
            (_, true) => {
                "its revisions are still owned by it, so the garbage collector deletes them".to_owned()
            }
            (Some(at), false) if at <= now => "its history is pruned now".to_owned(),
            (Some(at), false) => {
                format!("its history is pruned at {at:.0} (in {})", crate::age::format_age(Some(now), at))
            }
            (None, false) => {
                "no recorder has seen it deleted yet: a running recorder keeps its history for its \
                 --history-retention from when it does"
                    .to_owned()
            }
        };
        format!("{when}; uid {}; {fate}", self.uid)
    }
}

/// Newest first: the latest deleted (or, not marked, the latest recorded) first.
pub fn newest_first(histories: &mut [DeletedHistory]) {
    histories.sort_by(|a, b| b.last_seen().cmp(&a.last_seen()).then_with(|| a.uid.cmp(&b.uid)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::parse;
    use crate::testing;

    fn kept(uid: &str, number: i64, recorded: &str, deleted: Option<(&str, &str)>) -> Revision {
        let mut b = testing::revision("js", uid, number)
            .released()
            .annotation(crate::history::RECORDED_ANNOTATION, recorded)
            .attempts(&number.to_string());
        if let Some((at, prune)) = deleted {
            b = b
                .annotation(crate::history::DELETED_ANNOTATION, at)
                .annotation(crate::history::PRUNE_ANNOTATION, prune);
        }
        parse(&b.stored(), uid).unwrap()
    }

    #[test]
    fn a_deleted_history_says_when_it_was_deleted_and_when_it_is_pruned() {
        let now: Timestamp = "2026-12-02T08:00:00Z".parse().unwrap();
        let marks = Some(("2026-12-02T07:55:00Z", "2026-12-09T07:55:00Z"));
        let h = DeletedHistory::new(
            "ml",
            "js",
            "u1",
            vec![kept("u1", 2, "2026-12-01T00:00:00Z", marks), kept("u1", 1, "2026-12-01T00:00:00Z", marks)],
        );
        assert_eq!(h.revisions.iter().map(|r| r.number).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(
            h.describe(now),
            "deleted 5m ago, at 2026-12-02T07:55:00Z; uid u1; its history is pruned at 2026-12-09T07:55:00Z (in 6d23h)"
        );
        let js = h.stand_in();
        assert_eq!((js.name(), js.namespace(), js.uid(), js.attempt()), ("js", "ml", "u1", 2));
        let unmarked =
            DeletedHistory::new("ml", "js", "u0", vec![kept("u0", 1, "2026-11-01T00:00:00Z", None)]);
        assert!(unmarked.describe(now).starts_with("deleted; uid u0; no recorder has seen it deleted yet"));
        let mut all = vec![unmarked, h];
        newest_first(&mut all);
        assert_eq!(all.iter().map(|h| h.uid.as_str()).collect::<Vec<_>>(), vec!["u1", "u0"]);
        newest_first(&mut all[..]);
        assert_eq!(all[0].uid, "u1");
    }
}
