//! Recording history as a side effect of reading: every command that compares a JobSet
//! with its Jobs brings its ControllerRevisions up to date (idempotent, guarded writes).
//! If RBAC forbids it, commands go on read-only and say so once.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::Mutex;

use futures::StreamExt;

use k8s_openapi::api::apps::v1::ControllerRevision;
use serde_json::Value;

use super::RecordOptions;
use super::defaulter::{Defaulter, client_expected};
use super::fleet::Fleet;
use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::cluster::writes::{WriteFailure, write_backoff, write_failure};
use crate::diff::JobSetDrift;
use crate::diff::normalize::{Normalized, rebuild_template};
use crate::error::{Error, Result};
use crate::history::{self, Observation, Revision, Running, Templates, Write as StoreWrite, rebuilt};
use crate::model::jobset::{ChildJob, JobSet};

/// How many times a JobSet's history is planned and written (re-read and re-planned
/// after a lost race, a lost answer or throttling).
const MAX_TRIES: u32 = 5;

/// Recorded revisions per JobSet UID, after recording.
pub type Histories = HashMap<String, Vec<Revision>>;

/// Reads the fleet's revisions (warning about ones we ignore), works out what each
/// JobSet's current Jobs run, and writes what is new (nothing for the JobSets a running
/// recorder covers). Never fails the command for
/// history's sake: problems become one warning on `err`.
pub async fn record(
    cluster: &Cluster,
    defaulter: &mut Defaulter<'_>,
    fleet: &mut Fleet,
    drifts: &[JobSetDrift],
    options: &RecordOptions,
    err: &mut dyn Write,
) -> Result<Histories> {
    if let Some(e) = &fleet.history_error {
        writeln!(err, "warning: history could not be read or recorded: {e}")?;
        return Ok(Histories::new());
    }
    let mut histories = read_histories(fleet, err)?;
    let fleet = &*fleet;
    prefetch_revision_templates(defaulter, fleet, drifts, options, &histories).await?;
    write_histories(cluster, defaulter, fleet, drifts, options, &mut histories, err).await?;
    Ok(histories)
}

/// The revisions the fleet listed, per JobSet UID, the readable ones in number order.
fn read_histories(fleet: &mut Fleet, err: &mut dyn Write) -> Result<Histories> {
    let mut histories = Histories::new();
    let uids: Vec<String> = fleet.jobsets.iter().map(|js| js.uid().to_owned()).collect();
    for uid in uids {
        let revisions = readable(fleet.take_revisions_of(&uid), err)?;
        histories.insert(uid, revisions);
    }
    for jobset in &fleet.jobsets {
        for holder in fleet.revision_holders.iter().filter(|h| h.is_foreign_to(jobset)) {
            writeln!(err, "warning: {}", holder.warning(jobset))?;
        }
    }
    Ok(histories)
}

/// Dry-runs the templates of revisions that drifted Jobs might be running, all at
/// once, so that `running_state` can compare them with the Jobs without a request each.
/// Not for a JobSet whose drifted Jobs match a revision client-side (the usual case: a
/// template changed since its Jobs were created from a recorded one): like the spec's, a
/// revision's template needs the server only when the client cannot settle it.
async fn prefetch_revision_templates(
    defaulter: &mut Defaulter<'_>,
    fleet: &Fleet,
    drifts: &[JobSetDrift],
    options: &RecordOptions,
    histories: &Histories,
) -> Result<()> {
    let candidates: Vec<(&JobSet, &Value)> = fleet
        .jobsets
        .iter()
        .zip(drifts)
        .filter(|(js, d)| options.records(js) && has_template_drift(d))
        .filter(|(js, d)| running_revision_client_side(js, d, &histories[js.uid()]).is_none())
        .flat_map(|(js, _)| {
            histories[js.uid()].iter().flat_map(move |r| r.templates.iter().map(move |(_, t)| (js, t)))
        })
        .collect();
    defaulter.prefetch(candidates).await
}

/// History writes in flight at once: enough to hide the round trip of a remote API
/// server on a first look at a fleet, few enough to stay well inside one client's share
/// of the API server's priority-and-fairness limits.
const WRITE_CONCURRENCY: usize = 16;

