//! One query block made ready for the join search: base relations with their access
//! paths, equivalence classes from the join edges, special joins for the flattened
//! IN / EXISTS / NOT EXISTS nests and the LEFT JOIN, filters with their selectivity and
//! cost, sub-selects planned as SubPlans or InitPlans (§6.1, §6.2).

use rustc_hash::FxHashMap;
use std::borrow::Cow;

use crate::pathnodes::{clamp_row_est, Clause, ClauseKind, ColInfo, QualOps, Rel};
use crate::selfuncs;
use costlab_model::block::{
    ColRef, FilterKind, NestKind, NestOrigin, QueryBlock, Source, SubqueryKind,
};
use costlab_model::catalog::{ColumnType, IndexMethod, Value};
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;
use costlab_model::plan::{AccessPattern, Cost, PageReads, Work};
use costlab_model::query::{CmpOp, Predicate, Query};

use super::costs::{JKind, Qual};
use super::deparse::{self, Ty};
use super::model::{JPath, Node, PathKeys, Rescan};
use super::pathnodes::*;
use super::sqlexpr::{self, Expr, Lit, Op, Operand};
use smallvec::SmallVec;

/// The constant a correlated column is compared with in the single-table model (`col =
/// $param`), outside every column's values; EXPLAIN text shows the outer column instead.
const PARAM_PLACEHOLDER: f64 = -1.0;

impl Block<'_> {
    /// A column name of the block's SQL (bare or `alias.column`) as EXPLAIN shows it,
    /// `alias.column` when `prefix`, with its type; `None` when no relation has it.
    pub fn column_display(&self, pl: &Planner, name: &str, prefix: bool) -> Option<(String, Ty)> {
        let (qual, col) = match name.split_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, name),
        };
        for br in &self.rels {
            if qual.is_some_and(|q| !q.eq_ignore_ascii_case(&br.alias)) {
                continue;
            }
            let ty = match &br.kind {
                RelKind::Table { tidx, .. } => pl.db.tables[*tidx]
                    .columns
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(col))
                    .map(|c| Ty::of(&c.ty)),
                RelKind::Sub { cols, .. } => cols
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(col))
                    .then_some(Ty::Other),
            };
            if let Some(ty) = ty {
                let col = col.to_ascii_lowercase();
                let text = if prefix {
                    format!("{}.{col}", br.alias)
                } else {
                    col
                };
                return Some((text, ty));
            }
        }
        None
    }
}

fn value_for(col: &ColInfo, l: &Lit) -> Option<Value> {
    match (l, &col.ty) {
        (Lit::Num(x), ColumnType::Text | ColumnType::Char(_)) => Some(Value::Text(x.to_string())),
        (Lit::Num(x), _) => Some(Value::Num(*x)),
        (Lit::Text(s), ColumnType::Text | ColumnType::Char(_)) => Some(Value::Text(s.clone())),
        (Lit::Text(s), ColumnType::Date) => costlab_model::date::parse(s)
            .ok()
            .map(|d| Value::Num(d as f64)),
        (Lit::Text(s), _) => s.trim().parse::<f64>().ok().map(Value::Num),
    }
}

fn cmp_op(op: Op) -> Option<CmpOp> {
    match op {
        Op::Eq => Some(CmpOp::Eq),
        Op::Lt => Some(CmpOp::Lt),
        Op::Le => Some(CmpOp::Le),
        Op::Gt => Some(CmpOp::Gt),
        Op::Ge => Some(CmpOp::Ge),
        Op::Ne => None,
    }
}

/// Operator calls of an expression (cost_qual_eval, [SCAN] §2.5): an IN list of n < 9
/// constants is charged n/2 per row, from 9 on a hash (2 per row, n at startup).
pub(crate) fn expr_ops(e: &Expr) -> QualOps {
    match e {
        Expr::And(v) | Expr::Or(v) => v.iter().fold(QualOps::default(), |a, x| a.add(expr_ops(x))),
        Expr::Not(x) => expr_ops(x),
        Expr::Cmp { .. } | Expr::Like { .. } | Expr::Other => QualOps {
            startup: 0.0,
            per_tuple: 1.0,
        },
        Expr::Between { .. } => QualOps {
            startup: 0.0,
            per_tuple: 2.0,
        },
        Expr::In { values, .. } => {
            let n = values.len() as f64;
            if values.len() >= 9 {
                QualOps {
                    startup: n,
                    per_tuple: 2.0,
                }
            } else {
                QualOps {
                    startup: 0.0,
                    per_tuple: n * 0.5,
                }
            }
        }
    }
}

/// process_duplicate_ors (prepqual.c): conjuncts every OR arm has are pulled out.
fn factor_or(e: Expr) -> Vec<Expr> {
    let Expr::Or(arms) = e else {
        return vec![e];
    };
    // The parser has already made BETWEEN two comparisons and nested ANDs one list.
    fn flat(e: Expr, out: &mut Vec<Expr>) {
        match e {
            Expr::And(v) => {
                for x in v {
                    flat(x, out);
                }
            }
            Expr::Between { col, lo, hi } => {
                out.push(Expr::Cmp {
                    col: col.clone(),
                    op: Op::Ge,
                    rhs: Operand::Lit(lo),
                });
                out.push(Expr::Cmp {
                    col,
                    op: Op::Le,
                    rhs: Operand::Lit(hi),
                });
            }
            x => out.push(x),
        }
    }
    let arms: Vec<Vec<Expr>> = arms
        .into_iter()
        .map(|a| {
            let mut v = Vec::new();
            flat(a, &mut v);
            v
        })
        .collect();
    let common: Vec<Expr> = arms[0]
        .iter()
        .filter(|c| arms[1..].iter().all(|a| a.contains(c)))
        .cloned()
        .collect();
    let rest: Vec<Expr> = arms
        .into_iter()
        .map(|a| {
            let v: Vec<Expr> = a.into_iter().filter(|c| !common.contains(c)).collect();
            if v.len() == 1 {
                v.into_iter().next().unwrap_or(Expr::Other)
            } else {
                Expr::And(v)
            }
        })
        .collect();
    let mut out = common;
    if rest
        .iter()
        .all(|a| !matches!(a, Expr::And(v) if v.is_empty()))
    {
        out.push(Expr::Or(rest));
    }
    out
}

impl<'a> Block<'a> {
    /// Hash bucket statistics of a join column.
    pub fn bucket_input(&self, k: &ColKey) -> super::costs::BucketInput {
        let v = self.stats(k);
        super::costs::BucketInput {
            nd: v.nd,
            nd_default: v.nd_default,
            nullfrac: v.nullfrac,
            mcv_freq: v.mcv.first().map_or(0.0, |m| m.1),
            rel_rows: v.rows,
            rel_tuples: v.tuples,
        }
    }

