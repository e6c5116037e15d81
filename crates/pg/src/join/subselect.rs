//! Sub-selects (subselect.c, allpaths.c's set_subquery_pathlist): a planned sub-block as
//! a base relation of the outer block (a derived table with the outer conditions pushed
//! into its HAVING, a grouped IN sub-select), the block of a NOT IN nest's tables, the
//! subquery scan's path; sub-selects planned as InitPlans and SubPlans (make_subplan), in
//! the order EXPLAIN numbers them.

use crate::pathnodes::QualOps;
use costlab_model::block::{ColRef, Filter, QueryBlock, Subquery, SubqueryKind, TableRef};
use costlab_model::error::Result;
use costlab_model::plan::Name;
use costlab_model::plan::{Cost, Work};

use super::clauses::{self, Expr};
use super::costs::Qual;
use super::model::{JPath, Node, PathKeys, Rescan};
use super::pathnodes::*;

/// A sub-select's relation: its path under a Subquery Scan ([SCAN] cost_subqueryscan:
/// one cpu_tuple_cost per row on top).
pub(crate) fn sub_rel<'a>(
    alias: Name,
    sp: JPath,
    cols: Vec<String>,
    unique: Vec<String>,
    uses: Vec<Name>,
    sublink: bool,
) -> BaseRel<'a> {
    let true_rows = sp.node.true_rows().unwrap_or(sp.rows);
    BaseRel {
        alias,
        rows: sp.rows,
        tuples: sp.rows,
        width: sp.width,
        kind: RelKind::Sub {
            path: sp,
            cols,
            unique,
            sublink,
        },
        filter_ops: QualOps::default(),
        filter_sel: 1.0,
        true_sel: 1.0,
        true_rows,
        extra: Qual::default(),
        filter_text: Vec::new(),
        filters: Vec::new(),
        paths: Vec::new(),
        partial: Vec::new(),
        uses,
        handed_up: Vec::new(),
    }
}

/// The block of a NOT IN nest's tables with their own conditions.
pub(crate) fn nest_block(block: &QueryBlock, tables: &[usize]) -> QueryBlock {
    let map = |t: usize| tables.iter().position(|&x| x == t);
    let mut q = QueryBlock::default();
    for &t in tables {
        let mut tr = block.tables[t].clone();
        tr.nest = None;
        tr.outer_join_after.clear();
        q.tables.push(tr);
    }
    for e in &block.joins {
        if let (Some(a), Some(b)) = (map(e.a.table), map(e.b.table)) {
            let mut e2 = e.clone();
            e2.a.table = a;
            e2.b.table = b;
            q.joins.push(e2);
        }
    }
    for f in &block.filters {
        if f.tables.iter().all(|t| map(*t).is_some()) {
            let mut f2 = f.clone();
            f2.tables = f.tables.iter().filter_map(|t| map(*t)).collect();
            f2.expr
                .for_each_column_mut(&mut |c| c.table = c.table.and_then(map));
            q.filters.push(f2);
        }
    }
    q
}

/// A Subquery Scan path over a planned sub-select.
pub(crate) fn subquery_scan(br: &BaseRel, cop: f64, ctup: f64, elide: bool) -> Option<JPath> {
    let RelKind::Sub { path, .. } = &br.kind else {
        return None;
    };
    let q = br.filter_ops;
    let startup = path.startup + q.startup * cop + br.extra.startup;
    let total = path.total
        + q.startup * cop
        + br.extra.startup
        + (ctup + q.per_tuple * cop + br.extra.per_tuple) * path.rows;
    let work = Work {
        rows_examined: path.rows,
        operator_evals: path.rows * q.per_tuple,
        rows_out: br.rows,
        ..Work::default()
    };
    let mut details = Vec::new();
    for t in &br.filter_text {
        details.push(format!("Filter: {t}"));
    }
    // A scan without conditions over a sub-select of a sublink or of a block of its own
    // is dropped from the plan (setrefs.c trivial_subqueryscan); its cost stays.
    let node = if elide && br.filter_text.is_empty() {
        let (plan, kids) = path.node.root_parts();
        Node::op(plan, kids)
    } else {
        let mut plan = costlab_model::plan::PlanNode::leaf(
            "Subquery Scan",
            Cost::new(startup, total),
            br.rows,
            work,
        );
        plan.relation = Some(br.alias.clone());
        plan.width = br.width;
        plan.details = details;
        Node::op(plan, vec![path.node.clone()])
    };
    Some(JPath {
        startup,
        total,
        rows: br.rows,
        width: br.width,
        pathkeys: PathKeys::new(),
        param: 0,
        rescan: Rescan::Same,
        node,
        param_ecs: smallvec::SmallVec::new(),
        can_mark: false,
        disabled: path.disabled,
        pending: 0,
        workers: 0,
        safe: path.safe,
    })
}

