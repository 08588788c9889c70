//! `netproxy faults`: terminates TLS with the API server's own certificate, forwards each
//! HTTP/1.1 or HTTP/2 request over TLS to the real API server, and applies the fault the
//! schedule picks. Every request gets one JSON line in the log.

use std::convert::Infallible;
use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bytes::Bytes;
use futures::StreamExt;
use http::header::{self, HeaderMap, HeaderValue};
use http::{Request, Response, StatusCode, Uri};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio_rustls::TlsAcceptor;

use super::rules::{Decision, Fault, RequestInfo, Schedule, status_body};

/// io::Error rather than a boxed error: hyper's bounds on a boxed error type trip up
/// the compiler's check that the connection future is Send.
type Body = UnsyncBoxBody<Bytes, io::Error>;
type Upstream = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// How long a cut answer waits after its last bytes before closing, so they get out.
const CUT_GRACE: Duration = Duration::from_millis(50);

/// Headers that belong to one connection and are never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "transfer-encoding",
    "upgrade",
];

pub struct State {
    pub upstream_base: Uri,
    pub upstream: Upstream,
    pub schedule: Mutex<Schedule>,
    pub log: Option<Mutex<std::fs::File>>,
    pub started: Instant,
    pub seq: AtomicU64,
    pub verbose: bool,
}

/// One request's log line.
struct Entry {
    fields: serde_json::Map<String, Value>,
}

impl Entry {
    fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.fields.insert(key.to_owned(), value.into());
    }
}

impl State {
    fn write_log(&self, entry: Entry) {
        let Some(log) = &self.log else { return };
        let mut line = Value::Object(entry.fields).to_string();
        line.push('\n');
        let mut file = log.lock().unwrap_or_else(|e| e.into_inner());
        let _ = file.write_all(line.as_bytes()).and_then(|()| file.flush());
    }
}

/// Accepts TLS connections until the process ends.
pub async fn run(listener: TcpListener, tls: Arc<rustls::ServerConfig>, state: Arc<State>) -> Result<()> {
    let acceptor = TlsAcceptor::from(tls);
    let mut conn_id: u64 = 0;
    loop {
        let (tcp, _) = listener.accept().await?;
        let _ = tcp.set_nodelay(true);
        conn_id += 1;
        let (acceptor, state) = (acceptor.clone(), state.clone());
        tokio::spawn(async move {
            match acceptor.accept(tcp).await {
                Ok(tls) => serve_connection(tls, state, conn_id).await,
                Err(e) if state.verbose => super::warn(&format!("connection {conn_id}: TLS: {e}")),
                Err(_) => {}
            }
        });
    }
}

/// Serves one client connection; a reset fault drops it, whatever the protocol.
async fn serve_connection(
    tls: tokio_rustls::server::TlsStream<tokio::net::TcpStream>,
    state: Arc<State>,
    id: u64,
) {
    let kill = Arc::new(Notify::new());
    let service_kill = kill.clone();
    let service = hyper::service::service_fn(move |req| {
        let (state, kill) = (state.clone(), service_kill.clone());
        async move { handle(state, kill, id, req).await }
    });
    let builder = auto::Builder::new(TokioExecutor::new());
    let connection = builder.serve_connection(TokioIo::new(tls), service);
    tokio::select! {
        _ = connection => {}
        _ = kill.notified() => {}
    }
}

/// The answer to one request: Err means the connection is being reset.
async fn handle(
    state: Arc<State>,
    kill: Arc<Notify>,
    conn: u64,
    req: Request<Incoming>,
) -> Result<Response<Body>, io::Error> {
    let (parts, body) = req.into_parts();
    let body = body.collect().await.map_err(io::Error::other)?.to_bytes();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().unwrap_or("").to_owned();
    let info = RequestInfo { method: parts.method.as_str(), path: &path, query: &query };
    let decision = state.schedule.lock().unwrap_or_else(|e| e.into_inner()).decide(info);
    let mut entry = new_entry(&state, conn, &parts, info, decision.as_ref());
    let outcome = apply(&state, &kill, parts, body, decision.map(|d| d.fault), &mut entry).await;
    entry.set("status", outcome.as_ref().map(|r| r.status().as_u16()));
    state.write_log(entry);
    match outcome {
        Some(response) => Ok(response),
        None => {
            kill.notify_one();
            Err(io::Error::other("netproxy: connection reset by the schedule"))
        }
    }
}

