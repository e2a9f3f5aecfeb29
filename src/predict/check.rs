//! `contend predict --check FILE`: the model set against a run (or sweep)
//! measured under `--rate`, on that run's own topology, CPUs, rates and
//! strategies, with each repeat's canary (the CAS ping-pong before it) as
//! the transfer time of every pair: on a VM the canary is the only latency
//! that follows the hypervisor's phases.

use super::latency::{Bound, Latencies};
use super::model::{Layout, Lines};
use super::{PredictError, publish_fraction, saturation_rate};
use crate::runner::RunResults;
use crate::stats::quantile_of;
use crate::workload::{Arrivals, Regime};
use serde::{Deserialize, Serialize};

/// Points whose predicted ρ is at most this are where the model is held
/// to its target (±25%); busier points are shown, not scored.
pub const SCORED_RHO: f64 = 0.5;

/// A measured net cost this far from its series' low-rate level marks the
/// measured knee.
pub const KNEE_DEPARTURE: f64 = 0.25;

/// One measured point and its prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckPoint {
    /// The series it belongs to: `strategy`, plus the sweep point's
    /// threads and affinity for a sweep.
    pub series: String,
    /// Updates per second per writer.
    pub rate: f64,
    /// Writer threads.
    pub writers: usize,
    /// Repeats predicted and measured.
    pub repeats: usize,
    /// Median canary of those repeats, ns one-way.
    pub canary_ns: f64,
    /// Predicted ρ of the hottest line, mean over repeats.
    pub rho: f64,
    /// Predicted net ns per update, mean over repeats; `None` when a
    /// repeat's canary puts the line past saturation.
    pub predicted_ns: Option<f64>,
    /// Measured net ns per update (busy less the paced floor), mean.
    pub measured_ns: f64,
    /// Its 95% confidence interval, ns.
    pub measured_ci_ns: [f64; 2],
    /// predicted / measured.
    pub ratio: Option<f64>,
}

impl CheckPoint {
    /// Whether this point counts toward the median error: predicted, ρ at
    /// most [`SCORED_RHO`], and a measured cost above zero.
    pub fn scored(&self) -> bool {
        self.unscored().is_none()
    }

    /// Why this point does not count toward the median error, if it
    /// does not.
    pub fn unscored(&self) -> Option<&'static str> {
        if self.ratio.is_none() {
            Some("saturated")
        } else if self.rho > SCORED_RHO {
            Some("ρ > 0.5: not scored")
        } else if self.measured_ns <= 0.0 {
            Some("measured ≤ 0: not scored")
        } else {
            None
        }
    }
}

/// Where one series' measured cost bends, against the predicted
/// saturation rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    /// The series.
    pub series: String,
    /// The lowest rate whose measured net cost is more than
    /// [`KNEE_DEPARTURE`] off the series' low-rate level; `None` when no
    /// point is.
    pub measured_rate: Option<f64>,
    /// The rate at which the model puts ρ = 1, at the series' median
    /// canary; `None` when it never saturates.
    pub predicted_rate: Option<f64>,
    /// measured / predicted.
    pub ratio: Option<f64>,
}

/// A whole check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResults {
    /// The file checked.
    pub file: String,
    /// Where the transfer times came from.
    pub latency_source: String,
    /// Every paced point, in file order.
    pub points: Vec<CheckPoint>,
    /// Median |predicted / measured − 1| over the scored points, %.
    pub median_abs_error_pct: Option<f64>,
    /// Points scored.
    pub scored: usize,
    /// Per series with three or more rates.
    pub knees: Vec<Knee>,
    /// What was skipped and why.
    pub notes: Vec<String>,
}

/// One series of points (a strategy, and a sweep point's threads and
/// affinity): its model and every canary of its repeats.
struct Series {
    name: String,
    lines: Lines,
    policy: crate::counter::PublishPolicy,
    seed: u64,
    arrivals: Arrivals,
    canaries: Vec<f64>,
}

