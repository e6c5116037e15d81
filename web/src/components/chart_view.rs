//! A chart on a canvas: crisp at any pixel ratio, redrawn on resize, with a readout under
//! the pointer and export to PNG, SVG and CSV.

use crate::chart::{self, ChartData, Geometry, Legend, MarkShape, ScatterChart, Swatch, Theme};
use crate::infra;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ChartViewProps {
    /// Stable id: the canvas id and the export file names.
    pub id: AttrValue,
    pub title: AttrValue,
    pub data: ChartData,
    pub dark: bool,
    /// Changes whenever the window is resized.
    #[prop_or_default]
    pub resize: u32,
    #[prop_or(true)]
    pub exports: bool,
}

/// Draws `data` on the canvas at its CSS size and the screen's pixel ratio.
fn paint(
    el: HtmlCanvasElement,
    data: &ChartData,
    dark: bool,
    legend: Legend,
) -> Result<Geometry, String> {
    let scale = infra::fit_canvas(&el);
    let mut backend =
        chart::Backend::canvas(el).ok_or_else(|| "the canvas has no 2D context".to_string())?;
    chart::draw(&mut backend, data, Theme::new(dark), scale, legend)
}

/// The legend as text under the chart: it never covers a curve, wraps on a phone, and
/// reads as text to a screen reader. Exports draw it inside the image instead.
fn legend_html(data: &ChartData) -> Html {
    let rgb = |i: usize| {
        let c = chart::PALETTE[i % chart::PALETTE.len()];
        format!("rgb({},{},{})", c.0, c.1, c.2)
    };
    html! {
        <ul class="legend" aria-label="legend">
            { for chart::legend(data).into_iter().map(|e| {
                let swatch = match e.swatch {
                    Swatch::Line { color, width, dash } => html! {
                        <line x1="0" y1="6" x2="24" y2="6"
                            stroke={color.map_or("currentColor".to_string(), rgb)}
                            stroke-opacity={if color.is_none() { "0.25" } else { "1" }}
                            stroke-width={width.to_string()}
                            stroke-dasharray={dash.map(|(d, g)| format!("{d} {g}"))} />
                    },
                    Swatch::Fill { color, opacity } => html! {
                        <rect x="0" y="1" width="24" height="10" fill={color.map_or("currentColor".to_string(), rgb)}
                            fill-opacity={opacity.to_string()} />
                    },
                    Swatch::Mark { color, shape, filled } => {
                        let (fill, stroke) = if filled { (rgb(color), "none".to_string()) } else { ("none".to_string(), rgb(color)) };
                        match shape {
                            MarkShape::Circle => html! {
                                <circle cx="12" cy="6" r="4" fill={fill} stroke={stroke} stroke-width="1.5" />
                            },
                            MarkShape::Triangle => html! {
                                <polygon points="12,1 17,10 7,10" fill={fill} stroke={stroke} stroke-width="1.5" />
                            },
                        }
                    }
                };
                html! {
                    <li>
                        <svg class="swatch" width="24" height="12" viewBox="0 0 24 12" aria-hidden="true">{ swatch }</svg>
                        <span class="label">{ e.label }</span>
                    </li>
                }
            }) }
        </ul>
    }
}

