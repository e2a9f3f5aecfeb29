//! Results as Markdown, to paste into a patch description or a pull
//! request, or to publish beside CI charts: a provenance header, one table
//! per measure (levels as columns, policies as rows, `mean±stddev%` and the
//! change against the first level), the exactness line and the notes.

use super::measures::{
    RowLabels, measure_table, shown, shown_measures, table_measures, table_title, unique,
};
use super::{Document, Export, ExportError, Rendered};
use crate::compare::Comparison;
use crate::provenance::Provenance;
use crate::runner::{Measure, RunConfig, RunResults, StrategyResult};
use crate::stats::Summary;
use crate::sweep::SweepResults;
use crate::topology::CpuList;
use crate::verdict::Verdict;
use crate::verdict::basis::basis_lines;
use std::fmt::Write;

/// Writes `<kind>.md` for runs, sweeps and comparisons.
pub struct MarkdownExport;

impl Export for MarkdownExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let text = match doc {
            Document::Run(r) => run_markdown(r),
            Document::Sweep(s) => sweep_markdown(s),
            Document::Compare(c) => compare_markdown(c),
            _ => return Ok(Vec::new()),
        };
        Ok(vec![Rendered::new(format!("{}.md", doc.kind()), text)])
    }
}

/// A run (run.json) as Markdown.
pub fn run_markdown(run: &RunResults) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## contend run on {}{}\n",
        escape(&run.provenance.hostname),
        if run.partial {
            " (PARTIAL: interrupted)"
        } else {
            ""
        }
    );
    provenance_list(&mut out, &run.provenance);
    let _ = writeln!(out, "- **workload:** {}", workload(run));
    let _ = writeln!(out, "- **repeats:** {}", repeats_line(&run.config));
    out.push_str(&verdicts(&crate::verdict::run_lines(run)));
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
    let labels = RowLabels::new(run.strategies.iter());
    let levels = unique(run.strategies.iter().map(level_of));
    let resolution_ns = 2.0 * run.config.timer_overhead_ns;
    for m in table_measures(run) {
        let _ = writeln!(out, "\n#### {}\n", table_title(m, run.regime().is_paced()));
        let mut header = vec!["policy".to_string()];
        header.extend(levels.iter().cloned());
        let rows: Vec<Row> = unique(run.strategies.iter().map(|s| labels.label(s)))
            .into_iter()
            .map(|row| {
                let values = level_values(&run.strategies, &levels, m, |s| labels.label(s) == row);
                (vec![row], values)
            })
            .collect();
        out.push_str(&table(&header, &with_cells(m, rows, resolution_ns)));
    }
    for line in basis_lines(run) {
        let _ = writeln!(out, "\n{}", escape(&line));
    }
}

/// A sweep (sweep.json) as Markdown: the first point's provenance, then
/// one table per measure with a row per thread count, affinity set and
/// policy.
pub fn sweep_markdown(sweep: &SweepResults) -> String {
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

/// A Markdown table: a header row, the separator and one row per entry,
/// cells escaped.
pub fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(header);
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// `text` safe inside a table cell: pipes escaped, line breaks as spaces.
fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The header's provenance bullets: host, CPU, kernel, date, commit.
fn provenance_list(out: &mut String, p: &Provenance) {
    let _ = writeln!(out, "- **host:** {}", escape(&p.hostname));
    let _ = writeln!(
        out,
        "- **CPU:** {}{}",
        escape(&p.cpu_model),
        p.microcode
            .as_deref()
            .map_or(String::new(), |m| format!(" (microcode {})", escape(m)))
    );
    let _ = writeln!(out, "- **kernel:** Linux {}", escape(&p.kernel_release));
    let _ = writeln!(out, "- **date:** {}", escape(&p.started_utc));
    let _ = writeln!(
        out,
        "- **contend:** {}, commit `{}`",
        escape(&p.contend_version),
        escape(&p.git_commit)
    );
}

/// Who ran: writers, readers and where, as the text table says it.
fn workload(run: &RunResults) -> String {
    let cfg = &run.config;
    let nodes = |cpus: &[u32]| -> CpuList {
        cpus.iter()
            .filter_map(|&c| run.topology.node_of_cpu(c))
            .collect()
    };
    let writers = format!(
        "{} writers on CPUs {} (nodes {})",
        cfg.writer_cpus.len(),
        cfg.writer_cpus.iter().copied().collect::<CpuList>(),
        nodes(&cfg.writer_cpus)
    );
    let readers = if !cfg.reader_cpus.is_empty() {
        format!(
            ", {} readers on CPUs {} (nodes {})",
            cfg.reader_cpus.len(),
            cfg.reader_cpus.iter().copied().collect::<CpuList>(),
            nodes(&cfg.reader_cpus)
        )
    } else {
        match cfg.read_every {
            0 => ", no read side".to_string(),
            1 => ", each running the read side after every update".to_string(),
            k => format!(", each running the read side every {k} updates"),
        }
    };
    writers + &readers
}

fn repeats_line(cfg: &RunConfig) -> String {
    format!(
        "{} × {:.0} ms per strategy (+{:.0} ms warm-up); cells are mean±stddev% over repeats, \
         with the change against the first level",
        cfg.repeats,
        cfg.repeat_duration_s * 1e3,
        cfg.warmup_s * 1e3
    )
}

fn level_of(s: &StrategyResult) -> String {
    s.strategy.level.name().to_string()
}

/// A table row before its cells are formatted: its leading cells, and the
/// measure's value at each level.
type Row = (Vec<String>, Vec<Option<Summary>>);

/// The measure's value at each level for the strategy `in_row` picks.
fn level_values(
    strategies: &[StrategyResult],
    levels: &[String],
    m: &Measure,
    in_row: impl Fn(&StrategyResult) -> bool,
) -> Vec<Option<Summary>> {
    levels
        .iter()
        .map(|level| {
            strategies
                .iter()
                .find(|s| in_row(s) && level_of(s) == *level)
                .and_then(|s| m.of(s))
        })
        .collect()
}

/// The rows with their level cells formatted: the value, and the change
/// against the row's first level in parentheses (`n.s.` when the table's
/// statistics do not support it).
fn with_cells(m: &Measure, rows: Vec<Row>, resolution_ns: f64) -> Vec<Vec<String>> {
    let values: Vec<Vec<Option<Summary>>> = rows.iter().map(|(_, v)| v.clone()).collect();
    rows.into_iter()
        .zip(measure_table(m, &values, resolution_ns))
        .map(|((mut line, _), cells)| {
            line.extend(cells.into_iter().map(|c| match c.change_pct {
                Some(_) => format!("{} ({})", c.value, c.change_text()),
                None => c.value,
            }));
            line
        })
        .collect()
}

fn exactness<'a>(out: &mut String, strategies: impl Iterator<Item = &'a StrategyResult>) {
    let mut repeats = 0;
    let mut wrong = Vec::new();
    for s in strategies {
        repeats += s.repeats.len();
        if !s.exact && !wrong.contains(&s.name) {
            wrong.push(s.name.clone());
        }
    }
    if wrong.is_empty() {
        let _ = writeln!(out, "**Exact sums:** all {repeats} repeats exact.");
    } else {
        let _ = writeln!(
            out,
            "**Exact sums: WRONG** for {}.",
            escape(&wrong.join(", "))
        );
    }
}

