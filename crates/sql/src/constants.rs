//! Constants folded as the servers compute them: numbers in decimal, texts, dates and
//! intervals (`DATE '...'`, MySQL's `DATE_ADD` / `DATE_SUB`).

use sqlparser::ast::{
    self, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Spanned,
    UnaryOperator, Value as SqlValue,
};
use sqlparser::tokenizer::Span;

use costlab_model::catalog::{ColumnType, Value};
use costlab_model::error::Result;

use crate::exprs::object_name;
use crate::reader::Reader;

/// Decimal places of a number literal.
pub(crate) fn decimals(s: &str) -> i32 {
    s.split_once('.').map_or(0, |(_, f)| {
        f.chars().take_while(|c| c.is_ascii_digit()).count() as i32
    })
}

/// A folded constant: a number with its decimal places (DECIMAL arithmetic keeps `0.06 -
/// 0.01` at 0.05), a text, or a date in days.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Const {
    Num(f64, i32),
    Text(String),
    Date(i64),
    /// An interval: months and days.
    Interval(i64, i64),
}

pub(crate) fn add_months(days: i64, months: i64) -> i64 {
    let (y, m, d) = costlab_model::date::civil_from_days(days);
    let total = y * 12 + (m - 1) + months;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) + 1);
    let nd = d.min(costlab_model::date::days_in_month(ny, nm));
    costlab_model::date::days_from_civil(ny, nm, nd)
}

impl<'a> Reader<'a> {
    /// A constant as a value compared with a column of type `ty` (texts become dates for
    /// date columns); `None` when `e` is not a constant.
    pub(crate) fn value(&self, e: &Expr, ty: &ColumnType) -> Result<Option<Value>> {
        Ok(match self.constant(e)? {
            Some(Const::Num(n, _)) => Some(Value::Num(n)),
            Some(Const::Date(d)) => Some(Value::Num(d as f64)),
            Some(Const::Text(s)) if *ty == ColumnType::Date => {
                let d = costlab_model::date::parse(&s)
                    .map_err(|er| self.err(e.span(), er.to_string()))?;
                Some(Value::Num(d as f64))
            }
            Some(Const::Text(s)) => Some(Value::Text(s)),
            Some(Const::Interval(..)) | None => None,
        })
    }

    /// Folds a constant expression; `None` when it reads a column or anything unknown.
    pub(crate) fn constant(&self, e: &Expr) -> Result<Option<Const>> {
        let date_of = |c: Const, span: Span| -> Result<Option<i64>> {
            Ok(match c {
                Const::Date(d) => Some(d),
                Const::Text(s) => Some(
                    costlab_model::date::parse(&s).map_err(|er| self.err(span, er.to_string()))?,
                ),
                _ => None,
            })
        };
        Ok(match e {
            Expr::Nested(x) => self.constant(x)?,
            Expr::Value(v) => match &v.value {
                SqlValue::Number(s, _) => s.parse::<f64>().ok().map(|n| Const::Num(n, decimals(s))),
                SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => {
                    Some(Const::Text(s.clone()))
                }
                SqlValue::Boolean(b) => Some(Const::Num(if *b { 1.0 } else { 0.0 }, 0)),
                _ => None,
            },
            Expr::TypedString(ts) => {
                let s = match &ts.value.value {
                    SqlValue::SingleQuotedString(s) => s.clone(),
                    _ => return Ok(None),
                };
                match &ts.data_type {
                    ast::DataType::Date => Some(Const::Date(
                        costlab_model::date::parse(&s)
                            .map_err(|er| self.err(e.span(), er.to_string()))?,
                    )),
                    _ => Some(Const::Text(s)),
                }
            }
            Expr::Cast {
                expr, data_type, ..
            } => match (self.constant(expr)?, data_type) {
                (Some(c), ast::DataType::Date) => date_of(c, e.span())?.map(Const::Date),
                (c, _) => c,
            },
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } => match self.constant(expr)? {
                Some(Const::Num(n, d)) => Some(Const::Num(-n, d)),
                _ => None,
            },
            Expr::UnaryOp {
                op: UnaryOperator::Plus,
                expr,
            } => self.constant(expr)?,
            Expr::Interval(i) => self.interval(i)?,
            Expr::BinaryOp { left, op, right } => {
                let (Some(a), Some(b)) = (self.constant(left)?, self.constant(right)?) else {
                    return Ok(None);
                };
                self.arith(a, op, b, e.span())?
            }
            Expr::Function(f) => {
                let name = object_name(&f.name).to_ascii_lowercase();
                let args: Vec<&Expr> = match &f.args {
                    FunctionArguments::List(l) => l
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                            _ => None,
                        })
                        .collect(),
                    _ => return Ok(None),
                };
                match (name.as_str(), args.as_slice()) {
                    ("date_add" | "adddate" | "date_sub" | "subdate", [d, i]) => {
                        let (Some(d), Some(iv)) = (self.constant(d)?, self.constant(i)?) else {
                            return Ok(None);
                        };
                        let op = if name.starts_with("date_add") || name == "adddate" {
                            BinaryOperator::Plus
                        } else {
                            BinaryOperator::Minus
                        };
                        let d = match d {
                            Const::Text(_) | Const::Date(_) => {
                                date_of(d, e.span())?.map(Const::Date)
                            }
                            _ => None,
                        };
                        match d {
                            Some(d) => self.arith(d, &op, iv, e.span())?,
                            None => None,
                        }
                    }
                    ("date", [d]) => match self.constant(d)? {
                        Some(c) => date_of(c, e.span())?.map(Const::Date),
                        None => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        })
    }

