//! `kubectl jobset restart`: make the controller recreate every Job now, from the
//! current spec, by bumping `status.restarts` (at most once per observed attempt).

use std::io::Write;
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::cluster::api::{JOBSETS, is_precondition_failure};
use crate::cluster::fleet::Fleet;
use crate::cluster::watch::watch_jobset;
use crate::commands::ExitStatus;
use crate::commands::diff::write_text;
use crate::commands::record::{Observed, RecordOptions, observe};
use crate::diff::unified::Palette;
use crate::error::{Error, Result};
use crate::history::Cause;
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME};
use crate::render::{self, Format};
use crate::restart::{Decision, RestartOptions, plan, progress};
use crate::select::Selection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    None,
    Client,
    Server,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitFor {
    /// Every Job of the new attempt exists.
    Created,
    /// ... and is ready.
    Ready,
}

#[derive(Debug, Clone)]
pub struct RestartPlan {
    pub selection: Selection,
    pub options: RestartOptions,
    pub if_outdated: bool,
    pub dry_run: DryRun,
    pub wait: Option<WaitFor>,
    pub timeout: Duration,
    /// Structured output (`-o json|yaml|name`), or None for kubectl's sentences.
    pub format: Option<Format>,
    pub color: bool,
    /// Progress lines on stderr (a terminal).
    pub progress: bool,
    pub history_limit: usize,
}

/// At most this many JobSets are restarted at once.
const CONCURRENCY: usize = 8;
/// Re-reads after a precondition failure before giving up.
const MAX_ATTEMPTS: usize = 5;

/// What happened to one JobSet.
#[derive(Debug)]
enum Outcome {
    Restarted { from: i32, to: i32, object: Value },
    WouldRestart { from: i32, to: i32 },
    AlreadyRestarted { attempt: i32 },
    Skipped(String),
    Failed(Error),
}

