//! What every part of costlab speaks: catalogs and their statistics, the knob table, query
//! blocks, plan nodes with their cost and their work, errors, numbers and dates.
//!
//! It depends on nothing else of costlab's: the engines (`costlab-pg`, `costlab-mysql`),
//! the simulation (`costlab-sim`), the SQL front end (`costlab-sql`) and the workloads
//! build on it, and cannot reach each other through it. See ARCHITECTURE.md.

pub mod block;
pub mod catalog;
pub mod date;
pub mod error;
pub mod expr;
pub mod guc;
pub mod knobs;
pub mod num;
pub mod plan;
pub mod query;
pub mod sort;
pub mod sweep;

pub use error::{Error, Result};
