//! Loading JobSets with their child Jobs in a fixed number of requests: one for the
//! JobSets (a GET for a single name, else a paginated LIST) and one paginated LIST of
//! Jobs by the controller's `jobset-name` label, whatever the number of objects.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::ControllerRevision;
use kube::core::{Expression, Selector};
use serde_json::Value;

use crate::cluster::Cluster;
use crate::diff::digest::{Digest, digest};
use crate::diff::normalize::{Expected, normalize_template};
use crate::error::{Error, JOBSET_RESOURCE, Result};
use crate::history::deleted::DeletedHistory;
use crate::history::{Revision, UnreadableRevision};
use crate::model::compact::{Compact, HeldJson};
use crate::model::jobset::{ChildJob, JobSet, labels};
use crate::model::kueue::{Kueue, Workload};
use crate::plan::staged::Staged;
use crate::select::Selection;

/// JobSets with their Jobs.
#[derive(Debug, Default)]
pub struct Fleet {
    pub jobsets: Vec<JobSet>,
    /// Child Jobs, sorted by the UID of the JobSet that controls them, then by name.
    jobs: Vec<ChildJob>,
    /// Where each JobSet's Jobs sit in `jobs`, by its UID. One Vec of all Jobs, not one
    /// per JobSet: per-JobSet Vecs grow to room for 4 Jobs (a Job is ~600 bytes) and, while
    /// they fill, the list they are moved out of is held beside them.
    jobs_by_owner: HashMap<String, std::ops::Range<usize>>,
    /// Names asked for that do not exist (only with several names).
    pub missing: Vec<String>,
    /// Our ControllerRevisions, parsed (or why one is ignored), by owner UID.
    revisions_by_owner: HashMap<String, Vec<std::result::Result<Revision, UnreadableRevision>>>,
    /// Why history could not be read, when it could not (e.g. RBAC).
    pub history_error: Option<Error>,
    /// Listed revisions labelled for a JobSet of the fleet that another object holds.
    pub revision_holders: Vec<crate::history::Holder>,
    /// Kueue's Workloads in the namespaces read; None when Kueue is not served.
    pub workloads: Option<Vec<Workload>>,
    /// Changes staged for the next restart, by owner UID (listed with the revisions):
    /// the newest of its staged revisions (`plan::staged::newest`).
    staged_by_owner: HashMap<String, Staged>,
    /// Per name asked for that does not exist, the uids its listed revisions belong to:
    /// the history of deleted JobSets of that name.
    deleted_uids: BTreeMap<(String, String), BTreeSet<String>>,
    /// The histories of deleted JobSets, for the commands that show them
    /// (`load_targets_or_deleted`).
    pub deleted: Vec<DeletedHistory>,
    /// The client-side forms the read matched the Jobs against, by JobSet UID: the
    /// comparison takes them instead of building them again.
    client_forms: HashMap<String, LearntForms>,
}

impl Fleet {
    pub fn new(jobsets: Vec<JobSet>, mut jobs: Vec<ChildJob>, missing: Vec<String>) -> Self {
        // Jobs that no JobSet controls are not any JobSet's.
        jobs.retain(|job| owner_uid(job).is_some());
        jobs.sort_by(|a, b| (owner_uid(a), a.name()).cmp(&(owner_uid(b), b.name())));
        jobs.shrink_to_fit();
        let mut jobs_by_owner: HashMap<String, std::ops::Range<usize>> = HashMap::new();
        let mut start = 0;
        for owned in jobs.chunk_by(|a, b| owner_uid(a) == owner_uid(b)) {
            let uid = owner_uid(&owned[0]).unwrap_or_default();
            jobs_by_owner.insert(uid.to_owned(), start..start + owned.len());
            start += owned.len();
        }
        Fleet {
            jobsets,
            jobs,
            jobs_by_owner,
            missing,
            revisions_by_owner: HashMap::new(),
            history_error: None,
            revision_holders: Vec::new(),
            workloads: None,
            staged_by_owner: HashMap::new(),
            deleted_uids: BTreeMap::new(),
            deleted: Vec::new(),
            client_forms: HashMap::new(),
        }
    }

    /// The client-side form of a replicatedJob of the JobSet, as the read built it (None
    /// when it did not, or for another version of the JobSet).
    pub fn client_form(&self, jobset: &JobSet, replicated_job: &str) -> Option<&Expected> {
        let learnt = self.client_forms.get(jobset.uid())?;
        if learnt.resource_version != jobset.metadata.resource_version {
            return None;
        }
        learnt.forms.iter().find(|f| f.replicated_job == replicated_job).map(|f| &f.expected)
    }

    /// The fleet with `staged` as the change staged for the JobSet with `uid`.
    pub fn with_staged(mut self, uid: &str, staged: Option<Staged>) -> Self {
        if let Some(staged) = staged {
            self.staged_by_owner.insert(uid.to_owned(), staged);
        }
        self
    }

