//! What the recorder's tasks share: the watches, the Lease loop, the worker and the
//! announcer all run on one task, so plain `Cell`s and `RefCell`s hold the queue, the
//! reflector stores, the log, and what the worker remembers between reconciles.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::runtime::reflector::Store;
use tokio::sync::Notify;

use super::metrics::Metrics;
use super::queue::{Key, WorkQueue};
use crate::history;
use crate::model::jobset::{ChildJob, JobSet};

/// The reflector stores of the three watches.
pub(super) type Stores = (Store<JobSet>, Store<ChildJob>, Store<ControllerRevision>);

/// Which store a watch fills.
#[derive(Clone, Copy)]
pub(super) enum Watched {
    JobSets = 0,
    Jobs = 1,
    Revisions = 2,
}

/// An Event to publish: the JobSet, and the note.
pub(super) type Announcement = (Key, JobSet, String);

/// Until when, and which revisions (name, resourceVersion) the store should show.
pub(super) type Expected = (Instant, Vec<(String, String)>);

/// What the watches, the Lease keeper and the worker share (all on one task).
pub(super) struct Shared<'a> {
    pub(super) queue: RefCell<WorkQueue>,
    pub(super) wake: Notify,
    /// Wakes the retention task: a JobSet or revision changed, or this replica leads now.
    pub(super) retention_wake: Notify,
    pub(super) stopping: Cell<bool>,
    pub(super) synced: [Cell<bool>; 3],
    /// Until when this replica may record (the last renewal plus the renew deadline).
    pub(super) leading_until: Cell<Option<Instant>>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) log: RefCell<&'a mut dyn Write>,
    /// Warnings already logged (each is logged once).
    pub(super) logged: RefCell<HashSet<String>>,
    pub(super) jobsets: Store<JobSet>,
    pub(super) jobs: Store<ChildJob>,
    pub(super) revisions: Store<ControllerRevision>,
    /// Per JobSet UID: revisions we wrote (name, resourceVersion) that the store must show
    /// before the JobSet is planned again, until the deadline.
    pub(super) expected: RefCell<HashMap<String, Expected>>,
    /// Per JobSet: the hash of the templates of the last version the watch delivered, and
    /// the versions with other templates delivered since its last reconcile. The store
    /// holds only the latest; these let a quick succession of edits (v3, then v4 before
    /// the worker got to v3) record every template, in order.
    pub(super) last_templates: RefCell<HashMap<Key, String>>,
    pub(super) versions: RefCell<HashMap<Key, Vec<JobSet>>>,
    /// JobSets reconciled alone, after their part of a batch failed as a whole (one bad
    /// JobSet, e.g. a template the API server rejects, must not hold back the others).
    pub(super) solo: RefCell<HashSet<Key>>,
    /// Where Events go; taken at shutdown, which ends the announcer once it has published
    /// what was queued.
    pub(super) announce: RefCell<Option<tokio::sync::mpsc::UnboundedSender<Announcement>>>,
    /// Where JobSets whose staged change is due go (see `staged`); set by `run`.
    pub(super) staged: RefCell<Option<tokio::sync::mpsc::UnboundedSender<Key>>>,
    /// The update strategies' settings and what they last said per JobSet.
    pub(super) steering: RefCell<super::steer::Steering>,
}

impl<'a> Shared<'a> {
    /// The state at start: nothing queued, nothing synced, not leading yet.
    pub(super) fn new(
        (jobsets, jobs, revisions): Stores,
        metrics: Arc<Metrics>,
        log: &'a mut dyn Write,
        announce: tokio::sync::mpsc::UnboundedSender<Announcement>,
    ) -> Self {
        Shared {
            queue: RefCell::new(WorkQueue::default()),
            wake: Notify::new(),
            retention_wake: Notify::new(),
            stopping: Cell::new(false),
            synced: Default::default(),
            leading_until: Cell::new(None),
            metrics,
            log: RefCell::new(log),
            logged: RefCell::default(),
            jobsets,
            jobs,
            revisions,
            expected: RefCell::default(),
            last_templates: RefCell::default(),
            versions: RefCell::default(),
            solo: RefCell::default(),
            announce: RefCell::new(Some(announce)),
            staged: RefCell::new(None),
            steering: RefCell::default(),
        }
    }

    pub(super) fn say(&self, line: &str) {
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ");
        let _ = writeln!(self.log.borrow_mut(), "{now} {line}");
    }

