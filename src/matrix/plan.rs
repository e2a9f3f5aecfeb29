//! `contend matrix` from request to results: choose the pairs and their
//! home nodes ([`plan_matrix`]), then measure them, check the first against
//! the reference ping-pong, classify and advise ([`measure_matrix`]).

use super::{
    ASYMMETRY_LIMIT_PCT, Home, MatrixConfig, MatrixResults, Mode, OfflineCpu, PairClass,
    PlannedPair, Procedure, REFERENCE_ROUND_TRIPS, ROUND_TRIPS_PER_SAMPLE, Reference,
    ReferenceError, SCHEMA_VERSION, WARMUP_SAMPLES, advise, class_stats, empty_classes,
    measure_all, reference_pingpong, select_pairs,
};
use crate::clock::{Timer, calibrate_tsc};
use crate::placement::PlacementError;
use crate::provenance::Provenance;
use crate::topology::{Clipped, CpuSpec, MemoryNodeError, SpecError, Topology};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What `contend matrix` is asked to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixRequest {
    /// CPUs whose pairs are measured.
    pub cpus: CpuSpec,
    /// `--clip`: keep only the allowed CPUs of a spec that names others.
    pub clip: bool,
    /// Timed samples per direction of each pair.
    pub samples: usize,
    /// Where each pair's lines live.
    pub home: Home,
    /// The hand-off measured.
    pub mode: Mode,
    /// At most this many pairs per class (`None`: every pair).
    pub per_class: Option<usize>,
}

