//! The campaign's operations as processes: the plugin (through the delay proxy) and
//! plain kubectl edits, each with a hard time limit, and what each one reported.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::checks::RestartReport;

/// A finished (or killed) process.
#[derive(Debug)]
pub struct Ran {
    pub args: Vec<String>,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// Killed at its hard limit.
    pub killed: bool,
}

impl Ran {
    pub fn brief(&self) -> String {
        let last = |text: &str| text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_owned();
        format!(
            "`{}` exit {:?} after {:.1}s{}: stdout {:?} stderr {:?}",
            self.args.join(" "),
            self.code,
            self.elapsed.as_secs_f64(),
            if self.killed { " (killed)" } else { "" },
            last(&self.stdout),
            last(&self.stderr)
        )
    }
}

/// Runs `cmd`, killing it once it has run for `limit`.
pub fn run_timed(mut cmd: Command, limit: Duration) -> Ran {
    let args: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| a.to_string_lossy().into_owned())
        .map(|a| a.rsplit('/').next().unwrap_or(&a).to_owned())
        .collect();
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("spawn a process");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr")));
    let mut killed = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for a process") {
            break status;
        }
        if start.elapsed() >= limit {
            let _ = child.kill();
            killed = true;
            break child.wait().expect("reap a killed process");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let elapsed = start.elapsed();
    Ran {
        args,
        code: status.code(),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        elapsed,
        killed,
    }
}

/// Where the processes point.
pub struct Env {
    pub namespace: String,
    /// The plugin's kubeconfig: through the delay proxy.
    pub proxied: PathBuf,
    /// kubectl's: straight to the API server.
    pub direct: PathBuf,
    pub kubectl: PathBuf,
    /// `--request-timeout` for every command.
    pub request_timeout: Duration,
}

/// Longest a command without `--wait` may run: generous for a handful of requests, each
/// within `--request-timeout`, but far from a hang.
pub const COMMAND_BUDGET: Duration = Duration::from_secs(30);
/// Killed this long after its budget is exceeded (so a hang cannot stall the campaign).
const KILL_GRACE: Duration = Duration::from_secs(5);

impl Env {
    pub fn plugin(&self, args: &[String], budget: Duration) -> Ran {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"));
        cmd.args(args)
            .arg("--kubeconfig")
            .arg(&self.proxied)
            .args(["-n", &self.namespace])
            .arg(format!("--request-timeout={}ms", self.request_timeout.as_millis()))
            .env_remove("KUBECONFIG")
            .env("NO_COLOR", "1");
        run_timed(cmd, budget + KILL_GRACE)
    }

    pub fn kubectl(&self, args: &[&str]) -> Ran {
        kubectl_at(&self.kubectl, &self.direct, &self.namespace, self.request_timeout, args)
    }
}

pub fn kubectl_at(kubectl: &Path, kubeconfig: &Path, ns: &str, timeout: Duration, args: &[&str]) -> Ran {
    let mut cmd = Command::new(kubectl);
    cmd.arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["-n", ns])
        .arg(format!("--request-timeout={}ms", timeout.as_millis()))
        .args(args)
        .env_remove("KUBECONFIG");
    run_timed(cmd, COMMAND_BUDGET + KILL_GRACE)
}

/// What the restart process reported.
pub fn restart_report(ran: &Ran) -> RestartReport {
    if ran.stdout.contains(" already restarted (attempt ") {
        return RestartReport::Already;
    }
    if let Some(rest) = ran.stdout.split(" restarted (attempt ").nth(1) {
        let numbers: Vec<i64> =
            rest.split(')').next().unwrap_or("").split(" → ").filter_map(|n| n.trim().parse().ok()).collect();
        if let [from, to] = numbers[..] {
            return RestartReport::Restarted { from, to };
        }
    }
    if !ran.killed && ran.code == Some(1) && ran.stderr.contains(" not restarted: ") {
        return RestartReport::Refused;
    }
    RestartReport::Unknown
}

/// Why a restart was refused, in a few words (for the tally).
pub fn refusal_kind(stderr: &str) -> &'static str {
    if stderr.contains("still in progress") {
        "in progress"
    } else if stderr.contains("kept changing") {
        "kept changing"
    } else if stderr.contains("--expect-attempt") {
        "expect-attempt"
    } else {
        "other"
    }
}

/// What a rollback did: the image step its preview showed (what it read → what it
/// writes), and whether it was applied.
#[derive(Debug, PartialEq, Eq)]
pub enum RollbackReport {
    Applied {
        from: String,
        to: String,
    },
    /// Refused because the templates changed since it read them.
    Conflict,
    /// Refused otherwise (no revision before the spec's, ...), or nothing to do.
    Refused,
    /// It failed after showing its preview: the patch may have landed.
    Unknown {
        from: String,
        to: String,
    },
    /// It failed before any preview: nothing was written.
    Failed,
}

/// The first replicatedJob's image change in a rollback's preview (`first` names it).
pub fn preview_step(stdout: &str, first: &str) -> Option<(String, String)> {
    let header = format!("replicatedJobs[{first}].template (spec now)");
    let mut in_first = false;
    let (mut from, mut to) = (None, None);
    for line in stdout.lines() {
        if line.starts_with("--- ") {
            in_first = line.ends_with(&header);
            continue;
        }
        if !in_first || line.starts_with("+++ ") {
            continue;
        }
        let image = |l: &str| {
            let text = l[1..].trim();
            let text = text.strip_prefix("- ").unwrap_or(text);
            text.strip_prefix("image: ").map(|s| s.trim().to_owned())
        };
        if line.starts_with('-') && from.is_none() {
            from = image(line);
        } else if line.starts_with('+') && to.is_none() {
            to = image(line);
        }
    }
    match (from, to) {
        (Some(f), Some(t)) => Some((f, t)),
        _ => None,
    }
}

