//! `best_access_path` (sql/sql_planner.cc, §5.2): ref / eq_ref over bound key prefixes,
//! `prev_record_reads`, `worst_seeks`, `calculate_condition_filter`, the scan or range
//! alternative with join buffering, and the key dependencies the search respects.

use super::*;

impl<'a, 'b> Planner<'a, 'b> {
    /// How each key column of each table can be bound (`binds`).
    pub(super) fn part_binds(&self) -> Vec<Vec<Vec<PartBind>>> {
        let bind = |t: usize, col: &str| {
            if self.tabs[t].const_eq.iter().any(|c| c == col)
                || self
                    .bound
                    .cols
                    .iter()
                    .any(|c| c.table == t && c.column == col)
            {
                PartBind::Const
            } else {
                self.classes
                    .iter()
                    .position(|cl| cl.iter().any(|c| c.table == t && c.column == col))
                    .map_or(PartBind::Unbound, PartBind::Class)
            }
        };
        self.tabs
            .iter()
            .enumerate()
            .map(|(t, tab)| {
                tab.keys
                    .iter()
                    .map(|k| k.cols.iter().map(|c| bind(t, c)).collect())
                    .collect()
            })
            .collect()
    }

    /// How a key column of table `t` bound as `how` is bound with `prefix` joined:
    /// `Some(tables it depends on)` (0 = constant), `None` if unbound.
    pub(super) fn bound_by(&self, t: usize, how: PartBind, prefix: u64) -> Option<u64> {
        let class = match how {
            PartBind::Const => return Some(0),
            PartBind::Unbound => return None,
            PartBind::Class(i) => &self.classes[i],
        };
        let mut dep = None;
        for m in class {
            if m.table == t {
                continue;
            }
            if prefix & bit(m.table) != 0 {
                dep = Some(bit(m.table));
                break;
            }
            if self.bound.outer_tables & bit(m.table) != 0 {
                dep = Some(0);
            }
        }
        dep
    }

    /// `prev_record_reads`: distinct prefix combinations a lookup depends on (§5.2).
    pub(super) fn prev_record_reads(&self, prefix: &[Pos], mut found_ref: u64) -> f64 {
        let mut found = 1.0;
        for p in prefix.iter().rev() {
            let fanout = p.rows_fetched * p.filter_effect;
            if found_ref & bit(p.t) != 0 {
                found_ref |= p.ref_depend;
                if fanout > f64::EPSILON {
                    found *= fanout;
                }
            } else if fanout < 1.0 {
                found *= fanout;
            }
        }
        found
    }

    /// `worst_seeks = max(min(page_read_cost(N/10), 3·table_scan_cost), page_read_cost(2))`.
    pub(super) fn worst_seeks(&self, t: usize) -> f64 {
        let h = self.tabs[t].handler(self.c());
        h.page_read_cost(h.records() / 10.0)
            .min(3.0 * h.table_scan_cost())
            .max(h.page_read_cost(2.0))
    }

    /// `calculate_condition_filter`: filtering of the conditions on `t` that are not used
    /// by the access (`used` columns), with `prefix` joined before it (§5.2).
    pub(super) fn condition_filter(
        &self,
        t: usize,
        used: &[&str],
        prefix: u64,
        fanout: f64,
    ) -> f64 {
        if !self.ctx.db.env.condition_fanout_filter {
            return 1.0;
        }
        let tab = &self.tabs[t];
        let avail = self.avail(prefix) | bit(t);
        let mut f = 1.0;
        for (col, cf) in &tab.col_filter {
            if !used.contains(&col.as_str()) {
                f *= cf;
            }
        }
        for (fi, fl) in self.block.filters.iter().enumerate() {
            if self.dependent_cmp[fi] {
                continue;
            }
            if fl.tables.contains(&t) && fl.tables.iter().all(|x| avail & bit(*x) != 0) {
                // Counted at the last of its tables to join.
                let others_before = fl
                    .tables
                    .iter()
                    .all(|x| *x == t || self.avail(prefix) & bit(*x) != 0);
                if others_before {
                    f *= fl.kind.mysql_filter();
                }
            }
        }
        // Equalities with joined tables not used by the access (Item_equal).
        for cl in &self.classes {
            let Some(mine) = cl.iter().find(|c| c.table == t) else {
                continue;
            };
            if used.contains(&mine.column.as_str()) {
                continue;
            }
            if !cl
                .iter()
                .any(|c| c.table != t && self.avail(prefix) & bit(c.table) != 0)
            {
                continue;
            }
            let records = tab.stats.records.max(1.0);
            let by_index = tab
                .keys
                .iter()
                .filter(|k| k.cols[0] == mine.column)
                .filter_map(|k| k.stats.rec_per_key.first())
                .map(|r| (r / records).min(1.0))
                .fold(f64::INFINITY, f64::min);
            f *= if by_index.is_finite() {
                by_index
            } else {
                COND_FILTER_EQUALITY
            };
        }
        // Never below 0.05 rows (calculate_condition_filter's floor).
        if fanout > 0.0 && f * fanout < 0.05 {
            f = 0.05 / fanout;
        }
        f.min(1.0)
    }

