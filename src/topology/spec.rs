//! CPU specs: how every option that takes CPUs names them.

use super::{CpuList, CpuListError, Topology};
use std::fmt;
use std::str::FromStr;

/// A way of naming a set of CPUs. See [`CpuSpec::HELP`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CpuSpec {
    /// Every allowed CPU, in id order.
    #[default]
    All,
    /// An explicit cpulist (`0-3,8`, `0-15:2`), in id order.
    List(CpuList),
    /// The CPUs of one NUMA node.
    Node(u32),
    /// The CPUs sharing one last-level cache (its index in the topology).
    Llc(u32),
    /// The first allowed thread of each core (SMT off).
    SmtOff,
    /// Round-robin across nodes: the first CPU of each node, then the second of each, and so on.
    Spread,
    /// The kernel's `cpumask_local_spread(i, node)` order for i = 0, 1, …: nearest NUMA hop first.
    LocalSpread {
        /// The node to spread from.
        node: u32,
        /// Use the pre-v6.3 algorithm.
        old: bool,
    },
}

/// A spec that could not be parsed, or that names nothing usable here.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The cpulist inside the spec is malformed.
    #[error(transparent)]
    List(#[from] CpuListError),
    /// The spec's keyword or argument is not understood.
    #[error("bad CPU spec \"{spec}\": {reason}")]
    Syntax {
        /// The spec as given.
        spec: String,
        /// What is wrong.
        reason: String,
    },
    /// The spec refers to a node or LLC that does not exist.
    #[error("CPU spec \"{spec}\": {reason}")]
    Unknown {
        /// The spec as given.
        spec: String,
        /// What does not exist, and what does.
        reason: String,
    },
    /// The spec names CPUs this process may not use (without `--clip`).
    #[error(
        "CPU spec \"{spec}\" names CPU{} {outside}, which this process may not use (it may use {allowed}); end the spec with :clip to keep only those",
        if outside.len() == 1 { "" } else { "s" }
    )]
    NotAllowed {
        /// The spec as given.
        spec: String,
        /// The CPUs it names outside the allowed ones.
        outside: CpuList,
        /// The CPUs this process may use.
        allowed: CpuList,
    },
    /// Nothing is left after intersecting with the allowed CPUs.
    #[error("CPU spec \"{spec}\" selects no allowed CPU (allowed: {allowed})")]
    Empty {
        /// The spec as given.
        spec: String,
        /// The CPUs this process may use.
        allowed: CpuList,
    },
}

impl CpuSpec {
    /// One-paragraph description for `--help` texts.
    pub const HELP: &'static str = "CPU spec: a cpulist (0-3,8,10-11; 0-15:2 = every second), \
        all, node:N, llc:K (K-th last-level cache, see `contend topology`), \
        smt-off (first thread of each core), spread (round-robin across nodes), \
        local-spread:N (the kernel's cpumask_local_spread order from node N: nearest NUMA hop first) \
        or local-spread:N:old (pre-v6.3: node N's CPUs, then the rest by id). \
        A cpulist, node:N or llc:K naming a CPU this process may not use is an error \
        unless SPEC:clip keeps only the allowed ones; the other specs take allowed CPUs only. \
        Pools take CPUs from the front.";

    /// Resolves the spec to allowed CPUs, in the order pools fill them.
    pub fn resolve(&self, topo: &Topology, clip: bool) -> Result<Resolved, SpecError> {
        let allowed = &topo.allowed_cpus;
        let named = self.named(topo)?;
        let dropped: CpuList = named
            .iter()
            .copied()
            .filter(|&c| !allowed.contains(c))
            .collect();
        if !dropped.is_empty() && !clip {
            return Err(SpecError::NotAllowed {
                spec: self.to_string(),
                outside: dropped,
                allowed: allowed.clone(),
            });
        }
        let cpus: Vec<u32> = named.into_iter().filter(|&c| allowed.contains(c)).collect();
        if cpus.is_empty() {
            return Err(SpecError::Empty {
                spec: self.to_string(),
                allowed: allowed.clone(),
            });
        }
        Ok(Resolved { cpus, dropped })
    }

    /// The CPUs the spec names, in pool order: every CPU of a cpulist, node or LLC, allowed or not.
    fn named(&self, topo: &Topology) -> Result<Vec<u32>, SpecError> {
        let allowed = &topo.allowed_cpus;
        let unknown = |reason: String| SpecError::Unknown {
            spec: self.to_string(),
            reason,
        };
        let cpus: Vec<u32> = match self {
            CpuSpec::All => allowed.to_vec(),
            CpuSpec::List(list) => list.to_vec(),
            CpuSpec::Node(n) => {
                let node = topo.known_node(*n).map_err(|e| unknown(e.to_string()))?;
                node.cpus.to_vec()
            }
            CpuSpec::Llc(k) => {
                let last = topo.llcs.len() - 1;
                let why = || {
                    unknown(format!(
                        "LLC {k} does not exist (this host has LLCs 0-{last})"
                    ))
                };
                topo.llcs.get(*k as usize).ok_or_else(why)?.cpus.to_vec()
            }
            CpuSpec::SmtOff => {
                let mut taken = CpuList::new();
                let mut out = Vec::new();
                for cpu in &topo.cpus {
                    if allowed.contains(cpu.id) && !cpu.siblings.iter().any(|s| taken.contains(s)) {
                        taken.insert(cpu.id);
                        out.push(cpu.id);
                    }
                }
                out
            }
            CpuSpec::Spread => {
                let nodes = topo.nodes.iter();
                let per_node: Vec<Vec<u32>> = nodes
                    .map(|n| n.cpus.intersection(allowed).to_vec())
                    .collect();
                let longest = per_node.iter().map(Vec::len).max().unwrap_or(0);
                (0..longest)
                    .flat_map(|i| per_node.iter().filter_map(move |cpus| cpus.get(i).copied()))
                    .collect()
            }
            CpuSpec::LocalSpread { node, old } => {
                let order = if *old {
                    super::old_order(topo, *node)
                } else {
                    super::HopOrder::new(topo).order(*node)
                }
                .map_err(|e| unknown(e.to_string()))?;
                order.into_iter().filter(|&c| allowed.contains(c)).collect()
            }
        };
        Ok(cpus)
    }
}

