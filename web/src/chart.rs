//! Charts drawn with plotters, generic over the backend so the same code draws the canvas
//! on screen and the SVG a user exports. The page draws both through one backend type,
//! [`Backend`], so the drawing code is compiled once into its bundle instead of once per
//! backend.

use plotters::coord::Shift;
use plotters::prelude::*;
// Named by path, not imported: `BackendStyle` in scope would make `stroke_width`
// ambiguous for colours.
use plotters_backend as pb;
use plotters_backend::{BackendColor, BackendCoord, DrawingErrorKind};
use plotters_canvas::CanvasBackend;

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

fn style(i: usize, width: u32) -> ShapeStyle {
    PALETTE[i % PALETTE.len()].stroke_width(width)
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
    use plotters::coord::ranged1d::Ranged;
    let (lo, hi) = range;
    // Also refuses NaN: a chart without data or without room gets the two ends.
    let usable = hi.partial_cmp(&lo) == Some(std::cmp::Ordering::Greater)
        && length_px.partial_cmp(&0.0) == Some(std::cmp::Ordering::Greater);
    if !usable {
        return 2;
    }
    let coord = plotters::coord::types::RangedCoordf64::from(lo..hi);
    for n in (2..=11usize).rev() {
        let ticks = coord.key_points(n);
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

/// Draws a chart filling `root`; `scale` multiplies text and line sizes (the pixel ratio).
/// The number of axis labels follows the plot's size in pixels, so labels never overlap.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    theme: Theme,
    scale: f64,
    legend: Legend,
) -> Result<Geometry, String> {
    match data {
        ChartData::Lines(c) => draw_lines(root, c, theme, scale, legend),
        ChartData::Heat(h) => draw_heat(root, h, theme, scale, legend),
        ChartData::Scatter(c) => draw_scatter(root, c, theme, scale, legend),
    }
}

fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &LineChart,
    theme: Theme,
    scale: f64,
    legend: Legend,
) -> Result<Geometry, String> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let log = data.log_y;
    root.fill(&theme.background).map_err(err)?;
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
    let (x_ticks, y_ticks) = tick_counts(
        root.dim_in_pixel(),
        (x0, x1),
        (y0, y1),
        &|v| axis_number(v, log),
        scale,
    );
    let font = (FontFamily::SansSerif, px(13.0))
        .into_font()
        .color(&theme.foreground);
    let mut chart = ChartBuilder::on(root)
        .margin(px(10.0))
        .margin_right(px(28.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(72.0))
        .build_cartesian_2d(x0..x1.max(x0 + f64::EPSILON), y0..y1)
        .map_err(err)?;
    let mut keys: Keys<DB> = Vec::new();
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.4))
        .bold_line_style(theme.grid)
        .axis_style(theme.foreground)
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .x_labels(x_ticks)
        .y_labels(y_ticks)
        .x_label_formatter(&|v| tick_number(*v))
        .y_label_formatter(&|v| axis_number(*v, log))
        .draw()
        .map_err(err)?;
    if let Some(band) = &data.band {
        let color = PALETTE[1].mix(0.25);
        let mut poly: Vec<(f64, f64)> = band.points.iter().map(|p| (p.0, to_y(p.2, log))).collect();
        poly.extend(band.points.iter().rev().map(|p| (p.0, to_y(p.1, log))));
        poly.retain(|p| p.1.is_finite());
        if poly.len() > 2 {
            chart
                .draw_series(std::iter::once(Polygon::new(poly, color.filled())))
                .map_err(err)?;
            add_key(&mut keys, &band.label, move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 20, y + 5)], color.filled())
            });
        }
    }
    if let Some(env) = &data.envelope {
        let color = theme.foreground.mix(0.18);
        chart
            .draw_series(LineSeries::new(
                env.points
                    .iter()
                    .map(|p| (p.0, to_y(p.1, log)))
                    .filter(|p| p.1.is_finite()),
                color.stroke_width(px(9.0)),
            ))
            .map_err(err)?;
        add_key(&mut keys, &env.label, move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(8))
        });
    }
    for s in &data.series {
        let st = style(s.color, px(2.0));
        let dash = DASHES[s.color % DASHES.len()];
        // Split at gaps (NaN) so a path missing in part of the sweep is not bridged.
        let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        for p in &s.points {
            let y = to_y(p.1, log);
            if y.is_finite() {
                if let Some(r) = runs.last_mut() {
                    r.push((p.0, y));
                }
            } else if runs.last().is_some_and(|r| !r.is_empty()) {
                runs.push(Vec::new());
            }
        }
        let mut first = true;
        for run in runs.into_iter().filter(|r| !r.is_empty()) {
            match dash {
                None => chart.draw_series(LineSeries::new(run, st)).map_err(err)?,
                Some((d, g)) => chart
                    .draw_series(DashedLineSeries::new(run, px(d as f64), px(g as f64), st))
                    .map_err(err)?,
            };
            if first {
                let c = s.color;
                add_key(&mut keys, &s.label, move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], style(c, 3))
                });
                first = false;
            }
        }
    }
    // Switch-point labels: each on the first line down where it clears the labels before
    // it, turned to the left of its marker where it would run past the plot's right edge.
    let (area_x, area_y) = chart.plotting_area().get_pixel_range();
    let (left, right) = (area_x.start as f64, area_x.end as f64);
    let (top, bottom) = (area_y.start as f64, area_y.end as f64);
    let data_x = |p: f64| x0 + (p - left) / (right - left).max(1.0) * (x1 - x0);
    let data_y = |p: f64| y1 - (p - top) / (bottom - top).max(1.0) * (y1 - y0);
    let mut line_ends: Vec<f64> = Vec::new();
    for Marker { x, label, short } in &data.markers {
        if *x >= x0 && *x <= x1 {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(*x, y0), (*x, y1)],
                    px(4.0),
                    px(3.0),
                    theme.foreground.stroke_width(px(1.0)),
                ))
                .map_err(err)?;
            let mut text = format!(" {label} ");
            let mut width = label_width(&text, 13.0 * scale);
            if width > right - left {
                text = format!(" {short} ");
                width = label_width(&text, 13.0 * scale);
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
            let y_px = top + (4.0 + 17.0 * line as f64) * scale;
            chart
                .draw_series(std::iter::once(Text::new(
                    text,
                    (data_x(start), data_y(y_px)),
                    font.clone(),
                )))
                .map_err(err)?;
        }
    }
    finish(
        root,
        &mut chart,
        keys,
        theme,
        font,
        ((x0, x1), (y0, y1)),
        (false, log),
        legend,
    )
}

