//! `contend compare` as text: by default the patch table, within [`WIDTH`] columns, per regime each
//! strategy's cost, change and verdict; `--verbose`, every compared measure of every pair in the
//! seeds' format.

use super::{WIDTH, columns, wrapped};
use crate::compare::{Comparison, HostRecord, MeasureRow, Pair, Side};
use crate::report::plain;
use crate::runner::{RunResults, StrategyResult, cost_measure};
use crate::stats::Summary;
use crate::workload::Regime;
use std::fmt::Write;

/// One row of the patch table: a strategy, its figure and, for a test strategy, its change and
/// verdict.
type PatchRow = [String; 5];

/// The row of `strategy` of `run`, whose cost is `summary`.
fn patch_row(
    run: &RunResults,
    strategy: &StrategyResult,
    summary: Option<Summary>,
    decimals: usize,
    row: Option<&MeasureRow>,
    runs: bool,
) -> PatchRow {
    // Across runs n counts runs; within one, repeats and those set aside.
    let set_aside = strategy.summary.as_ref().filter(|_| !runs);
    let set_aside = set_aside.map_or(0, |s| s.set_aside);
    // One repeat gives no interval (the n column says why), nor does one run a side without a
    // host's record.
    let figure = |s: Summary| match s.ci95_high - s.mean {
        half if half > 0.0 => format!("{:.decimals$} ±{half:.decimals$}", s.mean),
        _ => format!("{:.decimals$}", s.mean),
    };
    let n = |s: Summary| match set_aside {
        0 => s.n.to_string(),
        k => format!("{}+{k}", s.n),
    };
    let (figure, n) = summary.map_or(("-".into(), "-".into()), |s| (figure(s), n(s)));
    let (change, verdict) = match row.map(|r| (r.measure, r.outcome)) {
        None => ("base".to_string(), String::new()),
        Some((_, None)) => (String::new(), "not recorded".to_string()),
        Some((m, Some(o))) => (
            o.change_pm_text(m.unit.symbol()),
            o.word(m.direction).into(),
        ),
    };
    [plain(&run.short_name(strategy)), figure, n, change, verdict]
}

/// The patch table's first lines: what is compared, in one run (its selectors and file) or between
/// two sides (each named, with its runs).
fn heading(c: &Comparison, one_file: bool) -> String {
    let mut out = String::new();
    if one_file {
        let tests: Vec<String> = c.test.selectors.iter().map(|s| plain(s)).collect();
        let path = plain(&c.base.path.display().to_string());
        let what = match (c.base.selectors.first(), tests.is_empty()) {
            (Some(b), false) => format!("{} against {}", plain(b), tests.join(", ")),
            _ => "every strategy".to_string(),
        };
        out.push_str(&wrapped(&format!("contend compare: {what}")));
        out.push_str(&wrapped(&format!("in {path}")));
    } else {
        for (label, side) in [("base", &c.base), ("test", &c.test)] {
            let n = match side.runs.len() {
                1 => String::new(),
                n => format!(" ({n} runs)"),
            };
            let path = plain(&side.path.display().to_string());
            out.push_str(&wrapped(&format!("{label}: {path}{n}")));
        }
    }
    out
}

