//! How one operation is timed: `rdtsc`/`rdtscp` when the TSC is invariant,
//! `clock_gettime(CLOCK_MONOTONIC)` otherwise.

use crate::clock::{Clock, MonotonicClock, rdtsc, rdtscp};

/// The stopwatch for sampled operations and rate pacing.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Timer {
    /// TSC ticks (invariant TSC), converted at the calibrated frequency.
    Tsc {
        /// Calibrated TSC frequency, ticks per second.
        hz: f64,
    },
    /// Nanoseconds from CLOCK_MONOTONIC (TSC not invariant here).
    Monotonic,
}

impl Timer {
    /// Ticks before the timed operation.
    #[inline(always)]
    pub fn start(self) -> u64 {
        match self {
            Timer::Tsc { .. } => rdtsc(),
            Timer::Monotonic => MonotonicClock.now(),
        }
    }

    /// Ticks after the timed operation (`rdtscp` waits for it to finish).
    #[inline(always)]
    pub fn end(self) -> u64 {
        match self {
            Timer::Tsc { .. } => rdtscp(),
            Timer::Monotonic => MonotonicClock.now(),
        }
    }

    /// Ticks per second.
    pub fn ticks_per_sec(self) -> f64 {
        match self {
            Timer::Tsc { hz } => hz,
            Timer::Monotonic => 1e9,
        }
    }

    /// Nanoseconds per tick.
    pub fn ns_per_tick(self) -> f64 {
        1e9 / self.ticks_per_sec()
    }

    /// The smallest start/end difference over many empty measurements, in
    /// ticks: the timer's own cost, subtracted from every sample.
    pub fn overhead_ticks(self) -> u64 {
        (0..10_000)
            .map(|_| {
                let t0 = self.start();
                self.end().wrapping_sub(t0)
            })
            .min()
            .unwrap_or(0)
    }
}

/// True when `/proc/cpuinfo` text lists both `constant_tsc` and
/// `nonstop_tsc`: the TSC ticks at one rate in every P- and C-state and so
/// can time operations.
pub fn tsc_is_invariant(cpuinfo: &str) -> bool {
    let flags = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map_or("", |(_, f)| f);
    let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
    cfg!(target_arch = "x86_64") && has("constant_tsc") && has("nonstop_tsc")
}

/// Holds a thread to at most a given number of operations per second
/// (`--rate`), without bursting to catch up after a stall.
#[derive(Debug, Clone, Copy)]
pub struct Pacer {
    timer: Timer,
    interval: u64,
    next_due: u64,
}

impl Pacer {
    /// A pacer for `rate` operations per second.
    pub fn new(timer: Timer, rate: f64) -> Self {
        Self {
            timer,
            interval: (timer.ticks_per_sec() / rate).max(1.0) as u64,
            next_due: 0,
        }
    }

    /// Waits until the next operation is due.
    #[inline(always)]
    pub fn wait(&mut self) {
        let mut now = self.timer.start();
        while now < self.next_due {
            std::hint::spin_loop();
            now = self.timer.start();
        }
        self.next_due = now.max(self.next_due) + self.interval;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invariant_tsc_needs_both_flags() {
        assert!(tsc_is_invariant(
            "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n"
        ));
        assert!(!tsc_is_invariant("flags\t\t: fpu tsc constant_tsc\n"));
        assert!(!tsc_is_invariant("flags\t\t: fpu tsc nonstop_tsc_s3\n"));
    }

    #[test]
    fn pacer_holds_the_rate() {
        let timer = Timer::Monotonic;
        let mut pacer = Pacer::new(timer, 10_000.0); // every 100 us
        let t0 = std::time::Instant::now();
        for _ in 0..101 {
            pacer.wait();
        }
        let elapsed = t0.elapsed().as_secs_f64();
        assert!(elapsed >= 0.0099, "101 ops at 10k/s took {elapsed} s");
    }
}
