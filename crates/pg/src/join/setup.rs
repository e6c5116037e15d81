//! One query block made ready for the join search (`build`: planmain.c's query_planner
//! up to make_one_rel), step by step in the files named after PostgreSQL's: base
//! relations (`relnode`'s build_simple_rel; `subselect` for a derived table, with HAVING
//! pushdown, and Q18's grouped IN), equivalence classes from the join edges
//! (`equivclass`), special joins for the flattened IN / EXISTS / NOT EXISTS nests and the
//! LEFT JOIN and the filters with their selectivity and cost (`initsplan`; `clausesel`,
//! `selfuncs`, `predtest`, `analyzejoins`, `indxpath` for the rules), sub-selects planned
//! as SubPlans or InitPlans (`subselect`, §6.1, §6.2), base relation sizes and paths
//! (`allpaths`), the grouping and ordering keys. `executor_work` counts what the executor
//! really does.

use rustc_hash::FxHashMap;

use crate::pathnodes::clamp_row_est;
use costlab_model::block::{ColRef, NestOrigin, QueryBlock, Source, SubqueryKind};
use costlab_model::error::{Error, Result};
use costlab_model::query::Predicate;

use super::allpaths::{set_base_rel_pathlists, set_base_rel_sizes};
use super::clauses;
use super::deparse::Ty;
use super::equivclass::{process_equivalences, propagate_constants};
use super::indxpath::order_by_index_expression;
use super::initsplan::{distribute_quals, factored_filters, join_edges, special_joins, QualSetup};
use super::pathnodes::*;
use super::relnode::build_simple_rel;
use super::subselect::{derived_rel, grouped_in_rels, having_initplans, notin_subplans};

impl Block<'_> {
    /// A column name of the block's SQL (bare or `alias.column`) as EXPLAIN shows it,
    /// `alias.column` when `prefix`, with its type; `None` when no relation has it.
    pub fn column_display(&self, pl: &Planner, name: &str, prefix: bool) -> Option<(String, Ty)> {
        let (qual, col) = match name.split_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, name),
        };
        for br in &self.rels {
            if qual.is_some_and(|q| !q.eq_ignore_ascii_case(&br.alias)) {
                continue;
            }
            let ty = match &br.kind {
                RelKind::Table { tidx, .. } => pl.db.tables[*tidx]
                    .columns
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(col))
                    .map(|c| Ty::of(&c.ty)),
                RelKind::Sub { cols, .. } => cols
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(col))
                    .then_some(Ty::Other),
            };
            if let Some(ty) = ty {
                let col = col.to_ascii_lowercase();
                let text = if prefix {
                    format!("{}.{col}", br.alias)
                } else {
                    col
                };
                return Some((text, ty));
            }
        }
        None
    }
}

/// Builds the block: relations, classes, special joins, filters, sub-selects, then the
/// base relations' sizes and paths. The steps keep PostgreSQL's order: InitPlans and
/// SubPlans are numbered as they are planned, and the order of relations, classes and
/// filters is the order the join search meets them in.
pub(crate) fn build<'a>(
    pl: &Planner<'a>,
    block: &QueryBlock,
    opts: &BlockOpts,
) -> Result<Block<'a>> {
    let notin = notin_nests(block);
    let (ref_rel, n) = relation_numbers(block, &notin);
    let grouped_in: Vec<usize> = block
        .subqueries
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SubqueryKind::InGrouped)
        .map(|(i, _)| i)
        .collect();
    if n + grouped_in.len() > 60 {
        return Err(Error::Unsupported(
            "more than 60 relations in one block".into(),
        ));
    }

    // What the block's result reads, from the front end's reading of the select list,
    // GROUP BY, ORDER BY and HAVING.
    let out_keys: Vec<ColKey> = block
        .outputs
        .iter()
        .filter_map(|c| {
            ref_rel[c.table].map(|r| ColKey {
                rel: r,
                col: c.column.to_ascii_lowercase().into(),
            })
        })
        .collect();

    // Single-table conditions: block filters on one table, and the OR factoring of
    // filters PostgreSQL canonicalises.
    let mut extra_preds: Vec<Vec<Predicate>> = vec![Vec::new(); block.tables.len()];
    let parsed = factored_filters(block);

    let mut rels: Vec<BaseRel<'a>> = Vec::with_capacity(n + grouped_in.len());
    let (pushed, total_pages) = add_base_rels_to_query(pl, block, &ref_rel, &mut rels)?;
    let (extra_edges, consumed_filters) =
        grouped_in_rels(pl, block, &ref_rel, &grouped_in, &mut rels)?;

    let mut b = Block {
        rels,
        parallel: pl.parallel(),
        restricted: Vec::new(),
        ecs: Vec::new(),
        ec_of: FxHashMap::default(),
        edges: Vec::new(),
        specials: Vec::new(),
        jfilters: Vec::new(),
        initplan_cost: 0.0,
        initplans: Vec::new(),
        having: opts.having,
        having_op: opts.having_op,
        having_true_sel: opts.having_true_sel,
        having_text: opts.having_text.clone(),
        nested: opts.nested,
        initplan_names: Vec::new(),
        order_by_index_expression: false,
        knn_point: None,
        out_keys,
        group: Vec::new(),
        order: Vec::new(),
        consider_startup: block.limit.is_some(),
        col_needs: Vec::new(),
        ec_buckets: Vec::new(),
    };

    // Equivalence classes (union of join edges); edges to NOT IN tables are SubPlan tests.
    let (mut edges, notin_edges) = join_edges(block, &ref_rel);
    edges.extend(extra_edges);
    propagate_constants(block, &ref_rel, &mut edges, &mut extra_preds);
    process_equivalences(&mut b, &edges);
    b.edges = edges;

    b.specials = special_joins(pl, block, &ref_rel, &notin);

    // Filters and sub-selects: InitPlans and SubPlans numbered as met, the filters' first,
    // then the NOT IN nests', then HAVING's.
    let quals = QualSetup {
        pl,
        block,
        ref_rel: &ref_rel,
        parsed: &parsed,
        pushed: &pushed,
        consumed: &consumed_filters,
    };
    distribute_quals(&quals, &mut b, &mut extra_preds)?;
    notin_subplans(pl, &mut b, block, &ref_rel, &notin, &notin_edges)?;
    having_initplans(pl, &mut b, block)?;

    set_base_rel_sizes(
        pl,
        &mut b,
        block,
        &ref_rel,
        &extra_preds,
        &opts.correlated,
        total_pages,
    )?;
    grouping_and_ordering_keys(pl, &mut b, block, &ref_rel);
    subplan_calls(&mut b);
    // Parallel-restricted clauses (max_parallel_hazard_walker): a correlated SubPlan's
    // filter (its plan reads a Param of this level's rows) and, in a correlated sub-select,
    // the columns compared with the outer query's Params.
    b.restricted = b
        .initplans
        .iter()
        .filter(|ip| ip.1 == "SubPlan" && ip.2 != 0)
        .map(|ip| ip.2)
        .collect();
    for c in &opts.correlated {
        if let Some(r) = ref_rel[c.table] {
            b.restricted.push(bit(r));
        }
    }
    set_base_rel_pathlists(pl, &mut b)?;
    Ok(b)
}

