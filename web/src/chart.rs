//! Charts drawn through plotters' backend interface, so that the same code draws the canvas
//! on screen and the SVG a user exports. The layout (plotting area, grid, axes, labels,
//! legend) is done here rather than by the plotters crate, whose generic chart code (with
//! the drawing it was driven by) was about a ninth of the page's first load; the page draws through one backend type, [`Backend`],
//! so this code is compiled once into its bundle instead of once per backend.
//!
//! What a chart shows is `data`; `layout` places it in pixels, `axes` labels the axes,
//! `legend` says what is what, `canvas` holds the drawing's primitives and frame, `draw`
//! draws each kind of chart, `backend` is the canvas or SVG underneath and `export` the
//! SVG and CSV a user downloads.

mod axes;
mod backend;
mod canvas;
mod data;
mod draw;
mod export;
mod layout;
mod legend;

pub use axes::{axis_number, label_width, short_number, tick_count, tick_number, ticks};
pub use backend::{Backend, BackendError, LineBatch};
pub use canvas::NoGlyphs;
pub use data::{
    Band, ChartData, HeatMap, LineChart, Mark, MarkSeries, MarkShape, Marker, RGBColor,
    ScatterChart, Series, Theme, PALETTE,
};
pub use draw::draw;
pub use export::{to_csv, to_svg};
pub use layout::Geometry;
pub use legend::{legend, Legend, LegendEntry, Swatch, BAND_OPACITY};
