//! What `history` prints: the revision table, a revision's templates, the changes from
//! one revision to another, and their `-o json|yaml` documents. All of it reads a
//! `history::View`; `commands::history` picks which to print.

use std::io::Write;

use jiff::Timestamp;
use serde_json::Value;

use super::documents::{
    API_VERSION, DeletedDocument, HistoryDocument, ReplicatedJobChanges, RevisionDiffDocument,
    RevisionDocument,
};
use super::table::write_table;
use crate::age::format_age;
use crate::diff::changes::{Change, changes, describe, unique_in_order};
use crate::diff::unified::{Palette, write_unified, yaml_lines};
use crate::error::Result;
use crate::history::deleted::DeletedHistory;
use crate::history::retention::stamp;
use crate::history::{Revision, View, data, format_attempts};
use crate::model::jobset::{JobSet, RESOURCE_NAME, template_images};
use crate::presence::Scope;

/// The header of the revision column that ages by itself.
pub const CREATED: &str = "CREATED";
/// In that column, for a revision shown but not stored (a read without `--record`).
pub const NOT_RECORDED: &str = "<not recorded>";

/// Said once when some JobSet's history is kept only by commands that happen to look
/// at it (no running recorder covers it): what may be missing, and what keeps it all.
pub fn recorder_hint(jobsets: &[JobSet], recorder: Option<&Scope>) -> Option<&'static str> {
    let uncovered = jobsets.iter().any(|js| !recorder.is_some_and(|scope| scope.covers(js)));
    uncovered.then_some(
        "note: without a recorder, history holds only what kubectl-jobset commands recorded when they ran \
         (restart, rollback, set, or a read with --record; templates and restart attempts in between are \
         missing); `kubectl jobset recorder -A` keeps it complete as it happens",
    )
}

/// Said once when revisions are shown that are not stored (`Revision::unrecorded`).
pub const UNRECORDED_NOTE: &str = "note: revisions marked <not recorded> are what the spec and the running Jobs \
     show now, not stored (this command only reads); `--record` stores them";

/// `jobset.jobset.x-k8s.io/NAME` above a JobSet's table, with its namespace when
/// JobSets of every namespace are listed.
pub fn write_heading(out: &mut dyn Write, jobset: &JobSet, all_namespaces: bool) -> Result<()> {
    let namespace =
        if all_namespaces { format!(" (namespace {})", jobset.namespace()) } else { String::new() };
    Ok(writeln!(out, "{RESOURCE_NAME}/{}{namespace}", jobset.name())?)
}

/// The heading of a deleted JobSet's kept history: its name, then what is known of its
/// deletion, its uid and when the recorder prunes it.
pub fn write_deleted_heading(
    out: &mut dyn Write,
    history: &DeletedHistory,
    all_namespaces: bool,
    now: Timestamp,
) -> Result<()> {
    let namespace =
        if all_namespaces { format!(" (namespace {})", history.namespace) } else { String::new() };
    Ok(writeln!(out, "{RESOURCE_NAME}/{}{namespace} ({})", history.name, history.describe(now))?)
}

/// A deleted JobSet's kept history as a document: `history_document` with `deleted`.
pub fn deleted_history_document(view: &View, history: &DeletedHistory) -> HistoryDocument {
    let mut document = history_document(view);
    document.deleted = Some(DeletedDocument {
        uid: history.uid.clone(),
        deleted_at: history.deleted_at().map(stamp),
        prune_at: history.prune_at().map(stamp),
        owned: history.owned(),
    });
    document
}

/// `-o name`: one line per revision.
pub fn write_names(out: &mut dyn Write, view: &View) -> Result<()> {
    for r in &view.revisions {
        writeln!(out, "controllerrevision.apps/{}", r.name)?;
    }
    Ok(())
}

/// The revision table, then (with headers) the attempts no revision was seen running.
pub fn write_revisions(
    out: &mut dyn Write,
    view: &View,
    wide: bool,
    no_headers: bool,
    now: Timestamp,
) -> Result<()> {
    let (headers, rows) = revisions_table(view, wide, now);
    write_table(out, &headers, &rows, no_headers)?;
    let unobserved = view.unobserved();
    if !unobserved.is_empty() && !no_headers {
        writeln!(out, "attempts never observed by kubectl-jobset: {}", format_attempts(&unobserved))?;
    }
    Ok(())
}

