package runner

import (
	"io/fs"
	"os"
	"syscall"
)

// sweepSupported: SweepStale looks at TMPDIR on this OS.
const sweepSupported = true

// folderOwned: fi (a build folder or its marker) belongs to this process's
// user, so a sweep never removes another user's files.
func folderOwned(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
