//! The cost formulas of costsize.c and btcostestimate (spec sections 3-6, 8), as pure
//! functions of numbers. The path builders in `paths.rs` feed them and record work.

use super::pathnodes::{clamp_row_est, Consts, BLCKSZ};
use costlab_model::knobs::EngineVersion;

/// Added to the startup cost of a disabled path in PostgreSQL 15-17 (spec 10).
pub(crate) const DISABLE_COST: f64 = 1.0e10;
/// add_path's fuzz factor (spec 9.1).
pub(crate) const STD_FUZZ_FACTOR: f64 = 1.01;
/// btree per-page descent charge in units of cpu_operator_cost (spec 4.3).
const DEFAULT_PAGE_CPU_MULTIPLIER: f64 = 50.0;

/// The sort code's LOG2 uses a truncated ln 2 (spec 1, 11): it matters in the last digits.
#[allow(clippy::approx_constant)] // deliberately PostgreSQL's truncated constant
pub(crate) fn log2_sort(x: f64) -> f64 {
    x.ln() / 0.693147180559945
}

/// Parallel builds before 18 compare disable_cost; 18 counts disabled nodes (spec 10).
pub(crate) fn uses_disabled_nodes(version: EngineVersion) -> bool {
    version >= EngineVersion::Pg18
}

/// get_parallel_divisor (spec 3): workers plus the leader's share while it has one.
pub(crate) fn get_parallel_divisor(workers: u32, leader_participation: bool) -> f64 {
    let mut d = workers as f64;
    if leader_participation {
        let leader = 1.0 - 0.3 * workers as f64;
        if leader > 0.0 {
            d += leader;
        }
    }
    d
}

/// compute_parallel_worker (spec 3.1) for a plain base relation without the
/// parallel_workers reloption; a negative page count means "not applicable".
pub(crate) fn compute_parallel_worker(
    heap_pages: f64,
    index_pages: f64,
    max_workers: u32,
    min_table_pages: f64,
    min_index_pages: f64,
) -> u32 {
    if (heap_pages >= 0.0 && heap_pages < min_table_pages)
        || (index_pages >= 0.0 && index_pages < min_index_pages)
    {
        return 0;
    }
    let workers_for = |pages: f64, min_size: f64| -> u32 {
        let mut w = 1;
        let mut threshold = min_size.floor().max(1.0);
        while pages >= threshold * 3.0 {
            w += 1;
            threshold *= 3.0;
            // The C code stops before its int threshold overflows.
            if threshold > (i32::MAX / 3) as f64 {
                break;
            }
        }
        w
    };
    let mut workers = 0;
    if heap_pages >= 0.0 {
        workers = workers_for(heap_pages, min_table_pages);
    }
    if index_pages >= 0.0 {
        let w = workers_for(index_pages, min_index_pages);
        workers = if workers > 0 { workers.min(w) } else { w };
    }
    workers.min(max_workers)
}

/// index_pages_fetched: Mackert-Lohman with a pro-rated cache share (spec 5.1).
pub(crate) fn index_pages_fetched(
    tuples_fetched: f64,
    pages: f64,
    index_pages: f64,
    total_table_pages: f64,
    effective_cache_pages: f64,
) -> f64 {
    let t = if pages > 1.0 { pages } else { 1.0 };
    let total_pages = (total_table_pages + index_pages).max(1.0);
    let mut b = effective_cache_pages * t / total_pages;
    b = if b <= 1.0 { 1.0 } else { b.ceil() };
    if t <= b {
        let pf = (2.0 * t * tuples_fetched) / (2.0 * t + tuples_fetched);
        if pf >= t {
            t
        } else {
            pf.ceil()
        }
    } else {
        let lim = (2.0 * t * b) / (2.0 * t - b);
        let pf = if tuples_fetched <= lim {
            (2.0 * t * tuples_fetched) / (2.0 * t + tuples_fetched)
        } else {
            b + (tuples_fetched - lim) * (t - b) / t
        };
        pf.ceil()
    }
}

/// Startup and total of a node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct NodeCost {
    pub startup: f64,
    pub total: f64,
}

/// cost_seqscan (spec 3). `qual_*` are restriction qual costs in cost units.
pub(crate) fn cost_seqscan(
    c: &Consts,
    pages: f64,
    tuples: f64,
    qual_startup: f64,
    qual_per_tuple: f64,
    divisor: Option<f64>,
) -> NodeCost {
    let disk_run_cost = c.seq_page_cost * pages;
    let cpu_per_tuple = c.cpu_tuple_cost + qual_per_tuple;
    let mut cpu_run_cost = cpu_per_tuple * tuples;
    let startup = qual_startup;
    if let Some(d) = divisor {
        // Only the CPU share is divided among the processes; every page is read once.
        cpu_run_cost /= d;
    }
    NodeCost {
        startup,
        total: startup + cpu_run_cost + disk_run_cost,
    }
}

