//! One pair's measurement: fresh node-bound lines, two verified pinned threads, a hand-off timed in
//! batches in each direction.

use crate::clock::Timer;
use crate::placement::pin_current_thread;
use crate::placement::{NodeCheck, NodeMemory, PinnedThread, Placement, PlacementError};
use crate::topology::CpuList;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// How the two threads pass the line back and forth.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// CAS ping-pong: the initiator waits for 2k and CASes it to 2k+1, the responder waits for 2k+1
    /// and CASes it to 2k+2.
    #[default]
    Cas,
    /// Flag hand-off with plain loads and stores.
    Rw,
}

crate::named_enum!(Mode, "mode", [Cas => "cas", Rw => "rw"]);

/// How a pair's samples are taken.
#[derive(Debug, Clone, Copy)]
pub struct Procedure {
    /// Cas or rw.
    pub mode: Mode,
    /// Timed samples per direction.
    pub samples: usize,
    /// Round trips per sample (a sample is one batch, timed as a whole).
    pub round_trips: u64,
    /// Batches run and discarded before the timed ones, per direction.
    pub warmup_samples: usize,
    /// The stopwatch (calibrated TSC, or CLOCK_MONOTONIC).
    pub timer: Timer,
}

/// What one pair's measurement produced.
#[derive(Debug)]
pub struct PairSamples {
    /// The two threads: the one pinned to the pair's lower CPU first.
    pub threads: [PinnedThread; 2],
    /// Where the page holding the lines was verified to be.
    pub line: NodeCheck,
    /// One-way ns per sample with the lower CPU initiating.
    pub forward: Vec<f64>,
    /// One-way ns per sample with the higher CPU initiating.
    pub backward: Vec<f64>,
    /// Net ns samples of each coherence transaction, both CPUs timing.
    pub transactions: super::TransactionSamples,
}

/// CAS turn: spins on the CAS until the line goes from `expect` to `expect + 1`.
#[inline(always)]
fn cas_turn(line: &AtomicU64, expect: u64) {
    while line
        .compare_exchange(expect, expect + 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_err()
    {}
}

/// Load/store turn: spins on loads until the line holds `expect`, then stores `expect + 1`.
#[inline(always)]
fn rw_turn(line: &AtomicU64, expect: u64) {
    while line.load(Ordering::Acquire) != expect {}
    line.store(expect + 1, Ordering::Release);
}

/// Lines of the pair's page that samples rotate through (64-byte lines, the first KiB).
pub const LINES: usize = 16;

/// Bytes between rotated lines.
const LINE_BYTES: usize = 64;

/// Bytes the rotated lines span.
const ROTATION_BYTES: usize = LINES * LINE_BYTES;

/// The lines both threads use, and how many round trips each has seen.
struct Rotation<'a> {
    lines: [&'a AtomicU64; LINES],
    rounds: [u64; LINES],
}

impl Rotation<'_> {
    /// The line of sample `s` and the (even) value it holds before it.
    fn at(&self, s: usize) -> (&AtomicU64, u64) {
        let l = s % LINES;
        (self.lines[l], 2 * self.rounds[l])
    }

    /// Records `n` finished round trips on sample `s`'s line.
    fn done(&mut self, s: usize, n: u64) {
        self.rounds[s % LINES] += n;
    }
}

/// The initiating side: for each sample, on the next line, takes turns base→base+1, base+2→base+3,
/// … `round_trips` times, then waits to see the last answer.
#[inline(always)]
fn initiate(rot: &mut Rotation<'_>, p: &Procedure, turn: impl Fn(&AtomicU64, u64)) -> Vec<f64> {
    let batches = p.warmup_samples + p.samples;
    let ns_per_tick = p.timer.ns_per_tick();
    let mut out = Vec::with_capacity(batches);
    let mut t0 = p.timer.end();
    for s in 0..batches {
        let (line, base) = rot.at(s);
        for k in 0..p.round_trips {
            turn(line, base + 2 * k);
        }
        let last = base + 2 * p.round_trips;
        while line.load(Ordering::Acquire) != last {}
        rot.done(s, p.round_trips);
        let t1 = p.timer.end();
        out.push(t1.wrapping_sub(t0) as f64 * ns_per_tick / (2 * p.round_trips) as f64);
        t0 = t1;
    }
    out.split_off(p.warmup_samples)
}

