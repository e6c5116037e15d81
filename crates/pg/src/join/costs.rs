//! The join, aggregation and materialisation cost formulas of the join spec
//! (`postgresql-join-cost-model.md`, cited as §n) as pure functions of numbers. The
//! planner feeds them; unit tests check them on the spec's worked inputs.

use crate::costsize::relation_byte_size;
use crate::pathnodes::{clamp_row_est, Consts};

/// Cost constants plus the memory limits the join code reads (§0).
#[derive(Clone, Debug)]
pub(crate) struct JoinConsts {
    pub c: Consts,
    /// work_mem × hash_mem_multiplier in bytes (§0, pitfall 7).
    pub hash_mem: f64,
    /// PostgreSQL 18 keeps hash aggregation's entries in a bump allocator: no chunk headers
    /// on the tuple and the per-group states (hash_agg_entry_size).
    pub bump_hash_entries: bool,
}

impl JoinConsts {
    pub fn cop(&self) -> f64 {
        self.c.cpu_operator_cost
    }
    pub fn ctup(&self) -> f64 {
        self.c.cpu_tuple_cost
    }
    pub fn work_mem(&self) -> f64 {
        self.c.work_mem_bytes()
    }
}

/// `ceil(relation_byte_size / BLCKSZ)` (§0 page_size).
pub(crate) fn page_size(rows: f64, width: f64) -> f64 {
    (relation_byte_size(rows, width) / 8192.0).ceil()
}

/// Above this, the powers of two come from log2 (no u64 holds the next one).
const POW2_BY_BITS: f64 = (1u64 << 62) as f64;

/// The smallest power of two at or above `x` (at least 1), as PostgreSQL's
/// pg_nextpower2 finds it on integers: by bits, not by log2 and powf, which took a
/// twentieth of the join search's time and can round a count just above a power of two
/// down onto it.
fn next_pow2(x: f64) -> f64 {
    if x <= 1.0 {
        return 1.0;
    }
    if x < POW2_BY_BITS {
        return (x.ceil() as u64).next_power_of_two() as f64;
    }
    2f64.powf(x.log2().ceil())
}

/// The largest power of two at or below `x` (at least 1), by bits as [`next_pow2`].
fn prev_pow2(x: f64) -> f64 {
    if x < 1.0 {
        return 1.0;
    }
    if x < POW2_BY_BITS {
        return (1u64 << (63 - (x as u64).leading_zeros())) as f64;
    }
    2f64.powf(x.log2().floor())
}

fn maxalign(x: f64) -> f64 {
    (x / 8.0).ceil() * 8.0
}

/// ExecChooseHashTableSize (§3.2), serial: (nbuckets, nbatch).
pub(crate) fn choose_hash_table_size(ntuples: f64, width: f64, hash_mem: f64) -> (f64, f64) {
    choose_hash_table_size_parallel(ntuples, width, hash_mem, None)
}

/// ExecChooseHashTableSize for a Parallel Hash (`combined`: the outer's workers): the
/// participants' hash_mem together (try_combined_hash_mem); a table that does not fit it is
/// sized again with one process's hash_mem.
pub(crate) fn choose_hash_table_size_parallel(
    ntuples: f64,
    width: f64,
    hash_mem: f64,
    combined: Option<u32>,
) -> (f64, f64) {
    let ntuples = if ntuples <= 0.0 { 1000.0 } else { ntuples };
    let hash_mem = match combined {
        Some(w) => hash_mem * (w as f64 + 1.0),
        None => hash_mem,
    };
    let tupsize = 16.0 + 16.0 + maxalign(width);
    let inner_bytes = ntuples * tupsize;
    let mut htb = hash_mem;
    // Skew buckets take 2% of the memory (integer arithmetic in C).
    let bytes_per_mcv = tupsize + 8.0 * 8.0 + 4.0 + 16.0;
    let skew_mcvs = ((htb / bytes_per_mcv).floor() * 2.0 / 100.0).floor();
    htb -= skew_mcvs * bytes_per_mcv;
    let max_alloc_pointers = (0x3fff_ffff as f64 / 8.0).floor();
    let mut max_pointers = prev_pow2((htb / 8.0).floor().min(max_alloc_pointers));
    max_pointers = max_pointers.min((i32::MAX / 2 + 1) as f64);
    let nbuckets = next_pow2(1024f64.max(ntuples.ceil().min(max_pointers)));
    if inner_bytes + 8.0 * nbuckets > htb {
        if combined.is_some() {
            return choose_hash_table_size_parallel(
                ntuples,
                width,
                hash_mem_single(hash_mem, combined),
                None,
            );
        }
        let nb = next_pow2(
            (htb / (tupsize + 8.0))
                .floor()
                .min(max_pointers)
                .max(1024.0),
        );
        let room = (htb - 8.0 * nb).max(1.0);
        let nbatch = next_pow2(2f64.max((inner_bytes / room).ceil()));
        (nb, nbatch)
    } else {
        (nbuckets, 1.0)
    }
}

