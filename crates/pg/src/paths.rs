//! Access paths with their plan nodes and physical work: what set_plain_rel_pathlist,
//! create_index_paths, create_bitmap_heap_path and the Gather/Sort/Limit builders make.

use costlab_model::plan::{AccessPattern, Cost, Detail, KeyNames, Name, PageReads, PlanNode, Work};

use super::costsize::{
    self, BtreeCost, BtreeInput, GatherMergeSite, NodeCost, ParallelParams, QualCost, RelSize,
};
use super::explain::{cond_text, sort_key_text};
use super::pathnodes::{clamp_row_est, ClauseKind, Consts, QualOps, Rel, BLCKSZ};
use super::settings::PgOptions;
use costlab_model::catalog::IndexMethod;
use costlab_model::knobs::EngineVersion;
use costlab_model::query::CmpOp;

/// A path: its plan (costs as EXPLAIN prints them, disable_cost included before 18)
/// and what add_path compares.
#[derive(Clone, Debug)]
pub(crate) struct Path {
    pub key: Name,
    /// Boxed: a path is moved many times as it is built, wrapped in Gather, Sort or Limit,
    /// and handed to its candidate, and a plan node is large; moving the box moves one
    /// pointer, where moving the node copied it whole each time.
    pub node: Box<PlanNode>,
    /// Rows of the path (per process for partial paths).
    pub rows: f64,
    /// Provides the query's ORDER BY.
    pub sorted: bool,
    /// Disabled nodes (PostgreSQL 18; always 0 before, where disable_cost is in the cost).
    pub disabled: u32,
    pub parallel_safe: bool,
    /// Planned workers of a partial path (0 for a complete path).
    pub workers: u32,
    /// The key a Gather over this partial path gets, when made with the table (see
    /// [`IndexKeys`](super::pathnodes::IndexKeys)); else [`Ctx::gather`] spells it.
    pub gather_key: Option<Name>,
}

impl Path {
    pub fn startup(&self) -> f64 {
        self.node.cost.startup
    }
    pub fn total(&self) -> f64 {
        self.node.cost.total
    }
    fn cost(&self) -> NodeCost {
        NodeCost {
            startup: self.startup(),
            total: self.total(),
        }
    }
}

/// Shared inputs of the builders.
pub(crate) struct Ctx<'a, 'r> {
    pub rel: &'a Rel<'r>,
    pub c: &'a Consts,
    pub version: EngineVersion,
    pub opts: &'a PgOptions,
    pub par: ParallelParams,
    /// Whether nodes get their EXPLAIN detail lines.
    pub detail: Detail,
    /// Candidate keys made so far for this table (reused rather than formatted anew).
    pub keys: &'a KeyNames,
}

/// An index scan as build_index_paths sets it up, with its btcostestimate result.
#[derive(Clone, Debug)]
pub(crate) struct IndexScan {
    pub idx: usize,
    /// Index quals in index-column order.
    pub quals: Vec<usize>,
    /// The other restriction clauses, checked on each fetched row.
    pub qpquals: Vec<usize>,
    pub bt: BtreeCost,
    pub sorted: bool,
    pub backward: bool,
    pub indexonly: bool,
    /// btcost_correlation's figure, for the cost (x0.75 for multi-column indexes).
    pub correlation: f64,
    /// The leading column's correlation itself: how the heap really lies in index order,
    /// for the work (the 0.75 is the cost model's caution, not the table's layout).
    pub heap_correlation: f64,
    /// ORDER BY operators the index evaluates (a GiST kNN scan: 1, the distance to the
    /// query's point on each index entry it reads); 0 for a btree.
    pub order_bys: usize,
}

/// A node without relation, index, details or children (the builders add them). Written
/// as one literal so that `Box::new(node(..))` can build it in its box.
#[inline(always)]
fn node(op: &'static str, cost: NodeCost, rows: f64, width: f64, work: Work) -> PlanNode {
    PlanNode {
        op: Name::from_static(op),
        relation: None,
        index: None,
        details: Vec::new(),
        cost: Cost::new(cost.startup, cost.total),
        rows,
        width,
        work,
        children: Vec::new(),
    }
}

fn reads(
    object: &Name,
    object_pages: f64,
    pattern: AccessPattern,
    requests: f64,
    distinct: f64,
) -> PageReads {
    PageReads {
        object: object.clone(),
        object_pages,
        page_bytes: BLCKSZ,
        pattern,
        requests,
        distinct,
        span_pages: None,
    }
}

