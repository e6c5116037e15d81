//! Generated inputs for every parser of the core that takes text from outside: the link
//! decoder (anything in the address bar), the calibration file reader (any file a user
//! drops on the page), the scenario file reader and the single-table SQL parser.
//!
//! Each input is a valid example mutated a few times (bits flipped, bytes overwritten,
//! truncated, ranges deleted or repeated, two examples spliced, tokens that matter to the
//! format inserted, numbers replaced by huge, tiny, negative or non-numbers), or random
//! text. Every input runs inside `catch_unwind`: the core promises never to panic on input,
//! so a panic is a bug, reported with the input that caused it. Beyond not panicking, each
//! target checks what its reader promises (a decoded link opens a valid scenario and
//! re-encodes to itself, a profile from a calibration file validates, a parsed query prints
//! as SQL that parses back to the same query).
//!
//! `cargo xtask fuzz [--inputs N]` runs this; `cargo xtask test` runs 100,000 per parser.

use costlab_core::calibration::Calibration;
use costlab_core::knobs::{Engine, EngineVersion, Knob};
use costlab_core::query::Query;
use costlab_core::scenario::{Engines, Scenario, View, Workload, CUSTOM_MACHINE};
use costlab_core::scenario_file::ScenarioFile;
use costlab_core::url::{self, EmbedOptions};
use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

/// One parser under test: valid examples to mutate, tokens that mean something to it, and
/// what to run on each input (panics are failures; it returns whether the reader accepted
/// the input, so a run shows how far past the parser its inputs get).
pub struct Target {
    pub name: &'static str,
    pub examples: Vec<String>,
    pub tokens: Vec<String>,
    pub run: fn(&str) -> bool,
}

/// Inputs longer than this are cut: every reader refuses far shorter ones (links over 8,000
/// characters, calibration files over 1 MB) or reads them in linear time.
const MAX_INPUT: usize = 64 * 1024;

/// Values that break naive number handling: overflow, underflow, subnormals, signs, the
/// spellings of NaN and infinity, integer edges, and things that only look like numbers.
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1e309",
    "-1e309",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "NaN",
    "nan",
    "-NaN",
    "inf",
    "-inf",
    "Infinity",
    "-Infinity",
    "18446744073709551616",
    "18446744073709551615",
    "-9223372036854775809",
    "9223372036854775807",
    "4294967296",
    "99999999999999999999999999999999999999",
    "1e18",
    "-1",
    "0.0000000000000000001",
    "1_000",
    "0x10",
    "+1",
    "1.",
    ".5",
    "1e",
    "-",
    "",
];

fn t1_query_text() -> String {
    "SELECT * FROM t1 WHERE i7 > 100 AND i7 < 2000 AND i8 = 2".into()
}

fn link_examples() -> Vec<String> {
    let mut changed = Scenario {
        engines: Engines::Both,
        view: View::Cost,
        log_y: true,
        workload: Workload::T1Sweep {
            from: 0.01,
            to: 0.25,
        },
        ..Scenario::default()
    };
    let _ = changed.knobs.set(Knob::RandomPageCost, 20.4);
    let _ = changed.knobs.set(Knob::CpuOperatorCost, 0.00125);
    let mut custom = costlab_core::sim::builtin::profiles()
        .into_iter()
        .next()
        .expect("there are built-in profiles");
    custom.id = CUSTOM_MACHINE.into();
    custom.label = "NVMe+RAID & 50% ü".into();
    let custom = Scenario {
        machine: CUSTOM_MACHINE.into(),
        custom_machine: Some(custom),
        ..changed.clone()
    };
    let dbt3 = Scenario {
        engines: Engines::One(Engine::Postgres),
        pg_version: EngineVersion::Pg16,
        workload: Workload::Dbt3 {
            sf: 1.0,
            baseline: "pg-ssd".into(),
        },
        ..Scenario::default()
    };
    let embed = EmbedOptions {
        embed: true,
        read_only: true,
        theme: Some("dark".into()),
        knobs: vec![Knob::RandomPageCost, Knob::SeqPageCost],
    };
    let mut out: Vec<String> = [&changed, &custom, &dbt3, &Scenario::default()]
        .iter()
        .flat_map(|s| {
            [
                url::encode(s, &EmbedOptions::default()),
                url::encode(s, &embed),
            ]
        })
        .collect();
    out.push("v=1&e=both&rpc=20.4&mbrc=0.5&coc=0.00125&w=t1:1,25&log=1".into());
    out.push("#v=1&my=8.0&iobrc=2&w=dbt3&sf=10&base=mysql-5.7&view=flip&fk=rpc".into());
    out
}

