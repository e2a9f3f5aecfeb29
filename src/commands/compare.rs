//! `contend compare`: two result files (or two sets of strategies in one)
//! side by side in the seeds' format, `base: 90569±1.15%   test:
//! 104152±0.34%   +15.0%`, with Welch's t-test on the repeats deciding
//! between the change and "no measurable difference".

use super::report::{ResultFile, check_out, emit, load};
use crate::CliError;
use crate::cli::CompareArgs;
use crate::provenance::Provenance;
use crate::report::markdown;
use crate::report::measures::{MEASURES, Measure, fmt_summary};
use crate::results::{RunResults, StrategyResult};
use crate::stats::{Difference, SIGNIFICANCE_LEVEL};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The measures set side by side: updates/s, read ops/s and each side's
/// ns/op (the first four of [`MEASURES`]).
fn compared_measures() -> &'static [Measure] {
    &MEASURES[..4]
}

pub(super) fn run(_root: &Path, args: &CompareArgs) -> Result<(), CliError> {
    check_out(args.out.as_deref(), args.force)?;
    let (base_path, base_run) = load_run(&args.base_file)?;
    let (test_path, test_run) = match &args.test_file {
        Some(path) => load_run(path)?,
        None if args.base.is_some() => (base_path.clone(), base_run.clone()),
        None => {
            return Err(CliError::usage(
                "compare needs two result files, or one with --base and --test",
            ));
        }
    };
    let base = Side {
        path: base_path,
        run: &base_run,
        selector: args.base.as_deref(),
    };
    let test = Side {
        path: test_path,
        run: &test_run,
        selector: args.test.as_deref(),
    };
    let comparison = Comparison::new(base, test)?;
    for w in &comparison.warnings {
        eprintln!("warning: {w}");
    }
    let text = if args.markdown {
        comparison.markdown()
    } else {
        comparison.text()
    };
    emit(&text, args.out.as_deref())
}

/// Loads a run.json; a sweep is refused.
fn load_run(path: &Path) -> Result<(PathBuf, RunResults), CliError> {
    match load(path)? {
        (file, ResultFile::Run(run)) => Ok((file, *run)),
        (file, ResultFile::Sweep(_)) => Err(CliError::usage(format!(
            "{} is a sweep; compare takes run.json files (contend report prints sweeps)",
            file.display()
        ))),
    }
}

/// One side of the comparison: a file and which of its strategies.
struct Side<'a> {
    path: PathBuf,
    run: &'a RunResults,
    /// `--base`/`--test`; `None` takes every strategy.
    selector: Option<&'a str>,
}

impl<'a> Side<'a> {
    /// The strategies the selector picks, each with its matching key.
    fn picked(&self) -> Vec<(String, &'a StrategyResult)> {
        self.run
            .strategies
            .iter()
            .filter_map(|s| Some((match_key(&s.name, self.selector)?, s)))
            .collect()
    }

    /// `path` (or `selector in path`) and where it ran; with `code`, the
    /// path and selector as Markdown code.
    fn describe(&self, code: bool) -> String {
        let p = &self.run.provenance;
        let quote = |s: String| if code { format!("`{s}`") } else { s };
        format!(
            "{}{}: contend {} ({}) on {} ({}), Linux {}, {}, {} repeat{}",
            self.selector
                .map_or(String::new(), |s| format!("{} in ", quote(s.to_string()))),
            quote(self.path.display().to_string()),
            p.contend_version,
            p.git_commit,
            p.hostname,
            p.cpu_model,
            p.kernel_release,
            p.started_utc,
            self.run.config.repeats,
            if self.run.config.repeats == 1 {
                ""
            } else {
                "s"
            }
        )
    }
}

/// The key a strategy is matched on: its name with the selector's
/// components replaced by `*` (`global/always/pad128` under `global` is
/// `*/always/pad128`), or the whole name without a selector. `None` when
/// the selector is not a run of the name's `/`-separated components.
fn match_key(name: &str, selector: Option<&str>) -> Option<String> {
    let Some(selector) = selector else {
        return Some(name.to_string());
    };
    let parts: Vec<&str> = name.split('/').collect();
    let wanted: Vec<&str> = selector.split('/').collect();
    let at = parts.windows(wanted.len()).position(|w| w == wanted)?;
    let mut key: Vec<&str> = parts[..at].to_vec();
    key.push("*");
    key.extend(&parts[at + wanted.len()..]);
    Some(key.join("/"))
}

/// A base strategy and the test strategy it is compared with.
struct Pair<'a> {
    base: &'a StrategyResult,
    test: &'a StrategyResult,
}

