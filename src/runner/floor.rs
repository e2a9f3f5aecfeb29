//! What the harness costs without the counter, and what a strategy costs
//! net of it: the hammer floor (the writer loop alone, flat out, before the
//! strategies), the paced floor (the same paced loop on the same CPUs with
//! no shared write, a strategy among the others), and the net figures.

use super::result::{HarnessFloor, Strategy, StrategyResult};
use super::{RunError, RunPlan};
use crate::clock::ClockKind;
use crate::counter::{
    CounterLayout, NodeIter, Pad, PublishPolicy, ShardLevel, ShardedCounter, SlotHome,
};
use crate::stats::Summary;
use crate::workload::{Regime, RepeatOutcome, run_repeat};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Runs of the harness floor.
const FLOOR_RUNS: usize = 3;
/// Longest measured interval of one floor run.
const FLOOR_INTERVAL: Duration = Duration::from_millis(100);
/// Warm-up of one floor run.
const FLOOR_WARMUP: Duration = Duration::from_millis(10);

/// The paced floor's strategy: one global slot that nobody writes
/// (`never`), so the read side finds it in every cache and no update
/// moves a line; everything else is the paced loop the strategies run.
pub const PACED_FLOOR: Strategy = Strategy {
    level: ShardLevel::Global,
    publish: PublishPolicy::NEVER,
    pad: Pad::Line128,
    clock: None,
};

/// Measures the harness floor ([`HarnessFloor`]): the run's writer loop,
/// unpaced, on the first writer's CPU alone, publishing `never`, its read
/// side on a global slot nobody else touches. `None` without writers or
/// when interrupted.
pub fn measure_floor(
    plan: &RunPlan,
    interrupted: &AtomicBool,
) -> Result<Option<HarnessFloor>, RunError> {
    let Some(&cpu) = plan.config.writer_cpus.first() else {
        return Ok(None);
    };
    let layout = CounterLayout {
        level: ShardLevel::Global,
        pad: Pad::Line128,
        home: SlotHome::Local,
        node_iter: NodeIter::Compact,
    };
    let mut spec = plan.repeat_spec(PublishPolicy::NEVER, ClockKind::Tsc, Regime::FlatOut);
    spec.warmup = FLOOR_WARMUP;
    spec.duration = plan.repeat_duration().min(FLOOR_INTERVAL);
    let mut loop_ns = Vec::with_capacity(FLOOR_RUNS);
    for _ in 0..FLOOR_RUNS {
        let counter = ShardedCounter::new(layout, &plan.topo, &[cpu], plan.config.placement)?;
        let allowed = &plan.topo.allowed_cpus;
        let w = match run_repeat(&counter, &[cpu], &[], allowed, &spec, interrupted)? {
            RepeatOutcome::Done(mut reports) => reports.pop(),
            RepeatOutcome::Interrupted => None,
        };
        let Some(w) = w else {
            return Ok(None);
        };
        if let Some(seconds) = w.interval_s.filter(|_| w.updates > 0) {
            loop_ns.push(seconds * 1e9 / w.updates as f64);
        }
    }
    Ok(Summary::of(&loop_ns).map(|loop_ns| HarnessFloor { cpu, loop_ns }))
}