fn link_tokens() -> Vec<String> {
    let mut t: Vec<String> = [
        "&",
        "=",
        "%",
        "%2",
        "%zz",
        "%C3",
        "%C3%A9",
        "%FF",
        "%00",
        "+",
        "#",
        "v=1",
        "v=2",
        "m=custom",
        "p.name=",
        "p.q8=",
        "1:100,2:",
        ":",
        ",",
        "w=t1:",
        "w=dbt3",
        "sf=",
        "base=",
        "e=both",
        "view=flip",
        "knobs=",
        "theme=",
        "embed=1",
        "&&&&",
        "é",
        "\u{0}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    t.extend(
        costlab_core::knobs::KNOBS
            .iter()
            .map(|d| format!("{}=", d.url_key)),
    );
    t
}

fn calibration_examples() -> Vec<String> {
    let text = include_str!("../../../static/calibration/this-ci-machine.json");
    let mut out = vec![text.to_string()];
    // The same file without its optional parts and without whitespace.
    if let Ok(c) = Calibration::from_json(text) {
        if let Ok(v) = serde_json_compact(&c.to_json()) {
            out.push(v);
        }
    }
    out
}

/// The JSON text without the whitespace between tokens (strings kept as they are).
fn serde_json_compact(text: &str) -> Result<String, ()> {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    if in_string {
        Err(())
    } else {
        Ok(out)
    }
}

fn json_tokens(fields: &[&str]) -> Vec<String> {
    let mut t: Vec<String> = [
        "{",
        "}",
        "[",
        "]",
        "\"",
        ":",
        ",",
        "null",
        "true",
        "false",
        "\"\"",
        "\"\\u0000\"",
        "\"\\ud800\"",
        "\\",
        "[[[[[[[[[[[[[[[[",
        "{\"a\":",
        "[]",
        "{}",
        "1",
        "0.5",
        "-1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    t.extend(fields.iter().map(|f| format!("\"{f}\":")));
    t
}

fn scenario_examples() -> Vec<String> {
    let seed = costlab_core::workload::rpc_seed::seed_experiment_table(1e6, 5406.0);
    let mut small = ScenarioFile::new(EngineVersion::Pg17, vec![seed]);
    small.settings.insert("random_page_cost".into(), 1.1);
    small.query = Some("SELECT * FROM test_table WHERE id < 1000".into());
    small.source = "PostgreSQL 17.2, imported 2026-05-01".into();
    let mut t1 = ScenarioFile::new(
        EngineVersion::Mysql80,
        vec![costlab_core::workload::t1::t1_table()],
    );
    t1.query = Some(t1_query_text());
    vec![small.to_json(), t1.to_json()]
}

