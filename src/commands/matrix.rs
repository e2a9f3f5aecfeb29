//! `contend matrix`: plan the pairs, measure them, save, print.

use super::args::{ClipArg, ResultsArgs};
use super::{Session, host_name, is_live, load_topology, print_notes, require_live_root};
use crate::CliError;
use crate::matrix::{Counts, Home, MatrixRequest, Mode, measure_matrix, plan_matrix};
use crate::placement::Placement;
use crate::predict::c2c::PairMatrix;
use crate::report::{self, Document, Format};
use crate::runner::HostCosts;
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
    /// lower CPU), second (node of the higher CPU) or node:N; the
    /// contenders' and sharers' lines, as for the first two CPUs they use.
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

    /// Also time K CPUs adding to one line at once, for each K listed (2,4,8-16) or
    /// every K from 2 (all): the line's ns per hand-over (window / hand-overs, less
    /// the add that took it timed on a private line), with hand-overs counted exactly
    /// and the ns an add costs each CPU. The CPUs are the first K of
    /// the span order (the first CPU, one CPU of each farther class, then the rest
    /// spread over nodes and LLCs).
    #[arg(long, value_name = "K,..|all")]
    pub contenders: Option<Counts>,

    /// Also time one writer whose M readers read the line between its writes, for
    /// each M listed (1,3,7-15) or every M from 1 (all): the writer's add, net of
    /// a private add, against M, with every reader's reads counted. Writer and
    /// readers are the first M + 1 CPUs of the span order.
    #[arg(long, value_name = "M,..|all")]
    pub sharers: Option<Counts>,

    /// Also price read fetched and add moved for up to 2 pairs of each class with
    /// the line on the requesting CPU's node and on another node (the other CPU's,
    /// or the nearest other with memory).
    #[arg(long)]
    pub home_classes: bool,

    /// Also write the pairs as core-to-core-latency's CSV (one-way ns,
    /// lower triangle, a row per CPU in id order) to FILE, which
    /// `predict --host FILE.csv` and `gallery` read; needs --all-pairs.
    #[arg(long, value_name = "FILE", requires = "all_pairs")]
    pub c2c_csv: Option<PathBuf>,

    /// Print the plan (the CPUs, each class's pairs, the estimated wall
    /// time and memory) and stop. Works with --sysfs-root on any fixture
    /// or capture.
    #[arg(long)]
    pub dry_run: bool,

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
            contenders: self.contenders.clone(),
            sharers: self.sharers.clone(),
            home_classes: self.home_classes,
        }
    }
}

pub(super) fn run(root: &Path, args: &MatrixArgs) -> Result<(), CliError> {
    if !args.dry_run {
        require_live_root(
            root,
            "matrix pins real threads (--dry-run reads any --sysfs-root)",
        )?;
    }
    let topo = load_topology(root)?;
    let session = Session::new(&args.output);
    if session.chatty() && !args.dry_run {
        print_notes(&topo);
    }
    let plan = plan_matrix(&args.request(), topo)?;
    if args.dry_run {
        // Two threads a pass, their start-up measured here.
        let pair = &plan.cpus[..2];
        let costs = HostCosts::for_cpus(&plan.topo, is_live(root), pair, Placement::Strict)?;
        print!(
            "{}",
            report::text::matrix_plan_text(&host_name(root), &plan, &costs)
        );
        return Ok(());
    }
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
