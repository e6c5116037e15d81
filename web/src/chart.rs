//! Line charts drawn with plotters, generic over the backend so the same code draws the
//! canvas on screen and the SVG a user exports.

use plotters::coord::Shift;
use plotters::prelude::*;

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

#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChartData {
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// Vertical markers (switch points) with their labels.
    pub markers: Vec<(f64, String)>,
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

fn bounds(data: &ChartData) -> ((f64, f64), (f64, f64)) {
    let mut x = (f64::INFINITY, f64::NEG_INFINITY);
    let mut y = (0.0f64, f64::NEG_INFINITY);
    for s in &data.series {
        for &(px, py) in &s.points {
            if px.is_finite() && py.is_finite() {
                x = (x.0.min(px), x.1.max(px));
                y = (y.0.min(py), y.1.max(py));
            }
        }
    }
    // Also catches NaN and empty series (the bounds stay infinite).
    if x.0.partial_cmp(&x.1) != Some(std::cmp::Ordering::Less) {
        x = (0.0, 1.0);
    }
    if y.0.partial_cmp(&y.1) != Some(std::cmp::Ordering::Less) {
        y = (0.0, 1.0);
    }
    (x, (y.0, y.1 * 1.05))
}

/// Draws `data` filling `root`; `scale` multiplies text and line sizes (the pixel ratio).
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    data: &ChartData,
    theme: Theme,
    scale: f64,
) -> Result<(), String> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let ((x0, x1), (y0, y1)) = bounds(data);
    let font = ("sans-serif", px(13.0))
        .into_font()
        .color(&theme.foreground);
    let mut chart = ChartBuilder::on(root)
        .margin(px(10.0))
        .x_label_area_size(px(38.0))
        .y_label_area_size(px(70.0))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid.mix(0.5))
        .bold_line_style(theme.grid)
        .axis_style(theme.foreground)
        .label_style(font.clone())
        .axis_desc_style(font.clone())
        .x_desc(&data.x_label)
        .y_desc(&data.y_label)
        .y_label_formatter(&|v| short_number(*v))
        .draw()
        .map_err(err)?;
    for (i, s) in data.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(
                s.points
                    .iter()
                    .copied()
                    .filter(|(x, y)| x.is_finite() && y.is_finite()),
                color.stroke_width(px(2.0)),
            ))
            .map_err(err)?
            .label(s.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
    }
    for (x, label) in &data.markers {
        if *x >= x0 && *x <= x1 {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(*x, y0), (*x, y1)],
                    theme.foreground.stroke_width(px(1.0)),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label.clone(),
                    (*x, y1 * 0.97),
                    font.clone(),
                )))
                .map_err(err)?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(font)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// 1234567 → "1.23M": axis labels stay short at any scale.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.3}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.3}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}
