//! Test side of tests/support/netproxy.rs: starts the `netproxy` example as a child
//! process, reads the address it listens on, and writes kubeconfig copies that point at
//! it. The child is killed when the handle drops (and exits by itself if the test
//! process dies, through `--stdin-lifeline`).
//!
//! `cargo test` builds the example; `cargo test --test NAME` alone does not, so run
//! `cargo build --examples` first in that case (or set NETPROXY_BIN).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// A running netproxy.
pub struct NetProxy {
    child: Child,
    /// Where clients connect: 127.0.0.1 and a free port.
    pub addr: SocketAddr,
    /// The request log of a faults proxy.
    pub log: Option<PathBuf>,
}

/// The `netproxy` example next to this test executable (target/<profile>/examples).
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("NETPROXY_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps");
    let path = profile_dir.join("examples").join(format!("netproxy{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "no netproxy at {}: run `cargo build --examples` (a plain `cargo test` builds it too)",
        path.display()
    );
    path
}

/// Where a kubeconfig's first cluster points: the https URL and its host:port.
pub fn kubeconfig_server(kubeconfig: &Path) -> String {
    let config = kube::config::Kubeconfig::read_from(kubeconfig).expect("read kubeconfig");
    let cluster =
        config.clusters.first().and_then(|c| c.cluster.as_ref()).expect("a cluster in the kubeconfig");
    cluster.server.clone().expect("the cluster's server URL")
}

impl NetProxy {
    /// Starts `netproxy MODE --listen 127.0.0.1:0 ARGS...` and waits for its address.
    pub fn start(mode: &str, args: &[String], log: Option<PathBuf>) -> NetProxy {
        let mut child = Command::new(binary())
            .arg(mode)
            .args(["--listen", "127.0.0.1:0", "--stdin-lifeline"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start netproxy");
        let mut first = String::new();
        let stdout = child.stdout.take().expect("netproxy stdout");
        let _ = BufReader::new(stdout).read_line(&mut first);
        let addr = first.trim().strip_prefix("listening on ").and_then(|a| a.parse().ok());
        let Some(addr) = addr else {
            let _ = child.kill();
            let status = child.wait();
            panic!("netproxy {mode} {args:?} did not start (first line {first:?}, {status:?})");
        };
        NetProxy { child, addr, log }
    }

    /// A delay proxy in front of `upstream` (host:port).
    pub fn delay(upstream: &str, delay_ms: u64, jitter_ms: u64, seed: u64) -> NetProxy {
        let args = [
            format!("--upstream={upstream}"),
            format!("--delay-ms={delay_ms}"),
            format!("--jitter-ms={jitter_ms}"),
            format!("--seed={seed}"),
        ];
        Self::start("delay", &args, None)
    }

    /// A faults proxy in front of `upstream` (https URL), presenting `cert`/`key`,
    /// with the schedule `rules` (JSON), logging to `log`.
    pub fn faults(
        upstream: &str,
        upstream_ca: &Path,
        cert: &Path,
        key: &Path,
        rules: &str,
        log: &Path,
    ) -> NetProxy {
        let args = [
            format!("--upstream={upstream}"),
            format!("--upstream-ca={}", upstream_ca.display()),
            format!("--cert={}", cert.display()),
            format!("--key={}", key.display()),
            format!("--rules={rules}"),
            format!("--log={}", log.display()),
            "--seed=1".to_owned(),
        ];
        Self::start("faults", &args, Some(log.to_owned()))
    }

    /// A delay proxy in front of the harness cluster in `state` (tests/cluster/cluster.sh).
    pub fn delay_for_cluster(state: &Path, delay_ms: u64) -> NetProxy {
        let server = kubeconfig_server(&state.join("admin.kubeconfig"));
        Self::delay(server.trim_start_matches("https://"), delay_ms, 0, 1)
    }

    /// A faults proxy in front of the harness cluster in `state`, presenting the API
    /// server's own certificate (pki/apiserver.crt, whose SANs include 127.0.0.1).
    pub fn faults_for_cluster(state: &Path, rules: &str, log: &Path) -> NetProxy {
        let server = kubeconfig_server(&state.join("admin.kubeconfig"));
        let pki = state.join("pki");
        Self::faults(
            &server,
            &pki.join("ca.crt"),
            &pki.join("apiserver.crt"),
            &pki.join("apiserver.key"),
            rules,
            log,
        )
    }

    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// Writes a copy of `source` whose servers point at this proxy (same CA, same
    /// credentials; 127.0.0.1 is in the API server certificate's SANs).
    pub fn kubeconfig_via(&self, source: &Path, dest: &Path) {
        let server = kubeconfig_server(source);
        let text = std::fs::read_to_string(source).expect("read kubeconfig");
        assert!(text.contains(&server), "{} does not spell its server as {server}", source.display());
        std::fs::write(dest, text.replace(&server, &self.url())).expect("write kubeconfig");
    }

    /// The log's lines so far.
    pub fn log_entries(&self) -> Vec<Value> {
        let path = self.log.as_ref().expect("a faults proxy with a log");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str(line).expect("a JSON log line")).collect()
    }
}

impl Drop for NetProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
