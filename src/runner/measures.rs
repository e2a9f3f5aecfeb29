//! The figures a run summary holds, as tables and `contend compare` show them: what each one
//! measures, in what unit, and which way, if either, is better ([`Direction`], declared once per
//! measure, here).

use super::aggregate::{net_busy_ns, net_cpu_share_pct, paired_difference};
use super::result::{RepeatResult, RunConfig, StrategyResult, StrategySummary};
pub use crate::stats::Direction;
use crate::stats::Summary;
use crate::stats::{NoiseThreshold, Threshold};
use crate::units::Unit;
use crate::workload::Regime;

/// One measure of a strategy's summary, as the text table, the Markdown tables and `contend
/// compare` show it.
pub struct Measure {
    /// What is measured and in which unit.
    pub title: &'static str,
    /// Short name for a table cell (`updates/s`, `write ns/op`).
    pub short: &'static str,
    /// Decimals of the mean.
    pub decimals: usize,
    /// The measure in a strategy's summary.
    pub get: fn(&StrategySummary) -> Option<Summary>,
    /// The measure in one repeat, on which strategies in place pair and runs are priced by line
    /// cost; `None` for a measure only a summary holds.
    pub repeat: Option<fn(&RepeatResult) -> Option<f64>>,
    /// True for ns from sampled (timed) operations.
    pub sampled: bool,
    /// Which way is better, if either: the one place a measure says so.
    pub direction: Direction,
    /// What the numbers are.
    pub unit: Unit,
    /// Whether its differences have the practical floor of the noise threshold.
    pub floor: Floor,
}

/// The absolute floor a measure's differences are decided at, beside the relative noise threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Floor {
    /// None: the relative threshold alone (throughput figures flat out).
    Relative,
    /// A cost per update in ns, at least the threshold's ns.
    PerUpdateNs,
    /// A % of a CPU at a paced rate: the threshold's ns per update at that rate.
    CpuShare,
}

impl Floor {
    /// The threshold of a difference with this floor in `regime`.
    pub fn threshold(self, noise: NoiseThreshold, regime: Regime) -> Threshold {
        let abs = match self {
            Floor::Relative => 0.0,
            Floor::PerUpdateNs => noise.ns,
            Floor::CpuShare => regime.rate().map_or(0.0, |r| noise.ns * r * 1e-7),
        };
        Threshold {
            pct: noise.pct,
            abs,
        }
    }
}

impl Measure {
    /// `test` less `base` in this measure repeat by repeat, where the two ran in place in the same
    /// repeats of one run ([`paired_difference`]).
    pub fn paired(
        &self,
        config: &RunConfig,
        base: &StrategyResult,
        test: &StrategyResult,
    ) -> Option<Summary> {
        paired_difference(config, base, test, self.repeat?)
    }

    /// The measure's heading: its title, then which way is better in words.
    pub fn heading(&self) -> String {
        format!("{} ({})", self.title, self.direction.words())
    }

    /// This measure of `strategy`: `None` when it finished no repeat or did not record the measure.
    pub fn of(&self, strategy: &StrategyResult) -> Option<Summary> {
        strategy.summary.as_ref().and_then(|s| (self.get)(s))
    }
}

/// What a measure is unless it says otherwise: ns to one decimal, of no repeat, neither way better.
const M: Measure = Measure {
    title: "",
    short: "",
    decimals: 1,
    get: |_| None,
    repeat: None,
    sampled: false,
    direction: Direction::Neither,
    unit: Unit::Nanoseconds,
    floor: Floor::Relative,
};

