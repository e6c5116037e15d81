//! `costlab-probe postgres`: the pgsql-hackers experiment against a running server
//! (seeds/pgsql-hackers-random-page-cost-default.txt).
//!
//! In a schema of its own (`costlab_probe_<pid>`, dropped at the end, on error and on
//! Ctrl-C by [`SchemaGuard`]) it creates a table of rows with a uniform random key and a
//! btree on it, fillfactor 20 like the seed, then times
//!
//! * a forced sequential scan: `SELECT * FROM (SELECT * FROM t) s OFFSET N` with index and
//!   bitmap scans off and no parallel workers, and
//! * a forced full index scan in key order: `SELECT * FROM (SELECT * FROM t ORDER BY id) s
//!   OFFSET N` with sequential scans, bitmap scans and sorts off,
//!
//! each with `EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON)`, in shuffled order within
//! each block after a discarded warm-up block, emptying the caches before each scan where the
//! server allows it: shared_buffers with pg_buffercache's evict functions (PostgreSQL 17+),
//! the OS page cache by POSIX_FADV_DONTNEED on the relation's files when the server is on
//! this machine and its data directory is readable, or not at all with debug_io_direct =
//! data. What could not be emptied is said in `cache_eviction`. Then
//! random_page_cost = T(idx) × P / (T(seq) × N) per block, the median and its bootstrap
//! interval over blocks.

use crate::stats::bootstrap_median;
use costlab_core::calibration::PgExperiment;
use postgres::{Client, NoTls, SimpleQueryMessage};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::Value as Json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The cancel token of the running experiment's connection, for the Ctrl-C handler.
pub static CANCEL_TOKEN: Mutex<Option<postgres::CancelToken>> = Mutex::new(None);

pub struct Options {
    pub dsn: String,
    pub rows: u64,
    pub repetitions: u32,
    pub seed: u64,
}

/// Owns the connection and the schema it created; dropping it drops the schema (over a new
/// connection if the first one is broken).
pub struct SchemaGuard {
    pub(crate) client: Client,
    dsn: String,
    pub schema: String,
    dropped: bool,
}

impl SchemaGuard {
    pub(crate) fn new(client: Client, dsn: String, schema: String) -> SchemaGuard {
        SchemaGuard {
            client,
            dsn,
            schema,
            dropped: false,
        }
    }

    /// A new connection in place of the current one (after a server restart).
    pub(crate) fn reconnect(&mut self) -> Result<(), String> {
        self.client = Client::connect(&self.dsn, NoTls)
            .map_err(|e| format!("reconnect to {}: {}", self.dsn, pg_err(&e)))?;
        Ok(())
    }

    pub(crate) fn drop_schema(&mut self) -> Result<(), postgres::Error> {
        let sql = format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema);
        let r = match self.client.batch_execute(&sql) {
            Ok(()) => Ok(()),
            Err(_) => Client::connect(&self.dsn, NoTls).and_then(|mut c| c.batch_execute(&sql)),
        };
        self.dropped = r.is_ok();
        r
    }
}

impl Drop for SchemaGuard {
    fn drop(&mut self) {
        if let Ok(mut t) = CANCEL_TOKEN.lock() {
            *t = None;
        }
        if self.dropped {
            return;
        }
        if let Err(e) = self.drop_schema() {
            eprintln!(
                "costlab-probe: could not drop schema {}: {}; drop it by hand",
                self.schema,
                pg_err(&e)
            );
        }
    }
}

/// A driver error with the server's message, which `Display` leaves out.
pub(crate) fn pg_err(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("{}: {}", d.severity(), d.message()),
        None => e.to_string(),
    }
}

pub(crate) fn q1(c: &mut Client, sql: &str) -> Result<Option<String>, String> {
    for m in c
        .simple_query(sql)
        .map_err(|e| format!("{}: {}", first_line(sql), pg_err(&e)))?
    {
        if let SimpleQueryMessage::Row(r) = m {
            return Ok(r.get(0).map(str::to_string));
        }
    }
    Ok(None)
}

fn exec(c: &mut Client, sql: &str) -> Result<(), String> {
    c.batch_execute(sql)
        .map_err(|e| format!("{}: {e}", first_line(sql)))
}

pub(crate) fn first_line(s: &str) -> &str {
    s.trim().lines().next().unwrap_or("")
}

/// How caches are emptied before each scan.
struct Eviction {
    shared: Option<&'static str>,
    os_files: Vec<PathBuf>,
    direct_io: bool,
}

