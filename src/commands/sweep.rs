//! `contend sweep`: `contend run` at every thread count × affinity set
//! (seed 002's table: Daniel Jordan's profiles at each thread count,
//! unbound and per node; docs/seeds.md), planned up front, into one results
//! folder with sweep.json, sweep.csv, sweep.md and the charts.

use super::args::{ClipArg, PlacementArg, ResultsArgs, StrategyArgs, duration_arg, warmup_arg};
use super::{Session, load_topology, print_notes, require_live_root};
use crate::CliError;
use crate::report::{self, Document, ExportError, Format};
use crate::runner::{PoolSize, signal};
use crate::sweep::SweepResults;
use crate::sweep::{Affinity, SweepRequest, SweepStop, execute_sweep, plan_sweep};
use crate::workload::Regime;
use clap::Args;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// Options of `contend sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Writer thread counts, comma-separated: counts, or percentages of the
    /// affinity set's allowed CPUs (as seed 002: node0 at 50% is half of
    /// node 0). Equal counts are run once; a count above the set's CPUs is
    /// skipped for that set with a note.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "25%,50%,75%,100%"
    )]
    pub threads: Vec<PoolSize>,

    /// Affinity sets, comma-separated: unbound (writers on allowed CPUs
    /// taken round-robin across nodes, CPU spec spread) or nodeN (every
    /// writer on node N, spec node:N). Default: unbound, plus
    /// nodeN for every node with allowed CPUs when there are two or more.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub affinity: Option<Vec<Affinity>>,

    /// What to do with an affinity set's CPUs this process may not use.
    #[command(flatten)]
    pub clip: ClipArg,

    /// Offered rates per thread at every thread count, comma-separated:
    /// operations per second (22000, 22k, 1M) or max (hammer, no cap).
    /// With two or more, a rate curve: the cost of one update (busy ns)
    /// and the CPU share it takes against the offered rate, with the
    /// seed's ~22k/s per CPU marked [default: max; 22k,max with --quick].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub rates: Option<Vec<Regime>>,

    /// The strategies to compare at every point (as `contend run`).
    #[command(flatten)]
    pub strategies: StrategyArgs,

    /// Measured time per strategy at each point, split over the repeats
    /// [default: 1s; 200ms with --quick].
    #[arg(long, value_name = "TIME", value_parser = duration_arg)]
    pub duration: Option<Duration>,

    /// Repeats per strategy at each point [default: 5; 3 with --quick].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: Option<u32>,

    /// Warm-up before each repeat (0 = none) [default: 50ms; 20ms with
    /// --quick].
    #[arg(long, value_name = "TIME", value_parser = warmup_arg)]
    pub warmup: Option<Duration>,

    /// Seed of the writers' load tables (the same at every point).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Time budget of the whole sweep: each point's run gets the time
    /// left, no repeat starts that would end past it, and the point it
    /// stops is kept, partial, and ends the sweep (no budget by default).
    #[arg(long, value_name = "TIME", value_parser = duration_arg)]
    pub max_time: Option<Duration>,

    /// A short sweep for CI: --duration 200ms --repeats 3 --warmup 20ms
    /// --rates 22k,max unless given.
    #[arg(long)]
    pub quick: bool,

    /// strict: a thread or slot that cannot be placed and verified stops
    /// the sweep; best-effort: go on and record it unverified.
    #[arg(long, value_enum, default_value_t = PlacementArg::Strict)]
    pub placement: PlacementArg,

    /// Where results go and what is printed.
    #[command(flatten)]
    pub output: ResultsArgs,
}

impl SweepArgs {
    /// The engine's request, `--quick` defaults filled in.
    pub fn request(&self) -> SweepRequest {
        SweepRequest {
            threads: self.threads.clone(),
            affinity: self.affinity.clone(),
            rates: self.rates(),
            strategies: self.strategies.choice(),
            duration: self.duration(),
            repeats: self.repeats(),
            warmup: self.warmup(),
            seed: self.seed,
            placement: self.placement.into(),
            clip: self.clip.clip,
            max_time: self.max_time,
        }
    }

    /// Measured time per strategy: `--duration`, else the (quick) default.
    pub fn duration(&self) -> Duration {
        self.duration.unwrap_or(if self.quick {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(1)
        })
    }

    /// Offered rates: `--rates`, else the (quick) default.
    pub fn rates(&self) -> Vec<Regime> {
        self.rates.clone().unwrap_or_else(|| {
            if self.quick {
                vec![Regime::SEED, Regime::FlatOut]
            } else {
                vec![Regime::FlatOut]
            }
        })
    }

    /// Repeats per strategy: `--repeats`, else the (quick) default.
    pub fn repeats(&self) -> u32 {
        self.repeats.unwrap_or(if self.quick { 3 } else { 5 })
    }

