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
//!   publish it fetches the line when a co-writer published since. The
//!   first read after a write queues for the line, whoever makes it (a
//!   co-writer's included); later reads share it in parallel but still
//!   pay a transfer;
//! - a transfer costs the class latency between the two CPUs, averaged
//!   over the pairs that can be involved, plus the wait for the line (the
//!   finite-source queue at the line's utilisation ρ). A publish: the
//!   line's other writers, or the CPU whose read was the last touch. A
//!   co-writer's fetch: the line's writer pairs. Any other read's fetch:
//!   pairs of a CPU off the line and one of its writers (under `always`
//!   a co-writer never pays one, so its pairs, often the nearest, do not
//!   lower the mean).

use super::latency::{Bound, ClassCounts, Latencies, MissingClass};
use super::queue;
use crate::counter::ShardLevel;
use crate::matrix::{PairClass, Transaction, classify};
use crate::topology::Topology;
use crate::workload::Arrivals;
use std::collections::BTreeMap;

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

/// One line: how many writers it has and the classes of its pairs.
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
}

/// The model's figures for one strategy at one rate and one latency
/// bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// ρ of the hottest line: the fraction of time it is being handed
    /// over.
    pub rho: f64,
    /// Writers publishing to the hottest line.
    pub hottest_writers: usize,
    /// Net ns per update, mean over writers (transfers and waits);
    /// `None` when a line is saturated.
    pub cost_ns: Option<f64>,
    /// The most one transfer can wait on a saturated line, ns: every
    /// other source ahead of it (`None` below saturation).
    pub bound_ns: Option<f64>,
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

