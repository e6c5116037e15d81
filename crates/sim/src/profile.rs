//! Machine profiles: the physical quantities the simulation times work with, in units.
//!
//! The shape follows what a probe measures (calibration-and-devices.md §0, §5.3): sequential
//! read bandwidth, QD1 random-read latency and IOPS over queue depths 1..32 for 8 kB and
//! 16 kB pages, buffer-hit and page-cache-hit times per page, CPU time per row. A probe's
//! JSON deserialises straight into [`MachineProfile`]; [`MachineProfile::validate`] rejects
//! what cannot be right and [`MachineProfile::warnings`] flags what is merely unusual.

use costlab_model::error::{check_range, Error, Result};
use serde::{Deserialize, Serialize};

/// How far a figure (or a whole profile) can be trusted. Strongest first: a profile's
/// own `confidence` is its weakest figure's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Measured on the device (a probe run, a review's measurement).
    Measured,
    /// From a vendor's data sheet or service limits.
    Vendor,
    /// Fitted to a seed's query timings through the simulation's model.
    Fitted,
    /// Computed from other measurements.
    Derived,
    /// Assumed or borrowed from another device: no measurement of this one behind it.
    Assumed,
}

impl Confidence {
    pub const ALL: [Confidence; 5] = [
        Confidence::Measured,
        Confidence::Vendor,
        Confidence::Fitted,
        Confidence::Derived,
        Confidence::Assumed,
    ];

    /// The word in files and links.
    pub fn id(self) -> &'static str {
        match self {
            Confidence::Measured => "measured",
            Confidence::Vendor => "vendor",
            Confidence::Fitted => "fitted",
            Confidence::Derived => "derived",
            Confidence::Assumed => "assumed",
        }
    }

    /// As people read it.
    pub fn label(self) -> &'static str {
        match self {
            Confidence::Measured => "measured",
            Confidence::Vendor => "vendor figure",
            Confidence::Fitted => "fitted to the seed's timings",
            Confidence::Derived => "derived",
            Confidence::Assumed => "assumed",
        }
    }

    pub fn parse(s: &str) -> Option<Confidence> {
        Confidence::ALL.into_iter().find(|c| c.id() == s)
    }
}

/// Where one figure of a profile comes from, for profiles that mix sources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FigureSource {
    /// Which figure: "sequential read", "random read at QD1", "deeper queues", ...
    pub figure: String,
    pub confidence: Confidence,
    pub source: String,
}

/// IOPS reached with `queue_depth` reads in flight.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QdPoint {
    pub queue_depth: f64,
    pub iops: f64,
}

/// Random reads of one page size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomRead {
    /// Mean completion latency of one read with nothing else in flight, µs.
    pub qd1_latency_us: f64,
    /// IOPS at queue depths 1, 2, 4, ... 32 (ascending depths; any subset). Empty: the
    /// device does not gain from concurrency (IOPS = 1e6 / qd1_latency_us at every depth).
    #[serde(default)]
    pub iops_by_qd: Vec<QdPoint>,
}

/// A storage device (or array, or cloud volume) as the engine sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// Sequential read bandwidth with read-ahead, MB/s (10^6 bytes per second).
    pub seq_read_mbps: f64,
    /// Random reads of 8 kB pages (PostgreSQL).
    pub random_8k: RandomRead,
    /// Random reads of 16 kB pages (InnoDB).
    pub random_16k: RandomRead,
    /// Time to start a read a short distance after the previous one, µs: on a rotating
    /// disk the track-to-track seek and command overhead, after which the head waits only
    /// for the gap to pass. `None`: no positional benefit (flash, network volumes): a
    /// read in sorted order costs what a random read costs.
    #[serde(default)]
    pub skip_read_us: Option<f64>,
    /// Provisioned IOPS limit (cloud volumes).
    #[serde(default)]
    pub iops_cap: Option<f64>,
    /// Provisioned throughput limit, MB/s (cloud volumes).
    #[serde(default)]
    pub mbps_cap: Option<f64>,
    /// Reading a table's pages in order one 8 kB request at a time, the backend waiting for
    /// each (a PostgreSQL index scan on a correlated key: the kernel's read-ahead serves
    /// the requests, no read stream runs ahead of them), MB/s (sim::time assumption 17).
    /// `None`: as `seq_read_mbps`.
    #[serde(default)]
    pub ordered_read_mbps: Option<f64>,
    /// Sequential reads one synchronous 8 kB request at a time around the OS page cache
    /// (direct I/O, no kernel read-ahead), MB/s: how PostgreSQL reads with
    /// `debug_io_direct = data` (sim::time assumption 18). `None`: as `seq_read_mbps`.
    #[serde(default)]
    pub direct_page_read_mbps: Option<f64>,
}