/// Inputs of btcostestimate that come from the index and its clauses (spec 4.1).
#[derive(Clone, Debug)]
pub(crate) struct BtreeInput {
    pub index_pages: f64,
    pub index_tuples: f64,
    pub tree_height: f64,
    pub rel_tuples: f64,
    /// root->total_table_pages (spec 2.3), for the repeated-scan page estimate.
    pub total_table_pages: f64,
    /// Number of index quals (a BETWEEN counts two, an IN list one).
    pub n_index_quals: f64,
    /// Product of IN-list lengths over the boundary quals.
    pub boundary_sa_scans: f64,
    /// Product of IN-list lengths over all index quals (PostgreSQL 15/16 generic code).
    pub all_sa_scans: f64,
    /// Unique index with `=` on every key column, no IN list.
    pub unique_all_eq: bool,
    /// clauselist_selectivity of the boundary quals.
    pub btree_selectivity: f64,
    /// clauselist_selectivity of all index quals.
    pub index_selectivity: f64,
}

/// What btcostestimate returns (spec 4.3 "Outputs").
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BtreeCost {
    pub startup: f64,
    pub total: f64,
    pub selectivity: f64,
    pub num_index_tuples: f64,
    pub num_index_pages: f64,
    pub num_sa_scans: f64,
    /// ceil(log2(index tuples)) comparisons per descent (0 when tuples <= 1).
    pub descent_comparisons: f64,
}

/// btcostestimate -> genericcostestimate -> btree descent charges (spec 4).
pub(crate) fn btcostestimate(c: &Consts, version: EngineVersion, b: &BtreeInput) -> BtreeCost {
    // 4.1: numIndexTuples from the boundary quals.
    let mut num_sa_scans = b.boundary_sa_scans.max(1.0);
    let generic_sa_scans;
    let supplied_tuples = if b.unique_all_eq {
        generic_sa_scans = if version >= EngineVersion::Pg17 {
            1.0
        } else {
            b.all_sa_scans.max(1.0)
        };
        1.0
    } else {
        if version >= EngineVersion::Pg17 {
            num_sa_scans = num_sa_scans
                .min((b.index_pages * 0.3333333).ceil())
                .max(1.0);
            generic_sa_scans = num_sa_scans;
        } else {
            generic_sa_scans = b.all_sa_scans.max(1.0);
        }
        (b.btree_selectivity * b.rel_tuples / num_sa_scans).round_ties_even()
    };
    let num_sa_scans = generic_sa_scans;

    // 4.2 genericcostestimate.
    let mut num_index_tuples = supplied_tuples;
    if num_index_tuples <= 0.0 {
        num_index_tuples = (b.index_selectivity * b.rel_tuples / num_sa_scans).round_ties_even();
    }
    if num_index_tuples > b.index_tuples {
        num_index_tuples = b.index_tuples;
    }
    if num_index_tuples < 1.0 {
        num_index_tuples = 1.0;
    }
    let num_index_pages = if b.index_pages > 1.0 && b.index_tuples > 1.0 {
        (num_index_tuples * b.index_pages / b.index_tuples).ceil()
    } else {
        1.0
    };
    let mut total = if num_sa_scans > 1.0 {
        let pf = index_pages_fetched(
            num_index_pages * num_sa_scans,
            b.index_pages,
            b.index_pages,
            b.total_table_pages,
            c.effective_cache_pages,
        );
        pf * c.random_page_cost
    } else {
        num_index_pages * c.random_page_cost
    };
    // Constants on the other side of index quals cost nothing to evaluate.
    let qual_arg_cost = 0.0;
    let qual_op_cost = c.cpu_operator_cost * b.n_index_quals;
    let mut startup = qual_arg_cost;
    total +=
        qual_arg_cost + num_index_tuples * num_sa_scans * (c.cpu_index_tuple_cost + qual_op_cost);

    // 4.3 btree descent: comparisons to find the leaf, then a per-page charge.
    let mut descent_comparisons = 0.0;
    if b.index_tuples > 1.0 {
        descent_comparisons = (b.index_tuples.ln() / 2.0f64.ln()).ceil();
        let d1 = descent_comparisons * c.cpu_operator_cost;
        startup += d1;
        total += num_sa_scans * d1;
    }
    let d2 = (b.tree_height + 1.0) * DEFAULT_PAGE_CPU_MULTIPLIER * c.cpu_operator_cost;
    startup += d2;
    total += num_sa_scans * d2;

    BtreeCost {
        startup,
        total,
        selectivity: b.index_selectivity,
        num_index_tuples,
        num_index_pages,
        num_sa_scans,
        descent_comparisons,
    }
}

