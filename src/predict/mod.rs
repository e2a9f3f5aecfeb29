//! `contend predict`: how busy the hot line is, when it saturates, and what each strategy costs per
//! update, for any host, from its topology and class latencies (BACKGROUND.md, "Cost follows the
//! update rate"; Boyd-Wickizer et al. 2012).

mod agreement;
pub mod c2c;
mod check;
pub mod class;
pub mod costs;
mod flat_out_check;
pub mod gallery;
pub mod inferred;
pub mod latency;
mod model;
mod publish;
pub mod queue;
mod result;
pub mod scoreboard;
#[cfg(test)]
mod tests;

pub use agreement::{AGREEMENT_PCT, Agreement};
pub use check::{CheckPoint, CheckResults, Knee, check};
pub use class::{Bound, ClassLatency};
pub use costs::{CostCurve, GivenPublish, HomeCost, HostCosts, HostCostsError, LineCosts};
pub use flat_out_check::HandoverPoint;
pub use latency::{Latencies, LatencyArg, MissingClass, NonPositive};
pub use model::{Capacity, Evaluation, Layout, Lines};
pub use publish::{Walks, publish_fraction};
pub use result::{
    ClassUse, FlatOutPrediction, LineState, NodePrediction, PointPrediction, PredictConfig,
    PredictResults, Range, SCHEMA_VERSION, SaturationRate, StrategyPrediction,
};

use crate::counter::{PublishPolicy, ShardLevel};
use crate::matrix::OfflineCpu;
use crate::topology::Topology;
use crate::workload::Arrivals;
use std::collections::HashMap;

/// `contend predict --help`: what the model is and how to feed it.
pub const LONG_ABOUT: &str = "\
Predict, for any host, how busy the hot counter's cache line is at each
update rate, where it saturates, and what each strategy costs per update.

The model: a hot line is a single server. Every publish that finds the
line in another CPU's cache waits for one transfer; so does every read
of a line another CPU wrote since (a fetch); which fetches occupy the
line (every one by default, the first per node or LLC, or only the first
after a write) and what the others cost (an LLC hit) a --host host-costs file
can say. A transfer takes the class latency
between the two CPUs (smt, same-llc, same-node, cross-node@D: from
`contend matrix`, or --host CLASS=TIME,…), averaged over the CPUs that can have
held the line; a write after reads invalidates every sharer. Published
or measured costs refine it (--host FILE): the transfer time's
growth with the CPUs queued at the line, the writer's upgrade by
readers, a transfer to a CPU off the memory's node, the hot lines every
event touches. Each CPU waits for its own update before its next (a
closed population: exact mean value analysis, the CPUs on the memory's
node one class and the others another), so a cost is predicted at any
load, past saturation too: there the line serves one transfer at a time and each
CPU's update waits for all the others'. ρ = offered transfers/s × mean
transfer time. A ratelimit caps each CPU's publishes at one per period
and a threshold publishes the fraction its load walk passes (both
stepped without threads, as `contend run`'s writers would); a split
divides the writers among lines but makes every read fetch each line
written since.

Every figure is a range from the latencies' uncertainty (±25% unless
given), with how much the CPU share moves per +1% on every transfer.
Net cost is what the shared line adds per update; CPU share is net cost
over (1/rate + net cost): the share of each CPU's time spent on the line.

Examples:
  contend matrix                          # this host's class latencies
  contend predict --host results/<host>/<stamp>/matrix.json
  contend --sysfs-root tests/fixtures/topology/spr-2s-224 predict \\
      --host smt=8ns,same-llc=51ns,cross-node=108ns --rates 22k
  contend predict --host \"tests/fixtures/c2c/AMD EPYC 7R13 48-Core Processor.csv\"
  contend run --level global --publish always --rate 10k,100k,1M,3M
  contend predict --check results/<host>/<stamp>/run.json";

/// A line whose offered ρ at the high latencies reaches this is near the knee: its figures are said
/// with how much they move per +1% of transfer time (the queue, not the rate, sets them there).
pub const KNEE: f64 = 0.8;

/// The uniform scaling of every transfer time the sensitivity is taken over: +1%.
pub const SENSITIVITY_STEP: f64 = 1.01;

/// The rate a flat-out writer is modelled at, updates/s: far past any line's capacity (0.1 ns an
/// update), where only a ratelimit keeps a line below saturation.
pub const FLAT_OUT_RATE: f64 = 1e10;

