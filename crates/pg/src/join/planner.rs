//! Base access paths, the dynamic-programming join search with nested loop, hash and
//! merge joins (§2-§4, §6.3), and the planning of one query block end to end.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use smallvec::{smallvec, SmallVec};

use crate::costsize::ParallelParams;
use crate::pathnodes::{clamp_row_est, Rel};
use crate::paths;
use crate::selfuncs;
use costlab_model::block::QueryBlock;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::EngineVersion;
use costlab_model::plan::{AccessPattern, Detail, Name, PageReads, Work};
use costlab_model::query::{CmpOp, OrderKey, Predicate, Query};

use super::costs::{self, JKind, Qual, ScanSel, SemiFactors};
use super::executor_work;
use super::model::{
    add_path, add_path_head, cheaper_total, cheapest_total, copy_keys, is_prefix, JPath, Node,
    PathHead, PathKeys, Rescan, TrueRows, FUZZ,
};
use super::pathnodes::*;
use super::predtest;
use super::setup;
use super::subselect;

/// The join type a path is built for (joinpath.c's jointype argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PJ {
    Inner,
    Left,
    /// LEFT join with the preserved side as the inner (hash/merge "Right Join").
    Right,
    Semi,
    Anti,
    /// Anti join with the preserved side as the (hashed or merged) inner, emitting its
    /// unmatched rows at the end: "Right Anti Join", PostgreSQL 16 on (hash and merge).
    RightAnti,
    /// Semi join with the semi join's outer side hashed, each of its rows emitted at its
    /// first match: "Right Semi Join", PostgreSQL 18 on (hash joins only).
    RightSemi,
    /// Semi join run as an inner join against the unique-ified RHS (§6.1).
    UniqueInner,
    UniqueOuter,
}

impl PJ {
    fn kind(self) -> JKind {
        match self {
            PJ::Semi | PJ::RightSemi => JKind::Semi,
            PJ::Anti | PJ::RightAnti => JKind::Anti,
            PJ::Left | PJ::Right => JKind::Left,
            _ => JKind::Inner,
        }
    }
    /// The preserved (or semi) side is the inner: no nested loops, no parameterized inner,
    /// no output order.
    fn is_right(self) -> bool {
        matches!(self, PJ::Right | PJ::RightAnti | PJ::RightSemi)
    }
    /// The join type final_cost_* tests (`path->jpath.jointype == JOIN_SEMI/ANTI`): a
    /// reversed semi or anti join is costed as an inner join (with the semi factors only
    /// when its inner is unique).
    fn cost_kind(self) -> JKind {
        match self {
            PJ::RightAnti | PJ::RightSemi => JKind::Inner,
            _ => self.kind(),
        }
    }
    fn label(self) -> Option<&'static str> {
        match self {
            PJ::Left => Some("Join Type: Left"),
            PJ::Right => Some("Join Type: Right"),
            PJ::Semi => Some("Join Type: Semi"),
            PJ::Anti => Some("Join Type: Anti"),
            PJ::RightAnti => Some("Join Type: Right Anti"),
            PJ::RightSemi => Some("Join Type: Right Semi"),
            _ => None,
        }
    }
}

/// A join clause of a relation pair: members `oi` (outer side) and `ii` (inner side) of
/// class `ec`.
#[derive(Clone, Copy, Debug)]
struct EqClause<'b> {
    ec: usize,
    oi: usize,
    ii: usize,
    outer: &'b ColKey,
    inner: &'b ColKey,
    sel: f64,
}

