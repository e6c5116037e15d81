//! The measurements: sequential and random reads of the test file, buffer and page-cache
//! hits, CPU per row.
//!
//! Method (calibration-and-devices.md §4.5): every I/O configuration (2 sequential request
//! sizes, 2 page sizes × 6 queue depths) runs once per block, in an order shuffled anew for
//! each block; a first block of half-length runs warms up and is discarded; the figure of a
//! configuration is the median over the blocks with a bootstrap interval. Memory tiers and
//! the CPU loop follow the same pattern on their own. Time budgets are shares of what is
//! left of `--max-seconds` after the test file was written.

use crate::io::{advise_random, drop_cache, AlignedBuf, IoMode};
use crate::stats::{bootstrap_median, linear_fit, median, percentile_ns};
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
            blocks: if quick { 5 } else { 7 },
            seed,
        }
    }

    /// Runs the steps report: I/O runs, memory runs.
    pub fn total_runs(&self) -> u64 {
        let io = (2 + PAGE_SIZES.len() * QUEUE_DEPTHS.len()) * (self.blocks + 1);
        let mem = 4 * (self.blocks + 1);
        (io + mem) as u64
    }
}

#[derive(Clone, Copy, Debug)]
enum Job {
    Seq { request: usize },
    Rand { page: usize, qd: usize },
}

#[derive(Default)]
struct Samples {
    /// Seq: MB/s; random: IOPS.
    rate: Vec<f64>,
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
    let left = deadline
        .saturating_duration_since(Instant::now())
        .saturating_sub(Duration::from_millis(300));
    let io_budget = left.mul_f64(0.78);
    let mem_budget = left.mul_f64(0.05);
    let cpu_budget = left.mul_f64(0.07);

