// Starts the DBT3 worker's wasm (trunk builds it with wasm-bindgen's no-modules target,
// which defines the global `wasm_bindgen`). Paths are relative to this script. A wasm that
// fails to load only rejects a promise, which the page would never see: report it as the
// protocol's Failed message instead.
importScripts('./costlab-dbt3-worker.js');
wasm_bindgen({ module_or_path: './costlab-dbt3-worker_bg.wasm' }).catch((e) =>
  postMessage(JSON.stringify({ Failed: `the DBT3 planner did not load: ${e}` })),
);
