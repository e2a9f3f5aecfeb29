//! Text for a terminal, one module per kind of result.

mod check;
mod compare;
mod gallery;
mod inferred;
mod matrix;
mod plan;
mod predict;
mod run;
mod spread;
mod study;
mod sweep;
mod topology;
mod verify;

pub use compare::record_text;
pub use plan::{matrix_plan as matrix_plan_text, run_plan as run_plan_text};
pub(crate) use predict::{Cell, node_cells, strategy_cells};
pub use run::{render as run_text, verbose as run_tables};

use super::{Document, Rendered, plain};
use crate::verdict::Detail;

/// `<kind>.txt`: what each command prints.
pub(super) fn files(doc: &Document) -> Vec<Rendered> {
    let text = match doc {
        Document::Run(r) => run::render(r),
        Document::Sweep(s) => sweep::render(s),
        Document::Matrix(m) => matrix::render(m),
        Document::Compare(c, Detail::Brief) => compare::patch_table(c),
        Document::Compare(c, Detail::Full) => compare::every_measure(c),
        Document::Verify(v) => verify::render(v),
        Document::Topology(t) => topology::render(t),
        Document::Spread(s) => spread::render(s),
        Document::Predict(p) => predict::render(p),
        Document::Check(c) => check::render(c),
        Document::StudyPlan(p) => study::render_plan(p),
        Document::Study(s) => study::render(s),
        Document::Gallery(g) => gallery::render(g),
    };
    vec![Rendered::new(format!("{}.txt", doc.kind()), text)]
}

/// Each of `lines` as plain text on a line of its own (`verdict: …` lines, a headline's sentences).
pub(super) fn lines<T: ToString>(lines: impl IntoIterator<Item = T>) -> String {
    lines
        .into_iter()
        .map(|l| plain(&l.to_string()) + "\n")
        .collect()
}

/// Each of `notes` as plain text on a `note: …` line.
pub(super) fn notes(notes: &[String]) -> String {
    lines(notes.iter().map(|n| format!("note: {n}")))
}

/// Width a line of text is kept to where it can be: what fits a commit message.
pub const WIDTH: usize = 72;

/// `text` as lines of at most [`WIDTH`] columns, broken at spaces, each line after the first
/// indented two spaces; ends with a newline.
pub(super) fn wrapped(text: &str) -> String {
    let lines = super::wrap(text, WIDTH - 2);
    lines.join("\n  ") + "\n"
}

/// `cells` two spaces apart, each padded to its width in `widths` on the left where `right` says
/// so, else on the right.
pub(super) fn columns(cells: &[impl AsRef<str>], widths: &[usize], right: &[bool]) -> String {
    let padded = cells.iter().zip(widths).zip(right).map(|((c, &w), &r)| {
        let c = c.as_ref();
        if r {
            format!("{c:>w$}")
        } else {
            format!("{c:<w$}")
        }
    });
    padded.collect::<Vec<_>>().join("  ")
}

/// A table row of these words.
pub(super) fn head(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// Left-aligned columns three spaces apart, trailing blanks trimmed.
pub(super) fn align(table: &[Vec<String>]) -> String {
    let mut widths = vec![0; table.iter().map(Vec::len).max().unwrap_or(0)];
    for (i, c) in table.iter().flat_map(|r| r.iter().enumerate()) {
        widths[i] = widths[i].max(c.chars().count());
    }
    let pad = |(c, w): (&String, &usize)| format!("{c:<w$}   ");
    let line = |row: &Vec<String>| row.iter().zip(&widths).map(pad).collect::<String>();
    let lines = table.iter().map(|r| line(r).trim_end().to_string());
    lines.map(|l| l + "\n").collect()
}
