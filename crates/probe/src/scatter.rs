//! The validation report as a picture: simulated against real time, log-log, one mark per
//! executed plan (warm and cold apart; a plan stopped at the limit hollow, at the limit), the
//! diagonal and the 2x band. SVG, for the documentation (`docs/validation/pgNN.svg`); the
//! page draws the same marks (`web/src/chart.rs`).

use costlab_core::validation::{CacheState, ValidationReport, CLOSE};
use plotters::prelude::*;

/// The scatter as an SVG document; errors name what could not be drawn. The marks and the
/// axes' range are the core's ([`ValidationReport::scatter`]), as the page draws them; a
/// plan stopped at the limit is a hollow mark at the limit.
pub fn svg(report: &ValidationReport, title: &str) -> Result<String, String> {
    let scatter = report.scatter();
    if scatter.executed().next().is_none() {
        return Err("the report has no executed plan to draw".into());
    }
    let (lo, hi) = scatter.range;
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
                    scatter
                        .executed()
                        .filter(|p| p.cache == cache)
                        .map(|p| Circle::new(p.at, 4, color.mix(0.7).filled())),
                )
                .map_err(e)?
                .label(cache.name())
                .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
            let stopped: Vec<_> = scatter.past_limit().filter(|p| p.cache == cache).collect();
            if !stopped.is_empty() {
                chart
                    .draw_series(
                        stopped
                            .iter()
                            .map(|p| Circle::new(p.at, 4, color.stroke_width(2))),
                    )
                    .map_err(e)?
                    .label(format!(
                        "{}, stopped at the limit ({} s)",
                        cache.name(),
                        scatter.limit_s
                    ))
                    .legend(move |(x, y)| Circle::new((x, y), 4, color.stroke_width(2)));
            }
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
        let plans = |r: &ValidationReport| r.queries.iter().flat_map(|q| &q.plans).count();
        // A legend entry per cache state, and one per cache state with a stopped plan.
        let legend = |r: &ValidationReport| {
            2 + [CacheState::Warm, CacheState::Cold]
                .into_iter()
                .filter(|c| {
                    r.queries
                        .iter()
                        .filter(|q| q.cache == *c)
                        .flat_map(|q| &q.plans)
                        .any(|p| p.real_s.is_none())
                })
                .count()
        };
        let hollow_in = |drawn: &str| {
            drawn
                .split("<circle")
                .skip(1)
                .filter(|c| c[..c.find("/>").unwrap_or(0)].contains("fill=\"none\""))
                .count()
        };
        // One mark per plan, besides the legend's.
        let drawn = svg(&report, "PostgreSQL 15").expect("drawn");
        assert!(drawn.contains("simulated time (s)"));
        assert_eq!(
            drawn.matches("<circle").count(),
            plans(&report) + legend(&report)
        );
        // A cold plan stopped at the limit: a hollow mark, and the legend's entry for it.
        let mut stopped = report.clone();
        let q = stopped
            .queries
            .iter_mut()
            .find(|q| q.cache == CacheState::Cold && q.plans[0].real_s.is_some())
            .expect("a cold query");
        q.plans[0].real_s = None;
        let drawn_stopped = svg(&stopped, "PostgreSQL 15").expect("drawn");
        assert_eq!(
            drawn_stopped.matches("<circle").count(),
            plans(&stopped) + legend(&stopped)
        );
        let new_legend = legend(&stopped) - legend(&report);
        assert_eq!(
            hollow_in(&drawn_stopped),
            hollow_in(&drawn) + 1 + new_legend
        );
        let drawn = drawn_stopped;
        assert!(drawn.contains(&format!(
            "cold, stopped at the limit ({} s)",
            report.limit_s
        )));
    }
}
