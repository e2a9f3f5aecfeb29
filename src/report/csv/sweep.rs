//! sweep.csv: one row per point and strategy, summarised over repeats.

use crate::sweep::SweepResults;
use serde::Serialize;

/// One sweep.csv row: one strategy at one point, summarised over its repeats; rates per second,
/// times ns, an empty cell not measured.
#[derive(Serialize)]
struct SweepRow<'a> {
    threads: usize,
    affinity: &'a str,
    /// Offered ops/s per thread; empty = hammer (max).
    rate: Option<f64>,
    strategy: &'a str,
    level: &'a str,
    publish: String,
    pad: &'a str,
    clock: &'a str,
    repeats: usize,
    write_ops_per_s_mean: Option<f64>,
    write_ops_per_s_stddev: Option<f64>,
    write_ops_per_s_stddev_pct: Option<f64>,
    read_ops_per_s_mean: Option<f64>,
    read_ops_per_s_stddev: Option<f64>,
    write_ns_mean: Option<f64>,
    read_ns_mean: Option<f64>,
    write_p50_ns: Option<f64>,
    read_p50_ns: Option<f64>,
    publishes_per_s_mean: Option<f64>,
    staleness_error_mean_pct: Option<f64>,
    staleness_age_mean_ns: Option<f64>,
    write_loop_ns_mean: Option<f64>,
    write_busy_ns_mean: Option<f64>,
    cpu_share_pct_mean: Option<f64>,
    /// Net ns per update: loop ns/op less the harness floor.
    net_ns_mean: Option<f64>,
    net_ns_ci95_low: Option<f64>,
    net_ns_ci95_high: Option<f64>,
    net_cpu_share_pct_mean: Option<f64>,
    updates_per_ownership_mean: Option<f64>,
    exact: bool,
}

/// sweep.csv: a header, then one row per point × strategy.
pub(super) fn render(sweep: &SweepResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for p in &sweep.points {
        for s in &p.results.strategies {
            let sum = s.summary.as_ref();
            w.serialize(SweepRow {
                threads: p.threads,
                affinity: &p.affinity,
                rate: p.regime.rate(),
                strategy: &s.name,
                level: s.strategy.level.name(),
                publish: s.strategy.publish.to_string(),
                pad: s.strategy.pad.name(),
                clock: s.strategy.clock.map_or("", |c| c.name()),
                repeats: s.repeats.len(),
                write_ops_per_s_mean: sum.map(|x| x.write_ops_per_s.mean),
                write_ops_per_s_stddev: sum.map(|x| x.write_ops_per_s.stddev),
                write_ops_per_s_stddev_pct: sum.map(|x| x.write_ops_per_s.stddev_pct),
                read_ops_per_s_mean: sum.map(|x| x.read_ops_per_s.mean),
                read_ops_per_s_stddev: sum.map(|x| x.read_ops_per_s.stddev),
                write_ns_mean: sum.and_then(|x| x.write_ns.map(|v| v.mean)),
                read_ns_mean: sum.and_then(|x| x.read_ns.map(|v| v.mean)),
                write_p50_ns: sum.and_then(|x| x.write_p50_ns.map(|v| v.mean)),
                read_p50_ns: sum.and_then(|x| x.read_p50_ns.map(|v| v.mean)),
                publishes_per_s_mean: sum.map(|x| x.publishes_per_s.mean),
                staleness_error_mean_pct: sum.and_then(|x| x.error_mean_pct.map(|v| v.mean)),
                staleness_age_mean_ns: sum.and_then(|x| x.age_mean_ns.map(|v| v.mean)),
                write_loop_ns_mean: sum.and_then(|x| x.write_loop_ns.map(|v| v.mean)),
                write_busy_ns_mean: sum.and_then(|x| x.write_busy_ns.map(|v| v.mean)),
                cpu_share_pct_mean: sum.and_then(|x| x.cpu_share_pct.map(|v| v.mean)),
                net_ns_mean: sum.and_then(|x| x.net_ns.map(|v| v.mean)),
                net_ns_ci95_low: sum.and_then(|x| x.net_ns.map(|v| v.ci95_low)),
                net_ns_ci95_high: sum.and_then(|x| x.net_ns.map(|v| v.ci95_high)),
                net_cpu_share_pct_mean: sum.and_then(|x| x.net_cpu_share_pct.map(|v| v.mean)),
                updates_per_ownership_mean: sum
                    .and_then(|x| x.updates_per_ownership.map(|v| v.mean)),
                exact: s.exact,
            })?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
