//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package benchgate

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// tryLockFile takes an exclusive flock(2) on f without waiting: false when
// another open file description holds it (another process, or another open
// of the file in this one). The kernel drops it when the descriptor closes,
// also when the process dies, so a killed run leaves no stale lock. Its twin
// is gitlock_other.go.
func tryLockFile(f *os.File) (bool, error) {
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

func unlockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
