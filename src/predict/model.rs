//! One hot line per counter slot, each a single server (see
//! [`super::queue`]): who touches which line how often, what each touch
//! costs, and the resulting utilisation and cost per update.
//!
//! For a shard level, the writers are grouped into lines (one for
//! `global`, one per node, LLC or CPU among the writers). At `rate`
//! updates a second per writer and a publish fraction f:
//! - a writer publishes to its own line at p = rate × f; a publish needs a
//!   transfer when another CPU touched the line since this writer's last
//!   publish (another writer's publish, or a read that fetched it), with
//!   the probability [`touched`] gives;
//! - every CPU that runs the read side (writers every K updates, reader
//!   threads at the rate) reads every line; a read fetches a line written
//!   by someone else since its last read. A writer's read of its own line
//!   right after its own publish is free; after an update that did not
//!   publish it fetches the line when a co-writer published since, and
//!   when only reads came since its own last publish it reads the line
//!   back at the host's measured `read back` (free where a writer keeps
//!   a copy when another CPU reads its line; a fetch where the reader
//!   takes the line). The
//!   fetches [`ReadOccupancy`] names (today's default: every one) queue
//!   for the line; the others pay a transfer but are served alongside;
//! - a transfer costs the class latency between the two CPUs, averaged
//!   over the pairs that can be involved (× the contenders curve's growth
//!   and, for a CPU off the line's home node, the home factor:
//!   [`super::latency::LineCosts`]), plus the wait for the line. A
//!   publish: the line's other writers, or the CPU whose read was the last
//!   touch (an upgrade that invalidates every sharer). A co-writer's
//!   fetch: the line's writer pairs. Any other read's fetch: pairs of a
//!   CPU off the line and one of its writers (under `always` a co-writer
//!   never pays one, so its pairs, often the nearest, do not lower the
//!   mean);
//! - the lines are the stations of a closed network: every CPU waits for
//!   its own transfers before its next update, so the wait is
//!   [`queue::mva`]'s at any load, saturation included.

use super::latency::{
    Bound, ClassCounts, HomeCost, Latencies, MissingClass, Prices, ReadOccupancy,
};
use super::queue;
use crate::counter::ShardLevel;
use crate::matrix::{PairClass, Transaction, classify};
use crate::topology::Topology;
use crate::workload::Arrivals;
use std::collections::{BTreeMap, HashMap};

/// The probability that others, touching the line `others` times a second
/// in all, touched it between two touches of a CPU that touches it `mine`
/// times a second, given how the touches fall in time: `a / (a + b)` for
/// poisson arrivals (their rate a, mine b); `min(1, a / b)` evenly paced,
/// as `contend run --rate` paces every thread at one rate.
pub fn touched(arrivals: Arrivals, others: f64, mine: f64) -> f64 {
    if others <= 0.0 {
        return 0.0;
    }
    if mine <= 0.0 {
        return 1.0;
    }
    match arrivals {
        Arrivals::Poisson => others / (others + mine),
        Arrivals::Paced => (others / mine).min(1.0),
    }
}

/// Who touches the counter.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Layout {
    /// Writer CPUs (each updates at the rate and runs the read side every
    /// `read_every` updates).
    pub writers: Vec<u32>,
    /// Reader CPUs (each runs only the read side, at the rate).
    pub readers: Vec<u32>,
    /// Writers run the read side every this many updates (0 = never).
    pub read_every: u32,
}

/// Per group of CPUs running the read side (an LLC or a node): the
/// line's own writers, other lines' writers and reader threads in it.
type ReaderCounts = [usize; 3];

