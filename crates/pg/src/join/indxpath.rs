//! Expression indexes and the orders indexes give (indxpath.c's match_clause_to_index for
//! an indexed expression, pathkeys.c's ORDER BY on it, and the handed-up values of the
//! third seed's patch series).

use costlab_model::block::{QueryBlock, Source};
use costlab_model::catalog::{ColumnType, IndexMethod, Value};
use costlab_model::query::Predicate;

use super::clauses::{self, Expr, Lit, Operand};
use super::clausesel::cmp_op;
use super::costs::{self, Qual};
use super::executor_work;
use super::executor_work::col_order;
use super::explain::and_text;
use super::model::{JPath, Node, PathKeys, Rescan, TrueRows};
use super::pathnodes::*;
use super::predtest;
use crate::pathnodes::clamp_row_est;
use crate::paths;
use crate::selfuncs;
use costlab_model::expr::Expr as T;
use costlab_model::plan::{AccessPattern, Name, PageReads, Work};
use costlab_model::query::CmpOp;
use smallvec::smallvec;
use std::borrow::Cow;
use std::rc::Rc;

/// The key of an expression index that a block without grouping is ordered by, when its
/// ORDER BY is that one expression (spelled out: an ordinal or an alias is not matched);
/// or, for `ORDER BY key <-> point '(x,y)'`, the key of a GiST index on `key` (a column
/// or an expression), which returns rows by distance. A point has no ordering of its own
/// (no btree), so a pathkey on it can only mean the distance.
pub(crate) fn order_by_index_expression(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
) -> Option<ColKey> {
    if !block.order_by_expression
        || !block.group_by.is_empty()
        || block.group_by_expression
        || block.scalar_aggregate
    {
        return None;
    }
    let tables: Vec<(usize, usize)> = b
        .rels
        .iter()
        .enumerate()
        .filter_map(|(r, br)| match br.kind {
            RelKind::Table { tidx, .. }
                if pl.db.infos[tidx]
                    .cols
                    .iter()
                    .any(|c| c.expression.is_some())
                    || pl.db.infos[tidx]
                        .indexes
                        .iter()
                        .any(|ix| ix.method == IndexMethod::Gist) =>
            {
                Some((r, tidx))
            }
            _ => None,
        })
        .collect();
    if tables.is_empty() {
        return None;
    }
    let [(item, desc)] = block.order_items.as_slice() else {
        return None;
    };
    let knn = clauses::distance_to_point(item).map(|(key, _)| key);
    // A GiST scan returns the nearest first, never the farthest.
    if knn.is_some() && *desc {
        return None;
    }
    let text = knn.clone().unwrap_or_else(|| clauses::canonical(item));
    tables.iter().find_map(|&(r, tidx)| {
        let info = &pl.db.infos[tidx];
        let pos = info.cols.iter().position(|c| {
            let eligible = if knn.is_some() {
                c.ty == ColumnType::Point
            } else {
                c.expression.is_some()
            };
            eligible && clauses::canonical_expression(&c.name) == text
        })?;
        if knn.is_some()
            && !info
                .indexes
                .iter()
                .any(|ix| ix.method == IndexMethod::Gist && ix.keys.first() == Some(&pos))
        {
            return None;
        }
        Some(ColKey {
            rel: r,
            col: info.cols[pos].name.to_ascii_lowercase().into(),
        })
    })
}

