//! An engine's constants panel: the release whose defaults apply, presets, and a row per
//! knob.

use crate::components::knobs::{KnobRow, PresetPicker};
use crate::components::select::select;
use crate::state::{Action, State};
use costlab_core::knobs::{Engine, EngineVersion, Knob};
use yew::prelude::*;

/// `engine`'s constants.
pub fn knob_panel(state: &State, engine: Engine, dispatch: &Callback<Action>) -> Html {
    let s = &state.scenario;
    let versions: Vec<EngineVersion> = EngineVersion::ALL
        .iter()
        .copied()
        .filter(|v| v.engine() == engine)
        .collect();
    let current = s.version_of(engine);
    let on_version = {
        let dispatch = dispatch.clone();
        Callback::from(move |label: String| {
            if let Some(v) = EngineVersion::ALL.iter().find(|v| v.label() == label) {
                dispatch.emit(Action::SetVersion(*v));
            }
        })
    };
    let reset_all = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.emit(Action::ResetEngine(engine)))
    };
    let id = if engine == Engine::Postgres {
        "pg"
    } else {
        "mysql"
    };
    html! {
        <section class="panel knobs" aria-labelledby={format!("{id}-knobs-title")}>
            <h2 id={format!("{id}-knobs-title")}>{ format!("{} constants", engine.name()) }</h2>
            <div class="panel-row">
                <label for={format!("{id}-version")}>{ "Defaults of" }</label>
                { select(format!("{id}-version").into(), current.label().into(),
                    versions.iter().map(|v| (AttrValue::from(v.label()), AttrValue::from(v.label()), None)).collect(),
                    on_version) }
                <button type="button" class="reset-all" onclick={reset_all}>{ "Reset all" }</button>
            </div>
            <PresetPicker {engine} dispatch={dispatch.clone()} />
            { for Knob::for_engine(engine).map(|k| html! {
                <KnobRow knob={k} value={s.knobs.get(k)} default={s.default_of(k)}
                    error={state.knob_errors.get(&k).cloned()} dispatch={dispatch.clone()} />
            }) }
        </section>
    }
}
