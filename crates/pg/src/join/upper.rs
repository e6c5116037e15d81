//! Upper planning of a block (§5, §7; planner.c's grouping_planner): grouping
//! (GroupAggregate / HashAggregate / Aggregate), ORDER BY sorts and incremental sorts,
//! LIMIT, InitPlan charges.

use crate::pathnodes::clamp_row_est;
use costlab_model::block::QueryBlock;
use costlab_model::error::{Error, Result};
use costlab_model::knobs::EngineVersion;
use costlab_model::plan::Work;

use super::clauses;
use super::costs::{self, AggCosts, AggStrategy, In};
use super::explain::KeyTexts;
use super::model::add_partial_path;
use super::model::{
    add_path, cheaper_total, cheapest_total, JPath, Node, PathKeys, Rescan, TrueRows,
};
use super::pathnodes::*;
use super::prepagg::agg_costs;
use super::selfuncs::estimate_num_groups;
use super::tlist::TargetOps;
use super::tlist::{index_returned_calls, target_ops};
use costlab_model::expr::Expr as T;

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
        workers: p.workers,
        safe: p.safe,
    }
}

/// add_path's cost comparison among paths that all deliver the ORDER BY
/// (compare_path_costs_fuzzily): a path fuzzily worse on total cost goes unless it is
/// fuzzily better on startup and startup counts (`consider_startup`: a LIMIT above); of two
/// fuzzily equal totals the later start goes; paths equal within the fuzz are compared
/// again almost exactly (add_path's 1.0000000001), and a full tie keeps the older path.
fn prune_ordered(paths: Vec<JPath>, consider_startup: bool) -> Vec<JPath> {
    use crate::costsize::STD_FUZZ_FACTOR as FUZZ;
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
pub(crate) fn incremental_sort_path(
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
        workers: p.workers,
        safe: p.safe,
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
    mut top: JoinRel,
    group: Vec<ColKey>,
) -> Result<JPath> {
    let jc = &pl.jc;
    let cop = jc.cop();
    let ctup = jc.ctup();
    let true_in = top.true_rows;
    let top_rows = top.rows;
    // The scan/join relation's partial paths, if it may run in workers.
    let mut partial = std::mem::take(&mut top.partial);
    partial.retain(|_| top.consider_parallel);
    let mut paths: Vec<JPath> = top.paths.into_iter().filter(|p| p.param == 0).collect();
    if paths.is_empty() {
        return Err(Error::Unsupported("no path for the join".into()));
    }
    let (ac, tlist_ops, distinct) = agg_costs(pl, block);
    let grouped_block = !group.is_empty() || block.scalar_aggregate;
    let targets = target_ops(pl, block, grouped_block);
    let tlist_ops = tlist_ops + targets.agg_out_ops;
    if targets.scanjoin_ops > 0.0 {
        project_scanjoin_target(pl, b, block, grouped_block, &targets, &mut paths);
        project_scanjoin_target(pl, b, block, grouped_block, &targets, &mut partial);
    }
    let aggc = AggCosts {
        trans_per_tuple: ac.trans_per_tuple * cop,
        calls_per_tuple: ac.calls_per_tuple,
        final_per_group: ac.final_per_group * cop,
        num_trans: ac.num_trans,
        transition_space: ac.transition_space,
        serial_per_group: ac.serial_per_group * cop,
        combine_per_tuple: ac.combine_per_tuple * cop,
    };
    let tlist = tlist_ops * cop;
    let limit = block.limit;

    let full_group = b.group.clone();
    let gkeys: Vec<usize> = group.iter().map(|g| pk_of(b, g)).collect();
    let okeys: Vec<usize> = b.order.iter().map(|g| pk_of(b, g)).collect();
    let texts = KeyTexts::new(pl, b, block, &full_group);
    // The keys' EXPLAIN texts (empty where the build keeps no text: reading them from
    // the SQL took a tenth of the page's planning time).
    let (gtext, gsort_text, otext) = text(|| texts.key_lines(b, &group)).unwrap_or_default();

    let grouped = !group.is_empty() || block.scalar_aggregate;
    let query_keys = if grouped { &gkeys } else { &okeys };
    gather_top(pl, b, query_keys, top_rows, &partial, &mut paths);
    let in_rows = paths[0].rows;
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
        let (has_having, out_rows) = having_rows(b, groups);
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
        let derived_grouped = block.regroup.is_some();
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
        let agg = Aggregation {
            costs: &aggc,
            trans_ops: ac.trans_per_tuple,
            keys: &gkeys,
            groups,
            out_rows,
            width: gwidth,
            having: has_having,
            tlist,
            out_calls: targets.agg_out_calls,
            truth: level1_truth,
            group_key_line: if group.is_empty() {
                None
            } else {
                text(|| format!("Group Key: {gtext}"))
            },
            having_line: if has_having {
                text(|| format!("Filter: {}", texts.having()))
            } else {
                None
            },
            half: "",
        };
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
                add_path(
                    &mut grouped_paths,
                    agg_path(pl, &agg, st, inp),
                    b.consider_startup,
                );
            }
        }
        // create_partial_grouping_paths, gather_grouping_paths and the Finalize paths of
        // add_paths_to_grouping_rel: no DISTINCT aggregate (no combine function for one).
        let parallel = ParallelAgg {
            agg: &agg,
            group: &group,
            gkeys: &gkeys,
            gsort_text: &gsort_text,
            ac: &aggc,
            trans_ops: ac.trans_per_tuple,
            combine_ops: ac.combine_per_tuple,
        };
        for p in parallel_grouping_paths(pl, b, &parallel, &partial).filter(|_| !distinct) {
            add_path(&mut grouped_paths, p, b.consider_startup);
        }
        paths = grouped_paths;
        // Q13's histogram: a grouped sub-select in FROM aggregated again.
        if derived_grouped {
            paths = second_aggregation(pl, b, &texts, &paths, true_groups);
        }
    }
    // ORDER BY: presorted paths as they are, the cheapest sorted (§7).
    let keys = OrderKeys {
        group: &group,
        full_group: &full_group,
        gkeys: &gkeys,
        okeys: &okeys,
        gsort_text: &gsort_text,
        otext: &otext,
    };
    let mut finals = ordered_paths(pl, b, block, &texts, &keys, paths)?;
    finals.extend(ordered_partial(pl, &okeys, &otext, limit, &partial).filter(|_| !grouped));
    if let Some(l) = limit {
        finals = limit_paths(finals, l);
    }
    let best = finals
        .into_iter()
        .min_by(cheaper_total)
        .ok_or_else(|| Error::Unsupported("no final path".into()))?;
    let best = charge_initplans(b, best);
    let _ = (ctup, In::default());
    Ok(best)
}

