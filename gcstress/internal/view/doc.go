// Package view holds what gcstress's report and live packages both show:
// a result's figures (Figures, CellText), the machine line (MachineLine,
// LoadLine, BusyNote), the duration formats (NS, US), the colour of each
// kind on every chart and page (KindColour, KindColourHex), and the pages' web
// assets (web/, embedded: uPlot, scripts, styles, templates) with the data
// point both pages draw (Point).
//
// Invariants: pure functions of results values, no state but the embedded
// read-only assets; a missing embedded asset is a build bug (panic).
// It imports only results of gcstress's packages.
package view
