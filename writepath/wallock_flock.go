//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package writepath

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// walLockAcrossProcesses says whether the WAL directory lock also refuses
// openers in other processes (flock(2) here).
const walLockAcrossProcesses = true

// lockFile takes an exclusive flock(2) on f without waiting: false when
// another open file description holds it (another process, or another
// open of the file in this one). The kernel drops it when the holder's
// descriptor closes, also when the process dies, so a crash leaves no
// stale lock.
func lockFile(f *os.File) (bool, error) {
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
