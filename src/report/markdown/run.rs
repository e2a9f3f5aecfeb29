//! A run (run.json) as Markdown: the provenance header, the headline, the verdict, one table per
//! measure and regime, what the numbers rest on, exactness and notes.

use super::{escape, exactness, grid_table, heading, headline, notes, repeats_line, verdicts};
use crate::report::measures::{StrategyGrid, table_measures, table_title};
use crate::report::plain;
use crate::runner::RunResults;
use crate::verdict::basis::findings;
use std::fmt::Write;

/// A run (run.json) as Markdown.
pub(super) fn render(run: &RunResults) -> String {
    let mut out = heading("run", run.stopped(), &run.provenance);
    let _ = writeln!(out, "- **workload:** {}", run.pools_text());
    if let Some(load) = run.load_text() {
        let _ = writeln!(out, "- **load walks:** {load}");
    }
    if let Some(inject) = run.inject_text() {
        let _ = writeln!(out, "- **injected:** {inject}");
    }
    let _ = writeln!(out, "- **repeats:** {}", repeats_line(run));
    // A run's headline and verdicts are contend's own words: its strategy names are built from
    // their typed parts, not read as text.
    out.push_str(&headline(&crate::verdict::headline(run)));
    out.push_str(&verdicts(&crate::verdict::run_lines(run), plain));
    for view in run.regimes() {
        let _ = writeln!(out, "\n### {}", view.regime());
        regime_markdown(&mut out, &view);
    }
    out.push('\n');
    exactness(&mut out, run.strategies.iter());
    notes(&mut out, run.notes.iter().map(String::as_str));
    out
}

/// One regime's view: a table per measure, then what its numbers rest on.
fn regime_markdown(out: &mut String, run: &RunResults) {
    let grid = StrategyGrid::of_run(run);
    for m in table_measures(run) {
        let _ = writeln!(out, "\n#### {}\n", table_title(m, run.regime().is_paced()));
        out.push_str(&grid_table(m, &grid));
    }
    for f in findings(run) {
        let _ = writeln!(out, "\n{}", escape(&f.to_string()));
    }
}
