//! A small reader for the condition and select-list texts of the DBT3 queries: enough
//! of SQL's boolean expressions to estimate a filter the way PostgreSQL's clause
//! selectivity code would (comparisons, IN lists, BETWEEN, LIKE, AND/OR/NOT), and to count
//! the operators an aggregate's argument evaluates (§5.1). Anything it cannot read becomes
//! [`Expr::Other`], which the planner estimates with PostgreSQL's defaults.

use costlab_model::expr::{BinOp, Expr as T};

/// A literal.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lit {
    Num(f64),
    Text(String),
}

/// The right side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Operand {
    Lit(Lit),
    Col(String),
    /// A sub-select, a function call or anything else not a plain column or constant.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Cmp {
        col: String,
        op: Op,
        rhs: Operand,
    },
    In {
        col: String,
        values: Vec<Lit>,
    },
    Between {
        col: String,
        lo: Lit,
        hi: Lit,
    },
    Like {
        col: String,
        pat: String,
        negated: bool,
    },
    Other,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(f64),
    Str(String),
    Sym(String),
    LParen,
    RParen,
    Comma,
}

fn tokenize(s: &str) -> Vec<Tok> {
    let b: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '\'' {
            let mut t = String::new();
            i += 1;
            while i < b.len() {
                if b[i] == '\'' {
                    if b.get(i + 1) == Some(&'\'') {
                        t.push('\'');
                        i += 2;
                        continue;
                    }
                    break;
                }
                t.push(b[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(t));
        } else if c.is_ascii_digit()
            || (c == '.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let st = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == '.') {
                i += 1;
            }
            let t: String = b[st..i].iter().collect();
            out.push(Tok::Num(t.parse().unwrap_or(0.0)));
        } else if c.is_alphanumeric() || c == '_' {
            let st = i;
            while i < b.len()
                && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.' || b[i] == '#')
            {
                i += 1;
            }
            out.push(Tok::Ident(b[st..i].iter().collect()));
        } else if c == '(' {
            out.push(Tok::LParen);
            i += 1;
        } else if c == ')' {
            out.push(Tok::RParen);
            i += 1;
        } else if c == ',' {
            out.push(Tok::Comma);
            i += 1;
        } else {
            let two: String = b[i..(i + 2).min(b.len())].iter().collect();
            if b[i..].starts_with(&['<', '-', '>']) {
                // The distance operator (geometric types, kNN ordering).
                out.push(Tok::Sym("<->".into()));
                i += 3;
            } else if ["<>", "<=", ">=", "!="].contains(&two.as_str()) {
                out.push(Tok::Sym(two));
                i += 2;
            } else {
                out.push(Tok::Sym(c.to_string()));
                i += 1;
            }
        }
    }
    out
}

struct P {
    t: Vec<Tok>,
    i: usize,
}

