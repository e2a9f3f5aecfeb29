//! `contend matrix` from request to results: choose the pairs and their home nodes
//! ([`plan_matrix`]), then measure them, check the first against the reference ping-pong, classify
//! and advise ([`measure_matrix`]).

use super::contenders::measure_contenders;
use super::home::{PAIRS_PER_CLASS as HOME_PAIRS_PER_CLASS, measure_home_classes};
use super::sharers::measure_sharers;
use super::span::widest_classes;
use super::{
    ASYMMETRY_LIMIT_PCT, Counts, Home, MatrixConfig, MatrixResults, Mode, OfflineCpu, PASSES,
    PairClass, PlannedPair, Procedure, REFERENCE_ROUND_TRIPS, ROUND_TRIPS_PER_SAMPLE, Reference,
    ReferenceError, SCHEMA_VERSION, WARMUP_SAMPLES, advise, class_stats, empty_classes,
    measure_all, reference_pingpong, select_pairs, span_order, transaction_transfers,
};
use crate::clock::{Timer, calibrate_tsc};
use crate::placement::PlacementError;
use crate::provenance::Provenance;
use crate::topology::{Clipped, CpuSpec, MemoryNodeError, SpecError, Topology};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// One-way transfer time a matrix's estimate assumes, ns.
pub const ASSUMED_ONE_WAY_NS: f64 = 150.0;

/// Seconds `pairs` pairs take at `samples` samples per direction and `one_way_ns` a transfer, each
/// pass starting its threads twice at `pair_setup_s`, the reference ping-pong first.
pub fn pairs_s(pairs: usize, samples: usize, one_way_ns: f64, pair_setup_s: f64) -> f64 {
    let round_trip_s = 2.0 * one_way_ns * 1e-9;
    let per_pair = 2.0 * PASSES as f64 * pair_setup_s
        + 2.0 * (samples + WARMUP_SAMPLES) as f64 * ROUND_TRIPS_PER_SAMPLE as f64 * round_trip_s
        + transaction_transfers(PASSES) * one_way_ns * 1e-9;
    pairs as f64 * per_pair + REFERENCE_ROUND_TRIPS as f64 * round_trip_s
}

/// What `contend matrix` is asked to measure.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// `--contenders`: how many CPUs add to one line at once (`None`: not measured).
    pub contenders: Option<Counts>,
    /// `--sharers`: how many readers share the line one writer adds to (`None`: not measured).
    pub sharers: Option<Counts>,
    /// `--home-classes`: price each class with the line local and remote to the requester.
    pub home_classes: bool,
}

/// Why a matrix cannot be planned or measured.
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
    /// `--mode`'s home puts a pair's line on a node without usable memory.
    #[error("--mode MODE:home={home}: {source}{hint}")]
    Home {
        /// The home as given.
        home: Home,
        /// Why the node cannot hold the line.
        source: MemoryNodeError,
        /// Which pair's CPU put it there, and what to do instead (empty for `node:N`).
        hint: String,
    },
    /// `--contenders` or `--sharers` asks for more (or fewer) CPUs than the measurement and
    /// `--cpus` allow.
    #[error("{option} {count}: {why}")]
    Count {
        /// The option.
        option: &'static str,
        /// The count asked for.
        count: u32,
        /// What the chosen CPUs allow.
        why: String,
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
    /// The chosen CPUs in span order ([`span_order`]).
    pub order: Vec<u32>,
    /// The widest class among the first k CPUs of `order`, for k = 2, 3, ….
    pub widest: Vec<PairClass>,
    /// The node the contenders' and sharers' lines are bound to.
    pub load_home: u32,
    /// Each k of `--contenders`, ascending (empty: not measured).
    pub contenders: Vec<usize>,
    /// Each m of `--sharers`, ascending (empty: not measured).
    pub sharers: Vec<usize>,
    /// The per-class pairs `--home-classes` measures (empty: not asked).
    pub home_pairs: Vec<PlannedPair>,
}

