//! The work each thread does: load walks, the per-operation loops shared with `cargo bench`,
//! timing, the regime (flat out or paced) and its pacing, and one repeat's pinned pools.

mod load;
mod mirror;
mod pacer;
mod pool;
mod regime;
mod work;

pub use load::{
    LARGEST_STEP, LoadCursor, LoadWalk, MAX_LOAD, MAX_STEP, MIN_LOAD, SEED_THRESHOLD_PUBLISHES,
    START_LOAD, STEPPED_WALKS, StepError, TABLE_LEN, step_for_threshold_publishes,
    stepped_publish_fraction, threshold_publish_fraction,
};
pub use mirror::{Mirror, Probe, StalenessSamples};
pub use pacer::{BusyTime, Pacer, STALL, arrivals_stream};
pub use pool::{
    Lane, RepeatOutcome, RepeatSpec, Role, STARTUP_CHANGES, Startup, ThreadReport, measure_startup,
    permutation, run_repeat,
};
pub use regime::{Arrivals, RateError, Regime, SEED_RATE, parse_rate};
pub use work::{InPlaceFloor, Probing, ReaderWork, Sampling, Work, WriterWork, new_histogram};
