//! Unified diffs of normalised objects, rendered as YAML with sorted keys. Each hunk
//! header names the object path it is in (`@@ spec.template.spec.containers[trainer] @@`),
//! so a change is readable without counting indentation.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::changes::join_key;
use crate::error::Result;

/// A YAML line and the path of the object it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    pub path: String,
}

/// Renders a value as YAML lines (sorted keys, two-space indent).
pub fn yaml_lines(value: &Value) -> Vec<Line> {
    let mut out = Vec::new();
    emit_map_or_scalar(value, 0, "", &mut out);
    out
}

fn emit_map_or_scalar(value: &Value, indent: usize, path: &str, out: &mut Vec<Line>) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for key in keys {
                emit_entry(
                    &format!("{}{}:", " ".repeat(indent), yaml_key(key)),
                    &map[key],
                    indent,
                    path,
                    key,
                    out,
                );
            }
        }
        other => {
            out.push(Line { text: format!("{}{}", " ".repeat(indent), scalar(other)), path: path.to_owned() })
        }
    }
}

/// `prefix` is `key:` (or `- key:`), already indented.
fn emit_entry(prefix: &str, value: &Value, indent: usize, path: &str, key: &str, out: &mut Vec<Line>) {
    let child_path = join_key(path, key);
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push(Line { text: prefix.to_owned(), path: path.to_owned() });
            emit_map_or_scalar(value, indent + 2, &child_path, out);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push(Line { text: prefix.to_owned(), path: path.to_owned() });
            for (i, item) in items.iter().enumerate() {
                let item_path = match item.get("name").and_then(Value::as_str) {
                    Some(name) => format!("{child_path}[{name}]"),
                    None => format!("{child_path}[{i}]"),
                };
                emit_item(item, indent, &item_path, out);
            }
        }
        other => out.push(Line { text: format!("{prefix} {}", scalar(other)), path: path.to_owned() }),
    }
}

fn emit_item(item: &Value, indent: usize, path: &str, out: &mut Vec<Line>) {
    let pad = " ".repeat(indent);
    match item {
        Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = map.keys().collect();
            // `name` first, as people write it.
            keys.sort_by_key(|k| (k.as_str() != "name", k.as_str()));
            for (i, key) in keys.into_iter().enumerate() {
                let lead = if i == 0 { format!("{pad}- ") } else { format!("{pad}  ") };
                emit_entry(&format!("{lead}{}:", yaml_key(key)), &map[key], indent + 2, path, key, out);
            }
        }
        other => out.push(Line { text: format!("{pad}- {}", scalar(other)), path: path.to_owned() }),
    }
}

fn yaml_key(key: &str) -> String {
    if needs_quotes(key) { Value::String(key.to_owned()).to_string() } else { key.to_owned() }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) if !needs_quotes(s) => s.clone(),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

fn needs_quotes(s: &str) -> bool {
    s.is_empty()
        || s.trim() != s
        || s.contains(": ")
        || s.contains(" #")
        || s.contains('\n')
        || s.ends_with(':')
        || s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
        || matches!(s, "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off")
        || s.parse::<f64>().is_ok()
}

/// Colours for diff lines (ANSI, as `diff --color` and `git diff` use them), or none.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    pub color: bool,
}

const DELETED: Style = AnsiColor::Red.on_default();
const INSERTED: Style = AnsiColor::Green.on_default();
const HEADER: Style = AnsiColor::Cyan.on_default();

impl Palette {
    fn paint(&self, tag: ChangeTag, text: &str) -> String {
        match tag {
            ChangeTag::Delete => self.styled(DELETED, text),
            ChangeTag::Insert => self.styled(INSERTED, text),
            ChangeTag::Equal => text.to_owned(),
        }
    }

    fn header(&self, text: &str) -> String {
        self.styled(HEADER, text)
    }

    /// `text` in `style` then reset, when colouring.
    fn styled(&self, style: Style, text: &str) -> String {
        if self.color { format!("{style}{text}{style:#}") } else { text.to_owned() }
    }
}

