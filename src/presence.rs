//! A running recorder announces itself on a Lease; the CLI reads it to decide whether
//! to record history itself. The recorder writes the Lease; this is the pure reading
//! side and the names both sides share.

use std::collections::BTreeMap;

use k8s_openapi::api::coordination::v1::Lease;
use kube::core::{Expression, Selector, SelectorExt};

use crate::model::jobset::JobSet;

/// The Lease's name.
pub const LEASE_NAME: &str = "kubectl-jobset-recorder";
/// Where the Lease lives unless the recorder is told otherwise (as cert-manager's).
pub const DEFAULT_LEASE_NAMESPACE: &str = "kube-system";
/// Where the CLI looks for the Lease, when the recorder runs with `--lease-namespace`.
pub const LEASE_NAMESPACE_ENV: &str = "KUBECTL_JOBSET_RECORDER_NAMESPACE";
/// Annotation: the namespaces the recorder watches, comma-separated; empty = all.
pub const NAMESPACES_ANNOTATION: &str = "kubectl-jobset.io/recorder-namespaces";
/// Annotation: the recorder's `-l` label selector; empty = every JobSet.
pub const SELECTOR_ANNOTATION: &str = "kubectl-jobset.io/recorder-selector";
/// Annotation: the version of the recorder holding the Lease (`kubectl jobset version`).
pub const VERSION_ANNOTATION: &str = "kubectl-jobset.io/recorder-version";
/// Annotation: whether the recorder enforces update strategies, and its default for
/// JobSets without the annotation (`RecordOnly`, `Never`, `Opportunistic`, `Immediate`);
/// `off` or absent: it does not enforce them.
pub const STRATEGIES_ANNOTATION: &str = "kubectl-jobset.io/recorder-update-strategies";

/// The namespace the CLI reads the Lease from.
pub fn lease_namespace() -> String {
    std::env::var(LEASE_NAMESPACE_ENV)
        .ok()
        .filter(|ns| !ns.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_LEASE_NAMESPACE.to_owned())
}

/// Which JobSets a running recorder keeps the history of.
#[derive(Debug, Clone, PartialEq)]
pub struct Scope {
    /// Empty: every namespace.
    pub namespaces: Vec<String>,
    /// None: every JobSet.
    pub selector: Option<Selector>,
    /// Some: it enforces update strategies, with this default; None: it does not.
    pub strategies: Option<crate::model::strategy::DefaultStrategy>,
}

impl Scope {
    /// The annotations a recorder with this scope writes on its Lease.
    pub fn annotations(namespaces: &[String], selector: Option<&str>) -> BTreeMap<String, String> {
        BTreeMap::from([
            (NAMESPACES_ANNOTATION.to_owned(), namespaces.join(",")),
            (SELECTOR_ANNOTATION.to_owned(), selector.unwrap_or_default().to_owned()),
            (VERSION_ANNOTATION.to_owned(), env!("CARGO_PKG_VERSION").to_owned()),
        ])
    }

    /// The annotation that says whether update strategies are enforced, and the default.
    pub fn strategies_annotation(
        enforced: Option<crate::model::strategy::DefaultStrategy>,
    ) -> (String, String) {
        let value = enforced.map_or_else(|| "off".to_owned(), |d| d.to_string());
        (STRATEGIES_ANNOTATION.to_owned(), value)
    }

    /// True when the recorder keeps this JobSet's history.
    pub fn covers(&self, jobset: &JobSet) -> bool {
        let in_namespace =
            self.namespaces.is_empty() || self.namespaces.iter().any(|ns| ns == jobset.namespace());
        let empty = BTreeMap::new();
        let labels = jobset.metadata.labels.as_ref().unwrap_or(&empty);
        in_namespace && self.selector.as_ref().is_none_or(|s| s.matches(labels))
    }
}

/// The scope of the recorder holding `lease`, if one holds it and renewed it within its
/// duration. A Lease we cannot read (an unparsable selector) means no recorder: the CLI
/// then records itself, which is never wrong, only redundant.
pub fn presence(lease: &Lease, now: jiff::Timestamp) -> Option<Scope> {
    let spec = lease.spec.as_ref()?;
    spec.holder_identity.as_deref().filter(|h| !h.is_empty())?;
    let renewed = spec.renew_time.as_ref()?.0;
    let duration = jiff::SignedDuration::from_secs(i64::from(spec.lease_duration_seconds?));
    if renewed.checked_add(duration).ok()? <= now {
        return None;
    }
    let annotations = lease.metadata.annotations.as_ref();
    let text = |key: &str| annotations.and_then(|a| a.get(key)).map(|v| v.trim()).unwrap_or_default();
    let namespaces = text(NAMESPACES_ANNOTATION)
        .split(',')
        .map(str::trim)
        .filter(|ns| !ns.is_empty())
        .map(str::to_owned)
        .collect();
    let selector = match text(SELECTOR_ANNOTATION) {
        "" => None,
        s => Some(parse_label_selector(s).ok()?),
    };
    let strategies = text(STRATEGIES_ANNOTATION).parse().ok();
    Some(Scope { namespaces, selector, strategies })
}

