//! Shell completion: static scripts generated from the clap definition, and the
//! dynamic protocol kubectl uses for plugins (`kubectl_complete-jobset`), which can
//! complete live JobSet names and namespaces.
//!
//! kubectl (>= 1.26) runs `kubectl_complete-jobset WORD... PARTIAL` and expects one
//! candidate per line (`value<TAB>description`), then `:<directive>` as cobra does.

use std::io::Write;

use clap::{Command, CommandFactory};
use clap_complete::Shell;

use std::sync::Arc;

use crate::cli::{Cli, CompletionShell};
use crate::cluster::request_log::RequestLog;
use crate::cluster::{self, Cluster, ConnectOptions};
use crate::error::Result;

/// Cobra's ShellCompDirectiveNoFileComp.
pub const NO_FILE_COMPLETION: u8 = 4;
/// Cobra's ShellCompDirectiveNoSpace | ShellCompDirectiveNoFileComp: `CONTAINER=` then the image.
pub const NO_SPACE_NO_FILE_COMPLETION: u8 = 2 | NO_FILE_COMPLETION;
/// Cobra's ShellCompDirectiveDefault (lets the shell complete file names).
pub const DEFAULT_DIRECTIVE: u8 = 0;

/// The shim kubectl looks for on PATH to complete `kubectl jobset ...`.
pub const KUBECTL_SHIM: &str = "#!/usr/bin/env sh
# kubectl runs this to complete `kubectl jobset ...` (kubectl >= 1.26).
# Put it on PATH next to kubectl-jobset, executable, named kubectl_complete-jobset.
exec kubectl-jobset __complete \"$@\"
";

/// bash, zsh and fish ask `__complete` for every word, as cobra's scripts do: live names
/// and revisions, and only what `plan` offers (never a hidden command).
const BASH: &str = include_str!("script.bash");
const ZSH: &str = include_str!("script.zsh");
const FISH: &str = include_str!("script.fish");

/// Writes the completion script for a shell.
pub fn write_script(shell: CompletionShell, out: &mut dyn Write) -> Result<()> {
    let script = match shell {
        CompletionShell::Bash => BASH,
        CompletionShell::Zsh => ZSH,
        CompletionShell::Fish => FISH,
        CompletionShell::Kubectl => KUBECTL_SHIM,
        // PowerShell keeps clap's static script (no live names).
        CompletionShell::Powershell => {
            let mut command = Cli::command();
            clap_complete::generate(Shell::PowerShell, &mut command, "kubectl-jobset", out);
            return Ok(());
        }
    };
    out.write_all(script.as_bytes())?;
    Ok(())
}

/// What to offer for the word being completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completion {
    /// Fixed candidates: `(value, description)`.
    Static { candidates: Vec<(String, String)>, directive: u8 },
    /// JobSet names from the cluster, minus those already typed.
    JobSetNames { prefix: String, exclude: Vec<String> },
    /// Namespace names from the cluster.
    Namespaces { prefix: String },
    /// Context names from the kubeconfig.
    Contexts { prefix: String },
    /// `[REPLICATEDJOB/]CONTAINER=` of the named JobSets' containers (`set image`).
    ImageTargets { prefix: String, jobsets: Vec<String> },
    /// The recorded revision numbers of the named JobSet (`--revision`, `--to-revision`).
    Revisions { prefix: String, jobset: String },
}

/// Decides what to complete from the words typed after `kubectl jobset`; pure.
pub fn plan(words: &[String]) -> Completion {
    let mut root = Cli::command();
    // Building propagates the global flags into every subcommand.
    root.build();
    let (partial, before) = match words.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let (path, positionals) = scan(&root, before);
    let command = path.iter().fold(&root, |command, name| command.find_subcommand(name).unwrap_or(command));

    // The value of a flag that takes one: `-n <TAB>`.
    if let Some(flag) = before.last().filter(|w| w.starts_with('-') && !w.contains('='))
        && let Some(arg) = find_flag(command, flag).filter(|a| a.get_action().takes_values())
    {
        if matches!(arg.get_id().as_str(), "revision" | "to_revision") {
            return match positionals.first() {
                Some(jobset) => Completion::Revisions { prefix: partial.to_owned(), jobset: jobset.clone() },
                None => Completion::Static { candidates: vec![], directive: NO_FILE_COMPLETION },
            };
        }
        return complete_value(arg, partial);
    }
    if partial.starts_with('-') {
        return Completion::Static { candidates: flags(command, partial), directive: NO_FILE_COMPLETION };
    }
    // A command of commands (the root, `set`): its subcommands.
    if command.has_subcommands() {
        return Completion::Static {
            candidates: command
                .get_subcommands()
                .filter(|s| !s.is_hide_set() && s.get_name().starts_with(partial))
                .map(|s| (s.get_name().to_owned(), about(s)))
                .collect(),
            directive: NO_FILE_COMPLETION,
        };
    }
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    match path.as_slice() {
        ["completion" | "rbac"] if positionals.is_empty() => Completion::Static {
            candidates: command
                .get_positionals()
                .flat_map(|a| a.get_possible_values())
                .filter(|v| v.get_name().starts_with(partial))
                .map(|v| (v.get_name().to_owned(), v.get_help().map(ToString::to_string).unwrap_or_default()))
                .collect(),
            directive: NO_FILE_COMPLETION,
        },
        ["completion" | "rbac" | "version"] => {
            Completion::Static { candidates: vec![], directive: NO_FILE_COMPLETION }
        }
        // After a JobSet name: its containers, as `[REPLICATEDJOB/]CONTAINER=`.
        ["set", "image"] if !positionals.is_empty() => {
            Completion::ImageTargets { prefix: partial.to_owned(), jobsets: positionals }
        }
        _ => Completion::JobSetNames { prefix: partial.to_owned(), exclude: positionals },
    }
}

