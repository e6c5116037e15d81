//! The calibration file: what `costlab-probe` measured on one machine, as versioned JSON.
//!
//! The probe writes it; the command line and the page read it with
//! [`Calibration::from_json`] and turn it into a machine profile with
//! [`Calibration::to_profile`]. Like the scenario file this is a boundary with
//! compatibility obligations: a file written by any released probe must keep loading. Bump
//! [`VERSION`] and add a migration when the format changes; a reader refuses a file from a
//! newer version instead of guessing.
//!
//! # Schema, version 1
//!
//! Every measured figure is an [`Estimate`]: the median over `runs` blocks and a 95 %
//! confidence interval of that median (`lo`, `hi`). `runs` counts *blocks*, not
//! back-to-back repetitions: the probe cuts its run into `method.blocks` short blocks
//! spread over the whole measuring time, runs every step (each I/O configuration, each
//! memory tier, the CPU loop) once per block in a shuffled order, with fresh buffers,
//! allocations and offsets per block, and keeps one summary per block and figure. The
//! interval is the wider of a percentile bootstrap over the blocks (`bootstrap_resamples`
//! resamples of runs of neighbouring blocks, a circular moving-block bootstrap) and a
//! batch-means t interval over four consecutive segments of the run (earlier probes wrote
//! the bootstrap alone; same fields, same meaning). The
//! interval therefore covers the drift of the machine over the run (frequency, steal time,
//! cache placement, the host's disk cache), not only the scatter of samples taken back to
//! back; it is the uncertainty of the figure as one run delivers it. Drift slower than a
//! run, or a load that differs between runs, it cannot see: the probe names figures that
//! moved during the run and the CPU use of other processes in `warnings`. Files from
//! earlier probes (fewer, longer blocks; memory and CPU steps after the I/O, on one
//! allocation) have the same fields with the same meaning and load unchanged. Units are in
//! the field names: `_mbps` is 10^6 bytes per second, `_us` microseconds, `_ns`
//! nanoseconds, `_ms` milliseconds.
//!
//! ```text
//! {
//!   "costlab_calibration": 1,                 // format version; always first
//!   "created": "2026-05-01T12:00:00Z",        // UTC, when the run finished
//!   "tool": "costlab-probe 0.1.0",
//!   "command": "costlab-probe --dir /work",   // how it was run
//!   "machine": {                              // Machine
//!     "cpu_model", "cpus", "kernel", "os", "filesystem", "device", "device_model",
//!     "rotational", "ram_bytes", "virtual_machine", "virtualization"
//!   },
//!   "method": {                               // Method
//!     "test_file_bytes", "io_mode" ("o_direct" | "f_nocache" | "buffered_dontneed"),
//!     "seconds", "quick", "seed", "warmup_discarded", "blocks", "bootstrap_resamples"
//!   },
//!   "seq_read": { "large": SeqPoint, "page": SeqPoint },   // SeqPoint: request_bytes, mbps
//!   "random_reads": [                         // one series per page size: 8192, 16384
//!     { "page_bytes": 8192, "points": [       // queue depths 1, 2, 4, 8, 16, 32
//!       { "queue_depth": 1, "iops", "mean_us", "p50_us", "p99_us" }, ... ] }, ... ],
//!   "buffer_hit_ns",                          // copy an 8 kB page out of a hot pool
//!   "buffer_hit_16k_ns",                      // optional, the same for 16 kB
//!   "os_cache_hit_ns",                        // buffered pread of a cached 8 kB page
//!   "cpu_ns_per_row",                         // slope of a predicate loop over rows
//!   "ratios": {                               // Ratios (intervals from the ends of the
//!     "random_over_seq_8k",                   //   inputs' intervals: conservative)
//!     "random_over_seq_page_8k",
//!     "disk_over_memory_16k", "disk_over_os_cache_8k"
//!   },
//!   "warnings": ["..."],                      // what makes a figure doubtful
//!   "postgres": { ... }                       // optional: PgExperiment
//! }
//! ```
//!
//! The PostgreSQL view of the device is `random_over_seq_8k`: the time of one random 8 kB
//! read at queue depth 1 over the time of 8 kB read sequentially with large requests, the
//! ratio random_page_cost / seq_page_cost would have if both were pure device time
//! (`random_over_seq_page_8k` uses synchronous 8 kB sequential requests instead). The MySQL
//! view is `disk_over_memory_16k`: a random 16 kB read over a 16 kB buffer-pool hit, the
//! ratio io_block_read_cost / memory_block_read_cost would have. The optional `postgres`
//! section is the pgsql-hackers experiment (seeds/pgsql-hackers-random-page-cost-default.txt):
//! random_page_cost = T(idx) × P / (T(seq) × N) against a running server.

