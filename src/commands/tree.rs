//! `kubectl jobset tree NAME`: the JobSet, its replicatedJobs, their Jobs (attempt,
//! template revision, readiness, outdated or not) and the Jobs' Pods. Reads only: the
//! JobSet, its Jobs and revisions as every command reads them, and one list of Pods by
//! the controller's label (skipped, and said, where Pods may not be listed).

use std::io::Write;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::Pod;

use crate::cluster::Cluster;
use crate::diff::JobSetDrift;
use crate::error::Result;
use crate::exit::ExitStatus;
use crate::history::View;
use crate::model::jobset::{ChildJob, JobSet, JobState, labels};
use crate::model::summary::summarize;
use crate::observe::{Observed, observe_to_read};
use crate::render::tree::{Header, Node, write_tree};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct TreePlan {
    /// One JobSet, by name.
    pub selection: Selection,
}

pub async fn run(
    cluster: &Cluster,
    plan: &TreePlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let name = plan.selection.names.first().cloned().unwrap_or_default();
    let ns = plan.selection.namespace.clone().unwrap_or_default();
    let (observed, pods) =
        tokio::join!(observe_to_read(cluster, &plan.selection, None, err), list_pods(cluster, &ns, &name));
    let Some(Observed { mut fleet, drifts, .. }) = observed? else {
        return Err(crate::observe::fleet::not_found(&plan.selection.names, &ns));
    };
    // The revisions as listed (a read records nothing).
    let uid = fleet.jobsets[0].uid().to_owned();
    let revisions = fleet.take_revisions_of(&uid).into_iter().filter_map(|r| r.ok()).collect();
    let jobset = &fleet.jobsets[0];
    let pods = match pods {
        Ok(pods) => Some(pods),
        Err(e) => {
            writeln!(err, "warning: Pods not shown: {e}")?;
            None
        }
    };
    let view = View::new(jobset, revisions).with_mixed(&drifts[0].mixed_templates());
    let (header, root) = model(jobset, fleet.jobs_of(jobset), &drifts[0], &view, pods.as_deref());
    write_tree(out, &header, &root, Timestamp::now())?;
    Ok(ExitStatus::Success)
}

async fn list_pods(cluster: &Cluster, namespace: &str, jobset: &str) -> Result<Vec<Pod>> {
    let api: kube::Api<Pod> = kube::Api::namespaced(cluster.client.clone(), namespace);
    let params = kube::api::ListParams::default().labels(&format!("{}={jobset}", labels::JOBSET_NAME));
    let op = crate::error::Op::new("list", "pods", Some(namespace));
    api.list(&params).await.map(|l| l.items).map_err(|e| cluster.errors.classify(op, e))
}

/// The header and the tree, from what was read (pure).
pub fn model(
    jobset: &JobSet,
    jobs: &[ChildJob],
    drift: &JobSetDrift,
    view: &View<'_>,
    pods: Option<&[Pod]>,
) -> (Header, Node) {
    let summary = summarize(jobset, jobs);
    let revision_words =
        |n: Option<i64>| n.map(|n| format!("revision {n}")).unwrap_or_else(|| "no revision recorded".into());
    let mut header: Header = vec![
        ("Name", jobset.name().to_owned()),
        ("Namespace", jobset.namespace().to_owned()),
        (
            "Status",
            format!(
                "{} (attempt {}, {}/{} jobs ready)",
                summary.phase, summary.attempt, summary.ready, summary.expected
            ),
        ),
        ("Spec revision", revision_words(view.spec)),
    ];
    if let Some(kueue) = &drift.kueue {
        header.push(("Kueue", kueue.words()));
    }
    if let Some(staged) = &drift.staged {
        let when = match &staged.held_for {
            Some(rollout) => format!("held for rollout {rollout} until its batch"),
            None => "applied at the next restart".into(),
        };
        header.push(("Staged", format!("controllerrevision {} ({when})", staged.revision)));
    }
    let outdated: Vec<&str> = drift
        .replicated_jobs
        .iter()
        .flat_map(|r| r.outdated.iter().flat_map(|g| g.jobs.iter().map(String::as_str)))
        .collect();
    let revision_of = |job: &ChildJob| -> Option<i64> {
        let attempt = job.attempt()?;
        if attempt == jobset.attempt() {
            // The current attempt: the spec's revision unless its template is outdated.
            return if outdated.contains(&job.name()) {
                view.running.filter(|r| Some(*r) != view.spec)
            } else {
                view.spec
            };
        }
        view.revisions.iter().find(|r| r.attempts.contains(&attempt)).map(|r| r.number)
    };
    let mut replicated: Vec<Node> = Vec::new();
    for rjob in &jobset.spec.replicated_jobs {
        let mut children: Vec<&ChildJob> =
            jobs.iter().filter(|j| j.label(labels::REPLICATED_JOB) == Some(rjob.name.as_str())).collect();
        children.sort_by_key(|j| {
            (j.attempt(), j.label(labels::JOB_INDEX).and_then(|i| i.parse::<i64>().ok()), j.name().to_owned())
        });
        let ready = children.iter().filter(|j| j.attempt() == Some(jobset.attempt()) && j.is_ready()).count();
        replicated.push(Node {
            name: rjob.name.clone(),
            kind: "ReplicatedJob",
            status: String::new(),
            ready: format!("{ready}/{}", rjob.replicas),
            created: None,
            info: format!("replicas {}", rjob.replicas),
            children: children
                .into_iter()
                .map(|job| job_node(job, jobset, &outdated, revision_of(job), pods))
                .collect(),
        });
    }
    let root = Node {
        name: jobset.name().to_owned(),
        kind: "JobSet",
        status: summary.phase.to_string(),
        ready: format!("{}/{}", summary.ready, summary.expected),
        created: summary.created,
        info: format!("attempt {}", jobset.attempt()),
        children: replicated,
    };
    (header, root)
}

