//! The update-strategy contract: the annotation a JobSet opts in with, its three values,
//! and the default the in-cluster component applies to JobSets without it.
//!
//! - `Never`: template changes are refused at admission (our ValidatingAdmissionPolicy);
//!   nothing is ever restarted for the sake of the spec.
//! - `Opportunistic`: the new template is taken at the next restart, natural or forced;
//!   a queued (suspended) JobSet whose Jobs are outdated is restarted while suspended
//!   (nothing runs, so it is free), so it starts on the new template when it resumes.
//! - `Immediate`: a running JobSet whose Jobs drift from the spec is restarted once per
//!   spec revision, without counting towards `maxRestarts`.
//!
//! A JobSet without the annotation gets the component's default: record only (today's
//! behaviour) unless the component was started with another one.

use std::fmt;
use std::str::FromStr;

use super::jobset::JobSet;

/// The annotation a JobSet carries its update strategy in.
pub const ANNOTATION: &str = "kubectl-jobset.io/update-strategy";

/// A JobSet's update strategy, as the annotation spells it (case-sensitive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UpdateStrategy {
    Never,
    Opportunistic,
    Immediate,
}

impl UpdateStrategy {
    pub const ALL: [UpdateStrategy; 3] =
        [UpdateStrategy::Never, UpdateStrategy::Opportunistic, UpdateStrategy::Immediate];

    pub fn as_str(self) -> &'static str {
        match self {
            UpdateStrategy::Never => "Never",
            UpdateStrategy::Opportunistic => "Opportunistic",
            UpdateStrategy::Immediate => "Immediate",
        }
    }

    /// Whether the strategy lets the JobSet's templates change (the opt-in on a stock
    /// install lets exactly these through upstream's webhook).
    pub fn allows_template_changes(self) -> bool {
        self != UpdateStrategy::Never
    }
}

impl fmt::Display for UpdateStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An annotation value that is not one of the three strategies.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "annotation {ANNOTATION}={value:?} is not an update strategy (use Never, Opportunistic or Immediate; \
     the values are case-sensitive)"
)]
pub struct InvalidStrategy {
    pub value: String,
}

impl FromStr for UpdateStrategy {
    type Err = InvalidStrategy;

    fn from_str(value: &str) -> Result<Self, InvalidStrategy> {
        UpdateStrategy::ALL
            .into_iter()
            .find(|s| s.as_str() == value)
            .ok_or_else(|| InvalidStrategy { value: value.to_owned() })
    }
}

/// What the in-cluster component does for JobSets without the annotation
/// (`--default-update-strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DefaultStrategy {
    /// Record their history, never restart them (today's behaviour).
    #[default]
    RecordOnly,
    /// Treat them as if they carried this strategy.
    Strategy(UpdateStrategy),
}

/// The flag's spelling of "no default strategy".
pub const RECORD_ONLY: &str = "RecordOnly";

impl FromStr for DefaultStrategy {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        if value == RECORD_ONLY {
            return Ok(DefaultStrategy::RecordOnly);
        }
        value.parse().map(DefaultStrategy::Strategy).map_err(|_: InvalidStrategy| {
            format!("{value:?} is not a default update strategy (use {RECORD_ONLY}, Never, Opportunistic or Immediate)")
        })
    }
}

impl fmt::Display for DefaultStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DefaultStrategy::RecordOnly => f.write_str(RECORD_ONLY),
            DefaultStrategy::Strategy(s) => s.fmt(f),
        }
    }
}

/// A JobSet's strategy, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effective {
    /// The JobSet's own annotation.
    Annotated(UpdateStrategy),
    /// No annotation: the component's default.
    Defaulted(UpdateStrategy),
    /// No annotation and no default: recorded, never restarted.
    RecordOnly,
    /// The annotation holds something else: nothing is done until it is fixed.
    Invalid(InvalidStrategy),
}

impl Effective {
    /// The strategy in force, if any.
    pub fn strategy(&self) -> Option<UpdateStrategy> {
        match self {
            Effective::Annotated(s) | Effective::Defaulted(s) => Some(*s),
            Effective::RecordOnly | Effective::Invalid(_) => None,
        }
    }

    /// How a STRATEGY column says it: the value, `Opportunistic (default)`, `-`, or
    /// `invalid: VALUE`.
    pub fn column(&self) -> String {
        match self {
            Effective::Annotated(s) => s.to_string(),
            Effective::Defaulted(s) => format!("{s} (default)"),
            Effective::RecordOnly => "-".to_owned(),
            Effective::Invalid(e) => format!("invalid: {}", e.value),
        }
    }
}

