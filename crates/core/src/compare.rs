//! A workload's table for either engine: every query planned under a baseline and under
//! the current constants on one machine, with each plan's simulated time and the change.
//! DBT3's (the seed's table) and the user's own queries over their tables; the command
//! line's `costlab dbt3` and the page's DBT3 and "your workload" views read it.

use crate::diagram::{self, Axis, Boundaries, Choice, Description, PlanDiagram};
use crate::scenario::{InnodbCacheReport, ServerSettings};
use costlab_model::block::JoinQuery;
use costlab_model::catalog::Table;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KnobValues};
use costlab_model::plan::{Name, PlanNode};
use costlab_mysql::join::{JoinEnv, MysqlJoinPlanner};
use costlab_pg::join::{PgJoinEnv, PgJoinPlanner};
use costlab_sim::profile::MachineProfile;
use costlab_sim::Simulator;
use costlab_workload::dbt3::catalog::{check_sf, dbt3};
use costlab_workload::dbt3::queries::read;

/// One query's plan under one set of constants, and its simulated time.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryOutcome {
    /// Equal signatures mean the same plan (join order, methods, access paths).
    pub signature: String,
    /// The engine's estimate: MySQL's query_cost, PostgreSQL's total cost.
    pub cost: f64,
    pub rows: f64,
    pub time_s: f64,
    pub tree: PlanNode,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadRow {
    pub number: u8,
    pub title: Name,
    pub baseline: QueryOutcome,
    pub current: QueryOutcome,
}

impl WorkloadRow {
    pub fn plan_changed(&self) -> bool {
        self.baseline.signature != self.current.signature
    }

    /// Where the current plan first departs from the baseline's
    /// ([`costlab_model::plan::change_site`]); `None` when the plan did not change.
    pub fn change_site(&self) -> Option<String> {
        if self.plan_changed() {
            costlab_model::plan::change_site(&self.baseline.tree, &self.current.tree)
        } else {
            None
        }
    }

    /// Change of simulated time from baseline to current, in percent (negative: faster).
    pub fn change_pct(&self) -> f64 {
        if self.baseline.time_s > 0.0 {
            100.0 * (self.current.time_s - self.baseline.time_s) / self.baseline.time_s
        } else {
            0.0
        }
    }
}

enum EnginePlanner {
    Mysql(MysqlJoinPlanner),
    Postgres(PgJoinPlanner),
}

/// A workload's queries, prepared for one engine on one machine.
pub struct WorkloadPlanner {
    engine: EnginePlanner,
    queries: Vec<JoinQuery>,
    sim: Simulator,
    /// DBT3's scale factor; `None` for the user's own tables.
    sf: Option<f64>,
}

impl WorkloadPlanner {
    /// DBT3's 22 queries at scale factor `sf` on the built-in catalog. `version` is the
    /// engine release whose planner rules apply (PostgreSQL) or whose server the machine
    /// stands for (MySQL).
    pub fn dbt3(
        version: EngineVersion,
        sf: f64,
        machine: &MachineProfile,
        server: &ServerSettings,
    ) -> Result<WorkloadPlanner> {
        let sf = check_sf(sf)?;
        let catalog = dbt3(sf)?;
        let queries = dbt3_queries(sf, &catalog.pg)?;
        let tables = match version.engine() {
            Engine::Mysql => &catalog.mysql,
            Engine::Postgres => &catalog.pg,
        };
        let mut p = WorkloadPlanner::new(version, tables, &[], false, queries, machine, server)?;
        p.sf = Some(sf);
        Ok(p)
    }

