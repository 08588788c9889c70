//! Typed access to the API server through kube's `Api`: JobSets as `Api<JobSet>` (the
//! typed view keeps the raw object, so nothing the server sent is lost, and every write
//! is a JSON patch), Jobs as the lean `Api<ChildJob>`, ControllerRevisions and reviews as
//! k8s-openapi types. Lists are paged; every failure is classified once, with the
//! request it came from (`Op`).

use k8s_openapi::api::apps::v1::ControllerRevision;
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams, Preconditions};
use kube::discovery::ApiResource;
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Cluster;
use super::list_body;
use super::retry::{RetryPolicy, StreamedAnswer, format_wait, jitter, next_wait, retryable_error};
use crate::error::{Error, JOBSET_RESOURCE, Op, Result};
use crate::model::jobset::{ChildJob, JobSet};
use crate::model::kueue::{self, Workload};

/// Items per page for list requests (kubectl's default --chunk-size).
pub const PAGE_SIZE: u32 = 500;

/// How a list is asked for. A first page (or a whole list) is served from the API
/// server's watch cache; a continuation is read from etcd and decoded there. Built-in
/// objects are stored as protobuf and decode fast, so their lists come in pages (the
/// next asked for while one is read). Custom resources are stored as JSON, and decoding
/// them is slow: on the test control plane (Kubernetes 1.36, 1000 JobSets) the first page
/// of 500 takes 90 ms, its continuation 240-500 ms, all 1000 at once 170-200 ms. So
/// JobSets (and Kueue's objects) come in one answer; it is parsed as it arrives, item by
/// item, so this process holds no more for it than for a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paging {
    /// Pages of `PAGE_SIZE`.
    Pages,
    /// The whole list in one answer (a continue token, if a server sends one, is followed).
    Whole,
}

/// Field manager for every write, so `managedFields` show who changed what.
pub const FIELD_MANAGER: &str = "kubectl-jobset";

/// RBAC names, as errors and kubectl name the resources.
pub const JOBS_RESOURCE: &str = "jobs.batch";
pub const REVISIONS_RESOURCE: &str = "controllerrevisions.apps";

/// JSON as the API server's own encoder writes it: `<`, `>`, `&`, U+2028 and U+2029
/// escaped as `\u003c`…. The server compares some values byte for byte: a JSON patch's
/// `test` op compares leaves as bytes, and a ControllerRevision's `data` must stay
/// identical across updates while every patch re-encodes it. A body with a raw `&` (say
/// `sh -c "a && b"` in a template) would fail a test op that should pass (a false
/// conflict), and the revision's first patch ("data: field is immutable").
pub fn apiserver_json(value: &impl serde::Serialize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, ApiServerFormatter);
    value.serialize(&mut serializer).expect("JSON values always serialize");
    out
}

/// serde_json's compact output, escaping what Go's encoder escapes beyond it.
struct ApiServerFormatter;

impl serde_json::ser::Formatter for ApiServerFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            let escaped = match c {
                '<' => "\\u003c",
                '>' => "\\u003e",
                '&' => "\\u0026",
                '\u{2028}' => "\\u2028",
                '\u{2029}' => "\\u2029",
                _ => continue,
            };
            writer.write_all(&fragment.as_bytes()[start..i])?;
            writer.write_all(escaped.as_bytes())?;
            start = i + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// Which namespaces a list or watch covers: one, or all (`-A`).
pub(crate) fn api<K>(cluster: &Cluster, namespace: Option<&str>) -> Api<K>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>,
{
    match namespace {
        Some(ns) => Api::namespaced(cluster.client.clone(), ns),
        None => Api::all(cluster.client.clone()),
    }
}

/// A ControllerRevision as `list_revisions_with` reads it: its data is never parsed into
/// a tree (the raw JSON text is kept), its managedFields are dropped.
#[derive(serde::Deserialize)]
struct RevisionAsText {
    metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    #[serde(default)]
    revision: i64,
    #[serde(default)]
    data: Option<Box<serde_json::value::RawValue>>,
}

impl RevisionAsText {
    fn into_revision(self) -> ControllerRevision {
        use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
        let metadata = k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            managed_fields: None,
            ..self.metadata
        };
        let data = self.data.map(|raw| RawExtension(Value::String(String::from(Box::<str>::from(raw)))));
        ControllerRevision { metadata, revision: self.revision, data }
    }
}