/// Records each JobSet's observation, keeping `histories` current with what the server
/// stores, for the JobSets this process records (`RecordOptions::records`). JobSets are
/// written concurrently (bounded), each JobSet's writes in order. A JobSet whose history
/// cannot be written gets a warning; a refusal (RBAC) stops recording in that namespace,
/// since its other JobSets would be refused too.
async fn write_histories(
    cluster: &Cluster,
    defaulter: &Defaulter<'_>,
    fleet: &Fleet,
    drifts: &[JobSetDrift],
    options: &RecordOptions,
    histories: &mut Histories,
    err: &mut dyn Write,
) -> Result<()> {
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let observations: Vec<Observation> = fleet
        .jobsets
        .iter()
        .zip(drifts)
        .filter(|(jobset, _)| options.records(jobset))
        .map(|(jobset, drift)| {
            let revisions = histories.get(jobset.uid()).map(Vec::as_slice).unwrap_or_default();
            Observation {
                jobset,
                // A JobSet that could not be compared runs something unknown.
                running: match drift.error {
                    Some(_) => Running::Unknown,
                    None => running_state(defaulter, fleet, jobset, drift, revisions),
                },
                change_cause: options.cause.clone(),
                history_limit: options.history_limit,
                now: now.clone(),
                foreign: foreign_names(fleet, jobset),
            }
        })
        .collect();
    // Namespaces where writing history is forbidden, with the first refusal.
    let refused: Mutex<BTreeMap<String, Error>> = Mutex::new(BTreeMap::new());
    let is_refused = |ns: &str| refused.lock().is_ok_and(|r| r.contains_key(ns));
    // Only JobSets with something to write (none in a steady state: nothing is copied);
    // filtered as each JobSet's turn comes, so a refused namespace costs few requests.
    let stored = |o: &Observation| histories.get(o.jobset.uid()).map(Vec::as_slice).unwrap_or_default();
    let mut outcomes: Vec<(usize, Result<Written>, Vec<u8>)> =
        futures::stream::iter(observations.iter().enumerate())
            .filter(|(_, o)| std::future::ready(!history::plan_writes(o, stored(o)).is_empty()))
            .filter(|(_, o)| std::future::ready(!is_refused(o.jobset.namespace())))
            .map(|(i, observation)| {
                let revisions = histories.get(observation.jobset.uid()).cloned().unwrap_or_default();
                let refused = &refused;
                async move {
                    let mut warnings = Vec::new();
                    let namespace = observation.jobset.namespace();
                    let outcome = match write_history(cluster, observation, revisions, &mut warnings).await {
                        Err(e @ Error::Forbidden { .. }) => {
                            if let Ok(mut r) = refused.lock() {
                                r.entry(namespace.to_owned()).or_insert(e);
                            }
                            Ok(Written { revisions: vec![], gave_numbers: false })
                        }
                        other => other,
                    };
                    (i, outcome, warnings)
                }
            })
            .buffer_unordered(WRITE_CONCURRENCY)
            .collect()
            .await;
    outcomes.sort_by_key(|(i, _, _)| *i);
    let refused = refused.into_inner().unwrap_or_default();
    let mut numbered = Vec::new();
    for (i, outcome, warnings) in outcomes {
        err.write_all(&warnings)?;
        let jobset = observations[i].jobset;
        if refused.contains_key(jobset.namespace()) {
            continue;
        }
        match outcome {
            Ok(written) => {
                if written.gave_numbers {
                    numbered.push(i);
                }
                histories.insert(jobset.uid().to_owned(), written.revisions);
            }
            Err(e) => writeln!(
                err,
                "warning: history of jobset {}/{} not recorded: {e}",
                jobset.namespace(),
                jobset.name()
            )?,
        }
    }
    for e in refused.values() {
        writeln!(err, "warning: history not recorded (read-only): {e}")?;
    }
    settle_numbers(cluster, &observations, numbered, histories, err).await
}

/// What one JobSet's writes left stored, and whether they gave a revision a number.
struct Written {
    revisions: Vec<Revision>,
    gave_numbers: bool,
}

