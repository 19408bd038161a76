#!/usr/bin/env bash
# Upload until live, measured from the client (make bench-upload).
#
#   bench/upload.sh           RUNS=3 by default; BENCH_DATA=/tmp/ldhub-bench caches the generated data
#
# Starts the real `ldhub serve` on a fresh data directory, creates a group and a visible repository over the API,
# then, RUNS times, uploads a new version of a 1 M-triple BSBM publication as a publisher does (curl, one
# multipart POST of the N-Triples file) and waits as a publisher waits: it polls, every 50 ms, the publication's
# direct URL with HEAD until it answers with the new version (200 with a new ETag; the answer is then read once,
# untimed, and must hold the new version's marker statement), and the SPARQL endpoint of the direct URL until an
# ASK for the one statement that only the new version has answers true. Reported per run: seconds until the
# upload's answer, until the direct URL, until SPARQL (both live = the larger), the server's CPU time until live
# and after it (the work left for after the switch: the .gz siblings of a large version), and its peak RSS and
# peak private memory (RssAnon, sampled every 20 ms) from the upload until the server is idle again. Each run
# starts from an idle server. Each upload is of different content (one marker statement differs), so every run
# makes a new version.
#
# It needs curl, python3 and go. The first upload creates the publication (timed as run 0:
# a create, not an update).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${BENCH_DATA:-/tmp/ldhub-bench}"
runs="${RUNS:-3}"
gen="${GEN_DATA:-/work/shared/bench/gen-data.py}"
n=1000000
for tool in curl python3 go; do
  command -v "$tool" >/dev/null || { echo "bench-upload: $tool not found" >&2; exit 1; }
done
mkdir -p "$data"
nt="${UPLOAD_NT:-$data/bsbm-1m.nt}"  # UPLOAD_NT: another file, for a quick try of the script
if [ ! -s "$nt" ]; then
  echo "generating $n triples into $data ..." >&2
  python3 "$gen" "$n" -o "$nt.tmp.nt" && mv "$nt.tmp.nt" "$nt"
fi
bin="${LDHUB_BIN:-$data/ldhub}"  # LDHUB_BIN: a binary built elsewhere (e.g. main's, to compare), used as it is
if [ -z "${LDHUB_BIN:-}" ]; then
  # Copied into place after the build, as bench/parse.sh explains, under names of its own and renamed over the
  # old binary, which bench/parse.sh may be running.
  (cd "$root" && go build -o "$bin.upload-new" ./cmd/ldhub) && cp "$bin.upload-new" "$bin.upload-cp" &&
    mv "$bin.upload-cp" "$bin" && rm -f "$bin.upload-new"
fi

tmp="$(mktemp -d)"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
id=bench secret="bench-upload-secret-$$"
LDHUB_ADMIN_ID=$id LDHUB_ADMIN_SECRET=$secret "$bin" serve --data "$tmp/hub" --addr "127.0.0.1:$port" \
  --base-url "$base" > "$tmp/serve.log" 2>&1 &
spid=$!
trap 'kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 600); do
  curl -s -o /dev/null "$base/api/v3/groups" && break
  kill -0 "$spid" 2>/dev/null || { echo "bench-upload: ldhub serve exited:" >&2; cat "$tmp/serve.log" >&2; exit 1; }
  sleep 0.1
done
api() { curl -sS -f -u "$id:$secret" "$@"; }
gid=$(api -H 'Content-Type: application/json' -d '{"name":"bench","type":"PUBLIC"}' "$base/api/v3/groups" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
rid=$(api -H 'Content-Type: application/json' \
  -d "{\"name\":\"bsbm\",\"pathSegment\":\"bsbm\",\"visible\":true,\"parentId\":\"$gid\"}" "$base/api/v3/repositories" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
direct="$base/bench/bsbm/data"

# sample_mem PID OUT: peak VmRSS and RssAnon (kB) of PID until OUT.stop exists; writes "rss anon" to OUT.
sample_mem() {
  local pid=$1 out=$2 rss=0 anon=0 k v _
  while [ ! -e "$out.stop" ]; do
    while read -r k v _; do
      case $k in VmRSS:) [ "$v" -gt "$rss" ] && rss=$v ;; RssAnon:) [ "$v" -gt "$anon" ] && anon=$v ;; esac
    done < "/proc/$pid/status"
    sleep 0.02
  done
  echo "$rss $anon" > "$out"
}

