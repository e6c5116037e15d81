//! MySQL 8 / InnoDB single-table access path costing, as the original (non-hypergraph)
//! optimizer does it. Spec: `mysql-cost-model.md` (cited as §n).
//!
//! [`plan`] runs the two stages MySQL runs for one table:
//!
//! 1. the range optimizer (`test_quick_select`, §4.5): the table scan bar, the shortest
//!    covering index, then a range per usable index with default MRR against DS-MRR (§4.4)
//!    (`range_optimizer.rs`);
//! 2. `best_access_path` (§5.2): `ref` on an equality over an index prefix against the
//!    scan or range the first stage kept (`best_access_path.rs`);
//!
//! and then the post-join switch of a full scan to a covering index scan (§4.5).
//!
//! **Which number is `Cost::total`.** For the table scan, covering index scan and range
//! candidates it is the range optimizer's cost of that alternative, the number the
//! optimizer trace prints under `rows_estimation` and the one the choice compares
//! (TS = `P*prc + 1.1 + N*rec + 1`, range = `(n+R)*prc + R*rec + 0.01`, ...; §4). For `ref`
//! it is `read + rec*rows`, the number `best_access_path` compares. The EXPLAIN FORMAT=JSON
//! figures of each candidate, `query_cost` (`query_block.cost_info.query_cost` when that
//! path runs: the join-level prefix cost of §5.1/§5.2, e.g. `range_cost + R*rec`),
//! `read_cost` and `eval_cost`, are in the node's details as `name: value` lines.
//! `Cost::startup` is always 0: MySQL has no startup cost.

mod best_access_path;
pub mod cost_model;
pub mod dsmrr;
mod explain;
pub mod join;
pub mod layout;
mod range_optimizer;
pub mod ranges;
pub mod servers;
mod work;

#[cfg(test)]
mod tests;

pub use explain::explain_text;

use cost_model::{estimate_in_memory_buffer, Constants, Handler};
use costlab_model::catalog::{Column, Index, MysqlIndex, MysqlTable, Table};
use costlab_model::error::{check_range, Error, Result};
use costlab_model::knobs::{Knob, KnobValues};
use costlab_model::plan::{
    AccessPattern, Candidate, Cost, Detail, KeyNames, Name, PlanNode, Planned, Work,
};
use costlab_model::query::{CmpOp, Predicate, Query};
use ranges::{
    cond_fraction, distinct_values, innodb_records_in_range, point_cond_fraction, ColumnCond,
    DiveTree,
};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The server and buffer-pool facts that are not statistics of the table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MysqlEnv {
    /// innodb_buffer_pool_size in bytes (<= 0: unknown, the handler then assumes 100 MiB).
    pub innodb_buffer_pool_size: f64,
    /// Fraction of the clustered index's leaf pages in the pool as InnoDB reports it
    /// (8.0+, WL#7170, §3.1). `None`: the WL#7168 size heuristic of §3.2 (always so in 5.7).
    pub table_in_memory: Option<f64>,
    /// The same per index name; an index not listed uses the heuristic.
    pub index_in_memory: Vec<(String, f64)>,
    /// read_rnd_buffer_size in bytes: the DS-MRR rowid buffer.
    pub read_rnd_buffer_size: f64,
    /// optimizer_switch mrr.
    pub mrr: bool,
    /// eq_range_index_dive_limit: with this many equality ranges or more, records_per_key
    /// replaces index dives (0 = always dive).
    pub eq_range_index_dive_limit: f64,
    /// Constants were loaded from mysql.server_cost / engine_cost, hence are f32 (§1.3).
    pub constants_from_tables: bool,
    /// Model InnoDB's inexact records_in_range (the dive's extrapolation, ×2, cap N/2, §4.3;
    /// `ranges::innodb_records_in_range`);
    /// off gives exact row estimates.
    pub innodb_inexact_estimates: bool,
}

impl Default for MysqlEnv {
    fn default() -> Self {
        MysqlEnv {
            // MySQL 8 default: 128 MiB.
            innodb_buffer_pool_size: 134_217_728.0,
            table_in_memory: None,
            index_in_memory: Vec::new(),
            read_rnd_buffer_size: 262_144.0,
            mrr: true,
            eq_range_index_dive_limit: 200.0,
            constants_from_tables: false,
            innodb_inexact_estimates: true,
        }
    }
}

