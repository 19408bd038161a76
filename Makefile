# ldhub — build, test, conformance and benchmarks. `make test` is the one command CI runs.
GO        ?= go
# pipefail: a failing `go test` in a pipe fails the target.
SHELL     := /bin/bash
REPORTS   := $(CURDIR)/build/reports
export LDHUB_REPORT_DIR := $(REPORTS)

.PHONY: all build test conformance vet fmt-check tidy-check bench bench-parse bench-upload bench-sparql bench-sparql-broad bench-sparql-all bench-sparql-store bench-cluster fuzz soak clean

all: build

# bin/ldconvert is `ldhub convert` without the hub linked in (cmd/ldconvert), for scripts that only convert.
build:
	$(GO) build -o bin/ldhub ./cmd/ldhub
	$(GO) build -o bin/ldconvert ./cmd/ldconvert

# Packages where goroutines meet (store writers, git HTTP, the API server, the pipeline, SPARQL): their tests run
# a second time under the race detector.
RACE_PKGS := ./content/store/... ./api/... ./pipeline/... ./sparqlsvc/eval/... ./sparqlsvc/index/... ./sparqlsvc/protocol/...

# The race detector over RACE_PKGS, then every test: unit, integration and the W3C conformance runners. The
# summary (scripts/testsummary.py) prints each package as it finishes, every failing test's output, then the suite
# scores and every skipped test with its reason.
test: fmt-check tidy-check vet
	@rm -rf $(REPORTS); mkdir -p $(REPORTS)
	$(GO) test -race -count=1 -timeout 30m $(RACE_PKGS)
	set -o pipefail; $(GO) test -count=1 -timeout 30m -json ./... | tee build/test.json | python3 scripts/testsummary.py

# Only the W3C suites, with the names of failing tests.
conformance:
	@rm -rf $(REPORTS)
	$(GO) test -count=1 -run 'W3C' ./... > /dev/null || true
	@cat $(REPORTS)/*.txt

# Every Go fuzz target in the tree, one after the other, FUZZTIME each (issue 9 asks for ≥ 10 minutes). Seeds come
# from the W3C suites and testdata/fuzz; a crasher is written to testdata/fuzz/<target> and fails the run — keep it
# there as a regression test.
FUZZTIME ?= 10m
# e.g. FUZZFLAGS=-parallel=1 to leave a core free on a shared machine. CI=true: a target whose W3C seed corpus is
# missing fails instead of skipping (a skipped target would pass having fuzzed nothing).
FUZZFLAGS ?=
fuzz:
	@failed=""; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  pkg=$$(dirname "$$f"); \
	  for t in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' "$$f" | cut -d' ' -f2); do \
	    echo "== $$pkg $$t ($(FUZZTIME)) $$(date -u +%H:%M:%S)"; \
	    CI=true $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) "$$pkg" || failed="$$failed $$pkg:$$t"; \
	  done; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: crashers in$$failed"; exit 1; fi; echo "fuzz: every target ran $(FUZZTIME) without a crash"

# Load (not part of test): wrk on direct URLs and on SPARQL while a writer uploads new versions; fails on any
# non-2xx/3xx answer and prints requests/s and p99 (needs wrk: apt-get install -y wrk). SOAK_DURATION per wrk run.
soak:
	soak/soak.sh

# The three-node setup under load (docs/scaling.md): a primary, two replicas and nginx, CLUSTER_WRITES writes with
# a replica killed and restarted, then wrk through nginx over 1, 2 and 3 nodes (needs nginx and wrk). CI runs the
# short correctness version (TestClusterBehindNginx, 12 writes, no wrk) as part of make test.
CLUSTER_WRITES ?= 60
bench-cluster:
	CLUSTER_WRITES=$(CLUSTER_WRITES) CLUSTER_WRK=1 $(GO) test -count=1 -timeout 30m -run 'TestClusterBehindNginx' -v ./cmd/ldhub/ | grep -E 'cluster:|throughput:|FAIL|ok|PASS'

vet:
	$(GO) vet ./...

# go.mod and go.sum must be what `go mod tidy` makes of the imports: direct requirements unmarked, nothing unused.
tidy-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Documentation pages (issue 19): the publication page of schema.org and of a 100 k-concept SKOS thesaurus, the
# thesaurus's documentation collector, and its term pages pre-rendered for the static tree (first version and an
# incremental one; files and disk). LDHUB_BENCH_TERMS sets the thesaurus's size for the last. Figures:
# docs/performance.md ("Term documentation", "Term pages in the static tree").
bench:
	$(GO) test -run '^$$' -bench 'DocPage|Collect' -benchtime 2x -benchmem ./site/html
	$(GO) test -run '^$$' -bench 'TermPages' -benchtime 1x -timeout 60m ./pipeline

# Parser throughput against serdi on 1 M generated triples (needs serdi and GNU time: apt-get install -y serdi time).
bench-parse:
	bench/parse.sh

# Upload until live, measured from the client: curl uploads 1 M triples to a real `ldhub serve` and polls the direct
# URL and its SPARQL endpoint until both answer with the new version; prints the times and the server's peak memory.
bench-upload:
	bench/upload.sh

# SPARQL engine vs Oxigraph 0.5.11 and Jena TDB2 on 1M BSBM triples (needs ../shared/bench/setup.sh once, and
# libapache-jena-java + a JDK for Jena; ANCHORS= chooses, SIZE= sets the triple count; see bench/sparql/run.sh).
bench-sparql:
	bench/sparql/run.sh

bench-sparql-broad:
	QUERIES=$(CURDIR)/bench/queries-broad bench/sparql/run.sh

# The 14 shared queries and the 70 broad ones in one run: each engine loads the data once.
bench-sparql-all:
	QUERIES=all bench/sparql/run.sh

# ldhub built-in vs ldhub + Virtuoso (external store) vs Virtuoso direct, same data and queries, one run.
bench-sparql-store:
	bench/sparqlstore/run.sh

clean:
	rm -rf bin build
