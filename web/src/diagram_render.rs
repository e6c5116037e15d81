//! The plan diagram drawn as text, in the worker: the page's bundle carries none of this
//! (the worker sends the SVG and the legend ready to show, and the CSV to export).

use crate::components::knobs::format_value;
use crate::model::seconds;
use crate::worker_protocol::DiagramView;
use costlab_core::diagram::PlanDiagram;
use costlab_core::knobs::{Knob, Scale};
use costlab_core::render::csv::Csv;
use costlab_core::render::svg::Svg;

/// One query's diagram as it is drawn.
pub struct DiagramShown {
    pub query: u8,
    pub title: String,
    pub x: Vec<f64>,
    /// Empty with one axis.
    pub y: Vec<f64>,
    /// The plan of each cell, row-major (row 0 is y's first value).
    pub cells: Vec<u32>,
    pub plans: Vec<PlanShown>,
    pub boundaries: Vec<BoundaryShown>,
    /// Plans kept by the anorexic reduction (10 %).
    pub reduced: u32,
    /// Plans whose cost elsewhere is unknown (an axis not affine): they replace none.
    pub unfitted: u32,
}

pub struct PlanShown {
    pub summary: String,
    pub time_s: f64,
    /// Simulated time lost against the diagram's fastest plan.
    pub regret_s: f64,
    pub cells: u32,
}

pub struct BoundaryShown {
    pub axis: u8,
    pub row: u32,
    pub col: u32,
    pub at: f64,
}

/// What the picture is drawn over: the axes' knobs and the query (None: the flip map).
#[derive(Clone, Copy)]
pub struct Axes {
    pub query: Option<u8>,
    pub x: Knob,
    pub y: Option<Knob>,
}

/// The view of a query's diagram (or the flip map's diagrams), ready for the page.
pub fn view(ds: &[DiagramShown], axes: Axes) -> DiagramView {
    let rows = match ds {
        [_] => Vec::new(),
        _ => ds.iter().map(|d| d.query).collect(),
    };
    let (height, x, y) = match ds.first() {
        Some(f) => {
            let (_, ch) = cell_size(f);
            (
                TOP + ch * (f.y.len().max(1) * ds.len()) as f64 + 22.0,
                f.x.clone(),
                f.y.clone(),
            )
        }
        None => (0.0, Vec::new(), Vec::new()),
    };
    DiagramView {
        svg: picture_svg(ds, axes, false),
        regret_svg: picture_svg(ds, axes, true),
        legend: legend_html(ds),
        csv: csv(ds, axes),
        x,
        y,
        rows,
        height,
        boundaries: ds.iter().map(|d| d.boundaries.len() as u32).sum(),
    }
}

/// A core diagram as it is drawn.
pub fn shown(query: u8, title: String, d: &PlanDiagram) -> DiagramShown {
    let fastest = d
        .plans
        .iter()
        .map(|p| p.time_s)
        .fold(f64::INFINITY, f64::min);
    DiagramShown {
        query,
        title,
        x: d.x.values.clone(),
        y: d.y.as_ref().map_or_else(Vec::new, |y| y.values.clone()),
        cells: d.cells.iter().map(|c| c.plan as u32).collect(),
        plans: d
            .plans
            .iter()
            .map(|pl| PlanShown {
                summary: pl.summary.clone(),
                time_s: pl.time_s,
                regret_s: (pl.time_s - fastest).max(0.0),
                cells: pl.cells as u32,
            })
            .collect(),
        boundaries: d
            .boundaries
            .iter()
            .map(|b| BoundaryShown {
                axis: b.axis,
                row: b.row as u32,
                col: b.col as u32,
                at: b.at,
            })
            .collect(),
        reduced: d.reduction.as_ref().map_or(0, |r| r.plans.len() as u32),
        unfitted: d.reduction.as_ref().map_or(0, |r| r.unfitted.len() as u32),
    }
}

/// The picture's frame, in SVG units (the page's overlay uses the same).
pub const LEFT: f64 = 80.0;
pub const WIDTH: f64 = 520.0;
pub const TOP: f64 = 8.0;

/// Plan colours: Okabe–Ito, then hues around the wheel.
pub fn colour(id: u32) -> String {
    const C: [&str; 8] = [
        "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#999999",
    ];
    C.get(id as usize).map_or_else(
        || format!("hsl({},60%,55%)", (id as usize * 47) % 360),
        |c| c.to_string(),
    )
}

