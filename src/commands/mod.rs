//! One module per subcommand. Each takes a plan of plain values (no clap types),
//! does its cluster I/O through `crate::cluster`, and renders into writers.

pub mod diff;
pub mod history;
pub mod list;
pub mod restart;
pub mod rollback;

/// Asks the user a yes/no question (None: do not ask, proceed).
pub type Confirm<'a> = Option<&'a mut dyn FnMut(&str) -> crate::error::Result<bool>>;

/// How a command ended, before it becomes a process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Exit 0.
    Success,
    /// Exit 1 without an error message: `diff` found drift.
    Differences,
}

impl ExitStatus {
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Differences => 1,
        }
    }
}
