//! HTTP-level tests of retries, transport-failure messages and guarded writes whose answer
//! is lost (re-read, then decided): a scripted API server
//! (tower-test) behind the same retry and request-log layers `connect` installs.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use kube::Client;
use kube::client::Body;
use kubectl_jobset::cluster::Cluster;
use kubectl_jobset::cluster::request_log::{RequestLog, RequestLogLayer};
use kubectl_jobset::cluster::retry::{RetryLayer, RetryPolicy};
use kubectl_jobset::error::Error;
use serde_json::{Value, json};
use tower::{BoxError, ServiceBuilder};

type TestBody = UnsyncBoxBody<Bytes, BoxError>;
type Handle = tower_test::mock::Handle<Request<Body>, Response<TestBody>>;

/// What the scripted server answers to one request.
enum Answer {
    Json(StatusCode, Value, Option<&'static str>),
    /// A 200 whose body breaks off after its first bytes.
    CutShort,
    Fail(io::Error),
}

fn ok(body: Value) -> Answer {
    Answer::Json(StatusCode::OK, body, None)
}

fn status(code: u16, reason: &str, retry_after: Option<&'static str>) -> Answer {
    let body = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
        "message": format!("scripted {code}"), "reason": reason, "code": code});
    Answer::Json(StatusCode::from_u16(code).unwrap(), body, retry_after)
}

fn list() -> Value {
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"continue": ""}, "items": []})
}

/// A `Write` the test can read back.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl io::Write for Lines {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Lines {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Short waits, so tests that retry on backoff stay fast.
fn quick() -> RetryPolicy {
    RetryPolicy { first_backoff: Duration::from_millis(5), ..RetryPolicy::within(None) }
}

fn cluster(policy: RetryPolicy) -> (Cluster, Handle, Lines) {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<TestBody>>();
    let lines = Lines::default();
    let log = Arc::new(RequestLog::new(6, Box::new(lines.clone())));
    let stack = ServiceBuilder::new()
        .layer(RetryLayer::new(policy, log.clone()))
        .layer(RequestLogLayer::new(log.clone()))
        .service(service);
    (Cluster::from_client(Client::new(stack, "ml"), "ml", log), handle, lines)
}

fn response(answer: Answer) -> Result<Response<TestBody>, io::Error> {
    let (status, body, retry_after) = match answer {
        Answer::Json(status, body, retry_after) => (status, body, retry_after),
        Answer::CutShort => {
            let chunks: Vec<Result<http_body::Frame<Bytes>, BoxError>> = vec![
                Ok(http_body::Frame::data(Bytes::from_static(b"{\"items\": ["))),
                Err(Box::new(io::Error::from(io::ErrorKind::UnexpectedEof))),
            ];
            let body = StreamBody::new(futures::stream::iter(chunks)).boxed_unsync();
            return Ok(Response::new(body));
        }
        Answer::Fail(err) => return Err(err),
    };
    let mut builder = Response::builder().status(status);
    if let Some(seconds) = retry_after {
        builder = builder.header(http::header::RETRY_AFTER, seconds);
    }
    let body =
        Full::new(Bytes::from(serde_json::to_vec(&body).unwrap())).map_err(|e| match e {}).boxed_unsync();
    Ok(builder.body(body).unwrap())
}

/// Answers requests in order; returns every request seen as `METHOD uri`, including any
/// extra one after the script ran out (answered 500), so retries can be counted.
async fn serve(mut handle: Handle, script: Vec<Answer>) -> Vec<String> {
    let mut seen = Vec::new();
    let mut script = script.into_iter();
    while let Ok(Some((request, send))) =
        tokio::time::timeout(Duration::from_secs(3), handle.next_request()).await
    {
        seen.push(format!("{} {}", request.method(), request.uri()));
        match response(script.next().unwrap_or_else(|| status(500, "InternalError", None))) {
            Ok(answer) => send.send_response(answer),
            Err(err) => send.send_error(err),
        }
        if script.len() == 0 {
            // Anything after the script is an extra request; wait briefly for one.
            if let Ok(Some((request, send))) =
                tokio::time::timeout(Duration::from_millis(300), handle.next_request()).await
            {
                seen.push(format!("{} {}", request.method(), request.uri()));
                send.send_error(io::Error::other("unexpected extra request"));
            }
            break;
        }
    }
    seen
}

