//! The handover's decisions, without I/O: whether to refuse, which permissions the
//! steps need, the object to create, each guarded adoption patch, the status to
//! restore, and where a rerun resumes.

pub mod journal;

use json_patch::Patch;
use serde_json::{Map, Value, json};

use crate::history::{Templates, canonical};
use crate::model::jobset::{API_GROUP, API_VERSION, ChildJob, JobSet, KIND, PLURAL};
use crate::model::patch::{add, pointer, test, test_resource_version};

/// The steps, in order. `name()` is what the journal and the test hook call them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Journal,
    Delete,
    Create,
    Adopt,
    Restore,
    Finish,
}

impl Step {
    pub const ALL: [Step; 6] =
        [Step::Journal, Step::Delete, Step::Create, Step::Adopt, Step::Restore, Step::Finish];

    pub fn name(self) -> &'static str {
        match self {
            Step::Journal => "journal",
            Step::Delete => "delete",
            Step::Create => "create",
            Step::Adopt => "adopt",
            Step::Restore => "restore",
            Step::Finish => "finish",
        }
    }

    pub fn parse(text: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|s| s.name() == text)
    }
}

pub use crate::model::jobset::JOBSET_CONTROLLER;
/// Kueue's queue label: a JobSet with it is admitted (and suspended) by Kueue.
pub const KUEUE_QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";
/// On the new JobSet: the uid of the one it replaced (how a rerun recognises it).
pub const FROM_UID_ANNOTATION: &str = "kubectl-jobset.io/handover-from-uid";

/// What a handover of a queued JobSet under Kueue costs, said before it starts.
pub fn queued_note(jobset: &JobSet, workload: Option<&str>) -> Option<String> {
    let labelled = jobset.metadata.labels.as_ref().is_some_and(|l| l.contains_key(KUEUE_QUEUE_LABEL));
    (jobset.is_suspended() && (labelled || workload.is_some())).then(|| {
        let old =
            workload.map(|w| format!(" (its workload {w} goes with the old object)")).unwrap_or_default();
        format!(
            "note: jobset {} is queued by Kueue: the new object gets a new Workload and queues again{old}",
            jobset.name()
        )
    })
}

/// Why a handover must not start, if it must not; `workload` is a Kueue Workload owned
/// by the JobSet, if one was found.
pub fn refusal(jobset: &JobSet, jobs: &[ChildJob], workload: Option<&str>) -> Option<String> {
    if let Some(manager) = jobset.managed_elsewhere() {
        return Some(format!(
            "it is {}: a new uid would make that controller lose track of it",
            crate::model::jobset::managed_elsewhere_words(manager)
        ));
    }
    let kueue = |how: String| {
        format!(
            "it is admitted by Kueue ({how}): a new uid would make Kueue stop its running Pods and queue it \
             again (a queued, suspended JobSet may be handed over)"
        )
    };
    // Only an admitted one: a queued JobSet runs nothing, so its new object just queues.
    if !jobset.is_suspended() {
        if let Some(queue) = jobset.metadata.labels.as_ref().and_then(|l| l.get(KUEUE_QUEUE_LABEL)) {
            return Some(kueue(format!("label {KUEUE_QUEUE_LABEL}={queue}")));
        }
        if let Some(workload) = workload {
            return Some(kueue(format!("workload {workload} is owned by it")));
        }
    }
    if jobset.metadata.deletion_timestamp.is_some() {
        return Some("it is being deleted".into());
    }
    for state in ["Completed", "Failed"] {
        if jobset.finished_as(state) {
            return Some(format!(
                "it has finished ({state}): the controller would not run its Jobs again, and a new JobSet \
                 with the same name is a plain `kubectl create`"
            ));
        }
    }
    let attempt = jobset.attempt();
    let earlier: Vec<&str> = jobs
        .iter()
        .filter(|j| j.is_deleting() || j.attempt().is_some_and(|a| a < attempt))
        .map(|j| j.name())
        .collect();
    if !earlier.is_empty() {
        return Some(format!(
            "a restart is in progress (attempt {attempt}; Jobs of an earlier attempt still exist: {}): \
             wait until it has finished, then run the command again",
            earlier.join(", ")
        ));
    }
    None
}

