//! PostgreSQL's physical facts of the tables: heap pages from the tuple layout, the §2.2
//! index set (btree sizes with deduplication, partial and BRIN indexes as notes).

use super::logical::*;
use crate::t1::{
    pg_tuple_bytes, pg_tuple_data_bytes, pg_tuples_per_page, PG_LINE_POINTER, PG_PAGE,
    PG_PAGE_USABLE,
};
use costlab_model::catalog::{
    Column, ColumnStats, ColumnType, Index, PgIndex, PgTable, Table, Value,
};
use costlab_pg::analyze::{expected_n_distinct, Heap, RowsPerValue, ValueGroup};

/// One index of the PostgreSQL set whose kind or predicate [`Index`] cannot express.
#[derive(Clone, Debug, PartialEq)]
pub struct PgIndexNote {
    pub table: &'static str,
    pub index: &'static str,
    /// "btree" or "brin".
    pub method: &'static str,
    /// Partial-index predicate (SQL), if any.
    pub predicate: Option<&'static str>,
    /// True share of the table's rows the predicate keeps (1 for a full index).
    pub predicate_fraction: f64,
}

/// A btree built by CREATE INDEX over `rows` keys of `key_bytes`: (pages incl. the
/// metapage, levels above the leaves). As `t1::pg_int4_btree`, for any key width.
pub fn pg_btree(rows: f64, key_bytes: f64) -> (f64, f64) {
    let item = ((8.0 + key_bytes) / 8.0).ceil() * 8.0 + PG_LINE_POINTER;
    let free = PG_PAGE - 24.0 - 16.0;
    let per_page = |fill: f64| ((free - PG_PAGE * (1.0 - fill)) / item).floor().max(2.0);
    let leaf = (rows / per_page(0.9)).ceil().max(1.0);
    let (mut pages, mut level, mut height) = (leaf, leaf, 0.0);
    while level > 1.0 {
        level = (level / per_page(0.7)).ceil();
        pages += level;
        height += 1.0;
    }
    (pages + 1.0, height)
}

/// TIDs one posting-list tuple holds when CREATE INDEX deduplicates (nbtsort.c caps a
/// posting list at half of BTMaxItemSize, 1,352 bytes on 8 kB pages: a 16-byte key part
/// and 6-byte TIDs).
pub(super) const PG_POSTING_MAX_TIDS: u32 = 222;

/// A non-unique btree built by CREATE INDEX with deduplication (PostgreSQL 13 on): each
/// key's entries share one posting-list tuple (up to [`PG_POSTING_MAX_TIDS`] each), so a
/// key with `k` entries takes MAXALIGN(MAXALIGN(8 + key) + 6k) bytes instead of `k`
/// tuples. `keys` distinct keys whose entry counts follow `pmf` ((k, probability), k >= 1).
/// (pages incl. the metapage, levels above the leaves), the upper levels as [`pg_btree`].
pub fn pg_btree_dedup(keys: f64, pmf: &[(u32, f64)], key_bytes: f64) -> (f64, f64) {
    let maxalign = |b: f64| (b / 8.0).ceil() * 8.0;
    let plain = maxalign(8.0 + key_bytes);
    let bytes_of = |k: u32| {
        if k == 1 {
            return plain + PG_LINE_POINTER;
        }
        let full = k / PG_POSTING_MAX_TIDS;
        let rest = k % PG_POSTING_MAX_TIDS;
        let posting = |tids: u32| maxalign(plain + 6.0 * tids as f64) + PG_LINE_POINTER;
        full as f64 * posting(PG_POSTING_MAX_TIDS)
            + match rest {
                0 => 0.0,
                1 => plain + PG_LINE_POINTER,
                r => posting(r),
            }
    };
    let per_key: f64 = pmf.iter().map(|&(k, p)| p * bytes_of(k)).sum();
    let free = PG_PAGE - 24.0 - 16.0;
    let leaf = (keys * per_key / (free - PG_PAGE * 0.1)).ceil().max(1.0);
    let (upper, height) = pg_btree(leaf, key_bytes);
    // pg_btree's leaves here are the pivots of our leaves: its pages are our upper
    // levels (plus its metapage, which is ours).
    let upper_pages = if leaf > 1.0 { upper - 1.0 } else { 0.0 };
    (
        leaf + upper_pages + 1.0,
        if leaf > 1.0 { height + 1.0 } else { 0.0 },
    )
}

