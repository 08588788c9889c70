//! Comparing JobSets with their Jobs: the Job the controller would build now, defaulted
//! by the API server (one dry run per distinct template and namespace), against each
//! live Job of the current attempt.

use std::collections::{BTreeMap, HashMap};

use futures::{StreamExt, TryStreamExt};
use serde_json::Value;

use super::fleet::Fleet;
use crate::cluster::Cluster;
use crate::diff::expected::{add_jobset_specifics, probe_job};
use crate::diff::normalize::{Normalized, apply_client_defaults, normalize};
use crate::diff::{JobSetDrift, State, compare};
use crate::error::{Error, Result};
use crate::model::jobset::JobSet;

/// Dry-runs in flight at once.
const DRY_RUN_CONCURRENCY: usize = 4;

/// Server-defaulted probe Jobs, one dry run per distinct (namespace, template), shared by
/// every JobSet and revision that uses the same template.
pub struct Defaulter<'c> {
    cluster: &'c Cluster,
    cache: HashMap<String, Value>,
}

impl<'c> Defaulter<'c> {
    pub fn new(cluster: &'c Cluster) -> Self {
        Defaulter { cluster, cache: HashMap::new() }
    }

    fn key(namespace: &str, probe: &Value) -> String {
        format!("{namespace}\n{probe}")
    }

    /// Dry-runs, concurrently, every `(namespace, template, suspended)` not cached yet.
    pub async fn prefetch<'t>(
        &mut self,
        wanted: impl IntoIterator<Item = (&'t JobSet, &'t Value)>,
    ) -> Result<()> {
        let mut missing: HashMap<String, (String, Value)> = HashMap::new();
        for (jobset, template) in wanted {
            let probe = probe_job(jobset, template);
            let key = Self::key(jobset.namespace(), &probe);
            if !self.cache.contains_key(&key) {
                missing.entry(key).or_insert_with(|| (jobset.namespace().to_owned(), probe));
            }
        }
        let cluster = self.cluster;
        let defaulted: Vec<(String, Value)> = futures::stream::iter(missing)
            .map(|(key, (namespace, probe))| async move {
                defaulted_job(cluster, &namespace, probe).await.map(|j| (key, j))
            })
            .buffer_unordered(DRY_RUN_CONCURRENCY)
            .try_collect()
            .await?;
        self.cache.extend(defaulted);
        Ok(())
    }

    /// The normalised Job the controller would build from `template` for `jobset`
    /// (after `prefetch`).
    pub fn expected(&self, jobset: &JobSet, template: &Value) -> Option<Normalized> {
        let probe = probe_job(jobset, template);
        let mut job = self.cache.get(&Self::key(jobset.namespace(), &probe))?.clone();
        add_jobset_specifics(jobset, &mut job);
        Some(normalize(&job))
    }
}

/// Drift for every JobSet in the fleet.
pub async fn compute(defaulter: &mut Defaulter<'_>, fleet: &Fleet) -> Result<Vec<JobSetDrift>> {
    let compared = || fleet.jobsets.iter().filter(|js| crate::diff::state_of(js) == State::Compared);
    defaulter
        .prefetch(compared().flat_map(|js| js.spec.replicated_jobs.iter().map(move |r| (js, &r.template))))
        .await?;
    Ok(fleet
        .jobsets
        .iter()
        .map(|jobset| {
            let expected: BTreeMap<String, Normalized> = jobset
                .spec
                .replicated_jobs
                .iter()
                .filter_map(|r| defaulter.expected(jobset, &r.template).map(|n| (r.name.clone(), n)))
                .collect();
            compare(jobset, fleet.jobs_of(jobset), &expected)
        })
        .collect())
}

/// The probe Job as the API server would default it.
async fn defaulted_job(cluster: &Cluster, namespace: &str, mut probe: Value) -> Result<Value> {
    match cluster.dry_run_create_job(namespace, &probe).await {
        Ok(defaulted) => Ok(defaulted),
        // Not allowed to create Jobs there, or the namespace is terminating or gone (a
        // fleet-wide diff races with namespace deletion): defaults from the client instead.
        Err(e @ (Error::Forbidden { .. } | Error::NotFound { .. })) => {
            cluster.log.note(
                1,
                &format!(
                    "note: cannot dry-run a Job in namespace {namespace:?} ({e}); \
                     comparing with client-side defaults instead"
                ),
            );
            apply_client_defaults(&mut probe);
            Ok(probe)
        }
        Err(Error::Api { code, message, .. }) if code == 400 || code == 422 => {
            Err(Error::TemplateRejected { namespace: namespace.to_owned(), message })
        }
        Err(other) => Err(other),
    }
}
