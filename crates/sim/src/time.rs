//! Time of a plan on a machine, from the plan's [`Work`] alone (never its cost).
//!
//! # Assumptions
//!
//! Each is repeated where the code makes it.
//!
//! 1. **Cache tiers.** The engine's buffer (shared_buffers, InnoDB buffer pool) and, unless
//!    the engine bypasses it (InnoDB O_DIRECT, PostgreSQL debug_io_direct), the OS page
//!    cache. PostgreSQL's effective cache is shared_buffers + page cache, the page cache
//!    being 90 % of RAM less the buffer pool ([`OS_CACHE_SHARE_OF_RAM`](super::profile::OS_CACHE_SHARE_OF_RAM)); double buffering
//!    is ignored. InnoDB with O_DIRECT caches in the buffer pool only.
//! 2. **Sharing.** The objects one plan reads share each tier as an LRU cache does under
//!    independent references (Che's approximation): object `i` of `O_i` pages, asked
//!    `R_i` times by the plan, keeps `O_i · (1 − e^(−r_i·T))` pages cached, `r_i = R_i / O_i`
//!    its requests per page, `T` (the tier's characteristic time) such that the cached
//!    pages fill the tier. A small object asked often (a 25-row nation table probed once
//!    per joined row) therefore stays cached; sharing in proportion to size would evict it
//!    as often as a table of gigabytes. Sequential scans larger than the tier take no share
//!    (assumption 5). With a single object, or when everything fits, this is what sharing
//!    by size gave.
//! 3. **Warm or cold.** Cold: nothing cached when the query starts. Warm: the steady state
//!    of a workload that uses the whole object: each page of an object of `O` pages is
//!    cached with probability `w = min(1, c / O)`, `c` the object's share of the cache,
//!    buffer tier first.
//! 4. **Repeated requests within a node** (requests − distinct) hit with probability
//!    `min(1, c / distinct)`: the pages the node itself brought in stay while they fit.
//! 5. **Scans do not evict the cache, and are not cached by it when larger than it.** A
//!    PostgreSQL sequential scan of a table larger than 1/4 of shared_buffers reads through
//!    a 256 kB ring, so shared_buffers never holds it: its shared_buffers share is 0. A
//!    sequential read of an object larger than the (usable) cache gets no hits (what the
//!    previous run left is evicted before the scan reaches it); one that fits is cached
//!    whole when warm: a ring scan finds what both tiers hold of its table in the OS page
//!    cache, also when other nodes' random reads give the table a share of the buffer.
//! 6. **Sequential reads** run at the device's sequential bandwidth (read-ahead: kernel,
//!    PostgreSQL read streams, InnoDB linear read-ahead), after any throughput cap. IOPS
//!    caps do not apply (reads of 128 kB and more).
//! 7. **Random reads** (plain index scans, InnoDB row lookups) are synchronous: queue depth
//!    1 per process; a parallel plan with `w` workers has `w + 1` in flight and runs at
//!    the device's IOPS at that depth.
//! 8. **Sorted reads** (bitmap heap scan, DS-MRR) run at the queue depth the engine's
//!    prefetch gives: PostgreSQL `effective_io_concurrency` (at least 1) times the
//!    processes; InnoDB DS-MRR issues one read at a time (no prefetch; linear read-ahead
//!    only triggers on nearly dense runs). Each read costs the lesser of a random read at
//!    that depth and, on a device with a positional benefit (`skip_read_us`: a rotating
//!    disk), a short access plus the gap to pass under the head. The gap is the object
//!    divided by the pages one sorted sweep reads. Several sweeps (DS-MRR's or BKA's buffer
//!    fills, clustered lookups in key order restarted per batch) are recovered from the
//!    requests (one per distinct page per sweep) and the distinct pages of all sweeps:
//!    `k` sweeps of `s = R / k` random-but-sorted pages each touch
//!    `D = O · (1 − (1 − s/O)^k)` distinct pages. Dense sweeps (more than half the pages
//!    of their span) blend linearly into sequential reading (read-ahead triggers). The
//!    span is the whole object unless the plan says the pages cluster: a bitmap heap scan
//!    on a correlated key reads a contiguous run (measured on PostgreSQL 18, cold: 20 % of
//!    a correlated key by bitmap in 0.088 s, the whole table's sequential scan 0.213 s).
//!    A PostgreSQL index scan's sorted reads (a nested loop's lookups in key order)
//!    prefetch nothing, one request at a time, and nothing keeps the kernel's read-ahead
//!    from reading through their gaps: each costs the lesser of a random read and one
//!    in-order request (assumption 17) plus the pages of the gap at the stream's rate.
//!    Measured on PostgreSQL 15 (SF 0.1, cold): Q21's lookups of lineitem's heap and
//!    index from an outer in l_orderkey order, 12 pages apart, took the plan to 0.185 s,
//!    where gaps read at the in-order rate (no faster than random reads) made it 0.34 s
//!    (0.23 s this way). Measured on PostgreSQL 15 (SF 0.1,
//!    cold): Q4's 5,459 lookups over a 1,463-page index, and Q3's over 70 % of
//!    lineitem's heap, at about the in-order rate, 3 to 4x faster than random reads.
//! 9. **CPU** is rows × ns/row + index entries × ns/entry + operator evaluations × ns/op +
//!    comparisons × ns/comparison, plus page hits × hit time. In hash nodes (Hash, Hash
//!    Join, HashAggregate) the comparisons are the rows the hash table takes in or looks
//!    up, at ns per hash row where it was measured: at two table sizes, interpolated in
//!    log(size) between them (`HashRowCost`). Measured on PostgreSQL 15 (DBT3 SF
//!    0.1, warm): lineitem hash-joined to orders took 95 ms beyond its two scans for
//!    150,000 build and 600,572 probe rows, about 125 ns a row, where a row and an
//!    operator comparison made 50. Parallel nodes divide it by
//!    workers + 1 (the leader participates), at most the profile's `cpu_cores` (processes
//!    share the cores: measured on a 2-core guest, PostgreSQL 15, DBT3 SF 1 Q6 warm, 2
//!    workers: 631 ms serial, 347 ms parallel, 1.82x, where 3 processes would make 3x and
//!    2 cores 2x); rows passed through Gather cost ns/row in the leader, undivided. A
//!    partial join's or aggregate's work is one participant's already (its rows are),
//!    so it is not divided again.
//! 10. **Overlap.** Within a node, asynchronous I/O (sequential read-ahead; sorted reads
//!     with prefetch depth > 1) overlaps with CPU: `max(async I/O, CPU)`. Synchronous I/O
//!     (QD1 random reads, sorted reads without prefetch, spill files) adds to it. Nodes of
//!     a plan add up (no overlap between nodes).
//! 11. **Spill** bytes (written and read back, as counted) move at sequential bandwidth.
//! 12. **Buffered reads copy.** Unless the engine bypasses the OS page cache, every page
//!     read from the device is also copied out of the page cache (`os_cache_hit_ns` per
//!     page, memory time that overlaps asynchronous I/O like CPU does). Measured on
//!     PostgreSQL 15 (`costlab-probe validate postgres`): a cold sequential scan is never
//!     faster than the same scan served from the OS page cache.
//! 14. **Synchronous sequential reads before PostgreSQL 17.** A PostgreSQL 15 or 16 scan
//!     reads each 8 kB page itself: the kernel's read-ahead keeps the device busy, but the
//!     backend waits for pages it has not brought yet, so sequential I/O adds to the CPU
//!     instead of overlapping it. Measured on PostgreSQL 15 (`costlab-probe validate
//!     postgres`): cold sequential scans and cold index scans of a correlated key took
//!     about their warm (CPU and page-copy) time plus their I/O time, 1.5 to 2.5x the
//!     larger of the two.
//! 15. **Eviction.** A page read into a full buffer pays for finding a victim
//!     (`os_cache_evict_hit_ns`); a PostgreSQL sequential scan through its ring reuses its
//!     own few buffers and pays `os_cache_hit_ns` only. Measured on PostgreSQL 15: warm
//!     index and bitmap heap scans of a table 2.5x shared_buffers spent about 4 µs per page
//!     read from the page cache, a ring scan 1.6 µs.
//! 16. **Executor start-up.** Each execution costs `executor_start_ns` once (locks,
//!     opening relations and indexes, plan state), besides its nodes' work. Measured on
//!     PostgreSQL 15 and 18 (`costlab-probe validate postgres`, calibration queries of ten
//!     rows): 40 to 50 µs, where the per-row figures gave index scans of 100 rows 10 to
//!     20 µs against 60 µs real.
//! 17. **Ordered reads.** A PostgreSQL index scan on a correlated key reads the heap in
//!     order, one 8 kB request at a time, the backend waiting for each; the kernel's
//!     read-ahead serves them, but slower than a sequential scan's stream (measured on
//!     PostgreSQL 15, cold: 13 µs a page against 1.7 µs a page of I/O for the sequential
//!     scan of the same table). `ordered_read_mbps` is that bandwidth, fitted on a cold
//!     calibration query (`costlab-probe validate postgres`); without it, the sequential
//!     bandwidth.
//! 18. **Direct I/O.** PostgreSQL with `debug_io_direct = data` has no kernel read-ahead:
//!     its sequential reads run at the device's rate for one synchronous 8 kB request at a
//!     time (the probe's `seq_read.page`, `direct_page_read_mbps`). Measured on
//!     PostgreSQL 18 (`costlab-probe postgres --direct-io`, docs/validation/
//!     random_page_cost.md): a sequential scan at 169 MB/s where the probe's 8 kB
//!     sequential figure was 141 MB/s and its 1 MiB figure 1,266 MB/s.
//! 19. **Work from true rows.** The simulation times the work a plan does, and the
//!     engines count that work from the true rows, not the planner's estimates (MySQL's
//!     DBT3 join planner, and PostgreSQL's since session 6: `pg_join::model::TrueRows`).
//!     A join's true rows come from the workload's true selectivities (foreign keys
//!     meet their keys; semi and anti joins keep the true share of outer rows with a
//!     match); a nested loop's inner runs once per true outer row, a Memoize's once per
//!     miss. Measured: Q18's `HAVING SUM(l_quantity) > 300` returned 5 rows at SF 0.1
//!     on PostgreSQL 15, estimated 40,494; timed from the estimate Q18 came out 2.2x
//!     (warm) to 7.6x (cold, hash joins off) too slow, from the true rows 0.9x to 1.6x
//!     (docs/validation/pg15.txt). The single-table model's own work was already
//!     counted from its rows, whose estimates hold on t1.
//! 20. **Within one cold execution**, the pages a node read into the engine's buffer
//!     are there for the nodes after it that read the same object, as far as the
//!     object's share of the buffer holds them (independent positions: a node's pages
//!     overlap what came before in proportion). Measured on PostgreSQL 15 (Q11, SF 0.1,
//!     cold, EXPLAIN (ANALYZE, BUFFERS)): the InitPlan's scan of partsupp by supplier
//!     read 1,622 pages, the main query's identical scan found all 4,100 of its page
//!     requests in shared_buffers. Only the buffer tier: a second cold sequential scan of
//!     lineitem through the ring (Q18) took as long as the first in the same run.
//! 13. **Releases.** PostgreSQL before 18 reads a bitmap heap scan's pages one 8 kB read at
//!     a time, prefetched `effective_io_concurrency` ahead, so `eic + 1` reads are in
//!     flight. A sparse bitmap stays random reads; a dense one (more than 70 to 80 % of the
//!     pages of its span, [`PG_READAHEAD_DENSITY`]) over the whole table is served by the
//!     kernel's read-ahead like an index scan's in-order reads (assumption 17): read-ahead
//!     starts at a file's first page, and the prefetch's posix_fadvise, which brings every
//!     other page before it is read, keeps it from starting anywhere else. Measured on
//!     PostgreSQL 15, eic 1, cold, t1-like table of 44,000 pages (`costlab-probe validate
//!     postgres`, docs/validation/pg15.json of session 4): random key, 84 to 86 µs a page
//!     at 22 % and 53 % of the pages, 7.1 to 7.6 µs at 88 % and 100 %; correlated key (a
//!     contiguous run from mid-table), 80 to 88 µs a page at every size, where an index
//!     scan of the same run read 13 µs a page. An earlier run on a larger table had
//!     measured 26 to 28 µs at 87 to 100 % of the pages (the virtual disk's host cache
//!     differs from run to run). 18's read streams keep `eic` in flight and combine adjacent pages
//!     (assumption 8's blend).