/// Entries per key of a single-column index over a column whose rows spread as `groups`,
/// when only a `fraction` of the rows (a partial index) is indexed, rows chosen
/// independently: (keys with at least one entry, pmf of their entry counts).
pub(super) fn entries_per_key(groups: &[ValueGroup], fraction: f64) -> (f64, Vec<(u32, f64)>) {
    let mut mass: Vec<f64> = Vec::new();
    let mut add = |m: u32, weight: f64| {
        // Binomial(m, fraction) entries of a value with m rows.
        let mut pk = (1.0 - fraction).powi(m as i32);
        for k in 0..=m {
            if k > 0 {
                let i = k as usize;
                if mass.len() <= i {
                    mass.resize(i + 1, 0.0);
                }
                mass[i] += weight * pk;
            }
            if fraction < 1.0 {
                pk *= (m - k) as f64 / (k + 1) as f64 * fraction / (1.0 - fraction);
            } else {
                pk = if k + 1 == m { 1.0 } else { 0.0 };
            }
        }
    };
    for g in groups {
        match g.rows {
            RowsPerValue::Exact(m) => add(m, g.values),
            RowsPerValue::Uniform { lo, hi } => {
                let w = g.values / (hi - lo + 1) as f64;
                for m in lo..=hi {
                    add(m, w);
                }
            }
            RowsPerValue::Poisson(l) => {
                // Values with at least one row, to 12 standard deviations past the mean.
                let top = (l + 12.0 * l.sqrt() + 12.0).ceil() as u32;
                let present = -(-l).exp_m1();
                let mut p = (-l).exp();
                for m in 1..=top {
                    p *= l / m as f64;
                    add(m, g.values * p / present);
                }
            }
        }
    }
    let keys: f64 = mass.iter().sum();
    let pmf = mass
        .iter()
        .enumerate()
        .filter(|(_, &w)| w > 0.0)
        .map(|(k, &w)| (k as u32, w / keys.max(f64::MIN_POSITIVE)))
        .collect();
    (keys, pmf)
}

/// (table, name, columns, unique, method, predicate, predicate fraction) of §2.2.
pub(super) type PgDef = (
    &'static str,
    &'static [&'static str],
    bool,
    &'static str,
    Option<&'static str>,
);

pub(super) fn pg_indexes(table: &str) -> Vec<(&'static str, PgDef)> {
    match table {
        "supplier" => vec![(
            "supplier_s_suppkey_idx_like",
            (
                "supplier",
                &["s_suppkey"],
                false,
                "btree",
                Some("s_comment LIKE '%Customer%Complaints%'"),
            ),
        )],
        "partsupp" => vec![(
            "partsupp_ps_suppkey_idx",
            ("partsupp", &["ps_suppkey"], false, "btree", None),
        )],
        "customer" => vec![(
            "customer_c_nationkey_c_custkey_idx",
            (
                "customer",
                &["c_nationkey", "c_custkey"],
                false,
                "btree",
                None,
            ),
        )],
        "orders" => vec![
            (
                "orders_o_custkey_idx",
                ("orders", &["o_custkey"], false, "btree", None),
            ),
            (
                "orders_o_orderdate_idx",
                ("orders", &["o_orderdate"], false, "brin", None),
            ),
        ],
        "lineitem" => vec![
            (
                "lineitem_l_orderkey_idx_l_returnflag",
                (
                    "lineitem",
                    &["l_orderkey"],
                    false,
                    "btree",
                    Some("l_returnflag = 'R'"),
                ),
            ),
            (
                "lineitem_l_orderkey_idx_part2",
                (
                    "lineitem",
                    &["l_orderkey"],
                    false,
                    "btree",
                    Some("l_commitdate < l_receiptdate AND l_shipdate < l_commitdate"),
                ),
            ),
            (
                "lineitem_l_orderkey_l_suppkey_idx",
                (
                    "lineitem",
                    &["l_orderkey", "l_suppkey"],
                    false,
                    "btree",
                    Some("l_commitdate < l_receiptdate"),
                ),
            ),
            (
                "lineitem_l_shipdate_idx",
                ("lineitem", &["l_shipdate"], false, "brin", None),
            ),
            (
                "lineitem_l_receiptdate_idx",
                ("lineitem", &["l_receiptdate"], false, "brin", None),
            ),
        ],
        _ => Vec::new(),
    }
}

