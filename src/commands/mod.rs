//! One module per subcommand; [`run`] parses the command line and
//! dispatches.

mod compare;
mod matrix;
mod plot;
mod report;
mod run;
mod spread;
mod sweep;
mod topology;
mod verify;

use crate::CliError;
use crate::cli::{Cli, Command};
use crate::topology::Topology;
use clap::Parser;
use std::ffi::OsString;
use std::path::Path;

/// Runs `contend` with these arguments (the first is the program name).
/// `--help`, `--version` and clap's own usage errors print and exit here,
/// usage errors with status 2.
pub fn run<I: IntoIterator<Item = OsString>>(args: I) -> Result<(), CliError> {
    let args: Vec<OsString> = args.into_iter().collect();
    // Without a subcommand, `contend [OPTIONS]` is `contend run [OPTIONS]`.
    let mut with_run = args.clone();
    with_run.insert(1.min(with_run.len()), "run".into());
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) if cli.command.is_some() => cli,
        Ok(_) => Cli::try_parse_from(&with_run).unwrap_or_else(|e| e.exit()),
        // `contend --writers 4`: run's options without the word run.
        Err(e) if e.kind() == clap::error::ErrorKind::UnknownArgument => {
            Cli::try_parse_from(&with_run).unwrap_or_else(|e| e.exit())
        }
        Err(e) => e.exit(),
    };
    match cli.command {
        Some(Command::Run(args)) => run::run(&cli.sysfs_root, &args),
        Some(Command::Topology(args)) => topology::run(&cli.sysfs_root, &args),
        Some(Command::Spread(args)) => spread::run(&cli.sysfs_root, &args),
        Some(Command::Verify(args)) => verify::run(&cli.sysfs_root, &args),
        Some(Command::Matrix(args)) => matrix::run(&cli.sysfs_root, &args),
        Some(Command::Compare(args)) => compare::run(&cli.sysfs_root, &args),
        Some(Command::Report(args)) => report::run(&cli.sysfs_root, &args),
        Some(Command::Sweep(args)) => sweep::run(&cli.sysfs_root, &args),
        Some(Command::Plot(args)) => plot::run(&cli.sysfs_root, &args),
        None => Err(CliError::usage("no subcommand given; see contend --help")),
    }
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

/// True when `root` is this host's `/`, where threads and memory can really
/// be placed.
fn is_live_root(root: &Path) -> bool {
    std::fs::canonicalize(root).is_ok_and(|p| p == Path::new("/"))
}

/// A progress bar on stderr counting `total` `unit`s, or `None` when
/// stderr is not a terminal or the user asked for quiet.
fn progress_bar(total: usize, unit: &str, quiet: bool) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        let template = format!("{{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  (eta {{eta}})");
        bar.set_style(
            indicatif::ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    })
}

/// A fresh results folder `out/<host>/<stamp>`, or a one-line failure.
fn results_folder(
    out: &Path,
    host: &str,
    started_utc: &str,
) -> Result<std::path::PathBuf, CliError> {
    crate::report::new_results_dir(out, host, started_utc).map_err(|e| {
        CliError::failure(format!(
            "cannot create results folder under {}: {e}",
            out.display()
        ))
    })
}
