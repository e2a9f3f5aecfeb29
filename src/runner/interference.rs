//! What could have disturbed a repeat, recorded with it: steal time of the run's CPUs
//! (`/proc/stat`), the measured threads' involuntary context switches (from the workload), and a
//! canary: a short CAS ping-pong between two of the run's CPUs before every repeat, with the
//! coherence transactions (`matrix::measure_transactions`) priced on the same pair in the same
//! phase of the host, and a shorter ping-pong after it (a phase that began during the repeat).

use super::result::{Interference, RepeatResult, ThreadStalls};
use crate::clock::Timer;
use crate::matrix::{TransactionCost, measure_transactions, reference_pingpong, transaction_costs};
use crate::topology::Topology;
use crate::workload::ThreadReport;
use std::time::Instant;

/// A repeat whose threads lost more than this % of their intervals to stalls is disturbed.
pub const STALLED_PCT: f64 = 5.0;

/// Round trips of one canary (a few ms at the slowest phase).
pub const CANARY_ROUND_TRIPS: u64 = 16_000;

/// Round trips of the canary after a repeat.
pub const CANARY_AFTER_ROUND_TRIPS: u64 = CANARY_ROUND_TRIPS / 4;

/// A canary this many times above or below the run's median marks its repeat as disturbed, and the
/// run warns.
pub const CANARY_SHIFT: f64 = 1.5;

/// Steal time of `cpus` so far, in USER_HZ ticks, from `/proc/stat` text.
pub fn parse_steal_ticks(stat: &str, cpus: &[u32]) -> Option<u64> {
    cpus.iter()
        .map(|cpu| {
            let name = format!("cpu{cpu}");
            let line = stat
                .lines()
                .find(|l| l.split_whitespace().next() == Some(name.as_str()))?;
            line.split_whitespace().nth(8)?.parse::<u64>().ok()
        })
        .sum()
}

/// Steal time of `cpus` so far, ms; `None` when `/proc/stat` cannot say.
pub fn steal_ms(cpus: &[u32]) -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as f64 } else { 100.0 };
    Some(parse_steal_ticks(&stat, cpus)? as f64 * 1000.0 / hz)
}

/// Samples per CPU of each coherence transaction a canary times.
pub const CANARY_TRANSACTION_SAMPLES: usize = 60;

/// One canary's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Canary {
    /// Median one-way CAS ping-pong, ns.
    pub ns: f64,
    /// What the canary took, ms.
    pub ms: f64,
    /// Each coherence transaction's net ns on the same pair, the trimmed mean of its single timings
    /// (`matrix::transaction_costs`), with its ratio to `ns` (empty when they could not be timed).
    pub transactions: Vec<TransactionCost>,
}

/// The canary between `a` and `b`.
pub fn canary(a: u32, b: u32, topo: &Topology, timer: Timer) -> Option<Canary> {
    let t = Instant::now();
    let ns = reference_pingpong(a, b, CANARY_ROUND_TRIPS).ok()?;
    let home = topo.node_of_cpu(a)?;
    let transactions = measure_transactions(
        a,
        b,
        home,
        CANARY_TRANSACTION_SAMPLES,
        timer,
        &topo.allowed_cpus,
    )
    .map_or(Vec::new(), |samples| transaction_costs(&samples, ns));
    Some(Canary {
        ns,
        ms: t.elapsed().as_secs_f64() * 1e3,
        transactions,
    })
}

/// The two CPUs a run's canary bounces between.
pub fn canary_cpus(writers: &[u32], readers: &[u32]) -> Option<(u32, u32)> {
    let mut cpus = writers.iter().chain(readers);
    let a = *cpus.next()?;
    let b = *cpus.find(|&&c| c != a)?;
    Some((a, b))
}

/// The canary after a repeat between `a` and `b`.
pub fn canary_after(a: u32, b: u32) -> Option<(f64, f64)> {
    let t = Instant::now();
    let ns = reference_pingpong(a, b, CANARY_AFTER_ROUND_TRIPS).ok()?;
    Some((ns, t.elapsed().as_secs_f64() * 1e3))
}

/// The interference record of one repeat, before the run marks shifts.
pub fn record(
    steal_before: Option<f64>,
    steal_after: Option<f64>,
    involuntary_switches: u64,
    canary: Option<Canary>,
    after: Option<(f64, f64)>,
) -> Interference {
    let ms = canary.as_ref().map(|c| c.ms + after.map_or(0.0, |a| a.1));
    Interference {
        steal_ms: steal_before.zip(steal_after).map(|(b, a)| (a - b).max(0.0)),
        involuntary_switches,
        canary_ns: canary.as_ref().map(|c| c.ns),
        canary_after_ns: after.map(|a| a.0),
        canary_ms: ms,
        canary_transactions: canary.map_or(Vec::new(), |c| c.transactions),
        ..Default::default()
    }
}

/// Whether `repeat` was disturbed: its canary moved.
pub fn disturbed(repeat: &RepeatResult) -> bool {
    let i = &repeat.interference;
    let stalled_ms: f64 = i.stalls.iter().map(|s| s.ms).sum();
    let threads_ms = 1e3 * repeat.interval_s * i.stalls.len() as f64;
    i.disturbed || stalled_ms > STALLED_PCT / 100.0 * threads_ms
}

