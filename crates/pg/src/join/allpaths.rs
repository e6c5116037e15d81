//! Base relations' sizes and paths (allpaths.c's set_base_rel_sizes and
//! set_base_rel_pathlists): the single-table model given each table's predicates, then
//! the one-table planner's paths (`crate::paths`) made join paths, with pathkeys, true
//! rows and the parameterized index paths `indxpath` adds.

use smallvec::SmallVec;

use crate::costsize::ParallelParams;
use crate::pathnodes::{clamp_row_est, Rel};
use crate::paths;
use costlab_model::block::{ColRef, QueryBlock};
use costlab_model::catalog::Value;
use costlab_model::error::{Error, Result};
use costlab_model::plan::Detail;
use costlab_model::query::{CmpOp, OrderKey, Predicate, Query};

use super::executor_work;
use super::executor_work::{heap_order, in_index_order};
use super::explain::order_by_line;
use super::indxpath::handed_up_columns;
use super::model::{add_partial_path, add_path, JPath, Node, Rescan, TrueRows};
use super::pathnodes::*;
use super::subselect::{self, PARAM_PLACEHOLDER};

impl<'a> Planner<'a> {
    /// The single-table planner over `rel`, with the block's parallel limits (`par`; no
    /// workers: complete paths only).
    pub(crate) fn ctx<'r>(
        &'r self,
        rel: &'r Rel<'a>,
        par: Option<ParallelParams>,
    ) -> paths::Ctx<'r, 'a> {
        paths::Ctx {
            rel,
            c: &self.jc.c,
            version: self.version,
            opts: &self.opts,
            par: par.unwrap_or(ParallelParams {
                max_workers: 0,
                leader_participation: self.opts.parallel_leader_participation,
                min_table_pages: self.opts.min_parallel_table_scan_size,
                min_index_pages: self.opts.min_parallel_index_scan_size,
            }),
            detail: Detail::Full,
            keys: &self.keys,
        }
    }

    /// parallelModeOK's limits: None when max_parallel_workers_per_gather is 0.
    pub(crate) fn parallel(&self) -> Option<ParallelParams> {
        let w = self.jc.c.max_parallel_workers_per_gather;
        (w > 0).then_some(ParallelParams {
            max_workers: w,
            leader_participation: self.opts.parallel_leader_participation,
            min_table_pages: self.opts.min_parallel_table_scan_size,
            min_index_pages: self.opts.min_parallel_index_scan_size,
        })
    }

    /// A single-table path as a join input: alias, the block's extra filter costs, rows.
    /// A partial path (`p.workers` > 0) is one participant's: its rows and the filters'
    /// CPU divided by the parallel divisor, as cost_seqscan and cost_index divide theirs.
    /// `safe`: the relation's consider_parallel.
    pub(crate) fn pg_path(
        &self,
        br: &BaseRel,
        p: paths::Path,
        pathkeys: Vec<usize>,
        safe: bool,
    ) -> JPath {
        let disabled = p.disabled;
        let p_workers = p.workers;
        let divisor = if p_workers > 0 {
            crate::costsize::get_parallel_divisor(
                p_workers,
                self.opts.parallel_leader_participation,
            )
        } else {
            1.0
        };
        let mut node = *p.node;
        let examined = node.work.rows_examined;
        let cop = self.jc.cop();
        let is_index = node.op.contains("Index");
        let mut add_startup = br.extra.startup;
        let mut add_run = br.extra.per_tuple * examined;
        if self.db.handed_up() && node.op.contains("Index Only Scan") {
            // The series' regression (0006): use_physical_tlist refuses a path that emits
            // an indexed expression's value, so an index-only scan of an expression index
            // projects every row it returns (one evaluation per row, ExecProject), where
            // stock returns the index tuple as it is. The planner does not price it. (The
            // seed: the node went from 15.3 to 17.9-19.2 ms over 300k rows, 9-13 ns a row;
            // one evaluation at a built-in profile's 10-16 ns. Counting one per output
            // column doubled that here.)
            if let RelKind::Table { rel, .. } = &br.kind {
                let ix = node.index.as_ref();
                let on_expression = rel.indexes.iter().any(|i| {
                    Some(&i.name) == ix && i.keys.iter().any(|&k| rel.cols[k].expression.is_some())
                });
                if on_expression {
                    node.work.operator_evals += node.work.rows_out;
                }
            }
        }
        if is_index {
            // The single-table index path charges only its own clauses.
            add_startup += br.filter_ops.startup * cop;
            add_run += br.filter_ops.per_tuple * cop * examined;
            node.work.operator_evals += br.filter_ops.per_tuple * examined;
        }
        add_run /= divisor;
        node.cost.startup += add_startup;
        node.cost.total += add_startup + add_run;
        node.relation = Some(br.alias.clone());
        let rows = if p_workers > 0 {
            clamp_row_est(br.rows / divisor)
        } else {
            br.rows
        };
        node.rows = rows;
        node.width = br.width;
        node.work.rows_out = br.rows;
        node.work.function_calls += executor_work::scan_function_calls(&br.filters, br.rows);
        for t in &br.filter_text {
            node.details.push(format!("Filter: {t}"));
        }
        let b_safe = safe;
        JPath {
            startup: node.cost.startup,
            total: node.cost.total,
            rows,
            width: br.width,
            param: 0,
            rescan: Rescan::Same,
            can_mark: is_index,
            // A partial path's true rows are one participant's, like its estimate.
            node: Node::with_true_rows(Node::leaf(node), TrueRows::out(br.true_rows / divisor)),
            pathkeys: pathkeys.into(),
            param_ecs: SmallVec::new(),
            disabled,
            pending: 0,
            workers: p_workers,
            safe: b_safe,
        }
    }

    /// set_plain_rel_pathlist: Seq Scan, index and bitmap paths, and index paths in the
    /// order of a join key or the grouping (useful pathkeys).
    /// With parallel query on and the relation consider_parallel, also its partial paths
    /// (Parallel Seq Scan, Parallel Index and Index Only Scans of its btrees, a Parallel
    /// Bitmap Heap Scan): returned second, cheapest first.
    pub fn base_paths(&self, b: &Block<'a>, r: usize) -> Result<(Vec<JPath>, Vec<JPath>)> {
        let br = &b.rels[r];
        let mut list = Vec::new();
        let mut partial = Vec::new();
        let safe = b.consider_parallel(bit(r));
        let par = if safe { b.parallel } else { None };
        match &br.kind {
            RelKind::Sub { path, cols, .. } => {
                let elide =
                    b.rels.len() == 1 || matches!(br.kind, RelKind::Sub { sublink: true, .. });
                if let Some(mut p) =
                    subselect::subquery_scan(br, self.jc.cop(), self.jc.ctup(), elide)
                {
                    p.node = Node::with_true_rows(p.node, TrueRows::out(br.true_rows));
                    // convert_subquery_pathkeys: a sorted sub-select (a GroupAggregate's
                    // output, ordered on its grouping key, which is its first column here)
                    // keeps its order above the scan (Q15: a nested loop over the view
                    // needs no Sort for ORDER BY s_suppkey).
                    if let (false, Some(first)) = (path.pathkeys.is_empty(), cols.first()) {
                        let key = ColKey {
                            rel: r,
                            col: first.as_str().into(),
                        };
                        p.pathkeys = smallvec::smallvec![pk_of(b, &key)];
                    }
                    add_path(&mut list, p, b.consider_startup);
                }
            }
            RelKind::Table { tidx, rel, query } => {
                let ctx = self.ctx(rel, par);
                let mut seq = self.pg_path(br, ctx.seq_path(0), Vec::new(), safe);
                seq.node = Node::with_true_rows(
                    seq.node,
                    TrueRows {
                        order: heap_order(b, r, rel),
                        ..TrueRows::out(br.true_rows)
                    },
                );
                add_path(&mut list, seq, b.consider_startup);
                if let Some(pp) = par {
                    // create_plain_partial_paths: workers from the heap's pages.
                    let w = crate::costsize::compute_parallel_worker(
                        rel.pages,
                        -1.0,
                        pp.max_workers,
                        pp.min_table_pages,
                        pp.min_index_pages,
                    );
                    if w > 0 {
                        let p = self.pg_path(br, ctx.seq_path(w), Vec::new(), safe);
                        add_partial_path(&mut partial, p);
                    }
                }
                let planner = crate::Planner::new(&ctx);
                for i in 0..rel.indexes.len() {
                    if let Some(s) = ctx.index_scan(i) {
                        if let Some(p) = ctx.index_path(&s, false) {
                            let mut path = self.pg_path(br, p, Vec::new(), safe);
                            path.node = in_index_order(path.node, b, r, rel, i);
                            add_path(&mut list, path, b.consider_startup);
                        }
                        if par.is_some() {
                            if let Some(p) = ctx.index_path(&s, true) {
                                let path = self.pg_path(br, p, Vec::new(), safe);
                                add_partial_path(&mut partial, path);
                            }
                        }
                    }
                }
                let chosen = planner.choose_bitmap_and();
                if !chosen.is_empty() {
                    if let Some(p) = ctx.bitmap_path(&chosen, false) {
                        add_path(
                            &mut list,
                            self.pg_path(br, p, Vec::new(), safe),
                            b.consider_startup,
                        );
                    }
                    if par.is_some() {
                        if let Some(p) = ctx.bitmap_path(&chosen, true) {
                            add_partial_path(&mut partial, self.pg_path(br, p, Vec::new(), safe));
                        }
                    }
                }
                for p in self.param_paths(b, r, 0) {
                    if p.workers > 0 {
                        add_partial_path(&mut partial, p);
                    } else {
                        add_path(&mut list, p, b.consider_startup);
                    }
                }
                // Ordered index paths for columns whose order is useful.
                let mut useful: Vec<String> = Vec::new();
                for m in b.ec_of.keys().filter(|k| k.rel == r) {
                    if !useful.iter().any(|u| m.col == *u) {
                        useful.push(m.col.to_string());
                    }
                }
                for k in b.group.iter().chain(b.order.iter()).take(1) {
                    if k.rel == r && !useful.iter().any(|u| k.col == *u) {
                        useful.push(k.col.to_string());
                    }
                }
                useful.sort();
                for col in useful {
                    let leads = rel.indexes.iter().any(|ix| {
                        ix.keys
                            .first()
                            .is_some_and(|&c| rel.cols[c].name.eq_ignore_ascii_case(&col))
                    });
                    if !leads {
                        continue;
                    }
                    let mut q = query.clone();
                    q.order_by = vec![OrderKey {
                        column: col.clone(),
                        descending: false,
                    }];
                    let mut rel2 = self.rel_for(*tidx, &q)?;
                    rel2.total_table_pages = rel.total_table_pages;
                    rel2.rows = rel.rows;
                    rel2.restrict_ops = rel.restrict_ops;
                    let ctx2 = self.ctx(&rel2, par);
                    let pk = vec![pk_of(
                        b,
                        &ColKey {
                            rel: r,
                            col: col.as_str().into(),
                        },
                    )];
                    for i in 0..rel2.indexes.len() {
                        if let Some(s) = ctx2.index_scan(i) {
                            if !s.sorted {
                                continue;
                            }
                            if par.is_some() {
                                if let Some(p) = ctx2.index_path(&s, true) {
                                    let path = self.pg_path(br, p, pk.clone(), safe);
                                    add_partial_path(&mut partial, path);
                                }
                            }
                            if let Some(p) = ctx2.index_path(&s, false) {
                                let mut path = self.pg_path(br, p, pk.clone(), safe);
                                if s.order_bys > 0 {
                                    if let Some(point) = &b.knn_point {
                                        let key = &rel2.cols[rel2.indexes[i].keys[0]].name;
                                        path.node = order_by_line(&path.node, key, point);
                                    }
                                }
                                path.node = in_index_order(path.node, b, r, &rel2, i);
                                add_path(&mut list, path, b.consider_startup);
                            }
                        }
                    }
                }
            }
        }
        if list.is_empty() {
            return Err(Error::Unsupported(format!(
                "no access path for {}",
                br.alias
            )));
        }
        Ok((list, partial))
    }
}

