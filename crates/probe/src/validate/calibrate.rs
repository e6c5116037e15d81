//! The executor's calibration on tables of its own (in shared_buffers and through the
//! ring from the OS page cache), fitted by `costlab_core::validation::fit_executor`.

use super::options::*;
use super::timing::*;
use crate::pg::SchemaGuard;
use costlab::import::{import_with_client, ImportOptions};
use costlab_core::knobs::EngineVersion;
use costlab_core::sim::MachineProfile;
use costlab_core::validation::CacheState;
use std::sync::atomic::AtomicBool;

/// Rows of the calibration table `cal` (about 16 MB: a seq scan of it stays in
/// shared_buffers, under the ring threshold of a quarter of 128 MB).
pub(super) const CAL_ROWS: u64 = 400_000;

/// Measures the executor on tables of its own: `cal` in shared_buffers, and `cal_ring`,
/// larger than a quarter of shared_buffers, read through the ring from the OS page cache
/// (after a restart, so nothing of it is in shared_buffers). Private cluster only for the
/// latter; with --dsn the OS page cache figure stays the probe's.
pub(super) fn calibrate_executor(
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