fn complete_value(arg: &clap::Arg, partial: &str) -> Completion {
    let prefix = partial.to_owned();
    match arg.get_id().as_str() {
        "namespace" => Completion::Namespaces { prefix },
        "context" => Completion::Contexts { prefix },
        "kubeconfig" => Completion::Static { candidates: vec![], directive: DEFAULT_DIRECTIVE },
        _ => Completion::Static {
            candidates: arg
                .get_possible_values()
                .into_iter()
                .filter(|v| v.get_name().starts_with(partial))
                .map(|v| (v.get_name().to_owned(), String::new()))
                .collect(),
            directive: NO_FILE_COMPLETION,
        },
    }
}

/// Finds the (nested) subcommand and its positional words, skipping flags and their values.
fn scan(root: &Command, words: &[String]) -> (Vec<String>, Vec<String>) {
    let mut path: Vec<String> = Vec::new();
    let mut positionals = Vec::new();
    let mut skip_value = false;
    for word in words {
        if skip_value {
            skip_value = false;
            continue;
        }
        let command =
            path.iter().fold(root, |command, name| command.find_subcommand(name).unwrap_or(command));
        if word.starts_with('-') {
            skip_value = !word.contains('=')
                && find_flag(command, word).is_some_and(|a| a.get_action().takes_values());
            continue;
        }
        if command.has_subcommands() {
            if let Some(sub) = command
                .get_subcommands()
                .find(|s| s.get_name() == word || s.get_all_aliases().any(|a| a == word))
            {
                path.push(sub.get_name().to_owned());
            }
            continue;
        }
        positionals.push(word.clone());
    }
    (path, positionals)
}

fn find_flag<'a>(command: &'a Command, word: &str) -> Option<&'a clap::Arg> {
    let word = word.split('=').next().unwrap_or(word);
    command.get_arguments().find(|a| {
        word.strip_prefix("--").is_some_and(|long| a.get_long() == Some(long))
            || (word.len() == 2 && word.strip_prefix('-').and_then(|s| s.chars().next()) == a.get_short())
    })
}

fn flags(command: &Command, partial: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        let help = help.lines().next().unwrap_or_default().to_owned();
        if let Some(long) = arg.get_long() {
            let flag = format!("--{long}");
            if flag.starts_with(partial) {
                out.push((flag, help.clone()));
            }
        }
        if let Some(short) = arg.get_short() {
            let flag = format!("-{short}");
            if flag.starts_with(partial) && partial.len() <= 2 {
                out.push((flag, help));
            }
        }
    }
    out
}

fn about(command: &Command) -> String {
    command.get_about().map(|a| a.to_string()).unwrap_or_default()
}

/// Writes candidates and the directive line in cobra's format.
pub fn write_candidates(out: &mut dyn Write, candidates: &[(String, String)], directive: u8) -> Result<()> {
    for (value, description) in candidates {
        if description.is_empty() {
            writeln!(out, "{value}")?;
        } else {
            writeln!(out, "{value}\t{description}")?;
        }
    }
    writeln!(out, ":{directive}")?;
    Ok(())
}

