//! `contend compare`: two result files (or two sets of strategies in one)
//! side by side in the seeds' format, `base: 90569±1.15%   test:
//! 104152±0.34%`, with a verdict per row (`faster +15.0% [+13.1%,
//! +16.9%]`, `no change`, `inconclusive`) from Welch's t-test on the
//! repeats, Holm-adjusted, and a noise threshold (`--noise-threshold`).

use super::args::PrintArgs;
use crate::CliError;
use crate::compare::{Comparison, Side};
use crate::report::Document;
use crate::results::{self, ResultFile};
use crate::runner::RunResults;
use crate::stats::{NOISE_THRESHOLD, NoiseThreshold};
use crate::verdict::Detail;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base result: run.json or a results folder holding one. Alone,
    /// with --base and --test, the file whose strategies are compared.
    #[arg(value_name = "BASE")]
    pub base_file: PathBuf,

    /// The test result: run.json or a results folder holding one.
    #[arg(value_name = "TEST")]
    pub test_file: Option<PathBuf>,

    /// Base strategies: a strategy by its short name (global/threshold:64)
    /// or any unique start of one (global/thr); or a level (global) or
    /// other part of the name (always, pad128), matched with --test's
    /// strategies on the rest of the name.
    #[arg(long, value_name = "SELECTOR", requires = "test")]
    pub base: Option<String>,

    /// Test strategies, each picked as --base picks the base ones and
    /// compared with it: `--test B,C` (or `--test B --test C`) sets B and
    /// C against the base in one table (node for global/always vs
    /// node/always).
    #[arg(
        long,
        value_name = "SELECTOR",
        requires = "base",
        value_delimiter = ','
    )]
    pub test: Vec<String>,

    /// Print every compared measure of every pair with its p-value (the
    /// default text is the patch table: each strategy's cost per update,
    /// within 72 columns).
    #[arg(long)]
    pub verbose: bool,

    /// Noise threshold: a percentage of the base mean and, for a paced
    /// cost per update, ns (default 2%,1ns). A change whose 95% confidence
    /// interval lies within it is "no change" ("no practical difference"
    /// when the ns bound it), however small its p-value; a change must lie
    /// wholly beyond it (and be significant after Holm's correction). A
    /// net CPU share's ns bound is what those ns take of a CPU at its rate;
    /// throughput figures keep the percentage alone. `0.5` or `3%` sets
    /// the percentage, `2ns` the ns.
    #[arg(long, value_name = "P%,Nns", allow_hyphen_values = true)]
    pub noise_threshold: Option<NoiseThreshold>,

    /// How and where to print.
    #[command(flatten)]
    pub print: PrintArgs,
}

pub(super) fn run(_root: &Path, args: &CompareArgs) -> Result<(), CliError> {
    args.print.check()?;
    let threshold = args.noise_threshold.unwrap_or(NOISE_THRESHOLD);
    let (base_path, base_run) = load_run(&args.base_file)?;
    let (test_path, test_run) = match &args.test_file {
        Some(path) => load_run(path)?,
        None if args.base.is_some() => (base_path.clone(), base_run.clone()),
        None => {
            return Err(CliError::usage(
                "compare needs two result files, or one with --base and --test",
            ));
        }
    };
    let base = Side {
        path: base_path,
        run: &base_run,
        selectors: args.base.iter().cloned().collect(),
    };
    let test = Side {
        path: test_path,
        run: &test_run,
        selectors: args.test.clone(),
    };
    let comparison = Comparison::new(base, test, threshold)?;
    for w in &comparison.warnings {
        eprintln!("warning: {}", crate::report::plain(w));
    }
    args.print.emit(&Document::Compare(
        &comparison,
        if args.verbose {
            Detail::Full
        } else {
            Detail::Brief
        },
    ))
}

/// Loads a run.json; a sweep or matrix is refused.
fn load_run(path: &Path) -> Result<(PathBuf, RunResults), CliError> {
    match results::read(path)? {
        (file, ResultFile::Run(run)) => Ok((file, *run)),
        (file, _) => Err(CliError::usage(format!(
            "{} is a sweep or matrix; compare takes run.json files (contend report prints the others)",
            file.display()
        ))),
    }
}
