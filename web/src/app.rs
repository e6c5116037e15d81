//! The page: controls on one side, the views they drive on the other.
//!
//! [`App`] puts together pieces that each do one thing: the scenario and its link
//! (`link`), the header and its banners (`header`), the control panels (`workload_panel`,
//! `machine_panel`, `view_panel`, `knob_panel`), the t1 sweep's charts (`t1_views`) and
//! the embedded chart (`embed`). None of them uses another, nor this module.

mod embed;
mod header;
mod knob_panel;
mod link;
mod machine_panel;
mod t1_views;
mod view_panel;
mod workload_panel;

use crate::components::per_build::{Dbt3View, OrderingView, ValidationView};
use crate::components::share::SharePanel;
use crate::infra;
use crate::state::{Action, WorkloadKind};
use costlab_core::knobs::Knob;
use costlab_core::scenario::Engines;
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let (state, dispatch) = link::use_scenario();
    link::use_address_bar(&state);
    let handover_error = link::use_handover_error(&state.scenario.workload);
    let resize = infra::use_resize_tick();
    let below_fold_ready = use_below_fold_ready();
    let theme_choice = header::use_theme(&state.embed.theme);
    let dark = header::is_dark(theme_choice.as_deref());
    let views = t1_views::use_engine_views(&state.scenario);
    embed::use_embed_height(state.embed.embed);
    if state.embed.embed {
        return embed::embed_page(&state, &dispatch, &views, dark, resize);
    }

    let s = &state.scenario;
    let kind = WorkloadKind::of(&s.workload);
    // DBT3 and the user's workload are tables of plans (the same view).
    let dbt3 = matches!(kind, WorkloadKind::Dbt3 | WorkloadKind::User);
    let ordering = kind == WorkloadKind::Ordering;
    // The plan diagram's settings: the DBT3 view's (the first load's stand-in has none).
    #[cfg(feature = "full")]
    let on_diagram = dispatch.reform(Action::SetDiagram);
    #[cfg(not(feature = "full"))]
    let on_diagram = Callback::noop();
    html! {
        <main>
            { header::header(&theme_choice, s.engines, &dispatch) }
            { header::banners(&state, &dispatch, handover_error.as_deref()) }
            <div class="layout">
                <aside class="controls">
                    { workload_panel::workload_panel(&state, &dispatch) }
                    { machine_panel::machine_panel(s, &dispatch) }
                    if kind == WorkloadKind::T1 { { view_panel::view_panel(s, &dispatch) } }
                    if below_fold_ready {
                        { for s.engines.list().into_iter().map(|e| knob_panel::knob_panel(&state, e, &dispatch)) }
                        <SharePanel scenario={s.clone()} />
                    }
                </aside>
                <div class={classes!("views", (s.engines == Engines::Both).then_some("both"), dbt3.then_some("dbt3-view"))}>
                    if dbt3 { <Dbt3View scenario={s.clone()} on_set={
                        let dispatch = dispatch.clone();
                        Callback::from(move |set: Vec<(Knob, f64)>| for (k, v) in set { dispatch.emit(Action::SetKnob(k, v)) })
                    } {on_diagram} /> }
                    if ordering { <OrderingView scenario={s.clone()} {dark} {resize} /> }
                    { t1_views::engine_views(s, &views, dark, resize) }
                    <ValidationView {dark} {resize} />
                </div>
            </div>
        </main>
    }
}

/// Whether the constants and share panels are built yet. They sit below the first screen
/// (from y = 957 at 1280 x 900) and are a third of the page's elements, so they are built
/// in the task after the first charts are drawn: Yew runs first-render effects children
/// first, in one batch, so this effect's timeout comes after the charts' drawing.
/// "costlab-complete" then marks the whole page (the e2e measure prints it beside
/// "costlab-drawn"). One effect and a u32 state (the resize tick's type) because each hook
/// call site and state type is code of its own in the first load.
#[hook]
fn use_below_fold_ready() -> bool {
    let below_fold_ready = use_state(|| 0u32);
    {
        let handle = below_fold_ready.clone();
        use_effect_with(*below_fold_ready, move |&ready| {
            let timer =
                (ready == 0).then(|| gloo_timers::callback::Timeout::new(0, move || handle.set(1)));
            if ready != 0 {
                infra::mark("costlab-complete");
            }
            move || drop(timer)
        });
    }
    *below_fold_ready != 0
}
