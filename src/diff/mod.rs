//! Template drift between a JobSet's spec and its running child Jobs: the engine that
//! `diff`, `restart --if-outdated`, `history` and `rollback` share. Pure: the caller
//! supplies the defaulted Job for each replicatedJob (see `expected::probe_job`)..

pub mod changes;
pub mod digest;
pub mod expected;
pub mod normalize;
pub mod unified;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::compact::HeldJson;
use crate::model::jobset::{ChildJob, JobSet, ReplicatedJob, labels};
use crate::model::kueue::{Kueue, QuotaMismatch};
use changes::{Change, changes};
use normalize::Expected;

/// Where a JobSet stands for a comparison. Running and suspended (queued) JobSets have
/// their Jobs compared: a suspended JobSet's Jobs exist, suspended, and resuming starts
/// those same Jobs, so they are what will run. Finished JobSets and JobSets another
/// controller manages are not compared: the JobSet controller recreates nothing for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum State {
    Compared,
    Suspended,
    Completed,
    Failed,
    ManagedElsewhere,
}

impl State {
    /// Whether the Jobs are compared with the spec (running or queued).
    pub fn compares_jobs(self) -> bool {
        matches!(self, State::Compared | State::Suspended)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobSetDrift {
    pub namespace: String,
    pub name: String,
    pub attempt: i32,
    pub state: State,
    pub replicated_jobs: Vec<ReplicatedJobDrift>,
    /// Jobs of an earlier attempt (or being deleted): a restart in progress.
    pub previous_attempt_jobs: Vec<String>,
    /// Jobs whose restart-attempt label is missing or not an integer.
    pub unlabelled_jobs: Vec<String>,
    /// `spec.managedBy` when another controller manages the JobSet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manager: Option<String>,
    /// Why the JobSet's templates could not be compared (e.g. the API server rejects a Job
    /// built from one): its problem alone, the other JobSets of a fleet are still compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Kueue's view, when Kueue queues the JobSet (filled in from the fleet's Workloads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kueue: Option<Kueue>,
    /// Where the Pods request other resources than Kueue's Workload reserves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quota: Vec<QuotaMismatch>,
    /// A change staged for the next restart (out of the spec), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staged: Option<StagedChange>,
}

/// A change staged for the JobSet's next restart, as `diff` and `status` show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StagedChange {
    /// The ControllerRevision that holds it.
    pub revision: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// The replicatedJobs whose template it changes.
    pub replicated_jobs: Vec<String>,
    /// The rollout (`NAMESPACE/NAME`) that holds it for a later batch: no restart applies it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_for: Option<String>,
    /// `(replicatedJob, spec template, staged template)` for each of them.
    #[serde(skip)]
    pub edits: Vec<(String, Value, Value)>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicatedJobDrift {
    pub name: String,
    pub replicas: i32,
    /// Current-attempt Jobs, sorted by index.
    pub jobs: Vec<String>,
    /// Jobs with identical drift, grouped.
    pub outdated: Vec<DriftGroup>,
    /// parallelism/completions that differ from the spec (elastic JobSets).
    pub scale: Vec<ScaleChange>,
    /// Names the spec asks for that do not exist yet.
    pub not_created: Vec<String>,
    /// Jobs beyond `replicas` (replicas was lowered).
    pub beyond_replicas: Vec<String>,
    /// Whether the replicatedJob still exists in the spec.
    pub in_spec: bool,
    /// The normalised Job the spec makes (shared with the Jobs that run it).
    #[serde(skip)]
    pub spec_template: Arc<HeldJson>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftGroup {
    pub jobs: Vec<String>,
    pub changes: Vec<Change>,
    /// The group's normalised template, shared with its Jobs.
    #[serde(skip)]
    pub live_template: Arc<HeldJson>,
}

/// A replicatedJob running several templates in one attempt: a distributed workload
/// whose workers disagree on what they run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Mixed {
    pub replicated_job: String,
    /// Jobs on the spec's template.
    pub on_spec: Vec<String>,
    /// Jobs on outdated templates, one group per template.
    pub outdated: Vec<Vec<String>>,
}

impl Mixed {
    /// `workers: train-workers-1 on the spec's template, train-workers-0,2 on an outdated one`
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if !self.on_spec.is_empty() {
            parts.push(format!("{} on the spec's template", job_range(&self.on_spec)));
        }
        for group in &self.outdated {
            parts.push(format!("{} on an outdated one", job_range(group)));
        }
        format!("{}: {}", self.replicated_job, parts.join(", "))
    }
}

/// Whether the current Jobs of some replicatedJob differ in template. Jobs of a loaded
/// fleet hold their template in normal form, shared when equal, so equal ones compare at
/// once; only templates that differ as held are normalised (raw ones, from a watch).
pub fn runs_mixed_templates(jobset: &JobSet, jobs: &[ChildJob]) -> bool {
    let current = jobs.iter().filter(|j| j.attempt() == Some(jobset.attempt()) && !j.is_deleting());
    let mut first: std::collections::HashMap<&str, &ChildJob> = std::collections::HashMap::new();
    for job in current {
        let Some(rjob) = job.label(labels::REPLICATED_JOB) else { continue };
        let Some(seen) = first.get(rjob) else {
            first.insert(rjob, job);
            continue;
        };
        let same = std::sync::Arc::ptr_eq(&seen.template, &job.template)
            || seen.template == job.template
            || normalize::normalize(&seen.template.value()).template
                == normalize::normalize(&job.template.value()).template;
        if !same {
            return true;
        }
    }
    false
}

/// The drift as it will be once Job `job` alone is recreated from the spec (a per-Job
/// restart): it then runs the spec's template, the others keep theirs.
pub fn after_job_restart(drift: &JobSetDrift, job: &str) -> JobSetDrift {
    let mut after = drift.clone();
    for rjob in &mut after.replicated_jobs {
        keep_differing_jobs(rjob, |j| j != job);
    }
    after
}

/// Keeps only the Jobs `keep` accepts in a replicatedJob's template and scale drift,
/// dropping the groups left empty.
fn keep_differing_jobs(rjob: &mut ReplicatedJobDrift, keep: impl Fn(&str) -> bool) {
    for group in &mut rjob.outdated {
        group.jobs.retain(|j| keep(j));
    }
    rjob.outdated.retain(|g| !g.jobs.is_empty());
    for scale in &mut rjob.scale {
        scale.jobs.retain(|j| keep(j));
    }
    rjob.scale.retain(|s| !s.jobs.is_empty());
}

/// The drift of Job `job` alone: what a per-Job restart applies.
pub fn only_job(drift: &JobSetDrift, job: &str) -> JobSetDrift {
    let mut only = drift.clone();
    for rjob in &mut only.replicated_jobs {
        rjob.jobs.retain(|j| j == job);
        keep_differing_jobs(rjob, |j| j == job);
        rjob.beyond_replicas.retain(|j| j == job);
        rjob.not_created.clear();
    }
    only.previous_attempt_jobs.clear();
    only
}

/// `runs mixed templates in attempt N (workers: …; driver: …)`, when it does.
pub fn mixed_words(drift: &JobSetDrift) -> Option<String> {
    let mixed = drift.mixed_templates();
    (!mixed.is_empty()).then(|| {
        let each: Vec<String> = mixed.iter().map(Mixed::words).collect();
        format!("runs mixed templates in attempt {} ({})", drift.attempt, each.join("; "))
    })
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleChange {
    pub field: &'static str,
    pub jobs: Vec<String>,
    pub live: Option<i64>,
    pub spec: Option<i64>,
}

impl JobSetDrift {
    pub fn outdated_jobs(&self) -> usize {
        self.replicated_jobs.iter().flat_map(|r| &r.outdated).map(|g| g.jobs.len()).sum()
    }

    pub fn total_jobs(&self) -> usize {
        self.replicated_jobs.iter().map(|r| r.jobs.len()).sum()
    }

    /// The replicatedJobs whose current Jobs run more than one template at once (a
    /// per-Job restart or a scale-up created some from a newer spec), with which run which.
    pub fn mixed_templates(&self) -> Vec<Mixed> {
        self.replicated_jobs
            .iter()
            .filter_map(|r| {
                let outdated: Vec<&String> = r.outdated.iter().flat_map(|g| &g.jobs).collect();
                let on_spec: Vec<String> = r.jobs.iter().filter(|j| !outdated.contains(j)).cloned().collect();
                let mixed = (!on_spec.is_empty() && !r.outdated.is_empty()) || r.outdated.len() > 1;
                mixed.then(|| Mixed {
                    replicated_job: r.name.clone(),
                    on_spec,
                    outdated: r.outdated.iter().map(|g| g.jobs.clone()).collect(),
                })
            })
            .collect()
    }

    /// Template drift or a scale change: what makes `diff` exit 1.
    pub fn has_drift(&self) -> bool {
        self.replicated_jobs
            .iter()
            .any(|r| !r.outdated.is_empty() || !r.scale.is_empty() || !r.beyond_replicas.is_empty())
    }
}

/// Which state keeps a JobSet from being compared.
pub fn state_of(jobset: &JobSet) -> State {
    if jobset.finished_as("Failed") {
        State::Failed
    } else if jobset.finished_as("Completed") {
        State::Completed
    } else if jobset.managed_elsewhere().is_some() {
        State::ManagedElsewhere
    } else if jobset.is_suspended() {
        State::Suspended
    } else {
        State::Compared
    }
}

/// Compares each current-attempt Job with the Job the controller would create now.
/// `expected` maps each replicatedJob name to its normalised, defaulted probe Job.
pub fn compare(jobset: &JobSet, jobs: &[ChildJob], expected: &BTreeMap<String, Expected>) -> JobSetDrift {
    let attempt = jobset.attempt();
    let state = state_of(jobset);
    let mut sorted = ByAttempt::sort(jobs, attempt);
    let mut replicated_jobs = Vec::with_capacity(jobset.spec.replicated_jobs.len());
    for rjob in &jobset.spec.replicated_jobs {
        let mut current = sorted.current.remove(&rjob.name).unwrap_or_default();
        current.sort_by_key(|j| (job_index(j), j.name().to_owned()));
        let mut drift = in_spec_drift(jobset, rjob, &current);
        if state.compares_jobs()
            && let Some(want) = expected.get(&rjob.name)
        {
            compare_jobs(&mut drift, &current, want);
            compare_world_size(&mut drift, &current, rjob.replicas, jobset.expected_jobs());
        }
        replicated_jobs.push(drift);
    }
    // Jobs of a replicatedJob that is no longer in the spec.
    replicated_jobs.extend(sorted.current.into_iter().map(|(name, current)| removed_drift(name, &current)));
    JobSetDrift {
        namespace: jobset.namespace().to_owned(),
        name: jobset.name().to_owned(),
        attempt,
        state,
        replicated_jobs,
        previous_attempt_jobs: sorted.previous,
        unlabelled_jobs: sorted.unlabelled,
        manager: jobset.managed_elsewhere().map(str::to_owned),
        error: None,
        kueue: None,
        quota: Vec::new(),
        staged: None,
    }
}

/// A JobSet's Jobs sorted by restart attempt: only the current attempt's are compared.
struct ByAttempt<'a> {
    /// Current-attempt Jobs per replicatedJob label.
    current: BTreeMap<String, Vec<&'a ChildJob>>,
    previous: Vec<String>,
    unlabelled: Vec<String>,
}

impl<'a> ByAttempt<'a> {
    /// Jobs being deleted count as previous: a restart is deleting them.
    fn sort(jobs: &'a [ChildJob], attempt: i32) -> Self {
        let mut sorted = ByAttempt { current: BTreeMap::new(), previous: Vec::new(), unlabelled: Vec::new() };
        for job in jobs {
            match job.attempt() {
                None => sorted.unlabelled.push(job.name().to_owned()),
                Some(a) if a < attempt || job.is_deleting() => sorted.previous.push(job.name().to_owned()),
                Some(_) => {
                    let rjob = job.label(labels::REPLICATED_JOB).unwrap_or_default().to_owned();
                    sorted.current.entry(rjob).or_default().push(job);
                }
            }
        }
        sorted
    }
}

/// A replicatedJob of the spec against its current Jobs (sorted by index): which of the
/// names the spec asks for are missing and which Jobs are beyond `replicas`. Template
/// and scale drift are `compare_jobs`' part.
fn in_spec_drift(jobset: &JobSet, rjob: &ReplicatedJob, current: &[&ChildJob]) -> ReplicatedJobDrift {
    let expected_names: Vec<String> =
        (0..rjob.replicas.max(0)).map(|i| jobset.job_name(&rjob.name, i)).collect();
    ReplicatedJobDrift {
        name: rjob.name.clone(),
        replicas: rjob.replicas,
        jobs: names(current),
        outdated: vec![],
        scale: vec![],
        not_created: expected_names
            .iter()
            .filter(|n| !current.iter().any(|j| j.name() == *n))
            .cloned()
            .collect(),
        beyond_replicas: current
            .iter()
            .filter(|j| !expected_names.iter().any(|n| n == j.name()))
            .map(|j| j.name().to_owned())
            .collect(),
        in_spec: true,
        spec_template: Arc::default(),
    }
}

/// A replicatedJob gone from the spec: all its Jobs are beyond its (zero) replicas.
fn removed_drift(name: String, current: &[&ChildJob]) -> ReplicatedJobDrift {
    ReplicatedJobDrift {
        name,
        replicas: 0,
        jobs: names(current),
        outdated: vec![],
        scale: vec![],
        not_created: vec![],
        beyond_replicas: names(current),
        in_spec: false,
        spec_template: Arc::default(),
    }
}

fn names(jobs: &[&ChildJob]) -> Vec<String> {
    jobs.iter().map(|j| j.name().to_owned()).collect()
}

fn compare_jobs(drift: &mut ReplicatedJobDrift, current: &[&ChildJob], want: &Expected) {
    let mut groups: Vec<DriftGroup> = Vec::new();
    let mut scale: Vec<ScaleChange> = Vec::new();
    // The spec's template as a Job that runs it holds it: in a fleet without drift every
    // template is then held once. It is parsed only to say what a drifted Job changes.
    let mut spec_template = None;
    let mut want_template: Option<Value> = None;
    for job in current {
        if want.is_run_by(&job.template) {
            spec_template.get_or_insert_with(|| job.template.clone());
        } else {
            let live = job.template.as_ref();
            match groups.iter_mut().find(|g| *g.live_template == *live) {
                Some(group) => group.jobs.push(job.name().to_owned()),
                None => {
                    let want_template =
                        want_template.get_or_insert_with(|| want.template.value().into_owned());
                    groups.push(DriftGroup {
                        jobs: vec![job.name().to_owned()],
                        changes: changes(&live.value(), want_template),
                        live_template: job.template.clone(),
                    })
                }
            }
        }
        for (field, live_value, spec_value) in [
            ("parallelism", job.parallelism, want.parallelism),
            ("completions", job.completions, want.completions),
        ] {
            if live_value != spec_value {
                note_scale(&mut scale, field, job, live_value, spec_value);
            }
        }
    }
    drift.spec_template = spec_template.unwrap_or_else(|| want.template.clone());
    drift.outdated = groups;
    drift.scale = scale;
}

/// The replica counts the controller wrote on each Job (and its Pods) when it created
/// it: after a scale-up, the old Jobs' Pods still see the old world size. Identity keys
/// otherwise, so normalisation drops them; compared here against the spec's counts.
fn compare_world_size(drift: &mut ReplicatedJobDrift, current: &[&ChildJob], replicas: i32, total: usize) {
    let wanted =
        [(labels::REPLICATED_JOB_REPLICAS, i64::from(replicas)), (labels::GLOBAL_REPLICAS, total as i64)];
    for job in current {
        for (field, spec) in wanted {
            // A Job without the label (made by hand, or by an older controller) says nothing.
            let Some(live) = job.label(field).and_then(|v| v.parse::<i64>().ok()) else { continue };
            if live != spec {
                note_scale(&mut drift.scale, field, job, Some(live), Some(spec));
            }
        }
    }
}

/// Adds `job` to the group of Jobs whose `field` is `live` instead of the spec's.
fn note_scale(
    scale: &mut Vec<ScaleChange>,
    field: &'static str,
    job: &ChildJob,
    live: Option<i64>,
    spec: Option<i64>,
) {
    match scale.iter_mut().find(|s| s.field == field && s.live == live) {
        Some(s) => s.jobs.push(job.name().to_owned()),
        None => scale.push(ScaleChange { field, jobs: vec![job.name().to_owned()], live, spec }),
    }
}

fn job_index(job: &ChildJob) -> i64 {
    job.label(labels::JOB_INDEX).and_then(|i| i.parse().ok()).unwrap_or(i64::MAX)
}

/// `js-workers-0..3,5`: names compressed into index ranges when they share a prefix.
pub fn job_range(names: &[String]) -> String {
    let split =
        |n: &str| n.rsplit_once('-').and_then(|(p, i)| i.parse::<i64>().ok().map(|i| (p.to_owned(), i)));
    let parsed: Option<Vec<(String, i64)>> = names.iter().map(|n| split(n)).collect();
    let Some(parsed) = parsed.filter(|p| !p.is_empty() && p.iter().all(|(prefix, _)| *prefix == p[0].0))
    else {
        return names.join(",");
    };
    let mut indexes: Vec<i64> = parsed.iter().map(|(_, i)| *i).collect();
    indexes.sort_unstable();
    indexes.dedup();
    format!("{}-{}", parsed[0].0, crate::runs::runs(indexes, ".."))
}

#[cfg(test)]
mod tests {
    use super::normalize::normalize;
    use super::*;
    use crate::testing;
    use serde_json::json;

