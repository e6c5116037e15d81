//! Simulated plan times held against real executions.
//!
//! `costlab-probe validate postgres` runs every candidate plan of each query on a real server
//! (each forced in turn, warm and cold) and writes a [`ValidationReport`]: per plan the real
//! execution time beside the simulation's time for the same plan on a profile of the same
//! machine. This module is the report's schema, the simulation of its plans
//! ([`ValidationReport::simulate`], so a changed time model can be judged again on stored
//! real runs without a server) and the verdicts: does the simulation name the really fastest
//! plan, how much real time trusting it loses, how far simulated times are from real ones.
//!
//! Every figure here is a **prediction**: the profile comes from the probe's measurements of
//! the device, memory and CPU, never from these real times.

use crate::scenario_file::ScenarioFile;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KnobValues};
use costlab_model::query::Query;
use costlab_pg::join::{PgJoinEnv, PgJoinPlan, PgJoinPlanner};
use costlab_pg::{self as pg, PgOptions};
use costlab_sim::{MachineProfile, Simulator};
use costlab_workload::dbt3::queries::calibration_query;
use costlab_workload::dbt3::shape::model_shape;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

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

/// What `costlab-probe validate` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationReport {
    pub costlab_validation: u32,
    /// UTC time the run finished, ISO 8601.
    pub created: String,
    pub tool: String,
    pub command: String,
    pub engine_version: EngineVersion,
    pub server_version: String,
    /// The server's settings that the simulation depends on, as SHOW prints them.
    pub server_settings: BTreeMap<String, String>,
    /// The machine the times are simulated on (its `warm_cache` is set per query).
    pub profile: MachineProfile,
    /// Plans that ran longer than this were stopped (statement_timeout), seconds.
    pub limit_s: f64,
    /// The statistics the planner had (`costlab import` of the workload's tables).
    pub scenario: ScenarioFile,
    /// The executor's figures measured on calibration queries (in `profile` already).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<ExecutorFit>,
    /// The calibration queries as they ran, so a changed model refits the executor's
    /// figures from them ([`ValidationReport::refit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor_calibration: Option<ExecutorCalibration>,
    /// The machine before the executor's figures replaced the probe's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_profile: Option<MachineProfile>,
    pub notes: Vec<String>,
    pub queries: Vec<QueryRuns>,
    /// InnoDB's table scan against range scan: the real and simulated switch points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub switch_points: Vec<SwitchPoint>,
    /// The buffer pool of the cold runs where it differs from the warm runs' (InnoDB's
    /// disk-bound server), bytes; `None`: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_buffer_pool_bytes: Option<f64>,
    /// The scale factor of the DBT3 queries (their constants depend on it); their tables'
    /// statistics are in `scenario.tables`. `None`: no DBT3 query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dbt3_sf: Option<f64>,
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

/// The DBT3 join planner over a report's tables, one per set of switches (built when first
/// asked for: each keeps a memo of its own).
struct Dbt3Models {
    tables: Vec<costlab_model::catalog::Table>,
    version: EngineVersion,
    sf: f64,
    models: BTreeMap<Vec<String>, PgJoinPlanner>,
    /// Each query read from its SQL once (every forced plan of it plans the same block).
    queries: BTreeMap<u8, costlab_model::block::JoinQuery>,
}

impl Dbt3Models {
    /// `None` when the report has no DBT3 query.
    fn of(report: &ValidationReport) -> Result<Option<Dbt3Models>> {
        if report.queries.iter().all(|q| q.dbt3.is_none()) {
            return Ok(None);
        }
        let sf = report.dbt3_sf.ok_or_else(|| {
            Error::invalid("dbt3_sf", "the report has DBT3 queries but no scale factor")
        })?;
        let tables = costlab_workload::dbt3::catalog::dbt3(sf)?
            .pg
            .iter()
            .map(|t| report.scenario.table(&t.name).cloned())
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(Dbt3Models {
            tables,
            version: report.engine_version,
            sf,
            models: BTreeMap::new(),
            queries: BTreeMap::new(),
        }))
    }

    /// Query `n` planned with the switches `forced_with` off.
    fn plan(&mut self, n: u8, forced_with: &[String], knobs: &KnobValues) -> Result<PgJoinPlan> {
        let mut key = forced_with.to_vec();
        key.sort();
        if !self.models.contains_key(&key) {
            let env = PgJoinEnv {
                version: self.version,
                opts: PgOptions::with_switches_off(forced_with)?,
                ..PgJoinEnv::default()
            };
            self.models
                .insert(key.clone(), PgJoinPlanner::new(&self.tables, env)?);
        }
        if !self.queries.contains_key(&n) {
            let q = costlab_workload::dbt3::queries::query(n, self.sf)?;
            self.queries.insert(n, q);
        }
        self.models[&key].plan(&self.queries[&n], knobs)
    }
}

/// The candidate `key` of a query's plans; the error names the query (`what`).
fn candidate<'a>(
    planned: &'a costlab_model::plan::Planned,
    key: &str,
    what: &str,
) -> Result<&'a costlab_model::plan::PlanNode> {
    planned
        .find(key)
        .map(|c| &c.plan)
        .ok_or_else(|| Error::invalid(format!("{what} {key}"), "the model has no such plan"))
}

/// How often the engine's own choice is the really fastest plan at one value of a knob.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KnobAgreement {
    pub value: f64,
    pub warm_right: usize,
    pub warm_queries: usize,
    pub cold_right: usize,
    pub cold_queries: usize,
}

/// The verdict on one query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The plan the simulation calls fastest.
    pub sim_pick: String,
    /// The plan that really was fastest.
    pub real_fastest: String,
    /// The simulation's pick is the real fastest or within [`TIE`] of it.
    pub right: bool,
    /// Real time lost by running the simulation's pick instead of the real fastest, as a
    /// fraction of the fastest (0 when right in the strict sense). A lower bound when the
    /// pick ran past the limit.
    pub lost: f64,
}

/// Figures over a set of queries.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub queries: usize,
    pub right: usize,
    /// Largest real time lost among the queries where the pick was wrong.
    pub max_lost: f64,
    /// Plans compared (executed, or past the limit).
    pub plans: usize,
    /// Plans whose simulated time is within [`CLOSE`] of the real one (a plan past the
    /// limit counts when the simulation also puts it past the limit).
    pub close: usize,
    /// Geometric mean of simulated / real over executed plans.
    pub geomean_ratio: f64,
    pub min_ratio: f64,
    pub max_ratio: f64,
}

impl Summary {
    pub fn right_share(&self) -> f64 {
        if self.queries == 0 {
            0.0
        } else {
            self.right as f64 / self.queries as f64
        }
    }

    pub fn close_share(&self) -> f64 {
        if self.plans == 0 {
            0.0
        } else {
            self.close as f64 / self.plans as f64
        }
    }

    /// The targets of the time-truth issue: the pick right in 90 % of queries, under 20 %
    /// lost where wrong, 90 % of plans within 2x, geometric mean 0.8 to 1.25.
    pub fn meets_targets(&self) -> bool {
        self.right_share() >= 0.9
            && self.max_lost < 0.2
            && self.close_share() >= 0.9
            && (0.8..=1.25).contains(&self.geomean_ratio)
    }

    pub fn line(&self) -> String {
        format!(
            "fastest named in {} of {} queries ({:.0} %), worst loss {:.0} %; sim/real within 2x \
             for {} of {} plans ({:.0} %), geometric mean {:.2} (range {:.3} to {:.2})",
            self.right,
            self.queries,
            100.0 * self.right_share(),
            100.0 * self.max_lost,
            self.close,
            self.plans,
            100.0 * self.close_share(),
            self.geomean_ratio,
            self.min_ratio,
            self.max_ratio
        )
    }
}

/// One forced plan as the scatter of simulated against real time shows it
/// ([`ValidationReport::scatter`]): the probe's SVG and the page draw the same marks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScatterPoint {
    pub workload: String,
    pub query: String,
    pub cache: CacheState,
    /// The candidate key (`seq`, `index:t1_i7`, ...).
    pub key: String,
    /// Real seconds; `None` when the plan ran past the report's limit.
    pub real_s: Option<f64>,
    pub sim_s: f64,
    /// Where the mark goes, (real, simulated) seconds, inside [`Scatter::range`]: a plan
    /// past the limit at the limit (its real time is at least that), a time log axes cannot
    /// show (zero or negative) at the range's low end.
    pub at: (f64, f64),
}

impl ScatterPoint {
    /// Simulated over real time; `None` for a plan past the limit or a real time of zero.
    pub fn ratio(&self) -> Option<f64> {
        self.real_s.filter(|r| *r > 0.0).map(|r| self.sim_s / r)
    }
}

/// Every forced plan of a report as marks on log-log axes of real (x) against simulated (y)
/// seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scatter {
    /// One per plan, in the report's order: executed plans and plans past the limit.
    pub points: Vec<ScatterPoint>,
    /// Both axes' range, seconds: every positive time and (when a plan ran past it) the
    /// limit, with a factor 2 to spare at each end; the same on both axes, so the diagonal
    /// runs corner to corner.
    pub range: (f64, f64),
    pub limit_s: f64,
}

impl Scatter {
    /// The plans that finished (the ones with a real time).
    pub fn executed(&self) -> impl Iterator<Item = &ScatterPoint> {
        self.points.iter().filter(|p| p.real_s.is_some())
    }

    /// The plans stopped at the limit.
    pub fn past_limit(&self) -> impl Iterator<Item = &ScatterPoint> {
        self.points.iter().filter(|p| p.real_s.is_none())
    }
}

/// A [`Summary`] over one workload and cache state, or over every query (`label` "all").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SummaryRow {
    /// "t1-random warm", or "all".
    pub label: String,
    pub summary: Summary,
}

impl SummaryRow {
    /// The row as the report's text prints it: "t1-random warm: fastest named in ...".
    pub fn line(&self) -> String {
        format!("{}: {}", self.label, self.summary.line())
    }
}

impl QueryRuns {
    /// The verdict, or `None` when no plan finished (nothing to compare).
    pub fn verdict(&self, limit_s: f64) -> Option<Verdict> {
        let real = |p: &PlanRun| p.real_s.unwrap_or(f64::INFINITY);
        let fastest = self
            .plans
            .iter()
            .filter(|p| p.real_s.is_some())
            .min_by(|a, b| real(a).total_cmp(&real(b)))?;
        let pick = self
            .plans
            .iter()
            .min_by(|a, b| a.sim_s.total_cmp(&b.sim_s))?;
        let best = real(fastest);
        let got = pick.real_s.unwrap_or(limit_s.max(best));
        let lost = (got / best - 1.0).max(0.0);
        Some(Verdict {
            sim_pick: pick.key.clone(),
            real_fastest: fastest.key.clone(),
            right: pick.real_s.is_some() && got <= best * TIE,
            lost: if pick.key == fastest.key { 0.0 } else { lost },
        })
    }
}

