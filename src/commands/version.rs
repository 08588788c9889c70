//! `kubectl jobset version`: the plugin's version, and what the cluster runs: Kubernetes,
//! the JobSet API and controller, Kueue, and the recorder (from its Lease). Reads only;
//! a part it cannot read (not installed, not allowed) is said, never an error.

use std::io::Write;

use serde::Serialize;

use crate::cluster::Cluster;
use crate::error::Result;
use crate::exit::ExitStatus;
use crate::render::{self, Format};

#[derive(Debug, Clone)]
pub struct VersionPlan {
    /// `--client`: the plugin only; no cluster is contacted.
    pub client_only: bool,
    /// `-o json|yaml`; None for lines.
    pub format: Option<Format>,
}

/// Where the JobSet controller usually runs (its release manifests).
const CONTROLLER_NAMESPACE: &str = "jobset-system";
const CONTROLLER_DEPLOYMENT: &str = "jobset-controller-manager";

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Versions {
    pub client_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kubernetes_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobset_api: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobset_controller: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kueue_api: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorder: Option<String>,
}

pub fn client_version() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

pub async fn run(cluster: Option<&Cluster>, plan: &VersionPlan, out: &mut dyn Write) -> Result<ExitStatus> {
    let mut versions = Versions { client_version: client_version(), ..Default::default() };
    if let Some(cluster) = cluster.filter(|_| !plan.client_only) {
        match read(cluster, versions).await {
            Ok(read) => versions = read,
            // As kubectl version: the client's line, then why the server could not be asked.
            Err(e) => {
                writeln!(out, "Client Version: {}", client_version())?;
                return Err(e);
            }
        }
    }
    match plan.format {
        Some(format @ (Format::Json | Format::Yaml)) => render::write_structured(out, format, &versions)?,
        _ => write_lines(out, &versions, plan.client_only)?,
    }
    Ok(ExitStatus::Success)
}

/// Everything but the client's, read concurrently (one request each); an error only when
/// the API server itself cannot be asked.
async fn read(cluster: &Cluster, versions: Versions) -> Result<Versions> {
    let lease_namespace = crate::presence::lease_namespace();
    let (kubernetes, groups, controller, lease) = tokio::join!(
        cluster.client.apiserver_version(),
        cluster.client.list_api_groups(),
        controller_image(cluster),
        cluster.get_lease(&lease_namespace, crate::presence::LEASE_NAME),
    );
    let served = |group: &str| -> Option<String> {
        let groups = groups.as_ref().ok()?;
        let found = groups.groups.iter().find(|g| g.name == group);
        Some(match found {
            Some(g) => g.versions.iter().map(|v| v.group_version.clone()).collect::<Vec<_>>().join(", "),
            None => "not served".to_owned(),
        })
    };
    let recorder = match lease {
        Ok(lease) => recorder_words(&lease),
        Err(crate::error::Error::NotFound { .. }) => "not running (no Lease)".to_owned(),
        Err(e) => format!("unknown ({e})"),
    };
    let op = crate::error::Op::new("get", "version", None);
    let kubernetes = kubernetes.map_err(|e| cluster.errors.classify(op, e))?;
    Ok(Versions {
        kubernetes_version: Some(kubernetes.git_version),
        jobset_api: served(crate::model::jobset::API_GROUP),
        jobset_controller: Some(controller),
        kueue_api: served(crate::model::kueue::GROUP),
        recorder: Some(recorder),
        ..versions
    })
}

