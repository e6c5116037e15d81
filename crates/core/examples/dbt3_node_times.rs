//! Prints the join planner's plan of one DBT3 query of a validation report with each
//! node's work and simulated time: `cargo run --example dbt3_node_times -- REPORT Q18
//! no-hashjoin cold`.

use costlab_core::plan::PlanNode;
use costlab_core::validation::{CacheState, ValidationReport};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, name, key, cache] = &args[..] else {
        return Err("usage: dbt3_node_times REPORT QUERY PLAN-KEY warm|cold".into());
    };
    let report = ValidationReport::from_json(&std::fs::read_to_string(path)?)?;
    let cache = if cache == "cold" {
        CacheState::Cold
    } else {
        CacheState::Warm
    };
    let (tree, time) = report.dbt3_plan_times(&report.profile, name, key, cache)?;
    println!("simulated {:.4} s", time.total_s);
    let mut i = 0;
    print(&tree, 0, &time.nodes, &mut i);
    Ok(())
}

fn print(n: &PlanNode, depth: usize, times: &[costlab_core::sim::NodeTime], i: &mut usize) {
    let t = times.get(*i).map_or(0.0, |t| t.total_s);
    *i += 1;
    let w = &n.work;
    let reads: Vec<String> = w
        .page_reads
        .iter()
        .map(|r| {
            format!(
                "{}:{:?}:{:.0}/{:.0}",
                r.object, r.pattern, r.requests, r.distinct
            )
        })
        .collect();
    println!(
        "{:indent$}{} {} rows={:.0} t={:.4} ex={:.0} ent={:.0} ops={:.0} out={:.0} cmp={:.0} spill={:.0} {}",
        "",
        n.op,
        n.relation.as_deref().unwrap_or(""),
        n.rows,
        t,
        w.rows_examined,
        w.index_entries,
        w.operator_evals,
        w.rows_out,
        w.comparisons,
        w.spill_bytes,
        reads.join(" "),
        indent = depth * 2
    );
    for c in &n.children {
        print(c, depth + 1, times, i);
    }
}
