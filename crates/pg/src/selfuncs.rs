//! Selectivity estimation (spec section 7): clauselist_selectivity with range pairs,
//! scalarineqsel + ineq_histogram_selectivity, eqsel/var_eq_const, scalararraysel.
//!
//! Text compares bytewise (a database in the C collation) and convert_to_scalar uses
//! PostgreSQL's C-locale string scaling; dates compare as day numbers.

use std::cmp::Ordering;

use costlab_model::catalog::Value;
use costlab_model::query::CmpOp;

use super::pathnodes::{clamp_row_est, Clause, ClauseKind, ColInfo, Rel};

pub(crate) const DEFAULT_INEQ_SEL: f64 = 0.3333333333333333;
pub(crate) const DEFAULT_RANGE_INEQ_SEL: f64 = 0.005;
/// nulltestsel without statistics (IS NULL).
pub(crate) const DEFAULT_UNK_SEL: f64 = 0.005;
pub(crate) const DEFAULT_NUM_DISTINCT: f64 = 200.0;

fn clamp_probability(p: f64) -> f64 {
    if p.is_nan() {
        0.5
    } else {
        p.clamp(0.0, 1.0)
    }
}

/// The type's comparison: numbers numerically, text bytewise; mixed kinds don't compare.
pub(crate) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => x.partial_cmp(y),
        (Value::Text(x), Value::Text(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        _ => None,
    }
}

/// Does `a op b` hold?
pub(crate) fn op_holds(a: &Value, op: CmpOp, b: &Value) -> bool {
    match compare(a, b) {
        None => false,
        Some(o) => match op {
            CmpOp::Eq => o == Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        },
    }
}

/// clause_selectivity for the clause kinds costlab has (spec 7.2).
pub(crate) fn clause_selectivity(rel: &Rel, clause: &Clause) -> f64 {
    let col = &rel.cols[clause.col];
    match &clause.kind {
        ClauseKind::Op {
            op: CmpOp::Eq,
            value,
        } => var_eq_const(rel, col, value),
        ClauseKind::Op { op, value } => scalarineqsel(rel, col, *op, value),
        ClauseKind::AnyEq { values } => scalararraysel(rel, col, values),
    }
}

/// Whether a clause is a lower (`>`, `>=`) or upper (`<`, `<=`) bound that
/// clauselist_selectivity pairs with others on its column; None for any other clause.
fn range_bound(c: &Clause) -> Option<bool> {
    match &c.kind {
        ClauseKind::Op {
            op: CmpOp::Gt | CmpOp::Ge,
            ..
        } => Some(true),
        ClauseKind::Op {
            op: CmpOp::Lt | CmpOp::Le,
            ..
        } => Some(false),
        _ => None,
    }
}

/// clauselist_selectivity (spec 7.1): plain clauses multiplied in list order, then
/// `<`/`>` bounds on the same column combined as `hi + lo - 1 + P(NULL)`, newest
/// group first.
///
/// PostgreSQL collects the groups in a list (clausesel.c's RangeQueryClause); here each
/// group is read off `ids` where it starts, which needs no list: the planner calls this
/// several times per index at every sweep point.
pub(crate) fn clauselist_selectivity(rel: &Rel, ids: &[usize]) -> f64 {
    if ids.len() == 1 {
        return rel.clauses[ids[0]].selec;
    }
    let mut s1 = 1.0;
    for &i in ids {
        let c = &rel.clauses[i];
        if range_bound(c).is_none() {
            s1 *= c.selec;
        }
    }
    // A group starts at its column's first bound; PostgreSQL prepends each new group, so
    // walking the starts backwards multiplies in its order.
    for (n, &i) in ids.iter().enumerate().rev() {
        let c = &rel.clauses[i];
        if range_bound(c).is_none() {
            continue;
        }
        let same_group = |j: &usize| {
            let d = &rel.clauses[*j];
            d.col == c.col && range_bound(d).is_some()
        };
        if ids[..n].iter().any(same_group) {
            continue;
        }
        // addRangeClause: two bounds of the same kind keep the more restrictive one.
        let (mut lo, mut hi) = (None, None);
        for j in ids[n..].iter().filter(|j| same_group(j)) {
            let d = &rel.clauses[*j];
            let slot = if range_bound(d) == Some(true) {
                &mut lo
            } else {
                &mut hi
            };
            *slot = Some(match *slot {
                Some(old) if old <= d.selec => old,
                _ => d.selec,
            });
        }
        let s2 = match (lo, hi) {
            (Some(lo), Some(hi)) => {
                if lo == DEFAULT_INEQ_SEL || hi == DEFAULT_INEQ_SEL {
                    DEFAULT_RANGE_INEQ_SEL
                } else {
                    let s = hi + lo - 1.0 + nulltestsel_is_null(&rel.cols[c.col]);
                    if s <= 0.0 {
                        if s < -0.01 {
                            DEFAULT_RANGE_INEQ_SEL
                        } else {
                            1.0e-10
                        }
                    } else {
                        s
                    }
                }
            }
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => 1.0,
        };
        s1 *= s2;
    }
    s1
}

