//! Raw API access: URLs, pagination, and error classification in one place.
//!
//! Requests are built with `kube::core::Request` against explicit URLs, so the JSON
//! we read is exactly the server's (no partial typed round trip) and the request log
//! shows the real conversation.

use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::core::{ObjectList, Request};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Cluster;
use crate::error::{Error, JOBSET_RESOURCE, Op, Result};

/// A resource type, by URL and by its RBAC name.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub plural: &'static str,
    /// `plural.group`, as RBAC and kubectl name it.
    pub resource: &'static str,
}

pub const JOBSETS: Kind =
    Kind { group: "jobset.x-k8s.io", version: "v1alpha2", plural: "jobsets", resource: JOBSET_RESOURCE };
pub const JOBS: Kind = Kind { group: "batch", version: "v1", plural: "jobs", resource: "jobs.batch" };

/// Items per page for list requests (kubectl's default --chunk-size).
pub const PAGE_SIZE: u32 = 500;

impl Kind {
    /// Collection URL, namespaced or across all namespaces.
    pub fn url(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) => format!("{base}/namespaces/{ns}/{}", self.plural),
            None => format!("{base}/{}", self.plural),
        }
    }
}

impl Cluster {
    /// Lists every object of a kind, following `continue` tokens page by page.
    pub async fn list<T>(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        label_selector: Option<&str>,
    ) -> Result<Vec<T>>
    where
        T: DeserializeOwned + Clone,
    {
        self.list_map(kind, namespace, label_selector, |item| item).await
    }

    /// Like `list`, passing each item through `keep` as its page arrives, so that only
    /// one page is ever held in full.
    pub async fn list_map<T, U>(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        label_selector: Option<&str>,
        mut keep: impl FnMut(T) -> U,
    ) -> Result<Vec<U>>
    where
        T: DeserializeOwned + Clone,
    {
        let op = Op::new("list", kind.resource, namespace);
        let request = Request::new(kind.url(namespace));
        let mut params =
            ListParams { label_selector: label_selector.map(str::to_owned), ..Default::default() }
                .limit(PAGE_SIZE);
        let mut items = Vec::new();
        loop {
            let http_request = request.list(&params).map_err(|e| build_error(&op, e))?;
            let page: ObjectList<T> =
                self.client.request(http_request).await.map_err(|e| self.errors.classify(op.clone(), e))?;
            items.extend(page.items.into_iter().map(&mut keep));
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params.continue_token = Some(token),
                None => return Ok(items),
            }
        }
    }

    /// Gets one object by name.
    pub async fn get<T: DeserializeOwned>(&self, kind: Kind, namespace: &str, name: &str) -> Result<T> {
        let op = Op::new("get", kind.resource, Some(namespace)).named(name);
        let http_request = Request::new(kind.url(Some(namespace)))
            .get(name, &Default::default())
            .map_err(|e| build_error(&op, e))?;
        self.client.request(http_request).await.map_err(|e| self.errors.classify(op, e))
    }
}

/// Field manager for every write, so `managedFields` show who changed what.
pub const FIELD_MANAGER: &str = "kubectl-jobset";

impl Cluster {
    /// Server-side dry-run create (`dryRun=All`): returns the object as the API server
    /// would store it, after defaulting and admission, without storing anything.
    pub async fn dry_run_create(&self, kind: Kind, namespace: &str, object: &Value) -> Result<Value> {
        let op = Op::new("create", kind.resource, Some(namespace));
        let params = PostParams { dry_run: true, field_manager: Some(FIELD_MANAGER.to_owned()) };
        let body = serde_json::to_vec(object).map_err(|e| Error::Unexpected(e.to_string()))?;
        let http_request =
            Request::new(kind.url(Some(namespace))).create(&params, body).map_err(|e| build_error(&op, e))?;
        self.client.request(http_request).await.map_err(|e| self.errors.classify(op, e))
    }
}

