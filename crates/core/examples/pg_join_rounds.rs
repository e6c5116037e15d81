//! The PostgreSQL join planner over DBT3's 22 queries at SF 10, for profiling it and for
//! checking that a speed-up changes no plan.
//!
//! - `cargo run --profile bench -p costlab-core --example pg_join_rounds [-- N]`: N rounds
//!   (300) of the 22 plans; prints the mean round and each query's best time. Under
//!   `valgrind --tool=callgrind`, (instructions at N = 11 minus at N = 1) / 10 is one
//!   round's count, which this 2-core guest measures far more steadily than time.
//! - `... -- N Q`: only query Q, N rounds (to profile one query).
//! - `... -- dump [text]`: every plan at random_page_cost 1.1, 4 and 40 (signature, cost
//!   bits, rows, the tree without detail lines; with `text`, the whole tree too). Compare
//!   the output of two builds with `cmp`; add `--no-default-features` for the page's build.

use costlab_core::compare::WorkloadPlanner;
use costlab_core::knobs::{EngineVersion, Knob, KnobValues};
use costlab_core::plan::PlanNode;
use costlab_core::scenario::ServerSettings;
use costlab_core::sim::builtin;
use std::hint::black_box;
use std::time::Instant;

// As the command line (see crates/alloc).
#[global_allocator]
static ALLOCATOR: costlab_alloc::Mimalloc = costlab_alloc::Mimalloc;

fn strip(t: &mut PlanNode) {
    t.details.clear();
    for c in &mut t.children {
        strip(c)
    }
}

fn main() {
    let m = builtin::find("nvme-consumer-gen4").expect("a built-in machine");
    let p = WorkloadPlanner::dbt3(
        EngineVersion::Pg18,
        10.0,
        &m,
        &ServerSettings::preset_for_builtin(&m.id),
    )
    .expect("the DBT3 planner");
    let k = KnobValues::defaults(EngineVersion::Pg18, EngineVersion::Mysql57);
    let arg = std::env::args().nth(1);
    if arg.as_deref() == Some("dump") {
        let with_text = std::env::args().nth(2).as_deref() == Some("text");
        for rpc in [1.1, 4.0, 40.0] {
            let mut k = k.clone();
            k.set(Knob::RandomPageCost, rpc).expect("a valid value");
            for n in 1..=22u8 {
                let (sig, cost, rows, mut tree) = p.plan(n, &k).expect("a plan");
                let full = format!("{tree:?}");
                strip(&mut tree);
                println!(
                    "Q{n} rpc {rpc} {sig} {:016x} {rows} {tree:?}",
                    cost.to_bits()
                );
                if with_text {
                    println!("{full}");
                }
            }
        }
        return;
    }
    let rounds: usize = arg.and_then(|s| s.parse().ok()).unwrap_or(300);
    let only: Option<u8> = std::env::args().nth(2).and_then(|s| s.parse().ok());
    let mut best = [f64::INFINITY; 23];
    let t0 = Instant::now();
    for _ in 0..rounds {
        for n in 1..=22u8 {
            if only.is_some_and(|q| q != n) {
                continue;
            }
            let t = Instant::now();
            black_box(p.plan(n, &k).expect("a plan"));
            let e = t.elapsed().as_secs_f64() * 1e6;
            best[n as usize] = best[n as usize].min(e);
        }
    }
    let mean = t0.elapsed().as_secs_f64() * 1e3 / rounds.max(1) as f64;
    let mut by_query: Vec<(usize, f64)> = best
        .iter()
        .copied()
        .enumerate()
        .skip(1)
        .filter(|q| q.1.is_finite())
        .collect();
    by_query.sort_by(|a, b| b.1.total_cmp(&a.1));
    let sum: f64 = by_query.iter().map(|q| q.1).sum();
    println!(
        "mean round {mean:.3} ms; sum of each query's best {:.3} ms",
        sum / 1e3
    );
    let slowest: Vec<String> = by_query
        .iter()
        .take(8)
        .map(|(n, us)| format!("Q{n} {us:.0} us"))
        .collect();
    println!("slowest: {}", slowest.join(", "));
}