fn new_entry(
    state: &State,
    conn: u64,
    parts: &http::request::Parts,
    info: RequestInfo<'_>,
    decision: Option<&Decision>,
) -> Entry {
    let mut entry = Entry { fields: serde_json::Map::new() };
    entry.set("seq", state.seq.fetch_add(1, Ordering::Relaxed) + 1);
    entry.set("ms", state.started.elapsed().as_millis() as u64);
    entry.set("conn", conn);
    entry.set("proto", format!("{:?}", parts.version));
    entry.set("method", info.method);
    entry.set("verb", super::rules::verb(info.method, info.path, info.query));
    entry.set("path", info.path);
    entry.set("query", info.query);
    entry.set("rule", decision.map(|d| d.rule));
    entry.set("occurrence", decision.map(|d| d.occurrence));
    entry.set("fault", decision.map_or("none", |d| d.fault.kind()));
    entry.set("forwarded", false);
    entry
}

/// Applies `fault` (or none); None means: reset the client connection.
async fn apply(
    state: &State,
    kill: &Arc<Notify>,
    parts: http::request::Parts,
    body: Bytes,
    fault: Option<Fault>,
    entry: &mut Entry,
) -> Option<Response<Body>> {
    match fault {
        Some(Fault::Status { code, retry_after, message }) => {
            Some(status_response(code, message.as_deref(), retry_after))
        }
        Some(Fault::ResetBeforeForward) => None,
        Some(Fault::Delay { ms }) => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Some(passthrough(state, parts, body, entry).await)
        }
        None => Some(passthrough(state, parts, body, entry).await),
        Some(fault) => {
            let (head, full) = match forward_whole(state, parts, body, entry).await {
                Ok(answer) => answer,
                Err(response) => return Some(response),
            };
            reshape(fault, head, full, kill)
        }
    }
}

/// The forwarded answer of a reset-after, cut or drip fault, changed as the fault says.
fn reshape(
    fault: Fault,
    head: http::response::Parts,
    full: Bytes,
    kill: &Arc<Notify>,
) -> Option<Response<Body>> {
    let mut head = head;
    head.headers.insert(header::CONTENT_LENGTH, HeaderValue::from(full.len()));
    let body = match fault {
        Fault::Cut { bytes } => cut_body(full, bytes, kill.clone()),
        Fault::Drip { bytes, every_ms } => drip_body(full, bytes, Duration::from_millis(every_ms)),
        _ => return None,
    };
    Some(Response::from_parts(head, body))
}

/// Forwards and streams the answer back unchanged (watches included).
async fn passthrough(
    state: &State,
    parts: http::request::Parts,
    body: Bytes,
    entry: &mut Entry,
) -> Response<Body> {
    match forward(state, parts, body, entry).await {
        Ok(response) => {
            let (mut head, incoming) = response.into_parts();
            strip_hop_by_hop(&mut head.headers);
            Response::from_parts(head, incoming.map_err(io::Error::other).boxed_unsync())
        }
        Err(response) => response,
    }
}

/// Forwards and reads upstream's whole answer.
async fn forward_whole(
    state: &State,
    parts: http::request::Parts,
    body: Bytes,
    entry: &mut Entry,
) -> Result<(http::response::Parts, Bytes), Response<Body>> {
    let response = forward(state, parts, body, entry).await?;
    let (mut head, incoming) = response.into_parts();
    strip_hop_by_hop(&mut head.headers);
    match incoming.collect().await {
        Ok(collected) => Ok((head, collected.to_bytes())),
        Err(e) => {
            entry.set("error", format!("reading upstream's answer: {e}"));
            Err(status_response(502, Some("netproxy: upstream's answer broke off"), None))
        }
    }
}

/// Sends the request upstream; a failure to reach it becomes a 502 for the client.
async fn forward(
    state: &State,
    parts: http::request::Parts,
    body: Bytes,
    entry: &mut Entry,
) -> Result<Response<Incoming>, Response<Body>> {
    let request = upstream_request(&state.upstream_base, parts, body);
    entry.set("forwarded", true);
    match state.upstream.request(request).await {
        Ok(response) => {
            entry.set("upstream_status", response.status().as_u16());
            Ok(response)
        }
        Err(e) => {
            entry.set("error", format!("upstream: {e:#}"));
            Err(status_response(502, Some("netproxy: upstream unreachable"), None))
        }
    }
}