/// Makes `child` the only child of `n`. `vec![child]` allocates room for exactly one
/// node, where pushing onto the empty list would reserve four (a Vec's first growth for
/// elements of this size), about a kilobyte per node at every sweep point.
fn set_child(n: &mut PlanNode, child: PlanNode) {
    n.children = vec![child];
}

/// Puts `parent` in the box of the node it wraps, with that node as its only child: a
/// Gather, Gather Merge, Sort or Limit takes over its input's allocation rather than
/// making one more at every sweep point.
fn wrap(mut boxed: Box<PlanNode>, parent: PlanNode) -> Box<PlanNode> {
    let child = std::mem::replace(&mut *boxed, parent);
    set_child(&mut boxed, child);
    boxed
}

/// Expected distinct pages among `n` uniformly random page requests on `t` pages.
pub(crate) fn expected_distinct(t: f64, n: f64) -> f64 {
    if t <= 1.0 {
        return t.min(n).max(0.0);
    }
    (t * (1.0 - (1.0 - 1.0 / t).powf(n))).min(n)
}

impl Ctx<'_, '_> {
    /// Adds an EXPLAIN detail line, formatted only when the plan keeps details.
    fn detail(&self, node: &mut PlanNode, line: impl FnOnce() -> String) {
        if self.detail.keeps_text() {
            node.details.push(line());
        }
    }

    fn rel_size(&self) -> RelSize {
        RelSize {
            pages: self.rel.pages,
            tuples: self.rel.tuples,
            rows: self.rel.rows,
            total_table_pages: self.rel.total_table_pages,
        }
    }

    fn qual_cost(&self, ops: QualOps) -> QualCost {
        QualCost {
            startup: ops.startup * self.c.cpu_operator_cost,
            per_tuple: ops.per_tuple * self.c.cpu_operator_cost,
        }
    }

    /// disable_cost before 18, a disabled-node count from 18 on (spec 10).
    fn disable(&self, enabled: bool) -> (f64, u32) {
        match (enabled, costsize::uses_disabled_nodes(self.version)) {
            (true, _) => (0.0, 0),
            (false, false) => (costsize::DISABLE_COST, 0),
            (false, true) => (0.0, 1),
        }
    }

    fn disabled_detail(&self, node: &mut PlanNode, disabled: u32) {
        if disabled > 0 {
            self.detail(node, || "Disabled: true".into());
        }
    }

    fn relation_node(&self, node: &mut PlanNode) {
        node.relation = Some(self.rel.name.clone());
    }

    /// Seq Scan, or Parallel Seq Scan with `workers` (spec 3).
    pub fn seq_path(&self, workers: u32) -> Path {
        let rel = self.rel;
        let (dc, disabled) = self.disable(self.opts.enable_seqscan);
        let q = self.qual_cost(rel.restrict_ops);
        let divisor = (workers > 0).then(|| self.par.divisor(workers));
        let mut cost = costsize::cost_seqscan(
            self.c,
            rel.pages,
            rel.tuples,
            q.startup,
            q.per_tuple,
            divisor,
        );
        cost.startup += dc;
        cost.total += dc;
        let rows = match divisor {
            Some(d) => clamp_row_est(rel.rows / d),
            None => rel.rows,
        };
        let work = Work {
            page_reads: vec![reads(
                &rel.name,
                rel.pages,
                AccessPattern::Sequential,
                rel.pages,
                rel.pages,
            )],
            rows_examined: rel.tuples,
            operator_evals: rel.tuples * rel.restrict_ops.per_tuple + rel.restrict_ops.startup,
            rows_out: rel.rows,
            workers: workers as f64,
            function_calls: rel.clause_calls(rel.clause_ids(), rel.tuples),
            ..Work::default()
        };
        let op = if workers > 0 {
            "Parallel Seq Scan"
        } else {
            "Seq Scan"
        };
        let mut n = Box::new(node(op, cost, rows, rel.width, work));
        self.relation_node(&mut n);
        if !rel.clauses.is_empty() {
            self.detail(&mut n, || {
                let all: Vec<usize> = rel.clause_ids().collect();
                format!("Filter: {}", cond_text(rel, &all))
            });
        }
        self.disabled_detail(&mut n, disabled);
        Path {
            key: Name::from_static("seq"),
            node: n,
            rows,
            sorted: rel.pathkeys.is_empty(),
            disabled,
            parallel_safe: true,
            workers,
            gather_key: Some(Name::from_static("gather-seq")),
        }
    }

