//go:build !linux

package gchealth

// syncDir does nothing off Linux: Windows cannot open a folder for
// fsync, and on macOS fsync of a folder does not reach the disk either
// (F_FULLFSYNC would be needed). Files are still synced before the rename.
func syncDir(string) error { return nil }
