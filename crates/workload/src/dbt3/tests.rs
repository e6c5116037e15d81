//! Plan choices of the seed (WL#8737's DBT3 runs, `mysql-wl8737-io-aware-cost-defaults.txt`)
//! and invariants of the DBT3 join planner.
//!
//! Settings: the seed's server constants are MySQL 5.7's (mysql-cost-model.md §1.2, §7.5);
//! SF 10; the in-memory server (36 GB pool, InnoDB reports every table cached) and the
//! disk-bound one (1 GB pool, §3.2 heuristic, mrr_cost_based=off, batched_key_access=on).

use super::catalog::dbt3;
use super::queries::{all, query};
use costlab_model::knobs::{Engine, EngineVersion, Knob, KnobValues};
use costlab_mysql::join::{
    wl8737_disk_bound, wl8737_in_memory, JoinEnv, JoinPlan, MysqlJoinPlanner, SjStrategy,
};
use costlab_sim::{builtin, Simulator};

fn knobs_57(mbrc: f64, io: f64, mrr_cost_based: bool) -> KnobValues {
    let mut k = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
    k.set(Knob::MemoryBlockReadCost, mbrc).unwrap();
    k.set(Knob::IoBlockReadCost, io).unwrap();
    k.set(Knob::MrrCostBased, if mrr_cost_based { 1.0 } else { 0.0 })
        .unwrap();
    k
}

/// Query `n` at scale factor 10, the seed's, planned on `db` (tables at SF 10).
fn plan(db: &MysqlJoinPlanner, n: u8, k: &KnobValues) -> JoinPlan {
    db.plan(&query(n, 10.0).unwrap(), k).unwrap()
}

fn in_memory_sf10() -> MysqlJoinPlanner {
    MysqlJoinPlanner::new(&dbt3(10.0).unwrap().mysql, wl8737_in_memory()).unwrap()
}

fn first_access(p: &JoinPlan) -> (&str, &'static str) {
    (p.order[0].alias.as_str(), p.order[0].access)
}

/// Seed, in memory: "Q6 ... range scan instead of table scan" and "Q12 ... range scan
/// instead of table scan" between memory_block_read_cost 1.0 and 0.5.
///
/// Reproduced: the table scan at 1.0, the range from mbrc ≈ 0.525 down. The deciding terms
/// (test_quick_select, §4.5): range = R_est·mbrc + R_est·rec against the scan's P·mbrc +
/// N·rec, P = N/114. A year of ship (receipt) dates is 15.17 % (15.16 %) of lineitem;
/// InnoDB's dive (btr_estimate_n_rows_in_range_low, §4.3) parts at the root of
/// i_l_shipdate, then extrapolates the level below it from the 13-odd pages strictly
/// between the borders (missing about one, 7 %) and doubles the leaves' count: R_est ≈
/// 1.85 × true = 0.281·N. At 0.5 the range costs 0.281·N·0.7 = 0.197·N against the scan's
/// 0.204·N. With the dive taken as exactly 2 × true (this model until session 12) the
/// range cost 0.212·N and the switch lay at 0.47: the seed's 0.5 was missed by the page
/// InnoDB's extrapolation does not count.
#[test]
fn q6_and_q12_move_from_table_scan_to_range() {
    let db = in_memory_sf10();
    for (n, index) in [(6, "i_l_shipdate"), (12, "i_l_receiptdate")] {
        let at = |mbrc: f64| plan(&db, n, &knobs_57(mbrc, 1.0, true));
        let p10 = at(1.0);
        assert_eq!(first_access(&p10), ("lineitem", "ALL"), "Q{n} at 1.0");
        let p05 = at(0.5);
        assert_eq!(first_access(&p05), ("lineitem", "range"), "Q{n} at 0.5");
        assert_eq!(p05.order[0].index.as_deref(), Some(index));
        assert_eq!(first_access(&at(0.2)), ("lineitem", "range"), "Q{n} at 0.2");
        // The switch lies just above 0.5.
        assert_eq!(
            first_access(&at(0.52)),
            ("lineitem", "range"),
            "Q{n} at 0.52"
        );
        assert_eq!(first_access(&at(0.54)), ("lineitem", "ALL"), "Q{n} at 0.54");
        // The range is faster than the scan, as in the seed (31.4 s → 20.7 s, 35.5 s →
        // 23.7 s).
        let (sim, _) = sims();
        let (t10, _) = timed(&db, &sim, n, &knobs_57(1.0, 1.0, true));
        let (t05, _) = timed(&db, &sim, n, &knobs_57(0.5, 1.0, true));
        assert!(t05 < 0.8 * t10, "Q{n}: {t05} vs {t10}");
    }
}