impl ValidationReport {
    /// A report with no runs yet: the run fills in its queries, the executor's fit and
    /// `created` / `command` when it ends.
    pub fn new(
        engine_version: EngineVersion,
        server_version: String,
        server_settings: BTreeMap<String, String>,
        profile: MachineProfile,
        limit_s: f64,
        scenario: ScenarioFile,
        notes: Vec<String>,
    ) -> ValidationReport {
        ValidationReport {
            costlab_validation: VERSION,
            created: String::new(),
            tool: String::new(),
            command: String::new(),
            engine_version,
            server_version,
            server_settings,
            profile,
            limit_s,
            scenario,
            executor: None,
            executor_calibration: None,
            base_profile: None,
            notes,
            queries: Vec::new(),
            switch_points: Vec::new(),
            cold_buffer_pool_bytes: None,
            dbt3_sf: None,
        }
    }

    /// Parses and checks a report; errors name what is wrong.
    pub fn from_json(text: &str) -> Result<ValidationReport> {
        const WHAT: &str = "validation report";
        if text.len() > MAX_BYTES {
            return Err(Error::invalid(
                WHAT,
                format!(
                    "{} bytes is larger than the {MAX_BYTES} a report can be",
                    text.len()
                ),
            ));
        }
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::invalid(WHAT, format!("malformed JSON: {e}")))?;
        match value.get("costlab_validation").and_then(|v| v.as_u64()) {
            None => {
                return Err(Error::invalid(
                    WHAT,
                    "no `costlab_validation` version: not a costlab validation report",
                ))
            }
            Some(v) if v != u64::from(VERSION) => {
                return Err(Error::invalid(
                    "costlab_validation",
                    format!("version {v} is not the one this costlab reads ({VERSION})"),
                ))
            }
            Some(_) => {}
        }
        let r: ValidationReport =
            serde_json::from_value(value).map_err(|e| Error::invalid(WHAT, e.to_string()))?;
        r.profile.validate()?;
        r.scenario.validate()?;
        costlab_model::error::check_range("limit_s", r.limit_s, 0.001, 1e6)?;
        for q in &r.queries {
            for p in &q.plans {
                let field = format!("{} {} {}", q.name, q.cache.name(), p.key);
                if let Some(s) = p.real_s {
                    costlab_model::error::check_range(&format!("{field}: real_s"), s, 0.0, 1e7)?;
                }
            }
        }
        Ok(r)
    }

    pub fn to_json(&self) -> String {
        // Plain structs of numbers and strings: serialising cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The constants the server planned with: the release's defaults, then its settings.
    pub fn knobs(&self) -> Result<KnobValues> {
        let mut k = match self.engine_version.engine() {
            Engine::Postgres => {
                KnobValues::defaults(self.engine_version, EngineVersion::latest(Engine::Mysql))
            }
            Engine::Mysql => {
                KnobValues::defaults(EngineVersion::latest(Engine::Postgres), self.engine_version)
            }
        };
        for (name, value) in &self.scenario.settings {
            k.set(Knob::lookup(name)?, *value)?;
        }
        Ok(k)
    }

    /// Plans every query with the model and times each executed plan on `profile` (warm or
    /// cold as the run was), writing `sim_s` and `cost`. The profile's buffer pool and
    /// effective_io_concurrency are taken as they are: the caller sets them to the server's.
    pub fn simulate(&mut self, profile: &MachineProfile) -> Result<()> {
        let knobs = self.knobs()?;
        let mut warm = profile.clone();
        warm.warm_cache = true;
        let mut cold = profile.clone();
        cold.warm_cache = false;
        if let Some(pool) = self.cold_buffer_pool_bytes {
            cold.buffer_pool_bytes = pool;
        }
        let sims = [
            Simulator::for_release(&warm, self.engine_version)?,
            Simulator::for_release(&cold, self.engine_version)?,
        ];
        let mut dbt3 = Dbt3Models::of(self)?;
        for q in &mut self.queries {
            let sim = &sims[usize::from(q.cache == CacheState::Cold)];
            if let (Some(n), Some(models)) = (q.dbt3, dbt3.as_mut()) {
                // The join planner's plan under the plan's switches: the plan the server
                // would run if the model were right.
                for p in &mut q.plans {
                    let plan = models.plan(n, &p.forced_with, &knobs)?;
                    p.cost = plan.cost.total;
                    p.sim_s = sim.time_plan(&plan.tree)?.total_s;
                    let shape = model_shape(&plan.tree);
                    p.model_matches = Some(shape == p.real_plan);
                    p.model_plan = Some(shape);
                }
                continue;
            }
            let pool = if q.cache == CacheState::Cold {
                cold.buffer_pool_bytes
            } else {
                warm.buffer_pool_bytes
            };
            let planned = plan_sql(&self.scenario, &q.sql, &knobs, self.engine_version, pool)?;
            for p in &mut q.plans {
                let plan = candidate(&planned, &p.key, &q.name)?;
                p.cost = plan.cost.total;
                p.sim_s = sim.time_plan(plan)?.total_s;
            }
        }
        self.profile = profile.clone();
        // InnoDB's t1 experiment: the switch points move with the model too.
        if self.engine_version.engine() == Engine::Mysql && self.scenario.table("t1").is_ok() {
            self.switch_points = self.t1_switch_points(&warm, &cold)?;
        }
        Ok(())
    }

    /// The join planner's plan of a DBT3 query of the report (`name` as `Q18`) under a
    /// plan's switches (`key`, as `no-hashjoin`), timed on `profile` as the report's
    /// warm or cold runs are: to see which node a misprediction comes from.
    pub fn dbt3_plan_times(
        &self,
        profile: &MachineProfile,
        name: &str,
        key: &str,
        cache: CacheState,
    ) -> Result<(costlab_model::plan::PlanNode, costlab_sim::PlanTime)> {
        let runs = self
            .queries
            .iter()
            .find(|q| q.name == name && q.cache == cache)
            .ok_or_else(|| Error::invalid("query", format!("{name}: not in the report")))?;
        let n = runs
            .dbt3
            .ok_or_else(|| Error::invalid("query", format!("{name}: not a DBT3 query")))?;
        let run = runs
            .plans
            .iter()
            .find(|p| p.key == key)
            .ok_or_else(|| Error::invalid("plan", format!("{name} has no plan {key}")))?;
        let mut p = profile.clone();
        p.warm_cache = cache == CacheState::Warm;
        if let (CacheState::Cold, Some(pool)) = (cache, self.cold_buffer_pool_bytes) {
            p.buffer_pool_bytes = pool;
        }
        let sim = Simulator::for_release(&p, self.engine_version)?;
        let mut models = Dbt3Models::of(self)?
            .ok_or_else(|| Error::invalid("query", "the report has no DBT3 query"))?;
        let plan = models.plan(n, &run.forced_with, &self.knobs()?)?;
        let time = sim.time_plan(&plan.tree)?;
        Ok((plan.tree, time))
    }

    /// WL#8737's switch points of an InnoDB report on its t1: per cache state, where the
    /// range scan on k7 stops being faster than the table scan, really (from the measured
    /// fractions) and as simulated on `warm` / `cold` (bisection on the model).
    fn t1_switch_points(
        &self,
        warm: &MachineProfile,
        cold: &MachineProfile,
    ) -> Result<Vec<SwitchPoint>> {
        let rows = self.scenario.table("t1")?.rows;
        let knobs = self.knobs()?;
        let fraction_of = |sql: &str| -> Option<f64> {
            let upper: f64 = sql
                .split("i7 < ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()?;
            Some(upper / rows)
        };
        let mut points = Vec::new();
        for (cache, p) in [(CacheState::Warm, warm), (CacheState::Cold, cold)] {
            let measured: Vec<(f64, f64, f64)> = self
                .queries
                .iter()
                .filter(|q| q.cache == cache)
                .filter_map(|q| {
                    let real = |k: &str| q.plans.iter().find(|r| r.key == k).and_then(|r| r.real_s);
                    // A range scan past the limit is slower than any measured table scan.
                    let range = real("range:k7").unwrap_or(f64::INFINITY);
                    Some((fraction_of(&q.sql)?, real("table_scan")?, range))
                })
                .collect();
            if measured.is_empty() {
                continue;
            }
            let lo = measured.iter().map(|m| m.0).fold(f64::INFINITY, f64::min);
            let hi = measured.iter().map(|m| m.0).fold(0.0, f64::max);
            let sim = Simulator::for_release(p, self.engine_version)?;
            let gap = |f: f64| -> Result<f64> {
                let sql = costlab_workload::t1::t1_like_sql(rows, f)?;
                let planned = plan_sql(
                    &self.scenario,
                    &sql,
                    &knobs,
                    self.engine_version,
                    p.buffer_pool_bytes,
                )?;
                let t = |k: &str| -> Result<f64> {
                    Ok(sim.time_plan(candidate(&planned, k, &sql)?)?.total_s)
                };
                Ok((t("range:k7")? / t("table_scan")?).ln())
            };
            points.push(SwitchPoint {
                cache,
                from: lo,
                to: hi,
                real: SwitchPoint::crossing(&measured),
                simulated: crossing_of(gap, lo, hi)?,
            });
        }
        Ok(points)
    }

    /// For each value of `knob` (random_page_cost, say), how many queries PostgreSQL plans
    /// with a plan that really was the fastest (within [`TIE`]), per cache state: where the
    /// constant would have to be for the engine's own choices to be right on this machine.
    /// The model's costs are PostgreSQL's, so this needs no server.
    pub fn knob_agreement(&self, knob: Knob, values: &[f64]) -> Result<Vec<KnobAgreement>> {
        let mut out = Vec::with_capacity(values.len());
        let mut dbt3 = Dbt3Models::of(self)?;
        for &v in values {
            let mut knobs = self.knobs()?;
            knobs.set(knob, v)?;
            let mut row = KnobAgreement {
                value: v,
                warm_right: 0,
                warm_queries: 0,
                cold_right: 0,
                cold_queries: 0,
            };
            for q in &self.queries {
                let best = q
                    .plans
                    .iter()
                    .filter_map(|p| p.real_s)
                    .fold(f64::INFINITY, f64::min);
                if !best.is_finite() {
                    continue;
                }
                let chosen = match (q.dbt3, dbt3.as_mut()) {
                    // DBT3: the forced plan that ran as the model's plan with every
                    // switch on.
                    (Some(n), Some(models)) => {
                        let shape = model_shape(&models.plan(n, &[], &knobs)?.tree);
                        q.plans.iter().find(|p| p.real_plan == shape)
                    }
                    _ => {
                        let planned = plan_sql(
                            &self.scenario,
                            &q.sql,
                            &knobs,
                            self.engine_version,
                            self.profile.buffer_pool_bytes,
                        )?;
                        let key = planned
                            .candidates
                            .get(planned.chosen)
                            .map(|c| c.key.as_str())
                            .unwrap_or_default();
                        q.plans.iter().find(|p| p.key == key)
                    }
                };
                let right = chosen
                    .and_then(|p| p.real_s)
                    .is_some_and(|r| r <= best * TIE);
                match q.cache {
                    CacheState::Warm => {
                        row.warm_queries += 1;
                        row.warm_right += usize::from(right);
                    }
                    CacheState::Cold => {
                        row.cold_queries += 1;
                        row.cold_right += usize::from(right);
                    }
                }
            }
            out.push(row);
        }
        Ok(out)
    }

    /// Refits the executor's figures from the stored calibration runs on `base` (the
    /// probe's figures with the server's memory settings) and simulates every plan again:
    /// what a changed time model predicts from the same measurements.
    pub fn refit(&mut self, base: &MachineProfile) -> Result<()> {
        let Some(cal) = &self.executor_calibration else {
            return self.simulate(&base.clone());
        };
        let fit = cal.fit(base, self.engine_version, &self.knobs()?)?;
        let profile = fit.apply(base);
        self.executor = Some(fit);
        self.base_profile = Some(base.clone());
        self.simulate(&profile)
    }

    /// Summary over the queries `keep` accepts.
    pub fn summary(&self, keep: impl Fn(&QueryRuns) -> bool) -> Summary {
        let mut s = Summary {
            min_ratio: f64::INFINITY,
            max_ratio: 0.0,
            ..Summary::default()
        };
        let mut log_sum = 0.0;
        let mut executed = 0usize;
        for q in self.queries.iter().filter(|q| keep(q)) {
            if let Some(v) = q.verdict(self.limit_s) {
                s.queries += 1;
                if v.right {
                    s.right += 1;
                } else {
                    s.max_lost = s.max_lost.max(v.lost);
                }
            }
            for p in &q.plans {
                s.plans += 1;
                match p.real_s {
                    Some(real) if real > 0.0 && p.sim_s > 0.0 => {
                        let r = p.sim_s / real;
                        if (1.0 / CLOSE..=CLOSE).contains(&r) {
                            s.close += 1;
                        }
                        log_sum += r.ln();
                        executed += 1;
                        s.min_ratio = s.min_ratio.min(r);
                        s.max_ratio = s.max_ratio.max(r);
                    }
                    Some(_) => {}
                    None => {
                        if p.sim_s >= self.limit_s {
                            s.close += 1;
                        }
                    }
                }
            }
        }
        s.geomean_ratio = if executed > 0 {
            (log_sum / executed as f64).exp()
        } else {
            0.0
        };
        if executed == 0 {
            s.min_ratio = 0.0;
        }
        s
    }

    /// Of the DBT3 plans of the queries `keep` accepts: how many the model plans as they
    /// really ran under the same switches, and how many there are.
    pub fn model_matches(&self, keep: impl Fn(&QueryRuns) -> bool) -> (usize, usize) {
        self.queries
            .iter()
            .filter(|q| q.dbt3.is_some() && keep(q))
            .flat_map(|q| q.plans.iter())
            .fold((0, 0), |(m, n), p| {
                (m + usize::from(p.model_matches == Some(true)), n + 1)
            })
    }

    /// Workload and cache-state pairs in the report, in order of first appearance.
    pub fn groups(&self) -> Vec<(String, CacheState)> {
        let mut g: Vec<(String, CacheState)> = Vec::new();
        for q in &self.queries {
            let k = (q.workload.clone(), q.cache);
            if !g.contains(&k) {
                g.push(k);
            }
        }
        g
    }

    /// The summary of each workload and cache state ([`Self::groups`]' order), then over
    /// every query ("all"): the lines the report's text ends with.
    pub fn summary_rows(&self) -> Vec<SummaryRow> {
        let mut rows: Vec<SummaryRow> = self
            .groups()
            .into_iter()
            .map(|(w, c)| SummaryRow {
                label: format!("{w} {}", c.name()),
                summary: self.summary(|q| q.workload == w && q.cache == c),
            })
            .collect();
        rows.push(SummaryRow {
            label: "all".into(),
            summary: self.summary(|_| true),
        });
        rows
    }

    /// How well the machine agrees with itself: `later` (a second run of the same queries)
    /// with each plan's simulated time replaced by this run's real time, so the verdicts and
    /// summaries read "this run's real times, taken as the prediction of the later run's".
    /// No model can score better against `later` than this, except by luck: it is the
    /// ceiling the targets meet when they are judged on a single run. Queries and plans
    /// that are not in both runs are left out; a plan past this run's limit predicts the
    /// limit.
    pub fn as_prediction_of(&self, later: &ValidationReport) -> ValidationReport {
        let mine = |q: &QueryRuns| {
            self.queries
                .iter()
                .find(|m| m.workload == q.workload && m.name == q.name && m.cache == q.cache)
        };
        let mut out = later.clone();
        out.queries = later
            .queries
            .iter()
            .filter_map(|q| {
                let m = mine(q)?;
                let plans: Vec<PlanRun> = q
                    .plans
                    .iter()
                    .filter_map(|p| {
                        let before = m.plans.iter().find(|b| b.key == p.key)?;
                        Some(PlanRun {
                            sim_s: before.real_s.unwrap_or(self.limit_s),
                            ..p.clone()
                        })
                    })
                    .collect();
                (!plans.is_empty()).then(|| QueryRuns { plans, ..q.clone() })
            })
            .collect();
        out
    }

    /// Every forced plan as a mark of real against simulated time, and the axes' range.
    /// Never fails: times the axes cannot show are put at their edge.
    pub fn scatter(&self) -> Scatter {
        let positive = |v: f64| (v > 0.0 && v.is_finite()).then_some(v);
        let plans = || {
            self.queries
                .iter()
                .flat_map(|q| q.plans.iter().map(move |p| (q, p)))
        };
        let past_limit = plans().any(|(_, p)| p.real_s.is_none());
        let times = plans()
            .flat_map(|(_, p)| [p.real_s.and_then(positive), positive(p.sim_s)])
            .chain([past_limit.then_some(self.limit_s).and_then(positive)])
            .flatten();
        let (lo, hi) = times.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let range = if hi > 0.0 {
            (lo / CLOSE, hi * CLOSE)
        } else {
            // Nothing positive to show: a decade either side of a second.
            (0.1, 10.0)
        };
        let place = |v: Option<f64>| v.and_then(positive).unwrap_or(range.0).min(range.1);
        let points = plans()
            .map(|(q, p)| ScatterPoint {
                workload: q.workload.clone(),
                query: q.name.clone(),
                cache: q.cache,
                key: p.key.clone(),
                real_s: p.real_s,
                sim_s: p.sim_s,
                at: (
                    place(Some(p.real_s.unwrap_or(self.limit_s))),
                    place(Some(p.sim_s)),
                ),
            })
            .collect();
        Scatter {
            points,
            range,
            limit_s: self.limit_s,
        }
    }

    /// The report as text: every plan with real and simulated time, each query's verdict,
    /// a summary per workload and cache state and one overall.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let secs = |v: f64| {
            if v >= 10.0 {
                format!("{v:.1}")
            } else if v >= 0.01 {
                format!("{v:.3}")
            } else {
                format!("{:.2}m", v * 1e3)
            }
        };
        let _ = writeln!(
            s,
            "{} ({}) on {}; limit {} s",
            self.engine_version.label(),
            self.server_version,
            self.profile.label,
            self.limit_s
        );
        if let Some(x) = &self.executor {
            let _ = writeln!(
                s,
                "executor (fitted on calibration tables, not on these queries): {:.1} ns/row, \
                 {:.1} ns/index entry, {:.1} ns/operator, {:.0} ns/buffer hit, {}",
                x.cpu_ns_per_row,
                x.cpu_ns_per_index_entry,
                x.cpu_ns_per_operator,
                x.buffer_hit_ns,
                x.os_cache_hit_ns
                    .map(|v| format!("{v:.0} ns/page from the OS cache"))
                    .unwrap_or_else(|| "OS cache read: the probe's figure".into())
            );
            if let Some(v) = x.os_cache_evict_hit_ns {
                let _ = writeln!(s, "  {v:.0} ns/page from the OS cache into a full buffer");
            }
            if let (Some(h), Some(c)) = (&x.hash_rows, x.cpu_ns_per_comparison) {
                let _ = writeln!(
                    s,
                    "  {:.1} ns/hash row in a table of {:.0} kB, {:.1} in one of {:.0} kB; \
                     {c:.1} ns/sort comparison",
                    h.small_ns,
                    h.small_bytes / 1024.0,
                    h.large_ns,
                    h.large_bytes / 1024.0
                );
            }
            let _ = writeln!(
                s,
                "cold reads (fitted on calibration tables): sequential {}, random 8 kB {}",
                x.seq_read_mbps
                    .map(|v| format!("{v:.0} MB/s"))
                    .unwrap_or_else(|| "the probe's".into()),
                x.random_read_us
                    .map(|v| format!("{v:.0} us"))
                    .unwrap_or_else(|| "the probe's".into())
            );
            for (name, real, fit) in &x.queries {
                let _ = writeln!(s, "  {name:<34} real {} fit {}", secs(*real), secs(*fit));
            }
        }
        let _ = writeln!(
            s,
            "{:<16} {:<5} {:<26} {:>10} {:>10} {:>7}  verdict",
            "query", "cache", "plan", "real s", "sim s", "sim/real"
        );
        for q in &self.queries {
            let v = q.verdict(self.limit_s);
            for (i, p) in q.plans.iter().enumerate() {
                let real = p
                    .real_s
                    .map(secs)
                    .unwrap_or_else(|| format!(">{}", self.limit_s));
                let ratio = p
                    .real_s
                    .map(|r| format!("{:.2}", p.sim_s / r))
                    .unwrap_or_default();
                let mark = match &v {
                    Some(v) if v.sim_pick == p.key && v.real_fastest == p.key => "sim+real fastest",
                    Some(v) if v.sim_pick == p.key => "sim fastest",
                    Some(v) if v.real_fastest == p.key => "real fastest",
                    _ => "",
                };
                let verdict = match (&v, i) {
                    (Some(v), 0) if v.right => "RIGHT".to_string(),
                    (Some(v), 0) => format!("WRONG, {:.0} % lost", 100.0 * v.lost),
                    _ => String::new(),
                };
                let _ = writeln!(
                    s,
                    "{:<16} {:<5} {:<26} {:>10} {:>10} {:>7}  {verdict:<18} {mark}",
                    if i == 0 { q.name.as_str() } else { "" },
                    if i == 0 { q.cache.name() } else { "" },
                    p.key,
                    real,
                    secs(p.sim_s),
                    ratio
                );
            }
        }
        let _ = writeln!(s);
        for row in self.summary_rows() {
            let _ = writeln!(s, "{}", row.line());
        }
        for p in &self.switch_points {
            let _ = writeln!(s, "{}", p.line());
        }
        for (w, c) in self.groups() {
            let group = |q: &QueryRuns| q.workload == w && q.cache == c;
            let (matched, plans) = self.model_matches(group);
            if plans > 0 {
                // The plans the server ran with every switch on: its own choices.
                let (dm, dn) = self
                    .queries
                    .iter()
                    .filter(|q| group(q))
                    .flat_map(|q| q.plans.iter())
                    .filter(|p| p.forced_with.is_empty())
                    .fold((0, 0), |(m, n), p| {
                        (m + usize::from(p.model_matches == Some(true)), n + 1)
                    });
                let _ = writeln!(
                    s,
                    "{w} {}: the simulated plan is the plan that ran for {matched} of {plans} \
                     plans ({dm} of {dn} with every switch on)",
                    c.name()
                );
            }
        }
        s
    }
}

