//! The embedded chart (`embed=1` in the link): one view, the knobs the link names, and a
//! link to the whole playground; it reports its height to the host page.

use crate::components::chart_view::ChartView;
use crate::components::knobs::KnobRow;
use crate::components::per_build::{Dbt3View, OrderingView};
use crate::infra;
use crate::model::EngineView;
use crate::state::{Action, State, WorkloadKind};
use costlab_core::url::{self, EmbedOptions};
use yew::prelude::*;

/// Every render may change the height an embedding page should give the iframe.
#[hook]
pub fn use_embed_height(embedded: bool) {
    use_effect(move || {
        if embedded {
            infra::post_height_to_parent();
        }
    });
}

/// The embed's page: the workload's view (the t1 sweep's chart of `views`, or the
/// DBT3 or ordering view), the link's knobs, and the way to the whole playground.
pub fn embed_page(
    state: &State,
    dispatch: &Callback<Action>,
    views: &[costlab_core::Result<EngineView>],
    dark: bool,
    resize: u32,
) -> Html {
    let s = &state.scenario;
    let kind = WorkloadKind::of(&s.workload);
    // DBT3 and the user's workload are tables of plans (the same view).
    let dbt3 = matches!(kind, WorkloadKind::Dbt3 | WorkloadKind::User);
    let ordering = kind == WorkloadKind::Ordering;
    let full = format!(
        "{}#{}",
        infra::base_url(),
        url::encode(s, &EmbedOptions::default())
    );
    let view = views.iter().find_map(|v| v.as_ref().ok());
    html! {
        <main class="embed">
            if dbt3 { <Dbt3View scenario={s.clone()} /> }
            if ordering { <OrderingView scenario={s.clone()} {dark} {resize} /> }
            { match view {
                Some(v) => html! {
                    <ChartView id={format!("embed-{}", s.view.id())}
                        title={format!("{}: {}", v.engine.name(), url::describe(s))}
                        data={v.chart(s.view).unwrap_or(&v.cost).clone()} {dark} {resize} exports={false} />
                },
                None if dbt3 || ordering => html! {},
                None => html! { <p class="error" role="alert">{
                    views.iter().find_map(|v| v.as_ref().err()).map(|e| e.to_string()).unwrap_or_default()
                }</p> },
            } }
            if !state.embed.knobs.is_empty() {
                <div class="panel knobs embed-knobs">
                    { for state.embed.knobs.iter().map(|&k| html! {
                        <KnobRow knob={k} value={s.knobs.get(k)} default={s.default_of(k)}
                            error={state.knob_errors.get(&k).cloned()} dispatch={dispatch.clone()}
                            read_only={state.embed.read_only} />
                    }) }
                </div>
            }
            <p class="open-full"><a href={full} target="_blank" rel="noopener">{ "Open in the costlab playground ↗" }</a></p>
        </main>
    }
}