fn sql_examples() -> Vec<String> {
    [
        t1_query_text().as_str(),
        "SELECT * FROM test_table WHERE id < 1000",
        "select pk, i8 from t1 where i7 between 10 and 20 and i8 in (1, 2, 3) order by i7 desc, pk limit 10",
        "SELECT * FROM lineitem WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07",
        "SELECT * FROM t WHERE c1 = 'it''s' AND n >= -1.5e3 ORDER BY n ASC LIMIT 0",
        "SELECT * FROM t1 WHERE 5 < i7;",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn sql_tokens() -> Vec<String> {
    [
        "SELECT",
        "FROM",
        "WHERE",
        "AND",
        "OR",
        "BETWEEN",
        "IN",
        "ORDER BY",
        "LIMIT",
        "DATE",
        "date '1995-02-30'",
        "date '9999-12-31'",
        "'",
        "''",
        "(",
        ")",
        ",",
        "*",
        ";",
        "<=",
        ">=",
        "<>",
        "!=",
        "=",
        "-",
        "--",
        "/*",
        "\"",
        "\"col\"",
        " ",
        "\t",
        "\n",
        "é",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run_link(s: &str) -> bool {
    let d = url::decode(s);
    if let Err(e) = d.scenario.validate() {
        panic!("decoded scenario does not validate: {e}");
    }
    // What the page writes back to the address bar must open the same scenario.
    let again = url::encode(&d.scenario, &d.embed);
    let d2 = url::decode(&again);
    assert!(
        d2.problems.is_empty(),
        "re-encoded {again}: {:?}",
        d2.problems
    );
    assert!(d2.scenario == d.scenario, "re-encoded {again} differs");
    assert!(d2.embed == d.embed, "re-encoded {again}: embed differs");
    let _ = url::describe(&d.scenario);
    d.problems.is_empty() && s.contains('=')
}

fn run_calibration(s: &str) -> bool {
    let Ok(p) = Calibration::from_json(s).and_then(|c| c.to_profile()) else {
        return false;
    };
    if let Err(e) = p.validate() {
        panic!("profile from a valid calibration file does not validate: {e}");
    }
    true
}

fn run_scenario_file(s: &str) -> bool {
    let Ok(f) = ScenarioFile::from_json(s) else {
        return false;
    };
    let Ok(knobs) = f.knobs() else {
        panic!("validated file has invalid knobs");
    };
    // A valid file's query is planned by both engines, as `costlab explain` would.
    let Some(Ok(q)) = f.query.as_deref().map(Query::parse) else {
        return true;
    };
    if let Ok(t) = f.table(&q.table) {
        let _ = costlab_core::pg::plan(
            t,
            &q,
            &knobs,
            EngineVersion::Pg18,
            &costlab_core::pg::PgOptions::default(),
        );
        let _ = costlab_core::mysql::plan(t, &q, &knobs, &costlab_core::mysql::MysqlEnv::default());
    }
    true
}

fn run_sql(s: &str) -> bool {
    let Ok(q) = Query::parse(s) else {
        return false;
    };
    let text = q.sql();
    match Query::parse(&text) {
        Ok(back) => assert!(back == q, "`{text}` parses to another query"),
        Err(e) => panic!("`{text}`, printed from a parsed query, does not parse: {e}"),
    }
    let _ = q.check(&costlab_core::workload::t1::t1_table());
    true
}

/// The four parsers, with their examples.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "link",
            examples: link_examples(),
            tokens: link_tokens(),
            run: run_link,
        },
        Target {
            name: "calibration",
            examples: calibration_examples(),
            tokens: json_tokens(&[
                "costlab_calibration",
                "random_reads",
                "points",
                "queue_depth",
                "iops",
                "median",
                "lo",
                "hi",
                "runs",
                "page_bytes",
                "seq_read",
                "mbps",
            ]),
            run: run_calibration,
        },
        Target {
            name: "scenario-file",
            examples: scenario_examples(),
            tokens: json_tokens(&[
                "costlab_scenario",
                "tables",
                "columns",
                "stats",
                "histogram",
                "mcv",
                "n_distinct",
                "correlation",
                "settings",
                "query",
                "indexes",
            ]),
            run: run_scenario_file,
        },
        Target {
            name: "sql",
            examples: sql_examples(),
            tokens: sql_tokens(),
            run: run_sql,
        },
    ]
}

/// Makes inputs for one target from a seeded generator (same seed, same inputs).
pub struct Generator {
    rng: SmallRng,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator {
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// One input: mostly a mutated example, sometimes random text.
    pub fn input(&mut self, t: &Target) -> String {
        if self.rng.random_ratio(1, 10) {
            return self.random_text();
        }
        let mut bytes = t
            .examples
            .choose(&mut self.rng)
            .map(|e| e.as_bytes().to_vec())
            .unwrap_or_default();
        for _ in 0..self.rng.random_range(1..=4) {
            self.mutate(&mut bytes, t);
        }
        bytes.truncate(MAX_INPUT);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn random_text(&mut self) -> String {
        let len = self.rng.random_range(0..400);
        (0..len)
            .map(|_| match self.rng.random_range(0..10) {
                0..=5 => self.rng.random_range(' '..='~'),
                6 => *b"&=%#:,.-+'\"()[]{}\\"
                    .choose(&mut self.rng)
                    .unwrap_or(&b'&') as char,
                7 => self.rng.random_range('0'..='9'),
                8 => self.rng.random_range('\u{0}'..='\u{1f}'),
                _ => self.rng.random::<char>(),
            })
            .collect()
    }

    fn mutate(&mut self, b: &mut Vec<u8>, t: &Target) {
        let at = |rng: &mut SmallRng, b: &Vec<u8>| rng.random_range(0..=b.len());
        match self.rng.random_range(0..9) {
            0 if !b.is_empty() => {
                let i = self.rng.random_range(0..b.len());
                b[i] ^= 1 << self.rng.random_range(0..8);
            }
            1 if !b.is_empty() => {
                let i = self.rng.random_range(0..b.len());
                b[i] = self.rng.random();
            }
            2 => {
                let i = at(&mut self.rng, b);
                b.truncate(i);
            }
            3 => {
                let (i, j) = (at(&mut self.rng, b), at(&mut self.rng, b));
                b.drain(i.min(j)..i.max(j));
            }
            4 => {
                // Repeat a range, up to 8 times: long lists, deep nesting.
                let (i, j) = (at(&mut self.rng, b), at(&mut self.rng, b));
                let piece = b[i.min(j)..i.max(j)].to_vec();
                let k = at(&mut self.rng, b);
                for _ in 0..self.rng.random_range(1..=8) {
                    b.splice(k..k, piece.iter().copied());
                }
            }
            5 => {
                // Splice: this one's start with another example's end.
                let other = t
                    .examples
                    .choose(&mut self.rng)
                    .map(|e| e.as_bytes())
                    .unwrap_or_default();
                let i = at(&mut self.rng, b);
                let j = self.rng.random_range(0..=other.len());
                b.truncate(i);
                b.extend_from_slice(&other[j..]);
            }
            6 | 7 => {
                let tok = t
                    .tokens
                    .choose(&mut self.rng)
                    .map(String::as_bytes)
                    .unwrap_or_default()
                    .to_vec();
                let i = at(&mut self.rng, b);
                b.splice(i..i, tok);
            }
            _ => self.replace_number(b),
        }
    }

    /// Replaces the number at or after a random position with one of [`NUMBERS`].
    fn replace_number(&mut self, b: &mut Vec<u8>) {
        let start = self.rng.random_range(0..=b.len());
        let Some(i) = (start..b.len()).find(|&i| b[i].is_ascii_digit()) else {
            return;
        };
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'e' | b'E')) {
            j += 1;
        }
        let n = NUMBERS.choose(&mut self.rng).copied().unwrap_or("0");
        b.splice(i..j, n.bytes());
    }
}

/// What one target's run found.
#[derive(Debug)]
pub struct Report {
    pub name: &'static str,
    pub inputs: u64,
    /// Inputs the reader accepted (no panic, no error).
    pub accepted: u64,
    pub wall: Duration,
    pub slowest: Duration,
    pub slowest_input: String,
    /// Peak resident memory during this target's run (VmHWM, reset before it), in kB;
    /// None where /proc does not tell.
    pub peak_kb: Option<u64>,
    pub panics: u64,
    /// The first few panics: input and message.
    pub first_panics: Vec<(String, String)>,
}

thread_local! {
    /// Set while a fuzz input runs: its panic message goes here instead of stderr.
    static CAUGHT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that keeps fuzz inputs' panics quiet and their messages
/// for the report, and leaves every other panic to the previous hook.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let captured = CAUGHT.with(|c| {
                let mut c = c.borrow_mut();
                match c.as_mut() {
                    Some(slot) => {
                        *slot = Some(format!("{info}"));
                        true
                    }
                    None => false,
                }
            });
            if !captured {
                previous(info);
            }
        }));
    });
}