/// Where `gap` (rising with the fraction) crosses zero between `lo` and `hi`, by
/// bisection; `None` when it does not.
fn crossing_of(gap: impl Fn(f64) -> Result<f64>, lo: f64, hi: f64) -> Result<Option<f64>> {
    let (mut a, mut b) = (lo, hi);
    if gap(a)? >= 0.0 || gap(b)? <= 0.0 {
        return Ok(None);
    }
    for _ in 0..60 {
        let m = 0.5 * (a + b);
        if gap(m)? < 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    Ok(Some(0.5 * (a + b)))
}

/// Where the range scan stops being faster than the table scan, really and as simulated
/// (WL#8737's experiment), over the fractions measured under one cache state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchPoint {
    pub cache: CacheState,
    /// The measured fractions' range.
    pub from: f64,
    pub to: f64,
    /// The fraction of the table where both plans take the same time; `None` when one
    /// plan is faster over the whole range.
    pub real: Option<f64>,
    pub simulated: Option<f64>,
}

impl SwitchPoint {
    /// The real switch from measurements `(fraction, table scan s, range scan s)`: where
    /// the log of their ratio, interpolated linearly between the measured fractions,
    /// first turns from the range scan being faster to the table scan being faster. An
    /// infinite range time (past the limit) counts as slower.
    pub fn crossing(measured: &[(f64, f64, f64)]) -> Option<f64> {
        let mut m: Vec<(f64, f64)> = measured
            .iter()
            .filter(|(f, scan, _)| f.is_finite() && *scan > 0.0)
            .map(|&(f, scan, range)| (f, (range / scan).ln()))
            .collect();
        m.sort_by(|a, b| a.0.total_cmp(&b.0));
        m.windows(2).find_map(|w| {
            let ((f0, g0), (f1, g1)) = (w[0], w[1]);
            if g0 < 0.0 && g1 >= 0.0 {
                if g1.is_infinite() {
                    return Some(f1);
                }
                Some(f0 + (f1 - f0) * (-g0) / (g1 - g0))
            } else {
                None
            }
        })
    }