/// The JobSet's annotation, parsed: None when it has none.
pub fn annotated(jobset: &JobSet) -> Option<Result<UpdateStrategy, InvalidStrategy>> {
    let value = jobset.metadata.annotations.as_ref()?.get(ANNOTATION)?;
    Some(value.parse())
}

/// The strategy in force for a JobSet under the component's `default`.
pub fn effective(jobset: &JobSet, default: DefaultStrategy) -> Effective {
    match (annotated(jobset), default) {
        (Some(Ok(s)), _) => Effective::Annotated(s),
        (Some(Err(e)), _) => Effective::Invalid(e),
        (None, DefaultStrategy::Strategy(s)) => Effective::Defaulted(s),
        (None, DefaultStrategy::RecordOnly) => Effective::RecordOnly,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn jobset(annotation: Option<&str>) -> JobSet {
        let mut meta = json!({"name": "js", "namespace": "ns"});
        if let Some(value) = annotation {
            meta["annotations"] = json!({ANNOTATION: value});
        }
        JobSet::from_raw(json!({"metadata": meta, "spec": {"replicatedJobs": []}})).unwrap()
    }

    #[test]
    fn the_three_values_parse_exactly_and_nothing_else_does() {
        for s in UpdateStrategy::ALL {
            assert_eq!(s.as_str().parse::<UpdateStrategy>(), Ok(s));
        }
        for bad in ["never", "IMMEDIATE", "", " Never", "Always"] {
            let e = bad.parse::<UpdateStrategy>().unwrap_err();
            assert_eq!(e.value, bad);
            assert!(e.to_string().contains(ANNOTATION), "{e}");
            assert!(e.to_string().contains("Never, Opportunistic or Immediate"), "{e}");
        }
    }

    #[test]
    fn the_annotation_wins_over_the_default() {
        let js = jobset(Some("Immediate"));
        let default = DefaultStrategy::Strategy(UpdateStrategy::Never);
        assert_eq!(effective(&js, default), Effective::Annotated(UpdateStrategy::Immediate));
        assert_eq!(effective(&js, DefaultStrategy::RecordOnly).strategy(), Some(UpdateStrategy::Immediate));
    }

    #[test]
    fn without_the_annotation_the_default_applies_and_its_default_is_record_only() {
        let js = jobset(None);
        assert_eq!(DefaultStrategy::default(), DefaultStrategy::RecordOnly);
        assert_eq!(effective(&js, DefaultStrategy::default()), Effective::RecordOnly);
        assert_eq!(effective(&js, DefaultStrategy::default()).strategy(), None);
        let default = DefaultStrategy::Strategy(UpdateStrategy::Opportunistic);
        assert_eq!(effective(&js, default), Effective::Defaulted(UpdateStrategy::Opportunistic));
        assert_eq!(effective(&js, default).column(), "Opportunistic (default)");
    }

    #[test]
    fn an_invalid_annotation_is_a_typed_error_even_with_a_default() {
        let js = jobset(Some("sometimes"));
        let default = DefaultStrategy::Strategy(UpdateStrategy::Immediate);
        let got = effective(&js, default);
        assert_eq!(got, Effective::Invalid(InvalidStrategy { value: "sometimes".into() }));
        assert_eq!(got.strategy(), None, "an invalid value never falls back to the default");
        assert_eq!(got.column(), "invalid: sometimes");
    }

    #[test]
    fn the_default_flag_parses_record_only_and_the_strategies() {
        assert_eq!("RecordOnly".parse::<DefaultStrategy>(), Ok(DefaultStrategy::RecordOnly));
        assert_eq!(
            "Immediate".parse::<DefaultStrategy>(),
            Ok(DefaultStrategy::Strategy(UpdateStrategy::Immediate))
        );
        assert!("immediate".parse::<DefaultStrategy>().unwrap_err().contains("RecordOnly"));
        assert_eq!(DefaultStrategy::RecordOnly.to_string(), "RecordOnly");
        assert_eq!(DefaultStrategy::Strategy(UpdateStrategy::Never).to_string(), "Never");
    }

    #[test]
    fn only_never_keeps_templates_fixed() {
        assert!(!UpdateStrategy::Never.allows_template_changes());
        assert!(UpdateStrategy::Opportunistic.allows_template_changes());
        assert!(UpdateStrategy::Immediate.allows_template_changes());
    }
}
