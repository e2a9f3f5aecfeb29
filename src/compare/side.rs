//! One side of a comparison: a result file and which of its strategies,
//! each with the key it is matched on.

use crate::runner::{RunResults, StrategyResult};
use std::path::PathBuf;

/// One side of the comparison: a file and which of its strategies.
pub struct Side<'a> {
    /// The file read.
    pub path: PathBuf,
    /// Its contents.
    pub run: &'a RunResults,
    /// `--base`/`--test`; `None` takes every strategy.
    pub selector: Option<&'a str>,
}

impl<'a> Side<'a> {
    /// The strategies the selector picks, each with its matching key
    /// (its regime is matched too: see [`Comparison::new`]).
    pub(super) fn picked(&self) -> Vec<(String, &'a StrategyResult)> {
        self.run
            .strategies
            .iter()
            .filter_map(|s| Some((match_key(&s.name, self.selector)?, s)))
            .collect()
    }

    /// `path` (or `selector in path`) and where it ran, in plain words
    /// (each format escapes them as its own).
    pub fn describe(&self) -> String {
        let p = &self.run.provenance;
        format!(
            "{}{}: contend {} ({}) on {} ({}), Linux {}, {}, {} repeat{}",
            self.selector.map_or(String::new(), |s| format!("{s} in ")),
            self.path.display(),
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

/// Every strategy of `run`, with its regime when paced.
pub(super) fn names(run: &RunResults) -> Vec<String> {
    run.strategies.iter().map(StrategyResult::label).collect()
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
