//! `kubectl jobset list`: JobSets with restart attempt, Job counts and status; `-w`
//! follows them by watch and prints their rows again as they change.

use std::io::Write;

use std::collections::BTreeMap;

use futures::StreamExt;
use jiff::Timestamp;
use kube::runtime::watcher;
use serde_json::Value;

use crate::cluster::Cluster;
use crate::cluster::watch::{FleetUpdate, FleetWatch, watch_fleet};
use crate::commands::Watching;
use crate::error::{Error, Result};
use crate::exit::ExitStatus;
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME, labels};
use crate::model::summary::{Summary, summarize};
use crate::observe::Fleet;
use crate::observe::fleet;
use crate::render::watch::{self as watched, Seen, WatchEvent, WatchTable};
use crate::render::{self, Format, list, table::write_table};
use crate::select::Selection;

pub use crate::render::printers::Printer;

#[derive(Debug, Clone)]
pub struct ListPlan {
    pub selection: Selection,
    pub format: Format,
    /// `-o jsonpath=` or `-o custom-columns=` (then `format` is unused).
    pub printer: Option<Printer>,
    /// `--sort-by`: the order of the JobSets, by the value at this path.
    pub sort_by: Option<crate::render::printers::Path>,
    /// `--show-labels`, `-L`: label columns added to the table.
    pub show_labels: bool,
    pub label_columns: Vec<String>,
    pub no_headers: bool,
    /// `-w`: then print rows as they change.
    pub watch: Option<Watching>,
}

pub async fn run(
    cluster: &Cluster,
    plan: &ListPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    if let Some(watching) = plan.watch {
        return watch(cluster, plan, watching, out, err).await;
    }
    let mut fleet = fleet::load(cluster, &plan.selection).await?;
    if let Some(path) = &plan.sort_by {
        let objects: Vec<Value> = fleet.jobsets.iter().map(JobSet::object).collect();
        let order = crate::render::printers::sort_order(path, &objects);
        let mut jobsets: Vec<Option<JobSet>> =
            std::mem::take(&mut fleet.jobsets).into_iter().map(Some).collect();
        fleet.jobsets = order.into_iter().filter_map(|i| jobsets[i].take()).collect();
    }
    let mut summaries: Vec<Summary> = fleet
        .jobsets
        .iter()
        .map(|js| summarize_with_mixed(js, fleet.jobs_of(js)).with_kueue(fleet.kueue_of(js).as_ref()))
        .collect();
    if fleet.jobsets.is_empty() && fleet.missing.is_empty() {
        fleet::write_nothing_found(err, &plan.selection)?;
    } else if let Some(printer) = &plan.printer {
        write_printed(out, plan, &fleet.jobsets, printer)?;
    } else {
        match plan.format {
            Format::Table | Format::Wide => {
                let all_namespaces = plan.selection.namespace.is_none();
                let (headers, mut rows) =
                    list::table(&summaries, all_namespaces, plan.format == Format::Wide, Timestamp::now());
                let mut headers: Vec<String> = headers.into_iter().map(str::to_owned).collect();
                add_label_columns(plan, &fleet.jobsets, &mut headers, &mut rows);
                // The rows are all that is printed: the objects go before the table is laid
                // out (it copies every cell), so a fleet and its table are never held at once.
                fleet.drop_objects();
                summaries = Vec::new();
                let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
                write_table(out, &headers, &rows, plan.no_headers)?;
            }
            Format::Name => {
                for s in &summaries {
                    writeln!(out, "{RESOURCE_NAME}/{}", s.name)?;
                }
            }
            // As `kubectl get`: one JobSet asked for by name is the object, else a List.
            Format::Json | Format::Yaml => {
                let mut items: Vec<Value> = fleet.jobsets.iter().map(JobSet::object).collect();
                let document = match (plan.selection.names.len(), items.len()) {
                    (1, 1) => items.remove(0),
                    _ => render::as_list(items),
                };
                render::write_structured(out, plan.format, &document)?
            }
        }
    }
    if !fleet.missing.is_empty() {
        return Err(fleet::not_found(
            &fleet.missing,
            plan.selection.namespace.as_deref().unwrap_or_default(),
        ));
    }
    crate::exit::leave((fleet, summaries));
    Ok(ExitStatus::Success)
}

