//! netproxy (tests/support/netproxy.rs) in front of the real API server: the harness's
//! kubectl through a delay proxy, and a scheduled 503 on one LIST as kubectl shows it.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::netproxy_client::NetProxy;
use crate::support::*;

/// The harness's kubectl with another kubeconfig.
fn kubectl_via(kubeconfig: &Path, args: &[&str]) -> Output {
    Command::new(&harness().kubectl)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .expect("run kubectl")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
fn kubectl_works_through_a_delay_proxy() {
    let h = harness();
    let dir = tempfile::tempdir().unwrap();
    let proxy = NetProxy::delay_for_cluster(&h.state, 25);
    let kubeconfig = dir.path().join("delay.kubeconfig");
    proxy.kubeconfig_via(&h.kubeconfig, &kubeconfig);
    let start = Instant::now();
    let out = kubectl_via(&kubeconfig, &["get", "ns", "default", "-o", "name"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "namespace/default");
    // At least the TLS handshake and one request: two round trips of 2 x 25 ms.
    assert!(start.elapsed() >= Duration::from_millis(100), "took only {:?}", start.elapsed());
}

#[test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
fn a_scheduled_503_on_one_list_reaches_kubectl() {
    let h = harness();
    let dir = tempfile::tempdir().unwrap();
    let rules = json!([{"method": "LIST", "path": "/api/v1/namespaces", "nth": [1],
        "fault": {"kind": "status", "code": 503, "message": "netproxy: scheduled outage"}}]);
    let log = dir.path().join("faults.jsonl");
    let proxy = NetProxy::faults_for_cluster(&h.state, &rules.to_string(), &log);
    let kubeconfig = dir.path().join("faults.kubeconfig");
    proxy.kubeconfig_via(&h.kubeconfig, &kubeconfig);

    let failed = kubectl_via(&kubeconfig, &["get", "ns", "-o", "name"]);
    assert!(!failed.status.success(), "the first LIST got through: {}", text(&failed.stdout));
    let stderr = text(&failed.stderr);
    assert!(stderr.contains("ServiceUnavailable") && stderr.contains("scheduled outage"), "{stderr}");

    let passed = kubectl_via(&kubeconfig, &["get", "ns", "-o", "name"]);
    assert!(passed.status.success(), "{}", text(&passed.stderr));
    assert!(text(&passed.stdout).lines().any(|l| l == "namespace/default"));

    let lists: Vec<_> = proxy
        .log_entries()
        .into_iter()
        .filter(|e| e["verb"] == "LIST" && e["path"] == "/api/v1/namespaces")
        .map(|e| (e["fault"].clone(), e["forwarded"].clone(), e["status"].clone()))
        .collect();
    assert_eq!(
        lists,
        [(json!("status"), json!(false), json!(503)), (json!("none"), json!(true), json!(200))]
    );
}