/// Reads a whole list page's JSON, each item through `reduce` (tests: the lister
/// reads its pages as they arrive, with the same [`list_body::read_chunks`]).
#[cfg(test)]
fn read_page<K: DeserializeOwned, T>(
    text: &[u8],
    reduce: &impl Fn(K) -> T,
) -> std::result::Result<list_body::Page<T>, serde_json::Error> {
    list_body::read_chunks([bytes::Bytes::copy_from_slice(text)], reduce, |_| {})
}

/// Why reading a streamed page failed.
enum PageFailure {
    /// The body broke off (a lost connection, a read timeout): the page may be asked again.
    Body(kube::Error),
    /// The answer was not a list of the objects expected.
    Parse(serde_json::Error),
    /// The parse task panicked.
    Panicked(tokio::task::JoinError),
}

impl Cluster {
    /// Asks for a list page; the answer comes back once its headers are in, its body still
    /// streaming (marked [`StreamedAnswer`], so the retry layer hands it on unread). An
    /// error status is `kube::Error::Api` with the server's Status, as kube makes it.
    async fn open_list(
        &self,
        url: &str,
        params: &ListParams,
    ) -> kube::Result<http::Response<kube::client::Body>> {
        use http_body_util::BodyExt;
        let mut request = kube::core::Request::new(url).list(params).map_err(kube::Error::BuildRequest)?;
        request.extensions_mut().insert(StreamedAnswer);
        let response = self.client.send(request.map(kube::client::Body::from)).await?;
        let status = response.status();
        if status.is_client_error() || status.is_server_error() {
            let body = response.into_body().collect().await?.to_bytes();
            let status = serde_json::from_slice::<kube::core::Status>(&body).unwrap_or_else(|_| {
                let text = String::from_utf8_lossy(&body);
                kube::core::Status::failure(text.trim(), "Failed to parse error data")
                    .with_code(status.as_u16())
            });
            return Err(kube::Error::Api(status.boxed()));
        }
        Ok(response)
    }

    /// Every object a list returns, following `continue` tokens page by page and passing
    /// each item through `keep` as its page arrives (only one page is held in full).
    async fn list_pages<K, U>(
        &self,
        api: &Api<K>,
        op: Op,
        label_selector: Option<&str>,
        paging: Paging,
        keep: impl FnMut(K) -> U,
    ) -> Result<Vec<U>>
    where
        K: kube::Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
    {
        self.list_pages_by(api, op, (label_selector, None), paging, |k: K| k, keep).await
    }

