//! Option groups shared by several subcommands, and the parsers of values
//! that fold one idea's knobs (`--writers 4@node:1`, `--rate 22k:poisson`).

use crate::clock::ClockKind;
use crate::counter::{
    NodeIter, Pad, PublishPolicy, ShardLevel, parse_duration, parse_duration_or_zero,
};
use crate::placement::Placement;
use crate::report::Format;
use crate::runner::{DEFAULT_REPEATS, DEFAULT_TARGET_CI_PCT, PoolSize, Pools, StrategyChoice};
use crate::topology::CpuSpec;
use crate::workload::{Arrivals, Regime};
use clap::Args;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// The longest `--inject`: half a window set aside as a stall.
const INJECT_MAX: Duration = Duration::from_micros(10);

/// `--inject`: a duration up to [`INJECT_MAX`], in ns.
pub(super) fn inject_arg(s: &str) -> Result<f64, String> {
    match parse_duration(s) {
        Ok(d) if d <= INJECT_MAX => Ok(d.as_secs_f64() * 1e9),
        Ok(_) => Err(format!(
            "\"{s}\" is longer than 10us: a paced update's window over 20 µs is set aside as a stall"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// A percentage ≥ 0 (`5`, `2.5`, `5%`).
pub(super) fn percent_arg(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p >= 0.0 && p.is_finite() => Ok(p),
        _ => Err(format!(
            "\"{s}\" is not a percentage of 0 or more (5, 2.5, 5%)"
        )),
    }
}

/// A fraction strictly between 0 and 1 (`0.4`, `40%`).
fn fraction_arg(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let value = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => t.parse::<f64>(),
    };
    match value {
        Ok(f) if f > 0.0 && f < 1.0 => Ok(f),
        _ => Err(format!(
            "\"{s}\" is not a fraction above 0 and below 1 (0.4 or 40%)"
        )),
    }
}

/// `X:clip` → (`X`, true): keep only the allowed CPUs of a CPU spec.
pub(super) fn strip_clip(s: &str) -> (&str, bool) {
    let clipped = s.trim().strip_suffix(":clip").map(|rest| (rest, true));
    clipped.unwrap_or((s.trim(), false))
}

/// A CPU spec; `:clip` keeps only the CPUs this process may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpusArg {
    /// The CPUs named.
    pub spec: CpuSpec,
    /// Keep the allowed ones of a spec that names others.
    pub clip: bool,
}

impl FromStr for CpusArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (spec, clip) = strip_clip(s);
        let spec = spec.parse::<CpuSpec>().map_err(|e| e.to_string())?;
        Ok(CpusArg { spec, clip })
    }
}

/// One pool: a thread count, its CPUs, or both (`8`, `0-7`, `4@node:1`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoolArg {
    /// Threads (default: one per CPU of the spec).
    pub size: Option<PoolSize>,
    /// CPUs taken in order (default: all allowed).
    pub cpus: Option<CpuSpec>,
    /// `:clip`: keep only the allowed CPUs of the spec.
    pub clip: bool,
}

impl FromStr for PoolArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (body, clip) = strip_clip(s);
        let spec = |t: &str| {
            t.parse::<CpuSpec>()
                .map_err(|e| format!("\"{s}\": {e} (a pool is N, P%, a CPU spec or N@SPEC)"))
        };
        let (size, cpus) = match body.split_once('@') {
            Some((n, cpus)) => (
                Some(n.parse::<PoolSize>().map_err(|e| e.to_string())?),
                Some(spec(cpus)?),
            ),
            None => match body.parse::<PoolSize>() {
                Ok(n) => (Some(n), None),
                Err(_) => (None, Some(spec(body)?)),
            },
        };
        Ok(PoolArg { size, cpus, clip })
    }
}

/// `--readers`: reader threads and `every:K`, joined by `+`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadersArg {
    /// Reader threads (none by default).
    pub pool: Option<PoolArg>,
    /// Each writer runs the read side once every this many updates.
    pub read_every: u32,
}

impl FromStr for ReadersArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (pool, read_every) = (None, 1);
        let mut out = ReadersArg { pool, read_every };
        for part in s.split('+') {
            match part.trim().strip_prefix("every:") {
                Some(k) => {
                    out.read_every = k.parse().map_err(|_| {
                        format!("\"{part}\": every:K takes a count of updates (0 = never)")
                    })?
                }
                None => {
                    let pool: PoolArg = part.parse()?;
                    if pool.size.is_none() {
                        return Err(format!("\"{part}\": give the readers' count (2@node:1)"));
                    }
                    out.pool = Some(pool);
                }
            }
        }
        Ok(out)
    }
}

