package gchealth

import (
	"fmt"
	"log"
	"os"
)

// ExitFailure is the code Exit exits with when given one a supervisor
// would not read as a failure: 0, or a code outside 1..255, which the
// operating system truncates (256 becomes 0).
const ExitFailure = 1

// Exit returns an OnSpiral function for a service that prefers a fast
// crash and a restart to a long death spiral: it logs one line naming the
// figures (through the log package's standard logger, so with the
// service's own prefix and output) and exits the process, skipping
// deferred functions (os.Exit). It exits with code when code is 1..255,
// and with ExitFailure otherwise (the line says so): an exit in a death
// spiral is a failure, and a supervisor's restart on failure (systemd's
// Restart=on-failure) must fire.
func Exit(code int) func(Change) {
	note := ""
	if code < 1 || code > 255 {
		note = fmt.Sprintf(" (Exit was given %d, which a supervisor would read as success or truncate)", code)
		code = ExitFailure
	}
	return func(c Change) {
		f := c.Figures
		log.Printf("gchealth: %s: live heap %.0f%% of GOMEMLIMIT (%d MiB), GC CPU %.0f%%, limiter engaged %v, %d windows in a row; exiting with code %d%s",
			CauseMemlimitSpiral, 100*f.HeapToLimitRatio, f.MemLimitBytes>>20, 100*f.GCCPURatio, f.LimiterEngaged, f.SpiralWindows, code, note)
		os.Exit(code)
	}
}
