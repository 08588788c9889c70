//! The recorder's Lease (see `presence` for the contract with the CLI): with
//! `--leader-elect`, leader election among replicas; without it, a heartbeat that every
//! recorder renews. Our own small implementation rather than a crate's, because the
//! contract needs the scope annotations written on every acquire and renewal and a
//! heartbeat mode that is not an election; the election itself is the usual one
//! (holderIdentity, leaseDurationSeconds, renewTime, acquireTime, leaseTransitions).
//! `keep_lease` is the loop that runs it for the recorder, beside the worker.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::Api;
use kube::api::PostParams;

use super::state::Shared;
use crate::cluster::Cluster;
use crate::cluster::api::FIELD_MANAGER;
use crate::error::{Error, Op, Result};
use crate::presence::LEASE_NAME;

pub const LEASES_RESOURCE: &str = "leases.coordination.k8s.io";

/// How the recorder uses the Lease.
#[derive(Debug, Clone)]
pub struct LeaseConfig {
    pub namespace: String,
    pub identity: String,
    pub duration: Duration,
    pub leader_elect: bool,
    /// The scope annotations (`presence::Scope::annotations`).
    pub annotations: BTreeMap<String, String>,
}

impl LeaseConfig {
    /// How often the holder renews (and a standby looks again).
    pub fn renew_period(&self) -> Duration {
        (self.duration / 3).max(Duration::from_millis(200))
    }

    /// How long a leader keeps recording after its last successful renewal: well inside
    /// the lease duration, so that it stops before anyone else may take over.
    pub fn renew_deadline(&self) -> Duration {
        self.duration * 2 / 3
    }

    fn duration_seconds(&self) -> i32 {
        i32::try_from(self.duration.as_secs().max(1)).unwrap_or(i32::MAX)
    }
}

/// What to do with the Lease as read.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// There is none: create it, holding it.
    Create,
    /// We hold it: renew.
    Renew,
    /// Free (released or expired), or a heartbeat: take it.
    Acquire,
    /// Someone else holds it and it is fresh: wait until it expires at the most.
    Standby { holder: String, expires_in: Duration },
}

/// The step for `lease` (None: not found), at `now`.
pub fn decide(lease: Option<&Lease>, config: &LeaseConfig, now: jiff::Timestamp) -> Step {
    let Some(lease) = lease else { return Step::Create };
    let spec = lease.spec.clone().unwrap_or_default();
    let holder = spec.holder_identity.unwrap_or_default();
    if holder == config.identity {
        return Step::Renew;
    }
    if holder.is_empty() || !config.leader_elect {
        return Step::Acquire;
    }
    let duration = i64::from(spec.lease_duration_seconds.unwrap_or(config.duration_seconds()));
    let expiry = spec
        .renew_time
        .map(|t| t.0)
        .and_then(|t| t.checked_add(jiff::SignedDuration::from_secs(duration)).ok());
    match expiry {
        Some(expiry) if expiry > now => {
            let left = now.duration_until(expiry);
            Step::Standby { holder, expires_in: Duration::try_from(left).unwrap_or_default() }
        }
        _ => Step::Acquire,
    }
}

/// The Lease as `step` writes it (Create, Renew or Acquire).
pub fn written(lease: Option<&Lease>, step: &Step, config: &LeaseConfig, now: jiff::Timestamp) -> Lease {
    let mut lease = lease.cloned().unwrap_or_else(|| Lease {
        metadata: ObjectMeta {
            name: Some(LEASE_NAME.to_owned()),
            namespace: Some(config.namespace.clone()),
            ..Default::default()
        },
        spec: None,
    });
    lease.metadata.annotations.get_or_insert_with(BTreeMap::new).extend(config.annotations.clone());
    let mut spec = lease.spec.take().unwrap_or_default();
    let was_held_by_other =
        spec.holder_identity.as_deref().is_some_and(|h| !h.is_empty() && h != config.identity);
    match step {
        Step::Create => {
            spec = LeaseSpec {
                lease_transitions: Some(0),
                acquire_time: Some(MicroTime(now)),
                ..Default::default()
            };
        }
        Step::Acquire => {
            spec.acquire_time = Some(MicroTime(now));
            // A transition is a change of holder; taking a released Lease back counts too.
            if was_held_by_other || spec.holder_identity.as_deref().unwrap_or_default().is_empty() {
                spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
            }
        }
        Step::Renew | Step::Standby { .. } => {}
    }
    spec.holder_identity = Some(config.identity.clone());
    spec.lease_duration_seconds = Some(config.duration_seconds());
    spec.renew_time = Some(MicroTime(now));
    lease.spec = Some(spec);
    lease
}

