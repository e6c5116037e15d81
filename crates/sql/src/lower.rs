//! sqlparser's expressions lowered into costlab's typed ones ([`costlab_model::expr`]):
//! the one place a condition's syntax is read. Columns resolve against the scope the
//! expression is written in, so each names its table reference; a merged derived
//! table's column is the expression it stands for.

use sqlparser::ast::{
    self, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, UnaryOperator,
    Value as SqlValue,
};

use costlab_model::expr::{self as typed, BinOp, Column};
use costlab_model::plan::Name;

use crate::exprs::{each_sub_expr, object_name, qualified};
use crate::names::Resolved;
use crate::reader::Reader;

fn boxed(e: typed::Expr) -> Box<typed::Expr> {
    Box::new(e)
}

fn bin_op(op: &BinaryOperator) -> BinOp {
    match op {
        BinaryOperator::Plus => BinOp::Add,
        BinaryOperator::Minus => BinOp::Sub,
        BinaryOperator::Multiply => BinOp::Mul,
        BinaryOperator::Divide => BinOp::Div,
        BinaryOperator::Modulo => BinOp::Mod,
        BinaryOperator::StringConcat => BinOp::Concat,
        BinaryOperator::Eq => BinOp::Eq,
        BinaryOperator::NotEq => BinOp::Ne,
        BinaryOperator::Lt => BinOp::Lt,
        BinaryOperator::LtEq => BinOp::Le,
        BinaryOperator::Gt => BinOp::Gt,
        BinaryOperator::GtEq => BinOp::Ge,
        BinaryOperator::And => BinOp::And,
        BinaryOperator::Or => BinOp::Or,
        BinaryOperator::LtDashGt => BinOp::Distance,
        _ => BinOp::Other,
    }
}

/// A type's name as the query wrote it, lower case (`numeric(15,2)`, `date`).
fn type_name(t: &ast::DataType) -> Name {
    Name::from(t.to_string().to_ascii_lowercase())
}

fn value(v: &SqlValue) -> typed::Expr {
    match v {
        SqlValue::Number(s, _) => typed::Expr::Number(Name::from(s.as_str())),
        SqlValue::SingleQuotedString(s)
        | SqlValue::DoubleQuotedString(s)
        | SqlValue::EscapedStringLiteral(s)
        | SqlValue::NationalStringLiteral(s) => typed::Expr::String(Name::from(s.as_str())),
        SqlValue::Boolean(b) => typed::Expr::Bool(*b),
        SqlValue::Null => typed::Expr::Null,
        other => typed::Expr::String(Name::from(other.to_string())),
    }
}

