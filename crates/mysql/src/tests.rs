//! Tests of the MySQL model against `mysql-cost-model.md` (§n) and the WL#8737 seed.
//! Expected numbers are the spec's or the seed's; tolerances say how many digits the source
//! prints.

use super::*;
use crate::servers::{wl8737_disk_bound_env, wl8737_in_memory_env};
use costlab_model::knobs::EngineVersion::{Mysql57, Mysql80, Pg18};
use costlab_model::sweep::{self, Spacing};
use costlab_workload::t1::{t1_query, t1_table};

fn knobs(version: costlab_model::knobs::EngineVersion) -> KnobValues {
    KnobValues::defaults(Pg18, version)
}

fn knobs_with(version: costlab_model::knobs::EngineVersion, set: &[(Knob, f64)]) -> KnobValues {
    let mut k = knobs(version);
    for (knob, v) in set {
        k.set(*knob, *v).unwrap();
    }
    k
}

fn plan_t1(fraction: f64, k: &KnobValues, env: &MysqlEnv) -> Planned {
    plan(&t1_table(), &t1_query(fraction).unwrap(), k, env).unwrap()
}

fn cost(p: &Planned, key: &str) -> f64 {
    p.find(key)
        .unwrap_or_else(|| panic!("no candidate {key}: {:?}", keys(p)))
        .plan
        .cost
        .total
}

fn keys(p: &Planned) -> Vec<&str> {
    p.candidates.iter().map(|c| c.key.as_str()).collect()
}

fn sql(s: &str) -> Query {
    Query::parse(s).unwrap()
}

/// `want` printed to whole units (or one decimal): within half a unit of the last digit.
fn assert_printed(got: f64, want: f64, unit: f64, what: &str) {
    assert!(
        (got - want).abs() <= unit / 2.0 + 1e-6,
        "{what}: got {got}, spec prints {want}"
    );
}

/// The range's row estimate on t1 against the spec's `R_est = min(2·f·N, N/2)` (§4.3,
/// §7.1): InnoDB's dive extrapolates the leaves from the pages strictly between the
/// borders, so the model's estimate (btr0cur.cc's walk, mean over 32 placements) lies
/// within three leaf pages (717 entries each), doubled, or 0.5 %, of the spec's round
/// figure, mostly below.
#[track_caller]
fn dive_rows(p: &Planned, key: &str, f: f64) -> f64 {
    let r = p.find(key).unwrap().plan.rows;
    let spec = (2.0 * f * T1_N).min(T1_N / 2.0);
    assert!(
        (r - spec).abs() <= (2.0 * 3.0 * 717.0_f64).max(spec * 5e-3),
        "{key} at {f}: estimate {r}, spec {spec}"
    );
    r
}

// ---- §7.2-§7.4: the worked example on t1 ---------------------------------------------

#[test]
fn table_scan_bar_of_the_worked_example() {
    // §7.2 (a), §7.3 (b), §7.4 (c): TS printed to 0.1.
    for (version, env, want) in [
        (Mysql57, wl8737_in_memory_env(), 2_177_004.1),
        (Mysql80, wl8737_in_memory_env(), 1_044_252.6),
        (Mysql80, wl8737_disk_bound_env(), 1_177_004.1),
    ] {
        let p = plan_t1(0.01, &knobs(version), &env);
        assert_printed(
            cost(&p, "table_scan"),
            want,
            0.1,
            &format!("TS {version:?}"),
        );
    }
}