const LIST_URL: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?&limit=500";

#[tokio::test]
async fn a_list_throttled_with_retry_after_is_retried_once_after_that_wait() {
    let (cluster, handle, lines) = cluster(RetryPolicy::within(None));
    let server = tokio::spawn(serve(handle, vec![status(429, "TooManyRequests", Some("1")), ok(list())]));
    let started = std::time::Instant::now();
    let items = cluster.list_jobsets(Some("ml"), None).await.unwrap();
    assert!(items.is_empty());
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After was not honoured");
    let seen = server.await.unwrap();
    assert_eq!(seen, vec![format!("GET {LIST_URL}"), format!("GET {LIST_URL}")]);
    let log = lines.text();
    let retry_line = format!("retrying GET {LIST_URL} after 429 Too Many Requests (try 2 of 5, in 1s)");
    assert!(log.contains(&retry_line), "{log}");
    let tries = log.lines().filter(|l| l.starts_with(&format!("GET {LIST_URL} "))).count();
    assert_eq!(tries, 2, "each try is logged: {log}");
}

#[tokio::test]
async fn a_get_answered_503_is_retried_and_succeeds() {
    let (cluster, handle, _) = cluster(quick());
    let server =
        tokio::spawn(serve(handle, vec![status(503, "ServiceUnavailable", None), ok(json!({"a": 1}))]));
    let got = cluster.get_jobset("ml", "train").await.unwrap();
    assert_eq!(got.raw, json!({"a": 1}));
    assert_eq!(server.await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_patch_answered_503_is_not_retried_and_says_the_server_is_unavailable() {
    let (cluster, handle, _) = cluster(quick());
    let server = tokio::spawn(serve(handle, vec![status(503, "ServiceUnavailable", None)]));
    let ops: json_patch::Patch =
        serde_json::from_value(json!([{"op": "replace", "path": "/spec/suspend", "value": true}])).unwrap();
    let err = cluster.patch_jobset("ml", "train", None, &ops, false).await.unwrap_err();
    let seen = server.await.unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(seen[0].starts_with("PATCH "), "{seen:?}");
    assert!(matches!(err, Error::ServerFailure { code: 503, .. }), "{err}");
    assert!(err.to_string().contains("is unavailable (503 ServiceUnavailable)"), "{err}");
}

#[tokio::test]
async fn throttling_that_outlasts_the_retries_names_api_priority_and_fairness() {
    let policy = RetryPolicy { max_tries: 2, ..quick() };
    let (cluster, handle, _) = cluster(policy);
    let script = vec![status(429, "TooManyRequests", None), status(429, "TooManyRequests", None)];
    let server = tokio::spawn(serve(handle, script));
    let err = cluster.list_jobsets(Some("ml"), None).await.unwrap_err();
    assert_eq!(server.await.unwrap().len(), 2);
    let text = err.to_string();
    assert!(matches!(err, Error::Throttled { .. }), "{text}");
    assert!(
        text.contains("throttling requests (429 Too Many Requests, API Priority and Fairness)"),
        "{text}"
    );
    assert!(!text.contains("--insecure-skip-tls-verify"), "{text}");
}

#[tokio::test]
async fn a_reset_write_is_not_retried_and_says_the_connection_was_lost() {
    let (cluster, handle, _) = cluster(quick());
    let server = tokio::spawn(serve(handle, vec![Answer::Fail(io::ErrorKind::ConnectionReset.into())]));
    let revision = k8s_openapi::api::apps::v1::ControllerRevision::default();
    let err = cluster.create_revision("ml", &revision).await.unwrap_err();
    assert_eq!(server.await.unwrap().len(), 1);
    let text = err.to_string();
    assert!(matches!(err, Error::ConnectionLost { .. }), "{text}");
    assert!(text.contains("the connection to the API server at https://test was closed before the answer was complete (the connection was reset)"), "{text}");
    assert!(!text.contains("--insecure-skip-tls-verify"), "{text}");
}

#[tokio::test]
async fn a_dry_run_create_whose_answer_is_cut_short_is_retried_with_its_body() {
    let (cluster, mut handle, lines) = cluster(quick());
    let server = tokio::spawn(async move {
        let mut bodies = Vec::new();
        for answer in [Answer::CutShort, ok(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {}}))]
        {
            let (request, send) = handle.next_request().await.unwrap();
            assert!(request.uri().query().unwrap().contains("dryRun=All"));
            bodies.push(request.into_body().collect_bytes().await.unwrap());
            send.send_response(response(answer).unwrap());
        }
        bodies
    });
    let probe = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "p-"}});
    let created = cluster.dry_run_create_job("ml", &probe).await.unwrap();
    assert_eq!(created["kind"], "Job");
    let bodies = server.await.unwrap();
    assert_eq!(bodies[0], bodies[1]);
    let sent: Value = serde_json::from_slice(&bodies[0]).unwrap();
    assert_eq!(sent, probe);
    assert!(
        lines.text().contains("after the server closed the connection mid-answer (try 2 of 5"),
        "{}",
        lines.text()
    );
}