/// A spec resolved: the CPUs to use and, under `--clip`, those it named that this process may not
/// use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Allowed CPUs, in the order pools fill them.
    pub cpus: Vec<u32>,
    /// CPUs the spec named outside the allowed ones, dropped by `--clip`.
    pub dropped: CpuList,
}

impl Resolved {
    /// What `--clip` did to `spec` (as the user wrote it) given to `option`, or `None` when it
    /// dropped nothing.
    pub fn clipped(&self, option: &str, spec: impl fmt::Display) -> Option<Clipped> {
        (!self.dropped.is_empty()).then(|| Clipped {
            option: option.to_string(),
            spec: spec.to_string(),
            dropped: self.dropped.to_vec(),
            kept: self.cpus.clone(),
        })
    }
}

/// A CPU spec `--clip` cut down to the CPUs this process may use, as printed (a `note:` line) and
/// recorded in the result file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Clipped {
    /// The option that took the spec (`--writer-cpus`).
    pub option: String,
    /// The spec as given (`0-7`).
    pub spec: String,
    /// CPU ids it named that this process may not use, dropped.
    pub dropped: Vec<u32>,
    /// CPU ids kept, in pool order.
    pub kept: Vec<u32>,
}

/// `--writer-cpus 0-7 clipped to CPUs 0-1 (2-7 are not allowed here)`.
impl fmt::Display for Clipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |ids: &[u32]| ids.iter().copied().collect::<CpuList>();
        write!(
            f,
            "{} {} clipped to CPUs {} ({} {} not allowed here)",
            self.option,
            self.spec,
            list(&self.kept),
            list(&self.dropped),
            if self.dropped.len() == 1 { "is" } else { "are" }
        )
    }
}

impl FromStr for CpuSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let s = s.trim();
        let syntax = |reason: &str| SpecError::Syntax {
            spec: s.to_string(),
            reason: reason.to_string(),
        };
        let number = |arg: &str, what: &str| {
            arg.parse::<u32>()
                .map_err(|_| syntax(&format!("{what} must be a whole number, found \"{arg}\"")))
        };
        match s {
            "" => Err(syntax("empty")),
            "all" => Ok(CpuSpec::All),
            "smt-off" => Ok(CpuSpec::SmtOff),
            "spread" => Ok(CpuSpec::Spread),
            _ => {
                if let Some(arg) = s.strip_prefix("local-spread:") {
                    let (node, old) =
                        (arg.strip_suffix(":old").map(|n| (n, true))).unwrap_or((arg, false));
                    let node = number(node, "node")?;
                    Ok(CpuSpec::LocalSpread { node, old })
                } else if let Some(arg) = s.strip_prefix("node:") {
                    Ok(CpuSpec::Node(number(arg, "node")?))
                } else if let Some(arg) = s.strip_prefix("llc:") {
                    Ok(CpuSpec::Llc(number(arg, "LLC index")?))
                } else if s.starts_with(|c: char| c.is_ascii_digit()) {
                    Ok(CpuSpec::List(CpuList::parse(s)?))
                } else {
                    let names = "all smt-off spread node:N llc:K local-spread:N".split(' ');
                    let guess = crate::error::nearest(s, names)
                        .map(|near| format!("did you mean \"{near}\"? "))
                        .unwrap_or_default();
                    Err(syntax(&format!(
                        "{guess}expected a cpulist (0-3,8), all, node:N, llc:K, smt-off, spread or local-spread:N[:old]"
                    )))
                }
            }
        }
    }
}

/// Writes the spec back in the form it parses from.
impl fmt::Display for CpuSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuSpec::All => f.write_str("all"),
            CpuSpec::List(list) => write!(f, "{list}"),
            CpuSpec::Node(n) => write!(f, "node:{n}"),
            CpuSpec::Llc(k) => write!(f, "llc:{k}"),
            CpuSpec::SmtOff => f.write_str("smt-off"),
            CpuSpec::Spread => f.write_str("spread"),
            CpuSpec::LocalSpread { node, old: false } => write!(f, "local-spread:{node}"),
            CpuSpec::LocalSpread { node, old: true } => write!(f, "local-spread:{node}:old"),
        }
    }
}