    pub fn stats(&self, k: &ColKey) -> VarStats<'_> {
        let r = &self.rels[k.rel];
        match &r.kind {
            RelKind::Table { rel, .. } => {
                let pos = rel
                    .cols
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(&k.col));
                match pos {
                    Some(p) => {
                        let c = &rel.cols[p];
                        let (nd, def) = selfuncs::get_variable_numdistinct(rel, c);
                        VarStats {
                            nd,
                            nd_default: def,
                            nullfrac: if c.has_stats { c.stats.null_frac } else { 0.0 },
                            mcv: if c.has_stats { &c.stats.mcv } else { &[] },
                            hist: if c.has_stats { &c.stats.histogram } else { &[] },
                            rows: r.rows,
                            tuples: r.tuples,
                            unique: c.is_unique,
                        }
                    }
                    None => default_stats(r),
                }
            }
            RelKind::Sub { .. } => default_stats(r),
        }
    }

    /// Restriction selectivity of `col op value` for a table column (None if not a table
    /// column).
    fn restriction_sel(&self, k: &ColKey, op: CmpOp, l: &Lit) -> Option<f64> {
        let RelKind::Table { rel, .. } = &self.rels[k.rel].kind else {
            return None;
        };
        let pos = rel
            .cols
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&k.col))?;
        let v = value_for(&rel.cols[pos], l)?;
        let cl = Clause {
            col: pos,
            kind: ClauseKind::Op { op, value: v },
            selec: 0.0,
            ops: QualOps::default(),
        };
        Some(selfuncs::clause_selectivity(rel, &cl))
    }

    fn col_info(&self, k: &ColKey) -> Option<(&Rel<'a>, &ColInfo)> {
        let RelKind::Table { rel, .. } = &self.rels[k.rel].kind else {
            return None;
        };
        let pos = rel
            .cols
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&k.col))?;
        Some((rel, &rel.cols[pos]))
    }

    /// var_eq_non_const: `col = <something not a constant>` (§2.3).
    pub fn eq_non_const(&self, k: &ColKey) -> f64 {
        let v = self.stats(k);
        if v.unique && v.tuples >= 1.0 {
            return 1.0 / v.tuples;
        }
        let mut s = 1.0 - v.nullfrac;
        if v.nd > 1.0 {
            s /= v.nd;
        }
        if let Some((_, f)) = v.mcv.first() {
            s = s.min(*f);
        }
        s.clamp(0.0, 1.0)
    }

    /// LIKE selectivity (patternsel): MCVs matched exactly, the histogram counted when it
    /// has at least 10 entries (weight hist_size/100), the pattern heuristic otherwise.
    fn like_sel(&self, k: &ColKey, pat: &str) -> f64 {
        let Some((rel, col)) = self.col_info(k) else {
            return 0.005;
        };
        fn text(v: &Value) -> std::borrow::Cow<'_, str> {
            match v {
                Value::Text(s) => std::borrow::Cow::Borrowed(s.as_str()),
                Value::Num(x) => std::borrow::Cow::Owned(x.to_string()),
            }
        }
        let prefix: String = pat.chars().take_while(|c| *c != '%' && *c != '_').collect();
        let rest = &pat[prefix.len()..];
        if !col.has_stats {
            return 0.005;
        }
        let nullfrac = col.stats.null_frac;
        // prefix_selectivity: the histogram's share in [prefix, next string), at least
        // the selectivity of `col = prefix`.
        let mut prefixsel = 1.0;
        if !prefix.is_empty() {
            let lo = selfuncs::ineq_histogram_selectivity(
                rel,
                col,
                CmpOp::Ge,
                &Value::Text(prefix.clone()),
            );
            if lo >= 0.0 {
                let mut upper = prefix.clone().into_bytes();
                if let Some(last) = upper.last_mut() {
                    *last = last.saturating_add(1);
                }
                let up = String::from_utf8_lossy(&upper).to_string();
                let hi =
                    selfuncs::ineq_histogram_selectivity(rel, col, CmpOp::Lt, &Value::Text(up));
                let eq = selfuncs::var_eq_const(rel, col, &Value::Text(prefix.clone()));
                prefixsel = (hi + lo - 1.0).max(eq);
            }
        }
        let heur = prefixsel * sqlexpr::like_rest_selectivity(rest);
        let hist = &col.stats.histogram;
        let mut selec = if hist.len() >= 10 {
            let inner = &hist[1..hist.len() - 1];
            let m = inner
                .iter()
                .filter(|v| sqlexpr::like_match(pat, &text(v)))
                .count() as f64;
            let hsel = m / inner.len().max(1) as f64;
            let w = (hist.len() as f64 / 100.0).min(1.0);
            hsel * w + heur * (1.0 - w)
        } else {
            heur
        };
        selec = selec.clamp(0.0001, 0.9999);
        let mut mcv_sel = 0.0;
        let mut sumcommon = 0.0;
        for (v, f) in &col.stats.mcv {
            if sqlexpr::like_match(pat, &text(v)) {
                mcv_sel += f;
            }
            sumcommon += f;
        }
        let _ = rel;
        (selec * (1.0 - nullfrac - sumcommon) + mcv_sel).clamp(0.0, 1.0)
    }

    /// eqjoinsel's inner selectivity (§1.1).
    pub fn eqjoinsel_inner(&self, a: &ColKey, b: &ColKey) -> f64 {
        let v1 = self.stats(a);
        let v2 = self.stats(b);
        eqjoinsel_inner(&v1, &v2)
    }

    /// eqjoinsel_semi with its final clamp (§1.1); `a` the outer var, `inner_rows` the
    /// RHS relation's rows.
    pub fn eqjoinsel_semi(&self, a: &ColKey, b: &ColKey, inner_rows: f64) -> f64 {
        let v1 = self.stats(a);
        let v2 = self.stats(b);
        let inner = eqjoinsel_inner(&v1, &v2);
        let s = eqjoinsel_semi(&v1, &v2, inner_rows);
        s.min(inner_rows * inner).clamp(0.0, 1.0)
    }

    /// Resolves a column name of a filter to a relation column.
    fn resolve(
        &self,
        name: &str,
        among: u64,
        block: &QueryBlock,
        ref_rel: &[Option<usize>],
    ) -> Option<ColKey> {
        let (qual, col) = match name.split_once('.') {
            Some((q, c)) => (Some(q), c),
            None => (None, name),
        };
        let col = col.to_ascii_lowercase();
        for (ti, t) in block.tables.iter().enumerate() {
            let Some(ri) = ref_rel[ti] else { continue };
            if among & bit(ri) == 0 {
                continue;
            }
            if let Some(q) = qual {
                if !t.alias.eq_ignore_ascii_case(q) {
                    continue;
                }
            }
            let has = t.uses.iter().any(|u| u.eq_ignore_ascii_case(&col))
                || match &self.rels[ri].kind {
                    RelKind::Sub { cols, .. } => cols.iter().any(|c| c.eq_ignore_ascii_case(&col)),
                    _ => false,
                };
            if has {
                return Some(ColKey {
                    rel: ri,
                    col: col.into(),
                });
            }
        }
        None
    }

    /// Selectivity of a parsed condition: (as a restriction / inner join clause, under a
    /// semi or anti join).
    fn expr_sel(
        &self,
        e: &Expr,
        among: u64,
        block: &QueryBlock,
        ref_rel: &[Option<usize>],
    ) -> (f64, f64) {
        let res = |n: &str| self.resolve(n, among, block, ref_rel);
        match e {
            Expr::And(v) => {
                // Range pairs on one column combine as hi + lo - 1 (clauselist_selectivity).
                let mut s = (1.0, 1.0);
                let mut ranges: Vec<(ColKey, Option<f64>, Option<f64>)> = Vec::new();
                for x in v {
                    if let Expr::Cmp {
                        col,
                        op: op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge),
                        rhs: Operand::Lit(l),
                    } = x
                    {
                        if let Some(k) = res(col) {
                            if let Some(sel) =
                                cmp_op(*op).and_then(|o| self.restriction_sel(&k, o, l))
                            {
                                let lower = matches!(op, Op::Gt | Op::Ge);
                                let slot = match ranges.iter().position(|r| r.0 == k) {
                                    Some(p) => p,
                                    None => {
                                        ranges.push((k.clone(), None, None));
                                        ranges.len() - 1
                                    }
                                };
                                let r = &mut ranges[slot];
                                let t = if lower { &mut r.1 } else { &mut r.2 };
                                *t = Some(t.map_or(sel, |o: f64| o.min(sel)));
                                continue;
                            }
                        }
                    }
                    let (a, b) = self.expr_sel(x, among, block, ref_rel);
                    s.0 *= a;
                    s.1 *= b;
                }
                for (k, lo, hi) in ranges {
                    let r = match (lo, hi) {
                        (Some(lo), Some(hi)) => {
                            let x = hi + lo - 1.0 + self.stats(&k).nullfrac;
                            if x <= 0.0 {
                                if x < -0.01 {
                                    0.005
                                } else {
                                    1e-10
                                }
                            } else {
                                x
                            }
                        }
                        (Some(x), None) | (None, Some(x)) => x,
                        (None, None) => 1.0,
                    };
                    s.0 *= r;
                    s.1 *= r;
                }
                s
            }
            Expr::Or(v) => {
                let mut s = (0.0, 0.0);
                for x in v {
                    let (a, b) = self.expr_sel(x, among, block, ref_rel);
                    s.0 = s.0 + a - s.0 * a;
                    s.1 = s.1 + b - s.1 * b;
                }
                s
            }
            Expr::Not(x) => {
                let (a, b) = self.expr_sel(x, among, block, ref_rel);
                (1.0 - a, 1.0 - b)
            }
            Expr::Cmp { col, op, rhs } => {
                let Some(k) = res(col) else {
                    return (0.005, 0.005);
                };
                match rhs {
                    Operand::Lit(l) => {
                        let s = match cmp_op(*op) {
                            Some(o) => self
                                .restriction_sel(&k, o, l)
                                .unwrap_or(if o == CmpOp::Eq { 0.005 } else { 1.0 / 3.0 }),
                            None => {
                                let eq = self.restriction_sel(&k, CmpOp::Eq, l).unwrap_or(0.005);
                                (1.0 - eq - self.stats(&k).nullfrac).clamp(0.0, 1.0)
                            }
                        };
                        (s, s)
                    }
                    Operand::Col(other) => match res(other) {
                        Some(k2) if k2.rel != k.rel => match op {
                            Op::Eq => {
                                let s = self.eqjoinsel_inner(&k, &k2);
                                (s, s)
                            }
                            Op::Ne => {
                                let s = 1.0 - self.eqjoinsel_inner(&k, &k2);
                                // Under a semi/anti join every LHS row finds a partner.
                                (s, 1.0 - self.stats(&k).nullfrac)
                            }
                            _ => (1.0 / 3.0, 1.0 / 3.0),
                        },
                        _ => match op {
                            Op::Eq => (0.005, 0.005),
                            Op::Ne => (0.995, 0.995),
                            _ => (1.0 / 3.0, 1.0 / 3.0),
                        },
                    },
                    Operand::Other => match op {
                        Op::Eq => {
                            let s = self.eq_non_const(&k);
                            (s, s)
                        }
                        Op::Ne => {
                            let s = 1.0 - self.eq_non_const(&k);
                            (s, s)
                        }
                        _ => (1.0 / 3.0, 1.0 / 3.0),
                    },
                }
            }
            Expr::In { col, values } => {
                let Some(k) = res(col) else {
                    let s = (values.len() as f64 * 0.005).min(1.0);
                    return (s, s);
                };
                let s = match self.col_info(&k) {
                    Some((rel, c)) => {
                        let vals: Vec<Value> =
                            values.iter().filter_map(|l| value_for(c, l)).collect();
                        selfuncs::scalararraysel(rel, c, &vals)
                    }
                    None => (values.len() as f64 * 0.005).min(1.0),
                };
                (s, s)
            }
            Expr::Between { col, lo, hi } => {
                let Some(k) = res(col) else {
                    return (0.005, 0.005);
                };
                let a = self.restriction_sel(&k, CmpOp::Ge, lo);
                let b = self.restriction_sel(&k, CmpOp::Le, hi);
                let s = match (a, b) {
                    (Some(a), Some(b)) if a != 1.0 / 3.0 && b != 1.0 / 3.0 => {
                        let x = a + b - 1.0 + self.stats(&k).nullfrac;
                        if x <= 0.0 {
                            if x < -0.01 {
                                0.005
                            } else {
                                1e-10
                            }
                        } else {
                            x
                        }
                    }
                    _ => 0.005,
                };
                (s, s)
            }
            Expr::Like { col, pat, negated } => {
                let Some(k) = res(col) else {
                    return (0.005, 0.005);
                };
                let s = self.like_sel(&k, pat);
                let s = if *negated {
                    (1.0 - s - self.stats(&k).nullfrac).clamp(0.0, 1.0)
                } else {
                    s
                };
                (s, s)
            }
            Expr::Other => (0.5, 0.5),
        }
    }

    /// The relations an expression reads.
    fn expr_rels(
        &self,
        e: &Expr,
        among: u64,
        block: &QueryBlock,
        ref_rel: &[Option<usize>],
    ) -> u64 {
        let res = |n: &str| {
            self.resolve(n, among, block, ref_rel)
                .map_or(0, |k| bit(k.rel))
        };
        match e {
            Expr::And(v) | Expr::Or(v) => v
                .iter()
                .fold(0, |a, x| a | self.expr_rels(x, among, block, ref_rel)),
            Expr::Not(x) => self.expr_rels(x, among, block, ref_rel),
            Expr::Cmp { col, rhs, .. } => {
                res(col)
                    | match rhs {
                        Operand::Col(c) => res(c),
                        _ => 0,
                    }
            }
            Expr::In { col, .. } | Expr::Between { col, .. } | Expr::Like { col, .. } => res(col),
            Expr::Other => 0,
        }
    }

    fn expr_cols(
        &self,
        e: &Expr,
        among: u64,
        block: &QueryBlock,
        ref_rel: &[Option<usize>],
        out: &mut Vec<ColKey>,
    ) {
        let mut push = |n: &str| {
            if let Some(k) = self.resolve(n, among, block, ref_rel) {
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        };
        match e {
            Expr::And(v) | Expr::Or(v) => {
                for x in v {
                    self.expr_cols(x, among, block, ref_rel, out);
                }
            }
            Expr::Not(x) => self.expr_cols(x, among, block, ref_rel, out),
            Expr::Cmp { col, rhs, .. } => {
                push(col);
                if let Operand::Col(c) = rhs {
                    push(c);
                }
            }
            Expr::In { col, .. } | Expr::Between { col, .. } | Expr::Like { col, .. } => push(col),
            Expr::Other => {}
        }
    }
}

