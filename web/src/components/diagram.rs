//! The plan diagram panel under the DBT3 (and user workload) tables: one query over two
//! knobs, or every query over one knob (the flip map), each cell coloured by the plan the
//! engine chooses there; boundaries as the worker located them by bisection; a layer of
//! simulated regret; hover names the cell's plan and the diagram's fastest; a click sets
//! the knobs to the cell. Computed in the worker: a coarse picture first, then the fine one
//! with boundaries, which the page asks for only if the inputs have not moved since.

use crate::components::select::select;
use crate::diagram_render::{LEFT, TOP, WIDTH};
use crate::infra;
use crate::model::Shared;
use crate::worker_protocol::{knob_list, AxisRequest, DiagramReply, DiagramRequest, DiagramView};
use costlab_core::knobs::{Engine, EngineVersion, Knob, KnobValues, Scale};
use costlab_core::scenario::DiagramSpec;
use yew::prelude::*;

/// Cells per axis of the fine picture and of the coarse one.
pub const FINE: usize = 50;
pub const COARSE: usize = 12;

/// The axis range the panel draws a knob over: a quarter to four times the release's
/// default on a log knob (within its limits), its whole range otherwise. Fixed per knob,
/// so moving the knob moves the marker, not the picture.
pub fn default_range(knob: Knob, version: EngineVersion) -> (f64, f64) {
    let def = knob.def();
    let d = def.default_for(version);
    match def.scale {
        Scale::Log if d > 0.0 => ((d / 4.0).max(def.min), (d * 4.0).min(def.max)),
        _ => (def.min, def.max),
    }
}

/// Knobs a diagram can run over: every knob of the engine but switches.
pub fn axis_knobs(engine: Engine) -> Vec<Knob> {
    DiagramSpec::axis_knobs(engine).collect()
}

#[derive(Properties, PartialEq)]
pub struct DiagramProps {
    /// The engines on show, with their releases.
    pub engines: Vec<EngineVersion>,
    /// The queries of the workload (number, title).
    pub queries: Shared<Vec<(u8, String)>>,
    pub knobs: KnobValues,
    /// The latest diagram reply (fine or coarse).
    pub reply: Option<Shared<DiagramReply>>,
    /// The id of the tables' reply on show, 0 while the latest tables are being planned:
    /// a diagram is asked for only over the planners of the tables on show.
    pub table: u64,
    /// A new diagram is wanted (the view posts it to the worker).
    pub on_request: Callback<DiagramRequest>,
    /// A cell was clicked: set these knobs.
    pub on_set: Callback<Vec<(Knob, f64)>>,
    /// A cell of the flip map was clicked: open this query's row in the engine's table.
    #[prop_or_default]
    pub on_open: Callback<(Engine, u8)>,
    /// The scenario's diagram settings (None: the default for the engines on show).
    #[prop_or_default]
    pub spec: Option<DiagramSpec>,
    /// The controls changed: the new settings.
    #[prop_or_default]
    pub on_spec: Callback<DiagramSpec>,
}

/// What the panel's controls hold: the scenario's (and so the link's) diagram.
type Choice = DiagramSpec;

fn first_choice(engines: &[EngineVersion]) -> Choice {
    let engine = engines.first().map_or(Engine::Postgres, |v| v.engine());
    Choice {
        engine,
        query: None,
        x: match engine {
            Engine::Postgres => Knob::RandomPageCost,
            Engine::Mysql => Knob::MemoryBlockReadCost,
        },
        y: None,
        regret: false,
        open: false,
    }
}

fn axis(knob: Knob, version: EngineVersion, n: usize) -> AxisRequest {
    let (lo, hi) = default_range(knob, version);
    AxisRequest {
        knob: knob.def().name.to_string(),
        lo,
        hi,
        n,
    }
}

/// The request for a choice, without its id. The axes' own knobs are set to their lower
/// ends, so moving (or clicking) them does not ask for the same picture again.
fn request(
    c: &Choice,
    engines: &[EngineVersion],
    knobs: &KnobValues,
    table: u64,
) -> Option<DiagramRequest> {
    let version = *engines.iter().find(|v| v.engine() == c.engine)?;
    let x = axis(c.x, version, FINE);
    let y =
        c.y.filter(|_| c.query.is_some())
            .map(|k| axis(k, version, FINE));
    let mut k = knobs.clone();
    k.set(c.x, x.lo).ok()?;
    if let Some(ya) = &y {
        k.set(c.y?, ya.lo).ok()?;
    }
    Some(DiagramRequest {
        id: 0,
        table,
        engine: c.engine,
        query: c.query,
        x,
        y,
        current: knob_list(&k),
        fine: true,
    })
}