fn notes<'a>(out: &mut String, notes: impl Iterator<Item = &'a str>) {
    let mut first = true;
    for note in notes {
        if first {
            out.push_str("\nNotes:\n\n");
            first = false;
        }
        let _ = writeln!(out, "- {}", escape(note));
    }
}

/// The comparison as Markdown: the two sources and the verdict rule, then
/// one table with a row per pair and measure (its change cell holds the
/// verdict, the change and its 95% CI; its p the Holm-adjusted p).
pub fn compare_markdown(c: &Comparison) -> String {
    let mut out = String::from("## contend compare\n\n");
    let _ = writeln!(out, "- **base:** {}", c.base.describe(true));
    let _ = writeln!(out, "- **test:** {}", c.test.describe(true));
    let _ = writeln!(out, "- **verdict:** {}", c.rule());
    let _ = writeln!(out, "- **p:** {}", c.p_note());
    for w in &c.warnings {
        let _ = writeln!(out, "\n> **warning:** {w}");
    }
    out.push('\n');
    let header: Vec<String> = ["configuration", "measure", "base", "test", "change", "p"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    let rows: Vec<Vec<String>> = c
        .pairs
        .iter()
        .flat_map(|p| {
            let title = p.title(c.has_regimes());
            p.rows.iter().map(move |r| {
                vec![
                    title.clone(),
                    r.measure.short.to_string(),
                    shown(r.base, r.measure.decimals),
                    shown(r.test, r.measure.decimals),
                    format!("{} {}", r.verdict(), r.change_text())
                        .trim_end()
                        .to_string(),
                    r.p_text(),
                ]
            })
        })
        .collect();
    out.push_str(&table(&header, &rows));
    let footer = compare_footer(c, |names| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    });
    if !footer.is_empty() {
        out.push('\n');
    }
    for line in footer {
        let _ = writeln!(out, "- {line}");
    }
    out
}

/// The strategies left unmatched, what `n<2` means and which figures a
/// file did not record, if any: one line each, `list` formatting the
/// names.
pub(super) fn compare_footer(c: &Comparison, list: impl Fn(&[String]) -> String) -> Vec<String> {
    let mut lines = Vec::new();
    if !c.only_base.is_empty() {
        lines.push(format!(
            "only in base (not compared): {}",
            list(&c.only_base)
        ));
    }
    if !c.only_test.is_empty() {
        lines.push(format!(
            "only in test (not compared): {}",
            list(&c.only_test)
        ));
    }
    if c.any_untested() {
        lines.push(
            "n<2: a side has fewer than 2 repeats, so there is no spread to test a difference against"
                .to_string(),
        );
    }
    lines.extend(c.notes.iter().cloned());
    lines
}

/// A **Verdict** heading, then each `verdict: …` line as its own
/// paragraph (so each stays on its own line when rendered).
fn verdicts(lines: &[Verdict]) -> String {
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