/// A scatter's marks again, over the canvas, as elements a pointer, the keyboard and a screen
/// reader reach: each at its mark's pixel (from where the drawing put the plot), with the
/// mark's details as its title and accessible name. Hovering or focusing one shows them in
/// the readout too.
fn marks_html(data: &ScatterChart, g: &Geometry, readout: &UseStateHandle<String>) -> Html {
    if g.size.0 == 0 || g.size.1 == 0 {
        return html! {};
    }
    let r = 7.0 * infra::device_pixel_ratio();
    html! {
        <svg class="marks" viewBox={format!("0 0 {} {}", g.size.0, g.size.1)} preserveAspectRatio="none"
            role="group" aria-label={format!("{} plans", data.series.iter().map(|s| s.marks.len()).sum::<usize>())}>
            { for data.series.iter().enumerate().flat_map(|(i, s)| s.marks.iter().filter_map(move |m| {
                let (cx, cy) = g.pixel_of(m.x, m.y)?;
                Some((i, s, m, cx, cy))
            })).map(|(i, s, m, cx, cy)| {
                let show = { let (readout, t) = (readout.clone(), m.title.clone()); Callback::from(move |_: FocusEvent| readout.set(t.clone())) };
                let hover = { let (readout, t) = (readout.clone(), m.title.clone()); Callback::from(move |_: MouseEvent| readout.set(t.clone())) };
                let clear = { let readout = readout.clone(); Callback::from(move |_: MouseEvent| readout.set(String::new())) };
                html! {
                    <circle class={classes!("mark", (!s.filled).then_some("hollow"))} data-series={i.to_string()}
                        cx={format!("{cx:.1}")} cy={format!("{cy:.1}")} r={format!("{r:.1}")}
                        tabindex="0" role="img" aria-label={m.title.clone()}
                        onfocus={show} onmouseenter={hover} onmouseleave={clear}>
                        <title>{ m.title.clone() }</title>
                    </circle>
                }
            }) }
        </svg>
    }
}

#[function_component(ChartView)]
pub fn chart_view(props: &ChartViewProps) -> Html {
    let canvas = use_node_ref();
    let geometry = use_mut_ref(Geometry::default);
    // The same, as state: a scatter's marks follow each drawing.
    let drawn = use_state(Geometry::default);
    let readout = use_state(String::new);
    let export_error = use_state(|| None::<String>);
    {
        let canvas = canvas.clone();
        let geometry = geometry.clone();
        let drawn = drawn.clone();
        use_effect_with(
            (props.data.clone(), props.dark, props.resize),
            move |(data, dark, _)| {
                if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                    match paint(el, data, *dark, Legend::Outside) {
                        Ok(g) => {
                            *geometry.borrow_mut() = g;
                            if matches!(data, ChartData::Scatter(_)) {
                                drawn.set(g);
                            }
                        }
                        Err(e) => web_sys::console::error_1(&e.into()),
                    }
                    infra::mark("costlab-drawn");
                }
            },
        );
    }
    let on_move = {
        let geometry = geometry.clone();
        let readout = readout.clone();
        let data = props.data.clone();
        Callback::from(move |e: MouseEvent| {
            let scale = infra::device_pixel_ratio();
            let g = *geometry.borrow();
            let (px, py) = (e.offset_x() as f64 * scale, e.offset_y() as f64 * scale);
            readout.set(describe_point(&data, &g, px, py));
        })
    };
    let on_leave = {
        let readout = readout.clone();
        Callback::from(move |_: MouseEvent| readout.set(String::new()))
    };
    let export = |kind: &'static str| {
        let canvas = canvas.clone();
        let data = props.data.clone();
        let id = props.id.clone();
        let dark = props.dark;
        let export_error = export_error.clone();
        Callback::from(move |_: MouseEvent| {
            let result = match kind {
                // The image carries its legend: drawn inside for the export, then the
                // screen's drawing (legend under the chart) comes back.
                "png" => canvas
                    .cast::<HtmlCanvasElement>()
                    .ok_or_else(|| "the chart is not on the page".to_string())
                    .and_then(|c| {
                        paint(c.clone(), &data, dark, Legend::Inside)?;
                        let url = c.to_data_url();
                        paint(c, &data, dark, Legend::Outside)?;
                        url.map_err(|_| "the browser refused to export the canvas".to_string())
                    })
                    .and_then(|url| infra::download_url(&format!("costlab-{id}.png"), &url)),
                "svg" => chart::to_svg(&data, Theme::new(dark), (1200, 675)).and_then(|svg| {
                    infra::download_text(&format!("costlab-{id}.svg"), "image/svg+xml", &svg)
                }),
                _ => infra::download_text(
                    &format!("costlab-{id}.csv"),
                    "text/csv",
                    &chart::to_csv(&data),
                ),
            };
            export_error.set(result.err());
        })
    };
    html! {
        <figure class="chart-view" id={format!("{}-view", props.id)}>
            <figcaption>{ props.title.clone() }</figcaption>
            <div class="chart">
                <canvas ref={canvas.clone()} id={props.id.clone()} role="img" aria-label={props.title.clone()}
                    onmousemove={on_move} onmouseleave={on_leave}></canvas>
                if let ChartData::Scatter(c) = &props.data {
                    { marks_html(c, &drawn, &readout) }
                }
            </div>
            { legend_html(&props.data) }
            <div class="chart-footer">
                <output class="readout" aria-live="polite">{ (*readout).clone() }</output>
                if props.exports {
                    <span class="exports">
                        <button type="button" onclick={export("png")} aria-label={format!("Download {} as PNG", props.title)}>{ "PNG" }</button>
                        <button type="button" onclick={export("svg")} aria-label={format!("Download {} as SVG", props.title)}>{ "SVG" }</button>
                        <button type="button" class="export-csv" onclick={export("csv")} aria-label={format!("Download the data of {} as CSV", props.title)}>{ "CSV" }</button>
                    </span>
                }
            </div>
            if let Some(e) = &*export_error {
                <p class="error" role="alert">{ e }</p>
            }
        </figure>
    }
}

