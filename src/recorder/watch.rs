//! The recorder's three watches (the JobSets in scope, their Jobs, our
//! ControllerRevisions): kube-runtime reflectors fill the stores (re-list after 410 Gone,
//! backoff), and every event queues the JobSet it concerns.

use std::cell::RefCell;
use std::sync::atomic::Ordering;

use futures::{Stream, StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::runtime::reflector::{self, store::Writer};
use kube::runtime::{WatchStreamExt, watcher};

use super::RecorderPlan;
use super::index::OwnerIndex;
use super::metrics::Metrics;
use super::queue::Key;
use super::state::{Shared, Stores, Watched};
use super::stored::StoredJobSet;
use crate::cluster::Cluster;
use crate::cluster::api::api;
use crate::history;
use crate::model::jobset::{ChildJob, JobSet, labels};
use crate::observe::TemplateForms;

/// What fills the stores: one writer per watch.
pub(super) type Writers = (Writer<StoredJobSet>, Writer<ChildJob>, Writer<ControllerRevision>);

/// Empty stores, and their writers.
pub(super) fn stores() -> (Stores, Writers) {
    let (jobsets, jobset_writer) = reflector::store::<StoredJobSet>();
    let (jobs, job_writer) = reflector::store::<ChildJob>();
    let (revisions, revision_writer) = reflector::store::<ControllerRevision>();
    ((jobsets, jobs, revisions), (jobset_writer, job_writer, revision_writer))
}

/// Runs the three watches of `plan`'s scope into the stores and the queue (until the
/// process stops: a failed watch restarts).
pub(super) async fn watch(shared: &Shared<'_>, cluster: &Cluster, plan: &RecorderPlan, writers: Writers) {
    let (jobset_writer, job_writer, revision_writer) = writers;
    let ns = plan.namespace.as_deref();
    let streamed = crate::cluster::watch::streams_initial_events(cluster, ns).await;
    shared.say(if streamed {
        "listing by watch: the API server streams each watch's initial objects"
    } else {
        "listing in pages: the API server does not stream a watch's initial objects (WatchList)"
    });
    // Each watch lists its objects as a stream of events when the server can, one object
    // at a time; a list in pages holds a page of 500 objects parsed whole.
    let config =
        || if streamed { watcher::Config::default().streaming_lists() } else { watcher::Config::default() };
    let mut jobset_config = config();
    if let Some(selector) = &plan.selector {
        jobset_config = jobset_config.labels(selector);
    }
    // Jobs are kept in the diff engine's normal form, as a loaded fleet holds them: a Job
    // that runs its JobSet's template holds that JobSet's client-side form (learned from
    // the JobSets' watch), others their own, equal ones shared.
    let forms = std::sync::Mutex::new(TemplateForms::default());
    let jobset_events = reflector::reflector(
        jobset_writer,
        watcher(api::<JobSet>(cluster, ns), jobset_config).default_backoff().map_ok(|event| {
            let mut forms = forms.lock().expect("no panic holds the lock");
            let mut seen = |js: &JobSet| {
                forms.learn(js);
                // Before the store holds it: the version it replaces is still there.
                shared.remember(js);
                StoredJobSet::of(js)
            };
            match event {
                watcher::Event::Apply(js) => watcher::Event::Apply(seen(&js)),
                watcher::Event::InitApply(js) => watcher::Event::InitApply(seen(&js)),
                watcher::Event::Delete(js) => {
                    forms.forget(&js);
                    shared.forget(&Key::new(js.namespace(), js.name()));
                    watcher::Event::Delete(StoredJobSet::of(&js))
                }
                watcher::Event::Init => {
                    forms.begin_relist();
                    watcher::Event::Init
                }
                watcher::Event::InitDone => {
                    forms.end_relist();
                    watcher::Event::InitDone
                }
            }
        }),
    );
    let job_events = reflector::reflector(
        job_writer,
        watcher(api::<ChildJob>(cluster, ns), config().labels(labels::JOBSET_NAME))
            .map_ok(|event| event.modify(|job| forms.lock().expect("no panic holds the lock").reduce(job)))
            .default_backoff(),
    );
    // The stored revisions without managedFields and with their data as compact text
    // (parsed again when their JobSet is reconciled): the recorder reads them, never
    // writes them back whole.
    let revision_events = reflector::reflector(
        revision_writer,
        watcher(api::<ControllerRevision>(cluster, ns), config().labels(history::JOBSET_LABEL))
            .map_ok(|event| {
                event.modify(|revision| {
                    revision.metadata.managed_fields = None;
                    history::compact_data(revision);
                })
            })
            .default_backoff(),
    );
    tokio::join!(
        drive(
            shared,
            Watched::JobSets,
            "jobsets",
            jobset_events,
            |js: &StoredJobSet| Some(Key::new(js.namespace(), js.name())),
            |_, _| {},
            None,
        ),
        drive(
            shared,
            Watched::Jobs,
            "jobs",
            job_events,
            |job: &ChildJob| Some(Key::new(
                job.metadata.namespace.as_deref()?,
                job.label(labels::JOBSET_NAME)?
            )),
            |_, _| {},
            Some(&shared.job_index),
        ),
        drive(
            shared,
            Watched::Revisions,
            "controllerrevisions",
            revision_events,
            |r: &ControllerRevision| {
                let name = r.metadata.labels.as_ref()?.get(history::JOBSET_LABEL)?;
                Some(Key::new(r.metadata.namespace.as_deref()?, name))
            },
            |r: &ControllerRevision, present| {
                // A revision released, marked, or recorded for a JobSet gone meanwhile.
                if present && shared.concerns_retention(r) {
                    shared.retention_wake.notify_one();
                }
            },
            Some(&shared.revision_index),
        ),
    );
}

/// Feeds one watch's events into the queue: each event queues the JobSet it concerns. A
/// re-list (after 410 Gone or a failed watch) lists every object again, which queues
/// every JobSet again: that is the catch-up. `index`, when given, follows which objects
/// concern which JobSet.
async fn drive<K: kube::Resource>(
    shared: &Shared<'_>,
    which: Watched,
    what: &str,
    events: impl Stream<Item = watcher::Result<watcher::Event<K>>>,
    key_of: impl Fn(&K) -> Option<Key>,
    remember: impl Fn(&K, bool),
    index: Option<&RefCell<OwnerIndex>>,
) {
    let mut listed = false;
    let name_of = |o: &K| {
        let meta = o.meta();
        (meta.namespace.clone().unwrap_or_default(), meta.name.clone().unwrap_or_default())
    };
    tokio::pin!(events);
    while let Some(event) = events.next().await {
        if let (Some(index), Ok(event)) = (index, &event) {
            let mut index = index.borrow_mut();
            match event {
                watcher::Event::Apply(o) => {
                    let (namespace, name) = name_of(o);
                    index.apply(&namespace, &name, key_of(o));
                }
                watcher::Event::InitApply(o) => index.listed(&name_of(o).1, key_of(o)),
                watcher::Event::Delete(o) => {
                    let (namespace, name) = name_of(o);
                    index.delete(&namespace, &name);
                }
                watcher::Event::Init => index.begin_list(),
                watcher::Event::InitDone => index.end_list(),
            }
        }
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
                // A JobSet gone: its history is now kept for the retention.
                shared.retention_wake.notify_one();
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
                shared.wake_workers();
                shared.retention_wake.notify_one();
            }
            Err(e) => {
                Metrics::add(&shared.metrics.watch_restarts, 1);
                shared.say(&format!("warning: the watch of {what} failed and restarts: {e}"));
            }
        }
    }
}
