//! The observe step below every command (and the recorder): load the selected JobSets
//! with their Jobs and history, compare each with its Jobs, and record what was seen.
//! Commands share it; none of them imports another.

pub mod compare;
pub mod fleet;
pub mod record;

use std::io::Write;

use crate::cluster::Cluster;
use crate::diff::JobSetDrift;
use crate::error::Result;
use crate::history::Cause;
use crate::select::Selection;
pub use compare::{Defaulter, compute};
pub use fleet::Fleet;
pub use record::{Histories, record, spec_revision};

/// What history recording does with what a command saw.
pub struct RecordOptions {
    pub history_limit: usize,
    /// A change cause to record on every observed JobSet's spec revision.
    pub cause: Option<Cause>,
}

/// What diff, history, restart and rollback start from.
pub struct Observed<'c> {
    pub fleet: Fleet,
    pub drifts: Vec<JobSetDrift>,
    pub histories: Histories,
    pub defaulter: Defaulter<'c>,
}

/// Loads the selected JobSets with their Jobs and history, compares each with its Jobs,
/// and records what it saw (unless `options` is None: dry runs record nothing).
/// None when nothing matched (already said on `err`).
pub async fn observe<'c>(
    cluster: &'c Cluster,
    selection: &Selection,
    options: Option<&RecordOptions>,
    err: &mut dyn Write,
) -> Result<Option<Observed<'c>>> {
    let Some(mut fleet) = fleet::load_targets(cluster, selection, err).await? else {
        return Ok(None);
    };
    let mut defaulter = Defaulter::new(cluster);
    let drifts = compute(&mut defaulter, &fleet).await?;
    let histories = match options {
        Some(options) => record(cluster, &mut defaulter, &mut fleet, &drifts, options, err).await?,
        None => Histories::new(),
    };
    Ok(Some(Observed { fleet, drifts, histories, defaulter }))
}
