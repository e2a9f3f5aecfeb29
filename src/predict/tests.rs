//! The model against figures worked out by hand: ρ and the waits for 2 and 4 sources, the read side
//! of a split, node = LLC and node ≠ LLC fixtures, and the check against a run whose canaries are
//! known.

use super::*;
use crate::predict::check::measured_knee;
use crate::predict::costs::{CostPoint, ReadOccupancy};
use crate::topology::fixture;
use crate::workload::{Arrivals, Regime};
use Agreement::Agrees;

pub(super) fn lat(items: &[&str]) -> Latencies {
    let args: Vec<LatencyArg> = items.iter().map(|s| s.parse().unwrap()).collect();
    Latencies::from_args(&args)
}

pub(super) fn layout(writers: &[u32]) -> Layout {
    Layout {
        writers: writers.to_vec(),
        readers: Vec::new(),
        read_every: 1,
    }
}

/// Asserts that `got` is within `tol` of `want`, relative.
#[track_caller]
pub(super) fn near(got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1e-12),
        "{got} vs {want}"
    );
}

/// Asserts that `text` contains `part`.
#[track_caller]
pub(super) fn says(text: &str, part: &str) {
    assert!(text.contains(part), "{text}");
}

/// Asserts that `text` starts with `prefix`.
#[track_caller]
fn starts(text: &str, prefix: &str) {
    assert!(text.starts_with(prefix), "{text}");
}

/// Asserts that one of `notes` contains `part`.
#[track_caller]
pub(super) fn noted(notes: &[String], part: &str) {
    assert!(notes.iter().any(|n| n.contains(part)), "{notes:?}");
}

/// The fixture run (global/always with canaries 10 and 40 ns, cpu/always with 20 and 30), every
/// strategy paced at 1k/s with a net cost of `net` ns.
fn paced_run(net: &[f64]) -> crate::runner::RunResults {
    let mut run = crate::runner::fixture_run();
    for s in &mut run.strategies {
        s.regime = Regime::paced(1e3);
        s.summary.as_mut().unwrap().net_ns = crate::stats::Summary::of(net);
    }
    run
}

/// [`paced_run`] at a net 28 and 32 ns, each repeat's canary transactions priced `ratios` × it.
fn priced_run(ratios: [f64; 6]) -> crate::runner::RunResults {
    let mut run = paced_run(&[28.0, 32.0]);
    for r in run.strategies.iter_mut().flat_map(|s| &mut s.repeats) {
        r.interference.canary_transactions = priced(r.interference.canary_ns.unwrap(), ratios);
    }
    run
}

/// Each transaction (in [`Transaction::ALL`]'s order) priced `ratio` × the canary's `ns`.
pub(super) fn priced(
    ns: f64,
    ratios: impl IntoIterator<Item = f64>,
) -> Vec<crate::matrix::TransactionCost> {
    let all = crate::matrix::Transaction::ALL.iter();
    all.zip(ratios)
        .map(|(&transaction, x)| crate::matrix::TransactionCost {
            transaction,
            net_ns: x * ns,
            to_pingpong: x,
            samples: 120,
        })
        .collect()
}

/// A cost curve of `(at, ns)` points, from "test".
pub(super) fn curve(points: &[(u32, f64)]) -> CostCurve {
    let points = points
        .iter()
        .map(|&(at, ns)| CostPoint { at, ns })
        .collect();
    CostCurve {
        points,
        source: "test".into(),
    }
}

/// The SPR fixture's lines at `level` of `writers` (reading every `read_every`) and `readers`.
pub(super) fn spr(writers: &[u32], readers: &[u32], read_every: u32, level: ShardLevel) -> Lines {
    let (writers, readers) = (writers.to_vec(), readers.to_vec());
    let lay = Layout {
        writers,
        readers,
        read_every,
    };
    Lines::new(&fixture("spr-2s-224"), &lay, level).unwrap()
}

/// Exact MVA of `n` CPUs thinking `z` ns at one station of demand `d` ns: R(k) = d·(1 + Q(k − 1)),
/// Q(k) = k·R(k)/(z + R(k)). The recursion is checked against hand-worked values in `queue.rs` (N =
/// 1, 2, the saturated asymptote); N = 2 gives d·(1 + d/(z + d)).
pub(super) fn mva_response_ns(n: usize, z: f64, d: f64) -> f64 {
    let (mut q, mut r) = (0.0, 0.0);
    for k in 1..=n {
        r = d * (1.0 + q);
        q = k as f64 * r / (z + r);
    }
    r
}

/// global/always of every SPR CPU at 22k/s, poisson, at idle Ice Lake figures.
fn all_cpus() -> PredictRequest {
    PredictRequest {
        layout: layout(&fixture("spr-2s-224").online_cpus.to_vec()),
        levels: vec![ShardLevel::Global],
        policies: vec![PublishPolicy::ALWAYS],
        rates: vec![22e3],
        latencies: lat(&["smt=8ns", "same-llc=51ns", "cross-node=108ns"]),
        arrivals: Arrivals::Poisson,
        walks: Walks::of_seed(1),
        publishes: Vec::new(),
    }
}