/// One line: its writers, the classes of its pairs and where its readers
/// sit.
#[derive(Debug, Clone)]
struct SharedLine {
    /// Writers publishing to it.
    writers: usize,
    /// Ordered pairs of two of its writers (a publish moving the line
    /// between them, or a co-writer's read fetching it).
    writer_pairs: ClassCounts,
    /// (CPU off this line running the read side, writer of this line)
    /// pairs: a foreign read's fetch.
    read_pairs: ClassCounts,
    /// The same pairs split by whether they cross a node: (within,
    /// across), for a write's invalidation of its sharers.
    writer_split: (ClassCounts, ClassCounts),
    /// Read pairs (within, across).
    read_split: (ClassCounts, ClassCounts),
    /// Its writers on each node of [`Lines::nodes`].
    by_node: Vec<usize>,
    /// Its readers per node of [`Lines::nodes`]'s order, then any other
    /// node.
    node_readers: Vec<ReaderCounts>,
    /// Its readers per LLC (LLCs with any).
    llc_readers: Vec<ReaderCounts>,
}

/// A layout's lines at one shard level: what the model needs of the
/// topology, computed once.
#[derive(Debug, Clone)]
pub struct Lines {
    lines: Vec<SharedLine>,
    writers: usize,
    reader_threads: usize,
    read_every: u32,
    classes: ClassCounts,
    /// Nodes with writers, then nodes with only reader threads.
    nodes: Vec<u32>,
    /// Writers on each of `nodes`.
    node_writers: Vec<usize>,
}

/// One node's writers' cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeCost {
    /// The node.
    pub node: u32,
    /// Its writer CPUs.
    pub writers: usize,
    /// Net ns per update, mean over its writers (transfers and waits).
    pub cost_ns: f64,
}

/// The model's figures for one strategy at one rate and one latency
/// bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Offered ρ of the hottest line: its writers' and readers' asked
    /// transfers a second × their transfer time (above 1 it cannot keep
    /// up and the CPUs slow to what it serves).
    pub rho: f64,
    /// Writers publishing to the hottest line.
    pub hottest_writers: usize,
    /// Net ns per update, mean over writers: transfers and the waits
    /// behind the other CPUs (closed population, exact MVA).
    pub cost_ns: f64,
    /// CPUs at the hottest line on the mean, waiting or being served.
    pub queue: f64,
    /// Updates a second each CPU achieves: 1/(1/rate + its net cost).
    pub achieved_rate: f64,
    /// Per node with writers, its writers' cost.
    pub by_node: Vec<NodeCost>,
    /// Transfers a publish causes, per update (mean over writers).
    pub write_transfers: f64,
    /// Of those, publishes that follow another writer's publish to the
    /// line (a hand-over, as `contend run` counts them exactly), per update
    /// (mean over writers); the rest follow a read.
    pub handovers: f64,
    /// Lines the read side fetches, per update (mean over writers).
    pub read_transfers: f64,
    /// Hand-overs a second, one transfer at a time past saturation.
    pub capacity: Capacity,
}

impl Evaluation {
    /// The share of each CPU the net cost takes, %: cost / (gap + cost),
    /// the gap 1/rate of its own work between updates.
    pub fn cpu_share_pct(&self, rate: f64) -> f64 {
        super::share_pct(self.cost_ns, rate)
    }
}

/// Hand-overs between writers when the lines run at `rate`, past
/// saturation included: a line at ρ < 1 hands over as often as its
/// writers' publishes ask; a saturated one moves one transfer at a time,
/// 1/S a second over its transfer mix, of which hand-overs take their
/// share.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capacity {
    /// Hand-overs a second, over every line.
    pub handovers_per_s: f64,
    /// Lines at ρ ≥ 1.
    pub saturated_lines: usize,
    /// On the saturated line where it is longest, the time from one of a
    /// writer's ownerships to its next, ns: every writer of the line takes
    /// its hand-over in turn (with the reads queued between). A writer
    /// waits this long per ownership, so its cost per update is this over
    /// its updates per ownership. `None` with no saturated line.
    pub round_ns: Option<f64>,
}

