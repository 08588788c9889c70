//! Changes staged for the next restart (`--at-next-restart`), applied when a JobSet
//! restarts on its own: the worker sees the attempt move past the one the change was
//! staged at and hands the JobSet here, where it is applied beside the worker (waiting
//! for Kueue's stop takes a second or two and must not hold up recording). The steps
//! are `execute::staged::apply`'s, planned again from what is read each time, so a
//! command applying the same change, a second recorder or a restart of this one never
//! restart the JobSet twice.

use std::cell::RefCell;
use std::collections::HashSet;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::reflector::ObjectRef;

use super::metrics::Metrics;
use super::queue::Key;
use super::state::Shared;
use crate::cluster::Cluster;
use crate::execute::Outcome;
use crate::model::jobset::JobSet;
use crate::observe::Fleet;
use crate::plan::restart::RestartOptions;

/// Staged changes applied at once.
const IN_FLIGHT: usize = 4;
/// How soon a JobSet whose change could not be applied yet is looked at again.
const RETRY: Duration = Duration::from_secs(2);

/// Whether the worker should hand `jobset` over: a change is staged for it and it has
/// restarted since (or applying it began and did not finish). A change a rollout holds
/// is the rollout's to apply.
pub(super) fn due(fleet: &Fleet, jobset: &JobSet) -> bool {
    fleet
        .staged_for_restart(jobset)
        .is_some_and(|s| s.restart_from.is_some() || jobset.attempt() > s.staged_at_attempt)
}

/// Applies the staged changes of the JobSets the worker hands over, a few at a time.
pub(super) async fn apply_staged(
    shared: &Shared<'_>,
    cluster: &Cluster,
    queue: tokio::sync::mpsc::UnboundedReceiver<Key>,
) {
    let in_flight: RefCell<HashSet<Key>> = RefCell::default();
    let mut queue = queue;
    let keys = futures::stream::poll_fn(move |cx| queue.poll_recv(cx));
    let in_flight = &in_flight;
    let applied = keys
        .filter(|key| std::future::ready(in_flight.borrow_mut().insert(key.clone())))
        .map(|key| async move {
            apply_one(shared, cluster, &key).await;
            in_flight.borrow_mut().remove(&key);
        })
        .buffer_unordered(IN_FLIGHT);
    tokio::pin!(applied);
    while applied.next().await.is_some() {}
}

async fn apply_one(shared: &Shared<'_>, cluster: &Cluster, key: &Key) {
    if !shared.leading() {
        return;
    }
    let Some(stored) = shared.jobsets.get(&ObjectRef::new(&key.name).within(&key.namespace)) else { return };
    let jobset = stored.jobset();
    let jobs = shared.jobs_of(key, jobset.uid());
    let revisions = shared.revisions_of(key);
    let fleet = Fleet::new(vec![jobset], jobs, vec![]).with_revisions(revisions);
    let jobset = &fleet.jobsets[0];
    let Some(staged) = fleet.staged_for_restart(jobset) else { return };
    let admitted = crate::model::kueue::Kueue::of(jobset, &[]).is_some_and(|k| k.is_admitted());
    let options = RestartOptions {
        reason: Some(format!("apply the change staged in controllerrevision {}", staged.name)),
        requested_by: "the kubectl-jobset recorder".into(),
        // A policy restart right after the JobSet's own: never counted.
        count_towards_max: false,
        after_change: true,
        ..Default::default()
    };
    let mut said = Vec::new();
    let outcome = crate::execute::staged::apply(
        cluster,
        jobset,
        fleet.jobs_of(jobset),
        staged,
        admitted,
        &options,
        &mut said,
    )
    .await;
    for line in String::from_utf8_lossy(&said).lines() {
        shared.say(&format!("jobset {key}: {line}"));
    }
    match outcome {
        Outcome::Restarted { from, to, .. } => {
            Metrics::add(&shared.metrics.staged_applied, 1);
            shared.say(&format!("jobset {key}: restarted (attempt {from} → {to}) on its staged change"));
        }
        Outcome::AlreadyRestarted { attempt } => {
            shared.say(&format!("jobset {key}: its staged change is in (attempt {attempt})"));
        }
        Outcome::Failed(e) => {
            Metrics::add(&shared.metrics.staged_errors, 1);
            shared.warn_once(&format!("warning: jobset {key}: staged change not applied yet: {e}"));
            shared.queue.borrow_mut().add_after(key.clone(), Instant::now(), Instant::now() + RETRY);
            shared.wake_workers();
        }
        Outcome::Skipped(why) => shared.say(&format!("jobset {key}: staged change not applied: {why}")),
        Outcome::WouldRestart { .. } => {}
    }
}
