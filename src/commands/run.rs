//! `contend run` (and `contend` with no subcommand): plan from the options,
//! execute, save, print.

use super::args::{
    PlacementArg, PoolArgs, ResultsArgs, StrategyArgs, duration_arg, fraction_arg, inject_arg,
    percent_arg, warmup_arg,
};
use super::{Session, host_name, is_live, load_topology, print_notes, require_live_root};
use crate::CliError;
use crate::compare::{HostRecord, RECORD_FILE};
use crate::counter::NodeIter;
use crate::report::{self, Document, Format};
use crate::runner::{
    self, DEFAULT_REPEATS, DEFAULT_TARGET_CI_PCT, PacedMode, RunPlan, RunRequest, RunResults,
    Stopped, signal,
};
use crate::workload::{Arrivals, Regime};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `contend run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Who runs: writer and reader threads, on which CPUs.
    #[command(flatten)]
    pub pools: PoolArgs,

    /// The strategies to compare.
    #[command(flatten)]
    pub strategies: StrategyArgs,

    /// Put every counter slot on this node (default: each slot on its own
    /// node; global on the node of the first writer).
    #[arg(long, value_name = "N")]
    pub counter_node: Option<u32>,

    /// How node-level readers walk slots: compact (to nr_node_ids) or
    /// bitmap (a 1024-bit mask, as for_each_node with NODES_SHIFT=10).
    #[arg(long, value_name = "HOW", default_value = "compact")]
    pub node_iter: NodeIter,

    /// Measured time per strategy and regime, split evenly over the
    /// repeats (1s with 5 repeats = 5 intervals of 200ms). Units: ns, us,
    /// ms, s [default: 1s; 500ms with two or more regimes, so the default
    /// run of both ends within 20 s].
    #[arg(long, value_name = "TIME", value_parser = duration_arg)]
    pub duration: Option<Duration>,

    /// Warm-up before each repeat's interval (0 = none).
    #[arg(long, value_name = "TIME", default_value = "50ms", value_parser = warmup_arg)]
    pub warmup: Duration,

    /// Repeats per strategy; spread and confidence intervals come from them.
    /// Strategies take turns, repeat by repeat, so drift hits all alike.
    /// Given, it fixes the count (unless --target-ci is given too);
    /// otherwise 5, then more while --target-ci is not met [default: 5].
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeats: Option<u32>,

    /// Keep adding rounds, widest CI first, for the strategies not there
    /// yet, until every strategy's 95% CI of its cost per update is
    /// within P% of its mean (flat out: loop ns/op; paced: net ns/update,
    /// paired with the floor round by round, within P% or 1 ns; under
    /// --paced both, the CI of its net in place less alone within ±1 ns
    /// too) or
    /// --max-time is spent; a paced round disturbed by a canary shift or
    /// stalls is measured again first. 0 turns it off [default: 5, unless
    /// --repeats is given].
    #[arg(long, value_name = "P", value_parser = percent_arg)]
    pub target_ci: Option<f64>,

    /// Time budget of the whole run.
    ///
    /// Warm-up and floor included: no repeat starts that would end past it
    /// (the run then stops, marked partial, and says so), and --target-ci
    /// adds repeats only within it (18s: a default run ends within 20 s).
    #[arg(long, value_name = "TIME", default_value = "18s", value_parser = duration_arg)]
    pub max_time: Duration,

    /// The regimes, comma-separated: max (flat out) or updates/s per thread.
    ///
    /// Measured interleaved in one run: `max` hammers (every writer flat out: saturation throughput and
    /// updates per ownership of the line); a rate R (22000, 22k, 1M) paces
    /// each thread at R operations per second with absolute deadlines
    /// (net ns per update and net CPU share: what the counter costs
    /// beyond the same paced loop with no shared write). Postgres on the
    /// 224-CPU Sapphire Rapids behind the 1 ms ratelimit commit made 14M
    /// wakeups + 11M migrations in 5 s: about 22000 updates/s per CPU
    /// [default: max,22k].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub rate: Option<Vec<Regime>>,

    /// How a paced thread's operations fall in time: paced (evenly, one
    /// per period) or poisson (exponential gaps at the mean rate, as a
    /// kernel's updates fall at wakeups and migrations; drawn from --seed,
    /// one stream per thread, the same for every strategy and repeat).
    /// Applies to every rate of --rate; flat out has none.
    #[arg(long, value_name = "HOW", default_value = "paced")]
    pub arrivals: Arrivals,

    /// How paced strategies share repeats: in-place (every paced
    /// strategy of a rate in every repeat, each thread updating each
    /// strategy's own counter once a period at staggered offsets, so two
    /// strategies are compared repeat by repeat under the same host phase;
    /// grouped where a period cannot hold them all, as the output says),
    /// alone (each in repeats of its own, taking turns), or both (in place,
    /// and each strategy also alone in the same round, before or after: the
    /// check that in place biases no strategy, paired round by round, one
    /// line of the output; each round then takes one repeat per strategy
    /// more, so give it --max-time). Flat out is always alone.
    #[arg(long, value_name = "HOW", default_value = "in-place")]
    pub paced: PacedMode,

    /// Seed of the writers' load tables and of poisson arrivals.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// The fraction of updates the kernel's filter before v6.7,
    /// threshold:64, publishes on the writers' load walks, as a fraction
    /// or a percentage (0.4, 40%): the walks' step is chosen for it and
    /// both are recorded in run.json [default: 40%, the seed's: about 10M
    /// adds in 25M events].
    #[arg(long, value_name = "F|P%", value_parser = fraction_arg)]
    pub threshold_publishes: Option<f64>,

    /// Time one operation in K (rounded up to a power of two) for latency
    /// percentiles and staleness probes; 0 turns both off [default: 1024;
    /// under --rate R, R/10000 rounded up to a power of two, at least 2,
    /// so a paced thread is sampled about 10,000 times a second and at
    /// least half its operations stay untimed for busy ns/update; 1 is
    /// refused with a rate].
    #[arg(long, value_name = "K")]
    pub sample_every: Option<u64>,

    /// strict: a thread or slot that cannot be placed and verified stops
    /// the run; best-effort: go on and record it unverified.
    #[arg(long, value_enum, default_value_t = PlacementArg::Strict)]
    pub placement: PlacementArg,

    /// Let threads share CPUs when there are more threads than CPUs (the
    /// output says so). Without it that is an error.
    #[arg(long)]
    pub oversubscribe: bool,

    /// Add a known cost to every update, to see whether a setup can see it.
    ///
    /// A busy chain of multiplies (20ns, 1us; at most 10us) inside every
    /// update's measured window, calibrated at the start, priced on the
    /// harness floor and recorded in run.json and the header; the floors
    /// run without it. Compare against runs without it (`contend compare`)
    /// to learn whether a regression of that size would be called.
    #[arg(long, value_name = "TIME", value_parser = inject_arg)]
    pub inject: Option<f64>,

    /// Run the experiment K times and record how their means spread.
    ///
    /// Each run is written to its own folder, then DIR/<host>/noise.json
    /// records the spread of their means (K of 2 or more): `contend
    /// compare` uses it to bound a comparison of one run per side, where a
    /// run's own repeats cannot say how far a second run would land. 5
    /// takes about 1.5 minutes.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: u32,

    /// After the first screen, print every figure, table and test.
    ///
    /// The whole answer, every verdict with its interval and p-value, then
    /// every table, regime by regime, with every line on what the numbers
    /// rest on (report.html has them too).
    #[arg(long, short)]
    pub verbose: bool,

    /// Print the plan (threads, rounds, a repeat's start-up measured
    /// here, the estimated wall time against --max-time, the memory) and
    /// stop. Works with --sysfs-root on any fixture or capture (the
    /// start-up then measured on this host and scaled).
    #[arg(long)]
    pub dry_run: bool,

    /// Where results go and what is printed.
    #[command(flatten)]
    pub output: ResultsArgs,
}

