//! One side of a comparison: one run or several replicates of one experiment, and which of their
//! strategies, each with the key it is matched on.

use super::CompareError;
use crate::runner::{RunConfig, RunResults, StrategyResult};
use std::path::PathBuf;

/// One side of the comparison: its runs (replicates of one experiment: one host, one version, one
/// configuration) and which of their strategies.
pub struct Side<'a> {
    /// What was named: a run.json, or the folder its runs were found in.
    pub path: PathBuf,
    /// The first run: its strategies are picked and named, its provenance shown.
    pub run: &'a RunResults,
    /// Every run of the side, with its file, the first `run`'s.
    pub runs: Vec<(PathBuf, &'a RunResults)>,
    /// `--base` or `--test`, one selector a group.
    pub selectors: Vec<String>,
}

/// A strategy a side picked: the group (selector) that picked it and the key it is matched on
/// within its regime.
pub(super) struct Pick<'a> {
    /// The index of the selector that picked it (0 without selectors).
    pub group: usize,
    /// What it is matched on ([`select`]).
    pub key: String,
    /// The strategy.
    pub strategy: &'a StrategyResult,
}

impl<'a> Side<'a> {
    /// The side of `runs` (at least one) found under `path`, picked by `selectors`.
    pub fn new(
        option: &'static str,
        path: PathBuf,
        runs: Vec<(PathBuf, &'a RunResults)>,
        selectors: Vec<String>,
    ) -> Result<Self, CompareError> {
        let (first_file, run) = runs.first().expect("a side has a run").clone();
        for (file, other) in &runs[1..] {
            if let Some(what) = not_a_replicate(run, other) {
                return Err(CompareError::Replicate {
                    option,
                    odd: file.clone(),
                    first: first_file,
                    what,
                });
            }
        }
        Ok(Side {
            path,
            run,
            runs,
            selectors,
        })
    }

    /// The strategies each selector picks, in selector order, each with its matching key.
    pub(super) fn picked(&self, option: &'static str) -> Result<Vec<Pick<'a>>, CompareError> {
        let run = self.run;
        if self.selectors.is_empty() {
            let all = run.strategies.iter().map(|s| (s.name.clone(), s));
            return Ok(all
                .map(|(key, strategy)| Pick {
                    group: 0,
                    key,
                    strategy,
                })
                .collect());
        }
        let mut picks = Vec::new();
        for (group, selector) in self.selectors.iter().enumerate() {
            let chosen = select(run, selector).map_err(|candidates| CompareError::Selector {
                option,
                selector: selector.clone(),
                path: self.path.clone(),
                ambiguous: !candidates.is_empty(),
                names: match candidates.is_empty() {
                    true => short_names(run),
                    false => candidates,
                },
            })?;
            picks.extend(chosen.into_iter().map(|(key, strategy)| Pick {
                group,
                key,
                strategy,
            }));
        }
        Ok(picks)
    }

    /// `path` (or `selectors in path`) and where it ran, in plain words.
    pub fn describe(&self) -> String {
        let p = &self.run.provenance;
        let selectors = (!self.selectors.is_empty()).then(|| self.selectors.join(", ") + " in ");
        let n = self.runs.len();
        let runs = (n != 1).then(|| format!(" ({n} runs)"));
        let (selectors, runs) = (selectors.unwrap_or_default(), runs.unwrap_or_default());
        format!(
            "{selectors}{}{runs}: contend {} ({}) on {} ({}), Linux {}, {}, {}",
            self.path.display(),
            p.contend_version,
            p.git_commit,
            p.hostname,
            p.cpu_model,
            p.kernel_release,
            p.started_utc,
            self.run.repeats_text()
        )
    }
}

/// The strategy of each of `runs` (a side's, or a host record's) that `strategy` (one of the first
/// run's) names, in the same regime.
pub(super) fn in_every_run<'a>(
    runs: &[(PathBuf, &'a RunResults)],
    strategy: &StrategyResult,
) -> Vec<&'a StrategyResult> {
    let same = |s: &&StrategyResult| s.name == strategy.name && s.regime == strategy.regime;
    runs.iter()
        .filter_map(|(_, r)| r.strategies.iter().find(same))
        .collect()
}

/// What makes `other` not a replicate of `run`, if anything.
fn not_a_replicate(run: &RunResults, other: &RunResults) -> Option<String> {
    let (p, q) = (&run.provenance, &other.provenance);
    let provenance: [(&str, &str, &str); 5] = [
        ("host", &p.hostname, &q.hostname),
        ("CPU", &p.cpu_model, &q.cpu_model),
        ("kernel", &p.kernel_release, &q.kernel_release),
        ("contend version", &p.contend_version, &q.contend_version),
        ("contend commit", &p.git_commit, &q.git_commit),
    ];
    if let Some((what, a, b)) = provenance.iter().find(|(_, a, b)| a != b) {
        return Some(format!("{what} {b}, not {a}"));
    }
    let names =
        |r: &RunResults| -> Vec<String> { r.strategies.iter().map(|s| s.label()).collect() };
    if names(run) != names(other) {
        return Some("its strategies".to_string());
    }
    setting_differs(&run.config, &other.config).map(|s| format!("its setting {s}"))
}

/// The first setting of the experiment in which `a` and `b` differ, by its run.json name.
pub(super) fn setting_differs(a: &RunConfig, b: &RunConfig) -> Option<&'static str> {
    let inject = |c: &RunConfig| c.inject.map(|i| i.ns);
    // The warm-up asked for, not the one used: each run raises it to the
    // start-up it measured, so identical invocations differ in that.
    macro_rules! first_differing {
        ($($field:ident),*) => {
            [$((stringify!($field), a.$field == b.$field)),*]
        };
    }
    let settings = first_differing! {
        writer_cpus, reader_cpus, read_every, rates, repeat_duration_s, warmup_asked_s, repeats,
        seed, threshold_publishes, load_step, sample_every_by_rate, timer, target_ci_pct,
        max_time_s, placement, oversubscribe, counter_node, node_iter
    };
    let more = [
        ("paced", a.paced == b.paced && a.in_place == b.in_place),
        ("inject", inject(a) == inject(b)),
    ];
    let mut all = settings.into_iter().chain(more);
    all.find(|(_, same)| !same).map(|(name, _)| name)
}

/// The strategies of `run` that `selector` picks, each with its key, by the first rule that picks
/// any: its short or full name exactly (key `*`).
fn select<'a>(
    run: &'a RunResults,
    selector: &str,
) -> Result<Vec<(String, &'a StrategyResult)>, Vec<String>> {
    let named: Vec<(String, &StrategyResult)> = run
        .strategies
        .iter()
        .map(|s| (run.short_name(s), s))
        .collect();
    // Every strategy whose names `pick` takes, whole (key `*`).
    let whole = |pick: &dyn Fn(&str, &StrategyResult) -> bool| -> Vec<_> {
        let picked = named.iter().filter(|(short, s)| pick(short, s));
        picked.map(|&(_, s)| ("*".to_string(), s)).collect()
    };
    let exact = whole(&|short, s| short == selector || s.name == selector);
    if !exact.is_empty() {
        return Ok(exact);
    }
    for full in [false, true] {
        let parts: Vec<_> = named
            .iter()
            .filter_map(|(short, s)| {
                let name = if full { &s.name } else { short };
                Some((match_key(name, selector)?, *s))
            })
            .collect();
        if !parts.is_empty() {
            return Ok(parts);
        }
    }
    let starts = named
        .iter()
        .filter(|(short, _)| short.starts_with(selector));
    match crate::runner::first_seen(starts.map(|(short, _)| short.clone())).as_slice() {
        [only] => Ok(whole(&|short, _| short == only)),
        starts => Err(starts.to_vec()),
    }
}

