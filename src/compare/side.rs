//! One side of a comparison: a result file and which of its strategies,
//! each with the key it is matched on.

use super::CompareError;
use crate::runner::{RunResults, StrategyResult};
use std::path::PathBuf;

/// One side of the comparison: a file and which of its strategies.
pub struct Side<'a> {
    /// The file read.
    pub path: PathBuf,
    /// Its contents.
    pub run: &'a RunResults,
    /// `--base` or `--test`, one selector a group (`--test B,C`: two
    /// groups, each compared with the base); empty takes every strategy,
    /// as one group.
    pub selectors: Vec<String>,
}

/// A strategy a side picked: the group (selector) that picked it and the
/// key it is matched on within its regime.
pub(super) struct Pick<'a> {
    /// The index of the selector that picked it (0 without selectors).
    pub group: usize,
    /// What it is matched on ([`select`]).
    pub key: String,
    /// The strategy.
    pub strategy: &'a StrategyResult,
}

impl<'a> Side<'a> {
    /// The strategies each selector picks, in selector order, each with
    /// its matching key (its regime is matched too: see
    /// [`super::Comparison::new`]); a selector that picks nothing or is
    /// an ambiguous prefix is bad input, named by `option`.
    pub(super) fn picked(&self, option: &'static str) -> Result<Vec<Pick<'a>>, CompareError> {
        let run = self.run;
        if self.selectors.is_empty() {
            return Ok(run
                .strategies
                .iter()
                .map(|s| Pick {
                    group: 0,
                    key: s.name.clone(),
                    strategy: s,
                })
                .collect());
        }
        let mut picks = Vec::new();
        for (group, selector) in self.selectors.iter().enumerate() {
            let chosen = select(run, selector).map_err(|candidates| {
                let ambiguous = !candidates.is_empty();
                CompareError::Selector {
                    option,
                    selector: selector.clone(),
                    path: self.path.clone(),
                    ambiguous,
                    names: if ambiguous {
                        candidates
                    } else {
                        short_names(run)
                    },
                }
            })?;
            picks.extend(chosen.into_iter().map(|(key, strategy)| Pick {
                group,
                key,
                strategy,
            }));
        }
        Ok(picks)
    }

    /// `path` (or `selectors in path`) and where it ran, in plain words
    /// (each format escapes them as its own), with the repeats its
    /// strategies used ([`RunResults::repeats_text`]).
    pub fn describe(&self) -> String {
        let p = &self.run.provenance;
        let selectors = if self.selectors.is_empty() {
            String::new()
        } else {
            format!("{} in ", self.selectors.join(", "))
        };
        format!(
            "{selectors}{}: contend {} ({}) on {} ({}), Linux {}, {}, {}",
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

/// The strategies of `run` that `selector` picks, each with its key, in
/// the first of these ways that picks any:
///
/// 1. its short name ([`RunResults::short_name`]) or full name, exactly:
///    key `*`;
/// 2. a run of whole `/`-separated components of the short name, then
///    of the full name ([`match_key`]: `global` picks every global
///    strategy, keyed `*/always`, ... so `--base global --test node`
///    pairs them by policy);
/// 3. the start of exactly one short name (`global/thr`): key `*`.
///
/// `Err` with the candidates when the selector starts several short
/// names, or with none when it picks nothing.
fn select<'a>(
    run: &'a RunResults,
    selector: &str,
) -> Result<Vec<(String, &'a StrategyResult)>, Vec<String>> {
    let named: Vec<(String, &StrategyResult)> = run
        .strategies
        .iter()
        .map(|s| (run.short_name(s), s))
        .collect();
    let exact: Vec<_> = named
        .iter()
        .filter(|(short, s)| short == selector || s.name == selector)
        .map(|&(_, s)| ("*".to_string(), s))
        .collect();
    if !exact.is_empty() {
        return Ok(exact);
    }
    for form in [
        |short: &str, _: &StrategyResult| short.to_string(),
        |_: &str, s: &StrategyResult| s.name.clone(),
    ] {
        let parts: Vec<_> = named
            .iter()
            .filter_map(|(short, s)| Some((match_key(&form(short, s), selector)?, *s)))
            .collect();
        if !parts.is_empty() {
            return Ok(parts);
        }
    }
    let mut starts: Vec<String> = named
        .iter()
        .filter(|(short, _)| short.starts_with(selector))
        .map(|(short, _)| short.clone())
        .collect();
    starts.dedup();
    match starts.len() {
        1 => Ok(named
            .iter()
            .filter(|(short, _)| *short == starts[0])
            .map(|&(_, s)| ("*".to_string(), s))
            .collect()),
        _ => Err(unique(starts)),
    }
}

/// The key a strategy is matched on: its name with the selector's
/// components replaced by `*` (`global/always/pad128` under `global` is
/// `*/always/pad128`). `None` when the selector is not a run of the
/// name's `/`-separated components.
fn match_key(name: &str, selector: &str) -> Option<String> {
    let parts: Vec<&str> = name.split('/').collect();
    let wanted: Vec<&str> = selector.split('/').collect();
    let at = parts.windows(wanted.len()).position(|w| w == wanted)?;
    let mut key: Vec<&str> = parts[..at].to_vec();
    key.push("*");
    key.extend(&parts[at + wanted.len()..]);
    Some(key.join("/"))
}

/// Every strategy of `run` by its short name, each once (its regimes
/// share it).
pub(super) fn short_names(run: &RunResults) -> Vec<String> {
    unique(run.strategies.iter().map(|s| run.short_name(s)).collect())
}

/// `names` in order, each once.
fn unique(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_on_the_rest_of_the_name() {
        let key = match_key;
        assert_eq!(
            key("global/always/pad128", "global"),
            key("node/always/pad128", "node")
        );
        assert_eq!(
            key("global/always/pad128", "global").as_deref(),
            Some("*/always/pad128")
        );
        // A part of the name in the middle, and a full name.
        assert_eq!(
            key("llc/ratelimit:1ms/pad128/tsc", "ratelimit:1ms"),
            key("llc/always/pad128", "always").map(|k| k + "/tsc")
        );
        assert_eq!(
            key("node/always/pad64", "node/always/pad64").as_deref(),
            Some("*")
        );
        // Whole components only.
        assert_eq!(key("global/always/pad128", "glob"), None);
        assert_eq!(key("global/always/pad128", "pad"), None);
        assert_eq!(key("node/always", "node/always/pad128"), None);
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
        // The short name and the full name select alike.
        assert_eq!(keys("global/always"), Ok(vec!["*=global/always".into()]));
        assert_eq!(
            keys("global/always/pad128"),
            Ok(vec!["*=global/always".into()])
        );
        // A level keeps the rest of the name as the key.
        assert_eq!(keys("cpu"), Ok(vec!["*/always=cpu/always".into()]));
        // A part only the full name has.
        assert_eq!(
            keys("pad128"),
            Ok(vec![
                "global/always/*=global/always".into(),
                "cpu/always/*=cpu/always".into()
            ])
        );
        // A unique prefix; an ambiguous one lists its candidates.
        assert_eq!(keys("glo"), Ok(vec!["*=global/always".into()]));
        assert_eq!(keys("cpu/al"), Ok(vec!["*=cpu/always".into()]));
        assert_eq!(
            keys(""),
            Err(vec!["global/always".into(), "cpu/always".into()])
        );
        assert_eq!(keys("llc"), Err(vec![]));
    }
}
