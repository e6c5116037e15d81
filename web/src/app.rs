//! The page: controls on one side, the views they drive on the other.

use crate::components::chart_view::{chart, ChartView};
#[cfg(not(feature = "full"))]
use crate::components::first_load::{CalibrationLoader, Dbt3View, OrderingView, ValidationView};
use crate::components::knobs::{KnobRow, PresetPicker};
use crate::components::machine::MachineEditor;
#[cfg(feature = "full")]
use crate::components::select::preset_options;
use crate::components::select::{fixed_options, select};
use crate::components::share::SharePanel;
#[cfg(feature = "full")]
use crate::components::{
    calibration::CalibrationLoader, dbt3::Dbt3View, ordering::OrderingView,
    user_workload::UserWorkloadPanel, validation::ValidationView,
};
use crate::infra;
use crate::model::{self, switch_pct};
use crate::state::{Action, HistoryWrite, State, WorkloadKind};
use costlab_core::analysis::{self, path_label};
use costlab_core::knobs::{Engine, EngineVersion, Knob};
use costlab_core::scenario::{CacheState, InnodbCacheReport, ServerSettings, View};
use costlab_core::scenario::{Engines, Workload};
use costlab_core::sim::profile::MachineProfile;
use costlab_core::url::{self, EmbedOptions};
use yew::prelude::*;

fn bytes(b: f64) -> String {
    if b >= 1024f64.powi(4) {
        format!("{:.0} TiB", b / 1024f64.powi(4))
    } else if b >= 1024f64.powi(3) {
        format!("{:.0} GiB", b / 1024f64.powi(3))
    } else {
        format!("{:.0} MiB", b / 1024f64.powi(2))
    }
}

fn device_summary(p: &MachineProfile) -> String {
    format!(
        "{:.0} MB/s sequential, {:.0} µs per random 8 kB read",
        p.device.seq_read_mbps, p.device.random_8k.qd1_latency_us
    )
}