/// global/always of SPR CPUs 0 and 1 (one LLC) at 1M/s, paced, same-llc 100 ns ± 25%.
fn two_cpus() -> PredictRequest {
    let latencies = lat(&["same-llc=100ns"]);
    let (rates, arrivals) = (vec![1e6], Arrivals::Paced);
    PredictRequest {
        layout: layout(&[0, 1]),
        rates,
        latencies,
        arrivals,
        ..all_cpus()
    }
}

/// The prediction of `req` on the SPR fixture.
fn spr_predict(req: &PredictRequest) -> Result<PredictResults, PredictError> {
    predict(&fixture("spr-2s-224"), "spr", req)
}

/// The check of one run, priced at `latencies` (else its canaries).
fn check_run(
    run: &crate::runner::RunResults,
    latencies: Option<&Latencies>,
) -> Result<CheckResults, PredictError> {
    check(
        "run.json",
        &[(String::new(), run)],
        latencies,
        &LineCosts::default(),
    )
}

#[test]
fn two_paced_writers_hand_over_every_update() {
    // CPUs 0 and 1 of the Sapphire Rapids fixture share an LLC; 100 ns exactly. Paced, each update
    // of one finds the other's: ρ = 2rS, one visit of S per update, and the cost is the two-CPU
    // response S·(1 + S/(Z + S)) at Z = 1/r.
    let lines = spr(&[0, 1], &[], 1, ShardLevel::Global);
    let l = lat(&["same-llc=100ns±0"]);
    for rate in [1e3, 1e6, 3e6] {
        let e = lines.evaluate(rate, 1.0, &l, Bound::Mid, Arrivals::Paced);
        near(e.rho, 2.0 * rate * 100e-9, 1e-9);
        let want = mva_response_ns(2, 1e9 / rate, 100.0);
        let got = e.cost_ns;
        near(got, want, 1e-9);
        assert_eq!((e.write_transfers, e.read_transfers), (1.0, 0.0));
    }
    // Irregular updates: another writer came between two of mine half the time, so half the
    // transfers: a demand of 50 ns per update.
    let e = lines.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Poisson);
    near(e.rho, 1e3 * 100e-9, 1e-9);
    near(e.cost_ns, mva_response_ns(2, 1e6, 50.0), 1e-9);
    // Past saturation the cost is still the closed population's (each_point_below_near_or_saturated
    // has 6M/s worked).
}

#[test]
fn four_paced_writers_wait_as_mva_says() {
    // Four cores of one LLC, S = 50 ns, Z = 500 ns: Q(1) = 50/550 = 1/11; R(2) = 50·12/11 = 54.545,
    // Q(2) = 2·54.545/554.545 = 0.19672; R(3) = 59.836, Q(3) = 3·59.836/559.836 = 0.32064; R(4) =
    // 66.032 ns.
    let lines = spr(&[0, 1, 2, 3], &[], 1, ShardLevel::Global);
    let l = lat(&["same-llc=50ns±0"]);
    let e = lines.evaluate(2e6, 1.0, &l, Bound::Mid, Arrivals::Paced);
    near(e.rho, 4.0 * 2e6 * 50e-9, 1e-9);
    near(e.cost_ns, 66.032, 1e-4);
    near(e.cost_ns, mva_response_ns(4, 500.0, 50.0), 1e-12);
    // Poisson: 3 of 4 updates follow another writer's.
    let e = lines.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Poisson);
    near(e.write_transfers, 0.75, 1e-12);
    near(e.rho, 4.0 * 1e3 * 0.75 * 50e-9, 1e-9);
}

#[test]
fn a_node_split_halves_the_writers_but_each_read_fetches_the_other_line() {
    // CPUs 0 (node 0) and 56 (node 1), 108 ns apart. Global: one transfer per update (the read
    // after one's own publish is free). Per node: each line has one writer, but every read fetches
    // the other node's line, written since, and that read moved this writer's line away, so the
    // next publish fetches it back: two transfers per update.
    let l = lat(&["cross-node=108ns±0"]);
    let global = spr(&[0, 56], &[], 1, ShardLevel::Global);
    let node = spr(&[0, 56], &[], 1, ShardLevel::Node);
    assert_eq!((global.count(), node.count()), (1, 2));
    let g = global.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Paced);
    let n = node.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Paced);
    assert_eq!((g.write_transfers, g.read_transfers), (1.0, 0.0));
    assert_eq!((n.write_transfers, n.read_transfers), (1.0, 1.0));
    near(g.cost_ns, 108.0, 1e-3);
    near(n.cost_ns, 216.0, 1e-3);
    assert_eq!(n.hottest_writers, 1);
    // Without a read side, the split lines never move.
    let quiet = spr(&[0, 56], &[], 0, ShardLevel::Node);
    let q = quiet.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Paced);
    assert_eq!((q.rho, q.cost_ns), (0.0, 0.0));
    // No line moves, so none is the hottest: no writers on it.
    assert_eq!(q.hottest_writers, 0);
}

