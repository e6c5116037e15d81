//! CSV, written field by field with RFC 4180's quoting: a field holding a comma, a double
//! quote, CR or LF is put in double quotes, its quotes doubled; any other is written as it
//! is. Rows end in LF, as these exports always have (RFC 4180's own rows end in CRLF;
//! readers take either).
//!
//! No crate: the `csv` crate's writer goes through `io::Write` and `csv-core`'s quoting
//! state machine, code the page's bundle would carry (not measured) for what these few
//! lines do.

use std::fmt::{Display, Write};

/// A CSV document being written.
#[derive(Debug, Default)]
pub struct Csv {
    out: String,
    /// Whether the current row has a field (the next one is preceded by a comma).
    in_row: bool,
}

impl Csv {
    pub fn new() -> Csv {
        Csv::default()
    }

    /// Appends a field to the current row, as `Display` writes it, quoted if it needs to be.
    #[inline]
    pub fn field(&mut self, value: impl Display) -> &mut Csv {
        self.field_dyn(&value)
    }

    // One body for every type of field (the page's bundle carries it once).
    fn field_dyn(&mut self, value: &dyn Display) -> &mut Csv {
        if self.in_row {
            self.out.push(',');
        }
        self.in_row = true;
        let start = self.out.len();
        let _ = write!(self.out, "{value}");
        if self.out[start..].contains([',', '"', '\r', '\n']) {
            let text = self.out.split_off(start);
            self.out.push('"');
            self.out.push_str(&text.replace('"', "\"\""));
            self.out.push('"');
        }
        self
    }

    /// Ends the current row.
    pub fn end_row(&mut self) -> &mut Csv {
        self.out.push('\n');
        self.in_row = false;
        self
    }

    /// Appends a whole row: its fields, then the row's end.
    pub fn row<T: Display>(&mut self, fields: impl IntoIterator<Item = T>) -> &mut Csv {
        for f in fields {
            self.field(f);
        }
        self.end_row()
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        &self.out
    }

    pub fn into_string(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_fields_with_a_comma_quote_cr_or_lf() {
        let mut c = Csv::new();
        c.row([
            "plain",
            "a,b",
            "say \"hi\"",
            "cr\rhere",
            "two\nlines",
            "",
            "it's",
        ]);
        assert_eq!(
            c.as_str(),
            "plain,\"a,b\",\"say \"\"hi\"\"\",\"cr\rhere\",\"two\nlines\",,it's\n"
        );
    }

    #[test]
    fn numbers_and_empty_rows_are_written_as_display_writes_them() {
        let mut c = Csv::new();
        c.field(1.5)
            .field(f64::NAN)
            .field(3u8)
            .field('A')
            .field("")
            .end_row();
        c.end_row();
        c.field(1e21).field(-0.0).end_row();
        assert_eq!(
            c.into_string(),
            "1.5,NaN,3,A,\n\n1000000000000000000000,-0\n"
        );
    }

    #[test]
    fn a_quoted_field_after_others_keeps_their_text() {
        let mut c = Csv::new();
        c.field("x")
            .field(format_args!("{}, {}", 1, 2))
            .field("y")
            .end_row();
        assert_eq!(c.as_str(), "x,\"1, 2\",y\n");
    }
}
