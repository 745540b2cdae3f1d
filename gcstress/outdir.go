package gcstress

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/gcstress/internal/outfolder"
	"github.com/writegc/writegc/gcstress/report"
	"github.com/writegc/writegc/internal/escape"
)

// The results folder (-out) holds one run. An existing folder that is not
// empty is refused, so a second run can neither append its samples to the
// first's samples.jsonl nor overwrite its summary. -replace-out first
// removes what an earlier run's manifest (manifest.go) lists and is still
// as that run wrote it, and nothing else: a folder with files but no
// manifest is refused (ErrUsage), and so is one where something the run
// would write (a result file, a chart, a scenario folder) would land on a
// file the manifest does not account for. Without -out, each run gets a
// new folder under DefaultOutParent.

// The results folder's writer (atomic files, the manifest, -replace-out's
// clearing) is package gcstress/internal/outfolder.
type (
	outFiles       = outfolder.Files
	createTempFunc = outfolder.CreateTempFunc
)

// ManifestFile is the name of the manifest in a results folder.
const ManifestFile = outfolder.ManifestFile

func newOutFiles(dir string, create createTempFunc) *outFiles { return outfolder.New(dir, create) }

func openOutFiles(dir string, create createTempFunc) (*outFiles, error) {
	return outfolder.Open(dir, create)
}

// DefaultOutParent is where a run with no Config.Out gets its folder:
// DefaultOutParent/<UTC start time>-<short id> (for example
// gcstress-out/2026-12-01T110503Z-ab12), relative to the working
// directory. It is a scratch folder, not a place for committed results:
// writegc's .gitignore lists it, and a module that runs gcstress should
// list it in its own. Config.Out (-out) names any other folder exactly.
const DefaultOutParent = "gcstress-out"

// outDirTime is the UTC start time in a default folder's name: an ISO 8601
// date and time without colons, so the name is valid on every file system.
const outDirTime = "2006-01-02T150405Z"

// runFiles are the files a run writes at the top of its folder besides
// those of the report formats (report.Owns: summary.json, the reports,
// the charts).
var runFiles = []string{samplesFile, ManifestFile}

// runNames returns whether a run of cfg may write the entry name at the
// top of its folder: a result file, a chart, or a scenario's folder.
func runNames(cfg Config) func(name string) bool {
	dirs := map[string]bool{}
	for _, s := range Expand(cfg) {
		dirs[s.DirName()] = true
	}
	capa := cfg.wants(SetCapacity)
	return func(name string) bool {
		return slices.Contains(runFiles, name) || report.Owns(name) || dirs[name] || (capa && strings.HasPrefix(name, SetCapacity+"-"))
	}
}

// newOutDir is the default results folder: parent/<UTC time>-<id>, with a
// -2, -3, ... suffix when a folder of that name already has files (the
// short id makes that rare: two runs started in the same second by two
// processes get different ids).
func newOutDir(parent string, now time.Time, id string) string {
	base := filepath.Join(parent, now.UTC().Format(outDirTime)+"-"+id)
	dir := base
	for i := 2; i < 1000; i++ {
		if empty, _, err := isEmptyDir(dir); empty || err != nil {
			break
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
	return dir
}

// shortID is 4 random lowercase hex digits: a default folder's id.
func shortID() string { return fmt.Sprintf("%04x", rand.N(1<<16)) }

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

// checkOutEmpty refuses a results folder that holds anything, unless
// replace is set. The error wraps ErrUsage and names both flags.
func checkOutEmpty(dir string, replace bool) error {
	empty, names, err := isEmptyDir(dir)
	switch {
	case err != nil:
		return usageErr("out", "%v", err)
	case empty || replace:
		return nil
	}
	return usageErr("out", "%s is not empty (it holds %s): give a new -out folder, or -replace-out to remove the earlier run's files first",
		dir, strings.Join(names, ", "))
}

// prepareOut makes dir ready for a run: created, writable, empty of any
// earlier run's files. A folder that cannot be created or written is
// refused (ErrUsage, naming -out); so is a non-empty one without replace.
// With replace, clearRun removes what the earlier run's manifest lists;
// anything else stays (and is named on stderr). runs says which top-level
// names this run may write (runNames).
func prepareOut(dir string, replace bool, runs func(string) bool, stderr io.Writer) error {
	if err := checkWritable(dir); err != nil {
		return usageErr("out", "%v", err)
	}
	if err := checkOutEmpty(dir, replace); err != nil || !replace {
		return err
	}
	if empty, _, _ := isEmptyDir(dir); empty {
		return nil
	}
	kept, err := outfolder.Clear(dir, runs)
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
