//! Key ranges from a query's predicates, and how many rows fall in them.
//!
//! Two answers per range: the **true** share of rows (from the column statistics, which
//! describe the data), and what InnoDB's `records_in_range` index dive reports, which
//! doubles inexact estimates and caps them (spec §4.3).

use crate::catalog::{Column, ColumnStats, ColumnType, Value};
use crate::error::{Error, Result};
use crate::query::{CmpOp, Predicate};
use std::cmp::Ordering;

/// One end of an interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub value: Value,
    pub inclusive: bool,
}

/// An interval of one column; `None` is unbounded on that side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Interval {
    pub lo: Option<Bound>,
    pub hi: Option<Bound>,
}

/// What the conjunction of one column's predicates allows.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnCond {
    /// `=` or `IN`: sorted, distinct values (MySQL sorts and merges IN lists).
    Points(Vec<Value>),
    Interval(Interval),
    /// A contradiction, e.g. `x > 5 AND x < 3`: the range optimizer's impossible tree.
    Impossible,
}

/// Total order on constants: numbers before strings (mixed comparisons are rare and only
/// need to be deterministic, not meaningful).
pub fn cmp_values(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.total_cmp(y),
        (Value::Text(x), Value::Text(y)) => x.cmp(y),
        (Value::Num(_), Value::Text(_)) => Ordering::Less,
        (Value::Text(_), Value::Num(_)) => Ordering::Greater,
    }
}

fn check_value(column: &str, v: &Value) -> Result<()> {
    match v {
        Value::Num(x) if !x.is_finite() => Err(Error::NotFinite {
            field: format!("constant compared with {column}"),
            value: *x,
        }),
        _ => Ok(()),
    }
}

impl Interval {
    pub fn contains(&self, v: &Value) -> bool {
        let above = match &self.lo {
            None => true,
            Some(b) => match cmp_values(v, &b.value) {
                Ordering::Greater => true,
                Ordering::Equal => b.inclusive,
                Ordering::Less => false,
            },
        };
        let below = match &self.hi {
            None => true,
            Some(b) => match cmp_values(v, &b.value) {
                Ordering::Less => true,
                Ordering::Equal => b.inclusive,
                Ordering::Greater => false,
            },
        };
        above && below
    }

    /// The tighter of two bounds on each side; a collapsed interval becomes a point.
    fn intersect(&self, other: &Interval) -> ColumnCond {
        let lo = tighter(&self.lo, &other.lo, Ordering::Greater);
        let hi = tighter(&self.hi, &other.hi, Ordering::Less);
        if let (Some(l), Some(h)) = (&lo, &hi) {
            match cmp_values(&l.value, &h.value) {
                Ordering::Greater => return ColumnCond::Impossible,
                Ordering::Equal if l.inclusive && h.inclusive => {
                    return ColumnCond::Points(vec![l.value.clone()])
                }
                Ordering::Equal => return ColumnCond::Impossible,
                Ordering::Less => {}
            }
        }
        ColumnCond::Interval(Interval { lo, hi })
    }
}

/// Of two optional bounds, the one further in direction `wins` (Greater for a lower bound).
fn tighter(a: &Option<Bound>, b: &Option<Bound>, wins: Ordering) -> Option<Bound> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) => match cmp_values(&x.value, &y.value) {
            Ordering::Equal => Some(Bound {
                value: x.value.clone(),
                inclusive: x.inclusive && y.inclusive,
            }),
            o if o == wins => Some(x.clone()),
            _ => Some(y.clone()),
        },
    }
}

impl ColumnCond {
    /// The condition one predicate puts on its column.
    pub fn from_predicate(p: &Predicate) -> Result<ColumnCond> {
        let bound = |v: &Value, inclusive| {
            Some(Bound {
                value: v.clone(),
                inclusive,
            })
        };
        Ok(match p {
            Predicate::Cmp { column, op, value } => {
                check_value(column, value)?;
                match op {
                    CmpOp::Eq => ColumnCond::Points(vec![value.clone()]),
                    CmpOp::Lt => ColumnCond::Interval(Interval {
                        lo: None,
                        hi: bound(value, false),
                    }),
                    CmpOp::Le => ColumnCond::Interval(Interval {
                        lo: None,
                        hi: bound(value, true),
                    }),
                    CmpOp::Gt => ColumnCond::Interval(Interval {
                        lo: bound(value, false),
                        hi: None,
                    }),
                    CmpOp::Ge => ColumnCond::Interval(Interval {
                        lo: bound(value, true),
                        hi: None,
                    }),
                }
            }
            Predicate::Between { column, lo, hi } => {
                check_value(column, lo)?;
                check_value(column, hi)?;
                Interval::default().intersect(&Interval {
                    lo: bound(lo, true),
                    hi: bound(hi, true),
                })
            }
            Predicate::In { column, values } => {
                for v in values {
                    check_value(column, v)?;
                }
                let mut vs = values.clone();
                crate::sort::sort_by(&mut vs, cmp_values);
                vs.dedup_by(|a, b| cmp_values(a, b) == Ordering::Equal);
                ColumnCond::Points(vs)
            }
        })
    }