/// Numbers are given from what was read, so a concurrent writer may have given the same
/// number to another revision of the same JobSet. One read of the revisions of every
/// JobSet that got a number (one paginated LIST for the whole fleet, not one per JobSet)
/// finds those; the later revision of each duplicate moves past the highest number
/// (guarded by its current one), and the fleet is read once more after such a move.
async fn settle_numbers(
    cluster: &Cluster,
    observations: &[Observation<'_>],
    mut pending: Vec<usize>,
    histories: &mut Histories,
    err: &mut dyn Write,
) -> Result<()> {
    for _ in 0..MAX_TRIES {
        if pending.is_empty() {
            return Ok(());
        }
        let jobsets: Vec<&JobSet> = pending.iter().map(|&i| observations[i].jobset).collect();
        let mut by_owner = match list_revisions_of(cluster, &jobsets).await {
            Ok(stored) => stored,
            Err(e) => {
                writeln!(err, "warning: recorded history could not be read back to check its numbers: {e}")?;
                return Ok(());
            }
        };
        let mut work = Vec::new();
        for &i in &pending {
            let observation = &observations[i];
            let uid = observation.jobset.uid();
            let revisions = readable(by_owner.remove(uid).unwrap_or_default(), err)?;
            let mut writes = history::plan_writes(observation, &revisions);
            if writes.is_empty() {
                writes = history::renumber_duplicates(&revisions);
            }
            if writes.is_empty() {
                histories.insert(uid.to_owned(), revisions);
            } else {
                histories.insert(uid.to_owned(), revisions.clone());
                work.push((i, writes, revisions));
            }
        }
        let done: Vec<(usize, Result<Vec<Revision>>)> = futures::stream::iter(work)
            .map(|(i, writes, mut revisions)| async move {
                let jobset = observations[i].jobset;
                for write in &writes {
                    match perform(cluster, jobset, write, &mut revisions).await {
                        Ok(()) => {}
                        // Someone else moved it first: the next read shows where it is.
                        Err(e) if is_precondition_failure(&e) || is_already_exists(&e) => break,
                        Err(e) => return (i, Err(e)),
                    }
                }
                (i, Ok(revisions))
            })
            .buffer_unordered(WRITE_CONCURRENCY)
            .collect()
            .await;
        pending = Vec::new();
        for (i, result) in done {
            let jobset = observations[i].jobset;
            match result {
                Ok(revisions) => {
                    histories.insert(jobset.uid().to_owned(), revisions);
                    pending.push(i);
                }
                Err(e) => writeln!(
                    err,
                    "warning: history of jobset {}/{} not renumbered: {e}",
                    jobset.namespace(),
                    jobset.name()
                )?,
            }
        }
        pending.sort_unstable();
    }
    Ok(())
}

/// The stored revisions of `jobsets` in one paginated LIST (in their namespace when they
/// share one, by name when they are few), parsed per owner UID as each page arrives.
async fn list_revisions_of(
    cluster: &Cluster,
    jobsets: &[&JobSet],
) -> Result<HashMap<String, Vec<std::result::Result<Revision, String>>>> {
    let namespace =
        jobsets.first().map(|js| js.namespace()).filter(|ns| jobsets.iter().all(|js| js.namespace() == *ns));
    let mut names: Vec<String> = jobsets.iter().map(|js| js.name().to_owned()).collect();
    names.sort();
    names.dedup();
    // A long `in (...)` list would make a long URL; past a few names, list them all.
    if names.len() > MAX_NAMES_IN_SELECTOR {
        names.clear();
    }
    let selector = super::fleet::label_selector_for(history::JOBSET_LABEL, &names);
    let wanted: std::collections::HashSet<&str> = jobsets.iter().map(|js| js.uid()).collect();
    let parsed = cluster
        .list_revisions_with(namespace, &selector, |object| {
            let owners = object.metadata.owner_references.as_deref().unwrap_or_default();
            owners
                .iter()
                .filter(|owner| wanted.contains(owner.uid.as_str()))
                .map(|owner| (owner.uid.clone(), history::parse(&object, &owner.uid)))
                .collect::<Vec<_>>()
        })
        .await?;
    let mut by_owner: HashMap<String, Vec<std::result::Result<Revision, String>>> = HashMap::new();
    for (uid, revision) in parsed.into_iter().flatten() {
        by_owner.entry(uid).or_default().push(revision);
    }
    Ok(by_owner)
}

/// Past this many JobSets, the read-back lists every revision in scope instead.
const MAX_NAMES_IN_SELECTOR: usize = 50;

/// The number of the revision that holds the JobSet's spec, if recorded.
pub fn spec_revision(histories: &Histories, jobset: &JobSet) -> Option<i64> {
    history::spec_revision(histories.get(jobset.uid())?, jobset)
}

fn has_template_drift(drift: &JobSetDrift) -> bool {
    drift.replicated_jobs.iter().any(|r| !r.outdated.is_empty())
}

/// Names of revisions labelled for `jobset` that another object holds (warned about
/// when the fleet was read).
fn foreign_names(fleet: &Fleet, jobset: &JobSet) -> Vec<String> {
    fleet.revision_holders.iter().filter(|h| h.is_foreign_to(jobset)).map(|h| h.name.clone()).collect()
}

/// The JobSet's own revisions among `raw`; another object's are skipped (warned about
/// when the fleet was read).
fn parse_revisions(
    raw: &[ControllerRevision],
    jobset: &JobSet,
    err: &mut dyn Write,
) -> Result<Vec<Revision>> {
    let own = raw.iter().filter(|object| !history::Holder::of(object).is_foreign_to(jobset));
    readable(own.map(|object| history::parse(object, jobset.uid())), err)
}

/// The revisions that could be read, in number order; a warning for each of the others.
fn readable(
    parsed: impl IntoIterator<Item = std::result::Result<Revision, String>>,
    err: &mut dyn Write,
) -> Result<Vec<Revision>> {
    let mut revisions = Vec::new();
    for result in parsed {
        match result {
            Ok(r) => revisions.push(r),
            Err(why) => writeln!(err, "warning: {why}")?,
        }
    }
    revisions.sort_by_key(|r| r.number);
    Ok(revisions)
}

/// Which templates the current attempt's Jobs run: the spec's, a recorded revision's,
/// or (rebuilt from the Jobs, cleaned of what the controller put in) templates nobody
/// recorded. Unknown when the Jobs are of a later attempt than the JobSet read (a torn
/// read `reread_torn` could not mend): never credit the wrong attempt.
fn running_state(
    defaulter: &Defaulter,
    fleet: &Fleet,
    jobset: &JobSet,
    drift: &JobSetDrift,
    revisions: &[Revision],
) -> Running {
    if !drift.state.compares_jobs() || drift.total_jobs() == 0 || torn_read(jobset, fleet.jobs_of(jobset)) {
        return Running::Unknown;
    }
    if !has_template_drift(drift) {
        return Running::Spec;
    }
    let server = |template: &Value| defaulter.expected(jobset, template).map(|n| n.template);
    let running = running_revision_client_side(jobset, drift, revisions)
        .or_else(|| running_revision(drift, revisions, &server));
    if let Some(revision) = running {
        return Running::Revision(revision.name.clone());
    }
    let jobs = fleet.jobs_of(jobset);
    let rebuilt: Templates = jobset
        .spec
        .replicated_jobs
        .iter()
        .map(|spec| {
            let live = drift
                .replicated_jobs
                .iter()
                .find(|r| r.name == spec.name)
                .and_then(|r| r.outdated.first())
                .and_then(|g| jobs.iter().find(|j| j.name() == g.jobs[0]));
            let template = match live {
                Some(job) => rebuilt::clean(jobset, rebuild_template(job)),
                None => spec.template.clone(),
            };
            (spec.name.clone(), template)
        })
        .collect();
    Running::Rebuilt(rebuilt)
}

/// `running_revision` with each revision's template under client-side defaults: a match
/// means the Jobs are the API server's defaulting of that template (see `compare`).
fn running_revision_client_side<'r>(
    jobset: &JobSet,
    drift: &JobSetDrift,
    revisions: &'r [Revision],
) -> Option<&'r Revision> {
    let client = |template: &Value| Some(client_expected(jobset, template).template);
    running_revision(drift, revisions, &client)
}

