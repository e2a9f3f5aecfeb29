//! Runs as the unit of replication (Kalibera and Jones, ISMM 2013): a difference's interval comes
//! from how run means spread, each adjusted by the covariate's slope within runs, never from how
//! repeats do.

use super::{Summary, Welch};

/// One run's repeats of one measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The run's own summary of the measure, over the repeats it used.
    pub summary: Summary,
    /// Each of those repeats' value with the covariate priced beside it
    /// (its line cost, ns); empty where the run did not price every one.
    pub priced: Vec<(f64, f64)>,
}

/// How one run's mean spreads between runs of one experiment on one host, as a record of runs says
/// (`contend run --runs K`): the sd of their adjusted run means and how many runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSpread {
    /// The standard deviation of a run's mean between runs.
    pub sd: f64,
    /// The runs it was estimated from (its degrees of freedom: one less).
    pub runs: usize,
}

/// One side's runs at the run level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// Runs.
    pub runs: usize,
    /// Repeats over all of them.
    pub repeats: usize,
    /// The mean of the runs' means, each adjusted to the common covariate
    /// value where there is one.
    pub mean: f64,
    /// The mean of the runs' covariate means (`None`: no covariate).
    pub covariate: Option<f64>,
    /// The standard deviation of the (adjusted) run means; `None` under
    /// two runs.
    pub run_sd: Option<f64>,
    /// The sd of repeats about their run's mean (and the covariate's slope), pooled over the runs;
    /// `None` with one repeat a run.
    pub within_sd: Option<f64>,
}

impl Level {
    /// The share of the run means' variance between runs: `(run_sd² − within_sd² / n) / run_sd²`, n
    /// the repeats a run, at least 0; `None` under two runs or without a within-run spread.
    pub fn between_share(&self) -> Option<f64> {
        let (run, within) = (self.run_sd?, self.within_sd?);
        let per_run = self.repeats as f64 / self.runs as f64;
        (run > 0.0).then(|| ((run * run - within * within / per_run) / (run * run)).max(0.0))
    }
}

/// The covariate's slope within runs: how much a repeat's value moves per
/// unit of its covariate, with its standard error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    /// The measure's unit per covariate unit.
    pub per_unit: f64,
    /// Its standard error.
    pub std_error: f64,
}

/// Where the run-level spread of a difference came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    /// The pooled standard deviation of a run mean, in the measure's unit.
    pub sd: f64,
    /// Degrees of freedom the sides' own runs gave (their runs less one
    /// each).
    pub from_runs: usize,
    /// Degrees of freedom the host's record gave (its runs less one; 0
    /// without a record).
    pub from_record: usize,
}

impl Spread {
    /// All its degrees of freedom.
    pub fn df(&self) -> usize {
        self.from_runs + self.from_record
    }
}

/// A difference between two sides of runs, at the run level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunsDifference {
    /// The base side.
    pub base: Level,
    /// The test side.
    pub test: Level,
    /// The covariate's slope within runs (`None`: not every repeat priced
    /// it, or it did not vary).
    pub slope: Option<Slope>,
    /// What the covariate alone explains of `test − base`: the slope times the difference of the
    /// sides' covariate means, with its standard error.
    pub host: Option<(f64, f64)>,
    /// The run-level spread (`None`: one run per side and no record, so
    /// the between-run noise is unknown).
    pub spread: Option<Spread>,
    /// The run-level test of the adjusted `test − base`: the spread's error for each side's runs
    /// with the slope's doubt times the covariate difference, Student's t at the spread's df.
    pub welch: Option<Welch>,
}

