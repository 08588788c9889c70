//! `--now` for a JobSet Kueue has admitted: after its containers change, Kueue stops it
//! (suspends it, deletes its Pods, restores its pod templates' scheduling fields from
//! the Workload) and admits it again, and admission alone would resume the old Jobs.
//! So, once the change has landed: wait (by watch) for Kueue's stop, put back the
//! scheduling fields its restore reverted, and then restart while suspended (free), so
//! the Jobs that admission resumes are built from the new template.

use std::io::Write;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, WatchEvent, WatchParams};

use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::error::{Error, Result};
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::model::kueue::restore_scheduling;

/// How long Kueue gets to stop a changed JobSet (it does within a second or two).
pub const STOP_WITHIN: Duration = Duration::from_secs(30);

/// Waits until Kueue has stopped `changed` (the JobSet as our patch left it), then puts
/// back the scheduling fields of `wanted` that Kueue's restore reverted. Says each step
/// on `err`. Returns whether the stop was seen (if not, the restart that follows is a
/// restart of running Jobs: the result is the same, at the cost of their Pods).
pub async fn after_admitted_change(
    cluster: &Cluster,
    wanted: &JobSet,
    changed_resource_version: &str,
    err: &mut dyn Write,
) -> Result<bool> {
    let subject = format!("{RESOURCE_NAME}/{}", wanted.name());
    let stopped = await_stop(cluster, wanted, changed_resource_version, STOP_WITHIN).await?;
    if !stopped {
        writeln!(
            err,
            "warning: Kueue did not suspend {subject} within {}; restarting it anyway",
            crate::age::format_duration(STOP_WITHIN)
        )?;
        return Ok(false);
    }
    writeln!(err, "{subject} stopped by Kueue: its Pods are deleted and its Workload queues again")?;
    let mut tries = 0;
    loop {
        let fresh = cluster.get_jobset(wanted.namespace(), wanted.name()).await?;
        let (patch, fields) = restore_scheduling(wanted, &fresh);
        if fields.is_empty() {
            return Ok(true);
        }
        match cluster.patch_jobset(wanted.namespace(), wanted.name(), None, &patch, false).await {
            Ok(_) => {
                writeln!(
                    err,
                    "{subject}: put back what Kueue's restore reverted in its pod templates ({})",
                    fields.join(", ")
                )?;
                return Ok(true);
            }
            // Kueue (or anyone) wrote in between: read again and re-plan.
            Err(e) if is_precondition_failure(&e) && tries < 5 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// True once the JobSet is seen suspended after `resource_version` (the watch starts
/// there, so a stop that is undone at once is still seen); false after `within`.
async fn await_stop(
    cluster: &Cluster,
    jobset: &JobSet,
    resource_version: &str,
    within: Duration,
) -> Result<bool> {
    let api: Api<JobSet> = Api::namespaced(cluster.client.clone(), jobset.namespace());
    let params = WatchParams::default()
        .fields(&format!("metadata.name={}", jobset.name()))
        .timeout(within.as_secs() as u32);
    let watch = async {
        let op = crate::error::Op::new("watch", crate::error::JOBSET_RESOURCE, Some(jobset.namespace()));
        let stream =
            api.watch(&params, resource_version).await.map_err(|e| cluster.errors.classify(op.clone(), e))?;
        let mut stream = stream.boxed();
        while let Some(event) = stream.try_next().await.map_err(|e| cluster.errors.classify(op.clone(), e))? {
            match event {
                WatchEvent::Added(js) | WatchEvent::Modified(js) if js.is_suspended() => return Ok(true),
                // 410 Gone (the version is too old): judge by the JobSet as it is now.
                WatchEvent::Error(status) if status.code == 410 => {
                    let now = cluster.get_jobset(jobset.namespace(), jobset.name()).await?;
                    return Ok(now.is_suspended());
                }
                _ => {}
            }
        }
        Ok::<bool, Error>(false)
    };
    match tokio::time::timeout(within, watch).await {
        Ok(seen) => seen,
        Err(_) => Ok(false),
    }
}
