//! Loading a `costlab-probe` calibration file (file picker or drag and drop, `FileDrop`): the page runs
//! on the measured machine and shows the measurements with their confidence intervals.
//! A malformed, truncated or newer file is named and changes nothing.
//!
//! The file is read by the helper worker (`worker::calibration`), started with the first
//! file (`loader::use_file_loader`): the calibration schema's parser stays out of the
//! page's bundle. Nothing here may use `costlab_core::calibration::Calibration`, or that
//! parser comes back into the page.

use crate::components::file_drop::FileDrop;
use crate::components::loader::{use_file_loader, use_handed_over_file};
use crate::state::Action;
use crate::worker_protocol::{Calibrated, CalibrationRequest, FromWorker, ToWorker};
use costlab_core::calibration::MAX_BYTES;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CalibrationLoaderProps {
    pub dispatch: Callback<Action>,
}

/// The worker's request for a calibration file (numbered; the name stays with the page).
pub fn request(id: u64, _name: String, text: String) -> ToWorker {
    ToWorker::Calibration(CalibrationRequest { id, text })
}

/// The calibration reply among the worker's messages.
fn reply(m: FromWorker) -> Option<(u64, Result<Calibrated, String>)> {
    match m {
        FromWorker::Calibration(r) => Some((r.id, r.result)),
        _ => None,
    }
}

type Shown = UseStateHandle<Option<Result<Vec<String>, String>>>;

#[function_component(CalibrationLoader)]
pub fn calibration_loader(props: &CalibrationLoaderProps) -> Html {
    let message: Shown = use_state(|| None);
    // The latest file's machine goes to the page; what it gave, or why not, is shown.
    let on_answer = {
        let (dispatch, message) = (props.dispatch.clone(), message.clone());
        Callback::from(
            move |(name, result): (String, Result<Calibrated, String>)| match result {
                Ok(c) => {
                    message.set(Some(Ok(c.lines)));
                    dispatch.emit(Action::SetCustomMachine(c.profile));
                }
                Err(e) => message.set(Some(Err(format!("{name}: {e}; the machine is unchanged")))),
            },
        )
    };
    let on_text = use_file_loader(request, reply, on_answer);
    let on_error = {
        let message = message.clone();
        Callback::from(move |e: String| message.set(Some(Err(e))))
    };
    // A file dropped on the first load's loader (see `handover`).
    use_handed_over_file("calibration", on_text.clone());
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