    /// `list_pages` with a field selector too. Each page is parsed as it arrives: its
    /// chunks go to a parse task on the blocking pool (so the thread that drives the
    /// connections stays free), which cuts out one item at a time, parses it and passes it
    /// through `reduce`; no page is held whole. The moment a page's `continue` token has
    /// been read (built-in lists send it first), the next page is asked for, so it is on
    /// its way while this one is read. Each reduced object then goes through `keep`.
    ///
    /// A page whose body breaks off is asked for again (the retry layer only sees its
    /// headers), with the same backoff and budget as the layer's retries.
    async fn list_pages_by<K, I, T, U>(
        &self,
        api: &Api<K>,
        op: Op,
        (label_selector, field_selector): (Option<&str>, Option<&str>),
        paging: Paging,
        reduce: impl Fn(I) -> T + Send + Sync + Clone + 'static,
        mut keep: impl FnMut(T) -> U,
    ) -> Result<Vec<U>>
    where
        K: kube::Resource,
        I: DeserializeOwned + Send + 'static,
        T: Send + 'static,
    {
        let params = ListParams {
            label_selector: label_selector.map(str::to_owned),
            field_selector: field_selector.map(str::to_owned),
            limit: (paging == Paging::Pages).then_some(PAGE_SIZE),
            ..Default::default()
        };
        let url = api.resource_url().to_owned();
        let classify = |e: kube::Error| self.errors.classify(op.clone(), e);
        let policy = RetryPolicy::within(self.errors.request_timeout);
        let mut items = Vec::new();
        let mut this_page = params.clone();
        // The next page, asked for while the one before it was read.
        let mut asked_early = None;
        loop {
            let (started, mut tries) = (std::time::Instant::now(), 1);
            let (page, next) = loop {
                let response = match asked_early.take() {
                    Some(response) => response,
                    None => self.open_list(&url, &this_page).await,
                };
                let response = response.map_err(classify)?;
                let failure = match self.read_streamed_page(response, &url, &this_page, reduce.clone()).await
                {
                    Ok(read) => break read,
                    Err(failure) => failure,
                };
                let err = match failure {
                    PageFailure::Body(err) => err,
                    PageFailure::Parse(err) => return Err(classify(kube::Error::SerdeError(err))),
                    PageFailure::Panicked(err) => return Err(Error::decode("a list page", err)),
                };
                let reason = retryable_error(&err);
                let wait = reason
                    .as_ref()
                    .and_then(|_| next_wait(&policy, tries, started.elapsed(), None, jitter()));
                let (Some(reason), Some(wait)) = (reason, wait) else { return Err(classify(err)) };
                tries += 1;
                let query = kube::core::Request::new(&url).list(&this_page).map(|r| r.uri().to_string());
                let shown = self.log.url(&query.unwrap_or_else(|_| url.clone()));
                let (of, wait_text) = (policy.max_tries, format_wait(wait));
                self.log.note(
                    6,
                    &format!("retrying GET {shown} after {reason} (try {tries} of {of}, in {wait_text})"),
                );
                tokio::time::sleep(wait).await;
            };
            items.extend(page.items.into_iter().map(&mut keep));
            let Some(token) = page.continue_token else { return Ok(items) };
            this_page.continue_token = Some(token);
            asked_early = next;
        }
    }

    /// Reads one page from its streaming answer (see `list_pages_by`); with it, the next
    /// page's answer if it was asked for as soon as this page's token was read.
    async fn read_streamed_page<I, T>(
        &self,
        response: http::Response<kube::client::Body>,
        url: &str,
        this_page: &ListParams,
        reduce: impl Fn(I) -> T + Send + 'static,
    ) -> std::result::Result<
        (list_body::Page<T>, Option<kube::Result<http::Response<kube::client::Body>>>),
        PageFailure,
    >
    where
        I: DeserializeOwned + Send + 'static,
        T: Send + 'static,
    {
        use http_body_util::BodyExt;
        // A few chunks in flight: the rest of the page waits in the socket, not here.
        let (chunks, mut arrived) = tokio::sync::mpsc::channel::<bytes::Bytes>(4);
        let (tell_token, told_token) = tokio::sync::oneshot::channel::<Option<String>>();
        let parse = tokio::task::spawn_blocking(move || {
            let mut tell_token = Some(tell_token);
            list_body::read_chunks(std::iter::from_fn(|| arrived.blocking_recv()), &reduce, |token| {
                if let Some(tell) = tell_token.take() {
                    let _ = tell.send(token);
                }
            })
        });
        // The token off the page's first bytes, read here as they arrive (metadata-first
        // lists), so the next page is asked for even while the parse thread is busy.
        let (tell_head, told_head) = tokio::sync::oneshot::channel::<list_body::Head>();
        let pump = async move {
            let mut body = std::pin::pin!(response.into_body());
            let (mut head, mut tell_head) = (list_body::HeadReader::default(), Some(tell_head));
            while let Some(frame) = body.frame().await {
                let Ok(data) = frame?.into_data() else { continue };
                if let Some(answer) = tell_head.as_ref().and_then(|_| head.feed(&data)) {
                    let _ = tell_head.take().map(|tell| tell.send(answer.clone()));
                }
                if chunks.send(data).await.is_err() {
                    // The parse stopped early (not a list): its error says why.
                    break;
                }
            }
            Ok::<(), kube::Error>(())
        };
        let ask_next = async {
            let token = match told_head.await {
                Ok(list_body::Head::Metadata(token)) => token,
                // Metadata last, or the answer ended first: the parse tells.
                _ => told_token.await.ok().flatten(),
            }?;
            let next = ListParams { continue_token: Some(token), ..this_page.clone() };
            Some(self.open_list(url, &next).await)
        };
        let (pumped, next, parsed) = tokio::join!(pump, ask_next, parse);
        pumped.map_err(PageFailure::Body)?;
        let page = parsed.map_err(PageFailure::Panicked)?.map_err(PageFailure::Parse)?;
        Ok((page, next))
    }