impl MysqlEnv {
    pub fn validate(&self) -> Result<()> {
        check_range(
            "innodb_buffer_pool_size",
            self.innodb_buffer_pool_size,
            0.0,
            1e18,
        )?;
        if let Some(f) = self.table_in_memory {
            check_range("table in-memory fraction", f, 0.0, 1.0)?;
        }
        for (name, f) in &self.index_in_memory {
            check_range(&format!("{name} in-memory fraction"), *f, 0.0, 1.0)?;
        }
        // MySQL's minimum is 1; one rowid must fit.
        check_range("read_rnd_buffer_size", self.read_rnd_buffer_size, 1.0, 1e12)?;
        check_range(
            "eq_range_index_dive_limit",
            self.eq_range_index_dive_limit,
            0.0,
            4_294_967_295.0,
        )?;
        Ok(())
    }

    fn index_fraction(&self, name: &str) -> Option<f64> {
        self.index_in_memory
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }
}

/// Node-pointer record overhead in an InnoDB non-leaf page: child page number (4), compact
/// record header (5), page directory share (~2).
const NODE_PTR_OVERHEAD: f64 = 11.0;

/// Node pointers on a non-leaf page of an index whose pointers are `ptr_bytes` long.
/// The clustered index's upper pages fill to 15/16 (InnoDB's split fill for inserts in key
/// order). A secondary index's upper pages are taken to be as full as its leaves (one build
/// fills both alike: a sorted build packs both, inserts in key-random order leave both
/// about 70 % full): the bytes its leaves hold (`entries_per_leaf` entries of
/// `entry_bytes`) over the pointer's size, at most the 15/16 page.
fn innodb_node_ptrs_per_page(
    ptr_bytes: f64,
    page_bytes: f64,
    clustered: bool,
    entries_per_leaf: f64,
    entry_bytes: f64,
) -> f64 {
    let full = page_bytes * 15.0 / 16.0;
    let used = if clustered {
        full
    } else {
        (entries_per_leaf * entry_bytes).min(full)
    };
    (used / ptr_bytes).floor().max(2.0)
}

/// What an index contributes that no query changes: statistics, size in the pool, tree
/// shape, and its columns as positions in `Table::columns`.
struct IndexBase {
    /// Position in `Table::indexes`.
    at: usize,
    stats: MysqlIndex,
    name: Name,
    clustered: bool,
    /// Key columns.
    cols: Vec<usize>,
    /// Columns an entry carries: the key, plus the PK for a secondary index (InnoDB's
    /// extended keys).
    entry_cols: Vec<usize>,
    /// `index_in_memory_estimate`.
    f_idx: f64,
    /// The tree `records_in_range` dives into.
    dive: DiveTree,
    /// The entries hold every column (`SELECT *` is covered).
    covers_all: bool,
}

/// One MySQL-visible index with what the cost formulas need for this query.
struct IndexInfo<'a> {
    def: &'a Index,
    stats: &'a MysqlIndex,
    name: &'a Name,
    clustered: bool,
    /// Key columns (positions in `Table::columns`).
    cols: &'a [usize],
    /// All columns the query needs are in the index (plus the PK for a secondary index).
    covering: bool,
    /// `index_in_memory_estimate`.
    f_idx: f64,
    /// The tree `records_in_range` dives into.
    dive: &'a DiveTree,
}

/// A range plan on one index (`get_key_scans_params`), with estimated and true rows.
struct KeyRanges {
    /// Key parts the ranges use.
    parts: usize,
    /// True rows in each range.
    true_rows: Vec<f64>,
    /// `records_in_range` sum as InnoDB reports it.
    est_rows: f64,
    /// Every range is an equality on every used key part.
    all_equalities: bool,
}

/// A table checked and digested once for one server state (`MysqlEnv`): column positions,
/// index sizes in the buffer pool, tree heights. Plans any number of queries with any knob
/// values exactly as [`plan`] does; sweeps use it so that validation and the per-index
/// set-up are not repeated at every point.
pub struct Prepared<'t> {
    /// Borrowed, or owned by a prepared form that outlives its inputs.
    table: Cow<'t, Table>,
    env: Cow<'t, MysqlEnv>,
    stats: MysqlTable,
    name: Name,
    /// `f_tab`: the clustered index's share in the buffer pool.
    f_tab: f64,
    /// For each column position, its place in the order of lower-cased names. Products
    /// over the query's columns run in that order (as over the map keyed by name that
    /// this replaces), so every float comes out bit for bit the same.
    rank: Vec<usize>,
    /// Sum of avg_width over all columns (each name once), in `rank` order: the width of
    /// `SELECT *`.
    width_all: f64,
    indexes: Vec<IndexBase>,
    detail: Detail,
    keys: KeyNames,
}

