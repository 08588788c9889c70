//! What the recorder counts, and its health, shared with the HTTP endpoints; rendered in
//! the Prometheus text exposition format (a handful of counters and one histogram do not
//! need a metrics library).

use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds (seconds) of the event-to-write lag histogram's buckets.
pub const LAG_BUCKETS: [f64; 12] = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0];

const PREFIX: &str = "kubectl_jobset_recorder";

#[derive(Debug, Default)]
pub struct Metrics {
    pub revisions_recorded: AtomicU64,
    pub attempts_credited: AtomicU64,
    pub reconciles: AtomicU64,
    /// Queued JobSets not reconciled: the stores held what the last reconcile left.
    pub reconciles_skipped: AtomicU64,
    pub reconcile_errors: AtomicU64,
    pub watch_restarts: AtomicU64,
    /// Changes staged for the next restart, applied at a natural one (and failures).
    pub staged_applied: AtomicU64,
    pub staged_errors: AtomicU64,
    /// Revisions of deleted JobSets pruned after their retention.
    pub revisions_pruned: AtomicU64,
    /// Revisions of deleted JobSets kept now (a gauge).
    pub deleted_jobset_revisions: AtomicU64,
    lag: Mutex<Histogram>,
    /// Update-strategy actions by (strategy, action, outcome).
    strategy_actions: Mutex<std::collections::BTreeMap<(String, &'static str, &'static str), u64>>,
    /// Rollout steps the recorder made, by (action, outcome).
    rollout_steps: Mutex<std::collections::BTreeMap<(&'static str, &'static str), u64>>,
    /// Every watch has listed its objects once.
    pub synced: AtomicBool,
    /// The Lease has been read or written once: this replica knows whether it leads.
    pub lease_known: AtomicBool,
    /// This replica records (it holds the Lease, or runs without leader election).
    pub leading: AtomicBool,
}