impl Eviction {
    fn describe(&self) -> String {
        let shared = match self.shared {
            Some(f) => format!("shared_buffers emptied of the table and index with {f}"),
            None => "shared_buffers could not be emptied (pg_buffercache's evict functions \
                     need PostgreSQL 17+ and the extension): pages the previous scan left \
                     there are hits"
                .to_string(),
        };
        let os = if self.direct_io {
            "the server reads with direct I/O (debug_io_direct = data): no OS page cache"
                .to_string()
        } else if !self.os_files.is_empty() {
            format!(
                "OS page cache of the table's and index's {} files dropped (fdatasync + \
                 POSIX_FADV_DONTNEED; the server is on this machine)",
                self.os_files.len()
            )
        } else {
            "the OS page cache could not be emptied (no debug_io_direct, data directory not \
             readable here): the figure includes cache effects"
                .to_string()
        };
        format!("{shared}; {os}")
    }

    fn evict(&self, c: &mut Client, schema: &str) -> Result<(), String> {
        match self.shared {
            Some("pg_buffercache_evict_relation") => {
                exec(
                    c,
                    &format!(
                        "SELECT {schema}.pg_buffercache_evict_relation('{schema}.t'::regclass), \
                         {schema}.pg_buffercache_evict_relation('{schema}.t_id_idx'::regclass)"
                    ),
                )?;
            }
            Some(_) => {
                exec(c, &evict_buffers_sql(schema))?;
            }
            None => {}
        }
        for p in &self.os_files {
            if let Ok(f) = std::fs::File::open(p) {
                let _ = f.sync_data();
                crate::io::drop_cache(&f, 0, 0);
            }
        }
        Ok(())
    }
}

fn evict_buffers_sql(schema: &str) -> String {
    format!(
        "SELECT count({schema}.pg_buffercache_evict(bufferid)) FROM {schema}.pg_buffercache \
         WHERE reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) \
         AND relfilenode IN (pg_relation_filenode('{schema}.t'), \
         pg_relation_filenode('{schema}.t_id_idx'))"
    )
}

/// One scan's figures from EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON).
struct Scan {
    ms: f64,
    hit: f64,
    read: f64,
}

fn node_types(plan: &Json, out: &mut Vec<String>) {
    if let Some(t) = plan.get("Node Type").and_then(Json::as_str) {
        out.push(t.to_string());
    }
    if let Some(children) = plan.get("Plans").and_then(Json::as_array) {
        for p in children {
            node_types(p, out);
        }
    }
}

fn explain(c: &mut Client, query: &str, want: &str) -> Result<Scan, String> {
    let sql = format!("EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON) {query}");
    let text = q1(c, &sql)?.ok_or_else(|| format!("{sql}: no result"))?;
    let v: Json = serde_json::from_str(&text).map_err(|e| format!("EXPLAIN output: {e}"))?;
    let top = v.get(0).ok_or("EXPLAIN output: empty")?;
    let plan = top.get("Plan").ok_or("EXPLAIN output: no Plan")?;
    let mut types = Vec::new();
    node_types(plan, &mut types);
    if !types.iter().any(|t| t == want) || types.iter().any(|t| t == "Sort" || t == "Gather") {
        return Err(format!(
            "the server did not run the forced plan: wanted a {want}, got {}",
            types.join(" > ")
        ));
    }
    let num = |k: &str| plan.get(k).and_then(Json::as_f64).unwrap_or(0.0);
    let ms = top
        .get("Execution Time")
        .and_then(Json::as_f64)
        .ok_or("EXPLAIN output: no Execution Time")?;
    Ok(Scan {
        ms,
        hit: num("Shared Hit Blocks"),
        read: num("Shared Read Blocks"),
    })
}

const FILLFACTOR: u32 = 20;

