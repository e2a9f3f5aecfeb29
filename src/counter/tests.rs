//! Exactness and policy tests. Slot memory is really node-bound: on the live host (node 0), or for
//! a fixture's layout with every slot homed on node 0, the only node this test machine has.

use super::*;
use crate::clock::{FakeClock, MonotonicClock};
use crate::placement::{NodeCheck, Placement};
use crate::topology::{CpuList, Topology, fixture};
use crate::workload::LoadWalk;
use std::sync::atomic::{AtomicI64, Ordering};

/// The global, 128-byte padded layout with local slots: the tests' counter's.
const GLOBAL: CounterLayout = CounterLayout {
    level: ShardLevel::Global,
    pad: Pad::Line128,
    home: SlotHome::Local,
    node_iter: NodeIter::Compact,
};

/// A counter of `level` and `pad` with slots at `home`, walked `node_iter`, for `cpus` of `topo`.
fn counter_on(
    topo: &Topology,
    cpus: &[u32],
    (level, pad): (ShardLevel, Pad),
    home: SlotHome,
    node_iter: NodeIter,
) -> ShardedCounter {
    let layout = CounterLayout {
        level,
        pad,
        home,
        node_iter,
    };
    ShardedCounter::new(layout, topo, cpus, Placement::Strict).unwrap()
}

/// [`ShardedCounter::read`] through `view`, by the walk `counter` takes.
fn view_read(view: &mut ReadView, counter: &ShardedCounter, left: i64) -> i64 {
    match counter.walk_kind() {
        WALK_NODE_IDS => view.read_as::<WALK_NODE_IDS>(counter, left),
        WALK_NODE_MASK => view.read_as::<WALK_NODE_MASK>(counter, left),
        _ => view.read_as::<WALK_SLOTS>(counter, left),
    }
}

/// A counter of `shape` for `cpus` of `topo`, every slot on node 0, walked compactly.
pub(crate) fn on_node0(topo: &Topology, cpus: &[u32], shape: (ShardLevel, Pad)) -> ShardedCounter {
    counter_on(topo, cpus, shape, SlotHome::OnNode(0), NodeIter::Compact)
}

/// A one-slot (global, 128-byte padded) counter for `writers` on `topo`: the tests' counter.
pub(crate) fn global_counter(topo: &Topology, writers: &[u32]) -> ShardedCounter {
    ShardedCounter::new(GLOBAL, topo, writers, Placement::Strict).unwrap()
}

/// The live host and the CPUs this process may use.
pub(crate) fn here() -> (Topology, Vec<u32>) {
    let topo = Topology::read(std::path::Path::new("/")).unwrap();
    let cpus = topo.allowed_cpus.to_vec();
    (topo, cpus)
}

/// [`global_counter`] for the live host's first allowed CPU.
pub(crate) fn host_counter() -> ShardedCounter {
    let (topo, cpus) = here();
    global_counter(&topo, &cpus[..1])
}

/// Seed every `hammer` writer's load walk uses.
const HAMMER_SEED: u64 = 42;

/// Runs `threads` writers (CPU ids taken round-robin from `cpus`) for `updates` seeded random
/// updates each, flushes, and returns each writer's final load (in writer order) and merged stats.
fn hammer(
    counter: &ShardedCounter,
    cpus: &[u32],
    threads: usize,
    policy: PublishPolicy,
    updates: u32,
) -> (Vec<i64>, PublishStats) {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let cpu = cpus[t % cpus.len()];
                s.spawn(move || {
                    let slot = counter.slot_of_cpu(cpu).unwrap();
                    let mut w = Writer::new(counter, slot, policy, MonotonicClock);
                    let mut walk = LoadWalk::new(HAMMER_SEED, t as u64);
                    for i in 0..updates {
                        w.update(walk.next_load());
                        if i % 16 == 0 {
                            // Read side interleaved, as in the kernel.
                            let (shares, sum) = (counter.shares(), counter.read());
                            std::hint::black_box(group_shares(shares, sum, w.contrib(), w.load()));
                        }
                    }
                    w.flush();
                    (w.load(), w.stats())
                })
            })
            .collect();
        let mut stats = PublishStats::default();
        let loads = handles.into_iter().map(|h| h.join().unwrap());
        let loads = loads.map(|(load, st)| (stats.merge(&st), load).1).collect();
        (loads, stats)
    })
}

