//! The eight DBT3 (TPC-H) tables at any scale factor from 0.01 to 1000, derived from the
//! generator's rules in `dbt3.md` (cited as §n); no data is generated.
//!
//! * Row counts: §1.1, with the SF < 1 rule of §1.3 (base × floor(1000·SF)/1000).
//! * Column statistics as pg_stats-style [`ColumnStats`]: an MCV list where a column has
//!   few values (≤ [`MCV_LIMIT`]), otherwise an equi-depth histogram of 101 bounds over the
//!   value distribution. Whole-number columns (dates included) are continuous-ised as the
//!   estimators read them: value `v` occupies `[v, v+1)`, so the last bound is `max + 1`.
//! * Dates follow the §1.4 chain exactly: ship = order + U[1,121], commit = order +
//!   U[30,90], receipt = ship + U[1,30], each a convolution of day distributions.
//! * Correlation (physical order against value order): 1 for the leading primary-key
//!   column of every table (loaded in key order; l_orderkey follows o_orderkey), 0 for the
//!   rest (dates are drawn per row, independent of the key).
//! * Physical sizes: InnoDB from the kit DDL row widths of §1.1 (16 KiB pages at 15/16
//!   fill) and the §2.1 secondary indexes (entry = key + PK + 6 bytes); PostgreSQL heap
//!   pages from the tuple layout (`t1::pg_tuple_bytes`) and the §2.2 index set (btrees built
//!   by CREATE INDEX at 90 % leaf fill; BRIN with 128 pages per range).
//!
//! The index sets differ per engine, so each engine gets its own [`Table`] list: MySQL's
//! tables carry only `mysql` facts and the §2.1 indexes, PostgreSQL's only `pg` facts and
//! the §2.2 indexes. Partial and BRIN indexes have no field in [`Index`]; they are listed
//! in [`Dbt3::pg_index_notes`] for the PostgreSQL planner of a later session.

use crate::t1::{
    pg_tuple_bytes, pg_tuple_data_bytes, pg_tuples_per_page, PG_LINE_POINTER, PG_PAGE,
    PG_PAGE_USABLE,
};
use costlab_model::catalog::{
    Column, ColumnStats, ColumnType, Index, MysqlIndex, MysqlTable, PgIndex, PgTable, Table, Value,
};
use costlab_model::error::{check_range, Error, Result};
use costlab_pg::analyze::{expected_n_distinct, Heap, RowsPerValue, ValueGroup};

/// Allowed scale factors.
pub const SF_MIN: f64 = 0.01;
pub const SF_MAX: f64 = 1000.0;
/// Columns with at most this many values get an MCV list (PostgreSQL's default
/// statistics target).
pub const MCV_LIMIT: usize = 100;
/// Histogram bounds per column (statistics target 100).
const HIST_BOUNDS: usize = 101;
/// Number of distinct order dates (§1.2, D_O).
pub const ORDER_DAYS: usize = 2406;
/// Lines per order measured at SF1 (6,001,215 / 1,500,000, §1.1).
pub const LINES_PER_ORDER: f64 = 6_001_215.0 / 1_500_000.0;
/// CURRENTDATE of dbgen (1995-06-17): returnflag / linestatus split (§1.2).
pub const CURRENT_DATE: &str = "1995-06-17";

use costlab_mysql::layout::{
    total_pages as innodb_total_pages, FILL as INNODB_FILL, PAGE as INNODB_PAGE,
    PTR_OVERHEAD as INNODB_PTR_OVERHEAD, SEC_OVERHEAD as INNODB_SEC_OVERHEAD,
    SORTED_FILL as INNODB_SORTED_FILL,
};

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

/// The DBT3 schema at one scale factor, as each engine stores it.
#[derive(Clone, Debug)]
pub struct Dbt3 {
    pub sf: f64,
    /// InnoDB: the §2.1 index set, `mysql` facts.
    pub mysql: Vec<Table>,
    /// PostgreSQL: the §2.2 index set, `pg` facts.
    pub pg: Vec<Table>,
    pub pg_index_notes: Vec<PgIndexNote>,
}

impl Dbt3 {
    pub fn mysql_table(&self, name: &str) -> Result<&Table> {
        find(&self.mysql, name)
    }
    pub fn pg_table(&self, name: &str) -> Result<&Table> {
        find(&self.pg, name)
    }
}

fn find<'a>(tables: &'a [Table], name: &str) -> Result<&'a Table> {
    tables
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| Error::UnknownTable(name.to_string()))
}

/// Checks a scale factor: finite and within [`SF_MIN`]..=[`SF_MAX`].
pub fn check_sf(sf: f64) -> Result<f64> {
    check_range("scale factor", sf, SF_MIN, SF_MAX)
}

/// dbgen's count multiplier: SF itself from 1 up, floor(1000·SF)/1000 below (§1.3).
fn count_scale(sf: f64) -> f64 {
    if sf >= 1.0 {
        sf
    } else {
        ((1000.0 * sf).floor() / 1000.0).max(0.001)
    }
}

