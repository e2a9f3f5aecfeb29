//! A sweep for the terminal: every point's header and tables, under a heading naming its thread
//! count, affinity set and regime, then the sweep's verdict.

use super::run::{header, tables};
use crate::report::plain;
use crate::sweep::SweepResults;
use crate::workload::Regime;
use std::fmt::Write;

/// A sweep as text: the run table of every point, under a heading naming its thread count and
/// affinity set.
pub(super) fn render(sweep: &SweepResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "contend sweep: {} points{}",
        sweep.points.len(),
        sweep
            .stopped()
            .map_or(String::new(), |why| format!("; PARTIAL ({why})"))
    );
    // Under 1 s per strategy (`--quick`'s 200 ms), a point's figures are a look, not a measurement.
    let shortest = sweep
        .points
        .iter()
        .map(|p| p.results.config.repeats as f64 * p.results.config.repeat_duration_s)
        .reduce(f64::min);
    if let Some(s) = shortest.filter(|&s| s < 1.0) {
        let _ = writeln!(
            out,
            "too short to compare: {:.0} ms per strategy at a point; read its figures as a first \
             look, and sweep without --quick (1 s) to compare",
            s * 1e3
        );
    }
    for p in &sweep.points {
        let regime = match p.regime {
            Regime::FlatOut => String::new(),
            paced => format!(", {paced}"),
        };
        let _ = writeln!(
            out,
            "\n=== {} threads, affinity {}{regime} ===",
            p.threads,
            plain(&p.affinity)
        );
        out.push_str(&header(&p.results));
        out.push_str(&tables(&p.results));
    }
    out.push_str(&super::verdicts(&crate::verdict::sweep_lines(sweep)));
    out
}
