//! The model's pieces worked by hand: arrivals, lines and their flows (the tests
//! `scripts/mutants.sh` showed were owed).

use super::*;
use crate::predict::class::LatencyKey;
use crate::predict::costs::{Cited, CitedNs, CostCurve, ReadOccupancy};
use crate::predict::latency::TransactionRatios;
use crate::predict::tests::{curve, lat, layout, near, spr};
use crate::topology::fixture;

#[test]
fn arrivals_touched() {
    use Arrivals::{Paced, Poisson};
    // Others at 1/s, me at 3/s: Poisson 1/(1 + 3); me at 4/s, paced 1/4. Others at 3/s, me at 1/s:
    // Poisson 3/4, paced capped at 1. Nobody else: never touched; I never touch it: always.
    for (arrivals, others, mine, want) in [
        (Poisson, 1.0, 3.0, 0.25),
        (Paced, 1.0, 4.0, 0.25),
        (Poisson, 3.0, 1.0, 0.75),
        (Paced, 3.0, 1.0, 1.0),
        (Poisson, 0.0, 1.0, 0.0),
        (Paced, 0.0, 1.0, 0.0),
        (Poisson, 1.0, 0.0, 1.0),
        (Paced, 1.0, 0.0, 1.0),
    ] {
        assert_eq!(
            touched(arrivals, others, mine),
            want,
            "{arrivals} {others} {mine}"
        );
    }
}

#[test]
fn a_global_line_with_a_reader_and_half_publishes_matches_a_hand_worked_flow() {
    // Writers 0 and 56 (nodes 0 and 1), reader thread 1 (node 0, CPU 0's LLC), read side every 2nd
    // update, half the updates publish, Poisson. Classes: writer pairs 0↔56 twice (cross, 200 ns);
    // a foreign read's pairs (the thread with each writer): (1,0) llc 40, (1,56) cross 200, so the
    // thread's fetch is 120 ns; a co-writer's fetch, 200. Per writer at rate r: publishes p = r/2,
    // own reads q_w = r/2, the thread's reads r. Line: publishes 2p = r.
    //   own fetch: (1 − f)·touched(p, q_w) = 0.5 · 1/2 = 1/4, r/4 in all;
    //   thread fetch: touched(r, r) = 1/2, r/2;
    //   reads that can follow a write: the thread's r and the co-writer's
    //   after an update that did not publish, r/2 · 1/2 = r/4: 5r/4;
    //   first reads: r · touched(5r/4, r) = 5r/9, at (r·120 +
    //   r/4·200)/(5r/4) = 136 ns;
    //   others between two publishes: p + 5r/9 = 19r/18, h = 19/28;
    //   publish transfer time: (r/2·200 + 5r/9·136)/(19r/18) = 3160/19 ns;
    //   ρ = (19r/28 · 3160/19 + 5r/9 · 136)·1e-9 = 11870/63 · r · 1e-9;
    //   queued 19r/28 + 5r/9 = 311r/252 over 3 sources at
    //   S = (11870/63)/(311/252) = 47480/311 ns;
    //   share of fetches that queue: (5r/9)/(r/4 + r/2) = 20/27;
    //   per update: write 1·0.5·19/28 = 19/56, read (own) 1/2·1/4 = 1/8;
    //   cost = 19/56·(3160/19 + w) + 1/8·(200 + 20/27·w)
    //   = 3160/56 + 25 + (19/56 + 5/54)·w.
    // The wait w: 3 sources with S/Z = 1/2 give p₀ = 1/(1 + 3/2 + 6/4 + 6/8) = 4/19, so each source
    // runs at λ = (15/19)/(3S) and R = 1/λ − Z = 19S/5 − 2S = 1.8 S: w = (R − S)/2 = 0.4 S. λ =
    // 311r/756 gives r = (5/19)·(756/311)/S.
    // (Worked with only the first read after a write occupying the line, and the upgrade priced at
    // 136 ns whatever the sharers, as a flat --sharers curve sets it.)
    let lines = spr(&[0, 56], &[1], 2, ShardLevel::Global);
    let mut l = lat(&["cross-node=200ns±0", "same-llc=40ns±0"]);
    l.costs.read_occupancy = ReadOccupancy::First;
    l.costs.sharers = curve(&[(1, 136.0)]);
    let base = 3160.0 / 56.0 + 25.0;
    let e = lines.evaluate(1e3, 0.5, &l, Bound::Mid, Arrivals::Poisson);
    near(e.rho, 11870.0 / 63.0 * 1e3 * 1e-9, 1e-9);
    assert_eq!(e.hottest_writers, 2);
    near(e.write_transfers, 19.0 / 56.0, 1e-12);
    near(e.read_transfers, 0.125, 1e-12);
    // At 1k/s ρ = 1.9e-4: the wait is below 0.1 ns.
    assert!(e.cost_ns > base && e.cost_ns < base + 0.05, "{e:?}");
    // Past ρ = 1 (r = 5.3M/s) the cost is still given, and the line's waits put it above the
    // transfers alone.
    let e = lines.evaluate(6e6, 0.5, &l, Bound::Mid, Arrivals::Poisson);
    assert!(e.rho > 1.0 && e.cost_ns > base + 10.0, "{e:?}");
    // Every fetch occupying the line: the r/4 own and r/2 thread fetches queue, 3r/4 at the 136 ns
    // mix: ρ = (3160/28 + 3/4 · 136) r ns.
    l.costs.read_occupancy = ReadOccupancy::Every;
    let e = lines.evaluate(1e3, 0.5, &l, Bound::Mid, Arrivals::Poisson);
    near(e.rho, (3160.0 / 28.0 + 102.0) * 1e3 * 1e-9, 1e-9);
}

