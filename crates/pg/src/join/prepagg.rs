//! The aggregates' costs (prepagg.c's get_agg_clause_costs): per input row the
//! transition functions' and their arguments' operator calls, per group the final
//! functions', and whether a sort is needed (ordered-set aggregates, DISTINCT).

use costlab_model::block::QueryBlock;
use costlab_model::catalog::ColumnType;

use super::costs::AggCosts;
use super::pathnodes::*;
use super::sqlexpr;

/// Aggregate costs of the first select list of `sql` (§5.1): per aggregate the transition
/// function and its argument's operators per row, a final function for numeric sum/avg
/// (and any avg), 128 bytes of state for numeric ones; operators outside aggregates are
/// the target list's per-row cost. Returns (costs in operator calls, tlist operators,
/// whether an aggregate is DISTINCT).
pub(crate) fn agg_costs(pl: &Planner, block: &QueryBlock, sql: &str) -> (AggCosts, f64, bool) {
    // A function of the text and the tables the block reads: computed once per pair.
    let mut key = String::with_capacity(sql.len() + 64);
    for t in &block.tables {
        key.push_str(&t.table);
        key.push(',');
    }
    key.push('\0');
    key.push_str(sql);
    *pl.db
        .memo
        .agg_costs
        .get(&key, |_| agg_costs_of(pl, block, sql))
}

pub(crate) fn agg_costs_of(pl: &Planner, block: &QueryBlock, sql: &str) -> (AggCosts, f64, bool) {
    let numeric_col = |name: &str| {
        block.tables.iter().any(|t| {
            pl.db
                .tables
                .iter()
                .filter(|x| x.name.eq_ignore_ascii_case(&t.table))
                .any(|x| {
                    x.columns
                        .iter()
                        .any(|c| c.name.eq_ignore_ascii_case(name) && c.ty == ColumnType::Numeric)
                })
        })
    };
    if sql.is_empty() {
        // A sub-select: one aggregate over a column with one operator around it.
        return (
            AggCosts {
                trans_per_tuple: 1.0,
                calls_per_tuple: 0.0,
                final_per_group: 1.0,
                num_trans: 1.0,
                transition_space: 128.0,
            },
            1.0,
            false,
        );
    }
    let mut a = AggCosts::default();
    let mut tlist = 0.0;
    let mut distinct = false;
    // Aggregates with the same transition function and argument share one transition
    // state (find_compatible_trans): numeric sum and avg both accumulate with
    // numeric_avg_accum.
    let mut transitions: Vec<String> = Vec::new();
    let int_col = |name: &str| {
        block.tables.iter().any(|t| {
            pl.db
                .tables
                .iter()
                .filter(|x| x.name.eq_ignore_ascii_case(&t.table))
                .any(|x| {
                    x.columns.iter().any(|c| {
                        c.name.eq_ignore_ascii_case(name)
                            && matches!(c.ty, ColumnType::Int4 | ColumnType::Int8)
                    })
                })
        })
    };
    let mut items = sqlexpr::select_items(sql);
    // Aggregates of a HAVING clause are computed as well (its sub-selects are not).
    let n_select = items.len();
    if let Some(h) = sql.to_ascii_uppercase().find("HAVING") {
        let mut t = sql[h + 6..].to_string();
        if let Some(p) = t.to_ascii_uppercase().find("(SELECT") {
            t.truncate(p);
        }
        items.push(t);
    }
    let aliases = sqlexpr::derived_aliases(sql);
    let mut alias_ops = 0.0;
    // Identical aggregate calls are computed once (find_compatible_agg).
    let mut seen_aggs: Vec<String> = Vec::new();
    for (item_no, item) in items.into_iter().enumerate() {
        let aggs = sqlexpr::aggregates(&item);
        let mut rest = item.clone();
        for (f, arg) in &aggs {
            let sig = format!(
                "{f}({})",
                arg.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase()
            );
            if seen_aggs.contains(&sig) {
                continue;
            }
            seen_aggs.push(sig);
            let up = arg.trim_start().to_ascii_uppercase();
            let arg2 = if up.starts_with("DISTINCT") {
                distinct = true;
                arg.trim_start()[8..].to_string()
            } else {
                arg.clone()
            };
            // A derived table's alias stands for its expression.
            let mut arg2 = arg2;
            for (alias, expr) in &aliases {
                if sqlexpr::identifiers(&arg2).iter().any(|i| i == alias) {
                    arg2 = format!("{arg2} + ({expr})");
                    alias_ops -= 1.0;
                }
            }
            let ops = if arg2.trim() == "*" {
                0.0
            } else {
                sqlexpr::count_ops(&arg2) + pl.db.extra_call_ops(&arg2) + alias_ops
            };
            alias_ops = 0.0;
            let numeric = (f == "sum" || f == "avg")
                && (sqlexpr::identifiers(&arg2).iter().any(|c| numeric_col(c))
                    || arg2.contains('.'));
            let family = if numeric {
                "numeric_avg_accum"
            } else {
                f.as_str()
            };
            let key = format!(
                "{family}|{}",
                arg2.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_lowercase()
            );
            let shared = transitions.contains(&key);
            // Integer columns in numeric arithmetic are cast (int4_numeric, procost 1).
            let casts = if numeric {
                sqlexpr::identifiers(&arg2)
                    .iter()
                    .filter(|c| int_col(c))
                    .count() as f64
            } else {
                0.0
            };
            if !shared {
                transitions.push(key);
                a.num_trans += 1.0;
                a.trans_per_tuple += 1.0 + ops + casts;
                a.calls_per_tuple += pl.db.calls(&arg2);
            }
            if numeric || f == "avg" {
                a.final_per_group += 1.0;
            }
            if numeric && !shared {
                a.transition_space += 128.0;
            }
            if let Some(p) = rest.find(arg.as_str()) {
                rest.replace_range(p..p + arg.len(), "x");
            }
        }
        if !aggs.is_empty() && item_no < n_select {
            let rest = rest.split(" AS ").next().unwrap_or("").to_string();
            // Each aggregate call left as `f(x)` reads as one function call.
            tlist += (sqlexpr::count_ops(&rest) - aggs.len() as f64).max(0.0)
                + pl.db.extra_call_ops(&rest);
        }
    }
    (a, tlist, distinct)
}
