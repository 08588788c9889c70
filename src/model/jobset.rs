//! Read-only views of JobSets and their child Jobs.
//!
//! A JobSet keeps its raw JSON next to the typed view: decisions read the view, but
//! anything we write is a JSON patch built from the raw value, so fields this plugin
//! does not know about are never dropped. The raw object and the replicatedJobs'
//! templates are held as compact JSON (`model::compact`): a fleet read holds every
//! JobSet, and a parsed tree costs ten times its text.

use k8s_openapi::api::batch::v1::JobStatus;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::compact::{Compact, HeldJson};

/// The controller that acts on JobSets when `spec.managedBy` is unset or this value.
pub const JOBSET_CONTROLLER: &str = "jobset.sigs.k8s.io/jobset-controller";
pub const API_GROUP: &str = "jobset.x-k8s.io";
pub const VERSION: &str = "v1alpha2";
pub const API_VERSION: &str = "jobset.x-k8s.io/v1alpha2";
pub const KIND: &str = "JobSet";
/// The resource in API paths and RBAC rules.
pub const PLURAL: &str = "jobsets";
/// How kubectl names the resource in `-o name` and in messages.
pub const RESOURCE_NAME: &str = "jobset.jobset.x-k8s.io";

/// Labels the JobSet controller puts on every child Job (and its pods).
pub mod labels {
    pub const JOBSET_NAME: &str = "jobset.sigs.k8s.io/jobset-name";
    pub const JOBSET_UID: &str = "jobset.sigs.k8s.io/jobset-uid";
    pub const REPLICATED_JOB: &str = "jobset.sigs.k8s.io/replicatedjob-name";
    pub const JOB_INDEX: &str = "jobset.sigs.k8s.io/job-index";
    pub const RESTART_ATTEMPT: &str = "jobset.sigs.k8s.io/restart-attempt";
    /// The replicatedJob's and the JobSet's replica counts when the Job was created: the
    /// world size a distributed job's Pods read (labels and annotations, Job and Pods).
    pub const REPLICATED_JOB_REPLICAS: &str = "jobset.sigs.k8s.io/replicatedjob-replicas";
    pub const GLOBAL_REPLICAS: &str = "jobset.sigs.k8s.io/global-replicas";
    /// Set on each Job, counting its own restarts, only where Jobs restart one by one
    /// (the RestartJob feature).
    pub const JOB_RESTART_ATTEMPT: &str = "jobset.sigs.k8s.io/job-restart-attempt";

    /// The labels read from a Job (`ChildJob::label`); a Job keeps these alone.
    pub const READ: [&str; 8] = [
        JOBSET_NAME,
        JOBSET_UID,
        REPLICATED_JOB,
        JOB_INDEX,
        RESTART_ATTEMPT,
        REPLICATED_JOB_REPLICAS,
        GLOBAL_REPLICAS,
        JOB_RESTART_ATTEMPT,
    ];
}

/// A JobSet: the typed view the code reads, next to the raw object the server sent.
/// It is the `jobset.x-k8s.io/v1alpha2` resource for `Api<JobSet>`; writes are JSON
/// patches, so fields this plugin does not model are never dropped.
#[derive(Debug, Clone)]
pub struct JobSet {
    pub metadata: ObjectMeta,
    pub spec: JobSetSpec,
    pub status: JobSetStatus,
    /// The object as the API server returned it, except `managedFields` and the
    /// replicatedJobs' templates, which live in `spec` (held once; see `object()`); as
    /// compact text, read with `raw()`.
    raw: Compact,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSetSpec {
    #[serde(default)]
    pub replicated_jobs: Vec<ReplicatedJob>,
    #[serde(default)]
    pub suspend: Option<bool>,
    #[serde(default)]
    pub managed_by: Option<String>,
    #[serde(default)]
    pub startup_policy: Option<StartupPolicy>,
    #[serde(default)]
    pub failure_policy: Option<FailurePolicy>,
    #[serde(default)]
    pub network: Option<Network>,
    #[serde(default)]
    pub volume_claim_policies: Vec<VolumeClaimPolicy>,
    /// `spec.coordinator`: the Pod whose address every Job is told (an object, or absent).
    #[serde(default, deserialize_with = "object_or_none")]
    pub coordinator: Option<Coordinator>,
}

/// `spec.coordinator`, its fields defaulting as the controller reads them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coordinator {
    #[serde(default)]
    pub replicated_job: String,
    #[serde(default)]
    pub job_index: i64,
    #[serde(default)]
    pub pod_index: i64,
}