/// gistcostestimate (selfuncs.c) for a scan without index quals: the whole index, as
/// genericcostestimate prices it with selectivity 1, plus GiST's descent charges.
///
/// - genericcostestimate: numIndexTuples = the index's tuples, numIndexPages =
///   ceil(tuples x pages / tuples), each page at random_page_cost; per index tuple
///   cpu_index_tuple_cost plus one cpu_operator_cost per ORDER BY operator (`p <->
///   point '(x,y)'`: qual_op_cost counts indexOrderBys with the quals); a constant
///   operand costs nothing (index_other_operands_eval_cost).
/// - Descent: ceil(ln(index tuples)) comparisons (natural log: GiST's fan-out is not
///   two), then (tree_height + 1) x 50 x cpu_operator_cost, where tree_height is
///   `tree_height`, which the caller takes as plancat.c leaves it for a non-btree: unknown,
///   so (int)(ln(pages) / ln(100)), a fan-out of 100 (0 for a one-page index).
///
/// Worked figures (PostgreSQL 15.18, 50,000 random points, index 414 pages, defaults):
/// startup 11 x 0.0025 + 2 x 50 x 0.0025 = 0.2775; total 414 x 4 + 50,000 x (0.005 +
/// 0.0025) + 0.2775 = 2,031.28; EXPLAIN's Index Scan adds 618 heap pages at 4 (correlation
/// 0), 50,000 x 0.01 and the `<->` in the target list, 50,000 x 0.0025: 5,128.28.
pub(crate) fn gistcostestimate(
    c: &Consts,
    index_pages: f64,
    index_tuples: f64,
    tree_height: f64,
    order_bys: f64,
) -> BtreeCost {
    let num_index_tuples = index_tuples.max(1.0);
    let num_index_pages = if index_pages > 1.0 && index_tuples > 1.0 {
        (num_index_tuples * index_pages / index_tuples).ceil()
    } else {
        1.0
    };
    let qual_op_cost = c.cpu_operator_cost * order_bys;
    let mut startup = 0.0;
    let mut total = num_index_pages * c.random_page_cost
        + num_index_tuples * (c.cpu_index_tuple_cost + qual_op_cost);
    let mut descent_comparisons = 0.0;
    if index_tuples > 1.0 {
        descent_comparisons = index_tuples.ln().ceil();
        let d1 = descent_comparisons * c.cpu_operator_cost;
        startup += d1;
        total += d1;
    }
    let d2 = (tree_height + 1.0) * DEFAULT_PAGE_CPU_MULTIPLIER * c.cpu_operator_cost;
    startup += d2;
    total += d2;
    BtreeCost {
        startup,
        total,
        selectivity: 1.0,
        num_index_tuples,
        num_index_pages,
        num_sa_scans: 1.0,
        descent_comparisons,
    }
}

/// plancat.c's tree height for an index it cannot read one from (not a btree), as
/// gistcostestimate then assumes it: a fan-out of 100.
pub(crate) fn assumed_tree_height(index_pages: f64) -> f64 {
    if index_pages > 1.0 {
        (index_pages.ln() / 100f64.ln()).trunc()
    } else {
        0.0
    }
}

/// Heap facts cost_index and the bitmap code need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RelSize {
    pub pages: f64,
    pub tuples: f64,
    pub rows: f64,
    pub total_table_pages: f64,
}

/// Parallel settings (GUCs) for compute_parallel_worker and the divisor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ParallelParams {
    pub max_workers: u32,
    pub leader_participation: bool,
    pub min_table_pages: f64,
    pub min_index_pages: f64,
}

impl ParallelParams {
    pub fn divisor(&self, workers: u32) -> f64 {
        get_parallel_divisor(workers, self.leader_participation)
    }
}

/// A qual cost in cost units.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QualCost {
    pub startup: f64,
    pub per_tuple: f64,
}

