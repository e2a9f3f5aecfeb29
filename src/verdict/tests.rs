//! A run's verdict lines from runs whose answers are known: the fixture
//! run (tests/fixtures/results/run.json) with its strategies' summaries
//! set by hand, on its own one-node host or a fixture topology.

use super::*;
use crate::clock::ClockKind;
use crate::counter::ShardLevel::{self, *};
use crate::runner::{RepeatResult, RunResults, StrategyResult, StrategySummary, fixture_run};
use crate::topology::{Topology, fixture};
use crate::workload::Regime;

const FLAT: Regime = Regime::FlatOut;
const SEED: Regime = Regime::SEED;

/// `n` repeats with mean `mean` and sample standard deviation `sd`.
pub(super) fn summary(n: usize, mean: f64, sd: f64) -> Summary {
    let a = sd * ((n - 1) as f64 / n as f64).sqrt();
    let values: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { mean - a } else { mean + a })
        .collect();
    Summary::of(&values).unwrap()
}

/// The fixture's first strategy as `level/policy` in `regime`,
/// its cost `cost` ± `sd` ns over 6 repeats (loop ns/op flat out, net ns
/// paced; busy ns 100 more).
fn strategy(
    level: ShardLevel,
    policy: impl std::fmt::Display,
    regime: Regime,
    cost: f64,
    sd: f64,
) -> StrategyResult {
    let policy = policy.to_string();
    let mut s = fixture_run().strategies[0].clone();
    s.strategy.level = level;
    s.strategy.publish = policy.parse().unwrap();
    s.strategy.clock = (policy != "always").then_some(ClockKind::Tsc);
    s.name = s.strategy.name();
    s.regime = regime;
    let sum = s.summary.as_mut().unwrap();
    match regime {
        Regime::FlatOut => {
            sum.write_loop_ns = Some(summary(6, cost, sd));
            // Two writers: updates/s = 2e9 / loop ns.
            sum.write_ops_per_s = summary(6, 2e9 / cost, 2e9 / cost * sd / cost);
        }
        Regime::Paced { .. } => {
            sum.write_busy_ns = Some(summary(6, 100.0 + cost, sd));
            sum.net_ns = Some(summary(6, cost, sd));
            sum.net_cpu_share_pct = Some(summary(6, cost * 22_000.0 / 1e7, 0.001));
        }
    }
    sum.error_mean_pct = Some(summary(6, if policy == "always" { 0.01 } else { 6.4 }, 0.1));
    s
}

/// `s` with `edit` applied to its summary.
fn edit(mut s: StrategyResult, edit: impl FnOnce(&mut StrategySummary)) -> StrategyResult {
    edit(s.summary.as_mut().unwrap());
    s
}

/// The fixture run with `strategies`, its regimes those they hold (hammer
/// first), on `topology` (the fixture's own one-node host by default)
/// with writers on `writers`.
fn run(strategies: Vec<StrategyResult>, host: Option<(Topology, Vec<u32>)>) -> RunResults {
    let mut r = fixture_run();
    let mut rates: Vec<Regime> = Vec::new();
    for s in &strategies {
        if !rates.contains(&s.regime) {
            rates.push(s.regime);
        }
    }
    r.config.sample_every_by_rate = rates.iter().map(|_| r.config.sample_every).collect();
    r.config.rates = rates;
    r.strategies = strategies;
    if let Some((topology, writers)) = host {
        r.topology = topology;
        r.config.writer_cpus = writers;
    }
    r
}

/// Writers on `cpus` of the two-socket Sapphire Rapids fixture.
fn spr(cpus: &[u32]) -> Option<(Topology, Vec<u32>)> {
    Some((fixture("spr-2s-224"), cpus.to_vec()))
}

fn strs(lines: &[Verdict]) -> Vec<&str> {
    lines.iter().map(|l| l.text.as_str()).collect()
}

fn texts(lines: &[Verdict]) -> String {
    let texts: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    texts.join("\n")
}

/// Asserts each of `pieces` of `text`: `^p` starts it, `p$` ends it, `!p` is not in it, else `p`
/// is in it.
#[track_caller]
fn holds(text: &str, pieces: &[&str]) {
    for p in pieces {
        let ok = match (
            p.strip_prefix('^'),
            p.strip_suffix('$'),
            p.strip_prefix('!'),
        ) {
            (Some(p), ..) => text.starts_with(p),
            (_, Some(p), _) => text.ends_with(p),
            (.., Some(p)) => !text.contains(p),
            _ => text.contains(p),
        };
        assert!(ok, "{p:?} in {text}");
    }
}

/// [`holds`] of one piece.
#[track_caller]
fn has(text: &str, piece: &str) {
    holds(text, &[piece]);
}

