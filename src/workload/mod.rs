//! The work each thread does: load walks, the per-operation loops shared
//! with `cargo bench`, timing and pacing, and one repeat's pinned pools.

mod load;
mod pool;
mod timer;
mod work;

pub use load::{LoadWalk, MAX_STEP, START_LOAD};
pub use pool::{RepeatOutcome, RepeatSpec, Role, ThreadReport, run_repeat};
pub use timer::{Pacer, Timer, tsc_is_invariant};
pub use work::{ReaderWork, Sampling, Work, WriterWork};
