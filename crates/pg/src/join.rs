//! PostgreSQL's join planner over the DBT3 query blocks: dynamic programming over join
//! orders up to the collapse limits, nested loops with parameterised index scans, hash and
//! merge joins, sorts and aggregation on top. Reference: `postgresql-join-cost-model.md`
//! (cited as §n; the single-table spec as [SCAN]).
//!
//! Interface shared by the planner, the real-server comparison
//! (`crates/cli/tests/real_postgres_dbt3.rs`), the CLI and the page.
//!
//! A query's walk, file by file (each named after the PostgreSQL source it follows):
//!
//! * `pathnodes`: the data (pathnodes.h): the prepared tables, one call's `Planner`, a
//!   block's `Block` and a join relation's `JoinRel`.
//! * `planner` (planner.c, planmain.c): `plan_block` plans one block end to end.
//! * `setup` (planmain.c's query_planner): `build` makes the block ready: base relations
//!   through the single-table model (`relnode`, `crate`: Seq Scan, Index Scan, Index
//!   Only Scan, Bitmap Heap Scan), equivalence classes from the join edges (`equivclass`:
//!   constants propagated), SpecialJoinInfos for IN / EXISTS / NOT EXISTS nests and the
//!   LEFT JOIN (`initsplan`; a semi join with a distinct RHS made inner, `analyzejoins`),
//!   filters distributed with their selectivity (`initsplan`; `clausesel`: LIKE against
//!   MCVs and histogram, OR factoring, `col = (SubPlan)`),
//!   the kit's partial indexes where the query implies their predicate (`predtest`),
//!   expression indexes and kNN orders (`indxpath`), sub-selects planned as InitPlans,
//!   SubPlans and sub-select relations (`subselect`: Q15's view with HAVING pushdown,
//!   Q18's grouped IN made an inner join), the columns each relation carries (`relnode`).
//! * `allpaths`: each base relation's size and paths; `indxpath`: its parameterized
//!   index and bitmap paths with loop_count.
//! * `joinrels` (standard_join_search, join_is_legal): join relations level by level,
//!   their rows (calc_joinrel_size_estimate with `selfuncs`' eqjoinsel and
//!   eqjoinsel_semi).
//! * `joinpath` (add_paths_to_joinrel): nested loops (plain, Materialize, parameterized
//!   inners, Memoize; a semi or anti join's two-relation inner parameterized by the outer,
//!   as Q20 at SF 10 runs it), hash joins (bucket statistics, batches, the unique-inner
//!   quirk of §3.3), merge joins (mergejoinscansel, explicit sorts, presorted inputs,
//!   materialized inner), costed by `costs`' formulas.
//! * `pathnode`: which candidates add_path keeps (`model::add_path`, fuzz 1.01, useful
//!   pathkeys), the unique-ified semi join RHS.
//! * `upper` (grouping_planner): GroupAggregate / HashAggregate (with spill) / Aggregate
//!   costed from the select list (`prepagg`, `tlist`), a second level over a grouped FROM
//!   sub-select, ORDER BY sorts and incremental sorts, LIMIT, InitPlan charges.
//! * `model`: the path and node types and add_path; `executor_work`: the rows and pages
//!   the executor really handles, beside the estimates; `explain` and `deparse`: EXPLAIN
//!   text as ruleutils.c prints it.
//! * `clauses`: what the planner reads of the front end's typed expressions (the
//!   restriction clause shapes, operator counts, an expression's canonical form for
//!   matching index keys), and the reader of the catalog's own texts (index expressions
//!   and partial-index predicates as pg_get_indexdef prints them). No query text is read
//!   after the front end.
//!
//! Parallel query (max_parallel_workers_per_gather, a knob: 2 at the defaults) follows
//! PostgreSQL's allpaths.c, joinpath.c and planner.c (`docs/design/parallel-query.md`):
//! partial base paths (`allpaths`), partial joins through the same builders with the
//! outer's partial paths (`joinpath`), Gathers at every base and join relation but the
//! top and at the top after its target (`allpaths::gather_paths`, `upper`), Partial and
//! Finalize aggregation (`upper`). Not yet: a partial twin of the kit's partial indexes,
//! Incremental Sort under a Gather Merge, partial DISTINCT, the ORDER BY Gather Merge of
//! create_ordered_paths, partial Subquery Scans, and the executor's time for workers
//! (the simulation sees a partial node's work as planned, not per participant).
//!
//! Not modelled: BRIN indexes, GEQO
//! and splitting a block above from/join_collapse_limit (every DBT3 block is within the
//! default 8), reordering across the LEFT JOIN's nullable side beyond its own join, right
//! semi/anti joins (PG16+/18+), target-list expression costs of joins (Q7's EXTRACT).

