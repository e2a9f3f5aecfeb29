//! `contend matrix --contenders`: k CPUs adding to one line at once, the line handed from cache to
//! cache as fast as they can take it; what one hand-over of the line costs with k waiting for it.

use super::PairClass;
use super::WINDOW_TRIM;
use super::measure::{LINES, on_cpus, spaced_lines};
use super::transactions::{STRIDE, wait_for};
use crate::clock::Timer;
use crate::placement::{NodeCheck, NodeMemory, PinnedThread, Placement, PlacementError};
use crate::stats::{TIMING_TRIM, trimmed_mean};
use crate::topology::CpuList;
use crossbeam_utils::CachePadded;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// Adds in one window, about, whatever k.
pub const WINDOW_ADDS: u64 = 8192;
/// The fewest adds the first CPU makes in a window.
const MIN_OPENER_ADDS: u64 = 64;
/// Timed windows per k.
pub const WINDOWS: usize = 12;
/// Windows run and dropped before the timed ones.
const WARMUP_WINDOWS: usize = 2;
/// Adds of each timing of the loop on a private line, and timings per thread.
const PRIVATE_ADDS: u64 = 4096;
const PRIVATE_TIMINGS: usize = 8;

/// k CPUs adding to one line: counts, and the line's time per hand-over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContendersPoint {
    /// CPUs adding to the line.
    pub k: usize,
    /// The k CPUs, the first k of the span order (the first opened and closed the windows).
    pub cpus: Vec<u32>,
    /// The widest distance class among the pairs of `cpus`.
    pub widest_class: PairClass,
    /// The node the line's page was bound to.
    pub home_node: u32,
    /// `move_pages` on the line's page.
    pub line: NodeCheck,
    /// The k pinned threads, in `cpus` order.
    pub threads: Vec<PinnedThread>,
    /// Timed windows.
    pub windows: usize,
    /// Adds made in the timed windows, per CPU in `cpus` order.
    pub adds: Vec<u64>,
    /// Of those adds, the ones whose previous value was not the one this CPU left.
    pub handovers: Vec<u64>,
    /// The same loop on a private line, ns per add.
    pub private_add_ns: f64,
    /// The line's time per hand-over, net, ns.
    pub handover_ns: Option<f64>,
    /// What one add costs a CPU with k adding, ns.
    pub add_ns: f64,
}

/// What one thread measured: its private loop's ns per add, per timed window its (adds,
/// hand-overs), and, for the first thread, each timed window's length, ns.
type Measured = (f64, Vec<(u64, u64)>, Vec<f64>);

impl ContendersPoint {
    /// Summarises what the threads pinned to `cpus` measured (see the fields).
    fn new(
        cpus: Vec<u32>,
        widest_class: PairClass,
        home_node: u32,
        line: NodeCheck,
        threads: Vec<PinnedThread>,
        measured: &[Measured],
    ) -> Self {
        let k = cpus.len();
        let private_add_ns = measured.iter().map(|m| m.0).sum::<f64>() / k.max(1) as f64;
        let window_ns = (measured.iter().map(|m| &m.2))
            .find(|ns| !ns.is_empty())
            .map_or(&[][..], Vec::as_slice);
        // Per CPU, the adds (or hand-overs) of every window.
        let total = |f: fn(&(u64, u64)) -> u64| -> Vec<u64> {
            (measured.iter()).map(|m| m.1.iter().map(f).sum()).collect()
        };
        // The windows' `scale` x ns per add (or hand-over), net: their trimmed mean.
        let net = |f: fn(&(u64, u64)) -> u64, scale: f64| {
            let per: Vec<f64> = (window_ns.iter().enumerate())
                .filter_map(|(w, ns)| {
                    let n: u64 = measured.iter().filter_map(|m| m.1.get(w)).map(f).sum();
                    (n > 0).then(|| scale * ns / n as f64 - private_add_ns)
                })
                .collect();
            trimmed_mean(&per, WINDOW_TRIM)
        };
        ContendersPoint {
            k,
            cpus,
            widest_class,
            home_node,
            line,
            threads,
            windows: window_ns.len(),
            adds: total(|c| c.0),
            handovers: total(|c| c.1),
            handover_ns: net(|c| c.1, 1.0),
            add_ns: net(|c| c.0, k as f64).unwrap_or(0.0),
            private_add_ns,
        }
    }
}

