//! Reading [`Topology`] from a sysfs tree, and capturing the files it reads.

use super::{Cpu, CpuList, Llc, Node, Topology};
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

/// Reads files relative to a root and keeps what it read, so that a capture copies exactly
/// those.
pub(super) struct SysfsTree {
    root: PathBuf,
    live: bool,
    read: RefCell<Vec<(PathBuf, String)>>,
}

/// True when `root` is this host's `/`.
pub fn is_live(root: &Path) -> bool {
    fs::canonicalize(root).is_ok_and(|p| p == Path::new("/"))
}

impl SysfsTree {
    pub(super) fn new(root: &Path) -> Self {
        let live = is_live(root);
        let (root, read) = (root.to_path_buf(), RefCell::default());
        Self { root, live, read }
    }

    /// `rel` held something other than what the kernel writes there.
    fn bad(&self, rel: &str, reason: impl Into<String>) -> TopologyError {
        let (path, reason) = (self.root.join(rel), reason.into());
        TopologyError::Parse { path, reason }
    }

    /// The file's text, or `None` when it does not exist.
    fn optional(&self, rel: &str) -> Result<Option<String>, TopologyError> {
        let path = self.root.join(rel);
        match fs::read_to_string(&path) {
            Ok(text) => {
                self.read.borrow_mut().push((rel.into(), text.clone()));
                Ok(Some(text))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(TopologyError::Read { path, source }),
        }
    }

    fn required(&self, rel: &str) -> Result<String, TopologyError> {
        self.optional(rel)?.ok_or_else(|| TopologyError::Read {
            path: self.root.join(rel),
            source: io::Error::from_raw_os_error(libc::ENOENT),
        })
    }

    fn list(&self, rel: &str, text: &str) -> Result<CpuList, TopologyError> {
        CpuList::parse(text).map_err(|e| self.bad(rel, e.to_string()))
    }

    fn number(&self, rel: &str, text: &str) -> Result<u32, TopologyError> {
        let text = text.trim();
        let n = text.parse::<i64>().ok();
        n.and_then(|v| u32::try_from(v.max(0)).ok())
            .ok_or_else(|| self.bad(rel, format!("expected a number, found {text:?}")))
    }

    /// The file read by `parse`, or `None` when it does not exist.
    fn parsed<T>(
        &self,
        rel: &str,
        parse: fn(&Self, &str, &str) -> Result<T, TopologyError>,
    ) -> Result<Option<T>, TopologyError> {
        self.optional(rel)?
            .map(|t| parse(self, rel, &t))
            .transpose()
    }

    /// Names of the entries of a directory that start with `prefix`, sorted.
    fn entries(&self, rel: &str, prefix: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.join(rel))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with(prefix))
            .collect();
        names.sort();
        names
    }
}

pub(super) fn read_from(src: &SysfsTree) -> Result<Topology, TopologyError> {
    let online_rel = format!("{CPU_DIR}/online");
    let online_cpus = src.list(&online_rel, &src.required(&online_rel)?)?;
    if online_cpus.is_empty() {
        return Err(src.bad(&online_rel, "no online CPUs"));
    }
    let mut t = Topology {
        online_cpus,
        ..Topology::default()
    };
    read_nodes(src, &mut t)?;
    let llc_sets = read_cpus(src, &mut t)?;
    t.llcs = group_llcs(&mut t.cpus, llc_sets);
    read_allowed(src, &mut t)?;
    Ok(t)
}

/// An LLC's sharing set and cache level (0 for a stand-in).
type LlcSet = (CpuList, u32);