/// True share of rows a §2.2 partial-index predicate keeps (§1.2, §1.4).
pub(super) fn pg_predicate_fraction(predicate: Option<&str>, returnflag_r: f64) -> f64 {
    match predicate {
        None => 1.0,
        Some(p) if p.starts_with("s_comment") => 0.0005,
        Some(p) if p.starts_with("l_returnflag") => returnflag_r,
        Some(p) if p.contains("l_shipdate") => 0.1197,
        Some(_) => 0.6321,
    }
}

pub(super) fn pg_key_bytes(t: &Logical, cols: &[&str]) -> f64 {
    cols.iter()
        .map(
            |c| match t.columns.iter().find(|x| x.name == *c).map(|x| &x.ty) {
                Some(ColumnType::Int8) => 8.0,
                _ => 4.0,
            },
        )
        .sum()
}

/// Bytes a numeric(15,2) value takes in a heap tuple: PostgreSQL stores base-10000 digit
/// groups without leading or trailing zero groups (numeric.c, make_result), two bytes each,
/// behind a 2-byte short-numeric header and a 1-byte varlena header. 17.00 is one group (5
/// bytes), 0.05 one (5), 0 none (3), 1234.56 two (7), 104949.50 three (9).
pub fn pg_numeric_bytes(v: f64) -> f64 {
    let cents = (v.abs() * 100.0).round() as u64;
    // Groups from the lowest: the fraction's group (two decimals, then two zeros), then the
    // integer part's groups.
    let mut groups = vec![cents % 100];
    let mut int = cents / 100;
    while int > 0 {
        groups.push(int % 10_000);
        int /= 10_000;
    }
    let first = groups.iter().position(|&g| g != 0);
    let last = groups.iter().rposition(|&g| g != 0);
    let digits = match (first, last) {
        (Some(a), Some(b)) => b - a + 1,
        _ => 0,
    };
    3.0 + 2.0 * digits as f64
}

/// The mean stored size of a numeric column's values over its distribution: the MCVs by
/// frequency, the rest spread evenly inside each histogram bucket (equal mass per bucket).
pub(super) fn pg_numeric_mean_bytes(s: &ColumnStats) -> f64 {
    const PER_BUCKET: usize = 64;
    let num = |v: &Value| match v {
        Value::Num(x) => Some(*x),
        _ => None,
    };
    let mcv_mass: f64 = s.mcv.iter().map(|(_, f)| f).sum();
    let mut total: f64 = s
        .mcv
        .iter()
        .filter_map(|(v, f)| num(v).map(|x| f * pg_numeric_bytes(x)))
        .sum();
    let bounds: Vec<f64> = s.histogram.iter().filter_map(num).collect();
    if bounds.len() >= 2 && mcv_mass < 1.0 {
        let per = (1.0 - mcv_mass) / ((bounds.len() - 1) * PER_BUCKET) as f64;
        for w in bounds.windows(2) {
            for k in 0..PER_BUCKET {
                let x = w[0] + (w[1] - w[0]) * (k as f64 + 0.5) / PER_BUCKET as f64;
                total += per * pg_numeric_bytes(x);
            }
        }
        total
    } else if mcv_mass > 0.0 {
        total / mcv_mass
    } else {
        s.avg_width
    }
}

