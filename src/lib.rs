//! contend: what one hot shared counter costs when CPUs on different NUMA
//! nodes hammer it, and which fix wins.
//!
//! Data flows one way: [`topology`] (the host layout) → [`placement`]
//! (pinned threads, node-bound memory, each verified) → [`counter`] →
//! [`workload`] → [`runner`] (with [`stats`]) → [`results`] → [`report`].
//! [`clock`] holds every timer; [`matrix`] and [`compare`] are the other
//! two engines; [`verdict`] turns any result into `verdict:` lines.
//! [`commands`] parses the command line and chains plan → execute →
//! export for each subcommand. docs/design.md has the rules of
//! what may import what.

pub mod clock;
pub mod commands;
pub mod compare;
pub mod counter;
pub mod error;
pub mod matrix;
pub mod placement;
pub mod provenance;
pub mod report;
pub mod results;
pub mod runner;
pub mod stats;
pub mod topology;
pub mod verdict;
pub mod workload;

pub use error::CliError;