    /// build_index_paths for one btree (spec 4.1, 15 step 4): which clauses become
    /// index quals, whether the order is useful, whether it can be index-only.
    /// None when PostgreSQL would not build a path.
    pub fn index_scan(&self, idx: usize) -> Option<IndexScan> {
        let rel = self.rel;
        let ix = &rel.indexes[idx];
        let indexonly =
            self.opts.enable_indexonlyscan && rel.needed.iter().all(|c| ix.covers.contains(c));
        // No clause on a key column, no ORDER BY to provide, not index-only: no path. Most
        // indexes of a table are like that for any one query, so say so before the work
        // (and the allocations) below; the full test further down gives the same answer.
        if !indexonly
            && rel.pathkeys.is_empty()
            && !rel.clauses.iter().any(|cl| ix.keys.contains(&cl.col))
        {
            return None;
        }
        if ix.method == IndexMethod::Gist {
            return self.gist_scan(idx, indexonly);
        }
        // match_clauses_to_index: clauses on any key column, grouped by column in key
        // order (a column listed twice gets its clauses at its first place). The boundary
        // quals, `=` columns from the front then the first non-`=` column, are a prefix
        // of them.
        let key_of = |col: usize| ix.keys.iter().position(|&c| c == col);
        let mut quals: Vec<usize> = Vec::with_capacity(rel.clauses.len());
        let mut boundary_len = 0;
        let mut boundary_open = true;
        let mut first_col_quals = 0;
        let mut last_col = None;
        let mut eq_here = false;
        let mut found_saop = false;
        for k in 0..ix.keys.len() {
            let start = quals.len();
            quals.extend(
                rel.clauses
                    .iter()
                    .enumerate()
                    .filter(|(_, cl)| key_of(cl.col) == Some(k))
                    .map(|(i, _)| i),
            );
            if k == 0 {
                first_col_quals = quals.len();
            }
            if !boundary_open {
                continue;
            }
            if quals.len() == start {
                boundary_open = false;
                continue;
            }
            eq_here = false;
            for &i in &quals[start..] {
                let cl = &rel.clauses[i];
                if cl.is_eq() {
                    eq_here = true;
                }
                if cl.array_len().is_some() {
                    found_saop = true;
                }
            }
            boundary_len = quals.len();
            last_col = Some(k);
            if !eq_here {
                boundary_open = false;
            }
        }
        let boundary = &quals[..boundary_len];
        let qpquals: Vec<usize> = rel.clause_ids().filter(|i| !quals.contains(i)).collect();
        let unique_all_eq =
            ix.unique && last_col == Some(ix.keys.len() - 1) && eq_here && !found_saop;
        let sa = |ids: &[usize]| -> f64 {
            ids.iter()
                .filter_map(|&i| rel.clauses[i].array_len())
                .filter(|&n| n > 1.0)
                .product::<f64>()
        };

        // Useful ordering: index keys minus columns equated to constants must start
        // with the query's ORDER BY, all ascending (forward) or all descending (backward).
        let pk = &rel.pathkeys;
        let mut sorted = false;
        let mut backward = false;
        if !pk.is_empty() {
            let equated = |col: usize| {
                rel.clauses
                    .iter()
                    .any(|c| c.col == col && matches!(c.kind, ClauseKind::Op { op: CmpOp::Eq, .. }))
            };
            let mut index_keys = ix.keys.iter().copied().filter(|&c| !equated(c));
            if pk.iter().all(|&(c, _)| index_keys.next() == Some(c)) {
                let all_desc = pk.iter().all(|(_, d)| *d);
                let all_asc = pk.iter().all(|(_, d)| !*d);
                sorted = all_asc || all_desc;
                backward = all_desc;
            }
        }
        // Before 17 an IN list on a later index column loses the index order.
        if self.version < EngineVersion::Pg17
            && quals[first_col_quals..]
                .iter()
                .any(|&i| rel.clauses[i].array_len().is_some())
        {
            sorted = false;
            backward = false;
        }
        if quals.is_empty() && !sorted && !indexonly {
            return None;
        }

        // Usually every qual is a boundary qual; the figures over both lists are then the
        // same, and computed once.
        let btree_selectivity = super::selfuncs::clauselist_selectivity(rel, boundary);
        let boundary_sa_scans = sa(boundary);
        let all_quals = boundary.len() == quals.len();
        let input = BtreeInput {
            index_pages: ix.pages,
            index_tuples: ix.tuples,
            tree_height: ix.tree_height,
            rel_tuples: rel.tuples,
            total_table_pages: rel.total_table_pages,
            n_index_quals: quals.len() as f64,
            boundary_sa_scans,
            all_sa_scans: if all_quals {
                boundary_sa_scans
            } else {
                sa(&quals)
            },
            unique_all_eq,
            btree_selectivity,
            index_selectivity: if all_quals {
                btree_selectivity
            } else {
                super::selfuncs::clauselist_selectivity(rel, &quals)
            },
        };
        let bt = costsize::btcostestimate(self.c, self.version, &input);
        // btcost_correlation: leading column, x0.75 for multi-column indexes.
        let lead = &rel.cols[ix.keys[0]];
        let heap_correlation = if lead.has_stats {
            lead.stats.correlation
        } else {
            0.0
        };
        let mut correlation = heap_correlation;
        if ix.keys.len() > 1 {
            correlation *= 0.75;
        }
        Some(IndexScan {
            idx,
            quals,
            qpquals,
            bt,
            sorted,
            backward,
            indexonly,
            correlation,
            heap_correlation,
            order_bys: 0,
        })
    }

