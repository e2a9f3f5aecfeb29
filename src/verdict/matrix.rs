//! A matrix's `verdict:` line.

use super::host::Reach;
use super::{Topic, Verdict};
use crate::matrix::{MatrixResults, Split};

/// The matrix's `verdict:` line: its split advice.
pub fn matrix_lines(m: &MatrixResults) -> Vec<Verdict> {
    let a = &m.advice;
    let text = match (a.split, a.rule) {
        (Split::CannotAdvise, _) | (Split::None, 1) => {
            match Reach::of_cpus(&m.topology, &m.config.cpus).cannot_say("CPUs") {
                Some(why) => format!("advice: cannot advise: {why}; {} (rule 1)", a.reason),
                None => format!("advice: cannot advise: {} (rule 1)", a.reason),
            }
        }
        _ => format!("advice: {a}"),
    };
    vec![Verdict::new(Topic::Advice, text)]
}
