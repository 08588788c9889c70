//! The one loop every guarded write runs (client-go's `retry.RetryOnConflict`, grown to
//! answers that were lost): read → plan → send → classify → back off → re-read, with one
//! try limit and one -v=6 line per retry. A write is guarded (a JSON patch `test` op, a
//! resourceVersion or uid precondition), so sending it twice cannot apply it twice; what
//! the loop adds is knowing when to send it again, when to re-read first, and when to stop.
//!
//! The sites (restart, rollback, set image, history, the handover's adoptions and
//! restore) say only what is theirs through [`GuardedWrite`]: how to plan and send from
//! what they read last, and how to judge a re-read (with the pure judges of
//! `plan::lost_write`). Which failure leads where is the pure [`next_step`].

use std::time::Duration;

use super::api::is_precondition_failure;
use super::request_log::RequestLog;
use super::retry::{RetryPolicy, backoff, format_wait, jitter};
use crate::error::{Error, Result};

/// Tries of one guarded write, the first included: client-go's `DefaultRetry` steps,
/// and the retry layer's tries for a single request.
pub const TRIES: u32 = 5;

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

/// What follows try `tries` of a write that failed this way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Stop with this failure.
    Fail,
    /// Wait, then send the same write again: it was refused before anything was done.
    SendAgain,
    /// Re-read and let the site judge. `pause`: wait first (after a lost answer the
    /// server may still be busy; after a lost race there is nothing to wait for).
    Reread { pause: bool },
}

/// The policy. A lost answer is always followed by a re-read, even on the last try, so a
/// write that landed is reported done (and never sent again); a throttled write is sent
/// again while tries are left; a lost race is re-read at once and planned again.
pub fn next_step(failure: WriteFailure, tries: u32) -> Step {
    match failure {
        WriteFailure::Final => Step::Fail,
        WriteFailure::Throttled if tries < TRIES => Step::SendAgain,
        WriteFailure::Throttled => Step::Fail,
        WriteFailure::Unknown => Step::Reread { pause: true },
        WriteFailure::Precondition => Step::Reread { pause: false },
    }
}

/// The wait before try `tries + 1`: the retry layer's jittered, doubling backoff.
fn write_backoff(tries: u32) -> Duration {
    backoff(&RetryPolicy::within(None), tries, jitter())
}

/// The -v=6 line for a retry of `what` (`the restart of jobset.jobset.x-k8s.io/train`).
fn retry_line(what: &str, step: Step, tries: u32, wait: Duration, error: &Error) -> Option<String> {
    let wait = format_wait(wait);
    Some(match step {
        Step::Fail => return None,
        Step::SendAgain => {
            format!("retrying {what} after 429 Too Many Requests (try {} of {TRIES}, in {wait})", tries + 1)
        }
        Step::Reread { pause: true } => format!(
            "the answer to {what} was lost ({error}): re-reading it in {wait} to see whether it landed \
             (try {tries} of {TRIES})"
        ),
        Step::Reread { pause: false } => {
            format!("re-reading for {what}: the object changed since it was read (try {tries} of {TRIES})")
        }
    })
}

/// What a re-read says.
#[derive(Debug)]
pub enum Verdict<T> {
    /// Settled: ours landed, or what was re-read makes sending it moot.
    Done(T),
    /// Plan from what was re-read and send again (while tries are left).
    SendAgain,
}

/// One site's guarded write. `send` plans from the state read last (so a re-read
/// re-plans); an `Err` from `reread` stops the loop with that error.
// No `Send` bound is wanted: the writes run on their caller's task (the recorder's is
// single-threaded by design).
#[allow(async_fn_in_trait)]
pub trait GuardedWrite {
    type Output;

    /// What the -v=6 lines call this write: `the rollback patch of jobset.jobset.x-k8s.io/train`.
    fn what(&self) -> String;

    /// Plans the write from what was read last and sends it. Ok also when the plan says
    /// there is nothing to send. Errors the site explains in its own words (a webhook's
    /// refusal) are translated here; they stop the loop as `Final`.
    async fn send(&mut self) -> Result<Self::Output>;

