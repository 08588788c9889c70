//! `kubectl jobset recorder`: the controller that keeps every JobSet's history, and the
//! Lease through which the CLI knows that one runs.

pub mod controller;
pub mod lease;
pub mod metrics;
pub mod queue;
pub mod server;

pub use controller::{RecorderPlan, run};