    /// build_index_paths for a GiST index over points. No clause of the model is an
    /// operator of point_ops, so there are no index quals; the scan is useful for an
    /// ORDER BY `key <-> point` (match_pathkeys_to_index: the query's only ORDER BY item,
    /// ascending, which the join planner maps to a pathkey on the key) or as an
    /// index-only scan. gistcostestimate reads the whole index either way; a kNN scan
    /// under a LIMIT stops early through the Limit's fraction. correlation is 0
    /// (genericcostestimate sets no correlation).
    fn gist_scan(&self, idx: usize, indexonly: bool) -> Option<IndexScan> {
        let rel = self.rel;
        let ix = &rel.indexes[idx];
        let sorted = matches!(rel.pathkeys.as_slice(), [(c, false)] if ix.keys.first() == Some(c));
        if !sorted && !indexonly {
            return None;
        }
        let order_bys = usize::from(sorted);
        let bt = costsize::gistcostestimate(
            self.c,
            ix.pages,
            ix.tuples,
            ix.tree_height,
            order_bys as f64,
        );
        Some(IndexScan {
            idx,
            quals: Vec::new(),
            qpquals: rel.clause_ids().collect(),
            bt,
            sorted,
            backward: false,
            indexonly,
            correlation: 0.0,
            heap_correlation: 0.0,
            order_bys,
        })
    }

    /// Index page reads of one index scan: root-to-leaf descents (random) and the
    /// leaf pages walked in key order after the first (taken as sequential: a btree
    /// built in one go lays its leaves out in key order). The cost's index pages count
    /// the first leaf, which the descent has read already.
    /// Room is left for the two heap reads an index scan adds.
    fn index_reads(&self, s: &IndexScan) -> Vec<PageReads> {
        let ix = &self.rel.indexes[s.idx];
        // A GiST scan visits pages by a priority queue (by distance for kNN), not in
        // the order they lie on disk.
        let walk = match ix.method {
            IndexMethod::Btree => AccessPattern::Sequential,
            IndexMethod::Gist => AccessPattern::Random,
        };
        let levels = (ix.tree_height + 1.0).max(1.0);
        let sa = s.bt.num_sa_scans;
        let mut v = Vec::with_capacity(4);
        v.extend([
            reads(
                &ix.name,
                ix.pages,
                AccessPattern::Random,
                levels * sa,
                (levels - 1.0 + sa).min(ix.pages.max(1.0)),
            ),
            reads(
                &ix.name,
                ix.pages,
                walk,
                (s.bt.num_index_pages - 1.0).max(0.0) * sa,
                ((s.bt.num_index_pages - 1.0).max(0.0) * sa).min(ix.pages.max(1.0)),
            ),
        ]);
        v
    }

    /// Index entries read and operator calls on them (quals plus descent comparisons).
    fn index_cpu(&self, s: &IndexScan) -> (f64, f64) {
        let entries = s.bt.num_index_tuples * s.bt.num_sa_scans;
        let evals = entries * (s.quals.len() + s.order_bys) as f64
            + s.bt.descent_comparisons * s.bt.num_sa_scans;
        (entries, evals)
    }