    /// Warm-up per repeat: `--warmup`, else the (quick) default.
    pub fn warmup(&self) -> Duration {
        self.warmup
            .unwrap_or(Duration::from_millis(if self.quick { 20 } else { 50 }))
    }
}

pub(super) fn run(root: &Path, args: &SweepArgs) -> Result<(), CliError> {
    require_live_root(root, "sweep pins real threads")?;
    let topo = load_topology(root)?;
    let session = Session::new(&args.output);
    if session.chatty() {
        print_notes(&topo);
    }
    let mut plan = plan_sweep(&args.request(), &topo)?;
    args.output.check()?;
    session.notes(&plan.notes);

    let stop = signal::stop_flag();
    let started = Instant::now();
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let host = plan.points[0].plan.provenance.hostname.clone();
    let dir = crate::results::new_results_dir(&args.output.out, &host, &stamp)?;

    let bar = session.progress_bar(plan.total_repeats(), "repeats");
    let labels: Vec<String> = plan.points.iter().map(|p| p.label()).collect();
    let count = labels.len();
    let outcome = execute_sweep(
        &mut plan,
        stop,
        |done, label, name| {
            if let Some(b) = &bar {
                b.set_position(done as u64);
                b.set_message(format!("{label}: {name}"));
            }
        },
        |i, sweep: &SweepResults, secs| -> Result<(), ExportError> {
            let line = format!(
                "[{}/{count}] {}: {} strategies in {secs:.1} s",
                i + 1,
                labels[i],
                sweep.points[i].results.strategies.len(),
            );
            match &bar {
                Some(b) => b.println(line),
                None if !args.output.quiet => eprintln!("{line}"),
                None => {}
            }
            // Finished points survive a crash: sweep.json, still partial.
            report::save(&dir, &Document::Sweep(sweep), &[Format::Json])?;
            Ok(())
        },
    );
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let outcome = outcome?;
    let sweep = &outcome.results;
    let doc = Document::Sweep(sweep);
    let mut formats = vec![Format::Json, Format::Csv, Format::Markdown, Format::Html];
    if !sweep.points.is_empty() {
        formats.push(Format::Svg);
    }
    let files = report::save(&dir, &doc, &formats)?;
    session.print(&doc, Format::Text)?;
    session.wrote(&files);
    if !args.output.quiet {
        eprintln!(
            "sweep: {} of {count} points in {:.1} s",
            sweep.points.len(),
            started.elapsed().as_secs_f64()
        );
    }
    match outcome.stopped {
        Some(SweepStop::Interrupted) => {
            Err(CliError::failure("interrupted: partial results written"))
        }
        Some(SweepStop::OutOfTime) => {
            if !args.output.quiet {
                eprintln!(
                    "out of time: --max-time ran out after {} of {count} points (the last partial); partial results written",
                    sweep.points.len()
                );
            }
            check_exact(sweep)
        }
        Some(SweepStop::Failed { point, error }) => {
            let e = CliError::from(error);
            Err(CliError {
                message: format!("{point}: {}", e.message),
                ..e
            })
        }
        None => check_exact(sweep),
    }
}

/// Fails (exit 1) naming the first point and strategy whose final sum was
/// not exact.
fn check_exact(sweep: &SweepResults) -> Result<(), CliError> {
    match sweep
        .points
        .iter()
        .find_map(|p| Some((p, p.results.first_inexact()?)))
    {
        None => Ok(()),
        Some((p, bad)) => Err(CliError::failure(format!(
            "{} × {} threads: {bad}",
            p.affinity, p.threads
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        args: SweepArgs,
    }

    fn parse(args: &[&str]) -> SweepArgs {
        Wrap::parse_from(std::iter::once("sweep").chain(args.iter().copied())).args
    }

    #[test]
    fn quick_sets_only_what_was_not_given() {
        let full = parse(&[]);
        assert_eq!(
            (full.duration(), full.repeats(), full.warmup()),
            (Duration::from_secs(1), 5, Duration::from_millis(50))
        );
        let quick = parse(&["--quick", "--repeats", "2"]);
        assert_eq!(
            (quick.duration(), quick.repeats(), quick.warmup()),
            (Duration::from_millis(200), 2, Duration::from_millis(20))
        );
        assert_eq!(
            parse(&[]).threads,
            [25.0, 50.0, 75.0, 100.0].map(PoolSize::Percent)
        );
        // The default sweep has no rate axis; --quick a short one.
        assert_eq!(full.rates(), [Regime::FlatOut]);
        assert_eq!(quick.rates(), [Regime::SEED, Regime::FlatOut]);
        let given = parse(&["--quick", "--rates", "10k,1M,max"]);
        assert_eq!(
            given.rates(),
            [Regime::paced(1e4), Regime::paced(1e6), Regime::FlatOut]
        );
    }
}