/// Seed, in memory: "Q20 ... FirstMatch instead of Materialization" at 0.2 (0.5 kept
/// Materialization).
///
/// Reproduced, predicted (nothing fitted to it): MaterializeLookup at 1.0 and 0.5,
/// FirstMatch from about 0.324 down. The terms (§6): FirstMatch pays, per supplier of
/// CANADA (estimate 2.5 nations × 4,000), a ref of 80 partsupp rows (page_read_cost(80)
/// = 80·mbrc) and an eq_ref into part per partsupp row (800k × mbrc), i.e. almost all of
/// it scales with mbrc; Materialization scans part once (19.6k pages · mbrc + 2M · rec)
/// and pays the temporary table's rows at memory_temptable_row_cost, which do not scale
/// with mbrc. The comparison `ps_availqty > (SELECT ... correlated ...)` filters nothing
/// in either plan: MySQL's `Item_func::contributes_to_filter` refuses a dependent
/// subquery operand, so all 800k partsupp rows reach part (FirstMatch) and the
/// materialized nest is three times the 1/3 guess. With that guess the crossover was at
/// ≈ 0.525, above the seed's 0.5.
///
/// The regression is reproduced in the simulation (seed 3.17 s → 6.73 s, model ≈ 2.4 s →
/// 5.2 s). The correlated `ps_availqty > (SELECT ... FROM lineitem ...)` is attached to
/// partsupp, so it runs once per partsupp row reached, before its own filter: under
/// Materialization for the 8.7k partsupp rows of the 21.7k `forest%` parts (SF 10),
/// under FirstMatch for all 80 partsupp rows of each of the 4,000 Canadian suppliers
/// (320k), each a ref of 7.5 lineitem rows through i_l_suppkey_partkey (random clustered
/// lookups). The work counts those 7.5 rows from the index's true rows per
/// (l_partkey, l_suppkey) pair (not the product of the columns' distinct counts, which
/// gave 1) and the executions before the subquery's own filter (not the 68.6 % that pass
/// it). FirstMatch's early stop at a supplier's first match (~20 % fewer partsupp rows)
/// is not modelled.
#[test]
fn q20_moves_from_materialization_to_firstmatch() {
    let db = in_memory_sf10();
    let strategy = |mbrc: f64| plan(&db, 20, &knobs_57(mbrc, 1.0, true)).strategies;
    assert_eq!(strategy(1.0), vec![SjStrategy::MaterializeLookup]);
    assert_eq!(strategy(0.2), vec![SjStrategy::FirstMatch]);
    // Seed: Materialization still at 0.5, FirstMatch at 0.2; model: the switch at ≈ 0.324.
    assert_eq!(strategy(0.5), vec![SjStrategy::MaterializeLookup]);
    assert_eq!(strategy(0.31), vec![SjStrategy::FirstMatch]);
    assert_eq!(strategy(0.34), vec![SjStrategy::MaterializeLookup]);
    // FirstMatch runs slower, as the seed measured (over 1.5×; seed 2.1×).
    let (sim, _) = sims();
    let (t10, _) = timed(&db, &sim, 20, &knobs_57(1.0, 1.0, true));
    let (t02, _) = timed(&db, &sim, 20, &knobs_57(0.2, 1.0, true));
    assert!(t02 > 1.5 * t10, "{t02} vs {t10}");
}

