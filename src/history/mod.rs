//! Template history, stored as `apps/v1` ControllerRevisions labelled with the JobSet's
//! name and uid (as StatefulSets keep theirs). One revision per distinct set of
//! replicatedJob templates; this module is the pure part: the storage format, numbering,
//! selection and the plan of writes that records what a command observed.
//!
//! A revision belongs to a JobSet by an ownerReference to it, or (with no JobSet owner)
//! by its `jobset-uid` label. Commands write owned revisions (the garbage collector
//! deletes them with the JobSet); the recorder writes and releases them without an owner,
//! so that they outlive the JobSet for its retention (`retention`).
//!
//! Keys we invent live under `kubectl-jobset.io/`; `jobset.sigs.k8s.io/` belongs to the
//! JobSet controller. The change cause uses the standard `kubernetes.io/change-cause`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use std::hash::Hasher;

use json_patch::Patch;
use serde_json::{Value, json};

use crate::diff::digest::Digest;
use crate::model::jobset::{API_VERSION, JobSet, KIND};
use crate::model::patch::{add, pointer, remove, replace, test, test_resource_version};
use crate::model::resource_version;

pub mod deleted;
pub mod rebuilt;
pub mod retention;
pub mod view;
pub use view::{View, bad_revision};

pub const PREFIX: &str = "kubectl-jobset.io/";
/// Label: the JobSet's name (revisions are listed by it).
pub const JOBSET_LABEL: &str = "kubectl-jobset.io/jobset-name";
/// Label: the JobSet's uid, so that a revision without an owner (kept after its JobSet
/// was deleted) still says whose it is.
pub const UID_LABEL: &str = "kubectl-jobset.io/jobset-uid";
/// Annotation: when the recorder saw the JobSet gone (RFC 3339); set once.
pub const DELETED_ANNOTATION: &str = "kubectl-jobset.io/jobset-deleted-at";
/// Annotation: when the recorder prunes the revision (`DELETED_ANNOTATION` plus its
/// `--history-retention`), so that commands can say it.
pub const PRUNE_ANNOTATION: &str = "kubectl-jobset.io/prune-at";
/// Label: the template hash that names the revision.
pub const HASH_LABEL: &str = "kubectl-jobset.io/template-hash";
/// Annotation: restart attempts in which Jobs were seen running this revision (`0-2,5`).
pub const ATTEMPTS_ANNOTATION: &str = "kubectl-jobset.io/restart-attempts";
/// Annotation: when the revision was first recorded (RFC 3339).
pub const RECORDED_ANNOTATION: &str = "kubectl-jobset.io/recorded-at";
/// Annotation: `spec` (copied from the JobSet spec) or `running-jobs` (rebuilt from Jobs
/// that ran a template never recorded, so it includes server defaults).
pub const SOURCE_ANNOTATION: &str = "kubectl-jobset.io/source";
/// Annotation: the JobSet's resourceVersion when its spec was last seen holding these
/// templates (set when a writer records them as the spec's, and when it renumbers them as
/// the newest again). A writer whose view of the JobSet is older than another revision's
/// (a slow watch, or a second look after someone else recorded a newer template) does not
/// take the template it saw for a rollback.
pub const SPEC_SEEN_ANNOTATION: &str = "kubectl-jobset.io/spec-resource-version";
/// Annotation: the data format, so that revisions written by others are not misread.
pub const FORMAT_ANNOTATION: &str = "kubectl-jobset.io/format";
pub const FORMAT: &str = "replicated-job-templates/v1";
pub const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";

/// The replicatedJobs' names and templates, as they stand in the spec.
pub type Templates = Vec<(String, Value)>;

/// A revision's templates, held as compact JSON with the digest of their canonical data
/// and parsed the first time they are read. A fleet read holds every JobSet's history,
/// where trees weigh several times their text, and most of it is only ever compared with
/// the spec, which the digest settles (`same_as`).
pub struct HeldTemplates {
    text: Box<str>,
    digest: Digest,
    parsed: std::sync::OnceLock<Templates>,
}

impl HeldTemplates {
    pub fn new(templates: Templates) -> Self {
        let text = serde_json::to_string(&templates).expect("JSON values always serialize");
        HeldTemplates { text: text.into(), digest: digest_of(&templates), parsed: std::sync::OnceLock::new() }
    }

    /// `same_templates_in_order` with templates whose `digest_of` is `digest`, without
    /// reading these.
    pub fn same_as(&self, digest: Digest) -> bool {
        self.digest == digest
    }

    pub fn into_templates(self) -> Templates {
        match self.parsed.into_inner() {
            Some(parsed) => parsed,
            None => serde_json::from_str(&self.text).expect("held templates are our own JSON"),
        }
    }
}

impl std::ops::Deref for HeldTemplates {
    type Target = Templates;
    fn deref(&self) -> &Templates {
        self.parsed.get_or_init(|| serde_json::from_str(&self.text).expect("held templates are our own JSON"))
    }
}

