//! The measurements: sequential and random reads of the test file, buffer and page-cache
//! hits, CPU per row.
//!
//! # Method
//!
//! The confidence interval of a figure must describe how much the figure moves from one run
//! to the next, not only how much back-to-back samples scatter within a short window: on a
//! virtual machine the CPU frequency, steal time, the physical placement of a buffer and the
//! host's disk cache all drift over seconds to minutes. So every figure is measured in many
//! short runs spread over the whole measuring time (calibration-and-devices.md §4.5, with
//! blocks):
//!
//! - The run is cut into [`Plan::blocks`] blocks (24 by default, 8 with `--quick`) after a
//!   warm-up block of half length that is discarded. Each block runs every *step* once, in
//!   an order shuffled anew for the block: the 14 I/O configurations (2 sequential request
//!   sizes, 2 page sizes × 6 queue depths), the two buffer hits (8 and 16 kB), the page-cache
//!   hit and the CPU loop. A figure's runs are therefore interleaved with every other step
//!   and spread evenly over the run, so slow drift lands in the spread between blocks.
//! - The CPU-bound steps measure something new in every block, so one lucky or unlucky
//!   placement cannot dominate a run: the buffer pool (64 MiB) is a fresh allocation with
//!   fresh random pages to copy; the page-cache region (64 MiB of the test file) starts at a
//!   fresh random offset, is read into the cache for the block and dropped after it; the rows
//!   of the CPU loop are a fresh allocation with fresh random values. I/O runs start at fresh
//!   random offsets.
//! - One summary per block and figure (the run's MB/s, IOPS, mean, p50 and p99 latency; the
//!   ns per hit; the CPU slope of that block); the figure is the median over the blocks.
//!   Its 95 % interval is the wider of two (`stats::estimate`): a percentile bootstrap over
//!   the blocks (a block, or cluster, bootstrap: a block is the unit resampled, never the
//!   samples inside one), resampled in runs of neighbours in time (circular moving-block),
//!   and a batch-means t interval over four consecutive segments of the run (about 15 s
//!   each by default; `stats::segment_interval`). The bootstrap alone treats blocks a few
//!   apart as independent, so on a virtual disk whose throughput wanders over tens of
//!   seconds it gave intervals about half as wide as the differences between two runs; the
//!   segments compare the run's stretches with each other, so a level that moves during
//!   the run widens the interval by as much as it moved. A figure whose segment medians
//!   differ by more than [`DRIFT_WARN`] is also named in a warning ([`Measured::drift`]).
//!   `runs` of an estimate is the number of blocks behind it.
//! - The memory tiers are timed in chunks shorter than a scheduler time slice and a block's
//!   value is the median chunk, so time another process held the CPU stays out of them;
//!   the CPU loop keeps the fastest scan per size for the same reason.
//! - Other processes: the CPU time the rest of the machine used during the measurements
//!   (/proc/stat less this process) and the steal time are recorded
//!   ([`Measured::others_cpu`]), since on a small machine they move every figure.
//! - Time: before every block, what is left of `--max-seconds` (after the test file was
//!   written) is shared among the blocks still to run, less the set-up time the previous
//!   block needed (allocations, loading the cached region), so the run keeps its budget
//!   whatever the machine's speed. Within a block an I/O configuration gets one share, the
//!   sequential 1 MiB reads [`SEQ_LARGE_WEIGHT`] shares (a virtual disk bursts), the memory
//!   and CPU steps fractions of one ([`MEM_WEIGHT`], [`CPU_WEIGHT`]).

use crate::io::{advise_random, drop_cache, AlignedBuf, IoMode};
use crate::stats::{drift, estimate, linear_fit, median, percentile_ns};
use costlab_core::calibration::{Estimate, RandomPoint, RandomSeries};
use indicatif::ProgressBar;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt, SeedableRng};
use std::fs::File;
use std::hint::black_box;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

pub const QUEUE_DEPTHS: [usize; 6] = [1, 2, 4, 8, 16, 32];
pub const PAGE_SIZES: [usize; 2] = [8192, 16384];
pub const LARGE_REQUEST: usize = 1 << 20;
pub const PAGE_REQUEST: usize = 8192;
/// Time of one memory step (a buffer hit, the page-cache hit) in a block, as a fraction of
/// an I/O configuration's time.
pub const MEM_WEIGHT: f64 = 0.3;
/// Time of the CPU step in a block, as a fraction of an I/O configuration's time.
pub const CPU_WEIGHT: f64 = 0.8;
/// Time of the sequential 1 MiB step in a block, in I/O configuration shares.
pub const SEQ_LARGE_WEIGHT: f64 = 4.0;
/// A figure whose segment medians differ by more than this (highest / lowest - 1) is named
/// in a warning.
pub const DRIFT_WARN: f64 = 0.15;
/// Shortest run of a step, whatever the budget.
const MIN_RUN: Duration = Duration::from_millis(3);

