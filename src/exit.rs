//! How a command (or the recorder) ended, before it becomes a process exit code: shared
//! by `commands` and `recorder`, so neither imports the other.

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