/// One permission a step needs: `verb` on `group`/`resource`[/`subresource`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permission {
    pub verb: &'static str,
    pub group: &'static str,
    pub resource: &'static str,
    pub subresource: &'static str,
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let group = if self.group.is_empty() { String::new() } else { format!(".{}", self.group) };
        let sub = if self.subresource.is_empty() { String::new() } else { format!("/{}", self.subresource) };
        write!(f, "{} {}{group}{sub}", self.verb, self.resource)
    }
}

/// Every permission the steps need. `service`: the JobSet has a headless Service;
/// `kueue`: the Kueue API is served (its Workloads are listed).
pub fn needed_permissions(service: bool, kueue: bool) -> Vec<Permission> {
    // Verbs per resource, in the order they are checked and reported.
    let on = |group, resource, subresource, verbs: &'static [&'static str]| {
        verbs.iter().map(move |&verb| Permission { verb, group, resource, subresource })
    };
    let mut needed: Vec<Permission> = [
        on(API_GROUP, PLURAL, "", &["get", "delete", "create", "watch"]),
        on(API_GROUP, PLURAL, "status", &["patch"]),
        on("batch", "jobs", "", &["list", "patch"]),
        on("apps", "controllerrevisions", "", &["list", "patch"]),
        on("", "configmaps", "", &["get", "create", "update", "delete"]),
    ]
    .into_iter()
    .flatten()
    .collect();
    if service {
        needed.extend(on("", "services", "", &["get", "patch"]));
    }
    if kueue {
        needed.extend(on("kueue.x-k8s.io", "workloads", "", &["list"]));
    }
    needed
}

/// The name of the headless Service the controller keeps for this JobSet, if it has one:
/// `spec.network.subdomain`, else the JobSet's name, when DNS hostnames are enabled.
pub fn headless_service(jobset: &JobSet) -> Option<String> {
    let network = jobset.spec.network.as_ref()?;
    if network.enable_dns_hostnames != Some(true) {
        return None;
    }
    Some(network.subdomain.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| jobset.name().to_owned()))
}

/// Metadata only the API server sets: dropped from the object we create.
const SERVER_OWNED: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
];

/// Finalizers the API server adds while deleting; never carried over.
const DELETION_FINALIZERS: &[&str] = &["orphan", "foregroundDeletion"];

/// The JobSet to create: the old object whole (labels, annotations, every spec field),
/// with the new templates, without status and server-owned metadata, and marked with
/// the uid it replaces.
pub fn new_object(old: &Value, templates: &Templates) -> Value {
    let mut object = old.clone();
    let map = object.as_object_mut().expect("a JobSet is a JSON object");
    map.remove("status");
    let old_uid = old["metadata"]["uid"].as_str().unwrap_or_default().to_owned();
    let meta = map.entry("metadata").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        for key in SERVER_OWNED {
            meta.remove(*key);
        }
        if let Some(finalizers) = meta.get_mut("finalizers").and_then(Value::as_array_mut) {
            finalizers.retain(|f| !f.as_str().is_some_and(|f| DELETION_FINALIZERS.contains(&f)));
            if finalizers.is_empty() {
                meta.remove("finalizers");
            }
        }
        let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
        annotations[FROM_UID_ANNOTATION] = Value::String(old_uid);
    }
    if let Some(rjobs) = object.pointer_mut("/spec/replicatedJobs").and_then(Value::as_array_mut) {
        for rjob in rjobs {
            let name = rjob["name"].as_str().unwrap_or_default();
            if let Some((_, template)) = templates.iter().find(|(n, _)| n == name) {
                rjob["template"] = template.clone();
            }
        }
    }
    object
}