    /// Percentage points between the real and the simulated switch, when both exist.
    pub fn error_pp(&self) -> Option<f64> {
        Some(100.0 * (self.simulated? - self.real?).abs())
    }

    pub fn line(&self) -> String {
        let at = |v: Option<f64>| match v {
            Some(f) => format!("{:.2} %", 100.0 * f),
            None => format!(
                "none within {:.2} to {:.2} %",
                100.0 * self.from,
                100.0 * self.to
            ),
        };
        format!(
            "switch point ({}): real {}, simulated {}{}",
            self.cache.name(),
            at(self.real),
            at(self.simulated),
            self.error_pp()
                .map(|e| format!(" ({e:.2} percentage points apart)"))
                .unwrap_or_default()
        )
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn switch_point_interpolates_the_log_ratio_between_measured_fractions() {
        // Range scan 4x faster at 1 %, 2x slower at 10 %: ln(1/4) -> ln 2, zero at 2/3 of
        // the way in ln-ratio terms.
        let m = [(0.10, 1.0, 2.0), (0.01, 1.0, 0.25), (0.2, 1.0, 4.0)];
        let x = SwitchPoint::crossing(&m).unwrap();
        let expect = 0.01 + 0.09 * (4f64.ln() / (4f64.ln() + 2f64.ln()));
        assert!((x - expect).abs() < 1e-12, "{x} vs {expect}");
        // Always faster or always slower: none.
        assert_eq!(
            SwitchPoint::crossing(&[(0.01, 1.0, 0.5), (0.2, 1.0, 0.9)]),
            None
        );
        assert_eq!(
            SwitchPoint::crossing(&[(0.01, 1.0, 2.0), (0.2, 1.0, 3.0)]),
            None
        );
        // Past the limit at the next fraction: the switch is placed there.
        assert_eq!(
            SwitchPoint::crossing(&[(0.01, 1.0, 0.5), (0.02, 1.0, f64::INFINITY)]),
            Some(0.02)
        );
        let p = SwitchPoint {
            cache: CacheState::Warm,
            from: 0.001,
            to: 0.2,
            real: Some(0.09),
            simulated: Some(0.1),
        };
        assert!((p.error_pp().unwrap() - 1.0).abs() < 1e-9);
        assert!(p
            .line()
            .contains("real 9.00 %, simulated 10.00 % (1.00 percentage points apart)"));
    }

    use super::*;

    fn run(key: &str, real: Option<f64>, sim: f64) -> PlanRun {
        PlanRun {
            key: key.into(),
            forced_with: vec![],
            real_plan: String::new(),
            real_s: real,
            runs: real.into_iter().collect(),
            shared_hit: 0.0,
            shared_read: 0.0,
            sim_s: sim,
            cost: 0.0,
            ..PlanRun::default()
        }
    }

    fn query(plans: Vec<PlanRun>) -> QueryRuns {
        QueryRuns {
            workload: "w".into(),
            name: "q".into(),
            sql: String::new(),
            cache: CacheState::Warm,
            server_choice: None,
            plans,
            dbt3: None,
        }
    }

    #[test]
    fn a_pick_within_ten_percent_of_the_fastest_is_right() {
        let q = query(vec![
            run("seq", Some(1.0), 2.0),
            run("index", Some(1.08), 1.0),
        ]);
        let v = q.verdict(60.0).expect("a verdict");
        assert_eq!(
            (v.sim_pick.as_str(), v.real_fastest.as_str()),
            ("index", "seq")
        );
        assert!(v.right);
        let q = query(vec![
            run("seq", Some(1.0), 2.0),
            run("index", Some(1.5), 1.0),
        ]);
        let v = q.verdict(60.0).expect("a verdict");
        assert!(!v.right);
        assert!((v.lost - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_plan_past_the_limit_loses_at_least_the_limit() {
        // The simulation picks the plan that never finished: wrong, and at least 60/2 - 1
        // of the fastest lost.
        let q = query(vec![run("seq", Some(2.0), 5.0), run("index", None, 1.0)]);
        let v = q.verdict(60.0).expect("a verdict");
        assert!(!v.right);
        assert!((v.lost - 29.0).abs() < 1e-12);
        // Nothing finished: no verdict.
        assert!(query(vec![run("seq", None, 1.0)]).verdict(60.0).is_none());
    }

    #[test]
    fn nnls_recovers_non_negative_figures() {
        // y = 2 a + 3 b exactly; a third unknown that would fit a negative value stays 0.
        let rows: Vec<([f64; 3], f64)> = [
            (1.0, 0.0, 1.0),
            (0.0, 1.0, 2.0),
            (1.0, 1.0, 0.0),
            (2.0, 1.0, 1.0),
        ]
        .iter()
        .map(|&(a, b, c)| ([a, b, c], 2.0 * a + 3.0 * b - 0.5 * c))
        .collect();
        let x = nnls(&rows);
        assert_eq!(x[2], 0.0, "{x:?}");
        let exact: Vec<([f64; 2], f64)> = [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
            .iter()
            .map(|&(a, b)| ([a, b], 2.0 * a + 3.0 * b))
            .collect();
        let y = nnls(&exact);
        assert!(
            (y[0] - 2.0).abs() < 1e-9 && (y[1] - 3.0).abs() < 1e-9,
            "{y:?}"
        );
    }

    fn report(queries: Vec<QueryRuns>) -> ValidationReport {
        let mut r = ValidationReport::new(
            EngineVersion::Pg15,
            String::new(),
            BTreeMap::new(),
            costlab_sim::builtin::find("hdd-7200").expect("a built-in profile"),
            10.0,
            ScenarioFile::new(EngineVersion::Pg15, vec![]),
            vec![],
        );
        r.queries = queries;
        r
    }

    #[test]
    fn a_first_run_predicts_a_second_run_only_where_the_machine_repeats_itself() {
        // Run 1: index 5.6 ms, bitmap 6.0 ms; run 2 the other way round, 13 % apart (the
        // correlated key at 3 % on PostgreSQL 15, warm, in two runs of session 5 and 6).
        // Run 1 names index as fastest: wrong about run 2 by 13 %. The seq plan is far
        // from both and agrees.
        let first = report(vec![query(vec![
            run("seq", Some(0.181), 0.0),
            run("index", Some(0.0056), 0.0),
            run("bitmap", Some(0.0060), 0.0),
        ])]);
        let mut second_q = query(vec![
            run("seq", Some(0.190), 9.0),
            run("index", Some(0.0077), 9.0),
            run("bitmap", Some(0.0068), 9.0),
            run("only-in-the-second", Some(0.001), 9.0),
        ]);
        second_q.plans[0].shared_hit = 42.0;
        let mut other = query(vec![run("seq", Some(1.0), 1.0)]);
        other.name = "not in the first run".into();
        let second = report(vec![second_q, other]);
        let ceiling = first.as_prediction_of(&second);
        // Only the query and plans both runs have; the later run's real times and buffers.
        assert_eq!(ceiling.queries.len(), 1);
        let q = &ceiling.queries[0];
        assert_eq!(
            q.plans.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(),
            ["seq", "index", "bitmap"]
        );
        assert_eq!(q.plans[0].shared_hit, 42.0);
        assert_eq!(q.plans[1].sim_s, 0.0056);
        let v = q.verdict(ceiling.limit_s).expect("a verdict");
        assert_eq!(
            (v.sim_pick.as_str(), v.real_fastest.as_str()),
            ("index", "bitmap")
        );
        assert!(!v.right);
        assert!((v.lost - (0.0077 / 0.0068 - 1.0)).abs() < 1e-12);
        // Against itself a run is always right, ratio 1.
        let s = second.as_prediction_of(&second).summary(|_| true);
        assert_eq!((s.right, s.queries), (2, 2));
        assert!((s.geomean_ratio - 1.0).abs() < 1e-12);
    }

    /// A DBT3 query's plans are the join planner's under each plan's switches, timed on the
    /// report's machine; the verdict says whether the model's plan is the one that ran.
    #[test]
    fn a_dbt3_plan_is_timed_as_the_join_planners_plan_under_its_switches() {
        let sf = 0.01;
        let cat = costlab_workload::dbt3::catalog::dbt3(sf).expect("catalog");
        let model = PgJoinPlanner::new(&cat.pg, PgJoinEnv::default()).expect("planner");
        let knobs = KnobValues::defaults(EngineVersion::Pg15, EngineVersion::Mysql80);
        let q3 = model
            .plan(
                &costlab_workload::dbt3::queries::query(3, sf).expect("Q3"),
                &knobs,
            )
            .expect("Q3 plans");
        let plan = |key: &str, forced_with: &[&str], real_plan: String| PlanRun {
            key: key.into(),
            forced_with: forced_with.iter().map(|s| s.to_string()).collect(),
            real_plan,
            real_s: Some(0.01),
            runs: vec![0.01],
            ..PlanRun::default()
        };
        let mut q = query(vec![
            plan("default", &[], model_shape(&q3.tree)),
            plan("no-hashjoin", &["enable_hashjoin=off"], "MJ(...)".into()),
        ]);
        q.dbt3 = Some(3);
        let mut r = report(vec![q]);
        r.scenario.tables = cat.pg.clone();
        // Without the scale factor the queries' text is unknown.
        assert!(r.clone().simulate(&r.profile.clone()).is_err());
        r.dbt3_sf = Some(sf);
        r.simulate(&r.profile.clone()).expect("simulate");
        let mut warm = r.profile.clone();
        warm.warm_cache = true;
        let sim = Simulator::for_release(&warm, EngineVersion::Pg15).expect("simulator");
        let default = &r.queries[0].plans[0];
        assert_eq!(
            default.sim_s,
            sim.time_plan(&q3.tree).expect("time").total_s
        );
        assert_eq!(default.cost, q3.cost.total);
        assert_eq!(default.model_matches, Some(true));
        assert_eq!(r.queries[0].plans[1].model_matches, Some(false));
        assert_eq!(r.model_matches(|_| true), (1, 2));
        assert!(r
            .text()
            .contains("the simulated plan is the plan that ran for 1 of 2 plans (1 of 1 with every switch on)"));
        // The report's JSON rescores alike.
        let back = ValidationReport::from_json(&r.to_json()).expect("reads back");
        let mut again = back.clone();
        again.simulate(&back.profile.clone()).expect("rescore");
        assert_eq!(again, r);
        // Switches: only `enable_...=off` of ones the model knows.
        assert!(
            !PgOptions::with_switches_off(&["enable_nestloop=off".into()])
                .expect("a switch")
                .enable_nestloop
        );
        assert!(PgOptions::with_switches_off(&["enable_nestloop=on".into()]).is_err());
        assert!(PgOptions::with_switches_off(&["enable_warp=off".into()]).is_err());
    }

    /// The committed PostgreSQL 15 report and the table its run printed.
    const PG15_JSON: &str = include_str!("../../../docs/validation/pg15.json");
    const PG15_TXT: &str = include_str!("../../../docs/validation/pg15.txt");

    #[test]
    fn the_scatter_of_a_committed_report_has_one_mark_per_plan_at_its_times() {
        let r = ValidationReport::from_json(PG15_JSON).expect("the committed report reads");
        let sc = r.scatter();
        let plans: Vec<&PlanRun> = r.queries.iter().flat_map(|q| &q.plans).collect();
        assert_eq!(sc.points.len(), plans.len());
        let finished = plans.iter().filter(|p| p.real_s.is_some()).count();
        assert_eq!(sc.executed().count(), finished);
        assert_eq!(sc.past_limit().count(), plans.len() - finished);
        let (lo, hi) = sc.range;
        for (p, run) in sc.points.iter().zip(&plans) {
            assert_eq!(
                (p.key.as_str(), p.real_s, p.sim_s),
                (run.key.as_str(), run.real_s, run.sim_s)
            );
            assert!(
                lo <= p.at.0 && p.at.0 <= hi && lo <= p.at.1 && p.at.1 <= hi,
                "{p:?} outside {lo}..{hi}"
            );
            match run.real_s {
                Some(real) => {
                    assert_eq!(p.at, (real, run.sim_s));
                    assert_eq!(p.ratio(), Some(run.sim_s / real));
                }
                // Past the limit: at the limit (or the edge), no ratio.
                None => assert_eq!(p.ratio(), None),
            }
        }
        // The shortest and the longest time of the file, with a factor 2 to spare.
        let times = plans
            .iter()
            .flat_map(|p| [p.real_s.unwrap_or(p.sim_s), p.sim_s]);
        let shortest = times.clone().fold(f64::INFINITY, f64::min);
        let longest = times.fold(0.0, f64::max);
        assert!(
            shortest > 0.0 && longest > shortest * 100.0,
            "{shortest} {longest}"
        );
        assert_eq!((lo, hi), (shortest / 2.0, longest * 2.0));
        let first = &sc.points[0];
        assert_eq!(
            (first.workload.as_str(), first.query.as_str(), first.cache),
            ("t1-random", "i7 0.01 %", CacheState::Warm)
        );
    }

    /// The committed reports read, write back as they were, and rescore as `validate
    /// rescore` does (refit on the base profile with the server's memory settings) to the
    /// simulated times they hold: they were written by the model as it stands.
    #[test]
    fn committed_reports_rescore_to_their_stored_times() {
        for (name, text) in [
            ("pg15", PG15_JSON),
            ("pg18", include_str!("../../../docs/validation/pg18.json")),
            (
                "innodb",
                include_str!("../../../docs/validation/innodb.json"),
            ),
        ] {
            let r = ValidationReport::from_json(text).expect("the committed report reads");
            assert_eq!(
                ValidationReport::from_json(&r.to_json()).expect("written back"),
                r,
                "{name}"
            );
            // Only the PostgreSQL reports carry DBT3 (the InnoDB one predates it).
            assert_eq!(r.dbt3_sf.is_some(), name != "innodb", "{name}");
            let mut base = r.base_profile.clone().unwrap_or_else(|| r.profile.clone());
            base.buffer_pool_bytes = r.profile.buffer_pool_bytes;
            base.effective_io_concurrency = r.profile.effective_io_concurrency;
            base.bypass_os_cache = r.profile.bypass_os_cache;
            let mut again = r.clone();
            again.refit(&base).expect("rescore");
            for (q, q2) in r.queries.iter().zip(&again.queries) {
                for (p, p2) in q.plans.iter().zip(&q2.plans) {
                    assert!(
                        (p.sim_s - p2.sim_s).abs() <= 1e-9 * p.sim_s.abs().max(1e-9),
                        "{name} {} {} {}: stored {} rescored {}",
                        q.name,
                        q.cache.name(),
                        p.key,
                        p.sim_s,
                        p2.sim_s
                    );
                }
            }
        }
    }

    #[test]
    fn summary_rows_are_the_lines_the_committed_run_printed() {
        let r = ValidationReport::from_json(PG15_JSON).expect("the committed report reads");
        let rows = r.summary_rows();
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "t1-random warm",
                "t1-correlated warm",
                "t1-index-only warm",
                "t1-random cold",
                "t1-correlated cold",
                "t1-index-only cold",
                "dbt3 warm",
                "dbt3 cold",
                "all"
            ]
        );
        let printed: Vec<&str> = PG15_TXT
            .lines()
            .filter(|l| l.contains(": fastest named in "))
            .collect();
        let lines: Vec<String> = rows.iter().map(SummaryRow::line).collect();
        assert_eq!(lines, printed);
        // The last row covers every query: counted here from the plans themselves (a plan
        // past the limit is close when the simulation puts it past the limit too).
        let all = &rows.last().expect("rows").summary;
        let plans: Vec<&PlanRun> = r.queries.iter().flat_map(|q| &q.plans).collect();
        let close = plans
            .iter()
            .filter(|p| match p.real_s {
                Some(real) => (0.5..=2.0).contains(&(p.sim_s / real)),
                None => p.sim_s >= r.limit_s,
            })
            .count();
        assert_eq!((all.close, all.plans), (close, plans.len()));
    }

    #[test]
    fn plans_past_the_limit_and_times_log_axes_cannot_show_sit_at_the_edges() {
        let mut cold = query(vec![
            run("seq", Some(0.0), 0.5),
            run("bitmap", Some(2.0), -1.0),
        ]);
        cold.cache = CacheState::Cold;
        let r = report(vec![
            query(vec![run("seq", Some(0.01), 0.02), run("index", None, 30.0)]),
            cold,
        ]);
        let sc = r.scatter();
        assert_eq!(sc.points.len(), 4);
        assert_eq!((sc.executed().count(), sc.past_limit().count()), (3, 1));
        // The limit (10 s) is inside the range; the largest time is the simulated 30 s.
        assert_eq!(sc.range, (0.01 / 2.0, 60.0));
        let past = sc.past_limit().next().expect("one");
        assert_eq!((past.key.as_str(), past.at), ("index", (10.0, 30.0)));
        assert_eq!(past.ratio(), None);
        // Zero real time and a negative simulated one: at the low end, no ratio for zero.
        assert_eq!(sc.points[2].at, (0.005, 0.5));
        assert_eq!(sc.points[2].ratio(), None);
        assert_eq!(sc.points[3].at, (2.0, 0.005));
        assert_eq!(sc.points[3].cache, CacheState::Cold);
        // Nothing at all: an empty scatter over a default range, no panic.
        let empty = report(vec![]).scatter();
        assert!(empty.points.is_empty());
        assert_eq!(empty.range, (0.1, 10.0));
        assert_eq!(report(vec![]).summary_rows().len(), 1);
    }

    #[test]
    fn summary_counts_close_plans_and_the_geometric_mean() {
        let mut r = report(vec![query(vec![
            run("a", Some(1.0), 4.0),
            run("b", Some(1.0), 0.25),
            run("c", None, 20.0),
            run("d", None, 0.1),
        ])]);
        let s = r.summary(|_| true);
        assert_eq!(
            (s.plans, s.close),
            (4, 1),
            "only c (past the limit in both) is close"
        );
        assert!((s.geomean_ratio - 1.0).abs() < 1e-12);
        assert_eq!((s.min_ratio, s.max_ratio), (0.25, 4.0));
        // The simulation picks d, which never finished: wrong.
        assert_eq!((s.queries, s.right), (1, 0));
        assert!(!s.meets_targets());
        r.queries[0].plans.truncate(2);
        r.queries[0].plans[0].sim_s = 1.1;
        r.queries[0].plans[1].sim_s = 0.9;
        let s = r.summary(|_| true);
        assert!(s.meets_targets(), "{}", s.line());
    }

    /// The executor's start-up (sim::time assumption 16) comes out of the fit when ten-row
    /// calibration queries ran, and stays 0 when only large ones did: the calibration of
    /// the committed PostgreSQL 15 report, re-timed on a profile whose figures are known.
    #[test]
    fn executor_start_up_is_fitted_from_short_queries_only() {
        let r = ValidationReport::from_json(PG15_JSON).expect("committed report");
        let cal = r.executor_calibration.clone().expect("calibration runs");
        let base = r.base_profile.clone().expect("base profile");
        let knobs = r.knobs().expect("knobs");
        let mut truth = r.executor.clone().expect("fit").apply(&base);
        truth.executor_start_ns = 40_000.0;
        let with_short = |short: bool| {
            let mut c = cal.clone();
            c.runs
                .retain(|run| run.cache == CacheState::Warm && !run.name.ends_with("10 rows"));
            if short {
                for (i, key) in ["index:cal_a", "bitmap:cal_a", "indexonly:cal_a"]
                    .into_iter()
                    .enumerate()
                {
                    let lo = 1000 * (i + 1);
                    let cols = if key.starts_with("indexonly") {
                        "a"
                    } else {
                        "*"
                    };
                    c.runs.push(CalibrationRun {
                        name: format!("cal {key} 10 rows"),
                        sql: format!("SELECT {cols} FROM cal WHERE a >= {lo} AND a < {}", lo + 10),
                        key: key.into(),
                        cache: CacheState::Warm,
                        real_s: 0.0,
                        forced_with: Vec::new(),
                        real_plan: None,
                    });
                }
            }
            let mut warm = truth.clone();
            warm.warm_cache = true;
            let sim = Simulator::for_release(&warm, r.engine_version).unwrap();
            for run in &mut c.runs {
                run.real_s = scan_run_time(
                    &c.scenario,
                    run,
                    &sim,
                    &knobs,
                    r.engine_version,
                    base.buffer_pool_bytes,
                );
            }
            c.fit(&base, r.engine_version, &knobs).unwrap()
        };
        let fitted = with_short(true);
        assert!(
            (fitted.executor_start_ns / 40_000.0 - 1.0).abs() < 0.05,
            "{}",
            fitted.executor_start_ns
        );
        assert_eq!(with_short(false).executor_start_ns, 0.0);
    }

    /// The cold sequential bandwidth comes from the cold calibration scan, not from the
    /// probe's figure: refitted on a base profile whose sequential figure is a tenth of the
    /// committed one (a probe run while the disk was busy), it is the same. Bounded to ten
    /// times the probe's figure it was not fitted at all and fell back to the probe's, which
    /// made every cold sequential scan several times too slow.
    #[test]
    fn the_cold_sequential_fit_does_not_hang_on_the_probes_figure() {
        let r = ValidationReport::from_json(PG15_JSON).expect("committed report");
        let cal = r.executor_calibration.clone().expect("calibration runs");
        let knobs = r.knobs().expect("knobs");
        let mut base = r.base_profile.clone().expect("base profile");
        base.buffer_pool_bytes = r.profile.buffer_pool_bytes;
        let fit = |b: &MachineProfile| cal.fit(b, r.engine_version, &knobs).unwrap();
        let committed = fit(&base).seq_read_mbps.expect("fitted");
        assert!(committed > base.device.seq_read_mbps * 3.0, "{committed}");
        let mut slow_probe = base.clone();
        slow_probe.device.seq_read_mbps /= 10.0;
        let refit = fit(&slow_probe).seq_read_mbps.expect("fitted");
        assert!(
            (refit / committed - 1.0).abs() < 0.01,
            "{refit} {committed}"
        );
    }

    /// A single-table calibration query's time on `sim`, planned as the fit plans it.
    fn scan_run_time(
        scenario: &ScenarioFile,
        run: &CalibrationRun,
        sim: &Simulator,
        knobs: &KnobValues,
        release: EngineVersion,
        pool_bytes: f64,
    ) -> f64 {
        let planned = plan_sql(scenario, &run.sql, knobs, release, pool_bytes).unwrap();
        let plan = candidate(&planned, &run.key, &run.name).unwrap();
        sim.time_plan(plan).unwrap().total_s
    }

    /// The calibration queries of hashing and sorting plan on the calibration table alone,
    /// as the probe forces them, to the plans the probe checks the server ran; with them,
    /// the fit tells a hash row (in a small and in a large table) and a sort's comparison
    /// from an operator: the committed PostgreSQL 15 calibration, re-timed on a profile
    /// whose figures are known (60 and 150 ns a hash row, 25 ns a comparison), gives those
    /// figures back. Without them, sorts and hashes cost an operator, as in every report
    /// before them.
    #[test]
    fn hash_and_sort_calibration_queries_tell_their_figures_apart() {
        use costlab_workload::dbt3::queries::{
            CAL_HASH_AGGREGATE, CAL_HASH_JOIN, CAL_HASH_JOIN_SMALL, CAL_SORT,
        };
        let r = ValidationReport::from_json(PG15_JSON).expect("committed report");
        let mut cal = r.executor_calibration.clone().expect("calibration runs");
        cal.runs.retain(|run| run.cache == CacheState::Warm);
        let knobs = r.knobs().expect("knobs");
        let base = r.base_profile.clone().expect("base profile");
        let before = cal.fit(&base, r.engine_version, &knobs).unwrap();
        assert_eq!(
            (before.hash_rows, before.cpu_ns_per_comparison),
            (None, None)
        );
        let mut trees = Vec::new();
        for (name, forced, shape) in [
            (
                CAL_HASH_JOIN,
                CAL_JOIN_SWITCHES,
                "Agg(HJ(Seq(c2), Seq(c1)))",
            ),
            (
                CAL_HASH_JOIN_SMALL,
                CAL_JOIN_SWITCHES,
                "Agg(HJ(Seq(c2), Seq(c1)))",
            ),
            (CAL_HASH_AGGREGATE, CAL_SCAN_SWITCHES, "HashAgg(Seq(cal))"),
            (CAL_SORT, CAL_SCAN_SWITCHES, "Sort(Seq(cal))"),
        ] {
            let q = calibration_query(name, &cal.scenario.tables)
                .unwrap()
                .unwrap();
            let run = CalibrationRun {
                name: name.into(),
                sql: q.sql.to_string(),
                key: "join".into(),
                cache: CacheState::Warm,
                real_s: 0.0,
                forced_with: forced.iter().map(|s| s.to_string()).collect(),
                real_plan: Some(shape.into()),
            };
            let tree = cal
                .plan_join_calibration(&run, &q, &knobs, r.engine_version)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            trees.push(tree);
            cal.runs.push(run);
        }
        let mut sizes = Vec::new();
        for t in &trees {
            t.walk(&mut |n| sizes.extend(costlab_sim::hash_table_bytes(n)));
        }
        let (lo, hi) = (
            sizes.iter().copied().fold(f64::INFINITY, f64::min),
            sizes.iter().copied().fold(0.0, f64::max),
        );
        // A thousand rows against a hundred thousand: kilobytes against megabytes.
        assert!(lo < 100e3 && hi > 2e6, "{lo} {hi}");
        let mut truth = r.executor.clone().expect("fit").apply(&base);
        truth.hash_rows = Some(costlab_sim::HashRowCost {
            small_bytes: lo,
            small_ns: 60.0,
            large_bytes: hi,
            large_ns: 150.0,
        });
        truth.cpu_ns_per_comparison = 25.0;
        truth.warm_cache = true;
        let sim = Simulator::for_release(&truth, r.engine_version).unwrap();
        let first = cal.runs.len() - trees.len();
        for (run, tree) in cal.runs[first..].iter_mut().zip(&trees) {
            run.real_s = sim.time_plan(tree).unwrap().total_s;
        }
        // The scan queries' times on the same profile: a fit with no residual.
        let scenario = cal.scenario.clone();
        for run in cal.runs[..first].iter_mut() {
            run.real_s = scan_run_time(
                &scenario,
                run,
                &sim,
                &knobs,
                r.engine_version,
                base.buffer_pool_bytes,
            );
        }
        let fit = cal.fit(&base, r.engine_version, &knobs).unwrap();
        let hash = fit.hash_rows.expect("hash rows measured");
        let cmp = fit.cpu_ns_per_comparison.expect("comparisons measured");
        assert_eq!((hash.small_bytes, hash.large_bytes), (lo, hi));
        assert!((hash.small_ns / 60.0 - 1.0).abs() < 0.05, "{hash:?}");
        assert!((hash.large_ns / 150.0 - 1.0).abs() < 0.05, "{hash:?}");
        assert!((cmp / 25.0 - 1.0).abs() < 0.05, "{cmp}");
        // A model that plans otherwise than the server ran is refused, by name.
        let mut wrong = cal.runs.last().unwrap().clone();
        wrong.real_plan = Some("Sort(Idx(cal:cal_a))".into());
        let q = calibration_query(CAL_SORT, &cal.scenario.tables)
            .unwrap()
            .unwrap();
        let e = cal
            .plan_join_calibration(&wrong, &q, &knobs, r.engine_version)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cal sort") && e.contains("Sort(Seq(cal))"),
            "{e}"
        );
    }

    /// A cold scan faster than the model can make it at any bandwidth takes the fastest
    /// bandwidth there is, the nearest the model comes to it, not the probe's figure.
    #[test]
    fn a_target_beyond_reach_takes_the_nearest_end() {
        let falling = |x: f64| -> Result<f64> { Ok(1.0 + 100.0 / x) };
        assert_eq!(
            solve_log_nearest((1.0, 100.0), false, 0.5, falling).unwrap(),
            100.0
        );
        assert_eq!(
            solve_log_nearest((1.0, 100.0), false, 500.0, falling).unwrap(),
            1.0
        );
        let x = solve_log_nearest((1.0, 100.0), false, 3.0, falling).unwrap();
        assert!((x - 50.0).abs() < 1e-6, "{x}");
    }
}

/// The switches the probe runs the hash join calibration query with: a hash join of two
/// sequential scans, whatever the statistics.
pub const CAL_JOIN_SWITCHES: &[&str] = &[
    "enable_nestloop=off",
    "enable_mergejoin=off",
    "enable_indexscan=off",
    "enable_indexonlyscan=off",
    "enable_bitmapscan=off",
];
/// The switches of the other hash and sort calibration queries: a sequential scan below.
pub const CAL_SCAN_SWITCHES: &[&str] = &[
    "enable_indexscan=off",
    "enable_indexonlyscan=off",
    "enable_bitmapscan=off",
];

/// The name ending of the cold calibration query that measures in-order reads one request
/// at a time (an index scan of a correlated key; sim::time assumption 17).
pub const ORDERED_CALIBRATION: &str = "index correlated cold";

/// One calibration query as it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationRun {
    pub name: String,
    pub sql: String,
    /// The candidate plan it was forced to.
    pub key: String,
    pub cache: CacheState,
    /// Median seconds.
    pub real_s: f64,
    /// The switches it ran with (`enable_nestloop=off`), for the calibration queries the
    /// join planner plans ([`calibration_query`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forced_with: Vec<String>,
    /// The server's plan as a shape (`Agg(HJ(Seq(cal), Hash(Seq(cal))))`), for those
    /// queries: the model's must be the same, or its time says nothing of the figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_plan: Option<String>,
}

/// The calibration tables' statistics and the calibration queries' times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutorCalibration {
    pub scenario: ScenarioFile,
    pub runs: Vec<CalibrationRun>,
}

