//! `contend sweep`: `contend run` at every thread count × affinity set
//! (seed 002's table), planned up front, into one results folder.

use super::args::{MeasureArgs, Print, strip_clip};
use super::{Session, check_out, load_topology, measuring};
use crate::CliError;
use crate::report::{self, Document, ExportError, Format};
use crate::runner::{DEFAULT_REPEATS, PoolSize, signal};
use crate::sweep::SweepResults;
use crate::sweep::{Affinity, SweepRequest, SweepStop, execute_sweep, plan_sweep};
use crate::workload::Regime;
use clap::Args;
use std::path::Path;
use std::str::FromStr;
use std::time::{Duration, Instant, SystemTime};

/// Options of `contend sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Writer thread counts, comma-separated: counts, or percentages of each affinity set's allowed CPUs.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "25%,50%,75%,100%"
    )]
    pub threads: Vec<PoolSize>,

    /// Affinity sets, comma-separated: unbound (spread across nodes) or nodeN; nodeN:clip keeps its allowed CPUs [unbound and every node with CPUs].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub affinity: Option<Vec<AffinityArg>>,

    /// The strategies, regimes and timing at every point (as `contend run`).
    #[command(flatten)]
    pub measure: MeasureArgs,

    /// A short sweep for CI: --duration 200ms --repeats 3 --warmup 20ms --rate 22k,max unless given.
    #[arg(long)]
    pub quick: bool,
}

/// An affinity set, and whether to keep only its allowed CPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AffinityArg(Affinity, bool);

impl FromStr for AffinityArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (set, clip) = strip_clip(s);
        Ok(AffinityArg(set.parse().map_err(|e| format!("{e}"))?, clip))
    }
}

impl SweepArgs {
    /// The engine's request, `--quick` defaults filled in.
    pub fn request(&self) -> SweepRequest {
        let m = &self.measure;
        let q = self.quick;
        let ms = |quick, full| Duration::from_millis(if q { quick } else { full });
        // --quick: the seed's rate and flat out; else flat out alone.
        let rates = [Regime::SEED, Regime::FlatOut][usize::from(!q)..].to_vec();
        let repeats = if q { 3 } else { DEFAULT_REPEATS };
        SweepRequest {
            threads: self.threads.clone(),
            affinity: (self.affinity.as_ref()).map(|a| a.iter().map(|a| a.0).collect()),
            rates: m.regimes().unwrap_or(rates),
            strategies: m.choice(),
            duration: m.duration.unwrap_or(ms(200, 1000)),
            repeats: m.repeats.map_or(repeats, |r| r.count),
            warmup: m.warmup.unwrap_or(ms(20, 50)),
            seed: m.seed(),
            placement: m.placement.placement,
            clip: self.affinity.iter().flatten().any(|a| a.1),
            max_time: m.max_time,
        }
    }
}

pub(super) fn run(root: &Path, args: &SweepArgs) -> Result<(), CliError> {
    let output = &args.measure.output;
    let print = [Print::Summary, Print::Json, Print::None];
    measuring(root, output.print, "sweep", &print)?;
    let topo = load_topology(root)?;
    if let Some(why) = args.measure.run_only() {
        return Err(CliError::usage(why));
    }
    let session = Session::new(output, &topo.notes);
    let mut plan = plan_sweep(&args.request(), &topo)?;
    check_out(&output.out)?;
    session.notes(&plan.notes);

    let stop = signal::stop_flag();
    let started = Instant::now();
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let host = plan.points[0].plan.provenance.hostname.clone();
    let dir = crate::results::new_results_dir(&output.out, &host, &stamp)?;

    let bar = session.progress_bar(plan.total_repeats(), "repeats");
    let labels: Vec<String> = plan.points.iter().map(|p| p.label()).collect();
    let count = labels.len();
    let outcome = execute_sweep(
        &mut plan,
        stop,
        |done, label, name| {
            bar.set_position(done as u64);
            bar.set_message(format!("{label}: {name}"));
        },
        |i, sweep: &SweepResults, secs| -> Result<(), ExportError> {
            let line = format!(
                "[{}/{count}] {}: {} strategies in {secs:.1} s",
                i + 1,
                labels[i],
                sweep.points[i].results.strategies.len(),
            );
            if !bar.is_hidden() {
                bar.println(line);
            } else if !session.quiet() {
                eprintln!("{line}");
            }
            // Finished points survive a crash: sweep.json, still partial.
            report::save(&dir, &Document::Sweep(sweep), &[Format::Json])?;
            Ok(())
        },
    );
    bar.finish_and_clear();
    let (ref sweep, stopped) = outcome?;
    let doc = Document::Sweep(sweep);
    let mut formats = vec![Format::Json, Format::Csv, Format::Markdown, Format::Html];
    if !sweep.points.is_empty() {
        formats.push(Format::Svg);
    }
    let files = report::save(&dir, &doc, &formats)?;
    session.print(&doc, Format::Text)?;
    session.wrote(&files);
    if !session.quiet() {
        eprintln!(
            "sweep: {} of {count} points in {:.1} s",
            sweep.points.len(),
            started.elapsed().as_secs_f64()
        );
    }
    match stopped {
        Some(SweepStop::Interrupted) => {
            Err(CliError::failure("interrupted: partial results written"))
        }
        Some(SweepStop::OutOfTime) => {
            if !session.quiet() {
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

/// Fails (exit 1) naming the first point whose final sum was not exact.
fn check_exact(sweep: &SweepResults) -> Result<(), CliError> {
    let mut points = sweep.points.iter();
    match points.find_map(|p| Some((p, p.results.first_inexact()?))) {
        None => Ok(()),
        Some((p, bad)) => {
            let (a, t) = (&p.affinity, &p.threads);
            Err(CliError::failure(format!("{a} × {t} threads: {bad}")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request of `contend sweep ARGS`.
    fn request(args: &str) -> SweepRequest {
        crate::commands::parse_args::<SweepArgs>(args).request()
    }

    #[test]
    fn quick_sets_only_what_was_not_given() {
        let ms = Duration::from_millis;
        let timing = |r: &SweepRequest| (r.duration, r.repeats, r.warmup);
        let (full, quick) = (request(""), request("--quick --repeats 2"));
        assert_eq!(timing(&full), (ms(1000), 5, ms(50)));
        assert_eq!(timing(&quick), (ms(200), 2, ms(20)));
        let percents = [25.0, 50.0, 75.0, 100.0].map(PoolSize::Percent);
        assert_eq!(full.threads, percents);
        // The default sweep has no rate axis; --quick a short one.
        assert_eq!(full.rates, [Regime::FlatOut]);
        assert_eq!(quick.rates, [Regime::SEED, Regime::FlatOut]);
        let given = request("--quick --rates 10k,1M,max").rates;
        let paced = Regime::paced;
        assert_eq!(given, [paced(1e4), paced(1e6), Regime::FlatOut]);
        let clipped = request("--affinity node0:clip,unbound");
        let want = Some(vec![Affinity::Node(0), Affinity::Unbound]);
        assert_eq!((clipped.affinity, clipped.clip), (want, true));
    }
}
