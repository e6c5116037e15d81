//! Charts drawn through plotters' backend interface, so that the same code draws the canvas
//! on screen and the SVG a user exports. The layout (plotting area, grid, axes, labels,
//! legend) is done here rather than by the plotters crate, whose generic chart code (with
//! the drawing it was driven by) was about a ninth of the page's first load; the page draws through one backend type, [`Backend`],
//! so this code is compiled once into its bundle instead of once per backend.

use costlab_core::render::csv::Csv;
use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontFamily, FontTransform,
};
use plotters_canvas::CanvasBackend;
use plotters_svg::SVGBackend;

/// A colour of the charts: red, green, blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RGBColor(pub u8, pub u8, pub u8);

/// Okabe–Ito colours: distinguishable with the common forms of colour blindness.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(240, 228, 66),
];

/// Dash patterns paired with the colours, so lines differ by more than hue.
const DASHES: [Option<(u32, u32)>; 4] = [None, Some((8, 4)), Some((2, 3)), Some((12, 3))];

#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    /// Index into [`PALETTE`]; stable per path so colours do not jump between views.
    pub color: usize,
    pub points: Vec<(f64, f64)>,
}

/// A band between two curves (regret: chosen time above the fastest time).
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    pub label: String,
    /// (x, low, high)
    pub points: Vec<(f64, f64, f64)>,
}

/// A vertical line at `x` with a label, and a shorter label for a plot too narrow for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub label: String,
    pub short: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Drawn thick underneath the series: the chosen plan's cost, or the fastest time.
    pub envelope: Option<Series>,
    pub band: Option<Band>,
    /// Vertical markers (switch points) with their labels.
    pub markers: Vec<Marker>,
    pub log_y: bool,
}

/// The plan chosen over a grid of (x, knob value), one colour per plan.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatMap {
    pub x_label: String,
    pub y_label: String,
    pub xs: Vec<f64>,
    pub ys: Vec<f64>,
    /// `cells[j][i]`: index into `plans` chosen at (xs[i], ys[j]); `None` where planning failed.
    pub cells: Vec<Vec<Option<usize>>>,
    /// Plan labels with their palette colour.
    pub plans: Vec<(String, usize)>,
    pub log_y: bool,
    /// Horizontal lines: the current constant, the fitted one.
    pub lines: Vec<(f64, String)>,
    /// Located plan switches, drawn as dots: (axis, row, column, value): along x (axis 0)
    /// at (value, row's y) between columns `column` and `column + 1`; along y (axis 1) at
    /// (column's x, value) between rows `row` and `row + 1`.
    pub switches: Vec<(u8, usize, usize, f64)>,
}

/// Marks on log-log axes: the validation report's simulated against real times.
#[derive(Clone, Debug, PartialEq)]
pub struct ScatterChart {
    pub x_label: String,
    pub y_label: String,
    /// Both axes' range in data units (positive; both axes are logarithmic, the same range
    /// on each, so the diagonal runs corner to corner).
    pub range: (f64, f64),
    /// Drawn in order, each in its colour and shape.
    pub series: Vec<MarkSeries>,
    /// The diagonal y = x, with its legend label.
    pub diagonal: String,
    /// The band from y = x / f to y = x * f: (f, legend label).
    pub band: Option<(f64, String)>,
    /// A dashed vertical line (the limit past which plans were stopped): (x, label).
    pub limit: Option<(f64, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MarkSeries {
    pub label: String,
    /// Index into [`PALETTE`].
    pub color: usize,
    pub shape: MarkShape,
    /// Hollow marks are outlines only.
    pub filled: bool,
    pub marks: Vec<Mark>,
}

/// The shape of a scatter's marks, so series differ by more than hue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkShape {
    Circle,
    Triangle,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub y: f64,
    /// What the mark's tooltip says.
    pub title: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ChartData {
    Lines(LineChart),
    Heat(HeatMap),
    Scatter(ScatterChart),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub background: RGBColor,
    pub foreground: RGBColor,
    pub grid: RGBColor,
}

impl Theme {
    pub fn new(dark: bool) -> Theme {
        if dark {
            Theme {
                background: RGBColor(13, 17, 23),
                foreground: RGBColor(230, 237, 243),
                grid: RGBColor(48, 54, 61),
            }
        } else {
            Theme {
                background: RGBColor(255, 255, 255),
                foreground: RGBColor(27, 31, 36),
                grid: RGBColor(216, 222, 228),
            }
        }
    }
}

/// Where the plotting area landed, to map a pointer position back to data.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Geometry {
    /// The whole drawing, backend pixels.
    pub size: (u32, u32),
    pub px_x: (i32, i32),
    pub px_y: (i32, i32),
    /// The axes' ranges as drawn (log10 of the data on a log axis).
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub log_x: bool,
    pub log_y: bool,
}

impl Geometry {
    /// Data x at backend pixel `px`, if inside the plotting area.
    pub fn x_at(&self, px: f64) -> Option<f64> {
        let (a, b) = (self.px_x.0 as f64, self.px_x.1 as f64);
        let v = (b > a && px >= a && px <= b)
            .then(|| self.x.0 + (px - a) / (b - a) * (self.x.1 - self.x.0))?;
        Some(if self.log_x { 10f64.powf(v) } else { v })
    }

    /// The backend pixel of data point (x, y), kept inside the plotting area as a scatter
    /// draws its marks; `None` for a value a log axis cannot place.
    pub fn pixel_of(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let (x, y) = (to_y(x, self.log_x), to_y(y, self.log_y));
        if !x.is_finite() || !y.is_finite() {
            return None;
        }
        let (left, right) = (self.px_x.0 as f64, self.px_x.1 as f64);
        let (top, bottom) = (self.px_y.0 as f64, self.px_y.1 as f64);
        let fx = (x - self.x.0) / (self.x.1 - self.x.0);
        let fy = (y - self.y.0) / (self.y.1 - self.y.0);
        (fx.is_finite() && fy.is_finite()).then(|| {
            (
                left + fx.clamp(0.0, 1.0) * (right - left),
                bottom - fy.clamp(0.0, 1.0) * (bottom - top),
            )
        })
    }

