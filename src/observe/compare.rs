//! Comparing JobSets with their Jobs: the Job the controller would build now against
//! each live Job of the current attempt.
//!
//! Client side first: each live Job is compared with the spec's template under
//! client-side defaults (`apply_client_defaults`). When every Job of a replicatedJob
//! equals that form, the Jobs run the spec: the live Jobs are the API server's defaulting
//! of some template, the client defaults set only what the server sets where a template
//! is silent, and defaulting an already defaulted Job changes nothing, so the server would
//! default the spec to these same Jobs. No dry run is needed then. Only a replicatedJob
//! whose Jobs differ client-side is dry-run on the server (one server-side dry-run create
//! per distinct template and namespace), which gives the exact expected Job, so a
//! difference that is only a default the client does not know never shows as drift, and
//! a real change is never hidden.

use std::collections::BTreeMap;

use serde_json::Value;

use super::defaulter::{Defaulter, client_expected};
use super::fleet::Fleet;
use crate::diff::normalize::Expected;
use crate::diff::{JobSetDrift, compare};
use crate::error::Result;
use crate::model::jobset::{ChildJob, JobSet, labels};

/// Whether the server must confirm a replicatedJob: some Job of it (of any attempt, which
/// is stricter than comparing the current attempt's only) differs from the client-side
/// form, in its template or its scale.
pub fn needs_server(client: &Expected, jobs: &[&ChildJob]) -> bool {
    jobs.iter().any(|job| {
        !client.is_run_by(&job.template)
            || job.parallelism != client.parallelism
            || job.completions != client.completions
    })
}

/// A replicatedJob's client-side form: the one the read matched its Jobs against, else
/// built now.
fn client_form(fleet: &Fleet, jobset: &JobSet, rjob: &crate::model::jobset::ReplicatedJob) -> Expected {
    match fleet.client_form(jobset, &rjob.name) {
        Some(form) => form.clone(),
        None => client_expected(jobset, &rjob.template.value()).into(),
    }
}

/// The Jobs of `jobset` labelled with replicatedJob `name`.
fn jobs_of_replicated_job<'f>(fleet: &'f Fleet, jobset: &JobSet, name: &str) -> Vec<&'f ChildJob> {
    fleet.jobs_of(jobset).iter().filter(|j| j.label(labels::REPLICATED_JOB) == Some(name)).collect()
}

/// Drift for every JobSet in the fleet. A JobSet whose templates the API server rejects
/// gets its problem in `error`, with no template comparison; the others are compared.
///
/// A JobSet whose Jobs all match the client-side forms is compared at once, so its forms
/// are dropped before the next JobSet's are built: a fleet without drift never holds
/// more than one JobSet's expected Jobs beside its own (every JobSet may have its own).
pub async fn compute(defaulter: &mut Defaulter<'_>, fleet: &Fleet) -> Result<Vec<JobSetDrift>> {
    let first_pass: Vec<std::result::Result<JobSetDrift, Vec<Option<Expected>>>> = fleet
        .jobsets
        .iter()
        .map(|js| {
            let forms: Vec<Option<Expected>> = js
                .spec
                .replicated_jobs
                .iter()
                .map(|r| {
                    let client = client_form(fleet, js, r);
                    (!needs_server(&client, &jobs_of_replicated_job(fleet, js, &r.name))).then_some(client)
                })
                .collect();
            let settled = forms.iter().all(Option::is_some) || !crate::diff::state_of(js).compares_jobs();
            match settled {
                true => Ok(compare_with(defaulter, fleet, js, forms)),
                false => Err(forms),
            }
        })
        .collect();
    let to_confirm: Vec<(&JobSet, Value)> = fleet
        .jobsets
        .iter()
        .zip(&first_pass)
        .filter_map(|(js, pass)| pass.as_ref().err().map(|forms| (js, forms)))
        .flat_map(|(js, forms)| {
            js.spec
                .replicated_jobs
                .iter()
                .zip(forms)
                .filter(|(_, f)| f.is_none())
                .map(move |(r, _)| (js, r.template.value()))
        })
        .collect();
    defaulter.prefetch(to_confirm).await?;
    Ok(fleet
        .jobsets
        .iter()
        .zip(first_pass)
        .map(|(jobset, pass)| pass.unwrap_or_else(|forms| compare_with(defaulter, fleet, jobset, forms)))
        .collect())
}

/// One JobSet's drift: each replicatedJob compared with its client-side form where that
/// settled it, else with the server's (after `prefetch`).
fn compare_with(
    defaulter: &Defaulter<'_>,
    fleet: &Fleet,
    jobset: &JobSet,
    forms: Vec<Option<Expected>>,
) -> JobSetDrift {
    let mut problems = Vec::new();
    let mut expected: BTreeMap<String, Expected> = BTreeMap::new();
    for (r, client) in jobset.spec.replicated_jobs.iter().zip(forms) {
        let want = match client {
            Some(client) => Some(client),
            None => {
                if let Some(why) = defaulter.problem(jobset, &r.template.value()) {
                    problems.push(format!("replicatedJob {}: {why}", r.name));
                }
                defaulter.expected(jobset, &r.template.value()).map(Expected::from)
            }
        };
        if let Some(want) = want {
            expected.insert(r.name.clone(), want);
        }
    }
    let mut drift = if problems.is_empty() {
        compare(jobset, fleet.jobs_of(jobset), &expected)
    } else {
        // Compare nothing rather than part of the JobSet: its problem is the answer.
        let mut drift = compare(jobset, fleet.jobs_of(jobset), &BTreeMap::new());
        drift.error = Some(problems.join("; "));
        drift
    };
    drift.kueue = fleet.kueue_of(jobset);
    drift.staged = fleet.staged_of(jobset).and_then(|staged| staged_change(jobset, staged));
    if let Some(workload) = drift.kueue.as_ref().and_then(|k| k.workload.as_ref()) {
        drift.quota =
            crate::model::kueue::quota_mismatches(workload, fleet.jobs_of(jobset), jobset.attempt());
    }
    drift
}

