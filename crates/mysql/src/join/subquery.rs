//! Subqueries that are not flattened, planned as their own blocks: dependent (IN→EXISTS,
//! per outer row) or materialized, chosen for IN / NOT IN as
//! `JOIN::compare_costs_of_subquery_strategies` (sql/sql_optimizer.cc) does; scalar
//! subqueries and IN with GROUP BY.

use super::access_work::scale_tree;
use super::*;

impl<'a, 'b> Planner<'a, 'b> {
    /// A nest that is not flattened: IN→EXISTS (dependent, per outer row, correlated
    /// columns bound) against materialization for IN / NOT IN
    /// (`compare_costs_of_subquery_strategies`, §5.3).
    pub(super) fn nest_subquery(
        &self,
        n: usize,
        nest: &costlab_model::block::Nest,
        outer: &SubPlan,
    ) -> Result<(PlanNode, &'static str)> {
        let inner = nest.tables.iter().fold(0, |m, t| m | bit(*t));
        let all: u64 = (0..self.block.tables.len()).fold(0, |m, t| m | bit(t));
        let mut corr = 0u64;
        for j in &self.block.joins {
            for (x, y) in [(&j.a, &j.b), (&j.b, &j.a)] {
                if inner & bit(x.table) != 0 && inner & bit(y.table) == 0 {
                    corr |= bit(y.table);
                }
            }
        }
        let dep = self.ctx.plan_block(
            self.block,
            &Bound {
                plan_mask: inner,
                outer_tables: all & !inner,
                no_flatten: true,
                ..Bound::default()
            },
        )?;
        let (est_exec, true_exec) = self.executions_at(corr, outer, None);
        let cost_exists = est_exec * dep.cost;
        let uncorrelated_mat = matches!(nest.origin, NestOrigin::In | NestOrigin::NotIn);
        let mut how = "dependent subquery";
        let mut cost = cost_exists;
        let mut tree = dep.tree;
        let mut execs = true_exec;
        if uncorrelated_mat && self.ctx.db.env.materialization {
            let mat = self.ctx.plan_block(
                self.block,
                &Bound {
                    plan_mask: inner,
                    no_flatten: true,
                    ..Bound::default()
                },
            )?;
            let (create, row) = self
                .ctx
                .c
                .tmp(mat.rows * 8.0, self.ctx.db.env.max_heap_table_size);
            let cost_mat = mat.cost + create + mat.rows * row + est_exec * row;
            if cost_mat < cost_exists {
                how = "materialized subquery";
                cost = cost_mat;
                tree = mat.tree;
                execs = 1.0;
            }
        }
        scale_tree(&mut tree, execs);
        let mut node = PlanNode::leaf(
            Name::from_static(how),
            Cost::new(0.0, cost),
            dep.rows,
            Work {
                rows_out: execs,
                ..Work::default()
            },
        );
        node.details.push(format!(
            "nest {n} ({:?} {:?}), executions: {est_exec:.0}",
            nest.kind, nest.origin
        ));
        node.children.push(tree);
        Ok((node, how))
    }

    /// Estimated and true number of times a condition on tables `corr` runs: the prefix
    /// rows after the last of them joins (1 if uncorrelated). The true count leaves out
    /// `own`, the filter the subquery's value feeds: a row is tested before that filter
    /// drops it (Q20's `ps_availqty > (SELECT ...)` runs on every partsupp row reached,
    /// not on the 68.6 % that pass it).
    pub(super) fn executions_at(
        &self,
        corr: u64,
        outer: &SubPlan,
        own: Option<usize>,
    ) -> (f64, f64) {
        if corr == 0 {
            return (1.0, 1.0);
        }
        let before_own = |tables: u64, rows: f64| -> f64 {
            match own.and_then(|f| self.block.filters.get(f)) {
                Some(f)
                    if f.true_selectivity > 0.0
                        && f.tables.iter().all(|t| tables & bit(*t) != 0) =>
                {
                    rows / f.true_selectivity
                }
                _ => rows,
            }
        };
        // Inside a materialized nest: once per row of the nest's own join.
        for (s, (n, inner, _)) in self.sj_nests.iter().enumerate() {
            let mat = self.best.iter().any(|p| {
                matches!(
                    p.sj,
                    Some((x, SjStrategy::MaterializeLookup | SjStrategy::MaterializeScan)) if x == *n
                )
            });
            if mat && corr & !inner == 0 {
                let est = self.mat[s].map_or(1.0, |m| m.1);
                let true_rows = before_own(*inner, self.true_rows(*inner, &[]));
                return (est.max(1.0), true_rows.max(1.0));
            }
        }
        let mut seen = 0u64;
        let mut in_plan = 0u64;
        for (i, p) in self.best.iter().enumerate() {
            seen |= bit(p.t);
            in_plan |= bit(p.t);
            if corr & !seen & !self.bound.outer_tables == 0 {
                let true_rows = before_own(in_plan, self.true_rows(in_plan, &[]));
                let _ = i;
                return (p.prefix_rows.max(1.0), true_rows.max(1.0));
            }
        }
        (
            outer.rows.max(1.0),
            before_own(in_plan, outer.true_rows).max(1.0),
        )
    }

    /// A scalar subquery or an IN with GROUP BY: dependent (per outer row) when
    /// correlated, else materialized once.
    pub(super) fn scalar_subquery(
        &self,
        sq: &costlab_model::block::Subquery,
        outer: &SubPlan,
    ) -> Result<(PlanNode, &'static str)> {
        let bound = Bound {
            cols: sq
                .correlation
                .iter()
                .map(|(inner, _)| inner.clone())
                .collect(),
            ..Bound::default()
        };
        let sub = self.ctx.plan_block(&sq.block, &bound)?;
        let corr = sq
            .correlation
            .iter()
            .fold(0u64, |m, (_, o)| m | bit(o.table));
        let (est_exec, true_exec) = self.executions_at(corr, outer, sq.filter);
        let mut tree = sub.tree;
        let (how, cost, execs) = if corr == 0 {
            let (create, row) = self
                .ctx
                .c
                .tmp(sub.rows * 8.0, self.ctx.db.env.max_heap_table_size);
            let extra = if sq.kind == SubqueryKind::InGrouped {
                create + sub.rows * row + est_exec * row
            } else {
                0.0
            };
            ("subquery (once)", sub.cost + extra, 1.0)
        } else {
            ("dependent subquery", est_exec * sub.cost, true_exec)
        };
        scale_tree(&mut tree, execs);
        let mut node = PlanNode::leaf(
            Name::from_static(how),
            Cost::new(0.0, cost),
            sub.rows,
            Work::default(),
        );
        node.details.push(format!("executions: {est_exec:.0}"));
        node.children.push(tree);
        Ok((node, how))
    }
}
