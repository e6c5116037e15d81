//! A chart's exports: the SVG document and the data behind it as CSV.

use super::backend::Backend;
use super::data::{ChartData, Series, Theme};
use super::draw::draw;
use super::legend::Legend;
use costlab_core::render::csv::Csv;
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
    let mut out = Csv::new();
    match data {
        ChartData::Lines(c) => {
            let mut cols: Vec<&Series> = c.series.iter().collect();
            if let Some(e) = &c.envelope {
                cols.push(e);
            }
            out.field(&c.x_label);
            for s in &cols {
                out.field(&s.label);
            }
            out.end_row();
            let n = cols.iter().map(|s| s.points.len()).max().unwrap_or(0);
            for i in 0..n {
                let x = cols
                    .iter()
                    .find_map(|s| s.points.get(i))
                    .map_or(f64::NAN, |p| p.0);
                out.field(x);
                for s in &cols {
                    match s.points.get(i).filter(|p| p.1.is_finite()) {
                        Some(p) => out.field(p.1),
                        None => out.field(""),
                    };
                }
                out.end_row();
            }
        }
        ChartData::Scatter(c) => {
            out.row(["series", &c.x_label, &c.y_label, "mark"]);
            for s in &c.series {
                for m in &s.marks {
                    out.field(&s.label)
                        .field(m.x)
                        .field(m.y)
                        .field(&m.title)
                        .end_row();
                }
            }
        }
        ChartData::Heat(h) => {
            out.row([h.x_label.as_str(), &h.y_label, "plan"]);
            for (j, row) in h.cells.iter().enumerate() {
                for (i, cell) in row.iter().enumerate() {
                    let plan = cell
                        .and_then(|p| h.plans.get(p))
                        .map_or("", |p| p.0.as_str());
                    out.field(h.xs[i]).field(h.ys[j]).field(plan).end_row();
                }
            }
        }
    }
    out.into_string()
}

#[cfg(test)]
mod tests {
    use super::super::data::HeatMap;
    use super::*;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
    wasm_bindgen_test_configure!(run_in_browser);

    /// The export's one quoting rule (RFC 4180): a label with a comma, a quote or a line end.
    #[wasm_bindgen_test]
    fn csv_quotes_labels_with_commas_quotes_and_line_ends() {
        let h = HeatMap {
            x_label: "rows, share".into(),
            y_label: "cost \"c\"\r".into(),
            xs: vec![0.5],
            ys: vec![1.0, 2.0],
            cells: vec![vec![Some(0)], vec![None]],
            plans: vec![("A\nB".into(), 0)],
            log_y: false,
            lines: Vec::new(),
            switches: Vec::new(),
        };
        let csv = "\"rows, share\",\"cost \"\"c\"\"\r\",plan\n0.5,1,\"A\nB\"\n0.5,2,\n";
        assert_eq!(to_csv(&ChartData::Heat(h)), csv);
    }
}