/// `-o jsonpath=`/`go-template=`: the template applied to the object (one JobSet by
/// name) or the List, as `kubectl get`; `-o custom-columns=`: a table of the paths.
fn write_printed(out: &mut dyn Write, plan: &ListPlan, jobsets: &[JobSet], printer: &Printer) -> Result<()> {
    let objects: Vec<Value> = jobsets.iter().map(|js| render::without_managed_fields(js.object())).collect();
    let document = match (plan.selection.names.len(), objects.as_slice()) {
        (1, [one]) => one.clone(),
        _ => render::as_list(objects.clone()),
    };
    printer.write(out, &document, &objects, plan.no_headers)
}

/// `--show-labels` (LABELS: `k=v,…`) and `-L KEY` (a column per key, headed by the key
/// upper-cased, as kubectl heads them).
fn add_label_columns(
    plan: &ListPlan,
    jobsets: &[JobSet],
    headers: &mut Vec<String>,
    rows: &mut [Vec<String>],
) {
    for key in &plan.label_columns {
        let header = key.rsplit('/').next().unwrap_or(key).to_uppercase();
        headers.push(header);
        for (row, jobset) in rows.iter_mut().zip(jobsets) {
            let value = jobset.metadata.labels.as_ref().and_then(|l| l.get(key)).cloned().unwrap_or_default();
            row.push(value);
        }
    }
    if plan.show_labels {
        headers.push("LABELS".into());
        for (row, jobset) in rows.iter_mut().zip(jobsets) {
            let labels: Vec<String> =
                jobset.metadata.labels.iter().flatten().map(|(k, v)| format!("{k}={v}")).collect();
            row.push(if labels.is_empty() { "<none>".into() } else { labels.join(",") });
        }
    }
}

/// `list -w`: the JobSets and their Jobs by two watches; the table once both have
/// listed, then a row whenever a JobSet's row changes (as `kubectl get -w`).
async fn watch(
    cluster: &Cluster,
    plan: &ListPlan,
    watching: Watching,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
    let namespace = plan.selection.namespace.as_deref();
    let single = match plan.selection.names.as_slice() {
        [name] => Some(name.as_str()),
        _ => None,
    };
    let what = FleetWatch {
        namespace,
        jobset_selector: plan.selection.label_selector.as_deref(),
        name: single,
        jobset_fields: plan.selection.field_selector.as_deref(),
        jobs: Some(labels::JOBSET_NAME.to_owned()),
        revisions: None,
    };
    let mut stream = Box::pin(watch_fleet(cluster, what));
    let mut state = WatchedFleet::default();
    // None until both watches have listed, when the first table is printed.
    let mut printer: Option<RowPrinter> = None;
    let (mut jobsets_synced, mut jobs_synced) = (false, false);
    while let Some(update) = stream.next().await {
        let update = match update {
            Ok(update) => update,
            Err(Error::Timeout { .. }) => continue,
            Err(e) => return Err(e),
        };
        let changed = match update {
            FleetUpdate::JobSet(watcher::Event::InitDone) => {
                jobsets_synced = true;
                None
            }
            FleetUpdate::Job(watcher::Event::InitDone) => {
                jobs_synced = true;
                None
            }
            update => state.apply(update),
        };
        let Some(printer) = printer.as_mut() else {
            if jobsets_synced && jobs_synced {
                let keys: Vec<Key> = state.jobsets.keys().filter(|k| plan.wants(&k.1)).cloned().collect();
                if keys.is_empty() {
                    fleet::write_nothing_found(err, &plan.selection)?;
                }
                let all_namespaces = namespace.is_none();
                printer = Some(RowPrinter::first(out, plan, watching, all_namespaces, &state, &keys)?);
            }
            continue;
        };
        if let Some((key, event)) = changed.filter(|(k, _)| plan.wants(&k.1)) {
            printer.change(out, &mut state, &key, event)?;
        }
    }
    Err(Error::Wait("the watch ended unexpectedly".into()))
}