pub fn rollback_report(ran: &Ran, first: &str) -> RollbackReport {
    let step = preview_step(&ran.stdout, first);
    let ok = !ran.killed && ran.code == Some(0);
    if ok && ran.stdout.contains("skipped rollback: already at revision") {
        return RollbackReport::Refused;
    }
    if ok && ran.stdout.contains(" rolled back to revision ") {
        // No image line in the preview: the first replicatedJob's image stays (a step
        // from a state to itself, which the linearity check ignores).
        let (from, to) = step.unwrap_or_default();
        return RollbackReport::Applied { from, to };
    }
    if !ran.killed
        && ran.code == Some(1)
        && ran.stderr.contains("changed by someone else since they were read")
    {
        return RollbackReport::Conflict;
    }
    if !ran.killed
        && ran.code == Some(1)
        && (ran.stderr.contains(" not rolled back: ")
            || ran.stderr.contains("no revision before the spec's")
            || ran.stderr.contains("no history recorded"))
    {
        return RollbackReport::Refused;
    }
    match step {
        Some((from, to)) => RollbackReport::Unknown { from, to },
        None => RollbackReport::Failed,
    }
}

/// What a guarded kubectl edit did.
#[derive(Debug)]
pub enum EditReport {
    Applied {
        from: String,
        to: String,
    },
    /// The `test` op failed: someone changed the image since it was read.
    Conflict,
    /// The patch failed otherwise: it may have landed.
    Unknown {
        from: String,
        to: String,
    },
    /// The read failed: nothing was written.
    Failed(String),
}

pub const IMAGE_PATH: &str = "/spec/replicatedJobs/0/template/spec/template/spec/containers/0/image";

/// Reads the first replicatedJob's image, waits `think`, then replaces it with `to`,
/// guarded by a JSON patch `test` on what it read.
pub fn edit(env: &Env, jobset: &str, to: &str, think: Duration) -> (EditReport, Vec<Ran>) {
    let read = env.kubectl(&[
        "get",
        "jobset",
        jobset,
        "-o",
        "jsonpath={.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image}",
    ]);
    if read.code != Some(0) {
        let why = read.brief();
        return (EditReport::Failed(why), vec![read]);
    }
    let from = read.stdout.trim().to_owned();
    std::thread::sleep(think);
    let patch = serde_json::json!([
        {"op": "test", "path": IMAGE_PATH, "value": from},
        {"op": "replace", "path": IMAGE_PATH, "value": to},
    ])
    .to_string();
    let wrote = env.kubectl(&["patch", "jobset", jobset, "--type=json", "-p", &patch]);
    let report = if wrote.code == Some(0) && !wrote.killed {
        EditReport::Applied { from, to: to.to_owned() }
    } else if wrote.stderr.contains("error in our request") {
        EditReport::Conflict
    } else {
        EditReport::Unknown { from, to: to.to_owned() }
    };
    (report, vec![read, wrote])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(code: i32, stdout: &str, stderr: &str) -> Ran {
        Ran {
            args: vec![],
            code: Some(code),
            stdout: stdout.into(),
            stderr: stderr.into(),
            elapsed: Duration::ZERO,
            killed: false,
        }
    }

    #[test]
    fn restart_reports() {
        let r = ran(0, "jobset.jobset.x-k8s.io/a restarted (attempt 2 → 3)\n", "");
        assert_eq!(restart_report(&r), RestartReport::Restarted { from: 2, to: 3 });
        let r = ran(0, "jobset.jobset.x-k8s.io/a already restarted (attempt 3)\n", "");
        assert_eq!(restart_report(&r), RestartReport::Already);
        let r = ran(
            1,
            "",
            "error: jobset.jobset.x-k8s.io/a not restarted: the previous restart is still in progress",
        );
        assert_eq!(restart_report(&r), RestartReport::Refused);
        // Restarted, then --wait timed out: still a restart.
        let r = ran(1, "jobset.jobset.x-k8s.io/a restarted (attempt 0 → 1)\n", "error: timed out after 3s");
        assert_eq!(restart_report(&r), RestartReport::Restarted { from: 0, to: 1 });
        assert_eq!(restart_report(&ran(1, "", "error: cannot reach")), RestartReport::Unknown);
    }

    #[test]
    fn rollback_previews_name_the_image_step() {
        let stdout = "\
--- ns/a replicatedJobs[driver].template (spec now)
+++ revision 1 replicatedJobs[driver].template
@@ spec @@
-  foo: 1
+  foo: 2
--- ns/a replicatedJobs[workers].template (spec now)
+++ revision 1 replicatedJobs[workers].template
@@ spec.template.spec.containers[0] @@
         containers:
-        - image: busybox:s3-1
+        - image: busybox:1.36
           name: main
jobset.jobset.x-k8s.io/a rolled back to revision 1 (now revision 4)
";
        let step = Some(("busybox:s3-1".to_owned(), "busybox:1.36".to_owned()));
        assert_eq!(preview_step(stdout, "workers"), step);
        assert_eq!(
            rollback_report(&ran(0, stdout, ""), "workers"),
            RollbackReport::Applied { from: "busybox:s3-1".into(), to: "busybox:1.36".into() }
        );
        let conflict = "error: jobset.jobset.x-k8s.io/a not rolled back: its templates were changed by someone \
                        else since they were read, so nothing was changed";
        assert_eq!(rollback_report(&ran(1, stdout, conflict), "workers"), RollbackReport::Conflict);
        assert!(matches!(
            rollback_report(&ran(1, stdout, "error: cannot reach"), "workers"),
            RollbackReport::Unknown { .. }
        ));
    }
}
