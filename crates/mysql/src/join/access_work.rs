//! The work of the chosen plan's accesses (the simulation's side; MySQL costs no such
//! thing): each position's page reads, rows and evaluations, run as many times as it
//! executes, in the order rows arrive in (clustered-key order, BKA's sorted lookups),
//! and work scaled by a number of executions.

use super::*;

/// Expected distinct pages hit by `requests` uniform requests over `pages` pages
/// (Cardenas; the same formula as `mysql::work`).
fn cardenas(pages: f64, requests: f64) -> f64 {
    if pages <= 0.0 || requests <= 0.0 {
        return 0.0;
    }
    if pages <= 1.0 {
        return 1.0;
    }
    let hit = -(requests * (-1.0 / pages).ln_1p()).exp_m1();
    (pages * hit).min(requests).min(pages)
}

/// Page requests of `units` lookups into a B-tree of `pages` pages made in ascending key
/// order in `runs` runs (sorted rowids per buffer fill, or outer rows sorted by the key):
/// each run reads each of its distinct pages once, in order (sorted reads, one per
/// distinct page per run, the convention `sim::time` reads sweeps from); the run's other
/// requests find the page just read (re-references with no new page).
fn push_sorted_lookups(
    w: &mut Work,
    object: &Name,
    pages: f64,
    page_bytes: f64,
    units: f64,
    runs: f64,
) {
    let runs = runs.clamp(1.0, units.max(1.0));
    let per_run = cardenas(pages, units / runs);
    let sweeps = runs * per_run;
    w.page_reads.push(PageReads {
        object: object.clone(),
        object_pages: pages,
        page_bytes,
        pattern: AccessPattern::Sorted,
        requests: sweeps,
        distinct: cardenas(pages, units).min(sweeps),
        span_pages: None,
    });
    let again = units - sweeps;
    if again > 0.0 {
        w.page_reads.push(PageReads {
            object: object.clone(),
            object_pages: pages,
            page_bytes,
            pattern: AccessPattern::Random,
            requests: again,
            distinct: 0.0,
            span_pages: None,
        });
    }
}

/// The `'static` spelling of column `col` of table `t`, from the block's join edges or the
/// table's used columns ("" when the block never names it: such an order matches no
/// lookup).
fn static_col(block: &QueryBlock, t: usize, col: &str) -> Name {
    block
        .joins
        .iter()
        .flat_map(|j| [&j.a, &j.b])
        .find(|c| c.table == t && c.column == col)
        .map(|c| c.column.clone())
        .or_else(|| block.tables[t].uses.iter().find(|u| *u == col).cloned())
        .unwrap_or(Name::from_static(""))
}

/// Multiplies a node's work by `n` executions (page requests, rows, evaluations).
fn scale_work(w: &mut Work, n: f64) {
    let n = n.max(0.0);
    for r in &mut w.page_reads {
        let requests = r.requests * n;
        r.distinct = cardenas(r.object_pages, requests).max(r.distinct.min(requests));
        r.requests = requests;
    }
    w.scale_counters(n);
}

pub(super) fn scale_tree(node: &mut PlanNode, n: f64) {
    scale_work(&mut node.work, n);
    for c in &mut node.children {
        scale_tree(c, n);
    }
}

impl<'a, 'b> Planner<'a, 'b> {
    /// Whether the lookups of `p` run as batched key access: BKA switched on, a ref or
    /// eq_ref through an index DS-MRR can serve (secondary, not covering; §4.4), and
    /// DS-MRR used for it (always with mrr_cost_based off; with it on, only past the gate
    /// of a table at least the pool's size, where DS-MRR's cost is the lower one).
    pub(super) fn uses_bka(&self, p: &Pos) -> bool {
        let env = &self.ctx.db.env;
        let key = match p.access {
            Access::Ref { key, .. } | Access::EqRef { key } => key,
            _ => return false,
        };
        let tab = &self.tabs[p.t];
        let k = &tab.keys[key];
        if !env.batched_key_access || !env.server.mrr || k.clustered || k.covering {
            return false;
        }
        let cost_based = self.ctx.knobs.get(Knob::MrrCostBased) != 0.0;
        !cost_based
            || tab.stats.clustered_pages * tab.stats.page_bytes
                >= env.server.innodb_buffer_pool_size
    }

    /// Whether `(table, col)` is `order`'s column or equal to it through a join equality.
    pub(super) fn follows(&self, order: Option<&Order>, table: usize, col: &str) -> bool {
        let Some(o) = order else {
            return false;
        };
        if o.table == table && o.col == col {
            return true;
        }
        self.classes.iter().any(|cl| {
            cl.iter().any(|c| c.table == table && c.column == col)
                && cl.iter().any(|c| c.table == o.table && c.column == o.col)
        })
    }

    /// The clustered key's first column of `t`: the order of its table scan.
    pub(super) fn clustered_order(&self, t: usize, runs: f64) -> Option<Order> {
        self.tabs[t]
            .keys
            .iter()
            .find(|k| k.clustered)
            .and_then(|k| k.cols.first())
            .map(|c| Order {
                table: t,
                col: static_col(self.block, t, c),
                runs: runs.max(1.0),
            })
    }