/// Adds to `line` until `limit` adds or until `stop` holds `tag`, whichever first.
#[inline(always)]
fn add_until(
    line: &AtomicU64,
    left: &mut u64,
    limit: u64,
    stop: &AtomicU64,
    tag: u64,
) -> (u64, u64) {
    let (mut adds, mut handovers) = (0, 0);
    while adds < limit && stop.load(Ordering::Relaxed) != tag {
        let prev = line.fetch_add(1, Ordering::Relaxed);
        handovers += u64::from(prev != *left);
        *left = prev.wrapping_add(1);
        adds += 1;
    }
    (adds, handovers)
}

/// The flags the threads share, each on its own line.
struct Shared<'a> {
    lines: [&'a AtomicU64; LINES],
    /// The first CPU's "window w started" (w + 1).
    go: CachePadded<AtomicU64>,
    /// The first CPU's "stop window w" (w + 1).
    stop: CachePadded<AtomicU64>,
    /// Each other thread's "stopped in window w" (w + 1).
    done: Vec<CachePadded<AtomicU64>>,
}

/// One thread's part: its private loop's ns per add, then per timed window its (adds, hand-overs)
/// and, for the first thread, the window's ns.
fn contender(sh: &Shared, me: usize, k: usize, timer: Timer) -> Measured {
    let ns = timer.ns_per_tick();
    // The private line, allocated on this (pinned) thread.
    let private = Box::new(CachePadded::new(AtomicU64::new(0)));
    let never = AtomicU64::new(0);
    let mut left = 0;
    add_until(&private, &mut left, PRIVATE_ADDS, &never, 1);
    let timings: Vec<f64> = (0..PRIVATE_TIMINGS)
        .map(|_| {
            let t0 = timer.start();
            add_until(&private, &mut left, PRIVATE_ADDS, &never, 1);
            timer.end().wrapping_sub(t0) as f64 * ns / PRIVATE_ADDS as f64
        })
        .collect();
    let private_ns = trimmed_mean(&timings, TIMING_TRIM).unwrap_or(0.0);
    let share = (WINDOW_ADDS / k as u64).max(MIN_OPENER_ADDS);
    let mut left = [0u64; LINES];
    let mut counts = Vec::with_capacity(WINDOWS);
    let mut window_ns = Vec::with_capacity(WINDOWS);
    for w in 0..WARMUP_WINDOWS + WINDOWS {
        let tag = w as u64 + 1;
        let l = w % LINES;
        let c = if me == 0 {
            let t0 = timer.start();
            sh.go.store(tag, Ordering::Release);
            let c = add_until(sh.lines[l], &mut left[l], share, &sh.stop, tag);
            sh.stop.store(tag, Ordering::Release);
            for d in &sh.done[1..] {
                wait_for(d, tag);
            }
            if w >= WARMUP_WINDOWS {
                window_ns.push(timer.end().wrapping_sub(t0) as f64 * ns);
            }
            c
        } else {
            wait_for(&sh.go, tag);
            let c = add_until(sh.lines[l], &mut left[l], u64::MAX, &sh.stop, tag);
            sh.done[me].store(tag, Ordering::Release);
            c
        };
        if w >= WARMUP_WINDOWS {
            counts.push(c);
        }
    }
    (private_ns, counts, window_ns)
}