/// Each online CPU's place (node, package, core, SMT siblings) into `t.cpus`, and the sharing
/// set of its last-level cache.
fn read_cpus(src: &SysfsTree, t: &mut Topology) -> Result<Vec<LlcSet>, TopologyError> {
    let node_of: BTreeMap<u32, u32> = (t.nodes.iter())
        .flat_map(|n| n.cpus.iter().map(move |c| (c, n.id)))
        .collect();
    let mut llc_sets = Vec::new();
    let (mut missing_topology, mut missing_cache) = (CpuList::new(), CpuList::new());
    for id in t.online_cpus.iter() {
        let dir = format!("{CPU_DIR}/cpu{id}");
        let file = |name: &str| format!("{dir}/topology/{name}");
        let package = src.parsed(&file("physical_package_id"), SysfsTree::number)?;
        let core = src.parsed(&file("core_id"), SysfsTree::number)?;
        let siblings = src.parsed(&file("thread_siblings_list"), SysfsTree::list)?;
        if package.is_none() || core.is_none() || siblings.is_none() {
            missing_topology.insert(id);
        }
        let siblings = (siblings.map(|s| s.intersection(&t.online_cpus)))
            .filter(|s| s.contains(id))
            .unwrap_or_else(|| [id].into_iter().collect());
        let node = node_of.get(&id).copied().unwrap_or_else(|| {
            let first = t.nodes[0].id;
            let note = format!("CPU {id} is in no node's cpulist: taken as node {first}");
            t.notes.push(note);
            first
        });
        llc_sets.push(match read_llc(src, &dir)? {
            Some((set, level)) => (set.intersection(&t.online_cpus), level),
            None => {
                missing_cache.insert(id);
                (CpuList::new(), 0)
            }
        });
        t.cpus.push(Cpu {
            id,
            node,
            package: package.unwrap_or(0),
            core: core.unwrap_or(id),
            siblings,
            llc: 0,
        });
    }
    if !missing_topology.is_empty() {
        t.notes.push(format!(
            "no topology/ files for CPUs {missing_topology}: package 0, core = CPU id, no SMT siblings assumed"
        ));
    }
    if !missing_cache.is_empty() {
        t.notes.push(format!(
            "no cache information for CPUs {missing_cache}: their package stands in for the last-level cache"
        ));
        for (i, cpu) in t.cpus.iter().enumerate() {
            if llc_sets[i].0.is_empty() {
                let group = (t.cpus.iter().zip(&llc_sets))
                    .filter(|(c, (s, _))| c.package == cpu.package && s.is_empty())
                    .map(|(c, _)| c.id)
                    .collect();
                llc_sets[i] = (group, 0);
            }
        }
    }
    Ok(llc_sets)
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
fn read_allowed(src: &SysfsTree, t: &mut Topology) -> Result<(), TopologyError> {
    let status = src.optional(STATUS)?;
    // A `Key:\tvalue` line of `/proc/self/status`, parsed as a list.
    let status_list = |key: &str| {
        let mut lines = status.iter().flat_map(|s| s.lines());
        let value = lines.find_map(|line| line.strip_prefix(key)?.strip_prefix(':'));
        value.map(|v| src.list(STATUS, v)).transpose()
    };
    let allowed = if src.live {
        super::allowed_cpus().map_err(|e| format!("sched_getaffinity failed ({e})"))
    } else {
        let list = status_list("Cpus_allowed_list")?;
        list.ok_or_else(|| "no Cpus_allowed_list in proc/self/status".to_string())
    };
    let allowed = allowed.unwrap_or_else(|what| {
        t.notes
            .push(format!("{what}: all online CPUs taken as allowed"));
        t.online_cpus.clone()
    });
    t.allowed_cpus = allowed.intersection(&t.online_cpus);
    let memory_nodes: CpuList = (t.nodes.iter().filter(|n| n.has_memory))
        .map(|n| n.id)
        .collect();
    t.allowed_mems = match status_list("Mems_allowed_list")? {
        Some(set) => set.intersection(&memory_nodes),
        None => {
            let note = "no Mems_allowed_list in proc/self/status: every node with memory taken as \
                        allowed";
            t.notes.push(note.into());
            memory_nodes
        }
    };
    Ok(())
}

/// The online nodes, their distances and the possible ones into `t`.
fn read_nodes(src: &SysfsTree, t: &mut Topology) -> Result<(), TopologyError> {
    if !src.root.join(NODE_DIR).is_dir() {
        t.notes.push(format!(
            "no {NODE_DIR}: this kernel has no NUMA support, so all CPUs are taken as node 0"
        ));
        let cpus = t.online_cpus.clone();
        t.nodes = vec![Node {
            id: 0,
            cpus,
            has_memory: true,
            has_cpu: true,
        }];
        (t.distances, t.possible_nodes) = (vec![vec![10]], [0].into_iter().collect());
        return Ok(());
    }
    let online_rel = format!("{NODE_DIR}/online");
    let online_nodes = match src.parsed(&online_rel, SysfsTree::list)? {
        Some(set) => set,
        None => {
            let found: CpuList = (src.entries(NODE_DIR, "node").iter())
                .filter_map(|n| n.strip_prefix("node")?.parse().ok())
                .collect();
            t.notes.push(format!(
                "no {online_rel}: nodes {found} found by listing the directory"
            ));
            found
        }
    };
    if online_nodes.is_empty() {
        return Err(src.bad(&online_rel, "no online nodes"));
    }
    let set = |name: &str| src.parsed(&format!("{NODE_DIR}/{name}"), SysfsTree::list);
    t.possible_nodes = set("possible")?.unwrap_or_else(|| online_nodes.clone());
    let (has_memory, has_cpu) = (set("has_memory")?, set("has_cpu")?);
    if has_memory.is_none() {
        t.notes.push(format!(
            "no {NODE_DIR}/has_memory: every online node taken to have memory"
        ));
    }
    for id in online_nodes.iter() {
        let rel = format!("{NODE_DIR}/node{id}/cpulist");
        let cpus = src.list(&rel, &src.required(&rel)?)?;
        let cpus = cpus.intersection(&t.online_cpus);
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
        t.nodes.push(Node {
            id,
            has_memory: has_memory.as_ref().is_none_or(|m| m.contains(id)),
            has_cpu: has_cpu
                .as_ref()
                .map_or(!cpus.is_empty(), |c| c.contains(id)),
            cpus,
        });
        t.distances.push(row);
    }
    Ok(())
}

/// The highest-level data or unified cache of one CPU.
fn read_llc(src: &SysfsTree, cpu_dir: &str) -> Result<Option<LlcSet>, TopologyError> {
    let cache = format!("{cpu_dir}/cache");
    let mut best: Option<LlcSet> = None;
    for index in src.entries(&cache, "index") {
        let file = |name: &str| format!("{cache}/{index}/{name}");
        let Some(kind) = src.optional(&file("type"))? else {
            continue;
        };
        if !matches!(kind.trim(), "Unified" | "Data") {
            continue;
        }
        let Some(level) = src.parsed(&file("level"), SysfsTree::number)? else {
            continue;
        };
        let Some(shared) = src.parsed(&file("shared_cpu_list"), SysfsTree::list)? else {
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
    let mut files = src.read.into_inner();
    files.retain(|(rel, _)| rel != Path::new(STATUS));
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
