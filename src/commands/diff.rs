//! `kubectl jobset diff`: which running Jobs use an outdated template, and what differs.

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::cluster::Cluster;
use crate::diff::unified::{Palette, yaml_lines};
use crate::diff::{JobSetDrift, State, job_range};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::observe::{Observed, RecordOptions, Recorder, observe, observe_to_read, spec_revision};
use crate::render::{self, documents::DiffDocument, drift::write_text, table::write_table};
use crate::select::Selection;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    /// Unified diffs per replicatedJob.
    Text,
    /// One line per JobSet.
    Summary,
    Json,
    Yaml,
}

#[derive(Debug, Clone)]
pub struct DiffPlan {
    pub selection: Selection,
    pub format: DiffFormat,
    pub color: bool,
    /// `KUBECTL_EXTERNAL_DIFF`, when set: a program and its arguments.
    pub external_diff: Option<String>,
    pub history_limit: usize,
    /// `--record` (or KUBECTL_JOBSET_RECORD): write the history seen, as write verbs do.
    /// Otherwise nothing is written: the history shown is what recording would leave.
    pub record: bool,
    /// `--server-dry-run`: the server defaults the expected Jobs (dry-run creates).
    pub server_dry_run: bool,
}

pub async fn run(
    cluster: &Cluster,
    plan: &DiffPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let options = RecordOptions {
        history_limit: plan.history_limit,
        cause: None,
        recorder: Recorder::Defer,
        write: plan.record,
        numbers: crate::observe::NumberCheck::ReadBack,
    };
    let observed = match plan.server_dry_run {
        true => observe(cluster, &plan.selection, Some(&options), err).await?,
        false => observe_to_read(cluster, &plan.selection, Some(&options), err).await?,
    };
    let Some(Observed { mut fleet, drifts, histories, spec_digests, recorder, .. }) = observed else {
        return Ok(ExitStatus::Success);
    };
    let spec_revisions: Vec<Option<i64>> = (fleet.jobsets.iter().enumerate())
        .map(|(i, js)| spec_revision(&histories, js, spec_digests.get(i).copied().flatten()))
        .collect();
    let strategy_words: Vec<String> = fleet
        .jobsets
        .iter()
        .zip(&drifts)
        .filter_map(|(jobset, drift)| {
            let enforcer = crate::plan::strategy::enforcer(recorder.as_ref(), jobset);
            let words = crate::plan::strategy::drift_words(jobset, fleet.jobs_of(jobset), drift, enforcer)?;
            Some(format!("jobset {}/{}: {words}", jobset.namespace(), jobset.name()))
        })
        .collect();
    // What is printed is in the drifts now: the objects read make room for the output
    // (freed beside it: see `let_go`).
    crate::exit::let_go((fleet.take_objects(), histories));
    match plan.format {
        DiffFormat::Text => match &plan.external_diff {
            Some(program) => external_diff(program, &drifts, out)?,
            None => write_text(out, &drifts, Palette { color: plan.color })?,
        },
        DiffFormat::Summary => write_summary(out, &drifts, &spec_revisions)?,
        DiffFormat::Json => render::write_json(out, &report(&drifts, &spec_revisions))?,
        DiffFormat::Yaml => render::write_yaml(out, &report(&drifts, &spec_revisions))?,
    }
    for line in &strategy_words {
        writeln!(err, "{line}")?;
    }
    // One JobSet's problem is the command's error itself (said once, last, as kubectl
    // ends); among several, each is said on its own line, then how many failed.
    if let [JobSetDrift { error: Some(why), namespace, name, .. }] = drifts.as_slice() {
        return Err(Error::NotCompared { what: format!("{namespace}/{name}"), why: why.clone() });
    }
    write_problems(err, &drifts)?;
    let failed = drifts.iter().filter(|d| d.error.is_some()).count();
    if failed > 0 {
        // After printing the rest: exit 2, as for any diff error.
        return Err(Error::Several { failed, total: drifts.len() });
    }
    // A staged change is a difference too: the next restart changes what runs.
    let differs = drifts.iter().any(|d| d.has_drift() || d.staged.is_some());
    crate::exit::leave(drifts);
    Ok(if differs { ExitStatus::Differences } else { ExitStatus::Success })
}

/// One line per JobSet that could not be compared, with the reason.
fn write_problems(err: &mut dyn Write, drifts: &[JobSetDrift]) -> Result<()> {
    for d in drifts {
        if let Some(why) = &d.error {
            writeln!(err, "error: jobset {}/{} could not be compared: {why}", d.namespace, d.name)?;
        }
    }
    Ok(())
}