/// How DBT3's columns spread over their values, for ANALYZE's sample-based distinct
/// estimate ([`costlab_pg::analyze`]): the value groups and whether a value's rows lie side
/// by side. `None`: the column keeps the count the generator's rules give (few values,
/// which every sample sees; unique keys; dates; text, whose repeats the rules do not say).
pub(super) fn pg_value_groups(
    table: &str,
    column: &Column,
    rows: f64,
    n: &dyn Fn(&str) -> f64,
) -> Option<(Vec<ValueGroup>, bool)> {
    let poisson = |values: f64| ValueGroup {
        values,
        rows: RowsPerValue::poisson_for_present_mean(rows / values.max(1.0)),
    };
    let (o, p, s, c) = (n("orders"), n("part"), n("supplier"), n("customer"));
    Some(match (table, column.name.as_str()) {
        // §1.2: 1 to 7 lines an order, loaded in order key order.
        ("lineitem", "l_orderkey") => (
            vec![ValueGroup {
                values: o,
                rows: RowsPerValue::Uniform { lo: 1, hi: 7 },
            }],
            true,
        ),
        // Four suppliers a part, loaded in part key order.
        ("partsupp", "ps_partkey") => (
            vec![ValueGroup {
                values: p,
                rows: RowsPerValue::Exact(4),
            }],
            true,
        ),
        ("partsupp", "ps_suppkey") => (
            vec![ValueGroup {
                values: s,
                rows: RowsPerValue::Exact((rows / s).round().max(1.0) as u32),
            }],
            false,
        ),
        ("lineitem", "l_partkey") => (vec![poisson(p)], false),
        ("lineitem", "l_suppkey") => (vec![poisson(s)], false),
        // A random customer, but one whose key is a multiple of 3 (no orders, §4.2.3)
        // gives its draw to the next key: a third of the customers get twice the orders
        // of another third.
        ("orders", "o_custkey") => (
            vec![
                ValueGroup {
                    values: c / 3.0,
                    rows: RowsPerValue::Poisson(2.0 * o / c),
                },
                ValueGroup {
                    values: c / 3.0,
                    rows: RowsPerValue::Poisson(o / c),
                },
            ],
            false,
        ),
        // Prices and quantities drawn per row: values met a Poisson number of times.
        (_, name)
            if column.stats.mcv.is_empty()
                && matches!(
                    name,
                    "s_acctbal"
                        | "c_acctbal"
                        | "p_retailprice"
                        | "ps_supplycost"
                        | "ps_availqty"
                        | "o_totalprice"
                        | "l_extendedprice"
                ) =>
        {
            let nd = column.stats.n_distinct;
            let values = if nd < 0.0 { -nd * rows } else { nd };
            (vec![poisson(values)], false)
        }
        _ => return None,
    })
}