    /// Data y at backend pixel `py` (top is high), undoing the log transform.
    pub fn y_at(&self, py: f64) -> Option<f64> {
        let (top, bottom) = (self.px_y.0 as f64, self.px_y.1 as f64);
        if bottom <= top || py < top || py > bottom {
            return None;
        }
        let v = self.y.1 - (py - top) / (bottom - top) * (self.y.1 - self.y.0);
        Some(if self.log_y { 10f64.powf(v) } else { v })
    }
}

fn to_y(v: f64, log: bool) -> f64 {
    if log {
        if v > 0.0 {
            v.log10()
        } else {
            f64::NAN
        }
    } else {
        v
    }
}

fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut r: Option<(f64, f64)> = None;
    for v in values.filter(|v| v.is_finite()) {
        r = Some(match r {
            None => (v, v),
            Some((a, b)) => (a.min(v), b.max(v)),
        });
    }
    r
}

fn pad(r: Option<(f64, f64)>, from_zero: bool) -> (f64, f64) {
    match r {
        Some((a, b)) if b > a => {
            let lo = if from_zero {
                a.min(0.0)
            } else {
                a - (b - a) * 0.03
            };
            (lo, b + (b - a) * 0.05)
        }
        Some((a, _)) => (a - 0.5, a + 0.5),
        None => (0.0, 1.0),
    }
}

/// Axis label text: 1234567 → "1.23M", with powers of ten undone on log axes.
pub fn axis_number(v: f64, log: bool) -> String {
    tick_number(if log { 10f64.powf(v) } else { v })
}

pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.3}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a >= 1e-3 {
        format!("{v:.4}")
    } else {
        format!("{v:.1e}")
    }
}

/// Axis tick text: like [`short_number`] without trailing zeros ("2.00" reads "2"), so
/// the labels a narrow chart can fit are as short as they can be.
pub fn tick_number(v: f64) -> String {
    let s = short_number(v);
    // Exponent forms ("1.5e-4") and suffixed forms ("1.20k") keep their digits apart.
    let (digits, suffix) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => s.split_at(i),
        None => (s.as_str(), ""),
    };
    if !digits.contains('.') || suffix.starts_with('e') {
        return s.clone();
    }
    let trimmed = digits.trim_end_matches('0').trim_end_matches('.');
    format!("{trimmed}{suffix}")
}

/// Pixels a tick label of `text` takes in a sans-serif font of `font_px` pixels: digits and
/// most letters are about 0.6 em wide; an estimate on the wide side, since a canvas cannot be
/// asked before drawing.
pub fn label_width(text: &str, font_px: f64) -> f64 {
    text.chars().count() as f64 * 0.6 * font_px
}

/// How many ticks an axis of `length_px` pixels over `range` can carry: the most (up to 11,
/// plotters' default, which a wide chart keeps) whose labels, written by `format`, keep at
/// least `gap_px` between each other. `extent` is the room a label takes along the axis
/// (its width on the x axis, its height on y).
pub fn tick_count(
    range: (f64, f64),
    length_px: f64,
    gap_px: f64,
    format: &dyn Fn(f64) -> String,
    extent: &dyn Fn(&str) -> f64,
) -> usize {
    let (lo, hi) = range;
    // Also refuses NaN: a chart without data or without room gets the two ends.
    let usable = hi.partial_cmp(&lo) == Some(std::cmp::Ordering::Greater)
        && length_px.partial_cmp(&0.0) == Some(std::cmp::Ordering::Greater);
    if !usable {
        return 2;
    }
    for n in (2..=11usize).rev() {
        let ticks = ticks(range, n);
        if ticks.len() < 2 {
            return n;
        }
        let per_unit = length_px / (hi - lo);
        let fits = ticks.windows(2).all(|w| {
            let room = (w[1] - w[0]) * per_unit;
            let need = (extent(&format(w[0])) + extent(&format(w[1]))) / 2.0 + gap_px;
            room >= need
        });
        if fits {
            return n;
        }
    }
    2
}

/// Where the legend goes: drawn inside the plot (exports, which must stand alone), or left
/// to the page, which writes it as text under the chart where it never covers a curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legend {
    Inside,
    Outside,
}