fn hash_mem_single(hash_mem: f64, combined: Option<u32>) -> f64 {
    match combined {
        Some(w) => hash_mem / (w as f64 + 1.0),
        None => hash_mem,
    }
}

/// A Parallel Hash's sizing: the inner's rows over all participants (inner rows times
/// its divisor, unclamped) and the outer's workers, whose hash_mem it may combine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedHash {
    pub inner_rows_total: f64,
    pub workers: u32,
}

/// Inner-side statistics of one hash clause (§3.5 inputs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BucketInput {
    /// get_variable_numdistinct of the inner var and whether it is the default.
    pub nd: f64,
    pub nd_default: bool,
    pub nullfrac: f64,
    /// First MCV frequency, 0 without MCVs.
    pub mcv_freq: f64,
    /// rows and tuples of the inner var's base relation.
    pub rel_rows: f64,
    pub rel_tuples: f64,
}

/// estimate_hash_bucket_stats, PG15-18 form (§3.5): (bucketsize fraction, mcv freq).
pub(crate) fn hash_bucket_stats(b: &BucketInput, nbuckets: f64) -> (f64, f64) {
    if b.nd_default {
        return (0.1f64.max(b.mcv_freq), b.mcv_freq);
    }
    let avgfreq = (1.0 - b.nullfrac) / b.nd;
    let mut nd = b.nd;
    if b.rel_tuples > 0.0 {
        nd = clamp_row_est(nd * b.rel_rows / b.rel_tuples);
    }
    let mut estfract = if nd > nbuckets {
        1.0 / nbuckets
    } else {
        1.0 / nd
    };
    if avgfreq > 0.0 && b.mcv_freq > avgfreq {
        estfract *= b.mcv_freq / avgfreq;
    }
    (estfract.clamp(1.0e-6, 1.0), b.mcv_freq)
}

/// compute_semi_anti_join_factors's result (§3.3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SemiFactors {
    pub outer_match_frac: f64,
    pub match_count: f64,
}

impl SemiFactors {
    /// `jselec` as the semi (or, for unique inner joins, the inner) selectivity, `nselec`
    /// the inner selectivity, `inner_rows` the inner relation's rows.
    pub fn new(jselec: f64, nselec: f64, inner_rows: f64) -> SemiFactors {
        let match_count = if jselec > 0.0 {
            (nselec * inner_rows / jselec).max(1.0)
        } else {
            1.0
        };
        SemiFactors {
            outer_match_frac: jselec,
            match_count,
        }
    }
}

/// Startup, total and rows of a path, as the join formulas read their inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct In {
    pub startup: f64,
    pub total: f64,
    pub rows: f64,
    pub width: f64,
}

impl In {
    pub fn run(&self) -> f64 {
        self.total - self.startup
    }
}

/// Qual costs in cost units.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Qual {
    pub startup: f64,
    pub per_tuple: f64,
}

/// Result of a join cost function.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct JoinCost {
    pub startup: f64,
    pub total: f64,
    /// Inner rescans' physical share: rows of the inner actually produced over all loops.
    pub inner_tuples: f64,
    pub nbatch: f64,
    pub nbuckets: f64,
    pub materialize_inner: bool,
}

/// What kind of join the executor runs (§2.2, §3.4, §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JKind {
    Inner,
    Left,
    Semi,
    Anti,
}

