//! `kubectl jobset recorder`'s wiring: the plan, the Lease, the metrics server, the shared
//! state, and the tasks that run on it (the watches, the Lease loop, the worker, the
//! announcer) until SIGTERM or SIGINT, then a graceful stop.

use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::announce::announce;
use super::lease::{LeaseConfig, LeaseKeeper, keep_lease};
use super::metrics::Metrics;
use super::reconcile::work;
use super::retention::keep_retention;
use super::server;
use super::state::Shared;
use super::watch::{stores, watch};
use crate::cluster::Cluster;
use crate::error::Result;
use crate::exit::ExitStatus;
use crate::observe::{NumberCheck, RecordOptions, Recorder};
use crate::presence::{LEASE_NAME, Scope};

/// What `kubectl jobset recorder` was asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct RecorderPlan {
    /// None: every namespace (`-A`).
    pub namespace: Option<String>,
    pub selector: Option<String>,
    pub history_limit: usize,
    pub leader_elect: bool,
    pub lease_namespace: String,
    pub lease_duration: Duration,
    /// None: no HTTP endpoints.
    pub metrics_addr: Option<SocketAddr>,
    /// How long a deleted JobSet's revisions are kept (`--history-retention`).
    pub history_retention: Duration,
    /// Enforce update strategies, with this default for JobSets without the annotation;
    /// None: record only (`--no-update-strategies`).
    pub update_strategies: Option<crate::model::strategy::DefaultStrategy>,
}

/// In-flight writes get this long after SIGTERM or SIGINT.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Runs the recorder until SIGTERM or SIGINT.
pub async fn run(cluster: &Cluster, plan: &RecorderPlan, err: &mut dyn Write) -> Result<ExitStatus> {
    let identity = super::lease::identity();
    let namespaces: Vec<String> = plan.namespace.iter().cloned().collect();
    let lease = LeaseKeeper::new(
        cluster,
        LeaseConfig {
            namespace: plan.lease_namespace.clone(),
            identity: identity.clone(),
            duration: plan.lease_duration,
            leader_elect: plan.leader_elect,
            annotations: {
                let mut annotations = Scope::annotations(&namespaces, plan.selector.as_deref());
                annotations.extend([Scope::strategies_annotation(plan.update_strategies)]);
                annotations
            },
        },
    );
    let metrics = Arc::new(Metrics::default());
    let server = match plan.metrics_addr {
        Some(addr) => {
            let (listener, bound) = server::bind(addr).await?;
            writeln!(err, "serving /healthz, /readyz and /metrics on http://{bound}")?;
            Some(tokio::spawn(server::serve(listener, metrics.clone())))
        }
        None => None,
    };
    let (stores, writers) = stores();
    let (announce_tx, announce_rx) = tokio::sync::mpsc::unbounded_channel();
    let shared = Shared::new(stores, metrics.clone(), err, announce_tx);
    shared.steering.replace(super::steer::Steering::new(plan.update_strategies));
    let mode = if plan.leader_elect { "leader election" } else { "heartbeat" };
    shared.say(&format!(
        "recorder {identity}: keeping the history of JobSets in {}; Lease {}/{LEASE_NAME} ({mode}, {}s)",
        scope_text(plan),
        plan.lease_namespace,
        plan.lease_duration.as_secs()
    ));
    if !plan.leader_elect {
        // Without an election, every recorder records.
        shared.leading_until.set(Some(Instant::now() + Duration::from_secs(100 * 365 * 24 * 3600)));
    }

    // The recorder records every JobSet it watches: its own Lease must not stop it.
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: None,
        recorder: Recorder::Ignore,
        write: true,
        numbers: NumberCheck::FromStore,
    };
    let watches = async { tokio::join!(watch(&shared, cluster, plan, writers), keep_lease(&shared, &lease)) };
    let announcer = announce(&shared, cluster, &identity, announce_rx);
    let (staged_tx, staged_rx) = tokio::sync::mpsc::unbounded_channel();
    *shared.staged.borrow_mut() = Some(staged_tx);
    let stager = super::staged::apply_staged(&shared, cluster, staged_rx);
    let worker = work(&shared, cluster, &options);
    let retention = keep_retention(&shared, cluster, plan.history_retention);
    let rollouts = super::rollouts::drive_rollouts(&shared, cluster, plan);
    let signal = shutdown_signal();
    tokio::pin!(watches, worker, signal, announcer, stager, retention, rollouts);
    tokio::select! {
        _ = &mut watches => {}
        () = &mut rollouts => {}
        () = &mut worker => {}
        () = &mut announcer => {}
        () = &mut stager => {}
        () = &mut retention => {}
        name = &mut signal => stop(&shared, name, worker, announcer).await,
    }
    match tokio::time::timeout(Duration::from_secs(2), lease.release()).await {
        Ok(Ok(true)) => shared.say("released the Lease: kubectl-jobset commands record history again"),
        Ok(Ok(false)) => {}
        Ok(Err(e)) => shared.say(&format!("warning: could not release the Lease: {e}")),
        Err(_) => shared.say("warning: could not release the Lease in time; it expires on its own"),
    }
    if let Some(server) = server {
        server.abort();
    }
    shared.say("stopped");
    Ok(ExitStatus::Success)
}

/// The scope as the first log line says it.
fn scope_text(plan: &RecorderPlan) -> String {
    match (&plan.namespace, &plan.selector) {
        (Some(ns), Some(s)) => format!("namespace {ns} matching {s:?}"),
        (Some(ns), None) => format!("namespace {ns}"),
        (None, Some(s)) => format!("all namespaces matching {s:?}"),
        (None, None) => "all namespaces".to_owned(),
    }
}

/// After `signal`: the workers finish their reconciles and the announcer the Events queued,
/// within the grace (the writes first).
async fn stop(
    shared: &Shared<'_>,
    signal: &str,
    mut worker: Pin<&mut impl Future<Output = ()>>,
    mut announcer: Pin<&mut impl Future<Output = ()>>,
) {
    shared.say(&format!(
        "{signal}: stopping; finishing in-flight writes (at most {}s)",
        SHUTDOWN_GRACE.as_secs()
    ));
    shared.stopping.set(true);
    // The Events queued go out now, beside the last writes.
    shared.set_backlog(false);
    shared.wake_workers();
    shared.retention_wake.notify_one();
    let deadline = tokio::time::Instant::now() + SHUTDOWN_GRACE;
    let finish = async {
        tokio::join!(&mut announcer, async {
            (&mut worker).await;
            shared.announce.borrow_mut().take();
        });
    };
    if tokio::time::timeout_at(deadline, finish).await.is_err() {
        shared.say(
            "in-flight writes or Events did not finish in time; stopping anyway (the next recorder redoes the writes)",
        );
    }
}

/// Resolves on SIGTERM or SIGINT, with the signal's name.
async fn shutdown_signal() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).ok();
        let terminated = async {
            match terminate.as_mut() {
                Some(t) => {
                    t.recv().await;
                }
                None => futures::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "SIGINT",
            () = terminated => "SIGTERM",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}