impl<'a> Planner<'a> {
    pub fn table_index(&self, name: &str) -> Result<usize> {
        self.db
            .tables
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::UnknownTable(name.to_string()))
    }

    pub fn rel_for(&self, tidx: usize, q: &Query) -> Result<Rel<'a>> {
        Rel::for_query(&self.db.infos[tidx], &self.db.tables[tidx], q)
    }

    pub fn empty_rel(&self, tidx: usize) -> Result<Rel<'a>> {
        self.rel_for(
            tidx,
            &Query {
                table: self.db.tables[tidx].name.clone(),
                select: Vec::new(),
                predicates: Vec::new(),
                order_by: Vec::new(),
                limit: None,
            },
        )
    }

    /// A node type's switch (enable_nestloop, enable_sort...): off, disable_cost on
    /// the node's startup and total cost before PostgreSQL 18 (costsize.c), one
    /// disabled node from 18 on, compared before the costs (pathnode.c add_path).
    pub fn disable(&self, enabled: bool) -> (f64, u32) {
        match (enabled, crate::costsize::uses_disabled_nodes(self.version)) {
            (true, _) => (0.0, 0),
            (false, false) => (crate::costsize::DISABLE_COST, 0),
            (false, true) => (0.0, 1),
        }
    }

    /// A Sort node over `p` with its cost (start-up, total, comparisons, spill bytes), its
    /// disabled count and the `Sort Key:` line when there is one.
    pub(crate) fn sort_node(
        p: &JPath,
        (s, t, cmps, spill): SortCost,
        dis: u32,
        sort_key: Option<String>,
    ) -> Rc<Node> {
        Node::new(
            "Sort",
            s,
            t,
            p.rows,
            p.width,
            Work {
                comparisons: cmps,
                spill_bytes: spill,
                rows_out: p.rows,
                ..Work::default()
            },
            sort_key
                .into_iter()
                .chain(Self::disabled_line(dis))
                .collect(),
            [p.node.clone()],
        )
    }

    /// EXPLAIN's line on a node PostgreSQL 18 planned while disabled.
    pub fn disabled_line(disabled: u32) -> Option<String> {
        (disabled > 0).then(|| "Disabled: true".to_string())
    }

    /// cost_sort with enable_sort: (startup, total, comparisons, spill bytes) and the
    /// Sort's own disabled nodes.
    pub fn sort_cost(&self, input: costs::In, limit_tuples: f64) -> (SortCost, u32) {
        let (s, t, cmps, spill) = costs::sort(&self.jc, input, limit_tuples);
        let (dc, dis) = self.disable(self.opts.enable_sort);
        ((s + dc, t + dc, cmps, spill), dis)
    }

    fn ctx<'r>(&'r self, rel: &'r Rel<'a>) -> paths::Ctx<'r, 'a> {
        paths::Ctx {
            rel,
            c: &self.jc.c,
            version: self.version,
            opts: &self.opts,
            par: ParallelParams {
                max_workers: 0,
                leader_participation: true,
                min_table_pages: 1024.0,
                min_index_pages: 64.0,
            },
            detail: Detail::Full,
            keys: &self.keys,
        }
    }

    /// A single-table path as a join input: alias, the block's extra filter costs, rows.
    fn pg_path(&self, br: &BaseRel, p: paths::Path, pathkeys: Vec<usize>) -> JPath {
        let disabled = p.disabled;
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
        node.cost.startup += add_startup;
        node.cost.total += add_startup + add_run;
        node.relation = Some(br.alias.clone());
        node.rows = br.rows;
        node.width = br.width;
        node.work.rows_out = br.rows;
        node.work.function_calls += executor_work::scan_function_calls(&br.filters, br.rows);
        for t in &br.filter_text {
            node.details.push(format!("Filter: {t}"));
        }
        JPath {
            startup: node.cost.startup,
            total: node.cost.total,
            rows: br.rows,
            width: br.width,
            param: 0,
            rescan: Rescan::Same,
            can_mark: is_index,
            node: Node::with_true_rows(Node::leaf(node), TrueRows::out(br.true_rows)),
            pathkeys: pathkeys.into(),
            param_ecs: SmallVec::new(),
            disabled,
            pending: 0,
        }
    }

    /// set_plain_rel_pathlist: Seq Scan, index and bitmap paths, and index paths in the
    /// order of a join key or the grouping (useful pathkeys).
    pub fn base_paths(&self, b: &Block<'a>, r: usize) -> Result<Vec<JPath>> {
        let br = &b.rels[r];
        let mut list = Vec::new();
        match &br.kind {
            RelKind::Sub { .. } => {
                let elide =
                    b.rels.len() == 1 || matches!(br.kind, RelKind::Sub { sublink: true, .. });
                if let Some(mut p) =
                    subselect::subquery_scan(br, self.jc.cop(), self.jc.ctup(), elide)
                {
                    p.node = Node::with_true_rows(p.node, TrueRows::out(br.true_rows));
                    add_path(&mut list, p, b.consider_startup);
                }
            }
            RelKind::Table { tidx, rel, query } => {
                let ctx = self.ctx(rel);
                let mut seq = self.pg_path(br, ctx.seq_path(0), Vec::new());
                seq.node = Node::with_true_rows(
                    seq.node,
                    TrueRows {
                        order: heap_order(b, r, rel),
                        ..TrueRows::out(br.true_rows)
                    },
                );
                add_path(&mut list, seq, b.consider_startup);
                let planner = crate::Planner::new(&ctx);
                for i in 0..rel.indexes.len() {
                    if let Some(s) = ctx.index_scan(i) {
                        if let Some(p) = ctx.index_path(&s, false) {
                            let mut path = self.pg_path(br, p, Vec::new());
                            path.node = in_index_order(path.node, b, r, rel, i);
                            add_path(&mut list, path, b.consider_startup);
                        }
                    }
                }
                let chosen = planner.choose_bitmap_and();
                if !chosen.is_empty() {
                    if let Some(p) = ctx.bitmap_path(&chosen, false) {
                        add_path(
                            &mut list,
                            self.pg_path(br, p, Vec::new()),
                            b.consider_startup,
                        );
                    }
                }
                for p in self.param_paths(b, r, 0) {
                    add_path(&mut list, p, b.consider_startup);
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
                    let ctx2 = self.ctx(&rel2);
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
                            if let Some(p) = ctx2.index_path(&s, false) {
                                let mut path = self.pg_path(br, p, pk.clone());
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
        Ok(list)
    }

    /// Parameterized index paths of base relation `r` whose parameters come from `outer`
    /// (indxpath.c with loop_count from get_loop_count, §2.3), over plain and usable
    /// partial indexes; with `outer` empty, the unparameterized partial-index paths.
    fn param_paths(&self, b: &Block<'a>, r: usize, outer: u64) -> Vec<JPath> {
        let br = &b.rels[r];
        let RelKind::Table { rel, tidx, .. } = &br.kind else {
            return Vec::new();
        };
        let c = &self.jc.c;
        let cop = c.cpu_operator_cost;
        let mut out = Vec::new();
        let mut descs: Vec<IxDesc> = Vec::new();
        if outer != 0 {
            for ix in rel.indexes.iter() {
                descs.push(IxDesc {
                    name: ix.name.clone(),
                    pages: ix.pages,
                    tuples: ix.tuples,
                    height: ix.tree_height,
                    unique: ix.unique,
                    keys: Cow::Borrowed(&ix.keys),
                    covers: Cow::Borrowed(&ix.covers),
                    implied_clauses: Vec::new(),
                    implied_filters: Vec::new(),
                    pred_sel: 1.0,
                });
            }
        }
        for p in &self.db.partials[*tidx] {
            if let Some(d) = predtest::partial_desc(b, r, rel, p) {
                descs.push(d);
            }
        }
        for ix in descs.iter().filter(|d| !d.keys.is_empty()) {
            let mut const_quals: Vec<usize> = Vec::new();
            let mut params: Vec<(ColKey, usize)> = Vec::new();
            let mut required = 0u64;
            let mut all_eq = true;
            let mut covered = 0;
            for &k in ix.keys.iter() {
                let name = &rel.cols[k].name;
                let before = const_quals.len();
                const_quals.extend(
                    rel.clauses
                        .iter()
                        .enumerate()
                        .filter(|(_, cl)| {
                            cl.col == k
                                && matches!(
                                    cl.kind,
                                    crate::pathnodes::ClauseKind::Op { op: CmpOp::Eq, .. }
                                )
                        })
                        .map(|(i, _)| i),
                );
                if const_quals.len() > before {
                    covered += 1;
                    continue;
                }
                let key = ColKey {
                    rel: r,
                    col: name.to_ascii_lowercase().into(),
                };
                let member = b.ec_of.get(&key).and_then(|&e| {
                    b.ecs[e]
                        .iter()
                        .find(|m| outer & bit(m.rel) != 0)
                        .map(|m| (m.clone(), e))
                });
                if let Some((m, e)) = member {
                    required |= bit(m.rel);
                    params.push((key, e));
                    covered += 1;
                    continue;
                }
                const_quals.extend(
                    rel.clauses
                        .iter()
                        .enumerate()
                        .filter(|(_, cl)| cl.col == k && !cl.is_eq())
                        .map(|(i, _)| i),
                );
                all_eq = false;
                break;
            }
            const_quals.retain(|q| !ix.implied_clauses.contains(q));
            if outer != 0 && params.is_empty() {
                continue;
            }
            // Unparameterized: quals, a useful order or index-only (build_index_paths).
            let lead_key = ColKey {
                rel: r,
                col: rel.cols[ix.keys[0]].name.to_ascii_lowercase().into(),
            };
            let useful_order =
                b.ec_of.contains_key(&lead_key) || b.group.first().is_some_and(|g| *g == lead_key);
            let needed = b.needed_cols(r, &ix.implied_filters, &ix.implied_clauses);
            let indexonly = self.opts.enable_indexonlyscan
                && needed.iter().all(|n| {
                    ix.covers
                        .iter()
                        .any(|&cpos| rel.cols[cpos].name.eq_ignore_ascii_case(n))
                });
            if outer == 0 && const_quals.is_empty() && !useful_order && !indexonly {
                continue;
            }
            let unique_all_eq = ix.unique && all_eq && covered == ix.keys.len();
            let mut sel = selfuncs::clauselist_selectivity(rel, &const_quals) * ix.pred_sel;
            for (k, _) in &params {
                sel *= b.eq_non_const(k);
            }
            let all: Vec<usize> = rel.clause_ids().collect();
            let mut rows_sel = selfuncs::clauselist_selectivity(rel, &all) * br.filter_sel;
            for (k, _) in &params {
                rows_sel *= b.eq_non_const(k);
            }
            let rows = clamp_row_est(rel.tuples * rows_sel).min(br.rows.max(1.0));
            let loop_count = b
                .rels
                .iter()
                .enumerate()
                .filter(|(i, _)| required & bit(*i) != 0)
                .map(|(_, x)| x.rows)
                .fold(f64::INFINITY, f64::min);
            let loop_count = if loop_count.is_finite() {
                loop_count.max(1.0)
            } else {
                1.0
            };
            let qp: Vec<usize> = all
                .iter()
                .copied()
                .filter(|i| !const_quals.contains(i) && !ix.implied_clauses.contains(i))
                .collect();
            let mut fops = crate::pathnodes::QualOps::default();
            for (fi, f) in br.filters.iter().enumerate() {
                if !ix.implied_filters.contains(&fi) {
                    fops = fops.add(f.ops);
                }
            }
            let qp_ops = rel.qual_ops(&qp).add(fops);
            let qp_cost = Qual {
                startup: qp_ops.startup * cop + br.extra.startup,
                per_tuple: qp_ops.per_tuple * cop + br.extra.per_tuple,
            };
            let lead = &rel.cols[ix.keys[0]];
            let heap_corr = if lead.has_stats {
                lead.stats.correlation
            } else {
                0.0
            };
            let mut corr = heap_corr;
            if ix.keys.len() > 1 {
                corr *= 0.75;
            }
            let nquals = (const_quals.len() + params.len()) as f64;
            let t = rel.pages;
            let lc = costs::index_loop_cost(
                c,
                &costs::IndexLoopInput {
                    heap_pages: t,
                    heap_tuples: rel.tuples,
                    index_pages: ix.pages,
                    index_tuples: ix.tuples,
                    tree_height: ix.height,
                    selectivity: sel,
                    n_quals: nquals,
                    unique_all_eq,
                    loop_count,
                    total_table_pages: rel.total_table_pages,
                    correlation: corr,
                    index_only: indexonly.then_some(rel.allvisfrac),
                    qpqual: qp_cost,
                },
            );
            if !lc.total.is_finite() {
                continue;
            }
            // cost_index: enable_indexscan covers index-only scans too.
            let (idc, idis) = self.disable(self.opts.enable_indexscan);
            let (lc_startup, lc_total) = (lc.startup + idc, lc.total + idc);
            let mut page_reads =
                executor_work::index_reads(&ix.name, ix.pages, ix.height + 1.0, lc.index_pages);
            // Per outer row: the join's true rows over the outer's (every match, also on
            // a semi join's inner side); unparameterized, the relation's.
            let truth = if required != 0 {
                TrueRows {
                    probes: params.iter().fold(0, |m, (_, e)| m | ec_bit(*e)),
                    ..TrueRows::whole(
                        b.true_rows_as(required | bit(r), false)
                            / b.true_rows_as(required, false).max(1e-9),
                    )
                }
            } else {
                // Unparameterized, a btree scan returns its rows in its first key's order.
                TrueRows {
                    order: ix
                        .keys
                        .first()
                        .map_or(0, |&k| col_order(b, r, &rel.cols[k].name)),
                    ..TrueRows::out(br.true_rows)
                }
            };
            // The heap rows one scan really fetches: the estimate scaled as its output is
            // (the work's other counts follow the same factor, `model::true_work`).
            let true_factor = if required != 0 && truth.rows.is_finite() && rows > 0.0 {
                truth.rows / rows
            } else {
                1.0
            };
            let heap_share = if indexonly { 1.0 - rel.allvisfrac } else { 1.0 };
            let fetched = lc.tuples_fetched * true_factor * heap_share;
            if lc.heap_pages_per_scan > 0.0 && fetched > 0.0 {
                // The heap's own order (not the cost's x0.75, see IndexScan). In order, a
                // scan reads the pages its rows lie on, once each; out of order, every
                // fetched row asks for its page. Which pages one scan reads is the heap's
                // business, not the cost's pages per scan: those are amortised over the
                // loops PostgreSQL expected (index_pages_fetched), where the simulation's
                // cache decides what repeated loops find (`model::scale_work`).
                let rows_per_page = (rel.tuples / t.max(1.0)).max(1.0);
                let (pattern, requests, distinct) = if heap_corr.abs() > 0.5 {
                    // The key range's heap rows lie together; a partial index holds a
                    // share of them (its predicate's), spread over the range's pages.
                    let share = ix.pred_sel.clamp(1e-9, 1.0);
                    let range_rows = fetched / share;
                    let range_pages = (1.0 + (range_rows - 1.0).max(0.0) / rows_per_page).min(t);
                    let pages = (range_pages * (1.0 - (1.0 - share).powf(rows_per_page)))
                        .clamp(1.0_f64.min(range_pages), t);
                    (AccessPattern::Sequential, pages, pages)
                } else if required != 0 && all_eq {
                    // Equal keys sit in heap order in the btree (heap TID breaks ties
                    // since PostgreSQL 12): one scan's fetches sweep the heap in order.
                    (
                        AccessPattern::Sorted,
                        fetched,
                        paths::expected_distinct(t, fetched),
                    )
                } else {
                    (
                        AccessPattern::Random,
                        fetched,
                        paths::expected_distinct(t, fetched),
                    )
                };
                page_reads.push(PageReads {
                    object: Name::new(&self.db.tables[*tidx].name),
                    object_pages: t,
                    page_bytes: 8192.0,
                    pattern,
                    requests,
                    distinct,
                    span_pages: None,
                });
            }
            let work = Work {
                page_reads,
                rows_examined: lc.tuples_fetched,
                index_entries: lc.index_tuples,
                operator_evals: lc.index_tuples * nquals
                    + lc.descent_comparisons
                    + lc.tuples_fetched * qp_ops.per_tuple,
                rows_out: rows,
                function_calls: rel.clause_calls(qp.iter().copied(), lc.tuples_fetched),
                ..Work::default()
            };
            let op = if indexonly {
                "Index Only Scan"
            } else {
                "Index Scan"
            };
            let mut details = text(|| {
                let mut details = Vec::new();
                let mut conds: Vec<String> = params
                    .iter()
                    .map(|(k, e)| {
                        let m = b.ecs[*e].iter().find(|m| outer & bit(m.rel) != 0);
                        format!(
                            "({} = {}.{})",
                            k.col,
                            m.map_or("?", |m| b.rels[m.rel].alias.as_str()),
                            m.map(|m| m.col.as_str()).unwrap_or("?")
                        )
                    })
                    .collect();
                for q in const_quals.iter() {
                    conds.push(crate::explain_cond(rel, std::slice::from_ref(q)));
                }
                if !conds.is_empty() {
                    details.push(format!("Index Cond: {}", and_text(&conds)));
                }
                // The restrictions the index does not apply, one Filter line as EXPLAIN
                // shows the qpquals.
                let mut filters: Vec<String> = qp
                    .iter()
                    .map(|q| crate::explain_cond(rel, std::slice::from_ref(q)))
                    .collect();
                for (fi, f) in br.filters.iter().enumerate() {
                    if !ix.implied_filters.contains(&fi) {
                        filters.push(f.text.clone());
                    }
                }
                if !filters.is_empty() {
                    details.push(format!("Filter: {}", and_text(&filters)));
                }
                details
            })
            .unwrap_or_default();
            details.extend(Self::disabled_line(idis));
            let node = Node::op(
                costlab_model::plan::PlanNode {
                    op: Name::from_static(op),
                    relation: Some(br.alias.clone()),
                    index: Some(ix.name.clone()),
                    details,
                    cost: costlab_model::plan::Cost::new(lc_startup, lc_total),
                    rows,
                    width: br.width,
                    work,
                    children: Vec::new(),
                },
                Vec::new(),
            );
            let node = Node::with_true_rows(node, truth);
            // The same index quals as a parameterized Bitmap Heap Scan (bitmap paths
            // are built for every index path, create_index_paths).
            if outer != 0 && ix.implied_clauses.is_empty() && ix.implied_filters.is_empty() {
                let bq = Qual {
                    startup: rel.restrict_ops.startup * cop + br.extra.startup,
                    per_tuple: (rel.restrict_ops.per_tuple + params.len() as f64) * cop
                        + br.extra.per_tuple,
                };
                let (bdc, bdis) = self.disable(self.opts.enable_bitmapscan);
                let (bs, bt, bpages, btuples) = costs::bitmap_loop_cost(
                    c,
                    lc.index_total,
                    rows,
                    sel,
                    t,
                    rel.tuples,
                    ix.pages,
                    loop_count,
                    rel.total_table_pages,
                    bq,
                );
                let (bs, bt) = (bs + bdc, bt + bdc);
                let idx_node = Node::op(
                    costlab_model::plan::PlanNode {
                        op: Name::from_static("Bitmap Index Scan"),
                        relation: None,
                        index: Some(ix.name.clone()),
                        details: Vec::new(),
                        cost: costlab_model::plan::Cost::new(0.0, lc.index_total),
                        rows: lc.tuples_fetched,
                        width: 0.0,
                        work: Work {
                            page_reads: executor_work::index_reads(
                                &ix.name,
                                ix.pages,
                                ix.height + 1.0,
                                lc.index_pages,
                            ),
                            index_entries: lc.index_tuples,
                            operator_evals: lc.index_tuples * nquals + lc.descent_comparisons,
                            rows_out: lc.tuples_fetched,
                            ..Work::default()
                        },
                        children: Vec::new(),
                    },
                    Vec::new(),
                );
                let heap = Node::op(
                    costlab_model::plan::PlanNode {
                        op: Name::from_static("Bitmap Heap Scan"),
                        relation: Some(br.alias.clone()),
                        index: None,
                        details: br
                            .filter_text
                            .iter()
                            .map(|f| format!("Filter: {f}"))
                            .chain(Self::disabled_line(bdis))
                            .collect(),
                        cost: costlab_model::plan::Cost::new(bs, bt),
                        rows,
                        width: br.width,
                        work: Work {
                            page_reads: vec![PageReads {
                                object: Name::new(&self.db.tables[*tidx].name),
                                object_pages: t,
                                page_bytes: 8192.0,
                                pattern: AccessPattern::Sorted,
                                requests: bpages,
                                distinct: bpages.min(t),
                                span_pages: None,
                            }],
                            rows_examined: btuples,
                            operator_evals: btuples
                                * (rel.restrict_ops.per_tuple + params.len() as f64),
                            rows_out: rows,
                            ..Work::default()
                        },
                        children: Vec::new(),
                    },
                    [Node::with_true_rows(
                        idx_node,
                        TrueRows {
                            rows: truth.rows * lc.tuples_fetched / rows.max(1e-9),
                            ..truth
                        },
                    )],
                );
                let heap = Node::with_true_rows(heap, truth);
                out.push(JPath {
                    startup: bs,
                    total: bt,
                    rows,
                    width: br.width,
                    pathkeys: PathKeys::new(),
                    param: required,
                    rescan: Rescan::Same,
                    node: heap,
                    param_ecs: params.iter().map(|(_, e)| *e).collect(),
                    can_mark: false,
                    disabled: bdis,
                    pending: 0,
                });
            }
            out.push(JPath {
                startup: lc_startup,
                total: lc_total,
                rows,
                width: br.width,
                pathkeys: if outer == 0 && useful_order {
                    smallvec![pk_of(b, &lead_key)]
                } else {
                    PathKeys::new()
                },
                param: required,
                rescan: Rescan::Same,
                node,
                param_ecs: params.iter().map(|(_, e)| *e).collect(),
                can_mark: true,
                disabled: idis,
                pending: 0,
            });
        }
        out
    }

    /// Plans one query block: join search, then grouping, ordering and limit.
    pub fn plan_block(&self, block: &QueryBlock, sql: &str, opts: &BlockOpts) -> Result<JPath> {
        let b = setup::build(self, block, sql, opts)?;
        // Once for both: the join search's useful orders and the grouping above it.
        let group = super::upper::grouping_keys(self, &b);
        let top = self.join_search(&b, &group)?;
        super::upper::finish(self, &b, block, sql, top, group)
    }

    // ---- join search ------------------------------------------------------------------

    /// `group`: the block's GROUP BY keys as [`super::upper::grouping_keys`] reduces them.
    fn join_search(&self, b: &Block<'a>, group: &[ColKey]) -> Result<JoinRel> {
        let n = b.rels.len();
        if n == 0 {
            return Err(Error::Unsupported("a block without relations".into()));
        }
        let mut s = Search::new(b, group);
        for (i, br) in b.rels.iter().enumerate() {
            s.rels.insert(
                bit(i),
                JoinRel {
                    rows: br.rows,
                    true_rows: br.true_rows,
                    width: br.width,
                    paths: br.paths.clone(),
                },
            );
            s.levels[1].push(bit(i));
        }
        for k in 2..=n {
            let mut pairs: Vec<(u64, u64)> = Vec::new();
            for &r1 in &s.levels[k - 1] {
                let has_clauses = (0..n).any(|j| r1 & bit(j) == 0 && s.linked(b, r1, bit(j)));
                for j in 0..n {
                    let r2 = bit(j);
                    if r1 & r2 != 0 {
                        continue;
                    }
                    if has_clauses && !s.linked(b, r1, r2) {
                        continue;
                    }
                    pairs.push((r1, r2));
                }
            }
            for i in 2..=k / 2 {
                for &r1 in &s.levels[i] {
                    for &r2 in &s.levels[k - i] {
                        if r1 & r2 != 0 || (i == k - i && r1 > r2) {
                            continue;
                        }
                        if s.linked(b, r1, r2) {
                            pairs.push((r1, r2));
                        }
                    }
                }
            }
            let mut made = self.make_rels(b, &mut s, k, &pairs);
            if !made {
                // Clauseless joins only when nothing else works (§6.3 step 3).
                let mut all = Vec::new();
                for i in 1..k {
                    for &r1 in &s.levels[i] {
                        for &r2 in &s.levels[k - i] {
                            if r1 & r2 == 0 && r1 < r2 {
                                all.push((r1, r2));
                            }
                        }
                    }
                }
                made = self.make_rels(b, &mut s, k, &all);
            }
            if !made {
                return Err(Error::Unsupported(format!(
                    "no legal join order at level {k}"
                )));
            }
        }
        let full: u64 = (0..n).fold(0, |a, i| a | bit(i));
        s.rels
            .remove(&full)
            .ok_or_else(|| Error::Unsupported("the join search found no plan".into()))
    }

    fn make_rels(&self, b: &Block<'a>, s: &mut Search, k: usize, pairs: &[(u64, u64)]) -> bool {
        let mut made = false;
        for &(r1, r2) in pairs {
            let Some(jts) = self.legal(b, r1, r2) else {
                continue;
            };
            let joined = r1 | r2;
            if !s.rels.contains_key(&joined) {
                let rows = self.joinrel_rows(b, s, r1, r2, jts.first().map(|x| x.2));
                let width = b.width_above(joined, usize::MAX);
                s.rels.insert(
                    joined,
                    JoinRel {
                        rows,
                        true_rows: b.true_rows(joined),
                        width,
                        paths: Vec::new(),
                    },
                );
                s.levels[k].push(joined);
            }
            for (o, i, jt) in jts {
                self.add_paths(b, s, o, i, jt);
            }
            if s.rels.get(&joined).is_some_and(|j| !j.paths.is_empty()) {
                made = true;
            }
        }
        // Drop join relations that got no path (all candidates failed).
        let rels = &s.rels;
        s.levels[k].retain(|r| rels.get(r).is_some_and(|j| !j.paths.is_empty()));
        made
    }

    /// join_is_legal (§6.1) simplified to the DBT3 shapes: returns the (outer, inner,
    /// jointype) combinations to try, or None.
    fn legal(&self, b: &Block, r1: u64, r2: u64) -> Option<SmallVec<[(u64, u64, PJ); 4]>> {
        let joined = r1 | r2;
        let mut found: Option<(&Special, bool)> = None;
        for sj in &b.specials {
            let in1 = r1 & sj.rhs != 0;
            let in2 = r2 & sj.rhs != 0;
            if !in1 && !in2 {
                continue;
            }
            if joined & !sj.rhs == 0 {
                // Joins inside the RHS are plain inner joins.
                continue;
            }
            if joined & sj.rhs != sj.rhs {
                // Part of the RHS: only joins inside it.
                if joined & !sj.rhs != 0 {
                    return None;
                }
                continue;
            }
            // The whole RHS is here. Completed below, or completed here.
            if r1 & sj.rhs == sj.rhs && r1 != sj.rhs && r1 & sj.lhs == sj.lhs {
                continue;
            }
            if r2 & sj.rhs == sj.rhs && r2 != sj.rhs && r2 & sj.lhs == sj.lhs {
                continue;
            }
            if r2 == sj.rhs && r1 & sj.lhs == sj.lhs {
                if found.is_some() {
                    return None;
                }
                found = Some((sj, false));
            } else if r1 == sj.rhs && r2 & sj.lhs == sj.lhs {
                if found.is_some() {
                    return None;
                }
                found = Some((sj, true));
            } else {
                return None;
            }
        }
        Some(match found {
            None => smallvec![(r1, r2, PJ::Inner), (r2, r1, PJ::Inner)],
            Some((sj, swapped)) => {
                let (o, i) = if swapped { (r2, r1) } else { (r1, r2) };
                // populate_joinrel_with_paths' order: the reversed forms right after the
                // plain ones, where the release has them.
                let pg16 = self.version >= EngineVersion::Pg16;
                let pg18 = self.version >= EngineVersion::Pg18;
                match sj.kind {
                    JKind::Semi => {
                        let mut v: SmallVec<_> = smallvec![(o, i, PJ::Semi)];
                        if pg18 {
                            v.push((i, o, PJ::RightSemi));
                        }
                        v.extend([(o, i, PJ::UniqueInner), (i, o, PJ::UniqueOuter)]);
                        v
                    }
                    JKind::Anti if pg16 => smallvec![(o, i, PJ::Anti), (i, o, PJ::RightAnti)],
                    JKind::Anti => smallvec![(o, i, PJ::Anti)],
                    JKind::Left => smallvec![(o, i, PJ::Left), (i, o, PJ::Right)],
                    JKind::Inner => smallvec![(o, i, PJ::Inner), (i, o, PJ::Inner)],
                }
            }
        })
    }

    /// The equality clauses between two sets: one per class spanning them, preferring a
    /// pair written in the query (generate_join_implied_equalities).
    fn eq_clauses<'b>(&self, b: &'b Block, s: &Search, outer: u64, inner: u64) -> Clauses<'b> {
        let mut out = SmallVec::new();
        for (e, ec) in b.ecs.iter().enumerate() {
            let er = s.ec_rels[e];
            if er & outer == 0 || er & inner == 0 {
                continue;
            }
            let m = ec.len();
            let in_outer = |x: &usize| outer & bit(ec[*x].rel) != 0;
            let in_inner = |x: &usize| inner & bit(ec[*x].rel) != 0;
            // generate_join_implied_equalities_normal: the first outer and the first
            // inner member in the class's order (every member here is a plain column, so
            // every pair scores alike). An anti or left join's clause is no class member
            // in PostgreSQL: the join uses the clause as written. Q21 at SF 10 with
            // enable_nestloop off: the semi join hashes on o_orderkey = l2.l_orderkey
            // (orders' key comes first in the class), the anti join merges on
            // l1.l_orderkey = l3.l_orderkey.
            let mut pick = (
                (0..m).find(in_outer).unwrap_or(0),
                (0..m).find(in_inner).unwrap_or(0),
            );
            'find: for o in (0..m).filter(in_outer) {
                for i in (0..m).filter(in_inner) {
                    if s.ec_outer_join_edge[e][o * m + i] {
                        pick = (o, i);
                        break 'find;
                    }
                }
            }
            out.push(EqClause {
                ec: e,
                oi: pick.0,
                ii: pick.1,
                outer: &ec[pick.0],
                inner: &ec[pick.1],
                sel: s.ec_sel[e][pick.0 * m + pick.1],
            });
        }
        out
    }

    fn filters_between(&self, b: &Block, outer: u64, inner: u64) -> SmallVec<[usize; 4]> {
        let j = outer | inner;
        b.jfilters
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rels & !j == 0 && f.rels & outer != 0 && f.rels & inner != 0)
            .map(|(i, _)| i)
            .collect()
    }

    /// Semi selectivity (jselec) of the clauses of a semi/anti join.
    fn semi_sel(&self, b: &Block, eqs: &[EqClause], filters: &[usize], rhs_rows: f64) -> f64 {
        let mut s = 1.0;
        for c in eqs {
            s *= b.eqjoinsel_semi(c.outer, c.inner, rhs_rows);
        }
        for &f in filters {
            s *= b.jfilters[f].sel_semi;
        }
        s
    }

    fn inner_sel(&self, b: &Block, eqs: &[EqClause], filters: &[usize]) -> f64 {
        let mut s = 1.0;
        for c in eqs {
            s *= c.sel;
        }
        for &f in filters {
            s *= b.jfilters[f].sel;
        }
        s
    }

    /// calc_joinrel_size_estimate (§1.2) for the first pair that makes the relation.
    fn joinrel_rows(&self, b: &Block, s: &Search, r1: u64, r2: u64, jt: Option<PJ>) -> f64 {
        let (o, i) = match jt {
            Some(PJ::UniqueOuter | PJ::Right | PJ::RightAnti | PJ::RightSemi) => (r2, r1),
            _ => (r1, r2),
        };
        let orows = s.rels.get(&o).map_or(1.0, |r| r.rows);
        let irows = s.rels.get(&i).map_or(1.0, |r| r.rows);
        let eqs = self.eq_clauses(b, s, o, i);
        let fs = self.filters_between(b, o, i);
        let n = match jt.map(|j| j.kind()) {
            Some(JKind::Semi) => orows * self.semi_sel(b, &eqs, &fs, irows),
            Some(JKind::Anti) => orows * (1.0 - self.semi_sel(b, &eqs, &fs, irows)),
            Some(JKind::Left) => (orows * irows * self.inner_sel(b, &eqs, &fs)).max(orows),
            _ => orows * irows * self.inner_sel(b, &eqs, &fs),
        };
        clamp_row_est(n)
    }

    /// `inner_unique`, remembered per relation and clause columns: a pure function of
    /// them, asked for again for every outer side and join type of the same inner.
    fn inner_unique_cached(&self, b: &Block, s: &Search, inner: u64, eqs: &[EqClause]) -> bool {
        if inner.count_ones() != 1 {
            return false;
        }
        // The inner columns as (class, member) pairs, 16 bits each (four at most: else
        // no key, and no cache).
        let mut key = 0u64;
        let fits = eqs.len() <= 4
            && eqs.iter().enumerate().all(|(n, c)| {
                let fits = c.ec < 1 << 10 && c.ii < 1 << 6;
                key |= ((c.ec << 6 | c.ii) as u64) << (16 * n);
                fits
            });
        if !fits {
            return self.inner_unique(b, inner, eqs);
        }
        let key = (inner, key, eqs.len() as u64);
        if let Some(&u) = s.inner_unique.borrow().get(&key) {
            return u;
        }
        let u = self.inner_unique(b, inner, eqs);
        s.inner_unique.borrow_mut().insert(key, u);
        u
    }

    /// innerrel_is_unique: a base table with a unique index all of whose columns the
    /// equality clauses bind, or a sub-select unique on them.
    fn inner_unique(&self, b: &Block, inner: u64, eqs: &[EqClause]) -> bool {
        if inner.count_ones() != 1 {
            return false;
        }
        let r = inner.trailing_zeros() as usize;
        let mut cols: SmallVec<[&str; 4]> = eqs
            .iter()
            .filter(|c| c.inner.rel == r)
            .map(|c| c.inner.col.as_str())
            .collect();
        match &b.rels[r].kind {
            RelKind::Table { rel, query, .. } => {
                // relation_has_unique_index_for adds the relation's own `col = constant`
                // restrictions (a Param, as a correlated SubPlan's `col = $1`, is a
                // constant there): Q2's SubPlan at SF 10 hashes partsupp's 18 rows
                // of `ps_partkey = $1` as a unique inner on ps_suppkey.
                cols.extend(query.predicates.iter().filter_map(|p| match p {
                    Predicate::Cmp {
                        column,
                        op: CmpOp::Eq,
                        ..
                    } => Some(column.as_str()),
                    _ => None,
                }));
                rel.indexes.iter().any(|ix| {
                    ix.unique
                        && ix.keys.iter().all(|&k| {
                            cols.iter()
                                .any(|c| rel.cols[k].name.eq_ignore_ascii_case(c))
                        })
                })
            }
            RelKind::Sub { unique, .. } => {
                !unique.is_empty()
                    && unique
                        .iter()
                        .all(|u| cols.iter().any(|c| c.eq_ignore_ascii_case(u)))
            }
        }
    }

    /// create_unique_path for a semijoin RHS (§5.3): the cheaper of sort+unique and hash
    /// aggregation on the RHS's join columns; None when it is unique already (no-op).
    fn unique_path(&self, b: &Block, rhs_path: &JPath, rhs: u64, cols: &[ColKey]) -> JPath {
        let jc = &self.jc;
        let groups = super::upper::estimate_num_groups(b, cols, rhs_path.rows);
        let ncols = cols.len() as f64;
        let input = rhs_path.input();
        let ((ss, st, cmps, spill), sort_dis) = self.sort_cost(input, -1.0);
        let sort_total = st + jc.cop() * ncols * rhs_path.rows;
        // create_unique_path: a hashed unique-ification is an Agg HASHED (enable_hashagg).
        let (hdc, hash_dis) = self.disable(self.opts.enable_hashagg);
        let (hs, ht, hspill) = costs::agg(
            jc,
            costs::AggStrategy::Hashed,
            &costs::AggCosts::default(),
            ncols,
            groups,
            input,
        );
        let (hs, ht) = (hs + hdc, ht + hdc);
        let _ = rhs;
        if hash_dis < sort_dis || (hash_dis == sort_dis && ht <= sort_total) {
            let work = Work {
                rows_examined: rhs_path.rows,
                comparisons: rhs_path.rows,
                rows_out: groups,
                spill_bytes: hspill * 8192.0,
                ..Work::default()
            };
            let node = Node::new(
                "HashAggregate",
                hs,
                ht,
                groups,
                rhs_path.width,
                work,
                std::iter::once(format!(
                    "Group Key: {}",
                    cols.iter()
                        .map(|c| c.col.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .chain(Self::disabled_line(hash_dis))
                .collect(),
                [rhs_path.node.clone()],
            );
            JPath {
                startup: hs,
                total: ht,
                rows: groups,
                width: rhs_path.width,
                pathkeys: PathKeys::new(),
                param: 0,
                rescan: Rescan::Same,
                node,
                param_ecs: SmallVec::new(),
                can_mark: false,
                disabled: rhs_path.disabled + hash_dis,
                pending: 0,
            }
        } else {
            let sort = Node::new(
                "Sort",
                ss,
                st,
                rhs_path.rows,
                rhs_path.width,
                Work {
                    comparisons: cmps,
                    spill_bytes: spill,
                    rows_out: rhs_path.rows,
                    ..Work::default()
                },
                Self::disabled_line(sort_dis).into_iter().collect(),
                [rhs_path.node.clone()],
            );
            let node = Node::new(
                "Unique",
                ss,
                sort_total,
                groups,
                rhs_path.width,
                Work {
                    comparisons: rhs_path.rows,
                    rows_out: groups,
                    ..Work::default()
                },
                Vec::new(),
                [sort],
            );
            JPath {
                startup: ss,
                total: sort_total,
                rows: groups,
                width: rhs_path.width,
                pathkeys: cols.iter().map(|c| pk_of(b, c)).collect(),
                param: 0,
                rescan: Rescan::Same,
                node,
                param_ecs: SmallVec::new(),
                can_mark: false,
                disabled: rhs_path.disabled + sort_dis,
                pending: 0,
            }
        }
    }

    /// add_paths_to_joinrel (§6.3): hash, merge and nested-loop paths of one ordered
    /// pair with one join type.
    fn add_paths(&self, b: &Block<'a>, s: &mut Search, outer: u64, inner: u64, jt: PJ) {
        let joined = outer | inner;
        if !s.rels.contains_key(&joined) {
            return;
        }
        let eqs = self.eq_clauses(b, s, outer, inner);
        // The caches that need `s` mutably, filled before the relations' paths are
        // borrowed: parameterized inner paths and the merge clauses' scan fractions.
        let param_inner = if jt.is_right() || jt == PJ::UniqueInner {
            None
        } else if inner.count_ones() == 1 {
            Some(self.param_paths_for(b, s, inner.trailing_zeros() as usize, outer))
        } else if matches!(jt, PJ::Semi | PJ::Anti) && inner.count_ones() == 2 {
            Some(self.param_join_paths(b, s, inner, outer))
        } else {
            None
        };
        let scansels: SmallVec<[ScanSel; 4]> =
            eqs.iter().map(|c| self.scansel_of(b, s, c)).collect();
        // The join relation's list leaves the map while the candidates, which borrow the
        // input relations' paths, are added to it.
        let mut list = match s.rels.get_mut(&joined) {
            Some(j) => std::mem::take(&mut j.paths),
            None => return,
        };
        self.join_paths(
            b,
            s,
            (outer, inner, jt),
            &eqs,
            param_inner.as_deref(),
            &scansels,
            &mut list,
            None,
        );
        if let Some(j) = s.rels.get_mut(&joined) {
            j.paths = list;
        }
    }

    /// Parameterized paths of the two-relation join `inner` whose parameters come from
    /// `outer`, for the inner side of a semi or anti join (add_paths_to_joinrel's
    /// param_source_rels: a join inside a semi or anti join's right-hand side may stay
    /// parameterized by the rels outside it). As PostgreSQL builds them, each is a join
    /// whose outer input is a parameterized index path of one of the two relations
    /// (match_unsorted_outer, hash_inner_and_outer and sort_inner_and_outer over the
    /// outer rel's parameterized paths) and whose inner is the other relation, not
    /// parameterized. Rows: get_parameterized_joinrel_size, i.e. the join's rows scaled
    /// by the share of its outer relation one parameterized scan returns. Their true
    /// rows per scan are scaled the same way (an assumption of the simulation's work).
    fn param_join_paths(
        &self,
        b: &Block<'a>,
        s: &mut Search,
        inner: u64,
        outer: u64,
    ) -> Rc<[JPath]> {
        let mut out = Vec::new();
        let Some(srel) = s.rels.get(&inner) else {
            return Rc::from(out);
        };
        let (s_rows, s_true) = (srel.rows, srel.true_rows);
        for r in (0..64).filter(|r| inner & bit(*r) != 0) {
            let rest = inner & !bit(r);
            let Some(r_rows) = s.rels.get(&bit(r)).map(|x| x.rows) else {
                continue;
            };
            if !s.rels.contains_key(&rest) {
                continue;
            }
            let Some(jts) = self.legal(b, bit(r), rest) else {
                continue;
            };
            let pps = self.param_paths_for(b, s, r, outer);
            let eqs = self.eq_clauses(b, s, bit(r), rest);
            let scansels: SmallVec<[ScanSel; 4]> =
                eqs.iter().map(|c| self.scansel_of(b, s, c)).collect();
            for pp in pps
                .iter()
                .filter(|p| p.param != 0 && p.param & outer == p.param)
            {
                let share = pp.rows / r_rows.max(1.0);
                let rows = (s_rows * share).max(1.0).round().min(s_rows);
                let mut list = Vec::new();
                for &(o, i, jt) in &jts {
                    if o != bit(r) || i != rest || jt.is_right() || jt == PJ::UniqueOuter {
                        continue;
                    }
                    self.join_paths(
                        b,
                        s,
                        (o, i, jt),
                        &eqs,
                        None,
                        &scansels,
                        &mut list,
                        Some((std::slice::from_ref(pp), rows, s_true * share)),
                    );
                }
                for mut p in list {
                    p.param = pp.param;
                    p.param_ecs = pp.param_ecs.clone();
                    out.push(p);
                }
            }
        }
        Rc::from(out)
    }

    /// The hash, merge and nested-loop candidates of add_paths, offered to `list` with
    /// add_path in the order PostgreSQL builds them. A candidate's plan node (EXPLAIN
    /// text, child nodes) is built only when add_path keeps it: most candidates lose, and
    /// building their nodes cost more than costing them.
    #[allow(clippy::too_many_arguments)]
    fn join_paths(
        &self,
        b: &Block<'a>,
        s: &Search,
        (outer, inner, jt): (u64, u64, PJ),
        eqs: &[EqClause],
        param_inner: Option<&[JPath]>,
        scansels: &[ScanSel],
        list: &mut Vec<JPath>,
        param_outer: Option<(&[JPath], f64, f64)>,
    ) {
        let jc = &self.jc;
        let joined = outer | inner;
        let Some(jrel) = s.rels.get(&joined) else {
            return;
        };
        // A parameterized join (param_join_paths): its outer paths, rows and true rows.
        let (rows, width) = (param_outer.map_or(jrel.rows, |p| p.1), jrel.width);
        let fids = self.filters_between(b, outer, inner);
        let fids: &[usize] = &fids;
        let (Some(orel), Some(irel)) = (s.rels.get(&outer), s.rels.get(&inner)) else {
            return;
        };
        let mut outer_paths: &[JPath] = param_outer.map_or(&orel.paths[..], |p| p.0);
        let mut inner_paths: &[JPath] = &irel.paths;
        if outer_paths.is_empty() || inner_paths.is_empty() {
            return;
        }
        // Unique-ified RHS (§6.1): the RHS columns of the join's equality clauses.
        let unique_rhs: [JPath; 1];
        if let PJ::UniqueInner | PJ::UniqueOuter = jt {
            let (rhs, rhs_paths) = if jt == PJ::UniqueInner {
                (inner, inner_paths)
            } else {
                (outer, outer_paths)
            };
            let cols: Vec<ColKey> = eqs
                .iter()
                .map(|c| {
                    if rhs & bit(c.inner.rel) != 0 {
                        c.inner.clone()
                    } else {
                        c.outer.clone()
                    }
                })
                .collect();
            if cols.is_empty() || !fids.is_empty() {
                return;
            }
            let Some(cheap) = cheapest_total(rhs_paths) else {
                return;
            };
            unique_rhs = [self.unique_path(b, cheap, rhs, &cols)];
            if jt == PJ::UniqueInner {
                inner_paths = &unique_rhs;
            } else {
                outer_paths = &unique_rhs;
            }
        }
        let kind = jt.cost_kind();
        let inner_rows_rel = inner_paths[0].rows;
        // add_paths_to_joinrel: unproven for semi and anti joins; the reversed forms go
        // through innerrel_is_unique like any other join.
        let unique_inner = matches!(jt, PJ::UniqueInner)
            || (matches!(
                jt,
                PJ::Inner | PJ::Left | PJ::Right | PJ::UniqueOuter | PJ::RightAnti | PJ::RightSemi
            ) && self.inner_unique_cached(b, s, inner, eqs));
        let nsel = self.inner_sel(b, eqs, fids);
        // compute_semi_anti_join_factors takes the semi join's own selectivity also when
        // the semi join runs as an inner join against the unique-ified RHS.
        let semi = if matches!(jt, PJ::Semi | PJ::Anti | PJ::UniqueInner) {
            let rhs_rows = irel.rows;
            Some(SemiFactors::new(
                self.semi_sel(b, eqs, fids, rhs_rows),
                nsel,
                rhs_rows,
            ))
        } else if unique_inner && matches!(jt, PJ::RightAnti | PJ::RightSemi) {
            // compute_semi_anti_join_factors with the semi or anti join's own sjinfo: the
            // semi selectivity of its left side (now the inner) against its right side.
            let mut jselec = 1.0;
            for c in eqs {
                jselec *= b.eqjoinsel_semi(c.inner, c.outer, orel.rows);
            }
            for &f in fids {
                jselec *= b.jfilters[f].sel_semi;
            }
            Some(SemiFactors::new(jselec, nsel, inner_rows_rel))
        } else if unique_inner {
            // The quirk of §3.3: a unique inner's factors come from the inner selectivity.
            Some(SemiFactors::new(nsel, nsel, inner_rows_rel))
        } else {
            None
        };
        // The quals of join filters `fs`, summed.
        let quals_of = |fs: &[usize]| {
            fs.iter().fold(Qual::default(), |a, &f| Qual {
                startup: a.startup + b.jfilters[f].qual.startup,
                per_tuple: a.per_tuple + b.jfilters[f].qual.per_tuple,
            })
        };
        let fq = quals_of(fids);
        // The join filters' function calls, made on the rows the join clauses pass
        // (evaluated cheapest first, the equalities before them): the join's rows before
        // the filters.
        let filter_calls = |rows: f64| {
            let calls: f64 = fids.iter().map(|&f| b.jfilters[f].calls).sum();
            if calls == 0.0 {
                return 0.0;
            }
            let sel: f64 = fids.iter().map(|&f| b.jfilters[f].sel).product();
            calls * rows / sel.max(1e-12)
        };
        let cop = jc.cop();
        let eq_qual = Qual {
            startup: 0.0,
            per_tuple: cop * eqs.len() as f64,
        };
        // A parameterized join's outer is its one parameterized path.
        let co = match param_outer {
            Some(_) => outer_paths.first(),
            None => cheapest_total(outer_paths),
        };
        let (Some(co), Some(ci)) = (co, cheapest_total(inner_paths)) else {
            return;
        };
        let label = jt.label();
        let filter_text = text(|| {
            and_text(
                &fids
                    .iter()
                    .map(|&f| b.jfilters[f].text.clone())
                    .collect::<Vec<_>>(),
            )
        })
        .unwrap_or_default();
        let filter_text: &str = &filter_text;
        // EXPLAIN's lines of a join node: its own condition line, the join filter, the
        // join type first.
        let join_details = move |mut v: Vec<String>| {
            if !filter_text.is_empty() {
                v.extend(text(|| format!("Join Filter: {filter_text}")));
            }
            if let Some(l) = label {
                v.insert(0, l.to_string());
            }
            v
        };

        // The nested loops' inners: the cheapest inner, a Materialize over it unless it
        // materializes already, and parameterized index paths, each of these with a
        // Memoize per number of calls (the outer paths mostly share their rows).
        // enable_material off: no Materialize is offered (match_unsorted_outer).
        let material = (self.opts.enable_material
            && !jt.is_right()
            && !matches!(ci.rescan, Rescan::Fixed(..)))
        .then(|| {
            let (ms, mt) = costs::material(jc, ci.input());
            let (rs, rt) = costs::material_rescan(jc, ci.rows, ci.width);
            // Its node is built by the first kept nested loop over it (`material_node`).
            JPath {
                startup: ms,
                total: mt,
                rescan: Rescan::Fixed(rs, rt),
                node: s.pending.clone(),
                can_mark: true,
                pathkeys: copy_keys(&ci.pathkeys),
                param_ecs: copy_keys(&ci.param_ecs),
                ..*ci
            }
        });
        // The Materialize node over the cheapest inner, once a kept nested loop needs it
        // (most calls keep none).
        let material_node = std::cell::OnceCell::new();
        let material_node = |m: &JPath| {
            material_node
                .get_or_init(|| {
                    Node::new(
                        "Materialize",
                        m.startup,
                        m.total,
                        ci.rows,
                        ci.width,
                        Work {
                            rows_out: ci.rows,
                            ..Work::default()
                        },
                        Vec::new(),
                        [ci.node.clone()],
                    )
                })
                .clone()
        };
        let mut inners: SmallVec<[(&JPath, bool); 8]> = smallvec![(ci, false)];
        if let Some(m) = &material {
            inners.push((m, false));
        }
        for p in param_inner.unwrap_or_default() {
            // Memoize over a parameterized path (PG14+, §2.4).
            if p.param & outer == p.param {
                inners.push((p, true));
            }
        }
        let outers: &[JPath] = if jt == PJ::UniqueOuter {
            std::slice::from_ref(co)
        } else {
            outer_paths
        };
        // (inner index, calls, the Memoize path, what its node needs): the node is built
        // only for a kept nested loop.
        let mut memoized: SmallVec<[(usize, f64, JPath, MemoInfo); 2]> = SmallVec::new();
        if !jt.is_right() {
            for op in outers {
                let calls = op.rows.max(1.0);
                for (k, &(ip, is_param)) in inners.iter().enumerate() {
                    // get_memoize_path returns nothing with enable_memoize off, for a
                    // semi or anti join (never proven inner-unique), and for a unique
                    // inner whose parameters are not the whole join condition (the
                    // cache entry is complete after one row only if they are).
                    let whole_condition =
                        fids.is_empty() && eqs.iter().all(|c| ip.param_ecs.contains(&c.ec));
                    if is_param
                        && self.opts.enable_memoize
                        && !matches!(jt, PJ::Semi | PJ::Anti)
                        && (!unique_inner || whole_condition)
                        && !memoized.iter().any(|m| m.0 == k && m.1 == calls)
                    {
                        let (mp, info) = self.memoize(b, s, ip, outer, calls);
                        memoized.push((k, calls, mp, info));
                    }
                }
            }
        }

        // A join filter `col = (SubPlan)` with the column on one side and the sub-select's
        // inputs on the other is a mergejoinable and hashjoinable clause of its own: Some
        // (the column is on the inner side), else None.
        let subplan_clause = |f: usize| {
            let jf = &b.jfilters[f];
            let hc = jf.hash_col.as_ref()?;
            let others = jf.rels & !bit(hc.rel);
            let col_inner = inner & bit(hc.rel) != 0 && others & !outer == 0;
            let col_outer = outer & bit(hc.rel) != 0 && others & !inner == 0;
            (col_inner || col_outer).then_some(col_inner)
        };
        // sort_inner_and_outer merges on every mergejoinable clause, these too: their
        // SubPlan is then evaluated at every merge comparison (final_cost_mergejoin's
        // merge quals), not only on the joined rows as a join filter. Q2's SubPlan clause
        // at SF 10: merging partsupp with part on both clauses costs far more than the
        // server's merge on p_partkey alone with the SubPlan as a join filter.
        let subplan_merge: SmallVec<[usize; 2]> = fids
            .iter()
            .copied()
            .filter(|&f| subplan_clause(f).is_some())
            .collect();
        // The merge joins' trials: (outer path, merge clauses in order, sort_inner_and_outer's:
        // the cheapest outer sorted on every merge clause).
        let mut trials: SmallVec<[(&JPath, Keys, bool); 6]> = SmallVec::new();
        for lead in 0..eqs.len() {
            let mut o: Keys = smallvec![lead];
            o.extend((0..eqs.len()).filter(|&x| x != lead));
            trials.push((co, o, true));
        }
        for op in outer_paths {
            if op.pathkeys.is_empty() {
                continue;
            }
            // find_mergeclauses_for_outer_pathkeys: clauses matching the outer's keys.
            let mut ord = Keys::new();
            for pk in &op.pathkeys {
                match eqs.iter().position(|c| c.ec == *pk) {
                    Some(x) if !ord.contains(&x) => ord.push(x),
                    _ => break,
                }
            }
            // The cheapest outer is tried with explicit sorts already.
            let same_as_cheapest = op.pathkeys.len() == co.pathkeys.len()
                && is_prefix(&op.pathkeys, &co.pathkeys)
                && op.total == co.total;
            if !ord.is_empty() && !same_as_cheapest {
                trials.push((op, ord, false));
            }
        }
        // The cheapest inner and outer sorted here: the same for every ordering (each
        // made once, if a merge join needs it).
        let ci_sort = std::cell::OnceCell::new();
        let ci_sort = || *ci_sort.get_or_init(|| self.sort_cost(ci.input(), -1.0));
        let co_sort = std::cell::OnceCell::new();
        let co_sort = || *co_sort.get_or_init(|| self.sort_cost(co.input(), -1.0));
        let sort_node = move |p: &JPath, cost: SortCost, dis: u32, key: Vec<String>| {
            Self::sort_node(
                p,
                cost,
                dis,
                text(|| format!("Sort Key: {}", key.join(", "))),
            )
        };

        // The candidates borrow everything above. Each is offered to add_path as it is
        // built; its node is built only if add_path keeps it. add_path_precheck looks at
        // the list as it was before this call and at this call's earlier candidates.
        let mut cand = Candidates {
            true_rows: param_outer.map_or(jrel.true_rows, |p| p.2),
            pending: &s.pending,
            startup: b.consider_startup,
            list,
            prior: SmallVec::new(),
            kept: false,
        };
        // The node builders of kept candidates, by kind (see `NL_ID`).
        let mut nl_makers = SmallVec::<[_; 8]>::new();
        let mut hash_makers = SmallVec::<[_; 1]>::new();
        let mut merge_makers = SmallVec::<[_; 4]>::new();
        // Per outer path, the precheck bound of the list before this call (for the
        // nested loops' precheck, made only when startup costs do not count).
        let bounds: SmallVec<[(u32, f64); 8]> = if !jt.is_right() && !b.consider_startup {
            outers
                .iter()
                .map(|op| precheck_bound(cand.list, &op.pathkeys))
                .collect()
        } else {
            SmallVec::new()
        };

        // Nested loops (match_unsorted_outer), not for RIGHT joins; built with
        // enable_nestloop off too, disabled.
        let (nl_dc, nl_dis) = self.disable(self.opts.enable_nestloop);
        if !jt.is_right() {
            for (oi, op) in outers.iter().enumerate() {
                let loops = op.rows.max(1.0);
                // The nested loops' output order: the outer's, as far as useful.
                let pathkeys = if matches!(jt, PJ::UniqueOuter) {
                    &[][..]
                } else {
                    useful_keys(b, s, joined, &op.pathkeys)
                };
                for (k, &(ip, is_param)) in inners.iter().enumerate() {
                    let memo = memoized
                        .iter()
                        .find(|m| is_param && m.0 == k && m.1 == loops);
                    let memo_info = memo.map(|m| &m.3);
                    // The Materialize over the cheapest inner follows it in `inners`.
                    let is_material = k == 1 && material.is_some();
                    for (vi, v) in std::iter::once(ip).chain(memo.map(|m| &m.2)).enumerate() {
                        // Join clauses the index does not enforce stay join quals (also under
                        // a Memoize, whose path leaves the classes out).
                        let rest_eq =
                            move || eqs.iter().filter(move |c| !ip.param_ecs.contains(&c.ec));
                        let n_rest = rest_eq().count();
                        let q = Qual {
                            startup: fq.startup,
                            per_tuple: fq.per_tuple + cop * n_rest as f64,
                        };
                        // has_indexed_join_quals: the index path itself, not a Memoize over it.
                        // A parameterized join is no index path.
                        let indexed = is_param
                            && vi == 0
                            && n_rest == 0
                            && fids.is_empty()
                            && inner.count_ones() == 1;
                        let mut c = costs::nestloop(
                            jc,
                            op.input(),
                            v.input(),
                            v.rescan_cost(),
                            kind,
                            semi,
                            indexed,
                            q,
                            rows,
                        );
                        // final_cost_nestloop's enable_nestloop.
                        c.startup += nl_dc;
                        c.total += nl_dc;
                        let disabled = nl_dis + op.disabled + v.disabled;
                        // add_path_precheck weighs startup too when startup counts;
                        // skipped then (it only saves add_path's work).
                        if !b.consider_startup
                            && (beyond(disabled, c.total, bounds[oi])
                                || !cand.precheck(disabled, c.total, &op.pathkeys))
                        {
                            continue;
                        }
                        cand.note(disabled, c.total, pathkeys);
                        let id = NL_ID | nl_makers.len() as u32;
                        if !cand.push(
                            c.startup,
                            c.total,
                            rows,
                            width,
                            pathkeys,
                            Rescan::Same,
                            disabled,
                            id,
                        ) {
                            continue;
                        }
                        nl_makers.push(Some(move || {
                            let mut details = Vec::new();
                            if n_rest > 0 || !fids.is_empty() {
                                details.extend(text(|| {
                                    clause_line("Join Filter: ", b, rest_eq(), filter_text)
                                }));
                            }
                            if let Some(l) = label {
                                details.insert(0, l.to_string());
                            }
                            details.extend(Self::disabled_line(nl_dis));
                            Node::new(
                                "Nested Loop",
                                c.startup,
                                c.total,
                                rows,
                                width,
                                Work {
                                    rows_examined: c.inner_tuples,
                                    operator_evals: c.inner_tuples * (q.per_tuple / cop.max(1e-12)),
                                    rows_out: rows,
                                    function_calls: filter_calls(rows),
                                    ..Work::default()
                                },
                                details,
                                [
                                    op.node.clone(),
                                    Node::repeated(
                                        &match (vi, memo_info) {
                                            (1, Some(m)) => memo_node(v, ip, m),
                                            _ if is_material => material_node(v),
                                            _ => v.node.clone(),
                                        },
                                        loops,
                                    ),
                                ],
                            )
                        }));
                    }
                }
            }
        }

        // Hash joins (hash_inner_and_outer): cheapest total of each side. With
        // enable_hashjoin off add_paths_to_joinrel builds none (but for FULL joins,
        // which the model has not).
        if !eqs.is_empty() && self.opts.enable_hashjoin {
            let mut buckets: SmallVec<[costs::BucketInput; 4]> = if jt == PJ::UniqueInner {
                SmallVec::new()
            } else {
                eqs.iter().map(|c| b.ec_buckets[c.ec][c.ii]).collect()
            };
            let mut inner_sel: f64 = eqs.iter().map(|c| c.sel).product();
            // `col = (SubPlan)` with the column on one side and the sub-select's inputs on
            // the other is one more hash clause; its SubPlan cost is in the hash quals.
            let mut hq = eq_qual;
            let mut qp = fq;
            let mut nclauses = eqs.len();
            for &f in fids {
                let jf = &b.jfilters[f];
                let (Some(hc), Some(col_inner)) = (&jf.hash_col, subplan_clause(f)) else {
                    continue;
                };
                nclauses += 1;
                inner_sel *= jf.sel;
                hq.per_tuple += jf.qual.per_tuple;
                hq.startup += jf.qual.startup;
                qp.per_tuple -= jf.qual.per_tuple;
                qp.startup -= jf.qual.startup;
                if jt != PJ::UniqueInner {
                    buckets.push(if col_inner {
                        b.bucket_input(hc)
                    } else {
                        costs::BucketInput {
                            nd: 200.0,
                            nd_default: true,
                            nullfrac: 0.0,
                            mcv_freq: 0.0,
                            rel_rows: 1.0,
                            rel_tuples: 1.0,
                        }
                    });
                }
            }
            let c = costs::hashjoin(
                jc,
                co.input(),
                ci.input(),
                nclauses,
                &buckets,
                kind,
                semi,
                hq,
                Qual {
                    startup: qp.startup.max(0.0),
                    per_tuple: qp.per_tuple.max(0.0),
                },
                inner_sel,
            );
            let rescan = if c.nbatch <= 1.0 {
                Rescan::Fixed(0.0, c.total - c.startup)
            } else {
                Rescan::Same
            };
            let disabled = co.disabled + ci.disabled;
            let id = HASH_ID | hash_makers.len() as u32;
            if cand.push(c.startup, c.total, rows, width, &[], rescan, disabled, id) {
                hash_makers.push(Some(move || {
                    let spill = |rows: f64, width: f64| {
                        if c.nbatch > 1.0 {
                            costs::page_size(rows, width) * 8192.0 * 2.0
                        } else {
                            0.0
                        }
                    };
                    let hash = Node::new(
                        "Hash",
                        ci.total,
                        ci.total,
                        ci.rows,
                        ci.width,
                        Work {
                            rows_examined: ci.rows,
                            comparisons: ci.rows,
                            rows_out: ci.rows,
                            spill_bytes: spill(ci.rows, ci.width),
                            ..Work::default()
                        },
                        text(|| format!("Buckets: {}  Batches: {}", c.nbuckets, c.nbatch))
                            .into_iter()
                            .collect(),
                        [ci.node.clone()],
                    );
                    Node::new(
                        "Hash Join",
                        c.startup,
                        c.total,
                        rows,
                        width,
                        Work {
                            comparisons: co.rows,
                            rows_examined: co.rows,
                            rows_out: rows,
                            spill_bytes: spill(co.rows, co.width),
                            function_calls: filter_calls(rows),
                            ..Work::default()
                        },
                        join_details(
                            text(|| clause_line("Hash Cond: ", b, eqs.iter(), ""))
                                .into_iter()
                                .collect(),
                        ),
                        [co.node.clone(), hash],
                    )
                }));
            }
        }

        // Merge joins: explicit sorts of the cheapest inputs (sort_inner_and_outer), and
        // outer paths already in a merge-clause order (match_unsorted_outer). With
        // enable_mergejoin off add_paths_to_joinrel finds no merge clauses (but for
        // FULL joins): none is built.
        // A Right Semi Join is a hash join only (PostgreSQL 18).
        if !eqs.is_empty() && self.opts.enable_mergejoin && jt != PJ::RightSemi {
            for (op, ord, explicit) in &trials {
                let op: &JPath = op;
                let subs: &[usize] = if *explicit { &subplan_merge } else { &[] };
                let sq = quals_of(subs);
                let keys: Keys = ord.iter().map(|&x| eqs[x].ec).collect();
                let nmcl = ord.len();
                let mcl = move || ord.iter().map(move |&x| &eqs[x]);
                // The outer sorted here, unless it is in the order already.
                let outer_sort = (!is_prefix(&keys, &op.pathkeys)).then(|| {
                    if std::ptr::eq(op, co) {
                        co_sort()
                    } else {
                        self.sort_cost(op.input(), -1.0)
                    }
                });
                let oin = match outer_sort {
                    None => op.input(),
                    Some(((s, t, _, _), _)) => costs::In {
                        startup: s,
                        total: t,
                        rows: op.rows,
                        width: op.width,
                    },
                };
                // Inner: the cheapest sorted here, and an already-sorted path if any.
                // (path, its sort here, can mark) An outer sorted here is
                // sort_inner_and_outer's, which takes the cheapest inner only;
                // generate_mergejoin_paths looks for presorted inners under an outer
                // already in order.
                // try_mergejoin_path sorts no input already in order.
                let mut inner_choices: SmallVec<[(&JPath, Option<DisabledSort>, bool); 2]> =
                    if is_prefix(&keys, &ci.pathkeys) {
                        smallvec![(ci, None, ci.can_mark)]
                    } else {
                        smallvec![(ci, Some(ci_sort()), true)]
                    };
                if outer_sort.is_none() {
                    if let Some(sp) = inner_paths
                        .iter()
                        .filter(|p| p.param == 0 && is_prefix(&keys, &p.pathkeys))
                        .min_by(|a, b| cheaper_total(a, b))
                    {
                        inner_choices.push((sp, None, sp.can_mark));
                    }
                }
                let ss = scansels[ord[0]];
                let skip_mark = (matches!(jt, PJ::Semi | PJ::Anti) || unique_inner)
                    && fids.len() == subs.len()
                    && nmcl == eqs.len();
                let mtuples = clamp_row_est(
                    oin.rows
                        * ci.rows
                        * mcl().map(|c| c.sel).product::<f64>()
                        * subs.iter().map(|&f| b.jfilters[f].sel).product::<f64>(),
                );
                let mq = Qual {
                    startup: sq.startup,
                    per_tuple: cop * nmcl as f64 + sq.per_tuple,
                };
                let qp = Qual {
                    startup: (fq.startup - sq.startup).max(0.0),
                    per_tuple: (fq.per_tuple - sq.per_tuple).max(0.0)
                        + cop * (eqs.len() - nmcl) as f64,
                };
                let pk = if jt.is_right() || jt == PJ::UniqueOuter {
                    &[][..]
                } else {
                    useful_keys(b, s, joined, &keys)
                };
                for (ip, inner_sort, can_mark) in inner_choices {
                    let iin = match inner_sort {
                        None => ip.input(),
                        Some(((s, t, _, _), _)) => costs::In {
                            startup: s,
                            total: t,
                            rows: ip.rows,
                            width: ip.width,
                        },
                    };
                    let skip = skip_mark || jt == PJ::UniqueOuter;
                    let c = costs::mergejoin(
                        jc,
                        oin,
                        iin,
                        ss,
                        skip,
                        inner_sort.is_some(),
                        can_mark,
                        self.opts.enable_material,
                        mq,
                        qp,
                        mtuples,
                    );
                    // The join's, its inputs' and its explicit sorts' disabled nodes
                    // (initial_cost_mergejoin).
                    let disabled = op.disabled
                        + ip.disabled
                        + outer_sort.map_or(0, |x| x.1)
                        + inner_sort.map_or(0, |x| x.1);
                    let id = MERGE_ID | merge_makers.len() as u32;
                    if !cand.push(
                        c.startup,
                        c.total,
                        rows,
                        width,
                        pk,
                        Rescan::Same,
                        disabled,
                        id,
                    ) {
                        continue;
                    }
                    merge_makers.push(Some(move || {
                        // A join's sort keys name their relation (EXPLAIN's useprefix):
                        // the merge clauses' outer (`inner` false) or inner columns.
                        let keys = |inner: bool| {
                            text(|| {
                                mcl()
                                    .map(|c| {
                                        let k = if inner { c.inner } else { c.outer };
                                        format!("{}.{}", b.rels[k.rel].alias, k.col)
                                    })
                                    .collect()
                            })
                            .unwrap_or_default()
                        };
                        let onode = match outer_sort {
                            None => op.node.clone(),
                            Some((sc, dis)) => sort_node(op, sc, dis, keys(false)),
                        };
                        let inode = match inner_sort {
                            None => ip.node.clone(),
                            Some((sc, dis)) => sort_node(ip, sc, dis, keys(true)),
                        };
                        let inode = if c.materialize_inner {
                            Node::new(
                                "Materialize",
                                iin.startup,
                                iin.total + cop * iin.rows,
                                iin.rows,
                                iin.width,
                                Work {
                                    rows_out: iin.rows,
                                    ..Work::default()
                                },
                                Vec::new(),
                                [inode],
                            )
                        } else {
                            inode
                        };
                        Node::new(
                            "Merge Join",
                            c.startup,
                            c.total,
                            rows,
                            width,
                            Work {
                                comparisons: oin.rows + c.inner_tuples,
                                rows_out: rows,
                                function_calls: filter_calls(rows),
                                ..Work::default()
                            },
                            if subs.is_empty() {
                                join_details(
                                    text(|| clause_line("Merge Cond: ", b, mcl(), ""))
                                        .into_iter()
                                        .collect(),
                                )
                            } else {
                                merge_details_with_subplans(b, mcl(), fids, subs, label)
                            },
                            [onode, inode],
                        )
                    }));
                }
            }
        }
        cand.finish(|id| match id & ID_KIND {
            NL_ID => build_deferred(&mut nl_makers, id),
            HASH_ID => build_deferred(&mut hash_makers, id),
            _ => build_deferred(&mut merge_makers, id),
        });
    }

    /// mergejoinscansel of a clause, computed once per class and member pair.
    fn scansel_of(&self, b: &Block, s: &mut Search, c: &EqClause) -> ScanSel {
        let m = b.ecs[c.ec].len();
        let slot = &mut s.scansel[c.ec][c.oi * m + c.ii];
        *slot.get_or_insert_with(|| self.scansel(b, c))
    }

    /// mergejoinscansel for the first merge clause (§4.1), from the histogram ends.
    fn scansel(&self, b: &Block, c: &EqClause) -> ScanSel {
        let range =
            |k: &ColKey| -> Option<(costlab_model::catalog::Value, costlab_model::catalog::Value)> {
                let v = b.stats(k);
                let mut lo = v.hist.first().cloned();
                let mut hi = v.hist.last().cloned();
                for (m, _) in v.mcv {
                    if lo
                        .as_ref()
                        .is_none_or(|l| selfuncs::compare(m, l) == Some(std::cmp::Ordering::Less))
                    {
                        lo = Some(m.clone());
                    }
                    if hi.as_ref().is_none_or(|h| {
                        selfuncs::compare(m, h) == Some(std::cmp::Ordering::Greater)
                    }) {
                        hi = Some(m.clone());
                    }
                }
                Some((lo?, hi?))
            };
        let sel = |k: &ColKey, op: CmpOp, v: &costlab_model::catalog::Value| -> Option<f64> {
            let RelKind::Table { rel, .. } = &b.rels[k.rel].kind else {
                return None;
            };
            let col = rel
                .cols
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(&k.col))?;
            Some(selfuncs::scalarineqsel(rel, col, op, v))
        };
        let (Some((lmin, lmax)), Some((rmin, rmax))) = (range(c.outer), range(c.inner)) else {
            return ScanSel::default();
        };
        let lt = |a: &costlab_model::catalog::Value, b: &costlab_model::catalog::Value| {
            selfuncs::compare(a, b) == Some(std::cmp::Ordering::Less)
        };
        let mut s = ScanSel::default();
        if lt(&lmin, &rmin) {
            s.outerstart = sel(c.outer, CmpOp::Lt, &rmin).unwrap_or(0.0);
        }
        if lt(&rmin, &lmin) {
            s.innerstart = sel(c.inner, CmpOp::Lt, &lmin).unwrap_or(0.0);
        }
        if lt(&rmax, &lmax) {
            s.outerend = sel(c.outer, CmpOp::Le, &rmax).unwrap_or(1.0);
        }
        if lt(&lmax, &rmax) {
            s.innerend = sel(c.inner, CmpOp::Le, &lmax).unwrap_or(1.0);
        }
        if s.outerstart >= s.outerend {
            s.outerstart = 0.0;
            s.outerend = 1.0;
        }
        if s.innerstart >= s.innerend {
            s.innerstart = 0.0;
            s.innerend = 1.0;
        }
        s
    }

    /// param_paths for inner relation `r` below `outer`, cached per the part of `outer`
    /// that can supply a parameter (the relations sharing a class with `r`): the same
    /// parameterized paths serve every outer set with that part.
    fn param_paths_for(&self, b: &Block<'a>, s: &mut Search, r: usize, outer: u64) -> Rc<[JPath]> {
        let key = outer & s.ec_neighbours[r];
        if key == 0 {
            // No class links `r` to the outer side: no parameter, no path.
            return Rc::from(Vec::new());
        }
        s.param_paths
            .entry((r, key))
            .or_insert_with(|| Rc::from(self.param_paths(b, r, key)))
            .clone()
    }

    /// A Memoize over parameterized path `ip` whose parameters come from `outer`, for
    /// `calls` outer rows (PG14+, §2.4).
    fn memoize<'b>(
        &self,
        b: &'b Block,
        s: &Search,
        ip: &JPath,
        outer: u64,
        calls: f64,
    ) -> (JPath, MemoInfo<'b>) {
        let jc = &self.jc;
        let pcols: SmallVec<[&ColKey; 2]> = ip
            .param_ecs
            .iter()
            .filter_map(|e| b.ecs[*e].iter().find(|m| outer & bit(m.rel) != 0))
            .collect();
        // A default ndistinct makes Memoize assume every call distinct (§2.4).
        let distinct = || {
            if pcols.iter().any(|c| b.stats(c).nd_default) {
                calls
            } else {
                let cols: SmallVec<[ColKey; 2]> = pcols.iter().map(|&c| c.clone()).collect();
                super::upper::estimate_num_groups(b, &cols, calls)
            }
        };
        // The cache key's columns follow from the classes and the outer relations; the
        // same inner path under the same outer rows recurs across the outer paths and
        // join orders of a search.
        let ecs = ip.param_ecs.iter().fold(0, |a, &e| a | ec_bit(e));
        let nd = if ip.param_ecs.iter().all(|&e| e < 64) {
            *s.memo_groups
                .borrow_mut()
                .entry((ecs, outer, calls.to_bits()))
                .or_insert_with(distinct)
        } else {
            distinct()
        };
        let pg16 = self.version >= EngineVersion::Pg16;
        let (rs, rt, hit) = costs::memoize_rescan(jc, ip.input(), calls, nd, pg16);
        // The nested loops read the path's costs, rows, rescan and disabled nodes; the
        // Memoize node (`memo_node`) is built over `ip` for a kept nested loop, whose
        // join quals `ip`'s parameter classes say.
        (
            JPath {
                startup: ip.startup + jc.ctup(),
                total: ip.total + jc.ctup(),
                rescan: Rescan::Fixed(rs, rt),
                pathkeys: PathKeys::new(),
                node: s.pending.clone(),
                param_ecs: SmallVec::new(),
                ..*ip
            },
            MemoInfo {
                pcols,
                hit,
                misses: (calls * (1.0 - hit)).max(1.0),
            },
        )
    }
}

