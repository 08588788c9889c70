//! `kubectl jobset admission`: how the cluster treats JobSet template updates (upstream
//! strict, relaxed, or the opt-in), and with `--apply` the change that lets the JobSets
//! whose update strategy allows it (Opportunistic, Immediate) change templates on a stock
//! install: our policy first (deploy/stock-opt-in.yaml), then one guarded JSON patch of
//! upstream's webhook configuration. Three reads; at most three writes.

use std::io::Write;

use crate::cluster::Cluster;
use crate::cluster::guarded::{GuardedWrite, Verdict, WriteFailure, guarded};
use crate::error::Result;
use crate::execute::DryRun;
use crate::exit::ExitStatus;
use crate::plan::admission::{NEVER_POLICY, OPT_IN_POLICY, explain, opt_in_objects, opt_in_patch};

#[derive(Debug, Clone)]
pub struct AdmissionPlan {
    pub webhook_configuration: String,
    pub apply: bool,
    pub dry_run: DryRun,
}

pub async fn run(cluster: &Cluster, plan: &AdmissionPlan, out: &mut dyn Write) -> Result<ExitStatus> {
    let name = plan.webhook_configuration.as_str();
    let config = cluster.get_webhook_configuration(name).await?;
    let opt_in = cluster.policy_and_binding_exist(OPT_IN_POLICY).await?;
    let never = cluster.policy_and_binding_exist(NEVER_POLICY).await?;
    write!(out, "{}", explain(name, config.as_ref(), opt_in, never))?;
    let Some(config) = config else { return Ok(ExitStatus::Success) };
    let patch = opt_in_patch(&config);
    if !plan.apply {
        if let Some(patch) = &patch {
            writeln!(
                out,
                "to opt in (`{}` sends it, after creating policy {OPT_IN_POLICY}), the patch of \
                 validatingwebhookconfiguration/{name}:",
                crate::hint::kubectl_jobset("admission --apply", &cluster.namespace)
            )?;
            writeln!(out, "{}", serde_json::to_string_pretty(patch).unwrap_or_default())?;
        }
        return Ok(ExitStatus::Success);
    }
    let suffix = plan.dry_run.suffix();
    // The policy first: opted-in JobSets are never without its checks.
    if opt_in != (true, true) {
        for object in opt_in_objects() {
            let kind = object["kind"].as_str().unwrap_or_default().to_lowercase();
            let created = match plan.dry_run {
                DryRun::Client => true,
                dry_run => cluster.create_admission_object(&object, dry_run == DryRun::Server).await?,
            };
            let state = if created { "created" } else { "unchanged" };
            writeln!(out, "{kind}.admissionregistration.k8s.io/{OPT_IN_POLICY} {state}{suffix}")?;
        }
    }
    if patch.is_none() {
        writeln!(out, "validatingwebhookconfiguration/{name} unchanged: nothing to opt in")?;
        return Ok(ExitStatus::Success);
    }
    let mut write = WebhookPatch { cluster, plan, current: config, sent: false };
    let changed = guarded(&cluster.log, &mut write).await?;
    let state = if changed { "patched" } else { "unchanged" };
    writeln!(out, "validatingwebhookconfiguration.admissionregistration.k8s.io/{name} {state}{suffix}")?;
    Ok(ExitStatus::Success)
}

/// The webhook configuration's guarded patch, planned again from each re-read.
struct WebhookPatch<'a> {
    cluster: &'a Cluster,
    plan: &'a AdmissionPlan,
    current: k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration,
    sent: bool,
}

impl GuardedWrite for WebhookPatch<'_> {
    type Output = bool;

    fn what(&self) -> String {
        format!("the opt-in patch of validatingwebhookconfiguration/{}", self.plan.webhook_configuration)
    }

    async fn send(&mut self) -> Result<bool> {
        let Some(patch) = opt_in_patch(&self.current) else { return Ok(self.sent) };
        if self.plan.dry_run == DryRun::Client {
            return Ok(true);
        }
        self.sent = true;
        let server = self.plan.dry_run == DryRun::Server;
        self.cluster.patch_webhook_configuration(&self.plan.webhook_configuration, &patch, server).await?;
        Ok(true)
    }

    async fn reread(&mut self, _failure: WriteFailure) -> Result<Verdict<bool>> {
        let name = &self.plan.webhook_configuration;
        let Some(fresh) = self.cluster.get_webhook_configuration(name).await? else {
            return Ok(Verdict::Done(false));
        };
        if opt_in_patch(&fresh).is_none() {
            return Ok(Verdict::Done(true));
        }
        self.current = fresh;
        Ok(Verdict::SendAgain)
    }
}
