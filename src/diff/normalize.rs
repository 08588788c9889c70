//! Normalisation: both sides of a comparison (the server-defaulted probe Job and each
//! live Job) go through the same pipeline, which keeps only what the JobSet template
//! controls and drops what the controllers and the API server add.

use serde_json::{Map, Value, json};

use super::expected::{COORDINATOR_KEY, NAMESPACED_JOB_KEY, NAMESPACED_JOB_VALUE};
use crate::model::compact::{Compact, HeldJson};
use crate::model::jobset::ChildJob;

/// Labels and annotations the JobSet controller writes on Jobs and pod templates, derived
/// from each Job's identity and state. Those derived from what the user sets on the JobSet
/// (coordinator, exclusive placement) are kept: `expected` adds them to the expected Job.
const JOBSET_KEYS: &[&str] = &[
    "jobset.sigs.k8s.io/jobset-name",
    "jobset.sigs.k8s.io/jobset-uid",
    "jobset.sigs.k8s.io/replicatedjob-name",
    "jobset.sigs.k8s.io/restart-attempt",
    "jobset.sigs.k8s.io/job-restart-attempt",
    "jobset.sigs.k8s.io/replicatedjob-replicas",
    "jobset.sigs.k8s.io/global-replicas",
    "jobset.sigs.k8s.io/job-index",
    "jobset.sigs.k8s.io/job-key",
    "jobset.sigs.k8s.io/job-global-index",
    "jobset.sigs.k8s.io/group-name",
    "jobset.sigs.k8s.io/group-replicas",
    "jobset.sigs.k8s.io/job-group-index",
    "jobset.sigs.k8s.io/priority",
];

/// Labels the Job controller (API server defaulting) derives from the Job's name and UID.
const JOB_CONTROLLER_KEYS: &[&str] =
    &["batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name", "controller-uid", "job-name"];

/// What of a Job is compared: the template part, and the scale part reported apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    /// `{metadata: {labels, annotations}, spec: {...}}` without scale, selector, suspend.
    pub template: Value,
    pub parallelism: Option<i64>,
    pub completions: Option<i64>,
}

/// The Job the controller would build, as a comparison takes it: its template in normal
/// form, held as a live Job holds its own (a fleet read gives the Jobs that run their
/// JobSet's form this very value), and its scale.
#[derive(Debug, Clone)]
pub struct Expected {
    pub template: std::sync::Arc<HeldJson>,
    pub parallelism: Option<i64>,
    pub completions: Option<i64>,
}

impl Expected {
    /// Whether a live Job's template is this one: the same held value, else an equal one
    /// (compact text is compared as text before it is parsed).
    pub fn is_run_by(&self, template: &std::sync::Arc<HeldJson>) -> bool {
        std::sync::Arc::ptr_eq(template, &self.template) || **template == *self.template
    }
}

impl From<Normalized> for Expected {
    fn from(normalized: Normalized) -> Self {
        Expected {
            template: std::sync::Arc::new(HeldJson::Compact(Compact::of(&normalized.template))),
            parallelism: normalized.parallelism,
            completions: normalized.completions,
        }
    }
}

/// Normalises a full Job object (a live Job, or the server's answer to a dry run).
pub fn normalize(job: &Value) -> Normalized {
    // Only what is compared is copied: the labels, the annotations and the spec.
    let metadata: Map<String, Value> = ["labels", "annotations"]
        .into_iter()
        .filter_map(|key| Some((key.to_owned(), job.get("metadata")?.get(key)?.clone())))
        .collect();
    let mut parts = Map::from_iter([("metadata".to_owned(), Value::Object(metadata))]);
    parts.extend(job.get("spec").map(|spec| ("spec".to_owned(), spec.clone())));
    normalize_owned(Value::Object(parts))
}