/// A click sets the knobs to the cell under the pointer (the flip map: x only, and the
/// row's query opens in the table).
fn on_click(
    d: &DiagramView,
    c: &Choice,
    on_set: Callback<Vec<(Knob, f64)>>,
    on_open: Callback<(Engine, u8)>,
) -> Callback<MouseEvent> {
    let (xs, ys, x, y) = (d.x.clone(), d.y.clone(), c.x, c.y);
    let (rows, engine) = (d.rows.clone(), c.engine);
    let (cw, ch) = cell_size(d);
    Callback::from(move |e: MouseEvent| {
        let Some(el) = e
            .current_target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.query_selector("svg").ok().flatten())
        else {
            return;
        };
        let r = el.get_bounding_client_rect();
        if r.width() <= 0.0 {
            return;
        }
        let scale = (LEFT + WIDTH + 10.0) / r.width();
        let px = (f64::from(e.client_x()) - r.left()) * scale;
        let py = (f64::from(e.client_y()) - r.top()) * scale;
        let col = ((px - LEFT) / cw).floor();
        if col < 0.0 || col as usize >= xs.len() {
            return;
        }
        let mut set = vec![(x, xs[col as usize])];
        if let (false, Some(yk)) = (ys.is_empty(), y) {
            let row = ((py - TOP) / ch).floor();
            if row < 0.0 || row as usize >= ys.len() {
                return;
            }
            set.push((yk, ys[ys.len() - 1 - row as usize]));
        }
        let query = ((py - TOP) / ch).floor();
        let query = (query >= 0.0)
            .then(|| rows.get(query as usize).copied())
            .flatten();
        on_set.emit(set);
        if let Some(q) = query {
            on_open.emit((engine, q));
        }
    })
}

/// The picture as a file: with its namespace and a size of its own (on the page it takes
/// the panel's width).
fn standalone(svg: &str, height: f64) -> String {
    svg.replacen("<svg ", "<svg xmlns=\"http://www.w3.org/2000/svg\" ", 1)
        .replacen(
            "width=\"100%\"",
            &format!("width=\"{}\" height=\"{height:.0}\"", LEFT + WIDTH + 10.0),
            1,
        )
}

/// Position in [0, 1] of `v` on an axis from `lo` to `hi` (log-spaced on log knobs), as
/// the worker draws it.
fn position(knob: Knob, lo: f64, hi: f64, v: f64) -> f64 {
    if knob.def().scale == Scale::Log && lo > 0.0 && v > 0.0 {
        (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
    } else {
        (v - lo) / (hi - lo)
    }
}

/// The current knob values over the picture: dashed lines at x (and y) in an overlay of
/// the same frame, so moving a knob redraws two lines, never the diagram.
fn current(v: &DiagramView, c: &Choice, knobs: &KnobValues) -> Html {
    let (cw, ch) = cell_size(v);
    let plot_h = v.height - TOP - 22.0;
    let mut lines = Vec::new();
    let (xlo, xhi) = (v.x[0], v.x[v.x.len() - 1]);
    let cx = knobs.get(c.x);
    if (xlo..=xhi).contains(&cx) {
        let x = LEFT + cw / 2.0 + position(c.x, xlo, xhi, cx) * (WIDTH - cw);
        lines.push((x, TOP, x, TOP + plot_h));
    }
    if let (Some(yk), false) = (c.y, v.y.is_empty()) {
        let (ylo, yhi) = (v.y[0], v.y[v.y.len() - 1]);
        let cy = knobs.get(yk);
        if (ylo..=yhi).contains(&cy) {
            let y = TOP + ch / 2.0 + (1.0 - position(yk, ylo, yhi, cy)) * (plot_h - ch);
            lines.push((LEFT, y, LEFT + WIDTH, y));
        }
    }
    html! {
        <svg class="diagram-current" viewBox={format!("0 0 {} {:.0}", LEFT + WIDTH + 10.0, v.height)} aria-hidden="true">
            { for lines.into_iter().map(|(x1, y1, x2, y2)| html! {
                <line class="current" x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} />
            }) }
        </svg>
    }
}