pub async fn run(
    cluster: &Cluster,
    plan: &RestartPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: crate::commands::Confirm<'_>,
) -> Result<ExitStatus> {
    // Drift decides --if-outdated, shows what a dry run would apply, and lets history
    // record what runs before the restart replaces it (dry runs record nothing).
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: plan.options.reason.clone().map(Cause::IfUnset),
    };
    let record = (plan.dry_run == DryRun::None).then_some(&options);
    let Some(Observed { fleet, drifts, .. }) = observe(cluster, &plan.selection, record, err).await? else {
        return Ok(ExitStatus::Success);
    };
    // (index, why it is skipped): --if-outdated skips JobSets without drift.
    let targets: Vec<(usize, Option<String>)> = drifts
        .iter()
        .enumerate()
        .map(|(i, d)| (i, (plan.if_outdated && !d.has_drift()).then(|| "no template drift".to_owned())))
        .collect();
    let to_restart: Vec<String> = targets
        .iter()
        .filter(|(_, skip)| skip.is_none())
        .map(|(i, _)| format!("{}/{}", fleet.jobsets[*i].namespace(), fleet.jobsets[*i].name()))
        .collect();
    if to_restart.len() > 1
        && plan.dry_run == DryRun::None
        && let Some(confirm) = confirm
        && !confirm(&format!("Restart {} JobSets ({})? [y/N] ", to_restart.len(), to_restart.join(", ")))?
    {
        return Err(Error::Aborted);
    }
    let mut options = plan.options.clone();
    if plan.dry_run != DryRun::Client {
        options.requested_by = cluster.whoami().await.unwrap_or(options.requested_by);
    }
    let outcomes: Vec<(usize, Outcome)> = futures::stream::iter(targets)
        .map(|(i, skip)| {
            let options = &options;
            let fleet = &fleet;
            async move {
                let outcome = match skip {
                    Some(why) => Outcome::Skipped(why),
                    None => restart_one(cluster, fleet, i, options, plan.dry_run).await,
                };
                (i, outcome)
            }
        })
        .buffered(CONCURRENCY)
        .collect()
        .await;

    let all_namespaces = plan.selection.namespace.is_none();
    let mut failed = 0;
    let mut objects = Vec::new();
    for (i, outcome) in &outcomes {
        let jobset = &fleet.jobsets[*i];
        let what = format!("{RESOURCE_NAME}/{}", jobset.name());
        let place =
            if all_namespaces { format!(" in namespace {}", jobset.namespace()) } else { String::new() };
        let suffix = match plan.dry_run {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        };
        match outcome {
            Outcome::Restarted { from, to, object } => {
                objects.push(render::without_managed_fields(object.clone()));
                if plan.format.is_none() {
                    writeln!(out, "{what} restarted (attempt {from} → {to}){place}{suffix}")?;
                }
            }
            Outcome::WouldRestart { from, to } => {
                objects.push(jobset.object());
                if plan.format.is_none() {
                    writeln!(out, "{what} restarted (attempt {from} → {to}){place}{suffix}")?;
                }
            }
            Outcome::AlreadyRestarted { attempt } => {
                if plan.format.is_none() {
                    writeln!(out, "{what} already restarted (attempt {attempt}){place}")?;
                }
            }
            Outcome::Skipped(why) => {
                if plan.format.is_none() {
                    writeln!(out, "{what} skipped: {why}{place}")?;
                }
            }
            Outcome::Failed(e) => {
                failed += 1;
                writeln!(err, "error: {e}")?;
            }
        }
        if plan.dry_run != DryRun::None
            && plan.format.is_none()
            && matches!(outcome, Outcome::Restarted { .. } | Outcome::WouldRestart { .. })
        {
            if drifts[*i].has_drift() {
                writeln!(out, "the restart would apply this template drift:")?;
                write_text(out, std::slice::from_ref(&drifts[*i]), Palette { color: plan.color })?;
            } else {
                writeln!(out, "the restart would recreate the Jobs from an unchanged template")?;
            }
        }
    }
    match plan.format {
        Some(Format::Json) | Some(Format::Yaml) => {
            let doc = if objects.len() == 1 { objects.remove(0) } else { render::as_list(objects) };
            if plan.format == Some(Format::Json) {
                render::write_json(out, &doc)?
            } else {
                render::write_yaml(out, &doc)?
            }
        }
        Some(_) => {
            for (i, outcome) in &outcomes {
                if matches!(
                    outcome,
                    Outcome::Restarted { .. }
                        | Outcome::WouldRestart { .. }
                        | Outcome::AlreadyRestarted { .. }
                ) {
                    writeln!(out, "{RESOURCE_NAME}/{}", fleet.jobsets[*i].name())?;
                }
            }
        }
        None => {}
    }
    if outcomes.len() > 1 {
        let count = |f: fn(&Outcome) -> bool| outcomes.iter().filter(|(_, o)| f(o)).count();
        writeln!(
            err,
            "{} restarted, {} already restarted, {} skipped, {} failed",
            count(|o| matches!(o, Outcome::Restarted { .. } | Outcome::WouldRestart { .. })),
            count(|o| matches!(o, Outcome::AlreadyRestarted { .. })),
            count(|o| matches!(o, Outcome::Skipped(_))),
            failed
        )?;
    }
    if let Some(wait_for) = plan.wait.filter(|_| plan.dry_run == DryRun::None) {
        for (i, outcome) in &outcomes {
            // Someone else's restart is waited for too: re-running a command whose wait was
            // cut short (say, by an API server outage) finishes the job.
            let attempt = match outcome {
                Outcome::Restarted { to, .. } => *to,
                Outcome::AlreadyRestarted { attempt } => *attempt,
                _ => continue,
            };
            wait(cluster, &fleet.jobsets[*i], attempt, wait_for, plan.timeout, plan.progress, err).await?;
        }
    }
    match (failed, outcomes.len()) {
        (0, _) => Ok(ExitStatus::Success),
        (1, 1) => Err(outcomes
            .into_iter()
            .find_map(|(_, o)| if let Outcome::Failed(e) = o { Some(e) } else { None })
            .unwrap_or(Error::Aborted)),
        (failed, total) => Err(Error::Several { failed, total }),
    }
}

