//! Strategies in place: which paced strategies share each repeat. Every thread runs each strategy
//! of a group once a period, at staggered offsets (`workload::run_repeat`), so all of them are
//! measured under the same host phase and two strategies' figures pair repeat by repeat.

use crate::clock::ClockKind;
use crate::workload::Regime;
use std::time::Duration;

/// The least of each period one strategy in place needs.
pub const LANE_SPAN: Duration = Duration::from_micros(4);

/// How paced strategies share repeats (`--paced`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PacedMode {
    /// Every paced strategy of a regime in place in every repeat, grouped only where the period
    /// cannot hold them all.
    #[default]
    InPlace,
    /// Each strategy in repeats of its own, taking turns (as flat out).
    Alone,
    /// In place, and each strategy of a group also alone in the same round.
    Both,
}

impl PacedMode {
    /// True when paced strategies share repeats in place (in-place and both).
    pub fn in_place(self) -> bool {
        self != PacedMode::Alone
    }
}

crate::named_enum!(PacedMode, "paced", [InPlace => "in-place", Alone => "alone", Both => "both"]);

/// One group of strategies run in place in the same repeats, as run.json records it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InPlaceGroup {
    /// The regime (paced) its strategies run in.
    pub regime: Regime,
    /// Its strategies' names (clock floors included), in lane order.
    pub strategies: Vec<String>,
}

/// How many strategies one period of `regime` holds in place.
pub fn capacity(regime: Regime) -> usize {
    match regime.rate() {
        Some(rate) => ((1.0 / rate) / LANE_SPAN.as_secs_f64()).floor().max(1.0) as usize,
        None => 1,
    }
}

/// The group of each entry, given each entry's regime and the clock kind its writers read.
pub fn groups(entries: &[(Regime, ClockKind)], mode: PacedMode) -> Vec<usize> {
    let mut group = vec![usize::MAX; entries.len()];
    let mut next = 0;
    for i in 0..entries.len() {
        if group[i] != usize::MAX {
            continue;
        }
        let (regime, clock) = entries[i];
        if !regime.is_paced() || !mode.in_place() {
            group[i] = next;
            next += 1;
            continue;
        }
        let members: Vec<usize> = (i..entries.len())
            .filter(|&j| entries[j] == (regime, clock))
            .collect();
        let parts = members.len().div_ceil(capacity(regime));
        for (n, &j) in members.iter().enumerate() {
            // Member n of m falls in part n·parts/m: sizes differ by 1 at most.
            group[j] = next + n * parts / members.len();
        }
        next += parts;
    }
    group
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_holds_as_many_strategies_as_lane_spans() {
        // 22k/s: a 45.45 µs period, 11 spans of 4 µs; 100k/s: 10 µs, 2; 1M/s: 1 µs, less than one
        // span, still 1; flat out 1.
        assert_eq!(capacity(Regime::paced(22_000.0)), 11);
        assert_eq!(capacity(Regime::paced(100_000.0)), 2);
        assert_eq!(capacity(Regime::paced(1e6)), 1);
        assert_eq!(capacity(Regime::FlatOut), 1);
    }

    #[test]
    fn paced_entries_of_one_regime_and_clock_share_groups_that_fit() {
        let (flat, slow, fast) = (
            Regime::FlatOut,
            Regime::paced(22_000.0),
            Regime::paced(100_000.0),
        );
        let (tsc, mono) = (ClockKind::Tsc, ClockKind::Monotonic);
        // Flat out alone; 22k/s tsc together; its monotonic entry apart; 5 at 100k/s (2 a period):
        // 3 groups of 2, 2 and 1, in order.
        let entries = [
            (flat, tsc),
            (flat, tsc),
            (slow, tsc),
            (slow, mono),
            (slow, tsc),
            (fast, tsc),
            (fast, tsc),
            (fast, tsc),
            (fast, tsc),
            (fast, tsc),
        ];
        assert_eq!(
            groups(&entries, PacedMode::InPlace),
            [0, 1, 2, 3, 2, 4, 4, 5, 5, 6]
        );
        // Both: grouped as in place (the runner adds each alone).
        assert_eq!(
            groups(&entries, PacedMode::Both),
            groups(&entries, PacedMode::InPlace)
        );
        // Alone: every entry its own group.
        assert_eq!(
            groups(&entries, PacedMode::Alone),
            (0..entries.len()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn only_alone_runs_no_strategy_in_place() {
        let in_place = PacedMode::ALL.map(PacedMode::in_place);
        assert_eq!(in_place, [true, false, true]);
    }
}