/// What a staged change would change in the spec; None once it is applied (the spec
/// holds it: the next look removes it) or when it changes nothing.
fn staged_change(jobset: &JobSet, staged: &crate::plan::staged::Staged) -> Option<crate::diff::StagedChange> {
    if matches!(crate::plan::staged::next_step(jobset, staged), crate::plan::staged::Step::Done) {
        return None;
    }
    let edits: Vec<(String, Value, Value)> = crate::history::templates_of(jobset)
        .into_iter()
        .filter_map(|(name, spec)| {
            let (_, want) = staged.templates.iter().find(|(n, _)| *n == name)?;
            (crate::history::canonical(want) != crate::history::canonical(&spec))
                .then(|| (name, spec, want.clone()))
        })
        .collect();
    (!edits.is_empty()).then(|| crate::diff::StagedChange {
        revision: staged.name.clone(),
        cause: staged.cause.clone(),
        replicated_jobs: edits.iter().map(|(n, _, _)| n.clone()).collect(),
        held_for: staged.held_for.clone(),
        edits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::normalize::normalize_child;
    use crate::testing;
    use serde_json::json;

    fn jobset(container: Value) -> JobSet {
        let template = json!({"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [container]}}}});
        testing::jobset("js").namespace("ml").uid("u").replicated_job("w", 1, template).build()
    }

    /// A live Job as the API server stores it: the template with every default it adds.
    fn live_job(image: &str, extra_pod_spec: Value) -> ChildJob {
        let mut pod = json!({"restartPolicy": "OnFailure", "dnsPolicy": "ClusterFirst",
            "schedulerName": "default-scheduler", "securityContext": {}, "terminationGracePeriodSeconds": 30,
            "containers": [{"name": "main", "image": image, "imagePullPolicy": "IfNotPresent", "resources": {},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}]});
        for (k, v) in extra_pod_spec.as_object().unwrap() {
            pod[k] = v.clone();
        }
        let spec = json!({"parallelism": 1, "completions": 1, "completionMode": "NonIndexed", "backoffLimit": 6,
            "podReplacementPolicy": "TerminatingOrFailed", "suspend": false, "manualSelector": false,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "x"}},
            "template": {"metadata": {"labels": {"job-name": "js-w-0", "batch.kubernetes.io/job-name": "js-w-0"}},
                "spec": pod}});
        normalize_child(testing::job("js-w-0").replicated_job("w").attempt(0).index(0).spec(spec).build())
    }

    fn decide(js: &JobSet, jobs: &[ChildJob]) -> bool {
        let client = client_expected(js, &js.spec.replicated_jobs[0].template.value()).into();
        needs_server(&client, &jobs.iter().collect::<Vec<_>>())
    }

    #[test]
    fn jobs_that_run_the_spec_need_no_dry_run() {
        let js = jobset(json!({"name": "main", "image": "app:v1"}));
        assert!(!decide(&js, &[live_job("app:v1", json!({}))]));
        // A default written out in the spec is the same template to the server.
        let js = jobset(json!({"name": "main", "image": "app:v1", "imagePullPolicy": "IfNotPresent"}));
        assert!(!decide(&js, &[live_job("app:v1", json!({}))]));
        // No Jobs: nothing to compare, nothing to confirm.
        assert!(!decide(&js, &[]));
    }

    #[test]
    fn a_real_change_always_goes_to_the_server() {
        let js = jobset(json!({"name": "main", "image": "app:v2"}));
        assert!(decide(&js, &[live_job("app:v1", json!({}))]));
        // One Job of several is enough.
        assert!(decide(&js, &[live_job("app:v2", json!({})), live_job("app:v1", json!({}))]));
        // A field the template no longer sets.
        let js = jobset(json!({"name": "main", "image": "app:v1"}));
        assert!(decide(&js, &[live_job("app:v1", json!({"priorityClassName": "high"}))]));
    }

    #[test]
    fn what_the_client_cannot_default_goes_to_the_server() {
        // A default only the server (or a mutating webhook) knows: the server decides,
        // so it never shows as drift and never hides one.
        let js = jobset(json!({"name": "main", "image": "app:v1"}));
        assert!(decide(&js, &[live_job("app:v1", json!({"enableServiceLinks": true}))]));
        let mut scaled = live_job("app:v1", json!({}));
        scaled.parallelism = Some(3);
        assert!(decide(&js, &[scaled]), "scale differences are confirmed too");
        // A template without restartPolicy defaults to Always client-side, which no live Job
        // can have: the server is asked, and rejects it.
        let mut js = jobset(json!({"name": "main", "image": "app:v1"}));
        js.spec.replicated_jobs[0].template.edit(|t| {
            t["spec"]["template"]["spec"].as_object_mut().unwrap().remove("restartPolicy");
        });
        assert!(decide(&js, &[live_job("app:v1", json!({}))]));
    }
}
