//! The first load's stand-ins (built without the `full` feature; see `handover`) for the
//! views and loaders that are in the full playground only. They take the real ones' props
//! and put the same controls where the real ones are: a workload that needs the full
//! playground has `handover::first_load::use_full_playground` load it, and a file picked
//! or dropped on a loader goes over with it.

use crate::components::calibration::{calibration_drop, CalibrationLoaderProps};
use crate::components::dbt3::Dbt3ViewProps;
use crate::components::ordering::OrderingViewProps;
use crate::components::validation::{validation_section, ValidationViewProps};
use crate::handover::first_load::hand_over_file;
use yew::prelude::*;

pub fn loading() -> Html {
    html! { <p class="note loading-full" role="status">{ "Loading the rest of the playground…" }</p> }
}

#[function_component(Dbt3View)]
pub fn dbt3_view(_: &Dbt3ViewProps) -> Html {
    loading()
}

#[function_component(OrderingView)]
pub fn ordering_view(_: &OrderingViewProps) -> Html {
    loading()
}

/// Why a file was refused before it was read (too large, unreadable).
type Refused = UseStateHandle<Option<String>>;

fn on_error(refused: &Refused) -> Callback<String> {
    let refused = refused.clone();
    Callback::from(move |e| refused.set(Some(e)))
}

#[function_component(CalibrationLoader)]
pub fn calibration_loader(_: &CalibrationLoaderProps) -> Html {
    let refused: Refused = use_state(|| None);
    let on_text = Callback::from(|(name, text)| hand_over_file("calibration", name, text));
    calibration_drop(
        on_text,
        on_error(&refused),
        &refused.as_ref().map(|e| Err(e.clone())),
    )
}

#[function_component(ValidationView)]
pub fn validation_view(_: &ValidationViewProps) -> Html {
    let refused: Refused = use_state(|| None);
    let on_text = Callback::from(|(name, text)| hand_over_file("validation", name, text));
    validation_section(on_text, on_error(&refused), refused.as_deref(), html! {})
}
