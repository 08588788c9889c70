//! CLI tests: help, usage errors, error messages without a cluster, completions in
//! sync with the clap definition, and the krew manifest.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;

fn plugin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"));
    cmd.env_remove("KUBECONFIG").env("NO_COLOR", "1").env("HOME", "/nonexistent-home");
    cmd
}

fn kubeconfig(dir: &Path, server: &str, token: &str) -> std::path::PathBuf {
    let path = dir.join("config");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {server}\n    insecure-skip-tls-verify: true\n\
             users:\n- name: u\n  user:\n    token: {token}\ncontexts:\n- name: ctx\n  context: {{cluster: c, user: u, namespace: ml}}\ncurrent-context: ctx\n"
        ),
    )
    .unwrap();
    path
}

const TOKEN: &str = "s3cr3t-token-value-that-must-never-be-printed";

#[test]
fn help_lists_commands_flags_and_exit_codes() {
    plugin()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("list"))
        .stdout(predicate::str::contains("--kubeconfig"))
        .stdout(predicate::str::contains("--request-timeout"))
        .stdout(predicate::str::contains("Exit codes:"));
    plugin().args(["list", "--help"]).assert().success().stdout(predicate::str::contains("--all-namespaces"));
}

#[test]
fn usage_errors_exit_2() {
    plugin().args(["list", "--bogus"]).assert().code(2).stderr(predicate::str::contains("--bogus"));
    plugin().args(["list", "-o", "xml"]).assert().code(2).stderr(predicate::str::contains("xml"));
    plugin().arg("frobnicate").assert().code(2);
    plugin()
        .args(["list", "--request-timeout", "soon"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid duration"));
}

/// Issue 12: arguments are validated before any kubeconfig is read, so a usage error is a
/// usage error (exit 2, one line) even where no cluster could be reached.
#[test]
fn usage_errors_need_no_kubeconfig() {
    for args in [
        &["restart"][..],
        &["rollback", "train", "--to-revision", "0"],
        &["history", "train", "--diff", "1"],
        &["restart", "a", "b", "--job", "w/0"],
    ] {
        let out = plugin().env("KUBECONFIG", "/nonexistent").args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(!stderr.contains("kubeconfig"), "{args:?}: {stderr}");
    }
}

#[test]
fn conflicting_selection_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), "https://127.0.0.1:1", TOKEN);
    plugin()
        .args(["list", "train", "-A", "--kubeconfig"])
        .arg(&kc)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be named across all namespaces"));
    plugin()
        .args(["list", "Not_Valid", "--kubeconfig"])
        .arg(&kc)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid JobSet name \"Not_Valid\""));
}

#[test]
fn unreachable_server_says_so_without_credentials() {
    // Bind then drop a port, so nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &format!("https://127.0.0.1:{port}"), TOKEN);
    plugin()
        .args(["list", "-v=9", "--kubeconfig"])
        .arg(&kc)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "cannot reach the Kubernetes API server at https://127.0.0.1:{port}"
        )))
        .stderr(predicate::str::contains("connection refused"))
        .stderr(predicate::str::contains(TOKEN).not());
}

#[test]
fn request_timeout_is_honoured() {
    // Accepts connections and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &format!("https://127.0.0.1:{port}"), TOKEN);
    let started = Instant::now();
    plugin()
        .args(["list", "--request-timeout=1s", "--kubeconfig"])
        .arg(&kc)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("timed out"))
        .stderr(predicate::str::contains("--request-timeout"));
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[test]
fn kubeconfig_problems_are_named() {
    let dir = tempfile::tempdir().unwrap();
    plugin()
        .args(["list", "--kubeconfig", "/does/not/exist"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot use kubeconfig /does/not/exist: the file does not exist"));

    let garbage = dir.path().join("garbage");
    std::fs::write(&garbage, format!("token: {TOKEN}\n  - [ this is: not: yaml")).unwrap();
    plugin()
        .args(["list", "--kubeconfig"])
        .arg(&garbage)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a valid kubeconfig"))
        .stderr(predicate::str::contains(TOKEN).not());

    let kc = kubeconfig(dir.path(), "https://127.0.0.1:1", TOKEN);
    plugin()
        .args(["list", "--context", "prod", "--kubeconfig"])
        .arg(&kc)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("context \"prod\" not found (known contexts: ctx)"));

    plugin().arg("list").assert().code(1).stderr(predicate::str::contains("no kubeconfig found"));
}

#[test]
fn verbose_request_log_redacts_credentials() {
    // A fake API server that answers every request with 401, recording what it saw.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#;
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &format!("http://127.0.0.1:{port}"), TOKEN);
    plugin()
        .args(["list", "-v=9", "--as", "bob", "--kubeconfig"])
        .arg(&kc)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("401 Unauthorized"))
        .stderr(predicate::str::contains(format!("GET http://127.0.0.1:{port}/apis/")))
        .stderr(predicate::str::contains(TOKEN).not());
}

