//! The machine-readable documents of `-o json|yaml`, as types: one versioned schema
//! each (`apiVersion: kubectl-jobset/v1`), so that field names are fixed in one place
//! and scripts (and our tests) can parse them back.
//!
//! Field order is output order; renaming or reordering a field changes the output.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diff::changes::Change;
use crate::diff::{DriftGroup, JobSetDrift, ReplicatedJobDrift, ScaleChange, State};
use crate::error::{Error, Result};
use crate::history::Revision;
use crate::model::jobset::template_images;

/// The schema version of every document below.
pub const API_VERSION: &str = "kubectl-jobset/v1";

/// `diff -o json|yaml`: template drift per JobSet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffDocument {
    pub kind: String,
    pub api_version: String,
    pub jobsets: Vec<JobSetDiff>,
}

impl DiffDocument {
    pub const KIND: &str = "JobSetDiff";

    /// The document for `drifts`, with each JobSet's spec revision (same order; None
    /// when not recorded).
    pub fn new(drifts: &[JobSetDrift], spec_revisions: &[Option<i64>]) -> Self {
        DiffDocument {
            kind: Self::KIND.to_owned(),
            api_version: API_VERSION.to_owned(),
            jobsets: drifts.iter().zip(spec_revisions).map(|(d, r)| JobSetDiff::new(d, *r)).collect(),
        }
    }
}

/// One JobSet in a [`DiffDocument`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSetDiff {
    pub spec_revision: Option<i64>,
    pub namespace: String,
    pub name: String,
    pub attempt: i32,
    pub state: State,
    /// Template drift or a scale change: what makes `diff` exit 1.
    pub drift: bool,
    pub outdated_jobs: usize,
    pub total_jobs: usize,
    pub replicated_jobs: Vec<ReplicatedJobDiff>,
    pub previous_attempt_jobs: Vec<String>,
    pub unlabelled_jobs: Vec<String>,
    /// replicatedJobs whose current Jobs run more than one template at once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mixed_templates: Vec<crate::diff::Mixed>,
    /// `spec.managedBy`, when another controller manages the JobSet (state `managedElsewhere`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    /// Why the JobSet could not be compared, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Kueue's queue, standing and Workload, when Kueue queues the JobSet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kueue: Option<crate::model::kueue::Kueue>,
    /// Where the Pods request other resources than Kueue's Workload reserves.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quota_mismatches: Vec<crate::model::kueue::QuotaMismatch>,
    /// A change staged for the next restart (its revision and the replicatedJobs it changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<crate::diff::StagedChange>,
}

impl JobSetDiff {
    pub fn new(d: &JobSetDrift, spec_revision: Option<i64>) -> Self {
        JobSetDiff {
            spec_revision,
            namespace: d.namespace.clone(),
            name: d.name.clone(),
            attempt: d.attempt,
            state: d.state,
            drift: d.has_drift(),
            outdated_jobs: d.outdated_jobs(),
            total_jobs: d.total_jobs(),
            replicated_jobs: d.replicated_jobs.iter().map(ReplicatedJobDiff::from).collect(),
            previous_attempt_jobs: d.previous_attempt_jobs.clone(),
            unlabelled_jobs: d.unlabelled_jobs.clone(),
            mixed_templates: d.mixed_templates(),
            managed_by: d.manager.clone(),
            error: d.error.clone(),
            kueue: d.kueue.clone(),
            quota_mismatches: d.quota.clone(),
            staged: d.staged.clone(),
        }
    }
}

/// One replicatedJob in a [`JobSetDiff`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobDiff {
    pub name: String,
    pub replicas: i32,
    pub jobs: Vec<String>,
    pub outdated: Vec<OutdatedJobs>,
    pub scale: Vec<ScaleDiff>,
    pub not_created: Vec<String>,
    pub beyond_replicas: Vec<String>,
    pub in_spec: bool,
}

impl From<&ReplicatedJobDrift> for ReplicatedJobDiff {
    fn from(r: &ReplicatedJobDrift) -> Self {
        ReplicatedJobDiff {
            name: r.name.clone(),
            replicas: r.replicas,
            jobs: r.jobs.clone(),
            outdated: r.outdated.iter().map(OutdatedJobs::from).collect(),
            scale: r.scale.iter().map(ScaleDiff::from).collect(),
            not_created: r.not_created.clone(),
            beyond_replicas: r.beyond_replicas.clone(),
            in_spec: r.in_spec,
        }
    }
}