/// An object read as `T` (fields it cannot read defaulted); anything else as absent.
fn object_or_none<'de, D: serde::Deserializer<'de>, T: Default + serde::de::DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok(value.is_object().then(|| serde_json::from_value(value).unwrap_or_default()))
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    #[serde(default, rename = "enableDNSHostnames")]
    pub enable_dns_hostnames: Option<bool>,
    #[serde(default)]
    pub subdomain: Option<String>,
}

/// `volumeClaimPolicies[]`: PVCs the controller creates and mounts into every Job.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct VolumeClaimPolicy {
    #[serde(default)]
    pub templates: Vec<ClaimTemplate>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ClaimTemplate {
    #[serde(default)]
    pub metadata: ObjectMeta,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartupPolicy {
    /// `AnyOrder` (the default) or `InOrder`.
    #[serde(default)]
    pub startup_policy_order: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailurePolicy {
    #[serde(default)]
    pub max_restarts: i32,
}

/// `replicatedJobs[].dependsOn[]`: start only once `name` is `Ready` or `Complete`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DependsOn {
    pub name: String,
    pub status: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJob {
    pub name: String,
    #[serde(default = "one")]
    pub replicas: i32,
    #[serde(default)]
    pub depends_on: Vec<DependsOn>,
    /// The Job template, kept raw (it is what the controller copies into each Job), as
    /// compact text: read it with `template.value()`.
    #[serde(skip_deserializing)]
    pub template: Compact,
}

fn one() -> i32 {
    1
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSetStatus {
    #[serde(default)]
    pub restarts: i32,
    #[serde(default)]
    pub restarts_count_towards_max: i32,
    #[serde(default)]
    pub terminal_state: Option<String>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
    #[serde(default)]
    pub replicated_jobs_status: Vec<ReplicatedJobStatus>,
}

/// `status.replicatedJobsStatus[]`, as far as kubectl-jobset reads it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobStatus {
    pub name: String,
    /// Per-Job restart counts (the RestartJob feature), one per replica.
    #[serde(default)]
    pub job_restarts: Vec<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default, rename = "lastTransitionTime")]
    pub last_transition_time: Option<String>,
}

#[derive(Deserialize)]
struct JobSetView {
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    spec: JobSetSpec,
    #[serde(default)]
    status: Option<JobSetStatus>,
}

impl<'de> Deserialize<'de> for JobSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = deserializer.deserialize_any(ObjectSkipping { depth: 0 })?;
        JobSet::from_raw(raw).map_err(serde::de::Error::custom)
    }
}

/// Reads an object as a `Value`, except `metadata.managedFields`, which it skips
/// unparsed: `from_raw` drops them anyway, and in a listed JobSet they are about half
/// of its bytes (a field tree for each manager) and of the map nodes a tree would need.
/// `depth` is 0 for the object, 1 for its `metadata`; either must be an object, as
/// `from_raw` requires too.
struct ObjectSkipping {
    depth: u8,
}

impl<'de> serde::de::DeserializeSeed<'de> for ObjectSkipping {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for ObjectSkipping {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match (self.depth, key.as_str()) {
                (0, "metadata") => {
                    let metadata = map.next_value_seed(ObjectSkipping { depth: 1 })?;
                    object.insert(key, metadata);
                }
                (1, "managedFields") => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
                _ => {
                    let value = map.next_value::<Value>()?;
                    object.insert(key, value);
                }
            }
        }
        Ok(Value::Object(object))
    }
}

impl serde::Serialize for JobSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.object().serialize(serializer)
    }
}

