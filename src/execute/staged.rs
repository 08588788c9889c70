//! Staging a change for the next restart, and applying it (the steps `plan::staged`
//! decides): the spec patch, Kueue's stop when Kueue has admitted the JobSet, the mark
//! on the revision, the guarded restart, and the revision's removal. Resumable: every
//! step is planned again from what is read, so a command and the recorder, or a rerun
//! after a crash, never restart twice.

use std::io::Write;

use super::{DryRun, Outcome, restart_one};
use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::error::{Error, Result};
use crate::history::{Templates, same_templates_in_order, templates_of};
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME};
use crate::plan::restart::{Decision, RestartOptions, plan};
use crate::plan::staged::{self, Staged, Step};

/// Tries for a step whose guard failed (someone wrote in between): read, plan, send.
const TRIES: usize = 5;

/// Stages `templates` for `jobset`'s next restart: creates its staged revision, or
/// replaces the one there (deleted under its resourceVersion, then created again: a
/// revision's data cannot change); removes it when the templates are the spec's again. Returns false when nothing is staged any more.
pub async fn stage(
    cluster: &Cluster,
    jobset: &JobSet,
    templates: &Templates,
    cause: &str,
    existing: Option<&Staged>,
) -> Result<bool> {
    let ns = jobset.namespace();
    if let Some(why) = staged::held_refusal(existing) {
        return Err(Error::Refused {
            what: format!("{RESOURCE_NAME}/{}", jobset.name()),
            verb: "changed",
            why,
        });
    }
    if same_templates_in_order(&templates_of(jobset), templates) {
        if let Some(old) = existing {
            cluster.delete_revision_if_unchanged(ns, &old.name, &old.resource_version).await?;
            remove_superseded(cluster, ns, old).await;
        }
        return Ok(false);
    }
    if let Some(old) = existing
        && old.restart_from.is_some()
    {
        return Err(Error::Refused {
            what: format!("{RESOURCE_NAME}/{}", jobset.name()),
            verb: "changed",
            why: format!(
                "its staged change (controllerrevision {}) is being applied by a restart right now; run the \
                 command again once the restart is done",
                old.name
            ),
        });
    }
    // A revision's data is immutable, so a new stage is a new revision, of the next
    // generation, created before the one it replaces goes: a failure in between leaves
    // the old one superseded (the newest is the staged change), never nothing staged.
    // Two concurrent stages create the same name: one of them fails.
    let generation = staged::next_generation(existing);
    let name = staged::revision_name(jobset, generation);
    let wanted = staged::revision(jobset, templates, cause, generation);
    let created = cluster.create_revision(ns, &wanted).await.map_err(|e| match e {
        Error::Conflict { .. } => changed_meanwhile(jobset, &name),
        e => e,
    })?;
    let Some(old) = existing else { return Ok(true) };
    match cluster.delete_revision_if_unchanged(ns, &old.name, &old.resource_version).await {
        Ok(()) => remove_superseded(cluster, ns, old).await,
        // The old one changed (or went) since it was read: a restart began applying it,
        // or someone staged on it. Ours was planned on what is no longer there: taken back.
        Err(e) if is_precondition_failure(&e) || matches!(e, Error::NotFound { .. }) => {
            let version = created.metadata.resource_version.unwrap_or_default();
            if let Err(e) = cluster.delete_revision_if_unchanged(ns, &name, &version).await {
                cluster.log.note(1, &format!("the staged change {name} could not be taken back: {e}"));
            }
            return Err(changed_meanwhile(jobset, &old.name));
        }
        Err(e) => {
            cluster.log.note(1, &format!("the superseded staged change {} was not removed: {e}", old.name))
        }
    }
    Ok(true)
}

/// Deletes the older staged revisions a failed cleanup left behind (best effort: they are
/// never applied, and the next stage or apply tries again).
async fn remove_superseded(cluster: &Cluster, ns: &str, staged: &Staged) {
    for (name, version) in &staged.superseded {
        if let Err(e) = cluster.delete_revision_if_unchanged(ns, name, version).await {
            cluster.log.note(1, &format!("the superseded staged change {name} was not removed: {e}"));
        }
    }
}

fn changed_meanwhile(jobset: &JobSet, revision: &str) -> Error {
    Error::Refused {
        what: format!("{RESOURCE_NAME}/{}", jobset.name()),
        verb: "changed",
        why: format!(
            "its staged change (controllerrevision {revision}) was changed by someone else since it was read; \
             nothing was staged (their change is kept): run the command again to stage on top of it"
        ),
    }
}

