//! costlab's core: what a query optimizer believes (cost models of PostgreSQL and
//! MySQL/InnoDB) and what a machine does (hardware simulation), with no I/O at all.
//!
//! Everything here builds natively and for `wasm32-unknown-unknown`; the web page, the
//! command line and the probe are thin shells around it. See ARCHITECTURE.md.

pub mod analysis;
pub mod block;
pub mod calibration;
pub mod catalog;
pub mod date;
pub mod diagram;
pub mod error;
pub mod guc;
pub mod knobs;
pub mod mysql;
pub mod num;
pub mod pg;
pub mod plan;
pub mod query;
pub mod render;
pub mod scenario;
pub mod scenario_file;
pub mod sim;
pub mod sort;
pub mod sql;
pub mod sweep;
pub mod url;
pub mod validation;
pub mod workload;

pub use error::{Error, Result};