/// Runs the experiment; the schema is gone when this returns, whatever happened.
pub fn run(
    opts: &Options,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<PgExperiment, String> {
    let mut client = Client::connect(&opts.dsn, NoTls)
        .map_err(|e| format!("connect to {}: {}", opts.dsn, pg_err(&e)))?;
    if let Ok(mut t) = CANCEL_TOKEN.lock() {
        *t = Some(client.cancel_token());
    }
    let server_version = q1(&mut client, "SHOW server_version")?.unwrap_or_default();
    let schema = format!("costlab_probe_{}", std::process::id());
    // CREATE (not IF NOT EXISTS): a schema that is there already is not ours to drop.
    exec(&mut client, &format!("CREATE SCHEMA {schema}"))?;
    let mut guard = SchemaGuard {
        client,
        dsn: opts.dsn.clone(),
        schema: schema.clone(),
        dropped: false,
    };
    let r = experiment(&mut guard, opts, &server_version, cancel, progress);
    let dropped = guard.drop_schema();
    drop(guard);
    if let Ok(mut t) = CANCEL_TOKEN.lock() {
        *t = None;
    }
    match (r, dropped) {
        (Ok(x), Ok(())) => Ok(x),
        (Err(e), Ok(())) => Err(e),
        (Ok(_), Err(e)) => Err(format!(
            "DROP SCHEMA {schema}: {}; drop it by hand",
            pg_err(&e)
        )),
        (Err(e), Err(d)) => Err(format!(
            "{e}; and DROP SCHEMA {schema} failed too: {}; drop it by hand",
            pg_err(&d)
        )),
    }
}

/// Rows that make a table of `bytes` at this table's rows per page, rounded up to a
/// million.
fn rows_for_bytes(bytes: f64, rows: u64, pages: u64) -> u64 {
    let per_page = rows as f64 / pages.max(1) as f64;
    let want = bytes / 8192.0 * per_page;
    ((want / 1e6).ceil() * 1e6) as u64
}

fn check(cancel: &AtomicBool) -> Result<(), String> {
    if cancel.load(Ordering::Relaxed) {
        Err("interrupted".into())
    } else {
        Ok(())
    }
}

fn experiment(
    g: &mut SchemaGuard,
    opts: &Options,
    server_version: &str,
    cancel: &AtomicBool,
    progress: &dyn Fn(&str),
) -> Result<PgExperiment, String> {
    let s = g.schema.clone();
    let c = &mut g.client;
    let n = opts.rows;
    progress(&format!("loading {n} rows into {s}.t"));
    exec(
        c,
        &format!(
            "SET search_path = {s};
             SET max_parallel_workers_per_gather = 0;
             SET jit = off;
             SELECT setseed({});
             CREATE TABLE t (id int8 NOT NULL, val float8, pad text) WITH (fillfactor = {FILLFACTOR});
             INSERT INTO t SELECT floor(random() * 2147483647)::int8, random(), md5(i::text)
               FROM generate_series(1, {n}) i;
             CREATE INDEX t_id_idx ON t (id);",
            (opts.seed % 1000) as f64 / 1000.0
        ),
    )?;
    // Alone: VACUUM cannot run in the implicit transaction of a multi-statement query.
    exec(c, "VACUUM ANALYZE t")?;
    check(cancel)?;
    let pages: u64 = q1(c, "SELECT relpages FROM pg_class WHERE oid = 't'::regclass")?
        .and_then(|v| v.parse().ok())
        .filter(|&p| p > 0)
        .ok_or("the table has no pages after VACUUM ANALYZE")?;
    let shared_buffers = q1(c, "SHOW shared_buffers")?.unwrap_or_default();
    let direct_io = q1(c, "SELECT current_setting('debug_io_direct', true)")?
        .map(|v| v.contains("data"))
        .unwrap_or(false);
    let mut notes = Vec::new();

    // Shared buffers: pg_buffercache's evict functions, in our schema (dropped with it).
    let mut shared = None;
    if c.batch_execute(&format!(
        "CREATE EXTENSION IF NOT EXISTS pg_buffercache WITH SCHEMA {s}"
    ))
    .is_ok()
    {
        let has = |c: &mut Client, f: &str| -> bool {
            q1(
                c,
                &format!(
                    "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace \
                     WHERE n.nspname = '{s}' AND p.proname = '{f}'"
                ),
            )
            .ok()
            .flatten()
            .is_some_and(|v| v != "0")
        };
        if has(c, "pg_buffercache_evict_relation") {
            shared = Some("pg_buffercache_evict_relation");
        } else if has(c, "pg_buffercache_evict") {
            shared = Some("pg_buffercache_evict");
        }
    }
    // The OS page cache: the relation files, when the server's data directory is here.
    let mut os_files = Vec::new();
    if !direct_io {
        let dir = q1(c, "SELECT current_setting('data_directory', true)")
            .ok()
            .flatten();
        let rel = q1(
            c,
            "SELECT pg_relation_filepath('t') || ' ' || pg_relation_filepath('t_id_idx')",
        )
        .ok()
        .flatten();
        if let (Some(dir), Some(rel)) = (dir, rel) {
            for r in rel.split_whitespace() {
                let base = PathBuf::from(&dir).join(r);
                for seg in 0.. {
                    let p = if seg == 0 {
                        base.clone()
                    } else {
                        PathBuf::from(format!("{}.{seg}", base.display()))
                    };
                    if std::fs::File::open(&p).is_err() {
                        break;
                    }
                    os_files.push(p);
                }
            }
        }
    }
    let ev = Eviction {
        shared,
        os_files,
        direct_io,
    };
    // Dirty pages of the load must reach the files before their cache can be dropped.
    if c.batch_execute("CHECKPOINT").is_err() {
        notes.push("CHECKPOINT not allowed: dirty pages of the load may stay cached".into());
    }

    let seq_sql = format!("SELECT * FROM (SELECT * FROM t) s OFFSET {n}");
    let idx_sql = format!("SELECT * FROM (SELECT * FROM t ORDER BY id) s OFFSET {n}");
    let seq_set = "SET enable_seqscan = on; SET enable_indexscan = off; \
                   SET enable_indexonlyscan = off; SET enable_bitmapscan = off; \
                   SET enable_sort = on;";
    let idx_set = "SET enable_seqscan = off; SET enable_indexscan = on; \
                   SET enable_indexonlyscan = off; SET enable_bitmapscan = off; \
                   SET enable_sort = off;";
    let mut rng = SmallRng::seed_from_u64(opts.seed);
    let mut seq_ms = Vec::new();
    let mut idx_ms = Vec::new();
    let mut ratios = Vec::new();
    let mut seq_hits = Vec::new();
    let mut idx_hits = Vec::new();
    let reps = opts.repetitions.max(1);
    for block in 0..=reps {
        let mut order = [false, true];
        order.shuffle(&mut rng);
        let mut t = [0.0f64; 2];
        for is_idx in order {
            check(cancel)?;
            progress(&format!(
                "{} {} scan{}",
                if block == 0 {
                    "warm-up:".to_string()
                } else {
                    format!("block {block} of {reps}:")
                },
                if is_idx { "index" } else { "sequential" },
                if is_idx { " (the long one)" } else { "" }
            ));
            ev.evict(c, &s)?;
            let scan = if is_idx {
                exec(c, idx_set)?;
                explain(c, &idx_sql, "Index Scan")?
            } else {
                exec(c, seq_set)?;
                explain(c, &seq_sql, "Seq Scan")?
            };
            let hit_share = scan.hit / (scan.hit + scan.read).max(1.0);
            if block > 0 {
                if is_idx {
                    idx_ms.push(scan.ms);
                    idx_hits.push(hit_share);
                } else {
                    seq_ms.push(scan.ms);
                    seq_hits.push(hit_share);
                }
            }
            t[usize::from(is_idx)] = scan.ms;
        }
        if block > 0 {
            ratios.push(t[1] * pages as f64 / (t[0] * n as f64));
        }
    }
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    notes.push(format!(
        "shared_buffers hits: {:.1} % of the sequential scan's blocks, {:.1} % of the index \
         scan's (EXPLAIN BUFFERS, mean over blocks)",
        100.0 * avg(&seq_hits),
        100.0 * avg(&idx_hits)
    ));
    notes.push(format!(
        "P = {pages} heap pages (pg_class.relpages), N = {n} rows, one heap page read per row \
         assumed for the index scan"
    ));
    let table_bytes = pages as f64 * 8192.0;
    let ram = crate::machine::ram_bytes();
    if !direct_io && !ev.os_files.is_empty() && table_bytes < ram {
        notes.push(format!(
            "cached reads: the table ({:.0} MB) fits in this machine's page cache ({:.0} GB of \
             RAM) and the server reads through it, so a page that left shared_buffers comes \
             back from the page cache and most of the N page reads of the index scan are \
             memory reads; this random_page_cost measures cached reads, far below the \
             device's. The seed's method needs debug_io_direct = data (PostgreSQL 16+) or a \
             table several times larger than RAM (--rows {} or more)",
            table_bytes / 1e6,
            ram / 1e9,
            rows_for_bytes(2.0 * ram, n, pages)
        ));
    }
    let random_page_cost = bootstrap_median(&ratios, &mut rng);
    Ok(PgExperiment {
        server_version: server_version.to_string(),
        rows: n,
        pages,
        fillfactor: FILLFACTOR,
        repetitions: reps,
        seq_scan_ms: bootstrap_median(&seq_ms, &mut rng),
        index_scan_ms: bootstrap_median(&idx_ms, &mut rng),
        random_page_cost,
        direct_io,
        cache_eviction: ev.describe(),
        timing: "EXPLAIN (ANALYZE, TIMING OFF, BUFFERS, FORMAT JSON): Execution Time".into(),
        shared_buffers,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_for_a_table_larger_than_ram() {
        // 19 rows per page: 48 GiB needs 6,291,456 pages, 119.5 M rows, rounded up.
        let r = rows_for_bytes(48.0 * (1u64 << 30) as f64, 1_900_000, 100_000);
        assert_eq!(r, 120_000_000);
        assert!(r as f64 / 19.0 * 8192.0 >= 48.0 * (1u64 << 30) as f64);
        assert_eq!(rows_for_bytes(8192.0, 10, 0), 1_000_000);
    }
}
