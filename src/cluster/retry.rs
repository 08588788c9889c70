//! Retries for requests that are safe to send twice.
//!
//! Reads (GET and LIST, not watches) and server-side dry-run creates are retried when
//! the connection is lost mid-answer or the API server answers 429, 503 or 504, with
//! capped, jittered exponential backoff (or the server's `Retry-After`, capped), at most
//! [`RetryPolicy::max_tries`] tries and never past `--request-timeout`. Writes are
//! retried here only after a 429, which the API server sends before doing anything; a
//! write whose answer was lost (or 5xx) may have been applied, so it goes back to the
//! caller, which re-reads before deciding (the guarded-write loop, `guarded`).
//!
//! The answer to a retried request is read in full inside this layer, so a body cut
//! short is seen (and retried) here rather than after the response has been handed on.
//! A list page marked [`StreamedAnswer`] is the exception: its body is handed on as it
//! arrives (it is parsed item by item and never held whole), so this layer retries it
//! only until its headers are in, and the lister retries a page cut short itself.
//! The decisions are pure functions; [`RetryService`] only carries them out.

use std::error::Error as StdError;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{HeaderMap, Method, Request, Response, StatusCode, Uri};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use kube::client::Body;
use tower::buffer::Buffer;
use tower::{BoxError, Layer, Service, ServiceExt};

use super::classify::{Cause, diagnose};
use super::request_log::RequestLog;

/// Marks a request whose answer is handed on as it arrives, not read whole first: a
/// body cut short then fails whoever reads it, who retries (see the module's note).
#[derive(Debug, Clone, Copy)]
pub struct StreamedAnswer;

/// The response body this layer hands on: the server's stream, or bytes read in full.
pub type RetryBody = UnsyncBoxBody<Bytes, BoxError>;

/// How many tries, how long to wait between them, and the overall budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries in all, the first included.
    pub max_tries: u32,
    /// Wait before the first retry; doubled for each one after.
    pub first_backoff: Duration,
    /// Longest computed wait.
    pub max_backoff: Duration,
    /// Longest wait a `Retry-After` header may ask for.
    pub max_retry_after: Duration,
    /// The whole request, retries included, ends within this (`--request-timeout`).
    pub budget: Option<Duration>,
}

impl RetryPolicy {
    /// The default policy, bounded by `--request-timeout` when it is set (0 means none).
    pub fn within(request_timeout: Option<Duration>) -> Self {
        RetryPolicy {
            max_tries: 5,
            first_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(4),
            max_retry_after: Duration::from_secs(10),
            budget: request_timeout.filter(|t| !t.is_zero()),
        }
    }
}

/// True when sending the request twice cannot change anything: GET (not a watch, whose
/// answer never ends) and POST with `dryRun=All`.
pub fn is_idempotent(method: &Method, uri: &Uri) -> bool {
    let query = uri.query().unwrap_or("");
    let has = |key: &str, values: &[&str]| {
        query.split('&').filter_map(|pair| pair.split_once('=')).any(|(k, v)| k == key && values.contains(&v))
    };
    match *method {
        Method::GET | Method::HEAD => !has("watch", &["true", "1"]),
        Method::POST => has("dryRun", &["All"]),
        _ => false,
    }
}

/// Which failures a request may be sent again after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retries {
    /// Reads and dry runs: any transient failure (429, 503, 504, a lost connection).
    Transient,
    /// Writes: only a 429, which the API server's max-in-flight and API Priority and
    /// Fairness filters answer before the request does anything. Any other failure of a
    /// write goes back to the caller, whose guarded write re-reads before deciding.
    Throttled,
    /// Watches, whose answer never ends.
    Never,
}

/// How far a request may be retried (see [`Retries`]).
pub fn retries_for(method: &Method, uri: &Uri) -> Retries {
    if is_idempotent(method, uri) {
        return Retries::Transient;
    }
    match *method {
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE => Retries::Throttled,
        _ => Retries::Never,
    }
}

/// Why a try may be repeated, as the request log says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryReason {
    Status(StatusCode),
    Lost(&'static str),
}

impl std::fmt::Display for RetryReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RetryReason::Status(status) => write!(f, "{status}"),
            RetryReason::Lost(why) => f.write_str(why),
        }
    }
}

/// 429 (throttled), 503 (unavailable) and 504 (gateway timeout) are worth another try.
pub fn retryable_status(status: StatusCode) -> Option<RetryReason> {
    matches!(status.as_u16(), 429 | 503 | 504).then_some(RetryReason::Status(status))
}

