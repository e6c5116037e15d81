//! A chart's exports: the SVG document and the data behind it as CSV.

use super::backend::Backend;
use super::data::{ChartData, Series, Theme};
use super::draw::draw;
use super::legend::Legend;
use plotters_svg::SVGBackend;

/// The same chart as an SVG document, for export.
pub fn to_svg(data: &ChartData, theme: Theme, size: (u32, u32)) -> Result<String, String> {
    let mut out = String::new();
    {
        let mut backend = Backend::Svg(SVGBackend::with_string(&mut out, size));
        draw(&mut backend, data, theme, 1.0, Legend::Inside)?;
    }
    Ok(out)
}

/// The data behind a chart as CSV: one row per x, one column per series.
pub fn to_csv(data: &ChartData) -> String {
    let esc = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    match data {
        ChartData::Lines(c) => {
            let mut cols: Vec<&Series> = c.series.iter().collect();
            if let Some(e) = &c.envelope {
                cols.push(e);
            }
            out.push_str(&esc(&c.x_label));
            for s in &cols {
                out.push(',');
                out.push_str(&esc(&s.label));
            }
            out.push('\n');
            let n = cols.iter().map(|s| s.points.len()).max().unwrap_or(0);
            for i in 0..n {
                let x = cols
                    .iter()
                    .find_map(|s| s.points.get(i))
                    .map_or(f64::NAN, |p| p.0);
                out.push_str(&format!("{x}"));
                for s in &cols {
                    out.push(',');
                    if let Some(p) = s.points.get(i).filter(|p| p.1.is_finite()) {
                        out.push_str(&format!("{}", p.1));
                    }
                }
                out.push('\n');
            }
        }
        ChartData::Scatter(c) => {
            out.push_str(&format!(
                "series,{},{},mark\n",
                esc(&c.x_label),
                esc(&c.y_label)
            ));
            for s in &c.series {
                for m in &s.marks {
                    out.push_str(&format!(
                        "{},{},{},{}\n",
                        esc(&s.label),
                        m.x,
                        m.y,
                        esc(&m.title)
                    ));
                }
            }
        }
        ChartData::Heat(h) => {
            out.push_str(&format!("{},{},plan\n", esc(&h.x_label), esc(&h.y_label)));
            for (j, row) in h.cells.iter().enumerate() {
                for (i, cell) in row.iter().enumerate() {
                    let plan = cell
                        .and_then(|p| h.plans.get(p))
                        .map_or("", |p| p.0.as_str());
                    out.push_str(&format!("{},{},{}\n", h.xs[i], h.ys[j], esc(plan)));
                }
            }
        }
    }
    out
}
