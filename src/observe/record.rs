//! Recording history from what a command saw: every command that compares a JobSet
//! with its Jobs works out what its ControllerRevisions should hold. Write verbs (and
//! read verbs given `--record`) bring them up to date (idempotent, guarded writes); read
//! verbs by default only show what recording would leave (`history::preview`), and so
//! does a namespace where RBAC forbids the writes (said once, when recording was asked).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::sync::Mutex;

use futures::StreamExt;

use k8s_openapi::api::apps::v1::ControllerRevision;
use serde_json::Value;

use super::defaulter::{Defaulter, client_expected};
use super::fleet::Fleet;
use super::{NumberCheck, RecordOptions};
use crate::cluster::Cluster;
use crate::cluster::api::is_precondition_failure;
use crate::cluster::guarded::{GuardedWrite, TRIES, Verdict, WriteFailure, guarded, write_failure};
use crate::diff::JobSetDrift;
use crate::diff::normalize::{Expected, rebuild_template};
use crate::error::{Error, Result};
use crate::history::{self, Observation, Revision, Running, Templates, Write as StoreWrite, rebuilt};
use crate::model::jobset::{ChildJob, JobSet};

/// Recorded revisions per JobSet UID, after recording.
pub type Histories = HashMap<String, Vec<Revision>>;

/// What recording left behind: the revisions, and how it went for each JobSet.
#[derive(Debug, Default)]
pub struct Recorded {
    pub histories: Histories,
    /// One per JobSet of the fleet, in its order.
    pub outcomes: Vec<RecordOutcome>,
    /// The digest of each JobSet's spec templates, as recording read them (`spec_revision`).
    pub spec_digests: SpecDigests,
}

/// One per JobSet of the fleet, in its order: its spec's digest, None if not recorded.
pub type SpecDigests = Vec<Option<crate::diff::digest::Digest>>;

/// How recording went for one JobSet (its warnings, if any, are already on `err`).
#[derive(Debug)]
pub enum RecordOutcome {
    /// Its history is up to date: written now, or nothing new to write.
    Recorded,
    /// Left to the running recorder that covers it.
    Deferred,
    /// Its writes failed.
    NotRecorded(Error),
    /// Its namespace refuses history writes (RBAC): read-only there.
    ReadOnly,
    /// The fleet's history could not be read, so nothing was recorded.
    Unread,
    /// Not asked to write (a read verb without `--record`): shown as recording would
    /// leave it, nothing written.
    Unwritten,
}

impl RecordOutcome {
    /// Whether its history may still lack what was seen (the recorder tries again).
    pub fn failed(&self) -> bool {
        matches!(
            self,
            RecordOutcome::NotRecorded(_)
                | RecordOutcome::ReadOnly
                | RecordOutcome::Unread
                | RecordOutcome::Unwritten
        )
    }
}

/// Reads the fleet's revisions (warning about ones we ignore), works out what each
/// JobSet's current Jobs run, and writes what is new (nothing for the JobSets a running
/// recorder covers; nothing at all unless `options.write`, when the histories returned
/// are previews). Never fails the command for history's sake: problems become one
/// warning on `err`.
pub async fn record(
    cluster: &Cluster,
    defaulter: &mut Defaulter<'_>,
    fleet: &mut Fleet,
    drifts: &[JobSetDrift],
    options: &RecordOptions,
    err: &mut dyn Write,
) -> Result<Recorded> {
    if let Some(e) = &fleet.history_error {
        writeln!(err, "warning: history could not be read or recorded: {e}")?;
        let outcomes = fleet.jobsets.iter().map(|_| RecordOutcome::Unread).collect();
        return Ok(Recorded { histories: Histories::new(), outcomes, spec_digests: SpecDigests::new() });
    }
    let mut histories = read_histories(fleet, err)?;
    let fleet = &*fleet;
    prefetch_revision_templates(defaulter, fleet, drifts, options, &histories).await?;
    let observations = observations(defaulter, fleet, drifts, options, &histories);
    let mut observed = observations.iter().peekable();
    let spec_digests = (fleet.jobsets.iter())
        .map(|js| observed.next_if(|o| std::ptr::eq(o.jobset, js)).map(|o| o.spec.digest))
        .collect();
    let outcomes = match options.write {
        true => write_histories(cluster, fleet, &observations, options, &mut histories, err).await?,
        false => {
            preview_histories(&observations, &mut histories);
            let outcome = |js: &JobSet| match options.records(js) {
                true => RecordOutcome::Unwritten,
                false => RecordOutcome::Deferred,
            };
            fleet.jobsets.iter().map(outcome).collect()
        }
    };
    Ok(Recorded { histories, outcomes, spec_digests })
}

