//! A mock API server for the HTTP-level tests (tests/http*.rs), in the manner of kube's
//! `ApiServerVerifier`: the server side of a tower-test mock service, on which a `Client`
//! (and so a `Cluster`) is built. Two ways to drive it:
//!
//! - `verify(scenario)`: the exact conversation. Each request must be the next one the
//!   scenario expects (method, path and query, and content type and JSON body when
//!   given) and gets that step's reply; a request the scenario does not expect, or one
//!   it expects that never comes, fails the test.
//! - `serve(answer)`: a fake that answers whatever comes, by a function of the request,
//!   for tests that pin what was sent rather than in which order.
//!
//! Both return every request received, with its body, for further assertions.

#![allow(dead_code)] // each test binary uses its own part

use std::io;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use kube::Client;
use kube::client::Body;
use kubectl_jobset::cluster::Cluster;
use kubectl_jobset::cluster::request_log::RequestLog;
use serde_json::{Value, json};
use tower::BoxError;

/// The body of a reply: boxed, so a reply can also break off mid-body.
pub type ReplyBody = UnsyncBoxBody<Bytes, BoxError>;
/// The client side: a tower service to build a `Client` on (or to wrap in layers first).
pub type MockService = tower_test::mock::Mock<Request<Body>, Response<ReplyBody>>;
type Handle = tower_test::mock::Handle<Request<Body>, Response<ReplyBody>>;

/// How long `serve` waits for another request before the conversation is over.
const IDLE: Duration = Duration::from_millis(300);
/// How long `verify` waits for each expected request: longer than any backoff or
/// Retry-After the tests script.
const PATIENCE: Duration = Duration::from_secs(3);

/// The server side of the mock.
pub struct ApiServer {
    handle: Handle,
    idle: Duration,
}

/// A `Cluster` in `namespace` on a mock API server, with a quiet request log.
pub fn cluster(namespace: &str) -> (Cluster, ApiServer) {
    let (service, server) = ApiServer::pair();
    let log = Arc::new(RequestLog::quiet());
    (Cluster::from_client(Client::new(service, namespace), namespace, log), server)
}

/// One request as the API server received it.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: Method,
    /// Path and query, as sent.
    pub uri: String,
    /// Empty when there is none.
    pub content_type: String,
    pub bytes: Bytes,
    /// The body as JSON; Null when empty (or not JSON).
    pub body: Value,
}

impl Received {
    /// `METHOD path?query`, as the tests compare requests.
    pub fn line(&self) -> String {
        format!("{} {}", self.method, self.uri)
    }

    pub fn path(&self) -> &str {
        self.uri.split_once('?').map_or(self.uri.as_str(), |(path, _)| path)
    }
}

/// What the server answers to one request.
pub enum Reply {
    Json {
        status: StatusCode,
        body: Value,
        retry_after: Option<&'static str>,
    },
    /// A 200 whose body breaks off after its first bytes.
    CutShort,
    /// No answer: the connection fails with this error.
    Fail(io::Error),
}

impl Reply {
    pub fn json(status: StatusCode, body: Value) -> Reply {
        Reply::Json { status, body, retry_after: None }
    }

    pub fn ok(body: Value) -> Reply {
        Reply::json(StatusCode::OK, body)
    }

    pub fn created(body: Value) -> Reply {
        Reply::json(StatusCode::CREATED, body)
    }

    /// A failure answered as the API server does: a `Status` document.
    pub fn status(code: u16, reason: &str, message: &str) -> Reply {
        let body = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
            "message": message, "reason": reason, "code": code});
        Reply::json(StatusCode::from_u16(code).unwrap(), body)
    }

    /// The same reply with a `Retry-After` header.
    pub fn retry_after(self, seconds: &'static str) -> Reply {
        match self {
            Reply::Json { status, body, .. } => Reply::Json { status, body, retry_after: Some(seconds) },
            other => other,
        }
    }

    fn into_response(self) -> Result<Response<ReplyBody>, io::Error> {
        match self {
            Reply::Json { status, body, retry_after } => {
                let mut builder = Response::builder().status(status);
                if let Some(seconds) = retry_after {
                    builder = builder.header(http::header::RETRY_AFTER, seconds);
                }
                let bytes = Bytes::from(serde_json::to_vec(&body).unwrap());
                Ok(builder.body(Full::new(bytes).map_err(|e| match e {}).boxed_unsync()).unwrap())
            }
            Reply::CutShort => {
                let chunks: Vec<Result<http_body::Frame<Bytes>, BoxError>> = vec![
                    Ok(http_body::Frame::data(Bytes::from_static(b"{\"items\": ["))),
                    Err(Box::new(io::Error::from(io::ErrorKind::UnexpectedEof))),
                ];
                Ok(Response::new(StreamBody::new(futures::stream::iter(chunks)).boxed_unsync()))
            }
            Reply::Fail(err) => Err(err),
        }
    }
}

/// A list answer with `items`, continued at `continue_token` when given.
pub fn list(items: Vec<Value>, continue_token: Option<&str>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"continue": continue_token.unwrap_or("")}, "items": items})
}

/// One expected request and its reply.
pub struct Step {
    method: Option<Method>,
    uri: Option<String>,
    content_type: Option<String>,
    body: Option<Value>,
    reply: Reply,
}

impl Step {
    /// A request with this method and exactly this path and query.
    pub fn new(method: Method, uri: &str) -> Step {
        Step { method: Some(method), uri: Some(uri.to_owned()), ..Step::any() }
    }

    pub fn get(uri: &str) -> Step {
        Step::new(Method::GET, uri)
    }

    pub fn post(uri: &str) -> Step {
        Step::new(Method::POST, uri)
    }

