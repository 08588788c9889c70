//! The requests a handover makes (src/handover decides; this only talks to the API
//! server): the journal ConfigMap, the orphaning delete and the create of the JobSet,
//! guarded JSON patches of Jobs, the headless Service and revisions, access reviews,
//! and whether Kueue is served.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::Api;
use kube::api::{
    DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
};
use kube::discovery::ApiResource;
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::Value;

use super::Cluster;
use super::api::{FIELD_MANAGER, JOBS_RESOURCE, REVISIONS_RESOURCE};
use crate::error::{Error, JOBSET_RESOURCE, Op, Result};
use crate::model::jobset::{ChildJob, JobSet};

pub const CONFIGMAPS_RESOURCE: &str = "configmaps";
pub const SERVICES_RESOURCE: &str = "services";
pub const KUEUE_GROUP: &str = "kueue.x-k8s.io";
const WORKLOADS_RESOURCE: &str = "workloads.kueue.x-k8s.io";

fn params() -> PatchParams {
    PatchParams { field_manager: Some(FIELD_MANAGER.to_owned()), ..Default::default() }
}

fn post() -> PostParams {
    PostParams { dry_run: false, field_manager: Some(FIELD_MANAGER.to_owned()) }
}

impl Cluster {
    /// The ConfigMap `name`, or None when there is none.
    pub async fn get_configmap(&self, namespace: &str, name: &str) -> Result<Option<ConfigMap>> {
        let op = Op::new("get", CONFIGMAPS_RESOURCE, Some(namespace)).named(name);
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), namespace);
        api.get_opt(name).await.map_err(|e| self.errors.classify(op, e))
    }

    /// The ConfigMaps in `namespace` that carry the label `label` (any value).
    pub async fn list_configmaps(&self, namespace: &str, label: &str) -> Result<Vec<ConfigMap>> {
        let op = Op::new("list", CONFIGMAPS_RESOURCE, Some(namespace));
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), namespace);
        let params = kube::api::ListParams::default().labels(label);
        api.list(&params).await.map(|l| l.items).map_err(|e| self.errors.classify(op, e))
    }

    /// Creates a ConfigMap; fails (409 AlreadyExists, a Conflict) when the name is taken.
    pub async fn create_configmap(&self, namespace: &str, configmap: &ConfigMap) -> Result<ConfigMap> {
        let op = Op::new("create", CONFIGMAPS_RESOURCE, Some(namespace));
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), namespace);
        api.create(&post(), configmap).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Replaces a ConfigMap; guarded by the resourceVersion it carries.
    pub async fn replace_configmap(&self, namespace: &str, configmap: &ConfigMap) -> Result<ConfigMap> {
        let name = configmap.metadata.name.clone().unwrap_or_default();
        let op = Op::new("update", CONFIGMAPS_RESOURCE, Some(namespace)).named(&name);
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), namespace);
        api.replace(&name, &post(), configmap).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Deletes a ConfigMap only if it is still at `resource_version`; gone already is fine.
    pub async fn delete_configmap_if_unchanged(
        &self,
        namespace: &str,
        name: &str,
        resource_version: &str,
    ) -> Result<()> {
        let op = Op::new("delete", CONFIGMAPS_RESOURCE, Some(namespace)).named(name);
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), namespace);
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                resource_version: Some(resource_version.to_owned()),
                uid: None,
            }),
            ..Default::default()
        };
        match api.delete(name, &params).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(self.errors.classify(op, e)),
        }
    }

    /// The JobSet `name`, or None when there is none.
    pub async fn get_jobset_opt(&self, namespace: &str, name: &str) -> Result<Option<JobSet>> {
        let op = Op::new("get", JOBSET_RESOURCE, Some(namespace)).named(name);
        let api: Api<JobSet> = Api::namespaced(self.client.clone(), namespace);
        api.get_opt(name).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Deletes the JobSet with orphan propagation (its dependents stay, without their
    /// reference to it), only if it still has `uid` and `resource_version`.
    pub async fn delete_jobset_orphaning(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
        resource_version: &str,
    ) -> Result<()> {
        let op = Op::new("delete", JOBSET_RESOURCE, Some(namespace)).named(name);
        let api: Api<JobSet> = Api::namespaced(self.client.clone(), namespace);
        let params = DeleteParams {
            propagation_policy: Some(PropagationPolicy::Orphan),
            preconditions: Some(Preconditions {
                uid: Some(uid.to_owned()),
                resource_version: Some(resource_version.to_owned()),
            }),
            ..Default::default()
        };
        api.delete(name, &params).await.map(|_| ()).map_err(|e| self.errors.classify(op, e))
    }

    /// Waits (watching, never polling) until no JobSet with `uid` holds the name, for at most `timeout`.
    pub async fn wait_jobset_gone(
        &self,
        namespace: &str,
        name: &str,
        uid: &str,
        timeout: Duration,
    ) -> Result<bool> {
        let api: Api<JobSet> = Api::namespaced(self.client.clone(), namespace);
        let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
        let op = || Op::new("watch", JOBSET_RESOURCE, Some(namespace)).named(name);
        let mut stream = watcher(api, config).default_backoff().boxed();
        let watch = async {
            // Gone once the list the watch starts with lacks it, or a later event removes it.
            let mut seen = false;
            while let Some(event) = stream.next().await {
                match event {
                    Ok(watcher::Event::Init) => seen = false,
                    Ok(watcher::Event::InitApply(js)) => seen |= js.uid() == uid,
                    Ok(watcher::Event::InitDone) if !seen => return Ok(()),
                    Ok(watcher::Event::Apply(js)) if js.uid() != uid => return Ok(()),
                    Ok(watcher::Event::Delete(js)) if js.uid() == uid => return Ok(()),
                    Ok(_) => {}
                    Err(watcher::Error::WatchError(s)) if s.code == 410 => {}
                    Err(e) => {
                        return Err(Error::Transport {
                            op: Box::new(op()),
                            reason: e.to_string(),
                            source: None,
                        });
                    }
                }
            }
            Ok(())
        };
        match tokio::time::timeout(timeout, watch).await {
            Ok(result) => result.map(|()| true),
            Err(_) => Ok(false),
        }
    }

    /// Creates a JobSet from its raw JSON (nothing typed in between, so no field is lost).
    pub async fn create_jobset(&self, namespace: &str, object: &Value) -> Result<JobSet> {
        let op = Op::new("create", JOBSET_RESOURCE, Some(namespace));
        let api: Api<JobSet> = Api::namespaced(self.client.clone(), namespace);
        let jobset = JobSet::from_raw(object.clone()).map_err(|e| Error::decode("a JobSet", e))?;
        api.create(&post(), &jobset).await.map_err(|e| self.errors.classify(op, e))
    }

    /// JSON patch of a Job's metadata.
    pub async fn patch_job(
        &self,
        namespace: &str,
        name: &str,
        patch: &json_patch::Patch,
    ) -> Result<ChildJob> {
        let op = Op::new("patch", JOBS_RESOURCE, Some(namespace)).named(name);
        let api: Api<ChildJob> = Api::namespaced(self.client.clone(), namespace);
        api.patch(name, &params(), &Patch::Json::<()>(patch.clone()))
            .await
            .map_err(|e| self.errors.classify(op, e))
    }

    pub async fn get_job(&self, namespace: &str, name: &str) -> Result<Option<ChildJob>> {
        let op = Op::new("get", JOBS_RESOURCE, Some(namespace)).named(name);
        let api: Api<ChildJob> = Api::namespaced(self.client.clone(), namespace);
        api.get_opt(name).await.map_err(|e| self.errors.classify(op, e))
    }

    pub async fn get_service(&self, namespace: &str, name: &str) -> Result<Option<Service>> {
        let op = Op::new("get", SERVICES_RESOURCE, Some(namespace)).named(name);
        let api: Api<Service> = Api::namespaced(self.client.clone(), namespace);
        api.get_opt(name).await.map_err(|e| self.errors.classify(op, e))
    }

    pub async fn patch_service(
        &self,
        namespace: &str,
        name: &str,
        patch: &json_patch::Patch,
    ) -> Result<Service> {
        let op = Op::new("patch", SERVICES_RESOURCE, Some(namespace)).named(name);
        let api: Api<Service> = Api::namespaced(self.client.clone(), namespace);
        api.patch(name, &params(), &Patch::Json::<()>(patch.clone()))
            .await
            .map_err(|e| self.errors.classify(op, e))
    }

    pub async fn get_revision(&self, namespace: &str, name: &str) -> Result<Option<ControllerRevision>> {
        let op = Op::new("get", REVISIONS_RESOURCE, Some(namespace)).named(name);
        let api: Api<ControllerRevision> = Api::namespaced(self.client.clone(), namespace);
        api.get_opt(name).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Whether we may `verb` the resource in `namespace` (SelfSubjectAccessReview).
    pub async fn can_i(
        &self,
        namespace: &str,
        verb: &str,
        group: &str,
        resource: &str,
        subresource: &str,
    ) -> Result<bool> {
        let op = Op::new("create", "selfsubjectaccessreviews.authorization.k8s.io", None);
        let api: Api<SelfSubjectAccessReview> = Api::all(self.client.clone());
        let review = SelfSubjectAccessReview {
            spec: SelfSubjectAccessReviewSpec {
                resource_attributes: Some(ResourceAttributes {
                    namespace: Some(namespace.to_owned()),
                    verb: Some(verb.to_owned()),
                    group: Some(group.to_owned()),
                    resource: Some(resource.to_owned()),
                    subresource: (!subresource.is_empty()).then(|| subresource.to_owned()),
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let answer =
            api.create(&PostParams::default(), &review).await.map_err(|e| self.errors.classify(op, e))?;
        Ok(answer.status.is_some_and(|s| s.allowed))
    }

    /// The version of the Kueue API the server prefers, if it serves Kueue at all
    /// (discovery is open to every authenticated user).
    pub async fn kueue_version(&self) -> Result<Option<String>> {
        let op = Op::new("get", "apigroups", None);
        let groups = self.client.list_api_groups().await.map_err(|e| self.errors.classify(op, e))?;
        Ok(groups.groups.into_iter().find(|g| g.name == KUEUE_GROUP).and_then(|g| {
            g.preferred_version.map(|v| v.version).or_else(|| g.versions.first().map(|v| v.version.clone()))
        }))
    }

    /// Kueue Workloads in `namespace` owned by the object with `owner_uid`, by name.
    pub async fn workloads_owned_by(
        &self,
        namespace: &str,
        version: &str,
        owner_uid: &str,
    ) -> Result<Vec<String>> {
        let op = Op::new("list", WORKLOADS_RESOURCE, Some(namespace));
        let resource = ApiResource {
            group: KUEUE_GROUP.into(),
            version: version.into(),
            api_version: format!("{KUEUE_GROUP}/{version}"),
            kind: "Workload".into(),
            plural: "workloads".into(),
        };
        let api: Api<DynamicObject> = Api::namespaced_with(self.client.clone(), namespace, &resource);
        let list = api.list(&ListParams::default()).await.map_err(|e| self.errors.classify(op, e))?;
        Ok(list
            .items
            .into_iter()
            .filter(|w| {
                w.metadata.owner_references.as_deref().unwrap_or_default().iter().any(|r| r.uid == owner_uid)
            })
            .filter_map(|w| w.metadata.name)
            .collect())
    }
}
