//! Reading [`Topology`] from a sysfs tree, and capturing the files it reads.

use super::{Cpu, CpuList, CpuListError, Llc, Node, Topology};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

const CPU_DIR: &str = "sys/devices/system/cpu";
const NODE_DIR: &str = "sys/devices/system/node";
const STATUS: &str = "proc/self/status";

/// A file under the sysfs root that could not be read or made sense of.
#[derive(Debug, thiserror::Error)]
pub enum TopologyError {
    /// A file the model needs is missing or unreadable.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file, under the root.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A file held something other than what the kernel writes there.
    #[error("{path}: {reason}")]
    Parse {
        /// The file, under the root.
        path: PathBuf,
        /// What was wrong with it.
        reason: String,
    },
    /// Writing a capture failed.
    #[error("cannot write capture {path}: {source}")]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// Reads files relative to a root and remembers which ones it read, so that a capture copies
/// exactly those.
struct SysfsTree {
    root: PathBuf,
    live: bool,
    read: RefCell<Vec<PathBuf>>,
}

impl SysfsTree {
    fn new(root: &Path) -> Self {
        let live = fs::canonicalize(root).is_ok_and(|p| p == Path::new("/"));
        let (root, read) = (root.to_path_buf(), RefCell::default());
        Self { root, live, read }
    }

    /// `rel` held something other than what the kernel writes there.
    fn bad(&self, rel: &str, reason: impl Into<String>) -> TopologyError {
        let (path, reason) = (self.path(rel), reason.into());
        TopologyError::Parse { path, reason }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The file's text, or `None` when it does not exist.
    fn optional(&self, rel: &str) -> Result<Option<String>, TopologyError> {
        match fs::read_to_string(self.path(rel)) {
            Ok(text) => {
                self.read.borrow_mut().push(PathBuf::from(rel));
                Ok(Some(text))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(TopologyError::Read {
                path: self.path(rel),
                source,
            }),
        }
    }

    fn required(&self, rel: &str) -> Result<String, TopologyError> {
        self.optional(rel)?.ok_or_else(|| TopologyError::Read {
            path: self.path(rel),
            source: io::Error::from_raw_os_error(libc::ENOENT),
        })
    }

    fn list(&self, rel: &str, text: &str) -> Result<CpuList, TopologyError> {
        CpuList::parse(text).map_err(|e: CpuListError| self.bad(rel, e.to_string()))
    }

    fn optional_list(&self, rel: &str) -> Result<Option<CpuList>, TopologyError> {
        self.optional(rel)?
            .map(|text| self.list(rel, &text))
            .transpose()
    }

    fn optional_number(&self, rel: &str) -> Result<Option<u32>, TopologyError> {
        let Some(text) = self.optional(rel)? else {
            return Ok(None);
        };
        let text = text.trim();
        let n = text
            .parse::<i64>()
            .ok()
            .and_then(|v| u32::try_from(v.max(0)).ok());
        n.map(Some)
            .ok_or_else(|| self.bad(rel, format!("expected a number, found {text:?}")))
    }

    fn is_dir(&self, rel: &str) -> bool {
        self.path(rel).is_dir()
    }

    /// Names of the entries of a directory that start with `prefix`, sorted.
    fn entries(&self, rel: &str, prefix: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.path(rel))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with(prefix))
            .collect();
        names.sort();
        names
    }

