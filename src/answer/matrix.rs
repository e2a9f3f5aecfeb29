//! A matrix's `verdict:` line.

use super::{Line, Topic};
use crate::matrix::MatrixResults;

/// The matrix's `verdict:` line: its split advice.
pub fn matrix_lines(m: &MatrixResults) -> Vec<Line> {
    vec![Line::new(Topic::Advice, format!("advice: {}", m.advice))]
}
