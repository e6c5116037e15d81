//! The views and loaders that the first load has stand-ins for, as this build has them:
//! the real ones with `full`, `first_load`'s without. The page takes them from here.

#[cfg(not(feature = "full"))]
pub use super::first_load::{CalibrationLoader, Dbt3View, OrderingView, ValidationView};
#[cfg(feature = "full")]
pub use super::{
    calibration::CalibrationLoader, dbt3::Dbt3View, ordering::OrderingView,
    validation::ValidationView,
};
