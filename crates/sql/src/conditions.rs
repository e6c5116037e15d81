//! WHERE and ON conditions: join edges, sargable predicates and the filters left over with
//! their kinds; the join equality every arm of an OR holds.

use sqlparser::ast::{self, BinaryOperator, Expr, Spanned, UnaryOperator};

use costlab_model::block::{
    ColRef, Filter, FilterKind, JoinEdge, NestKind, NestOrigin, Subquery, SubqueryKind,
};
use costlab_model::catalog::{ColumnType, Value};
use costlab_model::error::Result;
use costlab_model::plan::Name;
use costlab_model::query::{CmpOp, Predicate};

use crate::exprs::{
    compared_subquery, conjuncts, disjuncts, has_column, has_subquery, is_subquery, name_parts,
    qualified, strip,
};
use crate::reader::{Col, Reader, RelKind};

pub(crate) fn cmp_op(op: &BinaryOperator) -> Option<(CmpOp, bool)> {
    // (operator, whether it is `<>`): `<>` has no CmpOp, it is never sargable.
    Some(match op {
        BinaryOperator::Eq => (CmpOp::Eq, false),
        BinaryOperator::Lt => (CmpOp::Lt, false),
        BinaryOperator::LtEq => (CmpOp::Le, false),
        BinaryOperator::Gt => (CmpOp::Gt, false),
        BinaryOperator::GtEq => (CmpOp::Ge, false),
        BinaryOperator::NotEq => (CmpOp::Eq, true),
        _ => return None,
    })
}

pub(crate) fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Eq => CmpOp::Eq,
    }
}