/// A connection reset or closed mid-answer is worth another try; anything else (refused,
/// timed out, certificate) would fail the same way again.
pub fn retryable_error(err: &(dyn StdError + 'static)) -> Option<RetryReason> {
    match diagnose(err) {
        Cause::Lost(why) => Some(RetryReason::Lost(why)),
        _ => None,
    }
}

/// `Retry-After` in seconds (the HTTP-date form is not used by the API server).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Exponential backoff before retry number `retry` (1 for the first), capped, then
/// scaled into its upper half by `jitter` (0.0..1.0) so clients do not retry in step.
pub fn backoff(policy: &RetryPolicy, retry: u32, jitter: f64) -> Duration {
    let doubled = policy.first_backoff.saturating_mul(1u32 << retry.saturating_sub(1).min(16));
    doubled.min(policy.max_backoff).mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
}

/// How long to wait before the next try, or None to give up: after `tries` tries,
/// `elapsed` since the first began, with the server's `Retry-After` if any.
pub fn next_wait(
    policy: &RetryPolicy,
    tries: u32,
    elapsed: Duration,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Option<Duration> {
    if tries >= policy.max_tries {
        return None;
    }
    let wait = match retry_after {
        Some(asked) => asked.min(policy.max_retry_after),
        None => backoff(policy, tries, jitter),
    };
    match policy.budget {
        Some(budget) if elapsed + wait >= budget => None,
        _ => Some(wait),
    }
}

/// A wait as the log shows it: `250ms`, `1s`, `1.5s`.
pub fn format_wait(wait: Duration) -> String {
    let millis = wait.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{:.1}s", wait.as_secs_f64())
    }
}

/// A number in 0.0..1.0 that differs from call to call (std's per-instance hash keys).
pub fn jitter() -> f64 {
    let bits = std::collections::hash_map::RandomState::new().build_hasher().finish();
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// Adds [`RetryService`] around a client stack.
#[derive(Clone)]
pub struct RetryLayer {
    policy: RetryPolicy,
    log: Arc<RequestLog>,
}

impl RetryLayer {
    pub fn new(policy: RetryPolicy, log: Arc<RequestLog>) -> Self {
        RetryLayer { policy, log }
    }
}

impl<S, B> Layer<S> for RetryLayer
where
    S: Service<Request<Body>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<BoxError> + Send + Sync,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Service = RetryService<Buffer<Request<Body>, S::Future>>;

    fn layer(&self, inner: S) -> Self::Service {
        // A try after the first needs the inner service again; kube's stack is not
        // `Clone`, so it is shared through a buffer (as `kube::Client` itself does).
        RetryService { inner: Buffer::new(inner, 64), policy: self.policy.clone(), log: self.log.clone() }
    }
}

/// Sends a request, and again while [`next_wait`] allows and the failure is retryable.
#[derive(Clone)]
pub struct RetryService<S> {
    inner: S,
    policy: RetryPolicy,
    log: Arc<RequestLog>,
}

impl<S, B> Service<Request<Body>> for RetryService<S>
where
    S: Service<Request<Body>, Response = Response<B>, Error = BoxError> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<RetryBody>;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Readiness is awaited per try, on a clone of the inner service.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let inner = self.inner.clone();
        let retries = retries_for(request.method(), request.uri());
        if retries == Retries::Never || request.body().try_clone().is_none() {
            return Box::pin(async move {
                let response = inner.oneshot(request).await?;
                Ok(response.map(|body| body.map_err(Into::into).boxed_unsync()))
            });
        }
        Box::pin(send_with_retries(inner, request, retries, self.policy.clone(), self.log.clone()))
    }
}

async fn send_with_retries<S, B>(
    inner: S,
    request: Request<Body>,
    retries: Retries,
    policy: RetryPolicy,
    log: Arc<RequestLog>,
) -> Result<Response<RetryBody>, BoxError>
where
    S: Service<Request<Body>, Response = Response<B>, Error = BoxError> + Clone,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let started = Instant::now();
    let mut tries = 1;
    loop {
        let attempt = copy_request(&request);
        let outcome = match (tries, policy.budget) {
            (1, _) | (_, None) => answer(inner.clone(), attempt).await,
            (_, Some(budget)) => {
                let left = budget.saturating_sub(started.elapsed());
                tokio::time::timeout(left, answer(inner.clone(), attempt))
                    .await
                    .unwrap_or_else(|_| Err(timed_out()))
            }
        };
        let (reason, asked) = match &outcome {
            Ok(response) => {
                let status = response.status();
                match retryable_status(status).filter(|_| retries == Retries::Transient || status == 429) {
                    Some(reason) => (reason, retry_after(response.headers())),
                    None => return outcome,
                }
            }
            Err(_) if retries != Retries::Transient => return outcome,
            Err(err) => match retryable_error(err.as_ref()) {
                Some(reason) => (reason, None),
                None => return outcome,
            },
        };
        let Some(wait) = next_wait(&policy, tries, started.elapsed(), asked, jitter()) else {
            return outcome;
        };
        tries += 1;
        let url = log.url(request.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/"));
        let (method, of, wait_text) = (request.method(), policy.max_tries, format_wait(wait));
        log.note(6, &format!("retrying {method} {url} after {reason} (try {tries} of {of}, in {wait_text})"));
        tokio::time::sleep(wait).await;
    }
}

