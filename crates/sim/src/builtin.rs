//! Built-in machine profiles, each with its source in the data.
//!
//! Seed devices are *derived* from the seeds' query timings and table geometry through the
//! simulation's own model (`sim::time`), so that the model reproduces the seeds; the
//! arithmetic is written next to each number. Reference devices and cloud volumes come
//! from calibration-and-devices.md §5 with the confidence that section gives.

use super::profile::{Confidence, Device, FigureSource, MachineProfile, QdPoint, RandomRead};

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: f64 = 1024.0 * 1024.0;

/// IOPS multipliers over QD1 at depths 1, 2, 4, 8, 16, 32 for flash. QD16 = 13× QD1 is
/// the Intel DC P3700's measured 167k / 12.8k (AnandTech 11209, calibration §5.1); the
/// depths between are interpolated and QD32 = 20× is assumed.
const FLASH_QD: [f64; 6] = [1.0, 1.9, 3.6, 6.8, 13.0, 20.0];
/// The same for a rotating disk: command queueing lets the drive reorder, ~2× at QD32
/// (assumption, no measurement in the references).
const DISK_QD: [f64; 6] = [1.0, 1.15, 1.35, 1.6, 1.9, 2.2];
/// Network volumes: more depth hides the network round trip until the provisioned cap
/// (assumption).
const NET_QD: [f64; 6] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];

