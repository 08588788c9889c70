//! The `-v` request log: at level 6 and above every API request is written to stderr
//! as `GET https://host/apis/... 200 OK in 12 milliseconds`, as `kubectl -v=6` does.
//! Requests are counted at every level, so tests and benchmarks can pin round trips.
//!
//! The layer sits outside kube's auth and impersonation layers, so it never sees the
//! credentials; header logging (-v=8) still redacts them by name, to stay safe if the
//! stack order ever changes.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use futures::future::BoxFuture;
use http::{Request, Response};
use tower::{Layer, Service};

/// Where request lines go, and how many requests were made.
pub struct RequestLog {
    verbosity: u8,
    server: Mutex<String>,
    count: AtomicUsize,
    sink: Mutex<Box<dyn Write + Send>>,
}

impl RequestLog {
    pub fn new(verbosity: u8, sink: Box<dyn Write + Send>) -> Self {
        RequestLog {
            verbosity,
            server: Mutex::new(String::new()),
            count: AtomicUsize::new(0),
            sink: Mutex::new(sink),
        }
    }

    /// A log that writes nothing (still counts).
    pub fn quiet() -> Self {
        Self::new(0, Box::new(std::io::sink()))
    }

    pub fn verbosity(&self) -> u8 {
        self.verbosity
    }

    /// Requests made so far.
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    pub(crate) fn set_server(&self, server: &str) {
        *self.server.lock().unwrap_or_else(|e| e.into_inner()) = server.to_owned();
    }

    /// Writes a line at the given verbosity (used for notes such as fallbacks at -v).
    pub fn note(&self, level: u8, line: &str) {
        if self.verbosity >= level {
            let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(sink, "{line}");
        }
    }

    /// The full URL of a request path, as the log shows it.
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{}", self.server.lock().unwrap_or_else(|e| e.into_inner()), path_and_query)
    }
}

/// Header names whose values are never logged.
const REDACTED_HEADERS: &[&str] = &["authorization", "proxy-authorization", "cookie"];

fn is_redacted(name: &str) -> bool {
    REDACTED_HEADERS.contains(&name) || name.starts_with("impersonate-")
}

#[derive(Clone)]
pub struct RequestLogLayer {
    log: Arc<RequestLog>,
}

impl RequestLogLayer {
    pub fn new(log: Arc<RequestLog>) -> Self {
        RequestLogLayer { log }
    }
}

impl<S> Layer<S> for RequestLogLayer {
    type Service = RequestLogService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        RequestLogService { inner, log: self.log.clone() }
    }
}

#[derive(Clone)]
pub struct RequestLogService<S> {
    inner: S,
    log: Arc<RequestLog>,
}

impl<S, B, RB> Service<Request<B>> for RequestLogService<S>
where
    S: Service<Request<B>, Response = Response<RB>>,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let log = self.log.clone();
        log.count.fetch_add(1, Ordering::Relaxed);
        let method = req.method().clone();
        let url = log.url(req.uri().path_and_query().map(|p| p.as_str()).unwrap_or("/"));
        if log.verbosity >= 8 {
            let mut lines = format!("Request: {method} {url}\nRequest Headers:");
            for (name, value) in req.headers() {
                let shown = if is_redacted(name.as_str()) {
                    "<masked>"
                } else {
                    value.to_str().unwrap_or("<binary>")
                };
                lines.push_str(&format!("\n    {name}: {shown}"));
            }
            log.note(8, &lines);
        }
        let started = Instant::now();
        let fut = self.inner.call(req);
        Box::pin(async move {
            let result = fut.await;
            let millis = started.elapsed().as_millis();
            match &result {
                Ok(resp) => {
                    log.note(6, &format!("{method} {url} {} in {millis} milliseconds", resp.status()))
                }
                Err(err) => log.note(6, &format!("{method} {url} failed in {millis} milliseconds: {err}")),
            }
            result
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_headers_are_redacted() {
        assert!(is_redacted("authorization"));
        assert!(is_redacted("impersonate-user"));
        assert!(is_redacted("impersonate-group"));
        assert!(!is_redacted("accept"));
    }
}