#[test]
fn node_and_llc_agree_where_they_are_the_same_set_and_not_elsewhere() {
    let l = lat(&[
        "smt=9ns",
        "same-llc=23ns",
        "same-node=100ns",
        "cross-node=197ns",
    ]);
    // Sapphire Rapids: one LLC per node.
    let spr = fixture("spr-2s-224");
    let all = layout(&spr.online_cpus.to_vec());
    let node = Lines::new(&spr, &all, ShardLevel::Node).unwrap();
    let llc = Lines::new(&spr, &all, ShardLevel::Llc).unwrap();
    for rate in [1e3, 22e3] {
        let a = node.evaluate(rate, 1.0, &l, Bound::Mid, Arrivals::Poisson);
        let b = llc.evaluate(rate, 1.0, &l, Bound::Mid, Arrivals::Poisson);
        assert_eq!(a, b);
    }
    // EPYC 7J13 NPS1: 8 LLCs per node, 16 CPUs each.
    let epyc = fixture("epyc-7j13-2s-nps1-256");
    let all = layout(&epyc.online_cpus.to_vec());
    let node = Lines::new(&epyc, &all, ShardLevel::Node).unwrap();
    let llc = Lines::new(&epyc, &all, ShardLevel::Llc).unwrap();
    assert_eq!((node.count(), llc.count()), (2, 16));
    let a = node.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Poisson);
    let b = llc.evaluate(1e3, 1.0, &l, Bound::Mid, Arrivals::Poisson);
    assert_eq!((a.hottest_writers, b.hottest_writers), (128, 16));
    // Every other CPU's fetch occupies each LLC's line: a lower ρ, but not by the writers' ratio;
    // with only the first read after a write queueing, a quarter of it and less.
    assert!(b.rho < a.rho, "{} vs {}", b.rho, a.rho);
    let mut first = l.clone();
    first.costs.read_occupancy = ReadOccupancy::First;
    let (a1, b1) = (
        node.evaluate(1e3, 1.0, &first, Bound::Mid, Arrivals::Poisson),
        llc.evaluate(1e3, 1.0, &first, Bound::Mid, Arrivals::Poisson),
    );
    assert!(b1.rho < a1.rho / 4.0, "{} vs {}", b1.rho, a1.rho);
    assert!(b.read_transfers > 10.0 * a.read_transfers, "{b:?} {a:?}");
    let classes: Vec<String> = llc.classes().map(|c| c.to_string()).collect();
    assert_eq!(classes, ["smt", "same-llc", "same-node", "cross-node@32"]);
}

#[test]
fn ranges_follow_the_latencies_and_a_ratelimit_never_saturates() {
    let req = PredictRequest {
        policies: vec![PublishPolicy::ALWAYS, "ratelimit:1ms".parse().unwrap()],
        ..all_cpus()
    };
    let p = spr_predict(&req).unwrap();
    let always = &p.strategies[0].points[0];
    // ρ = 224 CPUs × 22k/s × 223/224 (another CPU's update came between) × the mean over the other
    // 223 CPUs: 1 SMT sibling, 110 in the LLC, 112 on the other node.
    let mean = (8.0 + 110.0 * 51.0 + 112.0 * 108.0) / 223.0;
    let rho = 22e3 * 223.0 * mean * 1e-9;
    near(always.rho.mid, rho, 1e-9);
    near(always.rho.lo, 0.75 * rho, 1e-9);
    near(always.rho.hi, 1.25 * rho, 1e-9);
    let sat = p.strategies[0].saturation;
    near(sat.mid.unwrap(), 22e3 / rho, 2e-3);
    assert!(sat.lo.unwrap() < sat.mid.unwrap() && sat.mid.unwrap() < sat.hi.unwrap());
    let limited = &p.strategies[1];
    // At 22k/s its ρ is the reads': 224 CPUs × 22k/s × touched(224k, 22k) = 0.91 of them fetch, at
    // the 80 ns mean: about 0.36.
    assert!(
        limited.points[0].rho.hi < 0.5,
        "{:?}",
        limited.points[0].rho
    );
    // Its publishes are capped, but with every fetch occupying the line, 224 CPUs re-reading it
    // after each of the others' 1000 publishes a second saturate it at a higher rate; with only the
    // first read after a write queueing they never do.
    assert!(
        limited.saturation.mid.unwrap() > 22e3,
        "{:?}",
        limited.saturation
    );
    let mut first = req.clone();
    first.latencies.costs.read_occupancy = ReadOccupancy::First;
    let p1 = spr_predict(&first).unwrap();
    assert_eq!(p1.strategies[1].saturation.mid, None);
}