/// What one legend entry's sample looks like.
#[derive(Clone, Debug, PartialEq)]
pub enum Swatch {
    /// A line in a palette colour (`None`: the foreground, faint), `width` px, with a dash
    /// pattern (dash, gap) or solid.
    Line {
        color: Option<usize>,
        width: u32,
        dash: Option<(u32, u32)>,
    },
    /// A filled patch in a palette colour at an opacity (`None`: the foreground).
    Fill { color: Option<usize>, opacity: f64 },
    /// A scatter's mark.
    Mark {
        color: usize,
        shape: MarkShape,
        filled: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    pub swatch: Swatch,
}

/// The legend of a chart, in the order the chart draws its series.
pub fn legend(data: &ChartData) -> Vec<LegendEntry> {
    match data {
        ChartData::Lines(c) => {
            let mut out = Vec::new();
            if let Some(b) = c.band.as_ref().filter(|b| {
                b.points
                    .iter()
                    .filter(|p| to_y(p.2, c.log_y).is_finite())
                    .count()
                    > 1
            }) {
                out.push(LegendEntry {
                    label: b.label.clone(),
                    swatch: Swatch::Fill {
                        color: Some(1),
                        opacity: 0.25,
                    },
                });
            }
            if let Some(e) = &c.envelope {
                out.push(LegendEntry {
                    label: e.label.clone(),
                    swatch: Swatch::Line {
                        color: None,
                        width: 8,
                        dash: None,
                    },
                });
            }
            // Only what is drawn: a path with no finite point in the sweep has no line.
            let drawn = |s: &&Series| s.points.iter().any(|p| to_y(p.1, c.log_y).is_finite());
            out.extend(c.series.iter().filter(drawn).map(|s| LegendEntry {
                label: s.label.clone(),
                swatch: Swatch::Line {
                    color: Some(s.color % PALETTE.len()),
                    width: 3,
                    dash: DASHES[s.color % DASHES.len()],
                },
            }));
            out
        }
        ChartData::Heat(h) => h
            .plans
            .iter()
            .map(|(label, color)| LegendEntry {
                label: label.clone(),
                swatch: Swatch::Fill {
                    color: Some(color % PALETTE.len()),
                    opacity: 0.75,
                },
            })
            .collect(),
        ChartData::Scatter(c) => {
            let mut out = vec![LegendEntry {
                label: c.diagonal.clone(),
                swatch: Swatch::Line {
                    color: None,
                    width: 2,
                    dash: None,
                },
            }];
            if let Some((_, label)) = &c.band {
                out.push(LegendEntry {
                    label: label.clone(),
                    swatch: Swatch::Fill {
                        color: None,
                        opacity: BAND_OPACITY,
                    },
                });
            }
            // Only series with marks: "stopped at the limit" appears when a plan was.
            out.extend(
                c.series
                    .iter()
                    .filter(|s| !s.marks.is_empty())
                    .map(|s| LegendEntry {
                        label: s.label.clone(),
                        swatch: Swatch::Mark {
                            color: s.color % PALETTE.len(),
                            shape: s.shape,
                            filled: s.filled,
                        },
                    }),
            );
            out
        }
    }
}

/// The 2x band's opacity over the background, in the chart and its legend.
pub const BAND_OPACITY: f64 = 0.12;

/// Label counts for a plot of `size` (backend pixels) over x and y ranges.
fn tick_counts(
    size: (u32, u32),
    x: (f64, f64),
    y: (f64, f64),
    y_format: &dyn Fn(f64) -> String,
    scale: f64,
) -> (usize, usize) {
    let font = 13.0 * scale;
    let plot_w = size.0 as f64 - (72.0 + 10.0 + 28.0) * scale;
    let plot_h = size.1 as f64 - (40.0 + 20.0) * scale;
    let xs = tick_count(x, plot_w, 10.0 * scale, &tick_number, &|t| {
        label_width(t, font)
    });
    let ys = tick_count(y, plot_h, 0.6 * font, y_format, &|_| font);
    (xs, ys)
}

/// Draws a chart filling `backend`; `scale` multiplies text and line sizes (the pixel ratio).
/// The number of axis labels follows the plot's size in pixels, so labels never overlap.
pub fn draw<DB: DrawingBackend>(
    backend: &mut DB,
    data: &ChartData,
    theme: Theme,
    scale: f64,
    legend: Legend,
) -> Result<Geometry, String> {
    backend.ensure_prepared().map_err(|e| e.to_string())?;
    let mut canvas = Canvas {
        b: backend,
        scale,
        theme,
    };
    let mut keys = Vec::new();
    let plot = match data {
        ChartData::Lines(c) => draw_lines(&mut canvas, c, &mut keys),
        ChartData::Heat(h) => draw_heat(&mut canvas, h, &mut keys),
        #[cfg(feature = "full")]
        ChartData::Scatter(c) => draw_scatter(&mut canvas, c, &mut keys),
        // Only the validation view draws scatters, and it is in the full playground.
        #[cfg(not(feature = "full"))]
        ChartData::Scatter(_) => return Err("scatters are drawn by the full playground".into()),
    }
    .map_err(|e| e.to_string())?;
    if legend == Legend::Inside {
        canvas.legend(&plot, &keys).map_err(|e| e.to_string())?;
    }
    canvas.b.present().map_err(|e| e.to_string())?;
    Ok(Geometry {
        size: canvas.b.get_size(),
        px_x: (plot.left, plot.right),
        px_y: (plot.top, plot.bottom),
        x: plot.x,
        y: plot.y,
        log_x: plot.log.0,
        log_y: plot.log.1,
    })
}

type Drawn<T, DB> = Result<T, DrawingErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A line's colour and width, as the backends take it.
#[derive(Clone, Copy)]
struct Pen {
    color: BackendColor,
    width: u32,
}

impl BackendStyle for Pen {
    fn color(&self) -> BackendColor {
        self.color
    }

    fn stroke_width(&self) -> u32 {
        self.width
    }
}

/// Sans-serif text at a size, colour, anchor, upright or turned to read upwards. Both
/// backends write text themselves (`fillText`, `<text>`), so no glyph is ever laid out here.
#[derive(Clone, Copy)]
struct Font {
    size: f64,
    color: BackendColor,
    anchor: Pos,
    upwards: bool,
}

/// Never made: a [`Font`] measures with [`label_width`] and draws nothing itself.
#[derive(Debug)]
pub struct NoGlyphs;

impl std::fmt::Display for NoGlyphs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no glyph rendering")
    }
}

impl std::error::Error for NoGlyphs {}

impl BackendTextStyle for Font {
    type FontError = NoGlyphs;

    fn color(&self) -> BackendColor {
        self.color
    }

    fn size(&self) -> f64 {
        self.size
    }

    fn transform(&self) -> FontTransform {
        if self.upwards {
            FontTransform::Rotate270
        } else {
            FontTransform::None
        }
    }

    fn anchor(&self) -> Pos {
        self.anchor
    }

    fn family(&self) -> FontFamily<'_> {
        // The page's own family (style.css): the same 13 px text as the page's small text
        // costs a first drawing no font lookup; the generic sans-serif alone cost six
        // (Chromium tries Arial, Helvetica, Times and more before the fontconfig default).
        FontFamily::Name("system-ui, sans-serif")
    }

    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), NoGlyphs> {
        Ok((
            (0, 0),
            (label_width(text, self.size) as i32, self.size as i32),
        ))
    }

    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        _: &str,
        _: BackendCoord,
        _: F,
    ) -> Result<Result<(), E>, NoGlyphs> {
        Err(NoGlyphs)
    }
}

/// `v` in `range` to a pixel between `a` and `b` (either way round), rounding as plotters
/// did so that lines stay on the pixels the earlier charts used.
fn to_px(v: f64, (lo, hi): (f64, f64), (a, b): (i32, i32)) -> i32 {
    if hi == lo {
        return (b - a) / 2;
    }
    let t = (v - lo) / (hi - lo);
    let len = b - a;
    if len == 0 {
        return b;
    }
    if t.is_infinite() {
        return if t > 0.0 { b } else { a };
    }
    if len > 0 {
        a + (len as f64 * t + 1e-3).floor() as i32
    } else {
        a + (len as f64 * t - 1e-3).ceil() as i32
    }
}

/// The plotting area in backend pixels (right and bottom exclusive) and the data ranges it
/// shows (log10 of the data on a log axis).
struct Plot {
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
    x: (f64, f64),
    y: (f64, f64),
    log: (bool, bool),
}

impl Plot {
    /// The pixel of (x, y) in axis units.
    fn at(&self, x: f64, y: f64) -> BackendCoord {
        (
            to_px(x, self.x, (self.left, self.right - 1)),
            to_px(y, self.y, (self.bottom - 1, self.top)),
        )
    }
}

