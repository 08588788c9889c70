//! `set image` planning, without I/O: kubectl's `[REPLICATEDJOB/]CONTAINER=IMAGE`
//! arguments, the template change they make to one JobSet (computed as data before
//! anything is written, so other writers such as a handover can reuse it), and the one
//! guarded JSON patch that writes it.

use json_patch::Patch;
use serde_json::Value;

use crate::history::CHANGE_CAUSE;
use crate::model::jobset::JobSet;
use crate::model::patch::{add, pointer, replace, test, test_resource_version};

/// Pod-spec lists that hold containers, init containers first as kubectl lists them.
const CONTAINER_LISTS: [&str; 2] = ["initContainers", "containers"];

/// One `[REPLICATEDJOB/]CONTAINER=IMAGE` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageArg {
    /// `None`: every replicatedJob that has the container; `Some("*")` says so explicitly.
    pub replicated_job: Option<String>,
    /// A container (or init container) name, or `*` for all of them.
    pub container: String,
    pub image: String,
}

impl ImageArg {
    fn matches_rjob(&self, rjob: &str) -> bool {
        self.replicated_job.as_deref().is_none_or(|r| r == "*" || r == rjob)
    }

    fn matches_container(&self, name: &str) -> bool {
        self.container == "*" || self.container == name
    }

    fn label(&self) -> String {
        match &self.replicated_job {
            Some(r) => format!("{r}/{}", self.container),
            None => self.container.clone(),
        }
    }
}

/// Parses the image arguments, kubectl's way: `CONTAINER=IMAGE`, `*=IMAGE`, and ours
/// `REPLICATEDJOB/CONTAINER=IMAGE` (`*/CONTAINER`, `REPLICATEDJOB/*` too).
pub fn parse_image_args(args: &[String]) -> Result<Vec<ImageArg>, BadImageArg> {
    if args.is_empty() {
        return Err(BadImageArg::Missing);
    }
    let mut parsed: Vec<ImageArg> = Vec::new();
    for arg in args {
        let bad = |why: &'static str| BadImageArg::Invalid { arg: arg.clone(), why };
        let (target, image) = arg.split_once('=').ok_or_else(|| bad("no '='"))?;
        let image = image.trim();
        if image.is_empty() {
            return Err(bad("the image is empty"));
        }
        if image.chars().any(char::is_whitespace) {
            return Err(bad("an image cannot contain spaces"));
        }
        let (replicated_job, container) = match target.split_once('/') {
            Some((rjob, container)) => (Some(rjob.to_owned()), container.to_owned()),
            None => (None, target.to_owned()),
        };
        if container.is_empty()
            || replicated_job.as_deref().is_some_and(str::is_empty)
            || container.contains('/')
        {
            return Err(bad("the container name is missing or malformed"));
        }
        let next = ImageArg { replicated_job, container, image: image.to_owned() };
        if parsed.iter().any(|p| p.label() == next.label()) {
            return Err(BadImageArg::Twice(next.label()));
        }
        parsed.push(next);
    }
    Ok(parsed)
}

/// An image argument that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadImageArg {
    #[error(
        "name at least one image to set: [REPLICATEDJOB/]CONTAINER=IMAGE, e.g. trainer=busybox:1.37 or workers/*=busybox:1.37"
    )]
    Missing,
    #[error("invalid image argument {arg:?}: {why}; use [REPLICATEDJOB/]CONTAINER=IMAGE")]
    Invalid { arg: String, why: &'static str },
    /// Two arguments for one container (by its label).
    #[error("{0} is set twice: give each container one image")]
    Twice(String),
}

/// One container whose image changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageEdit {
    pub replicated_job: String,
    /// `containers` or `initContainers`.
    pub list: &'static str,
    pub index: usize,
    pub container: String,
    /// The image now (None when the container has none).
    pub old: Option<String>,
    pub new: String,
}

/// A replicatedJob whose template changes: where, what it is, what it becomes.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateEdit {
    pub index: usize,
    pub name: String,
    pub before: Value,
    pub after: Value,
}

/// The template change `set image` makes to one JobSet, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateChange {
    /// Only the replicatedJobs whose template changes, in spec order.
    pub templates: Vec<TemplateEdit>,
    /// Every container whose image changes.
    pub images: Vec<ImageEdit>,
}

