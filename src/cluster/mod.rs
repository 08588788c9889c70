//! Everything that talks to the API server.

pub mod admission;
pub mod api;
pub mod classify;
mod connect;
pub mod events;
pub mod guarded;
pub mod handover;
pub mod list_body;
pub mod request_log;
pub mod retry;
pub mod watch;

pub use connect::{Cluster, ConnectOptions, connect};