impl Clone for HeldTemplates {
    fn clone(&self) -> Self {
        // The copy is parsed again if read: most are never read.
        HeldTemplates { text: self.text.clone(), digest: self.digest, parsed: std::sync::OnceLock::new() }
    }
}

/// Equal templates in order (`same_templates_in_order`), by digest.
impl PartialEq for HeldTemplates {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

impl PartialEq<Templates> for HeldTemplates {
    fn eq(&self, other: &Templates) -> bool {
        **self == *other
    }
}

impl std::fmt::Debug for HeldTemplates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl From<Templates> for HeldTemplates {
    fn from(templates: Templates) -> Self {
        HeldTemplates::new(templates)
    }
}

/// The digest of templates' canonical data: equal for `same_templates_in_order` ones.
pub fn digest_of(templates: &Templates) -> Digest {
    crate::diff::digest::digest_of_written(|mut out| write_canonical_data(&mut out, templates))
}

#[derive(Debug, Clone, PartialEq)]
pub struct Revision {
    pub name: String,
    pub number: i64,
    pub hash: String,
    pub templates: HeldTemplates,
    pub attempts: BTreeSet<i32>,
    pub change_cause: Option<String>,
    pub recorded_at: Option<String>,
    pub source: String,
    /// Rebuilt from running Jobs and cleaned of what the controller injected.
    pub cleaned: bool,
    pub resource_version: String,
    /// The raw `attempts` annotation, for `test` ops.
    raw_attempts: Option<String>,
    /// The JobSet's resourceVersion when it last held these templates (`SPEC_SEEN_ANNOTATION`).
    pub spec_seen: Option<String>,
    /// The index of the ownerReference to the JobSet it was read for, if it has one.
    pub owner_index: Option<usize>,
    /// The `jobset-uid` label, if any.
    pub uid_label: Option<String>,
    /// When the recorder saw its JobSet deleted, and when it prunes it (RFC 3339).
    pub deleted_at: Option<String>,
    pub prune_at: Option<String>,
    /// Not stored: what recording would write, shown by a command that only reads
    /// (`preview`). Stored revisions it would only amend stay as stored otherwise.
    pub unrecorded: bool,
}

impl Revision {
    /// A replicatedJob's template in this revision; null if it has none.
    pub fn template(&self, rjob: &str) -> Value {
        self.templates.iter().find(|(n, _)| n == rjob).map(|(_, t)| t.clone()).unwrap_or(Value::Null)
    }
}

/// The templates of a JobSet's spec, losslessly (raw JSON).
pub fn templates_of(jobset: &JobSet) -> Templates {
    jobset.spec.replicated_jobs.iter().map(|r| (r.name.clone(), r.template.value())).collect()
}

/// The digest and hash of a JobSet's spec templates, read once for every step of a
/// command that compares with them (`templates_of` parses the spec anew each time). Not
/// the templates: a fleet's worth of parsed trees would outweigh the fleet read; the few
/// steps that need them read them again.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecSums {
    /// `digest_of(&templates_of(jobset))`.
    pub digest: Digest,
    /// `hash(&templates_of(jobset))`.
    pub hash: String,
}