#[test]
fn spec_7_2_five_seven_defaults_in_memory() {
    // (true fraction, RS with the ×2 estimate, choice, RS with an exact estimate, choice).
    // RS printed to whole units; DS-MRR never considered (table < pool).
    let k = knobs(Mysql57);
    let cases = [
        (0.01, 240_001.0, "range:k7", 120_001.0, "range:k7"),
        (0.05, 1_200_001.0, "range:k7", 600_001.0, "range:k7"),
        (0.09, 2_160_001.0, "range:k7", 1_080_001.0, "range:k7"),
        (0.15, 3_600_001.0, "table_scan", 1_800_001.0, "range:k7"),
        (0.20, 4_800_001.0, "table_scan", 2_400_001.0, "table_scan"),
    ];
    let mut exact_env = wl8737_in_memory_env();
    exact_env.innodb_inexact_estimates = false;
    for (f, rs, choice, rs_exact, choice_exact) in cases {
        let p = plan_t1(f, &k, &wl8737_in_memory_env());
        // The spec's RS at its R_est, the formula at the dive's.
        let r = dive_rows(&p, "range:k7", f);
        let at_spec = spec_range_default(1.0, (2.0 * f * T1_N).min(T1_N / 2.0));
        assert_printed(at_spec, rs, 1.0, &format!("spec's RS at {f}"));
        assert_printed(
            cost(&p, "range:k7"),
            spec_range_default(1.0, r),
            0.01,
            &format!("RS at {f}"),
        );
        assert_eq!(p.chosen().key, choice, "{f}");
        assert!(
            p.find("dsmrr:k7").is_none(),
            "DS-MRR must not be considered"
        );
        let p = plan_t1(f, &k, &exact_env);
        assert_printed(
            cost(&p, "range:k7"),
            rs_exact,
            1.0,
            &format!("exact RS at {f}"),
        );
        assert_eq!(p.chosen().key, choice_exact, "exact {f}");
    }
}

#[test]
fn spec_7_3_eight_zero_defaults_in_memory() {
    // RS = 0.35·R + 0.26, printed to whole units.
    let k = knobs(Mysql80);
    for (f, rs, choice) in [
        (0.01, 70_000.0, "range:k7"),
        (0.05, 350_000.0, "range:k7"),
        (0.09, 630_000.0, "range:k7"),
        (0.15, 1_050_000.0, "table_scan"),
        (0.20, 1_400_000.0, "table_scan"),
    ] {
        let p = plan_t1(f, &k, &wl8737_in_memory_env());
        let r = dive_rows(&p, "range:k7", f);
        let rs_at = |r: f64| 0.35 * r + 0.26;
        assert_printed(
            rs_at((2.0 * f * T1_N).min(T1_N / 2.0)),
            rs,
            1.0,
            &format!("spec's RS at {f}"),
        );
        assert_printed(cost(&p, "range:k7"), rs_at(r), 0.01, &format!("RS at {f}"));
        assert_eq!(p.chosen().key, choice, "{f}");
    }
}

#[test]
fn spec_7_4_eight_zero_defaults_one_gib_pool() {
    // Default MRR printed to whole units; DS-MRR within 0.1% (the spec computes its sweep
    // with a slightly different data_file_length).
    let k = knobs(Mysql80);
    for (f, default, dsmrr, choice) in [
        (0.01, 220_001.0, 210_172.0, "dsmrr:k7"),
        (0.05, 1_100_001.0, 1_049_768.0, "dsmrr:k7"),
        (0.09, 1_980_001.0, 1_889_011.0, "table_scan"),
        (0.15, 3_300_001.0, 3_147_536.0, "table_scan"),
        (0.20, 4_400_001.0, 4_196_320.0, "table_scan"),
    ] {
        let p = plan_t1(f, &k, &wl8737_disk_bound_env());
        // RS_default = 1.1·R + 1.01 at the dive's R; the spec's figures at 2·f·N, within
        // the dive's few leaf pages (0.5 %).
        let r = dive_rows(&p, "range:k7", f);
        assert_printed(
            cost(&p, "range:k7"),
            1.1 * r + 1.01,
            0.01,
            &format!("default at {f}"),
        );
        assert!((cost(&p, "range:k7") / default - 1.0).abs() < 1e-2);
        let ds = cost(&p, "dsmrr:k7");
        assert!(
            (ds - dsmrr).abs() / dsmrr < 1e-2,
            "DS-MRR at {f}: {ds} vs {dsmrr}"
        );
        assert_eq!(p.chosen().key, choice, "{f}");
    }
    // "≈ 1.05·R" (§4.4 worked per-row numbers, §7.4).
    let p = plan_t1(0.05, &k, &wl8737_disk_bound_env());
    let per_row = cost(&p, "dsmrr:k7") / 1_000_000.0;
    assert!((1.04..1.06).contains(&per_row), "{per_row}");
}