impl ExecutorCalibration {
    /// Plans each calibration query with the model and fits the executor's figures on top
    /// of `base`: warm runs by [`fit_executor`], then the first cold sequential scan and
    /// the first cold index scan by [`ExecutorFit::fit_cold`].
    pub fn fit(
        &self,
        base: &MachineProfile,
        release: EngineVersion,
        knobs: &KnobValues,
    ) -> Result<ExecutorFit> {
        let mut warm = Vec::new();
        let mut cold = Vec::new();
        for r in &self.runs {
            let plan = if let Some(q) = calibration_query(&r.name, &self.scenario.tables) {
                self.plan_join_calibration(r, &q?, knobs, release)?
            } else {
                let planned = plan_sql(
                    &self.scenario,
                    &r.sql,
                    knobs,
                    release,
                    base.buffer_pool_bytes,
                )?;
                candidate(&planned, &r.key, &r.name)?.clone()
            };
            match r.cache {
                CacheState::Warm => warm.push((r.name.clone(), plan, r.real_s)),
                CacheState::Cold => cold.push((r.key.clone(), plan, r.real_s, r.name.clone())),
            }
        }
        let mut fit = fit_executor(base, release, &warm)?;
        // PostgreSQL's and InnoDB's keys for a full scan and a random lookup per row.
        let seq = cold
            .iter()
            .find(|c| c.0 == "seq" || c.0 == "table_scan")
            .map(|c| (&c.1, c.2));
        let random = cold
            .iter()
            .find(|c| {
                (c.0.starts_with("index:") || c.0.starts_with("range:"))
                    && !c.3.ends_with(ORDERED_CALIBRATION)
            })
            .map(|c| (&c.1, c.2));
        fit.fit_cold(base, release, seq, random)?;
        let ordered = cold
            .iter()
            .find(|c| c.3.ends_with(ORDERED_CALIBRATION))
            .map(|c| (&c.1, c.2));
        fit.fit_ordered(base, release, ordered)?;
        Ok(fit)
    }