/// The NOT IN nests: they stay SubPlans (§6.1), their tables leave the join problem.
fn notin_nests(block: &QueryBlock) -> Vec<usize> {
    block
        .nests
        .iter()
        .enumerate()
        .filter(|(_, n)| n.origin == NestOrigin::NotIn)
        .map(|(i, _)| i)
        .collect()
}

/// Each table's relation number in block order, `None` for a NOT IN nest's tables; and
/// how many relations that makes.
fn relation_numbers(block: &QueryBlock, notin: &[usize]) -> (Vec<Option<usize>>, usize) {
    let in_notin = |t: usize| block.tables[t].nest.is_some_and(|n| notin.contains(&n));
    let mut ref_rel: Vec<Option<usize>> = vec![None; block.tables.len()];
    let mut n = 0;
    for (ti, _) in block.tables.iter().enumerate() {
        if !in_notin(ti) {
            ref_rel[ti] = Some(n);
            n += 1;
        }
    }
    (ref_rel, n)
}

/// The block's tables as relations, in `ref_rel`'s order (add_base_rels_to_query): base
/// tables, and derived tables planned as sub-selects. Returns the filters pushed into a
/// derived table's HAVING and the base tables' pages together.
fn add_base_rels_to_query<'a>(
    pl: &Planner<'a>,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    rels: &mut Vec<BaseRel<'a>>,
) -> Result<(Vec<usize>, f64)> {
    let mut pushed: Vec<usize> = Vec::new();
    let mut total_pages = 0.0;
    for (ti, t) in block.tables.iter().enumerate() {
        if ref_rel[ti].is_none() {
            continue;
        }
        match &t.source {
            Source::Base => {
                let tidx = pl.table_index(&t.table)?;
                total_pages += pl.db.infos[tidx].pages;
                rels.push(build_simple_rel(pl, t, tidx)?);
            }
            Source::Derived {
                block: sub,
                columns,
            } => rels.push(derived_rel(pl, block, ti, t, sub, columns, &mut pushed)?),
        }
    }
    Ok((pushed, total_pages))
}

/// The block's GROUP BY and ORDER BY keys as relation columns; an ORDER BY on one
/// expression an expression index holds, or a kNN distance, is that index's key.
fn grouping_and_ordering_keys(
    pl: &Planner,
    b: &mut Block,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
) {
    let key = |c: &ColRef| {
        ref_rel[c.table].map(|r| ColKey {
            rel: r,
            col: c.column.as_str().into(),
        })
    };
    b.group = block.group_by.iter().filter_map(key).collect();
    b.order = block.order_by.iter().filter_map(key).collect();
    if let Some(k) = order_by_index_expression(pl, b, block) {
        b.order = vec![k];
        b.order_by_index_expression = true;
        if let [(item, _)] = block.order_items.as_slice() {
            let point = clauses::distance_to_point(item).and_then(|(_, p)| p);
            b.knn_point = point.map(|(x, y)| {
                format!(
                    "'({},{})'::point",
                    clauses::float8_text(x),
                    clauses::float8_text(y)
                )
            });
        }
    }
}

/// SubPlan calls: the rows of its relations joined, before its own condition.
fn subplan_calls(b: &mut Block) {
    for k in 0..b.initplans.len() {
        let rels = b.initplans[k].2;
        if rels == 0 {
            continue;
        }
        let mut n = 1.0;
        for r in 0..b.rels.len() {
            if rels & bit(r) != 0 {
                n *= b.rels[r].rows;
            }
        }
        for ec in &b.ecs {
            let inside: Vec<&ColKey> = ec.iter().filter(|m| rels & bit(m.rel) != 0).collect();
            if inside.len() >= 2 && inside[0].rel != inside[1].rel {
                n *= b.eqjoinsel_inner(inside[0], inside[1]);
            }
        }
        if rels.count_ones() == 1 {
            // A restriction's rows already passed it; the calls came before.
            let r = rels.trailing_zeros() as usize;
            let sel = b.rels[r].filter_sel;
            if sel > 0.0 {
                n /= sel;
            }
        }
        b.initplans[k].3 = clamp_row_est(n);
    }
}
