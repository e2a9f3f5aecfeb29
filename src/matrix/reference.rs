//! An independent, minimal CAS ping-pong to check the matrix against: it shares no measuring code
//! with the matrix path (its own pinning, `Box`ed atomics, `Instant` timing), only the rotation
//! over lines.

use super::measure::LINES;
use super::{taking_turns, transfer_budget};
use crate::stats::quantile_of;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

const PING: u64 = 0;
const PONG: u64 = 1;
/// Left on every line by the ping side once its budget is spent: the waiting pong side sees it as
/// its CAS's failure value, so the wait does no more work.
const STOP: u64 = 2;

/// Chunks the round trips are timed in (sixteen per line, in turn).
const CHUNKS: u64 = 16 * LINES as u64;

/// Why the reference ping-pong could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    /// Its own pinning failed.
    #[error("reference ping-pong: cannot pin to CPU {cpu} (running on {running}): {source}")]
    Pin {
        /// The CPU asked for.
        cpu: u32,
        /// Where `sched_getcpu` says the thread runs.
        running: i32,
        /// errno of `sched_setaffinity`.
        source: std::io::Error,
    },
    /// The thread runs elsewhere after a successful pin.
    #[error("reference ping-pong: pinned to CPU {cpu} but running on {running}")]
    Moved {
        /// The CPU asked for.
        cpu: u32,
        /// Where `sched_getcpu` says the thread runs.
        running: i32,
    },
    /// The partner thread could not be pinned.
    #[error("reference ping-pong: the other CPU could not be pinned")]
    OtherSide,
    /// A thread panicked.
    #[error("reference ping-pong: a thread panicked")]
    Panicked,
}

/// One atomic alone on its 64-byte line.
#[repr(align(64))]
struct PaddedWord(AtomicU64);

/// One-way latency in ns between `cpu_a` and `cpu_b`: the median chunk's time over twice its round
/// trips.
pub fn reference_pingpong(cpu_a: u32, cpu_b: u32, round_trips: u64) -> Result<f64, ReferenceError> {
    let lines: Box<[PaddedWord; LINES]> =
        Box::new(std::array::from_fn(|_| PaddedWord(AtomicU64::new(PING))));
    let lines: Vec<&AtomicU64> = lines.iter().map(|l| &l.0).collect();
    median_chunk(cpu_a, cpu_b, round_trips, &lines, CHUNKS)
}

/// One-way latency in ns between `cpu_a` and `cpu_b` on `line` alone (its L3 slice's price), timed
/// as [`reference_pingpong`] in [`LINE_CHUNKS`] chunks.
pub fn line_pingpong(
    cpu_a: u32,
    cpu_b: u32,
    line: &AtomicU64,
    round_trips: u64,
) -> Result<f64, ReferenceError> {
    median_chunk(cpu_a, cpu_b, round_trips, &[line], LINE_CHUNKS)
}

/// The median chunk's one-way ns of [`timed_chunks`] within their [`chunks_budget`].
fn median_chunk(
    a: u32,
    b: u32,
    round_trips: u64,
    lines: &[&AtomicU64],
    chunks: u64,
) -> Result<f64, ReferenceError> {
    let budget = chunks_budget(round_trips, chunks);
    let (_, one_way) = timed_chunks(a, b, round_trips, lines, chunks, budget)?;
    Ok(quantile_of(&one_way, 0.5))
}

/// Chunks [`line_pingpong`] times its round trips in.
pub const LINE_CHUNKS: u64 = 16;

/// The line chunk `c` of `lines` runs on.
fn line_of(c: u64, lines: usize) -> usize {
    c as usize % lines
}

/// Round trips of warm-up on the first line before `round_trips` timed ones: a tenth as many.
fn warmup_of(round_trips: u64) -> u64 {
    round_trips / 10
}

/// The [`transfer_budget`] of `round_trips` CAS round trips timed in `chunks` chunks.
fn chunks_budget(round_trips: u64, chunks: u64) -> Duration {
    let chunk = (round_trips / chunks).max(1);
    transfer_budget(2 * (warmup_of(round_trips) + chunk * chunks))
}

/// Times `chunks` chunks of `round_trips / chunks` CAS round trips (at least one each) over
/// `lines`: the round trips per chunk and each chunk's one-way ns, in order.
fn timed_chunks(
    cpu_a: u32,
    cpu_b: u32,
    round_trips: u64,
    lines: &[&AtomicU64],
    chunks: u64,
    budget: Duration,
) -> Result<(u64, Vec<f64>), ReferenceError> {
    let pp = PingPong {
        lines,
        chunk: (round_trips / chunks).max(1),
        chunks,
        warmup: warmup_of(round_trips),
        budget,
        start: Barrier::new(2),
        failed: AtomicBool::new(false),
    };
    let result = std::thread::scope(|s| {
        let pong = s.spawn(|| pp.pong(cpu_b));
        let ping = s.spawn(|| pp.ping(cpu_a));
        let ping = ping.join().map_err(|_| ReferenceError::Panicked)?;
        let pong = pong.join().map_err(|_| ReferenceError::Panicked)?;
        // The side that failed to pin names its CPU; its partner only knows
        // that the other side failed.
        match (ping, pong) {
            (Ok(one_way_ns), Ok(())) => Ok((pp.chunk, one_way_ns)),
            (Err(ReferenceError::OtherSide), Err(e)) | (Err(e), _) | (_, Err(e)) => Err(e),
        }
    });
    for line in lines {
        line.store(PING, Ordering::Relaxed);
    }
    result
}

