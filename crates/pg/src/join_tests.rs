//! Tests of PostgreSQL's join planner over the DBT3 queries: the cost functions on the
//! worked inputs of `postgresql-join-cost-model.md` §9 (checked there against a PG 15
//! server at SF 1), every query at every scale, and random knob settings.

use crate::join::{
    agg, choose_hash_table_size, eqjoinsel_inner, eqjoinsel_semi, hashjoin, index_loop_cost,
    mergejoin, nestloop, sort, AggCosts, AggStrategy, BucketInput, In, IndexLoopInput, JKind,
    JoinConsts, PgJoinEnv, PgJoinPlan, PgJoinPlanner, Qual, ScanSel, SemiFactors, VarStats,
};
use crate::pathnodes::Consts;
use costlab_model::knobs::{EngineVersion, Knob, KnobValues};
use costlab_model::plan::{AccessPattern, PlanNode};
use costlab_workload::dbt3::catalog::{dbt3, Dbt3};
use costlab_workload::dbt3::queries::{all, query};
use proptest::prelude::*;
use std::sync::OnceLock;

fn knobs() -> KnobValues {
    let mut k = KnobValues::defaults(EngineVersion::Pg15, EngineVersion::Mysql80);
    k.set(Knob::MaxParallelWorkersPerGather, 0.0).unwrap();
    k
}

/// PG15 defaults: work_mem 4 MB, hash_mem_multiplier 2.
fn jc() -> JoinConsts {
    let c = Consts::from_knobs(&knobs()).unwrap();
    let hash_mem = c.work_mem_bytes() * 2.0;
    JoinConsts {
        c,
        hash_mem,
        bump_hash_entries: false,
    }
}

const COP: f64 = 0.0025;

fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn input(startup: f64, total: f64, rows: f64, width: f64) -> In {
    In {
        startup,
        total,
        rows,
        width,
    }
}

fn var(nd: f64, rows: f64, tuples: f64) -> VarStats<'static> {
    VarStats {
        nd,
        nd_default: false,
        nullfrac: 0.0,
        mcv: &[],
        hist: &[],
        rows,
        tuples,
        unique: false,
    }
}

// ---- §9.1 Q14 ------------------------------------------------------------------------

#[test]
fn q14_hash_table_size_is_two_batches() {
    // §3.2's example: part, 200,000 rows of width 25.
    assert_eq!(
        choose_hash_table_size(200_000.0, 25.0, 8_388_608.0),
        (131_072.0, 2.0)
    );
}

#[test]
fn q14_unique_inner_hash_join_and_plain_aggregate() {
    let jc = jc();
    let outer = input(0.0, 202_522.62, 76_060.0, 16.0);
    let inner = input(0.0, 6_097.0, 200_000.0, 25.0);
    // Inner selectivity 1/max(192,388, 200,000); the unique inner's factors use it (§3.3).
    let sel = 1.0 / 200_000.0;
    let bucket = BucketInput {
        nd: 200_000.0,
        nd_default: false,
        nullfrac: 0.0,
        mcv_freq: 0.0,
        rel_rows: 200_000.0,
        rel_tuples: 200_000.0,
    };
    let c = hashjoin(
        &jc,
        outer,
        inner,
        1,
        &[bucket],
        JKind::Inner,
        Some(SemiFactors::new(sel, sel, 200_000.0)),
        Qual {
            startup: 0.0,
            per_tuple: COP,
        },
        Qual::default(),
        sel,
    );
    assert_eq!(cents(c.startup), 9_965.00);
    assert_eq!(cents(c.total), 214_799.28);
    assert_eq!(c.nbatch, 2.0);
    // Aggregate: 7 operator calls per row, 2 numeric final functions (§5.1, §9.1).
    let a = AggCosts {
        trans_per_tuple: 7.0 * COP,
        calls_per_tuple: 0.0,
        final_per_group: 2.0 * COP,
        num_trans: 2.0,
        transition_space: 256.0,
        ..AggCosts::default()
    };
    let (s, t, _) = agg(
        &jc,
        AggStrategy::Plain,
        &a,
        0.0,
        1.0,
        input(c.startup, c.total, 76_060.0, 16.0),
    );
    assert_eq!(cents(s), 216_130.33);
    // + the target list's 100.00 * x / y; the spec prints .35 for this sum.
    assert!((t + 2.0 * COP - 216_130.35).abs() < 0.011, "{t}");
}

// ---- §9.2 Q12 ------------------------------------------------------------------------

#[test]
fn q12_index_scan_sort_merge_join_and_group_aggregate() {
    let jc = jc();
    // Full index scan of orders_pkey, correlation 1.
    let ix = index_loop_cost(
        &jc.c,
        &IndexLoopInput {
            heap_pages: 26_095.0,
            heap_tuples: 1_500_000.0,
            index_pages: 4_116.0,
            index_tuples: 1_500_000.0,
            tree_height: 2.0,
            selectivity: 1.0,
            n_quals: 0.0,
            unique_all_eq: false,
            loop_count: 1.0,
            total_table_pages: 138_598.0,
            correlation: 1.0,
            index_only: None,
            qpqual: Qual::default(),
        },
    );
    assert_eq!(cents(ix.startup), 0.43);
    assert_eq!(cents(ix.total), 65_062.43);
    // The inner sort of 29,297 lineitem rows.
    let (ss, st, _, _) = sort(&jc, input(0.0, 247_532.43, 29_297.0, 15.0), -1.0);
    assert_eq!(cents(ss), 249_706.04);
    assert_eq!(cents(st), 249_779.29);
    // mergejoinscansel: the outer ends at l_orderkey's histogram end, the inner skips
    // one row below o_orderkey's start (§9.2).
    let ss_sel = ScanSel {
        outerstart: 0.0,
        outerend: (99.0 + 60_768.0 / 60_960.0) / 100.0,
        innerstart: 4.0e-5,
        innerend: 1.0,
    };
    let mj = mergejoin(
        &jc,
        input(ix.startup, ix.total, 1_500_000.0, 20.0),
        input(ss, st, 29_297.0, 15.0),
        ss_sel,
        false,
        true,
        true,
        true,
        Qual {
            startup: 0.0,
            per_tuple: COP,
        },
        Qual::default(),
        29_297.0,
    );
    assert!(!mj.materialize_inner);
    assert_eq!(cents(mj.startup), 249_706.48);
    assert_eq!(cents(mj.total), 318_955.77);
    let (gs, gt, _, _) = sort(&jc, input(mj.startup, mj.total, 29_297.0, 27.0), -1.0);
    assert_eq!(cents(gs), 321_129.38);
    assert_eq!(cents(gt), 321_202.62);
    // Two int sums of CASE expressions: 6 calls per row, no final function, 1 key.
    let a = AggCosts {
        trans_per_tuple: 6.0 * COP,
        calls_per_tuple: 0.0,
        final_per_group: 0.0,
        num_trans: 2.0,
        transition_space: 0.0,
        ..AggCosts::default()
    };
    let (s, t, _) = agg(
        &jc,
        AggStrategy::Sorted,
        &a,
        1.0,
        7.0,
        input(gs, gt, 29_297.0, 27.0),
    );
    assert_eq!(cents(s), 321_129.38);
    assert_eq!(cents(t), 321_715.39);
}

// ---- §9.3 Q4 -------------------------------------------------------------------------

#[test]
fn q4_semi_selectivity_parameterized_probe_and_semi_nested_loop() {
    let jc = jc();
    // eqjoinsel_semi without MCVs: nd1 1.5e6 > nd2 390,538.
    let o = var(1_500_000.0, 56_958.0, 1_500_000.0);
    let l = var(390_538.0, 2_000_436.0, 6_001_308.0);
    let semi = eqjoinsel_semi(&o, &l, 2_000_436.0);
    assert!((semi - 0.260_358_7).abs() < 1e-7, "{semi}");
    assert_eq!((56_958.0 * semi).round(), 14_830.0);
    let inner_sel = eqjoinsel_inner(&o, &l);
    assert_eq!(inner_sel, 1.0 / 1_500_000.0);
    // The lineitem_pkey probe with loop_count = rows(orders) (§2.3).
    let corr = (0.999_999_76f32 as f64) * 0.75;
    let probe = index_loop_cost(
        &jc.c,
        &IndexLoopInput {
            heap_pages: 112_503.0,
            heap_tuples: 6_001_308.0,
            index_pages: 16_457.0,
            index_tuples: 6_001_308.0,
            tree_height: 2.0,
            selectivity: 1.0 / 390_538.0,
            n_quals: 1.0,
            unique_all_eq: false,
            loop_count: 56_958.0,
            total_table_pages: 138_598.0,
            correlation: corr,
            index_only: None,
            qpqual: Qual {
                startup: 0.0,
                per_tuple: COP,
            },
        },
    );
    assert_eq!(probe.index_tuples, 15.0);
    assert!((probe.startup - 0.4325).abs() < 1e-9);
    assert!((probe.total - 7.1403).abs() < 5e-5, "{}", probe.total);
    let f = SemiFactors::new(semi, inner_sel, 2_000_436.0);
    assert!((f.match_count - 5.1223).abs() < 1e-4, "{}", f.match_count);
    let nl = nestloop(
        &jc,
        input(0.0, 48_595.0, 56_958.0, 20.0),
        input(probe.startup, probe.total, 5.0, 0.0),
        (probe.startup, probe.total),
        JKind::Semi,
        Some(f),
        true,
        Qual::default(),
        14_830.0,
    );
    assert_eq!(cents(nl.startup), 0.43);
    // The spec's inputs are the printed 7.14 / 0.4325; to the cent of EXPLAIN's 162,486.03.
    assert!((nl.total - 162_486.03).abs() < 0.05, "{}", nl.total);
}

