//! Sub-selects as relations (subselect.c, allpaths.c's set_subquery_pathlist): a
//! planned sub-block as a base relation of the outer block, the block of a NOT IN nest's
//! tables, the subquery scan's path, and a sub-block's text.

use crate::pathnodes::QualOps;
use costlab_model::block::QueryBlock;
use costlab_model::plan::Name;
use costlab_model::plan::{Cost, Work};

use super::costs::Qual;
use super::model::{JPath, Node, PathKeys, Rescan};
use super::pathnodes::*;

/// A sub-select's relation: its path under a Subquery Scan ([SCAN] cost_subqueryscan:
/// one cpu_tuple_cost per row on top).
pub(crate) fn sub_rel<'a>(
    alias: Name,
    sp: JPath,
    cols: Vec<String>,
    unique: Vec<String>,
    uses: Vec<Name>,
    sublink: bool,
) -> BaseRel<'a> {
    let true_rows = sp.node.true_rows().unwrap_or(sp.rows);
    BaseRel {
        alias,
        rows: sp.rows,
        tuples: sp.rows,
        width: sp.width,
        kind: RelKind::Sub {
            path: sp,
            cols,
            unique,
            sublink,
        },
        filter_ops: QualOps::default(),
        filter_sel: 1.0,
        true_sel: 1.0,
        true_rows,
        extra: Qual::default(),
        filter_text: Vec::new(),
        filters: Vec::new(),
        paths: Vec::new(),
        uses,
        handed_up: Vec::new(),
    }
}

/// The block of a NOT IN nest's tables with their own conditions.
pub(crate) fn nest_block(block: &QueryBlock, tables: &[usize]) -> QueryBlock {
    let map = |t: usize| tables.iter().position(|&x| x == t);
    let mut q = QueryBlock::default();
    for &t in tables {
        let mut tr = block.tables[t].clone();
        tr.nest = None;
        tr.outer_join_after.clear();
        q.tables.push(tr);
    }
    for e in &block.joins {
        if let (Some(a), Some(b)) = (map(e.a.table), map(e.b.table)) {
            let mut e2 = e.clone();
            e2.a.table = a;
            e2.b.table = b;
            q.joins.push(e2);
        }
    }
    for f in &block.filters {
        if f.tables.iter().all(|t| map(*t).is_some()) {
            let mut f2 = f.clone();
            f2.tables = f.tables.iter().filter_map(|t| map(*t)).collect();
            f2.expr
                .for_each_column_mut(&mut |c| c.table = c.table.and_then(map));
            q.filters.push(f2);
        }
    }
    q
}

/// A Subquery Scan path over a planned sub-select.
pub(crate) fn subquery_scan(br: &BaseRel, cop: f64, ctup: f64, elide: bool) -> Option<JPath> {
    let RelKind::Sub { path, .. } = &br.kind else {
        return None;
    };
    let q = br.filter_ops;
    let startup = path.startup + q.startup * cop + br.extra.startup;
    let total = path.total
        + q.startup * cop
        + br.extra.startup
        + (ctup + q.per_tuple * cop + br.extra.per_tuple) * path.rows;
    let work = Work {
        rows_examined: path.rows,
        operator_evals: path.rows * q.per_tuple,
        rows_out: br.rows,
        ..Work::default()
    };
    let mut details = Vec::new();
    for t in &br.filter_text {
        details.push(format!("Filter: {t}"));
    }
    // A scan without conditions over a sub-select of a sublink or of a block of its own
    // is dropped from the plan (setrefs.c trivial_subqueryscan); its cost stays.
    let node = if elide && br.filter_text.is_empty() {
        let (plan, kids) = path.node.root_parts();
        Node::op(plan, kids)
    } else {
        let mut plan = costlab_model::plan::PlanNode::leaf(
            "Subquery Scan",
            Cost::new(startup, total),
            br.rows,
            work,
        );
        plan.relation = Some(br.alias.clone());
        plan.width = br.width;
        plan.details = details;
        Node::op(plan, vec![path.node.clone()])
    };
    Some(JPath {
        startup,
        total,
        rows: br.rows,
        width: br.width,
        pathkeys: PathKeys::new(),
        param: 0,
        rescan: Rescan::Same,
        node,
        param_ecs: smallvec::SmallVec::new(),
        can_mark: false,
        disabled: path.disabled,
        pending: 0,
    })
}
