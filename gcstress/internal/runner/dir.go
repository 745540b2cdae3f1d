package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/writegc/writegc/internal/escape"
	"github.com/writegc/writegc/internal/usage"
)

// dirTime is the UTC start time in a default folder's name: an ISO 8601
// date and time without colons, so the name is valid on every file system.
const dirTime = "2006-01-02T150405Z"

// NewDir is the default results folder: parent/<UTC time>-<id>, with a
// -2, -3, ... suffix when a folder of that name already has files (the
// short id makes that rare: two runs started in the same second by two
// processes get different ids).
func NewDir(parent string, now time.Time, id string) string {
	base := filepath.Join(parent, now.UTC().Format(dirTime)+"-"+id)
	dir := base
	for i := 2; i < 1000; i++ {
		if empty, _, err := isEmptyDir(dir); empty || err != nil {
			break
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
	return dir
}

// ShortID is 4 random lowercase hex digits: a default folder's id.
func ShortID() string { return fmt.Sprintf("%04x", rand.N(1<<16)) }

// isEmptyDir reports whether dir is missing or an empty folder, and lists
// up to three of its entries otherwise. Anything else at dir (a file, a
// FIFO, a socket) is an error before it is opened: opening a FIFO would
// block until a writer came.
func isEmptyDir(dir string) (bool, []string, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil, nil
	}
	if err == nil && !st.IsDir() {
		return false, nil, fmt.Errorf("%s is not a folder", dir)
	}
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(3)
	if errors.Is(err, io.EOF) {
		return true, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	return len(names) == 0, names, nil
}

// CheckEmpty refuses a results folder that holds anything, unless
// replace is set. The error wraps ErrUsage and names both flags.
func CheckEmpty(dir string, replace bool) error {
	empty, names, err := isEmptyDir(dir)
	switch {
	case err != nil:
		return usage.Errorf("out", "%v", err)
	case empty || replace:
		return nil
	}
	return usage.Errorf("out", "%s is not empty (it holds %s): give a new -out folder, or -replace-out to remove the earlier run's files first",
		dir, strings.Join(names, ", "))
}

// Prepare makes dir ready for a run: created, writable, empty of any
// earlier run's files. A folder that cannot be created or written is
// refused (ErrUsage, naming -out); so is a non-empty one without replace.
// With replace, Clear removes what the earlier run's manifest lists;
// anything else stays (and is named on stderr). runs says which top-level
// names this run may write.
func Prepare(dir string, replace bool, runs func(string) bool, stderr io.Writer) error {
	if err := checkWritable(dir); err != nil {
		return usage.Errorf("out", "%v", err)
	}
	if err := CheckEmpty(dir, replace); err != nil || !replace {
		return err
	}
	if empty, _, _ := isEmptyDir(dir); empty {
		return nil
	}
	kept, err := Clear(dir, runs)
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "gcstress: -replace-out: left %d entr(ies) no run's manifest accounts for in %s: %s\n",
			len(kept), escape.Terminal(dir), escape.Terminal(strings.Join(kept, ", ")))
	}
	return nil
}

// checkWritable creates dir (and parents) and checks a file can be created
// in it.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".writable-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