/// What a chart's axes show: label counts, formats and descriptions, and the grid.
struct Axes<'a> {
    ticks: (usize, usize),
    format: (&'a dyn Fn(f64) -> String, &'a dyn Fn(f64) -> String),
    desc: (&'a str, &'a str),
    /// Bold grid lines at the labels, and light ones up to ten times as many (0: none).
    grid: bool,
    light: usize,
}

/// One legend entry of an export: the label and its sample.
enum Key<'a> {
    Fill(&'a str, BackendColor),
    Line(&'a str, Pen),
    #[cfg(feature = "full")]
    Mark(&'a str, MarkShape, BackendColor, bool),
}

impl Key<'_> {
    fn label(&self) -> &str {
        match self {
            Key::Fill(l, _) | Key::Line(l, _) => l,
            #[cfg(feature = "full")]
            Key::Mark(l, ..) => l,
        }
    }
}

fn rgb(c: RGBColor, alpha: f64) -> BackendColor {
    BackendColor {
        alpha,
        rgb: (c.0, c.1, c.2),
    }
}

/// The backend with the drawing's scale and theme.
struct Canvas<'b, DB: DrawingBackend> {
    b: &'b mut DB,
    scale: f64,
    theme: Theme,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    /// `v` CSS pixels in backend pixels, at least one.
    fn px(&self, v: f64) -> u32 {
        (v * self.scale).round().max(1.0) as u32
    }

    fn pen(&self, color: BackendColor, width: f64) -> Pen {
        Pen {
            color,
            width: self.px(width),
        }
    }

    fn font(&self, h: HPos, v: VPos) -> Font {
        Font {
            size: self.px(13.0) as f64,
            color: rgb(self.theme.foreground, 1.0),
            anchor: Pos::new(h, v),
            upwards: false,
        }
    }

    fn text(&mut self, text: &str, font: Font, at: BackendCoord) -> Drawn<(), DB> {
        self.b.draw_text(text, &font, at)
    }

    fn line(&mut self, points: &[BackendCoord], pen: Pen) -> Drawn<(), DB> {
        self.b.draw_path(points.iter().copied(), &pen)
    }

    /// A polyline drawn as dashes of `dash` pixels with `gap` pixels between them, the
    /// pattern running on across its corners (a dash over a corner bends with it).
    fn dashed(&mut self, points: &[BackendCoord], dash: u32, gap: u32, pen: Pen) -> Drawn<(), DB> {
        let (dash, period) = (dash as f64, (dash + gap) as f64);
        let (mut phase, mut current) = (0.0, Vec::new());
        for w in points.windows(2) {
            let (a, b) = (
                (w[0].0 as f64, w[0].1 as f64),
                (w[1].0 as f64, w[1].1 as f64),
            );
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            let at = |d: f64| {
                let t = d / len;
                (
                    (a.0 + (b.0 - a.0) * t).round() as i32,
                    (a.1 + (b.1 - a.1) * t).round() as i32,
                )
            };
            let mut d = 0.0;
            while d < len {
                let into = phase % period;
                let step = if into < dash {
                    dash - into
                } else {
                    period - into
                };
                let end = (d + step).min(len);
                if into < dash {
                    if current.is_empty() {
                        current.push(at(d));
                    }
                    current.push(at(end));
                    if d + step <= len {
                        self.line(&current, pen)?;
                        current.clear();
                    }
                }
                phase += end - d;
                d = end;
            }
        }
        if current.len() > 1 {
            self.line(&current, pen)?;
        }
        Ok(())
    }

    /// Fills the background, lays out the plotting area (plotters' chart builder's layout:
    /// a 10 px margin, 28 px on the right, 40 px of labels under the plot and 72 px left of
    /// it) and draws the grid, the axes, their labels and descriptions.
    fn frame(
        &mut self,
        x: (f64, f64),
        y: (f64, f64),
        log: (bool, bool),
        axes: &Axes,
    ) -> Drawn<Plot, DB> {
        let (w, h) = self.b.get_size();
        let bg = rgb(self.theme.background, 1.0);
        self.b.draw_rect((0, 0), (w as i32, h as i32), &bg, true)?;
        let p = |v: f64| self.px(v) as i32;
        let (margin, right_margin, under, beside) = (p(10.0), p(28.0), p(40.0), p(72.0));
        let tick = p(5.0);
        let plot = Plot {
            left: margin + beside,
            right: (w as i32 - right_margin).max(margin + beside + 1),
            top: margin,
            bottom: (h as i32 - margin - under).max(margin + 1),
            x,
            y,
            log,
        };
        let (xs, ys) = (ticks(x, axes.ticks.0), ticks(y, axes.ticks.1));
        if axes.grid {
            let light = self.pen(rgb(self.theme.grid, 0.4), 1.0);
            let bold = self.pen(rgb(self.theme.grid, 1.0), 1.0);
            let n = axes.light;
            let mut lines = |xs: &[f64], ys: &[f64], pen: Pen| -> Drawn<(), DB> {
                for &v in xs {
                    let (px, _) = plot.at(v, y.0);
                    self.b
                        .draw_line((px, plot.bottom - 1), (px, plot.top), &pen)?;
                }
                for &v in ys {
                    let (_, py) = plot.at(x.0, v);
                    self.b
                        .draw_line((plot.left, py), (plot.right - 1, py), &pen)?;
                }
                Ok(())
            };
            if n > 0 {
                lines(
                    &ticks(x, axes.ticks.0 * n),
                    &ticks(y, axes.ticks.1 * n),
                    light,
                )?;
            }
            lines(&xs, &ys, bold)?;
        }
        let ink = self.pen(rgb(self.theme.foreground, 1.0), 1.0);
        // The y axis: its line just left of the plot, labels right-aligned 2 ticks away.
        let axis_x = plot.left - 1;
        self.line(&[(axis_x, plot.top), (axis_x, plot.bottom - 1)], ink)?;
        let label = self.font(HPos::Right, VPos::Center);
        for &v in &ys {
            let (_, py) = plot.at(x.0, v);
            self.text(&(axes.format.1)(v), label, (axis_x - 2 * tick + 1, py))?;
            self.line(&[(axis_x - tick, py), (axis_x, py)], ink)?;
        }
        // The x axis: its line just under the plot, labels centred under their ticks.
        self.line(
            &[(plot.left, plot.bottom), (plot.right - 1, plot.bottom)],
            ink,
        )?;
        let label = self.font(HPos::Center, VPos::Top);
        for &v in &xs {
            let (px, _) = plot.at(v, y.0);
            self.text(&(axes.format.0)(v), label, (px, plot.bottom + 2 * tick))?;
            self.line(&[(px, plot.bottom), (px, plot.bottom + tick)], ink)?;
        }
        let mut upwards = self.font(HPos::Center, VPos::Top);
        upwards.upwards = true;
        self.text(axes.desc.1, upwards, (margin, (plot.top + plot.bottom) / 2))?;
        let under_font = self.font(HPos::Center, VPos::Bottom);
        self.text(
            axes.desc.0,
            under_font,
            ((plot.left + plot.right) / 2, plot.bottom + under),
        )?;
        Ok(plot)
    }

    /// The legend of an export, inside the plot at its lower right: a frame, each entry's
    /// sample in a 30 px column and its label, lines 1.25 font heights apart.
    fn legend(&mut self, plot: &Plot, keys: &[Key]) -> Drawn<(), DB> {
        if keys.is_empty() {
            return Ok(());
        }
        let size = self.px(13.0) as f64;
        let line = (size * 1.25).round() as i32;
        let widest = keys
            .iter()
            .map(|k| label_width(k.label(), size))
            .fold(0.0, f64::max) as i32;
        let (margin, sample) = (10, 30);
        let (w, h) = (
            widest + sample + 2 * margin,
            line * keys.len() as i32 + 2 * margin,
        );
        let (x, y) = (plot.right - w - 5, plot.bottom - h - 5);
        let fill = rgb(self.theme.background, 0.85);
        self.b.draw_rect((x, y), (x + w, y + h), &fill, true)?;
        let edge = rgb(self.theme.grid, 1.0);
        self.b.draw_rect((x, y), (x + w, y + h), &edge, false)?;
        let font = self.font(HPos::Left, VPos::Center);
        for (i, key) in keys.iter().enumerate() {
            let mid = y + margin + line * i as i32 + line / 2;
            let at = x + margin;
            self.text(key.label(), font, (at + sample, mid))?;
            match *key {
                Key::Fill(_, c) => self
                    .b
                    .draw_rect((at, mid - 5), (at + 20, mid + 5), &c, true)?,
                Key::Line(_, pen) => self.line(&[(at, mid), (at + 20, mid)], pen)?,
                #[cfg(feature = "full")]
                Key::Mark(_, shape, c, filled) => {
                    let r = if shape == MarkShape::Circle { 4 } else { 5 };
                    self.mark((at + 10, mid), shape, r, c, filled, 2)?
                }
            }
        }
        Ok(())
    }

    #[cfg(feature = "full")]
    /// A scatter mark of radius `r` pixels centred on `at`: filled, or outlined `width` wide.
    /// Triangles by fixed offsets (7/8 of the radius to each side, half of it down), not
    /// by sine and cosine.
    fn mark(
        &mut self,
        at: BackendCoord,
        shape: MarkShape,
        r: i32,
        color: BackendColor,
        filled: bool,
        width: u32,
    ) -> Drawn<(), DB> {
        let pen = Pen { color, width };
        match shape {
            MarkShape::Circle => self.b.draw_circle(at, r as u32, &pen, filled),
            MarkShape::Triangle => {
                let (x, y) = at;
                let corners = [
                    (x, y - r),
                    (x + r * 7 / 8, y + r / 2),
                    (x - r * 7 / 8, y + r / 2),
                ];
                if filled {
                    self.b.fill_polygon(corners, &pen)
                } else {
                    self.line(&[corners[0], corners[1], corners[2], corners[0]], pen)
                }
            }
        }
    }
}

