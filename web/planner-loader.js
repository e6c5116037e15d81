// Loads the worker's wasm a second time, on the page's own thread (see the DBT3 view's
// PagePlanner): `costlabPlanner` is a promise of its exports (`plan_on_page`,
// `warm_on_page`). The wasm-bindgen glue is
// the no-modules kind, whose `wasm_bindgen` is a global binding of classic scripts.
// The glue's `let wasm_bindgen` may be declared once per page: a view mounted again reuses
// the promise.
window.costlabPlanner ??= new Promise((resolve, reject) => {
  const here = document.currentScript.src;
  const glue = document.createElement('script');
  glue.src = new URL('./costlab-worker.js', here).href;
  glue.onload = () =>
    wasm_bindgen({ module_or_path: new URL('./costlab-worker_bg.wasm', here).href }).then(
      () => resolve(wasm_bindgen),
      reject,
    );
  glue.onerror = () => reject(new Error(`${glue.src} did not load`));
  document.head.append(glue);
});