impl k8s_openapi::Resource for JobSet {
    const API_VERSION: &'static str = API_VERSION;
    const GROUP: &'static str = API_GROUP;
    const KIND: &'static str = KIND;
    const VERSION: &'static str = VERSION;
    const URL_PATH_SEGMENT: &'static str = PLURAL;
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::Metadata for JobSet {
    type Ty = ObjectMeta;
    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

impl JobSet {
    /// Reads the typed view out of a raw JobSet object. `managedFields` are dropped:
    /// nothing here reads them, and kubectl hides them too.
    pub fn from_raw(mut raw: Value) -> Result<JobSet, serde_json::Error> {
        if let Some(meta) = raw.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
        }
        // The templates move into the typed view: on large fleets they are most of a
        // JobSet, and are held once.
        let templates: Vec<Value> =
            match raw.pointer_mut("/spec/replicatedJobs").and_then(Value::as_array_mut) {
                Some(rjobs) => rjobs
                    .iter_mut()
                    .map(|r| r.get_mut("template").map(Value::take).unwrap_or_default())
                    .collect(),
                None => vec![],
            };
        let mut view = JobSetView::deserialize(&raw)?;
        for (rjob, template) in view.spec.replicated_jobs.iter_mut().zip(templates) {
            rjob.template = Compact::of(&template);
        }
        let raw = Compact::of(&raw);
        Ok(JobSet { metadata: view.metadata, spec: view.spec, status: view.status.unwrap_or_default(), raw })
    }

    /// The whole object again (templates included, `managedFields` not), for output.
    pub fn object(&self) -> Value {
        let mut object = self.raw();
        if let Some(rjobs) = object["spec"]["replicatedJobs"].as_array_mut() {
            for (raw, typed) in rjobs.iter_mut().zip(&self.spec.replicated_jobs) {
                raw["template"] = typed.template.value();
            }
        }
        object
    }

    /// The object as the API server returned it, without `managedFields` and without the
    /// replicatedJobs' templates (`object()` has them): parsed anew from compact text.
    pub fn raw(&self) -> Value {
        self.raw.value()
    }

    /// Edits the whole object (`object()`) and reads the JobSet from it again (tests
    /// build JobSets the server would not send).
    #[cfg(test)]
    pub(crate) fn edit_raw(&mut self, edit: impl FnOnce(&mut Value)) {
        let mut object = self.object();
        edit(&mut object);
        *self = JobSet::from_raw(object).expect("a JobSet");
    }

    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or_default()
    }

    pub fn uid(&self) -> &str {
        self.metadata.uid.as_deref().unwrap_or_default()
    }

    /// The current restart attempt (`status.restarts`).
    pub fn attempt(&self) -> i32 {
        self.status.restarts
    }

    pub fn condition_true(&self, type_: &str) -> bool {
        self.status.conditions.iter().any(|c| c.type_ == type_ && c.status == "True")
    }

    /// Finished as `state` (`Completed` or `Failed`): by its condition or by
    /// `status.terminalState`, whichever says so.
    pub fn finished_as(&self, state: &str) -> bool {
        self.condition_true(state) || self.status.terminal_state.as_deref() == Some(state)
    }

    pub fn is_suspended(&self) -> bool {
        self.spec.suspend.unwrap_or(false)
    }

    /// The controller named by `spec.managedBy` when it is not the JobSet controller: the
    /// JobSet controller then returns at once from its reconcile and never creates,
    /// restarts or resumes its Jobs (MultiKueue's manager cluster, for one).
    pub fn managed_elsewhere(&self) -> Option<&str> {
        self.spec.managed_by.as_deref().filter(|m| *m != JOBSET_CONTROLLER)
    }
}

/// How every command names a JobSet that another controller manages.
pub fn managed_elsewhere_words(manager: &str) -> String {
    format!("managed by {manager:?} (spec.managedBy): the JobSet controller does not reconcile it")
}

impl JobSet {
    /// The name the controller gives Job `index` of a replicatedJob, in every attempt.
    pub fn job_name(&self, replicated_job: &str, index: i32) -> String {
        format!("{}-{replicated_job}-{index}", self.name())
    }

