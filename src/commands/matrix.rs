//! `contend matrix`: plan the pairs, measure them, save, print.

use super::args::{CpusArg, Print, ResultsArgs};
use super::{Session, check_out, host_name, is_live, load_topology, measuring};
use crate::CliError;
use crate::matrix::{Counts, Home, MatrixRequest, Mode, measure_matrix, plan_matrix};
use crate::placement::Placement;
use crate::predict::c2c::PairMatrix;
use crate::report::{self, Document, Format};
use crate::runner::HostCosts;
use crate::topology::CpuSpec;
use clap::Args;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Options of `contend matrix`.
#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[doc = "CPUs whose pairs are measured, by id (SPEC:clip keeps the allowed ones)."]
    #[arg(long, value_name = "SPEC", default_value = "all", long_help = CpuSpec::HELP)]
    pub cpus: CpusArg,

    /// Timed samples per direction of each pair; a sample is 100 round trips, its time / 200 one one-way latency.
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub samples: u32,

    /// cas: CAS ping-pong (a locked read-modify-write each turn); rw: flag hand-off with plain loads and stores; :home=WHERE binds each pair's lines to first (the lower CPU's node), second (the higher's) or node:N [cas:home=first].
    #[arg(long, value_name = "MODE[:home=WHERE]", default_value = "cas")]
    pub mode: ModeArg,

    /// Pairs measured per distance class (the lowest and a fixed-seed sample of the rest), or all.
    #[arg(long, value_name = "N|all", default_value = "64")]
    pub pairs: Pairs,

    #[doc = "Also measure or write, one per use: contenders:K,..|all, sharers:M,..|all, home (each class's line local and remote), c2c:FILE (core-to-core-latency CSV; needs --pairs all)."]
    #[arg(long, value_name = "WHAT", long_help = ALSO_HELP)]
    pub also: Vec<Also>,

    /// Where results go and what is printed.
    #[command(flatten)]
    pub output: ResultsArgs,
}

const ALSO_HELP: &str = "Also measure or write, one item per use (--also contenders:all --also home): \
    contenders:K,.. (2,4,8-16) or contenders:all times K CPUs adding to one line at once, the line's \
    ns per hand-over with hand-overs counted exactly, on the first K CPUs of the span order; \
    sharers:M,.. or sharers:all times one writer whose M readers read the line between its writes; \
    home prices read fetched and add moved for up to 2 pairs of each class with the line on the \
    requesting CPU's node and on another; c2c:FILE also writes the pairs as core-to-core-latency's \
    CSV (one-way ns, lower triangle), which predict --host FILE.csv and gallery read (needs --pairs all).";

/// `--pairs`: a cap per distance class, or every pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairs(Option<usize>);

impl FromStr for Pairs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match (s.trim(), s.trim().parse::<usize>()) {
            ("all", _) => Ok(Pairs(None)),
            (_, Ok(cap)) if cap > 0 => Ok(Pairs(Some(cap))),
            _ => Err(format!(
                "\"{s}\" is not a count of pairs per class (64) or all"
            )),
        }
    }
}

/// `--mode MODE[:home=WHERE]`: how a pair hands its line over, and the
/// node the line is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeArg {
    mode: Mode,
    home: Home,
}

impl FromStr for ModeArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (mode, home) = match s.trim().split_once(":home=") {
            Some((m, h)) => (m, h.parse::<Home>().map_err(|e| format!("\"{s}\": {e}"))?),
            None => (s.trim(), Home::First),
        };
        let mode = mode.parse::<Mode>().map_err(|e| format!("\"{s}\": {e}"))?;
        Ok(ModeArg { mode, home })
    }
}

/// One `--also` item.
#[derive(Debug, Clone, PartialEq)]
pub enum Also {
    /// `contenders:K,..`.
    Contenders(Counts),
    /// `sharers:M,..`.
    Sharers(Counts),
    /// `home`.
    Home,
    /// `c2c:FILE`.
    C2c(PathBuf),
}

impl FromStr for Also {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let counts = |v: &str| v.parse::<Counts>().map_err(|e| format!("\"{s}\": {e}"));
        if t == "home" {
            Ok(Also::Home)
        } else if let Some(v) = t.strip_prefix("contenders:") {
            counts(v).map(Also::Contenders)
        } else if let Some(v) = t.strip_prefix("sharers:") {
            counts(v).map(Also::Sharers)
        } else if let Some(f) = t.strip_prefix("c2c:").filter(|f| !f.is_empty()) {
            Ok(Also::C2c(f.into()))
        } else {
            Err(format!(
                "\"{s}\" is not contenders:K,.., sharers:M,.., home or c2c:FILE"
            ))
        }
    }
}

impl MatrixArgs {
    /// The engine's request.
    pub fn request(&self) -> MatrixRequest {
        let counts = |sharers| {
            self.also.iter().rev().find_map(|a| match (a, sharers) {
                (Also::Contenders(c), false) | (Also::Sharers(c), true) => Some(c.clone()),
                _ => None,
            })
        };
        MatrixRequest {
            cpus: self.cpus.spec.clone(),
            clip: self.cpus.clip,
            samples: self.samples as usize,
            home: self.mode.home,
            mode: self.mode.mode,
            per_class: self.pairs.0,
            contenders: counts(false),
            sharers: counts(true),
            home_classes: self.also.contains(&Also::Home),
        }
    }

    /// `c2c:FILE`.
    fn c2c_csv(&self) -> Option<&Path> {
        self.also.iter().rev().find_map(|a| match a {
            Also::C2c(f) => Some(f.as_path()),
            _ => None,
        })
    }
}

const NEEDS_ALL: &str = "--also c2c:FILE needs every pair: add --pairs all";

pub(super) fn run(root: &Path, args: &MatrixArgs) -> Result<(), CliError> {
    use Print::{Json, Plan, Summary};
    let takes = [Summary, Json, Print::None, Plan];
    let print = measuring(root, args.output.print, "matrix", &takes)?;
    if args.c2c_csv().is_some() && args.pairs.0.is_some() {
        return Err(CliError::usage(NEEDS_ALL));
    }
    let topo = load_topology(root)?;
    let session = Session::new(&args.output, &topo.notes);
    let plan = plan_matrix(&args.request(), topo)?;
    if print == Plan {
        // Two threads a pass, their start-up measured here.
        let pair = &plan.cpus[..2];
        let costs = HostCosts::for_cpus(&plan.topo, is_live(root), pair, Placement::Strict)?;
        let text = report::text::matrix_plan_text(&host_name(root), &plan, &costs);
        print!("{text}");
        return Ok(());
    }
    check_out(&args.output.out)?;
    session.notes(&plan.notes);
    let bar = session.progress_bar(plan.pairs.len(), "pairs");
    let results = measure_matrix(plan, |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    let results = results?;
    let p = &results.provenance;
    let dir = crate::results::new_results_dir(&args.output.out, &p.hostname, &p.started_utc)?;
    let doc = Document::Matrix(&results);
    let formats = [Format::Csv, Format::Json, Format::Svg, Format::Html];
    let mut files = report::save(&dir, &doc, &formats)?;
    if let Some(path) = args.c2c_csv() {
        let csv = PairMatrix::of_matrix(&results).ok_or_else(|| CliError::usage(NEEDS_ALL))?;
        report::save_text(path, &csv.to_csv())?;
        files.push(path.to_path_buf());
    }
    session.print(&doc, Format::Text)?;
    session.wrote(&files);
    Ok(())
}
