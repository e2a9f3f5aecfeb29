//! Options of `contend sweep`: `contend run` over thread counts and
//! affinity sets (seed 002's table), into one results folder.

use super::{PlacementArg, PoolSize, StrategyArgs, duration_arg, warmup_arg};
use crate::topology::CpuSpec;
use clap::Args;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// Where a sweep point's writers run, as in seed 002's `affinity` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Affinity {
    /// Writers take CPUs from every allowed CPU, round-robin across nodes
    /// (CPU spec `spread`), as the scheduler spreads unbound tasks: below
    /// 100% the threads still span every node rather than filling node 0.
    Unbound,
    /// Every writer on this node (CPU spec `node:N`).
    Node(u32),
}

impl FromStr for Affinity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if s == "unbound" {
            return Ok(Affinity::Unbound);
        }
        s.strip_prefix("node")
            .map(|n| n.strip_prefix(':').unwrap_or(n))
            .and_then(|n| n.parse::<u32>().ok())
            .map(Affinity::Node)
            .ok_or_else(|| format!("\"{s}\" is not an affinity set (unbound, node0, node1, ...)"))
    }
}

impl Affinity {
    /// The CPU spec writers take their CPUs from: `spread` or `node:N`.
    pub fn cpu_spec(self) -> CpuSpec {
        match self {
            Affinity::Unbound => CpuSpec::Spread,
            Affinity::Node(n) => CpuSpec::Node(n),
        }
    }
}

/// `unbound` or `nodeN`, the names sweep.json and the tables use.
impl fmt::Display for Affinity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Affinity::Unbound => f.write_str("unbound"),
            Affinity::Node(n) => write!(f, "node{n}"),
        }
    }
}

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

    /// Seed of the writers' random load walks (the same at every point).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// A short sweep for CI: --duration 200ms --repeats 3 --warmup 20ms
    /// unless given.
    #[arg(long)]
    pub quick: bool,

    /// strict: a thread or slot that cannot be placed and verified stops
    /// the sweep; best-effort: go on and record it unverified.
    #[arg(long, value_enum, default_value_t = PlacementArg::Strict)]
    pub placement: PlacementArg,

    /// Results root: files go to DIR/<host>/<UTC timestamp>/.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Print sweep.json to stdout instead of the Markdown summary.
    #[arg(long)]
    pub json: bool,

    /// Print nothing but errors (results are still written).
    #[arg(long)]
    pub quiet: bool,
}

impl SweepArgs {
    /// The affinity sets to sweep, duplicates dropped, order kept:
    /// `--affinity`, else `unbound` plus `nodeN` for each of
    /// `nodes_with_cpus` (the nodes with allowed CPUs) when there are two
    /// or more.
    pub fn affinity_sets(&self, nodes_with_cpus: &[u32]) -> Vec<Affinity> {
        let wanted = match &self.affinity {
            Some(list) => list.clone(),
            None if nodes_with_cpus.len() > 1 => std::iter::once(Affinity::Unbound)
                .chain(nodes_with_cpus.iter().map(|&n| Affinity::Node(n)))
                .collect(),
            None => vec![Affinity::Unbound],
        };
        let mut out = Vec::new();
        for a in wanted {
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    /// Measured time per strategy: `--duration`, else the (quick) default.
    pub fn duration(&self) -> Duration {
        self.duration.unwrap_or(if self.quick {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(1)
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
    fn default_affinity_sets_follow_the_nodes_with_cpus() {
        use Affinity::{Node, Unbound};
        assert_eq!(parse(&[]).affinity_sets(&[0]), [Unbound]);
        assert_eq!(
            parse(&[]).affinity_sets(&[0, 1]),
            [Unbound, Node(0), Node(1)]
        );
        let given = parse(&["--affinity", "node1,unbound,node1"]);
        assert_eq!(given.affinity_sets(&[0]), [Node(1), Unbound]);
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
    }

    #[test]
    fn affinity_round_trips() {
        for s in ["unbound", "node0", "node12"] {
            assert_eq!(s.parse::<Affinity>().unwrap().to_string(), s);
        }
        assert_eq!("node:3".parse::<Affinity>(), Ok(Affinity::Node(3)));
        assert!("node".parse::<Affinity>().is_err());
        assert!("socket0".parse::<Affinity>().is_err());
    }
}