use super::profile::MachineProfile;
use costlab_model::error::{check_range, Error, Result};
use costlab_model::knobs::{Engine, EngineVersion};
use costlab_model::plan::{AccessPattern, PageReads, PlanNode, Work};
use serde::Serialize;

/// PostgreSQL uses a ring buffer (BAS_BULKREAD, 256 kB) for a sequential scan of a table
/// larger than shared_buffers / 4 (GetAccessStrategy / initscan).
pub const PG_RING_THRESHOLD: f64 = 0.25;

/// The density of a sorted sweep (pages read over pages spanned) from which, before
/// PostgreSQL 18, the kernel's read-ahead serves a bitmap heap scan's one-page requests
/// (blended linearly over the interval; assumption 13): runs of consecutive pages then
/// average 3.3 to 5 pages, about the kernel's first read-ahead window of 4 pages (16 kB
/// and 32 kB: `get_init_ra_size` quadruples a one-page request).
pub const PG_READAHEAD_DENSITY: (f64, f64) = (0.7, 0.8);

/// PostgreSQL 18's default io_workers: with io_method = worker, the reads in flight.
pub const PG_IO_WORKERS: f64 = 3.0;

/// Seconds of I/O by access pattern.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct IoSeconds {
    pub sequential: f64,
    pub random: f64,
    pub sorted: f64,
    pub spill: f64,
}

