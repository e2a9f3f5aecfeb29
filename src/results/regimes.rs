//! A run of several regimes (flat out, and paced at each rate), measured
//! interleaved in one run.json, and the views of one regime every table,
//! chart and verdict is drawn from.

use super::{RunResults, StrategyResult};

impl RunResults {
    /// Every regime of the run, in order (`None` = hammer).
    pub fn rates(&self) -> Vec<Option<f64>> {
        if self.config.rates.is_empty() {
            vec![self.config.rate]
        } else {
            self.config.rates.clone()
        }
    }

    /// Fills what files written before several regimes were recorded
    /// lack: the run's one regime, and each strategy's rate.
    pub fn fill_rates(&mut self) {
        if self.config.rates.is_empty() {
            self.config.rates = vec![self.config.rate];
            self.config.sample_every_by_rate = vec![self.config.sample_every];
            for s in &mut self.strategies {
                s.rate = self.config.rate;
            }
        }
    }

    /// The run as one view per regime, in order: each holds that regime's
    /// strategies and floor, with `config.rate` its rate and
    /// `config.rates` that rate alone. A run of one regime is one view,
    /// equal to itself. Every table, chart and verdict of one regime is
    /// drawn from such a view.
    pub fn regimes(&self) -> Vec<RunResults> {
        self.rates()
            .into_iter()
            .map(|rate| {
                let mut view = RunResults {
                    strategies: self
                        .strategies
                        .iter()
                        .filter(|s| s.rate == rate)
                        .cloned()
                        .collect(),
                    paced_floors: self
                        .paced_floors
                        .iter()
                        .filter(|s| s.rate == rate)
                        .cloned()
                        .collect(),
                    floor: if rate.is_none() {
                        self.floor.clone()
                    } else {
                        None
                    },
                    ..self.clone()
                };
                let cfg = &mut view.config;
                if let Some(i) = cfg.rates.iter().position(|r| *r == rate) {
                    cfg.sample_every = cfg
                        .sample_every_by_rate
                        .get(i)
                        .copied()
                        .unwrap_or(cfg.sample_every);
                }
                cfg.rate = rate;
                cfg.rates = vec![rate];
                cfg.sample_every_by_rate = vec![cfg.sample_every];
                view
            })
            .collect()
    }

    /// The paced floor of `rate`, if the run measured one.
    pub fn paced_floor(&self, rate: f64) -> Option<&StrategyResult> {
        self.paced_floors.iter().find(|f| f.rate == Some(rate))
    }
}

#[cfg(test)]
mod tests {
    use crate::results::fixture_run;

    #[test]
    fn a_run_splits_into_one_view_per_regime_and_old_files_get_theirs() {
        // The fixture is a schema-2 hammer run: after reading, one regime.
        let mut run = fixture_run();
        assert_eq!(run.config.rates, [None]);
        assert!(run.strategies.iter().all(|s| s.rate.is_none()));
        let views = run.regimes();
        assert_eq!(views.len(), 1);
        assert_eq!(views[0], run);
        // Add a paced regime at 22k/s: its copy of the strategies, its
        // paced floor and its sampling.
        let mut paced = run.strategies.clone();
        for s in &mut paced {
            s.rate = Some(22e3);
        }
        let mut floor = paced[0].clone();
        floor.name = "global/never/pad128".into();
        run.strategies.extend(paced);
        run.paced_floors.push(floor);
        run.config.rates = vec![None, Some(22e3)];
        run.config.sample_every_by_rate = vec![1024, 4];
        let views = run.regimes();
        assert_eq!(views.len(), 2);
        let (flat, at) = (&views[0], &views[1]);
        assert_eq!((flat.config.rate, at.config.rate), (None, Some(22e3)));
        assert_eq!(
            (flat.config.sample_every, at.config.sample_every),
            (1024, 4)
        );
        assert_eq!((flat.strategies.len(), at.strategies.len()), (2, 2));
        assert!(at.strategies.iter().all(|s| s.rate == Some(22e3)));
        assert!(flat.floor.is_some() && at.floor.is_none());
        assert_eq!((flat.paced_floors.len(), at.paced_floors.len()), (0, 1));
        assert_eq!(run.paced_floor(22e3).unwrap().name, "global/never/pad128");
        assert!(run.paced_floor(1e6).is_none());
    }
}