impl Lines {
    /// Groups `layout`'s writers into lines at `level` on `topo` and
    /// counts the classes of their pairs; an error names a CPU that is not
    /// online.
    pub fn new(
        topo: &Topology,
        layout: &Layout,
        level: ShardLevel,
    ) -> Result<Self, crate::matrix::OfflineCpu> {
        let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for &w in &layout.writers {
            let cpu = topo.cpu(w).ok_or_else(|| crate::matrix::OfflineCpu {
                cpu: w,
                online: topo.online_cpus.clone(),
            })?;
            let key = match level {
                ShardLevel::Global => 0,
                ShardLevel::Node => cpu.node,
                ShardLevel::Llc => cpu.llc,
                ShardLevel::Cpu => cpu.id,
            };
            groups.entry(key).or_default().push(w);
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
            for &y in members {
                for &x in members {
                    if x != y {
                        *writer_pairs.entry(classify(topo, x, y)?).or_default() += 1;
                    }
                }
                for &x in readers.iter().filter(|x| !members.contains(x)) {
                    *read_pairs.entry(classify(topo, x, y)?).or_default() += 1;
                }
            }
            for (c, n) in writer_pairs.iter().chain(&read_pairs) {
                *classes.entry(*c).or_default() += n;
            }
            lines.push(SharedLine {
                writers: members.len(),
                writer_pairs,
                read_pairs,
            });
        }
        Ok(Lines {
            lines,
            writers: layout.writers.len(),
            reader_threads: layout.readers.len(),
            read_every: layout.read_every,
            classes,
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

    /// The model at `rate` updates/s per writer with publish fraction `f`,
    /// every class latency at `bound` of `lat` (checked by
    /// [`Lines::check`]; a class without a figure counts 0 ns).
    pub fn evaluate(
        &self,
        rate: f64,
        f: f64,
        lat: &Latencies,
        bound: Bound,
        arrivals: Arrivals,
    ) -> Evaluation {
        let flows = self.flows(rate, f, lat, bound, arrivals);
        let mut out = Evaluation {
            rho: 0.0,
            hottest_writers: 0,
            cost_ns: Some(0.0),
            bound_ns: None,
            write_transfers: 0.0,
            handovers: 0.0,
            read_transfers: 0.0,
            capacity: Capacity {
                handovers_per_s: 0.0,
                saturated_lines: 0,
                round_ns: None,
            },
        };
        let writers = self.writers.max(1) as f64;
        // Lines alike (every CPU's own line under `cpu`) queue alike.
        let mut waits: BTreeMap<(usize, u64, u64), Option<f64>> = BTreeMap::new();
        let mut cost = 0.0;
        for (line, flow) in self.lines.iter().zip(&flows) {
            if flow.rho > out.rho {
                out.rho = flow.rho;
                out.hottest_writers = line.writers;
            }
            out.write_transfers += flow.write_t;
            out.handovers += flow.handover_t;
            out.read_transfers += flow.read_t();
            out.capacity.add(line, flow, writers, rate);
            let per_source = flow.queued / flow.sources.max(1) as f64;
            let wait = *waits
                .entry((flow.sources, per_source.to_bits(), flow.service.to_bits()))
                .or_insert_with(|| queue::wait_ns(flow.sources, per_source, flow.service));
            match wait {
                Some(w) => {
                    let queued_part = flow.share_queued * w;
                    cost += flow.write_t * (flow.s_write + w)
                        + flow.own_read_t * (flow.s_own + queued_part)
                        + flow.foreign_read_t * (flow.s_read + queued_part);
                }
                None => {
                    out.cost_ns = None;
                    let b = flow.sources as f64 * flow.service;
                    out.bound_ns = Some(out.bound_ns.map_or(b, |x: f64| x.max(b)));
                }
            }
        }
        // An update that upgrades its own line and fetches another pays
        // the two together at the measured overlap, not added: as many
        // such pairs as the rarer of the two.
        let upgrades: f64 = flows.iter().map(|f| f.upgrade_t).sum();
        let fetches: f64 = flows.iter().map(Flow::read_t).sum();
        if upgrades > 0.0 && fetches > 0.0 {
            let per_upgrade = |x: fn(&Flow) -> f64| {
                flows.iter().map(|f| f.upgrade_t * x(f)).sum::<f64>() / upgrades
            };
            let (up, overlap) = (per_upgrade(|f| f.s_upgrade), per_upgrade(|f| f.overlap));
            let fetch = flows.iter().map(Flow::read_ns).sum::<f64>() / fetches;
            cost -= upgrades.min(fetches) * (up + fetch) * (1.0 - overlap);
        }
        if let Some(c) = &mut out.cost_ns {
            *c = cost;
        }
        out
    }

    /// ρ of the hottest line alone (no queue solved): what a search for
    /// the saturation rate needs.
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
        let nw = self.writers.max(1) as f64;
        let k = self.read_every;
        let q_w = if k > 0 { rate / f64::from(k) } else { 0.0 };
        let q_r = rate;
        let p = rate * f;
        let reads_per_update = if k > 0 { 1.0 / f64::from(k) } else { 0.0 };
        self.lines
            .iter()
            .map(|line| {
                let n = line.writers as f64;
                let publishes = n * p;
                // Reads that fetch this line: its own writers' (after an
                // update that did not publish, when another writer wrote
                // since), other writers', reader threads'.
                let own = if k > 0 {
                    (1.0 - f) * touched(arrivals, (n - 1.0) * p, q_w)
                } else {
                    0.0
                };
                let foreign_writers = if k > 0 { nw - n } else { 0.0 };
                let foreign = touched(arrivals, publishes, q_w);
                let thread = touched(arrivals, publishes, q_r);
                let own_fetches = n * q_w * own;
                let foreign_fetches =
                    foreign_writers * q_w * foreign + self.reader_threads as f64 * q_r * thread;
                let fetches = own_fetches + foreign_fetches;
                // A write is followed by a queued read when some other
                // CPU reads before the next write: another line's writer,
                // a reader thread, or a co-writer reading after an update
                // that did not publish.
                let foreign_reads = foreign_writers * q_w + self.reader_threads as f64 * q_r;
                let co_reads = (n - 1.0) * q_w * (1.0 - f);
                let other_reads = foreign_reads + co_reads;
                let first_reads = publishes * touched(arrivals, other_reads, publishes);
                let others = (n - 1.0) * p + first_reads;
                let h = touched(arrivals, others, p);
                let write_transfers = publishes * h;
                let handovers = touched(arrivals, (n - 1.0) * p, p);
                // Each transaction's time over the pairs that make it: a
                // co-writer's (writer pairs) or anyone else's (read pairs).
                let pairs_of = |t: Transaction| {
                    let (ww, rw) = (
                        lat.mean_time(&line.writer_pairs, t, bound),
                        lat.mean_time(&line.read_pairs, t, bound),
                    );
                    (ww.or(rw).unwrap_or(0.0), rw.or(ww).unwrap_or(0.0))
                };
                let (s_moved, _) = pairs_of(Transaction::AddMoved);
                let (s_own, s_read) = pairs_of(Transaction::ReadFetched);
                let (up_own, up_read) = pairs_of(Transaction::AddUpgraded);
                // The first reads, by who makes them: their fetch, and
                // the upgrade the next publish then makes.
                let by_reader = |co: f64, foreign: f64| {
                    if other_reads > 0.0 {
                        (foreign_reads * foreign + co_reads * co) / other_reads
                    } else {
                        0.0
                    }
                };
                let (s_first, s_upgrade) = (by_reader(s_own, s_read), by_reader(up_own, up_read));
                let s_write = if others > 0.0 {
                    ((n - 1.0) * p * s_moved + first_reads * s_upgrade) / others
                } else {
                    0.0
                };
                let queued = write_transfers + first_reads;
                let rho = (write_transfers * s_write + first_reads * s_first) * 1e-9;
                // Readers from outside the line queue for it too when they
                // fetch it at all.
                let sources = line.writers
                    + if foreign_fetches > 0.0 {
                        foreign_writers as usize + self.reader_threads
                    } else {
                        0
                    };
                Flow {
                    rho,
                    queued,
                    sources,
                    service: if queued > 0.0 {
                        rho / queued * 1e9
                    } else {
                        0.0
                    },
                    s_write,
                    s_own,
                    s_read,
                    share_queued: if fetches > 0.0 {
                        first_reads / fetches
                    } else {
                        0.0
                    },
                    write_t: n / nw * f * h,
                    handover_t: n / nw * f * handovers,
                    upgrade_t: if others > 0.0 {
                        n / nw * f * h * first_reads / others
                    } else {
                        0.0
                    },
                    s_upgrade,
                    overlap: lat.overlap(&line.read_pairs),
                    own_read_t: reads_per_update * n / nw * own,
                    foreign_read_t: reads_per_update * (nw - n) / nw * foreign,
                }
            })
            .collect()
    }
}

/// One line's traffic at one rate and latency bound.
#[derive(Debug, Clone, Copy)]
struct Flow {
    /// Utilisation.
    rho: f64,
    /// Transfers a second that queue for it (publishes that move it, first
    /// reads after a write).
    queued: f64,
    /// CPUs that queue for it.
    sources: usize,
    /// Mean transfer time of the queued transfers, ns.
    service: f64,
    /// Transfer time of a publish, ns.
    s_write: f64,
    /// Transfer time of a co-writer's fetch, ns.
    s_own: f64,
    /// Transfer time of any other read's fetch, ns.
    s_read: f64,
    /// Fraction of the fetches that queue (the first after a write).
    share_queued: f64,
    /// Publish transfers per update, mean over all writers.
    write_t: f64,
    /// Of those, publishes after another writer's publish, per update.
    handover_t: f64,
    /// Of those, publishes after a read (an upgrade), per update.
    upgrade_t: f64,
    /// Time of such an upgrade, ns.
    s_upgrade: f64,
    /// How much of an upgrade and a fetch made in one update is paid
    /// (the read pairs' [`super::latency::TransactionRatios::overlap`], 1 = none).
    overlap: f64,
    /// Fetches of this line by its own writers, per update, mean over all
    /// writers.
    own_read_t: f64,
    /// Fetches of this line by other lines' writers, per update, mean over
    /// all writers.
    foreign_read_t: f64,
}

impl Flow {
    /// Fetches of this line per update, mean over all writers.
    fn read_t(&self) -> f64 {
        self.own_read_t + self.foreign_read_t
    }

    /// Their transfer time per update, ns (waits left out).
    fn read_ns(&self) -> f64 {
        self.own_read_t * self.s_own + self.foreign_read_t * self.s_read
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
