#!/usr/bin/env python3
"""Generate the sysfs topology fixtures under tests/fixtures/topology/.

Reads tests/fixtures/topology/specs.json and, for every fixture in it,
deletes tests/fixtures/topology/<name>/ and writes it again, so running this
twice gives the same tree. Run from anywhere:

    python3 scripts/gen-fixtures.py

Spec keys (per fixture; all cpulists in the kernel's `0-3,8` form):

  description    one line, copied into nothing (README.md lists fixtures).
  nodes          list of {"cpus": cpulist, "memory": bool (default true)};
                 node ids are the list indices. May be omitted when
                 "numa" is false.
  numa           false: write no sys/devices/system/node directory at all.
  packages       list of cpulists, one per physical package (socket).
                 Default: one package per node that has CPUs.
  smt_stride     S: CPU n and n+S, n+2S, ... are SMT siblings of one core
                 (the core's first thread is n mod S). Default: no SMT.
  cores_per_llc  K: each package's cores, in order of their first thread,
                 are grouped K at a time into one LLC (an AMD CCX).
                 Default: one LLC per package.
  online         cpulist of online CPUs. Default: every CPU of a package.
                 Offline CPUs get no cpu<N>/topology or cache directory and
                 are left out of every list.
  distances      a full matrix (rows = from node), or
                 {"local": L, "same_package": P, "remote": R}
                 (same_package defaults to remote).
  allowed_cpus   Cpus_allowed_list. Default: all online CPUs.
  allowed_mems   Mems_allowed_list. Default: every node with memory
                 ("0" without NUMA).

Files written (the ones src/topology/sysfs.rs reads), each ending in '\\n':
  sys/devices/system/cpu/online
  sys/devices/system/cpu/cpu<N>/topology/{physical_package_id,core_id,thread_siblings_list}
  sys/devices/system/cpu/cpu<N>/cache/index0..3/{level,type,shared_cpu_list}
      (index0 L1 Data, index1 L1 Instruction, index2 L2 Unified: the core's
       threads; index3 L3 Unified: the LLC group)
  sys/devices/system/node/{online,possible,has_memory,has_cpu}
  sys/devices/system/node/node<N>/{cpulist,distance}
  proc/self/status  (Cpus_allowed_list and Mems_allowed_list lines)
"""

import json
import os
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "topology")
SPECS = os.path.join(FIXTURES, "specs.json")


def parse_list(text):
    """Parses a kernel cpulist into a sorted list of ids."""
    out = set()
    text = text.strip()
    if not text:
        return []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    return sorted(out)


def format_list(ids):
    """Writes ids in the kernel's compact form: 0-3,8,10-11."""
    ids = sorted(set(ids))
    parts = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(parts)


