//! The harness cluster that tests/cluster/cluster.sh runs, found through KJS_STATE_DIR
//! and checked once per test binary; its admin client; polling until a condition holds.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

/// Why e2e tests are ignored under a plain `cargo test`.
pub const IGNORE_REASON: &str = "e2e: needs the test control plane; `make test` starts it and runs these";

pub struct Harness {
    pub state: PathBuf,
    pub kubeconfig: PathBuf,
    pub kubectl: PathBuf,
}

/// The harness cluster, checked once per test binary.
pub fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let state = std::env::var_os("KJS_STATE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".e2e-cluster"));
        let kubeconfig = state.join("admin.kubeconfig");
        let kubectl = state.join("bin").join("kubectl");
        assert!(
            kubeconfig.exists() && kubectl.exists(),
            "no test cluster in {}: run `make test`, or `make cluster-up` before `cargo test -- --include-ignored`",
            state.display()
        );
        let expected = std::fs::read_to_string(state.join("cluster-id")).expect("harness cluster-id").trim().to_owned();
        let out = Command::new(&kubectl)
            .args(["--kubeconfig"])
            .arg(&kubeconfig)
            .args(["get", "configmap", "-n", "kube-system", "kubectl-jobset-e2e", "-o", "jsonpath={.data.cluster-id}"])
            .output()
            .expect("run kubectl");
        let found = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        assert_eq!(
            found, expected,
            "refusing to run e2e tests: the cluster behind {} is not the harness cluster",
            kubeconfig.display()
        );
        Harness { state, kubeconfig, kubectl }
    })
}

pub async fn admin_client() -> Client {
    let h = harness();
    let kc = Kubeconfig::read_from(&h.kubeconfig).unwrap();
    let config = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default()).await.unwrap();
    Client::try_from(config).unwrap()
}

/// Polls `check` until it returns Some, or panics after `timeout`.
pub async fn wait_for<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(start.elapsed() < timeout, "timed out after {timeout:?} waiting for {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
