//! The page's helper worker: the DBT3 planners and the calibration-file and validation-report
//! readers in a wasm of their own, started by the page only when the DBT3 view opens or a
//! calibration file or validation report is loaded (through `worker-loader.js`), so the page's bundle does without them and their work
//! never blocks the page's thread.

use costlab_web::worker::Worker;
use costlab_web::worker_protocol::{to_json, FromWorker};
use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn main() {
    // A panic reaches the console here; the page sees the worker's error event.
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
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
