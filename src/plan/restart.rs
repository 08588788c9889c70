//! Restart planning, without I/O: from a JobSet, its Jobs and the flags, either the
//! exact status patch to send or the reason not to. A restart bumps `status.restarts`
//! (the controller then recreates every Job from the current spec), guarded by a JSON
//! patch `test` so that two restarts of the same observed attempt make one.

use json_patch::Patch;
use serde_json::{Value, json};

use crate::model::jobset::{ChildJob, JobSet, labels};
use crate::model::patch::{add, pointer, replace, test, test_resource_version};

pub use crate::model::jobset::JOBSET_CONTROLLER;
/// Our reason on the `RestartingJobSet` condition and the Event.
pub const RESTART_REASON: &str = "ManualRestart";

#[derive(Debug, Clone, Default)]
pub struct RestartOptions {
    /// Also bump `restartsCountTowardsMax` (and respect `failurePolicy.maxRestarts`).
    pub count_towards_max: bool,
    /// Only restart if the current attempt is this one (idempotent scripting).
    pub expect_attempt: Option<i32>,
    /// Restart even while Jobs of an earlier attempt still exist.
    pub force: bool,
    /// Why, in the user's words (condition message, Event).
    pub reason: Option<String>,
    /// Who asked (for the condition message and the Event).
    pub requested_by: String,
    /// `REPLICATEDJOB/INDEX`: restart one Job (RestartJob feature) instead of all.
    pub job: Option<(String, usize)>,
    /// The restart follows a template change this same command just made (`set image`,
    /// `rollback --restart`): it has a purpose even right after someone else's restart.
    pub after_change: bool,
    /// A restart the update strategy makes (the in-cluster component): its reason on the
    /// `RestartingJobSet` condition, and our own condition that records it in the same patch.
    pub policy: Option<PolicyRestart>,
}

/// What a restart made by an update strategy writes besides the bump.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyRestart {
    /// The `RestartingJobSet` condition's reason (instead of `ManualRestart`).
    pub reason: &'static str,
    /// A condition of another type, added or replaced in the same patch (the mark that
    /// says which spec revision this restart was for).
    pub condition: Value,
}

/// How long our own restart of the current attempt stands for any plain `restart` that
/// reads the JobSet after it (while its Jobs are not all ready): commands started at once
/// make one restart, whatever moment each reads the JobSet at, without ever waiting on
/// Pods that may never become ready.
pub const SAME_RESTART_WINDOW: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Send these JSON patch operations to `jobsets/status`.
    Patch { ops: Patch, from: i32, to: i32 },
    /// Nothing to do: the JobSet is already past the attempt the user meant.
    AlreadyRestarted { attempt: i32 },
    /// Refused, with a reason that says what to do.
    Refuse(String),
}

/// Decides what `restart` does to one JobSet, at time `now` (RFC 3339).
pub fn plan(jobset: &JobSet, jobs: &[ChildJob], opts: &RestartOptions, now: &str) -> Decision {
    let attempt = jobset.attempt();
    if let Some(expected) = opts.expect_attempt {
        if attempt > expected {
            return Decision::AlreadyRestarted { attempt };
        }
        if attempt < expected {
            return Decision::Refuse(format!(
                "the JobSet is at attempt {attempt}, not {expected} (--expect-attempt): nothing was changed"
            ));
        }
    }
    if opts.job.is_none() && !opts.force && !opts.after_change && just_restarted_by_us(jobset, jobs, now) {
        return Decision::AlreadyRestarted { attempt };
    }
    if let Some(reason) = refusal(jobset, jobs, opts) {
        return Decision::Refuse(reason);
    }
    match &opts.job {
        Some((rjob, index)) => plan_job_restart(jobset, jobs, rjob, *index),
        None => Decision::Patch { ops: restart_ops(jobset, opts, now), from: attempt, to: attempt + 1 },
    }
}

/// Why a `--restart` after a template change (rollback, set image) would be refused,
/// said before the templates change: a refused restart then leaves nothing changed.
pub fn refusal_after_change(jobset: &JobSet, jobs: &[ChildJob], opts: &RestartOptions) -> Option<String> {
    match plan(jobset, jobs, opts, "") {
        Decision::Refuse(why) => Some(format!("--restart would be refused, so nothing was changed: {why}")),
        _ => None,
    }
}

