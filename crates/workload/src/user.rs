//! The user's own workload: their tables (a scenario file, as `costlab import` writes it)
//! and their queries as text. A text holds one query per statement (a SQL file, `;`
//! between them) or, when it has no `;` at all, one per line; `CREATE VIEW` statements go
//! with the query after them and `DROP VIEW`s with the one before, as the SQL front end
//! reads them. Each query is read in the dialect of the engine that plans it, so a text can
//! be fine for one engine and refused by the other.

use costlab_model::block::JoinQuery;
use costlab_model::catalog::Table;
use costlab_model::error::{Error, Result};
use costlab_model::plan::Name;
use costlab_sql::{read_query, Dialect};

/// The example workload's queries (over `static/example-shop.json`'s four tables), in SQL
/// both dialects read.
pub const EXAMPLE_QUERIES: &str = "\
SELECT c.city, count(*) FROM customers c JOIN orders o ON o.cust_id = c.cust_id
 WHERE o.ordered >= DATE '2020-01-01' AND o.ordered < DATE '2020-02-01' GROUP BY c.city;
SELECT p.title, l.qty FROM order_lines l JOIN products p ON p.prod_id = l.prod_id
 WHERE l.order_id BETWEEN 1000 AND 1100;
SELECT o.order_id, o.total FROM orders o JOIN customers c ON c.cust_id = o.cust_id
 WHERE c.city IN ('Porto', 'Cork') ORDER BY o.total DESC LIMIT 20;
SELECT c.name, sum(l.amount) FROM customers c JOIN orders o ON o.cust_id = c.cust_id
 JOIN order_lines l ON l.order_id = o.order_id
 WHERE c.vip AND o.ordered >= DATE '2023-01-01' GROUP BY c.name;
SELECT count(*) FROM products p WHERE p.price > 400
 AND EXISTS (SELECT 1 FROM order_lines l WHERE l.prod_id = p.prod_id AND l.qty = 10);
SELECT o.status, avg(o.total) FROM orders o JOIN customers c ON c.cust_id = o.cust_id
 WHERE c.signup > DATE '2022-01-01' GROUP BY o.status;
";

/// The most queries one workload holds: each is planned twice per engine on every change of
/// a knob, and a row of the page's table shows each.
pub const MAX_QUERIES: usize = 99;

/// The most bytes of query text one workload takes (the page's text box and files).
pub const MAX_TEXT_BYTES: usize = 256 * 1024;

/// One query's text, cut out of the workload's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryText {
    /// 1, 2, ... in the text's order.
    pub number: u8,
    /// Byte offset of `text` in the whole workload text.
    pub start: usize,
    pub text: String,
}

impl QueryText {
    /// The first line of the query, whitespace collapsed, cut at 60 characters.
    pub fn title(&self) -> String {
        let words: Vec<&str> = self.text.split_whitespace().collect();
        let line = words.join(" ");
        match line.char_indices().nth(60) {
            Some((i, _)) => format!("{}…", &line[..i]),
            None => line,
        }
    }
}

/// Cuts `text` into its queries (see the module's comment). Blank statements and lines,
/// and those that are only comments, are not queries.
pub fn split_queries(text: &str) -> Result<Vec<QueryText>> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(Error::invalid(
            "queries",
            format!(
                "the text has {} bytes; a workload takes at most {} KB of SQL",
                text.len(),
                MAX_TEXT_BYTES / 1024
            ),
        ));
    }
    let (statements, ended) = statements(text);
    let pieces: Vec<(usize, usize)> = if ended {
        group_views(text, &statements)
    } else {
        let mut lines = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            lines.push((at, at + line.len()));
            at += line.len();
        }
        lines
    };
    let mut out = Vec::new();
    for (start, end) in pieces {
        let piece = &text[start..end];
        if is_blank(piece) {
            continue;
        }
        let lead = piece.len() - piece.trim_start().len();
        let body = piece.trim();
        if out.len() == MAX_QUERIES {
            return Err(Error::invalid(
                "queries",
                format!("a workload takes at most {MAX_QUERIES} queries"),
            ));
        }
        out.push(QueryText {
            number: out.len() as u8 + 1,
            start: start + lead,
            text: body.to_string(),
        });
    }
    Ok(out)
}

