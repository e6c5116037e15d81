//! The block's join clauses, special joins and filters put where they apply (initsplan.c:
//! deconstruct_jointree's make_outerjoininfo, distribute_qual_to_rels; orclauses.c's
//! extract_restriction_or_clauses): join edges for the equivalence classes, a
//! SpecialJoinInfo for each IN / EXISTS / NOT EXISTS nest and the LEFT JOIN, and each
//! filter a scan's restriction, a join filter or a restriction clause of the single-table
//! model, with its selectivity, cost and EXPLAIN text.

use crate::pathnodes::QualOps;
use costlab_model::block::{Filter, FilterKind, NestKind, QueryBlock, Subquery, SubqueryKind};
use costlab_model::catalog::ColumnType;
use costlab_model::error::Result;
use costlab_model::query::Predicate;

use super::analyzejoins::semi_rhs_is_unique;
use super::clauses::{self, Expr, Op, Operand};
use super::clausesel::{expr_ops, factor_or, kind_default};
use super::costs::{JKind, Qual};
use super::deparse;
use super::indxpath::{as_predicate, expression_predicate};
use super::pathnodes::*;
use super::subselect::{make_subplan, NotInEdge};

/// Each filter's conditions, the OR factoring PostgreSQL canonicalises applied (§6.1;
/// Q19's join clause in every arm): whether the filter is an OR, and its factors. `None`
/// keeps the filter whole (an OR-kind filter whose condition is no OR).
pub(crate) fn factored_filters(block: &QueryBlock) -> Vec<Option<(bool, Vec<Expr>)>> {
    let mut parsed: Vec<Option<(bool, Vec<Expr>)>> = vec![None; block.filters.len()];
    for (fi, f) in block.filters.iter().enumerate() {
        let e = clauses::condition(&f.expr);
        let fac = (matches!(e, Expr::Or(_)), factor_or(e));
        if matches!(f.kind, FilterKind::Or(_)) && !fac.0 {
            continue;
        }
        parsed[fi] = Some(fac);
    }
    parsed
}

/// The join equalities: edges between relations (the equivalence classes' input), and
/// those to a NOT IN nest's tables, which are the SubPlan's test instead: (nest, outer
/// column, nest column).
pub(crate) fn join_edges(
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
) -> (Vec<EqEdge>, Vec<NotInEdge>) {
    let mut edges: Vec<EqEdge> = Vec::new();
    let mut notin_edges: Vec<NotInEdge> = Vec::new();
    for e in &block.joins {
        match (ref_rel[e.a.table], ref_rel[e.b.table]) {
            (Some(ra), Some(rb)) => edges.push((
                ColKey {
                    rel: ra,
                    col: e.a.column.as_str().into(),
                },
                ColKey {
                    rel: rb,
                    col: e.b.column.as_str().into(),
                },
            )),
            (Some(_), None) => notin_edges.push((
                block.tables[e.b.table].nest.unwrap_or(0),
                e.a.clone(),
                e.b.clone(),
            )),
            (None, Some(_)) => notin_edges.push((
                block.tables[e.a.table].nest.unwrap_or(0),
                e.b.clone(),
                e.a.clone(),
            )),
            (None, None) => {}
        }
    }
    (edges, notin_edges)
}