fn refusal(jobset: &JobSet, jobs: &[ChildJob], opts: &RestartOptions) -> Option<String> {
    if let Some(why) = cannot_restart(jobset) {
        return Some(why);
    }
    if let Some(why) = unlabelled(jobs) {
        return Some(why);
    }
    if !opts.force
        && let Some(why) = restart_in_progress(jobset, jobs)
    {
        return Some(format!(
            "the previous restart is still in progress: {why}; wait for it to finish, or pass --force"
        ));
    }
    // A queued JobSet's restart is free (nothing runs), so it never counts.
    if opts.count_towards_max && !jobset.is_suspended() {
        let max = jobset.spec.failure_policy.as_ref().map_or(0, |p| p.max_restarts);
        let per_job = per_job_counted_restarts(jobset);
        let counted = jobset.status.restarts_count_towards_max + per_job;
        if counted + 1 > max {
            let of_which = if per_job > 0 {
                format!(" ({per_job} of the counted restarts are per-Job restarts, the RestartJob feature)")
            } else {
                String::new()
            };
            return Some(format!(
                "--count-towards-max: this would be restart {} of failurePolicy.maxRestarts {max}{of_which}; \
                 drop --count-towards-max to restart without counting it",
                counted + 1
            ));
        }
    }
    None
}

/// Per-Job restarts that count towards `maxRestarts` (the RestartJob feature): the
/// controller fails the JobSet once these plus `restartsCountTowardsMax` reach it.
fn per_job_counted_restarts(jobset: &JobSet) -> i32 {
    let raw = jobset.raw();
    let statuses = raw["status"]["replicatedJobsStatus"].as_array().into_iter().flatten();
    let counts = statuses.filter_map(|r| r["jobRestartsCountTowardsMax"].as_array()).flatten();
    counts.filter_map(Value::as_i64).sum::<i64>().try_into().unwrap_or(i32::MAX)
}

/// Why a JobSet whose spec cannot produce a valid Job is not restarted (`api_message`:
/// the API server's answer to the Job its template makes).
/// The API server's own words when a JobSet's comparison problem (`JobSetDrift::error`,
/// kept as text per JobSet) is its rejecting a Job built from the spec
/// (`Error::TemplateRejected`), e.g. `replicatedJob w: Job.batch … is invalid: …`.
pub fn spec_rejection(problem: &str) -> Option<String> {
    const MARKER: &str = "the API server rejects a Job built from the JobSet template in namespace ";
    let at = problem.find(MARKER)?;
    let rest = &problem[at + MARKER.len()..];
    let message = rest.split_once("\": ").map_or(rest, |(_, m)| m);
    Some(format!("{}{message}", &problem[..at]))
}

pub fn no_valid_job(jobset: &str, api_message: &str) -> String {
    format!(
        "its spec cannot produce a valid Job (the API server rejects a Job built from its template: {api_message}). \
         A restart would delete its Jobs and the controller could not create new ones, leaving the JobSet with no \
         Jobs; fix the template first (kubectl edit jobset {jobset}), then restart"
    )
}

/// What the user should hear before this restart goes ahead, in plain words (no
/// refusal: the restart is still what they asked for).
pub fn warnings(jobset: &JobSet, jobs: &[ChildJob], opts: &RestartOptions) -> Vec<String> {
    let mut warnings = Vec::new();
    let target = opts.job.as_ref().map(|(rjob, index)| jobset.job_name(rjob, *index as i32));
    let succeeded: Vec<String> = jobs
        .iter()
        .filter(|j| j.attempt() == Some(jobset.attempt()) && !j.is_deleting())
        .filter(|j| j.state() == crate::model::jobset::JobState::Succeeded)
        .filter(|j| target.as_deref().is_none_or(|t| t == j.name()))
        .map(|j| j.name().to_owned())
        .collect();
    if !succeeded.is_empty() {
        let (these, have) = if succeeded.len() == 1 { ("it", "has") } else { ("they", "have") };
        warnings.push(format!(
            "{} {have} already succeeded; the restart deletes and recreates {these}, so the work runs again",
            crate::diff::job_range(&succeeded)
        ));
    }
    if jobset.is_suspended() && opts.job.is_none() {
        let uncounted = if opts.count_towards_max { " (--count-towards-max has no effect)" } else { "" };
        warnings.push(format!(
            "the JobSet is suspended: its Jobs are recreated suspended from the spec, so it resumes on the \
             spec's templates; nothing runs, so the restart is free and never counts towards maxRestarts{uncounted}"
        ));
    }
    let raw = jobset.raw();
    let strategy = raw["spec"]["failurePolicy"]["restartStrategy"].as_str();
    if strategy == Some("InPlaceRestart") {
        warnings.push(
            "the JobSet's failurePolicy.restartStrategy is InPlaceRestart, but this restart is not in place: \
             it recreates the Jobs and their Pods (the controller restarts Pods in place only in response to \
             failures)"
                .to_owned(),
        );
    }
    warnings
}