/// One timed ping-pong: its lines, its chunks and the start both sides wait at.
struct PingPong<'a> {
    lines: &'a [&'a AtomicU64],
    /// Round trips per chunk.
    chunk: u64,
    chunks: u64,
    /// Round trips of warm-up, on the first line.
    warmup: u64,
    budget: Duration,
    start: Barrier,
    /// Set by a side that could not pin.
    failed: AtomicBool,
}

impl PingPong<'_> {
    /// Pins to `cpu` and waits for the partner; an error when either side could not pin.
    fn pin_then_wait(&self, cpu: u32) -> Result<(), ReferenceError> {
        let pinned = pin(cpu);
        if pinned.is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
        self.start.wait();
        pinned?;
        if self.failed.load(Ordering::Relaxed) {
            return Err(ReferenceError::OtherSide);
        }
        Ok(())
    }

    /// Swaps `from` for `to` on chunk `c`'s line once the partner has left `from` there.
    fn swap(&self, c: u64, from: u64, to: u64) -> bool {
        let flag = self.lines[line_of(c, self.lines.len())];
        loop {
            match flag.compare_exchange(from, to, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(STOP) => return false,
                Err(_) => {}
            }
        }
    }

    /// The side that answers each swap, until the ping side stops.
    fn pong(&self, cpu: u32) -> Result<(), ReferenceError> {
        self.pin_then_wait(cpu)?;
        for _ in 0..self.warmup {
            if !self.swap(0, PONG, PING) {
                return Ok(());
            }
        }
        for c in 0..self.chunks {
            for _ in 0..self.chunk {
                if !self.swap(c, PONG, PING) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The side that times: the warm-up, then each chunk's one-way ns.
    fn ping(&self, cpu: u32) -> Result<Vec<f64>, ReferenceError> {
        self.pin_then_wait(cpu)?;
        let started = Instant::now();
        let spent = || started.elapsed() > self.budget;
        // A warm-up cut short leaves the pong side's warm-up swaps on chunk
        // 0's line to pair with this side's first chunk, so that chunk is
        // the last: the pong side is out of step for the next.
        let mut cut = false;
        for i in 0..self.warmup {
            self.swap(0, PING, PONG);
            if i % 64 == 63 && spent() {
                cut = true;
                break;
            }
        }
        let mut one_way = Vec::new();
        for c in 0..self.chunks {
            // Past the budget, stop once the chunks' median says the time
            // went to taking turns, not to a preemption or two.
            if c > 0 && (cut || spent() && taking_turns(&one_way)) {
                break;
            }
            let t = Instant::now();
            for _ in 0..self.chunk {
                self.swap(c, PING, PONG);
            }
            one_way.push(t.elapsed().as_nanos() as f64 / (2 * self.chunk) as f64);
        }
        for line in self.lines {
            line.store(STOP, Ordering::Release);
        }
        Ok(one_way)
    }
}

/// Pins the calling thread to `cpu` and checks `sched_getcpu`.
fn pin(cpu: u32) -> Result<(), ReferenceError> {
    let bits = libc::c_ulong::BITS as usize;
    let mut mask = vec![0 as libc::c_ulong; (cpu as usize / bits + 1).max(1024 / bits)];
    mask[cpu as usize / bits] |= 1 << (cpu as usize % bits);
    // SAFETY: the kernel reads exactly the mask's bytes.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_sched_setaffinity,
            0,
            std::mem::size_of_val(mask.as_slice()),
            mask.as_ptr(),
        )
    };
    let err = std::io::Error::last_os_error();
    // SAFETY: no preconditions.
    let now = unsafe { libc::sched_getcpu() };
    if rc != 0 {
        return Err(ReferenceError::Pin {
            cpu,
            running: now,
            source: err,
        });
    }
    if now != cpu as i32 {
        return Err(ReferenceError::Moved { cpu, running: now });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::topology::two_allowed_cpus as two_cpus;

    #[test]
    fn chunks_split_the_round_trips_over_256_chunks_of_16_lines() {
        let (a, b) = two_cpus();
        let words: [AtomicU64; LINES] = Default::default();
        let lines: Vec<&AtomicU64> = words.iter().collect();
        let started = Instant::now();
        // Unbounded: a test beside it pinned to the same CPUs makes both
        // take turns, which is the bound's business, not this test's.
        let all = std::time::Duration::MAX;
        let (round_trips, one_way) = timed_chunks(a, b, 256 * 1000, &lines, CHUNKS, all).unwrap();
        let wall_ns = started.elapsed().as_nanos() as f64;
        assert_eq!((round_trips, one_way.len()), (1000, 256));
        assert!(one_way.iter().all(|&ns| ns > 0.0));
        // Each chunk's one-way ns × 2 × its round trips is its time; the
        // chunks run inside the call, after a warm-up a tenth their size
        // and two pins (0.85-0.98 of the call, here): a one-way time off
        // by 2× shows.
        let chunks_ns: f64 = one_way.iter().map(|ns| ns * 2000.0).sum();
        assert!(
            chunks_ns <= wall_ns && chunks_ns >= 0.2 * wall_ns,
            "chunks took {chunks_ns} ns of the call's {wall_ns}"
        );
        // Fewer round trips than chunks: one round trip each.
        let (round_trips, one_way) = timed_chunks(a, b, 100, &lines, CHUNKS, all).unwrap();
        assert_eq!((round_trips, one_way.len()), (1, 256));
        // Every line is back at PING: a counter's slot measured in place
        // keeps its value.
        assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == PING));
        assert!(reference_pingpong(a, b, 256 * 4).unwrap() > 0.0);
    }

    #[test]
    fn a_spent_budget_stops_only_chunks_that_took_turns_and_restores_the_lines() {
        let (a, b) = two_cpus();
        let words: [AtomicU64; LINES] = Default::default();
        let lines: Vec<&AtomicU64> = words.iter().collect();
        // A budget spent from the start cuts the warm-up (2,560 round
        // trips) after 64, and so ends after the first chunk: the pong
        // side is out of step for the next.
        let none = std::time::Duration::ZERO;
        let (round_trips, one_way) = timed_chunks(a, b, 256 * 100, &lines, CHUNKS, none).unwrap();
        assert_eq!((round_trips, one_way.len()), (100, 1));
        assert!(one_way[0] > 0.0);
        assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == PING));
        // Without a warm-up (9 round trips: none), the same spent budget
        // stops no chunk on two CPUs: their median is a cache's, ns, not a
        // scheduler's.
        let (round_trips, one_way) = timed_chunks(a, b, 9, &lines, CHUNKS, none).unwrap();
        assert_eq!((round_trips, one_way.len()), (1, 256));
        assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == PING));
        // Both threads on one CPU take turns: every hand-over waits for
        // the scheduler (a time slice, ms), as when a hypervisor runs both
        // vCPUs on one host CPU. 2,048 round trips would take seconds;
        // their budget (2 × 2,252 transfers at 10 µs, 45 ms) stops the
        // warm-up, then the chunks after the first (its one-way ns a
        // scheduler's, ms), and the median says what the hand-overs cost.
        let budget = chunks_budget(256 * 8, CHUNKS);
        let (_, stacked) = timed_chunks(a, a, 256 * 8, &lines, CHUNKS, budget).unwrap();
        assert!(stacked.len() < CHUNKS as usize / 2, "{}", stacked.len());
        let median = quantile_of(&stacked, 0.5);
        let scheduled = crate::matrix::SCHEDULED_TRANSFER_NS as f64;
        assert!(median > scheduled, "{median}");
        assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == PING));
    }

    #[test]
    fn consecutive_chunks_take_consecutive_lines() {
        let lines: Vec<usize> = (0..2 * LINES as u64).map(|c| line_of(c, LINES)).collect();
        let once: Vec<usize> = (0..LINES).collect();
        assert_eq!(lines, [once.clone(), once].concat());
        assert!((0..5).all(|c| line_of(c, 1) == 0));
        assert_eq!((warmup_of(1024), warmup_of(9)), (102, 0));
    }

    #[test]
    fn a_line_ping_pong_times_its_chunks_on_that_line_and_leaves_it_at_zero() {
        let (a, b) = two_cpus();
        let word = AtomicU64::new(0);
        let all = std::time::Duration::MAX;
        let (round_trips, one_way) =
            timed_chunks(a, b, 16 * 500, &[&word], LINE_CHUNKS, all).unwrap();
        assert_eq!((round_trips, one_way.len()), (500, 16));
        assert_eq!(word.load(Ordering::Relaxed), 0);
        // The same line on the same CPUs a moment later: within 2× of
        // its chunks' median (a line's price moves 55-115 ns only from
        // line to line).
        let chunks = quantile_of(&one_way, 0.5);
        let ns = line_pingpong(a, b, &word, 16 * 500).unwrap();
        assert!(
            ns > chunks / 2.0 && ns < 2.0 * chunks,
            "{ns} against {chunks}"
        );
        assert_eq!(word.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_cpu_that_cannot_be_pinned_is_named() {
        let (a, _) = two_cpus();
        let (ab, ba) = (
            reference_pingpong(a, 4095, 256),
            reference_pingpong(4095, a, 256),
        );
        for err in [ab.unwrap_err(), ba.unwrap_err(), pin(4095).unwrap_err()] {
            assert!(
                matches!(err, ReferenceError::Pin { cpu: 4095, .. }),
                "{err:?}"
            );
            assert!(err.to_string().contains("cannot pin to CPU 4095"), "{err}");
        }
        pin(a).unwrap();
    }
}
