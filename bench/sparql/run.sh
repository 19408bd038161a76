#!/usr/bin/env bash
# make bench-sparql: ldhub's SPARQL engine against Oxigraph 0.5.11 on the same 1M BSBM triples and the 14 queries
# of ../shared/bench, in one run. Prints a markdown table of per-query median ratios (ldhub / Oxigraph), the
# geometric mean, index build vs Oxigraph load throughput, resident memory, and whether the answers agree.
# Needs node and the reference packages (../shared/bench/setup.sh); data is generated once into $DATA_DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
shared="${SHARED_BENCH:-$root/../shared/bench}"
data_dir="${DATA_DIR:-/tmp}"
out="${OUT_DIR:-$root/build/bench-sparql}"
runs="${RUNS:-5}"
data="$data_dir/bsbm-1m.nt"
mkdir -p "$out"
[ -f "$data" ] || python3 "$shared/gen-data.py" 1000000 -o "$data"
go build -o "$out/sparql-bench" "$here"
echo "loadavg before: $(cat /proc/loadavg)"
/usr/bin/time -f '%e %U %S %M' -o "$out/build.time" "$out/sparql-bench" -build "$data" -index "$out/bsbm-1m.idx" > "$out/build.json"
"$out/sparql-bench" -index "$out/bsbm-1m.idx" -queries "$shared/queries" -runs "$runs" -warmup 1 -dump "$out/ours" > "$out/ours.json"
node "$shared/oxigraph-bench.mjs" "$data" --queries "$shared/queries" --runs "$runs" --warmup 1 \
  --dump-results "$out/oxigraph" --out "$out/oxigraph.json" > /dev/null
echo "loadavg after: $(cat /proc/loadavg)"
python3 "$here/summarise.py" "$out"