/// What cost_index computed, for the plan node and its work.
#[derive(Clone, Debug)]
pub(crate) struct IndexScanCost {
    pub cost: NodeCost,
    /// Rows of the path (per process when parallel).
    pub rows: f64,
    pub tuples_fetched: f64,
    /// Heap pages if uncorrelated (Mackert-Lohman), after the visibility-map discount.
    pub max_pages: f64,
    /// Heap pages if perfectly correlated, after the visibility-map discount.
    pub min_pages: f64,
    pub workers: u32,
}

/// cost_index (spec 5), loop_count 1. `visible` is Some(allvisfrac) for an index-only
/// scan. Returns None for a partial path that gets no workers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cost_index(
    c: &Consts,
    bt: &BtreeCost,
    rel: RelSize,
    index_pages: f64,
    correlation: f64,
    visible: Option<f64>,
    qpqual: QualCost,
    disable: f64,
    partial: Option<&ParallelParams>,
) -> Option<IndexScanCost> {
    let mut rows = rel.rows;
    let mut startup = disable;
    startup += bt.startup;
    let mut run = bt.total - bt.startup;

    let tuples_fetched = clamp_row_est(bt.selectivity * rel.tuples);
    let mut pages = index_pages_fetched(
        tuples_fetched,
        rel.pages,
        index_pages,
        rel.total_table_pages,
        c.effective_cache_pages,
    );
    if let Some(avf) = visible {
        pages = (pages * (1.0 - avf)).ceil();
    }
    let max_io = pages * c.random_page_cost;
    let mut pc = (bt.selectivity * rel.pages).ceil();
    if let Some(avf) = visible {
        pc = (pc * (1.0 - avf)).ceil();
    }
    let min_io = if pc == 0.0 {
        0.0
    } else {
        c.random_page_cost + (pc - 1.0) * c.seq_page_cost
    };

    let mut workers = 0;
    if let Some(p) = partial {
        let heap_pages = if visible.is_some() { -1.0 } else { pages };
        workers = compute_parallel_worker(
            heap_pages,
            bt.num_index_pages,
            p.max_workers,
            p.min_table_pages,
            p.min_index_pages,
        );
        if workers == 0 {
            return None;
        }
    }

    let csquared = correlation * correlation;
    run += max_io + csquared * (min_io - max_io);

    startup += qpqual.startup;
    let cpu_per_tuple = c.cpu_tuple_cost + qpqual.per_tuple;
    let mut cpu_run = cpu_per_tuple * tuples_fetched;
    if let Some(p) = partial {
        let d = p.divisor(workers);
        rows = clamp_row_est(rows / d);
        // Index access and heap I/O are not divided (spec 5 step 9).
        cpu_run /= d;
    }
    run += cpu_run;
    Some(IndexScanCost {
        cost: NodeCost {
            startup,
            total: startup + run,
        },
        rows,
        tuples_fetched,
        max_pages: pages,
        min_pages: pc,
        workers,
    })
}

/// tbm_calculate_entries: 64 bytes per page entry on 64-bit builds (spec 6.3).
pub(crate) fn tbm_calculate_entries(max_bytes: f64) -> f64 {
    (max_bytes / 64.0)
        .floor()
        .clamp(16.0, (i32::MAX - 1) as f64)
}

/// compute_bitmap_pages (spec 6.3), loop_count 1.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BitmapPages {
    /// Heap pages read (integral, at most the table).
    pub pages_fetched: f64,
    /// Heap tuples rechecked, including whole lossy pages.
    pub tuples_fetched: f64,
    /// Pages that go lossy because the bitmap outgrew work_mem.
    #[cfg_attr(not(test), allow(dead_code))]
    pub lossy_pages: f64,
}

pub(crate) fn compute_bitmap_pages(c: &Consts, selectivity: f64, rel: RelSize) -> BitmapPages {
    let mut tuples_fetched = clamp_row_est(selectivity * rel.tuples);
    let t = if rel.pages > 1.0 { rel.pages } else { 1.0 };
    let mut pages_fetched = (2.0 * t * tuples_fetched) / (2.0 * t + tuples_fetched);
    let heap_pages = pages_fetched.min(rel.pages);
    let maxentries = tbm_calculate_entries(c.work_mem_bytes());
    pages_fetched = if pages_fetched >= t {
        t
    } else {
        pages_fetched.ceil()
    };
    let mut lossy_pages = 0.0;
    if maxentries < heap_pages {
        // maxentries / 2 is an integer division in C.
        lossy_pages = (heap_pages - (maxentries / 2.0).floor()).max(0.0);
        let exact_pages = heap_pages - lossy_pages;
        if lossy_pages > 0.0 {
            tuples_fetched = clamp_row_est(
                selectivity * (exact_pages / heap_pages) * rel.tuples
                    + (lossy_pages / heap_pages) * rel.tuples,
            );
        }
    }
    BitmapPages {
        pages_fetched,
        tuples_fetched,
        lossy_pages,
    }
}

