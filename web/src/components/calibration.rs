//! Loading a `costlab-probe` calibration file (file picker or drag and drop): the page runs
//! on the measured machine and shows the measurements with their confidence intervals.
//! A malformed, truncated or newer file is named and changes nothing.
//!
//! The file is read by the helper worker (`worker::calibration`), started with the first
//! file: the calibration schema's parser stays out of the page's bundle. Nothing here may
//! use `costlab_core::calibration::Calibration`, or that parser comes back into the page.

use crate::infra::{self, WorkerLink};
use crate::state::Action;
use crate::worker_protocol::{self, CalibrationRequest, FromWorker, ToWorker};
use costlab_core::calibration::MAX_BYTES;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CalibrationLoaderProps {
    pub dispatch: Callback<Action>,
}

/// The loader's side of the conversation with the worker: files are numbered, a request
/// made before the worker listens waits, and only the latest file's reply is shown.
#[derive(Default)]
pub struct Pending {
    ready: bool,
    waiting: Option<String>,
    latest: u64,
    /// The latest file's name, for the messages.
    name: String,
}

impl Pending {
    /// A new file's text; returns the message to post now, if the worker listens.
    pub fn request(&mut self, name: String, text: String) -> Option<String> {
        self.latest += 1;
        self.name = name;
        self.waiting = Some(worker_protocol::to_json(&ToWorker::Calibration(
            CalibrationRequest {
                id: self.latest,
                text,
            },
        )));
        self.next()
    }

    /// The worker announced that it listens.
    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    fn next(&mut self) -> Option<String> {
        if self.ready {
            self.waiting.take()
        } else {
            None
        }
    }
}

type Shown = UseStateHandle<Option<Result<Vec<String>, String>>>;

/// Starts the worker and wires its replies to the message and the machine.
fn start_worker(
    pending: &Rc<RefCell<Pending>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    message: Shown,
    dispatch: Callback<Action>,
) {
    let unchanged = {
        let pending = pending.clone();
        move |e: &str| format!("{}: {e}; the machine is unchanged", pending.borrow().name)
    };
    let on_message = {
        let (pending, link, message, unchanged) = (
            pending.clone(),
            link.clone(),
            message.clone(),
            unchanged.clone(),
        );
        Callback::from(move |text: String| match worker_protocol::parse(&text) {
            Ok(FromWorker::Ready) => {
                let next = pending.borrow_mut().ready();
                if let (Some(m), Some(l)) = (next, &*link.borrow()) {
                    l.post(&m);
                }
            }
            Ok(FromWorker::Calibration(r)) if r.id == pending.borrow().latest => match r.result {
                Ok(c) => {
                    message.set(Some(Ok(c.lines)));
                    dispatch.emit(Action::SetCustomMachine(c.profile));
                }
                Err(e) => message.set(Some(Err(unchanged(&e)))),
            },
            // A reply to an older file, or to no request of this loader's.
            Ok(FromWorker::Calibration(_) | FromWorker::Reply(_) | FromWorker::Trees(_)) => {}
            Ok(FromWorker::Failed(e)) | Err(e) => message.set(Some(Err(unchanged(&e)))),
        })
    };
    let on_error = {
        let message = message.clone();
        Callback::from(move |e: String| message.set(Some(Err(unchanged(&e)))))
    };
    match WorkerLink::start(infra::WORKER_URL, on_message, on_error) {
        Ok(l) => *link.borrow_mut() = Some(l),
        Err(e) => message.set(Some(Err(e))),
    }
}

#[function_component(CalibrationLoader)]
pub fn calibration_loader(props: &CalibrationLoaderProps) -> Html {
    let message: Shown = use_state(|| None);
    let pending = use_mut_ref(Pending::default);
    // Started with the first file and kept while the loader is on the page.
    let link = use_mut_ref(|| None::<WorkerLink>);
    let load = {
        let dispatch = props.dispatch.clone();
        let message = message.clone();
        Callback::from(move |file: web_sys::File| {
            let name = file.name();
            if file.size() > MAX_BYTES as f64 {
                message.set(Some(Err(format!(
                    "{name}: {} bytes is larger than a calibration file can be",
                    file.size()
                ))));
                return;
            }
            let (pending, link, message, dispatch) = (
                pending.clone(),
                link.clone(),
                message.clone(),
                dispatch.clone(),
            );
            wasm_bindgen_futures::spawn_local(async move {
                let text = match wasm_bindgen_futures::JsFuture::from(file.text()).await {
                    Ok(t) => t.as_string().unwrap_or_default(),
                    Err(_) => {
                        message.set(Some(Err(format!(
                            "{name}: the browser could not read the file"
                        ))));
                        return;
                    }
                };
                if link.borrow().is_none() {
                    start_worker(&pending, &link, message, dispatch);
                }
                let next = pending.borrow_mut().request(name, text);
                if let (Some(m), Some(l)) = (next, &*link.borrow()) {
                    l.post(&m);
                }
            });
        })
    };
    let on_pick = {
        let load = load.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                load.emit(f);
            }
            input.set_value("");
        })
    };
    let on_drop = {
        let load = load.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            if let Some(f) = e
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|l| l.get(0))
            {
                load.emit(f);
            }
        })
    };
    let on_drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    html! {
        <div class="calibration-drop" ondrop={on_drop} ondragover={on_drag_over}>
            <label for="calibration-file">{ "Load a costlab-probe calibration file (or drop it here)" }</label>
            <input id="calibration-file" type="file" accept=".json,application/json" onchange={on_pick} />
            { match &*message {
                Some(Ok(lines)) => html! {
                    <ul class="calibration-summary" aria-label="Loaded calibration">
                        { for lines.iter().map(|l| html! { <li>{ l }</li> }) }
                    </ul>
                },
                Some(Err(e)) => html! { <p class="error" role="alert">{ e }</p> },
                None => html! {},
            } }
        </div>
    }
}