fn curve(qd1_latency_us: f64, mult: &[f64; 6]) -> RandomRead {
    let qd1 = 1e6 / qd1_latency_us;
    RandomRead {
        qd1_latency_us,
        iops_by_qd: [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
            .iter()
            .zip(mult)
            .map(|(&q, &m)| QdPoint {
                queue_depth: q,
                iops: qd1 * m,
            })
            .collect(),
    }
}

/// A device from its sequential bandwidth and 8 kB QD1 latency; the 16 kB latency adds
/// the transfer of 8 kB more at sequential bandwidth (calibration §5.3: +2-8 µs on flash).
fn device(seq_mbps: f64, lat8_us: f64, mult: &[f64; 6]) -> Device {
    let lat16 = lat8_us + 8192.0 / (seq_mbps * 1e6) * 1e6;
    Device {
        seq_read_mbps: seq_mbps,
        random_8k: curve(lat8_us, mult),
        random_16k: curve(lat16, mult),
        skip_read_us: None,
        iops_cap: None,
        mbps_cap: None,
        ordered_read_mbps: None,
        direct_page_read_mbps: None,
    }
}

/// Common fields; callers override what they know.
struct Base {
    id: &'static str,
    label: &'static str,
    source: String,
    /// The device's figures and where each comes from.
    figures: Vec<FigureSource>,
    device: Device,
}

fn fig(figure: &str, confidence: Confidence, source: &str) -> FigureSource {
    FigureSource {
        figure: figure.into(),
        confidence,
        source: source.into(),
    }
}

/// A profile is as trustworthy as its weakest figure.
fn weakest(figures: &[FigureSource]) -> Confidence {
    figures
        .iter()
        .map(|f| f.confidence)
        .max()
        .unwrap_or(Confidence::Assumed)
}

const SEQ: &str = "sequential read";
const QD1: &str = "random read at QD1";
const DEEP: &str = "deeper queues";

fn generic(b: Base) -> MachineProfile {
    MachineProfile {
        id: b.id.into(),
        label: b.label.into(),
        source: b.source,
        confidence: weakest(&b.figures),
        figures: b.figures,
        device: b.device,
        // calibration §4.2: a DRAM-bound buffer hit is tens to a few hundred ns, an OS
        // page-cache hit (syscall + 8 kB copy) ~1-3 µs [U].
        buffer_hit_ns: 100.0,
        os_cache_hit_ns: 2000.0,
        os_cache_evict_hit_ns: None,
        // calibration §4.4: cpu_tuple_cost 0.01 ≈ 20-80 ns per tuple, cpu_operator_cost
        // ≈ 5-20 ns; MariaDB measured ~32 ns per two-comparison WHERE (§4.1).
        cpu_ns_per_row: 50.0,
        cpu_ns_per_index_entry: 25.0,
        cpu_ns_per_operator: 16.0,
        cpu_ns_per_comparison: 16.0,
        hash_rows: None,
        ram_bytes: 64.0 * GIB,
        buffer_pool_bytes: 16.0 * GIB,
        bypass_os_cache: false,
        warm_cache: true,
        effective_io_concurrency: 16.0,
        executor_start_ns: 0.0,
        cpu_cores: None,
    }
}

/// The seed's 64 GB test machines (three SSD setups): PostgreSQL with buffered I/O,
/// shared_buffers left at 128 MB (the method of calibration §1.2), warm page cache.
fn seed_64gb(
    id: &'static str,
    label: &'static str,
    source: String,
    device: Device,
) -> MachineProfile {
    MachineProfile {
        // "The CPU usage never goes over ~50% (not even in the seqscan case)": on the
        // RAID0, 500M rows in 24 s at < 50 % CPU is < 24 ns per row; 20 ns assumed, the
        // other CPU figures are assumptions of the same order [U].
        cpu_ns_per_row: 20.0,
        cpu_ns_per_index_entry: 10.0,
        cpu_ns_per_operator: 10.0,
        cpu_ns_per_comparison: 10.0,
        // Every page a buffered scan reads is copied out of the page cache (sim::time
        // assumption 12). The RAID0's seq scan read 23.8M pages in 24 s with ~10 s of row
        // CPU, so the copy cannot exceed ~0.59 µs a page on these machines; 0.5 µs
        // assumed [U] (the generic 2 µs would make that scan 58 s).
        os_cache_hit_ns: 500.0,
        ram_bytes: 64.0 * GIB,
        buffer_pool_bytes: 128.0 * MIB,
        bypass_os_cache: false,
        warm_cache: true,
        ..generic(Base {
            id,
            label,
            source,
            figures: vec![
                fig(SEQ, Confidence::Fitted, "the seed's seqscan time over the table's pages"),
                fig(
                    QD1,
                    Confidence::Fitted,
                    "the seed's index scan time, less CPU and cache hits, per heap read",
                ),
                fig(
                    DEEP,
                    Confidence::Assumed,
                    "the Intel P3700's QD16 / QD1 ratio (AnandTech 11209), depths between interpolated, QD32 assumed: nothing measured on this device",
                ),
            ],
            device,
        })
    }
}

/// The seed's Azure VM: "with direct I/O", so only shared_buffers (128 MB assumed) caches.
fn seed_azure(
    id: &'static str,
    label: &'static str,
    source: String,
    device: Device,
) -> MachineProfile {
    MachineProfile {
        ram_bytes: 16.0 * GIB,
        bypass_os_cache: true,
        ..seed_64gb(id, label, source, device)
    }
}

const SEED_SRC: &str =
    "pgsql-hackers \"Should we update the random_page_cost default value?\" (seed)";

// Derivation used for all five (assumptions of sim::time): the seq scan reads P pages of
// 8 kB with no cache hits (a table larger than the page cache floods it, and the 128 MB
// shared_buffers are bypassed by the ring), I/O bound: seq MB/s = P × 8192 / T(seq).
// The index scan makes N random heap requests, of which a fraction h hit the cache (64 GB
// machines: shared_buffers + 90 % of RAM less shared_buffers, shared with the 11.2 GB
// index as an LRU cache shares it (sim::time assumption 2: the heap, asked 21 times per
// page, keeps nearly all of it): h = 31.5 %; Azure with direct I/O: 128 MB, h = 3.4 %),
// plus ~N × 30 ns CPU and N × h page-cache hits at 2 µs
// (not overlapped with QD1 reads), the index leaves read sequentially (overlapped):
// QD1 8 kB latency = (T(idx) − CPU − hit time − index leaves) / (N × (1 − h)), numbers
// from the simulation of pg::plan's work for the seed's table (sim/tests.rs).

fn seed_nvme() -> MachineProfile {
    // seq: 23,809,524 × 8192 / 98 s = 1,990 MB/s.
    // idx: 341.97M heap misses; CPU 15 s, 157.7M page-cache hits 315.4 s, index leaves 5.6 s
    // (overlapped with them): (42,232 − 330.4) / 341.97M = 122.53 µs.
    seed_64gb(
        "seed-nvme",
        "Seed: single NVMe (64 GB RAM)",
        format!("{SEED_SRC}: NVMe, seqscan 98 s, index scan 42,232 s over 500M rows / 23,809,524 pages; device figures fitted to those timings"),
        device(1990.3, 122.53, &FLASH_QD),
    )
}

fn seed_nvme_raid0() -> MachineProfile {
    // seq: 23,809,524 × 8192 / 24 s = 8,127 MB/s.
    // idx: (25,462 − 330.4) / 341.97M = 73.49 µs.
    seed_64gb(
        "seed-nvme-raid0",
        "Seed: 4× NVMe RAID0 (64 GB RAM)",
        format!("{SEED_SRC}: NVMe/RAID0, seqscan 24 s, index scan 25,462 s over 500M rows; device figures fitted to those timings"),
        device(8127.0, 73.49, &FLASH_QD),
    )
}

fn seed_sata_raid0() -> MachineProfile {
    // seq: 23,809,524 × 8192 / 109 s = 1,789 MB/s.
    // idx: (48,141 − 330.4) / 341.97M = 139.81 µs.
    seed_64gb(
        "seed-sata-raid0",
        "Seed: 4× SATA SSD RAID0 (64 GB RAM)",
        format!("{SEED_SRC}: SATA/RAID0, seqscan 109 s, index scan 48,141 s over 500M rows; device figures fitted to those timings"),
        device(1789.4, 139.81, &FLASH_QD),
    )
}

fn seed_azure_scsi() -> MachineProfile {
    // seq: 476,190 × 8192 / 2.1 s = 1,858 MB/s.
    // idx: 9.654M heap misses (3.4 % hits), CPU and index leaves 0.33 s:
    // (1,292 − 0.33) / 9.654M = 133.80 µs.
    seed_azure(
        "seed-azure-scsi",
        "Seed: Azure VM local SCSI disk (direct I/O)",
        format!("{SEED_SRC}: Azure \"SCSI\", 10M rows (~3.7 GB), direct I/O, seqscan 2.1 s, index scan 1,292 s; fitted"),
        device(1857.5, 133.80, &FLASH_QD),
    )
}

fn seed_azure_hdd() -> MachineProfile {
    // seq: 476,190 × 8192 / 209.8 s = 18.59 MB/s.
    // idx: index leaves at 18.6 MB/s 12.1 s: (27,586 − 12.1) / 9.654M = 2,856 µs (350 IOPS;
    // the seed says "~370 IOPS").
    let mut d = device(18.59, 2856.0, &NET_QD);
    // Azure standard HDD: 500 IOPS per disk (vendor limit, calibration §5.2 lists the
    // premium tiers; the standard-HDD 500 IOPS is [U]).
    d.iops_cap = Some(500.0);
    let mut p = seed_azure(
        "seed-azure-hdd",
        "Seed: Azure standard HDD volume (direct I/O)",
        format!("{SEED_SRC}: Azure \"standard HDD\", 10M rows, direct I/O, seqscan 209.8 s, index scan 27,586 s; fitted"),
        d,
    );
    p.figures[2] = fig(
        DEEP,
        Confidence::Assumed,
        "network volume: IOPS grow with depth up to the cap (assumption)",
    );
    p.figures.push(fig(
        "IOPS cap",
        Confidence::Assumed,
        "Azure standard HDD 500 IOPS per disk (not in the references)",
    ));
    p.confidence = weakest(&p.figures);
    p
}

// ---- WL#8737 (mysql-wl8737-io-aware-cost-defaults.txt) ---------------------------------

const WL_SRC: &str = "MySQL WL#8737 (seed), table t1: 10M rows, 2.9 GB data";

/// CPU figures of the WL#8737 server, fitted to the seed's in-memory timings with the
/// work mysql::plan counts for t1 (printed by sim/tests.rs, `wl8737_timings`): a full table
/// scan "almost 6 seconds" and a range scan of 9 % of the rows 1.5 s. Fixed beforehand:
/// 100 ns per index entry (MariaDB's KEY_NEXT_FIND ~0.099 µs, calibration §4.1) and 16 ns
/// per operator (MariaDB's ~32 ns per two-comparison WHERE). Fitted: 549 ns per row and
/// 968 ns per buffer-pool page request (a clustered-index lookup from the pool: MariaDB
/// measured ROW_LOOKUP ~0.8 µs). The 15 % range scan (2.5 s) is a prediction.
fn wl8737(
    id: &'static str,
    label: &'static str,
    source: String,
    pool: f64,
    device: Device,
) -> MachineProfile {
    MachineProfile {
        buffer_hit_ns: WL_BUFFER_HIT_NS,
        os_cache_hit_ns: 2000.0,
        cpu_ns_per_row: WL_NS_PER_ROW,
        cpu_ns_per_index_entry: 100.0,
        cpu_ns_per_operator: 16.0,
        cpu_ns_per_comparison: 16.0,
        // RAM is not in the seed; 64 GB holds the 36 GB pool [U].
        ram_bytes: 64.0 * GIB,
        buffer_pool_bytes: pool,
        // InnoDB with innodb_flush_method = O_DIRECT: only the pool caches.
        bypass_os_cache: true,
        warm_cache: true,
        ..generic(Base {
            id,
            label,
            source,
            figures: vec![
                fig(
                    SEQ,
                    Confidence::Fitted,
                    "the seed's disk-bound table scan (~45 s)",
                ),
                fig(
                    QD1,
                    Confidence::Fitted,
                    "the seed's disk-bound 9 % range scan with default MRR (~2,400 s)",
                ),
                fig(
                    "sorted-read skip",
                    Confidence::Fitted,
                    "the seed's range scan with DS-MRR (~300 s)",
                ),
                fig(
                    DEEP,
                    Confidence::Assumed,
                    "command queueing ~2× at QD32 (assumption, no measurement)",
                ),
            ],
            device,
        })
    }
}

pub const WL_NS_PER_ROW: f64 = 549.0;
pub const WL_BUFFER_HIT_NS: f64 = 968.0;

/// The disk of the WL#8737 servers; the seed does not describe it. Derived from the
/// disk-bound t1 timings with the work mysql::plan counts (printed by sim/tests.rs,
/// `wl8737_timings`), 1 GB pool, O_DIRECT, warm, 5.7 constants:
/// * table scan ~45 s: 177,002 pages × 16 kB = 2.90e9 bytes, no hits (the table is larger
///   than the pool), I/O overlapping ~6 s of CPU: 2.90e9 / 45 s = 64.44 MB/s;
/// * range scan at 9 % with default MRR ~2,400 s: 900k clustered-index lookups (one per
///   row, 175.9k distinct pages), of which 565.7k miss a pool that holds 37 % of them
///   (sim::time assumption 2: t1, asked 5 times per page, keeps nearly all of the pool
///   against the k7 leaves read once; the brief's "~1.8M random reads" would need two
///   reads per row; the work counts one): (2,400 − 1.3 s CPU, hits and leaves) / 565.7k
///   = 4,241 µs per 16 kB read: a 7,200 rpm disk (4.17 ms average rotation)
///   short-stroked over a few GB;
/// * range scan with DS-MRR ~300 s. The seed gives 300 s at the ~4 % switch point of
///   io_block_read_cost 2.0, where the range runs with DS-MRR: 400k rowids in 6.1 fills of
///   65,536 (256 kB read_rnd_buffer / 4-byte rowid), each fill one sorted sweep of ~54.9k
///   pages, 3.22 pages apart; 204.3k reads miss. A sorted read costs the short access
///   plus the 2.26 pages passing under the head (575 µs at 64.44 MB/s):
///   299.0 s / 204.3k = 1,463 µs, so `skip_read_us` = 888 µs (track-to-track seek and
///   command overhead; plausible for such a disk).
fn wl8737_disk_device() -> Device {
    let mut d = device(WL_SEQ_MBPS, WL_LAT16_US - 8192.0 / WL_SEQ_MBPS, &DISK_QD);
    d.skip_read_us = Some(WL_SKIP_US);
    d
}

pub const WL_SEQ_MBPS: f64 = 64.44;
pub const WL_LAT16_US: f64 = 4240.9;
pub const WL_SKIP_US: f64 = 888.0;

fn wl8737_memory() -> MachineProfile {
    wl8737(
        "wl8737-memory",
        "WL#8737 server, 36 GB buffer pool (t1 in memory)",
        format!("{WL_SRC}; 36 GB InnoDB buffer pool holding all of t1; CPU figures fitted to the seed's table scan (~6 s) and 9 % range scan (1.5 s)"),
        36.0 * GIB,
        wl8737_disk_device(),
    )
}

fn wl8737_disk() -> MachineProfile {
    wl8737(
        "wl8737-disk",
        "WL#8737 server, 1 GB buffer pool (disk-bound)",
        format!("{WL_SRC}; 1 GB InnoDB buffer pool; disk not described in the seed, derived from its t1 timings (table scan ~45 s, 9 % range ~2,400 s default MRR, ~300 s DS-MRR)"),
        GIB,
        wl8737_disk_device(),
    )
}

// ---- Reference devices (calibration-and-devices.md §5) -----------------------------------

fn hdd_7200() -> MachineProfile {
    // HGST Ultrastar 7K4000: 8.2 ms average read seek + 4.17 ms rotation = 12.4 ms QD1
    // (§5.1, spec sheet [V]); ~200 MB/s outer tracks (§5.3). Vondra measured an engine
    // ratio of ~125 on rotational SATA (§1.3, [V]); the device ratio is ~300.
    let lat8 = 12_400.0;
    let mut d = device(200.0, lat8, &DISK_QD);
    // Track-to-track seek and command overhead ~1 ms [U].
    d.skip_read_us = Some(1000.0);
    generic(Base {
        id: "hdd-7200",
        label: "SATA 7,200 rpm disk",
        source: "calibration-and-devices.md §5.1/§5.3: HGST Ultrastar 7K4000 spec (8.2 ms seek + 4.17 ms rotation), ~200 MB/s; Vondra's measured random_page_cost ~125 on such disks".into(),
        figures: vec![
            fig(SEQ, Confidence::Vendor, "~200 MB/s on outer tracks (§5.3)"),
            fig(QD1, Confidence::Vendor, "spec sheet: 8.2 ms seek + 4.17 ms rotation"),
            fig(
                "sorted-read skip",
                Confidence::Assumed,
                "track-to-track seek and command overhead ~1 ms",
            ),
            fig(
                DEEP,
                Confidence::Assumed,
                "command queueing ~2× at QD32 (assumption, no measurement)",
            ),
        ],
        device: d,
    })
}

fn optane() -> MachineProfile {
    // Intel Optane DC P4800X: QD1 4 kB 108.3k IOPS, mean 8.9 µs; QD16 584.8k IOPS
    // (AnandTech 11209 [V]); 2,400 MB/s (§5.3). 8 kB latency = 8.9 µs + 4 kB at 2.4 GB/s.
    let lat8 = 8.9 + 4096.0 / 2400.0;
    let mut d = device(2400.0, lat8, &FLASH_QD);
    let qd1 = 1e6 / lat8;
    let qd16 = 584_800.0 * 8.9 / lat8;
    let m = qd16 / qd1;
    let mult = [
        1.0,
        1.0 + (m - 1.0) * 0.25,
        1.0 + (m - 1.0) * 0.5,
        1.0 + (m - 1.0) * 0.75,
        m,
        m,
    ];
    d.random_8k = curve(lat8, &mult);
    d.random_16k = curve(lat8 + 8192.0 / 2400.0, &mult);
    generic(Base {
        id: "optane-dc",
        label: "Intel Optane DC P4800X",
        source: "calibration-and-devices.md §5.1: AnandTech 11209, QD1 108.3k IOPS (8.9 µs), QD16 584.8k IOPS; §5.3 2,400 MB/s".into(),
        figures: vec![
            fig(SEQ, Confidence::Vendor, "2,400 MB/s rated (§5.3)"),
            fig(QD1, Confidence::Measured, "AnandTech 11209: 108.3k 4 kB IOPS, 8.9 µs"),
            fig(
                DEEP,
                Confidence::Derived,
                "QD16 measured (AnandTech 11209: 584.8k IOPS); QD2-8 interpolated, QD32 held at QD16's",
            ),
        ],
        device: d,
    })
}

fn nvme_gen4() -> MachineProfile {
    // Corsair MP600 PRO XT 2 TB: 20,176 IOPS at QD1 4 kB (~50 µs), "matches Optane by
    // QD8" (KitGuru [V]); 7,000 MB/s (§5.3). QD8 taken as the P4800X's interpolated QD8
    // (~466k 4 kB IOPS, derived); 8 kB = 4 kB latency + 4 kB at 7 GB/s.
    let lat4 = 1e6 / 20_176.0;
    let lat8 = lat4 + 4096.0 / 7000.0;
    let qd1 = 1e6 / lat8;
    let qd8 = 466_000.0 * lat4 / lat8;
    let m8 = qd8 / qd1;
    let mult = [
        1.0,
        1.0 + (m8 - 1.0) / 3.0,
        1.0 + 2.0 * (m8 - 1.0) / 3.0,
        m8,
        m8 * 1.2,
        m8 * 1.3,
    ];
    let mut d = device(7000.0, lat8, &FLASH_QD);
    d.random_8k = curve(lat8, &mult);
    d.random_16k = curve(lat8 + 8192.0 / 7000.0, &mult);
    generic(Base {
        id: "nvme-consumer-gen4",
        label: "Consumer PCIe 4.0 NVMe (MP600 PRO XT class)",
        source: "calibration-and-devices.md §5.1/§5.3: KitGuru, 20,176 QD1 IOPS, 7,000 MB/s; QD2-8 derived from \"matches Optane by QD8\", QD16-32 assumed".into(),
        figures: vec![
            fig(SEQ, Confidence::Vendor, "7,000 MB/s rated for the class (§5.3)"),
            fig(QD1, Confidence::Measured, "KitGuru: 20,176 4 kB IOPS at QD1"),
            fig(
                "queue depths 2-8",
                Confidence::Derived,
                "KitGuru's \"matches Optane by QD8\" taken as the P4800X's interpolated QD8, depths between interpolated",
            ),
            fig(
                "queue depths 16-32",
                Confidence::Assumed,
                "1.2× and 1.3× QD8: invented, no measurement",
            ),
        ],
        device: d,
    })
}

fn sata_ssd() -> MachineProfile {
    // Samsung 870 EVO: 13,000 IOPS QD1 (~77 µs), 98k QD32, 560 MB/s (vendor spec, §5.1).
    let lat4 = 1e6 / 13_000.0;
    let lat8 = lat4 + 4096.0 / 560.0;
    let m32 = 98_000.0 / 13_000.0;
    let mult = [1.0, 1.8, 3.2, 5.0, 6.5, m32];
    let mut d = device(560.0, lat8, &FLASH_QD);
    d.random_8k = curve(lat8, &mult);
    d.random_16k = curve(lat8 + 8192.0 / 560.0, &mult);
    generic(Base {
        id: "sata-ssd",
        label: "SATA SSD (870 EVO class)",
        source: "calibration-and-devices.md §5.1: Samsung spec 13,000 IOPS QD1, 98k QD32, 560 MB/s"
            .into(),
        figures: vec![
            fig(SEQ, Confidence::Vendor, "Samsung spec: 560 MB/s"),
            fig(QD1, Confidence::Vendor, "Samsung spec: 13,000 IOPS at QD1"),
            fig(
                "queue depths 2-16",
                Confidence::Assumed,
                "1.8× to 6.5× QD1: assumed between the spec's QD1 and QD32",
            ),
            fig("QD32", Confidence::Vendor, "Samsung spec: 98k IOPS"),
        ],
        device: d,
    })
}

fn gp3() -> MachineProfile {
    // AWS gp3 baseline: 3,000 IOPS, 125 MiB/s (AWS docs [V]); latency "single-digit ms"
    // class, 0.8 ms at QD1 assumed (§5.3 gives 0.6-1 ms [U]).
    let mut d = device(131.0, 800.0, &NET_QD);
    d.iops_cap = Some(3000.0);
    d.mbps_cap = Some(131.072);
    generic(Base {
        id: "aws-gp3",
        label: "AWS EBS gp3 (baseline 3,000 IOPS, 125 MiB/s)",
        source: "calibration-and-devices.md §5.2/§5.3: AWS gp3 limits [V]; QD1 latency 0.8 ms assumed [U]".into(),
        figures: vec![
            fig("IOPS and throughput caps", Confidence::Vendor, "AWS gp3 baseline: 3,000 IOPS, 125 MiB/s"),
            fig(QD1, Confidence::Assumed, "0.8 ms (§5.3 gives 0.6-1 ms, unverified)"),
            fig(DEEP, Confidence::Assumed, "network volume: IOPS grow with depth up to the cap (assumption)"),
        ],
        device: d,
    })
}

fn io2() -> MachineProfile {
    // AWS io2 Block Express: < 500 µs average for 16 KiB I/O (AWS docs [V]); 64,000
    // provisioned IOPS and 1,000 MB/s assumed (§5.3: 1,000 MB/s [U]).
    let lat16 = 500.0;
    let mut d = device(1000.0, lat16 - 8.192, &NET_QD);
    d.iops_cap = Some(64_000.0);
    d.mbps_cap = Some(1000.0);
    generic(Base {
        id: "aws-io2-be",
        label: "AWS EBS io2 Block Express (64k IOPS provisioned)",
        source: "calibration-and-devices.md §5.2: <500 µs per 16 KiB [V]; 1,000 MB/s and 64k IOPS provisioned assumed".into(),
        figures: vec![
            fig(QD1, Confidence::Vendor, "AWS: < 500 µs average per 16 KiB"),
            fig("IOPS and throughput caps", Confidence::Assumed, "64,000 IOPS provisioned and 1,000 MB/s assumed"),
            fig(DEEP, Confidence::Assumed, "network volume: IOPS grow with depth up to the cap (assumption)"),
        ],
        device: d,
    })
}

fn azure_p30() -> MachineProfile {
    // Azure Premium SSD P30: 5,000 IOPS, 200 MB/s (§5.2 [V]); ~2 ms QD1 (§5.3 [U]).
    let mut d = device(200.0, 2000.0, &NET_QD);
    d.iops_cap = Some(5000.0);
    d.mbps_cap = Some(200.0);
    generic(Base {
        id: "azure-premium-p30",
        label: "Azure Premium SSD P30 (5,000 IOPS, 200 MB/s)",
        source: "calibration-and-devices.md §5.2: P30 5,000 IOPS / 200 MB/s [V]; QD1 ~2 ms [U]"
            .into(),
        figures: vec![
            fig(
                "IOPS and throughput caps",
                Confidence::Vendor,
                "P30: 5,000 IOPS, 200 MB/s",
            ),
            fig(QD1, Confidence::Assumed, "~2 ms (§5.3, unverified)"),
            fig(
                DEEP,
                Confidence::Assumed,
                "network volume: IOPS grow with depth up to the cap (assumption)",
            ),
        ],
        device: d,
    })
}

/// Every built-in profile.
pub fn profiles() -> Vec<MachineProfile> {
    vec![
        seed_nvme(),
        seed_nvme_raid0(),
        seed_sata_raid0(),
        seed_azure_scsi(),
        seed_azure_hdd(),
        hdd_7200(),
        wl8737_memory(),
        wl8737_disk(),
        gp3(),
        io2(),
        azure_p30(),
        optane(),
        nvme_gen4(),
        sata_ssd(),
    ]
}

/// The built-in profile with this id.
pub fn find(id: &str) -> costlab_model::Result<MachineProfile> {
    profiles().into_iter().find(|p| p.id == id).ok_or_else(|| {
        costlab_model::Error::invalid(
            "profile",
            format!(
                "`{id}` is not a built-in profile; known: {}",
                profiles()
                    .iter()
                    .map(|p| p.id.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    })
}