#[test]
fn spec_7_4_one_full_dsmrr_step() {
    // "A full 65,536-rowid step costs 62,131 (sweep ≈ 56,888, sort ≈ 5,243)": within 0.1%.
    let t = t1_table();
    let h = Handler {
        stats: t.mysql.as_ref().unwrap(),
        c: Constants::from_knobs(&knobs(Mysql80), false).unwrap(),
        f_tab: 0.0,
    };
    let cap = dsmrr::rowids_per_buffer(&h, 262_144.0);
    assert_eq!(cap, 65_536.0);
    let sweep = dsmrr::get_sweep_read_cost(&h, cap);
    let step = dsmrr::get_sort_and_sweep_cost(&h, cap);
    assert!((sweep - 56_888.0).abs() / 56_888.0 < 1e-3, "{sweep}");
    assert!((step - sweep - 5_243.0).abs() < 1.0, "{}", step - sweep);
    assert!((step - 62_131.0).abs() / 62_131.0 < 1e-3, "{step}");
}

#[test]
fn spec_7_4_thirty_percent_cached() {
    // f_tab = 0.3: prc = 0.775, TS = 1,137,178.7, RS = 0.875·R + 0.785.
    let mut env = wl8737_disk_bound_env();
    env.table_in_memory = Some(0.3);
    let p = plan_t1(0.05, &knobs(Mysql80), &env);
    assert_printed(cost(&p, "table_scan"), 1_137_178.7, 0.1, "TS");
    let r = dive_rows(&p, "range:k7", 0.05);
    assert_printed(cost(&p, "range:k7"), 0.875 * r + 0.785, 0.01, "RS");
}

// ---- §7.5 / seed: where the plan switches --------------------------------------------

/// The true fraction at which the range plan gives way to the table scan, found by
/// bisection on the model (sweep.rs) over 0.05%..20% of the rows.
fn switch_to_table_scan(k: &KnobValues, env: &MysqlEnv) -> Option<f64> {
    let s = sweep::sweep(
        |f| plan(&t1_table(), &t1_query(f)?, k, env),
        0.0005,
        0.20,
        41,
        Spacing::Linear,
    )
    .unwrap();
    s.first_to("table_scan").map(|c| c.x)
}

// An independent transcription of spec §4.1, §4.3, §4.4 and §7.1 for t1 (N = 10M rows,
// P = 177,002 16 kB pages, data_file_length = P × 16384, 4-byte rowids, k7 with 1,025
// entries per index page) under 5.7's server constants (row_evaluate_cost 0.2,
// key_compare_cost 0.1), memory_block_read_cost 1.0. Each switch point is where the range's
// cost, at InnoDB's doubled row estimate R = 2·f·N (§4.3), meets the table scan's.

const T1_N: f64 = 10_000_000.0;
const T1_P: f64 = 177_002.0;
const REC_57: f64 = 0.2;
const KC_57: f64 = 0.1;

/// §4.1: `TS = P·prc + 1.1 + N·rec + 1`.
fn spec_table_scan(prc: f64) -> f64 {
    T1_P * prc + 1.1 + T1_N * REC_57 + 1.0
}

/// §4.3, one range, not covering: `(1 + R)·prc + R·rec + 0.01`.
fn spec_range_default(prc: f64, r: f64) -> f64 {
    (1.0 + r) * prc + r * REC_57 + 0.01
}

/// §4.4 with f_tab = f_idx = 0 (table and indexes larger than the 1 GiB pool, §7.4).
fn spec_range_dsmrr(io: f64, r: f64) -> f64 {
    let nb = (T1_P * 16_384.0 / 4096.0).ceil();
    let sweep = |n: f64| {
        let busy = (nb * (1.0 - (1.0 - 1.0 / nb).powf(n))).max(1.0);
        let dist = if busy > 1.0 { nb / busy } else { nb };
        (busy * io).min(busy * io * (0.9 + 0.1 / 128.0 * dist))
    };
    let ss = |n: f64| {
        if n <= 0.0 {
            0.0
        } else {
            sweep(n) + n * n.log2() * KC_57 / 10.0
        }
    };
    let cap = 262_144.0 / 4.0;
    let full = (r / cap).floor();
    let kpb = (16_384.0_f64 / 2.0 / (4.0 + 4.0)).floor() + 1.0;
    full * ss(cap) + ss(r - full * cap) + (r + kpb - 1.0) / kpb * io + r * REC_57
}