impl Capacity {
    /// Adds `line`'s hand-overs, its `flow` at `rate` updates/s per each
    /// of `writers` writers.
    fn add(&mut self, line: &SharedLine, flow: &Flow, writers: f64, rate: f64) {
        let asked = flow.handover_t * writers * rate;
        if flow.rho < 1.0 || flow.queued <= 0.0 || asked <= 0.0 {
            self.handovers_per_s += asked;
            return;
        }
        // One transfer at a time: 1e9 / service a second, hand-overs
        // their share of what queues.
        let served = 1e9 / flow.service * (asked / flow.queued);
        self.handovers_per_s += served;
        self.saturated_lines += 1;
        let round = line.writers as f64 * 1e9 / served;
        self.round_ns = Some(self.round_ns.map_or(round, |r: f64| r.max(round)));
    }
}

/// `pairs` split into those within one node and those across nodes.
fn split(pairs: &ClassCounts) -> (ClassCounts, ClassCounts) {
    pairs
        .iter()
        .map(|(c, n)| (*c, *n))
        .partition(|(c, _)| c.within_node())
}

impl Lines {
    /// Groups `layout`'s writers into lines at `level` on `topo` and
    /// counts the classes of their pairs; an error names a CPU that is not
    /// online.
    pub fn new(
        topo: &Topology,
        layout: &Layout,
        level: ShardLevel,
    ) -> Result<Self, crate::matrix::OfflineCpu> {
        let cpu_of = |w: u32| {
            topo.cpu(w).ok_or_else(|| crate::matrix::OfflineCpu {
                cpu: w,
                online: topo.online_cpus.clone(),
            })
        };
        let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut nodes: Vec<u32> = Vec::new();
        for &w in &layout.writers {
            let cpu = cpu_of(w)?;
            let key = match level {
                ShardLevel::Global => 0,
                ShardLevel::Node => cpu.node,
                ShardLevel::Llc => cpu.llc,
                ShardLevel::Cpu => cpu.id,
            };
            groups.entry(key).or_default().push(w);
            if !nodes.contains(&cpu.node) {
                nodes.push(cpu.node);
            }
        }
        nodes.sort_unstable();
        let with_writers = nodes.len();
        for &r in &layout.readers {
            let node = cpu_of(r)?.node;
            if !nodes.contains(&node) {
                nodes.push(node);
            }
        }
        let node_index = |node: u32| nodes.iter().position(|n| *n == node).unwrap_or(0);
        let mut node_writers = vec![0usize; with_writers];
        for &w in &layout.writers {
            node_writers[node_index(cpu_of(w)?.node)] += 1;
        }
        let readers: Vec<u32> = if layout.read_every > 0 {
            layout
                .writers
                .iter()
                .chain(&layout.readers)
                .copied()
                .collect()
        } else {
            layout.readers.clone()
        };
        let mut classes = ClassCounts::new();
        let mut lines = Vec::with_capacity(groups.len());
        for members in groups.values() {
            let mut writer_pairs = ClassCounts::new();
            let mut read_pairs = ClassCounts::new();
            let mut by_node = vec![0usize; with_writers];
            let mut node_readers = vec![[0usize; 3]; nodes.len()];
            let mut llc_readers: BTreeMap<u32, ReaderCounts> = BTreeMap::new();
            for &y in members {
                by_node[node_index(cpu_of(y)?.node)] += 1;
                for &x in members {
                    if x != y {
                        *writer_pairs.entry(classify(topo, x, y)?).or_default() += 1;
                    }
                }
                for &x in readers.iter().filter(|x| !members.contains(x)) {
                    *read_pairs.entry(classify(topo, x, y)?).or_default() += 1;
                }
            }
            for (i, &x) in readers.iter().enumerate() {
                let kind = if members.contains(&x) {
                    0
                } else if layout.read_every > 0 && i < layout.writers.len() {
                    1
                } else {
                    2
                };
                let cpu = cpu_of(x)?;
                node_readers[node_index(cpu.node)][kind] += 1;
                llc_readers.entry(cpu.llc).or_default()[kind] += 1;
            }
            for (c, n) in writer_pairs.iter().chain(&read_pairs) {
                *classes.entry(*c).or_default() += n;
            }
            lines.push(SharedLine {
                writers: members.len(),
                writer_split: split(&writer_pairs),
                read_split: split(&read_pairs),
                writer_pairs,
                read_pairs,
                by_node,
                node_readers,
                llc_readers: llc_readers.into_values().collect(),
            });
        }
        Ok(Lines {
            lines,
            writers: layout.writers.len(),
            reader_threads: layout.readers.len(),
            read_every: layout.read_every,
            classes,
            nodes,
            node_writers,
        })
    }

