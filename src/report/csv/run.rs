//! run.csv: one row per strategy (and clock floor) and repeat, the headline numbers with each row's
//! floor and net figure.

use crate::runner::RunResults;
use crate::workload::Regime;
use serde::Serialize;

/// One CSV row: latencies in ns, rates per second.
#[derive(Serialize)]
struct RunRow<'a> {
    strategy: &'a str,
    /// Offered ops/s per writer; empty = flat out.
    rate: Option<f64>,
    floor: bool,
    level: &'a str,
    publish: String,
    pad: &'a str,
    clock: &'a str,
    repeat: usize,
    interval_s: f64,
    write_ops_per_s: f64,
    read_ops_per_s: f64,
    write_ops_per_s_thread_min: f64,
    write_ops_per_s_thread_max: f64,
    write_p50_ns: Option<f64>,
    write_p99_ns: Option<f64>,
    read_p50_ns: Option<f64>,
    read_p99_ns: Option<f64>,
    publishes_per_s: f64,
    cross_node_publishes: u64,
    staleness_error_mean_pct: f64,
    staleness_age_mean_ns: f64,
    write_loop_ns: f64,
    write_busy_ns: f64,
    cpu_share_pct: f64,
    floor_ns: Option<f64>,
    net_ns: Option<f64>,
    handovers: u64,
    updates_per_ownership: Option<f64>,
    read_fetches: u64,
    fetches_per_read: Option<f64>,
    sampled_vs_throughput_pct: Option<f64>,
    exact: bool,
}

/// run.csv: a header, then one row per strategy (and clock floor) and repeat.
pub(super) fn render(run: &RunResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let floors = run.paced_floors.iter().map(|s| (s, true));
    for (s, is_floor) in run.strategies.iter().map(|s| (s, false)).chain(floors) {
        let regime_floor_ns = match s.regime {
            Regime::FlatOut => run.floor.as_ref().map(|f| f.loop_ns.mean),
            paced => run.paced_floor(paced).map(|f| f.busy_ns.mean),
        };
        for r in &s.repeats {
            let (gross, floor_ns) = match s.regime {
                Regime::FlatOut => (r.write_loop_ns, regime_floor_ns),
                Regime::Paced { .. } => (r.write_busy_ns, r.floor_busy_ns.or(regime_floor_ns)),
            };
            w.serialize(RunRow {
                strategy: &s.name,
                rate: s.regime.rate(),
                floor: is_floor,
                level: s.strategy.level.name(),
                publish: s.strategy.publish.to_string(),
                pad: s.strategy.pad.name(),
                clock: s.strategy.clock.map_or("", |c| c.name()),
                repeat: r.repeat,
                interval_s: r.interval_s,
                write_ops_per_s: r.write_ops_per_s,
                read_ops_per_s: r.read_ops_per_s,
                write_ops_per_s_thread_min: r.write_ops_per_s_thread_min,
                write_ops_per_s_thread_max: r.write_ops_per_s_thread_max,
                write_p50_ns: r.write_latency.map(|l| l.p50_ns),
                write_p99_ns: r.write_latency.map(|l| l.p99_ns),
                read_p50_ns: r.read_latency.map(|l| l.p50_ns),
                read_p99_ns: r.read_latency.map(|l| l.p99_ns),
                publishes_per_s: r.publishes_per_s,
                cross_node_publishes: r.cross_node_publishes,
                staleness_error_mean_pct: r.staleness.error_mean_pct,
                staleness_age_mean_ns: r.staleness.age_mean_ns,
                write_loop_ns: r.write_loop_ns,
                write_busy_ns: r.write_busy_ns,
                cpu_share_pct: r.cpu_share_pct,
                floor_ns,
                net_ns: floor_ns.map(|f| gross - f),
                handovers: r.handovers,
                updates_per_ownership: r.updates_per_ownership,
                read_fetches: r
                    .writer_read_fetches
                    .iter()
                    .chain(&r.reader_read_fetches)
                    .sum(),
                fetches_per_read: r.fetches_per_read,
                sampled_vs_throughput_pct: r.sampled_vs_throughput_pct,
                exact: r.exact,
            })?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
