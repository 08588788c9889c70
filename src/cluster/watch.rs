//! Watching one JobSet and its Jobs (for `restart --wait`): a stream of snapshots, fed
//! by two watches rather than polling.

use std::collections::BTreeMap;

use futures::{Stream, StreamExt};
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};

use super::Cluster;
use super::api::api;
use super::classify::ErrorContext;
use crate::error::{Error, Result};
use crate::model::jobset::{ChildJob, JobSet, labels};

/// The latest state seen: the JobSet (None once deleted) and its Jobs.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub jobset: Option<JobSet>,
    pub jobs: Vec<ChildJob>,
    /// False until both watches have listed their objects once.
    pub synced: bool,
}

enum Update {
    JobSet(watcher::Event<JobSet>),
    Job(watcher::Event<ChildJob>),
}

/// Snapshots of the JobSet `name` and its Jobs, one per change.
pub fn watch_jobset(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
) -> impl Stream<Item = Result<Snapshot>> + use<> {
    let jobsets: Api<JobSet> = Api::namespaced(cluster.client.clone(), namespace);
    let jobs: Api<ChildJob> = Api::namespaced(cluster.client.clone(), namespace);
    let jobset_events = watcher(jobsets, watcher::Config::default().fields(&format!("metadata.name={name}")))
        .default_backoff()
        .map(|e| e.map(Update::JobSet));
    let job_events =
        watcher(jobs, watcher::Config::default().labels(&format!("{}={name}", labels::JOBSET_NAME)))
            .default_backoff()
            .map(|e| e.map(Update::Job));
    let errors = cluster.errors.clone();
    let namespace = namespace.to_owned();
    let (mut jobset, mut jobs_by_name) = (None::<JobSet>, BTreeMap::<String, ChildJob>::new());
    let (mut jobset_synced, mut jobs_synced) = (false, false);
    futures::stream::select(jobset_events, job_events)
        // 410 Gone: the watch fell behind; the watcher lists again by itself.
        .filter(|update| {
            futures::future::ready(!matches!(update, Err(watcher::Error::WatchError(s)) if s.code == 410))
        })
        .map(move |update| {
            match update.map_err(|e| classify(&errors, &namespace, e))? {
                Update::JobSet(event) => match event {
                    watcher::Event::Apply(o) | watcher::Event::InitApply(o) => jobset = Some(o),
                    watcher::Event::Delete(_) => jobset = None,
                    watcher::Event::Init => jobset = None,
                    watcher::Event::InitDone => jobset_synced = true,
                },
                Update::Job(event) => match event {
                    watcher::Event::Apply(job) | watcher::Event::InitApply(job) => {
                        jobs_by_name.insert(job.name().to_owned(), job);
                    }
                    watcher::Event::Delete(job) => {
                        jobs_by_name.remove(job.name());
                    }
                    watcher::Event::Init => jobs_by_name.clear(),
                    watcher::Event::InitDone => jobs_synced = true,
                },
            }
            Ok(Snapshot {
                jobset: jobset.clone(),
                jobs: jobs_by_name.values().cloned().collect(),
                synced: jobset_synced && jobs_synced,
            })
        })
}

/// A failed watch, in the same words as any failed request.
fn classify(errors: &ErrorContext, namespace: &str, err: watcher::Error) -> Error {
    errors.classify_watch(crate::error::Op::new("watch", "jobs.batch", Some(namespace)), err)
}

/// One change seen by a fleet watch (`list -w`, `history -w`).
pub enum FleetUpdate {
    JobSet(watcher::Event<JobSet>),
    Job(watcher::Event<ChildJob>),
    Revision(watcher::Event<k8s_openapi::api::apps::v1::ControllerRevision>),
}

/// What a fleet watch follows: JobSets (in one namespace or all, by label), and with
/// them their Jobs, their recorded revisions, or both.
pub struct FleetWatch<'a> {
    pub namespace: Option<&'a str>,
    /// `-l` on JobSets.
    pub jobset_selector: Option<&'a str>,
    /// Only the JobSet of this name (a field selector).
    pub name: Option<&'a str>,
    /// `--field-selector` on JobSets.
    pub jobset_fields: Option<&'a str>,
    /// The label selector of the Jobs to follow, if any.
    pub jobs: Option<String>,
    /// The label selector of the ControllerRevisions to follow, if any.
    pub revisions: Option<String>,
}