/// What this process saw of each JobSet it records (`RecordOptions::records`).
fn observations<'f>(
    defaulter: &Defaulter<'_>,
    fleet: &'f Fleet,
    drifts: &[JobSetDrift],
    options: &RecordOptions,
    histories: &Histories,
) -> Vec<Observation<'f>> {
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    fleet
        .jobsets
        .iter()
        .zip(drifts)
        .filter(|(jobset, _)| options.records(jobset))
        .map(|(jobset, drift)| {
            let revisions = histories.get(jobset.uid()).map(Vec::as_slice).unwrap_or_default();
            let spec = history::SpecSums::of(jobset);
            Observation {
                jobset,
                // A JobSet that could not be compared runs something unknown.
                running: match drift.error {
                    Some(_) => Running::Unknown,
                    None => running_state(defaulter, fleet, jobset, &spec, drift, revisions),
                },
                spec,
                change_cause: options.cause.clone(),
                history_limit: options.history_limit,
                now: now.clone(),
                foreign: foreign_names(fleet, jobset),
                // The recorder itself (it records every JobSet) keeps history beyond the JobSet.
                retain: options.recorder == super::Recorder::Ignore,
            }
        })
        .collect()
}

/// Replaces each observed JobSet's stored revisions with what recording would leave
/// (`history::preview`): the read-only path, taken without `--record` and where RBAC
/// refuses the writes.
fn preview_histories(observations: &[Observation<'_>], histories: &mut Histories) {
    for observation in observations {
        let uid = observation.jobset.uid();
        let stored = histories.remove(uid).unwrap_or_default();
        let shown = history::preview(observation, stored);
        histories.insert(uid.to_owned(), shown);
    }
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
        // Kept history of an earlier JobSet of this name is expected, not a warning.
        let foreign =
            fleet.revision_holders.iter().filter(|h| h.is_foreign_to(jobset) && !h.is_kept_history());
        for holder in foreign {
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
/// since its other JobSets would be refused too. Returns each fleet JobSet's outcome.
async fn write_histories(
    cluster: &Cluster,
    fleet: &Fleet,
    observations: &[Observation<'_>],
    options: &RecordOptions,
    histories: &mut Histories,
    err: &mut dyn Write,
) -> Result<Vec<RecordOutcome>> {
    // Namespaces where writing history is forbidden, with the first refusal.
    let refused: Mutex<BTreeMap<String, Error>> = Mutex::new(BTreeMap::new());
    let is_refused = |ns: &str| refused.lock().is_ok_and(|r| r.contains_key(ns));
    // Only JobSets with something to write (none in a steady state: nothing is copied);
    // filtered as each JobSet's turn comes, so a refused namespace costs few requests.
    let stored = |o: &Observation| histories.get(o.jobset.uid()).map(Vec::as_slice).unwrap_or_default();
    let check = options.numbers;
    let mut results: Vec<(usize, Result<Written>, Vec<u8>)> =
        futures::stream::iter(observations.iter().enumerate())
            .filter(|(_, o)| std::future::ready(!writes_due(check, o, stored(o)).is_empty()))
            .filter(|(_, o)| std::future::ready(!is_refused(o.jobset.namespace())))
            .map(|(i, observation)| {
                let revisions = histories.get(observation.jobset.uid()).cloned().unwrap_or_default();
                let refused = &refused;
                async move {
                    let mut warnings = Vec::new();
                    let namespace = observation.jobset.namespace();
                    let result =
                        match write_history(cluster, observation, revisions, check, &mut warnings).await {
                            Err(e @ Error::Forbidden { .. }) => {
                                if let Ok(mut r) = refused.lock() {
                                    r.entry(namespace.to_owned()).or_insert(e);
                                }
                                Ok(Written { revisions: vec![], gave_numbers: false })
                            }
                            other => other,
                        };
                    (i, result, warnings)
                }
            })
            .buffer_unordered(WRITE_CONCURRENCY)
            .collect()
            .await;
    results.sort_by_key(|(i, _, _)| *i);
    let refused = refused.into_inner().unwrap_or_default();
    let mut failed: HashMap<&str, Error> = HashMap::new();
    let mut numbered = Vec::new();
    for (i, result, warnings) in results {
        err.write_all(&warnings)?;
        let jobset = observations[i].jobset;
        if refused.contains_key(jobset.namespace()) {
            continue;
        }
        match result {
            Ok(written) => {
                if written.gave_numbers {
                    numbered.push(i);
                }
                histories.insert(jobset.uid().to_owned(), written.revisions);
            }
            Err(e) => {
                writeln!(err, "{}", not_recorded(jobset, &e))?;
                failed.insert(jobset.uid(), e);
            }
        }
    }
    for e in refused.values() {
        writeln!(err, "warning: history not recorded (read-only): {e}")?;
    }
    let unwritable: Vec<Observation> =
        observations.iter().filter(|o| refused.contains_key(o.jobset.namespace())).cloned().collect();
    preview_histories(&unwritable, histories);
    if check == NumberCheck::ReadBack {
        settle_numbers(cluster, observations, numbered, histories, err).await?;
    }
    let outcome = |jobset: &JobSet| match failed.remove(jobset.uid()) {
        _ if !options.records(jobset) => RecordOutcome::Deferred,
        _ if refused.contains_key(jobset.namespace()) => RecordOutcome::ReadOnly,
        Some(e) => RecordOutcome::NotRecorded(e),
        None => RecordOutcome::Recorded,
    };
    Ok(fleet.jobsets.iter().map(outcome).collect())
}

/// The warning for a JobSet whose history writes failed.
fn not_recorded(jobset: &JobSet, e: &Error) -> String {
    format!("warning: history of jobset {}/{} not recorded: {e}", jobset.namespace(), jobset.name())
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
    // Rounds of the whole fleet, not a guarded write: each round's one LIST re-reads every
    // JobSet that lost a race in the round before.
    for _ in 0..TRIES {
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
            // Read just now: what is new, or else the moves that part duplicate numbers.
            let writes = history::plan_writes_or_renumber(observation, &revisions);
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
                        Err(e) if lost_race(&e) => break,
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
) -> Result<HashMap<String, Vec<std::result::Result<Revision, history::UnreadableRevision>>>> {
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
    // Owned, so that the parse thread filters before it parses.
    let wanted: std::sync::Arc<std::collections::HashSet<String>> =
        std::sync::Arc::new(jobsets.iter().map(|js| js.uid().to_owned()).collect());
    let read = move |object: ControllerRevision| {
        // A staged change is listed with the history, not part of it.
        if crate::plan::staged::is_staged(&object) {
            return Vec::new();
        }
        history::belongs_to(&object)
            .into_iter()
            .filter(|uid| wanted.contains(*uid))
            .map(|uid| (uid.to_owned(), history::parse(&object, uid)))
            .collect::<Vec<_>>()
    };
    let parsed = cluster.list_revisions_with(namespace, &selector, read, |r| r).await?;
    let mut by_owner: HashMap<String, Vec<std::result::Result<Revision, history::UnreadableRevision>>> =
        HashMap::new();
    for (uid, revision) in parsed.into_iter().flatten() {
        by_owner.entry(uid).or_default().push(revision);
    }
    Ok(by_owner)
}

/// Past this many JobSets, the read-back lists every revision in scope instead.
const MAX_NAMES_IN_SELECTOR: usize = 50;

/// The number of the revision that holds the JobSet's spec, if recorded; `digest` is its
/// spec's, if recording read it (`Recorded::spec_digests`).
pub fn spec_revision(
    histories: &Histories,
    jobset: &JobSet,
    digest: Option<crate::diff::digest::Digest>,
) -> Option<i64> {
    let revisions = histories.get(jobset.uid())?;
    let digest = digest.unwrap_or_else(|| history::SpecSums::of(jobset).digest);
    history::spec_revision(revisions, digest)
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
    let own = raw
        .iter()
        .filter(|object| !history::Holder::of(object).is_foreign_to(jobset))
        .filter(|object| !crate::plan::staged::is_staged(object));
    readable(own.map(|object| history::parse(object, jobset.uid())), err)
}

/// The revisions that could be read, in number order; a warning for each of the others.
fn readable(
    parsed: impl IntoIterator<Item = std::result::Result<Revision, history::UnreadableRevision>>,
    err: &mut dyn Write,
) -> Result<Vec<Revision>> {
    let parsed = parsed.into_iter();
    // As many as there are: a Vec's first push makes room for four (most have one).
    let mut revisions = Vec::with_capacity(parsed.size_hint().0);
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
    spec: &history::SpecSums,
    drift: &JobSetDrift,
    revisions: &[Revision],
) -> Running {
    if !drift.state.compares_jobs()
        || drift.total_jobs() == 0
        || torn_read(jobset, fleet.jobs_of(jobset)).is_some()
    {
        return Running::Unknown;
    }
    if !has_template_drift(drift) {
        return credit_despite_scale(jobset, spec, drift, revisions, Running::Spec);
    }
    let server = |template: &Value| defaulter.expected(jobset, template).map(|n| n.template);
    let running = running_revision_client_side(jobset, drift, revisions)
        .or_else(|| running_revision(drift, revisions, &server));
    if let Some(revision) = running {
        return credit_despite_scale(
            jobset,
            spec,
            drift,
            revisions,
            Running::Revision(revision.name.clone()),
        );
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
                None => spec.template.value(),
            };
            (spec.name.clone(), template)
        })
        .collect();
    Running::Rebuilt(rebuilt)
}

/// One attempt is credited to one revision. A change of parallelism or completions alone
/// is scale, not a new template (the drift engine reports it apart, and the controller
/// scales running Jobs of an elastic JobSet to it in place): an attempt already credited
/// to a revision that differs from what the Jobs match only in scale stays there, and
/// Jobs left at another scale than the spec's run the revision of their scale. `running`
/// otherwise.
fn credit_despite_scale(
    jobset: &JobSet,
    spec: &history::SpecSums,
    drift: &JobSetDrift,
    revisions: &[Revision],
    running: Running,
) -> Running {
    let target_revision = match &running {
        Running::Spec => None,
        Running::Revision(name) => match revisions.iter().find(|r| &r.name == name) {
            Some(r) => Some(r),
            None => return running,
        },
        Running::Unknown | Running::Rebuilt(_) => return running,
    };
    let target_hash = match target_revision {
        None => std::borrow::Cow::Borrowed(spec.hash.as_str()),
        Some(r) => history::hash(&r.templates).into(),
    };
    // The usual case, cheaply: the attempt is credited to the target, or to nothing yet
    // while the Jobs run the spec's scale.
    let holder = revisions.iter().find(|r| r.attempts.contains(&jobset.attempt()));
    let scaled =
        drift.replicated_jobs.iter().any(|r| r.scale.iter().any(|s| SCALE_FIELDS.contains(&s.field)));
    if holder.is_some_and(|r| r.hash == target_hash) || (holder.is_none() && !scaled) {
        return running;
    }
    let spec_templates = history::templates_of(jobset);
    let target = target_revision.map_or(&spec_templates, |r| &*r.templates);
    let same: Vec<&Revision> =
        revisions.iter().filter(|r| history::same_templates_but_scale(&r.templates, target)).collect();
    let credited = same.iter().rev().find(|r| r.attempts.contains(&jobset.attempt()));
    let pick = credited.or_else(|| {
        let live = live_scale(jobset, &spec_templates, drift)?;
        same.iter().rev().find(|r| {
            let scale = scale_of(jobset, &r.templates);
            live.iter().all(|(key, value)| scale.get(key) == Some(value))
        })
    });
    match pick {
        Some(r) if !history::same_templates_in_order(&r.templates, target) => {
            Running::Revision(r.name.clone())
        }
        _ => running,
    }
}

/// Which scale fields `live_scale` and `scale_of` compare.
const SCALE_FIELDS: [&str; 2] = ["parallelism", "completions"];

/// The parallelism and completions the current Jobs run with, per replicatedJob that has
/// Jobs; None when the Jobs of one replicatedJob disagree.
fn live_scale(
    jobset: &JobSet,
    spec: &Templates,
    drift: &JobSetDrift,
) -> Option<BTreeMap<(String, &'static str), Option<i64>>> {
    let spec = scale_of(jobset, spec);
    let mut live = BTreeMap::new();
    for rjob in drift.replicated_jobs.iter().filter(|r| !r.jobs.is_empty() && r.in_spec) {
        for field in SCALE_FIELDS {
            let key = (rjob.name.clone(), field);
            let of_job =
                |job: &String| match rjob.scale.iter().find(|s| s.field == field && s.jobs.contains(job)) {
                    Some(change) => change.live,
                    None => spec.get(&key).copied().flatten(),
                };
            let mut values = rjob.jobs.iter().map(of_job);
            let first = values.next()?;
            if values.any(|v| v != first) {
                return None;
            }
            live.insert(key, first);
        }
    }
    Some(live)
}

/// The parallelism and completions a Job made from each template has (after defaults).
fn scale_of(jobset: &JobSet, templates: &Templates) -> BTreeMap<(String, &'static str), Option<i64>> {
    let mut scale = BTreeMap::new();
    for (name, template) in templates {
        let expected = client_expected(jobset, template);
        scale.insert((name.clone(), "parallelism"), expected.parallelism);
        scale.insert((name.clone(), "completions"), expected.completions);
    }
    scale
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
                *rjob.spec_template == expected
            } else {
                rjob.outdated.iter().all(|g| *g.live_template == expected)
            }
        })
    };
    revisions.iter().rev().find(|r| matches(r))
}

