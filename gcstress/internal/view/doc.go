// Package view holds how gcstress shows a run: what the report and the
// live page both show (a result's figures: Figures, CellText; the machine
// line: MachineLine, LoadLine, BusyNote; the duration formats NS, US; each
// kind's colour on every chart and page: KindColour, KindColourHex; the
// pages' web assets, web/, embedded, with the data point both pages draw,
// Point), and the terminal progress of a run as it goes (progress.go).
//
// Invariants:
//   - The figures, formats and colours are pure functions of results
//     values; the only other state is the embedded read-only assets, and a
//     missing embedded asset is a build bug (panic).
//   - Progress writes to the writer it is given (the command's stderr, so
//     the report on stdout stays clean); names and errors from engines and
//     children are escaped for the terminal (internal/escape); a Bar is
//     used from the run's goroutine only, and its renderer reads each bar's
//     text under a mutex.
//   - It imports only results of gcstress's packages.
package view
