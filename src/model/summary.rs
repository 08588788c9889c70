//! The one-line state of a JobSet, computed once from the JobSet and its Jobs.

use std::fmt;

use jiff::Timestamp;

use super::jobset::{ChildJob, JobSet, JobState, template_images};

/// What a JobSet is doing, in the words `kubectl jobset list` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Phase {
    Running,
    Suspended,
    Completed,
    Failed,
    Restarting,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub namespace: String,
    pub name: String,
    /// Current restart attempt (`status.restarts`).
    pub attempt: i32,
    /// Jobs the spec asks for.
    pub expected: usize,
    /// Counts over the current attempt's Jobs only.
    pub ready: usize,
    pub active: usize,
    pub succeeded: usize,
    pub failed: usize,
    /// Jobs of an earlier attempt that still exist (a restart in progress).
    pub previous: usize,
    pub phase: Phase,
    pub created: Option<Timestamp>,
    /// `(replicatedJob, images)` in spec order.
    pub images: Vec<(String, Vec<String>)>,
}

/// Summarises a JobSet from its spec, status and the Jobs it controls.
pub fn summarize(jobset: &JobSet, jobs: &[ChildJob]) -> Summary {
    let attempt = jobset.attempt();
    let (mut ready, mut active, mut succeeded, mut failed, mut previous, mut current) = (0, 0, 0, 0, 0, 0);
    for job in jobs {
        match job.attempt() {
            Some(a) if a >= attempt && !job.is_deleting() => {
                current += 1;
                match job.state() {
                    JobState::Active => active += 1,
                    JobState::Succeeded => succeeded += 1,
                    JobState::Failed => failed += 1,
                }
                if job.state() == JobState::Active && job.is_ready() {
                    ready += 1;
                }
            }
            _ => previous += 1,
        }
    }
    let expected = jobset.expected_jobs();
    let phase = if jobset.finished_as("Failed") {
        Phase::Failed
    } else if jobset.finished_as("Completed") {
        Phase::Completed
    } else if jobset.is_suspended() {
        Phase::Suspended
    } else if jobset.condition_true("RestartingJobSet") || previous > 0 || (attempt > 0 && current < expected)
    {
        Phase::Restarting
    } else {
        Phase::Running
    };
    Summary {
        namespace: jobset.namespace().to_owned(),
        name: jobset.name().to_owned(),
        attempt,
        expected,
        ready,
        active,
        succeeded,
        failed,
        previous,
        phase,
        created: jobset.metadata.creation_timestamp.as_ref().map(|t| t.0),
        images: jobset
            .spec
            .replicated_jobs
            .iter()
            .map(|rj| (rj.name.clone(), template_images(&rj.template)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use serde_json::{Value, json};

    fn jobset(status: Value, suspend: bool) -> JobSet {
        let pod = |name: &str, image: &str| json!({"spec": {"containers": [{"name": name, "image": image}]}});
        testing::jobset("js")
            .namespace("ml")
            .uid("u1")
            .meta("creationTimestamp", "2026-11-30T10:00:00Z")
            .spec("suspend", suspend)
            .replicated_job("workers", 2, json!({"spec": {"parallelism": 1, "template": pod("w", "app:v1")}}))
            .replicated_job_raw(
                json!({"name": "driver", "template": {"spec": {"template": pod("d", "drv:v1")}}}),
            )
            .status(status)
            .build()
    }

    fn job(name: &str, attempt: &str, status: Value) -> ChildJob {
        testing::job(name)
            .attempt(attempt)
            .spec(json!({"parallelism": 1, "completions": 1}))
            .status(status)
            .build()
    }

    fn failed() -> Value {
        json!({"conditions": [{"type": "Failed", "status": "True"}]})
    }

    #[test]
    fn running_counts_current_attempt_only() {
        let js = jobset(json!({"restarts": 1}), false);
        let jobs = [
            job("js-workers-0", "1", json!({"active": 1, "ready": 1})),
            job("js-workers-1", "1", json!({"active": 1})),
            job("js-driver-0", "1", failed()),
        ];
        let s = summarize(&js, &jobs);
        assert_eq!((s.expected, s.ready, s.active, s.succeeded, s.failed, s.previous), (3, 1, 2, 0, 1, 0));
        assert_eq!(s.phase, Phase::Running);
        assert_eq!(
            s.images,
            [("workers".into(), vec!["app:v1".into()]), ("driver".into(), vec!["drv:v1".into()])]
        );
    }

    #[test]
    fn old_attempt_jobs_mean_restarting() {
        let js = jobset(json!({"restarts": 2}), false);
        let jobs = [job("js-workers-0", "1", json!({})), job("js-workers-1", "2", json!({}))];
        let s = summarize(&js, &jobs);
        assert_eq!((s.previous, s.active), (1, 1));
        assert_eq!(s.phase, Phase::Restarting);
    }

    #[test]
    fn terminal_and_suspended_states() {
        let completed =
            json!({"terminalState": "Completed", "conditions": [{"type": "Completed", "status": "True"}]});
        assert_eq!(summarize(&jobset(completed, false), &[]).phase, Phase::Completed);
        assert_eq!(summarize(&jobset(json!({"terminalState": "Failed"}), false), &[]).phase, Phase::Failed);
        assert_eq!(summarize(&jobset(json!({}), true), &[]).phase, Phase::Suspended);
        let restarting =
            json!({"restarts": 1, "conditions": [{"type": "RestartingJobSet", "status": "True"}]});
        assert_eq!(summarize(&jobset(restarting, false), &[]).phase, Phase::Restarting);
    }
}
