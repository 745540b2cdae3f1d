// Package lint is writegc's lint as an ordinary test: `go test ./internal/lint`
// (which `make test` runs) runs staticcheck, the darwin vet and windows build,
// the import rules that state the architecture (docs/ARCHITECTURE.md), the
// library rules (no flag parsing, no os.Exit outside commands) and the tracked
// file rules (no executable, nothing over MaxTrackedBytes outside results/ and
// testdata/), and results/'s rules (results_test.go: a size limit, one format
// per chart, a README.md and a run.sh in every study folder).
//
// Invariants:
//   - Every rule is a pure function of its inputs (a file list and their first
//     bytes, an import graph, parsed Go files), so each is tested on a made-up
//     repository that breaks it, as well as run on this one.
//   - The architecture's import rules live in one list, importRules; the
//     commands' allowance for flags and os.Exit in one list, commandPackages.
//
// The checks run go commands and read the checkout; they keep no state and
// may run in parallel.
package lint