/// The true fraction at which `range_cost(R)` reaches the table scan's `ts`, R = 2·f·N.
fn spec_switch(ts: f64, range_cost: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (1.0, T1_N / 2.0);
    for _ in 0..200 {
        let m = (lo + hi) / 2.0;
        if range_cost(m) < ts {
            lo = m;
        } else {
            hi = m;
        }
    }
    lo / (2.0 * T1_N)
}

/// The model's switch against the formulas: relative 5e-3 (the sweep bisects to 1e-9;
/// the margin is for InnoDB's estimate, which is 2·f·N less the leaf pages or so the
/// dive's extrapolation misses, `dive_rows`: it moves a 4.3 % switch by 0.01 points).
#[track_caller]
fn assert_switch(what: &str, model: f64, spec: f64) {
    eprintln!(
        "{what}: model {:.5} %, spec formulas {:.5} %",
        model * 100.0,
        spec * 100.0
    );
    assert!(
        (model / spec - 1.0).abs() <= 5e-3,
        "{what}: model switches at {model}, the formulas at {spec}"
    );
}

#[test]
fn seed_switch_points_in_memory() {
    // Seed (36 GB pool, 5.7 server constants): the switch from range to table scan happens
    // at "about 9%" with memory_block_read_cost 1.0, "about 15%" with 0.5, and "beyond 20%"
    // with 0.2. Spec §7.5 computes 9.07%, 14.92% and "never" (the range's estimate would
    // need 50.9 % of the rows, over InnoDB's N/2 cap). In memory prc = mbrc and DS-MRR is
    // not considered (table smaller than the pool).
    for mbrc in [1.0, 0.5] {
        let k = knobs_with(Mysql57, &[(Knob::MemoryBlockReadCost, mbrc)]);
        let x = switch_to_table_scan(&k, &wl8737_in_memory_env())
            .unwrap_or_else(|| panic!("no switch with mbrc {mbrc}"));
        let spec = spec_switch(spec_table_scan(mbrc), |r| spec_range_default(mbrc, r));
        assert_switch(&format!("in memory, mbrc {mbrc}"), x, spec);
    }
    let k = knobs_with(Mysql57, &[(Knob::MemoryBlockReadCost, 0.2)]);
    assert_eq!(switch_to_table_scan(&k, &wl8737_in_memory_env()), None);
}

#[test]
fn seed_switch_points_disk_bound() {
    // Seed (1 GB pool): "about 4%" with io_block_read_cost 2.0 and 3.0, "about 3%" with 4.0.
    // DS-MRR is chosen here (mrr_cost_based=on, table larger than the pool, DS-MRR cheaper
    // than the default MRR at the switch); spec §7.5 computes 5.6 %, 4.3 % and 3.5 %. Each
    // setting is asserted at its own switch point, so 2.0 and 3.0 (1.3 points apart) are
    // told apart; the seed's one "about 4%" for both is coarser than either (spec §7.5:
    // io 2.0 predicts 5.4-5.6 % against the reported ~4 %).
    for io in [2.0, 3.0, 4.0] {
        let k = knobs_with(Mysql57, &[(Knob::IoBlockReadCost, io)]);
        let x = switch_to_table_scan(&k, &wl8737_disk_bound_env())
            .unwrap_or_else(|| panic!("no switch with io {io}"));
        let spec = spec_switch(spec_table_scan(io), |r| {
            spec_range_dsmrr(io, r).min(spec_range_default(io, r))
        });
        assert!(
            spec_range_dsmrr(io, spec * 2.0 * T1_N) <= spec_range_default(io, spec * 2.0 * T1_N),
            "io {io}: DS-MRR is the cheaper range at the switch"
        );
        assert_switch(&format!("1 GiB pool, io {io}"), x, spec);
    }
}

#[test]
fn eight_zero_defaults_switch_like_alt2_five_seven() {
    // §1.2: 8.0 defaults = (5.7 server constants, mbrc 0.5, io 2.0) / 2, so every plan and
    // every crossover is the same -- up to the unscaled fudge terms (+2.1, +0.01), which
    // move the crossover by a few rows out of 10M: tolerance 1e-5 (100 rows).
    let alt2 = knobs_with(
        Mysql57,
        &[
            (Knob::MemoryBlockReadCost, 0.5),
            (Knob::IoBlockReadCost, 2.0),
        ],
    );
    for env in [wl8737_in_memory_env(), wl8737_disk_bound_env()] {
        let a = switch_to_table_scan(&alt2, &env).unwrap();
        let b = switch_to_table_scan(&knobs(Mysql80), &env).unwrap();
        assert!((a - b).abs() <= 1e-5, "{a} vs {b}");
    }
}

