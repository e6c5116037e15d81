//! Single-table queries: a conjunction of simple predicates, optional ORDER BY and LIMIT,
//! and the selected columns. [`Query::parse`] reads the small SQL subset users type.

use crate::catalog::{Table, Value};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// The operator seen from the other side: `c < col` is `col > c`.
    pub fn commute(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Predicate {
    /// `column op constant`
    Cmp {
        column: String,
        op: CmpOp,
        value: Value,
    },
    /// `column BETWEEN lo AND hi`; kept whole because MySQL estimates it as one range
    /// while PostgreSQL splits it into two inequalities.
    Between {
        column: String,
        lo: Value,
        hi: Value,
    },
    /// `column IN (v1, v2, ...)`
    In { column: String, values: Vec<Value> },
}

impl Predicate {
    pub fn column(&self) -> &str {
        match self {
            Predicate::Cmp { column, .. }
            | Predicate::Between { column, .. }
            | Predicate::In { column, .. } => column,
        }
    }

    /// Number of operator evaluations PostgreSQL charges for it (BETWEEN is two, IN is one
    /// ScalarArrayOp charged per element on average; see the engine module).
    pub fn sql(&self) -> String {
        match self {
            Predicate::Cmp { column, op, value } => format!("{column} {} {value}", op.symbol()),
            Predicate::Between { column, lo, hi } => format!("{column} BETWEEN {lo} AND {hi}"),
            Predicate::In { column, values } => format!(
                "{column} IN ({})",
                values
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OrderKey {
    pub column: String,
    #[serde(default)]
    pub descending: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Query {
    pub table: String,
    /// Selected columns; empty means `*`.
    #[serde(default)]
    pub select: Vec<String>,
    #[serde(default)]
    pub predicates: Vec<Predicate>,
    #[serde(default)]
    pub order_by: Vec<OrderKey>,
    #[serde(default)]
    pub limit: Option<f64>,
}

impl Query {
    /// Columns the query needs from the table (for covering / index-only paths).
    pub fn needed_columns<'a>(&'a self, table: &'a Table) -> Vec<&'a str> {
        let mut cols: Vec<&str> = if self.select.is_empty() {
            table.columns.iter().map(|c| c.name.as_str()).collect()
        } else {
            self.select.iter().map(String::as_str).collect()
        };
        cols.extend(self.predicates.iter().map(Predicate::column));
        cols.extend(self.order_by.iter().map(|k| k.column.as_str()));
        cols.sort_unstable_by_key(|c| c.to_ascii_lowercase());
        cols.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        cols
    }

    /// Checks the query against a table: every column exists, the limit is sane.
    pub fn check(&self, table: &Table) -> Result<()> {
        self.check_with(table, |name| table.column(name).is_ok())
    }

    /// [`Query::check`] with the column lookup supplied (same checks, same order, same
    /// errors): a prepared table answers it from its own index of names instead of
    /// comparing each name with every column, which sweeps would do at every point.
    pub fn check_with(&self, table: &Table, has_column: impl Fn(&str) -> bool) -> Result<()> {
        let column = |name: &str| {
            if has_column(name) {
                Ok(())
            } else {
                Err(Error::UnknownColumn {
                    table: table.name.clone(),
                    column: name.to_string(),
                })
            }
        };
        if !self.table.eq_ignore_ascii_case(&table.name) {
            return Err(Error::UnknownTable(self.table.clone()));
        }
        for c in self.select.iter() {
            column(c)?;
        }
        for p in &self.predicates {
            column(p.column())?;
            if let Predicate::In { values, .. } = p {
                if values.is_empty() {
                    return Err(Error::Unsupported("an empty IN list".into()));
                }
            }
        }
        for k in &self.order_by {
            column(&k.column)?;
        }
        if let Some(l) = self.limit {
            crate::error::check_range("LIMIT", l, 0.0, 1e15)?;
        }
        Ok(())
    }

    /// Parses `SELECT cols FROM t [WHERE p AND ...] [ORDER BY c [ASC|DESC], ...] [LIMIT n]`.
    pub fn parse(sql: &str) -> Result<Query> {
        Parser::new(sql)?.query()
    }

    pub fn sql(&self) -> String {
        let mut s = format!(
            "SELECT {} FROM {}",
            if self.select.is_empty() {
                "*".to_string()
            } else {
                self.select.join(", ")
            },
            self.table
        );
        if !self.predicates.is_empty() {
            s.push_str(" WHERE ");
            s.push_str(
                &self
                    .predicates
                    .iter()
                    .map(Predicate::sql)
                    .collect::<Vec<_>>()
                    .join(" AND "),
            );
        }
        if !self.order_by.is_empty() {
            s.push_str(" ORDER BY ");
            let keys: Vec<String> = self
                .order_by
                .iter()
                .map(|k| format!("{}{}", k.column, if k.descending { " DESC" } else { "" }))
                .collect();
            s.push_str(&keys.join(", "));
        }
        if let Some(l) = self.limit {
            s.push_str(&format!(" LIMIT {l}"));
        }
        s
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Num(f64),
    Str(String),
    Sym(&'static str),
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    len: usize,
}

const MAX_QUERY_BYTES: usize = 64 * 1024;

impl Parser {
    fn new(sql: &str) -> Result<Parser> {
        if sql.len() > MAX_QUERY_BYTES {
            return Err(Error::QueryParse {
                pos: MAX_QUERY_BYTES,
                msg: "query is too long".into(),
            });
        }
        let b = sql.as_bytes();
        let mut toks = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                // Qualified names (t.col) keep only the column. Every part must be a name:
                // `t1.5`, `t.` and `a..b` are syntax errors in SQL, and keeping `5` as a
                // column name would print as a query that reads back differently.
                let word = &sql[s..i];
                if !word
                    .split('.')
                    .all(|part| part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
                {
                    return Err(Error::QueryParse {
                        pos: s,
                        msg: format!("`{word}` is not a name"),
                    });
                }
                let word = word.rsplit('.').next().unwrap_or(word);
                toks.push((s, Tok::Ident(word.to_string())));
            } else if c.is_ascii_digit()
                || ((c == b'-' || c == b'.')
                    && i + 1 < b.len()
                    && (b[i + 1].is_ascii_digit() || b[i + 1] == b'.'))
            {
                let s = i;
                i += 1;
                while i < b.len()
                    && (b[i].is_ascii_digit()
                        || b[i] == b'.'
                        || b[i] == b'e'
                        || b[i] == b'E'
                        || ((b[i] == b'-' || b[i] == b'+')
                            && (b[i - 1] == b'e' || b[i - 1] == b'E')))
                {
                    i += 1;
                }
                let n: f64 = sql[s..i].parse().map_err(|_| Error::QueryParse {
                    pos: s,
                    msg: format!("`{}` is not a number", &sql[s..i]),
                })?;
                if !n.is_finite() {
                    return Err(Error::QueryParse {
                        pos: s,
                        msg: "number out of range".into(),
                    });
                }
                toks.push((s, Tok::Num(n)));
            } else if c == b'\'' {
                let s = i;
                i += 1;
                let mut text = String::new();
                loop {
                    match sql[i..].find('\'') {
                        None => {
                            return Err(Error::QueryParse {
                                pos: s,
                                msg: "unterminated string".into(),
                            })
                        }
                        Some(k) => {
                            text.push_str(&sql[i..i + k]);
                            i += k + 1;
                            if i < b.len() && b[i] == b'\'' {
                                text.push('\'');
                                i += 1;
                            } else {
                                break;
                            }
                        }
                    }
                }
                toks.push((s, Tok::Str(text)));
            } else {
                let two = sql.get(i..i + 2).unwrap_or("");
                let sym: &'static str = match two {
                    "<=" => "<=",
                    ">=" => ">=",
                    "<>" | "!=" => "<>",
                    _ => match c {
                        b'<' => "<",
                        b'>' => ">",
                        b'=' => "=",
                        b',' => ",",
                        b'(' => "(",
                        b')' => ")",
                        b'*' => "*",
                        b';' => ";",
                        _ => {
                            let ch = sql[i..].chars().next().unwrap_or('?');
                            return Err(Error::QueryParse {
                                pos: i,
                                msg: format!("unexpected `{ch}`"),
                            });
                        }
                    },
                };
                i += sym.len();
                toks.push((i - sym.len(), Tok::Sym(sym)));
            }
        }
        Ok(Parser {
            toks,
            pos: 0,
            len: sql.len(),
        })
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map(|t| t.0).unwrap_or(self.len)
    }

    fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(Error::QueryParse {
            pos: self.at(),
            msg: msg.into(),
        })
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.1)
    }

    fn keyword(&mut self, kw: &str) -> bool {
        if let Some(Tok::Ident(w)) = self.peek() {
            if w.eq_ignore_ascii_case(kw) {
                self.pos += 1;
                return true;
            }
        }
        false
    }

    fn expect_keyword(&mut self, kw: &str) -> Result<()> {
        if self.keyword(kw) {
            Ok(())
        } else {
            self.err(format!("expected {kw}"))
        }
    }

    fn sym(&mut self, s: &str) -> bool {
        if self.peek()
            == Some(&Tok::Sym(match s {
                "(" => "(",
                ")" => ")",
                "," => ",",
                "*" => "*",
                ";" => ";",
                _ => return false,
            }))
        {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Tok::Ident(w)) if !is_reserved(w) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => self.err("expected a name"),
        }
    }

    fn value(&mut self) -> Result<Value> {
        let v = match self.peek() {
            Some(Tok::Num(n)) => Value::Num(*n),
            Some(Tok::Str(s)) => Value::Text(s.clone()),
            Some(Tok::Ident(w)) if w.eq_ignore_ascii_case("date") => {
                self.pos += 1;
                return match self.peek() {
                    Some(Tok::Str(s)) => {
                        let d = crate::date::parse(s).map_err(|e| Error::QueryParse {
                            pos: self.at(),
                            msg: e.to_string(),
                        })?;
                        self.pos += 1;
                        Ok(Value::Num(d as f64))
                    }
                    _ => self.err("expected a date string after DATE"),
                };
            }
            _ => return self.err("expected a number or a string"),
        };
        self.pos += 1;
        Ok(v)
    }

    fn query(&mut self) -> Result<Query> {
        self.expect_keyword("select")?;
        let mut select = Vec::new();
        if !self.sym("*") {
            loop {
                select.push(self.ident()?);
                if !self.sym(",") {
                    break;
                }
            }
        }
        self.expect_keyword("from")?;
        let table = self.ident()?;
        let mut predicates = Vec::new();
        if self.keyword("where") {
            loop {
                predicates.push(self.predicate()?);
                if !self.keyword("and") {
                    break;
                }
            }
        }
        let mut order_by = Vec::new();
        if self.keyword("order") {
            self.expect_keyword("by")?;
            loop {
                let column = self.ident()?;
                let descending = if self.keyword("desc") {
                    true
                } else {
                    self.keyword("asc");
                    false
                };
                order_by.push(OrderKey { column, descending });
                if !self.sym(",") {
                    break;
                }
            }
        }
        let mut limit = None;
        if self.keyword("limit") {
            match self.peek() {
                Some(Tok::Num(n)) if *n >= 0.0 && n.fract() == 0.0 => {
                    limit = Some(*n);
                    self.pos += 1;
                }
                _ => return self.err("LIMIT takes a whole number"),
            }
        }
        self.sym(";");
        if self.pos < self.toks.len() {
            return match self.peek() {
                Some(Tok::Ident(w)) if w.eq_ignore_ascii_case("or") => Err(Error::Unsupported(
                    "OR in WHERE (only AND of simple predicates)".into(),
                )),
                Some(Tok::Ident(w))
                    if w.eq_ignore_ascii_case("join") || w.eq_ignore_ascii_case("group") =>
                {
                    Err(Error::Unsupported(format!("{w} in a single-table query")))
                }
                _ => self.err("unexpected text after the query"),
            };
        }
        Ok(Query {
            table,
            select,
            predicates,
            order_by,
            limit,
        })
    }

    fn predicate(&mut self) -> Result<Predicate> {
        // constant op column
        if matches!(self.peek(), Some(Tok::Num(_)) | Some(Tok::Str(_))) {
            let value = self.value()?;
            let op = self.cmp_op()?;
            let column = self.ident()?;
            return Ok(Predicate::Cmp {
                column,
                op: op.commute(),
                value,
            });
        }
        let column = self.ident()?;
        if self.keyword("between") {
            let lo = self.value()?;
            self.expect_keyword("and")?;
            let hi = self.value()?;
            return Ok(Predicate::Between { column, lo, hi });
        }
        if self.keyword("in") {
            if !self.sym("(") {
                return self.err("expected ( after IN");
            }
            let mut values = Vec::new();
            loop {
                values.push(self.value()?);
                if !self.sym(",") {
                    break;
                }
            }
            if !self.sym(")") {
                return self.err("expected )");
            }
            return Ok(Predicate::In { column, values });
        }
        if self.keyword("not") || self.keyword("like") || self.keyword("is") {
            return Err(Error::Unsupported(
                "NOT, LIKE and IS [NOT] NULL predicates".into(),
            ));
        }
        let op = self.cmp_op()?;
        if matches!(self.peek(), Some(Tok::Ident(w)) if !w.eq_ignore_ascii_case("date")) {
            return Err(Error::Unsupported(
                "comparing two columns in one table".into(),
            ));
        }
        let value = self.value()?;
        Ok(Predicate::Cmp { column, op, value })
    }

    fn cmp_op(&mut self) -> Result<CmpOp> {
        let op = match self.peek() {
            Some(Tok::Sym("=")) => CmpOp::Eq,
            Some(Tok::Sym("<")) => CmpOp::Lt,
            Some(Tok::Sym("<=")) => CmpOp::Le,
            Some(Tok::Sym(">")) => CmpOp::Gt,
            Some(Tok::Sym(">=")) => CmpOp::Ge,
            Some(Tok::Sym("<>")) => return Err(Error::Unsupported("<> (not equal)".into())),
            _ => return self.err("expected a comparison (=, <, <=, >, >=, BETWEEN or IN)"),
        };
        self.pos += 1;
        Ok(op)
    }
}

fn is_reserved(w: &str) -> bool {
    [
        "select", "from", "where", "and", "order", "by", "limit", "between", "in", "or", "asc",
        "desc",
    ]
    .iter()
    .any(|k| w.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(x: f64) -> Value {
        Value::Num(x)
    }

    #[test]
    fn parses_the_t1_query() {
        let q = Query::parse("SELECT * FROM t1 WHERE i7 > 100 AND i7 < 2000 AND i8 = 2").unwrap();
        assert_eq!(q.table, "t1");
        assert!(q.select.is_empty());
        assert_eq!(
            q.predicates,
            vec![
                Predicate::Cmp {
                    column: "i7".into(),
                    op: CmpOp::Gt,
                    value: num(100.0)
                },
                Predicate::Cmp {
                    column: "i7".into(),
                    op: CmpOp::Lt,
                    value: num(2000.0)
                },
                Predicate::Cmp {
                    column: "i8".into(),
                    op: CmpOp::Eq,
                    value: num(2.0)
                },
            ]
        );
    }

    #[test]
    fn parses_between_in_order_limit_and_dates() {
        let q = Query::parse(
            "select a, b from t where a between -1.5 and 2e3 and b in ('x', 'it''s') \
             and c >= date '1994-01-01' and 5 < d order by a desc, b limit 10;",
        )
        .unwrap();
        assert_eq!(q.select, vec!["a", "b"]);
        assert_eq!(
            q.predicates[0],
            Predicate::Between {
                column: "a".into(),
                lo: num(-1.5),
                hi: num(2000.0)
            }
        );
        assert_eq!(
            q.predicates[1],
            Predicate::In {
                column: "b".into(),
                values: vec![Value::Text("x".into()), Value::Text("it's".into())]
            }
        );
        assert_eq!(
            q.predicates[2],
            Predicate::Cmp {
                column: "c".into(),
                op: CmpOp::Ge,
                value: num(8766.0)
            }
        );
        assert_eq!(
            q.predicates[3],
            Predicate::Cmp {
                column: "d".into(),
                op: CmpOp::Gt,
                value: num(5.0)
            }
        );
        assert_eq!(
            q.order_by,
            vec![
                OrderKey {
                    column: "a".into(),
                    descending: true
                },
                OrderKey {
                    column: "b".into(),
                    descending: false
                }
            ]
        );
        assert_eq!(q.limit, Some(10.0));
        assert_eq!(Query::parse(&q.sql()).unwrap(), q);
    }

    #[test]
    fn rejects_what_it_cannot_model_with_a_position() {
        for (sql, want) in [
            ("SELECT * FROM t WHERE a = 1 OR b = 2", "OR"),
            ("SELECT * FROM t WHERE a <> 1", "<>"),
            ("SELECT * FROM t WHERE a = b", "two columns"),
            ("SELECT * FROM t WHERE a = 'x", "unterminated"),
            ("SELECT * FROM t WHERE a = 1 LIMIT -1", "LIMIT"),
            ("SELECT * FROM", "expected a name"),
            ("DELETE FROM t", "expected select"),
            ("SELECT * FROM t WHERE a ~ 1", "unexpected `~`"),
            ("SELECT * FROM t WHERE a = 1e999", "out of range"),
            (
                "SELECT * FROM t WHERE d = date '1994-13-01'",
                "date/time field value out of range: \"1994-13-01\"",
            ),
            // Found by cargo xtask fuzz: the part after a dot was kept as a name even when
            // it was a number, and the query printed as SQL that does not read back.
            ("SELECT pk, i1.5e3 FROM t1", "`i1.5e3` is not a name"),
            ("SELECT * FROM t.5 WHERE i7 > 5", "`t.5` is not a name"),
            ("SELECT * FROM t1 WHERE t1. = 1", "`t1.` is not a name"),
            (
                "SELECT * FROM t1 WHERE t1..i7 = 1",
                "`t1..i7` is not a name",
            ),
            (
                "SELECT * FROM t WHERE d = date '1995-02-30'",
                "date/time field value out of range: \"1995-02-30\"",
            ),
        ] {
            let err = Query::parse(sql).unwrap_err().to_string();
            assert!(err.contains(want), "{sql}: {err}");
        }
    }

    #[test]
    fn qualified_names_keep_the_last_part() {
        let q = Query::parse("SELECT * FROM public.t1 WHERE t1.i7 = 1 AND _x.i8 < 2").unwrap();
        assert_eq!(q.table, "t1");
        assert_eq!(q.sql(), "SELECT * FROM t1 WHERE i7 = 1 AND i8 < 2");
    }

    proptest::proptest! {
        #[test]
        fn parser_never_panics(s in "\\PC{0,80}") {
            let _ = Query::parse(&s);
        }

        #[test]
        fn parser_never_panics_on_sqlish_input(s in "(SELECT|FROM|WHERE|AND|BETWEEN|IN|ORDER|BY|LIMIT|DATE|[a-z]{1,3}|[0-9.e-]{1,6}|'[a-z']{0,3}|[<>=(),*;]| ){0,24}") {
            let _ = Query::parse(&s);
        }
    }
}
