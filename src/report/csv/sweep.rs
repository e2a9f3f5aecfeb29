//! sweep.csv: one row per point and strategy, summarised over repeats.

use crate::runner::StrategySummary;
use crate::stats::Summary;
use crate::sweep::SweepResults;

/// Each row's leading columns: the point (offered ops/s per thread; empty = hammer) and the
/// strategy.
const KEYS: [&str; 9] = [
    "threads", "affinity", "rate", "strategy", "level", "publish", "pad", "clock", "repeats",
];

/// A summary column: its header and its figure over the repeats (rates per second, times ns), empty
/// when not measured.
type Column = (&'static str, fn(&StrategySummary) -> Option<f64>);

/// The summary columns, in order; net ns per update is loop ns/op less the harness floor.
const SUMMARY: [Column; 20] = [
    ("write_ops_per_s_mean", |x| Some(x.write_ops_per_s.mean)),
    ("write_ops_per_s_stddev", |x| Some(x.write_ops_per_s.stddev)),
    ("write_ops_per_s_stddev_pct", |x| {
        Some(x.write_ops_per_s.stddev_pct)
    }),
    ("read_ops_per_s_mean", |x| Some(x.read_ops_per_s.mean)),
    ("read_ops_per_s_stddev", |x| Some(x.read_ops_per_s.stddev)),
    ("write_ns_mean", |x| mean(x.write_ns)),
    ("read_ns_mean", |x| mean(x.read_ns)),
    ("write_p50_ns", |x| mean(x.write_p50_ns)),
    ("read_p50_ns", |x| mean(x.read_p50_ns)),
    ("publishes_per_s_mean", |x| Some(x.publishes_per_s.mean)),
    ("staleness_error_mean_pct", |x| mean(x.error_mean_pct)),
    ("staleness_age_mean_ns", |x| mean(x.age_mean_ns)),
    ("write_loop_ns_mean", |x| mean(x.write_loop_ns)),
    ("write_busy_ns_mean", |x| mean(x.write_busy_ns)),
    ("cpu_share_pct_mean", |x| mean(x.cpu_share_pct)),
    ("net_ns_mean", |x| mean(x.net_ns)),
    ("net_ns_ci95_low", |x| x.net_ns.map(|v| v.ci95_low)),
    ("net_ns_ci95_high", |x| x.net_ns.map(|v| v.ci95_high)),
    ("net_cpu_share_pct_mean", |x| mean(x.net_cpu_share_pct)),
    ("updates_per_ownership_mean", |x| {
        mean(x.updates_per_ownership)
    }),
];

/// The mean of a figure, if measured.
fn mean(s: Option<Summary>) -> Option<f64> {
    s.map(|v| v.mean)
}

/// sweep.csv: a header, then one row per point × strategy; an empty file when nothing was measured
/// (as run.csv, whose header comes with its first row).
pub(super) fn render(sweep: &SweepResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    let header = KEYS.iter().chain(SUMMARY.iter().map(|c| &c.0));
    if sweep
        .points
        .iter()
        .any(|p| !p.results.strategies.is_empty())
    {
        w.write_record(header.chain(&["exact"]))?;
    }
    for p in &sweep.points {
        for s in &p.results.strategies {
            let sum = s.summary.as_ref();
            let figures: Vec<Option<f64>> = SUMMARY.iter().map(|c| sum.and_then(c.1)).collect();
            let st = &s.strategy;
            w.serialize((
                p.threads,
                &p.affinity,
                p.regime.rate(),
                &s.name,
                st.level.name(),
                st.publish.to_string(),
                st.pad.name(),
                st.clock.map_or("", |c| c.name()),
                s.repeats.len(),
                figures,
                s.exact,
            ))?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{ResultFile, read};

    #[test]
    fn a_sweep_with_no_row_writes_an_empty_file() {
        let path = std::path::Path::new("tests/fixtures/answers/sweep/sweep.json");
        let Ok((_, ResultFile::Sweep(mut sweep))) = read(path) else {
            panic!("{} is a sweep", path.display());
        };
        let csv = String::from_utf8(render(&sweep).unwrap()).unwrap();
        assert!(csv.starts_with("threads,affinity,"), "{csv}");
        let rows = sweep
            .points
            .iter()
            .map(|p| p.results.strategies.len())
            .sum::<usize>();
        assert_eq!(csv.lines().count(), 1 + rows);
        sweep.points.clear();
        assert_eq!(render(&sweep).unwrap(), b"");
    }
}
