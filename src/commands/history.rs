//! `kubectl jobset history`: the recorded template revisions per restart attempt.

use std::io::Write;

use std::collections::BTreeMap;

use futures::StreamExt;
use jiff::Timestamp;
use kube::runtime::watcher;
use serde_json::Value;

use crate::age::format_age;
use crate::cluster::Cluster;
use crate::cluster::watch::{FleetUpdate, FleetWatch, watch_fleet};
use crate::commands::Watching;
use crate::diff::changes::{Change, changes, unique_in_order};
use crate::diff::unified::{Palette, write_unified, yaml_lines};
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::history::{JOBSET_LABEL, Revision, View, bad_revision, data, format_attempts, select};
use crate::model::jobset::{JobSet, RESOURCE_NAME, template_images};
use crate::observe::{Observed, RecordOptions, Recorder, observe};
use crate::presence::Scope;
use crate::render::documents::{
    API_VERSION, HistoryDocument, ReplicatedJobChanges, RevisionDiffDocument, RevisionDocument, to_value,
};
use crate::render::{self, Format, table::write_table};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct HistoryPlan {
    pub selection: Selection,
    /// `--revision N`: print that revision's templates.
    pub revision: Option<i64>,
    /// `--diff A,B`: what changed from A to B.
    pub diff: Option<(i64, i64)>,
    pub format: Format,
    pub no_headers: bool,
    pub color: bool,
    pub history_limit: usize,
    /// `-w`: then print revisions as they are recorded (one JobSet, as a table).
    pub watch: Option<Watching>,
}

pub async fn run(
    cluster: &Cluster,
    plan: &HistoryPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let options = RecordOptions { history_limit: plan.history_limit, cause: None, recorder: Recorder::Defer };
    let Some(Observed { fleet, histories, recorder, drifts, .. }) =
        observe(cluster, &plan.selection, Some(&options), err).await?
    else {
        return Ok(ExitStatus::Success);
    };
    if let Some(hint) = recorder_hint(&fleet.jobsets, recorder.as_ref()) {
        writeln!(err, "{hint}")?;
    }
    let mut documents = Vec::new();
    let several = fleet.jobsets.len() > 1;
    for (jobset, drift) in fleet.jobsets.iter().zip(&drifts) {
        let revisions = histories.get(jobset.uid()).cloned().unwrap_or_default();
        if revisions.is_empty() {
            writeln!(err, "No history recorded for jobset {}/{}", jobset.namespace(), jobset.name())?;
            continue;
        }
        if let Some(mixed) = crate::diff::mixed_words(drift) {
            writeln!(err, "warning: jobset {}/{} {mixed}", jobset.namespace(), jobset.name())?;
        }
        let view = View::new(jobset, revisions).with_mixed(&drift.mixed_templates());
        let document = if let Some(n) = plan.revision {
            show_revision(plan, &view, n, out)?
        } else if let Some(pair) = plan.diff {
            show_diff(plan, &view, pair, out)?
        } else {
            show_history(plan, &view, several, out)?
        };
        documents.extend(document);
    }
    if !documents.is_empty() {
        render::write_documents(out, plan.format, documents)?;
    }
    match (plan.watch, fleet.jobsets.first()) {
        (Some(watching), Some(jobset)) => {
            let revisions = histories.get(jobset.uid()).cloned().unwrap_or_default();
            watch(cluster, plan, watching, jobset.clone(), revisions, out).await
        }
        _ => Ok(ExitStatus::Success),
    }
}

