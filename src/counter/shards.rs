//! Shard levels: where a writer on CPU c adds, where each slot's memory lives, and how a reader
//! sums the slots.

use crate::placement::{NodeCheck, NodeMemory, Placement, PlacementError, page_size};
use crate::topology::Topology;
use std::sync::atomic::{AtomicI64, Ordering};

/// How finely the counter is split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ShardLevel {
    /// One slot for everyone: today's `tg->load_avg`.
    Global,
    /// One slot per NUMA node (seed 000's `tg_node_info`).
    Node,
    /// One slot per last-level cache (Peter Zijlstra's "split at LLC").
    Llc,
    /// One slot per CPU (`percpu_counter`).
    Cpu,
}

crate::named_enum!(ShardLevel, "level", [Global => "global", Node => "node", Llc => "llc", Cpu => "cpu"]);

/// Bytes between slots (and between the read-mostly field and the slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Pad {
    /// 128 bytes: `crossbeam_utils::CachePadded` on x86_64, which covers the adjacent-line pair
    /// Intel's spatial prefetcher pulls.
    #[serde(rename = "128")]
    Line128,
    /// 64 bytes: the kernel's `____cacheline_aligned`.
    #[serde(rename = "64")]
    Line64,
    /// Packed: 8-byte slots side by side, right after the read-mostly field readers load.
    #[serde(rename = "0")]
    Packed,
}

impl Pad {
    /// Distance in bytes from one slot to the next.
    pub fn stride(self) -> usize {
        match self {
            // CachePadded's alignment is the definition of "128" here.
            Pad::Line128 => std::mem::align_of::<crossbeam_utils::CachePadded<u64>>(),
            Pad::Line64 => 64,
            Pad::Packed => std::mem::size_of::<AtomicI64>(),
        }
    }
}

crate::named_enum!(Pad, "pad", [Line128 => "128", Line64 => "64", Packed => "0"]);

/// How a reader walks the node-level slots.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum NodeIter {
    /// Loop to the number of node ids (`nr_node_ids`).
    #[default]
    Compact,
    /// Scan a 1024-bit node mask bit by bit, as `for_each_node` does with `NODES_SHIFT=10`.
    Bitmap,
}

crate::named_enum!(NodeIter, "node iteration", [Compact => "compact", Bitmap => "bitmap"]);

/// Where slot memory goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotHome {
    /// Each slot on its own node: a node slot on that node, an LLC or CPU slot on the node of its
    /// CPUs.
    Local,
    /// Every slot on this node (`--counter-node N`).
    OnNode(u32),
}

/// The walk of every slot in slot order: the global, LLC and CPU levels reads.
pub const WALK_SLOTS: u8 = 0;
/// The node level's walk of node ids below `nr_node_ids` ([`NodeIter::Compact`]).
pub const WALK_NODE_IDS: u8 = 1;
/// The node level's walk of the 1024-bit node mask ([`NodeIter::Bitmap`]).
pub const WALK_NODE_MASK: u8 = 2;

/// Bits in the node mask a bitmap reader scans (`MAX_NUMNODES` with `NODES_SHIFT=10`).
pub const MAX_NUMNODES: usize = 1024;

/// What a counter is made of: level, padding, where slots live, how node slots are walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CounterLayout {
    /// How finely the counter is split.
    pub level: ShardLevel,
    /// Bytes between slots.
    pub pad: Pad,
    /// Where slot memory goes.
    pub home: SlotHome,
    /// How the node-level reader walks slots (ignored by other levels).
    pub node_iter: NodeIter,
}

/// One slot of a counter, as placed and verified.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SlotInfo {
    /// What the slot serves: `global`, `node 1`, `llc 3`, `cpu 17`.
    pub owner: String,
    /// The node its memory was bound to.
    pub node: u32,
    /// What `move_pages` said.
    pub check: NodeCheck,
}

/// A counter that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CounterError {
    /// The request names something this host lacks (exit status 2).
    #[error("{0}")]
    Request(String),
    /// The kernel refused or misplaced slot memory (exit status 1).
    #[error(transparent)]
    Placement(#[from] PlacementError),
}

