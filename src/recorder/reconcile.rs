//! The recorder's workers, one per lane of the queue: each takes a few queued JobSets of
//! its lane at a time, builds a `Fleet` from the stores (no extra reads), runs the observe
//! step's compare and record on it (the same code every command runs, so the recorder and
//! the CLI plan the same guarded writes),
//! and queues again each JobSet whose record outcome says it is not done. A JobSet whose
//! stores hold what they held when its last reconcile was done (with our writes) is not
//! reconciled again: the echo of our own write is not news. The lanes do not wait for
//! each other: one lane's slow write never holds up the next JobSets of the others.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::runtime::reflector::ObjectRef;

use super::metrics::Metrics;
use super::queue::{Key, LANES};
use super::state::{Seen, Shared};
use crate::cluster::Cluster;
use crate::error::Error;
use crate::history::{self, Revision};
use crate::model::jobset::{ChildJob, JobSet};
use crate::model::resource_version::at_least;
use crate::observe::record::torn_read;
use crate::observe::{
    Defaulter, Fleet, Histories, RecordOptions, RecordOutcome, Recorded, compute, record, spec_revision,
};

/// JobSets a lane reconciles together (one compare and one record over them). Each is
/// read out of the stores with its Jobs and revisions for the reconcile: few at a time
/// (`LANES` × `TAKE` in all) keep a catch-up's peak close to the stores' own size.
const TAKE: usize = 8;
/// While more JobSets than the lanes take at once are ready, the queue holds a backlog:
/// Events wait (`Shared::no_backlog`), so a catch-up's writes have the API server first.
const BACKLOG: usize = LANES * TAKE;
/// How soon a JobSet is looked at again after a torn read (Jobs of an attempt its status
/// does not show yet: the two watches are not in step).
const TORN_READ_RETRY: Duration = Duration::from_millis(200);
/// How soon a JobSet is looked at again while the revision store does not show our own
/// last writes yet, and how long we wait for that at most.
const STORE_RETRY: Duration = Duration::from_millis(50);
const STORE_WAIT: Duration = Duration::from_secs(2);
/// How soon a JobSet in the middle of a handover is looked at again, and for how long
/// after its creation it may be waited for (a handover that stopped half-way is rerun by
/// hand; meanwhile the JobSet is recorded as usual).
const HANDOVER_RETRY: Duration = Duration::from_millis(200);
const HANDOVER_WAIT: jiff::SignedDuration = jiff::SignedDuration::from_secs(300);
/// Dry-run caches start afresh after this many reconciled JobSets, in all lanes (bounded
/// memory).
const DEFAULTER_RESET: u64 = 5_000;

/// Reconciles queued JobSets, a worker per lane, until asked to stop (what is in flight is
/// finished first).
pub(super) async fn work(shared: &Shared<'_>, cluster: &Cluster, options: &RecordOptions) {
    futures::future::join_all((0..LANES).map(|lane| work_lane(shared, cluster, options, lane))).await;
}

/// One lane's worker: takes a few of its JobSets at a time and reconciles them. A JobSet
/// is always in the same lane, so it is never in two reconciles at once, and its templates
/// are dry-run by the same cache each time.
async fn work_lane(shared: &Shared<'_>, cluster: &Cluster, options: &RecordOptions, lane: usize) {
    let mut defaulter = Defaulter::new(cluster);
    let mut reconciled = 0u64;
    loop {
        if shared.stopping.get() {
            return;
        }
        // Asked for before the queue is looked at: a key queued meanwhile wakes this lane.
        let woken = shared.wake.notified();
        let (taken, due) = if shared.synced() {
            let mut queue = shared.queue.borrow_mut();
            let promoted = queue.promote(Instant::now());
            let taken = queue.take(lane, TAKE);
            let backlog = queue.ready_len() >= BACKLOG;
            let due = queue.next_due();
            drop(queue);
            shared.set_backlog(backlog);
            if promoted {
                // Keys of other lanes may be among them.
                shared.wake_workers();
            }
            (taken, due)
        } else {
            (Vec::new(), None)
        };
        if taken.is_empty() {
            let due = async {
                match due {
                    Some(due) => tokio::time::sleep_until(due.into()).await,
                    None => futures::future::pending().await,
                }
            };
            tokio::select! {
                () = woken => {}
                () = due => {}
            }
            continue;
        }
        if !shared.leading() {
            // A standby does not record; it queues everything again when it leads.
            shared.queue.borrow_mut().clear();
            shared.set_backlog(false);
            continue;
        }
        reconciled += taken.len() as u64;
        if reconciled > DEFAULTER_RESET / LANES as u64 {
            reconciled = 0;
            defaulter = Defaulter::new(cluster);
        }
        reconcile_taken(shared, cluster, &mut defaulter, options, taken).await;
    }
}