/// Headers and rows of the revision table, in revision order; pure, with the clock
/// passed in.
pub fn revisions_table(view: &View, wide: bool, now: Timestamp) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let mut headers = vec!["REVISION", "STATE", "RESTART-ATTEMPTS", CREATED, "IMAGES", "CHANGE-CAUSE"];
    if wide {
        headers.extend(["NAME", "SOURCE", "REPLICATED-JOBS"]);
    }
    let rows: Vec<Vec<String>> = view
        .revisions
        .iter()
        .map(|r| {
            let mut row = vec![
                r.number.to_string(),
                view.state(r).to_owned(),
                if r.attempts.is_empty() { "<none>".into() } else { format_attempts(&r.attempts) },
                match r.unrecorded {
                    true => NOT_RECORDED.to_owned(),
                    false => format_age(r.recorded_at.as_deref().and_then(|t| t.parse().ok()), now),
                },
                images(r),
                r.change_cause.clone().unwrap_or_else(|| "<none>".into()),
            ];
            if wide {
                let details: Vec<String> =
                    r.templates.iter().map(|(name, t)| replicated_job_details(name, t)).collect();
                row.extend([r.name.clone(), r.source.clone(), details.join("; ")]);
            }
            row
        })
        .collect();
    (headers, rows)
}

/// One revision as a document (`--revision N` carries its templates).
pub fn revision_document(view: &View, r: &Revision, with_templates: bool) -> RevisionDocument {
    RevisionDocument::new(r, view.spec == Some(r.number), view.is_running(r.number), with_templates)
}

/// The whole history of one JobSet as a document.
pub fn history_document(view: &View) -> HistoryDocument {
    HistoryDocument {
        kind: HistoryDocument::KIND.to_owned(),
        api_version: API_VERSION.to_owned(),
        namespace: view.jobset.namespace().to_owned(),
        name: view.jobset.name().to_owned(),
        attempt: view.jobset.attempt(),
        spec_revision: view.spec,
        running_revision: view.running,
        unobserved_attempts: view.unobserved(),
        revisions: view.revisions.iter().map(|r| revision_document(view, r, false)).collect(),
        deleted: None,
    }
}

/// `workers: parallelism=2 completions=2 trainer=app:v1 limits(cpu=2,memory=1Gi)`
fn replicated_job_details(name: &str, template: &Value) -> String {
    let spec = &template["spec"];
    let mut parts = vec![name.to_owned() + ":"];
    for key in ["parallelism", "completions"] {
        if let Some(n) = spec[key].as_i64() {
            parts.push(format!("{key}={n}"));
        }
    }
    for container in spec["template"]["spec"]["containers"].as_array().into_iter().flatten() {
        let mut text = format!(
            "{}={}",
            container["name"].as_str().unwrap_or("?"),
            container["image"].as_str().unwrap_or("?")
        );
        for kind in ["requests", "limits"] {
            if let Some(resources) = container["resources"][kind].as_object().filter(|r| !r.is_empty()) {
                let list: Vec<String> =
                    resources.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("?"))).collect();
                text.push_str(&format!(" {kind}({})", list.join(",")));
            }
        }
        parts.push(text);
    }
    parts.join(" ")
}

