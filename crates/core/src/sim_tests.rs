//! Tests of the simulation against the seeds. Numbers in the tables come from the seeds;
//! the source is cited beside each.

use crate::regret;
use costlab_model::knobs::{Engine, EngineVersion, Knob, KnobValues};
use costlab_model::plan::Planned;
use costlab_pg::{self as pg, PgOptions};
use costlab_sim::builtin;
use costlab_sim::*;
use costlab_workload::rpc_seed::{
    self, SEED_PAGES_10M, SEED_PAGES_500M, SEED_ROWS_10M, SEED_ROWS_500M,
};
use costlab_workload::t1;

fn pg_knobs() -> KnobValues {
    rpc_seed::seed_experiment_knobs()
}

/// The seed's two plans from pg::plan: `SELECT * FROM t` (Seq Scan) and
/// `SELECT * FROM t ORDER BY id` read through the index (the Index Scan candidate).
fn seed_plans(
    rows: f64,
    pages: f64,
) -> (costlab_model::plan::PlanNode, costlab_model::plan::PlanNode) {
    let t = rpc_seed::seed_experiment_table(rows, pages);
    let k = pg_knobs();
    let o = PgOptions::default();
    let q = |order| rpc_seed::seed_experiment_query(None, order);
    let seq = pg::plan(&t, &q(false), &k, EngineVersion::Pg18, &o).unwrap();
    let idx = pg::plan(&t, &q(true), &k, EngineVersion::Pg18, &o).unwrap();
    (
        seq.find("seq").expect("seq candidate").plan.clone(),
        idx.find("index:test_table_id_idx")
            .expect("index candidate")
            .plan
            .clone(),
    )
}

/// 5a. The seed's random_page_cost experiment on each of its five devices, with the two
/// plans from pg::plan on a table of the experiment's geometry. A consistency check, not
/// evidence: the profiles are derived from these very timings (builtin.rs), so this only
/// checks that the derivation and the model stay consistent: within 10 % of the seed.
#[test]
fn consistent_with_fitted_seed_random_page_cost_experiment() {
    // Seed table: device, seqscan (s), index scan (s), random_page_cost.
    let plans_500m = seed_plans(SEED_ROWS_500M, SEED_PAGES_500M);
    let plans_10m = seed_plans(SEED_ROWS_10M, SEED_PAGES_10M);
    eprintln!("device            | seq sim / seed   | idx sim / seed      | rpc sim / seed");
    for (id, seed_seq, seed_idx, seed_rpc) in rpc_seed::SEED_RPC_TABLE {
        let (rows, pages, (s, i)) = if id.contains("azure") {
            (SEED_ROWS_10M, SEED_PAGES_10M, &plans_10m)
        } else {
            (SEED_ROWS_500M, SEED_PAGES_500M, &plans_500m)
        };
        let sim = Simulator::new(&builtin::find(id).unwrap(), Engine::Postgres).unwrap();
        let t_seq = sim.time_plan(s).unwrap().total_s;
        let t_idx = sim.time_plan(i).unwrap().total_s;
        // The seed's formula: T(idx) · P / (T(seq) · N).
        let rpc = t_idx * pages / (t_seq * rows);
        eprintln!(
            "{id:17} | {t_seq:7.1} / {seed_seq:6.1} | {t_idx:8.0} / {seed_idx:8.0} | {rpc:5.1} / {seed_rpc:5.1} (seed formula on seed times {:.1})",
            seed_idx * pages / (seed_seq * rows)
        );
        // The seed's HDD row is not consistent with its own formula: 27,586 × P /
        // (209.8 × 10M) = 6.26 for any P near 476k pages; 62.6 needs T(seq) = 20.98 s.
        // The timings are taken as measured, so the ratio is checked against the formula
        // applied to the seed's timings (for the other four that is within 2.5 % of the
        // printed ratio).
        let seed_formula = seed_idx * pages / (seed_seq * rows);
        let ratio_ref = if id == "seed-azure-hdd" {
            seed_formula
        } else {
            seed_rpc
        };
        for (what, sim_v, seed_v) in [
            ("seq", t_seq, seed_seq),
            ("idx", t_idx, seed_idx),
            ("rpc", rpc, ratio_ref),
        ] {
            assert!(
                (sim_v / seed_v - 1.0).abs() <= 0.10,
                "{id} {what}: simulated {sim_v} vs seed {seed_v}"
            );
        }
    }
}

/// The seed experiment's index scan hits the cache about 30 % of the time on the 64 GB
/// machines (seed: "with 182GB there's about 30% of a page being in memory").
#[test]
fn seed_index_scan_hits_about_thirty_percent() {
    let (_, i) = seed_plans(SEED_ROWS_500M, SEED_PAGES_500M);
    let sim = Simulator::new(&builtin::find("seed-nvme").unwrap(), Engine::Postgres).unwrap();
    let h = sim.time_plan(&i).unwrap().cache.hit_ratio();
    assert!((0.25..=0.35).contains(&h), "{h}");
}

fn t1_planned(
    env: &costlab_mysql::MysqlEnv,
    knobs: &KnobValues,
    f: f64,
) -> costlab_model::Result<Planned> {
    costlab_mysql::plan(&t1::t1_table(), &t1::t1_query(f)?, knobs, env)
}

fn mysql57() -> KnobValues {
    KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57)
}

fn wl8737_time(id: &str, f: f64, key: &str) -> f64 {
    let env = if id == "wl8737-memory" {
        t1::wl8737_in_memory_env()
    } else {
        t1::wl8737_disk_bound_env()
    };
    let p = t1_planned(&env, &mysql57(), f).unwrap();
    let c = p.find(key).unwrap_or_else(|| panic!("{id} {f}: no {key}"));
    let sim = Simulator::new(&builtin::find(id).unwrap(), Engine::Mysql).unwrap();
    sim.time_plan(&c.plan).unwrap().total_s
}

/// 5b. WL#8737's t1 timings on its two servers, simulated from mysql::plan's work. A
/// consistency check, not evidence: the two profiles were derived from these very
/// timings (builtin.rs): in memory, table scan 6 s and range 9 % 1.5 s; disk-bound, table
/// scan 45 s, range 9 % default MRR 2,400 s, DS-MRR 300 s at the ~4 % switch point.
/// Tolerance 5 % (they reproduce to < 1 %; the margin absorbs small changes in the work
/// mysql::plan counts).
#[test]
fn consistent_with_fitted_seed_wl8737_timings() {
    // (profile, fraction of t1, candidate, seed seconds)
    let cases: [(&str, f64, &str, f64); 5] = [
        // "from 1.5 seconds to almost 6 seconds" (memory_block_read_cost 1.0, switch ~9 %)
        ("wl8737-memory", 0.09, "table_scan", 6.0),
        ("wl8737-memory", 0.09, "range:k7", 1.5),
        // "from 2400 seconds to almost 45 seconds" (io_block_read_cost 1.0, ~9 %)
        ("wl8737-disk", 0.09, "table_scan", 45.0),
        ("wl8737-disk", 0.09, "range:k7", 2400.0),
        // "from 300 seconds seconds to 45 seconds" (2.0 and 3.0, switch ~4 %, DS-MRR)
        ("wl8737-disk", 0.04, "dsmrr:k7", 300.0),
    ];
    for (id, f, key, seed) in cases {
        let t = wl8737_time(id, f, key);
        eprintln!(
            "{id:14} {:>4.0}% {key:10} sim {t:8.2} s  seed {seed:6.1} s",
            f * 100.0
        );
        assert!(
            (t / seed - 1.0).abs() <= 0.05,
            "{id} {f} {key}: {t} vs {seed}"
        );
    }
}