    /// The conjunction of two conditions on the same column.
    pub fn and(&self, other: &ColumnCond) -> ColumnCond {
        use ColumnCond::*;
        let nonempty = |vs: Vec<Value>| {
            if vs.is_empty() {
                Impossible
            } else {
                Points(vs)
            }
        };
        match (self, other) {
            (Impossible, _) | (_, Impossible) => Impossible,
            (Points(a), Points(b)) => nonempty(
                a.iter()
                    .filter(|v| b.iter().any(|w| cmp_values(v, w) == Ordering::Equal))
                    .cloned()
                    .collect(),
            ),
            (Points(p), Interval(i)) | (Interval(i), Points(p)) => {
                nonempty(p.iter().filter(|v| i.contains(v)).cloned().collect())
            }
            (Interval(a), Interval(b)) => a.intersect(b),
        }
    }

    /// The single value of an equality, if that is what this is.
    pub fn single_point(&self) -> Option<&Value> {
        match self {
            ColumnCond::Points(v) if v.len() == 1 => v.first(),
            _ => None,
        }
    }
}

/// Number of distinct values (pg_stats convention: negative = fraction of rows), 0 if unknown.
pub fn distinct_values(stats: &ColumnStats, rows: f64) -> f64 {
    if stats.n_distinct > 0.0 {
        stats.n_distinct
    } else if stats.n_distinct < 0.0 {
        (-stats.n_distinct * rows).max(1.0)
    } else {
        0.0
    }
}

/// Whether values are whole numbers, so `x > 5` is `x >= 6`.
fn is_discrete(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int4 | ColumnType::Int8 | ColumnType::Date | ColumnType::Bool
    )
}

/// Share of rows whose value is in the histogram part below `x` (0..1). Numbers are
/// interpolated linearly inside a bucket; other values land in the middle of theirs.
fn histogram_cdf(bounds: &[Value], x: f64) -> f64 {
    // Read in place rather than copied out: sweeps call this at every point.
    let m = bounds.len();
    if m < 2 || !bounds.iter().all(|b| matches!(b, Value::Num(_))) {
        return 0.5;
    }
    let num = |i: usize| bounds[i].as_f64().unwrap_or(f64::NAN);
    if x <= num(0) {
        return 0.0;
    }
    if x >= num(m - 1) {
        return 1.0;
    }
    // First bound strictly above x; bucket i spans bounds[i-1]..bounds[i].
    let i = bounds.partition_point(|b| b.as_f64().is_some_and(|b| b <= x));
    let (a, b) = (num(i - 1), num(i));
    let within = if b > a { (x - a) / (b - a) } else { 0.0 };
    ((i - 1) as f64 + within) / (m - 1) as f64
}

fn histogram_cdf_value(bounds: &[Value], v: &Value) -> f64 {
    if let Value::Num(x) = v {
        if bounds.iter().all(|b| matches!(b, Value::Num(_))) {
            return histogram_cdf(bounds, *x);
        }
    }
    let m = bounds.len();
    if m < 2 {
        return 0.5;
    }
    let below = bounds
        .iter()
        .filter(|b| cmp_values(b, v) == Ordering::Less)
        .count();
    match below {
        0 => 0.0,
        k if k == m => 1.0,
        k => (k as f64 - 0.5) / (m - 1) as f64,
    }
}

/// Fraction of all rows that have a value equal to `v`.
fn point_fraction(col: &Column, v: &Value, rows: f64) -> f64 {
    let s = &col.stats;
    if let Some((_, f)) = s
        .mcv
        .iter()
        .find(|(m, _)| cmp_values(m, v) == Ordering::Equal)
    {
        return *f;
    }
    let rest = non_mcv_fraction(s);
    if let (Some(first), Some(last)) = (s.histogram.first(), s.histogram.last()) {
        if cmp_values(v, first) == Ordering::Less || cmp_values(v, last) == Ordering::Greater {
            return 0.0;
        }
    }
    let others = distinct_values(s, rows) - s.mcv.len() as f64;
    if others >= 1.0 {
        rest / others
    } else if distinct_values(s, rows) == 0.0 {
        // No statistics: PostgreSQL's DEFAULT_EQ_SEL.
        rest * 0.005
    } else {
        0.0
    }
}

