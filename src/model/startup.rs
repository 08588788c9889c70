//! Which replicatedJobs the JobSet controller creates Jobs for right now. With
//! `startupPolicy: InOrder` it waits until every earlier replicatedJob's Jobs are ready;
//! with `dependsOn` until each named replicatedJob is Ready (every Job ready or
//! succeeded) or Complete (every Job succeeded). Otherwise it creates them all at once.

use super::jobset::{ChildJob, JobSet, JobState, ReplicatedJob, labels};

/// How far a replicatedJob's Jobs of one attempt have come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Progress {
    /// Ready or succeeded.
    ready: usize,
    succeeded: usize,
    expected: usize,
}

fn progress_of(rjob: &ReplicatedJob, jobs: &[ChildJob], attempt: i32) -> Progress {
    let current = jobs.iter().filter(|j| {
        j.attempt() == Some(attempt)
            && !j.is_deleting()
            && j.label(labels::REPLICATED_JOB) == Some(&rjob.name)
    });
    let (mut ready, mut succeeded) = (0, 0);
    for job in current {
        let done = job.state() == JobState::Succeeded;
        succeeded += usize::from(done);
        ready += usize::from(done || job.is_ready());
    }
    Progress { ready, succeeded, expected: rjob.replicas.max(0) as usize }
}

/// The replicatedJobs whose Jobs of the current attempt the controller creates now.
pub fn startable<'a>(jobset: &'a JobSet, jobs: &[ChildJob]) -> Vec<&'a ReplicatedJob> {
    let attempt = jobset.attempt();
    let in_order = jobset
        .spec
        .startup_policy
        .as_ref()
        .and_then(|p| p.startup_policy_order.as_deref())
        .is_some_and(|o| o == "InOrder");
    let rjobs = &jobset.spec.replicated_jobs;
    let mut startable = Vec::new();
    for (i, rjob) in rjobs.iter().enumerate() {
        if in_order && !rjobs[..i].iter().all(|before| is_ready(progress_of(before, jobs, attempt))) {
            break;
        }
        let dependencies_met = rjob.depends_on.iter().all(|dep| {
            rjobs.iter().find(|r| r.name == dep.name).is_none_or(|r| {
                let p = progress_of(r, jobs, attempt);
                if dep.status == "Complete" { p.succeeded >= p.expected } else { is_ready(p) }
            })
        });
        if dependencies_met {
            startable.push(rjob);
        }
    }
    startable
}

fn is_ready(p: Progress) -> bool {
    p.ready >= p.expected
}

/// Job names the controller should already have created for the current attempt but
/// that do not exist (or are being deleted).
pub fn missing_jobs(jobset: &JobSet, jobs: &[ChildJob]) -> Vec<String> {
    let attempt = jobset.attempt();
    startable(jobset, jobs)
        .into_iter()
        .flat_map(|rjob| (0..rjob.replicas.max(0)).map(|i| jobset.job_name(&rjob.name, i)))
        .filter(|name| {
            !jobs.iter().any(|j| j.name() == name && j.attempt() == Some(attempt) && !j.is_deleting())
        })
        .collect()
}

/// Why a replicatedJob of the spec has no Jobs yet: what it waits for.
fn blocked_by(jobset: &JobSet, rjob: &ReplicatedJob, jobs: &[ChildJob], attempt: i32) -> String {
    let rjobs = &jobset.spec.replicated_jobs;
    let position = rjobs.iter().position(|r| r.name == rjob.name).unwrap_or(0);
    let unmet: Vec<String> = rjob
        .depends_on
        .iter()
        .filter(|dep| {
            rjobs.iter().find(|r| r.name == dep.name).is_some_and(|r| {
                let p = progress_of(r, jobs, attempt);
                if dep.status == "Complete" { p.succeeded < p.expected } else { !is_ready(p) }
            })
        })
        .map(|dep| {
            format!("{} to be {}", dep.name, if dep.status == "Complete" { "complete" } else { "ready" })
        })
        .collect();
    if !unmet.is_empty() {
        return format!("{} waits for {} (dependsOn)", rjob.name, unmet.join(" and "));
    }
    let earlier = rjobs[..position].iter().find(|r| !is_ready(progress_of(r, jobs, attempt)));
    match earlier {
        Some(before) => {
            format!("{} waits for {} to be ready (startupPolicy InOrder)", rjob.name, before.name)
        }
        None => format!("{} waits for earlier replicatedJobs", rjob.name),
    }
}

/// What a wait for an attempt waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// Every Job the controller creates for the attempt exists.
    Created,
    /// ... and is ready (or succeeded).
    Ready,
}

