//! netproxy: a loopback network proxy for kubectl-jobset's tests and benchmarks.
//! It only listens on and connects to loopback addresses.
//!
//!   netproxy delay  --upstream 127.0.0.1:PORT --delay-ms D [--jitter-ms J --seed N]
//!   netproxy faults --upstream https://127.0.0.1:PORT --upstream-ca CA.pem
//!                   --cert SERVER.pem --key SERVER-KEY.pem (--schedule FILE | --rules JSON) [--log FILE]
//!
//! The first line on stdout is `listening on 127.0.0.1:NNNN`, the second `seed N`. Built as the `netproxy`
//! example (`cargo build --examples`); tests start it through tests/support/netproxy_client.rs.
//! The rule schema is in netproxy/rules.rs.

#[path = "netproxy/delay.rs"]
mod delay;
#[path = "netproxy/faults.rs"]
mod faults;
#[path = "netproxy/rules.rs"]
mod rules;

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Parser};
use tokio::net::TcpListener;

#[derive(Parser)]
#[command(name = "netproxy", about = "Loopback network proxy for kubectl-jobset's tests and benchmarks")]
enum Cli {
    /// Plain TCP passthrough that delays every chunk, one way, in each direction.
    Delay(DelayArgs),
    /// TLS-terminating HTTP proxy to the API server that injects scheduled faults.
    Faults(FaultArgs),
}

#[derive(Args)]
struct Common {
    /// Address to listen on (loopback only); port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Seed for jitter and probabilities (printed on stdout; random when not given).
    #[arg(long)]
    seed: Option<u64>,
    /// Exit when stdin closes (so a test's proxy never outlives the test).
    #[arg(long)]
    stdin_lifeline: bool,
    /// Report connection errors on stderr.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Args)]
struct DelayArgs {
    #[command(flatten)]
    common: Common,
    /// Where to connect (loopback only), e.g. 127.0.0.1:6443.
    #[arg(long)]
    upstream: SocketAddr,
    /// Added to every chunk, one way (a round trip gains twice this).
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
    /// Extra delay per chunk, uniform in 0..=J ms; chunks are never reordered.
    #[arg(long, default_value_t = 0)]
    jitter_ms: u64,
}

#[derive(Args)]
struct FaultArgs {
    #[command(flatten)]
    common: Common,
    /// The API server, e.g. https://127.0.0.1:6443 (loopback only).
    #[arg(long)]
    upstream: String,
    /// CA bundle (PEM) that signed the API server's certificate.
    #[arg(long)]
    upstream_ca: PathBuf,
    /// Certificate chain (PEM) to present to clients: the API server's own.
    #[arg(long)]
    cert: PathBuf,
    /// Private key (PEM) of --cert.
    #[arg(long)]
    key: PathBuf,
    /// Fault schedule file (JSON).
    #[arg(long, conflicts_with = "rules")]
    schedule: Option<PathBuf>,
    /// Fault schedule given inline (JSON).
    #[arg(long)]
    rules: Option<String>,
    /// One JSON line per request: what was asked, the fault, what upstream answered.
    #[arg(long)]
    log: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    let result = runtime.context("starting the runtime").and_then(|rt| rt.block_on(run(cli)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            warn(&format!("error: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<()> {
    let common = match &cli {
        Cli::Delay(args) => &args.common,
        Cli::Faults(args) => &args.common,
    };
    anyhow::ensure!(common.listen.ip().is_loopback(), "--listen must be a loopback address");
    let seed = common.seed.unwrap_or_else(random_seed);
    let lifeline = common.stdin_lifeline;
    let listener =
        TcpListener::bind(common.listen).await.with_context(|| format!("listening on {}", common.listen))?;
    let serve = async {
        match cli {
            Cli::Delay(args) => run_delay(listener, args, seed).await,
            Cli::Faults(args) => run_faults(listener, args, seed).await,
        }
    };
    if !lifeline {
        return serve.await;
    }
    tokio::select! {
        result = serve => result,
        () = stdin_closed() => Ok(()),
    }
}

async fn run_delay(listener: TcpListener, args: DelayArgs, seed: u64) -> Result<()> {
    anyhow::ensure!(args.upstream.ip().is_loopback(), "--upstream must be a loopback address");
    announce(&listener, seed)?;
    let opts = delay::DelayOpts {
        upstream: args.upstream,
        delay: Duration::from_millis(args.delay_ms),
        jitter_ms: args.jitter_ms,
        seed,
        verbose: args.common.verbose,
    };
    Ok(delay::run(listener, opts).await?)
}

async fn run_faults(listener: TcpListener, args: FaultArgs, seed: u64) -> Result<()> {
    let upstream_base = faults::loopback_https(&args.upstream)?;
    let text = match (&args.schedule, &args.rules) {
        (Some(file), _) => {
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?
        }
        (None, Some(inline)) => inline.clone(),
        (None, None) => "[]".to_owned(),
    };
    let rules = rules::parse_rules(&text).map_err(anyhow::Error::msg)?;
    let tls = faults::server_tls(&args.cert, &args.key)?;
    let log = match &args.log {
        Some(path) => Some(std::sync::Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("opening {}", path.display()))?,
        )),
        None => None,
    };
    let state = faults::State {
        upstream_base,
        upstream: faults::upstream_client(&args.upstream_ca)?,
        schedule: std::sync::Mutex::new(rules::Schedule::new(rules, seed)),
        log,
        started: std::time::Instant::now(),
        seq: Default::default(),
        verbose: args.common.verbose,
    };
    announce(&listener, seed)?;
    faults::run(listener, Arc::new(tls), Arc::new(state)).await
}

/// The stdout protocol: the first line is the address clients connect to.
fn announce(listener: &TcpListener, seed: u64) -> Result<()> {
    let addr = listener.local_addr()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on {addr}")?;
    out.flush()?;
    // The reader may have gone after the first line.
    let _ = writeln!(out, "seed {seed}").and_then(|()| out.flush());
    Ok(())
}

/// A line on stderr, prefixed with the tool's name.
fn warn(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "netproxy: {message}");
}

fn random_seed() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (nanos as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

async fn stdin_closed() {
    use tokio::io::AsyncReadExt;
    let mut stdin = tokio::io::stdin();
    let mut buf = [0u8; 256];
    while let Ok(n) = stdin.read(&mut buf).await {
        if n == 0 {
            return;
        }
    }
}