/// Seed, in memory: "Q7 ... caused by new join order" at 0.2, a regression (10.4 s at 1.0,
/// 11.5 s at 0.5, 16.5 s at 0.2).
///
/// Reproduced: at 1.0 and 0.5 the customer side leads (n1, n2 → customer ref
/// i_c_nationkey → orders ref i_o_custkey → lineitem ref PRIMARY → supplier eq_ref, §5.3
/// B); at 0.2 the supplier side (n2, n1 → supplier ref i_s_nationkey → lineitem ref
/// i_l_suppkey → orders eq_ref → customer eq_ref, §5.3 A). The terms: B reaches lineitem
/// through the clustered PK prefix, `read_cost(PK, 1, 4)` ≈ one page per order, while A
/// pays `page_read_cost(600)` per supplier, one page per lineitem row, but produces
/// fewer estimated rows (12.5 nation pairs × 4,000 suppliers × 600 lines against 12.5 ×
/// 60,000 customers × 15 orders × 4 lines), so fewer `rec` terms. With cheap pages the
/// `rows × rec` terms decide and A wins. The simulated time rises, as in the seed.
#[test]
fn q7_changes_join_order_at_0_2() {
    let db = in_memory_sf10();
    let order = |mbrc: f64| {
        plan(&db, 7, &knobs_57(mbrc, 1.0, true))
            .join_order()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    let base = order(1.0);
    assert_eq!(
        base,
        ["n1", "n2", "customer", "orders", "lineitem", "supplier"]
    );
    assert_eq!(order(0.5), base);
    assert_eq!(
        order(0.2),
        ["n2", "n1", "supplier", "lineitem", "orders", "customer"]
    );
    let (sim, _) = sims();
    let (t10, _) = timed(&db, &sim, 7, &knobs_57(1.0, 1.0, true));
    let (t02, _) = timed(&db, &sim, 7, &knobs_57(0.2, 1.0, true));
    assert!(t02 > 1.2 * t10, "{t02} vs {t10}");
}

/// Seed, disk-bound (1 GB pool, mrr_cost_based=off, batched_key_access=on): "Q5 ...
/// improved join order" (3560 s → 276 s) and "Q8 ... improved join order" (1118 s →
/// 627 s) when io_block_read_cost goes from 1.0 to 2.0 (the same 276 s and 627 s at 3.0).
///
/// The §3.2 heuristic gives f = 0 for lineitem, orders and partsupp (larger than the
/// pool), ~0.9 for customer and part, 1 for the small tables, so raising io raises the
/// page terms of the big tables only.
///
/// Q8: reproduced, join order and direction. At 1.0 the part-driven order (region, part
/// ALL + join buffer → lineitem ref on (l_partkey, l_suppkey) → supplier, n2, orders,
/// customer, n1 eq_ref; §5.4 A) wins; at 2.0 the orders-driven one (region → n1 → orders
/// ALL + join buffer → customer eq_ref → lineitem ref PRIMARY → ...; §5.4 B/C). A pays
/// one io-priced page per lineitem row through a secondary index (est. 0.1 × parts × 30
/// rows: MySQL's 0.1 guess for p_type, true 1/150); B scans orders and reaches lineitem
/// through the clustered PK prefix, so doubling io hurts A more. In the simulation B is
/// faster, as in the seed: its scan of orders hands lineitem's lookups over in
/// l_orderkey order, so they sweep lineitem's clustered index upwards (83 % of its pages,
/// read-ahead) instead of seeking, and the small tables it probes millions of times
/// (customer, supplier, nation, part) stay in the pool. A's lookups (BKA on
/// i_l_suppkey_partkey: 650 parts per 256 kB join buffer, 20k rowids per sweep over
/// 527k pages) stay random reads.
///
/// Q5: the join order changes and the time falls (model ≈ 8,900 s → 310 s, seed 3,560 s
/// → 276 s), but at io ≈ 2.8, not by 2.0: at 2.0 the customer-driven order (region →
/// nation → customer ref i_c_nationkey → orders ref i_o_custkey → lineitem ref PRIMARY
/// → supplier eq_ref; §5.1 A) still costs 10.35M against ≈ 12.0M for the orders-driven
/// one (region → orders ALL + join buffer → customer eq_ref → nation eq_ref → lineitem
/// ref PRIMARY → supplier eq_ref; §5.1 B), which wins from 3.0. Per unit of io, A pays
/// 15 orders pages per estimated customer (2.25M) plus one lineitem page per order
/// (0.68M), B one scan of orders (0.12M), 0.2M for customer's uncached tenth and 0.46M
/// for lineitem, so B gains 2.15M per unit and needs 1.8 units to close its 3.9M gap at
/// 1.0. That gap comes from B's rows after orders: 4.55M estimated from the range
/// optimizer's doubled records_in_range on i_o_orderdate (§4.3, true 2.27M), which every
/// later eq_ref pays for. With exact estimates (`innodb_inexact_estimates` off) an
/// orders-driven order (region → nation → orders ALL + join buffer → customer eq_ref → ...)
/// already wins at 2.0 and A still at 1.0. The doubling is kept: it is what reproduces WL#8737's own t1 switch
/// points (§7.5).
#[test]
fn q5_and_q8_join_order_with_io_block_read_cost() {
    let db = MysqlJoinPlanner::new(&dbt3(10.0).unwrap().mysql, wl8737_disk_bound()).unwrap();
    let (_, sim) = sims();
    let a = [
        "region", "nation", "customer", "orders", "lineitem", "supplier",
    ];
    let b = [
        "region", "orders", "customer", "nation", "lineitem", "supplier",
    ];
    assert_eq!(at_io(&db, 5, 1.0).join_order(), a);
    // Seed: already the new order at 2.0; model: from ~2.8.
    assert_eq!(at_io(&db, 5, 2.0).join_order(), a);
    assert_eq!(at_io(&db, 5, 3.0).join_order(), b);
    let k = |io: f64| knobs_57(1.0, io, false);
    let (t1, _) = timed(&db, &sim, 5, &k(1.0));
    let (t3, _) = timed(&db, &sim, 5, &k(3.0));
    assert!(t3 < 0.2 * t1, "Q5: {t3} vs {t1}");

    let (q8a, q8b) = (at_io(&db, 8, 1.0), at_io(&db, 8, 2.0));
    assert_eq!(q8a.join_order()[..3], ["region", "part", "lineitem"]);
    assert_eq!(
        q8b.join_order()[..4],
        ["region", "n1", "orders", "customer"]
    );
    let (t1, _) = timed(&db, &sim, 8, &k(1.0));
    let (t2, _) = timed(&db, &sim, 8, &k(2.0));
    assert!(t2 < 0.5 * t1, "Q8: {t2} vs {t1}");
}

fn at_io(db: &MysqlJoinPlanner, n: u8, io: f64) -> JoinPlan {
    plan(db, n, &knobs_57(1.0, io, false))
}

/// Scaling all eight constants by the same factor changes no plan (Bug #75695, §8).
#[test]
fn uniform_scaling_keeps_every_plan() {
    let db = in_memory_sf10();
    let base = knobs_57(0.5, 1.0, true);
    let mut scaled = base.clone();
    scaled.scale_costs(Engine::Mysql, 3.0);
    for n in 1..=22 {
        let (a, b) = (plan(&db, n, &base), plan(&db, n, &scaled));
        assert_eq!(a.signature(), b.signature(), "Q{n}");
        // Not exactly 3×: consider_plan's sort cost is prefix_rowcount, independent of
        // every constant (§8 flaw 7).
        assert!(b.cost > a.cost && b.cost <= 3.0 * a.cost + 1e-6, "Q{n}");
    }
}

/// Simulated seconds of query `n`'s plan at `k` on the in-memory or the disk-bound server.
fn timed(db: &MysqlJoinPlanner, sim: &Simulator, n: u8, k: &KnobValues) -> (f64, String) {
    let p = plan(db, n, k);
    let t = sim.time_plan(&p.tree).unwrap().total_s;
    assert!(t.is_finite() && t > 0.0, "Q{n}");
    (t, p.signature())
}

fn sims() -> (Simulator, Simulator) {
    (
        Simulator::new(&builtin::find("wl8737-memory").unwrap(), Engine::Mysql).unwrap(),
        Simulator::new(&builtin::find("wl8737-disk").unwrap(), Engine::Mysql).unwrap(),
    )
}

/// A change of time as "faster", "slower" or "flat" (within 5 %).
fn direction(base: f64, x: f64) -> &'static str {
    let r = x / base - 1.0;
    if r.abs() < 0.05 {
        "flat"
    } else if r < 0.0 {
        "faster"
    } else {
        "slower"
    }
}

