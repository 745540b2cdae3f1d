package runner

import (
	"errors"
	"fmt"
	"github.com/writegc/writegc/internal/usage"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// clearPlan is what Clear removes: the files of the Manifest that are
// still as recorded, then the Manifest's folders left empty by that.
type clearPlan struct {
	files, dirs []string // paths inside the folder
	changed     []string // listed files no longer as recorded: kept
}

// Clear removes an earlier run's files from dir, as its Manifest lists
// them, and returns the names of the top-level entries it left. It
// refuses (ErrUsage, naming -replace-out) a folder without a Manifest, a
// Manifest it cannot read, and a folder where an entry left would collide
// with a name this run writes (runs); in each case it removes nothing.
func Clear(dir string, runs func(string) bool) (kept []string, err error) {
	m, err := ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usage.Errorf("replace-out", "%s holds files but no %s, so none of them is known to be a run's and nothing is removed: "+
			"give a new -out folder, or empty this one yourself", dir, ManifestFile)
	}
	if err != nil {
		return nil, usage.Errorf("replace-out", "%v", err)
	}
	plan, err := planClear(dir, m)
	if err != nil {
		return nil, usage.Errorf("replace-out", "%v", err)
	}
	kept, err = leftAfter(dir, plan)
	if err != nil {
		return nil, usage.Errorf("replace-out", "%v", err)
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
		return nil, usage.Errorf("replace-out", "%s: %s would be overwritten but no run's Manifest accounts for %s%s; move them away first",
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
	for _, name := range []string{ManifestFile, LegacyManifestFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return kept, fmt.Errorf("gcstress: -replace-out: %w", err)
		}
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
func planClear(dir string, m *Manifest) (clearPlan, error) {
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

// fileState is how a Manifest's file stands in the folder.
type fileState int

const (
	fileGone       fileState = iota // not there (or not reachable without a symbolic link)
	fileAsRecorded                  // a regular file with the recorded size and SHA-256
	fileChanged                     // something else now has its name
)

// recordedState says whether the file of rec is in dir as the run wrote
// it; a partial record (samples.jsonl of a run that never closed it)
// matches any regular file.
func recordedState(dir string, rec FileRecord) (fileState, error) {
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
		if n != ManifestFile && n != LegacyManifestFile && !slices.Contains(p.files, n) && !slices.Contains(p.dirs, n) {
			left = append(left, n)
		}
	}
	return left, nil
}