    /// The change staged for the JobSet, if any: for its next restart, or held by a
    /// rollout for a later batch.
    pub fn staged_of(&self, jobset: &JobSet) -> Option<&Staged> {
        self.staged_by_owner.get(jobset.uid())
    }

    /// The change the JobSet's next restart applies, if any (not one a rollout holds).
    pub fn staged_for_restart(&self, jobset: &JobSet) -> Option<&Staged> {
        self.staged_of(jobset).filter(|s| s.applies_at_restart())
    }

    /// Kueue's view of a JobSet of the fleet (its queue label, or a Workload it owns).
    pub fn kueue_of(&self, jobset: &JobSet) -> Option<Kueue> {
        Kueue::of(jobset, self.workloads.as_deref().unwrap_or_default())
    }

    /// Adds ControllerRevisions, parsed and grouped by owner (the raw objects are dropped).
    pub fn with_revisions(self, revisions: Vec<ControllerRevision>) -> Self {
        self.with_listed(revisions.into_iter().map(ListedRevision::read))
    }

    fn with_listed(mut self, revisions: impl IntoIterator<Item = ListedRevision>) -> Self {
        let jobsets: HashMap<(&str, &str), &JobSet> =
            self.jobsets.iter().map(|js| ((js.namespace(), js.name()), js)).collect();
        for revision in revisions {
            // Only another object's revisions are worth keeping the holder of: looking
            // them up then costs nothing per JobSet in the usual fleet, which has none.
            let holder = revision.holder;
            let named = jobsets.get(&(holder.namespace.as_str(), holder.jobset.as_str()));
            if named.is_some_and(|js| holder.is_foreign_to(js)) {
                self.revision_holders.push(holder);
            } else if named.is_none() && self.missing.contains(&holder.jobset) {
                let uids = self.deleted_uids.entry((holder.namespace, holder.jobset)).or_default();
                uids.extend(revision.parsed.iter().map(|(uid, _)| uid.clone()));
            }
            for (owner, parsed) in revision.parsed {
                // Room for one at first (a Vec's first push makes room for four): most
                // JobSets have one revision or a few.
                self.revisions_by_owner.entry(owner).or_insert_with(|| Vec::with_capacity(1)).push(parsed);
            }
            for (owner, staged) in revision.staged {
                let kept = match self.staged_by_owner.remove(&owner) {
                    Some(other) => crate::plan::staged::newest(vec![other, staged]),
                    None => Some(staged),
                };
                self.staged_by_owner.extend(kept.map(|kept| (owner, kept)));
            }
        }
        self
    }

    /// The histories of the names asked for that do not exist, newest first per name (a
    /// name used again has one per uid); revisions that cannot be read are left out.
    fn take_deleted(&mut self) -> Vec<DeletedHistory> {
        let mut all = Vec::new();
        for ((namespace, name), uids) in std::mem::take(&mut self.deleted_uids) {
            let mut of_name: Vec<DeletedHistory> = uids
                .iter()
                .filter_map(|uid| {
                    let revisions: Vec<Revision> =
                        self.take_revisions_of(uid).into_iter().filter_map(|r| r.ok()).collect();
                    (!revisions.is_empty()).then(|| DeletedHistory::new(&namespace, &name, uid, revisions))
                })
                .collect();
            crate::history::deleted::newest_first(&mut of_name);
            all.extend(of_name);
        }
        // In the order the names were asked for.
        all.sort_by_key(|h| self.missing.iter().position(|n| *n == h.name));
        all
    }

    /// Takes the revisions a JobSet owns (or why each is ignored) out of the fleet.
    pub fn take_revisions_of(&mut self, uid: &str) -> Vec<std::result::Result<Revision, UnreadableRevision>> {
        self.revisions_by_owner.remove(uid).unwrap_or_default()
    }

    /// Lets the JobSets and their Jobs go (what was printed from them is all that is left
    /// to do); the names not found stay.
    pub fn drop_objects(&mut self) {
        drop(self.take_objects());
    }

    /// Takes the JobSets and their Jobs out (see `drop_objects`), to be let go elsewhere.
    pub fn take_objects(&mut self) -> impl Send + 'static + use<> {
        (
            std::mem::take(&mut self.jobsets),
            std::mem::take(&mut self.jobs),
            std::mem::take(&mut self.jobs_by_owner),
            std::mem::take(&mut self.client_forms),
        )
    }

    /// The Jobs the JobSet controls (every attempt), sorted by name.
    pub fn jobs_of(&self, jobset: &JobSet) -> &[ChildJob] {
        self.jobs_by_owner.get(jobset.uid()).map(|range| &self.jobs[range.clone()]).unwrap_or_default()
    }
}

/// Fetches the selected JobSets and their Jobs; the two requests run concurrently.
pub async fn load(cluster: &Cluster, selection: &Selection) -> Result<Fleet> {
    load_jobsets_and_jobs(cluster, selection).await
}

