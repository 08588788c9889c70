//! `set resources` planning, without I/O: kubectl's `--limits`/`--requests`
//! `NAME=QUANTITY,…` lists for the containers `-c [REPLICATEDJOB/]CONTAINER` names (every
//! container by default), as a [`ContainerSetter`] of the `resources` field; a quantity
//! of 0 removes the resource, as with kubectl. And, under Kueue, whether the JobSet with
//! the new requests could ever be admitted by its ClusterQueue.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::model::jobset::JobSet;
use crate::model::kueue::{ClusterQueueQuota, quantity};
use crate::plan::template_change::{ContainerSetter, Target};

/// The resources change of one `set resources`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcesChange {
    pub target: Target,
    pub limits: BTreeMap<String, String>,
    pub requests: BTreeMap<String, String>,
}

impl ContainerSetter for ResourcesChange {
    fn field(&self) -> &'static str {
        "resources"
    }

    fn set(&self, container: &Value) -> Value {
        let mut resources = container["resources"].as_object().cloned().unwrap_or_default();
        for (kind, wanted) in [("limits", &self.limits), ("requests", &self.requests)] {
            if wanted.is_empty() {
                continue;
            }
            let mut list: Map<String, Value> =
                resources.get(kind).and_then(Value::as_object).cloned().unwrap_or_default();
            for (name, value) in wanted {
                let same =
                    list.get(name).and_then(Value::as_str).is_some_and(|v| quantity(v) == quantity(value));
                if quantity(value) == Some(0) {
                    list.remove(name);
                } else if !same {
                    list.insert(name.clone(), Value::String(value.clone()));
                }
            }
            if list.is_empty() {
                resources.remove(kind);
            } else {
                resources.insert(kind.to_owned(), Value::Object(list));
            }
        }
        match (resources.is_empty(), container["resources"].is_null()) {
            (true, true) => Value::Null,
            _ => Value::Object(resources),
        }
    }
}

impl ResourcesChange {
    /// `--limits=cpu=2 --requests=cpu=1`, as typed (for hints and the change cause).
    pub fn words(&self) -> String {
        let list = |m: &BTreeMap<String, String>| {
            m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
        };
        let mut words = Vec::new();
        if !self.limits.is_empty() {
            words.push(format!("--limits={}", list(&self.limits)));
        }
        if !self.requests.is_empty() {
            words.push(format!("--requests={}", list(&self.requests)));
        }
        words.join(" ")
    }
}

/// Reads `cpu=200m,memory=512Mi` (`--limits`, `--requests`); `flag` names it in errors.
pub fn parse_resource_list(flag: &str, text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut list = BTreeMap::new();
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let bad = |why: &str| {
            format!(
                "invalid {flag} item {item:?}: {why}; use NAME=QUANTITY[,NAME=QUANTITY], e.g. cpu=2,memory=4Gi"
            )
        };
        let (name, value) = item.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() || name.chars().any(char::is_whitespace) {
            return Err(bad("the resource name is empty or has spaces"));
        }
        match quantity(value) {
            Some(q) if q >= 0 => {}
            Some(_) => return Err(bad("a quantity cannot be negative")),
            None => return Err(bad("not a quantity (such as 500m, 2, 4Gi)")),
        }
        if list.insert(name.to_owned(), value.to_owned()).is_some() {
            return Err(bad("the resource is named twice"));
        }
    }
    if list.is_empty() {
        return Err(format!("{flag} needs NAME=QUANTITY[,NAME=QUANTITY], e.g. cpu=2,memory=4Gi"));
    }
    Ok(list)
}

