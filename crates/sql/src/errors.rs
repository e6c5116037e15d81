//! Errors at a position: sqlparser's parse errors and the reader's refusals as
//! [`Error::Sql`], with the span of the text they mark.

use sqlparser::tokenizer::Span;

use costlab_model::error::Error;

use crate::reader::Reader;

/// A parse error of sqlparser as [`Error::Sql`], at the position its message names (the
/// end of the text when it names none: "found: EOF").
pub(crate) fn parse_error(text: &str, msg: &str) -> Error {
    let mut msg = msg.trim_start_matches("sql parser error: ").to_string();
    let pos = msg.rfind(" at Line: ").and_then(|i| {
        let rest = &msg[i + " at Line: ".len()..];
        let (l, c) = rest.split_once(", Column: ")?;
        let line: usize = l.trim().parse().ok()?;
        let col: usize = c.trim().parse().ok()?;
        Some((i, line, col))
    });
    let (start, line, column) = match pos {
        Some((i, line, col)) => {
            msg.truncate(i);
            (offset(text, line, col), line, col)
        }
        None => {
            let (line, col) = line_col(text, text.len());
            (text.len(), line, col)
        }
    };
    Error::Sql {
        msg,
        start,
        end: text.len().max(start),
        line,
        column,
    }
}

/// Byte offset of (line, column), both from 1, column in characters.
pub(crate) fn offset(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return start
                + l.char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(l.len(), |(b, _)| b);
        }
        start += l.len();
    }
    text.len()
}

pub(crate) fn line_col(text: &str, pos: usize) -> (usize, usize) {
    let before = &text[..pos.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl<'a> Reader<'a> {
    pub(crate) fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        let (start, end) = if span.start.line == 0 {
            (0, self.text.len())
        } else {
            (
                offset(
                    self.text,
                    span.start.line as usize,
                    span.start.column as usize,
                ),
                offset(self.text, span.end.line as usize, span.end.column as usize),
            )
        };
        let (line, column) = line_col(self.text, start);
        Error::Sql {
            msg: msg.into(),
            start,
            end: end.max(start),
            line,
            column,
        }
    }

    pub(crate) fn not_modelled(&self, span: Span, what: &str) -> Error {
        self.err(span, format!("{what} is not modelled"))
    }
}