/// The special joins (make_outerjoininfo): a semi or anti join for each nest but the NOT
/// IN ones (`notin`, SubPlans), its LHS the relations its join edges and filters reach
/// outside it; then a left join for each LEFT JOIN's nullable table.
pub(crate) fn special_joins(
    pl: &Planner,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    notin: &[usize],
) -> Vec<Special> {
    let mut specials = Vec::new();
    for (ni, nest) in block.nests.iter().enumerate() {
        if notin.contains(&ni) {
            continue;
        }
        let rhs = relids(ref_rel, &nest.tables);
        let mut lhs = 0u64;
        for e in &block.joins {
            for (x, y) in [(&e.a, &e.b), (&e.b, &e.a)] {
                if let (Some(rx), Some(ry)) = (ref_rel[x.table], ref_rel[y.table]) {
                    if rhs & bit(rx) != 0 && rhs & bit(ry) == 0 {
                        lhs |= bit(ry);
                    }
                }
            }
        }
        for f in &block.filters {
            let fr = relids(ref_rel, &f.tables);
            if fr & rhs != 0 {
                lhs |= fr & !rhs;
            }
        }
        if nest.kind == NestKind::Semi && semi_rhs_is_unique(pl, block, nest) {
            // reduce_unique_semijoins: the RHS returns each outer row's match at most once,
            // so the semi join is an inner join.
            continue;
        }
        let kind = match nest.kind {
            NestKind::Semi => JKind::Semi,
            NestKind::Anti => JKind::Anti,
        };
        specials.push(Special {
            kind,
            lhs,
            rhs,
            true_match: nest.true_match,
        });
    }
    for (ti, t) in block.tables.iter().enumerate() {
        if !t.outer_join_after.is_empty() {
            if let Some(r) = ref_rel[ti] {
                specials.push(Special {
                    kind: JKind::Left,
                    lhs: relids(ref_rel, &t.outer_join_after),
                    rhs: bit(r),
                    true_match: f64::NAN,
                });
            }
        }
    }
    specials
}

/// What distributing the block's filters reads besides the block being built.
pub(crate) struct QualSetup<'q, 'a> {
    pub pl: &'q Planner<'a>,
    pub block: &'q QueryBlock,
    pub ref_rel: &'q [Option<usize>],
    /// [`factored_filters`].
    pub parsed: &'q [Option<(bool, Vec<Expr>)>],
    /// Filters moved into a view's HAVING: their sub-selects are still planned here.
    pub pushed: &'q [usize],
    /// Filters a grouped IN sub-select became (a join edge): nothing of them is left.
    pub consumed: &'q [usize],
}

/// One filter being distributed.
struct FilterQual<'q> {
    f: &'q Filter,
    sub: Option<&'q Subquery>,
    /// A SubPlan's cost per evaluation (§6.2); an InitPlan's, paid once, is the block's.
    per_call: f64,
    /// What the sub-select shows as in the condition: `$0`, `(SubPlan 1)`.
    sub_ref: Option<String>,
    /// The relations of its tables.
    fr: u64,
    /// The filter's true selectivity covers it whole: it applies where the filter is one
    /// condition; a filter split into several keeps the estimates.
    exact: bool,
}

/// A condition's selectivity (as a restriction or inner join clause, under a semi or anti
/// join) and its operator calls.
struct QualEstimate {
    sel: f64,
    sel_semi: f64,
    ops: QualOps,
}

/// Each filter and its sub-select, in the block's order: the sub-select planned (InitPlans
/// and SubPlans numbered as met), then each of its factors distributed.
pub(crate) fn distribute_quals(
    cx: &QualSetup,
    b: &mut Block,
    extra_preds: &mut [Vec<Predicate>],
) -> Result<()> {
    for (fi, f) in cx.block.filters.iter().enumerate() {
        if cx.consumed.contains(&fi) {
            continue;
        }
        let sub = cx.block.subqueries.iter().find(|s| s.filter == Some(fi));
        let (per_call, sub_ref) = match sub {
            Some(s) if s.kind == SubqueryKind::Scalar => make_subplan(cx.pl, b, cx.ref_rel, f, s)?,
            _ => (0.0, None),
        };
        let fr = relids(cx.ref_rel, &f.tables);
        if fr == 0 || cx.pushed.contains(&fi) {
            continue;
        }
        let other = [Expr::Other];
        let exprs: &[Expr] = match &cx.parsed[fi] {
            Some(p) => &p.1,
            None => &other,
        };
        let q = FilterQual {
            f,
            sub,
            per_call,
            sub_ref,
            fr,
            exact: exprs.len() == 1,
        };
        for e in exprs {
            distribute_qual_to_rels(cx, b, &q, e, extra_preds);
        }
    }
    Ok(())
}

