//! Errors a user can act on: each says what went wrong and what to do next.
//!
//! API failures are classified once, here, from the request that failed (`Op`) and
//! the error kube returned, so every command gets the same wording. No message ever
//! contains a credential: we only format names, URLs and the server's own status
//! message.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

/// Result alias used across the library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The JobSet API group, as kubectl prints it in resource names.
pub const JOBSET_RESOURCE: &str = "jobsets.jobset.x-k8s.io";

/// One API request, described the way RBAC and users talk about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// RBAC verb: get, list, watch, create, patch, ...
    pub verb: &'static str,
    /// Resource with its group, e.g. `jobsets.jobset.x-k8s.io` or `jobs.batch`.
    pub resource: &'static str,
    pub subresource: Option<&'static str>,
    /// None means all namespaces (or a cluster-scoped request).
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl Op {
    pub fn new(verb: &'static str, resource: &'static str, namespace: Option<&str>) -> Self {
        Op { verb, resource, subresource: None, namespace: namespace.map(str::to_owned), name: None }
    }

    pub fn named(mut self, name: &str) -> Self {
        self.name = Some(name.to_owned());
        self
    }

    pub fn subresource(mut self, subresource: &'static str) -> Self {
        self.subresource = Some(subresource);
        self
    }

    fn resource_path(&self) -> String {
        match self.subresource {
            Some(sub) => format!("{}/{}", self.resource, sub),
            None => self.resource.to_owned(),
        }
    }

    fn scope(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("in namespace {ns:?}"),
            None => "in all namespaces".to_owned(),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource_path())?;
        if let Some(name) = &self.name {
            write!(f, " {name:?}")?;
        }
        write!(f, " {}", self.scope())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Flags or arguments that do not make sense together.
    #[error("{0}")]
    Usage(String),

    /// No kubeconfig file, and not running inside a cluster.
    #[error(
        "no kubeconfig found: set --kubeconfig or KUBECONFIG, or create ~/.kube/config \
         (for a local test cluster: eval \"$(make -s cluster-env)\")"
    )]
    NoKubeconfig,

    /// The kubeconfig could not be read or does not hold what was asked for.
    #[error("cannot use kubeconfig {source_name}: {reason}")]
    Kubeconfig { source_name: String, reason: String },

    /// A JobSet (or other object) that does not exist.
    #[error("{resource} {name:?} not found in namespace {namespace:?}{hint}")]
    NotFound { resource: &'static str, name: String, namespace: String, hint: String },

    /// The cluster does not serve jobset.x-k8s.io/v1alpha2.
    #[error(
        "the cluster at {server} does not serve jobset.x-k8s.io/v1alpha2 (the JobSet API): \
         install the JobSet controller and its CRD (https://jobset.sigs.k8s.io/docs/installation/), \
         or check --context"
    )]
    JobSetApiMissing { server: String },

    /// TCP connection failed.
    #[error(
        "cannot reach the Kubernetes API server at {server}: {reason}; \
         check that the cluster is running and that --context/--kubeconfig point at it"
    )]
    Unreachable { server: String, reason: String },

    /// TLS handshake or certificate verification failed.
    #[error(
        "TLS connection to {server} failed: {reason}; check the cluster's certificate-authority \
         and server name in the kubeconfig (--insecure-skip-tls-verify skips the check, unsafely)"
    )]
    Tls { server: String, reason: String },

    /// A single request took longer than --request-timeout (or the default).
    #[error(
        "{op}: the request timed out{after}; the API server at {server} is slow or unreachable (raise --request-timeout)"
    )]
    Timeout { op: Box<Op>, server: String, after: TimeoutText },

    /// 401: the credentials were rejected.
    #[error(
        "the API server at {server} rejected the credentials of the kubeconfig user (401 Unauthorized): \
         the token or certificate is invalid, expired or revoked; log in again or pick another --context/--user"
    )]
    Unauthorized { server: String },

    /// 403: RBAC denied a verb on a resource.
    #[error(
        "forbidden: {who} cannot {verb} {resource} {scope}; \
         ask a cluster admin for this permission (see rbac/kubectl-jobset-clusterrole.yaml){detail}"
    )]
    Forbidden { who: String, verb: &'static str, resource: String, scope: String, detail: String },

    /// 409: someone else changed the object first.
    #[error(
        "{op}: conflict, the object was changed by someone else since it was read: {message}; re-run the command to act on the new state"
    )]
    Conflict { op: Box<Op>, message: String },

    /// Any other API status.
    #[error("{op}: {message} ({code} {reason})")]
    Api { op: Box<Op>, code: u16, reason: String, message: String },

    /// Any other transport failure.
    #[error("{op}: {reason}")]
    Transport { op: Box<Op>, reason: String },

    /// A revision that is not recorded.
    #[error("{0}")]
    NoSuchRevision(String),

    /// A command refused to act on an object, and why (nothing was changed).
    #[error("{what} not {verb}: {why}")]
    Refused { what: String, verb: &'static str, why: String },

    /// Some of several targets failed; each was reported already.
    #[error("{failed} of {total} JobSets failed (see above)")]
    Several { failed: usize, total: usize },

    /// `--wait` gave up, or what it waited for cannot happen any more.
    #[error("{0}")]
    Wait(String),

    /// The user declined the confirmation prompt.
    #[error("aborted: nothing was changed")]
    Aborted,

    /// The API server sent something we cannot read, or a request could not be encoded.
    #[error("unexpected data: {0}")]
    Unexpected(String),

    /// Output could not be written or encoded.
    #[error("cannot write output: {0}")]
    Output(String),
}

