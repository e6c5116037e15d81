//! What a chart shows: line charts, heat maps and scatters as data, with the palette and
//! the theme they are drawn in.

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
pub(super) const DASHES: [Option<(u32, u32)>; 4] =
    [None, Some((8, 4)), Some((2, 3)), Some((12, 3))];

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
