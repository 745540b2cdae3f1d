//go:build !linux

package oskit

import "os/exec"

// setGroup does nothing outside Linux: the child is killed alone when the
// context is done (exec's default), and WaitDelay bounds its grandchildren.
// Its twin is childproc_linux.go.
func setGroup(*exec.Cmd) {}

// watch returns a closed channel outside Linux: there is no group to kill
// (see setGroup).
func watch(*exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	close(done)
	return done
}