    pub(crate) fn interval(&self, i: &ast::Interval) -> Result<Option<Const>> {
        let (n, unit_in_text) = match self.constant(&i.value)? {
            Some(Const::Num(n, _)) => (n, None),
            Some(Const::Text(s)) => {
                let mut it = s.split_whitespace();
                let n: f64 = match it.next().and_then(|x| x.parse().ok()) {
                    Some(n) => n,
                    None => {
                        return Err(
                            self.err(i.value.span(), format!("cannot read the interval '{s}'"))
                        )
                    }
                };
                (n, it.next().map(|u| u.to_ascii_lowercase()))
            }
            _ => return Ok(None),
        };
        let unit = match (&i.leading_field, unit_in_text) {
            (Some(f), _) => f.to_string().to_ascii_lowercase(),
            (None, Some(u)) => u,
            (None, None) => return Err(self.err(i.value.span(), "an interval needs a unit")),
        };
        if n.fract() != 0.0 {
            return Err(self.not_modelled(i.value.span(), "a fractional interval"));
        }
        let n = n as i64;
        Ok(Some(match unit.trim_end_matches('s') {
            "day" => Const::Interval(0, n),
            "week" => Const::Interval(0, 7 * n),
            "month" | "mon" => Const::Interval(n, 0),
            "quarter" => Const::Interval(3 * n, 0),
            "year" => Const::Interval(12 * n, 0),
            u => return Err(self.not_modelled(i.value.span(), &format!("an interval in {u}s"))),
        }))
    }

    pub(crate) fn arith(
        &self,
        a: Const,
        op: &BinaryOperator,
        b: Const,
        span: Span,
    ) -> Result<Option<Const>> {
        use BinaryOperator as B;
        Ok(match (a, op, b) {
            (Const::Num(x, dx), op, Const::Num(y, dy)) => {
                let scale = dx.max(dy);
                let round = |v: f64| {
                    let f = 10f64.powi(scale);
                    (v * f).round() / f
                };
                match op {
                    B::Plus => Some(Const::Num(round(x + y), scale)),
                    B::Minus => Some(Const::Num(round(x - y), scale)),
                    B::Multiply => Some(Const::Num(x * y, dx + dy)),
                    B::Divide if y != 0.0 => Some(Const::Num(x / y, dx.max(dy).max(6))),
                    _ => None,
                }
            }
            (
                d @ (Const::Date(_) | Const::Text(_)),
                B::Plus | B::Minus,
                Const::Interval(m, days),
            ) => {
                let d = match d {
                    Const::Date(d) => d,
                    Const::Text(s) => costlab_model::date::parse(&s)
                        .map_err(|er| self.err(span, er.to_string()))?,
                    _ => unreachable!("matched"),
                };
                let sign = if matches!(op, B::Minus) { -1 } else { 1 };
                Some(Const::Date(add_months(d, sign * m) + sign * days))
            }
            (Const::Date(d), B::Plus, Const::Num(n, 0)) => Some(Const::Date(d + n as i64)),
            (Const::Date(d), B::Minus, Const::Num(n, 0)) => Some(Const::Date(d - n as i64)),
            _ => None,
        })
    }
}