/// The seed's in-memory range at the ~15 % switch (memory_block_read_cost 0.5): "from 2.5
/// seconds to almost 6 seconds". Not a prediction and no evidence for the model: 2.5 s is
/// the fitted 1.5 s at 9 % times 15/9, which any range-scan time linear in the rows it
/// reads reproduces. What is checked is that linearity (5 %), and the seed's figure
/// (10 %) as a consequence.
#[test]
fn in_memory_range_at_15_percent_is_the_fitted_9_percent_scaled_linearly() {
    let (t9, t15) = (
        wl8737_time("wl8737-memory", 0.09, "range:k7"),
        wl8737_time("wl8737-memory", 0.15, "range:k7"),
    );
    eprintln!(
        "range 9 %: {t9:.3} s, 15 %: {t15:.3} s, ratio {:.3}",
        t15 / t9
    );
    assert!(
        ((t15 / t9) / (15.0 / 9.0) - 1.0).abs() <= 0.05,
        "{t9} {t15}"
    );
    assert!((t15 / 2.5 - 1.0).abs() <= 0.10, "{t15}");
}

/// The seed's engine observations that the timings above rely on: with 5.7 constants the
/// disk-bound range at 9 % runs with default MRR, with io_block_read_cost 2.0 at 4 % with
/// DS-MRR.
#[test]
fn wl8737_disk_bound_choices() {
    let env = t1::wl8737_disk_bound_env();
    let p = t1_planned(&env, &mysql57(), 0.09).unwrap();
    assert_eq!(p.chosen().key, "range:k7");
    let mut k = mysql57();
    k.set(Knob::IoBlockReadCost, 2.0).unwrap();
    let p = t1_planned(&env, &k, 0.04).unwrap();
    assert!(
        p.chosen().key == "dsmrr:k7" || p.chosen().key == "table_scan",
        "{}",
        p.chosen().key
    );
}

fn fractions(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    costlab_model::sweep::sample_points(lo, hi, n, costlab_model::sweep::Spacing::Linear).unwrap()
}

/// 5c. The seed: memory_block_read_cost 0.2 "postpones the switch from range scan to
/// table scan to beyond 20%" and "produces lower execution times" than 1.0 on the
/// in-memory server, t1 from 0 to 20 %, 5.7 server constants.
#[test]
fn regret_in_memory_lower_with_mbrc_0_2_than_1_0() {
    let sim = Simulator::new(&builtin::find("wl8737-memory").unwrap(), Engine::Mysql).unwrap();
    let env = t1::wl8737_in_memory_env();
    let xs = fractions(0.0, 0.20, 201);
    let run = |mbrc: f64| {
        let mut k = mysql57();
        k.set(Knob::MemoryBlockReadCost, mbrc).unwrap();
        regret::regret_sweep(&sim, &xs, |f| t1_planned(&env, &k, f)).unwrap()
    };
    let r10 = run(1.0);
    let r05 = run(0.5);
    let r02 = run(0.2);
    eprintln!(
        "total regret over 201 points: mbrc 1.0 {:.1} s, 0.5 {:.1} s, 0.2 {:.1} s",
        r10.total_regret_s, r05.total_regret_s, r02.total_regret_s
    );
    assert!(r02.total_regret_s < r10.total_regret_s);
    assert!(r05.total_regret_s < r10.total_regret_s);
    assert!(r02.total_regret_s <= r05.total_regret_s);
    assert!(r10.total_regret_s > 0.0);
    for p in &r10.points {
        assert!(p.regret_s >= 0.0 && p.chosen_s >= p.best_s);
    }
}

/// 5d. Fitted memory_block_read_cost on the in-memory server: over 0-20 % (the seed's
/// sweep) every value low enough to keep the range scan to 20 % has zero regret; over
/// 0-100 % the fit puts MySQL's switch where the simulated times cross.
#[test]
fn fitted_memory_block_read_cost_in_memory() {
    let sim = Simulator::new(&builtin::find("wl8737-memory").unwrap(), Engine::Mysql).unwrap();
    let env = t1::wl8737_in_memory_env();
    let base = mysql57();
    let plan = |f: f64, k: &KnobValues| t1_planned(&env, k, f);

    let fit20 = regret::fit_one(
        &sim,
        &fractions(0.0, 0.2, 201),
        Knob::MemoryBlockReadCost,
        &base,
        None,
        plan,
    )
    .unwrap();
    eprintln!(
        "0-20 %: best interval {:?}, regret {} s, grid points {}",
        fit20.best_interval, fit20.best_total_regret_s, fit20.grid_points
    );
    assert!(fit20.best_total_regret_s < 1e-9);
    // 0.2 is inside the zero-regret interval (the seed's choice), 0.5 and 1.0 are not.
    assert!(fit20.best_interval.0 <= 0.2 && 0.2 < fit20.best_interval.1);
    assert!(fit20.regret_at(0.5) > 0.0 && fit20.regret_at(1.0) > fit20.regret_at(0.5));

    // Over 0-100 % with InnoDB's estimates (×2 beyond 10 leaf pages, capped at N/2) the
    // range's estimated rows stop growing at 25 %, so no constant can put MySQL's switch
    // at the crossing of the times; the fit puts it at 25 % (reported). With exact
    // estimates the switch can go anywhere, and the fit puts it where the times cross.
    let xs = fractions(0.0, 1.0, 1000);
    let started = std::time::Instant::now();
    let fit = regret::fit_one(&sim, &xs, Knob::MemoryBlockReadCost, &base, None, plan).unwrap();
    eprintln!(
        "0-100 %, InnoDB estimates (1000 points): best {:.4} in {:?}, regret {:.2} s (at 1.0: {:.1} s, at 0.2: {:.1} s), {} grid points, {:?} (debug build)",
        fit.best,
        fit.best_interval,
        fit.best_total_regret_s,
        fit.regret_at(1.0),
        fit.regret_at(0.2),
        fit.grid_points,
        started.elapsed()
    );
    assert_eq!(fit.grid_points, 0, "t1 costs are affine in the constant");
    let exact_env = costlab_mysql::MysqlEnv {
        innodb_inexact_estimates: false,
        ..t1::wl8737_in_memory_env()
    };
    let exact = regret::fit_one(&sim, &xs, Knob::MemoryBlockReadCost, &base, None, |f, k| {
        t1_planned(&exact_env, k, f)
    })
    .unwrap();
    // Where the simulated times cross: the range scan's time grows with the fraction,
    // the table scan's hardly moves.
    let t_of = |f: f64, key: &str| {
        let p = t1_planned(&exact_env, &base, f).unwrap();
        sim.time_plan(&p.find(key).unwrap().plan).unwrap().total_s
    };
    let (mut lo, mut hi) = (0.01, 1.0);
    for _ in 0..40 {
        let m = (lo + hi) / 2.0;
        if t_of(m, "range:k7") < t_of(m, "table_scan") {
            lo = m;
        } else {
            hi = m;
        }
    }
    let right_switch = lo;
    let switch_at = |env: &costlab_mysql::MysqlEnv, mbrc: f64| {
        let mut k = base.clone();
        k.set(Knob::MemoryBlockReadCost, mbrc).unwrap();
        costlab_model::sweep::crossovers(
            |f| t1_planned(env, &k, f),
            0.001,
            1.0,
            50,
            costlab_model::sweep::Spacing::Linear,
        )
        .unwrap()
        .into_iter()
        .find(|c| c.to == "table_scan")
        .map(|c| c.x)
        .unwrap_or(1.0)
    };
    let switch = switch_at(&exact_env, exact.best);
    eprintln!(
        "exact estimates: fitted memory_block_read_cost {:.4} in {:?}, regret {:.2} s; times cross at {right_switch:.4}, MySQL switches at {switch:.4}; with InnoDB estimates the fitted {:.4} switches at {:.4}",
        exact.best,
        exact.best_interval,
        exact.best_total_regret_s,
        fit.best,
        switch_at(&env, fit.best)
    );
    assert!(
        (switch - right_switch).abs() <= 0.01,
        "{switch} vs {right_switch}"
    );
}