/// Nested loop (§2.1, §2.2). `rescan` = cost_rescan(inner) as (startup, total).
#[allow(clippy::too_many_arguments)]
pub(crate) fn nestloop(
    jc: &JoinConsts,
    outer: In,
    inner: In,
    rescan: (f64, f64),
    kind: JKind,
    semi: Option<SemiFactors>,
    indexed_join_quals: bool,
    qual: Qual,
    rows: f64,
) -> JoinCost {
    let (rs_start, rs_total) = rescan;
    let rs_run = rs_total - rs_start;
    let mut startup = outer.startup + inner.startup;
    let mut run = outer.run();
    if outer.rows > 1.0 {
        run += (outer.rows - 1.0) * rs_start;
    }
    let inner_run = inner.run();
    let ntuples;
    let early_stop = matches!(kind, JKind::Semi | JKind::Anti) || semi.is_some();
    if let (true, Some(sf)) = (early_stop, semi) {
        let outer_matched = (outer.rows * sf.outer_match_frac).round_ties_even();
        let mut matched = outer_matched;
        let mut unmatched = outer.rows - matched;
        let frac = 2.0 / (sf.match_count + 1.0);
        let mut nt = matched * inner.rows * frac;
        if indexed_join_quals {
            run += inner_run * frac;
            if matched > 1.0 {
                run += (matched - 1.0) * rs_run * frac;
            }
            if inner.rows > 0.0 {
                run += unmatched * rs_run / inner.rows;
            }
        } else {
            nt += unmatched * inner.rows;
            run += inner_run;
            if unmatched >= 1.0 {
                unmatched -= 1.0;
            } else {
                matched -= 1.0;
            }
            if matched > 0.0 {
                run += matched * rs_run * frac;
            }
            if unmatched > 0.0 {
                run += unmatched * rs_run;
            }
        }
        ntuples = nt;
    } else {
        run += inner_run;
        if outer.rows > 1.0 {
            run += (outer.rows - 1.0) * rs_run;
        }
        ntuples = outer.rows * inner.rows;
    }
    startup += qual.startup;
    run += (jc.ctup() + qual.per_tuple) * ntuples;
    let _ = rows;
    JoinCost {
        startup,
        total: startup + run,
        inner_tuples: ntuples,
        ..JoinCost::default()
    }
}

/// Hash join (§3.1, §3.4). `buckets` the inner side's stats of each hash clause,
/// `hq` the hash clauses' cost, `qp` the other join quals', `inner_sel` the product of
/// the hash clauses' inner selectivities (approx_tuple_count).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn hashjoin(
    jc: &JoinConsts,
    outer: In,
    inner: In,
    nclauses: usize,
    buckets: &[BucketInput],
    kind: JKind,
    semi: Option<SemiFactors>,
    hq: Qual,
    qp: Qual,
    inner_sel: f64,
) -> JoinCost {
    hashjoin_shared(
        jc, outer, inner, nclauses, buckets, kind, semi, hq, qp, inner_sel, None,
    )
}