impl TemplateChange {
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
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
    /// name, each container's name and its current image (or the resourceVersion where
    /// a value to test is missing), so a concurrent edit makes it fail changing nothing.
    /// `cause` becomes the `kubernetes.io/change-cause` annotation in the same patch,
    /// which history takes as the new revision's change cause.
    pub fn patch(&self, jobset: &JobSet, cause: Option<&str>) -> Patch {
        let mut ops = Vec::new();
        let mut guard_version = false;
        for edit in &self.templates {
            let i = edit.index.to_string();
            ops.push(test(pointer(&["spec", "replicatedJobs", &i, "name"]), edit.name.as_str()));
        }
        for image in &self.images {
            let index = self.templates.iter().find(|t| t.name == image.replicated_job).map_or(0, |t| t.index);
            let (i, c) = (index.to_string(), image.index.to_string());
            let base = ["spec", "replicatedJobs", &i, "template", "spec", "template", "spec", image.list, &c];
            let at = |field: &'static str| {
                let mut tokens = base.to_vec();
                tokens.push(field);
                pointer(&tokens)
            };
            ops.push(test(at("name"), image.container.as_str()));
            match &image.old {
                Some(old) => {
                    ops.push(test(at("image"), old.as_str()));
                    ops.push(replace(at("image"), image.new.as_str()));
                }
                None => {
                    guard_version = true;
                    ops.push(add(at("image"), image.new.as_str()));
                }
            }
        }
        if let Some(cause) = cause {
            match jobset.raw["metadata"]["annotations"].as_object() {
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
}

/// Why image arguments cannot apply to a JobSet; the message names the candidates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CannotSetImage {
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

/// The change the image arguments make to `jobset`, or why they cannot apply (an unknown
/// replicatedJob, a container no template has, a name several replicatedJobs share):
/// the message names the candidates.
pub fn plan(jobset: &JobSet, args: &[ImageArg]) -> Result<TemplateChange, CannotSetImage> {
    let rjobs = &jobset.spec.replicated_jobs;
    let mut after: Vec<Value> = rjobs.iter().map(|r| r.template.clone()).collect();
    let mut images = Vec::new();
    for arg in args {
        if let Some(name) = arg.replicated_job.as_deref().filter(|r| *r != "*")
            && !rjobs.iter().any(|r| r.name == name)
        {
            return Err(CannotSetImage::NoReplicatedJob {
                arg: arg.label(),
                jobset: jobset.name().to_owned(),
                name: name.to_owned(),
                known: rjobs.iter().map(|r| r.name.clone()).collect(),
            });
        }
        let matched: Vec<(usize, &'static str, usize, String)> = rjobs
            .iter()
            .enumerate()
            .filter(|(_, r)| arg.matches_rjob(&r.name))
            .flat_map(|(i, r)| {
                containers(&r.template).into_iter().map(move |(list, c, name)| (i, list, c, name))
            })
            .filter(|(_, _, _, name)| arg.matches_container(name))
            .collect();
        if matched.is_empty() {
            return Err(CannotSetImage::NoContainer {
                arg: arg.label(),
                container: arg.container.clone(),
                jobset: jobset.name().to_owned(),
                known: candidates(jobset),
            });
        }
        let rjobs_matched: std::collections::BTreeSet<usize> = matched.iter().map(|m| m.0).collect();
        if arg.replicated_job.is_none() && arg.container != "*" && rjobs_matched.len() > 1 {
            let names: Vec<String> =
                rjobs_matched.iter().map(|i| format!("{}/{}", rjobs[*i].name, arg.container)).collect();
            return Err(CannotSetImage::Ambiguous {
                container: arg.container.clone(),
                jobset: jobset.name().to_owned(),
                places: names,
            });
        }
        for (i, list, c, name) in matched {
            let field = &mut after[i]["spec"]["template"]["spec"][list][c]["image"];
            let old = field.as_str().map(str::to_owned);
            if old.as_deref() == Some(arg.image.as_str()) {
                continue;
            }
            *field = Value::String(arg.image.clone());
            images.push(ImageEdit {
                replicated_job: rjobs[i].name.clone(),
                list,
                index: c,
                container: name,
                old,
                new: arg.image.clone(),
            });
        }
    }
    let templates = rjobs
        .iter()
        .enumerate()
        .zip(after)
        .filter(|((_, r), after)| r.template != *after)
        .map(|((index, r), after)| TemplateEdit {
            index,
            name: r.name.clone(),
            before: r.template.clone(),
            after,
        })
        .collect();
    Ok(TemplateChange { templates, images })
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
            containers(&r.template).into_iter().map(move |(_, _, name)| format!("{}/{name}", r.name))
        })
        .collect()
}

/// The change cause when no `--reason` is given: the command, as `kubectl --record` kept it.
pub fn default_cause(args: &[ImageArg]) -> String {
    format!("set image {}", image_words(args))
}

/// The `[REPLICATEDJOB/]CONTAINER=IMAGE` words, as typed.
pub fn image_words(args: &[ImageArg]) -> String {
    let images: Vec<String> = args.iter().map(|a| format!("{}={}", a.label(), a.image)).collect();
    images.join(" ")
}

/// Whether the images the change sets are all in `jobset` now (to judge a lost answer).
pub fn is_applied(change: &TemplateChange, jobset: &JobSet) -> bool {
    change.images.iter().all(|edit| {
        jobset.spec.replicated_jobs.iter().find(|r| r.name == edit.replicated_job).is_some_and(|r| {
            let c = &r.template["spec"]["template"]["spec"][edit.list][edit.index];
            c["name"] == edit.container.as_str() && c["image"] == edit.new.as_str()
        })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(texts: &[&str]) -> Vec<ImageArg> {
        parse_image_args(&texts.iter().map(|t| t.to_string()).collect::<Vec<_>>()).unwrap()
    }

    fn jobset(annotations: Option<Value>) -> JobSet {
        let pod = |init: Value, containers: Value| json!({"spec": {"template": {"spec": {"initContainers": init, "containers": containers}}}});
        let mut metadata = json!({"name": "train", "namespace": "ml", "resourceVersion": "7"});
        if let Some(a) = annotations {
            metadata["annotations"] = a;
        }
        JobSet::from_raw(json!({"metadata": metadata, "spec": {"replicatedJobs": [
            {"name": "workers", "replicas": 2, "template": pod(json!([{"name": "setup", "image": "busybox:1.36"}]),
                json!([{"name": "trainer", "image": "app:v1"}, {"name": "sidecar", "image": "log:v1"}]))},
            {"name": "driver", "template": pod(json!([]), json!([{"name": "main", "image": "drv:v1"},
                {"name": "sidecar", "image": "log:v1"}]))}
        ]}}))
        .unwrap()
    }

    #[test]
    fn arguments_follow_kubectl_grammar() {
        assert_eq!(
            args(&["trainer=app:v2", "workers/*=x:1", "*=y@sha256:ab"]),
            [
                ImageArg { replicated_job: None, container: "trainer".into(), image: "app:v2".into() },
                ImageArg {
                    replicated_job: Some("workers".into()),
                    container: "*".into(),
                    image: "x:1".into()
                },
                ImageArg { replicated_job: None, container: "*".into(), image: "y@sha256:ab".into() },
            ]
        );
        for (bad, want) in [
            ("trainer", "no '='"),
            ("trainer=", "the image is empty"),
            ("=app", "container name is missing"),
            ("/c=app", "container name is missing"),
            ("a/b/c=app", "malformed"),
            ("c=a b", "spaces"),
        ] {
            let e = parse_image_args(&[bad.to_string()]).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
        assert_eq!(
            parse_image_args(&["c=a b".into()]).unwrap_err().to_string(),
            r#"invalid image argument "c=a b": an image cannot contain spaces; use [REPLICATEDJOB/]CONTAINER=IMAGE"#
        );
        assert!(parse_image_args(&[]).unwrap_err().to_string().contains("at least one image"));
        let twice = parse_image_args(&["c=a".into(), "c=b".into()]).unwrap_err().to_string();
        assert_eq!(twice, "c is set twice: give each container one image");
    }

    #[test]
    fn one_container_becomes_one_guarded_replace() {
        let js = jobset(Some(json!({"team": "ml"})));
        let change = plan(&js, &args(&["trainer=app:v2"])).unwrap();
        assert_eq!(change.templates.len(), 1);
        assert_eq!(change.templates[0].after["spec"]["template"]["spec"]["containers"][0]["image"], "app:v2");
        let ops = serde_json::to_value(change.patch(&js, Some("new model"))).unwrap();
        let c = "/spec/replicatedJobs/0/template/spec/template/spec/containers/0";
        assert_eq!(
            ops,
            json!([
                {"op": "test", "path": "/spec/replicatedJobs/0/name", "value": "workers"},
                {"op": "test", "path": format!("{c}/name"), "value": "trainer"},
                {"op": "test", "path": format!("{c}/image"), "value": "app:v1"},
                {"op": "replace", "path": format!("{c}/image"), "value": "app:v2"},
                {"op": "add", "path": "/metadata/annotations/kubernetes.io~1change-cause", "value": "new model"},
            ])
        );
    }

    #[test]
    fn init_containers_wildcards_and_replicated_job_prefixes() {
        let js = jobset(None);
        let change = plan(&js, &args(&["workers/*=new:1"])).unwrap();
        let edited: Vec<(&str, &str)> =
            change.images.iter().map(|e| (e.list, e.container.as_str())).collect();
        assert_eq!(
            edited,
            [("initContainers", "setup"), ("containers", "trainer"), ("containers", "sidecar")]
        );
        let all = plan(&js, &args(&["*=new:1"])).unwrap();
        assert_eq!((all.images.len(), all.templates.len()), (5, 2));
        let both = plan(&js, &args(&["*/sidecar=log:v2"])).unwrap();
        assert_eq!(
            both.images.iter().map(|e| e.replicated_job.as_str()).collect::<Vec<_>>(),
            ["workers", "driver"]
        );
        // Annotations missing: the patch adds the map, guarded by the resourceVersion.
        let ops = serde_json::to_value(both.patch(&js, Some("logs"))).unwrap();
        assert_eq!(ops[0], json!({"op": "test", "path": "/metadata/resourceVersion", "value": "7"}));
        assert_eq!(
            ops.as_array().unwrap().last().unwrap(),
            &json!({"op": "add", "path": "/metadata/annotations", "value": {"kubernetes.io/change-cause": "logs"}})
        );
    }

    #[test]
    fn missing_and_ambiguous_names_the_candidates() {
        let js = jobset(None);
        let why = |texts: &[&str]| plan(&js, &args(texts)).unwrap_err().to_string();
        assert_eq!(
            why(&["nope=x:1"]),
            "nope: no container named \"nope\" in jobset train; its containers: \
             workers/setup, workers/trainer, workers/sidecar, driver/main, driver/sidecar"
        );
        assert_eq!(
            why(&["sidecar=x:1"]),
            "container \"sidecar\" is ambiguous in jobset train: it is in workers/sidecar, driver/sidecar; \
             name one as REPLICATEDJOB/CONTAINER, or all with */sidecar"
        );
        assert_eq!(
            why(&["ps/main=x:1"]),
            "ps/main: jobset train has no replicatedJob \"ps\"; its replicatedJobs: workers, driver"
        );
        assert!(why(&["driver/trainer=x:1"]).contains("no container named"));
    }

    #[test]
    fn unchanged_images_make_no_change_and_lost_answers_are_judged() {
        let js = jobset(None);
        assert!(plan(&js, &args(&["trainer=app:v1"])).unwrap().is_empty());
        let change = plan(&js, &args(&["trainer=app:v2"])).unwrap();
        assert!(!is_applied(&change, &js));
        let mut object = js.object();
        json_patch::patch(&mut object, &change.patch(&js, None)).unwrap();
        let after = JobSet::from_raw(object).unwrap();
        assert!(is_applied(&change, &after));
        assert!(plan(&after, &args(&["trainer=app:v2"])).unwrap().is_empty(), "nothing left to do");
        assert_eq!(default_cause(&args(&["workers/trainer=app:v2"])), "set image workers/trainer=app:v2");
    }
}
