//! `contend matrix --sharers`: one writer and m readers that each read the line between its writes;
//! what the writer's add costs when it must take the line back from m sharers.

use super::measure::{LINES, on_cpus, spaced_lines};
use super::transactions::{STRIDE, timed, wait_for};
use super::{PairClass, Transaction};
use crate::clock::Timer;
use crate::placement::{NodeCheck, NodeMemory, PinnedThread, Placement, PlacementError};
use crate::stats::{TIMING_TRIM, trimmed_mean};
use crate::topology::CpuList;
use crossbeam_utils::CachePadded;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// Timed rounds per m.
pub const ROUNDS: usize = 300;
/// Rounds run and dropped first (every line read by every reader before the first timed round).
const WARMUP_ROUNDS: usize = 30;

/// One writer, m readers: the writer's upgrade cost and the reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SharersPoint {
    /// Readers.
    pub m: usize,
    /// The writer: the first CPU of the span order.
    pub writer: u32,
    /// The readers: the next m CPUs of the span order.
    pub readers: Vec<u32>,
    /// The widest distance class among the pairs of the writer and readers.
    pub widest_class: PairClass,
    /// The node the lines' page was bound to.
    pub home_node: u32,
    /// `move_pages` on the lines' page.
    pub line: NodeCheck,
    /// The pinned threads, writer first, then the readers in order.
    pub threads: Vec<PinnedThread>,
    /// Timed rounds.
    pub rounds: usize,
    /// Reads the readers made in the timed rounds (m × rounds).
    pub reads: u64,
    /// Of them, those that saw a value the reader had not seen on that line.
    pub fresh_reads: u64,
    /// The writer's fenced add on the line m readers share, less the same add on a private line,
    /// ns: the trimmed mean over the rounds.
    pub upgrade_ns: f64,
}

impl SharersPoint {
    /// Summarises what `writer` and `readers` measured, writer first (see the fields).
    fn new(
        (writer, readers): (u32, Vec<u32>),
        widest_class: PairClass,
        home_node: u32,
        line: NodeCheck,
        threads: Vec<PinnedThread>,
        sides: Vec<Side>,
    ) -> Self {
        let mut sides = sides.into_iter();
        let upgrade_ns = sides.next().map(|w| w.0).unwrap_or_default();
        let (reads, fresh_reads) = sides.fold((0, 0), |(r, f), (_, (a, b))| (r + a, f + b));
        SharersPoint {
            m: readers.len(),
            writer,
            readers,
            widest_class,
            home_node,
            line,
            threads,
            rounds: upgrade_ns.len(),
            reads,
            fresh_reads,
            upgrade_ns: trimmed_mean(&upgrade_ns, TIMING_TRIM).unwrap_or(0.0),
        }
    }
}

/// The flags the threads share, each on its own line.
struct Shared<'a> {
    lines: [&'a AtomicU64; LINES],
    /// The writer's "round r written" (r + 1).
    go: CachePadded<AtomicU64>,
    /// Each reader's "round r read" (r + 1); entry 0 unused.
    read: Vec<CachePadded<AtomicU64>>,
}

/// What a thread brings back: the writer's net ns per timed round, a reader's (reads, fresh reads).
type Side = (Vec<f64>, (u64, u64));

/// The writer's part (`me` = 0): a timed add and a private one per round, then the go flag, then
/// every reader's flag.
fn write(sh: &Shared, timer: Timer) -> Side {
    let private: Box<[CachePadded<AtomicU64>; 2]> = Box::default();
    let ns = timer.ns_per_tick();
    let mut out = Vec::with_capacity(ROUNDS);
    for r in 0..WARMUP_ROUNDS + ROUNDS {
        let line = sh.lines[r % LINES];
        let shared = timed(timer, Transaction::AddUpgraded, line, line);
        let alone = timed(timer, Transaction::AddUpgraded, &private[0], &private[1]);
        if r >= WARMUP_ROUNDS {
            out.push((shared as f64 - alone as f64) * ns);
        }
        let tag = r as u64 + 1;
        sh.go.store(tag, Ordering::Release);
        for flag in &sh.read[1..] {
            wait_for(flag, tag);
        }
    }
    (out, (0, 0))
}