/// create_ordered_paths' partial part (15, 16): the cheapest partial path, unless sorted
/// already (its Gather Merge is the scan/join relation's), sorted in each participant (a
/// top-N sort under a LIMIT) under a Gather Merge returning the participants' rows.
fn ordered_partial(
    pl: &Planner,
    okeys: &[usize],
    otext: &str,
    limit: Option<f64>,
    partial: &[JPath],
) -> Option<JPath> {
    let cheapest = partial.first()?;
    if okeys.is_empty() || presorted_keys(&cheapest.pathkeys, okeys) == okeys.len() {
        return None;
    }
    let sorted = sort_path(
        pl,
        cheapest,
        okeys.to_vec(),
        limit.unwrap_or(-1.0),
        otext.into(),
    );
    Some(pl.gather_merge(&sorted, pl.upper_gather_rows(&sorted)))
}

/// Whether the block filters its groups (HAVING), and the groups that pass: an aggregate
/// has no statistics, so 1/3 for a comparison and the default ndistinct (200, or the
/// groups when fewer) for an equality.
fn having_rows(b: &Block, groups: f64) -> (bool, f64) {
    let having_sel = match b.having_op {
        Some(clauses::Op::Eq) => 1.0 / groups.clamp(1.0, 200.0),
        Some(clauses::Op::Ne) => 1.0 - 1.0 / groups.clamp(1.0, 200.0),
        Some(_) => 1.0 / 3.0,
        None if b.having => 1.0 / 3.0,
        None => 1.0,
    };
    let has_having = b.having || b.having_op.is_some();
    if has_having {
        (true, clamp_row_est(groups * having_sel))
    } else {
        (false, groups)
    }
}

