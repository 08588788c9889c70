//! edits: the load of `make bench-recorder`. One process edits JobSets at a steady rate
//! (an image change each, a guarded JSON patch) and watches our ControllerRevisions, so
//! it sees when the revision of each edit is stored: the lag from the edit's answer to
//! its revision, end to end, beside the recorder's own histogram. One process and one
//! connection, so that the load generator does not take the machine's CPU from what is
//! measured (20 `kubectl patch` processes a second would).
//!
//!   edits --namespace NS --jobsets N --rate R --count C --tag T
//!
//! Edit i changes JobSet `js{i % N}`'s first container to `busybox:edit-{i}-{T}`. Prints
//! one line `edits=C sent_s=… errors=… p50_ms=… p99_ms=… max_ms=… missing=…` on stdout
//! once every revision is seen, or after `--timeout-s` (missing counts the ones not seen).

#![allow(clippy::print_stdout, clippy::print_stderr)] // a benchmark tool: its output is the report

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Parser;
use futures::StreamExt;
use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::discovery::ApiResource;
use kube::runtime::watcher;

#[derive(Parser)]
struct Args {
    #[arg(long)]
    namespace: String,
    #[arg(long)]
    jobsets: usize,
    #[arg(long)]
    rate: f64,
    #[arg(long)]
    count: usize,
    /// Makes this run's images unique.
    #[arg(long)]
    tag: String,
    #[arg(long, default_value_t = 120)]
    timeout_s: u64,
}

/// When each edit was answered, and when its revision was first seen.
#[derive(Default)]
struct Times {
    answered: HashMap<usize, Instant>,
    seen: HashMap<usize, Instant>,
}

fn main() -> ExitCode {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    match runtime.block_on(run(Args::parse())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("edits: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<()> {
    let client = kube::Client::try_default().await.context("connecting with KUBECONFIG")?;
    let resource = ApiResource {
        group: "jobset.x-k8s.io".into(),
        version: "v1alpha2".into(),
        api_version: "jobset.x-k8s.io/v1alpha2".into(),
        kind: "JobSet".into(),
        plural: "jobsets".into(),
    };
    let jobsets: Api<DynamicObject> = Api::namespaced_with(client.clone(), &args.namespace, &resource);
    let revisions: Api<ControllerRevision> = Api::namespaced(client, &args.namespace);
    let prefix = "busybox:edit-";
    let suffix = format!("-{}", args.tag);
    let times = Arc::new(Mutex::new(Times::default()));

    // The watch starts before the first edit, so no revision is missed.
    let watching = {
        let times = times.clone();
        let suffix = suffix.clone();
        let config = watcher::Config::default().labels("kubectl-jobset.io/jobset-name");
        async move {
            let mut events = std::pin::pin!(watcher(revisions, config));
            while let Some(event) = events.next().await {
                let Ok(watcher::Event::Apply(r) | watcher::Event::InitApply(r)) = event else { continue };
                let data = r.data.map(|d| d.0.to_string()).unwrap_or_default();
                for edit in edits_named(&data, prefix, &suffix) {
                    times.lock().unwrap().seen.entry(edit).or_insert_with(Instant::now);
                }
            }
        }
    };
    let editing = {
        let times = times.clone();
        async move {
            let start = Instant::now();
            let mut sent = futures::stream::FuturesUnordered::new();
            let mut errors = 0usize;
            for i in 0..args.count {
                let due = start + Duration::from_secs_f64(i as f64 / args.rate);
                // Keep the pace from the start, whatever each answer takes.
                loop {
                    tokio::select! {
                        () = tokio::time::sleep_until(due.into()) => break,
                        Some(result) = sent.next(), if !sent.is_empty() => errors += usize::from(result),
                    }
                }
                let jobsets = jobsets.clone();
                let times = times.clone();
                let name = format!("js{}", i % args.jobsets);
                let patch = serde_json::json!([{"op": "replace",
                    "path": "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image",
                    "value": format!("{prefix}{i}{suffix}")}]);
                sent.push(async move {
                    let patch: json_patch::Patch = serde_json::from_value(patch).expect("a JSON patch");
                    match jobsets.patch(&name, &PatchParams::default(), &Patch::Json::<()>(patch)).await {
                        Ok(_) => {
                            times.lock().unwrap().answered.insert(i, Instant::now());
                            false
                        }
                        Err(e) => {
                            eprintln!("edits: {name}: {e}");
                            true
                        }
                    }
                });
            }
            while let Some(result) = sent.next().await {
                errors += usize::from(result);
            }
            (start.elapsed(), errors)
        }
    };
    tokio::pin!(watching);
    let (sent_for, errors) = tokio::select! {
        done = editing => done,
        () = &mut watching => anyhow::bail!("the watch of controllerrevisions ended"),
    };
    let deadline = Instant::now() + Duration::from_secs(args.timeout_s);
    let all_seen = || {
        let t = times.lock().unwrap();
        t.answered.keys().all(|i| t.seen.contains_key(i))
    };
    while !all_seen() && Instant::now() < deadline {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(50)) => {}
            () = &mut watching => anyhow::bail!("the watch of controllerrevisions ended"),
        }
    }
    let t = times.lock().unwrap();
    // A revision stored before its edit's answer arrived counts as no lag.
    let mut lags: Vec<Duration> = t
        .answered
        .iter()
        .filter_map(|(i, answered)| t.seen.get(i).map(|seen| seen.saturating_duration_since(*answered)))
        .collect();
    lags.sort();
    let missing = t.answered.len() - lags.len();
    let quantile = |q: f64| {
        lags.get(((lags.len() as f64 * q).ceil() as usize).saturating_sub(1)).map_or(0, Duration::as_millis)
    };
    println!(
        "edits={} sent_s={:.1} errors={errors} p50_ms={} p99_ms={} max_ms={} missing={missing}",
        args.count,
        sent_for.as_secs_f64(),
        quantile(0.5),
        quantile(0.99),
        lags.last().map_or(0, Duration::as_millis),
    );
    Ok(())
}

/// The edit numbers whose images (`{prefix}{i}{suffix}`) appear in a revision's data.
fn edits_named(data: &str, prefix: &str, suffix: &str) -> Vec<usize> {
    data.match_indices(prefix)
        .filter_map(|(at, _)| {
            let rest = &data[at + prefix.len()..];
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            rest[digits..].starts_with(suffix).then(|| rest[..digits].parse().ok()).flatten()
        })
        .collect()
}
