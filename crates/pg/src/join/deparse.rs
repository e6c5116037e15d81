//! Expressions of the DBT3 texts as PostgreSQL's EXPLAIN prints them (ruleutils.c):
//! columns resolved to `alias.column` where the plan has several relations, every
//! operator and comparison in parentheses, aggregate and function names as the server
//! spells them (`sum`, `count(DISTINCT ...)`, `EXTRACT(year FROM ...)`,
//! `SUBSTRING(... FROM 1 FOR 2)`), an integer operand of numeric arithmetic cast
//! (`(ps_availqty)::numeric`, `'1'::numeric`) and a sub-select shown as the Param or
//! SubPlan that replaces it (`$0`, `(SubPlan 1)`). Only display: nothing here is costed.
//!
//! Texts it cannot read come back as `None`; callers then print the SQL as written,
//! which is the closest form there is and never a placeholder.

use super::clauses::{Expr, Lit, Op, Operand};
use costlab_model::expr::Expr as T;

/// The type class of a value, as far as the casts EXPLAIN shows depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Int,
    Numeric,
    Date,
    Text,
    Bpchar,
    Other,
}

impl Ty {
    pub fn of(ty: &costlab_model::catalog::ColumnType) -> Ty {
        use costlab_model::catalog::ColumnType as T;
        match ty {
            T::Int4 | T::Int8 => Ty::Int,
            T::Numeric | T::Float8 => Ty::Numeric,
            T::Date => Ty::Date,
            T::Text => Ty::Text,
            T::Char(_) => Ty::Bpchar,
            T::Bool | T::Point => Ty::Other,
        }
    }

    fn cast_name(self) -> Option<&'static str> {
        match self {
            Ty::Int => Some("integer"),
            Ty::Numeric => Some("numeric"),
            Ty::Date => Some("date"),
            Ty::Text => Some("text"),
            Ty::Bpchar => Some("bpchar"),
            Ty::Other => None,
        }
    }
}

/// How a column name of the text is shown: `(text, type)`, or `None` when unknown.
pub(crate) type Resolve<'r> = &'r dyn Fn(&str) -> Option<(String, Ty)>;

/// A parsed expression, columns already resolved.
#[derive(Clone, Debug)]
enum E {
    Col(String, Ty),
    /// A numeric literal as written; `true` when it has a decimal point.
    Num(String, bool),
    Str(String),
    Op(String, Box<E>, Box<E>),
    Agg {
        name: String,
        distinct: bool,
        arg: Option<Box<E>>,
    },
    Extract(String, Box<E>),
    Substring(Box<E>, String, String),
    /// A sub-select, shown as `text`, of type `ty`.
    Sub(String, Ty),
    /// `x IN (constants)`: `x = ANY (array)`.
    AnyEq(Box<E>, Vec<Lit>),
}

