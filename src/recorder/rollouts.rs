//! The recorder's rollout duty: while it leads, it drives every rollout journal in its
//! scope that is progressing or aborting (`commands::rollout::drive`), one task per
//! rollout, found by a watch on the journals' label (never a poll). A `rollout resume`
//! in a terminal at the same time is safe: every step is journaled before it is made and
//! guarded, so two drivers never make one twice.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::stream::FuturesUnordered;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::Api;
use kube::runtime::{WatchStreamExt, watcher};

use super::run::RecorderPlan;
use super::state::Shared;
use crate::cluster::Cluster;
use crate::execute::rollout::{self, Driver};

pub(super) async fn drive_rollouts(shared: &Shared<'_>, cluster: &Cluster, plan: &RecorderPlan) {
    let api: Api<ConfigMap> = match &plan.namespace {
        Some(ns) => Api::namespaced(cluster.client.clone(), ns),
        None => Api::all(cluster.client.clone()),
    };
    let config = watcher::Config::default().labels(crate::plan::rollout::LABEL);
    let mut journals = watcher(api, config).default_backoff().boxed();
    // What the watch says needs driving (a local cache: the timer below never asks the API).
    let mut wanted: HashSet<(String, String)> = HashSet::new();
    let mut driving: HashSet<(String, String)> = HashSet::new();
    // A drive that failed is tried again after a while, not at once.
    let mut failed_at: HashMap<(String, String), Instant> = HashMap::new();
    let mut running = FuturesUnordered::new();
    // Leadership comes and goes without an event on the journals: look at it every second.
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            event = journals.next() => {
                match event {
                    Some(Ok(watcher::Event::Apply(journal) | watcher::Event::InitApply(journal))) => {
                        let key = (journal.metadata.namespace.clone().unwrap_or_default(), journal_name(&journal));
                        match rollout::to_drive(&journal) {
                            Some(_) => wanted.insert(key),
                            None => wanted.remove(&key),
                        };
                    }
                    Some(Ok(watcher::Event::Delete(journal))) => {
                        wanted.remove(&(journal.metadata.namespace.clone().unwrap_or_default(), journal_name(&journal)));
                    }
                    None => return,
                    _ => continue,
                }
            }
            _ = tick.tick() => {}
            Some((rollout, outcome)) = running.next(), if !running.is_empty() => {
                let rollout: Driver = rollout;
                let key = (rollout.namespace.clone(), rollout.name.clone().unwrap_or_default());
                driving.remove(&key);
                if let Err(e) = outcome {
                    shared.say(&format!("rollout {}/{}: stopped: {e}", key.0, key.1));
                    failed_at.insert(key, Instant::now());
                }
            }
        }
        if !shared.leading() {
            continue;
        }
        for key in &wanted {
            let recently_failed = failed_at.get(key).is_some_and(|t| t.elapsed() < RETRY_AFTER);
            if driving.contains(key) || recently_failed {
                continue;
            }
            driving.insert(key.clone());
            let (namespace, name) = key.clone();
            shared.say(&format!("rollout {namespace}/{name}: driving it"));
            let rollout = Driver::for_recorder(name, namespace, plan.history_limit);
            running.push(async move {
                let mut log = Said { shared, line: Vec::new() };
                let mut quiet = Vec::new();
                let mut count = |(action, outcome)| shared.metrics.count_rollout_step(action, outcome);
                let outcome = rollout::drive(cluster, &rollout, &mut log, &mut quiet, &mut count).await;
                (rollout, outcome)
            });
        }
    }
}

const RETRY_AFTER: Duration = Duration::from_secs(15);

fn journal_name(journal: &ConfigMap) -> String {
    journal
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(crate::plan::rollout::LABEL))
        .cloned()
        .unwrap_or_default()
}

/// The driver's progress, line by line, in the recorder's log.
struct Said<'a, 's> {
    shared: &'a Shared<'s>,
    line: Vec<u8>,
}

impl Write for Said<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        for &b in bytes {
            if b == b'\n' {
                self.shared.say(&String::from_utf8_lossy(&self.line));
                self.line.clear();
            } else {
                self.line.push(b);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