/// The Lease released by its holder: no holder, so that the CLI records again at once and
/// a standby takes over without waiting for expiry.
pub fn released(mut lease: Lease) -> Lease {
    if let Some(spec) = lease.spec.as_mut() {
        spec.holder_identity = None;
    }
    lease
}

/// The outcome of one round.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// We hold the Lease (renewed just now).
    Holder,
    /// Someone else does; look again after this long.
    Standby { holder: String, retry_in: Duration },
}

/// Reads and writes the Lease.
pub struct LeaseKeeper<'c> {
    cluster: &'c Cluster,
    api: Api<Lease>,
    pub config: LeaseConfig,
}

impl<'c> LeaseKeeper<'c> {
    pub fn new(cluster: &'c Cluster, config: LeaseConfig) -> Self {
        let api = Api::namespaced(cluster.client.clone(), &config.namespace);
        LeaseKeeper { cluster, api, config }
    }

    fn op(&self, verb: &'static str) -> Op {
        Op::new(verb, LEASES_RESOURCE, Some(&self.config.namespace)).named(LEASE_NAME)
    }

    async fn get(&self) -> Result<Option<Lease>> {
        match self.api.get(LEASE_NAME).await {
            Ok(lease) => Ok(Some(lease)),
            Err(e) => match self.cluster.errors.classify(self.op("get"), e) {
                Error::NotFound { .. } => Ok(None),
                other => Err(other),
            },
        }
    }

    /// One round: read the Lease, and create, renew or take it unless someone else holds
    /// a fresh one. Writes are guarded by the resourceVersion read (a lost race is an
    /// error; the caller tries again next round).
    pub async fn round(&self) -> Result<Role> {
        let lease = self.get().await?;
        let now = jiff::Timestamp::now();
        let step = decide(lease.as_ref(), &self.config, now);
        if let Step::Standby { holder, expires_in } = step {
            // Wake up when it expires, if that comes before the next look.
            let retry_in = expires_in.min(self.config.renew_period()) + Duration::from_millis(50);
            return Ok(Role::Standby { holder, retry_in });
        }
        let object = written(lease.as_ref(), &step, &self.config, now);
        let params = PostParams { dry_run: false, field_manager: Some(FIELD_MANAGER.to_owned()) };
        let result = match step {
            Step::Create => self.api.create(&params, &object).await.map_err(|e| (self.op("create"), e)),
            _ => self.api.replace(LEASE_NAME, &params, &object).await.map_err(|e| (self.op("update"), e)),
        };
        result.map(|_| Role::Holder).map_err(|(op, e)| self.cluster.errors.classify(op, e))
    }

    /// Clears holderIdentity if we hold the Lease.
    pub async fn release(&self) -> Result<bool> {
        let Some(lease) = self.get().await? else { return Ok(false) };
        let holder = lease.spec.as_ref().and_then(|s| s.holder_identity.as_deref()).unwrap_or_default();
        if holder != self.config.identity {
            return Ok(false);
        }
        let params = PostParams { dry_run: false, field_manager: Some(FIELD_MANAGER.to_owned()) };
        self.api
            .replace(LEASE_NAME, &params, &released(lease))
            .await
            .map(|_| true)
            .map_err(|e| self.cluster.errors.classify(self.op("update"), e))
    }
}

/// Who this replica is: the pod's name in a cluster (POD_NAME from the downward API),
/// else host name and process id.
pub fn identity() -> String {
    if let Ok(pod) = std::env::var("POD_NAME")
        && !pod.trim().is_empty()
    {
        return pod.trim().to_owned();
    }
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}_{}", std::process::id())
}