/// `normalize`, taking the Job apart instead of copying it (a fleet read normalises
/// every Job it lists).
pub fn normalize_owned(mut job: Value) -> Normalized {
    let mut metadata = Map::new();
    for key in ["labels", "annotations"] {
        if let Some(map) = job.get_mut("metadata").and_then(|m| m.get_mut(key)) {
            metadata.insert(key.into(), strip_keys(map.take()));
        }
    }
    let mut spec = match job.get_mut("spec") {
        Some(spec) => spec.take(),
        None => json!({}),
    };
    let mut parallelism = None;
    let mut completions = None;
    if let Some(spec) = spec.as_object_mut() {
        parallelism = spec.remove("parallelism").and_then(|v| v.as_i64());
        completions = spec.remove("completions").and_then(|v| v.as_i64());
        // Generated from the name/UID, or state rather than template.
        for key in ["selector", "manualSelector", "suspend"] {
            spec.remove(key);
        }
        if let Some(template) = spec.get_mut("template").and_then(Value::as_object_mut) {
            normalize_pod_template(template);
        }
    }
    // Moved in (`json!` would serialize a copy of each).
    let mut template =
        Value::Object(Map::from_iter([("metadata".into(), Value::Object(metadata)), ("spec".into(), spec)]));
    prune_empty(&mut template);
    Normalized { template, parallelism, completions }
}

/// A live Job's template in normal form, taken out of its `Arc` when no other Job holds
/// it (as in a page just parsed), else copied.
pub fn normalize_template(template: &mut std::sync::Arc<HeldJson>) -> Value {
    let owned = std::sync::Arc::make_mut(template).take();
    normalize_owned(owned).template
}

/// A live Job with its template in normal form (see `normalize`).
pub fn normalize_child(mut job: ChildJob) -> ChildJob {
    job.template = std::sync::Arc::new(HeldJson::Parsed(normalize_template(&mut job.template)));
    job
}

/// A Job template rebuilt from a live Job (for history, when the template it runs was
/// never recorded): what `normalize` keeps, plus parallelism and completions, without
/// what the controller derives from the JobSet (the coordinator's endpoint, the
/// node-selector strategy's per-Job selector), which the template must not carry.
pub fn rebuild_template(job: &ChildJob) -> Value {
    let mut template = job.template.value().into_owned();
    for path in ["/metadata", "/spec/template/metadata"] {
        for key in ["labels", "annotations"] {
            if let Some(Value::Object(map)) = template.pointer_mut(path).and_then(|m| m.get_mut(key)) {
                map.remove(COORDINATOR_KEY);
            }
        }
    }
    if let Some(Value::Object(selector)) = template["spec"]["template"]["spec"].get_mut("nodeSelector") {
        selector.remove(NAMESPACED_JOB_KEY);
    }
    prune_empty(&mut template);
    for (key, value) in [("parallelism", job.parallelism), ("completions", job.completions)] {
        if let Some(v) = value {
            template["spec"][key] = json!(v);
        }
    }
    template
}

fn normalize_pod_template(template: &mut Map<String, Value>) {
    let mut metadata = Map::new();
    if let Some(old) = template.get_mut("metadata") {
        for key in ["labels", "annotations"] {
            if let Some(map) = old.get_mut(key) {
                metadata.insert(key.into(), strip_keys(map.take()));
            }
        }
    }
    template.insert("metadata".into(), Value::Object(metadata));
    let Some(pod) = template.get_mut("spec").and_then(Value::as_object_mut) else { return };
    // The node-selector strategy selects the Job's own name: the same for every Job here.
    if let Some(value) = pod.get_mut("nodeSelector").and_then(|s| s.get_mut(NAMESPACED_JOB_KEY)) {
        *value = json!(NAMESPACED_JOB_VALUE);
    }
    // The controller merges these as unordered sets when it resumes Jobs: compare as sets.
    for key in ["tolerations", "schedulingGates"] {
        if let Some(Value::Array(items)) = pod.get_mut(key) {
            items.sort_by_key(|v| v.to_string());
            items.dedup();
        }
    }
}

fn strip_keys(map: Value) -> Value {
    let Value::Object(mut map) = map else { return Value::Null };
    map.retain(|k, _| !JOBSET_KEYS.contains(&k.as_str()) && !JOB_CONTROLLER_KEYS.contains(&k.as_str()));
    Value::Object(map)
}