/// Writer `t`'s load after `updates` steps, replayed on a fresh walk with no counter, no writer and
/// no threads involved: what `hammer`'s writer `t` must end up holding.
fn replayed_final_load(t: usize, updates: u32) -> i64 {
    let mut walk = LoadWalk::new(HAMMER_SEED, t as u64);
    (0..updates).fold(crate::workload::START_LOAD, |_, _| walk.next_load())
}

/// Checks `hammer`'s writers against their replays, and the counter against the replayed total;
/// returns that total.
fn assert_loads_replay(counter: &ShardedCounter, loads: &[i64], updates: u32, what: &str) -> i64 {
    let mut expected = 0;
    for (t, &load) in loads.iter().enumerate() {
        let replay = replayed_final_load(t, updates);
        assert_eq!(load, replay, "{what}: writer {t} ended on the wrong load");
        expected += replay;
    }
    assert_eq!(counter.read(), expected, "{what}: counter != replay");
    expected
}

#[test]
fn every_level_policy_and_pad_sums_exactly_under_contention() {
    let ((topo, cpus), local, compact) = (here(), SlotHome::Local, NodeIter::Compact);
    for level in ShardLevel::ALL {
        for pad in Pad::ALL {
            for policy in ["always", "threshold:64", "ratelimit:50us", "batch:32"]
                .into_iter()
                .chain(["ratelimit:50us+threshold:64", "ratelimit:20us+batch:8"])
            {
                let policy: PublishPolicy = policy.parse().unwrap();
                let counter = counter_on(&topo, &cpus, (level, pad), local, compact);
                let name = format!("{level}/{policy}/{pad}");
                // The slots really are `pad` bytes apart in memory (this host has one node, so they
                // share one region).
                let stride = (counter.slots().len() > 1).then_some(pad.stride());
                assert_eq!(counter.slot_stride(), stride, "{name}");
                let (loads, stats) = hammer(&counter, &cpus, 3, policy, 20_000);
                assert_loads_replay(&counter, &loads, 20_000, &name);
                assert_eq!(stats.updates, 60_000, "{name}");
                assert!(stats.publishes > 0, "{name}");
                if policy.filter == Filter::Always {
                    assert_eq!(stats.publishes, 60_000, "{name}");
                } else {
                    assert!(stats.publishes < 60_000, "{name} should skip some updates");
                }
            }
        }
    }
    // The error names the strategy and both numbers.
    let counter = host_counter();
    let mut w = Writer::new(&counter, 0, PublishPolicy::NEVER, MonotonicClock);
    w.update(700);
    w.flush();
    assert_eq!(check_exact(&counter, 700, "global/never/128"), Ok(()));
    let err = check_exact(&counter, 701, "global/never/128").unwrap_err();
    let got = (err.strategy.as_str(), err.found, err.expected);
    assert_eq!(got, ("global/never/128", 700, 701));
    let text = "global/never/128: final sum 700 != exact total 701 (off by -1)";
    assert_eq!(err.to_string(), text);
}

