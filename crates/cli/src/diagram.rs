//! `costlab dbt3 --diagram` and `costlab workload --diagram`: plan diagrams over one or two
//! knobs for one query, and the flip map (every query over one knob); `costlab simulate
//! --workload t1 --diagram`: t1's over the fraction of rows and knobs. The diagrams come
//! from `costlab_core::diagram`; this module reads the axes from the command line and
//! prints a diagram as text, JSON, CSV or SVG.

use crate::dbt3::{planner, Dbt3Setup};
use crate::simulate::ProfileInfo;
use costlab_core::analysis::{RangeAxis, FRACTION_AXIS};
use costlab_core::diagram::{Axis, Boundaries, PlanDiagram};
use costlab_core::knobs::{round_significant, Engine, Knob};
use costlab_core::render::csv::Csv;
use costlab_core::render::svg::Svg;
use costlab_core::{Error, Result};
use serde::Serialize;
use std::fmt::Write;

/// Cells per axis when `--grid` is not given.
pub const DEFAULT_GRID: usize = 50;
/// Most cells per axis.
pub const MAX_GRID: usize = 200;

/// A join planner keeps one plan per point: regret is against the fastest plan chosen
/// anywhere in the diagram.
const REGRET_AGAINST_DIAGRAM: &str = "the fastest plan the diagram chose anywhere";
/// A single-table planner costs every candidate at every point.
const REGRET_AT_POINT: &str = "the fastest candidate at the same point";

/// One `--diagram NAME=LO:HI`.
#[derive(Clone, Debug)]
pub struct AxisSpec {
    pub knob: Knob,
    pub lo: f64,
    pub hi: f64,
}

/// Reads `NAME=LO:HI` (values as `--set` reads them: `effective_cache_size=1GB:64GB`).
pub fn parse_axis(text: &str, engine: Engine) -> Result<AxisSpec> {
    let bad = |msg: String| Error::invalid("--diagram", msg);
    let (name, range) = text
        .split_once('=')
        .ok_or_else(|| bad(format!("{text:?} is not NAME=LO:HI")))?;
    let knob = Knob::lookup(name.trim()).map_err(|e| bad(e.to_string()))?;
    let def = knob.def();
    if def.engine != engine {
        return Err(bad(format!(
            "{} is a {} knob; it has no effect on {}",
            def.name,
            def.engine.name(),
            engine.name()
        )));
    }
    let (lo, hi) = range.split_once(':').ok_or_else(|| {
        bad(format!(
            "{text:?}: the range is LO:HI, e.g. {}=1:8",
            def.name
        ))
    })?;
    let lo = def.parse_value(lo.trim()).map_err(|e| bad(e.to_string()))?;
    let hi = def.parse_value(hi.trim()).map_err(|e| bad(e.to_string()))?;
    Ok(AxisSpec { knob, lo, hi })
}

/// Reads `NAME=LO:HI` of a single-table diagram: a knob as [`parse_axis`] reads it, or
/// `fraction=LO:HI` (of the table's rows, 0 to 1).
pub fn parse_range_axis(text: &str, engine: Engine) -> Result<(RangeAxis, f64, f64)> {
    let name = text.split_once('=').map_or(text, |(n, _)| n).trim();
    if !name.eq_ignore_ascii_case(FRACTION_AXIS) {
        let a = parse_axis(text, engine)?;
        return Ok((RangeAxis::Knob(a.knob), a.lo, a.hi));
    }
    let bad = |msg: String| Error::invalid("--diagram", msg);
    let range = text.split_once('=').map(|(_, r)| r).unwrap_or_default();
    let (lo, hi) = range
        .split_once(':')
        .ok_or_else(|| bad(format!("{text:?}: the range is LO:HI, e.g. fraction=0:0.2")))?;
    let num = |t: &str| -> Result<f64> {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad(format!("{t:?} is not a fraction (0 to 1)")))
    };
    Ok((RangeAxis::Fraction, num(lo)?, num(hi)?))
}

/// The report of t1's diagram (`costlab simulate --workload t1 --diagram`).
pub fn t1_report(
    m: &crate::simulate::Machine,
    sets: &[String],
    title: String,
    diagram: PlanDiagram,
) -> DiagramReport {
    DiagramReport {
        engine: m.engine().name(),
        release: m.version.label(),
        workload: "t1 (WL#8737)".into(),
        profile: ProfileInfo::of(&m.profile),
        warm_cache: m.profile.warm_cache,
        sets: sets.to_vec(),
        regret: REGRET_AT_POINT,
        diagrams: vec![QueryDiagram {
            query: 0,
            title,
            diagram,
        }],
    }
}

