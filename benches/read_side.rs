//! The read side alone: what one `ShardedCounter::read` costs as the slot
//! count grows, and what walking node slots through a 1024-bit node mask
//! costs against a loop bounded by `nr_node_ids` (issue 7).
//!
//! Two groups, one thread, pinned (best effort) to the CPU it starts on; no
//! writers, so every slot's line sits in this CPU's cache: these are the
//! floors of the read path, the part a reader pays even without contention.
//!
//! - `read_side/slots/N`: a `cpu`-level counter with N = 1, 2, 4, 8, 16,
//!   64, 1024 slots (128-byte padding, so 1024 slots span 128 KiB, past L1).
//!   The layouts are synthetic (one node, one LLC, N CPUs) so only the slot
//!   count changes; every slot lives on node 0 of this host. `global`,
//!   `llc` and `cpu` levels all read through this same loop over slots, so
//!   N = 1 is today's `tg->load_avg`, N = 2 or 16 an LLC split on the
//!   2-socket SPR or EPYC NPS1 fixture, N = 224 or 256 their per-CPU split.
//! - `node_iter/<fixture>/{compact,bitmap}`: the node level on the 8-node
//!   AMD NPS4 fixture and on the 4-node VM fixture (Peter Zijlstra's "<= 4
//!   nodes"), every slot on node 0 of this host. `compact` loops over node
//!   ids below `nr_node_ids`; `bitmap` scans the 1024-bit mask
//!   (`NODES_SHIFT=10`) with `find_next_bit`, as `for_each_node` does.
//!   Seed 000 says bounding the walk by `nr_node_ids` "would save a factor
//!   of 256 scanning" (1024 bits / 4 nodes). After the group the bench
//!   times both walks again in a plain loop and prints the measured ratio
//!   next to that bit ratio: `find_next_bit` skips empty words 64 bits at a
//!   time, so the time ratio is far below the bit ratio.
//!
//! `cargo bench --bench read_side`.

mod common;

use contend::counter::{CounterLayout, NodeIter, Pad, ShardLevel, ShardedCounter, SlotHome};
use contend::placement::Placement;
use contend::topology::{Cpu, CpuList, Llc, Node, Topology};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Slot counts of the `slots` ladder.
const SLOTS: [u32; 7] = [1, 2, 4, 8, 16, 64, 1024];

/// Bits a bitmap walk scans (`MAX_NUMNODES` with `NODES_SHIFT=10`).
const NODE_MASK_BITS: usize = 1024;

fn tune(g: &mut BenchmarkGroup<'_, WallTime>) {
    g.measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20)
        .nresamples(common::NRESAMPLES)
        .throughput(Throughput::Elements(1));
}

/// One node (0), one LLC and CPUs `0..n`: a layout whose `cpu` level has
/// exactly `n` slots.
fn synthetic(n: u32) -> Topology {
    let all: CpuList = (0..n).collect();
    let node0: CpuList = [0].into_iter().collect();
    Topology {
        online_cpus: all.clone(),
        possible_nodes: node0.clone(),
        nodes: vec![Node {
            id: 0,
            cpus: all.clone(),
            has_memory: true,
            has_cpu: true,
        }],
        distances: vec![vec![10]],
        cpus: (0..n)
            .map(|id| Cpu {
                id,
                node: 0,
                package: 0,
                core: id,
                siblings: [id].into_iter().collect(),
                llc: 0,
            })
            .collect(),
        llcs: vec![Llc {
            id: 0,
            level: 3,
            cpus: all.clone(),
        }],
        allowed_cpus: all,
        allowed_mems: node0,
        notes: Vec::new(),
    }
}

/// A counter on `topo` with every slot on node 0 of this host.
fn counter_on_node0(topo: &Topology, level: ShardLevel, node_iter: NodeIter) -> ShardedCounter {
    let layout = CounterLayout {
        level,
        pad: Pad::Line128,
        home: SlotHome::OnNode(0),
        node_iter,
    };
    let first = topo.online_cpus.first().expect("CPUs");
    ShardedCounter::new(layout, topo, &[first], Placement::Strict)
        .or_else(|_| ShardedCounter::new(layout, topo, &[first], Placement::BestEffort))
        .unwrap_or_else(|e| panic!("{level} counter: {e}"))
}

fn slots(c: &mut Criterion) {
    common::pin_here("read_side");
    let mut g = c.benchmark_group("read_side");
    tune(&mut g);
    for n in SLOTS {
        let counter = counter_on_node0(&synthetic(n), ShardLevel::Cpu, NodeIter::Compact);
        assert_eq!(counter.slots().len(), n as usize);
        let counter = &counter;
        g.bench_with_input(BenchmarkId::new("slots", n), &n, |b, _| {
            b.iter(|| black_box(counter).read())
        });
    }
    g.finish();
}

/// Mean ns of one `read`, best of 7 runs of 200 000 reads.
fn ns_per_read(counter: &ShardedCounter) -> f64 {
    const READS: u32 = 200_000;
    (0..7)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..READS {
                black_box(black_box(counter).read());
            }
            t.elapsed().as_nanos() as f64 / f64::from(READS)
        })
        .fold(f64::INFINITY, f64::min)
}

fn node_iter(c: &mut Criterion) {
    common::pin_here("read_side");
    let mut g = c.benchmark_group("node_iter");
    tune(&mut g);
    let mut ratios = Vec::new();
    for fixture in ["amd-2s-nps4-8node", "vm-4node-norov"] {
        let topo = common::fixture(fixture);
        let compact = counter_on_node0(&topo, ShardLevel::Node, NodeIter::Compact);
        let bitmap = counter_on_node0(&topo, ShardLevel::Node, NodeIter::Bitmap);
        assert_eq!(compact.read(), bitmap.read());
        for (name, counter) in [("compact", &compact), ("bitmap", &bitmap)] {
            g.bench_function(format!("{fixture}/{name}"), |b| {
                b.iter(|| black_box(counter).read())
            });
        }
        let nr_node_ids = topo.possible_nodes.last().unwrap_or(0) as usize + 1;
        ratios.push((
            fixture,
            nr_node_ids,
            ns_per_read(&compact),
            ns_per_read(&bitmap),
        ));
    }
    g.finish();
    for (fixture, nr_node_ids, compact, bitmap) in ratios {
        eprintln!(
            "node_iter/{fixture}: compact {compact:.2} ns, bitmap {bitmap:.2} ns per read: \
             bitmap/compact = {:.2}x (bits scanned: {NODE_MASK_BITS}/{nr_node_ids} = {}x)",
            bitmap / compact,
            NODE_MASK_BITS / nr_node_ids
        );
    }
}

criterion_group!(benches, slots, node_iter);
criterion_main!(benches);
