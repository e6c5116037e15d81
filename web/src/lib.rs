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
    // A link to more than the t1 sweep goes to the full playground as it is: the first
    // load cannot read it (`url::decode_t1`), so it does not mount.
    #[cfg(not(feature = "full"))]
    {
        let fragment = infra::location_hash();
        if costlab_core::url::needs_more_than_t1(&fragment) {
            handover::first_load::start_on(&fragment);
            return;
        }
    }
    // The loading shell (index.html) goes when the app mounts, not before: a link handed
    // over above keeps it until the full playground mounts.
    infra::remove_loading_shell();
    let app = yew::Renderer::<app::App>::new().render();
    #[cfg(not(feature = "full"))]
    handover::first_load::keep(app);
    #[cfg(feature = "full")]
    let _ = app;
}
