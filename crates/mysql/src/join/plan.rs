//! The chosen join order made a plan: positions as EXPLAIN shows them, the `PlanNode`
//! tree with semijoin nests and subqueries (after `fix_semijoin_strategies`,
//! sql/sql_planner.cc, and opt_explain.cc's view of it), and the true rows of joins.

use super::*;

impl<'a, 'b> Planner<'a, 'b> {
    /// The chosen plan as positions, tree and work.
    pub(super) fn finish(&self) -> Result<SubPlan> {
        let best = &self.best;
        let last = best
            .last()
            .ok_or_else(|| Error::invalid("join", "empty plan"))?;
        // consider_plan stored the last position's cost with the sort cost included.
        let cost = last.prefix_cost.max(0.0);
        // True rows per prefix (for work): product of true filtered table rows, join
        // selectivities from distinct counts, multi-table filters, semijoin matches.
        let mut true_prefix = Vec::with_capacity(best.len());
        let mut in_plan: u64 = 0;
        let mut sj_done: Vec<usize> = Vec::new();
        for p in best {
            in_plan |= bit(p.t);
            true_prefix.push(self.true_rows(in_plan, &sj_done));
            if let Some((n, _)) = p.sj {
                sj_done.push(n);
                let last = true_prefix.len() - 1;
                true_prefix[last] = self.true_rows(in_plan, &sj_done);
            }
        }
        let mut order = Vec::with_capacity(best.len());
        let mut node: Option<PlanNode> = None;
        let mut strategies = Vec::new();
        // Nests closed by materialization: their tables run once, inside the
        // materialization, not per outer row.
        let materialized: Vec<usize> = best
            .iter()
            .filter_map(|p| match p.sj {
                Some((n, SjStrategy::MaterializeLookup | SjStrategy::MaterializeScan)) => Some(n),
                _ => None,
            })
            .collect();
        let mut stream: Option<Order> = None;
        let mut prefix_bytes = 0.0;
        for (i, p) in best.iter().enumerate() {
            let tab = &self.tabs[p.t];
            let mat_nest = tab.nest.filter(|n| materialized.contains(n));
            let executions = if i == 0 { 1.0 } else { true_prefix[i - 1] };
            let (op, index) = match p.access {
                Access::Scan => ("ALL", None),
                Access::Range => (
                    "range",
                    tab.quick.as_ref().map(|q| tab.keys[q.key].name.clone()),
                ),
                Access::Ref { key, .. } => ("ref", Some(tab.keys[key].name.clone())),
                Access::EqRef { key } => ("eq_ref", Some(tab.keys[key].name.clone())),
            };
            let bka = i > 0 && self.uses_bka(p);
            let mut work = if mat_nest.is_some() {
                Work::default()
            } else {
                self.access_work(
                    p,
                    executions,
                    true_prefix[i],
                    &mut stream,
                    prefix_bytes,
                    bka,
                )
            };
            prefix_bytes += tab.row_bytes;
            if matches!(p.sj, Some((_, SjStrategy::MaterializeScan))) {
                // Rows come from the temporary table's scan.
                stream = None;
            }
            if let Some((_, st)) = p.sj {
                strategies.push(st);
                work.rows_out = true_prefix[i];
            }
            let mut leaf = PlanNode::leaf(
                Name::from_static(op),
                Cost::new(0.0, p.prefix_cost),
                p.rows_fetched,
                work,
            );
            leaf.relation = Some(tab.alias.clone());
            leaf.index = index.clone();
            leaf.width = tab.row_bytes;
            leaf.details
                .push(format!("filtered: {:.2}", p.filter_effect * 100.0));
            leaf.details
                .push(format!("prefix rows: {:.0}", p.prefix_rows));
            if matches!(p.access, Access::Range) && tab.quick.as_ref().is_some_and(|q| q.dsmrr) {
                // EXPLAIN's Extra says so, and the reads differ (rowids sorted per fill).
                leaf.details.push("Using MRR".into());
            }
            if p.jbuf {
                leaf.details
                    .push("Using join buffer (Block Nested Loop)".into());
            } else if bka {
                leaf.details
                    .push("Using join buffer (Batched Key Access)".into());
            }
            if let Some((n, st)) = p.sj {
                leaf.details.push(format!("semijoin: {st:?}"));
                if mat_nest.is_some() {
                    let s = self.sj_nests.iter().position(|x| x.0 == n);
                    if let Some(tree) = s.and_then(|s| self.mat_trees[s].clone()) {
                        // Lookups (or the scan) of the temporary table per outer row.
                        let first = best
                            .iter()
                            .position(|q| self.tabs[q.t].nest == Some(n))
                            .unwrap_or(i);
                        leaf.work.rows_examined = if first == 0 {
                            1.0
                        } else {
                            true_prefix[first - 1]
                        };
                        leaf.children.push(tree);
                    }
                }
            }
            order.push(PositionInfo {
                alias: tab.alias.to_string(),
                access: op,
                index: index.map(|n| n.to_string()),
                rows_fetched: p.rows_fetched,
                filter_effect: p.filter_effect,
                prefix_cost: p.prefix_cost,
                prefix_rows: p.prefix_rows,
                join_buffer: p.jbuf,
                strategy: p.sj.map(|x| x.1),
            });
            node = Some(match node {
                None => leaf,
                Some(prev) => {
                    let mut nl = PlanNode::leaf(
                        Name::from_static("Nested loop"),
                        Cost::new(0.0, p.prefix_cost),
                        p.prefix_rows,
                        Work {
                            rows_out: true_prefix[i],
                            ..Work::default()
                        },
                    );
                    nl.children = vec![prev, leaf];
                    nl
                }
            });
        }
        let mut root = node.ok_or_else(|| Error::invalid("join", "empty plan"))?;
        let true_rows = *true_prefix.last().unwrap_or(&0.0);
        if self.needs_sort {
            let n = true_rows.max(1.0);
            let mut sort = PlanNode::leaf(
                Name::from_static("Sort"),
                Cost::new(cost, cost),
                last.prefix_rows,
                Work {
                    rows_examined: n,
                    comparisons: n * n.log2().max(1.0),
                    rows_out: self.block.true_groups.max(1.0),
                    ..Work::default()
                },
            );
            if self.sort_by_table != Some(best[0].t) {
                sort.details.push("Using temporary; Using filesort".into());
            } else {
                sort.details.push("Using filesort".into());
            }
            sort.children.push(root);
            root = sort;
        }
        Ok(SubPlan {
            order,
            strategies,
            subqueries: Vec::new(),
            cost,
            rows: last.prefix_rows,
            true_rows,
            tree: root,
        })
    }