/// Sends one try: the answer read whole, or with its body still streaming when the
/// request is marked [`StreamedAnswer`].
async fn answer<S, B>(inner: S, request: Request<Body>) -> Result<Response<RetryBody>, BoxError>
where
    S: Service<Request<Body>, Response = Response<B>, Error = BoxError>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    if request.extensions().get::<StreamedAnswer>().is_some() {
        let response = inner.oneshot(request).await?;
        return Ok(response.map(|body| body.map_err(Into::into).boxed_unsync()));
    }
    read_whole(inner, request).await
}

/// Sends one try and reads the whole answer, so a body cut short fails the try. Each
/// chunk is appended as it arrives and dropped: collecting the chunks and joining them
/// at the end would hold a list page twice.
async fn read_whole<S, B>(inner: S, request: Request<Body>) -> Result<Response<RetryBody>, BoxError>
where
    S: Service<Request<Body>, Response = Response<B>, Error = BoxError>,
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    let (parts, body) = inner.oneshot(request).await?.into_parts();
    let mut body = std::pin::pin!(body);
    let mut whole: Option<Bytes> = None;
    let mut joined = bytes::BytesMut::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(Into::into)?.into_data() else { continue };
        // A body of one chunk (small answers, HTTP/1 with a length) is kept as it came.
        match whole.take() {
            None if joined.is_empty() => whole = Some(data),
            None => joined.extend_from_slice(&data),
            Some(first) => {
                joined.extend_from_slice(&first);
                joined.extend_from_slice(&data);
            }
        }
    }
    let bytes = whole.unwrap_or_else(|| joined.freeze());
    let body = Full::new(bytes).map_err(|never| match never {}).boxed_unsync();
    Ok(Response::from_parts(parts, body))
}

/// A copy of a request whose body is held in memory (checked before the first try).
fn copy_request(request: &Request<Body>) -> Request<Body> {
    let body = request.body().try_clone().unwrap_or_else(Body::empty);
    let mut copy = Request::new(body);
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    *copy.extensions_mut() = request.extensions().clone();
    copy
}

