//! Sweeps of one parameter and the exact points where an engine changes its plan.
//!
//! Engine-agnostic: the caller passes any `f(x) -> Result<Planned>` (MySQL's or PostgreSQL's
//! `plan` over a selectivity, a cost constant, a buffer size, ...). Samples give the curves;
//! each change of the chosen plan between two samples is then located by bisection **on the
//! model itself** to a relative tolerance of [`CROSSOVER_REL_TOL`], not read off the samples.

use crate::error::{Error, Result};
use crate::plan::{Name, Planned};
use serde::{Serialize, Serializer};

/// Relative width of the bracket at which bisection stops.
pub const CROSSOVER_REL_TOL: f64 = 1e-9;
/// Most bisection levels (more than enough to reach 1e-9 of any f64 range).
const MAX_DEPTH: u32 = 200;

/// How sample points are spread over the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Spacing {
    Linear,
    /// Evenly in log(x); needs a positive range (constants that span decades).
    Log,
}

/// One sample: every candidate's cost by key, and the key of the plan chosen. Keys are
/// the candidates' shared [`Name`]s, so a point costs no string copies.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepPoint {
    pub x: f64,
    /// (key, cost) of every candidate, sorted by key, each key once: a map kept as one
    /// sorted list because a sweep makes one per point. Serialized as a map.
    #[serde(serialize_with = "costs_as_map")]
    pub costs: Vec<(Name, f64)>,
    pub chosen: Name,
}

impl SweepPoint {
    /// The cost of the candidate with this key at this point.
    pub fn cost(&self, key: &str) -> Option<f64> {
        self.costs
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| self.costs[i].1)
    }
}

