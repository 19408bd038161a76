#!/usr/bin/env bash
# make bench-sparql-store: ldhub's built-in engine, ldhub over an external Virtuoso 7 (sparqlsvc/remote) and
# Virtuoso queried directly, on the same BSBM-like data and the 14 queries of ../shared/bench, in one run. The
# program starts a private Virtuoso (Debian's virtuoso-opensource) in a temporary folder and loads the data as ldhub
# does (remote.LoadGraph: Graph Store PUT and POSTs). SIZE (default 1000000) triples are generated once into $DATA_DIR; RUNS (default 5) counted
# runs per query and engine; BUFFERS (default 150000 pages of 8 KiB) sizes Virtuoso's cache.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
shared="${SHARED_BENCH:-$root/../shared/bench}"
data_dir="${DATA_DIR:-/tmp}"
out="${OUT_DIR:-$root/build/bench-sparql-store}"
size="${SIZE:-1000000}"
case "$size" in *000000) tag="$((size / 1000000))m" ;; *000) tag="$((size / 1000))k" ;; *) tag="$size" ;; esac
data="$data_dir/bsbm-$tag.nt"
mkdir -p "$out"
[ -f "$data" ] || python3 "$shared/gen-data.py" "$size" -o "$data"
go build -o "$out/sparqlstore-bench" "$here"
echo "loadavg before: $(cat /proc/loadavg)"
"$out/sparqlstore-bench" -data "$data" -queries "${QUERIES:-$shared/queries}" -runs "${RUNS:-5}" \
  -buffers "${BUFFERS:-150000}" 2> "$out/log.txt" | tee "$out/table.md"
echo "loadavg after: $(cat /proc/loadavg)"
