//! `cargo bench -p costlab-core`: the speed figures the issues ask for.
//!
//! - planning one t1 query (all candidate paths, then the choice) per engine, on a prepared
//!   table with EXPLAIN details, and through the validating `plan()` wrapper;
//! - a 1,000-point selectivity sweep with exact crossovers per engine, on a prepared table
//!   without EXPLAIN details as the page does it; divide by 1,000 for the time per point
//!   (target: at most 2 µs per point per engine natively);
//! - the t1 view's whole recompute (`engine_curves`) per engine.

use costlab_core::knobs::{EngineVersion, KnobValues};
use costlab_core::mysql;
use costlab_core::pg::{self, PgOptions};
use costlab_core::plan::Detail;
use costlab_core::sweep::{sweep, Spacing};
use costlab_core::workload::t1;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn knobs() -> KnobValues {
    KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57)
}

fn plan_one_query(c: &mut Criterion) {
    let table = t1::t1_table();
    let query = t1::t1_query(0.05).unwrap();
    let knobs = knobs();
    let env = t1::wl8737_in_memory_env();
    let opts = PgOptions::default();
    let my = mysql::Prepared::new(&table, &env).unwrap();
    let pgp = pg::Prepared::new(&table, EngineVersion::Pg18, &opts).unwrap();
    let mut g = c.benchmark_group("plan one t1 query");
    g.bench_function("mysql", |b| {
        b.iter(|| my.plan(black_box(&query), &knobs).unwrap())
    });
    g.bench_function("postgres", |b| {
        b.iter(|| pgp.plan(black_box(&query), &knobs).unwrap())
    });
    g.bench_function("mysql plan() wrapper", |b| {
        b.iter(|| mysql::plan(black_box(&table), black_box(&query), &knobs, &env).unwrap())
    });
    g.bench_function("postgres plan() wrapper", |b| {
        b.iter(|| {
            pg::plan(
                black_box(&table),
                black_box(&query),
                &knobs,
                EngineVersion::Pg18,
                &opts,
            )
            .unwrap()
        })
    });
    g.finish();
}

fn sweep_1000(c: &mut Criterion) {
    let table = t1::t1_table();
    let knobs = knobs();
    let env = t1::wl8737_in_memory_env();
    let opts = PgOptions::default();
    let my = mysql::Prepared::new(&table, &env)
        .unwrap()
        .with_detail(Detail::Omit);
    let pgp = pg::Prepared::new(&table, EngineVersion::Pg18, &opts)
        .unwrap()
        .with_detail(Detail::Omit);
    // One query for the sweep, its bounds moved at each point, as analysis::Planner does.
    let mut query = t1::T1Query::new();
    let mut g = c.benchmark_group("1000-point t1 sweep with crossovers");
    g.sample_size(20);
    g.bench_function("mysql", |b| {
        b.iter(|| {
            sweep(
                |f| my.plan(query.at(f)?, &knobs),
                0.0,
                0.2,
                1000,
                Spacing::Linear,
            )
            .unwrap()
        })
    });
    g.bench_function("postgres", |b| {
        b.iter(|| {
            sweep(
                |f| pgp.plan(query.at(f)?, &knobs),
                0.0,
                0.2,
                1000,
                Spacing::Linear,
            )
            .unwrap()
        })
    });
    g.finish();
}

/// The fit the time view offers: memory_block_read_cost minimising total regret over a
/// 1,000-point t1 sweep (0-20 % of rows) on the wl8737-memory profile, exact over the
/// knob's whole range (sim::regret::fit_one on a prepared table). Target: at most 50 ms
/// natively.
fn fit_one_1000(c: &mut Criterion) {
    use costlab_core::knobs::{Engine, Knob};
    use costlab_core::regret;
    use costlab_core::sim::{builtin, Simulator};
    let table = t1::t1_table();
    let knobs = knobs();
    let env = t1::wl8737_in_memory_env();
    let my = mysql::Prepared::new(&table, &env)
        .unwrap()
        .with_detail(Detail::Omit);
    let sim = Simulator::new(&builtin::find("wl8737-memory").unwrap(), Engine::Mysql).unwrap();
    let xs = costlab_core::sweep::sample_points(0.0, 0.2, 1000, Spacing::Linear).unwrap();
    let mut g = c.benchmark_group("fit one constant over a 1000-point t1 sweep");
    g.sample_size(10);
    g.bench_function("mysql memory_block_read_cost", |b| {
        b.iter(|| {
            regret::fit_one(
                &sim,
                black_box(&xs),
                Knob::MemoryBlockReadCost,
                &knobs,
                None,
                |f, k| my.plan(&t1::t1_query(f)?, k),
            )
            .unwrap()
        })
    });
    g.finish();
}

/// What the page recomputes for the t1 view on every input: each path's cost and simulated
/// time along the sweep, the chosen envelope, regret (issue 5's 16 ms frame budget covers
/// this plus drawing, in WebAssembly).
fn t1_view_curves(c: &mut Criterion) {
    use costlab_core::analysis::engine_curves;
    use costlab_core::knobs::Engine;
    use costlab_core::scenario::Scenario;
    let scenario = Scenario::default();
    let mut g = c.benchmark_group("t1 view: engine_curves (costs, times, regret)");
    for engine in [Engine::Mysql, Engine::Postgres] {
        g.bench_function(engine.name(), |b| {
            b.iter(|| engine_curves(black_box(&scenario), engine).unwrap())
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    plan_one_query,
    sweep_1000,
    fit_one_1000,
    t1_view_curves
);
criterion_main!(benches);
