//! Which CPUs each pool of threads takes: the writers first, then the
//! readers from what is left, on a live host or a fixture.

use super::plan::{PlanError, PoolSize};
use crate::topology::{CpuSpec, Topology};

/// The pool options of `run`, `sweep` and `predict`: how many writer and
/// reader threads, on which CPUs.
#[derive(Debug, Clone, PartialEq)]
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
}

/// The writer CPUs and reader CPUs `p` selects on `topo` (its allowed
/// CPUs; a fixture's are its online ones), or the option that cannot be
/// met.
pub fn pools(topo: &Topology, p: &Pools) -> Result<(Vec<u32>, Vec<u32>), PlanError> {
    let allowed = topo.allowed_cpus.len();
    let resolve = |spec: &Option<CpuSpec>, option| {
        spec.clone()
            .unwrap_or(CpuSpec::All)
            .resolve(topo)
            .map_err(|source| PlanError::Cpus { option, source })
    };
    let writer_order = resolve(&p.writer_cpus, "--writer-cpus")?;
    let reader_order = resolve(&p.reader_cpus, "--reader-cpus")?;
    let readers = p.readers.map_or(0, |r| r.resolve(allowed));
    let writers = match p.writers {
        Some(w) => w.resolve(allowed),
        None if readers > 0 && !p.oversubscribe => {
            writer_order.len().saturating_sub(readers).max(1)
        }
        None => writer_order.len(),
    };
    if writers == 0 {
        return Err(PlanError::NoWriters);
    }
    let writer_cpus = take_cpus(
        &writer_order,
        writers,
        &[],
        p.oversubscribe,
        ("--writers", "--writer-cpus"),
    )?;
    let reader_cpus = take_cpus(
        &reader_order,
        readers,
        &writer_cpus,
        p.oversubscribe,
        ("--readers", "--reader-cpus"),
    )?;
    Ok((writer_cpus, reader_cpus))
}

/// The first `n` CPUs of `order` not in `taken`; with `oversubscribe`,
/// cycles through `order` when there are not enough. `options` names the
/// count and CPU options for the error.
fn take_cpus(
    order: &[u32],
    n: usize,
    taken: &[u32],
    oversubscribe: bool,
    (count_option, cpus_option): (&'static str, &'static str),
) -> Result<Vec<u32>, PlanError> {
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
        return Err(PlanError::TooFewCpus {
            count_option,
            wanted: n,
            cpus_option,
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
    fn take_cpus_skips_taken_and_names_the_options() {
        let order = [0, 1, 2, 3];
        assert_eq!(
            take_cpus(&order, 2, &[0], false, ("--readers", "--reader-cpus")).unwrap(),
            [1, 2]
        );
        let err = take_cpus(&order, 4, &[0], false, ("--readers", "--reader-cpus")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--readers 4 needs 4 CPUs but --reader-cpus leaves 3 free (1,2,3); add --oversubscribe to share CPUs"
        );
        assert_eq!(
            take_cpus(&order, 5, &[0], true, ("--readers", "--reader-cpus")).unwrap(),
            [1, 2, 3, 1, 2]
        );
    }
}