/// The client's request, addressed to the upstream (Authorization passes unchanged).
fn upstream_request(base: &Uri, parts: http::request::Parts, body: Bytes) -> Request<Full<Bytes>> {
    let path_and_query = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut uri = http::uri::Parts::default();
    uri.scheme = base.scheme().cloned();
    uri.authority = base.authority().cloned();
    uri.path_and_query = path_and_query.parse().ok();
    let uri = Uri::from_parts(uri).unwrap_or_else(|_| base.clone());
    let mut headers = parts.headers;
    strip_hop_by_hop(&mut headers);
    headers.remove(header::HOST);
    let mut request = Request::new(Full::new(body));
    *request.method_mut() = parts.method;
    *request.uri_mut() = uri;
    *request.headers_mut() = headers;
    request
}

fn strip_hop_by_hop(headers: &mut HeaderMap) {
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
}

/// A Kubernetes Status answer, with `Retry-After` when asked for.
fn status_response(code: u16, message: Option<&str>, retry_after: Option<u64>) -> Response<Body> {
    let body = status_body(code, message, retry_after).to_string();
    let mut response = Response::new(full_body(Bytes::from(body)));
    *response.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if let Some(seconds) = retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

fn full_body(bytes: Bytes) -> Body {
    Full::new(bytes).map_err(|e: Infallible| match e {}).boxed_unsync()
}

/// The first `bytes` bytes, a short pause, then the connection closes mid-body.
fn cut_body(full: Bytes, bytes: usize, kill: Arc<Notify>) -> Body {
    let head = full.slice(..bytes.min(full.len()));
    let first = futures::stream::iter([Ok::<_, io::Error>(Frame::data(head))]);
    let end = futures::stream::once(async move {
        tokio::time::sleep(CUT_GRACE).await;
        kill.notify_one();
        Err::<Frame<Bytes>, io::Error>(io::Error::other("netproxy: body cut by the schedule"))
    });
    StreamBody::new(first.chain(end)).boxed_unsync()
}

/// The whole body, `bytes` at a time, `every` apart.
fn drip_body(full: Bytes, bytes: usize, every: Duration) -> Body {
    let stream = futures::stream::unfold((full, true), move |(mut rest, first)| async move {
        if rest.is_empty() {
            return None;
        }
        if !first {
            tokio::time::sleep(every).await;
        }
        let chunk = rest.split_to(bytes.min(rest.len()));
        Some((Ok::<_, io::Error>(Frame::data(chunk)), (rest, false)))
    });
    StreamBody::new(stream).boxed_unsync()
}

/// The upstream client: TLS to the real API server, trusting only `ca_pem`'s certificates.
pub fn upstream_client(ca_pem: &std::path::Path) -> Result<Upstream> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    for cert in
        CertificateDer::pem_file_iter(ca_pem).with_context(|| format!("reading {}", ca_pem.display()))?
    {
        roots.add(cert.with_context(|| format!("parsing {}", ca_pem.display()))?)?;
    }
    let config =
        rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_only()
        .enable_http1()
        .build();
    Ok(Client::builder(TokioExecutor::new()).build(https))
}

/// The server side: the API server's certificate chain and key, HTTP/2 and HTTP/1.1.
pub fn server_tls(cert_pem: &std::path::Path, key_pem: &std::path::Path) -> Result<rustls::ServerConfig> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs = CertificateDer::pem_file_iter(cert_pem)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .with_context(|| format!("reading certificates from {}", cert_pem.display()))?;
    let key = PrivateKeyDer::from_pem_file(key_pem)
        .with_context(|| format!("reading a private key from {}", key_pem.display()))?;
    let mut config =
        rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(certs, key)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Only loopback upstreams: https://127.0.0.1:PORT, https://[::1]:PORT or https://localhost:PORT.
pub fn loopback_https(url: &str) -> Result<Uri> {
    let uri: Uri = url.parse().with_context(|| format!("invalid --upstream {url:?}"))?;
    anyhow::ensure!(uri.scheme_str() == Some("https"), "--upstream must be an https:// URL, got {url:?}");
    let host = uri.host().unwrap_or("").trim_start_matches('[').trim_end_matches(']');
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    anyhow::ensure!(loopback, "--upstream must be on loopback (127.0.0.1, ::1 or localhost), got {url:?}");
    anyhow::ensure!(uri.path() == "/" || uri.path().is_empty(), "--upstream takes no path, got {url:?}");
    Ok(uri)
}
