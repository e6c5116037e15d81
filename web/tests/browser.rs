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

#[wasm_bindgen_test]
fn dbt3_scale_factor_and_baseline_keep_the_last_valid_values() {
    use costlab_core::scenario::Workload;
    let state = Rc::new(State::default());
    let s = state.reduce(Action::SetDbt3(true));
    assert_eq!(
        s.scenario.workload,
        Workload::dbt3_default(s.scenario.engines)
    );
    let s = s.reduce(Action::SetScaleFactor(1.0));
    let bad = s.clone().reduce(Action::SetScaleFactor(5000.0));
    assert_eq!(bad.scenario.workload, s.scenario.workload);
    assert!(bad
        .sf_error
        .as_deref()
        .unwrap_or("")
        .contains("scale factor"));
    let nan = bad.reduce(Action::SetScaleFactor(f64::NAN));
    assert!(nan.sf_error.is_some());
    let ok = nan.reduce(Action::SetScaleFactor(0.5));
    assert!(ok.sf_error.is_none());
    // A PostgreSQL baseline is refused while only MySQL is shown; then accepted with both.
    let refused = ok.clone().reduce(Action::SetBaseline("pg-ssd".into()));
    assert!(refused.error.is_some());
    let both = ok.reduce(Action::SetEngines(Engines::Both));
    let both = both.reduce(Action::SetBaseline("pg-ssd".into()));
    assert!(
        matches!(&both.scenario.workload, Workload::Dbt3 { baseline, sf } if baseline == "pg-ssd" && *sf == 0.5)
    );
    // Leaving PostgreSQL moves the baseline to one of the engine still shown.
    let my = both.reduce(Action::SetEngines(Engines::One(Engine::Mysql)));
    assert!(
        matches!(&my.scenario.workload, Workload::Dbt3 { baseline, .. } if baseline == "mysql-5.7")
    );
    assert!(my.scenario.validate().is_ok());
    // Back to t1 and again to DBT3: each workload keeps its settings.
    let t1 = my.reduce(Action::SetDbt3(false));
    assert_eq!(t1.scenario.workload, Workload::T1_DEFAULT);
    let again = t1.reduce(Action::SetDbt3(true));
    assert!(matches!(&again.scenario.workload, Workload::Dbt3 { sf, .. } if *sf == 0.5));
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
async fn dbt3_table_flags_q6_and_opens_both_plans() {
    use wasm_bindgen::JsCast;
    let window = web_sys::window().unwrap();
    let root = mount();
    yew::scheduler::flush().await;
    // Through the address bar, as a pasted link would.
    window.location().set_hash("v=1&w=dbt3&mbrc=0.45").unwrap();
    let mut row = None;
    for _ in 0..100 {
        sleep(20).await;
        yew::scheduler::flush().await;
        row = root.query_selector("#dbt3-mysql tr[data-q='6']").unwrap();
        if row.is_some() {
            break;
        }
    }
    let row = row.expect("the DBT3 table has Q6");
    assert_eq!(row.get_attribute("data-changed").as_deref(), Some("true"));
    assert_eq!(
        root.query_selector_all("#dbt3-mysql tbody tr")
            .unwrap()
            .length(),
        22
    );
    row.dyn_ref::<web_sys::HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
    let current = root
        .query_selector("#dbt3-mysql-detail .plan-tree.current")
        .unwrap()
        .expect("the detail panel");
    let text = current.text_content().unwrap_or_default();
    assert!(text.contains("i_l_shipdate"), "{text}");
    assert!(root.query_selector("canvas#cost-mysql").unwrap().is_none());
    window.location().set_hash("").unwrap();
}