    /// Every class among the pairs that can exchange the line.
    pub fn classes(&self) -> impl Iterator<Item = PairClass> + '_ {
        self.classes.keys().copied()
    }

    /// Checks that `lat` covers every class of these lines.
    pub fn check(&self, lat: &Latencies) -> Result<(), MissingClass> {
        self.classes().try_for_each(|c| lat.of(c).map(|_| ()))
    }

    /// Lines (counter slots that get written).
    pub fn count(&self) -> usize {
        self.lines.len()
    }

    /// The model at `rate` updates/s per CPU (each CPU's own work between
    /// updates takes 1/rate) with publish fraction `f`, every class
    /// latency at `bound` of `lat` (checked by [`Lines::check`]; a class
    /// without a figure counts 0 ns): the lines are the stations of a
    /// closed network of every writer and reader thread, solved by
    /// [`queue::mva`].
    pub fn evaluate(
        &self,
        rate: f64,
        f: f64,
        lat: &Latencies,
        bound: Bound,
        arrivals: Arrivals,
    ) -> Evaluation {
        let flows = self.flows(rate, f, lat, bound, arrivals);
        let writers = self.writers.max(1) as f64;
        let population = self.writers + self.reader_threads;
        let per_event = 1e9 / (population.max(1) as f64 * rate.max(1e-300));
        // One class of customer: a line's demand per event is its offered
        // busy time over every CPU's events (writers' and reader
        // threads', the mean of the two). Lines alike (every CPU's own
        // line under `cpu`) are one group of stations.
        let mut stations: Vec<queue::Station> = Vec::new();
        let mut station_of = Vec::with_capacity(flows.len());
        let mut index: HashMap<u64, usize> = HashMap::new();
        for flow in &flows {
            let demand_ns = flow.rho * per_event;
            let i = *index.entry(demand_ns.to_bits()).or_insert_with(|| {
                stations.push(queue::Station {
                    demand_ns,
                    count: 0,
                });
                stations.len() - 1
            });
            stations[i].count += 1;
            station_of.push(i);
        }
        // Fetches that do not queue (served alongside) are a delay on
        // each CPU's cycle beside its own work: the writers' mean.
        let far = self.far_writers(lat) / writers;
        let delay: f64 = self
            .lines
            .iter()
            .zip(&flows)
            .map(|(line, flow)| {
                let share = line.writers as f64 / writers;
                let [near_t, far_t] = &flow.times;
                let (own, read) = (
                    mix(far, near_t.own, far_t.own),
                    mix(far, near_t.read, far_t.read),
                );
                (share * flow.own_t * own + (1.0 - share) * flow.foreign_t * read)
                    * (1.0 - flow.share_queued)
            })
            .sum();
        let think = 1e9 / rate + delay;
        let solution = queue::mva(population, think, &stations);
        let waits: Vec<f64> = flows
            .iter()
            .zip(&station_of)
            .map(|(flow, &i)| {
                let visits = flow.queued * per_event * 1e-9;
                if visits > 0.0 {
                    (solution.residence_ns[i] - stations[i].demand_ns) / visits
                } else {
                    0.0
                }
            })
            .collect();
        let by_node = self.node_costs(&flows, lat, &waits);
        let cost_ns = mean_cost(&by_node, writers);
        let mut out = Evaluation {
            rho: 0.0,
            hottest_writers: 0,
            cost_ns,
            queue: 0.0,
            achieved_rate: 1e9 / (1e9 / rate + cost_ns),
            by_node,
            write_transfers: 0.0,
            handovers: 0.0,
            read_transfers: 0.0,
            capacity: Capacity {
                handovers_per_s: 0.0,
                saturated_lines: 0,
                round_ns: None,
            },
        };
        for ((line, flow), &i) in self.lines.iter().zip(&flows).zip(&station_of) {
            if flow.rho > out.rho {
                out.rho = flow.rho;
                out.hottest_writers = line.writers;
                out.queue = solution.queue[i];
            }
            let share = line.writers as f64 / writers;
            out.write_transfers += share * flow.pub_t;
            out.handovers += flow.handover_t;
            out.read_transfers += share * flow.own_t + (1.0 - share) * flow.foreign_t;
            out.capacity.add(line, flow, writers, rate);
        }
        out
    }

    /// Each node's writers' cost with `waits` (ns per queued transfer, per
    /// line) on top of the transfers: its writers' publishes and reads of
    /// their own lines, and its writers' reads of the others, each
    /// transfer at its time × the node's home factor. An update that
    /// upgrades its own line and fetches another pays the two together
    /// at the measured overlap, not added: as many such pairs as the
    /// rarer of the two.
    fn node_costs(&self, flows: &[Flow], lat: &Latencies, waits: &[f64]) -> Vec<NodeCost> {
        self.node_writers
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(j, &nw)| {
                let t = &flows_times(flows, usize::from(lat.costs.remote(self.nodes[j])));
                let (mut cost, mut upgrades, mut fetches) = (0.0, 0.0, 0.0);
                let (mut up_ns, mut overlap, mut fetch_ns) = (0.0, 0.0, 0.0);
                for (((line, flow), w), t) in self.lines.iter().zip(flows).zip(waits).zip(t) {
                    let a = line.by_node[j] as f64 / nw as f64;
                    let b = 1.0 - a;
                    let queued_part = flow.share_queued * w;
                    cost += a
                        * (flow.pub_t * (t.write + w)
                            + flow.own_t * (t.own + queued_part)
                            + flow.back_t * (t.back + w))
                        + b * flow.foreign_t * (t.read + queued_part);
                    upgrades += a * flow.upgrade_t;
                    up_ns += a * flow.upgrade_t * t.upgrade;
                    overlap += a * flow.upgrade_t * flow.overlap;
                    fetches += a * flow.own_t + b * flow.foreign_t;
                    fetch_ns += a * flow.own_t * t.own + b * flow.foreign_t * t.read;
                }
                if upgrades > 0.0 && fetches > 0.0 {
                    let (up, fetch) = (up_ns / upgrades, fetch_ns / fetches);
                    cost -= upgrades.min(fetches) * (up + fetch) * (1.0 - overlap / upgrades);
                }
                NodeCost {
                    node: self.nodes[j],
                    writers: nw,
                    cost_ns: cost,
                }
            })
            .collect()
    }

    /// Writers on nodes remote to the counter's memory (priced as such).
    fn far_writers(&self, lat: &Latencies) -> f64 {
        self.nodes
            .iter()
            .zip(&self.node_writers)
            .filter(|(n, _)| lat.costs.remote(**n))
            .map(|(_, c)| *c as f64)
            .sum()
    }

    /// Offered ρ of the hottest line alone (no queue solved): what a
    /// search for the saturation rate needs.
    pub fn rho(&self, rate: f64, f: f64, lat: &Latencies, bound: Bound, arrivals: Arrivals) -> f64 {
        self.flows(rate, f, lat, bound, arrivals)
            .iter()
            .map(|l| l.rho)
            .fold(0.0, f64::max)
    }

    /// Each line's traffic and transfer times.
    fn flows(
        &self,
        rate: f64,
        f: f64,
        lat: &Latencies,
        bound: Bound,
        arrivals: Arrivals,
    ) -> Vec<Flow> {
        let costs = &lat.costs;
        let nw = self.writers.max(1) as f64;
        let k = self.read_every;
        let q_w = if k > 0 { rate / f64::from(k) } else { 0.0 };
        let q_r = rate;
        let p = rate * f;
        let reads_per_update = if k > 0 { 1.0 / f64::from(k) } else { 0.0 };
        // Each node's remoteness to the counter's memory, and the prices
        // near it and off it.
        let far: Vec<bool> = self.nodes.iter().map(|n| costs.remote(*n)).collect();
        let prices = [false, true].map(|remote| lat.prices(self.classes(), bound, remote));
        // A sharers curve is a time of its own: off the home node, × the
        // one remote factor when there is one.
        let curve_far = costs
            .home
            .as_ref()
            .and_then(HomeCost::one_factor)
            .unwrap_or(1.0);
        self.lines
            .iter()
            .map(|line| {
                let n = line.writers as f64;
                let growth = costs.growth(line.writers);
                let publishes = n * p;
                // Reads that fetch this line: its own writers' (after an
                // update that did not publish, when another writer wrote
                // since), other writers', reader threads'.
                // A co-writer published since this writer's last read.
                let co_wrote = touched(arrivals, (n - 1.0) * p, q_w);
                let own = if k > 0 { (1.0 - f) * co_wrote } else { 0.0 };
                let foreign_writers = if k > 0 { nw - n } else { 0.0 };
                let foreign = touched(arrivals, publishes, q_w);
                let thread = touched(arrivals, publishes, q_r);
                // A write is followed by a read when some other CPU reads
                // before the next write: another line's writer, a reader
                // thread, or a co-writer reading after an update that did
                // not publish.
                let foreign_reads = foreign_writers * q_w + self.reader_threads as f64 * q_r;
                let co_rate = if n > 0.0 {
                    q_w * (1.0 - f) * (n - 1.0) / n
                } else {
                    0.0
                };
                let co_reads = n * co_rate;
                let other_reads = foreign_reads + co_reads;
                // A writer's read after an update that did not publish,
                // when its last touch was its own publish and since then
                // another CPU only read the line: priced as the host's
                // read back (free where the writer keeps a copy). Not a
                // fetch the run can count (no value changed); where it
                // costs a transfer it queues for the line as one.
                let back = if k > 0 && p > 0.0 {
                    let last_pub = p / (p + (1.0 - f) * q_w);
                    let touched_at_all = touched(arrivals, (n - 1.0) * p + other_reads, q_w);
                    (1.0 - f) * last_pub * (touched_at_all - co_wrote).max(0.0)
                } else {
                    0.0
                };
                let own_fetches = n * q_w * own;
                let foreign_fetches =
                    foreign_writers * q_w * foreign + self.reader_threads as f64 * q_r * thread;
                let fetches = own_fetches + foreign_fetches;
                let first_reads = publishes * touched(arrivals, other_reads, publishes);
                // Which of the fetches queue for the line.
                let grouped = |groups: &[ReaderCounts]| {
                    publishes
                        * groups
                            .iter()
                            .map(|g| {
                                let r =
                                    g[0] as f64 * co_rate + g[1] as f64 * q_w + g[2] as f64 * q_r;
                                touched(arrivals, r, publishes)
                            })
                            .sum::<f64>()
                };
                let queued_reads = match costs.read_occupancy {
                    ReadOccupancy::First => first_reads,
                    ReadOccupancy::PerLlc => grouped(&line.llc_readers),
                    ReadOccupancy::PerNode => grouped(&line.node_readers),
                    ReadOccupancy::Every => fetches,
                }
                .clamp(first_reads.min(fetches), fetches.max(first_reads));
                let others = (n - 1.0) * p + first_reads;
                let h = touched(arrivals, others, p);
                let write_transfers = publishes * h;
                let handovers = touched(arrivals, (n - 1.0) * p, p);
                // The first reads, by who makes them.
                let by_reader = |co: f64, foreign: f64| {
                    if other_reads > 0.0 {
                        (foreign_reads * foreign + co_reads * co) / other_reads
                    } else {
                        0.0
                    }
                };
                // A write after reads invalidates m̄ sharers on the mean
                // (every reader that fetched since the write).
                let sharers = if first_reads > 0.0 {
                    (fetches / first_reads).max(1.0)
                } else {
                    1.0
                };
                let times = |prices: &Prices, curve: f64| {
                    // Each transaction's time over the pairs that make it:
                    // a co-writer's (writer pairs) or anyone else's (read
                    // pairs).
                    let mean = |pairs: &ClassCounts, t| prices.mean_time(pairs, t);
                    let pairs_of = |t: Transaction| {
                        let (ww, rw) = (mean(&line.writer_pairs, t), mean(&line.read_pairs, t));
                        (
                            ww.or(rw).unwrap_or(0.0) * growth,
                            rw.or(ww).unwrap_or(0.0) * growth,
                        )
                    };
                    let (moved, _) = pairs_of(Transaction::AddMoved);
                    let (own, read) = pairs_of(Transaction::ReadFetched);
                    let (back_co, back_foreign) = pairs_of(Transaction::ReadBack);
                    // The upgrade: from the sharers curve at m̄, or the
                    // one-sharer upgrade within the node unless a sharer
                    // sits across a node, when the farthest
                    // acknowledgement is the cross-node one.
                    let upgrade = match costs.sharers.at(sharers) {
                        Some(t) => t * growth * curve,
                        None => {
                            let rule = |(near, far): &(ClassCounts, ClassCounts)| {
                                let (a, b) =
                                    (near.values().sum::<u64>(), far.values().sum::<u64>());
                                if a + b == 0 {
                                    return None;
                                }
                                let x = b as f64 / (a + b) as f64;
                                let remote = 1.0 - (1.0 - x).powf(sharers);
                                let t = Transaction::AddUpgraded;
                                let (u_near, u_far) =
                                    (mean(near, t).unwrap_or(0.0), mean(far, t).unwrap_or(0.0));
                                Some((remote * u_far + (1.0 - remote) * u_near) * growth)
                            };
                            let (co, rd) = (rule(&line.writer_split), rule(&line.read_split));
                            by_reader(co.or(rd).unwrap_or(0.0), rd.or(co).unwrap_or(0.0))
                        }
                    };
                    Times {
                        write: if others > 0.0 {
                            ((n - 1.0) * p * moved + first_reads * upgrade) / others
                        } else {
                            0.0
                        },
                        own,
                        back: by_reader(back_co, back_foreign),
                        read,
                        upgrade,
                        first: by_reader(own, read),
                    }
                };
                let times = [times(&prices[0], 1.0), times(&prices[1], curve_far)];
                // The line's time: each transfer to a CPU off the home
                // node at its remote price, weighed by who makes them.
                let share_far = |counts: &mut dyn Iterator<Item = (usize, bool)>| {
                    let (mut all, mut far) = (0usize, 0usize);
                    for (c, f) in counts {
                        all += c;
                        far += if f { c } else { 0 };
                    }
                    if all > 0 {
                        far as f64 / all as f64
                    } else {
                        0.0
                    }
                };
                let w_w = share_far(&mut line.by_node.iter().zip(&far).map(|(c, f)| (*c, *f)));
                let w_r = share_far(
                    &mut line
                        .node_readers
                        .iter()
                        .zip(&far)
                        .map(|(c, f)| (c.iter().sum::<usize>(), *f)),
                );
                // A read back that costs a transfer moves the line's only
                // copy back from its reader: it occupies the line. One the
                // host serves from the writer's own copy is no transfer.
                let back_time = mix(w_w, times[0].back, times[1].back);
                let back = if back_time > 0.0 { back } else { 0.0 };
                let queued_backs = n * q_w * back;
                let queued = write_transfers + queued_reads + queued_backs;
                let rho = (write_transfers * mix(w_w, times[0].write, times[1].write)
                    + queued_reads * mix(w_r, times[0].first, times[1].first)
                    + queued_backs * back_time)
                    * 1e-9;
                let upgrade_t = if others > 0.0 {
                    f * h * first_reads / others
                } else {
                    0.0
                };
                Flow {
                    rho,
                    queued,
                    service: if queued > 0.0 {
                        rho / queued * 1e9
                    } else {
                        0.0
                    },
                    times,
                    share_queued: if fetches > 0.0 {
                        queued_reads / fetches
                    } else {
                        0.0
                    },
                    pub_t: f * h,
                    back_t: reads_per_update * back,
                    handover_t: n / nw * f * handovers,
                    upgrade_t,
                    overlap: prices[0].overlap(&line.read_pairs),
                    own_t: reads_per_update * own,
                    foreign_t: reads_per_update * foreign,
                }
            })
            .collect()
    }
}

