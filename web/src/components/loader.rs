//! A file loader's conversation with the helper worker, which reads the files the page's
//! bundle has no parser for: the calibration loader, the validation view and the user's
//! scenario file loader each use [`use_file_loader`]. The worker starts with the first
//! file and stays while the loader is on the page; files are numbered, a request made
//! before the worker listens waits, and only the latest file's reply counts.

use crate::infra::{self, WorkerLink};
use crate::worker_protocol::{self, FromWorker, ToWorker};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// A loader's side of the conversation with the worker: files are numbered, a request
/// made before the worker listens waits, and only the latest file's reply is shown.
pub struct Pending {
    ready: bool,
    waiting: Option<String>,
    latest: u64,
    /// The latest file's name, for the messages.
    name: String,
    /// The request for a file's name and text, numbered.
    make: fn(u64, String, String) -> ToWorker,
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

/// Takes a loader's kind of reply (its file's number and result) out of what the worker
/// sends; `None` for any other message.
pub type Pick<T> = fn(FromWorker) -> Option<(u64, Result<T, String>)>;

/// A file loader's worker. Returns the callback that takes a file's name and text: `make`
/// turns it into a numbered request, `pick` takes this loader's kind of reply (its number
/// and result) out of what the worker sends, and `on_answer` gets the latest file's name
/// with its result, or with why the worker cannot answer. Replies to older files, and to
/// no request of this loader's, are dropped.
#[hook]
pub fn use_file_loader<T: 'static>(
    make: fn(u64, String, String) -> ToWorker,
    pick: Pick<T>,
    on_answer: Callback<(String, Result<T, String>)>,
) -> Callback<(String, String)> {
    let pending = use_mut_ref(|| Pending::new(make));
    // Started with the first file and kept while the loader is on the page.
    let link = use_mut_ref(|| None::<WorkerLink>);
    Callback::from(move |(name, text): (String, String)| {
        if link.borrow().is_none() {
            start_worker(&pending, &link, pick, on_answer.clone());
        }
        let next = pending.borrow_mut().request(name, text);
        if let (Some(m), Some(l)) = (next, &*link.borrow()) {
            l.post(&m);
        }
    })
}

/// Starts the worker: `Ready` posts the file waiting for it, the latest file's reply and
/// why the worker cannot answer go to `on_answer`.
fn start_worker<T: 'static>(
    pending: &Rc<RefCell<Pending>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    pick: Pick<T>,
    on_answer: Callback<(String, Result<T, String>)>,
) {
    let on_failure = {
        let (pending, on_answer) = (pending.clone(), on_answer.clone());
        Callback::from(move |e: String| {
            let name = pending.borrow().name().to_string();
            on_answer.emit((name, Err(e)));
        })
    };
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
            Ok(reply) => match pick(reply) {
                Some((id, result)) if id == pending.borrow().latest() => {
                    let name = pending.borrow().name().to_string();
                    on_answer.emit((name, result));
                }
                // A reply to an older file, or to no request of this loader's.
                _ => {}
            },
        })
    };
    match WorkerLink::start(infra::WORKER_URL, on_message, on_failure.clone()) {
        Ok(l) => *link.borrow_mut() = Some(l),
        Err(e) => on_failure.emit(e),
    }
}

/// Loads the file of `kind` that the first load's loader handed over (see `handover`),
/// once, when the loader mounts.
#[hook]
pub fn use_handed_over_file(kind: &'static str, on_text: Callback<(String, String)>) {
    use_effect_with((), move |_| {
        if let Some(file) = crate::handover::take_file(kind) {
            on_text.emit(file);
        }
    });
}