#[test]
fn a_node_split_fetches_across_nodes_only() {
    // Issue 30's fix (a), on two nodes of two CPUs: writers 0 and 1 (node 0, one LLC) and 56 and 57
    // (node 1), node/always, read side every update, paced, same-llc 40 ns, cross-node 200. Per
    // line (2 writers) at rate r: publishes 2r; its writers' reads never fetch it (each publishes
    // just before); the other node's 2 writers each fetch it after every write (touched(2r, r) =
    // 1): 2r fetches, all cross-node, 200 ns, each the first after a write. Between two of a
    // writer's publishes the co-writer's (r) and those reads (2r) came: h = 1, publishes at (r·40 +
    // 2r·200)/3r = 440/3 ns. Per update a writer pays one publish and one fetch of the other line:
    // 440/3 + 200 ns. Averaging the fetch over every reader pair, the co-writer's 40 ns pairs
    // included, gave 146.7 ns fetches and 257.8 ns updates.
    let lines = spr(&[0, 1, 56, 57], &[], 1, ShardLevel::Node);
    assert_eq!(lines.count(), 2);
    let l = lat(&["cross-node=200ns±0", "same-llc=40ns±0"]);
    let r = 1e3;
    let e = lines.evaluate(r, 1.0, &l, Bound::Mid, Arrivals::Paced);
    // ρ per line: (2r · 440/3 + 2r · 200) ns.
    near(e.rho, 2.0 * r * (440.0 / 3.0 + 200.0) * 1e-9, 1e-9);
    assert_eq!((e.write_transfers, e.read_transfers), (1.0, 1.0));
    // Each line's wait at ρ 7e-4 is below 0.1 ns.
    let want = 440.0 / 3.0 + 200.0;
    let got = e.cost_ns;
    assert!(got > want && got < want + 0.2, "{got} vs {want}");
}

