//! The page's header (title, theme, engines) and the banners under it: the parts of the
//! link that could not be used, the reducer's error, and why the full playground did not
//! load.

use crate::components::select::{fixed_options, select};
use crate::infra;
use crate::state::{Action, State};
use costlab_core::knobs::Engine;
use costlab_core::scenario::Engines;
use yew::prelude::*;

/// The theme picked in the header, first the link's (`None`: the system's), set on the
/// page whenever it changes.
#[hook]
pub fn use_theme(from_link: &Option<String>) -> UseStateHandle<Option<String>> {
    let theme_choice = use_state(|| from_link.clone());
    {
        let theme = (*theme_choice).clone();
        use_effect_with(theme, |t| infra::set_theme(t.as_deref()));
    }
    theme_choice
}

/// Whether the charts draw dark: the theme picked, else the system's.
pub fn is_dark(theme: Option<&str>) -> bool {
    match theme {
        Some("dark") => true,
        Some(_) => false,
        None => infra::prefers_dark(),
    }
}

/// The title with the theme and engine pickers.
pub fn header(
    theme_choice: &UseStateHandle<Option<String>>,
    engines: Engines,
    dispatch: &Callback<Action>,
) -> Html {
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
    let engines_value = match engines {
        Engines::One(Engine::Postgres) => "postgres",
        Engines::One(Engine::Mysql) => "mysql",
        Engines::Both => "both",
    };
    html! {
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
    }
}

/// What went wrong, above the panels: the link's unusable parts (dismissable), the
/// reducer's error and the handover's.
pub fn banners(state: &State, dispatch: &Callback<Action>, handover_error: Option<&str>) -> Html {
    html! {
        <>
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
            if let Some(err) = handover_error {
                <p class="error banner" role="alert">{ err }</p>
            }
        </>
    }
}
