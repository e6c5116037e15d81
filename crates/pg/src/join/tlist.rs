//! What the target lists cost (costsize.c's set_pathtarget_cost_width over the select
//! list): operator calls and the schema's function calls per scan/join row and per group,
//! and the calls an index-only scan of an expression index saves by returning the value.

use super::clauses;
use super::model::Node;
use super::pathnodes::*;
use costlab_model::block::{QueryBlock, Source};
use costlab_model::expr::Expr as T;

/// What the block's target lists evaluate beyond Vars and aggregates, in operator calls
/// (the schema's functions at their procost): per row of the scan/join result and per
/// group of the aggregation. set_pathtarget_cost_width prices each target expression
/// whole, as cost_qual_eval would. Without grouping the scan/join target is the final one
/// (apply_scanjoin_target_to_paths): the select list and the ORDER BY expressions not in
/// it. With grouping, make_group_input_target keeps the GROUP BY expressions whole in the
/// scan/join target and flattens the rest to Vars and Aggrefs; the aggregation's own
/// target prices its select items again, whole, though the executor takes a grouped
/// expression's value from its input (what the third seed's planner change credits).
/// Aggregate arguments and the arithmetic around aggregates are [`agg_costs`]'. Items that
/// name a derived table's columns are left to the derived table (its own target list).
/// `target_ops`' figures: operator calls (cost) and calls of the schema's functions
/// (work) per scan/join row and per group.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TargetOps {
    pub(super) scanjoin_ops: f64,
    pub(super) scanjoin_calls: f64,
    pub(super) agg_out_ops: f64,
    pub(super) agg_out_calls: f64,
}

pub(crate) fn target_ops(pl: &Planner, block: &QueryBlock, grouped: bool) -> TargetOps {
    let derived = |t: usize| matches!(block.tables[t].source, Source::Derived { .. });
    let items: Vec<&T> = block.select.iter().map(|i| &i.expr).collect();
    let cost = |e: &T| -> f64 {
        if matches!(e, T::Star) || e.reads_derived(&derived) {
            return 0.0;
        }
        clauses::op_count(e) + pl.db.extra_call_ops_of(e)
    };
    let calls = |e: &T| -> f64 {
        if cost(e) == 0.0 {
            0.0
        } else {
            pl.db.calls_of(e)
        }
    };
    if grouped {
        let group: Vec<&T> = block
            .group_items
            .iter()
            .map(|g| output_item(block, g))
            .collect();
        let out: Vec<&T> = items
            .iter()
            .copied()
            .filter(|i| !i.has_aggregate())
            .collect();
        TargetOps {
            scanjoin_ops: group.iter().map(|g| cost(g)).sum(),
            scanjoin_calls: group.iter().map(|g| calls(g)).sum(),
            agg_out_ops: out.iter().map(|i| cost(i)).sum(),
            // The executor takes a grouped expression's value from its input.
            agg_out_calls: out
                .iter()
                .filter(|i| !group.contains(i))
                .map(|i| calls(i))
                .sum(),
        }
    } else {
        // An ungrouped block with aggregates has one output row: nothing per row.
        if items.iter().any(|i| i.has_aggregate()) {
            return TargetOps::default();
        }
        let mut t = TargetOps {
            scanjoin_ops: items.iter().map(|i| cost(i)).sum(),
            scanjoin_calls: items.iter().map(|i| calls(i)).sum(),
            ..TargetOps::default()
        };
        for (o, _) in &block.order_items {
            let o = output_item(block, o);
            if !items.contains(&o) {
                t.scanjoin_ops += cost(o);
                t.scanjoin_calls += calls(o);
            }
        }
        t
    }
}

/// An ORDER BY or GROUP BY item as the expression it sorts on: an ordinal or an output
/// name of the select list stands for that item (findTargetlistEntrySQL92).
pub(crate) fn output_item<'b>(block: &'b QueryBlock, e: &'b T) -> &'b T {
    match e {
        T::Number(n) => n
            .parse::<usize>()
            .ok()
            .and_then(|k| block.select.get(k.wrapping_sub(1)))
            .map_or(e, |i| &i.expr),
        T::Column(c) if c.table.is_none() && c.qualifier.is_none() => block
            .select
            .iter()
            .find(|i| {
                i.alias
                    .as_ref()
                    .is_some_and(|a| a.eq_ignore_ascii_case(&c.name))
            })
            .map_or(e, |i| &i.expr),
        _ => e,
    }
}

