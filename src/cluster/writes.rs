//! Guarded writes that fail: which failures leave the outcome unknown (the write may
//! have landed, so the caller re-reads before deciding), which may simply be sent
//! again, and how long to wait first. Shared by restart, rollback and history.

use std::time::Duration;

use super::api::is_precondition_failure;
use super::retry::{RetryPolicy, backoff, jitter};
use crate::error::Error;

/// How a failed write ended, as far as the client can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteFailure {
    /// The guard no longer held: someone changed the object first; nothing was written.
    Precondition,
    /// 429: refused before anything was done; the same write may be sent again.
    Throttled,
    /// The answer was lost (reset, cut short, timed out, 500/502/503/504): the write
    /// may have landed. Re-read before deciding.
    Unknown,
    /// Anything else (forbidden, invalid, unreachable): sending again would not help.
    Final,
}

/// Sorts a write's failure into what to do next.
pub fn write_failure(err: &Error) -> WriteFailure {
    match err {
        e if is_precondition_failure(e) => WriteFailure::Precondition,
        Error::Throttled { .. } => WriteFailure::Throttled,
        Error::ConnectionLost { .. } | Error::Timeout { .. } => WriteFailure::Unknown,
        Error::ServerFailure { code: 500 | 502 | 503 | 504, .. } => WriteFailure::Unknown,
        _ => WriteFailure::Final,
    }
}

/// The wait before try `tries + 1` of a guarded write that was throttled or whose answer
/// was lost: the retry layer's jittered, doubling backoff.
pub fn write_backoff(tries: u32) -> Duration {
    backoff(&RetryPolicy::within(None), tries, jitter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Op;

    #[test]
    fn failures_sort_into_precondition_throttled_unknown_and_final() {
        let op = || Box::new(Op::new("patch", "jobsets.jobset.x-k8s.io", Some("ml")).named("js"));
        let server = || "https://test".to_owned();
        let failure = |code: u16| Error::ServerFailure {
            op: op(),
            server: server(),
            code,
            reason: String::new(),
            message: String::new(),
        };
        let cases = [
            (Error::Conflict { op: op(), message: String::new() }, WriteFailure::Precondition),
            (
                Error::Api {
                    op: op(),
                    code: 422,
                    reason: "Invalid".into(),
                    message: "the server rejected our request due to an error in our request".into(),
                },
                WriteFailure::Precondition,
            ),
            (Error::Throttled { op: op(), server: server() }, WriteFailure::Throttled),
            (
                Error::ConnectionLost { op: op(), server: server(), reason: "reset", source: None },
                WriteFailure::Unknown,
            ),
            (
                Error::Timeout {
                    op: op(),
                    server: server(),
                    after: crate::error::TimeoutText(None),
                    source: None,
                },
                WriteFailure::Unknown,
            ),
            (failure(500), WriteFailure::Unknown),
            (failure(502), WriteFailure::Unknown),
            (failure(503), WriteFailure::Unknown),
            (failure(504), WriteFailure::Unknown),
            (
                Error::Api { op: op(), code: 400, reason: "BadRequest".into(), message: "no".into() },
                WriteFailure::Final,
            ),
            (
                Error::Unreachable { server: server(), reason: "refused".into(), source: None },
                WriteFailure::Final,
            ),
        ];
        for (err, want) in cases {
            assert_eq!(write_failure(&err), want, "{err}");
        }
    }
}
