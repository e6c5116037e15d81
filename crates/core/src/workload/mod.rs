//! Built-in tables and queries the page, the command line and the tests share, the user's
//! own queries, and the table of plans under two sets of constants that every workload view
//! shows (`compare`).

pub mod compare;
pub mod dbt3;
pub mod ordering;
pub mod t1;
pub mod user;
