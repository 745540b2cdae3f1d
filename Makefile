# writegc: every target works on a fresh machine with only Go installed;
# go.mod pins every tool (benchstat is a `go tool`).
GO        ?= go
PKGS      := ./...
STRESS_FLAGS ?=

.PHONY: all test fmt-check vet unit race benchsmoke peers-smoke stress stress-peers bench lint gate clean test-service

all: test

## test: the README's test command (CI runs it): format, vet, race tests, one pass of every benchmark.
test: fmt-check vet race benchsmoke peers-smoke

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

race:
	$(GO) test -race -timeout 20m $(PKGS)
	$(GO) test -race -tags gateslow ./internal/slowdown/ ./benchgate/internal/synthbench/

# One iteration of every benchmark so none can rot; large cases skip under -short.
benchsmoke:
	$(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m $(PKGS)

# The peer engines (Pebble, Badger, ristretto) live in their own module: vet it, run its
# tests (every peer engine through gcstress-peers' real child processes) and one pass of
# every benchmark. About 1.5 minutes on 2 cores.
peers-smoke:
	cd benches/peers && $(GO) vet ./... && $(GO) test -short -timeout 20m ./... && \
		$(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m ./...

## stress-peers: the addendum matrix (10B,100B,1KB,10KB) and the failure scenario with
## writegc's kinds beside Pebble, Badger and ristretto (gcstress-peers); at most 15 minutes
## on 2 cores (about 8 estimated, 13 on a loaded machine). PEERS_OUT names the results folder (default: a new
## folder under $$TMPDIR); PEERS_FLAGS adds flags (engine options included).
PEERS_OUT   ?=
PEERS_FLAGS ?=
stress-peers:
	@out="$(PEERS_OUT)"; [ -n "$$out" ] || out=$$(mktemp -d "$${TMPDIR:-/tmp}/stress-peers.XXXXXX"); \
	case $$out in /*) ;; *) out=$(CURDIR)/$$out ;; esac; \
	cd benches/peers && $(GO) run ./cmd/gcstress-peers -kinds heap,arena,offheap,pebble,badger,ristretto \
		-scenario matrix,failure -values 10B,100B,1KB,10KB -keys 2M,2M,1M,200K -duration 25s \
		-out "$$out" $(PEERS_FLAGS)

## test-service: examples/service deployed for real: the service on the heap and arena kinds
## under GOMEMLIMIT=128MiB, scraped by a real Prometheus (the `prometheus` binary; the test
## skips without it). About 40 s; minutes on a busy 2-core machine (bounded waits).
test-service:
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

## lint: gofmt, vet (also with the invariants tag), staticcheck (a `go tool`
## pinned in go.mod) and the cross-OS checks: the module must vet on macOS
## and build on Windows, Linux-only code staying in _linux.go files.
lint: fmt-check vet
	$(GO) vet -tags invariants $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	GOOS=darwin $(GO) vet $(PKGS)
	GOOS=windows $(GO) build $(PKGS)

clean:
	$(GO) clean -testcache
