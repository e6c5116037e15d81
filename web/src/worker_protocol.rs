//! What the page and its helper worker say to each other: one JSON string per message.
//!
//! The worker (`worker`, its own wasm, loaded only when needed) holds the code the page's
//! bundle does without: the DBT3 planners and the calibration-file and validation-report
//! readers. The page sends
//! the inputs and receives what it shows, already reduced to text and numbers. These types
//! are the only thing both sides share.
//!
//! Numbers travel as JSON text. The page reads the worker's messages with the browser's
//! JSON parser (exact); the worker reads the page's with serde_json, whose build leaves out
//! the exact float parser (`float_roundtrip`, a size cost), so a long decimal sent to the
//! worker may arrive one ulp off: within the end-to-end tests' 1e-9 comparison.
//!
//! The types are in `messages`; `read` is the page's reader of the worker's messages
//! ([`parse`]), `write` the writers of both sides ([`to_message`], [`to_json`]).

mod messages;
mod read;
mod write;

pub use messages::*;
pub use read::parse;
pub use write::{to_json, to_message};