impl RunArgs {
    /// The regimes: `--rate`, else flat out and the seed's rate; paced
    /// ones with `--arrivals`.
    pub fn rates(&self) -> Vec<Regime> {
        let rates = self
            .rate
            .clone()
            .unwrap_or(vec![Regime::FlatOut, Regime::SEED]);
        rates
            .into_iter()
            .map(|r| match r {
                Regime::Paced { rate, .. } => Regime::Paced {
                    rate,
                    arrivals: self.arrivals,
                },
                flat => flat,
            })
            .collect()
    }

    /// The engine's request: everything but the output options.
    pub fn request(&self) -> RunRequest {
        let rates = self.rates();
        let duration = self.duration.unwrap_or(if rates.len() > 1 {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(1)
        });
        RunRequest {
            pools: self.pools.pools(self.oversubscribe),
            read_every: self.pools.read_every,
            strategies: self.strategies.choice(),
            counter_node: self.counter_node,
            node_iter: self.node_iter,
            duration,
            warmup: self.warmup,
            repeats: self.repeats.unwrap_or(DEFAULT_REPEATS),
            target_ci_pct: match (self.target_ci, self.repeats) {
                (Some(p), _) if p > 0.0 => Some(p),
                (Some(_), _) | (None, Some(_)) => None,
                (None, None) => Some(DEFAULT_TARGET_CI_PCT),
            },
            max_time: Some(self.max_time),
            rates,
            seed: self.seed,
            sample_every: self.sample_every,
            placement: self.placement.into(),
        }
    }
}