/// Base relation sizes (set_base_rel_sizes): each table's single-table model given its
/// sargable predicates (its own, those `distribute_quals` pulled out of filters in
/// `extra_preds`, and `col = $param` for each `correlated` column), its rows then reduced
/// by the scan's other filters; a sub-select relation's rows by its filters.
pub(crate) fn set_base_rel_sizes<'a>(
    pl: &Planner<'a>,
    b: &mut Block<'a>,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    extra_preds: &[Vec<Predicate>],
    correlated: &[ColRef],
    total_pages: f64,
) -> Result<()> {
    for (ti, t) in block.tables.iter().enumerate() {
        let Some(r) = ref_rel[ti] else { continue };
        let mut preds = t.preds.clone();
        preds.extend(extra_preds[ti].iter().cloned());
        for c in correlated {
            if c.table == ti {
                // `col = $param`: for want of a Param clause in the single-table model, a
                // constant outside the MCV list (the same 1/nd without MCVs).
                preds.push(Predicate::Cmp {
                    column: c.column.to_string(),
                    op: CmpOp::Eq,
                    value: Value::Num(PARAM_PLACEHOLDER),
                });
            }
        }
        if let RelKind::Table { tidx, .. } = b.rels[r].kind {
            let filter_sel = b.rels[r].filter_sel;
            if pl.db.handed_up() {
                b.rels[r].handed_up = handed_up_columns(pl, tidx, block);
            }
            let q = Query {
                table: t.table.to_string(),
                select: t.uses.iter().map(|s| s.to_string()).collect(),
                predicates: preds,
                order_by: Vec::new(),
                limit: None,
            };
            let mut rel = pl.rel_for(tidx, &q)?;
            rel.total_table_pages = total_pages;
            let sargable_rows = rel.rows;
            rel.rows = clamp_row_est(rel.rows * filter_sel);
            rel.restrict_ops = rel.restrict_ops.add(b.rels[r].filter_ops);
            let br = &mut b.rels[r];
            br.rows = rel.rows;
            br.true_rows = sargable_rows * br.true_sel;
            br.kind = RelKind::Table {
                tidx,
                rel: Box::new(rel),
                query: q,
            };
        } else {
            let br = &mut b.rels[r];
            br.rows = clamp_row_est(br.tuples * br.filter_sel);
            br.true_rows *= br.true_sel;
        }
    }
    Ok(())
}

