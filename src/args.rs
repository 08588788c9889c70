//! Complete and Validate, as kubectl's commands do them: the parsed command line becomes
//! a plan of plain values, every argument checked before any connection, so a usage
//! error never needs a kubeconfig. Only `Run` (in `commands`) touches the cluster.

use std::io::IsTerminal;

use crate::cli::{self, Cli, Command, GlobalArgs};
use crate::cluster::ConnectOptions;
use crate::commands::diff::{DiffFormat, DiffPlan};
use crate::commands::history::HistoryPlan;
use crate::commands::list::{ListPlan, Printer};
use crate::commands::restart::RestartPlan;
use crate::commands::rollback::RollbackPlan;
use crate::commands::rollout::RolloutPlan;
use crate::commands::set::SetPlan;
use crate::commands::status::StatusPlan;
use crate::commands::suspend::SuspendPlan;
use crate::commands::{CommandPlan, Prompt, Watching};
use crate::error::{Error, Result};
use crate::execute::{DryRun, RestartAfter, Wait, WaitFor};
use crate::plan::restart::{RestartOptions, parse_job_target};
use crate::plan::set::Setting;
use crate::plan::template_change::Target;
use crate::recorder::RecorderPlan;
use crate::render::{self, Format};
use crate::select::Selection;

/// What to do, decided without I/O.
pub enum Invocation {
    /// `completion SHELL`: print a script.
    Completion(cli::CompletionShell),
    /// `rbac [ROLE]`: print the roles (all three without one).
    Rbac(Option<cli::RbacRole>),
    /// `__complete WORDS…`: answer kubectl's completion protocol.
    Complete(Vec<String>),
    /// A command against the cluster.
    Command { connect: Box<ConnectOptions>, plan: Box<CommandPlan> },
    /// `version`: the plugin's, and (unless `--client`) the cluster's parts.
    Version { connect: Box<ConnectOptions>, plan: crate::commands::version::VersionPlan },
}

/// Completes and validates the whole command line.
pub fn complete(cli: Cli) -> Result<Invocation> {
    let global = &cli.global;
    let plan = match cli.command {
        Command::Completion(args) => return Ok(Invocation::Completion(args.shell)),
        Command::Rbac(args) => return Ok(Invocation::Rbac(args.role)),
        Command::Complete(args) => return Ok(Invocation::Complete(completion_words(global, args.words))),
        Command::Version(args) => {
            let format = match args.output {
                Some(cli::VersionOutput::Json) => Some(Format::Json),
                Some(cli::VersionOutput::Yaml) => Some(Format::Yaml),
                None => None,
            };
            let plan = crate::commands::version::VersionPlan { client_only: args.client, format };
            return Ok(Invocation::Version { connect: Box::new(connect_options(global)), plan });
        }
        Command::List(args) => CommandPlan::List(list_plan(&args, global)?),
        Command::Diff(args) => CommandPlan::Diff(diff_plan(&args, global)?),
        Command::Restart(args) => CommandPlan::Restart(restart_plan(&args, global)?, prompt(args.yes)),
        Command::History(args) => CommandPlan::History(history_plan(&args, global)?),
        Command::Rollback(args) => {
            CommandPlan::Rollback(rollback_plan(&args, global)?, prompt(args.change.yes))
        }
        Command::Set(cli::SetArgs { command: cli::SetCommand::Image(args) }) => {
            CommandPlan::Set(set_image_plan(&args, global)?, prompt(args.template.change.yes))
        }
        Command::Set(cli::SetArgs { command: cli::SetCommand::Env(args) }) => {
            CommandPlan::Set(set_env_plan(&args, global)?, prompt(args.template.change.yes))
        }
        Command::Set(cli::SetArgs { command: cli::SetCommand::Resources(args) }) => {
            CommandPlan::Set(set_resources_plan(&args, global)?, prompt(args.template.change.yes))
        }
        Command::Set(cli::SetArgs { command: cli::SetCommand::UpdateStrategy(args) }) => {
            CommandPlan::SetUpdateStrategy(set_update_strategy_plan(&args, global)?)
        }
        Command::Status(args) => CommandPlan::Status(status_plan(&args, global)?),
        Command::Tree(args) => {
            CommandPlan::Tree(crate::commands::tree::TreePlan { selection: one_jobset(&args.name, global)? })
        }
        Command::Suspend(args) => {
            CommandPlan::Suspend(suspend_plan(&args, true, global)?, prompt(args.change.yes))
        }
        Command::Resume(args) => {
            CommandPlan::Suspend(suspend_plan(&args, false, global)?, prompt(args.change.yes))
        }
        Command::Admission(args) => CommandPlan::Admission(crate::commands::admission::AdmissionPlan {
            webhook_configuration: args.webhook_configuration.clone(),
            apply: args.apply,
            dry_run: args.dry_run.into(),
        }),
        Command::Recorder(args) => CommandPlan::Recorder(recorder_plan(&args, global)?),
        Command::Rollout(args) => {
            let yes = match &args.command {
                cli::RolloutCommand::Start(a) => a.yes,
                cli::RolloutCommand::Abort(a) => a.yes,
                _ => true,
            };
            CommandPlan::Rollout(rollout_plan(args.command, global)?, prompt(yes))
        }
    };
    Ok(Invocation::Command { connect: Box::new(connect_options(global)), plan: Box::new(plan) })
}

