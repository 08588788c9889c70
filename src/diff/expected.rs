//! The Job the JobSet controller would create now for a replicatedJob, as far as the
//! comparison needs it (`constructJob` upstream): the template's labels, annotations
//! and spec, plus the spec changes the controller makes. The labels and annotations it
//! injects are left out, because normalisation strips them from live Jobs too.
//!
//! Built in two steps so that one dry run serves every JobSet with the same template:
//! `probe_job` depends only on the template (what the API server defaults), and
//! `add_jobset_specifics` then adds what depends on the JobSet's name (no defaults apply).

use serde_json::{Map, Value, json};

use crate::model::jobset::{JobSet, ReplicatedJob, labels};

/// Prefix of the probe Job's generated name: the API server picks a unique suffix, so
/// a dry-run create can never collide with a real Job.
pub const PROBE_NAME_PREFIX: &str = "kubectl-jobset-probe-";

/// Stands in for the JobSet name in probes; normalisation strips the label.
const PROBE_JOBSET_NAME: &str = "kubectl-jobset-probe";

/// The Job to dry-run create for `rjob` (no name: `generateName`), independent of the
/// JobSet's name so that identical templates share one dry run.
pub fn probe_job(namespace: &str, suspended: bool, template: &Value) -> Value {
    let mut metadata = Map::new();
    metadata.insert("generateName".into(), json!(PROBE_NAME_PREFIX));
    metadata.insert("namespace".into(), json!(namespace));
    for key in ["labels", "annotations"] {
        if let Some(map) =
            template["metadata"].get(key).filter(|m| m.as_object().is_some_and(|o| !o.is_empty()))
        {
            metadata.insert(key.into(), map.clone());
        }
    }
    // The controller always labels the Job; an unlabelled probe would instead get its pod
    // template's labels copied onto it by Job defaulting. Normalisation strips this key.
    let labels = metadata.entry("labels").or_insert_with(|| json!({}));
    labels[labels::JOBSET_NAME] = json!(PROBE_JOBSET_NAME);
    let mut spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    // The controller always sets suspend from the JobSet; normalisation drops it, but the
    // probe must not start anything either way (it is a dry run).
    spec["suspend"] = json!(suspended);
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec})
}

/// Adds to a (defaulted) probe Job what the controller derives from the JobSet itself:
/// the DNS subdomain and the volume-claim-policy volumes.
pub fn add_jobset_specifics(jobset: &JobSet, job: &mut Value) {
    let pod_spec = &mut job["spec"]["template"]["spec"];
    if dns_hostnames_enabled(jobset) {
        pod_spec["subdomain"] = json!(subdomain(jobset));
    }
    add_volume_claim_volumes(jobset, pod_spec);
}

/// The expected Job without a server: probe plus JobSet specifics (tests, fallbacks).
pub fn expected_job(jobset: &JobSet, rjob: &ReplicatedJob) -> Value {
    let mut job = probe_job(jobset.namespace(), jobset.is_suspended(), &rjob.template);
    add_jobset_specifics(jobset, &mut job);
    job
}

fn dns_hostnames_enabled(jobset: &JobSet) -> bool {
    jobset.spec.network.as_ref().and_then(|n| n.enable_dns_hostnames).unwrap_or(false)
}

fn subdomain(jobset: &JobSet) -> String {
    let configured = jobset.spec.network.as_ref().and_then(|n| n.subdomain.as_deref());
    configured.filter(|s| !s.is_empty()).unwrap_or(jobset.name()).to_owned()
}

/// `addVolumes` upstream: a volumeClaimPolicies template mounted by a container becomes
/// a PVC volume named after the template, claiming `<template>-<jobset>`.
fn add_volume_claim_volumes(jobset: &JobSet, pod_spec: &mut Value) {
    let policies = &jobset.spec.volume_claim_policies;
    let mounted: Vec<String> = ["containers", "initContainers"]
        .iter()
        .filter_map(|k| pod_spec[*k].as_array())
        .flatten()
        .filter_map(|c| c["volumeMounts"].as_array())
        .flatten()
        .filter_map(|m| m["name"].as_str().map(str::to_owned))
        .collect();
    for template in policies.iter().flat_map(|p| &p.templates) {
        let Some(name) = template.metadata.name.as_deref() else { continue };
        if !mounted.iter().any(|m| m == name) {
            continue;
        }
        let volumes = pod_spec.as_object_mut().map(|o| o.entry("volumes").or_insert_with(|| json!([])));
        if let Some(Value::Array(volumes)) = volumes
            && !volumes.iter().any(|v| v["name"] == name)
        {
            volumes.push(json!({"name": name, "persistentVolumeClaim": {"claimName": format!("{name}-{}", jobset.name())}}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobset(spec_extra: Value) -> JobSet {
        let mut spec = json!({"replicatedJobs": [{"name": "w", "replicas": 2, "template": {
            "metadata": {"labels": {"team": "ml"}},
            "spec": {"parallelism": 2, "template": {"metadata": {"labels": {"app": "x"}}, "spec": {
                "containers": [{"name": "c", "image": "app:v1", "volumeMounts": [{"name": "data", "mountPath": "/d"}]}]}}}}}]});
        for (k, v) in spec_extra.as_object().unwrap() {
            spec[k] = v.clone();
        }
        JobSet::from_raw(json!({"metadata": {"name": "js", "namespace": "ml", "uid": "u"}, "spec": spec}))
            .unwrap()
    }

    #[test]
    fn probe_carries_template_metadata_and_spec_with_a_generated_name() {
        let js = jobset(json!({}));
        let probe = probe_job("ml", false, &js.spec.replicated_jobs[0].template);
        assert_eq!(
            probe["metadata"],
            json!({"generateName": PROBE_NAME_PREFIX, "namespace": "ml",
                "labels": {"team": "ml", "jobset.sigs.k8s.io/jobset-name": "kubectl-jobset-probe"}})
        );
        assert_eq!(probe["spec"]["parallelism"], 2);
        assert_eq!(probe["spec"]["suspend"], false);
        assert!(probe["spec"]["template"]["spec"].get("subdomain").is_none());
    }

    #[test]
    fn probes_do_not_depend_on_the_jobset_name() {
        let a = jobset(json!({"network": {"enableDNSHostnames": true}}));
        let mut b = a.clone();
        b.metadata.name = Some("other".into());
        b.raw["metadata"]["name"] = json!("other");
        let probe =
            |js: &JobSet| probe_job(js.namespace(), js.is_suspended(), &js.spec.replicated_jobs[0].template);
        assert_eq!(probe(&a), probe(&b));
    }

    #[test]
    fn dns_hostnames_set_the_subdomain() {
        let js = jobset(json!({"network": {"enableDNSHostnames": true}}));
        assert_eq!(
            expected_job(&js, &js.spec.replicated_jobs[0])["spec"]["template"]["spec"]["subdomain"],
            "js"
        );
        let js = jobset(json!({"network": {"enableDNSHostnames": true, "subdomain": "net"}}));
        assert_eq!(
            expected_job(&js, &js.spec.replicated_jobs[0])["spec"]["template"]["spec"]["subdomain"],
            "net"
        );
    }

    #[test]
    fn volume_claim_policies_add_pvc_volumes_for_mounted_templates() {
        let js = jobset(json!({"volumeClaimPolicies": [{"templates": [
            {"metadata": {"name": "data"}}, {"metadata": {"name": "unused"}}]}]}));
        let probe = expected_job(&js, &js.spec.replicated_jobs[0]);
        assert_eq!(
            probe["spec"]["template"]["spec"]["volumes"],
            json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-js"}}])
        );
    }
}
