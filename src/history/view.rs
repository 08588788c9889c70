//! A JobSet's revisions with what is known about them now: which one the spec holds,
//! which one the current attempt runs, and which attempts nobody saw.

use std::collections::BTreeSet;

use super::{Revision, templates_of};
use crate::error::Error;
use crate::model::jobset::JobSet;

/// A revision that cannot be used, said with the JobSet it belongs to.
pub fn bad_revision(jobset: &JobSet, why: impl std::fmt::Display) -> Error {
    Error::NoSuchRevision(format!("jobset {}/{}: {why}", jobset.namespace(), jobset.name()))
}

/// A JobSet's revisions with what is known about them now.
pub struct View<'a> {
    pub jobset: &'a JobSet,
    pub revisions: Vec<Revision>,
    /// The revision holding the spec's templates.
    pub spec: Option<i64>,
    /// The revision the current attempt's Jobs were seen running.
    pub running: Option<i64>,
    /// The spec's revision, when some of the current attempt's Jobs run it beside Jobs on
    /// another (mixed templates: a per-Job restart or a scale-up made them from the spec).
    pub also_running: Option<i64>,
}

impl<'a> View<'a> {
    pub fn new(jobset: &'a JobSet, mut revisions: Vec<Revision>) -> Self {
        revisions.sort_by_key(|r| r.number);
        let spec_digest = super::digest_of(&templates_of(jobset));
        let spec = revisions.iter().find(|r| r.templates.same_as(spec_digest)).map(|r| r.number);
        let running = revisions.iter().find(|r| r.attempts.contains(&jobset.attempt())).map(|r| r.number);
        View { jobset, revisions, spec, running, also_running: None }
    }

    /// Marks the spec's revision as running too when the current attempt runs mixed
    /// templates with some Jobs on the spec's (`diff::Mixed::on_spec`).
    pub fn with_mixed(mut self, mixed: &[crate::diff::Mixed]) -> Self {
        if mixed.iter().any(|m| !m.on_spec.is_empty()) && self.spec != self.running {
            self.also_running = self.spec;
        }
        self
    }

    /// Whether the current attempt's Jobs (some of them, with mixed templates) run `number`.
    pub fn is_running(&self, number: i64) -> bool {
        self.running == Some(number) || self.also_running == Some(number)
    }

    pub fn state(&self, r: &Revision) -> &'static str {
        match (self.spec == Some(r.number), self.is_running(r.number)) {
            (true, true) => "spec,running",
            (true, false) => "spec",
            (false, true) => "running",
            (false, false) => "",
        }
    }

    /// Attempts from 0 to the current one that no revision was seen running.
    pub fn unobserved(&self) -> BTreeSet<i32> {
        let seen: BTreeSet<i32> = self.revisions.iter().flat_map(|r| r.attempts.iter().copied()).collect();
        (0..=self.jobset.attempt()).filter(|a| !seen.contains(a)).collect()
    }
}