/// `rollout start|status|list|pause|resume|abort`.
fn rollout_plan(command: cli::RolloutCommand, global: &GlobalArgs) -> Result<RolloutPlan> {
    use crate::commands::rollout::RolloutAction;
    use crate::plan::rollout::{BatchSize, Gate, RestartMode, RolloutSpec};
    use cli::RolloutCommand as C;
    let timeout = |t: std::time::Duration| (!t.is_zero()).then_some(t);
    let (name, action, format, drive_timeout) = match command {
        C::Status(a) => (Some(a.name), RolloutAction::Status { watch: a.watch }, a.output, None),
        C::List(a) => (None, RolloutAction::List, a.output, None),
        C::Pause(a) => (Some(a.name), RolloutAction::Pause, None, None),
        C::Resume(a) => (Some(a.name), RolloutAction::Resume { detach: a.detach }, None, timeout(a.timeout)),
        C::Abort(a) => (
            Some(a.drive.name),
            RolloutAction::Abort { restart: a.restart, detach: a.drive.detach },
            None,
            timeout(a.drive.timeout),
        ),
        C::Start(a) => {
            let (name, names) = a.args.split_first().expect("clap requires one");
            if a.all_namespaces && a.selector.is_none() {
                return Err(Error::Usage("-A selects by label only: add -l SELECTOR".into()));
            }
            if names.is_empty() && a.selector.is_none() {
                return Err(Error::Usage(
                    "name the JobSets to roll out to after the rollout's name, or select them with -l".into(),
                ));
            }
            let names = names.iter().map(|n| crate::select::parse_name(n)).collect::<Result<Vec<_>>>()?;
            let (canary, canary_names) = match a.canary.parse::<usize>() {
                Ok(n) => (n, Vec::new()),
                Err(_) => {
                    (0, a.canary.split(',').map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()).collect())
                }
            };
            let gate = match a.gate.split_once('=') {
                None if a.gate == "succeeded" => Gate::Succeeded,
                None if a.gate == "ready" => Gate::Ready { seconds: 0 },
                Some(("ready", duration)) => Gate::Ready {
                    seconds: cli::parse_duration(duration)
                        .map_err(|e| Error::Usage(format!("invalid --gate {:?}: {e}", a.gate)))?
                        .as_secs(),
                },
                _ => {
                    return Err(Error::Usage(format!(
                        "invalid --gate {:?}: ready=DURATION (e.g. ready=10m) or succeeded",
                        a.gate
                    )));
                }
            };
            let bad_batch = || {
                Error::Usage(format!(
                    "invalid --batch-size {:?}: a number (3) or a percentage (25%)",
                    a.batch_size
                ))
            };
            let batch_size = match a.batch_size.strip_suffix('%') {
                Some(p) => BatchSize::Percent(
                    p.parse().ok().filter(|p| (1..=100).contains(p)).ok_or_else(bad_batch)?,
                ),
                None => BatchSize::Count(a.batch_size.parse().ok().filter(|n| *n > 0).ok_or_else(bad_batch)?),
            };
            if a.max_restarting == 0 {
                return Err(Error::Usage("--max-restarting must be at least 1".into()));
            }
            let change: Vec<String> = a
                .image
                .iter()
                .map(|i| format!("--image {i}"))
                .chain(a.env.iter().map(|e| format!("--env {e}")))
                .chain(a.to_revision.map(|n| format!("--to-revision {n}")))
                .collect();
            let spec = RolloutSpec {
                images: a.image.clone(),
                env: a.env.clone(),
                env_containers: a.containers.clone(),
                to_revision: a.to_revision,
                namespace: if a.all_namespaces {
                    None
                } else {
                    Some(global.namespace.clone().unwrap_or_default())
                },
                selector: a.selector.clone(),
                names,
                canary,
                canary_names,
                canary_restart: match a.canary_restart {
                    cli::RolloutRestart::Now => RestartMode::Now,
                    cli::RolloutRestart::Natural => RestartMode::Natural,
                },
                gate,
                batch_size,
                restart: match a.restart {
                    cli::RolloutBatchRestart::Now => RestartMode::Now,
                    cli::RolloutBatchRestart::Strategy => RestartMode::Natural,
                },
                max_restarting: a.max_restarting,
                cause: a.reason.clone().unwrap_or_else(|| format!("rollout {name}: {}", change.join(" "))),
            };
            crate::plan::rollout::settings(&spec).map_err(Error::Usage)?;
            check_rollout_name(name)?;
            let action = RolloutAction::Start { spec: Box::new(spec), detach: a.detach };
            (Some(name.clone()), action, None, timeout(a.timeout))
        }
    };
    if let Some(name) = &name {
        check_rollout_name(name)?;
    }
    Ok(RolloutPlan {
        name,
        namespace: global.namespace.clone().unwrap_or_default(),
        action,
        format: format.map(|f| match f {
            cli::VersionOutput::Json => Format::Json,
            cli::VersionOutput::Yaml => Format::Yaml,
        }),
        requested_by: requested_by(global),
        timeout: drive_timeout,
        history_limit: global.history_limit,
    })
}

