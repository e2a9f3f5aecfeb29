//! One repeat of strategies in place (paced) or of one strategy (flat out): the canary, the round's
//! node-bound counters (each strategy's own and, paced, its floor's in place; under `--paced both`
//! the same lines for the round's repeats in place and alone), the pinned pools, and each
//! strategy's numbers with the repeat's interference record.

use super::aggregate::{RepeatContext, repeat_result};
use super::floor::in_place_layout;
use super::interference;
use super::result::{RepeatResult, StrategyResult, ThreadPlacement};
use super::{RunError, RunPlan};
use crate::counter::{CounterLayout, ShardedCounter, SlotHome};
use crate::matrix::{LINE_CHUNKS, line_pingpong};
use crate::placement::{AddressGap, PlacementError, page_size};
use crate::topology::CpuList;
use crate::workload::{
    Lane, RepeatOutcome, RepeatSpec, Role, ThreadReport, permutation, run_repeat,
};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The most pages of address space left untouched before each counter of a repeat ([`AddressGap`]).
pub(super) const GAP_PAGES: u64 = 64;

/// The gaps of repeat `repeat` of a run seeded `seed`, in pages, one per draw.
pub(super) fn gap_pages(seed: u64, repeat: usize) -> impl FnMut() -> usize {
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(seed ^ (repeat as u64).rotate_left(29) ^ 0x6A09_E667);
    move || (1 + rng.next_u64() % GAP_PAGES) as usize
}

/// Reserves a gap of `pages` before the next allocation.
fn gap(pages: usize) -> Result<AddressGap, PlacementError> {
    AddressGap::reserve(pages).map_err(|source| PlacementError::Map {
        len: pages * page_size(),
        source,
    })
}

/// Where round `round` of a group of `members` (run seed `seed`) puts its counters in their pages:
/// a drawn start (a multiple of 128 bytes) and a drawn order (`order[j]` the j-th), end to end.
fn page_places(seed: u64, round: usize, members: usize) -> (usize, Vec<usize>) {
    let mut rng =
        Xoshiro256PlusPlus::seed_from_u64(seed ^ (round as u64).rotate_left(43) ^ 0x3C6E_F372);
    let start = (rng.next_u64() % (page_size() / 128) as u64) as usize * 128;
    (start, permutation(members, rng.next_u64()))
}

/// CAS round trips [`line_cost`] times on each line: 64 per chunk.
pub(super) const LINE_ROUND_TRIPS: u64 = 64 * LINE_CHUNKS;

/// One-way ns of a CAS ping-pong between `a` and `b` on the slots of `counter` they update.
fn line_cost(counter: &ShardedCounter, a: u32, b: u32) -> Option<f64> {
    priced(counter, a, b, |line| {
        line_pingpong(a, b, line, LINE_ROUND_TRIPS).ok()
    })
}

/// [`line_cost`] with `price` timing each slot, which holds 0 meanwhile.
fn priced(
    counter: &ShardedCounter,
    a: u32,
    b: u32,
    mut price: impl FnMut(&AtomicU64) -> Option<f64>,
) -> Option<f64> {
    let (sa, sb) = (counter.slot_of_cpu(a)?, counter.slot_of_cpu(b)?);
    let slots: &[usize] = if sa == sb { &[sa] } else { &[sa, sb] };
    let mut sum = 0.0;
    for &s in slots {
        let slot = counter.slot(s);
        let value = slot.swap(0, Ordering::AcqRel);
        // SAFETY: an AtomicI64 and an AtomicU64 have the same size and
        // alignment; the counter's memory outlives the call, and no other
        // thread touches the slot meanwhile. The ping-pong starts from 0
        // and leaves 0.
        let ns = price(unsafe { AtomicU64::from_ptr(slot.as_ptr().cast()) });
        slot.store(value, Ordering::Release);
        sum += ns?;
    }
    Some(sum / slots.len() as f64)
}

/// The price of a repeat's lines: the lower of [`line_cost`] before and after it.
fn lower(before: Option<f64>, after: Option<f64>) -> Option<f64> {
    before.into_iter().chain(after).reduce(f64::min)
}

