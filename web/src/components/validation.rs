//! A `costlab-probe validate` report in the page (file picker or drag and drop): simulated
//! against real time for every forced plan, as a log-log scatter, with the report's summary
//! per workload and cache state and the engine, server and machine it was measured on.
//!
//! The helper worker reads the file (`worker::validation`: `ValidationReport::from_json`,
//! then the core's `scatter` and `summary_rows`), started with the first file
//! (`loader::use_file_loader`), so the report schema's parser stays out of the page's
//! bundle. A file that cannot be read is named with what is wrong, and whatever the view
//! showed stays as it was.

use crate::components::chart_view::chart;
use crate::components::file_drop::FileDrop;
use crate::components::loader::{use_file_loader, use_handed_over_file};
use crate::model;
use crate::worker_protocol::{FromWorker, ToWorker, ValidationRequest, ValidationShown};
use costlab_core::validation::MAX_BYTES;
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

/// The worker's request for a validation report.
fn request(id: u64, _name: String, text: String) -> ToWorker {
    ToWorker::Validation(ValidationRequest { id, text })
}

/// The validation reply among the worker's messages.
fn reply(m: FromWorker) -> Option<(u64, Result<ValidationShown, String>)> {
    match m {
        FromWorker::Validation(r) => Some((r.id, r.result)),
        _ => None,
    }
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
    // The latest file's report replaces the one on show; why a file was refused is said.
    let on_answer = {
        let shown = shown.dispatcher();
        Callback::from(
            move |(name, result): (String, Result<ValidationShown, String>)| match result {
                Ok(v) => shown.dispatch(Received::Report(name, v)),
                Err(e) => shown.dispatch(Received::Failed(format!("{name}: {e}"))),
            },
        )
    };
    let on_text = use_file_loader(request, reply, on_answer);
    let on_error = {
        let shown = shown.dispatcher();
        Callback::from(move |e: String| shown.dispatch(Received::Failed(e)))
    };
    // A report dropped on the first load's loader (see `handover`).
    use_handed_over_file("validation", on_text.clone());
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
