//! A change to container fields of JobSet templates, as data (pure): which containers a
//! `[REPLICATEDJOB/]CONTAINER` target names, what each field becomes, and the one guarded
//! JSON patch that writes it. `set image`, `set env` and `set resources` differ only in the
//! field they set and how ([`ContainerSetter`]); everything else is here, once.

use json_patch::Patch;
use serde_json::Value;

use crate::history::CHANGE_CAUSE;
use crate::model::jobset::JobSet;
use crate::model::patch::{add, pointer, replace, test, test_resource_version};

/// Pod-spec lists that hold containers, init containers first as kubectl lists them.
const CONTAINER_LISTS: [&str; 2] = ["initContainers", "containers"];

/// Which containers an argument names: `[REPLICATEDJOB/]CONTAINER`, `*` for all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `None`: every replicatedJob that has the container; `Some("*")` says so explicitly.
    pub replicated_job: Option<String>,
    /// A container (or init container) name, or `*` for all of them.
    pub container: String,
}

impl Target {
    /// Every container of every replicatedJob.
    pub fn all() -> Target {
        Target { replicated_job: None, container: "*".into() }
    }

    /// Reads `[REPLICATEDJOB/]CONTAINER`; None when a part is empty or there are two `/`.
    pub fn parse(text: &str) -> Option<Target> {
        let (replicated_job, container) = match text.split_once('/') {
            Some((rjob, container)) => (Some(rjob.to_owned()), container.to_owned()),
            None => (None, text.to_owned()),
        };
        let malformed = container.is_empty()
            || replicated_job.as_deref().is_some_and(str::is_empty)
            || container.contains('/')
            || container.chars().any(char::is_whitespace);
        (!malformed).then_some(Target { replicated_job, container })
    }

    fn matches_rjob(&self, rjob: &str) -> bool {
        self.replicated_job.as_deref().is_none_or(|r| r == "*" || r == rjob)
    }

    fn matches_container(&self, name: &str) -> bool {
        self.container == "*" || self.container == name
    }

    /// As typed: `trainer`, `workers/trainer`.
    pub fn label(&self) -> String {
        match &self.replicated_job {
            Some(r) => format!("{r}/{}", self.container),
            None => self.container.clone(),
        }
    }
}

/// How one command sets one container field.
pub trait ContainerSetter {
    /// The container field set: `image`, `env`, `resources`.
    fn field(&self) -> &'static str;
    /// The field's value after the change, given the container as it is (`Value::Null`
    /// when the field is missing and stays so).
    fn set(&self, container: &Value) -> Value;
}

/// One container field that changes.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerEdit {
    pub replicated_job: String,
    /// `containers` or `initContainers`.
    pub list: &'static str,
    pub index: usize,
    pub container: String,
    pub field: &'static str,
    /// The value now (None when the container has none).
    pub old: Option<Value>,
    pub new: Value,
}

impl ContainerEdit {
    /// `workers/trainer=app:v2`, `workers/trainer env`: for Events and messages.
    pub fn words(&self) -> String {
        match &self.new {
            Value::String(s) => format!("{}/{}={s}", self.replicated_job, self.container),
            _ => format!("{}/{} {}", self.replicated_job, self.container, self.field),
        }
    }
}

/// A replicatedJob whose template changes: where, what it is, what it becomes.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateEdit {
    pub index: usize,
    pub name: String,
    pub before: Value,
    pub after: Value,
}

/// The template change a `set` command makes to one JobSet, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateChange {
    /// Only the replicatedJobs whose template changes, in spec order.
    pub templates: Vec<TemplateEdit>,
    /// Every container field that changes.
    pub edits: Vec<ContainerEdit>,
}

impl TemplateChange {
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Every replicatedJob's template with the change applied (what `--handover` creates
    /// the new JobSet with).
    pub fn templates_of(&self, jobset: &JobSet) -> crate::history::Templates {
        let mut templates = crate::history::templates_of(jobset);
        for edit in &self.templates {
            if let Some((_, template)) = templates.iter_mut().find(|(name, _)| *name == edit.name) {
                *template = edit.after.clone();
            }
        }
        templates
    }

