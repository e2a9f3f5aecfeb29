//! CSV: run.csv (one row per strategy and repeat, the headline numbers),
//! sweep.csv (one row per point and strategy, summarised over repeats) and
//! matrix.csv (median one-way ns per initiating × responding CPU).
//! The JSON files have everything; these are for spreadsheets.

use super::{Document, Export, ExportError, Rendered};
use crate::matrix::MatrixResults;
use crate::runner::RunResults;
use crate::sweep::SweepResults;
use crate::workload::Regime;
use serde::Serialize;

/// matrix.csv's first header cell: rows are initiating CPUs, columns
/// responding ones, cells one-way ns = round trip ÷ 2.
const MATRIX_CSV_CORNER: &str = "initiator\\responder (median one-way ns = round trip / 2)";

/// Writes `<kind>.csv` for runs, sweeps and matrices.
pub struct CsvExport;

impl Export for CsvExport {
    fn render(&self, doc: &Document) -> Result<Vec<Rendered>, ExportError> {
        let bytes = match doc {
            Document::Run(r) => run_csv(r),
            Document::Sweep(s) => sweep_csv(s),
            Document::Matrix(m) => matrix_csv(m),
            _ => return Ok(Vec::new()),
        };
        let file = format!("{}.csv", doc.kind());
        let bytes = bytes.map_err(|source| ExportError::Csv {
            file: file.clone(),
            source,
        })?;
        Ok(vec![Rendered::new(file, bytes)])
    }
}

/// One CSV row. Latencies are ns; rates are per second. `floor_ns` is
/// the mean of the floor of the row's regime (the harness floor's loop
/// ns/op flat out, the paced floor's busy ns/op paced) and `net_ns` the
/// row's gross figure (`write_loop_ns` flat out, `write_busy_ns` paced)
/// less it; a paced floor's own repeats are rows with `floor` true.
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
    sampled_vs_throughput_pct: Option<f64>,
    exact: bool,
}

/// run.csv: a header, then one row per strategy (and paced floor) and
/// repeat.
fn run_csv(run: &RunResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let floors = run.paced_floors.iter().map(|s| (s, true));
    for (s, is_floor) in run.strategies.iter().map(|s| (s, false)).chain(floors) {
        let floor_ns = match s.regime {
            Regime::FlatOut => run.floor.as_ref().map(|f| f.loop_ns.mean),
            paced => run
                .paced_floor(paced)
                .and_then(|f| Some(f.summary.as_ref()?.write_busy_ns?.mean)),
        };
        for r in &s.repeats {
            let gross = match s.regime {
                Regime::FlatOut => r.write_loop_ns,
                Regime::Paced { .. } => r.write_busy_ns,
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
                sampled_vs_throughput_pct: r.sampled_vs_throughput_pct,
                exact: r.exact,
            })?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// One sweep.csv row: one strategy at one point, summarised over its
/// repeats. Rates are per second, times ns; an empty cell means not
/// measured (sampling off, or no repeat finished).
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
    /// Net ns per update: loop ns/op less the harness floor (flat out),
    /// busy ns/op less the paced floor (paced).
    net_ns_mean: Option<f64>,
    net_ns_ci95_low: Option<f64>,
    net_ns_ci95_high: Option<f64>,
    net_cpu_share_pct_mean: Option<f64>,
    updates_per_ownership_mean: Option<f64>,
    exact: bool,
}

/// sweep.csv: a header, then one row per point × strategy.
fn sweep_csv(sweep: &SweepResults) -> Result<Vec<u8>, csv::Error> {
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

/// matrix.csv: CPU ids in the header row and first column; the cell in
/// row i, column j is the median one-way ns with i initiating; empty
/// for the diagonal and unmeasured pairs.
fn matrix_csv(r: &MatrixResults) -> Result<Vec<u8>, csv::Error> {
    let cpus = &r.config.cpus;
    let index = |cpu: u32| cpus.binary_search(&cpu).ok();
    let mut cells = vec![vec![String::new(); cpus.len()]; cpus.len()];
    for p in &r.pairs {
        for d in [&p.forward, &p.backward] {
            if let (Some(i), Some(j)) = (index(d.from), index(d.to)) {
                cells[i][j] = format!("{:.1}", d.median_ns);
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    // The corner cell says what the cells are, for a reader of the bare
    // file: one-way ns, a round trip's time halved.
    let header =
        std::iter::once(MATRIX_CSV_CORNER.to_string()).chain(cpus.iter().map(u32::to_string));
    w.write_record(header)?;
    for (cpu, row) in cpus.iter().zip(cells) {
        w.write_record(std::iter::once(cpu.to_string()).chain(row))?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}
