//! The resolver, the cycle finder, the long functions and the allowlist on small module
//! trees held in memory.

use super::*;

fn model(package: &str, files: &[(&str, &str)]) -> CrateModel {
    let files: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    load_crate(
        &files,
        package,
        package,
        Path::new("src/lib.rs"),
        Path::new(""),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn module(m: &CrateModel, path: &str) -> usize {
    m.modules
        .iter()
        .position(|x| x.path == path)
        .unwrap_or_else(|| panic!("no module {path}"))
}

/// Every edge as `from -> to @file:line`.
fn edges(m: &CrateModel) -> Vec<String> {
    let mut all: Vec<String> = m
        .edges
        .iter()
        .map(|(&(f, t), s)| {
            format!(
                "{} -> {} @{}:{}",
                m.modules[f].path, m.modules[t].path, m.files[s.file].shown, s.line
            )
        })
        .collect();
    all.sort();
    all
}

fn cycle_lines(m: &CrateModel) -> Vec<String> {
    violations(m)
        .into_iter()
        .filter(|v| v.rule == Rule::Cycle)
        .map(|v| format!("{} | {}", v.key, v.shown))
        .collect()
}

#[test]
fn a_parent_re_exporting_its_child_that_uses_it_is_a_cycle() {
    let m = model(
        "k",
        &[
            ("src/lib.rs", "pub mod p;\n"),
            (
                "src/p/mod.rs",
                "mod child;\npub use child::X;\npub struct Thing;\n",
            ),
            (
                "src/p/child.rs",
                "use super::Thing;\npub struct X(Thing);\n",
            ),
        ],
    );
    assert_eq!(
        edges(&m),
        [
            "p -> p::child @src/p/mod.rs:2",
            "p::child -> p @src/p/child.rs:1"
        ]
    );
    assert_eq!(
        cycle_lines(&m),
        ["cycle k: p, p::child | k: p -(src/p/mod.rs:2)-> p::child -(src/p/child.rs:1)-> p"]
    );
}

#[test]
fn three_siblings_through_super_are_one_cycle() {
    let m = model(
        "k",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            ("src/a.rs", "use super::b::B;\npub struct A;\n"),
            (
                "src/b.rs",
                "pub struct B;\npub fn f() -> super::c::C {\n    super::c::C\n}\n",
            ),
            (
                "src/c.rs",
                "pub struct C;\nimpl C {\n    fn g(&self) {\n        let _ = super::a::A;\n    }\n}\n",
            ),
        ],
    );
    assert_eq!(
        edges(&m),
        [
            "a -> b @src/a.rs:1",
            "b -> c @src/b.rs:2",
            "c -> a @src/c.rs:4"
        ]
    );
    assert_eq!(
        cycle_lines(&m),
        ["cycle k: a, b, c | k: a -(src/a.rs:1)-> b -(src/b.rs:2)-> c -(src/c.rs:4)-> a"]
    );
}

#[test]
fn what_only_tests_compile_is_no_edge() {
    let m = model(
        "k",
        &[
            (
                "src/lib.rs",
                "mod a;\nmod b;\n#[cfg(test)]\nmod only_tests;\n",
            ),
            ("src/a.rs", "use super::b::B;\npub fn f() {}\n"),
            (
                "src/b.rs",
                "pub struct B;\n\
                 #[cfg(test)]\nuse super::a::f;\n\
                 #[cfg(all(test, unix))]\nfn t() { crate::a::f() }\n\
                 #[test]\nfn u() { super::a::f() }\n\
                 impl B {\n    #[cfg(test)]\n    fn v() { crate::a::f() }\n}\n\
                 #[cfg(test)]\nmod tests {\n    use crate::a::f;\n}\n",
            ),
            // Not read at all: src/only_tests.rs does not exist.
        ],
    );
    assert_eq!(edges(&m), ["a -> b @src/a.rs:1"]);
    assert!(cycle_lines(&m).is_empty());
    let paths: Vec<&str> = m.modules.iter().map(|x| x.path.as_str()).collect();
    assert_eq!(paths, ["crate", "a", "b"]);
}

#[test]
fn a_nested_group_reaches_each_module_it_names() {
    let m = model(
        "k",
        &[
            ("src/lib.rs", "mod a;\nmod m;\n"),
            ("src/a/mod.rs", "pub mod b;\n"),
            ("src/a/b.rs", "pub mod c;\npub fn f() {}\n"),
            ("src/a/b/c.rs", "pub fn g() {\n    crate::m::h()\n}\n"),
            (
                "src/m.rs",
                "use crate::a::{\n    b::{self, c},\n};\npub fn h() {\n    b::f();\n    c::g();\n}\n",
            ),
        ],
    );
    assert_eq!(
        edges(&m),
        [
            "a::b::c -> m @src/a/b/c.rs:2",
            "m -> a::b @src/m.rs:2",
            "m -> a::b::c @src/m.rs:2"
        ]
    );
    assert_eq!(
        cycle_lines(&m),
        ["cycle k: a::b::c, m | k: a::b::c -(src/a/b/c.rs:2)-> m -(src/m.rs:2)-> a::b::c"]
    );
}

#[test]
fn paths_reach_the_deepest_module_and_visibility_is_no_edge() {
    let m = model(
        "k",
        &[
            (
                "src/lib.rs",
                "pub mod pg;\nfn f(_: crate::pg::join::setup::Block) {}\n\
                 fn g() { let _ = self::pg::join::X; }\n",
            ),
            ("src/pg/mod.rs", "pub mod join;\npub(crate) struct P;\n"),
            (
                "src/pg/join.rs",
                "pub mod setup;\npub struct X;\npub(super) fn h() {}\npub(in crate::pg) fn i() {}\n",
            ),
            (
                "src/pg/join/setup.rs",
                "pub struct Block;\nmacro_rules! m { () => { $crate::pg::P } }\n\
                 fn j() { println!(\"{:?}\", super::super::P); }\n",
            ),
        ],
    );
    assert_eq!(
        edges(&m),
        [
            "crate -> pg::join @src/lib.rs:3",
            "crate -> pg::join::setup @src/lib.rs:2",
            "pg::join::setup -> pg @src/pg/join/setup.rs:2"
        ]
    );
    let (root, setup) = (module(&m, "crate"), module(&m, "pg::join::setup"));
    let seg = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        m.resolve(setup, &seg("super::super::super::Q"), false),
        Some(root)
    );
    assert_eq!(
        m.resolve(setup, &seg("super::super::super::super"), false),
        None
    );
    assert_eq!(m.resolve(root, &seg("pg::join::X"), false), None);
    assert_eq!(
        m.resolve(root, &seg("pg::join::X"), true),
        Some(module(&m, "pg::join"))
    );
}

