//! Output formats as text, for the page and the command line alike: [`svg`] writes SVG (and
//! the HTML the page shows beside a picture) with one escaping rule, [`csv`] writes CSV with
//! RFC 4180's quoting. What is drawn or tabulated stays with the caller; these only write.

pub mod csv;
pub mod svg;