/// Renders the `after …` part of a timeout message.
#[derive(Debug, Clone, Copy)]
pub struct TimeoutText(pub Option<Duration>);

impl fmt::Display for TimeoutText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(d) => write!(f, " after {}", crate::render::age::format_duration(d)),
            None => Ok(()),
        }
    }
}

impl Error {
    /// Exit code for commands other than `diff`: 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }

    /// True when the failure is a broken stdout pipe (`| head`), which is not an error.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output(m) if m.contains("Broken pipe"))
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::Output(err.to_string())
    }
}

/// What a request needs to know to turn a kube error into an [`Error`].
#[derive(Debug, Clone)]
pub struct ErrorContext {
    pub server: String,
    /// Who we are acting as, for Forbidden messages (`user "alice"`), if known.
    pub identity: Option<String>,
    pub request_timeout: Option<Duration>,
}

impl ErrorContext {
    /// Classifies a failed request.
    pub fn classify(&self, op: Op, err: kube::Error) -> Error {
        match err {
            kube::Error::Api(status) => self.classify_status(op, *status),
            other => self.classify_transport(op, &other),
        }
    }

    fn classify_status(&self, op: Op, status: kube::core::Status) -> Error {
        let code = status.code;
        let message = status.message.clone();
        let detail_name = status.details.as_ref().map(|d| d.name.clone()).unwrap_or_default();
        match code {
            404 if op.resource == JOBSET_RESOURCE && (op.name.is_none() || detail_name.is_empty()) => {
                Error::JobSetApiMissing { server: self.server.clone() }
            }
            404 => Error::NotFound {
                resource: op.resource,
                name: op.name.clone().unwrap_or(detail_name),
                namespace: op.namespace.clone().unwrap_or_default(),
                hint: if op.resource == JOBSET_RESOURCE {
                    "; check the name, pass -n NAMESPACE, or run `kubectl jobset list -A` to see all JobSets"
                        .to_owned()
                } else {
                    String::new()
                },
            },
            401 => Error::Unauthorized { server: self.server.clone() },
            403 => Error::Forbidden {
                who: forbidden_subject(&message)
                    .or_else(|| self.identity.clone())
                    .unwrap_or_else(|| "you".into()),
                verb: op.verb,
                resource: op.resource_path(),
                scope: op.scope(),
                detail: String::new(),
            },
            409 => Error::Conflict { op: Box::new(op), message },
            504 | 408 => Error::Timeout {
                op: Box::new(op),
                server: self.server.clone(),
                after: TimeoutText(self.request_timeout),
            },
            _ => Error::Api { op: Box::new(op), code, reason: status.reason.clone(), message },
        }
    }

    fn classify_transport(&self, op: Op, err: &kube::Error) -> Error {
        let chain = error_chain(err);
        let lower = chain.to_lowercase();
        let io_kind = find_io_kind(err);
        if matches!(io_kind, Some(std::io::ErrorKind::TimedOut))
            || lower.contains("timed out")
            || lower.contains("deadline")
        {
            return Error::Timeout {
                op: Box::new(op),
                server: self.server.clone(),
                after: TimeoutText(self.request_timeout),
            };
        }
        if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
            return Error::Tls { server: self.server.clone(), reason: tls_reason(&chain) };
        }
        match io_kind {
            Some(
                kind @ (std::io::ErrorKind::ConnectionRefused
                | std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::NotConnected
                | std::io::ErrorKind::AddrNotAvailable
                | std::io::ErrorKind::HostUnreachable
                | std::io::ErrorKind::NetworkUnreachable
                | std::io::ErrorKind::UnexpectedEof),
            ) => Error::Unreachable { server: self.server.clone(), reason: io_kind_text(kind) },
            _ if lower.contains("dns error") || lower.contains("failed to lookup") => Error::Unreachable {
                server: self.server.clone(),
                reason: "the host name does not resolve".into(),
            },
            _ if lower.contains("connection refused") || lower.contains("connect error") => {
                Error::Unreachable { server: self.server.clone(), reason: "connection refused".into() }
            }
            _ => Error::Transport { op: Box::new(op), reason: chain },
        }
    }
}

