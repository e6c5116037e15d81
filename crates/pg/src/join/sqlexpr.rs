//! A small reader for the condition and select-list texts of the DBT3 queries: enough
//! of SQL's boolean expressions to estimate a filter the way PostgreSQL's clause
//! selectivity code would (comparisons, IN lists, BETWEEN, LIKE, AND/OR/NOT), and to count
//! the operators an aggregate's argument evaluates (§5.1). Anything it cannot read becomes
//! [`Expr::Other`], which the planner estimates with PostgreSQL's defaults.

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

/// Parses a boolean condition.
pub(crate) fn parse_condition(s: &str) -> Expr {
    let mut p = P {
        t: tokenize(s),
        i: 0,
    };
    p.or()
}

/// The WHERE clause of the outermost query block of `sql` (up to GROUP BY / ORDER BY /
/// the end), if there is one at parenthesis depth 0.
pub(crate) fn outer_where(sql: &str) -> Option<String> {
    let up = sql.to_ascii_uppercase();
    let bytes = up.as_bytes();
    let mut depth = 0i32;
    let mut start = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
            }
            _ if depth == 0 => {
                let rest = &up[i..];
                let boundary = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
                if boundary && start.is_none() && rest.starts_with("WHERE ") {
                    start = Some(i + 6);
                } else if boundary
                    && start.is_some()
                    && (rest.starts_with("GROUP BY")
                        || rest.starts_with("ORDER BY")
                        || rest.starts_with("LIMIT ")
                        || rest.starts_with(';'))
                {
                    return start.map(|s| sql[s..i].to_string());
                }
            }
            _ => {}
        }
        i += 1;
    }
    start.map(|s| sql[s..].trim_end_matches(';').to_string())
}

/// Top-level pieces of the first SELECT list of `sql` (split at depth-0 commas).
pub(crate) fn select_items(sql: &str) -> Vec<String> {
    let up = sql.to_ascii_uppercase();
    let Some(st) = up.find("SELECT") else {
        return Vec::new();
    };
    let b = sql.as_bytes();
    let mut depth = 0i32;
    let mut items = Vec::new();
    let mut cur = st + 6;
    let mut i = cur;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b',' if depth == 0 => {
                items.push(sql[cur..i].trim().to_string());
                cur = i + 1;
            }
            _ if depth == 0
                && up[i..].starts_with("FROM")
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) =>
            {
                items.push(sql[cur..i].trim().to_string());
                return items;
            }
            _ => {}
        }
        i += 1;
    }
    items
}

/// Aggregate calls of one select item: (function name lower-case, argument text).
pub(crate) fn aggregates(item: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let up = item.to_ascii_uppercase();
    for f in ["SUM", "AVG", "COUNT", "MIN", "MAX"] {
        let mut from = 0;
        while let Some(p) = up[from..].find(f) {
            let at = from + p;
            from = at + f.len();
            let before_ok = at == 0 || !up.as_bytes()[at - 1].is_ascii_alphanumeric();
            let rest = up[at + f.len()..].trim_start();
            if !before_ok || !rest.starts_with('(') {
                continue;
            }
            let open = at + f.len() + (up[at + f.len()..].len() - rest.len());
            let mut depth = 0;
            let mut end = open;
            for (k, ch) in item[open..].char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push((f.to_ascii_lowercase(), item[open + 1..end].to_string()));
        }
    }
    out
}

/// Operator and function calls an expression text evaluates per row (cost_qual_eval
/// counts each at procost 1): arithmetic, comparisons, LIKE, function calls; CASE,
/// AND/OR and constants are free.
pub(crate) fn count_ops(expr: &str) -> f64 {
    let mut n = 0.0;
    for t in tokenize(expr).windows(2) {
        match (&t[0], &t[1]) {
            (Tok::Sym(s), _)
                if [
                    "*", "/", "+", "-", "=", "<>", "<", ">", "<=", ">=", "!=", "<->",
                ]
                .contains(&s.as_str()) =>
            {
                n += 1.0
            }
            (Tok::Ident(s), _) if s.eq_ignore_ascii_case("LIKE") => n += 1.0,
            (Tok::Ident(s), Tok::LParen)
                if ![
                    "CASE", "WHEN", "THEN", "ELSE", "AND", "OR", "NOT", "IN", "EXISTS", "SELECT",
                ]
                .iter()
                .any(|k| s.eq_ignore_ascii_case(k)) =>
            {
                n += 1.0
            }
            _ => {}
        }
    }
    if let Some(Tok::Sym(s)) = tokenize(expr).last() {
        if ["*", "/", "+", "-"].contains(&s.as_str()) {
            n += 1.0;
        }
    }
    n
}

