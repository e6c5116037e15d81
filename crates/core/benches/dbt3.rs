//! `cargo bench -p costlab-core --bench dbt3`: DBT3's speed figures (issue 7).
//!
//! - planning all 22 queries at SF 10 (MySQL 5.7 constants on the WL#8737 in-memory
//!   server; PostgreSQL 18 on a consumer NVMe, skipped while its planner is not built), on
//!   a prepared `WorkloadPlanner`; target: at most ~10 ms natively for MySQL;
//! - the whole table (each query planned under two sets of constants and both plans
//!   timed), as `costlab dbt3` and the page compute it;
//! - a 50-value sweep of memory_block_read_cost over all 22 queries (`flip_sweep`, 1,100
//!   plans), the page's plan-flip map; for PostgreSQL, random_page_cost from 1 to 50
//!   (log-spaced);
//! - issue 17's plan diagram of Q8 (MySQL, 50 x 50 over io_block_read_cost x
//!   memory_block_read_cost, boundaries located), as the page's fine picture;
//! - preparing the planner (catalog and tables at SF 10; the queries' text is read once
//!   per scale factor, so after the first iteration this is the catalog and a copy);
//! - TPROC-H's 22 queries (TPC-H's, as DBT3's) at SF 30 beside the third seed's planning
//!   figure, 18.47 ms for PostgreSQL itself on the seed's server: costlab's PostgreSQL 18
//!   model, with EXPLAIN text, 7.2 ms here (session 19, median of 31; 2.6x faster);
//! - the SQL front end (issue 14): the 22 queries planned from blocks read once, against
//!   read from their SQL text and planned, per engine. The second's median over the
//!   first's was to be at most 1.10; it is about 2.3 (MySQL) and 1.3 (PostgreSQL) by
//!   instruction counts: sqlparser's tokenizer and parser alone take more than MySQL's
//!   planning of all 22 (8.3M of the 10.1M instructions reading costs, callgrind). The
//!   product reads a workload's text once (per scale factor for DBT3, per edit of the
//!   user's queries) and every knob move plans from the blocks: "mysql: plan" and
//!   "postgres: plan" are what a move costs. Those cost what they cost from the old
//!   hand-built blocks: at the commit pair that switched DBT3 to its SQL text (e10f08a,
//!   c3f4c40; no planner change between them), callgrind counted 9,378,015 against
//!   9,383,456 instructions for MySQL's 22 plans (+0.06 %) and 39.99M against 39.94M for
//!   PostgreSQL's (-0.15 %), with identical plans.
//!
//! Planning all 22 at SF 10 (session 16, a 2-core guest, criterion's mean): MySQL 0.56 ms
//! (1.05 before its tables borrowed their columns and bound key parts once per block),
//! PostgreSQL 5.7 ms with EXPLAIN text and 4.6 ms without (6.3 in session 15, before the
//! join search's scratch lists went inline and its condition texts into one buffer;
//! callgrind: 48.0M -> 41.1M instructions per 22 plans with text, 39.2M -> 32.8M without).
//! Session 26 did the knob-free work of a plan once per block or search (column widths
//! above a join, class members' distinct counts and hash bucket statistics, Memoize's
//! group counts, the GROUP BY/ORDER BY text only for EXPLAIN) and builds a join
//! candidate's node only if it survives its join_paths call: callgrind per round of 22
//! (`examples/pg_join_rounds.rs`, (N=11 - N=1) / 10) 29.75M -> 26.90M instructions
//! without text, 38.16M -> 34.79M with, identical plans (its `dump`, both builds). Time
//! moved less: the sum of each query's best, over eight alternating runs of 300 rounds,
//! 3.75 -> 3.66 to 3.72 ms. The profile is flat (join_paths' own code 29 %, malloc and
//! free 15 %, nothing else above 2.5 %); 3x needs the knob-free structure of a query's
//! search (join relations, their clauses and rows, the parameterized index paths'
//! selectivities) kept across plans, with only the costs recomputed per knob move.
//! Issue 17 asks for 2.7 ms. Build with `--no-default-features` for the page's planner,
//! which formats no EXPLAIN text. The page's worker planned the same 22 in about 14 ms (the
//! e2e "measure" lines' `planning`) at opt-level "z", about 3x slower than this; built with
//! the core at opt-level 3 (Cargo.toml's `worker` profile, session 23) about 7 to 10 ms.
//! Parallel query (issue 46, the defaults' max_parallel_workers_per_gather 2) against the
//! same planner at 0 ("postgres serial", the planner as it was before partial paths):
//! 6.35 ms against 3.66 ms (1.73x; criterion's means, 2-core guest) when partial paths
//! landed; 6.28 against 3.57 (1.76x) with the Incremental Sorts under Gather Merge and two
//! plan-preserving prunings (partial nested loops over dearer unordered outers, Gathers a
//! complete path beats). `pg_join_rounds` (100 rounds, timers in join_paths): the partial
//! pass about 1.4 ms a round (0.5 its setup, 0.9 its builders), serial joins over the
//! Gathers every base and join relation now holds about 0.7 more (serial nested loops'
//! outer x inner pairs 31.3M -> 43.9M per 100 rounds); caching the pair's semi join
//! factors for the partial pass changed nothing measurable. Issue 46 asks for 1.5x.

