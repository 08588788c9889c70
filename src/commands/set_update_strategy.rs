//! `kubectl jobset set update-strategy NAME... STRATEGY`: writes the annotation
//! `kubectl-jobset.io/update-strategy` with one guarded JSON patch per JobSet (the value
//! read is tested), and says what the strategy means from now on. One read (a list or a
//! get per name), one patch per JobSet that changes.

use std::io::Write;

use crate::cluster::Cluster;
use crate::cluster::guarded::{GuardedWrite, Verdict, WriteFailure, guarded};
use crate::error::Result;
use crate::execute::DryRun;
use crate::exit::ExitStatus;
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::model::strategy::{UpdateStrategy, annotated};
use crate::plan::strategy::{annotation_patch, meaning};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct SetUpdateStrategyPlan {
    pub selection: Selection,
    pub strategy: UpdateStrategy,
    pub dry_run: DryRun,
}

pub async fn run(
    cluster: &Cluster,
    plan: &SetUpdateStrategyPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let jobsets = read(cluster, &plan.selection).await?;
    if jobsets.is_empty() {
        crate::observe::fleet::write_nothing_found(err, &plan.selection)?;
        return Ok(ExitStatus::Success);
    }
    for jobset in jobsets {
        let was = was_words(&jobset);
        let subject = format!("{RESOURCE_NAME}/{}", jobset.name());
        let mut write = AnnotationPatch { cluster, plan, current: jobset, sent: false };
        let changed = guarded(&cluster.log, &mut write).await?;
        let suffix = match plan.dry_run {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        };
        if changed {
            writeln!(
                out,
                "{subject} update strategy set to {} (was {was}){suffix}: {}",
                plan.strategy,
                meaning(plan.strategy)
            )?;
        } else {
            writeln!(out, "{subject} update strategy unchanged ({})", plan.strategy)?;
        }
    }
    Ok(ExitStatus::Success)
}

fn was_words(jobset: &JobSet) -> String {
    match annotated(jobset) {
        None => "unset".to_owned(),
        Some(Ok(s)) => s.to_string(),
        Some(Err(e)) => format!("the invalid {:?}", e.value),
    }
}

/// The JobSets named (a get each) or selected (one list).
async fn read(cluster: &Cluster, selection: &Selection) -> Result<Vec<JobSet>> {
    if selection.names.is_empty() {
        return cluster
            .list_jobsets(selection.namespace.as_deref(), selection.label_selector.as_deref())
            .await;
    }
    let namespace = selection.namespace.as_deref().unwrap_or_default();
    let mut jobsets = Vec::new();
    for name in &selection.names {
        jobsets.push(cluster.get_jobset(namespace, name).await?);
    }
    Ok(jobsets)
}

/// The annotation's guarded patch, planned again from each re-read. Output: whether it
/// changed anything.
struct AnnotationPatch<'a> {
    cluster: &'a Cluster,
    plan: &'a SetUpdateStrategyPlan,
    current: JobSet,
    sent: bool,
}

impl GuardedWrite for AnnotationPatch<'_> {
    type Output = bool;

    fn what(&self) -> String {
        format!("the update-strategy annotation of {RESOURCE_NAME}/{}", self.current.name())
    }

    async fn send(&mut self) -> Result<bool> {
        let Some(ops) = annotation_patch(&self.current, self.plan.strategy) else {
            return Ok(self.sent);
        };
        if self.plan.dry_run == DryRun::Client {
            return Ok(true);
        }
        let server = self.plan.dry_run == DryRun::Server;
        let (ns, name) = (self.current.namespace().to_owned(), self.current.name().to_owned());
        self.sent = true;
        self.cluster.patch_jobset(&ns, &name, None, &ops, server).await.map(|_| true)
    }

    async fn reread(&mut self, _failure: WriteFailure) -> Result<Verdict<bool>> {
        let fresh = self.cluster.get_jobset(self.current.namespace(), self.current.name()).await?;
        if annotated(&fresh) == Some(Ok(self.plan.strategy)) {
            // Ours landed (its answer was lost), or someone set the same value: done.
            return Ok(Verdict::Done(true));
        }
        self.current = fresh;
        Ok(Verdict::SendAgain)
    }
}
