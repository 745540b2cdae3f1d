//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package oskit

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// AcrossProcesses says whether a lock also refuses other processes.
const AcrossProcesses = true

// TryLock takes an exclusive flock(2) on f without waiting: false when
// another open file description holds it.
func TryLock(f *os.File) (bool, error) {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return false, nil
		}
		return false, err
	}
}

// Unlock drops the lock TryLock took on f.
func Unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
