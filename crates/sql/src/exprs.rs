//! What the reader asks of sqlparser's expressions: their shape (parentheses stripped, AND
//! and OR flattened, names, sub-selects) and walks over the expressions inside them.

use std::borrow::Cow;

use sqlparser::ast::{
    self, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName,
};

/// SQL's aggregates, one list for the front end and the planners.
pub(crate) use costlab_model::expr::AGGREGATES;

/// The last part of a name, without the quotes around it.
pub(crate) fn object_name(n: &ObjectName) -> Cow<'_, str> {
    match n.0.last() {
        None => Cow::Borrowed(""),
        // The text printed and trimmed below, without printing it: an identifier without
        // quote characters in it, unquoted or quoted by `"` or `` ` ``.
        Some(ast::ObjectNamePart::Identifier(i))
            if matches!(i.quote_style, None | Some('"') | Some('`'))
                && !i.value.contains(['"', '`']) =>
        {
            Cow::Borrowed(&i.value)
        }
        Some(p) => Cow::Owned(
            p.to_string()
                .trim_matches('"')
                .trim_matches('`')
                .to_string(),
        ),
    }
}

pub(crate) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(x) => strip(x),
        _ => e,
    }
}

/// The conjuncts of `e` (AND flattened, parentheses dropped).
pub(crate) fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match strip(e) {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        x => vec![x],
    }
}

pub(crate) fn disjuncts(e: &Expr) -> Vec<&Expr> {
    match strip(e) {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Or,
            right,
        } => {
            let mut v = disjuncts(left);
            v.extend(disjuncts(right));
            v
        }
        x => vec![x],
    }
}

pub(crate) fn is_subquery(e: &Expr) -> bool {
    matches!(strip(e), Expr::Subquery(_))
}

/// Of a comparison with a sub-select (`x < (SELECT ...)` or turned round): the other side,
/// the sub-select's expression and its query.
pub(crate) fn compared_subquery<'e>(
    left: &'e Expr,
    right: &'e Expr,
) -> (&'e Expr, &'e Expr, &'e ast::Query) {
    let (side, sub) = if is_subquery(right) {
        (left, right)
    } else {
        (right, left)
    };
    match strip(sub) {
        Expr::Subquery(q) => (side, sub, q),
        _ => unreachable!("callers check is_subquery"),
    }
}

/// The parts of a column name (`col`, `alias.col`), or `None` when `e` is not a name.
pub(crate) fn name_parts(e: &Expr) -> Option<&[ast::Ident]> {
    match strip(e) {
        Expr::Identifier(i) => Some(std::slice::from_ref(i)),
        Expr::CompoundIdentifier(p) => Some(p),
        _ => None,
    }
}

/// A name's qualifier and column as written; both engines compare unquoted names in any
/// case, so callers compare them with `eq_ignore_ascii_case`.
pub(crate) fn qualified(parts: &[ast::Ident]) -> Option<(Option<&str>, &str)> {
    match parts {
        [c] => Some((None, &c.value)),
        [.., t, c] => Some((Some(&t.value), &c.value)),
        [] => None,
    }
}

/// Calls `f` on each expression directly inside `e` that the front end walks (a
/// function's arguments and FILTER, CASE's parts, an operator's operands, ...), in order;
/// `false` (and `f` never called) for a sub-select and for any expression it does not know.
/// Constants have none. A visitor rather than a list: the walks run over every node of
/// every condition, and a list per node was an allocation per node.
pub(crate) fn each_sub_expr<'e>(e: &'e Expr, f: &mut dyn FnMut(&'e Expr)) -> bool {
    match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::TypedString(_) => {}
        Expr::Nested(x)
        | Expr::UnaryOp { expr: x, .. }
        | Expr::IsNull(x)
        | Expr::IsNotNull(x)
        | Expr::IsTrue(x)
        | Expr::IsFalse(x)
        | Expr::IsNotTrue(x)
        | Expr::IsNotFalse(x)
        | Expr::Cast { expr: x, .. }
        | Expr::Extract { expr: x, .. }
        | Expr::Ceil { expr: x, .. }
        | Expr::Floor { expr: x, .. }
        | Expr::Collate { expr: x, .. } => f(x),
        Expr::Interval(i) => f(&i.value),
        Expr::BinaryOp { left, right, .. }
        | Expr::Like {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::ILike {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::IsDistinctFrom(left, right)
        | Expr::IsNotDistinctFrom(left, right)
        | Expr::Position {
            expr: left,
            r#in: right,
        } => {
            f(left);
            f(right);
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            f(expr);
            f(low);
            f(high);
        }
        Expr::In {
            expr,
            target: ast::InTarget::List(list),
            ..
        } => {
            f(expr);
            list.iter().for_each(f);
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            f(expr);
            substring_from.as_deref().into_iter().for_each(&mut *f);
            substring_for.as_deref().into_iter().for_each(f);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref().into_iter().for_each(&mut *f);
            for w in conditions {
                f(&w.condition);
                f(&w.result);
            }
            else_result.as_deref().into_iter().for_each(f);
        }
        Expr::Function(func) => {
            match &func.args {
                FunctionArguments::List(l) => {
                    for a in &l.args {
                        if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x))
                        | FunctionArg::Named {
                            arg: FunctionArgExpr::Expr(x),
                            ..
                        }
                        | FunctionArg::ExprNamed {
                            arg: FunctionArgExpr::Expr(x),
                            ..
                        } = a
                        {
                            f(x);
                        }
                    }
                }
                FunctionArguments::None => {}
                FunctionArguments::Subquery(_) => return false,
            }
            func.filter.as_deref().into_iter().for_each(f);
        }
        _ => return false,
    }
    true
}

