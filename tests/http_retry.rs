//! HTTP-level tests of retries, transport-failure messages and guarded writes whose answer
//! is lost (re-read, then decided): the mock API server (tests/support/api_server.rs)
//! behind the same retry and request-log layers `connect` installs.

#[path = "support/api_server.rs"]
mod api_server;

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use api_server::{ApiServer, Reply};
use kube::Client;
use kubectl_jobset::cluster::Cluster;
use kubectl_jobset::cluster::request_log::{RequestLog, RequestLogLayer};
use kubectl_jobset::cluster::retry::{RetryLayer, RetryPolicy};
use kubectl_jobset::error::Error;
use serde_json::{Value, json};
use tower::ServiceBuilder;

fn ok(body: Value) -> Reply {
    Reply::ok(body)
}

fn status(code: u16, reason: &str, retry_after: Option<&'static str>) -> Reply {
    let reply = Reply::status(code, reason, &format!("scripted {code}"));
    match retry_after {
        Some(seconds) => reply.retry_after(seconds),
        None => reply,
    }
}

fn list() -> Value {
    api_server::list(vec![], None)
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

/// A `Cluster` behind the same retry and request-log layers `connect` installs.
fn cluster(policy: RetryPolicy) -> (Cluster, ApiServer, Lines) {
    let (service, server) = ApiServer::pair();
    let lines = Lines::default();
    let log = Arc::new(RequestLog::new(6, Box::new(lines.clone())));
    let stack = ServiceBuilder::new()
        .layer(RetryLayer::new(policy, log.clone()))
        .layer(RequestLogLayer::new(log.clone()))
        .service(service);
    (Cluster::from_client(Client::new(stack, "ml"), "ml", log), server, lines)
}

/// Answers requests in order, whatever they are; returns every request seen as
/// `METHOD uri`. A request beyond the script fails the test.
async fn serve(server: ApiServer, script: Vec<Reply>) -> Vec<String> {
    let seen = server.verify(script.into_iter().collect()).await;
    seen.iter().map(|r| r.line()).collect()
}

const LIST_URL: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?";

#[tokio::test]
async fn a_list_throttled_with_retry_after_is_retried_once_after_that_wait() {
    let (cluster, api, lines) = cluster(RetryPolicy::within(None));
    let server = tokio::spawn(serve(api, vec![status(429, "TooManyRequests", Some("1")), ok(list())]));
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
    let (cluster, api, _) = cluster(quick());
    let server = tokio::spawn(serve(api, vec![status(503, "ServiceUnavailable", None), ok(json!({"a": 1}))]));
    let got = cluster.get_jobset("ml", "train").await.unwrap();
    assert_eq!(got.raw(), json!({"a": 1}));
    assert_eq!(server.await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_patch_answered_503_is_not_retried_and_says_the_server_is_unavailable() {
    let (cluster, api, _) = cluster(quick());
    let server = tokio::spawn(serve(api, vec![status(503, "ServiceUnavailable", None)]));
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
    let (cluster, api, _) = cluster(policy);
    let script = vec![status(429, "TooManyRequests", None), status(429, "TooManyRequests", None)];
    let server = tokio::spawn(serve(api, script));
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
    let (cluster, api, _) = cluster(quick());
    let server = tokio::spawn(serve(api, vec![Reply::Fail(io::ErrorKind::ConnectionReset.into())]));
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
    let (cluster, api, lines) = cluster(quick());
    let script = [Reply::CutShort, ok(json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {}}))];
    let server = tokio::spawn(api.verify(script.into_iter().collect()));
    let probe = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generateName": "p-"}});
    let created = cluster.dry_run_create_job("ml", &probe).await.unwrap();
    assert_eq!(created["kind"], "Job");
    let seen = server.await.unwrap();
    assert!(seen.iter().all(|r| r.uri.split_once('?').unwrap().1.contains("dryRun=All")), "{seen:?}");
    assert_eq!(seen[0].bytes, seen[1].bytes);
    let sent: Value = serde_json::from_slice(&seen[0].bytes).unwrap();
    assert_eq!(sent, probe);
    assert!(
        lines.text().contains("after the server closed the connection mid-answer (try 2 of 5"),
        "{}",
        lines.text()
    );
}

#[tokio::test]
async fn an_untrusted_certificate_is_not_retried_and_is_the_only_failure_suggesting_insecure() {
    let (cluster, api, _) = cluster(quick());
    let cert = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
    let server =
        tokio::spawn(serve(api, vec![Reply::Fail(io::Error::new(io::ErrorKind::InvalidData, cert))]));
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

async fn restart(script: Vec<Reply>) -> (Outcome, Vec<String>, String) {
    let (cluster, api, lines) = cluster(quick());
    let server = tokio::spawn(serve(api, script));
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

fn event() -> Reply {
    Reply::created(json!({"kind": "Event"}))
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
        vec![Reply::Fail(io::ErrorKind::ConnectionReset.into()), ok(restarted_by(OUR_MESSAGE)), event()];
    let (outcome, seen, _) = restart(script).await;
    assert!(matches!(outcome, Outcome::Restarted { from: 0, to: 1, .. }), "{outcome:?}");
    assert_eq!(seen.iter().filter(|s| s.starts_with("PATCH ")).count(), 1, "{seen:?}");
    assert_eq!(seen.len(), 3, "{seen:?}");
}

#[tokio::test]
async fn a_reset_restart_whose_reread_shows_no_change_is_sent_again_once() {
    let script = vec![
        Reply::Fail(io::ErrorKind::ConnectionReset.into()),
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
