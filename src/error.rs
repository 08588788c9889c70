//! Errors a user can act on: each says what went wrong and what to do next.
//!
//! API failures are classified once, here, from the request that failed (`Op`) and
//! the error kube returned, so every command gets the same wording. No message ever
//! contains a credential: we only format names, URLs and the server's own status
//! message.

use std::error::Error as StdError;
use std::fmt;
use std::io;
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

/// A cause kept as the `#[source]` of an [`Error`].
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// What to do when a JobSet name is not found; written once, here.
pub const JOBSET_NOT_FOUND_HINT: &str =
    "; check the name, pass -n NAMESPACE, or run `kubectl jobset list -A` to see all JobSets";

/// The hint after a "not found" message: only JobSets have one.
fn not_found_hint(resource: &str) -> &'static str {
    if resource == JOBSET_RESOURCE { JOBSET_NOT_FOUND_HINT } else { "" }
}

/// `what: ` before a cause, or nothing.
fn prefix(what: &str) -> String {
    if what.is_empty() { String::new() } else { format!("{what}: ") }
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
    Kubeconfig {
        source_name: String,
        reason: String,
        /// None when the cause could quote the file (which may hold credentials).
        #[source]
        source: Option<BoxError>,
    },

    /// A JobSet (or other object) that does not exist.
    #[error("{resource} {name:?} not found in namespace {namespace:?}{}", not_found_hint(resource))]
    NotFound { resource: &'static str, name: String, namespace: String },

    /// The cluster does not serve jobset.x-k8s.io/v1alpha2.
    #[error(
        "the cluster at {server} does not serve jobset.x-k8s.io/v1alpha2 (the JobSet API): \
         install the JobSet controller and its CRD (https://jobset.sigs.k8s.io/docs/installation/), \
         or check --context"
    )]
    JobSetApiMissing { server: String },

    /// No connection could be made (refused, no route, name does not resolve).
    #[error(
        "cannot reach the Kubernetes API server at {server}: {reason}; \
         check that the cluster is running and that --context/--kubeconfig point at it"
    )]
    Unreachable {
        server: String,
        reason: String,
        #[source]
        source: Option<BoxError>,
    },

    /// The server's certificate, or the name in it, did not verify.
    #[error(
        "TLS connection to {server} failed: {reason}; check the cluster's certificate-authority \
         and server name in the kubeconfig (--insecure-skip-tls-verify skips the check, unsafely)"
    )]
    Tls {
        server: String,
        reason: String,
        #[source]
        source: Option<BoxError>,
    },

    /// The TLS handshake failed for a reason other than certificate verification.
    #[error(
        "TLS handshake with {server} failed: {reason}; check that the URL's host and port are \
         the API server's and that nothing between you and it interferes with TLS"
    )]
    TlsHandshake {
        server: String,
        reason: String,
        #[source]
        source: Option<BoxError>,
    },

    /// The client's TLS settings (CA, client certificate or key) could not be used.
    #[error(
        "cannot set up TLS for {server}: {reason}; check the certificate-authority, \
         client-certificate and client-key data in the kubeconfig"
    )]
    TlsSetup {
        server: String,
        reason: String,
        #[source]
        source: Option<BoxError>,
    },

    /// A single request took longer than --request-timeout (or the default).
    #[error(
        "{op}: the request timed out{after}; the API server at {server} is slow or unreachable (raise --request-timeout)"
    )]
    Timeout {
        op: Box<Op>,
        server: String,
        after: TimeoutText,
        #[source]
        source: Option<BoxError>,
    },

    /// The connection was reset, or closed before the whole answer arrived.
    #[error(
        "{op}: the connection to the API server at {server} was closed before the answer was \
         complete ({reason}); this is usually a network or load-balancer fault, or an API server \
         restarting; retry"
    )]
    ConnectionLost {
        op: Box<Op>,
        server: String,
        reason: &'static str,
        #[source]
        source: Option<BoxError>,
    },

    /// 429: API Priority and Fairness turned the request away.
    #[error(
        "{op}: the API server at {server} is throttling requests (429 Too Many Requests, \
         API Priority and Fairness); retry later"
    )]
    Throttled { op: Box<Op>, server: String },

    /// 500, 502, 503, 504: the API server (or a proxy in front of it) failed.
    #[error(
        "{op}: the API server at {server} {} ({code} {reason}){}; retry later, and ask a cluster \
         admin to check the API server if it persists",
        server_failure_text(*code), prefix_colon(message)
    )]
    ServerFailure { op: Box<Op>, server: String, code: u16, reason: String, message: String },

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

    /// Any other transport failure (or a request that could not be built).
    #[error("{op}: {reason}")]
    Transport {
        op: Box<Op>,
        reason: String,
        #[source]
        source: Option<BoxError>,
    },

    /// A revision that is not recorded.
    #[error("{0}")]
    NoSuchRevision(String),

    /// The API server rejects the Job a JobSet template would make: a template replaced
    /// after create, where the JobSet webhook's defaulting (such as restartPolicy) no
    /// longer runs.
    #[error(
        "the API server rejects a Job built from the JobSet template in namespace {namespace:?}: {message}"
    )]
    TemplateRejected { namespace: String, message: String },

    /// A command refused to act on an object, and why (nothing was changed).
    #[error("{what} not {verb}: {why}")]
    Refused { what: String, verb: &'static str, why: String },

    /// A handover (`--handover`) that stopped after its journal was written: the rerun
    /// of the same command finishes it.
    #[error(
        "{what}: the handover stopped at step {step}: {source}\nits journal configmap/{journal} keeps its \
         progress and the running Jobs are untouched: run the same command again to finish it"
    )]
    HandoverStopped { what: String, step: &'static str, journal: String, source: Box<Error> },

    /// The one JobSet selected could not be compared with its Jobs (`diff`), and why.
    #[error("jobset {what} could not be compared: {why}")]
    NotCompared { what: String, why: String },

    /// Some of several targets failed; each was reported already.
    #[error("{failed} of {total} JobSets failed (see above)")]
    Several { failed: usize, total: usize },

    /// `--wait` gave up, or what it waited for cannot happen any more.
    #[error("{0}")]
    Wait(String),

    /// The user declined the confirmation prompt.
    #[error("aborted: nothing was changed")]
    Aborted,

    /// Data that could not be decoded or encoded; `what` names it, if anything.
    #[error("unexpected data: {}{source}", prefix(what))]
    Decode {
        what: &'static str,
        #[source]
        source: BoxError,
    },

    /// Output could not be written: the I/O error, kept whole (see [`Error::is_broken_pipe`]).
    #[error("cannot write output: {0}")]
    Io(#[source] std::io::Error),

    /// Output could not be encoded as JSON or YAML.
    #[error("cannot write output: {0}")]
    Encode(#[source] BoxError),

    /// Output failed for a reason with no underlying error (e.g. an external program's exit).
    #[error("cannot write output: {0}")]
    Output(String),
}

/// The middle of a 5xx message.
fn server_failure_text(code: u16) -> &'static str {
    match code {
        500 => "had an internal error",
        _ => "is unavailable",
    }
}

/// `: message` (first line, at most 200 characters), or nothing for an empty message.
fn prefix_colon(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return String::new();
    }
    let short: String = line.chars().take(200).collect();
    if short.len() < line.len() { format!(": {short}…") } else { format!(": {short}") }
}

