//! `netproxy delay`: plain TCP passthrough (TLS bytes untouched) that holds every chunk
//! for a fixed delay plus optional seeded jitter, in each direction, without reordering.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::rules::Rng;

/// Chunks waiting in one direction before the reader pauses.
const QUEUE: usize = 1024;
const CHUNK: usize = 64 * 1024;

#[derive(Debug, Clone)]
pub struct DelayOpts {
    pub upstream: SocketAddr,
    pub delay: Duration,
    pub jitter_ms: u64,
    pub seed: u64,
    pub verbose: bool,
}

/// Accepts connections until the process ends.
pub async fn run(listener: TcpListener, opts: DelayOpts) -> io::Result<()> {
    let opts = Arc::new(opts);
    let mut id: u64 = 0;
    loop {
        let (client, _) = listener.accept().await?;
        id += 1;
        let opts = opts.clone();
        tokio::spawn(async move {
            if let Err(e) = serve(client, &opts, id).await
                && opts.verbose
            {
                super::warn(&format!("connection {id}: {e}"));
            }
        });
    }
}

async fn serve(client: TcpStream, opts: &DelayOpts, id: u64) -> io::Result<()> {
    let upstream = TcpStream::connect(opts.upstream).await?;
    client.set_nodelay(true)?;
    upstream.set_nodelay(true)?;
    let (client_read, client_write) = client.into_split();
    let (upstream_read, upstream_write) = upstream.into_split();
    // One generator per connection and direction: a fixed seed replays the same jitter.
    let base = opts.seed ^ id.wrapping_mul(0x2545_f491_4f6c_dd1d);
    let up = pipe(client_read, upstream_write, opts, Rng::new(base));
    let down = pipe(upstream_read, client_write, opts, Rng::new(!base));
    // The first error (a reset on either side) drops both sockets.
    tokio::try_join!(up, down).map(|_| ())
}

/// Copies `from` to `to`, releasing each chunk `delay + jitter` after it was read.
/// Chunks leave in the order they came; a chunk never overtakes an earlier one.
async fn pipe(
    mut from: OwnedReadHalf,
    mut to: OwnedWriteHalf,
    opts: &DelayOpts,
    mut rng: Rng,
) -> io::Result<()> {
    let (tx, mut rx) = mpsc::channel::<(Instant, Vec<u8>)>(QUEUE);
    let delay = opts.delay;
    let jitter_ms = opts.jitter_ms;
    let reader = async move {
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = from.read(&mut buf).await?;
            if n == 0 {
                return Ok::<(), io::Error>(());
            }
            let extra = if jitter_ms == 0 { 0 } else { rng.up_to(jitter_ms) };
            let due = Instant::now() + delay + Duration::from_millis(extra);
            if tx.send((due, buf[..n].to_vec())).await.is_err() {
                return Ok(());
            }
        }
    };
    let writer = async move {
        while let Some((due, chunk)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            to.write_all(&chunk).await?;
        }
        // The sender's end of this direction closed: pass the half-close on.
        to.shutdown().await
    };
    tokio::try_join!(reader, writer).map(|_| ())
}
