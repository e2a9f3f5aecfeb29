//! The command line: [`Cli`] as clap parses it, and one module per
//! subcommand with its options beside it. Each command only chains parse →
//! plan → execute → export; the work is done by the engine ([`crate::runner`],
//! [`crate::matrix`], …) and every file is written by [`crate::report`].

mod args;
mod compare;
mod gallery;
mod matrix;
mod plot;
mod predict;
mod report;
mod run;
mod spread;
mod study;
mod sweep;
mod topology;
mod verify;

pub use args::{MeasureArgs, PlacementArg, PoolArgs, PrintArgs, ResultsArgs};
pub use compare::CompareArgs;
pub use gallery::GalleryArgs;
pub use matrix::MatrixArgs;
pub use plot::PlotArgs;
pub use predict::PredictArgs;
pub use report::ReportArgs;
pub use run::RunArgs;
pub use spread::SpreadArgs;
pub use study::StudyArgs;
pub use sweep::SweepArgs;
pub use topology::{TopologyAction, TopologyArgs};
pub use verify::VerifyArgs;

use crate::CliError;
use crate::compare::CompareError;
use crate::matrix::MatrixError;
use crate::report::{Document, ExportError, Format};
use crate::results::{ReadError, WriteError};
use crate::runner::{PlanError, PoolError, RunError};
use crate::topology::Topology;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What one hot shared counter costs when CPUs across LLCs and NUMA nodes
/// update it, and which fix wins on this host.
#[derive(Debug, Parser)]
#[command(name = "contend", version, about, long_about = None)]
pub struct Cli {
    /// Read the host layout from this directory instead of `/` (a tree made
    /// by `contend topology capture` or a test fixture).
    #[arg(long, global = true, value_name = "DIR", default_value = "/")]
    pub sysfs_root: PathBuf,

    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands. With none, `contend` runs `contend run` with its
/// defaults: the default comparison.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure every chosen strategy and print the comparison (default).
    ///
    /// Hammer the counter with pinned writers (and readers) for every chosen
    /// strategy, and print and save the comparison.
    Run(Box<run::RunArgs>),
    /// Compare two result files, or two strategies in one.
    ///
    /// Side by side, with a significance verdict from the repeats.
    Compare(Box<compare::CompareArgs>),
    /// Print a result file as text or Markdown, or build an HTML page.
    ///
    /// A result file (run.json, sweep.json or matrix.json) as a table, or
    /// as Markdown to paste into a patch description, or one
    /// self-contained HTML page from one or more (--html).
    Report(report::ReportArgs),
    /// Run `contend run` over thread counts and affinity sets.
    ///
    /// Over thread counts, affinity sets and strategies, into one results
    /// folder with charts.
    Sweep(Box<sweep::SweepArgs>),
    /// Draw SVG charts of a result file.
    ///
    /// Of run.json, sweep.json or matrix.json.
    Plot(plot::PlotArgs),
    /// Show the host layout: nodes, caches, SMT and the CPUs allowed.
    ///
    /// Nodes, distances, last-level caches, SMT pairs and the CPUs and
    /// memory nodes this process may use.
    Topology(topology::TopologyArgs),
    /// Print the order in which cpumask_local_spread hands out CPUs.
    ///
    /// The kernel's cpumask_local_spread(i, node) (NUMA hop order since
    /// v6.3, or the old order), as the CPU spec local-spread:N fills pools.
    Spread(spread::SpreadArgs),
    /// Check that pinning threads and binding memory work here.
    ///
    /// Pin a thread to each chosen CPU and bind memory to each chosen node,
    /// and report what sched_getcpu and move_pages say (in a container, a
    /// cpuset, a VM).
    Verify(verify::VerifyArgs),
    /// Time a cache line's hand-off between pairs of CPUs.
    ///
    /// Every pair of CPUs (or a per-class sample of pairs), the costs
    /// grouped by distance class (SMT, same LLC, same node, cross-node at
    /// each distance), and whether to split a hot counter at llc, at node,
    /// or not at all.
    #[command(long_about = crate::matrix::LONG_ABOUT)]
    Matrix(matrix::MatrixArgs),
    /// Predict what each strategy costs on any host, at each rate.
    ///
    /// For any host (live, or a --sysfs-root fixture) and class latencies
    /// (--latencies matrix.json or --latency), how busy the hot line is at
    /// each update rate, where it saturates, and what each strategy costs
    /// per update; --check FILE sets the model against a run measured
    /// under --rate.
    #[command(long_about = crate::predict::LONG_ABOUT)]
    Predict(Box<predict::PredictArgs>),
    /// The whole seed study in one command and one page.
    ///
    /// The pair matrix (a per-class sample), the default run, a sweep over
    /// the thread counts that reach each distance class, and predict at
    /// the seed's rate for every CPU, within a time budget (--dry-run shows
    /// the plan).
    Study(Box<study::StudyArgs>),
    /// Many published hosts on one page, predicted from their latencies.
    ///
    /// Every core-to-core-latency CSV in DIR read as `predict --latencies
    /// FILE.csv` reads one, each host's layout, where its cost jumps and the
    /// default comparison predicted at the seed's rate, with a headline
    /// across hosts (--out DIR writes gallery.html, gallery.md and
    /// gallery.json).
    Gallery(gallery::GalleryArgs),
}