#[test]
fn fixture_layouts_sum_exactly_and_node_iterations_agree() {
    // The 4-node VM of seed 001, the 8-node NPS4 host and the 2-node EPYC, every slot homed on node
    // 0 (this machine's only node). One writer on the first CPU of each node (read off the
    // fixtures' node cpulists by hand), so every node slot is written and a reader that stops after
    // node 0 loses load. The 2-node EPYC again with firmware declaring 8 possible nodes (nr_node_ids
    // 8, as on hosts with hot-pluggable memory): the compact walk visits all 8 ids.
    for (name, writer_cpus, possible) in [
        ("vm-4node-norov", vec![0, 4, 6, 8], None),
        (
            "amd-2s-nps4-8node",
            vec![0, 8, 16, 24, 32, 40, 48, 56],
            None,
        ),
        ("epyc-7j13-2s-nps1-256", vec![0, 64], None),
        ("epyc-7j13-2s-nps1-256", vec![0, 64], Some("0-7")),
    ] {
        let mut topo = fixture(name);
        if let Some(nodes) = possible {
            topo.possible_nodes = CpuList::parse(nodes).unwrap();
        }
        let cpus = topo.online_cpus.to_vec();
        let writers = writer_cpus.len();
        for level in ShardLevel::ALL {
            let mut sums = Vec::new();
            for node_iter in [NodeIter::Compact, NodeIter::Bitmap] {
                let what = format!("{name} {level} {node_iter:?}");
                let shape = (level, Pad::Line128);
                let counter = counter_on(&topo, &cpus, shape, SlotHome::OnNode(0), node_iter);
                let (slots, kind, steps) = match (level, node_iter) {
                    (ShardLevel::Global, _) => (1, WALK_SLOTS, 1),
                    (ShardLevel::Llc, _) => (topo.llcs.len(), WALK_SLOTS, topo.llcs.len()),
                    (ShardLevel::Cpu, _) => (topo.cpus.len(), WALK_SLOTS, topo.cpus.len()),
                    // Every node has CPUs. The compact walk steps over every node id below
                    // nr_node_ids; the bitmap loads one mask word per node found (ids here are all
                    // below 64), then all 16 words in the search past the last one.
                    (ShardLevel::Node, NodeIter::Compact) => {
                        let nr_node_ids = topo.possible_nodes.last().unwrap() as usize + 1;
                        (writers, WALK_NODE_IDS, nr_node_ids)
                    }
                    (ShardLevel::Node, NodeIter::Bitmap) => {
                        (writers, WALK_NODE_MASK, writers + MAX_NUMNODES / 64)
                    }
                };
                assert_eq!(counter.slots().len(), slots, "{what}");
                assert_eq!(counter.read_steps(), steps, "{what}");
                // The walk compiled apart for each level and node walk is this layout's.
                assert_eq!(counter.walk_kind(), kind, "{what}");
                // All slots on node 0: one region, the pad's stride apart.
                let stride = (slots > 1).then_some(Pad::Line128.stride());
                assert_eq!(counter.slot_stride(), stride, "{what}");
                let updates = 5_000;
                let policy = "threshold:64".parse().unwrap();
                let (loads, _) = hammer(&counter, &writer_cpus, writers, policy, updates);
                let total = assert_loads_replay(&counter, &loads, updates, &what);
                // Each writer has a slot of its own (one per node, and the first CPUs of two nodes
                // share no LLC), except at global.
                let writer_slots: Vec<usize> = writer_cpus
                    .iter()
                    .map(|&c| counter.slot_of_cpu(c).unwrap())
                    .collect();
                let mut distinct = writer_slots.clone();
                distinct.sort_unstable();
                distinct.dedup();
                let want = if level == ShardLevel::Global {
                    1
                } else {
                    writers
                };
                assert_eq!(distinct.len(), want, "{what}: {writer_slots:?}");
                // Every slot holds exactly its writers' replayed loads.
                for i in 0..slots {
                    let want: i64 = (0..writers)
                        .filter(|&t| writer_slots[t] == i)
                        .map(|t| replayed_final_load(t, updates))
                        .sum();
                    assert_eq!(slot_sum(counter.raw(i)), want, "{what}: slot {i}");
                }
                // Distinct marks in every slot: powers of two where they fit (sum 2^n - 1), else
                // 1..=n (sum n(n+1)/2). A walk that skips or repeats a slot reads another sum.
                let n = slots;
                let (mark, marks_sum): (fn(usize) -> i64, i64) = if n <= 62 {
                    (|i| 1 << i, (1i64 << n) - 1)
                } else {
                    (|i| i as i64 + 1, (n * (n + 1) / 2) as i64)
                };
                for i in 0..n {
                    counter.slot(i).fetch_add(mark(i), Ordering::Relaxed);
                }
                assert_eq!(counter.read(), total + marks_sum, "{what}: marked read");
                // A view reading through the walk sums the same.
                let mut view = ReadView::new(&counter, None);
                assert_eq!(
                    view_read(&mut view, &counter, 0),
                    total + marks_sum,
                    "{what}"
                );
                sums.push(counter.read());
            }
            assert_eq!(sums[0], sums[1], "{name} {level}: walks disagree");
        }
    }
}

