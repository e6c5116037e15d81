//! What `costlab-probe validate postgres` is asked to run: its options, the workload, the
//! switches and selectivities of the T1 query.

use std::path::PathBuf;

pub struct Options {
    pub dsn: Option<String>,
    pub pg_bin: Option<PathBuf>,
    /// Where a private cluster lives.
    pub dir: PathBuf,
    /// Rows of the t1-like table; `None`: enough for twice shared_buffers.
    pub rows: Option<u64>,
    pub shared_buffers_mb: u64,
    /// Measured warm executions per plan (after one discarded).
    pub runs: u32,
    /// Cold executions per plan (each after a restart and a dropped page cache).
    pub cold_runs: u32,
    pub limit_s: f64,
    pub cold: bool,
    pub selectivities: Vec<f64>,
    pub seed: u64,
    pub workload: Workload,
    /// DBT3's scale factor.
    pub sf: f64,
    /// DBT3: switches (names without `enable_`) turned off one at a time.
    pub dbt3_switches: Vec<String>,
}

/// Which queries a validation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Workload {
    /// The t1-like table's range queries.
    T1,
    /// The 22 DBT3 queries.
    Dbt3,
    /// Both.
    All,
}

impl Workload {
    pub(super) fn t1(self) -> bool {
        self != Workload::Dbt3
    }
    pub(super) fn dbt3(self) -> bool {
        self != Workload::T1
    }
}

/// The enable_* switches (without `enable_`) a validation turns off to force plans.
pub const SWITCHES: [&str; 7] = [
    "seqscan",
    "indexscan",
    "indexonlyscan",
    "bitmapscan",
    "hashjoin",
    "mergejoin",
    "nestloop",
];

/// The selectivities of the full run.
pub const SELECTIVITIES: [f64; 6] = [0.0001, 0.001, 0.01, 0.03, 0.08, 0.2];

/// Where each range starts, as a fraction of the key's domain (selectivities up to 60 %).
pub(super) const RANGE_START: f64 = 0.4;

/// Bytes one row of the t1-like table takes in a heap page (tuple header 24, id 8, two
/// int4 keys 8, char(270) 274, line pointer 4, alignment): 25 rows per 8 kB page.
pub(super) const ROW_BYTES: f64 = 8192.0 / 25.0;