#[derive(Debug, Default)]
struct Histogram {
    counts: [u64; LAG_BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Metrics {
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    /// Records one event-to-write lag.
    pub fn observe_lag(&self, lag: Duration) {
        let seconds = lag.as_secs_f64();
        let mut h = self.lag.lock().unwrap_or_else(|e| e.into_inner());
        for (bound, count) in LAG_BUCKETS.iter().zip(h.counts.iter_mut()) {
            if seconds <= *bound {
                *count += 1;
            }
        }
        h.count += 1;
        h.sum += seconds;
    }

    /// Counts one update-strategy action (`restart`, `queued_refresh`, `stall`) and how it
    /// ended (`done`, `superseded`, `failed`).
    pub fn count_strategy_action(&self, strategy: &str, action: &'static str, outcome: &'static str) {
        let mut m = self.strategy_actions.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry((strategy.to_owned(), action, outcome)).or_insert(0) += 1;
    }

    /// Counts one step of a rollout the recorder drives: `hold`, `patch` or `restart`, and how it
    /// ended (`done`, `already`, `lost`, `failed`).
    pub fn count_rollout_step(&self, action: &'static str, outcome: &'static str) {
        let mut m = self.rollout_steps.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry((action, outcome)).or_insert(0) += 1;
    }

    /// Live: the process answers.
    pub fn healthy(&self) -> bool {
        true
    }

    /// Ready: the watches have synced, and the replica knows whether it leads (a standby
    /// replica is ready too: it has warm caches and takes over on its own).
    pub fn ready(&self) -> bool {
        self.synced.load(Ordering::Relaxed) && self.lease_known.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition (format 0.0.4).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let counters = [
            ("revisions_recorded_total", "Revisions the recorder created.", &self.revisions_recorded),
            (
                "attempts_credited_total",
                "Restart attempts credited to the revision their Jobs were created from.",
                &self.attempts_credited,
            ),
            ("reconciles_total", "JobSets reconciled.", &self.reconciles),
            (
                "reconciles_skipped_total",
                "Queued JobSets not reconciled: nothing had changed since their last reconcile but our own writes.",
                &self.reconciles_skipped,
            ),
            ("reconcile_errors_total", "Reconciles that failed and were retried.", &self.reconcile_errors),
            (
                "watch_restarts_total",
                "Watches that failed or listed their objects again.",
                &self.watch_restarts,
            ),
            (
                "staged_applied_total",
                "Changes staged for the next restart that the recorder applied at a natural restart.",
                &self.staged_applied,
            ),
            (
                "staged_errors_total",
                "Tries to apply a staged change that failed and are retried.",
                &self.staged_errors,
            ),
            (
                "revisions_pruned_total",
                "Revisions of deleted JobSets pruned once their retention passed.",
                &self.revisions_pruned,
            ),
        ];
        for (name, help, value) in counters {
            let _ = writeln!(out, "# HELP {PREFIX}_{name} {help}");
            let _ = writeln!(out, "# TYPE {PREFIX}_{name} counter");
            let _ = writeln!(out, "{PREFIX}_{name} {}", value.load(Ordering::Relaxed));
        }
        let name = "deleted_jobset_revisions";
        let _ =
            writeln!(out, "# HELP {PREFIX}_{name} Revisions of deleted JobSets kept for their retention.");
        let _ = writeln!(out, "# TYPE {PREFIX}_{name} gauge");
        let _ = writeln!(out, "{PREFIX}_{name} {}", self.deleted_jobset_revisions.load(Ordering::Relaxed));
        let gauges = [
            (
                "leader",
                "1 while this replica records (holds the Lease, or runs without election).",
                &self.leading,
            ),
            ("synced", "1 once every watch has listed its objects.", &self.synced),
        ];
        for (name, help, value) in gauges {
            let _ = writeln!(out, "# HELP {PREFIX}_{name} {help}");
            let _ = writeln!(out, "# TYPE {PREFIX}_{name} gauge");
            let _ = writeln!(out, "{PREFIX}_{name} {}", u8::from(value.load(Ordering::Relaxed)));
        }
        let name = format!("{PREFIX}_update_strategy_actions_total");
        let _ = writeln!(out, "# HELP {name} Restarts and stalls the update strategies made, by outcome.");
        let _ = writeln!(out, "# TYPE {name} counter");
        for ((strategy, action, outcome), n) in
            self.strategy_actions.lock().unwrap_or_else(|e| e.into_inner()).iter()
        {
            let _ = writeln!(
                out,
                "{name}{{strategy=\"{strategy}\",action=\"{action}\",outcome=\"{outcome}\"}} {n}"
            );
        }
        let name = format!("{PREFIX}_rollout_steps_total");
        let _ = writeln!(
            out,
            "# HELP {name} Steps of staged fleet rollouts the recorder made, by action and outcome."
        );
        let _ = writeln!(out, "# TYPE {name} counter");
        for ((action, outcome), n) in self.rollout_steps.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(out, "{name}{{action=\"{action}\",outcome=\"{outcome}\"}} {n}");
        }
        let name = format!("{PREFIX}_event_to_write_seconds");
        let h = self.lag.lock().unwrap_or_else(|e| e.into_inner());
        let _ = writeln!(
            out,
            "# HELP {name} From the watch event that called for a write to the end of the write."
        );
        let _ = writeln!(out, "# TYPE {name} histogram");
        for (bound, count) in LAG_BUCKETS.iter().zip(h.counts) {
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {count}");
        }
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {}", h.count);
        let _ = writeln!(out, "{name}_sum {}", h.sum);
        let _ = writeln!(out, "{name}_count {}", h.count);
        drop(h);
        let _ = writeln!(out, "# HELP {PREFIX}_build_info The recorder's version (always 1).");
        let _ = writeln!(out, "# TYPE {PREFIX}_build_info gauge");
        let _ = writeln!(out, "{PREFIX}_build_info{{version=\"{}\"}} 1", env!("CARGO_PKG_VERSION"));
        write_process_metrics(&mut out);
        out
    }
}

/// The standard `process_*` metrics (as Prometheus client libraries export them), read
/// from /proc on Linux; nothing elsewhere.
fn write_process_metrics(out: &mut String) {
    let Some(process) = ProcessStats::read() else { return };
    let metrics = [
        (
            "process_cpu_seconds_total",
            "counter",
            "Total user and system CPU time spent in seconds.",
            process.cpu_seconds,
        ),
        ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", process.resident_bytes),
        ("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", process.virtual_bytes),
        (
            "process_start_time_seconds",
            "gauge",
            "Start time of the process since unix epoch in seconds.",
            process.start_time,
        ),
        ("process_open_fds", "gauge", "Number of open file descriptors.", process.open_fds),
    ];
    for (name, kind, help, value) in metrics {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        let _ = writeln!(out, "{name} {value}");
    }
}

struct ProcessStats {
    cpu_seconds: f64,
    resident_bytes: f64,
    virtual_bytes: f64,
    start_time: f64,
    open_fds: f64,
}

impl ProcessStats {
    /// From /proc/self/stat (fields after the command name), /proc/stat's boot time and
    /// /proc/self/fd. Clock ticks and the page size are Linux's usual 100 and 4096.
    fn read() -> Option<ProcessStats> {
        const TICKS: f64 = 100.0;
        const PAGE: f64 = 4096.0;
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        // The command name may hold spaces: the fields start after its closing parenthesis.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).and_then(|v| v.parse::<f64>().ok());
        let boot = std::fs::read_to_string("/proc/stat")
            .ok()?
            .lines()
            .find_map(|l| l.strip_prefix("btime ").and_then(|v| v.trim().parse::<f64>().ok()))?;
        Some(ProcessStats {
            cpu_seconds: (field(14)? + field(15)?) / TICKS,
            virtual_bytes: field(23)?,
            resident_bytes: field(24)? * PAGE,
            start_time: boot + field(22)? / TICKS,
            open_fds: std::fs::read_dir("/proc/self/fd").map(|d| d.count() as f64).unwrap_or(0.0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposition_has_counters_gauges_and_a_cumulative_histogram() {
        let m = Metrics::default();
        Metrics::add(&m.revisions_recorded, 3);
        Metrics::add(&m.attempts_credited, 2);
        m.observe_lag(Duration::from_millis(40));
        m.observe_lag(Duration::from_millis(700));
        m.observe_lag(Duration::from_secs(20));
        m.count_strategy_action("Immediate", "restart", "done");
        m.count_strategy_action("Immediate", "restart", "done");
        m.count_strategy_action("Opportunistic", "queued_refresh", "superseded");
        let text = m.render();
        for line in [
            "# TYPE kubectl_jobset_recorder_revisions_recorded_total counter",
            "kubectl_jobset_recorder_revisions_recorded_total 3",
            "kubectl_jobset_recorder_attempts_credited_total 2",
            "kubectl_jobset_recorder_reconcile_errors_total 0",
            "kubectl_jobset_recorder_watch_restarts_total 0",
            "kubectl_jobset_recorder_revisions_pruned_total 0",
            "# TYPE kubectl_jobset_recorder_deleted_jobset_revisions gauge",
            "kubectl_jobset_recorder_deleted_jobset_revisions 0",
            "kubectl_jobset_recorder_leader 0",
            "# TYPE kubectl_jobset_recorder_event_to_write_seconds histogram",
            "kubectl_jobset_recorder_event_to_write_seconds_bucket{le=\"0.025\"} 0",
            "kubectl_jobset_recorder_event_to_write_seconds_bucket{le=\"0.05\"} 1",
            "kubectl_jobset_recorder_event_to_write_seconds_bucket{le=\"0.75\"} 2",
            "kubectl_jobset_recorder_event_to_write_seconds_bucket{le=\"10\"} 2",
            "kubectl_jobset_recorder_event_to_write_seconds_bucket{le=\"+Inf\"} 3",
            "kubectl_jobset_recorder_event_to_write_seconds_count 3",
            "# TYPE kubectl_jobset_recorder_build_info gauge",
            &format!("kubectl_jobset_recorder_build_info{{version=\"{}\"}} 1", env!("CARGO_PKG_VERSION")),
            "# TYPE process_resident_memory_bytes gauge",
            "# TYPE process_cpu_seconds_total counter",
            "# TYPE kubectl_jobset_recorder_update_strategy_actions_total counter",
            "kubectl_jobset_recorder_update_strategy_actions_total{strategy=\"Immediate\",action=\"restart\",outcome=\"done\"} 2",
            "kubectl_jobset_recorder_update_strategy_actions_total{strategy=\"Opportunistic\",action=\"queued_refresh\",outcome=\"superseded\"} 1",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        let rss = text.lines().find_map(|l| l.strip_prefix("process_resident_memory_bytes ")).unwrap();
        assert!(rss.parse::<f64>().unwrap() > 1_000_000.0, "a running test uses more than 1 MB: {rss}");
    }

    #[test]
    fn ready_needs_synced_watches_and_a_known_lease() {
        let m = Metrics::default();
        assert!(!m.ready());
        m.synced.store(true, Ordering::Relaxed);
        assert!(!m.ready());
        m.lease_known.store(true, Ordering::Relaxed);
        assert!(m.ready(), "a standby replica is ready too");
    }
}
