//! The handover journal: a ConfigMap written before the first change, where a rerun
//! finds it. It holds the old JobSet whole, the new templates, what to adopt and how
//! far the handover got. Pure: building it and reading it back, no I/O.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::history::{JOBSET_LABEL, Templates};

/// `kubectl-jobset-handover-<jobset>` in the JobSet's namespace.
pub const NAME_PREFIX: &str = "kubectl-jobset-handover-";
/// Marks our journals (with the JobSet's name in `kubectl-jobset.io/jobset-name`).
pub const HANDOVER_LABEL: &str = "kubectl-jobset.io/handover";
/// Version of the journal's layout; a journal of another version is not resumed.
pub const FORMAT: &str = "handover/v1";

const KEY_JOBSET: &str = "jobset.json";
const KEY_TEMPLATES: &str = "templates.json";
const KEY_PROGRESS: &str = "progress.json";

pub fn name(jobset: &str) -> String {
    format!("{NAME_PREFIX}{jobset}")
}

/// One object the old JobSet owned, to be owned by the new one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owned {
    pub name: String,
    pub uid: String,
}

/// What the journal says besides the two big documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub format: String,
    /// What the user ran, e.g. `rollback train --to-revision 2`: a rerun after the
    /// JobSet is gone can only be matched by it.
    pub intent: String,
    pub old_uid: String,
    pub started_at: String,
    /// The last step known done (informative: a rerun judges from the cluster).
    pub done: Vec<String>,
    /// The headless Service the old JobSet controlled, if any.
    #[serde(default)]
    pub service: Option<Owned>,
    /// Our ControllerRevisions (its history).
    #[serde(default)]
    pub revisions: Vec<Owned>,
    /// The Jobs the old JobSet controlled when the handover began, by name and uid: how
    /// they are found again once the orphaning delete has removed their owner reference
    /// (their jobset-uid label may name an object from an earlier handover).
    #[serde(default)]
    pub jobs: Vec<Owned>,
}

/// The whole journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Journal {
    pub progress: Progress,
    /// The old JobSet as read before anything changed (no managedFields).
    pub jobset: Value,
    /// The new templates, by replicatedJob name.
    pub templates: Templates,
    /// The ConfigMap's resourceVersion, for guarded updates (empty before it is stored).
    pub resource_version: String,
}

impl Journal {
    pub fn jobset_name(&self) -> &str {
        self.jobset["metadata"]["name"].as_str().unwrap_or_default()
    }

    pub fn namespace(&self) -> &str {
        self.jobset["metadata"]["namespace"].as_str().unwrap_or_default()
    }

    /// The ConfigMap that stores it (without a resourceVersion: the caller guards).
    pub fn to_configmap(&self) -> ConfigMap {
        let templates: Vec<Value> =
            self.templates.iter().map(|(n, t)| serde_json::json!({"name": n, "template": t})).collect();
        let data: BTreeMap<String, String> = [
            (KEY_JOBSET, self.jobset.to_string()),
            (KEY_TEMPLATES, Value::Array(templates).to_string()),
            (KEY_PROGRESS, serde_json::to_string(&self.progress).unwrap_or_default()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let labels = [(HANDOVER_LABEL, "true"), (JOBSET_LABEL, self.jobset_name())];
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name(self.jobset_name())),
                namespace: Some(self.namespace().to_owned()),
                labels: Some(labels.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()),
                resource_version: (!self.resource_version.is_empty()).then(|| self.resource_version.clone()),
                ..Default::default()
            },
            data: Some(data),
            ..Default::default()
        }
    }

    /// Reads a stored journal; `Err` says what is wrong with it.
    pub fn from_configmap(stored: &ConfigMap) -> Result<Journal, BadJournal> {
        let name = stored.metadata.name.clone().unwrap_or_default();
        let data = stored.data.clone().unwrap_or_default();
        let field = |key: &'static str| -> Result<Value, BadJournal> {
            let text = data.get(key).ok_or_else(|| BadJournal::Missing { name: name.clone(), key })?;
            serde_json::from_str(text).map_err(|source| BadJournal::NotJson {
                name: name.clone(),
                key,
                source,
            })
        };
        let progress: Progress = serde_json::from_value(field(KEY_PROGRESS)?)
            .map_err(|source| BadJournal::Progress { name: name.clone(), source })?;
        if progress.format != FORMAT {
            return Err(BadJournal::Format { name, found: progress.format });
        }
        let templates = field(KEY_TEMPLATES)?
            .as_array()
            .ok_or_else(|| BadJournal::NotAList { name: name.clone() })?
            .iter()
            .map(|t| match (t["name"].as_str(), t.get("template")) {
                (Some(n), Some(template)) => Ok((n.to_owned(), template.clone())),
                _ => Err(BadJournal::Entry { name: name.clone() }),
            })
            .collect::<Result<Templates, BadJournal>>()?;
        Ok(Journal {
            progress,
            jobset: field(KEY_JOBSET)?,
            templates,
            resource_version: stored.metadata.resource_version.clone().unwrap_or_default(),
        })
    }
}

