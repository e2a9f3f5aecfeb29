//! A sweep (sweep.json) as Markdown: the first point's provenance, the verdict, then one table per
//! measure with a row per thread count, affinity set (and regime) and policy.

use super::{escape, exactness, grid_table, heading, notes, repeats_line, verdicts};
use crate::report::measures::{StrategyGrid, shown_measures};
use crate::runner::first_seen;
use crate::sweep::SweepResults;
use std::fmt::Write;

/// A sweep (sweep.json) as Markdown.
pub(super) fn render(sweep: &SweepResults) -> String {
    let Some(first) = sweep.points.first() else {
        return "## contend sweep\n\nNo points were measured.\n".into();
    };
    let mut out = heading("sweep", sweep.stopped(), &first.results.provenance);
    let threads = first_seen(sweep.points.iter().map(|p| p.threads.to_string())).join(", ");
    let affinities = first_seen(sweep.points.iter().map(|p| escape(&p.affinity))).join(", ");
    let n = sweep.points.len();
    let _ = writeln!(
        out,
        "- **points:** {n} (threads {threads}; affinity {affinities})"
    );
    let _ = writeln!(out, "- **repeats:** {}", repeats_line(&first.results));
    let all = || sweep.points.iter().flat_map(|p| &p.results.strategies);
    let grid = StrategyGrid::of_sweep(sweep);
    let rated = sweep.points.iter().any(|p| p.regime.is_paced());
    for m in shown_measures(all(), rated) {
        let _ = writeln!(out, "\n### {}\n", m.heading());
        out.push_str(&grid_table(m, &grid));
    }
    out.push('\n');
    exactness(&mut out, all());
    let point_notes = first_seen(sweep.points.iter().flat_map(|p| &p.results.notes));
    notes(&mut out, point_notes.into_iter().map(String::as_str));
    out.push_str(&verdicts(&crate::verdict::sweep_lines(sweep), escape));
    out
}