impl Pair<'_> {
    /// `name`, or `base vs test` when the names differ.
    fn title(&self) -> String {
        if self.base.name == self.test.name {
            self.base.name.clone()
        } else {
            format!("{} vs {}", self.base.name, self.test.name)
        }
    }

    /// One row per compared measure: the measure, both sides as
    /// `mean±stddev%`, the verdict and the p-value.
    fn rows(&self) -> Vec<Row> {
        compared_measures()
            .iter()
            .map(|m| {
                let get = |s: &StrategyResult| s.summary.as_ref().and_then(|s| (m.get)(s));
                let (base, test) = (get(self.base), get(self.test));
                let shown = |v: Option<crate::stats::Summary>| {
                    v.map_or("-".to_string(), |v| fmt_summary(&v, m.decimals))
                };
                Row {
                    measure: m.short,
                    base: shown(base),
                    test: shown(test),
                    difference: match (base, test) {
                        (Some(b), Some(t)) => Some(Difference::of(&b, &t)),
                        _ => None,
                    },
                }
            })
            .collect()
    }
}

/// One measure of one pair.
struct Row {
    measure: &'static str,
    base: String,
    test: String,
    /// `None` when a side did not record the measure.
    difference: Option<Difference>,
}

impl Row {
    fn verdict(&self) -> String {
        self.difference
            .map_or("not recorded".to_string(), |d| d.verdict())
    }

    fn p_text(&self) -> String {
        self.difference.map_or(String::new(), |d| d.p_text())
    }
}

/// Everything `contend compare` prints.
struct Comparison<'a> {
    base: Side<'a>,
    test: Side<'a>,
    pairs: Vec<Pair<'a>>,
    /// Picked base strategies with no test counterpart.
    only_base: Vec<&'a str>,
    /// Picked test strategies with no base counterpart.
    only_test: Vec<&'a str>,
    /// Differences in version, host or settings that make the comparison
    /// doubtful.
    warnings: Vec<String>,
}

impl<'a> Comparison<'a> {
    /// Pairs the strategies of both sides by key. A selector that picks
    /// nothing, or no pair at all, is bad input.
    fn new(base: Side<'a>, test: Side<'a>) -> Result<Self, CliError> {
        let base_picked = base.picked();
        let test_picked = test.picked();
        for (side, flag, picked) in [
            (&base, "--base", &base_picked),
            (&test, "--test", &test_picked),
        ] {
            if let (Some(sel), true) = (side.selector, picked.is_empty()) {
                return Err(CliError::usage(format!(
                    "{flag} {sel} matches no strategy in {} (it has {})",
                    side.path.display(),
                    names(side.run).join(", ")
                )));
            }
        }
        let mut used = vec![false; test_picked.len()];
        let mut pairs = Vec::new();
        let mut only_base = Vec::new();
        for (key, b) in &base_picked {
            let found = test_picked
                .iter()
                .enumerate()
                .find(|(i, (k, _))| !used[*i] && k == key);
            match found {
                Some((i, (_, t))) => {
                    used[i] = true;
                    pairs.push(Pair { base: b, test: t });
                }
                None => only_base.push(b.name.as_str()),
            }
        }
        let only_test: Vec<&str> = test_picked
            .iter()
            .zip(&used)
            .filter(|(_, used)| !**used)
            .map(|((_, t), _)| t.name.as_str())
            .collect();
        if pairs.is_empty() {
            return Err(CliError::usage(format!(
                "nothing to compare: no strategy of {} matches one of {} (base has {}; test has {})",
                base.path.display(),
                test.path.display(),
                names(base.run).join(", "),
                names(test.run).join(", ")
            )));
        }
        let warnings = warnings(&base, &test);
        Ok(Comparison {
            base,
            test,
            pairs,
            only_base,
            only_test,
            warnings,
        })
    }

    fn any_untested(&self) -> bool {
        self.pairs
            .iter()
            .flat_map(|p| p.rows())
            .any(|r| r.difference.is_some_and(|d| d.welch.is_none()))
    }

