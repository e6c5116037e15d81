//! Hardware simulation: how long each candidate plan really takes on a machine.
//!
//! The simulation reads a plan's [`Work`](crate::plan::Work) (pages by access pattern,
//! rows, index entries, operator evaluations, comparisons, spill, workers) and a
//! [`MachineProfile`]; it never reads a [`Cost`](crate::plan::Cost).
//!
//! # API
//!
//! * [`profile`]: [`MachineProfile`] (device, cache and CPU figures with units, `id`,
//!   `label`, `source`, [`Confidence`]); serde (de)serialisable so a probe's calibration
//!   file becomes a profile; [`MachineProfile::validate`] returns typed errors naming the
//!   field, [`MachineProfile::warnings`] flags unusual values.
//! * [`builtin`]: [`builtin::profiles`] and [`builtin::find`]: the seed devices (derived
//!   from the seeds' timings), reference disks and cloud volumes, each with its source.
//!   The random_page_cost experiment's table and queries ([`builtin::seed_experiment_table`],
//!   [`builtin::seed_experiment_query`]) and its fit per device
//!   ([`builtin::fit_seed_random_page_cost`]).
//! * [`time`]: [`Simulator::new`]`(profile, engine)` then [`Simulator::time_plan`]`(&PlanNode)`
//!   → [`PlanTime`] (total seconds, I/O seconds by pattern, CPU seconds, cache hits and
//!   misses, per node). The module docs list every modelling assumption.
//! * [`regret`]: [`regret::regret_sweep`] (per point: chosen plan, fastest plan, time lost;
//!   totals), [`regret::fit_one`] (the value of one cost constant minimising total regret,
//!   exact over the piecewise-constant regret, with the curve around it) and
//!   [`regret::fit_two`] (a pair of constants on a refined log grid).

pub mod builtin;
pub mod mix;
pub mod profile;
pub mod regret;
pub mod time;

#[cfg(test)]
mod tests;

pub use profile::{Confidence, Device, HashRowCost, MachineProfile, QdPoint, RandomRead};
pub(crate) use time::hash_table_bytes;
pub use time::{CacheCounts, IoSeconds, NodeTime, PlanTime, Simulator};
