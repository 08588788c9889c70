//! Manifests the tests create, and what they read back from objects.

use k8s_openapi::api::batch::v1::Job;
use serde_json::Value;

pub fn attempt_label(job: &Job) -> Option<i32> {
    job.metadata.labels.as_ref()?.get("jobset.sigs.k8s.io/restart-attempt")?.parse().ok()
}

/// The first container's image of each replicatedJob's template, in spec order.
pub fn images(jobset: &Value) -> Vec<String> {
    jobset["spec"]["replicatedJobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["template"]["spec"]["template"]["spec"]["containers"][0]["image"].as_str().unwrap().to_owned()
        })
        .collect()
}

pub fn image_of(job: &Job, container: usize) -> String {
    job.spec.as_ref().unwrap().template.spec.as_ref().unwrap().containers[container]
        .image
        .clone()
        .unwrap_or_default()
}

/// A JobSet manifest with the given replicatedJobs (`name`, replicas, image).
pub fn jobset_yaml(name: &str, jobs: &[(&str, i32, &str)], extra_spec: &str) -> String {
    let mut yaml = format!(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: {name}\nspec:\n{extra_spec}  replicatedJobs:\n"
    );
    for (rj, replicas, image) in jobs {
        yaml.push_str(&format!(
            "  - name: {rj}\n    replicas: {replicas}\n    template:\n      spec:\n        template:\n          spec:\n            containers:\n            - name: main\n              image: {image}\n"
        ));
    }
    yaml
}
