//! The first load and the full playground.
//!
//! The page first loads a build of this crate without the `full` feature: the t1 view, the
//! machine, the constants and the links, which is what a first visit sees. The rest (the
//! DBT3 and ordering views, the user's workload, calibration files, validation reports) is
//! in a second build, `costlab-full` (`src/full_main.rs`, with `full`), which the first one
//! loads when the scenario needs it: a workload other than t1 (picked, or in the link it
//! opened), or a file dropped on one of the loaders. The scenario passes over in the
//! address bar (every scenario lives there); a file passes over in `window`
//! (`costlabPendingFile`), and the full build's loader takes it when it mounts.
//!
//! The handing over is built only without `full` (`first_load`); the full build's
//! loaders take what was handed over ([`take_file`]). This module holds what both builds
//! share and uses none of the page's modules: `first_load` uses it, never the reverse.

use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

#[cfg(not(feature = "full"))]
pub mod first_load;

/// Where a file handed over waits, on `window`: `[kind, name, text]`.
const PENDING_FILE: &str = "costlabPendingFile";

/// Whether the scenario needs the full playground (anything but the t1 sweep).
pub fn needs_full(workload: &costlab_core::scenario::Workload) -> bool {
    !matches!(workload, costlab_core::scenario::Workload::T1Sweep { .. })
}

/// The file of `kind` ("calibration", "validation") that the first load handed over, once.
pub fn take_file(kind: &str) -> Option<(String, String)> {
    let window: JsValue = web_sys::window()?.into();
    let key = JsValue::from_str(PENDING_FILE);
    let pending: js_sys::Array = js_sys::Reflect::get(&window, &key).ok()?.dyn_into().ok()?;
    if pending.get(0).as_string().as_deref() != Some(kind) {
        return None;
    }
    let _ = js_sys::Reflect::delete_property(&window.into(), &key);
    Some((pending.get(1).as_string()?, pending.get(2).as_string()?))
}
