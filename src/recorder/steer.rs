//! The update strategies, enforced: after each reconcile, every JobSet whose strategy is
//! Opportunistic or Immediate (its annotation, or the recorder's default) is decided by
//! `plan::strategy` from the same drift the recorder just computed, and what it asks
//! for is done: a restart through `execute::restart` (the guarded status patch, relative
//! to the attempt read, never counted towards maxRestarts, our mark in the same write),
//! or the report that a restart did not bring the Jobs to the spec (once per revision).
//!
//! Only the leader gets here (the worker drops the queue while standing by). Two leaders
//! for a moment still make one restart per revision: the patch tests the attempt read,
//! and the mark it writes is read back from the JobSet by whoever comes next.

use std::collections::HashMap;
use std::time::Instant;

use json_patch::Patch;
use kube::runtime::events::{Event, EventType};
use kube::runtime::reflector::ObjectRef;

use super::queue::Key;
use super::state::Shared;
use crate::cluster::Cluster;
use crate::diff::JobSetDrift;
use crate::execute::DryRun;
use crate::execute::{Outcome, restart_one};
use crate::model::jobset::JobSet;
use crate::model::patch::{pointer, replace, test};
use crate::model::strategy::{DefaultStrategy, effective};
use crate::observe::Fleet;
use crate::plan::strategy::{
    Action, CONDITION, Decision, STALLED_EVENT_REASON, decide, restart_options, stalled_condition,
};

/// The settings, and the last thing said per JobSet (each said once, until it changes).
#[derive(Debug, Default)]
pub(super) struct Steering {
    /// None: record only (`--no-update-strategies`).
    default: Option<DefaultStrategy>,
    said: HashMap<Key, String>,
}

impl Steering {
    pub(super) fn new(default: Option<DefaultStrategy>) -> Self {
        Steering { default, said: HashMap::new() }
    }

    /// Whether `line` is new for `key` (and remembers it).
    fn news(&mut self, key: &Key, line: &str) -> bool {
        if self.said.len() > 100_000 {
            self.said.clear();
        }
        if self.said.get(key).map(String::as_str) == Some(line) {
            return false;
        }
        self.said.insert(key.clone(), line.to_owned());
        true
    }
}

/// Acts on what each JobSet's strategy asks for, after a reconcile of `fleet`.
pub(super) async fn steer(shared: &Shared<'_>, cluster: &Cluster, fleet: &Fleet, drifts: &[JobSetDrift]) {
    let Some(default) = shared.steering.borrow().default else { return };
    for drift in drifts {
        let Some(jobset) =
            fleet.jobsets.iter().find(|j| j.name() == drift.name && j.namespace() == drift.namespace)
        else {
            continue;
        };
        let key = Key::new(jobset.namespace(), jobset.name());
        if !is_latest(shared, jobset) {
            continue; // an earlier version, recorded first: the latest comes next
        }
        let strategy = effective(jobset, default);
        let Some(name) = strategy.strategy() else {
            if let crate::model::strategy::Effective::Invalid(e) = &strategy {
                say_once(shared, &key, &format!("warning: {e}; nothing is done until it is fixed"));
            }
            continue;
        };
        let jobs = fleet.jobs_of(jobset);
        match decide(jobset, jobs, drift, &strategy) {
            Decision::Idle(idle) => {
                say_once(shared, &key, &format!("update strategy {name}: {}", idle.words()))
            }
            Decision::Act(action) => act(shared, cluster, &key, jobset, jobs, action).await,
        }
    }
}

/// Whether `jobset` is the version the store holds (not an earlier one being recorded).
fn is_latest(shared: &Shared<'_>, jobset: &JobSet) -> bool {
    let current = shared.jobsets.get(&ObjectRef::new(jobset.name()).within(jobset.namespace()));
    current.is_some_and(|c| c.metadata.resource_version == jobset.metadata.resource_version)
}

fn say_once(shared: &Shared<'_>, key: &Key, line: &str) {
    if shared.steering.borrow_mut().news(key, line) {
        shared.say(&format!("jobset {key}: {line}"));
    }
}

