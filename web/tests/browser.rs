//! Component and state tests that need a real browser (run by wasm-bindgen-test-runner in
//! headless Chromium; `cargo xtask test` sets it up).

use costlab_core::knobs::{Engine, Knob};
use costlab_core::scenario::Engines;
use costlab_web::app::App;
use costlab_web::state::{Action, State};
use std::rc::Rc;
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> web_sys::Element {
    // The test runner's own address may carry a fragment; the app reads its scenario there.
    let window = web_sys::window().unwrap();
    let path = window.location().pathname().unwrap();
    window
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path))
        .unwrap();
    let document = window.document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    root
}

#[wasm_bindgen_test]
async fn app_renders_every_mysql_knob_labelled_and_a_chart() {
    let root = mount();
    yew::scheduler::flush().await;
    for k in Knob::for_engine(Engine::Mysql) {
        let name = k.def().name;
        let row = root
            .query_selector(&format!("[data-knob={name}]"))
            .unwrap()
            .unwrap_or_else(|| panic!("no row for {name}"));
        let label = row.query_selector("label").unwrap().expect("label");
        assert_eq!(label.text_content().as_deref(), Some(name));
    }
    assert!(
        root.query_selector("canvas#cost-mysql").unwrap().is_some(),
        "no chart canvas"
    );
    if let Some(e) = root.query_selector(".error").unwrap() {
        panic!("the page shows an error: {:?}", e.text_content());
    }
    // The default scenario switches from range to table scan near WL#8737's 9 %.
    let switch = root
        .query_selector(".switch-point strong")
        .unwrap()
        .expect("a switch point");
    assert_eq!(switch.text_content().as_deref(), Some("9.071%"));
}

#[wasm_bindgen_test]
fn rejected_value_keeps_the_last_valid_one() {
    let state = Rc::new(State::default());
    let k = Knob::MemoryBlockReadCost;
    let before = state.scenario.knobs.get(k);
    let after = state.clone().reduce(Action::SetKnob(k, f64::NAN));
    assert_eq!(after.scenario.knobs.get(k), before);
    assert!(after.knob_errors[&k].contains("memory_block_read_cost"));
    let fixed = after.reduce(Action::SetKnob(k, 0.2));
    assert_eq!(fixed.scenario.knobs.get(k), 0.2);
    assert!(fixed.knob_errors.is_empty());
}

#[wasm_bindgen_test]
fn presets_and_resets_move_only_their_engine() {
    let state = Rc::new(State::default());
    let s = state.reduce(Action::SetKnob(Knob::RandomPageCost, 20.4));
    let s = s.reduce(Action::Preset("mysql-8.0"));
    assert_eq!(s.scenario.knobs.get(Knob::MemoryBlockReadCost), 0.25);
    assert_eq!(s.scenario.knobs.get(Knob::RandomPageCost), 20.4);
    let s = s.reduce(Action::ResetEngine(Engine::Postgres));
    assert_eq!(s.scenario.knobs.get(Knob::RandomPageCost), 4.0);
    assert_eq!(s.scenario.knobs.get(Knob::MemoryBlockReadCost), 0.25);
    let s = s.reduce(Action::SetEngines(Engines::Both));
    assert_eq!(s.scenario.engines, Engines::Both);
    let bad = s.clone().reduce(Action::SetSweep { from: 0.5, to: 0.1 });
    assert!(bad.error.as_deref().unwrap_or("").contains("sweep range"));
    assert_eq!(bad.scenario.workload, s.scenario.workload);
}

#[wasm_bindgen_test]
fn switching_engines_keeps_the_flip_map_on_a_shown_engine() {
    let state = Rc::new(State::default());
    assert_eq!(state.scenario.flip_knob, Knob::MemoryBlockReadCost);
    let pg = state.reduce(Action::SetEngines(Engines::One(Engine::Postgres)));
    assert_eq!(pg.scenario.flip_knob, Knob::RandomPageCost);
    let both = pg.reduce(Action::SetEngines(Engines::Both));
    assert_eq!(both.scenario.flip_knob, Knob::RandomPageCost);
}

#[wasm_bindgen_test]
fn a_link_opens_its_scenario_and_reports_bad_parts() {
    let s = State::from_link("#v=1&e=pg&rpc=20.4&mbrc=abc");
    assert_eq!(s.scenario.engines, Engines::One(Engine::Postgres));
    assert_eq!(s.scenario.knobs.get(Knob::RandomPageCost), 20.4);
    assert_eq!(s.link_problems.len(), 1);
    assert_eq!(s.link_problems[0].key, "memory_block_read_cost");
}
