//! The validation report as a picture: simulated against real time, log-log, one mark per
//! executed plan (warm and cold apart), the diagonal and the 2x band. SVG, for the
//! documentation (`docs/validation/pgNN.svg`).

use costlab_core::validation::{CacheState, ValidationReport, CLOSE};
use plotters::prelude::*;

/// The scatter as an SVG document; errors name what could not be drawn.
pub fn svg(report: &ValidationReport, title: &str) -> Result<String, String> {
    let points: Vec<(f64, f64, CacheState)> = report
        .queries
        .iter()
        .flat_map(|q| {
            q.plans
                .iter()
                .filter_map(move |p| p.real_s.map(|r| (r, p.sim_s, q.cache)))
        })
        .filter(|(r, s, _)| *r > 0.0 && *s > 0.0)
        .collect();
    if points.is_empty() {
        return Err("the report has no executed plan to draw".into());
    }
    let lo = points
        .iter()
        .flat_map(|(r, s, _)| [*r, *s])
        .fold(f64::INFINITY, f64::min)
        / 2.0;
    let hi = points
        .iter()
        .flat_map(|(r, s, _)| [*r, *s])
        .fold(0.0_f64, f64::max)
        * 2.0;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (720, 640)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("real execution time (s)")
            .y_desc("simulated time (s)")
            .draw()
            .map_err(e)?;
        let diagonal = |f: f64| {
            LineSeries::new(
                [(lo, lo * f), (hi / f.max(1.0), hi * f.min(1.0))],
                BLACK.mix(0.4),
            )
        };
        chart.draw_series(diagonal(1.0)).map_err(e)?;
        chart
            .draw_series(LineSeries::new(
                [(lo, lo * CLOSE), (hi / CLOSE, hi)],
                BLACK.mix(0.2),
            ))
            .map_err(e)?;
        chart
            .draw_series(LineSeries::new(
                [(lo * CLOSE, lo), (hi, hi / CLOSE)],
                BLACK.mix(0.2),
            ))
            .map_err(e)?;
        for (cache, color) in [(CacheState::Warm, BLUE), (CacheState::Cold, RED)] {
            chart
                .draw_series(
                    points
                        .iter()
                        .filter(|p| p.2 == cache)
                        .map(|(r, s, _)| Circle::new((*r, *s), 4, color.mix(0.7).filled())),
                )
                .map_err(e)?
                .label(cache.name())
                .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mark_per_executed_plan() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/validation/pg15.json"
        ))
        .expect("the committed report");
        let report = ValidationReport::from_json(&text).expect("a report");
        let executed = report
            .queries
            .iter()
            .flat_map(|q| &q.plans)
            .filter(|p| p.real_s.is_some())
            .count();
        let svg = svg(&report, "PostgreSQL 15").expect("drawn");
        // Two legend marks besides the plans' circles.
        assert_eq!(svg.matches("<circle").count(), executed + 2);
        assert!(svg.contains("simulated time (s)"));
    }
}
