//! One fresh namespace per test (deleted when dropped), with the objects in it, and
//! helpers that play the kubelet's part: pods marked Ready, Jobs failed or completed.

use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Client};
use serde_json::{Value, json};

use super::harness::{admin_client, harness, wait_for};
use super::objects::attempt_label;
use super::plugin::{PluginOutput, run_plugin};

pub const IMMUTABLE_LABEL: &str = "kubectl-jobset.test/immutable-templates";

/// A fresh namespace for one test, deleted when dropped.
pub struct TestNs {
    pub name: String,
    pub client: Client,
}

fn unique(prefix: &str) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{:x}{n}", nanos ^ std::process::id())
}

impl TestNs {
    pub async fn new(prefix: &str) -> TestNs {
        Self::with_labels(prefix, &[]).await
    }

    /// A namespace where the upstream webhook forbids template updates.
    pub async fn immutable(prefix: &str) -> TestNs {
        Self::with_labels(prefix, &[(IMMUTABLE_LABEL, "true")]).await
    }

    async fn with_labels(prefix: &str, labels: &[(&str, &str)]) -> TestNs {
        let name = unique(&format!("kjs-{prefix}"));
        let client = admin_client().await;
        let labels: serde_json::Map<String, Value> =
            labels.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        let ns: k8s_openapi::api::core::v1::Namespace =
            serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap();
        Api::all(client.clone()).create(&Default::default(), &ns).await.expect("create namespace");
        TestNs { name, client }
    }

    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.kubectl_stdin(args, None)
    }

    pub fn kubectl_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let h = harness();
        let mut cmd = Command::new(&h.kubectl);
        cmd.arg("--kubeconfig").arg(&h.kubeconfig).args(["-n", &self.name]).args(args);
        cmd.env_remove("KUBECONFIG").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("run kubectl");
        if let Some(text) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        }
        drop(child.stdin.take());
        child.wait_with_output().unwrap()
    }

    /// `kubectl create -f -`, asserting success.
    pub fn create(&self, yaml: &str) {
        let out = self.kubectl_stdin(&["create", "-f", "-"], Some(yaml));
        assert!(out.status.success(), "kubectl create failed: {}", String::from_utf8_lossy(&out.stderr));
    }

    /// Applies one of the repository's ClusterRoles (`rbac/FILE`).
    pub fn apply_repo_role(&self, file: &str) {
        let role = std::fs::read_to_string(format!("{}/rbac/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let out = self.kubectl_stdin(&["apply", "-f", "-"], Some(&role));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    /// Binds a role (`--clusterrole=NAME` or `--role=NAME`) to `user` in this namespace, and
    /// waits until the authorizer honours it (RBAC reaches it through a cache).
    pub async fn bind(&self, role: &str, user: &str) {
        let out = self.kubectl(&["create", "rolebinding", user, role, &format!("--user={user}")]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        wait_for(&format!("{user}'s binding to take effect"), Duration::from_secs(30), || async {
            let out =
                self.kubectl(&["auth", "can-i", "list", "jobsets.jobset.x-k8s.io", &format!("--as={user}")]);
            out.status.success().then_some(())
        })
        .await;
    }

    /// Runs kubectl-jobset against the harness cluster, in this namespace.
    pub fn plugin(&self, args: &[&str]) -> PluginOutput {
        run_plugin(args, Some(&self.name), &[])
    }

    pub fn jobsets(&self) -> Api<kube::api::DynamicObject> {
        let ar = kube::discovery::ApiResource {
            group: "jobset.x-k8s.io".into(),
            version: "v1alpha2".into(),
            api_version: "jobset.x-k8s.io/v1alpha2".into(),
            kind: "JobSet".into(),
            plural: "jobsets".into(),
        };
        Api::namespaced_with(self.client.clone(), &self.name, &ar)
    }

    pub async fn jobset(&self, name: &str) -> Value {
        serde_json::to_value(self.jobsets().get(name).await.expect("get jobset")).unwrap()
    }

    pub fn jobs_api(&self) -> Api<Job> {
        Api::namespaced(self.client.clone(), &self.name)
    }

    /// Jobs of a JobSet, sorted by name.
    pub async fn jobs_of(&self, jobset: &str) -> Vec<Job> {
        let lp = ListParams::default().labels(&format!("jobset.sigs.k8s.io/jobset-name={jobset}"));
        let mut jobs = self.jobs_api().list(&lp).await.expect("list jobs").items;
        jobs.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        jobs
    }

    /// Waits until the JobSet has `count` live Jobs labelled with `attempt`.
    pub async fn wait_for_attempt_jobs(&self, jobset: &str, attempt: i32, count: usize) -> Vec<Job> {
        wait_for(
            &format!("{count} jobs of {jobset} at attempt {attempt}"),
            // Generous: a serialized fault test can follow one that left the controller busy.
            Duration::from_secs(120),
            || async {
                let jobs = self.jobs_of(jobset).await;
                let live: Vec<Job> =
                    jobs.into_iter().filter(|j| j.metadata.deletion_timestamp.is_none()).collect();
                let all_current =
                    live.len() == count && live.iter().all(|j| attempt_label(j) == Some(attempt));
                all_current.then_some(live)
            },
        )
        .await
    }

    /// Lets attempt `attempt` finish starting, as kubelets would: waits for its `count`
    /// Jobs, marks them ready, and waits for the controller to clear RestartingJobSet.
    /// Until then kubectl-jobset refuses another restart (it is still in progress).
    pub async fn settle(&self, jobset: &str, attempt: i32, count: usize) {
        for job in self.wait_for_attempt_jobs(jobset, attempt, count).await {
            self.ready_job(job.metadata.name.as_deref().unwrap()).await;
        }
        wait_for(&format!("jobset {jobset} attempt {attempt} ready"), Duration::from_secs(60), || async {
            let status = self.jobset(jobset).await["status"].clone();
            let conditions = status["conditions"].as_array().cloned().unwrap_or_default();
            let restarting =
                conditions.iter().any(|c| c["type"] == "RestartingJobSet" && c["status"] == "True");
            (!restarting).then_some(())
        })
        .await;
    }

    /// Adds FailureTarget; the real job controller then fails the Job.
    pub async fn fail_job(&self, job: &str) {
        self.add_job_condition(job, "FailureTarget", "BackoffLimitExceeded", "e2e simulated failure").await;
    }

    /// Adds SuccessCriteriaMet; the real job controller then completes the Job.
    pub async fn complete_job(&self, job: &str) {
        self.add_job_condition(job, "SuccessCriteriaMet", "CompletionsReached", "e2e simulated success")
            .await;
    }

    async fn add_job_condition(&self, job: &str, type_: &str, reason: &str, message: &str) {
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        let condition = json!({"type": type_, "status": "True", "reason": reason, "message": message,
            "lastProbeTime": now, "lastTransitionTime": now});
        let current = self.jobs_api().get_status(job).await.expect("get job");
        let has_conditions = current.status.and_then(|s| s.conditions).is_some_and(|c| !c.is_empty());
        let op = if has_conditions {
            json!([{"op": "add", "path": "/status/conditions/-", "value": condition}])
        } else {
            json!([{"op": "add", "path": "/status/conditions", "value": [condition]}])
        };
        let patch: json_patch::Patch = serde_json::from_value(op).unwrap();
        self.jobs_api()
            .patch_status(job, &PatchParams::default(), &Patch::Json::<()>(patch))
            .await
            .expect("patch job status");
    }

    /// Marks every pod of the Job Ready, as a kubelet would (once the job controller
    /// has created them all).
    pub async fn ready_job(&self, job: &str) {
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.name);
        let parallelism =
            self.jobs_api().get(job).await.expect("get job").spec.and_then(|s| s.parallelism).unwrap_or(1);
        let lp = ListParams::default().labels(&format!("batch.kubernetes.io/job-name={job}"));
        // Generous: in a fresh namespace the job controller's first pod create can fail
        // until the default ServiceAccount exists, and it then backs off (10 s, 20 s, ...).
        let found =
            wait_for(&format!("{parallelism} pods of job {job}"), Duration::from_secs(120), || async {
                let items = pods.list(&lp).await.expect("list pods").items;
                (items.len() >= parallelism as usize).then_some(items)
            })
            .await;
        let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
        for pod in found {
            let patch = json!({"status": {"phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}]}});
            pods.patch_status(
                pod.metadata.name.as_deref().unwrap(),
                &PatchParams::default(),
                &Patch::Strategic(patch),
            )
            .await
            .expect("patch pod status");
        }
    }
}

impl Drop for TestNs {
    fn drop(&mut self) {
        // Synchronous, so it works whichever runtime the test used (or after a panic).
        let h = harness();
        let _ = Command::new(&h.kubectl)
            .arg("--kubeconfig")
            .arg(&h.kubeconfig)
            .args(["delete", "namespace", &self.name, "--wait=false"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}