#[test]
fn a_co_writers_first_read_after_a_publish_queues() {
    // Issue 30's fix (b), on the same two nodes: one global line, 4 writers reading every update, a
    // quarter of the updates publishing (as a ratelimit does), paced. Per writer at rate r: p =
    // r/4, q_w = r. Line: publishes r. A co-writer's read after an update that did not publish (3/4
    // of them) fetches the line when another writer published since: own = 3/4 · touched(3r/4, r) =
    // 9/16, 9r/4 fetches. Those reads (3 · r · 3/4 = 9r/4 a second) follow the publishes: every
    // publish is followed by a first read, r a second, which queues: ρ doubles against a model
    // where only other lines' readers queue. Every transfer is a writer pair: (4·40 + 8·200)/12 =
    // 440/3 ns. h = touched(3r/4 + r, r/4) = 1: r publish transfers. A publish after those reads
    // invalidates m̄ = fetches / first reads = 9/4 sharers: a sharer across the node (2/3 of the
    // writer pairs) with P = 1 − (1/3)^(9/4) = 0.91557, so the upgrade is P · 200 + (1 − P) · 40 =
    // 186.49 ns and a publish's transfer (3r/4 · 440/3 + r · 186.49)/(7r/4) = 169.42 ns.
    //   only the first read queueing: ρ = r · (169.42 + 440/3) ns;
    //   every fetch queueing: ρ = r · (169.42 + 9/4 · 440/3) ns;
    //   per update: write 1/4 · 1, read 9/16: cost 1/4 · 169.42 + 9/16 ·
    //   440/3 = 124.856 ns and a wait below 0.1 ns.
    let lines = spr(&[0, 1, 56, 57], &[], 1, ShardLevel::Global);
    let mut l = lat(&["cross-node=200ns±0", "same-llc=40ns±0"]);
    let r = 1e3;
    let p = 1.0 - (1.0f64 / 3.0).powf(2.25);
    let s_write = (0.75 * 440.0 / 3.0 + p * 200.0 + (1.0 - p) * 40.0) / 1.75;
    near(s_write, 169.4239, 1e-6);
    let e = lines.evaluate(r, 0.25, &l, Bound::Mid, Arrivals::Paced);
    let every = r * (s_write + 2.25 * 440.0 / 3.0) * 1e-9;
    near(e.rho, every, 1e-9);
    near(e.write_transfers, 0.25, 1e-12);
    near(e.read_transfers, 9.0 / 16.0, 1e-12);
    let want = 0.25 * s_write + 9.0 / 16.0 * 440.0 / 3.0;
    let got = e.cost_ns;
    assert!(got > want && got < want + 0.1, "{got} vs {want}");
    l.costs.read_occupancy = ReadOccupancy::First;
    let e = lines.evaluate(r, 0.25, &l, Bound::Mid, Arrivals::Paced);
    near(e.rho, r * (s_write + 440.0 / 3.0) * 1e-9, 1e-9);
}

#[test]
fn a_node_split_with_a_reader_matches_a_hand_worked_flow() {
    // The same CPUs split per node, every class 100 ns: two lines of one writer each (0 and 56).
    // Per line at rate r, f = 1/2, Poisson: publishes p = r/2; no other writer, so no own fetch;
    // the other writer's reads (r/2) fetch it with touched(r/2, r/2) = 1/2, the thread's (r) with
    // touched(r/2, r) = 1/3: 7r/12 fetches.
    //   first reads: p · touched(r/2 + r, r/2) = r/2 · 3/4 = 3r/8;
    //   h = touched(3r/8, r/2) = 3/7, publish transfers 3r/14;
    //   queued 3r/14 + 3r/8 = 33r/56, ρ = 33r/56 · 100 ns;
    //   sources: its writer, the other writer and the thread = 3;
    //   share queued (3r/8)/(7r/12) = 9/14;
    //   per update (mean over the 2 writers): write 1/2·1/2·3/7 = 3/28,
    //   read 1/2·(1/2·1/2) = 1/8; both lines: 3/14 and 1/4;
    //   cost per line 3/28·(100 + w) + 1/8·(100 + 9/14·w)
    //   = 1300/56 + 3w/16.
    // (Worked with only the first read after a write occupying the line.) The wait w: the lines are
    // two alike stations for 3 CPUs (2 writers and the thread) at Z = 1/r, each with a demand of
    // ρ/(3r) per event and 33/168 queued visits, the 5/14 of a writer's 1/4 fetch of the other line
    // that does not queue (25 · 5/14 ns) a delay beside Z; w = (R − D)/visits of queue::mva's R.
    let lines = spr(&[0, 56], &[1], 2, ShardLevel::Node);
    assert_eq!(lines.count(), 2);
    let mut l = lat(&["cross-node=100ns±0", "same-llc=100ns±0"]);
    l.costs.read_occupancy = ReadOccupancy::First;
    let r = 5.0 / 19.0 * 56.0 / 11.0 / 100e-9;
    let e = lines.evaluate(r, 0.5, &l, Bound::Mid, Arrivals::Poisson);
    near(e.rho, 15.0 / 19.0, 1e-9);
    assert_eq!(e.hottest_writers, 1);
    near(e.write_transfers, 3.0 / 14.0, 1e-12);
    near(e.read_transfers, 0.25, 1e-12);
    let d = 15.0 / 19.0 / (3.0 * r) * 1e9;
    let station = crate::predict::queue::Station {
        demand_ns: [d, 0.0],
        count: 2,
    };
    let z = 1e9 / r + 25.0 * 5.0 / 14.0;
    let q = crate::predict::queue::mva2([3, 0], [z, 0.0], &[station]);
    let w = (q.residence_ns[0][0] - d) / (33.0 / 168.0);
    let want = 2.0 * (1300.0 / 56.0 + 3.0 * w / 16.0);
    near(e.cost_ns, want, 1e-9);
    // ρ alone, as the saturation search sees it.
    near(
        lines.rho(r, 0.5, &l, Bound::Mid, Arrivals::Poisson),
        15.0 / 19.0,
        1e-9,
    );
}

