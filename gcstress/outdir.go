package gcstress

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

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

// DefaultOutParent is where a run with no Config.Out gets its folder:
// DefaultOutParent/<UTC start time>, relative to the working directory.
const DefaultOutParent = "results/gcstress"

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

// newOutDir is the default results folder: parent/<UTC time>, with a -2,
// -3, ... suffix when a folder of that name already has files (two runs
// started in the same second).
func newOutDir(parent string, now time.Time) string {
	base := filepath.Join(parent, now.UTC().Format("20060102T150405Z"))
	dir := base
	for i := 2; i < 1000; i++ {
		if empty, _, err := isEmptyDir(dir); empty || err != nil {
			break
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
	return dir
}

// isEmptyDir reports whether dir is missing or an empty folder, and lists
// up to three of its entries otherwise.
func isEmptyDir(dir string) (bool, []string, error) {
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
	kept, err := clearRun(dir, runs)
	if err != nil {
		return err
	}
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "gcstress: -replace-out: left %d entr(ies) no run's manifest accounts for in %s: %s\n",
			len(kept), escape.Terminal(dir), escape.Terminal(strings.Join(kept, ", ")))
	}
	return nil
}

// clearPlan is what clearRun removes: the files of the manifest that are
// still as recorded, then the manifest's folders left empty by that.
type clearPlan struct {
	files, dirs []string // paths inside the folder
	changed     []string // listed files no longer as recorded: kept
}

// clearRun removes an earlier run's files from dir, as its manifest lists
// them, and returns the names of the top-level entries it left. It
// refuses (ErrUsage, naming -replace-out) a folder without a manifest, a
// manifest it cannot read, and a folder where an entry left would collide
// with a name this run writes (runs); in each case it removes nothing.
func clearRun(dir string, runs func(string) bool) (kept []string, err error) {
	m, err := readManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usageErr("replace-out", "%s holds files but no %s, so none of them is known to be a run's and nothing is removed: "+
			"give a new -out folder, or empty this one yourself", dir, ManifestFile)
	}
	if err != nil {
		return nil, usageErr("replace-out", "%v", err)
	}
	plan, err := planClear(dir, m)
	if err != nil {
		return nil, usageErr("replace-out", "%v", err)
	}
	kept, err = leftAfter(dir, plan)
	if err != nil {
		return nil, usageErr("replace-out", "%v", err)
	}
	var clash []string
	for _, k := range kept {
		if runs(k) {
			clash = append(clash, k)
		}
	}
	if len(clash) > 0 {
		why := ""
		if len(plan.changed) > 0 {
			why = fmt.Sprintf(" (changed since the run wrote them: %s)", strings.Join(plan.changed, ", "))
		}
		return nil, usageErr("replace-out", "%s: %s would be overwritten but no run's manifest accounts for %s%s; move them away first",
			dir, strings.Join(clash, ", "), pronoun(len(clash)), why)
	}
	for _, f := range plan.files {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return kept, fmt.Errorf("gcstress: -replace-out: %w", err)
		}
	}
	for _, d := range plan.dirs {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return kept, fmt.Errorf("gcstress: -replace-out: %w", err)
		}
	}
	if err := os.Remove(filepath.Join(dir, ManifestFile)); err != nil {
		return kept, fmt.Errorf("gcstress: -replace-out: %w", err)
	}
	return kept, nil
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// planClear checks each file of m against dir: removed when it is a
// regular file reached through real folders (no symbolic link) with the
// recorded size and SHA-256 (a partial record: any size); a folder of m
// is removed when nothing but such files is in it.
func planClear(dir string, m *manifest) (clearPlan, error) {
	var p clearPlan
	remove := map[string]bool{}
	for _, rec := range m.Files {
		st, err := recordedState(dir, rec)
		switch {
		case err != nil:
			return p, err
		case st == fileAsRecorded:
			p.files = append(p.files, rec.Path)
			remove[rec.Path] = true
		case st == fileChanged:
			p.changed = append(p.changed, rec.Path)
		}
	}
	for _, d := range m.Dirs {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(d)))
		if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
			continue
		}
		if err != nil {
			return p, err
		}
		ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			return p, err
		}
		if !slices.ContainsFunc(ents, func(e fs.DirEntry) bool { return !remove[d+"/"+e.Name()] }) {
			p.dirs = append(p.dirs, d)
		}
	}
	return p, nil
}

// fileState is how a manifest's file stands in the folder.
type fileState int

const (
	fileGone       fileState = iota // not there (or not reachable without a symbolic link)
	fileAsRecorded                  // a regular file with the recorded size and SHA-256
	fileChanged                     // something else now has its name
)

// recordedState says whether the file of rec is in dir as the run wrote
// it; a partial record (samples.jsonl of a run that never closed it)
// matches any regular file.
func recordedState(dir string, rec fileRecord) (fileState, error) {
	if parent := path.Dir(rec.Path); parent != "." {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(parent)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fileGone, nil
		case err != nil:
			return fileGone, err
		case !fi.IsDir():
			return fileGone, nil // a link or file where the run made a folder: not followed
		}
	}
	p := filepath.Join(dir, filepath.FromSlash(rec.Path))
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileGone, nil
	case err != nil:
		return fileGone, err
	case !fi.Mode().IsRegular():
		return fileChanged, nil
	case rec.Partial:
		return fileAsRecorded, nil
	case fi.Size() != rec.Size:
		return fileChanged, nil
	}
	got, err := digestFile(p)
	if err != nil {
		return fileGone, err
	}
	if got.SHA256 != rec.SHA256 {
		return fileChanged, nil
	}
	return fileAsRecorded, nil
}

// leftAfter lists the top-level entries of dir that the plan leaves.
func leftAfter(dir string, p clearPlan) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, e := range ents {
		n := e.Name()
		if n != ManifestFile && !slices.Contains(p.files, n) && !slices.Contains(p.dirs, n) {
			left = append(left, n)
		}
	}
	return left, nil
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
