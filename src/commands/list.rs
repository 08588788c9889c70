//! `kubectl jobset list`: JobSets with restart attempt, Job counts and status.

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
use crate::error::Result;
use crate::exit::ExitStatus;
use crate::model::jobset::{ChildJob, JobSet, RESOURCE_NAME, labels};
use crate::model::summary::{Summary, summarize};
use crate::observe::Fleet;
use crate::observe::fleet;
use crate::render::{self, Format, table::write_table};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct ListPlan {
    pub selection: Selection,
    pub format: Format,
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
    let fleet = fleet::load(cluster, &plan.selection).await?;
    let summaries: Vec<Summary> = fleet.jobsets.iter().map(|js| summarize(js, fleet.jobs_of(js))).collect();
    if fleet.jobsets.is_empty() && fleet.missing.is_empty() {
        fleet::write_nothing_found(err, &plan.selection)?;
    } else {
        match plan.format {
            Format::Table | Format::Wide => {
                let all_namespaces = plan.selection.namespace.is_none();
                let (headers, rows) =
                    table(&summaries, all_namespaces, plan.format == Format::Wide, Timestamp::now());
                write_table(out, &headers, &rows, plan.no_headers)?;
            }
            Format::Name => {
                for s in &summaries {
                    writeln!(out, "{RESOURCE_NAME}/{}", s.name)?;
                }
            }
            Format::Json | Format::Yaml => {
                let items: Vec<Value> = fleet.jobsets.iter().map(JobSet::object).collect();
                render::write_structured(out, plan.format, &render::as_list(items))?
            }
        }
    }
    if !fleet.missing.is_empty() {
        return Err(fleet::not_found(
            &fleet.missing,
            plan.selection.namespace.as_deref().unwrap_or_default(),
        ));
    }
    Ok(ExitStatus::Success)
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
        jobs: Some(labels::JOBSET_NAME.to_owned()),
        revisions: None,
    };
    let mut stream = Box::pin(watch_fleet(cluster, what));
    let mut state = WatchedFleet::default();
    let mut printer = RowPrinter { plan, watching, widths: vec![], all_namespaces: namespace.is_none() };
    let (mut jobsets_synced, mut jobs_synced, mut listed) = (false, false, false);
    while let Some(update) = stream.next().await {
        let update = match update {
            Ok(update) => update,
            Err(crate::error::Error::Timeout { .. }) => continue,
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
        if !listed && jobsets_synced && jobs_synced {
            listed = true;
            let keys: Vec<Key> = state.jobsets.keys().filter(|k| plan.wants(&k.1)).cloned().collect();
            if keys.is_empty() {
                fleet::write_nothing_found(err, &plan.selection)?;
            }
            printer.first(out, &mut state, &keys)?;
            continue;
        }
        if let Some((key, event)) = changed.filter(|(k, _)| listed && plan.wants(&k.1)) {
            printer.change(out, &mut state, &key, event)?;
        }
    }
    Err(crate::error::Error::Wait("the watch ended unexpectedly".into()))
}

impl ListPlan {
    /// Whether a JobSet of this name is among the ones asked for.
    fn wants(&self, name: &str) -> bool {
        self.selection.names.is_empty() || self.selection.names.iter().any(|n| n == name)
    }
}

/// `(namespace, name)` of a JobSet.
type Key = (String, String);

/// What a watch event did to a JobSet's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WatchEvent {
    Added,
    Modified,
    Deleted,
}

impl WatchEvent {
    fn word(self) -> &'static str {
        match self {
            WatchEvent::Added => "ADDED",
            WatchEvent::Modified => "MODIFIED",
            WatchEvent::Deleted => "DELETED",
        }
    }
}

/// The JobSets and Jobs the watches have shown, and the last row printed per JobSet.
#[derive(Default)]
struct WatchedFleet {
    jobsets: BTreeMap<Key, JobSet>,
    jobs: BTreeMap<Key, BTreeMap<String, ChildJob>>,
    /// Rows as printed, without AGE (it changes with time, not with the JobSet).
    printed: BTreeMap<Key, Vec<String>>,
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
        Some(summarize(jobset, fleet.jobs_of(jobset)))
    }
}