    /// Index Scan / Index Only Scan, optionally partial (spec 5).
    pub fn index_path(&self, s: &IndexScan, partial: bool) -> Option<Path> {
        let rel = self.rel;
        let ix = &rel.indexes[s.idx];
        // Index-only scans are disabled by not building them; enable_indexscan covers both.
        let (dc, disabled) = self.disable(self.opts.enable_indexscan);
        let visible = s.indexonly.then_some(rel.allvisfrac);
        let cost = costsize::cost_index(
            self.c,
            &s.bt,
            self.rel_size(),
            ix.pages,
            s.correlation,
            visible,
            self.qual_cost(rel.qual_ops(&s.qpquals)),
            dc,
            partial.then_some(&self.par),
        )?;

        // Heap page requests: one per fetched tuple when uncorrelated, one per page
        // when correlated; interpolated with correlation squared like the cost, but the
        // heap's own correlation (see `heap_correlation`).
        let t = rel.pages;
        let heap_share = 1.0 - visible.unwrap_or(0.0);
        let c2 = s.heap_correlation * s.heap_correlation;
        let random_requests = cost.tuples_fetched * heap_share * (1.0 - c2);
        let seq_requests = cost.min_pages * heap_share * c2;
        let mut page_reads = self.index_reads(s);
        if random_requests > 0.0 {
            page_reads.push(reads(
                &rel.name,
                t,
                AccessPattern::Random,
                random_requests,
                expected_distinct(t, random_requests).min(cost.max_pages.max(1.0)),
            ));
        }
        if seq_requests > 0.0 {
            page_reads.push(reads(
                &rel.name,
                t,
                AccessPattern::Sequential,
                seq_requests,
                seq_requests.min(t),
            ));
        }
        let (entries, evals) = self.index_cpu(s);
        let qp = rel.qual_ops(&s.qpquals);
        let work = Work {
            page_reads,
            rows_examined: cost.tuples_fetched,
            index_entries: entries,
            operator_evals: evals + cost.tuples_fetched * qp.per_tuple + qp.startup,
            rows_out: rel.rows,
            workers: cost.workers as f64,
            function_calls: rel.clause_calls(s.qpquals.iter().copied(), cost.tuples_fetched),
            ..Work::default()
        };
        let op = match (partial, s.indexonly, s.backward) {
            (false, false, false) => "Index Scan",
            (false, false, true) => "Index Scan Backward",
            (false, true, false) => "Index Only Scan",
            (false, true, true) => "Index Only Scan Backward",
            (true, false, false) => "Parallel Index Scan",
            (true, false, true) => "Parallel Index Scan Backward",
            (true, true, false) => "Parallel Index Only Scan",
            (true, true, true) => "Parallel Index Only Scan Backward",
        };
        let mut n = Box::new(node(op, cost.cost, cost.rows, rel.width, work));
        self.relation_node(&mut n);
        n.index = Some(ix.name.clone());
        if !s.quals.is_empty() {
            self.detail(&mut n, || {
                format!("Index Cond: {}", cond_text(rel, &s.quals))
            });
        }
        if !s.qpquals.is_empty() {
            self.detail(&mut n, || format!("Filter: {}", cond_text(rel, &s.qpquals)));
        }
        self.disabled_detail(&mut n, disabled);
        let keys = &ix.path_keys();
        let (key, gather_key) = if s.indexonly {
            (&keys.indexonly, &keys.gather_indexonly)
        } else {
            (&keys.index, &keys.gather_index)
        };
        Some(Path {
            key: key.clone(),
            node: n,
            rows: cost.rows,
            sorted: s.sorted || rel.pathkeys.is_empty(),
            disabled,
            parallel_safe: true,
            workers: cost.workers,
            // Only a partial path is ever gathered; a complete one needs no second key.
            gather_key: partial.then(|| gather_key.clone()),
        })
    }

    /// Whether an index path may feed a bitmap (get_index_paths): unordered, or
    /// selective.
    pub fn bitmap_eligible(&self, s: &IndexScan) -> bool {
        !s.sorted || s.bt.selectivity < 1.0
    }

    /// cost_bitmap_tree_node / cost_bitmap_and_node over the chosen index scans
    /// (spec 6.1, 6.2): (cost, selectivity).
    pub fn bitmap_tree_cost(&self, scans: &[&IndexScan]) -> (f64, f64) {
        if scans.len() == 1 {
            let s = scans[0];
            return (
                costsize::cost_bitmap_tree_node(self.c, s.bt.total, self.rel.rows),
                s.bt.selectivity,
            );
        }
        let mut total = 0.0;
        let mut selec = 1.0;
        for (k, s) in scans.iter().enumerate() {
            selec *= s.bt.selectivity;
            total += costsize::cost_bitmap_tree_node(self.c, s.bt.total, self.rel.rows);
            if k > 0 {
                total += 100.0 * self.c.cpu_operator_cost;
            }
        }
        (total, selec)
    }

