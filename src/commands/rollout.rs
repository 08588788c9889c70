//! `rollout start|status|list|pause|resume|abort`: one template change taken over a fleet
//! of JobSets in steps (see `plan::rollout`), its journal a ConfigMap in the namespace
//! the command runs in. `start`, `resume` and `abort` drive it in the foreground
//! (`execute::rollout`) until it completes, stops or is paused (`--detach`: only write
//! the journal, for the recorder or a later `resume`).

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::Confirm;
use crate::cluster::Cluster;
use crate::error::{Error, Result};
use crate::execute::rollout::{
    Driver, Journal, SUBJECT, changes, drive, look, read, set_journal, set_phase, step_words, wait_for_change,
};
use crate::exit::ExitStatus;
use crate::model::jobset::{JobSet, RESOURCE_NAME};
use crate::observe::fleet;
use crate::plan::rollout::{self, MemberState, Phase, RolloutSpec, RolloutState, SPEC_KEY, STATE_KEY};
use crate::render::{self, Format};
use crate::select::Selection;

/// What to do with a rollout.
#[derive(Debug, Clone, PartialEq)]
pub enum RolloutAction {
    Start { spec: Box<RolloutSpec>, detach: bool },
    Status { watch: bool },
    List,
    Pause,
    Resume { detach: bool },
    Abort { restart: bool, detach: bool },
}

#[derive(Debug, Clone)]
pub struct RolloutPlan {
    /// The rollout's name (None for `list`).
    pub name: Option<String>,
    /// Where its journal lives (the namespace the command runs in).
    pub namespace: String,
    pub action: RolloutAction,
    /// `-o json|yaml` (status, list).
    pub format: Option<Format>,
    /// Who asks (restart conditions, Events).
    pub requested_by: String,
    /// How long the driver may run (`--timeout`; None: until done).
    pub timeout: Option<Duration>,
    /// `--history-limit`, for the history the driver records.
    pub history_limit: usize,
}

impl RolloutPlan {
    pub fn in_default_namespace(mut self, namespace: &str) -> Self {
        if self.namespace.is_empty() {
            self.namespace = namespace.to_owned();
        }
        if let RolloutAction::Start { spec, .. } = &mut self.action
            && spec.namespace.as_deref() == Some("")
        {
            spec.namespace = Some(namespace.to_owned());
        }
        self
    }

    fn name(&self) -> &str {
        self.name.as_deref().unwrap_or_default()
    }

    /// The driver of this rollout, for this command.
    fn driver(&self) -> Driver {
        Driver {
            name: self.name.clone(),
            namespace: self.namespace.clone(),
            requested_by: self.requested_by.clone(),
            timeout: self.timeout,
            history_limit: self.history_limit,
        }
    }
}

pub async fn run(
    cluster: &Cluster,
    plan: &RolloutPlan,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    match &plan.action {
        RolloutAction::Start { spec, detach } => start(cluster, plan, spec, *detach, out, err, confirm).await,
        RolloutAction::Status { watch } => status(cluster, plan, *watch, out).await,
        RolloutAction::List => list(cluster, plan, out).await,
        RolloutAction::Pause => {
            set_phase(cluster, &plan.driver(), out, |state| match state.phase {
                Phase::Progressing => Ok(Phase::Paused),
                other => Err(format!("it is {}, not progressing", other.as_str())),
            })
            .await?;
            Ok(ExitStatus::Success)
        }
        RolloutAction::Resume { detach } => {
            set_phase(cluster, &plan.driver(), out, |state| match state.phase {
                Phase::Paused | Phase::Progressing => Ok(Phase::Progressing),
                Phase::Failed => Err(format!(
                    "{}; a failed rollout is not resumed: `rollout abort` puts the changed JobSets back",
                    state.message
                )),
                other => Err(format!("it is {}", other.as_str())),
            })
            .await?;
            if *detach {
                Ok(ExitStatus::Success)
            } else {
                drive(cluster, &plan.driver(), out, err, &mut |_| ()).await
            }
        }
        RolloutAction::Abort { restart, detach } => {
            let restart = *restart;
            if let Some(confirm) = confirm
                && !confirm(&format!(
                    "Abort rollout {} and put back the templates of the JobSets it changed{}? [y/N] ",
                    plan.name(),
                    if restart { ", restarting those it restarted" } else { "" }
                ))?
            {
                return Err(Error::Aborted);
            }
            set_journal(cluster, &plan.driver(), out, |state| match state.phase {
                Phase::Aborted => Err("it is aborted already".into()),
                _ => {
                    state.phase = Phase::Aborting;
                    state.restart_on_abort = restart;
                    state.message = "aborting: the changed JobSets get their templates back".into();
                    Ok(())
                }
            })
            .await?;
            if *detach {
                Ok(ExitStatus::Success)
            } else {
                drive(cluster, &plan.driver(), out, err, &mut |_| ()).await
            }
        }
    }
}

