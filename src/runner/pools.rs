//! Which CPUs each pool of threads takes: how many threads a pool gets ([`PoolSize`]), then the
//! writers' CPUs first and the readers' from what is left, on a live host or a fixture; or which
//! option cannot be met ([`PoolError`]).

use crate::topology::{Clipped, CpuList, CpuSpec, SpecError, Topology};
use std::fmt;
use std::str::FromStr;

/// How many threads a pool gets: a count, or a percentage of the CPUs this process may use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PoolSize {
    /// This many threads.
    Count(usize),
    /// This percentage of the allowed CPUs (rounded, at least 1).
    Percent(f64),
}

impl PoolSize {
    /// The thread count for a host with `allowed` usable CPUs.
    pub fn resolve(self, allowed: usize) -> usize {
        match self {
            PoolSize::Count(n) => n,
            PoolSize::Percent(p) => ((p / 100.0 * allowed as f64).round() as usize).max(1),
        }
    }
}

/// A thread count that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoolSizeError {
    /// Neither a count nor a percentage.
    #[error("\"{0}\" is not a thread count (4) or a percentage of allowed CPUs (50%)")]
    Syntax(String),
    /// A percentage outside (0, 100].
    #[error("\"{0}\": a percentage must be above 0 and at most 100")]
    Percent(String),
}

impl FromStr for PoolSize {
    type Err = PoolSizeError;
    fn from_str(s: &str) -> Result<Self, PoolSizeError> {
        match s.strip_suffix('%') {
            Some(p) => match p.parse::<f64>() {
                Ok(v) if v > 0.0 && v <= 100.0 => Ok(PoolSize::Percent(v)),
                _ => Err(PoolSizeError::Percent(s.to_string())),
            },
            None => s
                .parse::<usize>()
                .map(PoolSize::Count)
                .map_err(|_| PoolSizeError::Syntax(s.to_string())),
        }
    }
}

impl fmt::Display for PoolSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolSize::Count(n) => write!(f, "{n}"),
            PoolSize::Percent(p) => write!(f, "{p}%"),
        }
    }
}

/// Why the pools cannot be filled. Each names the option involved.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// A CPU spec names nothing usable here.
    #[error("{option}: {source}")]
    Cpus {
        /// The option holding the spec.
        option: &'static str,
        /// What is wrong with it.
        source: SpecError,
    },
    /// `--writers 0`.
    #[error("--writers must be at least 1")]
    NoWriters,
    /// A pool needs more CPUs than its spec leaves.
    #[error(
        "{option} {wanted} needs {wanted} CPUs but {option} leaves {} free ({}); add --placement oversubscribe to share CPUs",
        free.len(),
        free.iter().copied().collect::<CpuList>()
    )]
    TooFewCpus {
        /// `--writers` or `--readers`, which give both the count and the CPUs.
        option: &'static str,
        /// Threads asked for.
        wanted: usize,
        /// The CPUs left.
        free: Vec<u32>,
    },
}

/// The pool options of `run`, `sweep` and `predict`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pools {
    /// Writer threads (default: every CPU of `writer_cpus`, less readers).
    pub writers: Option<PoolSize>,
    /// Reader threads (default: none).
    pub readers: Option<PoolSize>,
    /// CPUs writers take, in order (default: all allowed).
    pub writer_cpus: Option<CpuSpec>,
    /// CPUs readers take, in order, skipping writers' (default: all).
    pub reader_cpus: Option<CpuSpec>,
    /// Threads may share CPUs.
    pub oversubscribe: bool,
    /// `--clip`: a CPU spec naming CPUs this process may not use keeps the allowed ones instead of
    /// being an error.
    pub clip: bool,
}

/// The CPUs each pool takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolCpus {
    /// Writer CPUs, in pool order.
    pub writers: Vec<u32>,
    /// Reader CPUs, in pool order (empty: no readers).
    pub readers: Vec<u32>,
    /// What `--clip` dropped from each CPU spec (empty when nothing).
    pub clipped: Vec<Clipped>,
}

/// The writer CPUs and reader CPUs `p` selects on `topo`.
pub fn pools(topo: &Topology, p: &Pools) -> Result<PoolCpus, PoolError> {
    let allowed = topo.allowed_cpus.len();
    let mut clipped = Vec::new();
    let mut resolve = |spec: &Option<CpuSpec>, option| {
        let spec = spec.clone().unwrap_or(CpuSpec::All);
        let resolved = spec
            .resolve(topo, p.clip)
            .map_err(|source| PoolError::Cpus { option, source })?;
        clipped.extend(resolved.clipped(option, &spec));
        Ok::<_, PoolError>(resolved.cpus)
    };
    let writer_order = resolve(&p.writer_cpus, "--writers")?;
    let reader_order = resolve(&p.reader_cpus, "--readers")?;
    let readers = p.readers.map_or(0, |r| r.resolve(allowed));
    let writers = match p.writers {
        Some(w) => w.resolve(allowed),
        None if readers > 0 && !p.oversubscribe => {
            writer_order.len().saturating_sub(readers).max(1)
        }
        None => writer_order.len(),
    };
    if writers == 0 {
        return Err(PoolError::NoWriters);
    }
    let writer_cpus = take_cpus(&writer_order, writers, &[], p.oversubscribe, "--writers")?;
    let reader_cpus = take_cpus(
        &reader_order,
        readers,
        &writer_cpus,
        p.oversubscribe,
        "--readers",
    )?;
    Ok(PoolCpus {
        writers: writer_cpus,
        readers: reader_cpus,
        clipped,
    })
}

/// The first `n` CPUs of `order` not in `taken`.
fn take_cpus(
    order: &[u32],
    n: usize,
    taken: &[u32],
    oversubscribe: bool,
    option: &'static str,
) -> Result<Vec<u32>, PoolError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let free: Vec<u32> = order
        .iter()
        .copied()
        .filter(|c| !taken.contains(c))
        .collect();
    if free.len() >= n {
        return Ok(free[..n].to_vec());
    }
    if !oversubscribe {
        return Err(PoolError::TooFewCpus {
            option,
            wanted: n,
            free,
        });
    }
    let pool = if free.is_empty() { order } else { &free };
    Ok(pool.iter().copied().cycle().take(n).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_sizes_parse_and_resolve() {
        assert_eq!("4".parse::<PoolSize>(), Ok(PoolSize::Count(4)));
        assert_eq!(PoolSize::Percent(50.0).resolve(7), 4);
        assert_eq!(PoolSize::Percent(1.0).resolve(7), 1);
        assert!(matches!(
            "0%".parse::<PoolSize>(),
            Err(PoolSizeError::Percent(_))
        ));
        assert!(matches!(
            "four".parse::<PoolSize>(),
            Err(PoolSizeError::Syntax(_))
        ));
        for s in ["4", "50%"] {
            assert_eq!(s.parse::<PoolSize>().unwrap().to_string(), s);
        }
    }

    #[test]
    fn take_cpus_skips_taken_and_names_the_options() {
        let order = [0, 1, 2, 3];
        assert_eq!(
            take_cpus(&order, 2, &[0], false, "--readers").unwrap(),
            [1, 2]
        );
        let err = take_cpus(&order, 4, &[0], false, "--readers").unwrap_err();
        assert_eq!(
            err.to_string(),
            "--readers 4 needs 4 CPUs but --readers leaves 3 free (1-3); add --placement oversubscribe to share CPUs"
        );
        let cycled = take_cpus(&order, 5, &[0], true, "--readers").unwrap();
        assert_eq!(cycled, [1, 2, 3, 1, 2]);
    }
}