/// Fills a strategy's net figures from the floor of its regime: net ns
/// per update = loop ns/op − the hammer floor's (no rate), or busy ns/op
/// − the paced floor's at the same rate, and then net CPU share too. A
/// figure whose floor was not measured stays `None`.
pub fn fill_net(
    result: &mut StrategyResult,
    floor: Option<&HarnessFloor>,
    paced_floors: &[StrategyResult],
) {
    let regime = result.regime;
    let Some(summary) = result.summary.as_mut() else {
        return;
    };
    match regime {
        Regime::FlatOut => {
            summary.net_ns = summary
                .write_loop_ns
                .zip(floor)
                .map(|(ns, f)| ns.less(&f.loop_ns));
        }
        Regime::Paced { .. } => {
            let base = paced_floors
                .iter()
                .find(|f| f.regime == regime)
                .and_then(|f| f.summary.as_ref());
            summary.net_ns = summary
                .write_busy_ns
                .zip(base.and_then(|b| b.write_busy_ns))
                .map(|(ns, f)| ns.less(&f));
            summary.net_cpu_share_pct = summary
                .cpu_share_pct
                .zip(base.and_then(|b| b.cpu_share_pct))
                .map(|(pct, f)| pct.less(&f));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{PoolSize, execute, plan};
    use crate::topology::Topology;

    /// The fixture's first strategy at `rate`, its busy ns and CPU share
    /// per repeat as given.
    fn paced(regime: Regime, busy: &[f64], share: &[f64]) -> StrategyResult {
        let mut s = crate::runner::fixture_run().strategies[0].clone();
        s.regime = regime;
        let mut summary = s.summary.clone().unwrap();
        summary.write_busy_ns = Summary::of(busy);
        summary.cpu_share_pct = Summary::of(share);
        summary.write_loop_ns = Summary::of(&[45_454.5, 45_454.5]);
        summary.net_ns = None;
        summary.net_cpu_share_pct = None;
        s.summary = Some(summary);
        s
    }

    #[test]
    fn a_paced_strategy_pays_its_busy_time_less_the_paced_floor_at_its_rate() {
        // At 22k/s: busy 130 and 134 ns against the floor's 100 and 102;
        // CPU share 0.29 and 0.30% against 0.22 and 0.22%.
        let mut s = paced(Regime::SEED, &[130.0, 134.0], &[0.29, 0.30]);
        let floors = [
            paced(Regime::paced(1e6), &[10.0, 10.0], &[1.0, 1.0]),
            paced(Regime::SEED, &[100.0, 102.0], &[0.22, 0.22]),
        ];
        fill_net(&mut s, None, &floors);
        let summary = s.summary.unwrap();
        let net = summary.net_ns.unwrap();
        assert!((net.mean - 31.0).abs() < 1e-9, "{net:?}");
        // The spread of both sides: sqrt(2.83² + 1.41²) = sqrt(10).
        assert!((net.stddev - 10f64.sqrt()).abs() < 1e-9, "{net:?}");
        let share = summary.net_cpu_share_pct.unwrap();
        assert!((share.mean - 0.075).abs() < 1e-9, "{share:?}");
        // No paced floor at that rate: no net figure, not the gross one.
        let mut s = paced(Regime::paced(5e3), &[130.0, 134.0], &[0.29, 0.30]);
        fill_net(&mut s, None, &floors);
        assert_eq!(s.summary.unwrap().net_ns, None);
    }

    #[test]
    fn a_hammer_strategy_pays_its_loop_time_less_the_hammer_floor() {
        let mut s = paced(Regime::FlatOut, &[1.0, 1.0], &[100.0, 100.0]);
        s.summary.as_mut().unwrap().write_loop_ns = Summary::of(&[20.0, 24.0]);
        let floor = HarnessFloor {
            cpu: 0,
            loop_ns: Summary::of(&[6.0, 6.0, 6.0]).unwrap(),
        };
        // The paced floors do not apply to a hammer strategy.
        let floors = [paced(Regime::SEED, &[100.0, 102.0], &[0.2, 0.2])];
        fill_net(&mut s, Some(&floor), &floors);
        let summary = s.summary.unwrap();
        assert_eq!(summary.net_ns.unwrap().mean, 16.0);
        assert_eq!(summary.net_cpu_share_pct, None);
        // No floor measured: no net figure.
        let mut s = paced(Regime::FlatOut, &[1.0], &[100.0]);
        fill_net(&mut s, None, &floors);
        assert_eq!(s.summary.unwrap().net_ns, None);
    }

    #[test]
    fn a_paced_regime_runs_its_floor_in_every_round_beside_the_strategies() {
        // Flat out and 20k/s, global/always: per round the flat-out
        // strategy, the paced floor, then the paced strategy.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.rates = vec![Regime::FlatOut, Regime::paced(20e3)];
        // 50 ms repeats after 10 ms of warm-up: a thousand paced updates,
        // and a thread that starts late on a busy machine still sees the
        // interval.
        request.duration = std::time::Duration::from_millis(100);
        request.warmup = std::time::Duration::from_millis(10);
        let plan =
            plan::plan(&request, Topology::read(std::path::Path::new("/")).unwrap()).unwrap();
        assert_eq!(plan.entries(), 3);
        let mut seen = Vec::new();
        let run = execute(&plan, &AtomicBool::new(false), |done, total, name| {
            seen.push((done, total, name.to_string()))
        })
        .unwrap();
        let names: Vec<String> = seen.iter().map(|(_, _, n)| n.clone()).collect();
        let round = [
            "global/always/pad128",
            "global/never/pad128",
            "global/always/pad128",
        ];
        assert_eq!(names, [round, round].concat());
        assert_eq!(seen.last().unwrap().1, 6);
        // The paced floor is kept apart from the strategies, with its rate.
        assert_eq!(run.paced_floors.len(), 1);
        let floor = &run.paced_floors[0];
        assert_eq!(
            (floor.regime, floor.repeats.len()),
            (Regime::paced(20e3), 2)
        );
        assert!(floor.repeats.iter().all(|r| r.publishes == 0 && r.exact));
        let rates: Vec<Regime> = run.strategies.iter().map(|s| s.regime).collect();
        assert_eq!(rates, [Regime::FlatOut, Regime::paced(20e3)]);
        // Each regime's net figure is against its own floor.
        let (flat, paced) = (&run.strategies[0], &run.strategies[1]);
        let net = |s: &StrategyResult| s.summary.as_ref().unwrap().net_ns.unwrap().mean;
        let gross = flat.summary.as_ref().unwrap().write_loop_ns.unwrap().mean;
        let hammer_floor = run.floor.as_ref().unwrap().loop_ns.mean;
        assert!((net(flat) - (gross - hammer_floor)).abs() < 1e-9);
        let busy = paced.summary.as_ref().unwrap().write_busy_ns.unwrap().mean;
        let paced_floor = floor.summary.as_ref().unwrap().write_busy_ns.unwrap().mean;
        assert!((net(paced) - (busy - paced_floor)).abs() < 1e-9);
        assert!(paced.summary.as_ref().unwrap().net_cpu_share_pct.is_some());
        // Sampling follows the regime: 1 in 1024 flat out, 1 in 2 at 20k/s.
        assert_eq!(run.config.sample_every_by_rate, [1024, 2]);
        assert_eq!(plan.sampling(Regime::paced(20e3)).every(), 2);
    }
}
