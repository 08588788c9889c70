//! The admission objects `admission` reads and writes: upstream's JobSet validating
//! webhook configuration, and our ValidatingAdmissionPolicies and their bindings.

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration,
};
use kube::Api;
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::Value;

use super::Cluster;
use super::api::FIELD_MANAGER;
use crate::error::{Error, Op, Result};

pub const WEBHOOKS_RESOURCE: &str = "validatingwebhookconfigurations.admissionregistration.k8s.io";
pub const POLICIES_RESOURCE: &str = "validatingadmissionpolicies.admissionregistration.k8s.io";
pub const BINDINGS_RESOURCE: &str = "validatingadmissionpolicybindings.admissionregistration.k8s.io";

impl Cluster {
    /// The webhook configuration `name`; None when there is none.
    pub async fn get_webhook_configuration(
        &self,
        name: &str,
    ) -> Result<Option<ValidatingWebhookConfiguration>> {
        let op = Op::new("get", WEBHOOKS_RESOURCE, None).named(name);
        let api: Api<ValidatingWebhookConfiguration> = Api::all(self.client.clone());
        absent_is_none(api.get(name).await.map_err(|e| self.errors.classify(op, e)))
    }

    /// A JSON patch of the webhook configuration `name`, with our field manager.
    pub async fn patch_webhook_configuration(
        &self,
        name: &str,
        patch: &json_patch::Patch,
        dry_run: bool,
    ) -> Result<ValidatingWebhookConfiguration> {
        let op = Op::new("patch", WEBHOOKS_RESOURCE, None).named(name);
        let api: Api<ValidatingWebhookConfiguration> = Api::all(self.client.clone());
        let params =
            PatchParams { dry_run, field_manager: Some(FIELD_MANAGER.to_owned()), ..Default::default() };
        api.patch(name, &params, &Patch::Json::<()>(patch.clone()))
            .await
            .map_err(|e| self.errors.classify(op, e))
    }

    /// Whether the ValidatingAdmissionPolicy `name` and its binding of the same name exist.
    pub async fn policy_and_binding_exist(&self, name: &str) -> Result<(bool, bool)> {
        let policies: Api<ValidatingAdmissionPolicy> = Api::all(self.client.clone());
        let op = Op::new("get", POLICIES_RESOURCE, None).named(name);
        let policy = absent_is_none(policies.get(name).await.map_err(|e| self.errors.classify(op, e)))?;
        let bindings: Api<ValidatingAdmissionPolicyBinding> = Api::all(self.client.clone());
        let op = Op::new("get", BINDINGS_RESOURCE, None).named(name);
        let binding = absent_is_none(bindings.get(name).await.map_err(|e| self.errors.classify(op, e)))?;
        Ok((policy.is_some(), binding.is_some()))
    }

    /// Creates a policy or binding (by its kind); an existing one is left as it is (false).
    pub async fn create_admission_object(&self, object: &Value, dry_run: bool) -> Result<bool> {
        let params = PostParams { dry_run, field_manager: Some(FIELD_MANAGER.to_owned()) };
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let created = match object["kind"].as_str() {
            Some("ValidatingAdmissionPolicyBinding") => {
                let op = Op::new("create", BINDINGS_RESOURCE, None).named(name);
                let typed: ValidatingAdmissionPolicyBinding =
                    serde_json::from_value(object.clone()).map_err(|e| Error::decode("the binding", e))?;
                let api: Api<ValidatingAdmissionPolicyBinding> = Api::all(self.client.clone());
                api.create(&params, &typed).await.map(|_| ()).map_err(|e| (op, e))
            }
            _ => {
                let op = Op::new("create", POLICIES_RESOURCE, None).named(name);
                let typed: ValidatingAdmissionPolicy =
                    serde_json::from_value(object.clone()).map_err(|e| Error::decode("the policy", e))?;
                let api: Api<ValidatingAdmissionPolicy> = Api::all(self.client.clone());
                api.create(&params, &typed).await.map(|_| ()).map_err(|e| (op, e))
            }
        };
        match created {
            Ok(()) => Ok(true),
            Err((_, kube::Error::Api(status))) if status.code == 409 => Ok(false),
            Err((op, e)) => Err(self.errors.classify(op, e)),
        }
    }
}

fn absent_is_none<T>(got: Result<T>) -> Result<Option<T>> {
    match got {
        Ok(object) => Ok(Some(object)),
        Err(Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}