class Fixture:
    def __init__(self, name, spec):
        self.name = name
        self.spec = spec
        self.numa = spec.get("numa", True)
        self.nodes = [
            {"cpus": parse_list(n.get("cpus", "")), "memory": n.get("memory", True)}
            for n in spec.get("nodes", [])
        ]
        if self.numa and not self.nodes:
            raise ValueError("%s: a NUMA fixture needs nodes" % name)
        if "packages" in spec:
            self.packages = [parse_list(p) for p in spec["packages"]]
        else:
            self.packages = [n["cpus"] for n in self.nodes if n["cpus"]]
        all_cpus = sorted(c for p in self.packages for c in p)
        if len(all_cpus) != len(set(all_cpus)):
            raise ValueError("%s: a CPU is in two packages" % name)
        self.all_cpus = all_cpus
        if self.numa:
            node_cpus = sorted(c for n in self.nodes for c in n["cpus"])
            if node_cpus != all_cpus:
                raise ValueError("%s: nodes and packages hold different CPUs" % name)
        self.online = (
            parse_list(spec["online"]) if "online" in spec else list(all_cpus)
        )
        if not set(self.online) <= set(all_cpus):
            raise ValueError("%s: online CPU outside every package" % name)
        self.stride = spec.get("smt_stride")
        self.cores_per_llc = spec.get("cores_per_llc")

    def package_of(self, cpu):
        for i, p in enumerate(self.packages):
            if cpu in p:
                return i
        raise ValueError("%s: CPU %d in no package" % (self.name, cpu))

    def core_leader(self, cpu):
        return cpu % self.stride if self.stride else cpu

    def threads(self, cpu):
        """Every CPU (online or not) of cpu's core."""
        lead = self.core_leader(cpu)
        return sorted(c for c in self.all_cpus if self.core_leader(c) == lead)

    def package_cores(self, pkg):
        """The core leaders of a package, ascending."""
        return sorted({self.core_leader(c) for c in self.packages[pkg]})

    def core_id(self, cpu):
        return self.package_cores(self.package_of(cpu)).index(self.core_leader(cpu))

    def llc(self, cpu):
        """Every CPU of cpu's LLC group."""
        pkg = self.package_of(cpu)
        if not self.cores_per_llc:
            return list(self.packages[pkg])
        k = self.cores_per_llc
        group = self.core_id(cpu) // k
        leaders = set(self.package_cores(pkg)[group * k:(group + 1) * k])
        return sorted(c for c in self.packages[pkg] if self.core_leader(c) in leaders)

    def distances(self):
        d = self.spec["distances"]
        n = len(self.nodes)
        if isinstance(d, list):
            if len(d) != n or any(len(row) != n for row in d):
                raise ValueError("%s: distance matrix is not %dx%d" % (self.name, n, n))
            return d
        node_pkg = [
            self.package_of(node["cpus"][0]) if node["cpus"] else None
            for node in self.nodes
        ]
        out = []
        for i in range(n):
            row = []
            for j in range(n):
                if i == j:
                    row.append(d["local"])
                elif node_pkg[i] is not None and node_pkg[i] == node_pkg[j]:
                    row.append(d.get("same_package", d["remote"]))
                else:
                    row.append(d["remote"])
            out.append(row)
        return out

    def files(self):
        """{relative path: text} for the whole tree."""
        online = set(self.online)
        ol = lambda ids: format_list(c for c in ids if c in online)
        files = {}
        cpu_dir = "sys/devices/system/cpu"
        files[cpu_dir + "/online"] = format_list(self.online)
        for cpu in self.online:
            base = "%s/cpu%d" % (cpu_dir, cpu)
            siblings = ol(self.threads(cpu))
            files[base + "/topology/physical_package_id"] = str(self.package_of(cpu))
            files[base + "/topology/core_id"] = str(self.core_id(cpu))
            files[base + "/topology/thread_siblings_list"] = siblings
            caches = [
                (1, "Data", siblings),
                (1, "Instruction", siblings),
                (2, "Unified", siblings),
                (3, "Unified", ol(self.llc(cpu))),
            ]
            for index, (level, kind, shared) in enumerate(caches):
                cdir = "%s/cache/index%d" % (base, index)
                files[cdir + "/level"] = str(level)
                files[cdir + "/type"] = kind
                files[cdir + "/shared_cpu_list"] = shared
        if self.numa:
            node_dir = "sys/devices/system/node"
            ids = list(range(len(self.nodes)))
            files[node_dir + "/online"] = format_list(ids)
            files[node_dir + "/possible"] = format_list(ids)
            files[node_dir + "/has_memory"] = format_list(
                i for i in ids if self.nodes[i]["memory"]
            )
            files[node_dir + "/has_cpu"] = format_list(
                i for i in ids if any(c in online for c in self.nodes[i]["cpus"])
            )
            for i, row in zip(ids, self.distances()):
                files["%s/node%d/cpulist" % (node_dir, i)] = ol(self.nodes[i]["cpus"])
                files["%s/node%d/distance" % (node_dir, i)] = " ".join(map(str, row))
            default_mems = format_list(i for i in ids if self.nodes[i]["memory"])
        else:
            default_mems = "0"
        allowed_cpus = self.spec.get("allowed_cpus", format_list(self.online))
        allowed_mems = self.spec.get("allowed_mems", default_mems)
        files["proc/self/status"] = (
            "Name:\tcontend\nCpus_allowed_list:\t%s\nMems_allowed_list:\t%s"
            % (allowed_cpus, allowed_mems)
        )
        return files


def main():
    with open(SPECS) as f:
        specs = json.load(f)
    total = 0
    for name, spec in specs.items():
        if name.startswith("_"):
            continue
        if not name or "/" in name or name.startswith("."):
            raise ValueError("bad fixture name %r" % name)
        files = Fixture(name, spec).files()
        root = os.path.join(FIXTURES, name)
        if os.path.isdir(root):
            shutil.rmtree(root)
        for rel, text in sorted(files.items()):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as out:
                out.write(text + "\n")
        print("%-24s %5d files" % (name, len(files)))
        total += len(files)
    print("%-24s %5d files" % ("total", total))


if __name__ == "__main__":
    sys.exit(main())