fn default_stats(r: &BaseRel) -> VarStats<'static> {
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

fn mcv_matches(v1: &VarStats, v2: &VarStats) -> (Vec<bool>, Vec<bool>) {
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

/// The §2.2 indexes of the DBT3 PostgreSQL kit that a plain btree cannot stand for:
/// (name, BRIN, partial-index predicate, share of the table's rows the predicate keeps
/// from `dbt3.md` §1.2/§1.4, None to take the predicate's estimate). PostgreSQL reads a
/// partial index's entry count from its pg_class row; the catalog has no field for it.
pub(crate) const KIT_SPECIAL_INDEXES: &[(&str, bool, Option<&str>, Option<f64>)] = &[
    (
        "supplier_s_suppkey_idx_like",
        false,
        Some("s_comment LIKE '%Customer%Complaints%'"),
        Some(0.0005),
    ),
    ("orders_o_orderdate_idx", true, None, None),
    (
        "lineitem_l_orderkey_idx_l_returnflag",
        false,
        Some("l_returnflag = 'R'"),
        None,
    ),
    (
        "lineitem_l_orderkey_idx_part2",
        false,
        Some("l_commitdate < l_receiptdate AND l_shipdate < l_commitdate"),
        Some(0.1197),
    ),
    (
        "lineitem_l_orderkey_l_suppkey_idx",
        false,
        Some("l_commitdate < l_receiptdate"),
        Some(0.6321),
    ),
    ("lineitem_l_shipdate_idx", true, None, None),
    ("lineitem_l_receiptdate_idx", true, None, None),
];

fn strip(c: &str) -> String {
    c.rsplit('.').next().unwrap_or(c).to_ascii_lowercase()
}

/// A comparable form of a condition: qualifiers dropped, `>` turned around.
fn normal(e: &Expr) -> Option<(String, Op, String)> {
    match e {
        Expr::Cmp {
            col,
            op,
            rhs: Operand::Col(c2),
        } => Some(match op {
            Op::Gt => (strip(c2), Op::Lt, strip(col)),
            Op::Ge => (strip(c2), Op::Le, strip(col)),
            _ => (strip(col), *op, strip(c2)),
        }),
        Expr::Like { col, pat, negated } if !negated => {
            Some((strip(col), Op::Eq, format!("LIKE {pat}")))
        }
        _ => None,
    }
}

/// The partial index as usable for relation `r`, when the relation's conditions imply
/// its predicate (predicate_implied_by, reduced to matching conditions).
pub(crate) fn partial_desc(
    b: &Block,
    r: usize,
    rel: &Rel,
    p: &PartialIndex,
) -> Option<IxDesc<'static>> {
    let br = &b.rels[r];
    let mut implied_clauses = Vec::new();
    let mut implied_filters = Vec::new();
    let mut pred_sel = 1.0;
    for e in &p.conds {
        match e {
            Expr::Cmp {
                col,
                op,
                rhs: Operand::Lit(l),
            } => {
                let o = cmp_op(*op)?;
                let pos = rel
                    .cols
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(col))?;
                let v = value_for(&rel.cols[pos], l)?;
                let id = rel.clauses.iter().position(|cl| {
                    cl.col == pos
                        && matches!(&cl.kind, ClauseKind::Op { op: o2, value } if *o2 == o && *value == v)
                })?;
                implied_clauses.push(id);
                pred_sel *= rel.clauses[id].selec;
            }
            _ => {
                let want = normal(e)?;
                let fi = br
                    .filters
                    .iter()
                    .position(|f| normal(&f.expr).as_ref() == Some(&want))?;
                implied_filters.push(fi);
                pred_sel *= br.filters[fi].sel;
            }
        }
    }
    let pos = |n: &String| rel.cols.iter().position(|c| c.name.eq_ignore_ascii_case(n));
    let keys: Vec<usize> = p
        .index
        .columns
        .iter()
        .map(pos)
        .collect::<Option<Vec<_>>>()?;
    let mut covers = keys.clone();
    for c in &p.index.include {
        covers.push(pos(c)?);
    }
    let pg = p.index.pg.as_ref()?;
    let fraction = p.fraction.unwrap_or(pred_sel);
    Some(IxDesc {
        name: costlab_model::plan::Name::new(&p.index.name),
        pages: pg.pages.floor().max(1.0),
        tuples: (rel.tuples * fraction)
            .round()
            .clamp(1.0, rel.tuples.max(1.0)),
        height: pg.tree_height.floor(),
        unique: p.index.unique || p.index.primary,
        keys: Cow::Owned(keys),
        covers: Cow::Owned(covers),
        implied_clauses,
        implied_filters,
        pred_sel,
    })
}

