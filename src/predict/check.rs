//! `contend predict --check FILE`: the model set against a run (or sweep) measured under `--rate`,
//! on that run's own topology, CPUs, rates and strategies (docs/predict.md, "Checked here").

use super::agreement::{Agreement, Agreement::Agrees, agreement, off_pct};
use super::class::Bound;
use super::costs::LineCosts;
use super::flat_out_check::{HandoverPoint, flat_out_point};
use super::latency::Latencies;
use super::model::{Evaluation, Layout, Lines};
use super::{PredictError, Walks, publish_fraction, saturation_rate};
use crate::matrix::PairClass;
use crate::runner::{RunResults, StrategyResult, UsedRepeats};
use crate::stats::median;
use crate::workload::{Arrivals, Regime};
use serde::{Deserialize, Serialize};

/// A measured net cost this far above its series' lowest-rate level, with a CI above that level,
/// marks the measured knee.
pub const KNEE_DEPARTURE: f64 = 0.25;

/// One measured point and its prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckPoint {
    /// The series it belongs to: `strategy`, plus the sweep point's threads and affinity for a
    /// sweep.
    pub series: String,
    /// Updates per second per writer.
    pub rate: f64,
    /// Writer threads.
    pub writers: usize,
    /// Repeats predicted and measured.
    pub repeats: usize,
    /// How the run's arrivals fell, as the model was told.
    pub arrivals: Option<Arrivals>,
    /// Median canary of those repeats, ns one-way (NaN with a `--host` matrix).
    pub canary_ns: f64,
    /// Predicted ρ of the hottest line, mean over repeats.
    pub rho: f64,
    /// Predicted net ns per update, mean over repeats.
    pub predicted_ns: Option<f64>,
    /// Measured net ns per update (busy less the paced floor), mean.
    pub measured_ns: f64,
    /// Its 95% confidence interval, ns.
    pub measured_ci_ns: [f64; 2],
    /// predicted / measured.
    pub ratio: Option<f64>,
    /// Predicted hand-overs + read fetches per update, mean over writers.
    pub predicted_transfers: f64,
    /// The run's exact count of the same, per update; `None` for a file measured before reads were
    /// counted.
    pub measured_transfers: Option<f64>,
    /// A ratelimit's clock read per update, ns, as the run's clock floor measured it in place;
    /// `None`: no ratelimit or no clock floor.
    pub local_ns: Option<f64>,
}

#[cfg(test)]
impl CheckPoint {
    /// A paced point for tests: `series` at 22k/s on 2 writers, predicted `predicted` ns against
    /// `measured` ns over `repeats` with the 95% CI `ci`, no exact transfer count.
    pub fn example(
        series: &str,
        predicted: f64,
        measured: f64,
        ci: [f64; 2],
        repeats: usize,
    ) -> Self {
        CheckPoint {
            series: series.into(),
            rate: 22_000.0,
            writers: 2,
            repeats,
            arrivals: None,
            canary_ns: 60.0,
            rho: 0.01,
            predicted_ns: Some(predicted),
            measured_ns: measured,
            measured_ci_ns: ci,
            ratio: Some(predicted / measured),
            predicted_transfers: 1.0,
            measured_transfers: None,
            local_ns: None,
        }
    }
}

#[cfg(test)]
impl CheckResults {
    /// A check for tests, each kind of point measured over several repeats and over one: paced `p5`
    /// (5 repeats, [80, 120]) and `p1` (1 repeat), each 90 ns predicted against 100 measured; flat
    /// out `f3` (3 repeats, [17M, 21M]) and `f1` (1 repeat), each 20M hand-overs/s predicted
    /// against 18M counted.
    pub fn example() -> Self {
        let flat = |series: &str, repeats: usize, ci: [f64; 2]| {
            HandoverPoint::example(series, repeats, 20e6, 18e6, ci)
        };
        let paced = |series: &str, repeats: usize, ci: [f64; 2]| {
            CheckPoint::example(series, 90.0, 100.0, ci, repeats)
        };
        CheckResults {
            file: "run.json".into(),
            latency_source: "canary".into(),
            points: vec![
                paced("p5", 5, [80.0, 120.0]),
                paced("p1", 1, [100.0, 100.0]),
            ],
            median_abs_error_pct: Some(10.0),
            agreeing: 1,
            worst: Some(0),
            transfers_median_error_pct: Some(11.1),
            knees: Vec::new(),
            flat_out: vec![flat("f3", 3, [17e6, 21e6]), flat("f1", 1, [18e6, 18e6])],
            flat_out_agreeing: 1,
            flat_out_median_error_pct: Some(11.1),
            notes: Vec::new(),
        }
    }
}

