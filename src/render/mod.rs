//! Rendering: everything writes into a `Write`, nothing prints directly.

pub mod documents;
pub mod drift;
pub mod gotemplate;
pub mod history;
pub mod list;
pub mod printers;
pub mod table;
pub mod tree;
pub mod watch;

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};

/// Output formats, as kubectl's `-o` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Wide,
    Json,
    Yaml,
    Name,
}

/// Writes pretty JSON followed by a newline.
pub fn write_json<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(Error::json_output)?;
    writeln!(out)?;
    Ok(())
}

/// Writes YAML. This is the only place that touches the YAML crate for output.
pub fn write_yaml<T: Serialize>(out: &mut dyn Write, value: &T) -> Result<()> {
    let text = serde_saphyr::to_string(value).map_err(|e| Error::Encode(Box::new(e)))?;
    out.write_all(text.as_bytes())?;
    if !text.ends_with('\n') {
        writeln!(out)?;
    }
    Ok(())
}

/// `-o yaml` as YAML, anything else (`-o json`) as JSON.
pub fn write_structured<T: Serialize>(out: &mut dyn Write, format: Format, value: &T) -> Result<()> {
    match format {
        Format::Yaml => write_yaml(out, value),
        _ => write_json(out, value),
    }
}

/// One or several documents: a single one as it is, several as a `v1` List.
pub fn write_documents(out: &mut dyn Write, format: Format, mut documents: Vec<Value>) -> Result<()> {
    let doc = if documents.len() == 1 { documents.remove(0) } else { as_list(documents) };
    write_structured(out, format, &doc)
}

/// A `v1` List of objects, as `kubectl get -o json` prints several.
pub fn as_list(items: Vec<Value>) -> Value {
    serde_json::json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items})
}

/// Drops `metadata.managedFields`, which kubectl hides unless asked.
pub fn without_managed_fields(mut object: Value) -> Value {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    object
}

/// Whether to colour: only on a terminal, and never with --no-color or NO_COLOR.
pub fn use_color(is_terminal: bool, no_color_flag: bool, no_color_env: Option<&str>) -> bool {
    is_terminal && !no_color_flag && no_color_env.is_none_or(str::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn managed_fields_are_hidden() {
        let v = without_managed_fields(json!({"metadata": {"name": "a", "managedFields": [{}]}}));
        assert_eq!(v, json!({"metadata": {"name": "a"}}));
    }

    #[test]
    fn colour_rules() {
        assert!(use_color(true, false, None));
        assert!(!use_color(false, false, None));
        assert!(!use_color(true, true, None));
        assert!(!use_color(true, false, Some("1")));
        assert!(use_color(true, false, Some("")), "NO_COLOR only counts when non-empty");
    }

    #[test]
    fn yaml_output() {
        let mut out = Vec::new();
        write_yaml(&mut out, &json!({"a": 1, "b": ["x"]})).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a: 1\nb:\n- x\n");
    }
}
