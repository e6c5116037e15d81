//! Equivalence classes (equivclass.c): the classes from the join edges
//! (process_equivalence), constants propagated through them
//! (generate_base_implied_equalities_const): `a = b AND b = 5` restricts `a` too.

use costlab_model::block::{QueryBlock, Source};
use costlab_model::catalog::Value;
use costlab_model::query::{CmpOp, Predicate};

use super::pathnodes::*;

/// An equivalence class with a constant (generate_base_implied_equalities_const): where a
/// join edge's column equals a constant (`c.cust_id = 99 AND o.cust_id = c.cust_id`), every
/// other member gets the restriction `= constant` (`o.cust_id = 99`) and the class makes
/// no join clause, its edges dropped. Only between plain tables of the block: not into a
/// semi or anti join's tables or a LEFT JOIN's nullable side.
pub(crate) fn propagate_constants(
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    edges: &mut Vec<(ColKey, ColKey)>,
    extra_preds: &mut [Vec<Predicate>],
) {
    let table_of = |rel: usize| ref_rel.iter().position(|r| *r == Some(rel));
    let plain = |rel: usize| {
        table_of(rel).is_some_and(|t| {
            let tr = &block.tables[t];
            tr.nest.is_none() && tr.outer_join_after.is_empty() && tr.source == Source::Base
        })
    };
    let constant = |rel: usize, col: &str, extra: &[Vec<Predicate>]| -> Option<Value> {
        let t = table_of(rel)?;
        block.tables[t]
            .preds
            .iter()
            .chain(&extra[t])
            .find_map(|p| match p {
                Predicate::Cmp {
                    column,
                    op: CmpOp::Eq,
                    value,
                } if column.eq_ignore_ascii_case(col) => Some(value.clone()),
                _ => None,
            })
    };
    loop {
        let mut changed = false;
        for (a, c) in edges.iter() {
            if !plain(a.rel) || !plain(c.rel) {
                continue;
            }
            let (va, vc) = (
                constant(a.rel, &a.col, extra_preds),
                constant(c.rel, &c.col, extra_preds),
            );
            let (to, v) = match (va, vc) {
                (Some(v), None) => (c, v),
                (None, Some(v)) => (a, v),
                _ => continue,
            };
            if let Some(t) = table_of(to.rel) {
                extra_preds[t].push(Predicate::Cmp {
                    column: to.col.to_string(),
                    op: CmpOp::Eq,
                    value: v,
                });
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    edges.retain(|(a, c)| {
        !(plain(a.rel)
            && plain(c.rel)
            && constant(a.rel, &a.col, extra_preds).is_some()
            && constant(c.rel, &c.col, extra_preds).is_some())
    });
}

/// The equivalence classes (process_equivalence): the union of the join edges, each
/// column in one class, classes merged where an edge joins two.
pub(crate) fn process_equivalences(b: &mut Block, edges: &[EqEdge]) {
    for (a, c) in edges {
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
}
