package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/writegc/writegc/internal/oskit"
)

// A build folder is os.TempDir()/gcstress-build-*, made by Build. Its
// marker file, locked (flock) for as long as the Builds that made it lives,
// is what proves a folder is one: the kernel drops the lock when its
// process dies, however it dies, so a folder whose marker is unlocked was
// left by a run that was killed (SIGKILL, SIGPIPE) and SweepStale may
// remove it.
const (
	// DirPrefix starts the name of every build folder.
	DirPrefix = "gcstress-build-"
	// markerName is the marker file in a build folder.
	markerName = "gcstress-build.lock"
	// markerMagic is the marker's first line.
	markerMagic = "gcstress build folder"
	// maxSweep bounds the folders one SweepStale looks at.
	maxSweep = 64
	// sweepBatch is how many names of TMPDIR are read at a time.
	sweepBatch = 256
)

// ours are the build folders this process holds: never stale, also where
// the lock cannot tell (a file system that emulates flock per process).
var ours sync.Map

// newFolder makes a build folder in os.TempDir() and its marker, locked;
// the marker appears (by rename) only once locked, so a sweep never sees a
// folder of a live run unlocked.
func newFolder() (dir string, lock *os.File, err error) {
	dir, err = os.MkdirTemp("", DirPrefix)
	if err != nil {
		return "", nil, err
	}
	ours.Store(dir, true)
	lock, err = writeMarker(dir)
	if err != nil {
		ours.Delete(dir)
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, lock, nil
}

// writeMarker writes dir's marker through a temporary file, locked before
// it is renamed into place, and returns it open (the lock lives with it).
func writeMarker(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".marker-*")
	if err != nil {
		return nil, err
	}
	ok, err := oskit.TryLock(f)
	if err == nil && !ok {
		err = errors.New("the new marker file is locked by another process")
	}
	if err == nil {
		_, err = fmt.Fprintf(f, "%s\npid %d\n", markerMagic, os.Getpid())
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, markerName))
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// removeFolder removes a build folder of this process, then drops its lock.
func removeFolder(dir string, lock *os.File) {
	_ = os.RemoveAll(dir)
	if lock != nil {
		_ = lock.Close()
	}
	ours.Delete(dir)
}

// SweepStale removes the build folders in tmp (os.TempDir()) that runs
// which died left behind, and returns how many it removed. A folder is
// removed only when it is provably a stale build folder: a directory (not
// a link) named DirPrefix*, owned by this user, holding a regular marker
// file of this user that starts with the marker line and whose lock can be
// taken (its run is gone). Anything else is left alone, as is everything
// where the OS cannot tell (see folderOwned, oskit.AcrossProcesses). It
// looks at no more than maxSweep such folders and never fails: what it
// cannot read it leaves.
func SweepStale(tmp string) int {
	if !oskit.AcrossProcesses || !sweepSupported {
		return 0
	}
	removed := 0
	for _, dir := range candidates(tmp) {
		if removeIfStale(dir) {
			removed++
		}
	}
	return removed
}

// candidates are the first maxSweep directories of tmp named DirPrefix*,
// read in batches so a huge TMPDIR is never held in memory at once.
func candidates(tmp string) []string {
	d, err := os.Open(tmp)
	if err != nil {
		return nil
	}
	defer d.Close()
	var out []string
	for len(out) < maxSweep {
		ents, err := d.ReadDir(sweepBatch)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), DirPrefix) && e.Type() == os.ModeDir && len(out) < maxSweep {
				out = append(out, filepath.Join(tmp, e.Name()))
			}
		}
		if err != nil {
			break
		}
	}
	return out
}

// removeIfStale removes dir when it is provably a stale build folder (see
// SweepStale), holding the marker's lock while it does.
func removeIfStale(dir string) bool {
	if _, mine := ours.Load(dir); mine {
		return false
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !folderOwned(fi) {
		return false
	}
	marker := filepath.Join(dir, markerName)
	mi, err := os.Lstat(marker)
	if err != nil || !mi.Mode().IsRegular() || !folderOwned(mi) {
		return false
	}
	f, err := os.Open(marker)
	if err != nil {
		return false
	}
	defer f.Close()
	if ok, err := oskit.TryLock(f); err != nil || !ok {
		return false // a live run holds it
	}
	if !isMarker(f) {
		return false
	}
	return os.RemoveAll(dir) == nil
}

// isMarker: f starts with the marker line (and a pid line).
func isMarker(f *os.File) bool {
	sc := bufio.NewScanner(io.LimitReader(f, 256))
	if !sc.Scan() || sc.Text() != markerMagic || !sc.Scan() {
		return false
	}
	pid, ok := strings.CutPrefix(sc.Text(), "pid ")
	_, err := strconv.Atoi(pid)
	return ok && err == nil
}