// ---- choice rules, other access paths ------------------------------------------------

#[test]
fn equality_on_an_index_is_ref_access() {
    // §5.2: the range on the same key parts cannot beat the ref (heuristic 2).
    let p = plan(
        &t1_table(),
        &sql("SELECT * FROM t1 WHERE i7 = 5 AND i8 = 2"),
        &knobs(Mysql80),
        &wl8737_in_memory_env(),
    )
    .unwrap();
    assert_eq!(p.chosen().key, "ref:k7");
    let node = &p.chosen().plan;
    assert_eq!(node.op, "ref");
    assert_eq!(node.rows, 1.0);
    let text = explain_text(&p);
    assert!(text.contains("| ref "), "{text}");
    assert!(text.contains("const"), "{text}");
    assert!(text.contains("10.00"), "{text}");
}

#[test]
fn primary_key_equality_is_const() {
    let p = plan(
        &t1_table(),
        &sql("SELECT * FROM t1 WHERE pk = 42"),
        &knobs(Mysql80),
        &wl8737_in_memory_env(),
    )
    .unwrap();
    assert_eq!(p.chosen().key, "const:PRIMARY");
}

#[test]
fn in_list_is_one_range_per_value() {
    // §4.3: n ranges, R rows: (n + R)·prc + R·rec + 0.01; 5.7 in memory prc = 1, rec = 0.2.
    let p = plan(
        &t1_table(),
        &sql("SELECT * FROM t1 WHERE i7 IN (10, 20, 30, 20)"),
        &knobs(Mysql57),
        &wl8737_in_memory_env(),
    )
    .unwrap();
    assert_eq!(p.chosen().key, "range:k7");
    assert_eq!(p.chosen().plan.rows, 3.0);
    assert!((cost(&p, "range:k7") - (6.0 + 0.6 + 0.01)).abs() < 1e-9);
}

#[test]
fn covering_range_and_covering_index_scan() {
    let k = knobs(Mysql57);
    let env = wl8737_in_memory_env();
    // k7 holds i7 and the PK: index-only range, cost ceil-ish(R/kpb)·prc + R·rec + 0.01
    // with kpb = 8192/8 + 1 = 1025 (§7.1).
    let p = plan(
        &t1_table(),
        &sql("SELECT pk, i7 FROM t1 WHERE i7 BETWEEN 0 AND 99999"),
        &k,
        &env,
    )
    .unwrap();
    assert_eq!(p.chosen().key, "covering:k7");
    let r = p.chosen().plan.rows;
    let want = (r + 1024.0) / 1025.0 + 0.2 * r + 0.01;
    assert!((cost(&p, "covering:k7") - want).abs() < 1e-6);
    assert!(explain_text(&p).contains("Using index"));
    // No usable range: the shortest covering key is scanned (§4.5 post-join switch).
    let p = plan(&t1_table(), &sql("SELECT pk FROM t1"), &k, &env).unwrap();
    assert_eq!(p.chosen().key, "index_scan:k1");
    assert_eq!(p.chosen().plan.op, "index");
}

#[test]
fn contradiction_is_an_impossible_where() {
    let p = plan(
        &t1_table(),
        &sql("SELECT * FROM t1 WHERE i7 > 5 AND i7 < 3"),
        &knobs(Mysql80),
        &MysqlEnv::default(),
    )
    .unwrap();
    assert_eq!(p.chosen().key, "impossible");
    assert!(explain_text(&p).contains("Impossible WHERE"));
}