/// Who runs: writer and reader threads (`run`, `predict`).
#[derive(Debug, Clone, Args)]
pub struct PoolArgs {
    #[doc = "Writer threads: N, P% of allowed CPUs, a CPU spec, or N@SPEC; SPEC:clip keeps its allowed CPUs [every allowed CPU less readers']."]
    #[arg(long, value_name = "N|SPEC|N@SPEC", long_help = POOL_HELP)]
    pub writers: Option<PoolArg>,

    /// Reader threads (as --writers) and/or every:K, how often each writer runs the read side, joined by + [none; every:1].
    #[arg(long, value_name = "N@SPEC+every:K")]
    pub readers: Option<ReadersArg>,
}

const POOL_HELP: &str = "Writer threads: a count (8), a percentage of the allowed CPUs (50%), \
    a CPU spec to take them all from (0-7, node:1, spread), or both (4@node:1). \
    A spec ending in :clip keeps only the CPUs this process may use (for both pools) \
    instead of being an error. Default: every allowed CPU, less those --readers take.";

impl PoolArgs {
    /// The engine's pools; `oversubscribe`: threads may share CPUs.
    pub fn pools(&self, oversubscribe: bool) -> Pools {
        let w = self.writers.clone().unwrap_or_default();
        let r = self
            .readers
            .clone()
            .and_then(|r| r.pool)
            .unwrap_or_default();
        Pools {
            writers: w.size,
            readers: r.size,
            writer_cpus: w.cpus,
            reader_cpus: r.cpus,
            oversubscribe,
            clip: w.clip || r.clip,
        }
    }

    /// Each writer runs the read side once every this many updates.
    pub fn read_every(&self) -> u32 {
        self.readers.as_ref().map_or(1, |r| r.read_every)
    }
}

/// A `--level` item: a shard level, or a pad every level gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LevelItem {
    /// global, node, llc, cpu.
    Level(ShardLevel),
    /// `pad:N`: bytes between slots.
    Pad(Pad),
}

impl FromStr for LevelItem {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().strip_prefix("pad") {
            Some(n) => n
                .trim_start_matches(':')
                .parse()
                .map(LevelItem::Pad)
                .map_err(|e| format!("\"{s}\": {e}")),
            None => s.parse().map(LevelItem::Level).map_err(|e| format!("{e}")),
        }
    }
}

/// A `--publish` item: a policy, `clock:K` or `walks:F`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PublishItem {
    /// A publish policy.
    Policy(PublishPolicy),
    /// `clock:K`.
    Clock(ClockKind),
    /// `walks:F`.
    Walks(f64),
}

impl FromStr for PublishItem {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        if let Some(k) = t.strip_prefix("clock:") {
            k.parse()
                .map(PublishItem::Clock)
                .map_err(|e| format!("\"{s}\": {e}"))
        } else if let Some(f) = t.strip_prefix("walks:") {
            fraction_arg(f).map(PublishItem::Walks)
        } else {
            t.parse()
                .map(PublishItem::Policy)
                .map_err(|e| format!("{e}"))
        }
    }
}

/// A `--rate` item: a regime, `seed:N` or `sample:K`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RateItem {
    /// Flat out, or paced at a rate with its arrivals.
    Regime(Regime),
    /// `seed:N`.
    Seed(u64),
    /// `sample:K`.
    Sample(u64),
}

impl FromStr for RateItem {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let count = |v: &str, what: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("\"{s}\": {what} takes a whole number"))
        };
        if let Some(n) = t.strip_prefix("seed:") {
            return count(n, "seed:N").map(RateItem::Seed);
        }
        if let Some(k) = t.strip_prefix("sample:") {
            return count(k, "sample:K").map(RateItem::Sample);
        }
        let (rate, arrivals) = match t.split_once(':') {
            Some((r, a)) => (r, Some(a.parse::<Arrivals>().map_err(|e| e.to_string())?)),
            None => (t, None),
        };
        match (rate.parse::<Regime>().map_err(|e| e.to_string())?, arrivals) {
            (Regime::Paced { rate, .. }, Some(arrivals)) => {
                Ok(RateItem::Regime(Regime::Paced { rate, arrivals }))
            }
            (Regime::FlatOut, Some(_)) => Err(format!(
                "\"{s}\": flat out (max) has no arrivals; give a rate (22k:poisson)"
            )),
            (r, None) => Ok(RateItem::Regime(r)),
        }
    }
}