/// One factor of a filter put where it applies: a restriction clause of the single-table
/// model, nothing (a join edge's repeat), a scan's filter or a join filter.
fn distribute_qual_to_rels(
    cx: &QualSetup,
    b: &mut Block,
    q: &FilterQual,
    e: &Expr,
    extra_preds: &mut [Vec<Predicate>],
) {
    let er = b.expr_rels(e, q.fr, cx.block, cx.ref_rel);
    if let Some((ti, p)) = restriction_predicate(cx, b, q, e, er) {
        extra_preds[ti].push(p);
        return;
    }
    if matches!(
        e,
        Expr::Cmp {
            op: Op::Eq,
            rhs: Operand::Col(_),
            ..
        }
    ) && er.count_ones() == 2
    {
        // A join equality repeated inside the condition: already an edge.
        return;
    }
    let est = estimate(cx, b, q, e);
    // A whole filter reads every relation the front end found in it (a clause shape
    // drops an operand it cannot read, `e1.id + 1`, and its relation with it); a piece
    // factored out of an OR reads what its own columns say.
    let rels_of = if er == 0 || q.sub.is_some() || q.exact {
        q.fr
    } else {
        er
    };
    if rels_of.count_ones() == 1 {
        add_scan_filter(cx.pl, b, q, e, rels_of.trailing_zeros() as usize, est);
    } else {
        add_join_filter(cx, b, q, e, rels_of, est);
    }
}

/// The table whose single-table model takes factor `e` (relations `er`) as a restriction
/// clause, and the predicate; `None` when the factor is no such clause.
fn restriction_predicate(
    cx: &QualSetup,
    b: &Block,
    q: &FilterQual,
    e: &Expr,
    er: u64,
) -> Option<(usize, Predicate)> {
    let (block, ref_rel) = (cx.block, cx.ref_rel);
    // Sargable single-table conditions pulled out of an OR go to the scan's restriction
    // clauses.
    if er.count_ones() == 1 && q.sub.is_none() {
        if let Some(p) = as_predicate(e, b, q.fr, block, ref_rel) {
            let ti = block
                .tables
                .iter()
                .enumerate()
                .find(|(ti, _)| ref_rel[*ti] == Some(er.trailing_zeros() as usize));
            if let Some((ti, _)) = ti {
                return Some((ti, p));
            }
        }
    }
    // An expression an expression index holds, compared with constants: a restriction
    // clause on the index's key, estimated from its statistics.
    if q.exact && q.sub.is_none() && q.fr.count_ones() == 1 {
        let r = q.fr.trailing_zeros() as usize;
        if let RelKind::Table { tidx, .. } = b.rels[r].kind {
            if let Some(p) = expression_predicate(cx.pl, tidx, &q.f.expr) {
                if let Some(ti) = (0..block.tables.len()).find(|&t| ref_rel[t] == Some(r)) {
                    return Some((ti, p));
                }
            }
        }
    }
    None
}

/// Factor `e`'s selectivity and cost: from the statistics where the condition has a shape
/// the estimators read, else the defaults; the schema's own functions cost their procost
/// per call (cost_qual_eval).
fn estimate(cx: &QualSetup, b: &Block, q: &FilterQual, e: &Expr) -> QualEstimate {
    let (sel, sel_semi, ops) = match (e, &q.f.kind) {
        (Expr::Other, FilterKind::Function) => {
            let (sel, ops) = function_default(cx.pl, cx.block, q.f);
            (sel, sel, ops)
        }
        (Expr::Other, k) => {
            let s = kind_default(k);
            (
                s,
                s,
                QualOps {
                    startup: 0.0,
                    per_tuple: 1.0,
                },
            )
        }
        _ => {
            let (s, ss) = b.expr_sel(e, q.fr, cx.block, cx.ref_rel);
            (s, ss, expr_ops(e))
        }
    };
    let ops = QualOps {
        per_tuple: ops.per_tuple + cx.pl.db.extra_call_ops_of(&q.f.expr),
        ..ops
    };
    QualEstimate { sel, sel_semi, ops }
}