/// apply_scanjoin_target_to_paths' Gathers over the top relation's partial paths (their
/// target applied), on the query's order (the grouping's, else ORDER BY's).
fn gather_top(
    pl: &Planner,
    b: &Block,
    query_keys: &[usize],
    rows: f64,
    partial: &[JPath],
    paths: &mut Vec<JPath>,
) {
    let all_rels: u64 = (0..b.rels.len()).fold(0, |a, r| a | bit(r));
    for g in pl.gather_paths(b, query_keys, (all_rels, rows), partial, paths) {
        add_path(paths, g, b.consider_startup);
    }
}

/// LIMIT over each path (§7): the rows it returns, its total cost interpolated between
/// the path's startup and total, and the streaming work below it scaled (`Node::limited`).
fn limit_paths(paths: Vec<JPath>, l: f64) -> Vec<JPath> {
    paths
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
        .collect()
}

/// InitPlans and the block's SubPlans are charged to the top node's startup and total
/// (§6.2), and hung under it with EXPLAIN's names for them.
fn charge_initplans(b: &Block, mut best: JPath) -> JPath {
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
    best
}

/// A grouped sub-select in FROM aggregated again by the outer query (Q13's histogram):
/// the Subquery Scan's cpu_tuple_cost per row, then a second aggregation on an
/// aggregate's value, which has no statistics (200 groups), hashed or sorted.
fn second_aggregation(
    pl: &Planner,
    b: &Block,
    texts: &KeyTexts,
    paths: &[JPath],
    true_groups: f64,
) -> Vec<JPath> {
    let jc = &pl.jc;
    let (cop, ctup) = (jc.cop(), jc.ctup());
    let a2 = AggCosts {
        trans_per_tuple: cop,
        calls_per_tuple: 0.0,
        final_per_group: 0.0,
        num_trans: 1.0,
        transition_space: 0.0,
        ..AggCosts::default()
    };
    let mut lvl2 = Vec::new();
    for p in paths {
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
                    workers: 0,
                    safe: false,
                },
                b.consider_startup,
            );
        }
    }
    lvl2
}

