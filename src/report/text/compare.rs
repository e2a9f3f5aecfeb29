//! `contend compare` as text: by default the patch table, within [`WIDTH`] columns, per regime each
//! strategy's cost, change and verdict; `--verbose`, every compared measure of every pair in the
//! seeds' format.

use super::{WIDTH, columns, wrapped};
use crate::compare::{Comparison, HostRecord, MeasureRow, Pair, Replicates, Side};
use crate::report::plain;
use crate::runner::{RunResults, StrategyResult, cost_measure};
use crate::stats::Summary;
use crate::verdict::Detail;
use crate::workload::Regime;
use std::fmt::Write;

/// The comparison as text: the patch table ([`Detail::Brief`]) or every measure of every pair.
pub fn compare_text(c: &Comparison, detail: Detail) -> String {
    match detail {
        Detail::Brief => patch_table(c),
        Detail::Full => every_measure(c),
    }
}

/// One row of the patch table: a strategy, its figure and, for a test strategy, its change and
/// verdict.
struct PatchRow {
    name: String,
    figure: String,
    n: String,
    change: String,
    verdict: String,
}

impl PatchRow {
    /// The row of `strategy` of `run`, whose cost is `summary`.
    fn of(
        run: &RunResults,
        strategy: &StrategyResult,
        summary: Option<Summary>,
        decimals: usize,
        row: Option<&MeasureRow>,
        runs: bool,
    ) -> Self {
        // Across runs n counts runs; within one, repeats and those set aside.
        let set_aside = match runs {
            true => 0,
            false => strategy.summary.as_ref().map_or(0, |s| s.set_aside),
        };
        let (figure, n) = match summary {
            Some(s) => (
                // One repeat gives no interval (the n column says why), nor does one run a side
                // without a host's record.
                if s.ci95_high > s.mean {
                    format!("{:.decimals$} ±{:.decimals$}", s.mean, s.ci95_high - s.mean)
                } else {
                    format!("{:.decimals$}", s.mean)
                },
                match set_aside {
                    0 => s.n.to_string(),
                    k => format!("{}+{k}", s.n),
                },
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        let (change, verdict) = match row {
            None => ("base".to_string(), String::new()),
            Some(r) => match r.outcome {
                None => (String::new(), "not recorded".to_string()),
                Some(o) => (
                    o.change_pm_text(r.measure.unit.symbol()),
                    o.word(r.measure.direction).to_string(),
                ),
            },
        };
        PatchRow {
            name: plain(&run.short_name(strategy)),
            figure,
            n,
            change,
            verdict,
        }
    }

    fn cells(&self) -> [&str; 5] {
        [
            &self.name,
            &self.figure,
            &self.n,
            &self.change,
            &self.verdict,
        ]
    }
}

/// The cost measure's row of a pair (its first: [`crate::compare::compared_measures`]).
fn cost_row<'p>(p: &'p Pair) -> &'p MeasureRow {
    &p.rows[0]
}

/// The patch table's first lines: what is compared, in one run (its selectors and file) or between
/// two sides (each named, with its runs).
fn heading(c: &Comparison, one_file: bool) -> String {
    let mut out = String::new();
    if one_file {
        let tests: Vec<String> = c.test.selectors.iter().map(|s| plain(s)).collect();
        let what = match (c.base.selectors.first(), tests.is_empty()) {
            (Some(b), false) => format!("{} against {}", plain(b), tests.join(", ")),
            _ => "every strategy".to_string(),
        };
        out.push_str(&wrapped(&format!("contend compare: {what}")));
        out.push_str(&wrapped(&format!(
            "in {}",
            plain(&c.base.path.display().to_string())
        )));
    } else {
        for (label, side) in [("base", &c.base), ("test", &c.test)] {
            let n = match side.runs.len() {
                1 => String::new(),
                n => format!(" ({n} runs)"),
            };
            out.push_str(&wrapped(&format!(
                "{label}: {}{n}",
                plain(&side.path.display().to_string())
            )));
        }
    }
    out
}

/// The patch table: a section per regime, the base strategy then each test strategy compared with
/// it, every line within [`WIDTH`] (a name too long for one line takes a line of its own).
fn patch_table(c: &Comparison) -> String {
    let runs = c.replicates == Replicates::Runs;
    let one_file = c.base.path == c.test.path && !runs;
    let mut out = heading(c, one_file);
    let mut regimes: Vec<Regime> = Vec::new();
    for p in &c.pairs {
        if !regimes.contains(&p.base.regime) {
            regimes.push(p.base.regime);
        }
    }
    for regime in regimes {
        let pairs: Vec<&Pair> = c.pairs.iter().filter(|p| p.base.regime == regime).collect();
        let m = cost_row(pairs[0]).measure;
        out.push('\n');
        out.push_str(&wrapped(&format!(
            "{regime}: {} ±95% CI ({})",
            m.short,
            m.direction.words()
        )));
        let header = PatchRow {
            name: "strategy".into(),
            figure: m.unit.symbol().to_string(),
            n: "n".into(),
            change: "change".into(),
            verdict: "verdict".into(),
        };
        let mut rows = vec![header];
        let mut last_base: Option<&StrategyResult> = None;
        for p in pairs {
            let row = cost_row(p);
            if last_base.is_none_or(|b| !std::ptr::eq(b, p.base)) {
                rows.push(PatchRow::of(
                    c.base.run, p.base, row.base, m.decimals, None, runs,
                ));
                last_base = Some(p.base);
            }
            rows.push(PatchRow::of(
                c.test.run,
                p.test,
                row.test,
                m.decimals,
                Some(row),
                runs,
            ));
        }
        out.push_str(&layout(&rows));
    }
    out.push('\n');
    let set_aside = c
        .pairs
        .iter()
        .flat_map(|p| [p.base, p.test])
        .any(|s| s.summary.as_ref().is_some_and(|m| m.set_aside > 0));
    if runs {
        out.push_str(&wrapped("n: runs, each the mean of its repeats"));
    } else if set_aside {
        out.push_str(&wrapped("n: repeats used; +k: disturbed repeats set aside (the canary moved, or threads stalled), kept in the result file"));
    }
    out.push_str(&wrapped(&format!(
        "change: against the base, ±95% CI; verdict: {}",
        c.rule_brief()
    )));
    for line in c.footer() {
        out.push_str(&wrapped(&plain(&line)));
    }
    let sides: &[(&str, &Side)] = if one_file {
        &[("", &c.base)]
    } else {
        &[("base ", &c.base), ("test ", &c.test)]
    };
    for (label, side) in sides {
        let p = &side.run.provenance;
        out.push_str(&wrapped(&plain(&format!(
            "{label}host: {}, {}, Linux {}",
            p.hostname, p.cpu_model, p.kernel_release
        ))));
        let when = match side.runs.as_slice() {
            [_, .., (_, last)] if !one_file => {
                format!("runs: {} to {}", p.started_utc, last.provenance.started_utc)
            }
            _ => format!("run: {}", p.started_utc),
        };
        out.push_str(&wrapped(&plain(&format!(
            "{label}{when}, contend {} ({})",
            p.contend_version, p.git_commit
        ))));
    }
    out
}