/// A rollout's name becomes a label value and part of a ConfigMap's name.
fn check_rollout_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= 40
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if valid {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "invalid rollout name {name:?}: lower-case letters, digits and '-', at most 40 characters"
        )))
    }
}

/// `suspend`/`resume NAME...` (or `-l`, with `-A`): never every JobSet by default.
fn suspend_plan(args: &cli::LifecycleArgs, suspend: bool, global: &GlobalArgs) -> Result<SuspendPlan> {
    if args.select.names.is_empty() && args.select.selector.is_none() {
        let verb = if suspend { "suspend" } else { "resume" };
        return Err(Error::Usage(format!(
            "name the JobSets to {verb}, or select them with -l (with -A for every namespace)"
        )));
    }
    if args.select.all_namespaces && args.select.selector.is_none() {
        return Err(Error::Usage("-A selects by label only: add -l SELECTOR".into()));
    }
    Ok(SuspendPlan {
        selection: selection(&args.select, global)?,
        suspend,
        dry_run: args.change.dry_run.into(),
    })
}

fn selection(args: &cli::SelectArgs, global: &GlobalArgs) -> Result<Selection> {
    Selection::parse(&args.names, args.all_namespaces, args.selector.as_deref(), global.namespace.as_deref())
}

/// Commands that act on one JobSet, by name.
fn one_jobset(name: &str, global: &GlobalArgs) -> Result<Selection> {
    Selection::parse(&[name.to_owned()], false, None, global.namespace.as_deref())
}

/// `-o`: a format, or one of kubectl's template printers (parsed).
fn output_of(output: &cli::ListOutput) -> Result<(Format, Option<Printer>)> {
    use crate::render::gotemplate::GoTemplate;
    use crate::render::printers::{JsonPath, parse_custom_columns};
    let bad = |what: &str, why: String| Error::Usage(format!("invalid {what}: {why}"));
    Ok(match output {
        cli::ListOutput::Format(f) => ((*f).into(), None),
        cli::ListOutput::JsonPath(t) => {
            (Format::Json, Some(Printer::JsonPath(JsonPath::parse(t).map_err(|w| bad("-o jsonpath", w))?)))
        }
        cli::ListOutput::CustomColumns(c) => (
            Format::Json,
            Some(Printer::Columns(parse_custom_columns(c).map_err(|w| bad("-o custom-columns", w))?)),
        ),
        cli::ListOutput::GoTemplate(t) => (
            Format::Json,
            Some(Printer::GoTemplate(GoTemplate::parse(t).map_err(|w| bad("-o go-template", w))?)),
        ),
    })
}

fn list_plan(args: &cli::ListArgs, global: &GlobalArgs) -> Result<ListPlan> {
    use crate::render::printers::Path;
    let bad = |what: &str, why: String| Error::Usage(format!("invalid {what}: {why}"));
    let (format, printer) = output_of(&args.output)?;
    let format = if printer.is_some() { Format::Table } else { format };
    if printer.is_some() && args.watch.watch {
        return Err(Error::Usage(
            "-o jsonpath, custom-columns and go-template print once: not with -w".into(),
        ));
    }
    let sort_by = args
        .sort_by
        .as_deref()
        .map(|p| Path::parse(p.trim().trim_start_matches('{').trim_end_matches('}')))
        .transpose()
        .map_err(|w| bad("--sort-by", w))?;
    let mut selection = selection(&args.select, global)?;
    selection.field_selector = args.field_selector.clone().filter(|f| !f.trim().is_empty());
    Ok(ListPlan {
        selection,
        format,
        printer,
        sort_by,
        show_labels: args.show_labels,
        label_columns: args.label_columns.iter().filter(|l| !l.is_empty()).cloned().collect(),
        no_headers: args.no_headers,
        watch: watching(&args.watch),
    })
}