#[test]
fn the_check_prices_each_transaction_as_each_repeats_canary_measured_it() {
    // The fixture's canaries (global 10 and 40 ns, cpu 20 and 30), each with its transactions at
    // 1.2× (add moved), 1.1× (fetched), 0.9× (upgraded), 0 (read back: the writer kept its copy)
    // and 1.3× (an upgrade and a fetch together): at 1k/s global/always pays 1.2 × 25 ns,
    // cpu/always 1.3 × 25.
    let mut run = priced_run([1.2, 1.1, 0.9, 0.0, 1.3, 1.2]);
    let c = check_run(&run, None).unwrap();
    let (global, cpu) = (&c.points[0], &c.points[1]);
    near(global.predicted_ns.unwrap(), 30.0, 1e-3);
    near(cpu.predicted_ns.unwrap(), 32.5, 1e-3);
    assert_eq!([global, cpu].map(|p| p.agreement()), [Agrees; 2], "{c:?}");
    says(
        &c.latency_source,
        "each transaction priced as the canary measured it",
    );
    // One transaction missing: nothing priced, every transfer at the ping-pong (50 ns for
    // cpu/always, as before).
    for r in run.strategies.iter_mut().flat_map(|s| &mut s.repeats) {
        r.interference.canary_transactions.remove(2);
    }
    let c = check_run(&run, None).unwrap();
    near(c.points[1].predicted_ns.unwrap(), 50.0, 1e-3);
    says(&c.latency_source, "every transfer at its ping-pong");
}

#[test]
fn the_check_predicts_over_the_repeats_the_figure_used_and_those_its_canary_can_price() {
    // As above: global/always at 1k/s pays 1.2 × each repeat's canary (10 and 40 ns): 30 ns on the
    // mean.
    let priced = |ns: f64, x: f64| priced(ns, [x; 6]);
    let mut run = priced_run([1.2; 6]);
    // A third repeat, disturbed (its canary 70 ns): the measured figure leaves it out, and so does
    // the prediction. With it, the mean would be (12 + 48 + 84) / 3 = 48 ns.
    let global = &mut run.strategies[0];
    let mut third = global.repeats[0].clone();
    third.repeat = 2;
    third.interference.canary_ns = Some(70.0);
    third.interference.canary_transactions = priced(70.0, 1.2);
    third.interference.disturbed = true;
    global.repeats.push(third);
    let c = check_run(&run, None).unwrap();
    assert_eq!(c.points[0].repeats, 2, "{c:?}");
    near(c.points[0].predicted_ns.unwrap(), 30.0, 1e-3);
    // Repeat 1's canary found no transfer beside its 40 ns ping-pong (the host moved the CPUs
    // during it): that repeat is left out, said in a note, and repeat 0 alone prices the point, 1.2
    // × 10 ns.
    run.strategies[0].repeats[1]
        .interference
        .canary_transactions = priced(40.0, -0.01);
    let c = check_run(&run, None).unwrap();
    assert_eq!(c.points[0].repeats, 1, "{c:?}");
    near(c.points[0].predicted_ns.unwrap(), 12.0, 1e-3);
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("1 of 2 repeats left out") && n.contains("repeat 1 (-0.40 ns)")),
        "{:?}",
        c.notes
    );
    // Latencies given by hand are the user's: one at 0 ns is an error.
    let zero = Latencies::uniform(0.0, "--host");
    assert!(check_run(&run, Some(&zero)).is_err());
}

#[test]
fn the_check_charges_a_ratelimits_clock_read_as_the_clock_floor_measured_it() {
    // The fixture's global strategy made global/ratelimit:1ms at 1k/s (TSC), with a clock floor at
    // 40, 42 ns busy per update against its floor in place at 30 (repeats 0, 1): the clock read
    // costs 11 ns in place, added to what the model predicts without it.
    use crate::clock::ClockKind;
    let mut run = crate::runner::fixture_run();
    run.strategies.truncate(1);
    let regime = Regime::paced(1e3);
    let s = &mut run.strategies[0];
    s.regime = regime;
    s.strategy.publish = "ratelimit:1ms".parse().unwrap();
    s.strategy.clock = Some(ClockKind::Tsc);
    s.summary.as_mut().unwrap().net_ns = crate::stats::Summary::of(&[30.0, 34.0]);
    let floor_with = |strategy: crate::runner::Strategy, busy: [f64; 2]| {
        let mut f = run.strategies[0].clone();
        f.strategy = strategy;
        f.name = strategy.name();
        for (r, b) in f.repeats.iter_mut().zip(busy) {
            (r.write_busy_ns, r.floor_busy_ns) = (b, Some(30.0));
        }
        let net = crate::runner::PairedNet::of(&f.repeats, crate::runner::net_busy_ns).unwrap();
        f.summary.as_mut().unwrap().net_ns = Some(net.summary);
        f
    };
    let unpriced = check_run(&run, None).unwrap();
    noted(&unpriced.notes, "no clock floor");
    assert_eq!(unpriced.points[0].local_ns, None);
    let clock_floor = crate::runner::Strategy {
        level: ShardLevel::Global,
        publish: "ratelimit:100000s".parse().unwrap(),
        pad: crate::counter::Pad::Line128,
        clock: Some(ClockKind::Tsc),
    };
    run.paced_floors = vec![floor_with(clock_floor, [40.0, 42.0])];
    let priced = check_run(&run, None).unwrap();
    let p = &priced.points[0];
    assert_eq!(p.local_ns, Some(11.0));
    // Charged, so nothing to say about a missing clock floor.
    assert!(
        !priced.notes.iter().any(|n| n.contains("no clock floor")),
        "{:?}",
        priced.notes
    );
    let before = unpriced.points[0].predicted_ns.unwrap();
    near(p.predicted_ns.unwrap(), before + 11.0, 1e-12);
}

