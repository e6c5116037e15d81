//! Typed expressions: what the SQL front end (`costlab-sql`) makes of every condition a
//! query block holds, once, from sqlparser's syntax tree. The planners read these trees
//! and never a query's text: a column names the table reference it belongs to, so the
//! same column name on two references of one table (a self-join) stays two columns.
//!
//! The tree keeps what was written where an engine's rule depends on it: a number's
//! digits (EXPLAIN prints `0.06`, not `0.06000000000000001`), parentheses ([`Expr::Nested`],
//! which PostgreSQL's matching of expression-index keys compares), casts and function
//! names as spelled (lower case, unqualified).

use crate::plan::Name;

/// A column read by an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The table reference of the expression's own block (index into
    /// `QueryBlock::tables`); `None` for a column of an enclosing block (a correlated
    /// sub-select's outer column).
    pub table: Option<usize>,
    /// The qualifier as written (`l1` in `l1.l_orderkey`), if any.
    pub qualifier: Option<Name>,
    /// The column's name as written.
    pub name: Name,
}

impl Column {
    /// The name as the query wrote it, qualifier included (`l1.l_orderkey`).
    pub fn written(&self) -> String {
        match &self.qualifier {
            Some(q) => format!("{q}.{}", self.name),
            None => self.name.to_string(),
        }
    }
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `||`.
    Concat,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// `<->`, the distance operator of geometric types (kNN ordering).
    Distance,
    /// Any other operator, which no engine rule here reads.
    Other,
}

impl BinOp {
    /// `=`, `<>`, `<`, `<=`, `>`, `>=`.
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// `+`, `-`, `*`, `/`.
    pub fn is_arithmetic(self) -> bool {
        matches!(self, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div)
    }

    /// The operator as SQL spells it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Concat => "||",
            BinOp::Eq => "=",
            BinOp::Ne => "<>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Distance => "<->",
            BinOp::Other => "?",
        }
    }
}