/// One entry of the rounds: its result so far, the repeat it runs, and whether it is a paced
/// regime's clock floor rather than a strategy.
pub(super) struct RoundEntry {
    /// Its result, repeats appended as they finish.
    pub result: StrategyResult,
    /// What one repeat of it runs.
    pub spec: RepeatSpec,
    /// A paced regime's clock floor (kept apart from the strategies).
    pub is_floor: bool,
    /// The repeat it runs in: entries of one group run in place in the same repeats.
    pub group: usize,
}

/// The counters of one round of a group.
pub(super) struct RoundCounters {
    counters: Vec<ShardedCounter>,
    floors: Vec<Option<ShardedCounter>>,
    /// Held while the counters are, keeping them apart.
    _gaps: Vec<AddressGap>,
}

impl RoundCounters {
    /// The counters of round `round` of `group`, in its order.
    pub(super) fn new(
        plan: &RunPlan,
        group: &[&mut RoundEntry],
        round: usize,
        notes: &mut Vec<String>,
    ) -> Result<Self, RunError> {
        let cfg = &plan.config;
        let seed = group[0].spec.seed;
        let mut built = Vec::with_capacity(group.len());
        let mut gaps = Vec::with_capacity(2 * group.len());
        let mut pages = gap_pages(seed, round);
        // Each counter's lines start where the one before ended in its page, so no two counters of
        // the round share an L1 set; from a drawn place, in a drawn order ([`page_places`]).
        let (mut at, order) = page_places(seed, round, group.len());
        // Each counter after a gap, from where the one before ended.
        let mut place = |layout| -> Result<ShardedCounter, RunError> {
            gaps.push(gap(pages())?);
            let c =
                ShardedCounter::new_at(layout, &plan.topo, &cfg.writer_cpus, cfg.placement, at)?;
            at = c.end_offset();
            Ok(c)
        };
        for i in order {
            let entry = &group[i];
            let s = entry.result.strategy;
            let layout = CounterLayout {
                level: s.level,
                pad: s.pad,
                home: cfg.counter_node.map_or(SlotHome::Local, SlotHome::OnNode),
                node_iter: cfg.node_iter,
            };
            let counter = place(layout)?;
            // Paced, the floor runs in place, on a counter of its own.
            let paced = entry.result.regime.is_paced();
            let floor = paced.then(|| place(in_place_layout(layout))).transpose()?;
            built.push((i, counter, floor));
        }
        // Back in the group's order.
        built.sort_unstable_by_key(|&(i, ..)| i);
        let (counters, floors): (Vec<_>, Vec<_>) =
            built.into_iter().map(|(_, c, f)| (c, f)).unzip();
        for note in counters.iter().flat_map(|c| c.notes()) {
            if !notes.contains(note) {
                notes.push(note.clone());
            }
        }
        Ok(RoundCounters {
            counters,
            floors,
            _gaps: gaps,
        })
    }

    /// The counters of `members` (indexes into the round's group), each cleared for a repeat.
    pub(super) fn cleared(
        &self,
        members: impl IntoIterator<Item = usize>,
    ) -> Vec<(&ShardedCounter, Option<&ShardedCounter>)> {
        members
            .into_iter()
            .map(|i| {
                let (counter, floor) = (&self.counters[i], self.floors[i].as_ref());
                counter.clear();
                floor.inspect(|f| f.clear());
                (counter, floor)
            })
            .collect()
    }
}

