//! A matrix's `verdict:` line.

use super::{Topic, Verdict};
use crate::matrix::MatrixResults;

/// The matrix's `verdict:` line: its split advice.
pub fn matrix_lines(m: &MatrixResults) -> Vec<Verdict> {
    vec![Verdict::new(Topic::Advice, format!("advice: {}", m.advice))]
}