    /// The Job names the spec asks for, in spec order.
    pub fn expected_job_names(&self) -> Vec<String> {
        self.spec
            .replicated_jobs
            .iter()
            .flat_map(|r| (0..r.replicas.max(0)).map(|i| self.job_name(&r.name, i)))
            .collect()
    }

    /// Number of child Jobs the spec asks for.
    pub fn expected_jobs(&self) -> usize {
        self.spec.replicated_jobs.iter().map(|r| r.replicas.max(0) as usize).sum()
    }
}

/// A child Job, reduced as it is parsed to what commands use (no `managedFields`, often
/// the largest part of a Job): its metadata, its template, its scale and its status.
/// This is the `batch/v1` Job resource as kubectl-jobset reads it, through `Api<ChildJob>`.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "RawJob")]
pub struct ChildJob {
    pub metadata: ObjectMeta,
    /// `{metadata: {labels, annotations}, spec}` of the Job as served; in a loaded fleet,
    /// the diff engine's normal form as compact JSON, shared between Jobs with equal ones
    /// (a Job that runs its JobSet's template holds that form).
    pub template: Arc<HeldJson>,
    pub parallelism: Option<i64>,
    pub completions: Option<i64>,
    /// `spec.suspend`: a queued JobSet's Jobs exist, suspended (the template's normal form
    /// drops it, since the controller sets it from the JobSet).
    pub suspended: bool,
    pub status: Option<JobStatus>,
}

#[derive(Deserialize)]
struct RawJob {
    #[serde(default)]
    metadata: LeanMeta,
    #[serde(default)]
    spec: Value,
    #[serde(default)]
    status: Option<JobStatus>,
}

impl From<RawJob> for ChildJob {
    fn from(raw: RawJob) -> Self {
        let mut metadata = ObjectMeta::from(raw.metadata);
        let scale = |key: &str| raw.spec.get(key).and_then(Value::as_i64);
        let (parallelism, completions) = (scale("parallelism"), scale("completions"));
        let suspended = raw.spec.get("suspend").and_then(Value::as_bool).unwrap_or(false);
        // The annotations are read only as part of the template: held there alone.
        // Built by moving the parts in: `json!` would serialize a copy of each.
        let labels = serde_json::to_value(&metadata.labels).unwrap_or_default();
        let annotations = serde_json::to_value(metadata.annotations.take()).unwrap_or_default();
        // Of the labels, a Job keeps the ones read (the template has them all): the JobSet
        // controller's thirteen and the Job controller's four fill three BTreeMap nodes,
        // eight fit in one. Collected afresh: `retain` would keep the nodes.
        metadata.labels = metadata
            .labels
            .map(|all| all.into_iter().filter(|(key, _)| labels::READ.contains(&key.as_str())).collect());
        // A Vec parsed from JSON has room for four; a Job has one owner.
        if let Some(owners) = &mut metadata.owner_references {
            owners.shrink_to_fit();
        }
        let template_metadata =
            serde_json::Map::from_iter([("labels".into(), labels), ("annotations".into(), annotations)]);
        let template = Value::Object(serde_json::Map::from_iter([
            ("metadata".into(), Value::Object(template_metadata)),
            ("spec".into(), raw.spec),
        ]));
        ChildJob {
            metadata,
            template: Arc::new(HeldJson::Parsed(template)),
            parallelism,
            completions,
            suspended,
            status: raw.status,
        }
    }
}

impl k8s_openapi::Resource for ChildJob {
    const API_VERSION: &'static str = "batch/v1";
    const GROUP: &'static str = "batch";
    const KIND: &'static str = "Job";
    const VERSION: &'static str = "v1";
    const URL_PATH_SEGMENT: &'static str = "jobs";
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::Metadata for ChildJob {
    type Ty = ObjectMeta;
    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// The parts of a Job's metadata kubectl-jobset reads; everything else is skipped while
/// parsing, which keeps memory proportional to what is used on large fleets.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LeanMeta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    uid: Option<String>,
    /// Watches resume from it.
    #[serde(default)]
    resource_version: Option<String>,
    #[serde(default)]
    labels: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    annotations: Option<std::collections::BTreeMap<String, String>>,
    #[serde(default)]
    owner_references: Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>>,
    #[serde(default)]
    deletion_timestamp: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
    #[serde(default)]
    creation_timestamp: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
}

impl From<LeanMeta> for ObjectMeta {
    fn from(lean: LeanMeta) -> Self {
        ObjectMeta {
            name: lean.name,
            namespace: lean.namespace,
            uid: lean.uid,
            resource_version: lean.resource_version,
            labels: lean.labels,
            annotations: lean.annotations,
            owner_references: lean.owner_references,
            deletion_timestamp: lean.deletion_timestamp,
            creation_timestamp: lean.creation_timestamp,
            ..Default::default()
        }
    }
}

/// Where a Job stands, as the JobSet controller sorts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    Active,
    Succeeded,
    Failed,
}

