//! The thing being measured: a hot counter, split at a [`ShardLevel`] and updated under a
//! [`PublishPolicy`].

mod policy;
mod shards;
mod view;
mod writer;

pub use policy::{
    FILTER_ALWAYS, FILTER_ANY, FILTER_BATCH, FILTER_CHANGED, FILTER_NEVER, FILTER_THRESHOLD,
    Filter, PublishPolicy, format_duration, parse_duration, parse_duration_or_zero,
};
pub use shards::{
    CounterError, CounterLayout, DEFAULT_SHARES, MAX_NUMNODES, NodeIter, PUBLISH_TAG, Pad,
    ShardLevel, ShardedCounter, SlotHome, SlotInfo, WALK_NODE_IDS, WALK_NODE_MASK, WALK_SLOTS,
    slot_sum,
};
pub use view::{LINE_BYTES, ReadView};
pub use writer::{PublishStats, Writer, check_exact};

/// `calc_group_shares()`: the share of `shares` a CPU whose own load is `load` and whose published
/// contribution is `contrib` gets, given the counter's value `sum`.
#[inline(always)]
pub fn group_shares(shares: i64, sum: i64, contrib: i64, load: i64) -> i64 {
    let tg_weight = sum - contrib + load;
    if tg_weight > 0 {
        shares * load / tg_weight
    } else {
        shares
    }
}

#[cfg(test)]
pub(crate) mod tests;