    /// The comparison as aligned text, one block per pair.
    fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "base: {}", self.base.describe(false));
        let _ = writeln!(out, "test: {}", self.test.describe(false));
        let _ = writeln!(
            out,
            "verdict: Welch's t-test on the repeats; p < {SIGNIFICANCE_LEVEL} is a measurable difference"
        );
        let blocks: Vec<(String, Vec<[String; 5]>)> = self
            .pairs
            .iter()
            .map(|p| {
                let rows = p
                    .rows()
                    .into_iter()
                    .map(|r| {
                        [
                            r.measure.to_string(),
                            format!("base: {}", r.base),
                            format!("test: {}", r.test),
                            r.verdict(),
                            r.p_text(),
                        ]
                    })
                    .collect();
                (p.title(), rows)
            })
            .collect();
        let mut widths = [0usize; 5];
        for row in blocks.iter().flat_map(|(_, rows)| rows) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for (title, rows) in &blocks {
            let _ = writeln!(out, "\n{title}");
            for row in rows {
                let mut line = String::from("  ");
                for (cell, w) in row.iter().zip(widths) {
                    line.push_str(cell);
                    line.push_str(&" ".repeat(w - cell.chars().count() + 3));
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
        out.push('\n');
        for line in self.footer(|names| names.join(", ")) {
            let _ = writeln!(out, "{line}");
        }
        out
    }

    /// The comparison as Markdown: the two sources, then one table with a
    /// row per pair and measure.
    fn markdown(&self) -> String {
        let mut out = String::from("## contend compare\n\n");
        let _ = writeln!(out, "- **base:** {}", self.base.describe(true));
        let _ = writeln!(out, "- **test:** {}", self.test.describe(true));
        let _ = writeln!(
            out,
            "- **verdict:** Welch's t-test on the repeats; p < {SIGNIFICANCE_LEVEL} is a measurable difference"
        );
        for w in &self.warnings {
            let _ = writeln!(out, "\n> **warning:** {w}");
        }
        out.push('\n');
        let header: Vec<String> = ["configuration", "measure", "base", "test", "change", "p"]
            .iter()
            .map(|h| h.to_string())
            .collect();
        let rows: Vec<Vec<String>> = self
            .pairs
            .iter()
            .flat_map(|p| {
                let title = p.title();
                p.rows().into_iter().map(move |r| {
                    vec![
                        title.clone(),
                        r.measure.to_string(),
                        r.base.clone(),
                        r.test.clone(),
                        r.verdict(),
                        r.p_text(),
                    ]
                })
            })
            .collect();
        out.push_str(&markdown::table(&header, &rows));
        let footer = self.footer(|names| {
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

    /// The strategies left unmatched and what `n<2` means, if any: one
    /// line each, `list` formatting the names.
    fn footer(&self, list: impl Fn(&[&str]) -> String) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.only_base.is_empty() {
            lines.push(format!(
                "only in base (not compared): {}",
                list(&self.only_base)
            ));
        }
        if !self.only_test.is_empty() {
            lines.push(format!(
                "only in test (not compared): {}",
                list(&self.only_test)
            ));
        }
        if self.any_untested() {
            lines.push(
                "n<2: a side has fewer than 2 repeats, so there is no spread to test a difference against"
                    .to_string(),
            );
        }
        lines
    }
}

fn names(run: &RunResults) -> Vec<&str> {
    run.strategies.iter().map(|s| s.name.as_str()).collect()
}

/// What differs between the two sides beyond the strategies: contend
/// version, host, CPU, kernel and the workload's settings.
fn warnings(base: &Side, test: &Side) -> Vec<String> {
    let mut out = Vec::new();
    let (b, t) = (&base.run.provenance, &test.run.provenance);
    let mut differs = |what: &str, f: fn(&Provenance) -> &str| {
        if f(b) != f(t) {
            out.push(format!("different {what}: base {} vs test {}", f(b), f(t)));
        }
    };
    differs("contend versions", |p| &p.contend_version);
    differs("hosts", |p| &p.hostname);
    differs("CPU models", |p| &p.cpu_model);
    differs("kernels", |p| &p.kernel_release);
    let (bc, tc) = (&base.run.config, &test.run.config);
    let threads = |c: &crate::results::RunConfig| (c.writer_cpus.len(), c.reader_cpus.len());
    if threads(bc) != threads(tc) {
        out.push(format!(
            "different thread counts: base {} writers + {} readers vs test {} writers + {} readers",
            bc.writer_cpus.len(),
            bc.reader_cpus.len(),
            tc.writer_cpus.len(),
            tc.reader_cpus.len()
        ));
    }
    if bc.repeat_duration_s != tc.repeat_duration_s {
        out.push(format!(
            "different repeat lengths: base {:.0} ms vs test {:.0} ms",
            bc.repeat_duration_s * 1e3,
            tc.repeat_duration_s * 1e3
        ));
    }
    for side in [base, test] {
        if side.run.partial {
            out.push(format!(
                "{} is partial (interrupted): only finished repeats are compared",
                side.path.display()
            ));
        }
    }
    // The same file on both sides says it once.
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_on_the_rest_of_the_name() {
        let key = |name, sel| match_key(name, sel);
        assert_eq!(
            key("global/always/pad128", None).as_deref(),
            Some("global/always/pad128")
        );
        assert_eq!(
            key("global/always/pad128", Some("global")),
            key("node/always/pad128", Some("node"))
        );
        assert_eq!(
            key("global/always/pad128", Some("global")).as_deref(),
            Some("*/always/pad128")
        );
        // A part of the name in the middle, and a full name.
        assert_eq!(
            key("llc/ratelimit:1ms/pad128/tsc", Some("ratelimit:1ms")),
            key("llc/always/pad128", Some("always")).map(|k| k + "/tsc")
        );
        assert_eq!(
            key("node/always/pad64", Some("node/always/pad64")).as_deref(),
            Some("*")
        );
        // Whole components only.
        assert_eq!(key("global/always/pad128", Some("glob")), None);
        assert_eq!(key("global/always/pad128", Some("pad")), None);
        assert_eq!(key("node/always", Some("node/always/pad128")), None);
    }
}
