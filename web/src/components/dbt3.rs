//! The DBT3 view and the user's workload view: every query's plan under the baseline and
//! under the current constants, their simulated times and the change, one table per engine;
//! flipped plans are marked with a symbol and a word as well as a colour; a query of the
//! user's that an engine's SQL front end refuses shows why, its text marked where. A row (click, Enter or Space) opens both plans
//! as trees, fetched from the worker when the row opens (replies carry only what the rows
//! show).
//!
//! The planning happens in the helper web worker (`worker`): the view sends the inputs, keeps
//! showing the last reply meanwhile, and redraws when the reply for the latest inputs comes.
//! When only knobs moved, a second instance of the worker's wasm on the page's thread
//! ([`PagePlanner`]) answers at once, and the worker follows in the background.
//!
//! The view is `view`'s; `conversation` keeps its requests to the worker in order,
//! `page_planner` is the planner on the page's thread, `shown` what the view shows, `table`
//! an engine's table and `plans` the open row's plans.

mod conversation;
mod page_planner;
mod plans;
mod shown;
mod table;
mod view;

pub use conversation::{Conversation, DiagramConversation};
pub use page_planner::PagePlanner;
pub use shown::{Received, Shown};
pub use table::{Dbt3Props, Dbt3Table};
pub use view::{Dbt3View, Dbt3ViewProps};