fn diff_plan(args: &cli::DiffArgs, global: &GlobalArgs) -> Result<DiffPlan> {
    Ok(DiffPlan {
        selection: selection(&args.select, global)?,
        format: match (args.summary, args.output) {
            (true, _) => DiffFormat::Summary,
            (false, Some(cli::DiffOutput::Json)) => DiffFormat::Json,
            (false, Some(cli::DiffOutput::Yaml)) => DiffFormat::Yaml,
            (false, None) => DiffFormat::Text,
        },
        color: color(global),
        external_diff: std::env::var("KUBECTL_EXTERNAL_DIFF").ok().filter(|v| !v.trim().is_empty()),
        history_limit: global.history_limit,
        record: args.record.record,
        server_dry_run: args.server_dry_run,
    })
}

fn history_plan(args: &cli::HistoryArgs, global: &GlobalArgs) -> Result<HistoryPlan> {
    let (format, printer) = output_of(&args.show.output)?;
    Ok(HistoryPlan {
        selection: selection(&args.select, global)?,
        revision: args.revision,
        diff: args.diff.as_deref().map(parse_revision_pair).transpose()?,
        format,
        printer,
        no_headers: args.show.no_headers,
        color: color(global),
        history_limit: global.history_limit,
        record: args.record.record,
        watch: history_watch(args)?,
    })
}

/// `--diff A,B`: two revision numbers (negative ones count back).
fn parse_revision_pair(text: &str) -> Result<(i64, i64)> {
    let bad = || Error::Usage(format!("--diff {text:?}: use two revisions, e.g. --diff 1,2 or --diff -2,-1"));
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    Ok((a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?))
}

fn watching(args: &cli::WatchArgs) -> Option<Watching> {
    args.watch.then_some(Watching { events: args.output_watch_events })
}

/// `history -w` follows one JobSet's revisions, as a table.
fn history_watch(args: &cli::HistoryArgs) -> Result<Option<Watching>> {
    let Some(watch) = watching(&args.show.watch) else { return Ok(None) };
    if args.select.names.len() != 1 {
        return Err(Error::Usage("history -w follows one JobSet: name exactly one".into()));
    }
    if args.revision.is_some() || args.diff.is_some() {
        return Err(Error::Usage("history -w lists revisions: drop --revision and --diff".into()));
    }
    if !matches!(
        args.show.output,
        cli::ListOutput::Format(cli::OutputFormat::Table | cli::OutputFormat::Wide)
    ) {
        return Err(Error::Usage("history -w prints table rows: use -o wide or no -o".into()));
    }
    Ok(Some(watch))
}

fn restart_plan(args: &cli::RestartArgs, global: &GlobalArgs) -> Result<RestartPlan> {
    if args.select.names.is_empty() && args.select.selector.is_none() && !args.select.all_namespaces {
        return Err(Error::Usage("name the JobSets to restart, or select them with -l or -A".into()));
    }
    let job = args.job.as_deref().map(parse_job_target).transpose().map_err(usage)?;
    if job.is_some() {
        validate_job_restart(args)?;
    }
    if args.expect_attempt.is_some_and(|a| a < 0) {
        return Err(Error::Usage("--expect-attempt must be 0 or more".into()));
    }
    validate_timeout(args.timeout)?;
    Ok(RestartPlan {
        selection: selection(&args.select, global)?,
        options: RestartOptions {
            count_towards_max: args.count_towards_max,
            expect_attempt: args.expect_attempt,
            force: args.force,
            reason: args.reason.clone(),
            requested_by: requested_by(global),
            job,
            after_change: false,
            policy: None,
        },
        if_outdated: args.if_outdated,
        dry_run: args.dry_run.into(),
        wait: wait(args.wait, args.timeout),
        format: args.output.map(Into::into),
        color: color(global),
        history_limit: global.history_limit,
    })
}

/// `--job` restarts one Job of one JobSet, so fleet flags make no sense with it.
fn validate_job_restart(args: &cli::RestartArgs) -> Result<()> {
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
    Ok(())
}

/// A parser's typed error as a usage error: the command line's message is its text.
fn usage(why: impl std::fmt::Display) -> Error {
    Error::Usage(why.to_string())
}

fn validate_timeout(timeout: std::time::Duration) -> Result<()> {
    if timeout.is_zero() {
        return Err(Error::Usage("--timeout must be longer than 0s".into()));
    }
    Ok(())
}

