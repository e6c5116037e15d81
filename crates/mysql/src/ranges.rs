//! Key ranges from a query's predicates, and how many rows fall in them.
//!
//! Two answers per range: the **true** share of rows (from the column statistics, which
//! describe the data), and what InnoDB's `records_in_range` index dive reports, which
//! doubles inexact estimates and caps them (spec §4.3).

use costlab_model::catalog::{Column, ColumnStats, ColumnType, Value};
use costlab_model::error::{Error, Result};
use costlab_model::query::{CmpOp, Predicate};
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
                costlab_model::sort::sort_by(&mut vs, cmp_values);
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

/// `N_PAGES_READ_LIMIT` of `btr_estimate_n_rows_in_range_on_level`: the dive reads at most
/// this many pages of one level before it extrapolates.
pub const N_PAGES_READ_LIMIT: f64 = 10.0;

/// Alignments of a range against the page boundaries that [`innodb_records_in_range`]
/// averages over.
const DIVE_ALIGNMENTS: usize = 32;

/// The B-tree an index dive walks, every page of a level filled alike: `entries_per_leaf`
/// index records on a leaf, `ptrs_per_page` node pointers on the pages above, `height`
/// levels (1: the root is the only leaf).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiveTree {
    entries_per_leaf: f64,
    ptrs_per_page: f64,
    height: usize,
}

/// One border of a dive on one level (`btr_path_t`): the page, the border record's
/// 1-based place on it (`nth_rec`) and the page's record count (`n_recs`).
struct PathSlot {
    page: f64,
    nth_rec: f64,
    n_recs: f64,
}