/// One line per JobSet (`spec_revisions` in the same order; None when not recorded).
fn write_summary(out: &mut dyn Write, drifts: &[JobSetDrift], spec_revisions: &[Option<i64>]) -> Result<()> {
    let rows: Vec<Vec<String>> = drifts
        .iter()
        .zip(spec_revisions)
        .map(|(d, revision)| {
            let status = match d.state {
                _ if d.error.is_some() => "Error",
                State::Compared | State::Suspended if d.staged.is_some() => "Staged",
                State::Compared if !d.mixed_templates().is_empty() => "Outdated,Mixed",
                State::Compared if d.has_drift() => "Outdated",
                State::Compared if !d.previous_attempt_jobs.is_empty() => "Restarting",
                State::Compared => "UpToDate",
                // As kubectl joins a node's conditions: queued, and resumes outdated.
                State::Suspended if d.has_drift() => "Outdated,Suspended",
                State::Suspended => "Suspended",
                State::Completed => "Completed",
                State::Failed => "Failed",
                State::ManagedElsewhere => "ManagedElsewhere",
            };
            vec![
                format!("{}/{}", d.namespace, d.name),
                d.attempt.to_string(),
                format!("{}/{}", d.outdated_jobs(), d.total_jobs()),
                status.to_owned(),
                revision.map(|r| r.to_string()).unwrap_or_else(|| "<none>".into()),
            ]
        })
        .collect();
    write_table(out, &["JOBSET", "ATTEMPT", "OUTDATED", "STATUS", "SPEC-REVISION"], &rows, false)
}

/// The stable machine-readable document for `-o json|yaml`.
pub fn report(drifts: &[JobSetDrift], spec_revisions: &[Option<i64>]) -> DiffDocument {
    DiffDocument::new(drifts, spec_revisions)
}

/// `KUBECTL_EXTERNAL_DIFF`: as kubectl diff does, write both sides into two directories
/// and run the program on them, passing its output through.
fn external_diff(program: &str, drifts: &[JobSetDrift], out: &mut dyn Write) -> Result<()> {
    let mut words = program.split_whitespace();
    let Some(command) = words.next() else {
        return Err(Error::Usage("KUBECTL_EXTERNAL_DIFF is empty".into()));
    };
    // kubectl passes only simple flags through, to keep the variable from being a shell.
    let args: Vec<&str> =
        words.filter(|a| a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '=')).collect();
    // Removed when `root` is dropped, whatever happens.
    let root = tempfile::Builder::new().prefix("kubectl-jobset-diff-").tempdir()?;
    let (live, merged) = (root.path().join("LIVE"), root.path().join("MERGED"));
    std::fs::create_dir_all(&live)?;
    std::fs::create_dir_all(&merged)?;
    for d in drifts {
        for rjob in &d.replicated_jobs {
            for group in &rjob.outdated {
                let file =
                    format!("{}.{}.{}.{}.yaml", d.namespace, d.name, rjob.name, job_range(&group.jobs));
                write_yaml_file(&live.join(&file), &group.live_template.value())?;
                write_yaml_file(&merged.join(&file), &rjob.spec_template.value())?;
            }
        }
    }
    let output =
        std::process::Command::new(command).args(&args).arg(&live).arg(&merged).output().map_err(|e| {
            Error::Usage(format!("cannot run KUBECTL_EXTERNAL_DIFF program {command:?}: {e}"))
        })?;
    out.write_all(&output.stdout)?;
    match output.status.code() {
        Some(0 | 1) => Ok(()),
        code => Err(Error::Output(format!(
            "KUBECTL_EXTERNAL_DIFF program {command:?} failed ({}): {}",
            code.map(|c| format!("exit {c}")).unwrap_or_else(|| "killed".into()),
            String::from_utf8_lossy(&output.stderr).trim()
        ))),
    }
}

