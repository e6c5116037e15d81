//! Selectivity of a block's filters and restriction clauses, as clausesel.c's
//! clauselist_selectivity and the operators' restriction estimators read them: the
//! expression's columns resolved to the block's relations, comparisons with constants
//! through the one-table estimators (`crate::selfuncs`), LIKE, OR, NOT, defaults by filter
//! kind, and the operator count cost_qual_eval charges.

use crate::pathnodes::{Clause, ClauseKind, ColInfo, QualOps, Rel};
use crate::selfuncs;
use costlab_model::block::{FilterKind, QueryBlock};
use costlab_model::catalog::{ColumnType, Value};
use costlab_model::query::CmpOp;

use super::clauses::{self, Expr, Lit, Op, Operand};
use super::pathnodes::*;
use super::selfuncs::{default_stats, eqjoinsel_inner, eqjoinsel_semi};

pub(crate) fn value_for(col: &ColInfo, l: &Lit) -> Option<Value> {
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

pub(crate) fn cmp_op(op: Op) -> Option<CmpOp> {
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
        Expr::In { values, .. } => QualOps::in_list(values.len()),
    }
}

/// process_duplicate_ors (prepqual.c): conjuncts every OR arm has are pulled out.
pub(crate) fn factor_or(e: Expr) -> Vec<Expr> {
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
    pub(crate) fn restriction_sel(&self, k: &ColKey, op: CmpOp, l: &Lit) -> Option<f64> {
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

    pub(crate) fn col_info(&self, k: &ColKey) -> Option<(&Rel<'a>, &ColInfo)> {
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
    pub(crate) fn like_sel(&self, k: &ColKey, pat: &str) -> f64 {
        let Some((rel, col)) = self.col_info(k) else {
            return selfuncs::DEFAULT_MATCH_SEL;
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
            return selfuncs::DEFAULT_MATCH_SEL;
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
        let heur = prefixsel * clauses::like_rest_selectivity(rest);
        let hist = &col.stats.histogram;
        let mut selec = if hist.len() >= 10 {
            let inner = &hist[1..hist.len() - 1];
            let m = inner
                .iter()
                .filter(|v| clauses::like_match(pat, &text(v)))
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
            if clauses::like_match(pat, &text(v)) {
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
    pub(crate) fn resolve(
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
    pub(crate) fn expr_sel(
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
                            selfuncs::range_pair(lo, hi, self.stats(&k).nullfrac)
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
                    return (selfuncs::DEFAULT_EQ_SEL, selfuncs::DEFAULT_EQ_SEL);
                };
                match rhs {
                    Operand::Lit(l) => {
                        let s = match cmp_op(*op) {
                            Some(o) => {
                                self.restriction_sel(&k, o, l).unwrap_or(if o == CmpOp::Eq {
                                    selfuncs::DEFAULT_EQ_SEL
                                } else {
                                    selfuncs::DEFAULT_INEQ_SEL
                                })
                            }
                            None => {
                                let eq = self
                                    .restriction_sel(&k, CmpOp::Eq, l)
                                    .unwrap_or(selfuncs::DEFAULT_EQ_SEL);
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
                            _ => (selfuncs::DEFAULT_INEQ_SEL, selfuncs::DEFAULT_INEQ_SEL),
                        },
                        _ => match op {
                            Op::Eq => (selfuncs::DEFAULT_EQ_SEL, selfuncs::DEFAULT_EQ_SEL),
                            Op::Ne => (0.995, 0.995),
                            _ => (selfuncs::DEFAULT_INEQ_SEL, selfuncs::DEFAULT_INEQ_SEL),
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
                        _ => (selfuncs::DEFAULT_INEQ_SEL, selfuncs::DEFAULT_INEQ_SEL),
                    },
                }
            }
            Expr::In { col, values } => {
                let Some(k) = res(col) else {
                    let s = (values.len() as f64 * selfuncs::DEFAULT_EQ_SEL).min(1.0);
                    return (s, s);
                };
                let s = match self.col_info(&k) {
                    Some((rel, c)) => {
                        let vals: Vec<Value> =
                            values.iter().filter_map(|l| value_for(c, l)).collect();
                        selfuncs::scalararraysel(rel, c, &vals)
                    }
                    None => (values.len() as f64 * selfuncs::DEFAULT_EQ_SEL).min(1.0),
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
                    (Some(a), Some(b)) => selfuncs::range_pair(a, b, self.stats(&k).nullfrac),
                    _ => selfuncs::DEFAULT_RANGE_INEQ_SEL,
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
    pub(crate) fn expr_rels(
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

    pub(crate) fn expr_cols(
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

pub(crate) fn kind_default(k: &FilterKind) -> f64 {
    match k {
        FilterKind::Eq => selfuncs::DEFAULT_EQ_SEL,
        FilterKind::Ne => 0.995,
        FilterKind::Ineq => selfuncs::DEFAULT_INEQ_SEL,
        FilterKind::Between => selfuncs::DEFAULT_RANGE_INEQ_SEL,
        FilterKind::Like => selfuncs::DEFAULT_MATCH_SEL,
        FilterKind::NotLike => 0.995,
        FilterKind::InList(n) => (*n as f64 * selfuncs::DEFAULT_EQ_SEL).min(1.0),
        FilterKind::Function => 0.005,
        FilterKind::InSubquery => 0.5,
        // DEFAULT_UNK_SEL, as nulltestsel without statistics.
        FilterKind::IsNull => 0.005,
        FilterKind::Not(k) => 1.0 - kind_default(k),
        FilterKind::And(v) => v.iter().map(kind_default).product(),
        FilterKind::Or(v) => v.iter().map(kind_default).fold(0.0, |a, s| a + s - a * s),
    }
}