impl CheckPoint {
    /// |predicted − measured| net cost, % of measured; `None` without a finite error.
    pub fn error_pct(&self) -> Option<f64> {
        off_pct(self.predicted_ns?, self.measured_ns).filter(|_| self.measured_ns > 0.0)
    }

    /// Why this point has no finite error: not predicted, or measured at or below 0.
    pub fn no_error(&self) -> Option<&'static str> {
        if self.predicted_ns.is_none() {
            Some("not predicted: saturated")
        } else if self.measured_ns <= 0.0 {
            Some("measured ≤ 0")
        } else {
            None
        }
    }

    /// Whether the prediction agrees with the measured cost.
    pub fn agreement(&self) -> Agreement {
        let (ci, error) = (self.measured_ci_ns, self.error_pct());
        agreement(self.predicted_ns, ci, error, self.repeats)
    }

    /// |predicted − exact| transfers per update, % of exact (0 when both are 0).
    pub fn transfer_error_pct(&self) -> Option<f64> {
        off_pct(self.predicted_transfers, self.measured_transfers?)
    }
}

/// Where one series' measured cost rises, against the predicted saturation rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    /// The series.
    pub series: String,
    /// The lowest rate whose measured net cost rose more than [`KNEE_DEPARTURE`] above the series'
    /// lowest-rate cost, its CI above that cost; `None` when none did.
    pub measured_rate: Option<f64>,
    /// The rate at which the model puts ρ = 1, at the series' median canary.
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
    /// Median over every point of |predicted − measured| net cost, % of measured, a point without a
    /// finite error counting as the worst; `None` when that puts the median among them.
    pub median_abs_error_pct: Option<f64>,
    /// Points that agree ([`CheckPoint::agreement`]).
    pub agreeing: usize,
    /// Index in `points` of the worst point (largest error, one without a finite error first).
    pub worst: Option<usize>,
    /// Median over the counted points of |predicted − exact| transfers per update, % of exact.
    pub transfers_median_error_pct: Option<f64>,
    /// Per series with three or more rates.
    pub knees: Vec<Knee>,
    /// Every flat-out strategy: hand-overs a second predicted against the run's exact count.
    pub flat_out: Vec<HandoverPoint>,
    /// Flat-out points that hand the line over and agree ([`HandoverPoint::agreement`]).
    pub flat_out_agreeing: usize,
    /// Median over the flat-out points that hand the line over of |predicted − counted| hand-overs
    /// a second, % of counted.
    pub flat_out_median_error_pct: Option<f64>,
    /// What was skipped and why.
    pub notes: Vec<String>,
}

/// One series of points (a strategy, and a sweep point's threads and affinity).
struct Series {
    name: String,
    lines: Lines,
    policy: crate::counter::PublishPolicy,
    walks: Walks,
    arrivals: Arrivals,
    canaries: Vec<f64>,
}

/// Checks the model against `runs` (a run.json's one run, or a sweep's points) from `file`, with
/// `latencies` for the classes and `costs` pricing every repeat's line.
pub fn check(
    file: &str,
    runs: &[(String, &RunResults)],
    latencies: Option<&Latencies>,
    costs: &LineCosts,
) -> Result<CheckResults, PredictError> {
    let mut c = Checker {
        file,
        latencies,
        costs,
        points: Vec::new(),
        flat_out: Vec::new(),
        notes: Vec::new(),
        series: Vec::new(),
        stand_in: None,
        priced_by_canary: false,
    };
    for (suffix, run) in runs {
        let layout = Layout {
            writers: run.config.writer_cpus.clone(),
            readers: run.config.reader_cpus.clone(),
            read_every: run.config.read_every,
        };
        for s in &run.strategies {
            let name = format!("{}{suffix}", s.name);
            match s.regime {
                Regime::Paced { rate, arrivals } => {
                    c.paced(run, &layout, s, name, rate, arrivals)?
                }
                _ => c.flat_out(run, &layout, s, name)?,
            }
        }
    }
    c.finish()
}

/// One check under way: what it has found so far.
struct Checker<'a> {
    file: &'a str,
    latencies: Option<&'a Latencies>,
    costs: &'a LineCosts,
    points: Vec<CheckPoint>,
    flat_out: Vec<HandoverPoint>,
    notes: Vec<String>,
    series: Vec<Series>,
    /// The one pair class a canary stands in for, when it does.
    stand_in: Option<PairClass>,
    priced_by_canary: bool,
}

