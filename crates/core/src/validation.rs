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

use crate::error::{Error, Result};
use crate::knobs::{EngineVersion, Knob, KnobValues};
use crate::pg::{self, PgOptions};
use crate::query::Query;
use crate::scenario_file::ScenarioFile;
use crate::sim::{MachineProfile, Simulator};
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanRun {
    /// The model's candidate key (`seq`, `index:t1_i7`, `bitmap:t1_i7`, `indexonly:t1_i7`).
    pub key: String,
    /// The enable_* switches turned off to force it.
    pub forced_with: Vec<String>,
    /// The scan the server ran, as EXPLAIN names it ("Index Scan using t1_i7").
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
    /// The model's estimated total cost of the plan with every switch on.
    pub cost: f64,
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
    pub notes: Vec<String>,
    pub queries: Vec<QueryRuns>,
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
        crate::error::check_range("limit_s", r.limit_s, 0.001, 1e6)?;
        for q in &r.queries {
            for p in &q.plans {
                let field = format!("{} {} {}", q.name, q.cache.name(), p.key);
                if let Some(s) = p.real_s {
                    crate::error::check_range(&format!("{field}: real_s"), s, 0.0, 1e7)?;
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
        let mut k = KnobValues::defaults(
            self.engine_version,
            EngineVersion::latest(crate::knobs::Engine::Mysql),
        );
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
        let sims = [
            Simulator::new(&warm, crate::knobs::Engine::Postgres)?,
            Simulator::new(&cold, crate::knobs::Engine::Postgres)?,
        ];
        for q in &mut self.queries {
            let query = Query::parse(&q.sql)?;
            let table = self.scenario.table(&query.table)?;
            let planned = pg::plan(
                table,
                &query,
                &knobs,
                self.engine_version,
                &PgOptions::default(),
            )?;
            let sim = &sims[usize::from(q.cache == CacheState::Cold)];
            for p in &mut q.plans {
                let c = planned
                    .candidates
                    .iter()
                    .find(|c| c.key.as_str() == p.key)
                    .ok_or_else(|| {
                        Error::invalid(
                            format!("{} {}", q.name, p.key),
                            "the model has no candidate plan of that name",
                        )
                    })?;
                p.cost = c.plan.cost.total;
                p.sim_s = sim.time_plan(&c.plan)?.total_s;
            }
        }
        self.profile = profile.clone();
        Ok(())
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
        for (w, c) in self.groups() {
            let sum = self.summary(|q| q.workload == w && q.cache == c);
            let _ = writeln!(s, "{w} {}: {}", c.name(), sum.line());
        }
        let all = self.summary(|_| true);
        let _ = writeln!(s, "all: {}", all.line());
        s
    }
}

#[cfg(test)]
mod tests {
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
    fn summary_counts_close_plans_and_the_geometric_mean() {
        let mut r = ValidationReport {
            costlab_validation: VERSION,
            created: String::new(),
            tool: String::new(),
            command: String::new(),
            engine_version: EngineVersion::Pg15,
            server_version: String::new(),
            server_settings: BTreeMap::new(),
            profile: crate::sim::builtin::find("hdd-7200").expect("a built-in profile"),
            limit_s: 10.0,
            scenario: ScenarioFile::new(EngineVersion::Pg15, vec![]),
            notes: vec![],
            queries: vec![query(vec![
                run("a", Some(1.0), 4.0),
                run("b", Some(1.0), 0.25),
                run("c", None, 20.0),
                run("d", None, 1.0),
            ])],
        };
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
}
