//! The Events of recorded revisions, published beside the workers a few at a time: they
//! are news, not history, so they never hold up a reconcile, and while the queue holds a
//! backlog (a catch-up) they wait, for at most `EVENTS_WAIT`, so the writes go first.

use futures::{Stream, StreamExt};

use super::state::{Announcement, Shared};
use crate::cluster::{Cluster, events};

/// Events published at once.
const EVENTS_IN_FLIGHT: usize = 8;
/// How long Events wait for a backlog to clear at most.
const EVENTS_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Publishes the Events of recorded revisions, a few at a time, beside the worker.
pub(super) async fn announce(
    shared: &Shared<'_>,
    cluster: &Cluster,
    identity: &str,
    queue: tokio::sync::mpsc::UnboundedReceiver<Announcement>,
) {
    let published = tokio_stream_of(queue)
        .then(|announcement| async move {
            shared.no_backlog(EVENTS_WAIT).await;
            announcement
        })
        .map(|(key, regarding, note)| async move {
            // A publisher per Event: kube's would fold different revisions into one series.
            let publisher = events::publisher(cluster, identity);
            (key, events::publish(cluster, &publisher, &events::revision_event(note), &regarding).await)
        })
        .buffer_unordered(EVENTS_IN_FLIGHT);
    tokio::pin!(published);
    while let Some((key, result)) = published.next().await {
        if let Err(e) = result {
            shared.warn_once(&format!("warning: no Event for jobset {key}: {e}"));
        }
    }
}

/// The receiver as a stream.
fn tokio_stream_of<T>(mut receiver: tokio::sync::mpsc::UnboundedReceiver<T>) -> impl Stream<Item = T> {
    futures::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}