fn draw_heat<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &HeatMap,
    theme: Theme,
    scale: f64,
    legend: Legend,
) -> Result<Geometry, String> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let log = data.log_y;
    root.fill(&theme.background).map_err(err)?;
    let ys: Vec<f64> = data.ys.iter().map(|y| to_y(*y, log)).collect();
    let (x0, x1) = finite_range(data.xs.iter().copied()).unwrap_or((0.0, 1.0));
    let (y0, y1) = finite_range(ys.iter().copied()).unwrap_or((0.0, 1.0));
    let (x_ticks, y_ticks) = tick_counts(
        root.dim_in_pixel(),
        (x0, x1),
        (y0, y1),
        &|v| axis_number(v, log),
        scale,
    );
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
    let font = (FontFamily::SansSerif, px(13.0))
        .into_font()
        .color(&theme.foreground);
    let mut chart = ChartBuilder::on(root)
        .margin(px(10.0))
        .margin_right(px(28.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(72.0))
        .build_cartesian_2d(x0..x1.max(x0 + f64::EPSILON), y0..y1.max(y0 + f64::EPSILON))
        .map_err(err)?;
    let mut keys: Keys<DB> = Vec::new();
    chart
        .configure_mesh()
        .disable_mesh()
        .axis_style(theme.foreground)
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .x_labels(x_ticks)
        .y_labels(y_ticks)
        .x_label_formatter(&|v| tick_number(*v))
        .y_label_formatter(&|v| axis_number(*v, log))
        .draw()
        .map_err(err)?;
    let mut rects = Vec::new();
    for (j, row) in data.cells.iter().enumerate().take(ys.len()) {
        let (ya, yb) = half(&ys, j);
        for (i, cell) in row.iter().enumerate().take(data.xs.len()) {
            if let Some(p) = cell {
                let (xa, xb) = half(&data.xs, i);
                let color = PALETTE[data.plans.get(*p).map_or(0, |p| p.1) % PALETTE.len()];
                rects.push(Rectangle::new(
                    [(xa, ya), (xb, yb)],
                    color.mix(0.75).filled(),
                ));
            }
        }
    }
    chart.draw_series(rects).map_err(err)?;
    // Each switch as a dot where it lies on its cell edge: together they trace the
    // boundaries at their bisected values, finer than the cells.
    let dot = theme.foreground.filled();
    let radius = px(1.5);
    let dots = data.switches.iter().filter_map(|&(axis, r, c, at)| {
        let (x, y) = if axis == 0 {
            (at, *ys.get(r)?)
        } else {
            (*data.xs.get(c)?, to_y(at, log))
        };
        (x.is_finite() && y.is_finite()).then(|| Circle::new((x, y), radius, dot))
    });
    chart.draw_series(dots).map_err(err)?;
    for (plan, color) in &data.plans {
        let c = PALETTE[color % PALETTE.len()];
        add_key(&mut keys, plan, move |(x, y)| {
            Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.mix(0.75).filled())
        });
    }
    for (k, (value, label)) in data.lines.iter().enumerate() {
        let y = to_y(*value, log);
        if y.is_finite() && y >= y0 && y <= y1 {
            let st = theme
                .foreground
                .stroke_width(px(if k == 0 { 2.0 } else { 1.0 }));
            if k == 0 {
                chart
                    .draw_series(LineSeries::new(vec![(x0, y), (x1, y)], st))
                    .map_err(err)?;
            } else {
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(x0, y), (x1, y)],
                        px(6.0),
                        px(4.0),
                        st,
                    ))
                    .map_err(err)?;
            }
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(" {label}"),
                    (x0, y),
                    font.clone(),
                )))
                .map_err(err)?;
        }
    }
    finish(
        root,
        &mut chart,
        keys,
        theme,
        font,
        ((x0, x1), (y0, y1)),
        (false, log),
        legend,
    )
}

