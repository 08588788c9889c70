//! Server-defaulted probe Jobs: one server-side dry-run create per distinct (namespace,
//! template), cached and shared by every JobSet and revision that uses the template, and
//! the client-side form that spares the dry run when the Jobs already match it. Used by
//! the comparison (`compare`) and by recording (`record`), which both need the Job the
//! controller would build.

use std::collections::HashMap;

use futures::StreamExt;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::diff::digest::{Digest, digest};
use crate::diff::expected::{add_jobset_specifics, probe_job};
use crate::diff::normalize::{Normalized, apply_client_defaults, normalize};
use crate::error::{Error, Result};
use crate::model::compact::Compact;
use crate::model::jobset::JobSet;

/// Dry runs in flight at once: well inside the API server's default priority-and-fairness
/// share for one client, and enough to hide a round trip on a remote link.
const DRY_RUN_CONCURRENCY: usize = 8;

/// Server-defaulted probe Jobs, one dry run per distinct (namespace, template), shared by
/// every JobSet and revision that uses the same template. A template the API server
/// rejects is kept with the reason, so that only the JobSets using it fail. Probes are
/// told apart by their 128-bit digest (two distinct probes in one process share one with
/// a chance of about 2^-128).
pub struct Defaulter<'c> {
    cluster: &'c Cluster,
    /// By namespace and the probe's digest: the defaulted Job as compact JSON (parsed
    /// again when asked for; a tree would be several times the text, and the recorder
    /// keeps thousands).
    cache: HashMap<(String, Digest), Result<Compact>>,
    /// Whether to ask the API server (a dry-run create) or only default on the client.
    defaults: Defaults,
}

/// Where the expected Jobs' defaults come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defaults {
    /// A server-side dry run for a template whose Jobs differ from the client form: exact
    /// whatever the server defaults or rejects. Write verbs and the recorder.
    Server,
    /// The client's defaults only: no request beyond GET/LIST/WATCH, whatever the number
    /// of distinct templates. Read verbs (`diff`, `status`, `history`, `tree`).
    Client,
}

impl<'c> Defaulter<'c> {
    pub fn new(cluster: &'c Cluster) -> Self {
        Self::with(cluster, Defaults::Server)
    }

    pub fn with(cluster: &'c Cluster, defaults: Defaults) -> Self {
        Defaulter { cluster, cache: HashMap::new(), defaults }
    }

    fn key(namespace: &str, probe: &Value) -> (String, Digest) {
        (namespace.to_owned(), digest(probe))
    }

    fn key_of(jobset: &JobSet, template: &Value) -> (String, Digest) {
        Self::key(jobset.namespace(), &probe_job(jobset, template))
    }

    /// Dry-runs, concurrently, every `(namespace, template, suspended)` not cached yet.
    /// A failure that belongs to one template (the API server rejects it, a webhook in
    /// its namespace fails) is cached as that template's problem; a failure of the
    /// connection itself fails the call.
    pub async fn prefetch<'t, T: std::borrow::Borrow<Value>>(
        &mut self,
        wanted: impl IntoIterator<Item = (&'t JobSet, T)>,
    ) -> Result<()> {
        let mut missing: HashMap<(String, Digest), (String, Value)> = HashMap::new();
        for (jobset, template) in wanted {
            let probe = probe_job(jobset, template.borrow());
            let key = Self::key(jobset.namespace(), &probe);
            if !self.cache.contains_key(&key) {
                missing.entry(key).or_insert_with(|| (jobset.namespace().to_owned(), probe));
            }
        }
        let (cluster, defaults) = (self.cluster, self.defaults);
        let answers: Vec<((String, Digest), Result<Value>)> = futures::stream::iter(missing)
            .map(|(key, (namespace, probe))| async move {
                (key, defaulted_job(cluster, defaults, &namespace, probe).await)
            })
            .buffer_unordered(DRY_RUN_CONCURRENCY)
            .collect()
            .await;
        for (key, answer) in answers {
            match answer {
                Ok(mut job) => {
                    // The server's managedFields of a dry run: normalisation drops them.
                    if let Some(meta) = job.get_mut("metadata").and_then(Value::as_object_mut) {
                        meta.remove("managedFields");
                    }
                    self.cache.insert(key, Ok(Compact::of(&job)))
                }
                Err(e) if belongs_to_one_template(&e) => self.cache.insert(key, Err(e)),
                Err(e) => return Err(e),
            };
        }
        Ok(())
    }

    /// The normalised Job the controller would build from `template` for `jobset`
    /// (after `prefetch`; None when it was not dry-run or the server rejected it).
    pub fn expected(&self, jobset: &JobSet, template: &Value) -> Option<Normalized> {
        let mut job = self.cache.get(&Self::key_of(jobset, template))?.as_ref().ok()?.value();
        add_jobset_specifics(jobset, &mut job);
        Some(normalize(&job))
    }

    /// Why `template` could not be dry-run for `jobset`, if it could not.
    pub fn problem(&self, jobset: &JobSet, template: &Value) -> Option<&Error> {
        self.cache.get(&Self::key_of(jobset, template))?.as_ref().err()
    }
}

/// The Job the controller would build from `template` for `jobset`, defaulted on the
/// client side only, normalised.
pub fn client_expected(jobset: &JobSet, template: &Value) -> Normalized {
    let mut job = probe_job(jobset, template);
    apply_client_defaults(&mut job);
    add_jobset_specifics(jobset, &mut job);
    normalize(&job)
}

/// Errors that concern one template or namespace, not the connection to the cluster.
fn belongs_to_one_template(e: &Error) -> bool {
    matches!(
        e,
        Error::Usage(_)
            | Error::TemplateRejected { .. }
            | Error::Api { .. }
            | Error::ServerFailure { .. }
            | Error::Conflict { .. }
            | Error::Forbidden { .. }
            | Error::NotFound { .. }
            | Error::Throttled { .. }
    )
}

/// The probe Job as the API server would default it (or the client, with `Client`).
async fn defaulted_job(
    cluster: &Cluster,
    defaults: Defaults,
    namespace: &str,
    mut probe: Value,
) -> Result<Value> {
    if defaults == Defaults::Client {
        apply_client_defaults(&mut probe);
        return Ok(probe);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_per_template_failures_stay_with_their_jobset() {
        assert!(belongs_to_one_template(&Error::Usage("the API server rejects a Job".into())));
        assert!(!belongs_to_one_template(&Error::Unauthorized { server: "https://k".into() }));
    }
}