#[test]
fn the_check_predicts_each_repeat_at_its_canary() {
    // The fixture run: global/always with canaries 10 and 40 ns, cpu/always with 20 and 30. Made
    // paced at 1k/s (ρ ≈ 0: no wait) with a known net cost of 20 ns: global predicts the mean
    // canary, 25 ns.
    let c = check_run(&paced_run(&[18.0, 22.0]), None).unwrap();
    let global = &c.points[0];
    starts(&global.series, "global/always");
    near(global.predicted_ns.unwrap(), 25.0, 0.01 / 25.0);
    near(global.ratio.unwrap(), 1.25, 1e-3 / 1.25);
    assert_eq!(global.canary_ns, 25.0);
    // cpu/always: each writer's line, fetched by the other's read after every update and fetched
    // back by the next publish: 2 × 25 ns.
    let cpu = &c.points[1];
    assert!((cpu.predicted_ns.unwrap() - 50.0).abs() < 0.02, "{cpu:?}");
    // Errors 25% and 150%: every point counts, the median is 87.5%, and cpu/always (150%, far
    // outside its CI) is the worst.
    near(c.median_abs_error_pct.unwrap(), 87.5, 0.2 / 87.5);
    assert_eq!(c.worst, Some(1));
    assert_ne!(cpu.agreement(), Agrees);
    // Structure: global/always hands the line over on every update and reads nothing new;
    // cpu/always's read fetches the other line after each of its updates (half the reads of each of
    // two lines).
    near(global.predicted_transfers, 1.0, 1e-9);
    near(cpu.predicted_transfers, 1.0, 1e-9);
    // The fixture predates read-fetch counts: predicted only, and said.
    assert_eq!(
        (global.measured_transfers, c.transfers_median_error_pct),
        (None, None)
    );
    noted(&c.notes, "predates exact read-fetch counts");
}

/// A point of series "s" at `rate`, predicted 100 ns, measured `measured` with the 95% CI `ci`.
fn point(rate: f64, measured: f64, ci: [f64; 2]) -> CheckPoint {
    CheckPoint {
        rate,
        ..CheckPoint::example("s", 100.0, measured, ci, 5)
    }
}

#[test]
fn the_measured_knee_is_the_first_rise_above_the_lowest_rate() {
    let p = |rate: f64, measured: f64| point(rate, measured, [measured - 1.0, measured + 1.0]);
    // Level: the lowest rate's 100 ns. 110 and 120 are within 25%; the fall to 70 is no knee; 140
    // is.
    let pts = [
        p(1e4, 100.0),
        p(3e4, 110.0),
        p(1e5, 90.0),
        p(1e6, 120.0),
        p(3e6, 70.0),
        p(1e7, 140.0),
    ];
    let refs: Vec<&CheckPoint> = pts.iter().rev().collect();
    assert_eq!(measured_knee(&refs), Some(1e7));
    let falling: Vec<&CheckPoint> = pts[..5].iter().collect();
    assert_eq!(measured_knee(&falling), None);
    // A level at or below 0: a rise of more than a quarter of its magnitude, its CI above it (-10
    // to -5; -8 is not enough).
    let below = [p(1e4, -10.0), p(1e5, -8.0), p(1e6, -5.0)];
    let refs: Vec<&CheckPoint> = below.iter().collect();
    assert_eq!(measured_knee(&refs), Some(1e6));
}