/// Prints the first table, then rows padded to its column widths.
struct RowPrinter<'a> {
    plan: &'a ListPlan,
    watching: Watching,
    widths: Vec<usize>,
    all_namespaces: bool,
}

impl RowPrinter<'_> {
    fn first(&mut self, out: &mut dyn Write, state: &mut WatchedFleet, keys: &[Key]) -> Result<()> {
        let summaries: Vec<Summary> = keys.iter().filter_map(|k| state.summary(k)).collect();
        for (key, summary) in keys.iter().zip(&summaries) {
            state.printed.insert(key.clone(), self.row(summary, false));
        }
        match self.plan.format {
            Format::Table | Format::Wide => {
                let (mut headers, mut rows) = table(
                    &summaries,
                    self.all_namespaces,
                    self.plan.format == Format::Wide,
                    Timestamp::now(),
                );
                if self.watching.events {
                    headers.insert(0, "EVENT");
                    for row in &mut rows {
                        row.insert(0, "ADDED".into());
                    }
                }
                self.widths = headers.iter().map(|h| h.len()).collect();
                if self.watching.events {
                    self.widths[0] = WatchEvent::Modified.word().len();
                }
                for row in &rows {
                    for (w, cell) in self.widths.iter_mut().zip(row) {
                        *w = (*w).max(cell.chars().count());
                    }
                }
                if !summaries.is_empty() {
                    if !self.plan.no_headers {
                        let headers: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
                        writeln!(out, "{}", self.padded(&headers))?;
                    }
                    for row in &rows {
                        writeln!(out, "{}", self.padded(row))?;
                    }
                }
            }
            _ => {
                for key in keys {
                    self.object(out, state, key, WatchEvent::Added)?;
                }
            }
        }
        out.flush()?;
        Ok(())
    }

    /// A JobSet's table row, with or without its AGE cell.
    fn row(&self, summary: &Summary, with_age: bool) -> Vec<String> {
        let wide = self.plan.format == Format::Wide;
        let (headers, rows) =
            table(std::slice::from_ref(summary), self.all_namespaces, wide, Timestamp::now());
        let mut row = rows.into_iter().next().unwrap_or_default();
        if !with_age && let Some(age) = headers.iter().position(|h| *h == "AGE") {
            row.remove(age);
        }
        row
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
                state.printed.remove(key);
                state.deleted.remove(key)
            }
            _ => state.summary(key),
        };
        let Some(summary) = summary else { return Ok(()) };
        if event != WatchEvent::Deleted {
            let row = self.row(&summary, false);
            if state.printed.get(key) == Some(&row) && event == WatchEvent::Modified {
                return Ok(());
            }
            state.printed.insert(key.clone(), row);
        }
        match self.plan.format {
            Format::Table | Format::Wide => {
                let mut row = self.row(&summary, true);
                if self.watching.events {
                    row.insert(0, event.word().into());
                }
                writeln!(out, "{}", self.padded(&row))?;
            }
            _ => self.object(out, state, key, event)?,
        }
        out.flush()?;
        Ok(())
    }

    /// `-o name|json|yaml`: the JobSet, as `kubectl get -w -o ...` prints it.
    fn object(&self, out: &mut dyn Write, state: &WatchedFleet, key: &Key, event: WatchEvent) -> Result<()> {
        if self.plan.format == Format::Name {
            let prefix = if self.watching.events { format!("{}\t", event.word()) } else { String::new() };
            return Ok(writeln!(out, "{prefix}{RESOURCE_NAME}/{}", key.1)?);
        }
        let Some(jobset) = state.jobsets.get(key) else { return Ok(()) };
        let object = render::without_managed_fields(jobset.object());
        let document = if self.watching.events {
            serde_json::json!({"type": event.word(), "object": object})
        } else {
            object
        };
        if self.plan.format == Format::Yaml {
            writeln!(out, "---")?;
        }
        render::write_structured(out, self.plan.format, &document)
    }

    /// Cells padded to the first table's widths, three spaces apart, as `write_table` does.
    fn padded(&self, row: &[String]) -> String {
        let last = row.len().saturating_sub(1);
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let width = self.widths.get(i).copied().unwrap_or(0);
                if i == last { cell.clone() } else { format!("{cell:<width$}   ") }
            })
            .collect();
        cells.concat().trim_end().to_owned()
    }
}

