#!/usr/bin/env bash
# Parser throughput of ldhub against serdi, in one run on the same machine (make bench-parse).
#
#   bench/parse.sh            RUNS=5 by default; BENCH_DATA=/tmp/ldhub-bench caches the generated data
#
# Generates 1 M BSBM-shaped triples once (as .nt and .ttl) with /work/shared/bench/gen-data.py, then times,
# alternating the tools run by run so that load changes hit both alike:
#   serdi -i ntriples -o ntriples        vs  ldconvert X.nt  --to n-triples -
#   serdi -i turtle   -o ntriples        vs  ldconvert X.ttl --to n-triples -
# (ldconvert is `ldhub convert` built without the hub: cmd/ldconvert),
# and prints the median wall time, triples/s, the ratio to serdi and peak RSS (/usr/bin/time -v), then the
# parse-only Go benchmark (bench.BenchmarkParse). It installs no packages: it needs serdi and GNU time
# (apt-get install -y serdi time), python3 and go.
#
# Then the writers (WRITERS=0 skips them): N-Triples → Turtle, TriG, RDF/XML and JSON-LD with ldconvert (the
# streaming encoders, as for any input above 4 MiB) against serdi (Turtle), rapper (Turtle, RDF/XML; Debian
# raptor2-utils) and Jena riot (Turtle, TriG, RDF/XML, JSON-LD; Debian libapache-jena-java), and JSON-LD input:
# ldconvert of the 1 M-triple JSON-LD document it wrote against jsonld.js toRDF (npm install jsonld into
# $BENCH_DATA/jsonldjs, done once if npm is there). Anchors that are not installed are reported as such. One row runs
# `ldhub convert` itself (N-Triples → N-Triples). Ratios are of CPU time (user+sys): on a shared machine wall time
# measures the neighbours.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${BENCH_DATA:-/tmp/ldhub-bench}"
runs="${RUNS:-5}"
gen="${GEN_DATA:-/work/shared/bench/gen-data.py}"
n=1000000

for tool in serdi /usr/bin/time python3 go; do
  command -v "$tool" >/dev/null || { echo "bench-parse: $tool not found (apt-get install -y serdi time)" >&2; exit 1; }
done
mkdir -p "$data"
nt="$data/bsbm-1m.nt"; ttl="$data/bsbm-1m.ttl"
if [ ! -s "$nt" ] || [ ! -s "$ttl" ]; then
  echo "generating $n triples into $data ..." >&2
  python3 "$gen" "$n" -o "$nt.tmp.nt" -o "$ttl.tmp.ttl"
  mv "$nt.tmp.nt" "$nt"; mv "$ttl.tmp.ttl" "$ttl"
fi
bin="$data/ldhub" conv="$data/ldconvert"
# ldconvert (cmd/ldconvert) is `ldhub convert` without the hub linked in; the tables measure it, and one row
# measures `ldhub convert` itself, whose Hugo, bleve and go-git cost every run ~0.2 CPU-s and ~35 MiB.
# Built, then copied into place: a file just written by the linker sits in the page cache in large folios, and
# mapping it faults in ~10 MiB more of it than the same bytes copied (as an installed binary is), which peak RSS
# would count against every ldhub run.
# (cp to a temporary name, then rename: the other bench scripts may be running the previous binary.)
for b in ldhub ldconvert; do
  (cd "$root" && go build -o "$data/$b.new" "./cmd/$b") && cp "$data/$b.new" "$data/$b.cp" && mv "$data/$b.cp" "$data/$b" &&
    rm -f "$data/$b.new"
done

tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

# Same output from both, checked once, outside the timed runs.
for pair in "ntriples $nt" "turtle $ttl"; do
  set -- $pair
  a=$(serdi -i "$1" -o ntriples "$2" | wc -l); b=$("$conv" "$2" --to n-triples - | wc -l)
  [ "$a" = "$b" ] || { echo "bench-parse: $2: serdi wrote $a lines, ldhub $b" >&2; exit 1; }
  echo "$2: $a triples from both tools" >&2
  echo "$a" > "$tmp/lines-$1"
done

# measure NAME CMD...: one run, output discarded; appends "seconds maxrss_kb cpu_seconds anon_kb" to $tmp/NAME.
# maxrss (GNU time) counts the pages of the executable mapped in as well; anon_kb, the peak of RssAnon sampled
# every 20 ms, is the process's private memory: the heap, stacks and runtime, what the conversion itself costs.
measure() {
  local name="$1"; shift
  /usr/bin/time -v -o "$tmp/$name.time" "$@" > /dev/null &
  local tpid=$! child="" anon=0 a k v
  while kill -0 "$tpid" 2>/dev/null; do
    [ -n "$child" ] || child=$(pgrep -P "$tpid" | head -1)
    if [ -n "$child" ]; then
      a=0  # read with builtins: the sampler should not cost the machine a process every 20 ms
      { while read -r k v _; do [ "$k" = RssAnon: ] && a=$v; done < "/proc/$child/status"; } 2>/dev/null || true
      [ "$a" -gt "$anon" ] && anon=$a
    fi
    sleep 0.02
  done
  wait "$tpid"
  local secs kb
  secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$tmp/$name.time")
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/$name.time")
  cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$tmp/$name.time")
  echo "$secs $kb $cpu $anon" >> "$tmp/$name"
}

