//! `best_access_path` for one table (sql/sql_planner.cc, §5.2): `ref` over an index
//! prefix with `worst_seeks`, and the skip heuristics that let the scan or range the
//! range optimizer kept beat it.

use crate::*;

impl Ctx<'_> {
    /// `worst_seeks = max(min(page_read_cost(N/10), 3*table_scan_cost), page_read_cost(2))`.
    pub(crate) fn worst_seeks(&self) -> f64 {
        (self.h.page_read_cost(self.h.records() / 10.0))
            .min(3.0 * self.h.table_scan_cost())
            .max(self.h.page_read_cost(2.0))
    }

    /// `ref` on the longest equality prefix of index `k` (§5.2 a), if there is one.
    /// Returns the path and whether it is a unique full-key lookup (const).
    pub(crate) fn ref_path(&self, k: usize) -> Option<(Path, bool)> {
        let idx = &self.indexes[k];
        let parts = idx
            .cols
            .iter()
            .take_while(|&&c| self.cond(c).and_then(ColumnCond::single_point).is_some())
            .count();
        if parts == 0 {
            return None;
        }
        let unique_full = (idx.def.unique || idx.clustered) && parts == idx.def.columns.len();
        // ReuseRangeEstimateForRef: the range estimate of the same index when the range
        // used exactly these key parts as equalities; else records_per_key.
        let fanout = if unique_full {
            1.0
        } else {
            match &self.ranges[k] {
                Some(r) if r.parts == parts && r.all_equalities && r.true_rows.len() == 1 => {
                    r.est_rows
                }
                _ => self.records_per_key(idx, parts),
            }
        };
        let read = if idx.covering && !idx.clustered {
            self.h
                .index_scan_cost(idx.stats.key_length, idx.f_idx, fanout)
        } else if idx.clustered {
            self.h.read_cost(true, 1.0, fanout)
        } else {
            self.h.page_read_cost(fanout).min(self.worst_seeks())
        };
        let cost = read + self.h.c.row_evaluate_cost(fanout);

        // True rows: the equality prefix's share of the table.
        let used = self.used_columns(k, parts);
        let mut frac = 1.0;
        for &c in used {
            if let Some(cond) = self.cond(c) {
                frac *= cond_fraction(self.column(c), cond, self.table.rows);
            }
        }
        let true_rows = frac * self.table.rows;
        let mut work = self.range_base_work(k, &[true_rows]);
        let mut tail: &'static [&'static str] = &[];
        if idx.clustered {
            work.rows_examined = true_rows;
            if let Some(pr) = work.page_reads.first_mut() {
                pr.object = self.prep.name.clone();
            }
        } else if idx.covering {
            tail = &["Using index"];
        } else {
            self.add_row_lookups(&mut work, true_rows);
        }
        let key_name: &str = idx.name;
        Some((
            Path {
                key: if unique_full {
                    self.prep.keys.get(&["const:", key_name])
                } else {
                    self.prep.keys.get(&["ref:", key_name])
                },
                op: if unique_full { "const" } else { "ref" },
                index: Some(k),
                cost,
                rows: fanout,
                parts,
                filtered: self.filtered_except(used),
                query_cost: cost,
                extra: self.range_extra(used, tail),
                work,
            },
            unique_full,
        ))
    }

    /// `best_access_path`'s scan/range alternative against the best ref: the skip
    /// heuristics, then `scan + rec*after < ref.read + rec*fanout` (ties keep the ref).
    pub(crate) fn scan_can_beat_ref(&self, r: usize, quick: Option<usize>, paths: &[Path]) -> bool {
        let rf = &paths[r];
        let Some(k) = rf.index else { return true };
        let idx = &self.indexes[k];
        let found_records = quick.map_or(self.h.records(), |q| paths[q].rows);
        let read_time = quick.map_or(self.h.table_scan_cost(), |q| paths[q].cost);
        let ref_read = rf.cost - self.h.c.row_evaluate_cost(rf.rows);
        // (1) the ref fetches fewer rows and reads no more than the scan would.
        if rf.rows < found_records && ref_read <= read_time {
            return false;
        }
        // (2) a range on the same index using no more key parts than the ref.
        if let Some(q) = quick {
            if paths[q].index == Some(k) && paths[q].parts <= rf.parts {
                return false;
            }
        }
        // (3) InnoDB scans are on the clustered index: a covering ref and no quick.
        if quick.is_none() && idx.covering {
            return false;
        }
        let scan_total = match quick {
            Some(q) => paths[q].cost + self.h.c.row_evaluate_cost(paths[q].rows),
            None => self.scan_query_cost(),
        };
        scan_total < rf.cost
    }
}
