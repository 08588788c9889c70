//! The Job the JobSet controller would create now for a replicatedJob, as far as the
//! comparison needs it (`constructJob` upstream): the template's labels, annotations
//! and spec, plus what the controller adds. The labels and annotations it derives from
//! the Job's identity are left out, because normalisation strips them from live Jobs
//! too; the ones the user controls through the JobSet (coordinator, exclusive placement)
//! are added here and kept on both sides, so that changing them shows as drift.
//!
//! Built in two steps so that one dry run serves every JobSet with the same template:
//! `probe_job` depends only on the template and the JobSet's policies (what the API
//! server defaults and validates), and `add_jobset_specifics` then adds what depends on
//! the JobSet's name and annotations (no defaults apply to any of it).

use serde_json::{Map, Value, json};

use crate::model::jobset::{JobSet, VolumeClaimPolicy, labels};

/// Prefix of the probe Job's generated name: the API server picks a unique suffix, so
/// a dry-run create can never collide with a real Job.
pub const PROBE_NAME_PREFIX: &str = "kubectl-jobset-probe-";

/// Stands in for the JobSet name in probes; normalisation strips the label.
const PROBE_JOBSET_NAME: &str = "kubectl-jobset-probe";

/// The coordinator's endpoint, as a label and an annotation on Jobs and pod templates.
pub const COORDINATOR_KEY: &str = "jobset.sigs.k8s.io/coordinator";
/// Exclusive placement: the topology key, on the JobSet or a replicatedJob template.
pub const EXCLUSIVE_KEY: &str = "alpha.jobset.sigs.k8s.io/exclusive-topology";
/// Exclusive placement by node selector instead of affinities (with `EXCLUSIVE_KEY`).
pub const NODE_SELECTOR_STRATEGY_KEY: &str = "alpha.jobset.sigs.k8s.io/node-selector";
/// The node-selector strategy selects nodes labelled with `<namespace>_<job name>`.
pub const NAMESPACED_JOB_KEY: &str = "alpha.jobset.sigs.k8s.io/namespaced-job";
/// Its value, the same for every Job once normalised (it names the Job itself).
pub const NAMESPACED_JOB_VALUE: &str = "<namespace>_<job>";
/// The node-selector strategy tolerates this taint.
pub const NO_SCHEDULE_TAINT_KEY: &str = "alpha.jobset.sigs.k8s.io/no-schedule";

/// The Job to dry-run create for a replicatedJob `template` of `jobset` (no name:
/// `generateName`), independent of the JobSet's name so that identical templates share
/// one dry run. It carries the volumes of `volumeClaimPolicies`, claiming placeholder
/// names, since the API server rejects containers mounting a volume that is not there.
pub fn probe_job(jobset: &JobSet, template: &Value) -> Value {
    let mut metadata = Map::new();
    metadata.insert("generateName".into(), json!(PROBE_NAME_PREFIX));
    metadata.insert("namespace".into(), json!(jobset.namespace()));
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
    spec["suspend"] = json!(jobset.is_suspended());
    if !jobset.spec.volume_claim_policies.is_empty()
        && let Some(pod_spec) = spec.get_mut("template").and_then(|t| t.get_mut("spec"))
    {
        add_volume_claim_volumes(&jobset.spec.volume_claim_policies, PROBE_JOBSET_NAME, pod_spec);
    }
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec})
}

