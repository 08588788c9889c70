//! HTTP-level test of rollback's guarded patch, against the mock API server
//! (tests/support/api_server.rs): the whole conversation of `rollback train
//! --to-revision 1`, the exact JSON patch it sends (with the `test` ops that guard it),
//! and a patch refused by its guard ending in the "changed meanwhile" refusal with
//! nothing else written.

#[path = "support/api_server.rs"]
mod api_server;

use api_server::{Reply, Scenario, Step, list};
use kubectl_jobset::commands::rollback::{RollbackPlan, run};
use kubectl_jobset::execute::DryRun;
use kubectl_jobset::select::Selection;
use serde_json::{Value, json};

fn template(image: &str) -> Value {
    json!({"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": image}]}}}})
}

fn jobset(image: &str) -> Value {
    json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "train", "namespace": "ml", "uid": "uid-train", "resourceVersion": "7", "creationTimestamp": "2026-11-30T10:00:00Z"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": template(image)}]},
        "status": {"restarts": 0}})
}

fn job(image: &str) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "train-w-0", "namespace": "ml", "resourceVersion": "8",
            "labels": {"jobset.sigs.k8s.io/jobset-name": "train", "jobset.sigs.k8s.io/replicatedjob-name": "w",
                "jobset.sigs.k8s.io/restart-attempt": "0", "jobset.sigs.k8s.io/job-index": "0"},
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "uid-train", "controller": true}]},
        "spec": {"parallelism": 1, "completions": 1, "completionMode": "NonIndexed", "backoffLimit": 6,
            "podReplacementPolicy": "TerminatingOrFailed", "suspend": false, "manualSelector": false,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "x"}},
            "template": {"metadata": {"labels": {"job-name": "train-w-0", "batch.kubernetes.io/job-name": "train-w-0",
                "batch.kubernetes.io/controller-uid": "x", "controller-uid": "x"}},
            "spec": {"restartPolicy": "OnFailure", "dnsPolicy": "ClusterFirst", "schedulerName": "default-scheduler",
                "securityContext": {}, "terminationGracePeriodSeconds": 30,
                "containers": [{"name": "c", "image": image, "imagePullPolicy": "IfNotPresent", "resources": {},
                    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}]}}}})
}

fn revision(number: i64, image: &str, attempts: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": format!("train-v{number}"), "namespace": "ml", "resourceVersion": format!("{number}"),
            "labels": {"kubectl-jobset.io/jobset-name": "train"},
            "annotations": {"kubectl-jobset.io/format": "replicated-job-templates/v1",
                "kubectl-jobset.io/restart-attempts": attempts},
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "train", "uid": "uid-train"}]},
        "data": {"replicatedJobs": [{"name": "w", "template": template(image)}]},
        "revision": number})
}

fn plan() -> RollbackPlan {
    RollbackPlan {
        selection: Selection::new(&["train".to_owned()], false, None, "ml").unwrap(),
        to_revision: Some(1),
        reason: None,
        dry_run: DryRun::None,
        restart: None,
        handover: false,
        now: false,
        at_next_restart: false,
        format: None,
        color: false,
        history_limit: 10,
    }
}

const GET_JOBSET: &str = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train";
const LIST_JOBS: &str = "/apis/batch/v1/namespaces/ml/jobs?&labelSelector=jobset.sigs.k8s.io%2Fjobset-name+in+%28train%29&limit=500";
const LIST_REVISIONS: &str = "/apis/apps/v1/namespaces/ml/controllerrevisions?&labelSelector=kubectl-jobset.io%2Fjobset-name+in+%28train%29&limit=500";
const GET_RECORDER_LEASE: &str =
    "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubectl-jobset-recorder";
const PATCH_JOBSET: &str =
    "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train?&fieldManager=kubectl-jobset";
const DRY_RUN: &str = "/apis/batch/v1/namespaces/ml/jobs?&dryRun=All&fieldManager=kubectl-jobset";
const PATCH_REVISION_1: &str =
    "/apis/apps/v1/namespaces/ml/controllerrevisions/train-v1?&fieldManager=kubectl-jobset";
const JSON_PATCH: &str = "application/json-patch+json";

