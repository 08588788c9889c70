//! Issue 19, point 3: transient faults proven with faults, not mocks. Every command runs
//! through the fault proxy (tests/support/netproxy.rs) in front of the harness cluster,
//! with a fault on one request (and, for restart and rollback, on every such request):
//! a read (the LIST of JobSets or Jobs), the server-side dry run, or a write (the
//! restart's status PATCH, the rollback's template PATCH, a ControllerRevision create).
//! Each case ends one of two ways:
//!
//! - it succeeds, with the exit code it has without the fault, and the proxy's log shows
//!   the fault injected and what followed (the request sent again, or for a write whose
//!   answer was lost after it landed, a re-read that recognised it, and nothing sent again);
//! - it fails naming the cause (never suggesting --insecure-skip-tls-verify), and nothing
//!   changed: the JobSet's resourceVersion, spec and status.restarts and its
//!   ControllerRevisions are as before.
//!
//! Writes land exactly once: one forwarded status PATCH per restart (status.restarts + 1),
//! one forwarded template PATCH per rollback, one revision per template.
//!
//! All cases of a test are run, and the ones that went wrong are listed together.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::Api;
use kube::api::ListParams;
use serde_json::{Value, json};

use super::SERIAL;
use crate::netproxy_client::NetProxy;
use crate::support::*;

/// Each plugin run: its own budget per request, and a hard limit on the process.
const REQUEST_TIMEOUT: &str = "10s";
const PROCESS_LIMIT: Duration = Duration::from_secs(60);

/// The faults, as the proxy's schedule spells them.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// 429 with `Retry-After: 1`.
    Throttled,
    /// 503.
    Unavailable,
    /// 500.
    Internal,
    ResetBeforeForward,
    ResetAfterForward,
    /// The headers and 64 bytes of the body, then the connection closes.
    Cut,
    /// The whole answer, 256 bytes every 40 ms.
    Drip,
}

use Fault::*;

impl Fault {
    fn schedule(self) -> Value {
        match self {
            Throttled => json!({"kind": "status", "code": 429, "retry_after": 1}),
            Unavailable => json!({"kind": "status", "code": 503}),
            Internal => json!({"kind": "status", "code": 500}),
            ResetBeforeForward => json!({"kind": "reset_before_forward"}),
            ResetAfterForward => json!({"kind": "reset_after_forward"}),
            Cut => json!({"kind": "cut", "bytes": 64}),
            Drip => json!({"kind": "drip", "bytes": 256, "every_ms": 40}),
        }
    }

    /// The `fault` field of the proxy's log.
    fn logged(self) -> &'static str {
        match self {
            Throttled | Unavailable | Internal => "status",
            ResetBeforeForward => "reset_before_forward",
            ResetAfterForward => "reset_after_forward",
            Cut => "cut",
            Drip => "drip",
        }
    }
}

/// Which request the fault hits (the first one matching).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    /// LIST of JobSets (`list -A`).
    ListJobSets,
    /// LIST of Jobs.
    ListJobs,
    /// The server-side dry-run create of a probe Job (`dryRun=All`).
    DryRun,
    /// The restart's guarded status PATCH.
    StatusPatch,
    /// The rollback's guarded template PATCH.
    TemplatePatch,
    /// A ControllerRevision create (history recording).
    RevisionCreate,
}

impl Target {
    fn rule(self, fault: Fault, times: Times) -> Value {
        let (method, path, query) = match self {
            Target::ListJobSets => ("LIST", "/jobsets", None),
            Target::ListJobs => ("LIST", "/apis/batch/v1/", None),
            Target::DryRun => ("POST", "/apis/batch/v1/", Some("dryRun=All")),
            Target::StatusPatch => ("PATCH", "/status", None),
            Target::TemplatePatch => ("PATCH", "/jobsets/", None),
            Target::RevisionCreate => ("POST", "/controllerrevisions", None),
        };
        let mut rule = json!({"method": method, "path": path, "query": query, "fault": fault.schedule()});
        match times {
            Times::Once => rule["nth"] = json!([1]),
            Times::Always => rule["every"] = json!(1),
        }
        json!([rule])
    }
}

/// Whether the fault hits the first matching request only, or every one.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Times {
    Once,
    Always,
}

/// How a case must end.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ending {
    /// Succeeds: the faulted request was sent again and answered.
    Retried,
    /// Succeeds: the faulted write landed and its answer was lost; a re-read recognised
    /// it, and it was not sent again.
    Recognised,
    /// Succeeds, only slower: answered in full the first time, never retried.
    Slow,
    /// Fails, the message naming the cause; nothing changed.
    Diagnosed(&'static str),
}

