#!/bin/sh
# Regenerates results/published/ (gallery.html, gallery.md, gallery.json):
# the gallery of the published core-to-core-latency matrices kept as
# fixtures in tests/fixtures/c2c. tests/gallery.rs fails when it is stale.
#
#   scripts/published-gallery.sh          # from anywhere in the repository
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet
target/release/contend gallery tests/fixtures/c2c --out results/published >/dev/null