/// The JobSet controller's image tag, from its Deployment where the release manifests put it.
async fn controller_image(cluster: &Cluster) -> String {
    let api: kube::Api<k8s_openapi::api::apps::v1::Deployment> =
        kube::Api::namespaced(cluster.client.clone(), CONTROLLER_NAMESPACE);
    match api.get_opt(CONTROLLER_DEPLOYMENT).await {
        Ok(Some(deployment)) => {
            let image = deployment
                .spec
                .and_then(|s| s.template.spec)
                .and_then(|p| p.containers.into_iter().find(|c| c.name == "manager"))
                .and_then(|c| c.image)
                .unwrap_or_default();
            let tag = image.rsplit_once(':').map(|(_, t)| t.to_owned()).unwrap_or(image);
            format!("{tag} (deployment {CONTROLLER_NAMESPACE}/{CONTROLLER_DEPLOYMENT})")
        }
        Ok(None) => format!("unknown (no deployment {CONTROLLER_NAMESPACE}/{CONTROLLER_DEPLOYMENT})"),
        Err(kube::Error::Api(status)) if status.code == 403 => {
            format!("unknown (not allowed to read deployment {CONTROLLER_NAMESPACE}/{CONTROLLER_DEPLOYMENT})")
        }
        Err(e) => format!("unknown ({e})"),
    }
}

/// `v0.1.0, held by NAME (fresh)` from the recorder's Lease.
fn recorder_words(lease: &k8s_openapi::api::coordination::v1::Lease) -> String {
    let version = lease
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(crate::presence::VERSION_ANNOTATION))
        .map(|v| format!("v{v}"))
        .unwrap_or_else(|| "unknown version".into());
    let holder = lease.spec.as_ref().and_then(|s| s.holder_identity.clone()).filter(|h| !h.is_empty());
    let fresh = crate::presence::presence(lease, jiff::Timestamp::now()).is_some();
    match (holder, fresh) {
        (Some(holder), true) => format!("{version}, running ({holder} holds its Lease)"),
        (Some(holder), false) => {
            format!("{version}, not running (its Lease, last held by {holder}, expired)")
        }
        (None, _) => "not running (its Lease is released)".to_owned(),
    }
}

fn write_lines(out: &mut dyn Write, v: &Versions, client_only: bool) -> Result<()> {
    writeln!(out, "Client Version: {}", v.client_version)?;
    if client_only {
        return Ok(());
    }
    let show = |x: &Option<String>| x.clone().unwrap_or_else(|| "unknown".into());
    writeln!(out, "Kubernetes Version: {}", show(&v.kubernetes_version))?;
    writeln!(out, "JobSet API: {}", show(&v.jobset_api))?;
    writeln!(out, "JobSet Controller: {}", show(&v.jobset_controller))?;
    writeln!(out, "Kueue API: {}", show(&v.kueue_api))?;
    writeln!(out, "Recorder: {}", show(&v.recorder))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;

    use super::*;

    fn lease(holder: Option<&str>, renewed_ago: i64) -> Lease {
        let mut lease = Lease::default();
        lease.metadata.annotations =
            Some([(crate::presence::VERSION_ANNOTATION.to_owned(), "0.1.0".to_owned())].into());
        let renewed = jiff::Timestamp::now() - jiff::SignedDuration::from_secs(renewed_ago);
        lease.spec = Some(LeaseSpec {
            holder_identity: holder.map(str::to_owned),
            lease_duration_seconds: Some(15),
            renew_time: Some(MicroTime(renewed)),
            ..Default::default()
        });
        lease
    }

    #[test]
    fn the_recorder_is_read_from_its_lease() {
        assert_eq!(recorder_words(&lease(Some("r-1"), 2)), "v0.1.0, running (r-1 holds its Lease)");
        assert!(
            recorder_words(&lease(Some("r-1"), 60))
                .contains("not running (its Lease, last held by r-1, expired)")
        );
        assert_eq!(recorder_words(&lease(None, 2)), "not running (its Lease is released)");
    }

    #[test]
    fn lines_as_kubectl_version_prints_them() {
        let mut out = Vec::new();
        let v = Versions { client_version: "v0.1.0".into(), ..Default::default() };
        write_lines(&mut out, &v, true).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "Client Version: v0.1.0\n");
    }
}
