//! Errors a user can act on: each says what went wrong and what to do next, and how
//! the process exits for it.
//!
//! API failures are described by the request that failed (`Op`); `cluster::classify`
//! turns what kube returned into one of these variants, so every command gets the same
//! wording. No message ever contains a credential: we only format names, URLs and the
//! server's own status message.

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

    /// `jobsets.jobset.x-k8s.io/status`: the resource with its subresource.
    pub(crate) fn resource_path(&self) -> String {
        match self.subresource {
            Some(sub) => format!("{}/{}", self.resource, sub),
            None => self.resource.to_owned(),
        }
    }

    /// `in namespace "ml"`, or `in all namespaces`.
    pub(crate) fn scope(&self) -> String {
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
         ask a cluster admin for this permission (`kubectl jobset rbac user` prints the role that grants it){detail}"
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let get_jobset = Op::new("get", JOBSET_RESOURCE, Some("ml")).named("train");
        assert_eq!(get_jobset.to_string(), "get jobsets.jobset.x-k8s.io \"train\" in namespace \"ml\"");
        assert_eq!(Op::new("list", "jobs.batch", None).to_string(), "list jobs.batch in all namespaces");
    }
}