#[tokio::test]
async fn an_untrusted_certificate_is_not_retried_and_is_the_only_failure_suggesting_insecure() {
    let (cluster, handle, _) = cluster(quick());
    let cert = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
    let server =
        tokio::spawn(serve(handle, vec![Answer::Fail(io::Error::new(io::ErrorKind::InvalidData, cert))]));
    let err = cluster.get_jobset("ml", "train").await.unwrap_err();
    assert_eq!(server.await.unwrap().len(), 1);
    let text = err.to_string();
    assert!(matches!(err, Error::Tls { .. }), "{text}");
    assert!(text.contains("invalid peer certificate"), "{text}");
    assert!(text.contains("--insecure-skip-tls-verify"), "{text}");
}

// Guarded writes whose answer is lost: the re-read decides, and a restart is never sent twice.

use kubectl_jobset::execute::{DryRun, Outcome, restart_one};
use kubectl_jobset::model::jobset::JobSet;
use kubectl_jobset::plan::restart::RestartOptions;

const STATUS_URL: &str =
    "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train/status?&fieldManager=kubectl-jobset";
const GET_URL: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train";
const EVENTS_URL: &str = "/apis/events.k8s.io/v1/namespaces/ml/events?";
/// The condition message our restart from attempt 0 writes.
const OUR_MESSAGE: &str = "restart 1 requested by alice with kubectl-jobset";

fn train(restarts: i32, conditions: Value) -> Value {
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "ml", "uid": "uid-train", "resourceVersion": "7"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {}}]},
        "status": {"restarts": restarts, "conditions": conditions}})
}

fn restarted_by(message: &str) -> Value {
    train(
        1,
        json!([{"type": "RestartingJobSet", "status": "True", "reason": "ManualRestart", "message": message}]),
    )
}

async fn restart(script: Vec<Answer>) -> (Outcome, Vec<String>, String) {
    let (cluster, handle, lines) = cluster(quick());
    let server = tokio::spawn(serve(handle, script));
    let jobset = JobSet::from_raw(train(0, json!([]))).unwrap();
    let options = RestartOptions { requested_by: "alice".into(), ..Default::default() };
    // Attempt 0's one Job is there: no restart is in progress.
    let job: kubectl_jobset::model::jobset::ChildJob = serde_json::from_value(json!({
        "metadata": {"name": "train-w-0", "labels": {"jobset.sigs.k8s.io/restart-attempt": "0",
            "jobset.sigs.k8s.io/replicatedjob-name": "w"}}}))
    .unwrap();
    let outcome = restart_one(&cluster, &jobset, &[job], &options, DryRun::None).await;
    (outcome, server.await.unwrap(), lines.text())
}

fn event() -> Answer {
    Answer::Json(StatusCode::CREATED, json!({"kind": "Event"}), None)
}