/// What every command reads first, concurrently: the JobSet, its Jobs, its revisions
/// (v1 on app:v1; v2, the spec's, on app:v2 and running attempt 0) and whether a
/// recorder runs (none).
fn first_reads(image: &str, revisions: Vec<Value>) -> Vec<Step> {
    vec![
        Step::get(GET_JOBSET).reply(Reply::ok(jobset(image))),
        Step::get(LIST_JOBS).reply(Reply::ok(list(vec![job("app:v2")], None))),
        Step::get(LIST_REVISIONS).reply(Reply::ok(list(revisions, None))),
        Step::get(GET_RECORDER_LEASE).reply(Reply::status(404, "NotFound", "not found")),
    ]
}

fn recorded() -> Vec<Value> {
    vec![revision(1, "app:v1", ""), revision(2, "app:v2", "0")]
}

/// The one rollback patch: it replaces the template only if the JobSet is still the one
/// read (uid) and its replicatedJob still has the name and template read.
fn guarded_patch() -> Step {
    Step::patch(PATCH_JOBSET).content_type(JSON_PATCH).body(json!([
        {"op": "test", "path": "/metadata/uid", "value": "uid-train"},
        {"op": "test", "path": "/spec/replicatedJobs/0/name", "value": "w"},
        {"op": "test", "path": "/spec/replicatedJobs/0/template", "value": template("app:v2")},
        {"op": "replace", "path": "/spec/replicatedJobs/0/template", "value": template("app:v1")},
    ]))
}

#[tokio::test]
async fn rollback_sends_one_guarded_json_patch_then_records_the_revision_it_put_back() {
    let (cluster, api) = api_server::cluster("ml");
    // Revision 1's templates are the spec's again: it becomes revision 3, with why.
    let mut renumbered = revision(1, "app:v1", "");
    renumbered["revision"] = json!(3);
    renumbered["metadata"]["annotations"]["kubernetes.io/change-cause"] = json!("rollback to revision 1");
    let renumber = Step::patch(PATCH_REVISION_1).content_type(JSON_PATCH).body(json!([
        {"op": "test", "path": "/revision", "value": 1},
        {"op": "replace", "path": "/revision", "value": 3},
        // The view of the JobSet it was renumbered from: an older view is no rollback.
        {"op": "add", "path": "/metadata/annotations/kubectl-jobset.io~1spec-resource-version", "value": "7"},
        {"op": "add", "path": "/metadata/annotations/kubernetes.io~1change-cause", "value": "rollback to revision 1"},
    ]));
    let history_now = list(vec![renumbered.clone(), revision(2, "app:v2", "0")], None);
    let scenario = Scenario::new()
        .together(first_reads("app:v2", recorded()))
        .then(guarded_patch().reply(Reply::ok(jobset("app:v1"))))
        // After the patch: read again, and record the rollback.
        .together(first_reads("app:v1", recorded()))
        // The Job still runs app:v2: a dry run defaults the spec's template to compare.
        .then(Step::post(DRY_RUN).reply(Reply::created(job("app:v1"))))
        .then(renumber.reply(Reply::ok(renumbered)))
        // The history read back, to say which revision the spec is now.
        .then(Step::get(LIST_REVISIONS).reply(Reply::ok(history_now)));
    let server = tokio::spawn(api.verify(scenario));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    run(&cluster, &plan(), &mut out, &mut err, None).await.unwrap();
    server.await.unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains("jobset.jobset.x-k8s.io/train rolled back to revision 1 (now revision 3)\n"),
        "{out}"
    );
    assert_eq!(String::from_utf8(err).unwrap(), "");
}

/// A `test` op that fails is answered 422 with the API server's generic message; a
/// conflict (409) means the same: someone wrote first.
#[tokio::test]
async fn a_patch_refused_by_its_guard_is_changed_meanwhile_and_nothing_else_is_written() {
    let refusals = [
        Reply::status(422, "Invalid", "the server rejected our request due to an error in our request"),
        Reply::status(
            409,
            "Conflict",
            "the object has been modified; please apply your changes to the latest version",
        ),
    ];
    for refusal in refusals {
        let (cluster, api) = api_server::cluster("ml");
        // Someone else's edit (app:v3) landed between our read and our patch: the re-read
        // finds the same JobSet (same uid), with their template.
        let scenario = Scenario::new()
            .together(first_reads("app:v2", recorded()))
            .then(guarded_patch().reply(refusal))
            .then(Step::get(GET_JOBSET).reply(Reply::ok(jobset("app:v3"))));
        let server = tokio::spawn(api.verify(scenario));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let error = run(&cluster, &plan(), &mut out, &mut err, None).await.unwrap_err();
        // No other request: no second patch, no history written.
        server.await.unwrap();
        assert_eq!(
            error.to_string(),
            "jobset.jobset.x-k8s.io/train not rolled back: its templates were changed by someone else since \
             they were read, so nothing was changed (their edit is kept); run the rollback again to review the \
             new state"
        );
        let out = String::from_utf8(out).unwrap();
        assert!(!out.contains("rolled back to"), "{out}");
    }
}