/// Width and height of one cell of a view, as `diagram_render` draws it.
fn cell_size(d: &DiagramView) -> (f64, f64) {
    let cw = WIDTH / d.x.len().max(1) as f64;
    let ch = if d.y.is_empty() {
        14.0
    } else {
        WIDTH / d.y.len() as f64
    };
    (cw, ch)
}

/// A checkbox that sets one flag of the panel's choice.
fn checkbox(
    id: &'static str,
    label: &'static str,
    checked: bool,
    choice: &Callback<Choice>,
    c: &Choice,
    set: fn(&mut Choice, bool),
) -> Html {
    let onchange = {
        let (choice, c) = (choice.clone(), *c);
        move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let mut n = c;
            set(&mut n, input.checked());
            choice.emit(n);
        }
    };
    html! {
        <label class="radio">
            <input {id} type="checkbox" {checked} {onchange} />
            { label }
        </label>
    }
}

#[function_component(DiagramPanel)]
pub fn diagram_panel(props: &DiagramProps) -> Html {
    // The flip map has one axis: a y left over from a query's diagram is dropped.
    let choice = props.on_spec.reform(|mut c: Choice| {
        if c.query.is_none() {
            c.y = None;
        }
        c
    });
    // The engine left the page: start again on one that is shown.
    let c = match props.spec {
        Some(c) if props.engines.iter().any(|v| v.engine() == c.engine) => c,
        _ => first_choice(&props.engines),
    };
    let req = (props.table > 0 && c.open)
        .then(|| request(&c, &props.engines, &props.knobs, props.table))
        .flatten();
    {
        let on_request = props.on_request.clone();
        use_effect_with(req.clone(), move |r| {
            if let Some(r) = r {
                on_request.emit(r.clone());
            }
        });
    }
    let set = |f: fn(&mut Choice, String)| {
        let (choice, c) = (choice.clone(), c);
        Callback::from(move |v: String| {
            let mut n = c;
            f(&mut n, v);
            choice.emit(n);
        })
    };
    let engines = props.engines.clone();
    let knob_options = |knobs: Vec<Knob>| -> Vec<(AttrValue, AttrValue, Option<AttrValue>)> {
        knobs
            .into_iter()
            .map(|k| {
                (
                    AttrValue::from(k.def().name),
                    AttrValue::from(k.def().name),
                    Some(AttrValue::from(k.def().help)),
                )
            })
            .collect()
    };
    let mut y_options = vec![(
        AttrValue::from("none"),
        AttrValue::from("none (one axis)"),
        None,
    )];
    y_options.extend(knob_options(
        axis_knobs(c.engine)
            .into_iter()
            .filter(|k| *k != c.x)
            .collect(),
    ));
    let mut q_options = vec![(
        AttrValue::from("all"),
        AttrValue::from("every query (flip map)"),
        None,
    )];
    q_options.extend(props.queries.0.iter().map(|(n, t)| {
        (
            AttrValue::from(n.to_string()),
            AttrValue::from(format!("Q{n} {t}")),
            None,
        )
    }));
    let reply = props.reply.as_ref().map(|r| &*r.0);
    let open_box = checkbox(
        "diagram-open",
        "draw the plan each cell of a grid gets: one query over two knobs, or every query over one (the flip map)",
        c.open,
        &choice,
        &c,
        |c, on| c.open = on,
    );
    if !c.open {
        return html! {
            <section class="panel diagram-panel" aria-labelledby="diagram-title">
                <h2 id="diagram-title">{ "Plan diagram" }</h2>
                <div class="panel-row">{ open_box }</div>
            </section>
        };
    }
    let body = match reply.map(|r| &r.result) {
        None => html! { <p class="note">{ "Drawing…" }</p> },
        Some(Err(e)) => {
            html! { <p class="error" role="alert">{ format!("Cannot draw the diagram: {e}") }</p> }
        }
        Some(Ok(v)) if v.x.is_empty() => {
            html! { <p class="note">{ "The workload has no queries to draw." }</p> }
        }
        Some(Ok(v)) => {
            let r = reply.expect("a result has its reply");
            // The reply's axes and query, not the controls' (they may have moved since).
            let c = Choice {
                query: r.query,
                x: Knob::lookup(&r.x).unwrap_or(c.x),
                y: r.y.as_deref().and_then(|y| Knob::lookup(y).ok()),
                ..c
            };
            let on_csv = {
                let (text, name) = (v.csv.clone(), c.x.def().name);
                Callback::from(move |_| {
                    let _ = infra::download_text(
                        &format!("costlab-diagram-{name}.csv"),
                        "text/csv",
                        &text,
                    );
                })
            };
            let on_svg = {
                let text = if c.regret {
                    v.regret_svg.clone()
                } else {
                    v.svg.clone()
                };
                let height = v.height;
                Callback::from(move |_| {
                    let s = standalone(&text, height);
                    let _ = infra::download_text("costlab-diagram.svg", "image/svg+xml", &s);
                })
            };
            let on_png = {
                let text = if c.regret {
                    v.regret_svg.clone()
                } else {
                    v.svg.clone()
                };
                let height = v.height;
                Callback::from(move |_| {
                    let s = standalone(&text, height);
                    let _ = infra::download_svg_as_png(
                        "costlab-diagram.png",
                        &s,
                        LEFT + WIDTH + 10.0,
                        height,
                    );
                })
            };
            html! { <>
                <p class="note diagram-state" data-fine={r.fine.to_string()} data-id={r.id.to_string()}>
                    { if r.fine { "Boundaries located by bisection on the model (dots). Click a cell to set the knobs there." } else { "First picture; locating the boundaries…" } }
                </p>
                <div class="diagram-picture" onclick={on_click(v, &c, props.on_set.clone(), props.on_open.clone())}>
                    { Html::from_html_unchecked(AttrValue::from(if c.regret { v.regret_svg.clone() } else { v.svg.clone() })) }
                    { current(v, &c, &props.knobs) }
                </div>
                <div class="panel-row">
                    <button type="button" class="diagram-csv" onclick={on_csv}>{ "Export CSV" }</button>
                    <button type="button" class="diagram-svg" onclick={on_svg}>{ "Export SVG" }</button>
                    <button type="button" class="diagram-png" onclick={on_png}>{ "Export PNG" }</button>
                </div>
                { Html::from_html_unchecked(AttrValue::from(v.legend.clone())) }
            </> }
        }
    };
    html! {
        <section class="panel diagram-panel" aria-labelledby="diagram-title">
            <h2 id="diagram-title">{ "Plan diagram" }</h2>
            <div class="panel-row">{ open_box }</div>
            <div class="panel-row">
                if engines.len() > 1 {
                    <label for="diagram-engine">{ "Engine" }</label>
                    { select("diagram-engine".into(), c.engine.name().into(),
                        engines.iter().map(|v| (AttrValue::from(v.engine().name()), AttrValue::from(v.label()), None)).collect(),
                        set(|c, v| if let Ok(e) = Engine::parse(&v) {
                            if e != c.engine { *c = Choice { engine: e, query: c.query, regret: c.regret, open: c.open, ..first_choice(&[EngineVersion::latest(e)]) }; }
                        })) }
                }
                <label for="diagram-query">{ "Query" }</label>
                { select("diagram-query".into(), c.query.map_or("all".to_string(), |q| q.to_string()).into(), q_options,
                    set(|c, v| c.query = v.parse().ok())) }
            </div>
            <div class="panel-row">
                <label for="diagram-x">{ "x" }</label>
                { select("diagram-x".into(), c.x.def().name.into(), knob_options(axis_knobs(c.engine)),
                    set(|c, v| if let Ok(k) = Knob::lookup(&v) { c.x = k; if c.y == Some(k) { c.y = None; } })) }
                if c.query.is_some() {
                    <label for="diagram-y">{ "y" }</label>
                    { select("diagram-y".into(), c.y.map_or("none", |k| k.def().name).into(), y_options,
                        set(|c, v| c.y = Knob::lookup(&v).ok())) }
                }
                { checkbox("diagram-regret", "regret layer", c.regret, &choice, &c, |c, on| c.regret = on) }
            </div>
            { body }
        </section>
    }
}
