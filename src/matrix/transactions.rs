//! The coherence transactions an update makes, each priced on its own: one CPU times one operation,
//! fenced, right after the other CPU left the line in the state the transaction names, less the
//! same operation on a line of its own.

use super::measure::{LINES, on_pair, spaced_lines};
use super::{taking_turns, transfer_budget};
use crate::clock::Timer;
use crate::placement::{NodeMemory, Placement, PlacementError};
use crate::stats::{TIMING_TRIM, ratio, trimmed_mean};
use crate::topology::CpuList;
use crossbeam_utils::CachePadded;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

/// One transaction (or pattern of two) timed on one CPU right after the other CPU of its pair
/// prepared the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transaction {
    /// An add on a line the other CPU has just written: a modified line moves.
    AddMoved,
    /// A read of a line the other CPU has just written: a modified line is fetched to be shared.
    ReadFetched,
    /// An add on a line this CPU wrote and the other CPU has since only read.
    AddUpgraded,
    /// A read of a line this CPU wrote and the other CPU has since only read.
    ReadBack,
    /// An add on a line the other CPU has only read, then a read of a line it has just written.
    AddThenReadOther,
    /// An add on a line the other CPU has just written, then a read of it.
    AddThenReadSame,
}

crate::named_enum!(Transaction, "transaction", [
    AddMoved => "add moved",
    ReadFetched => "read fetched",
    AddUpgraded => "add upgraded",
    ReadBack => "read back",
    AddThenReadOther => "add+read other",
    AddThenReadSame => "add+read same",
]);

/// One transaction's net cost on one pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransactionCost {
    /// Which.
    pub transaction: Transaction,
    /// The fenced operation's ns less the same operation's on a private line, timed right after it.
    pub net_ns: f64,
    /// `net_ns` ÷ the pair's median one-way ping-pong.
    pub to_pingpong: f64,
    /// Samples, both CPUs timing.
    pub samples: usize,
}

/// Samples per CPU and transaction in each pass, and those dropped first.
pub const TRANSACTION_SAMPLES: usize = 300;
/// Samples run and dropped before the timed ones, per CPU and transaction.
const TRANSACTION_WARMUP: usize = 30;

/// Line transfers one pair's transactions make over `passes` passes, about.
pub fn transaction_transfers(passes: usize) -> f64 {
    (passes as u64 * transfers_of(TRANSACTION_SAMPLES)) as f64
}

/// Line transfers one pass of `samples` samples per CPU and transaction makes, about.
fn transfers_of(samples: usize) -> u64 {
    (Transaction::ALL.len() * 2 * (samples + TRANSACTION_WARMUP)) as u64 * TRANSFERS_PER_SAMPLE
}

/// Line transfers of one sample, about.
const TRANSFERS_PER_SAMPLE: u64 = 4;

/// Bytes between the [`LINES`] the samples rotate through: each line on its own 128 bytes, so the
/// adjacent-line prefetcher never pulls a neighbour with it.
pub(super) const STRIDE: usize = 128;

/// Net ns samples of each of [`Transaction::ALL`], in that order, both CPUs of the pair taking
/// turns at timing.
pub type TransactionSamples = Vec<Vec<f64>>;

/// A thread's state: the shared lines, the hand-shake, and which CPU times.
struct Shared<'a> {
    lines: [&'a AtomicU64; LINES],
    /// The timing CPU's "prepare sample k" (k + 1 stored).
    go: CachePadded<AtomicU64>,
    /// The preparing CPU's "sample k prepared".
    ready: CachePadded<AtomicU64>,
}

/// What the timing CPU does before the other prepares: own the line.
#[inline(always)]
fn before(t: Transaction, line: &AtomicU64) {
    if matches!(
        t,
        Transaction::AddUpgraded | Transaction::ReadBack | Transaction::AddThenReadOther
    ) {
        line.fetch_add(1, Ordering::Relaxed);
    }
}