/// The default comparison's four corners in both regimes: global/always
/// dear flat out (40 ns/op) and paced (31 ns net); cpu and the ratelimit
/// cheap; 1% noise.
fn default_run(host: Option<(Topology, Vec<u32>)>) -> RunResults {
    let mut all = Vec::new();
    for regime in [FLAT, SEED] {
        let (g, gr, c, cr) = match regime {
            FLAT => (40.0, 10.0, 5.0, 4.9),
            _ => (31.0, 2.0, 1.5, 1.4),
        };
        all.push(edit(
            strategy(Global, "always", regime, g, g / 100.0),
            |s| {
                s.updates_per_ownership = Some(summary(6, 1.52, 0.1));
                s.handovers_per_s = Some(summary(6, 2.5e7 / 1.52, 1e4));
                s.fetches_per_read = Some(summary(6, 0.000125, 1e-5));
            },
        ));
        all.push(strategy(Global, RATELIMIT, regime, gr, 0.2));
        all.push(strategy(Node, "always", regime, c, 0.1));
        all.push(strategy(Cpu, "always", regime, c, 0.1));
        all.push(strategy(Cpu, RATELIMIT, regime, cr, 0.3));
    }
    run(all, host)
}

#[test]
fn a_default_run_answers_at_the_seeds_rate_then_flat_out_then_the_host() {
    // Paced: net figures, not busy ones (100 ns more); the ratelimit and the cpu split save, and
    // node is global on one node: no saving is claimed for it. Flat out: the least loop ns/op is
    // cpu/ratelimit:1ms, but within 2% of cpu/always and node/always; global/always's ownership.
    // The fixture's host: one node, one LLC, two cores.
    let lines = run_lines(&default_run(None));
    use Topic::*;
    let topics: Vec<Topic> = lines.iter().map(|l| l.topic).collect();
    assert_eq!(
        topics,
        [Cost, Savings, BeyondRatelimit, Saturation, Ownership, Host]
    );
    assert_eq!(strs(&lines), DEFAULT_LINES);
    // Briefly a test keeps its change alone (a claim's brief form: tests/snapshots/
    // report-run-verbose.txt:30 against :54); a line without a test has none.
    let brief = DEFAULT_LINES[3].replace(" [-8.3%, +4.3%], p=0.468", "");
    assert_eq!(
        (lines[3].brief_text(), &lines[4].brief),
        (brief.as_str(), &None)
    );
    for l in &lines {
        holds(l.brief_text(), &["!%, +", "!p=", "!p<"]);
    }
}

/// The default run's lines on its own one-node host.
const DEFAULT_LINES: [&str; 6] = [
    "paced at 22.0k/s per thread (the seed's rate), net cost per update: global/always 31.0 ±0.33 ns, 0.0682% CPU; the cheapest: no practical difference between cpu/ratelimit:1ms (1.40 ±0.31 ns, 0.00308% CPU) and node/always (1.50 ±0.10 ns, 0.00330% CPU): -6.7% [-27.6%, +14.3%], p=0.468, < 1 ns per update, < 0.00220% CPU",
    "paced at 22.0k/s per thread, against global/always (31.0 ns): global/ratelimit:1ms saves 29.0 ns (-93.5%, p<0.001), staleness 6.40%; cpu/always saves 29.5 ns (-95.2%, p<0.001); node/always: = global here",
    "paced at 22.0k/s per thread, splitting beyond global/ratelimit:1ms (2.00 ns): cpu/ratelimit:1ms: no practical difference (-30.0% [-46.7%, -13.3%], p=0.006, < 1 ns per update, < 0.00220% CPU), staleness 6.40%",
    "flat out, saturation: inconclusive between cpu/ratelimit:1ms (408M updates/s, 4.90 ±0.31 loop ns/op) and node/always (400M updates/s, 5.00 ±0.10 loop ns/op): -2.0% [-8.3%, +4.3%], p=0.468, its interval reaches across the ±2% noise threshold",
    "flat out, global/always: 50.0M updates/s, 1.52 updates per ownership of the line (16.4M hand-overs/s), 0.000125 lines fetched per read side",
    "node and global share one node here; cross-node cost needs a multi-node host (`contend matrix` there, or the guest check); llc and global share one LLC here; cross-LLC cost needs a host with several LLCs",
];