async fn start(
    cluster: &Cluster,
    plan: &RolloutPlan,
    spec: &RolloutSpec,
    detach: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
    confirm: Confirm<'_>,
) -> Result<ExitStatus> {
    let name = plan.name();
    let selection = Selection {
        namespace: spec.namespace.clone(),
        names: spec.names.clone(),
        label_selector: spec.selector.clone(),
        field_selector: None,
    };
    let Some(fleet) = fleet::load_targets(cluster, &selection, err).await? else {
        return Err(Error::Usage("no JobSet matched: nothing to roll out".into()));
    };
    let settings = rollout::settings(spec).map_err(Error::Usage)?;
    if let Some(missing) =
        spec.canary_names.iter().find(|n| !fleet.jobsets.iter().any(|js| js.name() == n.as_str()))
    {
        return Err(Error::Usage(format!("canary {missing:?} is not among the JobSets selected")));
    }
    // A container the change names must exist in every JobSet: said now, not mid-rollout.
    for jobset in &fleet.jobsets {
        if let Err(why) = rollout::changed_templates(jobset, &settings) {
            return Err(Error::Usage(format!("{RESOURCE_NAME}/{}: {why}", jobset.name())));
        }
    }
    let jobsets: Vec<&JobSet> = fleet.jobsets.iter().collect();
    let state = RolloutState::started(spec, &jobsets);
    write_plan(out, name, spec, &state)?;
    if let Some(confirm) = confirm
        && !confirm(&format!("Start rollout {name} over {} JobSets? [y/N] ", state.members.len()))?
    {
        return Err(Error::Aborted);
    }
    let spec_text = serde_json::to_string(spec).map_err(Error::json_output)?;
    let state_text = serde_json::to_string(&state).map_err(Error::json_output)?;
    if spec_text.len() + state_text.len() > rollout::MAX_JOURNAL_BYTES {
        return Err(Error::Usage(format!(
            "the rollout's journal would be {} KiB, more than a ConfigMap holds: select fewer JobSets",
            (spec_text.len() + state_text.len()) / 1024
        )));
    }
    let configmap = ConfigMap {
        metadata: ObjectMeta {
            name: Some(rollout::configmap_name(name)),
            namespace: Some(plan.namespace.clone()),
            labels: Some(BTreeMap::from([
                (rollout::LABEL.to_owned(), name.to_owned()),
                ("app.kubernetes.io/managed-by".to_owned(), "kubectl-jobset".to_owned()),
            ])),
            ..Default::default()
        },
        data: Some(BTreeMap::from([(SPEC_KEY.to_owned(), spec_text), (STATE_KEY.to_owned(), state_text)])),
        ..Default::default()
    };
    match cluster.create_configmap(&plan.namespace, &configmap).await {
        Ok(_) => writeln!(out, "{SUBJECT}/{name} started")?,
        Err(Error::Conflict { .. }) => {
            return Err(Error::Usage(format!(
                "rollout {name:?} exists already in namespace {:?}: `{}` shows it; pick another name",
                plan.namespace,
                crate::hint::kubectl_jobset(&format!("rollout status {name}"), &plan.namespace)
            )));
        }
        Err(e) => return Err(e),
    }
    if detach {
        writeln!(
            out,
            "{SUBJECT}/{name}: `{}` drives it",
            crate::hint::kubectl_jobset(&format!("rollout resume {name}"), &plan.namespace)
        )?;
        return Ok(ExitStatus::Success);
    }
    drive(cluster, &plan.driver(), out, err, &mut |_| ()).await
}

fn write_plan(out: &mut dyn Write, name: &str, spec: &RolloutSpec, state: &RolloutState) -> Result<()> {
    let change: Vec<String> = spec
        .images
        .iter()
        .map(|i| format!("image {i}"))
        .chain(spec.env.iter().map(|e| format!("env {e}")))
        .collect();
    writeln!(
        out,
        "{SUBJECT}/{name}: {} over {} JobSets in {} batches",
        change.join(", "),
        state.members.len(),
        state.batches
    )?;
    for batch in 0..state.batches {
        let names: Vec<String> = state
            .members
            .iter()
            .filter(|m| m.batch == batch)
            .map(|m| format!("{}/{}", m.namespace, m.name))
            .collect();
        let label = rollout::batch_name(spec, batch).replace("the canary batch", "canary");
        writeln!(out, "  {label}: {}", names.join(", "))?;
    }
    Ok(())
}