mod restage {
    //! Restaging (`--at-next-restart` on top of a staged change): a revision's data is
    //! immutable, so the new change is created under the next generation first and the
    //! old one deleted after, guarded by its resourceVersion. A failed create leaves the
    //! old change staged; a lost race takes the new one back.

    use super::api_server::{self, Reply, Scenario, Step};
    use http::Method;
    use kubectl_jobset::execute::staged::stage;
    use kubectl_jobset::model::jobset::JobSet;
    use kubectl_jobset::plan::staged::Staged;
    use serde_json::json;

    const REVISIONS: &str = "/apis/apps/v1/namespaces/ml/controllerrevisions?&fieldManager=kubectl-jobset";
    const OLD: &str = "/apis/apps/v1/namespaces/ml/controllerrevisions/train-staged";
    const NEW: &str = "/apis/apps/v1/namespaces/ml/controllerrevisions/train-staged-2";

    fn train() -> JobSet {
        JobSet::from_raw(super::jobset("app:v1")).unwrap()
    }

    fn staged_v2() -> Staged {
        Staged {
            name: "train-staged".into(),
            templates: vec![("w".into(), super::template("app:v2"))],
            base: String::new(),
            staged_at_attempt: 0,
            restart_from: None,
            cause: None,
            resource_version: "41".into(),
            generation: 1,
            superseded: vec![("train-staged-0".into(), "7".into())],
            held_for: None,
        }
    }

    fn created() -> Reply {
        Reply::created(json!({"apiVersion": "apps/v1", "kind": "ControllerRevision", "revision": 2,
            "metadata": {"name": "train-staged-2", "namespace": "ml", "resourceVersion": "42"}}))
    }

    fn deleted() -> Reply {
        Reply::ok(json!({"kind": "Status", "apiVersion": "v1", "status": "Success"}))
    }

    fn delete(uri: &str, version: &str) -> Step {
        Step::new(Method::DELETE, &format!("{uri}?"))
            .body(json!({"preconditions": {"resourceVersion": version}}))
    }

    #[tokio::test]
    async fn the_new_change_is_created_before_the_old_one_is_deleted() {
        let (cluster, api) = api_server::cluster("ml");
        let scenario = Scenario::new()
            .then(Step::post(REVISIONS).reply(created()))
            .then(delete(OLD, "41").reply(deleted()))
            // A superseded leftover goes too.
            .then(
                delete("/apis/apps/v1/namespaces/ml/controllerrevisions/train-staged-0", "7")
                    .reply(deleted()),
            );
        let server = tokio::spawn(api.verify(scenario));
        let templates = vec![("w".to_owned(), super::template("app:v3"))];
        let staged = stage(&cluster, &train(), &templates, "why", Some(&staged_v2())).await.unwrap();
        let seen = server.await.unwrap();
        assert!(staged);
        assert_eq!(seen[0].body["metadata"]["name"], "train-staged-2");
        assert_eq!(seen[0].body["revision"], 2);
        assert_eq!(seen[0].body["data"]["replicatedJobs"][0]["template"], super::template("app:v3"));
    }

    /// The window the old order had: the old change deleted, the new one refused.
    #[tokio::test]
    async fn a_refused_create_leaves_the_old_change_staged() {
        let (cluster, api) = api_server::cluster("ml");
        let forbidden =
            Reply::status(403, "Forbidden", "controllerrevisions is forbidden: no create for you");
        let scenario = Scenario::new().then(Step::post(REVISIONS).reply(forbidden));
        let server = tokio::spawn(api.verify(scenario));
        let templates = vec![("w".to_owned(), super::template("app:v3"))];
        let error = stage(&cluster, &train(), &templates, "why", Some(&staged_v2())).await.unwrap_err();
        // No DELETE followed: the old staged change is still there.
        server.await.unwrap();
        assert!(error.to_string().contains("forbidden"), "{error}");
    }