    /// `best_access_path(tab, prefix)` (§5.2).
    pub(super) fn best_access_path(&self, t: usize, prefix: &[Pos], allow_jbuf: bool) -> Pos {
        let tab = &self.tabs[t];
        let c = self.c();
        let h = tab.handler(c);
        let rec = self.rec();
        let prefix_mask = Self::mask_of(prefix);
        let prefix_rowcount = prefix.last().map_or(1.0, |p| p.prefix_rows);
        // (a) ref / eq_ref.
        struct RefCand {
            key: usize,
            parts: usize,
            eq: bool,
            pk_full: bool,
            fanout: f64,
            read: f64,
            depend: u64,
        }
        let mut best_ref: Option<RefCand> = None;
        for (ki, k) in tab.keys.iter().enumerate() {
            let mut parts = 0;
            let mut depend = 0;
            for &how in &self.binds[t][ki] {
                match self.bound_by(t, how, prefix_mask) {
                    Some(d) => {
                        depend |= d;
                        parts += 1;
                    }
                    None => break,
                }
            }
            if parts == 0 {
                continue;
            }
            let eq = k.unique && parts == k.cols.len();
            let (fanout, read) = if eq {
                (
                    1.0,
                    self.prev_record_reads(prefix, depend) * h.page_read_cost(1.0),
                )
            } else {
                let quick_reuse = tab
                    .quick
                    .as_ref()
                    .filter(|q| depend == 0 && q.key == ki)
                    .map(|q| q.rows);
                let fanout = quick_reuse.unwrap_or_else(|| {
                    k.stats
                        .rec_per_key
                        .get(parts - 1)
                        .copied()
                        .filter(|r| r.is_finite() && *r > 0.0)
                        .unwrap_or(10.0)
                });
                let one = if k.covering && !k.clustered {
                    h.index_scan_cost(k.stats.key_length, k.f_idx, fanout)
                } else if k.clustered {
                    h.read_cost(true, 1.0, fanout)
                } else {
                    h.page_read_cost(fanout).min(self.worst_seeks(t))
                };
                (fanout, prefix_rowcount * one)
            };
            let cand = RefCand {
                key: ki,
                parts,
                eq,
                pk_full: eq && k.clustered,
                fanout,
                read,
                depend,
            };
            let better = match &best_ref {
                None => true,
                Some(b) if b.pk_full => false,
                Some(b) => {
                    if cand.pk_full || (cand.eq && !b.eq) {
                        true
                    } else if b.eq && !cand.eq {
                        false
                    } else {
                        cand.read + prefix_rowcount * rec * cand.fanout
                            < b.read + prefix_rowcount * rec * b.fanout
                    }
                }
            };
            if better {
                best_ref = Some(cand);
            }
        }
        // (b) scan / range, unless a heuristic says it cannot win.
        let found_records = tab.found_records();
        let read_time = tab.quick.as_ref().map_or(h.table_scan_cost(), |q| q.cost);
        let skip_scan = match &best_ref {
            Some(r) if r.pk_full => true,
            Some(r) => {
                (r.fanout < found_records && r.read <= read_time)
                    || tab.quick.as_ref().is_some_and(|q| q.key == r.key)
                    || (tab.quick.is_none() && tab.keys[r.key].covering)
            }
            None => false,
        };
        let mut pos = Pos {
            t,
            access: Access::Scan,
            rows_fetched: 0.0,
            filter_effect: 1.0,
            read_cost: 0.0,
            prefix_rows: 0.0,
            prefix_cost: 0.0,
            rows_before_filter: 0.0,
            ref_depend: 0,
            jbuf: false,
            sj: None,
        };
        let mut chose_scan = false;
        if !skip_scan {
            // The range's own predicates are already in found_records.
            let used: Vec<&str> = tab
                .quick
                .as_ref()
                .map(|q| tab.keys[q.key].cols.iter().map(String::as_str).collect())
                .unwrap_or_default();
            let const_filter = self.condition_filter(t, &used, 0, found_records);
            let after = found_records * const_filter;
            let (scan_cost, jbuf) = if let Some(q) = &tab.quick {
                (
                    prefix_rowcount * (q.cost + rec * (found_records - after)),
                    false,
                )
            } else {
                let single = h.table_scan_cost() + rec * (h.records() - after);
                if prefix.is_empty() || !self.ctx.db.env.block_nested_loop || !allow_jbuf {
                    (prefix_rowcount * single, false)
                } else {
                    let rec_len: f64 = prefix.iter().map(|p| self.tabs[p.t].row_bytes).sum();
                    let buffers =
                        1.0 + rec_len * prefix_rowcount / self.ctx.db.env.join_buffer_size;
                    (buffers * single, true)
                }
            };
            let scan_total = scan_cost + rec * prefix_rowcount * after;
            let wins = match &best_ref {
                None => true,
                Some(r) => scan_total < r.read + rec * prefix_rowcount * r.fanout,
            };
            if wins {
                chose_scan = true;
                let all = self.condition_filter(t, &used, prefix_mask, found_records);
                pos.access = if tab.quick.is_some() {
                    Access::Range
                } else {
                    Access::Scan
                };
                pos.rows_fetched = after.max(f64::MIN_POSITIVE);
                pos.read_cost = scan_cost;
                pos.jbuf = jbuf;
                pos.filter_effect = if after > 0.0 {
                    (found_records * all / after).min(1.0)
                } else {
                    1.0
                };
            }
        }
        if !chose_scan {
            if let Some(r) = best_ref {
                let used: Vec<&str> = tab.keys[r.key].cols[..r.parts]
                    .iter()
                    .map(String::as_str)
                    .collect();
                pos.access = if r.eq {
                    Access::EqRef { key: r.key }
                } else {
                    Access::Ref {
                        key: r.key,
                        parts: r.parts,
                    }
                };
                pos.rows_fetched = r.fanout;
                pos.read_cost = r.read;
                pos.ref_depend = r.depend;
                pos.filter_effect = self.condition_filter(t, &used, prefix_mask, r.fanout);
            }
        }
        // §5.1 recurrence.
        let rows = prefix_rowcount * pos.rows_fetched;
        let prev_cost = prefix.last().map_or(0.0, |p| p.prefix_cost);
        pos.rows_before_filter = rows;
        pos.prefix_cost = prev_cost + pos.read_cost + rec * rows;
        pos.prefix_rows = rows * pos.filter_effect;
        pos
    }

    /// `key_dependent`: tables whose columns could bind the first key part of an index
    /// of `t` (through the join equalities).
    pub(super) fn key_dependent(&self, t: usize) -> u64 {
        let mut m = 0;
        for k in &self.tabs[t].keys {
            for cl in &self.classes {
                if cl.iter().any(|c| c.table == t && c.column == k.cols[0]) {
                    m |= cl
                        .iter()
                        .filter(|c| c.table != t)
                        .fold(0, |m, c| m | bit(c.table));
                }
            }
        }
        m
    }

    /// Whether `t` may be placed after `prefix` (LEFT JOIN order).
    pub(super) fn allowed(&self, t: usize, prefix: u64) -> bool {
        self.tabs[t].after & !self.avail(prefix) == 0
    }
}
