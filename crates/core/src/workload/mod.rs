//! Built-in tables and queries the page, the command line and the tests share.

pub mod dbt3;
pub mod t1;