/// Writes a unified diff from `old` to `new`, with `---`/`+++` labels; nothing when equal.
pub fn write_unified(
    out: &mut dyn Write,
    old: &Value,
    new: &Value,
    old_label: &str,
    new_label: &str,
    palette: Palette,
) -> Result<bool> {
    let old_lines = yaml_lines(old);
    let new_lines = yaml_lines(new);
    let old_text: Vec<&str> = old_lines.iter().map(|l| l.text.as_str()).collect();
    let new_text: Vec<&str> = new_lines.iter().map(|l| l.text.as_str()).collect();
    let diff = TextDiff::from_slices(&old_text, &new_text);
    let groups = diff.grouped_ops(3);
    if groups.is_empty() {
        return Ok(false);
    }
    writeln!(out, "{}", palette.paint(ChangeTag::Delete, &format!("--- {old_label}")))?;
    writeln!(out, "{}", palette.paint(ChangeTag::Insert, &format!("+++ {new_label}")))?;
    for group in groups {
        let first_change = group.iter().find(|op| op.tag() != similar::DiffTag::Equal).unwrap_or(&group[0]);
        let line = match first_change.old_range().is_empty() {
            true => new_lines.get(first_change.new_range().start),
            false => old_lines.get(first_change.old_range().start),
        };
        // A change at the top level is named by its own key.
        let path = line
            .map(|l| {
                if l.path.is_empty() {
                    l.text.trim_end_matches(':').split(':').next().unwrap_or("")
                } else {
                    &l.path
                }
            })
            .unwrap_or_default();
        let header = if path.is_empty() { "@@ @@".to_owned() } else { format!("@@ {path} @@") };
        writeln!(out, "{}", palette.header(&header))?;
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                writeln!(out, "{}", palette.paint(change.tag(), &format!("{sign}{}", change.value())))?;
            }
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_with_sorted_keys_and_named_items() {
        let v = json!({"spec": {"containers": [{"image": "a:1", "name": "main", "args": ["x", "1"]}], "backoffLimit": 6},
            "metadata": {"labels": {"app.kubernetes.io/name": "t"}}});
        let text: Vec<String> = yaml_lines(&v).into_iter().map(|l| l.text).collect();
        assert_eq!(
            text,
            [
                "metadata:",
                "  labels:",
                "    app.kubernetes.io/name: t",
                "spec:",
                "  backoffLimit: 6",
                "  containers:",
                "  - name: main",
                "    args:",
                "    - x",
                "    - \"1\"",
                "    image: a:1",
            ]
        );
    }

    #[test]
    fn hunks_name_the_container() {
        let old = json!({"spec": {"containers": [{"name": "main", "image": "app:v1"}, {"name": "side", "image": "s:1"}]}});
        let new = json!({"spec": {"containers": [{"name": "main", "image": "app:v2"}, {"name": "side", "image": "s:1"}]}});
        let mut out = Vec::new();
        assert!(write_unified(&mut out, &old, &new, "running", "spec", Palette { color: false }).unwrap());
        insta::assert_snapshot!(String::from_utf8(out).unwrap(), @r"
        --- running
        +++ spec
        @@ spec.containers[main] @@
         spec:
           containers:
           - name: main
        -    image: app:v1
        +    image: app:v2
           - name: side
             image: s:1
        ");
        let mut out = Vec::new();
        assert!(!write_unified(&mut out, &old, &old, "a", "b", Palette { color: false }).unwrap());
        assert!(out.is_empty());
    }

    #[test]
    fn colour_only_when_asked() {
        let mut out = Vec::new();
        write_unified(&mut out, &json!({"a": 1}), &json!({"a": 2}), "x", "y", Palette { color: true })
            .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("\x1b[31m-a: 1\x1b[0m") && text.contains("\x1b[32m+a: 2\x1b[0m"), "{text:?}");
        assert!(text.contains("\x1b[36m@@"), "cyan hunk headers: {text:?}");
    }
}