#[test]
fn lines_check_names_a_class_without_a_figure() {
    // 0 and 1 share an LLC: one class, same-llc.
    let lines = spr(&[0, 1], &[], 1, ShardLevel::Global);
    assert_eq!(
        lines.classes().map(|c| c.to_string()).collect::<Vec<_>>(),
        ["same-llc"]
    );
    assert!(lines.check(&lat(&["same-llc=51ns"])).is_ok());
    let e = lines.check(&lat(&["smt=8ns"])).unwrap_err();
    assert_eq!(e.class, "same-llc");
    // An offline CPU is an error naming it.
    let e = Lines::new(
        &fixture("spr-2s-224"),
        &layout(&[0, 999]),
        ShardLevel::Global,
    )
    .unwrap_err();
    assert_eq!(e.cpu, 999);
}

#[test]
fn reader_threads_alone_queue_for_the_line() {
    // Writers 0 and 56 never read (read every 0); reader thread 1 reads at the rate r. Every class
    // 100 ns; paced, every update publishes.
    let l = lat(&["cross-node=100ns±0", "same-llc=100ns±0"]);
    // One line: publishes 2r; the thread fetches it after each (touched(2r, r) = 1): r fetches,
    // each the first read after a write of half the publishes (2r · touched(r, 2r) = r). Between
    // two of a writer's publishes the other's (r) and those reads (r) came: h = 1, 2r transfers. ρ
    // = (2r + r) · 100 ns; 3 sources at r each; cost per update 100 ns + the wait. One visit of 100
    // ns per event for 3 CPUs at Z = 380 ns (rS = 5/19): Q(1) = 100/480, R(2) = 120.833, Q(2) = 2 ·
    // 120.833/500.833 = 0.48253, R(3) = 148.253 ns.
    let global = spr(&[0, 56], &[1], 0, ShardLevel::Global);
    let r = 5.0 / 19.0 / 100e-9;
    let e = global.evaluate(r, 1.0, &l, Bound::Mid, Arrivals::Paced);
    near(e.rho, 15.0 / 19.0, 1e-9);
    assert_eq!((e.write_transfers, e.read_transfers), (1.0, 0.0));
    near(e.cost_ns, 148.253, 1e-5);
    // Per node: each line has one writer (r publishes) and the thread's r fetches, each the first
    // after a write: ρ = 2r · 100 ns. At r = 1M/s the 3 CPUs see two stations of 2r · 100/(3r) =
    // 66.67 ns per event, 2/3 visit each, Z = 1000 ns: R₁ = 66.67 (Q 0.058824), R₂ = 70.588 (Q
    // 0.123711), R₃ = 74.914; w = (74.914 − 66.667)/(2/3) = 12.371. A writer pays its own publish:
    // 100 + w.
    let node = spr(&[0, 56], &[1], 0, ShardLevel::Node);
    // Writers that never read are no line's readers: each line's one read pair and one reader are
    // the thread's.
    for line in &node.lines {
        assert_eq!(line.read_pairs.values().sum::<u64>(), 1, "{line:?}");
        let readers: usize = line.node_readers.iter().flatten().sum();
        assert_eq!(readers, 1, "{line:?}");
    }
    let e = node.evaluate(1e6, 1.0, &l, Bound::Mid, Arrivals::Paced);
    near(e.rho, 0.2, 1e-9);
    assert_eq!((e.write_transfers, e.read_transfers), (1.0, 0.0));
    near(e.cost_ns, 112.371, 1e-5);
}

