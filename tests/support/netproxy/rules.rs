//! The fault schedule of `netproxy faults`: which request gets which fault. No IO here,
//! so tests/netproxy.rs checks it directly.
//!
//! A schedule is a JSON array of rules (or `{"rules": [...]}`). Every rule counts the
//! requests it matches, independently of the other rules; the first rule, in file order,
//! whose selector picks its current count applies its fault. Requests no rule picks pass
//! through unchanged.

use serde::Deserialize;
use serde_json::{Value, json};

/// One rule: what it matches, which of its matches it picks, and the fault.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// GET (one object or any other non-collection GET), LIST (GET on a collection),
    /// WATCH (GET with `watch=true`), POST, PUT, PATCH, DELETE, or `*` (any).
    #[serde(default = "any_method")]
    pub method: String,
    /// A substring of the request path; empty matches every path.
    #[serde(default)]
    pub path: String,
    /// A substring of the raw query string, e.g. `dryRun=All`.
    #[serde(default)]
    pub query: Option<String>,
    /// Pick these occurrences (1-based) of the rule's matches.
    #[serde(default)]
    pub nth: Vec<u64>,
    /// Pick every Nth match (N, 2N, ...).
    #[serde(default)]
    pub every: Option<u64>,
    /// Pick each match with this probability (from the proxy's seeded generator).
    #[serde(default)]
    pub probability: Option<f64>,
    pub fault: Fault,
}

fn any_method() -> String {
    "*".to_owned()
}

/// What happens to a picked request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Fault {
    /// Answer with this status and a Kubernetes Status body; upstream never sees it.
    Status {
        code: u16,
        #[serde(default)]
        retry_after: Option<u64>,
        #[serde(default)]
        message: Option<String>,
    },
    /// Close the client connection; upstream never sees the request. (Over HTTP/2 this
    /// ends every request in flight on that connection, as a dropped connection would.)
    ResetBeforeForward,
    /// Forward and wait for upstream's whole answer, then close the client connection:
    /// upstream applied the request, the client never learns the outcome.
    ResetAfterForward,
    /// Forward, send the headers and the first `bytes` bytes of the body, then close.
    Cut { bytes: usize },
    /// Forward, then send the body `bytes` bytes at a time, `every_ms` apart.
    Drip { bytes: usize, every_ms: u64 },
    /// Wait `ms` before forwarding.
    Delay { ms: u64 },
}

impl Fault {
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Status { .. } => "status",
            Fault::ResetBeforeForward => "reset_before_forward",
            Fault::ResetAfterForward => "reset_after_forward",
            Fault::Cut { .. } => "cut",
            Fault::Drip { .. } => "drip",
            Fault::Delay { .. } => "delay",
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScheduleFile {
    Rules(Vec<Rule>),
    Wrapped { rules: Vec<Rule> },
}

const METHODS: [&str; 8] = ["*", "GET", "LIST", "WATCH", "POST", "PUT", "PATCH", "DELETE"];

/// Parses and checks a schedule.
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, String> {
    let file: ScheduleFile = serde_json::from_str(text).map_err(|e| format!("invalid schedule: {e}"))?;
    let rules = match file {
        ScheduleFile::Rules(rules) | ScheduleFile::Wrapped { rules } => rules,
    };
    for (i, rule) in rules.iter().enumerate() {
        check_rule(rule).map_err(|e| format!("rule {i}: {e}"))?;
    }
    Ok(rules)
}

fn check_rule(rule: &Rule) -> Result<(), String> {
    if !METHODS.contains(&rule.method.as_str()) {
        return Err(format!("method {:?} is not one of {}", rule.method, METHODS.join(", ")));
    }
    let selectors = [!rule.nth.is_empty(), rule.every.is_some(), rule.probability.is_some()];
    if selectors.iter().filter(|s| **s).count() > 1 {
        return Err("give at most one of nth, every and probability".into());
    }
    if rule.nth.contains(&0) || rule.every == Some(0) {
        return Err("occurrences count from 1".into());
    }
    if rule.probability.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
        return Err("probability must be within 0..=1".into());
    }
    match rule.fault {
        Fault::Status { code, .. } if !(400..=599).contains(&code) => {
            Err(format!("status {code} is not an error status (400..=599)"))
        }
        Fault::Drip { bytes: 0, .. } => Err("drip needs bytes > 0".into()),
        _ => Ok(()),
    }
}

