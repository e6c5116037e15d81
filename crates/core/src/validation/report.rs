//! The report itself (`costlab-probe validate`'s file): reading and writing it, and the
//! simulation of its plans on a profile.

use super::calibration::*;
use super::runs::*;
use super::switch_point::*;
use crate::scenario_file::ScenarioFile;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KnobValues};
use costlab_pg::join::{PgJoinEnv, PgJoinPlan, PgJoinPlanner};
use costlab_pg::PgOptions;
use costlab_sim::{MachineProfile, Simulator};
use costlab_workload::dbt3::shape::model_shape;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

/// How often the engine's own choice is the really fastest plan at one value of a knob.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KnobAgreement {
    pub value: f64,
    pub warm_right: usize,
    pub warm_queries: usize,
    pub cold_right: usize,
    pub cold_queries: usize,
}

/// The DBT3 join planner over a report's tables, one per set of switches (built when first
/// asked for: each keeps a memo of its own).
pub(super) struct Dbt3Models {
    tables: Vec<costlab_model::catalog::Table>,
    version: EngineVersion,
    sf: f64,
    models: BTreeMap<Vec<String>, PgJoinPlanner>,
    /// Each query read from its SQL once (every forced plan of it plans the same block).
    queries: BTreeMap<u8, costlab_model::block::JoinQuery>,
}

impl Dbt3Models {
    /// `None` when the report has no DBT3 query.
    pub(super) fn of(report: &ValidationReport) -> Result<Option<Dbt3Models>> {
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
    pub(super) fn plan(
        &mut self,
        n: u8,
        forced_with: &[String],
        knobs: &KnobValues,
    ) -> Result<PgJoinPlan> {
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
    pub(super) fn t1_switch_points(
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
}
