//! The recorder's work queue: JobSets to reconcile, each at most once in the queue however
//! many events name it, with the time of the first event not yet handled (for the
//! event-to-write lag), delayed retries, a per-JobSet backoff after failures, and what
//! each JobSet looked like when it was last reconciled to the end.
//!
//! Ready keys wait in one of `LANES` lanes, always the same for a JobSet (`lane_of`).
//! Each lane has one worker, so a JobSet is never in two reconciles at once, and its
//! templates are dry-run by the same cache each time.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

/// A JobSet, by namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub namespace: String,
    pub name: String,
}

impl Key {
    pub fn new(namespace: &str, name: &str) -> Self {
        Key { namespace: namespace.to_owned(), name: name.to_owned() }
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// Lanes of the queue, each with a worker of its own.
pub const LANES: usize = 16;

/// The lane `key` always waits in.
pub fn lane_of(key: &Key) -> usize {
    (super::fnv(key) % LANES as u64) as usize
}

/// The first backoff after a failed reconcile; it doubles up to `MAX_BACKOFF`.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
pub struct WorkQueue {
    /// Ready keys, by lane, each lane in the order they were queued.
    ready: [VecDeque<Key>; LANES],
    /// Every key in `ready`, with the time of its first unhandled event.
    since: HashMap<Key, Instant>,
    /// Keys to add back at a later time (with their first event's time).
    delayed: BTreeMap<(Instant, u64), (Key, Instant)>,
    sequence: u64,
    failures: HashMap<Key, u32>,
    /// By a hash of the key: what the stores held of the JobSet once its last reconcile
    /// was done, our own writes included (`Seen::total`). An event that leaves that as it
    /// was (the echo of our own write, a re-list of what was seen) needs no reconcile. A
    /// key queued again on purpose (`add_after`, a retry) loses it. A hash of the key, not
    /// the key: sixteen bytes a JobSet in a fleet of ten thousand.
    settled: HashMap<u64, u64>,
}

impl WorkQueue {
    /// Queues `key` for an event seen at `at`; a key already queued keeps its place and
    /// its earlier time.
    pub fn add(&mut self, key: Key, at: Instant) {
        match self.since.get_mut(&key) {
            Some(since) => *since = (*since).min(at),
            None => {
                self.since.insert(key.clone(), at);
                self.ready[lane_of(&key)].push_back(key);
            }
        }
    }

    /// Queues `key` again at `due`, keeping the time of the event that first asked for it.
    pub fn add_after(&mut self, key: Key, first_event: Instant, due: Instant) {
        self.settled.remove(&super::fnv(&key));
        self.sequence += 1;
        self.delayed.insert((due, self.sequence), (key, first_event));
    }

    /// Moves the delayed keys that are due into the queue; whether there were any.
    pub fn promote(&mut self, now: Instant) -> bool {
        let mut promoted = false;
        while let Some(entry) = self.delayed.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (key, first_event) = entry.remove();
            self.add(key, first_event);
            promoted = true;
        }
        promoted
    }

    /// When the next delayed key is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.delayed.keys().next().map(|(due, _)| *due)
    }

    /// Up to `max` keys of `lane` in the order they were queued, with their first event's
    /// time.
    pub fn take(&mut self, lane: usize, max: usize) -> Vec<(Key, Instant)> {
        let ready = &mut self.ready[lane];
        let n = max.min(ready.len());
        ready
            .drain(..n)
            .map(|key| {
                let since = self.since.remove(&key).unwrap_or_else(Instant::now);
                (key, since)
            })
            .collect()
    }

    /// Drops everything queued (a standby replica does not reconcile).
    pub fn clear(&mut self) {
        self.ready.iter_mut().for_each(VecDeque::clear);
        self.since.clear();
        self.delayed.clear();
        self.settled.clear();
    }

    /// `key`'s reconcile is done, and the stores will hold `seen` of it once they show
    /// our writes.
    pub fn settle(&mut self, key: &Key, seen: u64) {
        self.settled.insert(super::fnv(key), seen);
    }

    /// Whether the stores hold `seen` of `key`, as they did when its last reconcile was
    /// done: a new reconcile would find nothing to do.
    pub fn is_settled(&self, key: &Key, seen: u64) -> bool {
        self.settled.get(&super::fnv(key)) == Some(&seen)
    }

    /// A JobSet gone: nothing to remember of it.
    pub fn unsettle(&mut self, key: &Key) {
        self.settled.remove(&super::fnv(key));
    }

    pub fn len(&self) -> usize {
        self.ready_len() + self.delayed.len()
    }