/// The responding side: answers base+1→base+2, … on each sample's line.
#[inline(always)]
fn respond(rot: &mut Rotation<'_>, p: &Procedure, turn: impl Fn(&AtomicU64, u64)) {
    for s in 0..p.warmup_samples + p.samples {
        let (line, base) = rot.at(s);
        for k in 0..p.round_trips {
            turn(line, base + 2 * k + 1);
        }
        rot.done(s, p.round_trips);
    }
}

/// One side of a pair: initiates then responds (`first`) or responds then initiates.
fn one_side<F: Fn(&AtomicU64, u64) + Copy>(
    rot: &mut Rotation<'_>,
    first: bool,
    p: &Procedure,
    turn: F,
) -> Vec<f64> {
    if first {
        let samples = initiate(rot, p, turn);
        respond(rot, p, turn);
        samples
    } else {
        respond(rot, p, turn);
        initiate(rot, p, turn)
    }
}

/// [`LINES`] atomics `stride` bytes apart (a multiple of 64) from the start of `memory`, which must
/// hold them all.
pub(super) fn spaced_lines(memory: &NodeMemory, stride: usize) -> [&AtomicU64; LINES] {
    assert!(stride % LINE_BYTES == 0 && memory.bytes() >= LINES * stride);
    // SAFETY: every offset is 64-byte aligned and inside the mapping (just
    // checked), which outlives the borrows; fresh pages hold zeros, which
    // are valid AtomicU64s.
    std::array::from_fn(|l| unsafe { &*memory.as_ptr().add(l * stride).cast::<AtomicU64>() })
}

/// Measures the pair `(a, b)` on a fresh page bound to `home`, `a` initiating, then `b`.
pub fn measure_pair(
    a: u32,
    b: u32,
    home: u32,
    p: &Procedure,
    allowed: &CpuList,
) -> Result<PairSamples, PlacementError> {
    let memory = NodeMemory::alloc(ROTATION_BYTES, home, Placement::Strict)?;
    let lines = spaced_lines(&memory, LINE_BYTES);
    let [(pin_a, forward), (pin_b, backward)] = on_pair(a, b, allowed, |me| {
        let mut rot = Rotation {
            lines,
            rounds: [0; LINES],
        };
        match p.mode {
            Mode::Cas => one_side(&mut rot, me == 0, p, cas_turn),
            Mode::Rw => one_side(&mut rot, me == 0, p, rw_turn),
        }
    })?;
    Ok(PairSamples {
        threads: [pin_a, pin_b],
        line: memory.check().clone(),
        forward,
        backward,
        transactions: Vec::new(),
    })
}

/// Runs `work(0)` on a thread pinned to `a` and `work(1)` on one pinned to `b`.
pub(super) fn on_pair<T: Send>(
    a: u32,
    b: u32,
    allowed: &CpuList,
    work: impl Fn(usize) -> T + Sync,
) -> Result<[(PinnedThread, T); 2], PlacementError> {
    let both = on_cpus(&[a, b], allowed, work)?;
    Ok(<[_; 2]>::try_from(both).unwrap_or_else(|_| unreachable!("one entry per CPU")))
}