/// Keeps the Lease: renews it while we hold it; with leader election, waits as a standby
/// while another replica holds it and takes it when it is released or expires.
pub(super) async fn keep_lease(shared: &Shared<'_>, keeper: &LeaseKeeper<'_>) {
    let config = &keeper.config;
    let mut holder: Option<String> = None;
    loop {
        let started = Instant::now();
        let wait = match keeper.round().await {
            Ok(Role::Holder) => {
                shared.metrics.lease_known.store(true, Ordering::Relaxed);
                if config.leader_elect {
                    let was_leading = shared.leading();
                    shared.leading_until.set(Some(started + config.renew_deadline()));
                    if !was_leading {
                        shared.say(&format!("leading: this replica ({}) records", config.identity));
                        shared.enqueue_all();
                    }
                }
                holder = Some(config.identity.clone());
                config.renew_period()
            }
            Ok(Role::Standby { holder: other, retry_in }) => {
                shared.metrics.lease_known.store(true, Ordering::Relaxed);
                if holder.as_deref() != Some(other.as_str()) {
                    shared.say(&format!("standing by: {other} holds the Lease and records"));
                    holder = Some(other);
                }
                shared.leading_until.set(None);
                retry_in
            }
            Err(e) => {
                if !config.leader_elect {
                    // The heartbeat only tells the CLI; recording goes on without it.
                    shared.metrics.lease_known.store(true, Ordering::Relaxed);
                }
                shared.warn_once(&format!("warning: the Lease could not be renewed: {e}"));
                config.renew_period()
            }
        };
        if config.leader_elect {
            shared.metrics.leading.store(shared.leading(), Ordering::Relaxed);
        } else {
            shared.metrics.leading.store(true, Ordering::Relaxed);
        }
        tokio::time::sleep_until((started + wait).into()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(identity: &str, leader_elect: bool) -> LeaseConfig {
        LeaseConfig {
            namespace: "kube-system".into(),
            identity: identity.into(),
            duration: Duration::from_secs(15),
            leader_elect,
            annotations: crate::presence::Scope::annotations(&["ml".into()], Some("team=ml")),
        }
    }

    fn at(t: &str) -> jiff::Timestamp {
        t.parse().unwrap()
    }

    fn held(holder: &str, renewed: &str) -> Lease {
        written(None, &Step::Create, &config(holder, true), at(renewed))
    }

    #[test]
    fn a_missing_lease_is_created_held_with_the_scope() {
        let c = config("a", true);
        assert_eq!(decide(None, &c, at("2026-12-01T10:00:00Z")), Step::Create);
        let lease = written(None, &Step::Create, &c, at("2026-12-01T10:00:00Z"));
        let spec = lease.spec.as_ref().unwrap();
        assert_eq!(spec.holder_identity.as_deref(), Some("a"));
        assert_eq!(spec.lease_duration_seconds, Some(15));
        assert_eq!(spec.lease_transitions, Some(0));
        let scope = crate::presence::presence(&lease, at("2026-12-01T10:00:01Z")).unwrap();
        assert_eq!(scope.namespaces, vec!["ml".to_owned()]);
        assert!(scope.selector.is_some());
    }

    #[test]
    fn a_fresh_lease_held_by_another_leader_means_standby_until_it_expires() {
        let lease = held("b", "2026-12-01T10:00:00Z");
        let step = decide(Some(&lease), &config("a", true), at("2026-12-01T10:00:10Z"));
        assert_eq!(step, Step::Standby { holder: "b".into(), expires_in: Duration::from_secs(5) });
        let expired = decide(Some(&lease), &config("a", true), at("2026-12-01T10:00:15Z"));
        assert_eq!(expired, Step::Acquire);
        let taken = written(Some(&lease), &expired, &config("a", true), at("2026-12-01T10:00:15Z"));
        let spec = taken.spec.unwrap();
        assert_eq!(spec.holder_identity.as_deref(), Some("a"));
        assert_eq!(spec.lease_transitions, Some(1));
        assert_eq!(spec.acquire_time.unwrap().0, at("2026-12-01T10:00:15Z"));
    }

    #[test]
    fn the_holder_renews_without_a_transition() {
        let lease = held("a", "2026-12-01T10:00:00Z");
        let step = decide(Some(&lease), &config("a", true), at("2026-12-01T10:00:05Z"));
        assert_eq!(step, Step::Renew);
        let renewed =
            written(Some(&lease), &step, &config("a", true), at("2026-12-01T10:00:05Z")).spec.unwrap();
        assert_eq!(renewed.lease_transitions, Some(0));
        assert_eq!(renewed.acquire_time.unwrap().0, at("2026-12-01T10:00:00Z"));
        assert_eq!(renewed.renew_time.unwrap().0, at("2026-12-01T10:00:05Z"));
    }

    #[test]
    fn a_released_lease_is_free_and_means_no_recorder() {
        let lease = released(held("b", "2026-12-01T10:00:00Z"));
        assert_eq!(crate::presence::presence(&lease, at("2026-12-01T10:00:01Z")), None);
        assert_eq!(decide(Some(&lease), &config("a", true), at("2026-12-01T10:00:01Z")), Step::Acquire);
    }

    #[test]
    fn without_election_every_recorder_renews_the_heartbeat() {
        let lease = held("b", "2026-12-01T10:00:00Z");
        assert_eq!(decide(Some(&lease), &config("a", false), at("2026-12-01T10:00:01Z")), Step::Acquire);
    }
}
