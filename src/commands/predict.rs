//! `contend predict`: parse → the model → print, or with `--check FILE`
//! the model against a run measured under `--rate`.

use super::args::{PoolArgs, percent_arg};
use super::{check_out, host_name, is_live, load_topology};
use crate::CliError;
use crate::counter::{PublishPolicy, ShardLevel};
use crate::predict::inferred::{self, InferredHost};
use crate::predict::{
    self, CheckResults, HostCosts, Latencies, LatencyArg, Layout, LineCosts, PredictRequest, Walks,
};
use crate::report::{self, Document, Format};
use crate::results::{self, ResultFile};
use crate::runner::RunResults;
use crate::runner::pools;
use crate::topology::Topology;
use crate::workload::{Arrivals, parse_rate};
use clap::Args;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Options of `contend predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// Who touches the counter: writer and reader CPUs, as `contend run`
    /// takes them (on a fixture, its CPUs are the allowed ones).
    #[command(flatten)]
    pub pools: PoolArgs,

    /// Shard levels to compare, comma-separated: global, node, llc, cpu.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "global,node"
    )]
    pub level: Vec<ShardLevel>,

    #[doc = "Publish policies to compare, comma-separated."]
    #[arg(long, value_delimiter = ',', value_name = "LIST",
          default_value = "threshold:64,ratelimit:1ms+threshold:64,always",
          long_help = PublishPolicy::HELP)]
    pub publish: Vec<PublishPolicy>,

    /// Updates per second per writer CPU, comma-separated (22000, 22k,
    /// 1.5M). The seed's postgres on the 224-CPU Sapphire Rapids: 22k.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_rate,
          default_value = "1k,22k,100k")]
    pub rates: Vec<f64>,

    /// The host's transfer times and line costs, repeatable; each SOURCE
    /// is class latencies, CLASS=TIME[±U],… with the classes `contend
    /// matrix` prints (smt, same-llc, same-node, cross-node@D; `cross-node`
    /// covers every distance without its own; U in ns or %, ±25% unless
    /// given), or a FILE: a `contend matrix` result (matrix.json or its
    /// folder: each class's median pair, its range the pairs' spread
    /// widened to at least ±25%, and the line costs it measured), a
    /// core-to-core-latency CSV (`.csv`: SMT siblings, LLCs and nodes
    /// inferred from the matrix and printed; with --sysfs-root that
    /// capture's layout wins), or a host-costs JSON (published or measured
    /// line costs and the workload's event mix, each with its source:
    /// docs/predict.md lists the fields, results/published/hosts/ holds
    /// the seeds' hosts). A value that names a file is that file. Given
    /// classes override a file's; a host-costs file's figures override a
    /// matrix's.
    #[arg(long, value_name = "SOURCE")]
    pub host: Vec<HostSource>,

    /// Instead of predicting, set the model against a run.json or
    /// sweep.json: that file's topology, CPUs, regimes (paced or poisson
    /// arrivals, flat out) and strategies, with a --host matrix of the
    /// same host for the classes; only a run whose CPUs make one pair
    /// class may use each repeat's canary instead. Prints, flat out,
    /// hand-overs/s predicted against the run's exact count; per paced
    /// point, transfers per update predicted against the exact counts and
    /// net cost against the measured 95% CI; then how many agree (inside
    /// the CI and within ±25%), the median error, the worst point and the
    /// knee. With `,max-error=PCT`: exit 1 when the median error of the
    /// net cost (of the hand-overs/s, for a run measured only flat out) is
    /// over PCT or not finite.
    #[arg(long, value_name = "FILE[,max-error=PCT]")]
    pub check: Option<CheckArg>,

    /// Print the result as JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Also write predict.json (or check.json) and the charts into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// One `--host` value: class latencies given inline, or a file.
#[derive(Debug, Clone)]
pub enum HostSource {
    /// `CLASS=TIME[±U],…`.
    Classes(Vec<LatencyArg>),
    /// A matrix.json (or its folder), a core-to-core-latency CSV or a
    /// host-costs JSON.
    File(PathBuf),
}

impl FromStr for HostSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if Path::new(s).exists() {
            return Ok(HostSource::File(s.into()));
        }
        match s.split(',').map(str::parse).collect() {
            Ok(items) => Ok(HostSource::Classes(items)),
            Err(e) if s.contains('=') => Err(format!("{e}")),
            Err(_) => Err(format!(
                "cannot read {s}: no such file (nor class latencies: CLASS=TIME,…, e.g. smt=8ns,cross-node=108ns)"
            )),
        }
    }
}

/// `--check FILE[,max-error=PCT]`.
#[derive(Debug, Clone)]
pub struct CheckArg {
    /// The run.json or sweep.json the model is set against.
    pub file: PathBuf,
    /// Exit 1 when the median error is over this, %.
    pub max_error: Option<f64>,
}

