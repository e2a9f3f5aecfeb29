//! `contend compare` as Markdown: the two sources and the rule, then one table with a row per pair
//! and measure.

use super::{escape, table};
use crate::compare::Comparison;
use std::fmt::Write;

/// The comparison as Markdown: the two sources and the verdict rule, then one table with a row per
/// pair and measure.
pub(super) fn render(c: &Comparison) -> String {
    let mut out = String::from("## contend compare\n\n");
    let _ = writeln!(out, "- **base:** {}", escape(&c.base.describe()));
    let _ = writeln!(out, "- **test:** {}", escape(&c.test.describe()));
    let _ = writeln!(out, "- **verdict:** {}", c.rule());
    let _ = writeln!(out, "- **p:** {}", c.p_note());
    for w in &c.warnings {
        let _ = writeln!(out, "\n> **warning:** {}", escape(w));
    }
    out.push('\n');
    let header = ["configuration", "measure", "base", "test", "change", "p"].map(String::from);
    let rows: Vec<Vec<String>> = (c.pairs.iter())
        .flat_map(|p| {
            let title = c.title(p);
            p.rows.iter().map(move |r| {
                let [base, test] = r.figures();
                let change = format!("{} {}", r.verdict(), r.change_text());
                let measure = r.measure.short.to_string();
                let change = change.trim_end().to_string();
                vec![title.clone(), measure, base, test, change, r.p_text()]
            })
        })
        .collect();
    out.push_str(&table(&header, &rows));
    let footer = c.footer();
    if !footer.is_empty() {
        out.push('\n');
    }
    out + &footer
        .iter()
        .map(|l| format!("- {}\n", escape(l)))
        .collect::<String>()
}
