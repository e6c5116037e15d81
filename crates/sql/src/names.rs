//! Names: a column reference resolved from its scope outwards (a merged derived table's
//! column followed to its expression), and the columns an expression reads.

use sqlparser::ast::{self, Expr, FunctionArguments, Spanned};
use sqlparser::tokenizer::Span;

use costlab_model::error::Result;

use crate::exprs::{each_sub_expr, qualified};
use crate::reader::{Col, Reader, RelKind};

impl<'a> Reader<'a> {
    /// Resolves a column reference (`col` or `alias.col`) from `scope` outwards.
    pub(crate) fn resolve(
        &mut self,
        parts: &[ast::Ident],
        scope: usize,
        span: Span,
    ) -> Result<Resolved<'a>> {
        self.try_resolve(parts, scope).map_err(|u| {
            let col = qualified(parts).map_or(String::new(), |(_, c)| c.to_ascii_lowercase());
            let msg = match u {
                Unresolved::Empty => "an empty name".to_string(),
                Unresolved::Ambiguous => format!("column `{col}` is ambiguous"),
                Unresolved::NotIn(alias) => format!("unknown column `{col}` in `{alias}`"),
                Unresolved::Unknown => format!("unknown column `{col}`"),
            };
            self.err(span, msg)
        })
    }

    /// [`Reader::resolve`] without the error's message and position (a caller that only
    /// asks whether a name is a column need not build them).
    pub(crate) fn try_resolve(
        &mut self,
        parts: &[ast::Ident],
        scope: usize,
    ) -> std::result::Result<Resolved<'a>, Unresolved> {
        let Some((qual, col)) = qualified(parts) else {
            return Err(Unresolved::Empty);
        };
        let mut sc = Some(scope);
        while let Some(s) = sc {
            let mut found: Option<Hit<'a>> = None;
            for (ri, r) in self.scopes[s].rels.iter().enumerate() {
                if qual.is_some_and(|q| !r.alias.eq_ignore_ascii_case(q)) {
                    continue;
                }
                let hit = match &r.kind {
                    RelKind::Table { columns, .. } => columns.find(col).map(|k| Hit::Column(ri, k)),
                    RelKind::Merged { columns, scope } => columns
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(col))
                        .map(|(_, e)| Hit::Merged(e, *scope)),
                };
                match (hit, &found) {
                    (Some(_), Some(_)) => return Err(Unresolved::Ambiguous),
                    (Some(h), None) => found = Some(h),
                    (None, _) => {}
                }
                if qual.is_some() && found.is_none() {
                    return Err(Unresolved::NotIn(r.alias.clone()));
                }
            }
            match found {
                Some(Hit::Column(ri, k)) => {
                    let block = self.scopes[s].block;
                    let RelKind::Table { index, columns } = &self.scopes[s].rels[ri].kind else {
                        unreachable!("a table's hit")
                    };
                    let uses = &mut self.blocks[block].q.tables[*index].uses;
                    return Ok(Resolved::Col(Col {
                        block,
                        table: *index,
                        column: columns.use_column(k, uses),
                        ty: columns.ty(k).clone(),
                    }));
                }
                Some(Hit::Merged(e, scope)) => return Ok(Resolved::Expr(e, scope)),
                None => {}
            }
            sc = self.scopes[s].parent;
        }
        Err(Unresolved::Unknown)
    }

    /// `name` among the given tables of the scope's block (USING).
    pub(crate) fn resolve_among(
        &mut self,
        name: &str,
        scope: usize,
        among: &[usize],
        span: Span,
    ) -> Result<Col> {
        let ident = ast::Ident::new(name);
        let bi = self.scopes[scope].block;
        for r in 0..self.scopes[scope].rels.len() {
            let (alias, index) = match &self.scopes[scope].rels[r].kind {
                RelKind::Table { index, .. } if among.contains(index) => {
                    (self.scopes[scope].rels[r].alias.clone(), *index)
                }
                _ => continue,
            };
            let parts = [ast::Ident::new(alias), ident.clone()];
            if let Ok(Resolved::Col(c)) = self.resolve(&parts, scope, span) {
                if c.block == bi && c.table == index {
                    return Ok(c);
                }
            }
        }
        Err(self.err(span, format!("USING column `{name}` is not on both sides")))
    }

    /// Every column `e` reads, merged derived columns followed to their expressions.
    pub(crate) fn columns_of(&mut self, e: &Expr, scope: usize, out: &mut Vec<Col>) -> Result<()> {
        let mut idents: Vec<(&[ast::Ident], Span)> = Vec::new();
        self.collect_idents(e, &mut idents)?;
        for (parts, span) in idents {
            match self.resolve(parts, scope, span)? {
                Resolved::Col(c) => out.push(c),
                Resolved::Expr(inner, s) => self.columns_of(inner, s, out)?,
            }
        }
        Ok(())
    }

    /// Column names in `e`; a sub-select inside anything but the shapes `condition` reads
    /// is refused, as are window functions and expressions the walker does not know.
    pub(crate) fn collect_idents<'e>(
        &self,
        e: &'e Expr,
        out: &mut Vec<(&'e [ast::Ident], Span)>,
    ) -> Result<()> {
        match e {
            Expr::Identifier(i) => {
                out.push((std::slice::from_ref(i), e.span()));
                return Ok(());
            }
            Expr::CompoundIdentifier(p) => {
                out.push((p, e.span()));
                return Ok(());
            }
            Expr::Function(f) if f.over.is_some() => {
                return Err(self.err(e.span(), "window functions are not modelled"));
            }
            Expr::Function(f) if matches!(f.args, FunctionArguments::Subquery(_)) => {
                return Err(self.not_modelled(e.span(), "a sub-select as a function argument"));
            }
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::In { .. }
                if !each_sub_expr(e, &mut |_| {}) =>
            {
                return Err(self.not_modelled(
                    e.span(),
                    "a sub-select here (only as a WHERE condition: EXISTS, IN, or compared)",
                ));
            }
            _ => {}
        }
        // The first error in order, as a walk that stops there finds it.
        let mut res = Ok(());
        let known = each_sub_expr(e, &mut |x| {
            if res.is_ok() {
                res = self.collect_idents(x, out);
            }
        });
        if !known {
            return Err(self.not_modelled(e.span(), &format!("the expression `{e}`")));
        }
        res
    }
}

pub(crate) enum Resolved<'a> {
    Col(Col),
    /// A merged derived table's column: its expression, in its scope.
    Expr(&'a Expr, usize),
}

/// What a name hits in one scope: column `k` of rel `r` (a table), or a merged derived
/// table's column (its expression, in its scope).
pub(crate) enum Hit<'a> {
    Column(usize, usize),
    Merged(&'a Expr, usize),
}

/// Why a name does not resolve.
pub(crate) enum Unresolved {
    Empty,
    Ambiguous,
    /// Not a column of the table (its alias) the name qualifies it by.
    NotIn(String),
    Unknown,
}
