//! Which stored objects concern which JobSet: the Jobs and revisions of one JobSet are
//! found by its key instead of by a scan of the whole store, so reconciling a JobSet
//! costs the same in a fleet of ten or of ten thousand.
//!
//! It follows the reflector it sits beside event by event: objects applied or deleted
//! change it at once; a re-list (`Init` … `InitDone`) builds a new index that replaces the
//! old one when the list ends, as the store is replaced then.

use std::collections::{BTreeSet, HashMap};

use super::queue::Key;

/// Object names by the key of the JobSet they concern (names are unique per namespace,
/// and an object concerns a JobSet of its own namespace).
#[derive(Debug, Default)]
pub(super) struct OwnerIndex {
    current: Names,
    /// While a watch lists again: what the list showed so far.
    listing: Option<Names>,
}

#[derive(Debug, Default)]
struct Names {
    by_key: HashMap<Key, BTreeSet<String>>,
    /// Each object's key, so that an object whose key changes leaves its old one.
    key_of: HashMap<(String, String), Key>,
}

impl Names {
    fn insert(&mut self, key: Key, name: &str) {
        let object = (key.namespace.clone(), name.to_owned());
        if let Some(old) = self.key_of.insert(object, key.clone())
            && old != key
        {
            self.remove_from(&old, name);
        }
        self.by_key.entry(key).or_default().insert(name.to_owned());
    }

    fn remove(&mut self, namespace: &str, name: &str) {
        if let Some(old) = self.key_of.remove(&(namespace.to_owned(), name.to_owned())) {
            self.remove_from(&old, name);
        }
    }

    fn remove_from(&mut self, key: &Key, name: &str) {
        if let Some(names) = self.by_key.get_mut(key) {
            names.remove(name);
            if names.is_empty() {
                self.by_key.remove(key);
            }
        }
    }
}

impl OwnerIndex {
    /// An object applied by a watch event, concerning `key` (None: no JobSet).
    pub(super) fn apply(&mut self, namespace: &str, name: &str, key: Option<Key>) {
        match key {
            Some(key) => self.current.insert(key, name),
            None => self.current.remove(namespace, name),
        }
    }

    pub(super) fn delete(&mut self, namespace: &str, name: &str) {
        self.current.remove(namespace, name);
    }

    /// A re-list begins: the objects it lists make the next index.
    pub(super) fn begin_list(&mut self) {
        self.listing = Some(Names::default());
    }

    /// An object of the list in progress.
    pub(super) fn listed(&mut self, name: &str, key: Option<Key>) {
        if let (Some(listing), Some(key)) = (&mut self.listing, key) {
            listing.insert(key, name);
        }
    }

    /// The list ended: it is the index now (what it did not show is gone).
    pub(super) fn end_list(&mut self) {
        if let Some(listing) = self.listing.take() {
            self.current = listing;
        }
    }

    /// The names of the objects that concern `key`.
    pub(super) fn names(&self, key: &Key) -> impl Iterator<Item = &str> {
        self.current.by_key.get(key).into_iter().flatten().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(index: &OwnerIndex, key: &Key) -> Vec<String> {
        index.names(key).map(str::to_owned).collect()
    }

    #[test]
    fn objects_are_found_by_the_jobset_they_concern() {
        let (a, b) = (Key::new("ns", "a"), Key::new("ns", "b"));
        let mut index = OwnerIndex::default();
        index.apply("ns", "a-w-0", Some(a.clone()));
        index.apply("ns", "a-w-1", Some(a.clone()));
        index.apply("ns", "b-w-0", Some(b.clone()));
        assert_eq!(names(&index, &a), ["a-w-0", "a-w-1"]);
        index.delete("ns", "a-w-0");
        assert_eq!(names(&index, &a), ["a-w-1"]);
        // A label changed: the object moves to its new JobSet.
        index.apply("ns", "a-w-1", Some(b.clone()));
        assert!(names(&index, &a).is_empty());
        assert_eq!(names(&index, &b), ["a-w-1", "b-w-0"]);
        // Its label removed: it concerns no JobSet.
        index.apply("ns", "b-w-0", None);
        assert_eq!(names(&index, &b), ["a-w-1"]);
        assert!(!index.current.by_key.contains_key(&a), "no empty entries stay");
    }

    #[test]
    fn a_relist_replaces_the_index_when_it_ends() {
        let a = Key::new("ns", "a");
        let mut index = OwnerIndex::default();
        index.apply("ns", "gone", Some(a.clone()));
        index.begin_list();
        index.listed("kept", Some(a.clone()));
        assert_eq!(names(&index, &a), ["gone"], "the store still shows the old objects");
        index.end_list();
        assert_eq!(names(&index, &a), ["kept"], "what the list did not show is gone");
        index.listed("late", Some(a.clone()));
        assert_eq!(names(&index, &a), ["kept"], "outside a list, listed() does nothing");
    }
}