const SEED_INDEX_KEY: &str = "index:test_table_id_idx";

/// `SELECT * FROM test_table WHERE id <= f·rows` on seed device `id`'s table, PostgreSQL 18,
/// one process, random_page_cost `rpc`.
fn seed_range_plan(id: &str, f: f64, rpc: f64) -> costlab_model::Result<Planned> {
    let (rows, pages) = rpc_seed::seed_experiment_size(id);
    let mut k = pg_knobs();
    k.set(Knob::RandomPageCost, rpc)?;
    let q = rpc_seed::seed_experiment_query(Some((f * rows).max(1.0)), false);
    pg::plan(
        &rpc_seed::seed_experiment_table(rows, pages),
        &q,
        &k,
        EngineVersion::Pg18,
        &PgOptions::default(),
    )
}

/// The selectivity at which the index scan's simulated time crosses the seq scan's on
/// device `id` (bisection in log space, one row to all rows): the seed's "actual crossing
/// point" between the two plans it timed. Times do not depend on random_page_cost.
fn seed_index_seq_time_crossing(id: &str) -> f64 {
    let sim = Simulator::new(&builtin::find(id).unwrap(), Engine::Postgres).unwrap();
    let rows = rpc_seed::seed_experiment_size(id).0;
    let index_faster = |f: f64| {
        let p = seed_range_plan(id, f, 4.0).unwrap();
        let t = |key: &str| sim.time_plan(&p.find(key).unwrap().plan).unwrap().total_s;
        t(SEED_INDEX_KEY) < t("seq")
    };
    let (mut lo, mut hi) = ((1.0 / rows).ln(), 0.0_f64);
    assert!(index_faster(lo.exp()) && !index_faster(1.0), "{id}");
    for _ in 0..60 {
        let m = (lo + hi) / 2.0;
        if index_faster(m.exp()) {
            lo = m;
        } else {
            hi = m;
        }
    }
    hi.exp()
}

/// The selectivity at which PostgreSQL with random_page_cost `rpc` leaves the index scan
/// for good on device `id`'s table (its last plan change away from the index scan).
fn seed_pg_leaves_index(id: &str, rpc: f64) -> f64 {
    let rows = rpc_seed::seed_experiment_size(id).0;
    costlab_model::sweep::crossovers(
        |f| seed_range_plan(id, f, rpc),
        1.0 / rows,
        1.0,
        60,
        costlab_model::sweep::Spacing::Log,
    )
    .unwrap()
    .iter()
    .rev()
    .find(|c| c.from == SEED_INDEX_KEY)
    .map(|c| c.x)
    .unwrap_or_else(|| panic!("{id} at {rpc}: never leaves the index scan"))
}

/// How far apart two selectivities are, as a factor (≥ 1).
fn factor_apart(a: f64, b: f64) -> f64 {
    (a / b).max(b / a)
}

/// 5d. The seed's claim about its three SSDs (the 500M-row runs): "These calculated
/// values also align with the 'optimal' plan choice, i.e. the plans flip much closer to
/// the actual crossing point (compared to where it'd flip with 4.0)." Over
/// `WHERE id <= X`, X from one row to all rows (crate::regret::fit_seed_random_page_cost), with
/// the seed's measured ratio instead of 4.0
/// - PostgreSQL leaves the index scan (the plan the seed timed against the seq scan) closer
///   to where the index scan's simulated time crosses the seq scan's, and
/// - the sweep loses less simulated time.
///
/// The seed claims nothing of the kind for the Azure runs (10M rows, direct I/O): there
/// PostgreSQL leaves the index scan for a bitmap scan near 1e-5 whatever the constant
/// between 4 and 63, and the model finds 4.0 losing less than 28.5 and 62.6 (the HDD
/// ratio is the seed's misprint of 6.26, builtin.rs); printed, not asserted.
#[test]
fn seed_ratio_flips_closer_to_the_crossing_than_4_on_the_seed_ssds() {
    for (id, _, _, seed_rpc) in rpc_seed::SEED_RPC_TABLE {
        let fit = crate::regret::fit_seed_random_page_cost(id, 60).unwrap();
        let (at4, at_seed) = (fit.regret_at(4.0), fit.regret_at(seed_rpc));
        let crossing = seed_index_seq_time_crossing(id);
        let (leave4, leave_seed) = (
            seed_pg_leaves_index(id, 4.0),
            seed_pg_leaves_index(id, seed_rpc),
        );
        eprintln!(
            "{id:17} index/seq times cross at {crossing:.2e}; PostgreSQL leaves the index scan at {leave4:.2e} with 4.0, {leave_seed:.2e} with {seed_rpc}; total regret {at4:.1} s with 4.0, {at_seed:.1} s with {seed_rpc}"
        );
        if id.contains("azure") {
            continue;
        }
        assert!(
            factor_apart(leave_seed, crossing) < factor_apart(leave4, crossing),
            "{id}: with {seed_rpc} PostgreSQL leaves the index scan at {leave_seed:.3e}, with 4.0 at {leave4:.3e}; the times cross at {crossing:.3e}"
        );
        assert!(
            at_seed < at4,
            "{id}: regret {at_seed} s with {seed_rpc} vs {at4} s with 4.0"
        );
    }
}

