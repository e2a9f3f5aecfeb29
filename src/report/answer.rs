//! `verdict:` lines ([`crate::answer`]) as text and as Markdown, for the
//! end of the text table and of the Markdown export.

use crate::answer::Line;

/// One `verdict: …` line each.
pub fn text(lines: &[Line]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A **Verdict** heading, then each `verdict: …` line as its own
/// paragraph (so each stays on its own line when rendered).
pub fn markdown(lines: &[Line]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n**Verdict**\n");
    for l in lines {
        out.push('\n');
        out.push_str(&l.to_string().replace(['\n', '\r'], " "));
        out.push('\n');
    }
    out
}
