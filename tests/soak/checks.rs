//! The campaign's invariants as pure functions over what a wave did and what the
//! cluster recorded (unit-tested below, without a cluster). Each returns the
//! violations it found, in words; an empty list means the invariant held.

use std::collections::{BTreeMap, BTreeSet};

/// What one `restart` process said it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartReport {
    /// `restarted (attempt FROM → TO)` (with --wait, also when the wait then timed out).
    Restarted { from: i64, to: i64 },
    /// `already restarted (attempt N)`.
    Already,
    /// `not restarted: ...`: nothing was changed.
    Refused,
    /// It failed otherwise (or was killed): its patch may or may not have landed.
    Unknown,
}

/// (a) A wave of simultaneous restart requests on one JobSet makes at most one restart,
/// exactly one if any request reported `restarted`, and none that nobody reported.
pub fn restart_wave(before: i64, after: i64, reports: &[RestartReport]) -> Vec<String> {
    let delta = after - before;
    let restarted: Vec<String> = reports
        .iter()
        .filter_map(|r| match r {
            RestartReport::Restarted { from, to } => Some(format!("{from}→{to}")),
            _ => None,
        })
        .collect();
    let unknown = reports.iter().filter(|r| **r == RestartReport::Unknown).count();
    let summary = format!(
        "{} simultaneous requests, status.restarts {before} → {after}, reported restarts [{}], {unknown} unknown outcome(s)",
        reports.len(),
        restarted.join(", ")
    );
    let mut failures = Vec::new();
    if delta < 0 {
        failures.push(format!("status.restarts went down: {summary}"));
    } else if delta > 1 {
        failures.push(format!("{delta} restarts from one wave (at most one allowed): {summary}"));
    } else if !restarted.is_empty() && delta != 1 {
        failures.push(format!("a request reported a restart but none happened: {summary}"));
    } else if delta == 1 && restarted.is_empty() && unknown == 0 {
        failures.push(format!("a restart happened that no request reported: {summary}"));
    }
    if restarted.len() > 1 && delta <= 1 {
        failures.push(format!("more requests reported a restart than were made: {summary}"));
    }
    failures
}

/// (a) Nothing else restarts a JobSet no request in this wave targeted.
pub fn no_restart(before: i64, after: i64) -> Vec<String> {
    if after == before {
        Vec::new()
    } else {
        vec![format!("status.restarts {before} → {after} though no restart was requested in this wave")]
    }
}

/// A JobSet's templates as the campaign tracks them: the first container's image of each
/// replicatedJob, in spec order. Edits change the first; nothing changes the others.
pub type State = Vec<String>;

/// A write that replaced the first replicatedJob's image `from` (what it read) with `to`.
pub type Step = (String, String);

/// (b) The spec moved only through the writes that were applied, each one applied to the
/// state it read: the observed sequence of states (from `start`, every version the watch
/// saw) is a linear order of exactly the `applied` writes, plus any of the `maybe` writes
/// (those whose outcome is unknown). A lost edit is an applied step missing from the
/// sequence; a write over something its writer did not read is a step from a state the
/// writer never saw (unexplained, and its own step missing).
pub fn linear(start: &State, seen: &[State], applied: &[Step], maybe: &[Step]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut sequence: Vec<&State> = vec![start];
    for state in seen {
        if sequence.last() != Some(&state) {
            sequence.push(state);
        }
    }
    let mut transitions: BTreeMap<Step, usize> = BTreeMap::new();
    for pair in sequence.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.len() != b.len() || a[1..] != b[1..] {
            failures.push(format!("replicatedJobs other than the first changed: {a:?} → {b:?}"));
            continue;
        }
        *transitions.entry((a[0].clone(), b[0].clone())).or_default() += 1;
    }
    let mut expected: BTreeMap<Step, usize> = BTreeMap::new();
    for step in applied.iter().filter(|(a, b)| a != b) {
        *expected.entry(step.clone()).or_default() += 1;
    }
    let mut optional: BTreeMap<Step, usize> = BTreeMap::new();
    for step in maybe.iter().filter(|(a, b)| a != b) {
        *optional.entry(step.clone()).or_default() += 1;
    }
    let images: Vec<&str> = sequence.iter().map(|s| s[0].as_str()).collect();
    for (step, &want) in &expected {
        let have = transitions.get(step).copied().unwrap_or(0);
        if have < want {
            failures.push(format!(
                "applied write {} → {} ({want}×) is not in the sequence of templates {images:?} ({have}×): lost, \
                 or it replaced a template other than the one it read",
                step.0, step.1
            ));
        }
    }
    for (step, &have) in &transitions {
        let explained = expected.get(step).copied().unwrap_or(0) + optional.get(step).copied().unwrap_or(0);
        if have > explained {
            failures.push(format!(
                "the template went {} → {} ({have}×) but only {explained} write(s) that read {} asked for it; \
                 sequence {images:?}",
                step.0, step.1, step.0
            ));
        }
    }
    failures
}