/// Parses kubectl's label-selector grammar (`a=b`, `a==b`, `a!=b`, `a in (x,y)`,
/// `a notin (x,y)`, `a`, `!a`, comma-separated) into a selector we can match locally.
pub fn parse_label_selector(text: &str) -> Result<Selector, BadSelector> {
    let mut expressions = Vec::new();
    for term in split_terms(text) {
        let term = term.trim();
        let bad = || BadSelector(term.to_owned());
        let expression = if let Some(key) = term.strip_prefix('!') {
            Expression::DoesNotExist(key.trim().to_owned())
        } else if let Some((key, values)) = set_term(term, " notin ") {
            Expression::NotIn(key, values)
        } else if let Some((key, values)) = set_term(term, " in ") {
            Expression::In(key, values)
        } else if let Some((key, value)) = term.split_once("!=") {
            Expression::NotEqual(key.trim().to_owned(), value.trim().to_owned())
        } else if let Some((key, value)) = term.split_once("==").or_else(|| term.split_once('=')) {
            Expression::Equal(key.trim().to_owned(), value.trim().to_owned())
        } else if !term.is_empty() && !term.contains([' ', '(', ')']) {
            Expression::Exists(term.to_owned())
        } else {
            return Err(bad());
        };
        expressions.push(expression);
    }
    Ok(expressions.into_iter().collect())
}

/// A label-selector term that is none of kubectl's forms.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse label selector term {0:?}")]
pub struct BadSelector(pub String);

/// Commas separate terms, except inside `( … )`.
fn split_terms(text: &str) -> Vec<&str> {
    let (mut terms, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&text[start..]);
    terms
}

/// `key in (a, b)` → (key, {a, b}).
fn set_term(term: &str, operator: &str) -> Option<(String, std::collections::BTreeSet<String>)> {
    let (key, rest) = term.split_once(operator)?;
    let inner = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    let values = inner.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned).collect();
    Some((key.trim().to_owned(), values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use k8s_openapi::api::coordination::v1::LeaseSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
    use serde_json::json;

    fn lease(holder: &str, renewed: &str, annotations: &[(&str, &str)]) -> Lease {
        let mut lease = Lease::default();
        lease.metadata.annotations =
            Some(annotations.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect());
        lease.spec = Some(LeaseSpec {
            holder_identity: Some(holder.to_owned()),
            lease_duration_seconds: Some(15),
            renew_time: Some(MicroTime(renewed.parse().unwrap())),
            ..Default::default()
        });
        lease
    }

    fn jobset(namespace: &str, labels: serde_json::Value) -> JobSet {
        testing::jobset("js")
            .namespace(namespace)
            .uid("u")
            .meta("labels", labels)
            .spec("replicatedJobs", json!([]))
            .typed()
            .build()
    }

    fn at(t: &str) -> jiff::Timestamp {
        t.parse().unwrap()
    }

    #[test]
    fn a_lease_renewed_within_its_duration_is_a_present_recorder() {
        let l = lease("pod-a", "2026-12-01T10:00:00Z", &[]);
        assert!(presence(&l, at("2026-12-01T10:00:14Z")).is_some());
        assert_eq!(presence(&l, at("2026-12-01T10:00:15Z")), None, "expired at renew + duration");
        let released = lease("", "2026-12-01T10:00:00Z", &[]);
        assert_eq!(presence(&released, at("2026-12-01T10:00:01Z")), None, "released on shutdown");
    }

    #[test]
    fn scope_follows_namespaces_and_selector() {
        let all = lease("a", "2026-12-01T10:00:00Z", &[]);
        let scope = presence(&all, at("2026-12-01T10:00:01Z")).unwrap();
        assert!(scope.covers(&jobset("x", json!({}))));

        let narrow = lease(
            "a",
            "2026-12-01T10:00:00Z",
            &[(NAMESPACES_ANNOTATION, "ml, research"), (SELECTOR_ANNOTATION, "team=ml,tier notin (dev)")],
        );
        let scope = presence(&narrow, at("2026-12-01T10:00:01Z")).unwrap();
        assert!(scope.covers(&jobset("ml", json!({"team": "ml"}))));
        assert!(scope.covers(&jobset("research", json!({"team": "ml", "tier": "prod"}))));
        assert!(!scope.covers(&jobset("ml", json!({"team": "ml", "tier": "dev"}))));
        assert!(!scope.covers(&jobset("other", json!({"team": "ml"}))));
        assert!(!scope.covers(&jobset("ml", json!({}))));
    }

    #[test]
    fn an_unreadable_selector_means_no_recorder() {
        let l = lease("a", "2026-12-01T10:00:00Z", &[(SELECTOR_ANNOTATION, "a in (b")]);
        assert_eq!(presence(&l, at("2026-12-01T10:00:01Z")), None);
    }

    #[test]
    fn label_selector_grammar() {
        let labels = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
        };
        let s = parse_label_selector("a=1, b==2, c!=3, d in (x, y), e notin (z), f, !g").unwrap();
        let good = labels(&[("a", "1"), ("b", "2"), ("d", "y"), ("e", "w"), ("f", "")]);
        assert!(s.matches(&good));
        let mut bad = good.clone();
        bad.insert("g".into(), "1".into());
        assert!(!s.matches(&bad));
        assert!(parse_label_selector("a b").is_err());
        // The round trip the annotations rely on.
        assert_eq!(Scope::annotations(&["ml".into()], Some("a=1"))[SELECTOR_ANNOTATION], "a=1");
    }
}