    fn jobset(image: &str, replicas: i32, status: Value) -> JobSet {
        let template = json!({"spec": {"parallelism": 1,
            "template": {"spec": {"containers": [{"name": "main", "image": image}]}}}});
        testing::jobset("js")
            .namespace("ml")
            .uid("u")
            .replicated_job("w", replicas, template)
            .status(status)
            .build()
    }

    fn job(index: u32, attempt: &str, image: &str) -> ChildJob {
        let spec = json!({"parallelism": 1, "selector": {}, "template": {"metadata": {"labels": {"job-name": "x"}},
            "spec": {"containers": [{"name": "main", "image": image}]}}});
        normalize::normalize_child(
            testing::job(&format!("js-w-{index}"))
                .attempt(attempt)
                .replicated_job("w")
                .index(index)
                .spec(spec)
                .build(),
        )
    }

    fn expected(js: &JobSet) -> BTreeMap<String, Expected> {
        js.spec
            .replicated_jobs
            .iter()
            .map(|r| (r.name.clone(), normalize(&expected::expected_job(js, r)).into()))
            .collect()
    }

    #[test]
    fn identical_jobs_have_no_drift() {
        let js = jobset("app:v1", 2, json!({"restarts": 1}));
        let d = compare(&js, &[job(0, "1", "app:v1"), job(1, "1", "app:v1")], &expected(&js));
        assert!(!d.has_drift(), "{d:#?}");
        assert_eq!((d.outdated_jobs(), d.total_jobs()), (0, 2));
    }