fn costs_as_map<S: Serializer>(
    costs: &[(Name, f64)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_map(costs.iter().map(|(k, v)| (k, v)))
}

/// A change of the chosen plan: at `x` (to the tolerance) the choice goes from `from` to `to`
/// as x increases.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Crossover {
    pub x: f64,
    pub from: String,
    pub to: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sweep {
    pub points: Vec<SweepPoint>,
    pub crossovers: Vec<Crossover>,
}

impl Sweep {
    /// The first crossover into plan `to`, if any.
    pub fn first_to(&self, to: &str) -> Option<&Crossover> {
        self.crossovers.iter().find(|c| c.to == to)
    }
}

/// `n` points from `lo` to `hi` inclusive.
pub fn sample_points(lo: f64, hi: f64, n: usize, spacing: Spacing) -> Result<Vec<f64>> {
    if !lo.is_finite() || !hi.is_finite() || lo >= hi {
        return Err(Error::invalid(
            "sweep range",
            format!("{lo} to {hi} is not an increasing finite range"),
        ));
    }
    if n < 2 {
        return Err(Error::invalid("sweep points", "need at least 2"));
    }
    if spacing == Spacing::Log && lo <= 0.0 {
        return Err(Error::invalid(
            "sweep range",
            "a log-spaced sweep needs a positive range",
        ));
    }
    let step = |i: usize| i as f64 / (n - 1) as f64;
    Ok((0..n)
        .map(|i| match spacing {
            _ if i == n - 1 => hi,
            Spacing::Linear => lo + (hi - lo) * step(i),
            Spacing::Log => (lo.ln() + (hi.ln() - lo.ln()) * step(i)).exp(),
        })
        .collect())
}

fn point(x: f64, p: &Planned) -> SweepPoint {
    let mut costs: Vec<(Name, f64)> = p
        .candidates
        .iter()
        .map(|c| (c.key.clone(), c.plan.cost.total))
        .collect();
    // As a map collects them: by key, the last cost of a repeated key kept.
    crate::sort::sort_by(&mut costs, |a, b| a.0.cmp(&b.0));
    costs.dedup_by(|later, kept| {
        let same = later.0 == kept.0;
        if same {
            kept.1 = later.1;
        }
        same
    });
    SweepPoint {
        x,
        costs,
        chosen: p.chosen().key.clone(),
    }
}

/// Samples `f` at `n` points and finds every plan change between neighbouring samples.
pub fn sweep<F>(f: F, lo: f64, hi: f64, n: usize, spacing: Spacing) -> Result<Sweep>
where
    F: FnMut(f64) -> Result<Planned>,
{
    sweep_with(f, |_, _| Ok(()), lo, hi, n, spacing)
}

/// [`sweep`], handing every sample's plans to `on_sample` (not the bisection's): callers
/// that also need more than costs at the samples (simulated times) plan each point once.
pub fn sweep_with<F, G>(
    mut f: F,
    mut on_sample: G,
    lo: f64,
    hi: f64,
    n: usize,
    spacing: Spacing,
) -> Result<Sweep>
where
    F: FnMut(f64) -> Result<Planned>,
    G: FnMut(f64, &Planned) -> Result<()>,
{
    let xs = sample_points(lo, hi, n, spacing)?;
    let mut points = Vec::with_capacity(n);
    for x in xs {
        let p = f(x)?;
        on_sample(x, &p)?;
        points.push(point(x, &p));
    }
    let mut crossovers = Vec::new();
    for w in points.windows(2) {
        if w[0].chosen != w[1].chosen {
            bisect(
                &mut f,
                (w[0].x, &w[0].chosen),
                (w[1].x, &w[1].chosen),
                0,
                &mut crossovers,
            )?;
        }
    }
    Ok(Sweep { points, crossovers })
}

/// Only the crossovers of [`sweep`].
pub fn crossovers<F>(f: F, lo: f64, hi: f64, n: usize, spacing: Spacing) -> Result<Vec<Crossover>>
where
    F: FnMut(f64) -> Result<Planned>,
{
    Ok(sweep(f, lo, hi, n, spacing)?.crossovers)
}

/// Narrows `[a, b]`, whose ends choose different plans, until it is `CROSSOVER_REL_TOL`
/// wide; a third plan found inside splits the search so every change is reported in order.
fn bisect<F>(
    f: &mut F,
    (a, ka): (f64, &str),
    (b, kb): (f64, &str),
    depth: u32,
    out: &mut Vec<Crossover>,
) -> Result<()>
where
    F: FnMut(f64) -> Result<Planned>,
{
    let m = a + (b - a) / 2.0;
    let narrow = b - a <= CROSSOVER_REL_TOL * a.abs().max(b.abs());
    if narrow || m <= a || m >= b || depth >= MAX_DEPTH {
        out.push(Crossover {
            x: m,
            from: ka.to_string(),
            to: kb.to_string(),
        });
        return Ok(());
    }
    let planned = f(m)?;
    let km = planned.chosen().key.clone();
    if km != ka {
        bisect(f, (a, ka), (m, &km), depth + 1, out)?;
    }
    if km != kb {
        bisect(f, (m, &km), (b, kb), depth + 1, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Candidate, Cost, PlanNode, Work};

    /// A toy engine: plan "a" costs x, plan "b" costs 1, "c" costs 2.5 - x; the cheapest wins.
    fn toy(x: f64) -> Result<Planned> {
        let cands: Vec<Candidate> = [("a", x), ("b", 1.0), ("c", 2.5 - x)]
            .iter()
            .map(|(k, c)| Candidate {
                key: k.to_string().into(),
                plan: PlanNode::leaf("x", Cost::new(0.0, *c), 1.0, Work::default()),
            })
            .collect();
        let chosen = cands
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.plan.cost.total.total_cmp(&b.1.plan.cost.total))
            .map(|(i, _)| i)
            .unwrap();
        Ok(Planned {
            candidates: cands,
            chosen,
        })
    }

    #[test]
    fn finds_every_change_to_the_tolerance() {
        // a until x = 1, b until x = 1.5, then c.
        let s = sweep(toy, 0.0, 3.0, 7, Spacing::Linear).unwrap();
        let got: Vec<(String, String)> = s
            .crossovers
            .iter()
            .map(|c| (c.from.clone(), c.to.clone()))
            .collect();
        assert_eq!(
            got,
            vec![("a".into(), "b".into()), ("b".into(), "c".into())]
        );
        assert!((s.crossovers[0].x - 1.0).abs() <= 2e-9);
        assert!((s.crossovers[1].x - 1.5).abs() <= 2e-9);
        assert_eq!(s.points[0].cost("b"), Some(1.0));
        assert_eq!(s.points[0].cost("d"), None);
        let keys: Vec<&str> = s.points[0].costs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "b", "c"]);
    }

    #[test]
    fn costs_serialize_as_a_map_keeping_the_last_of_a_repeated_key() {
        let planned = Planned {
            candidates: [("b", 2.0), ("a", 1.0), ("b", 3.0)]
                .iter()
                .map(|(k, c)| Candidate {
                    key: (*k).into(),
                    plan: PlanNode::leaf("x", Cost::new(0.0, *c), 1.0, Work::default()),
                })
                .collect(),
            chosen: 1,
        };
        let p = point(0.5, &planned);
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"x":0.5,"costs":{"a":1.0,"b":3.0},"chosen":"a"}"#
        );
    }

    #[test]
    fn a_change_hidden_between_two_samples_is_found() {
        // Samples 0 and 3 only: both ends differ (a, c) and b lies between.
        let c = crossovers(toy, 0.0, 3.0, 2, Spacing::Linear).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].to, "b");
    }

    #[test]
    fn rejects_bad_ranges() {
        assert!(sample_points(1.0, 1.0, 5, Spacing::Linear).is_err());
        assert!(sample_points(0.0, 1.0, 1, Spacing::Linear).is_err());
        assert!(sample_points(0.0, 1.0, 5, Spacing::Log).is_err());
        assert!(sample_points(f64::NAN, 1.0, 5, Spacing::Linear).is_err());
        let xs = sample_points(0.01, 100.0, 5, Spacing::Log).unwrap();
        assert!((xs[2] - 1.0).abs() < 1e-12);
        assert_eq!(xs[4], 100.0);
    }
}