/// A split counter whose slots live in node-bound memory.
pub struct ShardedCounter {
    layout: CounterLayout,
    /// Keeps the slot memory mapped; the pointers below point into it.
    _regions: Vec<NodeMemory>,
    slots: Vec<*const AtomicI64>,
    shares: *const AtomicI64,
    info: Vec<SlotInfo>,
    /// Slot index for each CPU id (`usize::MAX` for CPUs without one).
    cpu_to_slot: Vec<usize>,
    /// Node level: slot index for each node id below `nr_node_ids`.
    node_to_slot: Vec<Option<usize>>,
    /// Node level: which node ids have a slot, as a 1024-bit mask.
    node_mask: [u64; MAX_NUMNODES / 64],
    notes: Vec<String>,
    /// Bytes into its page just past the first region's lines.
    end_offset: usize,
}

// SAFETY: the raw pointers point into `_regions`, owned by the counter and
// never moved or freed before it; all access through them is atomic.
unsafe impl Send for ShardedCounter {}
// SAFETY: as above.
unsafe impl Sync for ShardedCounter {}

/// The value `shares` holds (`tg->shares` for a default task group).
pub const DEFAULT_SHARES: i64 = 1024;

impl ShardedCounter {
    /// Builds the counter for `writer_cpus` on `topo`: one slot per level unit.
    pub fn new(
        layout: CounterLayout,
        topo: &Topology,
        writer_cpus: &[u32],
        placement: Placement,
    ) -> Result<Self, CounterError> {
        Self::new_at(layout, topo, writer_cpus, placement, 0)
    }

    /// [`ShardedCounter::new`] with its lines starting `offset` bytes into their pages.
    pub fn new_at(
        layout: CounterLayout,
        topo: &Topology,
        writer_cpus: &[u32],
        placement: Placement,
        offset: usize,
    ) -> Result<Self, CounterError> {
        let offset = offset % page_size() / 8 * 8;
        let first_cpu = *writer_cpus.first().ok_or_else(|| {
            CounterError::Request("a counter needs at least one writer CPU".into())
        })?;
        let first_node = topo
            .node_of_cpu(first_cpu)
            .ok_or_else(|| CounterError::Request(format!("CPU {first_cpu} is not online")))?;
        if let SlotHome::OnNode(n) = layout.home {
            topo.check_memory_node(n)
                .map_err(|e| CounterError::Request(format!("--placement node:{n}: {e}")))?;
        }
        let units = level_units(layout.level, topo, first_node);
        let (homes, notes) = slot_homes(&units, layout.home, topo);
        // One region per home node, the slots of that node packed in it at `stride` from `offset`
        // bytes into its page; the first region also holds `shares`, one stride before its slots.
        let stride = layout.pad.stride();
        let region_nodes: Vec<u32> = (homes.iter().enumerate())
            .filter_map(|(i, h)| (!homes[..i].contains(h)).then_some(*h))
            .collect();
        let mut regions = Vec::with_capacity(region_nodes.len());
        let mut slots = vec![std::ptr::null::<AtomicI64>(); units.len()];
        let (mut shares, mut end_offset) = (std::ptr::null::<AtomicI64>(), 0);
        for (r, &node) in region_nodes.iter().enumerate() {
            let members: Vec<usize> = (0..units.len()).filter(|&i| homes[i] == node).collect();
            let lead = usize::from(r == 0); // room for `shares` in the first region
            let memory =
                NodeMemory::alloc(offset + (members.len() + lead) * stride, node, placement)?;
            // SAFETY: offset < the page size <= the region's length.
            let base = unsafe { memory.as_ptr().add(offset) };
            if r == 0 {
                shares = base.cast::<AtomicI64>();
                // SAFETY: an 8-aligned offset into a fresh, page-aligned
                // mapping.
                unsafe { (*shares).store(DEFAULT_SHARES, Ordering::Relaxed) };
                end_offset = (offset + (members.len() + lead) * stride) % page_size();
            }
            for (k, &i) in members.iter().enumerate() {
                // SAFETY: offset + (k + lead) * stride + 8 <= region
                // length, and 8-aligned, so this is a valid AtomicI64.
                slots[i] = unsafe { base.add((k + lead) * stride) }.cast::<AtomicI64>();
            }
            regions.push(memory);
        }
        let info = units
            .iter()
            .zip(&homes)
            .map(|(unit, &home)| SlotInfo {
                owner: unit.owner.clone(),
                node: home,
                check: regions[region_nodes.iter().position(|&n| n == home).unwrap_or(0)]
                    .check()
                    .clone(),
            })
            .collect();
        let max_cpu = topo.online_cpus.last().unwrap_or(0) as usize;
        let mut cpu_to_slot = vec![usize::MAX; max_cpu + 1];
        for (i, unit) in units.iter().enumerate() {
            for &c in &unit.cpus {
                cpu_to_slot[c as usize] = i;
            }
        }
        let (node_to_slot, node_mask) = node_slots(layout.level, topo);
        Ok(Self {
            layout,
            _regions: regions,
            slots,
            shares,
            info,
            cpu_to_slot,
            node_to_slot,
            node_mask,
            notes,
            end_offset,
        })
    }

