#!/usr/bin/env bash
# Mutation testing of what changed: runs cargo-mutants on the Rust files
# under src/ that differ from a base revision, and prints the score per
# file and overall (caught / (caught + missed); unviable mutants do not
# count, timeouts are listed).
#
#   scripts/mutants.sh                 # files changed since origin/main (or HEAD~1)
#   scripts/mutants.sh BASE            # files changed since BASE
#   scripts/mutants.sh --file src/stats/summary.rs [--file …]
#   MUTANTS_TEST_ARGS="--lib" scripts/mutants.sh BASE   # only the unit tests (faster)
#   scripts/mutants.sh --iterate --file …   # only what the last run missed (scored alone)
#
# Each mutant rebuilds and runs the tests: about 8-25 s on 2 CPUs, so a
# file of 50 mutants takes 10-20 minutes. It is not part of .ci/run. Run it
# before resolving an issue that touches measuring or statistics code and
# put the score in the closing note. Mutants that cannot change behaviour
# are listed, one line each with the reason, in .cargo/mutants.toml.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo-mutants >/dev/null 2>&1; then
    echo "mutants.sh: cargo-mutants is not installed (cargo install cargo-mutants --locked)" >&2
    exit 2
fi

files=()
base=""
iterate=()
while [ $# -gt 0 ]; do
    case "$1" in
        --file) files+=("$2"); shift 2 ;;
        --iterate) iterate=(--iterate); shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) base="$1"; shift ;;
    esac
done

if [ ${#files[@]} -eq 0 ]; then
    if [ -z "$base" ]; then
        base=$(git rev-parse --verify -q origin/main || git rev-parse HEAD~1)
    fi
    mapfile -t files < <(git diff --name-only "$base" -- 'src/*.rs' | while read -r f; do
        [ -f "$f" ] && echo "$f"
    done)
fi
if [ ${#files[@]} -eq 0 ]; then
    echo "mutants.sh: no Rust file under src/ changed${base:+ since $base}"
    exit 0
fi

out=target/mutants-run
mkdir -p "$(dirname "$out")"
args=()
for f in "${files[@]}"; do args+=(--file "$f"); done
echo "mutants.sh: ${#files[@]} files: ${files[*]}"
# cargo-mutants exits non-zero when mutants are missed; the score says it.
cargo mutants --no-shuffle "${iterate[@]}" --output "$out" "${args[@]}" -- ${MUTANTS_TEST_ARGS:-} || true

outcomes="$out/mutants.out/outcomes.json"
if [ ! -f "$outcomes" ]; then
    echo "mutants.sh: no outcomes in $outcomes" >&2
    exit 1
fi
python3 - "$outcomes" <<'PY'
# outcomes.json as cargo-mutants 27.1 writes it: {"outcomes": [{"scenario":
# "Baseline" | {"Mutant": {"name", "file", "span": {"start": {"line"}}, …}},
# "summary": "Success" | "CaughtMutant" | "MissedMutant" | "Unviable" |
# "Timeout" | "Failure", …}, …], "caught": N, "missed": N, …}.
import json, sys, collections
data = json.load(open(sys.argv[1]))
per = collections.defaultdict(collections.Counter)
missed, timeouts = [], []
for o in data["outcomes"]:
    scenario = o.get("scenario")
    summary = o.get("summary", "?")
    if scenario == "Baseline":
        if summary != "Success":
            # Every mutant is "caught" when the unmutated tree already fails.
            print(f"mutants.sh: the unmutated tree's tests fail ({summary}): see "
                  f"{sys.argv[1].rsplit('/', 1)[0]}/{o.get('log_path', 'log')}", file=sys.stderr)
            sys.exit(1)
        continue
    if not isinstance(scenario, dict) or "Mutant" not in scenario:
        continue
    m = scenario["Mutant"]
    f = m.get("file", "?")
    per[f][summary] += 1
    # `name` already starts with file:line:column.
    name = m.get("name") or f"{f}:{m.get('span', {}).get('start', {}).get('line', '?')}: {m.get('replacement', '')}"
    if summary == "MissedMutant":
        missed.append(name)
    elif summary == "Timeout":
        timeouts.append(name)
if not per:
    print("mutants.sh: no mutants were tested (all excluded, or none generated)")
    sys.exit(0)
def score(c):
    viable = c["CaughtMutant"] + c["MissedMutant"]
    return f"{100.0 * c['CaughtMutant'] / viable:>6.1f}%" if viable else "    n/a"
total = collections.Counter()
print(f"{'file':<40} {'caught':>7} {'missed':>7} {'timeout':>8} {'unviable':>9} {'score':>7}")
for f in sorted(per):
    c = per[f]
    total.update(c)
    print(f"{f:<40} {c['CaughtMutant']:>7} {c['MissedMutant']:>7} {c['Timeout']:>8} {c['Unviable']:>9} {score(c)}")
print(f"{'all':<40} {total['CaughtMutant']:>7} {total['MissedMutant']:>7} {total['Timeout']:>8} {total['Unviable']:>9} {score(total)}")
for m in missed:
    print("missed:", m)
for m in timeouts:
    print("timeout:", m)
PY
