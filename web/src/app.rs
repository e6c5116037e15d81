//! The page: controls on one side, the views they drive on the other.

use crate::components::chart_view::ChartView;
use crate::components::knobs::{KnobRow, PresetPicker};
use crate::components::share::SharePanel;
use crate::infra;
use crate::model::{self, switch_pct};
use crate::state::{Action, HistoryWrite, State};
use costlab_core::analysis::path_label;
use costlab_core::knobs::{Engine, EngineVersion, Knob};
use costlab_core::scenario::{Engines, Workload};
use costlab_core::url::{self, EmbedOptions};
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| State::from_link(&infra::location_hash()));
    let dispatch: Callback<Action> = {
        let state = state.clone();
        Callback::from(move |a| state.dispatch(a))
    };
    infra::use_fragment_changes({
        let dispatch = dispatch.clone();
        Callback::from(move |f| dispatch.emit(Action::Load(f)))
    });
    // The address bar follows the scenario: meaningful steps at once as new history
    // entries, drags debounced in place (browsers limit history writes).
    {
        let history = state.history;
        use_effect_with(
            (state.scenario.clone(), state.embed.clone()),
            move |(s, e)| {
                let fragment = url::encode(s, e);
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
    let resize = infra::use_resize_tick();
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
        s.engines
            .list()
            .into_iter()
            .map(|e| model::engine_view(s, e))
            .collect::<Vec<_>>()
    });

    let engine_select = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let engines = match select.value().as_str() {
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

    let Workload::T1Sweep { from, to } = s.workload;
    let sweep_input = |is_from: bool| {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let v = input.value().trim().parse::<f64>().unwrap_or(f64::NAN) / 100.0;
            let (f, t) = if is_from { (v, to) } else { (from, v) };
            dispatch.emit(Action::SetSweep { from: f, to: t });
        })
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
            Callback::from(move |e: Event| {
                let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                if let Some(v) = EngineVersion::ALL
                    .iter()
                    .find(|v| v.label() == select.value())
                {
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
                    <select id={format!("{id}-version")} onchange={on_version}>
                        { for versions.iter().map(|v| html! {
                            <option value={v.label()} selected={*v == current}>{ v.label() }</option>
                        }) }
                    </select>
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
                { match view {
                    Some(v) => html! {
                        <ChartView id={format!("embed-{}", s.view.id())}
                            title={format!("{}: {}", v.engine.name(), url::describe(s))}
                            data={v.cost.clone()} {dark} {resize} exports={false} />
                    },
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
                    <select id="theme" onchange={
                        let theme_choice = theme_choice.clone();
                        move |e: Event| {
                            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                            let v = select.value();
                            theme_choice.set(if v == "auto" { None } else { Some(v) });
                        }
                    }>
                        <option value="auto" selected={theme_choice.is_none()}>{ "System" }</option>
                        <option value="light" selected={theme_choice.as_deref() == Some("light")}>{ "Light" }</option>
                        <option value="dark" selected={theme_choice.as_deref() == Some("dark")}>{ "Dark" }</option>
                    </select>
                    <label for="engines">{ "Engine" }</label>
                    <select id="engines" onchange={engine_select}>
                        <option value="mysql" selected={engines_value == "mysql"}>{ "MySQL 8 / InnoDB" }</option>
                        <option value="postgres" selected={engines_value == "postgres"}>{ "PostgreSQL" }</option>
                        <option value="both" selected={engines_value == "both"}>{ "Both, side by side" }</option>
                    </select>
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
            <div class="layout">
                <aside class="controls">
                    <section class="panel" aria-labelledby="workload-title">
                        <h2 id="workload-title">{ "Workload" }</h2>
                        <p class="note">{ "WL#8737's t1: 10M rows, SELECT * FROM t1 WHERE i7 > L AND i7 < U AND i8 = 2, swept over the rows the range selects." }</p>
                        <div class="panel-row">
                            <label for="sweep-from">{ "from %" }</label>
                            <input id="sweep-from" type="number" min="0" max="100" step="any"
                                value={format!("{}", from * 100.0)} onchange={sweep_input(true)} />
                            <label for="sweep-to">{ "to %" }</label>
                            <input id="sweep-to" type="number" min="0" max="100" step="any"
                                value={format!("{}", to * 100.0)} onchange={sweep_input(false)} />
                        </div>
                    </section>
                    { for s.engines.list().into_iter().map(knob_panel) }
                    <SharePanel scenario={s.clone()} />
                </aside>
                <div class="views">
                    { for views.iter().enumerate().map(|(i, v)| match v {
                        Ok(v) => {
                            let id = if v.engine == Engine::Postgres { "pg" } else { "mysql" };
                            html! {
                                <div class="engine-views" key={i}>
                                    <ChartView id={format!("cost-{id}")} title={format!("{}: estimated cost of each access path", v.engine.name())}
                                        data={v.cost.clone()} {dark} {resize} />
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
                            }
                        }
                        Err(e) => html! { <p class="error" role="alert" key={i}>{ format!("Cannot compute this view: {e}") }</p> },
                    }) }
                </div>
            </div>
        </main>
    }
}
