//! kubectl-jobset: diff, restart, history and rollback for JobSets.
//!
//! Every command flows args → plan → cluster I/O → render. `cli` holds the clap
//! definition; `run` turns it into plans of plain values; `commands` do the I/O and
//! render into the writers they are given.

pub mod cli;
pub mod cluster;
pub mod commands;
pub mod completion;
pub mod diff;
pub mod error;
pub mod execute;
pub mod history;
pub mod model;
pub mod observe;
pub mod render;
pub mod restart;
pub mod rollback;
pub mod select;

use std::io::Write;
use std::sync::Arc;

use cli::{Cli, Command, GlobalArgs, OutputFormat};
use cluster::request_log::RequestLog;
use cluster::{Cluster, ConnectOptions};
use commands::ExitStatus;
use error::Result;
use render::Format;
use select::Selection;

/// Runs a parsed command line. `log` receives the `-v` request log.
pub async fn run(
    cli: Cli,
    out: &mut dyn Write,
    err: &mut dyn Write,
    log: Arc<RequestLog>,
) -> Result<ExitStatus> {
    let connect = connect_options(&cli.global);
    match cli.command {
        Command::List(args) => {
            let cluster = cluster::connect(&connect, log).await?;
            let plan = commands::list::ListPlan {
                selection: selection(&args.select, &cluster)?,
                format: format(args.output),
                no_headers: args.no_headers,
            };
            commands::list::run(&cluster, &plan, out, err).await
        }
        Command::Diff(args) => {
            let cluster = cluster::connect(&connect, log).await?;
            let plan = commands::diff::DiffPlan {
                selection: selection(&args.select, &cluster)?,
                format: match (args.summary, args.output) {
                    (true, _) => commands::diff::DiffFormat::Summary,
                    (false, Some(cli::DiffOutput::Json)) => commands::diff::DiffFormat::Json,
                    (false, Some(cli::DiffOutput::Yaml)) => commands::diff::DiffFormat::Yaml,
                    (false, None) => commands::diff::DiffFormat::Text,
                },
                color: color(&cli.global),
                external_diff: std::env::var("KUBECTL_EXTERNAL_DIFF").ok().filter(|v| !v.trim().is_empty()),
                history_limit: cli.global.history_limit,
            };
            commands::diff::run(&cluster, &plan, out, err).await
        }
        Command::Restart(args) => {
            let cluster = cluster::connect(&connect, log).await?;
            let plan = restart_plan(&args, &cli.global, &cluster)?;
            let mut ask = ask_on_terminal;
            commands::restart::run(&cluster, &plan, out, err, confirm(args.yes, &mut ask)).await
        }
        Command::History(args) => {
            let cluster = cluster::connect(&connect, log).await?;
            let plan = commands::history::HistoryPlan {
                selection: selection(&args.select, &cluster)?,
                revision: args.revision,
                diff: args
                    .diff
                    .as_deref()
                    .map(commands::history::parse_revision_pair)
                    .transpose()
                    .map_err(error::Error::Usage)?,
                format: format(args.output),
                no_headers: args.no_headers,
                color: color(&cli.global),
                history_limit: cli.global.history_limit,
            };
            commands::history::run(&cluster, &plan, out, err).await
        }
        Command::Rollback(args) => {
            let cluster = cluster::connect(&connect, log).await?;
            let plan = rollback_plan(&args, &cli.global, &cluster)?;
            let mut ask = ask_on_terminal;
            commands::rollback::run(&cluster, &plan, out, err, confirm(args.yes, &mut ask)).await
        }
        Command::Completion(args) => {
            completion::write_script(args.shell, out)?;
            Ok(ExitStatus::Success)
        }
        Command::Complete(args) => {
            complete(&args.words, out, log).await?;
            Ok(ExitStatus::Success)
        }
    }
}

