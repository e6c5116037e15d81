//! PostgreSQL's join planner over the DBT3 query blocks: dynamic programming over join
//! orders up to the collapse limits, nested loops with parameterised index scans, hash and
//! merge joins, sorts and aggregation on top. Reference: `postgresql-join-cost-model.md`.
//!
//! Interface shared by the planner, the real-server comparison
//! (`crates/cli/tests/real_postgres_dbt3.rs`), the CLI and the page.

use crate::catalog::Table;
use crate::error::{Error, Result};
use crate::knobs::{EngineVersion, KnobValues};
use crate::plan::{Cost, PlanNode};
use crate::workload::dbt3::queries::Dbt3Query;

/// Planner settings beyond the cost knobs (GUCs that shape the search).
#[derive(Clone, Debug, PartialEq)]
pub struct PgJoinEnv {
    pub version: EngineVersion,
    pub from_collapse_limit: usize,
    pub join_collapse_limit: usize,
    /// max_parallel_workers_per_gather; the real-server comparison runs with 0.
    pub max_parallel_workers_per_gather: usize,
}

impl Default for PgJoinEnv {
    fn default() -> Self {
        PgJoinEnv {
            version: EngineVersion::Pg15,
            from_collapse_limit: 8,
            join_collapse_limit: 8,
            max_parallel_workers_per_gather: 0,
        }
    }
}

/// The plan PostgreSQL picks for one query.
#[derive(Clone, Debug, PartialEq)]
pub struct PgJoinPlan {
    pub number: u8,
    /// The top node's startup and total cost, as EXPLAIN prints them.
    pub cost: Cost,
    pub rows: f64,
    /// EXPLAIN-like tree: node names as EXPLAIN prints them ("Hash Join", "Seq Scan", ...),
    /// `relation` the alias, `index` the index name; work for the simulation.
    pub tree: PlanNode,
}

/// The DBT3 tables (the derived catalog's `pg` set, or statistics imported from a real
/// server) prepared once for one planner setting.
pub struct PgDbt3 {
    tables: Vec<Table>,
    env: PgJoinEnv,
}

impl PgDbt3 {
    pub fn new(tables: &[Table], env: PgJoinEnv) -> Result<PgDbt3> {
        for t in tables {
            t.validate()?;
        }
        Ok(PgDbt3 {
            tables: tables.to_vec(),
            env,
        })
    }

    /// Plans one query with the knob values.
    pub fn plan(&self, q: &Dbt3Query, _knobs: &KnobValues) -> Result<PgJoinPlan> {
        let _ = (&self.tables, &self.env);
        Err(Error::Unsupported(format!(
            "PostgreSQL join planning for Q{} is not built yet",
            q.number
        )))
    }
}
