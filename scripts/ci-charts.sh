#!/usr/bin/env bash
# Quick sweep for CI artifacts: builds the release binary, runs
# `contend sweep --quick`, and collects the charts (SVG), sweep.json,
# sweep.csv, the self-contained page report.html (verdict, tables, charts,
# placement proof, warnings, provenance) and a Markdown summary into ONE
# folder, OUT_DIR/artifact,
# whose path is the only line printed on stdout (progress goes to stderr).
#
#   scripts/ci-charts.sh [OUT_DIR]        # default target/ci-charts
#
# OUT_DIR/results (the sweep's own results root) and OUT_DIR/artifact are
# recreated on every call. Extra sweep options can be passed through
# CONTEND_SWEEP_ARGS (e.g. "--affinity unbound --level global,cpu").
# With GITHUB_STEP_SUMMARY set, the summary is appended to it as well.
# Exit status: 0 with every output present and non-empty; the sweep's own
# status (1, 2) when it fails; 1 when an output is missing or empty.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-target/ci-charts}
results="$out/results"
artifact="$out/artifact"
bin="${CARGO_TARGET_DIR:-target}/release/contend"

log() { echo "ci-charts: $*" >&2; }
die() {
    log "error: $*"
    exit 1
}

log "building release binary"
cargo build --release >&2

rm -rf "$results" "$artifact"
mkdir -p "$results" "$artifact"

log "contend sweep --quick --out $results ${CONTEND_SWEEP_ARGS:-}"
start=$(date +%s)
# shellcheck disable=SC2086 # CONTEND_SWEEP_ARGS is a list of options
"$bin" sweep --quick --out "$results" ${CONTEND_SWEEP_ARGS:-} >&2
log "sweep took $(($(date +%s) - start)) s"

# The sweep made exactly one folder: results/<host>/<UTC stamp>/.
json=$(find "$results" -name sweep.json -type f | head -n 1)
[ -n "$json" ] || die "no sweep.json under $results"
dir=$(dirname "$json")

for f in sweep.json sweep.csv sweep.md; do
    [ -s "$dir/$f" ] || die "$dir/$f is missing or empty"
    cp "$dir/$f" "$artifact/"
done
# A header and at least one row.
[ "$(wc -l <"$artifact/sweep.csv")" -ge 2 ] || die "sweep.csv has no rows"

svgs=0
for svg in "$dir"/*.svg; do
    [ -e "$svg" ] || continue
    [ -s "$svg" ] || die "$svg is empty"
    grep -q '<svg' "$svg" || die "$svg is not SVG"
    cp "$svg" "$artifact/"
    svgs=$((svgs + 1))
done
[ "$svgs" -gt 0 ] || die "no SVG chart in $dir"

# The one page to open: written by the sweep beside sweep.json.
page="$dir/report.html"
[ -s "$page" ] || die "$page is missing or empty"
grep -q 'data-section="verdict"' "$page" || die "$page has no verdict section"
cp "$page" "$artifact/"

# The summary: the sweep's tables (with host and provenance), then every
# chart.
{
    echo "# contend sweep --quick"
    echo
    echo "Results folder: \`$(basename "$(dirname "$dir")")/$(basename "$dir")\`."
    echo
    echo "Open [report.html](report.html) for everything on one page."
    echo
    cat "$artifact/sweep.md"
    echo
    echo "## Charts"
    echo
    for svg in "$artifact"/*.svg; do
        name=$(basename "$svg")
        echo "- [$name]($name)"
    done
} >"$artifact/summary.md"
[ -s "$artifact/summary.md" ] || die "summary.md is empty"

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$artifact/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi

log "$svgs charts, report.html, sweep.json, sweep.csv, sweep.md and summary.md in $artifact"
echo "$artifact"