/// The readout text for the pointer at backend pixel (px, py).
pub fn describe_point(data: &ChartData, g: &Geometry, px: f64, py: f64) -> String {
    let Some(x) = g.x_at(px) else {
        return String::new();
    };
    match data {
        ChartData::Lines(c) => {
            let mut parts = Vec::new();
            let mut at = x;
            for s in &c.series {
                if let Some(p) = s
                    .points
                    .iter()
                    .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()))
                    .filter(|p| p.1.is_finite())
                {
                    at = p.0;
                    parts.push(format!("{} {}", s.label, chart::short_number(p.1)));
                }
            }
            format!(
                "{} = {}: {}",
                c.x_label,
                chart::short_number(at),
                parts.join(" · ")
            )
        }
        ChartData::Scatter(c) => {
            let Some(y) = g.y_at(py) else {
                return String::new();
            };
            format!(
                "{} = {}, {} = {}",
                c.x_label,
                chart::short_number(x),
                c.y_label,
                chart::short_number(y)
            )
        }
        ChartData::Heat(h) => {
            let Some(y) = g.y_at(py) else {
                return String::new();
            };
            let nearest = |v: &[f64], t: f64| {
                v.iter()
                    .enumerate()
                    .min_by(|a, b| (a.1 - t).abs().total_cmp(&(b.1 - t).abs()))
                    .map(|(i, _)| i)
            };
            let yl = |v: f64| {
                if h.log_y {
                    v.max(f64::MIN_POSITIVE).log10()
                } else {
                    v
                }
            };
            let ys: Vec<f64> = h.ys.iter().map(|v| yl(*v)).collect();
            match (nearest(&h.xs, x), nearest(&ys, yl(y))) {
                (Some(i), Some(j)) => {
                    let plan = h.cells.get(j).and_then(|r| r.get(i)).copied().flatten();
                    format!(
                        "{} = {}, {} = {}: {}",
                        h.x_label,
                        chart::short_number(h.xs[i]),
                        h.y_label,
                        chart::short_number(h.ys[j]),
                        plan.and_then(|p| h.plans.get(p))
                            .map_or("no plan", |p| p.0.as_str())
                    )
                }
                _ => String::new(),
            }
        }
    }
}

/// A `ChartView` with the page's exports. One function, so the props builder and the
/// component node are compiled once instead of inline at each of the page's charts.
pub fn chart(id: String, title: String, data: ChartData, dark: bool, resize: u32) -> Html {
    html! { <ChartView id={id} title={title} {data} {dark} {resize} /> }
}