/// `workers=app:v1 driver=drv:v1`
fn images(r: &Revision) -> String {
    r.templates
        .iter()
        .map(|(name, t)| format!("{name}={}", template_images(t).join(",")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `--revision N`: the revision's templates, as YAML.
pub fn write_revision(out: &mut dyn Write, jobset: &JobSet, r: &Revision) -> Result<()> {
    writeln!(out, "{RESOURCE_NAME}/{} with revision #{}", jobset.name(), r.number)?;
    for line in yaml_lines(&data(&r.templates)) {
        writeln!(out, "{}", line.text)?;
    }
    Ok(())
}

/// Changes from one revision to another, per replicatedJob.
fn revision_changes(from: &Revision, to: &Revision) -> Vec<(String, Vec<Change>)> {
    unique_in_order(from.templates.iter().chain(to.templates.iter()).map(|(n, _)| n))
        .into_iter()
        .map(|name| (name.clone(), changes(&from.template(name), &to.template(name))))
        .filter(|(_, c)| !c.is_empty())
        .collect()
}

/// `workers: image app:v1 → app:v2`, or the path for anything else.
fn summary_line(rjob: &str, change: &Change) -> String {
    let container_image = change.path.ends_with("].image") && change.path.contains("ontainers[");
    let text = |v: &Option<Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "<none>".into(),
    };
    if container_image && change.old.is_some() && change.new.is_some() {
        let container =
            change.path.rsplit_once('[').and_then(|(_, c)| c.split(']').next()).unwrap_or_default();
        return format!(
            "{rjob}: image {} → {} (container {container})",
            text(&change.old),
            text(&change.new)
        );
    }
    format!("{rjob}: {}", describe(change))
}

/// `--diff A,B`: one line per change, then the unified diff of each changed template.
pub fn write_revision_diff(
    out: &mut dyn Write,
    jobset: &JobSet,
    from: &Revision,
    to: &Revision,
    palette: Palette,
) -> Result<()> {
    let per_rjob = revision_changes(from, to);
    writeln!(out, "{RESOURCE_NAME}/{}: revision {} → {}", jobset.name(), from.number, to.number)?;
    if per_rjob.is_empty() {
        writeln!(out, "no differences")?;
        return Ok(());
    }
    for (rjob, changes) in &per_rjob {
        for change in changes {
            writeln!(out, "  {}", summary_line(rjob, change))?;
        }
    }
    for (rjob, _) in &per_rjob {
        write_unified(
            out,
            &from.template(rjob),
            &to.template(rjob),
            &format!("revision {} replicatedJobs[{rjob}].template", from.number),
            &format!("revision {} replicatedJobs[{rjob}].template", to.number),
            palette,
        )?;
    }
    Ok(())
}

/// `--diff A,B -o json|yaml`.
pub fn revision_diff_document(jobset: &JobSet, from: &Revision, to: &Revision) -> RevisionDiffDocument {
    RevisionDiffDocument {
        kind: RevisionDiffDocument::KIND.to_owned(),
        api_version: API_VERSION.to_owned(),
        namespace: jobset.namespace().to_owned(),
        name: jobset.name().to_owned(),
        from: from.number,
        to: to.number,
        replicated_jobs: revision_changes(from, to)
            .into_iter()
            .map(|(name, changes)| ReplicatedJobChanges {
                summary: changes.iter().map(|c| summary_line(&name, c)).collect(),
                name,
                changes,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::render;

    #[test]
    fn image_changes_read_like_a_sentence() {
        let c = Change {
            path: "spec.template.spec.containers[trainer].image".into(),
            old: Some(json!("app:v1")),
            new: Some(json!("app:v2")),
        };
        assert_eq!(summary_line("workers", &c), "workers: image app:v1 → app:v2 (container trainer)");
        let c = Change { path: "spec.backoffLimit".into(), old: Some(json!(6)), new: None };
        assert_eq!(summary_line("workers", &c), "workers: spec.backoffLimit removed (was 6)");
    }

    #[test]
    fn wide_details_per_replicated_job() {
        let t = json!({"spec": {"parallelism": 2, "completions": 2, "template": {"spec": {"containers": [
            {"name": "trainer", "image": "app:v1", "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}]}}}});
        assert_eq!(
            replicated_job_details("workers", &t),
            "workers: parallelism=2 completions=2 trainer=app:v1 limits(cpu=2,memory=1Gi)"
        );
    }

    #[test]
    fn the_recorder_hint_is_for_jobsets_no_recorder_covers() {
        let jobset = |ns: &str| {
            JobSet::from_raw(json!({"metadata": {"name": "js", "namespace": ns, "uid": "u"},
                "spec": {"replicatedJobs": []}}))
            .unwrap()
        };
        let ml = Scope { namespaces: vec!["ml".into()], selector: None, strategies: None };
        assert!(recorder_hint(&[jobset("ml")], None).unwrap().contains("kubectl jobset recorder -A"));
        assert_eq!(recorder_hint(&[jobset("ml")], Some(&ml)), None);
        assert!(recorder_hint(&[jobset("ml"), jobset("other")], Some(&ml)).is_some());
    }

    fn revision(number: i64, image: &str, attempts: &str, cause: Option<&str>) -> Revision {
        let mut annotations = json!({crate::history::FORMAT_ANNOTATION: crate::history::FORMAT,
            crate::history::ATTEMPTS_ANNOTATION: attempts, crate::history::RECORDED_ANNOTATION: "2026-11-30T12:00:00Z"});
        if let Some(cause) = cause {
            annotations[crate::history::CHANGE_CAUSE] = json!(cause);
        }
        let object = json!({
            "metadata": {"name": format!("train-{number}"),
                "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "u1"}],
                "labels": {crate::history::HASH_LABEL: format!("hash{number}")}, "annotations": annotations},
            "data": {"replicatedJobs": [{"name": "workers", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "trainer", "image": image}]}}}}}]},
            "revision": number});
        crate::history::parse(&serde_json::from_value(object).unwrap(), "u1").unwrap()
    }

    fn history_fixture() -> (JobSet, Vec<Revision>) {
        let revisions = vec![revision(1, "app:v1", "0", None), revision(2, "app:v2", "", Some("new image"))];
        let jobset = JobSet::from_raw(json!({
            "metadata": {"name": "train", "namespace": "ml", "uid": "u1"},
            "spec": {"replicatedJobs": [{"name": "workers", "replicas": 1, "template": revisions[1].templates[0].1}]},
            "status": {"restarts": 2}}))
        .unwrap();
        (jobset, revisions)
    }

    fn json_text(doc: &impl serde::Serialize) -> String {
        let mut out = Vec::new();
        render::write_json(&mut out, doc).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_history_document_keeps_its_schema_and_parses_back() {
        let (jobset, revisions) = history_fixture();
        let view = View::new(&jobset, revisions);
        let history = json_text(&history_document(&view));
        // The whole document, in src/render/snapshots/ (too long to keep inline).
        insta::assert_snapshot!("history_document", history);
        assert_eq!(serde_json::from_str::<HistoryDocument>(&history).unwrap(), history_document(&view));
    }

    #[test]
    fn a_revision_document_carries_its_templates() {
        let (jobset, revisions) = history_fixture();
        let view = View::new(&jobset, revisions);
        let revision = json_text(&revision_document(&view, &view.revisions[0], true));
        let parsed: RevisionDocument = serde_json::from_str(&revision).unwrap();
        assert_eq!(parsed, revision_document(&view, &view.revisions[0], true));
        let templates = parsed.replicated_jobs.expect("--revision shows the templates");
        assert_eq!(
            (templates[0].name.as_str(), &templates[0].template),
            ("workers", &view.revisions[0].templates[0].1)
        );
    }

    #[test]
    fn a_revision_diff_document_keeps_its_schema_and_parses_back() {
        let (jobset, revisions) = history_fixture();
        let view = View::new(&jobset, revisions);
        let diff = json_text(&revision_diff_document(&jobset, &view.revisions[0], &view.revisions[1]));
        insta::assert_snapshot!(diff, @r#"
        {
          "kind": "JobSetRevisionDiff",
          "apiVersion": "kubectl-jobset/v1",
          "namespace": "ml",
          "name": "train",
          "from": 1,
          "to": 2,
          "replicatedJobs": [
            {
              "name": "workers",
              "summary": [
                "workers: image app:v1 → app:v2 (container trainer)"
              ],
              "changes": [
                {
                  "path": "spec.template.spec.containers[trainer].image",
                  "old": "app:v1",
                  "new": "app:v2"
                }
              ]
            }
          ]
        }
        "#);
        let parsed: RevisionDiffDocument = serde_json::from_str(&diff).unwrap();
        assert_eq!(parsed.replicated_jobs[0].summary, ["workers: image app:v1 → app:v2 (container trainer)"]);
    }
}