/// Headers and cells of the list table; pure, with the clock passed in.
pub fn table(
    summaries: &[Summary],
    all_namespaces: bool,
    wide: bool,
    now: Timestamp,
) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let mut headers = vec![];
    if all_namespaces {
        headers.push("NAMESPACE");
    }
    headers.extend([
        "NAME",
        "RESTARTS",
        "READY",
        "ACTIVE",
        "SUSPENDED",
        "SUCCEEDED",
        "FAILED",
        "STATUS",
        "AGE",
    ]);
    if wide {
        headers.push("IMAGES");
    }
    let rows = summaries
        .iter()
        .map(|s| {
            let mut row = vec![];
            if all_namespaces {
                row.push(s.namespace.clone());
            }
            row.extend([
                s.name.clone(),
                s.attempt.to_string(),
                format!("{}/{}", s.ready, s.expected),
                s.active.to_string(),
                s.suspended.to_string(),
                s.succeeded.to_string(),
                s.failed.to_string(),
                if s.mixed { format!("{},Mixed", s.phase) } else { s.phase.to_string() },
                format_age(s.created, now),
            ]);
            if wide {
                row.push(images_cell(s));
            }
            row
        })
        .collect();
    (headers, rows)
}

/// `workers=app:v1,side:v2 driver=drv:v1`; a replicatedJob whose Jobs carry other
/// images than the spec (a queued JobSet resumes on them) adds them in brackets:
/// `workers=app:v2(jobs:app:v1)`.
fn images_cell(s: &Summary) -> String {
    let cell = |(rj, images): &(String, Vec<String>)| {
        let jobs = s.job_images.iter().find(|(name, _)| name == rj);
        let jobs = jobs.map(|(_, images)| format!("(jobs:{})", images.join(","))).unwrap_or_default();
        format!("{rj}={}{jobs}", images.join(","))
    };
    s.images.iter().map(cell).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::summary::Phase;

    fn summary(ns: &str, name: &str) -> Summary {
        Summary {
            namespace: ns.into(),
            name: name.into(),
            attempt: 2,
            expected: 4,
            ready: 3,
            active: 4,
            succeeded: 0,
            failed: 0,
            previous: 0,
            suspended: 0,
            phase: Phase::Running,
            created: Some("2026-11-30T10:00:00Z".parse().unwrap()),
            images: vec![
                ("workers".into(), vec!["app:v1".into(), "side:v1".into()]),
                ("driver".into(), vec!["drv:v1".into()]),
            ],
            job_images: vec![],
            mixed: false,
        }
    }

    fn render(summaries: &[Summary], all: bool, wide: bool) -> String {
        let now: Timestamp = "2026-11-30T12:30:00Z".parse().unwrap();
        let (headers, rows) = table(summaries, all, wide, now);
        let mut out = Vec::new();
        write_table(&mut out, &headers, &rows, false).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn namespace_table() {
        insta::assert_snapshot!(render(&[summary("ml", "train")], false, false), @r"
        NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS    AGE
        train   2          3/4     4        0           0           0        Running   150m
        ");
    }

    #[test]
    fn a_queued_jobset_counts_suspended_jobs_and_shows_the_images_they_resume_on() {
        let mut queued = summary("ml", "train");
        (queued.active, queued.suspended, queued.ready, queued.phase) = (0, 4, 0, Phase::Suspended);
        queued.job_images = vec![("workers".into(), vec!["app:v0".into(), "side:v1".into()])];
        insta::assert_snapshot!(render(&[queued], false, true), @r"
        NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS      AGE    IMAGES
        train   2          0/4     0        4           0           0        Suspended   150m   workers=app:v1,side:v1(jobs:app:v0,side:v1) driver=drv:v1
        ");
    }

    #[test]
    fn all_namespaces_wide_table() {
        insta::assert_snapshot!(render(&[summary("ml", "train"), summary("research", "eval")], true, true), @r"
        NAMESPACE   NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS    AGE    IMAGES
        ml          train   2          3/4     4        0           0           0        Running   150m   workers=app:v1,side:v1 driver=drv:v1
        research    eval    2          3/4     4        0           0           0        Running   150m   workers=app:v1,side:v1 driver=drv:v1
        ");
    }
}