/// Containers whose request of a resource would exceed its limit once changed (the
/// JobSet would accept it, and every Job created from it would then be refused):
/// `workers/trainer: cpu request 4 is above its limit 2`.
pub fn requests_above_limits(jobset: &JobSet) -> Vec<String> {
    let mut found = Vec::new();
    for rjob in &jobset.spec.replicated_jobs {
        for c in pod_containers(&rjob.template.value()) {
            let (limits, requests) = (&c["resources"]["limits"], &c["resources"]["requests"]);
            for (name, request) in requests.as_object().into_iter().flatten() {
                let (Some(request), Some(limit)) = (request.as_str(), limits[name].as_str()) else {
                    continue;
                };
                if quantity(request) > quantity(limit) {
                    let container = c["name"].as_str().unwrap_or_default();
                    found.push(format!(
                        "{}/{container}: {name} request {request} is above its limit {limit}",
                        rjob.name
                    ));
                }
            }
        }
    }
    found
}

/// What Kueue counts for a whole JobSet, per resource (thousandths): per replicatedJob,
/// replicas × min(parallelism, completions) Pods, each requesting the larger of its
/// containers' sum and its largest init container (a request defaults to the limit).
pub fn kueue_demand(jobset: &JobSet) -> BTreeMap<String, i128> {
    let mut total: BTreeMap<String, i128> = BTreeMap::new();
    for rjob in &jobset.spec.replicated_jobs {
        let template = rjob.template.value();
        let spec = &template["spec"];
        let parallelism = spec["parallelism"].as_i64().unwrap_or(1);
        let pods = i128::from(rjob.replicas)
            * i128::from(parallelism.min(spec["completions"].as_i64().unwrap_or(parallelism)));
        let pod = &template["spec"]["template"]["spec"];
        let mut per_pod: BTreeMap<String, i128> = BTreeMap::new();
        for c in pod["containers"].as_array().into_iter().flatten() {
            for (name, q) in requests_of(c) {
                *per_pod.entry(name).or_default() += q;
            }
        }
        for c in pod["initContainers"].as_array().into_iter().flatten() {
            for (name, q) in requests_of(c) {
                let slot = per_pod.entry(name).or_default();
                *slot = (*slot).max(q);
            }
        }
        for (name, q) in per_pod {
            *total.entry(name).or_default() += q * pods;
        }
    }
    total
}

/// Why the ClusterQueue could never admit a JobSet asking for `demand`: a resource it
/// covers asked for beyond the most it can ever give (its quota, plus what it may borrow).
/// Resources it does not cover are left to Kueue (its configuration may exclude them).
pub fn never_admitted(demand: &BTreeMap<String, i128>, quota: &ClusterQueueQuota) -> Vec<String> {
    demand
        .iter()
        .filter_map(|(name, need)| {
            let most = (*quota.most.get(name)?)?;
            (*need > most).then(|| {
                format!(
                    "{name} {} is more than the {} ClusterQueue {} can ever give",
                    show(*need),
                    show(most),
                    quota.name
                )
            })
        })
        .collect()
}

/// A quantity in thousandths, written back plainly: `2500m` → `2.5`, `8Gi` → `8Gi`.
fn show(milli: i128) -> String {
    const GI: i128 = 1000 * 1024 * 1024 * 1024;
    const MI: i128 = 1000 * 1024 * 1024;
    if milli >= GI && milli % GI == 0 {
        return format!("{}Gi", milli / GI);
    }
    if milli >= MI && milli % MI == 0 {
        return format!("{}Mi", milli / MI);
    }
    match milli % 1000 {
        0 => format!("{}", milli / 1000),
        _ => format!("{milli}m"),
    }
}

fn pod_containers(template: &Value) -> impl Iterator<Item = &Value> {
    let pod = &template["spec"]["template"]["spec"];
    ["initContainers", "containers"]
        .into_iter()
        .flat_map(move |list| pod[list].as_array().into_iter().flatten())
}

