//! The work each thread does: load walks, the per-operation loops shared
//! with `cargo bench`, timing and pacing, and one repeat's pinned pools.

mod load;
mod pacer;
mod pool;
mod work;

pub use load::{LoadWalk, MAX_STEP, START_LOAD};
pub use pacer::Pacer;
pub use pool::{RepeatOutcome, RepeatSpec, Role, ThreadReport, run_repeat};
pub use work::{ReaderWork, Sampling, Work, WriterWork, new_histogram};
