//! `kubectl jobset list`: JobSets with restart attempt, Job counts and status.

use std::io::Write;

use jiff::Timestamp;
use serde_json::Value;

use crate::age::format_age;
use crate::cluster::Cluster;
use crate::commands::ExitStatus;
use crate::error::Result;
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::model::summary::{Summary, summarize};
use crate::observe::fleet;
use crate::render::{self, Format, table::write_table};
use crate::select::Selection;

#[derive(Debug, Clone)]
pub struct ListPlan {
    pub selection: Selection,
    pub format: Format,
    pub no_headers: bool,
}

pub async fn run(
    cluster: &Cluster,
    plan: &ListPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ExitStatus> {
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
    headers.extend(["NAME", "RESTARTS", "READY", "ACTIVE", "SUCCEEDED", "FAILED", "STATUS", "AGE"]);
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
                s.succeeded.to_string(),
                s.failed.to_string(),
                s.phase.to_string(),
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

/// `workers=app:v1,side:v2 driver=drv:v1`
fn images_cell(s: &Summary) -> String {
    s.images.iter().map(|(rj, images)| format!("{rj}={}", images.join(","))).collect::<Vec<_>>().join(" ")
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
            phase: Phase::Running,
            created: Some("2026-11-30T10:00:00Z".parse().unwrap()),
            images: vec![
                ("workers".into(), vec!["app:v1".into(), "side:v1".into()]),
                ("driver".into(), vec!["drv:v1".into()]),
            ],
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
        NAME    RESTARTS   READY   ACTIVE   SUCCEEDED   FAILED   STATUS    AGE
        train   2          3/4     4        0           0        Running   150m
        ");
    }

    #[test]
    fn all_namespaces_wide_table() {
        insta::assert_snapshot!(render(&[summary("ml", "train"), summary("research", "eval")], true, true), @r"
        NAMESPACE   NAME    RESTARTS   READY   ACTIVE   SUCCEEDED   FAILED   STATUS    AGE    IMAGES
        ml          train   2          3/4     4        0           0        Running   150m   workers=app:v1,side:v1 driver=drv:v1
        research    eval    2          3/4     4        0           0        Running   150m   workers=app:v1,side:v1 driver=drv:v1
        ");
    }
}
