//! contend: what one hot shared counter costs when CPUs on different NUMA nodes hammer it, and
//! which fix wins.

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
