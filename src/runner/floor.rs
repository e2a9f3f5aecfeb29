//! What the harness costs without the counter: the hammer floor (the writer loop alone, flat out,
//! before the strategies) and a paced regime's clock floors (the paced loop reading a ratelimit's
//! clock on every update, taking its turn among the strategies).

use super::RunError;
use super::result::{HarnessFloor, Strategy};
use crate::clock::{ClockKind, Spin};
use crate::counter::{
    CounterLayout, Filter, NodeIter, Pad, PublishPolicy, ShardLevel, ShardedCounter, SlotHome,
};
use crate::placement::Placement;
use crate::stats::Summary;
use crate::topology::Topology;
use crate::workload::{Lane, RepeatOutcome, RepeatSpec, run_repeat};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Runs of the harness floor.
pub(super) const FLOOR_RUNS: usize = 3;
/// Longest measured interval of one floor run.
pub(super) const FLOOR_INTERVAL: Duration = Duration::from_millis(100);
/// Warm-up of one floor run.
pub(super) const FLOOR_WARMUP: Duration = Duration::from_millis(10);

/// The period of a clock floor's ratelimit.
pub const CLOCK_FLOOR_PERIOD: Duration = Duration::from_secs(100_000);

/// A paced regime's clock floor for `clock`: the paced floor's loop reading `clock` every update.
pub fn clock_floor(clock: ClockKind) -> Strategy {
    Strategy {
        level: ShardLevel::Global,
        publish: PublishPolicy {
            ratelimit: Some(CLOCK_FLOOR_PERIOD),
            filter: Filter::Changed,
        },
        pad: Pad::Line128,
        clock: Some(clock),
    }
}

/// The layout of a paced repeat's floor in place ([`crate::workload::InPlaceFloor`]): one global
/// slot, 128-byte padded, homed as the strategy's slots are.
pub fn in_place_layout(layout: CounterLayout) -> CounterLayout {
    CounterLayout {
        level: ShardLevel::Global,
        pad: Pad::Line128,
        ..layout
    }
}

/// Whether a floor `s` is a clock floor ([`clock_floor`]): a ratelimit's.
pub fn is_clock_floor(s: &Strategy) -> bool {
    s.publish.ratelimit.is_some()
}

/// Measures the harness floor ([`HarnessFloor`]).
pub fn measure_floor(
    mut spec: RepeatSpec,
    cpu: u32,
    topo: &Topology,
    placement: Placement,
    interrupted: &AtomicBool,
) -> Result<Option<HarnessFloor>, RunError> {
    spec.warmup = FLOOR_WARMUP;
    spec.duration = spec.duration.min(FLOOR_INTERVAL);
    let mut loop_ns = Vec::with_capacity(FLOOR_RUNS);
    for _ in 0..FLOOR_RUNS {
        let Some(ns) = floor_loop_ns(&spec, cpu, topo, placement, interrupted)? else {
            return Ok(None);
        };
        loop_ns.extend(ns);
    }
    Ok(Summary::of(&loop_ns).map(|loop_ns| HarnessFloor { cpu, loop_ns }))
}

/// Pairs of floor runs that price `--inject`'s delay.
const INJECT_PAIRS: usize = 8;
/// The measured interval of each of them.
const INJECT_INTERVAL: Duration = Duration::from_millis(50);

/// What `inject` adds to the harness floor's loop (`spec`) on `cpu`, ns per update.
pub fn measure_inject(
    mut spec: RepeatSpec,
    inject: Spin,
    cpu: u32,
    topo: &Topology,
    placement: Placement,
    interrupted: &AtomicBool,
) -> Result<Option<Summary>, RunError> {
    spec.warmup = FLOOR_WARMUP;
    spec.duration = INJECT_INTERVAL;
    let with = RepeatSpec { inject, ..spec };
    let mut differences = Vec::with_capacity(INJECT_PAIRS);
    for pair in 0..INJECT_PAIRS {
        let mut ns = [None; 2];
        for k in [pair % 2, 1 - pair % 2] {
            let spec = if k == 1 { &with } else { &spec };
            let Some(v) = floor_loop_ns(spec, cpu, topo, placement, interrupted)? else {
                return Ok(None);
            };
            ns[k] = v;
        }
        if let [Some(without), Some(with)] = ns {
            differences.push(with - without);
        }
    }
    Ok(Summary::of(&differences))
}