/// Calls of the scan/join target list per row that the executor does not make: an
/// index-only scan on an expression index returns the index's own columns
/// (use_physical_tlist), the expression's value among them, and set_plan_references
/// matches a target item equal to that expression to it instead of computing it again.
/// The planner still charges the item (cost_qual_eval knows nothing of it): the third
/// seed's regression case is a hash join over such a scan.
///
/// `ordered_value`: the patched build (`handed_up`, the series' 0001 and 0003) also
/// hands up the ORDER BY value of an index scan that delivers the block's order (a kNN
/// distance, an indexed expression), through the joins above it: an item equal to it is
/// not computed again.
pub(crate) fn index_returned_calls(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
    grouped: bool,
    n: &std::rc::Rc<Node>,
    ordered_value: Option<String>,
) -> (f64, f64) {
    let mut keys: Vec<String> = Vec::new();
    collect_ios_expressions(b, n, &mut keys, false, pl.db.handed_up());
    keys.extend(ordered_value);
    if keys.is_empty() {
        return (0.0, 0.0);
    }
    let items: Vec<&T> = if grouped {
        block.group_items.iter().collect()
    } else {
        let mut v: Vec<&T> = block.select.iter().map(|i| &i.expr).collect();
        v.extend(block.order_items.iter().map(|(o, _)| o));
        v
    };
    let mut seen: Vec<String> = Vec::new();
    let (mut calls, mut ops) = (0.0, 0.0);
    for item in items {
        let canon = clauses::canonical(item);
        if keys.contains(&canon) && !seen.contains(&canon) {
            calls += pl.db.calls_of(item);
            ops += clauses::op_count(item) + pl.db.extra_call_ops_of(item);
            seen.push(canon);
        }
    }
    (calls, ops)
}

/// The expression keys (canonical text) of the indexes that index-only scans in `n` read
/// and whose values reach the target list.
///
/// Below the nullable side of an outer join they do not, in stock PostgreSQL (15 as 18,
/// measured with a counting function): the target list's `fnorm(s_phone)` is computed at
/// the join again from s_phone, because the value above the join is NULL where no row
/// matched and a function of NULL need not be NULL (setrefs.c matches the expression only
/// where its nulling is the same). The series' 0007 hands it up through the outer join
/// (`through_outer_joins`).
pub(crate) fn collect_ios_expressions(
    b: &Block,
    n: &std::rc::Rc<Node>,
    out: &mut Vec<String>,
    nullable: bool,
    through_outer_joins: bool,
) {
    match &**n {
        Node::Repeated { node, .. } => {
            collect_ios_expressions(b, node, out, nullable, through_outer_joins)
        }
        Node::Op { plan, kids, .. } => {
            // Which input of an outer join is nullable (the join type as EXPLAIN's
            // detail line says it): Left: the inner (second), Right: the outer (first).
            let join_type = |t: &str| plan.details.iter().any(|d| d == t);
            let nulls = |i: usize| {
                (join_type("Join Type: Left") && i == 1)
                    || (join_type("Join Type: Right") && i == 0)
            };
            if plan.op.as_str().contains("Index Only Scan") && (!nullable || through_outer_joins) {
                let rel = b.rels.iter().find_map(|br| match &br.kind {
                    RelKind::Table { rel, .. } if plan.relation.as_ref() == Some(&br.alias) => {
                        Some(rel)
                    }
                    _ => None,
                });
                if let (Some(rel), Some(ix)) = (rel, plan.index.as_ref()) {
                    if let Some(info) = rel.indexes.iter().find(|i| i.name == *ix) {
                        for &k in &info.keys {
                            if rel.cols[k].expression.is_some() {
                                out.push(clauses::canonical_expression(&rel.cols[k].name));
                            }
                        }
                    }
                }
            }
            for (i, k) in kids.iter().enumerate() {
                collect_ios_expressions(b, k, out, nullable || nulls(i), through_outer_joins);
            }
        }
    }
}