/// Like `load`, and also lists the JobSets' recorded revisions (a third request, run
/// concurrently). If history cannot be read, the fleet says why instead of failing.
pub async fn load_with_history(cluster: &Cluster, selection: &Selection) -> Result<Fleet> {
    let ns = selection.namespace.as_deref();
    let selector = label_selector_for(crate::history::JOBSET_LABEL, &selection.names);
    let (fleet, revisions) = tokio::join!(
        load_jobsets_and_jobs(cluster, selection),
        // Each read as its page is parsed (its templates held as text), so that what is
        // left once the Jobs are in is only to group them.
        cluster.list_revisions_with(ns, &selector, ListedRevision::read, |r| r)
    );
    let fleet = match fleet {
        // One name that does not exist: its revisions may be a deleted JobSet's history.
        Err(Error::NotFound { resource: JOBSET_RESOURCE, .. }) if selection.names.len() == 1 => {
            Fleet::new(Vec::new(), Vec::new(), selection.names.clone())
        }
        other => other?,
    };
    Ok(match revisions {
        Ok(revisions) => fleet.with_listed(revisions),
        Err(e) => Fleet { history_error: Some(e), ..fleet },
    })
}

async fn load_jobsets_and_jobs(cluster: &Cluster, selection: &Selection) -> Result<Fleet> {
    let ns = selection.namespace.as_deref();
    let job_selector = label_selector_for(labels::JOBSET_NAME, &selection.names);
    let reducer = Arc::new(Reducer::default());
    let jobs_request = {
        let reducer = reducer.clone();
        cluster.list_jobs_reduced(ns, &job_selector, move |job| reducer.reduce(job))
    };
    let (mut jobsets, jobs) = match (selection.names.as_slice(), ns) {
        ([name], Some(ns)) => {
            let get = async {
                let jobset = cluster.get_jobset(ns, name).await?;
                reducer.learn(&jobset);
                Ok(jobset)
            };
            let (jobset, jobs) = tokio::try_join!(get, jobs_request)?;
            (vec![jobset], jobs)
        }
        _ => {
            let (labels, fields) = (selection.label_selector.as_deref(), selection.field_selector.as_deref());
            let learner = reducer.clone();
            let jobsets = cluster.list_jobsets_with(ns, labels, fields, move |js| {
                learner.learn(&js);
                js
            });
            tokio::try_join!(jobsets, jobs_request)?
        }
    };
    let jobs = reducer.settle(jobs);
    let client_forms = reducer.take_forms();
    // Kueue's Workloads, only for a fleet Kueue may queue (one more round trip, never
    // per JobSet): clusters without Kueue pay nothing.
    let workloads = match jobsets.iter().any(crate::model::kueue::may_be_queued) {
        true => cluster.list_workloads(ns).await?,
        false => None,
    };
    let mut missing = Vec::new();
    if !selection.names.is_empty() {
        jobsets.retain(|js| selection.names.iter().any(|n| n == js.name()));
        missing =
            selection.names.iter().filter(|n| !jobsets.iter().any(|js| js.name() == *n)).cloned().collect();
        // Keep the order the user typed.
        jobsets.sort_by_key(|js| selection.names.iter().position(|n| n == js.name()));
    } else {
        jobsets.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
    }
    Ok(Fleet { workloads, client_forms, ..Fleet::new(jobsets, jobs, missing) })
}

/// A listed revision, read as its page is parsed (or by `with_revisions`): who holds
/// it, and what it says for each of its owners (by UID).
struct ListedRevision {
    holder: crate::history::Holder,
    parsed: Vec<(String, std::result::Result<Revision, UnreadableRevision>)>,
    /// A change staged for the next restart is listed with the history, not part of it.
    staged: Vec<(String, Staged)>,
}

impl ListedRevision {
    fn read(revision: ControllerRevision) -> Self {
        if crate::plan::staged::is_staged(&revision) {
            let owners = revision.metadata.owner_references.as_deref().unwrap_or_default();
            return ListedRevision {
                holder: crate::history::Holder::of(&revision),
                parsed: Vec::new(),
                staged: owners
                    .iter()
                    .filter_map(|o| Some((o.uid.clone(), crate::plan::staged::parse(&revision, &o.uid)?)))
                    .collect(),
            };
        }
        let uids = crate::history::belongs_to(&revision);
        ListedRevision {
            staged: Vec::new(),
            holder: crate::history::Holder::of(&revision),
            parsed: uids
                .into_iter()
                .map(|uid| (uid.to_owned(), crate::history::parse(&revision, uid)))
                .collect(),
        }
    }
}