/// `--repeats N` (fixed) or `N:P%` (then rounds until each CI is ±P%).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepeatsArg {
    /// Rounds planned.
    pub count: u32,
    /// The CI target, % (`None`: exactly `count`).
    pub target_ci: Option<f64>,
}

impl FromStr for RepeatsArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (n, ci) = match s.split_once(':') {
            Some((n, p)) => (n, Some(percent_arg(p)?)),
            None => (s, None),
        };
        match n.trim().parse::<u32>() {
            Ok(count @ 1..=1000) => Ok(RepeatsArg {
                count,
                target_ci: ci.filter(|&p| p > 0.0),
            }),
            _ => Err(format!(
                "\"{s}\": a count of 1 to 1000, then optionally :P% (5:2%)"
            )),
        }
    }
}

/// `--placement`: strict or best-effort, and its placement knobs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PlacementArg {
    /// Strict or best-effort.
    pub placement: Placement,
    /// `node:N`: every slot on node N.
    pub counter_node: Option<u32>,
    /// `compact` or `bitmap`.
    pub node_iter: NodeIter,
    /// `oversubscribe`: threads may share CPUs.
    pub oversubscribe: bool,
}

impl PlacementArg {
    /// True when only strict or best-effort was asked for.
    pub(super) fn plain(&self) -> bool {
        PlacementArg {
            placement: self.placement,
            ..Default::default()
        } == *self
    }
}

impl FromStr for PlacementArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let mut p = PlacementArg::default();
        for item in s.split(',').map(str::trim) {
            match item {
                "strict" => p.placement = Placement::Strict,
                "best-effort" => p.placement = Placement::BestEffort,
                "oversubscribe" => p.oversubscribe = true,
                "compact" | "bitmap" => p.node_iter = item.parse().map_err(|e| format!("{e}"))?,
                _ => match item.strip_prefix("node:").map(str::parse::<u32>) {
                    Some(Ok(n)) => p.counter_node = Some(n),
                    _ => {
                        return Err(format!(
                            "\"{item}\" is not strict, best-effort, node:N, compact, bitmap or oversubscribe"
                        ));
                    }
                },
            }
        }
        Ok(p)
    }
}

/// What `run` and `sweep` measure, how long, and where results go.
#[derive(Debug, Clone, Args)]
pub struct MeasureArgs {
    /// Shard levels, comma-separated: global, node, llc, cpu; pad:N items set the bytes between slots for every level (128, 64, 0) [pad:128].
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "LIST",
        default_value = "global,node"
    )]
    pub level: Vec<LevelItem>,

    #[doc = "Publish policies, comma-separated; clock:K items set what every ratelimit reads (tsc, monotonic, coarse), walks:F the fraction threshold:64 publishes."]
    #[arg(long, value_delimiter = ',', value_name = "LIST",
          default_value = DEFAULT_POLICIES, long_help = PUBLISH_HELP)]
    pub publish: Vec<PublishItem>,

    #[doc = "Regimes, comma-separated: max (flat out) or updates/s per thread, R:poisson for irregular arrivals; seed:N, sample:K items [run: max,22k; sweep: max]."]
    #[arg(long, alias = "rates", value_name = "LIST", value_delimiter = ',',
          long_help = RATE_HELP)]
    pub rate: Option<Vec<RateItem>>,

    /// Measured time per strategy and regime, split over the repeats [run: 1s, 500ms with two regimes; sweep: 1s, 200ms with --quick].
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub duration: Option<Duration>,

    /// Warm-up before each repeat's interval, 0 = none [50ms; sweep --quick: 20ms].
    #[arg(long, value_name = "TIME", value_parser = parse_duration_or_zero)]
    pub warmup: Option<Duration>,

    /// Repeats per strategy: N fixed, or N:P% (run: N, then rounds until every 95% CI is within ±P%) [run: 5:5%; sweep: 5, 3 with --quick].
    #[arg(long, value_name = "N[:P%]")]
    pub repeats: Option<RepeatsArg>,

    /// Time budget of the whole run or sweep: no repeat starts that would end past it [run: 18s; sweep: none].
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub max_time: Option<Duration>,

    /// strict or best-effort, comma-separated with: node:N (every slot on node N), compact|bitmap (node slot walk), oversubscribe
    #[arg(long, value_name = "LIST", default_value = "strict")]
    pub placement: PlacementArg,

    /// Where results go and what is printed.
    #[command(flatten)]
    pub output: ResultsArgs,
}

/// The kernel's counter before v6.7, the merged fix, the plain counter.
const DEFAULT_POLICIES: &str = "threshold:64,ratelimit:1ms+threshold:64,always";