#[test]
fn writers_map_to_their_level_unit_and_slots_are_verified_on_their_node() {
    let topo = fixture("epyc-7j13-2s-nps1-256");
    let cpus = topo.online_cpus.to_vec();
    let make = |level| on_node0(&topo, &cpus, (level, Pad::Line64));
    let node = make(ShardLevel::Node);
    assert_eq!(node.slot_of_cpu(0), node.slot_of_cpu(191)); // both node 0
    assert_ne!(node.slot_of_cpu(0), node.slot_of_cpu(64));
    assert_eq!(node.slots()[1].owner, "node 1");
    let llc = make(ShardLevel::Llc);
    assert_eq!(llc.slot_of_cpu(0), llc.slot_of_cpu(135)); // same CCX via SMT sibling
    assert_ne!(llc.slot_of_cpu(7), llc.slot_of_cpu(8)); // next CCX, same node
    assert_eq!(make(ShardLevel::Cpu).slot_of_cpu(200), Some(200));
    assert_eq!(make(ShardLevel::Global).slot_of_cpu(255), Some(0));
    let (topo, cpus) = here();
    for level in ShardLevel::ALL {
        for home in [SlotHome::Local, SlotHome::OnNode(0)] {
            let counter = counter_on(&topo, &cpus, (level, Pad::Packed), home, NodeIter::Compact);
            for slot in counter.slots() {
                let (owner, verified) = (&slot.owner, NodeCheck::Verified { node: 0 });
                assert_eq!(slot.check, verified, "{level} {owner}");
            }
            assert_eq!(counter.shares(), DEFAULT_SHARES);
        }
    }
}

#[test]
fn a_counter_starts_its_lines_at_the_offset_asked_and_is_cleared_on_them() {
    let (topo, cpus) = here();
    let page = crate::placement::page_size();
    let at = |pad, offset| {
        let layout = CounterLayout { pad, ..GLOBAL };
        let c = ShardedCounter::new_at(layout, &topo, &cpus, Placement::Strict, offset).unwrap();
        // `shares` one stride before the slot, both exact after writes.
        c.slot(0).fetch_add(3, Ordering::Relaxed);
        assert_eq!((c.read(), c.shares()), (3, DEFAULT_SHARES));
        (c.slot_address(0) % page, c.end_offset())
    };
    // 128-byte pad: shares at 640, the slot at 768, the next from 896.
    assert_eq!(at(Pad::Line128, 640), (768, 896));
    assert_eq!(at(Pad::Line128, 0), (128, 256));
    // Taken within the page, and down to 8 bytes.
    assert_eq!(at(Pad::Line128, page + 645), (768, 896));
    // Packed: 8 bytes apart; near the page's end the slot and the end run on past it, the end
    // wrapping to the next page's start.
    assert_eq!(at(Pad::Packed, 4000), (4008, 4016));
    assert_eq!(at(Pad::Line128, page - 128), (0, 128));
    let (topo, cpus) = here();
    let shape = (ShardLevel::Cpu, Pad::Line128);
    let counter = counter_on(&topo, &cpus, shape, SlotHome::Local, NodeIter::Compact);
    let n = counter.slots().len();
    let addresses: Vec<usize> = (0..n).map(|i| counter.slot_address(i)).collect();
    for i in 0..n {
        counter
            .slot(i)
            .store(PUBLISH_TAG * 3 + 5 + i as i64, Ordering::Relaxed);
    }
    assert_ne!(counter.read(), 0);
    counter.clear();
    assert_eq!(counter.read(), 0);
    for (i, &address) in addresses.iter().enumerate() {
        // Tags too: every raw value is 0, at the address it had.
        assert_eq!((counter.raw(i), counter.slot_address(i)), (0, address));
    }
    assert_eq!(counter.shares(), DEFAULT_SHARES);
}