/// Applies `staged` to `jobset` and restarts it: the restart `restart` makes for a JobSet
/// with a staged change, and the recorder's at a natural restart. `admitted`: Kueue has
/// admitted it, so its stop is waited for before the restart (made while suspended).
pub async fn apply(
    cluster: &Cluster,
    jobset: &JobSet,
    jobs: &[ChildJob],
    staged: &Staged,
    admitted: bool,
    options: &RestartOptions,
    err: &mut dyn Write,
) -> Outcome {
    match apply_steps(cluster, jobset, jobs, staged, admitted, options, err).await {
        Ok(outcome) => outcome,
        Err(e) => Outcome::Failed(e),
    }
}

async fn apply_steps(
    cluster: &Cluster,
    jobset: &JobSet,
    jobs: &[ChildJob],
    staged: &Staged,
    admitted: bool,
    options: &RestartOptions,
    err: &mut dyn Write,
) -> Result<Outcome> {
    let (ns, name) = (jobset.namespace(), jobset.name());
    let subject = format!("{RESOURCE_NAME}/{name}");
    let (mut current, mut staged) = (jobset.clone(), staged.clone());
    for _ in 0..TRIES {
        match staged::next_step(&current, &staged) {
            Step::Stale(why) => {
                return Err(Error::Refused { what: subject, verb: "restarted", why });
            }
            // A restart that would be refused is refused before the spec changes.
            Step::PatchSpec(_) if let Decision::Refuse(why) = plan(&current, jobs, options, "") => {
                return Err(Error::Refused { what: subject, verb: "restarted", why });
            }
            Step::PatchSpec(patch) => match cluster.patch_jobset(ns, name, None, &patch, false).await {
                Ok(patched) => {
                    writeln!(
                        err,
                        "{subject}: applied the change staged in controllerrevision {}",
                        staged.name
                    )?;
                    let wanted =
                        JobSet::from_raw(patched).map_err(|e| Error::decode("the patched JobSet", e))?;
                    if admitted {
                        let version = wanted.metadata.resource_version.clone().unwrap_or_default();
                        super::kueue::after_admitted_change(cluster, &wanted, &version, err).await?;
                    }
                    current = cluster.get_jobset(ns, name).await?;
                }
                Err(e) if is_precondition_failure(&e) => current = cluster.get_jobset(ns, name).await?,
                Err(e) => return Err(e),
            },
            Step::Restart { from } if staged.restart_from.is_none() => {
                match cluster.patch_revision(ns, &staged.name, &staged::mark_applying(&staged, from)).await {
                    Ok(marked) => staged = staged::parse(&marked, current.uid()).unwrap_or(staged),
                    Err(e) if is_precondition_failure(&e) => {
                        staged = reread(cluster, &current, &staged).await?
                    }
                    Err(e) => return Err(e),
                }
            }
            Step::Restart { from } => {
                if current.attempt() != from {
                    current = cluster.get_jobset(ns, name).await?;
                    continue;
                }
                let outcome = restart_one(cluster, &current, jobs, options, DryRun::None).await;
                if matches!(outcome, Outcome::Restarted { .. } | Outcome::AlreadyRestarted { .. }) {
                    remove(cluster, ns, &staged).await;
                }
                return Ok(outcome);
            }
            Step::Done => {
                remove(cluster, ns, &staged).await;
                return Ok(Outcome::AlreadyRestarted { attempt: current.attempt() });
            }
        }
    }
    Err(Error::Refused {
        what: subject,
        verb: "restarted",
        why: "it kept changing while its staged change was applied; run the command again".into(),
    })
}

async fn reread(cluster: &Cluster, jobset: &JobSet, old: &Staged) -> Result<Staged> {
    let selector = format!("{}={}", crate::history::JOBSET_LABEL, jobset.name());
    let listed = cluster.list_revisions(Some(jobset.namespace()), &selector).await?;
    let all = listed.iter().filter(|r| staged::is_staged(r)).filter_map(|r| staged::parse(r, jobset.uid()));
    staged::newest(all.collect()).ok_or_else(|| Error::Refused {
        what: format!("{RESOURCE_NAME}/{}", jobset.name()),
        verb: "restarted",
        why: format!("its staged change (controllerrevision {}) was removed meanwhile", old.name),
    })
}

/// Removes an applied staged change; a failure is only said at -v (a later look removes it).
async fn remove(cluster: &Cluster, ns: &str, staged: &Staged) {
    if let Err(e) = cluster.delete_revision_if_unchanged(ns, &staged.name, &staged.resource_version).await {
        cluster.log.note(1, &format!("the applied staged change {} was not removed: {e}", staged.name));
    }
    remove_superseded(cluster, ns, staged).await;
}