/// Under `--rate`, ops/s is the pacing rate and says nothing about cost.
pub const PACED: [Measure; 4] = [
    Measure {
        title: "net ns per update, paced: busy ns/op less the paced floor's (the same paced loop, no shared write)",
        short: "net ns/update",
        get: |s| s.net_ns,
        repeat: Some(net_busy_ns),
        // A cost per update, net of the floor: less is cheaper.
        direction: Direction::LowerIsBetter,
        floor: Floor::PerUpdateNs,
        ..M
    },
    Measure {
        title: "net CPU share: CPU share less the paced floor's, % of each CPU the counter takes at this rate",
        short: "net CPU %",
        decimals: 3,
        get: |s| s.net_cpu_share_pct,
        repeat: Some(net_cpu_share_pct),
        // The CPU the counter takes at a fixed rate: less leaves more.
        direction: Direction::LowerIsBetter,
        unit: Unit::Percent,
        floor: Floor::CpuShare,
        ..M
    },
    Measure {
        title: "writer ns/op, busy: (interval - time waiting in the pacer) / updates, an update and its read side, harness included",
        short: "busy ns/op",
        get: |s| s.write_busy_ns,
        repeat: Some(|r| Some(r.write_busy_ns)),
        // A cost per update, gross: less is cheaper.
        direction: Direction::LowerIsBetter,
        floor: Floor::PerUpdateNs,
        ..M
    },
    Measure {
        title: "CPU share: busy time / interval of each measured CPU, %, harness included",
        short: "CPU share %",
        decimals: 2,
        get: |s| s.cpu_share_pct,
        repeat: Some(|r| Some(r.cpu_share_pct)),
        // The CPU taken at a fixed rate, gross: less leaves more.
        direction: Direction::LowerIsBetter,
        unit: Unit::Percent,
        floor: Floor::CpuShare,
        ..M
    },
];

/// ns/op from throughput, which hammer tables lead with.
pub const THROUGHPUT_NS: [Measure; 3] = [
    Measure {
        title: "writer ns/op from throughput: writers x interval / updates, an update and its read side",
        short: "loop ns/op",
        get: |s| s.write_loop_ns,
        repeat: Some(|r| Some(r.write_loop_ns)),
        // The cost of an update, counted over every one: less is cheaper.
        direction: Direction::LowerIsBetter,
        ..M
    },
    Measure {
        title: "net ns per update, flat out: loop ns/op less the harness floor's (the same loop alone, no shared write)",
        short: "net ns/update",
        get: |s| s.net_ns,
        // The same less the harness floor: less is cheaper.
        direction: Direction::LowerIsBetter,
        ..M
    },
    Measure {
        title: "reader ns/op from throughput: readers x interval / reads",
        short: "reader ns/op",
        get: |s| s.reader_read_ns,
        // The cost of a read side, counted over every one: less is cheaper.
        direction: Direction::LowerIsBetter,
        ..M
    },
];

/// The one figure for the cost of an update in a regime, which compare, charts, report.html and
/// verdicts use: ns/op from throughput flat out, net busy ns per update when paced.
pub fn cost_measure(regime: Regime) -> &'static Measure {
    match regime {
        Regime::FlatOut => &THROUGHPUT_NS[0],
        Regime::Paced { .. } => &PACED[0],
    }
}

