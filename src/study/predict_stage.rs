//! The study's predict stage: the model fed with this study's own class latencies (`pricing.rs`
//! chooses which) and its run's CPUs, strategies and rates, then checked against that run; without
//! a run, every allowed CPU a writer at the plan's rate, unchecked.

use super::{PricedWith, StageStatus, StudyResults, pricing, run_strategies};
use crate::predict::{self, Latencies, Layout, PredictRequest};
use crate::runner::RunResults;
use crate::topology::Topology;
use crate::workload::{Arrivals, Regime};

pub(super) fn study_predict(study: &mut StudyResults, topo: &Topology) -> StageStatus {
    let Some(pricing) = pricing::price(study) else {
        return StageStatus::Skipped("no matrix: no class latencies".into());
    };
    let latencies = pricing.latencies.clone();
    let request = match &study.parts.run {
        Some(run) => request_of(run, latencies.clone()),
        None => PredictRequest {
            layout: Layout {
                writers: topo.allowed_cpus.to_vec(),
                readers: Vec::new(),
                read_every: 1,
            },
            levels: crate::counter::ShardLevel::ALL.to_vec(),
            policies: run_strategies().policies,
            rates: vec![study.plan.predict_rate],
            latencies: latencies.clone(),
            arrivals: Arrivals::Poisson,
            walks: crate::predict::Walks::of_seed(1),
            publishes: Vec::new(),
        },
    };
    match predict::predict(topo, &study.plan.host, &request) {
        Ok(p) => study.parts.predict = Some(p),
        Err(e) => return StageStatus::Failed(e.to_string()),
    }
    // Priced at the canaries, the check prices each repeat at its own
    // (predict --check without a --host matrix).
    let check_latencies = (pricing.used != PricedWith::Canary).then_some(&latencies);
    study.parts.check = study.parts.run.as_ref().map(|run| {
        predict::check(
            "run.json",
            &[(String::new(), run)],
            check_latencies,
            &predict::LineCosts::default(),
        )
        .map_err(|e| e.to_string())
    });
    study.pricing = Some(pricing);
    StageStatus::Done
}

/// The prediction of what `run` measured.
fn request_of(run: &RunResults, latencies: Latencies) -> PredictRequest {
    let mut levels = Vec::new();
    let mut policies = Vec::new();
    for s in &run.strategies {
        if !levels.contains(&s.strategy.level) {
            levels.push(s.strategy.level);
        }
        if !policies.contains(&s.strategy.publish) {
            policies.push(s.strategy.publish);
        }
    }
    let paced: Vec<(f64, Arrivals)> = run
        .rates()
        .iter()
        .filter_map(|r| match *r {
            Regime::Paced { rate, arrivals } => Some((rate, arrivals)),
            Regime::FlatOut => None,
        })
        .collect();
    PredictRequest {
        layout: Layout {
            writers: run.config.writer_cpus.clone(),
            readers: run.config.reader_cpus.clone(),
            read_every: run.config.read_every,
        },
        levels,
        policies,
        rates: if paced.is_empty() {
            vec![crate::workload::SEED_RATE]
        } else {
            paced.iter().map(|p| p.0).collect()
        },
        latencies,
        arrivals: paced.first().map_or(Arrivals::Paced, |p| p.1),
        walks: crate::predict::Walks::of_run(&run.config),
        publishes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prediction_is_of_what_the_run_measured() {
        // The fixture run: writers 0 and 1, global and cpu always, flat
        // out; paced at 22k/s with poisson arrivals, and seed 7.
        let mut run = crate::runner::fixture_run();
        let lat = Latencies::uniform(30.0, "test");
        let r = request_of(&run, lat.clone());
        assert_eq!(r.layout.writers, run.config.writer_cpus);
        assert_eq!(r.levels.len(), 2);
        assert_eq!(r.policies, [crate::counter::PublishPolicy::ALWAYS]);
        // Flat out only: the seed's rate, evenly paced.
        assert_eq!((r.rates, r.arrivals), (vec![22e3], Arrivals::Paced));
        let regime = Regime::Paced {
            rate: 1e5,
            arrivals: Arrivals::Poisson,
        };
        run.config.rates = vec![Regime::FlatOut, regime];
        run.config.seed = 7;
        let r = request_of(&run, lat);
        assert_eq!((r.rates, r.arrivals), (vec![1e5], Arrivals::Poisson));
        assert_eq!(r.walks.seed, 7);
    }
}
