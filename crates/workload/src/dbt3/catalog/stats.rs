//! The columns' statistics: the date distributions of §1.4, the value lists of §1.2,
//! and the builders of pg_stats-style [`ColumnStats`] (MCV lists, histograms).

use super::scale::*;
use costlab_model::catalog::{Column, ColumnStats, ColumnType, Value};

/// Columns with at most this many values get an MCV list (PostgreSQL's default
/// statistics target).
pub const MCV_LIMIT: usize = 100;
/// Histogram bounds per column (statistics target 100).
pub(super) const HIST_BOUNDS: usize = 101;

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
pub(super) fn convolve_uniform(p: &[f64], a: usize, b: usize) -> Vec<f64> {
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
pub(super) fn histogram_from_pmf(pmf: &[f64], origin: f64) -> Vec<Value> {
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

pub(super) fn stats(n_distinct: f64, width: f64) -> ColumnStats {
    ColumnStats {
        n_distinct,
        avg_width: width,
        ..ColumnStats::default()
    }
}

/// Uniform whole numbers `lo..=hi`: MCVs if few, else a linear histogram.
pub(super) fn uniform_int(
    lo: f64,
    hi: f64,
    rows: f64,
    correlation: f64,
    width: f64,
) -> ColumnStats {
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
pub(super) fn dense_key(n: f64, correlation: f64, width: f64) -> ColumnStats {
    let mut s = stats(-1.0, width);
    s.correlation = correlation;
    s.histogram = linear_bounds(1.0, n + 1.0);
    s
}

pub(super) fn linear_bounds(lo: f64, hi: f64) -> Vec<Value> {
    (0..HIST_BOUNDS)
        .map(|i| Value::Num(lo + (hi - lo) * i as f64 / (HIST_BOUNDS - 1) as f64))
        .collect()
}

/// Uniform continuous values over [lo, hi] (money in cents is near-continuous).
pub(super) fn uniform_real(lo: f64, hi: f64, ndv: f64, width: f64) -> ColumnStats {
    let mut s = stats(ndv, width);
    s.histogram = linear_bounds(lo, hi);
    s
}

/// Numbers with the given frequencies (an MCV list).
pub(super) fn num_mcv(values: &[(f64, f64)], width: f64) -> ColumnStats {
    let mut s = stats(values.len() as f64, width);
    s.mcv = values.iter().map(|(v, f)| (Value::Num(*v), *f)).collect();
    sort_mcv(&mut s);
    s
}

/// Text values with the given frequencies.
pub(super) fn text_mcv(values: &[(&str, f64)], width: f64) -> ColumnStats {
    let mut s = stats(values.len() as f64, width);
    s.mcv = values
        .iter()
        .map(|(v, f)| (Value::Text((*v).into()), *f))
        .collect();
    sort_mcv(&mut s);
    s
}

/// Equally frequent text values.
pub(super) fn text_uniform(values: &[String], width: f64) -> ColumnStats {
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

pub(super) fn sort_mcv(s: &mut ColumnStats) {
    s.mcv.sort_by(|a, b| b.1.total_cmp(&a.1));
}

pub(super) fn date_stats(column: &str, rows: f64) -> ColumnStats {
    let pmf = date_pmf(column);
    let days = pmf.iter().filter(|p| **p > 0.0).count() as f64;
    let mut s = stats(days.min(rows).max(1.0), 4.0);
    s.histogram = histogram_from_pmf(&pmf, start_day());
    s
}

/// Column with a type and statistics; every DBT3 column is NOT NULL.
pub(super) fn col(name: &str, ty: ColumnType, stats: ColumnStats) -> Column {
    Column {
        name: name.into(),
        ty,
        not_null: true,
        stats,
    }
}

pub(super) fn varchar(name: &str, avg_len: f64, n_distinct: f64) -> Column {
    // avg_width as pg_stats reports a short varlena: the 1-byte header plus the text.
    col(name, ColumnType::Text, stats(n_distinct, avg_len + 1.0))
}

pub(super) fn int(name: &str, s: ColumnStats) -> Column {
    col(name, ColumnType::Int4, s)
}

pub(super) fn money(name: &str, s: ColumnStats) -> Column {
    col(name, ColumnType::Numeric, s)
}

pub(super) fn fixed_text(name: &str, n: u32, s: ColumnStats) -> Column {
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

pub(super) const TYPE1: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
pub(super) const TYPE2: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
pub(super) const TYPE3: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
pub(super) const CONTAINER1: [&str; 5] = ["SM", "LG", "MED", "JUMBO", "WRAP"];
pub(super) const CONTAINER2: [&str; 8] =
    ["CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"];

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
pub(super) fn p_name_stats(width: f64) -> ColumnStats {
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

pub(super) fn all_types() -> Vec<String> {
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

pub(super) fn all_containers() -> Vec<String> {
    CONTAINER1
        .iter()
        .flat_map(|a| CONTAINER2.iter().map(move |b| format!("{a} {b}")))
        .collect()
}

pub(super) fn all_brands() -> Vec<String> {
    (1..=5)
        .flat_map(|m| (1..=5).map(move |n| format!("Brand#{m}{n}")))
        .collect()
}
