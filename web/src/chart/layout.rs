//! Where a chart's data lands in pixels: the plotting area ([`Plot`]) the drawing lays out,
//! the [`Geometry`] that maps a pointer back to data, and the axes' data ranges.

use plotters_backend::BackendCoord;

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

pub(super) fn to_y(v: f64, log: bool) -> f64 {
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

pub(super) fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut r: Option<(f64, f64)> = None;
    for v in values.filter(|v| v.is_finite()) {
        r = Some(match r {
            None => (v, v),
            Some((a, b)) => (a.min(v), b.max(v)),
        });
    }
    r
}

pub(super) fn pad(r: Option<(f64, f64)>, from_zero: bool) -> (f64, f64) {
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
pub(super) struct Plot {
    pub(super) left: i32,
    pub(super) right: i32,
    pub(super) top: i32,
    pub(super) bottom: i32,
    pub(super) x: (f64, f64),
    pub(super) y: (f64, f64),
    pub(super) log: (bool, bool),
}

impl Plot {
    /// The pixel of (x, y) in axis units.
    pub(super) fn at(&self, x: f64, y: f64) -> BackendCoord {
        (
            to_px(x, self.x, (self.left, self.right - 1)),
            to_px(y, self.y, (self.bottom - 1, self.top)),
        )
    }
}
