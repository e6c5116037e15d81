//! costlab's application layer: one engine dispatch over the planners, scenarios and their
//! links and files, sweeps, plan diagrams, regret and fitting, validation reports. Pure, no
//! I/O; builds natively and for `wasm32-unknown-unknown`.
//!
//! The layers it builds on are crates of their own, so that their rules are the compiler's
//! (see ARCHITECTURE.md): `costlab-model` (catalog, knobs, query blocks, plans), `costlab-sql`
//! (the only reader of SQL text), `costlab-pg` and `costlab-mysql` (the engines' planners),
//! `costlab-sim` (time from work; it cannot call an engine) and `costlab-workload` (data).
//! They are re-exported here under their old module names for the page, the command line
//! and the probe.

pub mod analysis;
pub mod compare;
pub mod diagram;
pub mod ordering;
pub mod regret;
pub mod scenario;
pub mod scenario_file;
pub mod url;
pub mod validation;

// The simulation against the seeds, over both engines' plans and the regret fits.
#[cfg(test)]
mod sim_tests;

pub use costlab_model::{block, catalog, date, error, guc, knobs, num, plan, query, sort, sweep};
pub use costlab_model::{Error, Result};
pub use costlab_mysql as mysql;
pub use costlab_pg as pg;
pub use costlab_sim as sim;
pub use costlab_sim::calibration;
pub use costlab_sql as sql;
pub use costlab_workload as workload;