/// Reduces each Job as its page arrives to what the comparison needs: its template in
/// the diff engine's normal form, held once for every Job that runs its JobSet's
/// template. A Job is matched against its JobSet's client-side form (`client_expected`)
/// by digest: the JobSets are listed alongside, so a Job parsed before its JobSet is
/// known is held as compact JSON until `settle` (a fraction of the tree it would be).
/// Jobs that differ keep their own template (or share one with Jobs equal to it): only
/// drift is held per Job.
#[derive(Default)]
struct Reducer {
    forms: std::sync::Mutex<TemplateForms>,
}

/// The client-side forms of the JobSets seen so far, by digest, and the templates held,
/// shared by digest: what lets a Job that runs its JobSet's template hold none of its
/// own (a fleet read's Jobs, the recorder's store of Jobs). Templates are held as compact
/// JSON (a tenth of a parsed tree), parsed again by the few that read them.
#[derive(Default)]
pub struct TemplateForms {
    /// Each known JobSet's client-side form of each replicatedJob, by JobSet UID.
    forms: HashMap<String, LearntForms>,
    /// Templates by digest, so that equal ones are held once (uniform fleets, and Jobs
    /// of one replicatedJob that drift alike). Weak: a template goes when its last
    /// holder does (the recorder runs for weeks while templates change).
    shared: HashMap<Digest, std::sync::Weak<HeldJson>>,
    /// The size of `shared` after its last pruning of dead entries.
    pruned_at: usize,
    /// While a watch lists again: the JobSets seen since it began (the others are gone).
    relisted: Option<std::collections::HashSet<String>>,
}

/// A JobSet's client-side forms, learnt from the version of it with this resourceVersion.
#[derive(Debug)]
struct LearntForms {
    resource_version: Option<String>,
    forms: Vec<Form>,
}

/// A replicatedJob's client-side form (`client_expected`), with its template's digest.
#[derive(Debug)]
struct Form {
    replicated_job: String,
    digest: Digest,
    expected: Expected,
}

/// A Job as the Jobs' pages are read: with its template, or (its JobSet not yet known)
/// with the template's digest and compact JSON instead.
struct Reduced {
    job: ChildJob,
    held: Option<(Digest, Compact)>,
}

impl TemplateForms {
    fn share(&mut self, digest: Digest, template: Value) -> Arc<HeldJson> {
        self.share_compact(digest, || Compact::of(&template))
    }

    /// `share` for a template already written as compact JSON.
    fn share_compact(&mut self, digest: Digest, compact: impl FnOnce() -> Compact) -> Arc<HeldJson> {
        if let Some(held) = self.shared.get(&digest).and_then(std::sync::Weak::upgrade) {
            return held;
        }
        // Dead entries are dropped once the map has doubled since the last time.
        if self.shared.len() >= 2 * self.pruned_at.max(512) {
            self.shared.retain(|_, held| held.strong_count() > 0);
            self.pruned_at = self.shared.len();
        }
        let held = Arc::new(HeldJson::Compact(compact()));
        self.shared.insert(digest, Arc::downgrade(&held));
        held
    }

    /// The template a Job with this digest runs, if it is its JobSet's form; None when
    /// its JobSet is not known.
    fn form_for(&self, job: &ChildJob, digest: Digest) -> Option<Option<Arc<HeldJson>>> {
        let rjob = job.label(labels::REPLICATED_JOB)?;
        let learnt = self.forms.get(owner_uid(job)?)?;
        let form = learnt.forms.iter().find(|f| f.replicated_job == rjob)?;
        Some((form.digest == digest).then(|| form.expected.template.clone()))
    }

    /// Whether the JobSet that controls `job` is known.
    fn knows_owner_of(&self, job: &ChildJob) -> bool {
        owner_uid(job).is_some_and(|uid| self.forms.contains_key(uid))
    }

    /// Remembers a JobSet's client-side forms (replacing what its spec said before), for
    /// the Jobs read after it.
    pub fn learn(&mut self, jobset: &JobSet) {
        let forms = jobset
            .spec
            .replicated_jobs
            .iter()
            .map(|rjob| {
                let form = super::defaulter::client_expected(jobset, &rjob.template.value());
                let digest = digest(&form.template);
                let expected = Expected {
                    template: self.share(digest, form.template),
                    parallelism: form.parallelism,
                    completions: form.completions,
                };
                Form { replicated_job: rjob.name.clone(), digest, expected }
            })
            .collect();
        if let Some(seen) = &mut self.relisted {
            seen.insert(jobset.uid().to_owned());
        }
        let learnt = LearntForms { resource_version: jobset.metadata.resource_version.clone(), forms };
        self.forms.insert(jobset.uid().to_owned(), learnt);
    }

    /// Forgets a deleted JobSet's forms.
    pub fn forget(&mut self, jobset: &JobSet) {
        self.forms.remove(jobset.uid());
    }

    /// A watch of the JobSets lists them again: deletions it missed show as JobSets not
    /// listed by `end_relist`.
    pub fn begin_relist(&mut self) {
        self.relisted = Some(Default::default());
    }