/// One repeat of a group of strategies in place (paced) or of one (flat out) on `counters`, in
/// the order of `group`; `None` when interrupted.
pub(super) fn one_repeat(
    plan: &RunPlan,
    group: &mut [&mut RoundEntry],
    counters: &[(&ShardedCounter, Option<&ShardedCounter>)],
    repeat: usize,
    interrupted: &AtomicBool,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<RepeatResult>>, RunError> {
    let cfg = &plan.config;
    let lanes: Vec<Lane> = group
        .iter()
        .zip(counters)
        .map(|(e, &(counter, floor))| Lane {
            counter,
            floor,
            spec: &e.spec,
        })
        .collect();
    let timer = group[0].spec.timer;
    // The two CPUs the canary, and each line's price, bounce between.
    let pair = interference::canary_cpus(&cfg.writer_cpus, &cfg.reader_cpus);
    let canary = pair.and_then(|(a, b)| interference::canary(a, b, &plan.topo, timer));
    let measured = [&cfg.writer_cpus[..], &cfg.reader_cpus[..]].concat();
    // Each strategy's own lines, priced on the canary's CPUs before the repeat and after it (the
    // floors' lines are never handed over).
    let price = |c: &ShardedCounter| pair.and_then(|(a, b)| line_cost(c, a, b));
    let before: Vec<Option<f64>> = counters.iter().map(|&(c, _)| price(c)).collect();
    let steal_before = interference::steal_ms(&measured);
    let lane_reports = match run_repeat(
        &lanes,
        &cfg.writer_cpus,
        &cfg.reader_cpus,
        &plan.topo.allowed_cpus,
        repeat as u64,
        interrupted,
    )? {
        RepeatOutcome::Done(r) => r,
        RepeatOutcome::Interrupted => return Ok(None),
    };
    let steal_after = interference::steal_ms(&measured);
    let line_ns: Vec<Option<f64>> = counters
        .iter()
        .zip(before)
        .map(|(&(c, _), before)| lower(before, price(c)))
        .collect();
    let after = pair.and_then(|(a, b)| interference::canary_after(a, b));
    let node_of = |cpu: u32| plan.topo.node_of_cpu(cpu).unwrap_or(0);
    let mut results = Vec::with_capacity(group.len());
    for ((entry, &(counter, _)), reports) in group.iter_mut().zip(counters).zip(&lane_reports) {
        let result = &mut entry.result;
        let ctx = RepeatContext {
            cpu_nodes: cfg.writer_cpus.iter().map(|&c| node_of(c)).collect(),
            slot_nodes: cfg
                .writer_cpus
                .iter()
                .map(|&c| slot_node(counter, c))
                .collect(),
            final_sum: counter.read(),
            ns_per_tick: timer.ns_per_tick(),
            regime: result.regime,
        };
        if result.threads.is_empty() {
            record_placement(result, counter, reports, node_of);
        }
        let mut record = interference::record(
            steal_before,
            steal_after,
            reports.iter().map(|t| t.involuntary_switches).sum(),
            canary.clone(),
            after,
        );
        record.stalls = interference::stalls(reports, ctx.ns_per_tick);
        let mut r = repeat_result(repeat, reports, &ctx);
        r.interference = record;
        r.line_ns = line_ns[results.len()];
        if !r.outside_window.is_empty() {
            notes.push(format!(
                "{} repeat {repeat}: threads on CPUs {} never saw the measured interval start (an oversubscribed CPU, or --rate too low for warm-up + interval), so they are left out of its rates and samples",
                result.name,
                r.outside_window.iter().copied().collect::<CpuList>()
            ));
        }
        results.push(r);
    }
    Ok(Some(results))
}

/// The node of the slot a writer on `cpu` adds to (0 when it has none).
fn slot_node(counter: &ShardedCounter, cpu: u32) -> u32 {
    counter
        .slot_of_cpu(cpu)
        .map_or(0, |i| counter.slots()[i].node)
}

/// Records in `result` where its slots and threads were (its first repeat's).
fn record_placement(
    result: &mut StrategyResult,
    counter: &ShardedCounter,
    reports: &[ThreadReport],
    node_of: impl Fn(u32) -> u32,
) {
    result.slots = counter.slots().to_vec();
    result.read_steps = Some(counter.read_steps());
    result.slot_stride_bytes = counter.slot_stride();
    result.threads = reports
        .iter()
        .map(|r| ThreadPlacement {
            role: r.role,
            cpu: r.pin.requested_cpu,
            observed_cpu: r.pin.observed_cpu,
            verified: r.pin.verified,
            node: node_of(r.pin.requested_cpu),
            slot_node: (r.role == Role::Writer).then(|| slot_node(counter, r.pin.requested_cpu)),
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lines_price_is_the_lower_of_before_and_after_and_keeps_its_values() {
        assert_eq!(lower(Some(195.2), Some(58.1)), Some(58.1));
        assert_eq!(lower(Some(61.0), Some(64.5)), Some(61.0));
        assert_eq!(lower(None, Some(7.0)), Some(7.0));
        assert_eq!(lower(Some(8.0), None), Some(8.0));
        assert_eq!(lower(None, None), None);
        // Per CPU, the two writers' slots differ: both are priced, and the values they held are
        // back after.
        let (a, b) = crate::topology::two_allowed_cpus();
        let topo = crate::topology::Topology::read(std::path::Path::new("/")).unwrap();
        let layout = CounterLayout {
            level: crate::counter::ShardLevel::Cpu,
            pad: crate::counter::Pad::Line128,
            home: SlotHome::Local,
            node_iter: crate::counter::NodeIter::Compact,
        };
        let counter =
            ShardedCounter::new(layout, &topo, &[a, b], crate::placement::Placement::Strict)
                .unwrap();
        let [sa, sb] = [a, b].map(|cpu| counter.slot_of_cpu(cpu).unwrap());
        assert_ne!(sa, sb);
        counter.slot(sa).store(-41, Ordering::Relaxed);
        counter.slot(sb).store(1 << 40, Ordering::Relaxed);
        let ns = line_cost(&counter, a, b).unwrap();
        assert!(ns > 0.0 && ns < 1e6, "{ns}");
        assert_eq!(counter.slot(sa).load(Ordering::Relaxed), -41);
        assert_eq!(counter.slot(sb).load(Ordering::Relaxed), 1 << 40);
        // A CPU without a slot has no price.
        assert_eq!(line_cost(&counter, a, 4095), None);
        // Priced by hand, each slot at 0 while priced: the two slots' mean; on one CPU's own slot,
        // that slot alone.
        let mut prices = [50.0, 71.0].into_iter();
        let mean = priced(&counter, a, b, |line| {
            assert_eq!(line.load(Ordering::Relaxed), 0);
            prices.next()
        });
        assert_eq!((mean, prices.next()), (Some(60.5), None));
        let mut calls = 0;
        let one = priced(&counter, a, a, |_| {
            calls += 1;
            Some(58.0)
        });
        assert_eq!((one, calls), (Some(58.0), 1));
        // A slot that cannot be priced: no price, its value still back.
        assert_eq!(priced(&counter, a, b, |_| None), None);
        assert_eq!(counter.slot(sa).load(Ordering::Relaxed), -41);
    }

    #[test]
    fn a_rounds_repeats_in_place_and_alone_share_its_lines_each_cleared() {
        // Two paced strategies in one group, as `--paced both` runs them.
        let mut request = crate::runner::plan::example_request();
        use crate::counter::PublishPolicy as P;
        request.strategies.policies = vec![P::ALWAYS, P::NEVER];
        request.rates = vec![crate::workload::Regime::SEED];
        let plan = crate::runner::plan::plan_here(&request);
        let (mut entries, _) = super::super::entries(&plan);
        let group: Vec<&mut RoundEntry> = entries.iter_mut().filter(|e| !e.is_floor).collect();
        assert_eq!(group.len(), 2);
        let mut notes = Vec::new();
        let round = RoundCounters::new(&plan, &group, 3, &mut notes).unwrap();
        let in_place = round.cleared([0, 1]);
        let address = |c: &ShardedCounter| c.slot_address(0);
        for &(counter, floor) in &in_place {
            counter.slot(0).fetch_add(5, Ordering::Relaxed);
            floor.unwrap().slot(0).fetch_add(2, Ordering::Relaxed);
        }
        // Member 1 alone: its own counter and floor, on the lines it had in place, from nothing
        // again.
        let alone = round.cleared([1]);
        assert_eq!(alone.len(), 1);
        let (counter, floor) = alone[0];
        assert_eq!(address(counter), address(in_place[1].0));
        assert_eq!(address(floor.unwrap()), address(in_place[1].1.unwrap()));
        assert_eq!((counter.read(), floor.unwrap().read()), (0, 0));
        // Member 0 was not cleared by member 1's repeat.
        assert_eq!(in_place[0].0.read(), 5);
        // Every counter on a page of its own.
        let mut pages: Vec<usize> = in_place
            .iter()
            .flat_map(|&(c, f)| [address(c), address(f.unwrap())])
            .map(|a| a / page_size())
            .collect();
        pages.sort_unstable();
        pages.dedup();
        assert_eq!(pages.len(), 4, "{pages:x?}");
        // And each in a place of its own within its page, so in an L1 set of its own: from the
        // round's drawn start, in its drawn order, the counters one after another, 256 bytes each
        // (shares, then the slot 128 further), each member's floor after its own.
        let (start, order) = page_places(plan.config.seed, 3, 2);
        let places: Vec<usize> = order
            .iter()
            .flat_map(|&i| [address(in_place[i].0), address(in_place[i].1.unwrap())])
            .map(|a| a % page_size())
            .collect();
        let chained: Vec<usize> = [128, 384, 640, 896]
            .iter()
            .map(|o| (start + o) % page_size())
            .collect();
        assert_eq!(places, chained);
    }

    #[test]
    fn a_rounds_page_places_are_drawn_per_round_and_replayed_by_seed() {
        let draws: Vec<(usize, Vec<usize>)> = (0..64).map(|r| page_places(7, r, 5)).collect();
        for (start, order) in &draws {
            // A start on a 128-byte boundary within the page; an order holding each member once.
            assert!(*start < page_size() && start % 128 == 0, "{start}");
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, [0, 1, 2, 3, 4]);
        }
        // Rounds draw anew: in 64 rounds of 32 starts and 120 orders, many differ, and member 0
        // comes first in some and not others.
        let mut starts: Vec<usize> = draws.iter().map(|d| d.0).collect();
        starts.sort_unstable();
        starts.dedup();
        assert!(starts.len() > 16, "{starts:?}");
        let first = draws.iter().filter(|d| d.1[0] == 0).count();
        assert!((1..32).contains(&first), "member 0 first in {first} of 64");
        // The same seed and round, the same places; another seed, others.
        assert_eq!(page_places(7, 9, 5), draws[9]);
        let other_seed: Vec<_> = (0..8).map(|r| page_places(8, r, 5)).collect();
        assert_ne!(other_seed, draws[..8]);
    }

    #[test]
    fn a_line_is_priced_over_64_round_trips_a_chunk() {
        // 1,024 round trips: each of the 16 chunks the ping-pong is timed in holds 64, about 9 µs
        // at 70 ns one way.
        assert_eq!(LINE_ROUND_TRIPS, 1024);
        assert_eq!(LINE_ROUND_TRIPS / LINE_CHUNKS, 64);
    }

    #[test]
    fn gaps_are_one_to_gap_pages_drawn_anew_each_repeat_and_replayed_by_seed() {
        let draw = |seed, repeat| {
            let mut g = gap_pages(seed, repeat);
            (0..200).map(|_| g()).collect::<Vec<usize>>()
        };
        let a = draw(7, 0);
        let pages = 1..=GAP_PAGES as usize;
        assert!(a.iter().all(|p| pages.contains(p)), "{a:?}");
        // Both ends come up in 200 draws of 64 values.
        assert!(a.contains(&1) || a.contains(&2), "{a:?}");
        assert!(a.iter().any(|&p| p >= 60), "{a:?}");
        // Not a constant stride: consecutive gaps differ most of the time.
        let same = a.windows(2).filter(|w| w[0] == w[1]).count();
        assert!(same < 20, "{same} repeats in {a:?}");
        assert_eq!(a, draw(7, 0));
        assert_ne!(a, draw(7, 1));
        assert_ne!(a, draw(8, 0));
    }

    #[test]
    fn a_gap_reserves_whole_pages_and_lets_go_of_them() {
        let g = gap(3).unwrap();
        assert_eq!(g.bytes(), 3 * page_size());
        drop(g);
        assert_eq!(gap(0).unwrap().bytes(), page_size());
        // More address space than there is: refused, naming the size.
        let pages = 1 << 50;
        match gap(pages) {
            Err(PlacementError::Map { len, .. }) => assert_eq!(len, pages * page_size()),
            other => panic!("{:?}", other.map(|g| g.bytes())),
        }
    }
}