use Ending::*;

/// A read: retried after anything transient. A 500 is not transient (the server failed
/// processing it and would again), so it is reported.
const READS: [(Fault, Ending); 7] = [
    (Throttled, Retried),
    (Unavailable, Retried),
    (Internal, Diagnosed("had an internal error (500 InternalError)")),
    (ResetBeforeForward, Retried),
    (ResetAfterForward, Retried),
    (Cut, Retried),
    (Drip, Slow),
];

/// A guarded write: sent again when it cannot have landed (refused, or lost before
/// reaching the server, or a 5xx the re-read shows did not apply), recognised by
/// re-reading when it landed and its answer was lost.
const WRITES: [(Fault, Ending); 7] = [
    (Throttled, Retried),
    (Unavailable, Retried),
    (Internal, Retried),
    (ResetBeforeForward, Retried),
    (ResetAfterForward, Recognised),
    (Cut, Recognised),
    (Drip, Slow),
];

/// The same request failing every time: the retries run out and the failure is named,
/// or a write that landed is recognised at once.
const PERSISTENT_READS: [(Fault, Ending); 4] = [
    (Throttled, Diagnosed("is throttling requests (429 Too Many Requests")),
    (Unavailable, Diagnosed("is unavailable (503 ServiceUnavailable)")),
    (ResetBeforeForward, Diagnosed("closed before the answer was complete")),
    (Cut, Diagnosed("closed before the answer was complete")),
];

const PERSISTENT_WRITES: [(Fault, Ending); 4] = [
    (Unavailable, Diagnosed("is unavailable (503 ServiceUnavailable)")),
    (ResetBeforeForward, Diagnosed("closed before the answer was complete")),
    (ResetAfterForward, Recognised),
    (Cut, Recognised),
];

/// One row of the matrix.
#[derive(Debug, Clone, Copy)]
struct Case {
    target: Target,
    fault: Fault,
    times: Times,
    ending: Ending,
}

/// The rows of `table` with the fault on `target`.
fn cases(target: Target, times: Times, table: &[(Fault, Ending)]) -> impl Iterator<Item = Case> + '_ {
    table.iter().map(move |&(fault, ending)| Case { target, fault, times, ending })
}

/// Failed expectations, collected so that one bad case does not hide the others.
#[derive(Default)]
struct Findings(Vec<String>);

impl Findings {
    fn check(&mut self, case: &str, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(format!("{case}: {}", what()));
        }
    }

    fn assert_none(self, test: &str) {
        assert!(self.0.is_empty(), "{test}: {} failing case(s):\n{}", self.0.len(), self.0.join("\n"));
    }
}

/// The plugin's run through a faults proxy, and the proxy's log of it.
struct Run {
    case: String,
    /// The exit code of a failure: 2 for diff (1 means "differences", as for kubectl diff), else 1.
    error_code: i32,
    out: PluginOutput,
    took: Duration,
    /// The proxy's log, in request order.
    log: Vec<Value>,
}

impl Run {
    /// Runs the plugin with `args` (plus `-n NS` unless `args` has -A) through a proxy
    /// applying the case's fault.
    fn through(ns: &TestNs, case: &Case, args: &[&str]) -> Run {
        let Case { target, fault, times, .. } = *case;
        let every = if times == Times::Always { " every time" } else { "" };
        let case = format!("`{}` with {fault:?} on {target:?}{every}", args.join(" "));
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("faults.jsonl");
        let rules = target.rule(fault, times).to_string();
        let proxy = NetProxy::faults_for_cluster(&harness().state, &rules, &log);
        let kubeconfig = dir.path().join("faults.kubeconfig");
        proxy.kubeconfig_via(&harness().kubeconfig, &kubeconfig);
        let mut full: Vec<&str> = args.to_vec();
        if !args.contains(&"-A") {
            full.extend(["-n", &ns.name]);
        }
        full.extend(["--request-timeout", REQUEST_TIMEOUT]);
        let started = Instant::now();
        let out = plugin_within(&full, &kubeconfig, PROCESS_LIMIT);
        let took = started.elapsed();
        let mut log = proxy.log_entries();
        log.sort_by_key(|e| e["seq"].as_u64());
        let error_code = if args[0] == "diff" { 2 } else { 1 };
        Run { case, error_code, out, took, log }
    }

