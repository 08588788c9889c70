//! How a cluster treats JobSet template updates, and the change that opts in the JobSets
//! whose update strategy allows them (Opportunistic, Immediate) on a stock install,
//! without I/O: from upstream's validating webhook configuration and whether our
//! policies exist, the words `admission` says and the guarded patch it sends.

use std::fmt::Write as _;

use k8s_openapi::api::admissionregistration::v1::{RuleWithOperations, ValidatingWebhookConfiguration};
use serde_json::{Value, json};

use crate::model::patch::{add, pointer, test, test_resource_version};

/// Upstream's validating webhook configuration (its release manifests and Helm chart).
pub const WEBHOOK_CONFIGURATION: &str = "jobset-validating-webhook-configuration";
/// Our matchConditions entry on it.
pub const CONDITION_NAME: &str = "kubectl-jobset-update-strategy-opt-in";
/// True (the webhook is called) for everything but UPDATEs of opted-in JobSets, judged by
/// the old object: an edit that adds the annotation is still checked.
pub const CONDITION_EXPRESSION: &str = "request.operation != 'UPDATE' || !has(oldObject.metadata.annotations) \
     || !('kubectl-jobset.io/update-strategy' in oldObject.metadata.annotations) \
     || !(oldObject.metadata.annotations['kubectl-jobset.io/update-strategy'] in ['Opportunistic', 'Immediate'])";
/// The policy (and binding) that keeps for opted-in JobSets what the webhook still checks.
pub const OPT_IN_POLICY: &str = "kubectl-jobset-opt-in";
/// The policy (and binding) that refuses template changes of Never JobSets.
pub const NEVER_POLICY: &str = "kubectl-jobset-update-strategy";
/// deploy/stock-opt-in.yaml: the opt-in policy and its binding.
pub const OPT_IN_MANIFEST: &str = include_str!("../../deploy/stock-opt-in.yaml");

/// A webhook of the configuration that checks JobSet UPDATEs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateCheck {
    pub index: usize,
    pub name: String,
    /// Our matchConditions entry is there.
    pub opted_in: bool,
    /// Other matchConditions, a namespaceSelector or an objectSelector narrow it.
    pub narrowed: bool,
}

/// How template updates of JobSets are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Treatment {
    /// No webhook checks JobSet UPDATEs: every JobSet's templates may change.
    Relaxed,
    /// Upstream's check applies to every JobSet (where its selectors say).
    Strict,
    /// Opted-in JobSets skip it; the others are checked as upstream.
    OptIn,
    /// Some of the checking webhooks carry the opt-in, others not.
    Partial,
}

fn covers_jobset_updates(rule: &RuleWithOperations) -> bool {
    let any = |list: &Option<Vec<String>>, wanted: &[&str]| {
        list.as_deref().unwrap_or_default().iter().any(|v| wanted.contains(&v.as_str()))
    };
    any(&rule.operations, &["UPDATE", "*"])
        && any(&rule.api_groups, &["jobset.x-k8s.io", "*"])
        && any(&rule.resources, &["jobsets", "*", "*/*"])
}

/// The configuration's webhooks that check JobSet UPDATEs.
pub fn update_checks(config: &ValidatingWebhookConfiguration) -> Vec<UpdateCheck> {
    let webhooks = config.webhooks.as_deref().unwrap_or_default();
    webhooks
        .iter()
        .enumerate()
        .filter(|(_, w)| w.rules.as_deref().unwrap_or_default().iter().any(covers_jobset_updates))
        .map(|(index, w)| {
            let conditions = w.match_conditions.as_deref().unwrap_or_default();
            let opted_in = conditions.iter().any(|c| c.name == CONDITION_NAME);
            let selects = |s: &Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>| {
                s.as_ref().is_some_and(|s| {
                    s.match_labels.as_ref().is_some_and(|l| !l.is_empty())
                        || s.match_expressions.as_ref().is_some_and(|e| !e.is_empty())
                })
            };
            let narrowed = conditions.iter().any(|c| c.name != CONDITION_NAME)
                || selects(&w.namespace_selector)
                || selects(&w.object_selector);
            UpdateCheck { index, name: w.name.clone(), opted_in, narrowed }
        })
        .collect()
}

pub fn treatment(checks: &[UpdateCheck]) -> Treatment {
    match (checks.iter().filter(|c| c.opted_in).count(), checks.len()) {
        (_, 0) => Treatment::Relaxed,
        (0, _) => Treatment::Strict,
        (n, total) if n == total => Treatment::OptIn,
        _ => Treatment::Partial,
    }
}