    /// The join planner's plan of a calibration query of hashing or sorting, under the
    /// switches it ran with; an error when it is not the plan the server ran.
    fn plan_join_calibration(
        &self,
        r: &CalibrationRun,
        q: &costlab_model::block::JoinQuery,
        knobs: &KnobValues,
        release: EngineVersion,
    ) -> Result<costlab_model::plan::PlanNode> {
        let env = PgJoinEnv {
            version: release,
            opts: PgOptions::with_switches_off(&r.forced_with)?,
            ..PgJoinEnv::default()
        };
        let cal = self.scenario.table("cal")?.clone();
        let plan = PgJoinPlanner::new(&[cal], env)?.plan(q, knobs)?;
        let shape = model_shape(&plan.tree);
        if let Some(real) = &r.real_plan {
            if *real != shape {
                return Err(Error::invalid(
                    "executor calibration",
                    format!("{}: the server ran {real}, the model plans {shape}", r.name),
                ));
            }
        }
        Ok(plan.tree)
    }
}

/// What an engine's executor spends per unit of work, measured on calibration queries of
/// their own (a table the validated workloads never read), so that times predicted for the
/// workloads rest on the device figures and these, never on the workloads' own timings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutorFit {
    pub cpu_ns_per_row: f64,
    pub cpu_ns_per_index_entry: f64,
    pub cpu_ns_per_operator: f64,
    /// A sort's comparison; `None` when no calibration query sorted (then an operator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_comparison: Option<f64>,
    /// A row into or out of a hash table, by the table's size (sim::time assumption 9);
    /// `None` when no calibration query hashed (then an operator's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_rows: Option<costlab_sim::HashRowCost>,
    /// Finding a page in the engine's buffer.
    pub buffer_hit_ns: f64,
    /// Bringing a page from the OS page cache into the engine's buffer (read call, copy,
    /// buffer replacement). `None` when no calibration query measured it.
    pub os_cache_hit_ns: Option<f64>,
    /// The same into a full buffer, a victim evicted first (sim::time assumption 15).
    #[serde(default)]
    pub os_cache_evict_hit_ns: Option<f64>,
    /// Sequential reading as the engine does it cold (8 kB buffered reads behind the
    /// kernel's read-ahead), MB/s; `None`: the probe's figure.
    #[serde(default)]
    pub seq_read_mbps: Option<f64>,
    /// A random 8 kB buffered read of a cold page, µs; `None`: the probe's figure.
    #[serde(default)]
    pub random_read_us: Option<f64>,
    /// In-order reads one request at a time, cold (an index scan of a correlated key),
    /// MB/s (sim::time assumption 17); `None`: not measured.
    #[serde(default)]
    pub ordered_read_mbps: Option<f64>,
    /// One execution's start and end, ns (sim::time assumption 16); 0 when no calibration
    /// query was short enough to show it.
    #[serde(default)]
    pub executor_start_ns: f64,
    /// Each calibration query: its name, the measured seconds and the fit's seconds.
    pub queries: Vec<(String, f64, f64)>,
}

