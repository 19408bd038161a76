#!/bin/sh
# Generates the two 1 M-triple versions that BenchmarkDelta1M diffs, into DIR (default /tmp/ldhub-delta-bench):
#   a.nt   BSBM data (gen-data.py, seed 42) with blank nodes renamed to IRIs: version 1, ground
#   b.nt   version 2, ground: every 100th triple replaced by a changed one (1% removed + 1% added), lines shuffled
#   ab.nt  version 1 with its blank nodes
#   bb.nt  version 2 with blank nodes: same changes and shuffle, blank labels renamed (_:bN -> _:nN)
# The shuffle and the relabelling make version 2 a re-serialisation, as another writer would produce it.
# Usage: make-bench-data.sh [DIR] [N]   (GEN_DATA overrides the generator path)
set -eu
dir=${1:-/tmp/ldhub-delta-bench}
n=${2:-1000000}
here=$(cd "$(dirname "$0")" && pwd)
gen=${GEN_DATA:-$here/../../../../shared/bench/gen-data.py}
mkdir -p "$dir"
python3 "$gen" "$n" -o "$dir/ab.nt" >/dev/null
# 1% of the triples change: the object of every 100th line becomes a new literal.
awk '{ if (NR % 100 == 0) printf "%s <http://example.org/bsbm/vocabulary/deltaChanged> \"%d\" .\n", $1, NR; else print }' \
	"$dir/ab.nt" | sed 's/_:b\([0-9][0-9]*\)/_:n\1/g' |
	shuf --random-source="$dir/ab.nt" >"$dir/bb.nt"
sed 's/_:\([A-Za-z0-9_]*\)/<urn:ldhub:bnode:\1>/g' "$dir/ab.nt" >"$dir/a.nt"
# Version 2 ground: the same IRIs for the same nodes as version 1, so only the 1% differ.
sed 's/_:n\([0-9][0-9]*\)/<urn:ldhub:bnode:b\1>/g' "$dir/bb.nt" >"$dir/b.nt"
wc -l "$dir"/a.nt "$dir"/b.nt "$dir"/ab.nt "$dir"/bb.nt