/// [`hashjoin`], or with `shared` a Parallel Hash Join's (initial_cost_hashjoin with
/// parallel_hash): the shared table sized on every participant's inner rows; the rest on
/// the per-participant rows the inputs carry.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hashjoin_shared(
    jc: &JoinConsts,
    outer: In,
    inner: In,
    nclauses: usize,
    buckets: &[BucketInput],
    kind: JKind,
    semi: Option<SemiFactors>,
    hq: Qual,
    qp: Qual,
    inner_sel: f64,
    shared: Option<SharedHash>,
) -> JoinCost {
    let n = nclauses as f64;
    let cop = jc.cop();
    let mut startup = outer.startup + inner.total + (cop * n + jc.ctup()) * inner.rows;
    let mut run = outer.run() + cop * n * outer.rows;
    let (nbuckets, nbatch) = match shared {
        Some(sh) => choose_hash_table_size_parallel(
            sh.inner_rows_total,
            inner.width,
            jc.hash_mem,
            Some(sh.workers),
        ),
        None => choose_hash_table_size(inner.rows, inner.width, jc.hash_mem),
    };
    if nbatch > 1.0 {
        let ip = page_size(inner.rows, inner.width);
        let op = page_size(outer.rows, outer.width);
        startup += jc.c.seq_page_cost * ip;
        run += jc.c.seq_page_cost * (ip + 2.0 * op);
    }
    let virtualbuckets = nbuckets * nbatch;
    let mut bucketsize = 1.0f64;
    let mut mcvfreq = 1.0f64;
    if buckets.is_empty() {
        bucketsize = 1.0 / virtualbuckets;
        mcvfreq = 0.0;
    }
    for b in buckets {
        let (bs, mf) = hash_bucket_stats(b, virtualbuckets);
        bucketsize = bucketsize.min(bs);
        mcvfreq = mcvfreq.min(mf);
    }
    // A single MCV too large for hash_mem disables the path in every version (§3.4).
    if relation_byte_size(clamp_row_est(inner.rows * mcvfreq), inner.width) > jc.hash_mem {
        startup += crate::costsize::DISABLE_COST;
    }
    let hashjointuples;
    startup += hq.startup;
    let early_stop = matches!(kind, JKind::Semi | JKind::Anti) || semi.is_some();
    if let (true, Some(sf)) = (early_stop, semi) {
        let matched = (outer.rows * sf.outer_match_frac).round_ties_even();
        let frac = 2.0 / (sf.match_count + 1.0);
        run += hq.per_tuple * matched * clamp_row_est(inner.rows * bucketsize * frac) * 0.5;
        run += hq.per_tuple
            * (outer.rows - matched)
            * clamp_row_est(inner.rows / virtualbuckets)
            * 0.05;
        hashjointuples = if kind == JKind::Anti {
            outer.rows - matched
        } else {
            matched
        };
    } else {
        run += hq.per_tuple * outer.rows * clamp_row_est(inner.rows * bucketsize) * 0.5;
        hashjointuples = clamp_row_est(outer.rows * inner.rows * inner_sel);
    }
    startup += qp.startup;
    run += (jc.ctup() + qp.per_tuple) * hashjointuples;
    JoinCost {
        startup,
        total: startup + run,
        inner_tuples: inner.rows,
        nbatch,
        nbuckets,
        materialize_inner: false,
    }
}

/// mergejoinscansel's four fractions for the first merge clause (§4.1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanSel {
    pub outerstart: f64,
    pub outerend: f64,
    pub innerstart: f64,
    pub innerend: f64,
}

impl Default for ScanSel {
    fn default() -> Self {
        ScanSel {
            outerstart: 0.0,
            outerend: 1.0,
            innerstart: 0.0,
            innerend: 1.0,
        }
    }
}

/// Merge join (§4.2, §4.3). `outer`/`inner` are the inputs after any explicit sort;
/// `inner_sorted_here` says the inner got an explicit Sort (materialisation rule);
/// `inner_can_mark` whether the inner path supports mark/restore.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mergejoin(
    jc: &JoinConsts,
    outer: In,
    inner: In,
    ss: ScanSel,
    skip_mark_restore: bool,
    inner_sorted_here: bool,
    inner_can_mark: bool,
    enable_material: bool,
    mq: Qual,
    qp: Qual,
    mergejointuples: f64,
) -> JoinCost {
    let (mut os, mut oe, mut is, mut ie) = (ss.outerstart, ss.outerend, ss.innerstart, ss.innerend);
    let outer_skip = (outer.rows * os).round_ties_even();
    let inner_skip = (inner.rows * is).round_ties_even();
    let outer_rows = clamp_row_est(outer.rows * oe);
    let inner_rows = clamp_row_est(inner.rows * ie);
    if outer.rows > 0.0 {
        os = outer_skip / outer.rows;
        oe = outer_rows / outer.rows;
    }
    if inner.rows > 0.0 {
        is = inner_skip / inner.rows;
        ie = inner_rows / inner.rows;
    }
    let orun = outer.run();
    let irun = inner.run();
    let mut startup = outer.startup + orun * os + inner.startup + irun * is;
    let mut run = orun * (oe - os);
    let inner_run = irun * (ie - is);
    let rescanned = if skip_mark_restore {
        0.0
    } else {
        (mergejointuples - inner.rows).max(0.0)
    };
    let rescanratio = 1.0 + rescanned / inner_rows.max(1.0);
    let bare = inner_run * rescanratio;
    let mat = inner_run + jc.cop() * inner_rows * rescanratio;
    // enable_material off leaves only the materialisation an inner that cannot
    // mark and restore needs (final_cost_mergejoin).
    let materialize = if skip_mark_restore {
        false
    } else if (enable_material && mat < bare) || (!inner_sorted_here && !inner_can_mark) {
        true
    } else {
        enable_material
            && inner_sorted_here
            && relation_byte_size(inner.rows, inner.width) > jc.work_mem()
    };
    run += if materialize { mat } else { bare };
    startup += mq.startup + mq.per_tuple * (outer_skip + inner_skip * rescanratio);
    run += mq.per_tuple * ((outer_rows - outer_skip) + (inner_rows - inner_skip) * rescanratio);
    startup += qp.startup;
    run += (jc.ctup() + qp.per_tuple) * mergejointuples;
    JoinCost {
        startup,
        total: startup + run,
        inner_tuples: inner_rows * rescanratio,
        nbatch: 0.0,
        nbuckets: 0.0,
        materialize_inner: materialize,
    }
}