impl FromStr for CheckArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (file, max_error) = match s.rsplit_once(",max-error=") {
            Some((file, pct)) => (file, Some(percent_arg(pct)?)),
            None => (s, None),
        };
        let file = file.into();
        Ok(CheckArg { file, max_error })
    }
}

/// The `--host` sources sorted by kind: at most one file of class
/// latencies (a matrix or a CSV) and one host-costs file, and the classes
/// given inline (a later one for the same class wins).
#[derive(Default)]
struct Sources {
    matrix: Option<PathBuf>,
    csv: Option<PathBuf>,
    spec: Option<Spec>,
    classes: Vec<LatencyArg>,
}

impl Sources {
    fn sort(given: &[HostSource]) -> Result<Self, CliError> {
        let mut s = Sources::default();
        let twice = |what: &str, a: &Path, b: &Path| {
            CliError::usage(format!(
                "--host {} and {}: two {what} files; give one",
                a.display(),
                b.display()
            ))
        };
        for g in given {
            let file = match g {
                HostSource::Classes(c) => {
                    s.classes.extend(c);
                    continue;
                }
                HostSource::File(f) => f,
            };
            let costs = is_host_costs(file);
            match (&s.spec, s.matrix.as_ref().or(s.csv.as_ref())) {
                (Some(other), _) if costs => {
                    return Err(twice("host-costs", Path::new(&other.file), file));
                }
                (_, Some(other)) if !costs => return Err(twice("class-latency", other, file)),
                _ => {}
            }
            if is_csv(file) {
                s.csv = Some(file.clone());
            } else if costs {
                s.spec = Some(Spec {
                    file: file.display().to_string(),
                    costs: HostCosts::read(file).map_err(CliError::usage)?,
                });
            } else {
                s.matrix = Some(file.clone());
            }
        }
        Ok(s)
    }
}

/// A host-costs JSON: a file, not a CSV, whose top level has no `schema`
/// (every result file has one).
fn is_host_costs(file: &Path) -> bool {
    file.is_file()
        && !is_csv(file)
        && std::fs::read_to_string(file)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v.get("schema").is_none())
}

pub(super) fn run(root: &Path, args: &PredictArgs) -> Result<(), CliError> {
    let sources = Sources::sort(&args.host)?;
    let spec = sources.spec.as_ref();
    if let (Some(f), Some(_)) = (&sources.csv, &args.check) {
        return Err(CliError::usage(format!(
            "--host {}: --check prices a run with a matrix.json of the same host, not a core-to-core-latency CSV",
            f.display()
        )));
    }
    let sockets = spec.and_then(|s| s.costs.sockets);
    let inferred = sources
        .csv
        .as_ref()
        .map(|f| infer(root, f, sockets))
        .transpose()?;
    let host = inferred
        .as_ref()
        .map_or_else(|| host_name(root), |h| h.source.clone());
    let latencies = latencies(&sources, inferred.as_ref())?;
    let (checked, prediction);
    let doc = match &args.check {
        Some(c) => {
            checked = check(&c.file, latencies.as_ref(), spec)?;
            Document::Check(&checked)
        }
        None => {
            let latencies = latencies.ok_or_else(|| {
                CliError::usage(
                    "no class latencies: give --host matrix.json (from contend matrix), FILE.csv (from core-to-core-latency) or CLASS=TIME,… (e.g. smt=8ns,same-llc=51ns,cross-node=108ns)",
                )
            })?;
            let topo = inferred.as_ref().map(|h| Ok(h.topology.clone()));
            let topo = topo.unwrap_or_else(|| load_topology(root))?;
            let mut p = predict::predict(&topo, &host, &request(args, &topo, latencies, spec)?)
                .map_err(CliError::usage)?;
            p.inferred = inferred;
            prediction = p;
            Document::Predict(&prediction)
        }
    };
    if let Some(dir) = &args.out {
        check_out(dir)?;
    }
    let format = [Format::Text, Format::Json][usize::from(args.json)];
    print!("{}", report::render(&doc, format)?);
    if let Some(dir) = &args.out {
        results::create_dir(dir)?;
        for f in report::save(dir, &doc, &[Format::Json, Format::Svg])? {
            eprintln!("wrote {}", f.display());
        }
    }
    let max_error = args.check.as_ref().and_then(|c| c.max_error);
    if let (Document::Check(c), Some(max)) = (&doc, max_error) {
        over_max_error(c, max)?;
    }
    Ok(())
}

/// A host-costs file as read, and its name.
struct Spec {
    file: String,
    costs: HostCosts,
}

/// A core-to-core-latency CSV (by its extension) rather than a matrix.json.
fn is_csv(file: &Path) -> bool {
    file.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
}

