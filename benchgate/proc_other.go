//go:build !linux

package benchgate

// processGone is false outside Linux: without a portable way to tell, a
// stale benchgate worktree is left for the user (git worktree remove). Its
// twin is proc_linux.go.
func processGone(pid int) bool { return false }