/// Reads `--grid N` or `--grid NxM` (columns x rows).
pub fn parse_grid(text: &str) -> Result<(usize, usize)> {
    let bad = || {
        Error::invalid(
            "--grid",
            format!("{text:?} is not N or NxM with 2 to {MAX_GRID} cells per axis"),
        )
    };
    let one = |t: &str| -> Result<usize> {
        let n: usize = t.trim().parse().map_err(|_| bad())?;
        if (2..=MAX_GRID).contains(&n) {
            Ok(n)
        } else {
            Err(bad())
        }
    };
    match text.split_once(['x', 'X']) {
        Some((a, b)) => Ok((one(a)?, one(b)?)),
        None => {
            let n = one(text)?;
            Ok((n, n))
        }
    }
}

/// One query's diagram, with its axes' knobs.
#[derive(Clone, Debug, Serialize)]
pub struct QueryDiagram {
    pub query: u8,
    pub title: String,
    pub diagram: PlanDiagram,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiagramReport {
    pub engine: &'static str,
    pub release: &'static str,
    pub workload: String,
    pub profile: ProfileInfo,
    pub warm_cache: bool,
    /// The `--set` assignments the other knobs take.
    pub sets: Vec<String>,
    /// What a cell's regret is measured against.
    pub regret: &'static str,
    /// One diagram (with --query), or one per query over one knob (the flip map).
    pub diagrams: Vec<QueryDiagram>,
}

/// Builds the diagrams `axes` and `--query` ask for.
pub fn run(s: &Dbt3Setup, axes: &[AxisSpec], grid: (usize, usize)) -> Result<DiagramReport> {
    let (p, workload, _) = planner(s)?;
    let axis = |a: &AxisSpec, n: usize| Axis::of_knob(a.knob, a.lo, a.hi, n);
    let diagrams = match (axes, s.query) {
        ([x], None) => {
            let ax = axis(x, grid.0)?;
            p.flip_map(&s.current, x.knob, &ax, Boundaries::Locate)?
        }
        ([x], Some(q)) => {
            let ax = axis(x, grid.0)?;
            vec![(
                q,
                p.diagram(q, &s.current, (x.knob, &ax), None, Boundaries::Locate)?,
            )]
        }
        ([x, y], Some(q)) => {
            let (ax, ay) = (axis(x, grid.0)?, axis(y, grid.1)?);
            vec![(
                q,
                p.diagram(
                    q,
                    &s.current,
                    (x.knob, &ax),
                    Some((y.knob, &ay)),
                    Boundaries::Locate,
                )?,
            )]
        }
        ([_, _], None) => {
            return Err(Error::invalid(
                "--diagram",
                "a diagram over two knobs is of one query: add --query N",
            ))
        }
        _ => {
            return Err(Error::invalid(
                "--diagram",
                "give one knob (a flip map, or one query's strip) or two (with --query)",
            ))
        }
    };
    let title = |n: u8| {
        p.queries()
            .iter()
            .find(|q| q.number == n)
            .map_or_else(String::new, |q| q.title.to_string())
    };
    Ok(DiagramReport {
        engine: s.version.engine().name(),
        release: s.version.label(),
        workload,
        profile: ProfileInfo::of(&s.profile),
        warm_cache: s.profile.warm_cache,
        sets: s.sets.clone(),
        regret: REGRET_AGAINST_DIAGRAM,
        diagrams: diagrams
            .into_iter()
            .map(|(query, diagram)| QueryDiagram {
                query,
                title: title(query),
                diagram,
            })
            .collect(),
    })
}

/// The letter a plan is drawn with: A-Z, a-z, 0-9, then '#'.
pub fn letter(id: usize) -> char {
    const L: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    L.get(id).map_or('#', |&b| b as char)
}

/// A value as a person reads it: a PostgreSQL memory knob as SHOW prints it, else four
/// significant digits.
fn value(knob_name: &str, v: f64) -> String {
    if let Ok(k) = Knob::lookup(knob_name) {
        if let Some(s) = k.def().show_value(v) {
            return s;
        }
    }
    format!("{}", round_significant(v, 4))
}

fn seconds(s: f64) -> String {
    format!("{} s", crate::simulate::secs(s))
}

impl DiagramReport {
    fn header(&self) -> String {
        let mut out = format!(
            "{} on {}, timed on {} ({}), {} cache\n",
            self.workload,
            self.release,
            self.profile.id,
            self.profile.label,
            if self.warm_cache { "warm" } else { "cold" }
        );
        if !self.sets.is_empty() {
            let _ = writeln!(
                out,
                "constants: release defaults with {}",
                self.sets.join(", ")
            );
        }
        out
    }

