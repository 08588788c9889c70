//! `/healthz`, `/readyz` and `/metrics` over plain HTTP/1 (hyper), on `--metrics-addr`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::metrics::Metrics;
use crate::error::{Error, Result};

/// Binds `addr` (port 0 picks a free port); the address actually bound.
pub async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr).await.map_err(|e| {
        Error::Usage(format!(
            "--metrics-addr {addr}: cannot listen there ({e}); pick another address, or 0 to serve no metrics"
        ))
    })?;
    let bound = listener.local_addr().map_err(|e| Error::Usage(format!("--metrics-addr {addr}: {e}")))?;
    Ok((listener, bound))
}

/// Serves until the task is dropped; one task per connection.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let metrics = metrics.clone();
                async move { Ok::<_, Infallible>(answer(&request, &metrics)) }
            });
            // A client that goes away mid-request is not our problem.
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

fn answer(request: &Request<Incoming>, metrics: &Metrics) -> Response<Full<Bytes>> {
    let text = |status: StatusCode, body: String, content_type: &'static str| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        response
            .headers_mut()
            .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(content_type));
        response
    };
    let plain = "text/plain; charset=utf-8";
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET\n".into(), plain);
    }
    let check = |ok: bool, why: &str| {
        if ok {
            text(StatusCode::OK, "ok\n".into(), plain)
        } else {
            text(StatusCode::SERVICE_UNAVAILABLE, format!("{why}\n"), plain)
        }
    };
    match request.uri().path() {
        "/healthz" | "/livez" => check(metrics.healthy(), "unhealthy"),
        "/readyz" => {
            check(metrics.ready(), "not ready: the watches have not synced or the Lease is not read yet")
        }
        "/metrics" => text(StatusCode::OK, metrics.render(), "text/plain; version=0.0.4; charset=utf-8"),
        _ => text(StatusCode::NOT_FOUND, "not found: try /healthz, /readyz or /metrics\n".into(), plain),
    }
}
