//! `contend run` (and `contend` alone): plan, execute, print, save.

use super::args::{MeasureArgs, PoolArgs, Print, inject_arg};
use super::{Session, check_out, host_name, is_live, load_topology, measuring};
use crate::CliError;
use crate::compare::{HostRecord, RECORD_FILE};
use crate::report::{self, Document, Format};
use crate::runner::{self, PacedMode, RunPlan, RunRequest, RunResults, Stopped, signal};
use crate::workload::Regime;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Options of `contend run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Who runs: writer and reader threads, on which CPUs.
    #[command(flatten)]
    pub pools: PoolArgs,

    /// What is measured, how long, where results go.
    #[command(flatten)]
    pub measure: MeasureArgs,

    /// How paced strategies share repeats: in-place (every paced strategy of a rate in every repeat), alone, or both (the check that in place biases none).
    #[arg(long, value_name = "HOW", default_value = "in-place")]
    pub paced: PacedMode,

    /// Add a known cost (20ns, 1us; at most 10us) to every update, to see whether a setup can see it (compare against runs without it).
    #[arg(long, value_name = "TIME", value_parser = inject_arg)]
    pub inject: Option<f64>,

    /// Run the experiment K times; DIR/<host>/noise.json records how their means spread, which `contend compare` uses.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: u32,
}

impl RunArgs {
    /// The regimes: `--rate`, else flat out and the seed's rate.
    fn rates(&self) -> Vec<Regime> {
        self.measure
            .regimes()
            .unwrap_or(vec![Regime::FlatOut, Regime::SEED])
    }

    /// The engine's request: everything but the output options.
    pub fn request(&self) -> RunRequest {
        let m = &self.measure;
        let rates = self.rates();
        let duration = Duration::from_millis(if rates.len() > 1 { 500 } else { 1000 });
        let repeats = m.repeats();
        RunRequest {
            pools: self.pools.pools(m.placement.oversubscribe),
            read_every: self.pools.read_every(),
            strategies: m.choice(),
            counter_node: m.placement.counter_node,
            node_iter: m.placement.node_iter,
            duration: m.duration.unwrap_or(duration),
            warmup: m.warmup.unwrap_or(Duration::from_millis(50)),
            repeats: repeats.count,
            target_ci_pct: repeats.target_ci,
            max_time: Some(self.max_time()),
            rates,
            seed: m.seed(),
            sample_every: m.sample_every(),
            placement: m.placement.placement,
        }
    }

    /// The run's time budget [18s: a default run ends within 20 s].
    fn max_time(&self) -> Duration {
        self.measure.max_time.unwrap_or(Duration::from_secs(18))
    }
}

pub(super) fn run(root: &Path, args: &RunArgs) -> Result<(), CliError> {
    use Print::{All, Json, Plan, Summary};
    let output = &args.measure.output;
    let print = measuring(
        root,
        output.print,
        "run",
        &[Summary, All, Json, Print::None, Plan],
    )?;
    let topo = load_topology(root)?;
    let session = Session::new(output, &topo.notes);
    let arrivals: Vec<_> = args
        .rates()
        .into_iter()
        .filter_map(|r| match r {
            Regime::Paced { arrivals, .. } => Some(arrivals),
            Regime::FlatOut => None,
        })
        .collect();
    if arrivals.windows(2).any(|w| w[0] != w[1]) {
        return Err(CliError::usage(
            "--rate: one arrival process per run (22k:poisson,1M:poisson)",
        ));
    }
    let request = args.request();
    let mut plan = runner::plan(&request, topo)?.with_paced(args.paced);
    if let Some(fraction) = args.measure.threshold_publishes() {
        plan = plan.with_threshold_publishes(fraction)?;
    }
    if let Some(ns) = args.inject {
        plan = plan.with_inject(ns);
    }
    // A repeat's start-up, measured first, sets the warm-up and tells
    // whether --max-time holds every repeat.
    let c = &plan.config;
    let cpus = [&c.writer_cpus[..], &c.reader_cpus[..]].concat();
    let costs = runner::HostCosts::for_cpus(&plan.topo, is_live(root), &cpus, c.placement)?;
    let (plan, estimate) = plan.with_costs(costs);
    if print == Plan {
        let text = report::text::run_plan_text(&host_name(root), &plan, &estimate);
        print!("{text}");
        return Ok(());
    }
    check_out(&output.out)?;
    let mut done: Vec<(PathBuf, RunResults)> = Vec::new();
    for k in 1..=args.runs {
        if args.runs > 1 && !session.quiet() {
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
            if !session.quiet() {
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

/// One run executed, printed and saved; an inexact sum is an error.
fn run_once(
    args: &RunArgs,
    plan: &RunPlan,
    session: &Session,
) -> Result<(PathBuf, RunResults), CliError> {
    session.notes(&plan.notes);

    let stop = signal::stop_flag();
    let bar = session.time_bar(args.max_time());
    let results = runner::execute(plan, stop, |_, _, name| bar.set_message(name));
    bar.finish_and_clear();
    let results = results?;

    // What was measured is printed before anything is saved, so a full
    // disk or a bad --out loses the files, not the numbers.
    let doc = Document::Run(&results);
    if session.print(&doc, Format::Text)? && args.measure.output.print == Print::All {
        print!("{}", report::text::run_tables(&results));
    }
    let (out, p) = (&args.measure.output.out, &results.provenance);
    let dir = crate::results::new_results_dir(out, &p.hostname, &p.started_utc)?;
    let formats = [Format::Json, Format::Csv, Format::Svg, Format::Html];
    let files = report::save(&dir, &doc, &formats)?;
    session.wrote(&files);
    if let Some(bad) = results.first_inexact() {
        return Err(CliError::failure(bad));
    }
    Ok((dir, results))
}

/// `--runs K`: how the runs' means spread, written to noise.json.
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
        .unwrap_or(&args.measure.output.out);
    let path = host_dir.join(RECORD_FILE);
    let json = serde_json::to_string_pretty(&record).expect("a record serialises");
    crate::results::write_atomic(&path, json.as_bytes())?;
    if session.chatty() {
        print!("{}", report::text::record_text(&record));
    }
    session.wrote(&[path]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ClockKind;
    use crate::commands::parse_args;
    use crate::counter::{NodeIter, Pad, PublishPolicy, ShardLevel};
    use crate::placement::Placement;
    use crate::runner::PoolSize;
    use crate::topology::CpuSpec;
    use crate::workload::Arrivals;

    /// The request of `contend run ARGS`.
    fn request(args: &str) -> RunRequest {
        parse_args::<RunArgs>(args).request()
    }

    #[test]
    fn folded_values_land_in_the_request_fields() {
        let r = request(
            "--writers 4@node:1:clip --readers 2@0-1+every:0 --level global,pad:64 \
             --publish always,clock:coarse --rate 22k:poisson,seed:7,sample:64 --repeats 8:3% \
             --placement best-effort,node:1,bitmap,oversubscribe",
        );
        let p = &r.pools;
        let (four, two) = (Some(PoolSize::Count(4)), Some(PoolSize::Count(2)));
        assert_eq!(
            (p.writers, p.readers, p.oversubscribe, p.clip),
            (four, two, true, true)
        );
        let cpus = (Some(CpuSpec::Node(1)), Some("0-1".parse().unwrap()));
        assert_eq!((p.writer_cpus.clone(), p.reader_cpus.clone()), cpus);
        assert_eq!(r.read_every, 0);
        let s = &r.strategies;
        let always = "always".parse::<PublishPolicy>().unwrap();
        assert_eq!(
            (&s.levels[..], &s.policies[..]),
            (&[ShardLevel::Global][..], &[always][..])
        );
        assert_eq!(
            (&s.pads[..], &s.clocks[..]),
            (&[Pad::Line64][..], &[ClockKind::Coarse][..])
        );
        let [Regime::Paced { rate, arrivals }] = r.rates[..] else {
            panic!("{:?}", r.rates)
        };
        assert_eq!((rate, arrivals), (22e3, Arrivals::Poisson));
        assert_eq!((r.seed, r.sample_every), (7, Some(64)));
        assert_eq!((r.repeats, r.target_ci_pct), (8, Some(3.0)));
        let placement = (r.placement, r.counter_node, r.node_iter);
        assert_eq!(
            placement,
            (Placement::BestEffort, Some(1), NodeIter::Bitmap)
        );
        // The defaults: the seed's comparison, 5 rounds to ±5%, 18 s.
        let d = request("");
        assert_eq!(d.rates, [Regime::FlatOut, Regime::SEED]);
        assert_eq!((d.repeats, d.target_ci_pct), (5, Some(5.0)));
        assert_eq!((d.read_every, d.seed, d.sample_every), (1, 1, None));
        assert_eq!(d.duration, Duration::from_millis(500));
        assert_eq!(d.max_time, Some(Duration::from_secs(18)));
        assert_eq!(d.strategies.strategies().len(), 6);
        assert_eq!(request("--repeats 3").target_ci_pct, None);
        // The shorter spellings: a share, a spec alone, every:K alone, 0%.
        let r = request("--writers 50% --readers every:4 --repeats 8:0");
        let half = Some(PoolSize::Percent(50.0));
        assert_eq!((r.pools.writers, r.pools.readers), (half, None));
        assert_eq!((r.read_every, r.target_ci_pct), (4, None));
        let p = request("--writers 0-7").pools;
        assert_eq!(
            (p.writers, p.writer_cpus),
            (None, Some("0-7".parse().unwrap()))
        );
        let m = parse_args::<RunArgs>("--publish walks:25%").measure;
        assert_eq!(m.threshold_publishes(), Some(0.25));
    }
}
