//! The recorder's controller: three watches (JobSets in scope, their Jobs, our
//! ControllerRevisions) feed kube-runtime reflector stores, and every event queues the
//! JobSet it concerns. A worker takes the queued JobSets in batches, builds a `Fleet` from
//! the stores (no extra reads) and runs the observe step's compare and record on it, the
//! same code every command runs, so the recorder and the CLI plan the same guarded writes.
//!
//! Why not `kube::runtime::Controller`: its stores of owned objects are private unless
//! an unstable feature is enabled, and the reconcile needs every Job and revision of the
//! JobSet. The reflectors and watchers are kube-runtime's (re-list after 410 Gone, backoff);
//! only the small queue is ours.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use tokio::sync::Notify;

use super::lease::{LeaseConfig, LeaseKeeper, Role};
use super::metrics::Metrics;
use super::queue::{Key, WorkQueue};
use super::server;
use crate::cluster::api::api;
use crate::cluster::{Cluster, events};
use crate::diff::normalize::normalize;
use crate::error::Result;
use crate::exit::ExitStatus;
use crate::history::{self, Revision};
use crate::model::jobset::{ChildJob, JobSet, KIND, labels};
use crate::observe::{Defaulter, Fleet, Histories, RecordOptions, Recorder, compute, record};
use crate::presence::{LEASE_NAME, Scope};

/// What `kubectl jobset recorder` was asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct RecorderPlan {
    /// None: every namespace (`-A`).
    pub namespace: Option<String>,
    pub selector: Option<String>,
    pub history_limit: usize,
    pub leader_elect: bool,
    pub lease_namespace: String,
    pub lease_duration: Duration,
    /// None: no HTTP endpoints.
    pub metrics_addr: Option<SocketAddr>,
}

/// JobSets reconciled together (one compare and one record over them).
const BATCH: usize = 512;
/// Parts of a batch recorded concurrently, each with its own dry-run cache.
const CHUNKS: usize = 16;
/// How soon a JobSet is looked at again after a torn read (Jobs of an attempt its status
/// does not show yet: the two watches are not in step).
const TORN_READ_RETRY: Duration = Duration::from_millis(200);
/// How soon a JobSet is looked at again while the revision store does not show our own
/// last writes yet, and how long we wait for that at most.
const STORE_RETRY: Duration = Duration::from_millis(50);
const STORE_WAIT: Duration = Duration::from_secs(2);
/// In-flight writes get this long after SIGTERM or SIGINT.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// Events published at once.
const EVENTS_IN_FLIGHT: usize = 8;
/// Dry-run caches start afresh after this many reconciled JobSets (bounded memory).
const DEFAULTER_RESET: u64 = 5_000;

/// Which store a watch fills.
#[derive(Clone, Copy)]
enum Watched {
    JobSets = 0,
    Jobs = 1,
    Revisions = 2,
}

/// An Event to publish: the JobSet, and the note.
type Announcement = (Key, JobSet, String);

/// Until when, and which revisions (name, resourceVersion) the store should show.
type Expected = (Instant, Vec<(String, String)>);

/// What the watches, the Lease keeper and the worker share (all on one task).
struct Shared<'a> {
    queue: RefCell<WorkQueue>,
    wake: Notify,
    stopping: Cell<bool>,
    synced: [Cell<bool>; 3],
    /// Until when this replica may record (the last renewal plus the renew deadline).
    leading_until: Cell<Option<Instant>>,
    metrics: Arc<Metrics>,
    log: RefCell<&'a mut dyn Write>,
    /// Warnings already logged (each is logged once).
    logged: RefCell<HashSet<String>>,
    jobsets: Store<JobSet>,
    jobs: Store<ChildJob>,
    revisions: Store<ControllerRevision>,
    /// Per JobSet UID: revisions we wrote (name, resourceVersion) that the store must show
    /// before the JobSet is planned again, until the deadline.
    expected: RefCell<HashMap<String, Expected>>,
    /// Per JobSet: the hash of the templates of the last version the watch delivered, and
    /// the versions with other templates delivered since its last reconcile. The store
    /// holds only the latest; these let a quick succession of edits (v3, then v4 before
    /// the worker got to v3) record every template, in order.
    last_templates: RefCell<HashMap<Key, String>>,
    versions: RefCell<HashMap<Key, Vec<JobSet>>>,
    /// JobSets reconciled alone, after their part of a batch failed as a whole (one bad
    /// JobSet, e.g. a template the API server rejects, must not hold back the others).
    solo: RefCell<HashSet<Key>>,
    /// Where Events go; taken at shutdown, which ends the announcer once it has published
    /// what was queued.
    announce: RefCell<Option<tokio::sync::mpsc::UnboundedSender<Announcement>>>,
}