/// cost_material (§2.4): (startup, total).
pub(crate) fn material(jc: &JoinConsts, input: In) -> (f64, f64) {
    let mut run = input.run() + 2.0 * jc.cop() * input.rows;
    if relation_byte_size(input.rows, input.width) > jc.work_mem() {
        run += jc.c.seq_page_cost * page_size(input.rows, input.width);
    }
    (input.startup, input.startup + run)
}

/// cost_rescan of a Material or Sort node (§2.1).
pub(crate) fn material_rescan(jc: &JoinConsts, rows: f64, width: f64) -> (f64, f64) {
    let mut run = jc.cop() * rows;
    if relation_byte_size(rows, width) > jc.work_mem() {
        run += jc.c.seq_page_cost * page_size(rows, width);
    }
    (0.0, run)
}

/// Memoize rescan cost (§2.4), PG14/15 or PG16+ hit ratio: (startup, total, hit ratio).
pub(crate) fn memoize_rescan(
    jc: &JoinConsts,
    inner: In,
    calls: f64,
    ndistinct: f64,
    pg16: bool,
) -> (f64, f64, f64) {
    let calls = calls.max(1.0);
    let ndistinct = ndistinct.clamp(1.0, calls);
    let entry_bytes = relation_byte_size(inner.rows, inner.width) + 24.0 + 24.0 + 8.0 * inner.rows;
    let cache_entries = (jc.hash_mem / entry_bytes).floor().max(0.0);
    let evict = 1.0 - cache_entries.min(ndistinct) / ndistinct;
    let hit = if pg16 {
        ((calls - ndistinct) / calls) * (cache_entries / ndistinct.max(cache_entries).max(1.0))
    } else {
        (cache_entries.min(ndistinct) / ndistinct - ndistinct / calls).max(0.0)
    };
    let cop = jc.cop();
    let ctup = jc.ctup();
    let total = inner.total * (1.0 - hit)
        + cop
        + ctup * evict
        + (cop / 10.0) * evict * inner.rows
        + ctup
        + cop * inner.rows;
    let startup = inner.startup * (1.0 - hit) + ctup;
    (startup, total, hit)
}

/// cost_sort of a join input or a grouping input (§4.2, [SCAN] §8.1): (startup, total,
/// comparisons, spill bytes).
pub(crate) fn sort(jc: &JoinConsts, input: In, limit_tuples: f64) -> (f64, f64, f64, f64) {
    let s = crate::costsize::cost_tuplesort(&jc.c, input.rows, input.width, limit_tuples);
    let startup = input.total + s.startup;
    (startup, startup + s.run, s.comparisons, s.spill_bytes)
}

/// Aggregation strategy (§5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AggStrategy {
    Plain,
    Sorted,
    Hashed,
}

