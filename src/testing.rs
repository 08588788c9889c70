//! Builders for what unit tests start from: JobSets, their child Jobs, and stored
//! revisions. Each starts from the least the code reads (a name) and adds only what a
//! test says, in the order it says it, so that a fixture reads as its differences and
//! the object it builds is the one the test wrote out before.

use k8s_openapi::api::apps::v1::ControllerRevision;
use serde_json::{Value, json};

use crate::history::{self, Revision, Templates};
use crate::model::jobset::{API_VERSION, ChildJob, JobSet, KIND, labels};

/// The pod template most tests run: one container `main` on `image`.
pub(crate) fn pod_template(image: &str) -> Value {
    json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}}})
}

/// Sets every field of `fields` (an object) in `target`, replacing what is there.
fn merge(target: &mut Value, fields: Value) {
    let Value::Object(fields) = fields else { panic!("fields to merge must be an object: {fields}") };
    for (key, value) in fields {
        target[key] = value;
    }
}

/// A JobSet, as the API server would return it. See [`jobset`].
pub(crate) struct JobSetBuilder(Value);

/// A JobSet named `name`: nothing else until a builder method adds it (no spec either:
/// the first replicatedJob or spec field makes one).
pub(crate) fn jobset(name: &str) -> JobSetBuilder {
    JobSetBuilder(json!({"metadata": {"name": name}}))
}

impl JobSetBuilder {
    pub(crate) fn namespace(self, namespace: &str) -> Self {
        self.meta("namespace", namespace)
    }

    pub(crate) fn uid(self, uid: &str) -> Self {
        self.meta("uid", uid)
    }

    pub(crate) fn resource_version(self, resource_version: &str) -> Self {
        self.meta("resourceVersion", resource_version)
    }

    /// Any metadata field (labels, annotations, timestamps, …).
    pub(crate) fn meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0["metadata"][key] = value.into();
        self
    }

    /// A replicatedJob `name` of `replicas` Jobs made from `template`.
    pub(crate) fn replicated_job(self, name: &str, replicas: i32, template: Value) -> Self {
        self.replicated_job_raw(json!({"name": name, "replicas": replicas, "template": template}))
    }

    /// A replicatedJob written out whole (say, without `replicas`, which defaults to 1).
    pub(crate) fn replicated_job_raw(mut self, replicated_job: Value) -> Self {
        let rjobs = &mut self.0["spec"]["replicatedJobs"];
        if rjobs.is_null() {
            *rjobs = json!([]);
        }
        rjobs.as_array_mut().expect("replicatedJobs is a list").push(replicated_job);
        self
    }

    /// One spec field (`replicatedJobs` too, written out whole).
    pub(crate) fn spec(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0["spec"][key] = value.into();
        self
    }

    /// Every field of `fields` (an object) in the spec, replacing what is there.
    pub(crate) fn spec_fields(mut self, fields: Value) -> Self {
        merge(&mut self.0["spec"], fields);
        self
    }

    pub(crate) fn status(mut self, status: Value) -> Self {
        self.0["status"] = status;
        self
    }

    /// `status.restarts`: the current restart attempt.
    pub(crate) fn restarts(self, restarts: i32) -> Self {
        self.status(json!({"restarts": restarts}))
    }

    /// With `apiVersion` and `kind`, as a full object (they come first, as the server
    /// writes them).
    pub(crate) fn typed(self) -> Self {
        let mut object = json!({"apiVersion": API_VERSION, "kind": KIND});
        merge(&mut object, self.0);
        JobSetBuilder(object)
    }

    pub(crate) fn build(self) -> JobSet {
        JobSet::from_raw(self.0).expect("a JobSet")
    }
}

/// A child Job of a JobSet, as the code reads it. See [`job`].
pub(crate) struct JobBuilder(Value);

/// A Job named `name`, with no labels, spec or status until a builder method adds them.
pub(crate) fn job(name: &str) -> JobBuilder {
    JobBuilder(json!({"metadata": {"name": name}}))
}

