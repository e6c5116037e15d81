//! DBT3 (TPC-H derived) at any scale factor, as data: the schema with statistics derived
//! from the generator's rules (`catalog`) and the 22 queries (`queries`). The engines'
//! join planners (`costlab_pg::join`, `costlab_mysql::join`) plan them. Reference:
//! `dbt3.md`.

pub mod catalog;
pub mod queries;
pub mod shape;
pub mod sql;
#[cfg(test)]
mod tests;