/// `rows` (the header first) as aligned columns within [`WIDTH`], the name left and the numbers
/// right; a longer name takes a line of its own.
fn layout(rows: &[PatchRow]) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r.cells()[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..5).map(width).collect();
    let numbers = |r: &PatchRow| {
        let widths = [w[1], w[2], w[3], 0];
        columns(&r.cells()[1..], &widths, &[true, true, false, false])
    };
    let rest = w[1] + 2 + w[2] + 2 + w[3] + 2 + w[4];
    let name_width = w[0].min(WIDTH.saturating_sub(rest + 2));
    let mut out = String::new();
    for r in rows {
        let line = if r.name.chars().count() <= name_width {
            format!("{:<name_width$}  {}", r.name, numbers(r))
        } else {
            format!("{}\n{:name_width$}  {}", r.name, "", numbers(r))
        };
        for l in line.lines() {
            let _ = writeln!(out, "{}", l.trim_end());
        }
    }
    out
}

/// Every compared measure of every pair, one block per pair.
fn every_measure(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "base: {}", plain(&c.base.describe()));
    let _ = writeln!(out, "test: {}", plain(&c.test.describe()));
    let _ = writeln!(out, "verdict: {}", c.rule());
    let _ = writeln!(out, "p: {}", c.p_note());
    // Each row's cells, and the run-level line under a judged one.
    type Row = ([String; 6], Option<String>);
    let blocks: Vec<(String, Vec<Row>)> = c
        .pairs
        .iter()
        .map(|p| {
            let rows = p
                .rows
                .iter()
                .map(|r| {
                    let [base, test] = r.figures();
                    let row = [
                        r.measure.short.to_string(),
                        format!("base: {base}"),
                        format!("test: {test}"),
                        r.verdict(),
                        r.change_text(),
                        r.p_text(),
                    ];
                    (row, r.runs_text().filter(|_| r.judged))
                })
                .collect();
            (c.title(p), rows)
        })
        .collect();
    let mut widths = [0usize; 6];
    for (row, _) in blocks.iter().flat_map(|(_, rows)| rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for (title, rows) in &blocks {
        let _ = writeln!(out, "\n{}", plain(title));
        for (row, runs) in rows {
            let mut line = String::from("  ");
            for (cell, w) in row.iter().zip(widths) {
                line.push_str(cell);
                line.push_str(&" ".repeat(w - cell.chars().count() + 3));
            }
            let _ = writeln!(out, "{}", line.trim_end());
            if let Some(runs) = runs {
                let _ = writeln!(out, "    {runs}");
            }
        }
    }
    out.push('\n');
    for line in c.footer() {
        let _ = writeln!(out, "{}", plain(&line));
    }
    out
}

/// A host's record of identical runs as text.
pub fn record_text(record: &HostRecord) -> String {
    let mut out = String::new();
    let p = &record.provenance;
    out.push_str(&wrapped(&plain(&format!(
        "host record: {} runs on {} ({}): how far a run's mean moves from run to run",
        record.runs.len(),
        p.hostname,
        p.cpu_model
    ))));
    let mut rows = vec![[
        "strategy".to_string(),
        "regime".to_string(),
        "mean".to_string(),
        "run to run".to_string(),
        "between runs".to_string(),
    ]];
    for r in &record.spreads {
        if r.measure != cost_measure(r.regime).short {
            continue;
        }
        rows.push([
            plain(&r.short_name),
            match r.regime {
                Regime::FlatOut => "flat out".to_string(),
                paced => format!("{}/s", crate::units::si(paced.rate().unwrap_or(0.0))),
            },
            format!("{:.1} ns", r.mean),
            format!(
                "±{:.1} ns ({:.1}%)",
                r.run_sd,
                100.0 * r.run_sd / r.mean.abs()
            ),
            r.between_share
                .map_or("-".to_string(), |b| format!("{:.0}%", 100.0 * b)),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let right = [false, false, true, true, true];
        let _ = writeln!(out, "{}", columns(r, &widths, &right));
    }
    out.push_str(&wrapped(
        "run to run: the standard deviation of the runs' means (each adjusted to the same line cost); between runs: its share not explained by each run's own repeats",
    ));
    out
}