/// 5d. What the fitted random_page_cost must find on each seed device, over the same
/// sweep: a value above 4.0 that loses strictly less than 4.0 (the seed: "to improve the
/// plans, I had to *increase* the value, even on really new/fast SSDs"); and on the three
/// SSDs, where the index scan is what PostgreSQL wrongly keeps, a value that makes it leave
/// the index scan closer to the index/seq time crossing than 4.0 does and within a factor
/// of 2 of it (the fit also weighs the bitmap-to-seq switch, so it need not land on the
/// crossing; 4.0 leaves 3.8× to 9.5× too late).
#[test]
fn fitted_random_page_cost_per_seed_device() {
    for (id, _, _, seed_rpc) in rpc_seed::SEED_RPC_TABLE {
        let fit = crate::regret::fit_seed_random_page_cost(id, 60).unwrap();
        let at4 = fit.regret_at(4.0);
        eprintln!(
            "{id:17} fitted random_page_cost {:.2} (interval {:.2}-{:.2}), seed ratio {seed_rpc}; total regret {:.1} s (at 4.0: {:.1} s, at {seed_rpc}: {:.1} s), grid points {}",
            fit.best, fit.best_interval.0, fit.best_interval.1, fit.best_total_regret_s, at4, fit.regret_at(seed_rpc), fit.grid_points
        );
        assert!(fit.best_interval.0 > 4.0, "{id}: {:?}", fit.best_interval);
        assert!(fit.best_total_regret_s < at4, "{id}: {fit:?}");
        if id.contains("azure") {
            continue;
        }
        let crossing = seed_index_seq_time_crossing(id);
        let (leave4, leave_fit) = (
            seed_pg_leaves_index(id, 4.0),
            seed_pg_leaves_index(id, fit.best),
        );
        eprintln!("{id:17} leaves the index scan at {leave_fit:.2e} with the fit, {leave4:.2e} with 4.0; times cross at {crossing:.2e}");
        assert!(
            factor_apart(leave_fit, crossing) < factor_apart(leave4, crossing)
                && factor_apart(leave_fit, crossing) <= 2.0,
            "{id}: fitted {} leaves the index scan at {leave_fit:.3e}, 4.0 at {leave4:.3e}; the times cross at {crossing:.3e}",
            fit.best
        );
    }
}

/// A pair fit: memory_block_read_cost and io_block_read_cost on the disk-bound server.
#[test]
fn fit_pair_disk_bound() {
    let sim = Simulator::new(&builtin::find("wl8737-disk").unwrap(), Engine::Mysql).unwrap();
    let env = t1::wl8737_disk_bound_env();
    let xs = fractions(0.0, 0.2, 41);
    let fit = regret::fit_two(
        &sim,
        &xs,
        (Knob::MemoryBlockReadCost, Knob::IoBlockReadCost),
        &mysql57(),
        (Some((0.01, 10.0)), Some((0.1, 100.0))),
        |f, k| t1_planned(&env, k, f),
    )
    .unwrap();
    let at_default = fit
        .coarse
        .iter()
        .min_by(|a, b| {
            ((a.x.ln()).abs() + (a.y.ln()).abs()).total_cmp(&((b.x.ln()).abs() + (b.y.ln()).abs()))
        })
        .unwrap();
    eprintln!(
        "pair fit: best {:?}, regret {:.1} s; near (1, 1): {:?}; grid points {}",
        fit.best, fit.best_total_regret_s, at_default, fit.grid_points
    );
    assert!(fit.best_total_regret_s <= at_default.total_regret_s);
    assert_eq!(fit.grid.len(), 33 * 33);
}

/// 5e. Bad profiles are rejected with the field named.
#[test]
fn bad_profiles_are_rejected_naming_the_field() {
    type Edit = fn(&mut MachineProfile);
    let cases: [(Edit, &str); 14] = [
        (|p| p.device.seq_read_mbps = 0.0, "seq_read_mbps"),
        (|p| p.device.seq_read_mbps = -5.0, "seq_read_mbps"),
        (|p| p.device.seq_read_mbps = f64::NAN, "seq_read_mbps"),
        // A 100 TB/s disk.
        (|p| p.device.seq_read_mbps = 1e8, "seq_read_mbps"),
        // A 0 µs random read.
        (
            |p| p.device.random_8k.qd1_latency_us = 0.0,
            "random_8k.qd1_latency_us",
        ),
        (
            |p| p.device.random_16k.qd1_latency_us = f64::INFINITY,
            "random_16k.qd1_latency_us",
        ),
        (
            |p| p.device.random_8k.iops_by_qd[2].iops = -1.0,
            "random_8k.iops_by_qd[2].iops",
        ),
        (
            |p| p.device.random_8k.iops_by_qd[3].queue_depth = 2.0,
            "random_8k.iops_by_qd[3].queue_depth",
        ),
        (
            |p| p.device.random_8k.iops_by_qd[0].iops *= 10.0,
            "random_8k.iops_by_qd[0].iops",
        ),
        (|p| p.device.iops_cap = Some(0.0), "iops_cap"),
        (|p| p.buffer_hit_ns = 0.0, "buffer_hit_ns"),
        (|p| p.cpu_ns_per_row = -1.0, "cpu_ns_per_row"),
        // A buffer pool larger than RAM.
        (
            |p| p.buffer_pool_bytes = p.ram_bytes * 2.0,
            "buffer_pool_bytes",
        ),
        (|p| p.ram_bytes = 0.0, "ram_bytes"),
    ];
    for (edit, field) in cases {
        let mut p = builtin::find("seed-nvme").unwrap();
        edit(&mut p);
        let err = p.validate().expect_err(field);
        assert!(err.to_string().contains(field), "{field}: {err}");
        assert!(Simulator::new(&p, Engine::Postgres).is_err());
    }
}

#[test]
fn builtin_profiles_are_valid_unique_and_round_trip_as_json() {
    let all = builtin::profiles();
    let mut ids: Vec<_> = all.iter().map(|p| p.id.clone()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
    for p in &all {
        p.validate().unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert!(!p.source.is_empty());
        let json = serde_json::to_string(p).unwrap();
        let back: MachineProfile = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, p);
    }
    assert!(builtin::find("nope").is_err());
}

