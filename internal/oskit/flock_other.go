//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package oskit

import "os"

// AcrossProcesses says whether a lock also refuses other processes: without
// flock(2) it does not.
const AcrossProcesses = false

// TryLock always succeeds without flock(2).
func TryLock(*os.File) (bool, error) { return true, nil }

// Unlock does nothing without flock(2).
func Unlock(*os.File) error { return nil }