#[test]
fn one_node_gets_no_numa_claim_and_two_nodes_get_the_test() {
    // On one node a node split that costs a tenth of global is still global: the default run's
    // test has it `= global here`. Two writers on two sockets of the Sapphire Rapids: node and
    // LLC differ from global, the node split is tested and saves; no host line.
    let d = DEFAULT_LINES;
    let savings = "paced at 22.0k/s per thread, against global/always (31.0 ns): global/ratelimit:1ms saves 29.0 ns (-93.5%, p<0.001), staleness 6.40%; node/always saves 29.5 ns (-95.2%, p<0.001); cpu/always saves 29.5 ns (-95.2%, p<0.001)";
    let two = run_lines(&default_run(spr(&[0, 56])));
    assert_eq!(strs(&two), [d[0], savings, d[2], d[3], d[4]]);
    // Both writers on node 0 of two: node is global for them; SMT siblings of one core (n and
    // n+112) say so too.
    let node0 = "node and global share node 0 here (every writer is on it); cross-node cost needs writers on two nodes (--writers SPEC); llc and global share one LLC here (every writer is in it); cross-LLC cost needs writers on two LLCs (--writers SPEC)";
    let smt = "; the writers are SMT siblings of one core, so the line never leaves it; cross-core cost needs writers on two cores";
    for (cpus, host) in [
        ([0, 1], node0.to_string()),
        ([0, 112], format!("{node0}{smt}")),
    ] {
        let lines = run_lines(&default_run(spr(&cpus)));
        let last = lines.last().unwrap();
        assert_eq!((last.topic, &last.text), (Topic::Host, &host));
    }
    // Writers the recorded topology does not hold: nothing is said.
    let lines = run_lines(&default_run(spr(&[0, 999])));
    let all = texts(&lines);
    assert!(lines.iter().all(|l| l.topic != Topic::Host), "{all}");
    has(&all, "!= global here");
}

#[test]
fn flat_out_names_the_least_loop_ns_even_when_sampled_ns_favour_another() {
    // Sampled write ns (perturbed flat out) favour global/always 10:60;
    // loop ns/op from throughput favour cpu/always 10:40.
    let sampled =
        |ns: f64| move |s: &mut StrategySummary| s.write_ns = Some(summary(6, ns, ns / 100.0));
    let r = run(
        vec![
            edit(strategy(Global, "always", FLAT, 40.0, 0.4), sampled(10.0)),
            edit(strategy(Cpu, "always", FLAT, 10.0, 0.1), sampled(60.0)),
        ],
        None,
    );
    let lines = run_lines(&r);
    holds(
        &lines[0].text,
        &[
            "^flat out, saturation: cpu/always, 200M updates/s, 10.0 ±0.10 loop ns/op (-75.0%, p<0.001 against global/always)",
            "p<0.001 against global/always)$",
        ],
    );
    // (Savings flat out, p-value and all: tests/snapshots/report-sweep.txt:284, a sweep point.)
}

#[test]
fn an_unsupported_difference_claims_nothing() {
    // 6 repeats of 30% noise, 10% apart: nothing is measurable.
    let r = run(
        vec![
            strategy(Global, "always", SEED, 30.0, 9.0),
            strategy(Global, RATELIMIT, SEED, 27.0, 8.0),
            strategy(Cpu, "always", SEED, 33.0, 9.0),
        ],
        spr(&[0, 56]),
    );
    assert_eq!(
        strs(&run_lines(&r)),
        [
            "paced at 22.0k/s per thread (the seed's rate), net cost per update: global/always 30.0 ±9.4 ns, 0.0660% CPU; the cheapest: inconclusive between global/ratelimit:1ms (27.0 ±8.4 ns, 0.0594% CPU) and global/always (30.0 ±9.4 ns, 0.0660% CPU): -10.0% [-46.6%, +26.6%], p=1.000, its interval reaches across the ±1 ns noise threshold",
            "paced at 22.0k/s per thread, against global/always (30.0 ns): global/ratelimit:1ms: inconclusive (-10.0% [-46.6%, +26.6%], p=1.000, its interval reaches across the ±1 ns noise threshold), staleness 6.40%; cpu/always: inconclusive (+10.0% [-28.6%, +48.6%], p=1.000, its interval reaches across the ±1 ns noise threshold)",
        ]
    );
}