/// Aggregate cost inputs (§5.1) in cost units per input row / per group.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AggCosts {
    pub trans_per_tuple: f64,
    /// Calls of the schema's functions in the aggregates' arguments, per input row (work,
    /// not cost: their cost is in `trans_per_tuple`).
    pub calls_per_tuple: f64,
    pub final_per_group: f64,
    pub num_trans: f64,
    pub transition_space: f64,
    /// Parallel aggregation's split (get_agg_clause_costs with AGGSPLIT_INITIAL_SERIAL
    /// and AGGSPLIT_FINAL_DESERIAL): the serialization functions per group of a partial
    /// aggregate, and the combine and deserialization functions per input row of the
    /// finalizing one (no arguments evaluated there).
    pub serial_per_group: f64,
    pub combine_per_tuple: f64,
}

/// cost_agg (§5.2) with PG15's hash spill: (startup, total, spill pages written).
#[allow(clippy::too_many_arguments)]
pub(crate) fn agg(
    jc: &JoinConsts,
    strategy: AggStrategy,
    a: &AggCosts,
    num_group_cols: f64,
    groups: f64,
    input: In,
) -> (f64, f64, f64) {
    let cop = jc.cop();
    let ctup = jc.ctup();
    let in_rows = input.rows;
    match strategy {
        AggStrategy::Plain => {
            let startup = input.total + a.trans_per_tuple * in_rows + a.final_per_group;
            (startup, startup + ctup, 0.0)
        }
        AggStrategy::Sorted => {
            let total = input.total
                + a.trans_per_tuple * in_rows
                + cop * num_group_cols * in_rows
                + a.final_per_group * groups
                + ctup * groups;
            (input.startup, total, 0.0)
        }
        AggStrategy::Hashed => {
            let mut startup =
                input.total + a.trans_per_tuple * in_rows + cop * num_group_cols * in_rows;
            let mut total = startup + a.final_per_group * groups + ctup * groups;
            // hash_agg_entry_size: TupleHashEntryData (24), the group's minimal tuple
            // (16-byte header), its per-group states (16 each) and its transition space,
            // each in an AllocSet chunk with a 16-byte header; from 18 on the first two
            // come from a bump allocator (no headers, the tuple MAXALIGNed) and the
            // transition space is an AllocSet chunk of the next power of two.
            let hes = if jc.bump_hash_entries {
                24.0 + ((16.0 + input.width) / 8.0).ceil() * 8.0
                    + 16.0 * a.num_trans
                    + if a.transition_space > 0.0 {
                        16.0 + a.transition_space.log2().ceil().exp2()
                    } else {
                        0.0
                    }
            } else {
                24.0 + (16.0 + 16.0 + input.width)
                    + if a.num_trans > 0.0 {
                        16.0 + 16.0 * a.num_trans
                    } else {
                        0.0
                    }
                    + if a.transition_space > 0.0 {
                        16.0 + a.transition_space
                    } else {
                        0.0
                    }
            };
            let hash_mem = jc.hash_mem;
            let mut spill_pages = 0.0;
            if groups * hes > hash_mem {
                let max_part = ((hash_mem / 4.0 - 8192.0) / 8192.0).clamp(4.0, 1024.0);
                let d = (1.0 + 1.5 * groups * hes / hash_mem).clamp(4.0, max_part);
                let npart = next_pow2(d.trunc());
                let partition_mem = 8192.0 + 8192.0 * npart;
                let mem_limit = if hash_mem > 4.0 * partition_mem {
                    hash_mem - partition_mem
                } else {
                    0.75 * hash_mem
                };
                let ngroups_limit = if mem_limit > hes {
                    (mem_limit / hes).floor()
                } else {
                    1.0
                };
                let nbatches = ((groups * hes / mem_limit).max(groups / ngroups_limit))
                    .ceil()
                    .max(1.0);
                let npart = npart.max(2.0);
                let depth = (nbatches.ln() / npart.ln()).ceil().max(0.0);
                let pages = relation_byte_size(in_rows, input.width) / 8192.0;
                let pw = pages * depth * 2.0;
                startup += pw * jc.c.random_page_cost;
                total += pw * jc.c.random_page_cost + pw * jc.c.seq_page_cost;
                let spill = depth * in_rows * 2.0 * ctup;
                startup += spill;
                total += spill;
                spill_pages = pw;
            }
            (startup, total, spill_pages)
        }
    }
}