    /// The old change changed since it was read (a restart began applying it): ours is
    /// taken back and the command says so.
    #[tokio::test]
    async fn a_lost_race_takes_the_new_change_back() {
        let (cluster, api) = api_server::cluster("ml");
        let conflict =
            Reply::status(409, "Conflict", "Precondition failed: ResourceVersion in precondition: 41");
        let scenario = Scenario::new()
            .then(Step::post(REVISIONS).reply(created()))
            .then(delete(OLD, "41").reply(conflict))
            .then(delete(NEW, "42").reply(deleted()));
        let server = tokio::spawn(api.verify(scenario));
        let templates = vec![("w".to_owned(), super::template("app:v3"))];
        let error = stage(&cluster, &train(), &templates, "why", Some(&staged_v2())).await.unwrap_err();
        server.await.unwrap();
        assert!(error.to_string().contains("changed by someone else since it was read"), "{error}");
    }
}

mod rollout {
    //! The rollout driver's requests, against a small stateful fake of the API server: the
    //! journal (a ConfigMap, guarded by its resourceVersion) and one JobSet. Pins the
    //! order that makes a killed driver safe: every step's intent is written to the
    //! journal before the step is sent, and each step is guarded (the template patch by
    //! `test` ops of the templates read, the restart by a `test` of `status.restarts`).

    use std::sync::{Arc, Mutex};

    use http::Method;
    use kubectl_jobset::execute::rollout::{Driver, drive};
    use kubectl_jobset::plan::rollout::{BatchSize, Gate, RestartMode, RolloutSpec, RolloutState};
    use serde_json::{Value, json};

    use super::api_server::{self, Received, Reply, list};

    const JOURNAL: &str = "/api/v1/namespaces/ml/configmaps/kubectl-jobset-rollout-r";

    fn spec() -> RolloutSpec {
        RolloutSpec {
            images: vec!["c=app:v1".into()],
            env: vec![],
            env_containers: "*".into(),
            to_revision: None,
            namespace: Some("ml".into()),
            selector: None,
            names: vec!["train".into()],
            canary: 0,
            canary_names: vec![],
            canary_restart: RestartMode::Now,
            gate: Gate::Ready { seconds: 0 },
            batch_size: BatchSize::Count(1),
            restart: RestartMode::Now,
            max_restarting: 1,
            cause: "rollout r: --image c=app:v1".into(),
        }
    }

    struct Fake {
        journal: Value,
        journal_version: u64,
        jobset: Value,
        /// Writes, in order: (what, the state or body written).
        writes: Vec<(String, Value)>,
    }

    impl Fake {
        /// A JSON patch of the JobSet, its `test` ops checked as the API server does.
        fn apply(&mut self, what: &str, request: &Received) -> Reply {
            self.writes.push((what.into(), request.body.clone()));
            let patch: json_patch::Patch = serde_json::from_value(request.body.clone()).unwrap();
            if json_patch::patch(&mut self.jobset, &patch).is_err() {
                let message = "the server rejected our request due to an error in our request";
                return Reply::status(422, "Invalid", message);
            }
            Reply::ok(self.jobset.clone())
        }

