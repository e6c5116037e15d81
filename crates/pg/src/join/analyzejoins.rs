//! Whether a semi join's right-hand side is already distinct on the join columns
//! (analyzejoins.c's rel_is_distinct_for / innerrel_is_unique): then the semi join is
//! planned as an inner join.

use costlab_model::block::{QueryBlock, Source};
use costlab_model::query::{CmpOp, Predicate};

use super::pathnodes::*;

/// Whether a semi join's right side is one table that a unique index makes distinct for
/// the join (rel_is_distinct_for): every key column equated to a column outside the nest or
/// to a constant.
pub(crate) fn semi_rhs_is_unique(
    pl: &Planner,
    block: &QueryBlock,
    nest: &costlab_model::block::Nest,
) -> bool {
    let [t] = nest.tables.as_slice() else {
        return false;
    };
    let tr = &block.tables[*t];
    if tr.source != Source::Base {
        return false;
    }
    let Ok(tidx) = pl.table_index(&tr.table) else {
        return false;
    };
    let mut bound: Vec<String> = Vec::new();
    for e in &block.joins {
        for (x, y) in [(&e.a, &e.b), (&e.b, &e.a)] {
            if x.table == *t && block.tables[y.table].nest != tr.nest {
                bound.push(x.column.to_ascii_lowercase());
            }
        }
    }
    for p in &tr.preds {
        if let Predicate::Cmp {
            column,
            op: CmpOp::Eq,
            ..
        } = p
        {
            bound.push(column.to_ascii_lowercase());
        }
    }
    pl.db.tables[tidx].indexes.iter().any(|ix| {
        ix.unique
            && !ix.columns.is_empty()
            && ix
                .columns
                .iter()
                .all(|c| bound.contains(&c.to_ascii_lowercase()))
    })
}