    /// The report as text: a diagram as a grid of letters (y up), or the flip map as one
    /// row per query.
    pub fn text(&self) -> String {
        let mut out = self.header();
        match self.diagrams.as_slice() {
            [one] if one.diagram.y.is_some() || self.diagrams.len() == 1 => {
                out.push_str(&one_text(one));
            }
            many => out.push_str(&flip_map_text(many)),
        }
        let _ = writeln!(
            out,
            "(boundaries located by bisection on the model to 1e-6 of the axis; regret: \
             simulated time lost against {})",
            self.regret
        );
        out
    }

    /// Every cell as CSV, with the query's number first: one header, then each diagram's
    /// lines (`PlanDiagram::write_csv`).
    pub fn csv(&self) -> String {
        let mut out = Csv::new();
        for (i, q) in self.diagrams.iter().enumerate() {
            q.diagram
                .write_csv(&mut out, Some(("query", &q.query)), i == 0);
        }
        out.into_string()
    }

    /// The diagram (or flip map) as an SVG picture: cells coloured by plan, boundaries as
    /// marks at their exact values, a legend.
    pub fn svg(&self) -> String {
        svg(self)
    }
}

fn axis_line(a: &Axis) -> String {
    format!(
        "{} from {} to {} ({} values{})",
        a.name,
        value(&a.name, a.lo),
        value(&a.name, a.hi),
        a.values.len(),
        match (a.integer, a.spacing) {
            (true, _) => ", whole numbers",
            (false, costlab_core::sweep::Spacing::Log) => ", log-spaced",
            _ => "",
        }
    )
}

fn legend(d: &PlanDiagram, out: &mut String) {
    let kept = d
        .reduction
        .as_ref()
        .map(|r| r.plans.clone())
        .unwrap_or_default();
    for id in d.by_area() {
        let p = &d.plans[id];
        let _ = writeln!(
            out,
            "  {}  {:>5} cells  {:>9}  {}{}",
            letter(id),
            p.cells,
            if p.time_s.is_finite() {
                seconds(p.time_s)
            } else {
                "(varies)".into()
            },
            p.summary,
            if p.cells == 0 {
                "  (only between cells)"
            } else if kept.contains(&id) {
                ""
            } else {
                "  (reduced away)"
            }
        );
    }
}

fn one_text(q: &QueryDiagram) -> String {
    let d = &q.diagram;
    let mut out = String::new();
    if q.query == 0 {
        let _ = writeln!(out, "\n{}", q.title);
    } else {
        let _ = writeln!(out, "\nQ{}: {}", q.query, q.title);
    }
    let _ = writeln!(out, "x: {}", axis_line(&d.x));
    if let Some(y) = &d.y {
        let _ = writeln!(out, "y: {}", axis_line(y));
    }
    let label_w = d.y.as_ref().map_or(0, |y| {
        y.values
            .iter()
            .map(|v| value(&y.name, *v).len())
            .max()
            .unwrap_or(0)
    });
    out.push('\n');
    for r in (0..d.rows()).rev() {
        let label =
            d.y.as_ref()
                .map_or(String::new(), |y| value(&y.name, y.values[r]));
        let _ = write!(out, "{label:>label_w$} |");
        for c in 0..d.columns() {
            out.push(letter(d.cell(r, c).plan));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{:>label_w$} +{}", "", "-".repeat(d.columns()));
    let lo = value(&d.x.name, d.x.lo);
    let hi = value(&d.x.name, d.x.hi);
    let pad = (d.columns() + 1).saturating_sub(lo.len() + hi.len());
    let _ = writeln!(
        out,
        "{:>label_w$}  {lo}{}{hi}  {}",
        "",
        " ".repeat(pad.saturating_sub(1)),
        d.x.name
    );
    let _ = writeln!(
        out,
        "\n{} plans in cells, {} evaluations",
        d.plans_in_cells(),
        d.evaluations
    );
    legend(d, &mut out);
    if let Some(r) = &d.reduction {
        let _ = writeln!(
            out,
            "reduction: {} plan(s) stay within {:.0} % of the optimal cost in every cell{}",
            r.plans.len(),
            r.threshold * 100.0,
            if r.unfitted.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} plan(s) without a known cost elsewhere never replace another)",
                    r.unfitted.len()
                )
            }
        );
    }
    let worst = d.cells.iter().map(|c| c.regret_s).fold(0.0f64, f64::max);
    let mean = d.cells.iter().map(|c| c.regret_s).sum::<f64>() / d.cells.len().max(1) as f64;
    let _ = writeln!(
        out,
        "regret: mean {} per cell, worst {}",
        seconds(mean),
        seconds(worst)
    );
    out.push_str(&boundary_text(d));
    out
}

