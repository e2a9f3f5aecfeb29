//! Page-aligned memory bound to one NUMA node with `mbind`, and verified page by page with
//! `move_pages`.

use super::{Placement, PlacementError};
use std::io;
use std::ptr::NonNull;

/// `mbind` flag: fail if existing pages do not follow the policy.
const MPOL_MF_STRICT: libc::c_uint = 1;
/// `mbind` flag: move existing pages that do not follow the policy.
const MPOL_MF_MOVE: libc::c_uint = 2;

/// The system page size in bytes.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 { size as usize } else { 4096 }
}

/// The outcome of checking where an allocation's pages are.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum NodeCheck {
    /// `move_pages` reported every page on this node.
    Verified {
        /// The node every page is on.
        node: u32,
    },
    /// Binding or checking failed and `--placement best-effort` let the run go on.
    Unverified {
        /// What failed, with errno.
        reason: String,
    },
}

/// Anonymous memory bound to one node, unmapped on drop.
#[derive(Debug)]
pub struct NodeMemory {
    map: Mapping,
    requested_node: u32,
    check: NodeCheck,
}

impl NodeMemory {
    /// Maps at least `len` bytes (whole pages, THP off), binds them to `node` with `MPOL_BIND`,
    /// writes every page, and checks every page's node with `move_pages`.
    pub fn alloc(len: usize, node: u32, placement: Placement) -> Result<Self, PlacementError> {
        let page = page_size();
        let len = len.max(1).div_ceil(page) * page;
        let map = Mapping::new(len, libc::PROT_READ | libc::PROT_WRITE, 0)
            .map_err(|source| PlacementError::Map { len, source })?;
        let addr = map.ptr.as_ptr().cast::<libc::c_void>();
        let reason = "not checked".into();
        let check = NodeCheck::Unverified { reason };
        let mut memory = NodeMemory {
            map,
            requested_node: node,
            check,
        };
        // Failing to turn THP off only matters if a huge page backs us; the
        // page check below would then still say where it is.
        // SAFETY: the range is our own mapping.
        unsafe { libc::madvise(addr, len, libc::MADV_NOHUGEPAGE) };
        let bound = bind(addr, len, node).map_err(|e| PlacementError::Bind(node, e));
        memory.touch();
        let checked = bound.and_then(|()| memory.verify());
        memory.check = match checked {
            Ok(()) => NodeCheck::Verified { node },
            Err(e) if placement == Placement::BestEffort => NodeCheck::Unverified {
                reason: e.to_string(),
            },
            Err(e) => return Err(e),
        };
        Ok(memory)
    }

    /// Start of the mapping (page-aligned).
    pub fn as_ptr(&self) -> *mut u8 {
        self.map.ptr.as_ptr()
    }

    /// Length of the mapping in bytes (whole pages).
    pub fn bytes(&self) -> usize {
        self.map.len
    }

    /// Whether every page was verified on the requested node.
    pub fn check(&self) -> &NodeCheck {
        &self.check
    }

