#!/usr/bin/env bash
# Boot a throw-away multi-node NUMA guest under QEMU (TCG) and run one command in it.
#
#   scripts/numa-vm.sh [--nodes N] [--cpus-per-node C | --cpus-per-node 2,2,0]
#                      [--dies-per-node D] [--cpu MODEL]
#                      [--mem-per-node MiB] [--distances "10,21;21,10"]
#                      [--timeout SECONDS] [--boot-timeout SECONDS] [--binary PATH]
#                      [--file HOST:GUEST]... [--verbose] -- COMMAND [ARGS...]
#
# --dies-per-node D splits each node's socket into D dies of C/D cores; the guest shows
# one L3 (LLC) per die only with an Intel vendor (--cpu max,vendor=GenuineIntel, default
# --cpu max): AMD models under TCG lack topoext and get one L3 per socket.
#
# The guest is a Debian kernel plus a busybox initramfs holding the contend binary at
# /bin/contend. COMMAND's stdout and stderr (merged, they share the serial console) are
# streamed to this script's stdout, and the script exits with COMMAND's exit status.
# A guest that has not reached its init within --boot-timeout (default 180 s; a boot
# takes about 7 s here) is stopped and booted once more, said on stderr: a TCG boot
# once hung with no output for 900 s. --timeout bounds each boot, the command included.
# Exit 124: the timeout expired. Exit 125: the guest never reported an exit status
# (boot failure, kernel panic, bad QEMU arguments); the console tail goes to stderr.
# Exit 2: usage or host setup error. See scripts/README.md.
set -euo pipefail

die() { echo "numa-vm.sh: $*" >&2; exit 2; }
usage() { sed -n '2,22s/^# \{0,1\}//p' "$0" >&2; exit 2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CONTEND_VM_CACHE:-$ROOT/.vm-cache}"

nodes=2
cpus_spec=1
dies_per_node=1
cpu_model=max
mem_per_node=256
distances=""
timeout_s=300
boot_timeout_s=180
binary="$ROOT/target/release/contend"
verbose=0
files=()

while [[ $# -gt 0 ]]; do
    case "$1" in
        --nodes) nodes="${2:?--nodes needs a value}"; shift 2 ;;
        --cpus-per-node) cpus_spec="${2:?--cpus-per-node needs a value}"; shift 2 ;;
        --dies-per-node) dies_per_node="${2:?--dies-per-node needs a value}"; shift 2 ;;
        --cpu) cpu_model="${2:?--cpu needs a value}"; shift 2 ;;
        --mem-per-node) mem_per_node="${2:?--mem-per-node needs a value}"; shift 2 ;;
        --distances) distances="${2:?--distances needs a value}"; shift 2 ;;
        --timeout) timeout_s="${2:?--timeout needs a value}"; shift 2 ;;
        --boot-timeout) boot_timeout_s="${2:?--boot-timeout needs a value}"; shift 2 ;;
        --binary) binary="${2:?--binary needs a value}"; shift 2 ;;
        --file) files+=("${2:?--file needs HOST:GUEST}"); shift 2 ;;
        --verbose|-v) verbose=1; shift ;;
        -h|--help) usage ;;
        --) shift; break ;;
        *) die "unknown option '$1' (the command goes after --)" ;;
    esac