fn rollback_plan(args: &cli::RollbackArgs, global: &GlobalArgs) -> Result<RollbackPlan> {
    if args.to_revision == Some(0) {
        return Err(Error::Usage(
            "--to-revision 0 is not a revision: revisions start at 1 (negative numbers count back; omit it for the previous one)".into(),
        ));
    }
    validate_timeout(args.with_restart.timeout)?;
    Ok(RollbackPlan {
        selection: one_jobset(&args.name, global)?,
        to_revision: args.to_revision,
        reason: args.reason.clone(),
        dry_run: args.change.dry_run.into(),
        restart: restart_after(
            args.restart || args.now,
            &args.with_restart,
            args.reason.clone().unwrap_or_else(|| "rollback".into()),
            global,
        ),
        handover: args.handover,
        now: args.now,
        at_next_restart: args.at_next_restart,
        format: args.output.map(Into::into),
        color: color(global),
        history_limit: global.history_limit,
    })
}

/// `set image NAME... [REPLICATEDJOB/]CONTAINER=IMAGE...`: names first, then images, as
/// kubectl takes them; JobSets by name or by `-l` (never all of them implicitly).
fn set_update_strategy_plan(
    args: &cli::SetUpdateStrategyArgs,
    global: &GlobalArgs,
) -> Result<crate::commands::set_update_strategy::SetUpdateStrategyPlan> {
    let Some((strategy, names)) = args.args.split_last() else {
        return Err(Error::Usage("give the JobSet names, then the strategy".into()));
    };
    let strategy = strategy.parse().map_err(|e: crate::model::strategy::InvalidStrategy| {
        Error::Usage(format!(
            "{:?} is not an update strategy: the last argument is Never, Opportunistic or Immediate",
            e.value
        ))
    })?;
    if args.all_namespaces && args.selector.is_none() {
        return Err(Error::Usage("-A selects by label only: add -l SELECTOR".into()));
    }
    if names.is_empty() && args.selector.is_none() {
        return Err(Error::Usage(
            "name the JobSets (then the strategy), or select them with -l (with -A for every namespace)"
                .into(),
        ));
    }
    let select = cli::SelectArgs {
        names: names.to_vec(),
        all_namespaces: args.all_namespaces,
        selector: args.selector.clone(),
    };
    Ok(crate::commands::set_update_strategy::SetUpdateStrategyPlan {
        selection: selection(&select, global)?,
        strategy,
        dry_run: args.dry_run.into(),
    })
}

fn set_image_plan(args: &cli::SetImageArgs, global: &GlobalArgs) -> Result<SetPlan> {
    let first_image = args.args.iter().position(|a| a.contains('=')).unwrap_or(args.args.len());
    let (names, images) = args.args.split_at(first_image);
    if let Some(name) = images.iter().find(|a| !a.contains('=')) {
        return Err(Error::Usage(format!(
            "{name:?} comes after an image: give the JobSet names first, then [REPLICATEDJOB/]CONTAINER=IMAGE"
        )));
    }
    let images = crate::plan::set_image::parse_image_args(images).map_err(usage)?;
    set_plan(names, Setting::Image(images), &args.template, global)
}

/// `set env NAME... KEY=VALUE... KEY-... [-e KEY=VALUE]`: the names come first (a JobSet
/// name never holds `=` nor ends in `-`).
fn set_env_plan(args: &cli::SetEnvArgs, global: &GlobalArgs) -> Result<SetPlan> {
    let is_var = |a: &String| a.contains('=') || a.ends_with('-');
    let first_var = args.args.iter().position(is_var).unwrap_or(args.args.len());
    let (names, vars) = args.args.split_at(first_var);
    if let Some(name) = vars.iter().find(|a| !is_var(a)) {
        return Err(Error::Usage(format!(
            "{name:?} comes after a variable: give the JobSet names first, then KEY=VALUE or KEY-"
        )));
    }
    let all: Vec<String> = vars.iter().chain(&args.env).cloned().collect();
    let vars = crate::plan::set_env::parse_env_args(&all).map_err(usage)?;
    let target = container_target(&args.containers)?;
    let env = crate::plan::set_env::EnvChange { target, vars };
    set_plan(names, Setting::Env(env), &args.template, global)
}

fn set_resources_plan(args: &cli::SetResourcesArgs, global: &GlobalArgs) -> Result<SetPlan> {
    let list = |flag: &str, text: &Option<String>| -> Result<_> {
        match text {
            Some(t) => crate::plan::set_resources::parse_resource_list(flag, t).map_err(Error::Usage),
            None => Ok(Default::default()),
        }
    };
    let resources = crate::plan::set_resources::ResourcesChange {
        target: container_target(&args.containers)?,
        limits: list("--limits", &args.limits)?,
        requests: list("--requests", &args.requests)?,
    };
    set_plan(&args.names, Setting::Resources(resources), &args.template, global)
}

