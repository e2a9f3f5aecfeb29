//! `contend compare` as aligned text, one block per pair of strategies, in
//! the seeds' format (`base: 90569±1.15%   test: 104152±0.34%`) with the
//! verdict, the change and its 95% CI, and the Holm-adjusted p-value
//! (`faster   +15.0% [+13.1%, +16.9%]   p<0.001`).

use crate::compare::Comparison;
use crate::report::measures::shown;
use crate::report::plain;
use std::fmt::Write;

/// The comparison as aligned text, one block per pair.
pub fn compare_text(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "base: {}", plain(&c.base.describe()));
    let _ = writeln!(out, "test: {}", plain(&c.test.describe()));
    let _ = writeln!(out, "verdict: {}", c.rule());
    let _ = writeln!(out, "p: {}", c.p_note());
    let blocks: Vec<(String, Vec<[String; 6]>)> = c
        .pairs
        .iter()
        .map(|p| {
            let rows = p
                .rows
                .iter()
                .map(|r| {
                    [
                        r.measure.short.to_string(),
                        format!("base: {}", shown(r.base, r.measure.decimals)),
                        format!("test: {}", shown(r.test, r.measure.decimals)),
                        r.verdict(),
                        r.change_text(),
                        r.p_text(),
                    ]
                })
                .collect();
            (p.title(c.has_regimes()), rows)
        })
        .collect();
    let mut widths = [0usize; 6];
    for row in blocks.iter().flat_map(|(_, rows)| rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for (title, rows) in &blocks {
        let _ = writeln!(out, "\n{title}");
        for row in rows {
            let mut line = String::from("  ");
            for (cell, w) in row.iter().zip(widths) {
                line.push_str(cell);
                line.push_str(&" ".repeat(w - cell.chars().count() + 3));
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out.push('\n');
    for line in c.footer() {
        let _ = writeln!(out, "{}", plain(&line));
    }
    out
}