#[test]
fn a_net_cost_near_zero_is_compared_in_ns() {
    // Net costs near 0 (the floor's noise): a percentage of a negative
    // base would turn "cheaper" into "dearer". Per case: two strategies'
    // costs, their noise, and what the cost line holds.
    let (always, limited) = ((Cpu, PLAIN), (Cpu, RATELIMIT));
    #[rustfmt::skip]
    let cases = [
        ([(always, -1.5), (limited, -0.1)], 0.01, &[
            "the cheapest: cpu/always, -1.50 ±0.010 ns",
            "(-1.40 ns, p<0.001 against cpu/ratelimit:1ms)",
        ][..]),
        // 0.4 ns apart in 0.01 ns of noise: real, but below the 1 ns floor.
        ([(always, -0.5), (limited, -0.1)], 0.01, &[
            "the cheapest: no practical difference between cpu/always",
            "): -0.40 ns [-0.41, -0.39], p<0.001, < 1 ns per update, < 0.00220% CPU$",
        ]),
        // 0.1 ns apart in 0.5 ns of noise: the interval fits inside ±1 ns,
        // so no practical difference, in ns.
        ([(always, -0.5), (limited, -0.4)], 0.5, &[
            "): -0.10 ns [-0.74, +0.54], p=0.736, < 1 ns per update, < 0.00220% CPU$",
        ]),
        // 11.5 against 12.1 ns, ±4.5 ns over 6 repeats: the change is 0.6 ns but the interval
        // reaches ±5 ns, so it shows nothing either way (negative bases:
        // tests/snapshots/report-sweep.txt:14).
        ([((Llc, RATELIMIT), 11.5), ((Global, RATELIMIT), 12.1)], 4.5, &[
            "the cheapest: inconclusive between llc/ratelimit:1ms",
            ", its interval reaches across the ±1 ns noise threshold$",
        ]),
    ];
    for (pair, sd, pieces) in cases {
        let pair = pair.map(|((level, policy), cost)| strategy(level, policy, SEED, cost, sd));
        holds(&run_lines(&run(pair.to_vec(), None))[0].text, pieces);
    }
}

#[test]
fn one_strategy_is_alone() {
    // (One writer's host line: tests/snapshots/report-sweep.txt:16.)
    let lines = run_lines(&run(
        vec![strategy(Global, "always", FLAT, 40.0, 0.4)],
        None,
    ));
    let alone = "^flat out, saturation: only one strategy measured, global/always";
    has(&lines[0].text, alone);
}

#[test]
fn reader_threads_rank_the_read_side_by_throughput() {
    // Sampled read ns favour global; reader threads' throughput cpu.
    let reads = |sampled: f64, by_threads: f64, sd: f64| {
        move |s: &mut StrategySummary| {
            s.read_ns = Some(summary(6, sampled, 0.1));
            s.reader_read_ns = Some(summary(6, by_threads, sd));
        }
    };
    let mut r = run(
        vec![
            edit(
                strategy(Global, "always", FLAT, 40.0, 0.4),
                reads(2.0, 30.0, 0.3),
            ),
            edit(
                strategy(Cpu, "always", FLAT, 10.0, 0.1),
                reads(9.0, 8.0, 0.1),
            ),
        ],
        None,
    );
    r.config.reader_cpus = vec![1];
    let lines = run_lines(&r);
    let read = lines.iter().find(|l| l.topic == Topic::Read).unwrap();
    has(
        &read.text,
        "^flat out, the cheapest read (1 reader thread): cpu/always, 8.00 ±0.10 ns/read (-73.3%, p<0.001 against global/always)",
    );
    // Without reader threads there is no read-side line.
    r.config.reader_cpus.clear();
    assert!(run_lines(&r).iter().all(|l| l.topic != Topic::Read));
}

#[test]
fn the_lines_line_says_when_repeats_in_place_and_alone_share_their_lines() {
    // Its range and median: tests/snapshots/report-run-verbose.txt:49. Without a priced line, no
    // line; under --paced both, the round's repeats alone share its lines.
    let mut s = strategy(Global, "always", SEED, 10.0, 0.1);
    assert_eq!(basis::line_cost_line(&run(vec![s.clone()], None)), None);
    s.repeats[0].line_ns = Some(61.0);
    s.alone_repeats = s.repeats.clone();
    has(
        &basis::line_cost_line(&run(vec![s], None)).unwrap(),
        "every repeat draws the lines anew (a round's repeats in place and alone share theirs) and",
    );
}

#[test]
fn the_alone_line_decides_each_strategy_in_place_against_alone() {
    // Nets in place and alone (busy less a 30 ns floor) in rounds 0-4:
    // global's differ by -0.25, 0, +0.25, -0.25, +0.25 (mean 0, sd 0.25,
    // so ±2.776 x 0.25 / √5 = ±0.31, within 1 ns); node's by 10 in every
    // round.
    let with = |level, in_place: [f64; 5], alone: [f64; 5]| {
        let mut s = strategy(level, "always", SEED, 10.0, 0.1);
        let repeats = |nets: [f64; 5]| -> Vec<RepeatResult> {
            (0..5)
                .map(|i| RepeatResult {
                    repeat: i,
                    write_busy_ns: 30.0 + nets[i],
                    floor_busy_ns: Some(30.0),
                    interference: Default::default(),
                    ..s.repeats[0].clone()
                })
                .collect()
        };
        (s.repeats, s.alone_repeats) = (repeats(in_place), repeats(alone));
        s
    };
    let nets = [10.0, 11.0, 12.0, 13.0, 14.0];
    let global = with(Global, nets, [10.25, 11.0, 11.75, 13.25, 13.75]);
    let node = with(Node, nets.map(|n| n + 10.0), nets);
    let line = |strategies| basis::alone_line(&run(strategies, None));
    assert_eq!(
        line(vec![global.clone(), node]).unwrap(),
        "in place against alone (--paced both): net ns/update in place less alone, paired round by round, 95% CI: global/always +0.0 ns [-0.3, +0.3] over 5 rounds, no practical difference; node/always +10.0 ns [+10.0, +10.0] over 5 rounds, dearer; 1 of 2 not shown unbiased: compare their verdicts with a --paced alone run"
    );
    has(
        &line(vec![global.clone()]).unwrap(),
        "no practical difference; in place biases none of them$",
    );
    // Without repeats alone, no line.
    let mut plain = global;
    plain.alone_repeats.clear();
    assert_eq!(line(vec![plain]), None);
}

