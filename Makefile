# writegc: every target works on a fresh machine with only Go installed;
# go.mod pins every tool (benchstat is a `go tool`).
GO        ?= go
PKGS      := ./...
STRESS_FLAGS ?=

.PHONY: all test fmt-check vet unit race benchsmoke peers-smoke stress bench lint gate clean

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

# One iteration of every benchmark so none can rot; large cases skip under -short.
benchsmoke:
	$(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m $(PKGS)

# The peer engines (Pebble, Badger) live in their own module; keep it building too.
peers-smoke:
	cd benches/peers && $(GO) vet ./... && $(GO) test -short -run '^$$' -bench . -benchtime 1x -timeout 20m ./...

## stress: the main job, gcstress on its embedded default matrix.
stress:
	$(GO) run ./cmd/gcstress $(STRESS_FLAGS)

## bench: the whole suite, -count 10, stored under results/bench/<commit>.txt
bench:
	./scripts/bench

## gate: the CI regression gate against the previous commit.
gate:
	./scripts/gate

lint: fmt-check vet
	$(GO) vet -tags invariants $(PKGS)

clean:
	$(GO) clean -testcache