impl ChildJob {
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        debug_assert!(labels::READ.contains(&key), "{key} is not kept on a Job: add it to labels::READ");
        self.metadata.labels.as_ref()?.get(key).map(String::as_str)
    }

    /// The restart attempt this Job was created for, if its label is a valid integer.
    pub fn attempt(&self) -> Option<i32> {
        self.label(labels::RESTART_ATTEMPT)?.parse().ok()
    }

    /// True when the JobSet with this UID controls the Job (as the controller finds them).
    pub fn is_owned_by(&self, uid: &str) -> bool {
        self.metadata
            .owner_references
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|r| r.uid == uid && r.controller == Some(true))
    }

    pub fn is_deleting(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
    }

    fn condition_true(&self, type_: &str) -> bool {
        self.status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.type_ == type_ && c.status == "True"))
    }

    pub fn state(&self) -> JobState {
        if self.condition_true("Failed") {
            JobState::Failed
        } else if self.condition_true("Complete") {
            JobState::Succeeded
        } else {
            JobState::Active
        }
    }

    /// Ready as the JobSet controller counts it: enough ready or succeeded pods to
    /// cover min(parallelism, completions).
    pub fn is_ready(&self) -> bool {
        let parallelism = self.parallelism.unwrap_or(1);
        let completions = self.completions.unwrap_or(parallelism);
        let needed = parallelism.min(completions);
        let status = self.status.clone().unwrap_or_default();
        let have = i64::from(status.ready.unwrap_or(0)) + i64::from(status.succeeded.unwrap_or(0));
        needed > 0 && have >= needed
    }
}

/// Container images of a pod-bearing Job template (init containers first), in order.
pub fn template_images(job_template: &Value) -> Vec<String> {
    let pod_spec = &job_template["spec"]["template"]["spec"];
    ["initContainers", "containers"]
        .iter()
        .filter_map(|key| pod_spec[*key].as_array())
        .flatten()
        .filter_map(|c| c["image"].as_str().map(str::to_owned))
        .collect()
}

