//! Templates in canonical form (keys sorted, compact), written straight from the tree,
//! and a 128-bit digest of that form: how a fleet read tells a Job that runs its
//! JobSet's template apart from one that drifts without holding either one's template.
//!
//! Equal templates (in serde_json's sense: key order does not matter) have equal digests.
//! Different ones collide with probability about 2^-128 per pair, far below a bit flip on
//! the wire; a differing digest is never taken as drift on its own (the full comparison
//! decides it), so a digest can only ever save work.

use std::hash::Hasher;
use std::io::{self, Write};

use serde_json::Value;

/// The digest of a value's canonical form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest(u128);

/// The digest of `value` in canonical form, without building that form.
pub fn digest(value: &Value) -> Digest {
    digest_of_written(|mut out| write_canonical(&mut out, value))
}

/// The digest of what `write` writes (a canonical form).
pub fn digest_of_written(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Digest {
    // Two independently seeded 64-bit SipHashes of the same bytes: 128 bits. The
    // standard library's hasher is stable within a process, all a digest is compared in.
    let (mut a, mut b) = (std::hash::DefaultHasher::new(), std::hash::DefaultHasher::new());
    a.write_u8(0x5a);
    b.write_u8(0xa5);
    let mut hashers = HashWriter([a, b]);
    write(&mut hashers).expect("hashing does not fail");
    let [a, b] = hashers.0;
    Digest((u128::from(a.finish()) << 64) | u128::from(b.finish()))
}

/// `value` with every object's keys sorted, as compact JSON.
pub fn canonical(value: &Value) -> String {
    let mut out = Vec::with_capacity(256);
    write_canonical(&mut out, value).expect("writing to a Vec does not fail");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Writes `value` as compact JSON with every object's keys sorted (what serializing a
/// copy with sorted maps would write, without the copy).
pub fn write_canonical(out: &mut impl Write, value: &Value) -> io::Result<()> {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.write_all(b"{")?;
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, key)?;
                out.write_all(b":")?;
                write_canonical(out, value)?;
            }
            out.write_all(b"}")
        }
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_canonical(out, item)?;
            }
            out.write_all(b"]")
        }
        leaf => Ok(serde_json::to_writer(out, leaf)?),
    }
}

/// Feeds every byte written to each of its hashers, in order (`Hasher::write` over the
/// raw bytes, not `Hash::hash`, which would add a terminator).
pub struct HashWriter<H, const N: usize>(pub [H; N]);

impl<H: Hasher, const N: usize> Write for HashWriter<H, N> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for hasher in &mut self.0 {
            hasher.write(bytes);
        }
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_canonical_form_is_serializing_a_sorted_copy() {
        let value =
            json!({"b": [{"z": 1, "a": "x\"y"}, null, 1.5, true], "a": {"d": {}, "c": []}, "é": "\u{1}"});
        fn sorted(v: &Value) -> Value {
            match v {
                Value::Object(m) => {
                    let mut keys: Vec<&String> = m.keys().collect();
                    keys.sort();
                    Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
                }
                Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
                other => other.clone(),
            }
        }
        assert_eq!(canonical(&value), sorted(&value).to_string());
    }

    #[test]
    fn equal_values_in_any_key_order_have_one_digest() {
        let a: Value = serde_json::from_str(r#"{"x": 1, "y": {"p": [1, 2], "q": "s"}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"y": {"q": "s", "p": [1, 2]}, "x": 1}"#).unwrap();
        assert_eq!(a, b);
        assert_eq!(digest(&a), digest(&b));
        // Order within arrays is part of the value; so is the type of a leaf.
        assert_ne!(digest(&a), digest(&json!({"x": 1, "y": {"p": [2, 1], "q": "s"}})));
        assert_ne!(digest(&a), digest(&json!({"x": "1", "y": {"p": [1, 2], "q": "s"}})));
        // A key moved into a nested object is a different value.
        assert_ne!(digest(&json!({"a": {"b": 1}})), digest(&json!({"a": {}, "b": 1})));
    }
}