    /// After a lost race (`Precondition`) or a lost answer (`Unknown`): re-read, judge.
    async fn reread(&mut self, failure: WriteFailure) -> Result<Verdict<Self::Output>>;

    /// How this site's failures sort (history counts AlreadyExists as a lost race).
    fn classify(&self, error: &Error) -> WriteFailure {
        write_failure(error)
    }

    /// The end once every try was used and the last re-read said send again.
    fn exhausted(&mut self, last: Error, failure: WriteFailure) -> Result<Self::Output> {
        let _ = failure;
        Err(last)
    }
}

/// Runs `write` to its end: done, failed, or out of tries.
pub async fn guarded<W: GuardedWrite>(log: &RequestLog, write: &mut W) -> Result<W::Output> {
    for tries in 1..=TRIES {
        let error = match write.send().await {
            Ok(done) => return Ok(done),
            Err(e) => e,
        };
        let failure = write.classify(&error);
        let step = next_step(failure, tries);
        let wait = match step {
            Step::SendAgain | Step::Reread { pause: true } => write_backoff(tries),
            Step::Fail | Step::Reread { pause: false } => Duration::ZERO,
        };
        let Some(line) = retry_line(&write.what(), step, tries, wait, &error) else { return Err(error) };
        log.note(6, &line);
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        if let Step::Reread { .. } = step
            && let Verdict::Done(done) = write.reread(failure).await?
        {
            return Ok(done);
        }
        if tries == TRIES {
            return write.exhausted(error, failure);
        }
    }
    unreachable!("the last try returns")
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

    #[test]
    fn a_final_failure_stops_at_once_and_a_throttled_write_is_sent_again_while_tries_are_left() {
        for tries in 1..=TRIES {
            assert_eq!(next_step(WriteFailure::Final, tries), Step::Fail);
        }
        for tries in 1..TRIES {
            assert_eq!(next_step(WriteFailure::Throttled, tries), Step::SendAgain);
        }
        assert_eq!(next_step(WriteFailure::Throttled, TRIES), Step::Fail, "nothing left to try");
    }

    #[test]
    fn a_lost_answer_is_re_read_after_a_wait_even_on_the_last_try_and_a_lost_race_at_once() {
        for tries in 1..=TRIES {
            assert_eq!(next_step(WriteFailure::Unknown, tries), Step::Reread { pause: true });
            assert_eq!(next_step(WriteFailure::Precondition, tries), Step::Reread { pause: false });
        }
    }

    #[test]
    fn each_retry_says_one_line_and_a_failure_none() {
        let op = Box::new(Op::new("patch", "jobsets.jobset.x-k8s.io", Some("ml")).named("js"));
        let error = Error::Throttled { op, server: "https://test".into() };
        let what = "the restart of jobset.jobset.x-k8s.io/js";
        let wait = Duration::from_millis(250);
        assert_eq!(
            retry_line(what, Step::SendAgain, 1, wait, &error).unwrap(),
            "retrying the restart of jobset.jobset.x-k8s.io/js after 429 Too Many Requests (try 2 of 5, in 250ms)"
        );
        let lost = retry_line(what, Step::Reread { pause: true }, 2, wait, &error).unwrap();
        assert!(
            lost.starts_with("the answer to the restart of jobset.jobset.x-k8s.io/js was lost ("),
            "{lost}"
        );
        assert!(lost.ends_with("re-reading it in 250ms to see whether it landed (try 2 of 5)"), "{lost}");
        let raced = retry_line(what, Step::Reread { pause: false }, 3, Duration::ZERO, &error).unwrap();
        assert_eq!(
            raced,
            "re-reading for the restart of jobset.jobset.x-k8s.io/js: the object changed since it was read (try 3 of 5)"
        );
        assert_eq!(retry_line(what, Step::Fail, 1, wait, &error), None);
    }

    /// A write that answers from a script, counting what the loop asked of it.
    struct Scripted {
        sends: Vec<Result<&'static str>>,
        rereads: Vec<Verdict<&'static str>>,
        sent: u32,
        reread: Vec<WriteFailure>,
        exhausted: Option<WriteFailure>,
    }

    impl Scripted {
        fn new(sends: Vec<Result<&'static str>>, rereads: Vec<Verdict<&'static str>>) -> Self {
            Scripted { sends, rereads, sent: 0, reread: vec![], exhausted: None }
        }
    }

    impl GuardedWrite for Scripted {
        type Output = &'static str;

        fn what(&self) -> String {
            "the test write".into()
        }

        async fn send(&mut self) -> Result<&'static str> {
            self.sent += 1;
            self.sends.remove(0)
        }

        async fn reread(&mut self, failure: WriteFailure) -> Result<Verdict<&'static str>> {
            self.reread.push(failure);
            Ok(if self.rereads.is_empty() { Verdict::SendAgain } else { self.rereads.remove(0) })
        }

        fn exhausted(&mut self, last: Error, failure: WriteFailure) -> Result<&'static str> {
            self.exhausted = Some(failure);
            Err(last)
        }
    }

    fn conflict() -> Error {
        let op = Box::new(Op::new("patch", "jobsets.jobset.x-k8s.io", Some("ml")).named("js"));
        Error::Conflict { op, message: "changed".into() }
    }

    fn lost() -> Error {
        let op = Box::new(Op::new("patch", "jobsets.jobset.x-k8s.io", Some("ml")).named("js"));
        Error::ConnectionLost { op, server: "https://test".into(), reason: "reset", source: None }
    }

    /// A request log whose lines the test reads back.
    fn log() -> (RequestLog, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
        #[derive(Clone)]
        struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Sink {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let lines = std::sync::Arc::default();
        (RequestLog::new(6, Box::new(Sink(std::sync::Arc::clone(&lines)))), lines)
    }

    #[tokio::test]
    async fn races_lost_on_every_try_end_in_the_sites_exhausted_with_one_line_each() {
        let (log, lines) = log();
        let mut write = Scripted::new((0..TRIES).map(|_| Err(conflict())).collect(), vec![]);
        assert!(matches!(guarded(&log, &mut write).await, Err(Error::Conflict { .. })));
        assert_eq!(write.sent, TRIES);
        assert_eq!(write.reread, vec![WriteFailure::Precondition; TRIES as usize]);
        assert_eq!(write.exhausted, Some(WriteFailure::Precondition));
        let text = String::from_utf8(lines.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), TRIES as usize, "{text}");
    }

    #[tokio::test]
    async fn a_lost_answer_whose_re_read_shows_it_landed_is_done_without_sending_again() {
        let (log, lines) = log();
        let mut write = Scripted::new(vec![Err(lost())], vec![Verdict::Done("landed")]);
        assert_eq!(guarded(&log, &mut write).await.unwrap(), "landed");
        assert_eq!((write.sent, write.reread.as_slice()), (1, &[WriteFailure::Unknown][..]));
        let text = String::from_utf8(lines.lock().unwrap().clone()).unwrap();
        assert!(text.starts_with("the answer to the test write was lost ("), "{text}");
    }

    #[tokio::test]
    async fn a_final_failure_is_returned_without_a_re_read_or_a_line() {
        let (log, lines) = log();
        let op = Box::new(Op::new("patch", "jobsets.jobset.x-k8s.io", Some("ml")).named("js"));
        let forbidden = Error::Api { op, code: 400, reason: "BadRequest".into(), message: "no".into() };
        let mut write = Scripted::new(vec![Err(forbidden), Ok("never")], vec![]);
        assert!(matches!(guarded(&log, &mut write).await, Err(Error::Api { code: 400, .. })));
        assert_eq!((write.sent, write.reread.len(), write.exhausted), (1, 0, None));
        assert!(lines.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_race_then_a_success_sends_twice() {
        let (log, _) = log();
        let mut write = Scripted::new(vec![Err(conflict()), Ok("sent")], vec![]);
        assert_eq!(guarded(&log, &mut write).await.unwrap(), "sent");
        assert_eq!(write.sent, 2);
    }
}
