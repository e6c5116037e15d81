//! Partial indexes (predtest.c's predicate_implied_by, as far as the DBT3 kit's indexes
//! need it): which restriction clauses and filters imply an index's predicate, and the
//! index as the path builder then sees it (`IxDesc`). `KIT_SPECIAL_INDEXES` lists the
//! kit's partial indexes; they are DBT3's schema, kept here until the catalog carries
//! index predicates itself.

use std::borrow::Cow;

use crate::pathnodes::{ClauseKind, Rel};

use super::clauses::{Expr, Op, Operand};
use super::clausesel::{cmp_op, value_for};
use super::pathnodes::*;

/// The §2.2 indexes of the DBT3 PostgreSQL kit that a plain btree cannot stand for:
/// (name, BRIN, partial-index predicate, share of the table's rows the predicate keeps
/// from `dbt3.md` §1.2/§1.4, None to take the predicate's estimate). PostgreSQL reads a
/// partial index's entry count from its pg_class row; the catalog has no field for it.
pub(crate) const KIT_SPECIAL_INDEXES: &[(&str, bool, Option<&str>, Option<f64>)] = &[
    (
        "supplier_s_suppkey_idx_like",
        false,
        Some("s_comment LIKE '%Customer%Complaints%'"),
        Some(0.0005),
    ),
    ("orders_o_orderdate_idx", true, None, None),
    (
        "lineitem_l_orderkey_idx_l_returnflag",
        false,
        Some("l_returnflag = 'R'"),
        None,
    ),
    (
        "lineitem_l_orderkey_idx_part2",
        false,
        Some("l_commitdate < l_receiptdate AND l_shipdate < l_commitdate"),
        Some(0.1197),
    ),
    (
        "lineitem_l_orderkey_l_suppkey_idx",
        false,
        Some("l_commitdate < l_receiptdate"),
        Some(0.6321),
    ),
    ("lineitem_l_shipdate_idx", true, None, None),
    ("lineitem_l_receiptdate_idx", true, None, None),
];

pub(crate) fn strip(c: &str) -> String {
    c.rsplit('.').next().unwrap_or(c).to_ascii_lowercase()
}

/// A comparable form of a condition: qualifiers dropped, `>` turned around.
pub(crate) fn normal(e: &Expr) -> Option<(String, Op, String)> {
    match e {
        Expr::Cmp {
            col,
            op,
            rhs: Operand::Col(c2),
        } => Some(match op {
            Op::Gt => (strip(c2), Op::Lt, strip(col)),
            Op::Ge => (strip(c2), Op::Le, strip(col)),
            _ => (strip(col), *op, strip(c2)),
        }),
        Expr::Like { col, pat, negated } if !negated => {
            Some((strip(col), Op::Eq, format!("LIKE {pat}")))
        }
        _ => None,
    }
}

/// The partial index as usable for relation `r`, when the relation's conditions imply
/// its predicate (predicate_implied_by, reduced to matching conditions).
pub(crate) fn partial_desc(
    b: &Block,
    r: usize,
    rel: &Rel,
    p: &PartialIndex,
) -> Option<IxDesc<'static>> {
    let br = &b.rels[r];
    let mut implied_clauses = Vec::new();
    let mut implied_filters = Vec::new();
    let mut pred_sel = 1.0;
    for e in &p.conds {
        match e {
            Expr::Cmp {
                col,
                op,
                rhs: Operand::Lit(l),
            } => {
                let o = cmp_op(*op)?;
                let pos = rel
                    .cols
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(col))?;
                let v = value_for(&rel.cols[pos], l)?;
                let id = rel.clauses.iter().position(|cl| {
                    cl.col == pos
                        && matches!(&cl.kind, ClauseKind::Op { op: o2, value } if *o2 == o && *value == v)
                })?;
                implied_clauses.push(id);
                pred_sel *= rel.clauses[id].selec;
            }
            _ => {
                let want = normal(e)?;
                let fi = br
                    .filters
                    .iter()
                    .position(|f| normal(&f.expr).as_ref() == Some(&want))?;
                implied_filters.push(fi);
                pred_sel *= br.filters[fi].sel;
            }
        }
    }
    let pos = |n: &String| rel.cols.iter().position(|c| c.name.eq_ignore_ascii_case(n));
    let keys: Vec<usize> = p
        .index
        .columns
        .iter()
        .map(pos)
        .collect::<Option<Vec<_>>>()?;
    let mut covers = keys.clone();
    for c in &p.index.include {
        covers.push(pos(c)?);
    }
    let pg = p.index.pg.as_ref()?;
    let fraction = p.fraction.unwrap_or(pred_sel);
    Some(IxDesc {
        name: costlab_model::plan::Name::new(&p.index.name),
        pages: pg.pages.floor().max(1.0),
        tuples: (rel.tuples * fraction)
            .round()
            .clamp(1.0, rel.tuples.max(1.0)),
        height: pg.tree_height.floor(),
        unique: p.index.unique || p.index.primary,
        keys: Cow::Owned(keys),
        covers: Cow::Owned(covers),
        implied_clauses,
        implied_filters,
        pred_sel,
    })
}