#[test]
fn the_headline_answers_at_the_seeds_rate_without_the_statistics() {
    let h = headline(&default_run(None));
    assert_eq!(h.regime, SEED);
    // The plain shared counter's net cost and CPU share (no merged fix
    // in this run), then the two cheapest, which the verdict's own test
    // cannot tell apart.
    assert_eq!(
        h.answer,
        "At the seed's rate of 22.0k updates/s per thread, the plain shared counter costs 31.0 ±0.33 ns per update (0.0682% of a CPU)."
    );
    has(
        &h.more[0],
        "^The cheapest, cpu/ratelimit:1ms (1.40 ±0.31 ns) and node/always (1.50 ±0.10 ns), cannot be told apart (< 1 ns per update",
    );
    let cheapest = ["cpu/ratelimit:1ms/pad128/tsc", "node/always/pad128"];
    assert_eq!(h.cheapest, cheapest);
    // One node, one LLC: the host cannot say what splitting saves there.
    assert_eq!(
        h.more[1],
        "No split saves a measurable amount beyond global/ratelimit:1ms here; this host cannot say what splitting across nodes or LLCs saves: its writers share one node and one LLC."
    );
    let flat = h.flat_out.as_deref().unwrap();
    assert_eq!(
        flat,
        "Flat out, the fastest, cpu/ratelimit:1ms (408M updates/s, 4.90 ±0.31 ns per update) and node/always (400M updates/s, 5.00 ±0.10 ns per update), cannot be told apart (its interval reaches across the ±2% noise threshold); global/always: 50.0M updates/s, 40.0 ±0.42 ns per update, 1.52 updates per ownership of the line."
    );
    let sentences = [h.answer.as_str(), &h.more[0], &h.more[1], flat];
    assert_eq!(h.sentences(), sentences);
    // The test and its interval stay in the verdict lines.
    for s in sentences {
        holds(s, &["!p=", "!p<", "![", "!%]"]);
    }
    // On two nodes and two LLCs the host caveat goes.
    let two = headline(&default_run(spr(&[0, 56])));
    assert_eq!(
        two.more.last().unwrap(),
        "No split saves a measurable amount beyond global/ratelimit:1ms here."
    );
}

#[test]
fn the_headline_names_a_winner_only_where_the_verdict_does() {
    let r = run(
        vec![
            strategy(Global, "always", SEED, 31.0, 0.31),
            strategy(Global, RATELIMIT, SEED, 10.0, 0.2),
            strategy(Node, RATELIMIT, SEED, 6.0, 0.1),
            strategy(Cpu, RATELIMIT, SEED, 2.0, 0.1),
        ],
        spr(&[0, 56]),
    );
    let h = headline(&r);
    assert_eq!(
        h.more,
        [
            "cpu/ratelimit:1ms is cheapest at 2.00 ±0.10 ns, 4.00 ns (67%) less than node/ratelimit:1ms.",
            "Splitting pays here: cpu/ratelimit:1ms saves 8.00 ns per update beyond global/ratelimit:1ms."
        ]
    );
    assert_eq!(h.cheapest, ["cpu/ratelimit:1ms/pad128/tsc"]);
    // The verdict line says the same winner, with its test.
    has(
        &texts(&run_lines(&r)),
        "the cheapest: cpu/ratelimit:1ms, 2.00 ±0.10 ns",
    );
    // No flat-out regime: no flat-out sentence.
    assert_eq!(h.flat_out, None);
}