use crate::profile::{Confidence, Device, MachineProfile, QdPoint, RandomRead};
use costlab_model::error::{check_range, Error, Result};
use serde::{Deserialize, Serialize};

/// The format version this costlab writes and the newest it reads.
pub const VERSION: u32 = 1;
/// Larger files are refused before parsing (a real file is a few kB).
pub const MAX_BYTES: usize = 1024 * 1024;

/// One measured figure: the median over `runs` blocks (one summary per block) and a 95 %
/// confidence interval of that median over the blocks (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    pub runs: u32,
}

impl Estimate {
    /// An estimate from one value with no interval (a derived or single figure).
    pub fn exact(v: f64) -> Estimate {
        Estimate {
            median: v,
            lo: v,
            hi: v,
            runs: 1,
        }
    }

    /// Relative half-width of the interval: (hi - lo) / (2 × median).
    pub fn relative_width(&self) -> f64 {
        (self.hi - self.lo) / (2.0 * self.median.abs().max(f64::MIN_POSITIVE))
    }

    /// `self / other` with the interval from the ends of both intervals (wider than a
    /// joint bootstrap, never narrower).
    pub fn ratio(&self, other: &Estimate) -> Estimate {
        Estimate {
            median: self.median / other.median,
            lo: self.lo / other.hi,
            hi: self.hi / other.lo,
            runs: self.runs.min(other.runs),
        }
    }

    fn validate(&self, field: &str, min: f64, max: f64) -> Result<()> {
        check_range(&format!("{field}.median"), self.median, min, max)?;
        check_range(&format!("{field}.lo"), self.lo, min, max)?;
        check_range(&format!("{field}.hi"), self.hi, min, max)?;
        if !(self.lo <= self.median && self.median <= self.hi) {
            return Err(Error::invalid(
                field,
                format!(
                    "the interval {} to {} does not contain the median {}",
                    self.lo, self.hi, self.median
                ),
            ));
        }
        if self.runs == 0 {
            return Err(Error::invalid(
                format!("{field}.runs"),
                "must be at least 1",
            ));
        }
        Ok(())
    }
}

/// The machine the figures were measured on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu_model: String,
    pub cpus: u32,
    /// Kernel name and release (`uname -sr`).
    pub kernel: String,
    /// Operating system (`PRETTY_NAME` of /etc/os-release when readable).
    #[serde(default)]
    pub os: String,
    /// Filesystem type of the test file (ext4, xfs, tmpfs, ...).
    pub filesystem: String,
    /// Block device under the filesystem (vda, nvme0n1), when found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Vendor and model of the device as sysfs reports them, when readable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_model: Option<String>,
    /// The kernel says the device rotates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotational: Option<bool>,
    /// Physical memory, bytes.
    pub ram_bytes: f64,
    /// Measured inside a virtual machine or on a virtual disk.
    pub virtual_machine: bool,
    /// What gave the virtualisation away (systemd-detect-virt, DMI, the disk's vendor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualization: Option<String>,
}

/// How the figures were measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// Size of the test file the reads went to, bytes.
    pub test_file_bytes: f64,
    /// How the page cache was kept out: `o_direct`, `f_nocache` (macOS), or
    /// `buffered_dontneed` (buffered reads after fdatasync + POSIX_FADV_DONTNEED).
    pub io_mode: String,
    /// Wall time of the measurements, seconds.
    pub seconds: f64,
    pub quick: bool,
    /// Seed of the random offsets and run order.
    pub seed: u64,
    /// A warm-up block (every step at half length) before the measured blocks was
    /// discarded.
    pub warmup_discarded: bool,
    /// Measured blocks, spread over the run; every step (I/O configuration, memory tier,
    /// CPU loop) ran once per block, in an order shuffled per block, on fresh buffers and
    /// offsets. The `runs` of an estimate is the number of blocks behind it.
    pub blocks: u32,
    pub bootstrap_resamples: u32,
}