mod allpaths;
mod analyzejoins;
mod clauses;
mod clausesel;
mod costs;
mod deparse;
mod equivclass;
mod executor_work;
mod explain;
mod indxpath;
mod initsplan;
mod joinpath;
mod joinrels;
mod model;
mod pathnode;
mod pathnodes;
mod planner;
mod predtest;
mod prepagg;
mod relnode;
mod selfuncs;
mod setup;
mod subselect;
mod tlist;
mod upper;

#[cfg(test)]
pub(crate) use costs::*;
#[cfg(test)]
pub(crate) use pathnodes::VarStats;
#[cfg(test)]
pub(crate) use selfuncs::{eqjoinsel_inner, eqjoinsel_semi};

use crate::pathnodes::{Consts, TableInfo};
use costlab_model::block::JoinQuery;
use costlab_model::catalog::{Function, Table};
use costlab_model::error::{Error, Result};
use costlab_model::knobs::{Engine, EngineVersion, KnobValues};
use costlab_model::plan::{Cost, KeyNames, PlanNode};
pub use pathnodes::{PgJoinEnv, PgJoinPlanner};

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

impl PgJoinPlan {
    /// A stable description of the plan's shape: node names, relations and indexes in
    /// tree order with the join types; equal signatures mean the same plan.
    pub fn signature(&self) -> String {
        self.tree.shape()
    }

    /// EXPLAIN-like text of the plan.
    pub fn explain(&self) -> String {
        crate::explain_node(&self.tree)
    }
}

impl PgJoinPlanner {
    /// Prepares the tables. The DBT3 kit's partial indexes (`predtest::KIT_SPECIAL_INDEXES`)
    /// are planned by the join planner, usable where the query implies the predicate;
    /// BRIN indexes are left out (no BRIN costing yet): treated as plain btrees they
    /// would look far cheaper than they are.
    pub fn new(tables: &[Table], env: PgJoinEnv) -> Result<PgJoinPlanner> {
        if env.version.engine() != Engine::Postgres {
            return Err(Error::invalid(
                "version",
                format!("{} is not a PostgreSQL release", env.version.label()),
            ));
        }
        for (name, v) in [
            ("from_collapse_limit", env.from_collapse_limit),
            ("join_collapse_limit", env.join_collapse_limit),
        ] {
            if v == 0 {
                return Err(Error::invalid(name, "must be at least 1"));
            }
        }
        let mut kept = Vec::with_capacity(tables.len());
        let mut partials = Vec::with_capacity(tables.len());
        for t in tables {
            t.validate()?;
            let mut t = t.clone();
            blank_trim_char_stats(&mut t);
            let mut mine = Vec::new();
            t.indexes.retain(|ix| {
                match predtest::KIT_SPECIAL_INDEXES
                    .iter()
                    .find(|(n, _, _, _)| n.eq_ignore_ascii_case(&ix.name))
                {
                    None => true,
                    Some((_, brin, pred, fraction)) => {
                        if let (false, Some(pred)) = (brin, pred) {
                            mine.push(pathnodes::PartialIndex::new(ix.clone(), pred, *fraction));
                        }
                        false
                    }
                }
            });
            kept.push(t);
            partials.push(mine);
        }
        for f in &env.functions {
            f.validate()?;
        }
        let infos = kept
            .iter()
            .map(TableInfo::build)
            .collect::<Result<Vec<_>>>()?;
        let mut planner = PgJoinPlanner {
            tables: kept,
            infos,
            partials,
            env,
        };
        // An indexed expression's evaluation costs its schema functions' procost.
        let mut infos = std::mem::take(&mut planner.infos);
        for info in &mut infos {
            for c in &mut info.cols {
                if c.expression.is_some() {
                    let extra = planner.extra_call_ops(&c.name);
                    let calls = planner.calls(&c.name);
                    if let Some(e) = c.expression.as_mut() {
                        e.eval_ops += extra;
                        e.calls = calls;
                    }
                }
            }
        }
        planner.infos = infos;
        Ok(planner)
    }

    /// Plans from now on with `opts`' enable_* switches (as `SET enable_nestloop = off`
    /// does for a session).
    pub fn set_options(&mut self, opts: crate::settings::PgOptions) {
        self.env.opts = opts;
    }