#[test]
fn checked_in_completions_match_the_cli() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for (shell, file) in [
        ("bash", "kubectl-jobset.bash"),
        ("zsh", "kubectl-jobset.zsh"),
        ("fish", "kubectl-jobset.fish"),
        ("powershell", "kubectl-jobset.powershell"),
        ("kubectl", "kubectl_complete-jobset"),
    ] {
        let generated = plugin().args(["completion", shell]).output().unwrap();
        assert!(generated.status.success());
        let checked_in = std::fs::read(root.join(file)).unwrap();
        assert!(generated.stdout == checked_in, "completions/{file} is stale: run `make completions`");
    }
}

/// Issue 28: the bash script asks `__complete` for every word: no hidden command, flag
/// values, and a word with `=` completed as bash splits it.
#[test]
fn bash_completion_asks_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kubectl-jobset"), dir.path().join("kubectl-jobset"))
        .unwrap();
    let script = dir.path().join("kubectl-jobset.bash");
    std::fs::write(&script, plugin().args(["completion", "bash"]).output().unwrap().stdout).unwrap();
    let path = format!("{}:{}", dir.path().display(), std::env::var("PATH").unwrap_or_default());
    let complete = |line: &str| -> Vec<String> {
        let run = format!(
            "source '{}'; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; _kubectl_jobset; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = std::process::Command::new("bash")
            .args(["--norc", "-c", &run])
            .env("PATH", &path)
            .env("HOME", "/nonexistent-home")
            .env_remove("KUBECONFIG")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().filter(|l| !l.is_empty()).map(str::to_owned).collect()
    };
    let all = complete("kubectl-jobset ");
    assert!(all.contains(&"list".to_owned()) && all.contains(&"rbac".to_owned()), "{all:?}");
    assert!(!all.iter().any(|c| c.starts_with("__")), "no hidden command: {all:?}");
    assert_eq!(complete("kubectl-jobset li"), ["list"]);
    assert_eq!(complete("kubectl-jobset list -o j"), ["json", "jsonpath=", "jsonpath-file="]);
    assert_eq!(complete("kubectl-jobset completion z"), ["zsh"]);
    assert_eq!(complete("kubectl-jobset rbac r"), ["readonly"]);
    assert_eq!(complete("kubectl-jobset set image --dry-run s"), ["server"]);
    // No cluster: no names, and no error either.
    assert!(complete("kubectl-jobset diff tr").is_empty());
}

#[test]
fn kubectl_completion_protocol() {
    plugin()
        .args(["__complete", "li"])
        .assert()
        .success()
        .stdout("list\tList JobSets with their restart attempt, Job counts and status\n:4\n");
    plugin()
        .args(["__complete", "list", "-o", ""])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "table\nwide\njson\nyaml\nname\njsonpath=\njsonpath-file=\ncustom-columns=\ncustom-columns-file=\ngo-template=\ngo-template-file=\n:4",
        ));
    let shim = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kubectl_complete-jobset");
    let mode = std::fs::metadata(&shim).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert!(mode.permissions().mode() & 0o111 != 0, "the shim must be executable");
    }
}

#[test]
fn krew_manifest_is_complete() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("krew-manifest.yaml")).unwrap();
    let manifest: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(manifest["apiVersion"], "krew.googlecontainertools.github.com/v1alpha2");
    assert_eq!(manifest["kind"], "Plugin");
    assert_eq!(manifest["metadata"]["name"], "jobset");
    let spec = &manifest["spec"];
    let version = spec["version"].as_str().unwrap();
    assert_eq!(version, format!("v{}", env!("CARGO_PKG_VERSION")));
    let short = spec["shortDescription"].as_str().unwrap();
    assert!(!short.is_empty() && short.len() <= 50, "shortDescription must be 1-50 chars: {short:?}");
    assert!(spec["description"].as_str().unwrap().len() > 50);
    let caveats = spec["caveats"].as_str().unwrap();
    assert!(
        caveats.contains("JobSet controller") && caveats.contains("kubectl jobset rbac"),
        "caveats name the controller and RBAC"
    );
    let mut platforms: Vec<(String, String)> = Vec::new();
    for p in spec["platforms"].as_array().unwrap() {
        assert_eq!(p["bin"], "kubectl-jobset", "bin must match the binary name");
        let uri = p["uri"].as_str().unwrap();
        assert!(uri.starts_with("https://") && uri.ends_with(".tar.gz"), "{uri}");
        let sha = p["sha256"].as_str().unwrap();
        assert!(sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()), "{sha}");
        let labels = &p["selector"]["matchLabels"];
        platforms.push((labels["os"].as_str().unwrap().into(), labels["arch"].as_str().unwrap().into()));
    }
    platforms.sort();
    let want: Vec<(String, String)> =
        [("darwin", "amd64"), ("darwin", "arm64"), ("linux", "amd64"), ("linux", "arm64")]
            .iter()
            .map(|(o, a)| (o.to_string(), a.to_string()))
            .collect();
    assert_eq!(platforms, want);
    // krew-index validation wants the license in the archive: the repository has it, and
    // the release script packs it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let license = std::fs::read_to_string(root.join("LICENSE")).expect("a LICENSE file");
    assert!(license.contains("Apache License") && license.contains("Version 2.0"));
    let script = std::fs::read_to_string(root.join("scripts/release-archives.sh")).unwrap();
    assert!(script.contains("README.md LICENSE"), "the archive carries LICENSE");
}

