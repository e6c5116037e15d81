//! The generator's own checks, and a short fuzz run inside the normal test run (the long
//! runs are `cargo xtask fuzz` and the 100,000-input step of `cargo xtask test`).

use costlab_fuzz::{fuzz, run_one, targets, Generator};

/// Mutations of an example mean something only if the example itself is read without a
/// problem: every example passes its own target (and the readers accept it).
#[test]
fn every_example_is_valid() {
    for t in targets() {
        assert!(!t.examples.is_empty(), "{}", t.name);
        for e in &t.examples {
            assert_eq!(run_one(&t, e), Ok(true), "{}: {e}", t.name);
            let ok = match t.name {
                "link" => costlab_core::url::decode(e).problems.is_empty(),
                "calibration" => costlab_core::calibration::Calibration::from_json(e)
                    .and_then(|c| c.to_profile())
                    .is_ok(),
                "scenario-file" => costlab_core::scenario_file::ScenarioFile::from_json(e).is_ok(),
                "sql" => costlab_core::query::Query::parse(e).is_ok(),
                other => panic!("no check for {other}"),
            };
            assert!(ok, "{}: example does not read: {e}", t.name);
        }
    }
}

/// The generator mutates: most inputs differ from every example, and the same seed gives
/// the same inputs.
#[test]
fn inputs_are_mutated_and_reproducible() {
    for t in targets() {
        let (mut a, mut b) = (Generator::new(7), Generator::new(7));
        let inputs: Vec<String> = (0..500).map(|_| a.input(&t)).collect();
        let again: Vec<String> = (0..500).map(|_| b.input(&t)).collect();
        assert_eq!(inputs, again, "{}", t.name);
        let new = inputs.iter().filter(|i| !t.examples.contains(i)).count();
        assert!(
            new > 450,
            "{}: only {new} of 500 inputs differ from the examples",
            t.name
        );
    }
}

/// A caught panic is reported with its message, and the hook stays quiet about it.
#[test]
fn a_panic_is_caught_and_named() {
    let t = costlab_fuzz::Target {
        name: "panics",
        examples: vec!["x".into()],
        tokens: vec![],
        run: |s| {
            if s.contains('x') {
                panic!("found an x in {s}")
            }
            true
        },
    };
    let r = fuzz(&t, 200, 1);
    assert!(r.panics > 0);
    assert!(
        r.first_panics[0].1.contains("found an x"),
        "{:?}",
        r.first_panics
    );
    assert_eq!(run_one(&t, "y"), Ok(true));
}

/// A short run of every target in the debug build. Some inputs get past each parser
/// (mutations that keep the format), most do not.
#[test]
fn two_thousand_inputs_per_parser_do_not_panic() {
    for t in targets() {
        let r = fuzz(&t, 2_000, 42);
        assert_eq!(r.panics, 0, "{}: {:?}", t.name, r.first_panics);
        assert!(
            r.accepted >= 20 && r.accepted < r.inputs,
            "{}: {} of {} accepted",
            t.name,
            r.accepted,
            r.inputs
        );
    }
}
