//! One query block made ready for the join search (`build`: planmain.c's query_planner
//! up to make_one_rel, with initsplan.c's work): base relations with their access paths,
//! equivalence classes from the join edges, special joins for the flattened IN / EXISTS /
//! NOT EXISTS nests and the LEFT JOIN, filters with their selectivity and cost, sub-selects
//! planned as SubPlans or InitPlans (§6.1, §6.2). The rules it applies live in the files
//! named after PostgreSQL's: `clausesel`, `selfuncs`, `predtest`, `equivclass`,
//! `analyzejoins`, `indxpath`, `subselect`, `relnode`; `executor_work` counts what the
//! executor really does.

use rustc_hash::FxHashMap;

use crate::pathnodes::{clamp_row_est, QualOps};
use costlab_model::block::{
    ColRef, FilterKind, NestKind, NestOrigin, QueryBlock, Source, SubqueryKind,
};
use costlab_model::catalog::{ColumnType, Value};
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;
use costlab_model::query::{CmpOp, Predicate, Query};

use super::analyzejoins::semi_rhs_is_unique;
use super::clauses::{self, Expr, Op, Operand};
use super::clausesel::{expr_ops, factor_or, kind_default};
use super::costs::{JKind, Qual};
use super::deparse::{self, Ty};
use super::equivclass::propagate_constants;
use super::indxpath::{
    as_predicate, expression_predicate, handed_up_columns, order_by_index_expression,
};
use super::model::Node;
use super::pathnodes::*;
use super::subselect::{nest_block, sub_rel};

/// The constant a correlated column is compared with in the single-table model (`col =
/// $param`), outside every column's values; EXPLAIN text shows the outer column instead.
const PARAM_PLACEHOLDER: f64 = -1.0;

impl Block<'_> {
    /// A column name of the block's SQL (bare or `alias.column`) as EXPLAIN shows it,
    /// `alias.column` when `prefix`, with its type; `None` when no relation has it.
    pub fn column_display(&self, pl: &Planner, name: &str, prefix: bool) -> Option<(String, Ty)> {
        let (qual, col) = match name.split_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, name),
        };
        for br in &self.rels {
            if qual.is_some_and(|q| !q.eq_ignore_ascii_case(&br.alias)) {
                continue;
            }
            let ty = match &br.kind {
                RelKind::Table { tidx, .. } => pl.db.tables[*tidx]
                    .columns
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(col))
                    .map(|c| Ty::of(&c.ty)),
                RelKind::Sub { cols, .. } => cols
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(col))
                    .then_some(Ty::Other),
            };
            if let Some(ty) = ty {
                let col = col.to_ascii_lowercase();
                let text = if prefix {
                    format!("{}.{col}", br.alias)
                } else {
                    col
                };
                return Some((text, ty));
            }
        }
        None
    }
}

