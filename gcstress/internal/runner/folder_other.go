//go:build !linux

package runner

import "io/fs"

// sweepSupported: SweepStale does nothing on this OS, where the owner of a
// folder is not checked here.
const sweepSupported = false

// folderOwned: never proven on this OS, so a sweep removes nothing.
func folderOwned(fs.FileInfo) bool {
	return false
}
