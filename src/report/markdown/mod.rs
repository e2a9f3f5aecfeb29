//! Results as Markdown, to paste into a patch description or a pull request, or to publish beside
//! CI charts: a provenance header, one table per measure (levels as columns, policies as rows,
//! `mean±CI%` and the change against the first level), the exactness line and the notes.

use super::measures::{GridRow, StrategyGrid, TableCell};
mod compare;
mod gallery;
mod run;
mod sweep;

use super::{Document, Rendered, plain};
use crate::provenance::Provenance;
use crate::runner::{Measure, RunResults, Stopped, StrategyResult};
use crate::verdict::{Headline, Verdict};
use std::fmt::Write;

/// `<kind>.md` for runs, sweeps, comparisons and galleries.
pub(super) fn files(doc: &Document) -> Vec<Rendered> {
    let text = match doc {
        Document::Run(r) => run::render(r),
        Document::Sweep(s) => sweep::render(s),
        Document::Compare(c, _) => compare::render(c),
        Document::Gallery(g) => gallery::render(g),
        _ => return Vec::new(),
    };
    vec![Rendered::new(format!("{}.md", doc.kind()), text)]
}

/// A Markdown table: a header row, the separator and one row per entry.
pub fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
    let mut out = line(header);
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// The characters that start Markdown markup inside a line, and the backslash that escapes them:
/// [`escape`] puts a backslash before each.
const MARKUP: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '&'];

/// An untrusted string read from a result file as Markdown that reads as itself wherever it lands.
pub(super) fn escape(text: &str) -> String {
    let line = crate::report::plain(text);
    let chars: Vec<char> = line.trim().chars().collect();
    let digits = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    let block = |i: usize| match (chars[i], chars.get(i + 1)) {
        ('#', _) => i == 0,
        ('-' | '+', Some(&next)) => i == 0 && (next == ' ' || next == chars[0]),
        ('.' | ')', next) => digits > 0 && i == digits && next.is_none_or(|n| *n == ' '),
        _ => false,
    };
    let mut out = String::with_capacity(chars.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if MARKUP.contains(&c) || block(i) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The heading (`## contend run on HOST`, and whether it stopped early), then the provenance
/// bullets: host, CPU, kernel, date, commit.
pub(super) fn heading(what: &str, stopped: Option<Stopped>, p: &Provenance) -> String {
    let host = escape(&p.hostname);
    let stopped = stopped.map_or(String::new(), |why| format!(" (PARTIAL: {why})"));
    let mut out = format!("## contend {what} on {host}{stopped}\n\n- **host:** {host}\n");
    let microcode = p
        .microcode
        .as_deref()
        .map(|m| format!(" (microcode {})", escape(m)));
    let cpu = escape(&p.cpu_model) + &microcode.unwrap_or_default();
    let _ = writeln!(out, "- **CPU:** {cpu}");
    let _ = writeln!(out, "- **kernel:** Linux {}", escape(&p.kernel_release));
    let _ = writeln!(out, "- **date:** {}", escape(&p.started_utc));
    let (version, commit) = (escape(&p.contend_version), escape(&p.git_commit));
    let _ = writeln!(out, "- **contend:** {version}, commit {commit}");
    out
}

/// The repeats behind a run's tables.
pub(super) fn repeats_line(run: &RunResults) -> String {
    let (repeats, cfg) = (run.repeats_text(), &run.config);
    let (ms, warmup) = (cfg.repeat_duration_s * 1e3, cfg.warmup_s * 1e3);
    format!(
        "{repeats} × {ms:.0} ms per strategy (+{warmup:.0} ms warm-up); cells are mean ± the half-width of its 95% CI, \
         with the change against the first level"
    )
}

/// Every table of `m` over `grid`.
pub(super) fn grid_table(m: &Measure, grid: &StrategyGrid) -> String {
    let keys = grid.key_headers.iter().map(|h| h.to_string());
    let header: Vec<String> = keys.chain(grid.levels.iter().cloned()).collect();
    let cell = |c: TableCell| match c.change_pct {
        Some(_) => format!("{} ({})", c.value, c.change_text()),
        None => c.value,
    };
    // A sweep's keys hold its affinity sets' names, from the file.
    let row = |(row, cells): (&GridRow, Vec<TableCell>)| {
        let keys = row.keys.iter().map(|k| escape(k));
        keys.chain(cells.into_iter().map(cell)).collect()
    };
    let rows: Vec<Vec<String>> = grid.rows.iter().zip(grid.cells(m)).map(row).collect();
    table(&header, &rows)
}

pub(super) fn exactness<'a>(
    out: &mut String,
    strategies: impl Iterator<Item = &'a StrategyResult>,
) {
    let _ = match super::exactness(strategies.map(|s| (s, s.name.clone()))) {
        Ok(repeats) => writeln!(out, "**Exact sums:** all {repeats} repeats exact."),
        Err(wrong) => {
            let wrong = escape(&crate::runner::first_seen(wrong).join(", "));
            writeln!(out, "**Exact sums: WRONG** for {wrong}.")
        }
    };
}

pub(super) fn notes<'a>(out: &mut String, notes: impl Iterator<Item = &'a str>) {
    let mut notes = notes.peekable();
    if notes.peek().is_some() {
        out.push_str("\nNotes:\n\n");
    }
    notes.for_each(|note| out.push_str(&format!("- {}\n", escape(note))));
}