/// Builds the block: relations, classes, special joins, filters, sub-selects.
pub(crate) fn build<'a>(
    pl: &Planner<'a>,
    block: &QueryBlock,
    opts: &BlockOpts,
) -> Result<Block<'a>> {
    // NOT IN nests stay SubPlans (§6.1): their tables leave the join problem.
    let notin: Vec<usize> = block
        .nests
        .iter()
        .enumerate()
        .filter(|(_, n)| n.origin == NestOrigin::NotIn)
        .map(|(i, _)| i)
        .collect();
    let in_notin = |t: usize| block.tables[t].nest.is_some_and(|n| notin.contains(&n));
    let mut ref_rel: Vec<Option<usize>> = vec![None; block.tables.len()];
    let mut n = 0;
    for (ti, _) in block.tables.iter().enumerate() {
        if !in_notin(ti) {
            ref_rel[ti] = Some(n);
            n += 1;
        }
    }
    let grouped_in: Vec<usize> = block
        .subqueries
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SubqueryKind::InGrouped)
        .map(|(i, _)| i)
        .collect();
    if n + grouped_in.len() > 60 {
        return Err(Error::Unsupported(
            "more than 60 relations in one block".into(),
        ));
    }

    // What the block's result reads, from the front end's reading of the select list,
    // GROUP BY, ORDER BY and HAVING.
    let out_keys: Vec<ColKey> = block
        .outputs
        .iter()
        .filter_map(|c| {
            ref_rel[c.table].map(|r| ColKey {
                rel: r,
                col: c.column.to_ascii_lowercase().into(),
            })
        })
        .collect();

    // Single-table conditions: block filters on one table, and the OR factoring of
    // filters PostgreSQL canonicalises (§6.1; Q19's join clause in every arm).
    let mut extra_preds: Vec<Vec<Predicate>> = vec![Vec::new(); block.tables.len()];
    let mut parsed: Vec<Option<(bool, Vec<Expr>)>> = vec![None; block.filters.len()];
    for (fi, f) in block.filters.iter().enumerate() {
        let e = clauses::condition(&f.expr);
        let fac = (matches!(e, Expr::Or(_)), factor_or(e));
        if matches!(f.kind, FilterKind::Or(_)) && !fac.0 {
            continue;
        }
        parsed[fi] = Some(fac);
    }

    let mut pushed: Vec<usize> = Vec::new();
    let mut rels: Vec<BaseRel<'a>> = Vec::with_capacity(n + grouped_in.len());
    let mut total_pages = 0.0;
    for (ti, t) in block.tables.iter().enumerate() {
        if ref_rel[ti].is_none() {
            continue;
        }
        match &t.source {
            Source::Base => {
                let tidx = pl.table_index(&t.table)?;
                total_pages += pl.db.infos[tidx].pages;
                rels.push(BaseRel {
                    alias: t.alias.clone(),
                    kind: RelKind::Table {
                        tidx,
                        rel: Box::new(pl.empty_rel(tidx)?),
                        query: Query {
                            table: t.table.to_string(),
                            select: Vec::new(),
                            predicates: Vec::new(),
                            order_by: Vec::new(),
                            limit: None,
                        },
                    },
                    rows: 0.0,
                    tuples: pl.db.infos[tidx].tuples,
                    width: 0.0,
                    filter_ops: QualOps::default(),
                    filter_sel: 1.0,
                    true_sel: 1.0,
                    true_rows: 0.0,
                    extra: Qual::default(),
                    filter_text: Vec::new(),
                    filters: Vec::new(),
                    paths: Vec::new(),
                    uses: t.uses.clone(),
                    handed_up: Vec::new(),
                });
            }
            Source::Derived {
                block: sub,
                columns,
            } => {
                // Conditions on the view's aggregate outputs move into its HAVING
                // (qual pushdown into a grouped sub-select, allpaths.c).
                let mut having_op = None;
                let mut having_true_sel = None;
                let mut pushed_cond = None;
                for (fi, f) in block.filters.iter().enumerate() {
                    if f.tables != [ti] {
                        continue;
                    }
                    if let Expr::Cmp { col, op, .. } = &clauses::condition(&f.expr) {
                        if columns.iter().skip(1).any(|c| c.eq_ignore_ascii_case(col)) {
                            having_op = Some(*op);
                            having_true_sel = Some(f.true_selectivity);
                            pushed.push(fi);
                            let k = columns.iter().position(|c| c.eq_ignore_ascii_case(col));
                            pushed_cond = k.map(|k| (k, fi));
                        }
                    }
                }
                // The condition as the view's HAVING shows it: the output column replaced
                // by the view's expression for it; its sub-select is the outer block's
                // first InitPlan, `$0` in PG15.
                let having_text = pushed_cond.and_then(|(k, fi)| {
                    let item = &sub.select.get(k)?.expr;
                    let col = &columns[k];
                    let mut cond = block.filters[fi].expr.clone();
                    replace_column(&mut cond, col, item);
                    let sub_item = block
                        .subqueries
                        .iter()
                        .find(|s| s.filter == Some(fi))
                        .and_then(|s| s.block.select.first())
                        .map(|i| i.expr.clone());
                    Some(HavingText {
                        cond,
                        sub: "$0",
                        sub_item,
                    })
                });
                let sp = pl.plan_block(
                    sub,
                    &BlockOpts {
                        having_op,
                        having_text,
                        having_true_sel,
                        nested: true,
                        ..BlockOpts::default()
                    },
                )?;
                let mut cols: Vec<String> = Vec::new();
                // The view's output columns name its GROUP BY key first.
                for (i, c) in columns.iter().enumerate() {
                    cols.push(c.to_string());
                    if i == 0 {
                        if let Some(g) = sub.group_by.first() {
                            cols.push(g.column.to_string());
                        }
                    }
                }
                let unique = if sub.group_by.len() == 1 {
                    columns.iter().take(1).map(|c| c.to_string()).collect()
                } else {
                    Vec::new()
                };
                rels.push(sub_rel(
                    t.alias.clone(),
                    sp,
                    cols,
                    unique,
                    t.uses.clone(),
                    false,
                ));
            }
        }
    }
    // Grouped IN sub-selects (Q18): PostgreSQL makes them a semijoin whose RHS is unique
    // on the IN column, then reduces it to an inner join (reduce_unique_semijoins).
    let mut extra_edges: Vec<(ColKey, ColKey)> = Vec::new();
    let mut consumed_filters: Vec<usize> = Vec::new();
    for &si in &grouped_in {
        let s = &block.subqueries[si];
        let having = s.block.having.is_some();
        let sp = pl.plan_block(
            &s.block,
            &BlockOpts {
                having,
                nested: true,
                ..BlockOpts::default()
            },
        )?;
        let key = s.block.group_by.first().map_or("", |g| g.column.as_str());
        let ri = rels.len();
        // EXPLAIN names the sub-select's columns after its table, `lineitem_1` where the
        // outer query reads the table too (Q18's `orders.o_orderkey = lineitem_1.l_orderkey`).
        let alias = match s.block.tables.first() {
            Some(st) if block.tables.iter().any(|t| t.table == st.table) => {
                Name::from(format!("{}_1", st.table))
            }
            Some(st) => st.table.clone(),
            None => Name::from_static("ANY_subquery"),
        };
        rels.push(sub_rel(
            alias,
            sp,
            vec![key.to_string()],
            vec![key.to_string()],
            vec![],
            true,
        ));
        // The IN column of the outer block: the filter's first column.
        if let Some(f) = s.filter {
            consumed_filters.push(f);
            let ft = &block.filters[f];
            let first = clauses::column_names(&ft.expr)
                .first()
                .cloned()
                .unwrap_or_default();
            if let Some(&t) = ft.tables.first() {
                if let Some(r) = ref_rel[t] {
                    extra_edges.push((
                        ColKey {
                            rel: r,
                            col: first.into(),
                        },
                        ColKey {
                            rel: ri,
                            col: key.into(),
                        },
                    ));
                }
            }
        }
    }

    let mut b = Block {
        rels,
        ecs: Vec::new(),
        ec_of: FxHashMap::default(),
        edges: Vec::new(),
        specials: Vec::new(),
        jfilters: Vec::new(),
        initplan_cost: 0.0,
        initplans: Vec::new(),
        having: opts.having,
        having_op: opts.having_op,
        having_true_sel: opts.having_true_sel,
        having_text: opts.having_text.clone(),
        nested: opts.nested,
        initplan_names: Vec::new(),
        order_by_index_expression: false,
        knn_point: None,
        out_keys,
        group: Vec::new(),
        order: Vec::new(),
        consider_startup: block.limit.is_some(),
        col_needs: Vec::new(),
        ec_buckets: Vec::new(),
    };

    // Equivalence classes (union of join edges); edges to NOT IN tables are SubPlan tests.
    let mut edges: Vec<(ColKey, ColKey)> = Vec::new();
    let mut notin_edges: Vec<(usize, ColRef, ColRef)> = Vec::new();
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
    edges.extend(extra_edges);
    propagate_constants(block, &ref_rel, &mut edges, &mut extra_preds);
    for (a, c) in &edges {
        let ea = b.ec_of.get(a).copied();
        let ec = b.ec_of.get(c).copied();
        match (ea, ec) {
            (None, None) => {
                let id = b.ecs.len();
                b.ecs.push(vec![a.clone(), c.clone()]);
                b.ec_of.insert(a.clone(), id);
                b.ec_of.insert(c.clone(), id);
            }
            (Some(x), None) => {
                b.ecs[x].push(c.clone());
                b.ec_of.insert(c.clone(), x);
            }
            (None, Some(y)) => {
                b.ecs[y].push(a.clone());
                b.ec_of.insert(a.clone(), y);
            }
            (Some(x), Some(y)) if x != y => {
                let moved = std::mem::take(&mut b.ecs[y]);
                for m in moved {
                    b.ec_of.insert(m.clone(), x);
                    b.ecs[x].push(m);
                }
            }
            _ => {}
        }
    }
    b.edges = edges;

    // Special joins.
    for (ni, nest) in block.nests.iter().enumerate() {
        if notin.contains(&ni) {
            continue;
        }
        let rhs: u64 = nest
            .tables
            .iter()
            .filter_map(|&t| ref_rel[t])
            .fold(0, |a, r| a | bit(r));
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
            let fr: u64 = f
                .tables
                .iter()
                .filter_map(|&t| ref_rel[t])
                .fold(0, |a, r| a | bit(r));
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
        b.specials.push(Special {
            kind,
            lhs,
            rhs,
            true_match: nest.true_match,
        });
    }
    for (ti, t) in block.tables.iter().enumerate() {
        if !t.outer_join_after.is_empty() {
            if let Some(r) = ref_rel[ti] {
                let lhs = t
                    .outer_join_after
                    .iter()
                    .filter_map(|&x| ref_rel[x])
                    .fold(0, |a, x| a | bit(x));
                b.specials.push(Special {
                    kind: JKind::Left,
                    lhs,
                    rhs: bit(r),
                    true_match: f64::NAN,
                });
            }
        }
    }

    // Filters and sub-selects.
    let cop = pl.jc.cop();
    let all: u64 = (0..b.rels.len()).fold(0, |a, r| a | bit(r));
    for (fi, f) in block.filters.iter().enumerate() {
        if consumed_filters.contains(&fi) {
            continue;
        }
        let sub = block.subqueries.iter().find(|s| s.filter == Some(fi));
        // A SubPlan's cost per evaluation (§6.2) or an InitPlan's once.
        let mut per_call = 0.0;
        // What the sub-select shows as in the condition: `$0`, `(SubPlan 1)`.
        let mut sub_ref: Option<String> = None;
        if let Some(s) = sub {
            if s.kind == SubqueryKind::Scalar {
                let corr: Vec<ColRef> = s.correlation.iter().map(|(c, _)| c.clone()).collect();
                let sp = pl.plan_block(
                    &s.block,
                    &BlockOpts {
                        correlated: corr.clone(),
                        nested: true,
                        ..BlockOpts::default()
                    },
                )?;
                let fr: u64 = f
                    .tables
                    .iter()
                    .filter_map(|&t| ref_rel[t])
                    .fold(0, |a, r| a | bit(r));
                let n = b.initplans.len() + 1;
                if corr.is_empty() {
                    b.initplan_cost += sp.total;
                    b.initplans.push((sp.node.clone(), "InitPlan", 0, 1.0));
                    b.initplan_names.push(format!("InitPlan {n} (returns $0)"));
                    sub_ref = Some("$0".to_string());
                } else {
                    per_call = sp.total;
                    // The correlated columns compare with the outer row's values, which
                    // EXPLAIN shows as the outer column (ruleutils finds a Param's
                    // referent); the single-table model had a placeholder constant.
                    let outer: Vec<(String, String)> = s
                        .correlation
                        .iter()
                        .filter_map(|(inner, outer)| {
                            let r = ref_rel[outer.table]?;
                            Some((
                                format!("({} = {PARAM_PLACEHOLDER})", inner.column),
                                format!(
                                    "({} = {}.{})",
                                    inner.column, b.rels[r].alias, outer.column
                                ),
                            ))
                        })
                        .collect();
                    let node = Node::map_details(&sp.node, &|d: &str| {
                        outer
                            .iter()
                            .fold(d.to_string(), |d, (from, to)| d.replace(from.as_str(), to))
                    });
                    b.initplans.push((node, "SubPlan", fr, 1.0));
                    b.initplan_names.push(format!("SubPlan {n}"));
                    sub_ref = Some(format!("(SubPlan {n})"));
                }
            }
        }
        // The condition as EXPLAIN shows it: at a scan its columns bare, at a join
        // qualified; the query's text as written where the reader cannot follow.
        let sub_item = sub.and_then(|s| s.block.select.first()).map(|i| &i.expr);
        let shown = |b: &Block, e: &Expr, prefix: bool| {
            let resolve = |n: &str| b.column_display(pl, n, prefix);
            match &sub_ref {
                Some(r) => deparse::typed_text(&f.expr, &resolve, r, sub_item),
                None => deparse::cond_text(e, &resolve)
                    .or_else(|| deparse::typed_text(&f.expr, &resolve, "", None)),
            }
            .unwrap_or_else(|| f.expr.to_string())
        };
        let fr: u64 = f
            .tables
            .iter()
            .filter_map(|&t| ref_rel[t])
            .fold(0, |a, r| a | bit(r));
        if fr == 0 || pushed.contains(&fi) {
            continue;
        }
        let other = [Expr::Other];
        let exprs: &[Expr] = match &parsed[fi] {
            Some(p) => &p.1,
            None => &other,
        };
        // The filter's true selectivity covers it whole: it applies where the filter
        // is one condition; a filter split into several keeps the estimates.
        let exact = exprs.len() == 1;
        for e in exprs {
            // Sargable single-table conditions pulled out of an OR go to the scan's
            // restriction clauses.
            let er = b.expr_rels(e, fr, block, &ref_rel);
            if er.count_ones() == 1 && sub.is_none() {
                if let Some(p) = as_predicate(e, &b, fr, block, &ref_rel) {
                    let ti = block
                        .tables
                        .iter()
                        .enumerate()
                        .find(|(ti, _)| ref_rel[*ti] == Some(er.trailing_zeros() as usize));
                    if let Some((ti, _)) = ti {
                        extra_preds[ti].push(p);
                        continue;
                    }
                }
            }
            // An expression an expression index holds, compared with constants: a
            // restriction clause on the index's key, estimated from its statistics.
            if exact && sub.is_none() && fr.count_ones() == 1 {
                let r = fr.trailing_zeros() as usize;
                if let RelKind::Table { tidx, .. } = b.rels[r].kind {
                    if let Some(p) = expression_predicate(pl, tidx, &f.expr) {
                        if let Some(ti) = (0..block.tables.len()).find(|&t| ref_rel[t] == Some(r)) {
                            extra_preds[ti].push(p);
                            continue;
                        }
                    }
                }
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
                continue;
            }
            let (sel, sel_semi, ops) = match (e, &f.kind) {
                (Expr::Other, FilterKind::Function) => {
                    let nlit = clauses::quoted_constants(&f.expr).max(1) as f64;
                    // An expression compared without statistics (no expression index): the
                    // selectivity functions' defaults (eqsel through get_variable_numdistinct's
                    // DEFAULT_NUM_DISTINCT, scalarineqsel's DEFAULT_INEQ_SEL, patternsel's
                    // DEFAULT_MATCH_SEL) and one operator call; an IN list n/2 calls.
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
                                pl.db.tables[ti].columns.iter().any(|c| {
                                    c.name.eq_ignore_ascii_case(id)
                                        && matches!(c.ty, ColumnType::Char(_))
                                })
                            })
                        })
                    });
                    (
                        sel,
                        sel,
                        QualOps {
                            startup: 0.0,
                            per_tuple: 1.0 + if cast { 1.0 } else { 0.0 } + cmp_ops,
                        },
                    )
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
                    let (s, ss) = b.expr_sel(e, fr, block, &ref_rel);
                    (s, ss, expr_ops(e))
                }
            };
            // The schema's own functions cost their procost per call (cost_qual_eval).
            let ops = QualOps {
                per_tuple: ops.per_tuple + pl.db.extra_call_ops_of(&f.expr),
                ..ops
            };
            // A whole filter reads every relation the front end found in it (a clause
            // shape drops an operand it cannot read, `e1.id + 1`, and its relation with
            // it); a piece factored out of an OR reads what its own columns say.
            let rels_of = if er == 0 || sub.is_some() || exact {
                fr
            } else {
                er
            };
            let (scan_text, join_text) = if rels_of.count_ones() == 1 {
                (shown(&b, e, false), String::new())
            } else {
                (String::new(), shown(&b, e, true))
            };
            let qual = Qual {
                startup: ops.startup * cop,
                per_tuple: ops.per_tuple * cop + per_call,
            };
            if rels_of.count_ones() == 1 {
                let r = rels_of.trailing_zeros() as usize;
                let br = &mut b.rels[r];
                if per_call > 0.0 {
                    br.extra.per_tuple += per_call;
                    br.filter_ops = br.filter_ops.add(ops);
                } else {
                    br.filter_ops = br.filter_ops.add(ops);
                }
                br.filter_text.push(scan_text.clone());
                // Selectivity: kept with the relation's rows below.
                br.filter_sel *= sel;
                br.true_sel *= if exact { f.true_selectivity } else { sel };
                // The columns it reads here: its own, and those a correlated sub-select
                // takes from this row (its SubPlan's parameters).
                let mut cols: Vec<String> = Vec::new();
                let params = sub
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
                    text: scan_text,
                    expr: e.clone(),
                    ops,
                    sel,
                    cols,
                });
            } else {
                let mut cols = Vec::new();
                b.expr_cols(e, fr, block, &ref_rel, &mut cols);
                // OR arms restricted to one relation each are also applied at that
                // relation's scan; the join clause's selectivity is divided by them
                // (extract_restriction_or_clauses, orclauses.c).
                let mut sel = sel;
                // The selectivity the per-relation OR restrictions took out of the
                // condition's true one.
                let mut restricted = 1.0;
                if let Expr::Or(arms) = &e {
                    for r in 0..b.rels.len() {
                        if rels_of & bit(r) == 0 || all & bit(r) == 0 {
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
                                .filter(|c| b.expr_rels(c, fr, block, &ref_rel) == bit(r))
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
                        let (os, _) = b.expr_sel(&or, fr, block, &ref_rel);
                        let oops = expr_ops(&or);
                        let text = deparse::cond_text(&or, &|n| b.column_display(pl, n, false))
                            .unwrap_or_else(|| format!("OR restriction from {}", f.expr));
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
                }
                let hash_col = match (&e, sub) {
                    (
                        Expr::Cmp {
                            col,
                            op: Op::Eq,
                            rhs: Operand::Other,
                        },
                        Some(_),
                    ) => b.resolve(col, fr, block, &ref_rel),
                    _ => None,
                };
                let true_sel = if exact && restricted > 0.0 {
                    (f.true_selectivity / restricted).min(1.0)
                } else {
                    sel
                };
                b.jfilters.push(JFilter {
                    rels: rels_of,
                    sel,
                    sel_semi,
                    true_sel,
                    qual,
                    text: join_text,
                    cols,
                    hash_col,
                    calls: pl.db.calls_of(&f.expr),
                });
            }
        }
    }
    // NOT IN nests: a hashed SubPlan tested on the outer column (§6.2): startup pays the
    // sub-select and its hash table, each row one comparison; selectivity 0.5 (a SubPlan
    // clause has no estimator).
    for &ni in &notin {
        let nest = &block.nests[ni];
        let sub = nest_block(block, &nest.tables);
        let sp = pl.plan_block(
            &sub,
            &BlockOpts {
                nested: true,
                ..BlockOpts::default()
            },
        )?;
        for (nn, outer, _) in &notin_edges {
            if *nn != ni {
                continue;
            }
            if let Some(r) = ref_rel[outer.table] {
                let br = &mut b.rels[r];
                br.extra.startup += sp.total + cop * sp.rows;
                br.filter_ops = br.filter_ops.add(QualOps {
                    startup: 0.0,
                    per_tuple: 1.0,
                });
                br.filter_text
                    .push(format!("(NOT (hashed SubPlan {}))", b.initplans.len() + 1));
                br.filter_sel *= 0.5;
                br.true_sel *= 1.0 - nest.true_match;
            }
        }
        let n = b.initplans.len() + 1;
        b.initplans.push((sp.node.clone(), "SubPlan", 0, 1.0));
        b.initplan_names.push(format!("SubPlan {n}"));
    }
    // Uncorrelated scalar sub-selects without a filter compare in HAVING (Q11).
    for s in &block.subqueries {
        if s.kind == SubqueryKind::Scalar && s.filter.is_none() {
            let sp = pl.plan_block(
                &s.block,
                &BlockOpts {
                    nested: true,
                    ..BlockOpts::default()
                },
            )?;
            b.initplan_cost += sp.total;
            // PG15 numbers this InitPlan's output $1, not $0 (the server's EXPLAIN of
            // Q11: `InitPlan 1 (returns $1)`, `Filter: (sum(...) > $1)`); the
            // PARAM_EXEC numbering is copied from it, not modelled.
            let n = b.initplans.len() + 1;
            b.initplans.push((sp.node.clone(), "InitPlan", 0, 1.0));
            b.initplan_names.push(format!("InitPlan {n} (returns $1)"));
            if let Some(h) = &block.having {
                b.having_text = Some(HavingText {
                    cond: h.clone(),
                    sub: "$1",
                    sub_item: s.block.select.first().map(|i| i.expr.clone()),
                });
            }
            b.having = true;
        }
    }

    // Base relation sizes and paths.
    for (ti, t) in block.tables.iter().enumerate() {
        let Some(r) = ref_rel[ti] else { continue };
        let mut preds = t.preds.clone();
        preds.extend(extra_preds[ti].iter().cloned());
        for c in &opts.correlated {
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

    // Grouping and ordering columns.
    let key = |c: &ColRef| {
        ref_rel[c.table].map(|r| ColKey {
            rel: r,
            col: c.column.as_str().into(),
        })
    };
    b.group = block.group_by.iter().filter_map(key).collect();
    b.order = block.order_by.iter().filter_map(key).collect();
    if let Some(k) = order_by_index_expression(pl, &b, block) {
        b.order = vec![k];
        b.order_by_index_expression = true;
        if let [(item, _)] = block.order_items.as_slice() {
            let point = clauses::distance_to_point(item).and_then(|(_, p)| p);
            b.knn_point = point.map(|(x, y)| {
                format!(
                    "'({},{})'::point",
                    clauses::float8_text(x),
                    clauses::float8_text(y)
                )
            });
        }
    }

    // SubPlan calls: the rows of its relations joined, before its own condition.
    for k in 0..b.initplans.len() {
        let rels = b.initplans[k].2;
        if rels == 0 {
            continue;
        }
        let mut n = 1.0;
        for r in 0..b.rels.len() {
            if rels & bit(r) != 0 {
                n *= b.rels[r].rows;
            }
        }
        for ec in &b.ecs {
            let inside: Vec<&ColKey> = ec.iter().filter(|m| rels & bit(m.rel) != 0).collect();
            if inside.len() >= 2 && inside[0].rel != inside[1].rel {
                n *= b.eqjoinsel_inner(inside[0], inside[1]);
            }
        }
        if rels.count_ones() == 1 {
            // A restriction's rows already passed it; the calls came before.
            let r = rels.trailing_zeros() as usize;
            let sel = b.rels[r].filter_sel;
            if sel > 0.0 {
                n /= sel;
            }
        }
        b.initplans[k].3 = clamp_row_est(n);
    }

    // Widths, then access paths.
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
        let paths = pl.base_paths(&b, r)?;
        b.rels[r].paths = paths;
    }
    Ok(b)
}

/// Replaces every column named `name` of `e` (a derived table's output column, as an
/// outer condition names it) with `with` in parentheses.
fn replace_column(e: &mut costlab_model::expr::Expr, name: &str, with: &costlab_model::expr::Expr) {
    use costlab_model::expr::Expr as T;
    if let T::Column(c) = e {
        if c.name.eq_ignore_ascii_case(name) {
            *e = T::Nested(Box::new(with.clone()));
        }
        return;
    }
    match e {
        T::Binary { left, right, .. } => {
            replace_column(left, name, with);
            replace_column(right, name, with);
        }
        T::Nested(x) | T::Not(x) | T::Neg(x) => replace_column(x, name, with),
        _ => {}
    }
}