/// One JobSet ready to reconcile, with what the stores hold of it.
struct Item {
    key: Key,
    since: Instant,
    seen: Seen,
    /// An earlier version of the JobSet is recorded first: the reconcile is not done.
    earlier: bool,
    jobset: JobSet,
    jobs: Vec<ChildJob>,
    revisions: Vec<ControllerRevision>,
}

/// Reconciles JobSets a lane took: those the stores show as they were left are skipped,
/// those not ready yet come back later, the rest are compared and recorded together
/// (each alone if it failed together with others before).
async fn reconcile_taken(
    shared: &Shared<'_>,
    cluster: &Cluster,
    defaulter: &mut Defaulter<'_>,
    options: &RecordOptions,
    taken: Vec<(Key, Instant)>,
) {
    let now = Instant::now();
    let mut items: Vec<Item> = Vec::new();
    for (key, since) in taken {
        let Some(stored) = shared.jobsets.get(&ObjectRef::new(&key.name).within(&key.namespace)) else {
            continue; // deleted: its history is the retention's (`retention`)
        };
        if stored.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let Some(seen) = shared.seen(&key) else { continue };
        if shared.queue.borrow().is_settled(&key, seen.total()) {
            // The stores show our last writes, and nothing else changed.
            shared.expected.borrow_mut().remove(stored.uid());
            Metrics::add(&shared.metrics.reconciles_skipped, 1);
            continue;
        }
        let jobset = stored.jobset();
        items.push(Item {
            key,
            since,
            seen,
            earlier: false,
            jobset,
            jobs: Vec::new(),
            revisions: Vec::new(),
        });
    }
    // Each JobSet's Jobs and revisions, found by its key (not by a scan of the stores).
    for item in &mut items {
        item.jobs = shared.jobs_of(&item.key, item.jobset.uid());
        item.revisions = shared.revisions_of(&item.key);
    }
    let mut ready = Vec::new();
    for item in items {
        if let Some(attempt) = torn_read(&item.jobset, &item.jobs) {
            // The Jobs' watch is ahead of the JobSets': never credit an attempt to what
            // the JobSet's status does not show yet. Look again shortly.
            shared.say(&format!(
                "jobset {}: Jobs of attempt {attempt} seen before its status shows it; looking again",
                item.key
            ));
            shared.queue.borrow_mut().add_after(item.key, item.since, now + TORN_READ_RETRY);
            continue;
        }
        if in_handover(&item.jobset, &item.revisions, jiff::Timestamp::now()) {
            // Its predecessor's revisions are about to be adopted: recording now would
            // start a second history beside them.
            shared.queue.borrow_mut().add_after(item.key, item.since, now + HANDOVER_RETRY);
            continue;
        }
        if !store_shows_our_writes(shared, &item, now) {
            shared.queue.borrow_mut().add_after(item.key, item.since, now + STORE_RETRY);
            continue;
        }
        let mut item = item;
        if let Some(earlier) = shared.unrecorded_version(&item.jobset, &item.revisions) {
            // Record the earlier templates first; the current ones come next time.
            item.jobset = earlier;
            item.earlier = true;
            shared.queue.borrow_mut().add_after(item.key.clone(), item.since, now);
        }
        ready.push(item);
    }
    let (alone, ready): (Vec<Item>, Vec<Item>) = {
        let solo = shared.solo.borrow();
        ready.into_iter().partition(|item| solo.contains(&item.key))
    };
    for item in alone {
        reconcile_together(shared, cluster, defaulter, options, vec![item]).await;
    }
    if !ready.is_empty() {
        reconcile_together(shared, cluster, defaulter, options, ready).await;
    }
}