/// An expression compared without statistics (no expression index): the selectivity
/// functions' defaults (eqsel through get_variable_numdistinct's DEFAULT_NUM_DISTINCT,
/// scalarineqsel's DEFAULT_INEQ_SEL, patternsel's DEFAULT_MATCH_SEL) and one operator
/// call; an IN list n/2 calls.
fn function_default(pl: &Planner, block: &QueryBlock, f: &Filter) -> (f64, QualOps) {
    let nlit = clauses::quoted_constants(&f.expr).max(1) as f64;
    let top = clauses::top_comparison(&f.expr);
    let (sel, cmp_ops) = match top.as_deref() {
        Some("<" | ">" | "<=" | ">=") => (1.0 / 3.0, 1.0),
        Some("<>") => (1.0 - 0.005, 1.0),
        Some("NOT LIKE" | "NOT ILIKE") => (1.0 - 0.005, 1.0),
        Some("=" | "LIKE" | "ILIKE") => (0.005, 1.0),
        _ => ((nlit * 0.005).min(1.0), nlit * 0.5),
    };
    // The function, and a bpchar-to-text cast when it reads a CHAR column.
    let cast = clauses::column_names(&f.expr).iter().any(|id| {
        f.tables.iter().any(|&t| {
            pl.table_index(&block.tables[t].table).is_ok_and(|ti| {
                pl.db.tables[ti]
                    .columns
                    .iter()
                    .any(|c| c.name.eq_ignore_ascii_case(id) && matches!(c.ty, ColumnType::Char(_)))
            })
        })
    });
    (
        sel,
        QualOps {
            startup: 0.0,
            per_tuple: 1.0 + if cast { 1.0 } else { 0.0 } + cmp_ops,
        },
    )
}

/// The condition as EXPLAIN shows it: at a scan its columns bare, at a join qualified
/// (`prefix`); the query's text as written where the reader cannot follow.
fn shown(pl: &Planner, b: &Block, q: &FilterQual, e: &Expr, prefix: bool) -> String {
    let sub_item = q.sub.and_then(|s| s.block.select.first()).map(|i| &i.expr);
    let resolve = |n: &str| b.column_display(pl, n, prefix);
    match &q.sub_ref {
        Some(r) => deparse::typed_text(&q.f.expr, &resolve, r, sub_item),
        None => deparse::cond_text(e, &resolve)
            .or_else(|| deparse::typed_text(&q.f.expr, &resolve, "", None)),
    }
    .unwrap_or_else(|| q.f.expr.to_string())
}

/// Factor `e` as a filter of relation `r`'s scan.
fn add_scan_filter(
    pl: &Planner,
    b: &mut Block,
    q: &FilterQual,
    e: &Expr,
    r: usize,
    est: QualEstimate,
) {
    let text = shown(pl, b, q, e, false);
    let QualEstimate { sel, ops, .. } = est;
    let f = q.f;
    let br = &mut b.rels[r];
    if q.per_call > 0.0 {
        br.extra.per_tuple += q.per_call;
    }
    br.filter_ops = br.filter_ops.add(ops);
    br.filter_text.push(text.clone());
    // Selectivity: kept with the relation's rows below.
    br.filter_sel *= sel;
    br.true_sel *= if q.exact { f.true_selectivity } else { sel };
    // The columns it reads here: its own, and those a correlated sub-select takes from
    // this row (its SubPlan's parameters).
    let mut cols: Vec<String> = Vec::new();
    let params = q
        .sub
        .iter()
        .flat_map(|s| &s.correlation)
        .map(|(_, o)| o.column.to_ascii_lowercase());
    for id in clauses::column_names(&f.expr).into_iter().chain(params) {
        if br.uses.iter().any(|u| u.eq_ignore_ascii_case(&id)) && !cols.contains(&id) {
            cols.push(id);
        }
    }
    br.filters.push(SingleFilter {
        calls: pl.db.calls_of(&f.expr),
        text,
        expr: e.clone(),
        ops,
        sel,
        cols,
    });
}