    /// The requests the fault hit.
    fn hits(&self) -> Vec<&Value> {
        self.log.iter().filter(|e| e["rule"] == 0).collect()
    }

    /// Requests like `entry` (method, path, dry run or not) after it.
    fn same_after<'a>(&'a self, entry: &'a Value) -> impl Iterator<Item = &'a Value> + 'a {
        let dry = |e: &Value| e["query"].as_str().unwrap_or("").contains("dryRun=All");
        self.log.iter().filter(move |e| {
            e["seq"].as_u64() > entry["seq"].as_u64()
                && e["method"] == entry["method"]
                && e["path"] == entry["path"]
                && dry(e) == dry(entry)
        })
    }

    /// Requests with this method on a path containing `path`, that reached the API server.
    fn forwarded(&self, method: &str, path: &str) -> usize {
        let hit = |e: &&Value| {
            e["method"] == method
                && e["path"].as_str().is_some_and(|p| p.contains(path))
                && e["forwarded"] == true
        };
        self.log.iter().filter(hit).count()
    }

    fn summary(&self) -> String {
        let lines: Vec<String> = self
            .log
            .iter()
            .map(|e| {
                format!(
                    "  {} {} {}?{} fault={} forwarded={} status={}",
                    e["seq"], e["verb"], e["path"], e["query"], e["fault"], e["forwarded"], e["status"]
                )
            })
            .collect();
        format!("{:?} in {:.1}s\n--- proxy log\n{}", self.out, self.took.as_secs_f64(), lines.join("\n"))
    }

    /// What every case checks: the exit code and message the ending calls for, and the
    /// proxy log showing the fault and what followed it.
    fn check_ending(&self, row: &Case, code_without_fault: i32, findings: &mut Findings) {
        let Case { fault, times, ending, .. } = *row;
        let case = self.case.as_str();
        // The matrix, shown with --nocapture.
        #[allow(clippy::print_stderr)]
        {
            eprintln!("{case} -> {ending:?}: exit {} in {:.1}s", self.out.code, self.took.as_secs_f64());
        }
        let mentions_insecure = self.out.stderr.contains("insecure-skip-tls-verify");
        findings.check(case, !mentions_insecure, || {
            format!("suggests --insecure-skip-tls-verify:\n{}", self.summary())
        });
        findings.check(case, self.out.code != -1, || {
            format!("killed after {PROCESS_LIMIT:?}:\n{}", self.summary())
        });
        let hits = self.hits();
        let Some(&injected) = hits.first() else {
            findings.check(case, false, || format!("the fault was never injected:\n{}", self.summary()));
            return;
        };
        findings.check(case, injected["fault"] == fault.logged(), || format!("wrong fault: {injected}"));
        // Once: one hit. Every time: tried again before giving up, or (a write that
        // landed) recognised without sending it again.
        let expected_hits = match (times, ending) {
            (Times::Always, Diagnosed(_)) => hits.len() >= 2,
            _ => hits.len() == 1,
        };
        findings.check(case, expected_hits, || {
            format!("the fault hit {} request(s):\n{}", hits.len(), self.summary())
        });
        match ending {
            Diagnosed(cause) => {
                let code = self.error_code;
                findings.check(case, self.out.code == code, || {
                    format!("expected exit {code}:\n{}", self.summary())
                });
                findings.check(case, last_line(&self.out.stderr).contains(cause), || {
                    format!("expected the message to name the cause ({cause:?}):\n{}", self.summary())
                });
                return;
            }
            _ => findings.check(case, self.out.code == code_without_fault, || {
                format!("expected exit {code_without_fault}, as without the fault:\n{}", self.summary())
            }),
        }
        let answered_later =
            self.same_after(injected).any(|e| e["forwarded"] == true && is_2xx(&e["status"]));
        match ending {
            Retried => findings.check(case, answered_later, || {
                format!("no retry of the faulted request was answered:\n{}", self.summary())
            }),
            Recognised => {
                let again = self.same_after(injected).count();
                findings.check(case, injected["forwarded"] == true && again == 0, || {
                    format!(
                        "the write should have reached the server once and not been sent again:\n{}",
                        self.summary()
                    )
                });
                // The re-read: the object (or the collection) the write went to.
                let object = injected["path"].as_str().unwrap_or_default().trim_end_matches("/status");
                let reread = self.log.iter().any(|e| {
                    e["seq"].as_u64() > injected["seq"].as_u64()
                        && (e["verb"] == "GET" || e["verb"] == "LIST")
                        && e["path"] == object
                        && is_2xx(&e["status"])
                });
                findings.check(case, reread, || {
                    format!("no re-read of {object} after the lost answer:\n{}", self.summary())
                });
            }
            Slow => findings.check(
                case,
                is_2xx(&injected["status"]) && !self.out.stderr.contains("retrying"),
                || format!("a dripped answer should be read in full, without a retry:\n{}", self.summary()),
            ),
            Diagnosed(_) => unreachable!(),
        }
    }
}

