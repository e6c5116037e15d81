//! The first load's side of the handover (built without `full`): it loads the full
//! playground on the latest scenario, hands a file over to it, and takes the first load's
//! app down right before the full one mounts. The app is kept as a closure that takes it
//! down, so that this module needs nothing of the app's.

use super::PENDING_FILE;
use std::cell::{Cell, RefCell};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use yew::prelude::*;

// The glue and the wasm of `costlab-full` sit next to the page (trunk's worker-type
// output, unhashed); this snippet sits two folders below it. The wasm is compiled
// first, so the first load stays on screen (and usable) while it downloads, and is
// taken down only right before the full build mounts.
#[wasm_bindgen(inline_js = r#"
export async function load_full(before_start) {
  const at = (name) => new URL(`../../${name}`, import.meta.url);
  const compile = () =>
    fetch(at('costlab-full_bg.wasm')).then((r) => {
      if (!r.ok) throw new Error(`${r.url}: HTTP ${r.status}`);
      return WebAssembly.compileStreaming(r).catch(() =>
        fetch(at('costlab-full_bg.wasm')).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b)));
    });
  // Its style sheet, in before it mounts (a failed sheet leaves the page unstyled, not dead).
  const sheet = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: at('costlab-full.css') });
  const styled = new Promise((done) => { sheet.onload = sheet.onerror = done; });
  document.head.append(sheet);
  const [glue, module] = await Promise.all([import(at('costlab-full.js')), compile(), styled]);
  before_start();
  await glue.default({ module_or_path: module });
}
"#)]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn load_full(before_start: JsValue) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// Takes the first load's app down, when the full build mounts.
    static TAKE_DOWN: RefCell<Option<Box<dyn FnOnce()>>> = const { RefCell::new(None) };
    /// The scenario's latest link fragment (the address bar may lag behind a drag).
    static FRAGMENT: RefCell<String> = const { RefCell::new(String::new()) };
    static STARTED: Cell<bool> = const { Cell::new(false) };
    /// Why the full playground did not load, for the page to show.
    static ON_ERROR: RefCell<Option<Callback<String>>> = const { RefCell::new(None) };
}

/// Keeps the first load's app, so that the handover can take it down.
pub fn keep<C: BaseComponent>(app: yew::AppHandle<C>) {
    TAKE_DOWN.with(|a| *a.borrow_mut() = Some(Box::new(move || app.destroy())));
}

/// Loads the full playground on the scenario of the latest fragment (once).
pub fn start() {
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    let fragment = FRAGMENT.with(|f| f.borrow().clone());
    crate::infra::write_fragment(&fragment, false);
    let before_start = Closure::once_into_js(|| {
        if let Some(take_down) = TAKE_DOWN.with(|a| a.borrow_mut().take()) {
            take_down();
        }
    });
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = load_full(before_start).await {
            STARTED.with(|s| s.set(false));
            let why = js_sys::Error::from(e)
                .message()
                .as_string()
                .unwrap_or_default();
            let message = format!("The rest of the playground did not load ({why}).");
            // Without a first load on screen (a link it cannot read), the page's alert.
            ON_ERROR.with(|c| match c.borrow().as_ref() {
                Some(c) => c.emit(message),
                None => crate::infra::show_alert(&message),
            });
        }
    });
}

/// Loads the full playground on `fragment`, a link the first load does not read.
pub fn start_on(fragment: &str) {
    note_fragment(fragment.strip_prefix('#').unwrap_or(fragment));
    start();
}

/// The scenario's latest link fragment, which the app encodes when the scenario
/// changes (for the address bar).
pub fn note_fragment(fragment: &str) {
    FRAGMENT.with(|f| f.borrow_mut().replace_range(.., fragment));
}

/// Hands a file picked or dropped on a loader of the first load to the full build.
pub fn hand_over_file(kind: &str, name: String, text: String) {
    if let Some(window) = web_sys::window() {
        let pending = js_sys::Array::of3(&kind.into(), &name.into(), &text.into());
        let _ = js_sys::Reflect::set(&window, &PENDING_FILE.into(), &pending);
    }
    start();
}

/// The first load's side, in the app (after the effect that calls [`note_fragment`]):
/// starts the full playground when the workload needs it, and says why it did not load.
#[hook]
pub fn use_full_playground(needed: bool) -> Option<String> {
    let error = use_state(|| None::<String>);
    {
        let error = error.clone();
        use_effect_with((), move |_| {
            ON_ERROR.with(|c| *c.borrow_mut() = Some(Callback::from(move |e| error.set(Some(e)))));
        });
    }
    use_effect_with(needed, |&needed| {
        if needed {
            start();
        }
    });
    (*error).clone()
}