/// Runs `contend` with these arguments (the first is the program name).
/// `--help` and `--version` print and exit here; clap's own usage errors
/// come back as one line, status 2.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> Result<(), CliError> {
    let args: Vec<OsString> = args.into_iter().collect();
    // Without a subcommand, `contend [OPTIONS]` is `contend run [OPTIONS]`.
    let mut with_run = args.clone();
    with_run.insert(1.min(with_run.len()), "run".into());
    let parse = |args: &[OsString]| {
        short_help(Cli::command())
            .try_get_matches_from(args)
            .and_then(|m| Cli::from_arg_matches(&m))
    };
    let cli = match parse(&args) {
        Ok(cli) if cli.command.is_some() => cli,
        Ok(_) => parse(&with_run).map_err(usage_error)?,
        // `contend --writers 4`: run's options without the word run.
        // A subcommand's own unknown option is reported as it was.
        Err(e) if e.kind() == clap::error::ErrorKind::UnknownArgument => {
            parse(&with_run).map_err(|_| usage_error(e))?
        }
        Err(e) => return Err(usage_error(e)),
    };
    let root = &cli.sysfs_root;
    match cli.command {
        Some(Command::Run(args)) => run::run(root, &args),
        Some(Command::Topology(args)) => topology::run(root, &args),
        Some(Command::Spread(args)) => spread::run(root, &args),
        Some(Command::Verify(args)) => verify::run(root, &args),
        Some(Command::Matrix(args)) => matrix::run(root, &args),
        Some(Command::Compare(args)) => compare::run(root, &args),
        Some(Command::Report(args)) => report::run(root, &args),
        Some(Command::Sweep(args)) => sweep::run(root, &args),
        Some(Command::Plot(args)) => plot::run(root, &args),
        Some(Command::Predict(args)) => predict::run(root, &args),
        Some(Command::Study(args)) => study::run(root, &args),
        Some(Command::Gallery(args)) => gallery::run(root, &args),
        None => Err(CliError::usage("no subcommand given; see contend --help")),
    }
}

/// The options `-h` lists, in every command: what a newcomer needs.
/// `--help` lists them all, with their long texts.
const SHORT_HELP: [&str; 20] = [
    "writers", "level", "publish", "rate", "duration", "max-time", "runs", "dry-run", "base",
    "test", "noise", "fail-on", "quick", "verbose", "out", "json", "markdown", "html", "help",
    "version",
];

/// `cmd` and its subcommands with every option not in [`SHORT_HELP`]
/// left out of `-h`.
fn short_help(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        let keep = a.get_long().is_none_or(|l| SHORT_HELP.contains(&l));
        a.hide_short_help(!keep)
    })
    .mut_subcommands(short_help)
}

/// clap's usage error as the one line every error is (exit status 2): its
/// message and tip joined, the usage block and "For more information"
/// left out. `--help` and `--version` print and exit here as clap does.
fn usage_error(e: clap::Error) -> CliError {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    CliError::usage(one_line(&e.to_string()))
}

/// clap's rendered error in one line: `error: ` dropped, the lines before
/// the usage block joined (`; ` between sentences, a space after a colon).
fn one_line(rendered: &str) -> String {
    let mut line = String::new();
    for part in rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    line.strip_prefix("error: ").unwrap_or(&line).to_string()
}