/// `history -w`: follows the JobSet and its ControllerRevisions by watch, and prints a
/// revision's row whenever it is recorded, changes (attempts, state) or is deleted.
async fn watch(
    cluster: &Cluster,
    plan: &HistoryPlan,
    watching: Watching,
    jobset: JobSet,
    revisions: Vec<Revision>,
    out: &mut dyn Write,
) -> Result<ExitStatus> {
    let wide = plan.format == Format::Wide;
    let what = FleetWatch {
        namespace: Some(jobset.namespace()),
        jobset_selector: None,
        name: Some(jobset.name()),
        jobs: None,
        revisions: Some(format!("{JOBSET_LABEL}={}", jobset.name())),
    };
    let mut stream = Box::pin(watch_fleet(cluster, what));
    let mut followed = Followed::new(jobset, revisions, wide);
    out.flush()?;
    while let Some(update) = stream.next().await {
        let deleted = match update {
            Ok(FleetUpdate::JobSet(watcher::Event::Apply(js) | watcher::Event::InitApply(js))) => {
                followed.jobset = js;
                None
            }
            Ok(FleetUpdate::JobSet(watcher::Event::Delete(_))) => {
                return Err(Error::Wait(format!("jobset {} was deleted", followed.jobset.name())));
            }
            Ok(FleetUpdate::Revision(watcher::Event::Apply(r) | watcher::Event::InitApply(r))) => {
                if let Ok(revision) = crate::history::parse(&r, followed.jobset.uid()) {
                    followed.revisions.retain(|known| known.name != revision.name);
                    followed.revisions.push(revision);
                }
                None
            }
            Ok(FleetUpdate::Revision(watcher::Event::Delete(r))) => {
                let name = r.metadata.name.unwrap_or_default();
                followed.revisions.retain(|known| known.name != name);
                Some(name)
            }
            Ok(_) | Err(Error::Timeout { .. }) => None,
            Err(e) => return Err(e),
        };
        for line in followed.changed_rows(watching, deleted) {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    Err(Error::Wait("the watch ended unexpectedly".into()))
}

/// A watched JobSet's revisions and the row last printed for each.
struct Followed {
    jobset: JobSet,
    revisions: Vec<Revision>,
    wide: bool,
    /// Rows as printed, by revision name, without the CREATED cell (it ages by itself).
    printed: BTreeMap<String, Vec<String>>,
    widths: Vec<usize>,
}

/// The column the age is in: it changes with time, not with the revision.
const CREATED_COLUMN: usize = 3;

impl Followed {
    fn new(jobset: JobSet, revisions: Vec<Revision>, wide: bool) -> Self {
        let mut followed = Followed { jobset, revisions, wide, printed: BTreeMap::new(), widths: vec![] };
        let (headers, rows) = followed.rows();
        followed.widths = headers.iter().map(|h| h.len()).collect();
        for (name, row) in rows {
            for (w, cell) in followed.widths.iter_mut().zip(&row) {
                *w = (*w).max(cell.chars().count());
            }
            followed.printed.insert(name, without_age(row));
        }
        followed
    }

    fn rows(&self) -> (Vec<&'static str>, Vec<(String, Vec<String>)>) {
        let view = View::new(&self.jobset, self.revisions.clone());
        let (headers, rows) = view.table(self.wide, Timestamp::now());
        let names = view.revisions.iter().map(|r| r.name.clone());
        (headers, names.zip(rows).collect())
    }

    /// The rows that changed since they were printed (with --output-watch-events, led
    /// by ADDED, MODIFIED or DELETED).
    fn changed_rows(&mut self, watching: Watching, deleted: Option<String>) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(row) = deleted.and_then(|name| self.printed.remove(&name)) {
            lines.push(self.line(watching, "DELETED", row));
        }
        for (name, row) in self.rows().1 {
            let key = without_age(row.clone());
            let event = match self.printed.get(&name) {
                Some(printed) if *printed == key => continue,
                Some(_) => "MODIFIED",
                None => "ADDED",
            };
            self.printed.insert(name, key);
            lines.push(self.line(watching, event, row));
        }
        lines
    }

    fn line(&self, watching: Watching, event: &str, mut row: Vec<String>) -> String {
        if watching.events {
            row.insert(0, event.to_owned());
        }
        let offset = usize::from(watching.events);
        let last = row.len().saturating_sub(1);
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let width = if i < offset { 8 } else { self.widths.get(i - offset).copied().unwrap_or(0) };
                if i == last { cell.clone() } else { format!("{cell:<width$}   ") }
            })
            .collect();
        cells.concat().trim_end().to_owned()
    }
}

fn without_age(mut row: Vec<String>) -> Vec<String> {
    if row.len() > CREATED_COLUMN {
        row.remove(CREATED_COLUMN);
    }
    row
}