/// A plan's letter, as `costlab dbt3 --diagram` prints it.
pub fn letter(id: u32) -> char {
    const L: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    L.get(id as usize).map_or('#', |&b| b as char)
}

/// Position in [0, 1] of `v` on an axis from `lo` to `hi` (log-spaced on log knobs).
fn position(knob: Knob, lo: f64, hi: f64, v: f64) -> f64 {
    if knob.def().scale == Scale::Log && lo > 0.0 && v > 0.0 {
        (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
    } else {
        (v - lo) / (hi - lo)
    }
}

fn value_text(knob: Knob, v: f64) -> String {
    knob.def()
        .show_value(v)
        .unwrap_or_else(|| format_value(costlab_core::knobs::round_significant(v, 4)))
}

/// The picture as SVG text (`regret`: cells shaded by the time their plan loses): runs of
/// equal cells as one rectangle each (a tooltip naming the plan and the diagram's fastest),
/// boundaries as dots with their exact values, the current knob values as dashed lines.
/// Written as text, not as `html!` nodes: thousands of elements diff slowly and each
/// `html!` element costs the page's bundle code.
///
/// Not the command line's picture (`costlab dbt3 --diagram --format svg`, drawn in
/// crates/cli/src/diagram.rs), though both write through `costlab_core::render::svg`: this
/// one is a part of the page. It takes the panel's width (a viewBox in the frame
/// `LEFT`/`WIDTH`/`TOP`, which the click handler and the overlay of the current values in
/// `components/diagram.rs` share), the stylesheet styles it (its text in the theme's
/// colour, light or dark; the dots' fill and outline), its dots carry their query, axis, cell and value (`data-*`, which the
/// end-to-end test holds against `costlab dbt3 --diagram --json`), it has a regret layer,
/// and its legend is HTML beside it (`legend_html`). The command line's is a document of
/// its own: a title, a fixed size, a rectangle per cell and the legend inside.
fn picture_svg(ds: &[DiagramShown], c: Axes, regret: bool) -> String {
    let Some(first) = ds.first() else {
        return String::new();
    };
    let two = !first.y.is_empty();
    let cols = first.x.len();
    let rows_per = if two { first.y.len() } else { 1 };
    let (cw, ch) = cell_size(first);
    let height = ch * (rows_per * ds.len()) as f64;
    let (xlo, xhi) = (first.x[0], first.x[cols - 1]);
    let xpos = |v: f64| LEFT + cw / 2.0 + position(c.x, xlo, xhi, v) * (WIDTH - cw);
    let ypos = |k: Knob, v: f64| {
        let (lo, hi) = (first.y[0], first.y[rows_per - 1]);
        TOP + ch / 2.0 + (1.0 - position(k, lo, hi, v)) * (height - ch)
    };
    let mut o = Svg::with_capacity(64 * 1024);
    o.open(
        "svg",
        &[
            ("class", &"diagram"),
            (
                "viewBox",
                &format_args!("0 0 {} {:.0}", LEFT + WIDTH + 10.0, TOP + height + 22.0),
            ),
            ("width", &"100%"),
            ("role", &"img"),
            ("aria-label", &"plan diagram"),
            (
                "data-query",
                &c.query.map_or("all".to_string(), |q| q.to_string()),
            ),
            ("data-x", &c.x.def().name),
            ("data-y", &c.y.map_or("", |k| k.def().name)),
        ],
    );
    for (qi, d) in ds.iter().enumerate() {
        let fastest = d
            .plans
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.time_s.total_cmp(&b.1.time_s))
            .map_or(0, |(i, _)| i as u32);
        let worst = d.plans.iter().map(|p| p.regret_s).fold(0.0f64, f64::max);
        // One tooltip per plan, shared by its rectangles.
        let tips: Vec<String> = (0..d.plans.len() as u32)
            .map(|i| {
                let (p, f) = (&d.plans[i as usize], &d.plans[fastest as usize]);
                format!(
                    "Q{} plan {}: {} · simulated {} · loses {} against the fastest plan here, {}: {}",
                    d.query,
                    letter(i),
                    p.summary,
                    seconds(p.time_s),
                    seconds(p.regret_s),
                    letter(fastest),
                    f.summary
                )
            })
            .collect();
        for r in 0..rows_per {
            let y0 = TOP + (qi * rows_per + (rows_per - 1 - r)) as f64 * ch;
            let mut c0 = 0;
            while c0 < cols {
                let plan = d.cells[r * cols + c0];
                let mut c1 = c0 + 1;
                while c1 < cols && d.cells[r * cols + c1] == plan {
                    c1 += 1;
                }
                let p = &d.plans[plan as usize];
                let fill = if regret {
                    let share = if worst > 0.0 { p.regret_s / worst } else { 0.0 };
                    format!("rgba(200,30,30,{:.3})", 0.08 + 0.92 * share)
                } else {
                    colour(plan)
                };
                o.open(
                    "rect",
                    &[
                        ("x", &format_args!("{:.2}", LEFT + c0 as f64 * cw)),
                        ("y", &format_args!("{y0:.2}")),
                        (
                            "width",
                            &format_args!("{:.2}", (c1 - c0) as f64 * cw + 0.05),
                        ),
                        ("height", &format_args!("{:.2}", ch + 0.05)),
                        ("fill", &fill),
                        ("data-plan", &plan),
                    ],
                )
                .element("title", &[], &tips[plan as usize])
                .close("rect");
                c0 = c1;
            }
        }
        for b in &d.boundaries {
            let (cx, cy) = match (b.axis, c.y) {
                (1, Some(yk)) => (LEFT + b.col as f64 * cw + cw / 2.0, ypos(yk, b.at)),
                _ => {
                    let y0 = TOP + (qi * rows_per + (rows_per - 1 - b.row as usize)) as f64 * ch;
                    (xpos(b.at), y0 + ch / 2.0)
                }
            };
            o.empty(
                "circle",
                &[
                    ("class", &"boundary"),
                    ("cx", &format_args!("{cx:.2}")),
                    ("cy", &format_args!("{cy:.2}")),
                    ("r", &"1.6"),
                    ("data-query", &d.query),
                    ("data-axis", &b.axis),
                    ("data-row", &b.row),
                    ("data-col", &b.col),
                    ("data-at", &b.at),
                ],
            );
        }
        if !two {
            o.element(
                "text",
                &[
                    ("x", &(LEFT - 4.0)),
                    ("y", &format_args!("{:.1}", TOP + qi as f64 * ch + ch * 0.8)),
                    ("text-anchor", &"end"),
                ],
                format_args!("{}Q{}", if d.plans.len() > 1 { "* " } else { "" }, d.query),
            );
        }
    }
    if let (true, Some(yk)) = (two, c.y) {
        for (at, text) in [
            (TOP + 10.0, value_text(yk, first.y[rows_per - 1])),
            (TOP + height / 2.0, yk.def().name.to_string()),
            (TOP + height, value_text(yk, first.y[0])),
        ] {
            o.element(
                "text",
                &[("x", &(LEFT - 4.0)), ("y", &at), ("text-anchor", &"end")],
                text,
            );
        }
    }
    let base = format!("{:.1}", TOP + height + 16.0);
    o.element("text", &[("x", &LEFT), ("y", &base)], value_text(c.x, xlo))
        .element(
            "text",
            &[
                ("x", &(LEFT + WIDTH / 2.0)),
                ("y", &base),
                ("text-anchor", &"middle"),
            ],
            c.x.def().name,
        )
        .element(
            "text",
            &[
                ("x", &(LEFT + WIDTH)),
                ("y", &base),
                ("text-anchor", &"end"),
            ],
            value_text(c.x, xhi),
        )
        .close("svg");
    o.into_string()
}