/// The uid of the JobSet this one replaced in a handover (`rollback --handover`), if any.
pub(super) fn handed_over_from(jobset: &JobSet) -> Option<&str> {
    let annotations = jobset.metadata.annotations.as_ref()?;
    annotations.get(crate::plan::handover::FROM_UID_ANNOTATION).map(String::as_str)
}

/// A JobSet created by a handover moments ago whose predecessor's revisions are not
/// adopted yet (they still belong to the old uid).
fn in_handover(jobset: &JobSet, revisions: &[ControllerRevision], now: jiff::Timestamp) -> bool {
    let Some(from) = handed_over_from(jobset) else { return false };
    let created = jobset.metadata.creation_timestamp.as_ref().map(|t| t.0);
    let recent = created.is_some_and(|at| now.duration_since(at) < HANDOVER_WAIT);
    recent && revisions.iter().any(|r| history::belongs_to(r).contains(&from))
}

/// False while the revision store does not show what we wrote last for this JobSet (for
/// at most `STORE_WAIT`): planning from an older view would only lose a race.
fn store_shows_our_writes(shared: &Shared<'_>, item: &Item, now: Instant) -> bool {
    let mut expected = shared.expected.borrow_mut();
    let Some((deadline, writes)) = expected.get(item.jobset.uid()) else { return true };
    let shown = writes.iter().all(|(name, version)| {
        item.revisions.iter().any(|r| {
            r.metadata.name.as_deref() == Some(name.as_str())
                && at_least(r.metadata.resource_version.as_deref().unwrap_or_default(), version)
        })
    });
    if shown || now >= *deadline {
        expected.remove(item.jobset.uid());
        return true;
    }
    false
}

/// Compare and record JobSets together, then count, log and announce what changed.
async fn reconcile_together(
    shared: &Shared<'_>,
    cluster: &Cluster,
    defaulter: &mut Defaulter<'_>,
    options: &RecordOptions,
    items: Vec<Item>,
) {
    let mut before: HashMap<String, Vec<Revision>> = HashMap::new();
    let mut keys: Vec<Taken> = Vec::new();
    let mut jobsets = Vec::new();
    let mut jobs = Vec::new();
    let mut revisions = Vec::new();
    for item in items {
        let uid = item.jobset.uid().to_owned();
        let parsed = item.revisions.iter().filter_map(|r| history::parse(r, &uid).ok()).collect();
        before.insert(uid, parsed);
        let settle_from = (!item.earlier).then_some(item.seen);
        keys.push(Taken { key: item.key, since: item.since, settle_from });
        jobsets.push(item.jobset);
        jobs.extend(item.jobs);
        revisions.extend(item.revisions);
    }
    let mut fleet = Fleet::new(jobsets, jobs, Vec::new()).with_revisions(revisions);
    let mut warnings = Vec::new();
    let mut computed = Vec::new();
    let recorded = async {
        computed = compute(defaulter, &fleet).await?;
        record(cluster, defaulter, &mut fleet, &computed, options, &mut warnings).await
    }
    .await;
    let finished = Instant::now();
    Metrics::add(&shared.metrics.reconciles, keys.len() as u64);
    for line in String::from_utf8_lossy(&warnings).lines() {
        shared.warn_once(line);
    }
    match recorded {
        Ok(recorded) => {
            settle(shared, &fleet, keys, &before, &recorded, finished);
            // The update strategies act on the drift just computed.
            super::steer::steer(shared, cluster, &fleet, &computed).await;
        }
        Err(e) => not_reconciled(shared, &keys, &e, finished),
    }
}