/// The measures, in the order the text table prints them.
pub const MEASURES: [Measure; 9] = [
    Measure {
        title: "write side: updates/s, all writers",
        short: "updates/s",
        decimals: 0,
        get: |s| Some(s.write_ops_per_s),
        repeat: Some(|r| Some(r.write_ops_per_s)),
        // Throughput: more updates in the same time is better.
        direction: Direction::HigherIsBetter,
        unit: Unit::PerSecond,
        ..M
    },
    Measure {
        title: "read side: sum + calc_group_shares per second, all threads",
        short: "read ops/s",
        decimals: 0,
        get: |s| Some(s.read_ops_per_s),
        repeat: Some(|r| Some(r.read_ops_per_s)),
        // Throughput of the read side: more reads in the same time.
        direction: Direction::HigherIsBetter,
        unit: Unit::PerSecond,
        ..M
    },
    Measure {
        title: "write ns/op, sampled: mean of timed updates",
        short: "write ns/op",
        get: |s| s.write_ns,
        sampled: true,
        // Timing perturbs what it times: flat out, several times loop ns/op, by a factor that
        // varies with the strategy.
        direction: Direction::Neither,
        ..M
    },
    Measure {
        title: "read ns/op, sampled: mean of timed read sides",
        short: "read ns/op",
        get: |s| s.read_ns,
        sampled: true,
        // Timed like write ns/op, perturbed likewise.
        direction: Direction::Neither,
        ..M
    },
    Measure {
        title: "publishes/s: atomic adds to shared slots (the line really written)",
        short: "publishes/s",
        decimals: 0,
        get: |s| Some(s.publishes_per_s),
        // Moves with throughput (a faster strategy publishes more per second) and with the policy
        // (a ratelimit publishes less by design): fewer publishes/s is cheaper only at the same
        // updates/s, which this figure alone cannot tell.
        direction: Direction::Neither,
        unit: Unit::PerSecond,
        ..M
    },
    Measure {
        title: "staleness: mean |published sum - true sum| a reader saw, % of the true total, from sampled probes",
        short: "staleness %",
        decimals: 4,
        get: |s| s.error_mean_pct,
        // What a reader gets wrong, % of the true total: a strategy that publishes less is staler
        // by design, but at the same cost a smaller error is plainly better, so less is.
        direction: Direction::LowerIsBetter,
        unit: Unit::Percent,
        ..M
    },
    Measure {
        title: "updates per ownership: publishes / hand-overs of a slot's line between writers, counted exactly from each add's returned value",
        short: "updates/ownership",
        decimals: 2,
        get: |s| s.updates_per_ownership,
        // How long a writer keeps the line: high is a burst (the hammer warning), not a saving.
        direction: Direction::Neither,
        unit: Unit::Count,
        ..M
    },
    Measure {
        title: "hand-overs/s: publishes that found another writer's add on their slot (the line moved between writers)",
        short: "hand-overs/s",
        decimals: 0,
        get: |s| s.handovers_per_s,
        // Moves with throughput (more publishes, more hand-overs) and is 0 by construction where no
        // two writers share a slot.
        direction: Direction::Neither,
        unit: Unit::PerSecond,
        ..M
    },
    Measure {
        title: "lines fetched per read: read sides' lines that found a slot changed since their thread last saw it (the line came from a writer's cache), counted exactly",
        short: "fetches/read",
        decimals: 3,
        get: |s| s.fetches_per_read,
        // Moves with how often writers change the slots a read side sums (their throughput) and
        // with how many slots there are (the shard level): a count of what happened, not a cost.
        direction: Direction::Neither,
        unit: Unit::Count,
        ..M
    },
];

#[cfg(test)]
mod tests {
    use super::super::result::fixture_run;
    use super::*;

    #[test]
    fn a_measure_of_a_strategy_is_its_summary_figure() {
        let mut run = fixture_run();
        let updates = &MEASURES[0];
        let strategy = &run.strategies[0];
        let figure = strategy.summary.as_ref().unwrap().write_ops_per_s;
        assert!(figure.mean > 0.0);
        assert_eq!(updates.of(strategy), Some(figure));
        // A strategy that finished no repeat has no figure.
        run.strategies[0].summary = None;
        assert_eq!(updates.of(&run.strategies[0]), None);
    }

    #[test]
    fn every_measure_declares_its_direction() {
        use Direction::{HigherIsBetter, LowerIsBetter, Neither};
        let declared: Vec<(&str, Direction)> = PACED
            .iter()
            .chain(&THROUGHPUT_NS)
            .chain(&MEASURES)
            .map(|m| (m.short, m.direction))
            .collect();
        // A new measure fails this until its direction is decided here.
        let expected = [
            ("net ns/update", LowerIsBetter),
            ("net CPU %", LowerIsBetter),
            ("busy ns/op", LowerIsBetter),
            ("CPU share %", LowerIsBetter),
            ("loop ns/op", LowerIsBetter),
            ("net ns/update", LowerIsBetter),
            ("reader ns/op", LowerIsBetter),
            ("updates/s", HigherIsBetter),
            ("read ops/s", HigherIsBetter),
            ("write ns/op", Neither),
            ("read ns/op", Neither),
            ("publishes/s", Neither),
            ("staleness %", LowerIsBetter),
            ("updates/ownership", Neither),
            ("hand-overs/s", Neither),
            ("fetches/read", Neither),
        ];
        assert_eq!(declared, expected);
        // Timing perturbs a sampled figure: none is judged.
        for m in PACED.iter().chain(&THROUGHPUT_NS).chain(&MEASURES) {
            if m.sampled {
                assert_eq!(m.direction, Neither, "{}", m.short);
            }
        }
    }
}