/// One recorded ControllerRevision, as the history check needs it.
#[derive(Debug, Clone)]
pub struct RevisionInfo {
    pub uid: String,
    pub name: String,
    pub number: i64,
    pub hash: String,
    /// The data, canonical (object keys sorted).
    pub data: String,
    pub attempts: BTreeSet<i32>,
}

/// (c) History holds one revision per template (and one per number), a revision's
/// attempts only grow, and no revision claims an attempt that has not happened.
/// `previous` maps revision uids to the attempts seen at the last check; it is replaced
/// by what `now` holds.
pub fn history(
    previous: &mut BTreeMap<String, BTreeSet<i32>>,
    now: &[RevisionInfo],
    restarts: i64,
) -> Vec<String> {
    let mut failures = Vec::new();
    let mut by_hash: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut by_data: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut by_number: BTreeMap<i64, Vec<&str>> = BTreeMap::new();
    for r in now {
        by_hash.entry(&r.hash).or_default().push(&r.name);
        by_data.entry(&r.data).or_default().push(&r.name);
        by_number.entry(r.number).or_default().push(&r.name);
    }
    for (hash, names) in by_hash.iter().filter(|(_, n)| n.len() > 1) {
        failures.push(format!("{} revisions for template hash {hash}: {names:?}", names.len()));
    }
    for names in by_data.values().filter(|n| n.len() > 1) {
        failures.push(format!("{} revisions hold the same templates: {names:?}", names.len()));
    }
    for (number, names) in by_number.iter().filter(|(_, n)| n.len() > 1) {
        failures.push(format!("{} revisions share number {number}: {names:?}", names.len()));
    }
    for r in now {
        if let Some(before) = previous.get(&r.uid)
            && !before.is_subset(&r.attempts)
        {
            failures.push(format!(
                "revision {} (number {}) lost attempts: {before:?} → {:?}",
                r.name, r.number, r.attempts
            ));
        }
        if let Some(max) = r.attempts.last()
            && i64::from(*max) > restarts
        {
            failures.push(format!(
                "revision {} records attempt {max}, but status.restarts is only {restarts}",
                r.name
            ));
        }
    }
    *previous = now.iter().map(|r| (r.uid.clone(), r.attempts.clone())).collect();
    failures
}

/// `0-2,5` → {0, 1, 2, 5}; the annotation's format, read independently of the plugin.
pub fn parse_attempts(text: &str) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(lo), Ok(hi)) = (lo.parse::<i32>(), hi.parse::<i32>()) {
            out.extend(lo..=hi.min(lo.saturating_add(10_000)));
        }
    }
    out
}