/// A JobSet reconciled together with others: its key, the time of its first event not
/// handled yet, and (unless an earlier version of it is recorded) what the stores held of
/// it, to settle it from when the reconcile is done.
struct Taken {
    key: Key,
    since: Instant,
    settle_from: Option<Seen>,
}

/// JobSets whose compare or record failed as a whole: several are tried each alone, right
/// away (to find the one that fails); one alone is tried again later.
fn not_reconciled(shared: &Shared<'_>, keys: &[Taken], e: &Error, finished: Instant) {
    if keys.len() > 1 {
        let mut queue = shared.queue.borrow_mut();
        let mut solo = shared.solo.borrow_mut();
        for Taken { key, since, .. } in keys {
            solo.insert(key.clone());
            queue.add_after(key.clone(), *since, finished);
        }
        drop((queue, solo));
        shared.say(&format!(
            "warning: {} jobset(s) not reconciled together ({e}); trying each alone",
            keys.len()
        ));
        return;
    }
    Metrics::add(&shared.metrics.reconcile_errors, 1);
    let mut queue = shared.queue.borrow_mut();
    let mut backoff = Duration::ZERO;
    for Taken { key, since, .. } in keys {
        backoff = queue.retry_later(key.clone(), *since, finished);
    }
    drop(queue);
    shared.say(&format!(
        "error: {} jobset(s) not reconciled (retrying in {}s): {e}",
        keys.len(),
        backoff.as_secs_f32()
    ));
}

/// After JobSets were recorded together: each JobSet is done or queued again (by its outcome), and
/// what changed is counted, logged and announced.
fn settle(
    shared: &Shared<'_>,
    fleet: &Fleet,
    keys: Vec<Taken>,
    before: &HashMap<String, Vec<Revision>>,
    recorded: &Recorded,
    finished: Instant,
) {
    let histories = &recorded.histories;
    let mut announcements = Vec::new();
    let digests = (recorded.spec_digests.iter().copied()).chain(std::iter::repeat(None));
    for (((jobset, Taken { key, since, settle_from }), outcome), digest) in
        fleet.jobsets.iter().zip(keys).zip(&recorded.outcomes).zip(digests)
    {
        if needs_retry(jobset, outcome, histories, digest) {
            Metrics::add(&shared.metrics.reconcile_errors, 1);
            shared.queue.borrow_mut().retry_later(key, since, finished);
            continue;
        }
        shared.queue.borrow_mut().succeeded(&key);
        shared.solo.borrow_mut().remove(&key);
        let staged_due = super::staged::due(fleet, jobset);
        if staged_due && let Some(staged) = shared.staged.borrow().as_ref() {
            let _ = staged.send(key.clone());
        }
        let after = histories.get(jobset.uid()).map(Vec::as_slice).unwrap_or_default();
        let earlier = before.get(jobset.uid()).map(Vec::as_slice).unwrap_or_default();
        let changes = changes(earlier, after);
        // Done, unless a staged change is applied next (its own writes and retries), or a
        // duplicate number is still stored: this reconcile recorded something new first,
        // and the echo of its writes must be looked at to move the duplicate.
        if let Some(seen) = settle_from.filter(|_| !staged_due && numbers_unique(after)) {
            // A revision we rewrote replaces its old version in the fingerprint. One that
            // did not parse is not in `earlier`: the fingerprints differ, and the JobSet is
            // reconciled once more (never skipped wrongly).
            let settled = changes.written.iter().fold(seen, |seen, r| {
                let old = earlier.iter().find(|e| e.name == r.name);
                seen.with_written(&r.name, old.map(|e| e.resource_version.as_str()), &r.resource_version)
            });
            shared.queue.borrow_mut().settle(&key, settled.total());
        }
        if changes.is_empty() {
            continue;
        }
        shared.metrics.observe_lag(finished.saturating_duration_since(since));
        shared.expected.borrow_mut().insert(
            jobset.uid().to_owned(),
            (
                finished + STORE_WAIT,
                changes.written.iter().map(|r| (r.name.clone(), r.resource_version.clone())).collect(),
            ),
        );
        Metrics::add(&shared.metrics.revisions_recorded, changes.recorded.len() as u64);
        Metrics::add(&shared.metrics.attempts_credited, changes.credited.len() as u64);
        for revision in &changes.recorded {
            let note = recorded_note(revision);
            shared.say(&format!("jobset {key}: {note}"));
            announcements.push((key.clone(), crate::cluster::events::reference(jobset), note));
        }
        for (attempt, number) in &changes.credited {
            shared.say(&format!("jobset {key}: credited restart attempt {attempt} to revision {number}"));
        }
    }
    // Events go to the announcer: they are news, not history, and hold up no reconcile.
    if let Some(announce) = shared.announce.borrow().as_ref() {
        for announcement in announcements {
            let _ = announce.send(announcement);
        }
    }
}

