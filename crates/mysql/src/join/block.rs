//! A block's tables digested for join planning and the block planned: MySQL's
//! `JOIN::make_join_plan` and `make_join_statistics` (sql/sql_optimizer.cc): each
//! table's single-table access (`JOIN_TAB`, its range `quick`), derived tables, the
//! multiple equalities of the join edges; then the search and its subqueries.

use super::*;

impl<'a> Ctx<'a> {
    pub(super) fn rec(&self) -> f64 {
        self.c.c.rec
    }

    /// Digests the block's tables: single-table planning of the local predicates.
    pub(super) fn tabs(&self, block: &QueryBlock) -> Result<(Vec<Tab<'a>>, Vec<PlanNode>)> {
        let mut tabs = Vec::with_capacity(block.tables.len());
        let mut derived_nodes = Vec::new();
        for tr in &block.tables {
            let owned;
            let owned_table;
            let (prepared, table, columns): (&Prepared, &Table, Cow<'a, [Column]>) =
                match &tr.source {
                    Source::Base => {
                        let i = self.db.table(&tr.table)?;
                        let db: &'a MysqlJoinPlanner = self.db;
                        (
                            &db.tables[i],
                            &db.raw[i],
                            Cow::Borrowed(&db.raw[i].columns[..]),
                        )
                    }
                    Source::Derived {
                        block: dblock,
                        columns,
                    } => {
                        let sub = self.plan_block(dblock, &Bound::default())?;
                        let rows = sub.rows.max(1.0);
                        let true_rows = dblock.true_groups.max(1.0);
                        let row = 12.0;
                        let (create, row_cost) =
                            self.c.tmp(rows * row, self.db.env.max_heap_table_size);
                        let mat = sub.cost + create + rows * row_cost;
                        let mut node = PlanNode::leaf(
                            Name::from_static("Materialize (derived)"),
                            Cost::new(mat, mat),
                            rows,
                            Work {
                                rows_examined: true_rows,
                                rows_out: true_rows,
                                ..Work::default()
                            },
                        );
                        node.relation = Some(tr.alias.clone());
                        node.children.push(sub.tree);
                        derived_nodes.push(node);
                        owned_table = derived_table(&tr.table, columns, rows, true_rows);
                        owned = Prepared::owned(owned_table.clone(), self.db.env.server.clone())?
                            .with_detail(Detail::Omit);
                        let columns = Cow::Owned(owned_table.columns.clone());
                        (&owned, &owned_table, columns)
                    }
                };
            tabs.push(self.tab(tr, prepared, table, columns)?);
        }
        Ok((tabs, derived_nodes))
    }

    pub(super) fn tab(
        &self,
        tr: &costlab_model::block::TableRef,
        p: &Prepared,
        table: &Table,
        columns: Cow<'a, [Column]>,
    ) -> Result<Tab<'a>> {
        let query = Query {
            table: table.name.clone(),
            select: tr.uses.iter().map(|s| s.to_string()).collect(),
            predicates: tr.preds.clone(),
            order_by: Vec::new(),
            limit: None,
        };
        let planned = p.plan(&query, self.knobs)?;
        let stats = table.mysql.clone().unwrap_or(MysqlTable {
            records: table.rows,
            clustered_pages: 1.0,
            secondary_pages: 0.0,
            page_bytes: 16384.0,
            ref_length: 4.0,
        });
        let env = &self.db.env.server;
        let f_tab = env.table_in_memory.unwrap_or_else(|| {
            estimate_in_memory_buffer(
                stats.clustered_pages * stats.page_bytes,
                env.innodb_buffer_pool_size,
            )
        });
        let pk: Vec<&str> = table
            .indexes
            .iter()
            .find(|i| i.primary)
            .map(|i| i.columns.iter().map(String::as_str).collect())
            .unwrap_or_default();
        let keys: Vec<Key> = table
            .indexes
            .iter()
            .map(|i| {
                let cols: Vec<String> = i.columns.clone();
                let covering = !i.primary
                    && tr
                        .uses
                        .iter()
                        .all(|u| i.columns.iter().any(|c| c == u) || pk.contains(&u.as_str()));
                let stats = i.mysql.clone().unwrap_or(MysqlIndex {
                    key_length: 4.0,
                    leaf_pages: 1.0,
                    rec_per_key: Vec::new(),
                });
                let f_idx = env
                    .index_in_memory
                    .iter()
                    .find(|(n, _)| n == &i.name)
                    .map(|x| x.1)
                    .or(env.table_in_memory)
                    .unwrap_or_else(|| {
                        let size = if i.primary {
                            stats_pages(&table.mysql, true)
                        } else {
                            stats_pages(&table.mysql, false)
                        };
                        estimate_in_memory_buffer(size, env.innodb_buffer_pool_size)
                    });
                Key {
                    name: Name::new(&i.name),
                    cols,
                    unique: i.unique || i.primary,
                    clustered: i.primary,
                    stats,
                    covering,
                    f_idx,
                }
            })
            .collect();
        // The range optimizer's winner: the cheapest range-like candidate under the
        // table-scan bar (strict), as test_quick_select keeps it (§4.5).
        let scan = planned
            .find("table_scan")
            .ok_or_else(|| Error::invalid("single-table plan", "has no table scan"))?;
        let bar = scan.plan.cost.total;
        let mut quick: Option<Quick> = None;
        let mut quick_rows = Vec::new();
        for cand in &planned.candidates {
            let k = cand.key.as_str();
            if !(k.starts_with("range:") || k.starts_with("dsmrr:") || k.starts_with("covering:")) {
                continue;
            }
            let Some(ki) = cand
                .plan
                .index
                .as_ref()
                .and_then(|n| keys.iter().position(|x| x.name == *n))
            else {
                continue;
            };
            if !quick_rows.iter().any(|(x, _)| *x == ki) {
                quick_rows.push((ki, cand.plan.rows));
            }
            let cost = cand.plan.cost.total;
            // choose_mrr_impl keeps DS-MRR at a tie with the default implementation on its
            // index; with mrr_cost_based off its cost is the cheaper of the two, so a tie
            // means "forced" (§4.4).
            let dsmrr = k.starts_with("dsmrr:");
            let beats = |q: &Quick| cost < q.cost || (dsmrr && q.key == ki && cost == q.cost);
            if cost < bar && quick.as_ref().is_none_or(beats) {
                quick = Some(Quick {
                    key: ki,
                    rows: cand.plan.rows,
                    cost,
                    work: cand.plan.work.clone(),
                    dsmrr,
                });
            }
        }
        // Filtering of the constant predicates, per column (§5.2; Item_field::
        // get_cond_filter_default_value: the best quick_rows of an index led by it).
        let records = stats.records.max(1.0);
        let mut col_filter: Vec<(String, f64)> = Vec::new();
        let mut const_eq: Vec<String> = Vec::new();
        for pr in &tr.preds {
            let col = pr.column();
            if let Predicate::Cmp { op: CmpOp::Eq, .. } = pr {
                const_eq.push(col.to_string());
            }
            let from_range = keys
                .iter()
                .enumerate()
                .filter(|(_, k)| k.cols[0] == col)
                .filter_map(|(ki, _)| quick_rows.iter().find(|(x, _)| *x == ki))
                .map(|(_, r)| (r / records).min(1.0))
                .fold(f64::INFINITY, f64::min);
            let f = if from_range.is_finite() {
                from_range
            } else {
                default_filter(pr)
            };
            match col_filter.iter_mut().find(|(c, _)| c == col) {
                Some((_, old)) => {
                    if !from_range.is_finite() {
                        *old *= f;
                    }
                }
                None => col_filter.push((col.to_string(), f)),
            }
        }
        let rows = table.rows.max(0.0);
        let true_simple = if rows > 0.0 {
            (scan.plan.work.rows_out / rows).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let row_bytes: f64 = tr
            .uses
            .iter()
            .filter_map(|u| table.columns.iter().find(|c| c.name == *u))
            .map(|c| c.stats.avg_width.max(1.0))
            .sum();
        Ok(Tab {
            alias: tr.alias.clone(),
            stats,
            rows,
            columns,
            f_tab,
            keys,
            quick,
            scan_work: scan.plan.work.clone(),
            const_eq,
            col_filter,
            true_local: true_simple,
            row_bytes,
            after: 0,
            nest: tr.nest,
        })
    }

    /// Plans a block (or part of one) and its subqueries.
    pub(super) fn plan_block(&self, block: &QueryBlock, bound: &Bound) -> Result<SubPlan> {
        let (mut tabs, derived_nodes) = self.tabs(block)?;
        for (i, tr) in block.tables.iter().enumerate() {
            tabs[i].after = tr.outer_join_after.iter().fold(0, |m, t| m | bit(*t));
        }
        for f in &block.filters {
            if let [t] = f.tables[..] {
                tabs[t].true_local *= f.true_selectivity;
            }
        }
        let env = &self.db.env;
        // Which nests flatten into semijoins (§6); the others run as subqueries.
        let flattened = |n: usize| -> bool {
            let nest = &block.nests[n];
            !bound.no_flatten
                && env.semijoin
                && nest.kind == NestKind::Semi
                && (nest.origin == NestOrigin::In || env.exists_to_semijoin)
        };
        let mut plan_mask: u64 = if bound.plan_mask != 0 {
            bound.plan_mask
        } else {
            (0..block.tables.len()).fold(0, |m, t| m | bit(t))
        };
        for (n, nest) in block.nests.iter().enumerate() {
            if bound.plan_mask == 0 && !flattened(n) {
                for &t in &nest.tables {
                    plan_mask &= !bit(t);
                }
            }
        }
        let classes = equality_classes(block);
        let mut order: Vec<usize> = (0..block.tables.len())
            .filter(|t| plan_mask & bit(*t) != 0)
            .collect();
        // Join_tab_compare_default: dependencies first, then ascending found_records.
        order.sort_by(|a, b| {
            let (ta, tb) = (&tabs[*a], &tabs[*b]);
            (ta.after != 0)
                .cmp(&(tb.after != 0))
                .then(ta.found_records().total_cmp(&tb.found_records()))
        });
        let mut sj_nests = Vec::new();
        if bound.plan_mask == 0 {
            for (n, nest) in block.nests.iter().enumerate() {
                if !flattened(n) {
                    continue;
                }
                let inner = nest.tables.iter().fold(0, |m, t| m | bit(*t));
                let mut outer = 0;
                for j in &block.joins {
                    for (x, y) in [(&j.a, &j.b), (&j.b, &j.a)] {
                        if inner & bit(x.table) != 0 && inner & bit(y.table) == 0 {
                            outer |= bit(y.table);
                        }
                    }
                }
                sj_nests.push((n, inner, outer));
            }
        }
        let sort_tables: Vec<usize> = block
            .group_by
            .iter()
            .chain(&block.order_by)
            .map(|c| c.table)
            .collect();
        let sort_by_table = match sort_tables.first() {
            Some(&t)
                if sort_tables.iter().all(|x| *x == t)
                    && !block.order_by_expression
                    && !block.group_by_expression =>
            {
                Some(t)
            }
            _ => None,
        };
        let mut p = Planner {
            ctx: self,
            block,
            tabs,
            classes,
            bound,
            order,
            sj_nests,
            mat: Vec::new(),
            mat_trees: Vec::new(),
            // GROUP BY and ORDER BY belong to the whole block: a part of it planned for a
            // semijoin nest or a dependent subquery sorts nothing.
            needs_sort: bound.plan_mask == 0 && block.needs_sort(),
            sort_by_table,
            positions: Vec::new(),
            best: Vec::new(),
            best_read: f64::MAX,
            binds: Vec::new(),
            key_deps: Vec::new(),
            dependent_cmp: dependent_comparisons(block),
        };
        p.binds = p.part_binds();
        p.key_deps = (0..p.tabs.len()).map(|t| p.key_dependent(t)).collect();
        for i in 0..p.sj_nests.len() {
            let (m, tree) = p.materialization_cost(i)?;
            p.mat.push(m);
            p.mat_trees.push(tree);
        }
        p.greedy_search()?;
        let mut sub = p.finish()?;
        // Non-flattened nests and subqueries, each costed on its own.
        let mut extra_nodes = derived_nodes;
        if bound.plan_mask == 0 {
            for (n, nest) in block.nests.iter().enumerate() {
                if flattened(n) {
                    continue;
                }
                let (node, how) = p.nest_subquery(n, nest, &sub)?;
                sub.subqueries.push(how);
                extra_nodes.push(node);
                if nest.kind == NestKind::Semi {
                    sub.true_rows *= nest.true_match;
                } else {
                    sub.true_rows *= 1.0 - nest.true_match;
                }
            }
            for sq in &block.subqueries {
                let (node, how) = p.scalar_subquery(sq, &sub)?;
                sub.subqueries.push(how);
                extra_nodes.push(node);
            }
        }
        sub.tree.children.extend(extra_nodes);
        Ok(sub)
    }
}

/// Which filters of `block` compare with a dependent (correlated) subquery. MySQL's
/// `Item_func::contributes_to_filter` (item_func.cc, 5.7 and 8.0) gives such a comparison
/// no filtering effect: a subquery operand must be constant (`const_item()` in 5.7,
/// `const_for_execution()` in 8.0), and a correlated one depends on a table of the outer
/// query ("too uncertain", WL#7384). An uncorrelated one keeps its operator's default.
fn dependent_comparisons(block: &QueryBlock) -> Vec<bool> {
    let mut dependent = vec![false; block.filters.len()];
    for sq in &block.subqueries {
        if let (SubqueryKind::Scalar, Some(f)) = (&sq.kind, sq.filter) {
            if !sq.correlation.is_empty() {
                if let Some(d) = dependent.get_mut(f) {
                    *d = true;
                }
            }
        }
    }
    dependent
}

/// `Item_func::get_filtering_effect` defaults of one sargable predicate (no index range).
fn default_filter(p: &Predicate) -> f64 {
    match p {
        Predicate::Cmp { op: CmpOp::Eq, .. } => COND_FILTER_EQUALITY,
        Predicate::Cmp { .. } => FilterKind::Ineq.mysql_filter(),
        Predicate::Between { .. } => FilterKind::Between.mysql_filter(),
        Predicate::In { values, .. } => FilterKind::InList(values.len()).mysql_filter(),
    }
}

fn stats_pages(m: &Option<MysqlTable>, clustered: bool) -> f64 {
    m.as_ref().map_or(0.0, |m| {
        if clustered {
            m.clustered_pages * m.page_bytes
        } else {
            m.secondary_pages * m.page_bytes
        }
    })
}

/// A materialized derived table (Q15's view) as a table with MySQL 5.7's generated key
/// `<auto_key0>` on its first column.
fn derived_table(name: &str, columns: &[Name], est_rows: f64, true_rows: f64) -> Table {
    let row = 12.0;
    let pages = (est_rows * row / 15360.0).ceil().max(1.0);
    let cols: Vec<Column> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| Column {
            name: c.to_string(),
            ty: if i == 0 {
                ColumnType::Int4
            } else {
                ColumnType::Numeric
            },
            not_null: true,
            stats: ColumnStats {
                n_distinct: -1.0,
                avg_width: if i == 0 { 4.0 } else { 8.0 },
                ..ColumnStats::default()
            },
        })
        .collect();
    Table {
        name: name.into(),
        rows: true_rows,
        indexes: vec![Index {
            name: "<auto_key0>".into(),
            columns: vec![columns[0].to_string()],
            include: Vec::new(),
            unique: false,
            primary: false,
            pg: None,
            mysql: Some(MysqlIndex {
                key_length: 4.0,
                leaf_pages: (est_rows / 900.0).ceil().max(1.0),
                rec_per_key: vec![1.0],
            }),
            expressions: Vec::new(),
            method: Default::default(),
        }],
        columns: cols,
        pg: None,
        mysql: Some(MysqlTable {
            records: est_rows,
            clustered_pages: pages,
            secondary_pages: (est_rows / 900.0).ceil().max(1.0),
            page_bytes: 16384.0,
            ref_length: 6.0,
        }),
    }
}

/// Classes of columns made equal by the join edges (MySQL's multiple equalities).
fn equality_classes(block: &QueryBlock) -> Vec<Vec<ColRef>> {
    let mut classes: Vec<Vec<ColRef>> = Vec::new();
    for j in &block.joins {
        let ia = classes.iter().position(|c| c.contains(&j.a));
        let ib = classes.iter().position(|c| c.contains(&j.b));
        match (ia, ib) {
            (None, None) => classes.push(vec![j.a.clone(), j.b.clone()]),
            (Some(i), None) => classes[i].push(j.b.clone()),
            (None, Some(i)) => classes[i].push(j.a.clone()),
            (Some(i), Some(k)) if i != k => {
                let moved = classes.remove(i.max(k));
                classes[i.min(k)].extend(moved);
            }
            _ => {}
        }
    }
    classes
}