fn job_node(
    job: &ChildJob,
    jobset: &JobSet,
    outdated: &[&str],
    revision: Option<i64>,
    pods: Option<&[Pod]>,
) -> Node {
    let status = if job.is_deleting() {
        "Deleting".to_owned()
    } else if job.suspended {
        "Suspended".to_owned()
    } else {
        match job.state() {
            JobState::Active => "Active",
            JobState::Succeeded => "Succeeded",
            JobState::Failed => "Failed",
        }
        .to_owned()
    };
    let parallelism = job.parallelism.unwrap_or(1);
    let ready_pods = job.status.as_ref().and_then(|s| s.ready).unwrap_or(0);
    let mut info = vec![match job.attempt() {
        Some(a) if a == jobset.attempt() => format!("attempt {a}"),
        Some(a) => format!("attempt {a} (earlier)"),
        None => "no attempt label".to_owned(),
    }];
    info.push(revision.map(|r| format!("revision {r}")).unwrap_or_else(|| "revision unknown".into()));
    if outdated.contains(&job.name()) {
        info.push("outdated template".into());
    }
    let children = pods
        .unwrap_or_default()
        .iter()
        .filter(|p| {
            p.metadata.labels.as_ref().and_then(|l| l.get("batch.kubernetes.io/job-name")).map(String::as_str)
                == Some(job.name())
        })
        .map(pod_node)
        .collect();
    Node {
        name: job.name().to_owned(),
        kind: "Job",
        status,
        ready: format!("{ready_pods}/{parallelism}"),
        created: job.metadata.creation_timestamp.as_ref().map(|t| t.0),
        info: info.join(", "),
        children,
    }
}

fn pod_node(pod: &Pod) -> Node {
    let status = pod.status.as_ref();
    let containers = status.and_then(|s| s.container_statuses.clone()).unwrap_or_default();
    let total = pod.spec.as_ref().map_or(0, |s| s.containers.len());
    let ready = containers.iter().filter(|c| c.ready).count();
    let restarts: i32 = containers.iter().map(|c| c.restart_count).sum();
    let phase = if pod.metadata.deletion_timestamp.is_some() {
        "Terminating".to_owned()
    } else {
        status.and_then(|s| s.phase.clone()).unwrap_or_else(|| "Pending".into())
    };
    let image = pod
        .spec
        .as_ref()
        .and_then(|s| s.containers.first())
        .and_then(|c| c.image.clone())
        .unwrap_or_default();
    let mut info = vec![image];
    if restarts > 0 {
        info.push(format!("{restarts} restarts"));
    }
    Node {
        name: pod.metadata.name.clone().unwrap_or_default(),
        kind: "Pod",
        status: phase,
        ready: format!("{ready}/{total}"),
        created: pod.metadata.creation_timestamp.as_ref().map(|t| t.0),
        info: info.join(", "),
        children: vec![],
    }
}
