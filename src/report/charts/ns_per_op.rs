//! `ns-per-op.svg`: the mean sampled cost of one update and one read-side
//! operation per strategy, mean ± stddev over repeats.

use super::Header;
use super::bars::Bars;
use crate::report::DrawError;
use crate::results::RunResults;

/// The chart, or `None` when no strategy has sampled latencies
/// (`--sample-every 0`, or no repeat finished).
pub(super) fn render(run: &RunResults) -> Option<Result<String, DrawError>> {
    let measured: Vec<_> = run
        .strategies
        .iter()
        .filter_map(|s| {
            let sum = s.summary.as_ref()?;
            (sum.write_ns.is_some() || sum.read_ns.is_some())
                .then(|| (s.name.clone(), vec![sum.write_ns, sum.read_ns]))
        })
        .collect();
    if measured.is_empty() {
        return None;
    }
    let (rows, values) = measured.into_iter().unzip();
    let bars = Bars {
        header: Header::run("Write and read ns/op per strategy", run),
        rows,
        series: vec!["write (update)", "read side"],
        values,
        x_desc: "ns per operation (mean of sampled operations)",
        note: "error bars: mean ± 1 stddev over repeats",
    };
    Some(bars.render())
}