impl SpecSums {
    pub fn of(jobset: &JobSet) -> Self {
        /// Both sums fed the same canonical bytes as they are written (nothing buffered).
        struct Tee<'a>(&'a mut dyn std::io::Write, &'a mut fnv::FnvHasher);
        impl std::io::Write for Tee<'_> {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.write_all(bytes)?;
                self.1.write(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let templates = templates_of(jobset);
        let mut fnv = fnv::FnvHasher::default();
        let digest = crate::diff::digest::digest_of_written(|out| {
            write_canonical_data(&mut Tee(out, &mut fnv), &templates)
        });
        SpecSums { digest, hash: hash_text(fnv.finish()) }
    }
}

/// Canonical JSON: object keys sorted, so equal templates hash equally.
pub use crate::diff::digest::canonical;

/// 10 hex digits of FNV-1a (64-bit) over the canonical data: stable across versions.
pub fn hash(templates: &Templates) -> String {
    let mut hasher = crate::diff::digest::HashWriter([fnv::FnvHasher::default()]);
    write_canonical_data(&mut hasher, templates).expect("hashing does not fail");
    hash_text(hasher.0[0].finish())
}

fn hash_text(fnv: u64) -> String {
    format!("{fnv:016x}")[..10].to_owned()
}

/// `canonical(&data(templates))`, written without building `data` (a copy of every
/// template): `{"replicatedJobs":[{"name":…,"template":…},…]}`, keys in sorted order.
fn write_canonical_data(out: &mut impl std::io::Write, templates: &Templates) -> std::io::Result<()> {
    out.write_all(br#"{"replicatedJobs":["#)?;
    for (i, (name, template)) in templates.iter().enumerate() {
        out.write_all(if i == 0 { br#"{"name":"# } else { br#",{"name":"# })?;
        serde_json::to_writer(&mut *out, name)?;
        out.write_all(br#","template":"#)?;
        crate::diff::digest::write_canonical(out, template)?;
        out.write_all(b"}")?;
    }
    out.write_all(b"]}")
}

/// The `data` of a revision: `{"replicatedJobs": [{name, template}, ...]}`, as stored
/// and as `history --revision` prints it.
pub fn data(templates: &Templates) -> Value {
    json!({"replicatedJobs": templates.iter().map(|(name, t)| json!({"name": name, "template": t})).collect::<Vec<_>>()})
}

/// Equal templates, replicatedJob by replicatedJob in the same order (key order within a
/// template does not matter): the spec's order is part of a revision, as the controller
/// creates Jobs in it.
pub fn same_templates_in_order(a: &Templates, b: &Templates) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((na, ta), (nb, tb))| na == nb && canonical(ta) == canonical(tb))
}

/// Equal templates in the same order but for each Job's parallelism and completions:
/// scale, which the drift engine reports apart from the template (`ScaleChange`) and the
/// controller may change on running Jobs.
pub fn same_templates_but_scale(a: &Templates, b: &Templates) -> bool {
    fn unscaled(template: &Value) -> String {
        let mut template = template.clone();
        if let Some(spec) = template.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("parallelism");
            spec.remove("completions");
        }
        canonical(&template)
    }
    a.len() == b.len() && a.iter().zip(b).all(|((na, ta), (nb, tb))| na == nb && unscaled(ta) == unscaled(tb))
}

/// Equal templates for the same replicatedJob names, in any order: what a handover's
/// journal holds is a set of templates by name, not a spec.
pub fn same_templates_by_name(a: &Templates, b: &Templates) -> bool {
    fn sorted(t: &Templates) -> Vec<(&str, String)> {
        let mut v: Vec<(&str, String)> = t.iter().map(|(n, t)| (n.as_str(), canonical(t))).collect();
        v.sort();
        v
    }
    sorted(a) == sorted(b)
}

/// The number of the revision holding the JobSet's spec, if recorded.
pub fn spec_revision(revisions: &[Revision], spec: Digest) -> Option<i64> {
    revisions.iter().find(|r| r.templates.same_as(spec)).map(|r| r.number)
}

/// `0-2,5` from {0,1,2,5}.
pub fn format_attempts(attempts: &BTreeSet<i32>) -> String {
    crate::runs::runs(attempts.iter().map(|&a| i64::from(a)), "-")
}

/// Parses `0-2,5`; anything unreadable is skipped.
pub fn parse_attempts(text: &str) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<i32>(), b.parse::<i32>())
                    && a <= b
                    && b - a < 100_000
                {
                    out.extend(a..=b);
                }
            }
            None => {
                if let Ok(a) = part.parse() {
                    out.insert(a);
                }
            }
        }
    }
    out
}

/// Why a ControllerRevision under our labels is not read as one of a JobSet's revisions
/// (each is warned about, then ignored).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnreadableRevision {
    #[error("controllerrevision {name} does not belong to this JobSet")]
    NotOwned { name: String },
    #[error("controllerrevision {name} carries kubectl-jobset labels but not our data format; ignored")]
    OtherFormat { name: String },
    #[error("controllerrevision {name} has no replicatedJobs in its data; ignored")]
    NoTemplates { name: String },
    #[error("controllerrevision {name} has corrupt data; ignored")]
    Corrupt { name: String },
    #[error("controllerrevision {name} has no revision number; ignored")]
    Unnumbered { name: String },
}

/// The `jobset-uid` label of a stored revision.
pub fn uid_label(stored: &ControllerRevision) -> Option<&str> {
    stored.metadata.labels.as_ref()?.get(UID_LABEL).map(String::as_str)
}

/// Whether a stored revision has an ownerReference to a JobSet.
pub(crate) fn has_jobset_owner(stored: &ControllerRevision) -> bool {
    stored.metadata.owner_references.iter().flatten().any(|o| o.kind == KIND)
}

/// The uids of the JobSets a stored revision belongs to: its owners', or (when no JobSet
/// owns it, e.g. kept by the recorder, or orphaned) the one its `jobset-uid` label names.
/// An owner wins over the label: a handover's new JobSet adopts revisions labelled with
/// the old uid.
pub fn belongs_to(stored: &ControllerRevision) -> Vec<&str> {
    let mut uids: Vec<&str> =
        stored.metadata.owner_references.iter().flatten().map(|o| o.uid.as_str()).collect();
    if !has_jobset_owner(stored)
        && let Some(uid) = uid_label(stored)
        && !uids.contains(&uid)
    {
        uids.push(uid);
    }
    uids
}

