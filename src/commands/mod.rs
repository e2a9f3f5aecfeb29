//! The command line: [`Cli`] and one module per subcommand with its
//! options; each chains parse → plan → execute → export.

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

use crate::CliError;
use crate::compare::CompareError;
use crate::matrix::MatrixError;
use crate::report::{Document, ExportError, Format};
use crate::results::{ReadError, WriteError};
use crate::runner::{PlanError, PoolError, RunError};
use crate::topology::{Topology, is_live};
use args::{HostPrint, Print, ResultsArgs};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What one hot shared counter costs when CPUs across LLCs and NUMA nodes
/// update it, and which fix wins on this host.
#[derive(Debug, Parser)]
#[command(name = "contend", version, about, long_about = None)]
pub struct Cli {
    /// Read the host layout from this directory instead of `/` (a capture or fixture).
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
    Run(Box<run::RunArgs>),
    /// Compare two result files, or two strategies in one.
    Compare(Box<compare::CompareArgs>),
    /// Print a result file as text or Markdown, or build an HTML page.
    Report(report::ReportArgs),
    /// Run `contend run` over thread counts and affinity sets.
    Sweep(Box<sweep::SweepArgs>),
    /// Draw SVG charts of a result file.
    Plot(plot::PlotArgs),
    /// Show the host layout: nodes, caches, SMT and the CPUs allowed.
    Topology(topology::TopologyArgs),
    /// Print the order in which cpumask_local_spread hands out CPUs.
    Spread(spread::SpreadArgs),
    /// Check that pinning threads and binding memory work here.
    Verify(verify::VerifyArgs),
    /// Time a cache line's hand-off between pairs of CPUs.
    #[command(long_about = crate::matrix::LONG_ABOUT)]
    Matrix(matrix::MatrixArgs),
    /// Predict what each strategy costs on any host, at each rate.
    #[command(long_about = crate::predict::LONG_ABOUT)]
    Predict(Box<predict::PredictArgs>),
    /// The whole seed study in one command and one page.
    Study(Box<study::StudyArgs>),
    /// Many published hosts on one page, predicted from their latencies.
    Gallery(gallery::GalleryArgs),
}

/// Runs `contend` with these arguments (the first is the program name);
/// clap's usage errors come back as one line, status 2.
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

/// The options `-h` lists, in every command; `--help` lists them all.
const SHORT_HELP: [&str; 22] = [
    "writers", "level", "publish", "rate", "rates", "host", "check", "duration", "max-time",
    "runs", "print", "base", "test", "noise", "fail-on", "quick", "verbose", "out", "format",
    "json", "help", "version",
];

/// `cmd` with every option not in [`SHORT_HELP`] left out of `-h`.
fn short_help(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        let keep = a.get_long().is_none_or(|l| SHORT_HELP.contains(&l));
        a.hide_short_help(!keep)
    })
    .mut_subcommands(short_help)
}

/// clap's usage error as one line, exit 2; `--help` and `--version`
/// print and exit here.
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

/// clap's rendered error, the lines before its usage block joined.
fn one_line(rendered: &str) -> String {
    let parts = (rendered.lines())
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let line = parts.fold(String::new(), |line, part| match line.chars().last() {
        None => part.to_string(),
        Some(':') => line + " " + part,
        Some(_) => line + "; " + part,
    });
    line.strip_prefix("error: ").unwrap_or(&line).to_string()
}

/// Reads the topology under `root`; an unreadable tree is bad input.
fn load_topology(root: &Path) -> Result<Topology, CliError> {
    Topology::read(root)
        .map_err(|e| CliError::usage(format!("--sysfs-root {}: {e}", root.display())))
}

/// Prints `notes` (the reader's assumptions, a plan's) to stderr, one `note:` line each.
fn print_notes(notes: &[String]) {
    for note in notes {
        eprintln!("note: {note}");
    }
}

/// `--print` checked against what `command` takes, and the live host
/// required unless the command only prints its plan.
fn measuring(root: &Path, print: Print, command: &str, takes: &[Print]) -> Result<Print, CliError> {
    let print = print.only(command, takes)?;
    if !print.plan() {
        let plan = if takes.contains(&Print::Plan) {
            " (--print plan reads any --sysfs-root)"
        } else {
            ""
        };
        require_live_root(root, &format!("{command} pins real threads{plan}"))?;
    }
    Ok(print)
}

/// Refuses a `--sysfs-root` other than `/` for a command that places
/// real threads or memory.
fn require_live_root(root: &Path, what: &str) -> Result<(), CliError> {
    if is_live(root) {
        return Ok(());
    }
    let root = root.display();
    Err(CliError::usage(format!(
        "{what}, so it reads the live host; drop --sysfs-root {root}"
    )))
}

/// This host's name, or the fixture or capture folder's.
fn host_name(root: &Path) -> String {
    if is_live(root) {
        crate::provenance::hostname()
    } else {
        file_name(root)
    }
}

/// The last part of `path`, or the whole path when it has none.
fn file_name(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    name.unwrap_or_else(|| path.display().to_string())
}

/// What a measuring command says on stderr: notes, progress, files.
struct Session {
    print: Print,
}

impl Session {
    /// `output`'s session; the host's notes go first when stdout is for a person.
    fn new(output: &ResultsArgs, host_notes: &[String]) -> Self {
        let session = Session {
            print: output.print,
        };
        if session.chatty() {
            print_notes(host_notes);
        }
        session
    }

    /// `--print none`: nothing but errors.
    fn quiet(&self) -> bool {
        self.print == Print::None
    }

    /// True when stdout is the human summary (not `--print none|json|plan`).
    fn chatty(&self) -> bool {
        matches!(self.print, Print::Summary | Print::All)
    }

