//! The kernel's list format for CPU and node sets: `0-3,8,10-11`, with an optional stride as
//! numactl accepts it (`0-15:2` = 0,2,4,…,14).

use std::collections::BTreeSet;
use std::fmt;

/// Why a cpulist could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad cpulist \"{list}\": {reason}")]
pub struct CpuListError {
    /// The list as given.
    pub list: String,
    /// What is wrong, naming the offending element.
    pub reason: String,
}

/// Largest id accepted in a list: far above any real host (the kernel's NR_CPUS tops out at 8192),
/// low enough that a typo cannot ask for gigabytes.
pub const MAX_ID: u32 = 65_535;

/// A set of CPU (or node) ids, kept sorted and free of duplicates; in JSON, the ids ascending.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct CpuList(BTreeSet<u32>);

impl CpuList {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a kernel cpulist.
    pub fn parse(list: &str) -> Result<Self, CpuListError> {
        let err = |reason: String| CpuListError {
            list: list.to_string(),
            reason,
        };
        let mut set = BTreeSet::new();
        let trimmed = list.trim();
        if trimmed.is_empty() {
            return Ok(Self(set));
        }
        for part in trimmed.split(',') {
            let part = part.trim();
            if part.is_empty() {
                return Err(err("empty element (two commas or a trailing comma)".into()));
            }
            let (range, stride) = match part.split_once(':') {
                Some((r, s)) => {
                    let stride = parse_id(s)
                        .map_err(|e| err(format!("stride \"{s}\" in \"{part}\": {e}")))?;
                    if stride == 0 {
                        return Err(err(format!("stride 0 in \"{part}\"")));
                    }
                    (r, stride)
                }
                None => (part, 1),
            };
            let (start, end) = match range.split_once('-') {
                Some((a, b)) => {
                    let a = parse_id(a).map_err(|e| err(format!("\"{a}\" in \"{part}\": {e}")))?;
                    let b = parse_id(b).map_err(|e| err(format!("\"{b}\" in \"{part}\": {e}")))?;
                    if b < a {
                        return Err(err(format!("range end before start in \"{part}\"")));
                    }
                    (a, b)
                }
                None => {
                    if stride != 1 {
                        return Err(err(format!("stride without a range in \"{part}\"")));
                    }
                    let a = parse_id(range).map_err(|e| err(format!("\"{range}\": {e}")))?;
                    (a, a)
                }
            };
            set.extend((start..=end).step_by(stride as usize));
        }
        Ok(Self(set))
    }

    /// Number of ids in the set.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when the set holds no id.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// True when `id` is in the set.
    pub fn contains(&self, id: u32) -> bool {
        self.0.contains(&id)
    }

    /// Adds `id`.
    pub fn insert(&mut self, id: u32) {
        self.0.insert(id);
    }

    /// The ids in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().copied()
    }

    /// The smallest id, if any.
    pub fn first(&self) -> Option<u32> {
        self.0.first().copied()
    }

    /// The largest id, if any.
    pub fn last(&self) -> Option<u32> {
        self.0.last().copied()
    }

    /// Ids in both sets.
    pub fn intersection(&self, other: &CpuList) -> CpuList {
        Self(self.0.intersection(&other.0).copied().collect())
    }

    /// The ids as a vector, ascending.
    pub fn to_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }
}

impl std::str::FromStr for CpuList {
    type Err = CpuListError;

    fn from_str(s: &str) -> Result<Self, CpuListError> {
        Self::parse(s)
    }
}

impl FromIterator<u32> for CpuList {
    fn from_iter<T: IntoIterator<Item = u32>>(iter: T) -> Self {
        Self(iter.into_iter().collect())
    }
}

/// Writes the compact kernel form (`0-3,8,10-11`), the inverse of [`CpuList::parse`].
impl fmt::Display for CpuList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mut ids, mut comma) = (self.iter().peekable(), "");
        while let Some(start) = ids.next() {
            let mut end = start;
            while let Some(next) = ids.next_if_eq(&(end + 1)) {
                end = next;
            }
            write!(f, "{comma}{start}")?;
            if start != end {
                write!(f, "-{end}")?;
            }
            comma = ",";
        }
        Ok(())
    }
}

/// Why one id of a list does not parse (a [`CpuListError`] names where).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum IdError {
    /// Nothing between the separators.
    #[error("missing number")]
    Missing,
    /// Not only digits.
    #[error("not a number")]
    NotANumber,
    /// Above [`MAX_ID`].
    #[error("above the largest id {MAX_ID}")]
    TooLarge,
}

/// One id of a list: digits only, at most [`MAX_ID`].
fn parse_id(s: &str) -> Result<u32, IdError> {
    let s = s.trim();
    if s.is_empty() {
        return Err(IdError::Missing);
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(IdError::NotANumber);
    }
    match s.parse::<u32>() {
        Ok(v) if v <= MAX_ID => Ok(v),
        _ => Err(IdError::TooLarge),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ids(list: &str) -> Vec<u32> {
        CpuList::parse(list).unwrap().to_vec()
    }

    #[test]
    fn parses_kernel_forms_and_displays_them_compactly() {
        let rows: [(&str, &[u32], &str); 7] = [
            ("0-3,8,10-11", &[0, 1, 2, 3, 8, 10, 11], "0-3,8,10-11"),
            ("0-15:2", &[0, 2, 4, 6, 8, 10, 12, 14], "0,2,4,6,8,10,12,14"),
            ("0-6:2", &[0, 2, 4, 6], "0,2,4,6"),
            ("5", &[5], "5"),
            ("\n", &[], ""),
            (" 3, 1-2 \n", &[1, 2, 3], "1-3"),
            ("2,2,1", &[1, 2], "1-2"),
        ];
        for (list, want, shown) in rows {
            assert_eq!(ids(list), want, "{list:?}");
            assert_eq!(CpuList::parse(list).unwrap().to_string(), shown, "{list:?}");
        }
    }

    #[test]
    fn errors_name_what_and_where() {
        let e = CpuList::parse("3-1").unwrap_err().to_string();
        assert_eq!(e, "bad cpulist \"3-1\": range end before start in \"3-1\"");
        let e = CpuList::parse("0-3,x").unwrap_err().to_string();
        assert!(e.contains("\"x\"") && e.contains("not a number"), "{e}");
        let rows = [
            ("1,,2", "empty"),
            ("0-7:0", "stride 0"),
            ("4:2", "without a range"),
            ("0-99999", "largest"),
            ("-3", "missing"),
        ];
        for (list, reason) in rows {
            let e = CpuList::parse(list).unwrap_err();
            assert!(e.reason.contains(reason), "{list}: {e}");
        }
    }

    proptest! {
        #[test]
        fn display_parse_round_trip(set in proptest::collection::btree_set(0u32..2048, 0..200)) {
            let list: CpuList = set.iter().copied().collect();
            let text = list.to_string();
            prop_assert_eq!(CpuList::parse(&text).unwrap(), list);
        }

        #[test]
        fn stride_matches_step_by(a in 0u32..500, len in 0u32..500, stride in 1u32..20) {
            let b = a + len;
            let parsed = CpuList::parse(&format!("{a}-{b}:{stride}")).unwrap().to_vec();
            let expected: Vec<u32> = (a..=b).step_by(stride as usize).collect();
            prop_assert_eq!(parsed, expected);
        }

        #[test]
        fn never_panics_on_garbage(s in "[0-9,:\\- x]{0,24}") {
            let _ = CpuList::parse(&s);
        }
    }
}