/// One run of the harness floor's loop (`spec`, publishing `never`) on `cpu` alone: ns per update
/// from throughput, or paced, ns per busy window; `Some(None)` without an update in its interval,
/// `None` when a stop signal came.
fn floor_loop_ns(
    spec: &RepeatSpec,
    cpu: u32,
    topo: &Topology,
    placement: Placement,
    interrupted: &AtomicBool,
) -> Result<Option<Option<f64>>, RunError> {
    let layout = CounterLayout {
        level: ShardLevel::Global,
        pad: Pad::Line128,
        home: SlotHome::Local,
        node_iter: NodeIter::Compact,
    };
    let counter = ShardedCounter::new(layout, topo, &[cpu], placement)?;
    let lane = Lane {
        counter: &counter,
        floor: None,
        spec,
    };
    let w = match run_repeat(&[lane], &[cpu], &[], &topo.allowed_cpus, 0, interrupted)? {
        RepeatOutcome::Done(mut reports) => reports.pop().and_then(|mut r| r.pop()),
        RepeatOutcome::Interrupted => None,
    };
    let ns_per_tick = spec.timer.ns_per_tick();
    Ok(
        w.map(|w| match (w.busy, w.interval_s.filter(|_| w.updates > 0)) {
            (Some(b), _) if b.ops > 0 => Some(b.ticks as f64 * ns_per_tick / b.ops as f64),
            (None, Some(seconds)) => Some(seconds * 1e9 / w.updates as f64),
            _ => None,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::tests::execute_seen;
    use crate::runner::{PoolSize, StrategyResult, near, plan};
    use crate::workload::Regime;

    #[test]
    fn the_floor_in_place_is_one_padded_global_slot_homed_as_the_strategys() {
        let strategy = CounterLayout {
            level: ShardLevel::Cpu,
            pad: Pad::Line64,
            home: SlotHome::OnNode(1),
            node_iter: NodeIter::Bitmap,
        };
        let (level, pad) = (ShardLevel::Global, Pad::Line128);
        assert_eq!(
            in_place_layout(strategy),
            CounterLayout {
                level,
                pad,
                ..strategy
            }
        );
    }

    #[test]
    fn a_paced_regime_runs_its_floor_in_place_in_every_repeat() {
        // Flat out and 20k/s, global/always: per round the flat-out strategy, then the paced one,
        // each paced repeat timing its floor in place.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.rates = vec![Regime::FlatOut, Regime::paced(20e3)];
        // 50 ms repeats after 10 ms of warm-up: a thousand paced updates, and a thread that starts
        // late on a busy machine still sees the interval.
        request.duration = std::time::Duration::from_millis(100);
        request.warmup = std::time::Duration::from_millis(10);
        let plan = plan::plan_here(&request);
        assert_eq!(plan.entries(), 2);
        let (run, seen, names) = execute_seen(&plan);
        let round = ["global/always/pad128", "global/always/pad128"];
        assert_eq!(names, [round, round].concat());
        assert_eq!(seen.last(), Some(&(4, 4)));
        // No floor of its own among the entries.
        assert!(run.paced_floors.is_empty());
        let rates: Vec<Regime> = run.strategies.iter().map(|s| s.regime).collect();
        assert_eq!(rates, [Regime::FlatOut, Regime::paced(20e3)]);
        let (flat, paced) = (&run.strategies[0], &run.strategies[1]);
        // Flat out has no floor in place; every paced repeat has one, timed over as many updates as
        // its own busy time.
        assert!(flat.repeats.iter().all(|r| r.floor_busy_ns.is_none()));
        for r in &paced.repeats {
            let floor = r.floor_busy_ns.unwrap();
            assert!(floor > 0.0 && floor < r.write_busy_ns * 10.0, "{r:?}");
            let share = r.floor_cpu_share_pct.unwrap();
            assert!(share > 0.0 && share < 100.0, "{r:?}");
        }
        // Each regime's net figure is against its own floor: flat out the hammer floor, paced each
        // repeat's floor in place.
        let net = |s: &StrategyResult| s.summary.as_ref().unwrap().net_ns.unwrap().mean;
        let gross = flat.summary.as_ref().unwrap().write_loop_ns.unwrap().mean;
        let hammer_floor = run.floor.as_ref().unwrap().loop_ns.mean;
        near(net(flat), gross - hammer_floor, 1e-9);
        let nets: Vec<f64> = paced
            .repeats
            .iter()
            .map(|r| r.write_busy_ns - r.floor_busy_ns.unwrap())
            .collect();
        let used =
            crate::runner::PairedNet::of(&paced.repeats, crate::runner::net_busy_ns).unwrap();
        if !used.all_repeats && used.disturbed == 0 {
            near(net(paced), (nets[0] + nets[1]) / 2.0, 1e-9);
        }
        assert!(paced.summary.as_ref().unwrap().net_cpu_share_pct.is_some());
        // The floor the tables show: the floors in place, over the repeats.
        let shown = run.paced_floor(Regime::paced(20e3)).unwrap();
        assert_eq!(shown.busy_ns.n, 2);
        // No ratelimit: no clock floor.
        assert_eq!(run.clock_floor(Regime::paced(20e3), ClockKind::Tsc), None);
        // Sampling follows the regime: 1 in 1024 flat out, 1 in 2 at 20k/s.
        assert_eq!(run.config.sample_every_by_rate, [1024, 2]);
        assert_eq!(plan.sampling(Regime::paced(20e3)).every(), 2);
    }

    #[test]
    fn a_ratelimit_brings_a_clock_floor_that_prices_its_clock_read() {
        // 20k/s, global/ratelimit:1ms reading the TSC: per round the clock floor (the paced floor's
        // loop reading the TSC on every update, never publishing after its first), then the
        // strategy.
        let mut request = plan::example_request();
        request.pools.writers = Some(PoolSize::Count(1));
        request.repeats = 2;
        request.rates = vec![Regime::paced(20e3)];
        request.strategies.policies = vec!["ratelimit:1ms".parse().unwrap()];
        request.strategies.clocks = vec![ClockKind::Tsc];
        request.duration = std::time::Duration::from_millis(100);
        request.warmup = std::time::Duration::from_millis(10);
        let plan = plan::plan_here(&request);
        // The strategy and its clock floor take turns.
        assert_eq!(plan.entries(), 2);
        let (run, _, names) = execute_seen(&plan);
        // Its policy is one a result file can be read back with.
        let policy = clock_floor(ClockKind::Tsc).publish;
        assert_eq!(policy.to_string().parse::<PublishPolicy>(), Ok(policy));
        let clock_floor = clock_floor(ClockKind::Tsc).name();
        let round = [clock_floor.as_str(), "global/ratelimit:1ms/pad128/tsc"];
        assert_eq!(names, [round, round].concat());
        let regime = Regime::paced(20e3);
        assert_eq!(run.paced_floors.len(), 1);
        let clock = run.clock_floor(regime, ClockKind::Tsc).unwrap();
        assert_eq!(clock.name, clock_floor);
        // Its first update publishes (in warm-up), no other does.
        assert!(clock.repeats.iter().all(|r| r.publishes == 0 && r.exact));
        assert!(run.clock_floor(regime, ClockKind::Monotonic).is_none());
        // The clock's cost: the clock floor's net, its busy less its floor in place repeat by
        // repeat, as the strategy's net is its own.
        let cost = run.clock_cost(regime, ClockKind::Tsc).unwrap();
        let net = |s: &StrategyResult| s.summary.as_ref().unwrap().net_ns.unwrap();
        assert_eq!(cost, net(clock));
        let by_hand = |s: &StrategyResult| {
            let nets: Vec<f64> = s
                .repeats
                .iter()
                .filter_map(crate::runner::net_busy_ns)
                .collect();
            nets.iter().sum::<f64>() / nets.len() as f64
        };
        for s in [clock, &run.strategies[0]] {
            let p = crate::runner::PairedNet::of(&s.repeats, crate::runner::net_busy_ns).unwrap();
            if p.disturbed == 0 {
                near(net(s).mean, by_hand(s), 1e-9);
            }
        }
    }
}