/// The patched build's check_index_only (the series' 0004/0005): an index-only scan may
/// return an indexed expression's value, so a heap column the block reads only inside
/// such expressions need not be in the index. Returns (heap column, expression key) for
/// table `tidx`: each column that appears in `sql` only within the text of one of the
/// table's indexed expressions. Stock PostgreSQL needs the heap column itself
/// (`IndexExpression::reads`).
pub(crate) fn handed_up_columns(
    pl: &Planner,
    tidx: usize,
    block: &QueryBlock,
) -> Vec<(String, String)> {
    let info = &pl.db.infos[tidx];
    if info.cols.iter().all(|c| c.expression.is_none()) {
        return Vec::new();
    }
    let keys: Vec<(usize, String)> = info
        .cols
        .iter()
        .enumerate()
        .filter(|(_, c)| c.expression.is_some())
        .map(|(k, c)| (k, clauses::canonical_expression(&c.name)))
        .collect();
    // The indexed expressions the block computes, and the columns it reads elsewhere.
    let mut found: Vec<usize> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    fn visit(e: &T, keys: &[(usize, String)], found: &mut Vec<usize>, rest: &mut Vec<String>) {
        if !matches!(e, T::Column(_)) {
            let canon = clauses::canonical(e);
            if let Some((k, _)) = keys.iter().find(|(_, key)| *key == canon) {
                if !found.contains(k) {
                    found.push(*k);
                }
                return;
            }
        }
        match e {
            T::Column(c) => rest.push(c.name.to_ascii_lowercase()),
            _ => e
                .children()
                .into_iter()
                .for_each(|x| visit(x, keys, found, rest)),
        }
    }
    fn all_of(b: &QueryBlock, f: &mut dyn FnMut(&T)) {
        b.select.iter().for_each(|i| f(&i.expr));
        b.group_items.iter().for_each(&mut *f);
        b.order_items.iter().for_each(|(o, _)| f(o));
        b.having.iter().for_each(&mut *f);
        b.filters.iter().for_each(|x| f(&x.expr));
        for s in &b.subqueries {
            all_of(&s.block, f);
        }
        for t in &b.tables {
            if let Source::Derived { block, .. } = &t.source {
                all_of(block, f);
            }
        }
    }
    all_of(block, &mut |e| visit(e, &keys, &mut found, &mut rest));
    fn plain_columns(b: &QueryBlock, rest: &mut Vec<String>) {
        for j in &b.joins {
            rest.push(j.a.column.to_ascii_lowercase());
            rest.push(j.b.column.to_ascii_lowercase());
        }
        for t in &b.tables {
            rest.extend(t.preds.iter().map(|p| p.column().to_ascii_lowercase()));
            if let Source::Derived { block, .. } = &t.source {
                plain_columns(block, rest);
            }
        }
        for s in &b.subqueries {
            plain_columns(&s.block, rest);
            for (i, o) in &s.correlation {
                rest.push(i.column.to_ascii_lowercase());
                rest.push(o.column.to_ascii_lowercase());
            }
        }
    }
    plain_columns(block, &mut rest);
    let mut out = Vec::new();
    for k in found {
        let c = &info.cols[k];
        for &h in c.expression.as_ref().map_or(&[][..], |e| &e.reads[..]) {
            let heap = info.cols[h].name.to_ascii_lowercase();
            if !rest.contains(&heap) {
                out.push((info.cols[h].name.clone(), c.name.clone()));
            }
        }
    }
    out
}

/// `expr op constant` (or IN, BETWEEN) where `expr` is the key of one of table `tidx`'s
/// expression indexes: a predicate on that key (match_index_to_operand).
pub(crate) fn expression_predicate(
    pl: &Planner,
    tidx: usize,
    e: &costlab_model::expr::Expr,
) -> Option<Predicate> {
    let info = &pl.db.infos[tidx];
    if info.cols.iter().all(|c| c.expression.is_none()) {
        return None;
    }
    let (text, test) = clauses::compared_expression(e)?;
    let col = info
        .cols
        .iter()
        .filter(|c| c.expression.is_some())
        .find(|c| clauses::canonical_expression(&c.name) == text)?;
    let column = col.name.clone();
    let lit = |l: Lit| match l {
        Lit::Num(x) => Value::Num(x),
        Lit::Text(s) => Value::Text(s),
    };
    Some(match test {
        clauses::ExprTest::Cmp(op, l) => Predicate::Cmp {
            column,
            op: cmp_op(op)?,
            value: lit(l),
        },
        clauses::ExprTest::In(values) => Predicate::In {
            column,
            values: values.into_iter().map(lit).collect(),
        },
        clauses::ExprTest::Between(lo, hi) => Predicate::Between {
            column,
            lo: lit(lo),
            hi: lit(hi),
        },
    })
}

