//! Workloads as data: WL#8737's t1 (`t1`), the random_page_cost seed's table (`rpc_seed`), DBT3's catalog and 22 queries (`dbt3`), and a
//! user's own queries (`user`). The table of plans under two sets of constants that every
//! workload view shows is the application layer's (`costlab_core::compare`).

pub mod dbt3;
pub mod rpc_seed;
pub mod t1;
pub mod user;