/// Container names of a pod-bearing Job template (init containers first), in order.
pub fn template_container_names(job_template: &Value) -> Vec<String> {
    let pod_spec = &job_template["spec"]["template"]["spec"];
    ["initContainers", "containers"]
        .iter()
        .filter_map(|key| pod_spec[*key].as_array())
        .flatten()
        .filter_map(|c| c["name"].as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn raw_is_kept_and_view_is_read() {
        let raw = json!({
            "apiVersion": API_VERSION, "kind": KIND,
            "metadata": {"name": "js", "namespace": "ml", "uid": "u1"},
            "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {}}}], "futureField": {"x": 1}},
            "status": {"restarts": 2, "conditions": [{"type": "Completed", "status": "True"}]}
        });
        let js = JobSet::from_raw(raw.clone()).unwrap();
        assert_eq!(js.name(), "js");
        assert_eq!(js.spec.replicated_jobs[0].replicas, 1, "CRD default");
        assert_eq!(js.attempt(), 2);
        assert!(js.condition_true("Completed"));
        assert_eq!(js.raw()["spec"]["futureField"], json!({"x": 1}));
        assert_eq!(js.spec.replicated_jobs[0].template, json!({"spec": {}}));
        assert_eq!(js.object()["spec"], raw["spec"], "the whole object, losslessly");
    }

    #[test]
    fn a_listed_jobset_reads_as_from_raw_does_with_its_managed_fields_skipped() {
        let listed = json!({
            "apiVersion": API_VERSION, "kind": KIND,
            "metadata": {"name": "js", "namespace": "ml", "uid": "u1", "labels": {"a": "b"},
                "managedFields": [{"manager": "kubectl-create", "operation": "Update",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicatedJobs": {}}}}],
                "annotations": {"managedFields": "an annotation of that name stays"}},
            "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"parallelism": 2}}}],
                "managedFields": "kept: only metadata's are skipped", "n": [1, -2, 2.5, null, true]},
            "status": {"restarts": 1}
        });
        let streamed: JobSet = serde_json::from_str(&listed.to_string()).unwrap();
        let whole = JobSet::from_raw(listed.clone()).unwrap();
        assert_eq!(streamed.raw(), whole.raw());
        assert_eq!(streamed.object(), whole.object());
        assert_eq!(streamed.metadata, whole.metadata);
        assert!(streamed.raw()["metadata"].get("managedFields").is_none());
        assert_eq!(
            streamed.raw()["metadata"]["annotations"]["managedFields"],
            "an annotation of that name stays"
        );
        assert_eq!(streamed.object()["spec"]["managedFields"], "kept: only metadata's are skipped");
        assert_eq!(streamed.object()["spec"]["n"], json!([1, -2, 2.5, null, true]));
        assert_eq!(streamed.attempt(), 1);
        // Not an object: refused as before, not read as an empty JobSet.
        assert!(serde_json::from_str::<JobSet>("[1]").is_err());
        assert!(serde_json::from_str::<JobSet>(r#"{"metadata": 3}"#).is_err());
        assert!(JobSet::from_raw(json!([1])).is_err() && JobSet::from_raw(json!({"metadata": 3})).is_err());
    }

    #[test]
    fn images_in_pod_order() {
        let t = json!({"spec": {"template": {"spec": {
            "initContainers": [{"name": "i", "image": "busybox"}],
            "containers": [{"name": "a", "image": "app:v1"}, {"name": "b", "image": "side:v2"}]}}}});
        assert_eq!(template_images(&t), ["busybox", "app:v1", "side:v2"]);
    }

    #[test]
    fn job_readiness_follows_the_controller() {
        let job = |spec: Value, status: Value| -> ChildJob {
            serde_json::from_value(json!({"metadata": {"name": "j"}, "spec": spec, "status": status}))
                .unwrap()
        };
        assert!(job(json!({"parallelism": 2, "completions": 2}), json!({"ready": 2})).is_ready());
        assert!(!job(json!({"parallelism": 2, "completions": 2}), json!({"ready": 1})).is_ready());
        assert!(job(json!({"parallelism": 4, "completions": 1}), json!({"succeeded": 1})).is_ready());
        assert!(!job(json!({}), json!({})).is_ready());
    }

    #[test]
    fn a_job_keeps_the_labels_read_and_its_template_keeps_them_all() {
        let mut all: serde_json::Map<String, Value> =
            labels::READ.iter().map(|key| (key.to_string(), json!("1"))).collect();
        for other in ["jobset.sigs.k8s.io/job-key", "batch.kubernetes.io/job-name", "controller-uid"] {
            all.insert(other.into(), json!("x"));
        }
        let job: ChildJob = serde_json::from_value(json!({
            "metadata": {"name": "j", "labels": all, "ownerReferences": [
                {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "uid": "u", "controller": true}]},
            "spec": {"template": {"spec": {"containers": []}}}
        }))
        .unwrap();
        let kept: Vec<&str> = job.metadata.labels.as_ref().unwrap().keys().map(String::as_str).collect();
        let mut read = labels::READ.to_vec();
        read.sort();
        assert_eq!(kept, read);
        for key in labels::READ {
            assert_eq!(job.label(key), Some("1"), "{key}");
        }
        // The template, which the comparison reads, has every label.
        assert_eq!(job.template.value()["metadata"]["labels"], Value::Object(all));
        let owners = job.metadata.owner_references.as_ref().unwrap();
        assert_eq!((owners.len(), owners.capacity()), (1, 1));
    }
}