/// Sequential reads with one request size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeqPoint {
    pub request_bytes: u32,
    pub mbps: Estimate,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeqRead {
    /// Large requests (1 MiB): the device's bandwidth.
    pub large: SeqPoint,
    /// Page-sized synchronous requests (8 kB): what one process reading page by page gets.
    pub page: SeqPoint,
}

/// Random reads of one page size at one queue depth (N threads each doing pread at QD1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomPoint {
    pub queue_depth: u32,
    pub iops: Estimate,
    pub mean_us: Estimate,
    pub p50_us: Estimate,
    pub p99_us: Estimate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomSeries {
    pub page_bytes: u32,
    /// Ascending queue depths.
    pub points: Vec<RandomPoint>,
}

/// Derived ratios (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratios {
    /// Random 8 kB read at QD1 / 8 kB of large sequential reads: the PostgreSQL view.
    pub random_over_seq_8k: Estimate,
    /// Random 8 kB read at QD1 / one synchronous sequential 8 kB request.
    pub random_over_seq_page_8k: Estimate,
    /// Random 16 kB read at QD1 / a 16 kB buffer-pool hit: the MySQL view.
    pub disk_over_memory_16k: Estimate,
    /// Random 8 kB read at QD1 / an OS page-cache hit.
    pub disk_over_os_cache_8k: Estimate,
}

/// The pgsql-hackers experiment against a running PostgreSQL.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PgExperiment {
    /// `server_version` of the server.
    pub server_version: String,
    /// N: rows of the table, each read through the index at a random heap page.
    pub rows: u64,
    /// P: heap pages the sequential scan reads.
    pub pages: u64,
    pub fillfactor: u32,
    /// Measured repetitions of each scan (after a discarded warm-up).
    pub repetitions: u32,
    /// T(seq): the forced sequential scan, ms.
    pub seq_scan_ms: Estimate,
    /// T(idx): the forced full index scan in key order, ms.
    pub index_scan_ms: Estimate,
    /// T(idx) × P / (T(seq) × N), with a bootstrap interval over paired repetitions.
    pub random_page_cost: Estimate,
    /// The server read around the OS page cache (debug_io_direct = data).
    pub direct_io: bool,
    /// How the caches were emptied between runs, and what that leaves in the figure.
    pub cache_eviction: String,
    /// How the scans were timed.
    pub timing: String,
    #[serde(default)]
    pub shared_buffers: String,
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A calibration file (see the module documentation for the schema).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Format version; always first in the file.
    pub costlab_calibration: u32,
    /// UTC time the run finished, ISO 8601.
    pub created: String,
    pub tool: String,
    #[serde(default)]
    pub command: String,
    pub machine: Machine,
    pub method: Method,
    pub seq_read: SeqRead,
    pub random_reads: Vec<RandomSeries>,
    /// Copying an 8 kB page out of a hot in-process pool, ns.
    pub buffer_hit_ns: Estimate,
    /// The same for 16 kB pages, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_hit_16k_ns: Option<Estimate>,
    /// Buffered pread of an 8 kB page the OS has cached, ns.
    pub os_cache_hit_ns: Estimate,
    /// CPU per row of a simple predicate over an array of rows (slope over sizes), ns.
    pub cpu_ns_per_row: Estimate,
    pub ratios: Ratios,
    #[serde(default)]
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<PgExperiment>,
}

