//! What `list` prints: one row per JobSet, with its restart attempt, Job counts and
//! status (`-o wide` adds the images).

use jiff::Timestamp;

use crate::age::format_age;
use crate::model::summary::Summary;

/// The header of the list column that ages by itself.
pub const AGE: &str = "AGE";
/// The widest STATUS a JobSet usually shows, reserved by `list -w`.
pub const WIDEST_STATUS: &str = "Restarting,Mixed";

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
        AGE,
        "STRATEGY",
    ]);
    if wide {
        headers.extend(["QUEUE", "IMAGES"]);
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
                s.strategy.clone(),
            ]);
            if wide {
                row.push(s.queue.clone().unwrap_or_else(|| "<none>".into()));
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
    use crate::render::table::write_table;

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
            queue: None,
            strategy: "-".into(),
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
        NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS    AGE    STRATEGY
        train   2          3/4     4        0           0           0        Running   150m   -
        ");
    }

    #[test]
    fn a_queued_jobset_counts_suspended_jobs_and_shows_the_images_they_resume_on() {
        let mut queued = summary("ml", "train");
        (queued.active, queued.suspended, queued.ready, queued.phase) = (0, 4, 0, Phase::Suspended);
        queued.job_images = vec![("workers".into(), vec!["app:v0".into(), "side:v1".into()])];
        insta::assert_snapshot!(render(&[queued], false, true), @r"
        NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS      AGE    STRATEGY   QUEUE    IMAGES
        train   2          0/4     0        4           0           0        Suspended   150m   -          <none>   workers=app:v1,side:v1(jobs:app:v0,side:v1) driver=drv:v1
        ");
    }

    #[test]
    fn a_jobset_kueue_queues_is_queued_and_names_its_queue_and_workload() {
        let mut queued = summary("ml", "train");
        (queued.active, queued.suspended, queued.ready, queued.phase) = (0, 4, 0, Phase::Queued);
        queued.queue = Some("lq/jobset-train-1a2b3".into());
        insta::assert_snapshot!(render(&[queued], false, true), @r"
        NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS   AGE    STRATEGY   QUEUE                   IMAGES
        train   2          0/4     0        4           0           0        Queued   150m   -          lq/jobset-train-1a2b3   workers=app:v1,side:v1 driver=drv:v1
        ");
    }

    #[test]
    fn all_namespaces_wide_table() {
        let mut train = summary("ml", "train");
        train.strategy = "Immediate".into();
        let mut eval = summary("research", "eval");
        eval.strategy = "invalid: sometimes".into();
        insta::assert_snapshot!(render(&[train, eval], true, true), @r"
        NAMESPACE   NAME    RESTARTS   READY   ACTIVE   SUSPENDED   SUCCEEDED   FAILED   STATUS    AGE    STRATEGY             QUEUE    IMAGES
        ml          train   2          3/4     4        0           0           0        Running   150m   Immediate            <none>   workers=app:v1,side:v1 driver=drv:v1
        research    eval    2          3/4     4        0           0           0        Running   150m   invalid: sometimes   <none>   workers=app:v1,side:v1 driver=drv:v1
        ");
    }
}