/// Reads the topology under `root`; an unreadable tree is bad input.
fn load_topology(root: &Path) -> Result<Topology, CliError> {
    Topology::read(root)
        .map_err(|e| CliError::usage(format!("--sysfs-root {}: {e}", root.display())))
}

/// Prints the reader's assumptions to stderr, one `note:` line each.
fn print_notes(topo: &Topology) {
    for note in &topo.notes {
        eprintln!("note: {note}");
    }
}

/// Refuses a `--sysfs-root` other than this host's `/` for a command that
/// places real threads or memory (`what` says which).
fn require_live_root(root: &Path, what: &str) -> Result<(), CliError> {
    if is_live(root) {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "{what}, so it reads the live host; drop --sysfs-root {}",
            root.display()
        )))
    }
}

/// True when `root` is this host's `/`.
fn is_live(root: &Path) -> bool {
    std::fs::canonicalize(root).is_ok_and(|p| p == Path::new("/"))
}

/// The host a topology under `root` describes: this host's name, or the
/// fixture or capture folder's.
fn host_name(root: &Path) -> String {
    if is_live(root) {
        crate::provenance::hostname()
    } else {
        root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// What a measuring command says on stderr besides errors: notes, a
/// progress bar on a terminal, the files written.
struct Session {
    quiet: bool,
    json: bool,
}

impl Session {
    fn new(output: &ResultsArgs) -> Self {
        Session {
            quiet: output.quiet,
            json: output.json,
        }
    }

    /// True when stdout is the human summary (not `--quiet`, not `--json`).
    fn chatty(&self) -> bool {
        !self.quiet && !self.json
    }

    /// Prints each note as a `note:` line unless quiet.
    fn notes(&self, notes: &[String]) {
        if !self.quiet {
            for note in notes {
                eprintln!("note: {note}");
            }
        }
    }

    /// A progress bar on stderr counting `total` `unit`s, or `None` when
    /// stderr is not a terminal or the user asked for quiet.
    fn progress_bar(&self, total: usize, unit: &str) -> Option<Bar> {
        self.bar(
            total as u64,
            &format!("{{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  (eta {{eta}})"),
        )
        .map(|inner| Bar {
            inner,
            started: None,
        })
    }

    /// A progress bar over a time budget: its total the budget, which
    /// no run overruns, its position the time spent, so what is left is
    /// the most the run can still take. `None` as [`Session::progress_bar`].
    fn time_bar(&self, budget: std::time::Duration) -> Option<Bar> {
        let template = format!(
            "{{bar:30}} {{elapsed}} of {} s at most  {{msg}}",
            budget.as_secs()
        );
        self.bar(budget.as_millis() as u64, &template)
            .map(|inner| Bar {
                inner,
                started: Some(std::time::Instant::now()),
            })
    }

    fn bar(&self, total: u64, template: &str) -> Option<indicatif::ProgressBar> {
        use std::io::IsTerminal;
        (!self.quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        })
    }

    /// Prints `doc` on stdout: as JSON with `--json`, not at all with
    /// `--quiet`, else in `text` (text or Markdown). True when it printed
    /// for a person (what `--verbose` may add to).
    fn print(&self, doc: &Document, text: Format) -> Result<bool, CliError> {
        if self.json {
            print!("{}", crate::report::render(doc, Format::Json)?);
        } else if !self.quiet {
            print!("{}", crate::report::render(doc, text)?);
        }
        Ok(self.chatty())
    }

    /// Names every file written, unless quiet: a line per folder, its
    /// charts counted rather than named.
    fn wrote(&self, files: &[PathBuf]) {
        if self.quiet {
            return;
        }
        let mut folders: Vec<(&Path, Vec<String>, usize)> = Vec::new();
        for f in files {
            let dir = f.parent().unwrap_or(Path::new(""));
            if folders.last().is_none_or(|(d, ..)| *d != dir) {
                folders.push((dir, Vec::new(), 0));
            }
            if let Some((_, names, charts)) = folders.last_mut() {
                match f.file_name().map(|n| n.to_string_lossy()) {
                    Some(n) if n.ends_with(".svg") => *charts += 1,
                    Some(n) => names.push(n.into_owned()),
                    None => names.push(f.display().to_string()),
                }
            }
        }
        for (dir, mut names, charts) in folders {
            if charts > 0 {
                names.push(crate::verdict::plural(charts, "SVG chart"));
            }
            eprintln!("wrote {} in {}", names.join(", "), dir.display());
        }
    }
}

/// A progress bar on stderr that names strategies by their short names
/// (`global/threshold:64`, `clock floor`).
struct Bar {
    inner: indicatif::ProgressBar,
    /// When a time bar ([`Session::time_bar`]) started.
    started: Option<std::time::Instant>,
}

impl Bar {
    fn set_position(&self, done: u64) {
        self.inner.set_position(done);
    }

    /// Shows `what`, each full strategy name in it made short; a time bar
    /// also moves to the time spent.
    fn set_message(&self, what: impl AsRef<str>) {
        if let Some(t) = self.started {
            self.inner.set_position(t.elapsed().as_millis() as u64);
        }
        let short: Vec<String> = what.as_ref().split(' ').map(short_name).collect();
        self.inner.set_message(short.join(" "));
    }

    fn println(&self, line: String) {
        self.inner.println(line);
    }

    fn finish_and_clear(&self) {
        self.inner.finish_and_clear();
    }
}

/// A full strategy name (`level/policy/padN[/clock]`) as people read it:
/// `level/policy`, or `clock floor` for a paced regime's clock floor;
/// any other word as it is.
fn short_name(word: &str) -> String {
    let parts: Vec<&str> = word.split('/').collect();
    match parts.as_slice() {
        [_, policy, pad, ..] if pad.starts_with("pad") => {
            if policy.starts_with("ratelimit:100000s") {
                "clock floor".to_string()
            } else {
                format!("{}/{policy}", parts[0])
            }
        }
        _ => word.to_string(),
    }
}

impl ResultsArgs {
    /// Refuses an `--out` folder that cannot be written (bad input, exit
    /// 2), checked after the plan and before anything is measured.
    fn check(&self) -> Result<(), CliError> {
        check_out(&self.out)
    }
}

/// Refuses a results root `out` that cannot be written, before anything
/// is measured.
fn check_out(out: &Path) -> Result<(), CliError> {
    crate::results::check_writable(out).map_err(|e| {
        let which = if e.path == out {
            String::new()
        } else {
            format!(" ({})", e.path.display())
        };
        CliError::usage(format!(
            "--out {} cannot be written{which}: {}; nothing was run",
            out.display(),
            e.source
        ))
    })
}

impl PrintArgs {
    /// Prints `doc` as text or Markdown.
    fn emit(&self, doc: &Document) -> Result<(), CliError> {
        let format = if self.markdown {
            Format::Markdown
        } else {
            Format::Text
        };
        emit(doc, format)
    }
}

/// Prints `doc` as JSON with `json`, else as text after the notes the
/// topology reader took of `topo`.
fn print_of_host(doc: &Document, json: bool, topo: &Topology) -> Result<(), CliError> {
    if !json {
        print_notes(topo);
    }
    let format = if json { Format::Json } else { Format::Text };
    emit(doc, format)
}

/// Prints `doc` in `format`.
fn emit(doc: &Document, format: Format) -> Result<(), CliError> {
    print!("{}", crate::report::render(doc, format)?);
    Ok(())
}

impl From<PlanError> for CliError {
    fn from(e: PlanError) -> Self {
        CliError::usage(e)
    }
}

impl From<PoolError> for CliError {
    fn from(e: PoolError) -> Self {
        CliError::usage(e)
    }
}

impl From<RunError> for CliError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Request(_) => CliError::usage(e),
            RunError::Placement(_) => CliError::failure(e),
        }
    }
}

impl From<ReadError> for CliError {
    fn from(e: ReadError) -> Self {
        CliError::usage(e)
    }
}

impl From<WriteError> for CliError {
    fn from(e: WriteError) -> Self {
        CliError::failure(e)
    }
}

impl From<ExportError> for CliError {
    fn from(e: ExportError) -> Self {
        CliError::failure(e)
    }
}

impl From<CompareError> for CliError {
    fn from(e: CompareError) -> Self {
        CliError::usage(e)
    }
}

impl From<MatrixError> for CliError {
    fn from(e: MatrixError) -> Self {
        match e {
            MatrixError::Placement(_) | MatrixError::Reference(_) => CliError::failure(e),
            _ => CliError::usage(e),
        }
    }
}