/// Checks that `node` holds memory for the lines `home` put there (`hint`: whose they are).
fn check_home(topo: &Topology, node: u32, home: Home, hint: String) -> Result<(), MatrixError> {
    (topo.check_memory_node(node)).map_err(|source| MatrixError::Home { home, source, hint })
}

/// Resolves `request` on `topo`: the CPUs, the pairs (a per-class sample unless every pair is asked
/// for) and each one's home node, the timer.
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
        check_home(&topo, n, request.home, String::new())?;
    }
    let (contenders, sharers) = load_counts(request, cpus.len())?;
    let order = span_order(&topo, &cpus)?;
    let widest = widest_classes(&topo, &order)?;
    let load_home = request
        .home
        .node_for(&topo, order[0], order[1])
        .unwrap_or(topo.cpus[0].node);
    if !(contenders.is_empty() && sharers.is_empty()) {
        let hint = format!(
            " (the contenders' and sharers' line, CPU {}); choose --mode MODE:home=node:N",
            order[0]
        );
        check_home(&topo, load_home, request.home, hint)?;
    }
    let home_pairs = if request.home_classes {
        select_pairs(&topo, &cpus, Some(HOME_PAIRS_PER_CLASS))?.pairs
    } else {
        Vec::new()
    };
    let selection = select_pairs(&topo, &cpus, request.per_class)?;
    let pairs = pair_homes(request.home, &topo, &selection.pairs)?;

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
        order,
        widest,
        load_home,
        contenders,
        sharers,
        home_pairs,
    })
}

/// The counts of `--contenders` and `--sharers` that `n` chosen CPUs allow.
fn load_counts(request: &MatrixRequest, n: usize) -> Result<(Vec<usize>, Vec<usize>), MatrixError> {
    let most = u32::try_from(n).unwrap_or(u32::MAX);
    // The counts `counts` asks of `option`, each from `least` (which `fewest` names) to `most`.
    let resolve =
        |counts: &Option<Counts>, option, (least, most), fewest, need: &dyn Fn(u32) -> String| {
            let Some(counts) = counts else {
                return Ok(Vec::new());
            };
            counts
                .resolve(least, most)
                .map_err(|count| MatrixError::Count {
                    option,
                    count,
                    why: if count < least {
                        format!("at least {fewest}")
                    } else {
                        format!("{}; --cpus {} selects {n}", need(count), request.cpus)
                    },
                })
        };
    Ok((
        resolve(
            &request.contenders,
            "--also contenders",
            (2, most),
            "2 CPUs",
            &|k: u32| format!("needs {k} CPUs"),
        )?,
        resolve(
            &request.sharers,
            "--also sharers",
            (1, most - 1),
            "1 reader",
            &|m: u32| format!("a writer and {m} readers need {} CPUs", m + 1),
        )?,
    ))
}

/// Each pair with the node `home` puts its lines on, checked to hold memory.
fn pair_homes(
    home: Home,
    topo: &Topology,
    pairs: &[PlannedPair],
) -> Result<Vec<(PlannedPair, u32)>, MatrixError> {
    pairs
        .iter()
        .map(|&p| {
            let cpu = if home == Home::Second { p.b } else { p.a };
            let node = home.node_for(topo, p.a, p.b).ok_or_else(|| OfflineCpu {
                cpu,
                online: topo.online_cpus.clone(),
            })?;
            let hint = format!(" (CPU {cpu} is on node {node}); choose --mode MODE:home=node:N");
            check_home(topo, node, home, hint)?;
            Ok((p, node))
        })
        .collect()
}

impl MatrixPlan {
    /// Seconds the pairs are expected to take.
    pub fn estimate_s(&self, pair_setup_s: f64) -> f64 {
        let (pairs, samples) = (self.pairs.len(), self.procedure.samples);
        pairs_s(pairs, samples, ASSUMED_ONE_WAY_NS, pair_setup_s)
    }

    /// Bytes the samples hold at once: every pair's one-way figures, both directions of every pass.
    pub fn memory_bytes(&self) -> u64 {
        let per_pair = 2 * PASSES * (self.procedure.samples + WARMUP_SAMPLES) * 8;
        (self.pairs.len() * per_pair) as u64
    }
}