/// The latest attempt of Jobs labelled with a later attempt than the JobSet's
/// `status.restarts`, if any: the JobSet was read before a restart and its Jobs after (a
/// torn read). The recorder's watches can be out of step the same way.
pub fn torn_read(jobset: &JobSet, jobs: &[ChildJob]) -> Option<i32> {
    jobs.iter().filter_map(ChildJob::attempt).filter(|a| *a > jobset.attempt()).max()
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
        if torn_read(stale, fleet.jobs_of(stale)).is_none() {
            continue;
        }
        // Gone, or deleted and created again: the stale view stays, and `running_state`
        // records no attempt from it.
        let Ok(fresh) = cluster.get_jobset(stale.namespace(), stale.name()).await else { continue };
        if fresh.uid() != stale.uid() {
            continue;
        }
        defaulter.prefetch(fresh.spec.replicated_jobs.iter().map(|r| (&fresh, r.template.value()))).await?;
        let expected: BTreeMap<String, Expected> = fresh
            .spec
            .replicated_jobs
            .iter()
            .filter_map(|r| {
                defaulter.expected(&fresh, &r.template.value()).map(|n| (r.name.clone(), n.into()))
            })
            .collect();
        *drift = crate::diff::compare(&fresh, fleet.jobs_of(&fresh), &expected);
        fleet.jobsets[i] = fresh;
    }
    Ok(())
}