/// Plans a single-table query as MySQL 8 / InnoDB's original optimizer would. Validates
/// everything on each call; to plan one table many times, use [`Prepared`].
pub fn plan(table: &Table, query: &Query, knobs: &KnobValues, env: &MysqlEnv) -> Result<Planned> {
    // Checks in the order they always ran, so a call with several problems reports the
    // same one.
    table.validate()?;
    query.check(table)?;
    env.validate()?;
    let prepared = Prepared::validated(Cow::Borrowed(table), Cow::Borrowed(env))?;
    Constants::from_knobs(knobs, env.constants_from_tables)?;
    prepared.plan(query, knobs)
}

impl<'t> Prepared<'t> {
    pub fn new(table: &'t Table, env: &'t MysqlEnv) -> Result<Prepared<'t>> {
        table.validate()?;
        env.validate()?;
        Prepared::validated(Cow::Borrowed(table), Cow::Borrowed(env))
    }

    /// [`Prepared::new`] taking ownership, for a holder that also owns the table.
    pub fn owned(table: Table, env: MysqlEnv) -> Result<Prepared<'static>> {
        table.validate()?;
        env.validate()?;
        Prepared::validated(Cow::Owned(table), Cow::Owned(env))
    }

    /// [`Prepared::new`] for a table and an environment that have passed validation.
    fn validated(table: Cow<'t, Table>, env: Cow<'t, MysqlEnv>) -> Result<Prepared<'t>> {
        let stats = table.mysql.clone().ok_or_else(|| {
            Error::invalid(
                format!("table {}", table.name),
                "has no InnoDB statistics (mysql section)",
            )
        })?;
        let primary = table.indexes.iter().find(|i| i.primary);
        let data_bytes = stats.clustered_pages * stats.page_bytes;
        // §3.1 gotcha: without an explicit PK (GEN_CLUST_INDEX) InnoDB reports nothing for
        // the table and the heuristic applies.
        let f_tab = match (primary, env.table_in_memory) {
            (Some(_), Some(f)) => f,
            _ => estimate_in_memory_buffer(data_bytes, env.innodb_buffer_pool_size),
        };

        let mut by_name: Vec<(String, usize)> = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name.to_ascii_lowercase(), i))
            .collect();
        costlab_model::sort::sort_by(&mut by_name, |a, b| a.cmp(b));
        let mut rank = vec![0; table.columns.len()];
        for (r, (_, i)) in by_name.iter().enumerate() {
            rank[*i] = r;
        }
        // SELECT * needs every column name once; a name resolves to its first column.
        let mut width_all = 0.0;
        for (k, (name, _)) in by_name.iter().enumerate() {
            if k == 0 || by_name[k - 1].0 != *name {
                width_all += table.column(name)?.stats.avg_width;
            }
        }

        let position = |name: &str| -> Result<usize> {
            let c = table.column(name)?;
            Ok(table
                .columns
                .iter()
                .position(|x| std::ptr::eq(x, c))
                .expect("column of this table"))
        };
        // A column whose name repeats (ignoring case) resolves to the first one.
        let all_cols: Vec<usize> = table
            .columns
            .iter()
            .map(|c| position(&c.name))
            .collect::<Result<_>>()?;
        let pk_cols: Vec<usize> = match primary {
            Some(p) => p
                .columns
                .iter()
                .map(|c| position(c))
                .collect::<Result<_>>()?,
            None => Vec::new(),
        };
        let mut indexes = Vec::with_capacity(table.indexes.len());
        for (at, def) in table.indexes.iter().enumerate() {
            // No functional or spatial indexes in this model (Index::in_mysql_model).
            if !def.in_mysql_model() {
                continue;
            }
            let istats = def.mysql.clone().ok_or_else(|| {
                Error::invalid(
                    format!("index {}", def.name),
                    "has no InnoDB statistics (mysql section)",
                )
            })?;
            let clustered = def.primary;
            let cols: Vec<usize> = def
                .columns
                .iter()
                .map(|c| position(c))
                .collect::<Result<_>>()?;
            let mut entry_cols = cols.clone();
            if !clustered {
                entry_cols.extend(pk_cols.iter().copied());
            }
            let f_idx = env
                .index_fraction(&def.name)
                .or(if clustered { env.table_in_memory } else { None })
                .unwrap_or_else(|| {
                    let size = if clustered {
                        data_bytes
                    } else {
                        stats.secondary_pages * stats.page_bytes
                    };
                    estimate_in_memory_buffer(size, env.innodb_buffer_pool_size)
                });
            let ptr = istats.key_length
                + if clustered { 0.0 } else { stats.ref_length }
                + NODE_PTR_OVERHEAD;
            let entries_per_leaf = if istats.leaf_pages >= 1.0 {
                stats.records / istats.leaf_pages
            } else {
                stats.records
            };
            // A secondary entry: key, primary key, record header (5), directory share (2).
            let entry_bytes = istats.key_length + stats.ref_length + 7.0;
            let ptrs = innodb_node_ptrs_per_page(
                ptr,
                stats.page_bytes,
                clustered,
                entries_per_leaf,
                entry_bytes,
            );
            let dive = DiveTree::new(stats.records, entries_per_leaf, ptrs);
            let covers_all = all_cols.iter().all(|c| entry_cols.contains(c));
            indexes.push(IndexBase {
                covers_all,
                at,
                stats: istats,
                name: Name::new(&def.name),
                clustered,
                cols,
                entry_cols,
                f_idx,
                dive,
            });
        }
        let name = Name::new(&table.name);
        Ok(Prepared {
            table,
            env,
            stats,
            name,
            f_tab,
            rank,
            width_all,
            indexes,
            detail: Detail::Full,
            keys: KeyNames::default(),
        })
    }

    /// Sets how much EXPLAIN text the plans carry (default [`Detail::Full`]).
    pub fn with_detail(mut self, detail: Detail) -> Prepared<'t> {
        self.detail = detail;
        self
    }

    /// Plans `query` with the knob values.
    pub fn plan(&self, query: &Query, knobs: &KnobValues) -> Result<Planned> {
        query.check(&self.table)?;
        let c = Constants::from_knobs(knobs, self.env.constants_from_tables)?;
        let cost_based_mrr = knobs.get(Knob::MrrCostBased) != 0.0;
        let mut ctx = Ctx::new(self, query, c, cost_based_mrr)?;
        ctx.analyze_ranges();
        ctx.choose()
    }

    /// Position in `Table::columns` of a column the query names (checked by Query::check).
    fn position(&self, name: &str) -> Result<usize> {
        self.table
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::UnknownColumn {
                table: self.table.name.clone(),
                column: name.to_string(),
            })
    }
}