    /// Bytes into its page just past this counter's `shares` and the slots stored with it.
    pub fn end_offset(&self) -> usize {
        self.end_offset
    }

    /// Every slot's owner, node and verification, in slot order.
    pub fn slots(&self) -> &[SlotInfo] {
        &self.info
    }

    /// Fallbacks taken while placing slots, one sentence each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The slot index a writer on `cpu` adds to, if the CPU is online.
    pub fn slot_of_cpu(&self, cpu: u32) -> Option<usize> {
        let slot = *self.cpu_to_slot.get(cpu as usize)?;
        (slot != usize::MAX).then_some(slot)
    }

    /// The slot at `index` (panics if out of range, like slice indexing).
    #[inline(always)]
    pub fn slot(&self, index: usize) -> &AtomicI64 {
        // SAFETY: see the Send impl: the pointer is valid while self is.
        unsafe { &*self.slots[index] }
    }

    /// Bytes from the first slot's address to the second's, as laid out in memory.
    pub fn slot_stride(&self) -> Option<usize> {
        let (first, second) = (*self.slots.first()?, *self.slots.get(1)?);
        let bytes = (second as usize).checked_sub(first as usize)?;
        (self.info[0].node == self.info[1].node).then_some(bytes)
    }

    /// The read-mostly `shares` field readers load on every read.
    #[inline(always)]
    pub fn shares(&self) -> i64 {
        // SAFETY: as for `slot`.
        unsafe { (*self.shares).load(Ordering::Relaxed) }
    }

    /// The counter's value: the sum of every slot (relaxed loads, as `atomic_long_read`).
    #[inline]
    pub fn read(&self) -> i64 {
        let mut sum = 0;
        self.walk(|i| sum += slot_sum(self.raw(i)));
        sum
    }

    /// Sets every slot (its sum and its publish tags) to 0, as a new counter's are.
    pub fn clear(&self) {
        (0..self.slots.len()).for_each(|i| self.slot(i).store(0, Ordering::Relaxed));
    }

    /// Slot `index`'s raw value: its sum and its publish tags (relaxed load).
    #[inline(always)]
    pub fn raw(&self, index: usize) -> i64 {
        self.slot(index).load(Ordering::Relaxed)
    }

    /// Slot `index`'s address, bytes: which cache line it is on.
    pub fn slot_address(&self, index: usize) -> usize {
        self.slots[index] as usize
    }

    /// The positions one [`read`](Self::read) examines, counted by walking the slots exactly as a
    /// read does: every slot for the global, LLC and CPU levels.
    pub fn read_steps(&self) -> usize {
        self.walk(|_| ())
    }

