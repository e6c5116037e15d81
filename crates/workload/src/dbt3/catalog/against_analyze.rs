use super::*;
use costlab_model::catalog::Value;
use serde_json::Value as Json;

fn real() -> Json {
    serde_json::from_str(include_str!(
        "../../../tests/data/pg15_dbt3_sf1_analyze.json"
    ))
    .unwrap()
}

fn rows_of(nd: f64, rows: f64) -> f64 {
    if nd < 0.0 {
        -nd * rows
    } else {
        nd
    }
}

use super::n_distinct_not_predicted as not_predicted;

#[test]
fn rows_pages_distinct_counts_and_frequencies_match_a_real_analyze_at_sf_1() {
    let real = real();
    let d = dbt3(1.0).unwrap();
    let within = |model: f64, server: f64, tol: f64| (model / server - 1.0).abs() <= tol;
    let mut skipped = Vec::new();
    for t in &d.pg {
        let r = &real["tables"][t.name.as_str()];
        let pg = t.pg.as_ref().unwrap();
        let actual = r["actual_rows"].as_f64().unwrap();
        assert!(
            within(t.rows, actual, 1e-6),
            "{}: {} rows, {actual}",
            t.name,
            t.rows
        );
        let pages = r["relpages"].as_f64().unwrap();
        assert!(
            within(pg.pages, pages, 0.05),
            "{}: {} pages, {pages}",
            t.name,
            pg.pages
        );
        for i in &t.indexes {
            let ri = &r["indexes"][i.name.as_str()];
            assert!(ri.is_object(), "index {} is not on the server", i.name);
            let server = ri["relpages"].as_f64().unwrap();
            let model = i.pg.as_ref().unwrap().pages;
            if ri["method"] == "brin" {
                // A handful of pages; the revmap's page count is not modelled exactly.
                assert!(
                    (model - server).abs() <= 1.0,
                    "{}: {model} pages, {server}",
                    i.name
                );
            } else {
                assert!(
                    within(model, server, 0.05),
                    "{}: {model} pages, {server}",
                    i.name
                );
            }
        }
        for c in &t.columns {
            let rc = &r["columns"][c.name.as_str()];
            let server = rows_of(rc["n_distinct"].as_f64().unwrap(), actual);
            let model = rows_of(c.stats.n_distinct, t.rows);
            if let Some(why) = not_predicted(&c.name) {
                skipped.push((c.name.clone(), model, server, why));
                continue;
            }
            assert!(
                within(model, server, 0.05),
                "{}: n_distinct {model}, ANALYZE {server}",
                c.name
            );
            // The server's most common values where its list holds every value: the
            // model's frequency of each, within 5 % or, for rare values, four standard
            // deviations of a 30,000-row sample's count.
            let complete = rc["mcv_freq_sum"].as_f64().is_some_and(|f| f > 0.999);
            if !complete || c.stats.mcv.is_empty() {
                continue;
            }
            let values = rc["mcv_first5"].as_array().unwrap();
            let freqs = rc["mcv_freqs_first5"].as_array().unwrap();
            for (v, f) in values.iter().zip(freqs) {
                let v = v.as_str().unwrap().trim();
                let f = f.as_f64().unwrap();
                let ours = c.stats.mcv.iter().find(|(x, _)| match x {
                    Value::Text(s) => s.trim() == v,
                    Value::Num(x) => v.parse::<f64>().is_ok_and(|y| (x - y).abs() < 1e-9),
                });
                let Some((_, model)) = ours else {
                    panic!(
                        "{}: the server's common value {v} is not in the model's list",
                        c.name
                    )
                };
                let noise = 4.0 * (model * (1.0 - model) / 30_000.0).sqrt();
                assert!(
                    (f - model).abs() <= (0.05 * model).max(noise),
                    "{} = {v}: frequency {model}, ANALYZE {f}",
                    c.name
                );
            }
        }
    }
    assert_eq!(skipped.len(), 3, "{skipped:?}");
}

/// ANALYZE's estimate moves from sample to sample; the model gives its expected value.
/// Five runs of lineitem and orders: the model inside or within 5 % of their range.
#[test]
fn sample_estimates_fall_within_five_analyze_runs() {
    let real = real();
    let d = dbt3(1.0).unwrap();
    for t in
        d.pg.iter()
            .filter(|t| t.name == "lineitem" || t.name == "orders")
    {
        for c in t
            .columns
            .iter()
            .filter(|c| not_predicted(&c.name).is_none())
        {
            let runs: Vec<f64> = real["reanalyze_n_distinct"][c.name.as_str()]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| rows_of(v.as_f64().unwrap(), t.rows))
                .collect();
            let lo = runs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = runs.iter().copied().fold(0.0, f64::max);
            let model = rows_of(c.stats.n_distinct, t.rows);
            assert!(
                model >= lo * 0.95 && model <= hi * 1.05,
                "{}: {model} outside {lo}..{hi}",
                c.name
            );
        }
    }
}