fn restart_plan(
    args: &cli::RestartArgs,
    global: &GlobalArgs,
    cluster: &Cluster,
) -> Result<commands::restart::RestartPlan> {
    use commands::restart::RestartPlan;
    use error::Error;
    if args.select.names.is_empty() && args.select.selector.is_none() && !args.select.all_namespaces {
        return Err(Error::Usage("name the JobSets to restart, or select them with -l or -A".into()));
    }
    let job = args.job.as_deref().map(restart::parse_job_target).transpose().map_err(Error::Usage)?;
    if job.is_some() {
        if args.select.names.len() != 1 {
            return Err(Error::Usage("--job restarts one Job of one JobSet: name exactly one JobSet".into()));
        }
        for (set, flag) in [
            (args.if_outdated, "--if-outdated"),
            (args.count_towards_max, "--count-towards-max"),
            (args.wait.is_some(), "--wait"),
        ] {
            if set {
                return Err(Error::Usage(format!("--job cannot be combined with {flag}")));
            }
        }
    }
    if args.expect_attempt.is_some_and(|a| a < 0) {
        return Err(Error::Usage("--expect-attempt must be 0 or more".into()));
    }
    if args.timeout.is_zero() {
        return Err(Error::Usage("--timeout must be longer than 0s".into()));
    }
    Ok(RestartPlan {
        selection: selection(&args.select, cluster)?,
        options: restart::RestartOptions {
            count_towards_max: args.count_towards_max,
            expect_attempt: args.expect_attempt,
            force: args.force,
            reason: args.reason.clone(),
            requested_by: global.as_user.clone().unwrap_or_else(|| "a kubectl-jobset user".into()),
            job,
        },
        if_outdated: args.if_outdated,
        dry_run: dry_run(args.dry_run),
        wait: args.wait.map(wait_for),
        timeout: args.timeout,
        format: args.output.map(mutation_format),
        color: color(global),
        progress: err_is_terminal(),
        history_limit: global.history_limit,
    })
}

fn rollback_plan(
    args: &cli::RollbackArgs,
    global: &GlobalArgs,
    cluster: &Cluster,
) -> Result<commands::rollback::RollbackPlan> {
    if args.to_revision == Some(0) {
        return Err(error::Error::Usage(
            "--to-revision 0 is not a revision: revisions start at 1 (negative numbers count back; omit it for the previous one)".into(),
        ));
    }
    Ok(commands::rollback::RollbackPlan {
        selection: Selection::new(std::slice::from_ref(&args.name), false, None, &cluster.namespace)?,
        to_revision: args.to_revision,
        reason: args.reason.clone(),
        dry_run: dry_run(args.dry_run),
        restart: args.restart,
        restart_options: restart::RestartOptions {
            reason: Some(args.reason.clone().unwrap_or_else(|| "rollback".into())),
            requested_by: global.as_user.clone().unwrap_or_else(|| "a kubectl-jobset user".into()),
            ..Default::default()
        },
        wait: args.wait.map(wait_for),
        timeout: args.timeout,
        format: args.output.map(mutation_format),
        color: color(global),
        progress: err_is_terminal(),
        history_limit: global.history_limit,
    })
}

fn dry_run(mode: cli::DryRunMode) -> execute::DryRun {
    use execute::DryRun;
    match mode {
        cli::DryRunMode::None => DryRun::None,
        cli::DryRunMode::Client => DryRun::Client,
        cli::DryRunMode::Server => DryRun::Server,
    }
}

fn wait_for(condition: cli::WaitCondition) -> execute::WaitFor {
    match condition {
        cli::WaitCondition::Created => execute::WaitFor::Created,
        cli::WaitCondition::Ready => execute::WaitFor::Ready,
    }
}

fn mutation_format(output: cli::MutationOutput) -> Format {
    match output {
        cli::MutationOutput::Json => Format::Json,
        cli::MutationOutput::Yaml => Format::Yaml,
        cli::MutationOutput::Name => Format::Name,
    }
}

/// Ask on a terminal, unless `-y` was given or nobody is there to answer.
fn confirm<'a>(yes: bool, ask: &'a mut dyn FnMut(&str) -> Result<bool>) -> commands::Confirm<'a> {
    if yes || !stdin_is_terminal() { None } else { Some(ask) }
}