impl ListPlan {
    /// Whether a JobSet of this name is among the ones asked for.
    fn wants(&self, name: &str) -> bool {
        self.selection.names.is_empty() || self.selection.names.iter().any(|n| n == name)
    }
}

/// `(namespace, name)` of a JobSet.
type Key = (String, String);

/// The JobSets and Jobs the watches have shown.
#[derive(Default)]
struct WatchedFleet {
    jobsets: BTreeMap<Key, JobSet>,
    jobs: BTreeMap<Key, BTreeMap<String, ChildJob>>,
    /// The last state of JobSets just deleted, for their DELETED row.
    deleted: BTreeMap<Key, Summary>,
}

impl WatchedFleet {
    /// Applies one update; the JobSet whose row it may change, and how.
    fn apply(&mut self, update: FleetUpdate) -> Option<(Key, WatchEvent)> {
        let key_of = |js: &JobSet| (js.namespace().to_owned(), js.name().to_owned());
        match update {
            FleetUpdate::JobSet(watcher::Event::Init) => self.jobsets.clear(),
            FleetUpdate::JobSet(watcher::Event::InitApply(js)) => {
                self.jobsets.insert(key_of(&js), js);
            }
            FleetUpdate::JobSet(watcher::Event::Apply(js)) => {
                let key = key_of(&js);
                let event =
                    if self.jobsets.contains_key(&key) { WatchEvent::Modified } else { WatchEvent::Added };
                self.jobsets.insert(key.clone(), js);
                return Some((key, event));
            }
            FleetUpdate::JobSet(watcher::Event::Delete(js)) => {
                let key = key_of(&js);
                if let Some(summary) = self.summary(&key) {
                    self.deleted.insert(key.clone(), summary);
                }
                self.jobsets.remove(&key);
                return Some((key, WatchEvent::Deleted));
            }
            FleetUpdate::Job(watcher::Event::Init) => self.jobs.clear(),
            FleetUpdate::Job(
                event @ (watcher::Event::InitApply(_) | watcher::Event::Apply(_) | watcher::Event::Delete(_)),
            ) => {
                let (job, deleted, live) = match event {
                    watcher::Event::Delete(job) => (job, true, false),
                    watcher::Event::Apply(job) => (job, false, true),
                    watcher::Event::InitApply(job) => (job, false, false),
                    _ => return None,
                };
                let owner = job.label(labels::JOBSET_NAME)?.to_owned();
                let key = (job.metadata.namespace.clone().unwrap_or_default(), owner);
                let jobs = self.jobs.entry(key.clone()).or_default();
                if deleted {
                    jobs.remove(job.name());
                } else {
                    jobs.insert(job.name().to_owned(), job);
                }
                if (live || deleted) && self.jobsets.contains_key(&key) {
                    return Some((key, WatchEvent::Modified));
                }
            }
            _ => {}
        }
        None
    }

    fn summary(&self, key: &Key) -> Option<Summary> {
        let jobset = self.jobsets.get(key)?;
        let jobs: Vec<ChildJob> =
            self.jobs.get(key).map(|j| j.values().cloned().collect()).unwrap_or_default();
        let fleet = Fleet::new(vec![jobset.clone()], jobs, vec![]);
        // Workloads are not watched: Kueue is known here by the queue label.
        let kueue = crate::model::kueue::Kueue::of(jobset, &[]);
        Some(summarize_with_mixed(jobset, fleet.jobs_of(jobset)).with_kueue(kueue.as_ref()))
    }
}