/// The seed's table beside the model's simulated times: for each query and setting, the
/// time moves from the 1.0 baseline the way the seed's did (faster, slower, or flat
/// within 5 %), except exactly where the model's plan changes at another setting than the
/// seed's, each explained by the flip tests above: Q5 keeps its join order at io
/// 2.0 (switch at ≈ 2.8); and Q7 at 0.5, the seed's "tiny regression" (+11 %), where the
/// model keeps plan and time (its join order changes at 0.2, as the seed's 16.5 s says).
/// The seed's disk-bound column "2.0/3.0" is one measurement for both settings (its 4.0
/// column is not used). Times themselves are not compared.
/// (Planning time is `costlab dbt3 --timings`.)
#[test]
fn simulated_times_move_the_seeds_way_except_where_the_model_flips_elsewhere() {
    let mem = in_memory_sf10();
    let disk = MysqlJoinPlanner::new(&dbt3(10.0).unwrap().mysql, wl8737_disk_bound()).unwrap();
    let (sim_mem, sim_disk) = sims();
    // (query, server, planner, simulator, seed seconds at the three settings)
    type Case<'a> = (u8, &'a str, &'a MysqlJoinPlanner, &'a Simulator, [f64; 3]);
    let memory: [Case; 4] = [
        (6, "memory", &mem, &sim_mem, [31.4, 20.7, 21.0]),
        (7, "memory", &mem, &sim_mem, [10.4, 11.5, 16.5]),
        (12, "memory", &mem, &sim_mem, [35.5, 23.7, 23.5]),
        (20, "memory", &mem, &sim_mem, [3.17, 3.21, 6.73]),
    ];
    let disk_bound: [Case; 3] = [
        (5, "disk", &disk, &sim_disk, [3560.0, 276.0, 276.0]),
        (8, "disk", &disk, &sim_disk, [1118.0, 627.0, 627.0]),
        (12, "disk", &disk, &sim_disk, [207.0, 208.0, 208.0]),
    ];
    let mut differ = Vec::new();
    for (cases, settings) in [
        (&memory[..], [1.0, 0.5, 0.2]),
        (&disk_bound[..], [1.0, 2.0, 3.0]),
    ] {
        for &(n, server, db, sim, seed) in cases {
            let runs: Vec<(f64, String)> = settings
                .iter()
                .map(|&x| {
                    let k = if server == "memory" {
                        knobs_57(x, 1.0, true)
                    } else {
                        knobs_57(1.0, x, false)
                    };
                    timed(db, sim, n, &k)
                })
                .collect();
            for i in 1..3 {
                let (sd, md) = (direction(seed[0], seed[i]), direction(runs[0].0, runs[i].0));
                let plan = if runs[i].1 != runs[0].1 {
                    "changed"
                } else {
                    "same"
                };
                eprintln!(
                    "Q{n:<2} {server:6} {:3.1}: seed {:8.2} -> {:8.2} s {sd:6} | model {:8.2} -> {:8.2} s {md:6} (plan {plan})",
                    settings[i], seed[0], seed[i], runs[0].0, runs[i].0
                );
                if sd != md {
                    differ.push(format!("Q{n} {server} {} ({plan})", settings[i]));
                }
            }
        }
    }
    assert_eq!(differ, ["Q7 memory 0.5 (same)", "Q5 disk 2 (same)",]);
}