    /// Estimated total of a (non-parallel) bitmap heap scan over `scans`, the measure
    /// choose_bitmap_and minimizes (bitmap_scan_cost_est / bitmap_and_cost_est).
    pub fn bitmap_cost_est(&self, scans: &[&IndexScan]) -> f64 {
        let (tree, sel) = self.bitmap_tree_cost(scans);
        let bp = costsize::compute_bitmap_pages(self.c, sel, self.rel_size());
        let (dc, _) = self.disable(self.opts.enable_bitmapscan);
        costsize::cost_bitmap_heap_scan(
            self.c,
            tree,
            &bp,
            self.rel_size(),
            self.qual_cost(self.rel.restrict_ops),
            dc,
            None,
        )
        .0
        .total
    }

    /// The Bitmap Index Scan node under a bitmap heap scan (spec 6.5): its cost is the
    /// index's total only, its rows come from the index quals.
    fn bitmap_index_node(&self, s: &IndexScan) -> PlanNode {
        let ix = &self.rel.indexes[s.idx];
        let rows = clamp_row_est(s.bt.selectivity * self.rel.tuples);
        let (entries, evals) = self.index_cpu(s);
        let work = Work {
            page_reads: self.index_reads(s),
            index_entries: entries,
            operator_evals: evals,
            rows_out: rows,
            ..Work::default()
        };
        let mut n = node(
            "Bitmap Index Scan",
            NodeCost {
                startup: 0.0,
                total: s.bt.total,
            },
            rows,
            0.0,
            work,
        );
        n.index = Some(ix.name.clone());
        if !s.quals.is_empty() {
            self.detail(&mut n, || {
                format!("Index Cond: {}", cond_text(self.rel, &s.quals))
            });
        }
        n
    }

