//! Each kind of chart drawn in its frame: line charts with their band, envelope and switch
//! markers, heat maps with their switch dots and lines, log-log scatters.

use super::axes::{axis_number, label_width, tick_counts, tick_number, Axes};
#[cfg(feature = "full")]
use super::axes::{log_tick, tick_count};
use super::canvas::{rgb, Canvas, Drawn, Key, Pen};
use super::data::{ChartData, HeatMap, LineChart, Marker, Theme, DASHES, PALETTE};
#[cfg(feature = "full")]
use super::data::{MarkShape, ScatterChart};
use super::layout::{finite_range, pad, to_y, Geometry, Plot};
use super::legend::Legend;
#[cfg(feature = "full")]
use super::legend::BAND_OPACITY;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendCoord, DrawingBackend};

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
