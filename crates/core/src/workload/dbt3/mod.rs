//! DBT3 (TPC-H derived) at any scale factor: the schema with statistics derived from the
//! generator's rules (`catalog`), the 22 queries as multi-table query blocks (`queries`),
//! and MySQL's original join optimizer over them (`mysql_join`). Reference:
//! `dbt3.md` and `mysql-cost-model.md` §5-6.

pub mod catalog;
pub mod compare;
pub mod mysql_join;
pub mod pg_join;
#[cfg(test)]
mod pg_join_tests;
pub mod queries;
pub mod shape;
mod sql;
#[cfg(test)]
mod tests;
