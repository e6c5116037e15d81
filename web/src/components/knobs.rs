//! One row per knob of the knob table: slider, exact entry, unit, reset, help, and an
//! inline message when an entry is rejected.

use crate::state::Action;
use costlab_core::knobs::{round_significant, Engine, Knob, Scale, PRESETS};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct KnobRowProps {
    pub knob: Knob,
    pub value: f64,
    pub default: f64,
    pub error: Option<String>,
    pub dispatch: Callback<Action>,
    #[prop_or(false)]
    pub read_only: bool,
}

/// Values as a person reads them: 0.25, 4, 1.1e-5, 4096.
pub fn format_value(v: f64) -> String {
    let r = round_significant(v, 6);
    if r != 0.0 && (r.abs() < 1e-3 || r.abs() >= 1e7) {
        format!("{r:e}")
    } else {
        format!("{r}")
    }
}

#[function_component(KnobRow)]
pub fn knob_row(props: &KnobRowProps) -> Html {
    let def = props.knob.def();
    let id = format!("knob-{}", def.url_key);
    let help_id = format!("{id}-help");
    let on_slider = {
        let dispatch = props.dispatch.clone();
        let knob = props.knob;
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Some(pos) = costlab_core::num::parse_f64(&input.value()) {
                crate::infra::mark("costlab-input");
                dispatch.emit(Action::SetKnob(knob, knob.def().from_slider(pos / 1000.0)));
            }
        })
    };
    let on_number = {
        let dispatch = props.dispatch.clone();
        let knob = props.knob;
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            // Read by the core as the engine reads it (units for PostgreSQL memory).
            dispatch.emit(Action::SetKnobText(knob, input.value()));
        })
    };
    let on_switch = {
        let dispatch = props.dispatch.clone();
        let knob = props.knob;
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            dispatch.emit(Action::SetKnob(
                knob,
                if input.checked() { 1.0 } else { 0.0 },
            ));
        })
    };
    let on_reset = {
        let dispatch = props.dispatch.clone();
        let knob = props.knob;
        Callback::from(move |_| dispatch.emit(Action::ResetKnob(knob)))
    };
    let changed = props.value != props.default;
    // Memory as PostgreSQL's SHOW prints it (4GB), other values as numbers.
    let shown = |v: f64| def.show_value(v).unwrap_or_else(|| format_value(v));
    let value_text = shown(props.value);
    let control = if def.scale == Scale::Switch {
        html! {
            <input id={id.clone()} type="checkbox" checked={props.value != 0.0}
                disabled={props.read_only} onchange={on_switch} aria-describedby={help_id.clone()} />
        }
    } else {
        html! {
            <>
            <input id={id.clone()} class="slider" type="range" min="0" max="1000" step="1"
                aria-label={def.name} aria-valuetext={value_text.clone()} aria-describedby={help_id.clone()}
                disabled={props.read_only}
                value={((def.to_position(props.value) * 1000.0).round()).to_string()}
                oninput={on_slider} />
            if def.pg_memory.is_some() {
                <input class="exact" type="text" inputmode="text" spellcheck="false"
                    aria-label={format!("{} exact value", def.name)}
                    title={def.entry_hint()}
                    disabled={props.read_only}
                    value={value_text.clone()} onchange={on_number} />
            } else {
                <input class="exact" type="number" aria-label={format!("{} exact value", def.name)}
                    step="any" min={def.min.to_string()} max={def.max.to_string()}
                    disabled={props.read_only}
                    value={value_text.clone()} onchange={on_number} />
            }
            </>
        }
    };
    html! {
        <div class={classes!("knob", changed.then_some("changed"))} data-knob={def.name}>
            <label for={id.clone()}>{ def.name }</label>
            { control }
            <span class="unit" title={def.entry_hint()}>{ if def.pg_memory.is_some() { "" } else { def.unit } }</span>
            if !props.read_only {
                <button type="button" class="reset" onclick={on_reset} disabled={!changed}
                    title={format!("Reset to the default {}", shown(props.default))}
                    aria-label={format!("Reset {} to {}", def.name, shown(props.default))}>{ "↺" }</button>
            }
            <div class="help" id={help_id}>{ def.help }
                if def.pg_memory.is_some() { { format!(" Units {}.", def.entry_hint()) } }
                if changed { <span class="default">{ format!(" Default {}.", shown(props.default)) }</span> }
            </div>
            if let Some(err) = &props.error {
                <div class="error" role="alert">{ err }</div>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct PresetPickerProps {
    pub engine: Engine,
    pub dispatch: Callback<Action>,
}

#[function_component(PresetPicker)]
pub fn preset_picker(props: &PresetPickerProps) -> Html {
    let onchange = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let id = select.value();
            if let Some(p) = PRESETS.iter().find(|p| p.id == id) {
                dispatch.emit(Action::Preset(p.id));
            }
            select.set_value("");
        })
    };
    let id = format!(
        "preset-{}",
        if props.engine == Engine::Postgres {
            "pg"
        } else {
            "mysql"
        }
    );
    html! {
        <div class="preset">
            <label for={id.clone()}>{ "Preset" }</label>
            <select id={id} {onchange}>
                <option value="" selected=true>{ "Apply a preset…" }</option>
                { for PRESETS.iter().filter(|p| p.engine == props.engine).map(|p| html! {
                    <option value={p.id} title={p.source}>{ p.label }</option>
                }) }
            </select>
        </div>
    }
}
