//! `costlab dbt3` and `costlab workload`: the 22 DBT3 queries (on the built-in catalog or
//! on a scenario file's tables), or the user's own queries over a scenario file's tables,
//! planned by one engine under a baseline and under the current constants, each plan timed
//! on a machine profile (the seed's WL#8737 table).
//! The numbers come from `costlab_core::compare`; this module picks the
//! constants, collects the report and prints it as a text table, plan trees or JSON.

use crate::simulate::{secs, ProfileInfo};
use costlab_core::catalog::{Function, Table};
use costlab_core::compare::{plan_summary, tree_text, QueryOutcome, WorkloadPlanner, WorkloadRow};
use costlab_core::knobs::{Engine, EngineVersion, KnobValues, Preset};
use costlab_core::plan::PlanNode;
use costlab_core::scenario::{Scenario, ServerSettings};
use costlab_core::sim::MachineProfile;
use costlab_core::sql::Dialect;
use costlab_core::workload::user::{read_workload, split_queries};
use costlab_core::{Error, Result};
use serde::Serialize;
use std::time::Instant;

/// Repetitions of `--timings` when no number is given.
pub const DEFAULT_REPEAT: usize = 21;
/// Most repetitions `--timings` takes.
pub const MAX_REPEAT: usize = 100_000;

/// The release `costlab dbt3` models when none is named: the seed's (MySQL 5.7, whose
/// constants WL#8737's DBT3 runs started from; PostgreSQL 18, as `simulate --workload t1`).
pub fn default_version(engine: Engine) -> EngineVersion {
    Scenario::default().version_of(engine)
}

/// The release defaults of `version` (the seed's release for the other engine).
pub fn release_defaults(version: EngineVersion) -> KnobValues {
    let seed = Scenario::default();
    match version.engine() {
        Engine::Postgres => KnobValues::defaults(version, seed.mysql_version),
        Engine::Mysql => KnobValues::defaults(seed.pg_version, version),
    }
}

/// The baseline: a preset of the engine applied to `defaults`, or `defaults` themselves.
/// Returns the values and how to name them.
pub fn baseline(
    defaults: &KnobValues,
    version: EngineVersion,
    preset: Option<&str>,
) -> Result<(KnobValues, String)> {
    let Some(id) = preset else {
        return Ok((defaults.clone(), format!("{} defaults", version.label())));
    };
    let p = Preset::find(id)?;
    if p.engine != version.engine() {
        return Err(Error::invalid(
            "--baseline",
            format!(
                "{} is a {} preset; use one of {}",
                p.id,
                p.engine.name(),
                presets_of(version.engine()).join(", ")
            ),
        ));
    }
    let mut k = defaults.clone();
    p.apply(&mut k);
    Ok((k, format!("{} ({})", p.id, p.label)))
}

/// Ids of the presets of one engine.
pub fn presets_of(engine: Engine) -> Vec<&'static str> {
    costlab_core::knobs::PRESETS
        .iter()
        .filter(|p| p.engine == engine)
        .map(|p| p.id)
        .collect()
}

/// Checks a query number from the command line.
pub fn check_query(n: i64) -> Result<u8> {
    if (1..=22).contains(&n) {
        Ok(n as u8)
    } else {
        Err(Error::invalid(
            "--query",
            format!("DBT3 has queries 1 to 22, not {n}"),
        ))
    }
}

/// Which queries over which tables.
pub enum Queries {
    /// DBT3's 22 at `sf`: on the built-in catalog, or on a scenario file's tables (named
    /// as the kit names them; the truth the simulation counts with scales with `sf`).
    Dbt3 { tables: Option<Vec<Table>> },
    /// The user's own queries (`workload::user::split_queries`) over their tables; `file`
    /// names the scenario file.
    User {
        file: String,
        tables: Vec<Table>,
        /// The schema's functions (their COST, and their call time where measured).
        functions: Vec<Function>,
        text: String,
    },
}

