//! Upper planning of a block (§5, §7): grouping (GroupAggregate / HashAggregate /
//! Aggregate), ORDER BY sorts, LIMIT, InitPlan charges, and estimate_num_groups.

use crate::pathnodes::clamp_row_est;
use costlab_model::block::QueryBlock;
use costlab_model::catalog::ColumnType;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::EngineVersion;
use costlab_model::plan::Work;

use super::costs::{self, AggCosts, AggStrategy, In};
use super::deparse;
use super::memo::TargetOps;
use super::model::{
    add_path, cheaper_total, cheapest_total, JPath, Node, PathKeys, Rescan, TrueRows,
};
use super::pathnodes::*;
use super::sqlexpr;

/// estimate_num_groups (§5.4).
pub(crate) fn estimate_num_groups(b: &Block, cols: &[ColKey], input_rows: f64) -> f64 {
    let input_rows = clamp_row_est(input_rows);
    if cols.is_empty() {
        return 1.0;
    }
    // Items deduplicated through equivalence classes (the smaller ndistinct stays).
    // (Inline: Memoize asks this for every parameterized inner of every outer path.)
    let mut items: smallvec::SmallVec<[(ColKey, f64, Option<usize>); 4]> =
        smallvec::SmallVec::new();
    for c in cols {
        let nd = b.stats(c).nd;
        let ec = b.ec_of.get(c).copied();
        if let Some(pos) = items
            .iter()
            .position(|(k, _, e)| k == c || (ec.is_some() && *e == ec))
        {
            if nd < items[pos].1 {
                items[pos] = (c.clone(), nd, ec);
            }
        } else {
            items.push((c.clone(), nd, ec));
        }
    }
    let mut rels: smallvec::SmallVec<[usize; 4]> = items.iter().map(|(k, _, _)| k.rel).collect();
    rels.sort_unstable();
    rels.dedup();
    let mut numdistinct = 1.0;
    for r in rels {
        let mine: smallvec::SmallVec<[f64; 4]> = items
            .iter()
            .filter(|(k, _, _)| k.rel == r)
            .map(|x| x.1)
            .collect();
        let v = b.stats(
            &items
                .iter()
                .find(|(k, _, _)| k.rel == r)
                .map(|x| x.0.clone())
                .unwrap_or(ColKey {
                    rel: r,
                    col: costlab_model::plan::Name::from_static(""),
                }),
        );
        let (tuples, rows) = (v.tuples, v.rows);
        let mut reldistinct: f64 = mine.iter().product();
        let relmaxnd = mine.iter().cloned().fold(0.0, f64::max);
        if tuples > 0.0 {
            reldistinct = reldistinct.min(tuples);
            if mine.len() > 1 {
                reldistinct = reldistinct.min((0.1 * tuples).max(relmaxnd)).min(tuples);
            }
            if rows < tuples && reldistinct > 0.0 {
                reldistinct *= 1.0 - ((tuples - rows) / tuples).powf(tuples / reldistinct);
            }
        }
        numdistinct *= clamp_row_est(reldistinct);
    }
    numdistinct.ceil().clamp(1.0, input_rows)
}

