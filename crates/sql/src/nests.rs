//! Sub-selects in a condition: EXISTS / IN over a sub-select that could be merged as semi
//! or anti nests of the block, the others as its subqueries.

use sqlparser::ast::{self, Expr, GroupByExpr, SelectItem, SetExpr, Spanned};
use sqlparser::tokenizer::Span;

use costlab_model::block::{JoinEdge, Nest, NestKind, NestOrigin};
use costlab_model::error::Result;

use crate::exprs::conjuncts;
use crate::reader::Reader;

impl<'a> Reader<'a> {
    /// Whether a sub-select can be flattened into a semi or anti join: one SELECT without
    /// grouping, aggregates, DISTINCT or LIMIT.
    pub(crate) fn nestable(&self, q: &ast::Query) -> bool {
        match &*q.body {
            SetExpr::Select(s) => {
                let grouped =
                    matches!(&s.group_by, GroupByExpr::Expressions(e, _) if !e.is_empty());
                !grouped
                    && s.having.is_none()
                    && s.distinct.is_none()
                    && q.limit_clause.is_none()
                    && q.with.is_none()
                    && !s.projection.iter().any(|p| self.has_aggregate_item(p))
                    && s.from.iter().all(|f| f.joins.is_empty())
            }
            _ => false,
        }
    }

    /// EXISTS / IN sub-selects flattened into a nest of the block; `in_expr`: the outer
    /// side of an IN, joined to the sub-select's one output column.
    pub(crate) fn nest(
        &mut self,
        q: &'a ast::Query,
        kind: NestKind,
        origin: NestOrigin,
        in_expr: Option<&'a Expr>,
        scope: usize,
        span: Span,
    ) -> Result<()> {
        if !self.nestable(q) {
            return Err(self.not_modelled(span, "EXISTS over a grouped or aggregated sub-select"));
        }
        let SetExpr::Select(s) = &*q.body else {
            unreachable!("nestable")
        };
        let bi = self.scopes[scope].block;
        let n = match self.scopes[scope].nest {
            Some(parent) => {
                let pk = self.blocks[bi].q.nests[parent].kind;
                if pk != NestKind::Semi || kind != NestKind::Semi {
                    return Err(
                        self.not_modelled(span, "a NOT EXISTS or NOT IN inside another sub-select")
                    );
                }
                parent
            }
            None => {
                let b = &mut self.blocks[bi].q;
                b.nests.push(Nest {
                    kind,
                    origin,
                    tables: Vec::new(),
                    true_match: f64::NAN,
                });
                b.nests.len() - 1
            }
        };
        let inner = self.new_scope(bi, Some(scope), Some(n));
        for twj in &s.from {
            self.add_from_item(&twj.relation, inner, &[])?;
        }
        if let Some(x) = in_expr {
            let [item] = s.projection.as_slice() else {
                return Err(self.err(span, "an IN sub-select returns one column"));
            };
            let ie = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return Err(self.err(item.span(), "an IN sub-select returns one column")),
            };
            if !self.plain_column(x, scope) || !self.plain_column(ie, inner) {
                return Err(self.not_modelled(span, "IN between expressions (only columns)"));
            }
            let mut outer_cols = Vec::new();
            self.columns_of(x, scope, &mut outer_cols)?;
            let mut inner_cols = Vec::new();
            self.columns_of(ie, inner, &mut inner_cols)?;
            let (Some(a), Some(b)) = (outer_cols.first(), inner_cols.first()) else {
                return Err(self.err(span, "IN needs a column on each side"));
            };
            if a.block != bi || b.block != bi {
                return Err(self.not_modelled(span, "a correlated IN"));
            }
            self.blocks[bi].q.joins.push(JoinEdge {
                a: a.colref(),
                b: b.colref(),
            });
        }
        if let Some(w) = &s.selection {
            for c in conjuncts(w) {
                self.condition(c, inner)?;
            }
        }
        Ok(())
    }
}
