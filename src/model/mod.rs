//! Typed, read-only views of the objects kubectl-jobset reasons about.

pub mod jobset;
pub mod summary;
