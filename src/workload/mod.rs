//! The work each thread does: load walks, the per-operation loops shared with `cargo bench`,
//! timing, the regime (flat out or paced) and its pacing, and one repeat's pinned pools.

mod load;
mod mirror;
mod pacer;
mod pool;
mod regime;
mod work;

pub use load::{
    LoadWalk, MAX_STEP, SEED_THRESHOLD_PUBLISHES, START_LOAD, StepError, TABLE_LEN,
    step_for_threshold_publishes, stepped_publish_fraction, threshold_publish_fraction,
};
pub use mirror::{Probe, StalenessSamples};
pub use pacer::{BusyTime, Pacer, STALL};
pub use pool::{
    Lane, RepeatOutcome, RepeatSpec, Role, Startup, ThreadReport, measure_startup, permutation,
    run_repeat,
};
pub use regime::{Arrivals, Regime, SEED_RATE, parse_rate};
pub use work::{InPlaceFloor, Sampling, Work, WriterWork, new_histogram};