/// `-c [REPLICATEDJOB/]CONTAINER`.
fn container_target(text: &str) -> Result<Target> {
    Target::parse(text).ok_or_else(|| {
        Error::Usage(format!("invalid -c {text:?}: use [REPLICATEDJOB/]CONTAINER, e.g. trainer or workers/*"))
    })
}

/// What `set image|env|resources` share: the selection, the change cause, restart and
/// Kueue options.
fn set_plan(
    names: &[String],
    setting: Setting,
    args: &cli::SetTemplateArgs,
    global: &GlobalArgs,
) -> Result<SetPlan> {
    if args.all_namespaces && args.selector.is_none() {
        return Err(Error::Usage("-A selects by label only: add -l SELECTOR".into()));
    }
    if names.is_empty() && args.selector.is_none() {
        return Err(Error::Usage(
            "name the JobSets to change, or select them with -l (with -A for every namespace)".into(),
        ));
    }
    if args.handover && names.len() != 1 {
        return Err(Error::Usage("--handover changes one JobSet: name exactly one".into()));
    }
    validate_timeout(args.with_restart.timeout)?;
    if let Some(reason) = &args.reason
        && reason.trim().is_empty()
    {
        return Err(Error::Usage("--reason needs a text".into()));
    }
    let select = cli::SelectArgs {
        names: names.to_vec(),
        all_namespaces: args.all_namespaces,
        selector: args.selector.clone(),
    };
    let cause = args.reason.clone().unwrap_or_else(|| setting.default_cause());
    Ok(SetPlan {
        selection: selection(&select, global)?,
        restart: restart_after(args.restart || args.now, &args.with_restart, cause.clone(), global),
        handover: args.handover,
        now: args.now,
        at_next_restart: args.at_next_restart,
        setting,
        cause,
        requested_by: requested_by(global),
        dry_run: args.change.dry_run.into(),
        format: args.output.map(Into::into),
        color: color(global),
        history_limit: global.history_limit,
    })
}

fn status_plan(args: &cli::StatusArgs, global: &GlobalArgs) -> Result<StatusPlan> {
    Ok(StatusPlan {
        selection: one_jobset(&args.name, global)?,
        watch: args.watch,
        timeout: (!args.timeout.is_zero()).then_some(args.timeout),
        progress: std::io::stdout().is_terminal(),
        history_limit: global.history_limit,
        record: args.record.record,
    })
}

/// The words to complete, with the connection flags clap took as global ones when they
/// came before the subcommand (`__complete -n ml list <TAB>`) put back in front.
fn completion_words(global: &GlobalArgs, words: Vec<String>) -> Vec<String> {
    let mut all = Vec::new();
    let flags = [
        ("--kubeconfig", global.kubeconfig.as_ref().map(|p| p.display().to_string())),
        ("--context", global.context.clone()),
        ("--namespace", global.namespace.clone()),
    ];
    for (flag, value) in flags {
        if let Some(value) = value {
            all.extend([flag.to_owned(), value]);
        }
    }
    all.extend(words);
    all
}

fn recorder_plan(args: &cli::RecorderArgs, global: &GlobalArgs) -> Result<RecorderPlan> {
    let selection =
        Selection::parse(&[], args.all_namespaces, args.selector.as_deref(), global.namespace.as_deref())?;
    if let Some(selector) = &selection.label_selector {
        crate::presence::parse_label_selector(selector)
            .map_err(|why| Error::Usage(format!("-l {selector:?}: {why}")))?;
    }
    Selection::parse(&[], false, None, Some(&args.lease_namespace)).map_err(|e| {
        Error::Usage(format!("invalid --lease-namespace: {}", e.to_string().trim_start_matches("invalid ")))
    })?;
    if args.lease_duration < std::time::Duration::from_secs(1) {
        return Err(Error::Usage("--lease-duration must be at least 1s".into()));
    }
    Ok(RecorderPlan {
        namespace: selection.namespace,
        selector: selection.label_selector,
        history_limit: global.history_limit,
        leader_elect: args.leader_elect,
        lease_namespace: args.lease_namespace.clone(),
        lease_duration: args.lease_duration,
        metrics_addr: parse_metrics_addr(&args.metrics_addr)?,
        history_retention: args.history_retention,
        update_strategies: (!args.no_update_strategies).then_some(
            args.default_update_strategy
                .parse()
                .map_err(|e: String| Error::Usage(format!("--default-update-strategy: {e}")))?,
        ),
    })
}