    /// Forgets the forms of the JobSets the re-list did not show.
    pub fn end_relist(&mut self) {
        if let Some(seen) = self.relisted.take() {
            self.forms.retain(|uid, _| seen.contains(uid));
        }
    }

    /// The template a Job holds, given its normal form and that form's digest: its
    /// JobSet's form when it runs it, else its own (shared with Jobs equal to it); the
    /// normal form back when its JobSet (or that replicatedJob) is not known.
    fn held_template(
        &mut self,
        job: &ChildJob,
        digest: Digest,
        normalized: Value,
    ) -> Result<Arc<HeldJson>, Value> {
        match self.form_for(job, digest) {
            Some(Some(form)) => Ok(form),
            Some(None) => Ok(self.share(digest, normalized)),
            None => Err(normalized),
        }
    }

    /// A Job's template in normal form: its JobSet's form when it runs it, else its own
    /// (shared with Jobs equal to it).
    pub fn reduce(&mut self, job: &mut ChildJob) {
        let (digest, normalized) = normal_form(job);
        job.template = match self.held_template(job, digest, normalized) {
            Ok(template) => template,
            Err(normalized) => self.share(digest, normalized),
        };
    }
}

/// A Job's template in the diff engine's normal form (taken out of the Job), and its
/// digest.
fn normal_form(job: &mut ChildJob) -> (Digest, Value) {
    let normalized = normalize_template(&mut job.template);
    (digest(&normalized), normalized)
}

impl Reducer {
    fn learn(&self, jobset: &JobSet) {
        self.forms.lock().expect("no panic holds the lock").learn(jobset);
    }

    fn reduce(&self, mut job: ChildJob) -> Reduced {
        let (digest, normalized) = normal_form(&mut job);
        let held =
            self.forms.lock().expect("no panic holds the lock").held_template(&job, digest, normalized);
        match held {
            Ok(template) => {
                job.template = template;
                Reduced { job, held: None }
            }
            Err(normalized) => Reduced { job, held: Some((digest, Compact::of(&normalized))) },
        }
    }

    /// The forms learnt, taken out (the read is over).
    fn take_forms(&self) -> HashMap<String, LearntForms> {
        std::mem::take(&mut self.forms.lock().expect("no panic holds the lock").forms)
    }

    /// The Jobs with their templates, once every JobSet is known. Jobs of a JobSet that
    /// was not read (outside a `-l` selection, or created after its list) are dropped
    /// here: no command looks at them, and their templates need not be parsed again.
    fn settle(&self, jobs: Vec<Reduced>) -> Vec<ChildJob> {
        let mut forms = self.forms.lock().expect("no panic holds the lock");
        jobs.into_iter()
            .filter_map(|Reduced { mut job, held }| {
                if let Some((digest, compact)) = held {
                    if !forms.knows_owner_of(&job) {
                        return None;
                    }
                    job.template = match forms.form_for(&job, digest) {
                        Some(Some(form)) => form,
                        _ => forms.share_compact(digest, || compact),
                    };
                }
                Some(job)
            })
            .collect()
    }
}

/// The UID of the JobSet that controls a Job.
fn owner_uid(job: &ChildJob) -> Option<&str> {
    job.metadata
        .owner_references
        .as_deref()?
        .iter()
        .find(|r| r.controller == Some(true) && r.kind == crate::model::jobset::KIND)
        .map(|r| r.uid.as_str())
}

/// `label in (a,b)` when JobSet names are known, else every object with the label.
pub(crate) fn label_selector_for(label: &str, names: &[String]) -> String {
    // Label values are at most 63 characters; longer names fall back to "has the label".
    let expression = if names.is_empty() || names.iter().any(|n| n.len() > 63) {
        Expression::Exists(label.to_owned())
    } else {
        Expression::In(label.to_owned(), names.iter().cloned().collect())
    };
    Selector::from(expression).to_string()
}

/// `load_with_history` for commands that act on what they find: names that do not exist
/// are an error; finding nothing at all is said on `err`, as kubectl says it, and is None.
pub async fn load_targets(
    cluster: &Cluster,
    selection: &Selection,
    err: &mut dyn Write,
) -> Result<Option<Fleet>> {
    load_targets_with(cluster, selection, false, err).await
}

/// `load_targets`, where a name that does not exist but whose revisions were kept (the
/// history of a deleted JobSet) is no error: its histories are in `Fleet::deleted`, in
/// the same requests.
pub async fn load_targets_or_deleted(
    cluster: &Cluster,
    selection: &Selection,
    err: &mut dyn Write,
) -> Result<Option<Fleet>> {
    load_targets_with(cluster, selection, true, err).await
}