    /// Keys ready now, in every lane.
    pub fn ready_len(&self) -> usize {
        self.since.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A failed reconcile of `key`: it comes back after a backoff that doubles with each
    /// failure in a row. The backoff chosen.
    pub fn retry_later(&mut self, key: Key, first_event: Instant, now: Instant) -> Duration {
        let failures = self.failures.entry(key.clone()).or_insert(0);
        let backoff = FIRST_BACKOFF.saturating_mul(1 << (*failures).min(6)).min(MAX_BACKOFF);
        *failures += 1;
        self.add_after(key, first_event, now + backoff);
        backoff
    }

    /// A successful reconcile: the next failure starts from the first backoff again.
    pub fn succeeded(&mut self, key: &Key) {
        self.failures.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything ready, lane by lane.
    fn take_all(q: &mut WorkQueue) -> Vec<(Key, Instant)> {
        (0..LANES).flat_map(|lane| q.take(lane, usize::MAX)).collect()
    }

    #[test]
    fn a_key_is_queued_once_with_its_first_event_time() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        q.add(Key::new("ns", "a"), t0 + Duration::from_millis(5));
        q.add(Key::new("ns", "b"), t0 + Duration::from_millis(6));
        q.add(Key::new("ns", "a"), t0);
        assert_eq!(q.len(), 2);
        let mut taken = take_all(&mut q);
        taken.sort();
        assert_eq!(
            taken,
            vec![(Key::new("ns", "a"), t0), (Key::new("ns", "b"), t0 + Duration::from_millis(6))]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn delayed_keys_come_back_when_due_with_their_event_time() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        q.add_after(Key::new("ns", "a"), t0, t0 + Duration::from_millis(200));
        assert!(!q.promote(t0 + Duration::from_millis(100)));
        assert!(take_all(&mut q).is_empty());
        assert_eq!(q.next_due(), Some(t0 + Duration::from_millis(200)));
        assert!(q.promote(t0 + Duration::from_millis(200)));
        assert_eq!(take_all(&mut q), vec![(Key::new("ns", "a"), t0)]);
        assert_eq!(q.next_due(), None);
    }

    #[test]
    fn failures_back_off_exponentially_up_to_a_limit_and_reset_on_success() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        let key = Key::new("ns", "a");
        let backoffs: Vec<Duration> = (0..9).map(|_| q.retry_later(key.clone(), t0, t0)).collect();
        assert_eq!(backoffs[0], Duration::from_millis(500));
        assert_eq!(backoffs[1], Duration::from_secs(1));
        assert_eq!(backoffs[2], Duration::from_secs(2));
        assert_eq!(*backoffs.last().unwrap(), Duration::from_secs(30));
        q.succeeded(&key);
        assert_eq!(q.retry_later(key, t0, t0), Duration::from_millis(500));
    }

    #[test]
    fn a_settled_key_stays_settled_until_queued_again_on_purpose() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        let key = Key::new("ns", "a");
        assert!(!q.is_settled(&key, 7), "never reconciled");
        q.settle(&key, 7);
        assert!(q.is_settled(&key, 7));
        assert!(!q.is_settled(&key, 8), "the stores hold something else now");
        assert!(!q.is_settled(&Key::new("ns", "b"), 7));
        q.add(key.clone(), t0);
        assert!(q.is_settled(&key, 7), "an event does not unsettle it: the stores say whether it changed");
        q.retry_later(key.clone(), t0, t0);
        assert!(!q.is_settled(&key, 7), "a retry reconciles again whatever the stores hold");
        q.settle(&key, 7);
        q.unsettle(&key);
        assert!(!q.is_settled(&key, 7), "deleted");
        q.settle(&key, 7);
        q.clear();
        assert!(!q.is_settled(&key, 7), "a standby keeps nothing");
    }

    #[test]
    fn clear_drops_ready_and_delayed_keys() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        q.add(Key::new("ns", "a"), t0);
        q.add_after(Key::new("ns", "b"), t0, t0 + Duration::from_secs(1));
        q.clear();
        assert!(q.is_empty());
        q.add(Key::new("ns", "a"), t0);
        assert_eq!(take_all(&mut q).len(), 1, "a cleared key can be queued again");
    }

    #[test]
    fn a_key_always_waits_in_the_same_lane_in_the_order_it_was_queued() {
        let t0 = Instant::now();
        let mut q = WorkQueue::default();
        let keys: Vec<Key> = (0..200).map(|i| Key::new("ns", &format!("js{i}"))).collect();
        for key in &keys {
            q.add(key.clone(), t0);
        }
        assert_eq!(q.ready_len(), 200);
        let lanes: std::collections::HashSet<usize> = keys.iter().map(lane_of).collect();
        assert!(lanes.len() > LANES / 2, "spread over the lanes: {lanes:?}");
        let lane = lane_of(&keys[0]);
        let mine: Vec<&Key> = keys.iter().filter(|k| lane_of(k) == lane).collect();
        let taken = q.take(lane, 2);
        assert_eq!(taken.iter().map(|(k, _)| k).collect::<Vec<_>>(), mine[..2], "first in, first out");
        assert!(q.take(lane, usize::MAX).iter().all(|(k, _)| lane_of(k) == lane), "its own lane only");
        assert_eq!(q.ready_len(), 200 - mine.len());
        assert_eq!(lane_of(&keys[0]), lane_of(&keys[0].clone()));
    }
}
