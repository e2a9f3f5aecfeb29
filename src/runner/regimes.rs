//! A run of several regimes (flat out, and paced at each rate), measured interleaved in one
//! run.json, and the views of one regime every table, chart and verdict is drawn from.

use super::floor::is_clock_floor;
use super::result::{RunResults, StrategyResult};
use crate::clock::ClockKind;
use crate::stats::Summary;
use crate::workload::Regime;

impl RunResults {
    /// Every regime of the run, in order.
    pub fn rates(&self) -> Vec<Regime> {
        self.config.rates.clone()
    }

    /// The regime of a view of one regime ([`RunResults::regimes`]): the first of the run's.
    pub fn regime(&self) -> Regime {
        self.rates()[0]
    }

    /// The run as one view per regime, in order.
    pub fn regimes(&self) -> Vec<RunResults> {
        self.rates()
            .into_iter()
            .map(|regime| {
                let of = |all: &[StrategyResult]| {
                    all.iter().filter(|s| s.regime == regime).cloned().collect()
                };
                let mut view = RunResults {
                    strategies: of(&self.strategies),
                    paced_floors: of(&self.paced_floors),
                    floor: self.floor.clone().filter(|_| !regime.is_paced()),
                    ..self.clone()
                };
                let cfg = &mut view.config;
                cfg.sample_every = cfg.sample_every_of(regime);
                cfg.rates = vec![regime];
                cfg.sample_every_by_rate = vec![cfg.sample_every];
                view
            })
            .collect()
    }

    /// The paced floor of `regime` as the tables show it.
    pub fn paced_floor(&self, regime: Regime) -> Option<PacedFloor> {
        let repeats = || {
            self.strategies
                .iter()
                .filter(|s| s.regime == regime)
                .flat_map(|s| &s.repeats)
        };
        let busy: Vec<f64> = repeats().filter_map(|r| r.floor_busy_ns).collect();
        let shares: Vec<f64> = repeats().filter_map(|r| r.floor_cpu_share_pct).collect();
        Some(PacedFloor {
            busy_ns: Summary::of(&busy)?,
            cpu_share_pct: Summary::of(&shares),
        })
    }

    /// The clock floor of `regime` for `clock`.
    pub fn clock_floor(&self, regime: Regime, clock: ClockKind) -> Option<&StrategyResult> {
        self.paced_floors.iter().find(|f| {
            f.regime == regime && is_clock_floor(&f.strategy) && f.strategy.clock == Some(clock)
        })
    }

    /// What a ratelimit's read of `clock` costs per update in place at `regime`, ns.
    pub fn clock_cost(&self, regime: Regime, clock: ClockKind) -> Option<Summary> {
        self.clock_floor(regime, clock)?.summary.as_ref()?.net_ns
    }
}

/// The paced floor of one regime ([`RunResults::paced_floor`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacedFloor {
    /// Busy ns per update, over the repeats.
    pub busy_ns: Summary,
    /// Share of each CPU, %, over the repeats (`None` when not recorded).
    pub cpu_share_pct: Option<Summary>,
}

impl PacedFloor {
    /// How this floor was measured and how net figures use it.
    pub fn how(&self) -> &'static str {
        "the same paced loop with no shared write, run in place half way between two updates of every repeat; a strategy's net figures are its busy ns/op and CPU share less its floor's in the same repeat, their CI from those per-repeat differences"
    }
}

#[cfg(test)]
mod tests {
    use super::super::result::{fixture_run, near};
    use crate::workload::Regime;

    #[test]
    fn a_run_splits_into_one_view_per_regime() {
        // The fixture is a flat-out run: one regime.
        let mut run = fixture_run();
        assert_eq!(run.config.rates, [Regime::FlatOut]);
        assert!(run.strategies.iter().all(|s| s.regime == Regime::FlatOut));
        let views = run.regimes();
        assert_eq!(views.len(), 1);
        assert_eq!(views[0], run);
        // Add a paced regime at 22k/s: its copy of the strategies, its paced floor and its
        // sampling.
        let mut paced = run.strategies.clone();
        for s in &mut paced {
            s.regime = Regime::SEED;
        }
        let mut floor = paced[0].clone();
        floor.name = "global/never/pad128".into();
        floor.strategy.publish = crate::counter::PublishPolicy::NEVER;
        run.strategies.extend(paced);
        run.paced_floors.push(floor.clone());
        run.config.rates = vec![Regime::FlatOut, Regime::SEED];
        run.config.sample_every_by_rate = vec![1024, 4];
        let views = run.regimes();
        assert_eq!(views.len(), 2);
        let (flat, at) = (&views[0], &views[1]);
        assert_eq!(
            [flat.regime(), at.regime()],
            [Regime::FlatOut, Regime::SEED]
        );
        let (flat_every, at_every) = (flat.config.sample_every, at.config.sample_every);
        assert_eq!((flat_every, at_every), (1024, 4));
        assert_eq!((flat.strategies.len(), at.strategies.len()), (2, 2));
        assert!(at.strategies.iter().all(|s| s.regime == Regime::SEED));
        assert!(flat.floor.is_some() && at.floor.is_none());
        assert_eq!((flat.paced_floors.len(), at.paced_floors.len()), (0, 1));
        assert!(run.paced_floor(Regime::SEED).is_none());
        assert!(run.paced_floor(Regime::paced(1e6)).is_none());
        // Floors in place win: busy 40 and 44 ns, shares 0.1 and 0.3%.
        for (r, (busy, share)) in run.strategies[2]
            .repeats
            .iter_mut()
            .zip([(40.0, 0.1), (44.0, 0.3)])
        {
            (r.floor_busy_ns, r.floor_cpu_share_pct) = (Some(busy), Some(share));
        }
        let shown = run.paced_floor(Regime::SEED).unwrap();
        assert_eq!((shown.busy_ns.mean, shown.busy_ns.n), (42.0, 2));
        near(shown.cpu_share_pct.unwrap().mean, 0.2, 1e-12);
    }
}
