//! gallery.md: the headline, a row per host, the files left out, every file name escaped.

use super::{escape, table};
use crate::predict::gallery::Gallery;
use crate::report::gallery::{header, row};
use crate::units::si;
use crate::verdict::gallery_headline;
use std::fmt::Write;

/// The gallery as Markdown.
pub fn render(g: &Gallery) -> String {
    let headline = escape(&gallery_headline(g));
    let mut out =
        format!("# Published hosts: where the cost jumps and which fix wins\n\n**{headline}**\n\n");
    let _ = writeln!(
        out,
        "{} hosts from core-to-core-latency matrices in {}; layout inferred from each matrix alone (`contend predict --host FILE.csv`), the default comparison predicted at {}/s per CPU, every CPU writing and reading after each update; net ns per update, the range from the class latencies' spread.\n",
        g.hosts.len(),
        escape(&g.source),
        si(g.rate)
    );
    // The file name comes from the folder: escaped; every other cell is contend's own numbers and
    // names.
    let escaped = |mut r: Vec<String>| {
        r[0] = escape(&r[0]);
        r
    };
    let rows: Vec<Vec<String>> = g.hosts.iter().map(|h| escaped(row(h))).collect();
    out.push_str(&table(&header(g), &rows));
    if !g.skipped.is_empty() {
        out.push_str("\nLeft out:\n\n");
    }
    let skipped = g.skipped.iter();
    out + &skipped
        .map(|s| format!("- {}: {}\n", escape(&s.file), escape(&s.reason)))
        .collect::<String>()
}