/// The chart's rates: from this many updates/s per CPU …
pub const CURVE_FROM: f64 = 100.0;
/// … to this many …
pub const CURVE_TO: f64 = 1e8;
/// … with this many points per decade.
pub const CURVE_PER_DECADE: u32 = 4;

/// What to predict.
#[derive(Debug, Clone)]
pub struct PredictRequest {
    /// Who touches the counter.
    pub layout: Layout,
    /// Shard levels.
    pub levels: Vec<ShardLevel>,
    /// Publish policies.
    pub policies: Vec<PublishPolicy>,
    /// Updates per second per writer CPU.
    pub rates: Vec<f64>,
    /// Class latencies.
    pub latencies: Latencies,
    /// How updates fall in time.
    pub arrivals: Arrivals,
    /// The writers' load walks (publish fractions are stepped over them).
    pub walks: Walks,
    /// Publish fractions given for policies (a published or measured figure, a host-costs file),
    /// used at every rate in place of the walks'.
    pub publishes: Vec<GivenPublish>,
}

/// Why a prediction cannot be made. Each names what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum PredictError {
    /// A CPU of the layout is not in the topology.
    #[error(transparent)]
    Offline(#[from] OfflineCpu),
    /// A class of the layout has no latency.
    #[error(transparent)]
    Missing(#[from] MissingClass),
    /// A line cost that does not cover the chosen CPUs (a home ratio per class without one of their
    /// classes).
    #[error(transparent)]
    Cost(#[from] HostCostsError),
    /// A transfer priced at or below 0 ns.
    #[error(transparent)]
    NonPositive(#[from] NonPositive),
    /// No rate to predict at.
    #[error("--rates needs at least one rate (22k, 1M)")]
    NoRates,
    /// No writer.
    #[error("no writer CPU: --writers must be at least 1")]
    NoWriters,
    /// An empty strategy list.
    #[error("--level and --publish each need at least one value")]
    NoStrategy,
    /// A result file `--check` cannot use.
    #[error("--check {file}: {reason}")]
    Check {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
}

/// Publish fractions: given ones, and those already stepped over the walks, by policy and rate.
struct Fractions<'a> {
    walks: Walks,
    given: &'a [GivenPublish],
    stepped: HashMap<(PublishPolicy, u64), f64>,
}

impl Fractions<'_> {
    fn get(&mut self, policy: PublishPolicy, rate: f64, bound: Bound) -> f64 {
        if let Some(g) = self.given.iter().find(|g| g.policy == policy) {
            return g.at(bound);
        }
        let walks = self.walks;
        *self
            .stepped
            .entry((policy, rate.to_bits()))
            .or_insert_with(|| publish_fraction(policy, rate, walks))
    }
}

/// The strategy and rate model, with its publish fractions.
struct Model<'a, 'g> {
    lines: &'a Lines,
    policy: PublishPolicy,
    lat: &'a Latencies,
    arrivals: Arrivals,
    fractions: &'a mut Fractions<'g>,
}

/// `f` at the low, central and high latencies.
fn ranged<T>(mut f: impl FnMut(Bound) -> T) -> [T; 3] {
    [Bound::Low, Bound::Mid, Bound::High].map(&mut f)
}

impl Model<'_, '_> {
    /// Flat out: writers' publishes fall as a ratelimit's period or the loop makes them, evenly.
    fn flat_out(&mut self) -> FlatOutPrediction {
        let c = ranged(|b| {
            let f = self.fractions.get(self.policy, FLAT_OUT_RATE, b);
            self.lines
                .evaluate(FLAT_OUT_RATE, f, self.lat, b, Arrivals::Paced)
                .capacity
        });
        FlatOutPrediction {
            handovers_per_s: Range::of(&c, |c| c.handovers_per_s),
            saturated_lines: c[1].saturated_lines,
            round_ns: rounds(&c),
        }
    }

    fn at(&mut self, rate: f64, bound: Bound) -> Evaluation {
        let f = self.fractions.get(self.policy, rate, bound);
        self.lines.evaluate(rate, f, self.lat, bound, self.arrivals)
    }

    fn point(&mut self, rate: f64) -> PointPrediction {
        let f = self.fractions.get(self.policy, rate, Bound::Mid);
        let e = ranged(|b| self.at(rate, b));
        let mid = &e[1];
        let rho = Range::of(&e, |x| x.rho);
        let state = if rho.mid >= 1.0 {
            LineState::Saturated
        } else if rho.hi >= KNEE {
            LineState::Near
        } else {
            LineState::Below
        };
        let scaled = self.lines.evaluate(
            rate,
            f,
            &self.lat.scaled(SENSITIVITY_STEP),
            Bound::Mid,
            self.arrivals,
        );
        let home = self.lat.costs.home_node;
        let by_node = mid
            .by_node
            .iter()
            .enumerate()
            .map(|(i, n)| NodePrediction {
                node: n.node,
                writers: n.writers,
                home: n.node == home,
                cost_ns: Range::of(&e, |x| x.by_node[i].cost_ns),
                cpu_share_pct: Range::of(&e, |x| share_pct(x.by_node[i].cost_ns, rate)),
            })
            .collect();
        let capacity = e.each_ref().map(|x| x.capacity);
        PointPrediction {
            handovers_per_s: Some(Range::of(&capacity, |c| c.handovers_per_s)),
            round_ns: rounds(&capacity).filter(|_| state == LineState::Saturated),
            rate,
            publish_fraction: f,
            rho,
            state,
            cost_ns: Some(Range::of(&e, |x| x.cost_ns)),
            cpu_share_pct: Some(Range::of(&e, |x| share_pct(x.cost_ns, rate))),
            achieved_rate: Some(Range::of(&e, |x| x.achieved_rate)),
            queue: mid.queue,
            share_per_pct: Some(share_pct(scaled.cost_ns, rate) - share_pct(mid.cost_ns, rate)),
            by_node,
            write_transfers: mid.write_transfers,
            read_transfers: mid.read_transfers,
            hottest_writers: mid.hottest_writers,
        }
    }

    /// The rate per CPU at which the hottest line reaches ρ = 1 at `bound`; `None` when it stays
    /// below up to 10¹¹/s.
    fn saturation(&mut self, bound: Bound) -> Option<f64> {
        saturation_rate(|r| {
            let f = self.fractions.get(self.policy, r, bound);
            self.lines.rho(r, f, self.lat, bound, self.arrivals)
        })
    }
}

/// The share of a CPU, %, that `cost_ns` per update takes at `rate` updates a second of its own
/// work: cost / (1/rate + cost).
pub fn share_pct(cost_ns: f64, rate: f64) -> f64 {
    100.0 * cost_ns / (1e9 / rate + cost_ns)
}

/// The round of a saturated line at the three bounds; `None` unless it saturates at all three.
fn rounds(c: &[Capacity; 3]) -> Option<Range> {
    Some(Range {
        lo: c[0].round_ns?,
        mid: c[1].round_ns?,
        hi: c[2].round_ns?,
    })
}

/// The rate in [1, 10¹¹] per second at which `rho(rate)` (rising with the rate) reaches 1, to
/// within 0.1%; `None` when it never does.
pub fn saturation_rate(mut rho: impl FnMut(f64) -> f64) -> Option<f64> {
    let (mut lo, mut hi) = (0.0f64, 11.0 * std::f64::consts::LN_10);
    if rho(hi.exp()) < 1.0 {
        return None;
    }
    if rho(1.0) >= 1.0 {
        return Some(1.0);
    }
    while hi - lo > 1e-3 {
        let mid = 0.5 * (lo + hi);
        if rho(mid.exp()) >= 1.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some((0.5 * (lo + hi)).exp())
}

/// The chart's rates: [`CURVE_PER_DECADE`] per decade from [`CURVE_FROM`] to [`CURVE_TO`].
pub fn curve_rates() -> Vec<f64> {
    let decades = (CURVE_TO / CURVE_FROM).log10().round() as u32;
    (0..=decades * CURVE_PER_DECADE)
        .map(|i| CURVE_FROM * 10f64.powf(f64::from(i) / f64::from(CURVE_PER_DECADE)))
        .collect()
}

/// Predicts every level × policy of `req` at every rate on `topo`.
pub fn predict(
    topo: &Topology,
    host: &str,
    req: &PredictRequest,
) -> Result<PredictResults, PredictError> {
    if req.rates.is_empty() {
        return Err(PredictError::NoRates);
    }
    if req.layout.writers.is_empty() {
        return Err(PredictError::NoWriters);
    }
    if req.levels.is_empty() || req.policies.is_empty() {
        return Err(PredictError::NoStrategy);
    }
    req.latencies.positive()?;
    let mut fractions = Fractions {
        walks: req.walks,
        given: &req.publishes,
        stepped: HashMap::new(),
    };
    let mut strategies = Vec::new();
    let mut classes = std::collections::BTreeSet::new();
    // Each level's lines once: every policy shares them.
    let mut by_level = Vec::with_capacity(req.levels.len());
    for &level in &req.levels {
        let lines = Lines::new(topo, &req.layout, level)?;
        lines.check(&req.latencies)?;
        req.latencies.costs.check_home(lines.classes())?;
        classes.extend(lines.classes());
        by_level.push(lines);
    }
    for &publish in &req.policies {
        for (&level, lines) in req.levels.iter().zip(&by_level) {
            let mut model = Model {
                lines,
                policy: publish,
                lat: &req.latencies,
                arrivals: req.arrivals,
                fractions: &mut fractions,
            };
            // The lowest saturation rate is at the highest latencies.
            let [hi, mid, lo] = ranged(|b| model.saturation(b));
            strategies.push(StrategyPrediction {
                name: format!("{level}/{publish}"),
                level,
                publish,
                lines: lines.count(),
                saturation: SaturationRate { lo, mid, hi },
                points: req.rates.iter().map(|&r| model.point(r)).collect(),
                flat_out: Some(model.flat_out()),
                curve: curve_rates().into_iter().map(|r| model.point(r)).collect(),
            });
        }
    }
    let classes = classes
        .into_iter()
        .map(|c| {
            Ok(ClassUse {
                class: c.to_string(),
                latency: req.latencies.of(c)?,
            })
        })
        .collect::<Result<Vec<_>, MissingClass>>()?;
    Ok(PredictResults {
        schema: SCHEMA_VERSION,
        host: host.to_string(),
        cpus: topo.online_cpus.len(),
        nodes: topo.nodes.iter().filter(|n| !n.cpus.is_empty()).count(),
        llcs: topo.llcs.len(),
        config: PredictConfig {
            layout: req.layout.clone(),
            rates: req.rates.clone(),
            arrivals: req.arrivals,
            seed: req.walks.seed,
            load_step: Some(req.walks.step),
            publishes: req.publishes.clone(),
        },
        latencies: req.latencies.clone(),
        classes,
        strategies,
        notes: notes(req),
        inferred: None,
    })
}

/// The notes of a prediction: how updates fall, how transfers are priced, every line cost and its
/// source, the walks and fractions given, and what the figures leave out.
fn notes(req: &PredictRequest) -> Vec<String> {
    let mut notes = vec![format!(
        "arrivals {}: {}",
        req.arrivals,
        match req.arrivals {
            Arrivals::Poisson =>
                "updates fall irregularly, as a kernel's do (contend run --rate paces evenly: \"arrivals\": \"paced\" in a host-costs file predicts one)",
            Arrivals::Paced => "updates evenly spaced, as contend run --rate paces them",
        }
    )];
    notes.push(req.latencies.pricing());
    notes.extend(req.latencies.costs.inputs());
    if req.walks.step != crate::workload::MAX_STEP {
        notes.push(format!(
            "load walks of step {} (threshold_publishes): threshold:64 publishes {:.1}% of updates on them",
            req.walks.step,
            100.0 * crate::workload::threshold_publish_fraction(req.walks.step, req.walks.seed)
        ));
    }
    for g in &req.publishes {
        notes.push(format!(
            "{} publishes {}% of updates at every rate ({}–{}%), as given ({}), not stepped over the load walks",
            g.policy,
            crate::units::si(100.0 * g.fraction),
            crate::units::si(100.0 * g.at(Bound::Low)),
            crate::units::si(100.0 * g.at(Bound::High)),
            g.source
        ));
    }
    if req.policies.iter().any(|p| p.ratelimit.is_some()) {
        notes.push(
            "a ratelimit's own clock read on every update is not in these figures (no run to measure it in place; predict --check on a paced run charges what its clock floor measured, about 10 ns per update on the development host)"
                .into(),
        );
    }
    if req.layout.read_every == 0 && req.layout.readers.is_empty() {
        notes.push("no read side (--readers every:0, no readers): reads cost nothing here".into());
    }
    notes
}