/// Decade labels on a log axis of data units: "1e-4", "0.001", ..., "10".
fn log_tick(v: f64) -> String {
    axis_number(v, true).replace(".0e", "e")
}

fn draw_scatter<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ScatterChart,
    theme: Theme,
    scale: f64,
    legend: Legend,
) -> Result<Geometry, String> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let log = |v: f64| to_y(v, true);
    let (lo, hi) = match (log(data.range.0), log(data.range.1)) {
        (a, b) if a.is_finite() && b.is_finite() && b > a => (a, b),
        _ => (-1.0, 1.0),
    };
    // One label per decade at most (plotters picks steps of 1, 2 or 5: with no more labels
    // than whole decades it takes 1), fewer where the plot is too small for them.
    let decades = (hi.floor() - lo.ceil()) as usize + 1;
    let (fit_x, fit_y) = {
        let font = 13.0 * scale;
        let (w, h) = root.dim_in_pixel();
        let plot_w = w as f64 - (72.0 + 10.0 + 28.0) * scale;
        let plot_h = h as f64 - (40.0 + 20.0) * scale;
        (
            tick_count((lo, hi), plot_w, 10.0 * scale, &log_tick, &|t| {
                label_width(t, font)
            }),
            tick_count((lo, hi), plot_h, 0.6 * font, &log_tick, &|_| font),
        )
    };
    let font = (FontFamily::SansSerif, px(13.0))
        .into_font()
        .color(&theme.foreground);
    let mut chart = ChartBuilder::on(root)
        .margin(px(10.0))
        .margin_right(px(28.0))
        .x_label_area_size(px(40.0))
        .y_label_area_size(px(72.0))
        .build_cartesian_2d(lo..hi, lo..hi)
        .map_err(err)?;
    let mut keys: Keys<DB> = Vec::new();
    chart
        .configure_mesh()
        // Light lines would divide a decade evenly in log10, which means nothing here.
        .max_light_lines(0)
        .bold_line_style(theme.grid)
        .axis_style(theme.foreground)
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .x_labels(decades.min(fit_x).max(2))
        .y_labels(decades.min(fit_y).max(2))
        .x_label_formatter(&|v| log_tick(*v))
        .y_label_formatter(&|v| log_tick(*v))
        .draw()
        .map_err(err)?;
    if let Some((f, label)) = &data.band {
        let d = log(*f);
        if d.is_finite() && d > 0.0 && hi - lo > d {
            let color = theme.foreground.mix(BAND_OPACITY);
            let band = vec![
                (lo, lo),
                (lo, lo + d),
                (hi - d, hi),
                (hi, hi),
                (hi, hi - d),
                (lo + d, lo),
            ];
            chart
                .draw_series(std::iter::once(Polygon::new(band, color.filled())))
                .map_err(err)?;
            add_key(&mut keys, label, move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 20, y + 5)], color.filled())
            });
        }
    }
    let diagonal = theme.foreground.mix(0.5);
    chart
        .draw_series(LineSeries::new(
            [(lo, lo), (hi, hi)],
            diagonal.stroke_width(px(1.5)),
        ))
        .map_err(err)?;
    add_key(&mut keys, &data.diagonal, move |(x, y)| {
        PathElement::new(vec![(x, y), (x + 20, y)], diagonal)
    });
    if let Some((x, label)) = &data.limit {
        let x = log(*x);
        if x.is_finite() && x >= lo && x <= hi {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(x, lo), (x, hi)],
                    px(4.0),
                    px(3.0),
                    theme.foreground.stroke_width(px(1.0)),
                ))
                .map_err(err)?;
            let width = label_width(&format!("{label} "), 13.0 * scale);
            let (area_x, area_y) = chart.plotting_area().get_pixel_range();
            let per_px = (hi - lo) / f64::from((area_x.end - area_x.start).max(1));
            let per_py = (hi - lo) / f64::from((area_y.end - area_y.start).max(1));
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{label} "),
                    ((x - width * per_px).max(lo), hi - 4.0 * scale * per_py),
                    font.clone(),
                )))
                .map_err(err)?;
        }
    }
    let radius = px(4.0);
    for s in &data.series {
        let c = PALETTE[s.color % PALETTE.len()];
        let style = if s.filled {
            c.mix(0.8).filled()
        } else {
            c.stroke_width(px(1.5))
        };
        let at = |m: &Mark| (log(m.x).clamp(lo, hi), log(m.y).clamp(lo, hi));
        let marks = s
            .marks
            .iter()
            .filter(|m| log(m.x).is_finite() && log(m.y).is_finite());
        let key = if s.filled {
            c.filled()
        } else {
            c.stroke_width(2)
        };
        let label = (!s.marks.is_empty()).then_some(&s.label);
        // The legend's sample: the mark itself, centred on the legend's line. Triangles are
        // drawn as polygons of pixel offsets: plotters' TriangleMarker computes its corners
        // with sin and cos, whose code the page's bundle would carry for nothing else.
        let corners = |r: i32| vec![(0, -r), (r * 7 / 8, r / 2), (-r * 7 / 8, r / 2)];
        let outline = move |r: i32| {
            let mut c = corners(r);
            c.push((0, -r));
            c
        };
        let r = radius as i32 + 1;
        match (s.shape, s.filled) {
            (MarkShape::Circle, _) => {
                chart
                    .draw_series(marks.map(|m| Circle::new(at(m), radius, style)))
                    .map_err(err)?;
                if let Some(label) = label {
                    add_key(&mut keys, label, move |(x, y)| {
                        EmptyElement::at((x + 10, y)) + Circle::new((0, 0), 4, key)
                    });
                }
            }
            (MarkShape::Triangle, true) => {
                chart
                    .draw_series(
                        marks.map(|m| EmptyElement::at(at(m)) + Polygon::new(corners(r), style)),
                    )
                    .map_err(err)?;
                if let Some(label) = label {
                    add_key(&mut keys, label, move |(x, y)| {
                        EmptyElement::at((x + 10, y)) + Polygon::new(corners(5), key)
                    });
                }
            }
            (MarkShape::Triangle, false) => {
                chart
                    .draw_series(
                        marks
                            .map(|m| EmptyElement::at(at(m)) + PathElement::new(outline(r), style)),
                    )
                    .map_err(err)?;
                if let Some(label) = label {
                    add_key(&mut keys, label, move |(x, y)| {
                        EmptyElement::at((x + 10, y)) + PathElement::new(outline(5), key)
                    });
                }
            }
        }
    }
    finish(
        root,
        &mut chart,
        keys,
        theme,
        font,
        ((lo, hi), (lo, hi)),
        (true, true),
        legend,
    )
}

