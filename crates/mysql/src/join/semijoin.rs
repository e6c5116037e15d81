//! The semijoin strategies of sql/sql_planner.cc (§6): `advance_sj_state`'s FirstMatch,
//! LooseScan, MaterializeLookup, MaterializeScan and DuplicateWeedout, with the nest's
//! materialization cost and LooseScan's cost.

use super::*;

impl<'a, 'b> Planner<'a, 'b> {
    /// Materialization of flattened nest `i` (§6): the nest planned alone, its rows and
    /// distinct rows, and the temporary table's row cost.
    #[allow(clippy::type_complexity)]
    pub(super) fn materialization_cost(
        &self,
        i: usize,
    ) -> Result<(Option<(f64, f64, f64, f64)>, Option<PlanNode>)> {
        let (_, inner, _) = self.sj_nests[i];
        let b = Bound {
            plan_mask: inner,
            no_flatten: true,
            ..Bound::default()
        };
        let sub = self.ctx.plan_block(self.block, &b)?;
        let mat_rows = sub.rows.max(1.0);
        // calculate_materialization_costs: distinct_rows = min(mat_rows, the product of
        // quick_condition_rows (the table's records, or its range estimate; no condition
        // filtering) over the tables in the select list: the inner side of the IN
        // equalities).
        let mut sel = 1.0;
        for j in &self.block.joins {
            for (x, y) in [(&j.a, &j.b), (&j.b, &j.a)] {
                if inner & bit(x.table) != 0 && inner & bit(y.table) == 0 {
                    sel *= self.tabs[x.table].found_records();
                }
            }
        }
        let distinct = mat_rows.min(sel.max(1.0));
        let (create, row) = self
            .ctx
            .c
            .tmp(distinct * 8.0, self.ctx.db.env.max_heap_table_size);
        let cost = sub.cost + create + mat_rows * row;
        let mut node = PlanNode::leaf(
            Name::from_static("Materialize (semijoin)"),
            Cost::new(cost, cost),
            mat_rows,
            Work {
                rows_examined: sub.true_rows,
                rows_out: sub.true_rows,
                ..Work::default()
            },
        );
        node.children.push(sub.tree);
        Ok((Some((cost, mat_rows, distinct, row)), Some(node)))
    }

