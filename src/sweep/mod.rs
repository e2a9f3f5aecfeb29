//! `contend sweep`'s engine: a whole run at every thread count × affinity set (× regime), as in
//! seed 002's table; every point is planned by [`crate::runner::plan()`] before anything runs, so
//! bad input is refused up front.

mod result;

pub use result::{SweepPoint, SweepResults};

use crate::error::UnknownName;
use crate::placement::Placement;
use crate::runner::{
    PlanError, PoolError, PoolSize, Pools, RunError, RunPlan, RunRequest, SCHEMA_VERSION,
    StrategyChoice, execute, plan,
};
use crate::topology::{CpuSpec, Topology};
use crate::workload::Regime;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// Where a sweep point's writers run, as in seed 002's `affinity` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Affinity {
    /// Writers take CPUs from every allowed CPU, round-robin across nodes.
    Unbound,
    /// Every writer on this node (CPU spec `node:N`).
    Node(u32),
}

impl FromStr for Affinity {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, UnknownName> {
        let s = s.trim();
        if s == "unbound" {
            return Ok(Affinity::Unbound);
        }
        s.strip_prefix("node")
            .map(|n| n.strip_prefix(':').unwrap_or(n))
            .and_then(|n| n.parse::<u32>().ok())
            .map(Affinity::Node)
            .ok_or_else(|| UnknownName::new("affinity set", s, ["unbound", "nodeN"]))
    }
}

impl Affinity {
    /// The CPU spec writers take their CPUs from: `spread` or `node:N`.
    pub fn cpu_spec(self) -> CpuSpec {
        match self {
            Affinity::Unbound => CpuSpec::Spread,
            Affinity::Node(n) => CpuSpec::Node(n),
        }
    }
}

/// `unbound` or `nodeN`, the names sweep.json and the tables use.
impl fmt::Display for Affinity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Affinity::Unbound => f.write_str("unbound"),
            Affinity::Node(n) => write!(f, "node{n}"),
        }
    }
}

/// What `contend sweep` is asked to measure.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweepRequest {
    /// Writer thread counts, or percentages of each set's allowed CPUs.
    pub threads: Vec<PoolSize>,
    /// Affinity sets (`None`: unbound, plus every node with allowed CPUs when there are two or
    /// more).
    pub affinity: Option<Vec<Affinity>>,
    /// The regimes at every thread count, in order; `[FlatOut]` is a sweep without a rate axis.
    pub rates: Vec<Regime>,
    /// The strategies at every point.
    pub strategies: StrategyChoice,
    /// Measured time per strategy at each point.
    pub duration: Duration,
    /// Repeats per strategy at each point.
    pub repeats: u32,
    /// Warm-up before each repeat.
    pub warmup: Duration,
    /// Seed of the load walks (the same at every point).
    pub seed: u64,
    /// Strict or best-effort placement.
    pub placement: Placement,
    /// `--clip`: an affinity set with CPUs this process may not use keeps the allowed ones instead
    /// of being an error (always so for the default sets, which are drawn from the allowed CPUs).
    pub clip: bool,
    /// Time budget of the whole sweep (`None`: none).
    pub max_time: Option<Duration>,
}

impl SweepRequest {
    /// The affinity sets to sweep, duplicates dropped, order kept.
    pub fn affinity_sets(&self, nodes_with_cpus: &[u32]) -> Vec<Affinity> {
        let wanted = match &self.affinity {
            Some(list) => list.clone(),
            None if nodes_with_cpus.len() > 1 => std::iter::once(Affinity::Unbound)
                .chain(nodes_with_cpus.iter().map(|&n| Affinity::Node(n)))
                .collect(),
            None => vec![Affinity::Unbound],
        };
        let mut seen = std::collections::HashSet::new();
        wanted.into_iter().filter(|a| seen.insert(*a)).collect()
    }