/// Row counts per table (§1.1, §1.3), in schema order.
pub fn row_counts(sf: f64) -> Result<[(&'static str, f64); 8]> {
    let s = count_scale(check_sf(sf)?);
    let orders = (1_500_000.0 * s).round().max(1.0);
    Ok([
        ("region", 5.0),
        ("nation", 25.0),
        ("supplier", (10_000.0 * s).round().max(1.0)),
        ("part", (200_000.0 * s).round().max(1.0)),
        ("partsupp", (800_000.0 * s).round().max(4.0)),
        ("customer", (150_000.0 * s).round().max(1.0)),
        ("orders", orders),
        ("lineitem", (orders * LINES_PER_ORDER).round()),
    ])
}

// ---- date distributions (§1.4) ---------------------------------------------------------

/// Days since 1970-01-01 of 1992-01-01 (dbgen STARTDATE), day index 0 of every pmf here.
pub fn start_day() -> f64 {
    costlab_model::date::days_from_civil(1992, 1, 1) as f64
}

/// Probability of each day (index 0 = 1992-01-01) for a DBT3 date column.
pub fn date_pmf(column: &str) -> Vec<f64> {
    let order = vec![1.0 / ORDER_DAYS as f64; ORDER_DAYS];
    match column {
        "o_orderdate" => order,
        "l_shipdate" => convolve_uniform(&order, 1, 121),
        "l_commitdate" => convolve_uniform(&order, 30, 90),
        "l_receiptdate" => convolve_uniform(&convolve_uniform(&order, 1, 121), 1, 30),
        _ => Vec::new(),
    }
}

/// The distribution of `x + U[a, b]` for x with pmf `p` (prefix sums, O(n)).
fn convolve_uniform(p: &[f64], a: usize, b: usize) -> Vec<f64> {
    let w = (b - a + 1) as f64;
    let mut cum = vec![0.0; p.len() + 1];
    for (i, x) in p.iter().enumerate() {
        cum[i + 1] = cum[i] + x;
    }
    let n = p.len() + b;
    (0..n)
        .map(|d| {
            // x in [d - b, d - a]
            let hi = d as i64 - a as i64;
            let lo = d as i64 - b as i64;
            if hi < 0 {
                return 0.0;
            }
            let hi = (hi as usize).min(p.len() - 1);
            let lo = lo.max(0) as usize;
            if lo > hi {
                0.0
            } else {
                (cum[hi + 1] - cum[lo]) / w
            }
        })
        .collect()
}

/// Share of a date column's rows with `lo <= day < hi` (epoch days).
pub fn date_fraction(column: &str, lo: f64, hi: f64) -> f64 {
    let s = start_day();
    date_pmf(column)
        .iter()
        .enumerate()
        .filter(|(d, _)| {
            let day = s + *d as f64;
            day >= lo && day < hi
        })
        .map(|(_, p)| p)
        .sum()
}

/// Equi-depth bounds over a whole-number pmf whose index 0 is value `origin`; value v
/// occupies [v, v+1).
fn histogram_from_pmf(pmf: &[f64], origin: f64) -> Vec<Value> {
    let total: f64 = pmf.iter().sum();
    let first = pmf.iter().position(|p| *p > 0.0).unwrap_or(0);
    let last = pmf.iter().rposition(|p| *p > 0.0).unwrap_or(0);
    let mut out = Vec::with_capacity(HIST_BOUNDS);
    out.push(Value::Num(origin + first as f64));
    let mut cum = 0.0;
    let mut d = first;
    for i in 1..HIST_BOUNDS - 1 {
        let q = total * i as f64 / (HIST_BOUNDS - 1) as f64;
        while d <= last && cum + pmf[d] < q {
            cum += pmf[d];
            d += 1;
        }
        let within = if pmf.get(d).copied().unwrap_or(0.0) > 0.0 {
            ((q - cum) / pmf[d]).clamp(0.0, 1.0)
        } else {
            0.0
        };
        out.push(Value::Num(origin + d as f64 + within));
    }
    out.push(Value::Num(origin + last as f64 + 1.0));
    out
}

// ---- column builders -------------------------------------------------------------------

fn stats(n_distinct: f64, width: f64) -> ColumnStats {
    ColumnStats {
        n_distinct,
        avg_width: width,
        ..ColumnStats::default()
    }
}

/// Uniform whole numbers `lo..=hi`: MCVs if few, else a linear histogram.
fn uniform_int(lo: f64, hi: f64, rows: f64, correlation: f64, width: f64) -> ColumnStats {
    let ndv = (hi - lo + 1.0).min(rows).max(1.0);
    let mut s = stats(ndv, width);
    s.correlation = correlation;
    if (hi - lo + 1.0) as usize <= MCV_LIMIT {
        let f = 1.0 / (hi - lo + 1.0);
        s.mcv = (0..=(hi - lo) as usize)
            .map(|k| (Value::Num(lo + k as f64), f))
            .collect();
    } else {
        s.histogram = linear_bounds(lo, hi + 1.0);
    }
    s
}

/// Dense keys 1..=n (one row per value).
fn dense_key(n: f64, correlation: f64, width: f64) -> ColumnStats {
    let mut s = stats(-1.0, width);
    s.correlation = correlation;
    s.histogram = linear_bounds(1.0, n + 1.0);
    s
}

fn linear_bounds(lo: f64, hi: f64) -> Vec<Value> {
    (0..HIST_BOUNDS)
        .map(|i| Value::Num(lo + (hi - lo) * i as f64 / (HIST_BOUNDS - 1) as f64))
        .collect()
}

/// Uniform continuous values over [lo, hi] (money in cents is near-continuous).
fn uniform_real(lo: f64, hi: f64, ndv: f64, width: f64) -> ColumnStats {
    let mut s = stats(ndv, width);
    s.histogram = linear_bounds(lo, hi);
    s
}

/// Numbers with the given frequencies (an MCV list).
fn num_mcv(values: &[(f64, f64)], width: f64) -> ColumnStats {
    let mut s = stats(values.len() as f64, width);
    s.mcv = values.iter().map(|(v, f)| (Value::Num(*v), *f)).collect();
    sort_mcv(&mut s);
    s
}

/// Text values with the given frequencies.
fn text_mcv(values: &[(&str, f64)], width: f64) -> ColumnStats {
    let mut s = stats(values.len() as f64, width);
    s.mcv = values
        .iter()
        .map(|(v, f)| (Value::Text((*v).into()), *f))
        .collect();
    sort_mcv(&mut s);
    s
}

/// Equally frequent text values.
fn text_uniform(values: &[String], width: f64) -> ColumnStats {
    let f = 1.0 / values.len() as f64;
    if values.len() <= MCV_LIMIT {
        let mut s = stats(values.len() as f64, width);
        s.mcv = values.iter().map(|v| (Value::Text(v.clone()), f)).collect();
        return s;
    }
    let mut sorted = values.to_vec();
    sorted.sort();
    let mut s = stats(values.len() as f64, width);
    s.histogram = (0..HIST_BOUNDS)
        .map(|i| {
            let k = (i * (sorted.len() - 1)) / (HIST_BOUNDS - 1);
            Value::Text(sorted[k].clone())
        })
        .collect();
    s
}

fn sort_mcv(s: &mut ColumnStats) {
    s.mcv.sort_by(|a, b| b.1.total_cmp(&a.1));
}

fn date_stats(column: &str, rows: f64) -> ColumnStats {
    let pmf = date_pmf(column);
    let days = pmf.iter().filter(|p| **p > 0.0).count() as f64;
    let mut s = stats(days.min(rows).max(1.0), 4.0);
    s.histogram = histogram_from_pmf(&pmf, start_day());
    s
}

/// Column with a type and statistics; every DBT3 column is NOT NULL.
fn col(name: &str, ty: ColumnType, stats: ColumnStats) -> Column {
    Column {
        name: name.into(),
        ty,
        not_null: true,
        stats,
    }
}

fn varchar(name: &str, avg_len: f64, n_distinct: f64) -> Column {
    // avg_width as pg_stats reports a short varlena: the 1-byte header plus the text.
    col(name, ColumnType::Text, stats(n_distinct, avg_len + 1.0))
}

fn int(name: &str, s: ColumnStats) -> Column {
    col(name, ColumnType::Int4, s)
}

fn money(name: &str, s: ColumnStats) -> Column {
    col(name, ColumnType::Numeric, s)
}

fn fixed_text(name: &str, n: u32, s: ColumnStats) -> Column {
    col(name, ColumnType::Char(n), s)
}

// ---- value lists (§1.2) ----------------------------------------------------------------

pub const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];
/// (name, region) by n_nationkey.
pub const NATIONS: [(&str, usize); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];
pub const SEGMENTS: [&str; 5] = [
    "AUTOMOBILE",
    "BUILDING",
    "FURNITURE",
    "HOUSEHOLD",
    "MACHINERY",
];
pub const PRIORITIES: [&str; 5] = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"];
pub const SHIPMODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"];
pub const INSTRUCTIONS: [&str; 4] = [
    "DELIVER IN PERSON",
    "COLLECT COD",
    "TAKE BACK RETURN",
    "NONE",
];
/// The 92 colour words of P_NAME (§1.2), in sorting order: a name is five distinct ones.
pub const COLORS: [&str; 92] = [
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "burnished",
    "chartreuse",
    "chiffon",
    "chocolate",
    "coral",
    "cornflower",
    "cornsilk",
    "cream",
    "cyan",
    "dark",
    "deep",
    "dim",
    "dodger",
    "drab",
    "firebrick",
    "floral",
    "forest",
    "frosted",
    "gainsboro",
    "ghost",
    "goldenrod",
    "green",
    "grey",
    "honeydew",
    "hot",
    "indian",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lawn",
    "lemon",
    "light",
    "lime",
    "linen",
    "magenta",
    "maroon",
    "medium",
    "metallic",
    "midnight",
    "mint",
    "misty",
    "moccasin",
    "navajo",
    "navy",
    "olive",
    "orange",
    "orchid",
    "pale",
    "papaya",
    "peach",
    "peru",
    "pink",
    "plum",
    "powder",
    "puff",
    "purple",
    "red",
    "rose",
    "rosy",
    "royal",
    "saddle",
    "salmon",
    "sandy",
    "seashell",
    "sienna",
    "sky",
    "slate",
    "smoke",
    "snow",
    "spring",
    "steel",
    "tan",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "yellow",
];