for i in $(seq "$runs"); do
  measure serdi-nt  serdi -i ntriples -o ntriples "$nt"
  measure ldhub-nt  "$conv" "$nt" --to n-triples -
  measure serdi-ttl serdi -i turtle -o ntriples "$ttl"
  measure ldhub-ttl "$conv" "$ttl" --to n-triples -
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$tmp" "$runs" <<'PY'
import statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def load(name):
    rows = [l.split() for l in open(f"{tmp}/{name}")]
    secs = [float(r[0]) for r in rows]
    return statistics.median(secs), max(int(r[1]) for r in rows), min(secs), max(secs), statistics.median(float(r[2]) for r in rows), max(int(r[3]) for r in rows)
print(f"| conversion | tool | median wall s (min–max, {runs} runs) | triples/s | vs serdi | median CPU s (user+sys) | peak RSS (private) |")
print("|---|---|---|---|---|---|---|")
for kind, syntax, label in (("nt", "ntriples", "N-Triples → N-Triples"), ("ttl", "turtle", "Turtle → N-Triples")):
    ref = load(f"serdi-{kind}")
    lines = int(open(f"{tmp}/lines-{syntax}").read())
    for tool in ("serdi", "ldhub"):
        med, rss, lo, hi, cpu, anon = load(f"{tool}-{kind}")
        print(f"| {label} | {'ldconvert' if tool == 'ldhub' else tool} | {med:.2f} ({lo:.2f}–{hi:.2f}) | {lines/med/1000:.0f} k | {ref[0]/med:.2f}× | {cpu:.2f} | {rss/1024:.0f} MiB ({anon/1024:.0f}) |")
PY
echo
echo "load average before: $load_before, after: $load_after (2 cores; other work skews absolute numbers, not much the ratios)"
echo
echo "parse only (go test -bench ./bench, streamed from the cached files, no output):"
(cd "$root" && LDHUB_BENCH_FILES="$nt:$ttl" go test -run '^$' -bench 'BenchmarkParse' -benchtime "${BENCHTIME:-3x}" ./bench) \
  | awk '/^Benchmark/ {for(i=1;i<=NF;i++) if($(i)=="triples/s") printf "  %-28s %8.0f k triples/s  (%s %s)\n", $1, $(i-1)/1000, $3, $4}'

[ "${WRITERS:-1}" = 0 ] && exit 0
# Writers and JSON-LD input, RUNS_W runs each (default 1: riot and jsonld.js take minutes).
runs_w="${RUNS_W:-1}"
# Jena riot from Debian's libapache-jena-java 4.5.0. Two packaging faults stop it as installed:
#  - '/usr/share/java/*' holds both log4j-over-slf4j and slf4j-log4j12, and slf4j refuses to start with both, so
#    the classpath is the jars of the package and of its dependencies (two levels), with slf4j-nop as the only
#    binding;
#  - jena-core's shaded xerces classes were renamed to package `xerces` but their message bundles were left under
#    org/apache/jena/ext/xerces, so the XSD datatype factory dies in its static initialiser ("internal error" in
#    XSSimpleTypeDecl.applyFacets1). A jar of the same bundles under xerces/ (built once into $BENCH_DATA) fixes it.
# Riot's JSON-LD 1.1 writer needs Eclipse Parsson, which Debian does not package, so the JSON-LD anchor is riot's
# jsonld10 writer (jsonld-java).
riot_cp() {
  local deps pk
  deps() { dpkg-query -W -f='${Depends}\n' "$@" 2>/dev/null | tr ',|' '\n\n' | sed 's/(.*)//; s/:any//; s/ //g' | grep . | sort -u; }
  pk="libapache-jena-java $(deps libapache-jena-java)"; pk="$pk $(deps $pk)"
  dpkg -L $(echo $pk | tr ' ' '\n' | sort -u) 2>/dev/null | grep '^/usr/share/java/.*\.jar$' |
    grep -v -E '/(slf4j-(jcl|jdk14|log4j12|simple|reload4j|migrator|ext)|log4j-over-slf4j|jcl-over-slf4j|jul-to-slf4j|maven3-slf4j-provider)[^/]*$' |
    sort -u | tr '\n' ':'
}
have_riot=0
if [ -f /usr/share/java/jena-cmds.jar ] && command -v java >/dev/null && command -v dpkg-query >/dev/null; then
  xres="$data/jena-xerces-messages.jar"
  if [ ! -s "$xres" ]; then
    rm -rf "$tmp/xres" && mkdir -p "$tmp/xres/xerces" &&
      (cd "$tmp/xres" && unzip -q /usr/share/java/jena-core.jar 'org/apache/jena/ext/xerces/*.properties' &&
        cp -r org/apache/jena/ext/xerces/. xerces/ && rm -rf org && python3 -m zipfile -c "$xres" xerces)
  fi
  riot=(java -Xmx4g -cp "$xres:$(riot_cp)" riotcmd.riot --syntax=ntriples)
  head -100 "$nt" > "$tmp/small.nt"
  if "${riot[@]}" --output=turtle "$tmp/small.nt" >/dev/null 2>"$tmp/riot.err"; then have_riot=1
  else echo "bench-parse: Jena riot is installed but does not start: $(grep -m1 Exception "$tmp/riot.err")" >&2; fi