// ---- §9.4 Q3 -------------------------------------------------------------------------

#[test]
fn q3_unique_inner_hash_join_and_spilling_hash_aggregate() {
    let jc = jc();
    let sel = 1.0 / 150_000.0;
    let bucket = BucketInput {
        nd: 150_000.0,
        nd_default: false,
        nullfrac: 0.0,
        mcv_freq: 0.0,
        rel_rows: 30_130.0,
        rel_tuples: 150_000.0,
    };
    let hj = hashjoin(
        &jc,
        input(0.0, 44_845.0, 725_137.0, 16.0),
        input(0.0, 5_460.0, 30_130.0, 4.0),
        1,
        &[bucket],
        JKind::Inner,
        Some(SemiFactors::new(sel, sel, 30_130.0)),
        Qual {
            startup: 0.0,
            per_tuple: COP,
        },
        Qual::default(),
        sel,
    );
    assert!((hj.startup - 5_836.625).abs() < 1e-9);
    assert_eq!(cents(hj.total), 52_585.17);
    assert_eq!((725_137.0 * 30_130.0 * sel).round(), 145_656.0);
    // HashAggregate over 313,555 rows of width 24, 3 keys, one numeric sum: spills in
    // 16 planned partitions, one level deep (§5.2, §9.4).
    let a = AggCosts {
        trans_per_tuple: 3.0 * COP,
        calls_per_tuple: 0.0,
        final_per_group: COP,
        num_trans: 1.0,
        transition_space: 128.0,
        ..AggCosts::default()
    };
    let (s, t, pw) = agg(
        &jc,
        AggStrategy::Hashed,
        &a,
        3.0,
        313_555.0,
        input(0.0, 274_545.83, 313_555.0, 24.0),
    );
    assert!((pw - 3_674.47).abs() < 0.01, "{pw}");
    assert_eq!(cents(s), 300_218.15);
    assert_eq!(cents(t), 307_812.06);
}

// ---- whole plans ---------------------------------------------------------------------

fn catalogs() -> &'static [(f64, Dbt3)] {
    static C: OnceLock<Vec<(f64, Dbt3)>> = OnceLock::new();
    C.get_or_init(|| {
        [0.01, 1.0, 10.0, 1000.0]
            .iter()
            .map(|&sf| (sf, dbt3(sf).unwrap()))
            .collect()
    })
}

fn walk_costs(n: &PlanNode, f: &mut impl FnMut(&PlanNode)) {
    f(n);
    for c in &n.children {
        walk_costs(c, f);
    }
}

fn check_plan_sane(n: &PlanNode) {
    walk_costs(n, &mut |x| {
        assert!(
            x.cost.startup.is_finite() && x.cost.total.is_finite(),
            "{} {:?}",
            x.op,
            x.cost
        );
        assert!(x.cost.startup >= 0.0 && x.cost.total >= 0.0, "{}", x.op);
        assert!(x.rows.is_finite() && x.rows >= 0.0, "{}", x.op);
    });
}