        fn answer(&mut self, request: &Received) -> Reply {
            let path = request.path().to_owned();
            match (request.method.clone(), path.as_str()) {
                (Method::GET, JOURNAL) => Reply::ok(self.journal.clone()),
                (Method::PUT, JOURNAL) => {
                    let sent =
                        request.body["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_owned();
                    if sent != self.journal_version.to_string() {
                        return Reply::status(409, "Conflict", "the object has been modified");
                    }
                    self.journal_version += 1;
                    self.journal = request.body.clone();
                    self.journal["metadata"]["resourceVersion"] = json!(self.journal_version.to_string());
                    let state: Value =
                        serde_json::from_str(request.body["data"]["state.json"].as_str().unwrap()).unwrap();
                    self.writes.push(("journal".into(), state));
                    Reply::ok(self.journal.clone())
                }
                (Method::GET, p) if p.ends_with("/jobsets") || p.ends_with("/jobsets/train") => {
                    match p.ends_with("/jobsets") {
                        true => Reply::ok(list(vec![self.jobset.clone()], None)),
                        false => Reply::ok(self.jobset.clone()),
                    }
                }
                (Method::GET, p) if p.ends_with("/jobs") => {
                    let attempt = self.jobset["status"]["restarts"].as_i64().unwrap();
                    let image = super::image_of(&self.jobset);
                    let mut job = super::job(&image);
                    job["metadata"]["labels"]["jobset.sigs.k8s.io/restart-attempt"] =
                        json!(attempt.to_string());
                    job["status"] = json!({"ready": 1});
                    Reply::ok(list(vec![job], None))
                }
                (Method::PATCH, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train") => {
                    self.apply("template patch", request)
                }
                (Method::PATCH, "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/train/status") => {
                    self.apply("restart", request)
                }
                (Method::GET, p) if p.contains("/leases/") => Reply::status(404, "NotFound", "not found"),
                (Method::GET, p) if p.ends_with("/controllerrevisions") => Reply::ok(list(vec![], None)),
                (Method::POST, _) => {
                    let mut created = request.body.clone();
                    created["metadata"]["resourceVersion"] = json!("1");
                    Reply::created(created)
                }
                _ => Reply::ok(list(vec![], None)),
            }
        }
    }

    #[tokio::test]
    async fn every_step_is_journaled_before_it_is_sent_and_each_is_guarded() {
        let (cluster, api) = api_server::cluster("ml");
        let mut jobset = super::jobset("app:v0");
        jobset["metadata"]["labels"] = json!({});
        let spec = spec();
        let js = kubectl_jobset::model::jobset::JobSet::from_raw(jobset.clone()).unwrap();
        let state = RolloutState::started(&spec, &[&js]);
        let journal = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "kubectl-jobset-rollout-r", "namespace": "ml", "resourceVersion": "1",
                "labels": {"kubectl-jobset.io/rollout": "r"}},
            "data": {"spec.json": serde_json::to_string(&spec).unwrap(), "state.json": serde_json::to_string(&state).unwrap()}});
        let fake = Arc::new(Mutex::new(Fake { journal, journal_version: 1, jobset, writes: Vec::new() }));
        let server = {
            let fake = fake.clone();
            tokio::spawn(api.serve(move |request| fake.lock().unwrap().answer(request)))
        };
        let plan = Driver {
            name: Some("r".into()),
            namespace: "ml".into(),
            requested_by: "test".into(),
            timeout: None,
            history_limit: 10,
        };
        let (mut out, mut err, mut steps) = (Vec::new(), Vec::new(), Vec::new());
        drive(&cluster, &plan, &mut out, &mut err, &mut |step| steps.push(step)).await.unwrap();
        drop(cluster);
        server.await.unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("the rollout is complete"), "{out}");
        assert_eq!(steps, [("patch", "done"), ("restart", "done")]);

        let fake = fake.lock().unwrap();
        let seen: Vec<String> = fake
            .writes
            .iter()
            .map(|(what, body)| match what.as_str() {
                "journal" => format!(
                    "journal {} {}",
                    body["phase"].as_str().unwrap(),
                    body["members"][0]["state"]["state"].as_str().unwrap()
                ),
                other => other.to_owned(),
            })
            .collect();
        assert_eq!(
            seen,
            [
                "journal Progressing Changing",
                "template patch",
                "journal Progressing Changed",
                "journal Progressing Restarting",
                "restart",
                "journal Progressing Restarted",
                "journal Progressing Restarted",
                "journal Completed Done",
            ],
            "{:#?}",
            fake.writes
        );
        // The template patch tests the template it read; the restart tests the attempt.
        let patch = &fake.writes.iter().find(|(w, _)| w == "template patch").unwrap().1;
        assert!(
            patch
                .as_array()
                .unwrap()
                .iter()
                .any(|op| op["op"] == "test" && op["path"] == "/spec/replicatedJobs/0/template"),
            "{patch:#}"
        );
        let restart = &fake.writes.iter().find(|(w, _)| w == "restart").unwrap().1;
        assert!(
            restart
                .as_array()
                .unwrap()
                .iter()
                .any(|op| op["op"] == "test" && op["path"] == "/status/restarts" && op["value"] == 0),
            "{restart:#}"
        );
        assert_eq!(super::image_of(&fake.jobset), "app:v1");
    }
}

fn image_of(jobset: &Value) -> String {
    jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