/// The run-level difference of `test` against `base`, `record` (a host's spread of run means)
/// pooled with the sides' own; `None` when a side has no run or a run no value.
pub fn runs_difference(
    base: &[Run],
    test: &[Run],
    record: Option<RunSpread>,
) -> Option<RunsDifference> {
    if base.is_empty() || test.is_empty() {
        return None;
    }
    let all: Vec<&Run> = base.iter().chain(test).collect();
    let slope = within_slope(&all);
    let grand = slope.map(|_| mean(&all.iter().map(|r| covariate_mean(r)).collect::<Vec<_>>()));
    let (b, b_means) = level(base, slope, grand);
    let (t, t_means) = level(test, slope, grand);
    let host = slope
        .zip(b.covariate.zip(t.covariate))
        .map(|(s, (xb, xt))| {
            let dx = xt - xb;
            (s.per_unit * dx, s.std_error * dx.abs())
        });
    let squares = |means: &[f64], m: f64| means.iter().map(|z| (z - m).powi(2)).sum::<f64>();
    let record = record.filter(|r| r.runs >= 2 && r.sd.is_finite());
    let from_runs = base.len() + test.len() - 2;
    let from_record = record.map_or(0, |r| r.runs - 1);
    let spread = (from_runs + from_record > 0).then(|| {
        let ss = squares(&b_means, b.mean)
            + squares(&t_means, t.mean)
            + record.map_or(0.0, |r| from_record as f64 * r.sd * r.sd);
        Spread {
            sd: (ss / (from_runs + from_record) as f64).sqrt(),
            from_runs,
            from_record,
        }
    });
    let welch = spread.map(|s| {
        let difference = t.mean - b.mean;
        let runs = 1.0 / b.runs as f64 + 1.0 / t.runs as f64;
        let host_se = host.map_or(0.0, |h| h.1);
        let std_error = (s.sd * s.sd * runs + host_se * host_se).sqrt();
        Welch::of(difference, std_error, s.df() as f64)
    });
    Some(RunsDifference {
        base: b,
        test: t,
        slope,
        host,
        spread,
        welch,
    })
}

/// One side of identical runs on their own (a host's record): its level, its within-run slope and
/// the spread of its run means; `None` without runs.
pub fn run_level(runs: &[Run]) -> Option<Level> {
    if runs.is_empty() {
        return None;
    }
    let all: Vec<&Run> = runs.iter().collect();
    let slope = within_slope(&all);
    let grand = slope.map(|_| mean(&all.iter().map(|r| covariate_mean(r)).collect::<Vec<_>>()));
    Some(level(runs, slope, grand).0)
}

/// A side's level and its adjusted run means: each run's mean moved to
/// the covariate value `grand` by `slope`.
fn level(runs: &[Run], slope: Option<Slope>, grand: Option<f64>) -> (Level, Vec<f64>) {
    let b = slope.map_or(0.0, |s| s.per_unit);
    let means: Vec<f64> = runs
        .iter()
        .map(|r| {
            let shift = grand.map_or(0.0, |g| b * (covariate_mean(r) - g));
            r.summary.mean - shift
        })
        .collect();
    let m = mean(&means);
    let run_sd = (runs.len() >= 2).then(|| {
        (means.iter().map(|z| (z - m).powi(2)).sum::<f64>() / (runs.len() - 1) as f64).sqrt()
    });
    // Within runs: each run's own spread, pooled (the slope's share of it
    // is the run's, too small to matter beside the runs').
    let (mut ss, mut df) = (0.0, 0usize);
    for r in runs {
        ss += r.summary.stddev.powi(2) * r.summary.n.saturating_sub(1) as f64;
        df += r.summary.n.saturating_sub(1);
    }
    let level = Level {
        runs: runs.len(),
        repeats: runs.iter().map(|r| r.summary.n).sum(),
        mean: m,
        covariate: grand.map(|_| mean(&runs.iter().map(covariate_mean).collect::<Vec<_>>())),
        run_sd,
        within_sd: (df > 0).then(|| (ss / df as f64).sqrt()),
    };
    (level, means)
}

/// The covariate's slope pooled within runs (each about its own means), `Sxy / Sxx`, and its
/// standard error (a df lost per run and the slope); `None` if no df is left.
fn within_slope(runs: &[&Run]) -> Option<Slope> {
    let (mut sxx, mut sxy, mut n) = (0.0, 0.0, 0usize);
    for r in runs {
        if r.priced.is_empty() {
            return None;
        }
        let (ym, xm) = means(&r.priced);
        for (y, x) in &r.priced {
            sxx += (x - xm).powi(2);
            sxy += (x - xm) * (y - ym);
        }
        n += r.priced.len();
    }
    let df = n.checked_sub(runs.len() + 1).filter(|&d| d > 0)?;
    if !(sxx > 0.0 && sxx.is_finite() && sxy.is_finite()) {
        return None;
    }
    let per_unit = sxy / sxx;
    let mut sse = 0.0;
    for r in runs {
        let (ym, xm) = means(&r.priced);
        for (y, x) in &r.priced {
            sse += (y - ym - per_unit * (x - xm)).powi(2);
        }
    }
    Some(Slope {
        per_unit,
        std_error: (sse / df as f64 / sxx).sqrt(),
    })
}