/// What a Memoize node needs beyond its path: the cache key columns and hit ratio.
struct MemoInfo<'b> {
    pcols: SmallVec<[&'b ColKey; 2]>,
    hit: f64,
    /// Calls the cache misses: the inner runs only for these, however many loops.
    misses: f64,
}

/// The Memoize node of path `mp` (from `memoize`) over parameterized path `ip`.
fn memo_node(mp: &JPath, ip: &JPath, m: &MemoInfo) -> Rc<Node> {
    Node::new(
        "Memoize",
        mp.startup,
        mp.total,
        ip.rows,
        ip.width,
        Work {
            rows_out: ip.rows,
            ..Work::default()
        },
        [
            text(|| {
                format!(
                    "Cache Key: {}",
                    m.pcols
                        .iter()
                        .map(|c| c.col.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
            text(|| format!("Estimated hit ratio: {:.3}", m.hit)),
        ]
        .into_iter()
        .flatten()
        .collect(),
        [Node::repeated(&ip.node, m.misses)],
    )
}

/// Join candidates of one add_paths call, offered to add_path in the order they are
/// built. A candidate's `node` is the shared placeholder `pending`; the builder of its
/// real node, which the caller keeps under the candidate's id (`push`) only if add_path
/// kept it, runs in `finish` for the candidates still in the list then: a later
/// candidate of the same call often displaces one add_path kept, and building and
/// dropping its node cost more than costing it.
struct Candidates<'c, 'l> {
    pending: &'c Rc<Node>,
    /// The join relation's consider_startup ([`Block::consider_startup`]).
    startup: bool,
    list: &'l mut Vec<JPath>,
    /// This call's earlier candidates: (disabled nodes, total, pathkeys), for
    /// add_path_precheck.
    prior: SmallVec<[(u32, f64, &'c [usize]); 32]>,
    /// The join relation's true rows.
    true_rows: f64,
    /// add_path kept a candidate of this call.
    kept: bool,
}

/// A kept candidate's id (`JPath::pending`): the kind of its node builder, nested loop,
/// hash or merge join, in the top bits, its number among the builders of that kind in
/// the rest (never 0: 0 is a built node).
const NL_ID: u32 = 1 << 28;
const HASH_ID: u32 = 2 << 28;
const MERGE_ID: u32 = 3 << 28;
const ID_KIND: u32 = 0xf << 28;

/// Takes the node builder `id` (less its kind) of `makers` and builds the node.
fn build_deferred<F: FnOnce() -> Rc<Node>>(makers: &mut [Option<F>], id: u32) -> Rc<Node> {
    let make = makers
        .get_mut((id & !ID_KIND) as usize)
        .and_then(Option::take);
    make.expect("a kept join candidate without its node")()
}

impl<'c> Candidates<'c, '_> {
    /// add_path_precheck against this call's earlier candidates.
    fn precheck(&self, disabled: u32, total: f64, pathkeys: &[usize]) -> bool {
        !self.prior.iter().any(|&(d, t, keys)| {
            beyond(disabled, total, (d, t * FUZZ)) && is_prefix(pathkeys, keys)
        })
    }

    /// Notes a nested loop candidate for add_path_precheck (before `push`).
    fn note(&mut self, disabled: u32, total: f64, pathkeys: &'c [usize]) {
        self.prior.push((disabled, total, pathkeys));
    }

    /// Offers a join path (unparameterized, no mark/restore) whose node is built later
    /// by the builder the caller keeps under `id` if this returns true (add_path kept it).
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        startup: f64,
        total: f64,
        rows: f64,
        width: f64,
        pathkeys: &[usize],
        rescan: Rescan,
        disabled: u32,
        id: u32,
    ) -> bool {
        let head = PathHead {
            startup,
            total,
            rows,
            pathkeys,
            param: 0,
            disabled,
        };
        let pending = self.pending;
        let kept = add_path_head(self.list, head, self.startup, || JPath {
            startup,
            total,
            rows,
            width,
            pathkeys: copy_keys(pathkeys),
            param: 0,
            rescan,
            node: pending.clone(),
            param_ecs: SmallVec::new(),
            can_mark: false,
            disabled,
            pending: id,
        });
        self.kept |= kept;
        kept
    }

    /// Builds the nodes of this call's candidates that are still in the list: `make`
    /// builds the node of a candidate id.
    fn finish(self, mut make: impl FnMut(u32) -> Rc<Node>) {
        if !self.kept {
            return;
        }
        for p in self.list.iter_mut().filter(|p| p.pending != 0) {
            p.node = Node::with_true_rows(make(p.pending), TrueRows::out(self.true_rows));
            p.pending = 0;
        }
    }
}

/// add_path_precheck's bound from `list` as (disabled nodes, total × fuzz): a path with
/// these pathkeys `beyond` the bound would be rejected (infinite when no path of the
/// list bounds it).
fn precheck_bound(list: &[JPath], pathkeys: &[usize]) -> (u32, f64) {
    let mut bound = (u32::MAX, f64::INFINITY);
    for old in list.iter().filter(|p| p.param == 0) {
        if is_prefix(pathkeys, &old.pathkeys) {
            let b = (old.disabled, old.total * FUZZ);
            if b.0 < bound.0 || (b.0 == bound.0 && b.1 < bound.1) {
                bound = b;
            }
        }
    }
    bound
}

/// A path with `disabled` nodes and cost `total` loses to a bound (disabled nodes,
/// total × fuzz): PostgreSQL 18's add_path_precheck compares the disabled nodes first.
fn beyond(disabled: u32, total: f64, (bd, bt): (u32, f64)) -> bool {
    disabled > bd || (disabled == bd && total > bt)
}

/// A kNN scan's `Order By: (key <-> '(x,y)'::point)` line, where EXPLAIN prints it:
/// after the index condition, before the filter.
fn order_by_line(n: &Rc<Node>, key: &str, point: &str) -> Rc<Node> {
    let Some(line) = text(|| format!("Order By: ({key} <-> {point})")) else {
        return n.clone();
    };
    Node::with_plan(n, |plan, _| {
        let at = plan
            .details
            .iter()
            .position(|d| !d.starts_with("Index Cond:"))
            .unwrap_or(plan.details.len());
        plan.details.insert(at, line);
    })
}

/// A relation pair's join clauses.
type Clauses<'b> = SmallVec<[EqClause<'b>; 4]>;

/// Equivalence classes or clause positions in an order (merge keys): a few each.
type Keys = SmallVec<[usize; 4]>;

/// costs::sort's (startup, total, comparisons, spill bytes).
pub(crate) type SortCost = (f64, f64, f64, f64);

/// A Sort's costs and its own disabled nodes (enable_sort).
type DisabledSort = (SortCost, u32);

/// EXPLAIN's lines of a merge join whose merge clauses include `col = (SubPlan)` clauses
/// (`subs`): those in the Merge Cond, the other join filters in the Join Filter. The sort
/// keys above its inputs name the equality clauses' columns only.
fn merge_details_with_subplans<'e, 'b: 'e>(
    b: &Block,
    eqs: impl Iterator<Item = &'e EqClause<'b>> + Clone,
    fids: &[usize],
    subs: &[usize],
    label: Option<&str>,
) -> Vec<String> {
    let text_of = |keep: &dyn Fn(usize) -> bool| {
        and_text(
            &fids
                .iter()
                .filter(|&&f| keep(f))
                .map(|&f| b.jfilters[f].text.clone())
                .collect::<Vec<_>>(),
        )
    };
    let mut v: Vec<String> =
        text(|| clause_line("Merge Cond: ", b, eqs, &text_of(&|f| subs.contains(&f))))
            .into_iter()
            .collect();
    let rest = text(|| text_of(&|f| !subs.contains(&f))).unwrap_or_default();
    if !rest.is_empty() {
        v.extend(text(|| format!("Join Filter: {rest}")));
    }
    if let Some(l) = label {
        v.insert(0, l.to_string());
    }
    v
}

/// Conditions ANDed as EXPLAIN prints them: one as it is, several in parentheses.
fn and_text(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        _ => format!("({})", parts.join(" AND ")),
    }
}

/// `label` and the join clauses `eqs` then the condition `rest` (empty: none) ANDed as
/// [`and_text`] prints them, built in one buffer: kept join paths format these lines
/// by the thousand.
fn clause_line<'e, 'b: 'e>(
    label: &str,
    b: &Block,
    eqs: impl Iterator<Item = &'e EqClause<'b>> + Clone,
    rest: &str,
) -> String {
    use std::fmt::Write;
    let n = eqs.clone().count() + usize::from(!rest.is_empty());
    let mut out = String::with_capacity(label.len() + 40 * n);
    out.push_str(label);
    if n > 1 {
        out.push('(');
    }
    let mut first = true;
    for c in eqs {
        if !first {
            out.push_str(" AND ");
        }
        first = false;
        let _ = write!(
            out,
            "({}.{} = {}.{})",
            b.rels[c.outer.rel].alias, c.outer.col, b.rels[c.inner.rel].alias, c.inner.col
        );
    }
    if !rest.is_empty() {
        if !first {
            out.push_str(" AND ");
        }
        out.push_str(rest);
    }
    if n > 1 {
        out.push(')');
    }
    out
}