/// Plausibility bounds of the file's figures (wider than a profile's: the file records what
/// was measured, the profile decides what the simulation can use).
mod bounds {
    pub const MBPS: (f64, f64) = (0.01, 1_000_000.0);
    pub const IOPS: (f64, f64) = (0.01, 1_000_000_000.0);
    pub const LATENCY_US: (f64, f64) = (0.001, 100_000_000.0);
    pub const NS: (f64, f64) = (0.001, 1_000_000_000.0);
    pub const RATIO: (f64, f64) = (1e-9, 1e12);
    pub const RAM: (f64, f64) = (1_048_576.0, 1.2e18);
    pub const FILE: (f64, f64) = (0.0, 1.2e18);
    pub const SECONDS: (f64, f64) = (0.0, 1e7);
    pub const MS: (f64, f64) = (0.0, 1e12);
    pub const PAGE_BYTES: (u32, u32) = (512, 1 << 20);
    pub const QD: (u32, u32) = (1, 4096);
}

/// `ratios.*` accept a degenerate interval for a figure that could not be measured: 0 is
/// outside RATIO; such a file is rejected with the field named.
fn check_est(field: &str, e: &Estimate, b: (f64, f64)) -> Result<()> {
    e.validate(field, b.0, b.1)
}

impl Calibration {
    /// Parses and validates a file. Every problem comes back as an error naming what is
    /// wrong (malformed or truncated JSON, a newer version, a value out of range with its
    /// field); never panics.
    pub fn from_json(text: &str) -> Result<Calibration> {
        const WHAT: &str = "calibration file";
        if text.len() > MAX_BYTES {
            return Err(Error::invalid(
                WHAT,
                format!(
                    "{} bytes is larger than the {MAX_BYTES} a calibration file can be",
                    text.len()
                ),
            ));
        }
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            if e.is_eof() {
                Error::invalid(
                    WHAT,
                    format!(
                        "truncated: the JSON ends early at line {} column {}",
                        e.line(),
                        e.column()
                    ),
                )
            } else {
                Error::invalid(WHAT, format!("malformed JSON: {e}"))
            }
        })?;
        let Some(obj) = value.as_object() else {
            return Err(Error::invalid(WHAT, "not a JSON object"));
        };
        let version = match obj.get("costlab_calibration") {
            None => {
                return Err(Error::invalid(
                    WHAT,
                    "no `costlab_calibration` field: not a costlab calibration file",
                ))
            }
            Some(v) => v.as_u64().ok_or_else(|| {
                Error::invalid(
                    "costlab_calibration",
                    format!("the version must be a whole number, got {v}"),
                )
            })?,
        };
        if version > u64::from(VERSION) {
            return Err(Error::invalid(
                "costlab_calibration",
                format!(
                    "version {version} is newer than this costlab reads ({VERSION}); \
                     update costlab"
                ),
            ));
        }
        if version == 0 {
            return Err(Error::invalid(
                "costlab_calibration",
                "version 0 does not exist",
            ));
        }
        let cal: Calibration =
            serde_json::from_value(value).map_err(|e| Error::invalid(WHAT, e.to_string()))?;
        cal.validate()?;
        Ok(cal)
    }

    /// Pretty JSON, the form the probe writes.
    pub fn to_json(&self) -> String {
        // Serialising plain structs of numbers and strings cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Checks every figure against physical bounds; the error names the field.
    pub fn validate(&self) -> Result<()> {
        if self.costlab_calibration != VERSION {
            return Err(Error::invalid(
                "costlab_calibration",
                format!("this costlab reads version {VERSION}"),
            ));
        }
        let m = &self.machine;
        check_range(
            "machine.ram_bytes",
            m.ram_bytes,
            bounds::RAM.0,
            bounds::RAM.1,
        )?;
        if m.cpus == 0 {
            return Err(Error::invalid("machine.cpus", "must be at least 1"));
        }
        let me = &self.method;
        check_range(
            "method.test_file_bytes",
            me.test_file_bytes,
            bounds::FILE.0,
            bounds::FILE.1,
        )?;
        check_range(
            "method.seconds",
            me.seconds,
            bounds::SECONDS.0,
            bounds::SECONDS.1,
        )?;
        for (name, p) in [
            ("large", &self.seq_read.large),
            ("page", &self.seq_read.page),
        ] {
            if p.request_bytes == 0 {
                return Err(Error::invalid(
                    format!("seq_read.{name}.request_bytes"),
                    "must be at least 1",
                ));
            }
            check_est(&format!("seq_read.{name}.mbps"), &p.mbps, bounds::MBPS)?;
        }
        for (i, s) in self.random_reads.iter().enumerate() {
            let f = format!("random_reads[{i}]");
            if !(bounds::PAGE_BYTES.0..=bounds::PAGE_BYTES.1).contains(&s.page_bytes) {
                return Err(Error::invalid(
                    format!("{f}.page_bytes"),
                    format!(
                        "{} is outside {} to {}",
                        s.page_bytes,
                        bounds::PAGE_BYTES.0,
                        bounds::PAGE_BYTES.1
                    ),
                ));
            }
            if self.random_reads[..i]
                .iter()
                .any(|o| o.page_bytes == s.page_bytes)
            {
                return Err(Error::invalid(
                    format!("{f}.page_bytes"),
                    format!("{} bytes appears twice", s.page_bytes),
                ));
            }
            if s.points.is_empty() {
                return Err(Error::invalid(
                    format!("{f}.points"),
                    "no queue depth measured",
                ));
            }
            let mut last = 0;
            for (j, p) in s.points.iter().enumerate() {
                let f = format!("{f}.points[{j}]");
                if !(bounds::QD.0..=bounds::QD.1).contains(&p.queue_depth) || p.queue_depth <= last
                {
                    return Err(Error::invalid(
                        format!("{f}.queue_depth"),
                        format!(
                            "{} must be ascending and within {} to {}",
                            p.queue_depth,
                            bounds::QD.0,
                            bounds::QD.1
                        ),
                    ));
                }
                last = p.queue_depth;
                check_est(&format!("{f}.iops"), &p.iops, bounds::IOPS)?;
                check_est(&format!("{f}.mean_us"), &p.mean_us, bounds::LATENCY_US)?;
                check_est(&format!("{f}.p50_us"), &p.p50_us, bounds::LATENCY_US)?;
                check_est(&format!("{f}.p99_us"), &p.p99_us, bounds::LATENCY_US)?;
            }
        }
        check_est("buffer_hit_ns", &self.buffer_hit_ns, bounds::NS)?;
        if let Some(e) = &self.buffer_hit_16k_ns {
            check_est("buffer_hit_16k_ns", e, bounds::NS)?;
        }
        check_est("os_cache_hit_ns", &self.os_cache_hit_ns, bounds::NS)?;
        check_est("cpu_ns_per_row", &self.cpu_ns_per_row, bounds::NS)?;
        let r = &self.ratios;
        for (name, e) in [
            ("random_over_seq_8k", &r.random_over_seq_8k),
            ("random_over_seq_page_8k", &r.random_over_seq_page_8k),
            ("disk_over_memory_16k", &r.disk_over_memory_16k),
            ("disk_over_os_cache_8k", &r.disk_over_os_cache_8k),
        ] {
            check_est(&format!("ratios.{name}"), e, bounds::RATIO)?;
        }
        if let Some(pg) = &self.postgres {
            if pg.rows == 0 {
                return Err(Error::invalid("postgres.rows", "must be at least 1"));
            }
            if pg.pages == 0 {
                return Err(Error::invalid("postgres.pages", "must be at least 1"));
            }
            if pg.repetitions == 0 {
                return Err(Error::invalid("postgres.repetitions", "must be at least 1"));
            }
            check_est("postgres.seq_scan_ms", &pg.seq_scan_ms, bounds::MS)?;
            check_est("postgres.index_scan_ms", &pg.index_scan_ms, bounds::MS)?;
            check_est(
                "postgres.random_page_cost",
                &pg.random_page_cost,
                bounds::RATIO,
            )?;
        }
        Ok(())
    }

    /// The random-read series of one page size.
    pub fn random(&self, page_bytes: u32) -> Option<&RandomSeries> {
        self.random_reads
            .iter()
            .find(|s| s.page_bytes == page_bytes)
    }

    /// A machine profile from the medians: confidence Measured, the source naming the
    /// machine and the date. Needs the 8 kB and 16 kB series with a QD1 point.
    ///
    /// Mapping: the device's bandwidth is the large-request sequential figure; the QD1
    /// latency of each page size is 1 / (QD1 IOPS), the wall time per read, so the profile's
    /// QD1 latency and IOPS agree exactly; the IOPS curve is the measured depths. The buffer
    /// and page-cache hits and CPU per row are the measured medians; the probe does not
    /// measure index entries, operators and comparisons separately, so they take
    /// PostgreSQL's default proportions to a row (cpu_index_tuple_cost / cpu_tuple_cost =
    /// 1/2, cpu_operator_cost / cpu_tuple_cost = 1/4). The buffer pool is PostgreSQL's
    /// default 128 MiB (or a quarter of RAM if smaller); the caches are warm, the OS
    /// cache is used, effective_io_concurrency is PostgreSQL 18's 16. The result passes
    /// [`MachineProfile::validate`] or the error says which figure does not.
    pub fn to_profile(&self) -> Result<MachineProfile> {
        self.validate()?;
        let series = |bytes: u32| -> Result<RandomRead> {
            let field = format!("random_reads (page_bytes {bytes})");
            let s = self
                .random(bytes)
                .ok_or_else(|| Error::invalid(&field, "not measured; the profile needs it"))?;
            let qd1 = s
                .points
                .iter()
                .find(|p| p.queue_depth == 1)
                .ok_or_else(|| Error::invalid(&field, "no queue depth 1 point"))?;
            Ok(RandomRead {
                qd1_latency_us: 1e6 / qd1.iops.median,
                iops_by_qd: s
                    .points
                    .iter()
                    .map(|p| QdPoint {
                        queue_depth: f64::from(p.queue_depth),
                        iops: p.iops.median,
                    })
                    .collect(),
            })
        };
        let m = &self.machine;
        let device_text = match (&m.device, &m.device_model) {
            (Some(d), Some(model)) => format!("{} on {d} ({model})", m.filesystem),
            (Some(d), None) => format!("{} on {d}", m.filesystem),
            (None, Some(model)) => format!("{} ({model})", m.filesystem),
            (None, None) => m.filesystem.clone(),
        };
        let virt = match (&m.virtual_machine, &m.virtualization) {
            (true, Some(v)) => format!(", virtual ({v})"),
            (true, None) => ", virtual".to_string(),
            _ => String::new(),
        };
        let date = self.created.get(..10).unwrap_or(&self.created);
        let row = self.cpu_ns_per_row.median;
        let profile = MachineProfile {
            id: format!("measured-{date}"),
            label: format!("Measured: {}, {device_text}", m.cpu_model),
            source: format!(
                "{} on {} ({} CPUs, {}), {device_text}{virt}, {:.0} GiB RAM; measured {} with {}",
                self.tool,
                m.cpu_model,
                m.cpus,
                m.kernel,
                m.ram_bytes / 1073741824.0,
                self.created,
                self.method.io_mode
            ),
            confidence: Confidence::Measured,
            // Every figure measured by the probe: one confidence for all.
            figures: Vec::new(),
            device: Device {
                seq_read_mbps: self.seq_read.large.mbps.median,
                random_8k: series(8192)?,
                random_16k: series(16384)?,
                skip_read_us: None,
                iops_cap: None,
                mbps_cap: None,
                ordered_read_mbps: None,
                direct_page_read_mbps: Some(self.seq_read.page.mbps.median),
            },
            buffer_hit_ns: self.buffer_hit_ns.median,
            os_cache_hit_ns: self.os_cache_hit_ns.median,
            os_cache_evict_hit_ns: None,
            hash_rows: None,
            cpu_ns_per_row: row,
            cpu_ns_per_index_entry: row / 2.0,
            cpu_ns_per_operator: row / 4.0,
            cpu_ns_per_comparison: row / 4.0,
            ram_bytes: m.ram_bytes,
            buffer_pool_bytes: (128.0 * 1048576.0_f64).min(m.ram_bytes / 4.0),
            bypass_os_cache: false,
            warm_cache: true,
            effective_io_concurrency: 16.0,
            executor_start_ns: 0.0,
            cpu_cores: Some(f64::from(m.cpus)),
        };
        profile.validate()?;
        Ok(profile)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(v: f64) -> Estimate {
        Estimate {
            median: v,
            lo: v * 0.95,
            hi: v * 1.05,
            runs: 7,
        }
    }

    /// A plausible file for an NVMe-like device.
    pub(super) fn sample() -> Calibration {
        let series = |bytes: u32, lat_us: f64| RandomSeries {
            page_bytes: bytes,
            points: [1u32, 2, 4, 8, 16, 32]
                .iter()
                .map(|&qd| RandomPoint {
                    queue_depth: qd,
                    iops: est(1e6 / lat_us * f64::from(qd).sqrt()),
                    mean_us: est(lat_us),
                    p50_us: est(lat_us * 0.9),
                    p99_us: est(lat_us * 3.0),
                })
                .collect(),
        };
        Calibration {
            costlab_calibration: VERSION,
            created: "2026-05-01T12:00:00Z".into(),
            tool: "costlab-probe 0.1.0".into(),
            command: "costlab-probe --quick".into(),
            machine: Machine {
                cpu_model: "Test CPU".into(),
                cpus: 2,
                kernel: "Linux 6.1".into(),
                os: "Debian".into(),
                filesystem: "ext4".into(),
                device: Some("vda".into()),
                device_model: Some("0x1af4".into()),
                rotational: Some(false),
                ram_bytes: 24.0 * 1073741824.0,
                virtual_machine: true,
                virtualization: Some("kvm".into()),
            },
            method: Method {
                test_file_bytes: 1073741824.0,
                io_mode: "o_direct".into(),
                seconds: 9.5,
                quick: true,
                seed: 42,
                warmup_discarded: true,
                blocks: 5,
                bootstrap_resamples: 1000,
            },
            seq_read: SeqRead {
                large: SeqPoint {
                    request_bytes: 1 << 20,
                    mbps: est(2000.0),
                },
                page: SeqPoint {
                    request_bytes: 8192,
                    mbps: est(150.0),
                },
            },
            random_reads: vec![series(8192, 80.0), series(16384, 90.0)],
            buffer_hit_ns: est(300.0),
            buffer_hit_16k_ns: Some(est(600.0)),
            os_cache_hit_ns: est(2000.0),
            cpu_ns_per_row: est(5.0),
            ratios: Ratios {
                random_over_seq_8k: est(19.5),
                random_over_seq_page_8k: est(1.5),
                disk_over_memory_16k: est(150.0),
                disk_over_os_cache_8k: est(40.0),
            },
            warnings: vec![],
            postgres: None,
        }
    }

    #[test]
    fn round_trip_and_profile() {
        let c = sample();
        let text = c.to_json();
        assert!(text
            .trim_start()
            .starts_with("{\n  \"costlab_calibration\": 1"));
        let back = Calibration::from_json(&text).unwrap();
        assert_eq!(back, c);
        let p = back.to_profile().unwrap();
        p.validate().unwrap();
        assert_eq!(p.confidence, Confidence::Measured);
        assert_eq!(p.device.seq_read_mbps, 2000.0);
        assert!((p.device.random_8k.qd1_latency_us - 80.0).abs() < 1e-9);
        assert_eq!(p.device.random_8k.iops_by_qd.len(), 6);
        assert!(p.source.contains("Test CPU") && p.source.contains("2026-05-01"));
        assert_eq!(p.id, "measured-2026-05-01");
    }

    fn err(text: &str) -> String {
        Calibration::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn clear_errors() {
        let good = sample().to_json();
        assert!(
            err(&good[..good.len() / 2]).contains("truncated"),
            "{}",
            err(&good[..40])
        );
        assert!(err("{ nope }").contains("malformed JSON"));
        assert!(err("[1, 2]").contains("not a JSON object"));
        assert!(err("{}").contains("not a costlab calibration file"));
        let future = good.replacen(
            "\"costlab_calibration\": 1",
            "\"costlab_calibration\": 2",
            1,
        );
        assert!(err(&future).contains("newer than this costlab reads"));
        let zero = good.replacen(
            "\"costlab_calibration\": 1",
            "\"costlab_calibration\": 0",
            1,
        );
        assert!(err(&zero).contains("version 0"));
        let big = " ".repeat(MAX_BYTES + 1);
        assert!(err(&big).contains("larger than"));

        let mut c = sample();
        c.random_reads[1].points[2].iops.median = -3.0;
        let e = err(&c.to_json());
        assert!(e.contains("random_reads[1].points[2].iops.median"), "{e}");

        let mut c = sample();
        c.buffer_hit_ns.lo = c.buffer_hit_ns.median * 2.0;
        c.buffer_hit_ns.hi = c.buffer_hit_ns.median * 3.0;
        assert!(err(&c.to_json()).contains("buffer_hit_ns"));

        let mut c = sample();
        c.random_reads[0].points.swap(0, 1);
        assert!(err(&c.to_json()).contains("random_reads[0].points[1].queue_depth"));

        let mut c = sample();
        c.machine.ram_bytes = 0.0;
        assert!(err(&c.to_json()).contains("machine.ram_bytes"));

        // A missing field is named by serde.
        let missing = good.replacen("\"cpu_ns_per_row\"", "\"cpu_ns_per_rowx\"", 1);
        assert!(
            err(&missing).contains("cpu_ns_per_row"),
            "{}",
            err(&missing)
        );
    }

    #[test]
    fn to_profile_needs_both_page_sizes_and_sane_values() {
        let mut c = sample();
        c.random_reads.retain(|s| s.page_bytes == 8192);
        let e = c.to_profile().unwrap_err().to_string();
        assert!(e.contains("16384"), "{e}");

        let mut c = sample();
        c.random_reads[0].points.remove(0);
        assert!(c
            .to_profile()
            .unwrap_err()
            .to_string()
            .contains("queue depth 1"));

        // A figure the file accepts but the simulation cannot use names the profile field.
        let mut c = sample();
        c.seq_read.large.mbps = est(0.5);
        let e = c.to_profile().unwrap_err().to_string();
        assert!(e.contains("seq_read_mbps"), "{e}");
    }

    /// The sample measured on the CI machine (static/calibration) loads and converts.
    #[test]
    fn the_sample_in_static_loads() {
        let text = include_str!("../../../static/calibration/this-ci-machine.json");
        let c = Calibration::from_json(text).unwrap();
        let p = c.to_profile().unwrap();
        assert_eq!(p.confidence, Confidence::Measured);
        assert!(p.source.contains("costlab-probe"));
    }

    #[test]
    fn estimate_ratio_interval_is_conservative() {
        let a = est(100.0);
        let b = est(10.0);
        let r = a.ratio(&b);
        assert!((r.median - 10.0).abs() < 1e-12);
        assert!(r.lo < r.median && r.median < r.hi);
        assert!((r.lo - 95.0 / 10.5).abs() < 1e-12);
        assert!((Estimate::exact(3.0).relative_width()).abs() < 1e-12);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Mangled files (cut, bytes replaced, digits changed) never panic, and what
        /// loads also converts or fails with an error.
        #[test]
        fn mangled_files_never_panic(
            cut in 0usize..4000,
            pos in 0usize..4000,
            byte in proptest::prelude::any::<u8>(),
            digit_pos in 0usize..4000,
        ) {
            let good = sample().to_json();
            let mut bytes = good.clone().into_bytes();
            let p = pos % bytes.len();
            bytes[p] = byte;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Ok(c) = Calibration::from_json(&text) {
                let _ = c.to_profile();
            }
            let c = cut % good.len();
            let _ = Calibration::from_json(&good[..good.floor_char_boundary(c)]);
            // Replace one digit run with an extreme number.
            let d = digit_pos % good.len();
            let mut s = good.clone();
            if let Some(off) = s[s.floor_char_boundary(d)..].find(|ch: char| ch.is_ascii_digit()) {
                let at = s.floor_char_boundary(d) + off;
                s.replace_range(at..at + 1, "-1e309");
                if let Ok(c) = Calibration::from_json(&s) {
                    let _ = c.to_profile();
                }
            }
        }
    }
}
