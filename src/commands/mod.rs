//! Run, one module per subcommand. Each takes a plan of plain values (no clap types,
//! built and validated from the command line before connecting), does its cluster I/O through `crate::observe`,
//! `crate::execute` and `crate::cluster`, and renders into writers. No command imports
//! another.

pub mod admission;
pub mod diff;
pub mod history;
pub mod list;
pub mod restart;
pub mod rollback;
pub mod rollout;
pub mod set;
pub mod set_update_strategy;
pub mod status;
pub mod suspend;
pub mod tree;
pub mod version;

use std::io::Write;

use crate::cluster::Cluster;
use crate::error::Result;
use crate::exit::ExitStatus;

/// Asks the user a yes/no question (None: do not ask, proceed).
pub type Confirm<'a> = Option<&'a mut dyn FnMut(&str) -> Result<bool>>;

/// Whether a command that changes several things asks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prompt {
    /// On the terminal (stdin is one, and `-y` was not given).
    Terminal,
    Never,
}

impl Prompt {
    fn confirm(self, ask: &mut dyn FnMut(&str) -> Result<bool>) -> Confirm<'_> {
        (self == Prompt::Terminal).then_some(ask)
    }
}

/// `-w`: after the first output, print changes as they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watching {
    /// `--output-watch-events`: each change starts with ADDED, MODIFIED or DELETED.
    pub events: bool,
}

/// A validated command, ready to run against a cluster.
#[derive(Debug, Clone)]
pub enum CommandPlan {
    List(list::ListPlan),
    Diff(diff::DiffPlan),
    Restart(restart::RestartPlan, Prompt),
    History(history::HistoryPlan),
    Rollback(rollback::RollbackPlan, Prompt),
    Rollout(rollout::RolloutPlan, Prompt),
    Set(set::SetPlan, Prompt),
    SetUpdateStrategy(set_update_strategy::SetUpdateStrategyPlan),
    Status(status::StatusPlan),
    Suspend(suspend::SuspendPlan, Prompt),
    Tree(tree::TreePlan),
    Recorder(crate::recorder::RecorderPlan),
    Admission(admission::AdmissionPlan),
}

impl CommandPlan {
    /// Fills in the kubeconfig context's namespace where `-n` was not given.
    pub fn in_default_namespace(mut self, namespace: &str) -> Self {
        if let CommandPlan::Rollout(plan, prompt) = self {
            return CommandPlan::Rollout(plan.in_default_namespace(namespace), prompt);
        }
        let selection = match &mut self {
            CommandPlan::List(p) => &mut p.selection,
            CommandPlan::Diff(p) => &mut p.selection,
            CommandPlan::Restart(p, _) => &mut p.selection,
            CommandPlan::History(p) => &mut p.selection,
            CommandPlan::Rollback(p, _) => &mut p.selection,
            CommandPlan::Set(p, _) => &mut p.selection,
            CommandPlan::SetUpdateStrategy(p) => &mut p.selection,
            CommandPlan::Status(p) => &mut p.selection,
            CommandPlan::Suspend(p, _) => &mut p.selection,
            CommandPlan::Tree(p) => &mut p.selection,
            CommandPlan::Admission(_) => return self,
            CommandPlan::Rollout(..) => unreachable!("handled above"),
            CommandPlan::Recorder(p) => {
                if p.namespace.as_deref() == Some("") {
                    p.namespace = Some(namespace.to_owned());
                }
                return self;
            }
        };
        *selection = std::mem::take(selection).in_default_namespace(namespace);
        self
    }

    pub async fn run(
        &self,
        cluster: &Cluster,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<ExitStatus> {
        let mut ask = ask_on_terminal;
        match self {
            CommandPlan::List(plan) => list::run(cluster, plan, out, err).await,
            CommandPlan::Diff(plan) => diff::run(cluster, plan, out, err).await,
            CommandPlan::Restart(plan, prompt) => {
                restart::run(cluster, plan, out, err, prompt.confirm(&mut ask)).await
            }
            CommandPlan::History(plan) => history::run(cluster, plan, out, err).await,
            CommandPlan::Rollback(plan, prompt) => {
                rollback::run(cluster, plan, out, err, prompt.confirm(&mut ask)).await
            }
            CommandPlan::Set(plan, prompt) => {
                set::run(cluster, plan, out, err, prompt.confirm(&mut ask)).await
            }
            CommandPlan::SetUpdateStrategy(plan) => set_update_strategy::run(cluster, plan, out, err).await,
            CommandPlan::Status(plan) => status::run(cluster, plan, out, err).await,
            CommandPlan::Tree(plan) => tree::run(cluster, plan, out, err).await,
            CommandPlan::Suspend(plan, prompt) => {
                suspend::run(cluster, plan, out, err, prompt.confirm(&mut ask)).await
            }
            CommandPlan::Recorder(plan) => crate::recorder::run(cluster, plan, err).await,
            CommandPlan::Admission(plan) => admission::run(cluster, plan, out).await,
            CommandPlan::Rollout(plan, prompt) => {
                rollout::run(cluster, plan, out, err, prompt.confirm(&mut ask)).await
            }
        }
    }
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
