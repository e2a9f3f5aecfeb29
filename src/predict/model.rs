//! One hot line per counter slot, each a station of a closed network ([`super::queue`]): who
//! touches which line how often, what each touch costs, and the resulting utilisation, wait and
//! cost per update.

use super::class::Bound;
use super::costs::{LineCosts, ReadOccupancy};
use super::latency::{ClassCounts, Latencies, MissingClass, Prices};
use super::queue;
use crate::counter::ShardLevel;
use crate::matrix::{PairClass, Transaction, classify, cpu_of};
use crate::stats::ratio;
use crate::topology::Topology;
use crate::workload::Arrivals;
use std::collections::{BTreeMap, HashMap};

/// The probability that others (`others` touches/s in all) touched the line between two touches of
/// a CPU touching it `mine` times/s: `a / (a + b)` for poisson arrivals.
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
    /// Writer CPUs (each updates at the rate and runs the read side every `read_every` updates).
    pub writers: Vec<u32>,
    /// Reader CPUs (each runs only the read side, at the rate).
    pub readers: Vec<u32>,
    /// Writers run the read side every this many updates (0 = never).
    pub read_every: u32,
}

/// Per group of CPUs running the read side (an LLC or a node).
type ReaderCounts = [usize; 3];

/// One line: its writers, the classes of its pairs and where its readers sit.
#[derive(Debug, Clone)]
struct SharedLine {
    /// Writers publishing to it.
    writers: usize,
    /// The node its memory is on when it is a split's slot; `None` for `global`, on the counter's
    /// home node.
    home: Option<u32>,
    /// Ordered pairs of two of its writers.
    writer_pairs: ClassCounts,
    /// (CPU off this line running the read side, writer of this line) pairs.
    read_pairs: ClassCounts,
    /// The same pairs split by whether they cross a node:.
    writer_split: (ClassCounts, ClassCounts),
    /// Read pairs (within, across).
    read_split: (ClassCounts, ClassCounts),
    /// Its writers on each node of [`Lines::nodes`].
    by_node: Vec<usize>,
    /// Its readers per node of [`Lines::nodes`]'s order, then any other node.
    node_readers: Vec<ReaderCounts>,
    /// Its readers per LLC (LLCs with any).
    llc_readers: Vec<ReaderCounts>,
}

/// A layout's lines at one shard level: what the model needs of the topology, computed once.
#[derive(Debug, Clone)]
pub struct Lines {
    lines: Vec<SharedLine>,
    writers: usize,
    read_every: u32,
    classes: ClassCounts,
    /// Nodes with writers, then nodes with only reader threads.
    nodes: Vec<u32>,
    /// Writers on each of `nodes` with writers.
    node_writers: Vec<usize>,
    /// Reader threads on each of `nodes`.
    node_threads: Vec<usize>,
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

/// The model's figures for one strategy at one rate and one latency bound.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    /// Offered ρ of the hottest line: its writers' and readers' asked transfers a second × their
    /// transfer time (above 1 it cannot keep up and the CPUs slow to what it serves).
    pub rho: f64,
    /// Writers publishing to the hottest line.
    pub hottest_writers: usize,
    /// Net ns per update, mean over writers: transfers and the waits behind the other CPUs.
    pub cost_ns: f64,
    /// CPUs at the hottest line on the mean, waiting or being served.
    pub queue: f64,
    /// Updates a second each CPU achieves: 1/(1/rate + its net cost).
    pub achieved_rate: f64,
    /// Per node with writers, its writers' cost.
    pub by_node: Vec<NodeCost>,
    /// Transfers a publish causes, per update (mean over writers).
    pub write_transfers: f64,
    /// Of those, publishes that follow another writer's publish to the line.
    pub handovers: f64,
    /// Lines the read side fetches, per update (mean over writers).
    pub read_transfers: f64,
    /// Hand-overs a second, one transfer at a time past saturation.
    pub capacity: Capacity,
}

/// Hand-overs between writers when the lines run at `rate`, past saturation included.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Capacity {
    /// Hand-overs a second, over every line.
    pub handovers_per_s: f64,
    /// Lines at ρ ≥ 1.
    pub saturated_lines: usize,
    /// On the saturated line where it is longest, the time from one of a writer's ownerships to its
    /// next, ns.
    pub round_ns: Option<f64>,
}

