//! Events about JobSets, published with kube's events `Recorder` (`events.k8s.io/v1`),
//! so that `kubectl describe jobset` and `kubectl get events` show who did what.

use k8s_openapi::api::core::v1::ObjectReference;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};

use super::Cluster;
use crate::error::{Op, Result};
use crate::model::jobset::{API_VERSION, JobSet, KIND};
use crate::plan::restart::RESTART_REASON;

/// The reporting controller (and instance) of our Events.
pub const REPORTER: &str = "kubectl-jobset";
/// The Event's action for a restart.
pub const RESTART_ACTION: &str = "Restart";
/// What RBAC calls the resource the recorder writes (`create`, and `patch` for series).
pub const EVENTS_RESOURCE: &str = "events.events.k8s.io";

/// The JobSet an Event is about.
pub fn reference(jobset: &JobSet) -> ObjectReference {
    ObjectReference {
        api_version: Some(API_VERSION.to_owned()),
        kind: Some(KIND.to_owned()),
        name: Some(jobset.name().to_owned()),
        namespace: Some(jobset.namespace().to_owned()),
        uid: Some(jobset.uid().to_owned()).filter(|uid| !uid.is_empty()),
        ..Default::default()
    }
}

/// The Event for a restart someone asked for; `note` says who and why.
pub fn restart_event(note: String) -> Event {
    Event {
        type_: EventType::Normal,
        reason: RESTART_REASON.to_owned(),
        note: Some(note),
        action: RESTART_ACTION.to_owned(),
        secondary: None,
    }
}

/// Publishes a restart Event regarding `jobset`, in the JobSet's namespace.
pub async fn publish_restart(cluster: &Cluster, jobset: &JobSet, note: String) -> Result<()> {
    publish_event(cluster, jobset, &restart_event(note)).await
}

/// Publishes `event` regarding `jobset` as kubectl-jobset, in the JobSet's namespace.
pub async fn publish_event(cluster: &Cluster, jobset: &JobSet, event: &Event) -> Result<()> {
    // No instance: kube then reports the controller name as the instance too, instead of
    // the user's host name.
    let reporter = Reporter { controller: REPORTER.to_owned(), instance: None };
    let recorder = Recorder::new(cluster.client.clone(), reporter);
    recorder
        .publish(event, &reference(jobset))
        .await
        .map_err(|e| cluster.errors.classify(Op::new("create", EVENTS_RESOURCE, Some(jobset.namespace())), e))
}

/// Our reason and action on the Event for a `set image` (`set env`, `set resources`: see plan::set).
pub const IMAGE_UPDATE_REASON: &str = "ImageUpdated";
pub const IMAGE_UPDATE_ACTION: &str = "SetImage";

/// Publishes an Event saying whose `set image|env|resources` changed the JobSet's
/// templates, and why; `reason_action` is the setting's (`ImageUpdated`, `SetImage`).
pub async fn publish_template_update(
    cluster: &Cluster,
    jobset: &JobSet,
    (reason, action): (&str, &str),
    note: String,
) -> Result<()> {
    let event = Event {
        type_: EventType::Normal,
        reason: reason.to_owned(),
        note: Some(note),
        action: action.to_owned(),
        secondary: None,
    };
    publish_event(cluster, jobset, &event).await
}

/// The Event's reason and action when the recorder records a revision.
pub const REVISION_RECORDED_REASON: &str = "RevisionRecorded";
pub const RECORD_ACTION: &str = "Record";

/// The Event for a revision the recorder recorded; `note` says which and why.
pub fn revision_event(note: String) -> Event {
    Event {
        type_: EventType::Normal,
        reason: REVISION_RECORDED_REASON.to_owned(),
        note: Some(note),
        action: RECORD_ACTION.to_owned(),
        secondary: None,
    }
}

/// An Event publisher that reports as `instance` of kubectl-jobset.
pub fn publisher(cluster: &Cluster, instance: &str) -> Recorder {
    let reporter = Reporter { controller: REPORTER.to_owned(), instance: Some(instance.to_owned()) };
    Recorder::new(cluster.client.clone(), reporter)
}

/// Publishes `event` regarding the JobSet `regarding` (see `reference`) with `publisher`.
pub async fn publish(
    cluster: &Cluster,
    publisher: &Recorder,
    event: &Event,
    regarding: &ObjectReference,
) -> Result<()> {
    publisher.publish(event, regarding).await.map_err(|e| {
        cluster.errors.classify(Op::new("create", EVENTS_RESOURCE, regarding.namespace.as_deref()), e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_reference_names_the_jobset() {
        let js = JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml", "uid": "u1"},
            "spec": {"replicatedJobs": []}}))
        .unwrap();
        let r = reference(&js);
        assert_eq!(r.api_version.as_deref(), Some("jobset.x-k8s.io/v1alpha2"));
        assert_eq!(r.kind.as_deref(), Some("JobSet"));
        assert_eq!(
            (r.name.as_deref(), r.namespace.as_deref(), r.uid.as_deref()),
            (Some("train"), Some("ml"), Some("u1"))
        );
        let event = restart_event("restart 1 requested by alice".into());
        assert_eq!((event.reason.as_str(), event.action.as_str()), ("ManualRestart", "Restart"));
        assert_eq!(event.note.as_deref(), Some("restart 1 requested by alice"));
        assert_eq!(event.type_, EventType::Normal);
    }
}
