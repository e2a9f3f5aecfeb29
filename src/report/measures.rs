//! How the run tables lay out the measures, shared by text, Markdown and HTML and by `contend
//! compare`: the grid of strategies (a column per shard level, a row per policy and, in a sweep,
//! per point), the row labels and the `mean±stddev%` cell with its change.

use crate::runner::{
    MEASURES, Measure, PACED, RunConfig, RunResults, StrategyResult, THROUGHPUT_NS, first_seen,
};
use crate::stats::{Compared, Decision, NOISE_THRESHOLD, Summary, Threshold, decide_paired};
use crate::sweep::SweepResults;
use crate::units::{Unit, human};
use crate::workload::Regime;
use std::fmt::Write;

/// Row labels: the publish policy, plus the pad and clock when the strategies shown use more than
/// one.
pub struct RowLabels {
    pads: bool,
    clocks: bool,
}

impl RowLabels {
    /// The labelling for these strategies.
    pub fn new<'a>(strategies: impl Iterator<Item = &'a StrategyResult> + Clone) -> Self {
        let pads = first_seen(strategies.clone().map(|s| s.strategy.pad)).len() > 1;
        let clocks = first_seen(strategies.filter_map(|s| s.strategy.clock)).len() > 1;
        RowLabels { pads, clocks }
    }

    /// The row `s` belongs to.
    pub fn label(&self, s: &StrategyResult) -> String {
        let mut label = s.strategy.publish.to_string();
        if self.pads {
            let _ = write!(label, " pad{}", s.strategy.pad);
        }
        if let Some(c) = s.strategy.clock.filter(|_| self.clocks) {
            let _ = write!(label, " {c}");
        }
        label
    }
}

/// The layout of every measure table of a run or a sweep.
pub struct StrategyGrid<'a> {
    /// Headers of each row's leading key cells.
    pub key_headers: Vec<&'static str>,
    /// The level columns, in first-seen order.
    pub levels: Vec<String>,
    /// The rows, in first-seen order.
    pub rows: Vec<GridRow<'a>>,
    /// Twice the timer's overhead, ns: a sampled value below it is not shown.
    pub resolution_ns: f64,
}

/// One row of a [`StrategyGrid`].
pub struct GridRow<'a> {
    /// Its leading key cells.
    pub keys: Vec<String>,
    /// The regime its strategies ran in (a sweep's rows may differ).
    pub regime: Regime,
    /// The strategy under each level, in the order of the levels.
    pub cells: Vec<Option<&'a StrategyResult>>,
    /// The configuration of the run its strategies come from.
    pub config: &'a RunConfig,
}

impl<'a> StrategyGrid<'a> {
    /// A run's (a view of one regime): a row per policy label.
    pub fn of_run(run: &'a RunResults) -> Self {
        let labels = RowLabels::new(run.strategies.iter());
        let resolution_ns = 2.0 * run.config.timer_overhead_ns;
        let mut grid = Self::new(vec!["policy"], run.strategies.iter(), resolution_ns);
        grid.add_rows(&run.strategies, &labels, &[], run.regime(), &run.config);
        grid
    }

    /// A sweep's: a row per point (threads, affinity and, when the sweep has a rate axis, its rate)
    /// and policy label.
    pub fn of_sweep(sweep: &'a SweepResults) -> Self {
        let all = || sweep.points.iter().flat_map(|p| &p.results.strategies);
        let labels = RowLabels::new(all());
        let rated = sweep.points.iter().any(|p| p.regime.is_paced());
        let headers = [
            &["threads", "affinity"],
            &["rate/s"][..usize::from(rated)],
            &["policy"],
        ];
        let first = sweep.points.first();
        let resolution_ns = first.map_or(0.0, |p| 2.0 * p.results.config.timer_overhead_ns);
        let mut grid = Self::new(headers.concat(), all(), resolution_ns);
        for p in &sweep.points {
            let mut keys = vec![p.threads.to_string(), p.affinity.clone()];
            if rated {
                keys.push(p.regime.rate().map_or("max".to_string(), |r| r.to_string()));
            }
            let r = &p.results;
            grid.add_rows(&r.strategies, &labels, &keys, p.regime, &r.config);
        }
        grid
    }