    /// `queries` (already read against `tables`, numbered) over `tables` as the engine of
    /// `version` sees them. `functions` are the schema's (PostgreSQL prices them; the
    /// simulation times their calls as they declare); `handed_up` plans with the "ORDER
    /// BY value handed up" series (PostgreSQL only).
    pub fn new(
        version: EngineVersion,
        tables: &[Table],
        functions: &[costlab_model::catalog::Function],
        handed_up: bool,
        queries: Vec<JoinQuery>,
        machine: &MachineProfile,
        server: &ServerSettings,
    ) -> Result<WorkloadPlanner> {
        if handed_up && version.engine() != Engine::Postgres {
            return Err(Error::invalid(
                "series",
                "the ORDER BY value handed up is a PostgreSQL planner variant",
            ));
        }
        let mut sim = Simulator::for_release(machine, version)?;
        if let Some(calls) = costlab_sim::time::FunctionCalls::of(functions)? {
            sim = sim.with_function_calls(calls)?;
        }
        let engine = match version.engine() {
            Engine::Mysql => EnginePlanner::Mysql(MysqlJoinPlanner::new(
                tables,
                mysql_join_env(machine, server),
            )?),
            Engine::Postgres => EnginePlanner::Postgres(PgJoinPlanner::new(
                tables,
                PgJoinEnv {
                    version,
                    functions: functions.to_vec(),
                    handed_up,
                    ..PgJoinEnv::default()
                },
            )?),
        };
        Ok(WorkloadPlanner {
            engine,
            queries,
            sim,
            sf: None,
        })
    }

    /// PostgreSQL's enable_* switches for every plan from now on, on both sides of a
    /// comparison (a session's settings, not cost constants). MySQL has none of them: any
    /// switch turned off there is an error.
    pub fn with_pg_options(mut self, opts: costlab_pg::PgOptions) -> Result<WorkloadPlanner> {
        match &mut self.engine {
            EnginePlanner::Postgres(p) => p.set_options(opts),
            EnginePlanner::Mysql(_) if opts != costlab_pg::PgOptions::default() => {
                return Err(Error::invalid(
                    "switches",
                    "enable_* are PostgreSQL's planner switches; MySQL has none of them",
                ))
            }
            EnginePlanner::Mysql(_) => {}
        }
        Ok(self)
    }

    /// DBT3's scale factor (`None`: the user's own tables).
    pub fn sf(&self) -> Option<f64> {
        self.sf
    }

    pub fn queries(&self) -> &[JoinQuery] {
        &self.queries
    }

    fn query(&self, number: u8) -> Result<&JoinQuery> {
        self.queries
            .iter()
            .find(|q| q.number == number)
            .ok_or_else(|| match self.sf {
                Some(_) => {
                    Error::invalid("query", format!("DBT3 has queries 1 to 22, not {number}"))
                }
                None => Error::invalid("query", format!("the workload has no query {number}")),
            })
    }

    /// The plan of one query without its time: what a sweep needs.
    pub fn plan(&self, number: u8, knobs: &KnobValues) -> Result<(String, f64, f64, PlanNode)> {
        let q = self.query(number)?;
        Ok(match &self.engine {
            EnginePlanner::Mysql(db) => {
                let p = db.plan(q, knobs)?;
                (p.signature(), p.cost, p.rows, p.tree)
            }
            EnginePlanner::Postgres(db) => {
                let p = db.plan(q, knobs)?;
                (p.signature(), p.cost.total, p.rows, p.tree)
            }
        })
    }

    /// One query planned and timed.
    pub fn outcome(&self, number: u8, knobs: &KnobValues) -> Result<QueryOutcome> {
        let (signature, cost, rows, tree) = self.plan(number, knobs)?;
        let time_s = self.sim.time_plan(&tree)?.total_s;
        Ok(QueryOutcome {
            signature,
            cost,
            rows,
            time_s,
            tree,
        })
    }

    pub fn engine(&self) -> Engine {
        self.sim.engine()
    }

    /// The machine the times are simulated on.
    pub fn simulator(&self) -> &Simulator {
        &self.sim
    }

    /// Each node's own simulated seconds, in [`PlanNode::walk`] order (parents first).
    pub fn node_times(&self, tree: &PlanNode) -> Result<Vec<f64>> {
        Ok(self
            .sim
            .time_plan(tree)?
            .nodes
            .iter()
            .map(|n| n.total_s)
            .collect())
    }

    /// The table: every query (or the one given) under both sets of constants.
    pub fn table(
        &self,
        baseline: &KnobValues,
        current: &KnobValues,
        only: Option<u8>,
    ) -> Result<Vec<WorkloadRow>> {
        if let Some(n) = only {
            self.query(n)?;
        }
        self.queries
            .iter()
            .filter(|q| only.is_none_or(|n| n == q.number))
            .map(|q| {
                Ok(WorkloadRow {
                    number: q.number,
                    title: q.title.clone(),
                    baseline: self.outcome(q.number, baseline)?,
                    current: self.outcome(q.number, current)?,
                })
            })
            .collect()
    }