/// nulltestsel(IS NULL): the null fraction, or the default without statistics.
fn nulltestsel_is_null(col: &ColInfo) -> f64 {
    if col.has_stats {
        col.stats.null_frac
    } else {
        DEFAULT_UNK_SEL
    }
}

/// get_variable_numdistinct (spec 7.5): returns (ndistinct, is_default).
pub(crate) fn get_variable_numdistinct(rel: &Rel, col: &ColInfo) -> (f64, bool) {
    let mut stadistinct = 0.0;
    let mut nullfrac = 0.0;
    if col.has_stats {
        stadistinct = col.stats.n_distinct;
        nullfrac = col.stats.null_frac;
    } else if col.ty == costlab_model::catalog::ColumnType::Bool {
        stadistinct = 2.0;
    }
    if col.is_unique {
        stadistinct = -(1.0 - nullfrac);
    }
    if stadistinct > 0.0 {
        return (clamp_row_est(stadistinct), false);
    }
    let ntuples = rel.tuples;
    if ntuples <= 0.0 {
        return (DEFAULT_NUM_DISTINCT, true);
    }
    if stadistinct < 0.0 {
        return (clamp_row_est(-stadistinct * ntuples), false);
    }
    if ntuples < DEFAULT_NUM_DISTINCT {
        return (clamp_row_est(ntuples), false);
    }
    (DEFAULT_NUM_DISTINCT, true)
}

/// var_eq_const (spec 7.5).
pub(crate) fn var_eq_const(rel: &Rel, col: &ColInfo, value: &Value) -> f64 {
    let selec = if col.is_unique && rel.tuples >= 1.0 {
        1.0 / rel.tuples
    } else if col.has_stats {
        let mcv = &col.stats.mcv;
        if let Some((_, f)) = mcv.iter().find(|(v, _)| op_holds(v, CmpOp::Eq, value)) {
            *f
        } else {
            let sumcommon: f64 = mcv.iter().map(|(_, f)| *f).sum();
            let mut s = clamp_probability(1.0 - sumcommon - col.stats.null_frac);
            let otherdistinct = get_variable_numdistinct(rel, col).0 - mcv.len() as f64;
            if otherdistinct > 1.0 {
                s /= otherdistinct;
            }
            // Not more than the least common of the most common values (the last one).
            if let Some((_, least)) = mcv.last() {
                if s > *least {
                    s = *least;
                }
            }
            s
        }
    } else {
        1.0 / get_variable_numdistinct(rel, col).0
    };
    clamp_probability(selec)
}

/// scalararraysel for `col = ANY(array)` (spec 7.2). Each listed constant is
/// estimated with eqsel; for `= ANY` the elements are assumed distinct so the
/// selectivities add up (duplicates are not removed, as PostgreSQL does not check).
/// If that sum leaves [0, 1] the independent-events combination is used instead.
pub(crate) fn scalararraysel(rel: &Rel, col: &ColInfo, values: &[Value]) -> f64 {
    let mut s1 = 0.0;
    let mut disjoint = 0.0;
    for v in values {
        let s2 = var_eq_const(rel, col, v);
        s1 = s1 + s2 - s1 * s2;
        disjoint += s2;
    }
    if (0.0..=1.0).contains(&disjoint) {
        s1 = disjoint;
    }
    clamp_probability(s1)
}

/// scalarineqsel (spec 7.3).
pub(crate) fn scalarineqsel(rel: &Rel, col: &ColInfo, op: CmpOp, value: &Value) -> f64 {
    if !col.has_stats {
        return DEFAULT_INEQ_SEL;
    }
    let (mcv_selec, sumcommon) = mcv_selectivity(col, op, value);
    let hist_selec = ineq_histogram_selectivity(rel, col, op, value);
    let mut selec = 1.0 - col.stats.null_frac - sumcommon;
    if hist_selec >= 0.0 {
        selec *= hist_selec;
    } else {
        // No histogram: half of the non-MCV values.
        selec *= 0.5;
    }
    selec += mcv_selec;
    clamp_probability(selec)
}

/// Sum of frequencies of the MCVs satisfying `mcv op c`, and of all MCVs.
fn mcv_selectivity(col: &ColInfo, op: CmpOp, value: &Value) -> (f64, f64) {
    let mut selec = 0.0;
    let mut sumcommon = 0.0;
    for (v, f) in &col.stats.mcv {
        if op_holds(v, op, value) {
            selec += f;
        }
        sumcommon += f;
    }
    (selec, sumcommon)
}