#[test]
fn two_reader_threads_share_a_fetch_after_each_write() {
    // Writers 0 and 56 per node, reading every update, reader threads 1 and 2; paced, every update
    // publishes, every class 100 ns. Per line (one writer, r publishes): the other writer's reads
    // (r) and the threads' (2r) each fetch it once per write: 3r fetches, r of them the first after
    // a write (queued, share 1/3). h = 1: r publish transfers. At r = 1M/s (Z = 1000 ns), for the 4
    // CPUs:
    // - every fetch occupying the line: ρ = 4r · 100 ns, a demand of 100
    //   ns per event at each line, one visit. MVA, two such stations:
    //   R = 100, 108.333, 117.808, 128.603 ns for 1..4 CPUs, w = 28.603;
    //   a writer pays its publish and the other line's fetch, both
    //   queued: 200 + 2w = 257.206 ns.
    // - only the first: ρ = 2r · 100 ns, 50 ns and half a visit each;
    //   the 2/3 of a writer's fetch that does not queue (66.67 ns) is a
    //   delay beside Z: Z' = 1066.67 ns, R₄ = 56.948, w = (56.948 −
    //   50)/0.5 = 13.896; the read queues 1/3 of the time: 200 + 4w/3 =
    //   218.528 ns.
    let mut l = lat(&["cross-node=100ns±0", "same-llc=100ns±0"]);
    let lines = spr(&[0, 56], &[1, 2], 1, ShardLevel::Node);
    let e = lines.evaluate(1e6, 1.0, &l, Bound::Mid, Arrivals::Paced);
    near(e.rho, 0.4, 1e-9);
    assert_eq!((e.write_transfers, e.read_transfers), (1.0, 1.0));
    near(e.cost_ns, 257.206, 1e-5);
    l.costs.read_occupancy = ReadOccupancy::First;
    let e = lines.evaluate(1e6, 1.0, &l, Bound::Mid, Arrivals::Paced);
    near(e.rho, 0.2, 1e-9);
    near(e.cost_ns, 218.528, 1e-5);
}

#[test]
fn each_update_pays_the_transactions_it_makes_as_measured() {
    // Writers 0 and 1 (one LLC of the SPR fixture), same-llc 100 ns, and a matrix's ratios: an add
    // that moves the line 1.2×, a fetch 1.1×, an upgrade 0.9×, an upgrade and a fetch together
    // 1.3×. Paced at 1k/s (ρ ≈ 0, a wait of under 0.1 ns).
    let mut l = lat(&["same-llc=100ns±0"]);
    l.transactions.insert(
        LatencyKey::Class(crate::matrix::PairClass::SameLlc),
        TransactionRatios {
            add_moved: 1.2,
            read_fetched: 1.1,
            add_upgraded: 0.9,
            read_back: None,
            add_then_read_other: 1.3,
        },
    );
    let eval = |level, lat: &Latencies| {
        let lines = spr(&[0, 1], &[], 1, level);
        lines.evaluate(1e3, 1.0, lat, Bound::Mid, Arrivals::Paced)
    };
    // global/always: every update's add moves the line: 1.2 × 100.
    let g = eval(ShardLevel::Global, &l);
    near(g.cost_ns, 120.0, 1e-3);
    // cpu/always: each update upgrades its own line (the other read it) and fetches the other's:
    // 0.9 × 100 + 1.1 × 100 apart, paid together at 1.3 × 100.
    let c = eval(ShardLevel::Cpu, &l);
    assert_eq!((c.write_transfers, c.read_transfers), (1.0, 1.0));
    near(c.cost_ns, 130.0, 1e-3);
    // Without the ratios every transfer is one ping-pong and nothing overlaps: 100 and 2 × 100.
    let plain = lat(&["same-llc=100ns±0"]);
    near(eval(ShardLevel::Global, &plain).cost_ns, 100.0, 1e-3);
    near(eval(ShardLevel::Cpu, &plain).cost_ns, 200.0, 1e-3);
    // ρ follows the transactions' times too: global's line is busy 2 × 1k/s × 120 ns.
    near(g.rho, 2e3 * 120e-9, 1e-9);
}