    pub fn patch(uri: &str) -> Step {
        Step::new(Method::PATCH, uri)
    }

    /// Whatever request comes next (for scripts that only count requests).
    pub fn any() -> Step {
        let reply = Reply::status(500, "InternalError", "the scenario scripts no reply to this request");
        Step { method: None, uri: None, content_type: None, body: None, reply }
    }

    pub fn content_type(mut self, content_type: &str) -> Step {
        self.content_type = Some(content_type.to_owned());
        self
    }

    /// The JSON body, exactly.
    pub fn body(mut self, body: Value) -> Step {
        self.body = Some(body);
        self
    }

    pub fn reply(mut self, reply: Reply) -> Step {
        self.reply = reply;
        self
    }

    fn matches(&self, request: &Received) -> bool {
        self.method.as_ref().is_none_or(|m| *m == request.method)
            && self.uri.as_ref().is_none_or(|u| *u == request.uri)
    }

    fn describe(&self) -> String {
        match (&self.method, &self.uri) {
            (Some(method), Some(uri)) => format!("{method} {uri}"),
            _ => "any request".into(),
        }
    }

    /// Asserts what the step says about the request beyond its method and URI.
    fn check(&self, request: &Received) {
        if let Some(content_type) = &self.content_type {
            assert_eq!(&request.content_type, content_type, "content type of {}", request.line());
        }
        if let Some(body) = &self.body {
            pretty_assertions::assert_eq!(&request.body, body, "body of {}", request.line());
        }
    }
}

impl From<Reply> for Step {
    /// A step that expects nothing of the request and answers `reply`.
    fn from(reply: Reply) -> Step {
        Step::any().reply(reply)
    }
}

/// The conversation `verify` expects: stages in order; the requests of one stage (sent
/// concurrently by the code under test) in any order.
#[derive(Default)]
pub struct Scenario {
    stages: Vec<Vec<Step>>,
}

impl Scenario {
    pub fn new() -> Scenario {
        Scenario::default()
    }

    /// The next request.
    pub fn then(mut self, step: impl Into<Step>) -> Scenario {
        self.stages.push(vec![step.into()]);
        self
    }

    /// The next requests, in any order.
    pub fn together(mut self, steps: impl IntoIterator<Item = Step>) -> Scenario {
        self.stages.push(steps.into_iter().collect());
        self
    }
}

impl<S: Into<Step>> FromIterator<S> for Scenario {
    /// One request after another.
    fn from_iter<I: IntoIterator<Item = S>>(steps: I) -> Scenario {
        steps.into_iter().fold(Scenario::new(), Scenario::then)
    }
}

impl ApiServer {
    /// A mock service and the server that answers it.
    pub fn pair() -> (MockService, ApiServer) {
        let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<ReplyBody>>();
        (service, ApiServer { handle, idle: IDLE })
    }

    /// How long `serve` waits for another request before the conversation is over.
    pub fn idle(mut self, idle: Duration) -> ApiServer {
        self.idle = idle;
        self
    }

    /// The next request and where to send its reply; None when none came within `wait`.
    async fn next(&mut self, wait: Duration) -> Option<(Received, Responder)> {
        let (request, send) = tokio::time::timeout(wait, self.handle.next_request()).await.ok()??;
        let (parts, body) = request.into_parts();
        let bytes = body.collect_bytes().await.unwrap();
        let content_type = parts
            .headers
            .get(http::header::CONTENT_TYPE)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let received = Received {
            method: parts.method,
            uri: parts.uri.to_string(),
            content_type,
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            bytes,
        };
        Some((received, Responder(send)))
    }

    /// Answers every request with `answer` until none comes for the idle time.
    pub async fn serve(mut self, mut answer: impl FnMut(&Received) -> Reply) -> Vec<Received> {
        let mut seen = Vec::new();
        while let Some((request, responder)) = self.next(self.idle).await {
            responder.send(answer(&request));
            seen.push(request);
        }
        seen
    }

    /// Plays `scenario`, asserting each request, then asserts that no other follows.
    pub async fn verify(mut self, scenario: Scenario) -> Vec<Received> {
        let mut seen = Vec::new();
        for mut stage in scenario.stages {
            while !stage.is_empty() {
                let expected: Vec<String> = stage.iter().map(Step::describe).collect();
                let Some((request, responder)) = self.next(PATIENCE).await else {
                    panic!(
                        "expected {expected:#?}, no request came within {PATIENCE:?}; seen: {:#?}",
                        lines(&seen)
                    );
                };
                let Some(at) = stage.iter().position(|step| step.matches(&request)) else {
                    responder.send(Reply::Fail(io::Error::other("unexpected request")));
                    panic!(
                        "expected {expected:#?}, got {}; seen before: {:#?}",
                        request.line(),
                        lines(&seen)
                    );
                };
                let step = stage.remove(at);
                step.check(&request);
                responder.send(step.reply);
                seen.push(request);
            }
        }
        if let Some((request, responder)) = self.next(IDLE).await {
            responder.send(Reply::Fail(io::Error::other("unexpected extra request")));
            panic!(
                "a request after the scenario's last: {}; seen before: {:#?}",
                request.line(),
                lines(&seen)
            );
        }
        seen
    }
}

fn lines(seen: &[Received]) -> Vec<String> {
    seen.iter().map(Received::line).collect()
}

/// Sends the reply to one request.
struct Responder(tower_test::mock::SendResponse<Response<ReplyBody>>);

impl Responder {
    fn send(self, reply: Reply) {
        match reply.into_response() {
            Ok(response) => self.0.send_response(response),
            Err(err) => self.0.send_error(err),
        }
    }
}