#[test]
fn a_slot_home_without_memory_is_an_error_or_a_note() {
    let (topo, _) = here();
    let layout = CounterLayout {
        home: SlotHome::OnNode(7),
        ..GLOBAL
    };
    let err = ShardedCounter::new(layout, &topo, &[0], Placement::Strict)
        .err()
        .unwrap();
    assert!(matches!(err, CounterError::Request(_)));
    assert!(err.to_string().contains("node 7 does not exist"), "{err}");
    // Node 1 has CPUs but no memory; nearest node with memory is node 0 (distance 21) rather than
    // node 2 (24). Every fallback lands on node 0, which exists here.
    let topo = fixture("cpuless-memless");
    let layout = CounterLayout {
        level: ShardLevel::Node,
        ..GLOBAL
    };
    let counter = ShardedCounter::new(layout, &topo, &[4], Placement::BestEffort).unwrap();
    assert_eq!(counter.slots()[1].node, 0);
    let notes = counter.notes();
    let said = notes
        .iter()
        .any(|n| n.contains("node 1 has no usable memory"));
    assert!(said, "{notes:?}");
}

#[test]
fn ratelimit_never_publishes_twice_in_one_period_and_stamps_only_on_publish() {
    let counter = host_counter();
    let clock = FakeClock::default();
    clock.advance(1_000_000);
    let policy: PublishPolicy = "ratelimit:1us+threshold:64".parse().unwrap();
    let mut w = Writer::new(&counter, 0, policy, clock.clone());
    // (clock step, load, publishes after): the first update may publish; inside the period none
    // however big; 1100 ns after the publish; period over but 10 <= 4096/64: no publish, no stamp;
    // only 10 ns after the failed try it publishes, as the failed try did not stamp.
    for (step, load, publishes) in [
        (0, 1024, 1),
        (500, 4096, 1),
        (600, 4096, 2),
        (1500, 4096 + 10, 2),
        (10, 8192, 3),
    ] {
        clock.advance(step);
        w.update(load);
        assert_eq!(w.stats().publishes, publishes, "load {load}");
    }
    assert_eq!(counter.read(), 8192);
    // Random schedule (clock steps of 0..=400 ns): publishes are always at least one period apart.
    let mut walk = LoadWalk::new(9, 0);
    let mut steps = LoadWalk::new(5, 99);
    let mut last_publish_time: Option<u64> = None;
    let mut publishes = w.stats().publishes;
    for _ in 0..20_000 {
        clock.advance((steps.next_load() % 401) as u64);
        w.update(walk.next_load() * 8);
        if w.stats().publishes != publishes {
            publishes = w.stats().publishes;
            let now = crate::clock::Clock::now(&clock);
            if let Some(prev) = last_publish_time {
                assert!(now - prev >= 1000, "two publishes {} ns apart", now - prev);
            }
            last_publish_time = Some(now);
        }
    }
    assert!(publishes > 100, "too few publishes: {publishes}");
}

#[test]
fn threshold_and_group_shares_are_the_kernels_formulas() {
    let counter = host_counter();
    let mut w = Writer::new(&counter, 0, "threshold:64".parse().unwrap(), MonotonicClock);
    let mut walk = LoadWalk::new(3, 0);
    let (mut contrib, mut published) = (0i64, 0u64);
    for _ in 0..50_000 {
        let load = walk.next_load();
        let expect = (load - contrib).abs() > contrib / 64; // update_tg_load_avg()
        w.update(load);
        if expect {
            contrib = load;
            published += 1;
        }
        assert_eq!((w.stats().publishes, w.contrib()), (published, contrib));
    }
    assert!(published > 1000 && published < 50_000, "{published}");
    assert_eq!(counter.read(), contrib);
    // tg_weight = 3000 - 1000 + 1500 = 3500; shares = 1024 * 1500 / 3500.
    assert_eq!(group_shares(1024, 3000, 1000, 1500), 1024 * 1500 / 3500);
    assert_eq!(group_shares(1024, 0, 0, 0), 1024);
}

