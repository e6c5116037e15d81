use costlab_core::validation::{CacheState, ValidationReport};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let report = ValidationReport::from_json(&std::fs::read_to_string(&args[0]).unwrap()).unwrap();
    let cache = if args.get(1).map(|s| s.as_str()) == Some("cold") {
        CacheState::Cold
    } else {
        CacheState::Warm
    };
    let base = report.profile.clone();
    let names = ["row", "entry", "op", "cmp", "hit", "os", "evict", "start"];
    let mut totals = vec![0.0; names.len() + 2];
    println!(
        "{:<5} {:<12} {:>7} {:>7} {}",
        "q",
        "key",
        "real",
        "sim",
        names.join("  ")
    );
    for q in &report.queries {
        if q.cache != cache || q.dbt3.is_none() {
            continue;
        }
        for p in &q.plans {
            let Some(real) = p.real_s else { continue };
            let (_, t) = report
                .dbt3_plan_times(&base, &q.name, &p.key, cache)
                .unwrap();
            let mut parts = Vec::new();
            for k in 0..names.len() {
                let mut pr = base.clone();
                match k {
                    0 => pr.cpu_ns_per_row = 0.01,
                    1 => pr.cpu_ns_per_index_entry = 0.01,
                    2 => pr.cpu_ns_per_operator = 0.01,
                    3 => pr.cpu_ns_per_comparison = 0.01,
                    4 => pr.buffer_hit_ns = 1.0,
                    5 => pr.os_cache_hit_ns = 1.0,
                    6 => pr.os_cache_evict_hit_ns = Some(1.0),
                    _ => pr.executor_start_ns = 0.0,
                }
                let t2 = report
                    .dbt3_plan_times(&pr, &q.name, &p.key, cache)
                    .map(|x| x.1.total_s)
                    .unwrap_or(f64::NAN);
                parts.push(t.total_s - t2);
            }
            for (i, v) in parts.iter().enumerate() {
                totals[i] += v;
            }
            totals[names.len()] += real;
            totals[names.len() + 1] += t.total_s;
            println!(
                "{:<5} {:<12} {:>7.4} {:>7.4} {}",
                q.name,
                p.key,
                real,
                t.total_s,
                parts
                    .iter()
                    .map(|v| format!("{:.4}", v))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
    println!(
        "totals real {:.3} sim {:.3}: {}",
        totals[names.len()],
        totals[names.len() + 1],
        names
            .iter()
            .zip(&totals)
            .map(|(n, v)| format!("{n} {v:.3}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}
