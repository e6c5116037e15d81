//! The eight tables as logical columns with their statistics and InnoDB row widths, the
//! engine-neutral description both engines' tables are built from.

use super::scale::*;
use super::stats::*;
use costlab_model::catalog::{Column, ColumnType};
use costlab_model::error::Result;

// ---- the tables ------------------------------------------------------------------------

/// Logical description of one table: columns and the §1.1 InnoDB row width (kit DDL).
pub(super) struct Logical {
    pub(super) name: &'static str,
    pub(super) rows: f64,
    pub(super) columns: Vec<Column>,
    pub(super) innodb_row_bytes: f64,
    pub(super) primary: &'static [&'static str],
}

pub(super) fn logical(sf: f64) -> Result<Vec<Logical>> {
    let counts = row_counts(sf)?;
    let n = |t: &str| counts.iter().find(|(x, _)| *x == t).map_or(1.0, |c| c.1);
    let (s, p, ps, c, o, l) = (
        n("supplier"),
        n("part"),
        n("partsupp"),
        n("customer"),
        n("orders"),
        n("lineitem"),
    );
    let cur = costlab_model::date::parse(CURRENT_DATE).unwrap_or(9298) as f64;
    let ship_after_current = 1.0 - date_fraction("l_shipdate", f64::MIN, cur + 1.0);
    let receipt_before = date_fraction("l_receiptdate", f64::MIN, cur + 1.0);
    let nation_freq = 1.0 / 25.0;
    let nation_mcv: Vec<(f64, f64)> = (0..25).map(|k| (k as f64, nation_freq)).collect();
    let line_freqs: Vec<(f64, f64)> = (1..=7).map(|k| (k as f64, (8 - k) as f64 / 28.0)).collect();
    let cents = |lo: f64, hi: f64| ((hi - lo) * 100.0 + 1.0).round();

    Ok(vec![
        Logical {
            name: "region",
            rows: 5.0,
            innodb_row_bytes: 116.0,
            primary: &["r_regionkey"],
            columns: vec![
                int("r_regionkey", uniform_int(0.0, 4.0, 5.0, 1.0, 4.0)),
                fixed_text("r_name", 25, text_uniform(&REGIONS.map(String::from), 26.0)),
                varchar("r_comment", 66.0, -1.0),
            ],
        },
        Logical {
            name: "nation",
            rows: 25.0,
            innodb_row_bytes: 128.0,
            primary: &["n_nationkey"],
            columns: vec![
                int("n_nationkey", uniform_int(0.0, 24.0, 25.0, 1.0, 4.0)),
                fixed_text(
                    "n_name",
                    25,
                    text_uniform(&NATIONS.map(|x| x.0.to_string()), 26.0),
                ),
                int("n_regionkey", uniform_int(0.0, 4.0, 25.0, 0.0, 4.0)),
                varchar("n_comment", 74.0, -1.0),
            ],
        },
        Logical {
            name: "supplier",
            rows: s,
            innodb_row_bytes: 163.0,
            primary: &["s_suppkey"],
            columns: vec![
                int("s_suppkey", dense_key(s, 1.0, 4.0)),
                fixed_text("s_name", 25, stats(-1.0, 26.0)),
                varchar("s_address", 25.0, -1.0),
                int("s_nationkey", num_mcv(&nation_mcv, 4.0)),
                fixed_text("s_phone", 15, stats(-1.0, 16.0)),
                money(
                    "s_acctbal",
                    uniform_real(-999.99, 9999.99, cents(-999.99, 9999.99).min(s), 8.0),
                ),
                varchar("s_comment", 63.0, -1.0),
            ],
        },
        Logical {
            name: "part",
            rows: p,
            innodb_row_bytes: 150.0,
            primary: &["p_partkey"],
            columns: vec![
                int("p_partkey", dense_key(p, 1.0, 4.0)),
                col("p_name", ColumnType::Text, p_name_stats(34.0)),
                fixed_text(
                    "p_mfgr",
                    25,
                    text_uniform(
                        &(1..=5)
                            .map(|m| format!("Manufacturer#{m}"))
                            .collect::<Vec<_>>(),
                        26.0,
                    ),
                ),
                fixed_text("p_brand", 10, text_uniform(&all_brands(), 11.0)),
                col("p_type", ColumnType::Text, text_uniform(&all_types(), 21.6)),
                int("p_size", uniform_int(1.0, 50.0, p, 0.0, 4.0)),
                fixed_text("p_container", 10, text_uniform(&all_containers(), 11.0)),
                money(
                    "p_retailprice",
                    uniform_real(
                        901.0,
                        2098.99,
                        (20_900.0 * p / 200_000.0).clamp(1.0, 120_000.0),
                        8.0,
                    ),
                ),
                varchar("p_comment", 13.5, -0.66),
            ],
        },
        Logical {
            name: "partsupp",
            rows: ps,
            innodb_row_bytes: 162.0,
            primary: &["ps_partkey", "ps_suppkey"],
            columns: vec![
                int("ps_partkey", {
                    let mut st = dense_key(p, 1.0, 4.0);
                    st.n_distinct = -0.25;
                    st
                }),
                int("ps_suppkey", {
                    let mut st = dense_key(s, 0.0, 4.0);
                    st.n_distinct = s;
                    st
                }),
                int("ps_availqty", uniform_int(1.0, 9999.0, ps, 0.0, 4.0)),
                money(
                    "ps_supplycost",
                    uniform_real(1.0, 1000.0, cents(1.0, 1000.0).min(ps), 8.0),
                ),
                varchar("ps_comment", 124.0, -1.0),
            ],
        },
        Logical {
            name: "customer",
            rows: c,
            innodb_row_bytes: 179.0,
            primary: &["c_custkey"],
            columns: vec![
                int("c_custkey", dense_key(c, 1.0, 4.0)),
                varchar("c_name", 18.0, -1.0),
                varchar("c_address", 25.0, -1.0),
                int("c_nationkey", num_mcv(&nation_mcv, 4.0)),
                fixed_text("c_phone", 15, stats(-1.0, 16.0)),
                money(
                    "c_acctbal",
                    uniform_real(-999.99, 9999.99, (0.93 * c).max(1.0), 8.0),
                ),
                fixed_text(
                    "c_mktsegment",
                    10,
                    text_uniform(&SEGMENTS.map(String::from), 11.0),
                ),
                varchar("c_comment", 73.0, -1.0),
            ],
        },
        Logical {
            name: "orders",
            rows: o,
            innodb_row_bytes: 123.0,
            primary: &["o_orderkey"],
            columns: vec![
                // Sparse keys: 8 used of every 32, range [1, 4·O] (§1.2).
                col("o_orderkey", ColumnType::Int8, {
                    let mut st = stats(-1.0, 8.0);
                    st.correlation = 1.0;
                    st.histogram = linear_bounds(1.0, 4.0 * o + 1.0);
                    st
                }),
                int("o_custkey", {
                    let mut st = stats((2.0 * c / 3.0).round().max(1.0), 4.0);
                    st.histogram = linear_bounds(1.0, c + 1.0);
                    st
                }),
                fixed_text(
                    "o_orderstatus",
                    1,
                    text_mcv(&[("F", 0.486), ("O", 0.488), ("P", 0.026)], 2.0),
                ),
                money(
                    "o_totalprice",
                    uniform_real(850.0, 555_000.0, (0.99 * o).max(1.0), 8.0),
                ),
                col(
                    "o_orderdate",
                    ColumnType::Date,
                    date_stats("o_orderdate", o),
                ),
                fixed_text(
                    "o_orderpriority",
                    15,
                    text_uniform(&PRIORITIES.map(String::from), 16.0),
                ),
                fixed_text("o_clerk", 15, {
                    let clerks = (1000.0 * sf).max(1000.0);
                    stats(clerks.min(o), 16.0)
                }),
                int("o_shippriority", num_mcv(&[(0.0, 1.0)], 4.0)),
                varchar("o_comment", 48.5, -1.0),
            ],
        },
        Logical {
            name: "lineitem",
            rows: l,
            innodb_row_bytes: 134.0,
            primary: &["l_orderkey", "l_linenumber"],
            columns: vec![
                col("l_orderkey", ColumnType::Int8, {
                    let mut st = stats(o, 8.0);
                    st.correlation = 1.0;
                    st.histogram = linear_bounds(1.0, 4.0 * o + 1.0);
                    st
                }),
                int("l_partkey", {
                    let mut st = stats(p, 4.0);
                    st.histogram = linear_bounds(1.0, p + 1.0);
                    st
                }),
                int("l_suppkey", {
                    let mut st = stats(s, 4.0);
                    st.histogram = linear_bounds(1.0, s + 1.0);
                    st
                }),
                int("l_linenumber", num_mcv(&line_freqs, 4.0)),
                money("l_quantity", {
                    let mut st = uniform_int(1.0, 50.0, l, 0.0, 8.0);
                    st.avg_width = 8.0;
                    st
                }),
                money(
                    "l_extendedprice",
                    uniform_real(901.0, 104_949.5, (0.93e6 * l / 6_001_215.0).max(1.0), 8.0),
                ),
                money(
                    "l_discount",
                    num_mcv(
                        &(0..=10)
                            .map(|k| (k as f64 / 100.0, 1.0 / 11.0))
                            .collect::<Vec<_>>(),
                        8.0,
                    ),
                ),
                money(
                    "l_tax",
                    num_mcv(
                        &(0..=8)
                            .map(|k| (k as f64 / 100.0, 1.0 / 9.0))
                            .collect::<Vec<_>>(),
                        8.0,
                    ),
                ),
                fixed_text(
                    "l_returnflag",
                    1,
                    text_mcv(
                        &[
                            ("A", receipt_before / 2.0),
                            ("R", receipt_before / 2.0),
                            ("N", 1.0 - receipt_before),
                        ],
                        2.0,
                    ),
                ),
                fixed_text(
                    "l_linestatus",
                    1,
                    text_mcv(
                        &[("O", ship_after_current), ("F", 1.0 - ship_after_current)],
                        2.0,
                    ),
                ),
                col("l_shipdate", ColumnType::Date, date_stats("l_shipdate", l)),
                col(
                    "l_commitdate",
                    ColumnType::Date,
                    date_stats("l_commitdate", l),
                ),
                col(
                    "l_receiptdate",
                    ColumnType::Date,
                    date_stats("l_receiptdate", l),
                ),
                fixed_text(
                    "l_shipinstruct",
                    25,
                    text_uniform(&INSTRUCTIONS.map(String::from), 26.0),
                ),
                fixed_text(
                    "l_shipmode",
                    10,
                    text_uniform(&SHIPMODES.map(String::from), 11.0),
                ),
                varchar("l_comment", 26.5, -0.76),
            ],
        },
    ])
}