fn stdin_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

fn err_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

/// Asks a yes/no question on the terminal; only `y` or `yes` agree.
fn ask_on_terminal(question: &str) -> Result<bool> {
    let mut stderr = std::io::stderr();
    write!(stderr, "{question}")?;
    stderr.flush()?;
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"))
}

fn selection(args: &cli::SelectArgs, cluster: &Cluster) -> Result<Selection> {
    Selection::new(&args.names, args.all_namespaces, args.selector.as_deref(), &cluster.namespace)
}

/// Colour on a terminal, unless --no-color or NO_COLOR says otherwise.
fn color(global: &GlobalArgs) -> bool {
    use std::io::IsTerminal;
    render::use_color(
        std::io::stdout().is_terminal(),
        global.no_color,
        std::env::var("NO_COLOR").ok().as_deref(),
    )
}

fn connect_options(global: &GlobalArgs) -> ConnectOptions {
    ConnectOptions {
        kubeconfig: global.kubeconfig.clone(),
        context: global.context.clone(),
        cluster: global.cluster.clone(),
        user: global.user.clone(),
        namespace: global.namespace.clone(),
        server: global.server.clone(),
        token: global.token.clone(),
        tls_server_name: global.tls_server_name.clone(),
        as_user: global.as_user.clone(),
        as_groups: global.as_group.clone(),
        as_uid: global.as_uid.clone(),
        request_timeout: global.request_timeout,
        insecure_skip_tls_verify: global.insecure_skip_tls_verify,
    }
}

fn format(output: OutputFormat) -> Format {
    match output {
        OutputFormat::Table => Format::Table,
        OutputFormat::Wide => Format::Wide,
        OutputFormat::Json => Format::Json,
        OutputFormat::Yaml => Format::Yaml,
        OutputFormat::Name => Format::Name,
    }
}

/// Answers kubectl's completion protocol; lookups that fail offer nothing.
async fn complete(words: &[String], out: &mut dyn Write, log: Arc<RequestLog>) -> Result<()> {
    use completion::{Completion, NO_FILE_COMPLETION, typed_flag_value, write_candidates};
    let connect = ConnectOptions {
        kubeconfig: typed_flag_value(words, None, "kubeconfig").map(Into::into),
        context: typed_flag_value(words, None, "context"),
        namespace: typed_flag_value(words, Some('n'), "namespace"),
        request_timeout: Some(std::time::Duration::from_secs(5)),
        ..Default::default()
    };
    let names = |items: Vec<serde_json::Value>| -> Vec<String> {
        items.iter().filter_map(|i| i["metadata"]["name"].as_str().map(str::to_owned)).collect()
    };
    let (candidates, directive): (Vec<String>, u8) = match completion::plan(words) {
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
                Ok(c) => c.list(NAMESPACES, None, None).await.map(names).unwrap_or_default(),
                Err(_) => vec![],
            };
            (filter(found, &prefix, &[]), NO_FILE_COMPLETION)
        }
        Completion::JobSetNames { prefix, exclude } => {
            let found = match cluster::connect(&connect, log).await {
                Ok(c) => jobset_names(&c).await.map(names).unwrap_or_default(),
                Err(_) => vec![],
            };
            (filter(found, &prefix, &exclude), NO_FILE_COMPLETION)
        }
    };
    let candidates: Vec<(String, String)> = candidates.into_iter().map(|c| (c, String::new())).collect();
    write_candidates(out, &candidates, directive)
}

const NAMESPACES: cluster::api::Kind =
    cluster::api::Kind { group: "", version: "v1", plural: "namespaces", resource: "namespaces" };

async fn jobset_names(cluster: &Cluster) -> Result<Vec<serde_json::Value>> {
    cluster.list(cluster::api::JOBSETS, Some(&cluster.namespace), None).await
}

fn filter(mut items: Vec<String>, prefix: &str, exclude: &[String]) -> Vec<String> {
    items.retain(|i| i.starts_with(prefix) && !exclude.contains(i));
    items.sort();
    items
}