/// `HOST:PORT`, `:PORT` (every interface) or `0` (no endpoints).
fn parse_metrics_addr(text: &str) -> Result<Option<std::net::SocketAddr>> {
    let text = text.trim();
    if text == "0" {
        return Ok(None);
    }
    let full = if text.starts_with(':') { format!("0.0.0.0{text}") } else { text.to_owned() };
    full.parse().map(Some).map_err(|_| {
        Error::Usage(format!(
            "--metrics-addr {text:?} is not an address: use HOST:PORT (e.g. 127.0.0.1:8080), :PORT, or 0 for none"
        ))
    })
}

/// `--restart` after a template change, with its `--force`, `--wait` and `--timeout`;
/// `reason` is what the restart says it is for.
fn restart_after(
    restart: bool,
    with: &cli::WithRestartArgs,
    reason: String,
    global: &GlobalArgs,
) -> Option<RestartAfter> {
    restart.then(|| RestartAfter {
        options: RestartOptions {
            reason: Some(reason),
            requested_by: requested_by(global),
            force: with.force,
            after_change: true,
            ..Default::default()
        },
        wait: wait(with.wait, with.timeout),
    })
}

/// `--wait[=ready]` and `--timeout`; progress on a terminal.
fn wait(until: Option<cli::WaitCondition>, timeout: std::time::Duration) -> Option<Wait> {
    until.map(|until| Wait { until: until.into(), timeout, progress: std::io::stderr().is_terminal() })
}

/// Who asks, until the API server says (SelfSubjectReview).
fn requested_by(global: &GlobalArgs) -> String {
    global.as_user.clone().unwrap_or_else(|| "a kubectl-jobset user".into())
}

/// Ask on a terminal, unless `-y` was given or nobody is there to answer.
fn prompt(yes: bool) -> Prompt {
    if yes || !std::io::stdin().is_terminal() { Prompt::Never } else { Prompt::Terminal }
}

