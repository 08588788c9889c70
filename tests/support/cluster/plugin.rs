//! The built kubectl-jobset against the harness cluster: run to completion, or on a
//! terminal (script(1)) and stopped at its confirmation prompt.

use std::process::{Command, Stdio};

use super::harness::harness;

pub struct PluginOutput {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl std::fmt::Debug for PluginOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit {}\n--- stdout\n{}--- stderr\n{}", self.code, self.stdout, self.stderr)
    }
}

/// Runs the plugin with the harness kubeconfig (unless `args` names one), and `-n` when given.
pub fn run_plugin(args: &[&str], namespace: Option<&str>, env: &[(&str, &str)]) -> PluginOutput {
    let h = harness();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"));
    cmd.args(args);
    if !args.contains(&"--kubeconfig") {
        cmd.arg("--kubeconfig").arg(&h.kubeconfig);
    }
    if let Some(ns) = namespace {
        cmd.args(["-n", ns]);
    }
    cmd.env_remove("KUBECONFIG").env_remove("KUBECTL_JOBSET_RECORD").env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run kubectl-jobset");
    PluginOutput {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The plugin on a terminal (script(1) gives it a pty, so it asks before acting),
/// stopped at its `[y/N]` prompt. `answer` then replies and collects the rest.
pub struct AtPrompt {
    child: std::process::Child,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    /// Everything printed up to and including the prompt.
    pub seen: String,
}

impl AtPrompt {
    pub fn start(args: &str) -> AtPrompt {
        use std::io::Read;
        let h = harness();
        let command = format!(
            "{} {args} --kubeconfig {}",
            env!("CARGO_BIN_EXE_kubectl-jobset"),
            h.kubeconfig.display()
        );
        let mut child = Command::new("script")
            .args(["-qfec", &command, "/dev/null"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("script(1)");
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut seen = String::new();
        let mut chunk = [0u8; 256];
        while !seen.contains("[y/N]") {
            let n = stdout.get_mut().read(&mut chunk).unwrap();
            assert!(n > 0, "no prompt: {seen}");
            seen.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
        AtPrompt { child, stdout, seen }
    }

    /// Answers the prompt; returns the exit code and what was printed after it.
    pub fn answer(mut self, reply: &str) -> (Option<i32>, String) {
        use std::io::{BufRead, Write};
        self.child.stdin.as_mut().unwrap().write_all(format!("{reply}\n").as_bytes()).unwrap();
        let rest: String = self.stdout.lines().map(|l| l.unwrap() + "\n").collect();
        (self.child.wait().unwrap().code(), rest)
    }
}
