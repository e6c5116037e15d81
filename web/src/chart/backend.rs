//! The page's drawing backend ([`Backend`]): the screen's canvas, whose lines it strokes
//! in batches ([`LineBatch`]), or an exported SVG, behind one type.

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use plotters_svg::SVGBackend;

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
