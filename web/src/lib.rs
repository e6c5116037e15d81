//! The costlab playground: a Yew app that is a view of `costlab-core`.
//!
//! The state is one scenario in one reducer (`state`); `model` turns it into chart data by
//! calling the core; `components` render controls and charts; only `infra` reaches into the
//! browser beyond rendering (downloads, pixel ratio, resize, colour scheme, panics).

pub mod app;
pub mod chart;
pub mod components;
pub mod diagram_render;
pub mod handover;
mod infra;
pub mod model;
pub mod state;
pub mod worker;
pub mod worker_protocol;

/// Mounts the playground on the page's body.
pub fn start() {
    infra::install_panic_reporter();
    let app = yew::Renderer::<app::App>::new().render();
    #[cfg(not(feature = "full"))]
    handover::keep(app);
    #[cfg(feature = "full")]
    let _ = app;
}