/// JSON with every object's keys sorted, for comparing stored templates.
pub fn canonical(value: &serde_json::Value) -> String {
    fn sorted(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                let mut entries: Vec<(&String, &serde_json::Value)> = m.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k.clone(), sorted(v))).collect())
            }
            serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use RestartReport::*;

    fn st(images: &[&str]) -> State {
        images.iter().map(|s| s.to_string()).collect()
    }

    fn step(a: &str, b: &str) -> Step {
        (a.to_owned(), b.to_owned())
    }

    #[test]
    fn one_restart_per_wave() {
        assert!(restart_wave(3, 4, &[Restarted { from: 3, to: 4 }, Already, Refused]).is_empty());
        assert!(restart_wave(3, 3, &[Refused, Refused]).is_empty());
        assert!(restart_wave(3, 4, &[Unknown, Refused]).is_empty());
        assert!(restart_wave(3, 3, &[Unknown]).is_empty());
        let two = restart_wave(3, 5, &[Restarted { from: 3, to: 4 }, Restarted { from: 4, to: 5 }]);
        assert!(two[0].starts_with("2 restarts from one wave"), "{two:?}");
        assert!(!restart_wave(3, 3, &[Restarted { from: 3, to: 4 }]).is_empty());
        assert!(!restart_wave(3, 4, &[Refused, Already]).is_empty());
        assert!(
            !restart_wave(3, 4, &[Restarted { from: 3, to: 4 }, Restarted { from: 3, to: 4 }]).is_empty()
        );
        assert!(no_restart(2, 2).is_empty());
        assert!(!no_restart(2, 3).is_empty());
    }

    #[test]
    fn a_linear_history_of_the_applied_writes_passes() {
        let start = st(&["a", "x"]);
        let seen = [st(&["a", "x"]), st(&["b", "x"]), st(&["b", "x"]), st(&["c", "x"]), st(&["b", "x"])];
        let applied = [step("a", "b"), step("b", "c"), step("c", "b")];
        assert_eq!(linear(&start, &seen, &applied, &[]), Vec::<String>::new());
        // A write of unknown outcome may or may not be there.
        assert!(linear(&start, &seen, &applied[..2], &[step("c", "b"), step("a", "z")]).is_empty());
        // Writes that change nothing are not steps.
        assert!(linear(&start, &[], &[step("a", "a")], &[]).is_empty());
    }

    #[test]
    fn a_lost_edit_and_a_blind_overwrite_are_caught() {
        let start = st(&["a"]);
        // The edit a → b was applied, then a rollback that had read `a` wrote `r` over `b`.
        let seen = [st(&["b"]), st(&["r"])];
        let failures = linear(&start, &seen, &[step("a", "b"), step("a", "r")], &[]);
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures[0].contains("applied write a → r"), "{failures:?}");
        assert!(failures[1].contains("b → r"), "{failures:?}");
        // An applied edit that never shows up.
        assert_eq!(linear(&start, &[], &[step("a", "b")], &[]).len(), 1);
        // Other replicatedJobs never change.
        assert_eq!(linear(&st(&["a", "x"]), &[st(&["a", "y"])], &[], &[]).len(), 1);
    }

    fn rev(uid: &str, number: i64, hash: &str, attempts: &[i32]) -> RevisionInfo {
        RevisionInfo {
            uid: uid.into(),
            name: format!("r-{hash}"),
            number,
            hash: hash.into(),
            data: format!("data-{hash}"),
            attempts: attempts.iter().copied().collect(),
        }
    }

    #[test]
    fn history_attempts_only_grow_and_templates_are_unique() {
        let mut prev = BTreeMap::new();
        assert!(history(&mut prev, &[rev("u1", 1, "h1", &[0])], 0).is_empty());
        assert!(history(&mut prev, &[rev("u1", 3, "h1", &[0, 1]), rev("u2", 2, "h2", &[])], 1).is_empty());
        let lost = history(&mut prev, &[rev("u1", 3, "h1", &[1])], 1);
        assert!(lost[0].contains("lost attempts"), "{lost:?}");
        let dup = history(&mut BTreeMap::new(), &[rev("u1", 1, "h1", &[]), rev("u2", 1, "h1", &[])], 0);
        assert_eq!(dup.len(), 3, "{dup:?}");
        let future = history(&mut BTreeMap::new(), &[rev("u1", 1, "h1", &[0, 2])], 1);
        assert!(future[0].contains("records attempt 2"), "{future:?}");
    }

    #[test]
    fn attempts_and_canonical_json() {
        assert_eq!(parse_attempts("0-2,5"), BTreeSet::from([0, 1, 2, 5]));
        assert_eq!(parse_attempts(""), BTreeSet::new());
        let a: serde_json::Value =
            serde_json::from_str(r#"{"b":1,"a":{"d":2,"c":[{"f":1,"e":0}]}}"#).unwrap();
        let b: serde_json::Value =
            serde_json::from_str(r#"{"a":{"c":[{"e":0,"f":1}],"d":2},"b":1}"#).unwrap();
        assert_eq!(canonical(&a), canonical(&b));
    }
}
