//! The costlab playground: a Yew app that is a view of `costlab-core`.
//!
//! Only `infra` touches the browser beyond rendering; everything the page shows is computed
//! by the core from the state held in one reducer.

pub mod app;
pub mod chart;
mod infra;
pub mod model;

/// Mounts the playground on the page's body.
pub fn start() {
    infra::install_panic_reporter();
    yew::Renderer::<app::App>::new().render();
}