impl IoSeconds {
    pub fn total(&self) -> f64 {
        self.sequential + self.random + self.sorted + self.spill
    }

    fn add(&mut self, o: &IoSeconds) {
        self.sequential += o.sequential;
        self.random += o.random;
        self.sorted += o.sorted;
        self.spill += o.spill;
    }
}

/// Page requests and where they were served.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct CacheCounts {
    pub requests: f64,
    pub buffer_hits: f64,
    pub os_hits: f64,
    pub misses: f64,
}

impl CacheCounts {
    fn add(&mut self, o: &CacheCounts) {
        self.requests += o.requests;
        self.buffer_hits += o.buffer_hits;
        self.os_hits += o.os_hits;
        self.misses += o.misses;
    }

    /// Share of requests served from a cache (1 when there were none).
    pub fn hit_ratio(&self) -> f64 {
        if self.requests > 0.0 {
            (self.buffer_hits + self.os_hits) / self.requests
        } else {
            1.0
        }
    }
}

/// One node's simulated time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeTime {
    pub op: String,
    pub io: IoSeconds,
    /// CPU seconds (rows, entries, operators, comparisons), after parallel division.
    pub cpu_s: f64,
    /// Seconds spent on cache hits, after parallel division.
    pub memory_s: f64,
    pub total_s: f64,
    pub cache: CacheCounts,
}

/// A plan's simulated time: total and breakdown, nodes parents first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanTime {
    pub total_s: f64,
    pub io: IoSeconds,
    pub cpu_s: f64,
    pub memory_s: f64,
    pub cache: CacheCounts,
    pub nodes: Vec<NodeTime>,
}