/// Everything about the query that does not depend on the access path.
struct Ctx<'a> {
    prep: &'a Prepared<'a>,
    table: &'a Table,
    query: &'a Query,
    h: Handler<'a>,
    env: &'a MysqlEnv,
    cost_based_mrr: bool,
    /// Conjunction of the predicates per column (position), in lower-cased name order.
    conds: Vec<(usize, ColumnCond)>,
    /// Column position of each predicate, in query order.
    pred_cols: Vec<usize>,
    /// True selectivity of each predicate, in query order (for short-circuit counts).
    pred_sel: Vec<f64>,
    /// True rows matching the whole WHERE.
    true_rows_out: f64,
    indexes: Vec<IndexInfo<'a>>,
    /// Range plans per index (same order as `indexes`), None if the index has no range.
    ranges: Vec<Option<KeyRanges>>,
    width: f64,
}

/// An evaluated access path before it becomes a [`Candidate`].
struct Path {
    key: Name,
    op: &'static str,
    index: Option<usize>,
    /// The cost the choice compares (see the module docs).
    cost: f64,
    /// EXPLAIN rows.
    rows: f64,
    /// Key parts used (EXPLAIN key_len / ref).
    parts: usize,
    /// EXPLAIN filtered, 0..1.
    filtered: f64,
    /// EXPLAIN FORMAT=JSON query_cost when this path runs.
    query_cost: f64,
    /// EXPLAIN Extra items.
    extra: Extra,
    work: Work,
}

