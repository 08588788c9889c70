//! The history of deleted JobSets: the recorder's revisions have no owner, so they
//! outlive their JobSet; this task marks them when the JobSet is gone, keeps them for
//! `--history-retention`, then prunes them. What to do is decided from the caches by
//! `history::retention` (pure); this sends it. It wakes on the watches' events (a JobSet
//! deleted, a revision that concerns it changed, a re-list) and on a timer for the next
//! revision due, and never polls the API: the only reads are one GET per JobSet whose
//! revisions look orphaned, to confirm it is gone before believing the cache (a JobSet
//! out of the `-l` scope is not in it; such a JobSet is looked at again every `RECHECK`).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use futures::StreamExt;
use jiff::Timestamp;

use super::metrics::Metrics;
use super::state::Shared;
use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::error::Error;
use crate::history::retention::{Action, Known, Step, Suspect, plan, stamp};
use crate::model::resource_version::at_least;

/// Events that come together (a JobSet's revisions marked at once) are looked at once.
const SETTLE: Duration = Duration::from_millis(200);
/// A failed read or write is tried again after this long.
const RETRY: Duration = Duration::from_secs(30);
/// A JobSet found alive outside the scope is looked at again after this long.
const RECHECK: Duration = Duration::from_secs(600);
/// Requests in flight at once.
const CONCURRENCY: usize = 8;

/// What the task remembers between passes.
#[derive(Default)]
struct Memory {
    /// uids found alive by a GET though not in the cache (out of scope), and when.
    alive_outside: HashMap<String, Instant>,
    gone: std::collections::HashSet<String>,
    /// Our writes the revision cache does not show yet: (namespace, name) → the
    /// resourceVersion written, or None for a delete.
    written: HashMap<(String, String), Option<String>>,
}

/// Keeps the history of deleted JobSets until the process stops.
pub(super) async fn keep_retention(shared: &Shared<'_>, cluster: &Cluster, retention: Duration) {
    let mut memory = Memory::default();
    let mut due: Option<Instant> = None;
    loop {
        let timer = async {
            match due {
                Some(due) => tokio::time::sleep_until(due.into()).await,
                None => futures::future::pending().await,
            }
        };
        tokio::select! {
            () = shared.retention_wake.notified() => {}
            () = timer => {}
        }
        if shared.stopping.get() {
            return;
        }
        if !shared.synced() || !shared.leading() {
            // A standby keeps nothing in mind; leading, it is woken (`enqueue_all`).
            due = None;
            shared.metrics.deleted_jobset_revisions.store(0, std::sync::atomic::Ordering::Relaxed);
            continue;
        }
        tokio::time::sleep(SETTLE).await;
        due = pass(shared, cluster, retention, &mut memory).await;
    }
}

/// One look at the caches: confirm, mark, unmark, prune. When to look again.
async fn pass(
    shared: &Shared<'_>,
    cluster: &Cluster,
    retention: Duration,
    memory: &mut Memory,
) -> Option<Instant> {
    let started = Instant::now();
    memory.alive_outside.retain(|_, at| started.duration_since(*at) < RECHECK);
    let revisions = shared.revisions.state();
    // Only uids some cached revision still names are worth remembering.
    let named: std::collections::HashSet<&str> =
        revisions.iter().filter_map(|r| crate::history::uid_label(r)).collect();
    memory.gone.retain(|uid| named.contains(uid.as_str()));
    // Leave out what we wrote until the cache shows it: planning from an older view
    // would only lose a race against ourselves.
    memory.written.retain(|(ns, name), version| {
        let cached = revisions.iter().find(|r| {
            r.metadata.namespace.as_deref() == Some(ns.as_str())
                && r.metadata.name.as_deref() == Some(name.as_str())
        });
        match (cached, version) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(r), Some(version)) => {
                !at_least(r.metadata.resource_version.as_deref().unwrap_or_default(), version)
            }
        }
    });
    let current: Vec<_> = revisions
        .iter()
        .filter(|r| {
            let key = (
                r.metadata.namespace.clone().unwrap_or_default(),
                r.metadata.name.clone().unwrap_or_default(),
            );
            !memory.written.contains_key(&key)
        })
        .map(|r| r.as_ref())
        .collect();
    let mut retry = false;
    let mut known = known(shared, memory);
    let mut planned = plan(current.iter().copied(), &known, retention, Timestamp::now());
    if !planned.suspects.is_empty() {
        retry |= confirm(shared, cluster, &planned.suspects, memory).await;
        known = self::known(shared, memory);
        planned = plan(current.iter().copied(), &known, retention, Timestamp::now());
    }
    retry |= perform(shared, cluster, &planned.steps, memory, retention).await;
    shared.metrics.deleted_jobset_revisions.store(planned.kept as u64, std::sync::atomic::Ordering::Relaxed);
    let mut next: Vec<Instant> = Vec::new();
    if let Some(at) = planned.next_due {
        // A second late, so that the revision is due when we look (stamps are to the second).
        let until = at.duration_since(Timestamp::now());
        let wait = if until.is_negative() { Duration::ZERO } else { until.unsigned_abs() };
        let wait = wait + Duration::from_secs(1);
        next.push(Instant::now() + wait);
    }
    if retry {
        next.push(Instant::now() + RETRY);
    }
    next.extend(memory.alive_outside.values().map(|at| *at + RECHECK));
    next.into_iter().min()
}