    /// The plan diagram of one query over one knob or two (the others as in `knobs`), each
    /// plan timed on the machine once.
    pub fn diagram(
        &self,
        number: u8,
        knobs: &KnobValues,
        x: (Knob, &Axis),
        y: Option<(Knob, &Axis)>,
        boundaries: Boundaries,
    ) -> Result<PlanDiagram> {
        self.query(number)?;
        for knob in std::iter::once(x.0).chain(y.map(|y| y.0)) {
            if knob.def().engine != self.engine() {
                return Err(Error::invalid(
                    knob.def().name,
                    format!(
                        "a {} knob has no effect on {}",
                        knob.def().engine.name(),
                        self.engine().name()
                    ),
                ));
            }
        }
        if y.is_some_and(|y| y.0 == x.0) {
            return Err(Error::invalid(
                x.0.def().name,
                "a diagram needs two different knobs",
            ));
        }
        let mut k = knobs.clone();
        let mut seen: Vec<(String, PlanNode)> = Vec::new();
        diagram::build(
            x.1,
            y.map(|y| y.1),
            boundaries,
            |xv, yv| {
                k.set(x.0, xv)?;
                if let (Some((knob, _)), Some(v)) = (y, yv) {
                    k.set(knob, v)?;
                }
                let (signature, cost, _, tree) = self.plan(number, &k)?;
                Ok(Choice {
                    signature,
                    cost,
                    plan: tree,
                    regret_s: None,
                })
            },
            |tree| {
                // Plans whose summaries read alike say where they differ from the first.
                let mut summary = plan_summary(tree);
                if let Some((_, first)) = seen.iter().find(|(s, _)| *s == summary) {
                    if let Some(site) = costlab_model::plan::change_site(first, tree) {
                        summary = format!("{summary} [{site}]");
                    }
                } else {
                    seen.push((summary.clone(), tree.clone()));
                }
                Ok(Description {
                    summary,
                    time_s: self.sim.time_plan(tree)?.total_s,
                })
            },
        )
    }

    /// The flip map: every query's one-axis diagram over `knob`.
    pub fn flip_map(
        &self,
        knobs: &KnobValues,
        knob: Knob,
        axis: &Axis,
        boundaries: Boundaries,
    ) -> Result<Vec<(u8, PlanDiagram)>> {
        self.queries
            .iter()
            .map(|q| {
                Ok((
                    q.number,
                    self.diagram(q.number, knobs, (knob, axis), None, boundaries)?,
                ))
            })
            .collect()
    }

    /// Which plan each query picks at each value of `knob` (the others as in `knobs`):
    /// `result[i][j]` is query i's plan at `values[j]`, numbered in order of appearance per
    /// query (0 is the plan at the first value). A plan-flip map over all queries.
    pub fn flip_sweep(
        &self,
        knob: Knob,
        values: &[f64],
        knobs: &KnobValues,
    ) -> Result<Vec<Vec<usize>>> {
        let mut k = knobs.clone();
        let mut out = vec![Vec::with_capacity(values.len()); self.queries.len()];
        let mut seen: Vec<Vec<String>> = vec![Vec::new(); self.queries.len()];
        for &v in values {
            k.set(knob, v)?;
            for (i, q) in self.queries.iter().enumerate() {
                let (sig, ..) = self.plan(q.number, &k)?;
                let id = match seen[i].iter().position(|s| *s == sig) {
                    Some(id) => id,
                    None => {
                        seen[i].push(sig);
                        seen[i].len() - 1
                    }
                };
                out[i].push(id);
            }
        }
        Ok(out)
    }
}