#[test]
fn a_sweep_of_one_series_has_one_knee_against_the_hand_worked_saturation() {
    // The fixture's global/always (writers 0 and 1, read every update, canaries 10 and 40 ns:
    // median 25) measured at four paced rates. Two paced writers that always publish: each update
    // moves the line, ρ = 2r × 25 ns (mean over the two canaries, linear in S), so ρ = 1 at r =
    // 2e7/s. Measured 20, 20, 22, 40 ns: the quiet level (ρ ≤ 0.1: 1e4 and 1e6) is 20; 22 is 10%
    // off, 40 is 100% off: the knee is 5e6.
    let base = crate::runner::fixture_run();
    let runs: Vec<crate::runner::RunResults> = [(1e4, 20.0), (1e6, 20.0), (3e6, 22.0), (5e6, 40.0)]
        .into_iter()
        .map(|(rate, net)| {
            let mut run = base.clone();
            run.strategies.truncate(1);
            let s = &mut run.strategies[0];
            s.regime = Regime::paced(rate);
            s.summary.as_mut().unwrap().net_ns = crate::stats::Summary::of(&[net]);
            run
        })
        .collect();
    let refs: Vec<(String, &crate::runner::RunResults)> =
        runs.iter().map(|r| (String::new(), r)).collect();
    let c = check("sweep.json", &refs, None, &LineCosts::default()).unwrap();
    assert_eq!(c.points.len(), 4);
    for p in &c.points {
        near(p.rho, 2.0 * p.rate * 25e-9, 1e-9);
        assert_eq!((p.repeats, p.canary_ns), (2, 25.0));
    }
    assert_eq!(c.knees.len(), 1, "{:?}", c.knees);
    let k = &c.knees[0];
    starts(&k.series, "global/always");
    assert_eq!(k.measured_rate, Some(5e6));
    // saturation_rate bisects ln(rate) to 1e-3: 0.1%.
    near(k.predicted_rate.unwrap(), 2e7, 1e-3);
    near(k.ratio.unwrap(), 0.25, 1e-3);
    starts(&c.latency_source, "each repeat's canary");
    // Two points of the series: no knee (it takes three rates).
    let c = check("run.json", &refs[..2], None, &LineCosts::default()).unwrap();
    assert!(c.knees.is_empty(), "{:?}", c.knees);
}

#[test]
fn agreement_and_the_knee_hold_at_their_exact_boundaries() {
    // Predicted 100 against 80 is exactly 25% off (20 / 80); where that agrees is agreement.rs's.
    assert_eq!(point(1e6, 80.0, [70.0, 110.0]).error_pct(), Some(25.0));
    // Measured at or below 0 is no finite error and never agrees, even with a CI around the
    // prediction; neither does a saturated point.
    let zero = point(1e6, 0.0, [-150.0, 150.0]);
    assert_eq!(
        (zero.error_pct(), zero.no_error()),
        (None, Some("measured ≤ 0"))
    );
    assert_ne!(zero.agreement(), Agrees);
    let mut saturated = point(1e6, 100.0, [90.0, 110.0]);
    saturated.predicted_ns = None;
    assert_eq!(saturated.no_error(), Some("not predicted: saturated"));
    assert_ne!(saturated.agreement(), Agrees);
    // Structure: 1.25 predicted against 1 exact is 25% off; against 0 exact, no finite error; both
    // 0, none.
    let mut s = point(1e6, 100.0, [90.0, 110.0]);
    (s.predicted_transfers, s.measured_transfers) = (1.25, Some(1.0));
    assert_eq!(s.transfer_error_pct(), Some(25.0));
    s.measured_transfers = Some(0.0);
    assert_eq!(s.transfer_error_pct(), None);
    s.predicted_transfers = 0.0;
    assert_eq!(s.transfer_error_pct(), Some(0.0));
    // Knee: exactly 25% above the level (125 against 100) is not more than 25%; 126 with its CI
    // above 100 is; 130 with a CI reaching down to 95 is not.
    let level = point(1e4, 100.0, [99.0, 101.0]);
    let at = |busy: CheckPoint| measured_knee(&[&level, &busy]);
    assert_eq!(at(point(1e6, 125.0, [124.0, 126.0])), None);
    assert_eq!(at(point(1e6, 126.0, [125.0, 127.0])), Some(1e6));
    assert_eq!(at(point(1e6, 130.0, [95.0, 165.0])), None);
}