/// Inputs of a (possibly repeated) btree index scan, [SCAN] §4-5 with loop_count (§2.3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexLoopInput {
    pub heap_pages: f64,
    pub heap_tuples: f64,
    pub index_pages: f64,
    pub index_tuples: f64,
    pub tree_height: f64,
    /// Selectivity of the index quals (boundary quals = all of them here).
    pub selectivity: f64,
    pub n_quals: f64,
    pub unique_all_eq: bool,
    pub loop_count: f64,
    pub total_table_pages: f64,
    pub correlation: f64,
    /// Some(allvisfrac) for an index-only scan.
    pub index_only: Option<f64>,
    /// Quals checked on fetched rows, cost units.
    pub qpqual: Qual,
}

/// The cost of one scan of a parameterized index path: btcostestimate and cost_index
/// with loop_count (§2.3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct IndexLoopCost {
    pub startup: f64,
    pub total: f64,
    pub tuples_fetched: f64,
    pub index_tuples: f64,
    pub index_pages: f64,
    /// Heap pages read per scan (Mackert-Lohman share).
    pub heap_pages_per_scan: f64,
    pub descent_comparisons: f64,
    /// btcostestimate's own total (the index part, pro-rated per scan), what a Bitmap
    /// Index Scan over the same index quals costs.
    pub index_total: f64,
}

pub(crate) fn index_loop_cost(c: &Consts, x: &IndexLoopInput) -> IndexLoopCost {
    use crate::costsize::index_pages_fetched;
    let cop = c.cpu_operator_cost;
    let ecp = c.effective_cache_pages;
    let lc = x.loop_count.max(1.0);
    let mut nit = if x.unique_all_eq {
        1.0
    } else {
        (x.selectivity * x.heap_tuples).round_ties_even()
    };
    nit = nit.min(x.index_tuples).max(1.0);
    let nip = if x.index_pages > 1.0 && x.index_tuples > 1.0 {
        (nit * x.index_pages / x.index_tuples).ceil()
    } else {
        1.0
    };
    let ttp = x.total_table_pages;
    let mut itotal = if lc > 1.0 {
        index_pages_fetched(nip * lc, x.index_pages, x.index_pages, ttp, ecp) * c.random_page_cost
            / lc
    } else {
        nip * c.random_page_cost
    };
    itotal += nit * (c.cpu_index_tuple_cost + cop * x.n_quals);
    let mut istart = 0.0;
    let mut descent = 0.0;
    if x.index_tuples > 1.0 {
        descent = (x.index_tuples.ln() / 2f64.ln()).ceil();
        istart += descent * cop;
        itotal += descent * cop;
    }
    let d2 = (x.tree_height + 1.0) * 50.0 * cop;
    istart += d2;
    itotal += d2;
    let t = x.heap_pages;
    let tuples_fetched = clamp_row_est(x.selectivity * x.heap_tuples);
    let pf_of = |n: f64| {
        let mut pf = index_pages_fetched(n, t, x.index_pages, ttp, ecp);
        if let Some(av) = x.index_only {
            pf = (pf * (1.0 - av)).ceil();
        }
        pf
    };
    let (max_io, min_io, heap_pages) = if lc > 1.0 {
        let pmax = pf_of(tuples_fetched * lc);
        let pmin = pf_of((x.selectivity * t).ceil() * lc);
        (
            pmax * c.random_page_cost / lc,
            pmin * c.random_page_cost / lc,
            pmax / lc,
        )
    } else {
        let pmax = pf_of(tuples_fetched);
        let mut pc = (x.selectivity * t).ceil();
        if let Some(av) = x.index_only {
            pc = (pc * (1.0 - av)).ceil();
        }
        let min = if pc == 0.0 {
            0.0
        } else {
            c.random_page_cost + (pc - 1.0) * c.seq_page_cost
        };
        (pmax * c.random_page_cost, min, pmax)
    };
    let csq = x.correlation * x.correlation;
    let startup = istart + x.qpqual.startup;
    let total = startup
        + (itotal - istart)
        + max_io
        + csq * (min_io - max_io)
        + (c.cpu_tuple_cost + x.qpqual.per_tuple) * tuples_fetched;
    IndexLoopCost {
        startup,
        total,
        tuples_fetched,
        index_tuples: nit,
        index_pages: nip,
        heap_pages_per_scan: heap_pages,
        descent_comparisons: descent,
        index_total: itotal,
    }
}