/// How a verdict reaches Markdown: [`escape`] where it holds text from the file, else
/// [`crate::report::plain`] (contend's own text, on one line, not escaped).
pub(super) type Text = fn(&str) -> String;

/// The headline, contend's own words ([`crate::report::plain`]): the answer in bold, then the rest
/// of it and the flat-out sentence, each its own paragraph.
pub(super) fn headline(h: &Headline) -> String {
    let rest = h.more.iter().chain(&h.flat_out).map(|s| plain(s));
    let paragraphs = std::iter::once(format!("**{}**", plain(&h.answer))).chain(rest);
    paragraphs
        .map(|p| format!("\n{}\n", paragraph(&p)))
        .collect()
}

/// A **Verdict** heading, then each `verdict: …` line once, with each test's 95% interval and
/// Holm-adjusted p, as its own paragraph, through `text`.
pub(super) fn verdicts(lines: &[Verdict], text: Text) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let head = "\n**Verdict**\n\nEach change with its 95% interval and Holm-adjusted p.\n";
    let each = lines
        .iter()
        .map(|l| format!("\n{}\n", paragraph(&text(&l.to_string()))));
    each.fold(head.to_string(), |out, l| out + &l)
}

/// `text` as a Markdown paragraph of lines of at most 72 columns.
fn paragraph(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let numbered = word.len() > 1
            && word.ends_with(['.', ')'])
            && word[..word.len() - 1].chars().all(|c| c.is_ascii_digit());
        let opens_block = numbered
            || word.starts_with(['#', '>', '|'])
            || word.chars().all(|c| "-+*=".contains(c));
        match lines.last_mut() {
            Some(line) if opens_block || line.chars().count() + 1 + word.chars().count() <= 72 => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_neutralises_every_markup_character_and_block_start() {
        assert_eq!(
            escape("evil<img src=x onerror=alert(1)>"),
            "evil\\<img src=x onerror=alert(1)\\>"
        );
        assert_eq!(
            escape("[link](http://x) `c` *b* _i_ ~s~ a|b &lt; \\"),
            "\\[link\\](http://x) \\`c\\` \\*b\\* \\_i\\_ \\~s\\~ a\\|b \\&lt; \\\\"
        );
        // Control characters dropped, line breaks as spaces.
        assert_eq!(escape("red\u{1b}[31m\u{7}\r\nnext\u{9b}"), "red\\[31m next");
        // What would open a block at a line's start, and only there.
        for (raw, escaped) in [
            ("# h", "\\# h"),
            ("- item", "\\- item"),
            ("+ item", "\\+ item"),
            ("---", "\\---"),
            ("12. item", "12\\. item"),
            ("3)", "3\\)"),
        ] {
            assert_eq!(escape(raw), escaped, "{raw}");
        }
        for same in [
            "-",
            "-43.9%",
            "+5.0% n.s.",
            "20.0±0.01%",
            "6.1.0-13-amd64",
            "a # b",
        ] {
            assert_eq!(escape(same), same);
        }
    }
}