pub(super) fn pg_table(t: &Logical, counts: &[(&str, f64)], notes: &mut Vec<PgIndexNote>) -> Table {
    // PostgreSQL's numeric is a varlena as long as its digits: the heap layout takes each
    // numeric column's mean stored size, pg_stats the truncated mean as ANALYZE stores it
    // (stawidth is an integer).
    let mut columns = t.columns.clone();
    for c in columns.iter_mut().filter(|c| c.ty == ColumnType::Numeric) {
        c.stats.avg_width = pg_numeric_mean_bytes(&c.stats);
    }
    // Rows of varying length (text, numeric) end anywhere in their last 8 bytes: each
    // tuple's MAXALIGN pads 3.5 bytes on average, and pages hold a mean number of them.
    let varying = columns
        .iter()
        .any(|c| matches!(c.ty, ColumnType::Text | ColumnType::Numeric));
    let per_page = if varying {
        PG_PAGE_USABLE / (pg_tuple_data_bytes(&columns) + 3.5 + PG_LINE_POINTER)
    } else {
        pg_tuples_per_page(pg_tuple_bytes(&columns))
    };
    for c in columns.iter_mut().filter(|c| c.ty == ColumnType::Numeric) {
        c.stats.avg_width = (c.stats.avg_width + 1e-9).floor();
    }
    let heap = (t.rows / per_page).ceil().max(1.0);
    // n_distinct as ANALYZE's sample estimates it, not the true count.
    let n = |name: &str| counts.iter().find(|(x, _)| *x == name).map_or(1.0, |c| c.1);
    for c in columns.iter_mut() {
        if let Some((groups, clustered)) = pg_value_groups(t.name, c, t.rows, &n) {
            let layout = Heap {
                rows: t.rows,
                pages: heap,
                clustered,
            };
            c.stats.n_distinct = expected_n_distinct(&groups, &layout);
        }
    }
    let returnflag_r = t
        .columns
        .iter()
        .find(|c| c.name == "l_returnflag")
        .and_then(|c| {
            c.stats
                .mcv
                .iter()
                .find(|(v, _)| *v == Value::Text("R".into()))
        })
        .map_or(0.0, |(_, f)| *f);
    // `eligible`: the share of the column's values whose rows the index may hold (a
    // partial index's predicate can depend on the row's group, not on the row alone).
    let btree =
        |name: &str, cols: &[&str], unique: bool, primary: bool, rows: f64, eligible: f64| {
            let key_bytes = pg_key_bytes(t, cols);
            // A non-unique index over one column whose repeats we know is deduplicated.
            let repeats = match cols {
                [col] if !unique => t
                    .columns
                    .iter()
                    .find(|c| c.name == *col)
                    .and_then(|c| pg_value_groups(t.name, c, t.rows, &n)),
                _ => None,
            };
            let (pages, height) = match repeats {
                Some((mut groups, _)) => {
                    for g in &mut groups {
                        g.values *= eligible;
                    }
                    let (keys, pmf) = entries_per_key(&groups, (rows / t.rows / eligible).min(1.0));
                    pg_btree_dedup(keys, &pmf, key_bytes)
                }
                None => pg_btree(rows, key_bytes),
            };
            Index {
                name: name.into(),
                columns: cols.iter().map(|c| c.to_string()).collect(),
                include: Vec::new(),
                unique,
                primary,
                pg: Some(PgIndex {
                    pages,
                    tree_height: height,
                }),
                mysql: None,
                expressions: Vec::new(),
                method: Default::default(),
            }
        };
    let pk_name = format!("pk_{}", t.name);
    let mut indexes = vec![btree(&pk_name, t.primary, true, true, t.rows, 1.0)];
    for (name, (table, cols, unique, method, predicate)) in pg_indexes(t.name) {
        let fraction = pg_predicate_fraction(predicate, returnflag_r);
        // §1.4: a line is returned ('R' or 'A', even odds) when it was received by the
        // current date, so only the lines of orders received by then can be 'R'.
        let eligible = match predicate {
            Some(p) if p.starts_with("l_returnflag") => (2.0 * returnflag_r).clamp(1e-9, 1.0),
            _ => 1.0,
        };
        if method == "brin" {
            // 128 heap pages per range; ~7 kB of BRIN tuples (~ 28 B each) per page,
            // plus the metapage and one revmap page per ~1,360 ranges.
            let ranges = (heap / 128.0).ceil();
            let pages = 1.0 + (ranges / 1360.0).ceil() + (ranges / 290.0).ceil();
            indexes.push(Index {
                name: name.into(),
                columns: cols.iter().map(|c| c.to_string()).collect(),
                include: Vec::new(),
                unique,
                primary: false,
                pg: Some(PgIndex {
                    pages,
                    tree_height: 0.0,
                }),
                mysql: None,
                expressions: Vec::new(),
                method: Default::default(),
            });
        } else {
            indexes.push(btree(
                name,
                cols,
                unique,
                false,
                (t.rows * fraction).max(1.0),
                eligible,
            ));
        }
        notes.push(PgIndexNote {
            table,
            index: name,
            method,
            predicate,
            predicate_fraction: fraction,
        });
    }
    Table {
        name: t.name.into(),
        rows: t.rows,
        columns,
        indexes,
        pg: Some(PgTable {
            pages: heap,
            reltuples: t.rows,
            relpages: heap,
            relallvisible: heap,
        }),
        mysql: None,
    }
}