/// The Kubernetes verb of a request: LIST and WATCH are GETs on a collection.
pub fn verb(method: &str, path: &str, query: &str) -> String {
    if method != "GET" {
        return method.to_owned();
    }
    let watch = query.split('&').any(|p| p == "watch=true" || p == "watch=1");
    match (is_collection(path), watch) {
        (_, true) => "WATCH".into(),
        (true, false) => "LIST".into(),
        (false, false) => "GET".into(),
    }
}

/// Whether `path` names a collection (`/api/v1/pods`, `/apis/g/v/namespaces/ns/jobsets`)
/// rather than an object, a subresource or a discovery document.
pub fn is_collection(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_matches('/').split('/').filter(|s| !s.is_empty()).collect();
    let rest = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        _ => return false,
    };
    let rest = match rest {
        ["namespaces", _ns, inner @ ..] if !inner.is_empty() => inner,
        other => other,
    };
    rest.len() == 1
}

/// A small seeded generator (SplitMix64): reproducible jitter and probabilities.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..=max`.
    pub fn up_to(&mut self, max: u64) -> u64 {
        if max == u64::MAX { self.next_u64() } else { self.next_u64() % (max + 1) }
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The request facts rules look at.
#[derive(Debug, Clone, Copy)]
pub struct RequestInfo<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
}

/// A picked request: which rule, which of its matches, what fault.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub rule: usize,
    pub occurrence: u64,
    pub fault: Fault,
}

/// Rules with their match counters.
#[derive(Debug)]
pub struct Schedule {
    rules: Vec<Rule>,
    counts: Vec<u64>,
    rng: Rng,
}

impl Schedule {
    pub fn new(rules: Vec<Rule>, seed: u64) -> Schedule {
        let counts = vec![0; rules.len()];
        Schedule { rules, counts, rng: Rng::new(seed) }
    }

    /// Counts the request against every rule it matches; returns the first pick.
    pub fn decide(&mut self, req: RequestInfo<'_>) -> Option<Decision> {
        let verb = verb(req.method, req.path, req.query);
        let mut picked = None;
        for (i, rule) in self.rules.iter().enumerate() {
            if !matches(rule, &verb, req) {
                continue;
            }
            self.counts[i] += 1;
            let count = self.counts[i];
            if picks(rule, count, &mut self.rng) && picked.is_none() {
                picked = Some(Decision { rule: i, occurrence: count, fault: rule.fault.clone() });
            }
        }
        picked
    }
}

fn matches(rule: &Rule, verb: &str, req: RequestInfo<'_>) -> bool {
    let method = rule.method == "*" || rule.method == verb;
    let query = rule.query.as_deref().is_none_or(|q| req.query.contains(q));
    method && req.path.contains(&rule.path) && query
}

fn picks(rule: &Rule, count: u64, rng: &mut Rng) -> bool {
    if !rule.nth.is_empty() {
        rule.nth.contains(&count)
    } else if let Some(every) = rule.every {
        count.is_multiple_of(every)
    } else if let Some(p) = rule.probability {
        rng.unit() < p
    } else {
        true
    }
}

/// The `reason` Kubernetes gives a status code.
pub fn status_reason(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        409 => "Conflict",
        410 => "Expired",
        422 => "Invalid",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "",
    }
}

/// A `kind: Status` failure body as kube-apiserver sends it.
pub fn status_body(code: u16, message: Option<&str>, retry_after: Option<u64>) -> Value {
    let reason = status_reason(code);
    let message = message.map(str::to_owned).unwrap_or_else(|| format!("netproxy: injected {code} {reason}"));
    let mut status = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(seconds) = retry_after {
        status["details"] = json!({"retryAfterSeconds": seconds});
    }
    status
}
