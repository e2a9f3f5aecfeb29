//! `contend compare`: two sides (runs, or two sets of strategies in one
//! run) side by side, a verdict per pair; `--fail-on` makes it a CI gate.

use super::args::FormatArg;
use crate::CliError;
use crate::compare::{Comparison, HostRecord, RECORD_FILE, Side};
use crate::report::Document;
use crate::results;
use crate::runner::RunResults;
use crate::stats::{NOISE_THRESHOLD, NoiseThreshold};
use crate::verdict::Detail;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base: a run.json, a run's folder, or a folder of runs (its replicates); alone, with --base and --test, the runs whose strategies are compared.
    #[arg(value_name = "BASE")]
    pub base_file: PathBuf,

    /// The test: a run.json, a run's folder, or a folder of runs.
    #[arg(value_name = "TEST")]
    pub test_file: Option<PathBuf>,

    /// Base strategies: a short name (global/threshold:64) or a unique start of one, or a part of names (global, always) matched with --test's on the rest.
    #[arg(long, value_name = "SELECTOR", requires = "test")]
    pub base: Option<String>,

    /// Test strategies, picked as --base picks: `--test B,C` sets B and C against the base in one table.
    #[arg(
        long,
        value_name = "SELECTOR",
        requires = "base",
        value_delimiter = ','
    )]
    pub test: Vec<String>,

    /// Print every compared measure of every pair with its p-value, not just the patch table.
    #[arg(long)]
    pub verbose: bool,

    #[doc = "What counts as noise, one per use: the host's record of identical runs (noise.json or a folder of runs), or the threshold P%,Nns [2%,1ns]."]
    #[arg(long, value_name = "FILE|DIR|P%,Nns", allow_hyphen_values = true, long_help = NOISE_HELP)]
    pub noise: Vec<Noise>,

    /// Exit 1 when a pair is called `dearer`, or any `change` either way (a CI gate; the table is printed first).
    #[arg(long, value_name = "VERDICT")]
    pub fail_on: Option<FailOn>,

    /// text, or markdown (tables to paste into a patch description or a pull request).
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: FormatArg,
}

const NOISE_HELP: &str = "What counts as noise; give it once for each. \
    FILE|DIR: the host's record of identical runs that bounds how far a second run lands: a \
    noise.json (`contend run --runs K` writes one in the host folder, the default when it is for \
    these runs' host and settings), or a folder of such runs; without one, a side of one run \
    cannot be told from the noise between runs, and no change is called. P%,Nns: the noise \
    threshold, a percentage of the base mean and, for a paced cost per update, ns (2%, 3%,2ns, \
    2ns) [2%,1ns]: a change whose 95% CI lies within it is no change, however small its p-value.";

/// One `--noise` value: a threshold, or the record's file or folder.
#[derive(Debug, Clone, PartialEq)]
pub enum Noise {
    /// `P%,Nns`.
    Threshold(NoiseThreshold),
    /// A noise.json or a folder of runs.
    Record(PathBuf),
}

impl std::str::FromStr for Noise {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if Path::new(s).exists() {
            return Ok(Noise::Record(s.into()));
        }
        s.parse()
            .map(Noise::Threshold)
            .map_err(|e| format!("{e}, nor a file or folder"))
    }
}

impl CompareArgs {
    /// The threshold given [the default], and the record's file or folder;
    /// the last of each counts.
    fn noise(&self) -> (NoiseThreshold, Option<&Path>) {
        let (mut threshold, mut record) = (NOISE_THRESHOLD, None);
        for n in &self.noise {
            match n {
                Noise::Threshold(t) => threshold = *t,
                Noise::Record(p) => record = Some(p.as_path()),
            }
        }
        (threshold, record)
    }
}

/// What `--fail-on` fails on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// A pair whose cost is dearer.
    Dearer,
    /// A pair whose cost changed, either way.
    Change,
}

