//! Kueue, as kubectl-jobset sees it (pure): which JobSets Kueue queues, whether one is
//! queued or admitted, its Workload reduced to what the commands say, and whether the
//! quota Kueue reserved matches what the Pods request.
//!
//! What Kueue does with JobSets (jobset-controller.md §9, tests/kueue): a JobSet in a
//! queue is created suspended and gets a Workload it owns; admission resumes the Jobs
//! that already exist. A container change (image, env, requests) of an *admitted*
//! JobSet makes Kueue stop it at once: it is suspended (its Pods are deleted), its pod
//! templates' scheduling fields are restored from the Workload, the Workload is
//! replaced, and re-admission resumes the same Jobs on their old template.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jobset::{ChildJob, JobSet};

/// The label that puts a JobSet in a Kueue LocalQueue.
pub const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";
pub const GROUP: &str = "kueue.x-k8s.io";
pub const WORKLOADS_RESOURCE: &str = "workloads.kueue.x-k8s.io";
pub const LOCAL_QUEUES_RESOURCE: &str = "localqueues.kueue.x-k8s.io";
pub const CLUSTER_QUEUES_RESOURCE: &str = "clusterqueues.kueue.x-k8s.io";

/// A Kueue Workload, reduced as its list page arrives to what the commands say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    pub name: String,
    #[serde(skip, default)]
    pub namespace: String,
    /// UID of the object that controls it (the JobSet).
    #[serde(skip, default)]
    pub owner_uid: Option<String>,
    /// `status.admission.clusterQueue`, once quota is reserved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_queue: Option<String>,
    /// The `Admitted` condition is true.
    pub admitted: bool,
    /// Why it waits: the `QuotaReserved=False` (or `Evicted=True`) message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
    #[serde(skip, default)]
    pub deleting: bool,
    /// Per pod set (a replicatedJob): the requests Kueue counts for each container.
    #[serde(skip, default)]
    pub pod_sets: Vec<PodSetRequests>,
}

/// What Kueue reserves quota for, per Pod of one pod set.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
pub struct PodSetRequests {
    pub name: String,
    /// `(container, requests)`, requests by resource name.
    pub containers: Vec<(String, BTreeMap<String, String>)>,
}

