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

/// Offers `content` to the user as a file download.
pub fn download_text(filename: &str, mime: &str, content: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(content));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|_| "the browser refused to make a file".to_string())?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "the browser refused to make a download link".to_string())?;
    let result = click_download(filename, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
    result
}

/// Downloads a data: URL (a PNG from `canvas.toDataURL`).
pub fn download_url(filename: &str, url: &str) -> Result<(), String> {
    click_download(filename, url)
}

fn click_download(filename: &str, url: &str) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(|_| "cannot create a link")?
        .unchecked_into();
    a.set_href(url);
    a.set_download(filename);
    a.click();
    Ok(())
}

/// A counter that goes up whenever the window is resized, so charts redraw at the new size.
#[yew::hook]
pub fn use_resize_tick() -> u32 {
    use wasm_bindgen::closure::Closure;
    let tick = yew::use_state(|| 0u32);
    {
        let tick = tick.clone();
        yew::use_effect_with((), move |_| {
            let handler = Closure::<dyn Fn()>::new(move || tick.set(tick.wrapping_add(1)));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ =
                    w.add_event_listener_with_callback("resize", handler.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = w.remove_event_listener_with_callback(
                        "resize",
                        handler.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    *tick
}
