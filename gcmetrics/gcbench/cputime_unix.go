//go:build unix

package gcbench

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the user plus system CPU time the process has used,
// every thread included (getrusage RUSAGE_SELF), and whether it could.
func processCPU() (time.Duration, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