impl Shared<'_> {
    fn say(&self, line: &str) {
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ");
        let _ = writeln!(self.log.borrow_mut(), "{now} {line}");
    }

    /// Logs a warning the first time it is seen.
    fn warn_once(&self, line: &str) {
        let mut logged = self.logged.borrow_mut();
        if logged.len() > 10_000 {
            logged.clear();
        }
        if logged.insert(line.to_owned()) {
            drop(logged);
            self.say(line);
        }
    }

    fn enqueue(&self, key: Key) {
        self.queue.borrow_mut().add(key, Instant::now());
        self.wake.notify_one();
    }

    fn enqueue_all(&self) {
        let now = Instant::now();
        let mut queue = self.queue.borrow_mut();
        for jobset in self.jobsets.state() {
            queue.add(Key::new(jobset.namespace(), jobset.name()), now);
        }
        drop(queue);
        self.wake.notify_one();
    }

    /// Notes a version of a JobSet as the watch delivers it.
    fn remember(&self, jobset: &JobSet) {
        let key = Key::new(jobset.namespace(), jobset.name());
        let hash = history::hash(&history::templates_of(jobset));
        let mut last = self.last_templates.borrow_mut();
        if last.get(&key) != Some(&hash) {
            last.insert(key.clone(), hash);
            self.versions.borrow_mut().entry(key).or_default().push(jobset.clone());
        }
    }

    fn forget(&self, key: &Key) {
        self.last_templates.borrow_mut().remove(key);
        self.versions.borrow_mut().remove(key);
    }

    /// The oldest version of the JobSet delivered since its last reconcile whose templates
    /// are neither the current ones nor recorded, as `current` with those templates (and
    /// that version's change cause). The rest stay for the next reconciles.
    fn unrecorded_version(&self, current: &JobSet, recorded: &[ControllerRevision]) -> Option<JobSet> {
        let key = Key::new(current.namespace(), current.name());
        let mut versions = self.versions.borrow_mut();
        let pending = versions.remove(&key)?;
        let now = history::templates_of(current);
        let mut rest: Vec<JobSet> = pending
            .into_iter()
            .filter(|v| {
                let templates = history::templates_of(v);
                !history::same_templates(&templates, &now)
                    && !recorded
                        .iter()
                        .filter_map(|r| history::parse(r, current.uid()).ok())
                        .any(|r| history::same_templates(&r.templates, &templates))
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

    fn synced(&self) -> bool {
        self.synced.iter().all(Cell::get)
    }

    fn leading(&self) -> bool {
        self.leading_until.get().is_some_and(|until| Instant::now() < until)
    }
}

/// Runs the recorder until SIGTERM or SIGINT.
pub async fn run(cluster: &Cluster, plan: &RecorderPlan, err: &mut dyn Write) -> Result<ExitStatus> {
    let identity = super::lease::identity();
    let namespaces: Vec<String> = plan.namespace.iter().cloned().collect();
    let lease = LeaseKeeper::new(
        cluster,
        LeaseConfig {
            namespace: plan.lease_namespace.clone(),
            identity: identity.clone(),
            duration: plan.lease_duration,
            leader_elect: plan.leader_elect,
            annotations: Scope::annotations(&namespaces, plan.selector.as_deref()),
        },
    );
    let metrics = Arc::new(Metrics::default());
    let server = match plan.metrics_addr {
        Some(addr) => {
            let (listener, bound) = server::bind(addr).await?;
            writeln!(err, "serving /healthz, /readyz and /metrics on http://{bound}")?;
            Some(tokio::spawn(server::serve(listener, metrics.clone())))
        }
        None => None,
    };

    let (jobset_store, jobset_writer) = reflector::store::<JobSet>();
    let (job_store, job_writer) = reflector::store::<ChildJob>();
    let (revision_store, revision_writer) = reflector::store::<ControllerRevision>();
    let ns = plan.namespace.as_deref();
    let mut jobset_config = watcher::Config::default();
    if let Some(selector) = &plan.selector {
        jobset_config = jobset_config.labels(selector);
    }
    let jobset_events = reflector::reflector(
        jobset_writer,
        watcher(api::<JobSet>(cluster, ns), jobset_config).default_backoff(),
    );
    // Jobs are kept in the diff engine's normal form, as a loaded fleet holds them.
    let job_events = reflector::reflector(
        job_writer,
        watcher(api::<ChildJob>(cluster, ns), watcher::Config::default().labels(labels::JOBSET_NAME))
            .map_ok(|event| event.modify(|job| job.template = Arc::new(normalize(&job.template).template)))
            .default_backoff(),
    );
    let revision_events = reflector::reflector(
        revision_writer,
        watcher(
            api::<ControllerRevision>(cluster, ns),
            watcher::Config::default().labels(history::JOBSET_LABEL),
        )
        .default_backoff(),
    );

    let (announce_tx, announce_rx) = tokio::sync::mpsc::unbounded_channel();
    let shared = Shared {
        queue: RefCell::new(WorkQueue::default()),
        wake: Notify::new(),
        stopping: Cell::new(false),
        synced: Default::default(),
        leading_until: Cell::new(None),
        metrics: metrics.clone(),
        log: RefCell::new(err),
        logged: RefCell::default(),
        jobsets: jobset_store,
        jobs: job_store,
        revisions: revision_store,
        expected: RefCell::default(),
        last_templates: RefCell::default(),
        versions: RefCell::default(),
        solo: RefCell::default(),
        announce: RefCell::new(Some(announce_tx)),
    };
    let scope = match (&plan.namespace, &plan.selector) {
        (Some(ns), Some(s)) => format!("namespace {ns} matching {s:?}"),
        (Some(ns), None) => format!("namespace {ns}"),
        (None, Some(s)) => format!("all namespaces matching {s:?}"),
        (None, None) => "all namespaces".to_owned(),
    };
    let mode = if plan.leader_elect { "leader election" } else { "heartbeat" };
    shared.say(&format!(
        "recorder {identity}: keeping the history of JobSets in {scope}; Lease {}/{LEASE_NAME} ({mode}, {}s)",
        plan.lease_namespace,
        plan.lease_duration.as_secs()
    ));
    if !plan.leader_elect {
        // Without an election, every recorder records.
        shared.leading_until.set(Some(Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600)));
    }

    // The recorder records every JobSet it watches: its own Lease must not stop it.
    let options =
        RecordOptions { history_limit: plan.history_limit, cause: None, recorder: Recorder::Ignore };
    let watches = async {
        tokio::join!(
            drive(
                &shared,
                Watched::JobSets,
                "jobsets",
                jobset_events,
                |js: &JobSet| Some(Key::new(js.namespace(), js.name())),
                |js: &JobSet, present| match present {
                    true => shared.remember(js),
                    false => shared.forget(&Key::new(js.namespace(), js.name())),
                },
            ),
            drive(
                &shared,
                Watched::Jobs,
                "jobs",
                job_events,
                |job: &ChildJob| {
                    Some(Key::new(job.metadata.namespace.as_deref()?, job.label(labels::JOBSET_NAME)?))
                },
                |_, _| {}
            ),
            drive(
                &shared,
                Watched::Revisions,
                "controllerrevisions",
                revision_events,
                |r: &ControllerRevision| {
                    let name = r.metadata.labels.as_ref()?.get(history::JOBSET_LABEL)?;
                    Some(Key::new(r.metadata.namespace.as_deref()?, name))
                },
                |_, _| {},
            ),
            keep_lease(&shared, &lease),
        )
    };
    let announcer = announce(&shared, cluster, &identity, announce_rx);
    let worker = work(&shared, cluster, &options);
    let signal = shutdown_signal();
    tokio::pin!(watches, worker, signal, announcer);
    tokio::select! {
        _ = &mut watches => {}
        () = &mut worker => {}
        () = &mut announcer => {}
        name = &mut signal => {
            shared.say(&format!("{name}: stopping; finishing in-flight writes (at most {}s)", SHUTDOWN_GRACE.as_secs()));
            shared.stopping.set(true);
            shared.wake.notify_one();
            let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
            // The Events of what was recorded go out too, in the same grace; the writes first.
            let finish = async {
                tokio::join!(&mut announcer, async {
                    (&mut worker).await;
                    shared.announce.borrow_mut().take();
                });
            };
            if tokio::time::timeout_at(deadline, finish).await.is_err() {
                shared.say("in-flight writes or Events did not finish in time; stopping anyway (the next recorder redoes the writes)");
            }
        }
    }
    match tokio::time::timeout(Duration::from_secs(2), lease.release()).await {
        Ok(Ok(true)) => shared.say("released the Lease: kubectl-jobset commands record history again"),
        Ok(Ok(false)) => {}
        Ok(Err(e)) => shared.say(&format!("warning: could not release the Lease: {e}")),
        Err(_) => shared.say("warning: could not release the Lease in time; it expires on its own"),
    }
    if let Some(server) = server {
        server.abort();
    }
    shared.say("stopped");
    Ok(ExitStatus::Success)
}

/// Feeds one watch's events into the queue: each event queues the JobSet it concerns. A
/// re-list (after 410 Gone or a failed watch) lists every object again, which queues
/// every JobSet again: that is the catch-up.
async fn drive<K>(
    shared: &Shared<'_>,
    which: Watched,
    what: &str,
    events: impl Stream<Item = watcher::Result<watcher::Event<K>>>,
    key_of: impl Fn(&K) -> Option<Key>,
    remember: impl Fn(&K, bool),
) {
    let mut listed = false;
    tokio::pin!(events);
    while let Some(event) = events.next().await {
        match event {
            Ok(watcher::Event::Apply(o) | watcher::Event::InitApply(o)) => {
                remember(&o, true);
                if let Some(key) = key_of(&o) {
                    shared.enqueue(key);
                }
            }
            Ok(watcher::Event::Delete(o)) => {
                remember(&o, false);
                if let Some(key) = key_of(&o) {
                    shared.enqueue(key);
                }
            }
            Ok(watcher::Event::Init) => {
                if listed {
                    Metrics::add(&shared.metrics.watch_restarts, 1);
                    shared.say(&format!("the watch of {what} lists again (catching up)"));
                }
            }
            Ok(watcher::Event::InitDone) => {
                listed = true;
                shared.synced[which as usize].set(true);
                if shared.synced() && !shared.metrics.synced.swap(true, Ordering::Relaxed) {
                    shared.say("watches synced; catching up");
                }
                shared.wake.notify_one();
            }
            Err(e) => {
                Metrics::add(&shared.metrics.watch_restarts, 1);
                shared.say(&format!("warning: the watch of {what} failed and restarts: {e}"));
            }
        }
    }
}

/// Keeps the Lease: renews it while we hold it; with leader election, waits as a standby
/// while another replica holds it and takes it when it is released or expires.
async fn keep_lease(shared: &Shared<'_>, keeper: &LeaseKeeper<'_>) {
    let config = &keeper.config;
    let mut holder: Option<String> = None;
    loop {
        let started = Instant::now();
        let wait = match keeper.round().await {
            Ok(Role::Holder) => {
                shared.metrics.lease_known.store(true, Ordering::Relaxed);
                if config.leader_elect {
                    let was_leading = shared.leading();
                    shared.leading_until.set(Some(started + config.renew_deadline()));
                    if !was_leading {
                        shared.say(&format!("leading: this replica ({}) records", config.identity));
                        shared.enqueue_all();
                    }
                }
                holder = Some(config.identity.clone());
                config.renew_period()
            }
            Ok(Role::Standby { holder: other, retry_in }) => {
                shared.metrics.lease_known.store(true, Ordering::Relaxed);
                if holder.as_deref() != Some(other.as_str()) {
                    shared.say(&format!("standing by: {other} holds the Lease and records"));
                    holder = Some(other);
                }
                shared.leading_until.set(None);
                retry_in
            }
            Err(e) => {
                if !config.leader_elect {
                    // The heartbeat only tells the CLI; recording goes on without it.
                    shared.metrics.lease_known.store(true, Ordering::Relaxed);
                }
                shared.warn_once(&format!("warning: the Lease could not be renewed: {e}"));
                config.renew_period()
            }
        };
        if config.leader_elect {
            shared.metrics.leading.store(shared.leading(), Ordering::Relaxed);
        } else {
            shared.metrics.leading.store(true, Ordering::Relaxed);
        }
        tokio::time::sleep_until((started + wait).into()).await;
    }
}

/// Takes queued JobSets in batches and reconciles them, until asked to stop (the batch in
/// flight is finished first).
async fn work(shared: &Shared<'_>, cluster: &Cluster, options: &RecordOptions) {
    let mut defaulters: Vec<Defaulter> = (0..CHUNKS).map(|_| Defaulter::new(cluster)).collect();
    let mut reconciled = 0u64;
    loop {
        if shared.stopping.get() {
            return;
        }
        let (batch, due) = if shared.synced() {
            let mut queue = shared.queue.borrow_mut();
            queue.promote(Instant::now());
            (queue.take(BATCH), queue.next_due())
        } else {
            (Vec::new(), None)
        };
        if batch.is_empty() {
            let due = async {
                match due {
                    Some(due) => tokio::time::sleep_until(due.into()).await,
                    None => futures::future::pending().await,
                }
            };
            tokio::select! {
                () = shared.wake.notified() => {}
                () = due => {}
            }
            continue;
        }
        if !shared.leading() {
            // A standby does not record; it queues everything again when it leads.
            shared.queue.borrow_mut().clear();
            continue;
        }
        reconciled += batch.len() as u64;
        if reconciled > DEFAULTER_RESET {
            reconciled = 0;
            defaulters = (0..CHUNKS).map(|_| Defaulter::new(cluster)).collect();
        }
        reconcile_batch(shared, cluster, &mut defaulters, options, batch).await;
    }
}

/// One JobSet ready to reconcile, with what the stores hold of it.
struct Item {
    key: Key,
    since: Instant,
    jobset: JobSet,
    jobs: Vec<ChildJob>,
    revisions: Vec<ControllerRevision>,
}

async fn reconcile_batch(
    shared: &Shared<'_>,
    cluster: &Cluster,
    defaulters: &mut [Defaulter<'_>],
    options: &RecordOptions,
    batch: Vec<(Key, Instant)>,
) {
    let now = Instant::now();
    let mut items: Vec<Item> = Vec::new();
    for (key, since) in batch {
        let Some(jobset) = shared.jobsets.get(&ObjectRef::new(&key.name).within(&key.namespace)) else {
            continue; // deleted: its revisions go with it (owner references)
        };
        if jobset.metadata.deletion_timestamp.is_some() {
            continue;
        }
        items.push(Item { key, since, jobset: (*jobset).clone(), jobs: Vec::new(), revisions: Vec::new() });
    }
    // One pass over each store for the whole batch.
    let by_uid: HashMap<String, usize> =
        items.iter().enumerate().map(|(i, item)| (item.jobset.uid().to_owned(), i)).collect();
    for job in shared.jobs.state() {
        if let Some(&i) = controller_uid(&job).and_then(|uid| by_uid.get(uid)) {
            items[i].jobs.push((*job).clone());
        }
    }
    let by_key: HashMap<Key, usize> =
        items.iter().enumerate().map(|(i, item)| (item.key.clone(), i)).collect();
    for revision in shared.revisions.state() {
        let name = revision.metadata.labels.as_ref().and_then(|l| l.get(history::JOBSET_LABEL));
        let key = name.zip(revision.metadata.namespace.as_deref()).map(|(name, ns)| Key::new(ns, name));
        if let Some(&i) = key.and_then(|k| by_key.get(&k)) {
            items[i].revisions.push((*revision).clone());
        }
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
        if !store_shows_our_writes(shared, &item, now) {
            shared.queue.borrow_mut().add_after(item.key, item.since, now + STORE_RETRY);
            continue;
        }
        let mut item = item;
        if let Some(earlier) = shared.unrecorded_version(&item.jobset, &item.revisions) {
            // Record the earlier templates first; the current ones come next time.
            item.jobset = earlier;
            shared.queue.borrow_mut().add_after(item.key.clone(), item.since, now);
        }
        ready.push(item);
    }
    let (alone, ready): (Vec<Item>, Vec<Item>) = {
        let solo = shared.solo.borrow();
        ready.into_iter().partition(|item| solo.contains(&item.key))
    };
    for item in alone {
        let defaulter = &mut defaulters[chunk_of(&item.key, CHUNKS)];
        reconcile_chunk(shared, cluster, defaulter, options, vec![item]).await;
    }
    // A JobSet always goes to the same part, so its templates are dry-run once, by the
    // same cache, however often it is reconciled.
    let mut chunks: Vec<Vec<Item>> = (0..defaulters.len()).map(|_| Vec::new()).collect();
    for item in ready {
        chunks[chunk_of(&item.key, defaulters.len())].push(item);
    }
    let runs = chunks
        .into_iter()
        .zip(defaulters.iter_mut())
        .filter(|(chunk, _)| !chunk.is_empty())
        .map(|(chunk, defaulter)| reconcile_chunk(shared, cluster, defaulter, options, chunk));
    futures::future::join_all(runs).await;
}

/// The part of a batch a JobSet belongs to, out of `parts`.
fn chunk_of(key: &Key, parts: usize) -> usize {
    use std::hash::{Hash, Hasher};
    let mut hasher = fnv::FnvHasher::default();
    key.hash(&mut hasher);
    (hasher.finish() % parts.max(1) as u64) as usize
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

/// The UID of the JobSet that controls a Job.
fn controller_uid(job: &ChildJob) -> Option<&str> {
    job.metadata
        .owner_references
        .as_deref()?
        .iter()
        .find(|r| r.controller == Some(true) && r.kind == KIND)
        .map(|r| r.uid.as_str())
}

/// The attempt of Jobs labelled above the JobSet's `status.restarts`, if any.
pub fn torn_read(jobset: &JobSet, jobs: &[ChildJob]) -> Option<i32> {
    jobs.iter().filter_map(ChildJob::attempt).filter(|a| *a > jobset.attempt()).max()
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

/// resourceVersions are opaque, but etcd's are integers: a later one is larger. Anything
/// else must be equal.
fn at_least(seen: &str, wanted: &str) -> bool {
    match (seen.parse::<u64>(), wanted.parse::<u64>()) {
        (Ok(seen), Ok(wanted)) => seen >= wanted,
        _ => seen == wanted,
    }
}

/// Compare and record for part of a batch, then count, log and announce what changed.
async fn reconcile_chunk(
    shared: &Shared<'_>,
    cluster: &Cluster,
    defaulter: &mut Defaulter<'_>,
    options: &RecordOptions,
    chunk: Vec<Item>,
) {
    let mut before: HashMap<String, Vec<Revision>> = HashMap::new();
    let mut keys = Vec::new();
    let mut jobsets = Vec::new();
    let mut jobs = Vec::new();
    let mut revisions = Vec::new();
    for item in chunk {
        let uid = item.jobset.uid().to_owned();
        let parsed = item.revisions.iter().filter_map(|r| history::parse(r, &uid).ok()).collect();
        before.insert(uid, parsed);
        keys.push((item.key, item.since));
        jobsets.push(item.jobset);
        jobs.extend(item.jobs);
        revisions.extend(item.revisions);
    }
    let mut fleet = Fleet::new(jobsets, jobs, Vec::new()).with_revisions(revisions);
    let mut warnings = Vec::new();
    let outcome = async {
        let drifts = compute(defaulter, &fleet).await?;
        record(cluster, defaulter, &mut fleet, &drifts, options, &mut warnings).await
    }
    .await;
    let finished = Instant::now();
    Metrics::add(&shared.metrics.reconciles, keys.len() as u64);
    let warnings = String::from_utf8_lossy(&warnings).into_owned();
    for line in warnings.lines() {
        shared.warn_once(line);
    }
    let histories = match outcome {
        Ok(histories) => histories,
        Err(e) if keys.len() > 1 => {
            // Find out which one: each alone, right away.
            let mut queue = shared.queue.borrow_mut();
            let mut solo = shared.solo.borrow_mut();
            for (key, since) in &keys {
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
        Err(e) => {
            Metrics::add(&shared.metrics.reconcile_errors, 1);
            let mut queue = shared.queue.borrow_mut();
            let mut backoff = Duration::ZERO;
            for (key, since) in &keys {
                backoff = queue.retry_later(key.clone(), *since, finished);
            }
            drop(queue);
            shared.say(&format!(
                "error: {} jobset(s) not reconciled (retrying in {}s): {e}",
                keys.len(),
                backoff.as_secs_f32()
            ));
            return;
        }
    };
    let mut announcements = Vec::new();
    for (jobset, (key, since)) in fleet.jobsets.iter().zip(keys) {
        let after = histories.get(jobset.uid()).map(Vec::as_slice).unwrap_or_default();
        let earlier = before.get(jobset.uid()).map(Vec::as_slice).unwrap_or_default();
        if failed(jobset, &histories, &warnings) {
            Metrics::add(&shared.metrics.reconcile_errors, 1);
            shared.queue.borrow_mut().retry_later(key, since, finished);
            continue;
        }
        shared.queue.borrow_mut().succeeded(&key);
        shared.solo.borrow_mut().remove(&key);
        let changes = changes(earlier, after);
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
            announcements.push((key.clone(), jobset.clone(), note));
        }
        for (attempt, number) in &changes.credited {
            shared.say(&format!("jobset {key}: credited restart attempt {attempt} to revision {number}"));
        }
    }
    // Events go to the announcer: they are news, not history, and do not hold up the next batch.
    if let Some(announce) = shared.announce.borrow().as_ref() {
        for announcement in announcements {
            let _ = announce.send(announcement);
        }
    }
}

/// Publishes the Events of recorded revisions, a few at a time, beside the worker.
async fn announce(
    shared: &Shared<'_>,
    cluster: &Cluster,
    identity: &str,
    queue: tokio::sync::mpsc::UnboundedReceiver<Announcement>,
) {
    let published = tokio_stream_of(queue)
        .map(|(key, jobset, note)| async move {
            // A publisher per Event: kube's would fold different revisions into one series.
            let publisher = events::publisher(cluster, identity);
            (key, events::publish(cluster, &publisher, &events::revision_event(note), &jobset).await)
        })
        .buffer_unordered(EVENTS_IN_FLIGHT);
    tokio::pin!(published);
    while let Some((key, result)) = published.next().await {
        if let Err(e) = result {
            shared.warn_once(&format!("warning: no Event for jobset {key}: {e}"));
        }
    }
}

/// The receiver as a stream.
fn tokio_stream_of<T>(mut receiver: tokio::sync::mpsc::UnboundedReceiver<T>) -> impl Stream<Item = T> {
    futures::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}

/// True when a JobSet's history was not brought up to date: its spec has no revision, or
/// recording said so for it (or for all).
fn failed(jobset: &JobSet, histories: &Histories, warnings: &str) -> bool {
    let name = format!("{}/{}", jobset.namespace(), jobset.name());
    let said = warnings
        .lines()
        .filter(|l| l.contains("not recorded"))
        .any(|l| l.contains(&name) || !l.contains("jobset "));
    said || crate::observe::spec_revision(histories, jobset).is_none()
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

/// Resolves on SIGTERM or SIGINT, with the signal's name.
async fn shutdown_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).ok();
        let terminated = async {
            match terminate.as_mut() {
                Some(t) => {
                    t.recv().await;
                }
                None => futures::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "SIGINT",
            () = terminated => "SIGTERM",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use serde_json::json;

    fn jobset(restarts: i32) -> JobSet {
        testing::jobset("js")
            .namespace("ns")
            .uid("u1")
            .replicated_job("w", 1, json!({"spec": {}}))
            .restarts(restarts)
            .build()
    }

    fn job(attempt: &str) -> ChildJob {
        testing::job(&format!("js-w-0-{attempt}")).namespace("ns").attempt(attempt).spec(json!({})).build()
    }

    #[test]
    fn jobs_of_an_attempt_the_status_does_not_show_are_a_torn_read() {
        assert_eq!(torn_read(&jobset(1), &[job("0"), job("1")]), None);
        assert_eq!(torn_read(&jobset(1), &[job("1"), job("2")]), Some(2));
        assert_eq!(torn_read(&jobset(0), &[job("x")]), None, "unlabelled or unreadable: not torn");
    }

    fn revision(name: &str, number: i64, attempts: &str, rv: &str) -> Revision {
        testing::revision("js", "u1", number)
            .name(name)
            .namespace("ns")
            .resource_version(rv)
            .attempts(attempts)
            .template("w", json!({"spec": {}}))
            .build()
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
    fn a_jobset_always_goes_to_the_same_part_of_a_batch() {
        let key = Key::new("ns", "train");
        assert_eq!(chunk_of(&key, 16), chunk_of(&key.clone(), 16));
        assert!(chunk_of(&key, 16) < 16);
        assert_eq!(chunk_of(&key, 1), 0);
        let parts: HashSet<usize> =
            (0..100).map(|i| chunk_of(&Key::new("ns", &format!("js{i}")), 16)).collect();
        assert!(parts.len() > 8, "spread over the parts: {parts:?}");
    }

    #[test]
    fn resource_versions_compare_as_integers_when_they_are() {
        assert!(at_least("12", "9"));
        assert!(!at_least("9", "12"));
        assert!(at_least("abc", "abc"));
        assert!(!at_least("abd", "abc"));
    }

    #[test]
    fn a_jobset_is_failed_when_recording_said_so_or_its_spec_has_no_revision() {
        let js = jobset(0);
        let mut histories = Histories::new();
        assert!(failed(&js, &histories, ""), "no revision for the spec");
        let spec = history::templates_of(&js);
        let stored = revision(&format!("js-{}", history::hash(&spec)), 1, "0", "5");
        histories.insert("u1".into(), vec![stored]);
        assert!(!failed(&js, &histories, "warning: controllerrevision x is not owned by this JobSet"));
        assert!(failed(&js, &histories, "warning: history of jobset ns/js not recorded: conflict"));
        assert!(!failed(&js, &histories, "warning: history of jobset ns/other not recorded: conflict"));
        assert!(failed(&js, &histories, "warning: history not recorded (read-only): forbidden"));
    }

    #[test]
    fn an_earlier_version_keeps_the_current_status_with_its_own_templates_and_cause() {
        let mut old = jobset(0).object();
        old["spec"]["replicatedJobs"][0]["template"] = json!({"spec": {"parallelism": 3}});
        old["metadata"]["annotations"] = json!({history::CHANGE_CAUSE: "v3"});
        let old = JobSet::from_raw(old).unwrap();
        let mut current = jobset(2).object();
        current["metadata"]["annotations"] = json!({history::CHANGE_CAUSE: "v4", "keep": "me"});
        let current = JobSet::from_raw(current).unwrap();
        let merged = with_templates_of(&current, &old).unwrap();
        assert_eq!(merged.attempt(), 2);
        assert_eq!(merged.spec.replicated_jobs[0].template, json!({"spec": {"parallelism": 3}}));
        let annotations = merged.metadata.annotations.unwrap();
        assert_eq!(annotations[history::CHANGE_CAUSE], "v3");
        assert_eq!(annotations["keep"], "me");
    }

    #[test]
    fn the_note_says_where_the_templates_came_from() {
        let r = revision("a", 3, "1-2", "1");
        assert_eq!(recorded_note(&r), "Recorded revision 3 from the spec, restart attempts 1-2");
    }
}