/// `--flag value` or `--flag=value` (also the short form) among typed words.
pub fn typed_flag_value(words: &[String], short: Option<char>, long: &str) -> Option<String> {
    let long_flag = format!("--{long}");
    let short_flag = short.map(|c| format!("-{c}"));
    let mut value = None;
    for (i, word) in words.iter().enumerate() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) => (f, Some(v.to_owned())),
            None => (word.as_str(), None),
        };
        if flag == long_flag || short_flag.as_deref() == Some(flag) {
            value = inline.or_else(|| words.get(i + 1).cloned());
        }
    }
    value
}

/// Answers kubectl's completion protocol; lookups that fail offer nothing.
pub async fn answer(words: &[String], out: &mut dyn Write, log: Arc<RequestLog>) -> Result<()> {
    let connect = ConnectOptions {
        kubeconfig: typed_flag_value(words, None, "kubeconfig").map(Into::into),
        context: typed_flag_value(words, None, "context"),
        namespace: typed_flag_value(words, Some('n'), "namespace"),
        request_timeout: Some(std::time::Duration::from_secs(5)),
        ..Default::default()
    };
    let (candidates, directive): (Vec<String>, u8) = match plan(words) {
        Completion::Static { candidates, directive } => {
            return write_candidates(out, &candidates, directive);
        }
        Completion::Contexts { prefix } => {
            let contexts = kube::config::Kubeconfig::read()
                .map(|kc| kc.contexts.into_iter().map(|c| c.name).collect())
                .unwrap_or_default();
            (filter(contexts, &prefix, &[]), NO_FILE_COMPLETION)
        }
        Completion::Namespaces { prefix } => {
            let found = match cluster::connect(&connect, log).await {
                Ok(c) => c.namespace_names().await.unwrap_or_default(),
                Err(_) => vec![],
            };
            (filter(found, &prefix, &[]), NO_FILE_COMPLETION)
        }
        Completion::JobSetNames { prefix, exclude } => {
            let found = match cluster::connect(&connect, log).await {
                Ok(c) => jobset_names(&c).await.unwrap_or_default(),
                Err(_) => vec![],
            };
            (filter(found, &prefix, &exclude), NO_FILE_COMPLETION)
        }
        Completion::ImageTargets { prefix, jobsets } => {
            let found = match cluster::connect(&connect, log).await {
                Ok(c) => image_targets(&c, &jobsets).await,
                Err(_) => vec![],
            };
            (filter(found, &prefix, &[]), NO_SPACE_NO_FILE_COMPLETION)
        }
        Completion::Revisions { prefix, jobset } => {
            let found = match cluster::connect(&connect, log).await {
                Ok(c) => revision_numbers(&c, &jobset).await.unwrap_or_default(),
                Err(_) => vec![],
            };
            let found: Vec<_> = found.into_iter().filter(|(n, _)| n.starts_with(&prefix)).collect();
            return write_candidates(out, &found, NO_FILE_COMPLETION);
        }
    };
    let candidates: Vec<(String, String)> = candidates.into_iter().map(|c| (c, String::new())).collect();
    write_candidates(out, &candidates, directive)
}

/// The JobSet's recorded revisions, newest first, each with its change-cause (staged
/// changes and other JobSets' kept history left out).
async fn revision_numbers(cluster: &Cluster, name: &str) -> Result<Vec<(String, String)>> {
    use crate::history::{CHANGE_CAUSE, JOBSET_LABEL, belongs_to};
    let name = name.rsplit('/').next().unwrap_or(name);
    let jobset = cluster.get_jobset(&cluster.namespace, name).await?;
    let stored = cluster.list_revisions(Some(&cluster.namespace), &format!("{JOBSET_LABEL}={name}")).await?;
    let mut numbered: Vec<(i64, String)> = stored
        .iter()
        .filter(|r| !crate::plan::staged::is_staged(r) && belongs_to(r).contains(&jobset.uid()))
        .map(|r| {
            let cause = r.metadata.annotations.as_ref().and_then(|a| a.get(CHANGE_CAUSE)).cloned();
            (r.revision, cause.unwrap_or_default())
        })
        .collect();
    numbered.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    Ok(numbered.into_iter().map(|(n, cause)| (n.to_string(), cause)).collect())
}

async fn jobset_names(cluster: &Cluster) -> Result<Vec<String>> {
    let jobsets = cluster.list_jobsets(Some(&cluster.namespace), None).await?;
    Ok(jobsets.iter().map(|js| js.name().to_owned()).collect())
}

/// `CONTAINER=` and `REPLICATEDJOB/CONTAINER=` for every container of the named JobSets.
async fn image_targets(cluster: &Cluster, names: &[String]) -> Vec<String> {
    let mut targets = Vec::new();
    for name in names {
        let name = name.rsplit('/').next().unwrap_or(name);
        let Ok(jobset) = cluster.get_jobset(&cluster.namespace, name).await else { continue };
        for rjob in &jobset.spec.replicated_jobs {
            for container in crate::model::jobset::template_container_names(&rjob.template.value()) {
                targets.push(format!("{container}="));
                targets.push(format!("{}/{container}=", rjob.name));
            }
        }
    }
    targets.sort();
    targets.dedup();
    targets
}