/// A container's requests by resource (thousandths), a missing request taking its limit.
fn requests_of(container: &Value) -> BTreeMap<String, i128> {
    let read = |list: &Value| -> BTreeMap<String, i128> {
        list.as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), quantity(v.as_str()?)?)))
            .collect()
    };
    let mut requests = read(&container["resources"]["limits"]);
    requests.extend(read(&container["resources"]["requests"]));
    requests
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn change(limits: &str, requests: &str) -> ResourcesChange {
        let read = |flag, t: &str| {
            if t.is_empty() { BTreeMap::new() } else { parse_resource_list(flag, t).unwrap() }
        };
        ResourcesChange {
            target: Target::all(),
            limits: read("--limits", limits),
            requests: read("--requests", requests),
        }
    }

    #[test]
    fn lists_follow_kubectl_grammar() {
        let list = parse_resource_list("--limits", "cpu=200m, memory=512Mi").unwrap();
        assert_eq!(
            list.into_iter().collect::<Vec<_>>(),
            [("cpu".into(), "200m".into()), ("memory".into(), "512Mi".into())]
        );
        let why = |t: &str| parse_resource_list("--requests", t).unwrap_err();
        assert_eq!(
            why("cpu"),
            r#"invalid --requests item "cpu": no '='; use NAME=QUANTITY[,NAME=QUANTITY], e.g. cpu=2,memory=4Gi"#
        );
        assert!(why("cpu=lots").contains("not a quantity"));
        assert!(why("cpu=-1").contains("negative"));
        assert!(why("cpu=1,cpu=2").contains("twice"));
        assert!(why("").contains("needs NAME=QUANTITY"));
    }

    #[test]
    fn values_are_set_zero_removes_and_equal_quantities_are_kept_as_written() {
        let c = json!({"name": "c", "resources": {"requests": {"cpu": "1000m", "memory": "1Gi"}}});
        assert_eq!(
            change("cpu=2", "cpu=1,memory=0").set(&c),
            json!({"limits": {"cpu": "2"}, "requests": {"cpu": "1000m"}})
        );
        assert_eq!(change("", "memory=0").set(&json!({"name": "c"})), Value::Null);
        assert_eq!(change("", "cpu=1").words(), "--requests=cpu=1");
    }

    fn jobset(cpu_request: &str, cpu_limit: Option<&str>) -> JobSet {
        let mut resources = json!({"requests": {"cpu": cpu_request}});
        if let Some(limit) = cpu_limit {
            resources["limits"] = json!({"cpu": limit});
        }
        JobSet::from_raw(json!({"metadata": {"name": "train", "namespace": "ml"}, "spec": {"replicatedJobs": [
            {"name": "workers", "replicas": 2, "template": {"spec": {"parallelism": 3, "completions": 2, "template": {"spec": {
                "initContainers": [{"name": "init", "resources": {"limits": {"cpu": "5"}}}],
                "containers": [{"name": "a", "resources": resources}, {"name": "b", "resources": {"requests": {"memory": "1Gi"}}}]}}}}}
        ]}}))
        .unwrap()
    }

    #[test]
    fn demand_is_what_kueue_counts_and_a_queue_too_small_is_named() {
        // 2 replicas × min(3, 2) Pods; per Pod max(1.5 cpu, init 5 cpu) = 5 cpu.
        let demand = kueue_demand(&jobset("1500m", None));
        assert_eq!(demand.get("cpu"), Some(&20_000));
        assert_eq!(demand.get("memory"), Some(&(4 * 1000 * 1024 * 1024 * 1024)));
        let quota = ClusterQueueQuota {
            name: "cq".into(),
            most: BTreeMap::from([("cpu".into(), Some(8_000)), ("memory".into(), None)]),
        };
        assert_eq!(
            never_admitted(&demand, &quota),
            ["cpu 20 is more than the 8 ClusterQueue cq can ever give"]
        );
        assert!(never_admitted(&BTreeMap::from([("cpu".into(), 8_000)]), &quota).is_empty());
        assert!(never_admitted(&BTreeMap::from([("gpu".into(), 9_000)]), &quota).is_empty(), "not covered");
    }

    #[test]
    fn a_request_above_its_limit_is_named() {
        assert_eq!(
            requests_above_limits(&jobset("3", Some("2"))),
            ["workers/a: cpu request 3 is above its limit 2"]
        );
        assert!(requests_above_limits(&jobset("2", Some("2000m"))).is_empty());
    }
}
