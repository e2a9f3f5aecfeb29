//! `contend gallery` for a terminal: the headline, a row per host, the files left out.

use super::{align, plain};
use crate::predict::gallery::Gallery;
use crate::report::gallery::{header, row};
use crate::verdict::gallery_headline;
use std::fmt::Write;

/// Headline, table, skipped files.
pub fn render(g: &Gallery) -> String {
    let mut out = format!(
        "contend gallery: {} hosts from {}\n{}\n\n",
        g.hosts.len(),
        plain(&g.source),
        gallery_headline(g)
    );
    let mut table = vec![header(g)];
    table.extend(
        g.hosts
            .iter()
            .map(|h| row(h).into_iter().map(|c| plain(&c)).collect()),
    );
    out.push_str(&align(&table));
    for s in &g.skipped {
        let _ = writeln!(out, "skipped {}: {}", plain(&s.file), plain(&s.reason));
    }
    out
}