/// The MySQL server's settings: how it was set up, which no machine profile says. Picking
/// the seed's profiles presets the seed's servers; everything else starts from defaults.
fn server_settings(server: ServerSettings, dispatch: &Callback<Action>) -> Html {
    let report = {
        let dispatch = dispatch.clone();
        move |v: String| {
            if let Ok(r) = InnodbCacheReport::parse(&v) {
                dispatch.emit(Action::SetServer(ServerSettings {
                    innodb_cache_report: r,
                    ..server
                }));
            }
        }
    };
    let bka = {
        let dispatch = dispatch.clone();
        move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            dispatch.emit(Action::SetServer(ServerSettings {
                batched_key_access: input.checked(),
                ..server
            }));
        }
    };
    html! {
        <fieldset class="server-settings">
            <legend>{ "MySQL server settings" }</legend>
            <div class="panel-row">
                <label for="innodb-cache-report">{ "InnoDB reports cached" }</label>
                { select("innodb-cache-report".into(), server.innodb_cache_report.id().into(),
                    InnodbCacheReport::ALL.iter().map(|r| (AttrValue::from(r.id()), AttrValue::from(r.label()), None)).collect(),
                    Callback::from(report)) }
            </div>
            <div class="panel-row">
                <label class="radio">
                    <input id="batched-key-access" type="checkbox" checked={server.batched_key_access} onchange={bka} />
                    { "batched_key_access (DBT3 joins)" }
                </label>
            </div>
        </fieldset>
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
fn other_workload_settings(state: &UseReducerHandle<State>, dispatch: &Callback<Action>) -> Html {
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
fn other_workload_settings(_: &UseReducerHandle<State>, _: &Callback<Action>) -> Html {
    crate::components::first_load::loading()
}

#[function_component(App)]
pub fn app() -> Html {
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
                crate::handover::start_on(&f);
                return;
            }
            dispatch.emit(Action::Load(f))
        })
    });
    // The address bar follows the scenario: meaningful steps at once as new history
    // entries, drags debounced in place (browsers limit history writes).
    {
        let history = state.history;
        use_effect_with(
            (state.scenario.clone(), state.embed.clone()),
            move |(s, e)| {
                let fragment = url::encode(s, e);
                // The handover starts from the latest scenario, not the debounced bar.
                #[cfg(not(feature = "full"))]
                crate::handover::note_fragment(&fragment);
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
    // The first load hands over to the full playground when the scenario needs it.
    #[cfg(not(feature = "full"))]
    let handover_error =
        crate::handover::use_full_playground(crate::handover::needs_full(&state.scenario.workload));
    #[cfg(feature = "full")]
    let handover_error: Option<String> = None;
    let resize = infra::use_resize_tick();
    // The constants and share panels sit below the first screen (from y = 957 at 1280 x 900)
    // and are a third of the page's elements, so they are built in the task after the first
    // charts are drawn: Yew runs first-render effects children first, in one batch, so this
    // effect's timeout comes after the charts' drawing. "costlab-complete" then marks the
    // whole page (the e2e measure prints it beside "costlab-drawn"). One effect and a u32
    // state (the resize tick's type) because each hook call site and state type is code of
    // its own in the first load.
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
    let theme_choice = use_state(|| state.embed.theme.clone());
    {
        let theme = (*theme_choice).clone();
        use_effect_with(theme, |t| infra::set_theme(t.as_deref()));
    }
    let dark = match theme_choice.as_deref() {
        Some("dark") => true,
        Some(_) => false,
        None => infra::prefers_dark(),
    };
    let s = &state.scenario;
    let views = use_memo(s.clone(), |s| {
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
        infra::mark("costlab-computed");
        views
    });

    let engine_select = {
        let dispatch = dispatch.clone();
        Callback::from(move |v: String| {
            let engines = match v.as_str() {
                "postgres" => Engines::One(Engine::Postgres),
                "both" => Engines::Both,
                _ => Engines::One(Engine::Mysql),
            };
            dispatch.emit(Action::SetEngines(engines));
        })
    };
    let engines_value = match s.engines {
        Engines::One(Engine::Postgres) => "postgres",
        Engines::One(Engine::Mysql) => "mysql",
        Engines::Both => "both",
    };

    // The sweep's entries are only on show with the t1 sweep.
    let (from, to) = match s.workload {
        Workload::T1Sweep { from, to } => (from, to),
        _ => (0.0, 0.2),
    };
    let kind = WorkloadKind::of(&s.workload);
    // DBT3 and the user's workload are tables of plans (the same view).
    let dbt3 = matches!(kind, WorkloadKind::Dbt3 | WorkloadKind::User);
    let ordering = kind == WorkloadKind::Ordering;
    let sweep_input = |is_from: bool| {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let v = costlab_core::num::parse_f64(input.value().trim()).unwrap_or(f64::NAN) / 100.0;
            let (f, t) = if is_from { (v, to) } else { (from, v) };
            dispatch.emit(Action::SetSweep { from: f, to: t });
        })
    };

    let mut profiles = costlab_core::sim::builtin::profiles();
    if let Some(custom) = &s.custom_machine {
        profiles.insert(0, custom.clone());
    }
    let current_profile = analysis::machine(s).ok();
    let machine_panel = html! {
        <section class="panel" aria-labelledby="machine-title">
            <h2 id="machine-title">{ "Machine" }</h2>
            <div class="panel-row">
                <label for="machine">{ "Profile" }</label>
                { select("machine".into(), s.machine.clone().into(),
                    profiles.iter().map(|p| (AttrValue::from(p.id.clone()),
                        AttrValue::from(format!("{} [{}]", p.label, p.confidence_summary())),
                        Some(AttrValue::from(p.source.clone())))).collect(),
                    dispatch.reform(Action::SetMachine)) }
            </div>
            <div class="panel-row">
                <label for="cache">{ "Cache" }</label>
                { select("cache".into(), (if s.cache == CacheState::Cold { "cold" } else { "warm" }).into(),
                    fixed_options(&[("warm", "warm (steady state)"), ("cold", "cold (nothing cached)")]),
                    dispatch.reform(|v: String| Action::SetCache(if v == "cold" { CacheState::Cold } else { CacheState::Warm }))) }
            </div>
            if let Some(p) = &current_profile {
                <p class="note machine-source">
                    { format!("{} · buffer {} · RAM {} · {}", device_summary(p), bytes(p.buffer_pool_bytes), bytes(p.ram_bytes),
                        if p.bypass_os_cache { "O_DIRECT" } else { "buffered I/O" }) }
                    <br />{ format!("Source ({}): {}", p.confidence_summary(), p.source) }
                    { for p.figures.iter().map(|f| html! {
                        <><br />{ format!("{}: {} ({})", f.figure, f.confidence.label(), f.source) }</>
                    }) }
                </p>
                if s.engines.list().contains(&Engine::Mysql) {
                    { server_settings(s.server, &dispatch) }
                }
                <MachineEditor profile={p.clone()} dispatch={dispatch.clone()} />
                <CalibrationLoader dispatch={dispatch.clone()} />
            }
        </section>
    };
    let view_panel = {
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
    };

    let knob_panel = |engine: Engine| {
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
    };

    // The plan diagram's settings: the DBT3 view's (the first load's stand-in has none).
    #[cfg(feature = "full")]
    let on_diagram = dispatch.reform(Action::SetDiagram);
    #[cfg(not(feature = "full"))]
    let on_diagram = Callback::noop();

    // Every render may change the height an embedding page should give the iframe.
    {
        let embedded = state.embed.embed;
        use_effect(move || {
            if embedded {
                infra::post_height_to_parent();
            }
        });
    }
    if state.embed.embed {
        let full = format!(
            "{}#{}",
            infra::base_url(),
            url::encode(s, &EmbedOptions::default())
        );
        let view = views.iter().find_map(|v| v.as_ref().ok());
        return html! {
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
        };
    }

    html! {
        <main>
            <header class="top">
                <div>
                    <h1>{ "costlab" }</h1>
                    <p class="lead">{ "Move an optimizer cost constant and watch where the plan choice flips." }</p>
                </div>
                <div class="panel-row">
                    <label for="theme">{ "Theme" }</label>
                    { select("theme".into(), theme_choice.as_deref().unwrap_or("auto").to_string().into(),
                        fixed_options(&[("auto", "System"), ("light", "Light"), ("dark", "Dark")]),
                        { let t = theme_choice.clone(); Callback::from(move |v: String| t.set(if v == "auto" { None } else { Some(v) })) }) }
                    <label for="engines">{ "Engine" }</label>
                    { select("engines".into(), engines_value.into(),
                        fixed_options(&[("mysql", "MySQL 8 / InnoDB"), ("postgres", "PostgreSQL"), ("both", "Both, side by side")]),
                        engine_select) }
                </div>
            </header>
            if !state.link_problems.is_empty() {
                <div class="error banner link-problems" role="alert">
                    <p>{ "Parts of this link could not be used; they are back at their defaults:" }</p>
                    <ul>{ for state.link_problems.iter().map(|p| html! { <li>{ p.to_string() }</li> }) }</ul>
                    <button type="button" onclick={let d = dispatch.clone(); move |_| d.emit(Action::DismissLinkProblems)}>{ "Dismiss" }</button>
                </div>
            }
            if let Some(err) = &state.error {
                <p class="error banner" role="alert">{ err }</p>
            }
            if let Some(err) = &handover_error {
                <p class="error banner" role="alert">{ err }</p>
            }
            <div class="layout">
                <aside class="controls">
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
                            { other_workload_settings(&state, &dispatch) }
                        } else {
                            <p class="note">{ "WL#8737's t1: 10M rows, SELECT * FROM t1 WHERE i7 > L AND i7 < U AND i8 = 2, swept over the rows the range selects." }</p>
                            <div class="panel-row">
                                <label for="sweep-from">{ "from %" }</label>
                                <input id="sweep-from" type="number" min="0" max="100" step="any"
                                    value={format!("{}", from * 100.0)} onchange={sweep_input(true)} />
                                <label for="sweep-to">{ "to %" }</label>
                                <input id="sweep-to" type="number" min="0" max="100" step="any"
                                    value={format!("{}", to * 100.0)} onchange={sweep_input(false)} />
                            </div>
                        }
                    </section>
                    { machine_panel }
                    if kind == WorkloadKind::T1 { { view_panel } }
                    if *below_fold_ready != 0 {
                        { for s.engines.list().into_iter().map(knob_panel) }
                        <SharePanel scenario={s.clone()} />
                    }
                </aside>
                <div class={classes!("views", (s.engines == Engines::Both).then_some("both"), dbt3.then_some("dbt3-view"))}>
                    if dbt3 { <Dbt3View scenario={s.clone()} on_set={
                        let dispatch = dispatch.clone();
                        Callback::from(move |set: Vec<(Knob, f64)>| for (k, v) in set { dispatch.emit(Action::SetKnob(k, v)) })
                    } {on_diagram} /> }
                    if ordering { <OrderingView scenario={s.clone()} {dark} {resize} /> }
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
                                                <strong class="fitted">{ crate::components::knobs::format_value(fit.best) }</strong>
                                                { format!(" (any value from {} to {} does as well; time lost {}).",
                                                    crate::components::knobs::format_value(fit.best_interval.0),
                                                    crate::components::knobs::format_value(fit.best_interval.1),
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
                    <ValidationView {dark} {resize} />
                </div>
            </div>
        </main>
    }
}
