//! `costlab-fuzz [--inputs N] [--seed S] [--only NAME]`: runs N generated inputs (default
//! 1,000,000) through each parser that takes outside text and prints, per parser, the
//! inputs, the wall time, the slowest input's time and the peak memory. Exits non-zero on
//! any panic, printing the input. `cargo xtask fuzz` builds and runs it.

use std::process::ExitCode;

const USAGE: &str =
    "usage: costlab-fuzz [--inputs N] [--seed S] [--only link|calibration|scenario-file|sql]";

fn main() -> ExitCode {
    let mut inputs: u64 = 1_000_000;
    let mut seed: u64 = 1;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let value = args.next();
        let parsed = match (a.as_str(), &value) {
            ("--inputs", Some(v)) => v.replace('_', "").parse().map(|n| inputs = n).is_ok(),
            ("--seed", Some(v)) => v.parse().map(|n| seed = n).is_ok(),
            ("--only", Some(v)) => {
                only = Some(v.clone());
                true
            }
            _ => false,
        };
        if !parsed {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    }
    let targets: Vec<_> = costlab_fuzz::targets()
        .into_iter()
        .filter(|t| only.as_deref().is_none_or(|o| o == t.name))
        .collect();
    if targets.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::FAILURE;
    }
    println!("{inputs} inputs per parser, seed {seed}");
    println!(
        "{:<14} {:>10} {:>9} {:>9} {:>12} {:>9} {:>7}",
        "parser", "inputs", "accepted", "wall s", "slowest ms", "peak MB", "panics"
    );
    let (mut passed, mut failed) = (0, 0);
    for t in &targets {
        let r = costlab_fuzz::fuzz(t, inputs, seed);
        println!(
            "{:<14} {:>10} {:>9} {:>9.1} {:>12.2} {:>9} {:>7}",
            r.name,
            r.inputs,
            r.accepted,
            r.wall.as_secs_f64(),
            r.slowest.as_secs_f64() * 1e3,
            r.peak_kb
                .map(|kb| format!("{:.1}", kb as f64 / 1024.0))
                .unwrap_or_else(|| "?".into()),
            r.panics
        );
        for (input, message) in &r.first_panics {
            println!("  PANIC: {message}\n  input: {input:?}");
        }
        if r.panics == 0 {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    // The line cargo xtask test counts: one check per parser.
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!("test result: {status}. {passed} passed; {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