    /// The JSON patch that writes the change, guarded by `test` ops on each replicatedJob's
    /// name, each container's name and the field's current value (or the resourceVersion
    /// where a value to test is missing), so a concurrent edit makes it fail changing
    /// nothing. `cause` becomes the `kubernetes.io/change-cause` annotation in the same
    /// patch, which history takes as the new revision's change cause.
    pub fn patch(&self, jobset: &JobSet, cause: Option<&str>) -> Patch {
        let mut ops = Vec::new();
        let mut guard_version = false;
        for edit in &self.templates {
            let i = edit.index.to_string();
            ops.push(test(pointer(&["spec", "replicatedJobs", &i, "name"]), edit.name.as_str()));
        }
        for edit in &self.edits {
            let index = self.templates.iter().find(|t| t.name == edit.replicated_job).map_or(0, |t| t.index);
            let (i, c) = (index.to_string(), edit.index.to_string());
            let base = ["spec", "replicatedJobs", &i, "template", "spec", "template", "spec", edit.list, &c];
            let at = |field: &str| {
                let mut tokens = base.to_vec();
                tokens.push(field);
                pointer(&tokens)
            };
            ops.push(test(at("name"), edit.container.as_str()));
            match &edit.old {
                Some(old) => {
                    ops.push(test(at(edit.field), old.clone()));
                    ops.push(replace(at(edit.field), edit.new.clone()));
                }
                None => {
                    guard_version = true;
                    ops.push(add(at(edit.field), edit.new.clone()));
                }
            }
        }
        if let Some(cause) = cause {
            match jobset.raw()["metadata"]["annotations"].as_object() {
                Some(_) => ops.push(add(pointer(&["metadata", "annotations", CHANGE_CAUSE]), cause)),
                None => {
                    guard_version = true;
                    ops.push(add(
                        pointer(&["metadata", "annotations"]),
                        serde_json::json!({ CHANGE_CAUSE: cause }),
                    ));
                }
            }
        }
        if guard_version {
            ops.insert(
                0,
                test_resource_version(jobset.metadata.resource_version.clone().unwrap_or_default()),
            );
        }
        Patch(ops)
    }

    /// Whether every field the change sets holds its new value in `jobset` now (to judge
    /// a lost answer).
    pub fn is_applied(&self, jobset: &JobSet) -> bool {
        self.edits.iter().all(|edit| {
            jobset.spec.replicated_jobs.iter().find(|r| r.name == edit.replicated_job).is_some_and(|r| {
                let template = r.template.value();
                let c = &template["spec"]["template"]["spec"][edit.list][edit.index];
                c["name"] == edit.container.as_str() && c[edit.field] == edit.new
            })
        })
    }
}

/// Why arguments cannot apply to a JobSet; the message names the candidates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CannotTarget {
    #[error("{arg}: jobset {jobset} has no replicatedJob {name:?}; its replicatedJobs: {}", known.join(", "))]
    NoReplicatedJob { arg: String, jobset: String, name: String, known: Vec<String> },
    #[error("{arg}: no container named {container:?} in jobset {jobset}; its containers: {}", known.join(", "))]
    NoContainer { arg: String, container: String, jobset: String, known: Vec<String> },
    /// A container name in several replicatedJobs, given without one.
    #[error(
        "container {container:?} is ambiguous in jobset {jobset}: it is in {}; name one as \
         REPLICATEDJOB/CONTAINER, or all with */{container}",
        places.join(", ")
    )]
    Ambiguous { container: String, jobset: String, places: Vec<String> },
}

/// The change `(target, setter)` pairs make to `jobset`, applied in order (a later one
/// sees what an earlier one set), or why a target cannot apply: an unknown
/// replicatedJob, a container no template has, a name several replicatedJobs share.
pub fn plan(
    jobset: &JobSet,
    settings: &[(&Target, &dyn ContainerSetter)],
) -> Result<TemplateChange, CannotTarget> {
    let rjobs = &jobset.spec.replicated_jobs;
    let mut after: Vec<Value> = rjobs.iter().map(|r| r.template.value()).collect();
    let mut edits: Vec<ContainerEdit> = Vec::new();
    for (target, setter) in settings {
        for (i, list, c, name) in matched(jobset, target)? {
            let field = setter.field();
            let container = &mut after[i]["spec"]["template"]["spec"][list][c];
            let new = setter.set(container);
            if container[field] == new {
                continue;
            }
            let old = Some(container[field].clone()).filter(|v| !v.is_null());
            container[field] = new.clone();
            let same = |e: &&mut ContainerEdit| {
                e.replicated_job == rjobs[i].name && e.list == list && e.index == c && e.field == field
            };
            match edits.iter_mut().find(|e| same(e)) {
                // Set twice (`*=a` then `trainer=b`): one edit, guarded by the value read.
                Some(edit) => edit.new = new,
                None => edits.push(ContainerEdit {
                    replicated_job: rjobs[i].name.clone(),
                    list,
                    index: c,
                    container: name,
                    field,
                    old,
                    new,
                }),
            }
        }
    }
    edits.retain(|e| e.old.as_ref() != Some(&e.new));
    let templates = rjobs
        .iter()
        .enumerate()
        .zip(after)
        .filter(|((_, r), after)| r.template != *after)
        .map(|((index, r), after)| TemplateEdit {
            index,
            name: r.name.clone(),
            before: r.template.value(),
            after,
        })
        .collect();
    Ok(TemplateChange { templates, edits })
}

