//! The one error type the command line reports, with its exit status.

use std::fmt;

/// A failed command: what to print (one line) and the exit status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CliError {
    /// 2 for bad input (the request itself is wrong), 1 for a run that failed.
    pub exit_code: u8,
    /// One line saying what was wrong.
    pub message: String,
}

impl CliError {
    /// Bad input: exit status 2.
    pub fn usage(message: impl fmt::Display) -> Self {
        Self {
            exit_code: 2,
            message: message.to_string(),
        }
    }

    /// A run that failed: exit status 1.
    pub fn failure(message: impl fmt::Display) -> Self {
        Self {
            exit_code: 1,
            message: message.to_string(),
        }
    }
}

/// A name that is not one of those a setting takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What kind of name (`level`, `clock`, `pair class`).
    pub what: &'static str,
    /// The name given.
    pub value: String,
    /// The names accepted (a placeholder for a number: `node:N`).
    pub expected: Vec<&'static str>,
}

impl UnknownName {
    /// `value` is not a `what`; `expected` are the names that are.
    pub fn new(
        what: &'static str,
        value: &str,
        expected: impl IntoIterator<Item = &'static str>,
    ) -> Self {
        Self {
            what,
            value: value.to_string(),
            expected: expected.into_iter().collect(),
        }
    }
}

/// `unknown level "globl": did you mean "global"? (expected global, node, llc or cpu)`.
impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} \"{}\"", self.what, self.value)?;
        if let Some(near) = nearest(&self.value, self.expected.iter().copied()) {
            write!(f, ": did you mean \"{near}\"?")?;
        }
        write!(f, " (expected {})", one_of(&self.expected))
    }
}

impl std::error::Error for UnknownName {}

/// `a`, `a or b`, `a, b or c`: a short list of names in words.
fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The candidate nearest to `value` by edit distance.
pub fn nearest<'a>(value: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let d = edit_distance(value, candidate);
        if d == 0 {
            return None;
        }
        if d <= (candidate.chars().count() / 3).max(1) && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance between `a` and `b`, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances_match_hand_counts_and_near_names_are_suggested() {
        // kitten -> sitten -> sittin -> sitting: the textbook 3.
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("globl", "global"), 1);
        assert_eq!(edit_distance("", "cpu"), 3);
        assert_eq!(edit_distance("llc", "llc"), 0);
        assert_eq!(edit_distance("nodes", "node"), 1);
        let levels = ["global", "node", "llc", "cpu"];
        assert_eq!(nearest("globl", levels), Some("global"));
        assert_eq!(nearest("nod", levels), Some("node"));
        assert_eq!(nearest("cpus", levels), Some("cpu"));
        // Three edits from every level: no guess.
        assert_eq!(nearest("socket", levels), None);
        // A name that is accepted is not misspelt.
        assert_eq!(nearest("llc", levels), None);
    }

    #[test]
    fn an_unknown_name_is_one_line_with_its_guess() {
        let e = UnknownName::new("level", "globl", ["global", "node", "llc", "cpu"]);
        let want =
            "unknown level \"globl\": did you mean \"global\"? (expected global, node, llc or cpu)";
        assert_eq!(e.to_string(), want);
        let e = UnknownName::new("mode", "x", ["cas", "rw"]);
        assert_eq!(e.to_string(), "unknown mode \"x\" (expected cas or rw)");
    }
}