const PUBLISH_HELP: &str = "Publish policies to compare, comma-separated: always, never, \
    threshold:N (publish once the unpublished delta reaches N), ratelimit:TIME (at most once \
    per TIME), ratelimit:TIME+threshold:N (the kernel's fix), each run at every level. \
    clock:K items (tsc, monotonic, coarse) name the clocks a ratelimit reads; ratelimited \
    policies run once per clock [clock:tsc]. walks:F (0.4 or 40%) chooses the writers' load \
    walks so that threshold:64 publishes that fraction of updates [walks:40%, the seed's].";

const RATE_HELP: &str = "The regimes, comma-separated and measured interleaved: max hammers \
    (every writer flat out: saturation throughput, updates per ownership of the line); a rate R \
    (22000, 22k, 1M) paces each thread at R operations per second with absolute deadlines (net \
    ns per update and CPU share beyond the same loop with no shared write); R:poisson draws \
    exponential gaps at that mean rate (one arrival process per run). The seed's postgres made \
    about 22k updates/s per CPU. seed:N seeds the load walks and poisson arrivals [seed:1]; \
    sample:K times one operation in K (a power of two) for latency percentiles and staleness \
    probes, 0 = off [1024; paced at R, R/10000, at least 2]. \
    Default: run max,22k; sweep max (22k,max with --quick).";

impl MeasureArgs {
    /// The strategies: levels × policies × pads (× clocks).
    pub fn choice(&self) -> StrategyChoice {
        let mut c = StrategyChoice::default();
        for item in &self.level {
            match *item {
                LevelItem::Level(l) => c.levels.push(l),
                LevelItem::Pad(p) => c.pads.push(p),
            }
        }
        for item in &self.publish {
            match *item {
                PublishItem::Policy(p) => c.policies.push(p),
                PublishItem::Clock(k) => c.clocks.push(k),
                PublishItem::Walks(_) => {}
            }
        }
        if c.levels.is_empty() {
            c.levels = [ShardLevel::Global, ShardLevel::Node].into();
        }
        if c.policies.is_empty() {
            c.policies = DEFAULT_POLICIES
                .split(',')
                .map(|p| p.parse().expect("the default policies parse"))
                .collect();
        }
        if c.pads.is_empty() {
            c.pads.push(Pad::Line128);
        }
        if c.clocks.is_empty() {
            c.clocks.push(ClockKind::Tsc);
        }
        c
    }

    /// `walks:F`: the fraction threshold:64 publishes on the load walks.
    pub fn threshold_publishes(&self) -> Option<f64> {
        self.publish.iter().rev().find_map(|i| match i {
            PublishItem::Walks(f) => Some(*f),
            _ => None,
        })
    }

    /// The regimes given (`None`: the command's default).
    pub fn regimes(&self) -> Option<Vec<Regime>> {
        let regimes: Vec<Regime> = (self.rate.iter().flatten())
            .filter_map(|i| match i {
                RateItem::Regime(r) => Some(*r),
                _ => None,
            })
            .collect();
        (!regimes.is_empty()).then_some(regimes)
    }

    /// `seed:N` [1].
    pub fn seed(&self) -> u64 {
        self.rate_item(|i| match i {
            RateItem::Seed(n) => Some(n),
            _ => None,
        })
        .unwrap_or(1)
    }

    /// `sample:K`.
    pub fn sample_every(&self) -> Option<u64> {
        self.rate_item(|i| match i {
            RateItem::Sample(k) => Some(k),
            _ => None,
        })
    }

    fn rate_item(&self, pick: impl Fn(RateItem) -> Option<u64>) -> Option<u64> {
        self.rate.iter().flatten().rev().find_map(|&i| pick(i))
    }

    /// The repeats: `--repeats`, else N rounds and the default CI target.
    pub fn repeats(&self) -> RepeatsArg {
        self.repeats.unwrap_or(RepeatsArg {
            count: DEFAULT_REPEATS,
            target_ci: Some(DEFAULT_TARGET_CI_PCT),
        })
    }

    /// What `sweep` refuses, as one line: the parts only a run takes.
    pub fn run_only(&self) -> Option<&'static str> {
        if !self.placement.plain() {
            Some("--placement: a sweep takes strict or best-effort only")
        } else if self.repeats.is_some_and(|r| r.target_ci.is_some()) {
            Some("--repeats N:P%: a sweep repeats a fixed count (give N)")
        } else if self.sample_every().is_some() {
            Some("--rate sample:K: a sweep times its default sample")
        } else if self.threshold_publishes().is_some() {
            Some("--publish walks:F: a sweep runs the seed's load walks")
        } else {
            None
        }
    }
}

