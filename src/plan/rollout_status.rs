//! Where a JobSet's rollout stands, without I/O: for `status`, the current attempt judged
//! by the shared readiness judgement (`model::startup::judge`) and by `diff`'s drift
//! (do its Jobs run the spec's template?), in the words `status` prints.

use crate::diff::{JobSetDrift, job_range};
use crate::model::jobset::ChildJob;
use crate::model::jobset::JobSet;
use crate::model::startup::{Goal, Reached, Standing, judge};

/// The verdict on one look at a JobSet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Rolled out (or completed): exit 0.
    Done(String),
    /// Not yet, and what it waits for. `needs_restart`: the Jobs run an outdated
    /// template, which only a restart replaces (so a restart continues the rollout).
    Waiting { line: String, needs_restart: bool },
    /// Cannot roll out any more: exit 1 with this reason.
    Ended(String),
    /// A restart replaced the attempt being followed.
    Superseded { from: i32, to: i32 },
}

/// Judges attempt `attempt` of `jobset`, given its Jobs and the drift `diff` computes.
pub fn assess(jobset: &JobSet, jobs: &[ChildJob], drift: &JobSetDrift, attempt: i32) -> Verdict {
    let name = jobset.name();
    if let Some(manager) = jobset.managed_elsewhere() {
        // Nothing here will ever move it: waiting would only run into the timeout.
        return Verdict::Ended(format!(
            "jobset {name:?} is {}",
            crate::model::jobset::managed_elsewhere_words(manager)
        ));
    }
    let reached = match judge(jobset, jobs, attempt, Goal::Ready) {
        Standing::Completed => {
            return Verdict::Done(format!("jobset {name:?} completed (attempt {attempt})"));
        }
        Standing::Failed(message) => {
            let why = message.map(|m| format!(": {m}")).unwrap_or_default();
            return Verdict::Ended(format!("jobset {name:?} failed (attempt {attempt}){why}"));
        }
        Standing::Suspended if drift.kueue.is_some() => {
            let kueue = drift.kueue.as_ref().map(|k| k.words()).unwrap_or_default();
            if drift.has_drift() {
                // Admission would start the outdated template: waiting would end wrong.
                return Verdict::Ended(format!(
                    "jobset {name:?} is {kueue}: admission resumes its Jobs on an outdated template ({} of {} jobs); \
                     a restart now is free, nothing runs, and the Workload keeps its place (`{}`)",
                    drift.outdated_jobs(),
                    drift.total_jobs(),
                    crate::hint::kubectl_jobset(&format!("restart {name}"), jobset.namespace())
                ));
            }
            return Verdict::Waiting {
                line: format!("Waiting for jobset {name:?} attempt {attempt}: {kueue}"),
                needs_restart: false,
            };
        }
        Standing::Suspended if drift.has_drift() => {
            return Verdict::Ended(format!(
                "jobset {name:?} is suspended: its Jobs do not run until it is resumed, and then they start on \
                 an outdated template ({} of {} jobs); a restart now is free, nothing runs (`{}`)",
                drift.outdated_jobs(),
                drift.total_jobs(),
                crate::hint::kubectl_jobset(&format!("restart {name}"), jobset.namespace())
            ));
        }
        Standing::Suspended => {
            return Verdict::Ended(format!(
                "jobset {name:?} is suspended: its Jobs do not run until it is resumed"
            ));
        }
        Standing::Superseded(to) => return Verdict::Superseded { from: attempt, to },
        Standing::Done(reached) => Ok(reached),
        Standing::Pending(reached) => Err(reached),
    };
    let waiting = |what: String, needs_restart: bool| Verdict::Waiting {
        line: format!("Waiting for jobset {name:?} attempt {attempt}: {what}"),
        needs_restart,
    };
    if !drift.previous_attempt_jobs.is_empty() {
        return waiting(
            format!(
                "{} of earlier attempts still being deleted ({})",
                jobs_word(drift.previous_attempt_jobs.len()),
                job_range(&drift.previous_attempt_jobs)
            ),
            false,
        );
    }
    let outdated = drift.outdated_jobs();
    let scaled: usize = drift.replicated_jobs.iter().flat_map(|r| &r.scale).map(|s| s.jobs.len()).sum();
    if outdated > 0 || scaled > 0 || drift.replicated_jobs.iter().any(|r| !r.beyond_replicas.is_empty()) {
        let what = if outdated > 0 {
            let mixed = crate::diff::mixed_words(drift).map(|m| format!(": it {m}")).unwrap_or_default();
            format!("{outdated} of {} jobs run an outdated template{mixed}", drift.total_jobs())
        } else {
            "jobs differ from the spec in parallelism, completions or replicas".to_owned()
        };
        let workload = drift.kueue.as_ref().and_then(|k| k.workload.as_ref()).map(|w| w.name.as_str());
        let quota: String =
            drift.quota.iter().map(|m| format!("; {}", m.words(workload.unwrap_or("?")))).collect();
        return waiting(
            format!(
                "{what}; the next restart applies the spec's (`{}` restarts now){quota}",
                crate::hint::kubectl_jobset(&format!("restart {name}"), jobset.namespace())
            ),
            true,
        );
    }
    if let Some(staged) = drift.staged.as_ref().filter(|s| s.held_for.is_none()) {
        return waiting(
            format!(
                "a change is staged for the next restart (controllerrevision {}); `{}` applies it now",
                staged.revision,
                crate::hint::kubectl_jobset(&format!("restart {name}"), jobset.namespace())
            ),
            true,
        );
    }
    // A change a staged rollout holds is not this JobSet's rollout yet: said, not waited for.
    let held = drift
        .staged
        .as_ref()
        .and_then(|s| {
            Some(format!("; {}", crate::plan::staged::held_words(&s.revision, "", s.held_for.as_deref()?)))
        })
        .unwrap_or_default();
    match reached {
        Ok(reached) => Verdict::Done(format!(
            "jobset {name:?} successfully rolled out (attempt {attempt}: {}){}{held}",
            ready_count(&reached),
            blocked_suffix(&reached)
        )),
        Err(reached) => waiting(format!("{}{}", ready_count(&reached), blocked_suffix(&reached)), false),
    }
}