/// `User "alice" cannot ...` → `user "alice"`.
fn forbidden_subject(message: &str) -> Option<String> {
    let start = message.find("User \"")? + 6;
    let end = message[start..].find('"')? + start;
    Some(format!("user {:?}", &message[start..end]))
}

fn io_kind_text(kind: std::io::ErrorKind) -> String {
    match kind {
        std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
        std::io::ErrorKind::ConnectionReset => "the connection was reset".into(),
        std::io::ErrorKind::UnexpectedEof => "the server closed the connection".into(),
        other => other.to_string(),
    }
}

/// The most specific part of a TLS error chain.
fn tls_reason(chain: &str) -> String {
    if let Some(pos) = chain.find("invalid peer certificate") {
        return chain[pos..].split(": ").take(2).collect::<Vec<_>>().join(": ");
    }
    chain.rsplit(": ").next().unwrap_or(chain).to_owned()
}

/// Every message in an error's source chain, joined by `: `, without repeats.
pub fn error_chain(err: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(e) = current {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = e.source();
    }
    parts.join(": ")
}

fn find_io_kind(err: &(dyn StdError + 'static)) -> Option<std::io::ErrorKind> {
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        current = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::{Status, response::StatusDetails};

    fn ctx() -> ErrorContext {
        ErrorContext { server: "https://127.0.0.1:6443".into(), identity: None, request_timeout: None }
    }

    fn status(code: u16, reason: &str, message: &str, name: Option<&str>) -> kube::Error {
        let mut s = Status::failure(message, reason).with_code(code);
        if let Some(name) = name {
            let details: StatusDetails = serde_json::from_value(serde_json::json!({"name": name})).unwrap();
            s = s.with_details(details);
        }
        kube::Error::Api(Box::new(s))
    }

    fn get_jobset() -> Op {
        Op::new("get", JOBSET_RESOURCE, Some("ml")).named("train")
    }

    #[test]
    fn missing_jobset_names_namespace_and_hints_all_namespaces() {
        let err = ctx().classify(get_jobset(), status(404, "NotFound", "not found", Some("train")));
        let text = err.to_string();
        assert!(text.contains("\"train\" not found in namespace \"ml\""), "{text}");
        assert!(text.contains("list -A"), "{text}");
        assert_eq!(err.exit_code(), 1);
    }

    #[test]
    fn a_404_without_a_name_means_the_api_is_missing() {
        let list = Op::new("list", JOBSET_RESOURCE, None);
        let err = ctx().classify(
            list,
            status(404, "NotFound", "the server could not find the requested resource", None),
        );
        assert!(matches!(err, Error::JobSetApiMissing { .. }), "{err}");
        assert!(err.to_string().contains("jobset.x-k8s.io/v1alpha2"));
    }

    #[test]
    fn forbidden_names_user_verb_and_subresource() {
        let op = Op::new("patch", JOBSET_RESOURCE, Some("ml")).named("train").subresource("status");
        let msg = r#"jobsets.jobset.x-k8s.io "train" is forbidden: User "alice" cannot patch resource "jobsets/status" in API group "jobset.x-k8s.io" in the namespace "ml""#;
        let text = ctx().classify(op, status(403, "Forbidden", msg, Some("train"))).to_string();
        assert!(
            text.contains("user \"alice\" cannot patch jobsets.jobset.x-k8s.io/status in namespace \"ml\""),
            "{text}"
        );
    }

    #[test]
    fn unauthorized_says_what_to_do_without_credentials() {
        let text =
            ctx().classify(get_jobset(), status(401, "Unauthorized", "Unauthorized", None)).to_string();
        assert!(text.contains("401 Unauthorized"), "{text}");
        assert!(text.contains("log in again"), "{text}");
    }

    #[test]
    fn op_display() {
        assert_eq!(get_jobset().to_string(), "get jobsets.jobset.x-k8s.io \"train\" in namespace \"ml\"");
        assert_eq!(Op::new("list", "jobs.batch", None).to_string(), "list jobs.batch in all namespaces");
    }
}
