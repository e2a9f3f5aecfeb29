//! run.csv: one row per strategy and repeat, the headline numbers only
//! (run.json has everything).

use super::Export;
use crate::results::RunResults;
use serde::Serialize;

/// Writes run.csv.
pub struct CsvExport;

/// One CSV row. Latencies are ns; rates are per second.
#[derive(Serialize)]
struct Row<'a> {
    strategy: &'a str,
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
    exact: bool,
}

impl Export for CsvExport {
    fn file_name(&self) -> &'static str {
        "run.csv"
    }

    fn render(&self, run: &RunResults) -> Result<Vec<u8>, String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for s in &run.strategies {
            for r in &s.repeats {
                w.serialize(Row {
                    strategy: &s.name,
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
                    exact: r.exact,
                })
                .map_err(|e| e.to_string())?;
            }
        }
        w.into_inner().map_err(|e| e.to_string())
    }
}