    #[test]
    fn without_drift_each_template_is_held_once_by_the_jobs_running_it() {
        let js = jobset("app:v1", 2, json!({"restarts": 1}));
        let jobs = [job(0, "1", "app:v1"), job(1, "1", "app:v1")];
        let d = compare(&js, &jobs, &expected(&js));
        assert!(!d.has_drift());
        assert!(std::sync::Arc::ptr_eq(&d.replicated_jobs[0].spec_template, &jobs[0].template));
        // Drifted: the group shares its Jobs' template, the spec's is its own.
        let js = jobset("app:v2", 1, json!({"restarts": 1}));
        let d = compare(&js, &jobs[..1], &expected(&js));
        let rjob = &d.replicated_jobs[0];
        assert!(std::sync::Arc::ptr_eq(&rjob.outdated[0].live_template, &jobs[0].template));
        assert_eq!(*rjob.spec_template, *expected(&js)["w"].template);
    }

    #[test]
    fn identical_drift_is_grouped() {
        let js = jobset("app:v2", 3, json!({"restarts": 1}));
        let jobs = [job(0, "1", "app:v1"), job(1, "1", "app:v1"), job(2, "1", "app:v2")];
        let d = compare(&js, &jobs, &expected(&js));
        assert!(d.has_drift());
        let groups = &d.replicated_jobs[0].outdated;
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].jobs, ["js-w-0", "js-w-1"]);
        assert_eq!(groups[0].changes[0].path, "spec.template.spec.containers[main].image");
        assert_eq!((d.outdated_jobs(), d.total_jobs()), (2, 3));
    }

    #[test]
    fn earlier_attempts_and_missing_jobs_are_not_drift() {
        let js = jobset("app:v2", 2, json!({"restarts": 2}));
        let d = compare(&js, &[job(0, "1", "app:v1"), job(1, "2", "app:v2")], &expected(&js));
        assert!(!d.has_drift());
        assert_eq!(d.previous_attempt_jobs, ["js-w-0"]);
        assert_eq!(d.replicated_jobs[0].not_created, ["js-w-0"]);
    }

    #[test]
    fn finished_and_foreign_jobsets_are_not_compared_queued_ones_are() {
        let mut js = jobset("app:v2", 1, json!({"terminalState": "Completed"}));
        assert_eq!(compare(&js, &[job(0, "0", "app:v1")], &expected(&js)).state, State::Completed);
        js.status.terminal_state = None;
        js.spec.managed_by = Some("kueue.x-k8s.io/multikueue".into());
        let d = compare(&js, &[job(0, "0", "app:v1")], &expected(&js));
        assert_eq!(d.state, State::ManagedElsewhere);
        assert!(!d.has_drift());
        // Queued: resuming starts these same Jobs, so their outdated template is drift.
        js.spec.managed_by = None;
        js.spec.suspend = Some(true);
        let d = compare(&js, &[job(0, "0", "app:v1")], &expected(&js));
        assert_eq!(d.state, State::Suspended);
        assert!(d.has_drift());
    }

    #[test]
    fn jobs_of_one_replicated_job_on_two_templates_are_mixed() {
        let js = jobset("app:v2", 3, json!({}));
        let same = [job(0, "0", "app:v1"), job(1, "0", "app:v1")];
        assert!(!runs_mixed_templates(&js, &same));
        // Raw (not interned) templates differ by the Job's own labels only: not mixed.
        let mut other = job(2, "0", "app:v1");
        other.template = Arc::new(HeldJson::from(json!({"metadata": {"labels": {"job-name": "js-w-2"}},
            "spec": {"template": {"spec": {"containers": [{"name": "main", "image": "app:v1"}]}}}})));
        assert!(!runs_mixed_templates(&js, &[same[0].clone(), other]));
        assert!(runs_mixed_templates(&js, &[same[0].clone(), job(2, "0", "app:v2")]));
        // An earlier attempt's Job does not count.
        assert!(!runs_mixed_templates(&js, &[same[0].clone(), job(2, "1", "app:v2")]));
    }

    #[test]
    fn the_world_size_a_job_was_created_with_is_compared_with_the_spec() {
        // replicas 2 → 3: the old Jobs still carry 2, the Job created after it 3.
        let js = jobset("app:v1", 3, json!({}));
        let sized = |index: u32, n: &str| {
            let mut j = job(index, "0", "app:v1");
            let labels = j.metadata.labels.as_mut().unwrap();
            labels.insert(labels::REPLICATED_JOB_REPLICAS.into(), n.into());
            labels.insert(labels::GLOBAL_REPLICAS.into(), n.into());
            j
        };
        let d = compare(&js, &[sized(0, "2"), sized(1, "2"), sized(2, "3")], &expected(&js));
        let fields: Vec<(&str, Vec<String>, Option<i64>)> =
            d.replicated_jobs[0].scale.iter().map(|s| (s.field, s.jobs.clone(), s.live)).collect();
        let old = vec!["js-w-0".to_owned(), "js-w-1".to_owned()];
        assert_eq!(
            fields,
            [
                (labels::REPLICATED_JOB_REPLICAS, old.clone(), Some(2)),
                (labels::GLOBAL_REPLICAS, old, Some(2))
            ]
        );
        assert!(d.has_drift() && d.outdated_jobs() == 0);
        // Jobs without the labels (made by hand) say nothing about it.
        assert!(!compare(&js, &[job(0, "0", "app:v1")], &expected(&js)).has_drift());
    }

    #[test]
    fn scale_changes_are_separate_from_template_drift() {
        let js = jobset("app:v1", 1, json!({}));
        let mut j = job(0, "0", "app:v1");
        j.parallelism = Some(4);
        let d = compare(&js, &[j], &expected(&js));
        assert!(d.replicated_jobs[0].outdated.is_empty());
        assert_eq!(
            d.replicated_jobs[0].scale,
            [ScaleChange { field: "parallelism", jobs: vec!["js-w-0".into()], live: Some(4), spec: Some(1) }]
        );
        assert!(d.has_drift());
    }

    #[test]
    fn unlabelled_jobs_are_set_aside() {
        let js = jobset("app:v1", 1, json!({}));
        let mut j = job(0, "x", "app:v1");
        j.metadata.name = Some("handmade".into());
        let d = compare(&js, &[j], &expected(&js));
        assert_eq!(d.unlabelled_jobs, ["handmade"]);
    }

    #[test]
    fn job_ranges() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(job_range(&names(&["js-w-0", "js-w-1", "js-w-2", "js-w-3"])), "js-w-0..3");
        assert_eq!(job_range(&names(&["js-w-0", "js-w-2", "js-w-3", "js-w-7"])), "js-w-0,2..3,7");
        assert_eq!(job_range(&names(&["a-1", "b-2"])), "a-1,b-2");
        assert_eq!(job_range(&names(&["js-w-5"])), "js-w-5");
    }
}
