//! Structural changes between two normalised values, with readable paths such as
//! `spec.template.spec.containers[trainer].image`: lists of named items (containers,
//! env, volumes, ports, ...) are matched by name, not position.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One changed path: `old` is what runs, `new` what the spec would create.
/// A missing side is `None` (added or removed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

impl Change {
    pub fn kind(&self) -> &'static str {
        match (&self.old, &self.new) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ => "changed",
        }
    }
}

/// Every leaf-level difference from `old` to `new`.
pub fn changes(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    walk("", Some(old), Some(new), &mut out);
    out
}

fn walk(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    match (old, new) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                walk(&join_key(path, key), a.get(key), b.get(key), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if named(a) && named(b) => {
            let names = unique_in_order(a.iter().chain(b.iter()).filter_map(item_name));
            for name in names {
                let find = |items: &Vec<Value>| items.iter().find(|i| item_name(i) == Some(name)).cloned();
                walk(&format!("{path}[{name}]"), find(a).as_ref(), find(b).as_ref(), out);
            }
        }
        // A whole map added or removed is reported key by key (labels, annotations),
        // but a named list item (a container, an env var) stays one change.
        (None, Some(Value::Object(m))) | (Some(Value::Object(m)), None)
            if !path.ends_with(']') && !m.is_empty() =>
        {
            let added = old.is_none();
            for (key, value) in m {
                let (a, b) = if added { (None, Some(value)) } else { (Some(value), None) };
                walk(&join_key(path, key), a, b, out);
            }
        }
        (Some(a), Some(b)) if a == b => {}
        (None, None) => {}
        (a, b) => out.push(Change { path: path.to_owned(), old: a.cloned(), new: b.cloned() }),
    }
}

/// Items without repeats, in the order they first appear.
pub fn unique_in_order<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// A list whose items are all objects with a string `name` (containers, env, ...).
fn named(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(|i| item_name(i).is_some())
}

fn item_name(item: &Value) -> Option<&str> {
    item.get("name")?.as_str()
}

/// `a.b`, or `a["x.io/y"]` for keys that are not plain identifiers.
pub fn join_key(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", Value::String(key.to_owned())),
    }
}

/// Short human summary of a change: `workers: image app:v1 → app:v2`.
pub fn describe(change: &Change) -> String {
    let short = |v: &Option<Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => compact(other),
        None => "<none>".into(),
    };
    match change.kind() {
        "added" => format!("{} added: {}", change.path, short(&change.new)),
        "removed" => format!("{} removed (was {})", change.path, short(&change.old)),
        _ => format!("{}: {} → {}", change.path, short(&change.old), short(&change.new)),
    }
}

fn compact(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 { format!("{}…", text.chars().take(59).collect::<String>()) } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn named_lists_match_by_name() {
        let old = json!({"spec": {"containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1",
            "env": [{"name": "K", "value": "1"}, {"name": "GONE", "value": "2"}]}]}});
        let new = json!({"spec": {"containers": [{"name": "b", "image": "y:2", "env": [{"name": "K", "value": "1"}]},
            {"name": "a", "image": "x:1"}]}});
        let got = changes(&old, &new);
        assert_eq!(
            got,
            [
                Change {
                    path: "spec.containers[b].env[GONE]".into(),
                    old: Some(json!({"name": "GONE", "value": "2"})),
                    new: None
                },
                Change {
                    path: "spec.containers[b].image".into(),
                    old: Some(json!("y:1")),
                    new: Some(json!("y:2"))
                },
            ]
        );
        assert_eq!(got[0].kind(), "removed");
        assert_eq!(describe(&got[1]), "spec.containers[b].image: y:1 → y:2");
    }

    #[test]
    fn label_keys_with_dots_are_quoted() {
        let got = changes(&json!({"labels": {}}), &json!({"labels": {"app.kubernetes.io/name": "x"}}));
        assert_eq!(got[0].path, "labels[\"app.kubernetes.io/name\"]");
        assert_eq!(got[0].kind(), "added");
    }

    #[test]
    fn added_maps_are_reported_key_by_key() {
        let got = changes(&json!({"spec": {}}), &json!({"spec": {"metadata": {"labels": {"tier": "gold"}}}}));
        assert_eq!(
            got,
            [Change { path: "spec.metadata.labels.tier".into(), old: None, new: Some(json!("gold")) }]
        );
    }

    #[test]
    fn unnamed_lists_are_values() {
        let got = changes(&json!({"args": ["a", "b"]}), &json!({"args": ["a"]}));
        assert_eq!(
            got,
            [Change { path: "args".into(), old: Some(json!(["a", "b"])), new: Some(json!(["a"])) }]
        );
    }
}