fn non_mcv_fraction(s: &ColumnStats) -> f64 {
    let mcv: f64 = s.mcv.iter().map(|(_, f)| f).sum();
    (1.0 - s.null_frac - mcv).max(0.0)
}

/// Fraction of all rows with a value inside `iv`.
fn interval_fraction(col: &Column, iv: &Interval) -> f64 {
    let s = &col.stats;
    let mcv: f64 = s
        .mcv
        .iter()
        .filter(|(v, _)| iv.contains(v))
        .map(|(_, f)| f)
        .sum();
    let rest = non_mcv_fraction(s);
    if rest <= 0.0 {
        return mcv;
    }
    if s.histogram.len() < 2 {
        // No distribution known: MySQL's default filtering guesses (spec §5.2).
        let guess = match (&iv.lo, &iv.hi) {
            (Some(_), Some(_)) => 0.1111,
            (None, None) => 1.0,
            _ => 0.3333,
        };
        return mcv + rest * guess;
    }
    let numeric = s.histogram.iter().all(|b| matches!(b, Value::Num(_)));
    let hist = if numeric && is_discrete(&col.ty) {
        // Whole numbers: value v occupies [v, v+1), so `> 5` starts at 6 and `< 9` ends at 9.
        let lo = match &iv.lo {
            None => f64::NEG_INFINITY,
            Some(b) => match b.value.as_f64() {
                Some(x) if b.inclusive => x.ceil(),
                Some(x) => x.floor() + 1.0,
                None => f64::INFINITY,
            },
        };
        let hi = match &iv.hi {
            None => f64::INFINITY,
            Some(b) => match b.value.as_f64() {
                Some(x) if b.inclusive => x.floor() + 1.0,
                Some(x) => x.ceil(),
                None => f64::INFINITY,
            },
        };
        if hi <= lo {
            0.0
        } else {
            histogram_cdf(&s.histogram, hi) - histogram_cdf(&s.histogram, lo)
        }
    } else {
        let lo = iv
            .lo
            .as_ref()
            .map_or(0.0, |b| histogram_cdf_value(&s.histogram, &b.value));
        let hi = iv
            .hi
            .as_ref()
            .map_or(1.0, |b| histogram_cdf_value(&s.histogram, &b.value));
        (hi - lo).max(0.0)
    };
    mcv + rest * hist.clamp(0.0, 1.0)
}

/// Fraction of all rows of a table with `rows` rows that satisfy `cond` on `col`,
/// from the column's statistics (MCV list, equi-depth histogram, distinct count).
pub fn cond_fraction(col: &Column, cond: &ColumnCond, rows: f64) -> f64 {
    let f = match cond {
        ColumnCond::Impossible => 0.0,
        ColumnCond::Points(vs) => vs.iter().map(|v| point_fraction(col, v, rows)).sum(),
        ColumnCond::Interval(iv) => interval_fraction(col, iv),
    };
    f.clamp(0.0, 1.0)
}

/// [`cond_fraction`] of `col = v` (`ColumnCond::Points(vec![v])`), without building that
/// condition: the range optimizer asks it for each value of an IN list at every point.
pub fn point_cond_fraction(col: &Column, v: &Value, rows: f64) -> f64 {
    // Summed like the one-element list cond_fraction sums, so the value is bit for bit the same.
    let f: f64 = std::iter::once(point_fraction(col, v, rows)).sum();
    f.clamp(0.0, 1.0)
}

/// Rows of a table with `rows` rows whose `col` satisfies `cond`: the records_in_range
/// helper (true count, before InnoDB's bias).
pub fn records_in_range(col: &Column, cond: &ColumnCond, rows: f64) -> f64 {
    cond_fraction(col, cond, rows) * rows
}

/// `N_PAGES_READ_LIMIT` of `btr_estimate_n_rows_in_range_on_level` (spec §4.3).
pub const N_PAGES_READ_LIMIT: f64 = 10.0;