impl Cluster {
    /// JSON patch (`application/json-patch+json`) of an object or its subresource, with
    /// our field manager; `dry_run` sends `dryRun=All` so admission runs but nothing is stored.
    pub async fn json_patch(
        &self,
        kind: Kind,
        namespace: &str,
        name: &str,
        subresource: Option<&'static str>,
        patch: &json_patch::Patch,
        dry_run: bool,
    ) -> Result<Value> {
        let mut op = Op::new("patch", kind.resource, Some(namespace)).named(name);
        op.subresource = subresource;
        let params =
            PatchParams { dry_run, field_manager: Some(FIELD_MANAGER.to_owned()), ..Default::default() };
        let patch = Patch::Json::<()>(patch.clone());
        let request = Request::new(kind.url(Some(namespace)));
        let http_request = match subresource {
            Some(sub) => request.patch_subresource(sub, name, &params, &patch),
            None => request.patch(name, &params, &patch),
        }
        .map_err(|e| build_error(&op, e))?;
        self.client.request(http_request).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Creates an object (POST); `dry_run` sends `dryRun=All`.
    pub async fn create(
        &self,
        kind: Kind,
        namespace: Option<&str>,
        object: &Value,
        dry_run: bool,
    ) -> Result<Value> {
        let op = Op::new("create", kind.resource, namespace);
        let params = PostParams { dry_run, field_manager: Some(FIELD_MANAGER.to_owned()) };
        let body = serde_json::to_vec(object).map_err(|e| Error::Unexpected(e.to_string()))?;
        let http_request =
            Request::new(kind.url(namespace)).create(&params, body).map_err(|e| build_error(&op, e))?;
        self.client.request(http_request).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Who the API server says we are (SelfSubjectReview); `None` if it will not say.
    pub async fn whoami(&self) -> Option<String> {
        let review =
            serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
        let answer = self.create(SELF_SUBJECT_REVIEWS, None, &review, false).await.ok()?;
        answer["status"]["userInfo"]["username"].as_str().map(str::to_owned)
    }
}

impl Cluster {
    /// Deletes an object only if it is still at `resource_version`.
    pub async fn delete_if_unchanged(
        &self,
        kind: Kind,
        namespace: &str,
        name: &str,
        resource_version: &str,
    ) -> Result<()> {
        let op = Op::new("delete", kind.resource, Some(namespace)).named(name);
        let params = kube::api::DeleteParams {
            preconditions: Some(kube::api::Preconditions {
                resource_version: Some(resource_version.to_owned()),
                uid: None,
            }),
            ..Default::default()
        };
        let http_request =
            Request::new(kind.url(Some(namespace))).delete(name, &params).map_err(|e| build_error(&op, e))?;
        self.client.request::<Value>(http_request).await.map_err(|e| self.errors.classify(op, e))?;
        Ok(())
    }
}

pub const CONTROLLER_REVISIONS: Kind = Kind {
    group: "apps",
    version: "v1",
    plural: "controllerrevisions",
    resource: "controllerrevisions.apps",
};

/// True when a write failed only because its precondition (a JSON patch `test` op or a
/// resourceVersion) no longer held: someone else changed the object first.
pub fn is_precondition_failure(err: &Error) -> bool {
    match err {
        Error::Conflict { .. } => true,
        // A failed `test` op: 422 with the API server's generic message.
        Error::Api { code: 422, message, .. } => message.contains("error in our request"),
        _ => false,
    }
}

pub const EVENTS: Kind = Kind { group: "", version: "v1", plural: "events", resource: "events" };
pub const SELF_SUBJECT_REVIEWS: Kind = Kind {
    group: "authentication.k8s.io",
    version: "v1",
    plural: "selfsubjectreviews",
    resource: "selfsubjectreviews.authentication.k8s.io",
};

fn build_error(op: &Op, err: kube::core::request::Error) -> Error {
    Error::Transport { op: Box::new(op.clone()), reason: format!("cannot build the request: {err}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(JOBSETS.url(Some("ml")), "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets");
        assert_eq!(JOBS.url(None), "/apis/batch/v1/jobs");
    }
}