/// Boundaries grouped by (axis, from, to): how many and over which range of values.
fn boundary_text(d: &PlanDiagram) -> String {
    let mut groups: Vec<(u8, usize, usize, usize, f64, f64)> = Vec::new();
    for b in &d.boundaries {
        match groups
            .iter_mut()
            .find(|g| g.0 == b.axis && g.1 == b.from && g.2 == b.to)
        {
            Some(g) => {
                g.3 += 1;
                g.4 = g.4.min(b.at);
                g.5 = g.5.max(b.at);
            }
            None => groups.push((b.axis, b.from, b.to, 1, b.at, b.at)),
        }
    }
    let mut out = format!("boundaries: {}\n", d.boundaries.len());
    for (axis, from, to, n, lo, hi) in groups {
        let name = if axis == 0 {
            &d.x.name
        } else {
            &d.y.as_ref().expect("y boundary").name
        };
        let range = if n == 1 || lo == hi {
            format!("at {}", value(name, lo))
        } else {
            format!("at {} to {}", value(name, lo), value(name, hi))
        };
        let _ = writeln!(
            out,
            "  {} -> {} along {name}: {n} edge(s), {range}",
            letter(from),
            letter(to)
        );
    }
    out
}

fn flip_map_text(rows: &[QueryDiagram]) -> String {
    let mut out = String::new();
    let Some(first) = rows.first() else {
        return out;
    };
    let _ = writeln!(out, "\nflip map over {}\n", axis_line(&first.diagram.x));
    let changed = rows.iter().filter(|q| q.diagram.plans.len() > 1).count();
    for q in rows {
        let d = &q.diagram;
        let strip: String = (0..d.columns())
            .map(|c| letter(d.cell(0, c).plan))
            .collect();
        let switches: Vec<String> = d
            .boundaries
            .iter()
            .map(|b| {
                format!(
                    "{}->{} at {}",
                    letter(b.from),
                    letter(b.to),
                    value(&d.x.name, b.at)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "{}Q{:<3} {strip}  {}",
            if d.plans.len() > 1 { "*" } else { " " },
            q.query,
            switches.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\n{changed} of {} queries change plan over the range (*); letters are per query:",
        rows.len()
    );
    for q in rows.iter().filter(|q| q.diagram.plans.len() > 1) {
        let _ = writeln!(out, "Q{}: {}", q.query, q.title);
        legend(&q.diagram, &mut out);
    }
    out
}

/// A plan's colour: twelve distinct ones, then hues around the wheel.
pub fn colour(id: usize) -> String {
    const C: [&str; 12] = [
        "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
        "#9c755f", "#bab0ac", "#1b9e77", "#7570b3",
    ];
    C.get(id).map_or_else(
        || format!("hsl({},55%,55%)", (id * 47) % 360),
        |c| c.to_string(),
    )
}

/// The frame of the command line's picture: the cells' width (and, over two knobs, height),
/// and their top-left corner.
const SVG_CELLS: f64 = 560.0;
const SVG_LEFT: f64 = 90.0;
const SVG_TOP: f64 = 30.0;

/// The diagram (or the flip map) as a document of its own: a title, cells coloured by plan
/// (a rectangle per cell, its plan's summary as the tooltip), boundaries as dots at their
/// exact values, the axes' ends and names, and (one diagram) the legend. The page draws
/// its own picture of the same diagram (`web/src/diagram_render.rs`): see there why.
fn svg(r: &DiagramReport) -> String {
    let mut body = Svg::with_capacity(64 * 1024);
    let mut y0 = SVG_TOP;
    let single = r.diagrams.len() == 1;
    for q in &r.diagrams {
        let height = svg_diagram(&mut body, q, y0, single);
        y0 += height + if single { 30.0 } else { 2.0 };
    }
    if !single {
        if let Some(q) = r.diagrams.first() {
            let x = &q.diagram.x;
            body.element(
                "text",
                &[
                    ("x", &SVG_LEFT),
                    ("y", &format_args!("{:.1}", y0 + 14.0)),
                    ("font-size", &"12"),
                ],
                format_args!(
                    "{}  {}  {} (colours are per query)",
                    value(&x.name, x.lo),
                    x.name,
                    value(&x.name, x.hi)
                ),
            );
            y0 += 24.0;
        }
    }
    let legend: Vec<usize> = match r.diagrams.as_slice() {
        [q] => q.diagram.by_area(),
        _ => Vec::new(),
    };
    for (i, &id) in legend.iter().enumerate() {
        let d = &r.diagrams[0].diagram;
        let y = y0 + 16.0 * i as f64;
        body.empty(
            "rect",
            &[
                ("x", &SVG_LEFT),
                ("y", &format_args!("{y:.1}")),
                ("width", &"10"),
                ("height", &"10"),
                ("fill", &colour(id)),
            ],
        )
        .element(
            "text",
            &[
                ("x", &format_args!("{:.1}", SVG_LEFT + 16.0)),
                ("y", &format_args!("{:.1}", y + 9.0)),
                ("font-size", &"11"),
            ],
            format_args!("{}  {}", letter(id), d.plans[id].summary),
        );
    }
    let height = y0 + 16.0 * legend.len() as f64 + 10.0;
    let title = match r.diagrams.as_slice() {
        [q] => format!("Q{} on {}: plan diagram", q.query, r.release),
        _ => format!("{} on {}: flip map", r.workload, r.release),
    };
    let mut doc = Svg::with_capacity(body.as_str().len() + 256);
    doc.open(
        "svg",
        &[
            ("xmlns", &"http://www.w3.org/2000/svg"),
            ("width", &format_args!("{:.0}", SVG_LEFT + SVG_CELLS + 20.0)),
            ("height", &format_args!("{height:.0}")),
            ("font-family", &"sans-serif"),
        ],
    )
    .element(
        "text",
        &[("x", &SVG_LEFT), ("y", &"18"), ("font-size", &"13")],
        title,
    )
    .append(&body)
    .close("svg")
    .text("\n");
    doc.into_string()
}

/// One diagram of the picture from `y0` down: its cells and boundaries, a flip map's row
/// label or (`single`) the axes' ends and names. Returns the cells' height.
fn svg_diagram(body: &mut Svg, q: &QueryDiagram, y0: f64, single: bool) -> f64 {
    let d = &q.diagram;
    let (cols, rows) = (d.columns(), d.rows());
    let cw = SVG_CELLS / cols as f64;
    let ch = if d.y.is_some() {
        SVG_CELLS / rows as f64
    } else {
        14.0
    };
    let height = ch * rows as f64;
    if !single {
        body.element(
            "text",
            &[
                ("x", &(SVG_LEFT - 6.0)),
                ("y", &format_args!("{:.1}", y0 + ch * 0.8)),
                ("font-size", &"11"),
                ("text-anchor", &"end"),
            ],
            format_args!("Q{}", q.query),
        );
    }
    for row in 0..rows {
        for c in 0..cols {
            let cell = d.cell(row, c);
            body.open(
                "rect",
                &[
                    ("x", &format_args!("{:.2}", SVG_LEFT + c as f64 * cw)),
                    (
                        "y",
                        &format_args!("{:.2}", y0 + (rows - 1 - row) as f64 * ch),
                    ),
                    ("width", &format_args!("{:.2}", cw + 0.05)),
                    ("height", &format_args!("{:.2}", ch + 0.05)),
                    ("fill", &colour(cell.plan)),
                ],
            )
            .element("title", &[], &d.plans[cell.plan].summary)
            .close("rect");
        }
    }
    // Boundaries at their exact values: a short tick across the edge they cut.
    for b in &d.boundaries {
        let (cx, cy) = if b.axis == 0 {
            (
                SVG_LEFT + d.x.position(b.at) * (SVG_CELLS - cw) + cw / 2.0,
                y0 + (rows - 1 - b.row) as f64 * ch + ch / 2.0,
            )
        } else {
            let y = d.y.as_ref().expect("y boundary");
            (
                SVG_LEFT + b.col as f64 * cw + cw / 2.0,
                y0 + (1.0 - y.position(b.at)) * (height - ch) + ch / 2.0,
            )
        };
        body.empty(
            "circle",
            &[
                ("cx", &format_args!("{cx:.2}")),
                ("cy", &format_args!("{cy:.2}")),
                ("r", &"1.2"),
                ("fill", &"#000"),
            ],
        );
    }
    if single {
        body.element(
            "text",
            &[
                ("x", &SVG_LEFT),
                ("y", &format_args!("{:.1}", y0 + height + 16.0)),
                ("font-size", &"12"),
            ],
            format_args!(
                "{}  {}  {}",
                value(&d.x.name, d.x.lo),
                d.x.name,
                value(&d.x.name, d.x.hi)
            ),
        );
        if let Some(y) = &d.y {
            for (at, text) in [
                (y0 + 10.0, value(&y.name, y.hi)),
                (y0 + height / 2.0, y.name.clone()),
                (y0 + height, value(&y.name, y.lo)),
            ] {
                body.element(
                    "text",
                    &[
                        ("x", &format_args!("{:.1}", SVG_LEFT - 6.0)),
                        ("y", &format_args!("{at:.1}")),
                        ("font-size", &"12"),
                        ("text-anchor", &"end"),
                    ],
                    text,
                );
            }
        }
    }
    height
}

#[cfg(test)]
mod tests {
    use super::*;
    use costlab_core::diagram::{build, Choice, Description};
    use costlab_core::sweep::Spacing;

    const NASTY: &str = "a & b < c > d \"e\" 'f', g\nh";

    /// Plan a (the summary above) at x = 0, plan b at 2 and 4; a diagram per query.
    fn report(queries: &[u8]) -> DiagramReport {
        let x = Axis::new("x", 0.0, 4.0, 3, Spacing::Linear, false).unwrap();
        let diagram = || {
            let plan = |x: f64, _| {
                let (plan, cost) = if x < 1.0 { ("a", 1.0) } else { ("b", 2.0) };
                let signature = plan.to_string();
                let regret_s = None;
                Ok(Choice {
                    signature,
                    cost,
                    plan,
                    regret_s,
                })
            };
            let describe = |k: &&str| {
                let summary = if *k == "a" { NASTY } else { "b" }.to_string();
                Ok(Description {
                    summary,
                    time_s: 1.0,
                })
            };
            build(&x, None, Boundaries::Skip, plan, describe).unwrap()
        };
        let profile = costlab_core::sim::builtin::find("wl8737-memory").unwrap();
        DiagramReport {
            engine: "mysql",
            release: "r<&>'\"",
            workload: "w&".into(),
            profile: ProfileInfo::of(&profile),
            warm_cache: true,
            sets: Vec::new(),
            regret: "the fastest plan",
            diagrams: queries
                .iter()
                .map(|&query| QueryDiagram {
                    query,
                    title: "t".into(),
                    diagram: diagram(),
                })
                .collect(),
        }
    }

    /// RFC 4180: one header, the query first on every line, the summary quoted (its comma,
    /// quotes and line end) once, not split at its line end.
    #[test]
    fn csv_quotes_summaries_and_leads_with_the_query() {
        let a = ",0,,0,\"a & b < c > d \"\"e\"\" 'f', g\nh\",1,1,0\n";
        let b = ",,1,b,2,1,0\n";
        let head = "query,x,,plan,summary,cost,time_s,regret_s\n";
        let want = format!("{head}3{a}3,2{b}3,4{b}4{a}4,2{b}4,4{b}");
        assert_eq!(report(&[3, 4]).csv(), want);
    }

    /// The five characters escaped in the tooltips, the legend and the title.
    #[test]
    fn svg_escapes_summaries_and_the_title() {
        let svg = report(&[3]).svg();
        let escaped = "a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39;, g\nh";
        assert!(svg.contains(&format!("<title>{escaped}</title>")), "{svg}");
        assert!(svg.contains(&format!(">A  {escaped}</text>")), "{svg}");
        assert!(svg.contains(">Q3 on r&lt;&amp;&gt;&#39;&quot;: plan diagram</text>"));
        assert!(!svg.contains(NASTY) && !svg.contains("'f'"), "{svg}");
        let flip = report(&[3, 4]).svg();
        assert!(flip.contains(">w&amp; on r&lt;&amp;&gt;&#39;&quot;: flip map</text>"));
    }
}