/// A one-table condition the single-table model takes as a restriction clause.
pub(crate) fn as_predicate(
    e: &Expr,
    b: &Block,
    among: u64,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
) -> Option<Predicate> {
    let lit = |l: &Lit| match l {
        Lit::Num(x) => Value::Num(*x),
        Lit::Text(s) => Value::Text(s.clone()),
    };
    let colname = |c: &str| {
        b.resolve(c, among, block, ref_rel)
            .map(|k| k.col.to_string())
    };
    match e {
        Expr::Cmp {
            col,
            op,
            rhs: Operand::Lit(l),
        } => Some(Predicate::Cmp {
            column: colname(col)?,
            op: cmp_op(*op)?,
            value: lit(l),
        }),
        Expr::In { col, values } => Some(Predicate::In {
            column: colname(col)?,
            values: values.iter().map(lit).collect(),
        }),
        Expr::Between { col, lo, hi } => Some(Predicate::Between {
            column: colname(col)?,
            lo: lit(lo),
            hi: lit(hi),
        }),
        _ => None,
    }
}

impl<'a> Planner<'a> {
    /// Parameterized index paths of base relation `r` whose parameters come from `outer`
    /// (indxpath.c with loop_count from get_loop_count, §2.3), over plain and usable
    /// partial indexes; with `outer` empty, the unparameterized partial-index paths.
    pub(crate) fn param_paths(&self, b: &Block<'a>, r: usize, outer: u64) -> Vec<JPath> {
        let br = &b.rels[r];
        let RelKind::Table { rel, tidx, .. } = &br.kind else {
            return Vec::new();
        };
        let c = &self.jc.c;
        let cop = c.cpu_operator_cost;
        let mut out = Vec::new();
        let descs = self.index_descs(b, r, rel, *tidx, outer);
        for ix in descs.iter().filter(|d| !d.keys.is_empty()) {
            let KeyMatch {
                const_quals,
                params,
                required,
                all_eq,
                covered,
            } = match_index_keys(b, r, rel, ix, outer);
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
            let loop_count = loop_count(b, required);
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
            let truth = probe_true_rows(b, r, rel, ix, &params, required);
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
                let fetch = HeapFetch {
                    fetched,
                    correlation: heap_corr,
                    in_key_order: required != 0 && all_eq,
                };
                page_reads.push(self.heap_fetch_reads(rel, *tidx, ix, &fetch));
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
            let mut details =
                text(|| index_scan_details(b, br, rel, ix, &params, &const_quals, &qp, outer))
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
                let probe = BitmapProbe {
                    rows,
                    sel,
                    loop_count,
                    nquals,
                    truth,
                    required,
                };
                out.push(self.param_bitmap_path(br, rel, *tidx, ix, &lc, &params, &probe));
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
                workers: 0,
                safe: false,
            });
            let twin = (outer == 0).then_some(out.last()).flatten();
            out.extend(self.partial_index_twin(b, r, twin, indexonly, &lc, lc_total, qp_cost));
        }
        // A parameterized path is parallel-safe where its relation is (it runs whole in
        // each worker, as a partial nested loop's inner).
        out.iter_mut()
            .for_each(|p| p.safe = b.consider_parallel(bit(r)));
        out
    }

    /// build_index_paths' partial twin of unparameterized btree path `last` (see
    /// `param_paths`; cost_index with partial_path), if the block plans in parallel, the
    /// relation may and it gets workers: workers from the heap pages it fetches (none for
    /// an index-only scan) and the index pages it reads; only the heap rows' CPU is
    /// divided, and the rows.
    #[allow(clippy::too_many_arguments)]
    fn partial_index_twin(
        &self,
        b: &Block<'a>,
        r: usize,
        last: Option<&JPath>,
        indexonly: bool,
        lc: &costs::IndexLoopCost,
        lc_total: f64,
        qp_cost: Qual,
    ) -> Option<JPath> {
        let last = last?;
        let pp = b.parallel.filter(|_| b.consider_parallel(bit(r)))?;
        let heap = if indexonly {
            -1.0
        } else {
            lc.heap_pages_per_scan
        };
        let w = crate::costsize::compute_parallel_worker(
            heap,
            lc.index_pages,
            pp.max_workers,
            pp.min_table_pages,
            pp.min_index_pages,
        );
        if w == 0 {
            return None;
        }
        let d = pp.divisor(w);
        let cpu = (self.jc.c.cpu_tuple_cost + qp_cost.per_tuple) * lc.tuples_fetched;
        let total = lc_total - cpu + cpu / d;
        let rows = clamp_row_est(last.rows / d);
        let node = Node::with_plan(&last.node, |p, t| {
            t.rows /= d;
            p.op = Name::from_static(if indexonly {
                "Parallel Index Only Scan"
            } else {
                "Parallel Index Scan"
            });
            p.cost.total = total;
            p.rows = rows;
            p.work.workers = w as f64;
        });
        Some(JPath {
            total,
            rows,
            node,
            workers: w,
            pathkeys: last.pathkeys.clone(),
            param_ecs: last.param_ecs.clone(),
            ..*last
        })
    }

    /// param_paths for inner relation `r` below `outer`, cached per the part of `outer`
    /// that can supply a parameter (the relations sharing a class with `r`): the same
    /// parameterized paths serve every outer set with that part.
    pub(crate) fn param_paths_for(
        &self,
        b: &Block<'a>,
        s: &mut Search,
        r: usize,
        outer: u64,
    ) -> Rc<[JPath]> {
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
}