/// Reads one of our ControllerRevisions as JobSet `uid`'s; `Err` says why it is ignored.
pub fn parse(stored: &ControllerRevision, uid: &str) -> Result<Revision, UnreadableRevision> {
    let meta = &stored.metadata;
    let name = meta.name.clone().unwrap_or_else(|| "<unnamed>".into());
    if !belongs_to(stored).contains(&uid) {
        return Err(UnreadableRevision::NotOwned { name });
    }
    let owner_index = meta.owner_references.iter().flatten().position(|r| r.uid == uid);
    let text = |key: &str| meta.annotations.as_ref().and_then(|a| a.get(key)).cloned();
    if text(FORMAT_ANNOTATION).as_deref() != Some(FORMAT) {
        return Err(UnreadableRevision::OtherFormat { name });
    }
    let templates = match data_of(stored) {
        Some(data) => parse_templates(&name, &data)?,
        None => return Err(UnreadableRevision::Corrupt { name }),
    };
    if stored.revision <= 0 {
        return Err(UnreadableRevision::Unnumbered { name });
    }
    let label = meta.labels.as_ref().and_then(|l| l.get(HASH_LABEL)).cloned();
    Ok(Revision {
        number: stored.revision,
        hash: label.unwrap_or_else(|| hash(&templates)),
        attempts: text(ATTEMPTS_ANNOTATION).map(|a| parse_attempts(&a)).unwrap_or_default(),
        raw_attempts: text(ATTEMPTS_ANNOTATION),
        spec_seen: text(SPEC_SEEN_ANNOTATION),
        change_cause: text(CHANGE_CAUSE).filter(|c| !c.is_empty()),
        recorded_at: text(RECORDED_ANNOTATION),
        source: text(SOURCE_ANNOTATION).unwrap_or_else(|| "spec".into()),
        cleaned: text(rebuilt::CLEANED_ANNOTATION).as_deref() == Some("true"),
        resource_version: meta.resource_version.clone().unwrap_or_default(),
        owner_index,
        uid_label: uid_label(stored).map(str::to_owned),
        deleted_at: text(DELETED_ANNOTATION),
        prune_at: text(PRUNE_ANNOTATION),
        unrecorded: false,
        templates: HeldTemplates::new(templates),
        name,
    })
}

/// A stored revision's data. A store that keeps revisions for long (the recorder's)
/// holds it as its compact JSON text, a string (`compact_data`): a fraction of the
/// tree. None: that text does not parse.
pub fn data_of(stored: &ControllerRevision) -> Option<std::borrow::Cow<'_, Value>> {
    use std::borrow::Cow;
    match stored.data.as_ref().map(|d| &d.0) {
        Some(Value::String(text)) => serde_json::from_str(text).ok().map(Cow::Owned),
        Some(data) => Some(Cow::Borrowed(data)),
        None => Some(Cow::Owned(Value::Null)),
    }
}

/// Replaces a revision's data by its compact JSON text (see `data_of`), for a store
/// that holds many for long and reads few at a time.
pub fn compact_data(stored: &mut ControllerRevision) {
    if let Some(data) = stored.data.as_mut().filter(|d| !d.0.is_string()) {
        data.0 = Value::String(data.0.to_string());
    }
}

/// `data.replicatedJobs` of a revision, or why it cannot be read.
fn parse_templates(name: &str, data: &Value) -> Result<Templates, UnreadableRevision> {
    let items = data["replicatedJobs"]
        .as_array()
        .ok_or_else(|| UnreadableRevision::NoTemplates { name: name.to_owned() })?;
    items
        .iter()
        .map(|item| match (item["name"].as_str(), item.get("template").filter(|t| t.is_object())) {
            (Some(rjob), Some(template)) => Ok((rjob.to_owned(), template.clone())),
            _ => Err(UnreadableRevision::Corrupt { name: name.to_owned() }),
        })
        .collect()
}

/// Who holds a stored revision under our labels: enough to tell a JobSet's own from
/// another object's of the same name (e.g. left behind by a JobSet deleted with
/// `--cascade=orphan`, whose owner reference the garbage collector then removed).
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub namespace: String,
    pub name: String,
    /// The JobSet name in our label.
    pub jobset: String,
    /// `(kind, name, uid)` of each owner.
    pub owners: Vec<(String, String, String)>,
    /// The `jobset-uid` label.
    pub uid: Option<String>,
}

impl Holder {
    pub fn of(stored: &ControllerRevision) -> Holder {
        let meta = &stored.metadata;
        Holder {
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: meta.name.clone().unwrap_or_default(),
            jobset: meta.labels.as_ref().and_then(|l| l.get(JOBSET_LABEL)).cloned().unwrap_or_default(),
            owners: meta
                .owner_references
                .iter()
                .flatten()
                .map(|o| (o.kind.clone(), o.name.clone(), o.uid.clone()))
                .collect(),
            uid: uid_label(stored).map(str::to_owned),
        }
    }

    /// Labelled for `jobset`'s name but not its (by owner, or by uid label when no
    /// JobSet owns it).
    pub fn is_foreign_to(&self, jobset: &JobSet) -> bool {
        let owned_by_a_jobset = self.owners.iter().any(|(kind, _, _)| kind == KIND);
        let belongs = self.owners.iter().any(|(_, _, uid)| uid == jobset.uid())
            || (!owned_by_a_jobset && self.uid.as_deref() == Some(jobset.uid()));
        self.namespace == jobset.namespace() && self.jobset == jobset.name() && !belongs
    }

    /// History kept after its JobSet was deleted: no owner, and the uid of a JobSet that
    /// is not this one. A JobSet created again under the same name meets it as a matter
    /// of course, so it is not warned about (its names are still not free).
    pub fn is_kept_history(&self) -> bool {
        self.owners.is_empty() && self.uid.is_some()
    }

