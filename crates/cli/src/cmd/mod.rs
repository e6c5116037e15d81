//! The subcommands: each one's options (clap) and the function that runs it, reading its
//! inputs, calling the library (`costlab::...`, `costlab_core::...`) and printing. `shared`
//! (failures, printing, files) and `args` (option groups several subcommands flatten) are
//! what they share; neither imports a subcommand, and no subcommand imports another.

pub mod args;
pub mod dbt3;
pub mod explain;
pub mod fit;
pub mod import;
pub mod ordering;
pub mod shared;
pub mod simulate;
pub mod sweep;
pub mod url;