/// What `admission` says about the cluster: the treatment and what is missing.
pub fn explain(
    config_name: &str,
    config: Option<&ValidatingWebhookConfiguration>,
    opt_in_policy: (bool, bool),
    never_policy: (bool, bool),
) -> String {
    let mut text = String::new();
    let checks = config.map(update_checks).unwrap_or_default();
    let names = || checks.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ");
    let narrowed = if checks.iter().any(|c| c.narrowed) {
        " (only where its namespaceSelector, objectSelector or other matchConditions send requests)"
    } else {
        ""
    };
    let _ = match (config, treatment(&checks)) {
        (None, _) => writeln!(
            text,
            "relaxed: no ValidatingWebhookConfiguration {config_name}: nothing refuses JobSet template updates \
             (is upstream's JobSet webhook registered under another name? pass --webhook-configuration)"
        ),
        (Some(_), Treatment::Relaxed) => writeln!(
            text,
            "relaxed: {config_name} checks no JobSet UPDATE: every JobSet's templates may change"
        ),
        (Some(_), Treatment::Strict) => writeln!(
            text,
            "upstream strict: {} in {config_name} refuses every template change{narrowed}; no JobSet may change \
             its templates, whatever its update strategy",
            names()
        ),
        (Some(_), Treatment::OptIn) => writeln!(
            text,
            "opt-in: {} in {config_name} skips UPDATEs of JobSets whose update strategy is Opportunistic or \
             Immediate; every other JobSet is as strict as upstream{narrowed}",
            names()
        ),
        (Some(_), Treatment::Partial) => writeln!(
            text,
            "partly opted in: of {}, only {} carry the opt-in: opted-in JobSets are still refused by the others",
            names(),
            checks.iter().filter(|c| c.opted_in).map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
        ),
    };
    let opted = matches!(treatment(&checks), Treatment::OptIn | Treatment::Partial) && config.is_some();
    let _ = match opt_in_policy {
        (true, true) => writeln!(
            text,
            "policy {OPT_IN_POLICY}: present (keeps managedBy, replicatedJob names, order and replicas, and the \
             elastic rules for opted-in JobSets)"
        ),
        _ if opted => writeln!(
            text,
            "warning: policy {OPT_IN_POLICY} or its binding is missing: opted-in JobSets skip upstream's webhook \
             with nothing keeping managedBy, names and replicas; apply deploy/stock-opt-in.yaml"
        ),
        _ => writeln!(text, "policy {OPT_IN_POLICY}: not installed"),
    };
    let _ = match never_policy {
        (true, true) => {
            writeln!(text, "policy {NEVER_POLICY}: present (Never JobSets' templates are refused)")
        }
        _ => writeln!(
            text,
            "policy {NEVER_POLICY}: not installed (deploy/update-strategies.yaml): Never is enforced only by \
             upstream's webhook, and invalid annotation values are not refused"
        ),
    };
    text
}

/// Our matchConditions entry.
pub fn condition() -> Value {
    json!({"name": CONDITION_NAME, "expression": CONDITION_EXPRESSION})
}

/// The guarded JSON patch that adds our matchConditions entry to every checking webhook
/// without it (the resourceVersion and each webhook's name are tested); None when there
/// is nothing to add.
pub fn opt_in_patch(config: &ValidatingWebhookConfiguration) -> Option<json_patch::Patch> {
    let missing: Vec<UpdateCheck> = update_checks(config).into_iter().filter(|c| !c.opted_in).collect();
    if missing.is_empty() {
        return None;
    }
    let mut ops = vec![test_resource_version(config.metadata.resource_version.clone())];
    let webhooks = config.webhooks.as_deref().unwrap_or_default();
    for check in missing {
        let i = check.index.to_string();
        ops.push(test(pointer(&["webhooks", &i, "name"]), check.name.as_str()));
        match webhooks[check.index].match_conditions.as_ref() {
            Some(_) => ops.push(add(pointer(&["webhooks", &i, "matchConditions", "-"]), condition())),
            None => ops.push(add(pointer(&["webhooks", &i, "matchConditions"]), json!([condition()]))),
        }
    }
    Some(json_patch::Patch(ops))
}