/// Each query read against `tables` in `dialect`, numbered as in `texts`. A query whose
/// truth the workload does not know runs, in the simulation, with the engine's guesses
/// (`QueryBlock::assume_unknown_truth`).
pub fn read_queries(
    texts: &[QueryText],
    dialect: Dialect,
    tables: &[Table],
) -> Vec<Result<JoinQuery>> {
    texts
        .iter()
        .map(|q| {
            let mut block = read_query(&q.text, dialect, tables)?;
            block.assume_unknown_truth();
            Ok(JoinQuery {
                number: q.number,
                title: Name::from(q.title()),
                sql: Name::from(q.text.as_str()),
                block,
            })
        })
        .collect()
}

/// A query an engine's SQL front end refused: its number and text, the error, and the byte
/// span of the text the error names (both 0 when it names none).
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub number: u8,
    pub title: String,
    pub text: String,
    pub error: String,
    pub start: usize,
    pub end: usize,
}

/// The workload's queries as one engine reads them: those its front end takes, ready to
/// plan, and the others with why.
pub fn read_workload(
    texts: &[QueryText],
    dialect: Dialect,
    tables: &[Table],
) -> (Vec<JoinQuery>, Vec<Refusal>) {
    let mut queries = Vec::new();
    let mut refused = Vec::new();
    for (q, read) in texts.iter().zip(read_queries(texts, dialect, tables)) {
        match read {
            Ok(j) => queries.push(j),
            Err(e) => {
                let (start, end) = match &e {
                    Error::Sql { start, end, .. } => (*start, *end),
                    _ => (0, 0),
                };
                refused.push(Refusal {
                    number: q.number,
                    title: q.title(),
                    text: q.text.clone(),
                    error: e.to_string(),
                    start,
                    end,
                });
            }
        }
    }
    (queries, refused)
}