    /// `advance_sj_state` after the last push (§6). Returns false if the prefix is
    /// invalid.
    pub(super) fn advance_sj_state(&mut self) -> bool {
        let i = self.positions.len() - 1;
        let t = self.positions[i].t;
        let env = &self.ctx.db.env;
        let rec = self.rec();
        let prefix_mask = Self::mask_of(&self.positions);
        for s in 0..self.sj_nests.len() {
            let (n, inner, outer) = self.sj_nests[s];
            if (inner | outer) & bit(t) == 0 || prefix_mask & inner != inner {
                continue;
            }
            if self.positions[..i]
                .iter()
                .any(|p| p.sj.is_some_and(|(x, _)| x == n))
            {
                continue;
            }
            let first = self
                .positions
                .iter()
                .position(|p| inner & bit(p.t) != 0)
                .expect("inner present");
            let (c0, r0) = if first == 0 {
                (0.0, 1.0)
            } else {
                let p = &self.positions[first - 1];
                (p.prefix_cost, p.prefix_rows)
            };
            let last_inner = self
                .positions
                .iter()
                .rposition(|p| inner & bit(p.t) != 0)
                .expect("inner present");
            let contiguous = self.positions[first..=last_inner]
                .iter()
                .all(|p| inner & bit(p.t) != 0);
            let before_mask = Self::mask_of(&self.positions[..first]);
            let outer_before = outer & !self.avail(before_mask) == 0;
            let outer_done = outer & !self.avail(prefix_mask) == 0;
            let completing_inner = inner & bit(t) != 0;
            let mut choice: Option<(SjStrategy, f64, f64)> = None;
            fn take(
                choice: &mut Option<(SjStrategy, f64, f64)>,
                st: SjStrategy,
                cost: f64,
                rows: f64,
                force: bool,
            ) {
                if force || choice.as_ref().is_none_or(|c| cost < c.1) {
                    *choice = Some((st, cost, rows));
                }
            }
            if completing_inner && contiguous && outer_before && env.firstmatch {
                // semijoin_firstmatch_loosescan_access_paths: a position of the range that
                // used join buffering is re-costed by best_access_path (buffering allowed
                // only in a single-table nest); the others keep their access.
                let single = inner.count_ones() == 1;
                let mut tmp: Vec<Pos> = self.positions[..first].to_vec();
                let mut cost = c0;
                for k in first..=i {
                    let p = if self.positions[k].jbuf {
                        self.best_access_path(self.positions[k].t, &tmp, single)
                    } else {
                        self.positions[k].clone()
                    };
                    cost += p.read_cost + rec * p.rows_before_filter;
                    tmp.push(p);
                }
                take(&mut choice, SjStrategy::FirstMatch, cost, r0, false);
            }
            if completing_inner && contiguous && !outer_before && env.loosescan {
                if let Some((cost, rows)) = self.loosescan_cost(first, i, inner, c0, r0) {
                    if choice.is_none() {
                        take(&mut choice, SjStrategy::LooseScan, cost, rows, false);
                    }
                }
            }
            if completing_inner && contiguous && env.materialization {
                if let Some((mat, _rows, distinct, row)) = self.mat[s] {
                    if outer_before {
                        take(
                            &mut choice,
                            SjStrategy::MaterializeLookup,
                            c0 + mat + r0 * row,
                            r0,
                            false,
                        );
                    } else {
                        take(
                            &mut choice,
                            SjStrategy::MaterializeScan,
                            c0 + mat + r0 * distinct * row,
                            r0 * distinct,
                            false,
                        );
                    }
                }
            }
            if outer_done && (env.duplicateweedout || choice.is_none()) {
                let p = &self.positions[i];
                let mut outer_fanout = 1.0;
                let mut cap = 1.0;
                for q in &self.positions[first..=i] {
                    if inner & bit(q.t) == 0 {
                        outer_fanout *= q.rows_fetched * q.filter_effect;
                        cap *= self.tabs[q.t].stats.records.max(1.0);
                    }
                }
                let inner_fanout = p.prefix_rows / (r0 * outer_fanout).max(f64::MIN_POSITIVE);
                let outer_fanout = outer_fanout.min(cap);
                let row_size: f64 = self.positions[first..=i]
                    .iter()
                    .filter(|q| inner & bit(q.t) == 0)
                    .map(|q| self.tabs[q.t].stats.ref_length)
                    .sum::<f64>()
                    + if first > 0 { 8.0 } else { 0.0 };
                let (create, row) = self
                    .ctx
                    .c
                    .tmp(r0 * outer_fanout * row_size, env.max_heap_table_size);
                let writes = r0 * outer_fanout;
                let lookups = r0 * outer_fanout * inner_fanout.max(1.0);
                let cost = p.prefix_cost + create + (writes + lookups) * row;
                let force = choice.is_none();
                take(
                    &mut choice,
                    SjStrategy::DuplicateWeedout,
                    cost,
                    writes,
                    force,
                );
            }
            if let Some((st, cost, rows)) = choice {
                let p = &mut self.positions[i];
                p.prefix_cost = cost;
                p.prefix_rows = rows;
                p.sj = Some((n, st));
            }
        }
        true
    }

    /// LooseScan driven by the first inner table through a covering index led by the IN
    /// column (§6): index_scan_cost over all rows, N / rec_per_key distinct groups.
    pub(super) fn loosescan_cost(
        &self,
        first: usize,
        last: usize,
        inner: u64,
        c0: f64,
        r0: f64,
    ) -> Option<(f64, f64)> {
        let t = self.positions[first].t;
        let tab = &self.tabs[t];
        let in_cols: Vec<&str> = self
            .block
            .joins
            .iter()
            .flat_map(|j| [(&j.a, &j.b), (&j.b, &j.a)])
            .filter(|(x, y)| x.table == t && inner & bit(y.table) == 0)
            .map(|(x, _)| x.column.as_str())
            .collect();
        let (_, k) = tab
            .keys
            .iter()
            .enumerate()
            .find(|(_, k)| k.covering && in_cols.contains(&k.cols[0].as_str()))?;
        let h = tab.handler(self.c());
        let n = h.records();
        let distinct = n / k.stats.rec_per_key.first().copied().unwrap_or(1.0).max(1.0);
        let rec = self.rec();
        let mut cost = c0 + r0 * (h.index_scan_cost(k.stats.key_length, k.f_idx, n) + rec * n);
        let mut tmp: Vec<Pos> = self.positions[..first].to_vec();
        let mut drive = self.positions[first].clone();
        drive.rows_fetched = distinct;
        drive.filter_effect = 1.0;
        drive.prefix_rows = r0 * distinct;
        drive.prefix_cost = cost;
        tmp.push(drive);
        for q in &self.positions[first + 1..=last] {
            let p = self.best_access_path(q.t, &tmp, false);
            cost += p.read_cost + rec * p.rows_before_filter;
            tmp.push(p);
        }
        Some((cost, r0 * distinct))
    }
}