/// What an index's keys match, key by key from the first (match_clauses_to_index, for
/// equality with a constant, a join parameter from `outer` or a range ending the match).
struct KeyMatch {
    /// Restriction clauses used as index quals (not those the predicate implies).
    const_quals: Vec<usize>,
    /// Keys equal to an outer relation's column, with its equivalence class.
    params: Vec<(ColKey, usize)>,
    /// The outer relations the parameters come from.
    required: u64,
    /// Every matched key is matched by an equality.
    all_eq: bool,
    /// Keys matched.
    covered: usize,
}

fn match_index_keys(
    b: &Block,
    r: usize,
    rel: &crate::pathnodes::Rel,
    ix: &IxDesc,
    outer: u64,
) -> KeyMatch {
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
    KeyMatch {
        const_quals,
        params,
        required,
        all_eq,
        covered,
    }
}

/// One parameterized index probe as a bitmap path shares it with the index path.
struct BitmapProbe {
    rows: f64,
    sel: f64,
    loop_count: f64,
    nquals: f64,
    truth: TrueRows,
    required: u64,
}

impl<'a> Planner<'a> {
    /// The parameterized Bitmap Heap Scan over a Bitmap Index Scan with the same index
    /// quals as the index path (create_index_paths builds one for every index path;
    /// cost_bitmap_heap_scan with the loop count).
    #[allow(clippy::too_many_arguments)]
    fn param_bitmap_path(
        &self,
        br: &BaseRel,
        rel: &crate::pathnodes::Rel,
        tidx: usize,
        ix: &IxDesc,
        lc: &costs::IndexLoopCost,
        params: &[(ColKey, usize)],
        probe: &BitmapProbe,
    ) -> JPath {
        let BitmapProbe {
            rows,
            sel,
            loop_count,
            nquals,
            truth,
            required,
        } = *probe;
        let c = &self.jc.c;
        let cop = c.cpu_operator_cost;
        let t = rel.pages;
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
                        object: Name::new(&self.db.tables[tidx].name),
                        object_pages: t,
                        page_bytes: 8192.0,
                        pattern: AccessPattern::Sorted,
                        requests: bpages,
                        distinct: bpages.min(t),
                        span_pages: None,
                    }],
                    rows_examined: btuples,
                    operator_evals: btuples * (rel.restrict_ops.per_tuple + params.len() as f64),
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
        JPath {
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
            workers: 0,
            safe: false,
        }
    }
}

