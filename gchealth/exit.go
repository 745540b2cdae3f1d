package gchealth

import (
	"log"
	"os"
)

// Exit returns an OnSpiral function for a service that prefers a fast
// crash and a restart to a long death spiral: it logs one line naming the
// figures (through the log package's standard logger, so with the
// service's own prefix and output) and exits the process with code,
// skipping deferred functions (os.Exit).
func Exit(code int) func(Change) {
	return func(c Change) {
		f := c.Figures
		log.Printf("gchealth: %s: live heap %.0f%% of GOMEMLIMIT (%d MiB), GC CPU %.0f%%, limiter engaged %v, %d windows in a row; exiting with code %d",
			CauseMemlimitSpiral, 100*f.HeapToLimitRatio, f.MemLimitBytes>>20, 100*f.GCCPURatio, f.LimiterEngaged, f.SpiralWindows, code)
		os.Exit(code)
	}
}