done
[[ $# -gt 0 ]] || die "no command given (usage: numa-vm.sh [options] -- COMMAND [ARGS...])"

is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
is_uint "$nodes" && (( nodes >= 1 && nodes <= 64 )) || die "--nodes must be 1..64"
is_uint "$mem_per_node" && (( mem_per_node >= 32 )) || die "--mem-per-node must be an integer >= 32 (MiB)"
is_uint "$timeout_s" && (( timeout_s >= 1 )) || die "--timeout must be a positive integer"
is_uint "$boot_timeout_s" && (( boot_timeout_s >= 1 )) || die "--boot-timeout must be a positive integer"
is_uint "$dies_per_node" && (( dies_per_node >= 1 )) || die "--dies-per-node must be a positive integer"
[[ "$cpu_model" =~ ^[A-Za-z0-9][A-Za-z0-9_.,=+-]*$ ]] || die "--cpu: bad CPU model '$cpu_model'"

# ---- topology -------------------------------------------------------------------------
IFS=',' read -r -a cpus <<< "$cpus_spec"
if [[ ${#cpus[@]} -eq 1 ]]; then
    c="${cpus[0]}"; cpus=(); for ((i = 0; i < nodes; i++)); do cpus+=("$c"); done
fi
[[ ${#cpus[@]} -eq $nodes ]] || die "--cpus-per-node lists ${#cpus[@]} values for $nodes nodes"
total_cpus=0
for c in "${cpus[@]}"; do
    is_uint "$c" || die "--cpus-per-node: '$c' is not a non-negative integer"
    total_cpus=$((total_cpus + c))
done
(( total_cpus >= 1 )) || die "at least one node needs CPUs"
(( total_cpus <= 64 )) || die "at most 64 CPUs"

# Layout of the sockets: one per node needs the same CPU count on every node with CPUs.
uniform=1; cpu_nodes=0; first=""
for c in "${cpus[@]}"; do
    (( c > 0 )) || continue
    cpu_nodes=$((cpu_nodes + 1))
    [[ -z "$first" ]] && first="$c"
    [[ "$c" == "$first" ]] || uniform=0
done
if (( dies_per_node > 1 )); then
    (( uniform )) || die "--dies-per-node needs the same CPU count on every node with CPUs"
    (( first % dies_per_node == 0 )) \
        || die "--dies-per-node $dies_per_node does not divide $first CPUs per node"
fi

# Linux (x86/ACPI) numbers the nodes that have CPUs first, in CPU order, and the
# memory-only nodes after them, whatever the QEMU node ids. Say so when that changes ids.
seen_memonly=0; renumbered=0
for c in "${cpus[@]}"; do
    if (( c == 0 )); then seen_memonly=1; elif (( seen_memonly )); then renumbered=1; fi
done
if (( renumbered )); then
    map=""; lid=0
    for ((k = 0; k < nodes; k++)); do (( cpus[k] > 0 )) && { map+=" $k->$lid"; lid=$((lid + 1)); }; done
    for ((k = 0; k < nodes; k++)); do (( cpus[k] == 0 )) && { map+=" $k->$lid"; lid=$((lid + 1)); }; done
    echo "numa-vm.sh: note: the guest kernel numbers memory-only nodes after the nodes with CPUs;" \
         "requested->guest node ids:$map (distances follow their nodes)." \
         "List memory-only nodes last to keep ids unchanged." >&2
fi

# Distance matrix: default 10 local, 21 remote.
declare -A dist
for ((i = 0; i < nodes; i++)); do
    for ((j = 0; j < nodes; j++)); do
        if (( i == j )); then dist[$i,$j]=10; else dist[$i,$j]=21; fi
    done
done
if [[ -n "$distances" ]]; then
    IFS=';' read -r -a rows <<< "$distances"
    [[ ${#rows[@]} -eq $nodes ]] || die "--distances has ${#rows[@]} rows for $nodes nodes"
    for ((i = 0; i < nodes; i++)); do
        IFS=',' read -r -a vals <<< "${rows[$i]// /}"
        [[ ${#vals[@]} -eq $nodes ]] || die "--distances row $i has ${#vals[@]} values, want $nodes"
        for ((j = 0; j < nodes; j++)); do
            v="${vals[$j]}"
            is_uint "$v" && (( v <= 255 )) || die "--distances: bad value '$v'"
            if (( i == j )); then
                (( v == 10 )) || die "--distances: local distance [$i][$i] must be 10 (QEMU/ACPI SLIT rule)"
            else
                (( v > 10 )) || die "--distances: remote distance [$i][$j]=$v must be > 10"
            fi
            dist[$i,$j]="$v"
        done
    done
fi

# ---- host tools ----------------------------------------------------------------------
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found; install it with: apt-get install -y $2"; }
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need busybox busybox-static
BUSYBOX="$(command -v busybox)"
[[ -x /bin/busybox ]] && BUSYBOX=/bin/busybox
if ldd "$BUSYBOX" >/dev/null 2>&1; then
    die "$BUSYBOX is dynamically linked; install the static one with: apt-get install -y busybox-static"
fi

[[ -f "$binary" ]] || die "binary '$binary' not found (build it with: cargo build --release, or pass --binary)"
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

# ---- kernel (cached) ----------------------------------------------------------------
fetch_kernel() {
    local kdir="$CACHE/kernel"
    if [[ -n "${CONTEND_VM_KERNEL:-}" ]]; then KERNEL="$CONTEND_VM_KERNEL"; return; fi
    KERNEL="$kdir/vmlinuz"
    [[ -s "$KERNEL" ]] && return
    mkdir -p "$kdir"
    exec 9>"$CACHE/.kernel.lock"
    flock 9
    if [[ -s "$KERNEL" ]]; then exec 9>&-; return; fi      # another run fetched it meanwhile
    command -v apt-get >/dev/null && command -v dpkg >/dev/null \
        || die "no cached kernel and no apt-get/dpkg to fetch one (set CONTEND_VM_KERNEL=/path/to/vmlinuz)"
    if ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
        echo "numa-vm.sh: apt lists empty, running apt-get update" >&2
        apt-get update -qq >&2 || die "apt-get update failed"
    fi
    local pkg
    pkg="$(apt-cache depends linux-image-amd64 2>/dev/null \
           | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9].*-amd64$/ { print $2; exit }')"
    if [[ -z "$pkg" ]]; then
        pkg="$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' \
               | awk '{print $1}' | sort -V | tail -n 1)"
    fi
    [[ -n "$pkg" ]] || die "could not find a linux-image-*-amd64 package via apt-cache"
    echo "numa-vm.sh: downloading kernel package $pkg" >&2
    local debs="$CACHE/debs" x
    mkdir -p "$debs"
    chmod 755 "$CACHE" "$debs" 2>/dev/null || true
    (cd "$debs" && apt-get download -q "$pkg" >&2 2>/dev/null) \
        || (cd "$debs" && apt-get download "$pkg" >&2) || die "apt-get download $pkg failed"
    local deb
    deb="$(ls -t "$debs/${pkg}"_*.deb | head -n 1)"
    x="$(mktemp -d "$CACHE/extract.XXXXXX")"
    dpkg -x "$deb" "$x"
    local vml
    vml="$(ls "$x"/boot/vmlinuz-* | head -n 1)"
    [[ -f "$vml" ]] || die "no boot/vmlinuz-* in $deb"
    cp "$vml" "$KERNEL.tmp" && mv "$KERNEL.tmp" "$KERNEL"
    { echo "package=$pkg"; echo "deb=$(basename "$deb")"; echo "vmlinuz=$(basename "$vml")"; } > "$kdir/VERSION"
    rm -rf "$x"
    exec 9>&-
}
mkdir -p "$CACHE"
fetch_kernel
[[ -s "$KERNEL" ]] || die "kernel '$KERNEL' missing"

# ---- initramfs ------------------------------------------------------------------------
WORK="$(mktemp -d "${TMPDIR:-/tmp}/numa-vm.XXXXXX")"
QEMU_PID=""
cleanup() {
    if [[ -n "$QEMU_PID" ]]; then kill "$QEMU_PID" 2>/dev/null || true; wait "$QEMU_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

R="$WORK/root"
mkdir -p "$R"/{bin,sbin,etc,proc,sys,dev,tmp,root,run,usr/bin,usr/sbin}
cp "$BUSYBOX" "$R/bin/busybox"
for applet in $("$BUSYBOX" --list); do
    [[ -e "$R/bin/$applet" ]] || ln -s busybox "$R/bin/$applet"
done
cp "$binary" "$R/bin/contend"
chmod 755 "$R/bin/contend"

# Shared libraries of the binary (and the dynamic loader), at the paths ldd reports.
copy_libs() {
    local exe="$1" out lib
    out="$(ldd "$exe" 2>&1)" || return 0        # static binary: "not a dynamic executable"
    if grep -q 'not found' <<< "$out"; then die "ldd $exe: $(grep 'not found' <<< "$out" | head -n 3)"; fi
    while read -r lib; do
        [[ -n "$lib" && -e "$lib" ]] || continue
        mkdir -p "$R$(dirname "$lib")"
        [[ -e "$R$lib" ]] || cp -L "$lib" "$R$lib"
    done < <(awk '/=>/ { if ($3 ~ /^\//) print $3; next } $1 ~ /^\// { print $1 }' <<< "$out")
}
copy_libs "$binary"

for spec in "${files[@]+"${files[@]}"}"; do
    [[ "$spec" == *:* ]] || die "--file '$spec': want HOST_PATH:GUEST_PATH"
    host="${spec%:*}"; guest="${spec##*:}"
    [[ -e "$host" ]] || die "--file: '$host' does not exist"
    [[ "$guest" == /* ]] || die "--file: guest path '$guest' must be absolute"
    if [[ -d "$host" ]]; then
        mkdir -p "$R$guest"; cp -a "$host"/. "$R$guest"/
    else
        mkdir -p "$R$(dirname "$guest")"; cp -a "$host" "$R$guest"
    fi
    # Executables shipped this way also get their libraries.
    while IFS= read -r -d '' f; do
        if head -c 4 "$f" 2>/dev/null | grep -q $'^\x7fELF'; then copy_libs "$f"; fi
    done < <(find "$host" -type f -perm -u+x -print0)
done

# The command, quoted for /bin/sh: every argument in single quotes.
sq() { local s="${1//\'/\'\\\'\'}"; printf "'%s'" "$s"; }
{
    echo '#!/bin/sh'
    echo 'cd /'
    line=""
    for a in "$@"; do line+="$(sq "$a") "; done
    echo "$line"
} > "$R/cmd.sh"
chmod 755 "$R/cmd.sh"

NONCE="$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
START_MARK="CONTEND_VM_START_$NONCE"
EXIT_MARK="CONTEND_VM_EXIT_$NONCE="
cat > "$R/init" <<EOF
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec </dev/console >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
echo 0 > /proc/sys/kernel/numa_balancing 2>/dev/null
echo 1 > /proc/sys/kernel/printk 2>/dev/null
echo $START_MARK
/bin/sh /cmd.sh </dev/null
rc=\$?
echo
echo "$EXIT_MARK\$rc"
sync
poweroff -f
EOF
chmod 755 "$R/init"

(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) > "$WORK/initrd.cpio"

# ---- QEMU -------------------------------------------------------------------------------
qemu=(qemu-system-x86_64 -accel "tcg,thread=multi" -cpu "$cpu_model"
      -nographic -no-reboot -nic none
      -m "$((mem_per_node * nodes))M")
# One socket per node (of --dies-per-node dies) when every CPU-bearing node has the same
# CPU count, otherwise one socket per CPU, so no socket (and no shared LLC) ever
# straddles two nodes.
if (( dies_per_node > 1 )); then
    qemu+=(-smp "$total_cpus,sockets=$cpu_nodes,dies=$dies_per_node,cores=$((first / dies_per_node)),threads=1")
elif (( uniform )); then
    qemu+=(-smp "$total_cpus,sockets=$cpu_nodes,cores=$first,threads=1")
else
    qemu+=(-smp "$total_cpus,sockets=$total_cpus,cores=1,threads=1")
fi
next_cpu=0
for ((k = 0; k < nodes; k++)); do
    qemu+=(-object "memory-backend-ram,id=m$k,size=${mem_per_node}M")
    c="${cpus[$k]}"
    if (( c > 0 )); then
        qemu+=(-numa "node,nodeid=$k,cpus=$next_cpu-$((next_cpu + c - 1)),memdev=m$k")
        next_cpu=$((next_cpu + c))
    else
        qemu+=(-numa "node,nodeid=$k,memdev=m$k")
    fi
done
for ((i = 0; i < nodes; i++)); do
    for ((j = 0; j < nodes; j++)); do
        (( i == j )) || qemu+=(-numa "dist,src=$i,dst=$j,val=${dist[$i,$j]}")
    done
done
# tsc=reliable: under TCG every vCPU reads the host's TSC, so the guest's TSC is
# synchronized and keeps the host's time however starved the vCPUs are. Without it the
# guest marks the TSC unstable (at boot with a non-Intel vendor; with an Intel one, its
# clocksource watchdog does once the host is loaded) and falls back to the HPET: every
# clock read then exits to QEMU under its global lock, and the 32-bit counter wraps
# every 43 s, so the guest's clock, which the budgets and the watchdog count, is no
# longer one to bound a boot with.
qemu+=(-kernel "$KERNEL" -initrd "$WORK/initrd.cpio"
       -append "console=ttyS0 panic=-1 quiet loglevel=3 numa_balancing=disable tsc=reliable")

(( verbose )) && echo "numa-vm.sh: ${qemu[*]}" >&2

LOG="$WORK/console.log"
RCFILE="$WORK/rc"
STARTED="$WORK/started"
# Filter: nothing before the start marker (kernel/QEMU noise, kept in the log), the
# command's output verbatim after it, stop at the exit marker and record the status.
# init prints one newline before the exit marker (in case the output lacked a final
# newline); an empty line is therefore held back and dropped if the marker follows it.
filter() {
    local started=0 pending=0 line
    while IFS= read -r line || [[ -n "$line" ]]; do
        line="${line%$'\r'}"
        printf '%s\n' "$line" >> "$LOG"
        if (( started == 0 )); then
            if [[ "$line" == *"$START_MARK"* ]]; then started=1; : > "$STARTED"
            elif (( verbose )); then printf '%s\n' "$line" >&2
            fi
        elif (( started == 1 )); then
            if [[ "$line" == *"$EXIT_MARK"* ]]; then
                local pre="${line%%"$EXIT_MARK"*}" rc="${line##*"$EXIT_MARK"}"
                if [[ -n "$pre" ]]; then
                    (( pending )) && printf '\n'
                    printf '%s\n' "$pre"
                fi
                [[ "$rc" =~ ^[0-9]+$ ]] && echo "$rc" > "$RCFILE"
                started=2
            elif [[ "$line" =~ ^\[\ *[0-9]+\.[0-9]{6}\]\  || "$line" == qemu-system-x86_64:* ]]; then
                printf '%s\n' "$line" >&2             # kernel/QEMU message, not the command's
            elif [[ -z "$line" ]]; then
                (( pending )) && printf '\n'
                pending=1
            else
                (( pending )) && printf '\n'
                pending=0
                printf '%s\n' "$line"
            fi
        elif (( verbose )); then
            printf '%s\n' "$line" >&2
        fi
    done
    return 0
}

# QEMU and the filter run in the background so that a signal to this script is handled
# at once (the EXIT trap stops QEMU) rather than after the guest finishes. Returns
# QEMU's exit status, or 3 when the guest did not reach init within --boot-timeout
# (QEMU stopped).
boot() {
    rm -f "$WORK/console" "$STARTED" "$RCFILE"
    : > "$LOG"
    mkfifo "$WORK/console"
    timeout -k 10 "$timeout_s" "${qemu[@]}" </dev/null >"$WORK/console" 2>&1 &
    QEMU_PID=$!
    filter <"$WORK/console" &
    local filter_pid=$! waited=0 status=0
    while [[ ! -e "$STARTED" ]] && kill -0 "$QEMU_PID" 2>/dev/null; do
        if (( waited >= boot_timeout_s )); then
            kill "$QEMU_PID" 2>/dev/null || true
            wait "$QEMU_PID" 2>/dev/null || true
            QEMU_PID=""
            wait "$filter_pid" || true
            return 3
        fi
        sleep 1
        waited=$((waited + 1))
    done
    wait "$QEMU_PID" || status=$?
    QEMU_PID=""
    wait "$filter_pid" || true
    return "$status"
}

qstatus=0
boot || qstatus=$?
if (( qstatus == 3 )); then
    echo "numa-vm.sh: the guest did not reach init within ${boot_timeout_s}s; last console lines:" >&2
    tail -n 10 "$LOG" >&2 || true
    echo "numa-vm.sh: booting it once more" >&2
    qstatus=0
    boot || qstatus=$?
    if (( qstatus == 3 )); then
        echo "numa-vm.sh: the guest did not reach init within ${boot_timeout_s}s, twice; last console lines:" >&2
        tail -n 30 "$LOG" >&2 || true
        exit 125
    fi
fi

if [[ -s "$RCFILE" ]]; then
    exit "$(cat "$RCFILE")"
fi
if [[ "$qstatus" == 124 || "$qstatus" == 137 ]]; then
    echo "numa-vm.sh: timed out after ${timeout_s}s; last console lines:" >&2
    tail -n 30 "$LOG" >&2 || true
    exit 124
fi
echo "numa-vm.sh: guest did not report an exit status (qemu exit $qstatus); last console lines:" >&2
tail -n 40 "$LOG" >&2 || true
exit 125
