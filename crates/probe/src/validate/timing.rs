//! One forced plan timed on the server: the switches that force it, EXPLAIN (ANALYZE) runs
//! warm (steady state, median) and cold (restart, OS page cache dropped, fastest), and the
//! server's own choice.

use super::options::*;
use crate::pg::{first_line, pg_err, q1, SchemaGuard, CANCEL_TOKEN};
use costlab_core::validation::{CacheState, PlanRun};
use costlab_core::workload::dbt3::shape::explain_shape;
use costlab_testpg::PgServer;
use postgres::Client;
use serde_json::Value as Json;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The server: private (restartable) or someone else's.
pub(super) enum Server {
    Private(PgServer),
    External(String),
}

impl Server {
    pub(super) fn dsn(&self) -> String {
        match self {
            Server::Private(s) => s.dsn(),
            Server::External(d) => d.clone(),
        }
    }
}

pub(super) fn exec(c: &mut Client, sql: &str) -> Result<(), String> {
    c.batch_execute(sql)
        .map_err(|e| format!("{}: {}", first_line(sql), pg_err(&e)))
}

/// Vacuums a freshly loaded table until the visibility map covers every page, as on a
/// settled table (index-only scans skip the heap, hint bits are set). One VACUUM is not
/// always enough: while any other transaction older than the load is open (autovacuum
/// analysing a catalog, another client) VACUUM may not mark the load's pages all-visible,
/// and an index-only scan then fetches every heap row. That happened in about half the
/// short test runs here (index-only scans 2 to 5x slower than the same scan an hour later).
pub(super) fn settle(c: &mut Client, table: &str, cancel: &AtomicBool) -> Result<(), String> {
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

pub(super) fn set_switches(off: &[&str]) -> String {
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
pub(super) struct Exec {
    pub(super) seconds: Option<f64>,
    pub(super) key: String,
    pub(super) real_plan: String,
    pub(super) hit: f64,
    pub(super) read: f64,
}

/// How an execution's plan is named: a candidate key and EXPLAIN's name for it, from the
/// `Plan` object of EXPLAIN (FORMAT JSON).
pub(super) type PlanName = fn(&Json) -> Option<(String, String)>;

/// A DBT3 plan's name: its shape, as key and as name.
pub(super) fn dbt3_plan_name(plan: &Json) -> Option<(String, String)> {
    let s = explain_shape(plan);
    Some((s.clone(), s))
}

pub(super) fn explain_analyze(c: &mut Client, sql: &str) -> Result<Exec, String> {
    explain_analyze_as(c, sql, scan_of)
}

pub(super) fn explain_analyze_as(
    c: &mut Client,
    sql: &str,
    name: PlanName,
) -> Result<Exec, String> {
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

pub(super) fn server_choice(c: &mut Client, sql: &str) -> Result<Option<String>, String> {
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

/// Executes `run` up to `n` times, stopping at the first execution past the limit: the
/// times measured and the last execution (`None` when `n` is 0).
pub(super) fn repeat_runs(
    n: u32,
    mut run: impl FnMut() -> Result<Exec, String>,
) -> Result<PlanTimes, String> {
    let mut all = interleaved_runs(n, 1, |_| run())?;
    Ok(all.pop().unwrap_or_default())
}

/// One plan's measured times and its last execution.
pub(super) type PlanTimes = (Vec<f64>, Option<Exec>);

/// [`repeat_runs`] for `plans` plans at once, in rounds: round r runs every plan that has
/// not yet run past the limit, in order. Per plan: the times measured and its last
/// execution.
pub(super) fn interleaved_runs(
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
pub(super) fn typical(cache: CacheState, sorted: &[f64]) -> Option<f64> {
    match cache {
        CacheState::Warm => sorted.get(sorted.len() / 2).copied(),
        CacheState::Cold => sorted.first().copied(),
    }
}

/// A plan's record from its measured times and last execution: their [`typical`] time, or
/// `None` when that execution ran past the limit (simulated later, by
/// `ValidationReport::simulate`).
pub(super) fn plan_run(
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
pub(super) fn steady_state(c: &mut Client, session: &str, rows: u64) -> Result<(), String> {
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
pub(super) fn cold_run(
    g: &mut SchemaGuard,
    server: &Server,
    session: &str,
    off: &[&str],
    sql: &str,
) -> Result<Exec, String> {
    cold_run_as(g, server, session, off, sql, scan_of)
}

pub(super) fn cold_run_as(
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