/// Said once when some JobSet's history is kept only by commands that happen to look
/// at it (no running recorder covers it): what may be missing, and what keeps it all.
pub fn recorder_hint(jobsets: &[JobSet], recorder: Option<&Scope>) -> Option<&'static str> {
    let uncovered = jobsets.iter().any(|js| !recorder.is_some_and(|scope| scope.covers(js)));
    uncovered.then_some(
        "note: without a recorder, history holds only what kubectl-jobset commands saw when they ran \
         (templates and restart attempts in between are missing); `kubectl jobset recorder -A` keeps it \
         complete as it happens",
    )
}

/// Whether `-o` asks for documents, which `run` prints together once every JobSet is read.
fn structured(format: Format) -> bool {
    matches!(format, Format::Json | Format::Yaml)
}

/// `--revision N`: that revision's templates, as text now or as a document for later.
fn show_revision(plan: &HistoryPlan, view: &View, n: i64, out: &mut dyn Write) -> Result<Option<Value>> {
    let revision = select(&view.revisions, n).map_err(|why| bad_revision(view.jobset, &why))?;
    if structured(plan.format) {
        return Ok(Some(to_value(&view.revision_json(revision, true))?));
    }
    write_revision(out, view.jobset, revision)?;
    Ok(None)
}

/// `--diff A,B`: what changed from A to B, as text now or as a document for later.
fn show_diff(
    plan: &HistoryPlan,
    view: &View,
    (a, b): (i64, i64),
    out: &mut dyn Write,
) -> Result<Option<Value>> {
    let from = select(&view.revisions, a).map_err(|why| bad_revision(view.jobset, &why))?;
    let to = select(&view.revisions, b).map_err(|why| bad_revision(view.jobset, &why))?;
    if structured(plan.format) {
        return Ok(Some(to_value(&revision_diff_json(view.jobset, from, to))?));
    }
    write_revision_diff(out, view.jobset, from, to, Palette { color: plan.color })?;
    Ok(None)
}

/// The revisions: a table (headed by the JobSet's name when several are shown or
/// headers are on), names, or a document for later.
fn show_history(
    plan: &HistoryPlan,
    view: &View,
    several: bool,
    out: &mut dyn Write,
) -> Result<Option<Value>> {
    match plan.format {
        Format::Json | Format::Yaml => return Ok(Some(to_value(&view.json())?)),
        Format::Name => {
            for r in &view.revisions {
                writeln!(out, "controllerrevision.apps/{}", r.name)?;
            }
        }
        Format::Table | Format::Wide => {
            let jobset = view.jobset;
            if several || !plan.no_headers {
                let namespace = if plan.selection.namespace.is_none() {
                    format!(" (namespace {})", jobset.namespace())
                } else {
                    String::new()
                };
                writeln!(out, "{RESOURCE_NAME}/{}{namespace}", jobset.name())?;
            }
            view.write_table(out, plan.format == Format::Wide, plan.no_headers, Timestamp::now())?;
        }
    }
    Ok(None)
}

