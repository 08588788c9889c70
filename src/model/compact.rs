//! JSON held as compact text and parsed again when read. A parsed `serde_json::Value`
//! costs 9 to 12 bytes of memory per byte of compact JSON (a map per object, a heap
//! string per key and value); the text costs one. Large fleet reads hold every
//! JobSet's templates and the rest of its object this way, and read them a few times.

use serde_json::Value;

/// A JSON value as compact text. Equality is the values' (not the texts': keys may come
/// in another order).
#[derive(Clone, Default)]
pub struct Compact(Box<str>);

impl Compact {
    pub fn of(value: &Value) -> Self {
        Compact(value.to_string().into_boxed_str())
    }

    /// The value, parsed from the text (a new tree each time).
    pub fn value(&self) -> Value {
        match self.0.is_empty() {
            true => Value::Null,
            false => serde_json::from_str(&self.0).expect("written by serde_json"),
        }
    }

    /// Replaces the value by what `edit` makes of it.
    pub fn edit(&mut self, edit: impl FnOnce(&mut Value)) {
        let mut value = self.value();
        edit(&mut value);
        *self = Compact::of(&value);
    }

    /// The compact text.
    pub fn text(&self) -> &str {
        &self.0
    }
}

impl From<Value> for Compact {
    fn from(value: Value) -> Self {
        Compact::of(&value)
    }
}

impl PartialEq for Compact {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 || self.value() == other.value()
    }
}

impl PartialEq<Value> for Compact {
    fn eq(&self, other: &Value) -> bool {
        self.value() == *other
    }
}

impl std::fmt::Debug for Compact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A JSON value as parsed, or as compact text once it is kept: a Job's template is
/// parsed with its page, and held compact (shared with the Jobs equal to it) once it has
/// been reduced to its normal form.
#[derive(Clone)]
pub enum HeldJson {
    Parsed(Value),
    Compact(Compact),
}

impl HeldJson {
    /// The value: borrowed when parsed, parsed anew when compact.
    pub fn value(&self) -> std::borrow::Cow<'_, Value> {
        match self {
            HeldJson::Parsed(value) => std::borrow::Cow::Borrowed(value),
            HeldJson::Compact(text) => std::borrow::Cow::Owned(text.value()),
        }
    }

    /// Whether it holds the value `other` holds: compact text is compared as text first,
    /// so that a Job that runs the form it was matched to costs no parse.
    pub fn holds(&self, other: &Compact) -> bool {
        match self {
            HeldJson::Compact(text) => text == other,
            HeldJson::Parsed(value) => other == value,
        }
    }

    /// The value, taken out (Null is left).
    pub fn take(&mut self) -> Value {
        match std::mem::take(self) {
            HeldJson::Parsed(value) => value,
            HeldJson::Compact(text) => text.value(),
        }
    }
}

impl Default for HeldJson {
    fn default() -> Self {
        HeldJson::Parsed(Value::Null)
    }
}

impl From<Value> for HeldJson {
    fn from(value: Value) -> Self {
        HeldJson::Parsed(value)
    }
}

impl PartialEq for HeldJson {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (HeldJson::Compact(a), HeldJson::Compact(b)) => a == b,
            (a, b) => *a.value() == *b.value(),
        }
    }
}

impl PartialEq<Value> for HeldJson {
    fn eq(&self, other: &Value) -> bool {
        *self.value() == *other
    }
}

impl std::fmt::Debug for HeldJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeldJson::Parsed(value) => write!(f, "{value}"),
            HeldJson::Compact(text) => write!(f, "{text:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn holds_the_value_and_compares_values_not_key_order() {
        let value = json!({"spec": {"b": [1, "x"], "a": null}});
        let held = Compact::of(&value);
        assert_eq!(held.value(), value);
        assert_eq!(held.text(), r#"{"spec":{"b":[1,"x"],"a":null}}"#);
        assert_eq!(held, Compact::of(&json!({"spec": {"a": null, "b": [1, "x"]}})));
        assert_ne!(held, Compact::of(&json!({"spec": {}})));
        assert_eq!(Compact::default().value(), Value::Null);
        let mut edited = held.clone();
        edited.edit(|v| v["spec"]["a"] = json!(1));
        assert_eq!(edited, json!({"spec": {"b": [1, "x"], "a": 1}}));
    }

    #[test]
    fn held_json_is_equal_whether_parsed_or_compact() {
        let value = json!({"spec": {"a": 1}});
        let (parsed, compact) = (HeldJson::from(value.clone()), HeldJson::Compact(Compact::of(&value)));
        assert_eq!(parsed, compact);
        assert_eq!(*compact.value(), value);
        assert_ne!(compact, HeldJson::from(json!({"spec": {}})));
        let mut taken = compact.clone();
        assert_eq!(taken.take(), value);
        assert_eq!(taken, Value::Null);
        // `holds` answers as `==` does, by text when it can.
        let form = Compact::of(&value);
        assert!(parsed.holds(&form) && compact.holds(&form));
        assert!(HeldJson::Compact(Compact::of(&json!({"spec": {"a": 1}}))).holds(&form));
        let reordered = json!({"spec": {"b": 2, "a": 1}});
        let other_order = Compact::of(&json!({"spec": {"a": 1, "b": 2}}));
        assert!(HeldJson::Compact(Compact::of(&reordered)).holds(&other_order), "values, not key order");
        assert!(!compact.holds(&other_order) && !parsed.holds(&other_order));
    }
}