/// Confidence is per figure: every built-in profile lists its device's figures, its own
/// confidence is the weakest of them, and no profile with an assumed figure is marked
/// measured. The consumer NVMe's deep queues are invented; the seed profiles are fitted.
#[test]
fn builtin_confidence_is_per_figure_and_never_overstated() {
    use costlab_sim::profile::Confidence;
    for p in builtin::profiles() {
        assert!(!p.figures.is_empty(), "{}", p.id);
        let weakest = p.figures.iter().map(|f| f.confidence).max().unwrap();
        assert_eq!(p.confidence, weakest, "{}", p.id);
        if p.figures
            .iter()
            .any(|f| f.confidence == Confidence::Assumed)
        {
            assert_ne!(p.confidence, Confidence::Measured, "{}", p.id);
            assert!(p.confidence_summary().contains("assumed"), "{}", p.id);
        }
        if p.id.starts_with("seed-") || p.id.starts_with("wl8737-") {
            assert!(
                p.confidence_summary().starts_with(
                    "fitted to the seed's timings: sequential read, random read at QD1"
                ),
                "{}: {}",
                p.id,
                p.confidence_summary()
            );
        }
    }
    let nvme = builtin::find("nvme-consumer-gen4").unwrap();
    assert_eq!(nvme.confidence, Confidence::Assumed);
    assert_eq!(
        nvme.confidence_summary(),
        "measured: random read at QD1; vendor figure: sequential read; derived: queue depths 2-8; assumed: queue depths 16-32"
    );
}

/// What a probe would write: its measurements map straight onto the profile fields.
#[test]
fn a_probe_calibration_file_becomes_a_profile() {
    let json = r#"{
        "id": "probe-laptop", "label": "probe run", "source": "costlab-probe 0.1",
        "confidence": "measured",
        "device": {
            "seq_read_mbps": 3100.0,
            "random_8k": {"qd1_latency_us": 82.0, "iops_by_qd": [
                {"queue_depth": 1, "iops": 12195}, {"queue_depth": 2, "iops": 23000},
                {"queue_depth": 4, "iops": 44000}, {"queue_depth": 8, "iops": 80000},
                {"queue_depth": 16, "iops": 150000}, {"queue_depth": 32, "iops": 240000}]},
            "random_16k": {"qd1_latency_us": 90.0}
        },
        "buffer_hit_ns": 120.0, "os_cache_hit_ns": 1800.0,
        "cpu_ns_per_row": 45.0, "cpu_ns_per_index_entry": 20.0,
        "cpu_ns_per_operator": 12.0, "cpu_ns_per_comparison": 12.0,
        "ram_bytes": 34359738368, "buffer_pool_bytes": 8589934592,
        "bypass_os_cache": false, "warm_cache": true
    }"#;
    let p: MachineProfile = serde_json::from_str(json).unwrap();
    p.validate().unwrap();
    assert_eq!(p.effective_io_concurrency, 16.0);
    assert!(p.warnings().is_empty(), "{:?}", p.warnings());
    assert!((p.device.random_read_s(8192.0, 16.0) - 1.0 / 150_000.0).abs() < 1e-12);
}

#[test]
fn bad_work_is_an_error_not_a_panic() {
    let sim = Simulator::new(&builtin::find("hdd-7200").unwrap(), Engine::Postgres).unwrap();
    for (w, field) in [
        (
            costlab_model::plan::Work {
                rows_examined: f64::NAN,
                ..Default::default()
            },
            "rows_examined",
        ),
        (
            costlab_model::plan::Work {
                comparisons: -1.0,
                ..Default::default()
            },
            "comparisons",
        ),
    ] {
        let err = sim.time_work("x", &w).unwrap_err();
        assert!(err.to_string().contains(field), "{err}");
    }
}

use proptest::prelude::*;

fn arb_profile() -> impl Strategy<Value = MachineProfile> {
    (
        (
            1.0..50_000.0f64,
            1.0..100_000.0f64,
            1.0..100_000.0f64,
            1.0..20.0f64,
        ),
        (
            1.0..10_000.0f64,
            1.0..100_000.0f64,
            0.01..10_000.0f64,
            0.01..10_000.0f64,
        ),
        (
            prop::option::of(1.0..1e6f64),
            prop::option::of(1.0..1e4f64),
            prop::option::of(1.0..20_000.0f64),
        ),
        (0.0..1.0f64, any::<bool>(), any::<bool>(), 0.0..64.0f64),
    )
        .prop_map(
            |(
                (seq, lat8, lat16, m),
                (hit, os, cpu1, cpu2),
                (iops_cap, mbps_cap, skip),
                (pool, bypass, warm, eic),
            )| {
                let mut p = builtin::find("seed-nvme").unwrap();
                p.device.seq_read_mbps = seq;
                p.device.random_8k = RandomRead {
                    qd1_latency_us: lat8,
                    iops_by_qd: vec![
                        QdPoint {
                            queue_depth: 1.0,
                            iops: 1e6 / lat8,
                        },
                        QdPoint {
                            queue_depth: 32.0,
                            iops: 1e6 / lat8 * m,
                        },
                    ],
                };
                p.device.random_16k = RandomRead {
                    qd1_latency_us: lat16,
                    iops_by_qd: vec![],
                };
                p.device.iops_cap = iops_cap;
                p.device.mbps_cap = mbps_cap;
                p.device.skip_read_us = skip;
                p.buffer_hit_ns = hit;
                p.os_cache_hit_ns = os;
                p.cpu_ns_per_row = cpu1;
                p.cpu_ns_per_operator = cpu2;
                p.buffer_pool_bytes = (p.ram_bytes * pool).max(131_072.0);
                p.bypass_os_cache = bypass;
                p.warm_cache = warm;
                p.effective_io_concurrency = eic;
                p
            },
        )
}

fn arb_work() -> impl Strategy<Value = costlab_model::plan::Work> {
    let count = || prop_oneof![Just(0.0), 0.0..1e12f64];
    let reads = (
        prop::sample::select(vec![
            costlab_model::plan::AccessPattern::Sequential,
            costlab_model::plan::AccessPattern::Random,
            costlab_model::plan::AccessPattern::Sorted,
        ]),
        count(),
        count(),
        0.0..1.0f64,
        prop::sample::select(vec![8192.0, 16384.0, 4096.0, 32768.0]),
        prop::sample::select(vec!["a", "b"]),
    )
        .prop_map(|(pattern, object_pages, requests, d, page_bytes, object)| {
            costlab_model::plan::PageReads {
                object: object.into(),
                object_pages,
                page_bytes,
                pattern,
                requests,
                distinct: requests * d,
                span_pages: None,
            }
        });
    (
        prop::collection::vec(reads, 0..4),
        (count(), count(), count(), count()),
        (count(), count(), count(), 0.0..16.0f64),
    )
        .prop_map(
            |(page_reads, (a, b, c, d), (e, f, g, w))| costlab_model::plan::Work {
                page_reads,
                rows_examined: a,
                index_entries: b,
                operator_evals: c,
                rows_out: d,
                comparisons: e,
                spill_bytes: f,
                rows_transferred: g,
                workers: w.floor(),
                function_calls: 0.0,
            },
        )
}

proptest! {
    /// 5e. Any valid profile and any work with finite non-negative counts give a finite,
    /// non-negative time for both engines.
    #[test]
    fn time_is_finite_and_non_negative(p in arb_profile(), w in arb_work()) {
        prop_assume!(p.validate().is_ok());
        for engine in [Engine::Postgres, Engine::Mysql] {
            let sim = Simulator::new(&p, engine).unwrap();
            let t = sim.time_work("node", &w).unwrap();
            prop_assert!(t.total_s.is_finite() && t.total_s >= 0.0, "{:?}", t);
            for v in [t.io.sequential, t.io.random, t.io.sorted, t.io.spill, t.cpu_s, t.memory_s, t.cache.misses, t.cache.buffer_hits, t.cache.os_hits] {
                prop_assert!(v.is_finite() && v >= 0.0, "{:?}", t);
            }
        }
    }
}