#[tokio::test]
async fn a_restart_answered_503_whose_reread_shows_it_landed_is_one_patch_reported_restarted() {
    let script = vec![status(503, "ServiceUnavailable", None), ok(restarted_by(OUR_MESSAGE)), event()];
    let (outcome, seen, log) = restart(script).await;
    assert!(matches!(outcome, Outcome::Restarted { from: 0, to: 1, .. }), "{outcome:?}");
    assert_eq!(
        seen,
        [format!("PATCH {STATUS_URL}"), format!("GET {GET_URL}"), format!("POST {EVENTS_URL}")],
        "{log}"
    );
    assert!(log.contains("the answer to the restart of jobset.jobset.x-k8s.io/train was lost"), "{log}");
}

#[tokio::test]
async fn a_restart_answered_503_whose_reread_shows_no_change_is_sent_again_once() {
    let script = vec![
        status(503, "ServiceUnavailable", None),
        ok(train(0, json!([]))),
        ok(restarted_by(OUR_MESSAGE)),
        event(),
    ];
    let (outcome, seen, log) = restart(script).await;
    assert!(matches!(outcome, Outcome::Restarted { from: 0, to: 1, .. }), "{outcome:?}");
    let patches = seen.iter().filter(|s| s.starts_with("PATCH ")).count();
    assert_eq!(patches, 2, "{seen:?}");
    assert_eq!(seen.len(), 4, "PATCH, GET, PATCH, POST event: {seen:?}\n{log}");
}

#[tokio::test]
async fn a_reset_restart_whose_reread_shows_it_landed_is_one_patch_reported_restarted() {
    let script =
        vec![Answer::Fail(io::ErrorKind::ConnectionReset.into()), ok(restarted_by(OUR_MESSAGE)), event()];
    let (outcome, seen, _) = restart(script).await;
    assert!(matches!(outcome, Outcome::Restarted { from: 0, to: 1, .. }), "{outcome:?}");
    assert_eq!(seen.iter().filter(|s| s.starts_with("PATCH ")).count(), 1, "{seen:?}");
    assert_eq!(seen.len(), 3, "{seen:?}");
}

#[tokio::test]
async fn a_reset_restart_whose_reread_shows_no_change_is_sent_again_once() {
    let script = vec![
        Answer::Fail(io::ErrorKind::ConnectionReset.into()),
        ok(train(0, json!([]))),
        ok(restarted_by(OUR_MESSAGE)),
        event(),
    ];
    let (outcome, seen, _) = restart(script).await;
    assert!(matches!(outcome, Outcome::Restarted { from: 0, to: 1, .. }), "{outcome:?}");
    assert_eq!(seen.iter().filter(|s| s.starts_with("PATCH ")).count(), 2, "{seen:?}");
    assert_eq!(seen.len(), 4, "{seen:?}");
}

#[tokio::test]
async fn a_lost_restart_answer_with_someone_elses_restart_behind_it_is_already_restarted() {
    let theirs = "restart 1 requested by bob with kubectl-jobset";
    let script = vec![status(504, "Timeout", None), ok(restarted_by(theirs))];
    let (outcome, seen, _) = restart(script).await;
    assert!(matches!(outcome, Outcome::AlreadyRestarted { attempt: 1 }), "{outcome:?}");
    assert_eq!(seen.len(), 2, "no second PATCH, no Event: {seen:?}");
}

#[tokio::test]
async fn a_throttled_patch_is_sent_again_after_retry_after_by_the_retry_layer() {
    let script = vec![status(429, "TooManyRequests", Some("1")), ok(restarted_by(OUR_MESSAGE)), event()];
    let started = std::time::Instant::now();
    let (outcome, seen, log) = restart(script).await;
    assert!(matches!(outcome, Outcome::Restarted { from: 0, to: 1, .. }), "{outcome:?}");
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After was not honoured");
    assert_eq!(
        seen,
        [format!("PATCH {STATUS_URL}"), format!("PATCH {STATUS_URL}"), format!("POST {EVENTS_URL}")]
    );
    let retry = format!("retrying PATCH {STATUS_URL} after 429 Too Many Requests (try 2 of 5, in 1s)");
    assert!(log.contains(&retry), "{log}");
}