/// Restarts a single JobSet (for `rollback --restart`): `(from, to)` attempts, or
/// `(n, n)` when someone else restarted it first.
pub(crate) async fn restart_jobset(
    cluster: &Cluster,
    jobset: JobSet,
    jobs: Vec<ChildJob>,
    options: &RestartOptions,
) -> Result<(i32, i32)> {
    let fleet = Fleet::new(vec![jobset], jobs, vec![]);
    match restart_one(cluster, &fleet, 0, options, DryRun::None).await {
        Outcome::Restarted { from, to, .. } | Outcome::WouldRestart { from, to } => Ok((from, to)),
        Outcome::AlreadyRestarted { attempt } => Ok((attempt, attempt)),
        Outcome::Skipped(why) => Err(Error::Refused { what: RESOURCE_NAME.into(), verb: "restarted", why }),
        Outcome::Failed(e) => Err(e),
    }
}

/// Restarts one JobSet, re-reading it when a concurrent change beat us.
async fn restart_one(
    cluster: &Cluster,
    fleet: &Fleet,
    i: usize,
    options: &RestartOptions,
    dry_run: DryRun,
) -> Outcome {
    let mut jobset = fleet.jobsets[i].clone();
    let jobs: Vec<ChildJob> = fleet.jobs_of(&jobset).to_vec();
    let what = format!("{RESOURCE_NAME}/{}", jobset.name());
    let seen_attempt = jobset.attempt();
    for _ in 0..MAX_ATTEMPTS {
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        let (ops, from, to) = match plan(&jobset, &jobs, options, &now) {
            Decision::Refuse(why) => return Outcome::Failed(Error::Refused { what, verb: "restarted", why }),
            Decision::AlreadyRestarted { attempt } => return Outcome::AlreadyRestarted { attempt },
            Decision::Patch { ops, from, to } => (ops, from, to),
        };
        if dry_run == DryRun::Client {
            return Outcome::WouldRestart { from, to };
        }
        let ns = jobset.namespace().to_owned();
        match cluster
            .json_patch(JOBSETS, &ns, jobset.name(), Some("status"), &ops, dry_run == DryRun::Server)
            .await
        {
            Ok(object) => {
                if dry_run == DryRun::None {
                    record_event(cluster, &jobset, options, from, to).await;
                }
                return Outcome::Restarted { from, to, object };
            }
            Err(e) if is_precondition_failure(&e) => {
                match cluster.get::<Value>(JOBSETS, &ns, jobset.name()).await {
                    Ok(raw) => match JobSet::from_raw(raw) {
                        Ok(fresh) if fresh.attempt() > seen_attempt && options.job.is_none() => {
                            // Someone else restarted it since we looked: one restart is enough.
                            return Outcome::AlreadyRestarted { attempt: fresh.attempt() };
                        }
                        Ok(fresh) => jobset = fresh,
                        Err(e) => return Outcome::Failed(Error::Unexpected(e.to_string())),
                    },
                    Err(e) => return Outcome::Failed(e),
                }
            }
            Err(e) => return Outcome::Failed(e),
        }
    }
    Outcome::Failed(Error::Refused {
        what,
        verb: "restarted",
        why: format!(
            "the JobSet kept changing while we tried to restart it ({MAX_ATTEMPTS} tries); run the command again"
        ),
    })
}

/// An Event on the JobSet saying who asked and why; failing to record it is only a warning.
async fn record_event(cluster: &Cluster, jobset: &JobSet, options: &RestartOptions, from: i32, to: i32) {
    let what = match &options.job {
        Some((rjob, index)) => format!("restart of Job {}-{rjob}-{index}", jobset.name()),
        None => format!("restart (attempt {from} → {to})"),
    };
    let message = match &options.reason {
        Some(reason) => format!("{what} requested by {} with kubectl-jobset: {reason}", options.requested_by),
        None => format!("{what} requested by {} with kubectl-jobset", options.requested_by),
    };
    if let Err(e) = crate::cluster::events::publish_restart(cluster, jobset, message).await {
        cluster.log.note(0, &format!("warning: restarted, but could not record an Event: {e}"));
    }
}