    fn new(
        key_headers: Vec<&'static str>,
        all: impl Iterator<Item = &'a StrategyResult>,
        resolution_ns: f64,
    ) -> Self {
        let levels = first_seen(all.map(|s| s.strategy.level.name().to_string()));
        let rows = Vec::new();
        StrategyGrid {
            key_headers,
            levels,
            rows,
            resolution_ns,
        }
    }

    /// A row per label of `strategies`.
    fn add_rows(
        &mut self,
        strategies: &'a [StrategyResult],
        labels: &RowLabels,
        prefix: &[String],
        regime: Regime,
        config: &'a RunConfig,
    ) {
        for label in first_seen(strategies.iter().map(|s| labels.label(s))) {
            let of = |l: &String| {
                let mut it = strategies.iter();
                it.find(|s| labels.label(s) == label && s.strategy.level.name() == l)
            };
            let cells = self.levels.iter().map(of).collect();
            let keys = [prefix, &[label]].concat();
            self.rows.push(GridRow {
                keys,
                regime,
                cells,
                config,
            });
        }
    }

    /// `m`'s cells, row by row ([`measure_table`]: each change against the row's first level,
    /// decided as the verdict decides them).
    pub fn cells(&self, m: &Measure) -> Vec<Vec<TableCell>> {
        type Row = Vec<Option<Summary>>;
        let value =
            |r: &GridRow| -> Row { r.cells.iter().map(|s| s.and_then(|s| m.of(s))).collect() };
        let paired = |r: &GridRow| -> Row {
            let base = r.cells.first().copied().flatten();
            r.cells
                .iter()
                .map(|test| m.paired(r.config, base?, (*test)?))
                .collect()
        };
        let threshold = |r: &GridRow| m.floor.threshold(NOISE_THRESHOLD, r.regime);
        let rows = || self.rows.iter();
        let (values, paired): (Vec<Row>, Vec<Row>) =
            (rows().map(value).collect(), rows().map(paired).collect());
        let thresholds: Vec<Threshold> = rows().map(threshold).collect();
        measure_table(m, &values, &paired, &thresholds, self.resolution_ns)
    }
}

/// The measures tables show for these strategies, in order: under `--rate` (`paced`) [`PACED`].
pub fn shown_measures<'a>(
    strategies: impl Iterator<Item = &'a StrategyResult> + Clone,
    paced: bool,
) -> Vec<&'static Measure> {
    // Paced, loop ns/op is the pacing period and the net figure is PACED's; flat out, PACED's are
    // not measured.
    let lead: &[Measure] = if paced { &PACED } else { &THROUGHPUT_NS[..2] };
    lead.iter()
        .chain(THROUGHPUT_NS[2..].iter())
        .chain(MEASURES.iter())
        .filter(|m| {
            strategies
                .clone()
                .filter_map(|s| s.summary.as_ref())
                .any(|s| (m.get)(s).is_some())
        })
        .collect()
}

/// The measures a view of one regime gets a table for.
pub fn table_measures(run: &RunResults) -> Vec<&'static Measure> {
    let mut all = shown_measures(run.strategies.iter(), run.regime().is_paced());
    all.retain(|m| !repeats_updates(run, m));
    all
}

/// The measures pages fold under the trusted figures.
pub const DIAGNOSTIC: [&str; 5] = [
    "publishes/s",
    "staleness %",
    "updates/ownership",
    "hand-overs/s",
    "fetches/read",
];

/// True when `m` is a diagnostic figure ([`DIAGNOSTIC`], or sampled).
pub fn diagnostic(m: &Measure) -> bool {
    m.sampled || DIAGNOSTIC.contains(&m.short)
}

/// True when `m`'s table would repeat updates/s row for row.
pub fn repeats_updates(run: &RunResults, m: &Measure) -> bool {
    let cfg = &run.config;
    cfg.reader_cpus.is_empty() && cfg.read_every == 1 && m.short == "read ops/s"
}

/// A table's heading for `m` in a regime (`paced` or flat out).
pub fn table_title(m: &Measure, paced: bool) -> String {
    if m.sampled && !paced {
        format!(
            "{}; fenced samples perturb a hammering writer: the cost is loop ns/op",
            m.heading()
        )
    } else {
        m.heading()
    }
}