#[test]
fn inline_and_path_modules_are_in_the_tree() {
    let m = model(
        "k",
        &[
            (
                "src/lib.rs",
                "mod outer {\n    pub mod deep;\n    pub struct O;\n}\n#[path = \"other/place.rs\"]\nmod moved;\n",
            ),
            ("src/outer/deep.rs", "pub fn d() -> super::O { super::O }\n"),
            ("src/other/place.rs", "mod inner;\n"),
            ("src/other/inner.rs", "use crate::outer::deep::d;\n"),
        ],
    );
    assert_eq!(
        edges(&m),
        [
            "moved::inner -> outer::deep @src/other/inner.rs:1",
            "outer::deep -> outer @src/outer/deep.rs:1"
        ]
    );
}

#[test]
fn long_functions_count_in_the_planners_only() {
    // A function of `n` body lines spans n + 2 lines, `fn` to its closing brace.
    let body = |n: usize| "    let _x = 1;\n".repeat(n);
    let planner = format!(
        "pub struct P;\nimpl P {{\n    fn long(&self) {{\n{}    }}\n}}\n\
         /// Doc lines do not count.\n#[inline]\nfn at_limit() {{\n{}}}\n\
         trait T {{\n    fn provided() {{\n{}    }}\n}}\n",
        body(MAX_FN_LINES - 1),
        body(MAX_FN_LINES - 2),
        body(MAX_FN_LINES),
    );
    let m = model(
        "costlab-pg",
        &[
            ("src/lib.rs", "pub mod paths;\n"),
            ("src/paths.rs", &planner),
        ],
    );
    let not_a_planner = model(
        "costlab-core",
        &[("src/lib.rs", "pub mod pg;\n"), ("src/pg.rs", &planner)],
    );
    assert!(violations(&not_a_planner)
        .iter()
        .all(|v| v.rule != Rule::Fn));
    let fns: Vec<String> = violations(&m)
        .into_iter()
        .filter(|v| v.rule == Rule::Fn)
        .map(|v| format!("{} | {}", v.key, v.shown))
        .collect();
    // P::long ends on 203, then impl's brace, the doc and attribute, at_limit's 200
    // lines (not over the limit), `trait T {`.
    let trait_fn = 203 + 1 + 2 + MAX_FN_LINES + 1 + 1;
    assert_eq!(
        fns,
        [
            format!(
                "fn src/paths.rs P::long | src/paths.rs:3-{} P::long: 201 lines",
                3 + 200
            ),
            format!(
                "fn src/paths.rs T::provided | src/paths.rs:{trait_fn}-{} T::provided: 202 lines",
                trait_fn + 201
            ),
        ]
    );
    assert!(is_planner("costlab-pg", "crate"));
    assert!(is_planner("costlab-mysql", "join"));
    assert!(!is_planner("costlab-core", "mysql::join"));
    assert!(!is_planner("costlab", "pg"));
}