/// truncate_useless_pathkeys: a join path keeps the longest prefix of its order that
/// the query's grouping/ordering wants or that a merge join with a relation not yet
/// joined can use.
fn useful_keys<'k>(b: &Block, s: &Search, relids: u64, keys: &'k [usize]) -> &'k [usize] {
    let n_order = keys
        .iter()
        .zip(s.query_keys.iter())
        .take_while(|(a, q)| a == q)
        .count();
    let n_merge = keys
        .iter()
        .take_while(|&&k| k < b.ecs.len() && s.ec_rels[k] & !relids != 0)
        .count();
    &keys[..n_order.max(n_merge)]
}

/// Hashes a relation set (a bitmap): one multiplication instead of SipHash, which the
/// join search's map lookups, one per pair of relations and more, spent most time in.
#[derive(Default)]
struct RelidsHasher(u64);

impl std::hash::Hasher for RelidsHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &x in bytes {
            self.0 = (self.0.rotate_left(8) ^ x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

type RelidsMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<RelidsHasher>>;

/// One join search: the join relations found so far, and what the search would
/// otherwise recompute for every pair of relations it tries. Everything here is a pure
/// function of the block, so caching changes no result.
struct Search {
    rels: RelidsMap<u64, JoinRel>,
    /// Join relations by level (number of base relations).
    levels: Vec<Vec<u64>>,
    /// Per class, the relations of its members.
    ec_rels: Vec<u64>,
    /// Per base relation, the relations it shares a class with.
    ec_neighbours: Vec<u64>,
    /// Per class with m members, entry i*m+j: eqjoinsel_inner of member i (outer side)
    /// against member j (inner side), for members of different relations.
    ec_sel: Vec<Vec<f64>>,
    /// Per class, entry i*m+j: members i and j are the clause of an anti or left join
    /// as the query writes it (one member inside the join's right side, one outside).
    ec_outer_join_edge: Vec<Vec<bool>>,
    /// Per class, entry i*m+j: mergejoinscansel, once a merge join asks for it.
    scansel: Vec<Vec<Option<ScanSel>>>,
    /// The order the query wants (GROUP BY, else ORDER BY) as pathkeys.
    query_keys: Vec<usize>,
    /// param_paths per (relation, outer relations that supply its parameters).
    param_paths: RelidsMap<(usize, u64), Rc<[JPath]>>,
    /// The node of a join candidate not yet built (see `Candidates`).
    pending: Rc<Node>,
    /// Memoize's distinct parameter values per (parameter classes as bits, outer
    /// relations, calls as bits): estimate_num_groups, a pure function of those.
    memo_groups: std::cell::RefCell<RelidsMap<(u64, u64, u64), f64>>,
    /// `inner_unique` per (inner relation, clause columns packed, number of clauses).
    inner_unique: std::cell::RefCell<RelidsMap<(u64, u64, u64), bool>>,
}

impl Search {
    /// `group`: the grouping keys after remove_useless_groupby_columns.
    fn new(b: &Block, group: &[ColKey]) -> Search {
        let n = b.rels.len();
        let ec_rels: Vec<u64> = b
            .ecs
            .iter()
            .map(|ec| ec.iter().fold(0, |a, m| a | bit(m.rel)))
            .collect();
        let ec_neighbours = (0..n)
            .map(|r| {
                ec_rels
                    .iter()
                    .filter(|&&er| er & bit(r) != 0)
                    .fold(0, |a, &er| a | er)
                    & !bit(r)
            })
            .collect();
        let mut ec_sel = Vec::with_capacity(b.ecs.len());
        let mut ec_outer_join_edge = Vec::with_capacity(b.ecs.len());
        for ec in &b.ecs {
            let m = ec.len();
            let mut sel = vec![f64::NAN; m * m];
            let mut edge = vec![false; m * m];
            for i in 0..m {
                for j in 0..m {
                    if ec[i].rel != ec[j].rel {
                        sel[i * m + j] = b.eqjoinsel_inner(&ec[i], &ec[j]);
                    }
                    let (ri, rj) = (bit(ec[i].rel), bit(ec[j].rel));
                    let outer_join = b.specials.iter().any(|sp| {
                        matches!(sp.kind, JKind::Anti | JKind::Left)
                            && ((sp.rhs & ri != 0) != (sp.rhs & rj != 0))
                    });
                    edge[i * m + j] = outer_join
                        && b.edges.iter().any(|(x, y)| {
                            (*x == ec[i] && *y == ec[j]) || (*x == ec[j] && *y == ec[i])
                        });
                }
            }
            ec_sel.push(sel);
            ec_outer_join_edge.push(edge);
        }
        let query_keys = if !group.is_empty() {
            group
        } else {
            &b.order[..]
        }
        .iter()
        .map(|g| pk_of(b, g))
        .collect();
        Search {
            rels: RelidsMap::default(),
            levels: vec![Vec::new(); n + 1],
            ec_rels,
            ec_neighbours,
            scansel: b
                .ecs
                .iter()
                .map(|ec| vec![None; ec.len() * ec.len()])
                .collect(),
            ec_sel,
            ec_outer_join_edge,
            query_keys,
            param_paths: RelidsMap::default(),
            memo_groups: Default::default(),
            inner_unique: Default::default(),
            pending: Node::leaf(costlab_model::plan::PlanNode::leaf(
                "(not built)",
                costlab_model::plan::Cost::new(0.0, 0.0),
                0.0,
                Work::default(),
            )),
        }
    }

    /// Is there a join clause (class or filter) or a special-join link between the sets?
    fn linked(&self, b: &Block, r1: u64, r2: u64) -> bool {
        self.ec_rels.iter().any(|&er| er & r1 != 0 && er & r2 != 0)
            || b.jfilters
                .iter()
                .any(|f| f.rels & r1 != 0 && f.rels & r2 != 0 && f.rels & !(r1 | r2) == 0)
    }
}

/// The bit of an equivalence class in `TrueRows::order` and `probes` (none past 63).
fn ec_bit(ec: usize) -> u64 {
    if ec < 64 {
        1 << ec
    } else {
        0
    }
}

/// `node`, an index scan of relation `r` by its index `i`, with its rows marked as coming
/// in the order of the index's first key (`TrueRows::order`): a btree scan returns them so.
fn in_index_order(node: Rc<Node>, b: &Block, r: usize, rel: &Rel, i: usize) -> Rc<Node> {
    let Some(&c) = rel.indexes[i].keys.first() else {
        return node;
    };
    let order = col_order(b, r, &rel.cols[c].name);
    if order == 0 {
        return node;
    }
    let t = match &*node {
        Node::Op { true_rows, .. } => TrueRows {
            order,
            ..*true_rows
        },
        Node::Repeated { .. } => return node,
    };
    Node::with_true_rows(node, t)
}

/// The bit of the equivalence class column `col` of relation `r` belongs to (0: none).
fn col_order(b: &Block, r: usize, col: &str) -> u64 {
    b.ec_of
        .iter()
        .find(|(k, _)| k.rel == r && k.col.eq_ignore_ascii_case(col))
        .map_or(0, |(_, &ec)| ec_bit(ec))
}

/// The equivalence classes whose values relation `r`'s heap stores in ascending order
/// (a column correlation above 0.5: tpchgen writes orders and lineitem by order key).
fn heap_order(b: &Block, r: usize, rel: &Rel) -> u64 {
    let mut m = 0;
    for (key, &ec) in &b.ec_of {
        if key.rel != r {
            continue;
        }
        if let Some(c) = rel
            .cols
            .iter()
            .find(|c| c.has_stats && c.name.eq_ignore_ascii_case(&key.col))
        {
            if c.stats.correlation > 0.5 {
                m |= ec_bit(ec);
            }
        }
    }
    m
}