impl Capacity {
    /// Adds `line`'s hand-overs, its `flow` at `rate` updates/s per each of `writers` writers.
    fn add(&mut self, line: &SharedLine, flow: &Flow, writers: f64, rate: f64) {
        let asked = flow.handover_t * writers * rate;
        if flow.rho < 1.0 || flow.queued <= 0.0 || asked <= 0.0 {
            self.handovers_per_s += asked;
            return;
        }
        // One transfer at a time: 1e9 / service a second, hand-overs their share of what queues.
        let served = 1e9 / flow.mean_service * (asked / flow.queued);
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
    /// Groups `layout`'s writers into lines at `level` on `topo` and counts the classes of their
    /// pairs; an error names a CPU that is not online.
    pub fn new(
        topo: &Topology,
        layout: &Layout,
        level: ShardLevel,
    ) -> Result<Self, crate::matrix::OfflineCpu> {
        let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let mut nodes: Vec<u32> = Vec::new();
        for &w in &layout.writers {
            let cpu = cpu_of(topo, w)?;
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
            let node = cpu_of(topo, r)?.node;
            if !nodes.contains(&node) {
                nodes.push(node);
            }
        }
        let mut out = Lines {
            lines: Vec::with_capacity(groups.len()),
            writers: layout.writers.len(),
            read_every: layout.read_every,
            classes: ClassCounts::new(),
            node_writers: vec![0; with_writers],
            node_threads: vec![0; nodes.len()],
            nodes,
        };
        for &w in &layout.writers {
            let i = out.index(topo, w)?;
            out.node_writers[i] += 1;
        }
        for &r in &layout.readers {
            let i = out.index(topo, r)?;
            out.node_threads[i] += 1;
        }
        // Every CPU running the read side: the writers (when they read), then the reader threads.
        let readers: Vec<u32> = (layout.writers.iter().filter(|_| layout.read_every > 0))
            .chain(&layout.readers)
            .copied()
            .collect();
        for members in groups.values() {
            let line = out.line(topo, layout, &readers, level, members)?;
            for (c, n) in line.writer_pairs.iter().chain(&line.read_pairs) {
                *out.classes.entry(*c).or_default() += n;
            }
            out.lines.push(line);
        }
        Ok(out)
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

    /// The model at `rate` updates/s per CPU with publish fraction `f`, class latencies at `bound`
    /// of `lat`: the lines as stations of a closed network solved by exact MVA ([`queue::mva2`]).
    pub fn evaluate(
        &self,
        rate: f64,
        f: f64,
        lat: &Latencies,
        bound: Bound,
        arrivals: Arrivals,
    ) -> Evaluation {
        let ctx = Ctx::new(self, rate, f, lat, bound, arrivals);
        let growth = self.fixed_growth(&ctx);
        let flows = self.flows(&ctx, &growth);
        let net = self.network(&ctx, &flows);
        // Two classes only where a home price tells them apart: alike, one class is the same answer
        // in N steps instead of N²/4.
        let differ = |a: f64, b: f64| (a - b).abs() > 1e-9 * a.abs().max(b.abs());
        let two = lat.costs.home.is_some()
            && !self.split()
            && (differ(net.think[0], net.think[1])
                || net
                    .stations
                    .iter()
                    .any(|s| differ(s.demand_ns[0], s.demand_ns[1])));
        let solution = if two {
            queue::mva2(net.population, net.think, &net.stations)
        } else {
            queue::mva2_as_one(net.population, net.think, &net.stations)
        };
        let waits: Vec<[f64; 2]> = flows
            .iter()
            .zip(&net.station_of)
            .map(|(flow, &i)| {
                // Each class waits the queue it finds × its own transfer time; one class, every
                // transfer the line's mean.
                [0, 1].map(|c| {
                    let d = net.stations[i].demand_ns[c];
                    let service = if two {
                        flow.service[c]
                    } else {
                        flow.mean_service
                    };
                    if d > 0.0 {
                        (solution.residence_ns[i][c] / d - 1.0) * service
                    } else {
                        0.0
                    }
                })
            })
            .collect();
        let by_node = self.node_costs(&flows, &ctx, &waits);
        let writers = self.writers.max(1) as f64;
        let weighed = by_node.iter().map(|c| c.cost_ns * c.writers as f64);
        let cost_ns = weighed.sum::<f64>() / writers;
        let mut out = Evaluation {
            cost_ns,
            achieved_rate: 1e9 / (1e9 / rate + cost_ns),
            by_node,
            ..Evaluation::default()
        };
        let h = f64::from(lat.costs.lines_per_event());
        for ((line, flow), &i) in self.lines.iter().zip(&flows).zip(&net.station_of) {
            if flow.rho > out.rho {
                out.rho = flow.rho;
                out.hottest_writers = line.writers;
                out.queue = solution.queue[i];
            }
            let share = line.writers as f64 / writers;
            out.write_transfers += h * share * flow.pub_t;
            out.handovers += h * flow.handover_t;
            out.read_transfers += h * (share * flow.own_t + (1.0 - share) * flow.foreign_t);
            for _ in 0..lat.costs.lines_per_event() {
                out.capacity.add(line, flow, writers, rate);
            }
        }
        out
    }

    /// Each line's contention growth at its own queue.
    fn fixed_growth(&self, ctx: &Ctx) -> Vec<f64> {
        let mut growth = vec![1.0; self.lines.len()];
        if ctx.costs.contenders.points.is_empty() {
            return growth;
        }
        for _ in 0..100 {
            let flows = self.flows(ctx, &growth);
            let net = self.network(ctx, &flows);
            let solution = queue::mva2_as_one(net.population, net.think, &net.stations);
            let mut moved: f64 = 0.0;
            for (g, &i) in growth.iter_mut().zip(&net.station_of) {
                let next = ctx.costs.growth(solution.queue[i]);
                moved = moved.max((next - *g).abs());
                *g = next;
            }
            if moved < 1e-5 {
                break;
            }
        }
        growth
    }

    /// The closed network of `flows`: alike lines as one group of stations.
    fn network(&self, ctx: &Ctx, flows: &[Flow]) -> Network {
        let population = self.classes_of_customers(ctx.costs.home_node);
        let per_event = population.map(|n| 1e9 / (n.max(1) as f64 * ctx.rate.max(1e-300)));
        let mut stations: Vec<queue::Station> = Vec::new();
        let mut station_of = Vec::with_capacity(flows.len());
        let mut index: HashMap<[u64; 2], usize> = HashMap::new();
        let h = ctx.costs.lines_per_event() as usize;
        for flow in flows {
            let demand_ns = [0, 1].map(|c| flow.rho_by_class[c] * per_event[c]);
            let i = *index.entry(demand_ns.map(f64::to_bits)).or_insert_with(|| {
                stations.push(queue::Station {
                    demand_ns,
                    count: 0,
                });
                stations.len() - 1
            });
            stations[i].count += h;
            station_of.push(i);
        }
        // Fetches that do not queue (served alongside) are a delay on each CPU's cycle beside its
        // own work: the writers' mean, at each class's prices.
        let writers = self.writers.max(1) as f64;
        // A split's own line is on its writers' node, the others off it.
        let split = self.split();
        let think = [0, 1].map(|c| {
            let (own_side, foreign_side) = if split { (0, 1) } else { (c, c) };
            let delay: f64 = self
                .lines
                .iter()
                .zip(flows)
                .map(|(line, flow)| {
                    let share = line.writers as f64 / writers;
                    let unqueued = |transfer: f64| ctx.hit.unwrap_or(transfer);
                    (share * flow.own_t * unqueued(flow.times[own_side].own)
                        + (1.0 - share) * flow.foreign_t * unqueued(flow.times[foreign_side].read))
                        * (1.0 - flow.share_queued)
                })
                .sum();
            1e9 / ctx.rate + delay * h as f64
        });
        Network {
            population,
            think,
            stations,
            station_of,
        }
    }

    /// True when each line is a split's slot, on its writers' node.
    fn split(&self) -> bool {
        self.lines.iter().any(|l| l.home.is_some())
    }

    /// Writers and reader threads on the counter's home node, and on the others.
    fn classes_of_customers(&self, home: u32) -> [usize; 2] {
        let mut out = [0usize; 2];
        for (i, &node) in self.nodes.iter().enumerate() {
            let n = self.node_writers.get(i).copied().unwrap_or(0) + self.node_threads[i];
            out[usize::from(node != home)] += n;
        }
        out
    }

    /// Each node's writers' cost with `waits` (ns per queued transfer, per line and class) on top
    /// of the transfers, each transfer at its class's time.
    fn node_costs(&self, flows: &[Flow], ctx: &Ctx, waits: &[[f64; 2]]) -> Vec<NodeCost> {
        let h = f64::from(ctx.costs.lines_per_event());
        self.node_writers
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(j, &nw)| {
                let (mut cost, mut upgrades, mut fetches) = (0.0, 0.0, 0.0);
                let (mut up_ns, mut overlap, mut fetch_ns) = (0.0, 0.0, 0.0);
                for ((line, flow), w) in self.lines.iter().zip(flows).zip(waits) {
                    let home = line.home.unwrap_or(ctx.costs.home_node);
                    let c = usize::from(self.nodes[j] != home);
                    let (t, w) = (&flow.times[c], w[c]);
                    let a = line.by_node[j] as f64 / nw as f64;
                    let b = 1.0 - a;
                    let sq = flow.share_queued;
                    let fetch = |transfer: f64| {
                        sq * (transfer + w) + (1.0 - sq) * ctx.hit.unwrap_or(transfer)
                    };
                    cost += a
                        * (flow.pub_t * (t.write + w)
                            + flow.own_t * fetch(t.own)
                            + flow.back_t * (t.back + w))
                        + b * flow.foreign_t * fetch(t.read);
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
                    cost_ns: cost * h,
                }
            })
            .collect()
    }

    /// Offered ρ of the hottest line alone, its growth at its own queue.
    pub fn rho(&self, rate: f64, f: f64, lat: &Latencies, bound: Bound, arrivals: Arrivals) -> f64 {
        let ctx = Ctx::new(self, rate, f, lat, bound, arrivals);
        let growth = self.fixed_growth(&ctx);
        self.flows(&ctx, &growth)
            .iter()
            .map(|l| l.rho)
            .fold(0.0, f64::max)
    }

    /// Each line's traffic and transfer times, every transfer × its line's `growth`.
    fn flows(&self, ctx: &Ctx, growth: &[f64]) -> Vec<Flow> {
        self.lines
            .iter()
            .zip(growth)
            .map(|(line, &g)| self.flow(line, ctx, g))
            .collect()
    }

    /// One line's traffic: who touches it how often, which touches queue, what each costs on either
    /// side of the home node, and the busy time each class of customer asks of it.
    fn flow(&self, line: &SharedLine, ctx: &Ctx, growth: f64) -> Flow {
        let t = self.traffic(line, ctx);
        let times = [0, 1].map(|c| {
            let curve = if c == 0 { 1.0 } else { ctx.curve_far };
            line_times(line, &ctx.prices[c], &t, ctx.costs, growth * curve, growth)
        });
        // Who asks: the line's writers and its readers off the home node.
        let home = line.home.unwrap_or(ctx.costs.home_node);
        let far_share = |counts: &mut dyn Iterator<Item = usize>| {
            let far = |(n, node): (usize, &u32)| if *node != home { n } else { 0 };
            let (all, far) = counts
                .zip(&self.nodes)
                .fold((0, 0), |(a, f), x| (a + x.0, f + far(x)));
            ratio(far as f64, all as f64)
        };
        let c_w = far_share(&mut line.by_node.iter().copied());
        let c_r = far_share(&mut line.node_readers.iter().map(|n| n.iter().sum()));
        // A read back that costs a transfer moves the line's only copy back from its reader: it
        // occupies the line. One the host serves from the writer's own copy is no transfer.
        let back_time = times[0].back + c_w * (times[1].back - times[0].back);
        let back = if back_time > 0.0 { t.back } else { 0.0 };
        let queued_backs = t.n * ctx.q_w * back;
        let write_transfers = t.publishes * t.h;
        let ask = |c: usize, wc: f64, rc: f64| {
            let tt = &times[c];
            (
                (write_transfers * tt.write * wc
                    + t.queued_reads * tt.first * rc
                    + queued_backs * tt.back * wc)
                    * 1e-9,
                write_transfers * wc + t.queued_reads * rc + queued_backs * wc,
            )
        };
        let (near, far) = (ask(0, 1.0 - c_w, 1.0 - c_r), ask(1, c_w, c_r));
        let per_ns = |(busy, queued): (f64, f64)| ratio(busy, queued) * 1e9;
        let queued = near.1 + far.1;
        let rho = near.0 + far.0;
        Flow {
            rho,
            rho_by_class: [near.0, far.0],
            queued,
            mean_service: ratio(rho, queued) * 1e9,
            service: [per_ns(near), per_ns(far)],
            times,
            share_queued: ratio(t.queued_reads, t.fetches),
            pub_t: ctx.f * t.h,
            back_t: ctx.reads_per_update * back,
            handover_t: t.n / ctx.nw * ctx.f * t.handovers,
            upgrade_t: ratio(ctx.f * t.h * t.first_reads, t.others),
            overlap: ctx.prices[0].overlap(&line.read_pairs),
            own_t: ctx.reads_per_update * t.own,
            foreign_t: ctx.reads_per_update * t.foreign,
        }
    }

    /// Who touches `line` how often a second at `ctx`'s rate.
    fn traffic(&self, line: &SharedLine, ctx: &Ctx) -> Traffic {
        // A reader thread reads at the rate.
        let (arrivals, q_w, q_r, p, f) = (ctx.arrivals, ctx.q_w, ctx.rate, ctx.p, ctx.f);
        let reading = ctx.reads_per_update > 0.0;
        let n = line.writers as f64;
        let publishes = n * p;
        // Reads that fetch this line: its own writers' (after an update that did not publish, when
        // a co-writer published since), other writers', reader threads'.
        let co_wrote = touched(arrivals, (n - 1.0) * p, q_w);
        let own = if reading { (1.0 - f) * co_wrote } else { 0.0 };
        let foreign_writers = if reading { ctx.nw - n } else { 0.0 };
        let foreign = touched(arrivals, publishes, q_w);
        let thread = touched(arrivals, publishes, q_r);
        let threads = self.node_threads.iter().sum::<usize>() as f64;
        // A write is followed by a read when some other CPU reads before the next write: another
        // line's writer, a reader thread, or a co-writer reading after an update that did not
        // publish.
        let foreign_reads = foreign_writers * q_w + threads * q_r;
        let co_rate = ratio(q_w * (1.0 - f) * (n - 1.0), n);
        let co_reads = n * co_rate;
        let other_reads = foreign_reads + co_reads;
        // A writer's read after an update that did not publish, when its last touch was its own
        // publish and since then another CPU only read the line: priced as the host's read back.
        let back = if reading && p > 0.0 {
            let last_pub = p / (p + (1.0 - f) * q_w);
            let touched_at_all = touched(arrivals, (n - 1.0) * p + other_reads, q_w);
            (1.0 - f) * last_pub * (touched_at_all - co_wrote).max(0.0)
        } else {
            0.0
        };
        let fetches = n * q_w * own + foreign_writers * q_w * foreign + threads * q_r * thread;
        let first_reads = publishes * touched(arrivals, other_reads, publishes);
        // Which of the fetches queue for the line.
        let grouped = |groups: &[ReaderCounts]| {
            publishes
                * groups
                    .iter()
                    .map(|g| {
                        let r = g[0] as f64 * co_rate + g[1] as f64 * q_w + g[2] as f64 * q_r;
                        touched(arrivals, r, publishes)
                    })
                    .sum::<f64>()
        };
        let queued_reads = match ctx.costs.read_occupancy {
            ReadOccupancy::First => first_reads,
            ReadOccupancy::PerLlc => grouped(&line.llc_readers),
            ReadOccupancy::PerNode => grouped(&line.node_readers),
            ReadOccupancy::Every => fetches,
        }
        .clamp(first_reads.min(fetches), fetches.max(first_reads));
        let others = (n - 1.0) * p + first_reads;
        Traffic {
            n,
            publishes,
            own,
            foreign,
            foreign_reads,
            co_reads,
            other_reads,
            back,
            fetches,
            first_reads,
            queued_reads,
            others,
            h: touched(arrivals, others, p),
            handovers: touched(arrivals, (n - 1.0) * p, p),
            // A write after reads invalidates m̄ sharers on the mean (every reader that fetched
            // since the write).
            sharers: ratio(fetches, first_reads).max(1.0),
        }
    }

    /// The index in `nodes` of `cpu`'s node.
    fn index(&self, topo: &Topology, cpu: u32) -> Result<usize, crate::matrix::OfflineCpu> {
        let node = cpu_of(topo, cpu)?.node;
        Ok(self.nodes.iter().position(|n| *n == node).unwrap_or(0))
    }

    /// The line `members` write: the classes of its pairs and where its readers sit.
    fn line(
        &self,
        topo: &Topology,
        layout: &Layout,
        readers: &[u32],
        level: ShardLevel,
        members: &[u32],
    ) -> Result<SharedLine, crate::matrix::OfflineCpu> {
        let mut writer_pairs = ClassCounts::new();
        let mut read_pairs = ClassCounts::new();
        let mut by_node = vec![0usize; self.node_writers.len()];
        let mut node_readers = vec![[0usize; 3]; self.nodes.len()];
        let mut llc_readers: BTreeMap<u32, ReaderCounts> = BTreeMap::new();
        for &y in members {
            by_node[self.index(topo, y)?] += 1;
            for &x in members.iter().filter(|x| **x != y) {
                *writer_pairs.entry(classify(topo, x, y)?).or_default() += 1;
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
            let cpu = cpu_of(topo, x)?;
            node_readers[self.index(topo, x)?][kind] += 1;
            llc_readers.entry(cpu.llc).or_default()[kind] += 1;
        }
        let own_slot = level != ShardLevel::Global;
        Ok(SharedLine {
            writers: members.len(),
            home: own_slot
                .then(|| cpu_of(topo, members[0]).map(|c| c.node))
                .transpose()?,
            writer_split: split(&writer_pairs),
            read_split: split(&read_pairs),
            writer_pairs,
            read_pairs,
            by_node,
            node_readers,
            llc_readers: llc_readers.into_values().collect(),
        })
    }
}

/// What one evaluation needs, computed once.
struct Ctx<'a> {
    rate: f64,
    f: f64,
    arrivals: Arrivals,
    costs: &'a LineCosts,
    /// A writer's reads a second.
    q_w: f64,
    /// A writer's publishes a second.
    p: f64,
    /// Writers (at least 1).
    nw: f64,
    /// A writer's reads per update (0: never).
    reads_per_update: f64,
    /// Class prices near the memory's node and off it.
    prices: [Prices; 2],
    /// A sharers curve's factor off the home node.
    curve_far: f64,
    /// A read served from a copy in the reader's LLC, ns.
    hit: Option<f64>,
}

impl<'a> Ctx<'a> {
    fn new(
        lines: &Lines,
        rate: f64,
        f: f64,
        lat: &'a Latencies,
        bound: Bound,
        arrivals: Arrivals,
    ) -> Self {
        let k = lines.read_every;
        let costs = &lat.costs;
        Ctx {
            rate,
            f,
            arrivals,
            costs,
            q_w: if k > 0 { rate / f64::from(k) } else { 0.0 },
            p: rate * f,
            nw: lines.writers.max(1) as f64,
            reads_per_update: if k > 0 { 1.0 / f64::from(k) } else { 0.0 },
            prices: [false, true].map(|remote| lat.prices(lines.classes(), bound, remote)),
            curve_far: costs.home.as_ref().and_then(|h| h.factor).unwrap_or(1.0),
            hit: costs.llc_hit.as_ref().map(|h| h.at(bound)),
        }
    }
}

/// One line's touches a second (and the probabilities behind them).
struct Traffic {
    n: f64,
    publishes: f64,
    own: f64,
    foreign: f64,
    foreign_reads: f64,
    co_reads: f64,
    other_reads: f64,
    back: f64,
    fetches: f64,
    first_reads: f64,
    queued_reads: f64,
    others: f64,
    /// A publish finds the line touched by another CPU.
    h: f64,
    /// A publish follows another writer's publish.
    handovers: f64,
    /// Sharers a write after reads invalidates, on the mean.
    sharers: f64,
}

impl Traffic {
    /// The first reads' `co` and `foreign` figures weighed by who makes them.
    fn by_reader(&self, co: f64, foreign: f64) -> f64 {
        ratio(
            self.foreign_reads * foreign + self.co_reads * co,
            self.other_reads,
        )
    }
}

/// Each transaction's time on `line` at `prices`, × `growth`.
fn line_times(
    line: &SharedLine,
    prices: &Prices,
    t: &Traffic,
    costs: &LineCosts,
    curve_growth: f64,
    growth: f64,
) -> Times {
    // Each transaction's time over the pairs that make it: a co-writer's (writer pairs) or anyone
    // else's (read pairs).
    let mean = |pairs: &ClassCounts, tr| prices.mean_time(pairs, tr);
    let pairs_of = |tr: Transaction| {
        let (ww, rw) = (mean(&line.writer_pairs, tr), mean(&line.read_pairs, tr));
        (
            ww.or(rw).unwrap_or(0.0) * growth,
            rw.or(ww).unwrap_or(0.0) * growth,
        )
    };
    let (moved, _) = pairs_of(Transaction::AddMoved);
    let (own, read) = pairs_of(Transaction::ReadFetched);
    let (back_co, back_foreign) = pairs_of(Transaction::ReadBack);
    // The upgrade: from the sharers curve at m̄, or the one-sharer upgrade within the node unless a
    // sharer sits across a node, when the farthest acknowledgement is the cross-node one.
    let upgrade = match costs.sharers.at(t.sharers) {
        Some(s) => s * curve_growth,
        None => {
            let rule = |(near, far): &(ClassCounts, ClassCounts)| {
                let (a, b) = (near.values().sum::<u64>(), far.values().sum::<u64>());
                if a + b == 0 {
                    return None;
                }
                let x = b as f64 / (a + b) as f64;
                let remote = 1.0 - (1.0 - x).powf(t.sharers);
                let tr = Transaction::AddUpgraded;
                let (u_near, u_far) = (mean(near, tr).unwrap_or(0.0), mean(far, tr).unwrap_or(0.0));
                Some((remote * u_far + (1.0 - remote) * u_near) * growth)
            };
            let (co, rd) = (rule(&line.writer_split), rule(&line.read_split));
            t.by_reader(co.or(rd).unwrap_or(0.0), rd.or(co).unwrap_or(0.0))
        }
    };
    let p_one = ratio(t.publishes, t.n);
    Times {
        write: ratio(
            (t.n - 1.0) * p_one * moved + t.first_reads * upgrade,
            t.others,
        ),
        own,
        back: t.by_reader(back_co, back_foreign),
        read,
        upgrade,
        first: t.by_reader(own, read),
    }
}

/// The closed network of one evaluation.
struct Network {
    /// Customers on the memory's node and off it.
    population: [usize; 2],
    /// Each class's think time per event, ns.
    think: [f64; 2],
    stations: Vec<queue::Station>,
    /// Each line's station group.
    station_of: Vec<usize>,
}

/// One line's transfer times, ns, at one bound and one side of the home node.
#[derive(Debug, Clone, Copy)]
struct Times {
    /// A publish (a hand-over or an upgrade, in their mix).
    write: f64,
    /// A co-writer's fetch.
    own: f64,
    /// A writer's read back of its own publish, after another CPU's read.
    back: f64,
    /// Any other read's fetch.
    read: f64,
    /// An upgrade after reads.
    upgrade: f64,
    /// The first read after a write, by who makes it.
    first: f64,
}

/// One line's traffic at one rate and latency bound.
#[derive(Debug, Clone, Copy)]
struct Flow {
    /// Offered utilisation.
    rho: f64,
    /// Of it, what the CPUs on the memory's node ask, and the others.
    rho_by_class: [f64; 2],
    /// Transfers a second that queue for it (publishes that move it, the fetches that occupy it).
    queued: f64,
    /// Mean transfer time of the queued transfers, ns.
    mean_service: f64,
    /// The same for each class's own transfers, ns.
    service: [f64; 2],
    /// Transfer times to a CPU near the counter's memory, and off it.
    times: [Times; 2],
    /// Fraction of the fetches that queue.
    share_queued: f64,
    /// Publish transfers per update of one of its writers.
    pub_t: f64,
    /// Publishes after another writer's publish, per update, mean over all writers.
    handover_t: f64,
    /// Publishes after a read (an upgrade), per update of one of its writers.
    upgrade_t: f64,
    /// How much of an upgrade and a fetch made in one update is paid.
    overlap: f64,
    /// Fetches of this line per update of one of its own writers.
    own_t: f64,
    /// Reads back of this line (its last publish read by another CPU since) that cost a transfer,
    /// per update of one of its own writers (0 where the host keeps the writer's copy).
    back_t: f64,
    /// Fetches of this line per update of another line's writer.
    foreign_t: f64,
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
