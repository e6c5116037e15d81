//! The drawing's primitives over a backend: pens, fonts that only the backends render,
//! dashed lines, and the frame every chart is drawn in (`Canvas::frame`: the plotting
//! area where plotters' chart builder put it, the grid, the axes and their labels), with
//! an export's legend.

use super::axes::{label_width, ticks, Axes};
#[cfg(feature = "full")]
use super::data::MarkShape;
use super::data::{RGBColor, Theme};
use super::layout::Plot;
use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontFamily, FontTransform,
};

pub(super) type Drawn<T, DB> = Result<T, DrawingErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A line's colour and width, as the backends take it.
#[derive(Clone, Copy)]
pub(super) struct Pen {
    pub(super) color: BackendColor,
    pub(super) width: u32,
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
pub(super) struct Font {
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

/// One legend entry of an export: the label and its sample.
pub(super) enum Key<'a> {
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

pub(super) fn rgb(c: RGBColor, alpha: f64) -> BackendColor {
    BackendColor {
        alpha,
        rgb: (c.0, c.1, c.2),
    }
}

/// The backend with the drawing's scale and theme.
pub(super) struct Canvas<'b, DB: DrawingBackend> {
    pub(super) b: &'b mut DB,
    pub(super) scale: f64,
    pub(super) theme: Theme,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    /// `v` CSS pixels in backend pixels, at least one.
    pub(super) fn px(&self, v: f64) -> u32 {
        (v * self.scale).round().max(1.0) as u32
    }

    pub(super) fn pen(&self, color: BackendColor, width: f64) -> Pen {
        Pen {
            color,
            width: self.px(width),
        }
    }

    pub(super) fn font(&self, h: HPos, v: VPos) -> Font {
        Font {
            size: self.px(13.0) as f64,
            color: rgb(self.theme.foreground, 1.0),
            anchor: Pos::new(h, v),
            upwards: false,
        }
    }

    pub(super) fn text(&mut self, text: &str, font: Font, at: BackendCoord) -> Drawn<(), DB> {
        self.b.draw_text(text, &font, at)
    }

    pub(super) fn line(&mut self, points: &[BackendCoord], pen: Pen) -> Drawn<(), DB> {
        self.b.draw_path(points.iter().copied(), &pen)
    }

    /// A polyline drawn as dashes of `dash` pixels with `gap` pixels between them, the
    /// pattern running on across its corners (a dash over a corner bends with it).
    pub(super) fn dashed(
        &mut self,
        points: &[BackendCoord],
        dash: u32,
        gap: u32,
        pen: Pen,
    ) -> Drawn<(), DB> {
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
    pub(super) fn frame(
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
    pub(super) fn legend(&mut self, plot: &Plot, keys: &[Key]) -> Drawn<(), DB> {
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
    pub(super) fn mark(
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