/// The uids alive (in the cache, or found outside its scope) and gone.
fn known(shared: &Shared<'_>, memory: &Memory) -> Known {
    let mut live = std::collections::HashSet::new();
    for jobset in shared.jobsets.state() {
        live.insert(jobset.uid().to_owned());
        // The object a handover replaced lives on in it: its history is about to be adopted.
        live.extend(jobset.handed_over_from.clone());
    }
    live.extend(memory.alive_outside.keys().cloned());
    let gone = memory.gone.iter().filter(|uid| !live.contains(*uid)).cloned().collect();
    Known { live, gone }
}

/// A GET per JobSet whose revisions look orphaned: gone (not found, or another uid
/// under its name), or alive outside the cache. True when some GET failed.
async fn confirm(shared: &Shared<'_>, cluster: &Cluster, suspects: &[Suspect], memory: &mut Memory) -> bool {
    let answers: Vec<(&Suspect, crate::error::Result<crate::model::jobset::JobSet>)> =
        futures::stream::iter(suspects)
            .map(|s| async move { (s, cluster.get_jobset(&s.namespace, &s.name).await) })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
    let mut failed = false;
    for (suspect, answer) in answers {
        match answer {
            Ok(jobset) if jobset.uid() == suspect.uid => {
                memory.alive_outside.insert(suspect.uid.clone(), Instant::now());
            }
            Ok(_) | Err(Error::NotFound { .. }) => {
                memory.gone.insert(suspect.uid.clone());
            }
            Err(e) => {
                failed = true;
                shared.warn_once(&format!(
                    "warning: could not tell whether jobset {}/{} (uid {}) still exists, so its history is left \
                     as it is for now: {e}",
                    suspect.namespace, suspect.name, suspect.uid
                ));
            }
        }
    }
    failed
}

/// What one pass did to one JobSet's revisions.
#[derive(Default)]
struct Tally {
    marked: usize,
    /// The latest `prune-at` marked.
    until: Option<Timestamp>,
    unmarked: usize,
    pruned: usize,
}

/// Sends the planned writes, each guarded; one that lost a race (another recorder did
/// it, or the revision changed) is left to the next look. Logs one line per JobSet.
/// True when some write failed otherwise.
async fn perform(
    shared: &Shared<'_>,
    cluster: &Cluster,
    steps: &[Step],
    memory: &mut Memory,
    retention: Duration,
) -> bool {
    let results: Vec<(&Step, crate::error::Result<Option<String>>)> = futures::stream::iter(steps)
        .map(|step| async move {
            let result = match &step.action {
                Action::Mark { ops, .. } | Action::Unmark(ops) => cluster
                    .patch_revision(&step.namespace, &step.name, ops)
                    .await
                    .map(|r| Some(r.metadata.resource_version.unwrap_or_default())),
                Action::Prune { resource_version } => cluster
                    .delete_revision_if_unchanged(&step.namespace, &step.name, resource_version)
                    .await
                    .map(|()| None),
            };
            (step, result)
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    let mut failed = false;
    // Per JobSet (namespace, name, uid): how many marked (and until when), unmarked, pruned.
    let mut done: BTreeMap<(&str, &str, &str), Tally> = BTreeMap::new();
    for (step, result) in results {
        match result {
            Ok(version) => {
                memory.written.insert((step.namespace.clone(), step.name.clone()), version);
                let entry = done.entry((&step.namespace, &step.jobset, &step.uid)).or_default();
                match &step.action {
                    Action::Mark { until, .. } => {
                        entry.marked += 1;
                        entry.until = Some(entry.until.map_or(*until, |u: Timestamp| u.max(*until)));
                    }
                    Action::Unmark(_) => entry.unmarked += 1,
                    Action::Prune { .. } => entry.pruned += 1,
                }
            }
            Err(e) if is_precondition_failure(&e) || matches!(e, Error::NotFound { .. }) => {}
            Err(e) => {
                failed = true;
                shared.warn_once(&format!(
                    "warning: controllerrevision {}/{} of deleted jobset {} (uid {}) not updated (trying again): {e}",
                    step.namespace, step.name, step.jobset, step.uid
                ));
            }
        }
    }
    let retention = crate::age::format_duration(retention);
    for ((namespace, jobset, uid), Tally { marked, until, unmarked, pruned }) in done {
        if marked > 0 {
            let until = until.map(stamp).unwrap_or_default();
            shared.say(&format!(
                "jobset {namespace}/{jobset} (uid {uid}) is gone: keeping {marked} revision(s) of its history for \
                 {retention}, until {until}"
            ));
        }
        if unmarked > 0 {
            shared.say(&format!(
                "jobset {namespace}/{jobset} (uid {uid}) exists: {unmarked} revision(s) no longer marked deleted"
            ));
        }
        if pruned > 0 {
            Metrics::add(&shared.metrics.revisions_pruned, pruned as u64);
            shared.say(&format!(
                "jobset {namespace}/{jobset} (uid {uid}) was deleted {retention} or more ago: pruned {pruned} \
                 revision(s) of its history"
            ));
        }
    }
    failed
}