impl ExecutorFit {
    /// `profile` with the executor's figures in place of the probe's synthetic ones
    /// (comparisons in sorts and hashes cost what an operator does).
    pub fn apply(&self, profile: &MachineProfile) -> MachineProfile {
        let mut p = profile.clone();
        p.cpu_ns_per_row = self.cpu_ns_per_row;
        p.cpu_ns_per_index_entry = self.cpu_ns_per_index_entry;
        p.cpu_ns_per_operator = self.cpu_ns_per_operator;
        p.cpu_ns_per_comparison = self
            .cpu_ns_per_comparison
            .unwrap_or(self.cpu_ns_per_operator);
        if self.hash_rows.is_some() {
            p.hash_rows = self.hash_rows;
        }
        p.buffer_hit_ns = self.buffer_hit_ns;
        if let Some(os) = self.os_cache_hit_ns {
            p.os_cache_hit_ns = os;
        }
        if let Some(v) = self.os_cache_evict_hit_ns {
            p.os_cache_evict_hit_ns = Some(v);
        }
        if let Some(mbps) = self.seq_read_mbps {
            p.device.seq_read_mbps = mbps;
        }
        if let Some(mbps) = self.ordered_read_mbps {
            p.device.ordered_read_mbps = Some(mbps);
        }
        p.executor_start_ns = self.executor_start_ns;
        if let Some(us) = self.random_read_us {
            let f = us / p.device.random_8k.qd1_latency_us;
            scale_random_8k(&mut p, f);
        }
        p
    }

    /// Fits the in-order read bandwidth (`ordered_read_mbps`) to a cold index scan of a
    /// correlated key, on top of the other figures: the bandwidth that makes its simulated
    /// time equal the measured one. Left unset when the query is not I/O-bound enough.
    pub fn fit_ordered(
        &mut self,
        profile: &MachineProfile,
        release: EngineVersion,
        ordered: Option<(&costlab_model::plan::PlanNode, f64)>,
    ) -> Result<()> {
        let Some((plan, real)) = ordered else {
            return Ok(());
        };
        let mut base = self.apply(profile);
        base.warm_cache = false;
        let at = |mbps: f64| -> Result<f64> {
            let mut p = base.clone();
            p.device.ordered_read_mbps = Some(mbps);
            Ok(Simulator::for_release(&p, release)?
                .time_plan(plan)?
                .total_s)
        };
        self.ordered_read_mbps = solve_log((1.0, 100_000.0), false, real, at)?;
        let fitted = match self.ordered_read_mbps {
            Some(m) => at(m)?,
            None => {
                Simulator::for_release(&base, release)?
                    .time_plan(plan)?
                    .total_s
            }
        };
        self.queries
            .push(("cold ordered (bandwidth)".into(), real, fitted));
        Ok(())
    }