/// The names of the replicatedJobs whose templates the handover changes.
pub fn changed_templates(old: &Value, templates: &Templates) -> Vec<String> {
    let rjobs = old.pointer("/spec/replicatedJobs").and_then(Value::as_array).cloned().unwrap_or_default();
    rjobs
        .iter()
        .filter_map(|r| {
            let name = r["name"].as_str()?;
            let (_, new) = templates.iter().find(|(n, _)| n == name)?;
            (canonical(&r["template"]) != canonical(new)).then(|| name.to_owned())
        })
        .collect()
}

/// The ownerReference to the new JobSet, as the controller sets it on Jobs and the
/// Service (`controller: true`, `blockOwnerDeletion: true`: its Job index and the
/// garbage collector match on these), or as history sets it on revisions.
pub fn owner_reference(name: &str, uid: &str, controller: bool) -> Value {
    let mut reference = json!({"apiVersion": API_VERSION, "kind": KIND, "name": name, "uid": uid});
    if controller {
        reference["controller"] = json!(true);
        reference["blockOwnerDeletion"] = json!(true);
    }
    reference
}

/// How to adopt one object, judged from its metadata as read now.
#[derive(Debug, Clone, PartialEq)]
pub enum Adoption {
    /// Already owned by the new JobSet.
    Done,
    /// Another controller owns it: it is left alone (and named).
    Foreign(String),
    Patch(Patch),
}

/// The guarded patch that makes `new_owner` (an ownerReference from `owner_reference`)
/// own the object with `metadata` (its JSON), dropping references to `old_uid`. Guard:
/// the object's uid, and its ownerReferences as read (or, when it has none, its
/// resourceVersion, since a JSON patch cannot test that a field is absent).
pub fn adoption(metadata: &Value, old_uid: &str, new_owner: &Value) -> Adoption {
    let new_uid = new_owner["uid"].as_str().unwrap_or_default();
    let refs = metadata["ownerReferences"].as_array().cloned().unwrap_or_default();
    if refs.iter().any(|r| r["uid"] == new_uid) {
        return Adoption::Done;
    }
    let wants_controller = new_owner["controller"] == json!(true);
    if wants_controller
        && let Some(other) = refs.iter().find(|r| r["controller"] == json!(true) && r["uid"] != old_uid)
    {
        return Adoption::Foreign(format!(
            "controlled by {} {} (uid {})",
            other["kind"].as_str().unwrap_or("?"),
            other["name"].as_str().unwrap_or("?"),
            other["uid"].as_str().unwrap_or("?")
        ));
    }
    let mut kept: Vec<Value> = refs.iter().filter(|r| r["uid"] != old_uid).cloned().collect();
    kept.push(new_owner.clone());
    let mut ops = vec![test(pointer(&["metadata", "uid"]), metadata["uid"].clone())];
    if refs.is_empty() {
        ops.push(test_resource_version(metadata["resourceVersion"].clone()));
    } else {
        ops.push(test(pointer(&["metadata", "ownerReferences"]), Value::Array(refs)));
    }
    ops.push(add(pointer(&["metadata", "ownerReferences"]), Value::Array(kept)));
    Adoption::Patch(Patch(ops))
}

/// Status fields the controller counts restarts in, restored on the new JobSet.
const RESTART_FIELDS: &[&str] =
    &["restarts", "restartsCountTowardsMax", "previousInPlaceRestartAttempt", "currentInPlaceRestartAttempt"];
/// Per-Job restart counts, per replicatedJob (the RestartJob feature).
const JOB_RESTART_FIELDS: &[&str] = &["jobRestarts", "jobRestartsCountTowardsMax"];