/// Whether a JobSet is looked at again later: recording failed for it (its writes, its
/// namespace read-only, its history unread), or its spec still has no revision.
fn needs_retry(
    jobset: &JobSet,
    outcome: &RecordOutcome,
    histories: &Histories,
    spec: Option<crate::diff::digest::Digest>,
) -> bool {
    outcome.failed() || spec_revision(histories, jobset, spec).is_none()
}

/// Whether no two revisions of a history share a number (the recorder finds duplicates
/// from its store, `NumberCheck::FromStore`, when nothing else is to be recorded).
fn numbers_unique(history: &[Revision]) -> bool {
    history::renumber_duplicates(history).is_empty()
}

/// What a reconcile changed in one JobSet's history.
#[derive(Debug, Default, PartialEq)]
pub struct Changes<'a> {
    /// New revisions.
    pub recorded: Vec<&'a Revision>,
    /// (attempt, revision number) newly credited.
    pub credited: Vec<(i32, i64)>,
    /// Revisions created or changed (the store should show them next time).
    pub written: Vec<&'a Revision>,
}

impl Changes<'_> {
    fn is_empty(&self) -> bool {
        self.written.is_empty()
    }
}

/// The difference between a JobSet's history before and after recording.
pub fn changes<'a>(before: &[Revision], after: &'a [Revision]) -> Changes<'a> {
    let mut changes = Changes::default();
    for revision in after {
        let earlier = before.iter().find(|r| r.name == revision.name);
        match earlier {
            None => changes.recorded.push(revision),
            Some(earlier) if earlier.resource_version == revision.resource_version => continue,
            Some(_) => {}
        }
        changes.written.push(revision);
        let old = earlier.map(|r| &r.attempts);
        for attempt in &revision.attempts {
            if old.is_none_or(|old| !old.contains(attempt)) {
                changes.credited.push((*attempt, revision.number));
            }
        }
    }
    changes
}