/// A machine and the engine's memory settings on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineProfile {
    pub id: String,
    pub label: String,
    /// Where the numbers come from, with the arithmetic when derived.
    pub source: String,
    /// The weakest of `figures` when they are given; a probe's file is measured throughout.
    pub confidence: Confidence,
    /// Confidence figure by figure where the device's figures have different sources
    /// (empty: `confidence` holds for all of them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<FigureSource>,
    pub device: Device,
    /// Finding a page in the engine's own buffer (shared_buffers / InnoDB buffer pool), ns.
    pub buffer_hit_ns: f64,
    /// Finding a page in the OS page cache (buffered read: syscall and copy), ns.
    pub os_cache_hit_ns: f64,
    /// Bringing a page from the OS page cache into a full engine buffer, where a victim must
    /// be found first (PostgreSQL's clock sweep over shared_buffers), ns. `None`: as
    /// `os_cache_hit_ns`. PostgreSQL's large sequential scans read through a small ring
    /// instead and cost `os_cache_hit_ns` (measured on PostgreSQL 15: 1.6 µs a page through
    /// the ring, about 4 µs for index and bitmap heap scans; `costlab-probe validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os_cache_evict_hit_ns: Option<f64>,
    /// CPU per heap or clustered-index row handed to the executor, ns.
    pub cpu_ns_per_row: f64,
    /// CPU per index entry read, ns.
    pub cpu_ns_per_index_entry: f64,
    /// CPU per operator evaluation (a comparison in WHERE), ns.
    pub cpu_ns_per_operator: f64,
    /// CPU per comparison in a sort, merge or unique, ns.
    pub cpu_ns_per_comparison: f64,
    /// CPU per row a hash table takes in or looks up (a hash join's build and probe rows, a
    /// hashed aggregate's input rows), by the table's size (sim::time assumption 9).
    /// `None`: `cpu_ns_per_comparison`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash_rows: Option<HashRowCost>,
    /// Physical memory, bytes.
    pub ram_bytes: f64,
    /// shared_buffers or innodb_buffer_pool_size, bytes.
    pub buffer_pool_bytes: f64,
    /// The engine reads around the OS page cache (InnoDB O_DIRECT, PostgreSQL
    /// debug_io_direct): only the buffer pool caches.
    pub bypass_os_cache: bool,
    /// The caches hold what a running workload leaves in them (true) or nothing (false).
    pub warm_cache: bool,
    /// PostgreSQL effective_io_concurrency: read-ahead depth of bitmap heap scans (0 or 1:
    /// none). MySQL ignores it.
    #[serde(default = "default_eic")]
    pub effective_io_concurrency: f64,
    /// Starting and ending one execution (ExecutorStart and ExecutorEnd: locks, opening
    /// relations and indexes, setting up the plan's state), ns, once per plan (sim::time
    /// assumption 16). 0: not measured; it matters only for plans of a millisecond or less.
    #[serde(default)]
    pub executor_start_ns: f64,
    /// CPU cores the engine's processes share: a parallel plan's workers and leader run on
    /// at most this many at once (sim::time assumption 9). `None`: as many as it starts
    /// (the built-in machines, whose core counts their sources do not give). A probe's
    /// file has the machine's (`machine.cpus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_cores: Option<f64>,
}