/// A parameterized Bitmap Heap Scan over one index (cost_bitmap_heap_scan with
/// compute_bitmap_pages' loop_count branch, [SCAN] §6): (startup, total, heap pages per
/// scan, tuples fetched).
#[allow(clippy::too_many_arguments)]
pub(crate) fn bitmap_loop_cost(
    c: &Consts,
    index_total: f64,
    index_path_rows: f64,
    selectivity: f64,
    heap_pages: f64,
    heap_tuples: f64,
    index_pages: f64,
    loop_count: f64,
    total_table_pages: f64,
    qual: Qual,
) -> (f64, f64, f64, f64) {
    use crate::costsize::{index_pages_fetched, tbm_calculate_entries};
    let tree = index_total + 0.1 * c.cpu_operator_cost * index_path_rows;
    let mut tuples_fetched = clamp_row_est(selectivity * heap_tuples);
    let t = heap_pages.max(1.0);
    let mut pages = (2.0 * t * tuples_fetched) / (2.0 * t + tuples_fetched);
    let heap_pg = pages.min(heap_pages);
    let maxentries = tbm_calculate_entries(c.work_mem_bytes());
    if loop_count > 1.0 {
        pages = index_pages_fetched(
            tuples_fetched * loop_count,
            heap_pages,
            index_pages,
            total_table_pages,
            c.effective_cache_pages,
        ) / loop_count;
    }
    pages = if pages >= t { t } else { pages.ceil() };
    if maxentries < heap_pg {
        let lossy = (heap_pg - (maxentries / 2.0).floor()).max(0.0);
        if lossy > 0.0 {
            let exact = heap_pg - lossy;
            tuples_fetched = clamp_row_est(
                selectivity * (exact / heap_pg) * heap_tuples + (lossy / heap_pg) * heap_tuples,
            );
        }
    }
    let cost_per_page = if pages >= 2.0 {
        c.random_page_cost - (c.random_page_cost - c.seq_page_cost) * (pages / t).sqrt()
    } else {
        c.random_page_cost
    };
    let startup = tree + qual.startup;
    let total =
        startup + pages * cost_per_page + (c.cpu_tuple_cost + qual.per_tuple) * tuples_fetched;
    (startup, total, pages, tuples_fetched)
}

#[cfg(test)]
mod tests {
    use super::{next_pow2, prev_pow2};
    use proptest::prelude::*;

    proptest! {
        /// The powers of two by bits: a power of two, on the right side of `x`, and the
        /// nearest such; on counts below 2^40 the same as log2 and powf give.
        #[test]
        fn powers_of_two_by_bits_bracket_x(x in 1.0f64..1e15) {
            let (up, down) = (next_pow2(x), prev_pow2(x));
            for p in [up, down] {
                prop_assert_eq!(p.log2().fract(), 0.0, "{} is no power of two", p);
            }
            prop_assert!(up >= x && up / 2.0 < x, "next_pow2({x}) = {up}");
            prop_assert!(down <= x && down * 2.0 > x, "prev_pow2({x}) = {down}");
            let n = x.floor().min(2f64.powi(40));
            prop_assert_eq!(next_pow2(n), 2f64.powf(n.log2().ceil()));
            prop_assert_eq!(prev_pow2(n), 2f64.powf(n.log2().floor()));
        }
    }

    #[test]
    fn powers_of_two_at_the_edges() {
        assert_eq!(next_pow2(0.5), 1.0);
        assert_eq!(next_pow2(1024.0), 1024.0);
        assert_eq!(next_pow2(1024.5), 2048.0);
        assert_eq!(next_pow2(1025.0), 2048.0);
        assert_eq!(prev_pow2(0.5), 1.0);
        assert_eq!(prev_pow2(1023.9), 512.0);
        assert_eq!(prev_pow2(1024.0), 1024.0);
        assert!(next_pow2(f64::NAN).is_nan());
        assert_eq!(next_pow2(1e30), 2f64.powi(100));
        assert_eq!(prev_pow2(1e30), 2f64.powi(99));
    }
}
