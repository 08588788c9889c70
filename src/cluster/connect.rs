//! From kubectl-style flags to a kube `Client`: kubeconfig loading, context/cluster/user
//! selection, impersonation, timeouts, TLS, and the `-v` request log.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Client, Config};

use super::classify::{ErrorContext, error_chain};
use super::request_log::{RequestLog, RequestLogLayer};
use super::retry::{RetryLayer, RetryPolicy};
use crate::error::{BoxError, Error, Result};

/// Connection settings, as plain values (built from the CLI's global flags).
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub namespace: Option<String>,
    pub server: Option<String>,
    pub token: Option<String>,
    pub tls_server_name: Option<String>,
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    pub as_uid: Option<String>,
    pub request_timeout: Option<Duration>,
    pub insecure_skip_tls_verify: bool,
}

/// A connected client plus what commands need to talk about it.
#[derive(Clone)]
pub struct Cluster {
    pub client: Client,
    /// The namespace commands act in: `-n`, else the context's namespace, else `default`.
    pub namespace: String,
    pub errors: ErrorContext,
    pub log: Arc<RequestLog>,
}

impl Cluster {
    /// Builds a cluster handle around an existing client (HTTP-level tests use this).
    pub fn from_client(client: Client, namespace: &str, log: Arc<RequestLog>) -> Self {
        Cluster {
            client,
            namespace: namespace.to_owned(),
            errors: ErrorContext { server: "https://test".into(), identity: None, request_timeout: None },
            log,
        }
    }
}

/// Loads the kubeconfig the way kubectl does and builds a client.
pub async fn connect(opts: &ConnectOptions, log: Arc<RequestLog>) -> Result<Cluster> {
    let mut config = load_config(opts).await?;
    apply_transport_flags(&mut config, opts)?;
    apply_identity_flags(&mut config, opts)?;
    let namespace = opts.namespace.clone().unwrap_or_else(|| config.default_namespace.clone());
    let server = config.cluster_url.to_string().trim_end_matches('/').to_owned();
    log.set_server(&server);
    let errors = ErrorContext {
        server: server.clone(),
        identity: opts.as_user.as_ref().map(|u| format!("user {u:?}")),
        request_timeout: opts.request_timeout,
    };
    // Our retry layer replaces kube's, which would also retry writes.
    config.default_retry = false;
    let builder = kube::client::ClientBuilder::try_from(config).map_err(|e| Error::Kubeconfig {
        source_name: "the kubeconfig".into(),
        reason: error_chain(&e),
        source: Some(Box::new(e)),
    })?;
    // Outermost first: retries, then the request log (so each try is logged and
    // counted), then kube's own stack with auth.
    let retry = RetryLayer::new(RetryPolicy::within(opts.request_timeout), log.clone());
    let client = builder.with_layer(&RequestLogLayer::new(log.clone())).with_layer(&retry).build();
    Ok(Cluster { client, namespace, errors, log })
}

/// `--request-timeout`, `--insecure-skip-tls-verify`, `--server` and
/// `--tls-server-name`: where and how to reach the server, over the kubeconfig's say.
fn apply_transport_flags(config: &mut Config, opts: &ConnectOptions) -> Result<()> {
    if let Some(timeout) = opts.request_timeout.filter(|t| !t.is_zero()) {
        config.connect_timeout = Some(timeout);
        config.read_timeout = Some(timeout);
        config.write_timeout = Some(timeout);
    }
    if opts.insecure_skip_tls_verify {
        config.accept_invalid_certs = true;
        config.root_cert = None;
    }
    if let Some(server) = &opts.server {
        config.cluster_url = server.parse().map_err(|_| {
            Error::Usage(format!("--server {server:?} is not a URL: use e.g. https://10.0.0.1:6443"))
        })?;
    }
    if let Some(name) = &opts.tls_server_name {
        config.tls_server_name = Some(name.clone());
    }
    Ok(())
}

/// `--token` and the impersonation flags (`--as`, `--as-group`, `--as-uid`): who the
/// requests act as, over the kubeconfig user's say.
fn apply_identity_flags(config: &mut Config, opts: &ConnectOptions) -> Result<()> {
    if let Some(token) = &opts.token {
        // The token replaces the kubeconfig user's other ways to authenticate.
        let auth = &mut config.auth_info;
        auth.token = Some(token.clone().into());
        auth.token_file = None;
        auth.exec = None;
        auth.auth_provider = None;
        auth.username = None;
        auth.password = None;
    }
    if let Some(uid) = &opts.as_uid {
        // kube parses but does not send impersonate_uid: add the header ourselves.
        let value = http::HeaderValue::from_str(uid)
            .map_err(|_| Error::Usage(format!("--as-uid {uid:?} is not a valid header value")))?;
        config.headers.push((http::HeaderName::from_static("impersonate-uid"), value));
    }
    if let Some(user) = &opts.as_user {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !opts.as_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(opts.as_groups.clone());
    }
    Ok(())
}