#[test]
fn without_a_paced_regime_the_headline_is_flat_out_and_says_so() {
    // Without a paced regime, or out of time before any paced repeat (the
    // paced strategies have no net cost): the headline answers flat out
    // and says why.
    let unfinished = |s: &mut StrategySummary| s.net_ns = None;
    let flat = vec![
        strategy(Global, "always", FLAT, 40.0, 0.4),
        strategy(Cpu, "always", FLAT, 10.0, 0.1),
    ];
    let mut out_of_time = flat.clone();
    out_of_time.push(edit(
        strategy(Global, "always", SEED, 30.0, 0.3),
        unfinished,
    ));
    out_of_time.push(edit(strategy(Cpu, "always", SEED, 5.0, 0.1), unfinished));
    for (strategies, pieces) in [
        (
            flat,
            &[
                "^No paced regime in this run, so flat out: cpu/always is fastest at 200M updates/s, 10.0 ±0.10 ns per update, 30.0 ns (75%) less than global/always",
            ][..],
        ),
        (
            out_of_time,
            &[
                "^No paced repeat finished in this run, so flat out: cpu/always is fastest",
                "! - ",
            ],
        ),
    ] {
        let h = headline(&run(strategies, None));
        assert_eq!((h.regime, &h.flat_out), (FLAT, &None));
        holds(&h.answer, pieces);
    }
}

#[test]
fn the_paced_rate_nearest_the_seeds_answers() {
    let near = Regime::paced(30_000.0);
    let r = run(
        vec![
            strategy(Global, "always", Regime::paced(1_000.0), 31.0, 0.31),
            strategy(Global, "always", near, 33.0, 0.33),
        ],
        None,
    );
    let h = headline(&r);
    assert_eq!(h.regime, near);
    has(
        &h.answer,
        "^At 30.0k updates/s per thread, the run's rate nearest the seed's, the plain shared counter costs 33.0 ±0.35 ns per update",
    );
}

/// The default comparison, the kernel before and after its fix, in both
/// regimes: paced, global/threshold:64 (the counter before v6.7) 31 ns
/// net, the merged fix 2 ns, the plain counter 45 ns; node/threshold:64
/// 12 ns, the node split of the fix 1.9 ns, node/always 20 ns; flat out
/// ten times as much; 1% noise.
fn kernel_run(host: Option<(Topology, Vec<u32>)>) -> RunResults {
    let mut all = Vec::new();
    for (regime, k) in [(FLAT, 10.0), (SEED, 1.0)] {
        for (level, policy, ns) in [
            (Global, BEFORE_FIX, 31.0),
            (Node, BEFORE_FIX, 12.0),
            (Global, MERGED_FIX, 2.0),
            (Node, MERGED_FIX, 1.9),
            (Global, PLAIN, 45.0),
            (Node, PLAIN, 20.0),
        ] {
            all.push(strategy(level, policy, regime, k * ns, k * ns / 100.0));
        }
    }
    run(all, host)
}

#[test]
fn the_headline_speaks_of_the_kernel_before_and_after_its_fix() {
    // One node: the node split is global here, left to the host caveat.
    // The fix saves (2 - 31) / 31 = -93.5%, ± the half-width of its
    // test's 95% interval; the two cheapest (the fix and its node split,
    // 0.1 ns apart) cannot be told apart.
    // (The answer's words: tests/snapshots/report-run.txt:6-7.)
    let h = headline(&kernel_run(None));
    has(
        &h.more[0],
        "^The cheapest, node/ratelimit:1ms+threshold:64 (1.90 ±0.020 ns) and global/ratelimit:1ms+threshold:64 (2.00 ±0.021 ns), cannot be told apart",
    );
    has(&h.more.concat(), "!Aaron Lu");
    assert_eq!(
        h.more[1],
        "This host cannot say what splitting across nodes or LLCs saves: its writers share one node and one LLC."
    );
    // Flat out: the reference's figures beside the fastest.
    has(
        h.flat_out.as_deref().unwrap(),
        "; global/threshold:64: 6.45M updates/s, 310 ±3.3 ns per update",
    );
    // Two sockets: the node split is tested, (12 - 31) / 31 = -61.3%.
    let two = headline(&kernel_run(spr(&[0, 56])));
    assert_eq!(two.answer, h.answer);
    assert_eq!(
        two.more[0],
        "Aaron Lu's node split, node/threshold:64, saves 19.0 ±0.33 ns per update (61%)."
    );
}

