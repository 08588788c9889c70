//! netproxy (tests/support/netproxy.rs), without a cluster: the rule schedule on its own,
//! then the real binary in front of a local TCP echo server (delay mode) and a local
//! HTTPS server with a freshly made certificate (faults mode).

#[path = "support/netproxy_client.rs"]
mod netproxy_client;
#[allow(dead_code)]
#[path = "support/netproxy/rules.rs"]
mod rules;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use netproxy_client::NetProxy;
use rules::{Fault, RequestInfo, Schedule, parse_rules, verb};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

// ---------------------------------------------------------------- the schedule

#[test]
fn verbs_follow_kubernetes() {
    let cases = [
        ("GET", "/api/v1/namespaces", "", "LIST"),
        ("GET", "/api/v1/namespaces/default", "", "GET"),
        ("GET", "/api/v1/namespaces/default/pods", "limit=500", "LIST"),
        ("GET", "/api/v1/namespaces/default/pods", "watch=true&resourceVersion=1", "WATCH"),
        ("GET", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets", "", "LIST"),
        ("GET", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/train", "", "GET"),
        ("GET", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/train/status", "", "GET"),
        ("GET", "/apis/batch/v1/jobs", "", "LIST"),
        ("GET", "/api", "", "GET"),
        ("GET", "/apis/batch/v1", "", "GET"),
        ("PATCH", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets/train", "", "PATCH"),
    ];
    for (method, path, query, want) in cases {
        assert_eq!(verb(method, path, query), want, "{method} {path}?{query}");
    }
}

fn req<'a>(method: &'a str, path: &'a str, query: &'a str) -> RequestInfo<'a> {
    RequestInfo { method, path, query }
}

#[test]
fn rules_pick_their_nth_and_every_occurrence_and_the_first_rule_wins() {
    let rules = parse_rules(
        r#"[{"method": "LIST", "path": "/namespaces", "nth": [2, 3], "fault": {"kind": "status", "code": 503}},
            {"method": "*", "path": "/namespaces", "every": 2, "fault": {"kind": "reset_before_forward"}},
            {"method": "PATCH", "query": "dryRun=All", "fault": {"kind": "cut", "bytes": 5}}]"#,
    )
    .unwrap();
    let mut schedule = Schedule::new(rules, 1);
    let picks: Vec<Option<(usize, u64)>> = (0..4)
        .map(|_| schedule.decide(req("GET", "/api/v1/namespaces", "")).map(|d| (d.rule, d.occurrence)))
        .collect();
    // Rule 1 counts every request it matches, also those rule 0 takes.
    assert_eq!(picks, [None, Some((0, 2)), Some((0, 3)), Some((1, 4))]);
    assert_eq!(schedule.decide(req("PATCH", "/apis/g/v/x/y", "fieldManager=a")), None);
    let dry_run = schedule.decide(req("PATCH", "/apis/g/v/x/y", "dryRun=All&fieldManager=a")).unwrap();
    assert_eq!((dry_run.rule, dry_run.fault), (2, Fault::Cut { bytes: 5 }));
}

#[test]
fn probability_is_reproducible_with_a_seed() {
    let rules =
        parse_rules(r#"{"rules": [{"probability": 0.5, "fault": {"kind": "delay", "ms": 1}}]}"#).unwrap();
    let run = |seed| {
        let mut schedule = Schedule::new(rules.clone(), seed);
        (0..1000).map(|_| schedule.decide(req("GET", "/api", "")).is_some()).collect::<Vec<_>>()
    };
    let first = run(42);
    assert_eq!(first, run(42));
    assert_ne!(first, run(43));
    let hits = first.iter().filter(|hit| **hit).count();
    assert!((400..600).contains(&hits), "{hits} of 1000 picked at p=0.5");
}

#[test]
fn bad_schedules_are_refused_with_the_rule_number() {
    let bad = [
        (r#"[{"method": "FETCH", "fault": {"kind": "reset_after_forward"}}]"#, "rule 0: method"),
        (r#"[{"nth": [1], "every": 2, "fault": {"kind": "reset_after_forward"}}]"#, "at most one"),
        (r#"[{"nth": [0], "fault": {"kind": "reset_after_forward"}}]"#, "count from 1"),
        (r#"[{"fault": {"kind": "status", "code": 200}}]"#, "not an error status"),
        (r#"[{"fault": {"kind": "drip", "bytes": 0, "every_ms": 5}}]"#, "bytes > 0"),
        (r#"[{"fault": {"kind": "explode"}}]"#, "invalid schedule"),
        (r#"[{"pth": "/api", "fault": {"kind": "reset_after_forward"}}]"#, "invalid schedule"),
    ];
    for (text, want) in bad {
        let err = parse_rules(text).unwrap_err();
        assert!(err.contains(want), "{text}: {err}");
    }
}

#[test]
fn status_bodies_are_kubernetes_statuses() {
    let body = rules::status_body(429, None, Some(3));
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["reason"], "TooManyRequests");
    assert_eq!(body["code"], 429);
    assert_eq!(body["details"]["retryAfterSeconds"], 3);
    assert_eq!(rules::status_body(503, Some("down"), None)["message"], "down");
}

// ---------------------------------------------------------------- delay mode

/// A TCP echo server; each connection echoes until the client half-closes.
async fn echo_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (mut read, mut write) = stream.into_split();
                let _ = tokio::io::copy(&mut read, &mut write).await;
                let _ = write.shutdown().await;
            });
        }
    });
    addr
}

async fn round_trip(addr: SocketAddr) -> Duration {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let start = Instant::now();
    stream.write_all(b"ping").await.unwrap();
    let mut back = [0u8; 4];
    stream.read_exact(&mut back).await.unwrap();
    assert_eq!(&back, b"ping");
    start.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delay_adds_twice_the_delay_to_a_round_trip() {
    let echo = echo_server().await;
    let proxy = NetProxy::delay(&echo.to_string(), 100, 0, 1);
    let via = round_trip(proxy.addr).await;
    assert!(via >= Duration::from_millis(200), "round trip {via:?} through a 100 ms one-way delay");
    assert!(via < Duration::from_millis(900), "round trip {via:?} is far beyond 2 x 100 ms");
}

/// Many small writes per connection, many connections: every byte comes back in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delay_keeps_byte_order_under_jitter() {
    let echo = echo_server().await;
    let proxy = NetProxy::delay(&echo.to_string(), 2, 15, 7);
    let clients = (0..12).map(|conn| {
        let addr = proxy.addr;
        tokio::spawn(async move {
            let mut stream = TcpStream::connect(addr).await.unwrap();
            stream.set_nodelay(true).unwrap();
            let mut sent = Vec::new();
            for i in 0..60 {
                let piece = format!("{conn}:{i};");
                stream.write_all(piece.as_bytes()).await.unwrap();
                sent.extend_from_slice(piece.as_bytes());
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            stream.shutdown().await.unwrap();
            let mut back = Vec::new();
            stream.read_to_end(&mut back).await.unwrap();
            assert_eq!(String::from_utf8_lossy(&back), String::from_utf8_lossy(&sent), "connection {conn}");
        })
    });
    for client in clients.collect::<Vec<_>>() {
        tokio::time::timeout(Duration::from_secs(5), client).await.expect("echo through the proxy").unwrap();
    }
}

// ---------------------------------------------------------------- faults mode

/// A CA and a server certificate for 127.0.0.1 and localhost, as PEM files.
struct Pki {
    dir: tempfile::TempDir,
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

fn make_pki() -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
    let dir = tempfile::tempdir().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(DnType::CommonName, "netproxy-test-ca");
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let params = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
    let cert = params.signed_by(&key, &ca).unwrap();
    let pki = Pki {
        ca: dir.path().join("ca.crt"),
        cert: dir.path().join("server.crt"),
        key: dir.path().join("server.key"),
        dir,
    };
    std::fs::write(&pki.ca, ca.pem()).unwrap();
    std::fs::write(&pki.cert, cert.pem()).unwrap();
    std::fs::write(&pki.key, key.serialize_pem()).unwrap();
    pki
}

fn ring() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn client_tls(pki: &Pki) -> rustls::ClientConfig {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from_pem_file(&pki.ca).unwrap()).unwrap();
    rustls::ClientConfig::builder_with_provider(ring())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth()
}

/// What the test upstream saw: "METHOD path?query", in order.
type Seen = Arc<Mutex<Vec<String>>>;

const BIG: usize = 1000;

/// An HTTPS server on the test certificate: `/big` answers 1000 bytes, anything else
/// a JSON echo of the request (with its Authorization header).
async fn https_upstream(pki: &Pki) -> (SocketAddr, Seen) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let config = rustls::ServerConfig::builder_with_provider(ring())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from_pem_file(&pki.cert).unwrap()],
            PrivateKeyDer::from_pem_file(&pki.key).unwrap(),
        )
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Seen::default();
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, log) = (acceptor.clone(), log.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else { return };
                let service = hyper::service::service_fn(move |req| echo_answer(log.clone(), req));
                let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                let _ = builder.serve_connection(TokioIo::new(tls), service).await;
            });
        }
    });
    (addr, seen)
}