/// ineq_histogram_selectivity (spec 7.4); -1 when there is no usable histogram.
///
/// get_actual_variable_range is taken to succeed when the column leads a btree index
/// (`ColInfo::has_actual_range`), and to return the histogram's own end bounds: the
/// model has no table data, so the endpoints are assumed current. Its effect is then
/// only that the final clamp is [0, 1] instead of the 1/100-bin cutoff whenever the
/// binary search touched an end bound.
pub(crate) fn ineq_histogram_selectivity(
    rel: &Rel,
    col: &ColInfo,
    op: CmpOp,
    value: &Value,
) -> f64 {
    let hist = &col.stats.histogram;
    let n = hist.len();
    if n <= 1 {
        return -1.0;
    }
    let isgt = matches!(op, CmpOp::Gt | CmpOp::Ge);
    let iseq = matches!(op, CmpOp::Le | CmpOp::Ge);
    // Binary search for the first bound where `bound op c` fails (`<`, `<=`) or
    // holds (`>`, `>=`): the right end of the bin holding c.
    let mut have_end = false;
    if n == 2 {
        have_end = col.has_actual_range;
    }
    let mut lobound = 0usize;
    let mut hibound = n;
    while lobound < hibound {
        let probe = (lobound + hibound) / 2;
        if n > 2 && (probe == 0 || probe == n - 1) {
            have_end = col.has_actual_range;
        }
        let mut ltcmp = op_holds(&hist[probe], op, value);
        if isgt {
            ltcmp = !ltcmp;
        }
        if ltcmp {
            lobound = probe + 1;
        } else {
            hibound = probe;
        }
    }

    let histfrac = if lobound == 0 {
        0.0
    } else if lobound >= n {
        1.0
    } else {
        let i = lobound;
        let mut eq_selec = 0.0;
        if i == 1 || isgt == iseq {
            // Non-MCV share of one value, as var_eq_const would estimate it (without
            // the nullfrac/sumcommon factor, which the caller applies).
            let otherdistinct = get_variable_numdistinct(rel, col).0 - col.stats.mcv.len() as f64;
            if otherdistinct > 1.0 {
                eq_selec = 1.0 / otherdistinct;
            }
        }
        let binfrac = match convert_to_scalar(value, &hist[i - 1], &hist[i]) {
            Some((val, low, high)) => {
                if high <= low {
                    0.5
                } else if val <= low {
                    0.0
                } else if val >= high {
                    1.0
                } else {
                    let b = (val - low) / (high - low);
                    if b.is_nan() || !(0.0..=1.0).contains(&b) {
                        0.5
                    } else {
                        b
                    }
                }
            }
            None => 0.5,
        };
        let mut histfrac = ((i - 1) as f64 + binfrac) / (n - 1) as f64;
        if i == 1 {
            histfrac += eq_selec * (1.0 - binfrac);
        }
        if isgt == iseq {
            histfrac -= eq_selec;
        }
        histfrac
    };
    let mut hist_selec = if isgt { 1.0 - histfrac } else { histfrac };
    if have_end {
        hist_selec = clamp_probability(hist_selec);
    } else {
        let cutoff = 0.01 / (n - 1) as f64;
        if hist_selec < cutoff {
            hist_selec = cutoff;
        } else if hist_selec > 1.0 - cutoff {
            hist_selec = 1.0 - cutoff;
        }
    }
    hist_selec
}

/// convert_to_scalar: maps the constant and the bin bounds onto one numeric scale.
fn convert_to_scalar(value: &Value, lo: &Value, hi: &Value) -> Option<(f64, f64, f64)> {
    match (value, lo, hi) {
        (Value::Num(v), Value::Num(l), Value::Num(h)) => Some((*v, *l, *h)),
        (Value::Text(v), Value::Text(l), Value::Text(h)) => Some(convert_string_to_scalar(
            v.as_bytes(),
            l.as_bytes(),
            h.as_bytes(),
        )),
        _ => None,
    }
}

/// convert_string_to_scalar (C locale): pick a character range from the bounds,
/// strip the common prefix of the three strings, read the rest as base-N fractions.
fn convert_string_to_scalar(value: &[u8], lo: &[u8], hi: &[u8]) -> (f64, f64, f64) {
    let mut rangelo: i32 = hi.first().copied().unwrap_or(0) as i32;
    let mut rangehi = rangelo;
    for &ch in lo.iter().chain(hi.iter()) {
        rangelo = rangelo.min(ch as i32);
        rangehi = rangehi.max(ch as i32);
    }
    for (a, z) in [(b'A', b'Z'), (b'a', b'z'), (b'0', b'9')] {
        let (a, z) = (a as i32, z as i32);
        if rangelo <= z && rangehi >= a {
            rangelo = rangelo.min(a);
            rangehi = rangehi.max(z);
        }
    }
    if rangehi - rangelo < 9 {
        rangelo = b' ' as i32;
        rangehi = 127;
    }
    let mut k = 0;
    while k < lo.len() && k < hi.len() && k < value.len() && lo[k] == hi[k] && lo[k] == value[k] {
        k += 1;
    }
    let one = |s: &[u8]| convert_one_string_to_scalar(&s[k.min(s.len())..], rangelo, rangehi);
    (one(value), one(lo), one(hi))
}

fn convert_one_string_to_scalar(s: &[u8], rangelo: i32, rangehi: i32) -> f64 {
    let base = (rangehi - rangelo + 1) as f64;
    let mut num = 0.0;
    let mut denom = base;
    // A dozen characters is more resolution than the estimate has.
    for &c in s.iter().take(12) {
        let ch = (c as i32).clamp(rangelo - 1, rangehi + 1);
        num += (ch - rangelo) as f64 / denom;
        denom *= base;
    }
    num
}