/// The Event's note for a recorded revision.
fn recorded_note(revision: &Revision) -> String {
    let from = if revision.source == "spec" { "from the spec" } else { "rebuilt from running Jobs" };
    let mut note = format!("Recorded revision {} {from}", revision.number);
    if !revision.attempts.is_empty() {
        note.push_str(&format!(", restart attempts {}", history::format_attempts(&revision.attempts)));
    }
    if let Some(cause) = &revision.change_cause {
        note.push_str(&format!(" (change cause: {cause})"));
    }
    note
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jobset(restarts: i32) -> JobSet {
        JobSet::from_raw(json!({
            "metadata": {"name": "js", "namespace": "ns", "uid": "u1"},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {}}}]},
            "status": {"restarts": restarts}
        }))
        .unwrap()
    }

    fn revision(name: &str, number: i64, attempts: &str, rv: &str) -> Revision {
        let object: ControllerRevision = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv,
                "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "uid": "u1"}],
                "annotations": {history::FORMAT_ANNOTATION: history::FORMAT, history::ATTEMPTS_ANNOTATION: attempts}},
            "data": {"replicatedJobs": [{"name": "w", "template": {"spec": {}}}]},
            "revision": number
        }))
        .unwrap();
        history::parse(&object, "u1").unwrap()
    }

    #[test]
    fn changes_are_new_revisions_and_newly_credited_attempts() {
        let before = vec![revision("a", 1, "0", "10")];
        let after = vec![revision("a", 1, "0,1", "12"), revision("b", 2, "2", "13")];
        let c = changes(&before, &after);
        assert_eq!(c.recorded.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), vec!["b"]);
        assert_eq!(c.credited, vec![(1, 1), (2, 2)]);
        assert_eq!(c.written.len(), 2);
        assert!(changes(&after, &after).is_empty(), "nothing written, nothing to report");
    }

    #[test]
    fn a_history_with_a_duplicate_number_is_not_settled() {
        let unique = vec![revision("a", 1, "0", "10"), revision("b", 2, "", "11")];
        assert!(numbers_unique(&unique));
        let duplicate = vec![revision("a", 2, "0", "10"), revision("b", 2, "", "11")];
        assert!(!numbers_unique(&duplicate), "looked at again, to move one of them");
        assert!(numbers_unique(&[]));
    }

    #[test]
    fn a_jobset_is_tried_again_when_recording_failed_for_it_or_its_spec_has_no_revision() {
        let js = jobset(0);
        let mut histories = Histories::new();
        assert!(needs_retry(&js, &RecordOutcome::Recorded, &histories, None), "no revision for the spec");
        let spec = history::templates_of(&js);
        let stored = revision(&format!("js-{}", history::hash(&spec)), 1, "0", "5");
        histories.insert("u1".into(), vec![stored]);
        assert!(!needs_retry(&js, &RecordOutcome::Recorded, &histories, None));
        assert!(!needs_retry(&js, &RecordOutcome::Deferred, &histories, None));
        let op = Box::new(crate::error::Op::new("create", "controllerrevisions.apps", Some("ns")));
        let conflict = RecordOutcome::NotRecorded(Error::Conflict { op, message: "conflict".into() });
        assert!(needs_retry(&js, &conflict, &histories, None));
        assert!(needs_retry(&js, &RecordOutcome::ReadOnly, &histories, None));
        assert!(needs_retry(&js, &RecordOutcome::Unread, &histories, None));
    }

    #[test]
    fn a_fresh_handover_jobset_waits_until_its_predecessors_revisions_are_adopted() {
        let now: jiff::Timestamp = "2026-12-02T08:00:00Z".parse().unwrap();
        let handed_over = |created: &str| {
            JobSet::from_raw(json!({
                "metadata": {"name": "js", "namespace": "ns", "uid": "new", "creationTimestamp": created,
                    "annotations": {crate::plan::handover::FROM_UID_ANNOTATION: "old"}},
                "spec": {"replicatedJobs": []}
            }))
            .unwrap()
        };
        let kept = |uid: &str| -> ControllerRevision {
            serde_json::from_value(json!({"metadata": {"name": "js-a", "namespace": "ns",
                "labels": {history::JOBSET_LABEL: "js", history::UID_LABEL: uid}}, "revision": 1}))
            .unwrap()
        };
        let fresh = handed_over("2026-12-02T07:59:58Z");
        assert!(in_handover(&fresh, &[kept("old")], now));
        assert!(!in_handover(&fresh, &[kept("new")], now), "adopted and released");
        assert!(
            !in_handover(&handed_over("2026-12-02T07:50:00Z"), &[kept("old")], now),
            "a stopped handover"
        );
        assert!(!in_handover(&jobset(0), &[kept("old")], now), "no handover");
    }

    #[test]
    fn the_note_says_where_the_templates_came_from() {
        let r = revision("a", 3, "1-2", "1");
        assert_eq!(recorded_note(&r), "Recorded revision 3 from the spec, restart attempts 1-2");
    }
}