/// What InnoDB's index dive reports for a range holding `true_rows` rows (spec §4.3):
///
/// * a range on more than `N_PAGES_READ_LIMIT` leaf pages is extrapolated: inexact;
/// * an inexact estimate is doubled when the two border paths diverged on a level above the
///   leaves (`i > divergence_level + 1` in btr0cur.cc), which a range spanning more than 10
///   leaves always does once the tree has such a level (`height >= 2`);
/// * an inexact estimate is capped at `stat_n_rows / 2` (integer division);
/// * 0 becomes 1 (`ha_innobase::records_in_range`).
///
/// With `model_bias` off the estimate is the exact count (the spec's "exact estimate"
/// columns). Estimates are whole rows (`ha_rows`).
pub fn innodb_records_in_range(
    true_rows: f64,
    entries_per_leaf: f64,
    tree_height: f64,
    table_rows: f64,
    model_bias: bool,
) -> f64 {
    let exact = true_rows.round().max(0.0);
    let spanned_leaves = if entries_per_leaf > 0.0 {
        exact / entries_per_leaf
    } else {
        exact
    };
    let mut n = exact;
    if model_bias && spanned_leaves > N_PAGES_READ_LIMIT {
        if tree_height >= 2.0 {
            n *= 2.0;
        }
        let cap = (table_rows / 2.0).floor();
        if n > cap {
            n = if cap == 0.0 { table_rows } else { cap };
        }
    }
    n.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(ty: ColumnType, stats: ColumnStats) -> Column {
        Column {
            name: "c".into(),
            ty,
            not_null: true,
            stats,
        }
    }

    fn uniform(n: f64) -> ColumnStats {
        ColumnStats {
            n_distinct: -1.0,
            histogram: (0..=100)
                .map(|i| Value::Num(i as f64 * n / 100.0))
                .collect(),
            avg_width: 4.0,
            ..Default::default()
        }
    }

    fn cond(p: &str) -> ColumnCond {
        let q = crate::query::Query::parse(&format!("SELECT * FROM t WHERE {p}")).unwrap();
        q.predicates
            .iter()
            .map(|p| ColumnCond::from_predicate(p).unwrap())
            .reduce(|a, b| a.and(&b))
            .unwrap()
    }

    #[test]
    fn conditions_intersect_like_the_range_optimizer() {
        assert_eq!(cond("c > 5 AND c < 3"), ColumnCond::Impossible);
        assert_eq!(cond("c >= 5 AND c <= 5"), cond("c = 5"));
        assert_eq!(cond("c IN (3, 1, 3) AND c > 2"), cond("c = 3"));
        assert_eq!(cond("c = 1 AND c = 2"), ColumnCond::Impossible);
        assert_eq!(cond("c BETWEEN 9 AND 1"), ColumnCond::Impossible);
    }

    #[test]
    fn whole_number_ranges_count_the_integers_inside() {
        // 0..1e7 uniform, one row per value: `c > -1 AND c < k` holds exactly k rows.
        let n = 1e7;
        let c = col(ColumnType::Int4, uniform(n));
        for (p, want) in [
            ("c > -1 AND c < 1000000", 1e6),
            ("c >= 0 AND c <= 999999", 1e6),
            ("c BETWEEN 100 AND 199", 100.0),
            ("c > 100 AND c < 200", 99.0),
            ("c = 42", 1.0),
            ("c IN (1, 2, 3)", 3.0),
            ("c < 0", 0.0),
            ("c > 20000000", 0.0),
        ] {
            let got = records_in_range(&c, &cond(p), n);
            assert!((got - want).abs() < 1e-6 * want.max(1.0), "{p}: {got}");
        }
    }

    #[test]
    fn mcv_values_count_their_frequency() {
        let stats = ColumnStats {
            n_distinct: 10.0,
            mcv: (0..10).map(|i| (Value::Num(i as f64), 0.1)).collect(),
            ..Default::default()
        };
        let c = col(ColumnType::Int4, stats);
        assert!((cond_fraction(&c, &cond("c = 2"), 1e7) - 0.1).abs() < 1e-12);
        assert!((cond_fraction(&c, &cond("c < 5"), 1e7) - 0.5).abs() < 1e-12);
        assert_eq!(cond_fraction(&c, &cond("c = 11"), 1e7), 0.0);
    }

    #[test]
    fn innodb_doubles_inexact_estimates_and_caps_them() {
        // spec §4.3 and §7.1: R_est = min(2·X·N, N/2); small ranges are exact; 0 -> 1.
        let n = 1e7;
        let epl = 717.0;
        for (rows, want) in [
            (0.0, 1.0),
            (5_000.0, 5_000.0),
            (100_000.0, 200_000.0),
            (1_800_000.0, 3_600_000.0),
            (3_000_000.0, 5_000_000.0),
        ] {
            assert_eq!(innodb_records_in_range(rows, epl, 3.0, n, true), want);
        }
        assert_eq!(
            innodb_records_in_range(3_000_000.0, epl, 3.0, n, false),
            3_000_000.0
        );
    }
}
