//go:build linux

package oskit

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// setGroup makes the child a process-group leader that dies with the
// thread that started it, and makes cancelling kill the whole group. Its
// twin is childproc_other.go.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
}

// killGroup sends SIGKILL to process group pgid; a group already gone is
// not an error.
func killGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// watch returns a channel closed once cmd's child has exited and the rest
// of its group was killed. It waits with waitid(WNOWAIT), which leaves the
// child a zombie for cmd.Wait to reap, so the group's id is still the
// child's own when the signal is sent. A child that is not a group leader
// (SysProcAttr changed by the caller) has only itself killed, by exec.
func watch(cmd *exec.Cmd) <-chan struct{} {
	done := make(chan struct{})
	if a := cmd.SysProcAttr; a == nil || !a.Setpgid || a.Pgid != 0 {
		close(done)
		return done
	}
	pid := cmd.Process.Pid
	go func() {
		defer close(done)
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return // cannot tell: cmd.Wait and WaitDelay bound what is left
			}
			break
		}
		killGroup(pid)
	}()
	return done
}
