//! The observe step below every command (and the recorder): load the selected JobSets
//! with their Jobs and history, compare each with its Jobs, and record what was seen.
//! Commands share it; none of them imports another.

pub mod compare;
pub mod defaulter;
pub mod fleet;
pub mod record;

use std::io::Write;

use crate::cluster::Cluster;
use crate::diff::JobSetDrift;
use crate::error::Result;
use crate::history::Cause;
use crate::model::jobset::JobSet;
use crate::presence::{LEASE_NAME, Scope, lease_namespace, presence};
use crate::select::Selection;
pub use compare::compute;
pub use defaulter::{Defaulter, Defaults};
pub use fleet::{Fleet, TemplateForms};
pub use record::{Histories, RecordOutcome, Recorded, SpecDigests, record, spec_revision};

/// What history recording does with what a command saw.
#[derive(Debug, Clone)]
pub struct RecordOptions {
    pub history_limit: usize,
    /// A change cause to record on every observed JobSet's spec revision.
    pub cause: Option<Cause>,
    /// Whether to leave JobSets to a running recorder.
    pub recorder: Recorder,
    /// Whether to write what is new. Write verbs, the recorder and `--record` do; read
    /// verbs otherwise only show what recording would leave (`history::preview`).
    pub write: bool,
    /// How numbers a concurrent writer gave too are found after writing: a read-back of
    /// what was written (the CLI, which exits next), or the next look at a store that a
    /// watch keeps (the recorder: the duplicates are renumbered when its watch shows them).
    pub numbers: NumberCheck,
}

/// How a writer finds revision numbers that a concurrent writer gave too.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NumberCheck {
    /// One LIST of what was written, right after writing (`settle_numbers`).
    ReadBack,
    /// None after writing: the duplicates the stored revisions show are renumbered as
    /// part of the next reconcile (the watch that keeps them shows every later write).
    FromStore,
}

/// Who records history: this process, or a running recorder for what it covers.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorder {
    /// Record every JobSet (the recorder itself).
    Ignore,
    /// Ask whether a recorder runs (one GET of its Lease, alongside the first reads),
    /// and leave it the JobSets it covers (the CLI).
    Defer,
    /// A recorder runs, covering this scope: record only the other JobSets.
    Running(Scope),
}

impl RecordOptions {
    /// Whether this process records `jobset`'s history (no running recorder covers it).
    pub fn records(&self, jobset: &JobSet) -> bool {
        match &self.recorder {
            Recorder::Running(scope) => !scope.covers(jobset),
            Recorder::Ignore | Recorder::Defer => true,
        }
    }
}

/// What diff, history, restart and rollback start from.
pub struct Observed<'c> {
    pub fleet: Fleet,
    pub drifts: Vec<JobSetDrift>,
    pub histories: Histories,
    /// Each recorded JobSet's spec digest, by UID (`spec_revision`).
    pub spec_digests: SpecDigests,
    pub defaulter: Defaulter<'c>,
    /// The scope of the recorder that keeps history, when one runs (and was asked about).
    pub recorder: Option<Scope>,
}

/// Loads the selected JobSets with their Jobs and history, compares each with its Jobs,
/// and records what it saw (unless `options` is None: dry runs record nothing; or
/// `options.write` is false: read verbs get the history recording would leave).
/// None when nothing matched (already said on `err`).
pub async fn observe<'c>(
    cluster: &'c Cluster,
    selection: &Selection,
    options: Option<&RecordOptions>,
    err: &mut dyn Write,
) -> Result<Option<Observed<'c>>> {
    observe_with(cluster, selection, options, false, Defaults::Server, err).await
}

/// `observe` for a read verb: the expected Jobs are defaulted on the client, so that it
/// sends nothing but GET/LIST/WATCH (unless `options.write`: `--record` records exactly
/// what the server would build).
pub async fn observe_to_read<'c>(
    cluster: &'c Cluster,
    selection: &Selection,
    options: Option<&RecordOptions>,
    err: &mut dyn Write,
) -> Result<Option<Observed<'c>>> {
    observe_with(cluster, selection, options, false, read_defaults(options), err).await
}

/// `observe_or_deleted` for a read verb (see `observe_to_read`).
pub async fn observe_or_deleted_to_read<'c>(
    cluster: &'c Cluster,
    selection: &Selection,
    options: Option<&RecordOptions>,
    err: &mut dyn Write,
) -> Result<Option<Observed<'c>>> {
    observe_with(cluster, selection, options, true, read_defaults(options), err).await
}

fn read_defaults(options: Option<&RecordOptions>) -> Defaults {
    if options.is_some_and(|o| o.write) { Defaults::Server } else { Defaults::Client }
}

/// `observe`, where a name that does not exist but has kept history (a deleted JobSet's,
/// see `history::deleted`) is no error: `fleet.deleted` holds it (for `history` and
/// `rollback`), read in the same requests.
pub async fn observe_or_deleted<'c>(
    cluster: &'c Cluster,
    selection: &Selection,
    options: Option<&RecordOptions>,
    err: &mut dyn Write,
) -> Result<Option<Observed<'c>>> {
    observe_with(cluster, selection, options, true, Defaults::Server, err).await
}

async fn observe_with<'c>(
    cluster: &'c Cluster,
    selection: &Selection,
    options: Option<&RecordOptions>,
    deleted: bool,
    defaults: Defaults,
    err: &mut dyn Write,
) -> Result<Option<Observed<'c>>> {
    let ask_recorder = options.is_some_and(|o| o.recorder == Recorder::Defer);
    let load = async {
        match deleted {
            true => fleet::load_targets_or_deleted(cluster, selection, err).await,
            false => fleet::load_targets(cluster, selection, err).await,
        }
    };
    let (fleet, recorder) = tokio::join!(load, running_recorder(cluster, ask_recorder));
    let Some(mut fleet) = fleet? else {
        return Ok(None);
    };
    let mut defaulter = Defaulter::with(cluster, defaults);
    let mut drifts = compute(&mut defaulter, &fleet).await?;
    record::reread_torn(cluster, &mut defaulter, &mut fleet, &mut drifts).await?;
    let (histories, spec_digests) = match options {
        Some(options) => {
            let mut options = options.clone();
            if let Some(scope) = &recorder {
                options.recorder = Recorder::Running(scope.clone());
            }
            let recorded = record(cluster, &mut defaulter, &mut fleet, &drifts, &options, err).await?;
            (recorded.histories, recorded.spec_digests)
        }
        None => (Histories::new(), SpecDigests::new()),
    };
    Ok(Some(Observed { fleet, drifts, histories, spec_digests, defaulter, recorder }))
}

/// The scope of a recorder holding a fresh Lease, when `ask`. A Lease that cannot be
/// read (absent, forbidden, unreachable) means no recorder: the CLI records itself.
async fn running_recorder(cluster: &Cluster, ask: bool) -> Option<Scope> {
    if !ask {
        return None;
    }
    let lease = cluster.get_lease(&lease_namespace(), LEASE_NAME).await.ok()?;
    presence(&lease, jiff::Timestamp::now())
}