    /// True rows of the join of `tables` (the table set), with semijoin nests in `done`
    /// reduced to their outer rows.
    pub(super) fn true_rows(&self, tables: u64, done: &[usize]) -> f64 {
        let mut inner_done: u64 = 0;
        let mut factor = 1.0;
        for &n in done {
            let nest = &self.block.nests[n];
            for &t in &nest.tables {
                inner_done |= bit(t);
            }
            factor *= nest.true_match;
        }
        let counted = tables & !inner_done;
        let mut rows = factor;
        for (t, tab) in self.tabs.iter().enumerate() {
            if counted & bit(t) != 0 {
                rows *= tab.rows * tab.true_local;
            }
        }
        for cl in &self.classes {
            let mut ndvs: Vec<f64> = cl
                .iter()
                .filter(|c| counted & bit(c.table) != 0)
                .map(|c| self.tabs[c.table].ndv(&c.column))
                .collect();
            if ndvs.len() < 2 {
                continue;
            }
            ndvs.sort_by(|a, b| b.total_cmp(a));
            for d in &ndvs[..ndvs.len() - 1] {
                rows /= d.max(1.0);
            }
        }
        for f in &self.block.filters {
            if f.tables.len() > 1 && f.tables.iter().all(|t| counted & bit(*t) != 0) {
                rows *= f.true_selectivity;
            }
        }
        // Correlated equalities (one execution of a dependent subquery): the rows of one
        // value combination of the bound columns.
        for (t, tab) in self.tabs.iter().enumerate() {
            if counted & bit(t) == 0 {
                continue;
            }
            let cols: Vec<&str> = self
                .bound
                .cols
                .iter()
                .filter(|c| c.table == t)
                .map(|c| c.column.as_str())
                .collect();
            if !cols.is_empty() {
                rows /= tab.distinct_of(&cols);
            }
        }
        rows.max(0.0)
    }
}
