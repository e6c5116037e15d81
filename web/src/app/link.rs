//! The scenario and its link: the page's state read from the address bar, the address bar
//! following the scenario, and (in the first load) the handover to the full playground
//! when the scenario needs it.

use crate::infra;
use crate::state::{Action, HistoryWrite, State};
use costlab_core::scenario::Workload;
use costlab_core::url;
use yew::prelude::*;

/// The page's state, first read from the link, and the callback that changes it. Going
/// back or forward, or editing the fragment by hand, loads that fragment's scenario.
#[hook]
pub fn use_scenario() -> (UseReducerHandle<State>, Callback<Action>) {
    let state = use_reducer(|| State::from_link(&infra::location_hash()));
    let dispatch: Callback<Action> = {
        let state = state.clone();
        Callback::from(move |a| state.dispatch(a))
    };
    infra::use_fragment_changes({
        let dispatch = dispatch.clone();
        Callback::from(move |f: String| {
            // The first load reads t1 links alone; the full playground takes the rest.
            #[cfg(not(feature = "full"))]
            if costlab_core::url::needs_more_than_t1(&f) {
                crate::handover::first_load::start_on(&f);
                return;
            }
            dispatch.emit(Action::Load(f))
        })
    });
    (state, dispatch)
}

/// The address bar follows the scenario: meaningful steps at once as new history
/// entries, drags debounced in place (browsers limit history writes).
#[hook]
pub fn use_address_bar(state: &State) {
    let history = state.history;
    use_effect_with(
        (state.scenario.clone(), state.embed.clone()),
        move |(s, e)| {
            let fragment = url::encode(s, e);
            // The handover starts from the latest scenario, not the debounced bar.
            #[cfg(not(feature = "full"))]
            crate::handover::first_load::note_fragment(&fragment);
            let timer = match history {
                HistoryWrite::Push => {
                    infra::write_fragment(&fragment, true);
                    None
                }
                HistoryWrite::Replace => {
                    Some(gloo_timers::callback::Timeout::new(300, move || {
                        infra::write_fragment(&fragment, false)
                    }))
                }
                HistoryWrite::None => None,
            };
            move || drop(timer)
        },
    );
}

/// The first load hands over to the full playground when the scenario needs it (after
/// [`use_address_bar`], which notes the fragment it starts from); why it did not load.
#[cfg(not(feature = "full"))]
#[hook]
pub fn use_handover_error(workload: &Workload) -> Option<String> {
    crate::handover::first_load::use_full_playground(crate::handover::needs_full(workload))
}

/// The full playground is there already: nothing to hand over.
#[cfg(feature = "full")]
#[hook]
pub fn use_handover_error(_workload: &Workload) -> Option<String> {
    None
}