/// A validated profile ready to time plans of one engine release.
#[derive(Clone, Debug)]
pub struct Simulator {
    profile: MachineProfile,
    engine: Engine,
    /// PostgreSQL 18's read streams keep effective_io_concurrency reads of a bitmap heap
    /// scan in flight and combine adjacent pages into one read, so a dense sweep reads
    /// like a sequential one; before 18 posix_fadvise keeps effective_io_concurrency pages
    /// in flight ahead of the one being read (one more in flight), each its own read.
    combines_sorted_reads: bool,
    /// PostgreSQL 17's read streams read a sequential scan ahead of the executor (with
    /// posix_fadvise; 18 with asynchronous I/O), so its I/O overlaps the CPU. Before 17,
    /// and for index scans in every release, the backend reads each 8 kB page itself and
    /// waits when the kernel's read-ahead has not brought it yet (assumption 14).
    streams_sequential_reads: bool,
    /// Measured time of the schema's function calls, when known (see
    /// [`Simulator::with_function_calls`]).
    function_calls: Option<FunctionCalls>,
}

/// What a call of the schema's functions takes, measured, and what the work counts for
/// it: the planner's price of a call (procost operator evaluations) is in the work's
/// `operator_evals`; with a measured time the simulation takes that price out again and
/// charges the call's own time instead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FunctionCalls {
    /// pg_proc.procost of the functions (one figure for all of them).
    pub procost: f64,
    /// Wall time of one call on the profile's machine, ns.
    pub ns_per_call: f64,
}

impl FunctionCalls {
    /// The measured call time of a schema's functions, if they declare one
    /// ([`costlab_model::catalog::Function::call_ns`]). The work counts calls, not which function
    /// is called, so the functions that declare a time must all declare the same time and
    /// the same COST, and then every function must declare it.
    pub fn of(functions: &[costlab_model::catalog::Function]) -> Result<Option<FunctionCalls>> {
        let Some(first) = functions.iter().find(|f| f.call_ns.is_some()) else {
            return Ok(None);
        };
        for f in functions {
            f.validate()?;
            if f.call_ns != first.call_ns || f.procost != first.procost {
                return Err(Error::invalid(
                    format!("function {} call_ns", f.name),
                    format!(
                        "the simulation counts calls, not which function makes them: with a \
                         measured call time every function needs the same one and the same \
                         COST ({} has COST {} and {} ns a call)",
                        first.name,
                        first.procost,
                        first.call_ns.unwrap_or(0.0)
                    ),
                ));
            }
        }
        Ok(Some(FunctionCalls {
            procost: first.procost,
            ns_per_call: first.call_ns.unwrap_or(0.0),
        }))
    }
}

/// Cache available to one object, in bytes per tier.
#[derive(Clone, Copy, Debug)]
struct Share {
    buffer: f64,
    os: f64,
}

/// One object a plan reads, with every request the plan makes of it.
#[derive(Clone, Copy, Debug)]
struct CacheObject<'a> {
    name: &'a str,
    bytes: f64,
    page_bytes: f64,
    requests: f64,
    /// Only read sequentially (a scan).
    scan_only: bool,
}

/// Bytes of a tier of `capacity` bytes each object holds in the steady state of an LRU
/// cache under independent references (Che's approximation, assumption 2): object `i`
/// keeps `bytes_i · (1 − e^(−r_i·T))`, `r_i` its requests per page, `T` solving
/// Σ = capacity. Objects `takes_part` rejects hold nothing; when the others fit, each
/// holds itself whole.
fn lru_shares(
    objects: &[CacheObject],
    capacity: f64,
    takes_part: impl Fn(&CacheObject) -> bool,
) -> Vec<f64> {
    let rate = |o: &CacheObject| {
        let pages = (o.bytes / o.page_bytes.max(1.0)).max(1.0);
        o.requests.max(0.0) / pages
    };
    let part: Vec<bool> = objects
        .iter()
        .map(|o| takes_part(o) && o.bytes > 0.0 && o.requests > 0.0)
        .collect();
    let total: f64 = objects
        .iter()
        .zip(&part)
        .filter(|(_, p)| **p)
        .map(|(o, _)| o.bytes)
        .sum();
    if capacity <= 0.0 {
        return vec![0.0; objects.len()];
    }
    if total <= capacity {
        return objects
            .iter()
            .zip(&part)
            .map(|(o, p)| if *p { o.bytes } else { 0.0 })
            .collect();
    }
    let held = |t: f64| -> f64 {
        objects
            .iter()
            .zip(&part)
            .filter(|(_, p)| **p)
            .map(|(o, _)| o.bytes * -(-rate(o) * t).exp_m1())
            .sum()
    };
    // held(T) rises from 0 to `total` > capacity: bisect in log T.
    let (mut lo, mut hi) = (1e-15_f64, 1.0_f64);
    while held(hi) < capacity && hi < 1e30 {
        hi *= 1e3;
    }
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if held(mid) < capacity {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi / lo < 1.0 + 1e-12 {
            break;
        }
    }
    objects
        .iter()
        .zip(&part)
        .map(|(o, p)| {
            if *p {
                o.bytes * -(-rate(o) * hi).exp_m1()
            } else {
                0.0
            }
        })
        .collect()
}

impl Simulator {
    /// A simulator for the engine's latest modelled release.
    pub fn new(profile: &MachineProfile, engine: Engine) -> Result<Simulator> {
        Simulator::for_release(profile, EngineVersion::latest(engine))
    }

    /// A simulator for one release: the releases read differently (see
    /// `combines_sorted_reads`).
    pub fn for_release(profile: &MachineProfile, release: EngineVersion) -> Result<Simulator> {
        profile.validate()?;
        Ok(Simulator {
            profile: profile.clone(),
            engine: release.engine(),
            combines_sorted_reads: !matches!(
                release,
                EngineVersion::Pg15 | EngineVersion::Pg16 | EngineVersion::Pg17
            ),
            streams_sequential_reads: !matches!(release, EngineVersion::Pg15 | EngineVersion::Pg16),
            function_calls: None,
        })
    }