pub(super) fn run(_root: &Path, args: &CompareArgs) -> Result<(), CliError> {
    let format = args.format.only("compare", &["text", "markdown"])?;
    let (threshold, record) = args.noise();
    let base_runs = results::read_runs(&args.base_file)?;
    let test_runs = match &args.test_file {
        Some(path) => Some(results::read_runs(path)?),
        None if args.base.is_some() => None,
        None => {
            return Err(CliError::usage(
                "compare needs two result files, or one with --base and --test",
            ));
        }
    };
    let selectors = args.base.iter().cloned().collect();
    let base = side("--base", &args.base_file, &base_runs, selectors)?;
    let test_path = args.test_file.as_deref().unwrap_or(&args.base_file);
    let test_runs = test_runs.as_deref().unwrap_or(&base_runs);
    let test = side("--test", test_path, test_runs, args.test.clone())?;
    let (record, skipped) = host_record(record, &base, &test)?;
    let comparison = Comparison::new(base, test, threshold, record.as_ref())?;
    for w in comparison.warnings.iter().chain(&skipped) {
        eprintln!("warning: {}", crate::report::plain(w));
    }
    let detail = [Detail::Brief, Detail::Full][usize::from(args.verbose)];
    super::emit(&Document::Compare(&comparison, detail), format)?;
    let Some(f) = args.fail_on else { return Ok(()) };
    let (name, called_what) = match f {
        FailOn::Dearer => ("dearer", "dearer"),
        FailOn::Change => ("change", "a change"),
    };
    match comparison.called(f == FailOn::Dearer) {
        0 => Ok(()),
        called => Err(CliError::failure(format!(
            "--fail-on {name}: {called} pair{} called {called_what}",
            if called == 1 { "" } else { "s" }
        ))),
    }
}

/// A host's record and the file it came from.
type Named = (PathBuf, HostRecord);

/// The side of `runs` under `path`, picked by `selectors`.
fn side<'a>(
    option: &'static str,
    path: &Path,
    runs: &'a [(PathBuf, RunResults)],
    selectors: Vec<String>,
) -> Result<Side<'a>, CliError> {
    let runs: Vec<(PathBuf, &RunResults)> = runs.iter().map(|(p, r)| (p.clone(), r)).collect();
    let path = match runs.as_slice() {
        [(file, _)] => file.clone(),
        _ => path.to_path_buf(),
    };
    Ok(Side::new(option, path, runs, selectors)?)
}

/// The host's record that bounds the comparison: `--noise FILE`, or
/// noise.json in either side's host folder when it is for these runs and
/// not made from them; a warning for each found but not for them.
fn host_record(
    named: Option<&Path>,
    base: &Side,
    test: &Side,
) -> Result<(Option<Named>, Vec<String>), CliError> {
    if let Some(path) = named {
        let bad = |what: String| CliError::usage(format!("--noise {}: {what}", path.display()));
        let record = if path.is_dir() {
            let runs = results::read_runs(path)?;
            let side = side("--noise", path, &runs, Vec::new())?;
            HostRecord::of(&side.runs).ok_or_else(|| bad("no run in it".into()))?
        } else {
            results::read_record(path)?
        };
        if let Some(why) = record.not_for(base.run) {
            return Err(bad(format!("not a record of these runs: {why}")));
        }
        if let Some(run) = record.made_from(compared(base, test)) {
            return Err(bad(format!(
                "made from a run compared here ({run}): its spread would count twice; record other runs (contend run --runs 5)"
            )));
        }
        return Ok((Some((path.to_path_buf(), record)), Vec::new()));
    }
    let mut skipped = Vec::new();
    for side in [base, test] {
        let Some(host_dir) = side.runs[0].0.parent().and_then(Path::parent) else {
            continue;
        };
        let path = host_dir.join(RECORD_FILE);
        if !path.is_file() {
            continue;
        }
        match results::read_record(&path) {
            Ok(r) => match (r.not_for(base.run), r.made_from(compared(base, test))) {
                (None, None) => return Ok((Some((path, r)), skipped)),
                (Some(why), _) => skipped.push(format!("{} not used: {why}", path.display())),
                // Made from the runs compared: their spread is already the sides'.
                (None, Some(_)) => {}
            },
            Err(e) => skipped.push(format!("{e}; not used")),
        }
    }
    skipped.dedup();
    Ok((None, skipped))
}

/// The run.json files of both sides.
fn compared<'a>(base: &'a Side, test: &'a Side) -> impl Iterator<Item = &'a Path> {
    base.runs.iter().chain(&test.runs).map(|(p, _)| p.as_path())
}