/// Waits, by watching, until every Job of attempt `to` exists (or is ready).
pub(crate) async fn wait(
    cluster: &Cluster,
    jobset: &JobSet,
    to: i32,
    wait_for: WaitFor,
    timeout: Duration,
    show_progress: bool,
    err: &mut dyn Write,
) -> Result<()> {
    let name = jobset.name().to_owned();
    let verb = if wait_for == WaitFor::Ready { "ready" } else { "recreated" };
    let mut stream = Box::pin(watch_jobset(cluster, jobset.namespace(), &name));
    let mut last = None::<crate::cluster::watch::Snapshot>;
    let mut anything_moved = false;
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            _ = &mut deadline => {
                return Err(Error::Wait(timeout_message(&name, to, verb, timeout, last.as_ref(), anything_moved)));
            }
            next = stream.next() => {
                let Some(snapshot) = next else { return Err(Error::Wait(format!("watching jobset {name} ended unexpectedly"))) };
                let snapshot = match snapshot {
                    Ok(snapshot) => snapshot,
                    // A watch idle for longer than --request-timeout times out; the
                    // watcher re-establishes it. Any other failure ends the wait.
                    Err(Error::Timeout { .. }) => {
                        cluster.log.note(6, "watch timed out; watching again");
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if !snapshot.synced {
                    continue;
                }
                let Some(current) = &snapshot.jobset else {
                    return Err(Error::Wait(format!("jobset {name} was deleted while waiting for restart {to}")));
                };
                if current.condition_true("Failed") {
                    return Err(Error::Wait(format!("jobset {name} failed while waiting for restart {to}")));
                }
                if current.attempt() > to {
                    return Err(Error::Wait(format!("jobset {name} restarted again (attempt {}) while waiting for restart {to}", current.attempt())));
                }
                let (done, expected) = progress(current, &snapshot.jobs, to, wait_for == WaitFor::Ready);
                // Any deletion or recreation shows that a controller is acting on the restart.
                if snapshot.jobs.iter().any(|j| j.attempt() == Some(to) || j.is_deleting()) || snapshot.jobs.len() < expected {
                    anything_moved = true;
                }
                if show_progress {
                    write!(err, "\rrestart {to}: {done}/{expected} jobs {verb}")?;
                }
                if done >= expected {
                    if show_progress {
                        writeln!(err)?;
                    }
                    return Ok(());
                }
                last = Some(snapshot);
            }
        }
    }
}

/// The names the spec asks for: `<jobset>-<replicatedJob>-<index>`.
fn expected_job_names(jobset: &JobSet) -> Vec<String> {
    jobset
        .spec
        .replicated_jobs
        .iter()
        .flat_map(|r| (0..r.replicas.max(0)).map(move |i| format!("{}-{}-{i}", jobset.name(), r.name)))
        .collect()
}

/// What is missing when `--wait` times out, and whether anything acted at all.
fn timeout_message(
    name: &str,
    to: i32,
    verb: &str,
    timeout: Duration,
    last: Option<&crate::cluster::watch::Snapshot>,
    anything_moved: bool,
) -> String {
    let after = crate::render::age::format_duration(timeout);
    let Some(snapshot) = last.filter(|s| s.jobset.is_some()) else {
        return format!("timed out after {after} waiting for jobset {name} restart {to}");
    };
    let jobset = snapshot.jobset.as_ref().expect("filtered");
    let wanted = expected_job_names(jobset);
    let ready = verb == "ready";
    let missing: Vec<String> = wanted
        .into_iter()
        .filter(|n| {
            !snapshot.jobs.iter().any(|j| {
                j.name() == n && j.attempt() == Some(to) && !j.is_deleting() && (!ready || j.is_ready())
            })
        })
        .collect();
    let old = snapshot.jobs.iter().filter(|j| j.attempt().is_some_and(|a| a < to)).count();
    let mut message = format!(
        "timed out after {after} waiting for jobset {name} restart {to}: {} of {} jobs not {verb} ({})",
        missing.len(),
        jobset.expected_jobs(),
        crate::diff::job_range(&missing)
    );
    if !anything_moved {
        message.push_str(&format!(
            "; nothing is acting on the restart: no Job was deleted or recreated ({old} Jobs of earlier attempts remain). \
             Is the JobSet controller running?"
        ));
    } else if old > 0 {
        message.push_str(&format!("; {old} Jobs of earlier attempts are still being deleted"));
    }
    message
}