const TYPE1: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
const TYPE2: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
const TYPE3: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
const CONTAINER1: [&str; 5] = ["SM", "LG", "MED", "JUMBO", "WRAP"];
const CONTAINER2: [&str; 8] = ["CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"];

/// p_name's statistics as ANALYZE keeps them: every sampled name distinct (`-1`) and an
/// equi-depth histogram of 101 names. A name's first word is uniform over the 92 colours,
/// so bound `i` starts with the colour at quantile i/100. Its other four words are the
/// expected sample's, not one draw: they walk the colours with a stride coprime to 92
/// (skipping the name's own), so every colour appears in about 5/92 of the bounds, as it
/// does in the names. LIKE 'forest%' then reads about 1/92 of the names from it, as the
/// server does (2,020 of 200,000 at SF 1), and a pattern inside the name ('%green%')
/// matches 5 or 6 of the 99 inner bounds, the expectation of a server's sample (40
/// ANALYZEs of one SF 1 load on PostgreSQL 18 drew 1 to 9). An earlier pseudo-random draw
/// gave 'green' 10 bounds, more than any of those samples.
fn p_name_stats(width: f64) -> ColumnStats {
    /// Coprime to 92: consecutive picks visit every colour once per 92.
    const STRIDE: usize = 37;
    let mut s = stats(-1.0, width);
    let mut pick = 0usize;
    let mut bounds: Vec<String> = (0..HIST_BOUNDS)
        .map(|i| {
            let q = i as f64 / (HIST_BOUNDS - 1) as f64;
            let first = ((q * COLORS.len() as f64) as usize).min(COLORS.len() - 1);
            let mut name = vec![first];
            while name.len() < 5 {
                let c = (pick * STRIDE) % COLORS.len();
                pick += 1;
                if !name.contains(&c) {
                    name.push(c);
                }
            }
            name.iter()
                .map(|&c| COLORS[c])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    bounds.sort();
    s.histogram = bounds.into_iter().map(Value::Text).collect();
    s
}

fn all_types() -> Vec<String> {
    let mut v = Vec::with_capacity(150);
    for a in TYPE1 {
        for b in TYPE2 {
            for c in TYPE3 {
                v.push(format!("{a} {b} {c}"));
            }
        }
    }
    v
}

fn all_containers() -> Vec<String> {
    CONTAINER1
        .iter()
        .flat_map(|a| CONTAINER2.iter().map(move |b| format!("{a} {b}")))
        .collect()
}

fn all_brands() -> Vec<String> {
    (1..=5)
        .flat_map(|m| (1..=5).map(move |n| format!("Brand#{m}{n}")))
        .collect()
}

// ---- the tables ------------------------------------------------------------------------

/// Logical description of one table: columns and the §1.1 InnoDB row width (kit DDL).
struct Logical {
    name: &'static str,
    rows: f64,
    columns: Vec<Column>,
    innodb_row_bytes: f64,
    primary: &'static [&'static str],
}

fn logical(sf: f64) -> Result<Vec<Logical>> {
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

/// (name, key columns, InnoDB key bytes) of the §2.1 secondary indexes.
type SecDef = (&'static str, &'static [&'static str], f64);

fn mysql_secondary(table: &str) -> &'static [SecDef] {
    match table {
        "lineitem" => &[
            ("i_l_shipdate", &["l_shipdate"], 3.0),
            ("i_l_suppkey_partkey", &["l_partkey", "l_suppkey"], 8.0),
            ("i_l_partkey", &["l_partkey"], 4.0),
            ("i_l_suppkey", &["l_suppkey"], 4.0),
            ("i_l_receiptdate", &["l_receiptdate"], 3.0),
            ("i_l_orderkey", &["l_orderkey"], 4.0),
            ("i_l_orderkey_quantity", &["l_orderkey", "l_quantity"], 11.0),
            ("i_l_commitdate", &["l_commitdate"], 3.0),
        ],
        "orders" => &[
            ("i_o_orderdate", &["o_orderdate"], 3.0),
            ("i_o_custkey", &["o_custkey"], 4.0),
        ],
        "customer" => &[("i_c_nationkey", &["c_nationkey"], 4.0)],
        "supplier" => &[("i_s_nationkey", &["s_nationkey"], 4.0)],
        "partsupp" => &[
            ("i_ps_partkey", &["ps_partkey"], 4.0),
            ("i_ps_suppkey", &["ps_suppkey"], 4.0),
        ],
        "nation" => &[("i_n_regionkey", &["n_regionkey"], 4.0)],
        _ => &[],
    }
}

/// Distinct values of a column prefix, from the generator rules (§2.1 rows per key).
fn prefix_distinct(t: &Logical, cols: &[&str]) -> f64 {
    let ndv = |c: &str| {
        t.columns.iter().find(|x| x.name == c).map_or(1.0, |x| {
            costlab_mysql::ranges::distinct_values(&x.stats, t.rows)
        })
    };
    let d = match cols {
        [a] => ndv(a),
        // FK pairs and line numbers: the pair is (nearly) unique or has a known count.
        ["l_orderkey", "l_linenumber"] | ["ps_partkey", "ps_suppkey"] => t.rows,
        // (part, supp) pairs: every partsupp row, 7.5 lines each (§1.4).
        ["l_partkey", "l_suppkey"] => t.rows / 7.5,
        // 5.77M distinct pairs of 6.0M rows at SF1 (§2.1).
        ["l_orderkey", "l_quantity"] => t.rows * 5.77 / 6.001215,
        _ => cols.iter().map(|c| ndv(c)).product(),
    };
    d.clamp(1.0, t.rows.max(1.0))
}

/// Bytes of `cols` in an InnoDB index record, as the kit's DDL types them.
fn key_bytes_of(t: &Logical, cols: &[&str]) -> f64 {
    cols.iter()
        .map(|c| {
            match t.columns.iter().find(|x| x.name == *c).map(|x| &x.ty) {
                Some(ColumnType::Date) => 3.0,
                // DECIMAL(15,2): 13 integer digits in 4 + 2 bytes, 2 fraction digits in 1.
                Some(ColumnType::Numeric) => 7.0,
                _ => 4.0, // INTEGER in the kit DDL (BIGINT only in PostgreSQL's)
            }
        })
        .sum()
}

fn mysql_table(t: &Logical) -> Table {
    let rows_per_page = (INNODB_FILL / t.innodb_row_bytes).floor().max(1.0);
    let clustered_leaf = (t.rows / rows_per_page).ceil().max(1.0);
    let pk_bytes = key_bytes_of(t, t.primary);
    let clustered_pages = innodb_total_pages(clustered_leaf, pk_bytes + INNODB_PTR_OVERHEAD);
    // records_per_key as rows / distinct prefixes. InnoDB's persistent statistics sample
    // 20 leaf pages (dict0stats.cc: dict_stats_analyze_index, REF01 in
    // dict_stats_index_set_n_diff) and count only the key changes inside each page, so
    // n_diff comes out about V·(1 - 1/R) for R records per leaf page, and the row count
    // (the clustered index's last prefix) about N·(1 - 1/R_clustered): their ratio is
    // within 1 % of rows / distinct for every DBT3 key. The estimate is random from one
    // ANALYZE to the next (about ±8 % at 600 rows per value, i_l_suppkey at SF 10); its
    // expectation is what is modelled.
    let rpk = |cols: &[&str]| -> Vec<f64> {
        (1..=cols.len())
            .map(|k| t.rows / prefix_distinct(t, &cols[..k]))
            .collect()
    };
    let mut indexes = vec![Index {
        name: "PRIMARY".into(),
        columns: t.primary.iter().map(|c| c.to_string()).collect(),
        include: Vec::new(),
        unique: true,
        primary: true,
        pg: None,
        mysql: Some(MysqlIndex {
            key_length: pk_bytes,
            leaf_pages: clustered_leaf,
            rec_per_key: rpk(t.primary),
        }),
        expressions: Vec::new(),
        method: Default::default(),
    }];
    let mut secondary_pages = 0.0;
    for (name, cols, key) in mysql_secondary(t.name) {
        // A secondary record holds the key and the primary key's columns the key does
        // not already hold (dict_index_build_internal_non_clust): i_l_orderkey is
        // (l_orderkey, l_linenumber), 8 bytes, not 12. Measured on MariaDB 10.11 at SF 1
        // (ALTER TABLE ... ADD INDEX after the load): 4,989 leaves where 12 bytes would
        // take 7,036; i_ps_partkey and i_ps_suppkey 666 leaves each.
        let pk_rest: Vec<&str> = t
            .primary
            .iter()
            .copied()
            .filter(|c| !cols.contains(c))
            .collect();
        let row_ref = key_bytes_of(t, &pk_rest);
        let entry = key + row_ref + INNODB_SEC_OVERHEAD;
        // The kit builds its secondary indexes after the load: sorted builds, full pages.
        let leaf = (t.rows / (INNODB_SORTED_FILL / entry).floor())
            .ceil()
            .max(1.0);
        secondary_pages += innodb_total_pages(leaf, key + row_ref + INNODB_PTR_OVERHEAD);
        indexes.push(Index {
            name: (*name).into(),
            columns: cols.iter().map(|c| c.to_string()).collect(),
            include: Vec::new(),
            unique: false,
            primary: false,
            pg: None,
            mysql: Some(MysqlIndex {
                key_length: *key,
                leaf_pages: leaf,
                rec_per_key: rpk(cols),
            }),
            expressions: Vec::new(),
            method: Default::default(),
        });
    }
    Table {
        name: t.name.into(),
        rows: t.rows,
        columns: t.columns.clone(),
        indexes,
        pg: None,
        mysql: Some(MysqlTable {
            records: t.rows,
            clustered_pages,
            secondary_pages,
            page_bytes: INNODB_PAGE,
            ref_length: pk_bytes,
        }),
    }
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
const PG_POSTING_MAX_TIDS: u32 = 222;

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
fn entries_per_key(groups: &[ValueGroup], fraction: f64) -> (f64, Vec<(u32, f64)>) {
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
type PgDef = (
    &'static str,
    &'static [&'static str],
    bool,
    &'static str,
    Option<&'static str>,
);

fn pg_indexes(table: &str) -> Vec<(&'static str, PgDef)> {
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
fn pg_predicate_fraction(predicate: Option<&str>, returnflag_r: f64) -> f64 {
    match predicate {
        None => 1.0,
        Some(p) if p.starts_with("s_comment") => 0.0005,
        Some(p) if p.starts_with("l_returnflag") => returnflag_r,
        Some(p) if p.contains("l_shipdate") => 0.1197,
        Some(_) => 0.6321,
    }
}

fn pg_key_bytes(t: &Logical, cols: &[&str]) -> f64 {
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
fn pg_numeric_mean_bytes(s: &ColumnStats) -> f64 {
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
fn pg_value_groups(
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

fn pg_table(t: &Logical, counts: &[(&str, f64)], notes: &mut Vec<PgIndexNote>) -> Table {
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

/// The DBT3 schema at scale factor `sf` (0.01 to 1000; anything else is a typed error).
pub fn dbt3(sf: f64) -> Result<Dbt3> {
    let tables = logical(sf)?;
    let counts = row_counts(sf)?;
    let mut notes = Vec::new();
    let mysql: Vec<Table> = tables.iter().map(mysql_table).collect();
    let pg: Vec<Table> = tables
        .iter()
        .map(|t| pg_table(t, &counts, &mut notes))
        .collect();
    for t in mysql.iter().chain(&pg) {
        t.validate()?;
    }
    Ok(Dbt3 {
        sf,
        mysql,
        pg,
        pg_index_notes: notes,
    })
}

/// Columns whose n_distinct (ANALYZE's sample-based Duj1 estimate) the built-in catalog
/// does not predict, and why; their figure is a round guess, reported beside the server's
/// and not held to it.
pub fn n_distinct_not_predicted(column: &str) -> Option<&'static str> {
    match column {
        // A product of quantity and price: the values repeat unevenly, and Duj1 reads
        // that as fewer values than a Poisson spread gives (model 808k, ANALYZE 692k-721k).
        "l_extendedprice" => Some("uneven repeats of quantity x price"),
        // Text cut from the generator's text pool: how often a comment repeats is not in
        // the rules the catalog follows (l_comment true 4.58M of 6M; ANALYZE 908k-917k).
        "l_comment" | "p_comment" => Some("repeats of generated text"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_model::query::{CmpOp, Predicate};
    use costlab_mysql::ranges::{cond_fraction, ColumnCond};

    fn day(s: &str) -> f64 {
        costlab_model::date::parse(s).unwrap() as f64
    }

    fn frac(t: &Table, preds: &[Predicate]) -> f64 {
        preds
            .iter()
            .map(|p| {
                let c = t.column(p.column()).unwrap();
                cond_fraction(c, &ColumnCond::from_predicate(p).unwrap(), t.rows)
            })
            .product()
    }

    fn cmp(c: &str, op: CmpOp, v: f64) -> Predicate {
        Predicate::Cmp {
            column: c.into(),
            op,
            value: Value::Num(v),
        }
    }

    #[test]
    fn row_counts_match_the_reference_at_sf_1_and_10() {
        // §1.1: SF1 exact counts; every count but nation/region scales with SF.
        let one = row_counts(1.0).unwrap();
        let want = [
            ("region", 5.0),
            ("nation", 25.0),
            ("supplier", 10_000.0),
            ("part", 200_000.0),
            ("partsupp", 800_000.0),
            ("customer", 150_000.0),
            ("orders", 1_500_000.0),
            ("lineitem", 6_001_215.0),
        ];
        assert_eq!(one, want);
        let ten = row_counts(10.0).unwrap();
        for ((t, n), (_, n1)) in ten.iter().zip(want) {
            let expect = if *t == "region" || *t == "nation" {
                n1
            } else {
                n1 * 10.0
            };
            assert_eq!(*n, expect, "{t}");
        }
        // §1.3: below 1 the multiplier is floor(1000 SF)/1000.
        let small = row_counts(0.0155).unwrap();
        assert_eq!(small[6].1, 22_500.0);
    }

    #[test]
    fn bad_scale_factors_are_typed_errors() {
        for sf in [0.0, 0.009, 1000.1, -1.0, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(
                    dbt3(sf),
                    Err(Error::OutOfRange { .. }) | Err(Error::NotFinite { .. })
                ),
                "{sf}"
            );
        }
        assert!(dbt3(0.01).is_ok());
        assert!(dbt3(1000.0).is_ok());
    }

    #[test]
    fn distribution_facts_of_dbt3_md_come_out_of_the_stats() {
        let d = dbt3(1.0).unwrap();
        let l = d.mysql_table("lineitem").unwrap();
        let within = |got: f64, want: f64, what: &str| {
            assert!((got / want - 1.0).abs() < 0.01, "{what}: {got} vs {want}");
        };
        // Q6 / §5.2: l_shipdate in 1994 = 365/2406.
        let y94 = [
            cmp("l_shipdate", CmpOp::Ge, day("1994-01-01")),
            cmp("l_shipdate", CmpOp::Lt, day("1995-01-01")),
        ];
        let ship94 = frac(l, &y94[..1]) - (1.0 - frac(l, &y94[1..]));
        within(ship94, 0.1517, "l_shipdate in 1994");
        // Q6 whole predicate: 0.1517 × 3/11 × 23/50 = 0.01903.
        let conds = vec![
            ColumnCond::from_predicate(&y94[0])
                .unwrap()
                .and(&ColumnCond::from_predicate(&y94[1]).unwrap()),
            ColumnCond::from_predicate(&Predicate::Between {
                column: "l_discount".into(),
                lo: Value::Num(0.05),
                hi: Value::Num(0.07),
            })
            .unwrap(),
            ColumnCond::from_predicate(&cmp("l_quantity", CmpOp::Lt, 24.0)).unwrap(),
        ];
        let q6: f64 = ["l_shipdate", "l_discount", "l_quantity"]
            .iter()
            .zip(&conds)
            .map(|(c, cond)| cond_fraction(l.column(c).unwrap(), cond, l.rows))
            .product();
        within(q6, 0.01903, "Q6 selectivity");
        // Q1: l_shipdate <= 1998-09-02 = 0.9859; edge of the ship-date trapezoid.
        within(
            frac(l, &[cmp("l_shipdate", CmpOp::Le, day("1998-09-02"))]),
            0.9859,
            "Q1",
        );
        // Q12: l_receiptdate in 1994 = 0.1516; Q14: one month of ship dates 0.0125.
        let r94 = frac(l, &[cmp("l_receiptdate", CmpOp::Ge, day("1994-01-01"))])
            - (1.0 - frac(l, &[cmp("l_receiptdate", CmpOp::Lt, day("1995-01-01"))]));
        within(r94, 0.1516, "l_receiptdate 1994");
        // Returnflag split (A/R 24.6 %, N 50.7 %) from the receipt-date distribution.
        let rf = &l.column("l_returnflag").unwrap().stats.mcv;
        within(rf[0].1, 0.507, "returnflag N");
        // orders: o_orderdate < 1995-03-15 = 1169/2406.
        let o = d.mysql_table("orders").unwrap();
        within(
            frac(o, &[cmp("o_orderdate", CmpOp::Lt, day("1995-03-15"))]),
            1169.0 / 2406.0,
            "Q3 order date",
        );
        // §1.2 NDVs.
        assert_eq!(l.column("l_shipdate").unwrap().stats.n_distinct, 2526.0);
        // Measured 2554; the rules allow 2555 days (the generator missed an edge day).
        assert!((l.column("l_receiptdate").unwrap().stats.n_distinct - 2554.0).abs() <= 1.0);
    }

    #[test]
    fn innodb_sizes_follow_the_row_widths_of_1_1() {
        let d = dbt3(1.0).unwrap();
        let l = d.mysql_table("lineitem").unwrap();
        let m = l.mysql.as_ref().unwrap();
        // §1.1: ~114 rows per page, ~52.6k pages per SF.
        assert!(
            (52_000.0..53_500.0).contains(&m.clustered_pages),
            "{}",
            m.clustered_pages
        );
        assert_eq!(m.ref_length, 8.0);
        let ship = l.index("i_l_shipdate").unwrap().mysql.as_ref().unwrap();
        // 17-byte entries on sorted-build pages of 16,256 bytes: 956 per page (a real
        // InnoDB's leaves hold 984: the probe's MariaDB test holds the counts within 12 %).
        assert_eq!(ship.leaf_pages, (6_001_215.0f64 / 956.0).ceil());
        assert!((ship.rec_per_key[0] - 2376.0).abs() < 5.0);
        let o = d.mysql_table("orders").unwrap();
        let cust = o.index("i_o_custkey").unwrap().mysql.as_ref().unwrap();
        assert!((cust.rec_per_key[0] - 15.0).abs() < 0.01);
        // PostgreSQL has the §2.2 set: BRIN and partial indexes noted.
        assert!(d
            .pg_table("lineitem")
            .unwrap()
            .index("lineitem_l_shipdate_idx")
            .is_some());
        assert!(d
            .pg_index_notes
            .iter()
            .any(|n| n.method == "brin" && n.index == "orders_o_orderdate_idx"));
    }
}

/// The built-in catalog's PostgreSQL statistics next to a real ANALYZE of the same data:
/// PostgreSQL 15.18, tpchgen-cli 4.0.0 at SF 1, `costlab::dbt3_pg`'s DDL, VACUUM (FREEZE,
/// ANALYZE) (tests/data/pg15_dbt3_sf1_analyze.json, and its README line in tests/data).
/// Everything here is predicted from the generator's rules and PostgreSQL's formulas;
/// nothing is fitted to the file.
#[cfg(test)]
mod against_analyze {
    use super::*;
    use serde_json::Value as Json;

    fn real() -> Json {
        serde_json::from_str(include_str!("../../tests/data/pg15_dbt3_sf1_analyze.json")).unwrap()
    }

    fn rows_of(nd: f64, rows: f64) -> f64 {
        if nd < 0.0 {
            -nd * rows
        } else {
            nd
        }
    }

    use super::n_distinct_not_predicted as not_predicted;

    #[test]
    fn rows_pages_distinct_counts_and_frequencies_match_a_real_analyze_at_sf_1() {
        let real = real();
        let d = dbt3(1.0).unwrap();
        let within = |model: f64, server: f64, tol: f64| (model / server - 1.0).abs() <= tol;
        let mut skipped = Vec::new();
        for t in &d.pg {
            let r = &real["tables"][t.name.as_str()];
            let pg = t.pg.as_ref().unwrap();
            let actual = r["actual_rows"].as_f64().unwrap();
            assert!(
                within(t.rows, actual, 1e-6),
                "{}: {} rows, {actual}",
                t.name,
                t.rows
            );
            let pages = r["relpages"].as_f64().unwrap();
            assert!(
                within(pg.pages, pages, 0.05),
                "{}: {} pages, {pages}",
                t.name,
                pg.pages
            );
            for i in &t.indexes {
                let ri = &r["indexes"][i.name.as_str()];
                assert!(ri.is_object(), "index {} is not on the server", i.name);
                let server = ri["relpages"].as_f64().unwrap();
                let model = i.pg.as_ref().unwrap().pages;
                if ri["method"] == "brin" {
                    // A handful of pages; the revmap's page count is not modelled exactly.
                    assert!(
                        (model - server).abs() <= 1.0,
                        "{}: {model} pages, {server}",
                        i.name
                    );
                } else {
                    assert!(
                        within(model, server, 0.05),
                        "{}: {model} pages, {server}",
                        i.name
                    );
                }
            }
            for c in &t.columns {
                let rc = &r["columns"][c.name.as_str()];
                let server = rows_of(rc["n_distinct"].as_f64().unwrap(), actual);
                let model = rows_of(c.stats.n_distinct, t.rows);
                if let Some(why) = not_predicted(&c.name) {
                    skipped.push((c.name.clone(), model, server, why));
                    continue;
                }
                assert!(
                    within(model, server, 0.05),
                    "{}: n_distinct {model}, ANALYZE {server}",
                    c.name
                );
                // The server's most common values where its list holds every value: the
                // model's frequency of each, within 5 % or, for rare values, four standard
                // deviations of a 30,000-row sample's count.
                let complete = rc["mcv_freq_sum"].as_f64().is_some_and(|f| f > 0.999);
                if !complete || c.stats.mcv.is_empty() {
                    continue;
                }
                let values = rc["mcv_first5"].as_array().unwrap();
                let freqs = rc["mcv_freqs_first5"].as_array().unwrap();
                for (v, f) in values.iter().zip(freqs) {
                    let v = v.as_str().unwrap().trim();
                    let f = f.as_f64().unwrap();
                    let ours = c.stats.mcv.iter().find(|(x, _)| match x {
                        Value::Text(s) => s.trim() == v,
                        Value::Num(x) => v.parse::<f64>().is_ok_and(|y| (x - y).abs() < 1e-9),
                    });
                    let Some((_, model)) = ours else {
                        panic!(
                            "{}: the server's common value {v} is not in the model's list",
                            c.name
                        )
                    };
                    let noise = 4.0 * (model * (1.0 - model) / 30_000.0).sqrt();
                    assert!(
                        (f - model).abs() <= (0.05 * model).max(noise),
                        "{} = {v}: frequency {model}, ANALYZE {f}",
                        c.name
                    );
                }
            }
        }
        assert_eq!(skipped.len(), 3, "{skipped:?}");
    }

    /// ANALYZE's estimate moves from sample to sample; the model gives its expected value.
    /// Five runs of lineitem and orders: the model inside or within 5 % of their range.
    #[test]
    fn sample_estimates_fall_within_five_analyze_runs() {
        let real = real();
        let d = dbt3(1.0).unwrap();
        for t in
            d.pg.iter()
                .filter(|t| t.name == "lineitem" || t.name == "orders")
        {
            for c in t
                .columns
                .iter()
                .filter(|c| not_predicted(&c.name).is_none())
            {
                let runs: Vec<f64> = real["reanalyze_n_distinct"][c.name.as_str()]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| rows_of(v.as_f64().unwrap(), t.rows))
                    .collect();
                let lo = runs.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = runs.iter().copied().fold(0.0, f64::max);
                let model = rows_of(c.stats.n_distinct, t.rows);
                assert!(
                    model >= lo * 0.95 && model <= hi * 1.05,
                    "{}: {model} outside {lo}..{hi}",
                    c.name
                );
            }
        }
    }
}
