//! The view panel of the t1 sweep: which chart comes first, the log scale, and the
//! constant the flip map runs over.

use crate::components::select::select;
use crate::state::Action;
use costlab_core::knobs::Knob;
use costlab_core::scenario::{Scenario, View};
use yew::prelude::*;

/// The t1 sweep's view settings.
pub fn view_panel(s: &Scenario, dispatch: &Callback<Action>) -> Html {
    let flip_knobs: Vec<Knob> = s
        .engines
        .list()
        .into_iter()
        .flat_map(Knob::for_engine)
        .filter(|k| k.def().unit.starts_with("cost units"))
        .collect();
    html! {
        <section class="panel" aria-labelledby="view-title">
            <h2 id="view-title">{ "View" }</h2>
            <div class="panel-row" role="radiogroup" aria-label="Main chart">
                { for View::ALL.into_iter().map(|v| {
                    let dispatch = dispatch.clone();
                    html! {
                        <label class="radio">
                            <input type="radio" name="view" value={v.id()} checked={s.view == v}
                                onchange={move |_| dispatch.emit(Action::SetView(v))} />
                            { v.label() }
                        </label>
                    }
                }) }
            </div>
            <div class="panel-row">
                <label class="radio">
                    <input id="log-y" type="checkbox" checked={s.log_y} onchange={
                        let dispatch = dispatch.clone();
                        move |e: Event| {
                            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                            dispatch.emit(Action::SetLogY(input.checked()));
                        }
                    } />
                    { "log scale for cost and time" }
                </label>
            </div>
            <div class="panel-row">
                <label for="flip-knob">{ "Flip map constant" }</label>
                { select("flip-knob".into(), s.flip_knob.def().name.into(),
                    flip_knobs.iter().map(|k| (AttrValue::from(k.def().name), AttrValue::from(k.def().name), Some(AttrValue::from(k.def().help)))).collect(),
                    { let d = dispatch.clone(); Callback::from(move |v: String| if let Ok(k) = Knob::lookup(&v) { d.emit(Action::SetFlipKnob(k)) }) }) }
            </div>
        </section>
    }
}