#[test]
fn mrr_cost_based_off_uses_dsmrr_whenever_allowed() {
    // §4.4: with mrr_cost_based=off DS-MRR is used when eligible, at min(dsmrr, default),
    // even with a pool larger than the table.
    let k = knobs_with(Mysql80, &[(Knob::MrrCostBased, 0.0)]);
    let p = plan_t1(0.01, &k, &wl8737_in_memory_env());
    assert_eq!(p.chosen().key, "dsmrr:k7");
    assert!(cost(&p, "dsmrr:k7") <= cost(&p, "range:k7"));
    let text = explain_text(&p);
    assert!(text.contains("Using where; Using MRR"), "{text}");
    // And with mrr=off, never.
    let mut env = wl8737_in_memory_env();
    env.mrr = false;
    assert!(plan_t1(0.01, &k, &env).find("dsmrr:k7").is_none());
}

#[test]
fn dsmrr_needs_more_than_fifty_rows_when_cost_based() {
    // §4.4 gate: R > 50.
    let p = plan(
        &t1_table(),
        &sql("SELECT * FROM t1 WHERE i7 > 100 AND i7 < 140"),
        &knobs(Mysql80),
        &wl8737_disk_bound_env(),
    )
    .unwrap();
    assert_eq!(p.chosen().key, "range:k7");
    assert!(p.find("dsmrr:k7").is_none());
}

#[test]
fn float_constants_from_tables_shift_near_ties() {
    // §1.3: 0.2 read from mysql.server_cost is 0.2000000029802...; over 1e7 rows TS moves
    // by about 0.03.
    let mut env = wl8737_in_memory_env();
    env.constants_from_tables = true;
    let p = plan_t1(0.01, &knobs(Mysql57), &env);
    let shift = cost(&p, "table_scan") - 2_177_004.1;
    let want = ((0.2f32 as f64) - 0.2) * 1e7;
    assert!((shift - want).abs() < 1e-6, "{shift}");
}

