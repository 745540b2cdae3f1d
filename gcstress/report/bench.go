package report

import (
	"io"

	"github.com/writegc/writegc/gcstress/benchtxt"
	"github.com/writegc/writegc/gcstress/results"
)

// BenchFile is the results folder's bench.txt: every scenario run's
// figures in the Go benchmark format, for `gcstress compare`, benchstat
// and benchgate (package benchtxt is its schema). A rebuild writes it
// again from the replayed runs, so an older folder gets one.
const BenchFile Name = benchtxt.FileName

var benchFormat = Format{Name: BenchFile, When: AtRun | AtRebuild, Owns: is(benchtxt.FileName),
	Files: one(benchtxt.FileName, func(w io.Writer, sum *results.Summary, _ []string) error {
		return benchtxt.Write(w, sum)
	})}
