# writegc: every target works on a fresh machine with only Go installed;
# go.mod pins every tool (benchstat is a `go tool`).
GO        ?= go
PKGS      := ./...
STRESS_FLAGS ?=

.PHONY: all test fmt-check vet unit race lint-test benchsmoke peers-smoke lab-test stress stress-peers stress-readers bench lint gate clean test-service test-slow

all: test

## test: the README's test command (CI runs it): format, vet, the lint test, race tests, one pass of every benchmark.
test: fmt-check vet lint-test race benchsmoke peers-smoke lab-test

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# The lint test runs once, below, not again under -race. -short leaves out the
# suites that take more than a few seconds each (whole gcstress runs, gates in
# throwaway repositories, instruction mode, the 10,000-series false-alarm test,
# the headless-browser tests): make test-slow runs them, and .ci/run runs
# make test-slow.
#
# REPLAYS re-judge the committed results/ series: one goroutine of pure
# arithmetic over decoded samples, ten times slower under -race for nothing
# it could find, so make test runs them without it (test-slow with it).
REPLAYS := '^TestReplay(PublishedFrontier|CapacityRepeats)$$'
# The packages whose -short tests take longest go first (go test runs its
# packages in the order given, -p at a time), so none starts last on a
# core of its own; go test runs a package named twice once.
LONGEST := ./benchgate ./gcstress ./cmd/benchgate ./gcstress/report ./writepath ./gcstress/cli
race:
	$(GO) test -race -short -skip $(REPLAYS) -timeout 20m $(LONGEST) $$($(GO) list $(PKGS) | grep -v '/internal/lint$$')
	$(GO) test -race -tags gateslow ./internal/slowdown/ ./benchgate/internal/synthbench/
	$(GO) test -short -run $(REPLAYS) ./gcstress/internal/plan/

