//! A sweep (sweep.json) as Markdown: the first point's provenance, the
//! verdict, then one table per measure with a row per thread count,
//! affinity set (and regime) and policy.

use super::{
    escape, exactness, level_of, level_values, notes, provenance_list, repeats_line, table,
    verdicts, with_cells,
};
use crate::report::measures::{RowLabels, shown_measures, unique};
use crate::sweep::SweepResults;
use std::fmt::Write;

/// A sweep (sweep.json) as Markdown: the first point's provenance, then
/// one table per measure with a row per thread count, affinity set and
/// policy.
pub(super) fn render(sweep: &SweepResults) -> String {
    let mut out = String::new();
    let Some(first) = sweep.points.first() else {
        let _ = writeln!(out, "## contend sweep\n\nNo points were measured.");
        return out;
    };
    let _ = writeln!(
        out,
        "## contend sweep on {}{}\n",
        escape(&first.results.provenance.hostname),
        if sweep.partial {
            " (PARTIAL: interrupted)"
        } else {
            ""
        }
    );
    provenance_list(&mut out, &first.results.provenance);
    let _ = writeln!(
        out,
        "- **points:** {} (threads {}; affinity {})",
        sweep.points.len(),
        unique(sweep.points.iter().map(|p| p.threads.to_string())).join(", "),
        unique(sweep.points.iter().map(|p| p.affinity.clone())).join(", ")
    );
    let _ = writeln!(
        out,
        "- **repeats:** {}",
        repeats_line(&first.results.config)
    );
    let all = || sweep.points.iter().flat_map(|p| &p.results.strategies);
    let labels = RowLabels::new(all());
    let levels = unique(all().map(level_of));
    let resolution_ns = 2.0 * first.results.config.timer_overhead_ns;
    let rated = sweep.points.iter().any(|p| p.regime.is_paced());
    for m in shown_measures(all(), rated) {
        let _ = writeln!(out, "\n### {}\n", m.title);
        let mut header = vec!["threads".to_string(), "affinity".to_string()];
        if rated {
            header.push("rate/s".to_string());
        }
        header.push("policy".to_string());
        header.extend(levels.iter().cloned());
        let mut rows = Vec::new();
        for p in &sweep.points {
            let strategies = &p.results.strategies;
            for row in unique(strategies.iter().map(|s| labels.label(s))) {
                let mut line = vec![p.threads.to_string(), p.affinity.clone()];
                if rated {
                    line.push(p.regime.rate().map_or("max".to_string(), |r| r.to_string()));
                }
                line.push(row.clone());
                let values = level_values(strategies, &levels, m, |s| labels.label(s) == row);
                rows.push((line, values));
            }
        }
        out.push_str(&table(&header, &with_cells(m, rows, resolution_ns)));
    }
    out.push('\n');
    exactness(&mut out, all());
    let point_notes = unique(
        sweep
            .points
            .iter()
            .flat_map(|p| p.results.notes.iter().cloned()),
    );
    notes(&mut out, point_notes.iter().map(String::as_str));
    out.push_str(&verdicts(&crate::verdict::sweep_lines(sweep)));
    out
}