/// Builds the block: relations, classes, special joins, filters, sub-selects.
pub(crate) fn build<'a>(
    pl: &Planner<'a>,
    block: &QueryBlock,
    sql: &str,
    opts: &BlockOpts,
) -> Result<Block<'a>> {
    // NOT IN nests stay SubPlans (§6.1): their tables leave the join problem.
    let notin: Vec<usize> = block
        .nests
        .iter()
        .enumerate()
        .filter(|(_, n)| n.origin == NestOrigin::NotIn)
        .map(|(i, _)| i)
        .collect();
    let in_notin = |t: usize| block.tables[t].nest.is_some_and(|n| notin.contains(&n));
    let mut ref_rel: Vec<Option<usize>> = vec![None; block.tables.len()];
    let mut n = 0;
    for (ti, _) in block.tables.iter().enumerate() {
        if !in_notin(ti) {
            ref_rel[ti] = Some(n);
            n += 1;
        }
    }
    let grouped_in: Vec<usize> = block
        .subqueries
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == SubqueryKind::InGrouped)
        .map(|(i, _)| i)
        .collect();
    if n + grouped_in.len() > 60 {
        return Err(Error::Unsupported(
            "more than 60 relations in one block".into(),
        ));
    }

    let memo = &pl.db.memo;
    // What the block's result reads, from the front end's reading of the select list,
    // GROUP BY, ORDER BY and HAVING.
    let out_keys: Vec<ColKey> = block
        .outputs
        .iter()
        .filter_map(|c| {
            ref_rel[c.table].map(|r| ColKey {
                rel: r,
                col: c.column.to_ascii_lowercase().into(),
            })
        })
        .collect();

    // Single-table conditions: block filters on one table, and the OR factoring of
    // filters PostgreSQL canonicalises (§6.1; Q19's join clause in every arm).
    let mut extra_preds: Vec<Vec<Predicate>> = vec![Vec::new(); block.tables.len()];
    let mut parsed: Vec<Option<std::sync::Arc<super::memo::Factored>>> =
        vec![None; block.filters.len()];
    let factored = |text: &str| {
        memo.factored.get(text, |t| {
            let e = sqlexpr::parse_condition(t);
            (matches!(e, Expr::Or(_)), factor_or(e))
        })
    };
    for (fi, f) in block.filters.iter().enumerate() {
        let fac = if f.sql.contains("...") && matches!(f.kind, FilterKind::Or(_)) {
            match &*memo.outer_where(sql) {
                Some(w) => factored(w),
                None => continue,
            }
        } else {
            factored(&f.sql)
        };
        if matches!(f.kind, FilterKind::Or(_)) && !fac.0 {
            continue;
        }
        parsed[fi] = Some(fac);
    }

    let mut pushed: Vec<usize> = Vec::new();
    let mut rels: Vec<BaseRel<'a>> = Vec::with_capacity(n + grouped_in.len());
    let mut total_pages = 0.0;
    for (ti, t) in block.tables.iter().enumerate() {
        if ref_rel[ti].is_none() {
            continue;
        }
        match &t.source {
            Source::Base => {
                let tidx = pl.table_index(&t.table)?;
                total_pages += pl.db.infos[tidx].pages;
                rels.push(BaseRel {
                    alias: t.alias.clone(),
                    kind: RelKind::Table {
                        tidx,
                        rel: Box::new(pl.empty_rel(tidx)?),
                        query: Query {
                            table: t.table.to_string(),
                            select: Vec::new(),
                            predicates: Vec::new(),
                            order_by: Vec::new(),
                            limit: None,
                        },
                    },
                    rows: 0.0,
                    tuples: pl.db.infos[tidx].tuples,
                    width: 0.0,
                    filter_ops: QualOps::default(),
                    filter_sel: 1.0,
                    true_sel: 1.0,
                    true_rows: 0.0,
                    extra: Qual::default(),
                    filter_text: Vec::new(),
                    filters: Vec::new(),
                    paths: Vec::new(),
                    uses: t.uses.clone(),
                    handed_up: Vec::new(),
                });
            }
            Source::Derived {
                block: sub,
                columns,
            } => {
                // Conditions on the view's aggregate outputs move into its HAVING
                // (qual pushdown into a grouped sub-select, allpaths.c).
                let mut having_op = None;
                let mut having_true_sel = None;
                let mut pushed_cond = None;
                for (fi, f) in block.filters.iter().enumerate() {
                    if f.tables != [ti] {
                        continue;
                    }
                    if let Expr::Cmp { col, op, .. } = &*memo.condition(&f.sql) {
                        if columns.iter().skip(1).any(|c| c.eq_ignore_ascii_case(col)) {
                            having_op = Some(*op);
                            having_true_sel = Some(f.true_selectivity);
                            pushed.push(fi);
                            let k = columns.iter().position(|c| c.eq_ignore_ascii_case(col));
                            pushed_cond = k.map(|k| (k, f.sql.clone(), col.clone()));
                        }
                    }
                }
                let text = sub_text(pl, sub);
                // The condition as the view's HAVING shows it: the output column replaced
                // by the view's expression for it; its sub-select is the outer block's
                // first InitPlan, `$0` in PG15.
                let having_text = pushed_cond.and_then(|(k, fsql, col)| {
                    let item = sqlexpr::select_items(&text).get(k)?.clone();
                    let expr = match item.to_ascii_uppercase().rfind(" AS ") {
                        Some(a) => item[..a].trim().to_string(),
                        None => item.trim().to_string(),
                    };
                    let at = fsql.to_ascii_lowercase().find(&col.to_ascii_lowercase())?;
                    let cond = format!("{}({expr}){}", &fsql[..at], &fsql[at + col.len()..]);
                    Some((cond, "$0".to_string()))
                });
                let sp = pl.plan_block(
                    sub,
                    &text,
                    &BlockOpts {
                        having_op,
                        having_text,
                        having_true_sel,
                        ..BlockOpts::default()
                    },
                )?;
                let mut cols: Vec<String> = Vec::new();
                // The view's output columns name its GROUP BY key first.
                for (i, c) in columns.iter().enumerate() {
                    cols.push(c.to_string());
                    if i == 0 {
                        if let Some(g) = sub.group_by.first() {
                            cols.push(g.column.to_string());
                        }
                    }
                }
                let unique = if sub.group_by.len() == 1 {
                    columns.iter().take(1).map(|c| c.to_string()).collect()
                } else {
                    Vec::new()
                };
                rels.push(sub_rel(
                    t.alias.clone(),
                    sp,
                    cols,
                    unique,
                    t.uses.clone(),
                    false,
                ));
            }
        }
    }
    // Grouped IN sub-selects (Q18): PostgreSQL makes them a semijoin whose RHS is unique
    // on the IN column, then reduces it to an inner join (reduce_unique_semijoins).
    let mut extra_edges: Vec<(ColKey, ColKey)> = Vec::new();
    let mut consumed_filters: Vec<usize> = Vec::new();
    for &si in &grouped_in {
        let s = &block.subqueries[si];
        let fsql = s.filter.map_or("", |f| block.filters[f].sql.as_str());
        let having = fsql.to_ascii_uppercase().contains("HAVING");
        let text = sub_text(pl, &s.block);
        let sp = pl.plan_block(
            &s.block,
            &text,
            &BlockOpts {
                having,
                ..BlockOpts::default()
            },
        )?;
        let key = s.block.group_by.first().map_or("", |g| g.column.as_str());
        let ri = rels.len();
        // EXPLAIN names the sub-select's columns after its table, `lineitem_1` where the
        // outer query reads the table too (Q18's `orders.o_orderkey = lineitem_1.l_orderkey`).
        let alias = match s.block.tables.first() {
            Some(st) if block.tables.iter().any(|t| t.table == st.table) => {
                Name::from(format!("{}_1", st.table))
            }
            Some(st) => st.table.clone(),
            None => Name::from_static("ANY_subquery"),
        };
        rels.push(sub_rel(
            alias,
            sp,
            vec![key.to_string()],
            vec![key.to_string()],
            vec![],
            true,
        ));
        // The IN column of the outer block: the filter's first column.
        if let Some(f) = s.filter {
            consumed_filters.push(f);
            let ft = &block.filters[f];
            let first = memo
                .identifiers(&ft.sql)
                .first()
                .cloned()
                .unwrap_or_default();
            if let Some(&t) = ft.tables.first() {
                if let Some(r) = ref_rel[t] {
                    extra_edges.push((
                        ColKey {
                            rel: r,
                            col: first.into(),
                        },
                        ColKey {
                            rel: ri,
                            col: key.into(),
                        },
                    ));
                }
            }
        }
    }

    let mut b = Block {
        rels,
        ecs: Vec::new(),
        ec_of: FxHashMap::default(),
        edges: Vec::new(),
        specials: Vec::new(),
        jfilters: Vec::new(),
        initplan_cost: 0.0,
        initplans: Vec::new(),
        having: opts.having,
        having_op: opts.having_op,
        having_true_sel: opts.having_true_sel,
        having_text: opts.having_text.clone(),
        initplan_names: Vec::new(),
        order_by_index_expression: false,
        knn_point: None,
        out_keys,
        group: Vec::new(),
        order: Vec::new(),
        consider_startup: block.limit.is_some(),
        col_needs: Vec::new(),
        ec_buckets: Vec::new(),
    };

    // Equivalence classes (union of join edges); edges to NOT IN tables are SubPlan tests.
    let mut edges: Vec<(ColKey, ColKey)> = Vec::new();
    let mut notin_edges: Vec<(usize, ColRef, ColRef)> = Vec::new();
    for e in &block.joins {
        match (ref_rel[e.a.table], ref_rel[e.b.table]) {
            (Some(ra), Some(rb)) => edges.push((
                ColKey {
                    rel: ra,
                    col: e.a.column.as_str().into(),
                },
                ColKey {
                    rel: rb,
                    col: e.b.column.as_str().into(),
                },
            )),
            (Some(_), None) => notin_edges.push((
                block.tables[e.b.table].nest.unwrap_or(0),
                e.a.clone(),
                e.b.clone(),
            )),
            (None, Some(_)) => notin_edges.push((
                block.tables[e.a.table].nest.unwrap_or(0),
                e.b.clone(),
                e.a.clone(),
            )),
            (None, None) => {}
        }
    }
    edges.extend(extra_edges);
    propagate_constants(block, &ref_rel, &mut edges, &mut extra_preds);
    for (a, c) in &edges {
        let ea = b.ec_of.get(a).copied();
        let ec = b.ec_of.get(c).copied();
        match (ea, ec) {
            (None, None) => {
                let id = b.ecs.len();
                b.ecs.push(vec![a.clone(), c.clone()]);
                b.ec_of.insert(a.clone(), id);
                b.ec_of.insert(c.clone(), id);
            }
            (Some(x), None) => {
                b.ecs[x].push(c.clone());
                b.ec_of.insert(c.clone(), x);
            }
            (None, Some(y)) => {
                b.ecs[y].push(a.clone());
                b.ec_of.insert(a.clone(), y);
            }
            (Some(x), Some(y)) if x != y => {
                let moved = std::mem::take(&mut b.ecs[y]);
                for m in moved {
                    b.ec_of.insert(m.clone(), x);
                    b.ecs[x].push(m);
                }
            }
            _ => {}
        }
    }
    b.edges = edges;

    // Special joins.
    for (ni, nest) in block.nests.iter().enumerate() {
        if notin.contains(&ni) {
            continue;
        }
        let rhs: u64 = nest
            .tables
            .iter()
            .filter_map(|&t| ref_rel[t])
            .fold(0, |a, r| a | bit(r));
        let mut lhs = 0u64;
        for e in &block.joins {
            for (x, y) in [(&e.a, &e.b), (&e.b, &e.a)] {
                if let (Some(rx), Some(ry)) = (ref_rel[x.table], ref_rel[y.table]) {
                    if rhs & bit(rx) != 0 && rhs & bit(ry) == 0 {
                        lhs |= bit(ry);
                    }
                }
            }
        }
        for f in &block.filters {
            let fr: u64 = f
                .tables
                .iter()
                .filter_map(|&t| ref_rel[t])
                .fold(0, |a, r| a | bit(r));
            if fr & rhs != 0 {
                lhs |= fr & !rhs;
            }
        }
        if nest.kind == NestKind::Semi && semi_rhs_is_unique(pl, block, nest) {
            // reduce_unique_semijoins: the RHS returns each outer row's match at most once,
            // so the semi join is an inner join.
            continue;
        }
        let kind = match nest.kind {
            NestKind::Semi => JKind::Semi,
            NestKind::Anti => JKind::Anti,
        };
        b.specials.push(Special {
            kind,
            lhs,
            rhs,
            true_match: nest.true_match,
        });
    }
    for (ti, t) in block.tables.iter().enumerate() {
        if !t.outer_join_after.is_empty() {
            if let Some(r) = ref_rel[ti] {
                let lhs = t
                    .outer_join_after
                    .iter()
                    .filter_map(|&x| ref_rel[x])
                    .fold(0, |a, x| a | bit(x));
                b.specials.push(Special {
                    kind: JKind::Left,
                    lhs,
                    rhs: bit(r),
                    true_match: f64::NAN,
                });
            }
        }
    }

    // Filters and sub-selects.
    let cop = pl.jc.cop();
    let all: u64 = (0..b.rels.len()).fold(0, |a, r| a | bit(r));
    for (fi, f) in block.filters.iter().enumerate() {
        if consumed_filters.contains(&fi) {
            continue;
        }
        let sub = block.subqueries.iter().find(|s| s.filter == Some(fi));
        // A SubPlan's cost per evaluation (§6.2) or an InitPlan's once.
        let mut per_call = 0.0;
        // What the sub-select shows as in the condition: `$0`, `(SubPlan 1)`.
        let mut sub_ref: Option<String> = None;
        if let Some(s) = sub {
            if s.kind == SubqueryKind::Scalar {
                let corr: Vec<ColRef> = s.correlation.iter().map(|(c, _)| c.clone()).collect();
                let text = sub_text(pl, &s.block);
                let sp = pl.plan_block(
                    &s.block,
                    &text,
                    &BlockOpts {
                        correlated: corr.clone(),
                        ..BlockOpts::default()
                    },
                )?;
                let fr: u64 = f
                    .tables
                    .iter()
                    .filter_map(|&t| ref_rel[t])
                    .fold(0, |a, r| a | bit(r));
                let n = b.initplans.len() + 1;
                if corr.is_empty() {
                    b.initplan_cost += sp.total;
                    b.initplans.push((sp.node.clone(), "InitPlan", 0, 1.0));
                    b.initplan_names.push(format!("InitPlan {n} (returns $0)"));
                    sub_ref = Some("$0".to_string());
                } else {
                    per_call = sp.total;
                    // The correlated columns compare with the outer row's values, which
                    // EXPLAIN shows as the outer column (ruleutils finds a Param's
                    // referent); the single-table model had a placeholder constant.
                    let outer: Vec<(String, String)> = s
                        .correlation
                        .iter()
                        .filter_map(|(inner, outer)| {
                            let r = ref_rel[outer.table]?;
                            Some((
                                format!("({} = {PARAM_PLACEHOLDER})", inner.column),
                                format!(
                                    "({} = {}.{})",
                                    inner.column, b.rels[r].alias, outer.column
                                ),
                            ))
                        })
                        .collect();
                    let node = Node::map_details(&sp.node, &|d: &str| {
                        outer
                            .iter()
                            .fold(d.to_string(), |d, (from, to)| d.replace(from.as_str(), to))
                    });
                    b.initplans.push((node, "SubPlan", fr, 1.0));
                    b.initplan_names.push(format!("SubPlan {n}"));
                    sub_ref = Some(format!("(SubPlan {n})"));
                }
            }
        }
        // The condition as EXPLAIN shows it: at a scan its columns bare, at a join
        // qualified; the query's text as written where the reader cannot follow.
        let shown = |b: &Block, e: &Expr, prefix: bool| {
            let resolve = |n: &str| b.column_display(pl, n, prefix);
            match &sub_ref {
                Some(r) => deparse::expr_text(&f.sql, &resolve, r),
                None => deparse::cond_text(e, &resolve).or_else(|| {
                    deparse::expr_text(&sqlexpr::written_out(&f.sql, pl.sql), &resolve, "")
                }),
            }
            .unwrap_or_else(|| f.sql.to_string())
        };
        let fr: u64 = f
            .tables
            .iter()
            .filter_map(|&t| ref_rel[t])
            .fold(0, |a, r| a | bit(r));
        if fr == 0 || pushed.contains(&fi) {
            continue;
        }
        let other = [Expr::Other];
        let exprs: &[Expr] = match &parsed[fi] {
            Some(p) => &p.1,
            None => &other,
        };
        // The filter's true selectivity covers it whole: it applies where the filter
        // is one condition; a filter split into several keeps the estimates.
        let exact = exprs.len() == 1;
        for e in exprs {
            // Sargable single-table conditions pulled out of an OR go to the scan's
            // restriction clauses.
            let er = b.expr_rels(e, fr, block, &ref_rel);
            if er.count_ones() == 1 && sub.is_none() {
                if let Some(p) = as_predicate(e, &b, fr, block, &ref_rel) {
                    let ti = block
                        .tables
                        .iter()
                        .enumerate()
                        .find(|(ti, _)| ref_rel[*ti] == Some(er.trailing_zeros() as usize));
                    if let Some((ti, _)) = ti {
                        extra_preds[ti].push(p);
                        continue;
                    }
                }
            }
            // An expression an expression index holds, compared with constants: a
            // restriction clause on the index's key, estimated from its statistics.
            if exact && sub.is_none() && fr.count_ones() == 1 {
                let r = fr.trailing_zeros() as usize;
                if let RelKind::Table { tidx, .. } = b.rels[r].kind {
                    if let Some(p) = expression_predicate(pl, tidx, &f.sql) {
                        if let Some(ti) = (0..block.tables.len()).find(|&t| ref_rel[t] == Some(r)) {
                            extra_preds[ti].push(p);
                            continue;
                        }
                    }
                }
            }
            if matches!(
                e,
                Expr::Cmp {
                    op: Op::Eq,
                    rhs: Operand::Col(_),
                    ..
                }
            ) && er.count_ones() == 2
            {
                // A join equality repeated inside the condition: already an edge.
                continue;
            }
            let (sel, sel_semi, ops) = match (e, &f.kind) {
                (Expr::Other, FilterKind::Function) => {
                    // An abbreviated list is written out in the query's full text.
                    let mut lits = f.sql.matches('\'').count() / 2;
                    if lits == 0 {
                        if let Some(pre) = f
                            .sql
                            .split("(...)")
                            .next()
                            .filter(|_| f.sql.contains("(...)"))
                        {
                            lits = sqlexpr::in_list_after(pl.sql, &format!("{pre}(")).unwrap_or(0);
                        }
                    }
                    let nlit = lits.max(1) as f64;
                    // An expression compared without statistics (no expression index): the
                    // selectivity functions' defaults (eqsel through get_variable_numdistinct's
                    // DEFAULT_NUM_DISTINCT, scalarineqsel's DEFAULT_INEQ_SEL, patternsel's
                    // DEFAULT_MATCH_SEL) and one operator call; an IN list n/2 calls.
                    let top = sqlexpr::top_level_op(&f.sql);
                    let (sel, cmp_ops) = match top.as_deref() {
                        Some("<" | ">" | "<=" | ">=") => (1.0 / 3.0, 1.0),
                        Some("<>" | "!=") => (1.0 - 0.005, 1.0),
                        Some("NOT LIKE" | "NOT ILIKE") => (1.0 - 0.005, 1.0),
                        Some("=" | "LIKE" | "ILIKE") => (0.005, 1.0),
                        _ => ((nlit * 0.005).min(1.0), nlit * 0.5),
                    };
                    // The function, and a bpchar-to-text cast when it reads a CHAR column.
                    let cast = memo.identifiers(&f.sql).iter().any(|id| {
                        f.tables.iter().any(|&t| {
                            pl.table_index(&block.tables[t].table).is_ok_and(|ti| {
                                pl.db.tables[ti].columns.iter().any(|c| {
                                    c.name.eq_ignore_ascii_case(id)
                                        && matches!(c.ty, ColumnType::Char(_))
                                })
                            })
                        })
                    });
                    (
                        sel,
                        sel,
                        QualOps {
                            startup: 0.0,
                            per_tuple: 1.0 + if cast { 1.0 } else { 0.0 } + cmp_ops,
                        },
                    )
                }
                (Expr::Other, k) => {
                    let s = kind_default(k);
                    (
                        s,
                        s,
                        QualOps {
                            startup: 0.0,
                            per_tuple: 1.0,
                        },
                    )
                }
                _ => {
                    let (s, ss) = b.expr_sel(e, fr, block, &ref_rel);
                    (s, ss, expr_ops(e))
                }
            };
            // The schema's own functions cost their procost per call (cost_qual_eval).
            let ops = QualOps {
                per_tuple: ops.per_tuple + pl.db.extra_call_ops(&f.sql),
                ..ops
            };
            let rels_of = if er == 0 || sub.is_some() { fr } else { er };
            let (scan_text, join_text) = if rels_of.count_ones() == 1 {
                (shown(&b, e, false), String::new())
            } else {
                (String::new(), shown(&b, e, true))
            };
            let qual = Qual {
                startup: ops.startup * cop,
                per_tuple: ops.per_tuple * cop + per_call,
            };
            if rels_of.count_ones() == 1 {
                let r = rels_of.trailing_zeros() as usize;
                let br = &mut b.rels[r];
                if per_call > 0.0 {
                    br.extra.per_tuple += per_call;
                    br.filter_ops = br.filter_ops.add(ops);
                } else {
                    br.filter_ops = br.filter_ops.add(ops);
                }
                br.filter_text.push(scan_text.clone());
                // Selectivity: kept with the relation's rows below.
                br.filter_sel *= sel;
                br.true_sel *= if exact { f.true_selectivity } else { sel };
                let mut cols: Vec<String> = Vec::new();
                for id in memo.identifiers(&f.sql).iter() {
                    if br.uses.iter().any(|u| u.eq_ignore_ascii_case(id)) && !cols.contains(id) {
                        cols.push(id.clone());
                    }
                }
                br.filters.push(SingleFilter {
                    calls: pl.db.calls(&f.sql),
                    text: scan_text,
                    expr: e.clone(),
                    ops,
                    sel,
                    cols,
                });
            } else {
                let mut cols = Vec::new();
                b.expr_cols(e, fr, block, &ref_rel, &mut cols);
                // OR arms restricted to one relation each are also applied at that
                // relation's scan; the join clause's selectivity is divided by them
                // (extract_restriction_or_clauses, orclauses.c).
                let mut sel = sel;
                // The selectivity the per-relation OR restrictions took out of the
                // condition's true one.
                let mut restricted = 1.0;
                if let Expr::Or(arms) = &e {
                    for r in 0..b.rels.len() {
                        if rels_of & bit(r) == 0 || all & bit(r) == 0 {
                            continue;
                        }
                        let mut sub_arms = Vec::new();
                        for a in arms {
                            let conj: Vec<Expr> = match a {
                                Expr::And(v) => v.clone(),
                                x => vec![x.clone()],
                            };
                            let mine: Vec<Expr> = conj
                                .into_iter()
                                .filter(|c| b.expr_rels(c, fr, block, &ref_rel) == bit(r))
                                .collect();
                            if mine.is_empty() {
                                sub_arms.clear();
                                break;
                            }
                            sub_arms.push(if mine.len() == 1 {
                                mine.into_iter().next().unwrap_or(Expr::Other)
                            } else {
                                Expr::And(mine)
                            });
                        }
                        if sub_arms.is_empty() {
                            continue;
                        }
                        let or = Expr::Or(sub_arms);
                        let (os, _) = b.expr_sel(&or, fr, block, &ref_rel);
                        let oops = expr_ops(&or);
                        let text = deparse::cond_text(&or, &|n| b.column_display(pl, n, false))
                            .unwrap_or_else(|| format!("OR restriction from {}", f.sql));
                        let br = &mut b.rels[r];
                        br.filter_ops = br.filter_ops.add(oops);
                        br.filter_text.push(text);
                        br.filter_sel *= os;
                        br.true_sel *= os;
                        restricted *= os;
                        if rels_of.count_ones() == 2 && os > 0.0 && os < 1.0 {
                            sel = (sel / os).min(1.0);
                        }
                    }
                }
                let hash_col = match (&e, sub) {
                    (
                        Expr::Cmp {
                            col,
                            op: Op::Eq,
                            rhs: Operand::Other,
                        },
                        Some(_),
                    ) => b.resolve(col, fr, block, &ref_rel),
                    _ => None,
                };
                let true_sel = if exact && restricted > 0.0 {
                    (f.true_selectivity / restricted).min(1.0)
                } else {
                    sel
                };
                b.jfilters.push(JFilter {
                    rels: rels_of,
                    sel,
                    sel_semi,
                    true_sel,
                    qual,
                    text: join_text,
                    cols,
                    hash_col,
                    calls: pl.db.calls(&f.sql),
                });
            }
        }
    }
    // NOT IN nests: a hashed SubPlan tested on the outer column (§6.2): startup pays the
    // sub-select and its hash table, each row one comparison; selectivity 0.5 (a SubPlan
    // clause has no estimator).
    for &ni in &notin {
        let nest = &block.nests[ni];
        let sub = nest_block(block, &nest.tables);
        let sp = pl.plan_block(&sub, "", &BlockOpts::default())?;
        for (nn, outer, _) in &notin_edges {
            if *nn != ni {
                continue;
            }
            if let Some(r) = ref_rel[outer.table] {
                let br = &mut b.rels[r];
                br.extra.startup += sp.total + cop * sp.rows;
                br.filter_ops = br.filter_ops.add(QualOps {
                    startup: 0.0,
                    per_tuple: 1.0,
                });
                br.filter_text
                    .push(format!("(NOT (hashed SubPlan {}))", b.initplans.len() + 1));
                br.filter_sel *= 0.5;
                br.true_sel *= 1.0 - nest.true_match;
            }
        }
        let n = b.initplans.len() + 1;
        b.initplans.push((sp.node.clone(), "SubPlan", 0, 1.0));
        b.initplan_names.push(format!("SubPlan {n}"));
    }
    // Uncorrelated scalar sub-selects without a filter compare in HAVING (Q11).
    for s in &block.subqueries {
        if s.kind == SubqueryKind::Scalar && s.filter.is_none() {
            let text = sub_text(pl, &s.block);
            let sp = pl.plan_block(&s.block, &text, &BlockOpts::default())?;
            b.initplan_cost += sp.total;
            // PG15 numbers this InitPlan's output $1, not $0 (the server's EXPLAIN of
            // Q11: `InitPlan 1 (returns $1)`, `Filter: (sum(...) > $1)`); the
            // PARAM_EXEC numbering is copied from it, not modelled.
            let n = b.initplans.len() + 1;
            b.initplans.push((sp.node.clone(), "InitPlan", 0, 1.0));
            b.initplan_names.push(format!("InitPlan {n} (returns $1)"));
            if let Some(h) = sqlexpr::having_clause(sql) {
                b.having_text = Some((h, "$1".to_string()));
            }
            b.having = true;
        }
    }

    // Base relation sizes and paths.
    for (ti, t) in block.tables.iter().enumerate() {
        let Some(r) = ref_rel[ti] else { continue };
        let mut preds = t.preds.clone();
        preds.extend(extra_preds[ti].iter().cloned());
        for c in &opts.correlated {
            if c.table == ti {
                // `col = $param`: for want of a Param clause in the single-table model, a
                // constant outside the MCV list (the same 1/nd without MCVs).
                preds.push(Predicate::Cmp {
                    column: c.column.to_string(),
                    op: CmpOp::Eq,
                    value: Value::Num(PARAM_PLACEHOLDER),
                });
            }
        }
        if let RelKind::Table { tidx, .. } = b.rels[r].kind {
            let filter_sel = b.rels[r].filter_sel;
            if pl.db.handed_up() {
                b.rels[r].handed_up = handed_up_columns(pl, tidx, sql);
            }
            let q = Query {
                table: t.table.to_string(),
                select: t.uses.iter().map(|s| s.to_string()).collect(),
                predicates: preds,
                order_by: Vec::new(),
                limit: None,
            };
            let mut rel = pl.rel_for(tidx, &q)?;
            rel.total_table_pages = total_pages;
            let sargable_rows = rel.rows;
            rel.rows = clamp_row_est(rel.rows * filter_sel);
            rel.restrict_ops = rel.restrict_ops.add(b.rels[r].filter_ops);
            let br = &mut b.rels[r];
            br.rows = rel.rows;
            br.true_rows = sargable_rows * br.true_sel;
            br.kind = RelKind::Table {
                tidx,
                rel: Box::new(rel),
                query: q,
            };
        } else {
            let br = &mut b.rels[r];
            br.rows = clamp_row_est(br.tuples * br.filter_sel);
            br.true_rows *= br.true_sel;
        }
    }

    // Grouping and ordering columns.
    let key = |c: &ColRef| {
        ref_rel[c.table].map(|r| ColKey {
            rel: r,
            col: c.column.as_str().into(),
        })
    };
    b.group = block.group_by.iter().filter_map(key).collect();
    b.order = block.order_by.iter().filter_map(key).collect();
    if let Some(k) = order_by_index_expression(pl, &b, block, sql) {
        b.order = vec![k];
        b.order_by_index_expression = true;
        if let [item] = pl.db.memo.order_items(sql).as_slice() {
            b.knn_point = sqlexpr::distance_point(item).map(|(x, y)| {
                format!(
                    "'({},{})'::point",
                    sqlexpr::float8_text(x),
                    sqlexpr::float8_text(y)
                )
            });
        }
    }

    // SubPlan calls: the rows of its relations joined, before its own condition.
    for k in 0..b.initplans.len() {
        let rels = b.initplans[k].2;
        if rels == 0 {
            continue;
        }
        let mut n = 1.0;
        for r in 0..b.rels.len() {
            if rels & bit(r) != 0 {
                n *= b.rels[r].rows;
            }
        }
        for ec in &b.ecs {
            let inside: Vec<&ColKey> = ec.iter().filter(|m| rels & bit(m.rel) != 0).collect();
            if inside.len() >= 2 && inside[0].rel != inside[1].rel {
                n *= b.eqjoinsel_inner(inside[0], inside[1]);
            }
        }
        if rels.count_ones() == 1 {
            // A restriction's rows already passed it; the calls came before.
            let r = rels.trailing_zeros() as usize;
            let sel = b.rels[r].filter_sel;
            if sel > 0.0 {
                n /= sel;
            }
        }
        b.initplans[k].3 = clamp_row_est(n);
    }

    // Widths, then access paths.
    b.col_needs = b.col_needs();
    b.ec_buckets = b
        .ecs
        .iter()
        .map(|ec| ec.iter().map(|m| b.bucket_input(m)).collect())
        .collect();
    for r in 0..b.rels.len() {
        b.rels[r].width = b.width_above(bit(r), r);
    }
    for r in 0..b.rels.len() {
        let needed = b.needed_cols(r, &[], &[]);
        if let RelKind::Table { rel, .. } = &mut b.rels[r].kind {
            let pos: Vec<usize> = needed
                .iter()
                .filter_map(|n| rel.cols.iter().position(|c| c.name.eq_ignore_ascii_case(n)))
                .collect();
            rel.needed = pos;
        }
    }
    for r in 0..b.rels.len() {
        let paths = pl.base_paths(&b, r)?;
        b.rels[r].paths = paths;
    }
    Ok(b)
}

