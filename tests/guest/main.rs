//! NUMA placement on a real multi-node kernel: `contend` run inside QEMU guests booted by
//! `scripts/numa-vm.sh` (TCG, about 10 s a boot, up to 30 s for 16 CPUs).
//!
//! Every test is ignored by default so that `cargo test` stays fast; CI runs
//!
//!     cargo test --release --test guest -- --ignored --test-threads=1
//!
//! Nothing here skips: a missing script, QEMU, busybox or kernel makes the test fail with
//! the script's message. Boots are few: each guest runs a batch of `contend` commands,
//! and each guest (2 nodes; 4 nodes with a memory-only one; 16 CPUs with 2 LLCs per node;
//! 64 CPUs on 4 nodes, the seed's scale, where run, matrix, study and compare run end to
//! end in about 15 minutes) is booted once and shared by the tests that use it: topology,
//! `verify`, `spread`, `matrix` classes and short `run`s whose placement and exactness
//! (never timings: TCG) are checked. Inside the guest every command's stdout, stderr and exit status are
//! captured separately (the serial console would merge them) and framed by markers that
//! are split apart here.

mod checks;
mod four_node;
mod sixteen_cpu;
mod sixty_four_cpu;
mod two_node;
mod vm;