/// The newest recorded revision the current attempt's Jobs were created from: each
/// replicatedJob's outdated Jobs run its template, and a replicatedJob whose Jobs all
/// run the spec's template has the spec's there. Jobs on the spec's template beside
/// outdated ones were recreated inside the attempt (deleted by hand, restarted one by
/// one), so they do not decide. `expected` is the normalised Job a template makes.
fn running_revision<'r>(
    drift: &JobSetDrift,
    revisions: &'r [Revision],
    expected: &dyn Fn(&Value) -> Option<Value>,
) -> Option<&'r Revision> {
    let matches = |revision: &Revision| {
        drift.replicated_jobs.iter().filter(|r| !r.jobs.is_empty()).all(|rjob| {
            let Some((_, template)) = revision.templates.iter().find(|(name, _)| *name == rjob.name) else {
                return false;
            };
            let Some(expected) = expected(template) else { return false };
            if rjob.outdated.is_empty() {
                expected == *rjob.spec_template
            } else {
                rjob.outdated.iter().all(|g| *g.live_template == expected)
            }
        })
    };
    revisions.iter().rev().find(|r| matches(r))
}

/// Jobs labelled with a later attempt than the JobSet's `status.restarts`: the JobSet
/// was read before a restart and its Jobs after (a torn read).
pub fn torn_read(jobset: &JobSet, jobs: &[ChildJob]) -> bool {
    jobs.iter().any(|job| job.attempt().is_some_and(|a| a > jobset.attempt()))
}

