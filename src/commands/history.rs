//! `kubectl jobset history`: the recorded template revisions per restart attempt.
//! Observes the JobSets (recording what it sees only with --record: otherwise what
//! nobody recorded is shown as recording would leave it), picks the revisions asked for, and
//! prints them through `render::history`; `-w` then follows one JobSet by watch.

use std::io::Write;

use futures::StreamExt;
use jiff::Timestamp;
use kube::runtime::watcher;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::cluster::watch::{FleetUpdate, FleetWatch, watch_fleet};
use crate::commands::Watching;
use crate::diff::unified::Palette;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::history::deleted::DeletedHistory;
use crate::history::{JOBSET_LABEL, Revision, View, bad_revision, select};
use crate::model::jobset::JobSet;
use crate::observe::{Observed, RecordOptions, Recorder, observe_or_deleted_to_read};
use crate::render::documents::to_value;
use crate::render::history::{self as rendered, CREATED, recorder_hint};
use crate::render::watch::{Seen, WatchEvent, WatchTable};
use crate::render::{self, Format};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct HistoryPlan {
    pub selection: Selection,
    /// `--revision N`: print that revision's templates.
    pub revision: Option<i64>,
    /// `--diff A,B`: what changed from A to B.
    pub diff: Option<(i64, i64)>,
    pub format: Format,
    /// `-o jsonpath=…` / `custom-columns=…`: applied to the documents `-o json` prints
    /// (`format` is then Json).
    pub printer: Option<crate::render::printers::Printer>,
    pub no_headers: bool,
    pub color: bool,
    pub history_limit: usize,
    /// `--record` (or KUBECTL_JOBSET_RECORD): write the history seen, as write verbs do.
    /// Otherwise nothing is written: the history shown is what recording would leave.
    pub record: bool,
    /// `-w`: then print revisions as they are recorded (one JobSet, as a table).
    pub watch: Option<Watching>,
}