type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// An export's legend entries, in drawing order: each series' label and its sample, drawn
/// with its left end at the given point on the label's middle line.
type Keys<'a, DB> = Vec<(
    &'a str,
    Box<dyn Fn(BackendCoord) -> DynElement<'a, DB, BackendCoord> + 'a>,
)>;

fn add_key<'a, DB: DrawingBackend + 'a, E: IntoDynElement<'a, DB, BackendCoord>>(
    keys: &mut Keys<'a, DB>,
    label: &'a str,
    sample: impl Fn(BackendCoord) -> E + 'a,
) {
    keys.push((label, Box::new(move |p| sample(p).into_dyn())));
}

/// Draws the legend, presents the drawing and reports where the plotting area landed.
///
/// The legend is laid out as plotters' series labels at the lower right (a 30 px sample
/// column, 10 px margins, 5 px from the plot's edges; lines 1.25 font heights apart) but
/// drawn here: plotters' own `draw` builds a default font from the text "sans-serif", whose
/// parsing lowercases it with `str::to_lowercase` and so puts Unicode's case tables in the
/// page's bundle (about 8 KB gzipped) for nothing.
#[allow(clippy::too_many_arguments)]
fn finish<'a, DB: DrawingBackend + 'a>(
    root: &DrawingArea<DB, Shift>,
    chart: &mut Chart<'a, DB>,
    keys: Keys<'_, DB>,
    theme: Theme,
    font: TextStyle<'_>,
    ((x0, x1), (y0, y1)): ((f64, f64), (f64, f64)),
    (log_x, log_y): (bool, bool),
    legend: Legend,
) -> Result<Geometry, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    if legend == Legend::Inside {
        let area = chart.plotting_area().strip_coord_spec();
        let mut text = MultiLineText::<_, &str>::new((0, 0), &font);
        for (label, _) in &keys {
            text.push_line(*label);
        }
        let (w, h) = text.estimate_dimension().map_err(|e| e.to_string())?;
        let (margin, sample) = (10, 30);
        let (w, h) = (w + sample + 2 * margin, h + 2 * margin);
        let (area_w, area_h) = area.dim_in_pixel();
        let (x, y) = (area_w as i32 - w - 5, area_h as i32 - h - 5);
        text.relocate((x + sample + margin, y + margin));
        let frame = [(x, y), (x + w, y + h)];
        area.draw(&Rectangle::new(frame, theme.background.mix(0.85).filled()))
            .map_err(err)?;
        area.draw(&Rectangle::new(frame, theme.grid)).map_err(err)?;
        area.draw(&text).map_err(err)?;
        let lines = text.compute_line_layout().map_err(|e| e.to_string())?;
        for (((_, top), (_, bottom)), (_, draw)) in lines.into_iter().zip(&keys) {
            area.draw(&draw((x + margin, (top + bottom) / 2)))
                .map_err(err)?;
        }
    }
    let (px_x, px_y) = chart.plotting_area().get_pixel_range();
    root.present().map_err(err)?;
    Ok(Geometry {
        size: root.dim_in_pixel(),
        px_x: (px_x.start, px_x.end),
        px_y: (px_y.start, px_y.end),
        x: (x0, x1),
        y: (y0, y1),
        log_x,
        log_y,
    })
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
            Backend::Svg($b) => $call.map_err(backend_error),
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

    fn draw_line<S: pb::BackendStyle>(
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

    fn draw_rect<S: pb::BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: pb::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
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

    fn draw_circle<S: pb::BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: pb::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<TStyle: pb::BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<BackendError>> {
        forward!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<TStyle: pb::BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<BackendError>> {
        // Measures, draws nothing: the pending lines can wait.
        match self {
            Backend::Canvas(b, _) => b.estimate_text_size(text, style).map_err(backend_error),
            Backend::Svg(b) => b.estimate_text_size(text, style).map_err(backend_error),
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
        let root = Backend::Svg(SVGBackend::with_string(&mut out, size)).into_drawing_area();
        draw(&root, data, theme, 1.0, Legend::Inside)?;
    }
    Ok(out)
}

/// The data behind a chart as CSV: one row per x, one column per series.
pub fn to_csv(data: &ChartData) -> String {
    let esc = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    match data {
        ChartData::Lines(c) => {
            let mut cols: Vec<&Series> = c.series.iter().collect();
            if let Some(e) = &c.envelope {
                cols.push(e);
            }
            out.push_str(&esc(&c.x_label));
            for s in &cols {
                out.push(',');
                out.push_str(&esc(&s.label));
            }
            out.push('\n');
            let n = cols.iter().map(|s| s.points.len()).max().unwrap_or(0);
            for i in 0..n {
                let x = cols
                    .iter()
                    .find_map(|s| s.points.get(i))
                    .map_or(f64::NAN, |p| p.0);
                out.push_str(&format!("{x}"));
                for s in &cols {
                    out.push(',');
                    if let Some(p) = s.points.get(i).filter(|p| p.1.is_finite()) {
                        out.push_str(&format!("{}", p.1));
                    }
                }
                out.push('\n');
            }
        }
        ChartData::Scatter(c) => {
            out.push_str(&format!(
                "series,{},{},mark\n",
                esc(&c.x_label),
                esc(&c.y_label)
            ));
            for s in &c.series {
                for m in &s.marks {
                    out.push_str(&format!(
                        "{},{},{},{}\n",
                        esc(&s.label),
                        m.x,
                        m.y,
                        esc(&m.title)
                    ));
                }
            }
        }
        ChartData::Heat(h) => {
            out.push_str(&format!("{},{},plan\n", esc(&h.x_label), esc(&h.y_label)));
            for (j, row) in h.cells.iter().enumerate() {
                for (i, cell) in row.iter().enumerate() {
                    let plan = cell
                        .and_then(|p| h.plans.get(p))
                        .map_or("", |p| p.0.as_str());
                    out.push_str(&format!("{},{},{}\n", h.xs[i], h.ys[j], esc(plan)));
                }
            }
        }
    }
    out
}
