//! The axes' labels: round tick values ([`ticks`]), how many a plot of a size can carry
//! apart ([`tick_count`]), and the numbers' text.

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

/// Label counts for a plot of `size` (backend pixels) over x and y ranges.
pub(super) fn tick_counts(
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

/// What a chart's axes show: label counts, formats and descriptions, and the grid.
pub(super) struct Axes<'a> {
    pub(super) ticks: (usize, usize),
    pub(super) format: (&'a dyn Fn(f64) -> String, &'a dyn Fn(f64) -> String),
    pub(super) desc: (&'a str, &'a str),
    /// Bold grid lines at the labels, and light ones up to ten times as many (0: none).
    pub(super) grid: bool,
    pub(super) light: usize,
}

#[cfg(feature = "full")]
/// Decade labels on a log axis of data units: "1e-4", "0.001", ..., "10".
pub(super) fn log_tick(v: f64) -> String {
    axis_number(v, true).replace(".0e", "e")
}
