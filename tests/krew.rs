//! Issue 28: krew-ready, as krew itself judges it. The release script packs an archive
//! (here of the test build, as the linux/amd64 platform), `validate-krew-manifest` (krew-index
//! CI's validator) checks the manifest it writes, and `kubectl krew install --manifest
//! --archive` installs it into a temporary KREW_ROOT, where kubectl finds the plugin and the
//! LICENSE krew-index requires. krew and its validator are built from sigs.k8s.io/krew
//! (tests/cluster/krew/go.mod) by `tests/cluster/build.sh krew`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a command, printing what it said (shown when the test fails).
#[allow(clippy::print_stderr)]
fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    eprintln!("$ {cmd:?}\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    out
}

fn built(what: &str) -> PathBuf {
    let out = run(Command::new(root().join("tests/cluster/build.sh")).arg(what));
    assert!(out.status.success(), "tests/cluster/build.sh {what} failed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

#[test]
#[ignore = "needs Go to build krew (tests/cluster/build.sh krew); `make test` runs it"]
fn the_release_archive_installs_with_krew_and_the_manifest_validates() {
    let krew = built("krew");
    let kubectl_dir = built("core");
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    let target = "x86_64-unknown-linux-musl";
    let out = run(Command::new(root().join("scripts/release-archives.sh"))
        .env("DIST", &dist)
        .env("TARGETS", target)
        .env("BINARY", env!("CARGO_BIN_EXE_kubectl-jobset")));
    assert!(out.status.success(), "release-archives.sh failed");
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    let archive = dist.join(format!("kubectl-jobset_{version}_{target}.tar.gz"));
    // krew-index keeps a plugin's manifest as plugins/<name>.yaml; the validator checks
    // the name against the file name.
    let manifest = dir.path().join("jobset.yaml");
    std::fs::copy(dist.join("krew-manifest.yaml"), &manifest).unwrap();
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains(&format!("/{version}/kubectl-jobset_{version}_{target}.tar.gz")), "{text}");

    // Structure, platforms, selectors (installing every platform needs the published
    // archives: the install below does the one we built).
    let validate = |path: &Path| {
        run(Command::new(krew.join("validate-krew-manifest")).arg("-manifest").arg(path).arg("-skip-install"))
    };
    let out = validate(&manifest);
    assert!(out.status.success(), "validate-krew-manifest refused krew-manifest.yaml");
    assert!(String::from_utf8_lossy(&out.stderr).contains("structural validation OK"));
    // The validator does judge: a second linux/amd64 platform is refused.
    let bad = dir.path().join("bad").join("jobset.yaml");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    let doubled =
        text.replace("matchLabels: {os: linux, arch: arm64}", "matchLabels: {os: linux, arch: amd64}");
    assert_ne!(doubled, text);
    std::fs::write(&bad, doubled).unwrap();
    let out = validate(&bad);
    assert!(!out.status.success(), "overlapping platforms must be refused");
    assert!(String::from_utf8_lossy(&out.stderr).contains("overlapping"));

    // Install from the archive, as `kubectl krew install --manifest … --archive …`.
    let krew_root = dir.path().join("krew-root");
    let path = format!(
        "{}:{}:{}:{}",
        krew_root.join("bin").display(),
        krew.display(),
        kubectl_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kubectl_in = |krew_root: &Path, args: &[&str]| {
        run(Command::new(kubectl_dir.join("kubectl"))
            .args(args)
            .env("PATH", &path)
            .env("KREW_ROOT", krew_root)
            .env("KREW_OS", "linux")
            .env("KREW_ARCH", "amd64")
            .env("KUBECONFIG", dir.path().join("no-kubeconfig")))
    };
    let kubectl = |args: &[&str]| kubectl_in(&krew_root, args);
    let manifest_arg = format!("--manifest={}", manifest.display());
    let archive_arg = format!("--archive={}", archive.display());
    let out = kubectl(&["krew", "install", &manifest_arg, &archive_arg]);
    assert!(out.status.success(), "kubectl krew install failed");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Installed plugin: jobset"));
    let installed = krew_root.join("store/jobset").join(&version);
    for file in ["kubectl-jobset", "LICENSE", "README.md", "completions/kubectl_complete-jobset"] {
        assert!(installed.join(file).is_file(), "{file} is in the installed plugin");
    }
    // kubectl finds it on the krew PATH, and it runs.
    let out = kubectl(&["jobset", "version", "--client"]);
    assert!(out.status.success(), "kubectl jobset version --client");
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));
    let out = kubectl(&["plugin", "list"]);
    let listed = krew_root.join("bin/kubectl-jobset").display().to_string();
    assert!(
        String::from_utf8_lossy(&out.stdout).lines().any(|l| l == listed),
        "kubectl plugin list shows {listed}"
    );

    // krew checks the archive against the manifest's sha256: a changed archive is refused.
    let tampered = dir.path().join("tampered.tar.gz");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(b"\0");
    std::fs::write(&tampered, bytes).unwrap();
    let fresh = dir.path().join("krew-root-2");
    let out =
        kubectl_in(&fresh, &["krew", "install", &manifest_arg, &format!("--archive={}", tampered.display())]);
    assert!(!out.status.success(), "a tampered archive must be refused");
    assert!(String::from_utf8_lossy(&out.stderr).to_lowercase().contains("checksum"), "names the checksum");
    assert!(!fresh.join("bin/kubectl-jobset").exists(), "nothing installed");
}