#[test]
fn explain_text_of_the_seed_query() {
    let p = plan_t1(0.01, &knobs(Mysql80), &wl8737_disk_bound_env());
    let text = explain_text(&p);
    eprintln!("{text}");
    for c in &p.candidates {
        eprintln!(
            "{:>14} {:>14.2} {:?}",
            c.key, c.plan.cost.total, c.plan.details
        );
    }
    let r = dive_rows(&p, "dsmrr:k7", 0.01);
    let rows = format!("| {r} |");
    for want in [
        "| id | select_type | table | partitions | type  |",
        "| range |",
        "| k7 ",
        rows.as_str(),
        "10.00",
        "Using where; Using MRR",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    let json_cost = p
        .chosen()
        .plan
        .details
        .iter()
        .find_map(|d| d.strip_prefix("query_cost: "))
        .unwrap()
        .parse::<f64>()
        .unwrap();
    // §5.2 note: query_cost ≈ range cost + R_est·rec.
    assert!((json_cost - (cost(&p, "dsmrr:k7") + 0.1 * r)).abs() < 0.01);
}

// ---- work ------------------------------------------------------------------------------

#[test]
fn work_counts_pages_and_rows_without_constants() {
    let t = t1_table();
    let env = wl8737_disk_bound_env();
    let a = plan_t1(0.01, &knobs(Mysql80), &env);
    let b = plan_t1(
        0.01,
        &knobs_with(Mysql57, &[(Knob::IoBlockReadCost, 4.0)]),
        &env,
    );
    for key in ["table_scan", "range:k7", "dsmrr:k7"] {
        assert_eq!(
            a.find(key).unwrap().plan.work,
            b.find(key).unwrap().plan.work,
            "{key}: work must not depend on constants"
        );
    }
    let scan = &a.find("table_scan").unwrap().plan.work;
    assert_eq!(scan.page_reads[0].requests, 177_002.0);
    assert_eq!(scan.page_reads[0].pattern, AccessPattern::Sequential);
    assert_eq!(scan.rows_examined, t.rows);
    // 1% of rows in the range, i8 = 2 keeps a tenth of them.
    assert!((scan.rows_out - 10_000.0).abs() < 1e-6);

    let range = &a.find("range:k7").unwrap().plan.work;
    let heap = range.page_reads.iter().find(|r| r.object == "t1").unwrap();
    assert_eq!(heap.pattern, AccessPattern::Random);
    assert!((heap.requests - 100_000.0).abs() < 1e-6);
    // Cardenas: P·(1 - (1 - 1/P)^R), within a page of its limit P·(1 - e^(-R/P)).
    let p: f64 = 177_002.0;
    let approx = p * (1.0 - (-100_000.0 / p).exp());
    assert!((heap.distinct - approx).abs() < 1.0, "{}", heap.distinct);
    assert_eq!(range.rows_examined, 100_000.0);
    assert_eq!(range.index_entries, 100_000.0);
    let leaves = range.page_reads.iter().find(|r| r.object == "k7").unwrap();
    assert_eq!(leaves.pattern, AccessPattern::Sequential);

    let ds = &a.find("dsmrr:k7").unwrap().plan.work;
    let heap = ds.page_reads.iter().find(|r| r.object == "t1").unwrap();
    assert_eq!(heap.pattern, AccessPattern::Sorted);
    assert!(heap.requests < 100_000.0);
    assert!(ds.comparisons > 0.0);
}

// ---- bad input -------------------------------------------------------------------------

#[test]
fn bad_input_is_a_typed_error() {
    let k = knobs(Mysql80);
    let env = MysqlEnv::default();
    let q = t1_query(0.01).unwrap();

    let mut t = t1_table();
    t.columns[7].stats.null_frac = f64::NAN;
    assert!(matches!(
        plan(&t, &q, &k, &env),
        Err(Error::NotFinite { .. })
    ));

    let mut t = t1_table();
    t.mysql.as_mut().unwrap().records = -5.0;
    assert!(matches!(
        plan(&t, &q, &k, &env),
        Err(Error::OutOfRange { .. })
    ));

    let mut t = t1_table();
    t.indexes[7].mysql.as_mut().unwrap().leaf_pages = f64::NAN;
    assert!(plan(&t, &q, &k, &env).is_err());

    let q2 = sql("SELECT * FROM t1 WHERE nope = 1");
    assert!(matches!(
        plan(&t1_table(), &q2, &k, &env),
        Err(Error::UnknownColumn { .. })
    ));

    assert!(matches!(t1_query(1.01), Err(Error::OutOfRange { .. })));
    assert!(matches!(t1_query(f64::NAN), Err(Error::NotFinite { .. })));

    let bad_env = MysqlEnv {
        table_in_memory: Some(1.5),
        ..MysqlEnv::default()
    };
    assert!(plan(&t1_table(), &q, &k, &bad_env).is_err());

    let mut t = t1_table();
    t.mysql = None;
    assert!(matches!(plan(&t, &q, &k, &env), Err(Error::Invalid { .. })));

    let mut nan_q = q.clone();
    nan_q.predicates[0] = Predicate::Cmp {
        column: "i7".into(),
        op: CmpOp::Gt,
        value: costlab_model::catalog::Value::Num(f64::NAN),
    };
    assert!(matches!(
        plan(&t1_table(), &nan_q, &k, &env),
        Err(Error::NotFinite { .. })
    ));
}

// ---- properties ------------------------------------------------------------------------

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Unscaled fudge terms (+1.1 + 1 in TS, +0.01 per range, +1 + 1 in the LIMIT bar):
    /// the only parts of any cost that do not scale with the constants (§8 flaw 2).
    const FUDGE: f64 = 2.1;

    fn mysql_knob_values() -> impl Strategy<Value = KnobValues> {
        let ks: Vec<Knob> = Knob::for_engine(costlab_model::knobs::Engine::Mysql).collect();
        proptest::collection::vec(0.0f64..=1.0, ks.len()).prop_map(move |pos| {
            let mut v = knobs(Mysql80);
            for (k, p) in ks.iter().zip(pos) {
                v.set(*k, k.def().from_position(p)).unwrap();
            }
            v
        })
    }

    fn env_strategy() -> impl Strategy<Value = MysqlEnv> {
        (
            0.0f64..1e11,
            proptest::option::of(0.0f64..=1.0),
            0.0f64..=1.0,
            1.0f64..1e7,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(pool, tab, idx, rrb, mrr, f32s, bias)| MysqlEnv {
                innodb_buffer_pool_size: pool,
                table_in_memory: tab,
                index_in_memory: vec![("k7".into(), idx)],
                read_rnd_buffer_size: rrb,
                mrr,
                eq_range_index_dive_limit: 200.0,
                constants_from_tables: f32s,
                innodb_inexact_estimates: bias,
            })
    }

    fn query_strategy() -> impl Strategy<Value = Query> {
        prop_oneof![
            (0.0f64..=1.0).prop_map(|f| t1_query(f).unwrap()),
            (0.0f64..1e7, 0.0f64..1e7).prop_map(|(a, b)| sql(&format!(
                "SELECT pk, i7 FROM t1 WHERE i7 BETWEEN {} AND {}",
                a.min(b).round(),
                a.max(b).round()
            ))),
            (0.0f64..1e7).prop_map(|a| sql(&format!(
                "SELECT * FROM t1 WHERE i7 = {} AND i3 > 5",
                a.round()
            ))),
            (0.0f64..1e7, 1.0f64..1e6).prop_map(|(a, l)| sql(&format!(
                "SELECT * FROM t1 WHERE i2 >= {} AND i8 IN (1, 2, 3) LIMIT {}",
                a.round(),
                l.round()
            ))),
        ]
    }

    fn check_costs(p: &Planned) {
        assert!(p.chosen < p.candidates.len());
        for c in &p.candidates {
            let n = &c.plan;
            for x in [n.cost.total, n.cost.startup, n.rows] {
                assert!(x.is_finite() && x >= 0.0, "{}: {x}", c.key);
            }
            let w = &n.work;
            for x in [
                w.rows_examined,
                w.index_entries,
                w.operator_evals,
                w.rows_out,
                w.comparisons,
            ] {
                assert!(x.is_finite() && x >= 0.0, "{} work: {x}", c.key);
            }
            for r in &w.page_reads {
                assert!(r.requests.is_finite() && r.requests >= 0.0);
                assert!(r.distinct.is_finite() && r.distinct <= r.requests + 1e-9);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn scaling_all_constants_changes_no_plan(
            k in mysql_knob_values(),
            env in env_strategy(),
            q in query_strategy(),
            factor in prop_oneof![Just(0.5), Just(2.0), Just(10.0), 0.01f64..100.0],
        ) {
            // §1.2 and Bug #75695 (§8): every cost is linear in the constants, so a uniform
            // rescaling keeps the plan -- exactly, except when the winner's margin is within
            // what the unscaled fudge terms can move.
            let mut env = env;
            env.constants_from_tables = false;
            let t = t1_table();
            let a = plan(&t, &q, &k, &env).unwrap();
            let mut scaled = k.clone();
            scaled.scale_costs(costlab_model::knobs::Engine::Mysql, factor);
            let b = plan(&t, &q, &scaled, &env).unwrap();
            let winner = a.chosen().plan.cost.total;
            let margin = a
                .candidates
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != a.chosen)
                .map(|(_, c)| (c.plan.cost.total - winner).abs())
                .fold(f64::INFINITY, f64::min);
            let slack = FUDGE * (1.0 - factor).abs() / factor.min(1.0) + 1e-9 * winner.max(1.0);
            if margin > slack {
                prop_assert_eq!(&a.chosen().key, &b.chosen().key);
            }
        }

        #[test]
        fn costs_are_finite_and_non_negative(
            k in mysql_knob_values(),
            env in env_strategy(),
            q in query_strategy(),
        ) {
            let p = plan(&t1_table(), &q, &k, &env).unwrap();
            check_costs(&p);
        }

        #[test]
        fn plan_never_panics_on_random_statistics(
            records in 0.0f64..1e12,
            pages in 0.0f64..1e10,
            sec in 0.0f64..1e10,
            leaf in 0.0f64..1e10,
            key_length in 1.0f64..3072.0,
            ref_length in 1.0f64..3072.0,
            page_bytes in 1024.0f64..65536.0,
            rows in 0.0f64..1e12,
            env in env_strategy(),
            k in mysql_knob_values(),
            q in query_strategy(),
        ) {
            let mut t = t1_table();
            t.rows = rows;
            let m = t.mysql.as_mut().unwrap();
            m.records = records;
            m.clustered_pages = pages;
            m.secondary_pages = sec;
            m.page_bytes = page_bytes;
            m.ref_length = ref_length;
            for i in &mut t.indexes {
                let mi = i.mysql.as_mut().unwrap();
                mi.leaf_pages = leaf;
                mi.key_length = key_length;
            }
            if let Ok(p) = plan(&t, &q, &k, &env) {
                check_costs(&p);
            }
        }
    }
}
