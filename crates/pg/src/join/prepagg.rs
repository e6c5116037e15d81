//! The aggregates' costs (prepagg.c's get_agg_clause_costs): per input row the
//! transition functions' and their arguments' operator calls, per group the final
//! functions', and whether a sort is needed (ordered-set aggregates, DISTINCT).

use costlab_model::block::QueryBlock;
use costlab_model::catalog::ColumnType;

use super::clauses;
use super::costs::AggCosts;
use super::pathnodes::*;
use costlab_model::expr::Expr as T;

/// Aggregate costs of the block's select list and HAVING (§5.1): per aggregate the
/// transition function and its argument's operators per row, a final function for
/// numeric sum/avg (and any avg), 128 bytes of state for numeric ones; operators outside
/// aggregates are the target list's per-row cost. Returns (costs in operator calls, tlist
/// operators, whether an aggregate is DISTINCT).
pub(crate) fn agg_costs(pl: &Planner, block: &QueryBlock) -> (AggCosts, f64, bool) {
    let col_of_type = |name: &str, ty: &dyn Fn(&ColumnType) -> bool| {
        block.tables.iter().any(|t| {
            pl.db
                .tables
                .iter()
                .filter(|x| x.name.eq_ignore_ascii_case(&t.table))
                .any(|x| {
                    x.columns
                        .iter()
                        .any(|c| c.name.eq_ignore_ascii_case(name) && ty(&c.ty))
                })
        })
    };
    let numeric_col = |name: &str| col_of_type(name, &|t| *t == ColumnType::Numeric);
    let int_col =
        |name: &str| col_of_type(name, &|t| matches!(t, ColumnType::Int4 | ColumnType::Int8));
    if block.select.is_empty() {
        // A sub-select made of a nest's tables: one aggregate over a column with one
        // operator around it.
        return (
            AggCosts {
                trans_per_tuple: 1.0,
                calls_per_tuple: 0.0,
                final_per_group: 1.0,
                num_trans: 1.0,
                transition_space: 128.0,
                serial_per_group: 0.0,
                combine_per_tuple: 1.0,
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
    // Aggregates of HAVING are computed as well (its sub-selects are not).
    let n_select = block.select.len();
    let items = block
        .select
        .iter()
        .map(|i| &i.expr)
        .chain(block.having.as_ref());
    // Identical aggregate calls are computed once (find_compatible_agg).
    let mut seen_aggs: Vec<&T> = Vec::new();
    for (item_no, item) in items.enumerate() {
        let aggs = clauses::aggregate_calls(item);
        let mut inside = 0.0;
        for &(f, call) in &aggs {
            let T::Call {
                args, distinct: d, ..
            } = call
            else {
                continue;
            };
            inside += clauses::op_count(call);
            if seen_aggs.contains(&call) {
                continue;
            }
            seen_aggs.push(call);
            distinct |= *d;
            let arg = args.first().unwrap_or(&T::Star);
            let ops = if matches!(arg, T::Star) {
                0.0
            } else {
                clauses::op_count(arg) + pl.db.extra_call_ops_of(arg)
            };
            let names = clauses::column_names(arg);
            let numeric = (f == "sum" || f == "avg")
                && (names.iter().any(|c| numeric_col(c)) || has_dot(arg));
            let family = if numeric { "numeric_avg_accum" } else { f };
            let key = format!("{family}|{arg:?}");
            let shared = transitions.contains(&key);
            // Integer columns in numeric arithmetic are cast (int4_numeric, procost 1).
            let casts = if numeric {
                names.iter().filter(|c| int_col(c)).count() as f64
            } else {
                0.0
            };
            if !shared {
                transitions.push(key);
                a.num_trans += 1.0;
                a.trans_per_tuple += 1.0 + ops + casts;
                a.calls_per_tuple += pl.db.calls_of(arg);
                // numeric_avg_accum's internal state has serialize / deserialize
                // functions; count's, min's and max's, avg(int)'s states do not. Each state
                // has one combine function (pg_aggregate.dat; all procost 1).
                a.combine_per_tuple += 1.0;
                if numeric {
                    a.serial_per_group += 1.0;
                    a.combine_per_tuple += 1.0;
                }
            }
            if numeric || f == "avg" {
                a.final_per_group += 1.0;
            }
            if numeric && !shared {
                a.transition_space += 128.0;
            }
        }
        if !aggs.is_empty() && item_no < n_select {
            // The operators around the aggregates, each aggregate's value taken as given.
            let outside = (clauses::op_count(item) - inside).max(0.0);
            let calls_inside: f64 = aggs.iter().map(|(_, c)| pl.db.extra_call_ops_of(c)).sum();
            tlist += outside + (pl.db.extra_call_ops_of(item) - calls_inside).max(0.0);
        }
    }
    (a, tlist, distinct)
}

/// Whether an aggregate's argument is written with a decimal point somewhere (a
/// decimal constant or a qualified name): the model's sign of numeric arithmetic.
fn has_dot(e: &T) -> bool {
    let mut dot = false;
    e.walk(&mut |x| match x {
        T::Number(n) | T::String(n) => dot |= n.contains('.'),
        T::Column(c) => dot |= c.qualifier.is_some(),
        _ => {}
    });
    dot
}