/// Checks the model against `runs` (a run.json's one run, or a sweep's
/// points, each with its series suffix) from `file`. With `latencies` the
/// class figures replace the canary.
pub fn check(
    file: &str,
    runs: &[(String, &RunResults)],
    latencies: Option<&Latencies>,
) -> Result<CheckResults, PredictError> {
    let bad = |reason: String| PredictError::Check {
        file: file.to_string(),
        reason,
    };
    let mut points = Vec::new();
    let mut notes = Vec::new();
    let mut series: Vec<Series> = Vec::new();
    for (suffix, run) in runs {
        let layout = Layout {
            writers: run.config.writer_cpus.clone(),
            readers: run.config.reader_cpus.clone(),
            read_every: run.config.read_every,
        };
        for s in &run.strategies {
            let Regime::Paced { rate, arrivals } = s.regime else {
                continue;
            };
            let name = format!("{}{suffix}", s.name);
            let Some(net) = s.summary.as_ref().and_then(|m| m.net_ns) else {
                notes.push(format!(
                    "{name} at {rate}/s: no net cost (no paced floor), skipped"
                ));
                continue;
            };
            let lines = Lines::new(&run.topology, &layout, s.strategy.level)?;
            if let Some(l) = latencies {
                lines.check(l)?;
            }
            let f = publish_fraction(s.strategy.publish, rate, run.config.seed);
            let mut costs = Vec::new();
            let mut rhos = Vec::new();
            let mut canaries = Vec::new();
            for r in &s.repeats {
                let canary;
                let lat = match (latencies, r.interference.canary_ns) {
                    (Some(l), _) => l,
                    (None, Some(c)) => {
                        canaries.push(c);
                        canary = Latencies::uniform(c, "canary");
                        &canary
                    }
                    (None, None) => {
                        return Err(bad(format!(
                            "{name}: repeat {} has no canary; give --latencies or --latency",
                            r.repeat
                        )));
                    }
                };
                let e = lines.evaluate(rate, f, lat, Bound::Mid, arrivals);
                costs.push(e.cost_ns);
                rhos.push(e.rho);
            }
            if rhos.is_empty() {
                continue;
            }
            let n = rhos.len() as f64;
            let predicted = costs
                .iter()
                .copied()
                .collect::<Option<Vec<f64>>>()
                .map(|c| c.iter().sum::<f64>() / n);
            let canary = median(&canaries).unwrap_or(f64::NAN);
            match series.iter_mut().find(|x| x.name == name) {
                Some(x) => x.canaries.extend(&canaries),
                None => series.push(Series {
                    name: name.clone(),
                    lines,
                    policy: s.strategy.publish,
                    seed: run.config.seed,
                    arrivals,
                    canaries,
                }),
            }
            points.push(CheckPoint {
                series: name,
                rate,
                writers: layout.writers.len(),
                repeats: rhos.len(),
                canary_ns: canary,
                rho: rhos.iter().sum::<f64>() / n,
                ratio: predicted.map(|p| p / net.mean),
                predicted_ns: predicted,
                measured_ns: net.mean,
                measured_ci_ns: [net.ci95_low, net.ci95_high],
            });
        }
    }
    if points.is_empty() {
        return Err(bad(
            "no paced strategy with a net cost (measure with --rate R, e.g. contend run --rate 10k,100k,1M)".into(),
        ));
    }
    let errors: Vec<f64> = points
        .iter()
        .filter(|p| p.scored())
        .filter_map(|p| p.ratio.map(|r| 100.0 * (r - 1.0).abs()))
        .collect();
    let scored = errors.len();
    let knees = series
        .into_iter()
        .filter_map(|x| {
            let mine: Vec<&CheckPoint> = points.iter().filter(|p| p.series == x.name).collect();
            (mine.len() >= 3).then(|| {
                let lat = latencies.cloned().unwrap_or_else(|| {
                    Latencies::uniform(median(&x.canaries).unwrap_or(0.0), "canary")
                });
                let predicted = saturation_rate(|r| {
                    let f = publish_fraction(x.policy, r, x.seed);
                    x.lines.rho(r, f, &lat, Bound::Mid, x.arrivals)
                });
                let measured = measured_knee(&mine);
                Knee {
                    series: x.name,
                    ratio: measured.zip(predicted).map(|(m, p)| m / p),
                    measured_rate: measured,
                    predicted_rate: predicted,
                }
            })
        })
        .collect();
    Ok(CheckResults {
        file: file.to_string(),
        latency_source: latencies.map_or("each repeat's canary".into(), |l| l.source.clone()),
        median_abs_error_pct: median(&errors),
        scored,
        points,
        knees,
        notes,
    })
}

/// The lowest rate of `points` (one series), among those busier than the
/// series' quiet points, whose measured net cost is more than
/// [`KNEE_DEPARTURE`] off the series' low-rate level, with a 95%
/// confidence interval that excludes that level: noise alone does not make
/// a knee. The quiet points are those predicted at ρ ≤ 0.1 and their median
/// is the level; without any, the lowest rate's cost is, and every point
/// may be the knee.
pub fn measured_knee(points: &[&CheckPoint]) -> Option<f64> {
    let mut sorted: Vec<&CheckPoint> = points.to_vec();
    sorted.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    let quiet: Vec<f64> = sorted
        .iter()
        .filter(|p| p.rho <= 0.1)
        .map(|p| p.measured_ns)
        .collect();
    let level = median(&quiet).or_else(|| sorted.first().map(|p| p.measured_ns))?;
    if level <= 0.0 {
        return None;
    }
    sorted
        .iter()
        .filter(|p| p.rho > 0.1 || quiet.is_empty())
        .find(|p| {
            let [lo, hi] = p.measured_ci_ns;
            (p.measured_ns / level - 1.0).abs() > KNEE_DEPARTURE && !(lo..=hi).contains(&level)
        })
        .map(|p| p.rate)
}

/// The median of `v`; `None` when empty.
fn median(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| quantile_of(v, 0.5))
}