fn write_yaml_file(path: &Path, value: &Value) -> Result<()> {
    let text: String = yaml_lines(value).into_iter().map(|l| l.text + "\n").collect();
    std::fs::write(path, text)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::changes::{Change, changes};
    use crate::diff::{DriftGroup, ReplicatedJobDrift};
    use serde_json::json;

    fn drift(outdated: &[&str], live_image: &str) -> JobSetDrift {
        let live =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": live_image}]}}}});
        let spec =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "app:v2"}]}}}});
        let jobs: Vec<String> = (0..4).map(|i| format!("train-workers-{i}")).collect();
        let outdated: Vec<String> = outdated.iter().map(|s| s.to_string()).collect();
        JobSetDrift {
            namespace: "ml".into(),
            name: "train".into(),
            attempt: 2,
            state: State::Compared,
            replicated_jobs: vec![ReplicatedJobDrift {
                name: "workers".into(),
                replicas: 4,
                jobs,
                outdated: if outdated.is_empty() {
                    vec![]
                } else {
                    vec![DriftGroup {
                        jobs: outdated,
                        changes: changes(&live, &spec),
                        live_template: std::sync::Arc::new(live.clone().into()),
                    }]
                },
                scale: vec![],
                not_created: vec![],
                beyond_replicas: vec![],
                in_spec: true,
                spec_template: std::sync::Arc::new(spec.into()),
            }],
            previous_attempt_jobs: vec![],
            unlabelled_jobs: vec![],
            manager: None,
            error: None,
            kueue: None,
            quota: vec![],
            staged: None,
        }
    }

    #[test]
    fn text_output_groups_jobs_and_names_the_container() {
        let mut out = Vec::new();
        write_text(
            &mut out,
            &[drift(&["train-workers-0", "train-workers-1", "train-workers-2"], "app:v1")],
            Palette { color: false },
        )
        .unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap(), @r"
        jobset ml/train: attempt 2, 3/4 jobs outdated
          warning: runs mixed templates in attempt 2 (workers: train-workers-3 on the spec's template, train-workers-0..2 on an outdated one); a restart puts every Job on the spec's template
          replicatedJob workers: train-workers-0..2 (3 of 4) run an outdated template
        --- train-workers-0..2 (running, attempt 2)
        +++ ml/train replicatedJobs[workers].template (spec)
        @@ spec.template.spec.containers[main] @@
             spec:
               containers:
               - name: main
        -        image: app:v1
        +        image: app:v2
        ");
    }

    #[test]
    fn no_drift_prints_nothing() {
        let mut out = Vec::new();
        write_text(&mut out, &[drift(&[], "app:v2")], Palette { color: false }).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn summary_and_json() {
        let drifts = [drift(&["train-workers-0"], "app:v1"), drift(&[], "app:v2")];
        let mut out = Vec::new();
        write_summary(&mut out, &drifts, &[Some(3), None]).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap(), @r"
        JOBSET     ATTEMPT   OUTDATED   STATUS           SPEC-REVISION
        ml/train   2         1/4        Outdated,Mixed   3
        ml/train   2         0/4        UpToDate         <none>
        ");
        let mut out = Vec::new();
        render::write_json(&mut out, &report(&drifts, &[Some(3), None])).unwrap();
        let doc: DiffDocument = serde_json::from_slice(&out).unwrap();
        assert_eq!((doc.kind.as_str(), doc.api_version.as_str()), ("JobSetDiff", "kubectl-jobset/v1"));
        assert_eq!(doc.jobsets[0].spec_revision, Some(3));
        assert!(doc.jobsets[0].drift);
        assert_eq!(
            doc.jobsets[0].replicated_jobs[0].outdated[0].changes[0],
            Change {
                path: "spec.template.spec.containers[main].image".into(),
                old: Some(json!("app:v1")),
                new: Some(json!("app:v2"))
            }
        );
        assert_eq!((doc.jobsets[1].spec_revision, doc.jobsets[1].outdated_jobs), (None, 0));
    }

    #[test]
    fn a_jobset_that_cannot_be_compared_has_its_own_line_and_the_others_are_printed() {
        let mut broken = drift(&[], "app:v2");
        broken.name = "broken".into();
        broken.error = Some("replicatedJob workers: the API server rejects a Job".into());
        let drifts = [drift(&["train-workers-0"], "app:v1"), broken];
        let mut out = Vec::new();
        write_summary(&mut out, &drifts, &[Some(3), None]).unwrap();
        insta::assert_snapshot!(String::from_utf8(out).unwrap(), @r"
        JOBSET      ATTEMPT   OUTDATED   STATUS           SPEC-REVISION
        ml/train    2         1/4        Outdated,Mixed   3
        ml/broken   2         0/4        Error            <none>
        ");
        let mut err = Vec::new();
        write_problems(&mut err, &drifts).unwrap();
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "error: jobset ml/broken could not be compared: replicatedJob workers: the API server rejects a Job\n"
        );
        let doc = report(&drifts, &[Some(3), None]);
        assert_eq!(doc.jobsets[1].error.as_deref(), drifts[1].error.as_deref());
        assert_eq!(serde_json::to_value(&doc).unwrap()["jobsets"][0].get("error"), None);
    }

    #[test]
    fn external_diff_gets_two_directories_that_are_removed_afterwards() {
        let mut out = Vec::new();
        external_diff("echo", &[drift(&["train-workers-0"], "app:v1")], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let dirs: Vec<&Path> = text.split_whitespace().map(Path::new).collect();
        assert_eq!(dirs.len(), 2, "{text}");
        assert!(dirs[0].ends_with("LIVE") && dirs[1].ends_with("MERGED"), "{text}");
        assert!(text.contains("kubectl-jobset-diff-"), "{text}");
        assert!(!dirs[0].exists() && !dirs[0].parent().unwrap().exists(), "cleaned up: {text}");
    }
}
