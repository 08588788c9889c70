//! Watching one JobSet and its Jobs (for `restart --wait`): a stream of snapshots, fed
//! by two watches rather than polling.

use std::collections::BTreeMap;

use futures::{Stream, StreamExt};
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};

use super::Cluster;
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
fn classify(errors: &crate::error::ErrorContext, namespace: &str, err: watcher::Error) -> Error {
    let op = crate::error::Op::new("watch", "jobs.batch", Some(namespace));
    match err {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => errors.classify(op, e),
        watcher::Error::WatchError(status) => errors.classify(op, kube::Error::Api(status)),
        other => {
            Error::Transport { op: Box::new(op), reason: other.to_string(), source: Some(Box::new(other)) }
        }
    }
}