/// Round values for at most `max` labels over `range`: every multiple in it of a step of
/// 1, 2 or 5 times a power of ten, the smallest such step that keeps to `max`.
pub fn ticks((lo, hi): (f64, f64), max: usize) -> Vec<f64> {
    if max == 0 || !lo.is_finite() || !hi.is_finite() || hi <= lo {
        return Vec::new();
    }
    let mut step = 10f64.powi((hi - lo).log10().floor() as i32 - 3);
    // A range too narrow or too wide for a power of ten (subnormal, near f64::MAX) has
    // no labels rather than a step of 0 or infinity.
    while step > 0.0 && step.is_finite() {
        for m in [1.0, 2.0, 5.0] {
            let s = step * m;
            let (first, last) = ((lo / s).ceil(), (hi / s).floor());
            if last - first + 1.0 <= max as f64 {
                return (first as i64..=last as i64).map(|i| i as f64 * s).collect();
            }
        }
        step *= 10.0;
    }
    Vec::new()
}

fn draw_lines<'d, DB: DrawingBackend>(
    c: &mut Canvas<DB>,
    data: &'d LineChart,
    keys: &mut Vec<Key<'d>>,
) -> Drawn<Plot, DB> {
    let log = data.log_y;
    let (x0, x1) = finite_range(
        data.series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0)),
    )
    .unwrap_or((0.0, 1.0));
    let ys = data
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| to_y(p.1, log)))
        .chain(
            data.band
                .iter()
                .flat_map(|b| b.points.iter().map(|p| to_y(p.2, log))),
        );
    let (y0, y1) = pad(finite_range(ys), !log);
    let x1 = x1.max(x0 + f64::EPSILON);
    let y_format = |v| axis_number(v, log);
    let axes = Axes {
        ticks: tick_counts(c.b.get_size(), (x0, x1), (y0, y1), &y_format, c.scale),
        format: (&tick_number, &y_format),
        desc: (&data.x_label, &data.y_label),
        grid: true,
        light: 10,
    };
    let plot = c.frame((x0, x1), (y0, y1), (false, log), &axes)?;
    if let Some(band) = &data.band {
        let color = rgb(PALETTE[1], 0.25);
        let mut poly: Vec<(f64, f64)> = band.points.iter().map(|p| (p.0, to_y(p.2, log))).collect();
        poly.extend(band.points.iter().rev().map(|p| (p.0, to_y(p.1, log))));
        poly.retain(|p| p.1.is_finite());
        if poly.len() > 2 {
            c.b.fill_polygon(poly.iter().map(|p| plot.at(p.0, p.1)), &color)?;
            keys.push(Key::Fill(&band.label, color));
        }
    }
    if let Some(env) = &data.envelope {
        let color = rgb(c.theme.foreground, 0.18);
        let points: Vec<BackendCoord> = env
            .points
            .iter()
            .map(|p| (p.0, to_y(p.1, log)))
            .filter(|p| p.1.is_finite())
            .map(|p| plot.at(p.0, p.1))
            .collect();
        c.line(&points, c.pen(color, 9.0))?;
        keys.push(Key::Line(&env.label, Pen { color, width: 8 }));
    }
    for s in &data.series {
        let color = rgb(PALETTE[s.color % PALETTE.len()], 1.0);
        let pen = c.pen(color, 2.0);
        let dash = DASHES[s.color % DASHES.len()];
        // Split at gaps (NaN) so a path missing in part of the sweep is not bridged.
        let mut runs: Vec<Vec<BackendCoord>> = vec![Vec::new()];
        for p in &s.points {
            let y = to_y(p.1, log);
            if y.is_finite() {
                if let Some(r) = runs.last_mut() {
                    r.push(plot.at(p.0, y));
                }
            } else if runs.last().is_some_and(|r| !r.is_empty()) {
                runs.push(Vec::new());
            }
        }
        let mut first = true;
        for run in runs.into_iter().filter(|r| !r.is_empty()) {
            match dash {
                None => c.line(&run, pen)?,
                Some((d, g)) => c.dashed(&run, c.px(d as f64), c.px(g as f64), pen)?,
            }
            if first {
                keys.push(Key::Line(&s.label, Pen { color, width: 3 }));
                first = false;
            }
        }
    }
    // Switch-point labels: each on the first line down where it clears the labels before
    // it, turned to the left of its marker where it would run past the plot's right edge.
    let (left, right) = (plot.left as f64, plot.right as f64);
    let ink = c.pen(rgb(c.theme.foreground, 1.0), 1.0);
    let font = c.font(HPos::Left, VPos::Top);
    let mut line_ends: Vec<f64> = Vec::new();
    for Marker { x, label, short } in &data.markers {
        if *x >= x0 && *x <= x1 {
            let (top, bottom) = (plot.at(*x, y1), plot.at(*x, y0));
            c.dashed(&[bottom, top], c.px(4.0), c.px(3.0), ink)?;
            let mut text = format!(" {label} ");
            let mut width = label_width(&text, 13.0 * c.scale);
            if width > right - left {
                text = format!(" {short} ");
                width = label_width(&text, 13.0 * c.scale);
            }
            let at = left + (x - x0) / (x1 - x0).max(f64::EPSILON) * (right - left);
            let start = if at + width > right {
                (at - width).max(left)
            } else {
                at
            };
            let line = match line_ends.iter().position(|end| start >= *end) {
                Some(i) => i,
                None => {
                    line_ends.push(f64::NEG_INFINITY);
                    line_ends.len() - 1
                }
            };
            line_ends[line] = start + width;
            let y_px = plot.top as f64 + (4.0 + 17.0 * line as f64) * c.scale;
            c.text(&text, font, (start as i32, y_px as i32))?;
        }
    }
    Ok(plot)
}