pub struct Plan {
    pub quick: bool,
    /// Measured blocks (after the discarded warm-up block).
    pub blocks: usize,
    pub seed: u64,
}

impl Plan {
    pub fn new(quick: bool, seed: u64) -> Plan {
        Plan {
            quick,
            blocks: if quick { 8 } else { 24 },
            seed,
        }
    }

    /// Runs the steps report: every step once per block, warm-up included.
    pub fn total_runs(&self) -> u64 {
        (steps().len() * (self.blocks + 1)) as u64
    }
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Seq { request: usize },
    Rand { page: usize, qd: usize },
    BufferHit { page: usize },
    OsCacheHit,
    Cpu,
}

impl Step {
    fn weight(self) -> f64 {
        match self {
            // Long sequential runs: a virtual disk serves a short burst faster than it
            // sustains (a host-side token bucket), and the figure is the sustained rate.
            Step::Seq { request } if request == LARGE_REQUEST => SEQ_LARGE_WEIGHT,
            Step::Seq { .. } | Step::Rand { .. } => 1.0,
            Step::BufferHit { .. } | Step::OsCacheHit => MEM_WEIGHT,
            Step::Cpu => CPU_WEIGHT,
        }
    }
}

/// Every step of a block, in a fixed order (shuffled per block when run).
fn steps() -> Vec<Step> {
    let mut v = vec![
        Step::Seq {
            request: LARGE_REQUEST,
        },
        Step::Seq {
            request: PAGE_REQUEST,
        },
    ];
    for &page in &PAGE_SIZES {
        for &qd in &QUEUE_DEPTHS {
            v.push(Step::Rand { page, qd });
        }
    }
    v.push(Step::BufferHit { page: 8192 });
    v.push(Step::BufferHit { page: 16384 });
    v.push(Step::OsCacheHit);
    v.push(Step::Cpu);
    v
}

/// One summary per measured block.
#[derive(Default)]
struct Samples {
    /// Seq: MB/s; random: IOPS; memory and CPU: ns.
    value: Vec<f64>,
    mean_us: Vec<f64>,
    p50_us: Vec<f64>,
    p99_us: Vec<f64>,
}

pub struct Measured {
    pub seq_large_mbps: Estimate,
    pub seq_page_mbps: Estimate,
    pub random: Vec<RandomSeries>,
    pub buffer_hit_ns: Estimate,
    pub buffer_hit_16k_ns: Estimate,
    pub os_cache_hit_ns: Estimate,
    pub cpu_ns_per_row: Estimate,
    pub blocks: usize,
    /// Figures that moved during the run: name, lowest and highest segment median, and
    /// highest / lowest - 1; only those above [`DRIFT_WARN`].
    pub drift: Vec<(String, f64, f64, f64)>,
    /// CPU use of the rest of the machine while measuring, when the platform tells.
    pub others_cpu: Option<crate::machine::CpuShare>,
}

impl Step {
    fn name(self) -> String {
        match self {
            Step::Seq { request } if request == LARGE_REQUEST => "seq_read.large MB/s".into(),
            Step::Seq { .. } => "seq_read.page MB/s".into(),
            Step::Rand { page, qd } => format!("random {} kB QD{qd} IOPS", page / 1024),
            Step::BufferHit { page: 8192 } => "buffer_hit_ns".into(),
            Step::BufferHit { .. } => "buffer_hit_16k_ns".into(),
            Step::OsCacheHit => "os_cache_hit_ns".into(),
            Step::Cpu => "cpu_ns_per_row".into(),
        }
    }
}

fn interrupted() -> String {
    "interrupted".to_string()
}