/// Width and height of one cell: square over two knobs, a 14-unit strip per query.
fn cell_size(first: &DiagramShown) -> (f64, f64) {
    let cw = WIDTH / first.x.len() as f64;
    let ch = if first.y.is_empty() {
        14.0
    } else {
        WIDTH / first.y.len() as f64
    };
    (cw, ch)
}

/// The legend as HTML text: per query with more than one plan (every query of a single
/// diagram), each plan's colour, letter, summary, cells, time and regret. Written with
/// the picture's writer: its escaping is HTML's too.
fn legend_html(ds: &[DiagramShown]) -> String {
    let mut o = Svg::new();
    for d in ds.iter().filter(|d| ds.len() == 1 || d.plans.len() > 1) {
        let in_cells = d.plans.iter().filter(|p| p.cells > 0).count();
        o.open(
            "div",
            &[("class", &"diagram-legend"), ("data-query", &d.query)],
        )
        .open("p", &[])
        .text(format_args!(
            "Q{} {}: {in_cells} plans in cells",
            d.query, d.title
        ));
        if in_cells > 1 {
            o.text(format_args!(
                "; {} stay within 10 % of the optimal cost everywhere{}",
                d.reduced,
                if d.unfitted > 0 {
                    " (cost not affine on these axes: no plan replaced)"
                } else {
                    ""
                }
            ));
        }
        o.close("p").open("ul", &[]);
        let mut ids: Vec<u32> = (0..d.plans.len() as u32).collect();
        ids.sort_by(|a, b| d.plans[*b as usize].cells.cmp(&d.plans[*a as usize].cells));
        for i in ids {
            let p = &d.plans[i as usize];
            o.open("li", &[])
                .open(
                    "span",
                    &[
                        ("class", &"swatch"),
                        ("style", &format_args!("background:{}", colour(i))),
                    ],
                )
                .close("span")
                .text(format_args!(
                    "{}  {} · {} cells · simulated {} · loses {}",
                    letter(i),
                    p.summary,
                    p.cells,
                    seconds(p.time_s),
                    seconds(p.regret_s)
                ))
                .close("li");
        }
        o.close("ul").close("div");
    }
    o.into_string()
}