/// [`each_sub_expr`] over a tree to change: the same expressions, in the same order (keep
/// the two in step).
pub(crate) fn each_sub_expr_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) -> bool {
    match e {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Value(_)
        | Expr::TypedString(_) => {}
        Expr::Nested(x)
        | Expr::UnaryOp { expr: x, .. }
        | Expr::IsNull(x)
        | Expr::IsNotNull(x)
        | Expr::IsTrue(x)
        | Expr::IsFalse(x)
        | Expr::IsNotTrue(x)
        | Expr::IsNotFalse(x)
        | Expr::Cast { expr: x, .. }
        | Expr::Extract { expr: x, .. }
        | Expr::Ceil { expr: x, .. }
        | Expr::Floor { expr: x, .. }
        | Expr::Collate { expr: x, .. } => f(x),
        Expr::Interval(i) => f(&mut i.value),
        Expr::BinaryOp { left, right, .. }
        | Expr::Like {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::ILike {
            expr: left,
            pattern: right,
            ..
        }
        | Expr::IsDistinctFrom(left, right)
        | Expr::IsNotDistinctFrom(left, right)
        | Expr::Position {
            expr: left,
            r#in: right,
        } => {
            f(left);
            f(right);
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            f(expr);
            f(low);
            f(high);
        }
        Expr::In {
            expr,
            target: ast::InTarget::List(list),
            ..
        } => {
            f(expr);
            list.iter_mut().for_each(f);
        }
        Expr::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            f(expr);
            substring_from.as_deref_mut().into_iter().for_each(&mut *f);
            substring_for.as_deref_mut().into_iter().for_each(f);
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            operand.as_deref_mut().into_iter().for_each(&mut *f);
            for w in conditions {
                f(&mut w.condition);
                f(&mut w.result);
            }
            else_result.as_deref_mut().into_iter().for_each(f);
        }
        Expr::Function(func) => {
            match &mut func.args {
                FunctionArguments::List(l) => {
                    for a in &mut l.args {
                        if let FunctionArg::Unnamed(FunctionArgExpr::Expr(x))
                        | FunctionArg::Named {
                            arg: FunctionArgExpr::Expr(x),
                            ..
                        }
                        | FunctionArg::ExprNamed {
                            arg: FunctionArgExpr::Expr(x),
                            ..
                        } = a
                        {
                            f(x);
                        }
                    }
                }
                FunctionArguments::None => {}
                FunctionArguments::Subquery(_) => return false,
            }
            func.filter.as_deref_mut().into_iter().for_each(f);
        }
        _ => return false,
    }
    true
}

/// Whether `e` or any expression inside it (sub-selects not entered) satisfies `pred`.
pub(crate) fn any_expr(e: &Expr, pred: &dyn Fn(&Expr) -> bool) -> bool {
    if pred(e) {
        return true;
    }
    let mut found = false;
    each_sub_expr(e, &mut |x| found = found || any_expr(x, pred));
    found
}

pub(crate) fn has_aggregate(e: &Expr) -> bool {
    any_expr(e, &|x| match x {
        Expr::Function(f) => {
            let n = object_name(&f.name);
            f.over.is_none() && AGGREGATES.iter().any(|a| a.eq_ignore_ascii_case(&n))
        }
        _ => false,
    })
}

pub(crate) fn has_subquery(e: &Expr) -> bool {
    any_expr(e, &|x| {
        matches!(
            x,
            Expr::Subquery(_)
                | Expr::Exists { .. }
                | Expr::In {
                    target: ast::InTarget::Subquery(_),
                    ..
                }
        )
    })
}

pub(crate) fn has_column(e: &Expr) -> bool {
    any_expr(e, &|x| {
        matches!(x, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
    })
}
