//! The page's controls and views; each is a function component over props and callbacks.

pub mod calibration;
pub mod chart_view;
pub mod dbt3;
pub mod diagram;
pub mod file_drop;
#[cfg(not(feature = "full"))]
pub mod first_load;
pub mod knobs;
pub mod loader;
pub mod machine;
pub mod ordering;
pub mod per_build;
pub mod select;
pub mod share;
#[cfg(feature = "full")]
pub mod user_workload;
pub mod validation;