/// cost_bitmap_tree_node for one index path (spec 6.1): the index cost plus a small
/// charge per row for building the bitmap.
pub(crate) fn cost_bitmap_tree_node(c: &Consts, index_total: f64, rel_rows: f64) -> f64 {
    index_total + 0.1 * c.cpu_operator_cost * rel_rows
}

/// cost_bitmap_heap_scan (spec 6.4); `divisor` for a parallel bitmap heap scan.
/// Returns the cost and the path's rows.
pub(crate) fn cost_bitmap_heap_scan(
    c: &Consts,
    tree_cost: f64,
    bp: &BitmapPages,
    rel: RelSize,
    restrict: QualCost,
    disable: f64,
    divisor: Option<f64>,
) -> (NodeCost, f64) {
    let mut rows = rel.rows;
    let mut startup = disable;
    startup += tree_cost;
    let t = if rel.pages > 1.0 { rel.pages } else { 1.0 };
    let cost_per_page = if bp.pages_fetched >= 2.0 {
        c.random_page_cost - (c.random_page_cost - c.seq_page_cost) * (bp.pages_fetched / t).sqrt()
    } else {
        c.random_page_cost
    };
    let mut run = bp.pages_fetched * cost_per_page;
    startup += restrict.startup;
    let cpu_per_tuple = c.cpu_tuple_cost + restrict.per_tuple;
    let mut cpu_run = cpu_per_tuple * bp.tuples_fetched;
    if let Some(d) = divisor {
        cpu_run /= d;
        rows = clamp_row_est(rows / d);
    }
    run += cpu_run;
    (
        NodeCost {
            startup,
            total: startup + run,
        },
        rows,
    )
}

/// Gather rows (spec 3.2): the relation's rows up to 17; 18 multiplies the partial
/// path's rows back by the divisor.
pub(crate) fn gather_rows(version: EngineVersion, rel_rows: f64, partial_rows: f64, d: f64) -> f64 {
    if version >= EngineVersion::Pg18 {
        clamp_row_est(partial_rows * d)
    } else {
        rel_rows
    }
}

/// Where a Gather Merge is built; in PG 15-17 that decides its row estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GatherMergeSite {
    /// allpaths.c generate_gather_paths / generate_useful_gather_paths on the scan rel:
    /// called with override_rows = false, so create_gather_merge_path gets rows = NULL and
    /// cost_gather_merge falls back to `rel->rows` (PG 15-17).
    ScanRel,
    /// planner.c create_ordered_paths: a Sort over the cheapest partial path, then a
    /// Gather Merge with `total_groups = cheapest_partial_path->rows *
    /// cheapest_partial_path->parallel_workers` (PG 15-17; no leader share, no clamp).
    Ordered,
}

/// Gather Merge rows (spec 3.2). PG 18+ use compute_gather_rows() = clamp_row_est(partial
/// rows x divisor) at both sites; PG 15-17 depend on the site (see [`GatherMergeSite`]).
pub(crate) fn gather_merge_rows(
    version: EngineVersion,
    site: GatherMergeSite,
    rel_rows: f64,
    partial_rows: f64,
    workers: u32,
    d: f64,
) -> f64 {
    match site {
        _ if version >= EngineVersion::Pg18 => clamp_row_est(partial_rows * d),
        GatherMergeSite::ScanRel => rel_rows,
        GatherMergeSite::Ordered => partial_rows * workers as f64,
    }
}

/// cost_gather (spec 3.2).
pub(crate) fn cost_gather(c: &Consts, sub: NodeCost, rows: f64) -> NodeCost {
    let mut startup = sub.startup;
    let mut run = sub.total - sub.startup;
    startup += c.parallel_setup_cost;
    run += c.parallel_tuple_cost * rows;
    NodeCost {
        startup,
        total: startup + run,
    }
}

