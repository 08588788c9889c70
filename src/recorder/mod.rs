//! `kubectl jobset recorder`: the controller that keeps every JobSet's history, and the
//! Lease through which the CLI knows that one runs.

pub mod presence;
