// Starts the helper worker's wasm (trunk builds it with wasm-bindgen's no-modules target,
// which defines the global `wasm_bindgen`). Paths are relative to this script. A wasm that
// fails to load only rejects a promise, which the page would never see: report it as the
// protocol's Failed message instead.
importScripts('./costlab-worker.js');
wasm_bindgen({ module_or_path: './costlab-worker_bg.wasm' }).catch((e) =>
  postMessage(JSON.stringify({ Failed: `the worker did not load: ${e}` })),
);
