//! `suspend` and `resume`, without I/O: the guarded patch of `spec.suspend`, or why not.
//! Under Kueue, `spec.suspend` is Kueue's (it admits by resuming), so both are refused
//! with Kueue's own way (the Workload's `spec.active`); a JobSet another controller
//! manages, or one that has finished, is refused too.

use json_patch::Patch;

use crate::model::jobset::JobSet;
use crate::model::kueue::Kueue;
use crate::model::patch::{add, pointer, test, test_resource_version};

#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// `spec.suspend` already says so.
    Already,
    Patch(Patch),
    Refuse(String),
}

/// Plans setting `spec.suspend` to `suspend` on `jobset` (`kueue`: Kueue's view of it).
pub fn plan(jobset: &JobSet, suspend: bool, kueue: Option<&Kueue>) -> Decision {
    let verb = if suspend { "suspend" } else { "resume" };
    if let Some(manager) = jobset.managed_elsewhere() {
        return Decision::Refuse(format!(
            "it is {}: {verb} it through that controller",
            crate::model::jobset::managed_elsewhere_words(manager)
        ));
    }
    if jobset.finished_as("Completed") || jobset.finished_as("Failed") {
        return Decision::Refuse("it has finished: the controller runs none of its Jobs again".into());
    }
    if let Some(kueue) = kueue {
        let workload = kueue.workload.as_ref().map(|w| w.name.as_str()).unwrap_or("<its workload>");
        return Decision::Refuse(format!(
            "it is {}: Kueue owns spec.suspend (it resumes the JobSet when it admits it, and suspends it \
             again otherwise). To stop it and give its quota back, deactivate its Workload: `kubectl patch \
             workload {workload} -n {} --type=merge -p '{{\"spec\":{{\"active\":{}}}}}'`",
            kueue.words(),
            jobset.namespace(),
            !suspend
        ));
    }
    if jobset.is_suspended() == suspend {
        return Decision::Already;
    }
    // Guarded by what was read: a concurrent suspend or resume makes it fail, changing nothing.
    // Without spec.suspend to test, the spec's generation stands for it: a status update
    // (the controller writes one as each Pod starts) changes the resourceVersion, not the
    // generation, and must not make the suspend fail.
    let guard = match (jobset.spec.suspend, jobset.metadata.generation) {
        (Some(current), _) => test(pointer(&["spec", "suspend"]), current),
        (None, Some(generation)) => test(pointer(&["metadata", "generation"]), generation),
        (None, None) => test_resource_version(jobset.metadata.resource_version.clone().unwrap_or_default()),
    };
    Decision::Patch(Patch(vec![
        super::rollback::uid_guard(jobset),
        guard,
        add(pointer(&["spec", "suspend"]), suspend),
    ]))
}

/// What to warn of before resuming: Jobs that resume on an outdated template.
pub fn resume_warning(jobset: &JobSet, outdated: usize, total: usize) -> Option<String> {
    (outdated > 0).then(|| {
        format!(
            "{outdated} of {total} jobs of jobset {} resume on an outdated template (resuming only merges pod \
             labels, annotations, nodeSelector and tolerations); restart it first, for free while it is \
             suspended: `{}`",
            jobset.name(),
            crate::hint::kubectl_jobset(&format!("restart {}", jobset.name()), jobset.namespace())
        )
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn jobset(spec: serde_json::Value, labels: serde_json::Value) -> JobSet {
        JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml", "uid": "u1",
            "resourceVersion": "9", "labels": labels}, "spec": spec}))
        .unwrap()
    }

    #[test]
    fn suspend_and_resume_patch_guarded_or_say_already() {
        let running = jobset(json!({"replicatedJobs": []}), json!({}));
        let Decision::Patch(patch) = plan(&running, true, None) else { panic!() };
        assert_eq!(
            serde_json::to_value(patch).unwrap(),
            json!([{"op": "test", "path": "/metadata/uid", "value": "u1"},
                   {"op": "test", "path": "/metadata/resourceVersion", "value": "9"},
                   {"op": "add", "path": "/spec/suspend", "value": true}])
        );
        assert_eq!(plan(&running, false, None), Decision::Already);
        // As served: the generation, which status updates leave alone, guards the spec.
        let mut served = jobset(json!({"replicatedJobs": []}), json!({}));
        served.metadata.generation = Some(3);
        let Decision::Patch(patch) = plan(&served, true, None) else { panic!() };
        assert_eq!(
            serde_json::to_value(patch).unwrap()[1],
            json!({"op": "test", "path": "/metadata/generation", "value": 3})
        );
        let suspended = jobset(json!({"suspend": true, "replicatedJobs": []}), json!({}));
        let Decision::Patch(patch) = plan(&suspended, false, None) else { panic!() };
        assert_eq!(
            serde_json::to_value(patch).unwrap()[1],
            json!({"op": "test", "path": "/spec/suspend", "value": true})
        );
    }

    #[test]
    fn kueue_and_other_managers_and_finished_jobsets_are_refused() {
        let queued = jobset(
            json!({"suspend": true, "replicatedJobs": []}),
            json!({"kueue.x-k8s.io/queue-name": "lq"}),
        );
        let kueue = Kueue::of(&queued, &[]);
        let Decision::Refuse(why) = plan(&queued, false, kueue.as_ref()) else { panic!() };
        assert!(why.contains("Kueue owns spec.suspend") && why.contains("\"active\":true"), "{why}");
        let elsewhere = jobset(json!({"managedBy": "x.io/y", "replicatedJobs": []}), json!({}));
        assert!(
            matches!(plan(&elsewhere, true, None), Decision::Refuse(why) if why.contains("spec.managedBy"))
        );
    }

    #[test]
    fn resuming_outdated_jobs_is_warned_of() {
        let js = jobset(json!({"suspend": true, "replicatedJobs": []}), json!({}));
        assert!(resume_warning(&js, 2, 2).unwrap().contains("restart it first"));
        assert_eq!(resume_warning(&js, 0, 2), None);
    }
}
