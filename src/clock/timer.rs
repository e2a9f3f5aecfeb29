//! How one operation is timed: `rdtsc`/`rdtscp` when the TSC is invariant,
//! `clock_gettime(CLOCK_MONOTONIC)` otherwise. [`Timer::for_host`] makes that choice for `contend
//! run`, `contend matrix` and the benches alike.

use super::{Clock, MonotonicClock, rdtsc, rdtscp};

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

/// Which stopwatch timed a result's operations, as result files name it (`"tsc"` or `"monotonic"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimerKind {
    /// The calibrated time-stamp counter.
    Tsc,
    /// `clock_gettime(CLOCK_MONOTONIC)`.
    Monotonic,
}

crate::named_enum!(TimerKind, "timer", [Tsc => "tsc", Monotonic => "monotonic"]);

/// The note printed and recorded when the TSC cannot time operations.
pub const TSC_FALLBACK_NOTE: &str = "TSC is not invariant (constant_tsc/nonstop_tsc missing): operations are timed with clock_gettime";

impl Timer {
    /// The stopwatch for a host: the TSC at `tsc_hz` ticks per second when it is invariant, else
    /// `CLOCK_MONOTONIC` (say [`TSC_FALLBACK_NOTE`]).
    pub fn for_host(tsc_invariant: bool, tsc_hz: f64) -> Timer {
        if tsc_invariant {
            Timer::Tsc { hz: tsc_hz }
        } else {
            Timer::Monotonic
        }
    }

    /// The timer a result file names, at the TSC frequency it recorded.
    pub fn of_kind(kind: TimerKind, tsc_hz: f64) -> Timer {
        Timer::for_host(kind == TimerKind::Tsc, tsc_hz)
    }

    /// Which kind of stopwatch this is.
    pub fn kind(self) -> TimerKind {
        match self {
            Timer::Tsc { .. } => TimerKind::Tsc,
            Timer::Monotonic => TimerKind::Monotonic,
        }
    }

    /// Ticks before the timed operation.
    #[inline(always)]
    pub fn start(self) -> u64 {
        match self {
            Timer::Tsc { .. } => {
                load_fence();
                let t = rdtsc();
                load_fence();
                t
            }
            Timer::Monotonic => MonotonicClock.now(),
        }
    }

    /// Ticks after the timed operation: `rdtscp; lfence`.
    #[inline(always)]
    pub fn end(self) -> u64 {
        match self {
            Timer::Tsc { .. } => {
                let t = rdtscp();
                load_fence();
                t
            }
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

    /// The smallest start/end difference over many empty measurements, in ticks.
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

/// `lfence`: later instructions start only after earlier ones finish.
#[inline(always)]
fn load_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: lfence has no preconditions on x86_64 (SSE2 is baseline).
    unsafe {
        core::arch::x86_64::_mm_lfence()
    };
    #[cfg(not(target_arch = "x86_64"))]
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}

/// True when this host's `/proc/cpuinfo` says the TSC is invariant (see [`tsc_is_invariant`]).
pub fn host_tsc_is_invariant() -> bool {
    tsc_is_invariant(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default())
}

/// True when `/proc/cpuinfo` text lists both `constant_tsc` and `nonstop_tsc`.
pub fn tsc_is_invariant(cpuinfo: &str) -> bool {
    let flags = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map_or("", |(_, f)| f);
    let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
    cfg!(target_arch = "x86_64") && has("constant_tsc") && has("nonstop_tsc")
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
        // Only the flags line counts.
        assert!(!tsc_is_invariant(
            "model name\t: constant_tsc nonstop_tsc\nflags\t\t: fpu tsc\n"
        ));
        assert!(!tsc_is_invariant(""));
    }

    #[test]
    fn the_host_answer_is_the_cpuinfo_flags() {
        // Read here with grep-like code of its own: both flags on the first flags line.
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let flags: Vec<&str> = cpuinfo
            .lines()
            .find(|l| l.starts_with("flags"))
            .map_or(vec![], |l| l.split_whitespace().collect());
        let want = cfg!(target_arch = "x86_64")
            && flags.contains(&"constant_tsc")
            && flags.contains(&"nonstop_tsc");
        assert_eq!(host_tsc_is_invariant(), want);
    }

    #[test]
    fn the_host_decides_the_timer_and_its_units() {
        let tsc = Timer::for_host(true, 2.5e9);
        assert_eq!(tsc, Timer::Tsc { hz: 2.5e9 });
        assert_eq!(Timer::for_host(false, 2.5e9), Timer::Monotonic);
        assert_eq!(Timer::of_kind(TimerKind::Tsc, 3e9), Timer::Tsc { hz: 3e9 });
        assert_eq!(Timer::of_kind(TimerKind::Monotonic, 3e9), Timer::Monotonic);
        assert_eq!(tsc.kind(), TimerKind::Tsc);
        assert_eq!(Timer::Monotonic.kind(), TimerKind::Monotonic);
        assert_eq!(tsc.ticks_per_sec(), 2.5e9);
        assert_eq!(tsc.ns_per_tick(), 0.4);
        assert_eq!(Timer::Monotonic.ticks_per_sec(), 1e9);
        assert_eq!(Timer::Monotonic.ns_per_tick(), 1.0);
    }

    #[test]
    fn every_reading_moves_forward_and_the_overhead_is_small() {
        let timers = [Timer::Monotonic, Timer::Tsc { hz: 1e9 }];
        for timer in timers {
            let (a, b) = (timer.start(), timer.end());
            let c = timer.end();
            assert!(a <= b && b <= c, "{timer:?}: {a} {b} {c}");
            // A sleep of 2 ms moves every reading by at least 2 ms worth of ticks (the TSC ticks at
            // least 100 MHz).
            std::thread::sleep(std::time::Duration::from_millis(2));
            let min_ticks = match timer {
                Timer::Monotonic => 2_000_000,
                Timer::Tsc { .. } => 200_000,
            };
            assert!(timer.start() - c >= min_ticks, "{timer:?} start");
            assert!(timer.end() - c >= min_ticks, "{timer:?} end");
            // The cheapest empty measurement: far under 100k ticks (a fenced TSC read pair, or a
            // vDSO call pair), and for the TSC at least 5 ticks: rdtsc, two lfences and rdtscp take
            // dozens of cycles, and the TSC ticks at the nominal clock.
            let overhead = timer.overhead_ticks();
            assert!(overhead < 100_000, "{timer:?}: {overhead} ticks");
            if timer.kind() == TimerKind::Tsc {
                assert!(overhead >= 5, "a fenced TSC pair took {overhead} ticks");
            }
        }
    }
}