/// `--print summary|json` of the commands that describe the host (topology, spread, verify).
#[derive(Debug, Clone, Args)]
pub struct HostPrint {
    /// summary (text) or json.
    #[arg(
        long,
        value_name = "WHAT",
        default_value = "summary",
        hide_possible_values = true
    )]
    pub print: Print,
}

/// Where a measuring command saves its results and what it prints.
#[derive(Debug, Clone, Args)]
pub struct ResultsArgs {
    /// Results root: files go to DIR/<host>/<UTC timestamp>/.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    #[doc = "What is printed: summary (the first screen), all (run: every table too), json (the result file's JSON), none (only errors; results still written), plan (the plan, nothing measured)."]
    #[arg(long, value_name = "WHAT", default_value = "summary", hide_possible_values = true, long_help = PRINT_HELP)]
    pub print: Print,
}

const PRINT_HELP: &str = "What is printed on stdout: summary (the first screen), all (run: after the first \
    screen every figure, verdict, table and test), json (the result file's JSON instead of the summary), \
    none (nothing but errors; results are still written), plan (print the plan: threads or pairs, \
    rounds, estimated wall time and memory, and stop; nothing is measured, any --sysfs-root works), \
    plan:json (study: the plan as JSON). A command refuses the values it has no use for.";

/// What a command prints on stdout (`--print`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Print {
    /// The first screen.
    Summary,
    /// The first screen, then every table.
    All,
    /// The result file's JSON instead of the summary.
    Json,
    /// Nothing but errors; results are still written.
    None,
    /// The plan, and stop: nothing measured.
    Plan,
    /// The plan as JSON, and stop.
    #[value(name = "plan:json")]
    PlanJson,
}

impl Print {
    /// The value as written on the command line.
    fn name(self) -> String {
        use clap::ValueEnum;
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string())
    }

    /// Refuses, as one usage line, a value `command` does not take.
    pub fn only(self, command: &str, takes: &[Print]) -> Result<Self, crate::CliError> {
        if takes.contains(&self) {
            return Ok(self);
        }
        let names: Vec<_> = takes.iter().map(|p| p.name()).collect();
        Err(crate::CliError::usage(format!(
            "--print {}: {command} takes {}",
            self.name(),
            names.join(", ")
        )))
    }

    /// True for a plan, printed instead of measuring.
    pub fn plan(self) -> bool {
        matches!(self, Print::Plan | Print::PlanJson)
    }
}

/// `--format` of compare, report and gallery: text, markdown, json, or
/// html[=PAGE] (report's one page; `-` for stdout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatArg {
    /// Text, Markdown, JSON or HTML.
    pub format: Format,
    /// html=PAGE: where the one page goes [beside the first file].
    pub page: Option<PathBuf>,
}

impl FormatArg {
    /// The format, or a usage line naming those `command` writes.
    pub fn only(&self, command: &str, takes: &[&str]) -> Result<Format, crate::CliError> {
        let name = self.format.to_string().to_lowercase();
        if takes.contains(&name.as_str()) {
            return Ok(self.format);
        }
        let takes = takes.join(", ");
        let usage = format!("--format {name}: {command} takes {takes}");
        Err(crate::CliError::usage(usage))
    }
}

impl FromStr for FormatArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, page) = match s.trim().split_once('=') {
            Some(("html", page)) if !page.is_empty() => ("html", Some(PathBuf::from(page))),
            _ => (s.trim(), None),
        };
        // The names `only` prints: each format's Display, lowercase.
        let known = [Format::Text, Format::Markdown, Format::Json, Format::Html];
        let format = known
            .into_iter()
            .find(|f| f.to_string().to_lowercase() == name);
        let format = format.ok_or(format!(
            "\"{s}\" is not text, markdown, json, html or html=PAGE"
        ))?;
        Ok(FormatArg { format, page })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_parts_are_refused() {
        fn bad<T: FromStr>(all: &[&str]) {
            for s in all {
                assert!(s.parse::<T>().is_err(), "{s}");
            }
        }
        bad::<PoolArg>(&["4@nowhere", "x@0-1", "-3"]);
        bad::<ReadersArg>(&["every:x"]);
        bad::<RateItem>(&["max:poisson", "22k:sometimes", "seed:x", "sample:-1"]);
        bad::<RepeatsArg>(&["0", "1001", "5:x", "x:5%"]);
        bad::<PlacementArg>(&["lax", "node:x"]);
        bad::<PublishItem>(&["walks:1.5"]);
        bad::<LevelItem>(&["pad:32"]);
    }
}