    /// Logs a warning the first time it is seen.
    pub(super) fn warn_once(&self, line: &str) {
        let mut logged = self.logged.borrow_mut();
        if logged.len() > 10_000 {
            logged.clear();
        }
        if logged.insert(line.to_owned()) {
            drop(logged);
            self.say(line);
        }
    }

    pub(super) fn enqueue(&self, key: Key) {
        self.queue.borrow_mut().add(key, Instant::now());
        self.wake.notify_one();
    }

    pub(super) fn enqueue_all(&self) {
        let now = Instant::now();
        let mut queue = self.queue.borrow_mut();
        for jobset in self.jobsets.state() {
            queue.add(Key::new(jobset.namespace(), jobset.name()), now);
        }
        drop(queue);
        self.wake.notify_one();
        self.retention_wake.notify_one();
    }

    /// Notes a version of a JobSet as the watch delivers it.
    pub(super) fn remember(&self, jobset: &JobSet) {
        let key = Key::new(jobset.namespace(), jobset.name());
        let hash = history::hash(&history::templates_of(jobset));
        let mut last = self.last_templates.borrow_mut();
        if last.get(&key) != Some(&hash) {
            last.insert(key.clone(), hash);
            self.versions.borrow_mut().entry(key).or_default().push(jobset.clone());
        }
    }

    pub(super) fn forget(&self, key: &Key) {
        self.last_templates.borrow_mut().remove(key);
        self.versions.borrow_mut().remove(key);
    }

    /// The oldest version of the JobSet delivered since its last reconcile whose templates
    /// are neither the current ones nor recorded, as `current` with those templates (and
    /// that version's change cause). The rest stay for the next reconciles.
    pub(super) fn unrecorded_version(
        &self,
        current: &JobSet,
        recorded: &[ControllerRevision],
    ) -> Option<JobSet> {
        let key = Key::new(current.namespace(), current.name());
        let mut versions = self.versions.borrow_mut();
        let pending = versions.remove(&key)?;
        let now = history::templates_of(current);
        let mut rest: Vec<JobSet> = pending
            .into_iter()
            .filter(|v| {
                let templates = history::templates_of(v);
                !history::same_templates_in_order(&templates, &now)
                    && !recorded
                        .iter()
                        .filter_map(|r| history::parse(r, current.uid()).ok())
                        .any(|r| history::same_templates_in_order(&r.templates, &templates))
            })
            .collect();
        if rest.is_empty() {
            return None;
        }
        let oldest = rest.remove(0);
        if !rest.is_empty() {
            versions.insert(key, rest);
        }
        with_templates_of(current, &oldest)
    }

    pub(super) fn synced(&self) -> bool {
        self.synced.iter().all(Cell::get)
    }

    pub(super) fn leading(&self) -> bool {
        self.leading_until.get().is_some_and(|until| Instant::now() < until)
    }
}

/// `current` (its status, UID, labels) with the templates and change cause of `version`.
fn with_templates_of(current: &JobSet, version: &JobSet) -> Option<JobSet> {
    let mut raw = current.object();
    let old = version.object();
    raw["spec"]["replicatedJobs"] = old["spec"]["replicatedJobs"].clone();
    let cause = old["metadata"]["annotations"][history::CHANGE_CAUSE].clone();
    if let Some(annotations) = raw["metadata"]["annotations"].as_object_mut() {
        annotations.remove(history::CHANGE_CAUSE);
    }
    if cause.is_string() {
        raw["metadata"]["annotations"][history::CHANGE_CAUSE] = cause;
    }
    JobSet::from_raw(raw).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_earlier_version_keeps_the_current_status_with_its_own_templates_and_cause() {
        let version = |template: serde_json::Value, restarts: i32, annotations: serde_json::Value| {
            JobSet::from_raw(json!({
                "metadata": {"name": "js", "namespace": "ns", "uid": "u1", "annotations": annotations},
                "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": template}]},
                "status": {"restarts": restarts}
            }))
            .unwrap()
        };
        let old = version(json!({"spec": {"parallelism": 3}}), 0, json!({history::CHANGE_CAUSE: "v3"}));
        let current = version(json!({"spec": {}}), 2, json!({history::CHANGE_CAUSE: "v4", "keep": "me"}));
        let merged = with_templates_of(&current, &old).unwrap();
        assert_eq!(merged.attempt(), 2);
        assert_eq!(merged.spec.replicated_jobs[0].template, json!({"spec": {"parallelism": 3}}));
        let annotations = merged.metadata.annotations.unwrap();
        assert_eq!(annotations[history::CHANGE_CAUSE], "v3");
        assert_eq!(annotations["keep"], "me");
    }
}