#[test]
fn pending_since_marks_the_oldest_unseen_change_and_stats_merge() {
    let counter = host_counter();
    let mut w = Writer::new(&counter, 0, "batch:100".parse().unwrap(), MonotonicClock);
    // Pending from update 0; |120| >= 100 publishes; pending from 3; back at the published value
    // nothing is unseen; pending again from 5.
    for (load, since) in [(40, Some(0)), (80, Some(0)), (120, None), (150, Some(3))]
        .into_iter()
        .chain([(120, None), (150, Some(5))])
    {
        w.update(load);
        assert_eq!(w.pending_since(), since, "load {load}");
    }
    assert_eq!(w.stats().publishes, 1);
    w.flush();
    assert_eq!((w.pending_since(), w.stats().flushed), (None, 30));
    assert_eq!(counter.read(), 150);
    // After a reset, a change still pending counts from update 0.
    w.update(170);
    w.reset_stats();
    assert_eq!(w.pending_since(), Some(0));
    let stats = |updates, publishes, flushed, handovers| PublishStats {
        updates,
        publishes,
        flushed,
        handovers,
    };
    let mut a = stats(3, 2, 5, 1);
    a.merge(&stats(4, 7, 6, 3));
    // 3 + 4, 2 + 7, 5 + 6, 1 + 3 (a product would give 12, 14, 30, 3).
    assert_eq!(a, stats(7, 9, 11, 4));
}

