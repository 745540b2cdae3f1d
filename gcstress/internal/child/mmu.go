package child

import (
	"math"
	"time"

	"github.com/writegc/writegc/gcstress/results"
)

// worstWindows is how many of the worst 10 ms windows the end line keeps.
const worstWindows = 3

// fillMMU sets e's MMU curve (DefaultMMUWindows, with the
// collector's pauses, background workers and assists taken out, as go
// tool trace's default) and its worst 10 ms windows from ph; neither when
// the trace had no utilization data. A point that is not a utilization
// (NaN, out of [0, 1]) is left out: JSON has no NaN, and summary.json must
// stay readable.
func fillMMU(e *results.Sample, ph *Phases) {
	for _, p := range ph.MMU(UtilDefault, DefaultMMUWindows) {
		if isUtil(p.Util) {
			e.MMU = append(e.MMU, results.MMUPoint{WindowNs: int64(p.Window), Util: p.Util})
		}
	}
	for _, w := range ph.WorstWindows(UtilDefault, time.Duration(results.MMUWorstWindow), worstWindows) {
		if isUtil(w.Util) {
			e.MMUWorst = append(e.MMUWorst, results.WorstWindow{StartNs: int64(w.Start), WindowNs: int64(w.Window), Util: w.Util})
		}
	}
}

// isUtil reports whether u is a utilization: a number in [0, 1].
func isUtil(u float64) bool { return !math.IsNaN(u) && u >= 0 && u <= 1 }