use costlab_core::compare::WorkloadPlanner;
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use costlab_core::scenario::ServerSettings;
use costlab_core::sim::builtin;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

// As the command line (see crates/alloc).
#[global_allocator]
static ALLOCATOR: costlab_alloc::Mimalloc = costlab_alloc::Mimalloc;

const SF: f64 = 10.0;

fn mysql57() -> KnobValues {
    KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57)
}

fn mysql_planner() -> WorkloadPlanner {
    mysql_planner_on("wl8737-memory")
}

/// MySQL 5.7's DBT3 planner on a built-in machine profile, with that server's settings.
fn mysql_planner_on(profile: &str) -> WorkloadPlanner {
    let m = builtin::find(profile).unwrap();
    WorkloadPlanner::dbt3(
        EngineVersion::Mysql57,
        SF,
        &m,
        &ServerSettings::preset_for_builtin(&m.id),
    )
    .unwrap()
}

/// The PostgreSQL planner, if it plans (None while it returns Unsupported).
fn pg_planner() -> Option<WorkloadPlanner> {
    pg_planner_at(SF)
}

fn pg_planner_at(sf: f64) -> Option<WorkloadPlanner> {
    let m = builtin::find("nvme-consumer-gen4").unwrap();
    let p = WorkloadPlanner::dbt3(
        EngineVersion::Pg18,
        sf,
        &m,
        &ServerSettings::preset_for_builtin(&m.id),
    )
    .unwrap();
    let k = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
    match (1..=22).try_for_each(|n| p.plan(n, &k).map(|_| ())) {
        Ok(()) => Some(p),
        Err(e) => {
            eprintln!("skipping the PostgreSQL DBT3 benches: {e}");
            None
        }
    }
}

fn plan_all(p: &WorkloadPlanner, k: &KnobValues) {
    for n in 1..=22 {
        black_box(p.plan(black_box(n), k).unwrap());
    }
}

fn plan_22(c: &mut Criterion) {
    let my = mysql_planner();
    let k = mysql57();
    let mut g = c.benchmark_group("plan all 22 DBT3 queries at SF 10");
    g.bench_function("mysql", |b| b.iter(|| plan_all(&my, &k)));
    if let Some(pg) = pg_planner() {
        let kp = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
        g.bench_function("postgres", |b| b.iter(|| plan_all(&pg, &kp)));
        // Without parallel paths (max_parallel_workers_per_gather 0): the planner as it
        // was before partial paths; the ratio of the two is what parallel query costs.
        let mut serial = kp.clone();
        serial
            .set(Knob::MaxParallelWorkersPerGather, 0.0)
            .expect("max_parallel_workers_per_gather");
        g.bench_function("postgres serial", |b| b.iter(|| plan_all(&pg, &serial)));
    }
    g.finish();
}

fn table_22(c: &mut Criterion) {
    let my = mysql_planner();
    let base = mysql57();
    let mut cur = mysql57();
    cur.set(Knob::MemoryBlockReadCost, 0.2).unwrap();
    let mut g = c.benchmark_group("DBT3 table at SF 10 (44 plans, each timed)");
    g.bench_function("mysql", |b| {
        b.iter(|| black_box(my.table(&base, &cur, None).unwrap()))
    });
    if let Some(pg) = pg_planner() {
        let kb = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
        let mut kc = kb.clone();
        kc.set(Knob::RandomPageCost, 1.1).unwrap();
        g.bench_function("postgres", |b| {
            b.iter(|| black_box(pg.table(&kb, &kc, None).unwrap()))
        });
    }
    g.finish();
}

fn flip_sweep_50(c: &mut Criterion) {
    let my = mysql_planner();
    let k = mysql57();
    let values: Vec<f64> = (0..50).map(|i| 1.0 - i as f64 * 0.0196).collect();
    let mut g = c.benchmark_group("50-value memory_block_read_cost sweep over 22 DBT3 queries");
    g.sample_size(10);
    g.bench_function("mysql", |b| {
        b.iter(|| {
            black_box(
                my.flip_sweep(Knob::MemoryBlockReadCost, black_box(&values), &k)
                    .unwrap(),
            )
        })
    });
    g.finish();
    if let Some(pg) = pg_planner() {
        let kp = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
        // random_page_cost from 1 to 50, log-spaced.
        let rpc: Vec<f64> = (0..50).map(|i| 50f64.powf(i as f64 / 49.0)).collect();
        let mut g = c.benchmark_group("50-value random_page_cost sweep over 22 DBT3 queries");
        g.sample_size(10);
        g.bench_function("postgres", |b| {
            b.iter(|| {
                black_box(
                    pg.flip_sweep(Knob::RandomPageCost, black_box(&rpc), &kp)
                        .unwrap(),
                )
            })
        });
        g.finish();
    }
}