impl JobBuilder {
    /// Any metadata field (such as `deletionTimestamp`).
    pub(crate) fn meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0["metadata"][key] = value.into();
        self
    }

    /// A label; label values are strings, so `value` is written as one.
    pub(crate) fn label(mut self, key: &str, value: impl ToString) -> Self {
        self.0["metadata"]["labels"][key] = Value::String(value.to_string());
        self
    }

    /// Every label of `labels` (an object), as given.
    pub(crate) fn labels(mut self, labels: Value) -> Self {
        merge(&mut self.0["metadata"]["labels"], labels);
        self
    }

    /// The restart attempt the JobSet controller labels the Job with (any text: tests
    /// of unreadable labels pass one that is not a number).
    pub(crate) fn attempt(self, attempt: impl ToString) -> Self {
        self.label(labels::RESTART_ATTEMPT, attempt)
    }

    /// The replicatedJob the Job belongs to.
    pub(crate) fn replicated_job(self, name: &str) -> Self {
        self.label(labels::REPLICATED_JOB, name)
    }

    /// The Job's index within its replicatedJob.
    pub(crate) fn index(self, index: impl ToString) -> Self {
        self.label(labels::JOB_INDEX, index)
    }

    pub(crate) fn spec(mut self, spec: Value) -> Self {
        self.0["spec"] = spec;
        self
    }

    pub(crate) fn status(mut self, status: Value) -> Self {
        self.0["status"] = status;
        self
    }

    pub(crate) fn build(self) -> ChildJob {
        serde_json::from_value(self.0).expect("a Job")
    }
}

/// A revision of a JobSet's templates, as we store it. See [`revision`].
pub(crate) struct RevisionBuilder {
    object: Value,
    owner_uid: String,
}

/// Revision `number` of JobSet `owner` (uid `owner_uid`), named `<owner>-<number>`, in
/// our storage format, holding no templates until a builder method adds them.
pub(crate) fn revision(owner: &str, owner_uid: &str, number: i64) -> RevisionBuilder {
    let object = json!({
        "metadata": {"name": format!("{owner}-{number}"),
            "ownerReferences": [{"apiVersion": API_VERSION, "kind": KIND, "name": owner, "uid": owner_uid}],
            "annotations": {history::FORMAT_ANNOTATION: history::FORMAT}},
        "data": {"replicatedJobs": []},
        "revision": number});
    RevisionBuilder { object, owner_uid: owner_uid.to_owned() }
}

// Not every method is used yet: the revision fixtures of render/history.rs and recorder/ tests
// are still written out by hand there.
#[allow(dead_code)]
impl RevisionBuilder {
    pub(crate) fn meta(mut self, key: &str, value: &str) -> Self {
        self.object["metadata"][key] = json!(value);
        self
    }

    pub(crate) fn label(mut self, key: &str, value: &str) -> Self {
        self.object["metadata"]["labels"][key] = json!(value);
        self
    }

    pub(crate) fn annotation(mut self, key: &str, value: &str) -> Self {
        self.object["metadata"]["annotations"][key] = json!(value);
        self
    }

    /// The restart attempts credited to the revision, as stored (`0-2,5`).
    pub(crate) fn attempts(self, attempts: &str) -> Self {
        self.annotation(history::ATTEMPTS_ANNOTATION, attempts)
    }

    /// The template of replicatedJob `name`, after those added before.
    pub(crate) fn template(mut self, name: &str, template: Value) -> Self {
        let rjobs = self.object["data"]["replicatedJobs"].as_array_mut().expect("a list");
        rjobs.push(json!({"name": name, "template": template}));
        self
    }

    pub(crate) fn templates(self, templates: &Templates) -> Self {
        templates.iter().fold(self, |b, (name, template)| b.template(name, template.clone()))
    }

    /// Kept by the recorder: no ownerReference, the owner's uid in the `jobset-uid` label.
    pub(crate) fn released(mut self) -> Self {
        self.object["metadata"].as_object_mut().expect("metadata").remove("ownerReferences");
        let uid = self.owner_uid.clone();
        self.label(history::UID_LABEL, &uid)
    }

    /// The ControllerRevision as stored.
    pub(crate) fn stored(self) -> ControllerRevision {
        serde_json::from_value(self.object).expect("a ControllerRevision")
    }

    /// The revision as read back for its owner.
    pub(crate) fn build(self) -> Revision {
        let owner_uid = self.owner_uid.clone();
        history::parse(&self.stored(), &owner_uid).expect("one of the owner's revisions")
    }
}
