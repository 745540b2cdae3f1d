//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package benchgate

import "os"

// tryLockFile always succeeds without flock(2): worktree operations are then
// serialised among the Runs of one process only (lockWorktrees' in-process
// lock), not across processes. Its twin is gitlock_flock.go.
func tryLockFile(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