#[test]
fn the_allowlist_must_match_exactly() {
    let found = vec![
        Violation {
            rule: Rule::File,
            key: "file a.rs".into(),
            shown: "a.rs: 1300 lines".into(),
        },
        Violation {
            rule: Rule::File,
            key: "file b.rs".into(),
            shown: "b.rs: 1300 lines".into(),
        },
    ];
    let allowed = parse_allowlist("# comment\n  # indented\nfile   a.rs \n\nfile c.rs\n");
    let diff = Diff::new(&found, &allowed);
    assert_eq!(diff.new, BTreeSet::from(["file b.rs".to_string()]));
    assert_eq!(diff.stale, BTreeSet::from(["file c.rs".to_string()]));
    let text = report(&found, &diff);
    assert!(text.contains("  NEW b.rs: 1300 lines\n"), "{text}");
    assert!(text.ends_with(
        "layout: 0 cycles, 2 files over 1200 lines, 0 functions over 200 lines, 0 planner files reading query text (1 new, 1 stale allowlist entries)\n"
    ));
}

#[test]
fn tarjan_finds_each_component() {
    // 0 <-> 1, 2 -> 3 -> 4 -> 2, 5 alone, 1 -> 2 joins nothing.
    let edges = BTreeMap::from([
        (0, vec![1]),
        (1, vec![0, 2]),
        (2, vec![3]),
        (3, vec![4]),
        (4, vec![2]),
    ]);
    let mut found = strongly_connected(6, &edges);
    found.sort();
    assert_eq!(found, [vec![0, 1], vec![2, 3, 4], vec![5]]);
}

#[test]
fn a_call_through_a_child_module_without_a_use_is_an_edge() {
    // `child::f()` in the parent is as much a dependency as `use child::f`; a one-segment
    // name that happens to be a child module's (a local `run`) is not a path into it.
    let m = model(
        "k",
        &[
            (
                "src/lib.rs",
                "mod run;\npub fn helper() {}\nfn main() { run::go(); let run = 1; let _ = run; }\n",
            ),
            ("src/run.rs", "pub fn go() { crate::helper() }\n"),
        ],
    );
    assert_eq!(
        edges(&m),
        ["crate -> run @src/lib.rs:3", "run -> crate @src/run.rs:1"]
    );
    assert_eq!(cycle_lines(&m).len(), 1);
}

#[test]
fn a_planner_reading_query_text_is_a_violation() {
    let code = "pub struct Q { pub sql: String, pub n: u8 }\n\
                pub fn plan(q: &Q) -> usize {\n    q.n as usize + q.sql.len()\n}\n\
                #[cfg(test)]\nfn t(q: &Q) -> usize { q.sql.len() }\n";
    let planner = model(
        "costlab-pg",
        &[("src/lib.rs", "pub mod join;\n"), ("src/join.rs", code)],
    );
    let texts: Vec<String> = violations(&planner)
        .into_iter()
        .filter(|v| v.rule == Rule::Text)
        .map(|v| format!("{} | {}", v.key, v.shown))
        .collect();
    // Line 3's read, not the test's.
    assert_eq!(
        texts,
        ["text src/join.rs | src/join.rs:3: reads a query's text (`.sql`)"]
    );
    let front_end = model(
        "costlab-sql",
        &[("src/lib.rs", "pub mod join;\n"), ("src/join.rs", code)],
    );
    assert!(violations(&front_end).iter().all(|v| v.rule != Rule::Text));
}
