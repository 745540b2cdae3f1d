// Package report renders a gcstress run (a results.Summary) in every form
// it has: the terminal table, YCSB, PE and JSON (the -format values), the
// files of a results folder: summary.json, bench.txt (package
// compare's schema), the charts (PNG and SVG, gonum), report.md and
// report.html; and, while a run goes on, the live page (live.go: Server,
// `gcstress -http ADDR`), a report served as the run's events arrive.
//
// Every format is one Format in one registry (registry.go), in the order
// a folder is written. From it come the terminal formats (Formats,
// WriteTerminal), the folder a run writes and the one `gcstress report DIR`
// rebuilds (WriteFolder with AtRun or AtRebuild), and which names of a
// folder are report files (Owns: -replace-out's list). Adding a format is
// one file with its Format, its line in the registry and its golden file
// (docs/ARCHITECTURE.md has the steps).
//
// The conclusion sentences (conclusion.go) are built in one place and
// printed by the terminal table, report.md and report.html alike, each
// escaping kind names its own way.
//
// Invariants:
//   - A renderer only reads the Summary and writes to the io.Writer or the
//     Sink it is given; it keeps nothing, so formats are safe to use from
//     several goroutines on distinct writers.
//   - Folder files go through a Sink (package gcstress's folder writer),
//     which writes each atomically and lists it in the folder's manifest
//     first; report never opens a file itself.
//   - Names, notes and errors from engines and children are escaped for
//     the form they reach: control characters on the terminal, Markdown in
//     report.md, HTML in report.html (internal/escape, html/template).
//   - The outputs are contracts: their golden files change only on
//     purpose.
//   - The live Server answers only requests whose Host names it as a local
//     browser would (else 403: no DNS rebinding), keeps a bounded history
//     and bounded client queues, and drops a slow client rather than delay
//     the run.
//
// report imports results and gcstress/internal/view, never gcstress.
package report