impl Workload {
    /// Reads a Workload object (any served version of kueue.x-k8s.io: the fields used
    /// are the same in v1beta1 and v1beta2).
    pub fn from_object(object: &Value) -> Workload {
        let meta = &object["metadata"];
        let text = |v: &Value| v.as_str().map(str::to_owned);
        let conditions = object["status"]["conditions"].as_array().cloned().unwrap_or_default();
        let condition = |type_: &str, status: &str| {
            conditions
                .iter()
                .find(|c| c["type"] == type_ && c["status"] == status)
                .map(|c| text(&c["message"]))
        };
        let owner_uid = meta["ownerReferences"]
            .as_array()
            .and_then(|refs| refs.iter().find(|r| r["controller"] == true))
            .and_then(|r| text(&r["uid"]));
        let pod_sets = object["spec"]["podSets"]
            .as_array()
            .map(|sets| {
                sets.iter()
                    .map(|set| PodSetRequests {
                        name: text(&set["name"]).unwrap_or_default(),
                        containers: container_requests(&set["template"]["spec"]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let evicted = condition("Evicted", "True").flatten();
        Workload {
            name: text(&meta["name"]).unwrap_or_default(),
            namespace: text(&meta["namespace"]).unwrap_or_default(),
            owner_uid,
            cluster_queue: text(&object["status"]["admission"]["clusterQueue"]),
            admitted: condition("Admitted", "True").is_some(),
            waiting: evicted.or_else(|| condition("QuotaReserved", "False").flatten()),
            deleting: !meta["deletionTimestamp"].is_null(),
            pod_sets,
        }
    }
}

/// `(container, requests)` of a pod spec, in order.
fn container_requests(pod_spec: &Value) -> Vec<(String, BTreeMap<String, String>)> {
    pod_spec["containers"]
        .as_array()
        .map(|containers| {
            containers
                .iter()
                .map(|c| {
                    let requests = c["resources"]["requests"]
                        .as_object()
                        .map(|r| {
                            r.iter()
                                .map(|(k, v)| {
                                    let value =
                                        v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
                                    (k.clone(), value)
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    (c["name"].as_str().unwrap_or_default().to_owned(), requests)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether Kueue may be queueing `jobset`, from the JobSet alone: its queue label, or
/// suspended (a namespace may queue unlabelled JobSets), or pod templates that carry
/// the labels Kueue writes into them at admission. Only then are Workloads read.
pub fn may_be_queued(jobset: &JobSet) -> bool {
    let labelled = |labels: Option<&std::collections::BTreeMap<String, String>>| {
        labels.is_some_and(|l| l.keys().any(|k| k.starts_with("kueue.x-k8s.io/")))
    };
    labelled(jobset.metadata.labels.as_ref())
        || jobset.is_suspended()
        || jobset.spec.replicated_jobs.iter().any(|rjob| {
            // Every fleet read asks, for every JobSet: a template whose compact text names
            // no such key is not parsed.
            rjob.template.text().contains("\"kueue.x-k8s.io/")
                && rjob.template.value()["spec"]["template"]["metadata"]["labels"]
                    .as_object()
                    .is_some_and(|l| l.keys().any(|k| k.starts_with("kueue.x-k8s.io/")))
        })
}

/// Whether Kueue holds a JobSet back or lets it run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standing {
    /// Suspended, waiting for quota: nothing runs.
    Queued,
    /// Admitted: quota is reserved and its Jobs run.
    Admitted,
}

/// A JobSet under Kueue: its queue, standing and Workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Kueue {
    /// The LocalQueue (the queue-name label), if labelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    pub standing: Standing,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
}

impl Kueue {
    /// Kueue's view of `jobset`: None when it has no queue label and owns no Workload
    /// (`workloads` are those listed; the live one it controls is picked).
    pub fn of(jobset: &JobSet, workloads: &[Workload]) -> Option<Kueue> {
        let queue = jobset.metadata.labels.as_ref().and_then(|l| l.get(QUEUE_LABEL)).cloned();
        let workload = workloads
            .iter()
            .filter(|w| w.namespace == jobset.namespace() && w.owner_uid.as_deref() == Some(jobset.uid()))
            .min_by_key(|w| w.deleting)
            .cloned();
        if queue.is_none() && workload.is_none() {
            return None;
        }
        let standing = if jobset.is_suspended() { Standing::Queued } else { Standing::Admitted };
        Some(Kueue { queue, standing, workload })
    }

    pub fn is_admitted(&self) -> bool {
        self.standing == Standing::Admitted
    }

    /// `queued by Kueue in queue lq (workload w: <why it waits>)` or
    /// `admitted by Kueue to cluster-queue (workload w)`.
    pub fn words(&self) -> String {
        let queue = self.queue.as_deref().map(|q| format!(" in queue {q}")).unwrap_or_default();
        let workload = self.workload.as_ref();
        match self.standing {
            Standing::Queued => {
                let why =
                    workload.and_then(|w| w.waiting.as_deref()).map(|m| format!(": {m}")).unwrap_or_default();
                let detail = workload.map(|w| format!(" (workload {}{why})", w.name)).unwrap_or_default();
                format!("queued by Kueue{queue}{detail}")
            }
            Standing::Admitted => {
                let to = workload
                    .and_then(|w| w.cluster_queue.as_deref())
                    .map(|cq| format!(" to {cq}"))
                    .unwrap_or_else(|| queue.clone());
                let detail = workload.map(|w| format!(" (workload {})", w.name)).unwrap_or_default();
                format!("admitted by Kueue{to}{detail}")
            }
        }
    }

    /// The short form for a table cell: `lq/<workload>` or `<none>`.
    pub fn cell(&self) -> String {
        let queue = self.queue.as_deref().unwrap_or("<none>");
        match &self.workload {
            Some(w) => format!("{queue}/{}", w.name),
            None => queue.to_owned(),
        }
    }

    /// Why changing the containers of an admitted JobSet in place is refused, in plain
    /// words: what Kueue would do, and the ways that do work.
    pub fn admitted_change_refusal(&self, jobset: &JobSet, command: &str) -> String {
        let workload = self.workload.as_ref().map(|w| format!(" (workload {})", w.name)).unwrap_or_default();
        format!(
            "it is admitted by Kueue{workload} and running: Kueue would stop it as soon as its containers change \
             (its Pods are deleted, it is suspended and queued again, and its Jobs then resume on the old \
             template, so the change would not even run). Nothing was changed. Add --now to change it and \
             restart it on the new template at once (its Pods stop and it queues again for quota: `{}`), or \
             --at-next-restart to stage it for its next restart, natural or forced (`{}`)",
            crate::hint::kubectl_jobset(&format!("{command} --now"), jobset.namespace()),
            crate::hint::kubectl_jobset(&format!("{command} --at-next-restart"), jobset.namespace())
        )
    }
}

/// The pod-template fields Kueue's stop restores from the Workload (so an edit of them
/// made in the same change, or before it, is reverted): `[..pod template path]`.
const SCHEDULING_FIELDS: [&[&str]; 4] = [
    &["metadata", "labels"],
    &["metadata", "annotations"],
    &["spec", "nodeSelector"],
    &["spec", "tolerations"],
];

/// The JSON patch that puts back, on `fresh`, the scheduling fields `wanted` had in its
/// pod templates (replicatedJobs matched by name), guarded by `fresh`'s resourceVersion;
/// with the fields it changes (`replicatedJob: field`). Empty when nothing differs.
pub fn restore_scheduling(wanted: &JobSet, fresh: &JobSet) -> (json_patch::Patch, Vec<String>) {
    use super::patch::{add, pointer, test_resource_version};
    let mut ops = Vec::new();
    let mut changed = Vec::new();
    for (index, rjob) in fresh.spec.replicated_jobs.iter().enumerate() {
        let Some(want) = wanted.spec.replicated_jobs.iter().find(|r| r.name == rjob.name) else { continue };
        let (want_template, have_template) = (want.template.value(), rjob.template.value());
        let (want_pod, have_pod) = (&want_template["spec"]["template"], &have_template["spec"]["template"]);
        let index = index.to_string();
        for field in SCHEDULING_FIELDS {
            let have_value = at(have_pod, field);
            let want_value = &merged(at(want_pod, field), have_value);
            if want_value == have_value || want_value.is_null() {
                continue;
            }
            let mut path = vec!["spec", "replicatedJobs", index.as_str(), "template", "spec", "template"];
            if at(have_pod, &field[..1]).is_null() {
                // The parent (`metadata`) is gone too: add it with the field in it.
                path.push(field[0]);
                ops.push(add(pointer(&path), serde_json::json!({ field[1]: want_value })));
            } else {
                path.extend(field);
                ops.push(add(pointer(&path), want_value.clone()));
            }
            changed.push(format!("{}: {}", rjob.name, field.join(".")));
        }
    }
    if !ops.is_empty() {
        ops.insert(0, test_resource_version(fresh.metadata.resource_version.clone().unwrap_or_default()));
    }
    (json_patch::Patch(ops), changed)
}

/// What to put back in one field: for maps (labels, annotations, nodeSelector), what
/// Kueue holds now with our entries over it, except Kueue's own keys (it writes those
/// again at admission); anything else as we had it.
fn merged(want: &Value, have: &Value) -> Value {
    match (want.as_object(), have.as_object()) {
        (Some(want), Some(have)) => {
            let mut out = have.clone();
            for (key, value) in want.iter().filter(|(k, _)| !k.starts_with("kueue.x-k8s.io/")) {
                out.insert(key.clone(), value.clone());
            }
            Value::Object(out)
        }
        (Some(want), None) => {
            let ours: serde_json::Map<String, Value> = want
                .iter()
                .filter(|(k, _)| !k.starts_with("kueue.x-k8s.io/"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if ours.is_empty() { Value::Null } else { Value::Object(ours) }
        }
        _ => want.clone(),
    }
}

fn at<'a>(value: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(value, |v, key| &v[*key])
}

/// A ClusterQueue's quota, reduced to the most each covered resource can ever get:
/// nominal quota summed over its flavors, plus the borrowing limit in a cohort; None
/// (unbounded) in a cohort without a borrowing limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterQueueQuota {
    pub name: String,
    pub most: BTreeMap<String, Option<i128>>,
}

/// The LocalQueues (by namespace and name: their ClusterQueue) and the ClusterQueues' quota.
#[derive(Debug, Clone, Default)]
pub struct QueueQuotas {
    pub local_queues: BTreeMap<(String, String), String>,
    pub cluster_queues: Vec<ClusterQueueQuota>,
}

impl QueueQuotas {
    /// The quota of the ClusterQueue `jobset` queues in: the one its Workload was admitted
    /// to, else its LocalQueue's.
    pub fn of(&self, jobset: &JobSet, kueue: &Kueue) -> Option<&ClusterQueueQuota> {
        let admitted = kueue.workload.as_ref().and_then(|w| w.cluster_queue.clone());
        let local = || {
            let queue = kueue.queue.clone()?;
            self.local_queues.get(&(jobset.namespace().to_owned(), queue)).cloned()
        };
        let name = admitted.or_else(local)?;
        self.cluster_queues.iter().find(|q| q.name == name)
    }
}

impl ClusterQueueQuota {
    /// Reads a ClusterQueue (v1beta1 `cohort` or v1beta2 `cohortName`).
    pub fn from_object(object: &Value) -> ClusterQueueQuota {
        let spec = &object["spec"];
        let in_cohort =
            ["cohort", "cohortName"].iter().any(|k| spec[*k].as_str().is_some_and(|c| !c.is_empty()));
        let mut most: BTreeMap<String, Option<i128>> = BTreeMap::new();
        let resources = spec["resourceGroups"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|g| g["flavors"].as_array().into_iter().flatten())
            .flat_map(|f| f["resources"].as_array().into_iter().flatten());
        for resource in resources {
            let read = |k: &str| {
                resource[k]
                    .as_str()
                    .map(str::to_owned)
                    .or_else(|| resource[k].as_i64().map(|n| n.to_string()))
            };
            let nominal = read("nominalQuota").as_deref().and_then(quantity).unwrap_or(0);
            let borrow = match (in_cohort, read("borrowingLimit")) {
                (false, _) => Some(0),
                (true, Some(limit)) => quantity(&limit),
                (true, None) => None,
            };
            let slot =
                most.entry(resource["name"].as_str().unwrap_or_default().to_owned()).or_insert(Some(0));
            *slot = match (*slot, borrow) {
                (Some(sum), Some(borrow)) => Some(sum + nominal + borrow),
                _ => None,
            };
        }
        ClusterQueueQuota { name: object["metadata"]["name"].as_str().unwrap_or_default().to_owned(), most }
    }
}

/// A pod set whose Pods request other resources than Kueue reserved for them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaMismatch {
    pub replicated_job: String,
    pub container: String,
    pub resource: String,
    /// What the Workload reserves per Pod, and what the Jobs' Pods request.
    pub reserved: Option<String>,
    pub requested: Option<String>,
}

impl QuotaMismatch {
    pub fn words(&self, workload: &str) -> String {
        let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "nothing".into());
        format!(
            "quota: Kueue's workload {workload} reserves {} {} per Pod for container {} of replicatedJob {}, \
             but its Jobs' Pods request {} (a requests change not applied yet: a restart recreates the Jobs from \
             the spec)",
            show(&self.reserved),
            self.resource,
            self.container,
            self.replicated_job,
            show(&self.requested)
        )
    }
}

/// Where the current Jobs' Pods request other resources than the Workload reserves
/// (compared per replicatedJob, on the first current Job of each; quantities by value).
pub fn quota_mismatches(workload: &Workload, jobs: &[ChildJob], attempt: i32) -> Vec<QuotaMismatch> {
    let mut found = Vec::new();
    for set in &workload.pod_sets {
        let Some(job) = jobs.iter().find(|j| {
            j.attempt() == Some(attempt)
                && !j.is_deleting()
                && j.label(super::jobset::labels::REPLICATED_JOB) == Some(set.name.as_str())
        }) else {
            continue;
        };
        let running = container_requests(&job.template.value()["spec"]["template"]["spec"]);
        for (container, reserved) in &set.containers {
            let requested =
                running.iter().find(|(c, _)| c == container).map(|(_, r)| r.clone()).unwrap_or_default();
            let resources: std::collections::BTreeSet<&String> =
                reserved.keys().chain(requested.keys()).collect();
            for resource in resources {
                let (want, have) = (reserved.get(resource), requested.get(resource));
                if !same_quantity(want, have) {
                    found.push(QuotaMismatch {
                        replicated_job: set.name.clone(),
                        container: container.clone(),
                        resource: resource.clone(),
                        reserved: want.cloned(),
                        requested: have.cloned(),
                    });
                }
            }
        }
    }
    found
}

fn same_quantity(a: Option<&String>, b: Option<&String>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b || quantity(a).is_some_and(|x| Some(x) == quantity(b)),
        (None, None) => true,
        _ => false,
    }
}

/// A Kubernetes quantity in thousandths (`1` → 1000, `500m` → 500, `1Gi` → 1024³·1000),
/// for comparing values written differently; None for what does not parse.
pub fn quantity(text: &str) -> Option<i128> {
    let text = text.trim();
    let split =
        text.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-')).unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let negative = whole.starts_with('-');
    let whole: i128 = whole.trim_start_matches(['+', '-']).parse().ok().or(if whole.is_empty() {
        Some(0)
    } else {
        None
    })?;
    // Thousandths of the number itself, from up to 3 fraction digits (finer is rounded off).
    let mut milli = whole * 1000;
    for (i, digit) in fraction.chars().take(3).enumerate() {
        milli += i128::from(digit.to_digit(10)?) * 10i128.pow(2 - i as u32);
    }
    let scale: i128 = match suffix {
        "" => 1000,
        "m" => 1,
        "k" => 1000 * 1000,
        "M" => 1000 * 1_000_000,
        "G" => 1000 * 1_000_000_000,
        "T" => 1000 * 1_000_000_000_000,
        "Ki" => 1000 * 1024,
        "Mi" => 1000 * 1024 * 1024,
        "Gi" => 1000 * 1024 * 1024 * 1024,
        "Ti" => 1000 * 1024i128.pow(4),
        _ => return None,
    };
    let value = milli * scale / 1000;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_jobset_may_be_queued_by_its_label_its_suspension_or_its_pod_templates_labels() {
        let with = |labels: Value, pod_labels: Value, suspend: bool| {
            let template = json!({"spec": {"template": {"metadata": {"labels": pod_labels},
                "spec": {"containers": [{"name": "main", "image": "app:v1", "args": ["kueue.x-k8s.io/"]}]}}}});
            let mut js = crate::testing::jobset("js").replicated_job("w", 1, template).build();
            js.edit_raw(|raw| {
                raw["metadata"]["labels"] = labels;
                raw["spec"]["suspend"] = json!(suspend);
            });
            may_be_queued(&js)
        };
        let none = json!({"team": "ml"});
        assert!(!with(none.clone(), none.clone(), false), "the key in a value is no label");
        assert!(with(json!({QUEUE_LABEL: "q"}), none.clone(), false));
        assert!(with(none.clone(), none.clone(), true));
        assert!(with(none.clone(), json!({"kueue.x-k8s.io/podset": "w"}), false));
    }

    fn workload(admitted: bool, cpu: &str) -> Value {
        let conditions = if admitted {
            json!([{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}])
        } else {
            json!([{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                    "message": "couldn't assign flavors to pod set w: insufficient unused quota for cpu"}])
        };
        json!({"metadata": {"name": "jobset-train-1a2b3", "namespace": "ml",
                "ownerReferences": [{"kind": "JobSet", "name": "train", "uid": "u1", "controller": true}]},
               "spec": {"queueName": "lq", "podSets": [{"name": "w", "count": 2, "template": {"spec": {"containers": [
                   {"name": "main", "image": "app:v1", "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}]}}}]},
               "status": {"admission": if admitted { json!({"clusterQueue": "cluster-queue"}) } else { Value::Null },
                          "conditions": conditions}})
    }

    fn jobset(suspend: bool, labelled: bool) -> JobSet {
        let labels = if labelled { json!({QUEUE_LABEL: "lq"}) } else { json!({}) };
        JobSet::from_raw(
            json!({"metadata": {"name": "train", "namespace": "ml", "uid": "u1", "labels": labels},
            "spec": {"suspend": suspend, "replicatedJobs": []}}),
        )
        .unwrap()
    }

    #[test]
    fn a_workload_is_read_down_to_what_is_said() {
        let w = Workload::from_object(&workload(false, "1"));
        assert_eq!(w.name, "jobset-train-1a2b3");
        assert_eq!(w.owner_uid.as_deref(), Some("u1"));
        assert!(!w.admitted);
        assert!(w.waiting.as_deref().unwrap().contains("insufficient unused quota"));
        assert_eq!(w.pod_sets[0].containers[0].1["cpu"], "1");
        let admitted = Workload::from_object(&workload(true, "1"));
        assert!(admitted.admitted && admitted.waiting.is_none());
        assert_eq!(admitted.cluster_queue.as_deref(), Some("cluster-queue"));
    }

    #[test]
    fn queued_and_admitted_are_told_apart() {
        let pending = [Workload::from_object(&workload(false, "1"))];
        let queued = Kueue::of(&jobset(true, true), &pending).unwrap();
        assert_eq!(queued.standing, Standing::Queued);
        assert_eq!(
            queued.words(),
            "queued by Kueue in queue lq (workload jobset-train-1a2b3: couldn't assign flavors to pod set w: \
             insufficient unused quota for cpu)"
        );
        let admitted = [Workload::from_object(&workload(true, "1"))];
        let running = Kueue::of(&jobset(false, true), &admitted).unwrap();
        assert!(running.is_admitted());
        assert_eq!(running.words(), "admitted by Kueue to cluster-queue (workload jobset-train-1a2b3)");
        assert_eq!(running.cell(), "lq/jobset-train-1a2b3");
        // A Workload alone (a namespace that queues JobSets without the label) is Kueue too.
        assert!(Kueue::of(&jobset(false, false), &admitted).is_some());
        assert!(Kueue::of(&jobset(false, false), &[]).is_none());
    }

    #[test]
    fn the_refusal_says_what_kueue_would_do_and_offers_now() {
        let k = Kueue::of(&jobset(false, true), &[Workload::from_object(&workload(true, "1"))]).unwrap();
        let why = k.admitted_change_refusal(&jobset(false, true), "set image train main=app:v2");
        assert!(why.contains("Kueue would stop it") && why.contains("resume on the old template"), "{why}");
        assert!(why.contains("kubectl jobset set image train main=app:v2 --now"), "{why}");
    }

    #[test]
    fn scheduling_fields_reverted_by_kueue_are_put_back_and_nothing_else() {
        let spec = |labels: Value, selector: Value, image: &str| {
            JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml", "resourceVersion": "7"},
                "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {
                    "metadata": {"labels": labels},
                    "spec": {"nodeSelector": selector, "containers": [{"name": "main", "image": image}]}}}}}]}}))
            .unwrap()
        };
        let wanted =
            spec(json!({"team": "ml", "kueue.x-k8s.io/podset": "w"}), json!({"pool": "a"}), "app:v2");
        let restored = spec(json!({"kueue.x-k8s.io/podset": "w"}), json!({"pool": "a"}), "app:v2");
        let (patch, changed) = restore_scheduling(&wanted, &restored);
        assert_eq!(changed, ["w: metadata.labels"]);
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            json!([{"op": "test", "path": "/metadata/resourceVersion", "value": "7"},
                   {"op": "add", "path": "/spec/replicatedJobs/0/template/spec/template/metadata/labels",
                    "value": {"kueue.x-k8s.io/podset": "w", "team": "ml"}}])
        );
        assert!(restore_scheduling(&wanted, &wanted).1.is_empty());
        // Kueue's own keys are not put back (it writes them again at admission).
        let stale =
            spec(json!({"team": "ml", "kueue.x-k8s.io/podset": "old"}), json!({"pool": "a"}), "app:v2");
        let now = spec(json!({"team": "ml"}), json!({"pool": "a"}), "app:v2");
        assert!(restore_scheduling(&stale, &now).1.is_empty());
    }

    #[test]
    fn a_cluster_queue_gives_its_quota_and_what_it_may_borrow() {
        let cq = |cohort: Option<&str>, borrowing: Option<&str>| {
            let (mut cpu, mut cpu_b) =
                (json!({"name": "cpu", "nominalQuota": 4}), json!({"name": "cpu", "nominalQuota": "500m"}));
            if let Some(b) = borrowing {
                cpu["borrowingLimit"] = json!(b);
                cpu_b["borrowingLimit"] = json!("0");
            }
            let mut spec = json!({"resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [
                {"name": "a", "resources": [cpu, {"name": "memory", "nominalQuota": "8Gi"}]},
                {"name": "b", "resources": [cpu_b]}]}]});
            if let Some(c) = cohort {
                spec["cohortName"] = json!(c);
            }
            ClusterQueueQuota::from_object(&json!({"metadata": {"name": "cq"}, "spec": spec}))
        };
        let alone = cq(None, Some("100"));
        assert_eq!(alone.most.get("cpu"), Some(&Some(4_500)), "no cohort: nothing to borrow");
        assert_eq!(alone.most.get("memory"), Some(&Some(8 * 1000 * 1024 * 1024 * 1024)));
        assert_eq!(cq(Some("all"), Some("2")).most.get("cpu"), Some(&Some(6_500)));
        assert_eq!(cq(Some("all"), None).most.get("cpu"), Some(&None), "unbounded");
    }

    #[test]
    fn quantities_compare_by_value() {
        assert_eq!(quantity("1"), Some(1000));
        assert_eq!(quantity("1000m"), Some(1000));
        assert_eq!(quantity("1.5"), Some(1500));
        assert_eq!(quantity("100Mi"), Some(100 * 1024 * 1024 * 1000));
        assert_eq!(quantity("2k"), Some(2_000_000));
        assert_eq!(quantity("abc"), None);
        assert!(same_quantity(Some(&"1".into()), Some(&"1000m".into())));
        assert!(!same_quantity(Some(&"1".into()), Some(&"1500m".into())));
    }
}