async fn load_config(opts: &ConnectOptions) -> Result<Config> {
    let selection = KubeConfigOptions {
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        user: opts.user.clone(),
    };
    let (kubeconfig, source_name) = match &opts.kubeconfig {
        Some(path) => {
            let name = path.display().to_string();
            if !path.exists() {
                return Err(Error::Kubeconfig {
                    source_name: name,
                    reason: "the file does not exist".into(),
                    source: None,
                });
            }
            (Kubeconfig::read_from(path).map_err(|e| kubeconfig_error(&name, e))?, name)
        }
        None => match kubeconfig_from_env() {
            Ok(Some(kc)) => (kc, "$KUBECONFIG".to_owned()),
            Err(e) => return Err(e),
            Ok(None) => match default_kubeconfig_path().filter(|p| p.exists()) {
                Some(path) => {
                    let name = path.display().to_string();
                    (Kubeconfig::read_from(&path).map_err(|e| kubeconfig_error(&name, e))?, name)
                }
                // Inside a pod, kubectl falls back to the service account; so do we.
                None => return Config::incluster().map_err(|_| Error::NoKubeconfig),
            },
        },
    };
    if let Some(context) = &opts.context
        && !kubeconfig.contexts.iter().any(|c| &c.name == context)
    {
        let known: Vec<&str> = kubeconfig.contexts.iter().map(|c| c.name.as_str()).collect();
        return Err(Error::Kubeconfig {
            source_name,
            reason: format!("context {context:?} not found (known contexts: {})", list_or_none(&known)),
            source: None,
        });
    }
    if opts.context.is_none() && kubeconfig.current_context.is_none() && opts.cluster.is_none() {
        return Err(Error::Kubeconfig {
            source_name,
            reason: "no current-context is set; pass --context NAME".into(),
            source: None,
        });
    }
    Config::from_custom_kubeconfig(kubeconfig, &selection)
        .await
        .map_err(|e| kubeconfig_error(&source_name, e))
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() { "none".into() } else { items.join(", ") }
}

/// `$KUBECONFIG`'s files merged in order, as kubectl merges them: files that do not
/// exist are skipped (kubectl does too); None when it is unset or empty.
fn kubeconfig_from_env() -> Result<Option<Kubeconfig>> {
    let Some(paths) = std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) else { return Ok(None) };
    let existing: Vec<PathBuf> = std::env::split_paths(&paths).filter(|p| p.exists()).collect();
    if existing.is_empty() {
        let named: Vec<String> = std::env::split_paths(&paths).map(|p| p.display().to_string()).collect();
        return Err(Error::Kubeconfig {
            source_name: "$KUBECONFIG".into(),
            reason: format!("none of its files exist ({})", named.join(", ")),
            source: None,
        });
    }
    let mut merged: Option<Kubeconfig> = None;
    for path in existing {
        let name = path.display().to_string();
        let next = Kubeconfig::read_from(&path).map_err(|e| kubeconfig_error(&name, e))?;
        merged = Some(match merged {
            None => next,
            Some(so_far) => so_far.merge(next).map_err(|e| kubeconfig_error("$KUBECONFIG", e))?,
        });
    }
    Ok(merged)
}

fn default_kubeconfig_path() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".kube").join("config"))
}

/// Words for kubeconfig problems. Parse errors are summarised, never quoted: the file
/// may hold tokens and keys.
fn kubeconfig_error(source_name: &str, err: KubeconfigError) -> Error {
    let reason = match &err {
        KubeconfigError::Parse(_) => "it is not a valid kubeconfig (YAML could not be parsed)".to_owned(),
        KubeconfigError::ReadConfig(io, _) => format!("cannot read it: {io}"),
        KubeconfigError::LoadContext(name) => format!("context {name:?} not found"),
        KubeconfigError::LoadClusterOfContext(name) => format!("cluster {name:?} of the context not found"),
        KubeconfigError::CurrentContextNotSet => "no current-context is set; pass --context NAME".to_owned(),
        KubeconfigError::MissingClusterUrl => "the selected cluster has no server URL".to_owned(),
        KubeconfigError::LoadCertificateAuthority(_) => {
            "cannot load the cluster's certificate-authority".to_owned()
        }
        KubeconfigError::LoadClientCertificate(_) => "cannot load the user's client-certificate".to_owned(),
        KubeconfigError::LoadClientKey(_) => "cannot load the user's client-key".to_owned(),
        KubeconfigError::ParseCertificates(_) => "a certificate in it is not valid PEM".to_owned(),
        other => other.to_string(),
    };
    // A parse error may quote the file, which can hold credentials: it is not kept.
    let source: Option<BoxError> = match err {
        KubeconfigError::Parse(_) => None,
        other => Some(Box::new(other)),
    };
    Error::Kubeconfig { source_name: source_name.to_owned(), reason, source }
}