# One iteration of every benchmark so none can rot; large cases skip under -short.
benchsmoke:
	$(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m $(PKGS)

# The peer engines (Pebble, Badger, ristretto) live in their own module: vet it, run its
# tests (every peer engine through gcstress-peers' real child processes) and one pass of
# every benchmark. About 1.5 minutes on 2 cores.
peers-smoke:
	cd benches/peers && $(GO) vet ./... && $(GO) test -short -timeout 20m ./... && \
		$(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m ./...

# The studies (offheapprobe, reliability, seedrun, the results folders' programs) live
# in their own module, lab/: vet it, run its short tests and one pass of every
# benchmark; make test-slow runs all its tests under -race.
lab-test:
	cd lab && $(GO) vet ./... && $(GO) test -short -timeout 20m ./... && \
		$(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m ./...

## stress-peers: the addendum matrix (10B,100B,1KB,10KB) and the failure scenario with
## writegc's kinds beside Pebble, Badger, ristretto and the third-party caches fastcache, otter
## and shardmap (gcstress-peers); at most 25 minutes on 2 cores (about 15 estimated). PEERS_OUT names the results folder (default: a new
## folder under $$TMPDIR); PEERS_FLAGS adds flags (engine options included).
PEERS_OUT   ?=
PEERS_FLAGS ?=
stress-peers:
	@out="$(PEERS_OUT)"; [ -n "$$out" ] || out=$$(mktemp -d "$${TMPDIR:-/tmp}/stress-peers.XXXXXX"); \
	case $$out in /*) ;; *) out=$(CURDIR)/$$out ;; esac; \
	cd benches/peers && $(GO) run ./cmd/gcstress-peers -kinds heap,arena,offheap,pebble,badger,ristretto,fastcache,otter,shardmap \
		-scenario matrix,failure -values 10B,100B,1KB,10KB -keys 2M,2M,1M,200K -duration 25s \
		-out "$$out" $(PEERS_FLAGS)

## stress-readers: readers under GC (results/readers-under-gc): heap, arena, offheap, btree,
## Pebble, Badger, ristretto, fastcache, otter and shardmap (gcstress-peers) on mixes a, b and e
## (the caches have no Scan: not in e) at 100 B and 1 KB values, zipfian keys, each scenario READERS_DURATION open loop
## at READERS_RATE ops/s (a, b) or READERS_SCAN_RATE (e), after a READERS_PRELOAD preload kept in
## READERS_MEMSTORE memtables, under GOGC READERS_GOGC (25: a read-mostly load allocates little, and
## the measured phase should hold several cycles), one operation in 4 timed; 52 scenarios, at most
## 20 minutes on 2 cores (about 16 estimated).
## READERS_OUT names the folder (default: a new one under $$TMPDIR), one subfolder mix-<m> per
## mix; READERS_FLAGS adds flags. `make stress` is untouched (write-only mix w).
READERS_OUT      ?=
READERS_FLAGS    ?=
READERS_KINDS    ?= heap,arena,offheap,btree,pebble,badger,ristretto,fastcache,otter,shardmap
READERS_VALUES   ?= 100B,1KB
READERS_MIXES    ?= a b e
READERS_DURATION ?= 15s
READERS_RATE     ?= 20Kops
READERS_SCAN_RATE ?= 2Kops
READERS_PRELOAD  ?= 200K
READERS_MEMSTORE ?= 128MB
READERS_GOGC     ?= 25
stress-readers:
	@out="$(READERS_OUT)"; [ -n "$$out" ] || out=$$(mktemp -d "$${TMPDIR:-/tmp}/stress-readers.XXXXXX"); \
	case $$out in /*) ;; *) out=$(CURDIR)/$$out ;; esac; \
	cd benches/peers && $(GO) build -o "$$out/.gcstress-peers" ./cmd/gcstress-peers && \
	for m in $(READERS_MIXES); do \
		kinds=$(READERS_KINDS); rate=$(READERS_RATE); \
		if [ $$m = e ]; then kinds=$$(echo "$$kinds" | tr , '\n' | grep -vxE 'ristretto|fastcache|otter|shardmap' | paste -sd, -); rate=$(READERS_SCAN_RATE); fi; \
		"$$out/.gcstress-peers" matrix -mix $$m -keydist zipfian -kinds "$$kinds" -values $(READERS_VALUES) \
			-keys unbounded -duration $(READERS_DURATION) -rate $$rate -preload $(READERS_PRELOAD) -memstore $(READERS_MEMSTORE) \
			-gogc $(READERS_GOGC) -latency-every 4 -out "$$out/mix-$$m" $(READERS_FLAGS) || exit 1; \
	done; rm -f "$$out/.gcstress-peers"; echo "results: $$out"

## test-service: gchealth's alerting rules under `promtool test rules` (examples/service/
## gchealth.rules.yml), then examples/service deployed for real: the service on the heap and
## arena kinds under GOMEMLIMIT=128MiB, scraped by a real Prometheus (the `prometheus` binary;
## the test skips without it). Without promtool it fails when CI=true, else says it skipped.
## About 40 s; minutes on a busy 2-core machine (bounded waits).
test-service:
	@if command -v promtool >/dev/null 2>&1; then \
		echo "promtool test rules examples/service/gchealth.rules.test.yml"; \
		promtool test rules examples/service/gchealth.rules.test.yml; \
	elif [ "$${CI:-}" = true ]; then \
		echo "test-service: no promtool binary, so the alerting rules cannot be tested (Debian: apt-get install prometheus; .ci/run installs it)" >&2; exit 1; \
	else \
		echo "test-service: SKIPPED the alerting rules' test: no promtool binary (Debian: apt-get install prometheus)"; \
	fi
	WRITEGC_TEST_SERVICE=1 $(GO) test -count=1 -timeout 15m -run TestPrometheusDeployment -v ./examples/service/

## stress: the main job, gcstress on its embedded default matrix, into a new gitignored
## gcstress-out/<UTC time>-<id>/ (STRESS_FLAGS='-out DIR' names another folder).
stress:
	$(GO) run ./cmd/gcstress $(STRESS_FLAGS)

## bench: the whole suite, -count 10, stored under results/bench/<commit>.txt
bench:
	./scripts/bench

## gate: the CI regression gate against the previous commit.
gate:
	./scripts/gate

## test-slow: every test, the slow ones too (no -short), under -race, one package at a
## time (-p 1: the whole-run suites time real GC phases and open-loop schedules, and two
## of them beside each other on 2 cores made one fail on CI): about 15 minutes on 2
## cores. CI runs it after make test.
test-slow:
	$(GO) test -race -p 1 -timeout 60m $$($(GO) list $(PKGS) | grep -v '/internal/lint$$')
	cd lab && $(GO) test -race -p 1 -timeout 20m ./...

## lint-test: internal/lint as a test (make test runs it): staticcheck (pinned in
## go.mod), the darwin vet and windows build, the architecture's import rules,
## no flag or os.Exit in libraries, no tracked executable or oversized file.
## -count=1: the test reads the checkout through child processes, which go
## test's cache cannot see.
lint-test:
	$(GO) test -count=1 -timeout 20m ./internal/lint/

## lint: gofmt, vet (also with the invariants tag) and the lint test.
lint: fmt-check vet lint-test
	$(GO) vet -tags invariants $(PKGS)

clean:
	$(GO) clean -testcache