    pub async fn list_jobsets(&self, namespace: Option<&str>, selector: Option<&str>) -> Result<Vec<JobSet>> {
        self.list_jobsets_by(namespace, selector, None).await
    }

    /// JobSets by label and field selectors (`list --field-selector`).
    pub async fn list_jobsets_by(
        &self,
        namespace: Option<&str>,
        selector: Option<&str>,
        fields: Option<&str>,
    ) -> Result<Vec<JobSet>> {
        self.list_jobsets_with(namespace, selector, fields, |js| js).await
    }

    /// `list_jobsets_by`, passing each JobSet through `reduce` as its page is parsed.
    pub async fn list_jobsets_with<U: Send + 'static>(
        &self,
        namespace: Option<&str>,
        selector: Option<&str>,
        fields: Option<&str>,
        reduce: impl Fn(JobSet) -> U + Send + Sync + Clone + 'static,
    ) -> Result<Vec<U>> {
        let op = Op::new("list", JOBSET_RESOURCE, namespace);
        self.list_pages_by(
            &api::<JobSet>(self, namespace),
            op,
            (selector, fields),
            Paging::Whole,
            reduce,
            |u| u,
        )
        .await
    }

    pub async fn get_jobset(&self, namespace: &str, name: &str) -> Result<JobSet> {
        let op = Op::new("get", JOBSET_RESOURCE, Some(namespace)).named(name);
        api::<JobSet>(self, Some(namespace)).get(name).await.map_err(|e| self.errors.classify(op, e))
    }

    /// JSON patch of a JobSet (or its status) with our field manager; `dry_run` sends
    /// `dryRun=All`, so admission runs but nothing is stored. Returns the object as stored.
    pub async fn patch_jobset(
        &self,
        namespace: &str,
        name: &str,
        subresource: Option<&'static str>,
        patch: &json_patch::Patch,
        dry_run: bool,
    ) -> Result<Value> {
        let mut op = Op::new("patch", JOBSET_RESOURCE, Some(namespace)).named(name);
        op.subresource = subresource;
        let params =
            PatchParams { dry_run, field_manager: Some(FIELD_MANAGER.to_owned()), ..Default::default() };
        let body = apiserver_json(patch);
        let patch = Patch::Json::<()>(patch.clone());
        let request = kube::core::Request::new(JobSet::url_path(&(), Some(namespace)));
        let request = match subresource {
            Some(sub) => request.patch_subresource(sub, name, &params, &patch),
            None => request.patch(name, &params, &patch),
        };
        let request = request.map(|r| r.map(|_| body)).map_err(kube::Error::BuildRequest);
        let patched: kube::Result<JobSet> = self.send(request, "patch").await;
        patched.map(|js| js.object()).map_err(|e| self.errors.classify(op, e))
    }

    /// The Jobs a selector matches, each passed through `keep` once its page is parsed
    /// (`keep` may borrow: it runs on the caller's task).
    pub async fn list_jobs<U>(
        &self,
        namespace: Option<&str>,
        selector: &str,
        keep: impl FnMut(ChildJob) -> U,
    ) -> Result<Vec<U>> {
        let op = Op::new("list", JOBS_RESOURCE, namespace);
        self.list_pages(&api::<ChildJob>(self, namespace), op, Some(selector), Paging::Pages, keep).await
    }

    /// `list_jobs`, passing each Job through `reduce` as it is parsed, on the parse thread.
    pub async fn list_jobs_reduced<U: Send + 'static>(
        &self,
        namespace: Option<&str>,
        selector: &str,
        reduce: impl Fn(ChildJob) -> U + Send + Sync + Clone + 'static,
    ) -> Result<Vec<U>> {
        let op = Op::new("list", JOBS_RESOURCE, namespace);
        let api = api::<ChildJob>(self, namespace);
        self.list_pages_by(&api, op, (Some(selector), None), Paging::Pages, reduce, |u| u).await
    }

    /// Server-side dry-run create of a Job (`dryRun=All`): the Job as the API server would
    /// store it, after defaulting and admission, without storing anything. The Job goes
    /// untyped, so no field of a JobSet template is lost on the way.
    pub async fn dry_run_create_job(&self, namespace: &str, job: &Value) -> Result<Value> {
        let op = Op::new("create", JOBS_RESOURCE, Some(namespace));
        let resource = ApiResource::erase::<k8s_openapi::api::batch::v1::Job>(&());
        let api: Api<DynamicObject> = Api::namespaced_with(self.client.clone(), namespace, &resource);
        let object: DynamicObject =
            serde_json::from_value(job.clone()).map_err(|e| Error::decode("a Job", e))?;
        let params = PostParams { dry_run: true, field_manager: Some(FIELD_MANAGER.to_owned()) };
        let created = api.create(&params, &object).await.map_err(|e| self.errors.classify(op, e))?;
        serde_json::to_value(created).map_err(|e| Error::decode("a Job from the API server", e))
    }

    pub async fn list_revisions(
        &self,
        namespace: Option<&str>,
        selector: &str,
    ) -> Result<Vec<ControllerRevision>> {
        let op = Op::new("list", REVISIONS_RESOURCE, namespace);
        let api = api::<ControllerRevision>(self, namespace);
        self.list_pages(&api, op, Some(selector), Paging::Pages, |r| r).await
    }

    /// The revisions a selector matches, each with its data held as the JSON text it came
    /// in (`history::data_of` reads it) and without managedFields, passed through `reduce`
    /// as it is parsed, on the parse thread, then through `keep` on the caller's task
    /// (`keep` may borrow). A fleet read holds them so until the Jobs are in: as trees
    /// they weigh several times their JSON, beside the Jobs' pages.
    pub async fn list_revisions_with<T: Send + 'static, U>(
        &self,
        namespace: Option<&str>,
        selector: &str,
        reduce: impl Fn(ControllerRevision) -> T + Send + Sync + Clone + 'static,
        keep: impl FnMut(T) -> U,
    ) -> Result<Vec<U>> {
        let op = Op::new("list", REVISIONS_RESOURCE, namespace);
        let api = api::<ControllerRevision>(self, namespace);
        let reduce = move |listed: RevisionAsText| reduce(listed.into_revision());
        self.list_pages_by(&api, op, (Some(selector), None), Paging::Pages, reduce, keep).await
    }

    pub async fn create_revision(
        &self,
        namespace: &str,
        revision: &ControllerRevision,
    ) -> Result<ControllerRevision> {
        let op = Op::new("create", REVISIONS_RESOURCE, Some(namespace));
        let params = PostParams { dry_run: false, field_manager: Some(FIELD_MANAGER.to_owned()) };
        let request = kube::core::Request::new(ControllerRevision::url_path(&(), Some(namespace)))
            .create(&params, apiserver_json(revision))
            .map_err(kube::Error::BuildRequest);
        self.send(request, "create").await.map_err(|e| self.errors.classify(op, e))
    }

    /// Sends a request built here, with its body already encoded (see `apiserver_json`).
    async fn send<K: DeserializeOwned>(
        &self,
        request: kube::Result<http::Request<Vec<u8>>>,
        verb: &'static str,
    ) -> kube::Result<K> {
        let mut request = request?;
        request.extensions_mut().insert(verb);
        self.client.request::<K>(request).await
    }

    pub async fn patch_revision(
        &self,
        namespace: &str,
        name: &str,
        patch: &json_patch::Patch,
    ) -> Result<ControllerRevision> {
        let op = Op::new("patch", REVISIONS_RESOURCE, Some(namespace)).named(name);
        let params = PatchParams { field_manager: Some(FIELD_MANAGER.to_owned()), ..Default::default() };
        let request = kube::core::Request::new(ControllerRevision::url_path(&(), Some(namespace)))
            .patch(name, &params, &Patch::Json::<()>(patch.clone()))
            .map(|r| r.map(|_| apiserver_json(patch)))
            .map_err(kube::Error::BuildRequest);
        self.send(request, "patch").await.map_err(|e| self.errors.classify(op, e))
    }

    /// Deletes a revision only if it is still at `resource_version`.
    pub async fn delete_revision_if_unchanged(
        &self,
        namespace: &str,
        name: &str,
        resource_version: &str,
    ) -> Result<()> {
        let op = Op::new("delete", REVISIONS_RESOURCE, Some(namespace)).named(name);
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                resource_version: Some(resource_version.to_owned()),
                uid: None,
            }),
            ..Default::default()
        };
        let api = api::<ControllerRevision>(self, Some(namespace));
        api.delete(name, &params).await.map(|_| ()).map_err(|e| self.errors.classify(op, e))
    }

    /// The Lease `name` in `namespace` (where a running recorder announces itself).
    pub async fn get_lease(&self, namespace: &str, name: &str) -> Result<Lease> {
        let op = Op::new("get", "leases.coordination.k8s.io", Some(namespace)).named(name);
        api::<Lease>(self, Some(namespace)).get(name).await.map_err(|e| self.errors.classify(op, e))
    }

    /// Who the API server says we are (SelfSubjectReview); `None` if it will not say.
    pub async fn whoami(&self) -> Option<String> {
        let api: Api<SelfSubjectReview> = Api::all(self.client.clone());
        let review = api.create(&PostParams::default(), &SelfSubjectReview::default()).await.ok()?;
        review.status?.user_info?.username
    }

    /// Namespace names (for completion).
    pub async fn namespace_names(&self) -> Result<Vec<String>> {
        let op = Op::new("list", "namespaces", None);
        let api: Api<Namespace> = Api::all(self.client.clone());
        self.list_pages(&api, op, None, Paging::Pages, |ns| ns.metadata.name.unwrap_or_default()).await
    }
}

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