/// cost_gather_merge (spec 3.2): a heap merge of N = workers + 1 sorted streams.
pub(crate) fn cost_gather_merge(c: &Consts, sub: NodeCost, rows: f64, workers: u32) -> NodeCost {
    let n = workers as f64 + 1.0;
    let log_n = log2_sort(n);
    let comparison_cost = 2.0 * c.cpu_operator_cost;
    let mut startup = comparison_cost * n * log_n;
    let mut run = rows * comparison_cost * log_n;
    run += c.cpu_operator_cost * rows;
    startup += c.parallel_setup_cost;
    run += c.parallel_tuple_cost * rows * 1.05;
    NodeCost {
        startup: startup + sub.startup,
        total: startup + run + sub.total,
    }
}

/// relation_byte_size: MAXALIGN(width) + MAXALIGN(heap tuple header) per tuple.
pub(crate) fn relation_byte_size(tuples: f64, width: f64) -> f64 {
    tuples * ((width / 8.0).ceil() * 8.0 + 24.0)
}

/// tuplesort_merge_order: merge fan-in that fits in the memory (spec 8.1).
pub(crate) fn tuplesort_merge_order(mem_bytes: f64) -> f64 {
    (mem_bytes / (BLCKSZ * 2.0 + BLCKSZ * 32.0))
        .floor()
        .clamp(6.0, 500.0)
}

/// Which algorithm cost_tuplesort assumed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SortMethod {
    Quicksort,
    TopNHeap,
    ExternalMerge,
}

/// cost_tuplesort (spec 8.1) result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SortCost {
    pub startup: f64,
    pub run: f64,
    #[cfg_attr(not(test), allow(dead_code))]
    pub method: SortMethod,
    /// Comparisons the formula charges for (tuples x log2 of the heap or input size).
    pub comparisons: f64,
    /// Bytes written to and read back from temporary files (page accesses x BLCKSZ).
    pub spill_bytes: f64,
}

pub(crate) fn cost_tuplesort(c: &Consts, tuples: f64, width: f64, limit_tuples: f64) -> SortCost {
    let input_bytes = relation_byte_size(tuples, width);
    let sort_mem_bytes = c.work_mem_bytes();
    let tuples = tuples.max(2.0);
    let comparison_cost = 2.0 * c.cpu_operator_cost;
    let (output_tuples, output_bytes) = if limit_tuples > 0.0 && limit_tuples < tuples {
        (limit_tuples, relation_byte_size(limit_tuples, width))
    } else {
        (tuples, input_bytes)
    };
    let (startup, method, comparisons, spill_bytes) = if output_bytes > sort_mem_bytes {
        let npages = (input_bytes / BLCKSZ).ceil();
        let nruns = input_bytes / sort_mem_bytes;
        let mergeorder = tuplesort_merge_order(sort_mem_bytes);
        let log_runs = if nruns > mergeorder {
            (nruns.ln() / mergeorder.ln()).ceil()
        } else {
            1.0
        };
        let npageaccesses = 2.0 * npages * log_runs;
        let cmp = tuples * log2_sort(tuples);
        let mut s = comparison_cost * cmp;
        s += npageaccesses * (c.seq_page_cost * 0.75 + c.random_page_cost * 0.25);
        (s, SortMethod::ExternalMerge, cmp, npageaccesses * BLCKSZ)
    } else if tuples > 2.0 * output_tuples || input_bytes > sort_mem_bytes {
        let cmp = tuples * log2_sort(2.0 * output_tuples);
        (comparison_cost * cmp, SortMethod::TopNHeap, cmp, 0.0)
    } else {
        let cmp = tuples * log2_sort(tuples);
        (comparison_cost * cmp, SortMethod::Quicksort, cmp, 0.0)
    };
    SortCost {
        startup,
        run: c.cpu_operator_cost * tuples,
        method,
        comparisons,
        spill_bytes,
    }
}

/// cost_sort: the input is consumed before the first row comes out.
pub(crate) fn cost_sort(input_total: f64, s: &SortCost, disable: f64) -> NodeCost {
    let mut startup = s.startup;
    startup += disable;
    startup += input_total;
    NodeCost {
        startup,
        total: startup + s.run,
    }
}

/// adjust_limit_rows_costs for `LIMIT n` without OFFSET (spec 8.3): interpolate.
/// Returns the cost and the rows.
pub(crate) fn cost_limit(sub: NodeCost, sub_rows: f64, count: f64) -> (NodeCost, f64) {
    let mut count_rows = count.max(1.0);
    if count_rows > sub_rows {
        count_rows = sub_rows;
    }
    let mut total = sub.total;
    if sub_rows > 0.0 {
        total = sub.startup + (sub.total - sub.startup) * count_rows / sub_rows;
    }
    (
        NodeCost {
            startup: sub.startup,
            total,
        },
        count_rows.max(1.0),
    )
}