    /// Bitmap Heap Scan over one index or a BitmapAnd, optionally partial (spec 6).
    pub fn bitmap_path(&self, scans: &[&IndexScan], partial: bool) -> Option<Path> {
        let rel = self.rel;
        let (tree, sel) = self.bitmap_tree_cost(scans);
        let bp = costsize::compute_bitmap_pages(self.c, sel, self.rel_size());
        let mut workers = 0;
        if partial {
            workers = costsize::compute_parallel_worker(
                bp.pages_fetched,
                -1.0,
                self.par.max_workers,
                self.par.min_table_pages,
                self.par.min_index_pages,
            );
            if workers == 0 {
                return None;
            }
        }
        let (dc, disabled) = self.disable(self.opts.enable_bitmapscan);
        let (cost, rows) = costsize::cost_bitmap_heap_scan(
            self.c,
            tree,
            &bp,
            self.rel_size(),
            self.qual_cost(rel.restrict_ops),
            dc,
            partial.then(|| self.par.divisor(workers)),
        );
        let child = if scans.len() == 1 {
            self.bitmap_index_node(scans[0])
        } else {
            let mut and = node(
                "BitmapAnd",
                NodeCost {
                    startup: tree,
                    total: tree,
                },
                clamp_row_est(sel * rel.tuples),
                0.0,
                Work {
                    rows_out: clamp_row_est(sel * rel.tuples),
                    ..Work::default()
                },
            );
            and.children = scans.iter().map(|s| self.bitmap_index_node(s)).collect();
            and
        };
        // Heap pages the bitmap really visits. The cost counts them as if the matching rows
        // were scattered (compute_bitmap_pages ignores correlation); rows stored in key
        // order sit on ceil(sel x pages) pages. Interpolated with correlation squared, as
        // the index scan's heap pages are (for a BitmapAnd, the least correlated index).
        let corr = scans
            .iter()
            .map(|s| s.heap_correlation.abs())
            .fold(f64::INFINITY, f64::min)
            .min(1.0);
        let c2 = if corr.is_finite() { corr * corr } else { 0.0 };
        let packed = (sel * rel.pages).ceil().clamp(1.0, rel.pages.max(1.0));
        let heap_pages = if bp.pages_fetched > packed {
            packed + (bp.pages_fetched - packed) * (1.0 - c2)
        } else {
            bp.pages_fetched
        };
        // The pages lie within a run of the table: the packed pages when the rows are in
        // key order, the whole table when they are scattered, interpolated alike (what
        // PostgreSQL 18's combined reads turn into sequential reading).
        let span = packed + (rel.pages - packed).max(0.0) * (1.0 - c2);
        let mut heap = reads(
            &rel.name,
            rel.pages,
            AccessPattern::Sorted,
            heap_pages,
            heap_pages,
        );
        heap.span_pages = Some(span.max(heap_pages));
        let work = Work {
            page_reads: vec![heap],
            rows_examined: bp.tuples_fetched,
            operator_evals: bp.tuples_fetched * rel.restrict_ops.per_tuple
                + rel.restrict_ops.startup,
            rows_out: rel.rows,
            workers: workers as f64,
            // The bitmap's own conditions are rechecked only on lossy pages.
            function_calls: rel.clause_calls(
                rel.clause_ids()
                    .filter(|i| !scans.iter().any(|s| s.quals.contains(i))),
                bp.tuples_fetched,
            ),
            ..Work::default()
        };
        let op = if partial {
            "Parallel Bitmap Heap Scan"
        } else {
            "Bitmap Heap Scan"
        };
        let mut n = Box::new(node(op, cost, rows, rel.width, work));
        self.relation_node(&mut n);
        // The clause lists are only for the detail lines; a plan without them skips both.
        if self.detail.keeps_text() {
            let mut recheck: Vec<usize> = scans.iter().flat_map(|s| s.quals.clone()).collect();
            costlab_model::sort::sort_by(&mut recheck, usize::cmp);
            let filter: Vec<usize> = rel.clause_ids().filter(|i| !recheck.contains(i)).collect();
            if !recheck.is_empty() {
                self.detail(&mut n, || {
                    format!("Recheck Cond: {}", cond_text(rel, &recheck))
                });
            }
            if !filter.is_empty() {
                self.detail(&mut n, || format!("Filter: {}", cond_text(rel, &filter)));
            }
        }
        self.disabled_detail(&mut n, disabled);
        set_child(&mut n, child);
        let (key, gather_key) = match scans {
            [s] => {
                let keys = &rel.indexes[s.idx].path_keys();
                (
                    keys.bitmap.clone(),
                    partial.then(|| keys.gather_bitmap.clone()),
                )
            }
            _ => {
                let mut key_parts: Vec<&str> = vec!["bitmap:"];
                for (k, s) in scans.iter().enumerate() {
                    if k > 0 {
                        key_parts.push("+");
                    }
                    key_parts.push(&rel.indexes[s.idx].name);
                }
                (self.keys.get(&key_parts), None)
            }
        };
        Some(Path {
            key,
            node: n,
            rows,
            sorted: rel.pathkeys.is_empty(),
            disabled,
            parallel_safe: true,
            workers,
            gather_key,
        })
    }

    /// Gather over a partial path (spec 3.2). Takes the partial path whole: its node
    /// becomes the child (moved, not copied; a caller that keeps the path clones it).
    pub fn gather(&self, sub: Path) -> Path {
        let d = self.par.divisor(sub.workers);
        let rows = costsize::gather_rows(self.version, self.rel.rows, sub.rows, d);
        let cost = costsize::cost_gather(self.c, sub.cost(), rows);
        let work = Work {
            rows_out: rows,
            rows_transferred: rows,
            workers: sub.workers as f64,
            ..Work::default()
        };
        let mut n = node("Gather", cost, rows, sub.node.width, work);
        self.detail(&mut n, || format!("Workers Planned: {}", sub.workers));
        let key = sub
            .gather_key
            .unwrap_or_else(|| self.keys.get(&["gather-", &sub.key]));
        let n = wrap(sub.node, n);
        Path {
            key,
            node: n,
            rows,
            sorted: self.rel.pathkeys.is_empty(),
            disabled: sub.disabled,
            parallel_safe: false,
            workers: 0,
            gather_key: None,
        }
    }

    /// Gather Merge over a sorted partial path (spec 3.2), built at `site`; the path is
    /// taken whole like [`Ctx::gather`]'s.
    pub fn gather_merge(
        &self,
        sub: Path,
        workers: u32,
        inner_key: &str,
        site: GatherMergeSite,
    ) -> Path {
        let d = self.par.divisor(workers);
        let rows =
            costsize::gather_merge_rows(self.version, site, self.rel.rows, sub.rows, workers, d);
        let cost = costsize::cost_gather_merge(self.c, sub.cost(), rows, workers);
        let work = Work {
            rows_out: rows,
            rows_transferred: rows,
            workers: workers as f64,
            comparisons: rows * costsize::log2_sort(workers as f64 + 1.0),
            ..Work::default()
        };
        let mut n = node("Gather Merge", cost, rows, sub.node.width, work);
        self.detail(&mut n, || format!("Workers Planned: {workers}"));
        let n = wrap(sub.node, n);
        Path {
            key: self.keys.get(&["gather-merge-", inner_key]),
            node: n,
            rows,
            sorted: true,
            disabled: sub.disabled,
            parallel_safe: false,
            workers: 0,
            gather_key: None,
        }
    }

