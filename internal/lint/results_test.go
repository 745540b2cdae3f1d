package lint

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxResultsBytes bounds the bytes results/ tracks: it keeps what cannot be
// rebuilt (raw samples, summaries, READMEs, run.sh, the charts a README
// shows), so growth past it means a rebuildable file was committed
// (results/README.md, "Derived files").
const maxResultsBytes int64 = 30 << 20

// checkResults applies the results/ rules to the tracked files (paths
// relative to root, slash-separated): their total size at most limit, no
// chart in two formats (x.png beside x.svg), summaries and samples kept
// gzipped (summary.json.gz, samples.jsonl.gz), and a README.md and a run.sh in
// every study folder. A study folder is a folder right under results/ or,
// for one holding only folders (a group, as results/gcstress), each folder
// right under it. A listed file missing from the work tree is skipped, as
// CheckTrackedFiles skips it.
func checkResults(root string, files []string, limit int64) ([]Finding, error) {
	var total int64
	present := map[string]bool{}
	grouped := map[string]bool{} // a top folder: false once it holds a file of its own
	for _, name := range files {
		name = filepath.ToSlash(name)
		parts := strings.Split(name, "/")
		if parts[0] != "results" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		total += fi.Size()
		if len(parts) < 3 { // the index and other files of results/ itself
			continue
		}
		present[name] = true
		top := path.Join(parts[0], parts[1])
		if _, seen := grouped[top]; !seen {
			grouped[top] = true
		}
		if len(parts) == 3 {
			grouped[top] = false
		}
	}
	var found []Finding
	if total > limit {
		found = append(found, Finding{"results", fmt.Sprintf("%d bytes tracked (limit %d): commit what cannot be rebuilt, not reports, second chart formats or uncited profiles", total, limit)})
	}
	studies := map[string]bool{}
	for name := range present {
		parts := strings.Split(name, "/")
		if strings.HasSuffix(name, ".png") && present[strings.TrimSuffix(name, ".png")+".svg"] {
			found = append(found, Finding{name, "chart also tracked as .svg: keep the format its README shows"})
		}
		if base := path.Base(name); base == "summary.json" || base == "samples.jsonl" {
			found = append(found, Finding{name, "kept uncompressed: gzip it (scripts/lib.sh's out_run does; results.ReadSummary reads either)"})
		}
		top := path.Join(parts[0], parts[1])
		switch {
		case !grouped[top]:
			studies[top] = true
		case len(parts) >= 4:
			studies[path.Join(top, parts[2])] = true
		}
	}
	for dir := range studies {
		for _, want := range []string{"README.md", "run.sh"} {
			if !present[dir+"/"+want] {
				found = append(found, Finding{dir, "study folder without " + want})
			}
		}
	}
	slices.SortFunc(found, func(a, b Finding) int { return strings.Compare(a.String(), b.String()) })
	return found, nil
}

// TestResultsRules: results/ on this checkout keeps to checkResults' rules.
func TestResultsRules(t *testing.T) {
	root := moduleRoot(t)
	files, err := TrackedFiles(root)
	if err != nil {
		t.Skip("not a git checkout:", err)
	}
	found, err := checkResults(root, files, maxResultsBytes)
	if err != nil {
		t.Fatal(err)
	}
	report(t, "results", found)
}

// TestResultsRulesFind: each rule finds its breach in a small tree, and a
// folder that keeps every rule is not named.
func TestResultsRulesFind(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{
		"results/README.md":               "index, not a study\n",
		"results/ok/README.md":            "# ok\n",
		"results/ok/run.sh":               "#!/bin/sh\n",
		"results/ok/run/summary.json.gz":  "{}\n",
		"results/twice/README.md":         "# twice\n",
		"results/twice/run.sh":            "#!/bin/sh\n",
		"results/twice/run/x.png":         "png",
		"results/twice/run/x.svg":         "svg",
		"results/twice/run/y.png":         "png",
		"results/bare/summary.json":       "{}\n",
		"results/group/a/README.md":       "# a\n",
		"results/group/a/run.sh":          "#!/bin/sh\n",
		"results/group/b/README.md":       "# b\n",
		"results/group/b/c/bench.txt":     "BenchmarkX 1 1 ns/op\n",
		"notresults/big/summary.json":     strings.Repeat("x", 100),
		"results/ok/run/samples.jsonl.gz": strings.Repeat("x", 40),
	}
	for name, body := range tree {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"results/gone/README.md"} // tracked, deleted from the work tree
	for name := range tree {
		files = append(files, name)
	}
	var size int64
	for name, body := range tree {
		if strings.HasPrefix(name, "results/") {
			size += int64(len(body))
		}
	}
	found, err := checkResults(root, files, size-1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Where+": "+strings.SplitN(f.What, " (", 2)[0])
	}
	want := []string{
		"results/bare/summary.json: kept uncompressed: gzip it",
		"results/bare: study folder without README.md",
		"results/bare: study folder without run.sh",
		"results/group/b: study folder without run.sh",
		"results/twice/run/x.png: chart also tracked as .svg: keep the format its README shows",
		fmt.Sprintf("results: %d bytes tracked", size),
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if found, err := checkResults(root, files, size); err != nil || len(found) != 5 {
		t.Errorf("at the limit: %v, %v; want the 5 findings that are not the size", found, err)
	}
}