/// Drops nulls, empty objects and empty arrays, recursively: `resources: {}` and an
/// absent `resources` mean the same to the API server.
pub fn prune_empty(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for v in map.values_mut() {
                prune_empty(v);
            }
            map.retain(|_, v| !is_empty(v));
        }
        Value::Array(items) => {
            for v in items.iter_mut() {
                prune_empty(v);
            }
        }
        _ => {}
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// Fills in, on a probe Job, the defaults the API server would apply. Used only when
/// the user may not dry-run create Jobs; the server's own defaulting is preferred.
pub fn apply_client_defaults(job: &mut Value) {
    let spec = &mut job["spec"];
    if spec["parallelism"].is_null() && spec["completions"].is_null() {
        spec["completions"] = json!(1);
    }
    default(spec, "parallelism", json!(1));
    default(spec, "completionMode", json!("NonIndexed"));
    let per_index = !spec["backoffLimitPerIndex"].is_null();
    default(spec, "backoffLimit", json!(if per_index { 2147483647 } else { 6 }));
    let replacement = if spec["podFailurePolicy"].is_null() { "TerminatingOrFailed" } else { "Failed" };
    default(spec, "podReplacementPolicy", json!(replacement));
    let pod = &mut spec["template"]["spec"];
    default(pod, "restartPolicy", json!("Always"));
    default(pod, "dnsPolicy", json!("ClusterFirst"));
    default(pod, "schedulerName", json!("default-scheduler"));
    default(pod, "terminationGracePeriodSeconds", json!(30));
    for key in ["containers", "initContainers"] {
        if let Some(Value::Array(containers)) = pod.get_mut(key) {
            containers.iter_mut().for_each(container_defaults);
        }
    }
    if let Some(Value::Array(volumes)) = pod.get_mut("volumes") {
        for volume in volumes {
            for source in ["configMap", "secret", "downwardAPI", "projected"] {
                if let Some(src) = volume.get_mut(source).filter(|s| s.is_object()) {
                    default(src, "defaultMode", json!(420));
                    if let Some(Value::Array(items)) = src.get_mut("items") {
                        items.iter_mut().for_each(field_ref_defaults);
                    }
                }
            }
            if let Some(Value::Array(sources)) = volume["projected"].get_mut("sources") {
                for source in sources {
                    if let Some(Value::Array(items)) = source["downwardAPI"].get_mut("items") {
                        items.iter_mut().for_each(field_ref_defaults);
                    }
                    if let Some(token) = source.get_mut("serviceAccountToken").filter(|t| t.is_object()) {
                        default(token, "expirationSeconds", json!(3600));
                    }
                }
            }
        }
    }
}

fn container_defaults(c: &mut Value) {
    let policy = image_pull_policy(c["image"].as_str().unwrap_or_default());
    default(c, "imagePullPolicy", json!(policy));
    default(c, "terminationMessagePath", json!("/dev/termination-log"));
    default(c, "terminationMessagePolicy", json!("File"));
    if let Some(Value::Array(ports)) = c.get_mut("ports") {
        ports.iter_mut().for_each(|p| default(p, "protocol", json!("TCP")));
    }
    if let Some(Value::Array(env)) = c.get_mut("env") {
        env.iter_mut().for_each(|e| field_ref_defaults(&mut e["valueFrom"]));
    }
    for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
        if let Some(p) = c.get_mut(probe).filter(|p| p.is_object()) {
            default(p, "timeoutSeconds", json!(1));
            default(p, "periodSeconds", json!(10));
            default(p, "successThreshold", json!(1));
            default(p, "failureThreshold", json!(3));
            if let Some(http) = p.get_mut("httpGet").filter(|h| h.is_object()) {
                default(http, "scheme", json!("HTTP"));
            }
        }
    }
}

fn field_ref_defaults(v: &mut Value) {
    if let Some(field_ref) = v.get_mut("fieldRef").filter(|f| f.is_object()) {
        default(field_ref, "apiVersion", json!("v1"));
    }
}

/// The API server's rule: `:latest` or no tag pulls Always, anything else IfNotPresent.
pub fn image_pull_policy(image: &str) -> &'static str {
    if image.contains('@') {
        return "IfNotPresent";
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.split_once(':') {
        Some((_, "latest")) | None => "Always",
        Some(_) => "IfNotPresent",
    }
}

