//go:build !linux

package gchealth

// diskFull says whether err is a full disk; off Linux the errno is not
// told apart, and such a failure is classed as a write failure.
func diskFull(error) bool { return false }

// readOnly says whether err is a read-only file system (not told apart off Linux).
func readOnly(error) bool { return false }

// notADir says whether err is a path through something that is not a
// folder (not told apart off Linux).
func notADir(error) bool { return false }