async fn act(
    shared: &Shared<'_>,
    cluster: &Cluster,
    key: &Key,
    jobset: &JobSet,
    jobs: &[crate::model::jobset::ChildJob],
    action: Action,
) {
    let strategy = action.strategy();
    let label = action.label();
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    match &action {
        Action::Restart { kind, revision, outdated, .. } => {
            let options = restart_options(jobset, *kind, strategy, revision, *outdated, &now);
            let outcome = restart_one(cluster, jobset, jobs, &options, DryRun::None).await;
            match outcome {
                Outcome::Restarted { from, to, .. } => {
                    shared.metrics.count_strategy_action(strategy.as_str(), label, "done");
                    say_once(
                        shared,
                        key,
                        &format!(
                            "update strategy {strategy}: restarted (attempt {from} → {to}) for spec revision \
                             {revision}: {outdated} Job(s) ran an outdated template{}",
                            if label == "queued_refresh" { ", while queued (free)" } else { "" }
                        ),
                    );
                }
                Outcome::AlreadyRestarted { attempt } => {
                    shared.metrics.count_strategy_action(strategy.as_str(), label, "superseded");
                    say_once(
                        shared,
                        key,
                        &format!(
                            "update strategy {strategy}: someone else restarted it first (attempt {attempt})"
                        ),
                    );
                }
                Outcome::WouldRestart { .. } => {}
                Outcome::Skipped(why) => {
                    shared.metrics.count_strategy_action(strategy.as_str(), label, "failed");
                    say_once(shared, key, &format!("update strategy {strategy}: not restarted: {why}"));
                }
                Outcome::Failed(e) => {
                    shared.metrics.count_strategy_action(strategy.as_str(), label, "failed");
                    shared.say(&format!("jobset {key}: update strategy {strategy}: restart failed: {e}"));
                    retry(shared, key);
                }
            }
        }
        Action::Stall { revision, attempt, outdated, .. } => {
            let condition = stalled_condition(jobset, revision, *attempt, *outdated, &now);
            match mark_stalled(cluster, jobset, condition).await {
                Ok(()) => {
                    shared.metrics.count_strategy_action(strategy.as_str(), label, "done");
                    let note = format!(
                        "The restart for spec revision {revision} (attempt {attempt}) left {outdated} Job(s) that \
                         still differ from the spec (a mutating webhook, or a field the API server rewrites?); \
                         update strategy {strategy} does not restart again until the spec changes"
                    );
                    shared.say(&format!("jobset {key}: warning: {note}"));
                    let event = Event {
                        type_: EventType::Warning,
                        reason: STALLED_EVENT_REASON.to_owned(),
                        note: Some(note),
                        action: "Restart".to_owned(),
                        secondary: None,
                    };
                    if let Err(e) = crate::cluster::events::publish_event(cluster, jobset, &event).await {
                        shared.warn_once(&format!("warning: could not record an Event on {key}: {e}"));
                    }
                }
                Err(e) => {
                    shared.metrics.count_strategy_action(strategy.as_str(), label, "failed");
                    shared.say(&format!(
                        "jobset {key}: update strategy {strategy}: could not record the stall: {e}"
                    ));
                    retry(shared, key);
                }
            }
        }
    }
}

fn retry(shared: &Shared<'_>, key: &Key) {
    let now = Instant::now();
    shared.queue.borrow_mut().retry_later(key.clone(), now, now);
}

/// Replaces our condition with the stalled one, guarded by the message read (a test op):
/// a JobSet restarted or marked since is left alone (the next reconcile decides again).
async fn mark_stalled(
    cluster: &Cluster,
    jobset: &JobSet,
    condition: serde_json::Value,
) -> crate::error::Result<()> {
    let raw = jobset.raw();
    let conditions = raw["status"]["conditions"].as_array();
    let Some(i) = conditions.and_then(|c| c.iter().position(|c| c["type"] == CONDITION)) else {
        return Ok(()); // no mark: nothing to say it about (decide never gets here)
    };
    let read = &raw["status"]["conditions"][i];
    let i = i.to_string();
    let ops = Patch(vec![
        test(pointer(&["status", "conditions", &i, "type"]), CONDITION),
        test(pointer(&["status", "conditions", &i, "message"]), read["message"].clone()),
        test(pointer(&["status", "restarts"]), raw["status"]["restarts"].clone()),
        replace(pointer(&["status", "conditions", &i]), condition),
    ]);
    cluster.patch_jobset(jobset.namespace(), jobset.name(), Some("status"), &ops, false).await.map(|_| ())
}