impl Cluster {
    /// Kueue's Workloads in `namespace` (or all), each reduced as its page arrives; None
    /// when the cluster serves no Kueue (or we may not list Workloads: then Kueue is
    /// known only by the queue label, said at -v).
    pub async fn list_workloads(&self, namespace: Option<&str>) -> Result<Option<Vec<Workload>>> {
        let read = |w: DynamicObject| Workload::from_object(&serde_json::to_value(w).unwrap_or_default());
        self.list_kueue(("Workload", "workloads", kueue::WORKLOADS_RESOURCE), namespace, read).await
    }

    /// Each LocalQueue's ClusterQueue and every ClusterQueue's quota: two lists, whatever
    /// the number of JobSets; None when Kueue is not served or we may not read them.
    pub async fn kueue_quotas(&self, namespace: Option<&str>) -> Result<Option<kueue::QueueQuotas>> {
        let local = |q: DynamicObject| {
            let q = serde_json::to_value(q).unwrap_or_default();
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            (
                (text(&q["metadata"]["namespace"]), text(&q["metadata"]["name"])),
                text(&q["spec"]["clusterQueue"]),
            )
        };
        let cluster = |q: DynamicObject| {
            kueue::ClusterQueueQuota::from_object(&serde_json::to_value(q).unwrap_or_default())
        };
        let (Some(local_queues), Some(cluster_queues)) = (
            self.list_kueue(("LocalQueue", "localqueues", kueue::LOCAL_QUEUES_RESOURCE), namespace, local)
                .await?,
            self.list_kueue(("ClusterQueue", "clusterqueues", kueue::CLUSTER_QUEUES_RESOURCE), None, cluster)
                .await?,
        ) else {
            return Ok(None);
        };
        Ok(Some(kueue::QueueQuotas { local_queues: local_queues.into_iter().collect(), cluster_queues }))
    }

