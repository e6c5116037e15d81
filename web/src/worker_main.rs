//! The page's helper worker: the DBT3 planners and the calibration-file and validation-report
//! readers in a wasm of their own, started by the page only when the DBT3 view opens or a
//! calibration file or validation report is loaded (through `worker-loader.js`), so the page's bundle does without them and their work
//! never blocks the page's thread.
//!
//! The DBT3 view also loads this wasm a second time on the page's own thread (through
//! `planner-loader.js`) and calls [`plan_on_page`]: a reply that only moved knobs is then
//! ready inside the input's own task (see `components::dbt3::PagePlanner`).

use costlab_web::worker::Worker;
use costlab_web::worker_protocol::{to_json, FromWorker};
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    // On the page's thread this wasm only answers `plan_on_page`.
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    // A panic reaches the console here; the page sees the worker's error event.
    console_error_panic_hook::set_once();
    // The worker's own clock, so that replies say how long the planning took.
    let performance = scope.performance();
    let worker = RefCell::new(Worker::with_clock(Box::new(move || {
        performance.as_ref().map_or(0.0, |p| p.now())
    })));
    let reply_to = scope.clone();
    let onmessage = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
        let request = e.data().as_string().unwrap_or_default();
        let reply = worker.borrow_mut().handle_json(&request);
        let _ = reply_to.post_message(&JsValue::from_str(&reply));
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    // The handler lives as long as the worker does.
    onmessage.forget();
    // Messages that arrived while the wasm loaded found no handler and are gone: the page
    // waits for this before it sends anything.
    let _ = scope.post_message(&JsValue::from_str(&to_json(&FromWorker::Ready)));
}

thread_local! {
    /// The page thread's own planners, apart from the worker's.
    static ON_PAGE: RefCell<Worker> = RefCell::new(Worker::with_clock(Box::new(|| {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now())
    })));
}

/// A request as the worker takes it (JSON [`ToWorker`](costlab_web::worker_protocol::ToWorker))
/// answered on the calling thread: the JSON [`FromWorker`] the worker would post.
#[wasm_bindgen]
pub fn plan_on_page(message: &str) -> String {
    ON_PAGE.with(|w| w.borrow_mut().handle_json(message))
}

/// Plans the request (a JSON `ToWorker::Dbt3` the page's planner was primed with) `rounds`
/// times over, keeping nothing (see [`Worker::warm`]); anything else is ignored.
#[wasm_bindgen]
pub fn warm_on_page(message: &str, rounds: u32) {
    if let Ok(costlab_web::worker_protocol::ToWorker::Dbt3(req)) = serde_json::from_str(message) {
        ON_PAGE.with(|w| w.borrow().warm(&req, rounds));
    }
}