/// Reader `me`'s part: per round, once the writer wrote, one read of the line, counted fresh when
/// its value is not the last this reader saw there.
fn read(sh: &Shared, me: usize) -> Side {
    let mut seen = [0u64; LINES];
    let (mut reads, mut fresh) = (0, 0);
    for r in 0..WARMUP_ROUNDS + ROUNDS {
        let tag = r as u64 + 1;
        wait_for(&sh.go, tag);
        let l = r % LINES;
        let v = sh.lines[l].load(Ordering::Acquire);
        if r >= WARMUP_ROUNDS {
            reads += 1;
            fresh += u64::from(v != seen[l]);
        }
        seen[l] = v;
        sh.read[me].store(tag, Ordering::Release);
    }
    (Vec::new(), (reads, fresh))
}

/// Times [`ROUNDS`] rounds of `writer` adding to lines of a fresh page bound to `home` and
/// `readers` (at least one) reading each write, one thread pinned to each CPU.
pub fn measure_sharers(
    writer: u32,
    readers: Vec<u32>,
    widest_class: PairClass,
    home: u32,
    timer: Timer,
    allowed: &CpuList,
) -> Result<SharersPoint, PlacementError> {
    let memory = NodeMemory::alloc(LINES * STRIDE, home, Placement::Strict)?;
    let sh = Shared {
        lines: spaced_lines(&memory, STRIDE),
        go: CachePadded::new(AtomicU64::new(0)),
        read: (0..=readers.len())
            .map(|_| CachePadded::default())
            .collect(),
    };
    let cpus = [&[writer], &readers[..]].concat();
    let results = on_cpus(&cpus, allowed, |me| {
        if me == 0 {
            write(&sh, timer)
        } else {
            read(&sh, me)
        }
    })?;
    let (threads, sides) = results.into_iter().unzip();
    let line = memory.check().clone();
    let point = SharersPoint::new((writer, readers), widest_class, home, line, threads, sides);
    Ok(point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_read_every_write_and_the_writer_times_every_round() {
        // Two unpinned threads over lines of their own: each of the 330
        // rounds adds 1 to one of the 16 lines, and the reader sees every
        // one of the 300 timed writes as new.
        let atomics: [AtomicU64; LINES] = Default::default();
        let sh = Shared {
            lines: std::array::from_fn(|l| &atomics[l]),
            go: CachePadded::new(AtomicU64::new(0)),
            read: (0..2).map(|_| CachePadded::default()).collect(),
        };
        let (w, r) = std::thread::scope(|s| {
            let w = s.spawn(|| write(&sh, Timer::Monotonic));
            let r = s.spawn(|| read(&sh, 1));
            (w.join().unwrap(), r.join().unwrap())
        });
        let total: u64 = atomics.iter().map(|a| a.load(Ordering::Relaxed)).sum();
        assert_eq!(total, (WARMUP_ROUNDS + ROUNDS) as u64);
        assert_eq!((w.0.len(), r), (ROUNDS, (Vec::new(), (300, 300))));
    }

    #[test]
    fn the_point_sums_the_readers_and_means_the_rounds() {
        // Twenty rounds of 40 ns and one of 4000 (preempted): 5% of 21
        // (stats::TIMING_TRIM) sets the 4000 aside, so the mean is 40
        // (untrimmed it would be 228.6).
        let mut ns = vec![40.0; 20];
        ns.push(4000.0);
        let sides = vec![(ns, (0, 0)), (Vec::new(), (11, 11)), (Vec::new(), (11, 10))];
        let (line, class) = (NodeCheck::Verified { node: 0 }, PairClass::SameLlc);
        let p = SharersPoint::new((0, vec![1, 2]), class, 0, line, Vec::new(), sides);
        assert_eq!((p.m, p.rounds, p.reads, p.fresh_reads), (2, 21, 22, 21));
        assert_eq!(p.upgrade_ns, 40.0);
    }
}
