//! Options of `contend compare`.

use clap::Args;
use std::path::PathBuf;

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

    /// Base strategies: a level (global), a strategy-name prefix
    /// (global/always) or part (pad128), or a full name; matched with
    /// --test's strategies on the rest of the name.
    #[arg(long, value_name = "SELECTOR", requires = "test")]
    pub base: Option<String>,

    /// Test strategies, picked as --base picks the base ones (node for
    /// global/always/pad128 vs node/always/pad128).
    #[arg(long, value_name = "SELECTOR", requires = "base")]
    pub test: Option<String>,

    /// Print a Markdown table for a pull request instead of text.
    #[arg(long)]
    pub markdown: bool,

    /// Write the comparison to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Overwrite the --out file if it exists.
    #[arg(long, requires = "out")]
    pub force: bool,
}
