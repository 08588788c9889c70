//! Typed, read-only views of the objects kubectl-jobset reasons about, and the typed
//! JSON patch operations it writes to them.

pub mod compact;
pub mod jobset;
pub mod kueue;
pub mod patch;
pub mod resource_version;
pub mod startup;
pub mod strategy;
pub mod summary;
