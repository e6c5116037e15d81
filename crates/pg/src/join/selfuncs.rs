//! Join selectivity (selfuncs.c's eqjoinsel_inner and eqjoinsel_semi): the two columns'
//! MCV lists matched, the rest spread over the distinct values left, the defaults for a
//! relation without statistics.

use crate::pathnodes::clamp_row_est;
use crate::selfuncs;

use super::pathnodes::*;

pub(crate) fn default_stats(r: &BaseRel) -> VarStats<'static> {
    let (nd, def) = if r.tuples < 200.0 {
        (clamp_row_est(r.tuples), false)
    } else {
        (200.0, true)
    };
    VarStats {
        nd,
        nd_default: def,
        nullfrac: 0.0,
        mcv: &[],
        hist: &[],
        rows: r.rows,
        tuples: r.tuples,
        unique: false,
    }
}

pub(crate) fn mcv_matches(v1: &VarStats, v2: &VarStats) -> (Vec<bool>, Vec<bool>) {
    let mut m1 = vec![false; v1.mcv.len()];
    let mut m2 = vec![false; v2.mcv.len()];
    for (i, (a, _)) in v1.mcv.iter().enumerate() {
        for (j, (b, _)) in v2.mcv.iter().enumerate() {
            if !m2[j] && selfuncs::compare(a, b) == Some(std::cmp::Ordering::Equal) {
                m1[i] = true;
                m2[j] = true;
                break;
            }
        }
    }
    (m1, m2)
}

/// eqjoinsel_inner (§1.1).
pub(crate) fn eqjoinsel_inner(v1: &VarStats, v2: &VarStats) -> f64 {
    if !v1.mcv.is_empty() && !v2.mcv.is_empty() {
        let (m1, m2) = mcv_matches(v1, v2);
        let mut matchprodfreq = 0.0;
        for (i, (a, f1)) in v1.mcv.iter().enumerate() {
            if !m1[i] {
                continue;
            }
            for (b, f2) in v2.mcv {
                if selfuncs::compare(a, b) == Some(std::cmp::Ordering::Equal) {
                    matchprodfreq += f1 * f2;
                    break;
                }
            }
        }
        let matchprodfreq = matchprodfreq.clamp(0.0, 1.0);
        let sum = |v: &VarStats, m: &[bool], want: bool| -> f64 {
            v.mcv
                .iter()
                .zip(m)
                .filter(|(_, &x)| x == want)
                .map(|((_, f), _)| f)
                .sum::<f64>()
                .clamp(0.0, 1.0)
        };
        let matchfreq1 = sum(v1, &m1, true);
        let unmatchfreq1 = sum(v1, &m1, false);
        let matchfreq2 = sum(v2, &m2, true);
        let unmatchfreq2 = sum(v2, &m2, false);
        let nmatches = m1.iter().filter(|x| **x).count() as f64;
        let other1 = (1.0 - v1.nullfrac - matchfreq1 - unmatchfreq1).clamp(0.0, 1.0);
        let other2 = (1.0 - v2.nullfrac - matchfreq2 - unmatchfreq2).clamp(0.0, 1.0);
        let (n1, n2) = (v1.mcv.len() as f64, v2.mcv.len() as f64);
        let mut t1 = matchprodfreq;
        if v2.nd > n2 {
            t1 += unmatchfreq1 * other2 / (v2.nd - n2);
        }
        if v2.nd > nmatches {
            t1 += other1 * (other2 + unmatchfreq2) / (v2.nd - nmatches);
        }
        let mut t2 = matchprodfreq;
        if v1.nd > n1 {
            t2 += unmatchfreq2 * other1 / (v1.nd - n1);
        }
        if v1.nd > nmatches {
            t2 += other2 * (other1 + unmatchfreq1) / (v1.nd - nmatches);
        }
        t1.min(t2).clamp(0.0, 1.0)
    } else {
        ((1.0 - v1.nullfrac) * (1.0 - v2.nullfrac) / v1.nd.max(v2.nd).max(1.0)).clamp(0.0, 1.0)
    }
}

/// eqjoinsel_semi without the final clamp (§1.1); v1 the outer var.
pub(crate) fn eqjoinsel_semi(v1: &VarStats, v2: &VarStats, inner_rows: f64) -> f64 {
    let mut nd1 = v1.nd;
    let mut nd2 = v2.nd;
    let mut def2 = v2.nd_default;
    if nd2 >= v2.rows {
        nd2 = v2.rows;
        def2 = false;
    }
    if nd2 >= inner_rows {
        nd2 = inner_rows;
        def2 = false;
    }
    let def1 = v1.nd_default;
    if !v1.mcv.is_empty() && !v2.mcv.is_empty() {
        let k2 = (v2.mcv.len() as f64).min(nd2).max(0.0) as usize;
        let mut used2 = vec![false; k2];
        let mut matchfreq1 = 0.0;
        let mut nmatches = 0.0;
        for (a, f) in v1.mcv {
            for (j, (b, _)) in v2.mcv[..k2].iter().enumerate() {
                if !used2[j] && selfuncs::compare(a, b) == Some(std::cmp::Ordering::Equal) {
                    used2[j] = true;
                    matchfreq1 += f;
                    nmatches += 1.0;
                    break;
                }
            }
        }
        let matchfreq1 = f64::clamp(matchfreq1, 0.0, 1.0);
        let uncertainfrac = if !def1 && !def2 {
            nd1 -= nmatches;
            nd2 -= nmatches;
            if nd1 <= nd2 || nd2 < 0.0 {
                1.0
            } else {
                nd2 / nd1
            }
        } else {
            0.5
        };
        matchfreq1 + uncertainfrac * (1.0 - matchfreq1 - v1.nullfrac).clamp(0.0, 1.0)
    } else if !def1 && !def2 {
        if nd1 <= nd2 || nd2 < 0.0 {
            1.0 - v1.nullfrac
        } else {
            (nd2 / nd1) * (1.0 - v1.nullfrac)
        }
    } else {
        0.5 * (1.0 - v1.nullfrac)
    }
}