fn draw_heat<'d, DB: DrawingBackend>(
    c: &mut Canvas<DB>,
    data: &'d HeatMap,
    keys: &mut Vec<Key<'d>>,
) -> Drawn<Plot, DB> {
    let log = data.log_y;
    let ys: Vec<f64> = data.ys.iter().map(|y| to_y(*y, log)).collect();
    let (x0, x1) = finite_range(data.xs.iter().copied()).unwrap_or((0.0, 1.0));
    let (y0, y1) = finite_range(ys.iter().copied()).unwrap_or((0.0, 1.0));
    let (x1, y1) = (x1.max(x0 + f64::EPSILON), y1.max(y0 + f64::EPSILON));
    let y_format = |v| axis_number(v, log);
    let axes = Axes {
        ticks: tick_counts(c.b.get_size(), (x0, x1), (y0, y1), &y_format, c.scale),
        format: (&tick_number, &y_format),
        desc: (&data.x_label, &data.y_label),
        grid: false,
        light: 0,
    };
    let plot = c.frame((x0, x1), (y0, y1), (false, log), &axes)?;
    let half = |v: &[f64], i: usize| -> (f64, f64) {
        let lo = if i == 0 {
            v[0]
        } else {
            (v[i - 1] + v[i]) / 2.0
        };
        let hi = if i + 1 == v.len() {
            v[i]
        } else {
            (v[i] + v[i + 1]) / 2.0
        };
        (lo, hi)
    };
    for (j, row) in data.cells.iter().enumerate().take(ys.len()) {
        let (ya, yb) = half(&ys, j);
        for (i, cell) in row.iter().enumerate().take(data.xs.len()) {
            if let Some(p) = cell {
                let (xa, xb) = half(&data.xs, i);
                let color = PALETTE[data.plans.get(*p).map_or(0, |p| p.1) % PALETTE.len()];
                let (a, b) = (plot.at(xa, ya), plot.at(xb, yb));
                c.b.draw_rect(
                    (a.0.min(b.0), a.1.min(b.1)),
                    (a.0.max(b.0), a.1.max(b.1)),
                    &rgb(color, 0.75),
                    true,
                )?;
            }
        }
    }
    // Each switch as a dot where it lies on its cell edge: together they trace the
    // boundaries at their bisected values, finer than the cells.
    let dot = rgb(c.theme.foreground, 1.0);
    let radius = c.px(1.5);
    for &(axis, r, col, at) in &data.switches {
        let point = if axis == 0 {
            ys.get(r).map(|&y| (at, y))
        } else {
            data.xs.get(col).map(|&x| (x, to_y(at, log)))
        };
        if let Some((x, y)) = point.filter(|p| p.0.is_finite() && p.1.is_finite()) {
            c.b.draw_circle(plot.at(x, y), radius, &dot, true)?;
        }
    }
    for (plan, color) in &data.plans {
        keys.push(Key::Fill(plan, rgb(PALETTE[color % PALETTE.len()], 0.75)));
    }
    let font = c.font(HPos::Left, VPos::Top);
    for (k, (value, label)) in data.lines.iter().enumerate() {
        let y = to_y(*value, log);
        if y.is_finite() && y >= y0 && y <= y1 {
            let ends = [plot.at(x0, y), plot.at(x1, y)];
            let ink = rgb(c.theme.foreground, 1.0);
            if k == 0 {
                c.line(&ends, c.pen(ink, 2.0))?;
            } else {
                c.dashed(&ends, c.px(6.0), c.px(4.0), c.pen(ink, 1.0))?;
            }
            c.text(&format!(" {label}"), font, ends[0])?;
        }
    }
    Ok(plot)
}

