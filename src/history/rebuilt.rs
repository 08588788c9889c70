//! Templates rebuilt from running Jobs, when nobody recorded the one they were created
//! from. A live Job carries what the JobSet controller put into it beside the template;
//! a rebuilt template is cleaned of that before it is recorded, so that rolling back to
//! it never writes controller-made content into the spec.
//!
//! What the controller (v0.12.0, `constructJob`) adds to a Job beyond the template:
//! its labels and annotations under `jobset.sigs.k8s.io/` and
//! `alpha.jobset.sigs.k8s.io/` and the exclusive-placement nodeSelector and toleration
//! (both already dropped by the diff engine's normalisation, which a rebuilt template
//! goes through), `spec.suspend` (dropped there too), the pod `subdomain` when
//! `network.enableDNSHostnames` is on, and a PVC volume per `volumeClaimPolicies`
//! template a container mounts. The last two are removed here, and so are the
//! exclusive-placement annotations when they come from the JobSet's own annotations.

use serde_json::Value;

use super::Revision;
use crate::model::jobset::JobSet;

/// Annotation on a revision rebuilt from running Jobs: `true` once the template was
/// cleaned of what the controller injects (every rebuilt revision since this was added).
pub const CLEANED_ANNOTATION: &str = "kubectl-jobset.io/cleaned";
pub const SOURCE: &str = "running-jobs";

/// A rebuilt Job template without the subdomain and volumes the controller adds, nor
/// the exclusive-placement annotations it copies from the JobSet's own (in the template
/// they would pin today's value, and a later change of the JobSet's would never show).
pub fn clean(jobset: &JobSet, mut template: Value) -> Value {
    use crate::diff::expected::{EXCLUSIVE_KEY, NODE_SELECTOR_STRATEGY_KEY};
    if !jobset.raw()["metadata"]["annotations"][EXCLUSIVE_KEY].is_null() {
        for path in ["/metadata/annotations", "/spec/template/metadata/annotations"] {
            if let Some(Value::Object(annotations)) = template.pointer_mut(path) {
                annotations.remove(EXCLUSIVE_KEY);
                annotations.remove(NODE_SELECTOR_STRATEGY_KEY);
            }
        }
        crate::diff::normalize::prune_empty(&mut template);
    }
    let Some(pod) = template.pointer_mut("/spec/template/spec").and_then(Value::as_object_mut) else {
        return template;
    };
    let network = jobset.spec.network.as_ref();
    if network.and_then(|n| n.enable_dns_hostnames).unwrap_or(false) {
        let configured = network.and_then(|n| n.subdomain.as_deref()).filter(|s| !s.is_empty());
        let injected = configured.unwrap_or(jobset.name());
        if pod.get("subdomain").and_then(Value::as_str) == Some(injected) {
            pod.remove("subdomain");
        }
    }
    let claims: Vec<&str> = jobset
        .spec
        .volume_claim_policies
        .iter()
        .flat_map(|p| &p.templates)
        .filter_map(|t| t.metadata.name.as_deref())
        .collect();
    if let Some(Value::Array(volumes)) = pod.get_mut("volumes") {
        volumes.retain(|v| {
            let name = v["name"].as_str().unwrap_or_default();
            let claim = v["persistentVolumeClaim"]["claimName"].as_str();
            !(claims.contains(&name) && claim == Some(&format!("{name}-{}", jobset.name())))
        });
        if volumes.is_empty() {
            pod.remove("volumes");
        }
    }
    template
}

/// Why rolling back to `revision` is refused, if it is: a template rebuilt from running
/// Jobs that was never cleaned (recorded by an older kubectl-jobset).
pub fn rollback_refusal(jobset: &JobSet, revision: &Revision) -> Option<String> {
    (revision.source == SOURCE && !revision.cleaned).then(|| {
        format!(
            "revision {} was rebuilt from running Jobs and still holds what the JobSet controller put into \
             them (its labels and annotations, the pod subdomain, volumes from volumeClaimPolicies); rolling \
             back would write that into the spec. Roll back to a revision recorded from the spec (source \
             spec), or put the template back by hand (`{}` prints it)",
            revision.number,
            crate::hint::kubectl_jobset(
                &format!("history {} --revision {}", jobset.name(), revision.number),
                jobset.namespace()
            )
        )
    })
}
