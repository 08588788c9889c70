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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn jobset(spec: Value) -> JobSet {
        JobSet::from_raw(json!({"metadata": {"name": "js"}, "spec": spec, "status": {"restarts": 1}}))
            .unwrap()
    }

    fn job(rjob: &str, index: i32, attempt: i32, status: Value) -> ChildJob {
        serde_json::from_value(json!({
            "metadata": {"name": format!("js-{rjob}-{index}"), "labels": {
                "jobset.sigs.k8s.io/restart-attempt": attempt.to_string(),
                "jobset.sigs.k8s.io/replicatedjob-name": rjob}},
            "spec": {"parallelism": 1, "completions": 1}, "status": status}))
        .unwrap()
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