/// An expression of a query block.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Column(Column),
    /// A numeric constant, its digits as written (no sign: `-1` is [`Expr::Neg`]).
    Number(Name),
    /// A string constant (quotes removed, `''` read as `'`).
    String(Name),
    /// A constant with its type written before it: `DATE '1998-12-01'`, `point '(1,2)'`.
    Typed {
        ty: Name,
        value: Name,
    },
    /// `INTERVAL '90' DAY`: the value and the unit as written (the unit may be empty).
    Interval {
        value: Name,
        unit: Name,
    },
    Null,
    Bool(bool),
    /// `*`, as in `count(*)` or a select list's `*`.
    Star,
    /// Unary minus.
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary {
        op: BinOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        /// ILIKE.
        case_insensitive: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    /// `x IN (SELECT ...)`: the sub-select is the block's business (a nest or a
    /// sub-query), not the expression's.
    InSubquery {
        expr: Box<Expr>,
        negated: bool,
    },
    Exists {
        negated: bool,
    },
    /// A scalar sub-select.
    Subquery,
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    /// A function or aggregate call: the name lower case and unqualified.
    Call {
        name: Name,
        args: Vec<Expr>,
        distinct: bool,
    },
    /// `x::type` or `CAST(x AS type)`: the type as written, lower case.
    Cast {
        expr: Box<Expr>,
        ty: Name,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    /// `EXTRACT(field FROM x)`: the field lower case.
    Extract {
        field: Name,
        expr: Box<Expr>,
    },
    /// `SUBSTRING(x FROM a FOR b)`.
    Substring {
        expr: Box<Expr>,
        from: Option<Box<Expr>>,
        len: Option<Box<Expr>>,
        /// Written `SUBSTR`.
        shorthand: bool,
    },
    /// Parentheses as written.
    Nested(Box<Expr>),
    /// An output column `name` of a derived table or view merged into the block: the
    /// expression it stands for, in the block's own columns.
    Derived {
        name: Name,
        expr: Box<Expr>,
    },
}

impl Expr {
    /// The expression without the parentheses around it.
    pub fn strip(&self) -> &Expr {
        match self {
            Expr::Nested(e) => e.strip(),
            e => e,
        }
    }

    /// The expression without the parentheses and casts around it.
    pub fn strip_casts(&self) -> &Expr {
        match self {
            Expr::Nested(e) | Expr::Cast { expr: e, .. } => e.strip_casts(),
            e => e,
        }
    }

    /// The expressions directly inside this one, in the order they are written.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column(_)
            | Expr::Number(_)
            | Expr::String(_)
            | Expr::Typed { .. }
            | Expr::Interval { .. }
            | Expr::Null
            | Expr::Bool(_)
            | Expr::Star
            | Expr::Exists { .. }
            | Expr::Subquery => Vec::new(),
            Expr::Neg(e)
            | Expr::Not(e)
            | Expr::InSubquery { expr: e, .. }
            | Expr::IsNull { expr: e, .. }
            | Expr::Cast { expr: e, .. }
            | Expr::Extract { expr: e, .. }
            | Expr::Derived { expr: e, .. }
            | Expr::Nested(e) => vec![e],
            Expr::Binary { left, right, .. } => vec![left, right],
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
            Expr::InList { expr, list, .. } => {
                let mut v: Vec<&Expr> = vec![expr];
                v.extend(list);
                v
            }
            Expr::Between {
                expr, low, high, ..
            } => vec![expr, low, high],
            Expr::Call { args, .. } => args.iter().collect(),
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                let mut v: Vec<&Expr> = operand.iter().map(|b| &**b).collect();
                for (w, t) in whens {
                    v.push(w);
                    v.push(t);
                }
                v.extend(otherwise.iter().map(|b| &**b));
                v
            }
            Expr::Substring {
                expr, from, len, ..
            } => {
                let mut v: Vec<&Expr> = vec![expr];
                v.extend(from.iter().map(|b| &**b));
                v.extend(len.iter().map(|b| &**b));
                v
            }
        }
    }

    /// Calls `f` on every column inside the expression (to renumber table references).
    pub fn for_each_column_mut(&mut self, f: &mut dyn FnMut(&mut Column)) {
        match self {
            Expr::Column(c) => f(c),
            Expr::Neg(e)
            | Expr::Not(e)
            | Expr::InSubquery { expr: e, .. }
            | Expr::IsNull { expr: e, .. }
            | Expr::Cast { expr: e, .. }
            | Expr::Extract { expr: e, .. }
            | Expr::Derived { expr: e, .. }
            | Expr::Nested(e) => e.for_each_column_mut(f),
            Expr::Binary { left, right, .. } => {
                left.for_each_column_mut(f);
                right.for_each_column_mut(f);
            }
            Expr::Like { expr, pattern, .. } => {
                expr.for_each_column_mut(f);
                pattern.for_each_column_mut(f);
            }
            Expr::InList { expr, list, .. } => {
                expr.for_each_column_mut(f);
                list.iter_mut().for_each(|x| x.for_each_column_mut(f));
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                expr.for_each_column_mut(f);
                low.for_each_column_mut(f);
                high.for_each_column_mut(f);
            }
            Expr::Call { args, .. } => args.iter_mut().for_each(|x| x.for_each_column_mut(f)),
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                if let Some(o) = operand {
                    o.for_each_column_mut(f);
                }
                for (w, t) in whens {
                    w.for_each_column_mut(f);
                    t.for_each_column_mut(f);
                }
                if let Some(o) = otherwise {
                    o.for_each_column_mut(f);
                }
            }
            Expr::Substring {
                expr, from, len, ..
            } => {
                expr.for_each_column_mut(f);
                if let Some(x) = from {
                    x.for_each_column_mut(f);
                }
                if let Some(x) = len {
                    x.for_each_column_mut(f);
                }
            }
            Expr::Number(_)
            | Expr::String(_)
            | Expr::Typed { .. }
            | Expr::Interval { .. }
            | Expr::Null
            | Expr::Bool(_)
            | Expr::Star
            | Expr::Exists { .. }
            | Expr::Subquery => {}
        }
    }

    /// Whether the expression reads an output column of a derived table (merged or not):
    /// `derived` says which table references are materialized derived tables.
    pub fn reads_derived(&self, derived: &dyn Fn(usize) -> bool) -> bool {
        let mut found = false;
        self.walk(&mut |e| match e {
            Expr::Derived { .. } => found = true,
            Expr::Column(c) => found |= c.table.is_some_and(derived),
            _ => {}
        });
        found
    }

    /// Calls `f` on this expression and every one inside it, outer first, in the order
    /// they are written.
    pub fn walk<'e>(&'e self, f: &mut dyn FnMut(&'e Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// Every column the expression reads, in the order written (repeats kept).
    pub fn columns(&self) -> Vec<&Column> {
        let mut out = Vec::new();
        self.walk(&mut |e| {
            if let Expr::Column(c) = e {
                out.push(c);
            }
        });
        out
    }

    /// The conjuncts of an AND tree (parentheses looked through); the expression itself
    /// when it is no AND.
    pub fn conjuncts(&self) -> Vec<&Expr> {
        self.split(BinOp::And)
    }

    /// The arms of an OR tree (parentheses looked through).
    pub fn disjuncts(&self) -> Vec<&Expr> {
        self.split(BinOp::Or)
    }

    fn split(&self, which: BinOp) -> Vec<&Expr> {
        match self.strip() {
            Expr::Binary { op, left, right } if *op == which => {
                let mut v = left.split(which);
                v.extend(right.split(which));
                v
            }
            e => vec![e],
        }
    }

    /// The numeric value of a constant (a number, or minus one), if it is one.
    pub fn number(&self) -> Option<f64> {
        match self.strip() {
            Expr::Number(n) => crate::num::parse_f64(n),
            Expr::Neg(e) => e.number().map(|x| -x),
            _ => None,
        }
    }

    /// Whether the expression holds an aggregate call.
    pub fn has_aggregate(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let Expr::Call { name, .. } = e {
                found |= is_aggregate(name);
            }
        });
        found
    }
}

