#!/usr/bin/env bash
# Load test (issue 9, point 6; `make soak`): start `ldhub serve` on a fresh data folder with a few publications,
# then run wrk against their direct URLs (every syntax and HTML, by Accept) and against their SPARQL endpoints
# (direct URL with ?query=) while a writer uploads a new version of those publications in a loop, so the pipeline
# re-renders and switches the trees wrk is reading. Passes only with zero non-2xx/3xx answers and zero socket
# errors from wrk, and every upload acknowledged; prints requests/s and p99 latency of each run.
#
# Needs wrk (Debian: apt-get install -y wrk), curl and jq. Environment:
#   SOAK_DURATION  length of each wrk run (default 30s)
#   SOAK_CONNS     connections (default 32), SOAK_THREADS wrk threads (default 2)
#   SOAK_TIMEOUT   wrk's per-request timeout (default 10s: wrk's own 2 s counts slow answers on a loaded machine as
#                  socket errors; a request still unanswered after 10 s is a stall worth failing on)
#   SOAK_TRIPLES   statements per publication (default 5000), SOAK_PUBS publications (default 4)
#   LDHUB_BIN      a built ldhub binary (default: go build ./cmd/ldhub into a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${SOAK_DURATION:-30s}
conns=${SOAK_CONNS:-32}
threads=${SOAK_THREADS:-2}
timeout=${SOAK_TIMEOUT:-10s}
triples=${SOAK_TRIPLES:-5000}
pubs=${SOAK_PUBS:-4}
for tool in wrk curl jq; do
	command -v "$tool" >/dev/null || { echo "soak: $tool is not installed (Debian: apt-get install -y $tool)" >&2; exit 2; }
done