/// Issue 28: every command's `--help` has examples, and each example parses: run against
/// an API server that is not there, it gets as far as connecting (never a usage error).
#[test]
fn every_command_has_examples_that_parse() {
    let dir = tempfile::tempdir().unwrap();
    let config = kubeconfig(dir.path(), "https://127.0.0.1:1", TOKEN);
    let commands: [&[&str]; 22] = [
        &["rbac"],
        &["tree"],
        &["version"],
        &["suspend"],
        &["resume"],
        &["list"],
        &["diff"],
        &["restart"],
        &["history"],
        &["rollback"],
        &["set", "image"],
        &["set", "env"],
        &["set", "resources"],
        &["rollout", "start"],
        &["rollout", "status"],
        &["rollout", "list"],
        &["rollout", "pause"],
        &["rollout", "resume"],
        &["rollout", "abort"],
        &["status"],
        &["recorder"],
        &["completion"],
    ];
    for command in commands {
        let help = plugin().args(command).arg("--help").output().unwrap();
        let text = String::from_utf8(help.stdout).unwrap();
        let examples = text.split("Examples:").nth(1).and_then(|t| t.split("Exit codes:").next());
        let examples = examples.unwrap_or_else(|| panic!("no examples in {command:?} --help:\n{text}"));
        // `source <(kubectl jobset completion bash)` runs `completion bash`.
        let runnable: Vec<Vec<String>> = examples
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .filter_map(|l| l.split_once("kubectl jobset ").map(|(_, rest)| rest))
            .map(|rest| shell_words(rest.split([')', '>', '|']).next().unwrap_or_default()))
            .collect();
        assert!(!runnable.is_empty(), "{command:?}: no runnable example in:\n{examples}");
        for words in runnable {
            if matches!(words.first().map(String::as_str), Some("completion" | "rbac"))
                || words.contains(&"--client".to_owned())
            {
                plugin().args(&words).assert().success();
                continue;
            }
            if words.first().map(String::as_str) == Some("recorder") {
                // A controller retries an absent API server for ever: arguments are read
                // (and refused) before it starts, so a second is enough to tell.
                // No port of the machine's is taken: the address given is replaced by none.
                let mut words = words.clone();
                match words.iter().position(|w| w == "--metrics-addr") {
                    Some(i) => words[i + 1] = "0".into(),
                    None => words.extend(["--metrics-addr".into(), "0".into()]),
                }
                let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-jobset"))
                    .args(&words)
                    .args(["--kubeconfig", config.to_str().unwrap()])
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                std::thread::sleep(Duration::from_secs(1));
                assert!(child.try_wait().unwrap().is_none(), "recorder example {words:?} exited at once");
                child.kill().unwrap();
                continue;
            }
            let out = plugin()
                .args(&words)
                .args(["--kubeconfig", config.to_str().unwrap(), "--request-timeout", "2s"])
                .timeout(Duration::from_secs(30))
                .output()
                .unwrap();
            // Past the arguments, it tried the cluster (diff exits 2 on any error, as kubectl diff).
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success() && stderr.contains("cannot reach the Kubernetes API server"),
                "example `kubectl jobset {}` did not get as far as the cluster: {stderr}",
                words.join(" ")
            );
        }
    }
}

/// Splits a command line on spaces, keeping double-quoted words (with `\"`) together.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Issue 28: as kubectl, `KUBECONFIG=a:b` skips a file that does not exist, and `-n`
/// given twice takes the last (both get as far as the cluster).
#[test]
fn kubeconfig_lists_skip_missing_files_and_the_last_namespace_wins() {
    let dir = tempfile::tempdir().unwrap();
    let config = kubeconfig(dir.path(), "https://127.0.0.1:1", TOKEN);
    let list = format!("{}:{}", dir.path().join("missing").display(), config.display());
    let out = plugin().env("KUBECONFIG", &list).args(["list", "--request-timeout", "2s"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot reach the Kubernetes API server"), "{stderr}");
    let none = format!("{}", dir.path().join("missing").display());
    plugin()
        .env("KUBECONFIG", &none)
        .arg("list")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("none of its files exist"));
    let out = plugin()
        .args([
            "list",
            "-n",
            "a",
            "-n",
            "b",
            "--kubeconfig",
            config.to_str().unwrap(),
            "--request-timeout",
            "2s",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot reach the Kubernetes API server"),
        "-n twice is not a usage error: {stderr}"
    );
}
