//! `set env` planning, without I/O: kubectl's `KEY=VALUE` and `KEY-` arguments for the
//! containers `-c [REPLICATEDJOB/]CONTAINER` names (every container by default), as a
//! [`ContainerSetter`] of the `env` field.

use serde_json::{Value, json};

use crate::plan::template_change::{ContainerSetter, Target};

/// One `KEY=VALUE` (set) or `KEY-` (remove) argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvArg {
    Set { name: String, value: String },
    Remove(String),
}

impl EnvArg {
    fn name(&self) -> &str {
        match self {
            EnvArg::Set { name, .. } | EnvArg::Remove(name) => name,
        }
    }

    /// As typed.
    pub fn words(&self) -> String {
        match self {
            EnvArg::Set { name, value } => format!("{name}={value}"),
            EnvArg::Remove(name) => format!("{name}-"),
        }
    }
}

/// The env change of one `set env`: the same variables for every container targeted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvChange {
    pub target: Target,
    pub vars: Vec<EnvArg>,
}

impl ContainerSetter for EnvChange {
    fn field(&self) -> &'static str {
        "env"
    }

    /// Variables set keep their place (a `valueFrom` one becomes a plain value), new ones
    /// go last, removed ones go; an env list left empty that was missing stays missing.
    fn set(&self, container: &Value) -> Value {
        let mut env = container["env"].as_array().cloned().unwrap_or_default();
        for var in &self.vars {
            match var {
                EnvArg::Set { name, value } => {
                    let entry = json!({"name": name, "value": value});
                    match env.iter_mut().find(|e| e["name"] == name.as_str()) {
                        Some(existing)
                            if existing["value"] == value.as_str() && existing["valueFrom"].is_null() => {}
                        Some(existing) => *existing = entry,
                        None => env.push(entry),
                    }
                }
                EnvArg::Remove(name) => env.retain(|e| e["name"] != name.as_str()),
            }
        }
        match (env.is_empty(), container["env"].is_null()) {
            (true, true) => Value::Null,
            _ => Value::Array(env),
        }
    }
}

/// Parses `KEY=VALUE` and `KEY-` as `kubectl set env` does (a value may hold `=` and be
/// empty). Each variable may be named once.
pub fn parse_env_args(args: &[String]) -> Result<Vec<EnvArg>, BadEnvArg> {
    if args.is_empty() {
        return Err(BadEnvArg::Missing);
    }
    let mut parsed: Vec<EnvArg> = Vec::new();
    for arg in args {
        let var = match arg.split_once('=') {
            Some((name, value)) => EnvArg::Set { name: name.to_owned(), value: value.to_owned() },
            None => match arg.strip_suffix('-') {
                Some(name) => EnvArg::Remove(name.to_owned()),
                None => {
                    return Err(BadEnvArg::Invalid { arg: arg.clone(), why: "neither KEY=VALUE nor KEY-" });
                }
            },
        };
        let name = var.name();
        if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(BadEnvArg::Invalid {
                arg: arg.clone(),
                why: "the variable name is empty or has spaces",
            });
        }
        if parsed.iter().any(|p| p.name() == name) {
            return Err(BadEnvArg::Twice(name.to_owned()));
        }
        parsed.push(var);
    }
    Ok(parsed)
}

/// An env argument that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadEnvArg {
    #[error("name at least one variable: KEY=VALUE to set it, KEY- to remove it, e.g. LEARNING_RATE=0.01")]
    Missing,
    #[error("invalid env argument {arg:?}: {why}; use KEY=VALUE or KEY-")]
    Invalid { arg: String, why: &'static str },
    #[error("{0} is named twice: set or remove each variable once")]
    Twice(String),
}

/// The `KEY=VALUE KEY-` words, as typed.
pub fn env_words(vars: &[EnvArg]) -> String {
    vars.iter().map(EnvArg::words).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(args: &[&str]) -> EnvChange {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        EnvChange { target: Target::all(), vars: parse_env_args(&args).unwrap() }
    }

    #[test]
    fn arguments_follow_kubectl_grammar() {
        assert_eq!(
            parse_env_args(&["A=1".into(), "B=x=y".into(), "C=".into(), "D-".into()]).unwrap(),
            [
                EnvArg::Set { name: "A".into(), value: "1".into() },
                EnvArg::Set { name: "B".into(), value: "x=y".into() },
                EnvArg::Set { name: "C".into(), value: "".into() },
                EnvArg::Remove("D".into()),
            ]
        );
        let why = |a: &str| parse_env_args(&[a.to_string()]).unwrap_err().to_string();
        assert_eq!(
            why("A"),
            r#"invalid env argument "A": neither KEY=VALUE nor KEY-; use KEY=VALUE or KEY-"#
        );
        assert!(why("=1").contains("name is empty"));
        assert!(why("A B=1").contains("spaces"));
        assert_eq!(
            parse_env_args(&["A=1".into(), "A-".into()]).unwrap_err().to_string(),
            "A is named twice: set or remove each variable once"
        );
        assert!(parse_env_args(&[]).unwrap_err().to_string().contains("at least one variable"));
    }

    #[test]
    fn variables_keep_their_place_and_value_from_becomes_a_value() {
        let container = json!({"name": "c", "env": [
            {"name": "A", "value": "1"},
            {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "C", "value": "3"}]});
        assert_eq!(
            change(&["B=2", "C-", "D=4", "A=1"]).set(&container),
            json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}, {"name": "D", "value": "4"}])
        );
        assert_eq!(change(&["A-"]).set(&json!({"name": "c"})), Value::Null, "missing stays missing");
        assert_eq!(
            change(&["A-"]).set(&json!({"name": "c", "env": [{"name": "A", "value": "1"}]})),
            json!([])
        );
    }
}
