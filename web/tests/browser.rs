//! Component and state tests that need a real browser (run by wasm-bindgen-test-runner in
//! headless Chromium; `cargo xtask test` sets it up).

use costlab_core::knobs::Knob;
use costlab_web::app::{Action, App, State};
use std::rc::Rc;
use wasm_bindgen_test::*;
use yew::Reducible;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> web_sys::Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    root
}

#[wasm_bindgen_test]
async fn app_renders_a_labelled_slider_and_a_chart() {
    let root = mount();
    yew::scheduler::flush().await;
    let slider = root
        .query_selector("input[type=range]")
        .unwrap()
        .expect("slider");
    assert_eq!(
        slider.get_attribute("aria-label").as_deref(),
        Some("memory_block_read_cost")
    );
    assert!(
        root.query_selector("canvas").unwrap().is_some(),
        "no chart canvas"
    );
    assert!(root.query_selector(".error").unwrap().is_none());
}

#[wasm_bindgen_test]
fn rejected_value_keeps_the_last_valid_one() {
    let state = Rc::new(State::default());
    let before = state.knobs.get(Knob::MemoryBlockReadCost);
    let after = state
        .clone()
        .reduce(Action::Set(Knob::MemoryBlockReadCost, f64::NAN));
    assert_eq!(after.knobs.get(Knob::MemoryBlockReadCost), before);
    assert!(after
        .error
        .as_deref()
        .unwrap_or("")
        .contains("memory_block_read_cost"));
    let fixed = after.reduce(Action::Set(Knob::MemoryBlockReadCost, 0.2));
    assert_eq!(fixed.knobs.get(Knob::MemoryBlockReadCost), 0.2);
    assert_eq!(fixed.error, None);
}