/// A bitmap heap scan on a key stored in order reads one contiguous run of the table:
/// PostgreSQL 18's read streams combine it into sequential reads (measured here: a cold
/// bitmap heap scan of 20 % of a correlated key took 0.088 s against 0.213 s for the whole
/// table's sequential scan), while before 18 each page stays its own 8 kB read.
#[test]
fn correlated_bitmap_reads_sequentially_from_postgresql_18() {
    let t = t1::t1_table();
    let q = costlab_model::query::Query::parse("SELECT * FROM t1 WHERE pk > 0 AND pk < 2000001")
        .unwrap();
    let p = cold_reads_only();
    let time = |release: EngineVersion, key: &str| {
        let planned = pg::plan(&t, &q, &pg_knobs(), release, &PgOptions::default()).unwrap();
        let plan = &planned.find(key).unwrap_or_else(|| panic!("{key}")).plan;
        let t = Simulator::for_release(&p, release)
            .unwrap()
            .time_plan(plan)
            .unwrap();
        t.total_s
    };
    let seq18 = time(EngineVersion::Pg18, "seq");
    let bitmap18 = time(EngineVersion::Pg18, "bitmap:PRIMARY");
    let bitmap15 = time(EngineVersion::Pg15, "bitmap:PRIMARY");
    assert!(
        bitmap18 < 0.5 * seq18,
        "PG18 bitmap {bitmap18} vs seq {seq18}"
    );
    assert!(
        bitmap15 > 1.3 * bitmap18,
        "PG15 {bitmap15} vs PG18 {bitmap18}"
    );
}

/// A cold NVMe profile whose CPU figures do not hide the reads.
fn cold_reads_only() -> MachineProfile {
    let mut p = builtin::profiles()
        .into_iter()
        .find(|p| p.id == "nvme-consumer-gen4")
        .unwrap();
    p.warm_cache = false;
    p.cpu_ns_per_row = 1.0;
    p.cpu_ns_per_index_entry = 1.0;
    p.cpu_ns_per_operator = 1.0;
    p.os_cache_hit_ns = 10.0;
    p
}

/// [`cold_reads_only`] with PostgreSQL 15's prefetch (eic 1) and in-order reads
/// (assumption 17) a tenth of the sequential bandwidth.
fn cold_reads_profile() -> MachineProfile {
    let mut p = cold_reads_only();
    p.effective_io_concurrency = 1.0;
    p.device.ordered_read_mbps = Some(p.device.seq_read_mbps / 10.0);
    p
}

fn t1_plan(sql: &str, release: EngineVersion, key: &str) -> costlab_model::plan::PlanNode {
    let q = costlab_model::query::Query::parse(sql).unwrap();
    let planned = pg::plan(
        &t1::t1_table(),
        &q,
        &pg_knobs(),
        release,
        &PgOptions::default(),
    )
    .unwrap();
    planned
        .find(key)
        .unwrap_or_else(|| panic!("{key}"))
        .plan
        .clone()
}

fn seconds(
    p: &MachineProfile,
    release: EngineVersion,
    plan: &costlab_model::plan::PlanNode,
) -> f64 {
    Simulator::for_release(p, release)
        .unwrap()
        .time_plan(plan)
        .unwrap()
        .total_s
}

/// Assumption 17: an index scan on a correlated key reads at the in-order bandwidth; a
/// sequential scan keeps the sequential one.
#[test]
fn index_scan_in_order_reads_at_the_ordered_bandwidth() {
    let p = cold_reads_profile();
    let mut unset = p.clone();
    unset.device.ordered_read_mbps = None;
    let sql = "SELECT * FROM t1 WHERE pk > 4000000 AND pk < 6000001";
    for release in [EngineVersion::Pg15, EngineVersion::Pg18] {
        let index = t1_plan(sql, release, "index:PRIMARY");
        let seq = t1_plan(sql, release, "seq");
        let (slow, fast) = (
            seconds(&p, release, &index),
            seconds(&unset, release, &index),
        );
        assert!(slow > 5.0 * fast, "{release:?}: {slow} vs {fast}");
        assert_eq!(seconds(&p, release, &seq), seconds(&unset, release, &seq));
    }
}

/// Assumption 13: before PostgreSQL 18, a dense bitmap heap scan over the whole table
/// reads like in-order reads; a bitmap over a contiguous run from mid-table (posix_fadvise
/// keeps read-ahead from starting) and a sparse one stay random reads.
#[test]
fn pg15_dense_bitmap_over_the_table_reads_ahead_a_mid_table_run_does_not() {
    let mut p = cold_reads_profile();
    p.device.ordered_read_mbps = Some(p.device.seq_read_mbps);
    let release = EngineVersion::Pg15;
    let per_page = |sql: &str, key: &str| {
        let plan = t1_plan(sql, release, key);
        let t = Simulator::for_release(&p, release)
            .unwrap()
            .time_plan(&plan)
            .unwrap();
        t.io.total() / t.cache.misses
    };
    // Per page of I/O, the index's few leaf pages included (hence 10 % for the random ones).
    let ordered_page = 8192.0 / (p.device.ordered_read_mbps.unwrap() * 1e6);
    let random_page = p.device.random_read_s(8192.0, 2.0);
    assert!(
        random_page > 3.0 * ordered_page,
        "the test needs them apart: {random_page} {ordered_page}"
    );
    let dense = per_page(
        "SELECT * FROM t1 WHERE i7 > -1 AND i7 < 5000000",
        "bitmap:k7",
    );
    let sparse = per_page("SELECT * FROM t1 WHERE i7 > -1 AND i7 < 10000", "bitmap:k7");
    let run = per_page(
        "SELECT * FROM t1 WHERE pk > 4000000 AND pk < 6000001",
        "bitmap:PRIMARY",
    );
    assert!(
        (dense / ordered_page - 1.0).abs() < 0.05,
        "dense {dense} vs ordered {ordered_page}"
    );
    assert!(
        (sparse / random_page - 1.0).abs() < 0.1,
        "sparse {sparse} vs random {random_page}"
    );
    assert!(
        (run / random_page - 1.0).abs() < 0.1,
        "run {run} vs random {random_page}"
    );
}

