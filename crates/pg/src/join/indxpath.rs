//! Expression indexes and the orders indexes give (indxpath.c's match_clause_to_index for
//! an indexed expression, pathkeys.c's ORDER BY on it, and the handed-up values of the
//! third seed's patch series).

use costlab_model::block::QueryBlock;
use costlab_model::catalog::{ColumnType, IndexMethod, Value};
use costlab_model::query::Predicate;

use super::clausesel::cmp_op;
use super::pathnodes::*;
use super::sqlexpr::{self, Expr, Lit, Operand};

/// The key of an expression index that a block without grouping is ordered by, when its
/// ORDER BY is that one expression (spelled out: an ordinal or an alias is not matched);
/// or, for `ORDER BY key <-> point '(x,y)'`, the key of a GiST index on `key` (a column
/// or an expression), which returns rows by distance. A point has no ordering of its own
/// (no btree), so a pathkey on it can only mean the distance.
pub(crate) fn order_by_index_expression(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
    sql: &str,
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
    let items = pl.db.memo.order_items(sql);
    let [item] = items.as_slice() else {
        return None;
    };
    let knn = sqlexpr::distance_operand(item);
    // A GiST scan returns the nearest first, never the farthest.
    if knn.is_some()
        && sqlexpr::outer_items(sql, "ORDER BY").is_some_and(|v| v.iter().any(|(_, desc)| *desc))
    {
        return None;
    }
    let text = knn
        .clone()
        .unwrap_or_else(|| sqlexpr::canonical_expression(item));
    tables.iter().find_map(|&(r, tidx)| {
        let info = &pl.db.infos[tidx];
        let pos = info.cols.iter().position(|c| {
            let eligible = if knn.is_some() {
                c.ty == ColumnType::Point
            } else {
                c.expression.is_some()
            };
            eligible && sqlexpr::canonical_expression(&c.name) == text
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
pub(crate) fn handed_up_columns(pl: &Planner, tidx: usize, sql: &str) -> Vec<(String, String)> {
    let info = &pl.db.infos[tidx];
    if info.cols.iter().all(|c| c.expression.is_none()) {
        return Vec::new();
    }
    let canon = sqlexpr::canonical_expression(sql);
    let mut rest = format!(" {canon} ");
    let mut found = Vec::new();
    for c in info.cols.iter().filter(|c| c.expression.is_some()) {
        let text = format!(" {} ", sqlexpr::canonical_expression(&c.name));
        if rest.contains(&text) {
            rest = rest.replace(&text, " ");
            found.push(c);
        }
    }
    let mut out = Vec::new();
    for c in found {
        for &h in c.expression.as_ref().map_or(&[][..], |e| &e.reads[..]) {
            let heap = info.cols[h].name.to_ascii_lowercase();
            if !rest.split_whitespace().any(|w| w == heap) {
                out.push((info.cols[h].name.clone(), c.name.clone()));
            }
        }
    }
    out
}

/// `expr op constant` (or IN, BETWEEN) where `expr` is the key of one of table `tidx`'s
/// expression indexes: a predicate on that key (match_index_to_operand).
pub(crate) fn expression_predicate(pl: &Planner, tidx: usize, sql: &str) -> Option<Predicate> {
    let info = &pl.db.infos[tidx];
    if info.cols.iter().all(|c| c.expression.is_none()) {
        return None;
    }
    let (text, test) = sqlexpr::expression_comparison(sql)?;
    let col = info
        .cols
        .iter()
        .filter(|c| c.expression.is_some())
        .find(|c| sqlexpr::canonical_expression(&c.name) == text)?;
    let column = col.name.clone();
    let lit = |l: Lit| match l {
        Lit::Num(x) => Value::Num(x),
        Lit::Text(s) => Value::Text(s),
    };
    Some(match test {
        sqlexpr::ExprTest::Cmp(op, l) => Predicate::Cmp {
            column,
            op: cmp_op(op)?,
            value: lit(l),
        },
        sqlexpr::ExprTest::In(values) => Predicate::In {
            column,
            values: values.into_iter().map(lit).collect(),
        },
        sqlexpr::ExprTest::Between(lo, hi) => Predicate::Between {
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
