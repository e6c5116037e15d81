//! The page: knobs on one side, the chart they drive on the other.

use crate::chart::{self, ChartData, Series, Theme};
use crate::infra;
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use plotters_canvas::CanvasBackend;
use std::rc::Rc;
use web_sys::{HtmlCanvasElement, HtmlInputElement};
use yew::prelude::*;

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub knobs: KnobValues,
    /// The message of the last rejected entry, shown beside the knob.
    pub error: Option<String>,
}

impl Default for State {
    fn default() -> State {
        State {
            knobs: KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57),
            error: None,
        }
    }
}

pub enum Action {
    Set(Knob, f64),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Set(knob, value) => {
                let mut next = (*self).clone();
                match next.knobs.set(knob, value) {
                    Ok(()) => next.error = None,
                    Err(e) => next.error = Some(e.to_string()),
                }
                Rc::new(next)
            }
        }
    }
}

const KNOB: Knob = Knob::MemoryBlockReadCost;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let def = KNOB.def();
    let value = state.knobs.get(KNOB);
    let data = use_memo(state.knobs.clone(), crate::model::t1_chart);
    let chart = match &*data {
        Ok(d) => html! { <Chart data={d.clone()} /> },
        Err(e) => {
            html! { <p class="error" role="alert">{ format!("cannot compute the chart: {e}") }</p> }
        }
    };

    let on_slider = {
        let state = state.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(pos) = input.value().parse::<f64>() {
                state.dispatch(Action::Set(KNOB, def.from_slider(pos / 1000.0)));
            }
        })
    };
    let on_number = {
        let state = state.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let v = input.value().trim().parse::<f64>().unwrap_or(f64::NAN);
            state.dispatch(Action::Set(KNOB, v));
        })
    };

    html! {
        <main>
            <h1>{ "costlab" }</h1>
            <p class="lead">{ "Move an optimizer cost constant and watch the plan choice move." }</p>
            <div class="knob">
                <label for="knob-slider">{ def.name }</label>
                <input id="knob-slider" type="range" min="0" max="1000" step="1"
                    aria-label={def.name} aria-valuetext={format!("{value}")}
                    value={((def.to_position(value) * 1000.0).round()).to_string()}
                    oninput={on_slider} />
                <input id="knob-value" type="number" aria-label={format!("{} value", def.name)}
                    step="any" min={def.min.to_string()} max={def.max.to_string()}
                    value={format!("{value}")} onchange={on_number} />
                <div class="help">{ def.help }</div>
            </div>
            if let Some(err) = &state.error {
                <p class="error" role="alert">{ err }</p>
            }
            { chart }
        </main>
    }
}

#[derive(Properties, PartialEq)]
pub struct ChartProps {
    pub data: ChartData,
}

#[function_component(Chart)]
pub fn chart_view(props: &ChartProps) -> Html {
    let canvas = use_node_ref();
    {
        let canvas = canvas.clone();
        use_effect_with(props.data.clone(), move |data| {
            if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                let scale = infra::fit_canvas(&el);
                if let Some(backend) = CanvasBackend::with_canvas_object(el) {
                    let root = plotters::prelude::IntoDrawingArea::into_drawing_area(backend);
                    if let Err(e) =
                        chart::draw(&root, data, Theme::new(infra::prefers_dark()), scale)
                    {
                        web_sys::console::error_1(&e.into());
                    }
                }
            }
        });
    }
    let legend: Vec<String> = props
        .data
        .series
        .iter()
        .map(|s: &Series| s.label.clone())
        .collect();
    html! {
        <div class="chart">
            <canvas ref={canvas} id="cost-chart" role="img" aria-label={format!("Chart of {}", legend.join(", "))}></canvas>
        </div>
    }
}