    /// The run of one point: `threads` writers from `writer_cpus`, each running the read side, with
    /// the sweep's strategies and timing; everything else at `contend run`'s defaults.
    fn point_request(&self, threads: usize, writer_cpus: CpuSpec, regime: Regime) -> RunRequest {
        RunRequest {
            pools: Pools {
                writers: Some(PoolSize::Count(threads)),
                writer_cpus: Some(writer_cpus),
                ..Pools::default()
            },
            read_every: 1,
            strategies: self.strategies.clone(),
            duration: self.duration,
            warmup: self.warmup,
            repeats: self.repeats,
            rates: vec![regime],
            seed: self.seed,
            placement: self.placement,
            ..RunRequest::default()
        }
    }
}

/// One planned point: a whole run at one thread count, affinity set and regime.
#[derive(Debug, Clone)]
pub struct PointPlan {
    /// Writer threads.
    pub threads: usize,
    /// `unbound` or `nodeN`.
    pub affinity: String,
    /// Flat out, or the rate per thread.
    pub regime: Regime,
    /// The run.
    pub plan: RunPlan,
}

impl PointPlan {
    /// `affinity × N threads` (and `, paced at R/s per thread`), as progress lines and errors name
    /// a point.
    pub fn label(&self) -> String {
        let threads = format!("{} × {} threads", self.affinity, self.threads);
        match self.regime {
            Regime::FlatOut => threads,
            paced => format!("{threads}, {paced}"),
        }
    }
}

/// Every point of a sweep, in the order run, and the notes to print.
#[derive(Debug, Clone)]
pub struct SweepPlan {
    /// Affinity set by affinity set, thread counts ascending.
    pub points: Vec<PointPlan>,
    /// Notes, each once.
    pub notes: Vec<String>,
    /// The sweep's time budget, seconds (`None`: none).
    pub max_time_s: Option<f64>,
}

impl SweepPlan {
    /// Repeats over all points (for a progress bar).
    pub fn total_repeats(&self) -> usize {
        self.points
            .iter()
            .map(|p| p.plan.entries() * p.plan.config.repeats)
            .sum()
    }
}

/// Plans every point of `request` on `topo`.
pub fn plan_sweep(request: &SweepRequest, topo: &Topology) -> Result<SweepPlan, PlanError> {
    if request.threads.is_empty() {
        return Err(PlanError::NoThreadCounts);
    }
    if request.threads.contains(&PoolSize::Count(0)) {
        return Err(PlanError::ZeroThreads);
    }
    if request.rates.is_empty() {
        return Err(PlanError::NoRates);
    }
    let nodes_with_cpus: Vec<u32> = topo
        .nodes
        .iter()
        .filter(|n| !n.cpus.intersection(&topo.allowed_cpus).is_empty())
        .map(|n| n.id)
        .collect();
    let mut notes: Vec<String> = Vec::new();
    let mut points = Vec::new();
    let clip = request.clip || request.affinity.is_none();
    for affinity in request.affinity_sets(&nodes_with_cpus) {
        let option = "--affinity";
        let resolved = (affinity.cpu_spec().resolve(topo, clip))
            .map_err(|source| PoolError::Cpus { option, source })?;
        let clipped = resolved.clipped(option, affinity);
        // A clipped set's points run on the CPUs kept, named as a list.
        let spec = match &clipped {
            Some(c) => {
                notes.push(c.to_string());
                CpuSpec::List(c.kept.iter().copied().collect())
            }
            None => affinity.cpu_spec(),
        };
        let cpus = resolved.cpus;
        let mut counts = std::collections::BTreeSet::new();
        for t in &request.threads {
            let n = t.resolve(cpus.len());
            if n > cpus.len() {
                notes.push(format!(
                    "{affinity}: {n} threads skipped, the set has {} allowed CPUs",
                    cpus.len()
                ));
            } else {
                counts.insert(n);
            }
        }
        for threads in counts {
            for &regime in &request.rates {
                let mut run = plan(
                    &request.point_request(threads, spec.clone(), regime),
                    topo.clone(),
                )?;
                run.config.clipped.extend(clipped.clone());
                for note in &run.notes {
                    if !notes.contains(note) {
                        notes.push(note.clone());
                    }
                }
                points.push(PointPlan {
                    threads,
                    affinity: affinity.to_string(),
                    regime,
                    plan: run,
                });
            }
        }
    }
    if points.is_empty() {
        return Err(PlanError::NothingToRun { notes });
    }
    Ok(SweepPlan {
        points,
        notes,
        max_time_s: request.max_time.map(|d| d.as_secs_f64()),
    })
}