/// The patch table: a section per regime, the base strategy then each test strategy compared with
/// it, every line within [`WIDTH`] (a name too long for one line takes a line of its own).
pub(super) fn patch_table(c: &Comparison) -> String {
    let runs = c.across_runs;
    let one_file = c.base.path == c.test.path && !runs;
    let mut out = heading(c, one_file);
    for regime in crate::runner::first_seen(c.pairs.iter().map(|p| p.base.regime)) {
        let pairs: Vec<&Pair> = c.pairs.iter().filter(|p| p.base.regime == regime).collect();
        // The cost measure's row of a pair is its first ([`crate::compare::compared_measures`]).
        let m = pairs[0].rows[0].measure;
        out.push('\n');
        let what = format!("{regime}: {} ±95% CI ({})", m.short, m.direction.words());
        out.push_str(&wrapped(&what));
        let mut rows =
            vec![["strategy", m.unit.symbol(), "n", "change", "verdict"].map(String::from)];
        let of = |run, s, summary, row| patch_row(run, s, summary, m.decimals, row, runs);
        let mut last_base: Option<&StrategyResult> = None;
        for p in pairs {
            let row = &p.rows[0];
            if last_base.is_none_or(|b| !std::ptr::eq(b, p.base)) {
                rows.push(of(c.base.run, p.base, row.base, None));
                last_base = Some(p.base);
            }
            rows.push(of(c.test.run, p.test, row.test, Some(row)));
        }
        out.push_str(&layout(&rows));
    }
    out.push('\n');
    let mut sides = c.pairs.iter().flat_map(|p| [p.base, p.test]);
    let set_aside = sides.any(|s| s.summary.as_ref().is_some_and(|m| m.set_aside > 0));
    if runs {
        out.push_str(&wrapped("n: runs, each the mean of its repeats"));
    } else if set_aside {
        out.push_str(&wrapped("n: repeats used; +k: disturbed repeats set aside (the canary moved, or threads stalled), kept in the result file"));
    }
    let rule = c.rule_brief();
    out.push_str(&wrapped(&format!(
        "change: against the base, ±95% CI; verdict: {rule}"
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
        let (host, cpu, kernel) = (&p.hostname, &p.cpu_model, &p.kernel_release);
        let host = format!("{label}host: {host}, {cpu}, Linux {kernel}");
        out.push_str(&wrapped(&plain(&host)));
        let when = match side.runs.as_slice() {
            [_, .., (_, last)] if !one_file => {
                format!("runs: {} to {}", p.started_utc, last.provenance.started_utc)
            }
            _ => format!("run: {}", p.started_utc),
        };
        let (version, commit) = (&p.contend_version, &p.git_commit);
        out.push_str(&wrapped(&plain(&format!(
            "{label}{when}, contend {version} ({commit})"
        ))));
    }
    out
}

/// `rows` (the header first) as aligned columns within [`WIDTH`], the name left and the numbers
/// right; a longer name takes a line of its own.
fn layout(rows: &[PatchRow]) -> String {
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max();
    let w: Vec<usize> = (0..5).map(|i| width(i).unwrap_or(0)).collect();
    let numbers = |r: &PatchRow| {
        let widths = [w[1], w[2], w[3], 0];
        columns(&r[1..], &widths, &[true, true, false, false])
    };
    let rest = w[1] + 2 + w[2] + 2 + w[3] + 2 + w[4];
    let name_width = w[0].min(WIDTH.saturating_sub(rest + 2));
    let mut out = String::new();
    for r in rows {
        let name = &r[0];
        let line = if name.chars().count() <= name_width {
            format!("{name:<name_width$}  {}", numbers(r))
        } else {
            format!("{name}\n{:name_width$}  {}", "", numbers(r))
        };
        for l in line.lines() {
            let _ = writeln!(out, "{}", l.trim_end());
        }
    }
    out
}

/// Every compared measure of every pair, one block per pair.
pub(super) fn every_measure(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "base: {}", plain(&c.base.describe()));
    let _ = writeln!(out, "test: {}", plain(&c.test.describe()));
    let _ = writeln!(out, "verdict: {}", c.rule());
    let _ = writeln!(out, "p: {}", c.p_note());
    // Each row's cells, and the run-level line under a judged one.
    type Row = ([String; 6], Option<String>);
    let row = |r: &MeasureRow| {
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
    };
    let block = |p: &Pair| (c.title(p), p.rows.iter().map(row).collect::<Vec<Row>>());
    let blocks: Vec<(String, Vec<Row>)> = c.pairs.iter().map(block).collect();
    let mut widths = [0usize; 6];
    for (row, _) in blocks.iter().flat_map(|(_, rows)| rows) {
        widths = std::array::from_fn(|i| widths[i].max(row[i].chars().count()));
    }
    for (title, rows) in &blocks {
        let _ = writeln!(out, "\n{}", plain(title));
        for (row, runs) in rows {
            let cells = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}   "));
            let line = format!("  {}", cells.collect::<String>());
            let _ = writeln!(out, "{}", line.trim_end());
            if let Some(runs) = runs {
                let _ = writeln!(out, "    {runs}");
            }
        }
    }
    out + "\n" + &super::lines(c.footer())
}

/// A host's record of identical runs as text.
pub fn record_text(record: &HostRecord) -> String {
    let mut out = String::new();
    let p = &record.provenance;
    let (n, host, cpu) = (record.runs.len(), &p.hostname, &p.cpu_model);
    out.push_str(&wrapped(&plain(&format!(
        "host record: {n} runs on {host} ({cpu}): how far a run's mean moves from run to run"
    ))));
    let mut rows =
        vec![["strategy", "regime", "mean", "run to run", "between runs"].map(String::from)];
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
                .map_or("-".into(), |b| format!("{:.0}%", 100.0 * b)),
        ]);
    }
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..5).map(width).collect();
    let right = [false, false, true, true, true];
    out.extend(rows.iter().map(|r| columns(r, &widths, &right) + "\n"));
    out.push_str(&wrapped(
        "run to run: the standard deviation of the runs' means (each adjusted to the same line cost); between runs: its share not explained by each run's own repeats",
    ));
    out
}