    /// The schema's functions an index expression of the catalog calls, one entry per
    /// call (built-ins are not there).
    fn schema_calls<'f>(&'f self, expr: &str) -> impl Iterator<Item = &'f Function> {
        let names = if self.env.functions.is_empty() {
            Vec::new()
        } else {
            clauses::called_functions(expr)
        };
        self.schema_functions(names)
    }

    /// The schema's functions among `names`.
    fn schema_functions(&self, names: Vec<String>) -> impl Iterator<Item = &Function> {
        names.into_iter().filter_map(|name| {
            self.env
                .functions
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(&name))
        })
    }

    /// What cost_qual_eval charges for calls of the schema's own functions beyond the one
    /// cpu_operator_cost the text's operator count gives every call: (procost - 1) per
    /// call, summed over the calls `expr` makes (nested calls each). Built-ins add 0.
    pub(crate) fn extra_call_ops(&self, expr: &str) -> f64 {
        self.schema_calls(expr).map(|f| f.procost - 1.0).sum()
    }

    /// [`Self::extra_call_ops`] of a query's expression.
    pub(crate) fn extra_call_ops_of(&self, e: &costlab_model::expr::Expr) -> f64 {
        self.schema_functions(clauses::calls_of(e))
            .map(|f| f.procost - 1.0)
            .sum()
    }

    /// [`Self::calls`] of a query's expression.
    pub(crate) fn calls_of(&self, e: &costlab_model::expr::Expr) -> f64 {
        self.schema_functions(clauses::calls_of(e)).count() as f64
    }

    /// Whether this is the patched build ([`PgJoinEnv::handed_up`]).
    pub(crate) fn handed_up(&self) -> bool {
        self.env.handed_up
    }

    /// Calls of the schema's own functions one evaluation of `expr` makes.
    pub(crate) fn calls(&self, expr: &str) -> f64 {
        self.schema_calls(expr).count() as f64
    }

    /// Plans one query with the knob values.
    pub fn plan(&self, q: &JoinQuery, knobs: &KnobValues) -> Result<PgJoinPlan> {
        let c = Consts::from_knobs(knobs)?;
        // hash_mem_multiplier: 2.0 from PG15 on (§0).
        let hash_mem = c.work_mem_bytes() * 2.0;
        let pl = pathnodes::Planner {
            db: self,
            jc: costs::JoinConsts {
                c,
                hash_mem,
                bump_hash_entries: self.env.version >= EngineVersion::Pg18,
            },
            version: self.env.version,
            opts: self.env.opts.clone(),
            keys: KeyNames::default(),
        };
        let path = pl.plan_block(&q.block, &pathnodes::BlockOpts::default())?;
        if !(path.total.is_finite() && path.startup.is_finite() && path.rows.is_finite())
            || path.total < 0.0
            || path.startup < 0.0
        {
            return Err(Error::Unsupported(format!(
                "Q{}: the cost model produced a non-finite or negative cost",
                q.number
            )));
        }
        let mut tree = path.node.to_plan();
        elide_trivial_subquery_scans(&mut tree);
        Ok(PgJoinPlan {
            number: q.number,
            cost: Cost::new(path.startup, path.total),
            rows: path.rows,
            tree,
        })
    }
}

/// setrefs.c drops a Subquery Scan without a filter whose target list is its sub-select's
/// own, column for column (trivial_subqueryscan). It is, when the node was created with
/// the relation's physical target list (createplan.c's use_physical_tlist), which happens
/// unless the parent asks for a small or exact one: under a Nested Loop (either side), as
/// a Hash Join's outer and straight under a Merge Join (no Sort between). Under a Sort,
/// Hash or Materialize the node returns just the columns needed above, in the order they
/// were first referenced, and stays (Q15 at SF 1: a Merge Join over a Sort keeps
/// `Subquery Scan on revenue0`; at SF 10 a Nested Loop over it drops it, as the server's
/// EXPLAIN shows). The node's cost is in its parent's either way; its work goes with it.
/// (Sub-selects that are a block's only relation, or a sublink's, are dropped when their
/// path is built.)
fn elide_trivial_subquery_scans(node: &mut PlanNode) {
    let physical: &[usize] = match node.op.as_str() {
        "Nested Loop" | "Merge Join" => &[0, 1],
        "Hash Join" => &[0],
        _ => &[],
    };
    for (i, child) in node.children.iter_mut().enumerate() {
        let trivial = child.op.as_str() == "Subquery Scan"
            && child.children.len() == 1
            && !child.details.iter().any(|d| d.starts_with("Filter"));
        if trivial && physical.contains(&i) {
            if let Some(inner) = child.children.pop() {
                *child = inner;
            }
        }
        elide_trivial_subquery_scans(child);
    }
}

/// bpchar compares without trailing blanks: statistics imported from a server carry
/// CHAR(n) values padded to n, the query constants do not. Trimming the statistics keeps
/// their order and makes `'MAIL'` find `'MAIL      '`.
fn blank_trim_char_stats(t: &mut Table) {
    use costlab_model::catalog::{ColumnType, Value};
    let trim = |v: &mut Value| {
        if let Value::Text(s) = v {
            let n = s.trim_end_matches(' ').len();
            s.truncate(n);
        }
    };
    for c in &mut t.columns {
        if matches!(c.ty, ColumnType::Char(_)) {
            for (v, _) in &mut c.stats.mcv {
                trim(v);
            }
            for v in &mut c.stats.histogram {
                trim(v);
            }
        }
    }
}