/// Factor `e` as a filter of the join that brings relations `rels_of` together, its
/// one-relation OR restrictions applied at the scans.
fn add_join_filter(
    cx: &QualSetup,
    b: &mut Block,
    q: &FilterQual,
    e: &Expr,
    rels_of: u64,
    est: QualEstimate,
) {
    let (block, ref_rel) = (cx.block, cx.ref_rel);
    let text = shown(cx.pl, b, q, e, true);
    let cop = cx.pl.jc.cop();
    let qual = Qual {
        startup: est.ops.startup * cop,
        per_tuple: est.ops.per_tuple * cop + q.per_call,
    };
    let mut cols = Vec::new();
    b.expr_cols(e, q.fr, block, ref_rel, &mut cols);
    let (sel, restricted) = extract_restriction_or_clauses(cx, b, q, e, rels_of, est.sel);
    let hash_col = match (e, q.sub) {
        (
            Expr::Cmp {
                col,
                op: Op::Eq,
                rhs: Operand::Other,
            },
            Some(_),
        ) => b.resolve(col, q.fr, block, ref_rel),
        _ => None,
    };
    let true_sel = if q.exact && restricted > 0.0 {
        (q.f.true_selectivity / restricted).min(1.0)
    } else {
        sel
    };
    b.jfilters.push(JFilter {
        rels: rels_of,
        sel,
        sel_semi: est.sel_semi,
        true_sel,
        qual,
        text,
        cols,
        hash_col,
        calls: cx.pl.db.calls_of(&q.f.expr),
    });
}

/// OR arms restricted to one relation each are also applied at that relation's scan; the
/// join clause's selectivity `sel` is divided by them (extract_restriction_or_clauses,
/// orclauses.c). Returns that selectivity, and the selectivity the per-relation OR
/// restrictions took out of the condition's true one.
fn extract_restriction_or_clauses(
    cx: &QualSetup,
    b: &mut Block,
    q: &FilterQual,
    e: &Expr,
    rels_of: u64,
    sel: f64,
) -> (f64, f64) {
    let (block, ref_rel) = (cx.block, cx.ref_rel);
    let mut sel = sel;
    let mut restricted = 1.0;
    let Expr::Or(arms) = e else {
        return (sel, restricted);
    };
    for r in 0..b.rels.len() {
        if rels_of & bit(r) == 0 {
            continue;
        }
        let mut sub_arms = Vec::new();
        for a in arms {
            let conj: Vec<Expr> = match a {
                Expr::And(v) => v.clone(),
                x => vec![x.clone()],
            };
            let mine: Vec<Expr> = conj
                .into_iter()
                .filter(|c| b.expr_rels(c, q.fr, block, ref_rel) == bit(r))
                .collect();
            if mine.is_empty() {
                sub_arms.clear();
                break;
            }
            sub_arms.push(if mine.len() == 1 {
                mine.into_iter().next().unwrap_or(Expr::Other)
            } else {
                Expr::And(mine)
            });
        }
        if sub_arms.is_empty() {
            continue;
        }
        let or = Expr::Or(sub_arms);
        let (os, _) = b.expr_sel(&or, q.fr, block, ref_rel);
        let oops = expr_ops(&or);
        let text = deparse::cond_text(&or, &|n| b.column_display(cx.pl, n, false))
            .unwrap_or_else(|| format!("OR restriction from {}", q.f.expr));
        let br = &mut b.rels[r];
        br.filter_ops = br.filter_ops.add(oops);
        br.filter_text.push(text);
        br.filter_sel *= os;
        br.true_sel *= os;
        restricted *= os;
        if rels_of.count_ones() == 2 && os > 0.0 && os < 1.0 {
            sel = (sel / os).min(1.0);
        }
    }
    (sel, restricted)
}