    // ---- I/O
    let mut jobs = vec![
        Job::Seq {
            request: LARGE_REQUEST,
        },
        Job::Seq {
            request: PAGE_REQUEST,
        },
    ];
    for &page in &PAGE_SIZES {
        for &qd in &QUEUE_DEPTHS {
            jobs.push(Job::Rand { page, qd });
        }
    }
    let run_len = io_budget.div_f64(jobs.len() as f64 * (plan.blocks as f64 + 0.5));
    let mut samples: Vec<Samples> = jobs.iter().map(|_| Samples::default()).collect();
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    for block in 0..=plan.blocks {
        order.shuffle(&mut rng);
        let warmup = block == 0;
        let len = if warmup { run_len / 2 } else { run_len };
        bar.set_message(if warmup {
            "warming up the device".to_string()
        } else {
            format!("device reads, block {block} of {}", plan.blocks)
        });
        for &j in &order {
            if cancel.load(Ordering::Relaxed) {
                return Err(interrupted());
            }
            if mode == IoMode::BufferedDontNeed {
                drop_cache(file, 0, 0);
            }
            let seed = rng.next_u64();
            let s = &mut samples[j];
            match jobs[j] {
                Job::Seq { request } => {
                    let mbps = seq_run(file, file_bytes, request, len, seed)
                        .map_err(|e| format!("sequential read of {}: {e}", path.display()))?;
                    if !warmup {
                        s.rate.push(mbps);
                    }
                }
                Job::Rand { page, qd } => {
                    let r = random_run(file, file_bytes, page, qd, len, seed)
                        .map_err(|e| format!("random read of {}: {e}", path.display()))?;
                    if !warmup {
                        s.rate.push(r.iops);
                        s.mean_us.push(r.mean_us);
                        s.p50_us.push(r.p50_us);
                        s.p99_us.push(r.p99_us);
                    }
                }
            }
            bar.inc(1);
        }
    }
    let mut est = |v: &[f64]| bootstrap_median(v, &mut rng);
    let seq_large_mbps = est(&samples[0].rate);
    let seq_page_mbps = est(&samples[1].rate);
    let mut random = Vec::new();
    for &page in &PAGE_SIZES {
        let mut points = Vec::new();
        for &qd in &QUEUE_DEPTHS {
            let j = jobs
                .iter()
                .position(|x| matches!(*x, Job::Rand { page: p, qd: q } if p == page && q == qd))
                .unwrap_or(0);
            let s = &samples[j];
            points.push(RandomPoint {
                queue_depth: qd as u32,
                iops: est(&s.rate),
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

    // ---- Memory tiers
    bar.set_message("buffer and page-cache hits");
    let mem_run = mem_budget.div_f64(3.0 * (plan.blocks as f64 + 1.0));
    let mut hit8 = Vec::new();
    let mut hit16 = Vec::new();
    let mut os = Vec::new();
    let pool8 = Pool::new(8192, &mut rng);
    let pool16 = Pool::new(16384, &mut rng);
    let cached =
        CachedRegion::new(path, file_bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut tiers = [0usize, 1, 2];
    for block in 0..=plan.blocks {
        tiers.shuffle(&mut rng);
        for &t in &tiers {
            if cancel.load(Ordering::Relaxed) {
                return Err(interrupted());
            }
            let ns = match t {
                0 => pool8.hit_ns(mem_run),
                1 => pool16.hit_ns(mem_run),
                _ => cached
                    .hit_ns(mem_run, rng.next_u64())
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            };
            if block > 0 {
                [&mut hit8, &mut hit16, &mut os][t].push(ns);
            }
        }
        bar.inc(3);
    }
    drop(cached);

    // ---- CPU per row
    bar.set_message("CPU per row");
    let cpu = cpu_slopes(plan, cpu_budget, &mut rng, cancel, bar)?;

    let mut est = |v: &[f64]| bootstrap_median(v, &mut rng);
    Ok(Measured {
        seq_large_mbps,
        seq_page_mbps,
        random,
        buffer_hit_ns: est(&hit8),
        buffer_hit_16k_ns: est(&hit16),
        os_cache_hit_ns: est(&os),
        cpu_ns_per_row: est(&cpu),
        blocks: plan.blocks,
    })
}

/// Sequential reads of `request` bytes from a random aligned start, wrapping at the end,
/// for `len`; MB/s (10^6 bytes per second).
fn seq_run(f: &File, file_bytes: u64, request: usize, len: Duration, seed: u64) -> io::Result<f64> {
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

/// A hot in-process page pool larger than the last-level cache: a buffer hit copies one
/// page out of it (as a buffer manager hands a page to the executor).
struct Pool {
    page: usize,
    data: Vec<u8>,
    picks: Vec<u32>,
}

const POOL_BYTES: usize = 64 << 20;

impl Pool {
    fn new(page: usize, rng: &mut SmallRng) -> Pool {
        // The content does not matter to a copy; every page is written (touched) once.
        let data = vec![0x5a_u8; POOL_BYTES];
        let pages = (POOL_BYTES / page) as u32;
        let picks = (0..1 << 16).map(|_| rng.random_range(0..pages)).collect();
        Pool { page, data, picks }
    }

    fn hit_ns(&self, len: Duration) -> f64 {
        let mut scratch = vec![0u8; self.page];
        let start = Instant::now();
        let mut count = 0usize;
        let mut k = 0usize;
        loop {
            for _ in 0..256 {
                let p = self.picks[k & 0xffff] as usize * self.page;
                k += 1;
                scratch.copy_from_slice(black_box(&self.data[p..p + self.page]));
                black_box(&mut scratch);
            }
            count += 256;
            let el = start.elapsed();
            if el >= len {
                return el.as_nanos() as f64 / count as f64;
            }
        }
    }
}

/// A region of the test file read once through the page cache, then read at random with
/// buffered pread: an OS page-cache hit.
struct CachedRegion {
    f: File,
    bytes: u64,
}

impl CachedRegion {
    fn new(path: &Path, file_bytes: u64) -> io::Result<CachedRegion> {
        let f = File::open(path)?;
        let bytes = file_bytes.min(64 << 20) / 8192 * 8192;
        let mut buf = vec![0u8; 1 << 20];
        let mut off = 0;
        while off < bytes {
            let n = f.read_at(&mut buf, off)?;
            if n == 0 {
                break;
            }
            off += n as u64;
        }
        advise_random(&f);
        Ok(CachedRegion { f, bytes })
    }

    fn hit_ns(&self, len: Duration, seed: u64) -> io::Result<f64> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let pages = self.bytes / 8192;
        let mut buf = vec![0u8; 8192];
        let start = Instant::now();
        let mut count = 0usize;
        loop {
            for _ in 0..64 {
                let off = rng.random_range(0..pages) * 8192;
                self.f.read_at(&mut buf, off)?;
            }
            count += 64;
            let el = start.elapsed();
            if el >= len {
                return Ok(el.as_nanos() as f64 / count as f64);
            }
        }
    }
}

impl Drop for CachedRegion {
    fn drop(&mut self) {
        drop_cache(&self.f, 0, self.bytes);
    }
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

/// Per block: scans of several sizes (shuffled), the fastest of three per size, and the
/// least-squares slope of time over rows: ns per row without the fixed cost of a scan.
fn cpu_slopes(
    plan: &Plan,
    budget: Duration,
    rng: &mut SmallRng,
    cancel: &AtomicBool,
    bar: &ProgressBar,
) -> Result<Vec<f64>, String> {
    let max_rows: usize = if plan.quick { 1 << 19 } else { 1 << 20 };
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
    let start = Instant::now();
    let mut slopes = Vec::new();
    for block in 0..=plan.blocks {
        if cancel.load(Ordering::Relaxed) {
            return Err(interrupted());
        }
        sizes.shuffle(rng);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for &n in &sizes {
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t = Instant::now();
                black_box(scan(black_box(&rows[..n]), black_box(500)));
                best = best.min(t.elapsed().as_nanos() as f64);
            }
            x.push(n as f64);
            y.push(best);
        }
        if block > 0 {
            if let Some((slope, _)) = linear_fit(&x, &y) {
                // A slope at or below zero is noise on a tiny budget: use the mean instead.
                let per_row = if slope > 0.0 {
                    slope
                } else {
                    median(&y.iter().zip(&x).map(|(t, n)| t / n).collect::<Vec<_>>())
                };
                slopes.push(per_row);
            }
        }
        bar.inc(4);
        // Keep to the budget: at least two measured blocks.
        if slopes.len() >= 2 && start.elapsed() > budget {
            bar.inc(4 * (plan.blocks - block) as u64);
            break;
        }
    }
    Ok(slopes)
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
    }

    #[test]
    fn memory_tiers_and_cpu_give_positive_figures() {
        let mut rng = SmallRng::seed_from_u64(3);
        let pool = Pool::new(8192, &mut rng);
        assert!(pool.hit_ns(Duration::from_millis(5)) > 0.0);
        let plan = Plan::new(true, 1);
        let bar = ProgressBar::hidden();
        let slopes = cpu_slopes(
            &plan,
            Duration::from_millis(1),
            &mut rng,
            &AtomicBool::new(false),
            &bar,
        )
        .unwrap();
        assert!(
            slopes.len() >= 2 && slopes.iter().all(|s| *s > 0.0),
            "{slopes:?}"
        );
    }
}
