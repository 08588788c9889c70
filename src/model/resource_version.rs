//! Ordering resourceVersions. They are opaque to clients, but the API server's come from
//! etcd's revision, one integer for the whole store: a later write has a larger one, in
//! any object. Where both are integers we rely on that; anything else only compares
//! equal or not.

use std::cmp::Ordering;

/// Whether `seen` is `wanted` or later (anything not an integer must be equal).
pub fn at_least(seen: &str, wanted: &str) -> bool {
    match order(seen, wanted) {
        Some(ordering) => ordering != Ordering::Less,
        None => seen == wanted,
    }
}

/// How `a` and `b` are ordered, if both are integers.
pub fn order(a: &str, b: &str) -> Option<Ordering> {
    Some(a.parse::<u64>().ok()?.cmp(&b.parse::<u64>().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_versions_compare_as_integers_when_they_are() {
        assert!(at_least("12", "9"));
        assert!(!at_least("9", "12"));
        assert!(at_least("abc", "abc"));
        assert!(!at_least("abd", "abc"));
        assert_eq!(order("12", "9"), Some(Ordering::Greater));
        assert_eq!(order("9", "9"), Some(Ordering::Equal));
        assert_eq!(order("abc", "9"), None);
        assert_eq!(order("", "9"), None);
    }
}
