//! The workload panel: which queries, and each workload's settings (the t1 sweep's range
//! here; the other workloads' in the full playground, which the first load hands them to).

#[cfg(feature = "full")]
use crate::components::select::preset_options;
use crate::components::select::{fixed_options, select};
#[cfg(feature = "full")]
use crate::components::user_workload::UserWorkloadPanel;
use crate::state::{Action, State, WorkloadKind};
use costlab_core::scenario::Workload;
use yew::prelude::*;

/// The workload picker and the settings of the workload picked.
pub fn workload_panel(state: &State, dispatch: &Callback<Action>) -> Html {
    let s = &state.scenario;
    let kind = WorkloadKind::of(&s.workload);
    html! {
        <section class="panel" aria-labelledby="workload-title">
            <h2 id="workload-title">{ "Workload" }</h2>
            <div class="panel-row">
                <label for="workload">{ "Queries" }</label>
                { select("workload".into(), kind.id().into(),
                    fixed_options(&[("t1", "t1 sweep (WL#8737)"), ("dbt3", "DBT3, 22 queries"), ("user", "Your own tables and queries"),
                        ("ordering", "Ordered index scans (PostgreSQL)")]),
                    { let d = dispatch.clone(); Callback::from(move |v: String| if let Some(k) = WorkloadKind::parse(&v) { d.emit(Action::SetWorkload(k)) }) }) }
            </div>
            if !matches!(s.workload, Workload::T1Sweep { .. }) {
                { other_workload_settings(state, dispatch) }
            } else {
                { t1_sweep_settings(&s.workload, dispatch) }
            }
        </section>
    }
}

/// The t1 sweep's range of rows, in percent.
fn t1_sweep_settings(workload: &Workload, dispatch: &Callback<Action>) -> Html {
    // The sweep's entries are only on show with the t1 sweep.
    let (from, to) = match *workload {
        Workload::T1Sweep { from, to } => (from, to),
        _ => (0.0, 0.2),
    };
    let sweep_input = |is_from: bool| {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let v = costlab_core::num::parse_f64(input.value().trim()).unwrap_or(f64::NAN) / 100.0;
            let (f, t) = if is_from { (v, to) } else { (from, v) };
            dispatch.emit(Action::SetSweep { from: f, to: t });
        })
    };
    html! {
        <>
            <p class="note">{ "WL#8737's t1: 10M rows, SELECT * FROM t1 WHERE i7 > L AND i7 < U AND i8 = 2, swept over the rows the range selects." }</p>
            <div class="panel-row">
                <label for="sweep-from">{ "from %" }</label>
                <input id="sweep-from" type="number" min="0" max="100" step="any"
                    value={format!("{}", from * 100.0)} onchange={sweep_input(true)} />
                <label for="sweep-to">{ "to %" }</label>
                <input id="sweep-to" type="number" min="0" max="100" step="any"
                    value={format!("{}", to * 100.0)} onchange={sweep_input(false)} />
            </div>
        </>
    }
}

#[cfg(feature = "full")]
/// A number field that reports what was typed when it changes (NaN for text that is no
/// number: the reducer refuses it and says why).
fn number_input(
    id: &'static str,
    (min, max): (f64, f64),
    value: f64,
    invalid: bool,
    on: Callback<f64>,
) -> Html {
    let onchange = move |e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        on.emit(costlab_core::num::parse_f64(input.value().trim()).unwrap_or(f64::NAN));
    };
    html! {
        <input {id} type="number" min={min.to_string()} max={max.to_string()} step="any"
            aria-invalid={invalid.to_string()} value={value.to_string()} {onchange} />
    }
}

/// The settings of a workload other than the t1 sweep, in the workload panel. The first
/// load (without `full`) hands those workloads to the full playground, and says so here
/// meanwhile.
#[cfg(feature = "full")]
fn other_workload_settings(state: &State, dispatch: &Callback<Action>) -> Html {
    let s = &state.scenario;
    html! {
        <>
        if let Workload::User(u) = &s.workload {
            <UserWorkloadPanel scenario={s.clone()} workload={(**u).clone()}
                queries_error={state.queries_error.clone()} dispatch={dispatch.clone()} />
        } else if let Workload::Ordering { sf, procost, series } = s.workload {
            <p class="note">{ "The third seed's workload: query shapes that an ordering index scan speeds up when it hands its ORDER BY value up (the series), planned by PostgreSQL stock and with the series, and the mix of 96 users." }</p>
            <div class="panel-row">
                <label for="ordering-sf">{ "scale factor" }</label>
                { number_input("ordering-sf", (0.01, 1000.0), sf, state.sf_error.is_some(), dispatch.reform(Action::SetScaleFactor)) }
            </div>
            <div class="panel-row">
                <label for="ordering-procost" title="pg_proc.procost of fgeo() and fnorm(): what the planner charges a call, in cpu_operator_cost">{ "function COST" }</label>
                { number_input("ordering-procost", (0.0, 1e9), procost, false, dispatch.reform(Action::SetFunctionCost)) }
            </div>
            <div class="panel-row">
                <label class="radio">
                    <input id="ordering-series" type="checkbox" checked={series} onchange={
                        let d = dispatch.clone();
                        move |e: Event| {
                            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                            d.emit(Action::SetSeries(input.checked()));
                        }
                    } />
                    { "ORDER BY value handed up (the series) against stock" }
                </label>
            </div>
            if let Some(err) = &state.sf_error {
                <p class="error" role="alert">{ format!("{err}; keeping the previous value") }</p>
            }
        } else if let Workload::Dbt3 { sf, baseline } = &s.workload {
            <p class="note">{ "DBT3 (TPC-H derived) at a scale factor: every query planned under a baseline preset and under the constants below." }</p>
            <div class="panel-row">
                <label for="dbt3-sf">{ "scale factor" }</label>
                { number_input("dbt3-sf", (0.01, 1000.0), *sf, state.sf_error.is_some(), dispatch.reform(Action::SetScaleFactor)) }
                <label for="dbt3-base">{ "baseline" }</label>
                { select("dbt3-base".into(), baseline.clone().into(), preset_options(&s.engines),
                    dispatch.reform(Action::SetBaseline)) }
            </div>
            if let Some(err) = &state.sf_error {
                <p class="error" role="alert">{ format!("{err}; keeping {sf}") }</p>
            }
        }
        </>
    }
}

#[cfg(not(feature = "full"))]
fn other_workload_settings(_: &State, _: &Callback<Action>) -> Html {
    crate::components::first_load::loading()
}
