//! How many CPUs `--contenders` and `--sharers` ask for: `all`, or a list of counts in CPU-list
//! syntax (`2,4,8-16`, `1-15:2`).

use crate::topology::CpuList;
use std::fmt;
use std::str::FromStr;

/// The counts one option asks for, before they are checked against the CPUs there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Counts {
    /// Every count from the smallest the measurement takes to the most the chosen CPUs allow.
    All,
    /// These counts, ascending, each once.
    List(Vec<u32>),
}

impl Counts {
    /// The counts, ascending, from `least` to `most` for `All`.
    pub fn resolve(&self, least: u32, most: u32) -> Result<Vec<usize>, u32> {
        match self {
            Counts::All => Ok((least..=most).map(|n| n as usize).collect()),
            Counts::List(v) => match v.iter().find(|&&n| n < least || n > most) {
                Some(&bad) => Err(bad),
                None => Ok(v.iter().map(|&n| n as usize).collect()),
            },
        }
    }
}

impl FromStr for Counts {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "all" {
            return Ok(Counts::All);
        }
        let list = CpuList::parse(s)
            .map_err(|e| format!("expected all or counts such as 2,4,8-16 ({})", e.reason))?;
        if list.is_empty() {
            return Err("expected all or counts such as 2,4,8-16, not nothing".into());
        }
        Ok(Counts::List(list.iter().collect()))
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Counts::All => f.write_str("all"),
            Counts::List(v) => f.write_str(&CpuList::from_iter(v.iter().copied()).to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse_as_cpu_lists_or_all() {
        assert_eq!("all".parse::<Counts>(), Ok(Counts::All));
        for (s, list) in [
            ("8-10,2,4", vec![2, 4, 8, 9, 10]),
            ("1-7:2", vec![1, 3, 5, 7]),
        ] {
            assert_eq!(s.parse::<Counts>(), Ok(Counts::List(list)));
        }
        for bad in ["", "two", "4-2", "3,"] {
            let e = bad.parse::<Counts>().unwrap_err();
            assert!(e.starts_with("expected all or counts"), "{bad}: {e}");
        }
        assert_eq!(Counts::List(vec![2, 3, 4, 8]).to_string(), "2-4,8");
    }

    #[test]
    fn all_spans_the_range_and_a_list_must_fit_it() {
        // 16 CPUs: contenders 2 ..= 16, sharers 1 ..= 15.
        assert_eq!(Counts::All.resolve(2, 16), Ok((2..=16).collect()));
        assert_eq!(Counts::All.resolve(1, 15).unwrap().len(), 15);
        let list = Counts::List(vec![1, 3, 17]);
        assert_eq!(list.resolve(1, 16), Err(17));
        assert_eq!(list.resolve(2, 20), Err(1));
        assert_eq!(list.resolve(1, 17), Ok(vec![1, 3, 17]));
        // Two CPUs leave no sharer count above 1 and no contender above 2.
        assert_eq!(Counts::All.resolve(2, 2), Ok(vec![2]));
        assert_eq!(Counts::All.resolve(1, 1), Ok(vec![1]));
    }
}