#[test]
fn the_verdict_weighs_every_strategy_against_the_kernel_before_its_fix() {
    // Against the counter before v6.7: the other global policies and its node split, not the
    // other node strategies; the plain counter costs (45 - 31) / 31 = +45.2% more. Splitting
    // beyond the merged fix: its node split, 0.1 ns apart. Flat out, updates per ownership under
    // the reference.
    let lines = run_lines(&kernel_run(spr(&[0, 56])));
    use Topic::*;
    let topics: Vec<Topic> = lines.iter().map(|l| l.topic).collect();
    assert_eq!(
        topics,
        [Cost, Savings, BeyondRatelimit, Saturation, Ownership]
    );
    assert_eq!(
        strs(&lines),
        [
            "paced at 22.0k/s per thread (the seed's rate), net cost per update: global/threshold:64 31.0 ±0.33 ns, 0.0682% CPU; the cheapest: no practical difference between node/ratelimit:1ms+threshold:64 (1.90 ±0.020 ns, 0.00418% CPU) and global/ratelimit:1ms+threshold:64 (2.00 ±0.021 ns, 0.00440% CPU): -5.0% [-6.3%, -3.7%], p<0.001, < 1 ns per update, < 0.00220% CPU",
            "paced at 22.0k/s per thread, against global/threshold:64 (31.0 ns): node/threshold:64 saves 19.0 ns (-61.3%, p<0.001), staleness 6.40%; global/ratelimit:1ms+threshold:64 saves 29.0 ns (-93.5%, p<0.001), staleness 6.40%; global/always costs 14.0 ns more (+45.2%, p<0.001)",
            "paced at 22.0k/s per thread, splitting beyond global/ratelimit:1ms+threshold:64 (2.00 ns): node/ratelimit:1ms+threshold:64: no practical difference (-5.0% [-6.3%, -3.7%], p<0.001, < 1 ns per update, < 0.00220% CPU), staleness 6.40%",
            "flat out, saturation: node/ratelimit:1ms+threshold:64, 105M updates/s, 19.0 ±0.20 loop ns/op (-5.0%, p<0.001 against global/ratelimit:1ms+threshold:64)",
            "flat out, global/threshold:64: 6.45M updates/s, updates per ownership not recorded",
        ]
    );
}

#[test]
fn each_node_is_priced_local_against_remote_on_two_nodes() {
    use crate::runner::NodeSummary;
    // Writers on both sockets; global/threshold:64's slot on node 0: its
    // writers there pay 20 ns, those on node 1 42 ns, +110%.
    let mut r = kernel_run(spr(&[0, 56]));
    for s in r.strategies.iter_mut() {
        let k = if s.regime == FLAT { 10.0 } else { 1.0 };
        if s.name.starts_with("global/threshold:64") {
            s.summary.as_mut().unwrap().nodes = [(0, false, 20.0), (1, true, 42.0)]
                .map(|(node, remote, ns)| NodeSummary {
                    node,
                    remote,
                    cost_ns: summary(6, k * ns, k * ns / 100.0),
                })
                .to_vec();
        }
    }
    let lines = run_lines(&r);
    let all = texts(&lines);
    let nodes: Vec<&Verdict> = lines.iter().filter(|l| l.topic == Topic::Nodes).collect();
    assert_eq!(nodes.len(), 2, "{all}");
    assert_eq!(
        nodes[0].text,
        "paced at 22.0k/s per thread, per node, global/threshold:64: node 0 (local to the counter's memory) 20.0 ±0.21 ns; node 1 (remote) 42.0 ±0.44 ns, 22.0 ns more (+110.0%, p<0.001)"
    );
    has(
        &nodes[1].text,
        "^flat out, per node, global/threshold:64: node 0 (local to the counter's memory) 200 ±2.1 loop ns/op; node 1 (remote) 420 ±4.4 loop ns/op, 220 ns more",
    );
    // Briefly, the change alone.
    has(
        nodes[0].brief_text(),
        "42.0 ±0.44 ns, 22.0 ns more (+110.0%)$",
    );
    // The headline gives the figures, the verdict line the test.
    let h = headline(&r);
    has(
        &h.answer,
        "the kernel's counter costs 31.0 ±0.33 ns per update (0.0682% of a CPU).",
    );
    assert_eq!(
        h.more[0],
        "Per node, it costs 20.0 ±0.21 ns on node 0 (local to its memory) and 42.0 ±0.44 ns on node 1 (remote)."
    );
    // One node: no per-node line.
    let one = run_lines(&kernel_run(None));
    assert!(one.iter().all(|l| l.topic != Topic::Nodes));
}