/// The writes that bring one JobSet's stored history up to date with what was seen.
/// Where numbers are checked from a watched store, this look is the one a read-back would
/// have been, so a duplicate number it shows is moved apart here.
fn writes_due(check: NumberCheck, observation: &Observation<'_>, revisions: &[Revision]) -> Vec<StoreWrite> {
    match check {
        NumberCheck::ReadBack => history::plan_writes(observation, revisions),
        NumberCheck::FromStore => history::plan_writes_or_renumber(observation, revisions),
    }
}

/// Plans and performs the writes for one JobSet, re-reading it only after a lost race or
/// a lost answer (the write may have landed). The server's answers keep the in-memory
/// revisions current without another list; whether the numbers given are unique is
/// checked afterwards (`NumberCheck`).
async fn write_history(
    cluster: &Cluster,
    observation: &Observation<'_>,
    revisions: Vec<Revision>,
    check: NumberCheck,
    err: &mut dyn Write,
) -> Result<Written> {
    let mut write =
        HistoryWrites { cluster, observation, revisions, check, gave_numbers: false, numbering: false, err };
    guarded(&cluster.log, &mut write).await
}

/// One JobSet's history writes, planned from the revisions known last.
struct HistoryWrites<'a, 'o> {
    cluster: &'a Cluster,
    observation: &'a Observation<'o>,
    revisions: Vec<Revision>,
    check: NumberCheck,
    gave_numbers: bool,
    /// Whether the write that failed last gives a number (if its answer was lost, it
    /// may have landed, and `settle_numbers` must look).
    numbering: bool,
    /// Where warnings about unreadable revisions go.
    err: &'a mut dyn Write,
}

