package gcstress

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/writegc/writegc/explain"
)

// The results folder (-out) holds one run. An existing folder that is not
// empty is refused, so a second run can neither append its samples to the
// first's samples.jsonl nor overwrite its summary; -replace-out first
// removes the files a run writes (and nothing else). Without -out, each run
// gets a new folder under DefaultOutParent.

// DefaultOutParent is where a run with no Config.Out gets its folder:
// DefaultOutParent/<UTC start time>, relative to the working directory.
const DefaultOutParent = "results/gcstress"

// resultFiles are the fixed names of the files a run writes at the top of
// its folder; charts (timeline-*, throughput, capacity) are matched by isChart.
var resultFiles = []string{"samples.jsonl", "summary.json", "report.md", "report.html"}

// isChart reports whether name is a chart a run writes.
func isChart(name string) bool {
	ext := filepath.Ext(name)
	if ext != ".svg" && ext != ".png" {
		return false
	}
	stem := strings.TrimSuffix(name, ext)
	return stem == "throughput" || stem == "capacity" || strings.HasPrefix(stem, "timeline-")
}

// isRunFile reports whether name, directly inside the results folder, is a
// file a run writes.
func isRunFile(name string) bool { return slices.Contains(resultFiles, name) || isChart(name) }

// isCaptureFile reports whether name, inside a scenario's folder, is a file
// the child's profiles or flight recorder write.
func isCaptureFile(name string) bool {
	return name == explain.MetricsFile || name == explain.FlightFile || slices.Contains(explain.KindAll.Files(), name)
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
// With replace, clearRun removes an earlier run's files and anything else
// stays (and is named on stderr).
func prepareOut(dir string, replace bool, stderr io.Writer) error {
	if err := checkWritable(dir); err != nil {
		return usageErr("out", "%v", err)
	}
	if err := checkOutEmpty(dir, replace); err != nil || !replace {
		return err
	}
	kept, err := clearRun(dir)
	if err != nil {
		return fmt.Errorf("gcstress: -replace-out: %w", err)
	}
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "gcstress: -replace-out: left %d entr(ies) gcstress did not write in %s: %s\n",
			len(kept), dir, strings.Join(kept, ", "))
	}
	return nil
}

// clearRun removes the files a run writes from dir: the fixed result files,
// the charts, and every scenario folder that holds only capture files. It
// returns the names of the entries it left.
func clearRun(dir string) (kept []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type().IsRegular() && isRunFile(e.Name()):
			err = os.Remove(p)
		case e.IsDir() && onlyCaptureFiles(p):
			err = os.RemoveAll(p)
		default:
			kept = append(kept, e.Name())
		}
		if err != nil {
			return kept, err
		}
	}
	return kept, nil
}

// onlyCaptureFiles reports whether dir holds nothing but regular capture
// files (it may be empty).
func onlyCaptureFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !isCaptureFile(e.Name()) {
			return false
		}
	}
	return true
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
