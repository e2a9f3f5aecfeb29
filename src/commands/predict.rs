//! `contend predict`: parse → the model → print, or with `--check FILE`
//! the model against a run measured under `--rate`.

use super::args::{PoolArgs, StrategyArgs, fraction_arg, percent_arg};
use super::{check_out, host_name, is_live, load_topology};
use crate::CliError;
use crate::counter::PublishPolicy;
use crate::predict::inferred::{self, InferredHost};
use crate::predict::{
    self, CheckResults, CostCurve, HomeCost, Latencies, LatencyArg, Layout, LineCosts,
    PredictRequest, ReadOccupancy, Walks,
};
use crate::report::{self, Document, Format};
use crate::results::{self, ResultFile};
use crate::runner::RunResults;
use crate::runner::pools;
use crate::topology::Topology;
use crate::workload::{Arrivals, parse_rate};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options of `contend predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Who touches the counter: writer and reader CPUs, as `contend run`
    /// takes them (on a fixture, its CPUs are the allowed ones).
    #[command(flatten)]
    pub pools: PoolArgs,

    /// The strategies, as `contend run` takes them (the model does not
    /// tell pads or clocks apart).
    #[command(flatten)]
    pub strategies: StrategyArgs,

    /// Updates per second per writer CPU, comma-separated (22000, 22k,
    /// 1.5M). The seed's postgres on the 224-CPU Sapphire Rapids: 22k.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_rate,
          default_value = "1k,22k,100k")]
    pub rates: Vec<f64>,

    /// Transfer time per distance class, comma-separated CLASS=TIME[±U]
    /// with the class names `contend matrix` prints (smt, same-llc,
    /// same-node, cross-node@D; `cross-node` covers every distance
    /// without its own figure). U is ns or %; ±25% unless given. Overrides
    /// the same classes of --latencies.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub latency: Vec<LatencyArg>,

    /// Take the class latencies from a `contend matrix` result (matrix.json
    /// or its folder): each class's median pair, its range the pairs'
    /// spread widened to at least ±25%.
    #[arg(long, value_name = "FILE")]
    pub latencies: Option<PathBuf>,

    /// Take the host from a core-to-core-latency CSV
    /// (nviennot/core-to-core-latency's `--csv`: one-way ns, lower
    /// triangle): SMT siblings, LLCs and nodes inferred from the matrix
    /// alone and printed, each class's median pair its latency, the 5th
    /// to 95th percentile widened to at least ±25% its range. With
    /// --sysfs-root, that capture's layout wins and where the matrix
    /// disagrees is said. --latency overrides the same classes.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["latencies", "check"])]
    pub c2c: Option<PathBuf>,

    /// With --c2c: the host's sockets, when the matrix cannot tell (two
    /// sockets of one small LLC each look like one socket of two LLCs).
    #[arg(long, value_name = "N", requires = "c2c", value_parser = clap::value_parser!(u32).range(1..))]
    pub sockets: Option<u32>,

    /// Which fetches of a line another CPU wrote since occupy the line
    /// (queue for it): every one, the first per node or per LLC after a
    /// write, or only the first after a write; the others pay a transfer
    /// but are served alongside.
    #[arg(long, value_name = "WHICH", default_value = "every")]
    pub read_occupancy: ReadOccupancy,

    /// Time per hand-over of one line with K CPUs updating it, from a
    /// measurement or a publication: comma-separated K:TIME (e.g.
    /// lockhammer's 1:37ns,32:56ns,64:56ns). Every transfer of a line
    /// with K writers takes its class latency × t(K)/t(K₀), K₀ the
    /// smallest K given, read between points by straight lines and flat
    /// past either end. Without it, the idle class latencies.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub contenders: Vec<String>,

    /// The writer's upgrade with M readers holding the line:
    /// comma-separated M:TIME (e.g. 1:60ns,16:140ns). A write after
    /// reads costs t(m̄), m̄ the mean sharers it invalidates. Without
    /// it, the one-sharer upgrade of the class latencies, the cross-node
    /// latency once when a sharer is on another node.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub sharers: Vec<String>,

    /// A transfer's time by where the line's memory lives relative to
    /// the requester: local=TIME,remote=TIME, remote=RATIOx (e.g.
    /// remote=2.1x), or a ratio per class, CLASS=RATIOx,… (e.g.
    /// same-node=1.85x,cross-node=1.5x; every class the chosen CPUs
    /// exchange the line over needs one). A CPU off --home-node pays
    /// remote/local (or its class's ratio) × its class latency. Without
    /// it, every node alike.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub home: Vec<String>,

    /// A writer's read of its own line after another CPU read it, as a
    /// multiple of each class's ping-pong (RATIOx, e.g. 1.07x: the line
    /// was taken by the reader; 0x: the writer kept a copy), for every
    /// class; replaces a --latencies matrix's `read back`. Without it
    /// and without a matrix that measured it, free.
    #[arg(long, value_name = "RATIOx", value_parser = read_back_ratio, conflicts_with = "check")]
    pub read_back: Option<f64>,

    /// The node the counter's memory is on: each node's cost is said
    /// local or remote to it.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub home_node: u32,

    /// How updates fall in time: poisson (irregular, as a kernel's) or
    /// paced (evenly spaced, as `contend run --rate`).
    #[arg(long, value_name = "HOW", default_value = "poisson")]
    pub arrivals: Arrivals,

    /// Seed of the load walks the publish fractions come from (as `run`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// The fraction of updates threshold:64 publishes on the load walks
    /// (as `run --threshold-publishes`): the walks' step is chosen for it,
    /// and every policy's fraction is stepped over those walks
    /// [default: 40%, the seed's].
    #[arg(long, value_name = "F|P%", value_parser = fraction_arg)]
    pub threshold_publishes: Option<f64>,

    /// Publish fractions measured or published for policies, used at
    /// every rate in place of the walks' (POLICY=F|P%, comma-separated):
    /// e.g. the merged fix on the seed's host made about 25k adds in 5 s
    /// over 224 CPUs at 22k updates/s each, so
    /// ratelimit:1ms+threshold:64=0.1%.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = given_publishes)]
    pub publishes: Vec<(PublishPolicy, f64)>,

    /// Instead of predicting, set the model against a run.json or
    /// sweep.json: that file's topology, CPUs, regimes (paced or poisson
    /// arrivals, flat out) and strategies, with --latencies (a matrix of
    /// the same host) for the classes; only a run whose CPUs make one pair
    /// class may use each repeat's canary instead. Prints, flat out,
    /// hand-overs/s predicted against the run's exact count; per paced
    /// point, transfers per update predicted against the exact counts and
    /// net cost against the measured 95% CI; then how many agree (inside
    /// the CI and within ±25%), the median error, the worst point and the
    /// knee.
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,

    /// With --check: exit 1 when the median error of the net cost (of the
    /// hand-overs/s, for a run measured only flat out) is over PCT (a median that is not finite, e.g. most points saturated or
    /// measured at or below 0, is over any).
    #[arg(long, value_name = "PCT", requires = "check", value_parser = percent_arg)]
    pub max_error: Option<f64>,

    /// Print the result as JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Also write predict.json (or check.json) and the charts into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub(super) fn run(root: &Path, args: &PredictArgs) -> Result<(), CliError> {
    let inferred = match &args.c2c {
        Some(file) => Some(infer(root, file, args.sockets)?),
        None => None,
    };
    let host = match &inferred {
        Some(h) => h.source.clone(),
        None => host_name(root),
    };
    let latencies = latencies(args, inferred.as_ref())?;
    let (checked, prediction);
    let doc = match &args.check {
        Some(file) => {
            checked = check(args, file, latencies.as_ref())?;
            Document::Check(&checked)
        }
        None => {
            let latencies = latencies.ok_or_else(|| {
                CliError::usage(
                    "no class latencies: give --latencies matrix.json (from contend matrix), --c2c FILE.csv (from core-to-core-latency) or --latency CLASS=TIME,… (e.g. smt=8ns,same-llc=51ns,cross-node=108ns)",
                )
            })?;
            let topo = match &inferred {
                Some(h) => h.topology.clone(),
                None => load_topology(root)?,
            };
            let mut latencies = latencies;
            latencies.costs = line_costs(args, &topo, std::mem::take(&mut latencies.costs))?;
            let walks = match args.threshold_publishes {
                Some(f) => Walks {
                    seed: args.seed,
                    step: crate::workload::step_for_threshold_publishes(f, args.seed)
                        .map_err(CliError::usage)?
                        .0,
                },
                None => Walks::of_seed(args.seed),
            };
            let cpus = pools(&topo, &args.pools.pools(false))?;
            for clipped in &cpus.clipped {
                eprintln!("note: {clipped}");
            }
            let request = PredictRequest {
                layout: Layout {
                    writers: cpus.writers,
                    readers: cpus.readers,
                    read_every: args.pools.read_every,
                },
                levels: args.strategies.level.clone(),
                policies: args.strategies.publish.clone(),
                rates: args.rates.clone(),
                latencies,
                arrivals: args.arrivals,
                walks,
                publishes: args.publishes.clone(),
            };
            let mut p = predict::predict(&topo, &host, &request).map_err(CliError::usage)?;
            p.inferred = inferred;
            prediction = p;
            Document::Predict(&prediction)
        }
    };
    if let Some(dir) = &args.out {
        check_out(dir)?;
    }
    let format = if args.json {
        Format::Json
    } else {
        Format::Text
    };
    print!("{}", report::render(&doc, format)?);
    if let Some(dir) = &args.out {
        results::create_dir(dir)?;
        for f in report::save(dir, &doc, &[Format::Json, Format::Svg])? {
            eprintln!("wrote {}", f.display());
        }
    }
    if let (Document::Check(c), Some(max)) = (&doc, args.max_error) {
        over_max_error(c, max)?;
    }
    Ok(())
}

/// `--max-error`: a failure (exit 1) when the check's median error is
/// over `max` %, or not finite: the paced points' net cost, or for a run
/// with only flat-out strategies their hand-overs/s.
fn over_max_error(c: &CheckResults, max: f64) -> Result<(), CliError> {
    let median = if c.points.is_empty() {
        c.flat_out_median_error_pct
    } else {
        c.median_abs_error_pct
    };
    match median {
        Some(e) if e <= max => Ok(()),
        Some(e) => Err(CliError::failure(format!(
            "--max-error {max}%: the model's median error is {e:.1}%"
        ))),
        None => Err(CliError::failure(format!(
            "--max-error {max}%: the model's median error is not finite (most points saturated or measured at or below 0)"
        ))),
    }
}

/// `--check FILE`: the model against a run.json or a sweep.json's points,
/// with `latencies` for the classes (else each repeat's canary) and the
/// line costs of `args`, checked against the run's topology.
fn check(
    args: &PredictArgs,
    file: &Path,
    latencies: Option<&Latencies>,
) -> Result<CheckResults, CliError> {
    let (path, contents) = results::read(file)?;
    let name = path.display().to_string();
    let runs: Vec<(String, &RunResults)> = match &contents {
        ResultFile::Run(r) => vec![(String::new(), r.as_ref())],
        ResultFile::Sweep(s) => s
            .points
            .iter()
            .map(|p| (format!(" {} threads {}", p.threads, p.affinity), &p.results))
            .collect(),
        ResultFile::Matrix(_) => {
            return Err(CliError::usage(format!(
                "--check {name}: a matrix has no paced run; give it to --latencies, and --check a run.json measured under --rate"
            )));
        }
    };
    let topo = match runs.first() {
        Some((_, r)) => &r.topology,
        None => return Err(CliError::usage(format!("--check {name}: no run in it"))),
    };
    let base = latencies.map(|l| l.costs.clone()).unwrap_or_default();
    let costs = line_costs(args, topo, base)?;
    predict::check_with(&name, &runs, latencies, &costs).map_err(CliError::usage)
}

/// `--c2c FILE`: the host its matrix shows, or the `--sysfs-root`
/// capture's with the matrix's classes checked against it.
fn infer(root: &Path, file: &Path, sockets: Option<u32>) -> Result<InferredHost, CliError> {
    let m = results::read_c2c(file)?;
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let host = inferred::infer(&m, &name, sockets.map(|s| s as usize));
    if is_live(root) {
        return Ok(host);
    }
    let capture = load_topology(root)?;
    Ok(host.with_capture(&m, capture, &root.display().to_string()))
}

/// `--contenders`, `--sharers`, `--home`, `--home-node` and
/// `--read-occupancy` over `base` (what a `--latencies` matrix measured:
/// a flag given replaces the matrix's figure, one not given keeps it),
/// checked against `topo`: a K or M beyond its CPUs, or a home node
/// without CPUs, is an error.
fn line_costs(args: &PredictArgs, topo: &Topology, base: LineCosts) -> Result<LineCosts, CliError> {
    let cpus = topo.online_cpus.len();
    let curve =
        |flag: &str, items: &[String], measured: CostCurve| -> Result<CostCurve, CliError> {
            if items.is_empty() {
                return Ok(measured);
            }
            CostCurve::parse(flag, items, cpus).map_err(CliError::usage)
        };
    let home = if args.home.is_empty() {
        base.home
    } else {
        Some(HomeCost::parse(&args.home).map_err(CliError::usage)?)
    };
    let with_cpus: Vec<String> = topo
        .nodes
        .iter()
        .filter(|n| !n.cpus.is_empty())
        .map(|n| n.id.to_string())
        .collect();
    if !with_cpus.contains(&args.home_node.to_string()) {
        return Err(CliError::usage(format!(
            "--home-node {}: no node of that id with CPUs (nodes: {})",
            args.home_node,
            with_cpus.join(", ")
        )));
    }
    Ok(LineCosts {
        contenders: curve("--contenders", &args.contenders, base.contenders)?,
        sharers: curve("--sharers", &args.sharers, base.sharers)?,
        home,
        home_node: args.home_node,
        read_occupancy: args.read_occupancy,
    })
}

/// `--latencies` (or the `--c2c` host's) and then `--latency` over it;
/// `None` when neither.
fn latencies(
    args: &PredictArgs,
    inferred: Option<&InferredHost>,
) -> Result<Option<Latencies>, CliError> {
    let mut lat = match &args.latencies {
        Some(file) => {
            let (path, contents) = results::read(file)?;
            let ResultFile::Matrix(m) = contents else {
                return Err(CliError::usage(format!(
                    "--latencies {}: not a matrix.json (run contend matrix for class latencies)",
                    path.display()
                )));
            };
            Some(Latencies::from_matrix(&m, &path.display().to_string()))
        }
        None => inferred.map(InferredHost::latencies),
    };
    if !args.latency.is_empty() {
        let given = Latencies::from_args(&args.latency);
        lat = Some(match lat {
            Some(mut l) => {
                l.classes.extend(given.classes);
                l.source = format!("{} and --latency", l.source);
                l
            }
            None => given,
        });
    }
    if let Some(r) = args.read_back {
        lat = lat.map(|l| l.with_read_back(r));
    }
    Ok(lat)
}

/// `--read-back` RATIOx (the x optional): a ratio of 0 or more.
fn read_back_ratio(s: &str) -> Result<f64, String> {
    let r = s.trim();
    r.strip_suffix('x')
        .unwrap_or(r)
        .parse::<f64>()
        .ok()
        .filter(|r| *r >= 0.0 && r.is_finite())
        .ok_or_else(|| format!("\"{s}\" is not a ratio of 0 or more (1.07x)"))
}

/// One `--publishes` item, POLICY=F|P%: a policy and the fraction of
/// updates it publishes.
fn given_publishes(s: &str) -> Result<(PublishPolicy, f64), String> {
    let (policy, fraction) = s
        .split_once('=')
        .ok_or_else(|| format!("\"{s}\" is not POLICY=FRACTION (threshold:64=40%)"))?;
    let policy: PublishPolicy = policy.trim().parse().map_err(|e| format!("{e}"))?;
    let fraction = fraction_arg(fraction).map_err(|e| e.to_string())?;
    Ok((policy, fraction))
}