/// The objects of deploy/stock-opt-in.yaml (the policy, then its binding).
pub fn opt_in_objects() -> Vec<Value> {
    OPT_IN_MANIFEST
        .split("\n---\n")
        .filter_map(|doc| serde_saphyr::from_str::<Value>(doc).ok())
        .filter(|v| v.is_object())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(webhooks: Value) -> ValidatingWebhookConfiguration {
        serde_json::from_value(json!({"metadata": {"name": WEBHOOK_CONFIGURATION, "resourceVersion": "9"},
            "webhooks": webhooks}))
        .unwrap()
    }

    fn webhook(name: &str, ops: &[&str], resource: &str) -> Value {
        json!({"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
            "clientConfig": {"url": "https://127.0.0.1/validate"},
            "rules": [{"apiGroups": ["jobset.x-k8s.io"], "apiVersions": ["v1alpha2"], "operations": ops,
                "resources": [resource]}]})
    }

    fn stock() -> ValidatingWebhookConfiguration {
        config(json!([
            webhook("vjobset.kb.io", &["CREATE", "UPDATE"], "jobsets"),
            webhook("vpod.kb.io", &["CREATE"], "pods")
        ]))
    }

    #[test]
    fn a_stock_install_is_strict_and_the_patch_adds_the_condition_to_its_update_webhook_only() {
        let c = stock();
        let checks = update_checks(&c);
        assert_eq!(checks.len(), 1);
        assert_eq!(treatment(&checks), Treatment::Strict);
        let ops = serde_json::to_value(opt_in_patch(&c).unwrap()).unwrap();
        assert_eq!(
            ops,
            json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": "9"},
                {"op": "test", "path": "/webhooks/0/name", "value": "vjobset.kb.io"},
                {"op": "add", "path": "/webhooks/0/matchConditions", "value": [condition()]}
            ])
        );
        let text = explain(WEBHOOK_CONFIGURATION, Some(&c), (false, false), (false, false));
        assert!(
            text.starts_with("upstream strict: vjobset.kb.io in jobset-validating-webhook-configuration"),
            "{text}"
        );
    }

    #[test]
    fn after_the_patch_it_is_opted_in_and_there_is_nothing_more_to_send() {
        let mut hook = webhook("vjobset.kb.io", &["CREATE", "UPDATE"], "jobsets");
        hook["matchConditions"] = json!([{"name": "theirs", "expression": "true"}, condition()]);
        let c = config(json!([hook]));
        assert_eq!(treatment(&update_checks(&c)), Treatment::OptIn);
        assert_eq!(opt_in_patch(&c), None);
        let text = explain(WEBHOOK_CONFIGURATION, Some(&c), (true, true), (true, true));
        assert!(text.starts_with("opt-in: vjobset.kb.io"), "{text}");
        assert!(text.contains("other matchConditions"), "narrowed by their own condition: {text}");
        let text = explain(WEBHOOK_CONFIGURATION, Some(&c), (false, false), (true, true));
        assert!(text.contains("warning: policy kubectl-jobset-opt-in or its binding is missing"), "{text}");
    }

    #[test]
    fn existing_conditions_are_kept_and_ours_is_appended() {
        let mut hook = webhook("vjobset-update.kb.io", &["UPDATE"], "*");
        hook["matchConditions"] = json!([{"name": "theirs", "expression": "true"}]);
        let c = config(json!([webhook("vjobset.kb.io", &["CREATE"], "jobsets"), hook]));
        let ops = serde_json::to_value(opt_in_patch(&c).unwrap()).unwrap();
        assert_eq!(
            ops[1],
            json!({"op": "test", "path": "/webhooks/1/name", "value": "vjobset-update.kb.io"})
        );
        assert_eq!(ops[2]["path"], "/webhooks/1/matchConditions/-");
    }

    #[test]
    fn no_update_check_is_relaxed_and_a_missing_configuration_says_so() {
        let c = config(json!([webhook("vjobset.kb.io", &["CREATE"], "jobsets")]));
        assert_eq!(treatment(&update_checks(&c)), Treatment::Relaxed);
        assert_eq!(opt_in_patch(&c), None);
        let text = explain(WEBHOOK_CONFIGURATION, None, (false, false), (false, false));
        assert!(text.starts_with("relaxed: no ValidatingWebhookConfiguration"), "{text}");
        assert!(text.contains("not installed (deploy/update-strategies.yaml)"), "{text}");
    }

    #[test]
    fn partly_opted_in_is_named() {
        let mut opted = webhook("a", &["UPDATE"], "jobsets");
        opted["matchConditions"] = json!([condition()]);
        let c = config(json!([opted, webhook("b", &["UPDATE"], "jobsets")]));
        assert_eq!(treatment(&update_checks(&c)), Treatment::Partial);
        let ops = serde_json::to_value(opt_in_patch(&c).unwrap()).unwrap();
        assert_eq!(ops.as_array().unwrap().len(), 3, "only b: {ops}");
    }

    #[test]
    fn the_shipped_manifest_holds_the_policy_and_its_binding() {
        let objects = opt_in_objects();
        let kinds: Vec<&str> = objects.iter().map(|o| o["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]);
        assert!(objects.iter().all(|o| o["metadata"]["name"] == OPT_IN_POLICY));
        assert!(OPT_IN_MANIFEST.contains(CONDITION_NAME), "the manifest documents the same condition");
    }
}