/// Runs the reference ping-pong on the first pair, measures every pair in order.
pub fn measure_matrix(
    plan: MatrixPlan,
    progress: impl FnMut(usize, usize),
) -> Result<MatrixResults, MatrixError> {
    let (first, _) = plan.pairs[0];
    let reference_ns = reference_pingpong(first.a, first.b, REFERENCE_ROUND_TRIPS)?;
    let (timer, allowed, home) = (
        plan.procedure.timer,
        &plan.topo.allowed_cpus,
        plan.load_home,
    );
    let started = Instant::now();
    let measured = measure_all(&plan.pairs, &plan.procedure, allowed, progress)?;
    let elapsed_s = started.elapsed().as_secs_f64();
    let contenders = (plan.contenders.iter())
        .map(|&k| measure_contenders(&plan.order[..k], plan.widest[k - 2], home, timer, allowed))
        .collect::<Result<Vec<_>, _>>()?;
    let sharers = (plan.sharers.iter())
        .map(|&m| {
            let (writer, readers) = (plan.order[0], plan.order[1..=m].to_vec());
            measure_sharers(writer, readers, plan.widest[m - 1], home, timer, allowed)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let home_classes = measure_home_classes(&plan.topo, &plan.home_pairs, timer)?;
    let medians = measured.iter().map(|p| (p.class, p.median_ns));
    let classes = class_stats(medians, &plan.candidates);
    let (p, pair, first_ns) = (&plan.procedure, [first.a, first.b], measured[0].median_ns);
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
        reference: Reference::new(pair, REFERENCE_ROUND_TRIPS, reference_ns, first_ns),
        advice: advise(&classes),
        empty_classes: empty_classes(&classes),
        classes,
        pairs: measured,
        provenance: plan.provenance,
        topology: plan.topo,
        notes: plan.notes,
        elapsed_s,
        contenders,
        sharers,
        home_classes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{CpuSpec, fixture};

    fn request(cpus: &str, home: Home) -> MatrixRequest {
        MatrixRequest {
            cpus: cpus.parse::<CpuSpec>().unwrap(),
            samples: 10,
            home,
            ..MatrixRequest::default()
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
        assert!(first.starts_with("--mode MODE:home=first: "), "{first}");
        // The pair (0, 4) with its line on 0's node plans.
        let plan = plan_matrix(&request("0,4", Home::First), fixture("cpuless-memless")).unwrap();
        let pairs: Vec<_> = plan
            .pairs
            .iter()
            .map(|(p, node)| (p.a, p.b, *node))
            .collect();
        assert_eq!(pairs, [(0, 4, 0)]);
    }

    #[test]
    fn contenders_and_sharers_fit_the_chosen_cpus() {
        // cpuless-memless: CPUs 0-7, node 0 (0-3) with memory. Four CPUs:
        // k = 2 ..= 4, m = 1 ..= 3. (Counts beyond them: tests/matrix.rs
        // bad_requests_exit_2_with_one_line.)
        let topo = fixture("cpuless-memless");
        let r = MatrixRequest {
            contenders: Some(Counts::All),
            sharers: Some(Counts::All),
            ..request("0-3", Home::First)
        };
        let plan = plan_matrix(&r, topo.clone()).unwrap();
        let shape = (plan.order.len(), plan.widest.len(), plan.load_home);
        let counts = (plan.contenders, plan.sharers);
        assert_eq!((counts, shape), ((vec![2, 3, 4], vec![1, 2, 3]), (4, 3, 0)));
        // Not asked: nothing planned; three CPUs make three pairs.
        let plan = plan_matrix(&request("0-2", Home::First), topo).unwrap();
        assert!(plan.contenders.is_empty() && plan.sharers.is_empty());
        assert!(plan.home_pairs.is_empty());
        assert_eq!((plan.cpus, plan.pairs.len()), (vec![0, 1, 2], 3));
    }
}