    /// The warning for a foreign revision: which object holds it, and what we do instead.
    pub fn warning(&self, jobset: &JobSet) -> String {
        let owner = match self.owners.as_slice() {
            [] => "no owner (its JobSet was probably deleted with --cascade=orphan)".to_owned(),
            owners => owners
                .iter()
                .map(|(kind, name, uid)| format!("{kind} {name} (uid {uid})"))
                .collect::<Vec<_>>()
                .join(", "),
        };
        format!(
            "controllerrevision {}/{} is labelled for jobset {} but owned by {owner}, not by this jobset \
             (uid {}): it is left alone, and this jobset's history is recorded under other names \
             (delete it if it is no longer needed)",
            self.namespace,
            self.name,
            jobset.name(),
            jobset.uid()
        )
    }
}

/// A revision number that names no recorded revision, with the ones recorded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}; {}", asked_for(*asked), recorded(known))]
pub struct UnknownRevision {
    /// As given: positive, or negative to count back.
    pub asked: i64,
    /// The recorded revision numbers, in order.
    pub known: Vec<i64>,
}

fn asked_for(n: i64) -> String {
    if n == 0 {
        "revisions start at 1 (negative numbers count back: -1 is the newest)".to_owned()
    } else {
        format!("revision {n} does not exist")
    }
}

fn recorded(known: &[i64]) -> String {
    if known.is_empty() {
        "no revisions are recorded".to_owned()
    } else {
        let known: Vec<String> = known.iter().map(i64::to_string).collect();
        format!("recorded revisions: {}", known.join(", "))
    }
}

/// Picks revision `n`: positive is the number itself, negative counts back from the
/// newest (-1 is the newest). 0 is not a revision.
pub fn select(revisions: &[Revision], n: i64) -> Result<&Revision, UnknownRevision> {
    let mut sorted: Vec<&Revision> = revisions.iter().collect();
    sorted.sort_by_key(|r| r.number);
    let found = match n {
        0 => None,
        n if n > 0 => sorted.iter().copied().find(|r| r.number == n),
        n => sorted.len().checked_sub(n.unsigned_abs() as usize).and_then(|i| sorted.get(i).copied()),
    };
    found.ok_or_else(|| UnknownRevision { asked: n, known: sorted.iter().map(|r| r.number).collect() })
}

/// What the running Jobs of the current attempt turned out to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Running {
    /// No current Jobs to look at (not created yet, suspended, finished).
    Unknown,
    /// The spec's templates.
    Spec,
    /// The templates of an existing revision (by name).
    Revision(String),
    /// Templates no revision holds, rebuilt from the running Jobs.
    Rebuilt(Templates),
}

/// One write to the revision store.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    Create(Box<ControllerRevision>),
    /// JSON patch of a revision.
    Patch {
        name: String,
        ops: Patch,
    },
    /// Delete, guarded by resourceVersion.
    Delete {
        name: String,
        resource_version: String,
    },
}

/// A change cause to record on the spec's revision.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// Replaces any earlier cause (a rollback is why this template is back).
    Set(String),
    /// Only if the revision has none yet (a restart's reason).
    IfUnset(String),
}

impl Cause {
    fn text(&self) -> &str {
        match self {
            Cause::Set(t) | Cause::IfUnset(t) => t,
        }
    }

    /// The cause to write over `current`, if any.
    fn over(&self, current: Option<&String>) -> Option<&str> {
        match (self, current) {
            (Cause::Set(t), Some(c)) if c == t => None,
            (Cause::Set(t), _) => Some(t),
            (Cause::IfUnset(t), None) => Some(t),
            (Cause::IfUnset(_), Some(_)) => None,
        }
    }
}

/// What one command saw of one JobSet.
#[derive(Debug, Clone)]
pub struct Observation<'a> {
    pub jobset: &'a JobSet,
    /// `SpecSums::of(jobset)`.
    pub spec: SpecSums,
    pub running: Running,
    /// Change cause to record on the spec's revision (rollback, restart --reason).
    pub change_cause: Option<Cause>,
    pub history_limit: usize,
    pub now: String,
    /// Names of ControllerRevisions under this JobSet's label that another object owns
    /// (or none does): never ours to touch, and not free for a new revision.
    pub foreign: Vec<String>,
    /// The recorder's revisions outlive the JobSet: created without an ownerReference,
    /// and owned ones are released (the garbage collector would delete them with it).
    /// Commands keep the ownerReference: without a recorder, nothing would prune them.
    pub retain: bool,
}

impl Write {
    /// True when the write gives a revision a number (a create, or a renumbering).
    pub fn assigns_number(&self) -> bool {
        match self {
            Write::Create(_) => true,
            Write::Patch { ops, .. } => ops.iter().any(|op| op.path().as_str() == "/revision"),
            Write::Delete { .. } => false,
        }
    }
}

