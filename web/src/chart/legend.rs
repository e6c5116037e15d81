//! A chart's legend: on screen the page writes it as text under the chart ([`legend`]),
//! exports draw it inside (`Canvas::legend`).

use super::data::{ChartData, MarkShape, Series, DASHES, PALETTE};
use super::layout::to_y;

/// Where the legend goes: drawn inside the plot (exports, which must stand alone), or left
/// to the page, which writes it as text under the chart where it never covers a curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Legend {
    Inside,
    Outside,
}

/// What one legend entry's sample looks like.
#[derive(Clone, Debug, PartialEq)]
pub enum Swatch {
    /// A line in a palette colour (`None`: the foreground, faint), `width` px, with a dash
    /// pattern (dash, gap) or solid.
    Line {
        color: Option<usize>,
        width: u32,
        dash: Option<(u32, u32)>,
    },
    /// A filled patch in a palette colour at an opacity (`None`: the foreground).
    Fill { color: Option<usize>, opacity: f64 },
    /// A scatter's mark.
    Mark {
        color: usize,
        shape: MarkShape,
        filled: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    pub swatch: Swatch,
}

/// The legend of a chart, in the order the chart draws its series.
pub fn legend(data: &ChartData) -> Vec<LegendEntry> {
    match data {
        ChartData::Lines(c) => {
            let mut out = Vec::new();
            if let Some(b) = c.band.as_ref().filter(|b| {
                b.points
                    .iter()
                    .filter(|p| to_y(p.2, c.log_y).is_finite())
                    .count()
                    > 1
            }) {
                out.push(LegendEntry {
                    label: b.label.clone(),
                    swatch: Swatch::Fill {
                        color: Some(1),
                        opacity: 0.25,
                    },
                });
            }
            if let Some(e) = &c.envelope {
                out.push(LegendEntry {
                    label: e.label.clone(),
                    swatch: Swatch::Line {
                        color: None,
                        width: 8,
                        dash: None,
                    },
                });
            }
            // Only what is drawn: a path with no finite point in the sweep has no line.
            let drawn = |s: &&Series| s.points.iter().any(|p| to_y(p.1, c.log_y).is_finite());
            out.extend(c.series.iter().filter(drawn).map(|s| LegendEntry {
                label: s.label.clone(),
                swatch: Swatch::Line {
                    color: Some(s.color % PALETTE.len()),
                    width: 3,
                    dash: DASHES[s.color % DASHES.len()],
                },
            }));
            out
        }
        ChartData::Heat(h) => h
            .plans
            .iter()
            .map(|(label, color)| LegendEntry {
                label: label.clone(),
                swatch: Swatch::Fill {
                    color: Some(color % PALETTE.len()),
                    opacity: 0.75,
                },
            })
            .collect(),
        ChartData::Scatter(c) => {
            let mut out = vec![LegendEntry {
                label: c.diagonal.clone(),
                swatch: Swatch::Line {
                    color: None,
                    width: 2,
                    dash: None,
                },
            }];
            if let Some((_, label)) = &c.band {
                out.push(LegendEntry {
                    label: label.clone(),
                    swatch: Swatch::Fill {
                        color: None,
                        opacity: BAND_OPACITY,
                    },
                });
            }
            // Only series with marks: "stopped at the limit" appears when a plan was.
            out.extend(
                c.series
                    .iter()
                    .filter(|s| !s.marks.is_empty())
                    .map(|s| LegendEntry {
                        label: s.label.clone(),
                        swatch: Swatch::Mark {
                            color: s.color % PALETTE.len(),
                            shape: s.shape,
                            filled: s.filled,
                        },
                    }),
            );
            out
        }
    }
}

/// The 2x band's opacity over the background, in the chart and its legend.
pub const BAND_OPACITY: f64 = 0.12;
