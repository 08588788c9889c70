//! Writes whose answer was lost. Every write we send is guarded (a JSON patch `test`
//! op or a resourceVersion), so a write sent twice cannot apply twice; but a write
//! whose answer never came (connection reset, timeout, 5xx) may or may not have landed.
//! The caller re-reads the object, and these pure decisions say which: ours landed,
//! nothing happened (send it again), or someone else changed the object meanwhile.

use serde_json::Value;

use crate::history::{Templates, same_templates_in_order};
use crate::model::jobset::JobSet;

/// What a re-read says about a write whose answer was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterUnknown {
    /// Our write is there: report it as done, and never send it again.
    Landed,
    /// The object is as we left it: the write did not happen; send it again.
    NotApplied,
    /// Someone else changed what our write guards: report theirs, send nothing.
    SomeoneElse,
}

/// What our restart patch would leave behind, to recognise it on a re-read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    /// A whole-JobSet restart: the `RestartingJobSet` message our patch wrote (it names
    /// the target attempt and who asked).
    Restart { message: String },
    /// `--job`: the Job's `jobRestarts` entry before our patch.
    JobRestart { rjob: String, index: usize, before: i64 },
}

/// The `RestartingJobSet` message in a restart patch, exactly as the plan wrote it.
pub fn restart_message(patch: &json_patch::Patch) -> Option<String> {
    let ops = serde_json::to_value(patch).ok()?;
    ops.as_array()?.iter().filter(|op| op["op"] != "test").find_map(|op| {
        let conditions = match &op["value"] {
            Value::Array(items) => items.iter().collect::<Vec<_>>(),
            one => vec![one],
        };
        conditions
            .into_iter()
            .find(|c| c["type"] == "RestartingJobSet")
            .and_then(|c| c["message"].as_str().map(str::to_owned))
    })
}

/// The `RestartingJobSet` condition's message on a JobSet, if any.
fn condition_message(jobset: &JobSet) -> Option<&str> {
    jobset.status.conditions.iter().find(|c| c.type_ == "RestartingJobSet")?.message.as_deref()
}

/// A Job's `jobRestarts` count in the JobSet's status (0 when not recorded yet).
pub fn job_restarts(jobset: &JobSet, rjob: &str, index: usize) -> i64 {
    let entry = jobset.status.replicated_jobs_status.iter().find(|r| r.name == rjob);
    entry.and_then(|e| e.job_restarts.get(index).copied()).unwrap_or(0)
}

/// After a restart from `seen_attempt` failed, judges the re-read JobSet. `mark` is
/// set when one of our patches may have landed (its answer was lost); without it, a
/// moved attempt is someone else's restart, as after a precondition failure (`per_job`
/// restarts are then planned again: another Job's restart does not replace ours).
pub fn judge_restart(seen_attempt: i32, fresh: &JobSet, mark: Option<&Mark>, per_job: bool) -> AfterUnknown {
    match mark {
        None if per_job => AfterUnknown::NotApplied,
        Some(Mark::JobRestart { rjob, index, before }) => {
            let now = job_restarts(fresh, rjob, *index);
            if now == *before {
                AfterUnknown::NotApplied
            } else if now == before + 1 {
                // The counter says only that the Job was restarted once since: ours, as
                // far as anyone can tell, and sending ours again would make two.
                AfterUnknown::Landed
            } else {
                AfterUnknown::SomeoneElse
            }
        }
        _ if fresh.attempt() == seen_attempt => AfterUnknown::NotApplied,
        Some(Mark::Restart { message }) if condition_message(fresh) == Some(message.as_str()) => {
            AfterUnknown::Landed
        }
        _ => AfterUnknown::SomeoneElse,
    }
}

/// After a rollback's template patch lost its answer: landed if the spec now holds the
/// target's templates, not applied if it still holds what we read, else someone else's.
pub fn judge_rollback(read: &Templates, fresh: &Templates, target: &Templates) -> AfterUnknown {
    if same_templates_in_order(fresh, target) {
        AfterUnknown::Landed
    } else if same_templates_in_order(fresh, read) {
        AfterUnknown::NotApplied
    } else {
        AfterUnknown::SomeoneElse
    }
}

#[cfg(test)]
mod tests {
    fn patch(ops: &[serde_json::Value]) -> json_patch::Patch {
        serde_json::from_value(serde_json::Value::Array(ops.to_vec())).unwrap()
    }

    use super::*;
    use crate::testing;
    use serde_json::json;

    fn jobset(status: Value) -> JobSet {
        testing::jobset("js")
            .namespace("ml")
            .resource_version("42")
            .replicated_job("w", 2, json!({}))
            .status(status)
            .build()
    }

    const OURS: &str = "restart 3 requested by alice with kubectl-jobset: new image";

    fn ours() -> Mark {
        Mark::Restart { message: OURS.into() }
    }