/// Everything, within `deadline`.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    path: &Path,
    file_bytes: u64,
    file: &File,
    mode: IoMode,
    plan: &Plan,
    deadline: Instant,
    cancel: &AtomicBool,
    bar: &ProgressBar,
) -> Result<Measured, String> {
    let mut rng = SmallRng::seed_from_u64(plan.seed);
    // Keep a margin for a block that overruns its share, the statistics and removing the
    // test file: 0.5 s and 3 % of what is left (a loaded machine stretches the set-up of
    // the last block).
    let left = deadline.saturating_duration_since(Instant::now());
    let deadline = deadline - (Duration::from_millis(500) + left.mul_f64(0.03)).min(left);
    let steps = steps();
    let weights: f64 = steps.iter().map(|s| s.weight()).sum();
    let max_rows: usize = if plan.quick { 1 << 19 } else { 1 << 20 };
    let cached_file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    advise_random(&cached_file);
    let region_bytes = file_bytes.min(64 << 20) / 8192 * 8192;
    let ctx = |e: io::Error| format!("{}: {e}", path.display());

    let mut samples: Vec<Samples> = steps.iter().map(|_| Samples::default()).collect();
    let cpu_before = crate::machine::CpuTimes::now();
    let mut order: Vec<usize> = (0..steps.len()).collect();
    // Set-up time a block needs besides its measuring time (allocations, loading the
    // region); learnt from the blocks run so far.
    let mut overhead = Duration::ZERO;
    for block in 0..=plan.blocks {
        let warmup = block == 0;
        bar.set_message(if warmup {
            "warming up".to_string()
        } else {
            format!("block {block} of {}", plan.blocks)
        });
        // This block's share of what is left: the warm-up counts half.
        let units_left = (plan.blocks + 1 - block) as f64 - if warmup { 0.5 } else { 0.0 };
        let this_units = if warmup { 0.5 } else { 1.0 };
        let left = deadline.saturating_duration_since(Instant::now());
        let share = left.mul_f64(this_units / units_left);
        let measuring = share.saturating_sub(overhead.mul_f64(this_units));
        let unit = measuring.div_f64(weights);
        let block_start = Instant::now();
        let mut measured = Duration::ZERO;

        order.shuffle(&mut rng);
        // The buffer pool of this block, allocated by its first buffer-hit step.
        let mut pool: Option<Vec<u8>> = None;
        for &j in &order {
            if cancel.load(Ordering::Relaxed) {
                return Err(interrupted());
            }
            let len = unit.mul_f64(steps[j].weight()).max(MIN_RUN);
            let seed = rng.next_u64();
            let s = &mut samples[j];
            match steps[j] {
                Step::Seq { request } => {
                    if mode == IoMode::BufferedDontNeed {
                        drop_cache(file, 0, 0);
                    }
                    let mbps = seq_run(file, file_bytes, request, len, seed)
                        .map_err(|e| format!("sequential read of {}: {e}", path.display()))?;
                    if !warmup {
                        s.value.push(mbps);
                    }
                }
                Step::Rand { page, qd } => {
                    if mode == IoMode::BufferedDontNeed {
                        drop_cache(file, 0, 0);
                    }
                    let r = random_run(file, file_bytes, page, qd, len, seed)
                        .map_err(|e| format!("random read of {}: {e}", path.display()))?;
                    if !warmup {
                        s.value.push(r.iops);
                        s.mean_us.push(r.mean_us);
                        s.p50_us.push(r.p50_us);
                        s.p99_us.push(r.p99_us);
                    }
                }
                Step::BufferHit { page } => {
                    let data = pool.get_or_insert_with(new_pool);
                    let ns = buffer_hit_ns(data, page, len, seed);
                    if !warmup {
                        s.value.push(ns);
                    }
                }
                Step::OsCacheHit => {
                    let ns = os_cache_hit_ns(&cached_file, file_bytes, region_bytes, len, seed)
                        .map_err(ctx)?;
                    if !warmup {
                        s.value.push(ns);
                    }
                }
                Step::Cpu => {
                    if let Some(per_row) = cpu_per_row(max_rows, len, seed) {
                        if !warmup {
                            s.value.push(per_row);
                        }
                    }
                }
            }
            measured += len;
            bar.inc(1);
        }
        drop(pool);
        let spent = block_start.elapsed();
        overhead = spent.saturating_sub(measured).div_f64(this_units);
    }

    let others_cpu = cpu_before.and_then(|b| crate::machine::CpuTimes::now()?.share_since(&b));
    let mut moved = Vec::new();
    for (step, s) in steps.iter().zip(&samples) {
        if let Some((lo, hi, rel)) = drift(&s.value) {
            if rel > DRIFT_WARN {
                moved.push((step.name(), lo, hi, rel));
            }
        }
    }
    let mut est = |v: &[f64]| estimate(v, &mut rng);
    let find =
        |want: &dyn Fn(Step) -> bool| -> usize { steps.iter().position(|s| want(*s)).unwrap_or(0) };
    let seq_large_mbps = est(&samples
        [find(&|s| matches!(s, Step::Seq { request } if request == LARGE_REQUEST))]
    .value);
    let seq_page_mbps = est(&samples
        [find(&|s| matches!(s, Step::Seq { request } if request == PAGE_REQUEST))]
    .value);
    let mut random = Vec::new();
    for &page in &PAGE_SIZES {
        let mut points = Vec::new();
        for &qd in &QUEUE_DEPTHS {
            let s = &samples
                [find(&|s| matches!(s, Step::Rand { page: p, qd: q } if p == page && q == qd))];
            points.push(RandomPoint {
                queue_depth: qd as u32,
                iops: est(&s.value),
                mean_us: est(&s.mean_us),
                p50_us: est(&s.p50_us),
                p99_us: est(&s.p99_us),
            });
        }
        random.push(RandomSeries {
            page_bytes: page as u32,
            points,
        });
    }
    let hit8 = &samples[find(&|s| matches!(s, Step::BufferHit { page: 8192 }))].value;
    let hit16 = &samples[find(&|s| matches!(s, Step::BufferHit { page: 16384 }))].value;
    let os = &samples[find(&|s| matches!(s, Step::OsCacheHit))].value;
    let cpu = &samples[find(&|s| matches!(s, Step::Cpu))].value;
    Ok(Measured {
        seq_large_mbps,
        seq_page_mbps,
        random,
        buffer_hit_ns: est(hit8),
        buffer_hit_16k_ns: est(hit16),
        os_cache_hit_ns: est(os),
        cpu_ns_per_row: est(cpu),
        blocks: plan.blocks,
        drift: moved,
        others_cpu,
    })
}

