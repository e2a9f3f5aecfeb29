//! The work each thread does: load values to publish, and (with `contend
//! run`) pools, barriers, timing and rate limits.

mod load;

pub use load::{LoadWalk, MAX_STEP, START_LOAD};