#[test]
fn every_query_plans_at_every_scale() {
    for (sf, d) in catalogs() {
        let pg = PgJoinPlanner::new(&d.pg, PgJoinEnv::default()).unwrap();
        let t = std::time::Instant::now();
        for q in all(*sf).unwrap() {
            let p = pg
                .plan(&q, &knobs())
                .unwrap_or_else(|e| panic!("SF {sf} Q{}: {e}", q.number));
            assert!(p.cost.total >= p.cost.startup, "SF {sf} Q{}", q.number);
            assert!(p.cost.total.is_finite() && p.cost.startup >= 0.0);
            check_plan_sane(&p.tree);
            assert!(!p.signature().is_empty());
        }
        println!(
            "SF {sf}: all 22 planned in {:.1} ms",
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}

#[test]
fn planning_time_of_all_22_at_sf_10() {
    let d = &catalogs()[2].1;
    let pg = PgJoinPlanner::new(&d.pg, PgJoinEnv::default()).unwrap();
    let qs = all(10.0).unwrap();
    let t = std::time::Instant::now();
    for q in &qs {
        let p = pg.plan(q, &knobs()).unwrap();
        println!(
            "Q{:2} {:>16.2} rows {:>12.0}  {}",
            q.number,
            p.cost.total,
            p.rows,
            p.signature()
        );
    }
    // Printed, never asserted: timings depend on the machine.
    println!(
        "planning all 22 at SF 10: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
}

#[test]
fn the_worked_queries_keep_their_shapes_on_the_derived_catalog() {
    let d = &catalogs()[1].1;
    let pg = PgJoinPlanner::new(&d.pg, PgJoinEnv::default()).unwrap();
    let plan = |n: u8| pg.plan(&query(n, 1.0).unwrap(), &knobs()).unwrap();
    for n in [3, 4, 12, 14] {
        let p = plan(n);
        println!(
            "SF 1 Q{n}: {:.2}..{:.2}\n{}",
            p.cost.startup,
            p.cost.total,
            p.explain()
        );
    }
    let q14 = plan(14).signature();
    assert!(q14.starts_with("Aggregate(Hash Join("), "{q14}");
    assert_eq!(plan(6).signature(), "Aggregate(Seq Scan lineitem)");
    let q4 = plan(4).signature();
    assert!(q4.contains("[Semi]"), "{q4}");
    let q3 = plan(3).signature();
    assert!(q3.starts_with("Limit(Sort("), "{q3}");
    // Q14's plain Aggregate is its hash join plus 7 calls per row, 2 final functions and
    // the target list (§9.1), on the derived catalog's own numbers.
    let p = plan(14);
    let hj = &p.tree.children[0];
    let expected = hj.cost.total + 7.0 * COP * hj.rows + 2.0 * COP;
    assert!((p.tree.cost.startup - expected).abs() < 1e-6);
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let d = &catalogs()[0].1;
    let env = PgJoinEnv {
        version: EngineVersion::Mysql80,
        ..PgJoinEnv::default()
    };
    assert!(PgJoinPlanner::new(&d.pg, env).is_err());
    let env = PgJoinEnv {
        join_collapse_limit: 0,
        ..PgJoinEnv::default()
    };
    assert!(PgJoinPlanner::new(&d.pg, env).is_err());
    // A catalog without lineitem cannot plan Q1.
    let some: Vec<_> =
        d.pg.iter()
            .filter(|t| t.name != "lineitem")
            .cloned()
            .collect();
    let pg = PgJoinPlanner::new(&some, PgJoinEnv::default()).unwrap();
    assert!(pg.plan(&query(1, 0.01).unwrap(), &knobs()).is_err());
}

#[test]
fn versions_16_to_18_plan_too() {
    let d = &catalogs()[1].1;
    for v in [
        EngineVersion::Pg16,
        EngineVersion::Pg17,
        EngineVersion::Pg18,
    ] {
        let pg = PgJoinPlanner::new(
            &d.pg,
            PgJoinEnv {
                version: v,
                ..PgJoinEnv::default()
            },
        )
        .unwrap();
        for q in all(1.0).unwrap() {
            let p = pg.plan(&q, &knobs()).unwrap();
            check_plan_sane(&p.tree);
        }
    }
}

fn knob_strategy() -> impl Strategy<Value = Vec<f64>> {
    let pos = |k: Knob| {
        let d = k.def();
        (0.0f64..=1.0).prop_map(move |p| d.from_position(p))
    };
    (
        pos(Knob::SeqPageCost),
        pos(Knob::RandomPageCost),
        pos(Knob::CpuTupleCost),
        pos(Knob::CpuIndexTupleCost),
        pos(Knob::CpuOperatorCost),
        pos(Knob::EffectiveCacheSize),
        pos(Knob::WorkMem),
    )
        .prop_map(|(a, b, c, d, e, f, g)| vec![a, b, c, d, e, f, g])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_knobs_plan_every_query_with_finite_costs(
        v in knob_strategy(),
        sf_i in 0usize..2,
        version in 0usize..4,
    ) {
        let (sf, d) = &catalogs()[sf_i];
        let version = [EngineVersion::Pg15, EngineVersion::Pg16, EngineVersion::Pg17, EngineVersion::Pg18][version];
        let mut k = KnobValues::defaults(version, EngineVersion::Mysql80);
        for (knob, x) in [
            Knob::SeqPageCost,
            Knob::RandomPageCost,
            Knob::CpuTupleCost,
            Knob::CpuIndexTupleCost,
            Knob::CpuOperatorCost,
            Knob::EffectiveCacheSize,
            Knob::WorkMem,
        ]
        .into_iter()
        .zip(v)
        {
            k.set(knob, x).unwrap();
        }
        let pg = PgJoinPlanner::new(&d.pg, PgJoinEnv { version, ..PgJoinEnv::default() }).unwrap();
        for q in all(*sf).unwrap() {
            let p = pg.plan(&q, &k).unwrap();
            prop_assert!(p.cost.total.is_finite() && p.cost.startup >= 0.0);
            prop_assert!(p.cost.total >= 0.0);
            check_plan_sane(&p.tree);
        }
    }
}

// ---- golden snapshot -----------------------------------------------------------------

/// The knob settings of the golden snapshot: PG15 defaults and settings that move plans
/// (cheap and dear random reads with a tiny work_mem, dear CPU, a small cache), plus
/// PG18's defaults (Memoize's PG16+ costing).
fn golden_settings() -> Vec<(&'static str, EngineVersion, KnobValues)> {
    let with = |version: EngineVersion, set: &[(Knob, f64)]| {
        let mut k = KnobValues::defaults(version, EngineVersion::Mysql80);
        k.set(Knob::MaxParallelWorkersPerGather, 0.0).unwrap();
        for &(knob, v) in set {
            k.set(knob, v).unwrap();
        }
        (version, k)
    };
    let named = |label, (v, k)| (label, v, k);
    vec![
        named("pg15", with(EngineVersion::Pg15, &[])),
        named(
            "rpc1.1",
            with(EngineVersion::Pg15, &[(Knob::RandomPageCost, 1.1)]),
        ),
        named(
            "rpc40-wm64k",
            with(
                EngineVersion::Pg15,
                &[(Knob::RandomPageCost, 40.0), (Knob::WorkMem, 64.0)],
            ),
        ),
        named(
            "ctc0.05",
            with(EngineVersion::Pg15, &[(Knob::CpuTupleCost, 0.05)]),
        ),
        named(
            "ecs8M",
            with(EngineVersion::Pg15, &[(Knob::EffectiveCacheSize, 8.0)]),
        ),
        named("pg18", with(EngineVersion::Pg18, &[])),
    ]
}

/// FNV-1a, 64 bits: a stable hash of a plan tree's Debug text.
fn fnv64(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One line per (scale, setting, query): the signature, the top cost and rows as bits,
/// and a hash of the whole tree's Debug text (every node's costs, rows, work and detail
/// lines; Rust prints f64 in Debug as the shortest text that reads back to the same
/// bits, so equal text means bit-equal numbers).
fn golden_lines() -> Vec<String> {
    let dump = std::env::var("PG_JOIN_GOLDEN_DUMP").ok();
    let mut out = Vec::new();
    for sf in [0.01, 1.0, 10.0, 100.0] {
        let d = dbt3(sf).unwrap();
        let qs = all(sf).unwrap();
        for (label, version, k) in golden_settings() {
            let env = PgJoinEnv {
                version,
                ..PgJoinEnv::default()
            };
            let pg = PgJoinPlanner::new(&d.pg, env).unwrap();
            for q in &qs {
                let p = pg.plan(q, &k).unwrap();
                // Work fields added since the golden was written are left out while
                // zero (function_calls: DBT3 calls no function of its own), so the
                // hashes stay those of the trees they were taken from.
                let tree = format!("{:#?}", p.tree)
                    .lines()
                    .filter(|l| l.trim() != "function_calls: 0.0,")
                    .collect::<Vec<_>>()
                    .join("\n");
                if let Some(dir) = &dump {
                    let f = format!("{dir}/sf{sf}-{label}-q{:02}.txt", q.number);
                    std::fs::write(f, &tree).unwrap();
                }
                out.push(format!(
                    "sf={sf} {label} Q{:02} startup={:016x} total={:016x} rows={:016x} \
                     tree={:016x} total~{:.4} sig={}",
                    q.number,
                    p.cost.startup.to_bits(),
                    p.cost.total.to_bits(),
                    p.rows.to_bits(),
                    fnv64(&tree),
                    p.cost.total,
                    p.signature()
                ));
            }
        }
    }
    out
}

/// The planner's output is pinned bit for bit: optimising the planner must change no
/// plan, no cost, no row count, no work figure and no EXPLAIN line. After a deliberate
/// model change, rewrite the file with `PG_JOIN_GOLDEN=write cargo test -p costlab-pg
/// --lib pg_join_golden` and review the diff; `PG_JOIN_GOLDEN_DUMP=<dir>` writes each
/// tree's full Debug text to compare two versions in detail.
#[test]
fn pg_join_golden() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pg_join_golden.txt");
    let lines = golden_lines();
    if std::env::var("PG_JOIN_GOLDEN").as_deref() == Ok("write") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap();
    let want: Vec<&str> = want.lines().collect();
    assert_eq!(want.len(), lines.len(), "number of golden cases");
    let bad: Vec<String> = want
        .iter()
        .zip(&lines)
        .filter(|(w, g)| *w != *g)
        .map(|(w, g)| format!("want {w}\n got {g}"))
        .collect();
    assert!(
        bad.is_empty(),
        "{} of {} cases differ:\n{}",
        bad.len(),
        lines.len(),
        bad.join("\n")
    );
}

// ---- EXPLAIN text against the server's ---------------------------------------------

/// The real server's EXPLAIN text of the 22 queries (PostgreSQL 15.18, DBT3 SF 0.1; how it
/// was made is at the top of the file).
const SERVER_EXPLAIN: &str = include_str!("../tests/data/pg15_dbt3_sf0.1_explain.txt");

/// (query, fragment of a line of the server's EXPLAIN text) for every expression the
/// model once printed as a placeholder: sort keys on aggregates, HAVING filters,
/// correlated SubPlan parameters, the InitPlan Param `$0`/`$1`, grouping on EXTRACT and
/// SUBSTRING, Q13's key over a grouped sub-select, Q18's IN sub-select named
/// `lineitem_1`, and conditions it had abbreviated (`IN (...)`, "OR restriction from"). Copied from `SERVER_EXPLAIN`; the test checks that each is there too.
/// Where the model's text differs elsewhere on the line (Q18's HAVING names the
/// sub-select's table `lineitem` where the server says `lineitem_1`; Q22's filter is its
/// own line; Q11's and Q15's `InitPlan 1 (returns $n)` is a header line there and the
/// "Subplan Name" of EXPLAIN JSON here) the fragment is the part both print.
const SERVER_TEXT: &[(u8, &str)] = &[
    (1, "Sort Key: l_returnflag, l_linestatus"),
    (1, "Group Key: l_returnflag, l_linestatus"),
    (2, "Sort Key: supplier.s_acctbal DESC, nation.n_name, supplier.s_name, part.p_partkey"),
    (2, "Index Cond: (ps_partkey = part.p_partkey)"),
    (3, "Sort Key: (sum((lineitem.l_extendedprice * ('1'::numeric - lineitem.l_discount)))) DESC, orders.o_orderdate"),
    (5, "Sort Key: (sum((lineitem.l_extendedprice * ('1'::numeric - lineitem.l_discount)))) DESC"),
    (7, "Group Key: n1.n_name, n2.n_name, (EXTRACT(year FROM lineitem.l_shipdate))"),
    (7, "Sort Key: n1.n_name, n2.n_name, (EXTRACT(year FROM lineitem.l_shipdate))"),
    (8, "Group Key: (EXTRACT(year FROM orders.o_orderdate))"),
    (8, "Sort Key: (EXTRACT(year FROM orders.o_orderdate))"),
    (9, "Group Key: nation.n_name, (EXTRACT(year FROM orders.o_orderdate))"),
    (9, "Sort Key: nation.n_name, (EXTRACT(year FROM orders.o_orderdate)) DESC"),
    (10, "Sort Key: (sum((lineitem.l_extendedprice * ('1'::numeric - lineitem.l_discount)))) DESC"),
    (11, "Sort Key: (sum((partsupp.ps_supplycost * (partsupp.ps_availqty)::numeric))) DESC"),
    (11, "Filter: (sum((partsupp.ps_supplycost * (partsupp.ps_availqty)::numeric)) > $1)"),
    (11, "InitPlan 1 (returns $1)"),
    (13, "Sort Key: (count(*)) DESC, (count(orders.o_orderkey)) DESC"),
    (13, "Group Key: count(orders.o_orderkey)"),
    (13, "Group Key: customer.c_custkey"),
    (15, "Filter: (sum((lineitem.l_extendedprice * ('1'::numeric - lineitem.l_discount))) = $0)"),
    (15, "InitPlan 1 (returns $0)"),
    (15, "Sort Key: revenue0.supplier_no"),
    (16, "Sort Key: (count(DISTINCT partsupp.ps_suppkey)) DESC, part.p_brand, part.p_type, part.p_size"),
    (16, "Filter: (NOT (hashed SubPlan 1))"),
    (17, "Join Filter: (lineitem.l_quantity < (SubPlan 1))"),
    (17, "Filter: (l_partkey = part.p_partkey)"),
    (18, "Sort Key: orders.o_totalprice DESC, orders.o_orderdate"),
    (18, "orders.o_orderkey = lineitem_1.l_orderkey"),
    (18, "l_quantity) > '300'::numeric)"),
    (20, "Filter: ((ps_availqty)::numeric > (SubPlan 1))"),
    (20, "(l_partkey = partsupp.ps_partkey) AND (l_suppkey = partsupp.ps_suppkey))"),
    (21, "Sort Key: (count(*)) DESC, supplier.s_name"),
    (22, "Group Key: (SUBSTRING(customer.c_phone FROM 1 FOR 2))"),
    (22, "Sort Key: (SUBSTRING(customer.c_phone FROM 1 FOR 2))"),
    (22, "(c_acctbal > $0)"),
    // The single-table model's constants: a numeric decimal prints bare.
    (6, "Filter: ((l_shipdate >= '1994-01-01'::date) AND (l_shipdate < '1995-01-01'::date) AND (l_discount >= 0.05) AND (l_discount <= 0.07) AND (l_quantity < '24'::numeric))"),
    // Join conditions in parentheses, several ANDed inside one more pair.
    (5, "Hash Cond: ((lineitem.l_suppkey = supplier.s_suppkey) AND (customer.c_nationkey = supplier.s_nationkey))"),
    (3, "Index Cond: (l_orderkey = orders.o_orderkey)"),
    // A parameterized index scan's restrictions the index does not apply.
    (3, "Filter: (l_shipdate > '1995-03-15'::date)"),
    // Conditions the model had abbreviated.
    (2, "((p_type)::text ~~ '%BRASS'::text)"),
    (7, "Join Filter: (((n1.n_name = 'FRANCE'::bpchar) AND (n2.n_name = 'GERMANY'::bpchar)) OR ((n1.n_name = 'GERMANY'::bpchar) AND (n2.n_name = 'FRANCE'::bpchar)))"),
    (7, "Filter: ((n_name = 'GERMANY'::bpchar) OR (n_name = 'FRANCE'::bpchar))"),
    (7, "Filter: ((n_name = 'FRANCE'::bpchar) OR (n_name = 'GERMANY'::bpchar))"),
    (13, "Filter: ((o_comment)::text !~~ '%special%requests%'::text)"),
    (16, "(p_brand <> 'Brand#45'::bpchar)"),
    (16, "((p_type)::text !~~ 'MEDIUM POLISHED%'::text)"),
    (19, "Join Filter: (((part.p_brand = 'Brand#12'::bpchar) AND (part.p_container = ANY ('{\"SM CASE\",\"SM BOX\",\"SM PACK\",\"SM PKG\"}'::bpchar[])) AND (lineitem.l_quantity >= '1'::numeric) AND (lineitem.l_quantity <= '11'::numeric) AND (part.p_size <= 5)) OR ((part.p_brand = 'Brand#23'::bpchar) AND (part.p_container = ANY ('{\"MED BAG\",\"MED BOX\",\"MED PKG\",\"MED PACK\"}'::bpchar[])) AND (lineitem.l_quantity >= '10'::numeric) AND (lineitem.l_quantity <= '20'::numeric) AND (part.p_size <= 10)) OR ((part.p_brand = 'Brand#34'::bpchar) AND (part.p_container = ANY ('{\"LG CASE\",\"LG BOX\",\"LG PACK\",\"LG PKG\"}'::bpchar[])) AND (lineitem.l_quantity >= '20'::numeric) AND (lineitem.l_quantity <= '30'::numeric) AND (part.p_size <= 15)))"),
    (19, "(((l_quantity >= '1'::numeric) AND (l_quantity <= '11'::numeric)) OR ((l_quantity >= '10'::numeric) AND (l_quantity <= '20'::numeric)) OR ((l_quantity >= '20'::numeric) AND (l_quantity <= '30'::numeric)))"),
    (19, "(((p_brand = 'Brand#12'::bpchar) AND (p_container = ANY ('{\"SM CASE\",\"SM BOX\",\"SM PACK\",\"SM PKG\"}'::bpchar[])) AND (p_size <= 5)) OR ((p_brand = 'Brand#23'::bpchar) AND (p_container = ANY ('{\"MED BAG\",\"MED BOX\",\"MED PKG\",\"MED PACK\"}'::bpchar[])) AND (p_size <= 10)) OR ((p_brand = 'Brand#34'::bpchar) AND (p_container = ANY ('{\"LG CASE\",\"LG BOX\",\"LG PACK\",\"LG PKG\"}'::bpchar[])) AND (p_size <= 15)))"),
    (20, "((p_name)::text ~~ 'forest%'::text)"),
    (22, "(SUBSTRING(c_phone FROM 1 FOR 2) = ANY ('{13,31,23,29,30,18,17}'::text[]))"),
];

/// Texts the model printed where PostgreSQL prints an expression.
const PLACEHOLDERS: &[&str] = &[
    "(expression)",
    "Filter: HAVING",
    "= -1)",
    "ANY_subquery",
    "aggregate of the sub-select",
    "(SELECT",
    "hashed SubPlan)",
    "(...)",
    "OR restriction from",
];

/// The server's EXPLAIN text of query `n`.
fn server_explain(n: u8) -> &'static str {
    let head = format!("-- Q{n:02}\n");
    let start = SERVER_EXPLAIN
        .find(&head)
        .expect("query in the server file")
        + head.len();
    let end = SERVER_EXPLAIN[start..]
        .find("\n-- Q")
        .map_or(SERVER_EXPLAIN.len(), |e| start + e);
    &SERVER_EXPLAIN[start..end]
}

#[test]
fn explain_text_prints_the_servers_expressions() {
    let d = dbt3(0.1).unwrap();
    let pg = PgJoinPlanner::new(&d.pg, PgJoinEnv::default()).unwrap();
    let k = knobs();
    let mut missing = Vec::new();
    for &(n, fragment) in SERVER_TEXT {
        assert!(
            server_explain(n).contains(fragment),
            "Q{n}: {fragment:?} is not in the server's text"
        );
        let p = pg.plan(&query(n, 0.1).unwrap(), &k).unwrap();
        let text = crate::explain_node(&p.tree);
        if !text.contains(fragment) {
            missing.push(format!("Q{n}: {fragment}\n{text}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn explain_text_has_no_placeholder() {
    for version in [EngineVersion::Pg15, EngineVersion::Pg18] {
        let d = dbt3(0.1).unwrap();
        let env = PgJoinEnv {
            version,
            ..PgJoinEnv::default()
        };
        let pg = PgJoinPlanner::new(&d.pg, env).unwrap();
        let mut k = KnobValues::defaults(version, EngineVersion::Mysql80);
        k.set(Knob::MaxParallelWorkersPerGather, 0.0).unwrap();
        for q in all(0.1).unwrap() {
            let text = crate::explain_node(&pg.plan(&q, &k).unwrap().tree);
            for p in PLACEHOLDERS {
                assert!(
                    !text.contains(p),
                    "{version:?} Q{}: {p:?} in\n{text}",
                    q.number
                );
            }
        }
    }
}

// ---- enable_* switches ----------------------------------------------------------------

/// The 22 plans at SF 1 for `version` with the switches `set` changed from the defaults.
fn plans_with(version: EngineVersion, set: impl Fn(&mut crate::PgOptions)) -> Vec<PgJoinPlan> {
    let d = &catalogs()[1].1;
    let mut env = PgJoinEnv {
        version,
        ..PgJoinEnv::default()
    };
    set(&mut env.opts);
    let pg = PgJoinPlanner::new(&d.pg, env).unwrap();
    all(1.0)
        .unwrap()
        .iter()
        .map(|q| pg.plan(q, &knobs()).unwrap())
        .collect()
}

/// (node, its parent's op) for every node of the tree.
fn nodes_with_parent<'a>(n: &'a PlanNode, parent: &'a str, out: &mut Vec<(&'a PlanNode, &'a str)>) {
    out.push((n, parent));
    for c in &n.children {
        nodes_with_parent(c, &n.op, out);
    }
}

fn count_ops(p: &PgJoinPlan, f: impl Fn(&PlanNode, &str) -> bool) -> usize {
    let mut all = Vec::new();
    nodes_with_parent(&p.tree, "", &mut all);
    all.iter().filter(|(n, parent)| f(n, parent)).count()
}

fn is_disabled(n: &PlanNode) -> bool {
    n.details.iter().any(|d| d == "Disabled: true")
}

/// enable_hashjoin and enable_mergejoin off: add_paths_to_joinrel builds no such join
/// (the model has no FULL join, where PostgreSQL ignores them), in 15 and 18 alike, and
/// nothing is disabled. Before the switches were honoured the default plans' hash and
/// merge joins stayed.
#[test]
fn hash_and_merge_join_switches_remove_the_method() {
    for version in [EngineVersion::Pg15, EngineVersion::Pg18] {
        let base = plans_with(version, |_| {});
        for (name, op, set) in [
            (
                "enable_hashjoin",
                "Hash Join",
                (|o: &mut crate::PgOptions| o.enable_hashjoin = false) as fn(&mut crate::PgOptions),
            ),
            ("enable_mergejoin", "Merge Join", |o| {
                o.enable_mergejoin = false
            }),
        ] {
            let with_op = base
                .iter()
                .filter(|p| count_ops(p, |n, _| n.op == op) > 0)
                .count();
            assert!(
                with_op >= 2,
                "{version:?}: only {with_op} default plans use {op}"
            );
            // Nothing disabled, so no disable_cost either. (A plan may even come out
            // cheaper than the default one: add_path's fuzz let the default search drop
            // it, as PostgreSQL's does, e.g. Q20.)
            for p in plans_with(version, set) {
                assert_eq!(
                    count_ops(&p, |n, _| n.op == op),
                    0,
                    "{name} off, Q{}: {}",
                    p.number,
                    p.signature()
                );
                assert_eq!(count_ops(&p, |n, _| is_disabled(n)), 0, "Q{}", p.number);
            }
        }
    }
}

/// enable_nestloop off: nested loops are still built but disabled: in 15 each carries
/// disable_cost (1e10), in 18 a disabled node EXPLAIN marks, and plans that can avoid
/// them do. At SF 1 every query can; in 15 one that costs more than disable_cost without
/// its nested loop keeps it (Q20: a hash join would run the ps_availqty sub-select on all
/// 800k partsupp rows, 1.2e11, where the loop over the 2k 'forest%' parts runs it on 8k),
/// and its cost then carries the penalty.
#[test]
fn nestloop_switch_disables_nested_loops() {
    for version in [EngineVersion::Pg15, EngineVersion::Pg18] {
        let base = plans_with(version, |_| {});
        let with_nl = base
            .iter()
            .filter(|p| count_ops(p, |n, _| n.op == "Nested Loop") > 0)
            .count();
        assert!(
            with_nl >= 5,
            "{version:?}: {with_nl} default plans with a nested loop"
        );
        let mut kept = Vec::new();
        for p in plans_with(version, |o| o.enable_nestloop = false) {
            let nl = count_ops(&p, |n, _| n.op == "Nested Loop");
            if version == EngineVersion::Pg15 && nl > 0 {
                assert!(
                    p.cost.total >= 1e10,
                    "Q{} kept a loop without its penalty",
                    p.number
                );
                kept.push(p.number);
                continue;
            }
            assert_eq!(nl, 0, "{version:?} Q{}: {}", p.number, p.signature());
            assert_eq!(count_ops(&p, |n, _| is_disabled(n)), 0, "Q{}", p.number);
        }
        assert!(kept.len() <= 1, "{version:?}: loops kept in {kept:?}");
    }
}

/// enable_material and enable_memoize off: no Materialize as a nested loop's inner and
/// no Memoize at all (match_unsorted_outer, get_memoize_path).
#[test]
fn material_and_memoize_switches_stop_building_the_nodes() {
    let mat_under_nl = |p: &PgJoinPlan| {
        count_ops(p, |n, parent| {
            n.op == "Materialize" && parent == "Nested Loop"
        })
    };
    let memo = |p: &PgJoinPlan| count_ops(p, |n, _| n.op == "Memoize");
    // SF 0.01, 1 and 10.
    let plans = |set: fn(&mut crate::PgOptions)| {
        let mut env = PgJoinEnv::default();
        set(&mut env.opts);
        let mut out = Vec::new();
        for (sf, d) in &catalogs()[..3] {
            let pg = PgJoinPlanner::new(&d.pg, env.clone()).unwrap();
            for q in all(*sf).unwrap() {
                out.push(pg.plan(&q, &knobs()).unwrap());
            }
        }
        out
    };
    // The default plans have few nested loops: hash joins off, they have more.
    let base = plans(|o| o.enable_hashjoin = false);
    assert!(base.iter().map(mat_under_nl).sum::<usize>() > 0);
    assert!(base.iter().map(memo).sum::<usize>() > 0);
    for p in plans(|o| {
        o.enable_hashjoin = false;
        o.enable_material = false;
    }) {
        assert_eq!(mat_under_nl(&p), 0, "Q{}: {}", p.number, p.signature());
    }
    for p in plans(|o| {
        o.enable_hashjoin = false;
        o.enable_memoize = false;
    }) {
        assert_eq!(memo(&p), 0, "Q{}: {}", p.number, p.signature());
    }
}

/// enable_sort off where no plan avoids a sort (Q1's ORDER BY): PostgreSQL 15 keeps the
/// plan and adds disable_cost once; 18 keeps plan and cost and marks the Sort "Disabled".
/// enable_hashagg off: Q1's HashAggregate (cheaper) gives way to a GroupAggregate, in 15
/// through disable_cost, in 18 because add_path compares disabled nodes first.
#[test]
fn sort_and_hashagg_switches_cost_disable_cost_in_15_and_count_nodes_in_18() {
    let d = &catalogs()[1].1;
    let q1 = query(1, 1.0).unwrap();
    let plan = |version, set: fn(&mut crate::PgOptions)| {
        let mut env = PgJoinEnv {
            version,
            ..PgJoinEnv::default()
        };
        set(&mut env.opts);
        PgJoinPlanner::new(&d.pg, env)
            .unwrap()
            .plan(&q1, &knobs())
            .unwrap()
    };
    for version in [EngineVersion::Pg15, EngineVersion::Pg18] {
        let base = plan(version, |_| {});
        assert!(
            base.signature().contains("HashAggregate"),
            "{}",
            base.signature()
        );
        let no_sort = plan(version, |o| o.enable_sort = false);
        assert_eq!(no_sort.signature(), base.signature());
        let disabled = count_ops(&no_sort, |n, _| is_disabled(n));
        if version == EngineVersion::Pg15 {
            assert!((no_sort.cost.total - 1e10 - base.cost.total).abs() < 1e-3);
            assert!((no_sort.cost.startup - 1e10 - base.cost.startup).abs() < 1e-3);
            assert_eq!(disabled, 0);
        } else {
            assert_eq!(no_sort.cost.total, base.cost.total);
            assert_eq!(disabled, 1);
            assert_eq!(no_sort.tree.op, "Sort");
            assert!(is_disabled(&no_sort.tree));
        }
        let no_hashagg = plan(version, |o| o.enable_hashagg = false);
        let sig = no_hashagg.signature();
        assert!(
            sig.contains("GroupAggregate") && !sig.contains("HashAggregate"),
            "{sig}"
        );
        assert!(no_hashagg.cost.total > base.cost.total && no_hashagg.cost.total < 1e10);
        // Both off: a HashAggregate and the ORDER BY's Sort are two disabled nodes, a
        // GroupAggregate over a Sort (its order is the ORDER BY's) one: 15 pays
        // disable_cost once, 18 counts one node.
        let both = plan(version, |o| {
            o.enable_sort = false;
            o.enable_hashagg = false;
        });
        assert_eq!(both.signature(), sig);
        if version == EngineVersion::Pg15 {
            assert_eq!((both.cost.total / 1e10).floor(), 1.0);
        } else {
            assert!(both.cost.total < 1e10);
            assert_eq!(count_ops(&both, |n, _| is_disabled(n)), 1);
        }
    }
}

/// get_memoize_path builds no Memoize over a unique inner whose parameters are not the
/// whole join condition: Q5's supplier (s_suppkey = l_suppkey by the index, s_nationkey
/// = c_nationkey left to the join). With hash joins off PostgreSQL 15 at SF 0.1 merge
/// joins supplier instead; the model used to memoize its index scan.
#[test]
fn no_memoize_over_a_unique_inner_with_join_clauses_left() {
    for (sf, d) in &catalogs()[..3] {
        let mut env = PgJoinEnv::default();
        env.opts.enable_hashjoin = false;
        let pg = PgJoinPlanner::new(&d.pg, env).unwrap();
        let p = pg.plan(&query(5, *sf).unwrap(), &knobs()).unwrap();
        let memo_supplier = count_ops(&p, |n, _| {
            n.op == "Memoize"
                && n.children
                    .iter()
                    .any(|c| c.relation.as_deref() == Some("supplier"))
        });
        assert_eq!(memo_supplier, 0, "SF {sf}: {}", p.signature());
    }
}

// ---- work from true rows ---------------------------------------------------------------

/// The planner on the derived catalog at SF 0.1 (PG15) with `switches` off.
fn sf01_planner(switches: &[&str]) -> PgJoinPlanner {
    static CATALOG: OnceLock<Dbt3> = OnceLock::new();
    let d = CATALOG.get_or_init(|| dbt3(0.1).unwrap());
    let opts = crate::PgOptions::with_switches_off(
        &switches.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    )
    .unwrap();
    let env = PgJoinEnv {
        opts,
        ..PgJoinEnv::default()
    };
    PgJoinPlanner::new(&d.pg, env).unwrap()
}

/// Query `n` at SF 0.1 with `switches` off (see [`sf01_planner`]).
fn sf01_tree(n: u8, switches: &[&str]) -> PlanNode {
    sf01_planner(switches)
        .plan(&query(n, 0.1).unwrap(), &knobs())
        .unwrap()
        .tree
}

/// Q18 at SF 0.1 with `switches` off, planned on the derived catalog (PG15).
fn q18_tree(switches: &[&str]) -> PlanNode {
    sf01_tree(18, switches)
}

fn nodes<'a>(n: &'a PlanNode, op: &str) -> Vec<&'a PlanNode> {
    let mut v = Vec::new();
    n.walk(&mut |x| {
        if x.op.as_str() == op {
            v.push(x);
        }
    });
    v
}

/// Q18's `HAVING SUM(l_quantity) > 300` keeps 57 orders at SF 1 (dbt3.md); PostgreSQL 15
/// estimated 40,494 at SF 0.1 and returned 5 (EXPLAIN ANALYZE on the validation's
/// cluster). The rows EXPLAIN prints stay the estimate; the work the simulation times
/// counts the true 5.7, and so does every join above it.
#[test]
fn q18_work_counts_the_true_having_groups_not_the_estimate() {
    let tree = q18_tree(&[]);
    let having = nodes(&tree, "GroupAggregate")
        .into_iter()
        .chain(nodes(&tree, "HashAggregate"))
        .find(|n| n.details.iter().any(|d| d.contains("300")))
        .expect("the sub-select's aggregate");
    assert!(having.rows > 10_000.0, "estimate {}", having.rows);
    assert!(
        (having.work.rows_out - 5.7).abs() < 0.01,
        "true rows out {}",
        having.work.rows_out
    );
    // The hash join of the outer lineitem with the orders found probes 600k rows and
    // returns the true 5.7 orders' lines (about 4 each), not 162,130.
    let top_join = nodes(&tree, "Hash Join")[0];
    assert!(top_join.rows > 100_000.0);
    assert!(top_join.work.rows_out < 50.0, "{}", top_join.work.rows_out);
}

/// With hash joins off, the lineitem probe of Q18 is a nested loop's inner: it runs once
/// per true outer row (5.7 orders), not once per estimated one (40,494).
#[test]
fn a_nested_loops_inner_runs_once_per_true_outer_row() {
    let tree = q18_tree(&["enable_hashjoin=off"]);
    let nl = nodes(&tree, "Nested Loop")
        .into_iter()
        .find(|n| {
            n.children
                .get(1)
                .is_some_and(|c| c.relation.as_deref() == Some("lineitem"))
        })
        .expect("a nested loop over lineitem");
    let outer_estimate = nl.children[0].rows;
    let inner = &nl.children[1];
    assert!(outer_estimate > 10_000.0, "{outer_estimate}");
    // About four lines per order, 5.7 orders.
    assert!(
        inner.work.rows_examined > 5.0 && inner.work.rows_examined < 60.0,
        "{}",
        inner.work.rows_examined
    );
}

/// A Memoize's inner runs once per cache miss: Q9 at SF 0.1 without hash joins calls its
/// Memoize some 32,000 times for about a thousand distinct keys; Q18's (without hash and
/// merge joins: without hash joins alone it merge-joins customer by its key for the
/// grouping's Incremental Sort) is called for the 5.7 true orders only, fewer than its
/// estimated misses.
#[test]
fn a_memoized_inner_runs_once_per_miss_and_at_most_once_per_call() {
    for (n, at_most, switches) in [
        (9u8, 0.1, &["enable_hashjoin=off"][..]),
        (
            18,
            1.0,
            &["enable_hashjoin=off", "enable_mergejoin=off"][..],
        ),
    ] {
        let tree = sf01_tree(n, switches);
        let memo = nodes(&tree, "Memoize");
        assert!(!memo.is_empty(), "Q{n}: {}", crate::explain_node(&tree));
        for m in memo {
            // Calls: the Memoize returns its estimated rows per call.
            let calls = m.work.rows_out / m.rows.max(1.0);
            let inner = &m.children[0];
            let per_run = inner.rows.max(1.0);
            let runs = inner.work.rows_examined / per_run;
            assert!(
                runs <= calls * at_most + 1e-6,
                "Q{n}: the inner ran {runs} times for {calls} calls"
            );
        }
    }
}

/// A scan out of heap order asks for a page per fetched row, and a nested loop's
/// repetitions of it land anywhere in the heap: all loops together touch as many pages
/// as that many single-row draws would, `O (1 - e^(-R/O))`. Q7 at SF 0.1 probes orders
/// by customer and lineitem by order, 17,640 and 35,280 requests; the cost's pages per
/// scan, amortised over the loops PostgreSQL expected, had said 211 and 907 pages, and
/// the plan came out twice too fast cold (docs/validation/pg18.txt, session 6).
#[test]
fn a_repeated_scan_out_of_heap_order_touches_the_pages_of_independent_draws() {
    let mut seen = 0;
    for switches in [&[][..], &["enable_hashjoin=off"][..]] {
        let pg = sf01_planner(switches);
        for n in 1..=22u8 {
            let tree = pg.plan(&query(n, 0.1).unwrap(), &knobs()).unwrap().tree;
            let mut scans = nodes(&tree, "Index Scan");
            scans.extend(nodes(&tree, "Index Only Scan"));
            for s in scans {
                let table = s.relation.as_deref().unwrap_or_default();
                // The heap's reads (DBT3's index names all have an underscore, its
                // tables none), out of order: lookups in key order read one sweep and
                // hit on its repeats instead (`read_in_order`).
                for r in s.work.page_reads.iter().filter(|r| {
                    r.pattern != AccessPattern::Sequential
                        && r.distinct > 0.0
                        && r.requests > r.distinct * 1.001
                        && !r.object.as_str().contains('_')
                        && r.requests > 100.0
                }) {
                    let o = r.object_pages;
                    let draws = o * -(-r.requests / o).exp_m1();
                    assert!(
                        (r.distinct - draws).abs() <= 0.1 * draws,
                        "Q{n} {table} {}: {} distinct of {} requests, {draws:.0} expected",
                        r.object,
                        r.distinct,
                        r.requests
                    );
                    seen += 1;
                }
            }
        }
    }
    assert!(seen >= 5, "only {seen} heap reads out of order");
}

/// A nested loop whose outer rows ascend in the key its inner looks up (Q4: orders,
/// stored by order key, probing a lineitem index by l_orderkey) sweeps the inner's
/// index once in order: every page read becomes one sorted pass over its distinct
/// pages, the repeats hits. Measured on PostgreSQL 15 (SF 0.1, cold): the plan took 72
/// ms, where random reads of the index's 1,463 pages alone would take 0.19 s.
#[test]
fn lookups_in_key_order_read_the_inner_as_one_sorted_sweep() {
    // The server's plan at SF 0.1 (the catalog's statistics prefer a merge join).
    let tree = sf01_tree(4, &["enable_mergejoin=off"]);
    let nl = nodes(&tree, "Nested Loop")
        .into_iter()
        .find(|n| {
            n.children.len() == 2
                && n.children[0].relation.as_deref() == Some("orders")
                && n.children[1].relation.as_deref() == Some("lineitem")
        })
        .unwrap_or_else(|| panic!("{}", crate::explain_node(&tree)));
    let reads = &nl.children[1].work.page_reads;
    assert!(!reads.is_empty());
    let mut swept = 0.0;
    for r in reads {
        match r.pattern {
            AccessPattern::Sorted => {
                assert_eq!(r.requests, r.distinct, "{r:?}");
                swept += r.distinct;
            }
            AccessPattern::Random => assert_eq!(r.distinct, 0.0, "{r:?}"),
            AccessPattern::Sequential => panic!("{r:?}"),
        }
    }
    assert!(swept > 100.0, "{swept}");
    // Customers probing orders by o_custkey (Q7): keys that do not ascend keep their
    // random reads.
    let tree = sf01_tree(7, &[]);
    let orders = nodes(&tree, "Index Scan")
        .into_iter()
        .find(|n| n.relation.as_deref() == Some("orders"))
        .unwrap_or_else(|| panic!("{}", crate::explain_node(&tree)));
    assert!(orders
        .work
        .page_reads
        .iter()
        .any(|r| r.pattern == AccessPattern::Random && r.distinct > 100.0));
}

/// A btree scan hands its rows up in the order of its first key, so a nested loop whose
/// outer is one (Q21: l1, an index-only scan of a lineitem index on l_orderkey, through
/// a hash join with supplier) looks its inner up in key order: l3's probes of the same
/// index by l_orderkey read it as a sorted sweep. Measured on PostgreSQL 15 (SF 0.1,
/// cold, docs/validation/pg15.json): the plan took 0.185 s; read at random, l3's, l2's and
/// orders' lookups came out at 0.51 s.
#[test]
fn an_index_scans_rows_come_in_its_keys_order() {
    let tree = sf01_tree(21, &[]);
    let l3 = nodes(&tree, "Index Only Scan")
        .into_iter()
        .find(|n| n.relation.as_deref() == Some("l3"))
        .unwrap_or_else(|| panic!("{}", crate::explain_node(&tree)));
    let swept: f64 = l3
        .work
        .page_reads
        .iter()
        .filter(|r| r.pattern == AccessPattern::Sorted)
        .map(|r| r.distinct)
        .sum();
    assert!(swept > 100.0, "{:?}", l3.work.page_reads);
    assert!(l3
        .work
        .page_reads
        .iter()
        .all(|r| r.pattern != AccessPattern::Random || r.distinct == 0.0));
}

// ---- queries of the SQL front end beyond DBT3's ------------------------------------------

/// `sql` read by the SQL front end over `tables` (PostgreSQL's dialect).
fn own_query(
    sql: &str,
    tables: &[costlab_model::catalog::Table],
) -> costlab_model::block::JoinQuery {
    costlab_sql::own_query(
        sql,
        costlab_sql::Dialect::Postgres,
        tables,
        costlab_model::plan::Name::from_static("test"),
    )
    .unwrap()
}

/// A query read by the SQL front end, planned on DBT3's tables at SF 1 with PostgreSQL 15's
/// defaults: the plan's EXPLAIN text.
fn explain_sql(sql: &str) -> String {
    let d = dbt3(1.0).unwrap();
    let q = own_query(sql, &d.pg);
    let k = KnobValues::defaults(EngineVersion::Pg15, EngineVersion::Mysql80);
    let plan = PgJoinPlanner::new(&d.pg, PgJoinEnv::default())
        .unwrap()
        .plan(&q, &k)
        .unwrap();
    crate::explain_node(&plan.tree)
}

/// generate_base_implied_equalities_const: `o_orderkey = 7` and the join equality give
/// lineitem `l_orderkey = 7` of its own, and the join keeps no clause.
#[test]
fn a_constant_reaches_every_member_of_its_equivalence_class() {
    let text = explain_sql(
        "SELECT o_totalprice, l_quantity FROM orders JOIN lineitem ON l_orderkey = o_orderkey
         WHERE o_orderkey = 7",
    );
    assert!(text.contains("(l_orderkey = 7)"), "{text}");
    assert!(text.contains("(o_orderkey = 7)"), "{text}");
    assert!(
        !text.contains("Hash Cond") && !text.contains("= orders.o_orderkey"),
        "{text}"
    );
}

/// reduce_unique_semijoins: orders is unique on o_orderkey, so IN over it is a plain join,
/// with no semi join and nothing made unique.
#[test]
fn a_semi_join_against_a_unique_key_is_an_inner_join() {
    let text = explain_sql(
        "SELECT l_quantity FROM lineitem WHERE l_orderkey IN
         (SELECT o_orderkey FROM orders WHERE o_orderdate = date '1995-01-01')",
    );
    assert!(!text.contains("Semi"), "{text}");
    assert!(
        !text.contains("Aggregate") && !text.contains("Unique"),
        "{text}"
    );
    // Not so over lineitem, which is not unique on l_orderkey.
    let text = explain_sql(
        "SELECT o_totalprice FROM orders WHERE o_orderkey IN
         (SELECT l_orderkey FROM lineitem WHERE l_shipdate = date '1995-01-01')",
    );
    assert!(
        text.contains("Semi") || text.contains("Aggregate"),
        "{text}"
    );
}

/// An expression index as the third seed's workload has one: DBT3's supplier with
/// `fnorm(s_phone)` indexed (statistics: every value distinct) and fnorm() priced at COST
/// 5000. A comparison with a constant becomes the index's condition, which calls nothing;
/// without the index the same text is a filter calling fnorm() on every row; ORDER BY the
/// expression with LIMIT reads the index in order, and the Limit stops the scan early.
/// DBT3's supplier (SF 1) with a btree on `fnorm(s_phone)` (every value distinct),
/// `include` as its INCLUDE columns, fnorm() priced at COST 5000.
fn supplier_with_fnorm_index(include: &[&str]) -> Vec<costlab_model::catalog::Table> {
    use costlab_model::catalog::{Column, ColumnStats, ColumnType, Index};
    let mut tables = dbt3(1.0).unwrap().pg.clone();
    let supplier = tables.iter_mut().find(|t| t.name == "supplier").unwrap();
    supplier.indexes.push(Index {
        name: "supplier_fnorm_idx".into(),
        columns: vec!["fnorm((s_phone)::text)".into()],
        include: include.iter().map(|c| c.to_string()).collect(),
        unique: false,
        primary: false,
        pg: None,
        mysql: None,
        expressions: vec![Column {
            name: "fnorm((s_phone)::text)".into(),
            ty: ColumnType::Text,
            not_null: false,
            stats: ColumnStats {
                n_distinct: -1.0,
                avg_width: 14.0,
                ..ColumnStats::default()
            },
        }],
        method: Default::default(),
    });
    tables
}

/// `sql` planned at the default knobs with fnorm() at COST 5000, stock or the series.
fn plan_with_fnorm(
    tables: &[costlab_model::catalog::Table],
    sql: &str,
    handed_up: bool,
) -> crate::join::PgJoinPlan {
    let env = PgJoinEnv {
        functions: vec![costlab_model::catalog::Function::priced("fnorm", 5000.0)],
        handed_up,
        ..PgJoinEnv::default()
    };
    let k = KnobValues::defaults(EngineVersion::Pg15, EngineVersion::Mysql80);
    let q = own_query(sql, tables);
    PgJoinPlanner::new(tables, env)
        .unwrap()
        .plan(&q, &k)
        .unwrap()
}

/// The schema's function calls in a plan's work, and its operator evaluations.
fn calls_and_evals(p: &PlanNode) -> (f64, f64) {
    let (mut calls, mut evals) = (0.0, 0.0);
    p.walk(&mut |x| {
        calls += x.work.function_calls;
        evals += x.work.operator_evals;
    });
    (calls, evals)
}

#[test]
fn an_expression_index_serves_its_expression() {
    let d = dbt3(1.0).unwrap();
    let tables = supplier_with_fnorm_index(&[]);
    let plan =
        |tables: &[costlab_model::catalog::Table], sql: &str| plan_with_fnorm(tables, sql, false);
    let calls = |p: &PlanNode| calls_and_evals(p).0;
    let eq = "SELECT s_suppkey FROM supplier WHERE fnorm(s_phone) = '1'";
    let with = plan(&tables, eq);
    let text = crate::explain_node(&with.tree);
    assert!(
        text.contains("Index Scan using supplier_fnorm_idx"),
        "{text}"
    );
    assert_eq!(calls(&with.tree), 0.0, "{text}");
    let without = plan(&d.pg, eq);
    let text = crate::explain_node(&without.tree);
    assert!(text.contains("Seq Scan on supplier"), "{text}");
    // 10,000 rows, each paying fnorm()'s 5000 and the comparison's 1 (x 0.0025).
    assert!(without.cost.total > 10_000.0 * 5001.0 * 0.0025, "{text}");
    assert_eq!(calls(&without.tree), 10_000.0, "{text}");

    let ordered = plan(
        &tables,
        "SELECT s_suppkey FROM supplier ORDER BY fnorm(s_phone) LIMIT 5",
    );
    let text = crate::explain_node(&ordered.tree);
    assert!(
        text.contains("Index Scan using supplier_fnorm_idx"),
        "{text}"
    );
    assert!(!text.contains("Sort"), "{text}");
    // The scan stops after 5 of its 10,000 rows: its work says so.
    let mut examined = 0.0;
    ordered.tree.walk(&mut |x| examined += x.work.rows_examined);
    assert!(examined < 10.0, "{examined}: {text}");

    // MySQL has no functional indexes here: the index is left out, the table still plans.
    let innodb = costlab_mysql::layout::with_innodb_statistics(
        tables.iter().find(|t| t.name == "supplier").unwrap(),
    );
    assert!(innodb
        .indexes
        .iter()
        .all(|i| i.name != "supplier_fnorm_idx"));
    // A key that is neither a column nor one of the index's expressions is an error.
    let mut bad = tables
        .iter()
        .find(|t| t.name == "supplier")
        .unwrap()
        .clone();
    bad.indexes.last_mut().unwrap().expressions.clear();
    assert!(bad.validate().is_err());
}

/// The third seed's series against stock, on the planner's side and the executor's:
/// - ORDER BY the indexed expression with LIMIT: the same plan and cost; stock computes
///   fnorm() again for each returned row, the series hands the index's value up (0001);
/// - the expression alone in the select list: stock cannot scan the index only (it needs
///   s_phone), the series can and does, returning the value without a call (0004/0005);
/// - an index that also holds s_phone: both scan it only, neither calls fnorm(), but the
///   series projects every row where stock returns the index tuple (the regression).
#[test]
fn the_handed_up_series_saves_calls_and_pays_projection() {
    let tables = supplier_with_fnorm_index(&[]);
    let both = |tables: &[costlab_model::catalog::Table], sql: &str| {
        let stock = plan_with_fnorm(tables, sql, false);
        let series = plan_with_fnorm(tables, sql, true);
        let texts = (
            crate::explain_node(&stock.tree),
            crate::explain_node(&series.tree),
        );
        (stock, series, texts)
    };

    let (stock, series, (st, se)) = both(
        &tables,
        "SELECT s_suppkey, fnorm(s_phone) FROM supplier ORDER BY fnorm(s_phone) LIMIT 10",
    );
    assert_eq!(st, se, "the same plan");
    assert_eq!(stock.cost, series.cost);
    assert_eq!(calls_and_evals(&stock.tree).0, 10.0, "{st}");
    assert_eq!(calls_and_evals(&series.tree).0, 0.0, "{se}");

    let (stock, series, (st, se)) = both(
        &tables,
        "SELECT fnorm(s_phone) FROM supplier WHERE fnorm(s_phone) = '1'",
    );
    assert!(st.contains("Index Scan using supplier_fnorm_idx"), "{st}");
    assert!(
        se.contains("Index Only Scan using supplier_fnorm_idx"),
        "{se}"
    );
    assert!(series.cost.total < stock.cost.total, "{st}\n{se}");
    assert_eq!(calls_and_evals(&stock.tree).0, stock.rows, "{st}");
    assert_eq!(calls_and_evals(&series.tree).0, 0.0, "{se}");

    let covering = supplier_with_fnorm_index(&["s_phone"]);
    let (stock, series, (st, se)) = both(
        &covering,
        "SELECT fnorm(s_phone) FROM supplier WHERE fnorm(s_phone) > '5'",
    );
    assert!(st.contains("Index Only Scan"), "{st}");
    assert_eq!(st, se, "the same plan");
    assert_eq!(stock.cost, series.cost);
    let (stock_calls, stock_evals) = calls_and_evals(&stock.tree);
    let (series_calls, series_evals) = calls_and_evals(&series.tree);
    assert_eq!((stock_calls, series_calls), (0.0, 0.0), "{st}");
    assert!(
        series_evals >= stock_evals + stock.rows,
        "projection: {stock_evals} -> {series_evals} over {} rows",
        stock.rows
    );
}

// ---- Q2's SubPlan against the server at SF 10 ------------------------------------------

/// relation_has_unique_index_for counts a relation's own `col = constant` restrictions
/// (and `col = $1` of a correlated SubPlan): partsupp's rows for one `ps_partkey` are
/// unique on `ps_suppkey`, so hashing them makes a unique inner and the supplier scan
/// probes them. PostgreSQL 15 at SF 10 with enable_nestloop off (a kept load, imported
/// statistics): `Hash Join (Seq Scan on supplier, Hash (Index Scan using pk_partsupp))`
/// in Q2's SubPlan at 3,519.87 per call; the model hashed supplier instead (4,082.13).
#[test]
fn a_restriction_to_a_constant_proves_the_inner_unique() {
    let t = sf01_tree(2, &["enable_nestloop=off"]);
    let sub = t.shape();
    assert!(
        sub.contains("Hash Join(Seq Scan supplier, Hash(Index Scan partsupp using pk_partsupp))"),
        "{sub}"
    );
}

/// sort_inner_and_outer merges on every mergejoinable clause, `ps_supplycost = (SubPlan
/// 1)` too, and then pays the SubPlan at every merge comparison: PostgreSQL 15 at SF 10
/// (the derived catalog and imported statistics alike) merges on p_partkey alone, under
/// an outer in that order, the SubPlan a join filter. Before, the model sorted both sides
/// and charged the SubPlan as a join filter only.
#[test]
fn a_subplan_clause_is_a_merge_clause_of_explicit_sorts() {
    let (sf, d) = &catalogs()[2];
    let pg = PgJoinPlanner::new(&d.pg, PgJoinEnv::default()).unwrap();
    let p = pg.plan(&query(2, *sf).unwrap(), &knobs()).unwrap();
    assert!(
        p.signature()
            .starts_with("Limit(Sort(Merge Join(Index Scan part using pk_part, Materialize(Sort("),
        "{}",
        p.signature()
    );
}

/// A join clause is the first outer and the first inner member of its class (orders'
/// key before l1's in Q21, as the WHERE clause names them), but an anti join's clause is
/// no class member and stays as written. PostgreSQL 15 at SF 10 with enable_nestloop off
/// (a kept load): `Hash Semi Join ... Hash Cond: (orders.o_orderkey = l2.l_orderkey)`,
/// 9,984 of 389,649 rows (eqjoinsel_semi's nd2/nd1 with o_orderkey's 15 M distinct
/// values), then `Merge Anti Join ... Merge Cond: (l1.l_orderkey = l3.l_orderkey)`, 1
/// row. The model took l1.l_orderkey for both: the semi join kept every row (+6.1 %).
#[test]
fn a_semi_join_clause_takes_the_first_class_member_and_an_anti_join_its_own() {
    let (sf, d) = &catalogs()[2];
    let mut env = PgJoinEnv::default();
    env.opts.enable_nestloop = false;
    let pg = PgJoinPlanner::new(&d.pg, env).unwrap();
    let p = pg.plan(&query(21, *sf).unwrap(), &knobs()).unwrap();
    let joins = |kind: &str| {
        let mut v = Vec::new();
        p.tree.walk(&mut |n| {
            if n.details.iter().any(|l| l == kind) {
                v.push((n.rows, n.children[0].rows));
            }
        });
        v
    };
    let semi = joins("Join Type: Semi");
    assert_eq!(semi.len(), 1, "{}", p.signature());
    let (rows, outer_rows) = semi[0];
    assert!(
        outer_rows > 1000.0 && rows < 0.1 * outer_rows,
        "semi join: {rows} of {outer_rows} rows"
    );
    let anti = joins("Join Type: Anti");
    assert_eq!(anti.len(), 1, "{}", p.signature());
    assert!(anti[0].0 < 0.01 * anti[0].1, "anti join: {:?}", anti[0]);
}

/// A condition over two references of one table keeps both: `o2.o_orderkey = o1.o_orderkey
/// + 1` is a join condition of o1 and o2 (issue 46's self-join, once read as a filter of o2
/// on itself, `(o_orderkey = (o_orderkey + 1))` at its scan).
#[test]
fn a_self_join_on_an_expression_joins_the_two_references() {
    let text = explain_sql(
        "SELECT count(*) FROM orders o1 JOIN orders o2 ON o2.o_orderkey = o1.o_orderkey + 1
         WHERE o1.o_orderdate BETWEEN '1995-01-01' AND '1995-01-02'",
    );
    assert!(
        text.contains("(o2.o_orderkey = (o1.o_orderkey + 1))"),
        "{text}"
    );
    assert!(!text.contains("(o_orderkey = (o_orderkey + 1))"), "{text}");
}

/// EXPLAIN's text names a join with its type as the server does (issue 46: "Merge Semi
/// Join", "Hash Anti Join", "Nested Loop Left Join" where the model printed the plain
/// method with a "Join Type:" line, which only the other formats have). The same query as
/// the test above, whose semi and anti joins are a hash and a merge join.
#[test]
fn explain_text_names_joins_with_their_type() {
    let (sf, d) = &catalogs()[2];
    let mut env = PgJoinEnv::default();
    env.opts.enable_nestloop = false;
    let pg = PgJoinPlanner::new(&d.pg, env).unwrap();
    let text = pg
        .plan(&query(21, *sf).unwrap(), &knobs())
        .unwrap()
        .explain();
    assert!(text.contains("Hash Semi Join  (cost="), "{text}");
    assert!(text.contains("Merge Anti Join  (cost="), "{text}");
    assert!(!text.contains("Join Type:"), "{text}");
}
