#!/usr/bin/env bash
# make bench-sparql: ldhub's SPARQL engine against the anchors on the same 1M BSBM triples and the 14 queries of
# ../shared/bench, in one run. Prints a markdown table of per-query median ratios (ldhub / anchor), the geometric
# means, index build vs each anchor's load, resident memory, and whether the answers agree row by row.
# Data is generated once into $DATA_DIR (SIZE triples, default 1000000).
#
# ANCHORS (default "oxigraph jena virtuoso") chooses the anchors:
#   oxigraph  Oxigraph 0.5.11 (WASM, in node, in-memory store) through ../shared/bench/oxigraph-bench.mjs; needs
#             node and the reference packages (../shared/bench/setup.sh).
#   jena      Apache Jena TDB2 4.5.0 (Debian libapache-jena-java, OpenJDK 17): bulk load with tdb2.tdbloader (its
#             default loader, fresh JVM, timed), then the queries through Jena's Java API from one JVM
#             (jena/JenaBench.java, compiled here with javac). See jena/classpath.sh for why the class path is
#             listed rather than '/usr/share/java/*'. JENA_QUERY_BUDGET_MS (default 60000): a query is not
#             repeated once its runs add up to this.
#   virtuoso  OpenLink Virtuoso Open Source 7.2 (Debian virtuoso-opensource): a private server in $OUT_DIR
#             (sparqlsvc/remote/virtuosotest; VIRTUOSO_BUFFERS pages of 8 KiB, default 150000), bulk-loaded the documented
#             way (ld_dir + rdf_loader_run + checkpoint, timed with the server's CPU time and peak RSS), then every
#             query sent to its SPARQL endpoint as an HTTP form POST with the graph as default-graph-uri (JSON
#             results, N-Triples for CONSTRUCT/DESCRIBE), as its users reach it. CPU time per query is the server
#             process's. VIRTUOSO_QUERY_BUDGET_MS (default 60000) as for Jena. VIRTUOSO_QUERY_TIMEOUT_MS (default
#             300000, the limit ldhub's runs have) is passed as the endpoint's timeout parameter: a query that
#             reaches it is reported as timed out and not repeated.
#
# QUERIES (default ../shared/bench/queries) is the folder of .rq files; `make bench-sparql-broad` runs
# bench/queries-broad, our own 70 queries over every SPARQL 1.1 feature and function family. Several folders
# separated by ':' run as one set (their files linked into $OUT_DIR/queries; a name in two of them is an error), so
# every engine loads the data once for all of them; QUERIES=all (`make bench-sparql-all`) is both of the above.
#
# PARALLEL=1 runs Oxigraph's process beside ldhub's and Jena's phases instead of before them (a shorter run on a
# machine other work already saturates; every engine then shares the cores alike). The table gives CPU time beside
# wall time for the tools that record it (ldhub, Jena).
#
# CORES (default: the machine's, runtime.GOMAXPROCS) is the size of ldhub's pool of core tokens, as a server has
# one per core (eval.Cores): a query may scan on a second core while one is free. CORES=1 runs every query on one
# goroutine (the single-core comparison in docs/performance.md, session 10c).
#
# OX_RUNS (default RUNS) counts Oxigraph's runs apart: its WASM build is the slowest engine by far on the broad set.
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
anchors=" ${ANCHORS-oxigraph jena virtuoso} "
size="${SIZE:-1000000}"
case "$size" in *000000) tag="$((size / 1000000))m" ;; *000) tag="$((size / 1000))k" ;; *) tag="$size" ;; esac
data="$data_dir/bsbm-$tag.nt"
mkdir -p "$out"
[ "$query_dir" = all ] && query_dir="$shared/queries:$root/bench/queries-broad"
if [[ "$query_dir" == *:* ]]; then
  rm -rf "$out/queries"
  mkdir -p "$out/queries"
  IFS=: read -ra dirs <<< "$query_dir"
  for d in "${dirs[@]}"; do
    for f in "$d"/*.rq; do
      [ -e "$f" ] || { echo "no .rq files in $d" >&2; exit 1; }
      [ -e "$out/queries/$(basename "$f")" ] && { echo "$(basename "$f") is in two query folders" >&2; exit 1; }
      ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$out/queries/"
    done
  done
  query_dir="$out/queries"
fi
rm -rf "$out"/build-*.json "$out"/build-*.time "$out"/oxigraph.json "$out"/jena.json "$out"/jena-load.time \
  "$out"/ours "$out"/oxigraph "$out"/jena \
  "$out"/virtuoso.json "$out"/virtuoso
[ -f "$data" ] || python3 "$shared/gen-data.py" "$size" -o "$data"
go build -o "$out/sparql-bench" "$here"
echo "loadavg before: $(cat /proc/loadavg)"
build() {
  /usr/bin/time -f '%e %U %S %M' -o "$out/build-$1.time" "$out/sparql-bench" -build "$data" -index "$out/bsbm.idx" > "$out/build-$1.json"
}
half=$(( (builds + 1) / 2 ))
for i in $(seq 1 "$half"); do build "$i"; done
queries=("--queries" "$query_dir" "--runs" "${OX_RUNS:-$runs}" "--warmup" "1" "--dump-results" "$out/oxigraph")
[ "$only_build" = 1 ] && queries=("--only" "^$")
oxpid=
if [[ "$anchors" == *" oxigraph "* ]]; then
  if [ "${PARALLEL:-0}" = 1 ]; then
    node "$shared/oxigraph-bench.mjs" "$data" "${queries[@]}" --out "$out/oxigraph.json" > /dev/null &
    oxpid=$!
  else
    node "$shared/oxigraph-bench.mjs" "$data" "${queries[@]}" --out "$out/oxigraph.json" > /dev/null
  fi
fi
for i in $(seq $(( half + 1 )) "$builds"); do build "$i"; done
if [ "$only_build" != 1 ]; then
  "$out/sparql-bench" -index "$out/bsbm.idx" -queries "$query_dir" -runs "$runs" -warmup 1 ${CORES:+-cores "$CORES"} -dump "$out/ours" > "$out/ours.json"
fi
if [[ "$anchors" == *" jena "* ]]; then
  cp="$("$here/jena/classpath.sh" "$out/jena-overlay")"
  mkdir -p "$out/jena-classes"
  javac -nowarn -cp "$cp" -d "$out/jena-classes" "$here/jena/JenaBench.java"
  rm -rf "$out/jena-tdb"
  /usr/bin/time -f '%e %U %S %M' -o "$out/jena-load.time" java -cp "$cp" tdb2.tdbloader --loc "$out/jena-tdb" "$data"
  if [ "$only_build" != 1 ]; then
    java -cp "$out/jena-classes:$cp" JenaBench --loc "$out/jena-tdb" --queries "$query_dir" --runs "$runs" --warmup 1 \
      --dump "$out/jena" --out "$out/jena.json"
  else
    java -cp "$out/jena-classes:$cp" JenaBench --loc "$out/jena-tdb" --out "$out/jena.json"
  fi
fi
if [[ "$anchors" == *" virtuoso "* ]]; then
  vq=("-runs" "$runs" "-warmup" "1" "-dump" "$out/virtuoso")
  [ "$only_build" = 1 ] && vq=("-only" "/") # no query file name contains a slash: the load alone
  "$out/sparql-bench" -virtuoso "$data" -db "$out/virtuoso-db" -queries "$query_dir" "${vq[@]}" \
    -buffers "${VIRTUOSO_BUFFERS:-150000}" -budget "${VIRTUOSO_QUERY_BUDGET_MS:-60000}ms" \
    -timeout "${VIRTUOSO_QUERY_TIMEOUT_MS:-300000}ms" > "$out/virtuoso.json" 2> >(tee "$out/virtuoso.log" >&2)
  rm -rf "$out/virtuoso-db"
fi
[ -n "$oxpid" ] && wait "$oxpid"
echo "loadavg after: $(cat /proc/loadavg)"
python3 "$here/summarise.py" "$out"