impl Checker<'_> {
    fn bad(&self, reason: String) -> PredictError {
        PredictError::Check {
            file: self.file.to_string(),
            reason,
        }
    }

    /// The strategy's lines, each of its used repeats priced at its latencies, and the run's walks.
    fn priced(
        &mut self,
        run: &RunResults,
        layout: &Layout,
        s: &StrategyResult,
        name: &str,
    ) -> Result<(Lines, Vec<Latencies>, Walks), PredictError> {
        let lines = Lines::new(&run.topology, layout, s.strategy.level)?;
        match self.latencies {
            Some(l) => lines.check(l)?,
            None => one_class(&lines, &mut self.stand_in).map_err(|e| self.bad(e))?,
        }
        self.costs.check_home(lines.classes())?;
        let used = UsedRepeats::of(&s.repeats).used;
        let mut lats = Vec::with_capacity(used.len());
        let mut unpriced = Vec::new();
        for r in &used {
            // Without --host latencies, the repeat's canary prices every class.
            let canary =
                |c| Latencies::uniform(c, "canary").priced_by(&r.interference.canary_transactions);
            let lat = self.latencies.cloned();
            let mut lat = lat
                .or_else(|| r.interference.canary_ns.map(canary))
                .ok_or_else(|| {
                    self.bad(format!(
                        "{name}: repeat {} has no canary; give --host a matrix or class latencies",
                        r.repeat
                    ))
                })?;
            lat.costs = self.costs.clone();
            match lat.positive() {
                Ok(()) => {}
                // A canary's transaction net of ≤ 0 beside its ping-pong: that repeat's canary
                // cannot price it.
                Err(e) if self.latencies.is_none() => {
                    unpriced.push(format!("{} ({:.2} ns)", r.repeat, e.ns));
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
            self.priced_by_canary |= self.latencies.is_none() && lat.priced();
            lats.push(lat);
        }
        if !unpriced.is_empty() {
            self.notes.push(format!(
                "{name}: {} of {} repeats left out, their canary's transactions found no transfer beside its ping-pong (the host moved the CPUs during the canary): repeat {}",
                unpriced.len(),
                used.len(),
                unpriced.join(", repeat ")
            ));
        }
        Ok((lines, lats, Walks::of_run(&run.config)))
    }

    /// A flat-out strategy: its hand-overs a second against the count.
    fn flat_out(
        &mut self,
        run: &RunResults,
        layout: &Layout,
        s: &StrategyResult,
        name: String,
    ) -> Result<(), PredictError> {
        let (lines, lats, walks) = self.priced(run, layout, s, &name)?;
        match flat_out_point(name.clone(), s, &lines, layout.writers.len(), walks, &lats) {
            Some(p) => self.flat_out.push(p),
            None => self
                .notes
                .push(format!("{name} flat out: no hand-over count, skipped")),
        }
        Ok(())
    }

    /// A paced strategy at `rate`: its net cost and transfers per update predicted at each repeat's
    /// latencies against the measured ones.
    fn paced(
        &mut self,
        run: &RunResults,
        layout: &Layout,
        s: &StrategyResult,
        name: String,
        rate: f64,
        arrivals: Arrivals,
    ) -> Result<(), PredictError> {
        let Some(net) = s.summary.as_ref().and_then(|m| m.net_ns) else {
            self.notes.push(format!(
                "{name} at {rate}/s: no net cost (no paced floor), skipped"
            ));
            return Ok(());
        };
        let (lines, lats, walks) = self.priced(run, layout, s, &name)?;
        let f = publish_fraction(s.strategy.publish, rate, walks);
        // A ratelimit's own clock read on every update, measured in place by the run's clock floor.
        let clock = s
            .strategy
            .clock
            .filter(|_| s.strategy.publish.ratelimit.is_some());
        let local_ns = clock
            .and_then(|c| run.clock_cost(s.regime, c))
            .map(|c| c.mean);
        if clock.is_some() && local_ns.is_none() {
            self.notes.push(format!(
                "{name} at {rate}/s: the run has no clock floor, so its clock read is not charged"
            ));
        }
        if lats.is_empty() {
            return Ok(());
        }
        let evaluated: Vec<Evaluation> = lats
            .iter()
            .map(|lat| lines.evaluate(rate, f, lat, Bound::Mid, arrivals))
            .collect();
        let n = evaluated.len() as f64;
        let mean = |g: &dyn Fn(&Evaluation) -> f64| evaluated.iter().map(g).sum::<f64>() / n;
        let predicted = mean(&|e| e.cost_ns) + local_ns.unwrap_or(0.0);
        let canaries: Vec<f64> = (s.repeats.iter().filter(|_| self.latencies.is_none()))
            .filter_map(|r| r.interference.canary_ns)
            .collect();
        let canary = median(&canaries).unwrap_or(f64::NAN);
        match self.series.iter_mut().find(|x| x.name == name) {
            Some(x) => x.canaries.extend(&canaries),
            None => self.series.push(Series {
                name: name.clone(),
                lines,
                policy: s.strategy.publish,
                walks,
                arrivals,
                canaries,
            }),
        }
        self.points.push(CheckPoint {
            series: name,
            rate,
            arrivals: Some(arrivals),
            writers: layout.writers.len(),
            repeats: evaluated.len(),
            canary_ns: canary,
            rho: mean(&|e| e.rho),
            ratio: Some(predicted / net.mean),
            predicted_ns: Some(predicted),
            measured_ns: net.mean,
            measured_ci_ns: [net.ci95_low, net.ci95_high],
            predicted_transfers: mean(&|e| e.handovers + e.read_transfers),
            local_ns,
            measured_transfers: exact_transfers(s),
        });
        Ok(())
    }

    /// Per series of at least three rates, the measured knee against the predicted saturation rate.
    fn knees(&mut self) -> Vec<Knee> {
        let series = std::mem::take(&mut self.series);
        series
            .into_iter()
            .filter_map(|x| {
                let mine: Vec<&CheckPoint> =
                    self.points.iter().filter(|p| p.series == x.name).collect();
                (mine.len() >= 3).then(|| {
                    let mut lat = self.latencies.cloned().unwrap_or_else(|| {
                        Latencies::uniform(median(&x.canaries).unwrap_or(0.0), "canary")
                    });
                    lat.costs = self.costs.clone();
                    let predicted = saturation_rate(|r| {
                        let f = publish_fraction(x.policy, r, x.walks);
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
            .collect()
    }

    /// The check's result: the medians, the worst point, the knees.
    fn finish(mut self) -> Result<CheckResults, PredictError> {
        if self.points.is_empty() && self.flat_out.is_empty() {
            return Err(self.bad(
                "no paced strategy with a net cost and no flat-out strategy with hand-over counts (measure with contend run --rate max,10k,100k,1M)".into(),
            ));
        }
        let knees = self.knees();
        let handing_over = || self.flat_out.iter().filter(|p| !p.nothing_handed_over());
        let flat_out_errors: Vec<Option<f64>> =
            handing_over().map(HandoverPoint::error_pct).collect();
        let points = self.points;
        let errors: Vec<Option<f64>> = points.iter().map(CheckPoint::error_pct).collect();
        let worst = (0..points.len()).max_by(|&a, &b| worst_first(errors[a], errors[b]));
        let counted: Vec<Option<f64>> = points
            .iter()
            .filter(|p| p.measured_transfers.is_some())
            .map(CheckPoint::transfer_error_pct)
            .collect();
        let mut notes = self.notes;
        notes.extend(self.costs.inputs());
        if counted.is_empty() {
            notes.push(
                "the file predates exact read-fetch counts: transfers per update are predicted only"
                    .into(),
            );
        }
        let latency_source = match (self.latencies, self.stand_in) {
            (Some(l), _) => format!("{}; {}", l.source, l.pricing()),
            (None, Some(class)) => format!(
                "each repeat's canary, standing in for the run's one pair class ({class}), {}; give --host a matrix for per-class figures",
                if self.priced_by_canary {
                    "each transaction priced as the canary measured it"
                } else {
                    "every transfer at its ping-pong (the file has no canary transactions)"
                }
            ),
            (None, None) => "each repeat's canary".into(),
        };
        Ok(CheckResults {
            file: self.file.to_string(),
            latency_source,
            median_abs_error_pct: median_with_worst(&errors),
            agreeing: points.iter().filter(|p| p.agreement() == Agrees).count(),
            worst,
            transfers_median_error_pct: median_with_worst(&counted),
            flat_out_agreeing: handing_over().filter(|p| p.agreement() == Agrees).count(),
            flat_out_median_error_pct: median_with_worst(&flat_out_errors),
            flat_out: self.flat_out,
            points,
            knees,
            notes,
        })
    }
}

/// The lowest rate of `points` (one series) whose measured net cost rose more than
/// [`KNEE_DEPARTURE`] above the lowest-rate cost, its 95% CI wholly above it.
pub fn measured_knee(points: &[&CheckPoint]) -> Option<f64> {
    let mut sorted: Vec<&CheckPoint> = points.to_vec();
    sorted.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    let (first, rest) = sorted.split_first()?;
    let level = first.measured_ns;
    rest.iter()
        .find(|p| {
            p.measured_ns > level + KNEE_DEPARTURE * level.abs() && p.measured_ci_ns[0] > level
        })
        .map(|p| p.rate)
}

/// Orders errors so the worst is greatest: no finite error above any.
fn worst_first(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    let key = |e: Option<f64>| e.unwrap_or(f64::INFINITY);
    key(a).total_cmp(&key(b))
}

/// The median of `errors`, each `None` counted as larger than any figure.
fn median_with_worst(errors: &[Option<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = errors.iter().map(|e| e.unwrap_or(f64::INFINITY)).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let m = match n {
        0 => return None,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    };
    m.is_finite().then_some(m)
}

/// With no `--host` latencies, the canary may stand in only for a run whose lines make one pair
/// class; notes it in `stand_in`.
fn one_class(lines: &Lines, stand_in: &mut Option<PairClass>) -> Result<(), String> {
    let distinct: std::collections::BTreeSet<PairClass> =
        lines.classes().chain(*stand_in).collect();
    match Vec::from_iter(distinct).as_slice() {
        [] => Ok(()),
        [one] => {
            *stand_in = Some(*one);
            Ok(())
        }
        many => Err(format!(
            "the run's CPUs make {} pair classes ({}), and its canary measures one pair: give --host matrix.json (contend matrix on the same host) for per-class figures",
            many.len(),
            many.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The run's exact transfers per update of strategy `s`.
fn exact_transfers(s: &StrategyResult) -> Option<f64> {
    let counted = s
        .repeats
        .iter()
        .all(|r| r.writer_read_fetches.len() == r.writer_updates.len());
    let updates: u64 = s.repeats.iter().flat_map(|r| &r.writer_updates).sum();
    let moved: u64 = s
        .repeats
        .iter()
        .map(|r| r.handovers + r.writer_read_fetches.iter().sum::<u64>())
        .sum();
    (counted && updates > 0).then(|| moved as f64 / updates as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::ShardLevel;
    use crate::predict::tests::{says, spr};

    #[test]
    fn a_point_without_a_finite_error_counts_as_the_worst() {
        let inf = None;
        // Odd: the middle one. Even: the mean of the middle two. Half or more without a finite
        // error: the median is not finite.
        for (errors, want) in [
            (&[Some(30.0), Some(10.0), Some(20.0)][..], Some(20.0)),
            (&[Some(10.0), inf, Some(20.0)], Some(20.0)),
            (&[Some(10.0), inf, Some(20.0), Some(40.0)], Some(30.0)),
            (&[Some(10.0), inf], None),
            (&[], None),
        ] {
            assert_eq!(median_with_worst(errors), want, "{errors:?}");
        }
        let errors = [Some(500.0), inf, Some(5.0)];
        let worst = (0..3).max_by(|&a, &b| worst_first(errors[a], errors[b]));
        assert_eq!(worst, Some(1));
    }

    #[test]
    fn exact_transfers_are_hand_overs_and_writer_fetches_per_update() {
        // Two repeats of 2 writers: 1000 + 1000 and 500 + 500 updates; 300 and 100 hand-overs;
        // fetches 50 + 150 and 0 + 0: 600 / 3000.
        let mut s = crate::runner::fixture_run().strategies[0].clone();
        assert_eq!(exact_transfers(&s), None, "the fixture predates the count");
        s.repeats.truncate(2);
        for (r, (updates, handovers, fetches)) in s
            .repeats
            .iter_mut()
            .zip([(1000, 300, [50, 150]), (500, 100, [0, 0])])
        {
            r.writer_updates = vec![updates, updates];
            r.handovers = handovers;
            r.writer_read_fetches = fetches.to_vec();
        }
        assert_eq!(exact_transfers(&s), Some(0.2));
        // One repeat without counts: the strategy has none.
        s.repeats[1].writer_read_fetches.clear();
        assert_eq!(exact_transfers(&s), None);
    }

    #[test]
    fn the_canary_stands_in_only_for_one_class() {
        let lines = |writers: &[u32]| spr(writers, &[], 1, ShardLevel::Global);
        // CPUs 0 and 1 share an LLC: one class.
        let mut stand_in = None;
        one_class(&lines(&[0, 1]), &mut stand_in).unwrap();
        assert_eq!(stand_in.map(|c| c.to_string()).as_deref(), Some("same-llc"));
        // 0, 1 and 112 (the other socket): two classes, an error naming them; and a second series
        // of another class is refused too.
        let e = one_class(&lines(&[0, 1, 112]), &mut None).unwrap_err();
        assert!(e.starts_with("the run's CPUs make 2 pair classes"), "{e}");
        says(&e, "--host");
        let e = one_class(&lines(&[0, 112]), &mut stand_in).unwrap_err();
        says(&e, "2 pair classes");
    }
}