/// The scan/join target's cost on every path (apply_scanjoin_target_to_paths): its
/// operators per row, charged in full; as work, what an index-only scan returns is
/// neither called nor evaluated.
fn project_scanjoin_target(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
    grouped_block: bool,
    targets: &TargetOps,
    paths: &mut [JPath],
) {
    let order_pks: Vec<usize> = b.order.iter().map(|g| pk_of(b, g)).collect();
    let per_row = targets.scanjoin_ops * pl.jc.cop();
    for p in paths.iter_mut() {
        p.total += per_row * p.rows;
        let handed_up = pl.db.handed_up()
            && b.order_by_index_expression
            && !order_pks.is_empty()
            && p.pathkeys.starts_with(&order_pks);
        let ordered_value = if handed_up {
            block
                .order_items
                .first()
                .map(|(o, _)| clauses::canonical(o))
        } else {
            None
        };
        // What is returned is neither called nor evaluated (the work); the planner
        // still charges it (the cost).
        let (returned_calls, returned_ops) = if targets.scanjoin_calls > 0.0 {
            index_returned_calls(pl, b, block, grouped_block, &p.node, ordered_value)
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

/// One aggregation of a block, as every strategy and input path shares it: its costs
/// (scaled by cpu_operator_cost), its groups and output, and its EXPLAIN lines.
struct Aggregation<'k> {
    costs: &'k AggCosts,
    /// Transition operators per input row (unscaled: the work counts them).
    trans_ops: f64,
    keys: &'k [usize],
    groups: f64,
    /// Rows out: the groups after HAVING.
    out_rows: f64,
    width: f64,
    having: bool,
    /// The output target list's cost per output row.
    tlist: f64,
    /// The schema's function calls per output row.
    out_calls: f64,
    /// The rows it really returns.
    truth: f64,
    group_key_line: Option<String>,
    having_line: Option<String>,
    /// "Partial " or "Finalize " for the two halves of a parallel aggregation, "" else.
    half: &'static str,
}

/// What a parallel aggregation shares with the serial one of the same block.
struct ParallelAgg<'k> {
    agg: &'k Aggregation<'k>,
    group: &'k [ColKey],
    gkeys: &'k [usize],
    gsort_text: &'k str,
    /// The serial aggregation's costs (scaled), whose split the two halves take.
    ac: &'k AggCosts,
    trans_ops: f64,
    combine_ops: f64,
}

/// The parallel aggregation's complete paths: Partial aggregates over the partial paths
/// (per participant: groups estimated on the cheapest partial path's rows), gathered
/// (rows: the partial groups times the workers before 18, clamp(rows x divisor) from 18),
/// a Sort under a Gather Merge for an unsorted cheapest one (15-17's
/// gather_grouping_paths), then finalized: sorted inputs by a Finalize GroupAggregate (a
/// Finalize Aggregate without GROUP BY), the cheapest unsorted one sorted first, and a
/// Finalize HashAggregate over the cheapest gathered path.
fn parallel_grouping_paths(
    pl: &Planner,
    b: &Block,
    pa: &ParallelAgg,
    partial: &[JPath],
) -> std::vec::IntoIter<JPath> {
    parallel_grouping(pl, b, pa, partial).into_iter()
}

fn parallel_grouping(pl: &Planner, b: &Block, pa: &ParallelAgg, partial: &[JPath]) -> Vec<JPath> {
    let Some(cheapest) = partial.first() else {
        return Vec::new();
    };
    let scalar = pa.group.is_empty();
    let gp = if scalar {
        1.0
    } else {
        estimate_num_groups(b, pa.group, cheapest.rows)
    };
    let pcosts = AggCosts {
        final_per_group: pa.ac.serial_per_group,
        ..*pa.ac
    };
    let pagg = Aggregation {
        costs: &pcosts,
        trans_ops: pa.trans_ops,
        groups: gp,
        out_rows: gp,
        having: false,
        tlist: 0.0,
        out_calls: 0.0,
        truth: f64::NAN,
        having_line: None,
        half: "Partial ",
        group_key_line: pa.agg.group_key_line.clone(),
        ..*pa.agg
    };
    let mut partial_aggs: Vec<JPath> = Vec::new();
    if scalar {
        for p in partial {
            add_partial_path(
                &mut partial_aggs,
                agg_path(pl, &pagg, AggStrategy::Plain, p.clone()),
            );
        }
    } else {
        for (i, p) in partial.iter().enumerate() {
            let presorted = presorted_keys(&p.pathkeys, pa.gkeys);
            let input = if presorted == pa.gkeys.len() {
                p.clone()
            } else if i == 0 {
                sort_path(pl, p, pa.gkeys.to_vec(), -1.0, pa.gsort_text.to_string())
            } else {
                continue;
            };
            add_partial_path(
                &mut partial_aggs,
                agg_path(pl, &pagg, AggStrategy::Sorted, input),
            );
        }
        add_partial_path(
            &mut partial_aggs,
            agg_path(pl, &pagg, AggStrategy::Hashed, cheapest.clone()),
        );
    }
    let gather_rows = |p: &JPath| pl.upper_gather_rows(p);
    let mut gathered: Vec<JPath> = Vec::new();
    if let Some(first) = partial_aggs.first() {
        add_path(
            &mut gathered,
            pl.gather(first, gather_rows(first)),
            b.consider_startup,
        );
        if !scalar && presorted_keys(&first.pathkeys, pa.gkeys) < pa.gkeys.len() {
            let sorted = sort_path(
                pl,
                first,
                pa.gkeys.to_vec(),
                -1.0,
                pa.gsort_text.to_string(),
            );
            let rows = gather_rows(first);
            add_path(
                &mut gathered,
                pl.gather_merge(&sorted, rows),
                b.consider_startup,
            );
        }
    }
    for p in partial_aggs.iter().filter(|p| !p.pathkeys.is_empty()) {
        add_path(
            &mut gathered,
            pl.gather_merge(p, gather_rows(p)),
            b.consider_startup,
        );
    }
    let fcosts = AggCosts {
        trans_per_tuple: pa.ac.combine_per_tuple,
        calls_per_tuple: 0.0,
        ..*pa.ac
    };
    let fagg = Aggregation {
        costs: &fcosts,
        trans_ops: pa.combine_ops,
        half: "Finalize ",
        group_key_line: pa.agg.group_key_line.clone(),
        having_line: pa.agg.having_line.clone(),
        ..*pa.agg
    };
    let mut out = Vec::new();
    let Some(cheapest_gathered) = cheapest_total(&gathered).cloned() else {
        return out;
    };
    for g in &gathered {
        if scalar {
            out.push(agg_path(pl, &fagg, AggStrategy::Plain, g.clone()));
        } else if presorted_keys(&g.pathkeys, pa.gkeys) == pa.gkeys.len() {
            out.push(agg_path(pl, &fagg, AggStrategy::Sorted, g.clone()));
        } else if g.total == cheapest_gathered.total {
            let sorted = sort_path(pl, g, pa.gkeys.to_vec(), -1.0, pa.gsort_text.to_string());
            out.push(agg_path(pl, &fagg, AggStrategy::Sorted, sorted));
        }
    }
    if !scalar {
        out.push(agg_path(pl, &fagg, AggStrategy::Hashed, cheapest_gathered));
    }
    out
}

/// The aggregation path over one input (cost_agg, create_agg_path): Aggregate,
/// GroupAggregate or HashAggregate with its work.
fn agg_path(pl: &Planner, agg: &Aggregation, st: AggStrategy, inp: JPath) -> JPath {
    let cop = pl.jc.cop();
    let n_keys = agg.keys.len() as f64;
    let (mut s, mut t, spill) = costs::agg(&pl.jc, st, agg.costs, n_keys, agg.groups, inp.input());
    // cost_agg: enable_hashagg off disables a hashed aggregation.
    let (adc, adis) = pl.disable(st != AggStrategy::Hashed || pl.opts.enable_hashagg);
    s += adc;
    t += adc;
    if agg.having {
        t += cop * agg.groups;
    }
    t += agg.tlist * agg.out_rows;
    if st == AggStrategy::Plain {
        // A plain Aggregate's output row is ready at its startup.
        s = s.min(t);
    }
    let op = match (agg.half, st) {
        ("Partial ", AggStrategy::Plain) => "Partial Aggregate",
        ("Partial ", AggStrategy::Sorted) => "Partial GroupAggregate",
        ("Partial ", AggStrategy::Hashed) => "Partial HashAggregate",
        ("Finalize ", AggStrategy::Plain) => "Finalize Aggregate",
        ("Finalize ", AggStrategy::Sorted) => "Finalize GroupAggregate",
        ("Finalize ", AggStrategy::Hashed) => "Finalize HashAggregate",
        (_, AggStrategy::Plain) => "Aggregate",
        (_, AggStrategy::Sorted) => "GroupAggregate",
        (_, AggStrategy::Hashed) => "HashAggregate",
    };
    let mut details = Vec::new();
    details.extend(agg.group_key_line.clone());
    details.extend(agg.having_line.clone());
    details.extend(Planner::disabled_line(adis));
    let node = Node::new(
        op,
        s,
        t,
        agg.out_rows,
        agg.width,
        Work {
            rows_examined: inp.rows,
            operator_evals: inp.rows * (agg.trans_ops + n_keys),
            comparisons: if st == AggStrategy::Hashed {
                inp.rows
            } else {
                0.0
            },
            spill_bytes: spill * 8192.0,
            rows_out: agg.out_rows,
            function_calls: inp.rows * agg.costs.calls_per_tuple + agg.out_rows * agg.out_calls,
            ..Work::default()
        },
        details,
        [inp.node.clone()],
    );
    let node = Node::with_true_rows(node, TrueRows::out(agg.truth));
    JPath {
        startup: s,
        total: t,
        rows: agg.out_rows,
        width: agg.width,
        pathkeys: if st == AggStrategy::Sorted {
            PathKeys::from_slice(agg.keys)
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
        workers: inp.workers,
        safe: inp.safe,
    }
}

/// The GROUP BY and ORDER BY keys as [`ordered_paths`] reads them: the reduced and the
/// full grouping keys, both as pathkeys, and the sort keys' EXPLAIN texts.
struct OrderKeys<'k> {
    group: &'k [ColKey],
    full_group: &'k [ColKey],
    gkeys: &'k [usize],
    okeys: &'k [usize],
    gsort_text: &'k String,
    otext: &'k String,
}

/// create_ordered_paths (§7): the paths that deliver the block's ORDER BY, presorted
/// ones as they are, others through a Sort or an Incremental Sort.
fn ordered_paths(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
    texts: &KeyTexts,
    keys: &OrderKeys,
    paths: Vec<JPath>,
) -> Result<Vec<JPath>> {
    let OrderKeys {
        group,
        full_group,
        gkeys,
        okeys,
        gsort_text,
        otext,
    } = *keys;
    let limit = block.limit;
    let limit_tuples = limit.unwrap_or(-1.0);
    let mut finals: Vec<JPath> = Vec::new();
    let needs_expr_sort = block.order_by_expression && !b.order_by_index_expression;
    // Grouping keys dropped as functionally dependent no longer sort the output.
    let removed: Vec<&ColKey> = full_group.iter().filter(|g| !group.contains(g)).collect();
    // The ORDER BY names only GROUP BY items: PostgreSQL then orders the grouping keys
    // to match (preprocess_groupclause) and a sorted aggregation needs no further sort.
    let (order_items, group_items) = match &block.regroup {
        Some(r) => (&r.order_items, &r.group_items),
        None => (&block.order_items, &block.group_items),
    };
    let order_within_group =
        !order_items.is_empty() && order_items.iter().all(|(o, _)| group_items.contains(o));
    let order_in_group = !group.is_empty()
        && order_within_group
        && !removed.iter().any(|r| {
            order_items
                .iter()
                .any(|(o, _)| matches!(o, T::Column(c) if c.name.eq_ignore_ascii_case(&r.col)))
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
                finals.push(sort_path(pl, p, gkeys.to_vec(), sort_limit, key_text));
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
                if p.pathkeys.starts_with(okeys) {
                    finals.push(p.clone());
                    continue;
                }
                // create_ordered_paths: a path sorted on a prefix of the keys gets an
                // Incremental Sort (PostgreSQL 13 on).
                let presorted = presorted_keys(&p.pathkeys, okeys);
                if presorted > 0 {
                    finals.push(incremental_sort_path(
                        pl, b, p, okeys, presorted, sort_limit, &key_text,
                    ));
                }
            }
        }
        // The cheapest path sorted in full. From PostgreSQL 17 on (make_ordered_path) a
        // path sorted on a prefix of the keys gets only the Incremental Sort, the cheapest
        // one too, even where a full Sort would cost less.
        let cheapest_presorted = presorted_keys(&cheapest.pathkeys, okeys);
        if needs_expr_sort || pl.version < EngineVersion::Pg17 || cheapest_presorted == 0 {
            finals.push(sort_path(
                pl,
                &cheapest,
                okeys.to_vec(),
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
    Ok(finals)
}