impl HistoryWrites<'_, '_> {
    fn written(&mut self) -> Written {
        Written { revisions: std::mem::take(&mut self.revisions), gave_numbers: self.gave_numbers }
    }
}

impl GuardedWrite for HistoryWrites<'_, '_> {
    type Output = Written;

    fn what(&self) -> String {
        let jobset = self.observation.jobset;
        format!("the history of jobset {}/{}", jobset.namespace(), jobset.name())
    }

    async fn send(&mut self) -> Result<Written> {
        let writes = writes_due(self.check, self.observation, &self.revisions);
        for write in &writes {
            if let Err(e) = perform(self.cluster, self.observation.jobset, write, &mut self.revisions).await {
                self.numbering = write.assigns_number();
                return Err(e);
            }
            self.gave_numbers |= write.assigns_number();
        }
        Ok(self.written())
    }

    /// Someone recorded at the same time (or our write's answer was lost): plan again
    /// from what is stored now (a create that landed is listed, and is not made twice).
    async fn reread(&mut self, failure: WriteFailure) -> Result<Verdict<Written>> {
        self.gave_numbers |= failure == WriteFailure::Unknown && self.numbering;
        let jobset = self.observation.jobset;
        let selector = format!("{}={}", history::JOBSET_LABEL, jobset.name());
        let stored = self.cluster.list_revisions(Some(jobset.namespace()), &selector).await?;
        self.revisions = parse_revisions(&stored, jobset, self.err)?;
        Ok(match writes_due(self.check, self.observation, &self.revisions).is_empty() {
            true => Verdict::Done(self.written()),
            false => Verdict::SendAgain,
        })
    }