/// A constant fitted over a workload of join queries on a grid of its values: at each value,
/// the time the plans the engine chooses take beyond the fastest of the plans it chooses
/// anywhere on the grid (its own candidates: a join planner keeps only its cheapest plan,
/// so alternatives are the plans other values of the constant make it pick).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GridFit {
    pub knob: &'static str,
    /// The grid, ascending.
    pub values: Vec<f64>,
    /// Time lost over all queries at each value, seconds.
    pub regret_s: Vec<f64>,
    /// Simulated time of the chosen plans at each value, seconds.
    pub chosen_s: Vec<f64>,
    /// The first value with the least time lost, and the grid values on either side of the
    /// run of values that lose as little (the best interval, within one grid step).
    pub best: f64,
    pub best_interval: (f64, f64),
    pub best_regret_s: f64,
    /// Distinct plans per query over the grid.
    pub plans: Vec<usize>,
}

impl WorkloadPlanner {
    /// Fits `knob` over `values` (ascending) for every query, the other constants as in
    /// `knobs`. Each plan is timed once per query, wherever it is chosen.
    pub fn grid_fit(&self, knob: Knob, values: &[f64], knobs: &KnobValues) -> Result<GridFit> {
        if values.is_empty() || values.windows(2).any(|w| w[0] >= w[1]) {
            return Err(Error::invalid("fit grid", "needs ascending values"));
        }
        let mut k = knobs.clone();
        // Per query: each distinct plan's signature and time; per value: the chosen plan.
        let mut seen: Vec<Vec<(String, f64)>> = vec![Vec::new(); self.queries.len()];
        let mut chosen: Vec<Vec<usize>> = Vec::with_capacity(values.len());
        for &v in values {
            k.set(knob, v)?;
            let mut at = Vec::with_capacity(self.queries.len());
            for (i, q) in self.queries.iter().enumerate() {
                let (sig, _, _, tree) = self.plan(q.number, &k)?;
                let id = match seen[i].iter().position(|(s, _)| *s == sig) {
                    Some(id) => id,
                    None => {
                        let t = self.sim.time_plan(&tree)?.total_s;
                        seen[i].push((sig, t));
                        seen[i].len() - 1
                    }
                };
                at.push(id);
            }
            chosen.push(at);
        }
        let fastest: Vec<f64> = seen
            .iter()
            .map(|p| p.iter().map(|(_, t)| *t).fold(f64::INFINITY, f64::min))
            .collect();
        let chosen_s: Vec<f64> = chosen
            .iter()
            .map(|at| at.iter().enumerate().map(|(q, &id)| seen[q][id].1).sum())
            .collect();
        let regret_s: Vec<f64> = chosen
            .iter()
            .map(|at| {
                at.iter()
                    .enumerate()
                    .map(|(q, &id)| seen[q][id].1 - fastest[q])
                    .sum()
            })
            .collect();
        let least = regret_s.iter().copied().fold(f64::INFINITY, f64::min);
        let near = |r: f64| r <= least + 1e-12 * least.abs().max(1e-9);
        let first = regret_s.iter().position(|&r| near(r)).unwrap_or(0);
        let mut last = first;
        while last + 1 < values.len() && near(regret_s[last + 1]) {
            last += 1;
        }
        Ok(GridFit {
            knob: knob.def().name,
            best: values[first],
            best_interval: (values[first], values[last]),
            best_regret_s: regret_s[first],
            values: values.to_vec(),
            regret_s,
            chosen_s,
            plans: seen.iter().map(Vec::len).collect(),
        })
    }
}

thread_local! {
    /// The 22 queries of the built-in catalog at the last scale factor read. A DBT3 planner
    /// is prepared again for every machine, release and baseline, and reading the texts
    /// costs more than planning them (the SQL parser's share; see benches/dbt3.rs).
    static DBT3_READ: std::cell::RefCell<Option<(u64, Vec<JoinQuery>)>> =
        const { std::cell::RefCell::new(None) };
}

/// DBT3's queries read against the built-in catalog at `sf` (its tables are `tables`), once
/// per scale factor in a row.
fn dbt3_queries(sf: f64, tables: &[Table]) -> Result<Vec<JoinQuery>> {
    if let Some(q) = DBT3_READ.with_borrow(|c| {
        c.as_ref()
            .filter(|(bits, _)| *bits == sf.to_bits())
            .map(|(_, q)| q.clone())
    }) {
        return Ok(q);
    }
    let queries: Vec<JoinQuery> = (1..=22)
        .map(|n| read(n, sf, tables))
        .collect::<Result<_>>()?;
    DBT3_READ.set(Some((sf.to_bits(), queries.clone())));
    Ok(queries)
}