/// Revisions that share a number: two writers numbered at once, each past the highest
/// number it had read. All but the first of each group (by when it was recorded, then by
/// name) move past the highest number, each guarded by its current number. Every writer
/// that reads the same store plans the same moves, and the guards let one of them win.
pub fn renumber_duplicates(revisions: &[Revision]) -> Vec<Write> {
    let mut sorted: Vec<&Revision> = revisions.iter().collect();
    sorted.sort_by(|a, b| (a.number, &a.recorded_at, &a.name).cmp(&(b.number, &b.recorded_at, &b.name)));
    let mut max = revisions.iter().map(|r| r.number).max().unwrap_or(0);
    let mut writes = Vec::new();
    for pair in sorted.windows(2).filter(|pair| pair[0].number == pair[1].number) {
        max += 1;
        let ops = vec![test(pointer(&["revision"]), pair[1].number), replace(pointer(&["revision"]), max)];
        writes.push(Write::Patch { name: pair[1].name.clone(), ops: Patch(ops) });
    }
    writes
}

/// The writes that bring the recorded history up to date with an observation:
/// idempotent (nothing when already recorded) and guarded (`test` ops).
pub fn plan_writes(observed: &Observation, revisions: &[Revision]) -> Vec<Write> {
    let mut plan = Planner::new(observed, revisions);
    // The running templates first: they predate the spec's.
    let running = plan.record_running();
    let spec = plan.record_spec();
    plan.prune(&spec, running.as_deref());
    if observed.retain {
        plan.release();
    }
    plan.writes
}

/// `plan_writes`, or when the history already holds what was observed, the moves that
/// separate numbers two writers gave at once (`renumber_duplicates`): what a writer that
/// reads a watched store plans, since that store shows the other writer's revision.
pub fn plan_writes_or_renumber(observed: &Observation, revisions: &[Revision]) -> Vec<Write> {
    let writes = plan_writes(observed, revisions);
    if writes.is_empty() { renumber_duplicates(revisions) } else { writes }
}

/// The history as `plan_writes` would leave it, without writing: what a command that
/// only reads shows. Revisions it would create are marked `unrecorded` (with no recorded
/// time); numbers and attempts it would change on stored ones are shown changed; nothing
/// stored is hidden (its prune is the recording's business).
pub fn preview(observed: &Observation, revisions: Vec<Revision>) -> Vec<Revision> {
    let writes = plan_writes(observed, &revisions);
    let mut shown = revisions;
    for write in writes {
        match write {
            Write::Create(object) => {
                if let Ok(mut revision) = parse(&object, observed.jobset.uid()) {
                    revision.unrecorded = true;
                    revision.recorded_at = None;
                    shown.push(revision);
                }
            }
            Write::Patch { name, ops } => {
                if let Some(revision) = shown.iter_mut().find(|r| r.name == name) {
                    amend(revision, &ops);
                }
            }
            Write::Delete { .. } => {}
        }
    }
    shown.sort_by_key(|r| r.number);
    shown
}

/// Applies the parts of a planned patch that `Revision` shows: its number, attempts and
/// change cause (ownership and labels are not shown).
fn amend(revision: &mut Revision, ops: &Patch) {
    use json_patch::{AddOperation, PatchOperation, ReplaceOperation};
    for op in ops.iter() {
        let (PatchOperation::Add(AddOperation { path, value })
        | PatchOperation::Replace(ReplaceOperation { path, value })) = op
        else {
            continue;
        };
        let path = path.as_str();
        if path == "/revision" {
            revision.number = value.as_i64().unwrap_or(revision.number);
        } else if path == annotation_path(ATTEMPTS_ANNOTATION).as_str() {
            revision.attempts = value.as_str().map(parse_attempts).unwrap_or_default();
            revision.raw_attempts = value.as_str().map(str::to_owned);
        } else if path == annotation_path(CHANGE_CAUSE).as_str() {
            revision.change_cause = value.as_str().filter(|c| !c.is_empty()).map(str::to_owned);
        }
    }
}

/// The steps of `plan_writes`, sharing what the earlier steps planned: the numbers
/// they took and the revisions they create, which later steps number after and keep.
struct Planner<'a> {
    observed: &'a Observation<'a>,
    revisions: &'a [Revision],
    /// The spec's templates, read when a step needs more than `observed.spec`.
    spec: std::cell::OnceCell<Templates>,
    spec_digest: Digest,
    attempt: i32,
    /// The highest revision number, stored or planned.
    max: i64,
    created: Vec<Revision>,
    writes: Vec<Write>,
}

impl<'a> Planner<'a> {
    fn spec(&self) -> &Templates {
        self.spec.get_or_init(|| templates_of(self.observed.jobset))
    }