    fn classify(&self, error: &Error) -> WriteFailure {
        if lost_race(error) { WriteFailure::Precondition } else { write_failure(error) }
    }

    /// Races lost on every try leave the history as stored now: the next look records it.
    fn exhausted(&mut self, last: Error, failure: WriteFailure) -> Result<Written> {
        match failure {
            WriteFailure::Precondition => Ok(self.written()),
            _ => Err(last),
        }
    }
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

/// Someone else wrote first: a failed guard, or a create whose name was taken (409).
fn lost_race(e: &Error) -> bool {
    is_precondition_failure(e) || matches!(e, Error::Api { code: 409, .. } | Error::Conflict { .. })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::diff::{DriftGroup, ReplicatedJobDrift, State};
    use crate::testing;
    use std::sync::Arc;

    fn template(image: &str) -> Value {
        json!({"spec": {"template": {"spec": {"containers": [{"name": "main", "image": image}]}}}})
    }

    fn revision(number: i64, image: &str) -> Revision {
        testing::revision("js", "u", number).template("w", template(image)).build()
    }

    /// Replicated job `w` on the spec's `spec` image; `outdated` Jobs run `live`.
    fn drift(spec: &str, jobs: &[&str], outdated: &[&str], live: &str) -> JobSetDrift {
        let group = DriftGroup {
            jobs: outdated.iter().map(|j| (*j).to_owned()).collect(),
            changes: vec![],
            live_template: Arc::new(template(live).into()),
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
                spec_template: Arc::new(template(spec).into()),
            }],
            previous_attempt_jobs: vec![],
            unlabelled_jobs: vec![],
            manager: None,
            error: None,
            kueue: None,
            quota: vec![],
            staged: None,
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

    fn scaled(image: &str, parallelism: i64) -> Value {
        let mut t = template(image);
        t["spec"]["parallelism"] = json!(parallelism);
        t["spec"]["completions"] = json!(parallelism);
        t
    }

    #[test]
    fn an_attempt_stays_with_one_revision_when_only_parallelism_or_completions_change() {
        let js =
            testing::jobset("js").namespace("ml").uid("u").replicated_job("w", 2, scaled("v1", 2)).build();
        let old = |attempts: &str| {
            let b = testing::revision("js", "u", 1).template("w", scaled("v1", 1));
            if attempts.is_empty() { b.build() } else { b.attempts(attempts).build() }
        };
        let spec = testing::revision("js", "u", 2).template("w", scaled("v1", 2)).build();
        let no_drift = drift("v1", &["js-w-0", "js-w-1"], &[], "v1");
        // Attempt 0 ran revision 1; the controller scaled its Jobs to the spec in place.
        let revisions = [old("0"), spec.clone()];
        let running =
            credit_despite_scale(&js, &history::SpecSums::of(&js), &no_drift, &revisions, Running::Spec);
        assert_eq!(running, Running::Revision("js-1".into()), "not credited to revision 2 as well");
        // Nobody credited it yet, and the Jobs were left at the old scale: revision 1.
        let mut left = no_drift.clone();
        left.replicated_jobs[0].scale = ["parallelism", "completions"]
            .map(|field| crate::diff::ScaleChange {
                field,
                jobs: vec!["js-w-0".into(), "js-w-1".into()],
                live: Some(1),
                spec: Some(2),
            })
            .to_vec();
        let revisions = [old(""), spec.clone()];
        assert_eq!(
            credit_despite_scale(&js, &history::SpecSums::of(&js), &left, &revisions, Running::Spec),
            Running::Revision("js-1".into())
        );
        // Jobs at the spec's scale, nothing credited: the spec's revision.
        assert_eq!(
            credit_despite_scale(&js, &history::SpecSums::of(&js), &no_drift, &revisions, Running::Spec),
            Running::Spec
        );
        // A template change is not scale: the attempt credited to another template's
        // revision does not move the crediting.
        let other = testing::revision("js", "u", 1).template("w", scaled("v0", 2)).attempts("0").build();
        assert_eq!(
            credit_despite_scale(&js, &history::SpecSums::of(&js), &no_drift, &[other, spec], Running::Spec),
            Running::Spec
        );
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
        assert_eq!(torn_read(&js, &[child("0"), child("1")]), None);
        assert_eq!(torn_read(&js, &[child("1"), child("2"), child("3")]), Some(3));
        assert_eq!(torn_read(&js, &[child("x")]), None, "unlabelled or unreadable: not torn");
    }
}
