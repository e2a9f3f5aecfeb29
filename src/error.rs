//! The one error type the command line reports, with its exit status.

use std::fmt;

/// A failed command: what to print (one line) and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// 2 for bad input (the request itself is wrong), 1 for a run that
    /// failed (a placement the kernel refused, a wrong final sum).
    pub exit_code: u8,
    /// One line saying what was wrong.
    pub message: String,
}

impl CliError {
    /// Bad input: exit status 2.
    pub fn usage(message: impl fmt::Display) -> Self {
        Self {
            exit_code: 2,
            message: message.to_string(),
        }
    }

    /// A run that failed: exit status 1.
    pub fn failure(message: impl fmt::Display) -> Self {
        Self {
            exit_code: 1,
            message: message.to_string(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// A name that is not one of those a setting takes (`--level socket`, or
/// `"mode": "x"` in a result file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} \"{value}\" (expected {expected})")]
pub struct UnknownName {
    /// What kind of name (`level`, `clock`, `pair class`).
    pub what: &'static str,
    /// The name given.
    pub value: String,
    /// The names accepted, in words.
    pub expected: &'static str,
}

impl UnknownName {
    /// `value` is not a `what`; `expected` lists what is.
    pub fn new(what: &'static str, value: &str, expected: &'static str) -> Self {
        Self {
            what,
            value: value.to_string(),
            expected,
        }
    }
}
