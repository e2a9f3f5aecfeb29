//! The prediction's result model: per strategy, how busy its hottest line is at each rate, where it
//! saturates and what an update costs, each as a range over the class latencies' uncertainty,
//! serialised as predict.json (schema in docs/results-schema.md).

use super::inferred::InferredHost;
use super::{ClassLatency, Latencies, Layout};
use crate::counter::{PublishPolicy, ShardLevel};
use crate::workload::Arrivals;
use serde::{Deserialize, Serialize};

/// Version of predict.json's layout.
pub const SCHEMA_VERSION: u32 = 1;

/// A figure at the low, central and high class latencies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Range {
    /// At every class's lowest latency.
    pub lo: f64,
    /// At the central latencies.
    pub mid: f64,
    /// At every class's highest latency.
    pub hi: f64,
}

impl Range {
    /// `f` of each of three evaluations, at the low, central and high latencies.
    pub fn of<T>(x: &[T; 3], f: impl Fn(&T) -> f64) -> Range {
        Range {
            lo: f(&x[0]),
            mid: f(&x[1]),
            hi: f(&x[2]),
        }
    }
}

/// How busy the hottest line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineState {
    /// Offered ρ below [`super::KNEE`] even at the high latencies.
    Below,
    /// Offered ρ at or past [`super::KNEE`] at the high latencies, below 1 at the central ones.
    Near,
    /// Offered ρ ≥ 1 at the central latencies.
    Saturated,
}

/// One strategy at one rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointPrediction {
    /// Updates per second per writer CPU.
    pub rate: f64,
    /// Publishes per update under the policy at this rate.
    pub publish_fraction: f64,
    /// ρ of the hottest line (fraction of time it is being handed over).
    pub rho: Range,
    /// How busy the hottest line is.
    pub state: LineState,
    /// Net ns per update, mean over writers.
    pub cost_ns: Option<Range>,
    /// Net CPU share per writer CPU, %: cost / (1/rate + cost); `None` as `cost_ns`.
    pub cpu_share_pct: Option<Range>,
    /// Updates a second each CPU achieves: 1/(1/rate + cost).
    pub achieved_rate: Option<Range>,
    /// CPUs at the hottest line on the mean (waiting or being served), central latencies.
    pub queue: f64,
    /// Points of CPU share (%) that +1% on every transfer time adds, at the central latencies.
    pub share_per_pct: Option<f64>,
    /// Per node with writers, its writers' cost (local or remote to the counter's memory).
    pub by_node: Vec<NodePrediction>,
    /// Transfers a publish causes, per update (central latencies).
    pub write_transfers: f64,
    /// Lines the read side fetches, per update.
    pub read_transfers: f64,
    /// Writers publishing to the hottest line.
    pub hottest_writers: usize,
    /// Hand-overs between writers a second, over every line.
    pub handovers_per_s: Option<Range>,
    /// Past saturation, the time from one of a writer's ownerships of the hottest line to its next,
    /// ns.
    pub round_ns: Option<Range>,
}

/// One node's writers at one rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodePrediction {
    /// The node.
    pub node: u32,
    /// Its writer CPUs.
    pub writers: usize,
    /// True when the counter's memory is on it.
    pub home: bool,
    /// Net ns per update, mean over its writers.
    pub cost_ns: Range,
    /// Net CPU share of each of its writers, %.
    pub cpu_share_pct: Range,
}

/// Flat out: every writer as fast as it can.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlatOutPrediction {
    /// Hand-overs between writers a second, over every line.
    pub handovers_per_s: Range,
    /// Lines that saturate.
    pub saturated_lines: usize,
    /// The round of the saturated line where it is longest, ns: a writer waits this per ownership.
    pub round_ns: Option<Range>,
}

/// Updates per second per CPU at which the hottest line saturates (ρ = 1) at the high (`lo`),
/// central and low (`hi`) latencies; `None` where it never does.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SaturationRate {
    /// At the high latencies: the lowest rate.
    pub lo: Option<f64>,
    /// At the central latencies.
    pub mid: Option<f64>,
    /// At the low latencies: the highest rate.
    pub hi: Option<f64>,
}

/// One strategy's predictions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StrategyPrediction {
    /// `level/policy`.
    pub name: String,
    /// The shard level.
    pub level: ShardLevel,
    /// The publish policy.
    pub publish: PublishPolicy,
    /// Lines (slots that get written).
    pub lines: usize,
    /// Where the hottest line saturates.
    pub saturation: SaturationRate,
    /// Flat out (`None` in files written before it was predicted).
    pub flat_out: Option<FlatOutPrediction>,
    /// At each asked-for rate.
    pub points: Vec<PointPrediction>,
    /// At [`super::CURVE_PER_DECADE`] rates per decade from [`super::CURVE_FROM`] to
    /// [`super::CURVE_TO`], for the chart.
    pub curve: Vec<PointPrediction>,
}

/// What the prediction was asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictConfig {
    /// Who touches the counter.
    pub layout: Layout,
    /// Updates per second per writer CPU.
    pub rates: Vec<f64>,
    /// How updates fall in time.
    pub arrivals: Arrivals,
    /// Seed of the load walks (publish fractions).
    pub seed: u64,
    /// The walks' largest step, load units at their start load.
    pub load_step: Option<i64>,
    /// Publish fractions given for policies.
    pub publishes: Vec<super::GivenPublish>,
}

/// One class the chosen CPUs exchange the line over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassUse {
    /// The class (`same-llc`, `cross-node@21`).
    pub class: String,
    /// Its figure and range, ns.
    pub latency: ClassLatency,
}

/// A whole `contend predict`: predict.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictResults {
    /// [`SCHEMA_VERSION`].
    pub schema: u32,
    /// The host or fixture the topology came from.
    pub host: String,
    /// Online CPUs of the topology.
    pub cpus: usize,
    /// NUMA nodes with CPUs.
    pub nodes: usize,
    /// Last-level caches.
    pub llcs: usize,
    /// What was asked.
    pub config: PredictConfig,
    /// The latencies and where they came from.
    pub latencies: Latencies,
    /// The classes in use, nearest first, with the figures used.
    pub classes: Vec<ClassUse>,
    /// Per strategy.
    pub strategies: Vec<StrategyPrediction>,
    /// Assumptions worth saying.
    pub notes: Vec<String>,
    /// The host, when it was inferred from a pair matrix (`--host FILE.csv`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inferred: Option<InferredHost>,
}