#[test]
fn strategies_in_place_count_each_repeat_once() {
    // Two paced strategies, two repeats each; every record says 10 ms of
    // steal, 4 switches and a 60 ns canary, repeat 0's canary moved.
    let lane = |level| {
        let mut s = strategy(level, "always", SEED, 10.0, 0.1);
        for r in &mut s.repeats {
            let i = &mut r.interference;
            (i.steal_ms, i.involuntary_switches) = (Some(10.0), 4);
            (i.canary_ns, i.canary_ms, i.disturbed) = (Some(60.0), Some(1.0), r.repeat == 0);
            r.floor_busy_ns = Some(30.0);
        }
        s
    };
    let mut r = run(vec![lane(Global), lane(Node)], None);
    // Repeats run, the steal and switches of them, the canaries moved,
    // and the strategy results (always 4) the lines count.
    let counted = |r: &RunResults, repeats: usize, steal: u32, switches: u32, moved: usize| {
        let found = basis::findings(r).into_iter();
        let floor = found
            .filter(|f| f.kind == basis::FindingKind::PacedFloor)
            .map(|f| f.to_string())
            .next()
            .unwrap();
        assert_eq!(r.repeats_run(None).len(), repeats);
        holds(
            &basis::interference_line(r).unwrap(),
            &[
                &format!("^interference: steal {steal} ms, {switches} involuntary"),
                &format!("moved under {moved} of {repeats} repeats; 0 of 4 strategy results"),
                "it costs 1.0 ms per repeat$",
            ],
        );
        has(&floor, &format!("; over {repeats} repeats, "));
    };
    // Each in repeats of its own: four repeats.
    counted(&r, 4, 40, 16, 2);
    // In place, their records of one index are one repeat: its steal,
    // switches and canary count once; each strategy's result still counts.
    r.config.in_place = vec![crate::runner::InPlaceGroup {
        regime: SEED,
        strategies: r.strategies.iter().map(|s| s.name.clone()).collect(),
    }];
    assert_eq!(r.repeats_run(Some(FLAT)).len(), 0);
    // The same strategy flat out is alone, whatever its name shares.
    let (mut with_flat, mut flat) = (r.clone(), r.strategies[0].clone());
    flat.regime = FLAT;
    with_flat.strategies.push(flat);
    let runs = |regime| with_flat.repeats_run(regime).len();
    assert_eq!([runs(None), runs(Some(FLAT)), runs(Some(SEED))], [4, 2, 2]);
    counted(&r, 2, 20, 8, 1);
    let canaries = r.repeats_run(None).into_iter().map(|r| &r.interference);
    assert_eq!(crate::runner::CanaryRange::of(canaries).unwrap().count, 2);
}

#[test]
fn a_value_has_a_spread_only_from_two_repeats() {
    // 30 and 32: mean 31, the 95% CI's half-width t(0.975, 1) · √2 / √2
    // = 12.7, to two significant digits.
    let value = |repeats: &[f64]| run::value(&Summary::of(repeats).unwrap(), "ns");
    assert_eq!(value(&[30.0, 32.0]), "31.0 ±13 ns");
    assert_eq!(value(&[31.0]), "31.0 ns (1 repeat)");
}

#[test]
fn a_check_names_its_worst_point_and_its_interval_or_its_one_repeat() {
    // 90 against 100 [80, 120] agrees (10% off, inside); 200 against 105
    // is 90% off: the worst. Their errors' median is (10 + 90.5) / 2.
    use crate::predict::CheckPoint;
    let agree = CheckPoint::example("a", 90.0, 100.0, [80.0, 120.0], 5);
    let check = |repeats: usize, ci: [f64; 2]| crate::predict::CheckResults {
        file: "run.json".into(),
        latency_source: "canary".into(),
        median_abs_error_pct: Some(50.2),
        agreeing: 1,
        worst: Some(1),
        transfers_median_error_pct: None,
        knees: Vec::new(),
        flat_out: Vec::new(),
        flat_out_agreeing: 0,
        flat_out_median_error_pct: None,
        notes: Vec::new(),
        points: vec![
            agree.clone(),
            CheckPoint::example("b", 200.0, 105.0, ci, repeats),
        ],
    };
    assert_eq!(
        texts(&check_lines(&check(5, [95.0, 115.0]))),
        "verdict: model against measured, net cost per update: median error 50.2% over 2 points; 1 of 2 points agree (prediction inside the measured 95% CI and within ±25%); worst: b at 22.0k/s, predicted 200 ns against measured 105 ns [95.0, 115] (90% off)"
    );
    // One repeat: its stored zero-width interval is no interval.
    has(
        &texts(&check_lines(&check(1, [105.0, 105.0]))),
        "measured 105 ns (1 repeat) (90% off)$",
    );
    // A third point 5% off, measured once: neither agrees nor not.
    let mut three = check(5, [95.0, 115.0]);
    three
        .points
        .push(CheckPoint::example("c", 100.0, 105.0, [105.0, 105.0], 1));
    has(
        &texts(&check_lines(&three)),
        "over 3 points; 1 of 3 points agree (prediction inside the measured 95% CI and within ±25%); 1 more within ±25% but measured in one repeat (no interval to judge by); worst: b ",
    );
    // Nothing measured flat out, nothing paced: no line.
    three.points.clear();
    assert!(check_lines(&three).is_empty());
}