/// What the preparing CPU does: write the line, or read it.
#[inline(always)]
fn prepare(t: Transaction, line: &AtomicU64, other: &AtomicU64) {
    match t {
        Transaction::AddUpgraded | Transaction::ReadBack => {
            black_box(line.load(Ordering::Relaxed));
        }
        Transaction::AddThenReadOther => {
            black_box(line.load(Ordering::Relaxed));
            other.fetch_add(1, Ordering::Relaxed);
        }
        _ => {
            line.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The timed operation of `t` on `line` (and `other` for the split's read).
#[inline(always)]
fn operate(t: Transaction, line: &AtomicU64, other: &AtomicU64) {
    match t {
        Transaction::AddMoved | Transaction::AddUpgraded => {
            line.fetch_add(1, Ordering::Relaxed);
        }
        Transaction::ReadFetched | Transaction::ReadBack => {
            black_box(line.load(Ordering::Relaxed));
        }
        Transaction::AddThenReadOther => {
            line.fetch_add(1, Ordering::Relaxed);
            black_box(other.load(Ordering::Relaxed));
        }
        Transaction::AddThenReadSame => {
            line.fetch_add(1, Ordering::Relaxed);
            black_box(line.load(Ordering::Relaxed));
        }
    }
}

/// Ticks `operate` takes on `line`/`other`, fenced.
#[inline(always)]
pub(super) fn timed(timer: Timer, t: Transaction, line: &AtomicU64, other: &AtomicU64) -> u64 {
    let t0 = timer.start();
    operate(t, line, other);
    timer.end().wrapping_sub(t0)
}

/// Waits until `flag` holds `value`.
#[inline(always)]
pub(super) fn wait_for(flag: &AtomicU64, value: u64) {
    while flag.load(Ordering::Acquire) != value {
        std::hint::spin_loop();
    }
}

/// `go` once the timing side has spent the budget: no more samples.
const STOP: u64 = u64::MAX;

/// Samples between two looks at the clock for the budget.
const SAMPLES_PER_LOOK: usize = 16;

/// Waits until `go` holds `k` (true), or [`STOP`] (false).
#[inline(always)]
fn wait_for_turn(go: &AtomicU64, k: u64) -> bool {
    loop {
        match go.load(Ordering::Acquire) {
            v if v == k => return true,
            STOP => return false,
            _ => std::hint::spin_loop(),
        }
    }
}

/// One side's part of every sample: `me` is 0 for the pair's lower CPU.
fn side(
    sh: &Shared,
    me: usize,
    samples: usize,
    timer: Timer,
    budget: std::time::Duration,
) -> TransactionSamples {
    // The private lines, allocated on this (pinned) thread.
    let private: Box<[CachePadded<AtomicU64>; 2]> = Box::default();
    let ns = timer.ns_per_tick();
    let per = TRANSACTION_WARMUP + samples;
    let mut out = vec![Vec::with_capacity(samples); Transaction::ALL.len()];
    let mut k = 0u64;
    let started = std::time::Instant::now();
    // (when, k) at this side's last look, and the ns per transfer of each
    // stretch between looks.
    let mut look = (started, 0u64);
    let mut stretches: Vec<f64> = Vec::new();
    for (i, &t) in Transaction::ALL.iter().enumerate() {
        for timer_side in 0..2 {
            for s in 0..per {
                k += 1;
                let line = sh.lines[s % LINES];
                let other = sh.lines[(s + LINES / 2) % LINES];
                if me == timer_side {
                    if s % SAMPLES_PER_LOOK == 0 {
                        let now = std::time::Instant::now();
                        if k > look.1 + 1 {
                            let transfers = (k - 1 - look.1) * TRANSFERS_PER_SAMPLE;
                            stretches.push((now - look.0).as_nanos() as f64 / transfers as f64);
                        }
                        look = (now, k - 1);
                        // Past the budget, stop once the stretches' median
                        // says the time went to taking turns, not to a
                        // preemption or two.
                        if now - started > budget && taking_turns(&stretches) {
                            sh.go.store(STOP, Ordering::Release);
                            return out;
                        }
                    }
                    before(t, line);
                    sh.go.store(k, Ordering::Release);
                    wait_for(&sh.ready, k);
                    let shared = timed(timer, t, line, other);
                    let alone = timed(timer, t, &private[0], &private[1]);
                    if s >= TRANSACTION_WARMUP {
                        out[i].push((shared as f64 - alone as f64) * ns);
                    }
                } else {
                    if !wait_for_turn(&sh.go, k) {
                        return out;
                    }
                    prepare(t, line, other);
                    sh.ready.store(k, Ordering::Release);
                }
            }
        }
    }
    out
}

/// Times every [`Transaction`] on the pair `(a, b)`, each CPU in turn timing `samples` of each
/// after the other prepared the line, on lines of a fresh page bound to `home`.
pub fn measure_transactions(
    a: u32,
    b: u32,
    home: u32,
    samples: usize,
    timer: Timer,
    allowed: &CpuList,
) -> Result<TransactionSamples, PlacementError> {
    let budget = transfer_budget(transfers_of(samples));
    transactions_within(a, b, home, samples, timer, allowed, budget)
}

/// [`measure_transactions`] past whose `budget` the sides stop once they take turns ([`side`]).
fn transactions_within(
    a: u32,
    b: u32,
    home: u32,
    samples: usize,
    timer: Timer,
    allowed: &CpuList,
    budget: std::time::Duration,
) -> Result<TransactionSamples, PlacementError> {
    let memory = NodeMemory::alloc(LINES * STRIDE, home, Placement::Strict)?;
    let sh = Shared {
        lines: spaced_lines(&memory, STRIDE),
        go: CachePadded::new(AtomicU64::new(0)),
        ready: CachePadded::new(AtomicU64::new(0)),
    };
    let [(_, mut mine), (_, theirs)] =
        on_pair(a, b, allowed, |me| side(&sh, me, samples, timer, budget))?;
    for (m, t) in mine.iter_mut().zip(theirs) {
        m.extend(t);
    }
    Ok(mine)
}

/// Each transaction's cost from its samples (every pass's, merged).
pub fn transaction_costs(samples: &[Vec<f64>], pingpong_ns: f64) -> Vec<TransactionCost> {
    Transaction::ALL
        .iter()
        .zip(samples)
        .filter(|(_, s)| !s.is_empty())
        .map(|(&transaction, s)| {
            let net_ns = trimmed_mean(s, TIMING_TRIM).unwrap_or(f64::NAN);
            TransactionCost {
                transaction,
                net_ns,
                to_pingpong: ratio(net_ns, pingpong_ns),
                samples: s.len(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use std::path::Path;

    #[test]
    fn each_transaction_prepares_and_operates_on_the_lines_it_names() {
        // (line, other) after `before` (timing CPU), `prepare` (the other
        // CPU) and `operate` (timed), each on fresh atomics: adds change
        // a line by 1, reads change nothing.
        let step = |f: fn(Transaction, &AtomicU64, &AtomicU64), t| {
            let (line, other) = (AtomicU64::new(0), AtomicU64::new(0));
            f(t, &line, &other);
            (line.into_inner(), other.into_inner())
        };
        let before_ = |t, l: &AtomicU64, _: &AtomicU64| before(t, l);
        use Transaction::*;
        for (t, b, p, o) in [
            // the other CPU writes the line; the timed add moves it
            (AddMoved, (0, 0), (1, 0), (1, 0)),
            // the other CPU writes it; the timed read fetches it
            (ReadFetched, (0, 0), (1, 0), (0, 0)),
            // this CPU writes it, the other reads it; the add upgrades it
            (AddUpgraded, (1, 0), (0, 0), (1, 0)),
            // this CPU writes it, the other reads it; the timed read
            (ReadBack, (1, 0), (0, 0), (0, 0)),
            // this CPU writes its line, the other reads it and writes its
            // own; the timed add and read
            (AddThenReadOther, (1, 0), (0, 1), (1, 0)),
            // the other CPU writes it; the timed add and read of it
            (AddThenReadSame, (0, 0), (1, 0), (1, 0)),
        ] {
            assert_eq!(step(before_, t), b, "before {t:?}");
            assert_eq!(step(prepare, t), p, "prepare {t:?}");
            assert_eq!(step(operate, t), o, "operate {t:?}");
        }
    }

    #[test]
    fn a_timed_operation_takes_its_clock_ticks_and_a_wait_waits() {
        // CLOCK_MONOTONIC in ns: two reads around an atomic add are more
        // than 1 ns apart at least once in a hundred tries.
        let (a, b) = (AtomicU64::new(0), AtomicU64::new(0));
        let most = (0..100)
            .map(|_| timed(Timer::Monotonic, Transaction::AddMoved, &a, &b))
            .max()
            .unwrap();
        assert!(most > 1, "{most}");
        assert_eq!(a.into_inner(), 100);
        // wait_for returns only once the flag holds the value: 5 ms after
        // another thread starts sleeping before it stores it.
        let flag = AtomicU64::new(0);
        let started = std::time::Instant::now();
        let waited = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                flag.store(7, Ordering::Release);
            });
            wait_for(&flag, 7);
            started.elapsed()
        });
        assert!(waited >= std::time::Duration::from_millis(5), "{waited:?}");
    }

    #[test]
    fn both_sides_take_every_turn_on_the_shared_lines() {
        // Two (unpinned) threads run both sides over lines of their own:
        // per sample, all 6 transactions add 2 + 1 + 2 + 1 + 3 + 2 = 11 to
        // the lines, for each CPU timing and every warm-up or timed sample.
        let atomics: [AtomicU64; LINES] = Default::default();
        let sh = Shared {
            lines: std::array::from_fn(|l| &atomics[l]),
            go: CachePadded::new(AtomicU64::new(0)),
            ready: CachePadded::new(AtomicU64::new(0)),
        };
        let all = std::time::Duration::MAX;
        let (mine, theirs) = std::thread::scope(|s| {
            let a = s.spawn(|| side(&sh, 0, 7, Timer::Monotonic, all));
            let b = s.spawn(|| side(&sh, 1, 7, Timer::Monotonic, all));
            (a.join().unwrap(), b.join().unwrap())
        });
        let total: u64 = atomics.iter().map(|a| a.load(Ordering::Relaxed)).sum();
        assert_eq!(total, 11 * 2 * (TRANSACTION_WARMUP as u64 + 7));
        // Each side keeps the timed samples it took, warm-up dropped.
        for s in [&mine, &theirs] {
            assert!(s.iter().all(|t| t.len() == 7), "{s:?}");
        }
    }

    #[test]
    fn a_cost_is_the_trimmed_mean_of_its_quantized_samples() {
        // Add moved timed on a clock that steps by 10 ns: 44 samples of
        // 20 ns, 56 of 30, and one of 5 µs an interrupt lengthened. The
        // 5% trim of 101 drops 5 at each end, the interrupt among them,
        // and keeps the tied 20s and 30s: (880 + 1680) / 100 = 25.6 ns
        // (the median: 30), 0.8× a 32 ns ping-pong. Read fetched: 40 ns
        // each. A transaction without samples is left out.
        let moved = [vec![20.0; 44], vec![30.0; 56], vec![5000.0]].concat();
        let costs = transaction_costs(&[moved, vec![40.0; 8], Vec::new()], 32.0);
        assert_eq!(costs.len(), 2);
        assert_eq!(costs[0].transaction, Transaction::AddMoved);
        assert!((costs[0].net_ns - 25.6).abs() < 1e-12, "{:?}", costs[0]);
        assert!((costs[0].to_pingpong - 0.8).abs() < 1e-12);
        assert_eq!(costs[0].samples, 101);
        assert_eq!((costs[1].net_ns, costs[1].to_pingpong), (40.0, 1.25));
        // A ping-pong of 0 gives no ratio rather than infinity.
        assert_eq!(transaction_costs(&[vec![1.0]], 0.0)[0].to_pingpong, 0.0);
    }

    #[test]
    fn the_time_estimate_is_the_documented_one() {
        // The names: tests/snapshots/report-matrix.txt prints each.
        // Six transactions x two CPUs timing x 3 passes x (300 + 30)
        // samples x 4 transfers (the turn there and back, the line once
        // or twice): the study's estimate of a pair's transactions.
        assert_eq!(transaction_transfers(3), 47_520.0);
        assert_eq!(transaction_transfers(1), 15_840.0);
    }

    #[test]
    fn every_transaction_is_timed_by_both_cpus() {
        let topo = Topology::read(Path::new("/")).unwrap();
        let (a, b) = crate::topology::two_allowed_cpus();
        let home = topo.node_of_cpu(a).unwrap();
        // Unbounded: a test beside it pinned to the same CPUs makes both
        // take turns, which is the budget's business, not this test's.
        let all = std::time::Duration::MAX;
        let allowed = &topo.allowed_cpus;
        let s = transactions_within(a, b, home, 40, Timer::Monotonic, allowed, all).unwrap();
        assert_eq!(s.len(), Transaction::ALL.len());
        for samples in &s {
            assert_eq!(samples.len(), 80);
            assert!(samples.iter().all(|ns| ns.is_finite()), "{samples:?}");
        }
        let costs = transaction_costs(&s, 20.0);
        assert_eq!(costs.len(), Transaction::ALL.len());
        assert!(costs.iter().all(|c| c.to_pingpong == c.net_ns / 20.0));
        // A CPU this process may not use is refused, not measured.
        let e = measure_transactions(a, 4095, home, 4, Timer::Monotonic, &topo.allowed_cpus);
        assert!(e.is_err());
    }

    #[test]
    fn both_sides_on_one_cpu_stop_at_the_budget_with_what_they_timed() {
        // Taking turns on one CPU, every hand-shake waits for a time
        // slice (ms), as when a hypervisor runs both vCPUs on one host
        // CPU: 40 samples of each would take many seconds; their budget
        // (6 × 2 × 70 × 4 transfers at 10 µs, 34 ms) stops both sides at
        // the first look past it (16 samples, each ms per transfer),
        // within the first transaction's warm-up.
        let topo = Topology::read(Path::new("/")).unwrap();
        let (a, _) = crate::topology::two_allowed_cpus();
        let home = topo.node_of_cpu(a).unwrap();
        let s = measure_transactions(a, a, home, 40, Timer::Monotonic, &topo.allowed_cpus).unwrap();
        assert_eq!(s.len(), Transaction::ALL.len());
        let timed: usize = s.iter().map(Vec::len).sum();
        assert!(timed < 40, "{timed} samples timed");
        assert!(s[1..].iter().all(Vec::is_empty), "{s:?}");
    }
}