#[cfg(feature = "full")]
/// Decade labels on a log axis of data units: "1e-4", "0.001", ..., "10".
fn log_tick(v: f64) -> String {
    axis_number(v, true).replace(".0e", "e")
}

#[cfg(feature = "full")]
fn draw_scatter<'d, DB: DrawingBackend>(
    c: &mut Canvas<DB>,
    data: &'d ScatterChart,
    keys: &mut Vec<Key<'d>>,
) -> Drawn<Plot, DB> {
    let log = |v: f64| to_y(v, true);
    let (lo, hi) = match (log(data.range.0), log(data.range.1)) {
        (a, b) if a.is_finite() && b.is_finite() && b > a => (a, b),
        _ => (-1.0, 1.0),
    };
    // One label per decade at most (steps of 1, 2 or 5: with no more labels than whole
    // decades the step is 1), fewer where the plot is too small for them.
    let decades = (hi.floor() - lo.ceil()) as usize + 1;
    let (fit_x, fit_y) = {
        let font = 13.0 * c.scale;
        let (w, h) = c.b.get_size();
        let plot_w = w as f64 - (72.0 + 10.0 + 28.0) * c.scale;
        let plot_h = h as f64 - (40.0 + 20.0) * c.scale;
        (
            tick_count((lo, hi), plot_w, 10.0 * c.scale, &log_tick, &|t| {
                label_width(t, font)
            }),
            tick_count((lo, hi), plot_h, 0.6 * font, &log_tick, &|_| font),
        )
    };
    let axes = Axes {
        ticks: (decades.min(fit_x).max(2), decades.min(fit_y).max(2)),
        format: (&log_tick, &log_tick),
        desc: (&data.x_label, &data.y_label),
        grid: true,
        // Light lines would divide a decade evenly in log10, which means nothing here.
        light: 0,
    };
    let plot = c.frame((lo, hi), (lo, hi), (true, true), &axes)?;
    if let Some((f, label)) = &data.band {
        let d = log(*f);
        if d.is_finite() && d > 0.0 && hi - lo > d {
            let color = rgb(c.theme.foreground, BAND_OPACITY);
            let band = [
                (lo, lo),
                (lo, lo + d),
                (hi - d, hi),
                (hi, hi),
                (hi, hi - d),
                (lo + d, lo),
            ];
            c.b.fill_polygon(band.iter().map(|p| plot.at(p.0, p.1)), &color)?;
            keys.push(Key::Fill(label, color));
        }
    }
    let diagonal = rgb(c.theme.foreground, 0.5);
    c.line(&[plot.at(lo, lo), plot.at(hi, hi)], c.pen(diagonal, 1.5))?;
    keys.push(Key::Line(
        &data.diagonal,
        Pen {
            color: diagonal,
            width: 1,
        },
    ));
    if let Some((x, label)) = &data.limit {
        let x = log(*x);
        if x.is_finite() && x >= lo && x <= hi {
            let ink = c.pen(rgb(c.theme.foreground, 1.0), 1.0);
            c.dashed(&[plot.at(x, lo), plot.at(x, hi)], c.px(4.0), c.px(3.0), ink)?;
            let text = format!("{label} ");
            let width = label_width(&text, 13.0 * c.scale) as i32;
            let at = (
                (plot.at(x, lo).0 - width).max(plot.left),
                plot.top + (4.0 * c.scale) as i32,
            );
            c.text(&text, c.font(HPos::Left, VPos::Top), at)?;
        }
    }
    let radius = c.px(4.0) as i32;
    for s in &data.series {
        let base = PALETTE[s.color % PALETTE.len()];
        let (color, width) = if s.filled {
            (rgb(base, 0.8), 1)
        } else {
            (rgb(base, 1.0), c.px(1.5))
        };
        // A triangle's corners lie a pixel further out than a circle's edge.
        let r = match s.shape {
            MarkShape::Circle => radius,
            MarkShape::Triangle => radius + 1,
        };
        for m in &s.marks {
            let (x, y) = (log(m.x), log(m.y));
            if x.is_finite() && y.is_finite() {
                let at = plot.at(x.clamp(lo, hi), y.clamp(lo, hi));
                c.mark(at, s.shape, r, color, s.filled, width)?;
            }
        }
        if !s.marks.is_empty() {
            keys.push(Key::Mark(&s.label, s.shape, rgb(base, 1.0), s.filled));
        }
    }
    Ok(plot)
}

/// The page's drawing backend: the screen's canvas or an exported SVG. Every call goes to
/// the backend inside (what it draws is what that backend alone draws), but for the
/// canvas's lines, which [`LineBatch`] strokes together; being one type, it has the chart
/// code monomorphised once in the bundle, not once per backend.
pub enum Backend<'a> {
    Canvas(CanvasBackend, LineBatch),
    Svg(SVGBackend<'a>),
}

impl Backend<'_> {
    /// The screen's canvas, or None when it has no 2D context.
    pub fn canvas(el: web_sys::HtmlCanvasElement) -> Option<Backend<'static>> {
        use wasm_bindgen::JsCast;
        let ctx = el
            .get_context("2d")
            .ok()??
            .dyn_into::<web_sys::CanvasRenderingContext2d>()
            .ok()?;
        let inner = CanvasBackend::with_canvas_object(el)?;
        Some(Backend::Canvas(inner, LineBatch { ctx, open: None }))
    }
}

/// Consecutive lines and polylines of one colour and width, as one canvas path stroked
/// once. plotters-canvas sets the style, begins, moves, draws and strokes a path for every
/// line: a t1 redraw made about 690 strokes (the mesh's light lines, dashed curves drawn
/// dash by dash), some 4,000 calls into JavaScript and a colour string each. Each line is
/// still its own sub-path with plotters-canvas's half-pixel shift for crisp horizontal
/// and vertical lines; where two translucent lines of one style cross, the crossing is
/// painted once instead of twice.
pub struct LineBatch {
    ctx: web_sys::CanvasRenderingContext2d,
    /// The style of the path being built: (red, green, blue, alpha, width).
    open: Option<(u8, u8, u8, f64, u32)>,
}