/// One table access of a plan, in the order the executor reaches it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStep {
    /// The table's alias.
    pub relation: String,
    /// The node's operation: MySQL's access type (ALL, range, ref, eq_ref), PostgreSQL's
    /// scan ("Seq Scan", "Index Scan", ...).
    pub op: String,
    pub index: Option<String>,
}

/// The table accesses of a plan's top query block in execution order (left-deep: the
/// first table is the first read). Nodes below a table access (a materialized semijoin)
/// and subquery nodes (MySQL's "... subquery", PostgreSQL's SubPlan / InitPlan) are left
/// out: they are separate blocks.
pub fn plan_steps(tree: &PlanNode) -> Vec<PlanStep> {
    fn visit(n: &PlanNode, out: &mut Vec<PlanStep>) {
        if let Some(r) = &n.relation {
            out.push(PlanStep {
                relation: r.to_string(),
                op: n.op.to_string(),
                index: n.index.as_ref().map(|i| i.to_string()),
            });
            return;
        }
        if n.op.contains("subquery") || n.op.contains("SubPlan") || n.op.contains("InitPlan") {
            return;
        }
        for c in &n.children {
            visit(c, out);
        }
    }
    let mut out = Vec::new();
    visit(tree, &mut out);
    out
}

/// A short description of a plan: the first table's access in full, then the join order,
/// e.g. `lineitem range(i_l_shipdate) > orders > customer`.
pub fn plan_summary(tree: &PlanNode) -> String {
    let steps = plan_steps(tree);
    let mut s = String::new();
    for (i, st) in steps.iter().enumerate() {
        if i == 0 {
            s.push_str(&st.relation);
            s.push(' ');
            s.push_str(&st.op);
            if let Some(ix) = &st.index {
                s.push('(');
                s.push_str(ix);
                s.push(')');
            }
        } else {
            s.push_str(" > ");
            s.push_str(&st.relation);
        }
    }
    if s.is_empty() {
        s.push_str(&tree.op);
    }
    s
}

/// A plan as an indented tree, one node a line, in the style of PostgreSQL's text
/// EXPLAIN: `op using index on relation  (cost=startup..total rows=n)`, the node's own
/// simulated time when `times` is given (one entry per node in [`PlanNode::walk`] order,
/// as [`WorkloadPlanner::node_times`] returns them), then its detail lines.
#[cfg(feature = "explain-text")]
pub fn tree_text(tree: &PlanNode, times: Option<&[f64]>) -> String {
    fn secs(v: f64) -> String {
        if v == 0.0 {
            "0 s".into()
        } else if v.abs() < 1e-3 {
            format!("{:.1} µs", v * 1e6)
        } else if v.abs() < 1.0 {
            format!("{:.2} ms", v * 1e3)
        } else {
            format!("{v:.2} s")
        }
    }
    fn write(
        out: &mut String,
        n: &PlanNode,
        depth: usize,
        times: Option<&[f64]>,
        next: &mut usize,
    ) {
        let (prefix, detail_indent) = if depth == 0 {
            (String::new(), 2)
        } else {
            (
                format!("{}->  ", " ".repeat(6 * (depth - 1) + 2)),
                6 * depth + 2,
            )
        };
        out.push_str(&prefix);
        out.push_str(&n.op);
        if let Some(i) = &n.index {
            out.push_str(" using ");
            out.push_str(i);
        }
        if let Some(r) = &n.relation {
            out.push_str(" on ");
            out.push_str(r);
        }
        out.push_str(&format!(
            "  (cost={:.2}..{:.2} rows={:.0})",
            n.cost.startup, n.cost.total, n.rows
        ));
        if let Some(t) = times.and_then(|t| t.get(*next)) {
            out.push_str(&format!("  [time {}]", secs(*t)));
        }
        *next += 1;
        out.push('\n');
        for d in &n.details {
            out.push_str(&" ".repeat(detail_indent));
            out.push_str(d);
            out.push('\n');
        }
        for c in &n.children {
            write(out, c, depth + 1, times, next);
        }
    }
    let mut out = String::new();
    write(&mut out, tree, 0, times, &mut 0);
    out
}