    /// Work of one position: its access run `executions` times (true counts), with the
    /// order its input rows arrive in (`stream`, updated to the order of its output),
    /// `prefix_bytes` the bytes of a joined prefix row (join buffer records).
    pub(super) fn access_work(
        &self,
        p: &Pos,
        executions: f64,
        rows_out: f64,
        stream: &mut Option<Order>,
        prefix_bytes: f64,
        bka: bool,
    ) -> Work {
        let tab = &self.tabs[p.t];
        let env = &self.ctx.db.env;
        let repeated = executions > 1.0;
        let mut w = match p.access {
            Access::Scan => {
                let mut w = tab.scan_work.clone();
                let runs = if !repeated {
                    1.0
                } else if p.jbuf {
                    // BNL: one scan per join-buffer fill; the buffer holds the prefix's
                    // rows (cache_record_length), not this table's.
                    1.0 + (executions * prefix_bytes.max(1.0) / env.join_buffer_size).floor()
                } else {
                    executions
                };
                scale_work(&mut w, runs);
                // One scan, or BNL (each scan emits the buffered rows it matches in the
                // scan's order): clustered-key order. A scan per outer row keeps the outer
                // order.
                if !repeated || p.jbuf {
                    *stream = self.clustered_order(p.t, runs);
                }
                w
            }
            Access::Range => {
                let mut w = tab
                    .quick
                    .as_ref()
                    .map_or_else(|| tab.scan_work.clone(), |q| q.work.clone());
                scale_work(&mut w, executions.max(1.0));
                if !repeated {
                    *stream = tab.quick.as_ref().and_then(|q| {
                        let k = &tab.keys[q.key];
                        if q.dsmrr {
                            // Rowids sorted per read_rnd_buffer fill.
                            let fills = w
                                .page_reads
                                .iter()
                                .find(|r| r.pattern == AccessPattern::Sorted)
                                .map_or(1.0, |r| (r.requests / r.distinct.max(1.0)).max(1.0));
                            self.clustered_order(p.t, fills)
                        } else if k.clustered {
                            self.clustered_order(p.t, 1.0)
                        } else {
                            k.cols.first().map(|c| Order {
                                table: p.t,
                                col: static_col(self.block, p.t, c),
                                runs: 1.0,
                            })
                        }
                    });
                }
                w
            }
            Access::Ref { key, .. } | Access::EqRef { key } => {
                let k = &tab.keys[key];
                let parts = match p.access {
                    Access::Ref { parts, .. } => parts,
                    _ => k.cols.len(),
                };
                let ndv: f64 = if parts == k.cols.len() && k.unique {
                    tab.rows
                } else {
                    let cols: Vec<&str> = k.cols[..parts].iter().map(String::as_str).collect();
                    tab.distinct_of(&cols)
                };
                let per = if ndv > 0.0 { tab.rows / ndv } else { 0.0 };
                let fetched = executions * per;
                let page = tab.stats.page_bytes;
                let mut w = Work {
                    index_entries: fetched,
                    operator_evals: fetched * (1.0 + tab.col_filter.len() as f64),
                    ..Work::default()
                };
                let leaf = k.stats.leaf_pages.max(1.0);
                let per_leaf = (tab.rows / leaf).max(1.0);
                let leaf_requests = executions * (1.0 + per / per_leaf);
                let index_obj = if k.clustered {
                    tab.alias.clone()
                } else {
                    Name::new(&format!("{}.{}", tab.alias, k.name))
                };
                // Lookups in the order of the key's first column (outer rows sorted by
                // it) walk the B-tree's leaves upwards, once per ordered run; BKA's keys
                // come in join-buffer order, not sorted (MySQL's DS-MRR sorts rowids only).
                let ordered = !bka
                    && repeated
                    && k.cols
                        .first()
                        .is_some_and(|c| self.follows(stream.as_ref(), p.t, c));
                let runs = stream
                    .as_ref()
                    .map_or(1.0, |o| o.runs)
                    .min(executions.max(1.0));
                if ordered {
                    push_sorted_lookups(&mut w, &index_obj, leaf, page, leaf_requests, runs);
                } else {
                    w.page_reads.push(PageReads {
                        object: index_obj.clone(),
                        object_pages: leaf,
                        page_bytes: page,
                        pattern: AccessPattern::Random,
                        requests: leaf_requests,
                        distinct: cardenas(leaf, leaf_requests),
                        span_pages: None,
                    });
                }
                if k.clustered || k.covering {
                    if k.clustered {
                        w.rows_examined = fetched;
                    }
                } else {
                    w.rows_examined = fetched;
                    let pages = tab.stats.clustered_pages;
                    if bka {
                        // BKA: keys per join-buffer fill as JOIN_CACHE_BKA sizes it, each
                        // record with room for rec_per_key rowids of mrr_length_per_rec
                        // (ref_length + 8) bytes (aux_buffer_incr); DS-MRR sorts each
                        // fill's rowids and reads the clustered pages in order.
                        let rpk = k
                            .stats
                            .rec_per_key
                            .get(parts - 1)
                            .copied()
                            .filter(|r| r.is_finite())
                            .unwrap_or(1.0)
                            .max(1.0);
                        let record = prefix_bytes.max(1.0) + (tab.stats.ref_length + 8.0) * rpk;
                        let keys_per_fill = (env.join_buffer_size / record).max(1.0);
                        let fills = (executions / keys_per_fill).ceil().max(1.0);
                        push_sorted_lookups(&mut w, &tab.alias, pages, page, fetched, fills);
                        *stream = self.clustered_order(p.t, fills);
                    } else {
                        w.page_reads.push(PageReads {
                            object: tab.alias.clone(),
                            object_pages: pages,
                            page_bytes: page,
                            pattern: AccessPattern::Random,
                            requests: fetched,
                            distinct: cardenas(pages, fetched),
                            span_pages: None,
                        });
                    }
                }
                // A nested-loop lookup keeps its outer order; a lone lookup (first table)
                // yields its index order.
                if !repeated {
                    *stream = k.cols.first().map(|c| Order {
                        table: p.t,
                        col: static_col(self.block, p.t, c),
                        runs: 1.0,
                    });
                }
                w
            }
        };
        w.rows_out = rows_out;
        w
    }
}