pub(super) fn run(root: &Path, args: &RunArgs) -> Result<(), CliError> {
    if !args.dry_run {
        require_live_root(
            root,
            "run pins real threads (--dry-run reads any --sysfs-root)",
        )?;
    }
    let topo = load_topology(root)?;
    let session = Session::new(&args.output);
    if session.chatty() && !args.dry_run {
        print_notes(&topo);
    }
    if args.arrivals != Arrivals::Paced && !args.rates().iter().any(|r| r.is_paced()) {
        return Err(CliError::usage(format!(
            "--arrivals {} needs a paced rate: give --rate R (e.g. --rate 100k,1M); flat out (max) has no arrivals",
            args.arrivals
        )));
    }
    let request = args.request();
    let mut plan = runner::plan(&request, topo)?.with_paced(args.paced);
    if let Some(fraction) = args.threshold_publishes {
        plan = plan.with_threshold_publishes(fraction)?;
    }
    if let Some(ns) = args.inject {
        plan = plan.with_inject(ns);
    }
    // A repeat's start-up, measured before the run (for a fixture, on
    // this host and scaled): it sets the warm-up and says up front
    // whether --max-time holds every repeat.
    let cpus: Vec<u32> = plan
        .config
        .writer_cpus
        .iter()
        .chain(&plan.config.reader_cpus)
        .copied()
        .collect();
    let costs =
        runner::HostCosts::for_cpus(&plan.topo, is_live(root), &cpus, plan.config.placement)?;
    let (plan, estimate) = plan.with_costs(costs);
    if args.dry_run {
        print!(
            "{}",
            report::text::run_plan_text(&host_name(root), &plan, &estimate)
        );
        return Ok(());
    }
    args.output.check()?;
    let mut done: Vec<(PathBuf, RunResults)> = Vec::new();
    for k in 1..=args.runs {
        if args.runs > 1 && !args.output.quiet {
            eprintln!("run {k} of {}", args.runs);
        }
        let (dir, results) = run_once(args, &plan, &session)?;
        let stopped = results.stopped();
        done.push((dir.join("run.json"), results));
        if stopped == Some(Stopped::Interrupted) {
            break;
        }
    }
    if done.len() >= 2 {
        record(args, &session, &done)?;
    }
    let last = &done.last().expect("one run at least").1;
    match last.stopped() {
        Some(Stopped::Interrupted) => {
            Err(CliError::failure("interrupted: partial results written"))
        }
        Some(Stopped::OutOfTime) => {
            if !args.output.quiet {
                eprintln!(
                    "out of time: --max-time {} s ran out before every planned repeat; partial results written (raise --max-time, or lower --repeats or --duration)",
                    last.config.max_time_s.unwrap_or(0.0)
                );
            }
            Ok(())
        }
        None => Ok(()),
    }
}

/// One run of the experiment: planned, executed, printed, saved; its
/// folder and results. An inexact sum is an error.
fn run_once(
    args: &RunArgs,
    plan: &RunPlan,
    session: &Session,
) -> Result<(PathBuf, RunResults), CliError> {
    session.notes(&plan.notes);

    let stop = signal::stop_flag();
    let bar = session.time_bar(args.max_time);
    let results = runner::execute(plan, stop, |_, _, name| {
        if let Some(b) = &bar {
            b.set_message(name);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let results = results?;

    // What was measured is printed before anything is saved, so a full
    // disk or a bad --out loses the files, not the numbers.
    let doc = Document::Run(&results);
    if session.print(&doc, Format::Text)? && args.verbose {
        print!("{}", report::text::run_tables(&results));
    }
    let dir = crate::results::new_results_dir(
        &args.output.out,
        &results.provenance.hostname,
        &results.provenance.started_utc,
    )?;
    let files = report::save(
        &dir,
        &doc,
        &[Format::Json, Format::Csv, Format::Svg, Format::Html],
    )?;
    session.wrote(&files);
    if let Some(bad) = results.first_inexact() {
        return Err(CliError::failure(bad));
    }
    Ok((dir, results))
}

/// The host's record of `runs` (`--runs K`): how their means spread,
/// written to noise.json in their host folder, and printed.
fn record(
    args: &RunArgs,
    session: &Session,
    runs: &[(PathBuf, RunResults)],
) -> Result<(), CliError> {
    let listed: Vec<(PathBuf, &RunResults)> = runs.iter().map(|(p, r)| (p.clone(), r)).collect();
    let Some(record) = HostRecord::of(&listed) else {
        return Ok(());
    };
    let host_dir = runs[0]
        .0
        .parent()
        .and_then(Path::parent)
        .unwrap_or(&args.output.out);
    let path = host_dir.join(RECORD_FILE);
    let json = serde_json::to_string_pretty(&record).expect("a record serialises");
    crate::results::write_atomic(&path, json.as_bytes())?;
    if session.chatty() {
        print!("{}", report::text::record_text(&record));
    }
    session.wrote(&[path]);
    Ok(())
}