    /// Which of the walks a read of this counter takes.
    pub fn walk_kind(&self) -> u8 {
        match (self.layout.level, self.layout.node_iter) {
            (ShardLevel::Node, NodeIter::Compact) => WALK_NODE_IDS,
            (ShardLevel::Node, NodeIter::Bitmap) => WALK_NODE_MASK,
            _ => WALK_SLOTS,
        }
    }

    /// Visits every slot in the order a read does.
    #[inline(always)]
    pub(super) fn walk(&self, visit: impl FnMut(usize)) -> usize {
        match self.walk_kind() {
            WALK_NODE_IDS => self.walk_as::<WALK_NODE_IDS>(visit),
            WALK_NODE_MASK => self.walk_as::<WALK_NODE_MASK>(visit),
            _ => self.walk_as::<WALK_SLOTS>(visit),
        }
    }

    /// [`walk`](Self::walk) compiled for walk `W`.
    #[inline(always)]
    pub(super) fn walk_as<const W: u8>(&self, mut visit: impl FnMut(usize)) -> usize {
        debug_assert_eq!(W, self.walk_kind());
        match W {
            WALK_NODE_IDS => {
                // A plain loop over the slice: a `Flatten`'s `fold` stays out of line, one copy for
                // every lane in place.
                for slot in &self.node_to_slot {
                    if let Some(i) = *slot {
                        visit(i);
                    }
                }
                self.node_to_slot.len()
            }
            WALK_NODE_MASK => {
                let mut words = 0;
                let mut node = next_node(&self.node_mask, 0, &mut words);
                while node < MAX_NUMNODES {
                    if let Some(Some(i)) = self.node_to_slot.get(node) {
                        visit(*i);
                    }
                    node = next_node(&self.node_mask, node + 1, &mut words);
                }
                words
            }
            _ => {
                for i in 0..self.slots.len() {
                    visit(i);
                }
                self.slots.len()
            }
        }
    }
}

/// What every publish adds to its slot besides its delta.
pub const PUBLISH_TAG: i64 = 1 << 32;

/// The load a slot's raw value holds: its lower 32 bits, sign-extended.
#[inline(always)]
pub fn slot_sum(raw: i64) -> i64 {
    raw as i32 as i64
}

/// The first set bit at or after `start` in `mask`, or [`MAX_NUMNODES`].
#[inline]
fn next_node(mask: &[u64; MAX_NUMNODES / 64], start: usize, words: &mut usize) -> usize {
    if start >= MAX_NUMNODES {
        return MAX_NUMNODES;
    }
    let mut word = start / 64;
    let mut bits = mask[word] & (!0u64 << (start % 64));
    loop {
        *words += 1;
        if bits != 0 {
            return word * 64 + bits.trailing_zeros() as usize;
        }
        word += 1;
        if word == mask.len() {
            return MAX_NUMNODES;
        }
        bits = mask[word];
    }
}

/// One unit of a shard level: who a slot serves, the node it is local to, and the CPUs that add to
/// it.
struct Unit {
    owner: String,
    local: u32,
    cpus: Vec<u32>,
}

/// The units `level` splits `topo` into, in slot order.
fn level_units(level: ShardLevel, topo: &Topology, first_node: u32) -> Vec<Unit> {
    let unit = |owner: String, local: u32, cpus: Vec<u32>| Unit { owner, local, cpus };
    match level {
        ShardLevel::Global => vec![unit("global".into(), first_node, topo.online_cpus.to_vec())],
        ShardLevel::Node => topo
            .nodes
            .iter()
            .map(|n| unit(format!("node {}", n.id), n.id, n.cpus.to_vec()))
            .collect(),
        ShardLevel::Llc => topo
            .llcs
            .iter()
            .map(|l| {
                let node = l
                    .cpus
                    .first()
                    .and_then(|c| topo.node_of_cpu(c))
                    .unwrap_or(first_node);
                unit(format!("llc {}", l.id), node, l.cpus.to_vec())
            })
            .collect(),
        ShardLevel::Cpu => topo
            .cpus
            .iter()
            .map(|c| unit(format!("cpu {}", c.id), c.node, vec![c.id]))
            .collect(),
    }
}