/// EXPLAIN's Extra column: "Using where" when predicates remain after the access, then the
/// access's own items. Kept as flags and a static list, not a `Vec`, because every path of
/// every sweep point carries one and only [`Detail::Full`] prints it.
#[derive(Clone, Copy)]
struct Extra {
    using_where: bool,
    tail: &'static [&'static str],
}

impl<'a> Ctx<'a> {
    fn new(
        prep: &'a Prepared<'a>,
        query: &'a Query,
        c: Constants,
        cost_based_mrr: bool,
    ) -> Result<Ctx<'a>> {
        let table: &'a Table = &prep.table;
        let h = Handler {
            stats: &prep.stats,
            c,
            f_tab: prep.f_tab,
        };

        let mut conds: Vec<(usize, ColumnCond)> = Vec::with_capacity(query.predicates.len());
        let mut pred_cols = Vec::with_capacity(query.predicates.len());
        let mut pred_sel = Vec::with_capacity(query.predicates.len());
        for p in &query.predicates {
            let cond = ColumnCond::from_predicate(p)?;
            let pos = prep.position(p.column())?;
            pred_cols.push(pos);
            pred_sel.push(cond_fraction(&table.columns[pos], &cond, table.rows));
            match conds.iter_mut().find(|(c, _)| *c == pos) {
                Some((_, old)) => *old = old.and(&cond),
                None => conds.push((pos, cond)),
            }
        }
        costlab_model::sort::sort_by_key(&mut conds, |(pos, _)| prep.rank[*pos]);
        let mut true_frac = 1.0;
        for (pos, cond) in &conds {
            true_frac *= cond_fraction(&table.columns[*pos], cond, table.rows);
        }