/// Colour on a terminal, unless --no-color or NO_COLOR says otherwise.
fn color(global: &GlobalArgs) -> bool {
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

impl From<cli::DryRunMode> for DryRun {
    fn from(mode: cli::DryRunMode) -> Self {
        match mode {
            cli::DryRunMode::None => DryRun::None,
            cli::DryRunMode::Client => DryRun::Client,
            cli::DryRunMode::Server => DryRun::Server,
        }
    }
}

impl From<cli::WaitCondition> for WaitFor {
    fn from(condition: cli::WaitCondition) -> Self {
        match condition {
            cli::WaitCondition::Created => WaitFor::Created,
            cli::WaitCondition::Ready => WaitFor::Ready,
        }
    }
}

impl From<cli::MutationOutput> for Format {
    fn from(output: cli::MutationOutput) -> Self {
        match output {
            cli::MutationOutput::Json => Format::Json,
            cli::MutationOutput::Yaml => Format::Yaml,
            cli::MutationOutput::Name => Format::Name,
        }
    }
}

impl From<cli::OutputFormat> for Format {
    fn from(output: cli::OutputFormat) -> Self {
        match output {
            cli::OutputFormat::Table => Format::Table,
            cli::OutputFormat::Wide => Format::Wide,
            cli::OutputFormat::Json => Format::Json,
            cli::OutputFormat::Yaml => Format::Yaml,
            cli::OutputFormat::Name => Format::Name,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn complete_args(args: &[&str]) -> Result<Invocation> {
        complete(Cli::try_parse_from(std::iter::once("kubectl-jobset").chain(args.iter().copied())).unwrap())
    }

    #[test]
    fn usage_errors_need_no_cluster() {
        // Validation runs before any kubeconfig is read: these fail as usage errors.
        for (args, want) in [
            (&["restart"][..], "name the JobSets to restart"),
            (&["restart", "a", "b", "--job", "w/0"][..], "name exactly one JobSet"),
            (&["restart", "a", "--job", "w/0", "--wait"][..], "--job cannot be combined with --wait"),
            (&["restart", "a", "--timeout", "0s"][..], "--timeout must be longer than 0s"),
            (&["rollback", "a", "--to-revision", "0"][..], "revisions start at 1"),
            (&["history", "a", "--diff", "1"][..], "use two revisions"),
            (&["diff", "-n", "Bad_NS"][..], "invalid namespace"),
            (&["list", "a", "-A"][..], "across all namespaces"),
            (&["set", "image", "a"][..], "at least one image"),
            (&["history", "a", "b", "-w"][..], "name exactly one"),
            (&["history", "a", "-w", "-o", "json"][..], "prints table rows"),
            (&["set", "image", "c=x:1"][..], "name the JobSets to change"),
            (&["set", "image", "a", "c=x:1", "b"][..], "comes after an image"),
            (&["set", "image", "-A", "c=x:1"][..], "add -l SELECTOR"),
            (&["set", "image", "a", "c"][..], "at least one image"),
            (&["set", "image", "a", "/c=x"][..], "container name is missing"),
            (&["set", "image", "a", "c=x", "--reason", " "][..], "--reason needs a text"),
            (&["set", "image", "a", "b", "c=x", "--handover"][..], "name exactly one"),
            (&["recorder", "--metrics-addr", "localhost"][..], "is not an address"),
            (&["recorder", "-l", "a in (b"][..], "cannot parse label selector"),
            (&["recorder", "--lease-namespace", "Bad_NS"][..], "invalid --lease-namespace"),
            (&["recorder", "--lease-duration", "500ms"][..], "at least 1s"),
        ] {
            match complete_args(args) {
                Err(e @ Error::Usage(_)) => assert!(e.to_string().contains(want), "{args:?}: {e}"),
                Err(e) => panic!("{args:?}: not a usage error: {e}"),
                Ok(_) => panic!("{args:?}: accepted"),
            }
        }
    }

    #[test]
    fn revision_pairs() {
        assert_eq!(parse_revision_pair("1,2").ok(), Some((1, 2)));
        assert_eq!(parse_revision_pair("-2, -1").ok(), Some((-2, -1)));
        assert!(matches!(parse_revision_pair("1"), Err(Error::Usage(_))));
        assert!(matches!(parse_revision_pair("a,b"), Err(Error::Usage(_))));
    }

    #[test]
    fn read_verbs_record_only_with_record() {
        if std::env::var_os("KUBECTL_JOBSET_RECORD").is_some() {
            return; // The setting would decide; the e2e tests pin it.
        }
        let record = |args: &[&str]| -> bool {
            let Ok(Invocation::Command { plan, .. }) = complete_args(args) else { panic!("{args:?}") };
            match *plan {
                CommandPlan::Diff(p) => p.record,
                CommandPlan::History(p) => p.record,
                CommandPlan::Status(p) => p.record,
                _ => panic!("{args:?}"),
            }
        };
        for verb in [&["diff"][..], &["history", "a"], &["status", "a"]] {
            assert!(!record(verb), "{verb:?} only reads by default");
            let with: Vec<&str> = verb.iter().copied().chain(["--record"]).collect();
            assert!(record(&with), "{with:?}");
        }
        // Write verbs and the commands that never compare take no --record.
        for args in [&["restart", "a", "--record"][..], &["list", "--record"], &["tree", "a", "--record"]] {
            let words = std::iter::once("kubectl-jobset").chain(args.iter().copied());
            assert!(Cli::try_parse_from(words).is_err(), "{args:?}");
        }
    }

    #[test]
    fn recorder_flags_make_a_plan() {
        let Ok(Invocation::Command { plan, .. }) = complete_args(&[
            "recorder",
            "-A",
            "-l",
            "team=ml",
            "--leader-elect",
            "--lease-namespace",
            "ops",
            "--lease-duration",
            "6s",
            "--metrics-addr",
            ":9090",
            "--history-limit",
            "3",
        ]) else {
            panic!()
        };
        let CommandPlan::Recorder(plan) = *plan else { panic!() };
        assert_eq!(plan.namespace, None);
        assert_eq!(plan.selector.as_deref(), Some("team=ml"));
        assert!(plan.leader_elect);
        assert_eq!(plan.lease_namespace, "ops");
        assert_eq!(plan.lease_duration, std::time::Duration::from_secs(6));
        assert_eq!(plan.metrics_addr, Some("0.0.0.0:9090".parse().unwrap()));
        assert_eq!(plan.history_limit, 3);
        let Ok(Invocation::Command { plan, .. }) = complete_args(&["recorder", "--metrics-addr", "0"]) else {
            panic!()
        };
        let CommandPlan::Recorder(plan) = plan.in_default_namespace("team-a") else { panic!() };
        assert_eq!((plan.metrics_addr, plan.namespace.as_deref()), (None, Some("team-a")));
        assert_eq!(plan.lease_namespace, "kube-system");
    }

    #[test]
    fn the_namespace_is_filled_in_after_connecting() {
        let Ok(Invocation::Command { plan, .. }) = complete_args(&["diff"]) else { panic!() };
        let CommandPlan::Diff(plan) = *plan else { panic!() };
        assert_eq!(plan.selection.in_default_namespace("team-a").namespace.as_deref(), Some("team-a"));
        let Ok(Invocation::Command { plan, .. }) = complete_args(&["diff", "-n", "ml"]) else { panic!() };
        let CommandPlan::Diff(plan) = *plan else { panic!() };
        assert_eq!(plan.selection.in_default_namespace("team-a").namespace.as_deref(), Some("ml"));
    }
}