/// Aggregate costs of the first select list of `sql` (§5.1): per aggregate the transition
/// function and its argument's operators per row, a final function for numeric sum/avg
/// (and any avg), 128 bytes of state for numeric ones; operators outside aggregates are
/// the target list's per-row cost. Returns (costs in operator calls, tlist operators,
/// whether an aggregate is DISTINCT).
fn agg_costs(pl: &Planner, block: &QueryBlock, sql: &str) -> (AggCosts, f64, bool) {
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

fn agg_costs_of(pl: &Planner, block: &QueryBlock, sql: &str) -> (AggCosts, f64, bool) {
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
fn target_ops(pl: &Planner, sql: &str, grouped: bool) -> TargetOps {
    if sql.is_empty() {
        return TargetOps::default();
    }
    let aliases = sqlexpr::derived_aliases(sql);
    let items: Vec<String> = sqlexpr::select_items(sql)
        .into_iter()
        .map(|i| {
            let up = i.to_ascii_uppercase();
            match up.rfind(" AS ") {
                Some(a) => i[..a].trim().to_string(),
                None => i.trim().to_string(),
            }
        })
        .collect();
    let cost = |e: &str| -> f64 {
        if e.is_empty() || e == "*" || e.ends_with(".*") {
            return 0.0;
        }
        let ids = sqlexpr::identifiers(e);
        if aliases.iter().any(|(a, _)| ids.iter().any(|i| i == a)) {
            return 0.0;
        }
        sqlexpr::count_ops(e) + pl.db.extra_call_ops(e)
    };
    let calls = |e: &str| -> f64 {
        if cost(e) == 0.0 {
            0.0
        } else {
            pl.db.calls(e)
        }
    };
    // An ORDER BY or GROUP BY item: an ordinal or an output name of the select list
    // stands for its item; a derived table's column is the derived table's (nothing here).
    let resolve = |e: &str| -> String {
        let e = e.trim();
        if let Ok(n) = e.parse::<usize>() {
            if let Some(item) = items.get(n.wrapping_sub(1)) {
                return item.clone();
            }
        }
        let ids = sqlexpr::identifiers(e);
        if aliases.iter().any(|(a, _)| ids.iter().any(|i| i == a)) {
            return String::new();
        }
        for item in sqlexpr::select_items(sql) {
            let up = item.to_ascii_uppercase();
            if let Some(a) = up.rfind(" AS ") {
                if item[a + 4..].trim().eq_ignore_ascii_case(e) {
                    return item[..a].trim().to_string();
                }
            }
        }
        e.to_string()
    };
    let same = |a: &str, b: &str| {
        let squash = |s: &str| {
            s.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase()
        };
        squash(a) == squash(b)
    };
    if grouped {
        let group: Vec<String> = sqlexpr::outer_items(sql, "GROUP BY")
            .unwrap_or_default()
            .into_iter()
            .map(|(g, _)| resolve(&g))
            .collect();
        let out: Vec<&String> = items
            .iter()
            .filter(|i| sqlexpr::aggregates(i).is_empty())
            .collect();
        TargetOps {
            scanjoin_ops: group.iter().map(|g| cost(g)).sum(),
            scanjoin_calls: group.iter().map(|g| calls(g)).sum(),
            agg_out_ops: out.iter().map(|i| cost(i)).sum(),
            // The executor takes a grouped expression's value from its input.
            agg_out_calls: out
                .iter()
                .filter(|i| !group.iter().any(|g| same(g, i)))
                .map(|i| calls(i))
                .sum(),
        }
    } else {
        // An aggregate in the first select list of an ungrouped block's text: the text's
        // first SELECT is another block's (a view written before the query), not ours.
        if items.iter().any(|i| !sqlexpr::aggregates(i).is_empty()) {
            return TargetOps::default();
        }
        let mut t = TargetOps {
            scanjoin_ops: items.iter().map(|i| cost(i)).sum(),
            scanjoin_calls: items.iter().map(|i| calls(i)).sum(),
            ..TargetOps::default()
        };
        for (o, _) in sqlexpr::outer_items(sql, "ORDER BY").unwrap_or_default() {
            let o = resolve(&o);
            if !items.iter().any(|i| same(i, &o)) {
                t.scanjoin_ops += cost(&o);
                t.scanjoin_calls += calls(&o);
            }
        }
        t
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
fn index_returned_calls(
    pl: &Planner,
    b: &Block,
    sql: &str,
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
    let strip_alias = |i: &str| -> String {
        let up = i.to_ascii_uppercase();
        match up.rfind(" AS ") {
            Some(a) => i[..a].trim().to_string(),
            None => i.trim().to_string(),
        }
    };
    let items: Vec<String> = if grouped {
        sqlexpr::outer_items(sql, "GROUP BY")
            .unwrap_or_default()
            .into_iter()
            .map(|(g, _)| g)
            .collect()
    } else {
        let mut v: Vec<String> = sqlexpr::select_items(sql)
            .iter()
            .map(|i| strip_alias(i))
            .collect();
        v.extend(
            sqlexpr::outer_items(sql, "ORDER BY")
                .unwrap_or_default()
                .into_iter()
                .map(|(o, _)| o),
        );
        v
    };
    let mut seen: Vec<String> = Vec::new();
    let (mut calls, mut ops) = (0.0, 0.0);
    for item in items {
        let canon = sqlexpr::canonical_expression(&item);
        if keys.contains(&canon) && !seen.contains(&canon) {
            calls += pl.db.calls(&item);
            ops += sqlexpr::count_ops(&item) + pl.db.extra_call_ops(&item);
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
fn collect_ios_expressions(
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
                                out.push(sqlexpr::canonical_expression(&rel.cols[k].name));
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

fn sort_path(pl: &Planner, p: &JPath, keys: Vec<usize>, limit: f64, key_text: String) -> JPath {
    let (cost, dis) = pl.sort_cost(p.input(), limit);
    let (s, t) = (cost.0, cost.1);
    let node = Planner::sort_node(p, cost, dis, text(|| format!("Sort Key: {key_text}")));
    JPath {
        startup: s,
        total: t,
        rows: p.rows,
        width: p.width,
        pathkeys: keys.into(),
        param: 0,
        rescan: Rescan::Fixed(0.0, pl.jc.cop() * p.rows),
        node,
        param_ecs: smallvec::SmallVec::new(),
        can_mark: true,
        disabled: p.disabled + dis,
        pending: 0,
    }
}

/// add_path's cost comparison among paths that all deliver the ORDER BY
/// (compare_path_costs_fuzzily): a path fuzzily worse on total cost goes unless it is
/// fuzzily better on startup and startup counts (`consider_startup`: a LIMIT above); of two
/// fuzzily equal totals the later start goes; paths equal within the fuzz are compared
/// again almost exactly (add_path's 1.0000000001), and a full tie keeps the older path.
fn prune_ordered(paths: Vec<JPath>, consider_startup: bool) -> Vec<JPath> {
    use super::model::FUZZ;
    use std::cmp::Ordering::{self, Equal, Greater, Less};
    // Less: `a` is better; Greater: `b` is; None: neither dominates.
    let cmp = |a: &JPath, b: &JPath, fuzz: f64| -> Option<Ordering> {
        if a.disabled != b.disabled {
            return Some(a.disabled.cmp(&b.disabled));
        }
        if a.total > b.total * fuzz {
            return (!(consider_startup && b.startup > a.startup * fuzz)).then_some(Greater);
        }
        if b.total > a.total * fuzz {
            return (!(consider_startup && a.startup > b.startup * fuzz)).then_some(Less);
        }
        Some(if a.startup > b.startup * fuzz {
            Greater
        } else if b.startup > a.startup * fuzz {
            Less
        } else {
            Equal
        })
    };
    let mut kept: Vec<JPath> = Vec::with_capacity(paths.len());
    for p in paths {
        let mut accept = true;
        kept.retain(|k| {
            if !accept {
                return true;
            }
            let c = match cmp(&p, k, FUZZ) {
                Some(Equal) => cmp(&p, k, 1.000_000_000_1),
                c => c,
            };
            match c {
                Some(Less) => false,
                Some(Greater) | Some(Equal) => {
                    accept = false;
                    true
                }
                None => true,
            }
        });
        if accept {
            kept.push(p);
        }
    }
    kept
}

/// How many leading keys of `want` a path sorted on `have` is already sorted by
/// (pathkeys_count_contained_in's presorted_keys).
fn presorted_keys<K: PartialEq>(have: &[K], want: &[K]) -> usize {
    have.iter().zip(want).take_while(|(a, b)| a == b).count()
}

/// cost_incremental_sort: `p` sorted on its first `presorted` keys of `keys`, sorted on
/// all of them group by group (groups of equal presorted keys, estimate_num_groups over
/// each key's first equivalence member).
fn incremental_sort_path(
    pl: &Planner,
    b: &Block,
    p: &JPath,
    keys: &[usize],
    presorted: usize,
    limit: f64,
    key_text: &str,
) -> JPath {
    let c = &pl.jc.c;
    let ctup = pl.jc.ctup();
    let cols: Vec<ColKey> = keys
        .iter()
        .take(presorted)
        .enumerate()
        .filter_map(|(i, &k)| match b.ecs.get(k).and_then(|ec| ec.first()) {
            Some(first) => Some(first.clone()),
            None => b.order.get(i).cloned(),
        })
        .collect();
    let input_tuples = p.rows.max(2.0);
    let groups = estimate_num_groups(b, &cols, input_tuples);
    let group_tuples = input_tuples / groups;
    let group_input_run = (p.total - p.startup) / groups;
    let s = crate::costsize::cost_tuplesort(c, group_tuples, p.width, limit);
    let startup = s.startup + p.startup + group_input_run;
    let run = s.run
        + (s.run + s.startup) * (groups - 1.0)
        + group_input_run * (groups - 1.0)
        + ctup * input_tuples
        + 2.0 * ctup * groups;
    let details = text(|| {
        let presorted_text = key_text
            .split(", ")
            .take(presorted)
            .collect::<Vec<_>>()
            .join(", ");
        vec![
            format!("Sort Key: {key_text}"),
            format!("Presorted Key: {presorted_text}"),
        ]
    });
    let node = Node::new(
        "Incremental Sort",
        startup,
        startup + run,
        p.rows,
        p.width,
        Work {
            comparisons: s.comparisons * groups,
            spill_bytes: s.spill_bytes * groups,
            rows_out: p.rows,
            ..Work::default()
        },
        details.unwrap_or_default(),
        [p.node.clone()],
    );
    JPath {
        startup,
        total: startup + run,
        rows: p.rows,
        width: p.width,
        pathkeys: PathKeys::from_slice(keys),
        param: 0,
        rescan: Rescan::Fixed(0.0, pl.jc.cop() * p.rows),
        node,
        param_ecs: smallvec::SmallVec::new(),
        can_mark: true,
        disabled: p.disabled,
        pending: 0,
    }
}

/// The GROUP BY keys PostgreSQL groups by: without the columns of a table whose primary key
/// is grouped on too (remove_useless_groupby_columns, run before the join search, so the
/// join search's useful orders are these keys too: Q18 groups by c_custkey, o_orderkey,
/// and a join ordered by c_custkey is kept for an Incremental Sort), and one key per
/// equivalence class.
pub(crate) fn grouping_keys(pl: &Planner, b: &Block) -> Vec<ColKey> {
    let mut group = b.group.clone();
    for (r, br) in b.rels.iter().enumerate() {
        if let RelKind::Table { tidx, .. } = &br.kind {
            if let Some(pkix) = pl.db.tables[*tidx].indexes.iter().find(|i| i.primary) {
                let all = pkix.columns.iter().all(|c| {
                    group
                        .iter()
                        .any(|g| g.rel == r && g.col.eq_ignore_ascii_case(c))
                });
                if all {
                    group.retain(|g| {
                        g.rel != r || pkix.columns.iter().any(|c| g.col.eq_ignore_ascii_case(c))
                    });
                }
            }
        }
    }
    let mut seen = Vec::new();
    group.retain(|g| {
        let k = pk_of(b, g);
        if seen.contains(&k) {
            false
        } else {
            seen.push(k);
            true
        }
    });
    group
}

/// grouping_planner's tail for one block: returns the block's final path. `group`: the
/// GROUP BY keys from [`grouping_keys`].
pub(crate) fn finish(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
    sql: &str,
    top: JoinRel,
    group: Vec<ColKey>,
) -> Result<JPath> {
    let jc = &pl.jc;
    let cop = jc.cop();
    let ctup = jc.ctup();
    let true_in = top.true_rows;
    let mut paths: Vec<JPath> = top.paths.into_iter().filter(|p| p.param == 0).collect();
    if paths.is_empty() {
        return Err(Error::Unsupported("no path for the join".into()));
    }
    let (ac, tlist_ops, distinct) = agg_costs(pl, block, sql);
    let grouped_block = !group.is_empty() || block.scalar_aggregate;
    // A function of the text and whether the block groups: computed once per pair.
    let key = format!("{}\0{sql}", u8::from(grouped_block));
    let targets = *pl
        .db
        .memo
        .target_ops
        .get(&key, |_| target_ops(pl, sql, grouped_block));
    let tlist_ops = tlist_ops + targets.agg_out_ops;
    let order_pks: Vec<usize> = b.order.iter().map(|g| pk_of(b, g)).collect();
    if targets.scanjoin_ops > 0.0 {
        let per_row = targets.scanjoin_ops * cop;
        for p in &mut paths {
            p.total += per_row * p.rows;
            let handed_up = pl.db.handed_up()
                && b.order_by_index_expression
                && !order_pks.is_empty()
                && p.pathkeys.starts_with(&order_pks);
            let ordered_value = if handed_up {
                pl.db
                    .memo
                    .order_items(sql)
                    .first()
                    .map(|i| sqlexpr::canonical_expression(i))
            } else {
                None
            };
            // What is returned is neither called nor evaluated (the work); the planner
            // still charges it (the cost).
            let (returned_calls, returned_ops) = if targets.scanjoin_calls > 0.0 {
                index_returned_calls(pl, b, sql, grouped_block, &p.node, ordered_value)
            } else {
                (0.0, 0.0)
            };
            p.node = Node::projected(
                &p.node,
                per_row,
                (targets.scanjoin_ops - returned_ops).max(0.0),
                (targets.scanjoin_calls - returned_calls).max(0.0),
            );
        }
    }
    let aggc = AggCosts {
        trans_per_tuple: ac.trans_per_tuple * cop,
        calls_per_tuple: ac.calls_per_tuple,
        final_per_group: ac.final_per_group * cop,
        num_trans: ac.num_trans,
        transition_space: ac.transition_space,
    };
    let tlist = tlist_ops * cop;
    let limit = block.limit;
    let limit_tuples = limit.unwrap_or(-1.0);

    let full_group = b.group.clone();
    let gkeys: Vec<usize> = group.iter().map(|g| pk_of(b, g)).collect();
    let okeys: Vec<usize> = b.order.iter().map(|g| pk_of(b, g)).collect();
    let texts = KeyTexts::new(pl, b, block, sql, &full_group);
    // The keys' EXPLAIN texts (empty where the build keeps no text: reading them from
    // the SQL took a tenth of the page's planning time).
    let (gtext, gsort_text, otext) = text(|| {
        let gtext = group
            .iter()
            .map(|g| texts.group_key(g, false))
            .collect::<Vec<_>>()
            .join(", ");
        // The sort under a sorted aggregation follows the ORDER BY's directions.
        let gsort_text = group
            .iter()
            .map(|g| texts.group_key(g, true))
            .collect::<Vec<_>>()
            .join(", ");
        let otext = texts.order_by().unwrap_or_else(|| {
            b.order
                .iter()
                .map(|g| texts.column(g))
                .collect::<Vec<_>>()
                .join(", ")
        });
        (gtext, gsort_text, otext)
    })
    .unwrap_or_default();

    let in_rows = paths[0].rows;
    let mut finals: Vec<JPath> = Vec::new();
    let grouped = !group.is_empty() || block.scalar_aggregate;
    if grouped {
        let (groups, strategy_list): (f64, Vec<AggStrategy>) = if group.is_empty() {
            (1.0, vec![AggStrategy::Plain])
        } else {
            let g = estimate_num_groups(b, &group, in_rows);
            let mut v = vec![AggStrategy::Sorted];
            if !distinct {
                v.push(AggStrategy::Hashed);
            }
            (g, v)
        };
        // HAVING on an aggregate: no statistics, so 1/3 for a comparison and the
        // default ndistinct (200, or the rows when fewer) for an equality.
        let having_sel = match b.having_op {
            Some(sqlexpr::Op::Eq) => 1.0 / groups.clamp(1.0, 200.0),
            Some(sqlexpr::Op::Ne) => 1.0 - 1.0 / groups.clamp(1.0, 200.0),
            Some(_) => 1.0 / 3.0,
            None if b.having => 1.0 / 3.0,
            None => 1.0,
        };
        let has_having = b.having || b.having_op.is_some();
        let out_rows = if has_having {
            clamp_row_est(groups * having_sel)
        } else {
            groups
        };
        // What the aggregation really returns: the workload's true groups (after the
        // block's HAVING; a condition pushed into it from outside has its own true
        // share), at most one per input row; a scalar aggregate one row.
        let true_groups = if group.is_empty() {
            1.0
        } else if block.true_groups > 0.0 {
            (block.true_groups * b.having_true_sel.unwrap_or(1.0)).min(true_in)
        } else {
            f64::NAN
        };
        let derived_grouped = !sql.is_empty() && pl.db.memo.derived_grouped(sql);
        // Q13's first level groups per customer: as many as estimated, at most the
        // true input rows; its second level returns the block's true groups.
        let level1_truth = if derived_grouped {
            groups.min(true_in)
        } else {
            true_groups
        };
        let gwidth = {
            let w: f64 = group.iter().map(|g| b.width_of(g)).sum();
            w + 32.0 * ac.num_trans.max(1.0)
        };
        let cheapest_ref =
            cheapest_total(&paths).ok_or_else(|| Error::Unsupported("no path".into()))?;
        let cheapest = cheapest_ref.clone();
        let mut grouped_paths: Vec<JPath> = Vec::new();
        for st in strategy_list {
            let inputs: Vec<JPath> = match st {
                // add_paths_to_grouping_rel: every path sorted on the group keys; the
                // cheapest sorted in full; a path sorted on a prefix of them through an
                // Incremental Sort (PostgreSQL 13 on). From 17 on make_ordered_path
                // gives a presorted path, the cheapest too, only the Incremental Sort.
                AggStrategy::Sorted => {
                    let mut v = Vec::new();
                    for p in &paths {
                        let presorted = presorted_keys(&p.pathkeys, &gkeys);
                        if presorted == gkeys.len() {
                            v.push(p.clone());
                            continue;
                        }
                        let is_cheapest = std::ptr::eq(p, cheapest_ref);
                        let incremental = presorted > 0;
                        if is_cheapest && (pl.version < EngineVersion::Pg17 || !incremental) {
                            v.push(sort_path(pl, p, gkeys.clone(), -1.0, gsort_text.clone()));
                        }
                        if incremental {
                            v.push(incremental_sort_path(
                                pl,
                                b,
                                p,
                                &gkeys,
                                presorted,
                                -1.0,
                                &gsort_text,
                            ));
                        }
                    }
                    v
                }
                _ => vec![cheapest.clone()],
            };
            for inp in inputs {
                let (mut s, mut t, spill) =
                    costs::agg(jc, st, &aggc, group.len() as f64, groups, inp.input());
                // cost_agg: enable_hashagg off disables a hashed aggregation.
                let (adc, adis) = pl.disable(st != AggStrategy::Hashed || pl.opts.enable_hashagg);
                s += adc;
                t += adc;
                if has_having {
                    t += cop * groups;
                }
                t += tlist * out_rows;
                if st == AggStrategy::Plain {
                    // A plain Aggregate's output row is ready at its startup.
                    s = s.min(t);
                }
                let op = match st {
                    AggStrategy::Plain => "Aggregate",
                    AggStrategy::Sorted => "GroupAggregate",
                    AggStrategy::Hashed => "HashAggregate",
                };
                let mut details = Vec::new();
                if !group.is_empty() {
                    details.extend(text(|| format!("Group Key: {gtext}")));
                }
                if has_having {
                    details.extend(text(|| format!("Filter: {}", texts.having())));
                }
                details.extend(Planner::disabled_line(adis));
                let node = Node::new(
                    op,
                    s,
                    t,
                    out_rows,
                    gwidth,
                    Work {
                        rows_examined: inp.rows,
                        operator_evals: inp.rows * (ac.trans_per_tuple + group.len() as f64),
                        comparisons: if st == AggStrategy::Hashed {
                            inp.rows
                        } else {
                            0.0
                        },
                        spill_bytes: spill * 8192.0,
                        rows_out: out_rows,
                        function_calls: inp.rows * ac.calls_per_tuple
                            + out_rows * targets.agg_out_calls,
                        ..Work::default()
                    },
                    details,
                    [inp.node.clone()],
                );
                let node = Node::with_true_rows(node, TrueRows::out(level1_truth));
                add_path(
                    &mut grouped_paths,
                    JPath {
                        startup: s,
                        total: t,
                        rows: out_rows,
                        width: gwidth,
                        pathkeys: if st == AggStrategy::Sorted {
                            PathKeys::from_slice(&gkeys)
                        } else {
                            PathKeys::new()
                        },
                        param: 0,
                        rescan: Rescan::Same,
                        node,
                        param_ecs: smallvec::SmallVec::new(),
                        can_mark: false,
                        disabled: inp.disabled + adis,
                        pending: 0,
                    },
                    b.consider_startup,
                );
            }
        }
        paths = grouped_paths;
        // A grouped sub-select in FROM aggregated again by the outer query (Q13's
        // histogram): the Subquery Scan's cpu_tuple_cost per row, then a second
        // aggregation on an aggregate's value, which has no statistics (200 groups).
        if derived_grouped {
            let a2 = AggCosts {
                trans_per_tuple: cop,
                calls_per_tuple: 0.0,
                final_per_group: 0.0,
                num_trans: 1.0,
                transition_space: 0.0,
            };
            let mut lvl2 = Vec::new();
            for p in &paths {
                let input = In {
                    startup: p.startup,
                    total: p.total + ctup * p.rows,
                    rows: p.rows,
                    width: p.width,
                };
                let g2 = 200f64.min(p.rows).max(1.0);
                let (sorted, sort_dis) = {
                    let ((s, t, _, _), dis) = pl.sort_cost(input, -1.0);
                    (
                        In {
                            startup: s,
                            total: t,
                            ..input
                        },
                        dis,
                    )
                };
                let (hdc, hash_dis) = pl.disable(pl.opts.enable_hashagg);
                for (st, inp, op, dc, dis) in [
                    (AggStrategy::Hashed, input, "HashAggregate", hdc, hash_dis),
                    (AggStrategy::Sorted, sorted, "GroupAggregate", 0.0, sort_dis),
                ] {
                    let (s2, t2, spill) = costs::agg(jc, st, &a2, 1.0, g2, inp);
                    let (s2, t2) = (s2 + dc, t2 + dc);
                    let node = Node::new(
                        op,
                        s2,
                        t2,
                        g2,
                        16.0,
                        Work {
                            rows_examined: p.rows,
                            operator_evals: 2.0 * p.rows,
                            spill_bytes: spill * 8192.0,
                            rows_out: g2,
                            ..Work::default()
                        },
                        // The GroupAggregate's Sort has no node of its own here: only a
                        // HashAggregate shows as disabled.
                        text(|| format!("Group Key: {}", texts.outer_group_key()))
                            .into_iter()
                            .chain(Planner::disabled_line(if st == AggStrategy::Hashed {
                                dis
                            } else {
                                0
                            }))
                            .collect(),
                        [p.node.clone()],
                    );
                    let node = Node::with_true_rows(node, TrueRows::out(true_groups));
                    add_path(
                        &mut lvl2,
                        JPath {
                            startup: s2,
                            total: t2,
                            rows: g2,
                            width: 16.0,
                            pathkeys: PathKeys::new(),
                            param: 0,
                            rescan: Rescan::Same,
                            node,
                            param_ecs: smallvec::SmallVec::new(),
                            can_mark: false,
                            disabled: p.disabled + dis,
                            pending: 0,
                        },
                        b.consider_startup,
                    );
                }
            }
            paths = lvl2;
        }
    }
    // ORDER BY: presorted paths as they are, the cheapest sorted (§7).
    let needs_expr_sort = block.order_by_expression && !b.order_by_index_expression;
    // Grouping keys dropped as functionally dependent no longer sort the output.
    let removed: Vec<&ColKey> = full_group.iter().filter(|g| !group.contains(g)).collect();
    let order_items = pl.db.memo.order_items(sql);
    let order_in_group = !sql.is_empty()
        && !group.is_empty()
        && pl.db.memo.order_within_group(sql)
        && !removed.iter().any(|r| {
            order_items
                .iter()
                .any(|o| o.rsplit('.').next() == Some(r.col.as_str()))
        });
    if needs_expr_sort && order_in_group {
        // Sorted aggregation delivers the order; the others get a Sort.
        let sort_limit = if limit.is_some() {
            limit_tuples.max(1.0)
        } else {
            -1.0
        };
        for p in &paths {
            if p.pathkeys.is_empty() {
                let key_text = text(|| texts.order_by().unwrap_or_else(|| gsort_text.clone()))
                    .unwrap_or_default();
                finals.push(sort_path(pl, p, gkeys.clone(), sort_limit, key_text));
            } else {
                finals.push(p.clone());
            }
        }
    } else if needs_expr_sort || !okeys.is_empty() {
        let cheapest = cheapest_total(&paths)
            .cloned()
            .ok_or_else(|| Error::Unsupported("no path".into()))?;
        let sort_limit = if limit.is_some() {
            limit_tuples.max(1.0)
        } else {
            -1.0
        };
        let key_text = if otext.is_empty() {
            gsort_text.clone()
        } else {
            otext.clone()
        };
        if !needs_expr_sort {
            for p in &paths {
                if p.pathkeys.starts_with(&okeys) {
                    finals.push(p.clone());
                    continue;
                }
                // create_ordered_paths: a path sorted on a prefix of the keys gets an
                // Incremental Sort (PostgreSQL 13 on).
                let presorted = presorted_keys(&p.pathkeys, &okeys);
                if presorted > 0 {
                    finals.push(incremental_sort_path(
                        pl, b, p, &okeys, presorted, sort_limit, &key_text,
                    ));
                }
            }
        }
        // The cheapest path sorted in full. From PostgreSQL 17 on (make_ordered_path) a
        // path sorted on a prefix of the keys gets only the Incremental Sort, the cheapest
        // one too, even where a full Sort would cost less.
        let cheapest_presorted = presorted_keys(&cheapest.pathkeys, &okeys);
        if needs_expr_sort || pl.version < EngineVersion::Pg17 || cheapest_presorted == 0 {
            finals.push(sort_path(
                pl,
                &cheapest,
                okeys.clone(),
                sort_limit,
                key_text,
            ));
        }
        // add_path into the ordered relation: a path as cheap within the fuzz factor
        // and cheaper to start (an Incremental Sort against a Sort) displaces the other.
        finals = prune_ordered(finals, limit.is_some());
    } else {
        finals = paths;
    }
    // LIMIT.
    if let Some(l) = limit {
        finals = finals
            .into_iter()
            .map(|p| {
                let count = l.max(1.0).min(p.rows);
                let total = if p.rows > 0.0 {
                    p.startup + (p.total - p.startup) * count / p.rows
                } else {
                    p.total
                };
                let node = Node::new(
                    "Limit",
                    p.startup,
                    total,
                    count.max(1.0),
                    p.width,
                    Work {
                        rows_out: count,
                        ..Work::default()
                    },
                    Vec::new(),
                    [Node::limited(&p.node, count / p.rows.max(1.0))],
                );
                JPath {
                    startup: p.startup,
                    total,
                    rows: count.max(1.0),
                    node,
                    ..p
                }
            })
            .collect();
    }
    let best = finals
        .into_iter()
        .min_by(cheaper_total)
        .ok_or_else(|| Error::Unsupported("no final path".into()))?;
    // InitPlans are charged to the top node's startup and total (§6.2).
    let mut best = best;
    if b.initplan_cost > 0.0 || !b.initplans.is_empty() {
        let ip = b.initplan_cost;
        let (mut plan, mut kids) = best.node.root_parts();
        plan.cost.startup += ip;
        plan.cost.total += ip;
        for (k, (sub, kind, _, calls)) in b.initplans.iter().enumerate() {
            // A SubPlan runs once per call: its work repeats (costs stay per call).
            let scaled = if *kind == "SubPlan" {
                Node::repeated(sub, *calls)
            } else {
                sub.clone()
            };
            let (mut sp, skids) = scaled.root_parts();
            sp.details.insert(0, format!("Parent Relationship: {kind}"));
            // EXPLAIN (FORMAT JSON)'s "Subplan Name": what the conditions' `$0` and
            // `(SubPlan 1)` refer to.
            if let Some(name) = b.initplan_names.get(k) {
                sp.details.insert(1, format!("Subplan Name: {name}"));
            }
            if *kind == "SubPlan" {
                sp.details.push(format!("Estimated calls: {calls:.0}"));
            }
            kids.push(Node::op(sp, skids));
        }
        best.startup += ip;
        best.total += ip;
        let truth = best.node.true_rows().unwrap_or(f64::NAN);
        best.node = Node::with_true_rows(Node::op(plan, kids), TrueRows::out(truth));
    }
    let _ = (ctup, In::default());
    Ok(best)
}

/// EXPLAIN's texts of a block's grouping keys, sort keys and HAVING condition, read from
/// the block's SQL: an output name stands for its expression (through the select list's
/// and derived tables' aliases), printed as the server prints it (see [`deparse`]).
struct KeyTexts<'k, 'a> {
    pl: &'k Planner<'a>,
    b: &'k Block<'a>,
    sql: &'k str,
    /// Columns qualified: the plan reads more than one relation (EXPLAIN's useprefix).
    prefix: bool,
    /// The GROUP BY items of the block's own SQL, one per grouping column, and its
    /// ORDER BY items: read from the text when a key's text is first asked for (only
    /// EXPLAIN's lines ask, and the text search cost 3 % of planning; see `items`).
    group_items: std::cell::OnceCell<Option<Vec<(String, bool)>>>,
    order_items: std::cell::OnceCell<Option<Vec<(String, bool)>>>,
    full_group: &'k [ColKey],
}

impl<'k, 'a> KeyTexts<'k, 'a> {
    fn new(
        pl: &'k Planner<'a>,
        b: &'k Block<'a>,
        block: &QueryBlock,
        sql: &'k str,
        full_group: &'k [ColKey],
    ) -> Self {
        let single = sql == pl.sql
            && block.tables.len() == 1
            && block.subqueries.is_empty()
            && block.nests.is_empty();
        KeyTexts {
            pl,
            b,
            sql,
            prefix: !single,
            group_items: std::cell::OnceCell::new(),
            order_items: std::cell::OnceCell::new(),
            full_group,
        }
    }

    /// The block's GROUP BY items (`group`) or ORDER BY items, as `group_items` says.
    fn items(&self, group: bool) -> Option<&Vec<(String, bool)>> {
        let sql = self.sql;
        if group {
            self.group_items.get_or_init(|| {
                // The outer GROUP BY of a query that groups a grouped sub-select (Q13) is
                // the second level's, not this block's.
                if sql.is_empty() || self.pl.db.memo.derived_grouped(sql) {
                    None
                } else {
                    sqlexpr::outer_items(sql, "GROUP BY")
                        .filter(|v| v.len() == self.full_group.len())
                }
            })
        } else {
            self.order_items.get_or_init(|| {
                (!sql.is_empty())
                    .then(|| sqlexpr::outer_items(sql, "ORDER BY"))
                    .flatten()
            })
        }
        .as_ref()
    }

    fn resolve(&self, name: &str) -> Option<(String, deparse::Ty)> {
        self.b.column_display(self.pl, name, self.prefix)
    }

    fn column(&self, g: &ColKey) -> String {
        if self.prefix {
            format!("{}.{}", self.b.rels[g.rel].alias, g.col)
        } else {
            g.col.to_string()
        }
    }

    /// An ORDER BY or GROUP BY item as a key.
    fn item_key(&self, item: &str) -> String {
        let e = sqlexpr::alias_expr(self.sql, item);
        deparse::key_text(&e, &|n| self.resolve(n)).unwrap_or(e)
    }

    /// A grouping column: the expression its GROUP BY item names, else the column;
    /// `directed` appends DESC where the ORDER BY sorts the same item descending.
    fn group_key(&self, g: &ColKey, directed: bool) -> String {
        let item = self
            .items(true)
            .zip(self.full_group.iter().position(|x| x == g))
            .map(|(items, i)| items[i].0.clone());
        let mut text = match &item {
            Some(item) if !deparse::is_column(&sqlexpr::alias_expr(self.sql, item)) => {
                self.item_key(item)
            }
            _ => self.column(g),
        };
        if directed {
            let desc = item.as_ref().is_some_and(|item| {
                self.items(false)
                    .into_iter()
                    .flatten()
                    .any(|(o, desc)| *desc && o.split_whitespace().eq(item.split_whitespace()))
            });
            if desc {
                text.push_str(" DESC");
            }
        }
        text
    }

    /// The block's ORDER BY as a Sort Key, if its SQL has one.
    fn order_by(&self) -> Option<String> {
        let items = self.items(false)?;
        Some(
            items
                .iter()
                .map(|(item, desc)| {
                    let t = self.item_key(item);
                    if *desc {
                        format!("{t} DESC")
                    } else {
                        t
                    }
                })
                .collect::<Vec<_>>()
                .join(", "),
        )
    }

    /// The key of the aggregation over a grouped sub-select (Q13's `count(o_orderkey)`):
    /// a Var of the sub-select's output, shown as the expression without parentheses.
    fn outer_group_key(&self) -> String {
        let item = sqlexpr::outer_items(self.sql, "GROUP BY")
            .and_then(|v| v.into_iter().next())
            .map(|(item, _)| item)
            .unwrap_or_default();
        let e = sqlexpr::alias_expr(self.sql, &item);
        deparse::expr_text(&e, &|n| self.resolve(n), "").unwrap_or(e)
    }

    /// The HAVING condition, its sub-select as the InitPlan's Param.
    fn having(&self) -> String {
        let (cond, sub) = match &self.b.having_text {
            Some((c, s)) => (Some(c.clone()), s.as_str()),
            None => (sqlexpr::having_clause(self.sql), ""),
        };
        match cond {
            Some(c) => deparse::expr_text(&c, &|n| self.resolve(n), sub).unwrap_or(c),
            None => "(condition on an aggregate)".to_string(),
        }
    }
}

impl Block<'_> {
    /// Width of one column of a relation.
    pub fn width_of(&self, k: &ColKey) -> f64 {
        match &self.rels[k.rel].kind {
            RelKind::Table { rel, .. } => rel
                .cols
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(&k.col))
                .map_or(8.0, |c| c.width),
            RelKind::Sub { .. } => 8.0,
        }
    }
}