/// The key a strategy is matched on: its name with the selector's components replaced by `*`.
fn match_key(name: &str, selector: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('/').collect();
    let wanted: Vec<&str> = selector.split('/').collect();
    let at = parts.windows(wanted.len()).position(|w| w == wanted)?;
    let mut key: Vec<&str> = parts[..at].to_vec();
    key.push("*");
    key.extend(&parts[at + wanted.len()..]);
    Some(key.join("/"))
}

/// Every strategy of `run` by its short name, each once (its regimes share it).
pub(super) fn short_names(run: &RunResults) -> Vec<String> {
    crate::runner::first_seen(run.strategies.iter().map(|s| run.short_name(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_on_the_rest_of_the_name() {
        // A level, a part of the name in the middle, a full name; whole components only.
        #[rustfmt::skip]
        let cases = [
            ("global/always/pad128", "global", Some("*/always/pad128")),
            ("node/always/pad128", "node", Some("*/always/pad128")),
            ("llc/ratelimit:1ms/pad128/tsc", "ratelimit:1ms", Some("llc/*/pad128/tsc")),
            ("llc/always/pad128", "always", Some("llc/*/pad128")),
            ("node/always/pad64", "node/always/pad64", Some("*")),
            ("global/always/pad128", "glob", None),
            ("global/always/pad128", "pad", None),
            ("node/always", "node/always/pad128", None),
        ];
        for (name, selector, key) in cases {
            assert_eq!(
                match_key(name, selector).as_deref(),
                key,
                "{name} by {selector}"
            );
        }
    }

    #[test]
    fn a_selector_picks_by_short_name_part_or_unique_prefix() {
        // The fixture: global/always and cpu/always (pad128 both).
        let run = crate::runner::fixture_run();
        let keys = |sel: &str| {
            select(&run, sel).map(|v| {
                v.iter()
                    .map(|(k, s)| format!("{k}={}", run.short_name(s)))
                    .collect::<Vec<_>>()
            })
        };
        let strings = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
        type Picks = Result<&'static [&'static str], &'static [&'static str]>;
        #[rustfmt::skip]
        let cases: [(&str, Picks); 8] = [
            // The short name and the full name select alike.
            ("global/always", Ok(&["*=global/always"])),
            ("global/always/pad128", Ok(&["*=global/always"])),
            // A level keeps the rest of the name as the key.
            ("cpu", Ok(&["*/always=cpu/always"])),
            // A part only the full name has.
            ("pad128", Ok(&["global/always/*=global/always", "cpu/always/*=cpu/always"])),
            // A unique prefix; an ambiguous one lists its candidates.
            ("glo", Ok(&["*=global/always"])),
            ("cpu/al", Ok(&["*=cpu/always"])),
            ("", Err(&["global/always", "cpu/always"])),
            ("llc", Err(&[])),
        ];
        for (sel, want) in cases {
            assert_eq!(keys(sel), want.map(strings).map_err(strings), "{sel:?}");
        }
    }
}