fi
have_rapper=0; command -v rapper >/dev/null && have_rapper=1
# jsonld.js (npm jsonld 9) is installed once into $BENCH_DATA/jsonldjs when npm is there, like the generated data.
jsdir="$data/jsonldjs"; have_js=0
if [ ! -d "$jsdir/node_modules/jsonld" ] && command -v npm >/dev/null; then
  mkdir -p "$jsdir" && (cd "$jsdir" && npm install --no-audit --no-fund --silent jsonld@9 >&2) || true
fi
[ -d "$jsdir/node_modules/jsonld" ] && command -v node >/dev/null && have_js=1
cat > "$tmp/torfd.mjs" <<'JS'
import fs from 'node:fs';
import { createRequire } from 'node:module';
const jsonld = createRequire(process.argv[3] + '/')('jsonld');
const doc = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
process.stdout.write(await jsonld.toRDF(doc, {format: 'application/n-quads',
  documentLoader: async (url) => { throw new Error('no remote documents: ' + url); }}));
JS
jl="$data/bsbm-1m.jsonld"
[ -s "$jl" ] || "$conv" "$nt" "$jl"
for i in $(seq "$runs_w"); do
  for to in n-triples turtle trig rdf-xml json-ld; do measure "ldhub-w-$to" "$conv" "$nt" - --to "$to"; done
  measure ldhubconvert-w-n-triples "$bin" convert "$nt" - --to n-triples
  measure serdi-w-n-triples serdi -i ntriples -o ntriples "$nt"
  measure serdi-w-turtle serdi -i ntriples -o turtle "$nt"
  if [ $have_rapper = 1 ]; then
    measure rapper-w-n-triples rapper -q -i ntriples -o ntriples "$nt"
    measure rapper-w-turtle rapper -q -i ntriples -o turtle "$nt"
    measure rapper-w-rdf-xml rapper -q -i ntriples -o rdfxml "$nt"
  fi
  if [ $have_riot = 1 ]; then
    for to in n-triples:ntriples turtle:turtle trig:trig rdf-xml:rdfxml json-ld:jsonld10; do measure "riot-w-${to%%:*}" "${riot[@]}" --output="${to#*:}" "$nt"; done
  fi
  measure ldhub-r-json-ld "$conv" "$jl" - --to n-triples
  [ $have_js = 1 ] && measure jsonldjs-r-json-ld node --max-old-space-size=8192 "$tmp/torfd.mjs" "$jl" "$jsdir"
done
python3 - "$tmp" "$have_rapper" "$have_riot" "$have_js" <<'PY'
import os, statistics, sys
tmp, have = sys.argv[1], dict(rapper=sys.argv[2] == "1", riot=sys.argv[3] == "1", jsonldjs=sys.argv[4] == "1")
def load(name):
    p = f"{tmp}/{name}"
    if not os.path.exists(p):
        return None
    rows = [l.split() for l in open(p)]
    return statistics.median(float(r[0]) for r in rows), statistics.median(float(r[2]) for r in rows), max(int(r[1]) for r in rows), max(int(r[3]) for r in rows)
print()
print("| conversion | tool | median wall s | triples/s (wall) | median CPU s | triples/s of CPU | ldconvert's CPU advantage | peak RSS (private) |")
print("|---|---|---|---|---|---|---|---|")
rows = [("N-Triples → " + t, "w-" + t, tools) for t, tools in (("n-triples", ["ldhubconvert", "serdi", "rapper", "riot"]), ("turtle", ["serdi", "rapper", "riot"]),
        ("trig", ["riot"]), ("rdf-xml", ["rapper", "riot"]), ("json-ld", ["riot"]))]
rows.append(("JSON-LD → N-Triples", "r-json-ld", ["jsonldjs"]))
for label, key, anchors in rows:
    mine = load(f"ldhub-{key}")
    for tool in ["ldhub"] + anchors:
        r = load(f"{tool}-{key}")
        name = {"ldhub": "ldconvert", "ldhubconvert": "ldhub convert"}.get(tool, tool)
        if r is None:
            print(f"| {label} | {name} | not installed or not runnable | | | | | |")
            continue
        wall, cpu, rss, anon = r
        ratio = f"{cpu / mine[1]:.1f}×" if tool != "ldhub" else ""
        print(f"| {label} | {name} | {wall:.2f} | {1e6 / wall / 1000:.0f} k | {cpu:.2f} | {1e6 / cpu / 1000:.0f} k | {ratio} | {rss / 1024:.0f} MiB ({anon / 1024:.0f}) |")
PY