# cpu_ticks PID: user+system CPU time of PID so far, in clock ticks (on a shared machine the server's CPU seconds
# are the comparable figure; wall time measures the neighbours too).
cpu_ticks() { local f; read -r -a f < "/proc/$1/stat"; echo $(( f[13] + f[14] )); }
# wait_idle PID: returns once PID used no CPU for 0.5 s (at most 120 s). Each run starts from an idle server and
# its background work after live (the .gz siblings of a large version) is counted to the run that caused it, not
# to the next upload.
wait_idle() {
  local a b
  for _ in $(seq 240); do
    a=$(cpu_ticks "$1"); sleep 0.5; b=$(cpu_ticks "$1")
    [ "$a" = "$b" ] && return 0
  done
}
: > "$tmp/results"
prev_tag=""
for i in $(seq 0 "$runs"); do
  # Version i: the BSBM triples plus one marker statement of its own.
  marker="<http://example.org/bench/upload> <http://example.org/bench/run> \"$i-$$\" ."
  { cat "$nt"; echo "$marker"; } > "$tmp/data.nt"
  wait_idle "$spid"
  rm -f "$tmp/mem" "$tmp/mem.stop"
  sample_mem "$spid" "$tmp/mem" &
  mpid=$!
  c0=$(cpu_ticks "$spid")
  t0=$EPOCHREALTIME
  if [ "$i" = 0 ]; then
    api -o "$tmp/pub.json" -F 'metadata={"name":"data"};type=application/json;filename=meta.json' \
      -F "content=@$tmp/data.nt;type=application/n-triples;filename=data.nt" "$base/api/v3/repositories/$rid/publications"
  else
    api -o "$tmp/pub.json" -X PUT -F 'meta-data={"name":"data"}' \
      -F "Content=@$tmp/data.nt;type=application/n-triples;filename=data.nt" "$base/api/v3/repositories/$rid/publications"
  fi
  t_up=$EPOCHREALTIME
  t_direct="" t_sparql=""
  ask="ASK { <http://example.org/bench/upload> <http://example.org/bench/run> \"$i-$$\" }"
  # Between the upload's answer and the version being live the script runs one curl per check and nothing else:
  # python3 takes up to 3 s to start on the loaded machine, and an earlier version of this script that read the
  # upload's answer with it in the timed part measured that, not the hub (a 1,000-triple version seemed to take
  # 8-13 s to go live at 0.3 server CPU-s). Times are bash's $EPOCHREALTIME, without a process.
  for _ in $(seq 2400); do  # 120 s
    if [ -z "$t_direct" ]; then
      # The direct URL has moved on when it answers 200 with another ETag than the previous version's (checked
      # below, outside the timing, by reading the whole answer for the marker). HEAD, as a publisher's check
      # would: a GET transferred the old version's whole 181 MB dump on every check.
      got=$(curl -s -m 10 -I -o /dev/null -w '%{http_code} %header{etag}' -H 'Accept: application/n-triples' "$direct" || true)
      tag=${got#* }
      [ "${got%% *}" = 200 ] && [ -n "$tag" ] && [ "$tag" != "$prev_tag" ] && t_direct=$EPOCHREALTIME
    fi
    if [ -z "$t_sparql" ]; then
      got=$(curl -s -m 10 -G -H 'Accept: application/sparql-results+json' --data-urlencode "query=$ask" "$direct/sparql" || true)
      [[ $got =~ \"boolean\"[[:space:]]*:[[:space:]]*true ]] && t_sparql=$EPOCHREALTIME
    fi
    [ -n "$t_direct" ] && [ -n "$t_sparql" ] && break
    sleep 0.05
  done
  c1=$(cpu_ticks "$spid")
  wait_idle "$spid"
  c2=$(cpu_ticks "$spid")
  touch "$tmp/mem.stop"; wait "$mpid"
  ver=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["versions"][0]["version"])' "$tmp/pub.json")
  [ -n "$t_direct" ] && [ -n "$t_sparql" ] || { echo "bench-upload: version $ver not live within 120 s" >&2; tail -20 "$tmp/serve.log" >&2; exit 1; }
  curl -s -m 60 -H 'Accept: application/n-triples' "$direct" | grep -qF "$marker" ||
    { echo "bench-upload: the direct URL's new answer ($tag) lacks version $i's marker statement" >&2; exit 1; }
  prev_tag=$tag
  echo "$i $t0 $t_up $t_direct $t_sparql $(cat "$tmp/mem") $(( c1 - c0 )) $(( c2 - c1 ))" >> "$tmp/results"
done

python3 - "$tmp/results" "$(wc -c < "$tmp/data.nt")" "$(wc -l < "$tmp/data.nt")" "$(getconf CLK_TCK)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
size, lines, hz = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"upload of {size / 1e6:.0f} MB of N-Triples ({lines:,} statements), curl multipart, until live:")
print()
print("| run | upload answered s | direct URL live s | SPARQL live s | both live s | server CPU s until live | after live | server peak RSS (private) |")
print("|---|---|---|---|---|---|---|---|")
both = []
for r in rows:
    i, t0, up, d, s, rss, anon, ticks, after = r[0], *map(float, r[1:5]), int(r[5]), int(r[6]), int(r[7]), int(r[8])
    kind = "create" if i == "0" else f"update {i}"
    live = max(d, s) - t0
    if i != "0":
        both.append(live)
    print(f"| {kind} | {up - t0:.2f} | {d - t0:.2f} | {s - t0:.2f} | {live:.2f} | {ticks / hz:.1f} | {after / hz:.1f} | {rss / 1024:.0f} MiB ({anon / 1024:.0f}) |")
if both:
    print()
    print(f"updates: median {statistics.median(both):.2f} s until both live (min {min(both):.2f}, max {max(both):.2f})")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)"