    fn restarting(restarts: i32, message: &str) -> JobSet {
        jobset(
            json!({"restarts": restarts, "conditions": [{"type": "Other", "status": "True", "message": OURS},
            {"type": "RestartingJobSet", "status": "True", "message": message}]}),
        )
    }

    #[test]
    fn the_message_is_read_back_from_the_plan_whichever_op_carries_it() {
        let condition = json!({"type": "RestartingJobSet", "message": OURS});
        let append = [
            json!({"op": "test", "path": "/status/restarts", "value": 2}),
            json!({"op": "add", "path": "/status/restarts", "value": 3}),
            json!({"op": "add", "path": "/status/conditions/-", "value": condition}),
        ];
        assert_eq!(restart_message(&patch(&append)).as_deref(), Some(OURS));
        let first = [json!({"op": "add", "path": "/status/conditions", "value": [{"type": "X"}, condition]})];
        assert_eq!(restart_message(&patch(&first)).as_deref(), Some(OURS));
        let replace = [
            json!({"op": "test", "path": "/status/conditions/0/type", "value": "RestartingJobSet"}),
            json!({"op": "replace", "path": "/status/conditions/0", "value": condition}),
        ];
        assert_eq!(restart_message(&patch(&replace)).as_deref(), Some(OURS));
        assert_eq!(restart_message(&patch(&[json!({"op": "replace", "path": "/x", "value": 1})])), None);
    }

    #[test]
    fn a_restart_whose_answer_was_lost_landed_when_the_attempt_moved_and_the_message_is_ours() {
        assert_eq!(judge_restart(2, &restarting(3, OURS), Some(&ours()), false), AfterUnknown::Landed);
    }

    #[test]
    fn an_unchanged_attempt_means_the_restart_did_not_happen() {
        assert_eq!(judge_restart(2, &restarting(2, "older"), Some(&ours()), false), AfterUnknown::NotApplied);
        assert_eq!(judge_restart(2, &restarting(2, "older"), None, false), AfterUnknown::NotApplied);
    }

    #[test]
    fn someone_elses_restart_is_theirs_even_after_a_lost_answer() {
        let theirs = "restart 3 requested by bob with kubectl-jobset";
        assert_eq!(judge_restart(2, &restarting(3, theirs), Some(&ours()), false), AfterUnknown::SomeoneElse);
        // Ours and then someone else's: the message is theirs now.
        let later = "restart 4 requested by alice with kubectl-jobset: new image";
        assert_eq!(judge_restart(2, &restarting(4, later), Some(&ours()), false), AfterUnknown::SomeoneElse);
        // No condition at all (another tool bumped status.restarts).
        assert_eq!(
            judge_restart(2, &jobset(json!({"restarts": 3})), Some(&ours()), false),
            AfterUnknown::SomeoneElse
        );
        // Without a lost answer, even a matching message is someone else's (we sent nothing
        // that could have landed).
        assert_eq!(judge_restart(2, &restarting(3, OURS), None, false), AfterUnknown::SomeoneElse);
    }

    #[test]
    fn a_per_job_restart_landed_when_its_counter_moved_by_one() {
        let with = |n: i64| jobset(json!({"replicatedJobsStatus": [{"name": "w", "jobRestarts": [0, n]}]}));
        let mark = Mark::JobRestart { rjob: "w".into(), index: 1, before: 4 };
        assert_eq!(judge_restart(0, &with(4), Some(&mark), true), AfterUnknown::NotApplied);
        assert_eq!(judge_restart(0, &with(5), Some(&mark), true), AfterUnknown::Landed);
        assert_eq!(judge_restart(0, &with(6), Some(&mark), true), AfterUnknown::SomeoneElse);
        let fresh = jobset(json!({}));
        assert_eq!(job_restarts(&fresh, "w", 1), 0);
        let mark = Mark::JobRestart { rjob: "w".into(), index: 1, before: 0 };
        assert_eq!(judge_restart(0, &fresh, Some(&mark), true), AfterUnknown::NotApplied);
        // A precondition failure (nothing of ours landed): planned again, whatever moved.
        assert_eq!(judge_restart(0, &restarting(1, OURS), None, true), AfterUnknown::NotApplied);
    }

    #[test]
    fn a_rollback_landed_not_applied_or_overtaken() {
        let t = |image: &str| vec![("w".to_owned(), json!({"spec": {"image": image}}))];
        let (read, target) = (t("v2"), t("v1"));
        assert_eq!(judge_rollback(&read, &t("v1"), &target), AfterUnknown::Landed);
        assert_eq!(judge_rollback(&read, &t("v2"), &target), AfterUnknown::NotApplied);
        assert_eq!(judge_rollback(&read, &t("v3"), &target), AfterUnknown::SomeoneElse);
    }
}
