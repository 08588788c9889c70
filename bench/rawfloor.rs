//! rawfloor: the physical floor of a fleet read, for `make bench`. It fetches the lists a
//! fleet command needs, in parallel, over the same client stack the plugin uses (kube's
//! hyper client, TLS, paged as the plugin pages: JobSets in one answer, Jobs and
//! revisions in pages of `--page-size`, see `kubectl_jobset::cluster::api::Paging`), reads
//! every body to its end and drops it. The only parse is the `continue` token at the
//! edges of each page, which the next page needs. A command's wall time divided by this
//! one's is how far above the transfer it is.
//!
//!   rawfloor --kubeconfig PATH [--lists jobsets,jobs,revisions]
//!
//! `jobsets`: every JobSet; `jobs`: Jobs with the JobSet controller's jobset-name label;
//! `revisions`: our ControllerRevisions (kubectl-jobset.io/jobset-name). `list -A` needs the
//! first two, `diff -A` all three. Prints one line `bytes=… pages=… ms=…` on stdout.

#![allow(clippy::print_stdout)] // a benchmark tool: its output is the report

use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use http_body_util::BodyExt;
use kube::Client;
use kube::config::{Config, KubeConfigOptions, Kubeconfig};
use kubectl_jobset::cluster::api::Paging;

#[derive(Parser)]
struct Args {
    #[arg(long)]
    kubeconfig: std::path::PathBuf,
    #[arg(long, value_delimiter = ',', default_value = "jobsets,jobs,revisions")]
    lists: Vec<String>,
    /// Items per page of the paged lists, as the plugin pages (kubectl_jobset::cluster::api::PAGE_SIZE).
    #[arg(long, default_value_t = 500)]
    page_size: u32,
    /// Page the JobSets too (the plugin asks for them whole): what the floor was before.
    #[arg(long)]
    page_jobsets: bool,
}

/// A list's path, and whether the plugin pages it.
fn path_of(list: &str) -> Result<(&'static str, Paging)> {
    Ok(match list {
        "jobsets" => ("/apis/jobset.x-k8s.io/v1alpha2/jobsets", Paging::Whole),
        "jobs" => ("/apis/batch/v1/jobs?labelSelector=jobset.sigs.k8s.io%2Fjobset-name", Paging::Pages),
        "revisions" => {
            ("/apis/apps/v1/controllerrevisions?labelSelector=kubectl-jobset.io%2Fjobset-name", Paging::Pages)
        }
        other => bail!("unknown list {other:?}: jobsets, jobs or revisions"),
    })
}

/// How much of each end of a page is kept to find its `continue` token.
const EDGE: usize = 4096;

/// Fetches every page of one list; returns (bytes, pages).
async fn fetch(client: &Client, path: &str, page_size: Option<u32>) -> Result<(u64, u64)> {
    let (mut bytes, mut pages) = (0u64, 0u64);
    let mut token: Option<String> = None;
    loop {
        let mut query: Vec<String> = page_size.map(|n| format!("limit={n}")).into_iter().collect();
        if let Some(token) = &token {
            query.push(format!("continue={}", url_escape(token)));
        }
        let mut uri = path.to_owned();
        if !query.is_empty() {
            uri.push(if path.contains('?') { '&' } else { '?' });
            uri.push_str(&query.join("&"));
        }
        let request = http::Request::get(&uri).body(kube::client::Body::from(Vec::new()))?;
        let response = client.send(request).await.with_context(|| format!("GET {uri}"))?;
        if !response.status().is_success() {
            bail!("GET {uri}: {}", response.status());
        }
        let mut body = response.into_body();
        let (mut head, mut tail): (Vec<u8>, Vec<u8>) = (Vec::new(), Vec::new());
        while let Some(frame) = body.frame().await {
            let frame = frame.with_context(|| format!("reading {uri}"))?;
            if let Some(data) = frame.data_ref() {
                bytes += data.len() as u64;
                if head.len() < EDGE {
                    head.extend_from_slice(&data[..data.len().min(EDGE - head.len())]);
                }
                // The last EDGE bytes seen so far.
                tail.extend_from_slice(&data[data.len().saturating_sub(EDGE)..]);
                if tail.len() > EDGE {
                    tail.drain(..tail.len() - EDGE);
                }
            }
        }
        pages += 1;
        // The token off the page's edges: the floor reads no JSON.
        let mut edges = head;
        edges.extend_from_slice(&tail);
        token = kubectl_jobset::cluster::list_body::continue_token_at_edges(&edges);
        if token.is_none() {
            return Ok((bytes, pages));
        }
    }
}

fn url_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let args = Args::parse();
    rustls::crypto::ring::default_provider().install_default().ok();
    let kubeconfig = Kubeconfig::read_from(&args.kubeconfig)?;
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    let client = Client::try_from(config)?;
    let paths = args.lists.iter().map(|l| path_of(l)).collect::<Result<Vec<_>>>()?;
    let page_size = |paging: Paging| match paging {
        Paging::Pages => Some(args.page_size),
        Paging::Whole => args.page_jobsets.then_some(args.page_size),
    };
    let start = Instant::now();
    let results =
        futures::future::try_join_all(paths.iter().map(|(p, paging)| fetch(&client, p, page_size(*paging))))
            .await?;
    let ms = start.elapsed().as_millis();
    let bytes: u64 = results.iter().map(|r| r.0).sum();
    let pages: u64 = results.iter().map(|r| r.1).sum();
    println!("bytes={bytes} pages={pages} ms={ms}");
    Ok(())
}