/// A line per cell: query, x, y (empty over one axis), plan letter, summary, time, regret.
fn csv(ds: &[DiagramShown], c: Axes) -> String {
    let mut out = Csv::new();
    out.row([
        "query",
        c.x.def().name,
        c.y.filter(|_| c.query.is_some())
            .map_or("", |k| k.def().name),
        "plan",
        "summary",
        "time_s",
        "regret_s",
    ]);
    for d in ds {
        let rows = d.y.len().max(1);
        for r in 0..rows {
            for (ci, x) in d.x.iter().enumerate() {
                let plan = d.cells[r * d.x.len() + ci];
                let p = &d.plans[plan as usize];
                out.field(d.query).field(x);
                match d.y.get(r) {
                    Some(y) => out.field(y),
                    None => out.field(""),
                };
                out.field(letter(plan))
                    .field(&p.summary)
                    .field(p.time_s)
                    .field(p.regret_s)
                    .end_row();
            }
        }
    }
    out.into_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
    wasm_bindgen_test_configure!(run_in_browser);

    fn plan(summary: &str, time_s: f64, regret_s: f64, cells: u32) -> PlanShown {
        let summary = summary.to_string();
        PlanShown {
            summary,
            time_s,
            regret_s,
            cells,
        }
    }

    /// One escaping rule for the picture and the legend (& < > " '), one quoting rule for
    /// the export (RFC 4180: only a field with a comma, a quote or a line end is quoted).
    #[wasm_bindgen_test]
    fn the_view_escapes_svg_and_html_and_quotes_csv() {
        let nasty = "a & b < c > d \"e\" 'f', g\nh";
        let d = DiagramShown {
            query: 3,
            title: "x<y & 'z'".into(),
            x: vec![0.1, 0.5, 1.0],
            y: Vec::new(),
            cells: vec![0, 1, 1],
            plans: vec![plan(nasty, 1.5, 0.0, 1), plan("plain", 2.0, 0.5, 2)],
            boundaries: Vec::new(),
            reduced: 2,
            unfitted: 0,
        };
        let x = Knob::MemoryBlockReadCost;
        let v = view(
            &[d],
            Axes {
                query: Some(3),
                x,
                y: None,
            },
        );
        let escaped = "a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39;, g\nh";
        assert!(
            v.svg.contains(&format!("<title>Q3 plan A: {escaped} · ")),
            "{}",
            v.svg
        );
        assert!(
            v.legend.contains("Q3 x&lt;y &amp; &#39;z&#39;: 2 plans"),
            "{}",
            v.legend
        );
        assert!(
            v.legend.contains(&format!("A  {escaped} · 1 cells")),
            "{}",
            v.legend
        );
        for out in [&v.svg, &v.regret_svg, &v.legend] {
            assert!(!out.contains(nasty) && !out.contains("'f'"), "{out}");
        }
        let rows = "3,0.1,,A,\"a & b < c > d \"\"e\"\" 'f', g\nh\",1.5,0\n3,0.5,,B,plain,2,0.5\n";
        let head = "query,memory_block_read_cost,,plan,summary,time_s,regret_s\n";
        assert_eq!(v.csv, format!("{head}{rows}3,1,,B,plain,2,0.5\n"));
    }
}