/// Whether a semi join's right side is one table that a unique index makes distinct for
/// the join (rel_is_distinct_for): every key column equated to a column outside the nest or
/// to a constant.
fn semi_rhs_is_unique(pl: &Planner, block: &QueryBlock, nest: &costlab_model::block::Nest) -> bool {
    let [t] = nest.tables.as_slice() else {
        return false;
    };
    let tr = &block.tables[*t];
    if tr.source != Source::Base {
        return false;
    }
    let Ok(tidx) = pl.table_index(&tr.table) else {
        return false;
    };
    let mut bound: Vec<String> = Vec::new();
    for e in &block.joins {
        for (x, y) in [(&e.a, &e.b), (&e.b, &e.a)] {
            if x.table == *t && block.tables[y.table].nest != tr.nest {
                bound.push(x.column.to_ascii_lowercase());
            }
        }
    }
    for p in &tr.preds {
        if let Predicate::Cmp {
            column,
            op: CmpOp::Eq,
            ..
        } = p
        {
            bound.push(column.to_ascii_lowercase());
        }
    }
    pl.db.tables[tidx].indexes.iter().any(|ix| {
        ix.unique
            && !ix.columns.is_empty()
            && ix
                .columns
                .iter()
                .all(|c| bound.contains(&c.to_ascii_lowercase()))
    })
}