/// How far an attempt's Jobs have come towards a goal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// Jobs of the attempt that meet the goal.
    pub done: usize,
    /// Jobs the spec asks for.
    pub expected: usize,
    /// Job names that do not meet it yet, among those the controller creates now.
    pub pending: Vec<String>,
    /// ReplicatedJobs the controller does not start yet, each with what it waits for
    /// (startupPolicy InOrder, dependsOn).
    pub blocked: Vec<String>,
}

/// Where one restart attempt of a JobSet stands: the one readiness judgement that
/// `restart --wait`, `rollback --wait`, `set image --wait` and `status` share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// The goal is met: every Job the controller creates now meets it; replicatedJobs
    /// that wait on startupPolicy or dependsOn wait on the workload, not on the restart.
    Done(Reached),
    /// Not yet.
    Pending(Reached),
    /// The JobSet completed (successPolicy met; the controller then deletes the active
    /// Jobs, so counting them would never end): done.
    Completed,
    /// The JobSet failed, with the condition's message.
    Failed(Option<String>),
    /// Suspended: its Jobs do not run.
    Suspended,
    /// A later attempt replaced this one.
    Superseded(i32),
}

/// Judges attempt `attempt` of `jobset` from its Jobs (every attempt's).
pub fn judge(jobset: &JobSet, jobs: &[ChildJob], attempt: i32, goal: Goal) -> Standing {
    if jobset.finished_as("Failed") {
        let message =
            jobset.status.conditions.iter().find(|c| c.type_ == "Failed").and_then(|c| c.message.clone());
        return Standing::Failed(message);
    }
    if jobset.finished_as("Completed") {
        return Standing::Completed;
    }
    if jobset.attempt() > attempt {
        return Standing::Superseded(jobset.attempt());
    }
    if jobset.is_suspended() {
        return Standing::Suspended;
    }
    let meets =
        |job: &ChildJob| goal == Goal::Created || job.is_ready() || job.state() == JobState::Succeeded;
    let current = |name: &str| {
        jobs.iter().find(|j| j.name() == name && j.attempt() == Some(attempt) && !j.is_deleting())
    };
    let startable: Vec<&ReplicatedJob> =
        if jobset.attempt() == attempt { startable(jobset, jobs) } else { vec![] };
    let mut reached = Reached { done: 0, expected: jobset.expected_jobs(), pending: vec![], blocked: vec![] };
    for rjob in &jobset.spec.replicated_jobs {
        let starts = startable.iter().any(|r| r.name == rjob.name);
        for name in (0..rjob.replicas.max(0)).map(|i| jobset.job_name(&rjob.name, i)) {
            match current(&name) {
                Some(job) if meets(job) => reached.done += 1,
                _ if starts => reached.pending.push(name),
                _ => {}
            }
        }
        if !starts {
            reached.blocked.push(blocked_by(jobset, rjob, jobs, attempt));
        }
    }
    if reached.pending.is_empty() && jobset.attempt() == attempt {
        Standing::Done(reached)
    } else {
        Standing::Pending(reached)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::testing;

    fn jobset(spec: Value) -> JobSet {
        testing::jobset("js").spec_fields(spec).restarts(1).build()
    }

    fn job(rjob: &str, index: i32, attempt: i32, status: Value) -> ChildJob {
        testing::job(&format!("js-{rjob}-{index}"))
            .attempt(attempt)
            .replicated_job(rjob)
            .spec(json!({"parallelism": 1, "completions": 1}))
            .status(status)
            .build()
    }

    fn names(rjobs: Vec<&ReplicatedJob>) -> Vec<&str> {
        rjobs.into_iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn any_order_starts_everything() {
        let js = jobset(json!({"replicatedJobs": [{"name": "a", "replicas": 2}, {"name": "b"}]}));
        assert_eq!(names(startable(&js, &[])), ["a", "b"]);
        assert_eq!(missing_jobs(&js, &[job("a", 0, 1, json!({}))]), ["js-a-1", "js-b-0"]);
        assert_eq!(
            missing_jobs(&js, &[job("a", 0, 0, json!({}))]),
            ["js-a-0", "js-a-1", "js-b-0"],
            "old attempt"
        );
    }

    #[test]
    fn in_order_waits_for_earlier_replicated_jobs_to_be_ready() {
        let js = jobset(json!({"startupPolicy": {"startupPolicyOrder": "InOrder"},
            "replicatedJobs": [{"name": "a"}, {"name": "b"}]}));
        let not_ready = [job("a", 0, 1, json!({}))];
        assert_eq!(names(startable(&js, &not_ready)), ["a"]);
        assert!(missing_jobs(&js, &not_ready).is_empty(), "b may not exist yet");
        let ready = [job("a", 0, 1, json!({"ready": 1}))];
        assert_eq!(missing_jobs(&js, &ready), ["js-b-0"]);
    }

    fn ready(rjob: &str, index: i32) -> ChildJob {
        job(rjob, index, 1, json!({"ready": 1}))
    }

    fn done(standing: Standing) -> Reached {
        match standing {
            Standing::Done(r) => r,
            other => panic!("not done: {other:?}"),
        }
    }

    fn pending(standing: Standing) -> Reached {
        match standing {
            Standing::Pending(r) => r,
            other => panic!("not pending: {other:?}"),
        }
    }

    #[test]
    fn created_with_in_order_is_done_when_the_startable_jobs_exist() {
        let js = jobset(json!({"startupPolicy": {"startupPolicyOrder": "InOrder"},
            "replicatedJobs": [{"name": "a", "replicas": 2}, {"name": "b"}]}));
        let created = [job("a", 0, 1, json!({})), job("a", 1, 1, json!({}))];
        let r = done(judge(&js, &created, 1, Goal::Created));
        assert_eq!((r.done, r.expected), (2, 3));
        assert_eq!(r.blocked, ["b waits for a to be ready (startupPolicy InOrder)"]);
        let r = pending(judge(&js, &created, 1, Goal::Ready));
        assert_eq!(r.pending, ["js-a-0", "js-a-1"]);
        let r = pending(judge(&js, &[ready("a", 0), ready("a", 1)], 1, Goal::Ready));
        assert_eq!(
            (r.done, r.pending.as_slice()),
            (2, &["js-b-0".to_owned()][..]),
            "b startable, not created"
        );
        let r = done(judge(&js, &[ready("a", 0), ready("a", 1), ready("b", 0)], 1, Goal::Ready));
        assert_eq!((r.done, r.blocked.len()), (3, 0));
        assert!(matches!(judge(&js, &[job("a", 0, 0, json!({}))], 1, Goal::Created), Standing::Pending(_)));
    }

    #[test]
    fn depends_on_complete_blocks_without_holding_up_ready() {
        let js = jobset(json!({"replicatedJobs": [{"name": "a"},
            {"name": "b", "dependsOn": [{"name": "a", "status": "Complete"}]}]}));
        let r = done(judge(&js, &[ready("a", 0)], 1, Goal::Ready));
        assert_eq!(r.blocked, ["b waits for a to be complete (dependsOn)"]);
        let dependent = jobset(json!({"replicatedJobs": [{"name": "a"},
            {"name": "b", "dependsOn": [{"name": "a", "status": "Ready"}]}]}));
        let r = done(judge(&dependent, &[job("a", 0, 1, json!({}))], 1, Goal::Created));
        assert_eq!(r.blocked, ["b waits for a to be ready (dependsOn)"]);
    }

    #[test]
    fn finished_suspended_and_superseded_attempts() {
        let finished = |status: Value| {
            JobSet::from_raw(json!({"metadata": {"name": "js"}, "spec": {"replicatedJobs": [{"name": "a"}]},
                "status": status}))
            .unwrap()
        };
        let completed = finished(json!({"restarts": 1, "terminalState": "Completed"}));
        assert_eq!(
            judge(&completed, &[], 1, Goal::Ready),
            Standing::Completed,
            "successPolicy met, Jobs gone"
        );
        let failed = finished(json!({"restarts": 1, "conditions": [{"type": "Failed", "status": "True",
            "message": "jobset failed due to reaching max number of restarts"}]}));
        assert!(
            matches!(judge(&failed, &[], 1, Goal::Created), Standing::Failed(Some(m)) if m.contains("max number"))
        );
        assert_eq!(judge(&finished(json!({"restarts": 2})), &[], 1, Goal::Created), Standing::Superseded(2));
        let mut suspended = finished(json!({"restarts": 1}));
        suspended.spec.suspend = Some(true);
        assert_eq!(judge(&suspended, &[], 1, Goal::Ready), Standing::Suspended);
    }

    #[test]
    fn succeeded_jobs_count_as_ready() {
        let js = jobset(json!({"replicatedJobs": [{"name": "a", "replicas": 2}]}));
        let jobs = [
            ready("a", 0),
            job("a", 1, 1, json!({"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]})),
        ];
        assert_eq!(done(judge(&js, &jobs, 1, Goal::Ready)).done, 2);
    }

    #[test]
    fn depends_on_ready_or_complete() {
        let js = jobset(json!({"replicatedJobs": [{"name": "a"},
            {"name": "b", "dependsOn": [{"name": "a", "status": "Complete"}]},
            {"name": "c", "dependsOn": [{"name": "a", "status": "Ready"}]}]}));
        let ready = [job("a", 0, 1, json!({"ready": 1}))];
        assert_eq!(names(startable(&js, &ready)), ["a", "c"]);
        let done =
            [job("a", 0, 1, json!({"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}))];
        assert_eq!(names(startable(&js, &done)), ["a", "b", "c"]);
    }
}
