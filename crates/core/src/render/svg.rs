//! SVG written as text: elements with attributes, and text, every value escaped by
//! [`escape`], the one escaping rule of the page's and the command line's pictures and of
//! the HTML the page shows beside them. Attribute values are always double-quoted.
//!
//! Text, not a tree: a plan diagram has thousands of elements, and both the page (which
//! inserts the text as it comes) and the command line (which prints it) want a string.

use std::fmt::{self, Display, Write};

/// `s` escaped for SVG, XML and HTML, in element text and in quoted attribute values:
/// `&`, `<`, `>`, `"` and `'` become `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;`.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape_into(&mut out, s);
    out
}

/// [`escape`], appending to `out`.
pub fn escape_into(out: &mut String, s: &str) {
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// Escapes whatever is written through it (so `Display` values need no string of their
/// own first).
struct Escaping<'a>(&'a mut String);

impl Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape_into(self.0, s);
        Ok(())
    }
}

/// An attribute: its name and its value as `Display` writes it (`&format_args!("{x:.2}")`
/// for a number written to two places).
pub type Attr<'a> = (&'a str, &'a dyn Display);

/// SVG (or HTML) text being written: a document, or a fragment to [`append`](Svg::append).
/// Element and attribute names are the caller's constants and are written as they are;
/// attribute values and text are escaped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Svg {
    out: String,
}

impl Svg {
    pub fn new() -> Svg {
        Svg::default()
    }

    /// Room for `bytes` of text (a diagram's is tens of kB).
    pub fn with_capacity(bytes: usize) -> Svg {
        Svg {
            out: String::with_capacity(bytes),
        }
    }

    fn tag(&mut self, name: &str, attrs: &[Attr]) {
        self.out.push('<');
        self.out.push_str(name);
        for (k, v) in attrs {
            self.out.push(' ');
            self.out.push_str(k);
            self.out.push_str("=\"");
            let _ = write!(Escaping(&mut self.out), "{v}");
            self.out.push('"');
        }
    }

    /// `<name k="v" ...>`: an element whose content follows, up to [`close`](Svg::close).
    pub fn open(&mut self, name: &str, attrs: &[Attr]) -> &mut Svg {
        self.tag(name, attrs);
        self.out.push('>');
        self
    }

    /// `</name>`.
    pub fn close(&mut self, name: &str) -> &mut Svg {
        self.out.push_str("</");
        self.out.push_str(name);
        self.out.push('>');
        self
    }

    /// `<name k="v" .../>`: an element without content.
    pub fn empty(&mut self, name: &str, attrs: &[Attr]) -> &mut Svg {
        self.tag(name, attrs);
        self.out.push_str("/>");
        self
    }

    /// Text, escaped.
    #[inline]
    pub fn text(&mut self, text: impl Display) -> &mut Svg {
        self.text_dyn(&text)
    }

    // One body for every type of text (the page's bundle carries it once).
    fn text_dyn(&mut self, text: &dyn Display) -> &mut Svg {
        let _ = write!(Escaping(&mut self.out), "{text}");
        self
    }

    /// `<name k="v" ...>text</name>`.
    pub fn element(&mut self, name: &str, attrs: &[Attr], text: impl Display) -> &mut Svg {
        self.open(name, attrs).text_dyn(&text).close(name)
    }

    /// A fragment written by another `Svg` (already escaped), e.g. a picture's body written
    /// before its size was known.
    pub fn append(&mut self, fragment: &Svg) -> &mut Svg {
        self.out.push_str(&fragment.out);
        self
    }

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
    fn escapes_the_five_characters_and_nothing_else() {
        assert_eq!(
            escape(r#"a & b < c > d "e" 'f' · é"#),
            "a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39; · é"
        );
        assert_eq!(escape(""), "");
    }

    #[test]
    fn writes_elements_with_escaped_attributes_and_text() {
        let mut s = Svg::new();
        s.open(
            "svg",
            &[
                ("viewBox", &format_args!("0 0 {} {:.0}", 610.0, 99.6)),
                ("data-y", &""),
            ],
        )
        .open(
            "rect",
            &[
                ("x", &format_args!("{:.2}", 1.0 / 3.0)),
                ("fill", &"#0072b2"),
            ],
        )
        .element("title", &[], "Q1 plan A: a < b & \"c\"")
        .close("rect")
        .empty("circle", &[("data-at", &0.5), ("data-row", &3u32)])
        .text('\'')
        .close("svg");
        assert_eq!(
            s.as_str(),
            "<svg viewBox=\"0 0 610 100\" data-y=\"\"><rect x=\"0.33\" fill=\"#0072b2\">\
             <title>Q1 plan A: a &lt; b &amp; &quot;c&quot;</title></rect>\
             <circle data-at=\"0.5\" data-row=\"3\"/>&#39;</svg>"
        );
    }

    #[test]
    fn attribute_values_are_escaped_too() {
        let mut s = Svg::new();
        s.empty("a", &[("title", &"x\"y<z>&'")]);
        assert_eq!(s.as_str(), "<a title=\"x&quot;y&lt;z&gt;&amp;&#39;\"/>");
    }

    #[test]
    fn a_fragment_appends_as_written() {
        let mut body = Svg::new();
        body.element("text", &[("x", &1)], "<b>");
        let mut doc = Svg::with_capacity(64);
        doc.open("svg", &[]).append(&body).close("svg").text("\n");
        assert_eq!(
            doc.into_string(),
            "<svg><text x=\"1\">&lt;b&gt;</text></svg>\n"
        );
    }
}