/// The MySQL server a machine stands for in DBT3 under the scenario's server settings: the
/// machine's buffer pool; InnoDB reports everything cached only when the settings say so
/// (the seed's in-memory server) and the cache is warm, otherwise nothing (the §3.2
/// heuristic, as in 5.7); batched key access as set. The profile's id decides nothing.
pub fn mysql_join_env(machine: &MachineProfile, server: &ServerSettings) -> JoinEnv {
    let mut e = JoinEnv::default();
    e.server.innodb_buffer_pool_size = machine.buffer_pool_bytes;
    if server.innodb_cache_report == InnodbCacheReport::AllCached && machine.warm_cache {
        e.server.table_in_memory = Some(1.0);
    }
    e.batched_key_access = server.batched_key_access;
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_model::knobs::Preset;
    use costlab_sim::builtin;

    fn mysql57(mbrc: f64) -> KnobValues {
        let mut k = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
        k.set(Knob::MemoryBlockReadCost, mbrc).unwrap();
        k
    }

    /// The seed's in-memory table (mysql-wl8737-io-aware-cost-defaults.txt): from 1.0 to
    /// 0.2, Q6, Q7, Q12 and Q20 change plan; no other query does.
    #[test]
    fn seed_in_memory_table_flags_the_seed_queries() {
        let m = builtin::find("wl8737-memory").unwrap();
        let p = WorkloadPlanner::dbt3(
            EngineVersion::Mysql57,
            10.0,
            &m,
            &ServerSettings::preset_for_builtin(&m.id),
        )
        .unwrap();
        let rows = p.table(&mysql57(1.0), &mysql57(0.2), None).unwrap();
        assert_eq!(rows.len(), 22);
        let changed: Vec<u8> = rows
            .iter()
            .filter(|r| r.plan_changed())
            .map(|r| r.number)
            .collect();
        for n in [6, 7, 12, 20] {
            assert!(
                changed.contains(&n),
                "Q{n} should flip; changed: {changed:?}"
            );
        }
        for r in &rows {
            assert!(
                r.baseline.time_s > 0.0 && r.current.time_s.is_finite(),
                "Q{}",
                r.number
            );
            if !r.plan_changed() {
                assert_eq!(r.baseline.time_s, r.current.time_s, "Q{}", r.number);
            }
        }
        // Seed: Q6 and Q12 ran 34 % faster on the range scan; the simulation agrees in sign.
        for n in [6, 12] {
            let r = &rows[n as usize - 1];
            assert!(r.change_pct() < 0.0, "Q{n}: {:.1} %", r.change_pct());
        }
        // Seed: Q20 ran 105 % slower with FirstMatch.
        assert!(
            rows[19].change_pct() > 0.0,
            "Q20: {:.1} %",
            rows[19].change_pct()
        );
    }

    /// A plan is the whole tree: the simulation reads nothing but the plan, so two plans
    /// the table calls the same must take the same time. On the seed's disk-bound server
    /// io_block_read_cost moves DS-MRR on and off (Q4, Q10, Q14) and changes the plan
    /// inside Q15's view; each must be marked, and say where.
    #[test]
    fn a_plan_that_times_differently_is_marked_changed_and_says_where() {
        let m = builtin::find("wl8737-disk").unwrap();
        let server = ServerSettings {
            innodb_cache_report: InnodbCacheReport::Heuristic,
            ..ServerSettings::preset_for_builtin(&m.id)
        };
        let p = WorkloadPlanner::dbt3(EngineVersion::Mysql57, 10.0, &m, &server).unwrap();
        let base = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
        let mut sites = Vec::new();
        for io in [0.5, 2.0, 4.0] {
            let mut now = base.clone();
            now.set(Knob::IoBlockReadCost, io).unwrap();
            for r in p.table(&base, &now, None).unwrap() {
                if r.plan_changed() {
                    let site = r.change_site();
                    assert!(site.is_some(), "io {io} Q{}", r.number);
                    sites.push((io, r.number, site.unwrap()));
                } else {
                    assert_eq!(r.baseline.time_s, r.current.time_s, "io {io} Q{}", r.number);
                    assert_eq!(r.change_site(), None);
                }
            }
        }
        let q15 = sites.iter().find(|(io, n, _)| *io == 4.0 && *n == 15);
        let (_, _, site) = q15.expect("Q15 changes inside its view at io_block_read_cost 4");
        assert_eq!(
            site,
            "in Materialize (derived) on revenue0: ALL on lineitem, \
             was range using i_l_shipdate on lineitem"
        );
        let q4 = sites.iter().find(|(io, n, _)| *io == 2.0 && *n == 4);
        assert!(
            q4.is_some_and(|(_, _, s)| s.contains("[Using MRR]")),
            "{sites:?}"
        );

        // PostgreSQL's signature has always been the whole tree; the same holds.
        let p = WorkloadPlanner::dbt3(EngineVersion::Pg18, 10.0, &m, &server).unwrap();
        let mut changed = 0;
        for (knob, v) in [
            (Knob::RandomPageCost, 1.1),
            (Knob::RandomPageCost, 8.0),
            (Knob::SeqPageCost, 0.1),
        ] {
            let mut now = base.clone();
            now.set(knob, v).unwrap();
            for r in p.table(&base, &now, None).unwrap() {
                if r.plan_changed() {
                    changed += 1;
                    assert!(r.change_site().is_some(), "{knob:?} {v} Q{}", r.number);
                } else {
                    assert_eq!(
                        r.baseline.time_s, r.current.time_s,
                        "{knob:?} {v} Q{}",
                        r.number
                    );
                }
            }
        }
        assert!(changed > 0);
    }

    #[test]
    fn a_single_query_and_bad_numbers() {
        let m = builtin::find("wl8737-memory").unwrap();
        let p = WorkloadPlanner::dbt3(
            EngineVersion::Mysql57,
            1.0,
            &m,
            &ServerSettings::preset_for_builtin(&m.id),
        )
        .unwrap();
        let k = mysql57(1.0);
        assert_eq!(p.table(&k, &k, Some(6)).unwrap().len(), 1);
        for n in [0, 23] {
            let e = p.table(&k, &k, Some(n)).unwrap_err().to_string();
            assert!(e.contains("1 to 22"), "{e}");
        }
        for sf in [0.0, 0.001, 1001.0, f64::NAN, -1.0] {
            assert!(
                WorkloadPlanner::dbt3(
                    EngineVersion::Mysql57,
                    sf,
                    &m,
                    &ServerSettings::preset_for_builtin(&m.id)
                )
                .is_err(),
                "{sf}"
            );
        }
    }

    #[test]
    fn flip_sweep_numbers_plans_in_order_of_appearance() {
        let m = builtin::find("wl8737-memory").unwrap();
        let p = WorkloadPlanner::dbt3(
            EngineVersion::Mysql57,
            10.0,
            &m,
            &ServerSettings::preset_for_builtin(&m.id),
        )
        .unwrap();
        let values: Vec<f64> = (0..50).map(|i| 1.0 - i as f64 * 0.0196).collect();
        let map = p
            .flip_sweep(Knob::MemoryBlockReadCost, &values, &mysql57(1.0))
            .unwrap();
        assert_eq!(map.len(), 22);
        assert!(map.iter().all(|row| row.len() == 50 && row[0] == 0));
        // Q6 leaves the table scan between 0.53 and 0.52 (tests.rs) and stays on the range.
        let q6 = &map[5];
        let first_flip = q6.iter().position(|&id| id != 0).unwrap();
        assert!(
            (0.51..=0.53).contains(&values[first_flip]),
            "{}",
            values[first_flip]
        );
        assert!(q6[first_flip..].iter().all(|&id| id == 1));
    }

    #[test]
    fn summaries_trees_and_node_times() {
        let m = builtin::find("wl8737-memory").unwrap();
        let p = WorkloadPlanner::dbt3(
            EngineVersion::Mysql57,
            10.0,
            &m,
            &ServerSettings::preset_for_builtin(&m.id),
        )
        .unwrap();
        let o = p.outcome(6, &mysql57(0.2)).unwrap();
        assert_eq!(plan_summary(&o.tree), "lineitem range(i_l_shipdate)");
        let times = p.node_times(&o.tree).unwrap();
        let mut nodes = 0;
        o.tree.walk(&mut |_| nodes += 1);
        assert_eq!(times.len(), nodes);
        let sum: f64 = times.iter().sum();
        assert!(
            (sum - o.time_s).abs() <= 1e-9 * o.time_s,
            "{sum} vs {}",
            o.time_s
        );
        #[cfg(feature = "explain-text")]
        {
            let text = tree_text(&o.tree, Some(&times));
            assert!(
                text.starts_with("range using i_l_shipdate on lineitem  (cost=0.00.."),
                "{text}"
            );
            assert!(text.contains("[time "), "{text}");
        }
        // Q7: the join order of the top block, first table with its access.
        let q7 = p.outcome(7, &mysql57(1.0)).unwrap();
        let steps = plan_steps(&q7.tree);
        assert_eq!(steps.len(), 6, "{steps:?}");
        assert!(plan_summary(&q7.tree).starts_with(&format!("{} ", steps[0].relation)));
        // Q22's subqueries are separate blocks: only customer is in the top block.
        let q22 = p.outcome(22, &mysql57(1.0)).unwrap();
        let steps = plan_steps(&q22.tree);
        assert_eq!(steps.len(), 1, "{steps:?}");
        assert_eq!(steps[0].relation, "customer");
    }

    #[test]
    fn presets_give_baselines() {
        let mut base = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql80);
        Preset::find("wl8737-alt0").unwrap().apply(&mut base);
        assert_eq!(base.get(Knob::MemoryBlockReadCost), 1.0);
        let m = builtin::find("wl8737-disk").unwrap();
        let p = WorkloadPlanner::dbt3(
            EngineVersion::Mysql57,
            10.0,
            &m,
            &ServerSettings::preset_for_builtin(&m.id),
        )
        .unwrap();
        let rows = p.table(&base, &base, None).unwrap();
        assert!(rows
            .iter()
            .all(|r| !r.plan_changed() && r.change_pct() == 0.0));
    }
}