/// One table cell: the value (3 significant digits, ± the coefficient of variation) or why there is
/// none, and its change against the row's first level.
pub struct TableCell {
    /// `54.9M ±31%`, `71.6 ns ±3.3%`, `-` when not recorded, or below timer resolution.
    pub value: String,
    /// The mean shown, for sorting; `None` when not recorded or below timer resolution.
    pub mean: Option<f64>,
    /// % change of the mean against the base; `None` in the first column or below resolution.
    pub change_pct: Option<f64>,
    /// The compare engine's decision on that change.
    pub verdict: Option<Decision>,
}

impl TableCell {
    /// The change passes the compare rule: an increase or a decrease beyond noise and doubt.
    pub fn supported(&self) -> bool {
        matches!(self.verdict, Some(Decision::Increase | Decision::Decrease))
    }

    /// The change as a table prints it.
    pub fn change_text(&self) -> String {
        match (self.change_pct, self.supported()) {
            (None, _) => String::new(),
            (Some(pct), true) => format!("{pct:+.1}%"),
            (Some(pct), false) => format!("{pct:+.1}% n.s."),
        }
    }
}

/// Every cell of one measure's table, `rows[r][0]` each row's base.
pub fn measure_table(
    m: &Measure,
    rows: &[Vec<Option<Summary>>],
    paired: &[Vec<Option<Summary>>],
    thresholds: &[Threshold],
    resolution_ns: f64,
) -> Vec<Vec<TableCell>> {
    let resolved = |v: &Option<Summary>| resolved(m, *v, resolution_ns);
    // Every change to decide: (row, level) and (base, value).
    let mut at = Vec::new();
    let mut family = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let Some(base) = row.first().and_then(resolved) else {
            continue;
        };
        for (k, v) in row.iter().enumerate().skip(1) {
            if let Some(v) = resolved(v) {
                at.push((r, k));
                family.push(Compared {
                    base,
                    test: v,
                    paired: paired.get(r).and_then(|p| p.get(k).copied().flatten()),
                    threshold: thresholds[r],
                });
            }
        }
    }
    let cell = |v: &Option<Summary>| value_cell(m, *v, resolution_ns);
    let mut cells: Vec<Vec<TableCell>> =
        rows.iter().map(|r| r.iter().map(cell).collect()).collect();
    // A change of or against noise is noise: no change is printed.
    for ((r, k), o) in at.into_iter().zip(decide_paired(&family)) {
        if ![rows[r][0], rows[r][k]]
            .iter()
            .flatten()
            .any(crate::units::is_noise)
        {
            cells[r][k].change_pct = o.difference.change_pct;
            cells[r][k].verdict = o.p_adjusted.map(|_| o.decision);
        }
    }
    cells
}

/// `value`, unless it is a sampled time under `resolution_ns`.
fn resolved(m: &Measure, value: Option<Summary>, resolution_ns: f64) -> Option<Summary> {
    value.filter(|v| !(m.sampled && v.mean < resolution_ns))
}