    /// Sort on the query's ORDER BY (spec 8.1); `limit_tuples` <= 0 for none. The input
    /// path is taken whole like [`Ctx::gather`]'s.
    pub fn sort(&self, sub: Path, limit_tuples: f64) -> Path {
        let s = costsize::cost_tuplesort(self.c, sub.rows, sub.node.width, limit_tuples);
        let (dc, disabled) = self.disable(self.opts.enable_sort);
        let cost = costsize::cost_sort(sub.total(), &s, dc);
        let work = Work {
            rows_out: sub.rows,
            comparisons: s.comparisons,
            spill_bytes: s.spill_bytes,
            workers: sub.workers as f64,
            ..Work::default()
        };
        let mut n = node("Sort", cost, sub.rows, sub.node.width, work);
        self.detail(&mut n, || format!("Sort Key: {}", sort_key_text(self.rel)));
        self.disabled_detail(&mut n, disabled);
        let key = self.keys.get(&["sort(", &sub.key, ")"]);
        let n = wrap(sub.node, n);
        Path {
            key,
            node: n,
            rows: sub.rows,
            sorted: true,
            disabled: sub.disabled + disabled,
            parallel_safe: sub.parallel_safe,
            workers: sub.workers,
            gather_key: None,
        }
    }

    /// Limit (spec 8.3). The input stops early: its streaming work is scaled by the
    /// fraction of rows taken. The input path is taken whole like [`Ctx::gather`]'s.
    pub fn limit(&self, sub: Path, count: f64) -> Path {
        let (cost, rows) = costsize::cost_limit(sub.cost(), sub.rows, count);
        let key = self.keys.get(&["limit(", &sub.key, ")"]);
        let mut child = sub.node;
        if sub.rows > 0.0 {
            scale_streaming_work(&mut child, (rows / sub.rows).min(1.0));
        }
        let work = Work {
            rows_out: rows,
            ..Work::default()
        };
        let width = child.width;
        let n = wrap(child, node("Limit", cost, rows, width, work));
        Path {
            key,
            node: n,
            rows,
            sorted: sub.sorted,
            disabled: sub.disabled,
            parallel_safe: sub.parallel_safe,
            workers: 0,
            gather_key: None,
        }
    }
}

/// Scales the work a node does while streaming rows to a Limit. Blocking work stays
/// whole: a Sort reads all its input, a bitmap is built completely, an index scan
/// always descends once.
pub(crate) fn scale_streaming_work(n: &mut PlanNode, f: f64) {
    match n.op.as_str() {
        "Sort" => {
            n.work.rows_out *= f;
        }
        "Bitmap Heap Scan" | "Parallel Bitmap Heap Scan" => {
            scale_work(&mut n.work, f);
        }
        op => {
            let is_index = op.contains("Index Scan") || op.contains("Index Only Scan");
            let descents: Vec<PageReads> = if is_index {
                n.work
                    .page_reads
                    .iter()
                    .filter(|r| {
                        Some(&r.object) == n.index.as_ref() && r.pattern == AccessPattern::Random
                    })
                    // The descent comes first; a GiST scan's other random reads are its
                    // page walk, which stops with the scan.
                    .take(1)
                    .cloned()
                    .collect()
            } else {
                Vec::new()
            };
            scale_work(&mut n.work, f);
            for d in descents {
                if let Some(r) = n
                    .work
                    .page_reads
                    .iter_mut()
                    .find(|r| r.object == d.object && r.pattern == d.pattern)
                {
                    *r = d;
                }
            }
            for c in &mut n.children {
                scale_streaming_work(c, f);
            }
        }
    }
}

fn scale_work(w: &mut Work, f: f64) {
    for r in &mut w.page_reads {
        r.requests *= f;
        r.distinct *= f;
    }
    w.rows_examined *= f;
    w.index_entries *= f;
    w.operator_evals *= f;
    w.function_calls *= f;
    w.rows_out *= f;
    w.rows_transferred *= f;
}