/// The comparison at the top level of a predicate text (outside every parenthesis; `||`
/// and arithmetic are operands' business), upper case: `=`, `<`, `LIKE`, `IN`, ... (`NOT`
/// before `LIKE` or `IN` is kept: `NOT LIKE`).
pub(crate) fn top_level_op(expr: &str) -> Option<String> {
    let mut depth = 0;
    let mut not = false;
    for t in tokenize(expr) {
        match t {
            Tok::LParen => depth += 1,
            Tok::RParen => depth -= 1,
            Tok::Sym(s)
                if depth == 0 && ["=", "<>", "!=", "<", ">", "<=", ">="].contains(&s.as_str()) =>
            {
                return Some(s)
            }
            Tok::Ident(s) if depth == 0 => {
                let up = s.to_ascii_uppercase();
                match up.as_str() {
                    "NOT" => not = true,
                    "LIKE" | "ILIKE" | "IN" | "IS" | "BETWEEN" => {
                        return Some(if not { format!("NOT {up}") } else { up })
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    None
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

/// `expr op constant`, `expr IN (constants)` or `expr BETWEEN c1 AND c2` where `expr` is
/// not a bare column: the expression in [`canonical_expression`] form and the test.
pub(crate) fn expression_comparison(text: &str) -> Option<(String, ExprTest)> {
    let toks = tokenize(text);
    let mut depth = 0;
    let mut at = None;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::LParen => depth += 1,
            Tok::RParen => depth -= 1,
            Tok::Sym(s)
                if depth == 0 && ["=", "<>", "!=", "<", ">", "<=", ">="].contains(&s.as_str()) =>
            {
                at = Some(i);
                break;
            }
            Tok::Ident(s)
                if depth == 0
                    && (s.eq_ignore_ascii_case("IN") || s.eq_ignore_ascii_case("BETWEEN")) =>
            {
                at = Some(i);
                break;
            }
            _ => {}
        }
    }
    let at = at?;
    let lhs = &toks[..at];
    if lhs.len() < 3 || !lhs.contains(&Tok::LParen) {
        return None;
    }
    // A constant, with a cast the parser folds (`'15'::text`).
    let lit = |ts: &[Tok]| -> Option<(Lit, usize)> {
        let l = match ts.first()? {
            Tok::Str(s) => Lit::Text(s.clone()),
            Tok::Num(x) => Lit::Num(*x),
            _ => return None,
        };
        let mut n = 1;
        if ts.get(1) == Some(&Tok::Sym(":".into())) && ts.get(2) == Some(&Tok::Sym(":".into())) {
            matches!(ts.get(3), Some(Tok::Ident(_))).then_some(())?;
            n = 4;
        }
        Some((l, n))
    };
    let rest = &toks[at + 1..];
    let test = match &toks[at] {
        Tok::Sym(s) => {
            let op = comparison(s)?;
            let (l, n) = lit(rest)?;
            (n == rest.len()).then_some(ExprTest::Cmp(op, l))?
        }
        Tok::Ident(k) if k.eq_ignore_ascii_case("IN") => {
            if rest.first() != Some(&Tok::LParen) || rest.last() != Some(&Tok::RParen) {
                return None;
            }
            let mut values = Vec::new();
            let inner = &rest[1..rest.len() - 1];
            let mut i = 0;
            while i < inner.len() {
                let (l, n) = lit(&inner[i..])?;
                values.push(l);
                i += n;
                match inner.get(i) {
                    None => break,
                    Some(Tok::Comma) => i += 1,
                    Some(_) => return None,
                }
            }
            ExprTest::In(values)
        }
        _ => {
            let (lo, n) = lit(rest)?;
            match rest.get(n) {
                Some(Tok::Ident(a)) if a.eq_ignore_ascii_case("AND") => {}
                _ => return None,
            }
            let (hi, m) = lit(&rest[n + 1..])?;
            (n + 1 + m == rest.len()).then_some(ExprTest::Between(lo, hi))?
        }
    };
    Some((canonical_tokens(lhs), test))
}

/// `key <-> point`, the distance from `key` to a constant point (`point '(x,y)'`,
/// `'(x,y)'::point` or `point(x, y)` with numbers): `key` in [`canonical_expression`]
/// form. A GiST index on `key` returns its rows in this order (a kNN scan).
pub(crate) fn distance_operand(text: &str) -> Option<String> {
    let toks = tokenize(text);
    let mut depth = 0;
    let at = toks.iter().position(|t| {
        match t {
            Tok::LParen => depth += 1,
            Tok::RParen => depth -= 1,
            _ => {}
        }
        depth == 0 && *t == Tok::Sym("<->".into())
    })?;
    let (lhs, rhs) = (&toks[..at], &toks[at + 1..]);
    let point =
        |t: Option<&Tok>| matches!(t, Some(Tok::Ident(s)) if s.eq_ignore_ascii_case("point"));
    let colon = Tok::Sym(":".into());
    let constant = match rhs {
        [p, Tok::Str(_)] => point(Some(p)),
        [Tok::Str(_), c1, c2, p] => *c1 == colon && *c2 == colon && point(Some(p)),
        [p, Tok::LParen, Tok::Num(_), Tok::Comma, Tok::Num(_), Tok::RParen] => point(Some(p)),
        _ => false,
    };
    (constant && !lhs.is_empty()).then(|| canonical_tokens(lhs))
}

/// The constant point of `key <-> point` ([`distance_operand`]'s forms), as numbers.
pub(crate) fn distance_point(text: &str) -> Option<(f64, f64)> {
    distance_operand(text)?;
    let toks = tokenize(text);
    let at = toks.iter().rposition(|t| *t == Tok::Sym("<->".into()))?;
    let num = |t: &Tok| match t {
        Tok::Num(n) => Some(*n),
        _ => None,
    };
    match &toks[at + 1..] {
        [_, Tok::Str(s)] | [Tok::Str(s), _, _, _] => {
            let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
            let (x, y) = inner.split_once(',')?;
            Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
        }
        [_, Tok::LParen, x, Tok::Comma, y, Tok::RParen] => Some((num(x)?, num(y)?)),
        _ => None,
    }
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

/// Identifiers of a text (column names, lower-cased, without qualifier).
pub(crate) fn identifiers(text: &str) -> Vec<String> {
    tokenize(text)
        .into_iter()
        .filter_map(|t| match t {
            Tok::Ident(s) => Some(s.rsplit('.').next().unwrap_or(&s).to_ascii_lowercase()),
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

/// A list's items: the text split at commas outside parentheses and quotes
/// (`point(1, 2)` and `'(1,2)'` stay whole).
fn top_level_items(list: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    for (i, c) in list.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            _ if quoted => {}
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
}

/// The items of the last depth-0 `kw` list ("ORDER BY" / "GROUP BY") of `sql`, without
/// ASC/DESC, lower-cased.
pub(crate) fn outer_list(sql: &str, kw: &str) -> Option<Vec<String>> {
    Some(
        outer_items(sql, kw)?
            .into_iter()
            .map(|(s, _)| {
                s.to_ascii_lowercase()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect(),
    )
}

/// The start and end of the text after the last depth-0 `kw` of `sql`, up to the next
/// clause.
fn outer_clause(sql: &str, kw: &str) -> Option<(usize, usize)> {
    let up = sql.to_ascii_uppercase();
    let b = up.as_bytes();
    let mut depth = 0i32;
    let mut quoted = false;
    let mut found = None;
    for i in 0..b.len() {
        match b[i] {
            b'\'' => quoted = !quoted,
            _ if quoted => {}
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth == 0 && up[i..].starts_with(kw) => found = Some(i + kw.len()),
            _ => {}
        }
    }
    let st = found?;
    let mut end = up.len();
    for stop in ["LIMIT", "ORDER BY", "HAVING", ";"] {
        if let Some(p) = up[st..].find(stop) {
            end = end.min(st + p);
        }
    }
    Some((st, end))
}

/// The items of the last depth-0 `kw` list of `sql` as written (whitespace trimmed),
/// each with whether it sorts DESC.
pub(crate) fn outer_items(sql: &str, kw: &str) -> Option<Vec<(String, bool)>> {
    let (st, end) = outer_clause(sql, kw)?;
    Some(
        top_level_items(&sql[st..end])
            .into_iter()
            .map(|s| {
                let s = s.trim();
                let up = s.to_ascii_uppercase();
                if up.ends_with(" DESC") {
                    (s[..s.len() - 5].trim().to_string(), true)
                } else if up.ends_with(" ASC") {
                    (s[..s.len() - 4].trim().to_string(), false)
                } else {
                    (s.to_string(), false)
                }
            })
            .collect(),
    )
}

/// The condition of the last depth-0 HAVING of `sql`, as written.
pub(crate) fn having_clause(sql: &str) -> Option<String> {
    let (st, end) = outer_clause(sql, "HAVING")?;
    let t = sql[st..end].trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The expression an output name of `sql` stands for: an `expr AS name` item of the
/// first select list or of a derived table in FROM; else the name itself.
pub(crate) fn alias_expr(sql: &str, name: &str) -> String {
    for item in select_items(sql) {
        let iu = item.to_ascii_uppercase();
        if let Some(a) = iu.rfind(" AS ") {
            if item[a + 4..].trim().eq_ignore_ascii_case(name) {
                return item[..a].trim().to_string();
            }
        }
    }
    derived_aliases(sql)
        .into_iter()
        .find(|(alias, _)| alias.eq_ignore_ascii_case(name))
        .map_or_else(|| name.to_string(), |(_, e)| e.trim().to_string())
}

/// Whether the outer ORDER BY names only GROUP BY items: PostgreSQL then orders the
/// grouping keys to match (preprocess_groupclause) and a sorted aggregation needs no
/// further sort.
pub(crate) fn order_within_group(sql: &str) -> bool {
    match (outer_list(sql, "ORDER BY"), outer_list(sql, "GROUP BY")) {
        (Some(o), Some(g)) => !o.is_empty() && o.iter().all(|x| g.contains(x)),
        _ => false,
    }
}

/// The constants of the IN list that follows `prefix` in `sql` (an abbreviated
/// `IN (...)` of a sub-select's condition written out in the full text).
pub(crate) fn in_list_after(sql: &str, prefix: &str) -> Option<usize> {
    let p = sql.find(prefix)?;
    let rest = &sql[p + prefix.len()..];
    let close = rest.find(')')?;
    let list = &rest[..close];
    if list.contains("...") {
        return None;
    }
    Some(list.matches('\'').count() / 2)
}

/// `short` with an abbreviated `IN (...)` written out from the query's full text `sql`
/// (the same prefix followed by the list); `short` itself when there is none.
pub(crate) fn written_out(short: &str, sql: &str) -> String {
    let Some((pre, post)) = short.split_once("(...)") else {
        return short.to_string();
    };
    let Some(p) = sql.find(&format!("{pre}(")) else {
        return short.to_string();
    };
    let rest = &sql[p + pre.len() + 1..];
    match rest.find(')') {
        Some(close) if !rest[..close].contains("...") => {
            format!("{pre}({}){post}", &rest[..close])
        }
        _ => short.to_string(),
    }
}

/// Whether the outer query reads FROM a sub-select that groups itself (a second
/// aggregation level above the block's, as in `SELECT x, count(*) FROM (SELECT ...
/// GROUP BY ...) GROUP BY x`).
pub(crate) fn derived_grouped(sql: &str) -> bool {
    let up = sql.to_ascii_uppercase();
    let b = up.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth == 0 && up[i..].starts_with("FROM") => {
                let rest = up[i + 4..].trim_start();
                if !rest.starts_with('(') {
                    return false;
                }
                let open = up.len() - rest.len();
                let mut d = 0i32;
                for (k, ch) in up[open..].char_indices() {
                    match ch {
                        '(' => d += 1,
                        ')' => {
                            d -= 1;
                            if d == 0 {
                                return outer_list(&sql[open + 1..open + k], "GROUP BY").is_some();
                            }
                        }
                        _ => {}
                    }
                }
                return false;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Every SELECT of `sql` with the text up to where its (sub-)query ends.
fn select_texts(sql: &str) -> Vec<String> {
    let up = sql.to_ascii_uppercase();
    let b = up.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = up[from..].find("SELECT") {
        let st = from + p;
        from = st + 6;
        if st > 0 && b[st - 1].is_ascii_alphanumeric() {
            continue;
        }
        let mut depth = 0i32;
        let mut end = up.len();
        for (k, &ch) in b.iter().enumerate().skip(st) {
            match ch {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth < 0 {
                        end = k;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    end = k;
                    break;
                }
                _ => {}
            }
        }
        out.push(sql[st..end].to_string());
    }
    out
}

/// The table names of the FROM list of a SELECT text (depth 0).
fn from_tables(select: &str) -> Vec<String> {
    let up = select.to_ascii_uppercase();
    let b = up.as_bytes();
    let mut depth = 0i32;
    let mut start = None;
    for i in 0..b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth == 0 && start.is_none() && up[i..].starts_with("FROM ") => {
                start = Some(i + 5);
            }
            _ => {}
        }
    }
    let Some(st) = start else {
        return Vec::new();
    };
    let mut end = select.len();
    for stop in ["WHERE", "GROUP BY", "ORDER BY", "HAVING", "LIMIT"] {
        if let Some(p) = up[st..].find(stop) {
            end = end.min(st + p);
        }
    }
    select[st..end]
        .split(',')
        .filter_map(|t| t.split_whitespace().next())
        .map(|t| t.to_ascii_lowercase())
        .collect()
}

/// The text of the sub-select (or view) of `sql` that reads exactly `tables`, preferring
/// one that aggregates when `aggregate`; used for a sub-block's aggregate costs.
pub(crate) fn subselect_for(sql: &str, tables: &[&str], aggregate: bool) -> Option<String> {
    let mut want: Vec<String> = tables.iter().map(|t| t.to_ascii_lowercase()).collect();
    want.sort();
    let mut cands: Vec<String> = select_texts(sql)
        .into_iter()
        .filter(|s| {
            let mut t = from_tables(s);
            t.sort();
            t == want
        })
        .collect();
    if aggregate {
        if let Some(p) = cands
            .iter()
            .position(|s| !aggregates(&select_items(s).join(",")).is_empty())
        {
            return Some(cands.swap_remove(p));
        }
    }
    cands.into_iter().next()
}

/// `expr AS alias` items of the sub-selects in the outer FROM (derived tables): an
/// outer aggregate over the alias evaluates the expression.
pub(crate) fn derived_aliases(sql: &str) -> Vec<(String, String)> {
    let up = sql.to_ascii_uppercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = up[from..].find("FROM (") {
        let st = from + p + 6;
        from = st;
        if !up[st..].trim_start().starts_with("SELECT") {
            continue;
        }
        for item in select_items(&sql[st..]) {
            let iu = item.to_ascii_uppercase();
            if let Some(a) = iu.rfind(" AS ") {
                let alias = item[a + 4..].trim().to_ascii_lowercase();
                out.push((alias, item[..a].to_string()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {

    /// The kNN point as EXPLAIN's Order By line prints it (float8out's shortest text),
    /// from each spelling the model reads.
    #[test]
    fn knn_points_print_as_postgresql_does() {
        use super::{distance_point, float8_text};
        for (sql, want) in [
            ("st_loc <-> point '(500,500)'", Some((500.0, 500.0))),
            ("fgeo(a) <-> '( 1.50 , -2)'::point", Some((1.5, -2.0))),
            ("st_loc <-> point(0.5, 2)", Some((0.5, 2.0))),
            ("st_loc <-> other_loc", None),
            ("st_loc <-> point '(1,2,3)'", None),
        ] {
            assert_eq!(distance_point(sql), want, "{sql}");
        }
        for (x, want) in [
            (500.0, "500"),
            (-2.0, "-2"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e20, "1e+20"),
            (1.5e-5, "1.5e-05"),
            (0.0, "0"),
        ] {
            assert_eq!(float8_text(x), want);
        }
    }
    use super::like_match;
    use proptest::prelude::*;

    /// Calls are named once each, nested ones too, keywords written like calls are not;
    /// the comparison found is the top level's, not one inside a call or an operand.
    #[test]
    fn expressions_compared_with_constants() {
        use super::{canonical_expression, expression_comparison, ExprTest, Lit, Op};
        let (e, t) = expression_comparison("public.FNORM(s_phone) < '15'::text").unwrap();
        assert_eq!(e, canonical_expression("fnorm((s_phone)::text)"));
        assert_eq!(t, ExprTest::Cmp(Op::Lt, Lit::Text("15".into())));
        let (e, t) = expression_comparison("lower(s_name) IN ('a', 'b')").unwrap();
        assert_eq!(e, "lower ( s_name )");
        assert_eq!(
            t,
            ExprTest::In(vec![Lit::Text("a".into()), Lit::Text("b".into())])
        );
        let (_, t) = expression_comparison("f(x) BETWEEN 1 AND 2").unwrap();
        assert_eq!(t, ExprTest::Between(Lit::Num(1.0), Lit::Num(2.0)));
        // A bare column, a column on the right, or more after the constant: not this.
        assert_eq!(expression_comparison("s_phone < '15'"), None);
        assert_eq!(expression_comparison("f(x) < g(y)"), None);
        assert_eq!(expression_comparison("f(x) < 1 + 2"), None);
        // A function of one argument keeps its parentheses; a sum does not need them.
        assert_ne!(canonical_expression("f(x)"), canonical_expression("f x"));
        assert_eq!(canonical_expression("(a + b)"), "( a + b )");
    }

    #[test]
    fn calls_and_the_top_level_comparison() {
        assert_eq!(
            super::called_functions("upper(public.fnorm(s_phone)) IN ('1', '2') AND EXISTS (x)"),
            ["upper", "fnorm"]
        );
        for (text, want) in [
            ("fnorm(s_phone) = '1'", Some("=")),
            ("fnorm(a) || n_name > '5'", Some(">")),
            (
                "substring(c_phone from 1 for 2) in ('13', '31')",
                Some("IN"),
            ),
            ("fnorm(a < b) NOT LIKE '1%'", Some("NOT LIKE")),
            ("f(x)", None),
        ] {
            assert_eq!(super::top_level_op(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn like_matches_runs_and_single_characters() {
        for (pat, s, want) in [
            ("forest%", "forest green lace", true),
            ("forest%", "a forest", false),
            ("%green%", "forest green lace", true),
            ("%green%", "greed", false),
            ("_orest%", "forest", true),
            ("f_rest", "forest", true),
            ("f_rest", "forrest", false),
            ("%", "", true),
            ("_", "", false),
            ("%BRASS", "LARGE BRUSHED BRASS", true),
            // Characters beyond ASCII count as one each.
            ("caf_", "café", true),
            ("%é%", "crème brûlée", true),
            ("cr_me%", "crème", true),
        ] {
            assert_eq!(like_match(pat, s), want, "{pat} LIKE {s}");
        }
    }

    proptest! {
        /// The byte fast path for ASCII agrees with matching by characters.
        #[test]
        fn ascii_and_character_matching_agree(pat in "[ab%_é]{0,6}", s in "[abé]{0,8}") {
            let p: Vec<char> = pat.chars().collect();
            let t: Vec<char> = s.chars().collect();
            prop_assert_eq!(like_match(&pat, &s), super::like_match_in(&p, &t, '%', '_'));
        }
    }
}