/// Prints the first table (or objects), then each JobSet whose row changed.
struct RowPrinter<'a> {
    plan: &'a ListPlan,
    watching: Watching,
    all_namespaces: bool,
    /// The rows as printed, and the first table's column widths.
    rows: WatchTable<Key>,
}

impl<'a> RowPrinter<'a> {
    /// Prints the JobSets of `keys` as the first table (or objects) and remembers their rows.
    fn first(
        out: &mut dyn Write,
        plan: &'a ListPlan,
        watching: Watching,
        all_namespaces: bool,
        state: &WatchedFleet,
        keys: &[Key],
    ) -> Result<Self> {
        let summaries: Vec<Summary> = keys.iter().filter_map(|k| state.summary(k)).collect();
        let wide = plan.format == Format::Wide;
        let (headers, rows) = list::table(&summaries, all_namespaces, wide, Timestamp::now());
        let mut printer = RowPrinter {
            plan,
            watching,
            all_namespaces,
            rows: WatchTable::new(&headers, list::AGE, &rows, watching.events)
                .reserve("STATUS", list::WIDEST_STATUS.len())
                .reserve(list::AGE, "5m10s".len()),
        };
        for (key, row) in keys.iter().zip(&rows) {
            printer.rows.record(key.clone(), row);
        }
        match plan.format {
            Format::Table | Format::Wide => {
                if !summaries.is_empty() {
                    if !plan.no_headers {
                        writeln!(out, "{}", printer.rows.header_line())?;
                    }
                    for row in &rows {
                        writeln!(out, "{}", printer.rows.line(WatchEvent::Added, row))?;
                    }
                }
            }
            _ => {
                for key in keys {
                    printer.object(out, state, key, WatchEvent::Added)?;
                }
            }
        }
        out.flush()?;
        Ok(printer)
    }

    /// A JobSet's table row.
    fn row(&self, summary: &Summary) -> Vec<String> {
        let wide = self.plan.format == Format::Wide;
        let (_, rows) =
            list::table(std::slice::from_ref(summary), self.all_namespaces, wide, Timestamp::now());
        rows.into_iter().next().unwrap_or_default()
    }

    /// A JobSet's row (or object) again, if its row changed since it was last printed.
    fn change(
        &mut self,
        out: &mut dyn Write,
        state: &mut WatchedFleet,
        key: &Key,
        event: WatchEvent,
    ) -> Result<()> {
        let summary = match event {
            WatchEvent::Deleted => {
                self.rows.forget(key);
                state.deleted.remove(key)
            }
            _ => state.summary(key),
        };
        let Some(summary) = summary else { return Ok(()) };
        let row = self.row(&summary);
        // An ADDED row is printed even when it is the one printed last (created again).
        if event != WatchEvent::Deleted
            && self.rows.record(key.clone(), &row) == Seen::Same
            && event == WatchEvent::Modified
        {
            return Ok(());
        }
        match self.plan.format {
            Format::Table | Format::Wide => writeln!(out, "{}", self.rows.line(event, &row))?,
            _ => self.object(out, state, key, event)?,
        }
        out.flush()?;
        Ok(())
    }

    /// `-o name|json|yaml`: the JobSet, as `kubectl get -w -o ...` prints it.
    fn object(&self, out: &mut dyn Write, state: &WatchedFleet, key: &Key, event: WatchEvent) -> Result<()> {
        let event = self.watching.events.then_some(event);
        if self.plan.format == Format::Name {
            return watched::write_name(out, event, &key.1);
        }
        // A deleted JobSet has left the state: -o json|yaml has no object to print.
        let Some(jobset) = state.jobsets.get(key) else { return Ok(()) };
        watched::write_object(out, self.plan.format, event, jobset.object())
    }
}

/// A JobSet's row, with whether its current attempt runs mixed templates.
fn summarize_with_mixed(jobset: &JobSet, jobs: &[ChildJob]) -> Summary {
    summarize(jobset, jobs).with_mixed(crate::diff::runs_mixed_templates(jobset, jobs))
}