/// Sequential reads of `request` bytes from a random aligned start, wrapping at the end,
/// for `len`; MB/s (10^6 bytes per second).
pub fn seq_run(
    f: &File,
    file_bytes: u64,
    request: usize,
    len: Duration,
    seed: u64,
) -> io::Result<f64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let reqs = (file_bytes / request as u64).max(1);
    let mut i = rng.random_range(0..reqs);
    let mut buf = AlignedBuf::new(request);
    let start = Instant::now();
    let end = start + len;
    let mut bytes = 0u64;
    loop {
        let n = f.read_at(buf.as_mut_slice(), i * request as u64)?;
        if n != request {
            return Err(io::Error::other(format!(
                "short read: {n} of {request} bytes"
            )));
        }
        bytes += n as u64;
        i = (i + 1) % reqs;
        let now = Instant::now();
        if now >= end {
            return Ok(bytes as f64 / (now - start).as_secs_f64() / 1e6);
        }
    }
}
pub struct RandomRun {
    pub iops: f64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

/// `qd` threads, each reading random aligned pages at queue depth 1 (pread), for `len`.
pub fn random_run(
    f: &File,
    file_bytes: u64,
    page: usize,
    qd: usize,
    len: Duration,
    seed: u64,
) -> io::Result<RandomRun> {
    let pages = (file_bytes / page as u64).max(1);
    let barrier = Barrier::new(qd);
    let results: Vec<io::Result<(Instant, Instant, Vec<u64>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..qd)
            .map(|t| {
                let barrier = &barrier;
                s.spawn(move || {
                    let mut rng =
                        SmallRng::seed_from_u64(seed.wrapping_add(t as u64 * 0x9e37_79b9));
                    let mut buf = AlignedBuf::new(page);
                    let mut lat = Vec::with_capacity(1 << 12);
                    barrier.wait();
                    let start = Instant::now();
                    let end = start + len;
                    loop {
                        let off = rng.random_range(0..pages) * page as u64;
                        let t0 = Instant::now();
                        let n = f.read_at(buf.as_mut_slice(), off)?;
                        let t1 = Instant::now();
                        if n != page {
                            return Err(io::Error::other(format!(
                                "short read: {n} of {page} bytes"
                            )));
                        }
                        lat.push((t1 - t0).as_nanos() as u64);
                        if t1 >= end {
                            return Ok((start, t1, lat));
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(io::Error::other("reader thread panicked")))
            })
            .collect()
    });
    let mut all = Vec::new();
    let mut first: Option<Instant> = None;
    let mut last: Option<Instant> = None;
    for r in results {
        let (s, e, lat) = r?;
        first = Some(first.map_or(s, |f| f.min(s)));
        last = Some(last.map_or(e, |l| l.max(e)));
        all.extend(lat);
    }
    let wall = match (first, last) {
        (Some(a), Some(b)) => (b - a).as_secs_f64(),
        _ => 0.0,
    };
    all.sort_unstable();
    let n = all.len();
    let mean_ns = all.iter().map(|&x| x as f64).sum::<f64>() / n.max(1) as f64;
    Ok(RandomRun {
        iops: n as f64 / wall.max(1e-9),
        mean_us: mean_ns / 1e3,
        p50_us: percentile_ns(&all, 50.0) as f64 / 1e3,
        p99_us: percentile_ns(&all, 99.0) as f64 / 1e3,
    })
}

/// Size of the buffer pool, larger than any last-level cache.
const POOL_BYTES: usize = 64 << 20;

/// A fresh page pool: a new allocation, every page written (touched) once. The content
/// does not matter to a copy.
fn new_pool() -> Vec<u8> {
    vec![0x5a_u8; POOL_BYTES]
}

/// A buffer hit: copy one `page` out of the hot pool (as a buffer manager hands a page to
/// the executor), at pages drawn at random with `seed`, for `len`; ns per hit: the median
/// over chunks of 256 hits, each timed on its own. A chunk takes a few hundred µs, less
/// than a scheduler time slice, so the few chunks during which another process had the
/// CPU are outliers the median leaves out: the figure is the cost of a hit while the CPU
/// is ours (what a cost model charges per page), not the share of the CPU the other
/// processes left us. Memory bandwidth they take is still in it.
fn buffer_hit_ns(pool: &[u8], page: usize, len: Duration, seed: u64) -> f64 {
    let mut rng = SmallRng::seed_from_u64(seed);
    let pages = (pool.len() / page) as u32;
    let picks: Vec<u32> = (0..1 << 16).map(|_| rng.random_range(0..pages)).collect();
    let mut scratch = vec![0u8; page];
    let start = Instant::now();
    let mut chunks = Vec::with_capacity(1024);
    let mut k = 0usize;
    loop {
        let t = Instant::now();
        for _ in 0..256 {
            let p = picks[k & 0xffff] as usize * page;
            k += 1;
            scratch.copy_from_slice(black_box(&pool[p..p + page]));
            black_box(&mut scratch);
        }
        let now = Instant::now();
        chunks.push((now - t).as_nanos() as f64 / 256.0);
        if now - start >= len {
            return median(&chunks);
        }
    }
}

/// An OS page-cache hit: a region of `region` bytes of the test file at a random offset
/// is read once through the page cache, then read at random 8 kB pages with buffered
/// pread for `len`, then dropped from the cache again; ns per read: the median over chunks
/// of 64 reads, each timed on its own (see [`buffer_hit_ns`] for why).
fn os_cache_hit_ns(
    f: &File,
    file_bytes: u64,
    region: u64,
    len: Duration,
    seed: u64,
) -> io::Result<f64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let region = region.max(8192);
    let starts = file_bytes.saturating_sub(region) / 8192 + 1;
    let base = rng.random_range(0..starts) * 8192;
    let mut buf = vec![0u8; 1 << 20];
    let mut off = 0;
    while off < region {
        let want = ((region - off) as usize).min(buf.len());
        let n = f.read_at(&mut buf[..want], base + off)?;
        if n == 0 {
            break;
        }
        off += n as u64;
    }
    let pages = (off / 8192).max(1);
    let mut page = vec![0u8; 8192];
    let r = (|| {
        let start = Instant::now();
        let mut chunks = Vec::with_capacity(1024);
        loop {
            let t = Instant::now();
            for _ in 0..64 {
                let o = base + rng.random_range(0..pages) * 8192;
                f.read_at(&mut page, o)?;
            }
            let now = Instant::now();
            chunks.push((now - t).as_nanos() as f64 / 64.0);
            if now - start >= len {
                return Ok(median(&chunks));
            }
        }
    })();
    drop_cache(f, base, region);
    r
}

/// A row of a narrow table as an executor sees it: a few fixed-width columns and a payload,
/// 128 bytes.
#[derive(Clone, Copy)]
#[repr(C)]
struct Row {
    id: u64,
    a: i32,
    b: i32,
    c: i64,
    payload: [u8; 104],
}

/// Scans rows with a two-comparison predicate, summing a column of the qualifying ones.
#[inline(never)]
fn scan(rows: &[Row], limit: i32) -> i64 {
    let mut sum = 0i64;
    for r in rows {
        if r.a < limit && r.b != 0 {
            sum = sum.wrapping_add(r.c ^ r.payload[0] as i64);
        }
    }
    sum
}

/// CPU per row for one block: a fresh allocation of `max_rows` rows with fresh random
/// values; scans of four sizes (`max_rows`, ½, ¼, ⅛) in rounds of shuffled order for `len`
/// (at least two rounds), the fastest time per size, and the least-squares slope of time
/// over rows: ns per row without the fixed cost of a scan. None if no slope can be fitted.
fn cpu_per_row(max_rows: usize, len: Duration, seed: u64) -> Option<f64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let rows: Vec<Row> = (0..max_rows)
        .map(|i| Row {
            id: i as u64,
            a: rng.random_range(0..1000),
            b: rng.random_range(0..4),
            c: rng.next_u64() as i64,
            payload: [i as u8; 104],
        })
        .collect();
    let mut sizes: Vec<usize> = (0..4).map(|k| max_rows >> k).collect();
    let mut best = [f64::INFINITY; 4];
    let start = Instant::now();
    let mut rounds = 0;
    while rounds < 2 || start.elapsed() < len {
        sizes.shuffle(&mut rng);
        for &n in &sizes {
            let t = Instant::now();
            black_box(scan(black_box(&rows[..n]), black_box(500)));
            let k = (max_rows / n).trailing_zeros() as usize;
            best[k] = best[k].min(t.elapsed().as_nanos() as f64);
        }
        rounds += 1;
    }
    let x: Vec<f64> = (0..4).map(|k| (max_rows >> k) as f64).collect();
    let (slope, _) = linear_fit(&x, &best)?;
    // A slope at or below zero is noise on a tiny budget: use the mean instead.
    Some(if slope > 0.0 {
        slope
    } else {
        median(&best.iter().zip(&x).map(|(t, n)| t / n).collect::<Vec<_>>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_run_counts_reads_and_percentiles() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![1u8; 1 << 20]).unwrap();
        let f = File::open(&p).unwrap();
        let r = random_run(&f, 1 << 20, 8192, 4, Duration::from_millis(20), 7).unwrap();
        assert!(r.iops > 0.0 && r.mean_us > 0.0);
        assert!(r.p50_us <= r.p99_us);
        let mbps = seq_run(&f, 1 << 20, 8192, Duration::from_millis(10), 1).unwrap();
        assert!(mbps > 0.0);
        // A region at a random offset of a file larger than the region.
        let ns = os_cache_hit_ns(&f, 1 << 20, 256 << 10, Duration::from_millis(5), 3).unwrap();
        assert!(ns > 0.0);
    }

    #[test]
    fn memory_tiers_and_cpu_give_positive_figures() {
        let pool = new_pool();
        assert!(buffer_hit_ns(&pool, 8192, Duration::from_millis(5), 1) > 0.0);
        assert!(buffer_hit_ns(&pool, 16384, Duration::from_millis(5), 2) > 0.0);
        for seed in 0..3 {
            let s = cpu_per_row(1 << 16, Duration::from_millis(1), seed).unwrap();
            assert!(s > 0.0, "{s}");
        }
    }

    #[test]
    fn every_step_runs_once_per_block() {
        let plan = Plan::new(true, 1);
        assert_eq!(steps().len(), 2 + PAGE_SIZES.len() * QUEUE_DEPTHS.len() + 4);
        assert_eq!(
            plan.total_runs(),
            (steps().len() * (plan.blocks + 1)) as u64
        );
    }

    #[test]
    fn a_short_run_gives_one_value_per_block() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, vec![7u8; 4 << 20]).unwrap();
        let f = File::open(&p).unwrap();
        let plan = Plan::new(true, 5);
        let start = Instant::now();
        let m = measure(
            &p,
            4 << 20,
            &f,
            IoMode::BufferedDontNeed,
            &plan,
            start + Duration::from_millis(2500),
            &AtomicBool::new(false),
            &ProgressBar::hidden(),
        )
        .unwrap();
        // The time is not asserted (a loaded machine); the run says it.
        println!("2.5 s budget: {:?}", start.elapsed());
        for e in [
            &m.seq_large_mbps,
            &m.buffer_hit_ns,
            &m.buffer_hit_16k_ns,
            &m.os_cache_hit_ns,
            &m.cpu_ns_per_row,
            &m.random[1].points[5].iops,
        ] {
            assert_eq!(e.runs as usize, plan.blocks);
            assert!(e.lo <= e.median && e.median <= e.hi && e.lo > 0.0, "{e:?}");
        }
    }
}