#[test]
fn each_point_below_near_or_saturated_has_its_cost_share_and_sensitivity() {
    // Two paced writers of one LLC, same-llc = 100 ns ± 25%: ρ = 2rS (every update moves the line),
    // so ρ = 1 at r = 1/(2S): 5M/s at 100 ns, 4M/s at 125 ns, 6.67M/s at 75 ns.
    let req = PredictRequest {
        rates: vec![1e6, 3.5e6, 6e6],
        ..two_cpus()
    };
    let p = spr_predict(&req).unwrap();
    assert_eq!((p.cpus, p.nodes, p.llcs), (224, 2, 2));
    // The arrivals, the pricing, then each line-cost input and its source (their wording is the
    // snapshots').
    assert_eq!(p.notes.len(), 6, "{:?}", p.notes);
    starts(&p.notes[0], "arrivals paced");
    let s = &p.strategies[0];
    assert_eq!((s.name.as_str(), s.lines), ("global/always", 1));
    let sat = s.saturation;
    near(sat.mid.unwrap(), 5e6, 1e-3);
    near(sat.lo.unwrap(), 4e6, 1e-3);
    near(sat.hi.unwrap(), 2e7 / 3.0, 1e-3);
    // 1M/s: ρ 0.2 (0.25 at 125 ns): below; cost the two-CPU response S·(1 + S/(Z + S)) at Z = 1000
    // ns at each end, CPU share = cost / (Z + cost).
    let below = &s.points[0];
    assert_eq!(below.state, LineState::Below);
    assert_eq!(below.publish_fraction, 1.0);
    assert_eq!((below.write_transfers, below.read_transfers), (1.0, 0.0));
    assert_eq!(below.hottest_writers, 2);
    let (cost, sh) = (below.cost_ns.unwrap(), below.cpu_share_pct.unwrap());
    let want = |s_ns: f64| mva_response_ns(2, 1000.0, s_ns);
    let share = |s_ns: f64| 100.0 * want(s_ns) / (1000.0 + want(s_ns));
    for (c, s, s_ns) in [
        (cost.lo, sh.lo, 75.0),
        (cost.mid, sh.mid, 100.0),
        (cost.hi, sh.hi, 125.0),
    ] {
        near(c, want(s_ns), 1e-9);
        near(s, share(s_ns), 1e-9);
    }
    // +1% on every transfer: the share at 101 ns less the share at 100.
    let per = below.share_per_pct.unwrap();
    near(per, share(101.0) - share(100.0), 1e-6);
    // One node's writers, both on node 0 (the counter's memory's): the same figures.
    assert_eq!(below.by_node.len(), 1);
    assert_eq!((below.by_node[0].node, below.by_node[0].home), (0, true));
    near(below.by_node[0].cost_ns.mid, want(100.0), 1e-9);
    // 3.5M/s: ρ 0.7, 0.875 at 125 ns: near, and still priced: Z = 285.7.
    let knee = &s.points[1];
    assert_eq!(knee.state, LineState::Near);
    near(knee.rho.hi, 0.875, 1e-9);
    let z = 1e9 / 3.5e6;
    near(
        knee.cost_ns.unwrap().mid,
        mva_response_ns(2, z, 100.0),
        1e-9,
    );
    // 6M/s: ρ 1.2: saturated, and priced: Z = 166.7 ns, R = 137.5 ns.
    let saturated = &s.points[2];
    assert_eq!(saturated.state, LineState::Saturated);
    near(saturated.cost_ns.unwrap().mid, 137.5, 1e-9);
    let achieved = saturated.achieved_rate.unwrap().mid;
    near(achieved, 1e9 / (1e9 / 6e6 + 137.5), 1e-9);
    // The chart: 4 points a decade from 100 to 1e8/s, 25 in all.
    assert_eq!(s.curve.len(), 25);
    near(s.curve[1].rate, 100.0 * 10f64.powf(0.25), 1e-12);
    near(s.curve[24].rate, 1e8, 1e-12);
    // No read side: a note says so.
    let mut quiet = req.clone();
    quiet.layout.read_every = 0;
    let q = spr_predict(&quiet).unwrap();
    assert_eq!(q.notes.len(), 7, "{:?}", q.notes);
    starts(&q.notes[6], "no read side");
}

#[test]
fn predict_refuses_an_empty_request_and_saturation_rate_solves_a_line() {
    let req = two_cpus();
    let err = |f: &dyn Fn(&mut PredictRequest)| {
        let mut r = req.clone();
        f(&mut r);
        spr_predict(&r).unwrap_err().to_string()
    };
    starts(&err(&|r| r.rates.clear()), "--rates needs");
    starts(&err(&|r| r.layout.writers.clear()), "no writer CPU");
    starts(&err(&|r| r.levels.clear()), "--level and --publish");
    starts(&err(&|r| r.policies.clear()), "--level and --publish");
    // ρ = rate/1e6 reaches 1 at 1e6; one already saturated at 1/s is 1/s; one that stays below 1 up
    // to 1e11/s never saturates.
    near(saturation_rate(|r| r / 1e6).unwrap(), 1e6, 1e-3);
    near(saturation_rate(|r| r / 5e10).unwrap(), 5e10, 1e-3);
    assert_eq!(saturation_rate(|_| 2.0), Some(1.0));
    assert_eq!(saturation_rate(|r| r / 1e12), None);
}

#[test]
fn the_check_predicts_flat_out_hand_overs_one_transfer_at_a_time() {
    // The fixture run is flat out: global/always with canaries 10 and 40 ns (its one class, each
    // add moved at the ping-pong), so its line moves 100M and 25M times a second, 62.5M on average,
    // and each of its 2 writers gets it every 20 and 80 ns (50 on average). cpu/always hands
    // nothing over.
    let mut run = crate::runner::fixture_run();
    for (s, counted) in run.strategies.iter_mut().zip([[60e6, 65e6], [0.0, 0.0]]) {
        s.summary.as_mut().unwrap().handovers_per_s = crate::stats::Summary::of(&counted);
        s.summary.as_mut().unwrap().updates_per_ownership = crate::stats::Summary::of(&[5.0]);
    }
    let c = check_run(&run, None).unwrap();
    assert!(c.points.is_empty(), "{c:?}");
    let (global, cpu) = (&c.flat_out[0], &c.flat_out[1]);
    near(global.predicted_per_s, 62.5e6, 1e-9);
    near(global.predicted_round_ns.unwrap(), 50.0, 1e-9);
    assert_eq!((global.saturated_lines, global.repeats), (1, 2));
    assert_eq!(global.agreement(), Agrees, "{global:?}");
    // The round over 5 updates per ownership: 10 ns an update.
    near(global.predicted_ns_per_update().unwrap(), 10.0, 1e-9);
    assert_eq!((cpu.predicted_per_s, cpu.saturated_lines), (0.0, 0));
    assert_eq!(cpu.agreement(), Agrees, "{cpu:?}");
    assert!(cpu.nothing_handed_over(), "{cpu:?}");
    // cpu/always is right by construction: left out of the median and the count that agree.
    assert_eq!(
        (c.flat_out_agreeing, c.flat_out_median_error_pct),
        (1, Some(0.0))
    );
    // Counted at a quarter of the prediction: 300% off, no agreement.
    run.strategies[0].summary.as_mut().unwrap().handovers_per_s =
        crate::stats::Summary::of(&[15e6, 16.25e6]);
    let c = check_run(&run, None).unwrap();
    near(c.flat_out[0].error_pct().unwrap(), 300.0, 1e-9);
    assert_eq!(c.flat_out_median_error_pct, Some(300.0));
    assert_eq!(c.flat_out_agreeing, 0);
}

