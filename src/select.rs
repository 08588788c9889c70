//! Which JobSets a command acts on: names, `-l`, `-n` and `-A`, validated without IO.

use crate::error::{Error, Result};

/// A validated selection of JobSets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `None` means every namespace (`-A`).
    pub namespace: Option<String>,
    /// Explicit names, de-duplicated, in the order given; empty means "all that match".
    pub names: Vec<String>,
    pub label_selector: Option<String>,
    /// `--field-selector` on JobSets, passed to the API server (`list` only).
    pub field_selector: Option<String>,
}

/// Stands for "the context's namespace" until connected (never a valid namespace).
const DEFAULT_NAMESPACE_PENDING: &str = "";

/// Prefixes kubectl users type before a JobSet name.
const NAME_PREFIXES: &[&str] =
    &["jobset/", "jobsets/", "jobset.jobset.x-k8s.io/", "jobsets.jobset.x-k8s.io/"];

impl Selection {
    pub fn new(
        names: &[String],
        all_namespaces: bool,
        selector: Option<&str>,
        namespace: &str,
    ) -> Result<Self> {
        Self::parse(names, all_namespaces, selector, Some(namespace))
    }

    /// Validates without a cluster. Without `-n` (None) the namespace is the kubeconfig
    /// context's, known only once connected: `in_default_namespace` fills it in then.
    pub fn parse(
        names: &[String],
        all_namespaces: bool,
        selector: Option<&str>,
        namespace: Option<&str>,
    ) -> Result<Self> {
        let mut parsed: Vec<String> = Vec::new();
        for raw in names {
            let name = parse_name(raw)?;
            if !parsed.contains(&name) {
                parsed.push(name);
            }
        }
        if all_namespaces && !parsed.is_empty() {
            return Err(Error::Usage(
                "a JobSet cannot be named across all namespaces: drop -A and pass -n NAMESPACE".into(),
            ));
        }
        if selector.is_some() && !parsed.is_empty() {
            return Err(Error::Usage(
                "names cannot be combined with -l/--selector: pass one or the other".into(),
            ));
        }
        let label_selector = match selector.map(str::trim) {
            Some("") => {
                return Err(Error::Usage("-l/--selector needs a label selector, e.g. -l team=ml".into()));
            }
            other => other.map(str::to_owned),
        };
        if let Some(namespace) = namespace.filter(|_| !all_namespaces) {
            validate_dns_label(namespace)
                .map_err(|why| Error::Usage(format!("invalid namespace {namespace:?}: {why}")))?;
        }
        Ok(Selection {
            namespace: (!all_namespaces).then(|| namespace.unwrap_or(DEFAULT_NAMESPACE_PENDING).to_owned()),
            names: parsed,
            label_selector,
            field_selector: None,
        })
    }

    /// Fills in the kubeconfig context's namespace where `-n` was not given.
    pub fn in_default_namespace(mut self, default: &str) -> Self {
        if self.namespace.as_deref() == Some(DEFAULT_NAMESPACE_PENDING) {
            self.namespace = Some(default.to_owned());
        }
        self
    }
}

/// `NAME`, `jobset/NAME` or `jobsets.jobset.x-k8s.io/NAME` → `NAME`, validated.
pub fn parse_name(raw: &str) -> Result<String> {
    let name = NAME_PREFIXES.iter().find_map(|p| raw.strip_prefix(p)).unwrap_or(raw);
    if name.contains('/') {
        return Err(Error::Usage(format!(
            "{raw:?} is not a JobSet: pass NAME or jobset/NAME (other resource types are not handled here)"
        )));
    }
    validate_dns_subdomain(name)
        .map_err(|why| Error::Usage(format!("invalid JobSet name {raw:?}: {why}")))?;
    Ok(name.to_owned())
}

/// Why a name is not one Kubernetes accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum BadName {
    #[error("it is empty")]
    Empty,
    #[error("it is longer than {0} characters")]
    TooLong(usize),
    #[error("use lowercase letters, digits and '-', starting and ending with a letter or digit")]
    Characters,
}

/// RFC 1123 subdomain, as Kubernetes requires of object names.
fn validate_dns_subdomain(name: &str) -> std::result::Result<(), BadName> {
    if name.is_empty() {
        return Err(BadName::Empty);
    }
    if name.len() > 253 {
        return Err(BadName::TooLong(253));
    }
    for part in name.split('.') {
        validate_label_chars(part)?;
    }
    Ok(())
}

/// RFC 1123 label, as Kubernetes requires of namespace names.
fn validate_dns_label(name: &str) -> std::result::Result<(), BadName> {
    if name.len() > 63 {
        return Err(BadName::TooLong(63));
    }
    validate_label_chars(name)
}

fn validate_label_chars(part: &str) -> std::result::Result<(), BadName> {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    if part.is_empty() || !part.chars().all(ok_char) || !part.starts_with(alnum) || !part.ends_with(alnum) {
        return Err(BadName::Characters);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_with_prefixes_are_deduplicated() {
        let s = Selection::new(&names(&["a", "jobset/a", "jobsets.jobset.x-k8s.io/b"]), false, None, "ml")
            .unwrap();
        assert_eq!(s.names, ["a", "b"]);
        assert_eq!(s.namespace.as_deref(), Some("ml"));
    }

    #[test]
    fn all_namespaces_has_no_namespace() {
        let s = Selection::new(&[], true, Some("team=x"), "ml").unwrap();
        assert_eq!(s.namespace, None);
        assert_eq!(s.label_selector.as_deref(), Some("team=x"));
    }

    #[test]
    fn conflicting_and_invalid_input_is_a_usage_error() {
        for (n, all, sel, ns) in [
            (names(&["a"]), true, None, "ml"),
            (names(&["a"]), false, Some("x=y"), "ml"),
            (names(&["Bad_Name"]), false, None, "ml"),
            (names(&["deployment/a"]), false, None, "ml"),
            (names(&[""]), false, None, "ml"),
            (vec![], false, Some(" "), "ml"),
            (vec![], false, None, "Not-A-Namespace"),
        ] {
            let err = Selection::new(&n, all, sel, ns).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{err}");
        }
    }
}
