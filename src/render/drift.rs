//! Template drift as text: what `diff` prints, and what `restart --dry-run` shows.

use std::io::Write;

use crate::diff::unified::{Palette, write_unified};
use crate::diff::{JobSetDrift, ReplicatedJobDrift, State, job_range};
use crate::error::Result;

pub fn write_text(out: &mut dyn Write, drifts: &[JobSetDrift], palette: Palette) -> Result<()> {
    for d in drifts {
        let notes = notes(d);
        if !d.has_drift() && notes.is_empty() && d.staged.is_none() {
            continue;
        }
        writeln!(
            out,
            "jobset {}/{}: attempt {}, {}/{} jobs outdated",
            d.namespace,
            d.name,
            d.attempt,
            d.outdated_jobs(),
            d.total_jobs()
        )?;
        for note in notes {
            writeln!(out, "  {note}")?;
        }
        if let Some(staged) = &d.staged {
            let cause = staged.cause.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
            match &staged.held_for {
                Some(rollout) => {
                    writeln!(out, "  {}", crate::plan::staged::held_words(&staged.revision, &cause, rollout))?
                }
                None => writeln!(
                    out,
                    "  staged for the next restart in controllerrevision {}{cause}: `{}` applies it now, and \
                     the recorder at a natural restart",
                    staged.revision,
                    crate::hint::kubectl_jobset(&format!("restart {}", d.name), &d.namespace)
                )?,
            }
            for (rjob, spec, want) in &staged.edits {
                let place = format!("{}/{} replicatedJobs[{rjob}].template", d.namespace, d.name);
                write_unified(
                    out,
                    spec,
                    want,
                    &format!("{place} (spec)"),
                    &format!("{place} ({})", if staged.held_for.is_some() { "held" } else { "staged" }),
                    palette,
                )?;
            }
        }
        for rjob in &d.replicated_jobs {
            for group in &rjob.outdated {
                let range = job_range(&group.jobs);
                writeln!(
                    out,
                    "  replicatedJob {}: {} ({} of {}) run an outdated template",
                    rjob.name,
                    range,
                    group.jobs.len(),
                    rjob.jobs.len()
                )?;
                write_unified(
                    out,
                    &group.live_template.value(),
                    &rjob.spec_template.value(),
                    &format!("{range} (running, attempt {})", d.attempt),
                    &format!("{}/{} replicatedJobs[{}].template (spec)", d.namespace, d.name, rjob.name),
                    palette,
                )?;
            }
        }
    }
    Ok(())
}

/// State lines worth saying about a JobSet, drift or not.
fn notes(d: &JobSetDrift) -> Vec<String> {
    let mut notes = jobset_notes(d);
    notes.extend(d.replicated_jobs.iter().flat_map(|rjob| replicated_job_notes(rjob, d.state)));
    // Kueue's standing frames whatever else is said (alone it is not worth a line).
    if let Some(kueue) = d.kueue.as_ref().filter(|_| d.has_drift() || !notes.is_empty()) {
        notes.insert(0, kueue.words());
    }
    notes
}

/// Why the JobSet's Jobs were not compared, and which Jobs were left out of it.
fn jobset_notes(d: &JobSetDrift) -> Vec<String> {
    let mut notes = Vec::new();
    let kueue = d.kueue.as_ref();
    let workload = kueue.and_then(|k| k.workload.as_ref()).map(|w| w.name.as_str()).unwrap_or("?");
    notes.extend(d.quota.iter().map(|m| m.words(workload)));
    match d.state {
        State::Compared => {}
        State::Suspended if d.has_drift() && kueue.is_some() => notes.push(format!(
            "queued: admission resumes these same Jobs on their outdated template (it only merges pod labels, \
             annotations, nodeSelector and tolerations); a restart now is free, nothing runs, and the Workload \
             keeps its place in the queue (`{}`)",
            crate::hint::kubectl_jobset(&format!("restart {}", d.name), &d.namespace)
        )),
        State::Suspended if kueue.is_some() => {
            notes.push("queued: its Jobs run the spec's templates when Kueue admits it".to_owned())
        }
        State::Suspended if d.has_drift() => notes.push(format!(
            "suspended: resuming starts these same Jobs on their outdated template (it only merges pod labels, \
             annotations, nodeSelector and tolerations); a restart now is free, nothing runs (`{}`)",
            crate::hint::kubectl_jobset(&format!("restart {}", d.name), &d.namespace)
        )),
        State::Suspended => notes.push("suspended: its Jobs run the spec's templates when it resumes".to_owned()),
        State::ManagedElsewhere => notes.push(format!(
            "{}: its Jobs are not compared",
            crate::model::jobset::managed_elsewhere_words(d.manager.as_deref().unwrap_or_default())
        )),
        State::Completed => {
            notes.push("completed: finished JobSets are not restarted, so nothing is compared".into())
        }
        State::Failed => {
            notes.push("failed: finished JobSets are not restarted, so nothing is compared".into())
        }
    }
    if let Some(mixed) = crate::diff::mixed_words(d) {
        notes.push(format!("warning: {mixed}; a restart puts every Job on the spec's template"));
    }
    if !d.previous_attempt_jobs.is_empty() {
        notes.push(format!(
            "restart in progress: {} of an earlier attempt still being deleted",
            job_range(&d.previous_attempt_jobs)
        ));
    }
    if !d.unlabelled_jobs.is_empty() {
        notes.push(format!(
            "warning: ignored {} (no integer jobset.sigs.k8s.io/restart-attempt label; the JobSet controller cannot \
             handle such Jobs either)",
            d.unlabelled_jobs.join(", ")
        ));
    }
    notes
}

/// How a replicatedJob's Jobs differ from the spec other than by template: gone from
/// the spec, not created yet (only said when compared), beyond replicas, rescaled.
fn replicated_job_notes(rjob: &ReplicatedJobDrift, state: State) -> Vec<String> {
    if !rjob.in_spec {
        return vec![format!(
            "replicatedJob {}: no longer in the spec; {} run until the next restart deletes them",
            rjob.name,
            job_range(&rjob.jobs)
        )];
    }
    let mut notes = Vec::new();
    if state.compares_jobs() && !rjob.not_created.is_empty() {
        notes.push(format!("replicatedJob {}: {} not created yet", rjob.name, job_range(&rjob.not_created)));
    }
    if !rjob.beyond_replicas.is_empty() {
        notes.push(format!(
            "replicatedJob {}: replicas is {}; {} will not be recreated at the next restart",
            rjob.name,
            rjob.replicas,
            job_range(&rjob.beyond_replicas)
        ));
    }
    let show = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_else(|| "<unset>".into());
    for s in &rjob.scale {
        let world_size = s.field.starts_with("jobset.sigs.k8s.io/");
        let why = if world_size {
            " (the world size their Pods see; a restart recreates them with it)"
        } else {
            ""
        };
        notes.push(format!(
            "replicatedJob {}: {} is {} on {} but {} in the spec{why}",
            rjob.name,
            s.field,
            show(s.live),
            job_range(&s.jobs),
            show(s.spec)
        ));
    }
    notes
}
