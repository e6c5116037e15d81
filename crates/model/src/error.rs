//! The one error type of the core. Every fallible entry point returns it, so the web page
//! and the command line can show a message instead of panicking.

use thiserror::Error;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    #[error("{field}: {value} is outside the allowed range {min} to {max}")]
    OutOfRange {
        field: String,
        value: f64,
        min: f64,
        max: f64,
    },
    #[error("{field}: must be a finite number, got {value}")]
    NotFinite { field: String, value: f64 },
    #[error("unknown knob `{0}`")]
    UnknownKnob(String),
    #[error("unknown column `{column}` in table `{table}`")]
    UnknownColumn { table: String, column: String },
    #[error("unknown table `{0}`")]
    UnknownTable(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    #[error("query: {msg} at byte {pos}")]
    QueryParse { pos: usize, msg: String },
    /// A SQL text the front end cannot read or the models cannot plan; `start..end` are
    /// byte offsets into the text, `line` and `column` (from 1, in characters) where it
    /// starts.
    #[error("SQL: {msg} (line {line}, column {column})")]
    Sql {
        msg: String,
        start: usize,
        end: usize,
        line: usize,
        column: usize,
    },
    #[error("invalid {what}: {msg}")]
    Invalid { what: String, msg: String },
}

impl Error {
    pub fn invalid(what: impl Into<String>, msg: impl Into<String>) -> Self {
        Error::Invalid {
            what: what.into(),
            msg: msg.into(),
        }
    }
}

/// Checks that `value` is finite and inside `[min, max]`; `field` names it in the error.
pub fn check_range(field: &str, value: f64, min: f64, max: f64) -> Result<f64> {
    if !value.is_finite() {
        return Err(Error::NotFinite {
            field: field.to_string(),
            value,
        });
    }
    if value < min || value > max {
        return Err(Error::OutOfRange {
            field: field.to_string(),
            value,
            min,
            max,
        });
    }
    Ok(value)
}
