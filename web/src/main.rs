// The first load's allocator: talc, 3.8 KB (gzipped) smaller than Rust's default for wasm,
// dlmalloc. The full playground and the worker, which plan DBT3 on every knob move, keep
// dlmalloc: their speed was measured with it.
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

fn main() {
    costlab_web::start();
}
