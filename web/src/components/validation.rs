//! A `costlab-probe validate` report in the page (file picker or drag and drop): simulated
//! against real time for every forced plan, as a log-log scatter, with the report's summary
//! per workload and cache state and the engine, server and machine it was measured on.
//!
//! The helper worker reads the file (`worker::validation`: `ValidationReport::from_json`,
//! then the core's `scatter` and `summary_rows`), started with the first file, so the
//! report schema's parser stays out of the page's bundle. A file that cannot be read is
//! named with what is wrong, and whatever the view showed stays as it was.

use crate::components::calibration::{start_loader_worker, Pending};
use crate::components::chart_view::chart;
use crate::components::file_drop::FileDrop;
use crate::infra::WorkerLink;
use crate::model;
use crate::worker_protocol::{FromWorker, ToWorker, ValidationRequest, ValidationShown};
use costlab_core::validation::MAX_BYTES;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ValidationViewProps {
    pub dark: bool,
    /// Changes whenever the window is resized.
    #[prop_or_default]
    pub resize: u32,
}

/// The report on show (with its file's name), and the message about the latest file that
/// could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shown {
    pub report: Option<(String, Rc<ValidationShown>)>,
    pub error: Option<String>,
}

/// What a file gave.
pub enum Received {
    /// A report read, with its file's name: shown in place of the last.
    Report(String, ValidationShown),
    /// Why a file could not be used, naming it: said, and nothing else changes.
    Failed(String),
}

impl Reducible for Shown {
    type Action = Received;

    fn reduce(self: Rc<Self>, action: Received) -> Rc<Self> {
        match action {
            Received::Report(name, v) => Rc::new(Shown {
                report: Some((name, Rc::new(v))),
                error: None,
            }),
            Received::Failed(e) => {
                let kept = if self.report.is_some() {
                    "the report on show is unchanged"
                } else {
                    "nothing was loaded"
                };
                Rc::new(Shown {
                    report: self.report.clone(),
                    error: Some(format!("{e}; {kept}")),
                })
            }
        }
    }
}

fn requests() -> Pending {
    Pending::new(|id, _, text| ToWorker::Validation(ValidationRequest { id, text }))
}

/// Starts the worker and wires its replies to what the view shows.
fn start_worker(
    pending: &Rc<RefCell<Pending>>,
    link: &Rc<RefCell<Option<WorkerLink>>>,
    shown: UseReducerDispatcher<Shown>,
) {
    let failed = {
        let (pending, shown) = (pending.clone(), shown.clone());
        move |e: &str| {
            let name = pending.borrow().name().to_string();
            shown.dispatch(Received::Failed(format!("{name}: {e}")));
        }
    };
    let on_reply = {
        let (pending, failed) = (pending.clone(), failed.clone());
        Callback::from(move |reply: FromWorker| match reply {
            FromWorker::Validation(r) if r.id == pending.borrow().latest() => match r.result {
                Ok(v) => shown.dispatch(Received::Report(pending.borrow().name().to_string(), v)),
                Err(e) => failed(&e),
            },
            // A reply to an older file, or to no request of this view's.
            _ => {}
        })
    };
    let on_failure = Callback::from(move |e: String| failed(&e));
    start_loader_worker(pending, link, on_reply, on_failure);
}

/// The report's header, summary and stopped plans; the chart goes between them.
fn report_html(name: &str, v: &ValidationShown, dark: bool, resize: u32) -> Html {
    let s = &v.scatter;
    let executed = s.executed().count();
    let stopped: Vec<_> = s.past_limit().collect();
    html! {
        <div class="validation-report">
            <p class="validation-header">
                { format!("{name}: {} (server {}) on {}; run finished {}. ", v.engine, v.server_version, v.machine, v.created) }
                { format!("{executed} plans executed, {} stopped at the limit of {}.", stopped.len(), model::precise_seconds(s.limit_s)) }
            </p>
            { chart("validation-scatter".into(), format!("{}: simulated against real time, one mark per plan", v.engine),
                model::validation_chart(s), dark, resize) }
            if !stopped.is_empty() {
                <ul class="past-limit" aria-label="Plans stopped at the limit">
                    { for stopped.iter().map(|p| html! { <li>{ model::mark_title(p, s.limit_s) }</li> }) }
                </ul>
            }
            <h3>{ "Summary: does the simulation name the really fastest plan, and how close are its times?" }</h3>
            <ul class="validation-summary" aria-label="Summary per workload and cache state">
                { for v.summary.iter().map(|l| html! { <li>{ l }</li> }) }
            </ul>
        </div>
    }
}

#[function_component(ValidationView)]
pub fn validation_view(props: &ValidationViewProps) -> Html {
    let shown = use_reducer(Shown::default);
    let pending = use_mut_ref(requests);
    // Started with the first file and kept while the view is on the page.
    let link = use_mut_ref(|| None::<WorkerLink>);
    let on_text = {
        let shown = shown.dispatcher();
        Callback::from(move |(name, text): (String, String)| {
            if link.borrow().is_none() {
                start_worker(&pending, &link, shown.clone());
            }
            let next = pending.borrow_mut().request(name, text);
            if let (Some(m), Some(l)) = (next, &*link.borrow()) {
                l.post(&m);
            }
        })
    };
    let on_error = {
        let shown = shown.dispatcher();
        Callback::from(move |e: String| shown.dispatch(Received::Failed(e)))
    };
    // A report dropped on the first load's loader (see `handover`).
    {
        let on_text = on_text.clone();
        use_effect_with((), move |_| {
            if let Some(file) = crate::handover::take_file("validation") {
                on_text.emit(file);
            }
        });
    }
    let report = match &shown.report {
        Some((name, v)) => report_html(name, v, props.dark, props.resize),
        None => html! {},
    };
    validation_section(on_text, on_error, shown.error.as_deref(), report)
}

/// The validation view's frame: what a report is, its file picker and drop zone, why the
/// latest file was refused, and `report`.
pub fn validation_section(
    on_text: Callback<(String, String)>,
    on_error: Callback<String>,
    error: Option<&str>,
    report: Html,
) -> Html {
    html! {
        <section class="validation panel" aria-labelledby="validation-title">
            <h2 id="validation-title">{ "Simulated against real: a validation report" }</h2>
            <p class="note">
                { "The JSON that " }<code>{ "costlab-probe validate postgres --out FILE" }</code>
                { " writes (docs/validation/pg15.json is one): every candidate plan of each query, forced and run on a real server, warm and cold, beside the simulation's time for it." }
            </p>
            <FileDrop id="validation-file" class="validation-drop"
                label="Load a validation report (or drop it here)"
                max_bytes={MAX_BYTES} kind="a validation report" {on_text} {on_error}>
                if let Some(e) = error {
                    <p class="error" role="alert">{ e }</p>
                }
            </FileDrop>
            { report }
        </section>
    }
}
