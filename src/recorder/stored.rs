//! A JobSet as the recorder's store holds it, by the thousand and for weeks: what finds
//! and tells it apart without reading it (name, namespace, uid, resourceVersion, whether
//! it is being deleted, the JobSet a handover replaced), and the object itself as compact
//! JSON, read again when the JobSet is reconciled. The text is a fraction of the parsed
//! tree (every key and value of a parsed object is its own allocation).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::model::compact::Compact;
use crate::model::jobset::{self, JobSet};

#[derive(Debug, Clone)]
pub(super) struct StoredJobSet {
    /// Name, namespace, uid, resourceVersion and deletionTimestamp only.
    pub(super) metadata: ObjectMeta,
    /// The uid of the JobSet this one replaced in a handover (`rollback --handover`).
    pub(super) handed_over_from: Option<String>,
    /// The object (`JobSet::object`) as compact JSON.
    object: Compact,
}

impl StoredJobSet {
    pub(super) fn of(jobset: &JobSet) -> Self {
        let meta = &jobset.metadata;
        StoredJobSet {
            metadata: ObjectMeta {
                name: meta.name.clone(),
                namespace: meta.namespace.clone(),
                uid: meta.uid.clone(),
                resource_version: meta.resource_version.clone(),
                deletion_timestamp: meta.deletion_timestamp.clone(),
                ..ObjectMeta::default()
            },
            handed_over_from: super::reconcile::handed_over_from(jobset).map(str::to_owned),
            object: Compact::of(&jobset.object()),
        }
    }

    /// The JobSet, read again.
    pub(super) fn jobset(&self) -> JobSet {
        JobSet::from_raw(self.object.value()).expect("read as a JobSet before")
    }

    pub(super) fn uid(&self) -> &str {
        self.metadata.uid.as_deref().unwrap_or_default()
    }

    pub(super) fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or_default()
    }

    pub(super) fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }
}

impl k8s_openapi::Resource for StoredJobSet {
    const API_VERSION: &'static str = jobset::API_VERSION;
    const GROUP: &'static str = jobset::API_GROUP;
    const KIND: &'static str = jobset::KIND;
    const VERSION: &'static str = jobset::VERSION;
    const URL_PATH_SEGMENT: &'static str = jobset::PLURAL;
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::Metadata for StoredJobSet {
    type Ty = ObjectMeta;
    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stored_jobset_reads_back_as_the_jobset_it_was() {
        let object = json!({
            "apiVersion": jobset::API_VERSION, "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "ns", "uid": "u2", "resourceVersion": "7",
                "annotations": {crate::plan::handover::FROM_UID_ANNOTATION: "u1", "keep": "me"}},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {"parallelism": 3}}}],
                "futureField": {"x": 1}},
            "status": {"restarts": 2}
        });
        let js = JobSet::from_raw(object.clone()).unwrap();
        let stored = StoredJobSet::of(&js);
        assert_eq!((stored.namespace(), stored.name(), stored.uid()), ("ns", "js", "u2"));
        assert_eq!(stored.handed_over_from.as_deref(), Some("u1"));
        assert!(stored.metadata.annotations.is_none(), "only what finds it is held beside the text");
        let back = stored.jobset();
        assert_eq!(back.object(), object, "every field, unknown ones included");
        assert_eq!(back.attempt(), 2);
        assert_eq!(back.spec.replicated_jobs[0].template, json!({"spec": {"parallelism": 3}}));
    }
}