fn kw(t: Option<&Tok>, k: &str) -> bool {
    matches!(t, Some(Tok::Ident(s)) if s.eq_ignore_ascii_case(k))
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn bump(&mut self) -> Option<Tok> {
        let t = self.t.get(self.i).cloned();
        self.i += 1;
        t
    }
    fn or(&mut self) -> Expr {
        let mut v = vec![self.and()];
        while kw(self.peek(), "OR") {
            self.i += 1;
            v.push(self.and());
        }
        if v.len() == 1 {
            v.pop().unwrap_or(Expr::Other)
        } else {
            Expr::Or(v)
        }
    }
    fn and(&mut self) -> Expr {
        let mut v = vec![self.not()];
        while kw(self.peek(), "AND") {
            self.i += 1;
            v.push(self.not());
        }
        if v.len() == 1 {
            v.pop().unwrap_or(Expr::Other)
        } else {
            Expr::And(v)
        }
    }
    fn not(&mut self) -> Expr {
        if kw(self.peek(), "NOT") {
            self.i += 1;
            return Expr::Not(Box::new(self.not()));
        }
        self.atom()
    }
    /// Skips a balanced parenthesised group (the opening paren already consumed).
    fn skip_group(&mut self) {
        let mut depth = 1;
        while let Some(t) = self.bump() {
            match t {
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }
    /// A constant, folding `a + b` / `a - b` of numbers.
    fn lit(&mut self) -> Option<Lit> {
        let first = match self.bump()? {
            Tok::Num(x) => Lit::Num(x),
            Tok::Str(s) => Lit::Text(s),
            Tok::Sym(s) if s == "-" => match self.bump()? {
                Tok::Num(x) => Lit::Num(-x),
                _ => return None,
            },
            _ => return None,
        };
        let mut v = first;
        while let (Lit::Num(a), Some(Tok::Sym(s))) = (&v, self.peek()) {
            let sign = match s.as_str() {
                "+" => 1.0,
                "-" => -1.0,
                _ => break,
            };
            let a = *a;
            self.i += 1;
            match self.bump() {
                Some(Tok::Num(b)) => v = Lit::Num(a + sign * b),
                _ => return None,
            }
        }
        Some(v)
    }
    fn atom(&mut self) -> Expr {
        match self.peek().cloned() {
            Some(Tok::LParen) => {
                self.i += 1;
                if kw(self.peek(), "SELECT") {
                    self.skip_group();
                    return Expr::Other;
                }
                let e = self.or();
                if self.peek() == Some(&Tok::RParen) {
                    self.i += 1;
                }
                e
            }
            Some(Tok::Ident(name)) => {
                self.i += 1;
                if self.peek() == Some(&Tok::LParen) {
                    // A function call: skip it and whatever comparison follows.
                    self.i += 1;
                    self.skip_group();
                    self.skip_rest();
                    return Expr::Other;
                }
                self.predicate(name)
            }
            _ => {
                self.skip_rest();
                Expr::Other
            }
        }
    }
    /// Skips to the next AND / OR / closing paren at this depth.
    fn skip_rest(&mut self) {
        while let Some(t) = self.peek() {
            match t {
                Tok::RParen => return,
                Tok::Ident(s) if s.eq_ignore_ascii_case("AND") || s.eq_ignore_ascii_case("OR") => {
                    return
                }
                Tok::LParen => {
                    self.i += 1;
                    self.skip_group();
                }
                _ => self.i += 1,
            }
        }
    }
    fn predicate(&mut self, col: String) -> Expr {
        let negated = kw(self.peek(), "NOT");
        if negated {
            self.i += 1;
        }
        let t = self.peek().cloned();
        let e = match t {
            Some(Tok::Ident(k)) if k.eq_ignore_ascii_case("LIKE") => {
                self.i += 1;
                match self.bump() {
                    Some(Tok::Str(pat)) => Expr::Like { col, pat, negated },
                    _ => Expr::Other,
                }
            }
            Some(Tok::Ident(k)) if k.eq_ignore_ascii_case("IN") => {
                self.i += 1;
                if self.bump() != Some(Tok::LParen) {
                    return Expr::Other;
                }
                if kw(self.peek(), "SELECT") {
                    self.skip_group();
                    return Expr::Other;
                }
                let mut values = Vec::new();
                loop {
                    match self.lit() {
                        Some(l) => values.push(l),
                        None => {
                            self.skip_group();
                            return Expr::Other;
                        }
                    }
                    match self.bump() {
                        Some(Tok::Comma) => continue,
                        Some(Tok::RParen) => break,
                        _ => return Expr::Other,
                    }
                }
                let e = Expr::In { col, values };
                if negated {
                    return Expr::Not(Box::new(e));
                }
                e
            }
            Some(Tok::Ident(k)) if k.eq_ignore_ascii_case("BETWEEN") => {
                self.i += 1;
                let lo = self.lit();
                if !kw(self.peek(), "AND") {
                    return Expr::Other;
                }
                self.i += 1;
                let hi = self.lit();
                match (lo, hi) {
                    (Some(lo), Some(hi)) => Expr::Between { col, lo, hi },
                    _ => Expr::Other,
                }
            }
            Some(Tok::Sym(s)) => {
                let Some(op) = comparison(&s) else {
                    self.skip_rest();
                    return Expr::Other;
                };
                self.i += 1;
                let rhs = match self.peek().cloned() {
                    Some(Tok::Ident(c)) => {
                        self.i += 1;
                        if self.peek() == Some(&Tok::LParen) {
                            self.i += 1;
                            self.skip_group();
                            Operand::Other
                        } else {
                            Operand::Col(c)
                        }
                    }
                    Some(Tok::LParen) => {
                        self.i += 1;
                        self.skip_group();
                        Operand::Other
                    }
                    _ => match self.lit() {
                        Some(l) => Operand::Lit(l),
                        None => Operand::Other,
                    },
                };
                // Arithmetic after a column or sub-select: not a plain comparison.
                if matches!(self.peek(), Some(Tok::Sym(s)) if s == "*" || s == "+" || s == "-" || s == "/")
                {
                    self.skip_rest();
                    return Expr::Cmp {
                        col,
                        op,
                        rhs: Operand::Other,
                    };
                }
                Expr::Cmp { col, op, rhs }
            }
            _ => {
                self.skip_rest();
                Expr::Other
            }
        };
        e
    }
}

/// A typed condition (the front end's, [`costlab_model::expr`]) as the restriction
/// clause shapes clause selectivity reads: a column compared with a constant or another
/// column, IN lists and BETWEEN of constants, LIKE with a constant pattern, AND / OR /
/// NOT of those; anything else is [`Expr::Other`], estimated with PostgreSQL's defaults.
/// The column's side must be a bare column (`(a) > 1`, `a + b > 1` and `1 < a` are
/// Other); a constant side folds `1 + 2` and takes a cast of a constant.
pub(crate) fn condition(e: &T) -> Expr {
    // A merged derived table's column is the expression it stands for (the planner's
    // pull_up_subqueries flattened it).
    let inlined = inline_derived(e);
    let e: &T = &inlined;
    match e {
        T::Nested(x) => condition(x),
        T::Binary {
            op: BinOp::And | BinOp::Or,
            ..
        } => {
            let and = matches!(e, T::Binary { op: BinOp::And, .. });
            let arms: Vec<Expr> = if and { e.conjuncts() } else { e.disjuncts() }
                .into_iter()
                .map(condition)
                .collect();
            if and {
                Expr::And(arms)
            } else {
                Expr::Or(arms)
            }
        }
        T::Not(x) => Expr::Not(Box::new(condition(x))),
        T::Like {
            expr,
            pattern,
            negated,
            case_insensitive: false,
        } => match (&**expr, pattern.strip()) {
            (T::Column(c), T::String(p)) => Expr::Like {
                col: c.written(),
                pat: p.to_string(),
                negated: *negated,
            },
            _ => Expr::Other,
        },
        T::InList {
            expr,
            list,
            negated,
        } => {
            let T::Column(c) = &**expr else {
                return Expr::Other;
            };
            let Some(values) = list.iter().map(constant).collect::<Option<Vec<Lit>>>() else {
                return Expr::Other;
            };
            let e = Expr::In {
                col: c.written(),
                values,
            };
            if *negated {
                Expr::Not(Box::new(e))
            } else {
                e
            }
        }
        T::Between {
            expr,
            low,
            high,
            negated,
        } => match (&**expr, constant(low), constant(high)) {
            (T::Column(c), Some(lo), Some(hi)) => {
                let e = Expr::Between {
                    col: c.written(),
                    lo,
                    hi,
                };
                if *negated {
                    Expr::Not(Box::new(e))
                } else {
                    e
                }
            }
            _ => Expr::Other,
        },
        T::Binary { op, left, right } if op.is_comparison() => {
            let T::Column(c) = &**left else {
                return Expr::Other;
            };
            let rhs = match right.strip() {
                T::Column(r) if !matches!(&**right, T::Nested(_)) => Operand::Col(r.written()),
                _ => constant(right).map_or(Operand::Other, Operand::Lit),
            };
            Expr::Cmp {
                col: c.written(),
                op: comparison_of(*op),
                rhs,
            }
        }
        _ => Expr::Other,
    }
}

/// Operator and function calls an expression evaluates per row, as cost_qual_eval
/// counts them at procost 1: arithmetic, comparisons, `<->`, unary minus, LIKE, every
/// function or aggregate call (and EXTRACT, SUBSTRING); casts, CASE, AND / OR, IN lists,
/// BETWEEN and constants are free here. A `*` counts one, as the text reader it replaced
/// counted it; no cost reads that count (a select list's `*` and `count(*)`'s argument
/// are free in `tlist` and `prepagg`), so it is kept only to keep every count as it was.
pub(crate) fn op_count(e: &T) -> f64 {
    let mut n = 0.0;
    e.walk(&mut |x| match x {
        T::Binary { op, .. }
            if op.is_arithmetic() || op.is_comparison() || *op == BinOp::Distance =>
        {
            n += 1.0
        }
        T::Neg(_) | T::Star | T::Call { .. } | T::Extract { .. } | T::Substring { .. } => n += 1.0,
        T::Like {
            case_insensitive: false,
            ..
        } => n += 1.0,
        _ => {}
    });
    n
}

/// The aggregate calls of an expression, in the order the model has always counted
/// them (all sums, then averages, counts, minima, maxima; each in the order written):
/// the function and its call.
pub(crate) fn aggregate_calls(e: &T) -> Vec<(&'static str, &T)> {
    let mut out = Vec::new();
    for f in ["sum", "avg", "count", "min", "max"] {
        e.walk(&mut |x| {
            if let T::Call { name, .. } = x {
                if name.as_str() == f {
                    out.push((f, x));
                }
            }
        });
    }
    out
}

/// `key <-> point`, the distance from `key` to a constant point (`point '(x,y)'`,
/// `'(x,y)'::point` or `point(x, y)` with numbers): `key` in [`canonical`] form and the
/// point. A GiST index on `key` returns its rows in this order (a kNN scan).
/// The point is `None` when its text is no `(x,y)`.
pub(crate) fn distance_to_point(e: &T) -> Option<(String, Option<(f64, f64)>)> {
    let T::Binary {
        op: BinOp::Distance,
        left,
        right,
    } = e
    else {
        return None;
    };
    let text_point = |s: &str| -> Option<(f64, f64)> {
        let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
        let (x, y) = inner.split_once(',')?;
        Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
    };
    let point = match &**right {
        T::Typed { ty, value } if ty == "point" => text_point(value),
        T::Cast { expr, ty } if ty == "point" => match &**expr {
            T::String(s) => text_point(s),
            _ => return None,
        },
        T::Call { name, args, .. } if name == "point" => match args.as_slice() {
            [x @ T::Number(_), y @ T::Number(_)] => Some((x.number()?, y.number()?)),
            _ => return None,
        },
        _ => return None,
    };
    Some((canonical(left), point))
}

/// `e` with every merged derived column replaced by its expression.
fn inline_derived(e: &T) -> std::borrow::Cow<'_, T> {
    let mut has = false;
    e.walk(&mut |x| has |= matches!(x, T::Derived { .. }));
    if !has {
        return std::borrow::Cow::Borrowed(e);
    }
    fn go(e: &T) -> T {
        match e {
            T::Derived { expr, .. } => go(expr),
            T::Nested(x) => T::Nested(Box::new(go(x))),
            T::Not(x) => T::Not(Box::new(go(x))),
            T::Neg(x) => T::Neg(Box::new(go(x))),
            T::Binary { op, left, right } => T::Binary {
                op: *op,
                left: Box::new(go(left)),
                right: Box::new(go(right)),
            },
            T::Like {
                expr,
                pattern,
                negated,
                case_insensitive,
            } => T::Like {
                expr: Box::new(go(expr)),
                pattern: Box::new(go(pattern)),
                negated: *negated,
                case_insensitive: *case_insensitive,
            },
            T::InList {
                expr,
                list,
                negated,
            } => T::InList {
                expr: Box::new(go(expr)),
                list: list.iter().map(go).collect(),
                negated: *negated,
            },
            T::Between {
                expr,
                low,
                high,
                negated,
            } => T::Between {
                expr: Box::new(go(expr)),
                low: Box::new(go(low)),
                high: Box::new(go(high)),
                negated: *negated,
            },
            other => other.clone(),
        }
    }
    std::borrow::Cow::Owned(go(e))
}

/// The comparison a typed comparison operator is (`op.is_comparison()`).
fn comparison_of(op: BinOp) -> Op {
    match op {
        BinOp::Eq => Op::Eq,
        BinOp::Ne => Op::Ne,
        BinOp::Lt => Op::Lt,
        BinOp::Le => Op::Le,
        BinOp::Gt => Op::Gt,
        _ => Op::Ge,
    }
}

/// A constant operand: a number (with its sign), a string, a sum or difference of
/// numbers, or a constant cast (`'15'::text`).
fn constant(e: &T) -> Option<Lit> {
    match e {
        T::Number(_) | T::Neg(_) => e.number().map(Lit::Num),
        T::String(s) => Some(Lit::Text(s.to_string())),
        T::Cast { expr, .. } if matches!(**expr, T::String(_) | T::Number(_)) => constant(expr),
        T::Binary {
            op: op @ (BinOp::Add | BinOp::Sub),
            left,
            right,
        } => match (constant(left)?, constant(right)?) {
            (Lit::Num(a), Lit::Num(b)) => {
                Some(Lit::Num(if *op == BinOp::Add { a + b } else { a - b }))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The column names a typed expression reads, lower case and unqualified, in the order
/// written.
pub(crate) fn column_names(e: &T) -> Vec<String> {
    e.columns()
        .into_iter()
        .map(|c| c.name.to_ascii_lowercase())
        .collect()
}

/// The functions a typed expression calls, one entry per call, outer calls first.
pub(crate) fn calls_of(e: &T) -> Vec<String> {
    let mut out = Vec::new();
    e.walk(&mut |x| {
        if let T::Call { name, .. } = x {
            out.push(name.to_string());
        }
    });
    out
}

/// The comparison a condition makes at its top (the first one written, looking into AND
/// and OR but not into operands): `=`, `<`, `LIKE`, `NOT IN`, `IS`, `BETWEEN`, ...
pub(crate) fn top_comparison(e: &T) -> Option<String> {
    let not = |s: &str, negated: bool| {
        if negated {
            format!("NOT {s}")
        } else {
            s.to_string()
        }
    };
    Some(match e {
        T::Binary { op, .. } if op.is_comparison() => op.symbol().to_string(),
        T::Binary {
            op: BinOp::And | BinOp::Or,
            left,
            right,
        } => return top_comparison(left).or_else(|| top_comparison(right)),
        T::Binary { left, right, .. } => {
            return top_comparison(left).or_else(|| top_comparison(right))
        }
        T::Like {
            negated,
            case_insensitive,
            ..
        } => not(if *case_insensitive { "ILIKE" } else { "LIKE" }, *negated),
        T::InList { negated, .. } | T::InSubquery { negated, .. } => not("IN", *negated),
        T::Between { negated, .. } => not("BETWEEN", *negated),
        T::IsNull { .. } => "IS".to_string(),
        T::Not(x) => match top_comparison(x)? {
            s if ["LIKE", "ILIKE", "IN", "BETWEEN"].contains(&s.as_str()) => format!("NOT {s}"),
            s => s,
        },
        _ => return None,
    })
}

/// How many quoted constants a typed expression holds (strings, typed and interval
/// constants).
pub(crate) fn quoted_constants(e: &T) -> usize {
    let mut n = 0;
    e.walk(&mut |x| {
        if matches!(x, T::String(_) | T::Typed { .. } | T::Interval { .. }) {
            n += 1;
        }
    });
    n
}

/// `expr op constant`, `expr IN (constants)` or `expr BETWEEN c1 AND c2` where `expr`
/// holds a call or parentheses (not a bare column): `expr` in [`canonical_expression`]
/// form, as an expression index's key is matched (match_index_to_operand).
pub(crate) fn compared_expression(e: &T) -> Option<(String, ExprTest)> {
    let (lhs, test) = match e {
        T::Binary { op, left, right } if op.is_comparison() => (
            &**left,
            ExprTest::Cmp(comparison_of(*op), plain_constant(right)?),
        ),
        T::InList {
            expr,
            list,
            negated: false,
        } => (
            &**expr,
            ExprTest::In(list.iter().map(plain_constant).collect::<Option<_>>()?),
        ),
        T::Between {
            expr,
            low,
            high,
            negated: false,
        } => (
            &**expr,
            ExprTest::Between(plain_constant(low)?, plain_constant(high)?),
        ),
        _ => return None,
    };
    let mut parenthesised = false;
    lhs.walk(&mut |x| {
        parenthesised |= matches!(
            x,
            T::Call { .. } | T::Nested(_) | T::Extract { .. } | T::Substring { .. }
        )
    });
    (parenthesised && !matches!(lhs, T::Column(_))).then(|| (canonical(lhs), test))
}

/// A constant as written (no folding), with a cast the parser folds (`'15'::text`).
fn plain_constant(e: &T) -> Option<Lit> {
    match e {
        T::Number(n) => costlab_model::num::parse_f64(n).map(Lit::Num),
        T::String(s) => Some(Lit::Text(s.to_string())),
        T::Cast { expr, .. } if matches!(**expr, T::String(_) | T::Number(_)) => {
            plain_constant(expr)
        }
        _ => None,
    }
}

/// A typed expression in [`canonical_expression`]'s form: names lower case and
/// unqualified, casts dropped, parentheses around a lone operand dropped, one space
/// between tokens.
pub(crate) fn canonical(e: &T) -> String {
    let lone = |x: &T| matches!(x, T::Column(_) | T::Number(_) | T::String(_));
    let list = |v: &[T]| v.iter().map(canonical).collect::<Vec<_>>().join(" , ");
    match e {
        T::Column(c) => c.name.to_ascii_lowercase(),
        T::Number(n) => format!("{}", costlab_model::num::parse_f64(n).unwrap_or(0.0)),
        T::String(s) => format!("'{}'", s.replace('\'', "''")),
        T::Typed { ty, value } => format!("{ty} '{}'", value.replace('\'', "''")),
        T::Interval { value, unit } => format!("interval '{value}' {unit}"),
        T::Null => "null".into(),
        T::Bool(b) => b.to_string(),
        T::Star => "*".into(),
        T::Neg(x) => format!("- {}", canonical(x)),
        T::Not(x) => format!("not {}", canonical(x)),
        T::Binary { op, left, right } => format!(
            "{} {} {}",
            canonical(left),
            op.symbol().to_ascii_lowercase(),
            canonical(right)
        ),
        T::Like {
            expr,
            pattern,
            negated,
            case_insensitive,
        } => format!(
            "{} {}{} {}",
            canonical(expr),
            if *negated { "not " } else { "" },
            if *case_insensitive { "ilike" } else { "like" },
            canonical(pattern)
        ),
        T::InList {
            expr,
            list: l,
            negated,
        } => format!(
            "{} {}in ( {} )",
            canonical(expr),
            if *negated { "not " } else { "" },
            list(l)
        ),
        T::InSubquery { expr, .. } => format!("{} in ( select )", canonical(expr)),
        T::Exists { .. } => "exists ( select )".into(),
        T::Subquery => "( select )".into(),
        T::Between {
            expr, low, high, ..
        } => format!(
            "{} between {} and {}",
            canonical(expr),
            canonical(low),
            canonical(high)
        ),
        T::IsNull { expr, negated } => format!(
            "{} is {}null",
            canonical(expr),
            if *negated { "not " } else { "" }
        ),
        T::Call {
            name,
            args,
            distinct,
        } => format!(
            "{name} ( {}{} )",
            if *distinct { "distinct " } else { "" },
            list(args)
        ),
        T::Cast { expr, .. } => canonical(expr),
        T::Case { .. } => "case".into(),
        T::Extract { field, expr } => format!("extract ( {field} from {} )", canonical(expr)),
        T::Substring {
            expr,
            from,
            len,
            shorthand,
        } => {
            let name = if *shorthand { "substr" } else { "substring" };
            let mut s = format!("{name} ( {}", canonical(expr));
            if let Some(f) = from {
                s += &format!(" from {}", canonical(f));
            }
            if let Some(l) = len {
                s += &format!(" for {}", canonical(l));
            }
            s + " )"
        }
        T::Derived { expr, .. } => canonical(expr),
        T::Nested(x) => {
            let inner = x.strip_casts();
            if lone(inner) {
                canonical(inner)
            } else {
                format!("( {} )", canonical(x))
            }
        }
    }
}

/// Parses a boolean condition.
pub(crate) fn parse_condition(s: &str) -> Expr {
    let mut p = P {
        t: tokenize(s),
        i: 0,
    };
    p.or()
}

/// The comparison operator a symbol spells.
fn comparison(sym: &str) -> Option<Op> {
    Some(match sym {
        "=" => Op::Eq,
        "<>" | "!=" => Op::Ne,
        "<" => Op::Lt,
        "<=" => Op::Le,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        _ => return None,
    })
}

/// An expression compared with constants, as an expression index can serve it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ExprTest {
    Cmp(Op, Lit),
    In(Vec<Lit>),
    Between(Lit, Lit),
}

/// A float8 as PostgreSQL prints it (float8out, extra_float_digits 1): the shortest text
/// that reads back the same, in exponent form below 1e-4 and from 1e15 (`1e+20`).
pub(crate) fn float8_text(x: f64) -> String {
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        let e = format!("{x:e}");
        match e.split_once('e') {
            Some((m, exp)) if !exp.starts_with('-') => format!("{m}e+{exp}"),
            Some((m, exp)) => format!("{m}e-{:0>2}", &exp[1..]),
            None => e,
        }
    } else {
        format!("{x}")
    }
}

/// An expression's text reduced so that the query's spelling and pg_get_indexdef's
/// match (match_index_to_operand compares the parsed trees): names lower-cased and
/// unqualified, casts (`::text`, which the parser adds for a CHAR argument) and the
/// parentheses around a lone operand dropped, tokens separated by one space.
pub(crate) fn canonical_expression(text: &str) -> String {
    canonical_tokens(&tokenize(text))
}

fn canonical_tokens(toks: &[Tok]) -> String {
    let mut kept: Vec<&Tok> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == Tok::Sym(":".into()) && toks.get(i + 1) == Some(&Tok::Sym(":".into())) {
            i += 2;
            if matches!(toks.get(i), Some(Tok::Ident(_))) {
                i += 1;
            }
            continue;
        }
        kept.push(&toks[i]);
        i += 1;
    }
    // `( x )` not after a function name is a grouping of a lone operand.
    loop {
        let at = (0..kept.len().saturating_sub(2)).find(|&k| {
            *kept[k] == Tok::LParen
                && !matches!(kept[k + 1], Tok::LParen | Tok::RParen | Tok::Comma)
                && *kept[k + 2] == Tok::RParen
                && (k == 0 || !matches!(kept[k - 1], Tok::Ident(_)))
        });
        let Some(k) = at else { break };
        kept.remove(k + 2);
        kept.remove(k);
    }
    let words: Vec<String> = kept
        .iter()
        .map(|t| match t {
            Tok::Ident(s) => s.rsplit('.').next().unwrap_or(s).to_ascii_lowercase(),
            Tok::Num(x) => format!("{x}"),
            Tok::Str(s) => format!("'{}'", s.replace('\'', "''")),
            Tok::Sym(s) => s.clone(),
            Tok::LParen => "(".into(),
            Tok::RParen => ")".into(),
            Tok::Comma => ",".into(),
        })
        .collect();
    words.join(" ")
}

/// The functions a text calls, one entry per call, lower-cased and unqualified (keywords
/// written like calls, `IN (`, `EXISTS (`, are not calls).
pub(crate) fn called_functions(expr: &str) -> Vec<String> {
    let toks = tokenize(expr);
    toks.windows(2)
        .filter_map(|t| match (&t[0], &t[1]) {
            (Tok::Ident(s), Tok::LParen)
                if ![
                    "CASE", "WHEN", "THEN", "ELSE", "AND", "OR", "NOT", "IN", "EXISTS", "SELECT",
                    "ANY", "ALL", "VALUES", "ON", "USING", "AS", "FROM", "WHERE", "LIKE",
                ]
                .iter()
                .any(|k| s.eq_ignore_ascii_case(k)) =>
            {
                Some(s.rsplit('.').next().unwrap_or(s).to_ascii_lowercase())
            }
            _ => None,
        })
        .collect()
}

/// LIKE matching (`%` any run, `_` one character), for estimating patterns against
/// statistics values.
pub(crate) fn like_match(pat: &str, s: &str) -> bool {
    // Statistics values and patterns are mostly ASCII, where bytes are characters: no
    // copies then (every plan matches its LIKE patterns against every MCV and bound).
    if pat.is_ascii() && s.is_ascii() {
        return like_match_in(pat.as_bytes(), s.as_bytes(), b'%', b'_');
    }
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = s.chars().collect();
    like_match_in(&p, &t, '%', '_')
}

/// like_match over characters of any kind: `any` matches a run, `one` one character.
fn like_match_in<C: Copy + PartialEq>(p: &[C], t: &[C], any: C, one: C) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == one || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == any {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(sp) = star {
            pi = sp + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == any {
        pi += 1;
    }
    pi == p.len()
}

/// like_selectivity's heuristic for the part of a pattern after its fixed prefix
/// (selfuncs.c: FIXED_CHAR_SEL 0.2, ANY_CHAR_SEL 0.9, FULL_WILDCARD_SEL 5).
pub(crate) fn like_rest_selectivity(rest: &str) -> f64 {
    let mut sel = 1.0;
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() && (chars[i] == '%' || chars[i] == '_') {
        i += 1;
    }
    for &c in &chars[i..] {
        sel *= match c {
            '%' => 5.0,
            '_' => 0.9,
            _ => 0.2,
        };
    }
    f64::min(sel, 1.0)
}

#[cfg(test)]
mod tests;