fn default(target: &mut Value, key: &str, value: Value) {
    if target.is_null() {
        *target = json!({});
    }
    if let Some(map) = target.as_object_mut() {
        map.entry(key).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_keys_scale_and_selector_are_dropped() {
        let live = json!({
            "metadata": {"name": "js-w-0", "uid": "x", "labels": {"team": "ml", "jobset.sigs.k8s.io/restart-attempt": "2"},
                "annotations": {"jobset.sigs.k8s.io/job-key": "abc"}},
            "spec": {"parallelism": 4, "completions": 4, "suspend": false, "selector": {"matchLabels": {"a": "b"}},
                "backoffLimit": 6,
                "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "x", "job-name": "js-w-0",
                    "batch.kubernetes.io/controller-uid": "u", "jobset.sigs.k8s.io/jobset-name": "js"}},
                "spec": {"containers": [{"name": "c", "image": "a", "resources": {}}],
                    "nodeSelector": {"alpha.jobset.sigs.k8s.io/namespaced-job": "ml_js-w-0"},
                    "tolerations": [{"key": "b"}, {"key": "alpha.jobset.sigs.k8s.io/no-schedule", "operator": "Exists"}, {"key": "a"}]}}},
            "status": {"active": 1}
        });
        let n = normalize(&live);
        assert_eq!((n.parallelism, n.completions), (Some(4), Some(4)));
        assert_eq!(
            n.template,
            json!({"metadata": {"labels": {"team": "ml"}}, "spec": {"backoffLimit": 6, "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "image": "a"}],
                    "nodeSelector": {"alpha.jobset.sigs.k8s.io/namespaced-job": "<namespace>_<job>"},
                    "tolerations": [{"key": "a"}, {"key": "alpha.jobset.sigs.k8s.io/no-schedule", "operator": "Exists"}, {"key": "b"}]}}}})
        );
    }

    #[test]
    fn rebuilt_templates_leave_out_what_the_controller_derives_from_the_jobset() {
        let live = json!({"metadata": {"name": "js-w-0", "labels": {"jobset.sigs.k8s.io/coordinator": "js-w-0-0.js", "team": "ml"}},
            "spec": {"parallelism": 2, "template": {"metadata": {"annotations": {"jobset.sigs.k8s.io/coordinator": "js-w-0-0.js"}},
                "spec": {"containers": [{"name": "c", "image": "a"}],
                    "nodeSelector": {"alpha.jobset.sigs.k8s.io/namespaced-job": "ml_js-w-0"}}}}});
        let job = normalize_child(serde_json::from_value(live).unwrap());
        assert_eq!(
            rebuild_template(&job),
            json!({"metadata": {"labels": {"team": "ml"}}, "spec": {"parallelism": 2, "template": {
                "spec": {"containers": [{"name": "c", "image": "a"}]}}}})
        );
    }

    #[test]
    fn tolerations_and_scheduling_gates_compare_as_sets() {
        let a = json!({"spec": {"template": {"spec": {"tolerations": [{"key": "x"}, {"key": "y"}], "schedulingGates": [{"name": "g1"}, {"name": "g2"}]}}}});
        let b = json!({"spec": {"template": {"spec": {"tolerations": [{"key": "y"}, {"key": "x"}, {"key": "x"}], "schedulingGates": [{"name": "g2"}, {"name": "g1"}]}}}});
        assert_eq!(normalize(&a), normalize(&b));
    }

    #[test]
    fn pull_policy_depends_on_the_tag() {
        assert_eq!(image_pull_policy("busybox"), "Always");
        assert_eq!(image_pull_policy("busybox:latest"), "Always");
        assert_eq!(image_pull_policy("busybox:1.36"), "IfNotPresent");
        assert_eq!(image_pull_policy("registry:5000/app"), "Always");
        assert_eq!(image_pull_policy("registry:5000/app:v1"), "IfNotPresent");
        assert_eq!(image_pull_policy("app@sha256:abc"), "IfNotPresent");
    }

    #[test]
    fn client_defaults_match_what_the_server_adds() {
        let mut probe = json!({"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{
            "name": "c", "image": "app:v1",
            "resources": {"limits": {"cpu": "1"}},
            "ports": [{"containerPort": 80}],
            "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
            "readinessProbe": {"httpGet": {"port": 80}}}],
            "volumes": [{"name": "cfg", "configMap": {"name": "cfg"}}]}}}});
        apply_client_defaults(&mut probe);
        let c = &probe["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(c["imagePullPolicy"], "IfNotPresent");
        assert!(c["resources"].get("requests").is_none(), "pod templates get no requests from limits");
        assert_eq!(c["ports"][0]["protocol"], "TCP");
        assert_eq!(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(c["readinessProbe"]["httpGet"]["scheme"], "HTTP");
        assert_eq!(c["readinessProbe"]["periodSeconds"], 10);
        assert_eq!(probe["spec"]["template"]["spec"]["volumes"][0]["configMap"]["defaultMode"], 420);
        assert_eq!(probe["spec"]["template"]["spec"]["restartPolicy"], "OnFailure", "set values are kept");
        assert_eq!(probe["spec"]["backoffLimit"], 6);
        assert_eq!(probe["spec"]["completions"], 1);
    }
}