/// `(replicatedJob index, list, container index, name)` of the containers `target` names.
fn matched(
    jobset: &JobSet,
    target: &Target,
) -> Result<Vec<(usize, &'static str, usize, String)>, CannotTarget> {
    let rjobs = &jobset.spec.replicated_jobs;
    if let Some(name) = target.replicated_job.as_deref().filter(|r| *r != "*")
        && !rjobs.iter().any(|r| r.name == name)
    {
        return Err(CannotTarget::NoReplicatedJob {
            arg: target.label(),
            jobset: jobset.name().to_owned(),
            name: name.to_owned(),
            known: rjobs.iter().map(|r| r.name.clone()).collect(),
        });
    }
    let matched: Vec<(usize, &'static str, usize, String)> = rjobs
        .iter()
        .enumerate()
        .filter(|(_, r)| target.matches_rjob(&r.name))
        .flat_map(|(i, r)| {
            containers(&r.template.value()).into_iter().map(move |(list, c, name)| (i, list, c, name))
        })
        .filter(|(_, _, _, name)| target.matches_container(name))
        .collect();
    if matched.is_empty() {
        return Err(CannotTarget::NoContainer {
            arg: target.label(),
            container: target.container.clone(),
            jobset: jobset.name().to_owned(),
            known: candidates(jobset),
        });
    }
    let rjobs_matched: std::collections::BTreeSet<usize> = matched.iter().map(|m| m.0).collect();
    if target.replicated_job.is_none() && target.container != "*" && rjobs_matched.len() > 1 {
        return Err(CannotTarget::Ambiguous {
            container: target.container.clone(),
            jobset: jobset.name().to_owned(),
            places: rjobs_matched
                .iter()
                .map(|i| format!("{}/{}", rjobs[*i].name, target.container))
                .collect(),
        });
    }
    Ok(matched)
}

/// `(list, index, name)` of every container of a Job template, init containers first.
fn containers(template: &Value) -> Vec<(&'static str, usize, String)> {
    let pod = &template["spec"]["template"]["spec"];
    CONTAINER_LISTS
        .iter()
        .flat_map(|list| {
            pod[*list]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(move |(i, c)| (*list, i, c["name"].as_str().unwrap_or_default().to_owned()))
        })
        .collect()
}

/// `workers/trainer, driver/main`: every container, to say what could be meant.
fn candidates(jobset: &JobSet) -> Vec<String> {
    jobset
        .spec
        .replicated_jobs
        .iter()
        .flat_map(|r| {
            containers(&r.template.value()).into_iter().map(move |(_, _, name)| format!("{}/{name}", r.name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    struct Label(&'static str);

    impl ContainerSetter for Label {
        fn field(&self) -> &'static str {
            "image"
        }
        fn set(&self, _: &Value) -> Value {
            Value::String(self.0.into())
        }
    }

    fn jobset() -> JobSet {
        JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml", "resourceVersion": "7"},
            "spec": {"replicatedJobs": [{"name": "workers", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "trainer", "image": "app:v1"}, {"name": "log"}]}}}}}]}}))
        .unwrap()
    }

    #[test]
    fn targets_read_kubectl_words() {
        assert_eq!(Target::parse("workers/trainer").unwrap().label(), "workers/trainer");
        assert_eq!(Target::parse("*").unwrap(), Target::all());
        for bad in ["", "/c", "r/", "a/b/c", "a b"] {
            assert!(Target::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_container_set_twice_is_one_edit_guarded_by_the_value_read() {
        let js = jobset();
        let (all, trainer) = (Target::all(), Target::parse("trainer").unwrap());
        let change = plan(&js, &[(&all, &Label("x:1")), (&trainer, &Label("app:v2"))]).unwrap();
        let edits: Vec<(&str, Option<&Value>, &Value)> =
            change.edits.iter().map(|e| (e.container.as_str(), e.old.as_ref(), &e.new)).collect();
        assert_eq!(
            edits,
            [("trainer", Some(&json!("app:v1")), &json!("app:v2")), ("log", None, &json!("x:1"))]
        );
        // A field that was missing is added under the resourceVersion guard.
        let ops = serde_json::to_value(change.patch(&js, None)).unwrap();
        assert_eq!(ops[0], json!({"op": "test", "path": "/metadata/resourceVersion", "value": "7"}));
        // Set back to what it was: no change at all.
        let back = plan(&js, &[(&all, &Label("x:1")), (&trainer, &Label("app:v1"))]).unwrap();
        assert_eq!(back.edits.len(), 1, "{back:?}");
    }
}
