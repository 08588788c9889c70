//! What the recorder's tasks share: the watches, the Lease loop, the worker and the
//! announcer all run on one task, so plain `Cell`s and `RefCell`s hold the queue, the
//! reflector stores, the log, and what the worker remembers between reconciles.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::runtime::reflector::{ObjectRef, Store};
use serde_json::Value;
use tokio::sync::Notify;

use super::index::OwnerIndex;
use super::metrics::Metrics;
use super::queue::{Key, WorkQueue};
use super::stored::StoredJobSet;
use crate::history;
use crate::model::compact::Compact;
use crate::model::jobset::{ChildJob, JobSet};

/// The reflector stores of the three watches.
pub(super) type Stores = (Store<StoredJobSet>, Store<ChildJob>, Store<ControllerRevision>);

/// Which store a watch fills.
#[derive(Clone, Copy)]
pub(super) enum Watched {
    JobSets = 0,
    Jobs = 1,
    Revisions = 2,
}

/// An Event to publish: the JobSet (its key, and its reference), and the note.
pub(super) type Announcement = (Key, k8s_openapi::api::core::v1::ObjectReference, String);

/// Until when, and which revisions (name, resourceVersion) the store should show.
pub(super) type Expected = (Instant, Vec<(String, String)>);

/// What the watches, the Lease keeper and the worker share (all on one task).
pub(super) struct Shared<'a> {
    pub(super) queue: RefCell<WorkQueue>,
    /// Wakes the lanes' workers (`wake_workers`).
    pub(super) wake: Notify,
    /// Whether the queue holds more JobSets than the lanes take at once (a catch-up, a
    /// re-list): Events wait meanwhile (`no_backlog`).
    pub(super) backlog: tokio::sync::watch::Sender<bool>,
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
    pub(super) jobsets: Store<StoredJobSet>,
    pub(super) jobs: Store<ChildJob>,
    pub(super) revisions: Store<ControllerRevision>,
    /// The names of the Jobs and of the revisions in the stores, by JobSet.
    pub(super) job_index: RefCell<OwnerIndex>,
    pub(super) revision_index: RefCell<OwnerIndex>,
    /// Per JobSet UID: revisions we wrote (name, resourceVersion) that the store must show
    /// before the JobSet is planned again, until the deadline.
    pub(super) expected: RefCell<HashMap<String, Expected>>,
    /// Per JobSet: the hash of the templates of the last version the watch delivered, and
    /// the earlier versions whose templates a later one replaced before they were recorded.
    /// The store holds only the latest; these let a quick succession of edits (v3, then v4
    /// before the worker got to v3) record every template, in order.
    pub(super) last_templates: RefCell<HashMap<Key, String>>,
    pub(super) versions: RefCell<HashMap<Key, Vec<PendingVersion>>>,
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
            backlog: tokio::sync::watch::Sender::new(false),
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
            job_index: RefCell::default(),
            revision_index: RefCell::default(),
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
        self.wake_workers();
    }

    /// Wakes every lane's worker that waits: each looks at its own lane.
    pub(super) fn wake_workers(&self) {
        self.wake.notify_waiters();
    }

    pub(super) fn set_backlog(&self, backlog: bool) {
        self.backlog.send_if_modified(|held| std::mem::replace(held, backlog) != backlog);
    }

    /// Resolves once the queue holds no backlog, or after `at_most`: an Event is news, it
    /// waits for the history to be written, but not for ever.
    pub(super) async fn no_backlog(&self, at_most: std::time::Duration) {
        let mut backlog = self.backlog.subscribe();
        let _ = tokio::time::timeout(at_most, backlog.wait_for(|held| !*held)).await;
    }

    pub(super) fn enqueue_all(&self) {
        let now = Instant::now();
        let mut queue = self.queue.borrow_mut();
        for jobset in self.jobsets.state() {
            queue.add(Key::new(jobset.namespace(), jobset.name()), now);
        }
        drop(queue);
        self.wake_workers();
        self.retention_wake.notify_one();
    }

    /// Notes a version of a JobSet as the watch delivers it, before the store holds it:
    /// when its templates are not the last version's, that version (the store's) is kept
    /// until it is recorded. The first version seen is the store's own: nothing is kept.
    pub(super) fn remember(&self, jobset: &JobSet) {
        let key = Key::new(jobset.namespace(), jobset.name());
        let hash = history::hash(&history::templates_of(jobset));
        let changed = match self.last_templates.borrow_mut().insert(key.clone(), hash.clone()) {
            Some(last) => last != hash,
            None => false,
        };
        if !changed {
            return;
        }
        if let Some(previous) = self.jobsets.get(&ObjectRef::new(&key.name).within(&key.namespace)) {
            self.versions.borrow_mut().entry(key).or_default().push(PendingVersion::of(&previous.jobset()));
        }
    }

    pub(super) fn forget(&self, key: &Key) {
        self.queue.borrow_mut().unsettle(key);
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
        // Each recorded revision read once, not once per pending version.
        let recorded: Vec<history::Revision> =
            recorded.iter().filter_map(|r| history::parse(r, current.uid()).ok()).collect();
        let mut rest: Vec<PendingVersion> = pending
            .into_iter()
            .filter(|v| {
                let templates = v.templates();
                let digest = history::digest_of(&templates);
                !history::same_templates_in_order(&templates, &now)
                    && !recorded.iter().any(|r| r.templates.same_as(digest))
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

    /// What the stores hold of the JobSet with this key, in short (None: not stored).
    pub(super) fn seen(&self, key: &Key) -> Option<Seen> {
        let stored = self.jobsets.get(&ObjectRef::new(&key.name).within(&key.namespace))?;
        let versions = |index: &RefCell<OwnerIndex>, version: &dyn Fn(&str) -> Option<String>| {
            let index = index.borrow();
            index
                .names(key)
                .filter_map(|name| Some(Seen::version(name, &version(name)?)))
                .fold(0, |a, b| a ^ b)
        };
        Some(Seen {
            jobset: Seen::version(
                stored.uid(),
                stored.metadata.resource_version.as_deref().unwrap_or_default(),
            ),
            jobs: versions(&self.job_index, &|name| {
                self.jobs.get(&ObjectRef::new(name).within(&key.namespace))?.metadata.resource_version.clone()
            }),
            revisions: versions(&self.revision_index, &|name| {
                self.revisions
                    .get(&ObjectRef::new(name).within(&key.namespace))?
                    .metadata
                    .resource_version
                    .clone()
            }),
        })
    }

    /// The stored Jobs the JobSet with this key and `uid` controls (by the index).
    pub(super) fn jobs_of(&self, key: &Key, uid: &str) -> Vec<ChildJob> {
        let index = self.job_index.borrow();
        index
            .names(key)
            .filter_map(|name| self.jobs.get(&ObjectRef::new(name).within(&key.namespace)))
            .filter(|job| job.is_owned_by(uid))
            .map(|job| (*job).clone())
            .collect()
    }

    /// The stored revisions labelled for the JobSet with this key (by the index).
    pub(super) fn revisions_of(&self, key: &Key) -> Vec<ControllerRevision> {
        let index = self.revision_index.borrow();
        index
            .names(key)
            .filter_map(|name| self.revisions.get(&ObjectRef::new(name).within(&key.namespace)))
            .map(|revision| (*revision).clone())
            .collect()
    }

    /// Whether a stored revision's change may give the retention something to do.
    pub(super) fn concerns_retention(&self, revision: &ControllerRevision) -> bool {
        let labelled = revision.metadata.labels.as_ref().and_then(|l| l.get(history::JOBSET_LABEL));
        let namespace = revision.metadata.namespace.as_deref().unwrap_or_default();
        let jobset = labelled.and_then(|name| self.jobsets.get(&ObjectRef::new(name).within(namespace)));
        history::retention::concerns_retention(revision, jobset.as_deref().map(StoredJobSet::uid))
    }

    pub(super) fn synced(&self) -> bool {
        self.synced.iter().all(Cell::get)
    }

    pub(super) fn leading(&self) -> bool {
        self.leading_until.get().is_some_and(|until| Instant::now() < until)
    }
}

/// What the stores hold of a JobSet, in short: a hash of its uid and resourceVersion, and
/// for its Jobs and for its revisions (by the indexes) the exclusive or of a hash of each
/// one's name and resourceVersion, so that one revision's new version can be put in place
/// of its old without the others. Equal: nothing a reconcile reads has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Seen {
    jobset: u64,
    jobs: u64,
    revisions: u64,
}

impl Seen {
    fn version(name: &str, resource_version: &str) -> u64 {
        super::fnv((name, resource_version))
    }

    /// As the stores will hold it once they show that we wrote revision `name` at
    /// `written` (it was at `before`, or new).
    pub(super) fn with_written(mut self, name: &str, before: Option<&str>, written: &str) -> Seen {
        if let Some(before) = before {
            self.revisions ^= Seen::version(name, before);
        }
        self.revisions ^= Seen::version(name, written);
        self
    }

    pub(super) fn total(&self) -> u64 {
        super::fnv((self.jobset, self.jobs, self.revisions))
    }
}

/// An earlier version of a JobSet not recorded yet: its replicatedJobs (templates
/// included) as compact JSON, and its change cause; the rest is the current version's.
#[derive(Debug, Clone)]
pub(super) struct PendingVersion {
    replicated_jobs: Compact,
    cause: Option<String>,
}

impl PendingVersion {
    fn of(jobset: &JobSet) -> Self {
        let object = jobset.object();
        PendingVersion {
            replicated_jobs: Compact::of(&object["spec"]["replicatedJobs"]),
            cause: jobset.metadata.annotations.as_ref().and_then(|a| a.get(history::CHANGE_CAUSE)).cloned(),
        }
    }

    fn replicated_jobs(&self) -> Value {
        self.replicated_jobs.value()
    }

    fn templates(&self) -> history::Templates {
        let items = self.replicated_jobs();
        let items = items.as_array().map(Vec::as_slice).unwrap_or_default();
        items
            .iter()
            .map(|r| (r["name"].as_str().unwrap_or_default().to_owned(), r["template"].clone()))
            .collect()
    }
}

/// `current` (its status, UID, labels) with the templates and change cause of `version`.
fn with_templates_of(current: &JobSet, version: &PendingVersion) -> Option<JobSet> {
    let mut raw = current.object();
    raw["spec"]["replicatedJobs"] = version.replicated_jobs();
    if let Some(annotations) = raw["metadata"]["annotations"].as_object_mut() {
        annotations.remove(history::CHANGE_CAUSE);
    }
    if let Some(cause) = &version.cause {
        raw["metadata"]["annotations"][history::CHANGE_CAUSE] = Value::String(cause.clone());
    }
    JobSet::from_raw(raw).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_version_replaced_before_its_reconcile_is_recorded_first_and_the_first_seen_is_not_kept() {
        let version = |image: &str| {
            crate::testing::jobset("js")
                .namespace("ns")
                .uid("u1")
                .replicated_job("w", 1, crate::testing::pod_template(image))
                .build()
        };
        let ((jobsets, jobs, revisions), (mut writer, _, _)) = super::super::watch::stores();
        let mut log = Vec::new();
        let (announce, _) = tokio::sync::mpsc::unbounded_channel();
        let shared = Shared::new((jobsets, jobs, revisions), Arc::default(), &mut log, announce);
        // As the JobSets' watch does: remember, then the store applies.
        let deliver = |writer: &mut kube::runtime::reflector::store::Writer<StoredJobSet>, js: &JobSet| {
            shared.remember(js);
            writer.apply_watcher_event(&kube::runtime::watcher::Event::Apply(StoredJobSet::of(js)));
        };
        let (v3, v4) = (version("app:v3"), version("app:v4"));
        deliver(&mut writer, &v3);
        assert!(shared.versions.borrow().is_empty(), "the first version is the store's own");
        deliver(&mut writer, &v3);
        assert!(shared.versions.borrow().is_empty(), "same templates: nothing kept");
        deliver(&mut writer, &v4);
        let earlier = shared.unrecorded_version(&v4, &[]).expect("v3 first");
        assert_eq!(history::templates_of(&earlier), history::templates_of(&v3));
        assert_eq!(earlier.attempt(), v4.attempt());
        assert!(shared.unrecorded_version(&v4, &[]).is_none(), "then the current one");
    }

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
        let merged = with_templates_of(&current, &PendingVersion::of(&old)).unwrap();
        assert_eq!(merged.attempt(), 2);
        assert_eq!(merged.spec.replicated_jobs[0].template, json!({"spec": {"parallelism": 3}}));
        let annotations = merged.metadata.annotations.unwrap();
        assert_eq!(annotations[history::CHANGE_CAUSE], "v3");
        assert_eq!(annotations["keep"], "me");
    }

    #[tokio::test]
    async fn events_wait_while_the_queue_holds_a_backlog_but_not_for_ever() {
        let (stores, _writers) = super::super::watch::stores();
        let mut log = Vec::new();
        let (announce, _announced) = tokio::sync::mpsc::unbounded_channel();
        let shared = Shared::new(stores, Arc::new(Metrics::default()), &mut log, announce);

        let start = Instant::now();
        shared.no_backlog(std::time::Duration::from_secs(5)).await;
        assert!(start.elapsed() < std::time::Duration::from_secs(1), "no backlog: at once");

        shared.set_backlog(true);
        let start = Instant::now();
        shared.no_backlog(std::time::Duration::from_millis(100)).await;
        assert!(
            start.elapsed() >= std::time::Duration::from_millis(100),
            "a backlog: waits, up to the limit"
        );

        let start = Instant::now();
        let cleared = async {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            shared.set_backlog(false);
        };
        tokio::join!(shared.no_backlog(std::time::Duration::from_secs(5)), cleared);
        assert!(start.elapsed() < std::time::Duration::from_secs(1), "goes as soon as the backlog clears");
    }
}
