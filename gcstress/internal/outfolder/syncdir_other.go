//go:build !linux

package outfolder

// syncDir does nothing outside Linux: not every system can fsync a folder
// (Windows cannot open one for it), so a rename there is durable only as
// far as the file system makes it.
func syncDir(string) error { return nil }
