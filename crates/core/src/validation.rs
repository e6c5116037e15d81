//! Simulated plan times held against real executions.
//!
//! `costlab-probe validate postgres` runs every candidate plan of each query on a real server
//! (each forced in turn, warm and cold) and writes a [`ValidationReport`]: per plan the real
//! execution time beside the simulation's time for the same plan on a profile of the same
//! machine. This module is the report's schema, the simulation of its plans
//! ([`ValidationReport::simulate`], so a changed time model can be judged again on stored
//! real runs without a server) and the verdicts: does the simulation name the really fastest
//! plan, how much real time trusting it loses, how far simulated times are from real ones.
//!
//! Every figure here is a **prediction**: the profile comes from the probe's measurements of
//! the device, memory and CPU, never from these real times.
//!
//! Its files: `runs.rs` (the runs of a plan and a query), `report.rs` (the report and the
//! simulation), `verdicts.rs`, `switch_point.rs` and `calibration.rs` (the executor's fit).

mod calibration;
mod report;
mod runs;
mod switch_point;
#[cfg(test)]
mod tests;
mod verdicts;

pub use calibration::*;
pub use report::*;
pub use runs::*;
pub use switch_point::*;
pub use verdicts::*;
