//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package writepath

import "os"

// walLockAcrossProcesses says whether the WAL directory lock also refuses
// openers in other processes. Without flock(2) it does not: only the
// process-wide registry (wallock.go) refuses a second opener, in this
// process. An exclusively created pid file would refuse other processes
// too, but a crash would leave it behind and lock the directory for good.
const walLockAcrossProcesses = false

func lockFile(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
