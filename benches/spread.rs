//! What one hop-order lookup costs (issue 7): `HopOrder::local_spread(i,
//! node)`, the kernel's `cpumask_local_spread` (v6.3 NUMA-hop order), on
//! the 2-socket Sapphire Rapids fixture (224 CPUs, 2 nodes, distances
//! 10/21) and the EPYC 7J13 NPS1 fixture (256 CPUs, 2 nodes, 10/32).
//!
//! The hop masks are built once (`HopOrder::new`, outside the timing); each
//! iteration looks up the next `i` from node 0, so the lookups sweep every
//! online CPU and both hops (`i` wraps modulo the online count inside
//! `local_spread`, as in the kernel). The bench checks first that one sweep
//! hands out every online CPU exactly once.
//!
//! One group, `spread`, one thread pinned (best effort) to the CPU it
//! starts on. `cargo bench --bench spread`.

mod common;

use contend::topology::HopOrder;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

fn spread(c: &mut Criterion) {
    common::pin_here("spread");
    let mut g = c.benchmark_group("spread");
    g.measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300))
        .sample_size(20)
        .nresamples(common::NRESAMPLES)
        .throughput(Throughput::Elements(1));
    for fixture in ["spr-2s-224", "epyc-7j13-2s-nps1-256"] {
        let topo = common::fixture(fixture);
        let hops = HopOrder::new(&topo);
        let online = topo.online_cpus.len();
        let mut sweep: Vec<u32> = (0..online)
            .map(|i| hops.local_spread(i, 0).expect("node 0 is online"))
            .collect();
        sweep.sort_unstable();
        assert_eq!(sweep, topo.online_cpus.to_vec(), "{fixture}: one sweep");
        let hops = &hops;
        g.bench_function(format!("{fixture}/node0"), |b| {
            let mut i = 0usize;
            b.iter(|| {
                i = i.wrapping_add(1);
                hops.local_spread(black_box(i), black_box(0))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, spread);
criterion_main!(benches);
