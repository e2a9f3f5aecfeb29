//! Many published hosts side by side (`contend gallery DIR`): each core-to-core-latency CSV's
//! inferred host, where its cost jumps, and the default comparison predicted at one rate per CPU,
//! every CPU writing and reading after each update; serialised as gallery.json.

use super::c2c::PairMatrix;
use super::inferred::{InferredClass, InferredHost, infer};
use super::{LineState, PredictError, PredictRequest, Range, predict};
use crate::counter::{PublishPolicy, ShardLevel};
use crate::matrix::PairClass;
use crate::topology::Topology;
use crate::workload::Arrivals;
use serde::{Deserialize, Serialize};

/// Version of gallery.json's layout.
pub const SCHEMA_VERSION: u32 = 1;

/// The strategy every other is weighed against: the kernel's counter before its ratelimit.
pub const BASELINE: &str = "global/always";

/// Where a host's cost jumps most past the core ([`InferredHost::biggest_jump`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Jump {
    /// Leaving the core: SMT siblings against other cores of its LLC.
    Core,
    /// Leaving the LLC: its cores against other LLCs of the node.
    Llc,
    /// Leaving the node (socket).
    Node,
}

impl Jump {
    /// The jump into class `to` (from the class before it).
    pub fn into(to: PairClass) -> Self {
        match to {
            PairClass::Smt | PairClass::SameLlc => Jump::Core,
            PairClass::SameNode => Jump::Llc,
            PairClass::CrossNode(_) => Jump::Node,
        }
    }

    /// `core`, `LLC`, `node`: as the page says "the jump is at the …".
    pub fn name(self) -> &'static str {
        match self {
            Jump::Core => "core",
            Jump::Llc => "LLC",
            Jump::Node => "node",
        }
    }
}

/// One strategy of a host at the gallery's rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GalleryStrategy {
    /// `level/policy`.
    pub name: String,
    /// How busy its hottest line is.
    pub state: LineState,
    /// Net ns per update (below saturation only).
    pub cost_ns: Option<Range>,
    /// Net CPU share per writer CPU, % (below saturation only).
    pub cpu_share_pct: Option<Range>,
}

/// One host of the gallery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GalleryHost {
    /// The CSV's file name (untrusted: escape it wherever it is shown).
    pub file: String,
    /// Its CPUs.
    pub cpus: usize,
    /// Cores with SMT siblings.
    pub smt_cores: usize,
    /// LLC groups.
    pub llcs: usize,
    /// Nodes (sockets).
    pub nodes: usize,
    /// The node the line lived on while measured, when the matrix shows it.
    pub home_node: Option<u32>,
    /// Sockets taken from the file's name.
    pub sockets_from_name: Option<u32>,
    /// The pair classes, nearest first.
    pub classes: Vec<InferredClass>,
    /// Where the cost jumps most past the core; `None` with one class.
    pub jump: Option<Jump>,
    /// The jump's two medians, ns (nearer class, farther class).
    pub jump_ns: Option<(f64, f64)>,
    /// The default comparison at the gallery's rate.
    pub strategies: Vec<GalleryStrategy>,
    /// The strategy of least central net cost among those below saturation; `None` when none is.
    pub winner: Option<String>,
}

/// A file that is not a matrix the gallery can use, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The file's name (untrusted).
    pub file: String,
    /// Why, naming the row and column where it can.
    pub reason: String,
}

/// The gallery: hosts sorted by nodes, then CPUs (most first), then name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gallery {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// The folder the CSVs were read from, as given.
    pub source: String,
    /// Updates per second per writer CPU the strategies are predicted at.
    pub rate: f64,
    /// The hosts.
    pub hosts: Vec<GalleryHost>,
    /// Files left out.
    pub skipped: Vec<Skipped>,
}

/// The sockets a core-to-core-latency result's file name states.
pub fn sockets_from_name(file: &str) -> Option<u32> {
    file.starts_with("Dual ").then_some(2)
}