pub async fn run(
    cluster: &Cluster,
    plan: &HistoryPlan,
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
    let Some(Observed { fleet, histories, recorder, drifts, .. }) =
        observe_or_deleted_to_read(cluster, &plan.selection, Some(&options), err).await?
    else {
        return Ok(ExitStatus::Success);
    };
    if let Some(hint) = recorder_hint(&fleet.jobsets, recorder.as_ref()) {
        writeln!(err, "{hint}")?;
    }
    let mut documents = Vec::new();
    let several = fleet.jobsets.len() + fleet.deleted.len() > 1;
    for (jobset, drift) in fleet.jobsets.iter().zip(&drifts) {
        let revisions = histories.get(jobset.uid()).cloned().unwrap_or_default();
        if revisions.is_empty() {
            writeln!(err, "No history recorded for jobset {}/{}", jobset.namespace(), jobset.name())?;
            continue;
        }
        if let Some(mixed) = crate::diff::mixed_words(drift) {
            writeln!(err, "warning: jobset {}/{} {mixed}", jobset.namespace(), jobset.name())?;
        }
        if let Some(staged) = &drift.staged {
            let cause = staged.cause.as_deref().map(|c| format!(" ({c})")).unwrap_or_default();
            writeln!(
                err,
                "jobset {}/{}: a change is staged for the next restart in controllerrevision {}{cause}, changing \
                 {}; it becomes a revision when a restart applies it (`diff` shows it)",
                jobset.namespace(),
                jobset.name(),
                staged.revision,
                staged.replicated_jobs.join(", ")
            )?;
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
    documents.extend(show_deleted(plan, &fleet.deleted, several, out, err)?);
    if histories.values().flatten().any(|r| r.unrecorded) {
        writeln!(err, "{}", rendered::UNRECORDED_NOTE)?;
    }
    match (&plan.printer, documents.is_empty()) {
        (Some(printer), _) => write_printed(out, printer, documents, plan.no_headers)?,
        (None, false) => render::write_documents(out, plan.format, documents)?,
        (None, true) => {}
    }
    if plan.watch.is_some() && fleet.jobsets.is_empty() {
        writeln!(err, "not watching: the jobset was deleted (its kept history is above)")?;
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
        jobset_fields: None,
        jobs: None,
        revisions: Some(format!("{JOBSET_LABEL}={}", jobset.name())),
    };
    let mut stream = Box::pin(watch_fleet(cluster, what));
    let mut followed = Followed::new(jobset, revisions, wide, watching.events);
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
        for line in followed.changed_rows(deleted) {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    Err(Error::Wait("the watch ended unexpectedly".into()))
}

/// A watched JobSet's revisions, and the rows printed for them.
struct Followed {
    jobset: JobSet,
    revisions: Vec<Revision>,
    wide: bool,
    /// Rows by revision name; the first table is the one `show_history` printed.
    rows: WatchTable<String>,
}

impl Followed {
    fn new(jobset: JobSet, revisions: Vec<Revision>, wide: bool, events: bool) -> Self {
        let (headers, keyed) = keyed_rows(&jobset, &revisions, wide);
        let first: Vec<Vec<String>> = keyed.iter().map(|(_, row)| row.clone()).collect();
        let mut rows = WatchTable::new(&headers, CREATED, &first, events);
        for (name, row) in keyed {
            rows.record(name, &row);
        }
        Followed { jobset, revisions, wide, rows }
    }

    /// The rows that changed since they were printed, and the row of a revision deleted.
    fn changed_rows(&mut self, deleted: Option<String>) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(row) = deleted.and_then(|name| self.rows.forget(&name)) {
            lines.push(self.rows.line(WatchEvent::Deleted, &row));
        }
        for (name, row) in keyed_rows(&self.jobset, &self.revisions, self.wide).1 {
            let event = match self.rows.record(name, &row) {
                Seen::Same => continue,
                Seen::Changed => WatchEvent::Modified,
                Seen::New => WatchEvent::Added,
            };
            lines.push(self.rows.line(event, &row));
        }
        lines
    }
}

/// The revision table's headers, and its rows by revision name.
fn keyed_rows(
    jobset: &JobSet,
    revisions: &[Revision],
    wide: bool,
) -> (Vec<&'static str>, Vec<(String, Vec<String>)>) {
    let view = View::new(jobset, revisions.to_vec());
    let (headers, rows) = rendered::revisions_table(&view, wide, Timestamp::now());
    let names = view.revisions.iter().map(|r| r.name.clone());
    (headers, names.zip(rows).collect())
}

/// The kept histories of deleted JobSets, as for a live one: the table headed by what is
/// known of the deletion, `--revision N` and `--diff A,B` (of the newest of a name used
/// several times, said on `err`), or documents carrying the deletion. Documents for later.
fn show_deleted(
    plan: &HistoryPlan,
    deleted: &[DeletedHistory],
    several: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Vec<Value>> {
    let now = Timestamp::now();
    let mut documents = Vec::new();
    let picks_one = plan.revision.is_some() || plan.diff.is_some();
    for (i, history) in deleted.iter().enumerate() {
        let newest_of_name =
            deleted[..i].iter().all(|h| (&h.namespace, &h.name) != (&history.namespace, &history.name));
        if picks_one && !newest_of_name {
            continue;
        }
        let stand_in = history.stand_in();
        let mut view = View::new(&stand_in, history.revisions.clone());
        // Nothing is in a spec, and nothing runs.
        (view.spec, view.running) = (None, None);
        if picks_one {
            let others: Vec<&str> = deleted
                .iter()
                .filter(|h| {
                    (&h.namespace, &h.name) == (&history.namespace, &history.name) && h.uid != history.uid
                })
                .map(|h| h.uid.as_str())
                .collect();
            if !others.is_empty() {
                writeln!(
                    err,
                    "note: jobset {}/{} was deleted {} times; this is the newest's history (uid {}); the others' \
                     (uid {}) are listed by `{}`",
                    history.namespace,
                    history.name,
                    others.len() + 1,
                    history.uid,
                    others.join(", "),
                    crate::hint::kubectl_jobset(&format!("history {}", history.name), &history.namespace)
                )?;
            }
        }
        let document = if let Some(n) = plan.revision {
            show_revision(plan, &view, n, out)?
        } else if let Some(pair) = plan.diff {
            show_diff(plan, &view, pair, out)?
        } else {
            match plan.format {
                Format::Json | Format::Yaml => {
                    Some(to_value(&rendered::deleted_history_document(&view, history))?)
                }
                Format::Name => {
                    rendered::write_names(out, &view)?;
                    None
                }
                Format::Table | Format::Wide => {
                    if several || !plan.no_headers {
                        rendered::write_deleted_heading(
                            out,
                            history,
                            plan.selection.namespace.is_none(),
                            now,
                        )?;
                    }
                    rendered::write_revisions(out, &view, plan.format == Format::Wide, plan.no_headers, now)?;
                    None
                }
            }
        };
        documents.extend(document);
    }
    Ok(documents)
}

/// `-o jsonpath=`/`go-template=`: the template over what `-o json` prints (one document,
/// or a List of them); `-o custom-columns=`: one row per revision (or per document without any).
fn write_printed(
    out: &mut dyn Write,
    printer: &crate::render::printers::Printer,
    mut documents: Vec<Value>,
    no_headers: bool,
) -> Result<()> {
    let rows: Vec<Value> = documents
        .iter()
        .flat_map(|d| match d.get("revisions").and_then(Value::as_array) {
            Some(revisions) => revisions.clone(),
            None => vec![d.clone()],
        })
        .collect();
    let document = if documents.len() == 1 { documents.remove(0) } else { render::as_list(documents) };
    printer.write(out, &document, &rows, no_headers)
}

/// Whether `-o` asks for documents, which `run` prints together once every JobSet is read.
fn structured(format: Format) -> bool {
    matches!(format, Format::Json | Format::Yaml)
}

/// `--revision N`: that revision's templates, as text now or as a document for later.
fn show_revision(plan: &HistoryPlan, view: &View, n: i64, out: &mut dyn Write) -> Result<Option<Value>> {
    let revision = select(&view.revisions, n).map_err(|why| bad_revision(view.jobset, &why))?;
    if structured(plan.format) {
        return Ok(Some(to_value(&rendered::revision_document(view, revision, true))?));
    }
    rendered::write_revision(out, view.jobset, revision)?;
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
        return Ok(Some(to_value(&rendered::revision_diff_document(view.jobset, from, to))?));
    }
    rendered::write_revision_diff(out, view.jobset, from, to, Palette { color: plan.color })?;
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
        Format::Json | Format::Yaml => return Ok(Some(to_value(&rendered::history_document(view))?)),
        Format::Name => rendered::write_names(out, view)?,
        Format::Table | Format::Wide => {
            if several || !plan.no_headers {
                rendered::write_heading(out, view.jobset, plan.selection.namespace.is_none())?;
            }
            let wide = plan.format == Format::Wide;
            rendered::write_revisions(out, view, wide, plan.no_headers, Timestamp::now())?;
        }
    }
    Ok(None)
}
