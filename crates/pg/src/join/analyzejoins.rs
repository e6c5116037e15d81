//! Whether a semi join's right-hand side is already distinct on the join columns
//! (analyzejoins.c's rel_is_distinct_for / innerrel_is_unique): then the semi join is
//! planned as an inner join.

use costlab_model::block::{QueryBlock, Source};
use costlab_model::query::{CmpOp, Predicate};

use super::pathnodes::*;
use smallvec::SmallVec;

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

impl<'a> Planner<'a> {
    /// `inner_unique`, remembered per relation and clause columns: a pure function of
    /// them, asked for again for every outer side and join type of the same inner.
    pub(crate) fn inner_unique_cached(
        &self,
        b: &Block,
        s: &Search,
        inner: u64,
        eqs: &[EqClause],
    ) -> bool {
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
    pub(crate) fn inner_unique(&self, b: &Block, inner: u64, eqs: &[EqClause]) -> bool {
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
}