async fn status(
    cluster: &Cluster,
    plan: &RolloutPlan,
    watch: bool,
    out: &mut dyn Write,
) -> Result<ExitStatus> {
    let journal = read(cluster, &plan.driver()).await?;
    if let Some(format) = plan.format {
        render::write_structured(out, format, &journal.document())?;
        return Ok(ExitStatus::Success);
    }
    let mut changes = Box::pin(changes(cluster, &plan.namespace, &journal.spec, plan.name()));
    let mut printed = None;
    loop {
        let (journal, fleet) = look(cluster, &plan.driver()).await?;
        let text = status_text(&journal, &fleet);
        if printed.as_ref() != Some(&text) {
            out.write_all(text.as_bytes())?;
            out.flush()?;
            printed = Some(text);
        }
        if !watch || journal.state.phase.is_final() {
            return Ok(ExitStatus::Success);
        }
        wait_for_change(&mut changes, Some(tokio::time::Instant::now() + Duration::from_secs(5))).await?;
    }
}

/// `rollout status`: where it stands, then one row per member.
fn status_text(journal: &Journal, fleet: &fleet::Fleet) -> String {
    let state = &journal.state;
    let mut text = format!(
        "Name:     {}\nPhase:    {}\nBatch:    {}\nMessage:  {}\n",
        journal.name(),
        state.phase.as_str(),
        step_words(&journal.spec, state),
        state.message
    );
    if let (Some(since), rollout::Gate::Ready { seconds }) = (&state.healthy_since, journal.spec.gate) {
        text.push_str(&format!("Gate:     healthy since {since}, passes after {seconds}s\n"));
    }
    let rows: Vec<Vec<String>> = state
        .members
        .iter()
        .map(|m| {
            let live = fleet.jobsets.iter().find(|js| js.uid() == m.uid);
            let held = live.and_then(|js| fleet.staged_of(js)).filter(|s| journal.holds(s));
            let why = match (&m.state, held) {
                (MemberState::Skipped { why } | MemberState::Failed { why }, _) => why.clone(),
                (MemberState::Pending, Some(held)) => {
                    format!("change held in controllerrevision {}", held.name)
                }
                _ => String::new(),
            };
            vec![
                m.namespace.clone(),
                m.name.clone(),
                rollout::batch_name(&journal.spec, m.batch)
                    .replace("the canary batch", "canary")
                    .replace("batch ", ""),
                m.state.word().to_owned(),
                live.map(|js| js.attempt().to_string()).unwrap_or_else(|| "<deleted>".into()),
                why,
            ]
        })
        .collect();
    let mut table = Vec::new();
    let headers = ["NAMESPACE", "JOBSET", "BATCH", "STATE", "ATTEMPT", "WHY"];
    if render::table::write_table(&mut table, &headers, &rows, false).is_ok() {
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&table));
    }
    text
}

async fn list(cluster: &Cluster, plan: &RolloutPlan, out: &mut dyn Write) -> Result<ExitStatus> {
    let configmaps = cluster.list_configmaps(&plan.namespace, rollout::LABEL).await?;
    let journals: Vec<Journal> = configmaps.into_iter().filter_map(|c| Journal::parse(c).ok()).collect();
    if let Some(format) = plan.format {
        let documents = journals.iter().map(Journal::document).collect();
        render::write_structured(out, format, &render::as_list(documents))?;
        return Ok(ExitStatus::Success);
    }
    if journals.is_empty() {
        writeln!(out, "No rollouts found in {} namespace.", plan.namespace)?;
        return Ok(ExitStatus::Success);
    }
    let rows: Vec<Vec<String>> = journals
        .iter()
        .map(|j| {
            let done = j.state.members.iter().filter(|m| m.state == MemberState::Done).count();
            vec![
                j.name(),
                j.state.phase.as_str().to_owned(),
                format!("{}/{}", (j.state.batch + 1).min(j.state.batches), j.state.batches),
                format!("{done}/{}", j.state.members.len()),
                j.spec.images.iter().chain(&j.spec.env).cloned().collect::<Vec<_>>().join(","),
            ]
        })
        .collect();
    render::table::write_table(out, &["NAME", "PHASE", "BATCH", "DONE", "CHANGE"], &rows, false)?;
    Ok(ExitStatus::Success)
}
