//! Decisions, without I/O: from objects already read and a command's options, the exact
//! guarded patch to send or the reason not to. Everything here is pure and tested
//! without a cluster; `execute` and `commands` send what these modules decide.

pub mod admission;
pub mod handover;
pub mod lost_write;
pub mod restart;
pub mod rollback;
pub mod rollout;
pub mod rollout_status;
pub mod set;
pub mod set_env;
pub mod set_image;
pub mod set_resources;
pub mod staged;
pub mod strategy;
pub mod suspend;
pub mod template_change;