#[test]
fn a_read_after_a_publish_another_cpu_read_is_priced_as_the_host_reads_back() {
    // Two writers (one LLC of the SPR fixture, same-llc 100 ns), every update reading, 40%
    // publishing, paced at 1k/s (ρ ≈ 0). Evenly paced, the two alternate: before a writer's update
    // the other made exactly one. A read back happens when this update does not publish (0.6), the
    // writer's last update did (0.4) and the other's update in between did not (0.6), so the other
    // only read: 0.144 per update. At 0.7 × 100 ns it adds 10.08 ns; unmeasured it is free.
    let eval = |read_back| {
        let mut l = lat(&["same-llc=100ns±0"]);
        l.transactions.insert(
            LatencyKey::Class(crate::matrix::PairClass::SameLlc),
            TransactionRatios {
                read_back,
                ..TransactionRatios::PINGPONG
            },
        );
        spr(&[0, 1], &[], 1, ShardLevel::Global).evaluate(1e3, 0.4, &l, Bound::Mid, Arrivals::Paced)
    };
    let (free, back) = (eval(None), eval(Some(0.7)));
    near(back.cost_ns - free.cost_ns, 10.08, 1e-2);
    // It moves the line's only copy back, so it occupies the line: two writers × 1k/s × 0.144 × 70
    // ns more of its time.
    near(back.rho - free.rho, 2e3 * 0.144 * 70e-9, 1e-6);
    // A net just under 0 (a read that found its copy, timed on a stepping clock) is free, not a
    // refund.
    near(eval(Some(-0.01)).cost_ns, free.cost_ns, 1e-12);
    // The run cannot count a read back (no value changed): the fetches it predicts stay the
    // co-writer's publishes it finds, 0.6 × 0.4.
    near(back.read_transfers, 0.24, 1e-9);
}

#[test]
fn capacity_is_the_asked_hand_overs_below_saturation_and_one_transfer_at_a_time_past_it() {
    // CPUs 0 and 1 share an LLC (same-llc 50 ns), no read side.
    let l = lat(&["same-llc=50ns"]);
    let two = spr(&[0, 1], &[], 0, ShardLevel::Global);
    // Below saturation, evenly paced: every publish finds the other writer's, 2 × 100k
    // hand-overs/s; poisson, half of them.
    let at = |lines: &Lines, rate, f, arrivals| {
        lines.evaluate(rate, f, &l, Bound::Mid, arrivals).capacity
    };
    let c = at(&two, 1e5, 1.0, Arrivals::Paced);
    near(c.handovers_per_s, 2e5, 1e-12);
    assert_eq!((c.saturated_lines, c.round_ns), (0, None));
    let c = at(&two, 1e5, 1.0, Arrivals::Poisson);
    near(c.handovers_per_s, 1e5, 1e-12);
    // Flat out (10¹⁰/s asked): one 50 ns transfer at a time, 20M/s; each writer gets the line every
    // 2 × 50 ns.
    let c = at(&two, 1e10, 1.0, Arrivals::Paced);
    near(c.handovers_per_s, 2e7, 1e-9);
    assert_eq!(c.saturated_lines, 1);
    near(c.round_ns.unwrap(), 100.0, 1e-9);
    // Four writers of one LLC: the same 20M/s, a round of 4 transfers.
    let four = spr(&[0, 1, 2, 3], &[], 0, ShardLevel::Global);
    let c = at(&four, 1e10, 1.0, Arrivals::Paced);
    near(c.handovers_per_s, 2e7, 1e-9);
    near(c.round_ns.unwrap(), 200.0, 1e-9);
    // Split per CPU: no line has two writers, nothing is handed over.
    let c = at(
        &spr(&[0, 1], &[], 0, ShardLevel::Cpu),
        1e10,
        1.0,
        Arrivals::Paced,
    );
    assert_eq!((c.handovers_per_s, c.saturated_lines), (0.0, 0));
    // At exactly ρ = 1 (2 × 10M publishes/s × 50 ns) the line is saturated, as the queue says:
    // 20M/s, one at a time, a round of 100 ns.
    assert_eq!(two.rho(1e7, 1.0, &l, Bound::Mid, Arrivals::Paced), 1.0);
    let c = at(&two, 1e7, 1.0, Arrivals::Paced);
    assert_eq!((c.saturated_lines, c.round_ns), (1, Some(100.0)), "{c:?}");
    near(c.handovers_per_s, 2e7, 1e-12);
    // A reader thread (CPU 2, same LLC) reading as fast as the writers write: per writer's update
    // r, the line queues 2r publishes (each a hand-over) and r first reads, so 1/3 of its 20M
    // transfers a second are reads: 13.3M hand-overs/s, each writer's round 150 ns.
    let read = spr(&[0, 1], &[2], 0, ShardLevel::Global);
    let c = at(&read, 1e10, 1.0, Arrivals::Paced);
    near(c.handovers_per_s, 2e7 * 2.0 / 3.0, 1e-9);
    near(c.round_ns.unwrap(), 150.0, 1e-9);
    // A ratelimit's 1,000 publishes/s per writer stay far below it: each finds the other's, 2,000
    // hand-overs/s.
    let c = at(&two, 1e10, 1e-7, Arrivals::Paced);
    near(c.handovers_per_s, 2e3, 1e-9);
    assert_eq!(c.saturated_lines, 0);
}