/// What one run compares.
pub struct Dbt3Setup {
    pub version: EngineVersion,
    pub queries: Queries,
    pub sf: f64,
    pub profile: MachineProfile,
    /// MySQL's server settings (ignored for PostgreSQL).
    pub server: ServerSettings,
    pub baseline: KnobValues,
    pub baseline_label: String,
    pub current: KnobValues,
    /// The `--set` assignments, as given.
    pub sets: Vec<String>,
    pub query: Option<u8>,
    /// `--timings`: repetitions per query.
    pub repeat: Option<usize>,
    /// PostgreSQL: plan with the "ORDER BY value handed up" series instead of stock.
    pub series: bool,
    /// PostgreSQL's enable_* switches, both sides (`--disable`).
    pub pg_options: costlab_core::pg::PgOptions,
}

/// One plan in the report.
#[derive(Clone, Debug, Serialize)]
pub struct PlanReport {
    /// First table's access, then the join order.
    pub summary: String,
    /// Equal signatures mean the same plan.
    pub signature: String,
    /// The engine's estimate (MySQL's query_cost, PostgreSQL's total cost).
    pub cost: f64,
    pub rows: f64,
    pub time_s: f64,
    /// The plan tree (with `--query`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<PlanNode>,
    /// Each node's own simulated seconds, in the tree's order, parents first (with
    /// `--query`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_times_s: Option<Vec<f64>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RowReport {
    pub query: u8,
    pub title: String,
    pub plan_changed: bool,
    /// Where the plan first changed (`plan::change_site`), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    pub baseline: PlanReport,
    pub current: PlanReport,
    /// Change of simulated time, percent (negative: faster).
    pub change_pct: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Totals {
    pub queries: usize,
    pub plans_changed: usize,
    pub cost_baseline: f64,
    pub cost_current: f64,
    pub time_baseline_s: f64,
    pub time_current_s: f64,
    pub change_pct: f64,
}

/// Median planning time of one query, over `repeat` runs.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    pub query: u8,
    /// Planning alone (current constants), microseconds.
    pub plan_us: f64,
    /// Planning and simulating the plan's time, microseconds.
    pub plan_and_time_us: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Timings {
    pub repeat: usize,
    pub queries: Vec<Timing>,
    /// Sum of the medians.
    pub total_plan_us: f64,
    pub total_plan_and_time_us: f64,
    /// Preparing the planner (catalog, tables, queries), once, microseconds.
    pub prepare_us: f64,
}

/// A query of the user's that the engine's SQL front end refused.
#[derive(Clone, Debug, Serialize)]
pub struct RefusedReport {
    pub query: u8,
    pub title: String,
    pub error: String,
    /// Byte span of the query's text the error names (both 0: none).
    pub start: usize,
    pub end: usize,
}

/// `costlab dbt3`'s and `costlab workload`'s result.
#[derive(Clone, Debug, Serialize)]
pub struct Dbt3Report {
    pub engine: &'static str,
    pub release: &'static str,
    /// What was planned: "DBT3 at SF 10", "DBT3 at SF 1 on tpch.json", "your queries on
    /// shop.json".
    pub workload: String,
    pub sf: f64,
    pub profile: ProfileInfo,
    pub warm_cache: bool,
    /// MySQL's server settings (absent for PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerSettings>,
    pub baseline: String,
    pub sets: Vec<String>,
    /// PostgreSQL's enable_* switches turned off on both sides (`enable_nestloop`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub switches_off: Vec<String>,
    pub rows: Vec<RowReport>,
    /// The user's queries the front end refused (none for DBT3).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedReport>,
    pub totals: Totals,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<Timings>,
}

fn plan_report(p: &WorkloadPlanner, o: &QueryOutcome, with_tree: bool) -> Result<PlanReport> {
    let (tree, node_times_s) = if with_tree {
        (Some(o.tree.clone()), Some(p.node_times(&o.tree)?))
    } else {
        (None, None)
    };
    Ok(PlanReport {
        summary: plan_summary(&o.tree),
        signature: o.signature.clone(),
        cost: o.cost,
        rows: o.rows,
        time_s: o.time_s,
        tree,
        node_times_s,
    })
}

fn row_report(p: &WorkloadPlanner, r: &WorkloadRow, with_tree: bool) -> Result<RowReport> {
    Ok(RowReport {
        query: r.number,
        title: r.title.to_string(),
        plan_changed: r.plan_changed(),
        change: r.change_site(),
        baseline: plan_report(p, &r.baseline, with_tree)?,
        current: plan_report(p, &r.current, with_tree)?,
        change_pct: r.change_pct(),
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median planning times of the queries (all, or `only`), `repeat` runs each.
pub fn timings(
    p: &WorkloadPlanner,
    knobs: &KnobValues,
    only: Option<u8>,
    repeat: usize,
    prepare_us: f64,
) -> Result<Timings> {
    let repeat = repeat.max(1);
    let mut queries = Vec::new();
    let numbers: Vec<u8> = p
        .queries()
        .iter()
        .map(|q| q.number)
        .filter(|n| only.is_none_or(|o| o == *n))
        .collect();
    for n in numbers {
        let mut plan = Vec::with_capacity(repeat);
        let mut both = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            let t = Instant::now();
            std::hint::black_box(p.plan(n, knobs)?);
            plan.push(t.elapsed().as_secs_f64() * 1e6);
            let t = Instant::now();
            std::hint::black_box(p.outcome(n, knobs)?);
            both.push(t.elapsed().as_secs_f64() * 1e6);
        }
        queries.push(Timing {
            query: n,
            plan_us: median(&mut plan),
            plan_and_time_us: median(&mut both),
        });
    }
    Ok(Timings {
        repeat,
        total_plan_us: queries.iter().map(|t| t.plan_us).sum(),
        total_plan_and_time_us: queries.iter().map(|t| t.plan_and_time_us).sum(),
        queries,
        prepare_us,
    })
}

/// The planner of a setup's queries, what to call them, and the user's queries the front
/// end refused.
pub fn planner(s: &Dbt3Setup) -> Result<(WorkloadPlanner, String, Vec<RefusedReport>)> {
    let mut refused = Vec::new();
    let (planner, workload) = match &s.queries {
        Queries::Dbt3 { tables: None } if s.series => {
            return Err(Error::invalid(
                "series",
                "the built-in DBT3 catalog has no functions or expression indexes, so the \
                 ORDER BY value handed up plans exactly as stock; --series goes with a \
                 scenario's tables (costlab ordering --write-scenario writes the third seed's)",
            ))
        }
        Queries::Dbt3 { tables: None } => (
            WorkloadPlanner::dbt3(s.version, s.sf, &s.profile, &s.server)?,
            format!("DBT3 at SF {}", s.sf),
        ),
        Queries::Dbt3 {
            tables: Some(tables),
        } => {
            let queries = (1..=22)
                .map(|n| costlab_core::workload::dbt3::queries::read(n, s.sf, tables))
                .collect::<Result<Vec<_>>>()?;
            (
                WorkloadPlanner::new(
                    s.version,
                    tables,
                    &[],
                    s.series,
                    queries,
                    &s.profile,
                    &s.server,
                )?,
                format!("DBT3 at SF {} on imported tables", s.sf),
            )
        }
        Queries::User {
            file,
            tables,
            functions,
            text,
        } => {
            let texts = split_queries(text)?;
            if texts.is_empty() {
                return Err(Error::invalid(
                    "queries",
                    "there are none: give --queries FILE, or a scenario file with queries",
                ));
            }
            let dialect = match s.version.engine() {
                Engine::Postgres => Dialect::Postgres,
                Engine::Mysql => Dialect::Mysql,
            };
            let (queries, refusals) = read_workload(&texts, dialect, tables);
            refused = refusals
                .into_iter()
                .map(|r| RefusedReport {
                    query: r.number,
                    title: r.title,
                    error: r.error,
                    start: r.start,
                    end: r.end,
                })
                .collect();
            (
                WorkloadPlanner::new(
                    s.version, tables, functions, s.series, queries, &s.profile, &s.server,
                )?,
                format!("your queries on {file}"),
            )
        }
    };
    Ok((
        planner.with_pg_options(s.pg_options.clone())?,
        workload,
        refused,
    ))
}

/// Plans and times the queries and collects the report.
pub fn run(s: &Dbt3Setup) -> Result<Dbt3Report> {
    let start = Instant::now();
    let (planner, workload, refused) = planner(s)?;
    // The one query asked for, refused by the front end: its own error, not "no query N".
    if let Some(r) = refused.iter().find(|r| Some(r.query) == s.query) {
        return Err(Error::invalid(
            "query",
            format!("query {}: {}", r.query, r.error),
        ));
    }
    let prepare_us = start.elapsed().as_secs_f64() * 1e6;
    let rows = planner.table(&s.baseline, &s.current, s.query)?;
    let with_tree = s.query.is_some();
    let rows = rows
        .iter()
        .map(|r| row_report(&planner, r, with_tree))
        .collect::<Result<Vec<_>>>()?;
    let timings = match s.repeat {
        Some(n) => Some(timings(&planner, &s.current, s.query, n, prepare_us)?),
        None => None,
    };
    let time_b: f64 = rows.iter().map(|r| r.baseline.time_s).sum();
    let time_c: f64 = rows.iter().map(|r| r.current.time_s).sum();
    let totals = Totals {
        queries: rows.len(),
        plans_changed: rows.iter().filter(|r| r.plan_changed).count(),
        cost_baseline: rows.iter().map(|r| r.baseline.cost).sum(),
        cost_current: rows.iter().map(|r| r.current.cost).sum(),
        time_baseline_s: time_b,
        time_current_s: time_c,
        change_pct: if time_b > 0.0 {
            100.0 * (time_c - time_b) / time_b
        } else {
            0.0
        },
    };
    Ok(Dbt3Report {
        engine: s.version.engine().name(),
        release: s.version.label(),
        workload,
        sf: s.sf,
        profile: ProfileInfo::of(&s.profile),
        warm_cache: s.profile.warm_cache,
        server: (s.version.engine() == Engine::Mysql).then_some(s.server),
        baseline: s.baseline_label.clone(),
        sets: s.sets.clone(),
        switches_off: s.pg_options.switches_off(),
        rows,
        refused,
        totals,
        timings,
    })
}

/// A title without its LIMIT, at most `max` characters.
fn short_title(t: &str, max: usize) -> String {
    let t = match t.find(" (LIMIT") {
        Some(i) => &t[..i],
        None => t,
    };
    if t.chars().count() <= max {
        t.to_string()
    } else {
        let mut s: String = t.chars().take(max - 1).collect();
        s.push('~');
        s
    }
}

/// An estimated cost, compactly: plain below a million, else in exponent form.
fn cost(v: f64) -> String {
    if v.abs() < 1e6 {
        format!("{v:.1}")
    } else {
        format!("{v:.3e}")
    }
}

fn pct(v: f64) -> String {
    if v == 0.0 {
        "0 %".into()
    } else {
        format!("{v:+.1} %")
    }
}

impl Dbt3Report {
    fn header(&self) -> String {
        let mut s = format!(
            "{} on {}, {} on {} ({}), {} cache\n",
            self.workload,
            self.release,
            self.engine,
            self.profile.id,
            self.profile.label,
            if self.warm_cache { "warm" } else { "cold" }
        );
        if let Some(server) = &self.server {
            s.push_str(&format!(
                "server:   InnoDB cache report {}, batched key access {}\n",
                server.innodb_cache_report.id(),
                if server.batched_key_access {
                    "on"
                } else {
                    "off"
                }
            ));
        }
        if !self.switches_off.is_empty() {
            s.push_str(&format!(
                "switches: {} off (both sides)\n",
                self.switches_off.join(", ")
            ));
        }
        s.push_str(&format!("baseline: {}\n", self.baseline));
        if self.sets.is_empty() {
            s.push_str(&format!("now:      {} defaults\n", self.release));
        } else {
            s.push_str(&format!(
                "now:      {} defaults with {}\n",
                self.release,
                self.sets.join(", ")
            ));
        }
        s
    }

    /// The per-query table; changed plans are marked `*`.
    pub fn text(&self) -> String {
        let mut s = self.header();
        s.push('\n');
        let plan_w = self
            .rows
            .iter()
            .map(|r| r.baseline.summary.chars().count())
            .max()
            .unwrap_or(0)
            .max("plan (baseline)".len());
        let line = |mark: &str,
                    q: &str,
                    title: &str,
                    changed: &str,
                    c: [String; 5],
                    pb: &str,
                    pc: &str| {
            let l = format!(
                "{mark:1} {q:>3}  {title:<26} {changed:<7} {:>12} {:>12} {:>10} {:>10} {:>9}  {pb:<plan_w$}  {pc}",
                c[0], c[1], c[2], c[3], c[4]
            );
            format!("{}\n", l.trim_end())
        };
        s.push_str(&line(
            "",
            "Q",
            "title",
            "changed",
            [
                "cost base".into(),
                "cost now".into(),
                "time base".into(),
                "time now".into(),
                "change".into(),
            ],
            "plan (baseline)",
            "plan (now)",
        ));
        for r in &self.rows {
            let same = !r.plan_changed;
            s.push_str(&line(
                if same { "" } else { "*" },
                &format!("Q{}", r.query),
                &short_title(&r.title, 26),
                if same { "no" } else { "yes" },
                [
                    cost(r.baseline.cost),
                    cost(r.current.cost),
                    secs(r.baseline.time_s),
                    secs(r.current.time_s),
                    pct(r.change_pct),
                ],
                &r.baseline.summary,
                match (&r.change, r.current.summary == r.baseline.summary) {
                    (None, true) => "(same)",
                    // Same join order: say where the plan changed.
                    (Some(site), true) => site,
                    _ => &r.current.summary,
                },
            ));
        }
        let t = &self.totals;
        s.push_str(&line(
            "",
            "",
            &format!("total ({} queries)", t.queries),
            &format!("{} yes", t.plans_changed),
            [
                cost(t.cost_baseline),
                cost(t.cost_current),
                secs(t.time_baseline_s),
                secs(t.time_current_s),
                pct(t.change_pct),
            ],
            "",
            "",
        ));
        s.push_str(
            "\n(* plan changed; cost: the engine's estimate; time: simulated seconds on the profile;\n plan: the first table's access, then the join order)\n",
        );
        for r in &self.refused {
            s.push_str(&format!(
                "\nQ{} not planned: {}\n  {}\n",
                r.query, r.error, r.title
            ));
        }
        if let Some(tm) = &self.timings {
            s.push('\n');
            s.push_str(&timings_text(tm));
        }
        s
    }

    /// One query: both plans as trees, with each node's own simulated time.
    pub fn query_text(&self) -> String {
        let mut s = self.header();
        for r in &self.rows {
            s.push_str(&format!(
                "\nQ{}: {}\nplan changed: {}\n",
                r.query,
                r.title,
                match (&r.change, r.plan_changed) {
                    (Some(site), _) => format!("yes *: {site}"),
                    (None, true) => "yes *".into(),
                    (None, false) => "no".into(),
                }
            ));
            for (name, p) in [("baseline plan", &r.baseline), ("plan now", &r.current)] {
                s.push_str(&format!(
                    "\n{name}: cost {}, {} rows, simulated time {} s\n",
                    cost(p.cost),
                    cost(p.rows),
                    secs(p.time_s)
                ));
                if let Some(tree) = &p.tree {
                    s.push_str(&tree_text(tree, p.node_times_s.as_deref()));
                }
            }
            s.push_str(&format!(
                "\nsimulated time: {} s baseline, {} s now ({})\n",
                secs(r.baseline.time_s),
                secs(r.current.time_s),
                pct(r.change_pct)
            ));
        }
        s.push_str("([time ...]: the node's own simulated time, without its children)\n");
        if let Some(tm) = &self.timings {
            s.push('\n');
            s.push_str(&timings_text(tm));
        }
        s
    }
}

/// `--timings` as text.
pub fn timings_text(t: &Timings) -> String {
    let mut s = format!(
        "planning time per query, median of {} runs (current constants), µs:\n{:>4} {:>10} {:>14}\n",
        t.repeat, "Q", "plan", "plan + time"
    );
    for q in &t.queries {
        s.push_str(&format!(
            "{:>4} {:>10.1} {:>14.1}\n",
            format!("Q{}", q.query),
            q.plan_us,
            q.plan_and_time_us
        ));
    }
    s.push_str(&format!(
        "{:>4} {:>10.1} {:>14.1}\nprepare (catalog, tables, queries), once: {:.1} µs\n",
        "sum", t.total_plan_us, t.total_plan_and_time_us, t.prepare_us
    ));
    s
}