#[cfg(test)]
mod example_file_tests {
    /// The example the page ships: its file holds [`EXAMPLE_QUERIES`], and both engines read
    /// and plan every one of them on its four tables.
    #[test]
    fn the_example_file_plans_its_queries_in_both_engines() {
        use crate::compare::WorkloadPlanner;
        use crate::scenario::ServerSettings;
        use costlab_model::block::JoinQuery;
        use costlab_model::knobs::{EngineVersion, KnobValues};
        use costlab_model::Result;
        use costlab_sql::Dialect;
        use costlab_workload::user::{read_queries, split_queries, EXAMPLE_QUERIES};
        let file = crate::scenario_file::ScenarioFile::from_json(include_str!(
            "../../../static/example-shop.json"
        ))
        .unwrap();
        assert_eq!(file.queries, EXAMPLE_QUERIES);
        assert_eq!(file.tables.len(), 4);
        let texts = split_queries(&file.queries).unwrap();
        assert_eq!(texts.len(), 6);
        let machine = costlab_sim::builtin::find("seed-nvme").unwrap();
        let knobs = KnobValues::defaults(EngineVersion::Pg15, EngineVersion::Mysql80);
        for (version, dialect) in [
            (EngineVersion::Pg15, Dialect::Postgres),
            (EngineVersion::Mysql80, Dialect::Mysql),
        ] {
            let queries: Vec<JoinQuery> = read_queries(&texts, dialect, &file.tables)
                .into_iter()
                .collect::<Result<_>>()
                .unwrap();
            let server = ServerSettings::preset_for_builtin(&machine.id);
            let p = WorkloadPlanner::new(
                version,
                &file.tables,
                &file.functions,
                false,
                queries,
                &machine,
                &server,
            )
            .unwrap();
            for q in &texts {
                let o = p.outcome(q.number, &knobs).unwrap();
                assert!(o.cost > 0.0 && o.time_s > 0.0, "{version:?} Q{}", q.number);
            }
        }
    }
}