#[test]
fn a_hand_over_is_a_publish_that_follows_another_writers_add_and_bounded_by_them() {
    let counter = host_counter();
    let writer = |policy| Writer::new(&counter, 0, policy, FakeClock::default());
    let (mut a, mut b) = (writer(PublishPolicy::ALWAYS), writer(PublishPolicy::ALWAYS));
    // A A B A B B A: B's first add follows A's two, A's third follows B, B's second follows A, B's
    // third follows itself, A's fourth B.
    for (is_a, load) in [(true, 10), (true, 20), (false, 5), (true, 30), (false, 6)]
        .into_iter()
        .chain([(false, 7), (true, 40)])
    {
        if is_a { a.update(load) } else { b.update(load) }
    }
    assert_eq!((a.stats().handovers, b.stats().handovers), (2, 2));
    assert_eq!((a.stats().publishes, b.stats().publishes), (4, 3));
    assert_eq!(counter.read(), 47);
    // Adds that cancel out still hand the line over: B goes +16 then back -16, leaving the sum as A
    // left it; A's next add sees B's adds.
    b.update(23);
    b.update(7);
    assert_eq!(counter.read(), 47);
    a.update(41);
    assert_eq!(a.stats().handovers, 3);
    // An update that does not publish moves no line and counts nothing; the reset forgets the count
    // but not what the slot held.
    let mut held = writer(PublishPolicy::NEVER);
    held.update(100);
    assert_eq!((held.stats().publishes, held.stats().handovers), (0, 0));
    a.reset_stats();
    a.update(42);
    assert_eq!(a.stats().handovers, 0);
    // The slot's tags never leak into the sum: read and exactness agree.
    a.flush();
    b.flush();
    assert_eq!(counter.read(), 42 + 7);
    assert!(check_exact(&counter, 49, "global/always").is_ok());
    // Two real writers on one slot: A makes 200,000 updates, B 100,000 and stops. A hand-over into
    // one writer needs a distinct add of the other in between, so each writer's hand-overs are at
    // most the other's publishes, and once B stops A takes none. Both writers exist before either
    // adds, so whichever goes second sees the other's adds: at least one hand-over, however the
    // threads are scheduled.
    let counter = host_counter();
    let writer = || Writer::new(&counter, 0, PublishPolicy::ALWAYS, FakeClock::default());
    let run = |mut w: Writer<'_, FakeClock>, updates: u64| {
        let mut walk = LoadWalk::new(3, updates);
        (0..updates).for_each(|_| w.update(walk.next_load()));
        let stats = w.stats();
        w.flush();
        (stats, w.load())
    };
    let (wa, wb) = (writer(), writer());
    let ((a, a_load), (b, b_load)) = std::thread::scope(|scope| {
        let a = scope.spawn(|| run(wa, 200_000));
        let b = scope.spawn(|| run(wb, 100_000));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!((a.publishes, b.publishes), (200_000, 100_000));
    assert!(a.handovers <= b.publishes, "{a:?} {b:?}");
    assert!(b.handovers <= a.publishes, "{a:?} {b:?}");
    assert!(a.handovers + b.handovers >= 1, "{a:?} {b:?}");
    // Hand-overs alternate: the two counts differ by at most one.
    assert!(a.handovers.abs_diff(b.handovers) <= 1, "{a:?} {b:?}");
    assert_eq!(counter.read(), a_load + b_load);
}

#[test]
fn a_read_fetches_a_line_only_when_another_thread_changed_it() {
    let counter = host_counter();
    let writer = |policy| Writer::new(&counter, 0, policy, FakeClock::default());
    let (mut a, mut b) = (writer(PublishPolicy::ALWAYS), writer(PublishPolicy::ALWAYS));
    let mut held = writer(PublishPolicy::NEVER);
    let mut va = ReadView::new(&counter, Some(a.slot()));
    let mut reader = ReadView::new(&counter, None);
    let read_a = |va: &mut ReadView, a: &Writer<'_, FakeClock>| {
        (view_read(va, &counter, a.left()), va.fetched())
    };
    // A's read of what its own add left fetches nothing.
    a.update(10);
    assert_eq!(read_a(&mut va, &a), (10, 0));
    // B adds: A's next read fetches the line, the one after does not.
    b.update(5);
    assert_eq!(read_a(&mut va, &a), (15, 1));
    assert_eq!(read_a(&mut va, &a), (15, 1));
    // B's two adds, then A's own add (a hand-over), then A's read: the add brought the line, so the
    // read fetches nothing.
    b.update(6);
    b.update(7);
    a.update(20);
    assert_eq!(read_a(&mut va, &a), (27, 1));
    // Adds that cancel out still change the line: one fetch.
    b.update(23);
    b.update(7);
    assert_eq!(read_a(&mut va, &a), (27, 2));
    // An update that does not publish changes nothing.
    held.update(100);
    assert_eq!(read_a(&mut va, &a), (27, 2));
    // A reader without a slot of its own: every change since its view was made (at the start) is
    // one fetch, then none.
    let mut read = || view_read(&mut reader, &counter, 0);
    assert_eq!((read(), read()), (27, 27));
    assert_eq!(reader.fetched(), 1);
    // The reset forgets the count, not what was seen.
    va.reset();
    assert_eq!(read_a(&mut va, &a), (27, 0));
    // A slot that is not the counter's is not this view's own.
    let elsewhere = AtomicI64::new(0);
    let mut other = ReadView::new(&counter, Some(&elsewhere));
    assert_eq!(
        (view_read(&mut other, &counter, 12345), other.fetched()),
        (27, 0)
    );
    // Per-CPU slots of the 4-node VM, homed on node 0: packed, slots 0 and 1 share the first line
    // (with `shares`); padded to 64 or 128 bytes, each has its own.
    let topo = fixture("vm-4node-norov");
    let cpus = topo.online_cpus.to_vec();
    for (pad, lines) in [(Pad::Packed, 1), (Pad::Line64, 2), (Pad::Line128, 2)] {
        let counter = on_node0(&topo, &cpus, (ShardLevel::Cpu, pad));
        let mut view = ReadView::new(&counter, None);
        Writer::new(&counter, 0, PublishPolicy::ALWAYS, FakeClock::default()).update(1);
        Writer::new(&counter, 1, PublishPolicy::ALWAYS, FakeClock::default()).update(2);
        for _ in 0..2 {
            let seen = (view_read(&mut view, &counter, 0), view.fetched());
            assert_eq!(seen, (3, lines), "{pad}");
        }
    }
}

#[test]
fn threshold_and_batch_publish_the_same_fraction_early_and_late() {
    // An unbounded walk made threshold:64 publish 62% of its first 10k updates and 17% of updates
    // 100k-1M; the bounded, periodic table makes the fraction a property of the policy, not of run
    // length. Publishes in the first and the last tenth of 10M updates:
    let updates = 10_000_000;
    for policy in ["threshold:64", "batch:32"] {
        let counter = host_counter();
        let mut w = Writer::new(&counter, 0, policy.parse().unwrap(), MonotonicClock);
        let mut walk = LoadWalk::new(1, 0);
        let mut run = |n| {
            (0..n).for_each(|_| w.update(walk.next_load()));
            w.stats().publishes
        };
        let first = run(updates / 10);
        let before_last = run(updates - 2 * (updates / 10));
        let last = run(updates / 10) - before_last;
        let ratio = last as f64 / first as f64;
        assert!(first > 10_000, "{policy}: only {first} publishes");
        let said = format!("{policy}: {first} publishes in the first 10%, {last} in the last");
        assert!((0.9..=1.1).contains(&ratio), "{said}");
    }
}