/// Assumption 16: the start-up is paid once per plan, whatever its size.
#[test]
fn executor_start_up_is_paid_once_per_plan() {
    let p = cold_reads_profile();
    let mut started = p.clone();
    started.executor_start_ns = 45_000.0;
    for (sql, key) in [
        (
            "SELECT * FROM t1 WHERE pk > 10 AND pk < 20",
            "index:PRIMARY",
        ),
        (
            "SELECT * FROM t1 WHERE i7 > -1 AND i7 < 5000000",
            "bitmap:k7",
        ),
    ] {
        let plan = t1_plan(sql, EngineVersion::Pg15, key);
        let d =
            seconds(&started, EngineVersion::Pg15, &plan) - seconds(&p, EngineVersion::Pg15, &plan);
        assert!((d - 45e-6).abs() < 1e-9, "{key}: {d}");
    }
    started.executor_start_ns = f64::NAN;
    assert!(started.validate().is_err());
}

/// Assumption 18: with direct I/O a PostgreSQL sequential scan reads at the synchronous
/// 8 kB rate; buffered, at the sequential bandwidth; InnoDB's O_DIRECT keeps its
/// read-ahead.
#[test]
fn postgres_direct_io_reads_sequentially_one_page_at_a_time() {
    let mut p = cold_reads_profile();
    p.device.direct_page_read_mbps = Some(p.device.seq_read_mbps / 8.0);
    let sql = "SELECT * FROM t1 WHERE pk > 0 AND pk < 10000001";
    let seq = t1_plan(sql, EngineVersion::Pg18, "seq");
    let io = |p: &MachineProfile| {
        Simulator::for_release(p, EngineVersion::Pg18)
            .unwrap()
            .time_plan(&seq)
            .unwrap()
            .io
            .sequential
    };
    let buffered = io(&p);
    p.bypass_os_cache = true;
    let direct = io(&p);
    assert!(
        (direct / buffered - 8.0).abs() < 0.01,
        "direct {direct} buffered {buffered}"
    );
    let calibration = crate::calibration::Calibration::from_json(include_str!(
        "../../../docs/validation/calibration.json"
    ))
    .unwrap();
    let measured = calibration.to_profile().unwrap();
    assert_eq!(
        measured.device.direct_page_read_mbps,
        Some(calibration.seq_read.page.mbps.median)
    );
}

/// Assumption 20: in a cold execution, what one node read into the engine's buffer is
/// there for the next node reading the same object (Q11 on PostgreSQL 15, SF 0.1, cold:
/// the InitPlan's scan of partsupp by supplier read 1,622 pages, the main query's same
/// scan found all 4,100 of its pages in shared_buffers). A scan through PostgreSQL's ring
/// leaves nothing there.
#[test]
fn a_cold_execution_finds_what_its_earlier_nodes_read_into_the_buffer() {
    use costlab_model::plan::{AccessPattern, Cost, PageReads, PlanNode, Work};
    let p = cold_reads_only();
    let probe = |object: &str, pages: f64, pattern: AccessPattern| Work {
        page_reads: vec![PageReads {
            object: object.into(),
            object_pages: pages,
            page_bytes: 8192.0,
            pattern,
            requests: pages,
            distinct: pages,
            span_pages: None,
        }],
        ..Work::default()
    };
    let sim = Simulator::for_release(&p, EngineVersion::Pg15).unwrap();
    let twice = |object: &str, pages: f64, pattern: AccessPattern, op: &str| {
        let mut root = PlanNode::leaf("Append", Cost::default(), 0.0, Work::default());
        root.children = vec![
            PlanNode::leaf(op, Cost::default(), 0.0, probe(object, pages, pattern)),
            PlanNode::leaf(op, Cost::default(), 0.0, probe(object, pages, pattern)),
        ];
        let t = sim.time_plan(&root).unwrap();
        (t.nodes[1].cache.misses, t.nodes[2].cache.misses)
    };
    // 1,800 pages (14 MB) in shared_buffers of 128 MB: the second read hits.
    assert!(
        p.buffer_pool_bytes >= 128.0 * 1048576.0,
        "{}",
        p.buffer_pool_bytes
    );
    let (first, second) = twice("partsupp", 1800.0, AccessPattern::Random, "Index Scan");
    assert_eq!(first, 1800.0);
    assert!(second < 1.0, "{second}");
    // A sequential scan larger than a quarter of shared_buffers reads through its ring.
    let pages = 0.5 * p.buffer_pool_bytes / 8192.0;
    let (first, second) = twice("lineitem", pages, AccessPattern::Sequential, "Seq Scan");
    assert_eq!((first, second), (pages, pages));
}

/// An index scan's sorted reads (lookups in key order) have no posix_fadvise to keep the
/// kernel's read-ahead from running: through gaps of two pages each lookup costs one
/// in-order request and the skipped page at the stream's rate, where a PostgreSQL 15
/// bitmap heap scan over the same pages stays random reads (assumption 13).
#[test]
fn sorted_lookups_read_ahead_through_small_gaps_a_bitmap_does_not() {
    use costlab_model::plan::{AccessPattern, Cost, PageReads, PlanNode, Work};
    let mut p = cold_reads_profile();
    // One request at a time reads in order at a quarter of the stream's bandwidth.
    p.device.ordered_read_mbps = Some(p.device.seq_read_mbps / 4.0);
    let work = Work {
        page_reads: vec![PageReads {
            object: "lineitem".into(),
            object_pages: 20_000.0,
            page_bytes: 8192.0,
            pattern: AccessPattern::Sorted,
            requests: 10_000.0,
            distinct: 10_000.0,
            span_pages: None,
        }],
        ..Work::default()
    };
    let per_page = |op: &str| {
        let node = PlanNode::leaf(op, Cost::default(), 0.0, work.clone());
        let t = Simulator::for_release(&p, EngineVersion::Pg15)
            .unwrap()
            .time_plan(&node)
            .unwrap();
        t.io.total() / t.cache.misses
    };
    let ordered = 8192.0 / (p.device.ordered_read_mbps.unwrap() * 1e6);
    let stream = 8192.0 / (p.device.seq_read_mbps * 1e6);
    // Every other page: one request, the page skipped read ahead with the stream.
    let index = per_page("Index Scan");
    assert!(
        (index - (ordered + stream)).abs() < 1e-9 * ordered.max(1.0),
        "{index} vs {ordered} + {stream}"
    );
    // The bitmap's prefetch (eic 1: two reads in flight) keeps them random reads.
    let bitmap = per_page("Bitmap Heap Scan");
    let random = p.device.random_read_s(8192.0, 2.0);
    assert!((bitmap - random).abs() < 1e-9, "{bitmap} vs {random}");
    assert!(bitmap > index, "{bitmap} vs {index}");
}