/// Runs one input, catching a panic: whether the reader accepted it, or Err(message) if it
/// panicked.
pub fn run_one(t: &Target, input: &str) -> Result<bool, String> {
    install_hook();
    CAUGHT.with(|c| *c.borrow_mut() = Some(None));
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| (t.run)(input)));
    let message = CAUGHT.with(|c| c.borrow_mut().take().flatten());
    result.map_err(|_| message.unwrap_or_else(|| "panic without a message".into()))
}

/// Resets the process's peak resident memory (Linux: `5` to /proc/self/clear_refs).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory since the last reset, in kB (VmHWM).
pub fn peak_memory_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `inputs` generated inputs through one target.
pub fn fuzz(t: &Target, inputs: u64, seed: u64) -> Report {
    let mut generator = Generator::new(seed);
    reset_peak_memory();
    let started = Instant::now();
    let mut report = Report {
        name: t.name,
        inputs,
        accepted: 0,
        wall: Duration::ZERO,
        slowest: Duration::ZERO,
        slowest_input: String::new(),
        peak_kb: None,
        panics: 0,
        first_panics: Vec::new(),
    };
    for _ in 0..inputs {
        let input = generator.input(t);
        let one = Instant::now();
        let result = run_one(t, &input);
        let took = one.elapsed();
        if took > report.slowest {
            report.slowest = took;
            report.slowest_input = input.clone();
        }
        match result {
            Ok(accepted) => report.accepted += u64::from(accepted),
            Err(message) => {
                report.panics += 1;
                if report.first_panics.len() < 5 {
                    report.first_panics.push((input, message));
                }
            }
        }
    }
    report.wall = started.elapsed();
    report.peak_kb = peak_memory_kb();
    report
}