/// Runs `work(i)` on a thread pinned to `cpus[i]`, for every `i`, each pin verified, all starting
/// together once all are pinned; a pin that fails stops them all before any work and is the error.
pub(super) fn on_cpus<T: Send>(
    cpus: &[u32],
    allowed: &CpuList,
    work: impl Fn(usize) -> T + Sync,
) -> Result<Vec<(PinnedThread, T)>, PlacementError> {
    let ready = Barrier::new(cpus.len());
    let failed = AtomicBool::new(false);
    let side = |cpu: u32, me: usize| {
        let pin = pin_current_thread(cpu, allowed, Placement::Strict);
        if pin.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        ready.wait();
        let pin = pin?;
        // Another thread's pin failed: no work.
        Ok((!failed.load(Ordering::Relaxed)).then(|| (pin, work(me))))
    };
    let results: Vec<Result<Option<(PinnedThread, T)>, PlacementError>> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .enumerate()
            .map(|(me, &cpu)| s.spawn(move || side(cpu, me)))
            .collect();
        let join = |h: std::thread::ScopedJoinHandle<'_, _>| {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
        };
        handles.into_iter().map(join).collect()
    });
    // A failed pin is the error; then every thread worked, and callers read who is who by position.
    let done: Vec<Option<(PinnedThread, T)>> = results.into_iter().collect::<Result<_, _>>()?;
    let worked = |d: Option<_>| d.expect("every pin succeeded, so every thread worked");
    Ok(done.into_iter().map(worked).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timer;
    use crate::topology::Topology;
    use std::path::Path;

    #[test]
    fn samples_rotate_through_consecutive_64_byte_lines() {
        let topo = Topology::read(Path::new("/")).unwrap();
        let home = topo.node_of_cpu(topo.allowed_cpus.to_vec()[0]).unwrap();
        let memory = NodeMemory::alloc(ROTATION_BYTES, home, Placement::Strict).unwrap();
        let start = memory.as_ptr() as usize;
        let offsets: Vec<usize> = spaced_lines(&memory, LINE_BYTES)
            .iter()
            .map(|l| *l as *const AtomicU64 as usize - start)
            .collect();
        assert_eq!(offsets, (0..LINES).map(|l| l * 64).collect::<Vec<_>>());
    }

    #[test]
    fn samples_add_up_to_the_time_their_batches_took() {
        // One thread plays both sides: each turn spins 2 µs and writes the
        // responder's answer itself. With no warm-up the samples cover the
        // whole call, so their one-way ns × 2 × round trips, summed, is its
        // wall time whatever the load (to the TSC calibration's error, well
        // under 1%). Needs a TSC well away from 1 GHz, where a missing
        // ns-per-tick factor would not show.
        let hz = crate::clock::calibrate_tsc(std::time::Duration::from_millis(50));
        assert!((hz / 1e9 - 1.0).abs() > 0.2, "TSC at {hz} Hz");
        let p = Procedure {
            mode: Mode::Cas,
            samples: 20,
            round_trips: 100,
            warmup_samples: 0,
            timer: Timer::Tsc { hz },
        };
        let atomics: [AtomicU64; LINES] = Default::default();
        let mut rot = Rotation {
            lines: std::array::from_fn(|l| &atomics[l]),
            rounds: [0; LINES],
        };
        let started = std::time::Instant::now();
        let samples = initiate(&mut rot, &p, |line, expect| {
            let t = std::time::Instant::now();
            while t.elapsed().as_nanos() < 2_000 {}
            line.store(expect + 2, Ordering::Release);
        });
        let wall_ns = started.elapsed().as_nanos() as f64;
        assert_eq!(samples.len(), 20);
        let covered_ns: f64 = samples.iter().map(|ns| ns * 200.0).sum();
        assert!(
            (0.98..=1.01).contains(&(covered_ns / wall_ns)),
            "samples cover {covered_ns} ns of {wall_ns}"
        );
        // Every line saw 20 × 100 / 16 round trips, in turn.
        assert_eq!(rot.rounds.iter().sum::<u64>(), 2000);
        let rounds = rot.rounds;
        assert!(rounds.iter().all(|&r| r == 100 || r == 200), "{rounds:?}");
    }
}
