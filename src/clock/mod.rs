//! The clocks a ratelimit can read, and what one read costs.

mod timer;

pub use timer::{TSC_FALLBACK_NOTE, Timer, TimerKind, host_tsc_is_invariant, tsc_is_invariant};

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Gives an enum of named values `ALL`, `name()`, `FromStr` and `Display` from one table.
#[macro_export]
macro_rules! named_enum {
    ($ty:ident, $what:literal, [$($v:ident => $name:literal),+ $(,)?]) => {
        impl $ty {
            /// Every value, in the order tables and errors list them.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$v),+];

            /// The name used on the command line and in results.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$v => $name),+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::error::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let names = Self::ALL.map(Self::name);
                Self::ALL
                    .into_iter()
                    .find(|k| k.name() == s)
                    .ok_or_else(|| $crate::error::UnknownName::new($what, s, names))
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

/// A monotonic clock read on the update path.
pub trait Clock: Send + Clone {
    /// The current time in ticks.
    fn now(&self) -> u64;
    /// Ticks per second: 1e9 for the nanosecond clocks; the calibrated TSC frequency for `tsc`.
    fn ticks_per_sec(&self) -> f64 {
        1e9
    }
    /// A duration in this clock's ticks (rounded down).
    fn ticks(&self, d: Duration) -> u64 {
        (d.as_secs_f64() * self.ticks_per_sec()) as u64
    }
}

/// Which clock a ratelimit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockKind {
    /// `rdtsc`: the cheapest, like `sched_clock()` on x86 with a stable TSC.
    Tsc,
    /// `clock_gettime(CLOCK_MONOTONIC)` through the vDSO.
    Monotonic,
    /// `clock_gettime(CLOCK_MONOTONIC_COARSE)`: tick resolution, no TSC read.
    Coarse,
}

crate::named_enum!(ClockKind, "clock", [Tsc => "tsc", Monotonic => "monotonic", Coarse => "coarse"]);

/// Reads the time-stamp counter (on other architectures, a stand-in: the monotonic clock in
/// nanoseconds).
#[inline(always)]
pub fn rdtsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: rdtsc has no preconditions on x86_64.
    let ticks = unsafe { core::arch::x86_64::_rdtsc() };
    #[cfg(not(target_arch = "x86_64"))]
    let ticks = clock_ns(libc::CLOCK_MONOTONIC);
    ticks
}

/// Reads the TSC after all earlier instructions have executed.
#[inline(always)]
pub fn rdtscp() -> u64 {
    #[cfg(target_arch = "x86_64")]
    let ticks = {
        let mut aux = 0u32;
        // SAFETY: rdtscp has no preconditions on x86_64 CPUs that have it
        // (every x86_64 server CPU since 2008).
        unsafe { core::arch::x86_64::__rdtscp(&mut aux) }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let ticks = rdtsc();
    ticks
}

#[inline(always)]
fn clock_ns(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec; the clock ids used always exist.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Measures the TSC frequency against CLOCK_MONOTONIC over `window`, in ticks per second.
pub fn calibrate_tsc(window: Duration) -> f64 {
    let start_instant = Instant::now();
    let start_tsc = rdtsc();
    while start_instant.elapsed() < window {
        std::hint::spin_loop();
    }
    let ticks = rdtsc().wrapping_sub(start_tsc);
    ticks as f64 / start_instant.elapsed().as_secs_f64()
}

/// Timings of spins of 0 to 63 iterations [`tsc_step`] takes, each between two [`rdtsc`] reads.
const STEP_SAMPLES: usize = 64 * 256;

/// The share of the timings a delta must make, in %, to count towards [`resolution_of`]'s divisor.
const STEP_COMMON_PCT: f64 = 2.0;

/// The TSC's resolution on this host, in ticks.
pub fn tsc_step() -> u64 {
    step_of(rdtsc)
}

/// The step of the counter `read` returns.
fn step_of(mut read: impl FnMut() -> u64) -> u64 {
    let mut deltas = Vec::with_capacity(STEP_SAMPLES);
    for i in 0..STEP_SAMPLES {
        let spins = i % 64;
        let start = read();
        let mut x = 0u64;
        for k in 0..spins {
            x = std::hint::black_box(x.wrapping_add(k as u64));
        }
        std::hint::black_box(x);
        deltas.push(read().wrapping_sub(start));
    }
    resolution_of(&deltas)
}

/// The step `deltas` (ticks between two reads) are made of.
pub fn resolution_of(deltas: &[u64]) -> u64 {
    let mut counts: std::collections::BTreeMap<u64, usize> = Default::default();
    for &d in deltas {
        *counts.entry(d).or_default() += 1;
    }
    let common = counts
        .iter()
        .filter(|&(&d, &n)| d > 0 && 100.0 * n as f64 >= STEP_COMMON_PCT * deltas.len() as f64)
        .map(|(&d, _)| d);
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    common.reduce(gcd).unwrap_or(1)
}

/// A busy delay of a calibrated length (`--inject`): a chain of dependent multiplies that starts
/// from a value the work under test produced ([`Spin::run_after`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spin {
    /// Multiplies in the chain (0: no delay, not even the fence).
    pub iterations: u64,
}

/// Multiplies a calibration times, per try.
const SPIN_CALIBRATION: u64 = 200_000;

impl Spin {
    /// The chain nearest `ns` on this core, and what one multiply took (ns).
    pub fn calibrate(ns: f64) -> (Spin, f64) {
        let per = (0..5)
            .map(|_| {
                let start = Instant::now();
                Spin {
                    iterations: SPIN_CALIBRATION,
                }
                .run_after(0);
                start.elapsed().as_secs_f64() * 1e9 / SPIN_CALIBRATION as f64
            })
            .fold(f64::INFINITY, f64::min);
        let iterations = (ns / per).round().max(1.0) as u64;
        (Spin { iterations }, per)
    }

    /// Runs the delay once `after` is known: the chain starts from it.
    #[inline(always)]
    pub fn run_after(self, after: u64) {
        if self.iterations == 0 {
            return;
        }
        let mut x = after & std::hint::black_box(0u64);
        for _ in 0..self.iterations {
            // One multiply the compiler cannot fold into its neighbours (plain `wrapping_mul`s by a
            // constant reassociate into one multiply per unrolled block).
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a register multiply; no memory, no stack.
            unsafe {
                core::arch::asm!(
                    "imul {x}, {k}",
                    x = inout(reg) x,
                    k = in(reg) 0x9E37_79B9_7F4A_7C15u64,
                    options(pure, nomem, nostack)
                )
            };
            #[cfg(not(target_arch = "x86_64"))]
            {
                x = std::hint::black_box(x.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            }
        }
        std::hint::black_box(x);
    }
}

/// The TSC, converted with a calibrated frequency.
#[derive(Debug, Clone, Copy)]
pub struct TscClock {
    /// Calibrated TSC frequency in ticks per second.
    pub hz: f64,
}

impl Clock for TscClock {
    #[inline(always)]
    fn now(&self) -> u64 {
        rdtsc()
    }
    fn ticks_per_sec(&self) -> f64 {
        self.hz
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct MonotonicClock;

impl Clock for MonotonicClock {
    #[inline(always)]
    fn now(&self) -> u64 {
        clock_ns(libc::CLOCK_MONOTONIC)
    }
}

/// `CLOCK_MONOTONIC_COARSE` in nanoseconds (advances once per kernel tick).
#[derive(Debug, Clone, Copy, Default)]
pub struct CoarseClock;

impl Clock for CoarseClock {
    #[inline(always)]
    fn now(&self) -> u64 {
        clock_ns(libc::CLOCK_MONOTONIC_COARSE)
    }
}

/// A clock tests move by hand, in nanoseconds; clones share the time.
#[derive(Debug, Clone, Default)]
pub struct FakeClock(std::sync::Arc<AtomicU64>);

impl FakeClock {
    /// Moves the time forward by `ns`.
    pub fn advance(&self, ns: u64) {
        self.0.fetch_add(ns, Ordering::Relaxed);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Mean cost of one read of `clock` in nanoseconds, over `reads` reads timed with `Instant`.
pub fn read_cost_ns<C: Clock>(clock: &C, reads: u32) -> f64 {
    let start = Instant::now();
    let mut sink = 0u64;
    for _ in 0..reads {
        sink = sink.wrapping_add(std::hint::black_box(clock.now()));
    }
    std::hint::black_box(sink);
    start.elapsed().as_nanos() as f64 / f64::from(reads.max(1))
}

/// Mean cost of one read of the ratelimit clock `kind`, ns (over 200k reads).
pub fn clock_read_cost(kind: ClockKind, tsc_hz: f64) -> f64 {
    const READS: u32 = 200_000;
    match kind {
        ClockKind::Tsc => read_cost_ns(&TscClock { hz: tsc_hz }, READS),
        ClockKind::Monotonic => read_cost_ns(&MonotonicClock, READS),
        ClockKind::Coarse => read_cost_ns(&CoarseClock, READS),
    }
}

#[cfg(test)]
mod tests {
    use super::{Spin, resolution_of, step_of};

    #[test]
    fn a_spin_is_calibrated_to_the_multiplies_nearest_its_length() {
        let (spin, per) = Spin::calibrate(40.0);
        assert!(per > 0.0 && per.is_finite(), "{per}");
        assert_eq!(spin.iterations, (40.0 / per).round().max(1.0) as u64);
        // Ten times the length, ten times the chain (within rounding of its own calibration).
        let (long, per_long) = Spin::calibrate(400.0);
        assert_eq!(long.iterations, (400.0 / per_long).round() as u64);
        // Under one multiply still runs one.
        assert_eq!(Spin::calibrate(1e-6).0.iterations, 1);
        Spin::default().run_after(0);
    }

    #[test]
    fn the_step_is_the_divisor_of_the_common_deltas() {
        // A counter that ticks every cycle: spins of 0..64 iterations read 20..=83 ticks, each as
        // often: the step is 1.
        let dense: Vec<u64> = (0..6400).map(|i| 20 + i % 64).collect();
        assert_eq!(resolution_of(&dense), 1);
        // A counter stepping 26 at a time: multiples of 26, with a rare 1 and 25 (under 2% each)
        // where a read straddled a step.
        let mut coarse: Vec<u64> = (0..6400).map(|i| 26 * (1 + i % 4)).collect();
        coarse.extend([1; 60]);
        coarse.extend([25; 60]);
        assert_eq!(resolution_of(&coarse), 26);
        // The same 25s made common: a step of 1 after all.
        coarse.extend([25; 400]);
        assert_eq!(resolution_of(&coarse), 1);
        assert_eq!(resolution_of(&[]), 1);
        assert_eq!(resolution_of(&[0, 0, 0]), 1);
        // A delta at 1.5% of them is rare (under 2%), not at 2.5%.
        let mut mostly_26 = vec![26; 985];
        mostly_26.extend([1; 15]);
        assert_eq!(resolution_of(&mostly_26), 26);
        mostly_26.extend([1; 10]);
        assert_eq!(resolution_of(&mostly_26), 1);
    }

    #[test]
    fn the_step_of_a_counter_that_steps_26_at_a_time_is_26() {
        // 37 cycles between reads of a counter that shows whole steps of 26: deltas of 26 and 52,
        // never 1 (a counter of every cycle).
        let mut cycles = 0u64;
        let coarse = || {
            cycles += 37;
            cycles / 26 * 26
        };
        assert_eq!(step_of(coarse), 26);
        let mut fine = 0u64;
        let every_cycle = || {
            fine += 37;
            fine
        };
        assert_eq!(step_of(every_cycle), 37);
    }

    use super::*;

    #[test]
    fn clocks_advance_and_convert() {
        let tsc = TscClock {
            hz: calibrate_tsc(Duration::from_millis(20)),
        };
        assert!(
            tsc.hz > 1e8 && tsc.hz < 1e10,
            "implausible TSC frequency {}",
            tsc.hz
        );
        // One window timed by both the calibrated TSC and `Instant`: they must agree to 2% whatever
        // the sleep really lasted. A preemption between the paired reads could skew one try, so the
        // best of five counts; a wrong frequency or conversion skews them all.
        let mut ratios = Vec::new();
        for _ in 0..5 {
            let i0 = Instant::now();
            let t0 = tsc.now();
            std::thread::sleep(Duration::from_millis(30));
            let t1 = tsc.now();
            let instant_ns = i0.elapsed().as_nanos() as f64;
            let tsc_ns = (t1 - t0) as f64 * 1e9 / tsc.hz;
            ratios.push(tsc_ns / instant_ns);
            if (tsc_ns / instant_ns - 1.0).abs() < 0.02 {
                break;
            }
        }
        assert!(
            ratios.iter().any(|r| (r - 1.0).abs() < 0.02),
            "TSC at {} Hz and Instant disagree: tsc/instant = {ratios:?}",
            tsc.hz
        );
        // The conversions themselves, by hand: 1 ms at 2.5 GHz.
        let ghz = TscClock { hz: 2.5e9 };
        assert_eq!(ghz.ticks(Duration::from_millis(1)), 2_500_000);
        let m = MonotonicClock;
        assert!(m.now() > 0);
        assert_eq!(m.ticks(Duration::from_millis(1)), 1_000_000);
        let fake = FakeClock::default();
        fake.advance(7);
        assert_eq!(fake.clone().now(), 7);
    }

    /// A clock whose every read spins for at least 2 µs of `Instant`.
    #[derive(Clone)]
    struct SlowClock;

    impl Clock for SlowClock {
        fn now(&self) -> u64 {
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(2) {
                std::hint::spin_loop();
            }
            7
        }
    }

    #[test]
    fn read_cost_is_the_mean_time_of_one_read() {
        // 50 reads of at least 2 µs each: at least 2000 ns a read, and not 50 times more (the mean,
        // not the total).
        let ns = read_cost_ns(&SlowClock, 50);
        assert!((2_000.0..50_000.0).contains(&ns), "{ns} ns");
        // The real clocks cost something, and far less than a microsecond (a vDSO call or a TSC
        // read; a syscall would be ~100 ns or more).
        let hz = calibrate_tsc(Duration::from_millis(5));
        for kind in ClockKind::ALL {
            let ns = clock_read_cost(kind, hz);
            assert!(ns > 0.0 && ns < 10_000.0, "{kind}: {ns} ns");
        }
        // A TSC read takes some 20 cycles or more, a vDSO CLOCK_MONOTONIC read one TSC read and
        // more: over 1 ns on any CPU clocked under 20 GHz.
        for kind in [ClockKind::Tsc, ClockKind::Monotonic] {
            let ns = clock_read_cost(kind, hz);
            assert!(ns > 1.0, "{kind}: {ns} ns");
        }
    }

    #[test]
    fn the_nanosecond_clocks_follow_instant() {
        // CLOCK_MONOTONIC and its coarse twin against `Instant` (itself CLOCK_MONOTONIC) over a 30
        // ms sleep: the coarse one ticks at HZ (4 ms at HZ=250), so it may trail by one tick.
        let (m, c) = (MonotonicClock, CoarseClock);
        let (i0, m0, c0) = (Instant::now(), m.now(), c.now());
        std::thread::sleep(Duration::from_millis(30));
        let (m1, c1) = (m.now(), c.now());
        let elapsed = i0.elapsed().as_nanos() as u64;
        let (dm, dc) = (m1 - m0, c1 - c0);
        assert!(dm >= 30_000_000 && dm <= elapsed + 1_000_000, "{dm}");
        assert!(dc >= 20_000_000 && dc <= elapsed + 11_000_000, "{dc}");
        // Absolute readings agree with Instant's clock to the second: seconds and nanoseconds are
        // combined, not added.
        let mono = {
            let mut ts = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: a valid timespec for the kernel to fill.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
            ts.tv_sec as u64
        };
        let secs = m.now() / 1_000_000_000;
        assert!(secs == mono || secs == mono + 1, "{secs} s vs {mono} s");
        assert_eq!(m.ticks_per_sec(), 1e9);
        assert_eq!(c.ticks_per_sec(), 1e9);
        assert_eq!(FakeClock::default().ticks_per_sec(), 1e9);
    }

    #[test]
    fn named_enums_round_trip_and_refuse_other_names() {
        use crate::counter::{NodeIter, Pad, ShardLevel};
        use crate::error::UnknownName;
        use crate::{runner::PacedMode, workload::Arrivals};
        fn check<T>(all: &[T], what: &'static str, names: &'static str, bad: &str)
        where
            T: std::str::FromStr<Err = UnknownName>
                + std::fmt::Display
                + PartialEq
                + std::fmt::Debug,
        {
            let names: Vec<&str> = names.split(' ').collect();
            let parsed: Vec<T> = names.iter().map(|n| n.parse().unwrap()).collect();
            assert_eq!(parsed, all);
            let printed: Vec<String> = all.iter().map(T::to_string).collect();
            assert_eq!(printed, names);
            let err = bad.parse::<T>().unwrap_err();
            assert_eq!(err, UnknownName::new(what, bad, names), "{err}");
        }
        check(&ClockKind::ALL, "clock", "tsc monotonic coarse", "hpet");
        check(&TimerKind::ALL, "timer", "tsc monotonic", "hpet");
        check(&ShardLevel::ALL, "level", "global node llc cpu", "socket");
        check(&Pad::ALL, "pad", "128 64 0", "32");
        check(&NodeIter::ALL, "node iteration", "compact bitmap", "sparse");
        check(&Arrivals::ALL, "arrivals", "paced poisson", "bursty");
        check(&PacedMode::ALL, "paced", "in-place alone both", "sideways");
    }
}