/// Widths, then access paths (set_base_rel_pathlists): the columns each relation carries
/// and the hash buckets of every class member first, since the paths' costs read them.
pub(crate) fn set_base_rel_pathlists<'a>(pl: &Planner<'a>, b: &mut Block<'a>) -> Result<()> {
    b.col_needs = b.col_needs();
    b.ec_buckets = b
        .ecs
        .iter()
        .map(|ec| ec.iter().map(|m| b.bucket_input(m)).collect())
        .collect();
    for r in 0..b.rels.len() {
        b.rels[r].width = b.width_above(bit(r), r);
    }
    for r in 0..b.rels.len() {
        let needed = b.needed_cols(r, &[], &[]);
        if let RelKind::Table { rel, .. } = &mut b.rels[r].kind {
            let pos: Vec<usize> = needed
                .iter()
                .filter_map(|n| rel.cols.iter().position(|c| c.name.eq_ignore_ascii_case(n)))
                .collect();
            rel.needed = pos;
        }
    }
    for r in 0..b.rels.len() {
        let (paths, partial) = pl.base_paths(b, r)?;
        b.rels[r].paths = paths;
        b.rels[r].partial = partial;
    }
    Ok(())
}

impl Planner<'_> {
    /// create_gather_path: a Gather over partial path `sub`, returning `rows` (the
    /// relation's estimate at a scan or join relation, the partial rows times the workers
    /// above a partial aggregation); cost_gather's setup and per-tuple costs.
    pub(crate) fn gather(&self, sub: &JPath, rows: f64) -> JPath {
        let c = crate::costsize::cost_gather(
            &self.jc.c,
            crate::costsize::NodeCost {
                startup: sub.startup,
                total: sub.total,
            },
            rows,
        );
        let work = costlab_model::plan::Work {
            rows_out: rows,
            rows_transferred: rows,
            workers: sub.workers as f64,
            ..Default::default()
        };
        let node = Node::new(
            "Gather",
            c.startup,
            c.total,
            rows,
            sub.width,
            work,
            text(|| format!("Workers Planned: {}", sub.workers))
                .into_iter()
                .collect(),
            [sub.node.clone()],
        );
        self.gathered(sub, c, rows, SmallVec::new(), node)
    }

    /// The rows of a Gather over partial path `p` above the scan/join relation (grouping,
    /// DISTINCT, ORDER BY: override_rows): the partial rows times the workers before 18,
    /// compute_gather_rows (clamp(rows x divisor)) from 18.
    pub(crate) fn upper_gather_rows(&self, p: &JPath) -> f64 {
        if self.version >= costlab_model::knobs::EngineVersion::Pg18 {
            let d = crate::costsize::get_parallel_divisor(
                p.workers,
                self.opts.parallel_leader_participation,
            );
            clamp_row_est(p.rows * d)
        } else {
            p.rows * p.workers as f64
        }
    }

    /// create_gather_merge_path over partial path `sub`, sorted already: cost_gather_merge's
    /// heap of workers + 1 streams; the order is kept.
    pub(crate) fn gather_merge(&self, sub: &JPath, rows: f64) -> JPath {
        let c = crate::costsize::cost_gather_merge(
            &self.jc.c,
            crate::costsize::NodeCost {
                startup: sub.startup,
                total: sub.total,
            },
            rows,
            sub.workers,
        );
        let work = costlab_model::plan::Work {
            rows_out: rows,
            rows_transferred: rows,
            workers: sub.workers as f64,
            comparisons: rows * crate::costsize::log2_sort(sub.workers as f64 + 1.0),
            ..Default::default()
        };
        let node = Node::new(
            "Gather Merge",
            c.startup,
            c.total,
            rows,
            sub.width,
            work,
            text(|| format!("Workers Planned: {}", sub.workers))
                .into_iter()
                .collect(),
            [sub.node.clone()],
        );
        self.gathered(sub, c, rows, sub.pathkeys.clone(), node)
    }

    fn gathered(
        &self,
        sub: &JPath,
        c: crate::costsize::NodeCost,
        rows: f64,
        pathkeys: super::model::PathKeys,
        node: std::rc::Rc<Node>,
    ) -> JPath {
        // What the participants return together.
        let d = crate::costsize::get_parallel_divisor(
            sub.workers,
            self.opts.parallel_leader_participation,
        );
        let node = match sub.node.true_rows() {
            Some(t) => Node::with_true_rows(node, TrueRows::out(t * d)),
            None => node,
        };
        JPath {
            startup: c.startup,
            total: c.total,
            rows,
            width: sub.width,
            pathkeys,
            param: 0,
            rescan: Rescan::Same,
            node,
            param_ecs: SmallVec::new(),
            can_mark: false,
            disabled: sub.disabled,
            pending: 0,
            workers: 0,
            // Gathers never nest: nothing over one runs in a worker.
            safe: false,
        }
    }

    /// generate_useful_gather_paths for a scan or join relation of `relids` whose partial
    /// paths are `partial` (cheapest first): a Gather over the cheapest, a Gather Merge
    /// over each sorted one, and the cheapest sorted on the query's order as far as the
    /// relation can sort on it (get_useful_pathkeys_for_relation) under a Gather Merge.
    /// Every Gather returns the relation's rows (override_rows false).
    pub(crate) fn gather_paths(
        &self,
        b: &Block,
        query_keys: &[usize],
        (relids, rows): (u64, f64),
        partial: &[JPath],
        complete: &[JPath],
    ) -> Vec<JPath> {
        let mut out = Vec::new();
        let Some(cheapest) = partial.first() else {
            return out;
        };
        // A Gather a complete path of the relation already beats is not built (add_path
        // would reject it): its costs are known before its node.
        let c = &self.jc.c;
        let beaten = |sub: &JPath, keys: &[usize], merge: bool| {
            let (startup, total) = if merge {
                let n = sub.workers as f64 + 1.0;
                let l = crate::costsize::log2_sort(n);
                let cc = 2.0 * c.cpu_operator_cost;
                let s = sub.startup + c.parallel_setup_cost + cc * n * l;
                (
                    s,
                    sub.total - sub.startup
                        + s
                        + rows * (cc * l + c.cpu_operator_cost + 1.05 * c.parallel_tuple_cost),
                )
            } else {
                let s = sub.startup + c.parallel_setup_cost;
                (
                    s,
                    sub.total + c.parallel_setup_cost + c.parallel_tuple_cost * rows,
                )
            };
            let head = super::model::PathHead {
                startup,
                total,
                rows,
                pathkeys: keys,
                param: 0,
                disabled: sub.disabled,
                safe: false,
            };
            super::model::dominated(complete, &head, b.consider_startup)
        };
        if !beaten(cheapest, &[], false) {
            out.push(self.gather(cheapest, rows));
        }
        for p in partial.iter().filter(|p| !p.pathkeys.is_empty()) {
            if !beaten(p, &p.pathkeys, true) {
                out.push(self.gather_merge(p, rows));
            }
        }
        // The query's order as far as the relation holds a member of each key's class.
        let useful: Vec<usize> = query_keys
            .iter()
            .take_while(|&&k| key_in(b, k, relids))
            .copied()
            .collect();
        if useful.is_empty() {
            return out;
        }
        for (i, p) in partial.iter().enumerate() {
            let presorted = p
                .pathkeys
                .iter()
                .zip(&useful)
                .take_while(|(a, b)| a == b)
                .count();
            if presorted == useful.len() {
                continue;
            }
            // 15: the cheapest sorted in full, and every presorted path by an Incremental
            // Sort besides; 16 on: one of the two, a path other than the cheapest only if
            // presorted.
            let sort = if self.version >= costlab_model::knobs::EngineVersion::Pg16 {
                i == 0 && presorted == 0
            } else {
                i == 0
            };
            if sort {
                let sorted = self.sorted_partial(b, p, &useful);
                out.push(self.gather_merge(&sorted, rows));
            }
            if presorted > 0 {
                let text = key_text(b, &useful);
                let sorted = super::upper::incremental_sort_path(
                    self, b, p, &useful, presorted, -1.0, &text,
                );
                out.push(self.gather_merge(&sorted, rows));
            }
        }
        out
    }

    /// A partial path sorted on `keys` (each participant sorts its own rows).
    pub(crate) fn sorted_partial(&self, b: &Block, p: &JPath, keys: &[usize]) -> JPath {
        let (cost, dis) = self.sort_cost(p.input(), -1.0);
        let key_text = key_text(b, keys);
        let node = Planner::sort_node(p, cost, dis, text(|| format!("Sort Key: {key_text}")));
        JPath {
            startup: cost.0,
            total: cost.1,
            pathkeys: keys.iter().copied().collect(),
            rescan: Rescan::Fixed(0.0, self.jc.cop() * p.rows),
            node,
            param_ecs: SmallVec::new(),
            can_mark: true,
            disabled: p.disabled + dis,
            pending: 0,
            ..p.clone()
        }
    }
}

/// Sort keys as EXPLAIN lists them (empty without the EXPLAIN text).
fn key_text(b: &Block, keys: &[usize]) -> String {
    text(|| {
        keys.iter()
            .filter_map(|&k| key_col(b, k))
            .map(|c| c.col.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    })
    .unwrap_or_default()
}

/// A pathkey's column: its class's first member, or the column a key outside the
/// classes was made of.
fn key_col<'b>(b: &'b Block, k: usize) -> Option<&'b ColKey> {
    if let Some(ec) = b.ecs.get(k) {
        return ec.first();
    }
    b.group
        .iter()
        .chain(b.order.iter())
        .find(|c| pk_of(b, c) == k)
}

/// Whether relation set `relids` can sort on pathkey `k`.
fn key_in(b: &Block, k: usize, relids: u64) -> bool {
    if let Some(ec) = b.ecs.get(k) {
        return ec.iter().any(|m| relids & bit(m.rel) != 0);
    }
    key_col(b, k).is_some_and(|c| relids & bit(c.rel) != 0)
}
