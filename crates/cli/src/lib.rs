//! The command line's library half: importing statistics from a live server and running the
//! core's engines for `costlab explain` and `costlab sweep`, the hardware simulation for
//! `costlab simulate` and `costlab fit`, and the DBT3 table of `costlab dbt3`. The binary
//! (`main.rs`, and one file per subcommand in `cmd/`) only parses arguments and prints; the
//! integration tests call these functions directly.

pub mod dbt3;
pub mod dbt3_pg;
pub mod diagram;
pub mod engines;
pub mod import;
pub mod pgarray;
pub mod simulate;