    /// The node of every page now, as `move_pages` reports it.
    pub fn page_nodes(&self) -> io::Result<Vec<i32>> {
        let page = page_size();
        let pages: Vec<*mut libc::c_void> = (0..self.bytes() / page)
            // SAFETY: offsets stay inside the mapping.
            .map(|i| unsafe { self.as_ptr().add(i * page) }.cast())
            .collect();
        let mut status = vec![i32::MIN; pages.len()];
        let (n, at) = (pages.len(), pages.as_ptr());
        let (nodes, out) = (std::ptr::null::<libc::c_int>(), status.as_mut_ptr());
        // SAFETY: pid 0 = this process; `nodes` NULL = query only; the
        // kernel writes `pages.len()` ints into `status`.
        let rc = unsafe { libc::syscall(libc::SYS_move_pages, 0, n, at, nodes, out, 0) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(status)
    }

    fn touch(&mut self) {
        let page = page_size();
        for offset in (0..self.bytes()).step_by(page) {
            // SAFETY: inside the mapping; a volatile write so the fault that
            // allocates the page is not optimised away.
            unsafe { self.as_ptr().add(offset).write_volatile(0) };
        }
    }

    fn verify(&self) -> Result<(), PlacementError> {
        let node = self.requested_node;
        let status = self
            .page_nodes()
            .map_err(|e| PlacementError::Query(node, e))?;
        for (page, &found) in status.iter().enumerate() {
            if found < 0 {
                let errno = io::Error::from_raw_os_error(-found);
                return Err(PlacementError::Query(node, errno));
            }
            if found as u32 != node {
                return Err(PlacementError::Misplaced(node, found as u32, page));
            }
        }
        Ok(())
    }
}

/// Address space reserved and never touched.
pub struct AddressGap(Mapping);

impl AddressGap {
    /// Reserves `pages` pages (at least one), inaccessible.
    pub fn reserve(pages: usize) -> io::Result<Self> {
        let len = pages.max(1) * page_size();
        // Never accessed (PROT_NONE) and never backed.
        Mapping::new(len, libc::PROT_NONE, libc::MAP_NORESERVE).map(AddressGap)
    }

    /// Length of the gap in bytes (whole pages).
    pub fn bytes(&self) -> usize {
        self.0.len
    }
}

/// A private anonymous mapping, unmapped on drop.
#[derive(Debug)]
struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a Mapping owns its pages exclusively, like a Box<[u8]>; what is
// stored in them is up to the caller's types.
unsafe impl Send for Mapping {}
// SAFETY: as above; &Mapping gives only a pointer.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// `len` bytes with no address hint, `prot` and further `flags` as `mmap` takes them, or the
    /// errno.
    fn new(len: usize, prot: libc::c_int, flags: libc::c_int) -> io::Result<Self> {
        let flags = flags | libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // SAFETY: an anonymous mapping with no address hint touches no
        // existing memory.
        let addr = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, -1, 0) };
        if addr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(addr.cast::<u8>());
        let ptr = ptr.ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
        Ok(Mapping { ptr, len })
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the mapping we created.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

fn bind(addr: *mut libc::c_void, len: usize, node: u32) -> io::Result<()> {
    let words = node as usize / 64 + 1;
    let mut mask = vec![0 as libc::c_ulong; words];
    mask[node as usize / 64] |= 1 << (node % 64);
    let maxnode = words * 64 + 1;
    let (policy, bits) = (libc::MPOL_BIND, mask.as_ptr());
    let flags = MPOL_MF_STRICT | MPOL_MF_MOVE;
    // SAFETY: the range is our own mapping; the kernel reads maxnode - 1
    // bits from `mask`, which holds exactly that many.
    let rc = unsafe { libc::syscall(libc::SYS_mbind, addr, len, policy, bits, maxnode, flags) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node0_memory_is_verified_by_move_pages() {
        let memory = NodeMemory::alloc(3 * page_size() + 1, 0, Placement::Strict).unwrap();
        let verified = NodeCheck::Verified { node: 0 };
        assert_eq!(
            (memory.bytes(), memory.check()),
            (4 * page_size(), &verified)
        );
        assert_eq!(memory.page_nodes().unwrap(), vec![0; 4]);
        assert_eq!(memory.as_ptr() as usize % page_size(), 0);
    }

    #[test]
    fn missing_node_is_an_error_naming_node_and_errno() {
        let err = NodeMemory::alloc(page_size(), 63, Placement::Strict).unwrap_err();
        let text = err.to_string();
        let named = text.contains("node 63") && text.contains("os error");
        assert!(named, "{text}");
        let memory = NodeMemory::alloc(page_size(), 63, Placement::BestEffort).unwrap();
        match memory.check() {
            NodeCheck::Unverified { reason } => assert!(reason.contains("node 63"), "{reason}"),
            other => panic!("expected unverified, got {other:?}"),
        }
    }
}