/// What to predict on `topo`: the pools, strategies and rates of `args`,
/// `latencies` with the line costs, walks, arrivals and publish fractions
/// of `spec`.
fn request(
    args: &PredictArgs,
    topo: &Topology,
    mut latencies: Latencies,
    spec: Option<&Spec>,
) -> Result<PredictRequest, CliError> {
    latencies.costs = line_costs(spec, topo, std::mem::take(&mut latencies.costs))?;
    let seed = spec.and_then(|s| s.costs.seed).unwrap_or(1);
    let walks = match spec.and_then(|s| s.costs.threshold_publishes) {
        Some(f) => Walks {
            seed,
            step: crate::workload::step_for_threshold_publishes(f, seed)
                .map_err(CliError::usage)?
                .0,
        },
        None => Walks::of_seed(seed),
    };
    let cpus = pools(topo, &args.pools.pools(false))?;
    for clipped in &cpus.clipped {
        eprintln!("note: {clipped}");
    }
    Ok(PredictRequest {
        layout: Layout {
            writers: cpus.writers,
            readers: cpus.readers,
            read_every: args.pools.read_every(),
        },
        levels: args.level.clone(),
        policies: args.publish.clone(),
        rates: args.rates.clone(),
        latencies,
        arrivals: spec
            .and_then(|s| s.costs.arrivals)
            .unwrap_or(Arrivals::Poisson),
        walks,
        publishes: spec.map(|s| s.costs.publishes.clone()).unwrap_or_default(),
    })
}

/// `--check FILE,max-error=PCT`: a failure (exit 1) when the check's median error is
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
            "--check max-error={max}%: the model's median error is {e:.1}%"
        ))),
        None => Err(CliError::failure(format!(
            "--check max-error={max}%: the model's median error is not finite (most points saturated or measured at or below 0)"
        ))),
    }
}

/// `--check FILE`: the model against a run.json or a sweep.json's points,
/// with `latencies` for the classes (else each repeat's canary) and the
/// line costs of `spec`, checked against the run's topology.
fn check(
    file: &Path,
    latencies: Option<&Latencies>,
    spec: Option<&Spec>,
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
                "--check {name}: a matrix has no paced run; give it to --host, and --check a run.json measured under --rate"
            )));
        }
    };
    let topo = runs.first().map(|(_, r)| &r.topology);
    let topo = topo.ok_or_else(|| CliError::usage(format!("--check {name}: no run in it")))?;
    let base = latencies.map(|l| l.costs.clone()).unwrap_or_default();
    let costs = line_costs(spec, topo, base)?;
    predict::check(&name, &runs, latencies, &costs).map_err(CliError::usage)
}

/// `--host FILE.csv`: the host its matrix shows, or the
/// `--sysfs-root` capture's with the matrix's classes checked against it.
fn infer(root: &Path, file: &Path, sockets: Option<u32>) -> Result<InferredHost, CliError> {
    let m = results::read_c2c(file)?;
    let host = inferred::infer(&m, &super::file_name(file), sockets.map(|s| s as usize));
    if is_live(root) {
        return Ok(host);
    }
    let capture = load_topology(root)?;
    Ok(host.with_capture(&m, capture, &root.display().to_string()))
}

/// The line costs of `spec` over `base` (what a `--host` matrix
/// measured: a figure the file gives replaces the matrix's, one it does
/// not keeps it), checked against `topo`.
fn line_costs(
    spec: Option<&Spec>,
    topo: &Topology,
    base: LineCosts,
) -> Result<LineCosts, CliError> {
    let Some(s) = spec else { return Ok(base) };
    s.costs
        .line_costs(&s.file, topo, base)
        .map_err(CliError::usage)
}

/// The class latencies of the `--host` sources: a matrix's or the CSV
/// host's, then the classes given inline over them, and a read back the
/// host-costs file gives; `None` when none.
fn latencies(
    sources: &Sources,
    inferred: Option<&InferredHost>,
) -> Result<Option<Latencies>, CliError> {
    let mut lat = match (&sources.matrix, inferred) {
        (_, Some(h)) => Some(h.latencies()),
        (Some(file), None) => {
            let (path, contents) = results::read(file)?;
            let ResultFile::Matrix(m) = contents else {
                return Err(CliError::usage(format!(
                    "--host {}: not a matrix.json, a .csv or a host-costs file (run contend matrix for class latencies)",
                    path.display()
                )));
            };
            // Transactions that found no transfer price as the study's do: at the ping-pongs.
            Some(Latencies::from_matrix(&m, &path.display().to_string()).priceable())
        }
        (None, None) => None,
    };
    if !sources.classes.is_empty() {
        let given = Latencies::from_args(&sources.classes);
        lat = Some(match lat {
            Some(mut l) => {
                l.classes.extend(given.classes);
                l.source = format!("{} and --host", l.source);
                l
            }
            None => given,
        });
    }
    if let Some(r) = sources
        .spec
        .as_ref()
        .and_then(|s| s.costs.read_back.as_ref())
    {
        lat = lat.map(|l| l.with_read_back(r.value, &r.source));
    }
    Ok(lat)
}