/// Every change to the JobSets, Jobs and revisions a `FleetWatch` names, merged into one
/// stream (watches, never polling; 410 Gone makes the watcher list again by itself).
pub fn watch_fleet(
    cluster: &Cluster,
    what: FleetWatch<'_>,
) -> impl Stream<Item = Result<FleetUpdate>> + use<> {
    let mut config = watcher::Config::default();
    if let Some(selector) = what.jobset_selector {
        config = config.labels(selector);
    }
    let fields: Vec<String> = what
        .name
        .map(|name| format!("metadata.name={name}"))
        .into_iter()
        .chain(what.jobset_fields.map(str::to_owned))
        .collect();
    if !fields.is_empty() {
        config = config.fields(&fields.join(","));
    }
    let mut streams: Vec<futures::stream::BoxStream<'static, Result<FleetUpdate, watcher::Error>>> = vec![
        watcher(api::<JobSet>(cluster, what.namespace), config)
            .default_backoff()
            .map(|e| e.map(FleetUpdate::JobSet))
            .boxed(),
    ];
    if let Some(selector) = &what.jobs {
        let config = watcher::Config::default().labels(selector);
        streams.push(
            watcher(api::<ChildJob>(cluster, what.namespace), config)
                .default_backoff()
                .map(|e| e.map(FleetUpdate::Job))
                .boxed(),
        );
    }
    if let Some(selector) = &what.revisions {
        let config = watcher::Config::default().labels(selector);
        let revisions = api::<k8s_openapi::api::apps::v1::ControllerRevision>(cluster, what.namespace);
        streams
            .push(watcher(revisions, config).default_backoff().map(|e| e.map(FleetUpdate::Revision)).boxed());
    }
    let errors = cluster.errors.clone();
    let namespace = what.namespace.map(str::to_owned);
    futures::stream::select_all(streams)
        .filter(|update| {
            futures::future::ready(!matches!(update, Err(watcher::Error::WatchError(s)) if s.code == 410))
        })
        .map(move |update| update.map_err(|e| classify(&errors, namespace.as_deref().unwrap_or_default(), e)))
}

/// What the next item of `watch_jobset` means to a command following it: a synced
/// snapshot to judge (`Some`), nothing yet (`None`: not synced, or an idle watch that timed
/// out and is re-established), or the error that ends the command.
pub fn next_snapshot(
    next: Option<Result<Snapshot>>,
    name: &str,
    cluster: &Cluster,
) -> Result<Option<Snapshot>> {
    match next {
        None => Err(Error::Wait(format!("watching jobset {name} ended unexpectedly"))),
        Some(Ok(snapshot)) if snapshot.synced => Ok(Some(snapshot)),
        Some(Ok(_)) => Ok(None),
        // A watch idle for longer than --request-timeout times out; the watcher
        // re-establishes it. Any other failure ends the command.
        Some(Err(Error::Timeout { .. })) => {
            cluster.log.note(6, "watch timed out; watching again");
            Ok(None)
        }
        Some(Err(e)) => Err(e),
    }
}

/// Whether the API server hands a watch its initial state as a stream of events
/// (`sendInitialEvents`, the WatchList feature, on by default from Kubernetes 1.34). A
/// watcher that starts that way gets its objects one at a time, instead of in pages of
/// 500 parsed whole. Probed once, with a watch of
/// JobSets that matches none (any failure: the pages, as before).
pub async fn streams_initial_events(cluster: &Cluster, namespace: Option<&str>) -> bool {
    let probe =
        kube::api::WatchParams::streaming_lists().fields("metadata.name=kubectl-jobset.io-probe").timeout(1);
    api::<JobSet>(cluster, namespace).watch(&probe, "0").await.is_ok()
}