/// A typed expression (the front end's) as the parsed form printed here, columns
/// resolved; a sub-select shown as `sub`, typed by its first select item `sub_item`.
/// `None` for what the printer does not know (LIKE, CASE, casts, other calls, ...).
fn from_typed(e: &T, resolve: Resolve, sub: &str, sub_item: Option<&T>) -> Option<E> {
    let conv = |x: &T| from_typed(x, resolve, sub, sub_item);
    Some(match e {
        T::InList {
            expr,
            list,
            negated: false,
        } => {
            let values = list
                .iter()
                .map(|v| match v {
                    T::String(s) => Some(Lit::Text(s.to_string())),
                    T::Number(n) => costlab_model::num::parse_f64(n).map(Lit::Num),
                    _ => None,
                })
                .collect::<Option<Vec<Lit>>>()?;
            E::AnyEq(Box::new(conv(expr)?), values)
        }
        T::Binary { op, left, right } if op.is_comparison() || op.is_arithmetic() => E::Op(
            op.symbol().to_string(),
            Box::new(conv(left)?),
            Box::new(conv(right)?),
        ),
        T::Nested(x) | T::Derived { expr: x, .. } => conv(x)?,
        T::Number(n) => E::Num(n.to_string(), n.contains('.')),
        T::String(s) => E::Str(s.to_string()),
        T::Subquery => {
            // Its columns belong to the sub-select's relations: only their types matter,
            // and an unknown one leaves the constants to decide.
            let typed = move |n: &str| resolve(n).or_else(|| Some((n.to_string(), Ty::Other)));
            let ty = sub_item
                .and_then(|i| from_typed(i, &typed, "", None))
                .map_or(Ty::Other, |e| ty_of(&e));
            E::Sub(sub.to_string(), ty)
        }
        T::Column(c) => {
            let (text, ty) = resolve(&c.written())?;
            E::Col(text, ty)
        }
        T::Call {
            name,
            args,
            distinct,
        } if ["sum", "avg", "min", "max", "count"].contains(&name.as_str()) => {
            match args.as_slice() {
                [T::Star] if !distinct => E::Agg {
                    name: name.to_string(),
                    distinct: false,
                    arg: None,
                },
                [a] => E::Agg {
                    name: name.to_string(),
                    distinct: *distinct,
                    arg: Some(Box::new(conv(a)?)),
                },
                _ => return None,
            }
        }
        T::Extract { field, expr } => E::Extract(field.to_ascii_lowercase(), Box::new(conv(expr)?)),
        T::Substring {
            expr,
            from: Some(from),
            len: Some(len),
            ..
        } => match (&**from, &**len) {
            (T::Number(f), T::Number(l)) => {
                E::Substring(Box::new(conv(expr)?), f.to_string(), l.to_string())
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// A typed sort or grouping key as EXPLAIN prints it (show_sort_group_keys): a column
/// as it is, any other expression in parentheses.
pub(crate) fn typed_key_text(e: &T, resolve: Resolve) -> Option<String> {
    from_typed(e, resolve, "", None).map(|e| match e {
        E::Col(t, _) => t,
        other => format!("({})", print(&other)),
    })
}

/// A typed expression (a value or a comparison) as EXPLAIN prints it, a sub-select as
/// `sub` (typed by the sub-select's first item `sub_item`).
pub(crate) fn typed_text(
    e: &T,
    resolve: Resolve,
    sub: &str,
    sub_item: Option<&T>,
) -> Option<String> {
    from_typed(e, resolve, sub, sub_item).map(|e| print(&e))
}

fn ty_of(e: &E) -> Ty {
    match e {
        E::Col(_, t) | E::Sub(_, t) => *t,
        E::Num(_, true) => Ty::Numeric,
        E::Num(_, false) => Ty::Int,
        E::Str(_) | E::AnyEq(..) => Ty::Other,
        E::Op(op, l, r) => {
            if ["=", "<>", "<", "<=", ">", ">="].contains(&op.as_str()) {
                Ty::Other
            } else if ty_of(l) == Ty::Numeric || ty_of(r) == Ty::Numeric {
                Ty::Numeric
            } else {
                ty_of(l)
            }
        }
        E::Agg { name, arg, .. } => match (name.as_str(), arg) {
            ("count", _) => Ty::Int,
            ("avg", _) => Ty::Numeric,
            (_, Some(a)) => ty_of(a),
            (_, None) => Ty::Other,
        },
        E::Extract(..) => Ty::Numeric,
        E::Substring(..) => Ty::Text,
    }
}

/// The expression as ruleutils prints it where its type is what it is.
fn print(e: &E) -> String {
    match e {
        E::Col(t, _) | E::Sub(t, _) => t.clone(),
        E::Num(n, _) => n.clone(),
        E::Str(s) => format!("'{}'", s.replace('\'', "''")),
        E::Op(op, l, r) => {
            let (lt, rt) = (ty_of(l), ty_of(r));
            // The parser casts an integer operand of numeric arithmetic or comparison.
            let want = if lt == Ty::Numeric || rt == Ty::Numeric {
                Some(Ty::Numeric)
            } else {
                None
            };
            // A string literal takes the other side's type.
            let (ls, rs) = match (&**l, &**r) {
                (E::Str(_), _) => (print_as(l, Some(rt)), print_as(r, want)),
                (_, E::Str(_)) => (print_as(l, want), print_as(r, Some(lt))),
                _ => (print_as(l, want), print_as(r, want)),
            };
            format!("({ls} {op} {rs})")
        }
        E::Agg {
            name,
            distinct,
            arg,
        } => match arg {
            None => format!("{name}(*)"),
            Some(a) => format!(
                "{name}({}{})",
                if *distinct { "DISTINCT " } else { "" },
                print(a)
            ),
        },
        E::Extract(field, x) => format!("EXTRACT({field} FROM {})", print(x)),
        E::Substring(x, from, len) => format!("SUBSTRING({} FROM {from} FOR {len})", print(x)),
        E::AnyEq(x, values) => {
            let ty = ty_of(x);
            let elems: Vec<String> = values.iter().map(array_elem).collect();
            format!(
                "({} = ANY ('{{{}}}'::{}[]))",
                print_as(x, None),
                elems.join(","),
                ty.cast_name().unwrap_or("text")
            )
        }
    }
}

/// The expression coerced to `want` where the parser would cast it.
fn print_as(e: &E, want: Option<Ty>) -> String {
    match (e, want) {
        (E::Str(s), Some(t)) => match t.cast_name() {
            Some(c) => format!("'{}'::{c}", s.replace('\'', "''")),
            None => print(e),
        },
        // An integer constant made numeric is a numeric Const: quoted with its type.
        (E::Num(n, false), Some(Ty::Numeric)) => format!("'{n}'::numeric"),
        (E::Num(..), _) => print(e),
        (_, Some(Ty::Numeric)) if ty_of(e) == Ty::Int => format!("({})::numeric", print(e)),
        _ => print(e),
    }
}

/// A constant of the parsed conditions (`clauses::Lit`) compared with a column of type
/// `ty`, as ruleutils prints the Const the parser made of it.
fn lit_text(l: &Lit, ty: Ty) -> String {
    match (l, ty) {
        (Lit::Num(x), Ty::Int) if x.fract() == 0.0 => format!("{x}"),
        // A numeric Const prints bare when it looks like a decimal, quoted otherwise.
        (Lit::Num(x), Ty::Numeric) if x.fract() != 0.0 && *x > 0.0 => format!("{x}"),
        (Lit::Num(x), t) => format!("'{x}'::{}", t.cast_name().unwrap_or("numeric")),
        (Lit::Text(s), Ty::Text | Ty::Other) => format!("'{}'::text", s.replace('\'', "''")),
        (Lit::Text(s), t) => format!(
            "'{}'::{}",
            s.replace('\'', "''"),
            t.cast_name().unwrap_or("text")
        ),
    }
}

/// One element of an array literal (array_out): quoted when it holds a blank, a comma,
/// a brace, a quote or a backslash.
fn array_elem(l: &Lit) -> String {
    let s = match l {
        Lit::Num(x) => format!("{x}"),
        Lit::Text(s) => s.clone(),
    };
    if s.is_empty() || s.contains([' ', ',', '{', '}', '"', '\\']) {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        s
    }
}

/// A column as an operand: varchar columns are relabelled to text (`(p_type)::text`).
fn col_operand(text: &str, ty: Ty) -> String {
    if ty == Ty::Text {
        format!("({text})::text")
    } else {
        text.to_string()
    }
}

/// A parsed condition (`clauses::Expr`) as EXPLAIN prints the qual PostgreSQL made of it:
/// BETWEEN as two comparisons, IN lists as `= ANY (array)`, LIKE as `~~`, every clause
/// and every AND / OR list in parentheses. `None` when a part is beyond the reader.
pub(crate) fn cond_text(e: &Expr, resolve: Resolve) -> Option<String> {
    let col = |c: &str| resolve(c);
    Some(match e {
        Expr::And(v) | Expr::Or(v) => {
            let sep = if matches!(e, Expr::And(_)) {
                " AND "
            } else {
                " OR "
            };
            let parts: Option<Vec<String>> = v.iter().map(|x| cond_text(x, resolve)).collect();
            format!("({})", parts?.join(sep))
        }
        Expr::Not(x) => match &**x {
            Expr::In { col: c, values } => {
                let (t, ty) = col(c)?;
                let elems: Vec<String> = values.iter().map(array_elem).collect();
                format!(
                    "({} <> ALL ('{{{}}}'::{}[]))",
                    col_operand(&t, ty),
                    elems.join(","),
                    ty.cast_name()?
                )
            }
            other => format!("(NOT {})", cond_text(other, resolve)?),
        },
        Expr::Cmp { col: c, op, rhs } => {
            let (t, ty) = col(c)?;
            let sym = op_symbol(*op);
            match rhs {
                Operand::Lit(l) => format!("({} {sym} {})", col_operand(&t, ty), lit_text(l, ty)),
                Operand::Col(r) => {
                    let (rt, rty) = col(r)?;
                    format!("({} {sym} {})", col_operand(&t, ty), col_operand(&rt, rty))
                }
                Operand::Other => return None,
            }
        }
        Expr::In { col: c, values } => {
            let (t, ty) = col(c)?;
            let elems: Vec<String> = values.iter().map(array_elem).collect();
            format!(
                "({} = ANY ('{{{}}}'::{}[]))",
                col_operand(&t, ty),
                elems.join(","),
                ty.cast_name()?
            )
        }
        Expr::Between { col: c, lo, hi } => {
            let (t, ty) = col(c)?;
            let t = col_operand(&t, ty);
            format!(
                "(({t} >= {}) AND ({t} <= {}))",
                lit_text(lo, ty),
                lit_text(hi, ty)
            )
        }
        Expr::Like {
            col: c,
            pat,
            negated,
        } => {
            let (t, ty) = col(c)?;
            format!(
                "({} {} '{}'::text)",
                col_operand(&t, ty),
                if *negated { "!~~" } else { "~~" },
                pat.replace('\'', "''")
            )
        }
        Expr::Other => return None,
    })
}

fn op_symbol(op: Op) -> &'static str {
    match op {
        Op::Eq => "=",
        Op::Ne => "<>",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Gt => ">",
        Op::Ge => ">=",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(name: &str) -> Option<(String, Ty)> {
        let bare = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
        let (alias, ty) = match bare.as_str() {
            "l_extendedprice" | "l_discount" | "l_quantity" => ("lineitem", Ty::Numeric),
            "l_shipdate" => ("lineitem", Ty::Date),
            "ps_supplycost" => ("partsupp", Ty::Numeric),
            "ps_availqty" | "ps_suppkey" => ("partsupp", Ty::Int),
            "o_orderdate" => ("orders", Ty::Date),
            "c_phone" => ("customer", Ty::Bpchar),
            _ => return None,
        };
        Some((format!("{alias}.{bare}"), ty))
    }

    /// A DBT3 query's block, read by the front end.
    fn block(sql: &str) -> costlab_model::block::QueryBlock {
        use std::sync::OnceLock;
        static T: OnceLock<Vec<costlab_model::catalog::Table>> = OnceLock::new();
        let tables = T.get_or_init(|| costlab_workload::dbt3::catalog::dbt3(0.01).unwrap().pg);
        costlab_sql::read_query(sql, costlab_sql::Dialect::Postgres, tables).unwrap()
    }

    /// The first select item of `SELECT {item} FROM {from}`.
    fn item(item: &str, from: &str) -> T {
        block(&format!("SELECT {item} FROM {from}")).select[0]
            .expr
            .clone()
    }

    /// Each expected text is the real server's (PostgreSQL 15, DBT3 SF 0.1; the lines
    /// are quoted in pg_join_tests.rs's `SERVER_TEXT`).
    #[test]
    fn prints_what_postgres_15_prints() {
        let e = |x: &T| typed_text(x, &cols, "", None).unwrap();
        let key = |x: &T| typed_key_text(x, &cols).unwrap();
        assert_eq!(
            e(&item("SUM(l_extendedprice*(1-l_discount))", "lineitem")),
            "sum((lineitem.l_extendedprice * ('1'::numeric - lineitem.l_discount)))"
        );
        let q11 = block(
            "SELECT ps_partkey FROM partsupp GROUP BY ps_partkey
             HAVING SUM(ps_supplycost*ps_availqty) > (SELECT SUM(ps_supplycost*ps_availqty) * 0.0001 FROM partsupp)",
        );
        let sub_item = &q11.subqueries[0].block.select[0].expr;
        assert_eq!(
            typed_text(q11.having.as_ref().unwrap(), &cols, "$1", Some(sub_item)).unwrap(),
            "(sum((partsupp.ps_supplycost * (partsupp.ps_availqty)::numeric)) > $1)"
        );
        let q18 = block(
            "SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING SUM(l_quantity) > 300",
        );
        assert_eq!(
            e(q18.having.as_ref().unwrap()),
            "(sum(lineitem.l_quantity) > '300'::numeric)"
        );
        let q20 = block(
            "SELECT ps_suppkey FROM partsupp WHERE ps_availqty > (SELECT 0.5 * SUM(l_quantity) FROM lineitem)",
        );
        let sub_item = &q20.subqueries[0].block.select[0].expr;
        assert_eq!(
            typed_text(&q20.filters[0].expr, &cols, "(SubPlan 1)", Some(sub_item)).unwrap(),
            "((partsupp.ps_availqty)::numeric > (SubPlan 1))"
        );
        assert_eq!(
            key(&item("EXTRACT(YEAR FROM o_orderdate)", "orders")),
            "(EXTRACT(year FROM orders.o_orderdate))"
        );
        assert_eq!(
            key(&item("SUBSTR(c_phone FROM 1 FOR 2)", "customer")),
            "(SUBSTRING(customer.c_phone FROM 1 FOR 2))"
        );
        assert_eq!(
            key(&item("COUNT(DISTINCT ps_suppkey)", "partsupp")),
            "(count(DISTINCT partsupp.ps_suppkey))"
        );
        assert_eq!(key(&item("COUNT(*)", "partsupp")), "(count(*))");
        assert_eq!(key(&item("o_orderdate", "orders")), "orders.o_orderdate");
        // What the printer does not know is left to the caller, never made up.
        assert_eq!(
            typed_text(
                &item("CASE WHEN o_orderkey > 1 THEN 1 END", "orders"),
                &cols,
                "",
                None
            ),
            None
        );
        assert_eq!(
            typed_text(&item("o_custkey > 1", "orders"), &cols, "", None),
            None
        );
    }
}