impl<'a> Reader<'a> {
    /// One conjunct of a WHERE (or an inner join's ON) read in `scope`.
    pub(crate) fn condition(&mut self, e: &'a Expr, scope: usize) -> Result<()> {
        let bi = self.scopes[scope].block;
        match strip(e) {
            Expr::Exists { subquery, negated } => {
                let (kind, origin) = if *negated {
                    (NestKind::Anti, NestOrigin::NotExists)
                } else {
                    (NestKind::Semi, NestOrigin::Exists)
                };
                return self.nest(subquery, kind, origin, None, scope, e.span());
            }
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } if matches!(strip(expr), Expr::Exists { .. }) => {
                let Expr::Exists { subquery, negated } = strip(expr) else {
                    unreachable!("matched")
                };
                let (kind, origin) = if *negated {
                    (NestKind::Semi, NestOrigin::Exists)
                } else {
                    (NestKind::Anti, NestOrigin::NotExists)
                };
                return self.nest(subquery, kind, origin, None, scope, e.span());
            }
            Expr::In {
                expr,
                target: ast::InTarget::Subquery(subquery),
                negated,
                ..
            } => {
                if self.nestable(subquery) {
                    let (kind, origin) = if *negated {
                        (NestKind::Anti, NestOrigin::NotIn)
                    } else {
                        (NestKind::Semi, NestOrigin::In)
                    };
                    return self.nest(subquery, kind, origin, Some(expr), scope, e.span());
                }
                if *negated {
                    return Err(self.not_modelled(e.span(), "NOT IN over a grouped sub-select"));
                }
                let mut cols = Vec::new();
                self.columns_of(expr, scope, &mut cols)?;
                let tables = self.local_tables(&cols, bi, e)?;
                let (block, correlation) = self.read_block(subquery, Some(scope))?;
                if !correlation.is_empty() {
                    return Err(self.not_modelled(e.span(), "a correlated grouped IN sub-select"));
                }
                let f = self.add_filter(scope, e, tables, FilterKind::InSubquery);
                self.blocks[bi].q.subqueries.push(Subquery {
                    kind: SubqueryKind::InGrouped,
                    block,
                    correlation,
                    filter: Some(f),
                });
                return Ok(());
            }
            Expr::BinaryOp { left, op, right }
                if cmp_op(op).is_some() && (is_subquery(left) || is_subquery(right)) =>
            {
                let (side, _, q) = compared_subquery(left, right);
                let mut cols = Vec::new();
                self.columns_of(side, scope, &mut cols)?;
                let mut tables = self.local_tables(&cols, bi, side)?;
                let (block, correlation) = self.read_block(q, Some(scope))?;
                for (_, outer) in &correlation {
                    if !tables.contains(&outer.table) {
                        tables.push(outer.table);
                    }
                }
                let kind = match cmp_op(op) {
                    Some((CmpOp::Eq, false)) => FilterKind::Eq,
                    Some((_, true)) => FilterKind::Ne,
                    _ => FilterKind::Ineq,
                };
                let f = self.add_filter(scope, e, tables, kind);
                self.blocks[bi].q.subqueries.push(Subquery {
                    kind: SubqueryKind::Scalar,
                    block,
                    correlation,
                    filter: Some(f),
                });
                return Ok(());
            }
            _ => {}
        }
        let ors = disjuncts(e);
        if ors.len() > 1 {
            return self.or_condition(e, &ors, scope);
        }
        self.atom(strip(e), scope)
    }

    /// Adds `e` as a filter of block `bi` (its text as sqlparser prints it, its truth
    /// unknown); returns its index.
    pub(crate) fn add_filter(
        &mut self,
        scope: usize,
        e: &Expr,
        tables: Vec<usize>,
        kind: FilterKind,
    ) -> usize {
        let expr = self.lower(strip(e), scope);
        let b = &mut self.blocks[self.scopes[scope].block].q;
        b.filters.push(Filter {
            sql: Name::from(strip(e).to_string()),
            expr,
            tables,
            kind,
            true_selectivity: f64::NAN,
        });
        b.filters.len() - 1
    }

    /// Tables of the block `bi` among `cols`, in the order they appear; a column of another
    /// block is refused (at `at`, whose span is only computed then: it walks the
    /// expression).
    pub(crate) fn local_tables(&self, cols: &[Col], bi: usize, at: &Expr) -> Result<Vec<usize>> {
        let mut out = Vec::new();
        for c in cols {
            if c.block != bi {
                return Err(self.not_modelled(
                    at.span(),
                    "a correlated reference outside an equality `inner = outer`",
                ));
            }
            if !out.contains(&c.table) {
                out.push(c.table);
            }
        }
        Ok(out)
    }

    /// A condition without sub-selects and without OR at the top.
    pub(crate) fn atom(&mut self, e: &'a Expr, scope: usize) -> Result<()> {
        let bi = self.scopes[scope].block;
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        // Correlation: `inner = outer` in a sub-select's block.
        if cols.iter().any(|c| c.block != bi) {
            if let (
                Expr::BinaryOp {
                    left,
                    op: BinaryOperator::Eq,
                    right,
                },
                [a, b],
            ) = (e, cols.as_slice())
            {
                if self.plain_column(left, scope) && self.plain_column(right, scope) {
                    let (inner, outer) = if a.block == bi { (a, b) } else { (b, a) };
                    if inner.block == bi && outer.block + 1 == bi {
                        self.blocks[bi]
                            .correlation
                            .push((inner.colref(), outer.colref()));
                        return Ok(());
                    }
                }
            }
            return Err(self.not_modelled(
                e.span(),
                "a correlated reference outside an equality `inner = outer`",
            ));
        }
        let tables = self.local_tables(&cols, bi, e)?;
        if tables.is_empty() {
            return Err(self.not_modelled(e.span(), "a condition without columns"));
        }
        // A boolean column alone (or negated) is `= true` (or false), as PostgreSQL's
        // selectivity reads it; costed as the bare column it is.
        if let [c] = cols.as_slice() {
            let negated = match e {
                Expr::UnaryOp {
                    op: UnaryOperator::Not,
                    expr,
                } if self.plain_column(expr, scope) => Some(true),
                _ if self.plain_column(e, scope) => Some(false),
                _ => None,
            };
            if let (Some(neg), ColumnType::Bool) = (negated, &c.ty) {
                self.blocks[bi].q.tables[c.table]
                    .preds
                    .push(Predicate::Cmp {
                        column: c.column.to_string(),
                        op: CmpOp::Eq,
                        value: Value::Num(if neg { 0.0 } else { 1.0 }),
                    });
                return Ok(());
            }
        }
        // A join edge.
        if let (
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Eq,
                right,
            },
            [a, b],
        ) = (e, cols.as_slice())
        {
            if a.table != b.table
                && self.plain_column(left, scope)
                && self.plain_column(right, scope)
            {
                self.blocks[bi].q.joins.push(JoinEdge {
                    a: a.colref(),
                    b: b.colref(),
                });
                return Ok(());
            }
        }
        // A sargable predicate of one table.
        if let ([t], Some(p)) = (tables.as_slice(), self.predicate(e, scope, &cols)?) {
            self.blocks[bi].q.tables[*t].preds.push(p);
            return Ok(());
        }
        let kind = self.filter_kind(e, scope);
        self.add_filter(scope, e, tables, kind);
        Ok(())
    }

    /// An OR: join equalities common to every arm become join edges, the rest one filter.
    pub(crate) fn or_condition(
        &mut self,
        e: &'a Expr,
        arms: &[&'a Expr],
        scope: usize,
    ) -> Result<()> {
        let bi = self.scopes[scope].block;
        for a in arms {
            if has_subquery(a) {
                return Err(self.not_modelled(a.span(), "a sub-select under OR"));
            }
        }
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        let tables = self.local_tables(&cols, bi, e)?;
        // Join equalities of each arm, as unordered column pairs.
        let mut common: Option<Vec<(ColRef, ColRef)>> = None;
        let mut arm_joins: Vec<Vec<(usize, (ColRef, ColRef))>> = Vec::new();
        for a in arms {
            let mut js = Vec::new();
            for (k, c) in conjuncts(a).into_iter().enumerate() {
                if let Some(pair) = self.join_pair(c, scope)? {
                    js.push((k, pair));
                }
            }
            let pairs: Vec<(ColRef, ColRef)> = js.iter().map(|(_, p)| p.clone()).collect();
            common = Some(match common {
                None => pairs,
                Some(prev) => prev
                    .into_iter()
                    .filter(|p| pairs.iter().any(|q| same_pair(p, q)))
                    .collect(),
            });
            arm_joins.push(js);
        }
        let common = common.unwrap_or_default();
        for (a, b) in &common {
            self.blocks[bi].q.joins.push(JoinEdge {
                a: a.clone(),
                b: b.clone(),
            });
        }
        let mut kinds = Vec::new();
        for (arm, js) in arms.iter().zip(&arm_joins) {
            let mut ks = Vec::new();
            for (k, c) in conjuncts(arm).into_iter().enumerate() {
                let extracted = js
                    .iter()
                    .any(|(jk, p)| *jk == k && common.iter().any(|q| same_pair(p, q)));
                if !extracted {
                    ks.push(self.filter_kind(c, scope));
                }
            }
            kinds.push(if ks.len() == 1 {
                ks.remove(0)
            } else {
                FilterKind::And(ks)
            });
        }
        self.add_filter(scope, e, tables, FilterKind::Or(kinds));
        Ok(())
    }

    /// `a.x = b.y` between two tables of the block: the pair.
    pub(crate) fn join_pair(&mut self, e: &Expr, scope: usize) -> Result<Option<(ColRef, ColRef)>> {
        let bi = self.scopes[scope].block;
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = e
        {
            if self.plain_column(left, scope) && self.plain_column(right, scope) {
                let mut cols = Vec::new();
                self.columns_of(e, scope, &mut cols)?;
                if let [a, b] = cols.as_slice() {
                    if a.block == bi && b.block == bi && a.table != b.table {
                        return Ok(Some((a.colref(), b.colref())));
                    }
                }
            }
        }
        Ok(None)
    }

    /// A condition in a LEFT JOIN's ON: equalities with the preserved side are join edges,
    /// conditions of the nullable table alone its predicates or filters.
    pub(crate) fn outer_join_condition(
        &mut self,
        e: &'a Expr,
        scope: usize,
        nullable: &[usize],
    ) -> Result<()> {
        let bi = self.scopes[scope].block;
        if has_subquery(e) {
            return Err(self.not_modelled(e.span(), "a sub-select in a LEFT JOIN's ON"));
        }
        let mut cols = Vec::new();
        self.columns_of(e, scope, &mut cols)?;
        let tables = self.local_tables(&cols, bi, e)?;
        if tables.iter().all(|t| nullable.contains(t)) {
            return self.condition(e, scope);
        }
        if self.join_pair(strip(e), scope)?.is_some() {
            return self.condition(e, scope);
        }
        Err(self.not_modelled(
            e.span(),
            "a LEFT JOIN condition on the preserved side other than an equality with the joined table",
        ))
    }

    /// Whether `e` is a column (a merged derived table's column when it stands for one).
    pub(crate) fn plain_column(&self, e: &Expr, scope: usize) -> bool {
        name_parts(e).is_some_and(|parts| {
            self.peek(parts, scope)
                .is_none_or(|x| name_parts(x.0).is_some())
        })
    }

    /// What a name stands for when it is a merged derived column (without marking uses).
    pub(crate) fn peek(&self, parts: &[ast::Ident], scope: usize) -> Option<(&'a Expr, usize)> {
        let (qual, col) = qualified(parts)?;
        let mut sc = Some(scope);
        while let Some(s) = sc {
            for r in &self.scopes[s].rels {
                if qual.is_some_and(|q| !r.alias.eq_ignore_ascii_case(q)) {
                    continue;
                }
                match &r.kind {
                    RelKind::Merged { columns, scope } => {
                        if let Some((_, e)) =
                            columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(col))
                        {
                            return Some((e, *scope));
                        }
                    }
                    RelKind::Table { columns, .. } => {
                        if columns.find(col).is_some() {
                            return None;
                        }
                    }
                }
            }
            sc = self.scopes[s].parent;
        }
        None
    }

    /// `col op constant`, `col BETWEEN c AND c`, `col IN (c, ...)` on one column.
    pub(crate) fn predicate(
        &mut self,
        e: &Expr,
        scope: usize,
        cols: &[Col],
    ) -> Result<Option<Predicate>> {
        let [c] = cols else {
            return Ok(None);
        };
        let col = |x: &Expr| self.plain_column(x, scope);
        Ok(match e {
            Expr::BinaryOp { left, op, right } => {
                let Some((op, ne)) = cmp_op(op) else {
                    return Ok(None);
                };
                if ne {
                    return Ok(None);
                }
                let (value, op) = if col(left) {
                    (self.value(right, &c.ty)?, op)
                } else if col(right) {
                    (self.value(left, &c.ty)?, flip(op))
                } else {
                    return Ok(None);
                };
                value.map(|value| Predicate::Cmp {
                    column: c.column.to_string(),
                    op,
                    value,
                })
            }
            Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } if col(expr) => match (self.value(low, &c.ty)?, self.value(high, &c.ty)?) {
                (Some(lo), Some(hi)) => Some(Predicate::Between {
                    column: c.column.to_string(),
                    lo,
                    hi,
                }),
                _ => None,
            },
            Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated: false,
                ..
            } if col(expr) => {
                let mut values = Vec::new();
                for x in list {
                    match self.value(x, &c.ty)? {
                        Some(v) => values.push(v),
                        None => return Ok(None),
                    }
                }
                Some(Predicate::In {
                    column: c.column.to_string(),
                    values,
                })
            }
            _ => None,
        })
    }

    /// The kind a filter's engines derive their default selectivities from.
    pub(crate) fn filter_kind(&self, e: &Expr, scope: usize) -> FilterKind {
        let col = |x: &Expr| self.plain_column(x, scope);
        let constant = |x: &Expr| !has_column(x);
        match strip(e) {
            Expr::BinaryOp {
                op: BinaryOperator::And,
                ..
            } => FilterKind::And(
                conjuncts(e)
                    .into_iter()
                    .map(|c| self.filter_kind(c, scope))
                    .collect(),
            ),
            Expr::BinaryOp {
                op: BinaryOperator::Or,
                ..
            } => FilterKind::Or(
                disjuncts(e)
                    .into_iter()
                    .map(|c| self.filter_kind(c, scope))
                    .collect(),
            ),
            Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr,
            } => match self.filter_kind(expr, scope) {
                FilterKind::Like => FilterKind::NotLike,
                FilterKind::NotLike => FilterKind::Like,
                k => FilterKind::Not(Box::new(k)),
            },
            Expr::BinaryOp { left, op, right } => match cmp_op(op) {
                Some(_) if is_subquery(left) || is_subquery(right) => FilterKind::Ineq,
                Some((o, ne))
                    if (col(left) || constant(left)) && (col(right) || constant(right)) =>
                {
                    if ne {
                        FilterKind::Ne
                    } else if o == CmpOp::Eq {
                        FilterKind::Eq
                    } else {
                        FilterKind::Ineq
                    }
                }
                _ => FilterKind::Function,
            },
            Expr::Between { expr, negated, .. } if col(expr) => {
                if *negated {
                    FilterKind::Not(Box::new(FilterKind::Between))
                } else {
                    FilterKind::Between
                }
            }
            Expr::In {
                expr,
                target: ast::InTarget::List(list),
                negated,
                ..
            } if col(expr) => {
                let k = FilterKind::InList(list.len());
                if *negated {
                    FilterKind::Not(Box::new(k))
                } else {
                    k
                }
            }
            Expr::Like { expr, negated, .. } | Expr::ILike { expr, negated, .. } if col(expr) => {
                if *negated {
                    FilterKind::NotLike
                } else {
                    FilterKind::Like
                }
            }
            Expr::IsNull(x) if col(x) => FilterKind::IsNull,
            Expr::IsNotNull(x) if col(x) => FilterKind::Not(Box::new(FilterKind::IsNull)),
            Expr::In {
                target: ast::InTarget::Subquery(_),
                ..
            } => FilterKind::InSubquery,
            _ => FilterKind::Function,
        }
    }
}

pub(crate) fn same_pair(p: &(ColRef, ColRef), q: &(ColRef, ColRef)) -> bool {
    (p.0 == q.0 && p.1 == q.1) || (p.0 == q.1 && p.1 == q.0)
}
