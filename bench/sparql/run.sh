#!/usr/bin/env bash
# make bench-sparql: ldhub's SPARQL engine against Oxigraph 0.5.11 on the same 1M BSBM triples and the 14 queries
# of ../shared/bench, in one run. Prints a markdown table of per-query median ratios (ldhub / Oxigraph), the
# geometric mean, index build vs Oxigraph load throughput, resident memory, and whether the answers agree.
# Needs node and the reference packages (../shared/bench/setup.sh); data is generated once into $DATA_DIR.
#
# QUERIES (default ../shared/bench/queries) is the folder of .rq files; `make bench-sparql-broad` runs
# bench/queries-broad, our own 46 queries over every SPARQL 1.1 feature and function family.
#
# BUILDS (default 3) fresh processes build the index; the table uses their median, since one process on the shared
# machine can wait on the others for seconds. ONLY_BUILD=1 compares the build with Oxigraph's load alone (no
# queries): Oxigraph loads once, between ldhub's builds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
shared="${SHARED_BENCH:-$root/../shared/bench}"
data_dir="${DATA_DIR:-/tmp}"
out="${OUT_DIR:-$root/build/bench-sparql}"
runs="${RUNS:-5}"
builds="${BUILDS:-3}"
only_build="${ONLY_BUILD:-0}"
query_dir="${QUERIES:-$shared/queries}"
data="$data_dir/bsbm-1m.nt"
mkdir -p "$out"
rm -f "$out"/build-*.json "$out"/build-*.time
[ -f "$data" ] || python3 "$shared/gen-data.py" 1000000 -o "$data"
go build -o "$out/sparql-bench" "$here"
echo "loadavg before: $(cat /proc/loadavg)"
build() {
  /usr/bin/time -f '%e %U %S %M' -o "$out/build-$1.time" "$out/sparql-bench" -build "$data" -index "$out/bsbm-1m.idx" > "$out/build-$1.json"
}
half=$(( (builds + 1) / 2 ))
for i in $(seq 1 "$half"); do build "$i"; done
queries=("--queries" "$query_dir" "--runs" "$runs" "--warmup" "1" "--dump-results" "$out/oxigraph")
[ "$only_build" = 1 ] && queries=("--only" "^$")
node "$shared/oxigraph-bench.mjs" "$data" "${queries[@]}" --out "$out/oxigraph.json" > /dev/null
for i in $(seq $(( half + 1 )) "$builds"); do build "$i"; done
if [ "$only_build" != 1 ]; then
  "$out/sparql-bench" -index "$out/bsbm-1m.idx" -queries "$query_dir" -runs "$runs" -warmup 1 -dump "$out/ours" > "$out/ours.json"
fi
echo "loadavg after: $(cat /proc/loadavg)"
python3 "$here/summarise.py" "$out"