/// Adds to a (defaulted) probe Job what the controller derives from the JobSet itself:
/// the DNS subdomain, the claims of the volume-claim-policy volumes, the coordinator's
/// endpoint and exclusive placement (`constructJob` and `labelAndAnnotateObject`).
pub fn add_jobset_specifics(jobset: &JobSet, job: &mut Value) {
    let pod_spec = &mut job["spec"]["template"]["spec"];
    if dns_hostnames_enabled(jobset) {
        pod_spec["subdomain"] = json!(subdomain(jobset));
    }
    name_claims(jobset, pod_spec);
    let mut added = Map::new();
    if let Some(endpoint) = coordinator_endpoint(jobset) {
        added.insert(COORDINATOR_KEY.into(), json!(endpoint));
    }
    let coordinator_label = added.clone();
    // The replicatedJob template's annotations are the probe's own (copied from it).
    let template_annotations = job["metadata"]["annotations"].clone();
    let jobset_annotations = serde_json::to_value(&jobset.metadata.annotations).unwrap_or_default();
    for annotations in [&jobset_annotations, &template_annotations] {
        if let Some(topology) = annotations.get(EXCLUSIVE_KEY) {
            added.insert(EXCLUSIVE_KEY.into(), topology.clone());
            if let Some(strategy) = annotations.get(NODE_SELECTOR_STRATEGY_KEY) {
                added.insert(NODE_SELECTOR_STRATEGY_KEY.into(), strategy.clone());
            }
        }
    }
    if job["spec"]["template"]["metadata"].is_null() {
        job["spec"]["template"]["metadata"] = json!({});
    }
    for path in ["/metadata", "/spec/template/metadata"] {
        if let Some(metadata) = job.pointer_mut(path) {
            merge_into(metadata, "labels", &coordinator_label);
            merge_into(metadata, "annotations", &added);
        }
    }
    let job_annotations = &job["metadata"]["annotations"];
    if !job_annotations[EXCLUSIVE_KEY].is_null() && !job_annotations[NODE_SELECTOR_STRATEGY_KEY].is_null() {
        let pod_spec = &mut job["spec"]["template"]["spec"];
        merge_into(
            pod_spec,
            "nodeSelector",
            &Map::from_iter([(NAMESPACED_JOB_KEY.into(), json!(NAMESPACED_JOB_VALUE))]),
        );
        let toleration = json!({"key": NO_SCHEDULE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"});
        match pod_spec.get_mut("tolerations") {
            Some(Value::Array(tolerations)) => tolerations.push(toleration),
            _ => pod_spec["tolerations"] = json!([toleration]),
        }
    }
}

/// The expected Job without a server: probe plus JobSet specifics (tests, fallbacks).
pub fn expected_job(jobset: &JobSet, rjob: &crate::model::jobset::ReplicatedJob) -> Value {
    let mut job = probe_job(jobset, &rjob.template.value());
    add_jobset_specifics(jobset, &mut job);
    job
}

fn merge_into(object: &mut Value, key: &str, entries: &Map<String, Value>) {
    if entries.is_empty() {
        return;
    }
    if !object.is_object() {
        *object = json!({});
    }
    let target = &mut object[key];
    if !target.is_object() {
        *target = json!({});
    }
    if let Some(map) = target.as_object_mut() {
        map.extend(entries.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
}

fn dns_hostnames_enabled(jobset: &JobSet) -> bool {
    jobset.spec.network.as_ref().and_then(|n| n.enable_dns_hostnames).unwrap_or(false)
}

fn subdomain(jobset: &JobSet) -> String {
    let configured = jobset.spec.network.as_ref().and_then(|n| n.subdomain.as_deref());
    configured.filter(|s| !s.is_empty()).unwrap_or(jobset.name()).to_owned()
}

/// `CoordinatorEndpoint` upstream: `<jobset>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain>`.
fn coordinator_endpoint(jobset: &JobSet) -> Option<String> {
    let coordinator = jobset.spec.coordinator.as_ref()?;
    Some(format!(
        "{}-{}-{}-{}.{}",
        jobset.name(),
        coordinator.replicated_job,
        coordinator.job_index,
        coordinator.pod_index,
        subdomain(jobset)
    ))
}

fn claim_name(template: &str, jobset: &str) -> String {
    format!("{template}-{jobset}")
}

/// `addVolumes` upstream: every volumeClaimPolicies template that a container or init
/// container mounts is appended as a PVC volume named after the template, claiming
/// `<template>-<jobset>` (appended even when the template already has a volume of that
/// name, which the API server then rejects, as it would the controller's Job).
fn add_volume_claim_volumes(policies: &[VolumeClaimPolicy], jobset_name: &str, pod_spec: &mut Value) {
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
        let volume =
            json!({"name": name, "persistentVolumeClaim": {"claimName": claim_name(name, jobset_name)}});
        match pod_spec.get_mut("volumes") {
            Some(Value::Array(volumes)) => volumes.push(volume),
            _ => pod_spec["volumes"] = json!([volume]),
        }
    }
}

/// Puts the JobSet's name into the probe's placeholder claims.
fn name_claims(jobset: &JobSet, pod_spec: &mut Value) {
    let Some(Value::Array(volumes)) = pod_spec.get_mut("volumes") else { return };
    for template in jobset.spec.volume_claim_policies.iter().flat_map(|p| &p.templates) {
        let Some(name) = template.metadata.name.as_deref() else { continue };
        let placeholder = claim_name(name, PROBE_JOBSET_NAME);
        for volume in volumes.iter_mut().filter(|v| v["name"] == name) {
            let claim = &mut volume["persistentVolumeClaim"]["claimName"];
            if *claim == placeholder {
                *claim = json!(claim_name(name, jobset.name()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    fn jobset(spec_extra: Value) -> JobSet {
        let template = json!({"metadata": {"labels": {"team": "ml"}},
            "spec": {"parallelism": 2, "template": {"metadata": {"labels": {"app": "x"}}, "spec": {
                "containers": [{"name": "c", "image": "app:v1", "volumeMounts": [{"name": "data", "mountPath": "/d"}]}]}}}});
        testing::jobset("js")
            .namespace("ml")
            .uid("u")
            .replicated_job("w", 2, template)
            .spec_fields(spec_extra)
            .build()
    }

    #[test]
    fn probe_carries_template_metadata_and_spec_with_a_generated_name() {
        let js = jobset(json!({}));
        let probe = probe_job(&js, &js.spec.replicated_jobs[0].template.value());
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
        b.edit_raw(|raw| raw["metadata"]["name"] = json!("other"));
        let probe = |js: &JobSet| probe_job(js, &js.spec.replicated_jobs[0].template.value());
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
        // The probe the API server validates already mounts a volume (else it answers
        // "volumeMounts[0].name: Not found"), under a name-independent claim.
        let probe = probe_job(&js, &js.spec.replicated_jobs[0].template.value());
        assert_eq!(
            probe["spec"]["template"]["spec"]["volumes"],
            json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-kubectl-jobset-probe"}}])
        );
        let job = expected_job(&js, &js.spec.replicated_jobs[0]);
        assert_eq!(
            job["spec"]["template"]["spec"]["volumes"],
            json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-js"}}])
        );
    }

    /// A live Job as the controller builds it from `js` (identity keys included), normalised.
    fn live(js: &JobSet, job_name: &str, extra_pod_spec: Value) -> crate::diff::normalize::Normalized {
        let mut job = expected_job(js, &js.spec.replicated_jobs[0]);
        job["metadata"]["labels"]["jobset.sigs.k8s.io/job-index"] = json!("0");
        job["metadata"]["annotations"]["jobset.sigs.k8s.io/job-key"] = json!("abc");
        let pod = &mut job["spec"]["template"]["spec"];
        for (k, v) in extra_pod_spec.as_object().unwrap() {
            pod[k] = v.clone();
        }
        if pod["nodeSelector"]["alpha.jobset.sigs.k8s.io/namespaced-job"].is_string() {
            pod["nodeSelector"]["alpha.jobset.sigs.k8s.io/namespaced-job"] = json!(format!("ml_{job_name}"));
        }
        crate::diff::normalize::normalize(&job)
    }

    fn expected(js: &JobSet) -> crate::diff::normalize::Normalized {
        crate::diff::normalize::normalize(&expected_job(js, &js.spec.replicated_jobs[0]))
    }

    #[test]
    fn coordinator_and_exclusive_placement_are_compared_not_stripped() {
        let plain = jobset(json!({}));
        let with = |spec: Value, annotations: Value| {
            let mut js = jobset(spec);
            js.edit_raw(|raw| raw["metadata"]["annotations"] = annotations);
            js
        };
        let coordinator =
            with(json!({"coordinator": {"replicatedJob": "w", "jobIndex": 0, "podIndex": 1}}), json!(null));
        let n = expected(&coordinator);
        assert_eq!(n.template["metadata"]["labels"][COORDINATOR_KEY], "js-w-0-1.js");
        assert_eq!(n.template["spec"]["template"]["metadata"]["annotations"][COORDINATOR_KEY], "js-w-0-1.js");
        let exclusive = with(json!({}), json!({EXCLUSIVE_KEY: "rack"}));
        let n = expected(&exclusive);
        assert_eq!(n.template["metadata"]["annotations"][EXCLUSIVE_KEY], "rack");
        assert_eq!(n.template["spec"]["template"]["metadata"]["annotations"][EXCLUSIVE_KEY], "rack");
        assert!(n.template["spec"]["template"]["spec"].get("nodeSelector").is_none());
        let strategy = with(json!({}), json!({EXCLUSIVE_KEY: "rack", NODE_SELECTOR_STRATEGY_KEY: "true"}));
        let n = expected(&strategy);
        assert_eq!(
            n.template["spec"]["template"]["spec"]["nodeSelector"][NAMESPACED_JOB_KEY],
            NAMESPACED_JOB_VALUE
        );
        assert_eq!(
            n.template["spec"]["template"]["spec"]["tolerations"],
            json!([{"key": NO_SCHEDULE_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}])
        );
        // Each live Job built from its JobSet matches it; a Job built without the feature
        // (added or changed since) does not.
        for js in [&plain, &coordinator, &exclusive, &strategy] {
            assert_eq!(live(js, "js-w-0", json!({})), expected(js));
        }
        assert_ne!(live(&plain, "js-w-0", json!({})), expected(&coordinator));
        assert_ne!(live(&plain, "js-w-0", json!({})), expected(&exclusive));
        assert_ne!(live(&exclusive, "js-w-0", json!({})), expected(&strategy));
        let other_rack = with(json!({}), json!({EXCLUSIVE_KEY: "zone"}));
        assert_ne!(live(&exclusive, "js-w-0", json!({})), expected(&other_rack));
    }

    #[test]
    fn a_replicated_job_template_annotation_wins_over_the_jobset_one() {
        let mut js = jobset(json!({}));
        js.edit_raw(|raw| raw["metadata"]["annotations"] = json!({EXCLUSIVE_KEY: "rack"}));
        js.spec.replicated_jobs[0].template.edit(|t| {
            t["metadata"]["annotations"] = json!({EXCLUSIVE_KEY: "zone", NODE_SELECTOR_STRATEGY_KEY: "true"})
        });
        let n = expected(&js);
        assert_eq!(n.template["spec"]["template"]["metadata"]["annotations"][EXCLUSIVE_KEY], "zone");
        assert_eq!(
            n.template["spec"]["template"]["spec"]["nodeSelector"][NAMESPACED_JOB_KEY],
            NAMESPACED_JOB_VALUE
        );
    }
}
