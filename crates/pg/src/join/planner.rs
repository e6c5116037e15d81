//! The planning of one query block end to end (planner.c's subquery_planner and
//! grouping_planner, planmain.c's query_planner): `setup` makes the block ready,
//! `joinrels` searches the join orders, `upper` adds grouping, ordering and LIMIT. Also
//! the small helpers every path builder calls (sorts, disabled nodes).

use std::rc::Rc;

use crate::pathnodes::Rel;
use costlab_model::block::QueryBlock;
use costlab_model::error::{Error, Result};
use costlab_model::plan::Work;
use costlab_model::query::Query;

use super::costs::{self};
use super::model::{JPath, Node};
use super::pathnodes::*;
use super::setup;

impl<'a> Planner<'a> {
    pub fn table_index(&self, name: &str) -> Result<usize> {
        self.db
            .tables
            .iter()
            .position(|t| t.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::UnknownTable(name.to_string()))
    }

    pub fn rel_for(&self, tidx: usize, q: &Query) -> Result<Rel<'a>> {
        Rel::for_query(&self.db.infos[tidx], &self.db.tables[tidx], q)
    }

    pub fn empty_rel(&self, tidx: usize) -> Result<Rel<'a>> {
        self.rel_for(
            tidx,
            &Query {
                table: self.db.tables[tidx].name.clone(),
                select: Vec::new(),
                predicates: Vec::new(),
                order_by: Vec::new(),
                limit: None,
            },
        )
    }

    /// A node type's switch (enable_nestloop, enable_sort...): off, disable_cost on
    /// the node's startup and total cost before PostgreSQL 18 (costsize.c), one
    /// disabled node from 18 on, compared before the costs (pathnode.c add_path).
    pub fn disable(&self, enabled: bool) -> (f64, u32) {
        match (enabled, crate::costsize::uses_disabled_nodes(self.version)) {
            (true, _) => (0.0, 0),
            (false, false) => (crate::costsize::DISABLE_COST, 0),
            (false, true) => (0.0, 1),
        }
    }

    /// A Sort node over `p` with its cost (start-up, total, comparisons, spill bytes), its
    /// disabled count and the `Sort Key:` line when there is one.
    pub(crate) fn sort_node(
        p: &JPath,
        (s, t, cmps, spill): SortCost,
        dis: u32,
        sort_key: Option<String>,
    ) -> Rc<Node> {
        Node::new(
            "Sort",
            s,
            t,
            p.rows,
            p.width,
            Work {
                comparisons: cmps,
                spill_bytes: spill,
                rows_out: p.rows,
                ..Work::default()
            },
            sort_key
                .into_iter()
                .chain(Self::disabled_line(dis))
                .collect(),
            [p.node.clone()],
        )
    }

    /// EXPLAIN's line on a node PostgreSQL 18 planned while disabled.
    pub fn disabled_line(disabled: u32) -> Option<String> {
        (disabled > 0).then(|| "Disabled: true".to_string())
    }

    /// cost_sort with enable_sort: (startup, total, comparisons, spill bytes) and the
    /// Sort's own disabled nodes.
    pub fn sort_cost(&self, input: costs::In, limit_tuples: f64) -> (SortCost, u32) {
        let (s, t, cmps, spill) = costs::sort(&self.jc, input, limit_tuples);
        let (dc, dis) = self.disable(self.opts.enable_sort);
        ((s + dc, t + dc, cmps, spill), dis)
    }

    /// Plans one query block: join search, then grouping, ordering and limit.
    pub fn plan_block(&self, block: &QueryBlock, opts: &BlockOpts) -> Result<JPath> {
        let b = setup::build(self, block, opts)?;
        // Once for both: the join search's useful orders and the grouping above it.
        let group = super::upper::grouping_keys(self, &b);
        let top = self.join_search(&b, &group)?;
        super::upper::finish(self, &b, block, top, group)
    }

    // ---- join search ------------------------------------------------------------------
}