async fn echo_answer(seen: Seen, req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let query = req.uri().query().unwrap_or("").to_owned();
    seen.lock().unwrap().push(format!("{} {}?{query}", req.method(), req.uri().path()));
    if req.uri().path() == "/big" {
        return Ok(Response::new(Full::new(Bytes::from(vec![b'x'; BIG]))));
    }
    let auth = req.headers().get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let echo = json!({"method": req.method().as_str(), "path": req.uri().path(), "query": query,
        "authorization": auth});
    Ok(Response::new(Full::new(Bytes::from(echo.to_string()))))
}

/// An answer as a client saw it; `broken` when the body ended in an error.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
    frames: usize,
    broken: bool,
    elapsed: Duration,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {self:?}"))
    }
}

/// One request on a fresh TLS connection (HTTP/2 when `h2`, negotiated by ALPN).
async fn call(
    addr: SocketAddr,
    tls: &rustls::ClientConfig,
    h2: bool,
    method: &str,
    path: &str,
) -> Result<Reply, String> {
    let mut config = tls.clone();
    config.alpn_protocols = vec![if h2 { b"h2".to_vec() } else { b"http/1.1".to_vec() }];
    let tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| e.to_string())?;
    let alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    assert_eq!(alpn.as_deref(), Some(if h2 { &b"h2"[..] } else { &b"http/1.1"[..] }), "ALPN");
    let target = if h2 { format!("https://{addr}{path}") } else { path.to_owned() };
    let request = Request::builder()
        .method(method)
        .uri(target)
        .header("host", addr.to_string())
        .header("authorization", "Bearer t0ken")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let start = Instant::now();
    let io = TokioIo::new(stream);
    let response = if h2 {
        let (mut sender, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        sender.send_request(request).await
    } else {
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(io).await.map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        sender.send_request(request).await
    };
    read_reply(response.map_err(|e| e.to_string())?, start).await
}