/// Jobs without a readable attempt label stop the controller's reconcile altogether.
fn unlabelled(jobs: &[ChildJob]) -> Option<String> {
    let unlabelled: Vec<&str> = jobs.iter().filter(|j| j.attempt().is_none()).map(|j| j.name()).collect();
    (!unlabelled.is_empty()).then(|| {
        format!(
            "{} carry no integer jobset.sigs.k8s.io/restart-attempt label, and the JobSet controller cannot \
             reconcile a JobSet with such Jobs; fix or delete them first",
            unlabelled.join(", ")
        )
    })
}

/// Why the controller would not act on a restart of this JobSet at all, if it would not.
fn cannot_restart(jobset: &JobSet) -> Option<String> {
    let state = crate::diff::state_of(jobset);
    if state == crate::diff::State::Completed || state == crate::diff::State::Failed {
        let what = if state == crate::diff::State::Completed { "completed" } else { "failed" };
        return Some(format!(
            "the JobSet has {what}: the controller does not recreate Jobs of a finished JobSet; \
             create a new JobSet to run again"
        ));
    }
    if let Some(manager) = jobset.managed_elsewhere() {
        return Some(format!(
            "the JobSet is {}: restart it through that controller",
            crate::model::jobset::managed_elsewhere_words(manager)
        ));
    }
    None
}

/// Why the JobSet's current restart attempt has not finished, if it has not: Jobs of an
/// earlier attempt remain (deleting or not), or Jobs of the current attempt that the
/// controller should have created by now (startupPolicy and dependsOn allowing) do not
/// exist yet. Never because Pods are not ready: an attempt that cannot start (a wrong
/// image, no capacity) may never be ready, and a restart is how it is fixed.
pub fn restart_in_progress(jobset: &JobSet, jobs: &[ChildJob]) -> Option<String> {
    let attempt = jobset.attempt();
    let old: Vec<String> = jobs
        .iter()
        .filter(|j| {
            j.attempt().is_some_and(|a| a < attempt) || (j.is_deleting() && j.attempt() == Some(attempt))
        })
        .map(|j| j.name().to_owned())
        .collect();
    if !old.is_empty() {
        return Some(format!("{} of an earlier attempt still exist", old.join(", ")));
    }
    let missing = crate::model::startup::missing_jobs(jobset, jobs);
    if !missing.is_empty() {
        return Some(format!(
            "attempt {attempt} is still being created: {} not created yet",
            crate::diff::job_range(&missing)
        ));
    }
    None
}

/// Whether kubectl-jobset restarted the current attempt less than `SAME_RESTART_WINDOW`
/// before `now` (our `RestartingJobSet` condition names the attempt and its time) and
/// its Jobs are not all ready yet: a restart requested now is the same one.
fn just_restarted_by_us(jobset: &JobSet, jobs: &[ChildJob], now: &str) -> bool {
    let attempt = jobset.attempt();
    let since = jobset
        .status
        .conditions
        .iter()
        .find(|c| {
            c.type_ == "RestartingJobSet"
                && c.status == "True"
                && c.reason.as_deref() == Some(RESTART_REASON)
                && c.message.as_deref().is_some_and(|m| m.starts_with(&format!("restart {attempt} ")))
        })
        .and_then(|c| c.last_transition_time.as_deref()?.parse::<jiff::Timestamp>().ok());
    let (Some(since), Ok(now)) = (since, now.parse::<jiff::Timestamp>()) else { return false };
    let recent = now.duration_since(since).unsigned_abs() < SAME_RESTART_WINDOW;
    let (ready, expected) = progress(jobset, jobs, attempt, true);
    recent && ready < expected
}

/// `<what> requested by <who> with kubectl-jobset[: <reason>]`: the condition's message and
/// the Event's note say it the same way.
pub fn requested(what: &str, opts: &RestartOptions) -> String {
    match &opts.reason {
        Some(reason) => format!("{what} requested by {} with kubectl-jobset: {reason}", opts.requested_by),
        None => format!("{what} requested by {} with kubectl-jobset", opts.requested_by),
    }
}