/// SQL text of the expression, close to how it was written (for display where an
/// engine's own printing does not know an expression; never read back).
impl std::fmt::Display for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |v: &[Expr]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let not = |n: bool| if n { "NOT " } else { "" };
        match self {
            Expr::Column(c) => write!(f, "{}", c.written()),
            Expr::Number(n) => write!(f, "{n}"),
            Expr::String(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Expr::Typed { ty, value } => {
                write!(
                    f,
                    "{} '{}'",
                    ty.to_ascii_uppercase(),
                    value.replace('\'', "''")
                )
            }
            Expr::Interval { value, unit } => {
                write!(f, "INTERVAL '{value}' {}", unit.to_ascii_uppercase())
            }
            Expr::Null => write!(f, "NULL"),
            Expr::Bool(b) => write!(f, "{}", if *b { "true" } else { "false" }),
            Expr::Star => write!(f, "*"),
            Expr::Neg(x) => write!(f, "-{x}"),
            Expr::Not(x) => write!(f, "NOT {x}"),
            Expr::Binary { op, left, right } => write!(f, "{left} {} {right}", op.symbol()),
            Expr::Like {
                expr,
                pattern,
                negated,
                case_insensitive,
            } => write!(
                f,
                "{expr} {}{} {pattern}",
                not(*negated),
                if *case_insensitive { "ILIKE" } else { "LIKE" }
            ),
            Expr::InList {
                expr,
                list: l,
                negated,
            } => write!(f, "{expr} {}IN ({})", not(*negated), list(l)),
            Expr::InSubquery { expr, negated } => {
                write!(f, "{expr} {}IN (SELECT ...)", not(*negated))
            }
            Expr::Exists { negated } => write!(f, "{}EXISTS (SELECT ...)", not(*negated)),
            Expr::Subquery => write!(f, "(SELECT ...)"),
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => write!(f, "{expr} {}BETWEEN {low} AND {high}", not(*negated)),
            Expr::IsNull { expr, negated } => write!(f, "{expr} IS {}NULL", not(*negated)),
            Expr::Call {
                name,
                args,
                distinct,
            } => write!(
                f,
                "{name}({}{})",
                if *distinct { "DISTINCT " } else { "" },
                list(args)
            ),
            Expr::Cast { expr, ty } => write!(f, "CAST({expr} AS {})", ty.to_ascii_uppercase()),
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                write!(f, "CASE")?;
                if let Some(o) = operand {
                    write!(f, " {o}")?;
                }
                for (w, t) in whens {
                    write!(f, " WHEN {w} THEN {t}")?;
                }
                if let Some(e) = otherwise {
                    write!(f, " ELSE {e}")?;
                }
                write!(f, " END")
            }
            Expr::Extract { field, expr } => {
                write!(f, "EXTRACT({} FROM {expr})", field.to_ascii_uppercase())
            }
            Expr::Substring {
                expr,
                from,
                len,
                shorthand,
            } => {
                write!(
                    f,
                    "{}({expr}",
                    if *shorthand { "SUBSTR" } else { "SUBSTRING" }
                )?;
                if let Some(x) = from {
                    write!(f, " FROM {x}")?;
                }
                if let Some(x) = len {
                    write!(f, " FOR {x}")?;
                }
                write!(f, ")")
            }
            Expr::Nested(x) => write!(f, "({x})"),
            Expr::Derived { name, .. } => write!(f, "{name}"),
        }
    }
}