/// Mends torn reads: each JobSet whose Jobs are of a later attempt than it says is read
/// again (one GET), and compared again with its Jobs. Nothing to do, and no request,
/// in the usual case; a re-read that fails leaves the JobSet as it was read.
pub async fn reread_torn(
    cluster: &Cluster,
    defaulter: &mut Defaulter<'_>,
    fleet: &mut Fleet,
    drifts: &mut [JobSetDrift],
) -> Result<()> {
    for (i, drift) in drifts.iter_mut().enumerate() {
        let stale = &fleet.jobsets[i];
        if !torn_read(stale, fleet.jobs_of(stale)) {
            continue;
        }
        // Gone, or deleted and created again: the stale view stays, and `running_state`
        // records no attempt from it.
        let Ok(fresh) = cluster.get_jobset(stale.namespace(), stale.name()).await else { continue };
        if fresh.uid() != stale.uid() {
            continue;
        }
        defaulter.prefetch(fresh.spec.replicated_jobs.iter().map(|r| (&fresh, &r.template))).await?;
        let expected: BTreeMap<String, Normalized> = fresh
            .spec
            .replicated_jobs
            .iter()
            .filter_map(|r| defaulter.expected(&fresh, &r.template).map(|n| (r.name.clone(), n)))
            .collect();
        *drift = crate::diff::compare(&fresh, fleet.jobs_of(&fresh), &expected);
        fleet.jobsets[i] = fresh;
    }
    Ok(())
}