fn is_2xx(status: &Value) -> bool {
    status.as_u64().is_some_and(|s| (200..300).contains(&s))
}

/// The plugin with `kubeconfig`, killed if it runs longer than `limit` (exit code -1).
fn plugin_within(args: &[&str], kubeconfig: &Path, limit: Duration) -> PluginOutput {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .arg("-v=6")
        .env_remove("KUBECONFIG")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kubectl-jobset");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code().unwrap_or(-1);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    PluginOutput { code, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}

/// The last line of the plugin's stderr (at -v=6, the error when it failed).
fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

/// What a failed command must leave as it was.
#[derive(Debug, PartialEq)]
struct Snapshot {
    resource_version: Value,
    spec: Value,
    restarts: Value,
    /// Name, resourceVersion and revision of each ControllerRevision.
    revisions: Vec<(String, String, i64)>,
}

impl Snapshot {
    async fn of(ns: &TestNs, jobset: &str) -> Snapshot {
        let js = ns.jobset(jobset).await;
        let mut revisions: Vec<(String, String, i64)> = revisions_of(ns, jobset)
            .await
            .into_iter()
            .map(|r| (r.metadata.name.unwrap(), r.metadata.resource_version.unwrap(), r.revision))
            .collect();
        revisions.sort();
        Snapshot {
            resource_version: js["metadata"]["resourceVersion"].clone(),
            spec: js["spec"].clone(),
            restarts: js["status"]["restarts"].clone(),
            revisions,
        }
    }

    /// Once the controller has stopped updating the JobSet (its resourceVersion holds
    /// for a second), so that a change seen afterwards is the command's.
    async fn settled(ns: &TestNs, jobset: &str) -> Snapshot {
        let mut last = Snapshot::of(ns, jobset).await;
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let now = Snapshot::of(ns, jobset).await;
            if now == last {
                return now;
            }
            last = now;
        }
    }
}

async fn revisions_of(ns: &TestNs, jobset: &str) -> Vec<ControllerRevision> {
    let api: Api<ControllerRevision> = Api::namespaced(ns.client.clone(), &ns.name);
    let lp = ListParams::default().labels(&format!("kubectl-jobset.io/jobset-name={jobset}"));
    api.list(&lp).await.expect("list controllerrevisions").items
}

