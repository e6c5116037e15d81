//! Hardware simulation: how long each candidate plan really takes on a machine.
//!
//! The simulation reads a plan's [`Work`](costlab_model::plan::Work) (pages by access pattern,
//! rows, index entries, operator evaluations, comparisons, spill, workers) and a
//! [`MachineProfile`]; it never reads a [`Cost`](costlab_model::plan::Cost).
//!
//! # API
//!
//! * [`profile`]: [`MachineProfile`] (device, cache and CPU figures with units, `id`,
//!   `label`, `source`, [`Confidence`]); serde (de)serialisable so a probe's calibration
//!   file becomes a profile; [`MachineProfile::validate`] returns typed errors naming the
//!   field, [`MachineProfile::warnings`] flags unusual values.
//! * [`builtin`]: [`builtin::profiles`] and [`builtin::find`]: the seed devices (derived
//!   from the seeds' timings), reference disks and cloud volumes, each with its source.
//! * [`time`]: [`Simulator::new`]`(profile, engine)` then [`Simulator::time_plan`]`(&PlanNode)`
//!   → [`PlanTime`] (total seconds, I/O seconds by pattern, CPU seconds, cache hits and
//!   misses, per node). The module docs list every modelling assumption.
//! * [`calibration`]: the file `costlab-probe` writes, read into a profile.
//!
//! Regret and fitting, which compare costs with times, are the application layer's
//! (`costlab_core::regret`): this crate cannot see a planner.

pub mod builtin;
pub mod calibration;
pub mod mix;
pub mod profile;
pub mod time;

pub use profile::{Confidence, Device, HashRowCost, MachineProfile, QdPoint, RandomRead};
pub use time::hash_table_bytes;
pub use time::{CacheCounts, IoSeconds, NodeTime, PlanTime, Simulator};
