//! `set image` planning, without I/O: kubectl's `[REPLICATEDJOB/]CONTAINER=IMAGE`
//! arguments and the container change they make (see [`template_change`], shared with
//! `set env` and `set resources`).

use serde_json::Value;

use crate::model::jobset::JobSet;
use crate::plan::template_change::{self, CannotTarget, ContainerSetter, Target, TemplateChange};

/// One `[REPLICATEDJOB/]CONTAINER=IMAGE` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageArg {
    pub target: Target,
    pub image: String,
}

impl ContainerSetter for ImageArg {
    fn field(&self) -> &'static str {
        "image"
    }

    fn set(&self, _: &Value) -> Value {
        Value::String(self.image.clone())
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
        let target =
            Target::parse(target).ok_or_else(|| bad("the container name is missing or malformed"))?;
        if parsed.iter().any(|p| p.target == target) {
            return Err(BadImageArg::Twice(target.label()));
        }
        parsed.push(ImageArg { target, image: image.to_owned() });
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

/// The change the image arguments make to `jobset`, or why they cannot apply (an unknown
/// replicatedJob, a container no template has, a name several replicatedJobs share):
/// the message names the candidates.
pub fn plan(jobset: &JobSet, args: &[ImageArg]) -> Result<TemplateChange, CannotTarget> {
    let settings: Vec<(&Target, &dyn ContainerSetter)> =
        args.iter().map(|a| (&a.target, a as &dyn ContainerSetter)).collect();
    template_change::plan(jobset, &settings)
}

/// The change cause when no `--reason` is given: the command, as `kubectl --record` kept it.
pub fn default_cause(args: &[ImageArg]) -> String {
    format!("set image {}", image_words(args))
}

/// The `[REPLICATEDJOB/]CONTAINER=IMAGE` words, as typed.
pub fn image_words(args: &[ImageArg]) -> String {
    let images: Vec<String> = args.iter().map(|a| format!("{}={}", a.target.label(), a.image)).collect();
    images.join(" ")
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
                ImageArg { target: Target::parse("trainer").unwrap(), image: "app:v2".into() },
                ImageArg { target: Target::parse("workers/*").unwrap(), image: "x:1".into() },
                ImageArg { target: Target::all(), image: "y@sha256:ab".into() },
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
        let edited: Vec<(&str, &str)> = change.edits.iter().map(|e| (e.list, e.container.as_str())).collect();
        assert_eq!(
            edited,
            [("initContainers", "setup"), ("containers", "trainer"), ("containers", "sidecar")]
        );
        let all = plan(&js, &args(&["*=new:1"])).unwrap();
        assert_eq!((all.edits.len(), all.templates.len()), (5, 2));
        let both = plan(&js, &args(&["*/sidecar=log:v2"])).unwrap();
        assert_eq!(
            both.edits.iter().map(|e| e.replicated_job.as_str()).collect::<Vec<_>>(),
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
        assert!(!change.is_applied(&js));
        let mut object = js.object();
        json_patch::patch(&mut object, &change.patch(&js, None)).unwrap();
        let after = JobSet::from_raw(object).unwrap();
        assert!(change.is_applied(&after));
        assert!(plan(&after, &args(&["trainer=app:v2"])).unwrap().is_empty(), "nothing left to do");
        assert_eq!(default_cause(&args(&["workers/trainer=app:v2"])), "set image workers/trainer=app:v2");
    }
}