    /// Charges each call of the schema's functions its measured time rather than the
    /// planner's price (procost x cpu_ns_per_operator). Without it a COST 5000 function
    /// takes 5000 operator evaluations' time, which says nothing of its body.
    pub fn with_function_calls(mut self, calls: FunctionCalls) -> Result<Simulator> {
        let ok = |x: f64, hi: f64| x.is_finite() && (0.0..=hi).contains(&x);
        if !ok(calls.procost, 1e9) || !ok(calls.ns_per_call, 1e12) {
            return Err(costlab_model::error::Error::invalid(
                "function calls",
                format!(
                    "procost {} and {} ns a call must be finite and not negative",
                    calls.procost, calls.ns_per_call
                ),
            ));
        }
        self.function_calls = Some(calls);
        Ok(self)
    }

    pub fn profile(&self) -> &MachineProfile {
        &self.profile
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Times a whole plan (the node and every descendant).
    pub fn time_plan(&self, plan: &PlanNode) -> Result<PlanTime> {
        let mut nodes = Vec::new();
        let mut works = Vec::new();
        plan.walk(&mut |n| works.push((n.op.as_str(), &n.work, hash_table_bytes(n))));
        for (_, w, _) in &works {
            check_work(w)?;
        }
        // Assumption 2: the plan's objects share each tier as an LRU cache would.
        let mut objects: Vec<CacheObject> = Vec::new();
        for (_, w, _) in &works {
            for r in &w.page_reads {
                let bytes = r.object_pages * r.page_bytes;
                let scan = r.pattern == AccessPattern::Sequential;
                match objects.iter_mut().find(|o| o.name == r.object.as_str()) {
                    Some(o) => {
                        o.bytes = o.bytes.max(bytes);
                        o.page_bytes = o.page_bytes.max(r.page_bytes);
                        o.requests += r.requests;
                        o.scan_only &= scan;
                    }
                    None => objects.push(CacheObject {
                        name: r.object.as_str(),
                        bytes,
                        page_bytes: r.page_bytes,
                        requests: r.requests,
                        scan_only: scan,
                    }),
                }
            }
        }
        let buffer = self.profile.buffer_pool_bytes;
        let both = buffer + self.os_cache_bytes();
        let pg = self.engine == Engine::Postgres;
        // Assumption 5: a scan larger than a tier does not take part in it (InnoDB's
        // midpoint insertion, PostgreSQL's ring for scans above 1/4 of shared_buffers).
        let in_buffer = lru_shares(&objects, buffer, |o| {
            !(o.scan_only && (o.bytes > buffer || (pg && o.bytes > PG_RING_THRESHOLD * buffer)))
        });
        let in_both = lru_shares(&objects, both, |o| !(o.scan_only && o.bytes > both));
        let share_of = |object: &str| -> Share {
            match objects.iter().position(|o| o.name == object) {
                Some(i) => Share {
                    buffer: in_buffer[i],
                    os: (in_both[i] - in_buffer[i]).max(0.0),
                },
                None => Share {
                    buffer: 0.0,
                    os: 0.0,
                },
            }
        };
        let mut out = PlanTime {
            total_s: 0.0,
            io: IoSeconds::default(),
            cpu_s: 0.0,
            memory_s: 0.0,
            cache: CacheCounts::default(),
            nodes: Vec::with_capacity(works.len()),
        };
        // Assumption 20: what earlier nodes of a cold execution read, by object (bytes).
        let mut seen: Vec<(&str, f64)> = Vec::new();
        for (op, w, hash_bytes) in works {
            let t = self.time_node(op, w, hash_bytes, &share_of, &mut seen);
            out.total_s += t.total_s;
            out.io.add(&t.io);
            out.cpu_s += t.cpu_s;
            out.memory_s += t.memory_s;
            out.cache.add(&t.cache);
            nodes.push(t);
        }
        out.nodes = nodes;
        // Assumption 16: one start and end per execution.
        let start_s = self.profile.executor_start_ns * 1e-9;
        out.total_s += start_s;
        out.cpu_s += start_s;
        Ok(out)
    }

    /// Times one node's work on its own (its objects share the whole cache).
    pub fn time_work(&self, op: &str, work: &Work) -> Result<NodeTime> {
        let node = PlanNode::leaf(op, costlab_model::plan::Cost::default(), 0.0, work.clone());
        let mut t = self.time_plan(&node)?;
        Ok(t.nodes.remove(0))
    }

    fn os_cache_bytes(&self) -> f64 {
        // Assumption 1: with direct I/O nothing; otherwise OS_CACHE_SHARE_OF_RAM (90 %)
        // of RAM less the pool.
        self.profile.os_cache_bytes()
    }

    fn time_node<'w>(
        &self,
        op: &str,
        w: &'w Work,
        hash_bytes: Option<f64>,
        share_of: &dyn Fn(&str) -> Share,
        seen: &mut Vec<(&'w str, f64)>,
    ) -> NodeTime {
        let p = &self.profile;
        let dev = &p.device;
        let procs = if w.workers > 0.0 {
            w.workers + 1.0
        } else {
            1.0
        };
        let mut io = IoSeconds::default();
        let mut cache = CacheCounts::default();
        let mut memory_ns = 0.0;
        // Assumption 8: the prefetch depth of sorted reads.
        let sorted_qd = match self.engine {
            // PostgreSQL 18's default io_method = worker performs the reads in io_workers
            // (3) processes, each one read at a time: no more than 3 in flight however
            // deep effective_io_concurrency reaches (measured: a cold bitmap heap scan of
            // 22 % of the pages at eic 16 read 33 µs a page, what 3 in flight give here).
            // Only a bitmap heap scan prefetches; an index scan whose fetches happen to
            // come in heap order (equal keys) reads them one at a time.
            Engine::Postgres if !op.contains("Bitmap") => procs,
            Engine::Postgres if self.combines_sorted_reads => {
                p.effective_io_concurrency.clamp(1.0, PG_IO_WORKERS) * procs
            }
            // posix_fadvise keeps effective_io_concurrency pages in flight ahead of the
            // one being read (measured on PostgreSQL 15, eic 1: a cold bitmap heap page
            // took about half the time of a cold random index-scan fetch).
            Engine::Postgres => (p.effective_io_concurrency.max(0.0).round() + 1.0) * procs,
            Engine::Mysql => procs,
        };
        for r in &w.page_reads {
            let slot = match seen.iter().position(|(n, _)| *n == r.object.as_str()) {
                Some(i) => i,
                None => {
                    seen.push((r.object.as_str(), 0.0));
                    seen.len() - 1
                }
            };
            let c = self.cache_split(r, share_of(&r.object), seen[slot].1);
            // Assumption 20: the pages this node brought in join what earlier nodes did
            // (independent positions: the union of the two).
            let object_bytes = r.object_pages * r.page_bytes;
            if object_bytes > 0.0 {
                let before = seen[slot].1;
                let new = r.distinct.min(r.requests) * r.page_bytes * (1.0 - before / object_bytes);
                seen[slot].1 = (before + new.max(0.0)).min(object_bytes);
            }
            // Assumption 15: a page read into a full buffer first evicts a victim; a
            // PostgreSQL scan through its ring does not.
            let ring = self.engine == Engine::Postgres
                && r.pattern == AccessPattern::Sequential
                && r.object_pages * r.page_bytes > PG_RING_THRESHOLD * p.buffer_pool_bytes;
            let os_ns = if ring {
                p.os_cache_hit_ns
            } else {
                p.os_cache_evict_hit_ns.unwrap_or(p.os_cache_hit_ns)
            };
            memory_ns += c.buffer_hits * p.buffer_hit_ns + c.os_hits * os_ns;
            if !p.bypass_os_cache {
                // Assumption 12: a buffered read that misses still copies the page out of
                // the OS page cache once the device has filled it.
                memory_ns += c.misses * os_ns;
            }
            let bytes = c.misses * r.page_bytes;
            match r.pattern {
                // Assumption 18: PostgreSQL with direct I/O reads every page with its own
                // request, no kernel read-ahead.
                AccessPattern::Sequential
                    if self.engine == Engine::Postgres && p.bypass_os_cache =>
                {
                    io.sequential += bytes / dev.direct_page_bytes_per_s()
                }
                // Assumption 17: a PostgreSQL index scan's in-order heap reads wait for
                // each page; only sequential scans read through a stream.
                AccessPattern::Sequential
                    if self.engine == Engine::Postgres && !op.contains("Seq Scan") =>
                {
                    io.sequential += bytes / dev.ordered_bytes_per_s()
                }
                // Assumption 6: read-ahead at device bandwidth.
                AccessPattern::Sequential => io.sequential += bytes / dev.seq_bytes_per_s(),
                // Assumption 7: QD1 per process.
                AccessPattern::Random => {
                    io.random += c.misses * dev.random_read_s(r.page_bytes, procs)
                }
                AccessPattern::Sorted => {
                    io.sorted += c.misses * self.sorted_read_s(r, sorted_qd, op.contains("Bitmap"))
                }
            }
            cache.add(&c);
        }
        // Assumption 11.
        io.spill = w.spill_bytes / dev.seq_bytes_per_s();
        // Assumption 9: a hash node's comparisons are the rows its hash table takes in
        // or looks up.
        let comparison_ns = match (&p.hash_rows, hash_bytes) {
            (Some(h), Some(bytes)) => h.ns(bytes),
            _ => p.cpu_ns_per_comparison,
        };
        let (evals, calls_ns) = match self.function_calls {
            Some(f) => {
                let priced = (w.function_calls * (f.procost - 1.0).max(0.0)).min(w.operator_evals);
                (w.operator_evals - priced, w.function_calls * f.ns_per_call)
            }
            None => (w.operator_evals, 0.0),
        };
        let cpu_ns = w.rows_examined * p.cpu_ns_per_row
            + w.index_entries * p.cpu_ns_per_index_entry
            + evals * p.cpu_ns_per_operator
            + calls_ns
            + w.comparisons * comparison_ns;
        // The processes share the machine's cores (assumption 9).
        let cpu_procs = p.cpu_cores.map_or(procs, |c| procs.min(c.max(1.0)));
        let cpu_s = cpu_ns / cpu_procs * 1e-9 + w.rows_transferred * p.cpu_ns_per_row * 1e-9;
        let memory_s = memory_ns / cpu_procs * 1e-9;
        // Assumption 10: overlap of asynchronous I/O with CPU (assumption 14: sequential
        // reads are not asynchronous before PostgreSQL 17's read streams).
        // Only sequential scans read through a stream; an index scan's heap and leaf pages
        // are read one by one in every release (measured on PostgreSQL 18: cold index scans
        // of a correlated key took their CPU plus their I/O, 2.5 to 4x the larger alone).
        let seq_async = self.engine == Engine::Mysql
            || (self.streams_sequential_reads && op.contains("Seq Scan"));
        let (seq_a, seq_s) = if seq_async {
            (io.sequential, 0.0)
        } else {
            (0.0, io.sequential)
        };
        let (async_io, sync_io) = if sorted_qd > 1.0 {
            (seq_a + io.sorted, seq_s + io.random + io.spill)
        } else {
            (seq_a, seq_s + io.random + io.sorted + io.spill)
        };
        let total_s = sync_io + async_io.max(cpu_s + memory_s);
        NodeTime {
            op: op.to_string(),
            io,
            cpu_s,
            memory_s,
            total_s,
            cache,
        }
    }

    /// Where one object's page requests are served (assumptions 3, 4, 5, 20).
    /// `seen_bytes`: what earlier nodes of the same execution read of the object.
    fn cache_split(&self, r: &PageReads, share: Share, seen_bytes: f64) -> CacheCounts {
        let requests = r.requests;
        let distinct = r.distinct.min(requests);
        let repeats = requests - distinct;
        let object_bytes = r.object_pages * r.page_bytes;
        let distinct_bytes = distinct * r.page_bytes;
        let mut buffer = share.buffer;
        let mut os = share.os;
        if r.pattern == AccessPattern::Sequential
            && self.engine == Engine::Postgres
            && object_bytes > PG_RING_THRESHOLD * self.profile.buffer_pool_bytes
        {
            // Assumption 5: the ring keeps the scan out of shared_buffers; what both tiers
            // hold of the object, it finds in the OS page cache.
            os += buffer;
            buffer = 0.0;
        }
        let frac = |cache: f64, of: f64| if of > 0.0 { (cache / of).min(1.0) } else { 1.0 };
        // First touches: the warm fraction, split buffer tier first.
        let (wb, wt) = if !self.profile.warm_cache {
            // Assumption 20: cold, only what this execution read before into the
            // engine's buffer, as far as the object's share of it holds it.
            let b = frac(seen_bytes.min(buffer), object_bytes);
            (b, b)
        } else if r.pattern == AccessPattern::Sequential {
            // Assumption 5: a scan larger than its usable cache finds nothing left.
            if object_bytes <= buffer + os {
                (frac(buffer, object_bytes), 1.0)
            } else {
                (0.0, 0.0)
            }
        } else {
            // Assumption 3.
            (frac(buffer, object_bytes), frac(buffer + os, object_bytes))
        };
        // Assumption 4: repeats hit while the node's own pages fit.
        let (hb, ht) = (
            frac(buffer, distinct_bytes),
            frac(buffer + os, distinct_bytes),
        );
        let buffer_hits = distinct * wb + repeats * hb;
        let os_hits = distinct * (wt - wb) + repeats * (ht - hb);
        CacheCounts {
            requests,
            buffer_hits,
            os_hits,
            misses: (requests - buffer_hits - os_hits).max(0.0),
        }
    }

    /// Wall seconds per sorted read that misses (assumption 8).
    /// `bitmap`: a PostgreSQL bitmap heap scan, which reads through a read stream from
    /// 18 on; other PostgreSQL nodes read their sorted pages one request at a time.
    fn sorted_read_s(&self, r: &PageReads, qd: f64, bitmap: bool) -> f64 {
        let dev = &self.profile.device;
        let random = dev.random_read_s(r.page_bytes, qd);
        let t_page = r.page_bytes / dev.seq_bytes_per_s();
        let per_sweep = pages_per_sweep(r.object_pages, r.requests, r.distinct);
        // The sweep's pages lie within its span (the whole object unless the plan says
        // they cluster, as a bitmap on a correlated key does).
        let span = r
            .span_pages
            .unwrap_or(r.object_pages)
            .clamp(1.0, r.object_pages.max(1.0));
        let gap = if per_sweep > 0.0 {
            (span / per_sweep).max(1.0)
        } else {
            1.0
        };
        let mut t = match dev.skip_read_us {
            Some(skip) => random.min(skip * 1e-6 + (gap - 1.0) * t_page),
            None => random,
        };
        if self.engine == Engine::Mysql || (self.combines_sorted_reads && bitmap) {
            // Dense sweeps: read-ahead (InnoDB's linear read-ahead, PostgreSQL 18's
            // combined reads) reads through the gaps.
            let density = 1.0 / gap;
            let a = ((density - 0.5) / 0.5).clamp(0.0, 1.0);
            t = a * (gap * t_page) + (1.0 - a) * t;
        } else if self.engine == Engine::Postgres && !bitmap {
            // An index scan's lookups in key order (a nested loop whose outer rows
            // ascend in the key, `pg_join::model::read_in_order`): no posix_fadvise
            // stands in the way, so the kernel's read-ahead (a window of read_ahead_kb,
            // 8 MB on these machines) reads through the gaps whenever that is cheaper
            // than a random read.
            let t_ordered = r.page_bytes / dev.ordered_bytes_per_s();
            t = t.min(t_ordered + (gap - 1.0) * t_page);
        } else if self.engine == Engine::Postgres && (span >= 0.999 * r.object_pages || qd <= 1.0) {
            // Before 18 every page is its own 8 kB request, as an index scan on a correlated
            // key makes them (assumption 17). Once most requests follow the previous page,
            // the kernel's read-ahead serves them as it serves those; a sparse sweep stays
            // random reads. With prefetch (eic >= 1) posix_fadvise brings each page before
            // it is read, so read-ahead only runs if it started at the file's first page
            // (a sweep over the whole table) (assumption 13).
            let density = 1.0 / gap;
            let a = ((density - PG_READAHEAD_DENSITY.0)
                / (PG_READAHEAD_DENSITY.1 - PG_READAHEAD_DENSITY.0))
                .clamp(0.0, 1.0);
            let t_ordered = r.page_bytes / dev.ordered_bytes_per_s();
            t = a * (gap * t_ordered) + (1.0 - a) * t;
        }
        t.max(t_page)
    }
}

/// Bytes an entry of a hash table takes beyond its columns: the tuple's header, the hash
/// entry's and the bucket's pointer (PostgreSQL's HashJoinTuple and MinimalTuple, about
/// 40 bytes together).
const HASH_ENTRY_OVERHEAD_BYTES: f64 = 40.0;

/// The size of the hash table a hash node fills or looks up, bytes (`None`: not a hash
/// node): a Hash node's own rows, a hash join's from its Hash child, a hashed aggregate's
/// groups.
pub fn hash_table_bytes(n: &PlanNode) -> Option<f64> {
    let entries = |n: &PlanNode| n.work.rows_out.max(1.0) * (n.width + HASH_ENTRY_OVERHEAD_BYTES);
    match n.op.as_str() {
        "Hash" | "HashAggregate" => Some(entries(n)),
        op if op.starts_with("Hash ") => n
            .children
            .iter()
            .find(|c| c.op.as_str() == "Hash")
            .map(entries),
        _ => None,
    }
}

/// Pages one sorted sweep reads. One sweep when no page is requested twice; otherwise the
/// number of sweeps `k` is solved from the requests `R` (one per distinct page per sweep)
/// and the distinct pages `D` of all sweeps: `k` sweeps of `s = R / k` pages spread over
/// the object's `O` pages touch `D = O · (1 − (1 − s/O)^k)` distinct pages (exact for
/// DS-MRR's equal buffer fills, whose pages follow Cardenas' formula).
fn pages_per_sweep(object_pages: f64, requests: f64, distinct: f64) -> f64 {
    if requests <= distinct * (1.0 + 1e-9) || object_pages <= 1.0 || distinct <= 0.0 {
        return requests;
    }
    let o = object_pages;
    // Distinct pages of k sweeps; falls with k from R (k = R/O or 1) to O·(1 − e^(−R/O)).
    let d = |k: f64| {
        let s = (requests / k).min(o);
        o * -(k * (-s / o).ln_1p()).exp_m1()
    };
    let (mut lo, mut hi) = ((requests / o).max(1.0), requests.max(1.0));
    if d(lo) <= distinct {
        return requests / lo;
    }
    if d(hi) >= distinct {
        return requests / hi;
    }
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if d(mid) > distinct {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi / lo < 1.0 + 1e-12 {
            break;
        }
    }
    requests / lo
}

/// Every count finite and non-negative, page sizes plausible.
fn check_work(w: &Work) -> Result<()> {
    const MAX: f64 = 1e18;
    for (name, v) in [
        ("work.rows_examined", w.rows_examined),
        ("work.index_entries", w.index_entries),
        ("work.operator_evals", w.operator_evals),
        ("work.rows_out", w.rows_out),
        ("work.comparisons", w.comparisons),
        ("work.spill_bytes", w.spill_bytes),
        ("work.rows_transferred", w.rows_transferred),
        ("work.workers", w.workers),
    ] {
        check_range(name, v, 0.0, MAX)?;
    }
    for r in &w.page_reads {
        let f = |x: &str| format!("work.page_reads[{}].{x}", r.object);
        for (x, v, lo, hi) in [
            ("object_pages", r.object_pages, 0.0, MAX),
            ("page_bytes", r.page_bytes, 512.0, 1_048_576.0),
            ("requests", r.requests, 0.0, MAX),
            ("distinct", r.distinct, 0.0, MAX),
        ] {
            // The field's name is formatted only for the error: this runs for every read
            // of every plan timed (a tenth of the t1 view's time when it always did).
            if check_range(x, v, lo, hi).is_err() {
                check_range(&f(x), v, lo, hi)?;
            }
        }
        if r.distinct > r.requests * (1.0 + 1e-9) + 1e-9 {
            return Err(Error::invalid(
                f("distinct"),
                format!(
                    "{} distinct pages among {} requests",
                    r.distinct, r.requests
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sweep_when_nothing_repeats_and_fills_are_recovered() {
        assert_eq!(pages_per_sweep(1000.0, 200.0, 200.0), 200.0);
        // 10 fills of 100 rows over 10,000 pages.
        let p = 10_000.0_f64;
        let card = |n: f64| p * (1.0 - (1.0 - 1.0 / p).powf(n));
        let requests = 10.0 * card(100.0);
        let per = pages_per_sweep(p, requests, card(1000.0));
        assert!((per - card(100.0)).abs() < 1e-3, "{per}");
    }
}