impl LineBatch {
    /// Starts a sub-path in `style`, stroking what is pending first if its style differs.
    /// False when the colour is transparent (nothing to draw).
    fn begin(&mut self, color: BackendColor, width: u32) -> bool {
        if color.alpha == 0.0 {
            return false;
        }
        let key = (color.rgb.0, color.rgb.1, color.rgb.2, color.alpha, width);
        if self.open != Some(key) {
            self.flush();
            let (r, g, b) = color.rgb;
            self.ctx
                .set_stroke_style_str(&format!("rgba({r},{g},{b},{})", color.alpha));
            self.ctx.set_line_width(width as f64);
            self.ctx.begin_path();
            self.open = Some(key);
        }
        true
    }

    /// Strokes the pending path, if any.
    fn flush(&mut self) {
        if self.open.take().is_some() {
            self.ctx.stroke();
        }
    }
}

impl Drop for LineBatch {
    fn drop(&mut self) {
        self.flush();
    }
}

/// A backend's error as its own text (`Display` prints the inner error's).
#[derive(Debug)]
pub struct BackendError(String);

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BackendError {}

fn backend_error<E: std::error::Error + Send + Sync>(
    e: DrawingErrorKind<E>,
) -> DrawingErrorKind<BackendError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(BackendError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// The SVG backend's error: it writes into a `String`, which cannot fail, and its
/// `io::Error` text would put std's table of I/O error kinds in the page for nothing.
fn svg_error(e: DrawingErrorKind<std::io::Error>) -> DrawingErrorKind<BackendError> {
    match e {
        DrawingErrorKind::DrawingError(_) => {
            DrawingErrorKind::DrawingError(BackendError("the SVG could not be written".into()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Calls `$call` on the backend inside, mapping its error.
/// The canvas's pending lines are stroked first, so that what comes after is drawn over
/// them as before.
macro_rules! forward {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            Backend::Canvas($b, batch) => {
                batch.flush();
                $call.map_err(backend_error)
            }
            Backend::Svg($b) => $call.map_err(svg_error),
        }
    };
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            Backend::Canvas(b, _) => b.get_size(),
            Backend::Svg(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.present())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        if let Backend::Canvas(_, batch) = self {
            if batch.begin(style.color(), style.stroke_width()) {
                // plotters-canvas's fine_hor_ver_lines: half a pixel back on the axis a
                // horizontal or vertical line does not move along.
                let (mut a, mut b) = ((from.0 as f64, from.1 as f64), (to.0 as f64, to.1 as f64));
                if a.0 == b.0 {
                    a.0 -= 0.5;
                    b.0 -= 0.5;
                }
                if a.1 == b.1 {
                    a.1 -= 0.5;
                    b.1 -= 0.5;
                }
                batch.ctx.move_to(a.0, a.1);
                batch.ctx.line_to(b.0, b.1);
            }
            return Ok(());
        }
        forward!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        if let Backend::Canvas(_, batch) = self {
            let mut points = path.into_iter();
            if let Some(start) = points.next() {
                if batch.begin(style.color(), style.stroke_width()) {
                    batch.ctx.move_to(start.0 as f64, start.1 as f64);
                    for p in points {
                        batch.ctx.line_to(p.0 as f64, p.1 as f64);
                    }
                }
            }
            return Ok(());
        }
        forward!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<BackendError>> {
        // Measures, draws nothing: the pending lines can wait.
        match self {
            Backend::Canvas(b, _) => b.estimate_text_size(text, style).map_err(backend_error),
            Backend::Svg(b) => b.estimate_text_size(text, style).map_err(svg_error),
        }
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.blit_bitmap(pos, size, src))
    }
}

/// The same chart as an SVG document, for export.
pub fn to_svg(data: &ChartData, theme: Theme, size: (u32, u32)) -> Result<String, String> {
    let mut out = String::new();
    {
        let mut backend = Backend::Svg(SVGBackend::with_string(&mut out, size));
        draw(&mut backend, data, theme, 1.0, Legend::Inside)?;
    }
    Ok(out)
}

/// The data behind a chart as CSV: one row per x, one column per series.
pub fn to_csv(data: &ChartData) -> String {
    let mut out = Csv::new();
    match data {
        ChartData::Lines(c) => {
            let mut cols: Vec<&Series> = c.series.iter().collect();
            if let Some(e) = &c.envelope {
                cols.push(e);
            }
            out.field(&c.x_label);
            for s in &cols {
                out.field(&s.label);
            }
            out.end_row();
            let n = cols.iter().map(|s| s.points.len()).max().unwrap_or(0);
            for i in 0..n {
                let x = cols
                    .iter()
                    .find_map(|s| s.points.get(i))
                    .map_or(f64::NAN, |p| p.0);
                out.field(x);
                for s in &cols {
                    match s.points.get(i).filter(|p| p.1.is_finite()) {
                        Some(p) => out.field(p.1),
                        None => out.field(""),
                    };
                }
                out.end_row();
            }
        }
        ChartData::Scatter(c) => {
            out.row(["series", &c.x_label, &c.y_label, "mark"]);
            for s in &c.series {
                for m in &s.marks {
                    out.field(&s.label)
                        .field(m.x)
                        .field(m.y)
                        .field(&m.title)
                        .end_row();
                }
            }
        }
        ChartData::Heat(h) => {
            out.row([h.x_label.as_str(), &h.y_label, "plan"]);
            for (j, row) in h.cells.iter().enumerate() {
                for (i, cell) in row.iter().enumerate() {
                    let plan = cell
                        .and_then(|p| h.plans.get(p))
                        .map_or("", |p| p.0.as_str());
                    out.field(h.xs[i]).field(h.ys[j]).field(plan).end_row();
                }
            }
        }
    }
    out.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
    wasm_bindgen_test_configure!(run_in_browser);

    /// The export's one quoting rule (RFC 4180): a label with a comma, a quote or a line end.
    #[wasm_bindgen_test]
    fn csv_quotes_labels_with_commas_quotes_and_line_ends() {
        let h = HeatMap {
            x_label: "rows, share".into(),
            y_label: "cost \"c\"\r".into(),
            xs: vec![0.5],
            ys: vec![1.0, 2.0],
            cells: vec![vec![Some(0)], vec![None]],
            plans: vec![("A\nB".into(), 0)],
            log_y: false,
            lines: Vec::new(),
            switches: Vec::new(),
        };
        let csv = "\"rows, share\",\"cost \"\"c\"\"\r\",plan\n0.5,1,\"A\nB\"\n0.5,2,\n";
        assert_eq!(to_csv(&ChartData::Heat(h)), csv);
    }
}
