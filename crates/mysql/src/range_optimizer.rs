//! The range optimizer's stage of single-table planning (sql/opt_range.cc's
//! `test_quick_select`, §4.1-§4.5): the range plan of every index (`get_mm_tree`), the
//! table scan bar, the covering index scan, and each index's ranges with default MRR
//! against DS-MRR (§4.4) and their work.

use crate::*;

impl Ctx<'_> {
    /// Most ranges one index may produce before further key parts are dropped (the range
    /// optimizer's memory limit plays this role in MySQL).
    pub(crate) const MAX_RANGES: usize = 10_000;

    /// Builds the range plan of every index (`get_mm_tree` over AND-ed simple predicates):
    /// equalities / IN lists on a key prefix multiply into point ranges, an interval on the
    /// next key part ends the range.
    pub(crate) fn analyze_ranges(&mut self) {
        let records = self.h.records();
        let mut all = Vec::with_capacity(self.indexes.len());
        for idx in &self.indexes {
            let mut fracs: Vec<f64> = vec![1.0];
            let mut parts = 0;
            let mut all_equalities = true;
            let mut impossible = false;
            if self.cond(idx.cols[0]).is_none() {
                // No condition on the first key part: no range (checked before the loop
                // below only to spare its allocations).
                all.push(None);
                continue;
            }
            for &pos in idx.cols {
                let col = self.column(pos);
                match self.cond(pos) {
                    None => break,
                    Some(ColumnCond::Impossible) => {
                        impossible = true;
                        break;
                    }
                    Some(ColumnCond::Points(vs)) => {
                        if fracs.len() * vs.len() > Self::MAX_RANGES {
                            break;
                        }
                        let point_fracs: Vec<f64> = vs
                            .iter()
                            .map(|v| point_cond_fraction(col, v, records))
                            .collect();
                        let mut next = Vec::with_capacity(fracs.len() * vs.len());
                        for f in &fracs {
                            next.extend(point_fracs.iter().map(|p| f * p));
                        }
                        fracs = next;
                        parts += 1;
                    }
                    Some(cond @ ColumnCond::Interval(_)) => {
                        let f = cond_fraction(col, cond, records);
                        fracs.iter_mut().for_each(|x| *x *= f);
                        parts += 1;
                        all_equalities = false;
                        break;
                    }
                }
            }
            if impossible {
                all.push(Some(KeyRanges {
                    parts: parts.max(1),
                    true_rows: Vec::new(),
                    est_rows: 0.0,
                    all_equalities: false,
                }));
                continue;
            }
            if parts == 0 {
                all.push(None);
                continue;
            }
            let full_unique_key = (idx.def.unique || idx.clustered)
                && all_equalities
                && parts == idx.def.columns.len();
            let n = fracs.len() as f64;
            let use_rec_per_key = all_equalities
                && self.env.eq_range_index_dive_limit > 0.0
                && n >= self.env.eq_range_index_dive_limit;
            let est_rows: f64 = fracs
                .iter()
                .map(|f| {
                    if full_unique_key {
                        // A unique equality range counts one row, no dive (§4.3).
                        1.0
                    } else if use_rec_per_key {
                        self.records_per_key(idx, parts)
                    } else {
                        innodb_records_in_range(
                            f * records,
                            idx.dive,
                            records,
                            self.env.innodb_inexact_estimates,
                        )
                    }
                })
                .sum();
            all.push(Some(KeyRanges {
                parts,
                true_rows: fracs.iter().map(|f| f * self.table.rows).collect(),
                est_rows,
                all_equalities,
            }));
        }
        self.ranges = all;
    }

    // ----- the candidates -------------------------------------------------------------

    /// The range optimizer's table scan bar: `TS = P*prc + 1.1 + N*rec + 1` (§4.1), N being
    /// stats.records or 1 if that is 0.
    pub(crate) fn table_scan_bar(&self) -> f64 {
        let n = if self.h.records() > 0.0 {
            self.h.records()
        } else {
            1.0
        };
        self.h.table_scan_cost() + 1.1 + self.h.c.row_evaluate_cost(n) + 1.0
    }

    /// The bar with a LIMIT below N and no ORDER BY: one random page per row (§4.5 1).
    pub(crate) fn limit_bar(&self) -> Option<f64> {
        let limit = self.query.limit?;
        let n = self.h.records();
        if limit < n && self.query.order_by.is_empty() {
            Some(self.h.page_read_cost(n) + 1.0 + self.h.c.row_evaluate_cost(n) + 1.0)
        } else {
            None
        }
    }

    /// EXPLAIN FORMAT=JSON query cost of a full scan (§5.2: `table_scan_cost + rec*N`).
    pub(crate) fn scan_query_cost(&self) -> f64 {
        self.h.table_scan_cost() + self.h.c.row_evaluate_cost(self.h.records())
    }

    pub(crate) fn table_scan(&self) -> Path {
        let t = self.table;
        let p = self.h.stats.clustered_pages;
        let mut work = work::rows_work(
            t.rows,
            0.0,
            work::where_evals(t.rows, &self.pred_sel),
            self.true_rows_out,
        );
        work.page_reads.push(work::reads(
            &self.prep.name,
            p,
            self.h.stats.page_bytes,
            AccessPattern::Sequential,
            p,
            p,
        ));
        let extra = self.range_extra(&[], &[]);
        Path {
            key: Name::from_static("table_scan"),
            op: "ALL",
            index: None,
            cost: self.table_scan_bar(),
            rows: self.h.records(),
            parts: 0,
            filtered: self.filtered_except(&[]),
            query_cost: self.scan_query_cost(),
            extra,
            work,
        }
    }

    /// `find_shortest_key()`: the covering secondary index with the shortest key, the
    /// clustered PK only if no secondary index covers.
    pub(crate) fn shortest_covering_key(&self) -> Option<usize> {
        let best = |clustered: bool| {
            self.indexes
                .iter()
                .enumerate()
                .filter(|(_, i)| i.covering && i.clustered == clustered)
                .min_by(|a, b| a.1.stats.key_length.total_cmp(&b.1.stats.key_length))
                .map(|(k, _)| k)
        };
        best(false).or_else(|| best(true))
    }

    /// Covering full index scan: `index_scan_cost(k, 1, N) + N*rec` (§4.5 2).
    pub(crate) fn covering_index_scan(&self, k: usize) -> Path {
        let idx = &self.indexes[k];
        let n = self.h.records();
        let t = self.table;
        let cost = self.h.index_scan_cost(idx.stats.key_length, idx.f_idx, n)
            + self.h.c.row_evaluate_cost(n);
        let leaf = idx.stats.leaf_pages.max(1.0);
        let mut work = work::rows_work(
            0.0,
            t.rows,
            work::where_evals(t.rows, &self.pred_sel),
            self.true_rows_out,
        );
        work.page_reads.push(work::reads(
            idx.name,
            leaf,
            self.h.stats.page_bytes,
            AccessPattern::Sequential,
            leaf,
            leaf,
        ));
        let extra = self.range_extra(&[], &["Using index"]);
        Path {
            key: self.prep.keys.get(&["index_scan:", idx.name]),
            op: "index",
            index: Some(k),
            cost,
            rows: n,
            parts: idx.def.columns.len(),
            filtered: self.filtered_except(&[]),
            // Chosen only by the post-join switch, so EXPLAIN keeps the scan's cost.
            query_cost: self.scan_query_cost(),
            extra,
            work,
        }
    }

    /// Work common to reading ranges of index `k`: the index leaves, entries, WHERE.
    pub(crate) fn range_base_work(&self, k: usize, runs: &[f64]) -> Work {
        let idx = &self.indexes[k];
        let total: f64 = runs.iter().sum();
        let true_epl = if idx.stats.leaf_pages >= 1.0 {
            self.table.rows / idx.stats.leaf_pages
        } else {
            self.table.rows
        };
        // Each entry is checked against the range end, then the row against the WHERE.
        let mut work = work::rows_work(
            0.0,
            total,
            total + work::where_evals(total, &self.pred_sel),
            self.true_rows_out,
        );
        work.page_reads.push(work::index_leaf_reads(
            idx.name,
            idx.stats.leaf_pages.max(1.0),
            self.h.stats.page_bytes,
            true_epl,
            runs,
        ));
        work
    }

    /// Adds one clustered page request per row fetched through a secondary index.
    pub(crate) fn add_row_lookups(&self, work: &mut Work, rows: f64) {
        let p = self.h.stats.clustered_pages;
        work.rows_examined = rows;
        work.page_reads.push(work::reads(
            &self.prep.name,
            p,
            self.h.stats.page_bytes,
            AccessPattern::Random,
            rows,
            work::cardenas(p, rows),
        ));
    }

    pub(crate) fn range_extra(&self, used: &[usize], tail: &'static [&'static str]) -> Extra {
        Extra {
            using_where: self.needs_where(used),
            tail,
        }
    }

    /// Range paths of index `k`: covering, or default MRR plus DS-MRR when eligible.
    /// Returns the paths and the position of the one `choose_mrr_impl` keeps.
    pub(crate) fn range_paths(&self, k: usize, r: &KeyRanges) -> (Vec<Path>, usize) {
        let idx = &self.indexes[k];
        let name: &str = idx.name;
        let n = r.true_rows.len() as f64;
        let big_r = r.est_rows;
        let rec = self.h.c.row_evaluate_cost(big_r);
        let used = self.used_columns(k, r.parts);
        let filtered = self.filtered_except(used);
        let total_true: f64 = r.true_rows.iter().sum();
        let path = |key: Name, cost: f64, extra: Extra, work: Work| Path {
            key,
            op: "range",
            index: Some(k),
            cost,
            rows: big_r,
            parts: r.parts,
            filtered,
            // §5.2 note: EXPLAIN's query_cost for a range is range cost + R*rec.
            query_cost: cost + rec,
            extra,
            work,
        };

        if idx.covering && !idx.clustered {
            // HA_MRR_INDEX_ONLY: index_scan_cost(k, n, R) + R*rec + 0.01 (§4.3).
            let cost = self
                .h
                .index_scan_cost(idx.stats.key_length, idx.f_idx, big_r)
                + rec
                + 0.01;
            let work = self.range_base_work(k, &r.true_rows);
            let extra = self.range_extra(used, &["Using index"]);
            let key = self.prep.keys.get(&["covering:", name]);
            return (vec![path(key, cost, extra, work)], 0);
        }

        // Default MRR: read_cost(k, n, R) + R*rec + 0.01 (§4.3).
        let default_cost = self.h.read_cost(idx.clustered, n, big_r) + rec + 0.01;
        let mut default_work = self.range_base_work(k, &r.true_rows);
        if idx.clustered {
            // The clustered index *is* the table: its leaves hold the rows.
            default_work.rows_examined = total_true;
            if let Some(pr) = default_work.page_reads.first_mut() {
                pr.object = self.prep.name.clone();
            }
        } else {
            self.add_row_lookups(&mut default_work, total_true);
        }
        let default = path(
            self.prep.keys.get(&["range:", name]),
            default_cost,
            self.range_extra(used, &[]),
            default_work,
        );

        if !self.dsmrr_allowed(idx) {
            return (vec![default], 0);
        }
        let gate = !self.cost_based_mrr
            || (self.h.data_file_length() >= self.buffer_pool_for_gate() && big_r > 50.0);
        if !gate {
            return (vec![default], 0);
        }
        let ds_cost = dsmrr::dsmrr_cost(
            &self.h,
            big_r,
            idx.stats.key_length,
            idx.f_idx,
            self.env.read_rnd_buffer_size,
        );
        let mut ds_work = self.range_base_work(k, &r.true_rows);
        let cap = dsmrr::rowids_per_buffer(&self.h, self.env.read_rnd_buffer_size);
        let (full, last) = dsmrr::buffer_fills(total_true, cap);
        let p = self.h.stats.clustered_pages;
        // Sorted rowids: each fill asks for each distinct page once, in page order.
        let requests = full * work::cardenas(p, cap) + work::cardenas(p, last);
        ds_work.rows_examined = total_true;
        ds_work.comparisons = work::sort_comparisons(full, cap, last);
        ds_work.page_reads.push(work::reads(
            &self.prep.name,
            p,
            self.h.stats.page_bytes,
            AccessPattern::Sorted,
            requests,
            work::cardenas(p, total_true),
        ));
        // choose_mrr_impl (§4.4): cost-based, DS-MRR wins ties; otherwise it is used
        // whenever eligible, at the cheaper of the two costs.
        let (ds_cost, ds_wins) = if self.cost_based_mrr {
            (ds_cost, ds_cost <= default_cost)
        } else {
            (ds_cost.min(default_cost), true)
        };
        let ds = path(
            self.prep.keys.get(&["dsmrr:", name]),
            ds_cost,
            self.range_extra(used, &["Using MRR"]),
            ds_work,
        );
        (vec![default, ds], usize::from(ds_wins))
    }

    /// DS-MRR eligibility that does not depend on cost (§4.4): mrr on, not index-only, not
    /// the clustered PK. (Partial-prefix keys and temp tables do not occur here.)
    pub(crate) fn dsmrr_allowed(&self, idx: &IndexInfo) -> bool {
        self.env.mrr && !idx.covering && !idx.clustered
    }

    /// The pool size the DS-MRR gate compares with: 100 MiB if unknown (§4.4, §8 flaw 9).
    pub(crate) fn buffer_pool_for_gate(&self) -> f64 {
        if self.env.innodb_buffer_pool_size > 0.0 {
            self.env.innodb_buffer_pool_size
        } else {
            cost_model::DEFAULT_BUFFER_BYTES
        }
    }
}
