//! `kubectl jobset suspend` and `resume`: one guarded patch of `spec.suspend` per JobSet
//! (as `kubectl rollout pause/resume`), refused under Kueue, which owns it; resuming Jobs
//! that would start on an outdated template is said first.

use std::io::Write;

use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::commands::Confirm;
use crate::error::{Error, Result};
use crate::execute::DryRun;
use crate::exit::ExitStatus;
use crate::model::jobset::RESOURCE_NAME;
use crate::observe::{Observed, observe};
use crate::plan::suspend::{Decision, plan, resume_warning};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct SuspendPlan {
    pub selection: Selection,
    /// true: `suspend`; false: `resume`.
    pub suspend: bool,
    pub dry_run: DryRun,
}

pub async fn run(
    cluster: &Cluster,
    plan_: &SuspendPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    // A read: it records nothing.
    let Some(Observed { fleet, drifts, .. }) = observe(cluster, &plan_.selection, None, err).await? else {
        return Ok(ExitStatus::Success);
    };
    let (done, already) =
        if plan_.suspend { ("suspended", "already suspended") } else { ("resumed", "already running") };
    let several = plan_.selection.namespace.is_none();
    // Every JobSet is decided before anything is written.
    let mut decisions = Vec::new();
    for (jobset, drift) in fleet.jobsets.iter().zip(&drifts) {
        let decision = plan(jobset, plan_.suspend, fleet.kueue_of(jobset).as_ref());
        if let Decision::Refuse(why) = decision {
            return Err(Error::Refused {
                what: format!("{RESOURCE_NAME}/{}", jobset.name()),
                verb: done,
                why,
            });
        }
        if !plan_.suspend
            && let Some(warning) = resume_warning(jobset, drift.outdated_jobs(), drift.total_jobs())
        {
            writeln!(err, "warning: {warning}")?;
        }
        decisions.push(decision);
    }
    let to_change: Vec<String> = fleet
        .jobsets
        .iter()
        .zip(&decisions)
        .filter(|(_, d)| matches!(d, Decision::Patch(_)))
        .map(|(js, _)| format!("{}/{}", js.namespace(), js.name()))
        .collect();
    if plan_.dry_run == DryRun::None
        && !to_change.is_empty()
        && let Some(confirm) = confirm
    {
        let verb = if plan_.suspend { "Suspend" } else { "Resume" };
        if !confirm(&format!("{verb} jobset {}? [y/N] ", to_change.join(", ")))? {
            return Err(Error::Aborted);
        }
    }
    for (jobset, decision) in fleet.jobsets.iter().zip(decisions) {
        let what = format!("{RESOURCE_NAME}/{}", jobset.name());
        let place = if several { format!(" in namespace {}", jobset.namespace()) } else { String::new() };
        match decision {
            Decision::Already => writeln!(out, "{what} {already}{place}")?,
            Decision::Patch(patch) => {
                if plan_.dry_run != DryRun::Client {
                    let server = plan_.dry_run == DryRun::Server;
                    cluster
                        .patch_jobset(jobset.namespace(), jobset.name(), None, &patch, server)
                        .await
                        .map_err(|e| match e {
                            e if is_precondition_failure(&e) => Error::Refused {
                                what: what.clone(),
                                verb: done,
                                why:
                                    "it was suspended or resumed by someone else since it was read; nothing \
                                      was changed"
                                        .into(),
                            },
                            other => other,
                        })?;
                }
                writeln!(out, "{what} {done}{place}{}", plan_.dry_run.suffix())?;
            }
            Decision::Refuse(_) => unreachable!("refused above"),
        }
    }
    Ok(ExitStatus::Success)
}