/// The guarded status patch that gives the new JobSet (`new`, as read now) the old
/// one's restart counters; None when they already match. Guard: the new uid and its
/// resourceVersion (the controller writes status too: a conflict is re-read).
pub fn restore_status(old_status: &Value, new: &Value) -> Option<Patch> {
    let status = &new["status"];
    let mut ops = Vec::new();
    let mut whole = status.as_object().cloned().unwrap_or_default();
    for key in RESTART_FIELDS {
        if let Some(value) = old_status.get(*key).filter(|v| !v.is_null())
            && status.get(*key) != Some(value)
        {
            whole.insert((*key).to_owned(), value.clone());
            ops.push(add(pointer(&["status", key]), value.clone()));
        }
    }
    let old_rjobs = old_status["replicatedJobsStatus"].as_array().cloned().unwrap_or_default();
    let mut new_rjobs = status["replicatedJobsStatus"].as_array().cloned();
    for old in &old_rjobs {
        let counts: Map<String, Value> = JOB_RESTART_FIELDS
            .iter()
            .filter_map(|k| old.get(*k).filter(|v| !v.is_null()).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        if counts.is_empty() {
            continue;
        }
        match new_rjobs.as_mut().and_then(|r| r.iter().position(|n| n["name"] == old["name"]).map(|i| (i, r)))
        {
            Some((i, rjobs)) => {
                for (key, value) in counts {
                    if rjobs[i].get(&key) != Some(&value) {
                        rjobs[i][&key] = value.clone();
                        ops.push(add(
                            pointer(&["status", "replicatedJobsStatus", &i.to_string(), &key]),
                            value,
                        ));
                    }
                }
            }
            None => {
                // The controller has not written this replicatedJob's status yet: the old
                // entry goes in whole (it recounts the rest and keeps the restart counts).
                let rjobs = new_rjobs.get_or_insert_with(Vec::new);
                rjobs.push(old.clone());
                ops.push(add(pointer(&["status", "replicatedJobsStatus"]), Value::Array(rjobs.clone())));
            }
        }
    }
    if ops.is_empty() {
        return None;
    }
    if let Some(rjobs) = new_rjobs {
        whole.insert("replicatedJobsStatus".into(), Value::Array(rjobs));
    }
    let guard = vec![
        test(pointer(&["metadata", "uid"]), new["metadata"]["uid"].clone()),
        test_resource_version(new["metadata"]["resourceVersion"].clone()),
    ];
    // Without a status yet, or with a replicatedJob entry to add, the status goes whole
    // (pointers into a missing status, or into a list we extend, would not apply).
    let simple = status.is_object()
        && ops.iter().all(|op| !matches!(op, json_patch::PatchOperation::Add(a) if a.path.as_str() == "/status/replicatedJobsStatus"));
    let body = if simple { ops } else { vec![add(pointer(&["status"]), Value::Object(whole))] };
    Some(Patch(guard.into_iter().chain(body).collect()))
}

/// Where a handover stands, judged from the JobSet found under the name now.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// The old JobSet is still there: delete it (its resourceVersion may have moved).
    Delete,
    /// The old JobSet is being deleted: wait until it is gone.
    WaitGone,
    /// Nothing under the name: create the new JobSet.
    Create,
    /// The new JobSet exists (uid given): adopt, restore, finish (each idempotent).
    Adopt(String),
    /// Someone else's JobSet holds the name: stop, and say so.
    Foreign(String),
}

/// The stage of a handover of `old_uid`, given what holds the name now (its uid, its
/// FROM_UID annotation, whether it is being deleted).
pub fn stage(old_uid: &str, live: Option<(&str, Option<&str>, bool)>) -> Stage {
    match live {
        None => Stage::Create,
        Some((uid, _, deleting)) if uid == old_uid => {
            if deleting {
                Stage::WaitGone
            } else {
                Stage::Delete
            }
        }
        Some((uid, Some(from), _)) if from == old_uid => Stage::Adopt(uid.to_owned()),
        Some((uid, _, _)) => Stage::Foreign(uid.to_owned()),
    }
}

/// Whether the old JobSet changed since the journal was written in a way that matters
/// (metadata the new object keeps, or its spec); status changes do not.
pub fn changed_since_journal(journaled: &Value, live: &Value) -> Option<&'static str> {
    for (what, path) in
        [("spec", "/spec"), ("labels", "/metadata/labels"), ("annotations", "/metadata/annotations")]
    {
        if canonical(journaled.pointer(path).unwrap_or(&Value::Null))
            != canonical(live.pointer(path).unwrap_or(&Value::Null))
        {
            return Some(what);
        }
    }
    None
}

#[cfg(test)]
mod tests;
