//! `contend matrix`: plan the pairs, measure them, save, print.

use super::args::{ClipArg, ResultsArgs};
use super::{Session, load_topology, print_notes, require_live_root};
use crate::CliError;
use crate::matrix::{Home, MatrixRequest, Mode, measure_matrix, plan_matrix};
use crate::predict::c2c::PairMatrix;
use crate::report::{self, Document, Format};
use crate::topology::CpuSpec;
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[doc = "CPUs whose pairs are measured (the matrix's rows and columns, by id)."]
    #[arg(long, value_name = "SPEC", default_value = "all", long_help = CpuSpec::HELP)]
    pub cpus: CpuSpec,

    /// What to do with CPUs --cpus names that this process may not use.
    #[command(flatten)]
    pub clip: ClipArg,

    /// Timed samples per direction of each pair; a sample is a batch of
    /// 100 round trips, its time / 200 one one-way latency.
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub samples: u32,

    /// The node each pair's lines are bound to: first (node of the pair's
    /// lower CPU), second (node of the higher CPU) or node:N.
    #[arg(long, value_name = "WHERE", default_value = "first")]
    pub home: Home,

    /// cas: CAS ping-pong (a locked read-modify-write each turn); rw: flag
    /// hand-off with plain loads and stores.
    #[arg(long, value_name = "MODE", default_value = "cas")]
    pub mode: Mode,

    /// Measure every pair instead of at most --per-class pairs per class.
    #[arg(long)]
    pub all_pairs: bool,

    /// Pairs measured per distance class: the class's lowest pair and a
    /// fixed-seed random sample of the rest (ignored with --all-pairs).
    #[arg(long, value_name = "CAP", default_value_t = 64,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub per_class: u32,

    /// Also write the pairs as core-to-core-latency's CSV (one-way ns,
    /// lower triangle, a row per CPU in id order) to FILE, which
    /// `predict --c2c` and `gallery` read; needs --all-pairs.
    #[arg(long, value_name = "FILE", requires = "all_pairs")]
    pub c2c_csv: Option<PathBuf>,

    /// Where results go and what is printed.
    #[command(flatten)]
    pub output: ResultsArgs,
}

impl MatrixArgs {
    /// The engine's request.
    pub fn request(&self) -> MatrixRequest {
        MatrixRequest {
            cpus: self.cpus.clone(),
            clip: self.clip.clip,
            samples: self.samples as usize,
            home: self.home,
            mode: self.mode,
            per_class: (!self.all_pairs).then_some(self.per_class as usize),
        }
    }
}

pub(super) fn run(root: &Path, args: &MatrixArgs) -> Result<(), CliError> {
    require_live_root(root, "matrix pins real threads")?;
    let topo = load_topology(root)?;
    let session = Session::new(&args.output);
    if session.chatty() {
        print_notes(&topo);
    }
    let plan = plan_matrix(&args.request(), topo)?;
    args.output.check()?;
    session.notes(&plan.notes);
    let bar = session.progress_bar(plan.pairs.len(), "pairs");
    let results = measure_matrix(plan, |done, _| {
        if let Some(b) = &bar {
            b.set_position(done as u64);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let results = results?;
    let dir = crate::results::new_results_dir(
        &args.output.out,
        &results.provenance.hostname,
        &results.provenance.started_utc,
    )?;
    let doc = Document::Matrix(&results);
    let files = report::save(
        &dir,
        &doc,
        &[Format::Csv, Format::Json, Format::Svg, Format::Html],
    )?;
    let mut files = files;
    if let Some(path) = &args.c2c_csv {
        let csv = PairMatrix::of_matrix(&results).ok_or_else(|| {
            CliError::usage("--c2c-csv needs every pair measured: add --all-pairs")
        })?;
        report::save_text(path, &csv.to_csv())?;
        files.push(path.clone());
    }
    session.print(&doc, Format::Text)?;
    session.wrote(&files);
    Ok(())
}
