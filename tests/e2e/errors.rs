//! Errors a user can act on, from the real API server.

use crate::support::*;

fn kubeconfig_variant(name: &str, edit: impl Fn(&str) -> String) -> std::path::PathBuf {
    let original = std::fs::read_to_string(&harness().kubeconfig).unwrap();
    let path = std::env::temp_dir().join(format!("kjs-e2e-{}-{name}.kubeconfig", std::process::id()));
    std::fs::write(&path, edit(&original)).unwrap();
    path
}

fn token_of(kubeconfig: &str) -> String {
    kubeconfig.lines().find_map(|l| l.trim().strip_prefix("token: ")).unwrap().to_owned()
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn forbidden_names_the_user_verb_and_resource() {
    let ns = TestNs::new("forbidden").await;
    let alice = harness().state.join("users/e2e-alice.kubeconfig");
    let out = run_plugin(&["list", "-n", &ns.name, "--kubeconfig", alice.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("forbidden: user \"e2e-alice\" cannot list"), "{out:?}");
    assert!(out.stderr.contains(&format!("in namespace \"{}\"", ns.name)), "{out:?}");
    assert!(out.stderr.contains("`kubectl jobset rbac user` prints the role"), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn the_clusterrole_is_enough_for_list() {
    let ns = TestNs::new("rbac-list").await;
    ns.create(&jobset_yaml("train", &[("workers", 1, "busybox:1.36")], ""));
    ns.apply_repo_role("kubectl-jobset-clusterrole.yaml");
    ns.bind("--clusterrole=kubectl-jobset", "e2e-bob").await;
    let bob = harness().state.join("users/e2e-bob.kubeconfig");
    let out = run_plugin(&["list", "-n", &ns.name, "--kubeconfig", bob.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("train"), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn revoked_token_is_a_401_without_the_token() {
    let original = std::fs::read_to_string(&harness().kubeconfig).unwrap();
    let real_token = token_of(&original);
    let revoked = "0000000000000000000000000000000000000000000000000000000000000000";
    let path = kubeconfig_variant("revoked", |text| text.replace(&real_token, revoked));
    let out = run_plugin(&["list", "-v=9", "--kubeconfig", path.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("401 Unauthorized"), "{out:?}");
    assert!(!out.stderr.contains(revoked) && !out.stdout.contains(revoked), "token printed: {out:?}");
    assert!(!out.stderr.contains(&real_token), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn tls_name_mismatch_is_explained() {
    let path = kubeconfig_variant("tls", |text| {
        text.lines()
            .flat_map(|l| {
                if l.trim_start().starts_with("server:") {
                    vec![l.to_owned(), "    tls-server-name: not-the-apiserver.example".to_owned()]
                } else {
                    vec![l.to_owned()]
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let out = run_plugin(&["list", "--kubeconfig", path.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("TLS connection to https://127.0.0.1:"), "{out:?}");
    assert!(out.stderr.contains("not valid for name \"not-the-apiserver.example\""), "{out:?}");
}

#[tokio::test]
#[ignore = "e2e: needs the test control plane; `make test` starts it and runs these"]
async fn token_and_server_flags_override_the_kubeconfig() {
    let ns = TestNs::new("flags").await;
    let bob_token =
        std::fs::read_to_string(harness().state.join("users/e2e-bob.token")).unwrap().trim().to_owned();
    let out = ns.plugin(&["list", "--token", &bob_token, "-v=9"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("forbidden: user \"e2e-bob\" cannot list"), "authenticated as bob: {out:?}");
    assert!(!out.stderr.contains(&bob_token) && !out.stdout.contains(&bob_token), "{out:?}");

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = ns.plugin(&["list", "-s", &format!("https://127.0.0.1:{port}")]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(&format!("cannot reach the Kubernetes API server at https://127.0.0.1:{port}")),
        "{out:?}"
    );

    let out = ns.plugin(&["list", "--tls-server-name", "elsewhere.invalid"]);
    assert!(out.stderr.contains("not valid for name \"elsewhere.invalid\""), "{out:?}");

    // Impersonating a user and UID (the admin may): the API server answers as that user.
    let out = ns.plugin(&["list", "--as", "e2e-alice", "--as-uid", "e2e-alice-uid"]);
    assert!(out.stderr.contains("forbidden: user \"e2e-alice\""), "{out:?}");
}