async fn load_targets_with(
    cluster: &Cluster,
    selection: &Selection,
    deleted: bool,
    err: &mut dyn Write,
) -> Result<Option<Fleet>> {
    let mut fleet = load_with_history(cluster, selection).await?;
    if deleted {
        fleet.deleted = fleet.take_deleted();
    }
    let missing: Vec<String> =
        fleet.missing.iter().filter(|n| !fleet.deleted.iter().any(|h| h.name == **n)).cloned().collect();
    if !missing.is_empty() {
        return Err(not_found(&missing, selection.namespace.as_deref().unwrap_or_default()));
    }
    if fleet.jobsets.is_empty() && fleet.deleted.is_empty() {
        write_nothing_found(err, selection)?;
        return Ok(None);
    }
    Ok(Some(fleet))
}

/// kubectl's notice for an empty result, on stderr.
pub fn write_nothing_found(err: &mut dyn Write, selection: &Selection) -> Result<()> {
    match &selection.namespace {
        Some(ns) => writeln!(err, "No resources found in {ns} namespace.")?,
        None => writeln!(err, "No resources found")?,
    }
    Ok(())
}

/// The error for names that were asked for and not found.
pub fn not_found(names: &[String], namespace: &str) -> Error {
    Error::NotFound { resource: JOBSET_RESOURCE, name: names.join("\", \""), namespace: namespace.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::normalize::{apply_client_defaults, normalize_child};
    use crate::testing;
    use proptest::prelude::*;
    use serde_json::json;

    /// A container as a user may write it: which fields are set, and to what.
    fn container() -> impl Strategy<Value = Value> {
        (
            prop::sample::select(vec!["busybox:1.36", "busybox:1.37", "app:v1"]),
            prop::collection::vec("[a-c]{1,2}", 0..3),
            prop::option::of(prop::sample::select(vec!["100m", "200m"])),
            prop::option::of(prop::sample::select(vec!["Always", "IfNotPresent"])),
            prop::collection::btree_map("[A-C]", "[0-9]{0,2}", 0..3),
        )
            .prop_map(|(image, args, cpu, pull, env)| {
                let mut c = json!({"name": "main", "image": image});
                if !args.is_empty() {
                    c["args"] = json!(args);
                }
                if let Some(cpu) = cpu {
                    c["resources"] = json!({"limits": {"cpu": cpu}});
                }
                if let Some(pull) = pull {
                    c["imagePullPolicy"] = json!(pull);
                }
                if !env.is_empty() {
                    c["env"] =
                        env.into_iter().map(|(name, value)| json!({"name": name, "value": value})).collect();
                }
                c
            })
    }

    fn template() -> impl Strategy<Value = Value> {
        (container(), prop::option::of(prop::sample::select(vec!["OnFailure", "Never"])), any::<bool>())
            .prop_map(|(container, restart, labelled)| {
                let mut t = json!({"spec": {"template": {"spec": {"containers": [container]}}}});
                if let Some(restart) = restart {
                    t["spec"]["template"]["spec"]["restartPolicy"] = json!(restart);
                }
                if labelled {
                    t["spec"]["template"]["metadata"] = json!({"labels": {"team": "ml"}});
                }
                t
            })
    }

    /// Every object's keys in reverse order: the API server writes Go's field order, the
    /// JobSet's templates come back sorted; equal templates must be equal either way.
    fn reversed(value: Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(String, Value)> = map.into_iter().collect();
                entries.reverse();
                Value::Object(entries.into_iter().map(|(k, v)| (k, reversed(v))).collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(reversed).collect()),
            leaf => leaf,
        }
    }

    /// A live Job of `jobset` made from `template` (its own, or a drifted one), defaulted
    /// as the API server defaults it, in the server's key order.
    fn live_job(jobset: &JobSet, rjob: &str, index: usize, template: &Value) -> ChildJob {
        let mut job = crate::diff::expected::probe_job(jobset, template);
        apply_client_defaults(&mut job);
        crate::diff::expected::add_jobset_specifics(jobset, &mut job);
        let name = jobset.job_name(rjob, index as i32);
        let mut job_labels = job["metadata"]["labels"].clone();
        job_labels[labels::REPLICATED_JOB] = json!(rjob);
        job_labels[labels::RESTART_ATTEMPT] = json!("0");
        job_labels[labels::JOB_INDEX] = json!(index.to_string());
        job_labels["batch.kubernetes.io/job-name"] = json!(name);
        let object = json!({
            "metadata": {"name": name, "namespace": jobset.namespace(), "labels": job_labels,
                "annotations": job["metadata"].get("annotations").cloned().unwrap_or(json!({})),
                "ownerReferences": [{"apiVersion": crate::model::jobset::API_VERSION, "kind": crate::model::jobset::KIND,
                    "name": jobset.name(), "uid": jobset.uid(), "controller": true}]},
            "spec": job["spec"].clone(),
        });
        serde_json::from_value(reversed(object)).expect("a Job")
    }

    /// A fleet: JobSets of one or two replicatedJobs, each with one or two Jobs that run
    /// the spec's template or a drifted one; and, per JobSet, whether its Jobs are read
    /// before it is known.
    type Case = Vec<(Vec<(Value, Vec<Option<Value>>)>, bool)>;

    fn fleet_case() -> impl Strategy<Value = Case> {
        let rjob = (template(), prop::collection::vec(prop::option::of(template()), 1..3));
        prop::collection::vec((prop::collection::vec(rjob, 1..3), any::<bool>()), 1..4)
    }

    /// The JobSet's drift against its client-side forms: those the fleet's read carried,
    /// else built anew.
    fn drift_json(jobset: &JobSet, fleet: &Fleet) -> Value {
        let expected: BTreeMap<String, Expected> = jobset
            .spec
            .replicated_jobs
            .iter()
            .map(|r| {
                let form = fleet.client_form(jobset, &r.name).cloned().unwrap_or_else(|| {
                    crate::observe::defaulter::client_expected(jobset, &r.template.value()).into()
                });
                (r.name.clone(), form)
            })
            .collect();
        serde_json::to_value(crate::diff::compare(jobset, fleet.jobs_of(jobset), &expected))
            .expect("serializable")
    }

    #[test]
    fn each_jobsets_jobs_are_its_own_sorted_by_name_whatever_the_order_listed() {
        let jobsets: Vec<JobSet> = ["u0", "u1", "u2"]
            .iter()
            .enumerate()
            .map(|(i, uid)| {
                testing::jobset(&format!("js{i}"))
                    .namespace("ml")
                    .uid(uid)
                    .replicated_job("w", 3, testing::pod_template("app:v1"))
                    .build()
            })
            .collect();
        let spec = jobsets[0].spec.replicated_jobs[0].template.value();
        // Interleaved and out of order, as pages of a namespace-wide list come.
        let jobs = [(1, 2), (0, 1), (1, 0), (0, 2), (0, 0), (1, 1)]
            .iter()
            .map(|&(js, index)| live_job(&jobsets[js], "w", index, &spec))
            .collect();
        let fleet = Fleet::new(jobsets.clone(), jobs, Vec::new());
        let names =
            |js: &JobSet| -> Vec<String> { fleet.jobs_of(js).iter().map(|j| j.name().to_owned()).collect() };
        assert_eq!(names(&jobsets[0]), ["js0-w-0", "js0-w-1", "js0-w-2"]);
        assert_eq!(names(&jobsets[1]), ["js1-w-0", "js1-w-1", "js1-w-2"]);
        assert!(names(&jobsets[2]).is_empty());
    }

    #[test]
    fn jobs_of_jobsets_not_read_are_dropped_and_jobs_of_removed_replicated_jobs_kept() {
        let js = testing::jobset("js0")
            .namespace("ml")
            .uid("u0")
            .replicated_job("w", 1, testing::pod_template("app:v1"))
            .build();
        let unread = testing::jobset("js1")
            .namespace("ml")
            .uid("u1")
            .replicated_job("w", 1, testing::pod_template("app:v1"))
            .build();
        let spec = js.spec.replicated_jobs[0].template.value();
        let reducer = Reducer::default();
        // All read before any JobSet is known; js1 never is.
        let reduced = vec![
            reducer.reduce(live_job(&js, "w", 0, &spec)),
            reducer.reduce(live_job(&js, "gone", 0, &spec)),
            reducer.reduce(live_job(&unread, "w", 0, &spec)),
        ];
        reducer.learn(&js);
        let names: Vec<String> = reducer.settle(reduced).iter().map(|j| j.name().to_owned()).collect();
        assert_eq!(names, ["js0-w-0", "js0-gone-0"]);
    }

    #[test]
    fn the_recorders_forms_share_the_spec_and_forget_what_a_relist_does_not_show() {
        let js = testing::jobset("js0")
            .namespace("ml")
            .uid("u0")
            .replicated_job("w", 2, testing::pod_template("app:v1"))
            .build();
        let other = testing::jobset("js1")
            .namespace("ml")
            .uid("u1")
            .replicated_job("w", 1, testing::pod_template("app:v1"))
            .build();
        let mut forms = TemplateForms::default();
        forms.learn(&js);
        forms.learn(&other);
        let spec = js.spec.replicated_jobs[0].template.value();
        let mut running = live_job(&js, "w", 0, &spec);
        let mut drifted = live_job(&js, "w", 1, &testing::pod_template("app:v2"));
        forms.reduce(&mut running);
        forms.reduce(&mut drifted);
        let form =
            forms.form_for(&running, digest(&running.template.value())).flatten().expect("the spec's form");
        assert!(Arc::ptr_eq(&running.template, &form), "a Job that runs its spec holds the form");
        assert!(matches!(*form, HeldJson::Compact(_)), "forms are held as compact JSON");
        assert!(matches!(*drifted.template, HeldJson::Compact(_)), "and so are drifted templates");
        assert_eq!(
            *drifted.template,
            *normalize_child(live_job(&js, "w", 1, &testing::pod_template("app:v2"))).template
        );
        assert_eq!(
            forms.form_for(&drifted, digest(&drifted.template.value())),
            Some(None),
            "drift keeps its own"
        );
        // Equal forms of two JobSets are one template.
        let other_job = live_job(&other, "w", 0, &spec);
        assert!(Arc::ptr_eq(&forms.form_for(&other_job, digest(&form.value())).flatten().unwrap(), &form));
        forms.begin_relist();
        forms.learn(&other);
        forms.end_relist();
        assert_eq!(
            forms.form_for(&running, digest(&running.template.value())),
            None,
            "js0 was not listed again"
        );
        assert!(forms.form_for(&other_job, digest(&form.value())).is_some());
        forms.forget(&other);
        assert_eq!(forms.form_for(&other_job, digest(&form.value())), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

        /// The digest path (each Job reduced as it is read, matched by digest against its
        /// JobSet's form, before or after the JobSet is known) gives every Job the template
        /// the full path gives it, and the same drift, on random templates and drifts.
        #[test]
        fn the_digest_path_finds_what_the_full_comparison_finds(case in fleet_case()) {
            let reducer = Reducer::default();
            let mut reduced = Vec::new();
            let mut full = Vec::new();
            let mut jobsets = Vec::new();
            for (n, (rjobs, jobs_first)) in case.into_iter().enumerate() {
                let mut builder = testing::jobset(&format!("js{n}")).namespace("ml").uid(&format!("uid-{n}"));
                for (r, (template, _)) in rjobs.iter().enumerate() {
                    builder = builder.replicated_job(&format!("rj{r}"), 1, template.clone());
                }
                let jobset = builder.build();
                let mut jobs = Vec::new();
                for (r, (template, live)) in rjobs.iter().enumerate() {
                    for (index, drifted) in live.iter().enumerate() {
                        jobs.push(live_job(&jobset, &format!("rj{r}"), index, drifted.as_ref().unwrap_or(template)));
                    }
                }
                if !jobs_first {
                    reducer.learn(&jobset);
                }
                for job in &jobs {
                    reduced.push(reducer.reduce(job.clone()));
                    full.push(normalize_child(job.clone()));
                }
                if jobs_first {
                    reducer.learn(&jobset);
                }
                jobsets.push(jobset);
            }
            let settled = reducer.settle(reduced);
            for (digest_path, full_path) in settled.iter().zip(&full) {
                prop_assert_eq!(&*digest_path.template, &*full_path.template, "{}", full_path.name());
            }
            // The digest path's comparison takes the forms the read learnt; the full one
            // builds them again.
            let by_digest = Fleet { client_forms: reducer.take_forms(), ..Fleet::new(jobsets.clone(), settled, Vec::new()) };
            let by_full = Fleet::new(jobsets.clone(), full, Vec::new());
            for jobset in &jobsets {
                for rjob in &jobset.spec.replicated_jobs {
                    prop_assert!(by_digest.client_form(jobset, &rjob.name).is_some());
                    prop_assert!(by_full.client_form(jobset, &rjob.name).is_none());
                }
                prop_assert_eq!(drift_json(jobset, &by_digest), drift_json(jobset, &by_full));
            }
        }
    }

    /// The comparison takes the forms a read learnt only for the version of the JobSet
    /// it read: a JobSet read again (`reread_torn`) has its forms built anew.
    #[test]
    fn carried_forms_are_for_the_version_read() {
        let read = testing::jobset("js")
            .namespace("ml")
            .uid("u")
            .resource_version("7")
            .replicated_job("w", 1, testing::pod_template("app:v1"))
            .build();
        let reducer = Reducer::default();
        reducer.learn(&read);
        let fleet =
            Fleet { client_forms: reducer.take_forms(), ..Fleet::new(vec![read.clone()], vec![], vec![]) };
        let form = fleet.client_form(&read, "w").expect("the read's form");
        let client =
            crate::observe::defaulter::client_expected(&read, &read.spec.replicated_jobs[0].template.value());
        assert_eq!(*form.template, client.template);
        assert_eq!((form.parallelism, form.completions), (client.parallelism, client.completions));
        assert!(fleet.client_form(&read, "other").is_none());
        let newer = testing::jobset("js")
            .namespace("ml")
            .uid("u")
            .resource_version("8")
            .replicated_job("w", 1, testing::pod_template("app:v2"))
            .build();
        assert!(fleet.client_form(&newer, "w").is_none(), "a newer version's forms are not the read's");
    }

    #[test]
    fn job_selector() {
        assert_eq!(label_selector_for(labels::JOBSET_NAME, &[]), "jobset.sigs.k8s.io/jobset-name");
        assert_eq!(
            label_selector_for(labels::JOBSET_NAME, &["a".into(), "b".into()]),
            "jobset.sigs.k8s.io/jobset-name in (a,b)"
        );
    }
}