/// The error for a retry cut off by `--request-timeout`.
fn timed_out() -> BoxError {
    Box::new(std::io::Error::new(std::io::ErrorKind::TimedOut, "the request timed out during retries"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    #[test]
    fn reads_and_dry_runs_are_idempotent_writes_and_watches_are_not() {
        let list = uri("/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500");
        assert!(is_idempotent(&Method::GET, &list));
        assert!(!is_idempotent(&Method::GET, &uri("/apis/batch/v1/jobs?watch=true&resourceVersion=1")));
        assert!(is_idempotent(&Method::POST, &uri("/apis/batch/v1/namespaces/ml/jobs?dryRun=All")));
        assert!(is_idempotent(
            &Method::POST,
            &uri("/apis/batch/v1/namespaces/ml/jobs?fieldManager=kubectl-jobset&dryRun=All")
        ));
        assert!(!is_idempotent(&Method::POST, &uri("/apis/batch/v1/namespaces/ml/jobs")));
        assert!(!is_idempotent(&Method::PATCH, &uri("/apis/batch/v1/namespaces/ml/jobs/a")));
        assert!(!is_idempotent(&Method::PATCH, &uri("/apis/batch/v1/namespaces/ml/jobs/a?dryRun=All")));
        assert!(!is_idempotent(&Method::PUT, &uri("/apis/batch/v1/namespaces/ml/jobs/a")));
        assert!(!is_idempotent(&Method::DELETE, &uri("/apis/batch/v1/namespaces/ml/jobs/a")));
    }

    #[test]
    fn writes_are_retried_only_when_throttled_and_watches_never() {
        let one = uri("/apis/batch/v1/namespaces/ml/jobs/a");
        assert_eq!(retries_for(&Method::GET, &one), Retries::Transient);
        assert_eq!(
            retries_for(&Method::POST, &uri("/api/v1/namespaces/ml/events?dryRun=All")),
            Retries::Transient
        );
        for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            assert_eq!(retries_for(&method, &one), Retries::Throttled, "{method}");
        }
        assert_eq!(retries_for(&Method::GET, &uri("/apis/batch/v1/jobs?watch=1")), Retries::Never);
    }

    #[test]
    fn only_throttling_and_unavailability_are_retryable_statuses() {
        for code in [429, 503, 504] {
            assert!(retryable_status(StatusCode::from_u16(code).unwrap()).is_some(), "{code}");
        }
        for code in [200, 400, 404, 409, 500, 501, 502] {
            assert!(retryable_status(StatusCode::from_u16(code).unwrap()).is_none(), "{code}");
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("request failed")]
    struct Outer(#[source] io::Error);

    #[test]
    fn lost_connections_are_retryable_other_failures_are_not() {
        let retryable =
            [io::ErrorKind::ConnectionReset, io::ErrorKind::ConnectionAborted, io::ErrorKind::UnexpectedEof];
        for kind in retryable {
            assert!(retryable_error(&Outer(io::Error::from(kind))).is_some(), "{kind:?}");
        }
        for kind in [io::ErrorKind::ConnectionRefused, io::ErrorKind::TimedOut, io::ErrorKind::InvalidData] {
            assert!(retryable_error(&Outer(io::Error::from(kind))).is_none(), "{kind:?}");
        }
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(http::header::RETRY_AFTER, "3".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert(http::header::RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn backoff_doubles_is_capped_and_jittered_into_its_upper_half() {
        let policy = RetryPolicy::within(None);
        assert_eq!(backoff(&policy, 1, 1.0), Duration::from_millis(250));
        assert_eq!(backoff(&policy, 2, 1.0), Duration::from_millis(500));
        assert_eq!(backoff(&policy, 3, 0.0), Duration::from_millis(500));
        assert_eq!(backoff(&policy, 10, 1.0), Duration::from_secs(4));
        assert_eq!(backoff(&policy, 40, 1.0), Duration::from_secs(4));
        let j = jitter();
        assert!((0.0..1.0).contains(&j), "{j}");
    }

    #[test]
    fn waits_honour_retry_after_up_to_a_cap_and_stop_after_the_last_try() {
        let policy = RetryPolicy::within(None);
        let zero = Duration::ZERO;
        assert_eq!(
            next_wait(&policy, 1, zero, Some(Duration::from_secs(2)), 0.5),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            next_wait(&policy, 1, zero, Some(Duration::from_secs(600)), 0.5),
            Some(Duration::from_secs(10))
        );
        assert_eq!(next_wait(&policy, 4, zero, None, 1.0), Some(Duration::from_secs(2)));
        assert_eq!(next_wait(&policy, 5, zero, None, 1.0), None);
    }

    #[test]
    fn waits_stay_within_the_request_timeout() {
        let policy = RetryPolicy::within(Some(Duration::from_secs(5)));
        assert_eq!(
            next_wait(&policy, 1, Duration::from_secs(1), Some(Duration::from_secs(3)), 0.0),
            Some(Duration::from_secs(3))
        );
        assert_eq!(next_wait(&policy, 1, Duration::from_secs(3), Some(Duration::from_secs(3)), 0.0), None);
        assert_eq!(RetryPolicy::within(Some(Duration::ZERO)).budget, None);
    }

    #[test]
    fn waits_are_written_briefly() {
        assert_eq!(format_wait(Duration::from_millis(250)), "250ms");
        assert_eq!(format_wait(Duration::from_secs(1)), "1s");
        assert_eq!(format_wait(Duration::from_millis(1500)), "1.5s");
    }

    #[tokio::test]
    async fn a_body_is_read_whole_whatever_its_chunks() {
        for chunks in [vec![], vec!["{\"items\":[]}"], vec!["{\"ite", "ms\":[1,", "2]}"]] {
            let want: String = chunks.concat();
            let service = tower::service_fn(move |_: Request<Body>| {
                let frames = chunks
                    .clone()
                    .into_iter()
                    .map(|c| Ok::<_, io::Error>(http_body::Frame::data(Bytes::from(c))));
                let body = http_body_util::StreamBody::new(futures::stream::iter(frames));
                async move { Ok::<_, BoxError>(Response::new(body)) }
            });
            let response = read_whole(service, Request::new(Body::empty())).await.unwrap();
            let got = response.into_body().collect().await.unwrap().to_bytes();
            assert_eq!(got, want.as_bytes(), "{want}");
        }
    }
}