    fn new(observed: &'a Observation<'a>, revisions: &'a [Revision]) -> Self {
        Planner {
            observed,
            revisions,
            spec: std::cell::OnceCell::new(),
            spec_digest: observed.spec.digest,
            attempt: observed.jobset.attempt(),
            max: revisions.iter().map(|r| r.number).max().unwrap_or(0),
            created: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// The revision the running Jobs run, so that it records the current attempt:
    /// marked if stored, created if the Jobs run templates nobody recorded (unless
    /// they are the spec's, which `record_spec` records). Its name, if any.
    fn record_running(&mut self) -> Option<String> {
        let templates = match &self.observed.running {
            Running::Unknown | Running::Spec => return None,
            Running::Revision(name) => {
                let stored = self.revisions.iter().find(|r| &r.name == name)?;
                return Some(self.mark_attempt(stored));
            }
            Running::Rebuilt(templates) => templates,
        };
        if let Some(stored) = self.revisions.iter().find(|r| same_templates_in_order(&r.templates, templates))
        {
            return Some(self.mark_attempt(stored));
        }
        if same_templates_in_order(templates, self.spec()) {
            return None;
        }
        let number = self.next_number();
        let object = new_revision(
            self.observed,
            self.revisions,
            templates,
            number,
            Some("rebuilt from running Jobs (their template was never recorded)"),
            rebuilt::SOURCE,
            &BTreeSet::from([self.attempt]),
            &self.observed.now,
        );
        Some(self.create(object))
    }

    /// Adds the current attempt to a stored revision's attempts, if missing; its name.
    fn mark_attempt(&mut self, stored: &Revision) -> String {
        if let Some(ops) = add_attempt(stored, self.attempt) {
            self.writes.push(Write::Patch { name: stored.name.clone(), ops: Patch(ops) });
        }
        stored.name.clone()
    }

    /// The spec's revision: recorded, and the newest (renumbered if an older revision
    /// comes back), with the attempt if the spec runs and the change cause. Its name.
    fn record_spec(&mut self) -> String {
        let spec_runs = self.observed.running == Running::Spec;
        let Some(stored) = self.revisions.iter().find(|r| r.templates.same_as(self.spec_digest)) else {
            return self.create_spec(spec_runs);
        };
        let mut ops = Vec::new();
        if stored.number < self.max && !self.saw_newer_spec(stored) {
            let number = self.next_number();
            ops.push(test(pointer(&["revision"]), stored.number));
            ops.push(replace(pointer(&["revision"]), number));
            if let Some(seen) = self.observed.jobset.metadata.resource_version.as_deref() {
                ops.push(add(annotation_path(SPEC_SEEN_ANNOTATION), seen));
            }
        }
        if spec_runs && let Some(attempt_ops) = add_attempt(stored, self.attempt) {
            ops.extend(attempt_ops);
        }
        if let Some(cause) =
            self.observed.change_cause.as_ref().and_then(|c| c.over(stored.change_cause.as_ref()))
        {
            ops.push(add(annotation_path(CHANGE_CAUSE), cause));
        }
        if !ops.is_empty() {
            self.writes.push(Write::Patch { name: stored.name.clone(), ops: Patch(ops) });
        }
        stored.name.clone()
    }

    /// Whether another revision was recorded from a view of the JobSet at least as recent
    /// as this observation's: then the observation is out of date and `stored` has not
    /// come back. (Revisions recorded before `SPEC_SEEN_ANNOTATION` existed say nothing.)
    fn saw_newer_spec(&self, stored: &Revision) -> bool {
        let Some(observed) = self.observed.jobset.metadata.resource_version.as_deref() else {
            return false;
        };
        self.revisions.iter().filter(|r| r.name != stored.name).any(|r| {
            r.spec_seen
                .as_deref()
                .and_then(|seen| resource_version::order(seen, observed))
                .is_some_and(|o| o != std::cmp::Ordering::Less)
        })
    }

    /// A new revision for the spec's templates, which nobody recorded yet: the cause
    /// is the observation's, else the one the JobSet itself carries. Its name.
    fn create_spec(&mut self, spec_runs: bool) -> String {
        let jobset = self.observed.jobset;
        let number = self.next_number();
        let attempts = if spec_runs { BTreeSet::from([self.attempt]) } else { BTreeSet::new() };
        let cause = self.observed.change_cause.as_ref().map(Cause::text).or_else(|| {
            jobset.metadata.annotations.as_ref().and_then(|a| a.get(CHANGE_CAUSE)).map(String::as_str)
        });
        let mut object = new_revision(
            self.observed,
            self.revisions,
            self.spec(),
            number,
            cause,
            "spec",
            &attempts,
            &self.observed.now,
        );
        if let Some(seen) = jobset.metadata.resource_version.as_deref() {
            let annotations = object.metadata.annotations.get_or_insert_default();
            annotations.insert(SPEC_SEEN_ANNOTATION.to_owned(), seen.to_owned());
        }
        self.create(object)
    }

    /// Deletes the oldest revisions beyond the limit, never the spec's, the running one
    /// or one this plan creates: the history keeps what commands compare against.
    fn prune(&mut self, spec: &str, running: Option<&str>) {
        let mut all: Vec<&Revision> = self.revisions.iter().chain(self.created.iter()).collect();
        all.sort_by_key(|r| r.number);
        let excess = all.len().saturating_sub(self.observed.history_limit.max(1));
        let doomed = all
            .into_iter()
            .filter(|r| r.name != spec && Some(r.name.as_str()) != running)
            .filter(|r| !self.created.iter().any(|c| c.name == r.name))
            .take(excess);
        let deletes: Vec<Write> = doomed
            .map(|r| Write::Delete { name: r.name.clone(), resource_version: r.resource_version.clone() })
            .collect();
        self.writes.extend(deletes);
    }

    /// Releases the stored revisions the JobSet owns (not ones this plan deletes) into the
    /// recorder's retention: the ownerReference removed (guarded by its uid at that index)
    /// and the `jobset-uid` label set to the JobSet's (a handover's adopted revisions carry
    /// the earlier uid). Nothing for a revision already released.
    fn release(&mut self) {
        let uid = self.observed.jobset.uid();
        let deleted: Vec<&str> = self
            .writes
            .iter()
            .filter_map(|w| match w {
                Write::Delete { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let mut releases = Vec::new();
        for stored in self.revisions.iter().filter(|r| !deleted.contains(&r.name.as_str())) {
            let mut ops = Vec::new();
            if let Some(i) = stored.owner_index {
                let index = i.to_string();
                ops.push(test(pointer(&["metadata", "ownerReferences", &index, "uid"]), uid));
                ops.push(remove(pointer(&["metadata", "ownerReferences", &index])));
            }
            if stored.uid_label.as_deref() != Some(uid) {
                ops.push(add(pointer(&["metadata", "labels", UID_LABEL]), uid));
            }
            if !ops.is_empty() {
                releases.push(Write::Patch { name: stored.name.clone(), ops: Patch(ops) });
            }
        }
        self.writes.extend(releases);
    }

    /// The number after every stored and planned revision's.
    fn next_number(&mut self) -> i64 {
        self.max += 1;
        self.max
    }

    /// Plans the creation of `object`, which later steps then see; its name.
    fn create(&mut self, object: ControllerRevision) -> String {
        let name = object.metadata.name.clone().unwrap_or_default();
        self.created.push(parse(&object, self.observed.jobset.uid()).expect("our own format"));
        self.writes.push(Write::Create(Box::new(object)));
        name
    }
}

/// JSON patch ops adding `attempt` to a revision's attempts, or None if recorded.
fn add_attempt(revision: &Revision, attempt: i32) -> Option<Vec<json_patch::PatchOperation>> {
    if revision.attempts.contains(&attempt) {
        return None;
    }
    let mut attempts = revision.attempts.clone();
    attempts.insert(attempt);
    let path = annotation_path(ATTEMPTS_ANNOTATION);
    Some(match &revision.raw_attempts {
        Some(old) => vec![test(path.clone(), old.as_str()), replace(path, format_attempts(&attempts))],
        None => vec![
            test_resource_version(revision.resource_version.as_str()),
            add(path, format_attempts(&attempts)),
        ],
    })
}

/// `/metadata/annotations/<key>`, escaped by `jsonptr` (`/` → `~1`).
fn annotation_path(key: &str) -> json_patch::jsonptr::PointerBuf {
    pointer(&["metadata", "annotations", key])
}

/// A new ControllerRevision object for `templates`.
#[allow(clippy::too_many_arguments)]
fn new_revision(
    observed: &Observation,
    existing: &[Revision],
    templates: &Templates,
    number: i64,
    cause: Option<&str>,
    source: &str,
    attempts: &BTreeSet<i32>,
    now: &str,
) -> ControllerRevision {
    let jobset = observed.jobset;
    let hash = hash(templates);
    // A hash collision with different data, or a name another object holds, gets a
    // numbered name, as StatefulSets do.
    let mut name = format!("{}-{hash}", jobset.name());
    let mut collision = 0;
    while existing.iter().any(|r| r.name == name) || observed.foreign.contains(&name) {
        collision += 1;
        name = format!("{}-{hash}-{collision}", jobset.name());
    }
    let mut annotations: BTreeMap<String, String> =
        [(FORMAT_ANNOTATION, FORMAT), (RECORDED_ANNOTATION, now), (SOURCE_ANNOTATION, source)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
    if !attempts.is_empty() {
        annotations.insert(ATTEMPTS_ANNOTATION.to_owned(), format_attempts(attempts));
    }
    if source == rebuilt::SOURCE {
        annotations.insert(rebuilt::CLEANED_ANNOTATION.to_owned(), "true".to_owned());
    }
    if let Some(cause) = cause {
        annotations.insert(CHANGE_CAUSE.to_owned(), cause.to_owned());
    }
    let labels = [(JOBSET_LABEL, jobset.name()), (UID_LABEL, jobset.uid()), (HASH_LABEL, hash.as_str())];
    let owner = OwnerReference {
        api_version: API_VERSION.to_owned(),
        kind: KIND.to_owned(),
        name: jobset.name().to_owned(),
        uid: jobset.uid().to_owned(),
        ..Default::default()
    };
    ControllerRevision {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: Some(jobset.namespace().to_owned()),
            labels: Some(labels.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()),
            annotations: Some(annotations),
            owner_references: (!observed.retain).then(|| vec![owner]),
            ..Default::default()
        },
        data: Some(RawExtension(data(templates))),
        revision: number,
    }
}

#[cfg(test)]
mod tests;
