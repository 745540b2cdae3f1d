//go:build gateslow

package slowdown

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Enabled reports whether the gateslow tag is compiled in.
const Enabled = true

// spins[s] is the number of loop iterations Inject runs at site s.
var spins [NumSites]uint64

var sink uint64

// WRITEGC_SLOWDOWN_NS="arena=1.5,memtable=120,writepath=400" sets the extra
// nanoseconds of work per call at each site (fractions allowed: they are
// converted into loop iterations measured once at start-up; the conversion is
// an estimate, which scripts/calibrate-gate corrects by measuring the
// slowdown it causes).
func init() {
	spec := os.Getenv("WRITEGC_SLOWDOWN_NS")
	if spec == "" {
		return
	}
	perNs := iterationsPerNs()
	for _, kv := range strings.Split(spec, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		ns, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil || ns < 0 {
			panic(fmt.Sprintf("slowdown: bad WRITEGC_SLOWDOWN_NS entry %q", kv))
		}
		found := false
		for s, n := range Names {
			if n == name {
				spins[s] = uint64(ns*perNs + 0.5)
				found = true
			}
		}
		if !found {
			panic(fmt.Sprintf("slowdown: unknown site %q in WRITEGC_SLOWDOWN_NS", name))
		}
	}
}

//go:noinline
func spin(n uint64) {
	x := sink
	for i := uint64(0); i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func iterationsPerNs() float64 {
	const n = 50_000_000
	best := time.Duration(1 << 62)
	for range 3 {
		t := time.Now()
		spin(n)
		if d := time.Since(t); d < best {
			best = d
		}
	}
	return float64(n) / float64(best.Nanoseconds())
}

// Inject burns the configured work for site s.
func Inject(s Site) {
	if n := spins[s]; n != 0 {
		spin(n)
	}
}