impl View<'_> {
    pub fn write_table(
        &self,
        out: &mut dyn Write,
        wide: bool,
        no_headers: bool,
        now: Timestamp,
    ) -> Result<()> {
        let (headers, rows) = self.table(wide, now);
        write_table(out, &headers, &rows, no_headers)?;
        let unobserved = self.unobserved();
        if !unobserved.is_empty() && !no_headers {
            writeln!(out, "attempts never observed by kubectl-jobset: {}", format_attempts(&unobserved))?;
        }
        Ok(())
    }

    /// Headers and rows of the revision table, in revision order.
    pub fn table(&self, wide: bool, now: Timestamp) -> (Vec<&'static str>, Vec<Vec<String>>) {
        let mut headers = vec!["REVISION", "STATE", "RESTART-ATTEMPTS", "CREATED", "IMAGES", "CHANGE-CAUSE"];
        if wide {
            headers.extend(["NAME", "SOURCE", "REPLICATED-JOBS"]);
        }
        let rows: Vec<Vec<String>> = self
            .revisions
            .iter()
            .map(|r| {
                let mut row = vec![
                    r.number.to_string(),
                    self.state(r).to_owned(),
                    if r.attempts.is_empty() { "<none>".into() } else { format_attempts(&r.attempts) },
                    format_age(r.recorded_at.as_deref().and_then(|t| t.parse().ok()), now),
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

    pub fn revision_json(&self, r: &Revision, with_templates: bool) -> RevisionDocument {
        RevisionDocument::new(r, self.spec == Some(r.number), self.is_running(r.number), with_templates)
    }

    pub fn json(&self) -> HistoryDocument {
        HistoryDocument {
            kind: HistoryDocument::KIND.to_owned(),
            api_version: API_VERSION.to_owned(),
            namespace: self.jobset.namespace().to_owned(),
            name: self.jobset.name().to_owned(),
            attempt: self.jobset.attempt(),
            spec_revision: self.spec,
            running_revision: self.running,
            unobserved_attempts: self.unobserved(),
            revisions: self.revisions.iter().map(|r| self.revision_json(r, false)).collect(),
        }
    }
}

/// `workers: parallelism=2 completions=2 trainer=app:v1 limits(cpu=2,memory=1Gi)`
pub fn replicated_job_details(name: &str, template: &Value) -> String {
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

fn write_revision(out: &mut dyn Write, jobset: &JobSet, r: &Revision) -> Result<()> {
    writeln!(out, "{RESOURCE_NAME}/{} with revision #{}", jobset.name(), r.number)?;
    for line in yaml_lines(&data(&r.templates)) {
        writeln!(out, "{}", line.text)?;
    }
    Ok(())
}

/// Changes from one revision to another, per replicatedJob.
pub fn revision_changes(from: &Revision, to: &Revision) -> Vec<(String, Vec<Change>)> {
    unique_in_order(from.templates.iter().chain(&to.templates).map(|(n, _)| n))
        .into_iter()
        .map(|name| (name.clone(), changes(&from.template(name), &to.template(name))))
        .filter(|(_, c)| !c.is_empty())
        .collect()
}

/// `workers: image app:v1 → app:v2`, or the path for anything else.
pub fn summary_line(rjob: &str, change: &Change) -> String {
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
    format!("{rjob}: {}", crate::diff::changes::describe(change))
}

fn write_revision_diff(
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

fn revision_diff_json(jobset: &JobSet, from: &Revision, to: &Revision) -> RevisionDiffDocument {
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

/// Parses `A,B` for `--diff`.
pub fn parse_revision_pair(text: &str) -> std::result::Result<(i64, i64), String> {
    let bad = || format!("--diff {text:?}: use two revisions, e.g. --diff 1,2 or --diff -2,-1");
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    Ok((a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
        let ml = Scope { namespaces: vec!["ml".into()], selector: None };
        assert!(recorder_hint(&[jobset("ml")], None).unwrap().contains("kubectl jobset recorder -A"));
        assert_eq!(recorder_hint(&[jobset("ml")], Some(&ml)), None);
        assert!(recorder_hint(&[jobset("ml"), jobset("other")], Some(&ml)).is_some());
    }

    #[test]
    fn revision_pairs() {
        assert_eq!(parse_revision_pair("1,2"), Ok((1, 2)));
        assert_eq!(parse_revision_pair("-2, -1"), Ok((-2, -1)));
        assert!(parse_revision_pair("1").is_err());
        assert!(parse_revision_pair("a,b").is_err());
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
        let history = json_text(&view.json());
        // The whole document, in src/commands/snapshots/ (too long to keep inline).
        insta::assert_snapshot!("history_document", history);
        assert_eq!(serde_json::from_str::<HistoryDocument>(&history).unwrap(), view.json());
    }

    #[test]
    fn a_revision_document_carries_its_templates() {
        let (jobset, revisions) = history_fixture();
        let view = View::new(&jobset, revisions);
        let revision = json_text(&view.revision_json(&view.revisions[0], true));
        let parsed: RevisionDocument = serde_json::from_str(&revision).unwrap();
        assert_eq!(parsed, view.revision_json(&view.revisions[0], true));
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
        let diff = json_text(&revision_diff_json(&jobset, &view.revisions[0], &view.revisions[1]));
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
