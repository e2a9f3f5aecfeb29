//! A host's record of how its runs spread: K identical runs (`contend run --runs K`), and for each
//! strategy, regime and compared measure, how their means spread: what bounds a comparison of one
//! run per side.

use super::compared_measures;
use super::side::{in_every_run, setting_differs};
use crate::provenance::Provenance;
use crate::runner::{Measure, RunConfig, RunResults, StrategyResult, UsedRepeats};
use crate::stats::{Run, RunSpread, run_level};
use crate::workload::Regime;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Version of noise.json's layout.
pub const RECORD_SCHEMA: u32 = 1;

/// The file name of a host's record, in its results folder (`results/<host>/noise.json`).
pub const RECORD_FILE: &str = "noise.json";

/// noise.json: how identical runs of one experiment spread on one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostRecord {
    /// [`RECORD_SCHEMA`].
    pub schema: u32,
    /// Always `noise`: what the file is.
    pub kind: String,
    /// Where and with what the runs ran (the first run's).
    pub provenance: Provenance,
    /// The experiment's settings (the first run's).
    pub config: RunConfig,
    /// The runs it was made from, as their files were named.
    pub runs: Vec<PathBuf>,
    /// One row per strategy, regime and compared measure.
    pub spreads: Vec<RecordRow>,
}

/// How one measure of one strategy spread between the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordRow {
    /// The strategy's full name.
    pub strategy: String,
    /// Its short name, as tables show it.
    pub short_name: String,
    /// Its regime (ops/s per thread, or `null` flat out).
    #[serde(rename = "rate")]
    pub regime: Regime,
    /// The measure's short name (`net ns/update`).
    pub measure: String,
    /// Runs.
    pub runs: usize,
    /// Repeats over all of them.
    pub repeats: usize,
    /// The mean of the run means, in the measure's unit.
    pub mean: f64,
    /// The standard deviation of the run means.
    pub run_sd: f64,
    /// The standard deviation of repeats within a run, pooled.
    pub within_sd: Option<f64>,
    /// The share of the run means' variance that lies between runs, not in each run's own repeats.
    pub between_share: Option<f64>,
}

/// One run of `strategy` in `measure` as the run-level estimate takes it.
pub fn run_of(strategy: &StrategyResult, measure: &Measure) -> Option<Run> {
    let summary = measure.of(strategy)?;
    let used = UsedRepeats::of(&strategy.repeats).used;
    let priced: Option<Vec<(f64, f64)>> = used
        .iter()
        .map(|r| Some(((measure.repeat?)(r)?, r.line_ns?)))
        .collect();
    Some(Run {
        summary,
        priced: priced.filter(|p| p.len() >= 2).unwrap_or_default(),
    })
}

impl HostRecord {
    /// The record of `runs` (files and contents, replicates of one experiment: [`super::Side::new`]
    /// checks that): every strategy, regime and compared measure that two or more runs recorded.
    pub fn of(runs: &[(PathBuf, &RunResults)]) -> Option<HostRecord> {
        let (_, first) = runs.first()?;
        let mut spreads = Vec::new();
        for s in &first.strategies {
            let mine = in_every_run(runs, s);
            for m in compared_measures(s.regime) {
                let each: Vec<Run> = mine.iter().filter_map(|o| run_of(o, m)).collect();
                let Some((level, Some(run_sd))) = run_level(&each).map(|l| (l, l.run_sd)) else {
                    continue;
                };
                spreads.push(RecordRow {
                    strategy: s.name.clone(),
                    short_name: first.short_name(s),
                    regime: s.regime,
                    measure: m.short.to_string(),
                    runs: level.runs,
                    repeats: level.repeats,
                    mean: level.mean,
                    run_sd,
                    within_sd: level.within_sd,
                    between_share: level.between_share(),
                });
            }
        }
        Some(HostRecord {
            schema: RECORD_SCHEMA,
            kind: "noise".to_string(),
            provenance: first.provenance.clone(),
            config: first.config.clone(),
            runs: runs.iter().map(|(p, _)| p.clone()).collect(),
            spreads,
        })
    }

    /// The spread of a run's mean of `measure` for `strategy`, if the record holds it.
    pub fn spread(&self, strategy: &StrategyResult, measure: &Measure) -> Option<RunSpread> {
        self.spreads
            .iter()
            .find(|r| {
                r.strategy == strategy.name
                    && r.regime == strategy.regime
                    && r.measure == measure.short
            })
            .map(|r| RunSpread {
                sd: r.run_sd,
                runs: r.runs,
            })
    }

    /// Why this record does not describe runs like `run`, if it does not.
    pub fn not_for(&self, run: &RunResults) -> Option<String> {
        let (p, q) = (&self.provenance, &run.provenance);
        if p.hostname != q.hostname || p.cpu_model != q.cpu_model {
            return Some(format!(
                "it is {} ({}), the runs {} ({})",
                p.hostname, p.cpu_model, q.hostname, q.cpu_model
            ));
        }
        let mut config = run.config.clone();
        config.inject = self.config.inject;
        setting_differs(&self.config, &config).map(|s| format!("its runs' {s} differs"))
    }

    /// The first of `runs` (run.json files) the record was made from, by its folder's name.
    pub fn made_from<'a>(&self, runs: impl IntoIterator<Item = &'a Path>) -> Option<String> {
        let folder = |p: &Path| p.parent().and_then(Path::file_name).map(|n| n.to_owned());
        let mine: Vec<_> = self.runs.iter().filter_map(|p| folder(p)).collect();
        runs.into_iter()
            .filter_map(folder)
            .find(|f| mine.contains(f))
            .map(|f| f.to_string_lossy().into_owned())
    }

    /// The record's runs in words: `8 runs of 2026-12-06T02:41:50Z`.
    pub fn describe(&self, path: &Path) -> String {
        format!(
            "{} ({} runs from {})",
            path.display(),
            self.runs.len(),
            self.provenance.started_utc
        )
    }
}