/// The node each unit's slot goes to under `home`, and a note for each local home without memory.
fn slot_homes(units: &[Unit], home: SlotHome, topo: &Topology) -> (Vec<u32>, Vec<String>) {
    let mut notes = Vec::new();
    let homes = units
        .iter()
        .map(|u| match home {
            SlotHome::OnNode(n) => n,
            SlotHome::Local => {
                let home = nearest_memory_node(topo, u.local);
                if home != u.local {
                    notes.push(format!(
                        "{}: node {} has no usable memory, slot placed on node {home}",
                        u.owner, u.local
                    ));
                }
                home
            }
        })
        .collect();
    (homes, notes)
}

/// The node level's slot for each node id below `nr_node_ids` (one past the highest possible node
/// id) and its 1024-bit mask of node ids with a slot; empty for the other levels.
fn node_slots(
    level: ShardLevel,
    topo: &Topology,
) -> (Vec<Option<usize>>, [u64; MAX_NUMNODES / 64]) {
    let mut node_to_slot = Vec::new();
    let mut node_mask = [0u64; MAX_NUMNODES / 64];
    if level == ShardLevel::Node {
        let nr_node_ids = topo.possible_nodes.last().unwrap_or(0) as usize + 1;
        node_to_slot = vec![None; nr_node_ids];
        for (i, n) in topo.nodes.iter().enumerate() {
            node_to_slot[n.id as usize] = Some(i);
            node_mask[n.id as usize / 64] |= 1 << (n.id % 64);
        }
    }
    (node_to_slot, node_mask)
}

/// `node` itself when it has memory this process may use, else the nearest such node by distance.
fn nearest_memory_node(topo: &Topology, node: u32) -> u32 {
    if topo.check_memory_node(node).is_ok() {
        return node;
    }
    topo.nodes
        .iter()
        .filter(|n| topo.check_memory_node(n.id).is_ok())
        .min_by_key(|n| (topo.distance(node, n.id).unwrap_or(u32::MAX), n.id))
        .map_or(node, |n| n.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_node_walks_set_bits() {
        let mut mask = [0u64; MAX_NUMNODES / 64];
        [0usize, 3, 64, 1023]
            .into_iter()
            .for_each(|n| mask[n / 64] |= 1 << (n % 64));
        let (mut seen, mut words) = (Vec::new(), 0);
        let mut n = next_node(&mask, 0, &mut words);
        while n < MAX_NUMNODES {
            seen.push(n);
            n = next_node(&mask, n + 1, &mut words);
        }
        assert_eq!(seen, vec![0, 3, 64, 1023]);
        // Words loaded: 0 (finds 0), 0 (finds 3), 0 then 1 (finds 64), 1..=15 (finds 1023): 1 + 1 +
        // 2 + 15.
        assert_eq!(words, 19);
        // Past the end: no word is loaded.
        let past = next_node(&mask, MAX_NUMNODES, &mut words);
        assert_eq!((past, words), (MAX_NUMNODES, 19));
    }

    #[test]
    fn a_slot_goes_to_the_nearest_node_with_usable_memory() {
        // The fixture: node 1 has CPUs and no memory; distances 1→0 21, 1→2 24, 0→2 14.
        let mut topo = crate::topology::fixture("cpuless-memless");
        let list = |s: &str| crate::topology::CpuList::parse(s).unwrap();
        topo.allowed_mems = list("0,2");
        let nearest = |topo: &Topology| [0, 1, 2].map(|n| nearest_memory_node(topo, n));
        assert_eq!(nearest(&topo), [0, 0, 2]); // 1 to 0: 21 < 24
        // Node 0's memory not allowed to this process: node 2 is nearest for all.
        topo.allowed_mems = list("2");
        assert_eq!(nearest(&topo), [2, 2, 2]);
    }

    #[test]
    fn pads_have_the_documented_strides() {
        assert_eq!((Pad::Line64.stride(), Pad::Packed.stride()), (64, 8));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(Pad::Line128.stride(), 128);
    }
}
