//! From the threads' raw counts to one repeat's numbers, and from repeats
//! to a strategy's summary.

use crate::counter::PublishStats;
use crate::results::{RepeatResult, Staleness, StrategySummary};
use crate::stats::{LatencySummary, Summary};
use crate::workload::{Role, ThreadReport, new_histogram};

/// Turns one repeat's thread reports into its numbers. `slot_nodes[i]`
/// is the slot node of writer `i` and `cpu_nodes[i]` the node of its CPU
/// (publishes across them count as cross-node). `final_sum` is what the
/// counter read after every writer flushed.
pub fn repeat_result(
    repeat: usize,
    reports: &[ThreadReport],
    cpu_nodes: &[u32],
    slot_nodes: &[u32],
    final_sum: i64,
    ns_per_tick: f64,
) -> RepeatResult {
    let writers: Vec<&ThreadReport> = reports.iter().filter(|r| r.role == Role::Writer).collect();
    let readers: Vec<&ThreadReport> = reports.iter().filter(|r| r.role == Role::Reader).collect();
    let interval_s = mean(reports.iter().map(|r| r.interval_s));
    let rate = |count: u64, r: &ThreadReport| {
        if r.interval_s > 0.0 {
            count as f64 / r.interval_s
        } else {
            0.0
        }
    };
    let writer_rates: Vec<f64> = writers.iter().map(|r| rate(r.updates, r)).collect();
    let write_ops_per_s = writer_rates.iter().sum();
    let read_ops_per_s = reports.iter().map(|r| rate(r.reads, r)).sum();

    let mut write_hist = new_histogram();
    let mut read_hist = new_histogram();
    let mut stats = PublishStats::default();
    let mut cross_node_publishes = 0;
    let mut age_sum_ns = 0.0;
    let mut age_max_ns: f64 = 0.0;
    for (i, w) in writers.iter().enumerate() {
        // Histograms share bounds, so adding cannot fail.
        let _ = write_hist.add(&w.write_hist);
        stats.merge(&w.stats);
        if cpu_nodes.get(i) != slot_nodes.get(i) {
            cross_node_publishes += w.stats.publishes;
        }
        let ns_per_update = if w.updates > 0 {
            w.interval_s * 1e9 / w.updates as f64
        } else {
            0.0
        };
        age_sum_ns += w.stats.age_sum_updates as f64 * ns_per_update;
        age_max_ns = age_max_ns.max(w.stats.age_max_updates as f64 * ns_per_update);
    }
    for r in reports {
        let _ = read_hist.add(&r.read_hist);
    }
    let expected_sum: i64 = writers.iter().map(|w| w.final_load).sum();
    let total = expected_sum.unsigned_abs().max(1) as f64;
    let publishes = stats.publishes;
    let error_mean = if publishes > 0 {
        stats.error_sum as f64 / publishes as f64
    } else {
        0.0
    };
    RepeatResult {
        repeat,
        interval_s,
        writer_updates: writers.iter().map(|r| r.updates).collect(),
        writer_reads: writers.iter().map(|r| r.reads).collect(),
        reader_reads: readers.iter().map(|r| r.reads).collect(),
        write_ops_per_s,
        read_ops_per_s,
        write_ops_per_s_thread_min: writer_rates
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .min(write_ops_per_s),
        write_ops_per_s_thread_max: writer_rates.iter().copied().fold(0.0, f64::max),
        write_latency: LatencySummary::of(&write_hist, ns_per_tick),
        read_latency: LatencySummary::of(&read_hist, ns_per_tick),
        publishes,
        publishes_per_s: if interval_s > 0.0 {
            publishes as f64 / interval_s
        } else {
            0.0
        },
        cross_node_publishes,
        staleness: Staleness {
            error_mean,
            error_max: stats.error_max as f64,
            error_mean_pct: 100.0 * error_mean / total,
            error_max_pct: 100.0 * stats.error_max as f64 / total,
            age_mean_ns: if publishes > 0 {
                age_sum_ns / publishes as f64
            } else {
                0.0
            },
            age_max_ns,
        },
        final_sum,
        expected_sum,
        exact: final_sum == expected_sum,
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// Summarises a strategy's repeats; `None` when there are none.
pub fn strategy_summary(repeats: &[RepeatResult]) -> Option<StrategySummary> {
    let of =
        |f: &dyn Fn(&RepeatResult) -> f64| Summary::of(&repeats.iter().map(f).collect::<Vec<_>>());
    let of_latency = |f: &dyn Fn(&LatencySummary) -> f64,
                      side: &dyn Fn(&RepeatResult) -> Option<LatencySummary>| {
        let values: Option<Vec<f64>> = repeats.iter().map(|r| side(r).map(|l| f(&l))).collect();
        values.and_then(|v| Summary::of(&v))
    };
    Some(StrategySummary {
        write_ops_per_s: of(&|r| r.write_ops_per_s)?,
        read_ops_per_s: of(&|r| r.read_ops_per_s)?,
        write_ns: of_latency(&|l| l.mean_ns, &|r| r.write_latency),
        read_ns: of_latency(&|l| l.mean_ns, &|r| r.read_latency),
        write_p50_ns: of_latency(&|l| l.p50_ns, &|r| r.write_latency),
        read_p50_ns: of_latency(&|l| l.p50_ns, &|r| r.read_latency),
        publishes_per_s: of(&|r| r.publishes_per_s)?,
        error_mean_pct: of(&|r| r.staleness.error_mean_pct)?,
        age_mean_ns: of(&|r| r.staleness.age_mean_ns)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::PinnedThread;

    fn report(
        role: Role,
        updates: u64,
        reads: u64,
        publishes: u64,
        final_load: i64,
    ) -> ThreadReport {
        let mut write_hist = new_histogram();
        write_hist.record(100).unwrap();
        ThreadReport {
            role,
            pin: PinnedThread {
                requested_cpu: 0,
                observed_cpu: Some(0),
                verified: true,
                note: None,
            },
            interval_s: 0.5,
            updates,
            reads,
            stats: PublishStats {
                updates,
                publishes,
                error_sum: publishes * 10,
                error_max: 30,
                age_sum_updates: publishes * 4,
                age_max_updates: 8,
                flushed: 0,
            },
            final_load,
            write_hist,
            read_hist: new_histogram(),
        }
    }

    #[test]
    fn rates_staleness_and_exactness() {
        let reports = [
            report(Role::Writer, 1000, 1000, 100, 600),
            report(Role::Writer, 3000, 3000, 300, 400),
            report(Role::Reader, 0, 500, 0, 0),
        ];
        let r = repeat_result(0, &reports, &[0, 1], &[0, 0], 1000, 2.0);
        assert_eq!(r.write_ops_per_s, 8000.0);
        assert_eq!(r.read_ops_per_s, 9000.0);
        assert_eq!(
            (r.write_ops_per_s_thread_min, r.write_ops_per_s_thread_max),
            (2000.0, 6000.0)
        );
        assert_eq!(r.publishes, 400);
        assert_eq!(r.cross_node_publishes, 300); // writer 1: CPU node 1, slot node 0
        assert_eq!(r.staleness.error_mean, 10.0);
        assert_eq!(r.staleness.error_mean_pct, 1.0); // 10 of 1000
        // writer 0: 4 updates x 0.5 ms; writer 1: 4 x 1/6 ms; weighted by publishes.
        let expected_age = (400.0 * 500_000.0 + 1200.0 * 500_000.0 / 3.0) / 400.0;
        assert!((r.staleness.age_mean_ns - expected_age).abs() < 1e-6);
        assert!(r.exact);
        assert_eq!(r.write_latency.unwrap().samples, 2);
        assert!(!repeat_result(0, &reports, &[0, 1], &[0, 0], 999, 1.0).exact);
        let s = strategy_summary(&[r.clone(), r]).unwrap();
        assert_eq!(s.write_ops_per_s.mean, 8000.0);
        assert!(s.read_ns.is_none());
        assert_eq!(s.write_p50_ns.unwrap().mean, 200.0);
    }
}