/// Why a matrix cannot be planned or measured. Each names the option or
/// CPU involved.
#[derive(Debug, thiserror::Error)]
pub enum MatrixError {
    /// `--cpus` names nothing usable here.
    #[error("--cpus: {0}")]
    Cpus(#[from] SpecError),
    /// `--cpus` leaves a single CPU.
    #[error("--cpus {spec} selects only CPU {cpu}; a matrix needs at least 2 CPUs")]
    OneCpu {
        /// The spec as given.
        spec: String,
        /// The one CPU.
        cpu: u32,
    },
    /// A chosen CPU is not online.
    #[error("--cpus: {0}")]
    Offline(#[from] OfflineCpu),
    /// `--home` puts a pair's line on a node without usable memory.
    #[error("--home {home}: {source}{hint}")]
    Home {
        /// `--home` as given.
        home: Home,
        /// Why the node cannot hold the line.
        source: MemoryNodeError,
        /// Which pair's CPU put it there, and what to do instead (empty
        /// for `node:N`).
        hint: String,
    },
    /// A pin or page placement failed.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// The reference ping-pong could not run.
    #[error(transparent)]
    Reference(#[from] ReferenceError),
}

/// The pairs to measure and how, resolved against the host.
#[derive(Debug, Clone)]
pub struct MatrixPlan {
    /// The host layout.
    pub topo: Topology,
    /// The chosen CPUs, ascending.
    pub cpus: Vec<u32>,
    /// Each pair with its home node.
    pub pairs: Vec<(PlannedPair, u32)>,
    /// Every class's pair count among the chosen CPUs.
    pub candidates: BTreeMap<PairClass, usize>,
    /// How pairs are timed.
    pub procedure: Procedure,
    /// At most this many pairs per class (`None`: every pair).
    pub per_class: Option<usize>,
    /// Where each pair's lines live.
    pub home: Home,
    /// Provenance, read before any pinning.
    pub provenance: Provenance,
    /// What `--clip` dropped from `--cpus`, if anything.
    pub clipped: Option<Clipped>,
    /// Notes to print and keep.
    pub notes: Vec<String>,
}

/// Resolves `request` on `topo`: the CPUs, the pairs (a per-class sample
/// unless every pair is asked for) and each one's home node, the timer.
pub fn plan_matrix(request: &MatrixRequest, topo: Topology) -> Result<MatrixPlan, MatrixError> {
    let resolved = request.cpus.resolve(&topo, request.clip)?;
    let clipped = resolved.clipped("--cpus", &request.cpus);
    let mut cpus = resolved.cpus;
    cpus.sort_unstable();
    cpus.dedup();
    if cpus.len() < 2 {
        return Err(MatrixError::OneCpu {
            spec: request.cpus.to_string(),
            cpu: cpus[0],
        });
    }
    if let Home::Node(n) = request.home {
        topo.check_memory_node(n)
            .map_err(|source| MatrixError::Home {
                home: request.home,
                source,
                hint: String::new(),
            })?;
    }
    let selection = select_pairs(&topo, &cpus, request.per_class)?;
    let pairs = selection
        .pairs
        .iter()
        .map(|&p| {
            let cpu = if request.home == Home::Second {
                p.b
            } else {
                p.a
            };
            let node = request
                .home
                .node_for(&topo, p.a, p.b)
                .ok_or_else(|| OfflineCpu {
                    cpu,
                    online: topo.online_cpus.clone(),
                })?;
            topo.check_memory_node(node)
                .map_err(|source| MatrixError::Home {
                    home: request.home,
                    source,
                    hint: format!(" (CPU {cpu} is on node {node}); choose --home node:N"),
                })?;
            Ok((p, node))
        })
        .collect::<Result<Vec<_>, MatrixError>>()?;

    let provenance = Provenance::of_this_host(calibrate_tsc(Duration::from_millis(50)));
    let mut notes: Vec<String> = clipped.iter().map(ToString::to_string).collect();
    notes.extend(provenance.host_notes());
    let procedure = Procedure {
        mode: request.mode,
        samples: request.samples,
        round_trips: ROUND_TRIPS_PER_SAMPLE,
        warmup_samples: WARMUP_SAMPLES,
        timer: Timer::for_host(provenance.tsc_invariant, provenance.tsc_hz),
    };
    Ok(MatrixPlan {
        topo,
        cpus,
        pairs,
        candidates: selection.candidates,
        procedure,
        per_class: request.per_class,
        home: request.home,
        provenance,
        clipped,
        notes,
    })
}

/// Runs the reference ping-pong on the first pair, measures every pair in
/// order (`progress(done, total)` after each), classifies and advises.
pub fn measure_matrix(
    plan: MatrixPlan,
    progress: impl FnMut(usize, usize),
) -> Result<MatrixResults, MatrixError> {
    let (first, _) = plan.pairs[0];
    let reference_ns = reference_pingpong(first.a, first.b, REFERENCE_ROUND_TRIPS)?;
    let started = Instant::now();
    let measured = measure_all(
        &plan.pairs,
        &plan.procedure,
        &plan.topo.allowed_cpus,
        progress,
    )?;
    let elapsed_s = started.elapsed().as_secs_f64();
    let classes = class_stats(
        measured.iter().map(|p| (p.class, p.median_ns)),
        &plan.candidates,
    );
    let p = &plan.procedure;
    Ok(MatrixResults {
        schema: SCHEMA_VERSION,
        config: MatrixConfig {
            cpus: plan.cpus,
            mode: p.mode,
            home: plan.home,
            samples: p.samples,
            round_trips_per_sample: p.round_trips,
            warmup_samples: p.warmup_samples,
            per_class: plan.per_class,
            timer: p.timer.kind(),
            asymmetry_limit_pct: ASYMMETRY_LIMIT_PCT,
            reference_round_trips: REFERENCE_ROUND_TRIPS,
            clipped: plan.clipped.into_iter().collect(),
        },
        reference: Reference::new(
            [first.a, first.b],
            REFERENCE_ROUND_TRIPS,
            reference_ns,
            measured[0].median_ns,
        ),
        advice: advise(&classes),
        empty_classes: empty_classes(&classes),
        classes,
        pairs: measured,
        provenance: plan.provenance,
        topology: plan.topo,
        notes: plan.notes,
        elapsed_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::CpuSpec;

    use crate::topology::fixture;

    fn request(cpus: &str, home: Home) -> MatrixRequest {
        MatrixRequest {
            cpus: cpus.parse::<CpuSpec>().unwrap(),
            samples: 10,
            home,
            mode: Mode::Cas,
            per_class: None,
            clip: false,
        }
    }

    /// The error's text when the pair's home node has no memory.
    fn home_error(cpus: &str, home: Home) -> String {
        match plan_matrix(&request(cpus, home), fixture("cpuless-memless")) {
            Err(e @ MatrixError::Home { .. }) => e.to_string(),
            other => panic!("--cpus {cpus} --home {home}: {other:?}"),
        }
    }

    #[test]
    fn a_memoryless_home_names_the_cpu_that_put_the_line_there() {
        // cpuless-memless: node 0 is CPUs 0-3 with memory, node 1 is CPUs
        // 4-7 without. The pair (0, 4) lives on 4's node with --home
        // second, and (4, 5) on 4's node with --home first.
        let second = home_error("0,4", Home::Second);
        assert!(second.contains("(CPU 4 is on node 1)"), "{second}");
        let first = home_error("4,5", Home::First);
        assert!(first.contains("(CPU 4 is on node 1)"), "{first}");
        assert!(first.starts_with("--home first: "), "{first}");
        // The pair (0, 4) with its line on 0's node plans.
        let plan = plan_matrix(&request("0,4", Home::First), fixture("cpuless-memless")).unwrap();
        assert_eq!(plan.pairs.len(), 1);
        assert_eq!(
            (plan.pairs[0].0.a, plan.pairs[0].0.b, plan.pairs[0].1),
            (0, 4, 0)
        );
    }

    #[test]
    fn a_matrix_needs_two_cpus_and_takes_more() {
        let topo = fixture("cpuless-memless");
        let err = plan_matrix(&request("2", Home::First), topo.clone()).unwrap_err();
        assert!(matches!(err, MatrixError::OneCpu { cpu: 2, .. }), "{err:?}");
        let plan = plan_matrix(&request("0-2", Home::First), topo).unwrap();
        assert_eq!(plan.cpus, [0, 1, 2]);
        assert_eq!(plan.pairs.len(), 3);
    }
}
