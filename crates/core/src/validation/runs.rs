//! The runs a report holds (per plan, per query and cache state), its limits and
//! thresholds, and the model's plans of a query that the validation forces.

use crate::scenario_file::ScenarioFile;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, KnobValues};
use costlab_model::query::Query;
use costlab_pg::{self as pg, PgOptions};
use serde::{Deserialize, Serialize};

/// Format version of the report file.
pub const VERSION: u32 = 1;

/// Largest report read (a full run is a few hundred kB).
pub const MAX_BYTES: usize = 32 * 1024 * 1024;

/// Two plans whose real times differ by less than this factor are equally fast: naming
/// either is right.
pub const TIE: f64 = 1.10;

/// Simulated over real within this factor counts as close.
pub const CLOSE: f64 = 2.0;

/// What the caches held when a plan ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheState {
    /// The query ran once before (discarded): what it reads is in shared_buffers or the OS
    /// page cache as far as they hold it.
    Warm,
    /// Server restarted and the OS page cache dropped just before.
    Cold,
}

impl CacheState {
    pub fn name(self) -> &'static str {
        match self {
            CacheState::Warm => "warm",
            CacheState::Cold => "cold",
        }
    }
}

/// One plan of one query, forced and executed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanRun {
    /// The model's candidate key (`seq`, `index:t1_i7`, `bitmap:t1_i7`, `indexonly:t1_i7`);
    /// for a DBT3 query the switches' name (`default`, `no-hashjoin`, ...).
    pub key: String,
    /// The enable_* switches turned off to force it (`enable_hashjoin=off`).
    pub forced_with: Vec<String>,
    /// The scan the server ran, as EXPLAIN names it ("Index Scan using t1_i7"); for a DBT3
    /// query the real plan's shape (`workload::dbt3::shape`).
    pub real_plan: String,
    /// EXPLAIN ANALYZE's Execution Time in seconds, the median of `runs`; `None` when the
    /// plan ran past the report's limit.
    pub real_s: Option<f64>,
    /// Every measured execution, seconds.
    pub runs: Vec<f64>,
    /// EXPLAIN BUFFERS of the (last) measured run: shared_buffers hits and reads.
    pub shared_hit: f64,
    pub shared_read: f64,
    /// The simulation's time for the same plan, seconds ([`ValidationReport::simulate`]).
    pub sim_s: f64,
    /// The model's estimated total cost of the plan with every switch on (DBT3: under
    /// `forced_with`).
    pub cost: f64,
    /// DBT3: the shape of the model's plan under the same switches, the plan `sim_s` times
    /// ([`ValidationReport::simulate`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_plan: Option<String>,
    /// DBT3: whether the model's plan under the same switches is the plan that really ran
    /// (`model_plan` equals `real_plan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_matches: Option<bool>,
}

/// One query under one cache state: every candidate plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueryRuns {
    /// The workload it belongs to (`t1-random`, `t1-correlated`, ...).
    pub workload: String,
    pub name: String,
    pub sql: String,
    pub cache: CacheState,
    /// The plan the server chose with every switch on, as a candidate key, if it is one.
    pub server_choice: Option<String>,
    pub plans: Vec<PlanRun>,
    /// The DBT3 query number (1 to 22) when this is a DBT3 query: `sql` is its PostgreSQL
    /// text, and each plan is simulated as the join planner's plan (`PgJoinPlanner`) under the
    /// plan's switches, at the report's [`ValidationReport::dbt3_sf`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dbt3: Option<u8>,
}

/// The model's plans of one query on the scenario's tables, every switch on (the plan the
/// engine chooses and every candidate the validation forces). For InnoDB, `pool_bytes`
/// is the server's innodb_buffer_pool_size (it decides whether DS-MRR is a candidate).
pub fn plan_sql(
    scenario: &ScenarioFile,
    sql: &str,
    knobs: &KnobValues,
    release: EngineVersion,
    pool_bytes: f64,
) -> Result<costlab_model::plan::Planned> {
    let query = Query::parse(sql)?;
    let table = scenario.table(&query.table)?;
    match release.engine() {
        Engine::Postgres => pg::plan(table, &query, knobs, release, &PgOptions::default()),
        Engine::Mysql => costlab_mysql::plan(
            table,
            &query,
            knobs,
            &costlab_mysql::MysqlEnv {
                innodb_buffer_pool_size: pool_bytes,
                ..costlab_mysql::MysqlEnv::default()
            },
        ),
    }
}

/// The candidate `key` of a query's plans; the error names the query (`what`).
pub(super) fn candidate<'a>(
    planned: &'a costlab_model::plan::Planned,
    key: &str,
    what: &str,
) -> Result<&'a costlab_model::plan::PlanNode> {
    planned
        .find(key)
        .map(|c| &c.plan)
        .ok_or_else(|| Error::invalid(format!("{what} {key}"), "the model has no such plan"))
}