    /// A Kueue kind listed in `namespace` (or all; cluster-scoped kinds with None), each
    /// object reduced by `read` as its page arrives: v1beta2 first, then v1beta1. None
    /// when the cluster serves neither, or we may not list them (said at -v).
    async fn list_kueue<U>(
        &self,
        (kind, plural, resource_name): (&str, &str, &'static str),
        namespace: Option<&str>,
        read: impl Fn(DynamicObject) -> U + Copy,
    ) -> Result<Option<Vec<U>>> {
        for version in ["v1beta2", "v1beta1"] {
            let resource = ApiResource {
                group: kueue::GROUP.into(),
                version: version.into(),
                api_version: format!("{}/{version}", kueue::GROUP),
                kind: kind.into(),
                plural: plural.into(),
            };
            let api: Api<DynamicObject> = match namespace {
                Some(ns) => Api::namespaced_with(self.client.clone(), ns, &resource),
                None => Api::all_with(self.client.clone(), &resource),
            };
            let op = Op::new("list", resource_name, namespace);
            match self.list_pages(&api, op, None, Paging::Whole, read).await {
                Ok(objects) => return Ok(Some(objects)),
                Err(Error::NotFound { .. }) => continue,
                Err(e @ Error::Forbidden { .. }) => {
                    self.log.note(1, &format!("Kueue {plural} not read ({e}); going on without them"));
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_names(text: &str) -> std::result::Result<list_body::Page<String>, serde_json::Error> {
        read_page(text.as_bytes(), &|ns: Namespace| ns.metadata.name.unwrap_or_default())
    }

    #[test]
    fn a_page_is_read_item_by_item_in_either_key_order() {
        let built_in = r#"{"kind":"NamespaceList","metadata":{"continue":"t1","resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}"#;
        let page = read_names(built_in).unwrap();
        assert_eq!(
            (page.continue_token.as_deref(), page.items),
            (Some("t1"), vec!["a".to_owned(), "b".to_owned()])
        );
        // Custom resources' lists: keys sorted, metadata last; the last page has no token.
        let page =
            read_names(r#"{"apiVersion":"v1","items":[{"metadata":{"name":"c"}}],"kind":"L","metadata":{}}"#)
                .unwrap();
        assert_eq!((page.continue_token, page.items), (None, vec!["c".to_owned()]));
        // An empty list may say null.
        assert!(read_names(r#"{"metadata":{},"items":null}"#).unwrap().items.is_empty());
        // What is not a page is an error, not an empty list.
        assert!(read_names(r#"{"metadata":{},"items":[{"metadata":{"name":7}}]}"#).is_err());
        assert!(read_names(r#"{"metadata":{},"items":[]} trailing"#).is_err());
        assert!(read_names(r#"[]"#).is_err());
    }

    #[test]
    fn a_revision_listed_as_text_reads_as_the_typed_one_without_its_managed_fields() {
        let uid = "u-1";
        let page = json!({"kind": "ControllerRevisionList", "metadata": {}, "items": [{
            "metadata": {
                "name": "train-5d8f", "namespace": "ml", "resourceVersion": "41",
                "labels": {crate::history::JOBSET_LABEL: "train"},
                "annotations": {crate::history::FORMAT_ANNOTATION: crate::history::FORMAT},
                "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": uid}],
                "managedFields": [{"manager": "kubectl-jobset", "operation": "Update", "fieldsV1": {"f:data": {}}}]
            },
            "revision": 3,
            "data": {"replicatedJobs": [{"name": "workers", "template": {"spec": {"parallelism": 2, "a": "x && y"}}}]}
        }]});
        let text = page.to_string();
        let typed = read_page(text.as_bytes(), &|r: ControllerRevision| r).unwrap().items.remove(0);
        let held = read_page(text.as_bytes(), &RevisionAsText::into_revision).unwrap().items.remove(0);
        assert!(held.data.as_ref().unwrap().0.is_string(), "data held as its text");
        assert_eq!(held.metadata.managed_fields, None);
        assert_eq!(held.metadata.name, typed.metadata.name);
        assert_eq!(held.revision, 3);
        let (typed, held) =
            (crate::history::parse(&typed, uid).unwrap(), crate::history::parse(&held, uid).unwrap());
        assert_eq!(held, typed, "the same revision, read from the text");
        // No data at all reads as a corrupt revision, as the typed form does.
        let bare = r#"{"metadata":{},"items":[{"metadata":{"name":"r"},"revision":1}]}"#;
        let held = read_page(bare.as_bytes(), &RevisionAsText::into_revision).unwrap().items.remove(0);
        assert_eq!(held.data, None);
    }

    #[test]
    fn bodies_are_encoded_as_the_api_server_encodes_them() {
        let value = json!({"command": ["sh", "-c", "a && b <c> \u{2028}"], "ключ": "é\n\"", "n": 1.5});
        let text = String::from_utf8(apiserver_json(&value)).unwrap();
        assert_eq!(
            text,
            r#"{"command":["sh","-c","a \u0026\u0026 b \u003cc\u003e \u2028"],"ключ":"é\n\"","n":1.5}"#
        );
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value, "the same JSON value");
    }
}