/// The mean of a run's covariate (0 without one).
fn covariate_mean(r: &Run) -> f64 {
    means(&r.priced).1
}

/// The means of the values and of the covariates of `priced` (0 for
/// none).
fn means(priced: &[(f64, f64)]) -> (f64, f64) {
    let n = priced.len().max(1) as f64;
    let (y, x) = priced
        .iter()
        .fold((0.0, 0.0), |(y, x), p| (y + p.0, x + p.1));
    (y / n, x / n)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(values: &[f64]) -> Run {
        Run {
            summary: Summary::of(values).unwrap(),
            priced: Vec::new(),
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn the_run_is_the_replicate_and_repeats_only_make_its_mean() {
        // Base runs of means 10, 12, 14 (each of three repeats ±1 about
        // it), test runs of means 13, 15, 17: the difference is 3, the
        // pooled sd of run means 2 (each side's run means spread by 2, 2
        // and 2 df), its standard error 2·√(2/3), Student's t with 4 df.
        let side = |m: [f64; 3]| m.map(|m| run(&[m - 1.0, m, m + 1.0]));
        let d =
            runs_difference(&side([10.0, 12.0, 14.0]), &side([13.0, 15.0, 17.0]), None).unwrap();
        let w = d.welch.unwrap();
        assert!(close(w.difference, 3.0, 1e-12), "{w:?}");
        let se = 2.0 * (2.0f64 / 3.0).sqrt();
        assert!(close(w.std_error, se, 1e-12), "{w:?}");
        assert_eq!(w.df, 4.0);
        // t = 3 / 1.633 = 1.837 at 4 df: p = 0.140 (R: 2*pt(-1.837117, 4)).
        assert!(close(w.p, 0.140_06, 1e-4), "{w:?}");
        let s = d.spread.unwrap();
        assert_eq!((s.from_runs, s.from_record), (4, 0));
        assert!(close(s.sd, 2.0, 1e-12));
        assert_eq!((d.base.runs, d.base.repeats), (3, 9));
        assert!(close(d.base.within_sd.unwrap(), 1.0, 1e-12));
        // Runs spread by 2, a run's own mean by 1/√3: most of it lies
        // between runs (4 − 1/3 of 4).
        let share = d.base.between_share().unwrap();
        assert!(close(share, (4.0 - 1.0 / 3.0) / 4.0, 1e-12), "{share}");
        // A hundred times the repeats per run change nothing at the run
        // level: the interval is the runs'.
        let spread = |m| -> Vec<f64> { (0..300).map(|i| m + f64::from(i % 3) - 1.0).collect() };
        let wide = |m: [f64; 3]| m.map(|m| run(&spread(m)));
        let many = runs_difference(&wide([10.0, 12.0, 14.0]), &wide([13.0, 15.0, 17.0]), None);
        assert!(close(many.unwrap().welch.unwrap().std_error, se, 1e-9));
    }

    #[test]
    fn one_run_a_side_needs_a_record_and_pools_its_degrees_of_freedom() {
        let (b, t) = ([run(&[10.0, 11.0, 12.0])], [run(&[14.0, 15.0, 16.0])]);
        let unknown = runs_difference(&b, &t, None).unwrap();
        assert_eq!((unknown.spread, unknown.welch), (None, None));
        // A record of 8 runs whose means spread by 1.5: 7 df, the
        // difference 4 ± t(7)·1.5·√2.
        let record = RunSpread { sd: 1.5, runs: 8 };
        let d = runs_difference(&b, &t, Some(record)).unwrap();
        let w = d.welch.unwrap();
        assert_eq!(w.df, 7.0);
        assert!(close(w.std_error, 1.5 * 2f64.sqrt(), 1e-12), "{w:?}");
        assert_eq!(d.spread.unwrap().from_record, 7);
        // Two runs a side and the record: 2 + 7 df, the sum of squares
        // pooled (sides' means 10, 12 and 14, 16: 2 + 2; record 7 · 2.25).
        let two = |a: f64, b: f64| [run(&[a]), run(&[b])];
        let d = runs_difference(&two(10.0, 12.0), &two(14.0, 16.0), Some(record)).unwrap();
        let s = d.spread.unwrap();
        assert_eq!((s.from_runs, s.from_record), (2, 7));
        let sd = ((2.0 + 2.0 + 7.0 * 2.25) / 9.0f64).sqrt();
        assert!(close(s.sd, sd, 1e-12), "{s:?}");
        // A record of one run says nothing.
        let one = RunSpread { sd: 1.5, runs: 1 };
        assert_eq!(runs_difference(&b, &t, Some(one)).unwrap().welch, None);
    }

    #[test]
    fn a_covariate_that_moved_between_sides_is_taken_out_and_reported() {
        // Value = 50 + 2·line + run noise ±1, exactly: within each run the
        // slope is 2. The test side's lines cost 5 ns more: the raw
        // difference is 10, all of it the host's.
        let mk = |offset: f64, noise: f64| {
            let priced: Vec<(f64, f64)> = [0.0, 1.0, 2.0, 3.0]
                .iter()
                .map(|i| (50.0 + 2.0 * (80.0 + offset + i) + noise, 80.0 + offset + i))
                .collect();
            let values: Vec<f64> = priced.iter().map(|p| p.0).collect();
            Run {
                summary: Summary::of(&values).unwrap(),
                priced,
            }
        };
        let base = [mk(0.0, 1.0), mk(0.0, -1.0), mk(1.0, 0.0)];
        let test = [mk(5.0, 1.0), mk(5.0, -1.0), mk(6.0, 0.0)];
        let d = runs_difference(&base, &test, None).unwrap();
        let s = d.slope.unwrap();
        let slope = close(s.per_unit, 2.0, 1e-9) && close(s.std_error, 0.0, 1e-9);
        assert!(slope, "{s:?}");
        let (explained, _) = d.host.unwrap();
        assert!(close(explained, 10.0, 1e-9), "{explained}");
        let w = d.welch.unwrap();
        assert!(close(w.difference, 0.0, 1e-9), "{w:?}");
        // Adjusted run means: 1, −1, 0 about the same value on both sides.
        assert!(close(d.base.run_sd.unwrap(), 1.0, 1e-9));
        assert!(close(d.base.mean, d.test.mean, 1e-9));
        // Without the covariate the same runs read +10, the host's.
        let bare = |r: [Run; 3]| {
            r.map(|r| Run {
                priced: vec![],
                ..r
            })
        };

        let raw = runs_difference(&bare(base), &bare(test), None).unwrap();
        assert!(close(raw.welch.unwrap().difference, 10.0, 1e-9));
        assert_eq!((raw.slope, raw.host), (None, None));
    }

    #[test]
    fn the_slope_s_error_is_the_pooled_within_run_regression_s() {
        // Two runs of 4 repeats, value = 2·line + e with e = +1, −1, −1,
        // +1 (orthogonal to the lines 0..3 about their mean): the slope is
        // exactly 2, the residuals are e (SSE 8 over both runs), Sxx is 5
        // a run, and the df 8 repeats − 2 run means − 1 slope = 5: the
        // standard error is √(8 / 5 / 10) = 0.4, the pooled within-group
        // slope's of an analysis of covariance.
        let mk = |offset: f64| {
            let priced: Vec<(f64, f64)> = [(0.0, 1.0), (1.0, -1.0), (2.0, -1.0), (3.0, 1.0)]
                .iter()
                .map(|(i, e)| (2.0 * (offset + i) + e, offset + i))
                .collect();
            let values: Vec<f64> = priced.iter().map(|p| p.0).collect();
            Run {
                summary: Summary::of(&values).unwrap(),
                priced,
            }
        };
        let d = runs_difference(&[mk(0.0)], &[mk(5.0)], None).unwrap();
        let s = d.slope.unwrap();
        let slope = close(s.per_unit, 2.0, 1e-12) && close(s.std_error, 0.4, 1e-12);
        assert!(slope, "{s:?}");
        // The test side's lines cost 5 more: the host explains 10, known
        // to ±5 × 0.4.
        let (explained, se) = d.host.unwrap();
        let host = close(explained, 10.0, 1e-12) && close(se, 2.0, 1e-12);
        assert!(host, "{:?}", d.host);
    }

    #[test]
    fn a_record_is_one_sides_level() {
        let runs = [10.0, 12.0, 14.0].map(|m| run(&[m - 1.0, m + 1.0]));
        let l = run_level(&runs).unwrap();
        assert_eq!((l.runs, l.repeats), (3, 6));
        assert!(close(l.run_sd.unwrap(), 2.0, 1e-12) && close(l.mean, 12.0, 1e-12));
        assert!(close(l.within_sd.unwrap(), 2f64.sqrt(), 1e-12));
        assert_eq!(run_level(&[]), None);
        assert_eq!(run_level(&runs[..1]).unwrap().run_sd, None);
    }
}