/// What a row into or out of a hash table costs, measured at two table sizes: hashing the
/// key, finding or filling its bucket, copying the row in or the match out. A lookup in a
/// table the CPU's caches hold is cheap; in a larger one each lookup waits for memory.
/// Between the two sizes the cost is interpolated in log(size); outside, the nearer one's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HashRowCost {
    pub small_bytes: f64,
    pub small_ns: f64,
    pub large_bytes: f64,
    pub large_ns: f64,
}

impl HashRowCost {
    /// ns per row in a table of `bytes`.
    pub fn ns(&self, bytes: f64) -> f64 {
        if self.large_bytes <= self.small_bytes || bytes <= self.small_bytes {
            return self.small_ns;
        }
        let t = ((bytes.ln() - self.small_bytes.ln())
            / (self.large_bytes.ln() - self.small_bytes.ln()))
        .clamp(0.0, 1.0);
        self.small_ns + t * (self.large_ns - self.small_ns)
    }
}

fn default_eic() -> f64 {
    // PostgreSQL 18's default (calibration-and-devices.md §1.7).
    16.0
}

/// Bounds a value must respect to be physically possible at all.
mod bounds {
    /// 1 MB/s (a throttled cloud disk) to 100 GB/s (more than any local array).
    pub const SEQ_MBPS: (f64, f64) = (1.0, 100_000.0);
    /// 1 µs (faster than any device; Optane is ~9 µs) to 1 s.
    pub const LATENCY_US: (f64, f64) = (1.0, 1_000_000.0);
    pub const IOPS: (f64, f64) = (1.0, 100_000_000.0);
    pub const QD: (f64, f64) = (1.0, 65_536.0);
    /// A memory access cannot take less than 1 ns; 10 ms would be a disk, not a cache.
    pub const HIT_NS: (f64, f64) = (1.0, 10_000_000.0);
    /// CPU per row, entry, operator, comparison: 0.01 ns to 1 ms.
    pub const CPU_NS: (f64, f64) = (0.01, 1_000_000.0);
    /// A hash table of one byte to a petabyte.
    pub const TABLE_BYTES: (f64, f64) = (1.0, 1e15);
    /// 16 MiB to 1 PiB of RAM.
    pub const RAM: (f64, f64) = (16.0 * 1048576.0, 1_125_899_906_842_624.0);
    /// 128 kB (PostgreSQL's minimum shared_buffers) upwards; capped by RAM separately.
    pub const BUFFER: (f64, f64) = (131_072.0, 1_125_899_906_842_624.0);
    pub const EIC: (f64, f64) = (0.0, 1000.0);
}

fn check(field: &str, v: f64, b: (f64, f64)) -> Result<f64> {
    check_range(field, v, b.0, b.1)
}