#[test]
fn read_occupancy_decides_which_fetches_queue() {
    // Writers 0 (node 0) and 56 (node 1) that never read; reader threads 1 and 2 (node 0, its one
    // LLC) and 57 (node 1); Poisson, every update publishes, every class 100 ns. At rate r:
    // publishes 2r; each thread fetches r · touched(2r, r) = 2r/3, 2r in all; the first read after
    // a write: 2r · touched(3r, 2r) = 6r/5. Per node (= per LLC here): node 0's threads read 2r, 2r
    // · touched(2r, 2r) = r; node 1's r, 2r · touched(r, 2r) = 2r/3: 5r/3. A publish's transfer: h
    // = touched(r + 6r/5, r) = 11/16, 11r/8 in all. ρ = (11/8 + queued/r) · r · 100 ns.
    let lines = spr(&[0, 56], &[1, 2, 57], 0, ShardLevel::Global);
    let mut l = lat(&["cross-node=100ns±0", "same-llc=100ns±0"]);
    let r = 1e4;
    for (occupancy, queued) in [
        (ReadOccupancy::First, 6.0 / 5.0),
        (ReadOccupancy::PerNode, 5.0 / 3.0),
        (ReadOccupancy::PerLlc, 5.0 / 3.0),
        (ReadOccupancy::Every, 2.0),
    ] {
        l.costs.read_occupancy = occupancy;
        let e = lines.evaluate(r, 1.0, &l, Bound::Mid, Arrivals::Poisson);
        let want = (11.0 / 8.0 + queued) * r * 100e-9;
        near(e.rho, want, 1e-9);
    }
}

