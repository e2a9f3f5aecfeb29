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
    let stopped = sweep.stopped().map(|why| format!("; PARTIAL ({why})"));
    let (n, stopped) = (sweep.points.len(), stopped.unwrap_or_default());
    let _ = writeln!(out, "contend sweep: {n} points{stopped}");
    // Under 1 s per strategy (`--quick`'s 200 ms), a point's figures are a look, not a measurement.
    let each = |c: &crate::runner::RunConfig| c.repeats as f64 * c.repeat_duration_s;
    let shortest = sweep
        .points
        .iter()
        .map(|p| each(&p.results.config))
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
        let (threads, affinity) = (p.threads, plain(&p.affinity));
        let _ = writeln!(
            out,
            "\n=== {threads} threads, affinity {affinity}{regime} ==="
        );
        out.push_str(&header(&p.results));
        out.push_str(&tables(&p.results));
    }
    out.push_str(&super::lines(crate::verdict::sweep_lines(sweep)));
    out
}
