//! The study's predict stage: the model fed with this study's own matrix
//! and its run's own CPUs, strategies, rates and arrivals, then checked
//! against that run (`predict --check`), so the study says how far its
//! model is from what it measured. Without a run, every allowed CPU a
//! writer at the plan's rate with poisson arrivals, unchecked.

use super::{CanaryCheck, StageStatus, StudyResults, run_strategies};
use crate::predict::{self, Latencies, Layout, PredictRequest};
use crate::runner::RunResults;
use crate::topology::Topology;
use crate::workload::{Arrivals, Regime};

pub(super) fn study_predict(study: &mut StudyResults, topo: &Topology) -> StageStatus {
    let Some(matrix) = &study.parts.matrix else {
        return StageStatus::Skipped("no matrix: no class latencies".into());
    };
    let latencies = Latencies::from_matrix(matrix, "this study's matrix");
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
            seed: 1,
        },
    };
    match predict::predict(topo, &study.plan.host, &request) {
        Ok(p) => study.parts.predict = Some(p),
        Err(e) => return StageStatus::Failed(e.to_string()),
    }
    study.parts.check = study.parts.run.as_ref().map(|run| {
        predict::check("run.json", &[(String::new(), run)], Some(&latencies))
            .map_err(|e| e.to_string())
    });
    study.parts.canary_check = study
        .parts
        .run
        .as_ref()
        .and_then(|run| canary_check(run, &latencies));
    StageStatus::Done
}

/// A matrix class figure and the run's canary this far apart (as a
/// fraction of the matrix's) say the host's core-to-core latency moved
/// between the two stages.
pub const CANARY_MOVED: f64 = 0.25;

/// When the matrix has one class and the run's median canary is more
/// than [`CANARY_MOVED`] away from it, the check again with each repeat's
/// canary pricing that repeat (as `predict --check` does without
/// `--latencies`); `None` otherwise, or when that check cannot be made.
fn canary_check(run: &RunResults, matrix: &Latencies) -> Option<CanaryCheck> {
    let [(_, class)] = matrix.classes.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let canaries: Vec<f64> = run
        .strategies
        .iter()
        .flat_map(|s| &s.repeats)
        .filter_map(|r| r.interference.canary_ns)
        .collect();
    if canaries.is_empty() {
        return None;
    }
    let median = crate::stats::quantile_of(&canaries, 0.5);
    ((median / class.ns - 1.0).abs() > CANARY_MOVED).then_some(())?;
    let check = predict::check("run.json", &[(String::new(), run)], None).ok()?;
    Some(CanaryCheck {
        canary_ns: median,
        matrix_ns: class.ns,
        check,
    })
}

/// The prediction of what `run` measured: its CPUs and read side, its
/// strategies' levels and policies, its paced rates (the seed's rate when
/// it ran only flat out) and their arrivals, its seed.
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
        seed: run.config.seed,
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
        assert_eq!(
            (r.rates.as_slice(), r.arrivals),
            (&[22e3][..], Arrivals::Paced)
        );
        let regime = Regime::Paced {
            rate: 1e5,
            arrivals: Arrivals::Poisson,
        };
        run.config.rates = vec![Regime::FlatOut, regime];
        run.config.seed = 7;
        let r = request_of(&run, lat);
        assert_eq!(
            (r.rates.as_slice(), r.arrivals),
            (&[1e5][..], Arrivals::Poisson)
        );
        assert_eq!(r.seed, 7);
    }

    #[test]
    fn a_canary_far_from_the_matrix_checks_again_at_the_canary() {
        // The fixture's canaries: 10, 40, 20, 30 ns, median 25. Paced at
        // 1k/s with a net cost measured.
        let mut run = crate::runner::fixture_run();
        for s in &mut run.strategies {
            s.regime = Regime::paced(1e3);
            s.summary.as_mut().unwrap().net_ns = crate::stats::Summary::of(&[18.0, 22.0]);
        }
        let matrix = |ns: &str| {
            let arg: crate::predict::LatencyArg = format!("same-llc={ns}").parse().unwrap();
            Latencies::from_args(&[arg])
        };
        // 57.5 ns: the canary is 57% below it: checked again, at 25 ns
        // for global/always (its prediction the mean canary).
        let cc = canary_check(&run, &matrix("57.5ns")).unwrap();
        assert_eq!((cc.canary_ns, cc.matrix_ns), (25.0, 57.5));
        let global = &cc.check.points[0];
        assert!(
            (global.predicted_ns.unwrap() - 25.0).abs() < 0.01,
            "{global:?}"
        );
        // 30 ns: within 25% of the canary, nothing more to say.
        assert!(canary_check(&run, &matrix("30ns")).is_none());
        // 20 ns: 25% above it exactly is still within.
        assert!(canary_check(&run, &matrix("20ns")).is_none());
        assert!(canary_check(&run, &matrix("19ns")).is_some());
    }
}
