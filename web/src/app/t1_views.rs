//! The t1 sweep's views, per engine: the estimated cost of each access path with the
//! switch points, the simulated time with the time lost, and the flip map with the fitted
//! constant.

use crate::components::chart_view::chart;
use crate::components::knobs::format_value;
use crate::model::{self, switch_pct, EngineView};
use costlab_core::analysis::{self, path_label};
use costlab_core::knobs::Engine;
use costlab_core::scenario::{Scenario, View, Workload};
use std::rc::Rc;
use yew::prelude::*;

/// Each engine's views, or why it has none, computed when the scenario changes (none for
/// a workload other than the t1 sweep).
#[hook]
pub fn use_engine_views(s: &Scenario) -> Rc<Vec<costlab_core::Result<EngineView>>> {
    use_memo(s.clone(), |s| {
        if !matches!(s.workload, Workload::T1Sweep { .. }) {
            return Vec::new();
        }
        let views = s
            .engines
            .list()
            .into_iter()
            .map(|e| model::engine_view(s, e))
            .collect::<Vec<_>>();
        // Between "costlab-input" and "costlab-drawn": the curves are computed, the
        // charts not yet drawn.
        crate::infra::mark("costlab-computed");
        views
    })
}

/// The engines' views side by side (or why one cannot be computed), in the views column.
pub fn engine_views(
    s: &Scenario,
    views: &[costlab_core::Result<EngineView>],
    dark: bool,
    resize: u32,
) -> Html {
    html! {
        { for views.iter().enumerate().map(|(i, v)| match v {
            Ok(v) => {
                let id = if v.engine == Engine::Postgres { "pg" } else { "mysql" };
                // The view the user chose comes first (style.css orders the blocks).
                html! {
                    <div class={match s.view {
                        View::Cost => "engine-views",
                        View::Time => "engine-views first-time",
                        View::FlipMap => "engine-views first-flip",
                    }} key={i}>
                        <div class="view-block cost-block">
                        { chart(format!("cost-{id}"), format!("{}: estimated cost of each access path", v.engine.name()),
                            v.cost.clone(), dark, resize) }
                        <ul class="switches" aria-label={format!("{} switch points", v.engine.name())}>
                            { for v.curves.crossovers.iter().map(|c| html! {
                                <li class="switch-point" data-to={c.to.clone()}>
                                    { format!("{} → {} at ", path_label(&c.from), path_label(&c.to)) }
                                    <strong>{ format!("{}%", switch_pct(c.x)) }</strong>{ " of rows" }
                                </li>
                            }) }
                            if v.curves.crossovers.is_empty() {
                                <li>{ format!("{} keeps {} over the whole sweep.", v.engine.name(),
                                    v.curves.chosen.first().map(|&c| v.curves.paths[c].label.clone()).unwrap_or_default()) }</li>
                            }
                        </ul>
                        </div>
                        <div class="view-block time-block">
                        { chart(format!("time-{id}"),
                            format!("{}: simulated time on {}", v.engine.name(), analysis::machine_label(s)),
                            v.time.clone(), dark, resize) }
                        <p class="regret" data-total={format!("{}", v.curves.times.total_regret_s)}>
                            { "Time lost to the optimizer's choices over the sweep: " }
                            <strong>{ model::seconds(v.curves.times.total_regret_s) }</strong>
                            { format!(" of {} ({:.1} %).", model::seconds(v.curves.times.total_chosen_s),
                                100.0 * v.curves.times.total_regret_s / v.curves.times.total_chosen_s.max(f64::MIN_POSITIVE)) }
                        </p>
                        </div>
                        <div class="view-block flip-block">
                        { match &v.flip {
                            Some(Ok((data, fit))) => html! {
                                <>
                                { chart(format!("flip-{id}"),
                                    format!("{}: chosen plan by {} and rows selected", v.engine.name(), s.flip_knob.def().name),
                                    data.clone(), dark, resize) }
                                <p class="fit">
                                    { format!("The {} that loses least time on this machine: ", fit.name) }
                                    <strong class="fitted">{ format_value(fit.best) }</strong>
                                    { format!(" (any value from {} to {} does as well; time lost {}).",
                                        format_value(fit.best_interval.0),
                                        format_value(fit.best_interval.1),
                                        model::seconds(fit.best_total_regret_s)) }
                                </p>
                                </>
                            },
                            Some(Err(e)) => html! { <p class="error" role="alert">{ format!("Cannot draw the flip map: {e}") }</p> },
                            None => html! {},
                        } }
                        </div>
                    </div>
                }
            }
            Err(e) => html! { <p class="error" role="alert" key={i}>{ format!("Cannot compute this view: {e}") }</p> },
        }) }
    }
}