/// The stalls of each paced thread that saw the interval.
pub fn stalls(reports: &[ThreadReport], ns_per_tick: f64) -> Vec<ThreadStalls> {
    reports
        .iter()
        .filter(|r| r.interval_s.is_some())
        .filter_map(|r| {
            let (busy, floor) = (r.busy?, r.floor_busy.unwrap_or_default());
            Some(ThreadStalls {
                cpu: r.pin.requested_cpu,
                count: busy.stalls + floor.stalls,
                ms: (busy.stall_ticks + floor.stall_ticks) as f64 * ns_per_tick * 1e-6,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::near;

    const STAT: &str = "cpu  100 0 50 9000 10 0 5 77 0 0\n\
        cpu0 50 0 25 4500 5 0 2 30 0 0\n\
        cpu1 50 0 25 4500 5 0 3 47 0 0\n\
        intr 12345\n";

    #[test]
    fn steal_is_the_eighth_field_of_each_cpu_line() {
        assert_eq!(parse_steal_ticks(STAT, &[0]), Some(30));
        assert_eq!(parse_steal_ticks(STAT, &[0, 1]), Some(77));
        assert_eq!(parse_steal_ticks(STAT, &[2]), None);
        assert_eq!(parse_steal_ticks("cpu0 1 2 3\n", &[0]), None);
    }

    /// CPU 0's steal in ms, read here: the 8th number of its /proc/stat line, in USER_HZ (100)
    /// ticks of 10 ms.
    fn cpu0_steal_ms() -> f64 {
        let stat = std::fs::read_to_string("/proc/stat").unwrap();
        let line = stat.lines().find(|l| l.starts_with("cpu0 ")).unwrap();
        let ticks: u64 = line.split_whitespace().nth(8).unwrap().parse().unwrap();
        ticks as f64 * 10.0
    }

    #[test]
    fn steal_is_read_from_proc_stat_in_ms() {
        // Steal only grows: the figure lies between two readings of ours.
        let before = cpu0_steal_ms();
        let ms = steal_ms(&[0]).unwrap();
        let after = cpu0_steal_ms();
        assert!(before <= ms && ms <= after, "{before} <= {ms} <= {after}");
        assert_eq!(steal_ms(&[u32::MAX]), None);
    }

    #[test]
    fn canary_cpus_are_the_first_two_distinct() {
        assert_eq!(canary_cpus(&[3, 3, 5], &[]), Some((3, 5)));
        assert_eq!(canary_cpus(&[2], &[2, 7]), Some((2, 7)));
        assert_eq!(canary_cpus(&[1, 1], &[]), None);
        assert_eq!(canary_cpus(&[], &[]), None);
    }

    #[test]
    fn the_canary_gives_its_one_way_ns_transactions_and_the_ms_it_took() {
        let (a, b) = crate::topology::two_allowed_cpus();
        let topo = Topology::read(std::path::Path::new("/")).unwrap();
        let started = Instant::now();
        let c = canary(a, b, &topo, Timer::Monotonic).unwrap();
        let (ns, ms) = (c.ns, c.ms);
        // Every transaction, from both CPUs' samples, against this ns.
        assert_eq!(c.transactions.len(), crate::matrix::Transaction::ALL.len());
        for t in &c.transactions {
            assert_eq!(t.samples, 2 * CANARY_TRANSACTION_SAMPLES);
            near(t.to_pingpong, t.net_ns / ns, 1e-12);
        }
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        // A cache line moves between cores in more than 2 ns.
        assert!(ns > 2.0, "{ns}");
        // Its own stopwatch runs inside ours (and is not off by 1000×).
        assert!(
            (0.01 * wall_ms..=wall_ms).contains(&ms),
            "{ms} of {wall_ms} ms"
        );
        assert_eq!(canary(a, 4095, &topo, Timer::Monotonic), None);
        // The canary after: the ping-pong alone, a quarter as long (the 4,000 round trips
        // docs/run.md gives).
        assert_eq!(CANARY_AFTER_ROUND_TRIPS, 4_000);
        let started = Instant::now();
        let (after_ns, after_ms) = canary_after(a, b).unwrap();
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        assert!(after_ns > 2.0, "{after_ns}");
        assert!(
            (0.01 * wall_ms..=wall_ms).contains(&after_ms),
            "{after_ms} of {wall_ms}"
        );
        assert_eq!(canary_after(a, 4095), None);
    }

    #[test]
    fn a_record_takes_the_steal_difference() {
        let c = Canary {
            ns: 27.0,
            ms: 1.2,
            transactions: Vec::new(),
        };
        let i = record(Some(100.0), Some(130.0), 4, Some(c.clone()), None);
        assert_eq!(i.steal_ms, Some(30.0));
        assert_eq!(i.involuntary_switches, 4);
        assert_eq!((i.canary_ns, i.canary_ms), (Some(27.0), Some(1.2)));
        assert_eq!(record(None, Some(1.0), 0, None, None).steal_ms, None);
        // The canary after: its ns kept apart, its time added.
        let i = record(None, None, 0, Some(c), Some((110.0, 0.3)));
        assert_eq!(i.canary_after_ns, Some(110.0));
        near(i.canary_ms.unwrap(), 1.5, 1e-12);
    }
}