/// Why a sweep stopped before its last point.
#[derive(Debug)]
pub enum SweepStop {
    /// A stop was requested; the unfinished point was dropped.
    Interrupted,
    /// The time budget ran out; the point it stopped was kept, partial.
    OutOfTime,
    /// A point failed (placement refused, or a request the host cannot run).
    Failed {
        /// The point, as [`PointPlan::label`] names it.
        point: String,
        /// Why.
        error: RunError,
    },
}

/// Runs every point of `plan` in order: every finished point, and why it stopped early if it did.
pub fn execute_sweep<E>(
    plan: &mut SweepPlan,
    stop: &AtomicBool,
    mut progress: impl FnMut(usize, &str, &str),
    mut finished: impl FnMut(usize, &SweepResults, f64) -> Result<(), E>,
) -> Result<(SweepResults, Option<SweepStop>), E> {
    let mut sweep = SweepResults {
        schema: SCHEMA_VERSION,
        partial: true,
        out_of_time: false,
        points: Vec::new(),
    };
    let mut stopped = None;
    let mut before = 0;
    let started = Instant::now();
    for (i, point) in plan.points.iter_mut().enumerate() {
        if stop.load(Ordering::Relaxed) {
            stopped = Some(SweepStop::Interrupted);
            break;
        }
        if let Some(budget) = plan.max_time_s {
            let left = budget - started.elapsed().as_secs_f64();
            if left <= 0.0 {
                stopped = Some(SweepStop::OutOfTime);
                break;
            }
            point.plan.config.max_time_s = Some(left);
        }
        let label = point.label();
        point.plan.provenance.started_utc =
            humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
        let t0 = Instant::now();
        let outcome = execute(&point.plan, stop, |done, _, name| {
            progress(before + done, &label, name)
        });
        before += point.plan.entries() * point.plan.config.repeats;
        // A point the budget stopped is kept; one a stop cut short is not.
        stopped = match outcome {
            Ok(r) if r.partial && !r.out_of_time => Some(SweepStop::Interrupted),
            Ok(r) => {
                let out = r.out_of_time.then_some(SweepStop::OutOfTime);
                sweep.points.push(SweepPoint {
                    threads: point.threads,
                    affinity: point.affinity.clone(),
                    regime: point.regime,
                    results: r,
                });
                out
            }
            Err(error) => Some(SweepStop::Failed {
                point: label,
                error,
            }),
        };
        if stopped.is_some() {
            break;
        }
        finished(i, &sweep, t0.elapsed().as_secs_f64())?;
    }
    sweep.partial = stopped.is_some();
    sweep.out_of_time = matches!(stopped, Some(SweepStop::OutOfTime));
    Ok((sweep, stopped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(affinity: Option<Vec<Affinity>>) -> SweepRequest {
        SweepRequest {
            threads: vec![PoolSize::Percent(100.0)],
            affinity,
            rates: vec![Regime::FlatOut],
            strategies: StrategyChoice {
                levels: vec![crate::counter::ShardLevel::Global],
                policies: vec!["always".parse().unwrap()],
                pads: vec![crate::counter::Pad::Line128],
                clocks: vec![crate::clock::ClockKind::Tsc],
            },
            duration: Duration::from_millis(10),
            repeats: 1,
            warmup: Duration::ZERO,
            seed: 1,
            ..SweepRequest::default()
        }
    }

    #[test]
    fn default_affinity_sets_follow_the_nodes_with_cpus() {
        use Affinity::{Node, Unbound};
        let r = request(None);
        assert_eq!(r.affinity_sets(&[0]), [Unbound]);
        assert_eq!(r.affinity_sets(&[0, 1]), [Unbound, Node(0), Node(1)]);
        let given = request(Some(vec![Node(1), Unbound, Node(1)]));
        assert_eq!(given.affinity_sets(&[0]), [Node(1), Unbound]);
    }

    #[test]
    fn a_sweep_counts_its_repeats_and_reports_each_in_order() {
        // 1 and 2 writers at every affinity set of this host, 1 strategy ×
        // 2 repeats of 5 ms each.
        let topo = Topology::read(std::path::Path::new("/")).unwrap();
        let mut r = request(None);
        r.threads = vec![PoolSize::Count(1), PoolSize::Count(2)];
        r.repeats = 2;
        let mut plan = plan_sweep(&r, &topo).unwrap();
        let points = plan.points.len();
        assert!(points >= 2, "{points}");
        assert_eq!(plan.total_repeats(), 2 * points);
        let mut seen = Vec::new();
        let mut finished = Vec::new();
        let (results, stopped) = execute_sweep(
            &mut plan,
            &AtomicBool::new(false),
            |done, _, _| seen.push(done),
            |i, so_far, _| {
                finished.push((i, so_far.points.len()));
                Ok::<(), ()>(())
            },
        )
        .unwrap();
        assert_eq!(seen, (1..=2 * points).collect::<Vec<_>>());
        let each = (0..points).map(|i| (i, i + 1));
        assert_eq!(finished, each.collect::<Vec<_>>());
        assert!(stopped.is_none() && !results.partial);
        assert_eq!(results.points.len(), points);
    }

    #[test]
    fn a_budget_that_runs_out_keeps_the_stopped_point_and_ends_the_sweep() {
        // 1 then 2 writers, 4 repeats of 100 ms each, against 0.7 s: the
        // first point's hammer floor and some repeats fit, not the rest.
        let topo = Topology::read(std::path::Path::new("/")).unwrap();
        let mut r = request(None);
        r.threads = vec![PoolSize::Count(1), PoolSize::Count(2)];
        (r.repeats, r.duration) = (4, Duration::from_millis(400));
        r.max_time = Some(Duration::from_millis(700));
        let mut plan = plan_sweep(&r, &topo).unwrap();
        assert_eq!(plan.max_time_s, Some(0.7));
        let started = Instant::now();
        let (sweep, stopped) = execute_sweep(
            &mut plan,
            &AtomicBool::new(false),
            |_, _, _| {},
            |_, _, _| Ok::<(), ()>(()),
        )
        .unwrap();
        let took = started.elapsed().as_secs_f64();
        assert!(matches!(stopped, Some(SweepStop::OutOfTime)));
        assert!(sweep.partial && sweep.out_of_time);
        assert_eq!(sweep.stopped(), Some(crate::runner::Stopped::OutOfTime));
        // The point the budget stopped is kept, itself partial.
        let last = sweep.points.last().unwrap();
        assert!(last.results.out_of_time, "{:?}", last.threads);
        // At worst one slow repeat (100 ms) past the budget.
        assert!(took <= 0.7 + 0.1, "{took} s for a 0.7 s budget");
    }

    #[test]
    fn a_set_with_cpus_not_allowed_is_refused_unless_clipped() {
        // The fixture's cpuset allows CPUs 2-5: node 0 is 0-3, node 1 4-7.
        let topo = crate::topology::fixture("restricted-cpuset");
        let r = request(Some(vec![Affinity::Node(0)]));
        let err = plan_sweep(&r, &topo).unwrap_err().to_string();
        let says = |s| err.contains(s);
        let refused = err.starts_with("--affinity: ") && says("names CPUs 0-1");
        assert!(refused && says("may use 2-5"), "{err}");
        let clipped = SweepRequest { clip: true, ..r };
        let plan = plan_sweep(&clipped, &topo).unwrap();
        let note = "--affinity node0 clipped to CPUs 2-3 (0-1 are not allowed here)";
        assert!(plan.notes.iter().any(|n| n == note), "{:?}", plan.notes);
        for c in plan.points.iter().map(|p| &p.plan.config) {
            assert_eq!((c.writer_cpus.len(), c.clipped.len()), (2, 1));
            assert_eq!(c.writer_cpus, [2, 3]);
            assert_eq!(c.clipped[0].dropped, [0, 1]);
        }
        // The default sets come from the allowed CPUs: clipped, said once.
        let plan = plan_sweep(&request(None), &topo).unwrap();
        assert_eq!(plan.notes.iter().filter(|n| *n == note).count(), 1);
    }

    #[test]
    fn a_note_every_point_shares_is_kept_once() {
        let topo = crate::topology::fixture("vm-4node-norov");
        let mut r = request(None);
        r.threads = vec![PoolSize::Count(1), PoolSize::Count(2)];
        r.strategies.levels = vec![
            crate::counter::ShardLevel::Node,
            crate::counter::ShardLevel::Global,
        ];
        let plan = plan_sweep(&r, &topo).unwrap();
        let note = "changes are shown against node, the first --level";
        let has = |notes: &[String]| notes.iter().filter(|n| *n == note).count();
        assert!(plan.points.len() > 1 && plan.points.iter().all(|p| has(&p.plan.notes) > 0));
        assert_eq!(has(&plan.notes), 1, "{:?}", plan.notes);
    }

    #[test]
    fn affinity_round_trips() {
        for s in ["unbound", "node0", "node12"] {
            assert_eq!(s.parse::<Affinity>().unwrap().to_string(), s);
        }
        assert_eq!("node:3".parse::<Affinity>(), Ok(Affinity::Node(3)));
        assert!("node".parse::<Affinity>().is_err());
        assert!("socket0".parse::<Affinity>().is_err());
    }

    #[test]
    fn the_rate_axis_runs_at_every_thread_count_of_every_set() {
        // The 2-socket Sapphire Rapids fixture: unbound, node0, node1, each
        // at 50% and 100% of its CPUs, each at 22k/s and max.
        let topo = crate::topology::fixture("spr-2s-224");
        let mut req = request(None);
        req.threads = vec![PoolSize::Percent(50.0), PoolSize::Percent(100.0)];
        req.rates = vec![Regime::SEED, Regime::FlatOut];
        let plan = plan_sweep(&req, &topo).unwrap();
        let shape = (plan.points.iter()).map(|p| (p.affinity.as_str(), p.threads, p.regime));
        let shape: Vec<_> = shape.collect();
        let mut expect = Vec::new();
        for (set, cpus) in [("unbound", 224), ("node0", 112), ("node1", 112)] {
            for threads in [cpus / 2, cpus] {
                for regime in [Regime::paced(22_000.0), Regime::FlatOut] {
                    expect.push((set, threads, regime));
                }
            }
        }
        assert_eq!(shape, expect);
        // Each point's run is paced at its rate, and says so.
        for p in &plan.points {
            assert_eq!(p.plan.config.rates, [p.regime]);
            assert_eq!(p.plan.config.writer_cpus.len(), p.threads);
        }
        assert_eq!(
            plan.points[0].label(),
            "unbound × 112 threads, paced at 22.0k/s per thread"
        );
        assert_eq!(plan.points[1].label(), "unbound × 112 threads");
        // A paced point samples more often than a hammering one.
        assert_eq!(plan.points[0].plan.config.sample_every, 4);
        assert_eq!(plan.points[1].plan.config.sample_every, 1024);
        req.rates.clear();
        assert!(matches!(plan_sweep(&req, &topo), Err(PlanError::NoRates)));
    }
}