/// A cell's value alone, without a change.
pub fn value_cell(m: &Measure, value: Option<Summary>, resolution_ns: f64) -> TableCell {
    let shown = resolved(m, value, resolution_ns);
    let text = match (value, shown) {
        (None, _) => "-".to_string(),
        (Some(_), None) => format!(
            "<{} (below timer resolution)",
            human(resolution_ns, Unit::Nanoseconds)
        ),
        (_, Some(v)) => crate::units::figure(&v, m.unit),
    };
    let mean = shown.map(|v| v.mean);
    TableCell {
        value: text,
        mean,
        change_pct: None,
        verdict: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R2: Threshold = Threshold::relative(2.0);

    fn summary(values: &[f64]) -> Summary {
        Summary::of(values).unwrap()
    }

    #[test]
    fn strategies_measured_in_the_same_repeats_are_marked_on_their_differences() {
        let updates = MEASURES.iter().find(|m| m.short == "updates/s").unwrap();
        // Base 70, 100, 130 and test 73, 103, 133: +3% within a ±30%
        // spread between repeats, n.s. by Welch's test; but each repeat's
        // test is the base + 3 exactly (differences 3, 3, 3.01: a paired
        // t of about 900 on 2 degrees of freedom), so taken in the same
        // repeats it is a change.
        let rows = vec![vec![
            Some(summary(&[70.0, 100.0, 130.0])),
            Some(summary(&[73.0, 103.0, 133.0])),
        ]];
        let alone = measure_table(updates, &rows, &[], &[R2; 2], 0.0);
        assert_eq!(alone[0][1].change_text(), "+3.0% n.s.");
        let paired = vec![vec![None, Some(summary(&[3.0, 3.0, 3.01]))]];
        let in_place = measure_table(updates, &rows, &paired, &[R2; 2], 0.0);
        assert_eq!(in_place[0][1].change_text(), "+3.0%");
        assert_eq!(in_place[0][1].verdict, Some(Decision::Increase));
    }

    #[test]
    fn changes_the_repeats_do_not_support_are_marked() {
        let updates = MEASURES.iter().find(|m| m.short == "updates/s").unwrap();
        // Base 100 ± 1, test +15% ± 1: a change (a +3% within a ±30% spread
        // is not: strategies_measured_in_the_same_repeats_…).
        let clear = [
            summary(&[99.0, 100.0, 101.0]),
            summary(&[114.0, 115.0, 116.0]),
        ];
        let t = measure_table(updates, &[clear.map(Some).to_vec()], &[], &[R2], 0.0);
        // ± is the 95% CI's half-width: t(0.975, 2) · 1 / √3 = 2.48.
        assert_eq!(t[0][0].value, "100 ±2.5%");
        assert_eq!(t[0][0].change_text(), "");
        assert_eq!(t[0][1].value, "115 ±2.2%");
        assert_eq!(t[0][1].change_text(), "+15.0%");
        // An interval wider than the value is noise, and so is any change
        // of it or against it: 10 ± 4.30 · 10 / √3 = 10 ± 24.8.
        let wide = summary(&[0.0, 10.0, 20.0]);
        let rows = vec![
            vec![Some(wide), Some(clear[0])],
            vec![Some(clear[0]), Some(wide)],
        ];
        let t = measure_table(updates, &rows, &[], &[R2; 2], 0.0);
        assert_eq!(t[0][0].value, "noise (±248%)");
        assert_eq!(t[1][1].value, "noise (±248%)");
        assert_eq!((t[0][1].change_pct, t[1][1].change_pct), (None, None));
        // A 0.5% change, however tight, is within the 2% noise threshold.
        let tiny = vec![vec![
            Some(summary(&[1000.0, 1000.1, 999.9])),
            Some(summary(&[1005.0, 1005.1, 1004.9])),
        ]];
        assert_eq!(
            measure_table(updates, &tiny, &[], &[R2; 2], 0.0)[0][1].change_text(),
            "+0.5% n.s."
        );
    }

    #[test]
    fn sampled_values_under_the_resolution_are_not_numbers() {
        let write_sampled = MEASURES.iter().find(|m| m.short == "write ns/op").unwrap();
        let loop_ns = &THROUGHPUT_NS[0];
        // 0.4 ns sampled with a 19.6 ns overhead: below resolution (39.2).
        let rows = vec![vec![Some(summary(&[0.5, 0.5])), Some(summary(&[0.4, 0.4]))]];
        let t = measure_table(write_sampled, &rows, &[], &[R2; 2], 39.2);
        assert_eq!(t[0][1].value, "<39.2 ns (below timer resolution)");
        assert_eq!(t[0][1].change_pct, None);
        // The same value from throughput is a number, with its change.
        let t = measure_table(loop_ns, &rows, &[], &[R2; 2], 39.2);
        assert_eq!(t[0][1].value, "0.400 ns ±0.00%");
        assert!((t[0][1].change_pct.unwrap() + 20.0).abs() < 1e-9);
        // At or above the resolution a sampled value is shown.
        let rows = vec![vec![
            Some(summary(&[40.0, 40.0])),
            Some(summary(&[60.0, 60.0])),
        ]];
        let t = measure_table(write_sampled, &rows, &[], &[R2; 2], 39.2);
        assert_eq!(t[0][1].value, "60.0 ns ±0.00%");
        assert_eq!(t[0][1].change_pct, Some(50.0));
        assert_eq!(
            measure_table(loop_ns, &[vec![None]], &[], &[R2], 1.0)[0][0].value,
            "-"
        );
    }
}