fn jobs_word(n: usize) -> String {
    if n == 1 { "1 job".into() } else { format!("{n} jobs") }
}

fn ready_count(reached: &Reached) -> String {
    format!("{} of {} jobs ready", reached.done, reached.expected)
}

/// `; b waits for a to be complete (dependsOn)`
fn blocked_suffix(reached: &Reached) -> String {
    reached.blocked.iter().map(|why| format!("; {why}")).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::*;
    use crate::diff::normalize::{normalize, normalize_child};
    use crate::diff::{compare, expected::expected_job};
    use crate::testing;

    fn jobset(image: &str, status: Value, extra: Value) -> JobSet {
        let template = json!({"spec": {"parallelism": 1, "completions": 1,
            "template": {"spec": {"containers": [{"name": "main", "image": image}]}}}});
        testing::jobset("js")
            .namespace("ml")
            .uid("u")
            .replicated_job("w", 2, template)
            .spec_fields(extra)
            .status(status)
            .build()
    }

    fn job(index: u32, attempt: i32, image: &str, status: Value) -> ChildJob {
        let spec = json!({"parallelism": 1, "completions": 1,
            "template": {"spec": {"containers": [{"name": "main", "image": image}]}}});
        let job = testing::job(&format!("js-w-{index}")).attempt(attempt).replicated_job("w").index(index);
        normalize_child(job.spec(spec).status(status).build())
    }

    fn look(js: &JobSet, jobs: &[ChildJob]) -> Verdict {
        let expected: BTreeMap<_, _> = js
            .spec
            .replicated_jobs
            .iter()
            .map(|r| (r.name.clone(), normalize(&expected_job(js, r)).into()))
            .collect();
        assess(js, jobs, &compare(js, jobs, &expected), js.attempt())
    }

    #[test]
    fn ready_jobs_on_the_spec_template_are_rolled_out() {
        let js = jobset("app:v1", json!({"restarts": 1}), json!({}));
        let ready = json!({"ready": 1});
        let v = look(&js, &[job(0, 1, "app:v1", ready.clone()), job(1, 1, "app:v1", ready.clone())]);
        assert_eq!(
            v,
            Verdict::Done("jobset \"js\" successfully rolled out (attempt 1: 2 of 2 jobs ready)".into())
        );
        let v = look(&js, &[job(0, 1, "app:v1", ready), job(1, 1, "app:v1", json!({}))]);
        assert!(
            matches!(&v, Verdict::Waiting { line, needs_restart: false } if line.ends_with("1 of 2 jobs ready")),
            "{v:?}"
        );
    }

    #[test]
    fn outdated_jobs_wait_for_a_restart() {
        let js = jobset("app:v2", json!({"restarts": 1}), json!({}));
        let ready = json!({"ready": 1});
        let v = look(&js, &[job(0, 1, "app:v1", ready.clone()), job(1, 1, "app:v1", ready)]);
        let Verdict::Waiting { line, needs_restart: true } = v else { panic!("{v:?}") };
        assert!(line.contains("2 of 2 jobs run an outdated template"), "{line}");
        assert!(line.contains("kubectl jobset restart js"), "{line}");
    }

    #[test]
    fn earlier_attempts_completion_failure_and_restarts() {
        let js = jobset("app:v1", json!({"restarts": 2}), json!({}));
        let v = look(&js, &[job(0, 1, "app:v1", json!({})), job(1, 2, "app:v1", json!({}))]);
        assert!(
            matches!(&v, Verdict::Waiting { line, .. } if line.contains("1 job of earlier attempts still being deleted (js-w-0)")),
            "{v:?}"
        );
        let done = jobset("app:v1", json!({"restarts": 2, "terminalState": "Completed"}), json!({}));
        assert_eq!(look(&done, &[]), Verdict::Done("jobset \"js\" completed (attempt 2)".into()));
        let failed = jobset("app:v1", json!({"restarts": 2, "terminalState": "Failed"}), json!({}));
        assert!(matches!(look(&failed, &[]), Verdict::Ended(why) if why.contains("failed (attempt 2)")));
        let later = jobset("app:v1", json!({"restarts": 3}), json!({}));
        let expected = BTreeMap::new();
        assert_eq!(
            assess(&later, &[], &compare(&later, &[], &expected), 2),
            Verdict::Superseded { from: 2, to: 3 }
        );
        let suspended = jobset("app:v1", json!({}), json!({"suspend": true}));
        assert!(matches!(look(&suspended, &[]), Verdict::Ended(why) if why.contains("suspended")));
    }

    #[test]
    fn in_order_startup_is_followed() {
        let js = JobSet::from_raw(json!({"metadata": {"name": "js", "namespace": "ml", "uid": "u"},
            "spec": {"startupPolicy": {"startupPolicyOrder": "InOrder"}, "replicatedJobs": [
                {"name": "w", "template": {"spec": {"parallelism": 1, "completions": 1,
                    "template": {"spec": {"containers": [{"name": "main", "image": "app:v1"}]}}}}},
                {"name": "d", "template": {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "app:v1"}]}}}}}]},
            "status": {}}))
        .unwrap();
        let v = look(&js, &[job(0, 0, "app:v1", json!({}))]);
        assert!(
            matches!(&v, Verdict::Waiting { line, .. } if line.ends_with("0 of 2 jobs ready; d waits for w to be ready (startupPolicy InOrder)")),
            "{v:?}"
        );
    }
}