#[test]
fn verdicts_say_saturation_in_one_line_and_why_a_line_never_saturates() {
    // 224 CPUs at 100k/s with idle Ice Lake figures: global/always is saturated; each node's cost
    // follows its verdict on the next line.
    let req = PredictRequest {
        levels: vec![ShardLevel::Global, ShardLevel::Cpu],
        rates: vec![100e3],
        ..all_cpus()
    };
    let p = spr_predict(&req).unwrap();
    let lines: Vec<String> = crate::verdict::predict_lines(&p)
        .into_iter()
        .map(|v| v.text)
        .collect();
    // The first line's wording is the snapshots' (tests/snapshots/predict-*.txt).
    starts(
        &lines[1],
        "at 100k/s per CPU, global/always per node (memory on node 0): node 0 (the memory's, 112 writers)",
    );
    // The page carries each node's figures (the text's are in the snapshots).
    use crate::report::Document;
    use crate::report::html::{PageSource, page};
    let html = page(&[PageSource {
        label: None,
        doc: Document::Predict(&p),
    }])
    .unwrap();
    says(&html, "Per node (memory on node 0)");
    // No read side and a line per CPU: nothing ever moves, and the reason says so (not a policy
    // that caps anything).
    let mut quiet = req.clone();
    quiet.levels = vec![ShardLevel::Cpu];
    quiet.layout.read_every = 0;
    let p = spr_predict(&quiet).unwrap();
    let text = crate::verdict::predict_lines(&p)[0].text.clone();
    assert!(
        text.ends_with("it never saturates (no CPU takes a line from another at any rate)"),
        "{text}"
    );
}

#[test]
fn a_given_publish_fraction_replaces_the_walks_and_a_step_moves_them() {
    let topo = fixture("spr-2s-224");
    let threshold: PublishPolicy = "threshold:64".parse().unwrap();
    let fix: PublishPolicy = "ratelimit:1ms+threshold:64".parse().unwrap();
    let req = |walks: Walks, publishes: Vec<crate::predict::GivenPublish>| PredictRequest {
        policies: vec![threshold, fix],
        rates: vec![22e3, 1e6],
        walks,
        publishes,
        ..all_cpus()
    };
    // The seed's 25k adds in 5 s over 224 CPUs at 22k/s: 0.1% of updates, at every rate, in place
    // of the walks' (4.4% at 22k/s); threshold:64 keeps its walks' 40%.
    let fix_given = crate::predict::GivenPublish {
        policy: fix,
        fraction: 0.001,
        lo: Some(0.0005),
        hi: None,
        source: "commit 1528c661c24b".into(),
    };
    let given = predict(
        &topo,
        "spr",
        &req(Walks::of_seed(1), vec![fix_given.clone()]),
    )
    .unwrap();
    for p in &given.strategies[1].points {
        assert_eq!(p.publish_fraction, 0.001, "{p:?}");
        // The low end is evaluated at the low fraction: less than half the central cost (fewer
        // publishes, and less queueing).
        let c = p.cost_ns.unwrap();
        assert!(c.lo < 0.55 * c.mid, "{c:?}");
    }
    let walked = &given.strategies[0].points[0].publish_fraction;
    assert!((walked - 0.40).abs() < 0.03, "{walked}");
    assert_eq!(given.config.publishes, vec![fix_given]);
    noted(&given.notes, "as given (commit 1528c661c24b)");
    // A walk of half the step publishes less under threshold:64, and the step is recorded.
    let small = Walks {
        seed: 1,
        step: crate::workload::MAX_STEP / 2,
    };
    let stepped = spr_predict(&req(small, Vec::new())).unwrap();
    let f = stepped.strategies[0].points[0].publish_fraction;
    assert!(f < walked - 0.1, "{f} against {walked}");
    assert_eq!(
        stepped.config.load_step,
        Some(crate::workload::MAX_STEP / 2)
    );
}