/// One line's transfer times, ns, at one bound and one side of the home
/// node.
#[derive(Debug, Clone, Copy)]
struct Times {
    /// A publish (a hand-over or an upgrade, in their mix).
    write: f64,
    /// A co-writer's fetch.
    own: f64,
    /// A writer's read back of its own publish, after another CPU's read
    /// (a co-writer's or anyone else's, in their mix).
    back: f64,
    /// Any other read's fetch.
    read: f64,
    /// An upgrade after reads.
    upgrade: f64,
    /// The first read after a write, by who makes it.
    first: f64,
}

/// `far` of the way from `near` to `remote`.
fn mix(far: f64, near: f64, remote: f64) -> f64 {
    near + far * (remote - near)
}

/// Each flow's times on one side of the home node (0 near, 1 off it).
fn flows_times(flows: &[Flow], side: usize) -> Vec<Times> {
    flows.iter().map(|f| f.times[side]).collect()
}

/// The writers' mean over nodes of `costs`, ns.
fn mean_cost(costs: &[NodeCost], writers: f64) -> f64 {
    costs
        .iter()
        .map(|c| c.cost_ns * c.writers as f64)
        .sum::<f64>()
        / writers
}

/// One line's traffic at one rate and latency bound.
#[derive(Debug, Clone, Copy)]
struct Flow {
    /// Offered utilisation.
    rho: f64,
    /// Transfers a second that queue for it (publishes that move it, the
    /// fetches that occupy it).
    queued: f64,
    /// Mean transfer time of the queued transfers, ns.
    service: f64,
    /// Transfer times to a CPU near the counter's memory, and off it.
    times: [Times; 2],
    /// Fraction of the fetches that queue.
    share_queued: f64,
    /// Publish transfers per update of one of its writers.
    pub_t: f64,
    /// Publishes after another writer's publish, per update, mean over
    /// all writers.
    handover_t: f64,
    /// Publishes after a read (an upgrade), per update of one of its
    /// writers.
    upgrade_t: f64,
    /// How much of an upgrade and a fetch made in one update is paid
    /// (the read pairs' [`super::latency::TransactionRatios::overlap`], 1 = none).
    overlap: f64,
    /// Fetches of this line per update of one of its own writers.
    own_t: f64,
    /// Reads back of this line (its last publish read by another CPU
    /// since) that cost a transfer, per update of one of its own writers
    /// (0 where the host keeps the writer's copy).
    back_t: f64,
    /// Fetches of this line per update of another line's writer.
    foreign_t: f64,
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