    /// A `Key:\tvalue` line of `/proc/self/status`, parsed as a list.
    fn status_list(
        &self,
        status: Option<&str>,
        key: &str,
    ) -> Result<Option<CpuList>, TopologyError> {
        let mut lines = status.into_iter().flat_map(str::lines);
        let value = lines.find_map(|line| line.strip_prefix(key)?.strip_prefix(':'));
        value.map(|v| self.list(STATUS, v)).transpose()
    }
}

pub(super) fn read(root: &Path) -> Result<Topology, TopologyError> {
    read_from(&SysfsTree::new(root))
}

fn read_from(src: &SysfsTree) -> Result<Topology, TopologyError> {
    let mut notes = Vec::new();
    let online_rel = format!("{CPU_DIR}/online");
    let online_cpus = src.list(&online_rel, &src.required(&online_rel)?)?;
    if online_cpus.is_empty() {
        return Err(src.bad(&online_rel, "no online CPUs"));
    }
    let (nodes, distances, possible_nodes) = read_nodes(src, &online_cpus, &mut notes)?;
    let (mut cpus, cpu_llc_set) = read_cpus(src, &online_cpus, &nodes, &mut notes)?;
    let llcs = group_llcs(&mut cpus, cpu_llc_set);
    let (allowed_cpus, allowed_mems) = read_allowed(src, &online_cpus, &nodes, &mut notes)?;
    Ok(Topology {
        online_cpus,
        possible_nodes,
        nodes,
        distances,
        cpus,
        llcs,
        allowed_cpus,
        allowed_mems,
        notes,
    })
}

/// An LLC's sharing set and cache level (0 for a stand-in).
type LlcSet = (CpuList, u32);

/// Each online CPU's place (node, package, core, SMT siblings) and the sharing set of its
/// last-level cache.
fn read_cpus(
    src: &SysfsTree,
    online_cpus: &CpuList,
    nodes: &[Node],
    notes: &mut Vec<String>,
) -> Result<(Vec<Cpu>, Vec<LlcSet>), TopologyError> {
    let node_of: BTreeMap<u32, u32> = nodes
        .iter()
        .flat_map(|n| n.cpus.iter().map(move |c| (c, n.id)))
        .collect();
    let (mut cpus, mut cpu_llc_set) = (Vec::new(), Vec::new());
    let (mut missing_topology, mut missing_cache) = (CpuList::new(), CpuList::new());
    for id in online_cpus.iter() {
        let dir = format!("{CPU_DIR}/cpu{id}");
        let package = src.optional_number(&format!("{dir}/topology/physical_package_id"))?;
        let core = src.optional_number(&format!("{dir}/topology/core_id"))?;
        let siblings = src.optional_list(&format!("{dir}/topology/thread_siblings_list"))?;
        if package.is_none() || core.is_none() || siblings.is_none() {
            missing_topology.insert(id);
        }
        let siblings = siblings
            .map(|s| s.intersection(online_cpus))
            .filter(|s| s.contains(id))
            .unwrap_or_else(|| [id].into_iter().collect());
        let node = node_of.get(&id).copied().unwrap_or_else(|| {
            let first = nodes[0].id;
            notes.push(format!(
                "CPU {id} is in no node's cpulist: taken as node {first}"
            ));
            first
        });
        let llc = match read_llc(src, &dir)? {
            Some((set, level)) => (set.intersection(online_cpus), level),
            None => {
                missing_cache.insert(id);
                (CpuList::new(), 0)
            }
        };
        cpu_llc_set.push(llc);
        cpus.push(Cpu {
            id,
            node,
            package: package.unwrap_or(0),
            core: core.unwrap_or(id),
            siblings,
            llc: 0,
        });
    }
    if !missing_topology.is_empty() {
        notes.push(format!(
            "no topology/ files for CPUs {missing_topology}: package 0, core = CPU id, no SMT siblings assumed"
        ));
    }
    if !missing_cache.is_empty() {
        notes.push(format!(
            "no cache information for CPUs {missing_cache}: their package stands in for the last-level cache"
        ));
        for (i, cpu) in cpus.iter().enumerate() {
            if cpu_llc_set[i].0.is_empty() {
                let group = cpus
                    .iter()
                    .zip(&cpu_llc_set)
                    .filter(|(c, (s, _))| c.package == cpu.package && s.is_empty())
                    .map(|(c, _)| c.id)
                    .collect();
                cpu_llc_set[i] = (group, 0);
            }
        }
    }
    Ok((cpus, cpu_llc_set))
}

/// The distinct LLCs, numbered by their lowest CPU.
fn group_llcs(cpus: &mut [Cpu], cpu_llc_set: Vec<LlcSet>) -> Vec<Llc> {
    let mut llc_sets: Vec<LlcSet> = Vec::new();
    for (cpu, (mut set, level)) in cpus.iter_mut().zip(cpu_llc_set) {
        set.insert(cpu.id);
        if !llc_sets.iter().any(|(s, _)| *s == set) {
            llc_sets.push((set.clone(), level));
        }
        cpu.llc = llc_sets
            .iter()
            .position(|(s, _)| *s == set)
            .unwrap_or_default() as u32;
    }
    let llcs = llc_sets.into_iter().zip(0..);
    llcs.map(|((cpus, level), id)| Llc { id, level, cpus })
        .collect()
}

/// The CPUs this process may run on (`sched_getaffinity` on the live host, else
/// `Cpus_allowed_list`) and the nodes its memory may go to.
fn read_allowed(
    src: &SysfsTree,
    online_cpus: &CpuList,
    nodes: &[Node],
    notes: &mut Vec<String>,
) -> Result<(CpuList, CpuList), TopologyError> {
    let status = src.optional(STATUS)?;
    let allowed_cpus =
        if src.live {
            super::allowed_cpus().unwrap_or_else(|e| {
                notes.push(format!(
                    "sched_getaffinity failed ({e}): all online CPUs taken as allowed"
                ));
                online_cpus.clone()
            })
        } else {
            src.status_list(status.as_deref(), "Cpus_allowed_list")?.unwrap_or_else(|| {
            let note = "no Cpus_allowed_list in proc/self/status: all online CPUs taken as allowed";
            notes.push(note.into());
            online_cpus.clone()
        })
        }
        .intersection(online_cpus);
    let memory_nodes: CpuList = nodes
        .iter()
        .filter(|n| n.has_memory)
        .map(|n| n.id)
        .collect();
    let allowed_mems = match src.status_list(status.as_deref(), "Mems_allowed_list")? {
        Some(set) => set.intersection(&memory_nodes),
        None => {
            let note = "no Mems_allowed_list in proc/self/status: every node with memory taken as \
                        allowed";
            notes.push(note.into());
            memory_nodes
        }
    };
    Ok((allowed_cpus, allowed_mems))
}

type NodeLayout = (Vec<Node>, Vec<Vec<u32>>, CpuList);

fn read_nodes(
    src: &SysfsTree,
    online_cpus: &CpuList,
    notes: &mut Vec<String>,
) -> Result<NodeLayout, TopologyError> {
    if !src.is_dir(NODE_DIR) {
        notes.push(format!(
            "no {NODE_DIR}: this kernel has no NUMA support, so all CPUs are taken as node 0"
        ));
        let (cpus, has_memory, has_cpu) = (online_cpus.clone(), true, true);
        let node = Node {
            id: 0,
            cpus,
            has_memory,
            has_cpu,
        };
        return Ok((vec![node], vec![vec![10]], [0].into_iter().collect()));
    }
    let online_rel = format!("{NODE_DIR}/online");
    let online_nodes = match src.optional_list(&online_rel)? {
        Some(set) => set,
        None => {
            let found: CpuList = src
                .entries(NODE_DIR, "node")
                .iter()
                .filter_map(|n| n.strip_prefix("node")?.parse().ok())
                .collect();
            notes.push(format!(
                "no {online_rel}: nodes {found} found by listing the directory"
            ));
            found
        }
    };
    if online_nodes.is_empty() {
        return Err(src.bad(&online_rel, "no online nodes"));
    }
    let possible_nodes = src
        .optional_list(&format!("{NODE_DIR}/possible"))?
        .unwrap_or_else(|| online_nodes.clone());
    let has_memory = src.optional_list(&format!("{NODE_DIR}/has_memory"))?;
    let has_cpu = src.optional_list(&format!("{NODE_DIR}/has_cpu"))?;
    if has_memory.is_none() {
        notes.push(format!(
            "no {NODE_DIR}/has_memory: every online node taken to have memory"
        ));
    }

    let mut nodes = Vec::new();
    let mut distances = Vec::new();
    for id in online_nodes.iter() {
        let rel = format!("{NODE_DIR}/node{id}/cpulist");
        let cpus = src
            .list(&rel, &src.required(&rel)?)?
            .intersection(online_cpus);
        let drel = format!("{NODE_DIR}/node{id}/distance");
        let text = src.required(&drel)?;
        let row: Result<Vec<u32>, _> = text.split_whitespace().map(str::parse).collect();
        let row = row.map_err(|e| src.bad(&drel, format!("distance is not a number: {e}")))?;
        if row.len() != online_nodes.len() {
            let (n, m) = (row.len(), online_nodes.len());
            return Err(src.bad(
                &drel,
                format!("{n} distances for {m} online nodes ({online_nodes})"),
            ));
        }
        nodes.push(Node {
            id,
            has_memory: has_memory.as_ref().is_none_or(|m| m.contains(id)),
            has_cpu: has_cpu
                .as_ref()
                .map_or(!cpus.is_empty(), |c| c.contains(id)),
            cpus,
        });
        distances.push(row);
    }
    Ok((nodes, distances, possible_nodes))
}

/// The highest-level data or unified cache of one CPU.
fn read_llc(src: &SysfsTree, cpu_dir: &str) -> Result<Option<(CpuList, u32)>, TopologyError> {
    let cache = format!("{cpu_dir}/cache");
    let mut best: Option<(CpuList, u32)> = None;
    for index in src.entries(&cache, "index") {
        let dir = format!("{cache}/{index}");
        let Some(kind) = src.optional(&format!("{dir}/type"))? else {
            continue;
        };
        if !matches!(kind.trim(), "Unified" | "Data") {
            continue;
        }
        let Some(level) = src.optional_number(&format!("{dir}/level"))? else {
            continue;
        };
        let Some(shared) = src.optional_list(&format!("{dir}/shared_cpu_list"))? else {
            continue;
        };
        if best.as_ref().is_none_or(|(_, l)| level > *l) {
            best = Some((shared, level));
        }
    }
    Ok(best)
}

/// Copies the files the topology reader uses from the host at `root` (normally `/`) into `dest`, so
/// that `--sysfs-root dest` reproduces this host's model anywhere.
pub fn capture(root: &Path, dest: &Path) -> Result<usize, TopologyError> {
    let src = SysfsTree::new(root);
    let topo = read_from(&src)?;
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for rel in src.read.into_inner() {
        if rel != Path::new(STATUS) {
            let from = root.join(&rel);
            let text = fs::read_to_string(&from)
                .map_err(|source| TopologyError::Read { path: from, source })?;
            files.push((rel, text));
        }
    }
    let status = format!(
        "Cpus_allowed_list:\t{}\nMems_allowed_list:\t{}\n",
        topo.allowed_cpus, topo.allowed_mems
    );
    files.push((PathBuf::from(STATUS), status));
    for (rel, text) in &files {
        let to = dest.join(rel);
        let write = |path: &Path, result: io::Result<()>| {
            let path = path.to_path_buf();
            result.map_err(|source| TopologyError::Write { path, source })
        };
        if let Some(parent) = to.parent() {
            write(parent, fs::create_dir_all(parent))?;
        }
        write(&to, fs::write(&to, text))?;
    }
    Ok(files.len())
}