/// A join equality to a NOT IN nest's table, the test of the nest's SubPlan: (nest, outer
/// column, nest column).
pub(crate) type NotInEdge = (usize, ColRef, ColRef);

/// The constant a correlated column is compared with in the single-table model (`col =
/// $param`), outside every column's values; EXPLAIN text shows the outer column instead.
pub(crate) const PARAM_PLACEHOLDER: f64 = -1.0;

/// A derived table (Q15's view) planned as a sub-select relation (set_subquery_pathlist):
/// conditions of the outer block on the view's aggregate outputs move into its HAVING
/// (qual pushdown into a grouped sub-select); each one moved is added to `pushed`.
pub(crate) fn derived_rel<'a>(
    pl: &Planner<'a>,
    block: &QueryBlock,
    ti: usize,
    t: &TableRef,
    sub: &QueryBlock,
    columns: &[Name],
    pushed: &mut Vec<usize>,
) -> Result<BaseRel<'a>> {
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
    // The condition as the view's HAVING shows it: the output column replaced by the
    // view's expression for it; its sub-select is the outer block's first InitPlan, `$0`
    // in PG15.
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
    Ok(sub_rel(
        t.alias.clone(),
        sp,
        cols,
        unique,
        t.uses.clone(),
        false,
    ))
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

/// Grouped IN sub-selects (Q18), the sub-select subqueries `grouped_in` of the block:
/// PostgreSQL makes each a semijoin whose RHS is unique on the IN column, then reduces it
/// to an inner join (reduce_unique_semijoins). Each is planned and added to `rels`;
/// returns the join edges from the IN column to its key and the filters they replace.
pub(crate) fn grouped_in_rels<'a>(
    pl: &Planner<'a>,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    grouped_in: &[usize],
    rels: &mut Vec<BaseRel<'a>>,
) -> Result<(Vec<EqEdge>, Vec<usize>)> {
    let mut extra_edges: Vec<EqEdge> = Vec::new();
    let mut consumed_filters: Vec<usize> = Vec::new();
    for &si in grouped_in {
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
    Ok((extra_edges, consumed_filters))
}

/// Filter `f`'s scalar sub-select `s` planned (make_subplan): uncorrelated an InitPlan run
/// once (`$0`), correlated a SubPlan run for each row of the filter's relations; added to
/// the block's initplans. Returns its cost per evaluation (0 for an InitPlan, whose cost
/// is the block's) and what it shows as in the condition.
pub(crate) fn make_subplan(
    pl: &Planner,
    b: &mut Block,
    ref_rel: &[Option<usize>],
    f: &Filter,
    s: &Subquery,
) -> Result<(f64, Option<String>)> {
    let corr: Vec<ColRef> = s.correlation.iter().map(|(c, _)| c.clone()).collect();
    let sp = pl.plan_block(
        &s.block,
        &BlockOpts {
            correlated: corr.clone(),
            nested: true,
            ..BlockOpts::default()
        },
    )?;
    let fr = relids(ref_rel, &f.tables);
    let n = b.initplans.len() + 1;
    if corr.is_empty() {
        b.initplan_cost += sp.total;
        b.initplans.push((sp.node.clone(), "InitPlan", 0, 1.0));
        b.initplan_names.push(format!("InitPlan {n} (returns $0)"));
        return Ok((0.0, Some("$0".to_string())));
    }
    // The correlated columns compare with the outer row's values, which EXPLAIN shows as
    // the outer column (ruleutils finds a Param's referent); the single-table model had a
    // placeholder constant.
    let outer: Vec<(String, String)> = s
        .correlation
        .iter()
        .filter_map(|(inner, outer)| {
            let r = ref_rel[outer.table]?;
            Some((
                format!("({} = {PARAM_PLACEHOLDER})", inner.column),
                format!("({} = {}.{})", inner.column, b.rels[r].alias, outer.column),
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
    Ok((sp.total, Some(format!("(SubPlan {n})"))))
}

/// NOT IN nests (`notin`): a hashed SubPlan tested on the outer column (§6.2): startup
/// pays the sub-select and its hash table, each row one comparison; selectivity 0.5 (a
/// SubPlan clause has no estimator). `notin_edges`: (nest, outer column, nest column).
pub(crate) fn notin_subplans(
    pl: &Planner,
    b: &mut Block,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    notin: &[usize],
    notin_edges: &[NotInEdge],
) -> Result<()> {
    let cop = pl.jc.cop();
    for &ni in notin {
        let nest = &block.nests[ni];
        let sub = nest_block(block, &nest.tables);
        let sp = pl.plan_block(
            &sub,
            &BlockOpts {
                nested: true,
                ..BlockOpts::default()
            },
        )?;
        for (nn, outer, _) in notin_edges {
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
    Ok(())
}

/// Uncorrelated scalar sub-selects without a filter compare in HAVING (Q11): InitPlans.
pub(crate) fn having_initplans(pl: &Planner, b: &mut Block, block: &QueryBlock) -> Result<()> {
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
    Ok(())
}