/// An index scan's EXPLAIN lines: the Index Cond (join parameters, then the constant
/// quals) and one Filter line for the restrictions the index does not apply.
#[allow(clippy::too_many_arguments)]
fn index_scan_details(
    b: &Block,
    br: &BaseRel,
    rel: &crate::pathnodes::Rel,
    ix: &IxDesc,
    params: &[(ColKey, usize)],
    const_quals: &[usize],
    qp: &[usize],
    outer: u64,
) -> Vec<String> {
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
}

/// The heap rows an index scan fetches: how many, the heap's correlation with the
/// index's first key, whether they come in key order (equal keys of a parameterized
/// probe sit in heap order).
struct HeapFetch {
    fetched: f64,
    correlation: f64,
    in_key_order: bool,
}

impl<'a> Planner<'a> {
    /// The heap pages one index scan reads for `fetch`'s rows.
    fn heap_fetch_reads(
        &self,
        rel: &crate::pathnodes::Rel,
        tidx: usize,
        ix: &IxDesc,
        fetch: &HeapFetch,
    ) -> PageReads {
        let t = rel.pages;
        let fetched = fetch.fetched;
        // The heap's own order (not the cost's x0.75, see IndexScan). In order, a
        // scan reads the pages its rows lie on, once each; out of order, every
        // fetched row asks for its page. Which pages one scan reads is the heap's
        // business, not the cost's pages per scan: those are amortised over the
        // loops PostgreSQL expected (index_pages_fetched), where the simulation's
        // cache decides what repeated loops find (`Work::repeat`).
        let rows_per_page = (rel.tuples / t.max(1.0)).max(1.0);
        let (pattern, requests, distinct) = if fetch.correlation.abs() > 0.5 {
            // The key range's heap rows lie together; a partial index holds a
            // share of them (its predicate's), spread over the range's pages.
            let share = ix.pred_sel.clamp(1e-9, 1.0);
            let range_rows = fetched / share;
            let range_pages = (1.0 + (range_rows - 1.0).max(0.0) / rows_per_page).min(t);
            let pages = (range_pages * (1.0 - (1.0 - share).powf(rows_per_page)))
                .clamp(1.0_f64.min(range_pages), t);
            (AccessPattern::Sequential, pages, pages)
        } else if fetch.in_key_order {
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
        PageReads {
            object: Name::new(&self.db.tables[tidx].name),
            object_pages: t,
            page_bytes: 8192.0,
            pattern,
            requests,
            distinct,
            span_pages: None,
        }
    }
}

impl<'a> Planner<'a> {
    /// The indexes a parameterized scan of `r` may use: every plain index when there are
    /// outer relations, and the partial indexes whose predicate the query implies.
    fn index_descs<'r>(
        &self,
        b: &Block,
        r: usize,
        rel: &'r crate::pathnodes::Rel,
        tidx: usize,
        outer: u64,
    ) -> Vec<IxDesc<'r>> {
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
        for p in &self.db.partials[tidx] {
            if let Some(d) = predtest::partial_desc(b, r, rel, p) {
                descs.push(d);
            }
        }
        descs
    }
}

/// The rows an index probe of `r` really returns. Per outer row: the join's true rows
/// over the outer's (every match, also on a semi join's inner side); unparameterized, the
/// relation's.
fn probe_true_rows(
    b: &Block,
    r: usize,
    rel: &crate::pathnodes::Rel,
    ix: &IxDesc,
    params: &[(ColKey, usize)],
    required: u64,
) -> TrueRows {
    if required != 0 {
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
            ..TrueRows::out(b.rels[r].true_rows)
        }
    }
}

/// get_loop_count: a parameterized scan repeats once per row of the smallest relation
/// its parameters come from (at least once).
fn loop_count(b: &Block, required: u64) -> f64 {
    let rows = b
        .rels
        .iter()
        .enumerate()
        .filter(|(i, _)| required & bit(*i) != 0)
        .map(|(_, x)| x.rows)
        .fold(f64::INFINITY, f64::min);
    if rows.is_finite() {
        rows.max(1.0)
    } else {
        1.0
    }
}