    /// Fits the cold read figures to cold calibration queries (a sequential scan and a
    /// random index scan of a table the workloads never read) on top of the warm fit:
    /// the sequential bandwidth and the random read latency that make the simulated times
    /// of those plans equal the measured ones. A figure whose query is not I/O-bound
    /// enough to tell stays the probe's.
    pub fn fit_cold(
        &mut self,
        profile: &MachineProfile,
        release: EngineVersion,
        seq: Option<(&costlab_model::plan::PlanNode, f64)>,
        random: Option<(&costlab_model::plan::PlanNode, f64)>,
    ) -> Result<()> {
        let mut base = self.apply(profile);
        base.warm_cache = false;
        let time = |p: &MachineProfile, plan: &costlab_model::plan::PlanNode| -> Result<f64> {
            Ok(Simulator::for_release(p, release)?.time_plan(plan)?.total_s)
        };
        if let Some((plan, real)) = seq {
            // Simulated time falls as bandwidth rises; bisect in log(MB/s).
            let at = |mbps: f64| -> Result<f64> {
                let mut p = base.clone();
                p.device.seq_read_mbps = mbps;
                time(&p, plan)
            };
            // Not bounded by the probe's figure: through a virtual disk whose host caches
            // it, the scan's bandwidth was 3 to 6x the probe's O_DIRECT one here, and a
            // probe run beside a busy disk measured a fraction of it; bounded to ten times
            // the probe, such a fit failed and fell back to the probe's figure, 2.5x too
            // slow. A time the model cannot reach within the range takes its nearest end.
            let mbps = solve_log_nearest(SEQ_MBPS_RANGE, false, real, at)?;
            self.seq_read_mbps = Some(mbps);
            base.device.seq_read_mbps = mbps;
            self.queries
                .push(("cold seq (bandwidth)".into(), real, time(&base, plan)?));
        }
        if let Some((plan, real)) = random {
            let lat0 = base.device.random_8k.qd1_latency_us;
            let at = |f: f64| -> Result<f64> {
                let mut p = base.clone();
                scale_random_8k(&mut p, f);
                time(&p, plan)
            };
            // Within a factor of 10 of the probe's figure: beyond it the query was not
            // I/O-bound as the model sees it, and the figure is left alone.
            if let Some(f) = solve_log((0.1, 10.0), true, real, at)? {
                self.random_read_us = Some(lat0 * f);
                scale_random_8k(&mut base, f);
            }
            self.queries
                .push(("cold random (latency)".into(), real, time(&base, plan)?));
        }
        Ok(())
    }
}

/// The `x` within `range` at which `at(x)` equals `target`, by bisection in log(x); `at`
/// rises with `x` when `rising`, else falls. `None` when `target` lies outside what `at`
/// gives over the range (the query did not depend enough on the figure to tell it).
fn solve_log(
    range: (f64, f64),
    rising: bool,
    target: f64,
    at: impl Fn(f64) -> Result<f64>,
) -> Result<Option<f64>> {
    let (mut lo, mut hi) = range;
    let (a, b) = (at(lo)?, at(hi)?);
    let inside = if rising {
        a < target && target < b
    } else {
        b < target && target < a
    };
    if !inside {
        return Ok(None);
    }
    for _ in 0..100 {
        let mid = (lo * hi).sqrt();
        if (at(mid)? < target) == rising {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some((lo * hi).sqrt()))
}

/// What a fitted sequential bandwidth may be, MB/s: a floppy disk to a RAM disk.
const SEQ_MBPS_RANGE: (f64, f64) = (1.0, 100_000.0);

/// As [`solve_log`], but a `target` outside what `at` gives over the range takes the end
/// whose value is nearest to it.
fn solve_log_nearest(
    range: (f64, f64),
    rising: bool,
    target: f64,
    at: impl Fn(f64) -> Result<f64>,
) -> Result<f64> {
    if let Some(x) = solve_log(range, rising, target, &at)? {
        return Ok(x);
    }
    let (lo, hi) = range;
    let (a, b) = (at(lo)?, at(hi)?);
    Ok(if (a - target).abs() <= (b - target).abs() {
        lo
    } else {
        hi
    })
}

/// Random reads (8 and 16 kB) `f` times as slow at every queue depth.
fn scale_random_8k(p: &mut MachineProfile, f: f64) {
    for curve in [&mut p.device.random_8k, &mut p.device.random_16k] {
        curve.qd1_latency_us *= f;
        for q in &mut curve.iops_by_qd {
            q.iops /= f;
        }
    }
}

/// Fits the executor's figures to calibration queries run warm (everything they read in
/// shared_buffers or, for a scan through the ring, the OS page cache): each sample is a
/// name, the model's plan of the query as it ran, and the measured seconds. The simulation
/// of such a plan is linear in the five figures (no device I/O), so the counts per figure
/// come from timing each plan on unit profiles, and the figures from non-negative least
/// squares on relative errors.
pub fn fit_executor(
    profile: &MachineProfile,
    release: EngineVersion,
    samples: &[(String, costlab_model::plan::PlanNode, f64)],
) -> Result<ExecutorFit> {
    const FIGURES: usize = 10;
    // The start-up figure only where a calibration query is short enough to show it: in
    // queries of tens of milliseconds 50 µs is noise, and the fit would trade it against
    // the per-row figures.
    const SHORT_S: f64 = 1e-3;
    let fit_start = samples
        .iter()
        .any(|(_, _, real)| *real > 0.0 && *real < SHORT_S);
    const UNIT: f64 = 1000.0;
    let tiny = 0.01_f64;
    // The smallest and the largest hash table the calibration queries fill: the sizes at
    // which a hash row's cost is measured.
    let hash_sizes = {
        let mut sizes = Vec::new();
        for (_, plan, _) in samples {
            plan.walk(&mut |n| sizes.extend(costlab_sim::hash_table_bytes(n)));
        }
        let lo = sizes.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = sizes.iter().copied().fold(0.0, f64::max);
        (!sizes.is_empty()).then_some((lo, hi.max(lo)))
    };
    let base = {
        let mut p = profile.clone();
        p.warm_cache = true;
        p.cpu_ns_per_row = tiny;
        p.cpu_ns_per_index_entry = tiny;
        p.cpu_ns_per_operator = tiny;
        p.cpu_ns_per_comparison = tiny;
        p.hash_rows = hash_sizes.map(|(small_bytes, large_bytes)| costlab_sim::HashRowCost {
            small_bytes,
            small_ns: tiny,
            large_bytes,
            large_ns: tiny,
        });
        p.buffer_hit_ns = 1.0;
        p.os_cache_hit_ns = 1.0;
        p.os_cache_evict_hit_ns = Some(1.0);
        p.executor_start_ns = 0.0;
        p
    };
    let set = |p: &mut MachineProfile, k: usize, v: f64| match k {
        0 => p.cpu_ns_per_row = v,
        1 => p.cpu_ns_per_index_entry = v,
        2 => p.cpu_ns_per_operator = v,
        3 => p.buffer_hit_ns = v,
        4 => p.os_cache_hit_ns = v,
        5 => p.os_cache_evict_hit_ns = Some(v),
        6 => p.executor_start_ns = if fit_start { v } else { 0.0 },
        7 => p.cpu_ns_per_comparison = v,
        8 => {
            if let Some(h) = &mut p.hash_rows {
                h.small_ns = v;
            }
        }
        _ => {
            if let Some(h) = &mut p.hash_rows {
                h.large_ns = v;
            }
        }
    };
    let t_base: Vec<f64> = samples
        .iter()
        .map(|(_, plan, _)| {
            Ok(Simulator::for_release(&base, release)?
                .time_plan(plan)?
                .total_s)
        })
        .collect::<Result<_>>()?;
    // counts[i][k]: seconds per ns of figure k in sample i.
    let mut counts = vec![[0.0_f64; FIGURES]; samples.len()];
    for k in 0..FIGURES {
        let mut p = base.clone();
        set(&mut p, k, UNIT);
        let sim = Simulator::for_release(&p, release)?;
        for ((row, (_, plan, _)), t0) in counts.iter_mut().zip(samples).zip(&t_base) {
            row[k] = (sim.time_plan(plan)?.total_s - t0) / UNIT;
        }
    }
    let measured_os = counts.iter().any(|c| c[4] > 0.0);
    let measured_evict = counts.iter().any(|c| c[5] > 0.0);
    // Sorts and hashes, where a calibration query did them (the probe's since session 8);
    // else they cost what an operator does, as they did before, counted with it.
    let measured_sort = counts.iter().any(|c| c[7] > 0.0);
    let measured_hash = counts.iter().any(|c| c[8] > 0.0 || c[9] > 0.0);
    let measured_large = counts.iter().any(|c| c[9] > 0.0);
    for c in counts.iter_mut() {
        if !measured_sort {
            c[2] += c[7];
            c[7] = 0.0;
        }
        if !measured_hash {
            c[2] += c[8] + c[9];
            c[8] = 0.0;
            c[9] = 0.0;
        }
    }
    // Weighted rows: relative error of each sample.
    let rows: Vec<([f64; FIGURES], f64)> = samples
        .iter()
        .zip(&counts)
        .filter(|((_, _, real), _)| *real > 0.0)
        .map(|((_, _, real), c)| (c.map(|v| v / real), 1.0))
        .collect();
    if rows.len() < FIGURES.min(3) {
        return Err(Error::invalid(
            "executor calibration",
            "too few calibration queries finished",
        ));
    }
    let x = nnls(&rows);
    let fitted = |c: &[f64; FIGURES]| -> f64 { (0..FIGURES).map(|k| c[k] * x[k]).sum() };
    let floor = |v: f64| v.max(tiny);
    Ok(ExecutorFit {
        cpu_ns_per_row: floor(x[0]),
        cpu_ns_per_index_entry: floor(x[1]),
        cpu_ns_per_operator: floor(x[2]),
        cpu_ns_per_comparison: measured_sort.then(|| floor(x[7])),
        hash_rows: match hash_sizes {
            Some((small_bytes, large_bytes)) if measured_hash => Some(costlab_sim::HashRowCost {
                small_bytes,
                small_ns: floor(x[8]),
                large_bytes,
                large_ns: floor(if measured_large { x[9] } else { x[8] }),
            }),
            _ => None,
        },
        buffer_hit_ns: x[3].max(1.0),
        os_cache_hit_ns: measured_os.then(|| x[4].max(1.0)),
        os_cache_evict_hit_ns: measured_evict.then(|| x[5].max(1.0)),
        seq_read_mbps: None,
        random_read_us: None,
        ordered_read_mbps: None,
        executor_start_ns: x[6],
        queries: samples
            .iter()
            .zip(&counts)
            .map(|((n, _, real), c)| (n.clone(), *real, fitted(c)))
            .collect(),
    })
}

/// Non-negative least squares by cyclic coordinate descent on the normal equations (a
/// handful of unknowns; converges for any positive semi-definite system).
fn nnls<const N: usize>(rows: &[([f64; N], f64)]) -> [f64; N] {
    let mut ata = [[0.0; N]; N];
    let mut atb = [0.0; N];
    for (a, b) in rows {
        for i in 0..N {
            atb[i] += a[i] * b;
            for j in 0..N {
                ata[i][j] += a[i] * a[j];
            }
        }
    }
    let mut x = [0.0; N];
    for _ in 0..20_000 {
        let mut moved = 0.0_f64;
        for i in 0..N {
            if ata[i][i] <= 0.0 {
                continue;
            }
            let r: f64 = atb[i]
                - (0..N)
                    .filter(|&j| j != i)
                    .map(|j| ata[i][j] * x[j])
                    .sum::<f64>();
            let new = (r / ata[i][i]).max(0.0);
            moved = moved.max((new - x[i]).abs() / new.abs().max(1e-12));
            x[i] = new;
        }
        if moved < 1e-12 {
            break;
        }
    }
    x
}
