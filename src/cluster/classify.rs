//! Turns a failed request into an [`Error`]: kube's own variants first (API status,
//! TLS setup, request building), then the transport cause read from the types in the
//! error's source chain (rustls, hyper, hyper-util, io). Only `cluster` sends requests,
//! so only `cluster` classifies; the wording of each variant stays in `crate::error`.
//! Every classified error keeps what it came from as its source.

use std::error::Error as StdError;
use std::io;
use std::time::Duration;

use kube::runtime::watcher;

use crate::error::{Error, JOBSET_RESOURCE, Op, TimeoutText, chain};

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

    /// Classifies a failed watch of `op`: the request under it, or the watcher itself.
    pub fn classify_watch(&self, op: Op, err: watcher::Error) -> Error {
        match err {
            watcher::Error::InitialListFailed(e)
            | watcher::Error::WatchStartFailed(e)
            | watcher::Error::WatchFailed(e) => self.classify(op, e),
            watcher::Error::WatchError(status) => self.classify(op, kube::Error::Api(status)),
            other => Error::Transport {
                op: Box::new(op),
                reason: other.to_string(),
                source: Some(Box::new(other)),
            },
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
}
