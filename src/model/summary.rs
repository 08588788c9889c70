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
    /// `spec.managedBy` names another controller: the JobSet controller leaves it alone.
    ManagedElsewhere,
    /// Suspended by Kueue until its Workload is admitted.
    Queued,
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
    /// Active and running; `suspended` counts active Jobs that are suspended (queued), as
    /// the JobSet's status counts them.
    pub active: usize,
    pub suspended: usize,
    pub succeeded: usize,
    pub failed: usize,
    /// Jobs of an earlier attempt that still exist (a restart in progress).
    pub previous: usize,
    pub phase: Phase,
    pub created: Option<Timestamp>,
    /// `(replicatedJob, images)` in spec order.
    pub images: Vec<(String, Vec<String>)>,
    /// `(replicatedJob, images)` of current Jobs that carry other images than the spec
    /// (what a queued JobSet will start on), in spec order.
    pub job_images: Vec<(String, Vec<String>)>,
    /// Some replicatedJob's current Jobs run more than one template (a per-Job restart or
    /// a scale-up created some from a newer spec): said as `Running,Mixed`. Set by
    /// `with_mixed` from the drift engine's `diff::runs_mixed_templates`.
    pub mixed: bool,
    /// Kueue's queue and Workload (`lq/jobset-train-1a2b3`), when Kueue queues it.
    pub queue: Option<String>,
    /// The update strategy as the annotation says it (`-` without one).
    pub strategy: String,
}

/// Summarises a JobSet from its spec, status and the Jobs it controls.
pub fn summarize(jobset: &JobSet, jobs: &[ChildJob]) -> Summary {
    let attempt = jobset.attempt();
    let (mut ready, mut active, mut suspended, mut succeeded, mut failed, mut previous, mut current) =
        (0, 0, 0, 0, 0, 0, 0);
    // The spec's images once per JobSet: each Job is compared with them.
    let images: Vec<(String, Vec<String>)> = jobset
        .spec
        .replicated_jobs
        .iter()
        .map(|rj| (rj.name.clone(), template_images(&rj.template.value())))
        .collect();
    let mut job_images: Vec<(String, Vec<String>)> = Vec::new();
    for job in jobs {
        match job.attempt() {
            Some(a) if a >= attempt && !job.is_deleting() => {
                current += 1;
                match job.state() {
                    JobState::Active if job.suspended => suspended += 1,
                    JobState::Active => active += 1,
                    JobState::Succeeded => succeeded += 1,
                    JobState::Failed => failed += 1,
                }
                if job.state() == JobState::Active && job.is_ready() {
                    ready += 1;
                }
                note_images(&images, job, &mut job_images);
            }
            _ => previous += 1,
        }
    }
    let expected = jobset.expected_jobs();
    let phase = if jobset.finished_as("Failed") {
        Phase::Failed
    } else if jobset.finished_as("Completed") {
        Phase::Completed
    } else if jobset.managed_elsewhere().is_some() {
        Phase::ManagedElsewhere
    } else if jobset.is_suspended() {
        Phase::Suspended
    } else if previous > 0 || (attempt > 0 && current < expected) {
        // As `restart` judges it: Jobs of an earlier attempt remain or the current one's
        // are missing; never readiness (an attempt that cannot start is Running, not ready).
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
        suspended,
        succeeded,
        failed,
        previous,
        phase,
        created: jobset.metadata.creation_timestamp.as_ref().map(|t| t.0),
        images,
        job_images: in_spec_order(jobset, job_images),
        mixed: false,
        queue: None,
        strategy: crate::model::strategy::effective(
            jobset,
            crate::model::strategy::DefaultStrategy::RecordOnly,
        )
        .column(),
    }
}

impl Summary {
    pub fn with_mixed(mut self, mixed: bool) -> Self {
        self.mixed = mixed;
        self
    }

    /// Under Kueue, a suspended JobSet is queued, and the row names its queue.
    pub fn with_kueue(mut self, kueue: Option<&super::kueue::Kueue>) -> Self {
        if let Some(kueue) = kueue {
            if self.phase == Phase::Suspended {
                self.phase = Phase::Queued;
            }
            self.queue = Some(kueue.cell());
        }
        self
    }
}

/// Adds the images `job` runs to `seen` when they are not its replicatedJob's in the spec
/// (`spec_images`, per replicatedJob).
fn note_images(spec_images: &[(String, Vec<String>)], job: &ChildJob, seen: &mut Vec<(String, Vec<String>)>) {
    let Some(rjob) = job.label(super::jobset::labels::REPLICATED_JOB) else { return };
    let Some((_, spec)) = spec_images.iter().find(|(name, _)| name == rjob) else { return };
    let images = template_images(&job.template.value());
    if images.is_empty() || images == *spec {
        return;
    }
    match seen.iter_mut().find(|(name, _)| name == rjob) {
        Some((_, known)) => {
            for image in images {
                if !known.contains(&image) {
                    known.push(image);
                }
            }
        }
        None => seen.push((rjob.to_owned(), images)),
    }
}

fn in_spec_order(jobset: &JobSet, mut seen: Vec<(String, Vec<String>)>) -> Vec<(String, Vec<String>)> {
    let position = |name: &str| jobset.spec.replicated_jobs.iter().position(|r| r.name == name);
    seen.sort_by_key(|(name, _)| position(name));
    seen
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

    #[test]
    fn under_kueue_a_suspended_jobset_is_queued() {
        let js = JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml", "uid": "u1",
            "labels": {"kueue.x-k8s.io/queue-name": "lq"}}, "spec": {"suspend": true, "replicatedJobs": []}}))
        .unwrap();
        let kueue = crate::model::kueue::Kueue::of(&js, &[]);
        let s = summarize(&js, &[]).with_kueue(kueue.as_ref());
        assert_eq!((s.phase, s.queue.as_deref()), (Phase::Queued, Some("lq")));
        assert_eq!(summarize(&js, &[]).with_kueue(None).phase, Phase::Suspended);
    }
}