#[test]
fn bad_input_is_a_typed_error() {
    assert!(dbt3(0.005).is_err());
    assert!(dbt3(2000.0).is_err());
    assert!(query(0, 10.0).is_err());
    assert!(query(23, 10.0).is_err());
    let d = dbt3(1.0).unwrap();
    let env = JoinEnv {
        join_buffer_size: 0.0,
        ..JoinEnv::default()
    };
    assert!(MysqlJoinPlanner::new(&d.mysql, env).is_err());
    let mut env = JoinEnv::default();
    env.server.innodb_buffer_pool_size = f64::NAN;
    assert!(MysqlJoinPlanner::new(&d.mysql, env).is_err());
    let mut k = knobs_57(1.0, 1.0, true);
    assert!(k.set(Knob::MemoryBlockReadCost, -1.0).is_err());
}

/// No panic, finite non-negative costs for random MySQL knob settings inside their ranges,
/// over all 22 queries at a few scale factors, on both servers.
#[test]
fn random_knobs_plan_every_query() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let dbs: Vec<(f64, MysqlJoinPlanner)> = [0.01, 1.0, 300.0]
        .iter()
        .flat_map(|&sf| {
            let d = dbt3(sf).unwrap();
            [
                (
                    sf,
                    MysqlJoinPlanner::new(&d.mysql, wl8737_in_memory()).unwrap(),
                ),
                (
                    sf,
                    MysqlJoinPlanner::new(&d.mysql, wl8737_disk_bound()).unwrap(),
                ),
            ]
        })
        .collect();
    let knobs = [
        Knob::RowEvaluateCost,
        Knob::KeyCompareCost,
        Knob::MemoryTemptableCreateCost,
        Knob::MemoryTemptableRowCost,
        Knob::DiskTemptableCreateCost,
        Knob::DiskTemptableRowCost,
        Knob::MemoryBlockReadCost,
        Knob::IoBlockReadCost,
        Knob::MrrCostBased,
    ];
    let positions = proptest::collection::vec(0.0f64..=1.0, knobs.len());
    let mut runner = TestRunner::new(Config::with_cases(6));
    runner
        .run(&(positions, 0..dbs.len()), |(pos, which)| {
            let mut k = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql80);
            for (knob, p) in knobs.iter().zip(&pos) {
                let d = knob.def();
                k.set(*knob, d.from_position(*p).clamp(d.min, d.max))
                    .unwrap();
            }
            let (sf, db) = &dbs[which];
            for q in all(*sf).unwrap() {
                let p = db.plan(&q, &k).unwrap();
                prop_assert!(
                    p.cost.is_finite() && p.cost >= 0.0,
                    "Q{}: {}",
                    q.number,
                    p.cost
                );
                prop_assert!(p.rows.is_finite() && p.rows >= 0.0);
                let mut ok = true;
                p.tree.walk(&mut |n| {
                    ok &= n.cost.total.is_finite() && n.cost.total >= 0.0;
                    ok &= n
                        .work
                        .page_reads
                        .iter()
                        .all(|r| r.requests.is_finite() && r.requests >= 0.0);
                });
                prop_assert!(ok, "Q{}", q.number);
            }
            Ok(())
        })
        .unwrap();
}