/// Plans and performs the writes for one JobSet, re-reading it only after a lost race,
/// a lost answer (the write may have landed) or throttling. The server's answers keep
/// the in-memory revisions current without another list; whether the numbers given
/// are unique is checked for the whole fleet afterwards (`settle_numbers`).
async fn write_history(
    cluster: &Cluster,
    observation: &Observation<'_>,
    mut revisions: Vec<Revision>,
    err: &mut dyn Write,
) -> Result<Written> {
    let jobset = observation.jobset;
    let mut gave_numbers = false;
    for tries in 1..=MAX_TRIES {
        let writes = history::plan_writes(observation, &revisions);
        let mut lost_race = false;
        for write in &writes {
            match perform(cluster, jobset, write, &mut revisions).await {
                Ok(()) => gave_numbers |= write.assigns_number(),
                Err(e) if is_precondition_failure(&e) || is_already_exists(&e) => {
                    lost_race = true;
                    break;
                }
                // Throttled, or the answer was lost: wait, then plan again from what is
                // stored (a create that landed is listed, and is not made twice).
                Err(e) if tries < MAX_TRIES && write_failure(&e) != WriteFailure::Final => {
                    let wait = write_backoff(tries);
                    let after = match write_failure(&e) {
                        WriteFailure::Throttled => "429 Too Many Requests".to_owned(),
                        _ => e.to_string(),
                    };
                    cluster.log.note(
                        6,
                        &format!(
                            "retrying the history of jobset {}/{} after {after} (try {} of {MAX_TRIES}, in {} ms)",
                            jobset.namespace(),
                            jobset.name(),
                            tries + 1,
                            wait.as_millis()
                        ),
                    );
                    tokio::time::sleep(wait).await;
                    lost_race = true;
                    gave_numbers |= write.assigns_number();
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !lost_race {
            return Ok(Written { revisions, gave_numbers });
        }
        // Someone recorded at the same time (or our write's answer was lost): start again
        // from what is stored now.
        let selector = format!("{}={}", history::JOBSET_LABEL, jobset.name());
        let stored = cluster.list_revisions(Some(jobset.namespace()), &selector).await?;
        revisions = parse_revisions(&stored, jobset, err)?;
    }
    Ok(Written { revisions, gave_numbers })
}

/// One history write; `revisions` follows what the server stored or deleted.
async fn perform(
    cluster: &Cluster,
    jobset: &JobSet,
    write: &StoreWrite,
    revisions: &mut Vec<Revision>,
) -> Result<()> {
    let ns = jobset.namespace();
    let stored = match write {
        StoreWrite::Create(revision) => cluster.create_revision(ns, revision).await?,
        StoreWrite::Patch { name, ops } => cluster.patch_revision(ns, name, ops).await?,
        StoreWrite::Delete { name, resource_version } => {
            return match cluster.delete_revision_if_unchanged(ns, name, resource_version).await {
                // Changed since we read it: leave it for a later run.
                Err(e) if is_precondition_failure(&e) => Ok(()),
                Err(Error::NotFound { .. }) | Ok(()) => {
                    revisions.retain(|r| &r.name != name);
                    Ok(())
                }
                Err(e) => Err(e),
            };
        }
    };
    if let Ok(revision) = history::parse(&stored, jobset.uid()) {
        revisions.retain(|r| r.name != revision.name);
        revisions.push(revision);
        revisions.sort_by_key(|r| r.number);
    }
    Ok(())
}

fn is_already_exists(e: &Error) -> bool {
    matches!(e, Error::Api { code: 409, .. } | Error::Conflict { .. })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::diff::{DriftGroup, ReplicatedJobDrift, State};
    use std::sync::Arc;

    fn template(image: &str) -> Value {
        json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}}})
    }

    fn revision(number: i64, image: &str) -> Revision {
        let object = json!({
            "metadata": {"name": format!("js-{number}"),
                "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "js", "uid": "u"}],
                "annotations": {history::FORMAT_ANNOTATION: history::FORMAT}},
            "data": history::data(&vec![("w".to_owned(), template(image))]),
            "revision": number});
        history::parse(&serde_json::from_value(object).unwrap(), "u").unwrap()
    }

    /// Replicated job `w` on the spec's `spec` image; `outdated` Jobs run `live`.
    fn drift(spec: &str, jobs: &[&str], outdated: &[&str], live: &str) -> JobSetDrift {
        let group = DriftGroup {
            jobs: outdated.iter().map(|j| (*j).to_owned()).collect(),
            changes: vec![],
            live_template: Arc::new(template(live)),
        };
        JobSetDrift {
            namespace: "ml".into(),
            name: "js".into(),
            attempt: 0,
            state: State::Compared,
            replicated_jobs: vec![ReplicatedJobDrift {
                name: "w".into(),
                replicas: jobs.len() as i32,
                jobs: jobs.iter().map(|j| (*j).to_owned()).collect(),
                outdated: if outdated.is_empty() { vec![] } else { vec![group] },
                scale: vec![],
                not_created: vec![],
                beyond_replicas: vec![],
                in_spec: true,
                spec_template: Arc::new(template(spec)),
            }],
            previous_attempt_jobs: vec![],
            unlabelled_jobs: vec![],
            manager: None,
            error: None,
        }
    }

    /// The test's "defaulting": templates are already in normal form.
    fn identity(t: &Value) -> Option<Value> {
        Some(t.clone())
    }

    #[test]
    fn an_attempt_is_credited_to_the_revision_its_jobs_were_created_from() {
        let revisions = [revision(1, "v1"), revision(2, "v2")];
        let all_old = drift("v2", &["js-w-0", "js-w-1"], &["js-w-0", "js-w-1"], "v1");
        assert_eq!(running_revision(&all_old, &revisions, &identity).map(|r| r.number), Some(1));
        // js-w-0 deleted by hand (or restarted alone with RestartJob) and recreated from
        // the spec inside attempt 0: the attempt still belongs to revision 1.
        let one_recreated = drift("v2", &["js-w-0", "js-w-1"], &["js-w-1"], "v1");
        assert_eq!(running_revision(&one_recreated, &revisions, &identity).map(|r| r.number), Some(1));
        // Outdated Jobs on a template nobody recorded: rebuilt, never another's.
        let unknown = drift("v2", &["js-w-0", "js-w-1"], &["js-w-1"], "v0");
        assert_eq!(running_revision(&unknown, &revisions, &identity), None);
    }

    fn child(attempt: &str) -> ChildJob {
        serde_json::from_value(json!({"metadata": {"name": "js-w-0",
            "labels": {"jobset.sigs.k8s.io/restart-attempt": attempt}}}))
        .unwrap()
    }

    #[test]
    fn jobs_of_a_later_attempt_than_the_jobset_read_are_a_torn_read() {
        let js = JobSet::from_raw(json!({"metadata": {"name": "js", "namespace": "ml", "uid": "u"},
            "spec": {"replicatedJobs": []}, "status": {"restarts": 1}}))
        .unwrap();
        assert!(!torn_read(&js, &[child("0"), child("1")]));
        assert!(torn_read(&js, &[child("1"), child("2")]));
    }
}
