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

pub use compare::{compare_text, record_text};
pub use plan::{matrix_plan as matrix_plan_text, run_plan as run_plan_text};
pub use run::{render as run_text, verbose as run_tables};

use super::{Document, Export, ExportError, Rendered, plain};
use crate::verdict::{Headline, Verdict};

/// Writes `<kind>.txt`: what each command prints.
pub struct TextExport;

impl Export for TextExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let text = match doc {
            Document::Run(r) => run::render(r),
            Document::Sweep(s) => sweep::render(s),
            Document::Matrix(m) => matrix::render(m),
            Document::Compare(c, detail) => compare::compare_text(c, *detail),
            Document::Verify(v) => verify::render(v),
            Document::Topology(t) => topology::render(t),
            Document::Spread(s) => spread::render(s),
            Document::Predict(p) => predict::render(p),
            Document::Check(c) => check::render(c),
            Document::StudyPlan(p) => study::render_plan(p),
            Document::Study(s) => study::render(s),
            Document::Gallery(g) => gallery::render(g),
        };
        Ok(vec![Rendered::new(format!("{}.txt", doc.kind()), text)])
    }
}

/// One `verdict: …` line each, for the end of a result's text.
pub(super) fn verdicts(lines: &[Verdict]) -> String {
    lines.iter().map(|l| plain(&l.to_string()) + "\n").collect()
}

/// `verdict:` lines in their brief form ([`Verdict::brief_text`]).
pub(super) fn brief_verdicts(lines: &[Verdict]) -> String {
    lines
        .iter()
        .map(|l| format!("verdict: {}\n", plain(l.brief_text())))
        .collect()
}

/// The headline's sentences, one line each.
pub(super) fn headline(h: &Headline) -> String {
    h.sentences().iter().map(|s| plain(s) + "\n").collect()
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
        let pad = " ".repeat(w.saturating_sub(c.chars().count()));
        if r { pad + c } else { format!("{c}{pad}") }
    });
    padded.collect::<Vec<_>>().join("  ")
}

/// Left-aligned columns three spaces apart, trailing blanks trimmed.
pub(super) fn align(table: &[Vec<String>]) -> String {
    let cols = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            table
                .iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            line.push_str(cell);
            line.push_str(&" ".repeat(pad + 3));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
