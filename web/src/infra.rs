//! The thin layer that talks to the browser: panic reporting, window size, pixel ratio.

use wasm_bindgen::JsCast;

/// A panic must never leave a blank page: show it in the page's alert box (text only,
/// never HTML) and still log it to the console for developers.
pub fn install_panic_reporter() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let message = format!("costlab hit an internal error and stopped updating: {info}\nReload the page; please report this with the link you opened.");
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("panic"))
        {
            el.set_text_content(Some(&message));
            let _ = el.remove_attribute("hidden");
        }
    }));
}

pub fn device_pixel_ratio() -> f64 {
    web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(1.0)
}

/// Gives a canvas a backing store of its CSS size times the pixel ratio, so charts stay
/// crisp on high-DPI screens; returns the pixel ratio used.
pub fn fit_canvas(canvas: &web_sys::HtmlCanvasElement) -> f64 {
    let dpr = device_pixel_ratio();
    let el: &web_sys::Element = canvas.unchecked_ref();
    let rect = el.get_bounding_client_rect();
    let w = (rect.width() * dpr).round().max(1.0) as u32;
    let h = (rect.height() * dpr).round().max(1.0) as u32;
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    dpr
}

pub fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|m| m.matches())
        .unwrap_or(false)
}