/// Issue 17's plan diagram: Q8 over io_block_read_cost x memory_block_read_cost, a quarter
/// to four times 5.7's defaults, 50 x 50 with every boundary located, on the seed's
/// disk-bound server, as the page's worker draws its fine picture.
fn diagram_q8(c: &mut Criterion) {
    use costlab_core::diagram::{Axis, Boundaries};
    let p = mysql_planner_on("wl8737-disk");
    let k = mysql57();
    let x = Axis::of_knob(Knob::IoBlockReadCost, 0.25, 4.0, 50).unwrap();
    let y = Axis::of_knob(Knob::MemoryBlockReadCost, 0.25, 4.0, 50).unwrap();
    let mut g = c.benchmark_group("plan diagram Q8 50 x 50 (io x memory), MySQL 5.7 at SF 10");
    g.sample_size(10);
    g.bench_function("mysql", |b| {
        b.iter(|| {
            black_box(
                p.diagram(
                    8,
                    &k,
                    (Knob::IoBlockReadCost, &x),
                    Some((Knob::MemoryBlockReadCost, &y)),
                    Boundaries::Locate,
                )
                .unwrap(),
            )
        })
    });
    g.finish();
}

fn prepare(c: &mut Criterion) {
    let m = builtin::find("wl8737-memory").unwrap();
    let mut g = c.benchmark_group("prepare the DBT3 planner at SF 10");
    g.sample_size(20);
    g.bench_function("mysql", |b| {
        b.iter(|| {
            WorkloadPlanner::dbt3(
                EngineVersion::Mysql57,
                black_box(SF),
                &m,
                &ServerSettings::preset_for_builtin(&m.id),
            )
            .unwrap()
        })
    });
    g.finish();
}

fn front_end(c: &mut Criterion) {
    use costlab_core::mysql::join::{wl8737_in_memory, MysqlJoinPlanner};
    use costlab_core::pg::join::{PgJoinEnv, PgJoinPlanner};
    use costlab_core::workload::dbt3::{catalog::dbt3, queries::read};
    let cat = dbt3(SF).unwrap();
    let read_all = || -> Vec<_> { (1..=22).map(|n| read(n, SF, &cat.pg).unwrap()).collect() };
    let blocks = read_all();
    let my = MysqlJoinPlanner::new(&cat.mysql, wl8737_in_memory()).unwrap();
    let pg = PgJoinPlanner::new(
        &cat.pg,
        PgJoinEnv {
            version: EngineVersion::Pg18,
            ..PgJoinEnv::default()
        },
    )
    .unwrap();
    let km = mysql57();
    let kp = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
    let mut g = c.benchmark_group("22 DBT3 queries at SF 10, planned from blocks or from SQL");
    g.bench_function("read the SQL only", |b| b.iter(|| black_box(read_all())));
    g.bench_function("mysql: plan", |b| {
        b.iter(|| {
            blocks
                .iter()
                .for_each(|q| drop(black_box(my.plan(q, &km).unwrap())))
        })
    });
    g.bench_function("mysql: read and plan", |b| {
        b.iter(|| {
            read_all()
                .iter()
                .for_each(|q| drop(black_box(my.plan(q, &km).unwrap())))
        })
    });
    g.bench_function("postgres: plan", |b| {
        b.iter(|| {
            blocks
                .iter()
                .for_each(|q| drop(black_box(pg.plan(q, &kp).unwrap())))
        })
    });
    g.bench_function("postgres: read and plan", |b| {
        b.iter(|| {
            read_all()
                .iter()
                .for_each(|q| drop(black_box(pg.plan(q, &kp).unwrap())))
        })
    });
    g.finish();
}

/// The third seed's planning figure: PostgreSQL itself (the series' base build, on an EC2
/// i7i.metal-24xl) planned TPROC-H's 22 queries at SF 30 in 18.47 ms. TPROC-H's queries
/// are TPC-H's, as DBT3's are (HammerDB draws other parameters); costlab's PostgreSQL 18
/// model plans DBT3's 22 at SF 30 here, and the median of 31 rounds is printed beside the
/// seed's figure. Not the same machine, and not the seed's four expression indexes: a
/// ratio to read with both in mind.
fn tproc_h_planning(c: &mut Criterion) {
    const SEED_MS: f64 = 18.47;
    let Some(pg) = pg_planner_at(30.0) else {
        return;
    };
    let k = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
    plan_all(&pg, &k);
    let mut ms: Vec<f64> = (0..31)
        .map(|_| {
            let t = std::time::Instant::now();
            plan_all(&pg, &k);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    eprintln!(
        "TPROC-H's 22 queries at SF 30: costlab's PostgreSQL 18 model plans them in {median:.2} \
         ms (median of 31), the seed's PostgreSQL in {SEED_MS} ms: {:.1}x faster",
        SEED_MS / median
    );
    let mut g = c.benchmark_group("TPROC-H's 22 queries at SF 30 (the seed: 18.47 ms)");
    g.bench_function("postgres", |b| b.iter(|| plan_all(&pg, &k)));
    g.finish();
}

criterion_group!(
    benches,
    tproc_h_planning,
    plan_22,
    table_22,
    flip_sweep_50,
    diagram_q8,
    prepare,
    front_end
);
criterion_main!(benches);