/// Whether a (lower-case) function name is one of SQL's aggregates.
pub fn is_aggregate(name: &str) -> bool {
    AGGREGATES.contains(&name)
}

/// The aggregate functions both dialects have (a call of one groups).
pub const AGGREGATES: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "variance",
    "var_pop",
    "var_samp",
    "bool_and",
    "bool_or",
    "bit_and",
    "bit_or",
    "string_agg",
    "array_agg",
    "group_concat",
    "json_agg",
    "jsonb_agg",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn col(t: usize, n: &str) -> Expr {
        Expr::Column(Column {
            table: Some(t),
            qualifier: None,
            name: Name::from(n),
        })
    }

    fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(l),
            right: Box::new(r),
        }
    }

    #[test]
    fn conjuncts_and_disjuncts_look_through_parentheses() {
        let a = bin(BinOp::Eq, col(0, "a"), Expr::Number(Name::from("1")));
        let b = bin(BinOp::Lt, col(1, "b"), Expr::Number(Name::from("2")));
        let c = bin(BinOp::Or, a.clone(), b.clone());
        let e = bin(BinOp::And, Expr::Nested(Box::new(c.clone())), a.clone());
        assert_eq!(e.conjuncts(), vec![&c, &a]);
        assert_eq!(e.conjuncts()[0].disjuncts(), vec![&a, &b]);
        // The same column name on two table references stays two columns.
        let names: Vec<_> = e.columns().iter().map(|c| c.table).collect();
        assert_eq!(names, [Some(0), Some(1), Some(0)]);
    }

    #[test]
    fn constants_and_aggregates() {
        let neg = Expr::Neg(Box::new(Expr::Number(Name::from("0.5"))));
        assert_eq!(neg.number(), Some(-0.5));
        assert_eq!(col(0, "a").number(), None);
        let sum = Expr::Call {
            name: Name::from("sum"),
            args: vec![bin(BinOp::Mul, col(0, "a"), col(0, "b"))],
            distinct: false,
        };
        assert!(bin(BinOp::Div, sum.clone(), Expr::Number(Name::from("7"))).has_aggregate());
        let f = Expr::Call {
            name: Name::from("lower"),
            args: vec![col(0, "a")],
            distinct: false,
        };
        assert!(!f.has_aggregate());
    }
}