/// Each ControllerRevision's first template image, and whether no template is recorded
/// twice (one revision per template hash, distinct revision numbers).
async fn recorded_images(ns: &TestNs, jobset: &str) -> (Vec<String>, bool) {
    let revisions = revisions_of(ns, jobset).await;
    let mut hashes: Vec<String> = revisions
        .iter()
        .map(|r| r.metadata.labels.as_ref().unwrap()["kubectl-jobset.io/template-hash"].clone())
        .collect();
    let mut numbers: Vec<i64> = revisions.iter().map(|r| r.revision).collect();
    let images = revisions
        .iter()
        .map(|r| {
            let data = serde_json::to_value(&r.data).unwrap();
            let spec = &data["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
            spec["containers"][0]["image"].as_str().unwrap_or_default().to_owned()
        })
        .collect();
    let count = revisions.len();
    hashes.sort();
    hashes.dedup();
    numbers.sort();
    numbers.dedup();
    (images, hashes.len() == count && numbers.len() == count)
}

/// A one-Job JobSet, its attempt 0 settled (its Job's pods ready).
async fn one_job_jobset(ns: &TestNs, name: &str) {
    ns.create(&jobset_yaml(name, &[("workers", 1, "busybox:1.36")], ""));
    ns.settle(name, 0, 1).await;
}

fn image_of_jobset(js: &Value) -> String {
    let spec = &js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"];
    spec["containers"][0]["image"].as_str().unwrap().to_owned()
}

/// The first replicatedJob's first container changed to `image`, by kubectl.
pub(super) fn set_image(ns: &TestNs, jobset: &str, image: &str) {
    let patch = format!(
        r#"[{{"op":"replace","path":"/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image","value":"{image}"}}]"#
    );
    let out = ns.kubectl(&["patch", "jobset", jobset, "--type=json", "-p", &patch]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The plugin straight at the API server, no proxy.
fn direct(ns: &TestNs, args: &[&str]) -> PluginOutput {
    let out = ns.plugin(args);
    assert_eq!(out.code, 0, "{out:?}");
    out
}

/// The failed case left the JobSet and its history as they were.
async fn check_unchanged(ns: &TestNs, jobset: &str, before: &Snapshot, run: &Run, findings: &mut Findings) {
    let after = Snapshot::of(ns, jobset).await;
    findings.check(&run.case, &after == before, || {
        format!("failed, but changed the JobSet or its history: before {before:?}, after {after:?}")
    });
}

/// For a case that must fail: the state it must leave untouched. History is brought up
/// to date first (`history --record` records what it sees, e.g. the attempts an earlier
/// restart added to the running revision), so that what changes is the failed command's.
async fn before_failing(ns: &TestNs, jobset: &str, case: &Case) -> Option<Snapshot> {
    match case.ending {
        Diagnosed(_) => {
            direct(ns, &["history", jobset, "--record"]);
            Some(Snapshot::settled(ns, jobset).await)
        }
        _ => None,
    }
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn list_all_namespaces_through_transient_faults() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("transient-list").await;
    ns.create(&jobset_yaml("listed", &[("workers", 1, "busybox:1.36")], ""));
    let mut findings = Findings::default();
    for case in cases(Target::ListJobSets, Times::Once, &READS) {
        let run = Run::through(&ns, &case, &["list", "-A"]);
        run.check_ending(&case, 0, &mut findings);
        if !matches!(case.ending, Diagnosed(_)) {
            let ours = |l: &&str| l.starts_with(&format!("{} ", ns.name)) && l.contains(" listed ");
            let listed = run.out.stdout.lines().any(|l| ours(&l));
            findings.check(&run.case, listed, || format!("our JobSet is not listed:\n{}", run.summary()));
        }
    }
    findings.assert_none("list -A");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn diff_through_transient_faults() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("transient-diff").await;
    one_job_jobset(&ns, "train").await;
    // Drift, so that `diff --server-dry-run` confirms it with a dry run (a JobSet whose
    // Jobs run its spec needs none; a plain diff makes none) and the dry-run faults are met.
    set_image(&ns, "train", "busybox:1.37");
    let diff = ["diff", "train", "--server-dry-run"];
    let without = ns.plugin(&diff);
    assert_eq!(without.code, 1, "drift: {without:?}");
    let mut findings = Findings::default();
    for case in cases(Target::ListJobs, Times::Once, &READS).chain(cases(Target::DryRun, Times::Once, &READS))
    {
        let before = before_failing(&ns, "train", &case).await;
        let run = Run::through(&ns, &case, &diff);
        run.check_ending(&case, without.code, &mut findings);
        match before {
            Some(before) => check_unchanged(&ns, "train", &before, &run, &mut findings).await,
            None => findings.check(&run.case, run.out.stdout == without.stdout, || {
                format!(
                    "output differs from the run without the fault ({:?}):\n{}",
                    without.stdout,
                    run.summary()
                )
            }),
        }
    }
    findings.assert_none("diff");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn history_through_transient_faults_records_each_template_once() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("transient-history").await;
    one_job_jobset(&ns, "train").await;
    direct(&ns, &["history", "train", "--record"]);
    let mut findings = Findings::default();
    for case in cases(Target::ListJobs, Times::Once, &READS) {
        let before = before_failing(&ns, "train", &case).await;
        let run = Run::through(&ns, &case, &["history", "train", "--record"]);
        run.check_ending(&case, 0, &mut findings);
        match before {
            Some(before) => check_unchanged(&ns, "train", &before, &run, &mut findings).await,
            None => findings.check(&run.case, run.out.stdout.contains("workers=busybox:1.36"), || {
                format!("the revision is not shown:\n{}", run.summary())
            }),
        }
    }
    // A new template in the spec each time: its ControllerRevision create meets the fault,
    // and the template is recorded exactly once.
    for (i, case) in cases(Target::RevisionCreate, Times::Once, &WRITES).enumerate() {
        let image = format!("busybox:1.{}", 40 + i);
        set_image(&ns, "train", &image);
        let run = Run::through(&ns, &case, &["history", "train", "--record"]);
        run.check_ending(&case, 0, &mut findings);
        let (images, one_per_template) = recorded_images(&ns, "train").await;
        let recorded = images.iter().filter(|i| **i == image).count();
        findings.check(&run.case, one_per_template && recorded == 1, || {
            format!(
                "expected one revision per template, {image} once; recorded {images:?}:\n{}",
                run.summary()
            )
        });
        let created = run.forwarded("POST", "/controllerrevisions");
        findings.check(&run.case, created == 1, || {
            format!("{created} creates reached the server:\n{}", run.summary())
        });
        let shown = run.out.stdout.matches(&format!("workers={image}")).count();
        findings.check(&run.case, shown == 1, || {
            format!("history shows {image} {shown} times:\n{}", run.summary())
        });
    }
    findings.assert_none("history");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn restart_through_transient_faults_restarts_exactly_once() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("transient-restart").await;
    one_job_jobset(&ns, "train").await;
    let mut findings = Findings::default();
    let all = cases(Target::ListJobs, Times::Once, &READS)
        .chain(cases(Target::ListJobs, Times::Always, &PERSISTENT_READS))
        .chain(cases(Target::StatusPatch, Times::Once, &WRITES))
        .chain(cases(Target::StatusPatch, Times::Always, &PERSISTENT_WRITES));
    for case in all {
        // A restart is refused while the previous one is in progress: let it finish.
        let attempt = ns.jobset("train").await["status"]["restarts"].as_i64().unwrap_or(0);
        ns.settle("train", attempt as i32, 1).await;
        let before = before_failing(&ns, "train", &case).await;
        let run = Run::through(&ns, &case, &["restart", "train"]);
        run.check_ending(&case, 0, &mut findings);
        let patches = run.forwarded("PATCH", "/status");
        if let Some(before) = before {
            check_unchanged(&ns, "train", &before, &run, &mut findings).await;
            findings
                .check(&run.case, patches == 0, || format!("{patches} status PATCHes reached the server"));
            continue;
        }
        let restarts = ns.jobset("train").await["status"]["restarts"].as_i64().unwrap_or(0);
        let said = format!("jobset.jobset.x-k8s.io/train restarted (attempt {attempt} → {})", attempt + 1);
        let once = restarts == attempt + 1 && patches == 1 && run.out.stdout.trim() == said;
        findings.check(&run.case, once, || {
            format!(
                "expected exactly one restart ({said:?}, one forwarded status PATCH); \
                 status.restarts {attempt} -> {restarts}, {patches} status PATCHes forwarded:\n{}",
                run.summary()
            )
        });
    }
    findings.assert_none("restart");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn rollback_through_transient_faults_rolls_back_exactly_once() {
    let _serial = SERIAL.lock().await;
    let ns = TestNs::new("transient-rollback").await;
    one_job_jobset(&ns, "train").await;
    direct(&ns, &["history", "train", "--record"]);
    let mut findings = Findings::default();
    let all = cases(Target::ListJobs, Times::Once, &READS)
        .chain(cases(Target::TemplatePatch, Times::Once, &WRITES))
        .chain(cases(Target::TemplatePatch, Times::Always, &PERSISTENT_WRITES));
    for (i, case) in all.enumerate() {
        // A new template in the spec, recorded: the rollback goes back to the one before.
        let previous = image_of_jobset(&ns.jobset("train").await);
        let image = format!("busybox:1.{}", 40 + i);
        set_image(&ns, "train", &image);
        direct(&ns, &["history", "train", "--record"]);
        let before = before_failing(&ns, "train", &case).await;
        let run = Run::through(&ns, &case, &["rollback", "train", "-y"]);
        run.check_ending(&case, 0, &mut findings);
        let patches = run.forwarded("PATCH", "/jobsets/train");
        if let Some(before) = before {
            check_unchanged(&ns, "train", &before, &run, &mut findings).await;
            findings
                .check(&run.case, patches == 0, || format!("{patches} template PATCHes reached the server"));
            continue;
        }
        let now = image_of_jobset(&ns.jobset("train").await);
        let said = run.out.stdout.contains("jobset.jobset.x-k8s.io/train rolled back to revision");
        findings.check(&run.case, now == previous && patches == 1 && said, || {
            format!(
                "expected the spec back at {previous} with one forwarded template PATCH; \
                 the spec has {now}, {patches} PATCHes forwarded:\n{}",
                run.summary()
            )
        });
        let (images, one_per_template) = recorded_images(&ns, "train").await;
        findings.check(&run.case, one_per_template, || format!("a template recorded twice: {images:?}"));
    }
    findings.assert_none("rollback");
}