fn filter(mut items: Vec<String>, prefix: &str, exclude: &[String]) -> Vec<String> {
    items.retain(|i| i.starts_with(prefix) && !exclude.contains(i));
    items.sort();
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    fn values(c: Completion) -> Vec<String> {
        match c {
            Completion::Static { candidates, .. } => candidates.into_iter().map(|(v, _)| v).collect(),
            other => panic!("expected static candidates, got {other:?}"),
        }
    }

    #[test]
    fn subcommands_first() {
        let got = values(plan(&words(&[""])));
        assert!(got.contains(&"list".to_string()), "{got:?}");
        assert!(!got.iter().any(|c| c.starts_with("__")), "hidden commands stay hidden");
        assert_eq!(values(plan(&words(&["li"]))), ["list"]);
    }

    #[test]
    fn jobset_names_after_a_subcommand() {
        assert_eq!(
            plan(&words(&["list", "-n", "ml", "a", "tr"])),
            Completion::JobSetNames { prefix: "tr".into(), exclude: vec!["a".into()] }
        );
        assert_eq!(plan(&words(&["ls", ""])), Completion::JobSetNames { prefix: "".into(), exclude: vec![] });
    }

    #[test]
    fn flag_values() {
        assert_eq!(plan(&words(&["list", "-n", "m"])), Completion::Namespaces { prefix: "m".into() });
        assert_eq!(plan(&words(&["--context", ""])), Completion::Contexts { prefix: "".into() });
        assert_eq!(values(plan(&words(&["list", "-o", "j"]))), ["json", "jsonpath=", "jsonpath-file="]);
        assert_eq!(values(plan(&words(&["completion", "z"]))), ["zsh"]);
    }

    #[test]
    fn flags_of_the_subcommand() {
        let got = values(plan(&words(&["list", "--sel"])));
        assert_eq!(got, ["--selector"]);
        let got = values(plan(&words(&["list", "--all"])));
        assert_eq!(got, ["--all-namespaces"]);
    }

    #[test]
    fn nested_set_image() {
        assert_eq!(values(plan(&words(&["set", ""]))), ["image", "env", "resources", "update-strategy"]);
        assert_eq!(
            plan(&words(&["set", "image", "tr"])),
            Completion::JobSetNames { prefix: "tr".into(), exclude: vec![] }
        );
        assert_eq!(
            plan(&words(&["set", "image", "-n", "ml", "train", "wo"])),
            Completion::ImageTargets { prefix: "wo".into(), jobsets: vec!["train".into()] }
        );
        assert_eq!(values(plan(&words(&["set", "image", "train", "--rea"]))), ["--reason"]);
        assert_eq!(values(plan(&words(&["set", "image", "train", "--rest"]))), ["--restart"]);
        assert_eq!(values(plan(&words(&["set", "image", "x", "--dry-run", "s"]))), ["server"]);
        assert!(values(plan(&words(&["status", "--"]))).contains(&"--watch".to_owned()));
        assert!(values(plan(&words(&["list", "--w"]))).contains(&"--watch".to_owned()));
    }

    #[test]
    fn revision_numbers_of_the_named_jobset() {
        assert_eq!(
            plan(&words(&["rollback", "train", "--to-revision", ""])),
            Completion::Revisions { prefix: "".into(), jobset: "train".into() }
        );
        assert_eq!(
            plan(&words(&["history", "-n", "ml", "train", "--revision", "1"])),
            Completion::Revisions { prefix: "1".into(), jobset: "train".into() }
        );
        assert_eq!(values(plan(&words(&["undo", "--to-revision", ""]))), Vec::<String>::new());
    }

    #[test]
    fn typed_flags() {
        let w = words(&["list", "-n", "ml", "--context=prod", "x"]);
        assert_eq!(typed_flag_value(&w, Some('n'), "namespace").as_deref(), Some("ml"));
        assert_eq!(typed_flag_value(&w, None, "context").as_deref(), Some("prod"));
        assert_eq!(typed_flag_value(&w, None, "kubeconfig"), None);
    }

    #[test]
    fn cobra_output() {
        let mut out = Vec::new();
        write_candidates(&mut out, &[("a".into(), "first".into()), ("b".into(), String::new())], 4).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a\tfirst\nb\n:4\n");
    }
}