/// The JSON patch for a whole-JobSet restart.
fn restart_ops(jobset: &JobSet, opts: &RestartOptions, now: &str) -> Patch {
    let attempt = jobset.attempt();
    let raw = jobset.raw();
    let status = &raw["status"];
    let mut ops = Vec::new();
    if status.is_null() {
        // No status yet: guard on the whole object instead.
        ops.push(test_resource_version(jobset.metadata.resource_version.clone()));
        ops.push(add(pointer(&["status"]), json!({})));
    }
    // `restarts` is omitted from JSON while 0, so a test op cannot see it: guard on the
    // resourceVersion for the first restart, on the value itself afterwards.
    match status.get("restarts") {
        Some(current) => ops.push(test(pointer(&["status", "restarts"]), current.clone())),
        None if !status.is_null() => {
            ops.push(test_resource_version(jobset.metadata.resource_version.clone()))
        }
        None => {}
    }
    ops.push(add(pointer(&["status", "restarts"]), attempt + 1));
    if opts.count_towards_max && !jobset.is_suspended() {
        let counted = jobset.status.restarts_count_towards_max;
        if let Some(current) = status.get("restartsCountTowardsMax") {
            ops.push(test(pointer(&["status", "restartsCountTowardsMax"]), current.clone()));
        }
        // The limit counts per-Job restarts too: guard the counts the check saw.
        for (i, entry) in status["replicatedJobsStatus"].as_array().into_iter().flatten().enumerate() {
            if let Some(counts) = entry.get("jobRestartsCountTowardsMax").filter(|c| c.is_array()) {
                let i = i.to_string();
                ops.push(test(
                    pointer(&["status", "replicatedJobsStatus", &i, "name"]),
                    entry["name"].clone(),
                ));
                ops.push(test(
                    pointer(&["status", "replicatedJobsStatus", &i, "jobRestartsCountTowardsMax"]),
                    counts.clone(),
                ));
            }
        }
        ops.push(add(pointer(&["status", "restartsCountTowardsMax"]), counted + 1));
    }
    let message = requested(&format!("restart {}", attempt + 1), opts);
    let reason = opts.policy.as_ref().map_or(RESTART_REASON, |p| p.reason);
    let condition = json!({"type": "RestartingJobSet", "status": "True", "reason": reason,
        "message": message, "lastTransitionTime": now});
    let mut conditions: Vec<Value> = vec![condition];
    conditions.extend(opts.policy.as_ref().map(|p| p.condition.clone()));
    ops.extend(upsert_conditions(status, conditions));
    Patch(ops)
}

/// The ops that put each condition in place of the one of its type, or add it.
pub fn upsert_conditions(status: &Value, conditions: Vec<Value>) -> Vec<json_patch::PatchOperation> {
    let mut ops = Vec::new();
    let Some(existing) = status["conditions"].as_array() else {
        ops.push(add(pointer(&["status", "conditions"]), Value::Array(conditions)));
        return ops;
    };
    for condition in conditions {
        let type_ = condition["type"].clone();
        match existing.iter().position(|c| c["type"] == type_) {
            Some(i) => {
                let i = i.to_string();
                ops.push(test(pointer(&["status", "conditions", &i, "type"]), type_));
                ops.push(replace(pointer(&["status", "conditions", &i]), condition));
            }
            None => ops.push(add(pointer(&["status", "conditions", "-"]), condition)),
        }
    }
    ops
}

/// `--job RJOB/INDEX`: bump that Job's entry in `replicatedJobsStatus[].jobRestarts`
/// (the RestartJob feature). Jobs carry `job-restart-attempt` only when it is on.
fn plan_job_restart(jobset: &JobSet, jobs: &[ChildJob], rjob: &str, index: usize) -> Decision {
    let Some(spec) = jobset.spec.replicated_jobs.iter().find(|r| r.name == rjob) else {
        let names: Vec<&str> = jobset.spec.replicated_jobs.iter().map(|r| r.name.as_str()).collect();
        return Decision::Refuse(format!(
            "--job: no replicatedJob {rjob:?} (the JobSet has: {})",
            names.join(", ")
        ));
    };
    if index >= spec.replicas.max(0) as usize {
        return Decision::Refuse(format!(
            "--job: replicatedJob {rjob:?} has {} replicas (indexes 0..{})",
            spec.replicas,
            spec.replicas - 1
        ));
    }
    let job_name = jobset.job_name(rjob, index as i32);
    let Some(job) = jobs.iter().find(|j| j.name() == job_name && !j.is_deleting()) else {
        return Decision::Refuse(format!(
            "--job: Job {job_name} does not exist yet; wait for the controller to create it"
        ));
    };
    if job.label(labels::JOB_RESTART_ATTEMPT).is_none() {
        return Decision::Refuse(
            "--job: this JobSet controller does not support per-Job restarts (the RestartJob feature gate is off: \
             Jobs carry no jobset.sigs.k8s.io/job-restart-attempt label); restart the whole JobSet instead"
                .to_owned(),
        );
    }
    let raw = jobset.raw();
    let statuses = raw["status"]["replicatedJobsStatus"].as_array();
    let Some(i) = statuses.and_then(|s| s.iter().position(|r| r["name"] == rjob)) else {
        return Decision::Refuse(format!(
            "--job: the JobSet status has no entry for {rjob:?} yet; try again shortly"
        ));
    };
    let entry = &raw["status"]["replicatedJobsStatus"][i];
    let (i, index_token) = (i.to_string(), index.to_string());
    let at = |tail: &[&str]| pointer(&[&["status", "replicatedJobsStatus", &i], tail].concat());
    let mut ops = vec![test(at(&["name"]), rjob)];
    match entry["jobRestarts"].as_array().filter(|a| a.len() == spec.replicas as usize) {
        Some(restarts) => {
            let current = restarts[index].as_i64().unwrap_or(0);
            ops.push(test(at(&["jobRestarts", &index_token]), current));
            ops.push(replace(at(&["jobRestarts", &index_token]), current + 1));
        }
        None => {
            // The arrays must hold exactly `replicas` entries.
            let mut restarts = vec![0; spec.replicas as usize];
            restarts[index] = 1;
            ops.insert(0, test_resource_version(jobset.metadata.resource_version.clone()));
            ops.push(add(at(&["jobRestarts"]), restarts));
        }
    }
    let attempt = jobset.attempt();
    Decision::Patch { ops: Patch(ops), from: attempt, to: attempt }
}