/// Times [`WINDOWS`] windows of `cpus` (at least 2) adding to one line of a fresh page bound to
/// `home`, one thread pinned to each CPU; the first opens and closes every window.
pub fn measure_contenders(
    cpus: &[u32],
    widest_class: PairClass,
    home: u32,
    timer: Timer,
    allowed: &CpuList,
) -> Result<ContendersPoint, PlacementError> {
    let memory = NodeMemory::alloc(LINES * STRIDE, home, Placement::Strict)?;
    let sh = Shared {
        lines: spaced_lines(&memory, STRIDE),
        go: CachePadded::new(AtomicU64::new(0)),
        stop: CachePadded::new(AtomicU64::new(0)),
        done: (0..cpus.len()).map(|_| CachePadded::default()).collect(),
    };
    let k = cpus.len();
    let results = on_cpus(cpus, allowed, |me| contender(&sh, me, k, timer))?;
    let (threads, measured): (Vec<_>, Vec<_>) = results.into_iter().unzip();
    let line = memory.check().clone();
    let point = ContendersPoint::new(cpus.to_vec(), widest_class, home, line, threads, &measured);
    Ok(point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_add_after_another_cpus_add_is_a_hand_over() {
        let (line, stop) = (AtomicU64::new(0), AtomicU64::new(0));
        let mut left = 0;
        // Alone: five adds, the line never left this CPU.
        assert_eq!(add_until(&line, &mut left, 5, &stop, 1), (5, 0));
        assert_eq!((line.load(Ordering::Relaxed), left), (5, 5));
        // Another CPU adds 3 times: the next add finds 8, not 5 (one
        // hand-over), the one after finds what it left.
        line.fetch_add(3, Ordering::Relaxed);
        assert_eq!(add_until(&line, &mut left, 2, &stop, 1), (2, 1));
        assert_eq!(left, 10);
        // A raised stop flag stops it before any add.
        stop.store(7, Ordering::Relaxed);
        assert_eq!(add_until(&line, &mut left, 100, &stop, 7), (0, 0));
    }

    #[test]
    fn a_window_prices_its_hand_overs_net_of_the_private_adds() {
        // Two windows of 2 CPUs, private adds 5 and 7 ns (mean 6).
        // Window 1: 1000 ns, adds 40 + 40, hand-overs 30 + 30:
        //   1000 / 60 - 6 = 10.667 ns per hand-over;
        //   2 x 1000 / 80 - 6 = 19 ns per add.
        // Window 2: 2000 ns, adds 50 + 30, hand-overs 40 + 10:
        //   2000 / 50 - 6 = 34; 2 x 2000 / 80 - 6 = 44.
        // Two windows, trimmed by 10% of 2 = none: means 22.333, 31.5.
        let point = |measured: &[Measured]| {
            let line = NodeCheck::Verified { node: 0 };
            ContendersPoint::new(
                vec![0, 1],
                PairClass::SameLlc,
                0,
                line,
                Vec::new(),
                measured,
            )
        };
        let p = point(&[
            (5.0, vec![(40, 30), (50, 40)], vec![1000.0, 2000.0]),
            (7.0, vec![(40, 30), (30, 10)], Vec::new()),
        ]);
        assert_eq!((p.k, p.windows, p.private_add_ns), (2, 2, 6.0));
        assert_eq!([p.adds.clone(), p.handovers.clone()], [[90, 70], [70, 40]]);
        let h = p.handover_ns.unwrap();
        assert!((h - (1000.0 / 60.0 - 6.0 + 34.0) / 2.0).abs() < 1e-9, "{h}");
        assert!((p.add_ns - 31.5).abs() < 1e-9, "{}", p.add_ns);
        // No hand-over in any window: no price per hand-over.
        let idle = point(&[
            (5.0, vec![(10, 0); 2], vec![1000.0, 2000.0]),
            (7.0, vec![(0, 0); 2], Vec::new()),
        ]);
        assert_eq!(idle.handover_ns, None);
    }
}