/// Warm, a PostgreSQL scan through its ring finds in the OS page cache all that both tiers
/// hold of its table, also when another node of the plan reads the table at random and so
/// gives it a share of shared_buffers: the ring keeps the scan out of shared_buffers, not
/// out of the cache. Counting only the OS tier's part left Q18's sequential index scan of
/// lineitem (no hash joins) reading most of its pages from the device, 0.29 s against 0.21
/// s real, once a six-page lookup elsewhere in the plan read lineitem in key order.
#[test]
fn a_ring_scan_finds_the_whole_cached_table_when_others_share_it() {
    use costlab_model::plan::{AccessPattern, Cost, PageReads, PlanNode, Work};
    let mut p = cold_reads_profile();
    p.warm_cache = true;
    let pages = 0.8 * p.buffer_pool_bytes / 8192.0;
    let reads = |pattern, requests: f64| Work {
        page_reads: vec![PageReads {
            object: "lineitem".into(),
            object_pages: pages,
            page_bytes: 8192.0,
            pattern,
            requests,
            distinct: requests,
            span_pages: None,
        }],
        ..Work::default()
    };
    let scan = PlanNode::leaf(
        "Seq Scan",
        Cost::default(),
        0.0,
        reads(AccessPattern::Sequential, pages),
    );
    let lookups = PlanNode::leaf(
        "Index Scan",
        Cost::default(),
        0.0,
        reads(AccessPattern::Random, 6.0),
    );
    let mut join = PlanNode::leaf("Nested Loop", Cost::default(), 0.0, Work::default());
    join.children = vec![scan.clone(), lookups];
    let sim = Simulator::for_release(&p, EngineVersion::Pg15).unwrap();
    for plan in [&scan, &join] {
        let t = sim.time_plan(plan).unwrap();
        assert!(t.cache.misses < 1.0, "{:?}", t.cache);
        assert!(
            t.nodes.iter().any(|n| n.cache.os_hits >= pages * 0.999),
            "{:?}",
            t.nodes
        );
    }
}

/// A measured time per call replaces the planner's price of the call (procost operator
/// evaluations) in the simulated time; a bad figure is refused.
#[test]
fn function_calls_take_their_measured_time() {
    use costlab_model::plan::{Cost, Name, PlanNode, Work};
    use costlab_sim::time::{FunctionCalls, Simulator};
    let profile = costlab_sim::builtin::find("seed-nvme").unwrap();
    let sim = Simulator::for_release(&profile, costlab_model::knobs::EngineVersion::Pg18).unwrap();
    // 1,000 calls of a COST 5000 function: 5,000,000 evaluations as the planner prices them.
    let node = PlanNode {
        op: Name::from_static("Result"),
        relation: None,
        index: None,
        details: Vec::new(),
        cost: Cost::new(0.0, 12_500.0),
        rows: 1000.0,
        width: 8.0,
        work: Work {
            operator_evals: 1000.0 * 5000.0,
            function_calls: 1000.0,
            rows_out: 1000.0,
            ..Work::default()
        },
        children: Vec::new(),
    };
    let priced = sim.time_plan(&node).unwrap().total_s;
    let measured = sim
        .clone()
        .with_function_calls(FunctionCalls {
            procost: 5000.0,
            ns_per_call: 2500.0,
        })
        .unwrap()
        .time_plan(&node)
        .unwrap()
        .total_s;
    let per_op = profile.cpu_ns_per_operator * 1e-9;
    assert!((priced - 5e6 * per_op).abs() < 1e-9, "{priced}");
    // The calls' 2.5 µs each, plus the one evaluation per call the planner also counts.
    assert!(
        (measured - (1000.0 * 2.5e-6 + 1000.0 * per_op)).abs() < 1e-9,
        "{measured}"
    );
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        assert!(sim
            .clone()
            .with_function_calls(FunctionCalls {
                procost: 5000.0,
                ns_per_call: bad,
            })
            .is_err());
    }
}

/// The call time a schema declares reaches the simulation only when it is one figure for
/// every function (the work counts calls, not which function makes them).
#[test]
fn a_schemas_call_time_is_one_figure_or_an_error() {
    use costlab_model::catalog::Function;
    use costlab_sim::time::FunctionCalls;
    let timed = |name: &str, procost: f64, ns: f64| Function {
        call_ns: Some(ns),
        ..Function::priced(name, procost)
    };
    assert_eq!(FunctionCalls::of(&[]).unwrap(), None);
    assert_eq!(
        FunctionCalls::of(&[Function::priced("f", 100.0)]).unwrap(),
        None
    );
    assert_eq!(
        FunctionCalls::of(&[timed("f", 5000.0, 2500.0), timed("g", 5000.0, 2500.0)]).unwrap(),
        Some(FunctionCalls {
            procost: 5000.0,
            ns_per_call: 2500.0
        })
    );
    for other in [
        Function::priced("g", 5000.0),
        timed("g", 100.0, 2500.0),
        timed("g", 5000.0, 900.0),
    ] {
        let err = FunctionCalls::of(&[timed("f", 5000.0, 2500.0), other])
            .unwrap_err()
            .to_string();
        assert!(err.contains("function g call_ns"), "{err}");
    }
    for bad in [f64::NAN, 0.0, -3.0, 1e13] {
        let err = FunctionCalls::of(&[timed("f", 5000.0, bad)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("not the time of a call"), "{bad}: {err}");
    }
}

/// A parallel plan's workers and leader share the profile's cores (sim::time assumption 9):
/// DBT3 Q6 at SF 1 on PostgreSQL 15's defaults (Finalize Aggregate over a Gather of a
/// Partial Aggregate over a Parallel Seq Scan, 2 workers) runs about 3x its serial plan's
/// speed with unlimited cores and about 2x on 2, which is what a 2-core guest measured
/// (631 ms serial, 347 ms parallel warm: 1.82x). A core count of 0 is refused.
#[test]
fn parallel_plans_share_the_profiles_cores() {
    use crate::compare::WorkloadPlanner;
    use crate::scenario::ServerSettings;
    let mut m = builtin::find("nvme-consumer-gen4").expect("a built-in machine");
    let settings = ServerSettings::preset_for_builtin(&m.id);
    let time = |m: &MachineProfile, workers: f64| {
        let p = WorkloadPlanner::dbt3(EngineVersion::Pg15, 1.0, m, &settings).expect("planner");
        let mut k = KnobValues::defaults(EngineVersion::Pg15, EngineVersion::Mysql80);
        k.set(Knob::MaxParallelWorkersPerGather, workers).unwrap();
        let o = p.outcome(6, &k).expect("Q6");
        (o.time_s, crate::compare::plan_summary(&o.tree))
    };
    let (serial, serial_plan) = time(&m, 0.0);
    let (unlimited, plan) = time(&m, 2.0);
    assert!(plan.contains("Parallel Seq Scan"), "{plan}");
    assert!(!serial_plan.contains("Parallel"), "{serial_plan}");
    m.cpu_cores = Some(2.0);
    let (two_cores, _) = time(&m, 2.0);
    let (s, u, t) = (
        serial / unlimited,
        serial / two_cores,
        two_cores / unlimited,
    );
    assert!((2.5..=3.2).contains(&s), "speedup with unlimited cores {s}");
    assert!((1.7..=2.1).contains(&u), "speedup on 2 cores {u}");
    assert!(t > 1.3, "2 cores slower than unlimited: {t}");
    m.cpu_cores = Some(0.0);
    let err = m.validate().unwrap_err().to_string();
    assert!(err.contains("cpu_cores"), "{err}");
}