/// Jobs that run the same outdated template, and what differs from the spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutdatedJobs {
    pub jobs: Vec<String>,
    pub changes: Vec<Change>,
}

impl From<&DriftGroup> for OutdatedJobs {
    fn from(g: &DriftGroup) -> Self {
        OutdatedJobs { jobs: g.jobs.clone(), changes: g.changes.clone() }
    }
}

/// `parallelism` or `completions` that differ from the spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleDiff {
    pub field: String,
    pub jobs: Vec<String>,
    pub live: Option<i64>,
    pub spec: Option<i64>,
}

impl From<&ScaleChange> for ScaleDiff {
    fn from(s: &ScaleChange) -> Self {
        ScaleDiff { field: s.field.to_owned(), jobs: s.jobs.clone(), live: s.live, spec: s.spec }
    }
}

/// `history -o json|yaml`: a JobSet's recorded revisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryDocument {
    pub kind: String,
    pub api_version: String,
    pub namespace: String,
    pub name: String,
    pub attempt: i32,
    pub spec_revision: Option<i64>,
    pub running_revision: Option<i64>,
    pub unobserved_attempts: BTreeSet<i32>,
    pub revisions: Vec<RevisionDocument>,
    /// Set when the JobSet no longer exists and this is its kept history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deleted: Option<DeletedDocument>,
}

/// What is known of a deleted JobSet whose history is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletedDocument {
    pub uid: String,
    /// When the recorder saw it gone (absent: no recorder has yet).
    pub deleted_at: Option<String>,
    /// When the recorder prunes its revisions.
    pub prune_at: Option<String>,
    /// Some revisions still have an ownerReference to it: the garbage collector deletes them.
    pub owned: bool,
}

impl HistoryDocument {
    pub const KIND: &str = "JobSetHistory";
}

/// One revision: an entry of [`HistoryDocument`], and on its own (with its templates)
/// for `history --revision N -o json|yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionDocument {
    pub revision: i64,
    pub name: String,
    pub hash: String,
    /// The revision holds the spec's templates.
    pub spec: bool,
    /// The current attempt's Jobs were seen running it.
    pub running: bool,
    pub restart_attempts: BTreeSet<i32>,
    pub change_cause: Option<String>,
    pub recorded_at: Option<String>,
    pub source: String,
    /// Not stored: what recording would write, shown by a command that only reads (no
    /// `--record`). Present (true) only then.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unrecorded: bool,
    pub images: Vec<ReplicatedJobImages>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicated_jobs: Option<Vec<ReplicatedJobTemplate>>,
}

impl RevisionDocument {
    pub fn new(r: &Revision, spec: bool, running: bool, with_templates: bool) -> Self {
        RevisionDocument {
            revision: r.number,
            name: r.name.clone(),
            hash: r.hash.clone(),
            spec,
            running,
            restart_attempts: r.attempts.clone(),
            change_cause: r.change_cause.clone(),
            recorded_at: r.recorded_at.clone(),
            source: r.source.clone(),
            unrecorded: r.unrecorded,
            images: r
                .templates
                .iter()
                .map(|(name, t)| ReplicatedJobImages {
                    replicated_job: name.clone(),
                    images: template_images(t),
                })
                .collect(),
            replicated_jobs: with_templates.then(|| {
                r.templates
                    .iter()
                    .map(|(name, t)| ReplicatedJobTemplate { name: name.clone(), template: t.clone() })
                    .collect()
            }),
        }
    }
}

/// The images of one replicatedJob's template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobImages {
    pub replicated_job: String,
    pub images: Vec<String>,
}

/// One replicatedJob's template, as recorded (raw JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobTemplate {
    pub name: String,
    pub template: Value,
}

/// `history --diff A,B -o json|yaml`: what changed from one revision to another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RevisionDiffDocument {
    pub kind: String,
    pub api_version: String,
    pub namespace: String,
    pub name: String,
    pub from: i64,
    pub to: i64,
    pub replicated_jobs: Vec<ReplicatedJobChanges>,
}

impl RevisionDiffDocument {
    pub const KIND: &str = "JobSetRevisionDiff";
}

/// The changes to one replicatedJob's template, with one readable line per change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobChanges {
    pub name: String,
    pub summary: Vec<String>,
    pub changes: Vec<Change>,
}

/// A document as JSON, for a `List` of several (`render::as_list`).
pub fn to_value<T: Serialize>(doc: &T) -> Result<Value> {
    serde_json::to_value(doc).map_err(|e| Error::Output(e.to_string()))
}

#[cfg(test)]
mod tests;
