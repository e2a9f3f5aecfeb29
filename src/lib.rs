//! contend: what one hot shared counter costs when CPUs on different NUMA
//! nodes hammer it, and which fix wins.
//!
//! Data flows one way: [`topology`] (the host layout) → [`placement`]
//! (pinned threads, node-bound memory, each verified) → [`counter`] →
//! [`workload`] → [`runner`] (with [`stats`]) → [`results`] → [`report`].
//! [`clock`] holds every timer; [`matrix`] and [`compare`] are the other
//! two engines; [`answer`] turns any result into its `verdict:` lines.
//! [`commands`] parses the command line and chains plan → execute →
//! export for each subcommand. docs/design.md has the rules of
//! what may import what.
//!
//! Comments cite "seeds": the four LKML threads the project grew from
//! (docs/seeds.md): seed 000 is Aaron Lu's per-node `tg->load_avg` patch
//! and Peter Zijlstra's review; seed 001 the `cpumask_local_spread()` NUMA
//! hop order; seed 002 Daniel Jordan's AMD EPYC and Xeon profiles (the
//! thread-count × affinity table, and Peter's "cross-LLC or cross-node?");
//! seed 004 Hao Jia's memcpy of the default topology. "The seed's 22k/s"
//! is postgres on the 224-CPU Sapphire Rapids behind the merged 1 ms
//! ratelimit (14M wakeups + 11M migrations in 5 s).

pub mod clock;
pub mod commands;
pub mod compare;
pub mod counter;
pub mod error;
pub mod matrix;
pub mod placement;
pub mod predict;
pub mod provenance;
pub mod report;
pub mod results;
pub mod runner;
pub mod stats;
pub mod study;
pub mod sweep;
pub mod topology;
pub mod units;
pub mod verdict;
pub mod workload;

pub use error::CliError;