        // Columns the query needs; with `SELECT *` that is every column, so an index
        // covers only if its entries hold them all.
        let needed: Option<Vec<usize>> = if query.select.is_empty() {
            None
        } else {
            let mut cols = Vec::new();
            for name in query
                .select
                .iter()
                .map(String::as_str)
                .chain(query.predicates.iter().map(Predicate::column))
                .chain(query.order_by.iter().map(|k| k.column.as_str()))
            {
                cols.push(prep.position(name)?);
            }
            costlab_model::sort::sort_by_key(&mut cols, |p| prep.rank[*p]);
            cols.dedup();
            Some(cols)
        };
        let covers = |entry: &[usize], covers_all: bool| match &needed {
            Some(cols) => cols.iter().all(|c| entry.contains(c)),
            None => covers_all,
        };
        let indexes = prep
            .indexes
            .iter()
            .map(|b| IndexInfo {
                def: &table.indexes[b.at],
                stats: &b.stats,
                name: &b.name,
                clustered: b.clustered,
                cols: &b.cols,
                covering: covers(&b.entry_cols, b.covers_all),
                f_idx: b.f_idx,
                dive: &b.dive,
            })
            .collect();
        let width = match &needed {
            Some(cols) => cols.iter().map(|&c| table.columns[c].stats.avg_width).sum(),
            None => prep.width_all,
        };
        Ok(Ctx {
            prep,
            table,
            query,
            h,
            env: &prep.env,
            cost_based_mrr,
            conds,
            pred_cols,
            pred_sel,
            true_rows_out: table.rows * true_frac,
            indexes,
            ranges: Vec::new(),
            width,
        })
    }

    fn column(&self, pos: usize) -> &'a Column {
        &self.table.columns[pos]
    }

    fn cond(&self, pos: usize) -> Option<&ColumnCond> {
        self.conds.iter().find(|(c, _)| *c == pos).map(|(_, c)| c)
    }

    /// `records_per_key` for the first `parts` key parts: index statistics, else the
    /// columns' distinct counts, else the §5.2 guess (N / (N/10) = 10 rows).
    fn records_per_key(&self, idx: &IndexInfo, parts: usize) -> f64 {
        if let Some(r) = idx.stats.rec_per_key.get(parts - 1) {
            if r.is_finite() && *r > 0.0 {
                return *r;
            }
        }
        let records = self.h.records();
        let mut distinct = 1.0;
        for &c in idx.cols.iter().take(parts) {
            let d = distinct_values(&self.column(c).stats, records);
            if d <= 0.0 {
                return 10.0;
            }
            distinct *= d;
        }
        (records / distinct.min(records.max(1.0))).max(1.0)
    }

    /// MySQL's default filtering estimate of one predicate without histograms (§5.2,
    /// `COND_FILTER_EQUALITY` 0.1, `COND_FILTER_INEQUALITY` 0.3333, `COND_FILTER_BETWEEN`
    /// 0.1111; IN: 0.1 per value, at most 0.5).
    fn default_filter(p: &Predicate) -> f64 {
        match p {
            Predicate::Cmp { op: CmpOp::Eq, .. } => 0.1,
            Predicate::Cmp { .. } => 0.3333,
            Predicate::Between { .. } => 0.1111,
            Predicate::In { values, .. } => (values.len() as f64 * 0.1).min(0.5),
        }
    }

    /// Filtering effect of the predicates on `column`: the range estimate of an index led
    /// by that column when there is one (`quick_rows / records`), else the defaults.
    fn column_filter(&self, column: usize) -> f64 {
        let records = self.h.records().max(1.0);
        for (idx, r) in self.indexes.iter().zip(&self.ranges) {
            if let Some(r) = r {
                if r.parts == 1 && idx.cols[0] == column {
                    return (r.est_rows / records).min(1.0);
                }
            }
        }
        self.query
            .predicates
            .iter()
            .zip(&self.pred_cols)
            .filter(|(_, c)| **c == column)
            .map(|(p, _)| Self::default_filter(p))
            .product()
    }

    /// EXPLAIN filtered for an access that already enforces `used` columns.
    fn filtered_except(&self, used: &[usize]) -> f64 {
        self.conds
            .iter()
            .filter(|(c, _)| !used.contains(c))
            .map(|(c, _)| self.column_filter(*c))
            .product()
    }

    /// The columns of the first `parts` key parts of index `idx`.
    fn used_columns(&self, idx: usize, parts: usize) -> &'a [usize] {
        let cols = self.indexes[idx].cols;
        &cols[..parts.min(cols.len())]
    }

    /// Whether predicates remain for the server to evaluate after the access ("Using where").
    fn needs_where(&self, used: &[usize]) -> bool {
        self.conds.iter().any(|(c, _)| !used.contains(c))
    }

    /// An impossible range: MySQL stops planning and prints "Impossible WHERE".
    fn impossible(&self) -> Planned {
        let op = Name::from_static("NULL");
        let mut node = PlanNode::leaf(op, Cost::new(0.0, 0.0), 0.0, Work::default());
        if self.prep.detail.keeps_text() {
            node.details.push("Impossible WHERE".into());
        }
        Planned {
            candidates: vec![Candidate {
                key: Name::from_static("impossible"),
                plan: node,
            }],
            chosen: 0,
        }
    }

    /// The range optimizer, then best_access_path, then the post-join switch.
    fn choose(&self) -> Result<Planned> {
        if self.ranges.iter().flatten().any(|r| r.true_rows.is_empty()) {
            return Ok(self.impossible());
        }
        let mut paths: Vec<Path> = vec![self.table_scan()];
        // --- test_quick_select (§4.5) ---
        let mut best_cost = self.limit_bar().unwrap_or(paths[0].cost);
        let mut best: usize = 0; // index into `paths`; 0 = no quick, table scan
        let mut quick: Option<usize> = None;
        let covering_key = self.shortest_covering_key();
        // TS <= 2.0 skips range analysis (tiny tables; unreachable with the +2.1 fudge but
        // kept for faithfulness).
        if best_cost > 2.0 {
            if let Some(k) = covering_key {
                let p = self.covering_index_scan(k);
                if p.cost < best_cost {
                    // A bar only: it does not create a range plan.
                    best_cost = p.cost;
                }
                paths.push(p);
            }
            for (k, r) in self.ranges.iter().enumerate() {
                let Some(r) = r else { continue };
                let (mut ps, keep) = self.range_paths(k, r);
                let kept_at = paths.len() + keep;
                let kept_cost = ps[keep].cost;
                paths.append(&mut ps);
                // Strict: ties keep the table scan (or the earlier range).
                if kept_cost < best_cost {
                    best_cost = kept_cost;
                    best = kept_at;
                    quick = Some(kept_at);
                }
            }
        }
        // --- best_access_path: ref against scan/range (§5.2) ---
        let mut best_ref: Option<(usize, bool)> = None;
        for k in 0..self.indexes.len() {
            let Some((p, unique_full)) = self.ref_path(k) else {
                continue;
            };
            let at = paths.len();
            let better = match best_ref {
                None => true,
                Some((b, b_unique)) => {
                    let pk_full = unique_full && self.indexes[k].clustered;
                    let b_pk_full =
                        b_unique && paths[b].index.is_some_and(|i| self.indexes[i].clustered);
                    if b_pk_full {
                        false
                    } else if pk_full || (unique_full && !b_unique) {
                        true
                    } else if b_unique && !unique_full {
                        false
                    } else {
                        p.cost < paths[b].cost
                    }
                }
            };
            paths.push(p);
            if better {
                best_ref = Some((at, unique_full));
            }
        }
        if let Some((r, unique_full)) = best_ref {
            if unique_full || !self.scan_can_beat_ref(r, quick, &paths) {
                best = r;
            }
        }
        // --- post-join: a full scan with a covering index becomes an index scan (§4.5) ---
        if best == 0 {
            if let Some(k) = covering_key {
                if let Some(at) = paths
                    .iter()
                    .position(|p| p.op == "index" && p.index == Some(k))
                {
                    best = at;
                }
            }
        }
        Ok(Planned {
            candidates: paths.into_iter().map(|p| self.candidate(p)).collect(),
            chosen: best,
        })
    }

    fn candidate(&self, p: Path) -> Candidate {
        let details = if self.prep.detail.keeps_text() {
            self.details(&p)
        } else {
            Vec::new()
        };
        let op = Name::from_static(p.op);
        let mut node = PlanNode::leaf(op, Cost::new(0.0, p.cost), p.rows, p.work);
        node.details = details;
        node.relation = Some(self.prep.name.clone());
        node.index = p.index.map(|k| self.indexes[k].name.clone());
        node.width = self.width;
        Candidate {
            key: p.key,
            plan: node,
        }
    }

    /// The node's EXPLAIN lines: Extra items, then the `name: value` columns and the
    /// EXPLAIN FORMAT=JSON cost figures.
    fn details(&self, p: &Path) -> Vec<String> {
        let rec = self.h.c.row_evaluate_cost(1.0);
        let eval_cost = rec * p.rows * p.filtered;
        let mut details: Vec<String> = Vec::new();
        if p.extra.using_where {
            details.push("Using where".into());
        }
        details.extend(p.extra.tail.iter().map(|s| s.to_string()));
        let possible: Vec<&str> = self
            .indexes
            .iter()
            .zip(&self.ranges)
            .filter(|(i, r)| r.is_some() || self.cond(i.cols[0]).is_some())
            .map(|(i, _)| i.def.name.as_str())
            .collect();
        if !possible.is_empty() {
            details.push(format!("possible_keys: {}", possible.join(",")));
        }
        if let Some(k) = p.index {
            details.push(format!("key_len: {}", self.key_len(k, p.parts)));
            if p.op == "ref" || p.op == "const" {
                details.push(format!("ref: {}", vec!["const"; p.parts].join(",")));
            }
        }
        details.push(format!("filtered: {:.2}", p.filtered * 100.0));
        details.push(format!("read_cost: {:.2}", p.query_cost - eval_cost));
        details.push(format!("eval_cost: {:.2}", eval_cost));
        details.push(format!("query_cost: {:.2}", p.query_cost));
        details
    }

    /// EXPLAIN key_len: bytes of the used key parts (+1 per nullable part); the whole
    /// index's key_length when every part is used.
    fn key_len(&self, k: usize, parts: usize) -> f64 {
        let idx = &self.indexes[k];
        if parts >= idx.def.columns.len() {
            return idx.stats.key_length;
        }
        idx.cols
            .iter()
            .take(parts)
            .map(|&c| {
                let col = self.column(c);
                let bytes = match col.ty {
                    costlab_model::catalog::ColumnType::Int4 => 4.0,
                    costlab_model::catalog::ColumnType::Int8
                    | costlab_model::catalog::ColumnType::Float8 => 8.0,
                    costlab_model::catalog::ColumnType::Date => 3.0,
                    costlab_model::catalog::ColumnType::Bool => 1.0,
                    costlab_model::catalog::ColumnType::Point => 25.0,
                    costlab_model::catalog::ColumnType::Numeric => 8.0,
                    costlab_model::catalog::ColumnType::Char(n) => n as f64,
                    costlab_model::catalog::ColumnType::Text => 767.0,
                };
                bytes + if col.not_null { 0.0 } else { 1.0 }
            })
            .sum()
    }
}