/// A string constant's text (the value of a `TypedString` or an interval).
fn string_text(e: &Expr) -> Option<String> {
    match e {
        Expr::Value(v) => match &v.value {
            SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => Some(s.clone()),
            SqlValue::Number(s, _) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}

impl<'a> Reader<'a> {
    /// `e`, written in `scope`, as a typed expression. The front end has already walked
    /// and resolved every column of `e` (an unknown name was refused there); a column
    /// that resolves to no table of `scope`'s block is an outer block's and keeps only
    /// its name. A sub-select is left to the block that reads it.
    pub(super) fn lower(&mut self, e: &Expr, scope: usize) -> typed::Expr {
        use typed::Expr as T;
        match e {
            Expr::Identifier(i) => self.lower_column(std::slice::from_ref(i), scope),
            Expr::CompoundIdentifier(p) => self.lower_column(p, scope),
            Expr::Value(v) => value(&v.value),
            Expr::TypedString(ts) => T::Typed {
                ty: type_name(&ts.data_type),
                value: Name::from(string_text(&Expr::Value(ts.value.clone())).unwrap_or_default()),
            },
            Expr::Interval(i) => T::Interval {
                value: Name::from(string_text(&i.value).unwrap_or_default()),
                unit: Name::from(
                    i.leading_field
                        .as_ref()
                        .map_or(String::new(), |f| f.to_string().to_ascii_lowercase()),
                ),
            },
            Expr::Nested(x) => T::Nested(boxed(self.lower(x, scope))),
            Expr::UnaryOp { op, expr } => {
                let x = self.lower(expr, scope);
                match op {
                    UnaryOperator::Minus => T::Neg(boxed(x)),
                    UnaryOperator::Not => T::Not(boxed(x)),
                    _ => x,
                }
            }
            Expr::BinaryOp { left, op, right } => T::Binary {
                op: bin_op(op),
                left: boxed(self.lower(left, scope)),
                right: boxed(self.lower(right, scope)),
            },
            Expr::Like {
                negated,
                expr,
                pattern,
                ..
            }
            | Expr::ILike {
                negated,
                expr,
                pattern,
                ..
            } => T::Like {
                expr: boxed(self.lower(expr, scope)),
                pattern: boxed(self.lower(pattern, scope)),
                negated: *negated,
                case_insensitive: matches!(e, Expr::ILike { .. }),
            },
            Expr::In {
                expr,
                target,
                negated,
                ..
            } => {
                let x = boxed(self.lower(expr, scope));
                match target {
                    ast::InTarget::List(list) => T::InList {
                        expr: x,
                        list: list.iter().map(|v| self.lower(v, scope)).collect(),
                        negated: *negated,
                    },
                    _ => T::InSubquery {
                        expr: x,
                        negated: *negated,
                    },
                }
            }
            Expr::Exists { negated, .. } => T::Exists { negated: *negated },
            Expr::Subquery(_) => T::Subquery,
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => T::Between {
                expr: boxed(self.lower(expr, scope)),
                low: boxed(self.lower(low, scope)),
                high: boxed(self.lower(high, scope)),
                negated: *negated,
            },
            Expr::IsNull(x) | Expr::IsNotNull(x) => T::IsNull {
                expr: boxed(self.lower(x, scope)),
                negated: matches!(e, Expr::IsNotNull(_)),
            },
            Expr::Cast {
                expr, data_type, ..
            } => T::Cast {
                expr: boxed(self.lower(expr, scope)),
                ty: type_name(data_type),
            },
            Expr::Extract { field, expr, .. } => T::Extract {
                field: Name::from(field.to_string().to_ascii_lowercase()),
                expr: boxed(self.lower(expr, scope)),
            },
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                shorthand,
                ..
            } => T::Substring {
                shorthand: *shorthand,
                expr: boxed(self.lower(expr, scope)),
                from: substring_from
                    .as_deref()
                    .map(|x| boxed(self.lower(x, scope))),
                len: substring_for
                    .as_deref()
                    .map(|x| boxed(self.lower(x, scope))),
            },
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => T::Case {
                operand: operand.as_deref().map(|x| boxed(self.lower(x, scope))),
                whens: conditions
                    .iter()
                    .map(|w| {
                        (
                            self.lower(&w.condition, scope),
                            self.lower(&w.result, scope),
                        )
                    })
                    .collect(),
                otherwise: else_result.as_deref().map(|x| boxed(self.lower(x, scope))),
            },
            Expr::Function(f) => {
                let mut args = Vec::new();
                let mut distinct = false;
                if let FunctionArguments::List(l) = &f.args {
                    distinct = matches!(
                        l.duplicate_treatment,
                        Some(ast::DuplicateTreatment::Distinct)
                    );
                    for a in &l.args {
                        match a {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(x))
                            | FunctionArg::Named {
                                arg: FunctionArgExpr::Expr(x),
                                ..
                            }
                            | FunctionArg::ExprNamed {
                                arg: FunctionArgExpr::Expr(x),
                                ..
                            } => args.push(self.lower(x, scope)),
                            _ => args.push(T::Star),
                        }
                    }
                }
                T::Call {
                    name: Name::from(object_name(&f.name).to_ascii_lowercase()),
                    args,
                    distinct,
                }
            }
            Expr::Wildcard(_) | Expr::QualifiedWildcard(..) => T::Star,
            // What the front end's walk refuses never reaches here; anything else it lets
            // through (IS TRUE, COLLATE, ...) is a call no engine rule reads.
            other => {
                let mut args = Vec::new();
                each_sub_expr(other, &mut |x| args.push(x));
                T::Call {
                    name: Name::from_static("?"),
                    args: args.into_iter().map(|x| self.lower(x, scope)).collect(),
                    distinct: false,
                }
            }
        }
    }

    fn lower_column(&mut self, parts: &[ast::Ident], scope: usize) -> typed::Expr {
        let (qualifier, name) = qualified(parts).unwrap_or((None, ""));
        let bi = self.scopes[scope].block;
        let table = match self.try_resolve(parts, scope) {
            Ok(Resolved::Col(c)) => (c.block == bi).then_some(c.table),
            Ok(Resolved::Expr(inner, s)) => {
                return typed::Expr::Derived {
                    name: Name::from(name),
                    expr: boxed(self.lower(inner, s)),
                }
            }
            Err(_) => None,
        };
        typed::Expr::Column(Column {
            table,
            qualifier: qualifier.map(Name::from),
            name: Name::from(name),
        })
    }
}
