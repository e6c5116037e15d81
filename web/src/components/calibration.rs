//! Loading a `costlab-probe` calibration file (file picker or drag and drop, `FileDrop`): the page runs
//! on the measured machine and shows the measurements with their confidence intervals.
//! A malformed, truncated or newer file is named and changes nothing.
//!
//! The file is read by the helper worker (`worker::calibration`), started with the first
//! file: the calibration schema's parser stays out of the page's bundle. Nothing here may
//! use `costlab_core::calibration::Calibration`, or that parser comes back into the page.

use crate::components::file_drop::FileDrop;
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

/// A loader's side of the conversation with the worker: files are numbered, a request
/// made before the worker listens waits, and only the latest file's reply is shown. The
/// calibration loader's by default; [`Pending::new`] for another kind of file.
pub struct Pending {
    ready: bool,
    waiting: Option<String>,
    latest: u64,
    /// The latest file's name, for the messages.
    name: String,
    /// The request for a file's name and text, numbered.
    make: fn(u64, String, String) -> ToWorker,
}

impl Default for Pending {
    fn default() -> Pending {
        Pending::new(|id, _, text| ToWorker::Calibration(CalibrationRequest { id, text }))
    }
}

impl Pending {
    pub fn new(make: fn(u64, String, String) -> ToWorker) -> Pending {
        Pending {
            ready: false,
            waiting: None,
            latest: 0,
            name: String::new(),
            make,
        }
    }

    /// A new file's text; returns the message to post now, if the worker listens.
    pub fn request(&mut self, name: String, text: String) -> Option<String> {
        self.latest += 1;
        self.waiting = Some(worker_protocol::to_message(&(self.make)(
            self.latest,
            name.clone(),
            text,
        )));
        self.name = name;
        self.next()
    }

    /// The worker announced that it listens.
    pub fn ready(&mut self) -> Option<String> {
        self.ready = true;
        self.next()
    }

    /// The number of the latest file: only its reply counts.
    pub fn latest(&self) -> u64 {
        self.latest
    }

    /// The latest file's name.
    pub fn name(&self) -> &str {
        &self.name
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

/// Starts a file loader's worker: `Ready` posts the file waiting for it, every reply goes to
/// `on_reply` (which takes its own kind for the latest file, `Pending::latest`, and drops
/// the rest), and why the worker cannot answer to `on_failure`. The calibration, validation
/// and scenario loaders share it.
pub fn start_loader_worker(
    pending: &Rc<RefCell<Pending>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    on_reply: Callback<FromWorker>,
    on_failure: Callback<String>,
) {
    let on_message = {
        let (pending, link, on_failure) = (pending.clone(), link.clone(), on_failure.clone());
        Callback::from(move |text: String| match worker_protocol::parse(&text) {
            Ok(FromWorker::Ready) => {
                let next = pending.borrow_mut().ready();
                if let (Some(m), Some(l)) = (next, &*link.borrow()) {
                    l.post(&m);
                }
            }
            Ok(FromWorker::Failed(e)) | Err(e) => on_failure.emit(e),
            Ok(reply) => on_reply.emit(reply),
        })
    };
    match WorkerLink::start(infra::WORKER_URL, on_message, on_failure.clone()) {
        Ok(l) => *link.borrow_mut() = Some(l),
        Err(e) => on_failure.emit(e),
    }
}

/// Starts the worker and wires its replies to the message and the machine.
fn start_worker(
    pending: &Rc<RefCell<Pending>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    message: Shown,
    dispatch: Callback<Action>,
) {
    let unchanged = {
        let pending = pending.clone();
        move |e: &str| format!("{}: {e}; the machine is unchanged", pending.borrow().name())
    };
    let on_reply = {
        let (pending, message, unchanged) = (pending.clone(), message.clone(), unchanged.clone());
        Callback::from(move |reply: FromWorker| match reply {
            FromWorker::Calibration(r) if r.id == pending.borrow().latest() => match r.result {
                Ok(c) => {
                    message.set(Some(Ok(c.lines)));
                    dispatch.emit(Action::SetCustomMachine(c.profile));
                }
                Err(e) => message.set(Some(Err(unchanged(&e)))),
            },
            // A reply to an older file, or to no request of this loader's.
            _ => {}
        })
    };
    let on_failure = Callback::from(move |e: String| message.set(Some(Err(unchanged(&e)))));
    start_loader_worker(pending, link, on_reply, on_failure);
}

#[function_component(CalibrationLoader)]
pub fn calibration_loader(props: &CalibrationLoaderProps) -> Html {
    let message: Shown = use_state(|| None);
    let pending = use_mut_ref(Pending::default);
    // Started with the first file and kept while the loader is on the page.
    let link = use_mut_ref(|| None::<WorkerLink>);
    let on_text = {
        let (dispatch, message) = (props.dispatch.clone(), message.clone());
        Callback::from(move |(name, text): (String, String)| {
            if link.borrow().is_none() {
                start_worker(&pending, &link, message.clone(), dispatch.clone());
            }
            let next = pending.borrow_mut().request(name, text);
            if let (Some(m), Some(l)) = (next, &*link.borrow()) {
                l.post(&m);
            }
        })
    };
    let on_error = {
        let message = message.clone();
        Callback::from(move |e: String| message.set(Some(Err(e))))
    };
    // A file dropped on the first load's loader (see `handover`).
    {
        let on_text = on_text.clone();
        use_effect_with((), move |_| {
            if let Some(file) = crate::handover::take_file("calibration") {
                on_text.emit(file);
            }
        });
    }
    calibration_drop(on_text, on_error, &message)
}

/// The calibration loader's file picker and drop zone, with what the latest file gave.
pub fn calibration_drop(
    on_text: Callback<(String, String)>,
    on_error: Callback<String>,
    message: &Option<Result<Vec<String>, String>>,
) -> Html {
    html! {
        <FileDrop id="calibration-file" class="calibration-drop"
            label="Load a costlab-probe calibration file (or drop it here)"
            max_bytes={MAX_BYTES} kind="a calibration file" {on_text} {on_error}>
            { match message {
                Some(Ok(lines)) => html! {
                    <ul class="calibration-summary" aria-label="Loaded calibration">
                        { for lines.iter().map(|l| html! { <li>{ l }</li> }) }
                    </ul>
                },
                Some(Err(e)) => html! { <p class="error" role="alert">{ e }</p> },
                None => html! {},
            } }
        </FileDrop>
    }
}