/// What is wrong with a stored journal (named, never resumed).
#[derive(Debug, thiserror::Error)]
pub enum BadJournal {
    #[error("configmap {name} has no {key}")]
    Missing { name: String, key: &'static str },
    #[error("configmap {name}: {key} is not JSON: {source}")]
    NotJson {
        name: String,
        key: &'static str,
        #[source]
        source: serde_json::Error,
    },
    #[error("configmap {name}: {KEY_PROGRESS}: {source}")]
    Progress {
        name: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("configmap {name} is a journal of format {found:?}, this kubectl-jobset reads {FORMAT:?}")]
    Format { name: String, found: String },
    #[error("configmap {name}: {KEY_TEMPLATES} is not a list")]
    NotAList { name: String },
    #[error("configmap {name}: {KEY_TEMPLATES} has an entry without name or template")]
    Entry { name: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn journal() -> Journal {
        Journal {
            progress: Progress {
                format: FORMAT.into(),
                intent: "rollback train --to-revision 1".into(),
                old_uid: "u1".into(),
                started_at: "2026-12-01T00:00:00Z".into(),
                done: vec!["journal".into()],
                service: Some(Owned { name: "train".into(), uid: "s1".into() }),
                revisions: vec![Owned { name: "train-abc".into(), uid: "r1".into() }],
                jobs: vec![Owned { name: "train-workers-0".into(), uid: "j1".into() }],
            },
            jobset: json!({"metadata": {"name": "train", "namespace": "ml", "uid": "u1"}, "spec": {"x": 1}}),
            templates: vec![("workers".into(), json!({"spec": {"parallelism": 2}}))],
            resource_version: String::new(),
        }
    }

    #[test]
    fn round_trips_through_its_configmap() {
        let j = journal();
        let mut cm = j.to_configmap();
        assert_eq!(cm.metadata.name.as_deref(), Some("kubectl-jobset-handover-train"));
        assert_eq!(cm.metadata.namespace.as_deref(), Some("ml"));
        assert_eq!(cm.metadata.labels.as_ref().unwrap()[JOBSET_LABEL], "train");
        assert_eq!(cm.metadata.resource_version, None);
        cm.metadata.resource_version = Some("42".into());
        let back = Journal::from_configmap(&cm).unwrap();
        assert_eq!(back, Journal { resource_version: "42".into(), ..j });
    }

    #[test]
    fn a_damaged_or_foreign_journal_is_named_not_resumed() {
        let mut cm = journal().to_configmap();
        cm.data.as_mut().unwrap().insert(KEY_TEMPLATES.into(), "[{}]".into());
        let why = |cm: &ConfigMap| Journal::from_configmap(cm).unwrap_err().to_string();
        assert_eq!(
            why(&cm),
            "configmap kubectl-jobset-handover-train: templates.json has an entry without name or template"
        );
        let mut cm = journal().to_configmap();
        cm.data.as_mut().unwrap().remove(KEY_JOBSET);
        assert_eq!(why(&cm), "configmap kubectl-jobset-handover-train has no jobset.json");
        let mut j = journal();
        j.progress.format = "handover/v0".into();
        assert_eq!(
            why(&j.to_configmap()),
            "configmap kubectl-jobset-handover-train is a journal of format \"handover/v0\", this kubectl-jobset \
             reads \"handover/v1\""
        );
        let mut cm = journal().to_configmap();
        cm.data.as_mut().unwrap().insert(KEY_PROGRESS.into(), "{".into());
        let error = Journal::from_configmap(&cm).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("configmap kubectl-jobset-handover-train: progress.json is not JSON: ")
        );
        assert!(std::error::Error::source(&error).is_some(), "the JSON error is kept");
    }
}