/// Renders the `after …` part of a timeout message.
#[derive(Debug, Clone, Copy)]
pub struct TimeoutText(pub Option<Duration>);

impl fmt::Display for TimeoutText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(d) => write!(f, " after {}", crate::age::format_duration(d)),
            None => Ok(()),
        }
    }
}

impl Error {
    /// Exit code for commands other than `diff`: 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) | Error::TemplateRejected { .. } => 2,
            _ => 1,
        }
    }

    /// True when the failure is a broken stdout pipe (`| head`), which is not an error:
    /// an `io::Error` of kind `BrokenPipe` anywhere in the source chain.
    pub fn is_broken_pipe(&self) -> bool {
        chain(self)
            .any(|e| e.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
    }

    /// Data that could not be decoded, keeping the decoder's error as the source.
    pub fn decode(what: &'static str, source: impl Into<BoxError>) -> Self {
        Error::Decode { what, source: source.into() }
    }

    /// A JSON encoding failure while writing output; I/O failures stay I/O errors.
    pub fn json_output(err: serde_json::Error) -> Self {
        if err.is_io() { Error::Io(err.into()) } else { Error::Encode(Box::new(err)) }
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Self {
        Error::Io(err)
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
    /// Classifies a failed request: kube's variants first, then the transport cause read
    /// from the types in the error's source chain.
    pub fn classify(&self, op: Op, err: kube::Error) -> Error {
        match err {
            kube::Error::Api(status) => self.classify_status(op, *status),
            kube::Error::SerdeError(e) if e.is_eof() => Error::ConnectionLost {
                op: Box::new(op),
                server: self.server.clone(),
                reason: "the answer ended mid-document",
                source: Some(Box::new(e)),
            },
            kube::Error::RustlsTls(e) => Error::TlsSetup {
                server: self.server.clone(),
                reason: error_chain(&e),
                source: Some(Box::new(e)),
            },
            kube::Error::BuildRequest(e) => Error::Transport {
                op: Box::new(op),
                reason: format!("cannot build the request: {e}"),
                source: Some(Box::new(e)),
            },
            other => self.classify_transport(op, other),
        }
    }

    fn classify_status(&self, op: Op, status: kube::core::Status) -> Error {
        let code = status.code;
        let message = status.message.clone();
        let detail_name = status.details.as_ref().map(|d| d.name.clone()).unwrap_or_default();
        let server = self.server.clone();
        match code {
            404 if op.resource == JOBSET_RESOURCE && (op.name.is_none() || detail_name.is_empty()) => {
                Error::JobSetApiMissing { server }
            }
            404 => Error::NotFound {
                resource: op.resource,
                name: op.name.clone().unwrap_or(detail_name),
                namespace: op.namespace.clone().unwrap_or_default(),
            },
            401 => Error::Unauthorized { server },
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
            408 => Error::Timeout {
                op: Box::new(op),
                server,
                after: TimeoutText(self.request_timeout),
                source: None,
            },
            429 => Error::Throttled { op: Box::new(op), server },
            500 | 502 | 503 | 504 => Error::ServerFailure {
                op: Box::new(op),
                server,
                code,
                reason: status.reason.clone(),
                message,
            },
            _ => Error::Api { op: Box::new(op), code, reason: status.reason.clone(), message },
        }
    }

    fn classify_transport(&self, op: Op, err: kube::Error) -> Error {
        let server = self.server.clone();
        let op = Box::new(op);
        match diagnose(&err) {
            Cause::Certificate(reason) => Error::Tls { server, reason, source: Some(Box::new(err)) },
            Cause::Handshake(reason) => Error::TlsHandshake { server, reason, source: Some(Box::new(err)) },
            Cause::TimedOut => Error::Timeout {
                op,
                server,
                after: TimeoutText(self.request_timeout),
                source: Some(Box::new(err)),
            },
            Cause::Lost(reason) => Error::ConnectionLost { op, server, reason, source: Some(Box::new(err)) },
            Cause::Unreachable(reason) => {
                Error::Unreachable { server, reason: reason.to_owned(), source: Some(Box::new(err)) }
            }
            Cause::ConnectFailed => Error::Unreachable {
                server,
                reason: connect_failure_text(&err).to_owned(),
                source: Some(Box::new(err)),
            },
            Cause::Unknown => Error::Transport { op, reason: error_chain(&err), source: Some(Box::new(err)) },
        }
    }
}

/// A connect error with no typed cause: hyper-util's DNS error type is private, so its
/// text is the only sign that the host name did not resolve.
fn connect_failure_text(err: &(dyn StdError + 'static)) -> &'static str {
    if chain(err).any(|e| e.to_string().starts_with("dns error")) {
        "the host name does not resolve"
    } else {
        "cannot connect"
    }
}

/// The cause of a transport failure, read from the types in an error's source chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// The server's certificate, or the name in it, did not verify.
    Certificate(String),
    /// The TLS handshake failed otherwise (alerts, protocol mismatch).
    Handshake(String),
    /// A connect, read or write timed out.
    TimedOut,
    /// The connection was reset, or closed before the whole answer arrived.
    Lost(&'static str),
    /// No connection could be made, for the given reason.
    Unreachable(&'static str),
    /// hyper-util says connecting failed, without a more precise cause.
    ConnectFailed,
    /// Nothing we recognise.
    Unknown,
}

impl Cause {
    /// When several links say something, the most specific wins.
    fn rank(&self) -> u8 {
        match self {
            Cause::Unknown => 0,
            Cause::ConnectFailed => 1,
            Cause::Lost(_) => 2,
            Cause::Unreachable(_) => 3,
            Cause::TimedOut => 4,
            Cause::Handshake(_) => 5,
            Cause::Certificate(_) => 6,
        }
    }
}

/// Reads the transport cause from an error and everything below it.
pub fn diagnose(err: &(dyn StdError + 'static)) -> Cause {
    chain(err).map(link_cause).fold(Cause::Unknown, |best, c| if c.rank() > best.rank() { c } else { best })
}

/// What one link of a chain says by its type alone.
fn link_cause(e: &(dyn StdError + 'static)) -> Cause {
    if let Some(tls) = e.downcast_ref::<rustls::Error>() {
        return tls_cause(tls);
    }
    if let Some(io) = e.downcast_ref::<io::Error>() {
        return io_cause(io.kind());
    }
    if let Some(h) = e.downcast_ref::<hyper::Error>() {
        return hyper_cause(h);
    }
    if let Some(c) = e.downcast_ref::<hyper_util::client::legacy::Error>()
        && c.is_connect()
    {
        return Cause::ConnectFailed;
    }
    if let Some(json) = e.downcast_ref::<serde_json::Error>()
        && json.is_eof()
    {
        return Cause::Lost("the answer ended mid-document");
    }
    Cause::Unknown
}

fn tls_cause(err: &rustls::Error) -> Cause {
    match err {
        rustls::Error::InvalidCertificate(_)
        | rustls::Error::NoCertificatesPresented
        | rustls::Error::UnsupportedNameType
        | rustls::Error::InvalidCertRevocationList(_) => Cause::Certificate(err.to_string()),
        other => Cause::Handshake(other.to_string()),
    }
}

fn io_cause(kind: io::ErrorKind) -> Cause {
    use io::ErrorKind as K;
    match kind {
        K::ConnectionRefused => Cause::Unreachable("connection refused"),
        K::HostUnreachable | K::NetworkUnreachable => Cause::Unreachable("no route to the host"),
        K::NotConnected | K::AddrNotAvailable => Cause::Unreachable("cannot connect"),
        K::ConnectionReset | K::ConnectionAborted | K::BrokenPipe => Cause::Lost("the connection was reset"),
        K::UnexpectedEof => Cause::Lost("the server closed the connection mid-answer"),
        K::TimedOut => Cause::TimedOut,
        _ => Cause::Unknown,
    }
}

fn hyper_cause(err: &hyper::Error) -> Cause {
    if err.is_timeout() {
        Cause::TimedOut
    } else if err.is_incomplete_message() || err.is_body_write_aborted() {
        Cause::Lost("the answer was cut short")
    } else if err.is_closed() || err.is_canceled() {
        Cause::Lost("the connection was closed")
    } else {
        Cause::Unknown
    }
}

/// An error and its causes. An `io::Error` wrapping another error reports that error's
/// source as its own, skipping the wrapped error itself, so we step into it explicitly.
pub fn chain<'a>(err: &'a (dyn StdError + 'static)) -> impl Iterator<Item = &'a (dyn StdError + 'static)> {
    // Chains are short; the bound only guards against a `source` that cycles.
    std::iter::successors(Some(err), |&e| next_link(e)).take(32)
}

fn next_link<'a>(e: &'a (dyn StdError + 'static)) -> Option<&'a (dyn StdError + 'static)> {
    match e.downcast_ref::<io::Error>().and_then(io::Error::get_ref) {
        Some(inner) => Some(inner),
        None => e.source(),
    }
}

/// `User "alice" cannot ...` → `user "alice"`.
fn forbidden_subject(message: &str) -> Option<String> {
    let start = message.find("User \"")? + 6;
    let end = message[start..].find('"')? + start;
    Some(format!("user {:?}", &message[start..end]))
}

/// Every message in an error's source chain, joined by `: `, without repeats.
pub fn error_chain(err: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    for e in chain(err) {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
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

    #[derive(Debug, thiserror::Error)]
    #[error("request failed")]
    struct Outer(#[source] io::Error);

    #[test]
    fn io_kinds_below_another_error_name_the_cause() {
        use io::ErrorKind as K;
        let cases = [
            (K::ConnectionRefused, Cause::Unreachable("connection refused")),
            (K::ConnectionReset, Cause::Lost("the connection was reset")),
            (K::ConnectionAborted, Cause::Lost("the connection was reset")),
            (K::BrokenPipe, Cause::Lost("the connection was reset")),
            (K::UnexpectedEof, Cause::Lost("the server closed the connection mid-answer")),
            (K::TimedOut, Cause::TimedOut),
            (K::PermissionDenied, Cause::Unknown),
        ];
        for (kind, cause) in cases {
            assert_eq!(diagnose(&Outer(io::Error::from(kind))), cause, "{kind:?}");
            let boxed = kube::Error::Service(Box::new(Outer(io::Error::new(kind, "x"))));
            assert_eq!(diagnose(&boxed), cause, "{kind:?} under kube::Error::Service");
        }
    }

    fn rustls_in_io(err: rustls::Error) -> Outer {
        // tokio-rustls reports handshake failures this way.
        Outer(io::Error::new(io::ErrorKind::InvalidData, err))
    }

    #[test]
    fn certificate_failures_are_told_from_other_tls_failures() {
        let unknown_ca = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        assert!(
            matches!(diagnose(&rustls_in_io(unknown_ca)), Cause::Certificate(r) if r.contains("certificate"))
        );
        let name = rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName);
        assert!(matches!(diagnose(&rustls_in_io(name)), Cause::Certificate(_)));
        let alert = rustls::Error::AlertReceived(rustls::AlertDescription::HandshakeFailure);
        assert!(matches!(diagnose(&rustls_in_io(alert)), Cause::Handshake(_)));
    }

    #[test]
    fn a_document_cut_short_is_a_lost_connection() {
        let whole = r#"{"items": [1, 2]}"#;
        let cut_short = &whole[..whole.len() - 2];
        let eof = serde_json::from_str::<serde_json::Value>(cut_short).unwrap_err();
        let err = ctx().classify(Op::new("list", JOBSET_RESOURCE, Some("ml")), kube::Error::SerdeError(eof));
        assert!(matches!(err, Error::ConnectionLost { .. }), "{err}");
        let bad = serde_json::from_str::<serde_json::Value>("{]}").unwrap_err();
        let err = ctx().classify(Op::new("list", JOBSET_RESOURCE, Some("ml")), kube::Error::SerdeError(bad));
        assert!(matches!(err, Error::Transport { .. }), "{err}");
    }

    fn transport(kind: io::ErrorKind) -> kube::Error {
        kube::Error::Service(Box::new(Outer(io::Error::from(kind))))
    }

    #[test]
    fn each_transport_cause_has_its_own_message_and_keeps_its_source() {
        let cert = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let cases = [
            (kube::Error::Service(Box::new(rustls_in_io(cert))), "certificate-authority"),
            (transport(io::ErrorKind::ConnectionRefused), "cannot reach the Kubernetes API server"),
            (transport(io::ErrorKind::ConnectionReset), "closed before the answer was complete"),
            (transport(io::ErrorKind::UnexpectedEof), "closed before the answer was complete"),
            (transport(io::ErrorKind::TimedOut), "the request timed out"),
        ];
        for (err, words) in cases {
            let err = ctx().classify(get_jobset(), err);
            let text = err.to_string();
            assert!(text.contains(words), "{text}");
            assert_eq!(
                text.contains("--insecure-skip-tls-verify"),
                words == "certificate-authority",
                "{text}"
            );
            assert!(StdError::source(&err).is_some(), "{text}");
        }
    }

    #[test]
    fn throttling_and_server_failures_have_their_own_messages() {
        let cases = [
            (
                429,
                "TooManyRequests",
                "is throttling requests (429 Too Many Requests, API Priority and Fairness)",
            ),
            (500, "InternalError", "had an internal error (500 InternalError)"),
            (503, "ServiceUnavailable", "is unavailable (503 ServiceUnavailable)"),
            (504, "Timeout", "is unavailable (504 Timeout)"),
        ];
        for (code, reason, words) in cases {
            let text = ctx().classify(get_jobset(), status(code, reason, "busy", None)).to_string();
            assert!(text.contains(words), "{text}");
            assert!(text.contains("retry later"), "{text}");
            assert!(!text.contains("insecure"), "{text}");
        }
    }

    #[test]
    fn broken_pipes_are_recognised_by_kind() {
        assert!(Error::from(io::Error::from(io::ErrorKind::BrokenPipe)).is_broken_pipe());
        assert!(!Error::from(io::Error::other("Broken pipe")).is_broken_pipe());
        struct Closed;
        impl io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let err = serde_json::to_writer(Closed, &serde_json::json!({"a": 1})).unwrap_err();
        assert!(Error::json_output(err).is_broken_pipe());
    }

    #[test]
    fn the_not_found_hint_is_only_for_jobsets() {
        let jobset = Error::NotFound { resource: JOBSET_RESOURCE, name: "a".into(), namespace: "ml".into() };
        assert!(jobset.to_string().ends_with(JOBSET_NOT_FOUND_HINT), "{jobset}");
        let job = Error::NotFound { resource: "jobs.batch", name: "a".into(), namespace: "ml".into() };
        assert_eq!(job.to_string(), "jobs.batch \"a\" not found in namespace \"ml\"");
    }

    #[test]
    fn op_display() {
        assert_eq!(get_jobset().to_string(), "get jobsets.jobset.x-k8s.io \"train\" in namespace \"ml\"");
        assert_eq!(Op::new("list", "jobs.batch", None).to_string(), "list jobs.batch in all namespaces");
    }
}