/// One host: inferred, then predicted at `rate` with every CPU writing.
fn host(file: &str, m: &PairMatrix, rate: f64) -> Result<GalleryHost, PredictError> {
    // The name's sockets only where the matrix alone finds one node.
    let mut h: InferredHost = infer(m, file, None);
    let mut sockets = None;
    if let Some(k) = sockets_from_name(file).filter(|_| h.topology.nodes.len() == 1) {
        h = infer(m, file, Some(k as usize));
        sockets = Some(k);
    }
    let topo: &Topology = &h.topology;
    // The default comparison, as `contend run` compares it.
    use ShardLevel::{Cpu, Global, Llc, Node};
    let req = PredictRequest {
        layout: super::Layout {
            writers: topo.online_cpus.to_vec(),
            readers: Vec::new(),
            read_every: 1,
        },
        levels: vec![Global, Node, Llc, Cpu],
        policies: vec![
            PublishPolicy::ALWAYS,
            "ratelimit:1ms".parse().expect("a policy"),
        ],
        rates: vec![rate],
        latencies: h.latencies(),
        arrivals: Arrivals::Poisson,
        walks: super::Walks::of_seed(1),
        publishes: Vec::new(),
    };
    let p = predict(topo, file, &req)?;
    let strategies: Vec<GalleryStrategy> = p
        .strategies
        .iter()
        .map(|s| {
            let q = &s.points[0];
            GalleryStrategy {
                name: s.name.clone(),
                state: q.state,
                cost_ns: q.cost_ns,
                cpu_share_pct: q.cpu_share_pct,
            }
        })
        .collect();
    let winner = strategies
        .iter()
        .filter_map(|s| Some((s, s.cost_ns?.mid)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s.name.clone());
    let (smt_cores, llcs, nodes) = h.counts();
    let jump = h.biggest_jump();
    Ok(GalleryHost {
        file: file.to_string(),
        cpus: topo.cpus.len(),
        smt_cores,
        llcs,
        nodes,
        home_node: h.home_node,
        sockets_from_name: sockets,
        jump: jump.map(|(_, to)| Jump::into(to.class)),
        jump_ns: jump.map(|(a, b)| (a.median_ns, b.median_ns)),
        classes: h.classes,
        strategies,
        winner,
    })
}

/// The gallery of `files` (each a file name and its matrix, or why it could not be read) read from
/// `source`, predicted at `rate` per CPU.
pub fn gallery(
    source: &str,
    files: Vec<(String, Result<PairMatrix, String>)>,
    rate: f64,
) -> Gallery {
    let mut hosts = Vec::new();
    let mut skipped = Vec::new();
    for (file, m) in files {
        match m.and_then(|m| host(&file, &m, rate).map_err(|e| e.to_string())) {
            Ok(h) => hosts.push(h),
            Err(reason) => skipped.push(Skipped { file, reason }),
        }
    }
    hosts.sort_by(|a, b| {
        (b.nodes, b.cpus)
            .cmp(&(a.nodes, a.cpus))
            .then_with(|| a.file.cmp(&b.file))
    });
    Gallery {
        schema: SCHEMA_VERSION,
        source: source.to_string(),
        rate,
        hosts,
        skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dual_hosts_name_gives_the_sockets_its_matrix_cannot() {
        // Sorting, skipped files, jumps and winners are tests/gallery.rs's and the gallery
        // snapshot's. 16 CPUs in LLCs of 8, no SMT: same-llc 40 ns, cross-llc 120 ns.
        let m = PairMatrix::from_fn(16, |i, j| if i / 8 == j / 8 { 40.0 } else { 120.0 });
        let g = gallery("dir", vec![("Dual x.csv".into(), Ok(m))], 22_000.0);
        let dual = &g.hosts[0];
        // One node from the matrix, two from the name.
        assert_eq!(
            (dual.nodes, dual.llcs, dual.sockets_from_name),
            (2, 2, Some(2))
        );
        assert_eq!(dual.jump, Some(Jump::Node));
        assert_eq!(dual.jump_ns, Some((40.0, 120.0)));
        assert_eq!(dual.strategies.len(), 8);
    }
}