/// Byte ranges of the top-level statements of `text`, each without its `;`, and whether any
/// `;` ended one: quotes, quoted names and comments (MySQL's `#` too) are skipped, so a `;`
/// inside them does not end a statement.
fn statements(text: &str) -> (Vec<(usize, usize)>, bool) {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\\' && q == b'\'' {
                        i += 2;
                        continue;
                    }
                    if b[i] == q {
                        // A doubled quote is the quote itself.
                        if b.get(i + 1) == Some(&q) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b';' => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    let ended = !out.is_empty();
    if start < b.len() {
        out.push((start, b.len()));
    }
    (out, ended)
}

/// Statements grouped into queries: `CREATE ...` statements with the next statement, `DROP
/// ...` with the one before; each group's range runs from its first statement's start to
/// its last one's end (the `;` between them included).
fn group_views(text: &str, statements: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut pending: Option<usize> = None;
    for &(s, e) in statements {
        let piece = &text[s..e];
        if is_blank(piece) {
            continue;
        }
        let first = first_word(piece);
        if first.eq_ignore_ascii_case("create") {
            pending.get_or_insert(s);
        } else if first.eq_ignore_ascii_case("drop") && pending.is_none() && !out.is_empty() {
            out.last_mut().expect("not empty").1 = e;
        } else {
            out.push((pending.take().unwrap_or(s), e));
        }
    }
    if let Some(s) = pending {
        out.push((s, statements.last().map_or(s, |l| l.1)));
    }
    out
}

fn first_word(piece: &str) -> &str {
    let code = skip_comments(piece);
    let end = code
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(code.len());
    &code[..end]
}

/// `piece` from its first character that is neither white space nor in a comment.
fn skip_comments(mut piece: &str) -> &str {
    loop {
        piece = piece.trim_start();
        if piece.starts_with("--") || piece.starts_with('#') {
            piece = piece.find('\n').map_or("", |n| &piece[n + 1..]);
        } else if let Some(rest) = piece.strip_prefix("/*") {
            piece = rest.find("*/").map_or("", |n| &rest[n + 2..]);
        } else {
            return piece;
        }
    }
}

fn is_blank(piece: &str) -> bool {
    skip_comments(piece).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts(text: &str) -> Vec<String> {
        split_queries(text)
            .unwrap()
            .into_iter()
            .map(|q| {
                assert_eq!(&text[q.start..q.start + q.text.len()], q.text);
                q.text
            })
            .collect()
    }

    #[test]
    fn without_semicolons_each_line_is_a_query() {
        let t = "select * from a\n\n  -- a comment line\nselect 1 from b where x = 2\n";
        assert_eq!(texts(t), ["select * from a", "select 1 from b where x = 2"]);
    }

    #[test]
    fn a_sql_file_has_one_query_per_statement_with_its_views() {
        let t = "-- two queries\nselect a\n  from t where s = 'x;y';\n\
                 create view v as select 1 from t;\ncreate view w as select 2 from t;\n\
                 select * from v, w;\ndrop view v;\ndrop view w;\n\
                 select /* ; */ \"odd;name\" from t -- last ; one\n";
        let q = texts(t);
        assert_eq!(q.len(), 3, "{q:?}");
        assert_eq!(q[0], "-- two queries\nselect a\n  from t where s = 'x;y'");
        assert!(
            q[1].starts_with("create view v") && q[1].ends_with("drop view w"),
            "{}",
            q[1]
        );
        assert!(q[2].starts_with("select /* ; */") && q[2].ends_with("last ; one"));
        let numbers: Vec<u8> = split_queries(t).unwrap().iter().map(|q| q.number).collect();
        assert_eq!(numbers, [1, 2, 3]);
    }

    #[test]
    fn a_semicolon_only_in_a_quote_leaves_the_lines_apart() {
        assert_eq!(
            texts("select 'a;b' from t\nselect 2 from t"),
            ["select 'a;b' from t", "select 2 from t"]
        );
        assert_eq!(texts("select a\n  from t;"), ["select a\n  from t"]);
    }

    #[test]
    fn too_many_queries_or_bytes_are_refused() {
        let many = "select 1 from t;\n".repeat(MAX_QUERIES + 1);
        let e = split_queries(&many).unwrap_err().to_string();
        assert!(e.contains("at most 99 queries"), "{e}");
        let big = "x".repeat(MAX_TEXT_BYTES + 1);
        assert!(split_queries(&big)
            .unwrap_err()
            .to_string()
            .contains("KB of SQL"));
        assert!(split_queries(&"select 1 from t;\n".repeat(MAX_QUERIES)).is_ok());
    }

    #[test]
    fn a_title_is_the_query_on_one_line_cut_at_60_characters() {
        let q = &split_queries("select a,\n   b from t;").unwrap()[0];
        assert_eq!(q.title(), "select a, b from t");
        let long = format!("select {} from t", "é".repeat(80));
        let q = &split_queries(&long).unwrap()[0];
        assert_eq!(q.title().chars().count(), 61);
        assert!(q.title().ends_with('…'));
    }

    proptest! {
        // Any text splits without a panic into pieces that lie in it, in order, numbered.
        #[test]
        fn any_text_splits_into_pieces_of_itself(t in "[a-z ;'\"`\\-/*#\n\\\\é]{0,200}") {
            let qs = split_queries(&t).unwrap();
            let mut at = 0;
            for (i, q) in qs.iter().enumerate() {
                prop_assert_eq!(q.number as usize, i + 1);
                prop_assert!(q.start >= at);
                prop_assert_eq!(&t[q.start..q.start + q.text.len()], q.text.as_str());
                prop_assert!(!q.text.trim().is_empty());
                at = q.start + q.text.len();
            }
        }
    }
}
