//! Acting on one JobSet with guarded writes: restarts (re-read and re-planned when a
//! concurrent change wins) and waiting, by watch, for a restart to take effect. Shared
//! by `restart` and `rollback --restart`; the decisions themselves are in `crate::plan`.

pub mod handover;
pub mod kueue;
mod restart;
mod restart_after;
pub mod rollout;
pub mod staged;
mod wait;

pub use restart::{Outcome, restart_jobset, restart_one};
pub use restart_after::RestartAfter;
pub use wait::{Wait, WaitFor, wait};

/// `--dry-run`: `Client` decides without sending, `Server` sends with `dryRun=All`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    None,
    Client,
    Server,
}

impl DryRun {
    /// What a result line says after the verb.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}