async fn read_reply(response: Response<Incoming>, start: Instant) -> Result<Reply, String> {
    let (head, mut body) = response.into_parts();
    let (mut bytes, mut frames, mut broken) = (Vec::new(), 0, false);
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => {
                if let Some(data) = frame.data_ref() {
                    bytes.extend_from_slice(data);
                    frames += 1;
                }
            }
            Err(_) => {
                broken = true;
                break;
            }
        }
    }
    let status = head.status.as_u16();
    Ok(Reply { status, headers: head.headers, body: bytes, frames, broken, elapsed: start.elapsed() })
}

/// A local HTTPS upstream and a faults proxy in front of it with `rules`.
struct Faults {
    _pki: Pki,
    tls: rustls::ClientConfig,
    seen: Seen,
    proxy: NetProxy,
}

async fn faults(rules: Value) -> Faults {
    let pki = make_pki();
    let (upstream, seen) = https_upstream(&pki).await;
    let log = pki.dir.path().join("netproxy.jsonl");
    let url = format!("https://{upstream}");
    let proxy = NetProxy::faults(&url, &pki.ca, &pki.cert, &pki.key, &rules.to_string(), &log);
    Faults { tls: client_tls(&pki), _pki: pki, seen, proxy }
}

impl Faults {
    async fn call(&self, h2: bool, method: &str, path: &str) -> Result<Reply, String> {
        call(self.proxy.addr, &self.tls, h2, method, path).await
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }

    /// (verb, path, fault, forwarded, status) of every logged request.
    fn log(&self) -> Vec<(String, String, String, bool, Value)> {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        let entries = self.proxy.log_entries();
        entries
            .iter()
            .map(|e| {
                (
                    text(&e["verb"]),
                    text(&e["path"]),
                    text(&e["fault"]),
                    e["forwarded"] == true,
                    e["status"].clone(),
                )
            })
            .collect()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_answer_scheduled_statuses_and_pass_the_rest_through() {
    let f = faults(json!([
        {"method": "LIST", "path": "/api/v1/namespaces", "nth": [1],
         "fault": {"kind": "status", "code": 429, "retry_after": 3}},
        {"method": "LIST", "path": "/api/v1/namespaces", "nth": [2], "fault": {"kind": "status", "code": 503}},
    ]))
    .await;
    let throttled = f.call(false, "GET", "/api/v1/namespaces").await.unwrap();
    assert_eq!(throttled.status, 429);
    assert_eq!(throttled.headers["retry-after"], "3");
    assert_eq!(throttled.headers["content-type"], "application/json");
    assert_eq!(throttled.json()["reason"], "TooManyRequests");
    let unavailable = f.call(true, "GET", "/api/v1/namespaces").await.unwrap();
    assert_eq!(
        (unavailable.status, unavailable.json()["reason"].clone()),
        (503, json!("ServiceUnavailable"))
    );
    assert!(unavailable.headers.get("retry-after").is_none());
    for h2 in [false, true] {
        let passed = f.call(h2, "GET", "/api/v1/namespaces").await.unwrap();
        assert_eq!(passed.status, 200);
        assert_eq!(passed.json()["authorization"], "Bearer t0ken", "h2: {h2}");
    }
    let object = f.call(true, "GET", "/api/v1/namespaces/default").await.unwrap();
    assert_eq!(object.json()["path"], "/api/v1/namespaces/default");
    // The faults never reached upstream.
    assert_eq!(
        f.seen(),
        ["GET /api/v1/namespaces?", "GET /api/v1/namespaces?", "GET /api/v1/namespaces/default?"]
    );
    let log = f.log();
    let faults: Vec<(&str, bool, &Value)> =
        log.iter().map(|(_, _, fault, fwd, st)| (fault.as_str(), *fwd, st)).collect();
    assert_eq!(
        faults,
        [
            ("status", false, &json!(429)),
            ("status", false, &json!(503)),
            ("none", true, &json!(200)),
            ("none", true, &json!(200)),
            ("none", true, &json!(200))
        ]
    );
    assert_eq!(log[4].0, "GET");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_reset_before_or_after_upstream_sees_the_request() {
    let f = faults(json!([
        {"method": "POST", "path": "/configmaps", "nth": [1, 2], "fault": {"kind": "reset_before_forward"}},
        {"method": "PATCH", "path": "/configmaps/a", "nth": [1, 2], "fault": {"kind": "reset_after_forward"}},
    ]))
    .await;
    let path = "/api/v1/namespaces/default/configmaps";
    for h2 in [false, true] {
        let before = f.call(h2, "POST", path).await;
        assert!(before.is_err(), "h2 {h2}: POST answered: {before:?}");
        let after = f.call(h2, "PATCH", &format!("{path}/a")).await;
        assert!(after.is_err(), "h2 {h2}: PATCH answered: {after:?}");
    }
    assert_eq!(f.call(true, "PATCH", &format!("{path}/a")).await.unwrap().status, 200);
    // Upstream never saw the POSTs, and applied each PATCH once, answered or not.
    let seen = f.seen();
    let count = |method: &str| seen.iter().filter(|s| s.starts_with(method)).count();
    assert_eq!((count("POST"), count("PATCH")), (0, 3), "{seen:?}");
    let log: Vec<(String, String, bool, Value)> =
        f.log().into_iter().map(|(verb, _, fault, fwd, status)| (verb, fault, fwd, status)).collect();
    let entry =
        |verb: &str, fault: &str, fwd: bool, status: Value| (verb.to_owned(), fault.to_owned(), fwd, status);
    let reset_before = entry("POST", "reset_before_forward", false, Value::Null);
    let reset_after = entry("PATCH", "reset_after_forward", true, Value::Null);
    let passed = entry("PATCH", "none", true, json!(200));
    assert_eq!(log, [reset_before.clone(), reset_after.clone(), reset_before, reset_after, passed]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_cut_and_drip_bodies() {
    let f = faults(json!([
        {"path": "/big", "query": "cut", "fault": {"kind": "cut", "bytes": 100}},
        {"path": "/big", "query": "drip", "fault": {"kind": "drip", "bytes": 250, "every_ms": 100}},
    ]))
    .await;
    for h2 in [false, true] {
        let cut = f.call(h2, "GET", "/big?cut=1").await.unwrap();
        assert_eq!((cut.status, cut.body.len(), cut.broken), (200, 100, true), "h2 {h2}");
        assert_eq!(cut.headers["content-length"], BIG.to_string());
        let drip = f.call(h2, "GET", "/big?drip=1").await.unwrap();
        assert_eq!((drip.status, drip.body.len(), drip.broken), (200, BIG, false), "h2 {h2}");
        assert!(drip.frames >= 4, "{} frames", drip.frames);
        assert!(drip.elapsed >= Duration::from_millis(300), "dripped in {:?}", drip.elapsed);
    }
    let whole = f.call(false, "GET", "/big").await.unwrap();
    assert_eq!((whole.body.len(), whole.broken), (BIG, false));
    let faults: Vec<String> = f.log().into_iter().map(|(_, _, fault, _, _)| fault).collect();
    assert_eq!(faults, ["cut", "drip", "cut", "drip", "none"]);
    assert_eq!(f.seen().len(), 5);
}