    /// Prints each note as a `note:` line unless quiet.
    fn notes(&self, notes: &[String]) {
        if !self.quiet() {
            print_notes(notes);
        }
    }

    /// A bar counting `total` `unit`s (hidden: quiet or no terminal).
    fn progress_bar(&self, total: usize, unit: &str) -> Bar {
        let template = format!("{{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  (eta {{eta}})");
        self.bar(total as u64, &template, None)
    }

    /// A bar over a time budget, at the time spent: what is left is the
    /// most the run can still take.
    fn time_bar(&self, budget: Duration) -> Bar {
        let template = format!(
            "{{bar:30}} {{elapsed}} of {} s at most  {{msg}}",
            budget.as_secs()
        );
        self.bar(budget.as_millis() as u64, &template, Some(Instant::now()))
    }

    fn bar(&self, total: u64, template: &str, started: Option<Instant>) -> Bar {
        use indicatif::{ProgressBar, ProgressStyle};
        use std::io::IsTerminal;
        let inner = if !self.quiet() && std::io::stderr().is_terminal() {
            let style = ProgressStyle::with_template(template);
            let inner = ProgressBar::new(total);
            inner.set_style(style.unwrap_or_else(|_| ProgressStyle::default_bar()));
            inner
        } else {
            ProgressBar::hidden()
        };
        Bar { inner, started }
    }

    /// Prints `doc` as JSON, nothing, or `text`; true when it printed
    /// for a person.
    fn print(&self, doc: &Document, text: Format) -> Result<bool, CliError> {
        match self.print {
            Print::Json => emit(doc, Format::Json)?,
            Print::None => {}
            _ => emit(doc, text)?,
        }
        Ok(self.chatty())
    }

    /// Names the files written, a line per folder, charts counted.
    fn wrote(&self, files: &[PathBuf]) {
        if self.quiet() {
            return;
        }
        let dir = |f: &PathBuf| f.parent().unwrap_or(Path::new("")).to_path_buf();
        for folder in files.chunk_by(|a, b| dir(a) == dir(b)) {
            let (charts, mut names): (Vec<String>, Vec<String>) = folder
                .iter()
                .map(|f| file_name(f))
                .partition(|n| n.ends_with(".svg"));
            if !charts.is_empty() {
                names.push(crate::verdict::plural(charts.len(), "SVG chart"));
            }
            let (names, dir) = (names.join(", "), dir(&folder[0]));
            eprintln!("wrote {names} in {}", dir.display());
        }
    }
}

/// A progress bar, hidden when quiet or not on a terminal, that names
/// strategies by their short names.
struct Bar {
    inner: indicatif::ProgressBar,
    /// When a time bar ([`Session::time_bar`]) started.
    started: Option<Instant>,
}

impl std::ops::Deref for Bar {
    type Target = indicatif::ProgressBar;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl Bar {
    /// Shows `what`, strategy names made short.
    fn set_message(&self, what: impl AsRef<str>) {
        if let Some(t) = self.started {
            self.inner.set_position(t.elapsed().as_millis() as u64);
        }
        let short: Vec<String> = what.as_ref().split(' ').map(short_name).collect();
        self.inner.set_message(short.join(" "));
    }
}

/// A full strategy name as `level/policy` (or `clock floor`); any other
/// word as it is.
fn short_name(word: &str) -> String {
    match word.split('/').collect::<Vec<_>>()[..] {
        [_, policy, pad, ..]
            if pad.starts_with("pad") && policy.starts_with("ratelimit:100000s") =>
        {
            "clock floor".to_string()
        }
        [level, policy, pad, ..] if pad.starts_with("pad") => format!("{level}/{policy}"),
        _ => word.to_string(),
    }
}

/// Refuses a results root that cannot be written (exit 2).
fn check_out(out: &Path) -> Result<(), CliError> {
    crate::results::check_writable(out).map_err(|e| {
        let which = (e.path != out).then(|| format!(" ({})", e.path.display()));
        let which = which.unwrap_or_default();
        CliError::usage(format!(
            "--out {} cannot be written{which}: {}; nothing was run",
            out.display(),
            e.source
        ))
    })
}

/// Prints `doc` as JSON, or as text after the topology's notes.
fn print_of_host(
    doc: Document,
    command: &str,
    print: &HostPrint,
    topo: &Topology,
) -> Result<(), CliError> {
    let json = print.print.only(command, &[Print::Summary, Print::Json])? == Print::Json;
    if !json {
        print_notes(&topo.notes);
    }
    emit(&doc, if json { Format::Json } else { Format::Text })
}

/// Prints `doc` in `format`.
fn emit(doc: &Document, format: Format) -> Result<(), CliError> {
    print!("{}", crate::report::render(doc, format)?);
    Ok(())
}

/// `T`'s options parsed from `args` as `contend ARGS` would.
#[cfg(test)]
fn parse_args<T: clap::Args + FromArgMatches>(args: &str) -> T {
    let cmd = T::augment_args(clap::Command::new("contend"));
    let words = std::iter::once("contend").chain(args.split_whitespace());
    T::from_arg_matches(&cmd.get_matches_from(words)).unwrap()
}

/// Each layer's error as bad input (exit 2) or a failed run (exit 1).
macro_rules! cli_error_from {
    ($($kind:ident: $($error:ty),+;)+) => {$($(
        impl From<$error> for CliError {
            fn from(e: $error) -> Self {
                CliError::$kind(e)
            }
        }
    )+)+};
}

cli_error_from! {
    usage: PlanError, PoolError, ReadError, CompareError;
    failure: WriteError, ExportError;
}

impl From<RunError> for CliError {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Request(_) => CliError::usage(e),
            RunError::Placement(_) => CliError::failure(e),
        }
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