work=$(mktemp -d)
server_pid=""
writer_pid=""
cleanup() {
	[ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null || true
	if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

bin=${LDHUB_BIN:-}
if [ -z "$bin" ]; then
	bin=$work/ldhub
	go build -o "$bin" ./cmd/ldhub
fi

admin=soak-admin
secret=soak-secret-$RANDOM$RANDOM
LDHUB_ADMIN_ID=$admin LDHUB_ADMIN_SECRET=$secret "$bin" serve --data "$work/data" --addr 127.0.0.1:0 >"$work/serve.log" 2>&1 &
server_pid=$!
addr=""
for _ in $(seq 600); do
	addr=$(sed -n 's/.*msg="ldhub serving" addr=\([^ ]*\).*/\1/p' "$work/serve.log" | head -1)
	[ -n "$addr" ] && break
	kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
	sleep 0.1
done
[ -n "$addr" ] || { echo "soak: ldhub serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }
base=http://$addr
echo "soak: ldhub serve on $base (data $work/data)"

api() { # method path [curl args...]: prints the body, fails on non-2xx
	local method=$1 path=$2
	shift 2
	curl -sS --fail-with-body -u "$admin:$secret" -X "$method" "$base$path" "$@"
}

# content N SEQ: N statements that differ for every SEQ, so each upload is a real new version.
content() {
	awk -v n="$1" -v seq="$2" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "<http://example.org/soak/s%d> <http://example.org/p%d> \"value %d of version %s\" .\n", i, i % 7, i, seq
	}'
}

group=$(api POST /api/v3/groups -H 'Content-Type: application/json' -d '{"name":"soak","type":"PUBLIC"}' | jq -r .id)
repo=$(api POST /api/v3/repositories -H 'Content-Type: application/json' \
	-d "{\"name\":\"load\",\"visible\":true,\"parentId\":\"$group\"}" | jq -r .id)
for i in $(seq 0 $((pubs - 1))); do
	content "$triples" 0 >"$work/p$i.nt"
	printf '{"name":"p%d"}' "$i" >"$work/meta.json"
	api POST "/api/v3/repositories/$repo/publications" -F "metadata=@$work/meta.json" -F "content=@$work/p$i.nt" >/dev/null
done
# Wait until the pipeline has rendered everything (v4 pending false).
for _ in $(seq 600); do
	pending=$(api GET "/api/v4/publications?repositoryId=$repo" | jq '[.contents[] | select(.pending)] | length')
	[ "$pending" = 0 ] && break
	sleep 0.2
done
[ "$pending" = 0 ] || { echo "soak: publications still pending" >&2; exit 1; }
echo "soak: $pubs publications of $triples statements rendered"

# The writer: one new version after another, rotating over the publications, until killed.
(
	seq=1
	ok=0
	while :; do
		i=$((seq % pubs))
		content "$triples" "$seq" >"$work/w.nt"
		printf '{"name":"p%d"}' "$i" >"$work/wmeta.json"
		if api PUT "/api/v3/repositories/$repo/publications" -F "meta-data=@$work/wmeta.json" -F "Content=@$work/w.nt" >"$work/w.out" 2>&1; then
			ok=$((ok + 1))
			echo "$ok" >"$work/writes.ok"
		else
			echo "upload $seq: $(cat "$work/w.out")" >>"$work/writes.failed"
		fi
		seq=$((seq + 1))
	done
) &
writer_pid=$!

paths=""
for i in $(seq 0 $((pubs - 1))); do paths="$paths\"/soak/load/p$i\","; done
cat >"$work/direct.lua" <<EOF
local paths = {${paths}}
local accepts = {"text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json", "text/html", "*/*"}
local n = 0
request = function()
	n = n + 1
	return wrk.format("GET", paths[n % #paths + 1], {["Accept"] = accepts[math.floor(n / #paths) % #accepts + 1]})
end
EOF
cat >"$work/sparql.lua" <<EOF
local paths = {${paths}}
local queries = {
	"SELECT%20%3Fs%20%3Fo%20WHERE%20%7B%20%3Fs%20%3Chttp%3A%2F%2Fexample.org%2Fp3%3E%20%3Fo%20%7D%20LIMIT%2020",
	"SELECT%20(COUNT(*)%20AS%20%3Fn)%20WHERE%20%7B%20%3Fs%20%3Fp%20%3Fo%20%7D",
	"ASK%20%7B%20%3Chttp%3A%2F%2Fexample.org%2Fsoak%2Fs1%3E%20%3Fp%20%3Fo%20%7D",
	"SELECT%20%3Fo%20WHERE%20%7B%20%3Chttp%3A%2F%2Fexample.org%2Fsoak%2Fs42%3E%20%3Fp%20%3Fo%20%7D",
}
local n = 0
request = function()
	n = n + 1
	local path = paths[n % #paths + 1] .. "?query=" .. queries[math.floor(n / #paths) % #queries + 1]
	return wrk.format("GET", path, {["Accept"] = "application/sparql-results+json"})
end
EOF

status=0
run() { # name script
	echo "== wrk $1: $threads threads, $conns connections, $duration, while uploading"
	wrk -t"$threads" -c"$conns" -d"$duration" --timeout "$timeout" --latency -s "$work/$2" "$base/" | tee "$work/$1.out"
	local rps p99
	rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/$1.out")
	p99=$(awk '$1 == "99%" {print $2}' "$work/$1.out")
	max=$(awk '$1 == "Latency" && NF >= 4 {print $4; exit}' "$work/$1.out")
	echo "soak: $1: $rps requests/s, p99 $p99, max $max"
	if grep -qE 'Non-2xx or 3xx responses|Socket errors' "$work/$1.out"; then
		echo "soak: $1: FAILED: errors above" >&2
		status=1
	fi
}
run direct direct.lua
run sparql sparql.lua
kill "$writer_pid" 2>/dev/null || true
wait "$writer_pid" 2>/dev/null || true
writer_pid=""
echo "soak: $(cat "$work/writes.ok" 2>/dev/null || echo 0) versions uploaded during the runs"
if [ -s "$work/writes.failed" ]; then
	echo "soak: FAILED uploads:" >&2
	head -5 "$work/writes.failed" >&2
	status=1
fi
if grep -q 'level=ERROR' "$work/serve.log"; then
	echo "soak: FAILED: ldhub logged errors:" >&2
	grep 'level=ERROR' "$work/serve.log" | head -5 >&2
	status=1
fi
[ "$status" = 0 ] && echo "soak: passed: no error answers"
exit $status