impl DiveTree {
    /// The tree over `records` entries: leaves of `entries_per_leaf`, node pointers
    /// `ptrs_per_page` to a page, as many levels as that takes to reach one root.
    pub fn new(records: f64, entries_per_leaf: f64, ptrs_per_page: f64) -> DiveTree {
        let e = entries_per_leaf.round().max(2.0);
        let f = ptrs_per_page.floor().max(2.0);
        let mut pages = (records.max(1.0) / e).ceil();
        let mut height = 1;
        while pages > 1.0 && height < 64 {
            pages = (pages / f).ceil();
            height += 1;
        }
        DiveTree {
            entries_per_leaf: e,
            ptrs_per_page: f,
            height,
        }
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Where the path to record `x` (0-based, in index order) crosses `level` (0: leaf).
    fn slot(&self, x: f64, level: usize) -> PathSlot {
        let (e, f) = (self.entries_per_leaf, self.ptrs_per_page);
        let leaf = (x / e).floor();
        if level == 0 {
            return PathSlot {
                page: leaf,
                nth_rec: x - leaf * e + 1.0,
                n_recs: e,
            };
        }
        // The record on `level` is the pointer to the path's page one level down.
        let mut child = leaf;
        for _ in 1..level {
            child = (child / f).floor();
        }
        let page = (child / f).floor();
        PathSlot {
            page,
            nth_rec: child - page * f + 1.0,
            n_recs: f,
        }
    }

    /// `btr_estimate_n_rows_in_range_on_level`: records between the borders on one level,
    /// counted over at most `N_PAGES_READ_LIMIT` pages from the left border's, else
    /// `prev` (the level above's count, i.e. the pages strictly between) times the mean
    /// records of the pages read. Returns the count and whether it is exact.
    fn on_level(s1: &PathSlot, s2: &PathSlot, prev: f64) -> (f64, bool) {
        let mut n = Self::beside_borders(s1, s2);
        let between = s2.page - s1.page - 1.0;
        if between + 1.0 < N_PAGES_READ_LIMIT {
            return (n + between * s1.n_recs, true);
        }
        // Read the left border's page and the nine after it, then extrapolate.
        n += (N_PAGES_READ_LIMIT - 1.0) * s1.n_recs;
        ((prev * n / N_PAGES_READ_LIMIT).floor(), false)
    }

    /// Records right of the left border on its page and left of the right border on its.
    fn beside_borders(s1: &PathSlot, s2: &PathSlot) -> f64 {
        (s1.n_recs - s1.nth_rec).max(0.0) + (s2.nth_rec - 1.0).max(0.0)
    }

    /// `btr_estimate_n_rows_in_range_low` for the `rows` records after record `first - 1`:
    /// the two paths compared level by level from the root; where they part, the records
    /// between them on that page (the borders not counted); below, `on_level`; at the
    /// end, an inexact estimate doubled if the paths parted at least two levels above
    /// the leaves ("our algorithm tends to underestimate") and capped at half the table.
    fn dive(&self, first: f64, rows: f64, table_rows: f64) -> f64 {
        let (b1, b2) = (first - 1.0, first + rows);
        let mut n_rows = 1.0;
        let (mut diverged, mut diverged_lot, mut exact) = (false, false, true);
        let mut divergence_level = usize::MAX;
        for i in 0..self.height {
            let level = self.height - 1 - i;
            let (s1, s2) = (self.slot(b1, level), self.slot(b2, level));
            if !diverged && s1.nth_rec != s2.nth_rec {
                diverged = true;
                n_rows = s2.nth_rec - s1.nth_rec - 1.0;
                if n_rows > 0.0 {
                    diverged_lot = true;
                    divergence_level = i;
                }
            } else if diverged && !diverged_lot {
                if s1.nth_rec < s1.n_recs || s2.nth_rec > 1.0 {
                    diverged_lot = true;
                    divergence_level = i;
                    n_rows = Self::beside_borders(&s1, &s2);
                }
            } else if diverged_lot {
                (n_rows, exact) = Self::on_level(&s1, &s2, n_rows);
            }
        }
        if !exact {
            if divergence_level != usize::MAX && self.height > divergence_level + 1 {
                n_rows *= 2.0;
            }
            let cap = (table_rows / 2.0).floor();
            if n_rows > cap {
                n_rows = if cap == 0.0 { table_rows } else { cap };
            }
        }
        n_rows
    }
}

/// What InnoDB's index dive (`records_in_range`) reports for a range holding `true_rows`
/// of the index's `table_rows` entries, on `tree` (spec §4.3, from btr0cur.cc):
///
/// * a range on at most 9 leaf pages is counted exactly;
/// * a longer one is extrapolated level by level from the first pages right of its left
///   border; each extrapolation counts the pages strictly between the borders, so it
///   misses about one page of that level (≈ 8 % when the range spans 13 pages of the
///   level below the root);
/// * the result is doubled when the paths parted two or more levels above the leaves,
///   which a range holding several pages of that level does, and capped at N/2;
/// * 0 becomes 1 (`ha_innobase::records_in_range`).
///
/// Where the range's ends fall on their pages is data, not statistics: the estimate is
/// the mean over `DIVE_ALIGNMENTS` placements spread over one root pointer's span (an
/// expected value; one server's dive can differ by a few percent either way). With
/// `model_bias` off the estimate is the exact count. Estimates are whole rows.
pub fn innodb_records_in_range(
    true_rows: f64,
    tree: &DiveTree,
    table_rows: f64,
    model_bias: bool,
) -> f64 {
    let exact = true_rows.round().max(0.0);
    // Nine leaf pages are always read to the end: no extrapolation, whatever the alignment.
    if !model_bias || exact <= (N_PAGES_READ_LIMIT - 2.0) * tree.entries_per_leaf {
        return exact.max(1.0);
    }
    let records = table_rows.max(exact + 2.0);
    let under_root = tree.entries_per_leaf
        * tree
            .ptrs_per_page
            .powi(tree.height.saturating_sub(2) as i32);
    let room = (records - exact - 2.0).max(0.0).min(under_root);
    // Placements: the leaf page on a golden-ratio sequence over the room (no aliasing
    // with the upper levels' page sizes), the place on that leaf stratified evenly (the
    // records beside the borders, which the extrapolation averages in, then average out).
    const PHI: f64 = 0.618_033_988_749_894_9;
    let e = tree.entries_per_leaf;
    let leaves = (room / e).floor();
    let sum: f64 = (0..DIVE_ALIGNMENTS)
        .map(|j| {
            let u = ((j as f64 + 0.5) * PHI).fract();
            let v = (j as f64 + 0.5) / DIVE_ALIGNMENTS as f64;
            let first = ((u * leaves).floor() * e + (v * e).floor()).min(room);
            tree.dive(1.0 + first, exact, table_rows).max(1.0)
        })
        .sum();
    (sum / DIVE_ALIGNMENTS as f64).round().max(1.0)
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
        let q = costlab_model::query::Query::parse(&format!("SELECT * FROM t WHERE {p}")).unwrap();
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

    /// One dive traced by hand through btr_estimate_n_rows_in_range_low on a small tree:
    /// 16 leaves of 10 entries, 4 pointers a page, 3 levels; 100 rows after record 4.
    #[test]
    fn one_dive_follows_the_source_level_by_level() {
        let tree = DiveTree::new(160.0, 10.0, 4.0);
        assert_eq!(tree.height(), 3);
        // Root: the paths part at pointers 1 and 3, one between (diverged a lot, level 0).
        // Level 1: 3 + 2 records beside the borders and one page of 4 between: exact 9.
        // Leaf: 9 pages between, 10 read: (5 + 5 + 9 x 10) / 10 per page x 9 = 90,
        // inexact, two levels under the divergence: doubled to 180 (cap 500 not reached).
        assert_eq!(tree.dive(5.0, 100.0, 1000.0), 180.0);
        // The same range with a table of 300 rows: capped at 150.
        assert_eq!(tree.dive(5.0, 100.0, 300.0), 150.0);
        // Within one leaf: exact.
        assert_eq!(tree.dive(21.0, 5.0, 1000.0), 5.0);
    }

    /// What the expected dive makes of ranges on two trees of the project's tables
    /// (spec §4.3: "≈ 2 × true rows" holds only where the paths part at the root).
    #[test]
    fn innodb_estimates_depend_on_where_the_paths_part() {
        // WL#8737's t1: 10M entries, 717 to a leaf, 567 pointers a page (as full as
        // the leaves): 3 levels, each root pointer over 4.1 % of the table.
        let n = 1e7;
        let t1 = DiveTree::new(n, 717.0, 567.0);
        assert_eq!(t1.height(), 3);
        let est = |rows: f64| innodb_records_in_range(rows, &t1, n, true);
        // Up to 8 leaves: exact, whatever the alignment; 0 becomes 1.
        assert_eq!(est(5_000.0), 5_000.0);
        assert_eq!(est(0.0), 1.0);
        // 1 % (139 leaves): the paths part on the root or the level below it, both above
        // the leaves: doubled, less the leaf page or so the extrapolation misses.
        let r = est(100_000.0);
        assert!((197_000.0..199_500.0).contains(&r), "1 %: {r}");
        // 9 % spans 3 or 4 root pointers; the level below is read to the end (2 or 3
        // pages between the borders), so only the leaves are extrapolated: doubled, within
        // a leaf page either way.
        let r = est(900_000.0);
        assert!((1_796_000.0..1_802_000.0).contains(&r), "9 %: {r}");
        // 30 %: doubled past N/2, capped.
        assert_eq!(est(3_000_000.0), 5_000_000.0);
        // Exact counts when the bias is not modelled.
        assert_eq!(
            innodb_records_in_range(3_000_000.0, &t1, n, false),
            3_000_000.0
        );
        // lineitem's i_l_shipdate at SF 10: 903 entries a leaf, 698 pointers a page. A
        // year of ship dates (15.17 %) spans 14.5 pages below the root: that level is
        // extrapolated from the pages strictly between the borders, missing about one.
        let n = 59_986_052.0;
        let ship = DiveTree::new(n, 903.0, 698.0);
        let true_rows = 0.1517 * n;
        let r = innodb_records_in_range(true_rows, &ship, n, true) / true_rows;
        assert!((1.8..1.9).contains(&r), "Q6's range: {r}");
    }
}
