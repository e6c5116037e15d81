//! The thin layer that talks to the browser: panic reporting, window size, pixel ratio.

use wasm_bindgen::JsCast;

/// Removes index.html's loading shell, if it is there (the wasm tests' page has none).
pub fn remove_loading_shell() {
    if let Some(shell) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("shell"))
    {
        shell.remove();
    }
}

/// A panic must never leave a blank page: show it in the page's alert box (text only,
/// never HTML) and still log it to the console for developers.
pub fn install_panic_reporter() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_alert(&format!("costlab hit an internal error and stopped updating: {info}\nReload the page; please report this with the link you opened."));
    }));
}

/// Shows `message` in the page's alert box (index.html's, outside the app), as text.
pub fn show_alert(message: &str) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("panic"))
    {
        el.set_text_content(Some(message));
        let _ = el.remove_attribute("hidden");
    }
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

/// Draws an SVG picture (`width` x `height` in its own units) on a canvas at twice that
/// size and downloads it as PNG. The browser decodes the SVG; the download starts when it
/// has (an `Image`'s load event).
pub fn download_svg_as_png(
    filename: &str,
    svg: &str,
    width: f64,
    height: f64,
) -> Result<(), String> {
    use wasm_bindgen::closure::Closure;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let img = web_sys::HtmlImageElement::new().map_err(|_| "cannot make an image")?;
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(|_| "cannot make a canvas")?
        .unchecked_into();
    let scale = 2.0;
    canvas.set_width((width * scale).ceil() as u32);
    canvas.set_height((height * scale).ceil() as u32);
    let name = filename.to_string();
    let drawn = img.clone();
    let onload = Closure::once_into_js(move || {
        let ctx = canvas
            .get_context("2d")
            .ok()
            .flatten()
            .map(|c| c.unchecked_into::<web_sys::CanvasRenderingContext2d>());
        if let Some(ctx) = ctx {
            ctx.set_fill_style_str("#fff");
            ctx.fill_rect(0.0, 0.0, width * scale, height * scale);
            let _ = ctx.draw_image_with_html_image_element_and_dw_and_dh(
                &drawn,
                0.0,
                0.0,
                width * scale,
                height * scale,
            );
            if let Ok(url) = canvas.to_data_url_with_type("image/png") {
                let _ = click_download(&name, &url);
            }
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    let url = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(svg))
    );
    img.set_src(&url);
    Ok(())
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

/// The page's fragment, without decoding.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Writes `#fragment` to the address bar: a new history entry when `push`, else in place.
/// Browsers limit how often this may run (Safari: 100 calls in 30 s), so callers debounce;
/// a refusal is ignored because the page works the same without it.
pub fn write_fragment(fragment: &str, push: bool) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if window.location().hash().ok().as_deref() == Some(&format!("#{fragment}")) {
        return;
    }
    if let Ok(history) = window.history() {
        let url = format!("#{fragment}");
        let _ = if push {
            history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        } else {
            history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        };
    }
}

/// The page's address without its fragment.
pub fn base_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Calls `f` with the new fragment whenever the user goes back or forward, or edits the
/// fragment by hand.
#[yew::hook]
pub fn use_fragment_changes(f: yew::Callback<String>) {
    use wasm_bindgen::closure::Closure;
    yew::use_effect_with((), move |_| {
        let handler = Closure::<dyn Fn()>::new(move || f.emit(location_hash()));
        let window = web_sys::window();
        if let Some(w) = &window {
            for ev in ["popstate", "hashchange"] {
                let _ = w.add_event_listener_with_callback(ev, handler.as_ref().unchecked_ref());
            }
        }
        move || {
            if let Some(w) = &window {
                for ev in ["popstate", "hashchange"] {
                    let _ =
                        w.remove_event_listener_with_callback(ev, handler.as_ref().unchecked_ref());
                }
            }
        }
    });
}

/// Puts text on the clipboard; the promise's outcome is not awaited (the page also shows
/// the text selected in a field, for browsers that refuse).
pub fn copy_to_clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// Sets `data-theme` on the root element ("light", "dark"), or removes it to follow the system.
pub fn set_theme(theme: Option<&str>) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = match theme {
            Some(t) => root.set_attribute("data-theme", t),
            None => root.remove_attribute("data-theme"),
        };
    }
}

/// Tells the page embedding this one (if any) how tall the content is, so it can size the
/// iframe. The host must check `event.origin`; the message carries nothing else.
pub fn post_height_to_parent() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(Some(parent)) = window.parent() else {
        return;
    };
    let height = window
        .document()
        .and_then(|d| d.document_element())
        .map(|e| e.scroll_height())
        .unwrap_or(0);
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"type".into(), &"costlab:resize".into());
    let _ = js_sys::Reflect::set(&msg, &"height".into(), &(height as f64).into());
    let _ = parent.post_message(&msg, "*");
}

/// A User Timing mark, so tests and curious users can measure input-to-redraw time in the
/// browser's performance timeline. Failures are ignored: timing is not behaviour.
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// The helper worker's script, next to the page (trunk copies it; see index.html).
pub const WORKER_URL: &str = "worker-loader.js";

/// The script that loads the worker's wasm again on the page's thread (the DBT3 view's
/// `PagePlanner`; trunk copies it too).
pub const PLANNER_URL: &str = "planner-loader.js";

/// A dedicated worker and the handlers of what it sends; dropping it stops the worker.
pub struct WorkerLink {
    worker: web_sys::Worker,
    _onmessage: wasm_bindgen::closure::Closure<dyn Fn(web_sys::MessageEvent)>,
    _onerror: wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
}

impl WorkerLink {
    /// Starts the worker script at `url` (relative to the page). Text messages go to
    /// `on_message`; a script that fails to load or throws goes to `on_error`.
    pub fn start(
        url: &str,
        on_message: yew::Callback<String>,
        on_error: yew::Callback<String>,
    ) -> Result<WorkerLink, String> {
        use wasm_bindgen::closure::Closure;
        let worker = web_sys::Worker::new(url)
            .map_err(|_| format!("the browser refused to start the worker {url}"))?;
        let url = url.to_string();
        let onmessage =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                on_message.emit(e.data().as_string().unwrap_or_default())
            });
        let onerror = Closure::<dyn Fn(web_sys::Event)>::new(move |e: web_sys::Event| {
            // Shown inline instead of logged. A script that fails to load gives a plain
            // Event; an exception in the worker an ErrorEvent with its message.
            e.prevent_default();
            let message = e
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .filter(|m| !m.is_empty());
            on_error.emit(message.unwrap_or_else(|| format!("the worker {url} failed to load")));
        });
        worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
        Ok(WorkerLink {
            worker,
            _onmessage: onmessage,
            _onerror: onerror,
        })
    }

    /// Posting a string cannot fail (it is always cloneable); a stopped worker ignores it.
    pub fn post(&self, message: &str) {
        let _ = self
            .worker
            .post_message(&wasm_bindgen::JsValue::from_str(message));
    }
}

impl Drop for WorkerLink {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}
