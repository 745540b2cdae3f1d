//go:build linux

package benchgate

import (
	"errors"
	"syscall"
)

// processGone reports whether no process pid exists (kill(pid, 0) says
// ESRCH). A process of another user (EPERM) exists. Its twin is
// proc_other.go.
func processGone(pid int) bool {
	return pid > 0 && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