/// An equivalence class with a constant (generate_base_implied_equalities_const): where a
/// join edge's column equals a constant (`c.cust_id = 99 AND o.cust_id = c.cust_id`), every
/// other member gets the restriction `= constant` (`o.cust_id = 99`) and the class makes
/// no join clause, its edges dropped. Only between plain tables of the block: not into a
/// semi or anti join's tables or a LEFT JOIN's nullable side.
fn propagate_constants(
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
    edges: &mut Vec<(ColKey, ColKey)>,
    extra_preds: &mut [Vec<Predicate>],
) {
    let table_of = |rel: usize| ref_rel.iter().position(|r| *r == Some(rel));
    let plain = |rel: usize| {
        table_of(rel).is_some_and(|t| {
            let tr = &block.tables[t];
            tr.nest.is_none() && tr.outer_join_after.is_empty() && tr.source == Source::Base
        })
    };
    let constant = |rel: usize, col: &str, extra: &[Vec<Predicate>]| -> Option<Value> {
        let t = table_of(rel)?;
        block.tables[t]
            .preds
            .iter()
            .chain(&extra[t])
            .find_map(|p| match p {
                Predicate::Cmp {
                    column,
                    op: CmpOp::Eq,
                    value,
                } if column.eq_ignore_ascii_case(col) => Some(value.clone()),
                _ => None,
            })
    };
    loop {
        let mut changed = false;
        for (a, c) in edges.iter() {
            if !plain(a.rel) || !plain(c.rel) {
                continue;
            }
            let (va, vc) = (
                constant(a.rel, &a.col, extra_preds),
                constant(c.rel, &c.col, extra_preds),
            );
            let (to, v) = match (va, vc) {
                (Some(v), None) => (c, v),
                (None, Some(v)) => (a, v),
                _ => continue,
            };
            if let Some(t) = table_of(to.rel) {
                extra_preds[t].push(Predicate::Cmp {
                    column: to.col.to_string(),
                    op: CmpOp::Eq,
                    value: v,
                });
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    edges.retain(|(a, c)| {
        !(plain(a.rel)
            && plain(c.rel)
            && constant(a.rel, &a.col, extra_preds).is_some()
            && constant(c.rel, &c.col, extra_preds).is_some())
    });
}

fn kind_default(k: &FilterKind) -> f64 {
    match k {
        FilterKind::Eq => 0.005,
        FilterKind::Ne => 0.995,
        FilterKind::Ineq => 1.0 / 3.0,
        FilterKind::Between => 0.005,
        FilterKind::Like => 0.005,
        FilterKind::NotLike => 0.995,
        FilterKind::InList(n) => (*n as f64 * 0.005).min(1.0),
        FilterKind::Function => 0.005,
        FilterKind::InSubquery => 0.5,
        // DEFAULT_UNK_SEL, as nulltestsel without statistics.
        FilterKind::IsNull => 0.005,
        FilterKind::Not(k) => 1.0 - kind_default(k),
        FilterKind::And(v) => v.iter().map(kind_default).product(),
        FilterKind::Or(v) => v.iter().map(kind_default).fold(0.0, |a, s| a + s - a * s),
    }
}

/// The key of an expression index that a block without grouping is ordered by, when its
/// ORDER BY is that one expression (spelled out: an ordinal or an alias is not matched);
/// or, for `ORDER BY key <-> point '(x,y)'`, the key of a GiST index on `key` (a column
/// or an expression), which returns rows by distance. A point has no ordering of its own
/// (no btree), so a pathkey on it can only mean the distance.
fn order_by_index_expression(
    pl: &Planner,
    b: &Block,
    block: &QueryBlock,
    sql: &str,
) -> Option<ColKey> {
    if !block.order_by_expression
        || !block.group_by.is_empty()
        || block.group_by_expression
        || block.scalar_aggregate
    {
        return None;
    }
    let tables: Vec<(usize, usize)> = b
        .rels
        .iter()
        .enumerate()
        .filter_map(|(r, br)| match br.kind {
            RelKind::Table { tidx, .. }
                if pl.db.infos[tidx]
                    .cols
                    .iter()
                    .any(|c| c.expression.is_some())
                    || pl.db.infos[tidx]
                        .indexes
                        .iter()
                        .any(|ix| ix.method == IndexMethod::Gist) =>
            {
                Some((r, tidx))
            }
            _ => None,
        })
        .collect();
    if tables.is_empty() {
        return None;
    }
    let items = pl.db.memo.order_items(sql);
    let [item] = items.as_slice() else {
        return None;
    };
    let knn = sqlexpr::distance_operand(item);
    // A GiST scan returns the nearest first, never the farthest.
    if knn.is_some()
        && sqlexpr::outer_items(sql, "ORDER BY").is_some_and(|v| v.iter().any(|(_, desc)| *desc))
    {
        return None;
    }
    let text = knn
        .clone()
        .unwrap_or_else(|| sqlexpr::canonical_expression(item));
    tables.iter().find_map(|&(r, tidx)| {
        let info = &pl.db.infos[tidx];
        let pos = info.cols.iter().position(|c| {
            let eligible = if knn.is_some() {
                c.ty == ColumnType::Point
            } else {
                c.expression.is_some()
            };
            eligible && sqlexpr::canonical_expression(&c.name) == text
        })?;
        if knn.is_some()
            && !info
                .indexes
                .iter()
                .any(|ix| ix.method == IndexMethod::Gist && ix.keys.first() == Some(&pos))
        {
            return None;
        }
        Some(ColKey {
            rel: r,
            col: info.cols[pos].name.to_ascii_lowercase().into(),
        })
    })
}

/// The patched build's check_index_only (the series' 0004/0005): an index-only scan may
/// return an indexed expression's value, so a heap column the block reads only inside
/// such expressions need not be in the index. Returns (heap column, expression key) for
/// table `tidx`: each column that appears in `sql` only within the text of one of the
/// table's indexed expressions. Stock PostgreSQL needs the heap column itself
/// (`IndexExpression::reads`).
fn handed_up_columns(pl: &Planner, tidx: usize, sql: &str) -> Vec<(String, String)> {
    let info = &pl.db.infos[tidx];
    if info.cols.iter().all(|c| c.expression.is_none()) {
        return Vec::new();
    }
    let canon = sqlexpr::canonical_expression(sql);
    let mut rest = format!(" {canon} ");
    let mut found = Vec::new();
    for c in info.cols.iter().filter(|c| c.expression.is_some()) {
        let text = format!(" {} ", sqlexpr::canonical_expression(&c.name));
        if rest.contains(&text) {
            rest = rest.replace(&text, " ");
            found.push(c);
        }
    }
    let mut out = Vec::new();
    for c in found {
        for &h in c.expression.as_ref().map_or(&[][..], |e| &e.reads[..]) {
            let heap = info.cols[h].name.to_ascii_lowercase();
            if !rest.split_whitespace().any(|w| w == heap) {
                out.push((info.cols[h].name.clone(), c.name.clone()));
            }
        }
    }
    out
}

/// `expr op constant` (or IN, BETWEEN) where `expr` is the key of one of table `tidx`'s
/// expression indexes: a predicate on that key (match_index_to_operand).
fn expression_predicate(pl: &Planner, tidx: usize, sql: &str) -> Option<Predicate> {
    let info = &pl.db.infos[tidx];
    if info.cols.iter().all(|c| c.expression.is_none()) {
        return None;
    }
    let (text, test) = sqlexpr::expression_comparison(sql)?;
    let col = info
        .cols
        .iter()
        .filter(|c| c.expression.is_some())
        .find(|c| sqlexpr::canonical_expression(&c.name) == text)?;
    let column = col.name.clone();
    let lit = |l: Lit| match l {
        Lit::Num(x) => Value::Num(x),
        Lit::Text(s) => Value::Text(s),
    };
    Some(match test {
        sqlexpr::ExprTest::Cmp(op, l) => Predicate::Cmp {
            column,
            op: cmp_op(op)?,
            value: lit(l),
        },
        sqlexpr::ExprTest::In(values) => Predicate::In {
            column,
            values: values.into_iter().map(lit).collect(),
        },
        sqlexpr::ExprTest::Between(lo, hi) => Predicate::Between {
            column,
            lo: lit(lo),
            hi: lit(hi),
        },
    })
}

/// A one-table condition the single-table model takes as a restriction clause.
fn as_predicate(
    e: &Expr,
    b: &Block,
    among: u64,
    block: &QueryBlock,
    ref_rel: &[Option<usize>],
) -> Option<Predicate> {
    let lit = |l: &Lit| match l {
        Lit::Num(x) => Value::Num(*x),
        Lit::Text(s) => Value::Text(s.clone()),
    };
    let colname = |c: &str| {
        b.resolve(c, among, block, ref_rel)
            .map(|k| k.col.to_string())
    };
    match e {
        Expr::Cmp {
            col,
            op,
            rhs: Operand::Lit(l),
        } => Some(Predicate::Cmp {
            column: colname(col)?,
            op: cmp_op(*op)?,
            value: lit(l),
        }),
        Expr::In { col, values } => Some(Predicate::In {
            column: colname(col)?,
            values: values.iter().map(lit).collect(),
        }),
        Expr::Between { col, lo, hi } => Some(Predicate::Between {
            column: colname(col)?,
            lo: lit(lo),
            hi: lit(hi),
        }),
        _ => None,
    }
}

/// A sub-select's relation: its path under a Subquery Scan ([SCAN] cost_subqueryscan:
/// one cpu_tuple_cost per row on top).
fn sub_rel<'a>(
    alias: Name,
    sp: JPath,
    cols: Vec<String>,
    unique: Vec<String>,
    uses: Vec<Name>,
    sublink: bool,
) -> BaseRel<'a> {
    let true_rows = sp.node.true_rows().unwrap_or(sp.rows);
    BaseRel {
        alias,
        rows: sp.rows,
        tuples: sp.rows,
        width: sp.width,
        kind: RelKind::Sub {
            path: sp,
            cols,
            unique,
            sublink,
        },
        filter_ops: QualOps::default(),
        filter_sel: 1.0,
        true_sel: 1.0,
        true_rows,
        extra: Qual::default(),
        filter_text: Vec::new(),
        filters: Vec::new(),
        paths: Vec::new(),
        uses,
        handed_up: Vec::new(),
    }
}

/// The block of a NOT IN nest's tables with their own conditions.
fn nest_block(block: &QueryBlock, tables: &[usize]) -> QueryBlock {
    let map = |t: usize| tables.iter().position(|&x| x == t);
    let mut q = QueryBlock::default();
    for &t in tables {
        let mut tr = block.tables[t].clone();
        tr.nest = None;
        tr.outer_join_after.clear();
        q.tables.push(tr);
    }
    for e in &block.joins {
        if let (Some(a), Some(b)) = (map(e.a.table), map(e.b.table)) {
            let mut e2 = e.clone();
            e2.a.table = a;
            e2.b.table = b;
            q.joins.push(e2);
        }
    }
    for f in &block.filters {
        if f.tables.iter().all(|t| map(*t).is_some()) {
            let mut f2 = f.clone();
            f2.tables = f.tables.iter().filter_map(|t| map(*t)).collect();
            q.filters.push(f2);
        }
    }
    q
}

impl<'a> Block<'a> {
    /// Columns of table relation `r` its scan must produce: those needed above it and
    /// those its conditions read, leaving out conditions a partial index implies.
    pub fn needed_cols(
        &self,
        r: usize,
        skip_filters: &[usize],
        skip_clauses: &[usize],
    ) -> Vec<Name> {
        let br = &self.rels[r];
        let RelKind::Table { rel, .. } = &br.kind else {
            return Vec::new();
        };
        let mut out: Vec<Name> = Vec::new();
        for u in &br.uses {
            // Each index's paths ask again: the name is shared where it is lower case.
            let col = if u.bytes().any(|c| c.is_ascii_uppercase()) {
                u.to_ascii_lowercase().into()
            } else {
                u.clone()
            };
            let k = ColKey { rel: r, col };
            let by_clause = rel.clauses.iter().enumerate().any(|(i, cl)| {
                let col = &rel.cols[cl.col];
                // An indexed expression reads its heap columns (stock check_index_only).
                let reads = col.expression.as_ref().is_some_and(|e| {
                    e.reads
                        .iter()
                        .any(|&c| rel.cols[c].name.eq_ignore_ascii_case(u))
                });
                !skip_clauses.contains(&i) && (col.name.eq_ignore_ascii_case(u) || reads)
            });
            let by_filter = br.filters.iter().enumerate().any(|(i, f)| {
                !skip_filters.contains(&i) && f.cols.iter().any(|c| c.eq_ignore_ascii_case(u))
            });
            if self.needed_above(&k, bit(r)) || by_clause || by_filter {
                match br.handed_up.iter().find(|(h, _)| h.eq_ignore_ascii_case(u)) {
                    Some((_, expr)) => {
                        let e: Name = expr.to_ascii_lowercase().into();
                        if !out.contains(&e) {
                            out.push(e);
                        }
                    }
                    None => out.push(k.col),
                }
            }
        }
        out
    }

    /// Width of the columns of relations `relids` needed above a join of them (output
    /// lists, join keys or filters with relations outside).
    pub fn width_above(&self, relids: u64, only: usize) -> f64 {
        let mut w = 0.0;
        for (r, br) in self.rels.iter().enumerate() {
            if relids & bit(r) == 0 || (relids.count_ones() == 1 && r != only) {
                continue;
            }
            let needs = &self.col_needs[r];
            match &br.kind {
                RelKind::Table { .. } => {
                    for c in needs.iter().filter(|c| c.above(relids)) {
                        w += c.width;
                    }
                }
                RelKind::Sub { path, .. } => {
                    // Only the referenced output columns leave a Subquery Scan.
                    let n = needs.iter().filter(|c| c.above(relids)).count() as f64;
                    w += (8.0 * n).min(path.width.max(8.0));
                }
            }
        }
        w
    }

    /// `col_needs`' entries, from the final classes, join filters and outputs.
    fn col_needs(&self) -> Vec<Vec<ColNeed>> {
        let need = |k: ColKey, width: f64| ColNeed {
            out: self.out_keys.contains(&k),
            ec_rels: self
                .ec_of
                .get(&k)
                .map_or(0, |&e| self.ecs[e].iter().fold(0, |a, m| a | bit(m.rel))),
            filter_rels: self
                .jfilters
                .iter()
                .filter(|f| f.cols.contains(&k))
                .map(|f| f.rels)
                .collect(),
            width,
        };
        self.rels
            .iter()
            .enumerate()
            .map(|(r, br)| match &br.kind {
                RelKind::Table { rel, .. } => br
                    .uses
                    .iter()
                    .map(|u| {
                        let width = rel
                            .cols
                            .iter()
                            .find(|c| c.name.eq_ignore_ascii_case(u))
                            .map_or(0.0, |c| c.width);
                        need(
                            ColKey {
                                rel: r,
                                col: u.clone(),
                            },
                            width,
                        )
                    })
                    .collect(),
                RelKind::Sub { cols, .. } => cols
                    .iter()
                    .map(|c| {
                        let k = ColKey {
                            rel: r,
                            col: c.to_ascii_lowercase().into(),
                        };
                        need(k, 0.0)
                    })
                    .collect(),
            })
            .collect()
    }

    fn needed_above(&self, k: &ColKey, relids: u64) -> bool {
        if self.out_keys.contains(k) {
            return true;
        }
        if let Some(&e) = self.ec_of.get(k) {
            if self.ecs[e].iter().any(|m| relids & bit(m.rel) == 0) {
                return true;
            }
        }
        self.jfilters
            .iter()
            .any(|f| f.rels & !relids != 0 && f.cols.contains(k))
    }
}

/// A Subquery Scan path over a planned sub-select.
pub(crate) fn subquery_scan(br: &BaseRel, cop: f64, ctup: f64, elide: bool) -> Option<JPath> {
    let RelKind::Sub { path, .. } = &br.kind else {
        return None;
    };
    let q = br.filter_ops;
    let startup = path.startup + q.startup * cop + br.extra.startup;
    let total = path.total
        + q.startup * cop
        + br.extra.startup
        + (ctup + q.per_tuple * cop + br.extra.per_tuple) * path.rows;
    let work = Work {
        rows_examined: path.rows,
        operator_evals: path.rows * q.per_tuple,
        rows_out: br.rows,
        ..Work::default()
    };
    let mut details = Vec::new();
    for t in &br.filter_text {
        details.push(format!("Filter: {t}"));
    }
    // A scan without conditions over a sub-select of a sublink or of a block of its own
    // is dropped from the plan (setrefs.c trivial_subqueryscan); its cost stays.
    let node = if elide && br.filter_text.is_empty() {
        let (plan, kids) = path.node.root_parts();
        Node::op(plan, kids)
    } else {
        let mut plan = costlab_model::plan::PlanNode::leaf(
            "Subquery Scan",
            Cost::new(startup, total),
            br.rows,
            work,
        );
        plan.relation = Some(br.alias.clone());
        plan.width = br.width;
        plan.details = details;
        Node::op(plan, vec![path.node.clone()])
    };
    Some(JPath {
        startup,
        total,
        rows: br.rows,
        width: br.width,
        pathkeys: PathKeys::new(),
        param: 0,
        rescan: Rescan::Same,
        node,
        param_ecs: smallvec::SmallVec::new(),
        can_mark: false,
        disabled: path.disabled,
        pending: 0,
    })
}

/// Page reads for the index part of a probe: a descent from the root to the first leaf
/// (`levels` pages, random), then the leaves after it in key order (sequential). `leaves`
/// is the cost's index pages per scan, which count the first leaf too: the descent reads
/// it, so the walk adds one fewer (EXPLAIN BUFFERS of a one-row probe on a three-level
/// btree: 3 hits per loop, not 4).
pub(crate) fn index_reads(
    name: &costlab_model::plan::Name,
    pages: f64,
    levels: f64,
    leaves: f64,
) -> Vec<PageReads> {
    let descents = levels;
    let leaf = (leaves - 1.0).max(0.0);
    vec![
        PageReads {
            object: name.clone(),
            object_pages: pages,
            page_bytes: 8192.0,
            pattern: AccessPattern::Random,
            requests: descents,
            distinct: descents.min(pages.max(1.0)),
            span_pages: None,
        },
        PageReads {
            object: name.clone(),
            object_pages: pages,
            page_bytes: 8192.0,
            pattern: AccessPattern::Sequential,
            requests: leaf,
            distinct: leaf.min(pages.max(1.0)),
            span_pages: None,
        },
    ]
}

/// The SQL text of a sub-block, found in the query's text by its FROM list.
fn sub_text(pl: &Planner, sub: &QueryBlock) -> String {
    let tables: Vec<&str> = sub.tables.iter().map(|t| t.table.as_str()).collect();
    // Keyed by the flag, the FROM list and the query's text.
    let key = format!("{}\0{}\0{}", sub.scalar_aggregate, tables.join(","), pl.sql);
    let text = pl.db.memo.subselect.get(&key, |_| {
        sqlexpr::subselect_for(pl.sql, &tables, sub.scalar_aggregate).unwrap_or_default()
    });
    (*text).clone()
}

impl Block<'_> {
    /// The rows the join of `relids` really returns, from the workload's true
    /// selectivities (the MySQL planner's `true_rows` does the same for its plans):
    /// each relation's true rows, one division per equivalence class member but the
    /// one with the fewest distinct values (a foreign key meets its key), the true
    /// selectivities of the conditions between them, and for a semi or anti join whose
    /// inner side is all there, the outer rows with (without) a match.
    pub fn true_rows(&self, relids: u64) -> f64 {
        self.true_rows_as(relids, true)
    }

    /// `true_rows` with the semi, anti and outer joins applied (`specials`) or every
    /// join taken as an inner join: a parameterized scan of a semi join's inner side
    /// fetches all of its matches per outer row.
    pub fn true_rows_as(&self, relids: u64, specials: bool) -> f64 {
        let mut hidden = 0u64;
        let mut factor = 1.0;
        let mut left: Option<u64> = None;
        for sp in self.specials.iter().filter(|_| specials) {
            let done = relids & sp.rhs == sp.rhs && relids & !sp.rhs != 0;
            if !done {
                continue;
            }
            match sp.kind {
                JKind::Semi => {
                    hidden |= sp.rhs;
                    factor *= sp.true_match;
                }
                JKind::Anti => {
                    hidden |= sp.rhs;
                    factor *= 1.0 - sp.true_match;
                }
                JKind::Left => left = Some(left.unwrap_or(0) | sp.rhs),
                JKind::Inner => {}
            }
        }
        let counted = relids & !hidden;
        let mut rows = factor;
        for (r, br) in self.rels.iter().enumerate() {
            if counted & bit(r) != 0 {
                rows *= br.true_rows;
            }
        }
        for (e, ec) in self.ecs.iter().enumerate() {
            let mut nds: SmallVec<[(usize, f64); 4]> = SmallVec::new();
            for (i, m) in ec.iter().enumerate() {
                if counted & bit(m.rel) == 0 {
                    continue;
                }
                let nd = match &self.rels[m.rel].kind {
                    // A sub-select's join column is its grouping key: one row per value.
                    RelKind::Sub { .. } => self.rels[m.rel].true_rows,
                    RelKind::Table { .. } => match self.ec_buckets.get(e) {
                        Some(buckets) => buckets[i].nd,
                        None => self.stats(m).nd,
                    },
                };
                match nds.iter_mut().find(|(r, _)| *r == m.rel) {
                    Some(x) => x.1 = x.1.min(nd),
                    None => nds.push((m.rel, nd)),
                }
            }
            if nds.len() < 2 {
                continue;
            }
            nds.sort_by(|a, b| b.1.total_cmp(&a.1));
            for (_, nd) in &nds[..nds.len() - 1] {
                rows /= nd.max(1.0);
            }
        }
        for jf in &self.jfilters {
            if jf.rels.count_ones() >= 2 && jf.rels & counted == jf.rels {
                rows *= jf.true_sel;
            }
        }
        if let Some(rhs) = left {
            // Outer rows without a match come out once, null-extended.
            rows = rows.max(self.true_rows(relids & !rhs));
        }
        rows
    }
}

/// The schema's function calls a scan's filters make, given the rows the scan returns:
/// the executor evaluates a scan's quals cheapest first (order_qual_clauses sorts them by
/// cost, stably), each on the rows the ones before it let through, so a filter is reached
/// by the returned rows over the selectivities of itself and the filters after it. (An
/// index condition comes first and is cheap; the filters that call the schema's
/// functions are never index conditions here.)
pub(crate) fn scan_function_calls(filters: &[SingleFilter], rows_out: f64) -> f64 {
    if filters.iter().all(|f| f.calls == 0.0) {
        return 0.0;
    }
    let mut order: Vec<&SingleFilter> = filters.iter().collect();
    order.sort_by(|a, b| a.ops.per_tuple.total_cmp(&b.ops.per_tuple));
    let mut calls = 0.0;
    for (k, f) in order.iter().enumerate() {
        if f.calls > 0.0 {
            let after: f64 = order[k..].iter().map(|g| g.sel).product();
            calls += f.calls * rows_out / after.max(1e-12);
        }
    }
    calls
}