/// A `--job` value that is not `REPLICATEDJOB/INDEX`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadJobTarget {
    #[error("--job {0:?}: use REPLICATEDJOB/INDEX, e.g. workers/3")]
    Shape(String),
    #[error("--job {text:?}: the index must be a number, e.g. workers/3")]
    Index {
        text: String,
        #[source]
        source: std::num::ParseIntError,
    },
}

/// Parses `REPLICATEDJOB/INDEX`.
pub fn parse_job_target(text: &str) -> Result<(String, usize), BadJobTarget> {
    let (rjob, index) = text.rsplit_once('/').ok_or_else(|| BadJobTarget::Shape(text.to_owned()))?;
    let index = index.parse().map_err(|source| BadJobTarget::Index { text: text.to_owned(), source })?;
    if rjob.is_empty() {
        return Err(BadJobTarget::Shape(text.to_owned()));
    }
    Ok((rjob.to_owned(), index))
}

/// Whether the Jobs of `attempt` are all there (and, with `ready`, ready).
pub fn progress(jobset: &JobSet, jobs: &[ChildJob], attempt: i32, ready: bool) -> (usize, usize) {
    let expected = jobset.expected_jobs();
    let done = jobs
        .iter()
        .filter(|j| j.attempt() == Some(attempt) && !j.is_deleting())
        .filter(|j| !ready || j.is_ready() || j.state() == crate::model::jobset::JobState::Succeeded)
        .filter(|j| j.label(labels::REPLICATED_JOB).is_some())
        .count();
    (done.min(expected), expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    fn jobset(status: Value, spec_extra: Value) -> JobSet {
        testing::jobset("js")
            .namespace("ml")
            .resource_version("42")
            .replicated_job("w", 2, json!({}))
            .spec("failurePolicy", json!({"maxRestarts": 2}))
            .spec_fields(spec_extra)
            .status(status)
            .build()
    }

    fn job(name: &str, attempt: i32, extra_labels: Value) -> ChildJob {
        testing::job(name).attempt(attempt).replicated_job("w").labels(extra_labels).build()
    }

    /// Every Job of the current attempt, there and ready: no restart in progress.
    fn running(js: &JobSet) -> Vec<ChildJob> {
        (0..2)
            .map(|i| {
                let mut j = job(&format!("js-w-{i}"), js.attempt(), json!({}));
                j.status = Some(serde_json::from_value(json!({"ready": 1})).unwrap());
                j
            })
            .collect()
    }

    fn opts() -> RestartOptions {
        RestartOptions {
            requested_by: "alice".into(),
            reason: Some("new image".into()),
            ..Default::default()
        }
    }

    /// The patch as JSON, as it goes over the wire.
    fn values(ops: &Patch) -> Vec<Value> {
        ops.iter().map(|op| serde_json::to_value(op).unwrap()).collect()
    }

    const NOW: &str = "2026-11-30T12:00:00Z";

    #[test]
    fn a_rejected_spec_is_told_in_the_api_servers_words() {
        let problem = "replicatedJob w: the API server rejects a Job built from the JobSet template in namespace \"ml\": Job.batch \"p\" is invalid: restartPolicy: Required value";
        assert_eq!(
            spec_rejection(problem).as_deref(),
            Some("replicatedJob w: Job.batch \"p\" is invalid: restartPolicy: Required value")
        );
        assert_eq!(
            spec_rejection("replicatedJob w: the server is currently unable to handle the request"),
            None
        );
    }

    #[test]
    fn restart_bumps_attempt_with_a_test_guard_and_a_condition() {
        let js =
            jobset(json!({"restarts": 2, "conditions": [{"type": "Other", "status": "True"}]}), json!({}));
        let Decision::Patch { ops, from, to } = plan(&js, &running(&js), &opts(), NOW) else { panic!() };
        let ops = values(&ops);
        assert_eq!((from, to), (2, 3));
        assert_eq!(
            ops,
            [
                json!({"op": "test", "path": "/status/restarts", "value": 2}),
                json!({"op": "add", "path": "/status/restarts", "value": 3}),
                json!({"op": "add", "path": "/status/conditions/-", "value": {"type": "RestartingJobSet", "status": "True",
                    "reason": "ManualRestart", "message": "restart 3 requested by alice with kubectl-jobset: new image",
                    "lastTransitionTime": NOW}}),
            ]
        );
    }

    #[test]
    fn first_restart_is_guarded_by_resource_version() {
        let js = jobset(json!({"replicatedJobsStatus": []}), json!({}));
        let Decision::Patch { ops, .. } = plan(&js, &running(&js), &opts(), NOW) else { panic!() };
        let ops = values(&ops);
        assert_eq!(ops[0], json!({"op": "test", "path": "/metadata/resourceVersion", "value": "42"}));
        assert_eq!(ops[1], json!({"op": "add", "path": "/status/restarts", "value": 1}));
        assert_eq!(ops[2]["path"], "/status/conditions");
    }

    #[test]
    fn an_existing_restarting_condition_is_replaced_in_place() {
        let js = jobset(
            json!({"restarts": 1, "conditions": [{"type": "RestartingJobSet", "status": "False"}]}),
            json!({}),
        );
        let Decision::Patch { ops, .. } = plan(&js, &running(&js), &opts(), NOW) else { panic!() };
        let ops = values(&ops);
        assert_eq!(
            ops[2],
            json!({"op": "test", "path": "/status/conditions/0/type", "value": "RestartingJobSet"})
        );
        assert_eq!(ops[3]["op"], "replace");
    }

    #[test]
    fn counting_towards_max_bumps_both_and_respects_the_limit() {
        let mut o = opts();
        o.count_towards_max = true;
        let js = jobset(json!({"restarts": 1, "restartsCountTowardsMax": 1}), json!({}));
        let Decision::Patch { ops, .. } = plan(&js, &running(&js), &o, NOW) else { panic!() };
        let ops = values(&ops);
        assert!(ops.contains(&json!({"op": "test", "path": "/status/restartsCountTowardsMax", "value": 1})));
        assert!(ops.contains(&json!({"op": "add", "path": "/status/restartsCountTowardsMax", "value": 2})));
        let js = jobset(json!({"restarts": 2, "restartsCountTowardsMax": 2}), json!({}));
        let Decision::Refuse(why) = plan(&js, &running(&js), &o, NOW) else { panic!() };
        assert!(why.contains("maxRestarts 2"), "{why}");
    }

    #[test]
    fn counting_towards_max_counts_per_job_restarts() {
        let mut o = opts();
        o.count_towards_max = true;
        // 1 JobSet restart + 1 per-Job restart already counted: a third would pass maxRestarts 2.
        let status = json!({"restarts": 1, "restartsCountTowardsMax": 1, "replicatedJobsStatus": [
            {"name": "w", "jobRestarts": [1, 0], "jobRestartsCountTowardsMax": [1, 0]}]});
        let js = jobset(status, json!({}));
        let Decision::Refuse(why) = plan(&js, &running(&js), &o, NOW) else { panic!() };
        assert!(why.contains("restart 3 of failurePolicy.maxRestarts 2"), "{why}");
        assert!(why.contains("1 of the counted restarts are per-Job restarts"), "{why}");
        // Under the limit, the patch guards the per-Job counts it saw.
        let status = json!({"restarts": 0, "replicatedJobsStatus": [
            {"name": "w", "jobRestarts": [1, 0], "jobRestartsCountTowardsMax": [1, 0]}]});
        let js = jobset(status, json!({}));
        let Decision::Patch { ops, .. } = plan(&js, &running(&js), &o, NOW) else { panic!() };
        let ops = values(&ops);
        assert!(ops.contains(&json!({"op": "test", "path": "/status/replicatedJobsStatus/0/jobRestartsCountTowardsMax", "value": [1, 0]})));
        assert!(ops.contains(&json!({"op": "add", "path": "/status/restartsCountTowardsMax", "value": 1})));
    }

    #[test]
    fn warnings_for_succeeded_jobs_and_in_place_restarts() {
        let js = jobset(json!({}), json!({}));
        let mut jobs = running(&js);
        assert!(warnings(&js, &jobs, &opts()).is_empty());
        jobs[1].status = Some(
            serde_json::from_value(json!({"succeeded": 1, "conditions": [
            {"type": "Complete", "status": "True"}]}))
            .unwrap(),
        );
        let w = warnings(&js, &jobs, &opts());
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("js-w-1 has already succeeded"), "{w:?}");
        let mut one = opts();
        one.job = Some(("w".into(), 0));
        assert!(warnings(&js, &jobs, &one).is_empty(), "--job w/0 does not re-run w/1");
        let js = jobset(
            json!({}),
            json!({"failurePolicy": {"maxRestarts": 2, "restartStrategy": "InPlaceRestart"}}),
        );
        let w = warnings(&js, &running(&js), &opts());
        assert!(w[0].contains("InPlaceRestart") && w[0].contains("recreates the Jobs"), "{w:?}");
    }

    #[test]
    fn refusals() {
        let cases = [
            (jobset(json!({"terminalState": "Completed"}), json!({})), "completed"),
            (jobset(json!({"conditions": [{"type": "Failed", "status": "True"}]}), json!({})), "failed"),
            (
                jobset(json!({}), json!({"managedBy": "kueue.x-k8s.io/multikueue"})),
                "managed by \"kueue.x-k8s.io/multikueue\"",
            ),
        ];
        for (js, want) in cases {
            match plan(&js, &running(&js), &opts(), NOW) {
                Decision::Refuse(why) => assert!(why.contains(want), "{why}"),
                other => panic!("{want}: {other:?}"),
            }
        }
        let js = jobset(json!({}), json!({"managedBy": JOBSET_CONTROLLER}));
        assert!(matches!(plan(&js, &running(&js), &opts(), NOW), Decision::Patch { .. }));
    }

    #[test]
    fn unlabelled_jobs_block_restarts() {
        let js = jobset(json!({"restarts": 0}), json!({}));
        let mut handmade = job("js-w-0", 0, json!({}));
        handmade
            .metadata
            .labels
            .as_mut()
            .unwrap()
            .insert("jobset.sigs.k8s.io/restart-attempt".into(), "x".into());
        let Decision::Refuse(why) = plan(&js, &[handmade], &opts(), NOW) else { panic!() };
        assert!(why.contains("js-w-0 carry no integer"), "{why}");
    }

    #[test]
    fn a_restart_in_progress_needs_force() {
        let js = jobset(json!({"restarts": 2}), json!({}));
        let jobs = [job("js-w-0", 1, json!({})), job("js-w-1", 2, json!({}))];
        let Decision::Refuse(why) = plan(&js, &jobs, &opts(), NOW) else { panic!() };
        assert!(why.contains("js-w-0") && why.contains("--force"), "{why}");
        let mut o = opts();
        o.force = true;
        assert!(matches!(plan(&js, &jobs, &o, NOW), Decision::Patch { .. }));
    }

    #[test]
    fn a_restart_is_in_progress_until_every_job_of_the_attempt_exists_never_for_readiness() {
        // The race of four simultaneous restarts: attempt 1's old Jobs are gone, but only
        // one of its new Jobs exists yet.
        let js = jobset(json!({"restarts": 1}), json!({}));
        let Decision::Refuse(why) = plan(&js, &[job("js-w-0", 1, json!({}))], &opts(), NOW) else { panic!() };
        assert!(why.contains("attempt 1 is still being created: js-w-1 not created yet"), "{why}");
        // Every Job is there but none is ready (a wrong image, no capacity: it may never
        // be): the restart that fixes it goes ahead, whoever set the condition.
        let condition = |reason: &str| {
            json!({"restarts": 1, "conditions": [{"type": "RestartingJobSet", "status": "True",
                "reason": reason, "message": "restart 1 requested by bob with kubectl-jobset"}]})
        };
        let created = [job("js-w-0", 1, json!({})), job("js-w-1", 1, json!({}))];
        for reason in ["ManualRestart", "DefaultFailurePolicy"] {
            let js = jobset(condition(reason), json!({}));
            assert!(
                matches!(plan(&js, &created, &opts(), NOW), Decision::Patch { from: 1, to: 2, .. }),
                "{reason}"
            );
            assert_eq!(restart_in_progress(&js, &created), None, "{reason}");
        }
        let mut o = opts();
        o.force = true;
        assert!(matches!(plan(&js, &[], &o, NOW), Decision::Patch { .. }), "--force overrides");
    }

    #[test]
    fn commands_started_at_once_make_one_restart_without_waiting_on_pods() {
        let ours = |at: &str| {
            json!({"restarts": 1, "conditions": [{"type": "RestartingJobSet", "status": "True",
                "reason": "ManualRestart", "message": "restart 1 requested by bob with kubectl-jobset",
                "lastTransitionTime": at}]})
        };
        let created = [job("js-w-0", 1, json!({})), job("js-w-1", 1, json!({}))];
        // Read just after another command's restart of this attempt: the same restart.
        let js = jobset(ours("2026-11-30T11:59:57Z"), json!({}));
        assert_eq!(plan(&js, &created, &opts(), NOW), Decision::AlreadyRestarted { attempt: 1 });
        // A change this command just made gives its restart a purpose; so does --force.
        let mut o = opts();
        o.after_change = true;
        assert!(matches!(plan(&js, &created, &o, NOW), Decision::Patch { from: 1, to: 2, .. }));
        // Later on, an attempt whose Pods never got ready is restarted.
        let js = jobset(ours("2026-11-30T11:59:00Z"), json!({}));
        assert!(matches!(plan(&js, &created, &opts(), NOW), Decision::Patch { from: 1, to: 2, .. }));
    }

    #[test]
    fn a_suspended_jobset_restarts_for_free() {
        let js = jobset(
            json!({"restarts": 1, "restartsCountTowardsMax": 1}),
            json!({"suspend": true,
            "failurePolicy": {"maxRestarts": 1}}),
        );
        let mut o = opts();
        o.count_towards_max = true;
        // Counting would exceed maxRestarts, but a queued JobSet's restart never counts.
        let Decision::Patch { ops, from: 1, to: 2 } = plan(&js, &running(&js), &o, NOW) else { panic!() };
        let text = serde_json::to_string(&ops).unwrap();
        assert!(text.contains("/status/restarts") && !text.contains("restartsCountTowardsMax"), "{text}");
        let warned = warnings(&js, &running(&js), &o).join("\n");
        assert!(warned.contains("the restart is free") && warned.contains("has no effect"), "{warned}");
    }

    #[test]
    fn expect_attempt_makes_scripts_idempotent() {
        let js = jobset(json!({"restarts": 3}), json!({}));
        let mut o = opts();
        o.expect_attempt = Some(2);
        assert_eq!(plan(&js, &running(&js), &o, NOW), Decision::AlreadyRestarted { attempt: 3 });
        o.expect_attempt = Some(4);
        assert!(matches!(plan(&js, &running(&js), &o, NOW), Decision::Refuse(_)));
        o.expect_attempt = Some(3);
        assert!(matches!(plan(&js, &running(&js), &o, NOW), Decision::Patch { from: 3, to: 4, .. }));
    }

    #[test]
    fn per_job_restart_needs_the_restart_job_feature() {
        let js = jobset(
            json!({"restarts": 0, "replicatedJobsStatus": [{"name": "w", "jobRestarts": [0, 4]}]}),
            json!({}),
        );
        let mut o = opts();
        o.job = Some(("w".into(), 1));
        let Decision::Refuse(why) =
            plan(&js, &[job("js-w-0", 0, json!({})), job("js-w-1", 0, json!({}))], &o, NOW)
        else {
            panic!()
        };
        assert!(why.contains("RestartJob feature gate is off"), "{why}");
        let with_gate = job("js-w-1", 0, json!({"jobset.sigs.k8s.io/job-restart-attempt": "4"}));
        let Decision::Patch { ops, .. } = plan(&js, &[job("js-w-0", 0, json!({})), with_gate], &o, NOW)
        else {
            panic!()
        };
        let ops = values(&ops);
        assert_eq!(
            ops,
            [
                json!({"op": "test", "path": "/status/replicatedJobsStatus/0/name", "value": "w"}),
                json!({"op": "test", "path": "/status/replicatedJobsStatus/0/jobRestarts/1", "value": 4}),
                json!({"op": "replace", "path": "/status/replicatedJobsStatus/0/jobRestarts/1", "value": 5}),
            ]
        );
        o.job = Some(("w".into(), 7));
        assert!(matches!(plan(&js, &running(&js), &o, NOW), Decision::Refuse(_)));
    }

    #[test]
    fn job_targets() {
        assert_eq!(parse_job_target("workers/3"), Ok(("workers".into(), 3)));
        let why = |text| parse_job_target(text).unwrap_err().to_string();
        assert_eq!(why("workers"), r#"--job "workers": use REPLICATEDJOB/INDEX, e.g. workers/3"#);
        assert_eq!(why("workers/x"), r#"--job "workers/x": the index must be a number, e.g. workers/3"#);
        assert_eq!(why("/1"), r#"--job "/1": use REPLICATEDJOB/INDEX, e.g. workers/3"#);
    }
}