#[test]
fn line_costs_scale_transfers_by_home_and_by_the_queue_found() {
    // Two paced writers of one LLC (CPUs 0 and 1, node 0), 100 ns: ρ = 2r · 100 ns. A contenders
    // curve grows transfers only past two CPUs at the line: at 1k/s the queue is far below, so
    // nothing moves; the memory on node 1 with remote = 2× doubles them (both writers are off it).
    let lines = spr(&[0, 1], &[], 1, ShardLevel::Global);
    let mut l = lat(&["same-llc=100ns±0"]);
    let r = 1e3;
    let rho = |l: &Latencies| lines.evaluate(r, 1.0, l, Bound::Mid, Arrivals::Paced).rho;
    let base = 2.0 * r * 100e-9;
    near(rho(&l), base, 1e-12);
    l.costs.contenders = curve(&[(2, 40.0), (4, 60.0)]);
    near(rho(&l), base, 1e-12);
    l.costs.home = serde_json::from_str(r#"{"factor": 2, "source": "test"}"#).ok();
    l.costs.home_node = 1;
    near(rho(&l), base * 2.0, 1e-12);
    // Each node's cost: node 0's writers are both remote; at 1k/s the wait is next to nothing, so
    // each update pays 100 × 2 = 200 ns.
    let e = lines.evaluate(r, 1.0, &l, Bound::Mid, Arrivals::Paced);
    assert_eq!(e.by_node.len(), 1);
    assert!(
        e.by_node[0].cost_ns > 200.0 && e.by_node[0].cost_ns < 200.1,
        "{e:?}"
    );
}

#[test]
fn the_contention_growth_is_read_at_the_line_s_own_queue() {
    // 224 writers of one line at 50k/s, always publishing, every transfer 100 ns (ρ 1.12): past the
    // knee the queue holds dozens of CPUs, so a curve that grows 1.5× from 2 to 8 CPUs at the line
    // prices every transfer 1.5×, and ρ is 1.5× the idle one; the queue found is what the curve was
    // read at.
    let all = fixture("spr-2s-224").online_cpus.to_vec();
    let lines = spr(&all, &[], 0, ShardLevel::Global);
    let mut l = lat(&["smt=100ns±0", "same-llc=100ns±0", "cross-node=100ns±0"]);
    let (r, f) = (50e3, 1.0);
    let idle = lines.evaluate(r, f, &l, Bound::Mid, Arrivals::Poisson);
    l.costs.contenders = curve(&[(2, 40.0), (8, 60.0)]);
    let grown = lines.evaluate(r, f, &l, Bound::Mid, Arrivals::Poisson);
    assert!(grown.queue > 8.0, "{grown:?}");
    near(grown.rho, 1.5 * idle.rho, 1e-3);
    assert!(grown.cost_ns > 2.0 * idle.cost_ns, "{grown:?} {idle:?}");
    // At 1k/s the queue stays under two CPUs: no growth.
    let low = lines.evaluate(1e3, f, &l, Bound::Mid, Arrivals::Poisson);
    l.costs.contenders = CostCurve::default();
    let low_idle = lines.evaluate(1e3, f, &l, Bound::Mid, Arrivals::Poisson);
    near(low.rho, low_idle.rho, 1e-12);
}

#[test]
fn customers_off_the_memory_s_node_wait_longer_behind_the_same_queue() {
    // Every SPR CPU writes one line at 22k/s, 40% publishing, no reads; transfers 100 ns, a remote
    // CPU's 2× (memory on node 0). The queue tells the two classes apart: node 1's writers pay
    // their own transfers twice over and wait twice as long per queued transfer (behind nearly the
    // same queue), so their cost is about 2× node 0's.
    let all = fixture("spr-2s-224").online_cpus.to_vec();
    let lines = spr(&all, &[], 0, ShardLevel::Global);
    let mut l = lat(&["smt=100ns±0", "same-llc=100ns±0", "cross-node=100ns±0"]);
    l.costs.home = serde_json::from_str(r#"{"factor": 2, "source": "test"}"#).ok();
    let e = lines.evaluate(22e3, 0.4, &l, Bound::Mid, Arrivals::Poisson);
    near(e.by_node[1].cost_ns / e.by_node[0].cost_ns, 2.0, 0.01);
    // Alike nodes without a home price.
    l.costs.home = None;
    let e = lines.evaluate(22e3, 0.4, &l, Bound::Mid, Arrivals::Poisson);
    near(e.by_node[0].cost_ns, e.by_node[1].cost_ns, 1e-9);
}

#[test]
fn reads_served_from_a_copy_in_their_llc_cost_an_llc_hit() {
    // Every SPR CPU writes one line and reads it after each update: with the first read per LLC
    // queueing and the rest served from its copy at 10 ns, the split's reads of the other node's
    // line are mostly LLC hits, so node/threshold:64 costs less than global's, where before (every
    // fetch a transfer and queued) it cost more.
    let all = fixture("spr-2s-224").online_cpus.to_vec();
    let global = spr(&all, &[], 1, ShardLevel::Global);
    let node = spr(&all, &[], 1, ShardLevel::Node);
    let mut l = lat(&["smt=8ns", "same-llc=75ns", "cross-node=135ns"]);
    let cost = |lines: &Lines, l: &Latencies| {
        lines
            .evaluate(22e3, 0.4, l, Bound::Mid, Arrivals::Poisson)
            .cost_ns
    };
    assert!(cost(&node, &l) > cost(&global, &l));
    l.costs.read_occupancy = ReadOccupancy::PerLlc;
    l.costs.llc_hit = Some(CitedNs {
        ns: 10.0,
        pct: 0.0,
        source: "test".into(),
    });
    assert!(cost(&node, &l) < cost(&global, &l));
    // A hot line twice per event: stations and costs twice over.
    let once = cost(&global, &l);
    l.costs.hot_lines = Some(Cited {
        value: 2,
        source: "test".into(),
    });
    near(cost(&global, &l), 2.0 * once, 0.1);
}