impl RandomRead {
    fn validate(&self, field: &str) -> Result<()> {
        check(
            &format!("{field}.qd1_latency_us"),
            self.qd1_latency_us,
            bounds::LATENCY_US,
        )?;
        let mut last_qd = 0.0;
        for (i, p) in self.iops_by_qd.iter().enumerate() {
            let f = format!("{field}.iops_by_qd[{i}]");
            check(&format!("{f}.queue_depth"), p.queue_depth, bounds::QD)?;
            check(&format!("{f}.iops"), p.iops, bounds::IOPS)?;
            if p.queue_depth <= last_qd {
                return Err(Error::invalid(
                    format!("{f}.queue_depth"),
                    "queue depths must be strictly ascending",
                ));
            }
            last_qd = p.queue_depth;
            if p.queue_depth == 1.0 {
                // Mean latency and IOPS at QD1 are reciprocal; allow 25 % of noise.
                let implied = 1e6 / self.qd1_latency_us;
                if !(0.75..=1.0 / 0.75).contains(&(p.iops / implied)) {
                    return Err(Error::invalid(
                        format!("{f}.iops"),
                        format!(
                            "{} IOPS at QD1 contradicts qd1_latency_us {} (implies {:.0} IOPS)",
                            p.iops, self.qd1_latency_us, implied
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// IOPS at queue depth `qd` (>= 1): the curve interpolated linearly in log2(depth),
    /// flat beyond its last point; the QD1 latency anchors depth 1 when the curve has no
    /// point there. Never below the QD1 rate: more reads in flight never slow a device down
    /// in this model.
    pub fn iops_at(&self, qd: f64) -> f64 {
        let qd1 = 1e6 / self.qd1_latency_us;
        let qd = if qd.is_finite() { qd.max(1.0) } else { 1.0 };
        let mut prev = (1.0_f64, qd1);
        let mut pts = self.iops_by_qd.iter().filter(|p| p.queue_depth >= 1.0);
        for p in pts.by_ref() {
            if p.queue_depth == 1.0 {
                prev = (1.0, p.iops);
                continue;
            }
            if qd <= p.queue_depth {
                let (q0, i0) = prev;
                let t = (qd.log2() - q0.log2()) / (p.queue_depth.log2() - q0.log2());
                return (i0 + t * (p.iops - i0)).max(qd1.min(i0));
            }
            prev = (p.queue_depth, p.iops);
        }
        prev.1.max(qd1.min(prev.1))
    }
}

impl Device {
    /// Random-read figures for a page size: the 8 kB or 16 kB curve, the nearer one for
    /// other sizes with the latency moved by the extra bytes at sequential bandwidth.
    pub fn random_for(&self, page_bytes: f64) -> RandomRead {
        let bw = self.seq_bytes_per_s();
        let (base, base_bytes) = if page_bytes <= 12_288.0 {
            (&self.random_8k, 8192.0)
        } else {
            (&self.random_16k, 16384.0)
        };
        if page_bytes == base_bytes {
            return base.clone();
        }
        let extra_us = (page_bytes - base_bytes) / bw * 1e6;
        let lat = (base.qd1_latency_us + extra_us).max(bounds::LATENCY_US.0);
        let scale = base.qd1_latency_us / lat;
        RandomRead {
            qd1_latency_us: lat,
            iops_by_qd: base
                .iops_by_qd
                .iter()
                .map(|p| QdPoint {
                    queue_depth: p.queue_depth,
                    iops: p.iops * scale,
                })
                .collect(),
        }
    }

    /// In-order reads one request at a time (`ordered_read_mbps`, else the sequential
    /// bandwidth), after any throughput cap, bytes per second.
    pub fn ordered_bytes_per_s(&self) -> f64 {
        self.capped_or_seq(self.ordered_read_mbps)
    }

    /// One synchronous 8 kB request at a time around the OS cache
    /// (`direct_page_read_mbps`, else the sequential bandwidth), after any throughput cap,
    /// bytes per second.
    pub fn direct_page_bytes_per_s(&self) -> f64 {
        self.capped_or_seq(self.direct_page_read_mbps)
    }

    /// `mbps` after any throughput cap, bytes per second; `None`: the sequential bandwidth.
    fn capped_or_seq(&self, mbps: Option<f64>) -> f64 {
        match mbps {
            Some(m) => self.mbps_cap.map_or(m, |c| m.min(c)) * 1e6,
            None => self.seq_bytes_per_s(),
        }
    }

    /// Sequential bandwidth after any throughput cap, bytes per second.
    pub fn seq_bytes_per_s(&self) -> f64 {
        let mbps = match self.mbps_cap {
            Some(c) => self.seq_read_mbps.min(c),
            None => self.seq_read_mbps,
        };
        mbps * 1e6
    }

    /// Seconds per random read of `page_bytes` with `qd` reads in flight (wall time per
    /// read, i.e. 1 / IOPS), after the IOPS and throughput caps.
    pub fn random_read_s(&self, page_bytes: f64, qd: f64) -> f64 {
        let r = self.random_for(page_bytes);
        let mut iops = if qd <= 1.0 {
            1e6 / r.qd1_latency_us
        } else {
            r.iops_at(qd)
        };
        if let Some(cap) = self.iops_cap {
            iops = iops.min(cap);
        }
        if let Some(cap) = self.mbps_cap {
            iops = iops.min(cap * 1e6 / page_bytes.max(1.0));
        }
        1.0 / iops
    }

    fn validate(&self) -> Result<()> {
        check("device.seq_read_mbps", self.seq_read_mbps, bounds::SEQ_MBPS)?;
        self.random_8k.validate("device.random_8k")?;
        self.random_16k.validate("device.random_16k")?;
        if let Some(s) = self.skip_read_us {
            check("device.skip_read_us", s, bounds::LATENCY_US)?;
        }
        if let Some(c) = self.iops_cap {
            check("device.iops_cap", c, bounds::IOPS)?;
        }
        if let Some(c) = self.ordered_read_mbps {
            check("device.ordered_read_mbps", c, bounds::SEQ_MBPS)?;
        }
        if let Some(c) = self.direct_page_read_mbps {
            check("device.direct_page_read_mbps", c, bounds::SEQ_MBPS)?;
        }
        if let Some(c) = self.mbps_cap {
            check("device.mbps_cap", c, bounds::SEQ_MBPS)?;
        }
        Ok(())
    }
}

impl MachineProfile {
    /// The profile's confidence figure by figure, strongest first, grouped: "measured:
    /// sequential read, random read at QD1; assumed: deeper queues". One word when every
    /// figure has the same.
    pub fn confidence_summary(&self) -> String {
        if self.figures.is_empty() {
            return self.confidence.label().to_string();
        }
        Confidence::ALL
            .into_iter()
            .filter_map(|c| {
                let names: Vec<&str> = self
                    .figures
                    .iter()
                    .filter(|f| f.confidence == c)
                    .map(|f| f.figure.as_str())
                    .collect();
                (!names.is_empty()).then_some((c, names))
            })
            .map(|(c, names)| format!("{}: {}", c.label(), names.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Rejects values that cannot describe a machine: not finite, zero or negative where
    /// a time or size is divided by, outside physical bounds, a buffer pool larger than
    /// RAM, QD1 IOPS contradicting the QD1 latency. The error names the field.
    pub fn validate(&self) -> Result<()> {
        if self.id.trim().is_empty() {
            return Err(Error::invalid("profile.id", "must not be empty"));
        }
        self.device.validate()?;
        check("buffer_hit_ns", self.buffer_hit_ns, bounds::HIT_NS)?;
        check("os_cache_hit_ns", self.os_cache_hit_ns, bounds::HIT_NS)?;
        if let Some(h) = &self.hash_rows {
            check("hash_rows.small_ns", h.small_ns, bounds::CPU_NS)?;
            check("hash_rows.large_ns", h.large_ns, bounds::CPU_NS)?;
            check("hash_rows.small_bytes", h.small_bytes, bounds::TABLE_BYTES)?;
            check("hash_rows.large_bytes", h.large_bytes, bounds::TABLE_BYTES)?;
        }
        if let Some(v) = self.os_cache_evict_hit_ns {
            check("os_cache_evict_hit_ns", v, bounds::HIT_NS)?;
        }
        if !(self.executor_start_ns.is_finite()
            && (0.0..=bounds::HIT_NS.1).contains(&self.executor_start_ns))
        {
            return Err(Error::invalid(
                "executor_start_ns",
                format!(
                    "{} is not between 0 and {} ns",
                    self.executor_start_ns,
                    bounds::HIT_NS.1
                ),
            ));
        }
        if let Some(c) = self.cpu_cores {
            if !(c.is_finite() && (1.0..=65_536.0).contains(&c)) {
                return Err(Error::invalid(
                    "cpu_cores",
                    format!("{c} is not between 1 and 65536"),
                ));
            }
        }
        check("cpu_ns_per_row", self.cpu_ns_per_row, bounds::CPU_NS)?;
        check(
            "cpu_ns_per_index_entry",
            self.cpu_ns_per_index_entry,
            bounds::CPU_NS,
        )?;
        check(
            "cpu_ns_per_operator",
            self.cpu_ns_per_operator,
            bounds::CPU_NS,
        )?;
        check(
            "cpu_ns_per_comparison",
            self.cpu_ns_per_comparison,
            bounds::CPU_NS,
        )?;
        check("ram_bytes", self.ram_bytes, bounds::RAM)?;
        check("buffer_pool_bytes", self.buffer_pool_bytes, bounds::BUFFER)?;
        if self.buffer_pool_bytes > self.ram_bytes {
            return Err(Error::invalid(
                "buffer_pool_bytes",
                format!(
                    "{} bytes is larger than ram_bytes {}",
                    self.buffer_pool_bytes, self.ram_bytes
                ),
            ));
        }
        check(
            "effective_io_concurrency",
            self.effective_io_concurrency,
            bounds::EIC,
        )?;
        Ok(())
    }

    /// Values that pass [`validate`](Self::validate) but look wrong; each message names
    /// the field.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        let d = &self.device;
        if d.seq_read_mbps > 30_000.0 {
            w.push(format!(
                "device.seq_read_mbps: {} MB/s is more than a single host usually reads",
                d.seq_read_mbps
            ));
        }
        for (name, r, bytes) in [
            ("random_8k", &d.random_8k, 8192.0),
            ("random_16k", &d.random_16k, 16384.0),
        ] {
            if r.qd1_latency_us < 5.0 {
                w.push(format!(
                    "device.{name}.qd1_latency_us: {} µs is faster than any known device",
                    r.qd1_latency_us
                ));
            }
            let seq_us = bytes / (d.seq_read_mbps * 1e6) * 1e6;
            if r.qd1_latency_us < seq_us {
                w.push(format!(
                    "device.{name}.qd1_latency_us: a random read ({} µs) is faster than a sequential page ({seq_us:.2} µs)",
                    r.qd1_latency_us
                ));
            }
            if r.iops_by_qd.windows(2).any(|p| p[1].iops < p[0].iops) {
                w.push(format!(
                    "device.{name}.iops_by_qd: IOPS fall as the queue deepens"
                ));
            }
        }
        if d.random_16k.qd1_latency_us < d.random_8k.qd1_latency_us {
            w.push("device.random_16k.qd1_latency_us: 16 kB reads faster than 8 kB".into());
        }
        if self.buffer_hit_ns > self.os_cache_hit_ns {
            w.push("buffer_hit_ns: a buffer-pool hit costs more than an OS page-cache hit".into());
        }
        if self.os_cache_hit_ns / 1e3 > d.random_8k.qd1_latency_us {
            w.push("os_cache_hit_ns: a page-cache hit costs more than a device read".into());
        }
        if self.buffer_pool_bytes > 0.9 * self.ram_bytes {
            w.push(
                "buffer_pool_bytes: more than 90 % of RAM leaves little for anything else".into(),
            );
        }
        w
    }

    /// Bytes of OS page cache available to the engine's files: none with direct I/O,
    /// otherwise 90 % of RAM less the buffer pool (the other 10 % for the kernel and
    /// processes; an assumption).
    pub fn os_cache_bytes(&self) -> f64 {
        if self.bypass_os_cache {
            0.0
        } else {
            (OS_CACHE_SHARE_OF_RAM * self.ram_bytes - self.buffer_pool_bytes).max(0.0)
        }
    }
}

/// Share of RAM the OS page cache can use for database files before the buffer pool is
/// taken out (assumption: 10 % for the kernel, the engine's processes and work memory).
pub const OS_CACHE_SHARE_OF_RAM: f64 = 0.9;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_curve_interpolates_in_log_depth() {
        let r = RandomRead {
            qd1_latency_us: 100.0,
            iops_by_qd: vec![
                QdPoint {
                    queue_depth: 1.0,
                    iops: 10_000.0,
                },
                QdPoint {
                    queue_depth: 4.0,
                    iops: 30_000.0,
                },
            ],
        };
        assert_eq!(r.iops_at(1.0), 10_000.0);
        assert!((r.iops_at(2.0) - 20_000.0).abs() < 1e-6);
        assert_eq!(r.iops_at(64.0), 30_000.0);
        assert_eq!(r.iops_at(0.0), 10_000.0);
        assert_eq!(r.iops_at(f64::NAN), 10_000.0);
        let flat = RandomRead {
            qd1_latency_us: 100.0,
            iops_by_qd: vec![],
        };
        assert_eq!(flat.iops_at(16.0), 10_000.0);
    }
}
